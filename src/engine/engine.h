/* cuzk engine — the proving engine behind `cuzk serve`.
 *
 * A long-running, in-process service: proving keys loaded once and kept in a
 * key cache within a memory budget, a durable priority queue of jobs
 * (journaled before they are acknowledged, witness in a spool directory),
 * worker threads that prove (CPU workers now; W workers per GPU sharing a GPU
 * lock once the GPU backend exists), cancel, crash recovery, retention of
 * finished proofs, idempotency keys, a drain for SIGTERM, and counters and a
 * status snapshot for the HTTP server.
 *
 * The engine is a static library (cuzk_engine) linked into the cuzk
 * executable; libcuzk stays free of its SQLite/OpenSSL/inih dependencies.
 *
 * Conventions: every function that can fail returns a cuzk_status and fills
 * *err (may be NULL) with the same code and a one-line message. Besides the
 * cuzk_status codes of <cuzk/cuzk.h>, engine functions may return the
 * cuzk_engine_code values below (stored in cuzk_status / cuzk_error.code; the
 * server maps them to HTTP statuses). All functions on one cuzk_engine are
 * thread-safe. There is no global state: several engines may live in one
 * process (each with its own state directory). */
#ifndef CUZK_ENGINE_H
#define CUZK_ENGINE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cuzk/cuzk.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Engine-level outcomes beyond cuzk_status (HTTP mapping in brackets). The
 * cuzk_status codes map as: USAGE/FORMAT/MISMATCH -> 400, IO -> 500 or 400
 * (a path given by the client), NOMEM -> 503, others -> 500. */
enum cuzk_engine_code {
    CUZK_ENGINE_NOT_FOUND = 100, /* no such job / key (or its retention ended) [404] */
    CUZK_ENGINE_CONFLICT = 101,  /* idempotency key reused for a different request;
                                    evicting a key that is in use [409] */
    CUZK_ENGINE_BUSY = 102,      /* queue full (jobs or spool bytes): retry later [429] */
    CUZK_ENGINE_DRAINING = 103,  /* shutting down: no new jobs accepted [503] */
    CUZK_ENGINE_TOO_LARGE = 104, /* the job can never fit the memory budget [413] */
    CUZK_ENGINE_FORBIDDEN = 105, /* a file path the client may not name [403] */
    CUZK_ENGINE_NO_SPACE = 106,  /* the state directory's disk is full [507] */
    CUZK_ENGINE_UNAVAILABLE = 107 /* the journal or spool cannot be written now [503] */
};

/* Name of a cuzk_status or cuzk_engine_code ("not_found", "busy", ...). */
const char *cuzk_engine_code_name(int code);

/* ---- Settings --------------------------------------------------------------
 * One settings table for the whole daemon (engine and server): each setting
 * has a section, a name, a type, a default, a help line and a command-line
 * flag. Values come from the defaults, then the config file (INI, parsed by
 * libinih: `[section]` then `name = value`), then flags; they are read once
 * when the engine / server starts.
 *
 * Types: string; int; bool (true/false/yes/no/on/off/1/0); size (bytes, with
 * an optional K/M/G/T suffix, powers of 1024, "KiB"/"GB" etc. accepted,
 * "auto" = 0 where the help says so); duration (seconds, with an optional
 * ms/s/m/h/d suffix). */

#define CUZK_CFG_STR_MAX 1024
#define CUZK_CFG_LIST_MAX 8192

