/* DESIGN — what the engine's files share: the engine's state (struct
 * cuzk_engine: queue handle, key cache, workers, counters) and the few
 * helpers that pass between them. Not an interface: one engine in rooms.
 *
 *   engine.c        lifecycle (open, close), names, logging, status snapshot
 *   engine_keys.c   key registry and cache: identify, plan, load, evict
 *   engine_spool.c  durability: spool files of witnesses, durable writes
 *   engine_sched.c  scheduler: workers, claims, pause/admit/drain, leases,
 *                   the listener (wake-ups of a shared queue)
 *   engine_jobs.c   the jobs API: submit (idempotency, back-pressure),
 *                   get, wait, result, cancel, list
 * Beside them, not part of the engine's state: keyreg.c (the host's key
 * registry file), queue_sqlite.c / queue_pg.c (the queue, queue.h).
 *
 * Locks (engine.c's DESIGN): e->lock before e->dblock, never the reverse;
 * a function's comment says which it needs. */
#ifndef CUZK_ENGINE_INTERNAL_H
#define CUZK_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "engine/devmem.h"
#include "engine/blobref.h"
#include "engine/engine.h"
#include "engine/keyreg.h"
#include "engine/prover.h"
#include "engine/queue.h"
#include "util/common.h"

/* ---- engine state ---------------------------------------------------------- */

enum { KEY_UNLOADED, KEY_LOADING, KEY_RESIDENT };
/* Witnesses up to this size are stored in the journal with their job (as the
 * scale-out design keeps small inputs in the database). */
#define ENG_INLINE_MAX (1u << 20)
/* A shared queue (PostgreSQL): idle workers look for other hosts' jobs this
 * often; while wake-ups arrive (LISTEN/NOTIFY) polling only catches what
 * they do not announce (a delay ending, a missed wake-up): less often. */
#define ENG_QUEUE_POLL_S 0.25
#define ENG_QUEUE_POLL_NOTIFY_S 1.0
/* STOP_RETRY: the job goes back to the queue (its witness could not be fetched). */
enum { STOP_NONE, STOP_CANCEL, STOP_DRAIN, STOP_RETRY };
/* A shared queue: a job whose key this host cannot find is left to the
 * other hosts this long before the host looks for the key again; at most
 * this many such keys (then such jobs fail, as on one host). */
#define ENG_KEY_SKIP_S 30
#define ENG_KEY_SKIP_MAX 64

/* Where a key is loaded: slot 0 = the host (CPU backend), slot d + 1 = GPU d
 * (GPU backend; the key's proofs take that GPU's lock for their device
 * phases). A key may be resident in several slots. */
#define ENG_MAX_DEVICES 16
#define ENG_SLOTS (ENG_MAX_DEVICES + 1)

typedef struct eng_kslot {
    eng_key *key;
    int state;
    uint64_t host_bytes, device_bytes;
    int users;
    int64_t last_used_ms;
} eng_kslot;

/* A key's device-memory plans, one per GPU in use (engine device index). */
typedef struct eng_kplan {
    uint64_t bytes[ENG_MAX_DEVICES]; /* 0 = no plan fits that GPU's budget */
    uint64_t host_key, host_job;     /* the host plan's figures (eng_hostmem_split): the key held, a job's
                                        own bytes; the largest over the GPUs in use; 0 = no plan */
    char why[CUZK_ERROR_MSG_MAX];    /* the planner's message when none fits */
} eng_kplan;

typedef struct eng_kentry {
    char id[CUZK_KEY_ID_LEN + 1];
    char path[CUZK_CFG_STR_MAX];
    eng_key_meta meta;
    eng_kplan plan;
    eng_key_rec rec;          /* identity of the file when it was hashed */
    eng_kslot slot[ENG_SLOTS];
    uint64_t jobs;
    int preloaded;
} eng_kentry;

/* A witness blob this host is writing (gen 0) or committed at generation
 * gen (engine_blobs.c: the sweep spares it). */
typedef struct eng_blob_pin {
    char sha[65];
    uint64_t gen;
} eng_blob_pin;

typedef struct eng_worker {
    struct cuzk_engine *e;
    int index, device;
    pthread_t thread;
    int started;
    eng_progress prog;
    eng_worker_ctx *wctx;
    int busy;
    int stop;                 /* STOP_* for the running job */
    char job_id[CUZK_JOB_ID_LEN + 1];
    uint64_t jobs_done;
    double busy_s;
} eng_worker;

