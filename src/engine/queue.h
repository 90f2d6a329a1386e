/* The durable job queue behind an interface (a vtable), so that a PostgreSQL
 * backend (several hosts claiming from one queue) can implement it next to the
 * embedded SQLite one. Both share the states, the uuid job ids, (id, attempt)
 * fencing, idempotency and retention rules of the scale-out design:
 *
 *   queued --claim--> running --complete--> done
 *      |                 |----fail--------> failed | cancelled
 *      |                 '----requeue-----> queued   (drain, crash rescue)
 *      '--cancel--> cancelled
 *
 * A claim increments `attempt`; every transition out of running is guarded by
 * (id, attempt, owner, state = running), so a stale worker (or host) can never
 * finish a job twice: complete/fail report *fenced = 1 and change nothing.
 *
 * Durability (group commit): every write call commits before it returns, so
 * its effect is visible and survives a crash of the process, but it reaches
 * stable storage only through `sync`: `mark` names everything committed so
 * far, and sync(mark) returns once all of it is durable. Concurrent syncs
 * share one flush (one leader flushes what every waiting caller committed),
 * so N submits in flight cost one fsync, not N. The engine syncs before it
 * acknowledges or reports anything read from the queue. A backend whose
 * commits are durable by themselves returns 0 from mark.
 *
 * Not thread-safe except `sync`: the engine serialises every other call on
 * one queue handle, and calls sync without that serialisation. Several
 * handles (threads, processes, hosts) may share one queue: every transition
 * is one atomic step guarded by the row's state.
 *
 * Several hosts (PostgreSQL, queue_pg.c): a claim holds its job for a lease
 * (lease_until = the database's clock + opts.lease_s); the owner renews the
 * leases of the jobs it is running (`renew`, one statement for all of them)
 * and any host requeues jobs whose lease ran out (`rescue_expired`, closing
 * the attempt as lease_expired), so a dead host's jobs run elsewhere and its
 * late result is fenced. FIFO order within a priority follows the submitting
 * hosts' clocks (enqueued_ms); leases follow the database's clock only.
 * SQLite has one host: leases do not exist there (renew keeps everything,
 * rescue_expired finds nothing; `rescue` at start does the work). */
#ifndef CUZK_ENGINE_QUEUE_H
#define CUZK_ENGINE_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

typedef struct eng_job {
    char id[CUZK_JOB_ID_LEN + 1];
    uint64_t seq;                      /* FIFO order within a priority */
    char idem_key[CUZK_IDEM_KEY_MAX + 1];
    uint8_t req_sha256[32];            /* hash of (key id, priority, witness) */
    char key_id[CUZK_KEY_ID_LEN + 1];
    char key_path[CUZK_CFG_STR_MAX];   /* where the key was registered from */
    int priority;
    int state;                         /* cuzk_job_state */
    int64_t enqueued_ms, started_ms, finished_ms;
    int attempt, max_attempts;
    char owner[256];
    int cancel_requested;
    char witness[256];                 /* the witness's content id and where it is:
                                        * inline:<sha256> | spool:<sha256> |
                                        * blob:<sha256>:<host>:<url> (blobref.h);
                                        * never a path: each host maps it to its own */
    uint64_t input_bytes;
    uint64_t host_bytes, device_bytes; /* admission estimates */
    int worker, device;
    int error_code;
    char error[CUZK_ERROR_MSG_MAX];
} eng_job;

typedef struct eng_queue eng_queue;

/* A live job's witness reference (live_inputs). */
typedef struct eng_live_input {
    char id[CUZK_JOB_ID_LEN + 1];
    char witness[256];
} eng_live_input;

/* Settings of a queue handle (NULL or zeros = the defaults). */
typedef struct eng_queue_opts {
    const char *host;   /* this host's id: names it to the database (application_name
                         * cuzk@host) and owns its claims; "" = "localhost" */
    double lease_s;     /* how long a claim or renewal holds a job (0 = 30 s) */
    double retry_s;     /* how long one call keeps reconnecting to a database that is
                         * down before it fails with CUZK_ERR_IO (0 = 10 s) */
    double affinity_s;  /* delay scheduling (peek, claim_next): a job whose key is resident
                         * on another live host (publish_keys) waits this long (database
                         * clock, from its submit) before this host may take it; critical
                         * jobs never wait; within a priority, jobs with resident keys and
                         * jobs past the delay first (0 = no affinity: FIFO) */
    int notify;         /* transitions send wake-ups that `listen` receives (PostgreSQL
                         * LISTEN/NOTIFY; off for YugabyteDB without it) */
} eng_queue_opts;