typedef struct cuzk_config {
    /* [server] — used by src/server (HTTP API). */
    char listen[CUZK_CFG_STR_MAX];     /* ADDR:PORT, default 127.0.0.1:9820 */
    char socket[CUZK_CFG_STR_MAX];     /* Unix socket path, "" = none */
    char token[CUZK_CFG_STR_MAX];      /* bearer token; required beyond localhost */
    char token_file[CUZK_CFG_STR_MAX]; /* read the token from this file (cuzk serve) */
    uint64_t max_request_bytes;        /* largest request body */
    int rate_limit;                    /* requests/s per client address (burst 2 s), 0 = none */
    int max_connections;               /* HTTP connections open at once */
    double request_timeout_s;          /* a connection idle or stalled this long is closed */
    double header_timeout_s;           /* a request's headers must arrive within this (total) */
    uint64_t body_min_rate;            /* bytes/s a body must average after header_timeout_s */
    int max_connections_per_address;   /* TCP connections open at once per client address, 0 = none */
    uint64_t body_memory;              /* request bodies held in memory at once, all requests */

    /* [engine] */
    char state_dir[CUZK_CFG_STR_MAX];  /* journal (SQLite), spool, results */
    char host_id[256];                 /* this host's name in the queue ("" = hostname) */
    int cpu_workers;                   /* CPU prover workers (used when there is no GPU) */
    int threads;                       /* CPU threads of the pool the workers share, 0 = online CPUs */
    int max_queued;                    /* queued + running jobs accepted before BUSY */
    uint64_t max_spool_bytes;          /* witness bytes in the spool before BUSY */
    int max_attempts;                  /* a job interrupted this many times fails */
    double retention_s;                /* finished jobs (and proofs) kept this long */
    double drain_timeout_s;            /* SIGTERM: how long running jobs may take */
    int paused;                        /* start with the workers paused (cuzk_engine_pause) */
    char queue[CUZK_CFG_STR_MAX];      /* "sqlite" (state_dir/journal.db) or a PostgreSQL
                                        * URI / conninfo shared by several hosts */
    double lease_s;                    /* PostgreSQL: a claim holds its job this long */
    double lease_renew_s;              /* PostgreSQL: leases renewed (and expired ones rescued) this often */
    double affinity_delay_s;           /* PostgreSQL: a job whose key is resident on another live host
                                        * waits this long for it before this host takes it (critical
                                        * jobs never wait); 0 = no affinity */
    int notify;                        /* PostgreSQL: LISTEN/NOTIFY wake-ups (else polling only) */

    /* [cluster] — a shared (PostgreSQL) queue: where witnesses live (docs/CLUSTER.md). */
    char advertise_url[160];           /* this host's API as the others reach it; "" = no blobs */
    char cluster_token[CUZK_CFG_STR_MAX]; /* bearer token of GET /v1/blobs between hosts */
    char cluster_token_file[CUZK_CFG_STR_MAX]; /* read cluster_token from this file (cuzk serve) */
    char shared_dir[CUZK_CFG_STR_MAX]; /* a directory all hosts mount: blobs in <dir>/<host_id>/ */
    uint64_t inline_witness_max;       /* witnesses up to this stay in the database */
    double fetch_timeout_s;            /* one fetch of a witness from another host */

    /* [memory] */
    uint64_t host_memory;              /* budget for resident keys + jobs; 0 = auto */
    uint64_t device_memory;            /* per-GPU budget; 0 = free memory at start minus a margin */

    int local_files;                   /* local clients may name files their own user can read */

    /* [keys] */
    char preload[CUZK_CFG_LIST_MAX];   /* comma-separated .zkey paths loaded at start */
    char key_dirs[CUZK_CFG_LIST_MAX];  /* directories clients may name keys in (comma-separated) */

    /* [witness] */
    char witness_dirs[CUZK_CFG_LIST_MAX]; /* directories clients may name witnesses in */

    /* [gpu] */
    char devices[256];                 /* "" = all GPUs, "none" = CPU only, "0,2" = those */
    int workers_per_device;            /* workers sharing one GPU (and its lock) */
    int msm_copies;                    /* the H MSM's precomputed copies where the key is resident */
    int stage_bases;                   /* streamed MSM bases staged through page-locked chunks */
} cuzk_config;