struct cuzk_engine {
    cuzk_config cfg;
    cuzk_engine_hooks hooks;
    char spool[CUZK_CFG_STR_MAX + 16];
    char blob_dir[CUZK_CFG_STR_MAX + 300]; /* "" = witnesses stay in the queue (engine_blobs.c) */
    pthread_mutex_t blob_mu;  /* pins, blob_gen, curl_inited */
    eng_blob_pin *pins;
    size_t n_pins, cap_pins;
    uint64_t blob_gen;
    int curl_inited;
    struct { char id[CUZK_KEY_ID_LEN + 1]; double since; } skip[ENG_KEY_SKIP_MAX]; /* e->lock */
    size_t n_skip;            /* keys this host cannot find (engine_sched.c key_skip) */
    char adv_url[160];        /* cluster.advertise_url, auto resolved (cuzk_engine_advertise) */
    atomic_int adv_ready;
    int lockfd;
    eng_queue *q;
    eng_keyreg *reg;          /* this host's key registry (under dblock) */
    pthread_mutex_t dblock;
    /* Journal marks (under dblock) of the latest accepted submit and the
     * latest job end: an answer about a job needs the journal durable up to
     * these, not up to every later commit (claims and the like). */
    uint64_t submit_mark, end_mark;
    pthread_mutex_t lock;
    pthread_cond_t work_cv;   /* workers: a job or memory became available */
    pthread_cond_t change_cv; /* a job changed state; a key finished loading */
    pthread_cond_t hk_cv;     /* housekeeping wake-up (close) */
    int draining, drained, stopping;
    int paused;               /* cuzk_engine_pause: no claims, claimed jobs hold */
    unsigned admit;           /* while paused: claims still allowed */
    uint64_t host_budget, jobs_reserved;
    uint64_t active_jobs, spool_bytes; /* queued + running, for BUSY */
    uint64_t upload_bytes;    /* in uploads not yet freed (__atomic): counted against max_spool_bytes */
    eng_kentry **keys;        /* entries never move: workers hold pointers unlocked */
    size_t n_keys, cap_keys;
    eng_worker *workers;
    size_t n_workers;
    eng_backend *backend;
    int n_devices;
    int devices[ENG_MAX_DEVICES];            /* CUDA ordinals in use */
    cuzk_device_info device_info[ENG_MAX_DEVICES];
    int device_sms[ENG_MAX_DEVICES];
    pthread_t housekeeper;
    int hk_started;
    pthread_t listener;       /* shared queue with engine.notify: wake-ups */
    int listener_started;
    int listening;            /* the listener is connected (e->lock) */
    int keys_dirty;           /* resident keys changed since published (e->lock) */
    cuzk_engine_counters counters;
    cuzk_timeline_entry timeline[CUZK_TIMELINE_MAX];
    size_t tl_next, tl_n;
    cuzk_phase_stat phases[CUZK_PHASES_MAX];
    size_t n_phases;
    double start_mono;
    char host_id[256];
};

/* ---- small helpers (engine.c) ------------------------------------------------ */

/* A log value a client chose, quoted: "..." with \" and \\ escaped, so it
 * can hold spaces without forging fields. */
static inline const char *logq(char *dst, size_t cap, const char *src)
{
    size_t o = 0;
    if (cap < 3)
        return "";
    dst[o++] = '"';
    for (; *src && o + 3 < cap; src++) {
        if (*src == '"' || *src == '\\')
            dst[o++] = '\\';
        dst[o++] = *src;
    }
    dst[o++] = '"';
    dst[o] = 0;
    return dst;
}

/* Workers sharing one GPU: the setting, at least 1 (the one clamp). */
static inline int eng_workers_per_device(const cuzk_engine *e)
{
    return e->cfg.workers_per_device < 1 ? 1 : e->cfg.workers_per_device;
}

static inline int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void elog(cuzk_engine *e, const char *event, const char *fmt, ...) CUZK_PRINTF(3, 4);
static inline void elog(cuzk_engine *e, const char *event, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cuzk_engine_vlog(&e->hooks, event, fmt, ap);
    va_end(ap);
}

/* Queued + running jobs and their witness bytes, less one job that ended
 * (a shared queue's counts are re-read, so they may be behind: never below 0). */
static inline void active_sub(cuzk_engine *e, uint64_t bytes)
{
    e->active_jobs -= e->active_jobs > 0;
    e->spool_bytes -= bytes < e->spool_bytes ? bytes : e->spool_bytes;
}