/* What `listen` saw (bits). */
enum {
    ENG_WAKE_JOBS = 1,   /* a job was queued (submit, requeue, rescue) */
    ENG_WAKE_DONE = 2,   /* a job ended */
    ENG_WAKE_RESCAN = 4, /* (re)connected: wake-ups may have been missed, look again */
};

typedef struct eng_queue_ops {
    const char *name;
    int shared;   /* other hosts may change the queue: poll it (and `listen`, if the
                   * backend has it), never wait only for a local wake-up */
    /* Opens (creating / migrating) the queue at `where` (SQLite: a file;
     * PostgreSQL: a postgresql:// URI or a libpq conninfo). Error messages
     * name `where` with any password redacted (eng_queue_redact). */
    cuzk_status (*open)(eng_queue **out, const char *where, const eng_queue_opts *opts,
                        cuzk_error *err);
    void (*close)(eng_queue *q);
    /* Inserts j (state queued) unless j->idem_key is set and known: then
     * *existed = 1 and *out is the existing job (the caller compares hashes).
     * body (NULL: the witness is elsewhere, j->witness says where) is the
     * witness stored in the queue itself, in the same transaction. */
    cuzk_status (*submit)(eng_queue *q, const eng_job *j, const void *body, size_t body_len,
                          eng_job *out, int *existed, cuzk_error *err);
    /* The next job to run (lowest priority value, then seq): *found = 0 if none.
     * Shared queue: the next job this host may run (opts.affinity_s), jobs
     * whose key is resident here first within a priority. */
    cuzk_status (*peek)(eng_queue *q, eng_job *out, int *found, cuzk_error *err);
    /* queued -> running for this owner, attempt + 1, attempt row opened.
     * *claimed = 0 if the job is no longer queued. */
    cuzk_status (*claim)(eng_queue *q, const char *id, const char *owner, int worker, int device,
                         int64_t now_ms, eng_job *out, int *claimed, cuzk_error *err);
    /* The head of the queue (lowest priority value, then oldest) claimed as
     * claim does, in one step; rows other handles are claiming at the same
     * moment are skipped (PostgreSQL: FOR UPDATE SKIP LOCKED), so concurrent
     * claimers never get the same job. *claimed = 0 if nothing is queued. */
    cuzk_status (*claim_next)(eng_queue *q, const char *owner, int worker, int device,
                              int64_t now_ms, eng_job *out, int *claimed, cuzk_error *err);
    /* Extends the leases of the jobs ids[0..n) that owner is running, in one
     * statement, and says for each (held[i]): 0 = lost (rescued, may be
     * running elsewhere: its end will be fenced), 1 = held, 2 = held and a
     * cancel was requested (from any host). Also the host's heartbeat.
     * SQLite: no leases, every held[i] = 1 (cancels are local there). */
    cuzk_status (*renew)(eng_queue *q, const char *owner, const char *const *ids, size_t n,
                         int *held, cuzk_error *err);
    /* Any host: every running job whose lease has run out goes back to
     * queued (failed at max_attempts, cancelled if a cancel was requested),
     * its attempt closed as lease_expired. SQLite: nothing to do (0, 0). */
    cuzk_status (*rescue_expired)(eng_queue *q, int64_t now_ms, uint64_t *requeued,
                                  uint64_t *ended, cuzk_error *err);
    /* running -> done with the proof, fenced. */
    cuzk_status (*complete)(eng_queue *q, const char *id, int attempt, const char *owner,
                            const char *proof_json, const char *public_json, int64_t now_ms,
                            int *fenced, cuzk_error *err);
    /* running -> state (queued: requeue; failed; cancelled) with a reason, fenced.
     * A job that reaches max_attempts goes to failed instead of queued. */
    cuzk_status (*finish)(eng_queue *q, const char *id, int attempt, const char *owner,
                          int state, int code, const char *msg, int64_t now_ms, int *fenced,
                          cuzk_error *err);
    /* queued -> cancelled (*dequeued = 1); running -> cancel_requested = 1.
     * *out = the job after. */
    cuzk_status (*cancel)(eng_queue *q, const char *id, int64_t now_ms, eng_job *out,
                          int *dequeued, cuzk_error *err);
    /* The job with this idempotency key: *found = 0 if none. */
    cuzk_status (*by_idem)(eng_queue *q, const char *idem_key, eng_job *out, int *found,
                           cuzk_error *err);
    /* At start: every running job of this owner back to queued (or failed at
     * max_attempts; cancelled if a cancel was requested). */
    cuzk_status (*rescue)(eng_queue *q, const char *owner, int64_t now_ms, uint64_t *requeued,
                          uint64_t *failed, cuzk_error *err);
    cuzk_status (*get)(eng_queue *q, const char *id, eng_job *out, cuzk_error *err);
    cuzk_status (*result)(eng_queue *q, const char *id, char **proof_json, char **public_json,
                          cuzk_error *err);
    /* Newest first, only jobs older than before_seq (0 = from the newest):
     * a page; state < 0 = all. O(limit) through an index. */
    cuzk_status (*list)(eng_queue *q, int state, uint64_t before_seq, size_t limit, eng_job **out,
                        size_t *n, cuzk_error *err);
    /* Queued jobs ahead of j. */
    cuzk_status (*position)(eng_queue *q, const eng_job *j, uint64_t *pos, cuzk_error *err);
    /* The positions of the queued jobs among v[0..n) (others get 0): one
     * walk of the ready index up to the last of them, however many. */
    cuzk_status (*positions)(eng_queue *q, const eng_job *v, size_t n, uint64_t *pos, cuzk_error *err);
    /* Queue depth per priority, running count, witness bytes of queued + running jobs. */
    cuzk_status (*stats)(eng_queue *q, uint64_t queued[CUZK_PRIO_COUNT], uint64_t *running,
                         uint64_t *spool_bytes, cuzk_error *err);
    /* Removes up to max finished jobs whose finished_ms < before_ms (with their
     * results and attempts); their ids in *ids (malloc'd, free()). */
    cuzk_status (*expire)(eng_queue *q, int64_t before_ms, size_t max, eng_job **ids, size_t *n,
                          cuzk_error *err);
    /* A witness stored in the queue (malloc'd). Deleted with the job's end. */
    cuzk_status (*input)(eng_queue *q, const char *id, void **body, size_t *len, cuzk_error *err);
    /* Replaces the set of keys this host has resident (for its own and the
     * other hosts' delay scheduling); a heartbeat too. SQLite: nothing. */
    cuzk_status (*publish_keys)(eng_queue *q, const char *const *key_ids, size_t n,
                                cuzk_error *err);
    /* This host's URL (cluster.advertise_url, "" = none), GPUs and workers
     * in cuzk.hosts, for the cluster view. NULL = one host (SQLite). */
    cuzk_status (*describe_host)(eng_queue *q, const char *url, int gpus, int slots, cuzk_error *err);
    /* Every host of the shared queue (by id) with its leases and resident
     * keys (malloc'd, free()); lease_s judges `alive`. NULL = one host. */
    cuzk_status (*hosts)(eng_queue *q, double lease_s, cuzk_cluster_host **out, size_t *n,
                         cuzk_error *err);
    /* Keys this host cannot find: peek passes over their jobs (a shared
     * queue: another host with the key takes them). Replaces the previous
     * set. NULL = the backend has one host (SQLite): such a job fails. */
    cuzk_status (*skip_keys)(eng_queue *q, const char *const *key_ids, size_t n, cuzk_error *err);
    /* Waits up to timeout_s for wake-ups (ENG_WAKE_* in *events, 0 = none).
     * Unlike the other calls it may run concurrently with them (its own
     * connection), from one thread at a time. NULL = the backend has none;
     * CUZK_ERR_UNSUPPORTED = off (opts.notify); an error (cannot listen
     * now) has waited too, and a later call tries again. */
    cuzk_status (*listen)(eng_queue *q, double timeout_s, unsigned *events, cuzk_error *err);
    /* The queued / running jobs whose witness is outside the queue (spool:
     * and blob: references) with their ids (malloc'd, free()): the files a
     * host keeps for them (to find orphans). */
    cuzk_status (*live_inputs)(eng_queue *q, eng_live_input **out, size_t *n, cuzk_error *err);
    /* Durability (see the top): a mark covering every commit so far, and a
     * wait until everything up to a mark is on stable storage
     * (CUZK_ENGINE_NO_SPACE / CUZK_ENGINE_UNAVAILABLE if it cannot be: then
     * every later sync fails too; other calls report a full disk or failing
     * storage with the same codes), and the number of
     * flushes done since open (how well commits are grouped). */
    uint64_t (*mark)(eng_queue *q);
    cuzk_status (*sync)(eng_queue *q, uint64_t mark, cuzk_error *err);
    uint64_t (*flushes)(eng_queue *q);
} eng_queue_ops;

struct eng_queue {
    const eng_queue_ops *ops;
};

extern const eng_queue_ops eng_queue_sqlite;
extern const eng_queue_ops eng_queue_postgres;

/* The backend `where` names: "sqlite" (or "") = SQLite, a postgresql:// or
 * postgres:// URI or a conninfo with "=" = PostgreSQL; NULL otherwise. */
const eng_queue_ops *eng_queue_backend(const char *where);

/* `where` with any password replaced by ***, for messages and logs. */
void eng_queue_redact(const char *where, char *out, size_t cap);

#endif