typedef enum cuzk_setting_type {
    CUZK_SET_STRING, CUZK_SET_INT, CUZK_SET_BOOL, CUZK_SET_SIZE, CUZK_SET_DURATION
} cuzk_setting_type;

typedef struct cuzk_setting {
    const char *section;   /* "engine" */
    const char *name;      /* "state_dir" */
    const char *flag;      /* "state-dir" (for --state-dir) */
    cuzk_setting_type type;
    const char *def;       /* default as text */
    const char *help;      /* one line */
    size_t offset;         /* of the field in cuzk_config */
    size_t cap;            /* string fields: buffer size */
} cuzk_setting;

/* The settings table (for --help and documentation); *n gets its length. */
const cuzk_setting *cuzk_config_settings(size_t *n);

/* Fills *cfg with every default. */
void cuzk_config_init(cuzk_config *cfg);

/* Applies an INI file over *cfg. Unknown sections/names and bad values are
 * errors (CUZK_ERR_USAGE naming the file, line and setting); on error *cfg is
 * unchanged. A missing file is CUZK_ERR_IO. */
cuzk_status cuzk_config_load(cuzk_config *cfg, const char *path, cuzk_error *err);

/* Sets one setting by "section.name", bare "name" or its flag ("state-dir").
 * CUZK_ERR_USAGE for an unknown setting or a bad value (*cfg unchanged). */
cuzk_status cuzk_config_set(cuzk_config *cfg, const char *name, const char *value,
                            cuzk_error *err);

/* The effective configuration as INI text (malloc'd; free()). The token is
 * written as "***" when set. */
char *cuzk_config_format(const cuzk_config *cfg);

/* ---- Engine ---------------------------------------------------------------- */

typedef struct cuzk_engine cuzk_engine;

typedef enum cuzk_priority {
    CUZK_PRIO_CRITICAL = 0, CUZK_PRIO_HIGH = 1, CUZK_PRIO_NORMAL = 2, CUZK_PRIO_LOW = 3
} cuzk_priority;
#define CUZK_PRIO_COUNT 4
/* "critical"/"high"/"normal"/"low"; parse returns -1 for anything else. */
const char *cuzk_priority_name(cuzk_priority p);
int cuzk_priority_parse(const char *s);

typedef enum cuzk_job_state {
    CUZK_JOB_QUEUED = 0, CUZK_JOB_RUNNING = 1, CUZK_JOB_DONE = 2,
    CUZK_JOB_FAILED = 3, CUZK_JOB_CANCELLED = 4
} cuzk_job_state;
/* "queued"/"running"/"done"/"failed"/"cancelled"; parse returns -1 otherwise. */
const char *cuzk_job_state_name(cuzk_job_state s);
int cuzk_job_state_parse(const char *s);
static inline int cuzk_job_state_terminal(cuzk_job_state s) { return s >= CUZK_JOB_DONE; }

/* Events, for the daemon's structured log (one line each). `fields` is
 * "k=v k=v" text (values without spaces or quoted). Called from engine
 * threads; must not call back into the engine. */
typedef void (*cuzk_engine_log_fn)(void *user, const char *event, const char *fields);

typedef struct cuzk_engine_hooks {
    cuzk_engine_log_fn log;   /* may be NULL */
    void *user;
} cuzk_engine_hooks;

/* One event to h->log, its fields formatted from fmt and ap (at most 1023
 * bytes); nothing when h->log is NULL. The engine's and the server's logs. */
void cuzk_engine_vlog(const cuzk_engine_hooks *h, const char *event, const char *fmt, va_list ap);

/* Opens the engine over cfg->state_dir (created if missing): opens / migrates
 * the journal, recovers (jobs left running by a crash go back to the queue,
 * or fail after max_attempts; orphaned spool files are removed), starts the
 * workers and the housekeeping thread, and preloads cfg->preload. A key that
 * fails to preload is an error (nothing left running). cfg is copied. A
 * second engine on the same state_dir fails (CUZK_ERR_IO: "locked"). */