static inline cuzk_status ecode(cuzk_error *err, int code, const char *fmt, ...) CUZK_PRINTF(3, 4);
static inline cuzk_status ecode(cuzk_error *err, int code, const char *fmt, ...)
{
    if (err) {
        err->code = (cuzk_status)code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return (cuzk_status)code;
}


/* Waits until everything committed up to `mark` is on disk (neither lock
 * held: concurrent callers share one flush). */
static inline cuzk_status journal_sync(cuzk_engine *e, uint64_t mark, cuzk_error *err)
{
    return e->q->ops->sync(e->q, mark, err);
}

/* Everything committed so far (e->dblock held). */
static inline uint64_t journal_mark(cuzk_engine *e)
{
    return e->q->ops->mark(e->q);
}


/* ---- engine_keys.c (e->lock held unless said) --------------------------------- */

void key_plan(const cuzk_engine *e, const char *path, eng_kplan *out);
int key_fits_a_device(const cuzk_engine *e, const eng_kentry *k);
eng_kentry *key_find(cuzk_engine *e, const char *id);
uint64_t key_estimate(const eng_kentry *k);
uint64_t keys_resident_bytes(const cuzk_engine *e);
uint64_t key_need(const eng_kentry *k, int slot);
int fits(const cuzk_engine *e, const eng_kentry *k, int slot, uint64_t need);
void make_room(cuzk_engine *e, const eng_kentry *keep, int keep_slot, uint64_t need);
void key_info_fill(const cuzk_engine *e, const eng_kentry *k, cuzk_engine_key_info *o);
cuzk_status key_add(cuzk_engine *e, const eng_key_rec *rec, const eng_key_meta *meta,
                    const eng_kplan *plan, eng_kentry **out, cuzk_error *err);
/* Without e->lock. */
cuzk_status key_identify(cuzk_engine *e, const char *path, eng_kentry **out, cuzk_error *err);
cuzk_status key_acquire_loaded(cuzk_engine *e, eng_kentry *k, int slot, eng_worker_ctx *wctx,
                               cuzk_error *err);
/* A shared queue: tells it which keys are resident (or loading) here, if
 * that changed since last told (e->lock held; takes e->dblock). */
void keys_publish(cuzk_engine *e);

/* ---- engine_spool.c ------------------------------------------------------------ */

int store_code(int en);
cuzk_status write_durable(const char *dir, const char *name, const void *data, size_t len,
                          cuzk_error *err);
void spool_path(const cuzk_engine *e, const char *name, char *out, size_t cap);
/* The name of job j's spool file (a spool: witness): "<job id>.wtns". */
void spool_file(const eng_job *j, char *out, size_t cap);
void spool_remove(cuzk_engine *e, const eng_job *j);
void spool_remove_durable(cuzk_engine *e, const eng_job *j, uint64_t mark);
void spool_sweep(cuzk_engine *e);
/* An upload's SHA-256 (once all is written), its file given to the spool as
 * dir/name durably (fsync, rename, fsync dir), or read whole (a witness
 * small enough for the queue, or any for a shared queue). */
void upload_digest(cuzk_engine_upload *u, uint8_t out[32]);
const char *upload_path(const cuzk_engine_upload *u);
cuzk_status upload_commit(cuzk_engine_upload *u, const char *dir, const char *name, cuzk_error *err);
cuzk_status upload_read(cuzk_engine_upload *u, uint8_t **data, size_t *len, cuzk_error *err);
/* The upload as dir/name, named by its content (a blob): moved there as
 * upload_commit does, unless dir/name exists already (the same bytes, a
 * committed blob is only ever renamed into place): then the upload is
 * dropped. dir on another file system (EXDEV): copied 1 MiB at a time
 * under a temporary name, fsynced, renamed. Memory stays flat either way. */
cuzk_status upload_commit_blob(cuzk_engine_upload *u, const char *dir, const char *name, cuzk_error *err);

/* ---- engine_blobs.c ------------------------------------------------------------ */

int blob_enabled(const cuzk_engine *e);
/* Blobs on and placeable now (an advertise_url of auto is known once the server listens). */
int blob_ready(cuzk_engine *e);
/* At open, after the queue: blobs on if the queue is shared and
 * cluster.advertise_url or cluster.shared_dir is set (checks them). */
cuzk_status blob_setup(cuzk_engine *e, cuzk_error *err);
void blob_teardown(cuzk_engine *e);
/* Writes a witness durably to the blob directory, pinned, and its reference to ref. */
cuzk_status blob_store(cuzk_engine *e, const void *data, size_t len, char *ref, size_t cap,
                       cuzk_error *err);
/* The same for a streamed upload (its hash known as it arrived): the file
 * is renamed into the blob directory (upload_commit_blob), never read
 * into memory. */
cuzk_status blob_store_upload(cuzk_engine *e, cuzk_engine_upload *u, char *ref, size_t cap,
                              cuzk_error *err);
/* The job naming the blob is committed (or will not be): a sweep after now may judge it. */
void blob_unpin(cuzk_engine *e, const char *sha);
void blob_sweep(cuzk_engine *e);
/* The witness of job j (a blob) in memory, checked against its hash; tried
 * a few times; *gone = 1 when it no longer exists; CUZK_ERR_CANCELLED as
 * soon as *cancel is set (the worker's cancel / drain flag). */
cuzk_status blob_fetch(cuzk_engine *e, const eng_job *j, atomic_int *cancel, void **body,
                       size_t *len, int *gone, cuzk_error *err);

/* ---- engine_sched.c ------------------------------------------------------------ */

void cond_wait_s(pthread_cond_t *cv, pthread_mutex_t *m, double s);
void on_phase_timing(void *user, const char *phase, double seconds);
void *worker_main(void *arg);
void *housekeeper_main(void *arg);
void *listener_main(void *arg);
/* How long an idle worker or a waiter sleeps before it looks at a shared
 * queue again (e->lock held). */
static inline double queue_poll_s(const cuzk_engine *e)
{
    return e->listening ? ENG_QUEUE_POLL_NOTIFY_S : ENG_QUEUE_POLL_S;
}

#endif