cuzk_status cuzk_engine_open(cuzk_engine **out, const cuzk_config *cfg,
                             const cuzk_engine_hooks *hooks, cuzk_error *err);

/* Stops accepting jobs (submit answers DRAINING), lets running jobs finish
 * for up to timeout_s (< 0: cfg->drain_timeout_s), then stops the rest at
 * their next phase boundary and puts them back in the queue. Queued jobs stay
 * journaled for the next start. Returns once no job is running. */
void cuzk_engine_drain(cuzk_engine *e, double timeout_s);

/* Pause and resume the workers (an operator's hold, for maintenance or to
 * lend the machine to other work for a while). While paused, no worker claims
 * a job; a claimed job whose proof has not started waits before it (state
 * running, phase "paused", its key loaded); proofs under way finish. Cancel
 * and drain still act on a held job. Queued jobs keep their order. */
void cuzk_engine_pause(cuzk_engine *e);
void cuzk_engine_resume(cuzk_engine *e);

/* While paused: lets the next n jobs in queue order be claimed; each is held
 * before its proof like any claimed job, so an operator can step the queue,
 * or warm the keys of what runs next, and resume when ready.
 * CUZK_ENGINE_CONFLICT if the workers are not paused. */
cuzk_status cuzk_engine_admit(cuzk_engine *e, unsigned n, cuzk_error *err);

/* Drains with the configured timeout (if not done yet), stops every thread
 * and frees everything. No other call on e may be in progress or start
 * (stop the server's threads first; a job_wait in progress returns early
 * once the drain is done, but must have returned). NULL is a no-op. */
void cuzk_engine_close(cuzk_engine *e);

/* ---- Keys ------------------------------------------------------------------ */

#define CUZK_KEY_ID_LEN 64   /* hex SHA-256 of the .zkey file's bytes */

typedef struct cuzk_engine_key_info {
    char id[CUZK_KEY_ID_LEN + 1];
    char path[CUZK_CFG_STR_MAX];
    cuzk_curve curve;
    uint32_t n_vars;          /* wires, ONE included */
    uint32_t n_public;
    uint32_t domain_size;     /* constraints + public, rounded up to 2^k */
    uint64_t file_bytes;
    uint64_t host_bytes;      /* memory the loaded key takes (0 while not resident) */
    uint64_t device_bytes;    /* on its device (0 on the CPU backend) */
    int resident;             /* loaded now (on the host or on some GPU) */
    int device;               /* first GPU it is resident on; -1 = host only */
    int users;                /* jobs proving with it now */
    uint64_t jobs;            /* proofs made with it since start */
    int64_t last_used_ms;     /* unix ms, 0 = never */
    int preloaded;            /* named in the config's preload list */
} cuzk_engine_key_info;

/* Registers a .zkey by path (the daemon's file system): reads its header,
 * derives its id from the file's content and, if load, loads it now (else on
 * first use). Registering the same content again returns the same id. */
cuzk_status cuzk_engine_key_register(cuzk_engine *e, const char *zkey_path, int load,
                                     cuzk_engine_key_info *out, cuzk_error *err);

/* One key by id. CUZK_ENGINE_NOT_FOUND if unknown. */
cuzk_status cuzk_engine_key_get(cuzk_engine *e, const char *key_id, cuzk_engine_key_info *out,
                                cuzk_error *err);

/* Every registered key, malloc'd array in *out (free()), count in *n. */
cuzk_status cuzk_engine_key_list(cuzk_engine *e, cuzk_engine_key_info **out, size_t *n,
                                 cuzk_error *err);

/* Unloads a key (stays registered; the next job loads it again).
 * CUZK_ENGINE_CONFLICT while a job uses it; CUZK_ENGINE_NOT_FOUND if unknown. */
cuzk_status cuzk_engine_key_evict(cuzk_engine *e, const char *key_id, cuzk_error *err);

/* ---- Jobs ------------------------------------------------------------------ */

#define CUZK_JOB_ID_LEN 36     /* UUID text */
#define CUZK_IDEM_KEY_MAX 256

/* A witness arriving in pieces (a request body as it is read): written to
 * a private file in the spool and hashed as it comes, so that a submission
 * takes the file as it is, never a copy in memory. */
typedef struct cuzk_engine_upload cuzk_engine_upload;

/* Opens an upload. The spool's witnesses, the uploads under way and
 * expect_bytes (0: unknown) are checked against max_spool_bytes at once
 * (CUZK_ENGINE_BUSY); a full disk gives
 * CUZK_ENGINE_NO_SPACE, failing storage CUZK_ENGINE_UNAVAILABLE. */
cuzk_status cuzk_engine_upload_open(cuzk_engine *e, uint64_t expect_bytes, cuzk_engine_upload **out,
                                    cuzk_error *err);
/* Appends n bytes (written to the file, hashed). Errors as for _open. */
cuzk_status cuzk_engine_upload_write(cuzk_engine_upload *u, const void *data, size_t n, cuzk_error *err);
/* Bytes written so far. */
uint64_t cuzk_engine_upload_bytes(const cuzk_engine_upload *u);
/* Closes the upload and removes its file unless a submission took it. */
void cuzk_engine_upload_free(cuzk_engine_upload *u);

typedef struct cuzk_job_request {
    const char *key_id;          /* a registered key's id, or NULL and: */
    const char *key_path;        /* a .zkey path, registered on the fly */
    const void *witness;         /* .wtns bytes (copied to the spool), or NULL and: */
    size_t witness_len;
    const char *witness_path;    /* a .wtns path on the daemon's machine (copied), or NULL and: */
    cuzk_engine_upload *upload;  /* a witness already in the spool (taken by the job; still freed by
                                    the caller) */
    cuzk_priority priority;
    const char *idempotency_key; /* optional, <= CUZK_IDEM_KEY_MAX bytes */
} cuzk_job_request;

/* Phases of a running job, as the prover reports them ("load_key",
 * "prove", ... or the library's phase names). */
#define CUZK_PHASE_NAME_MAX 32

typedef struct cuzk_job_info {
    char id[CUZK_JOB_ID_LEN + 1];
    char key_id[CUZK_KEY_ID_LEN + 1];
    cuzk_job_state state;
    cuzk_priority priority;
    uint64_t queue_position;  /* queued: jobs ahead of it (0 = next); else 0 */
    char phase[CUZK_PHASE_NAME_MAX]; /* running: current phase */
    double progress;          /* running: [0,1] */
    int worker;               /* running / finished: worker index, -1 none */
    int device;               /* -1 = CPU */
    int attempt;              /* runs started (> 1 after a crash or drain) */
    int64_t submitted_ms, started_ms, finished_ms; /* unix ms, 0 = not yet */
    double queue_wait_s;      /* started - submitted (of the last attempt) */
    double prove_s;           /* finished - started */
    uint64_t host_bytes;      /* host memory reserved for it while it runs (estimate) */
    cuzk_status error_code;   /* failed: why (CUZK_OK otherwise) */
    char error[CUZK_ERROR_MSG_MAX];
    int cancel_requested;
    uint64_t seq;             /* submission order: the cursor for listing pages */
} cuzk_job_info;

/* Validates the request (the key exists / loads its header, the witness is a
 * .wtns of the key's curve and size), copies the witness to the spool,
 * journals the job (durably) and only then returns its id and queue position
 * in *out.
 * Idempotency: a known idempotency_key with the same key and witness returns
 * the existing job with *existed = 1 (existed may be NULL); with a different
 * request CUZK_ENGINE_CONFLICT. Errors: CUZK_ENGINE_BUSY (queue or spool
 * full), CUZK_ENGINE_DRAINING, CUZK_ENGINE_TOO_LARGE (never fits the memory
 * budget), CUZK_ENGINE_NOT_FOUND (unknown key id), CUZK_ERR_FORMAT /
 * CUZK_ERR_MISMATCH (bad witness), CUZK_ERR_IO. Nothing is kept on error. */
cuzk_status cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *req,
                               cuzk_job_info *out, int *existed, cuzk_error *err);

/* The job's current state. CUZK_ENGINE_NOT_FOUND if unknown or past retention. */
cuzk_status cuzk_engine_job_get(cuzk_engine *e, const char *job_id, cuzk_job_info *out,
                                cuzk_error *err);

/* Waits until the job is terminal or timeout_s passes (0: do not wait), then
 * fills *out with its state either way (long-poll). */
cuzk_status cuzk_engine_job_wait(cuzk_engine *e, const char *job_id, double timeout_s,
                                 cuzk_job_info *out, cuzk_error *err);

/* A done job's proof.json and public.json, snarkjs format (malloc'd strings;
 * free()). The proof was verified against the key before the job was marked
 * done. CUZK_ENGINE_CONFLICT if the job is not done (see job_get). */
cuzk_status cuzk_engine_job_result(cuzk_engine *e, const char *job_id, char **proof_json,
                                   char **public_json, cuzk_error *err);

/* Cancels: a queued job is removed from the queue (state cancelled, witness
 * deleted); a running one stops at its next phase boundary, frees what it
 * held and ends cancelled. A finished job is left as it is. *out (may be
 * NULL) gets the state after the call. */
cuzk_status cuzk_engine_job_cancel(cuzk_engine *e, const char *job_id, cuzk_job_info *out,
                                   cuzk_error *err);

typedef struct cuzk_job_filter {
    int state;        /* a cuzk_job_state, or -1 for all */
    size_t limit;     /* 0 = 1000 */
    uint64_t before;  /* a page: only jobs older than this cursor (a job's seq); 0 = newest */
} cuzk_job_filter;

/* Jobs newest first (malloc'd array in *out; free()). filter may be NULL.
 * The next page starts before the last job's seq. Costs O(limit) rows plus
 * one walk of the queue index up to the page's last queued position. */
cuzk_status cuzk_engine_job_list(cuzk_engine *e, const cuzk_job_filter *filter,
                                 cuzk_job_info **out, size_t *n, cuzk_error *err);

/* ---- Status ---------------------------------------------------------------- */

typedef struct cuzk_worker_info {
    int index;
    int device;                       /* -1 = CPU worker */
    char job_id[CUZK_JOB_ID_LEN + 1]; /* "" when idle */
    char phase[CUZK_PHASE_NAME_MAX];
    double progress;
    uint64_t jobs_done;
    double busy_s;                    /* time spent proving since start */
} cuzk_worker_info;

typedef struct cuzk_device_info {
    int index;
    char name[128];
    uint64_t memory_total, memory_free, memory_budget;
    int workers;
} cuzk_device_info;

/* A finished attempt, for the status page's per-device timeline. */
typedef struct cuzk_timeline_entry {
    char job_id[CUZK_JOB_ID_LEN + 1];
    int worker, device;
    cuzk_priority priority;
    cuzk_job_state state;             /* how it ended */
    int64_t started_ms, finished_ms;
} cuzk_timeline_entry;

/* Per-phase totals over finished jobs since start (for means). */
typedef struct cuzk_phase_stat {
    char name[CUZK_PHASE_NAME_MAX];
    uint64_t count;
    double total_s;
} cuzk_phase_stat;

typedef struct cuzk_engine_counters {
    uint64_t submitted;        /* accepted (new jobs, not idempotent repeats) */
    uint64_t deduplicated;     /* idempotent repeats answered with an existing job */
    uint64_t rejected_busy;    /* refused: queue full */
    uint64_t rejected_invalid; /* refused: bad request */
    uint64_t completed, failed, cancelled;
    uint64_t verify_failed;    /* proofs that failed their check (also in failed) */
    uint64_t recovered;        /* jobs put back in the queue at start or by a drain */
    uint64_t expired;          /* finished jobs removed by retention */
    uint64_t keys_loaded, keys_evicted;
    uint64_t journal_flushes;  /* the journal flushed to disk (commits share them) */
    double queue_wait_s_total; /* over started jobs */
    double prove_s_total;      /* over finished jobs */
} cuzk_engine_counters;

#define CUZK_TIMELINE_MAX 256
#define CUZK_PHASES_MAX 24

/* A host of a shared queue, as the database has it (cuzk.hosts, heartbeat
 * at every lease renewal). */
typedef struct cuzk_cluster_host {
    char host_id[256];
    char url[160];                     /* cluster.advertise_url ("" = none) */
    int gpus, slots;                   /* GPUs in use, workers */
    double silent_s;                   /* since its last renewal (database clock) */
    int alive;                         /* silent for less than engine.lease */
    uint64_t running;                  /* leases it holds: jobs running there */
    double lease_left_s;               /* the soonest of its leases to run out (0 = none) */
    char keys[1024];                   /* resident key ids, comma-separated ("" = none) */
} cuzk_cluster_host;

typedef struct cuzk_engine_snapshot {
    double uptime_s;
    int pid;                           /* the daemon's process (also in <state_dir>/lock) */
    int draining;
    int paused;                        /* the workers are paused (cuzk_engine_pause) */
    unsigned admit;                    /* while paused: jobs still admitted (cuzk_engine_admit) */
    char host_id[256];
    uint64_t queued[CUZK_PRIO_COUNT];  /* queue depth per priority */
    uint64_t running;
    uint64_t spool_bytes;
    uint64_t host_budget, host_used;   /* memory budget, reserved by keys + jobs */
    cuzk_engine_counters counters;
    size_t n_workers;  cuzk_worker_info *workers;
    size_t n_devices;  cuzk_device_info *devices;
    size_t n_keys;     cuzk_engine_key_info *keys;
    size_t n_timeline; cuzk_timeline_entry *timeline; /* oldest first */
    size_t n_phases;   cuzk_phase_stat *phases;
    int shared;        /* the queue is shared: queued[] and running are the cluster's */
    size_t n_hosts;    cuzk_cluster_host *hosts; /* shared queue: every host, by id */
} cuzk_engine_snapshot;

/* A witness blob this host keeps for other hosts (GET /v1/blobs/<sha256>):
 * sha is 64 lowercase hex digits, nothing else (no path from the client
 * reaches the file system). On success *fd is open read-only on the blob
 * (the caller closes it) and *size its length; CUZK_ENGINE_NOT_FOUND when
 * this host has no such blob or places no blobs (cluster.advertise_url and
 * shared_dir unset). */
cuzk_status cuzk_engine_blob_open(cuzk_engine *e, const char *sha, int *fd, uint64_t *size,
                                  cuzk_error *err);

/* cluster.advertise_url = auto: the server tells the engine the URL it
 * listens on, once bound (before that, witnesses stay in the queue). An
 * address other hosts cannot reach (0.0.0.0, [::]) is CUZK_ERR_USAGE.
 * Nothing to do (CUZK_OK) for any other advertise_url. */
cuzk_status cuzk_engine_advertise(cuzk_engine *e, const char *url, cuzk_error *err);

/* A consistent copy of the engine's state; free with cuzk_engine_snapshot_free. */
cuzk_status cuzk_engine_snapshot_get(cuzk_engine *e, cuzk_engine_snapshot **out,
                                     cuzk_error *err);
void cuzk_engine_snapshot_free(cuzk_engine_snapshot *s);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_ENGINE_H */
