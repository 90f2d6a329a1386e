/* DESIGN — the proving engine (API and contracts in engine.h).
 *
 * State lives in three places:
 *  - the queue (queue.h; SQLite, or PostgreSQL shared by several hosts:
 *    engine.queue): every job and its result, durable.
 *    Each transition commits before the engine reports it, and whatever an
 *    answer reports (an accepted job, a state, a proof) is flushed to disk
 *    before the answer leaves (journal_sync): a crash or power loss loses
 *    nothing that was acknowledged. Workers do not wait for flushes; the
 *    callers that need one share it (group commit, queue.h). At start, jobs
 *    left running (by this host) are requeued (rescue) and spool files
 *    without a live job are removed. A shared queue: workers poll it, the
 *    housekeeper renews this host's leases and requeues expired ones.
 *  - the witness of each queued/running job: up to 1 MiB in the queue with
 *    the job (one commit; any size in a shared queue), else a spool file
 *    written and fsynced (file and directory) before the job is journaled;
 *    deleted when the job ends.
 *  - memory, under e->lock: the key cache, the workers, counters, the
 *    timeline and the memory reservations.
 *
 * Scheduling: a worker looks at the head of the queue (priority, then FIFO)
 * and claims it only when its memory fits: need = the job's host estimate +
 * its key's size if the key is not resident; room = budget - reserved jobs -
 * resident keys + idle keys that may be evicted (least recently used first,
 * never one in use). On a GPU worker the key must also be resident on that
 * GPU or its device plan (the GPU prover's, for the key and the GPU's W
 * workers) fit beside the plans of the keys in use there (devmem.h). A head
 * that does not fit waits (no lower-priority job overtakes it), so a critical
 * job is never starved by smaller ones; a job that could never fit is
 * refused at submit (TOO_LARGE).
 *
 * Pause: no claim while e->paused (except e->admit more); a claimed job
 * waits on work_cv before its proof starts, until resume, cancel or a drain's
 * stop. Proofs under way finish.
 *
 * Cancel: a queued job is cancelled in the queue; a running one gets its
 * worker's cancel flag, which the prover polls at phase boundaries. A drain
 * uses the same flag with another reason: those jobs go back to the queue.
 * Every transition out of running is fenced on (id, attempt, owner), so a
 * job ends exactly once.
 *
 * Locks: e->lock (memory state) may be held while taking e->dblock (the
 * queue handle), never the reverse. Prover work runs with neither held. */
#include "engine/engine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/gpu.h"
#include "engine/devmem.h"
#include "engine/prover.h"
#include "engine/queue.h"
#include "groth16/backend.h"
#include "util/common.h"

/* ---- names ----------------------------------------------------------------- */

const char *cuzk_engine_code_name(int code)
{
    switch (code) {
    case CUZK_ENGINE_NOT_FOUND: return "not_found";
    case CUZK_ENGINE_CONFLICT: return "conflict";
    case CUZK_ENGINE_BUSY: return "busy";
    case CUZK_ENGINE_DRAINING: return "draining";
    case CUZK_ENGINE_TOO_LARGE: return "too_large";
    case CUZK_ENGINE_FORBIDDEN: return "forbidden";
    case CUZK_ENGINE_NO_SPACE: return "no_space";
    case CUZK_ENGINE_UNAVAILABLE: return "unavailable";
    default: return cuzk_status_name((cuzk_status)code);
    }
}

static const char *const PRIO[] = {"critical", "high", "normal", "low"};
static const char *const STATE[] = {"queued", "running", "done", "failed", "cancelled"};

const char *cuzk_priority_name(cuzk_priority p)
{
    return (unsigned)p < 4 ? PRIO[p] : "?";
}

int cuzk_priority_parse(const char *s)
{
    for (int i = 0; s && i < 4; i++)
        if (!strcmp(s, PRIO[i]))
            return i;
    return -1;
}

const char *cuzk_job_state_name(cuzk_job_state s)
{
    return (unsigned)s < 5 ? STATE[s] : "?";
}

int cuzk_job_state_parse(const char *s)
{
    for (int i = 0; s && i < 5; i++)
        if (!strcmp(s, STATE[i]))
            return i;
    return -1;
}

/* ---- engine state ---------------------------------------------------------- */

enum { KEY_UNLOADED, KEY_LOADING, KEY_RESIDENT };
/* Witnesses up to this size are stored in the journal with their job (as the
 * scale-out design keeps small inputs in the database). */
#define ENG_INLINE_MAX (1u << 20)
/* A shared queue (PostgreSQL): idle workers look for other hosts' jobs this often. */
#define ENG_QUEUE_POLL_S 0.25
enum { STOP_NONE, STOP_CANCEL, STOP_DRAIN };

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
    int lockfd;
    eng_queue *q;
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
    cuzk_engine_counters counters;
    cuzk_timeline_entry timeline[CUZK_TIMELINE_MAX];
    size_t tl_next, tl_n;
    cuzk_phase_stat phases[CUZK_PHASES_MAX];
    size_t n_phases;
    double start_mono;
    char host_id[256];
};

void cuzk_engine_vlog(const cuzk_engine_hooks *h, const char *event, const char *fmt, va_list ap)
{
    if (!h->log)
        return;
    char fields[1024], esc[4 * sizeof fields];
    vsnprintf(fields, sizeof fields, fmt, ap);
    /* One event, one line: control characters (a newline in a value a
     * client chose) are written as \xNN. */
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)fields; *p && o + 5 < sizeof esc; p++) {
        if (*p < 0x20 || *p == 0x7f)
            o += (size_t)snprintf(esc + o, sizeof esc - o, "\\x%02x", *p);
        else
            esc[o++] = (char)*p;
    }
    esc[o] = 0;
    h->log(h->user, event, esc);
}

/* A log value a client chose, quoted: "..." with \" and \\ escaped, so it
 * can hold spaces without forging fields. */
static const char *logq(char *dst, size_t cap, const char *src)
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

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void elog(cuzk_engine *e, const char *event, const char *fmt, ...) CUZK_PRINTF(3, 4);
static void elog(cuzk_engine *e, const char *event, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cuzk_engine_vlog(&e->hooks, event, fmt, ap);
    va_end(ap);
}

/* Queued + running jobs and their witness bytes, less one job that ended
 * (a shared queue's counts are re-read, so they may be behind: never below 0). */
static void active_sub(cuzk_engine *e, uint64_t bytes)
{
    e->active_jobs -= e->active_jobs > 0;
    e->spool_bytes -= bytes < e->spool_bytes ? bytes : e->spool_bytes;
}

static cuzk_status ecode(cuzk_error *err, int code, const char *fmt, ...) CUZK_PRINTF(3, 4);
static cuzk_status ecode(cuzk_error *err, int code, const char *fmt, ...)
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

static void uuid4(char out[CUZK_JOB_ID_LEN + 1])
{
    uint8_t b[16];
    if (!cuzk_random_bytes(b, sizeof b)) { /* never expected; fall back to time + address */
        uint64_t t = (uint64_t)now_ms() ^ (uint64_t)(uintptr_t)out;
        for (int i = 0; i < 16; i++)
            b[i] = (uint8_t)(t >> (8 * (i % 8))) ^ (uint8_t)(i * 37);
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    snprintf(out, CUZK_JOB_ID_LEN + 1,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
             b[15]);
}

static void hex(char *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* The code for a state-directory write that failed with errno en: the disk
 * is full (507) or the storage fails (503); a server fault, never the
 * client's. */
static int store_code(int en)
{
    return en == ENOSPC || en == EDQUOT ? CUZK_ENGINE_NO_SPACE : CUZK_ENGINE_UNAVAILABLE;
}

/* Writes data to dir/name durably (temporary name, fsync, rename, fsync dir). */
static cuzk_status write_durable(const char *dir, const char *name, const void *data, size_t len,
                                 cuzk_error *err)
{
    char tmp[CUZK_CFG_STR_MAX + 512], dst[CUZK_CFG_STR_MAX + 512];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return ecode(err, store_code(errno), "%s: %s", tmp, strerror(errno));
    const uint8_t *p = data;
    size_t left = len;
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int en = n < 0 ? errno : EIO;
            close(fd);
            unlink(tmp);
            return ecode(err, store_code(en), "%s: %s", tmp, strerror(en));
        }
        p += n;
        left -= (size_t)n;
    }
    if (fsync(fd) || close(fd) || rename(tmp, dst) || fsync_dir(dir)) {
        int en = errno;
        unlink(tmp);
        unlink(dst);
        return ecode(err, store_code(en), "%s: %s", dst, strerror(en));
    }
    return CUZK_OK;
}

static void spool_path(const cuzk_engine *e, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", e->spool, name);
}

static void spool_remove(cuzk_engine *e, const eng_job *j)
{
    if (!j->input[0]) /* stored in the queue: deleted with the job's end */
        return;
    char p[CUZK_CFG_STR_MAX + 512];
    spool_path(e, j->input, p, sizeof p);
    unlink(p);
}

/* Waits until everything committed up to `mark` is on disk (neither lock
 * held: concurrent callers share one flush). */
static cuzk_status journal_sync(cuzk_engine *e, uint64_t mark, cuzk_error *err)
{
    return e->q->ops->sync(e->q, mark, err);
}

/* Everything committed so far (e->dblock held). */
static uint64_t journal_mark(cuzk_engine *e)
{
    return e->q->ops->mark(e->q);
}

/* A job's spool file goes only once its end is durable: a power loss
 * before the flush would bring the job back without its witness. */
static void spool_remove_durable(cuzk_engine *e, const eng_job *j, uint64_t mark)
{
    cuzk_error err = {0};
    if (!j->input[0])
        return;
    if (journal_sync(e, mark, &err))
        elog(e, "journal_error", "op=sync job=%s error=\"%s\"", j->id, err.msg);
    else
        spool_remove(e, j);
}

/* ---- device memory ------------------------------------------------------------ */

/* The engine's index of CUDA device `ordinal`. */
static int dev_index(const cuzk_engine *e, int ordinal)
{
    for (int i = 0; i < e->n_devices; i++)
        if (e->devices[i] == ordinal)
            return i;
    return 0;
}

static int workers_per_device(const cuzk_engine *e)
{
    return e->cfg.workers_per_device < 1 ? 1 : e->cfg.workers_per_device;
}

/* A key's plan on every GPU in use (devmem.h); no GPU: nothing to plan. */
static void key_plan(const cuzk_engine *e, const char *path, eng_kplan *out)
{
    memset(out, 0, sizeof *out);
    cuzk_gpu_key_shape shape;
    cuzk_error err = {0};
    if (cuzk_gpu_key_shape_read(path, &shape, &err)) {
        snprintf(out->why, sizeof out->why, "%s", err.msg);
        return;
    }
    /* host: the same plan the prover makes (the CPU prover's without GPUs) */
    uint64_t hk = 0, hj = 0;
    if (!e->n_devices && !eng_hostmem_plan(&shape, 0, 0, 1, 0, &hk, &hj, &err)) {
        out->host_key = hk;
        out->host_job = hj;
    }
    for (int i = 0; i < e->n_devices; i++) {
        cuzk_error perr = {0};
        if (eng_devmem_plan(&shape, e->device_info[i].memory_budget, e->device_sms[i],
                            (unsigned)workers_per_device(e), e->cfg.msm_copies, &out->bytes[i], &perr)) {
            snprintf(out->why, sizeof out->why, "GPU %d: %.400s", e->devices[i], perr.msg);
            continue;
        }
        if (!eng_hostmem_plan(&shape, e->device_info[i].memory_budget, e->device_sms[i],
                              (unsigned)workers_per_device(e), e->cfg.msm_copies, &hk, &hj, &perr)) {
            out->host_key = hk > out->host_key ? hk : out->host_key;
            out->host_job = hj > out->host_job ? hj : out->host_job;
        }
    }
}

static int key_fits_a_device(const cuzk_engine *e, const eng_kentry *k)
{
    for (int i = 0; i < e->n_devices; i++)
        if (k->plan.bytes[i])
            return 1;
    return 0;
}

/* ---- key cache (e->lock held) ----------------------------------------------- */

static eng_kentry *key_find(cuzk_engine *e, const char *id)
{
    for (size_t i = 0; i < e->n_keys; i++)
        if (!strcmp(e->keys[i]->id, id))
            return e->keys[i];
    return NULL;
}

/* Memory a key will take once loaded: what it took last time (remembered in
 * the registry), else its file size. */
static uint64_t key_estimate(const eng_kentry *k)
{
    if (k->plan.host_key) /* the host plan (the key mapped: its page cache is not counted) */
        return k->plan.host_key;
    return k->rec.host_bytes ? k->rec.host_bytes : k->meta.file_bytes;
}

static uint64_t keys_resident_bytes(const cuzk_engine *e)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < e->n_keys; i++)
        for (int s = 0; s < ENG_SLOTS; s++) {
            const eng_kslot *ks = &e->keys[i]->slot[s];
            if (ks->state == KEY_RESIDENT)
                sum += ks->host_bytes;
            else if (ks->state == KEY_LOADING)
                sum += key_estimate(e->keys[i]);
        }
    return sum;
}

/* Idle resident keys (every slot but except/except_slot), which may be evicted. */
static uint64_t keys_evictable_bytes(const cuzk_engine *e, const eng_kentry *except, int except_slot)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < e->n_keys; i++)
        for (int s = 0; s < ENG_SLOTS; s++) {
            const eng_kslot *ks = &e->keys[i]->slot[s];
            if (!(e->keys[i] == except && s == except_slot) && ks->state == KEY_RESIDENT &&
                !ks->users)
                sum += ks->host_bytes;
        }
    return sum;
}

static uint64_t key_need(const eng_kentry *k, int slot)
{
    return k->slot[slot].state == KEY_UNLOADED ? key_estimate(k) : 0;
}

static int key_users(const eng_kentry *k)
{
    int n = 0;
    for (int s = 0; s < ENG_SLOTS; s++)
        n += k->slot[s].users + (k->slot[s].state == KEY_LOADING);
    return n;
}

/* The other keys resident or loading on GPU slot `slot` (not k), for
 * devmem admission; their entries in *who. Returns the count. */
static size_t device_keys(const cuzk_engine *e, const eng_kentry *k, int slot, eng_devmem_key *out,
                          eng_kentry **who)
{
    size_t n = 0;
    int d = dev_index(e, slot - 1);
    for (size_t i = 0; i < e->n_keys; i++) {
        eng_kentry *o = e->keys[i];
        const eng_kslot *ks = &o->slot[slot];
        if (o == k || ks->state == KEY_UNLOADED)
            continue;
        out[n].bytes = o->plan.bytes[d];
        out[n].in_use = ks->state == KEY_LOADING || ks->users;
        out[n].last_used_ms = ks->last_used_ms;
        who[n++] = o;
    }
    return n;
}

/* Would `need` more host bytes fit if every idle key but (k, slot) were
 * evicted, and, on a GPU, k's device plan beside the keys in use there
 * (devmem.h)? */
static int fits(const cuzk_engine *e, const eng_kentry *k, int slot, uint64_t need)
{
    uint64_t used = e->jobs_reserved + keys_resident_bytes(e) - keys_evictable_bytes(e, k, slot);
    if (used + need > e->host_budget)
        return 0;
    if (slot > 0 && k->slot[slot].state == KEY_UNLOADED) {
        int d = dev_index(e, slot - 1);
        eng_devmem_key *dk = malloc((e->n_keys ? e->n_keys : 1) * sizeof *dk);
        eng_kentry **who = malloc((e->n_keys ? e->n_keys : 1) * sizeof *who);
        int ok = dk && who && k->plan.bytes[d] &&
                 eng_devmem_admit(e->device_info[d].memory_budget, dk,
                                  device_keys(e, k, slot, dk, who), k->plan.bytes[d], NULL);
        free(dk);
        free(who);
        return ok;
    }
    return 1;
}

static void key_unload(cuzk_engine *e, eng_kentry *k, int slot, const char *why)
{
    eng_kslot *ks = &k->slot[slot];
    eng_key_free(ks->key);
    ks->key = NULL;
    ks->state = KEY_UNLOADED;
    ks->host_bytes = ks->device_bytes = 0;
    e->counters.keys_evicted++;
    elog(e, "key_evicted", "key=%s device=%d reason=%s", k->id, slot - 1, why);
}

/* Evicts idle keys, least recently used first, until `need` more host
 * bytes fit; on a GPU slot where `keep` is not resident yet, first the idle
 * keys there that its device plan needs gone (devmem.h). */
static void make_room(cuzk_engine *e, const eng_kentry *keep, int keep_slot, uint64_t need)
{
    if (keep_slot > 0 && keep->slot[keep_slot].state == KEY_UNLOADED) {
        int d = dev_index(e, keep_slot - 1);
        size_t cap = e->n_keys ? e->n_keys : 1;
        eng_devmem_key *dk = malloc(cap * sizeof *dk);
        eng_kentry **who = malloc(cap * sizeof *who);
        int *evict = malloc(cap * sizeof *evict);
        size_t n = dk && who && evict ? device_keys(e, keep, keep_slot, dk, who) : 0;
        if (n && eng_devmem_admit(e->device_info[d].memory_budget, dk, n, keep->plan.bytes[d], evict))
            for (size_t i = 0; i < n; i++)
                if (evict[i])
                    key_unload(e, who[i], keep_slot, "device");
        free(dk);
        free(who);
        free(evict);
    }
    while (e->jobs_reserved + keys_resident_bytes(e) + need > e->host_budget) {
        eng_kentry *lru = NULL;
        int lru_slot = 0;
        for (size_t i = 0; i < e->n_keys; i++)
            for (int s = 0; s < ENG_SLOTS; s++) {
                eng_kentry *k = e->keys[i];
                const eng_kslot *ks = &k->slot[s];
                if (!(k == keep && s == keep_slot) && ks->state == KEY_RESIDENT && !ks->users &&
                    (!lru || ks->last_used_ms < lru->slot[lru_slot].last_used_ms)) {
                    lru = k;
                    lru_slot = s;
                }
            }
        if (!lru)
            return;
        key_unload(e, lru, lru_slot, "lru");
    }
}

static void key_info_fill(const cuzk_engine *e, const eng_kentry *k, cuzk_engine_key_info *o)
{
    memset(o, 0, sizeof *o);
    memcpy(o->id, k->id, sizeof o->id);
    snprintf(o->path, sizeof o->path, "%s", k->path);
    o->curve = k->meta.curve;
    o->n_vars = k->meta.n_vars;
    o->n_public = k->meta.n_public;
    o->domain_size = k->meta.domain_size;
    o->file_bytes = k->meta.file_bytes;
    o->device = -1;
    for (int s = 0; s < ENG_SLOTS; s++) {
        const eng_kslot *ks = &k->slot[s];
        if (ks->state == KEY_RESIDENT) {
            o->host_bytes += ks->host_bytes;
            o->device_bytes += ks->device_bytes;
            o->resident = 1;
            if (s > 0 && o->device < 0)
                o->device = s - 1;
        }
        o->users += ks->users;
        if (ks->last_used_ms > o->last_used_ms)
            o->last_used_ms = ks->last_used_ms;
    }
    o->jobs = k->jobs;
    o->preloaded = k->preloaded;
    (void)e;
}

static int key_info_resident(const eng_kentry *k)
{
    for (int s = 0; s < ENG_SLOTS; s++)
        if (k->slot[s].state != KEY_UNLOADED)
            return 1;
    return 0;
}

static cuzk_status key_add(cuzk_engine *e, const eng_key_rec *rec, const eng_key_meta *meta,
                           const eng_kplan *plan, eng_kentry **out, cuzk_error *err)
{
    eng_kentry *k = key_find(e, rec->id);
    if (!k) {
        if (e->n_keys == e->cap_keys) {
            size_t cap = e->cap_keys ? 2 * e->cap_keys : 8;
            eng_kentry **nk = realloc(e->keys, cap * sizeof *nk);
            if (!nk)
                return cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: out of memory", rec->path);
            e->keys = nk;
            e->cap_keys = cap;
        }
        if (!(k = calloc(1, sizeof *k)))
            return cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: out of memory", rec->path);
        e->keys[e->n_keys++] = k;
        memcpy(k->id, rec->id, sizeof k->id);
        snprintf(k->path, sizeof k->path, "%s", rec->path);
        k->meta = *meta;
        k->rec = *rec;
        k->plan = *plan;
    }
    *out = k;
    return CUZK_OK;
}

/* SHA-256 of a file's bytes as hex. */
static cuzk_status sha256_file(const char *path, char out[CUZK_KEY_ID_LEN + 1], cuzk_error *err)
{
    /* Resolved already: no symlink to follow; never block on a FIFO. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    size_t cap = 1u << 20;
    uint8_t *buf = malloc(cap);
    cuzk_status st = CUZK_OK;
    if (!md || !buf || !EVP_DigestInit_ex(md, EVP_sha256(), NULL)) {
        st = cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: cannot hash (out of memory)", path);
        goto out;
    }
    for (;;) {
        ssize_t n = read(fd, buf, cap);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            st = cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
            goto out;
        }
        if (n == 0)
            break;
        EVP_DigestUpdate(md, buf, (size_t)n);
    }
    uint8_t d[32];
    unsigned dl = 0;
    EVP_DigestFinal_ex(md, d, &dl);
    hex(out, d, 32);
out:
    EVP_MD_CTX_free(md);
    free(buf);
    close(fd);
    return st;
}

static void rec_stat(eng_key_rec *r, const struct stat *sb)
{
    r->file_bytes = (uint64_t)sb->st_size;
    r->mtime_ns = (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
    r->inode = (uint64_t)sb->st_ino;
    r->dev = (uint64_t)sb->st_dev;
}

static int rec_same_file(const eng_key_rec *a, const eng_key_rec *b)
{
    return a->file_bytes == b->file_bytes && a->mtime_ns == b->mtime_ns && a->inode == b->inode &&
           a->dev == b->dev;
}

/* Identifies (hashing unless the registry knows this exact file) and adds a
 * key; does not load it. */
static cuzk_status key_identify(cuzk_engine *e, const char *path, eng_kentry **out,
                                cuzk_error *err)
{
    char abs[PATH_MAX];
    struct stat sb;
    if (!realpath(path, abs) || stat(abs, &sb))
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: not a regular file", path);
    eng_key_rec rec = {0}, known;
    if (strlen(abs) >= sizeof rec.path)
        return cuzk_err_force(err, CUZK_ERR_USAGE, "%.200s...: path longer than %zu bytes", abs,
                              sizeof rec.path - 1);
    memcpy(rec.path, abs, strlen(abs) + 1);
    rec_stat(&rec, &sb);
    int found = 0;
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = e->q->ops->key_by_path(e->q, abs, &known, &found, err);
    pthread_mutex_unlock(&e->dblock);
    if (st)
        return st;
    eng_key_meta meta;
    eng_kplan plan;
    memset(&plan, 0, sizeof plan);
    if ((st = eng_key_meta_read(abs, &meta, err)))
        return st;
    if (found && rec_same_file(&rec, &known)) {
        memcpy(rec.id, known.id, sizeof rec.id);
        rec.host_bytes = known.host_bytes;
    } else {
        if ((st = sha256_file(abs, rec.id, err)))
            return st;
        pthread_mutex_lock(&e->dblock);
        st = e->q->ops->key_put(e->q, &rec, err);
        pthread_mutex_unlock(&e->dblock);
        if (st)
            return st;
    }
    pthread_mutex_lock(&e->lock);
    int known_key = key_find(e, rec.id) != NULL;
    pthread_mutex_unlock(&e->lock);
    if (!known_key) /* a new entry: its device plans (reads the key's header) */
        key_plan(e, abs, &plan);
    pthread_mutex_lock(&e->lock);
    st = key_add(e, &rec, &meta, &plan, out, err);
    if (!st && !rec_same_file(&(*out)->rec, &rec) && !key_users(*out) &&
        !key_info_resident(*out)) {
        /* Same content at a new path or a new copy: prove from the file we just saw. */
        uint64_t hb = (*out)->rec.host_bytes;
        (*out)->rec = rec;
        if (!rec.host_bytes)
            (*out)->rec.host_bytes = hb;
        memcpy((*out)->path, rec.path, sizeof rec.path);
    }
    pthread_mutex_unlock(&e->lock);
    return st;
}

/* Makes k resident in `slot` for a user that holds it (slot's users
 * counted). Called without e->lock; one thread loads, others wait for it. */
static cuzk_status key_acquire_loaded(cuzk_engine *e, eng_kentry *k, int slot,
                                      eng_worker_ctx *wctx, cuzk_error *err)
{
    eng_kslot *ks = &k->slot[slot];
    pthread_mutex_lock(&e->lock);
    while (ks->state == KEY_LOADING)
        pthread_cond_wait(&e->change_cv, &e->lock);
    if (ks->state == KEY_RESIDENT) {
        pthread_mutex_unlock(&e->lock);
        return CUZK_OK;
    }
    ks->state = KEY_LOADING;
    char path[CUZK_CFG_STR_MAX];
    snprintf(path, sizeof path, "%s", k->path);
    eng_key_rec rec = k->rec;
    pthread_mutex_unlock(&e->lock);

    cuzk_status st = CUZK_OK;
    struct stat sb;
    eng_key_rec now = rec;
    if (stat(path, &sb)) {
        st = cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    } else {
        rec_stat(&now, &sb);
        if (!rec_same_file(&now, &rec))
            st = cuzk_err_force(err, CUZK_ERR_MISMATCH,
                                "%s: the key file changed since it was registered as %s; "
                                "register it again",
                                path, k->id);
    }
    eng_key *key = NULL;
    uint64_t hb = 0, db = 0;
    double t0 = cuzk_now();
    if (!st)
        /* On a GPU: within the plan admission counted for it (devmem.h). */
        st = eng_key_load(wctx, path, slot - 1,
                          slot > 0 ? k->plan.bytes[dev_index(e, slot - 1)] : 0,
                          (unsigned)workers_per_device(e), e->cfg.msm_copies, &key, &hb, &db, err);
    pthread_mutex_lock(&e->lock);
    int remember = 0;
    eng_key_rec upd;
    if (!st) {
        uint64_t estimate = key_estimate(k);
        ks->key = key;
        ks->host_bytes = k->plan.host_key ? k->plan.host_key : hb; /* admission counts the plan's figure */
        ks->device_bytes = db;
        ks->state = KEY_RESIDENT;
        if (ks->host_bytes > estimate) /* bigger than planned: idle keys make up the difference */
            make_room(e, k, slot, 0);
        remember = k->rec.host_bytes != hb;
        k->rec.host_bytes = hb;
        upd = k->rec;
        e->counters.keys_loaded++;
        char qp[2 * CUZK_CFG_STR_MAX + 3];
        elog(e, "key_loaded", "key=%s path=%s device=%d host_bytes=%llu device_bytes=%llu ms=%.1f",
             k->id, logq(qp, sizeof qp, path), slot - 1, (unsigned long long)hb, (unsigned long long)db,
             1e3 * (cuzk_now() - t0));
    } else {
        ks->state = KEY_UNLOADED;
        char qp[2 * CUZK_CFG_STR_MAX + 3];
        elog(e, "key_load_failed", "key=%s path=%s error=\"%s\"", k->id, logq(qp, sizeof qp, path),
             err ? err->msg : "");
    }
    pthread_cond_broadcast(&e->change_cv);
    pthread_cond_broadcast(&e->work_cv);
    pthread_mutex_unlock(&e->lock);
    if (remember) { /* the next start plans with the real size */
        cuzk_error rerr = {0};
        pthread_mutex_lock(&e->dblock);
        if (e->q->ops->key_put(e->q, &upd, &rerr))
            elog(e, "journal_error", "op=key_put key=%s error=\"%s\"", upd.id, rerr.msg);
        pthread_mutex_unlock(&e->dblock);
    }
    return st;
}

/* ---- counters, timeline, phases (e->lock held) --------------------------------- */

static void phase_add(cuzk_engine *e, const char *name, double s)
{
    for (size_t i = 0; i < e->n_phases; i++)
        if (!strcmp(e->phases[i].name, name)) {
            e->phases[i].count++;
            e->phases[i].total_s += s;
            return;
        }
    if (e->n_phases < CUZK_PHASES_MAX) {
        cuzk_phase_stat *p = &e->phases[e->n_phases++];
        snprintf(p->name, sizeof p->name, "%s", name);
        p->count = 1;
        p->total_s = s;
    }
}

static void on_phase_timing(void *user, const char *phase, double seconds)
{
    eng_worker *w = user;
    pthread_mutex_lock(&w->e->lock);
    phase_add(w->e, phase, seconds);
    pthread_mutex_unlock(&w->e->lock);
}

static void timeline_push(cuzk_engine *e, const eng_job *j, int worker, int device, int state,
                          int64_t started, int64_t finished)
{
    cuzk_timeline_entry *t = &e->timeline[e->tl_next];
    memset(t, 0, sizeof *t);
    memcpy(t->job_id, j->id, sizeof t->job_id);
    t->worker = worker;
    t->device = device;
    t->priority = (cuzk_priority)j->priority;
    t->state = (cuzk_job_state)state;
    t->started_ms = started;
    t->finished_ms = finished;
    e->tl_next = (e->tl_next + 1) % CUZK_TIMELINE_MAX;
    if (e->tl_n < CUZK_TIMELINE_MAX)
        e->tl_n++;
}

/* ---- workers ----------------------------------------------------------------- */

static size_t busy_workers(const cuzk_engine *e)
{
    size_t n = 0;
    for (size_t i = 0; i < e->n_workers; i++)
        n += e->workers[i].busy != 0;
    return n;
}

/* Ends a job (terminal or requeued) in the queue; returns the state it took
 * (-1 when fenced: another owner/attempt holds it). */
static int job_end(cuzk_engine *e, const eng_job *j, cuzk_status st, const cuzk_error *perr,
                   const char *proof, const char *pub, int stop, uint64_t *mark, int *stored)
{
    *stored = 0;
    int64_t t = now_ms();
    int fenced = 0, state;
    cuzk_error err = {0};
    cuzk_status qst;
    pthread_mutex_lock(&e->dblock);
    if (!st) {
        state = CUZK_JOB_DONE;
        qst = e->q->ops->complete(e->q, j->id, j->attempt, e->host_id, proof, pub, t, &fenced, &err);
    } else if (st == CUZK_ERR_CANCELLED && stop == STOP_DRAIN) {
        state = CUZK_JOB_QUEUED;
        qst = e->q->ops->finish(e->q, j->id, j->attempt, e->host_id, state, 0, NULL, t, &fenced,
                                &err);
        if (!qst && !fenced) { /* it may have reached max_attempts */
            eng_job now;
            if (!e->q->ops->get(e->q, j->id, &now, &err))
                state = now.state;
        }
    } else {
        state = st == CUZK_ERR_CANCELLED && stop == STOP_CANCEL ? CUZK_JOB_CANCELLED
                                                                : CUZK_JOB_FAILED;
        qst = e->q->ops->finish(e->q, j->id, j->attempt, e->host_id, state, st,
                                state == CUZK_JOB_CANCELLED ? "cancelled while running" : perr->msg,
                                t, &fenced, &err);
    }
    *mark = journal_mark(e);
    if (!qst && !fenced)
        e->end_mark = *mark;
    pthread_mutex_unlock(&e->dblock);
    if (qst) {
        /* The journal cannot be written: the job stays running in it (the
         * caller retries; a restart rescues it). */
        elog(e, "journal_error", "job=%s error=\"%s\"", j->id, err.msg);
        return -1;
    }
    *stored = 1;
    return fenced ? -1 : state;
}

static void cond_wait_s(pthread_cond_t *cv, pthread_mutex_t *m, double s);

/* Holds a claimed job before its proof while the workers are paused; a
 * cancel or a drain's stop ends the hold. */
static cuzk_status hold_while_paused(eng_worker *w, cuzk_error *err)
{
    cuzk_engine *e = w->e;
    pthread_mutex_lock(&e->lock);
    if (e->paused && !atomic_load(&w->prog.cancel)) {
        atomic_store(&w->prog.phase, "paused");
        elog(e, "job_held", "job=%s worker=%d", w->job_id, w->index);
        pthread_cond_broadcast(&e->change_cv);
        while (e->paused && !atomic_load(&w->prog.cancel) && !e->stopping)
            pthread_cond_wait(&e->work_cv, &e->lock);
    }
    int stop = atomic_load(&w->prog.cancel) || e->stopping;
    pthread_mutex_unlock(&e->lock);
    return stop ? cuzk_err_force(err, CUZK_ERR_CANCELLED, "cancelled") : CUZK_OK;
}

static void run_job(eng_worker *w, eng_job *j, eng_kentry *k)
{
    cuzk_engine *e = w->e;
    int slot = w->device + 1;
    double t0 = cuzk_now();
    elog(e, "job_started", "job=%s key=%s priority=%s attempt=%d worker=%d queue_ms=%lld", j->id,
         j->key_id, PRIO[j->priority & 3], j->attempt, w->index,
         (long long)(j->started_ms - j->enqueued_ms));
    cuzk_error err = {0};
    char *proof = NULL, *pub = NULL;
    cuzk_status st = key_acquire_loaded(e, k, slot, w->wctx, &err);
    if (!st) {
        char wp[CUZK_CFG_STR_MAX + 512];
        void *body = NULL;
        size_t len = 0;
        if (j->input[0]) {
            spool_path(e, j->input, wp, sizeof wp);
        } else {
            pthread_mutex_lock(&e->dblock);
            st = e->q->ops->input(e->q, j->id, &body, &len, &err);
            pthread_mutex_unlock(&e->dblock);
        }
        if (!st)
            st = hold_while_paused(w, &err);
        atomic_store(&w->prog.phase, "prove");
        if (!st)
            st = eng_prove(w->wctx, k->slot[slot].key, j->input[0] ? wp : NULL, body, len, &proof,
                           &pub, &err);
        free(body);
    }
    pthread_mutex_lock(&e->lock);
    int stop = w->stop;
    pthread_mutex_unlock(&e->lock);
    uint64_t mark = 0;
    int state, stored;
    /* A journal that cannot take the end now (a full disk) is retried every
     * second, the job shown running in phase store_result, until it can:
     * the job is finished then, never left running with an idle worker. A
     * drain or close gives up: the job stays running in the journal and the
     * next start puts it back in the queue. */
    while ((state = job_end(e, j, st, &err, proof, pub, stop, &mark, &stored)) < 0 && !stored) {
        atomic_store(&w->prog.phase, "store_result");
        pthread_mutex_lock(&e->lock);
        if (!e->stopping && w->stop != STOP_DRAIN)
            cond_wait_s(&e->change_cv, &e->lock, 1.0);
        int give_up = e->stopping || w->stop == STOP_DRAIN;
        pthread_mutex_unlock(&e->lock);
        if (give_up)
            break;
    }
    free(proof);
    free(pub);
    double secs = cuzk_now() - t0;
    int64_t fin = now_ms();
    if (state >= 0 && cuzk_job_state_terminal((cuzk_job_state)state))
        spool_remove_durable(e, j, mark);

    pthread_mutex_lock(&e->lock);
    e->jobs_reserved -= j->host_bytes;
    k->slot[slot].users--;
    k->slot[slot].last_used_ms = fin;
    k->jobs++;
    w->busy = 0;
    w->stop = STOP_NONE;
    w->job_id[0] = 0;
    w->jobs_done++;
    w->busy_s += secs;
    atomic_store(&w->prog.cancel, 0);
    atomic_store(&w->prog.phase, (const char *)NULL);
    atomic_store(&w->prog.fraction, 0.0);
    e->counters.queue_wait_s_total += 1e-3 * (double)(j->started_ms - j->enqueued_ms);
    if (state >= 0)
        timeline_push(e, j, w->index, w->device, state, j->started_ms, fin);
    if (state >= 0 && cuzk_job_state_terminal((cuzk_job_state)state)) {
        active_sub(e, j->input_bytes);
        e->counters.prove_s_total += secs;
    }
    switch (state) {
    case CUZK_JOB_DONE:
        e->counters.completed++;
        elog(e, "job_done", "job=%s worker=%d ms=%.1f", j->id, w->index, 1e3 * secs);
        break;
    case CUZK_JOB_CANCELLED:
        e->counters.cancelled++;
        elog(e, "job_cancelled", "job=%s worker=%d running=1", j->id, w->index);
        break;
    case CUZK_JOB_FAILED:
        e->counters.failed++;
        if (st == CUZK_ERR_MISMATCH && strstr(err.msg, "verification"))
            e->counters.verify_failed++;
        elog(e, "job_failed", "job=%s worker=%d code=%s error=\"%s\"", j->id, w->index,
             cuzk_status_name(st), st ? err.msg : "interrupted too many times");
        break;
    case CUZK_JOB_QUEUED:
        e->counters.recovered++;
        elog(e, "job_requeued", "job=%s worker=%d reason=drain", j->id, w->index);
        break;
    default:
        elog(e, "job_fenced", "job=%s worker=%d attempt=%d", j->id, w->index, j->attempt);
    }
    pthread_cond_broadcast(&e->change_cv);
    pthread_cond_broadcast(&e->work_cv);
    pthread_mutex_unlock(&e->lock);
}

static void cond_wait_s(pthread_cond_t *cv, pthread_mutex_t *m, double s)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + s;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    pthread_cond_timedwait(cv, m, &ts);
}

/* A queued job whose key is not registered any more (the registry was lost
 * or the key was registered by another host): register it from its path. */
static eng_kentry *key_for_job(cuzk_engine *e, const eng_job *j)
{
    eng_kentry *k = key_find(e, j->key_id);
    if (k)
        return k;
    pthread_mutex_unlock(&e->lock);
    cuzk_error err = {0};
    eng_kentry *nk = NULL;
    cuzk_status st = key_identify(e, j->key_path, &nk, &err);
    pthread_mutex_lock(&e->lock);
    if (st || strcmp(nk->id, j->key_id))
        return NULL;
    return key_find(e, j->key_id);
}

/* Fails a queued job that can never run here (its key is gone, or no plan
 * of it fits this GPU), with why. */
static void fail_unclaimable(cuzk_engine *e, eng_worker *w, const eng_job *head,
                             const cuzk_error *why)
{
    /* Claim it, then fail it, so the failure is fenced like any other end. */
    eng_job j;
    int claimed = 0;
    cuzk_error err = {0};
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = e->q->ops->claim(e->q, head->id, e->host_id, w->index, w->device, now_ms(), &j,
                                      &claimed, &err);
    pthread_mutex_unlock(&e->dblock);
    if (st || !claimed)
        return;
    uint64_t mark = 0;
    int stored = 0;
    int state = job_end(e, &j, why->code, why, NULL, NULL, STOP_NONE, &mark, &stored);
    if (state == CUZK_JOB_FAILED) {
        pthread_mutex_unlock(&e->lock);
        spool_remove_durable(e, &j, mark);
        pthread_mutex_lock(&e->lock);
        active_sub(e, j.input_bytes);
        e->counters.failed++;
        elog(e, "job_failed", "job=%s code=%s error=\"%s\"", j.id, cuzk_status_name(why->code), why->msg);
        pthread_cond_broadcast(&e->change_cv);
    }
}

static void *worker_main(void *arg)
{
    eng_worker *w = arg;
    cuzk_engine *e = w->e;
    pthread_mutex_lock(&e->lock);
    while (!e->stopping) {
        if (e->draining || (e->paused && !e->admit)) {
            pthread_cond_wait(&e->work_cv, &e->lock);
            continue;
        }
        eng_job head;
        int found = 0;
        cuzk_error err = {0};
        pthread_mutex_lock(&e->dblock);
        cuzk_status st = e->q->ops->peek(e->q, &head, &found, &err);
        pthread_mutex_unlock(&e->dblock);
        if (st) {
            elog(e, "journal_error", "op=peek error=\"%s\"", err.msg);
            cond_wait_s(&e->work_cv, &e->lock, 1.0);
            continue;
        }
        if (!found) {
            if (e->q->ops->shared) /* other hosts submit too: poll */
                cond_wait_s(&e->work_cv, &e->lock, ENG_QUEUE_POLL_S);
            else
                pthread_cond_wait(&e->work_cv, &e->lock);
            continue;
        }
        eng_kentry *k = key_for_job(e, &head);
        if (e->stopping || e->draining || (e->paused && !e->admit))
            continue;
        if (!k) {
            cuzk_error why = {0};
            cuzk_err_force(&why, CUZK_ERR_IO, "%s: the key of this job (%s) cannot be found",
                           head.key_path, head.key_id);
            fail_unclaimable(e, w, &head, &why);
            continue;
        }
        int slot = w->device + 1;
        if (slot > 0 && !key_fits_a_device(e, k)) {
            cuzk_error why = {0};
            cuzk_err_force(&why, CUZK_ERR_NOMEM, "%s: the key does not fit GPU %d: %s", k->path,
                           w->device, k->plan.why);
            fail_unclaimable(e, w, &head, &why);
            continue;
        }
        uint64_t need = head.host_bytes + key_need(k, slot);
        if (!fits(e, k, slot, need)) {
            /* Head of line waits for memory: a finished job or an idle key
             * wakes us. The timeout re-reads the queue (a cancelled head). */
            cond_wait_s(&e->work_cv, &e->lock, 1.0);
            continue;
        }
        eng_job j;
        int claimed = 0;
        pthread_mutex_lock(&e->dblock);
        st = e->q->ops->claim(e->q, head.id, e->host_id, w->index, w->device, now_ms(), &j,
                              &claimed, &err);
        pthread_mutex_unlock(&e->dblock);
        if (st) {
            elog(e, "journal_error", "op=claim job=%s error=\"%s\"", head.id, err.msg);
            cond_wait_s(&e->work_cv, &e->lock, 1.0);
            continue;
        }
        if (!claimed)
            continue;
        if (e->paused && e->admit)
            e->admit--;
        make_room(e, k, slot, need);
        e->jobs_reserved += j.host_bytes;
        k->slot[slot].users++;
        w->busy = 1;
        w->stop = STOP_NONE;
        memcpy(w->job_id, j.id, sizeof w->job_id);
        atomic_store(&w->prog.cancel, 0);
        /* The phase it is really in: a resident key is not loaded again. */
        atomic_store(&w->prog.phase, k->slot[slot].state == KEY_RESIDENT ? "prove" : "load_key");
        atomic_store(&w->prog.fraction, 0.0);
        pthread_cond_broadcast(&e->change_cv);
        pthread_mutex_unlock(&e->lock);
        run_job(w, &j, k);
        pthread_mutex_lock(&e->lock);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* A shared queue (several hosts): renews the leases of the jobs this host
 * runs, requeues jobs whose lease ran out (a dead host's), and re-reads the
 * queue depth, which other hosts change too. Called with e->lock held. */
static void hk_leases(cuzk_engine *e)
{
    const char **ids = calloc(e->n_workers + 1, sizeof *ids);
    char (*copy)[CUZK_JOB_ID_LEN + 1] = calloc(e->n_workers + 1, sizeof *copy);
    size_t n = 0;
    for (size_t i = 0; ids && copy && i < e->n_workers; i++)
        if (e->workers[i].busy && e->workers[i].job_id[0]) {
            memcpy(copy[n], e->workers[i].job_id, sizeof copy[n]);
            ids[n] = copy[n];
            n++;
        }
    pthread_mutex_unlock(&e->lock);
    uint64_t requeued = 0, ended = 0, queued[CUZK_PRIO_COUNT], running = 0, bytes = 0;
    int *held = calloc(e->n_workers + 1, sizeof *held);
    cuzk_error err = {0};
    pthread_mutex_lock(&e->dblock);
    cuzk_status rst = ids && copy && held ? e->q->ops->renew(e->q, e->host_id, ids, n, held, &err)
                                          : CUZK_ERR_NOMEM;
    if (rst)
        elog(e, "journal_error", "op=renew error=\"%s\"", err.msg);
    cuzk_status st;
    if ((st = e->q->ops->rescue_expired(e->q, now_ms(), &requeued, &ended, &err)))
        elog(e, "journal_error", "op=rescue_expired error=\"%s\"", err.msg);
    else if (requeued || ended)
        elog(e, "leases_expired", "requeued=%llu ended=%llu", (unsigned long long)requeued,
             (unsigned long long)ended);
    cuzk_status sst = e->q->ops->stats(e->q, queued, &running, &bytes, &err);
    pthread_mutex_unlock(&e->dblock);
    free(ids);
    pthread_mutex_lock(&e->lock);
    /* A job lost to another host (its end would be fenced) or cancelled
     * from another host: stop its worker, if it still runs that job. */
    for (size_t k = 0; !rst && k < n; k++) { /* only what the renewal said */
        if (held[k] == 1)
            continue;
        for (size_t i = 0; i < e->n_workers; i++) {
            eng_worker *w = &e->workers[i];
            if (w->busy && !strcmp(w->job_id, copy[k]) && w->stop == STOP_NONE) {
                w->stop = STOP_CANCEL;
                atomic_store(&w->prog.cancel, 1);
                elog(e, held[k] ? "job_cancel_requested" : "lease_lost", "job=%s worker=%d",
                     copy[k], w->index);
            }
        }
        pthread_cond_broadcast(&e->work_cv); /* a job held by a pause */
    }
    free(held);
    free(copy);
    if (!sst) {
        e->active_jobs = running;
        for (int i = 0; i < CUZK_PRIO_COUNT; i++)
            e->active_jobs += queued[i];
        e->spool_bytes = bytes;
    }
    if (requeued)
        pthread_cond_broadcast(&e->work_cv);
}

static void *housekeeper_main(void *arg)
{
    cuzk_engine *e = arg;
    double period = e->cfg.retention_s / 4;
    period = period < 0.05 ? 0.05 : period > 10 ? 10 : period;
    double renew = e->cfg.lease_renew_s > 0 ? e->cfg.lease_renew_s : 5;
    if (e->q->ops->shared && renew < period)
        period = renew;
    pthread_mutex_lock(&e->lock);
    while (!e->stopping) {
        cond_wait_s(&e->hk_cv, &e->lock, period);
        if (e->stopping)
            break;
        if (e->q->ops->shared)
            hk_leases(e);
        pthread_mutex_unlock(&e->lock);
        int64_t before = now_ms() - (int64_t)(e->cfg.retention_s * 1000);
        size_t total = 0;
        for (;;) {
            eng_job *v = NULL;
            size_t n = 0;
            cuzk_error err = {0};
            pthread_mutex_lock(&e->dblock);
            cuzk_status st = e->q->ops->expire(e->q, before, 256, &v, &n, &err);
            pthread_mutex_unlock(&e->dblock);
            if (st) {
                elog(e, "journal_error", "op=expire error=\"%s\"", err.msg);
                break;
            }
            for (size_t i = 0; i < n; i++)
                spool_remove(e, &v[i]); /* normally gone already */
            free(v);
            total += n;
            if (n < 256)
                break;
        }
        pthread_mutex_lock(&e->lock);
        if (total) {
            e->counters.expired += total;
            elog(e, "jobs_expired", "count=%zu", total);
        }
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* ---- open / drain / close -------------------------------------------------- */

static cuzk_status mkdir_p(const char *dir, cuzk_error *err)
{
    char tmp[CUZK_CFG_STR_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0755) && errno != EEXIST)
                return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", tmp, strerror(errno));
            *p = '/';
        }
    if (mkdir(tmp, 0700) && errno != EEXIST)
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", tmp, strerror(errno));
    return CUZK_OK;
}

/* Removes spool files no queued / running job refers to (a crash between
 * writing the witness and journaling the job, or after a job ended). */
static void spool_sweep(cuzk_engine *e)
{
    char **live = NULL;
    size_t n = 0;
    cuzk_error err = {0};
    if (e->q->ops->live_inputs(e->q, &live, &n, &err))
        return;
    DIR *d = opendir(e->spool);
    struct dirent *de;
    size_t removed = 0;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
            continue;
        int keep = 0;
        for (size_t i = 0; i < n && !keep; i++)
            keep = !strcmp(live[i], de->d_name);
        if (!keep) {
            char p[CUZK_CFG_STR_MAX + 512];
            spool_path(e, de->d_name, p, sizeof p);
            removed += unlink(p) == 0;
        }
    }
    if (d)
        closedir(d);
    for (size_t i = 0; i < n; i++)
        free(live[i]);
    free(live);
    if (removed)
        elog(e, "spool_swept", "removed=%zu", removed);
}

/* gpu.devices: "" = every GPU (none when this build has no GPU prover),
 * "none" = CPU workers only, else a list of CUDA ordinals. */
static cuzk_status pick_devices(cuzk_engine *e, cuzk_error *err)
{
    const char *spec = e->cfg.devices;
    int count = cuzk_g16_backend_gpu() ? cuzk_gpu_device_count() : 0;
    e->n_devices = 0;
    if (!strcmp(spec, "none"))
        return CUZK_OK;
    if (!spec[0]) {
        for (int d = 0; d < count && d < ENG_MAX_DEVICES; d++)
            e->devices[e->n_devices++] = d;
    } else {
        char list[sizeof e->cfg.devices], *save = NULL;
        snprintf(list, sizeof list, "%s", spec);
        for (char *p = strtok_r(list, ", ", &save); p; p = strtok_r(NULL, ", ", &save)) {
            char *end;
            long d = strtol(p, &end, 10);
            if (*end || d < 0 || d >= count || e->n_devices == ENG_MAX_DEVICES)
                return cuzk_err_force(err, CUZK_ERR_USAGE,
                                      "gpu.devices \"%s\": no GPU \"%s\" (%d usable%s)", spec, p,
                                      count, cuzk_g16_backend_gpu() ? "" : ": built without the GPU prover");
            e->devices[e->n_devices++] = (int)d;
        }
    }
    for (int i = 0; i < e->n_devices; i++) {
        cuzk_device_info *di = &e->device_info[i];
        size_t total = 0;
        int sms = 0;
        cuzk_error derr = {0};
        di->index = e->devices[i];
        if (cuzk_gpu_device_info(di->index, di->name, sizeof di->name, &total, &sms, &derr))
            return cuzk_err_force(err, CUZK_ERR_GPU, "GPU %d: %s", di->index, derr.msg);
        di->memory_total = total;
        e->device_sms[i] = sms;
        /* Default: the GPU prover's own default budget (gpu_plan.h), the
         * free memory now minus max(512 MiB, 2 % of the device). */
        size_t free_now = 0, tot = 0;
        if (!e->cfg.device_memory && cuzk_gpu_mem_info(di->index, &free_now, &tot, &derr))
            return cuzk_err_force(err, CUZK_ERR_GPU, "GPU %d: %s", di->index, derr.msg);
        uint64_t margin = total / 50 > (512ull << 20) ? total / 50 : 512ull << 20;
        di->memory_budget = e->cfg.device_memory ? e->cfg.device_memory
                            : free_now > margin       ? free_now - margin
                                                      : 0;
        di->workers = e->cfg.workers_per_device < 1 ? 1 : e->cfg.workers_per_device;
    }
    return CUZK_OK;
}

static void engine_free(cuzk_engine *e)
{
    for (size_t i = 0; i < e->n_workers; i++)
        eng_worker_ctx_free(e->workers[i].wctx);
    free(e->workers);
    for (size_t i = 0; i < e->n_keys; i++)
    {
        for (int s = 0; s < ENG_SLOTS; s++)
            eng_key_free(e->keys[i]->slot[s].key);
        free(e->keys[i]);
    }
    free(e->keys);
    eng_backend_free(e->backend);
    if (e->q)
        e->q->ops->close(e->q);
    if (e->lockfd >= 0)
        close(e->lockfd);
    pthread_mutex_destroy(&e->lock);
    pthread_mutex_destroy(&e->dblock);
    pthread_cond_destroy(&e->work_cv);
    pthread_cond_destroy(&e->change_cv);
    pthread_cond_destroy(&e->hk_cv);
    free(e);
}

static void stop_threads(cuzk_engine *e)
{
    pthread_mutex_lock(&e->lock);
    e->stopping = 1;
    pthread_cond_broadcast(&e->work_cv);
    pthread_cond_broadcast(&e->hk_cv);
    pthread_cond_broadcast(&e->change_cv);
    pthread_mutex_unlock(&e->lock);
    for (size_t i = 0; i < e->n_workers; i++)
        if (e->workers[i].started)
            pthread_join(e->workers[i].thread, NULL);
    if (e->hk_started)
        pthread_join(e->housekeeper, NULL);
}

cuzk_status cuzk_engine_open(cuzk_engine **out, const cuzk_config *cfg,
                             const cuzk_engine_hooks *hooks, cuzk_error *err)
{
    *out = NULL;
    cuzk_engine *e = calloc(1, sizeof *e);
    if (!e)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "engine: out of memory");
    e->cfg = *cfg;
    if (hooks)
        e->hooks = *hooks;
    e->lockfd = -1;
    e->paused = cfg->paused != 0;
    e->start_mono = cuzk_now();
    pthread_mutex_init(&e->lock, NULL);
    pthread_mutex_init(&e->dblock, NULL);
    pthread_cond_init(&e->work_cv, NULL);
    pthread_cond_init(&e->change_cv, NULL);
    pthread_cond_init(&e->hk_cv, NULL);
    cuzk_status st;
    const char *dir = cfg->state_dir[0] ? cfg->state_dir : ".";
    if (cfg->host_id[0])
        snprintf(e->host_id, sizeof e->host_id, "%s", cfg->host_id);
    else if (gethostname(e->host_id, sizeof e->host_id - 1))
        snprintf(e->host_id, sizeof e->host_id, "localhost");
    if (e->cfg.cpu_workers < 1)
        e->cfg.cpu_workers = 1;
    if (e->cfg.max_attempts < 1)
        e->cfg.max_attempts = 1;
    snprintf(e->spool, sizeof e->spool, "%s/spool", dir);
    if ((st = mkdir_p(dir, err)) || (st = mkdir_p(e->spool, err)))
        goto fail;
    char lockpath[CUZK_CFG_STR_MAX + 16];
    snprintf(lockpath, sizeof lockpath, "%s/lock", dir);
    e->lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (e->lockfd < 0) {
        st = cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", lockpath, strerror(errno));
        goto fail;
    }
    if (flock(e->lockfd, LOCK_EX | LOCK_NB)) {
        st = cuzk_err_force(err, CUZK_ERR_IO,
                            "%s: locked: another cuzk engine uses this state directory", dir);
        goto fail;
    }
    /* The holder's pid, for operators (a detached daemon prints it once). */
    if (ftruncate(e->lockfd, 0) == 0)
        dprintf(e->lockfd, "%d\n", (int)getpid());
    /* Private: the journal holds witnesses and proofs. Older state
     * directories are tightened too. */
    struct stat dsb;
    if (!stat(dir, &dsb) && (dsb.st_mode & 077)) {
        if (chmod(dir, 0700))
            elog(e, "state_dir_mode", "dir=%s error=\"%s\"", dir, strerror(errno));
        else
            elog(e, "state_dir_mode", "dir=%s mode=0700 was=0%o", dir, (unsigned)(dsb.st_mode & 0777));
    }
    chmod(e->spool, 0700);
    e->host_budget = cfg->host_memory ? cfg->host_memory : cuzk_host_mem_available() / 10 * 9;

    char journal[CUZK_CFG_STR_MAX + 16];
    snprintf(journal, sizeof journal, "%s/journal.db", dir);
    const eng_queue_ops *qops = eng_queue_backend(cfg->queue);
    if (!qops) {
        char safe[CUZK_CFG_STR_MAX];
        eng_queue_redact(cfg->queue, safe, sizeof safe);
        st = cuzk_err_force(err, CUZK_ERR_USAGE,
                            "engine.queue \"%s\": not \"sqlite\", a postgresql:// URI or a conninfo",
                            safe);
        goto fail;
    }
    if (qops->shared && cfg->lease_s > 0 && cfg->lease_renew_s * 2 > cfg->lease_s) {
        st = cuzk_err_force(err, CUZK_ERR_USAGE,
                            "engine.lease_renew (%gs) must be at most half of engine.lease (%gs):"
                            " leases would run out between renewals",
                            cfg->lease_renew_s, cfg->lease_s);
        goto fail;
    }
    if (qops == &eng_queue_sqlite) {
        /* SQLite gives its -wal and -shm files the journal's mode. */
        int jfd = open(journal, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (jfd < 0) {
            st = ecode(err, store_code(errno), "%s: %s", journal, strerror(errno));
            goto fail;
        }
        fchmod(jfd, 0600);
        close(jfd);
        char side[CUZK_CFG_STR_MAX + 32];
        snprintf(side, sizeof side, "%s-wal", journal);
        chmod(side, 0600);
        snprintf(side, sizeof side, "%s-shm", journal);
        chmod(side, 0600);
    }
    eng_queue_opts qopts = {.host = e->host_id, .lease_s = cfg->lease_s};
    if ((st = qops->open(&e->q, qops == &eng_queue_sqlite ? journal : cfg->queue, &qopts, err)))
        goto fail;
    uint64_t requeued = 0, failed = 0;
    if ((st = e->q->ops->rescue(e->q, e->host_id, now_ms(), &requeued, &failed, err)) ||
        (st = journal_sync(e, journal_mark(e), err)))
        goto fail;
    e->counters.recovered = requeued;
    if (requeued || failed)
        elog(e, "jobs_recovered", "requeued=%llu ended=%llu", (unsigned long long)requeued,
             (unsigned long long)failed);
    spool_sweep(e);
    uint64_t queued[CUZK_PRIO_COUNT], running;
    if ((st = e->q->ops->stats(e->q, queued, &running, &e->spool_bytes, err)))
        goto fail;
    e->active_jobs = running;
    for (int i = 0; i < CUZK_PRIO_COUNT; i++)
        e->active_jobs += queued[i];

    if ((st = pick_devices(e, err)))
        goto fail;
    /* Known keys (not loaded until used or preloaded). */
    eng_key_rec *recs = NULL;
    size_t n_recs = 0;
    if ((st = e->q->ops->key_all(e->q, &recs, &n_recs, err)))
        goto fail;
    for (size_t i = 0; i < n_recs; i++) {
        eng_key_meta meta;
        cuzk_error kerr = {0};
        eng_kentry *k;
        if (eng_key_meta_read(recs[i].path, &meta, &kerr)) {
            elog(e, "key_unavailable", "key=%s path=%s error=\"%s\"", recs[i].id, recs[i].path,
                 kerr.msg);
            continue;
        }
        if (key_find(e, recs[i].id))
            continue;
        eng_kplan plan;
        key_plan(e, recs[i].path, &plan);
        if ((st = key_add(e, &recs[i], &meta, &plan, &k, err))) {
            free(recs);
            goto fail;
        }
    }
    free(recs);

    if ((st = eng_backend_create(&e->backend, cfg->threads, err)))
        goto fail;
    int per_device = e->cfg.workers_per_device < 1 ? 1 : e->cfg.workers_per_device;
    e->n_workers = e->n_devices ? (size_t)(e->n_devices * per_device) : (size_t)e->cfg.cpu_workers;
    e->workers = calloc(e->n_workers, sizeof *e->workers);
    if (!e->workers) {
        st = cuzk_err_force(err, CUZK_ERR_NOMEM, "engine: out of memory");
        goto fail;
    }
    for (size_t i = 0; i < e->n_workers; i++) {
        eng_worker *w = &e->workers[i];
        w->e = e;
        w->index = (int)i;
        w->device = e->n_devices ? e->devices[i / (size_t)per_device] : -1;
        w->prog.timing = on_phase_timing;
        w->prog.user = w;
        if ((st = eng_worker_ctx_create(&w->wctx, e->backend, &w->prog, err)))
            goto fail;
    }

    /* Preload: register and load each listed key before accepting jobs. */
    if (cfg->preload[0]) {
        char list[CUZK_CFG_LIST_MAX], *save = NULL;
        snprintf(list, sizeof list, "%s", cfg->preload);
        for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
            while (*p == ' ' || *p == '\t')
                p++;
            size_t L = strlen(p);
            while (L && (p[L - 1] == ' ' || p[L - 1] == '\t'))
                p[--L] = 0;
            if (!*p)
                continue;
            cuzk_engine_key_info ki;
            if ((st = cuzk_engine_key_register(e, p, 1, &ki, err)))
                goto fail;
            pthread_mutex_lock(&e->lock);
            eng_kentry *k = key_find(e, ki.id);
            if (k)
                k->preloaded = 1;
            pthread_mutex_unlock(&e->lock);
        }
    }

    for (size_t i = 0; i < e->n_workers; i++) {
        if (pthread_create(&e->workers[i].thread, NULL, worker_main, &e->workers[i])) {
            st = cuzk_err_force(err, CUZK_ERR_NOMEM, "engine: cannot start a worker thread");
            stop_threads(e);
            goto fail;
        }
        e->workers[i].started = 1;
    }
    if (pthread_create(&e->housekeeper, NULL, housekeeper_main, e)) {
        st = cuzk_err_force(err, CUZK_ERR_NOMEM, "engine: cannot start the housekeeping thread");
        stop_threads(e);
        goto fail;
    }
    e->hk_started = 1;
    elog(e, "engine_started", "state_dir=%s host=%s queue=%s workers=%zu gpus=%d budget=%llu queued=%llu",
         dir, e->host_id, e->q->ops->name, e->n_workers, e->n_devices, (unsigned long long)e->host_budget,
         (unsigned long long)e->active_jobs);
    *out = e;
    return CUZK_OK;
fail:
    engine_free(e);
    return st;
}

void cuzk_engine_pause(cuzk_engine *e)
{
    pthread_mutex_lock(&e->lock);
    if (!e->paused)
        elog(e, "workers_paused", "running=%zu", busy_workers(e));
    e->paused = 1;
    e->admit = 0;
    pthread_cond_broadcast(&e->change_cv);
    pthread_mutex_unlock(&e->lock);
}

void cuzk_engine_resume(cuzk_engine *e)
{
    pthread_mutex_lock(&e->lock);
    if (e->paused)
        elog(e, "workers_resumed", "running=%zu", busy_workers(e));
    e->paused = 0;
    e->admit = 0;
    pthread_cond_broadcast(&e->work_cv);
    pthread_cond_broadcast(&e->change_cv);
    pthread_mutex_unlock(&e->lock);
}

cuzk_status cuzk_engine_admit(cuzk_engine *e, unsigned n, cuzk_error *err)
{
    pthread_mutex_lock(&e->lock);
    if (!e->paused) {
        pthread_mutex_unlock(&e->lock);
        return ecode(err, CUZK_ENGINE_CONFLICT, "the workers are not paused: nothing to admit");
    }
    e->admit = n > UINT_MAX - e->admit ? UINT_MAX : e->admit + n;
    elog(e, "workers_admit", "jobs=%u", n);
    pthread_cond_broadcast(&e->work_cv);
    pthread_mutex_unlock(&e->lock);
    return CUZK_OK;
}

void cuzk_engine_drain(cuzk_engine *e, double timeout_s)
{
    if (!e)
        return;
    if (timeout_s < 0)
        timeout_s = e->cfg.drain_timeout_s;
    pthread_mutex_lock(&e->lock);
    if (!e->draining)
        elog(e, "draining", "running=%zu timeout_s=%g", busy_workers(e), timeout_s);
    e->draining = 1;
    pthread_cond_broadcast(&e->work_cv);
    double end = cuzk_now() + timeout_s;
    while (busy_workers(e) && cuzk_now() < end)
        cond_wait_s(&e->change_cv, &e->lock, end - cuzk_now() < 0.5 ? end - cuzk_now() : 0.5);
    if (busy_workers(e)) {
        for (size_t i = 0; i < e->n_workers; i++)
            if (e->workers[i].busy) {
                e->workers[i].stop = STOP_DRAIN;
                atomic_store(&e->workers[i].prog.cancel, 1);
            }
        pthread_cond_broadcast(&e->work_cv); /* held jobs */
        while (busy_workers(e))
            pthread_cond_wait(&e->change_cv, &e->lock);
    }
    e->drained = 1;
    pthread_mutex_unlock(&e->lock);
}

void cuzk_engine_close(cuzk_engine *e)
{
    if (!e)
        return;
    if (!e->drained)
        cuzk_engine_drain(e, -1);
    stop_threads(e);
    cuzk_error err = {0};
    if (journal_sync(e, journal_mark(e), &err))
        elog(e, "journal_error", "op=sync error=\"%s\"", err.msg);
    elog(e, "engine_stopped", "completed=%llu", (unsigned long long)e->counters.completed);
    engine_free(e);
}

/* ---- keys API -------------------------------------------------------------- */

cuzk_status cuzk_engine_key_register(cuzk_engine *e, const char *zkey_path, int load,
                                     cuzk_engine_key_info *out, cuzk_error *err)
{
    eng_kentry *k = NULL;
    cuzk_status st = key_identify(e, zkey_path, &k, err);
    if (st)
        return st;
    /* Loaded where the workers prove: the host, or every GPU in use. */
    for (int i = 0; load && i < (e->n_devices ? e->n_devices : 1); i++) {
        int slot = e->n_devices ? e->devices[i] + 1 : 0;
        pthread_mutex_lock(&e->lock);
        if (!fits(e, k, slot, key_need(k, slot))) {
            pthread_mutex_unlock(&e->lock);
            return ecode(err, CUZK_ENGINE_BUSY,
                         "%s: no room to load the key (%llu bytes) within the memory budget now",
                         zkey_path, (unsigned long long)key_need(k, slot));
        }
        make_room(e, k, slot, key_need(k, slot));
        k->slot[slot].users++; /* pinned while loading */
        pthread_mutex_unlock(&e->lock);
        eng_progress prog = {0};
        eng_worker_ctx *wctx = NULL;
        st = eng_worker_ctx_create(&wctx, e->backend, &prog, err);
        if (!st)
            st = key_acquire_loaded(e, k, slot, wctx, err);
        eng_worker_ctx_free(wctx);
        pthread_mutex_lock(&e->lock);
        k->slot[slot].users--;
        k->slot[slot].last_used_ms = now_ms();
        pthread_cond_broadcast(&e->work_cv);
        pthread_mutex_unlock(&e->lock);
        if (st)
            return st;
    }
    pthread_mutex_lock(&e->lock);
    if (out)
        key_info_fill(e, k, out);
    pthread_mutex_unlock(&e->lock);
    return CUZK_OK;
}

cuzk_status cuzk_engine_key_get(cuzk_engine *e, const char *key_id, cuzk_engine_key_info *out,
                                cuzk_error *err)
{
    pthread_mutex_lock(&e->lock);
    eng_kentry *k = key_id ? key_find(e, key_id) : NULL;
    if (k)
        key_info_fill(e, k, out);
    pthread_mutex_unlock(&e->lock);
    return k ? CUZK_OK : ecode(err, CUZK_ENGINE_NOT_FOUND, "key %.80s: no such key", key_id ? key_id : "");
}

cuzk_status cuzk_engine_key_list(cuzk_engine *e, cuzk_engine_key_info **out, size_t *n,
                                 cuzk_error *err)
{
    pthread_mutex_lock(&e->lock);
    *n = e->n_keys;
    *out = calloc(e->n_keys ? e->n_keys : 1, sizeof **out);
    if (*out)
        for (size_t i = 0; i < e->n_keys; i++)
            key_info_fill(e, e->keys[i], &(*out)[i]);
    pthread_mutex_unlock(&e->lock);
    if (!*out) {
        *n = 0;
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "keys: out of memory");
    }
    return CUZK_OK;
}

cuzk_status cuzk_engine_key_evict(cuzk_engine *e, const char *key_id, cuzk_error *err)
{
    pthread_mutex_lock(&e->lock);
    eng_kentry *k = key_id ? key_find(e, key_id) : NULL;
    cuzk_status st = CUZK_OK;
    if (!k)
        st = ecode(err, CUZK_ENGINE_NOT_FOUND, "key %.80s: no such key", key_id ? key_id : "");
    else if (key_users(k))
        st = ecode(err, CUZK_ENGINE_CONFLICT, "key %s: in use by %d job(s)", k->id, key_users(k));
    else {
        for (int s = 0; s < ENG_SLOTS; s++)
            if (k->slot[s].state == KEY_RESIDENT)
                key_unload(e, k, s, "request");
        pthread_cond_broadcast(&e->work_cv);
    }
    pthread_mutex_unlock(&e->lock);
    return st;
}

/* ---- jobs API -------------------------------------------------------------- */

/* pos: the queued job's position when known already, else NULL (a query). */
static void job_info_fill_at(cuzk_engine *e, const eng_job *j, cuzk_job_info *o, const uint64_t *known)
{
    memset(o, 0, sizeof *o);
    memcpy(o->id, j->id, sizeof o->id);
    memcpy(o->key_id, j->key_id, sizeof o->key_id);
    o->state = (cuzk_job_state)j->state;
    o->priority = (cuzk_priority)j->priority;
    o->worker = j->worker;
    o->device = j->device;
    o->attempt = j->attempt;
    o->submitted_ms = j->enqueued_ms;
    o->started_ms = j->state == CUZK_JOB_QUEUED ? 0 : j->started_ms;
    o->finished_ms = j->finished_ms;
    if (o->started_ms)
        o->queue_wait_s = 1e-3 * (double)(o->started_ms - o->submitted_ms);
    if (o->started_ms && o->finished_ms)
        o->prove_s = 1e-3 * (double)(o->finished_ms - o->started_ms);
    o->error_code = (cuzk_status)j->error_code;
    snprintf(o->error, sizeof o->error, "%s", j->error);
    o->cancel_requested = j->cancel_requested;
    o->host_bytes = j->host_bytes;
    o->seq = j->seq;
    if (j->state == CUZK_JOB_QUEUED) {
        uint64_t pos = 0;
        cuzk_error err = {0};
        if (known) {
            o->queue_position = *known;
        } else {
            pthread_mutex_lock(&e->dblock);
            if (!e->q->ops->position(e->q, j, &pos, &err))
                o->queue_position = pos;
            pthread_mutex_unlock(&e->dblock);
        }
        o->worker = o->device = -1;
    } else if (j->state == CUZK_JOB_RUNNING) {
        pthread_mutex_lock(&e->lock);
        for (size_t i = 0; i < e->n_workers; i++) {
            eng_worker *w = &e->workers[i];
            if (w->busy && !strcmp(w->job_id, j->id)) {
                const char *ph = atomic_load(&w->prog.phase);
                snprintf(o->phase, sizeof o->phase, "%s", ph ? ph : "");
                o->progress = atomic_load(&w->prog.fraction);
            }
        }
        pthread_mutex_unlock(&e->lock);
    }
}

static void job_info_fill(cuzk_engine *e, const eng_job *j, cuzk_job_info *o)
{
    job_info_fill_at(e, j, o, NULL);
}

static cuzk_status read_all(const char *path, uint8_t **data, size_t *len, cuzk_error *err)
{
    *data = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block */
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb)) {
        int en = errno;
        if (fd >= 0)
            close(fd);
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", path, strerror(en));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: not a regular file", path);
    }
    size_t cap = (size_t)sb.st_size;
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf) {
        close(fd);
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    }
    size_t got = 0;
    while (got < cap) {
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    *data = buf;
    *len = got;
    return CUZK_OK;
}

static void req_hash(const char *key_id, int prio, const void *w, size_t len, uint8_t out[32])
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    uint8_t p = (uint8_t)prio;
    unsigned dl = 0;
    if (!md || !EVP_DigestInit_ex(md, EVP_sha256(), NULL) ||
        !EVP_DigestUpdate(md, key_id, strlen(key_id)) || !EVP_DigestUpdate(md, &p, 1) ||
        !EVP_DigestUpdate(md, w, len) || !EVP_DigestFinal_ex(md, out, &dl))
        memset(out, 0, 32);
    EVP_MD_CTX_free(md);
}

/* An idempotency key seen before: the same request gets the same job. */
static cuzk_status idem_answer(cuzk_engine *e, const eng_job *have, const uint8_t hash[32],
                               cuzk_job_info *out, int *existed, cuzk_error *err)
{
    if (memcmp(have->req_sha256, hash, 32))
        return ecode(err, CUZK_ENGINE_CONFLICT,
                     "idempotency key \"%.100s\" was used for a different request (job %s)",
                     have->idem_key, have->id);
    if (existed)
        *existed = 1;
    pthread_mutex_lock(&e->lock);
    e->counters.deduplicated++;
    pthread_mutex_unlock(&e->lock);
    job_info_fill(e, have, out);
    return CUZK_OK;
}

static cuzk_status invalid(cuzk_engine *e, cuzk_status st)
{
    pthread_mutex_lock(&e->lock);
    e->counters.rejected_invalid++;
    pthread_mutex_unlock(&e->lock);
    return st;
}

cuzk_status cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *req, cuzk_job_info *out,
                               int *existed, cuzk_error *err)
{
    if (existed)
        *existed = 0;
    memset(out, 0, sizeof *out);
    if (req->priority < CUZK_PRIO_CRITICAL || req->priority > CUZK_PRIO_LOW)
        return invalid(e, ecode(err, CUZK_ERR_USAGE, "priority %d: not one of critical, high, normal, low",
                                (int)req->priority));
    if (req->idempotency_key && strlen(req->idempotency_key) > CUZK_IDEM_KEY_MAX)
        return invalid(e, ecode(err, CUZK_ERR_USAGE, "idempotency key longer than %d bytes",
                                CUZK_IDEM_KEY_MAX));
    if (!req->witness && !req->witness_path)
        return invalid(e, ecode(err, CUZK_ERR_USAGE, "submit: no witness (body or path)"));
    pthread_mutex_lock(&e->lock);
    int draining = e->draining;
    pthread_mutex_unlock(&e->lock);
    if (draining)
        return ecode(err, CUZK_ENGINE_DRAINING, "shutting down: not accepting jobs");

    /* The key. */
    eng_kentry *k = NULL;
    cuzk_status st;
    char key_id[CUZK_KEY_ID_LEN + 1], key_path[CUZK_CFG_STR_MAX];
    eng_key_meta meta;
    if (req->key_id && req->key_id[0]) {
        pthread_mutex_lock(&e->lock);
        k = key_find(e, req->key_id);
        pthread_mutex_unlock(&e->lock);
        if (!k)
            return invalid(e, ecode(err, CUZK_ENGINE_NOT_FOUND, "key %.80s: no such key",
                                    req->key_id));
    } else if (req->key_path && req->key_path[0]) {
        if ((st = key_identify(e, req->key_path, &k, err)))
            return invalid(e, st);
    } else {
        return invalid(e, ecode(err, CUZK_ERR_USAGE, "submit: no key (id or path)"));
    }
    pthread_mutex_lock(&e->lock);
    memcpy(key_id, k->id, sizeof key_id);
    memcpy(key_path, k->path, sizeof key_path);
    meta = k->meta;
    uint64_t key_bytes = key_estimate(k), plan_job = k->plan.host_job;
    int device_fits = !e->n_devices || key_fits_a_device(e, k);
    char device_why[CUZK_ERROR_MSG_MAX];
    snprintf(device_why, sizeof device_why, "%s", k->plan.why);
    pthread_mutex_unlock(&e->lock);
    if (!device_fits)
        return invalid(e, ecode(err, CUZK_ENGINE_TOO_LARGE, "%s: the key fits no GPU's memory budget: %s",
                                key_path, device_why));

    /* The witness: read, checked against the key, hashed. */
    uint8_t *owned = NULL;
    const void *wd = req->witness;
    size_t wl = req->witness_len;
    const char *wname = req->witness_path ? req->witness_path : "witness";
    if (!wd) {
        if ((st = read_all(req->witness_path, &owned, &wl, err)))
            return invalid(e, st);
        wd = owned;
    }
    if ((st = eng_witness_check(wd, wl, wname, &meta, err))) {
        free(owned);
        return invalid(e, st);
    }
    /* the host plan's figure for one proof (the older estimate without one) */
    uint64_t host_bytes = plan_job ? plan_job : eng_job_host_bytes(&meta, wl);
    if (host_bytes + key_bytes > e->host_budget) {
        free(owned);
        return invalid(e, ecode(err, CUZK_ENGINE_TOO_LARGE,
                                "%s: the job needs about %llu bytes with its key, more than the "
                                "memory budget (%llu)",
                                wname, (unsigned long long)(host_bytes + key_bytes),
                                (unsigned long long)e->host_budget));
    }
    eng_job j;
    memset(&j, 0, sizeof j);
    req_hash(key_id, req->priority, wd, wl, j.req_sha256);
    if (req->idempotency_key && req->idempotency_key[0]) {
        snprintf(j.idem_key, sizeof j.idem_key, "%s", req->idempotency_key);
        eng_job have;
        int found = 0;
        pthread_mutex_lock(&e->dblock);
        st = e->q->ops->by_idem(e->q, j.idem_key, &have, &found, err);
        uint64_t mark = e->submit_mark > e->end_mark ? e->submit_mark : e->end_mark;
        pthread_mutex_unlock(&e->dblock);
        if (!st && found) /* that job may still be on its way to the disk */
            st = journal_sync(e, mark, err);
        if (st || found) {
            free(owned);
            return st ? st : idem_answer(e, &have, j.req_sha256, out, existed, err);
        }
    }

    /* Back-pressure: refuse rather than queue without bound. */
    pthread_mutex_lock(&e->lock);
    if (e->active_jobs >= (uint64_t)e->cfg.max_queued ||
        e->spool_bytes + wl > e->cfg.max_spool_bytes) {
        e->counters.rejected_busy++;
        int full_jobs = e->active_jobs >= (uint64_t)e->cfg.max_queued;
        pthread_mutex_unlock(&e->lock);
        free(owned);
        return ecode(err, CUZK_ENGINE_BUSY, "queue full (%s): retry later",
                     full_jobs ? "max_queued jobs" : "max_spool_bytes of witnesses");
    }
    e->active_jobs++;
    e->spool_bytes += wl;
    pthread_mutex_unlock(&e->lock);

    uuid4(j.id);
    memcpy(j.key_id, key_id, sizeof j.key_id);
    memcpy(j.key_path, key_path, sizeof j.key_path);
    j.priority = req->priority;
    j.enqueued_ms = now_ms();
    j.max_attempts = e->cfg.max_attempts;
    /* Small witnesses go into the journal with the job (one fsync); larger
     * ones to a spool file (its fsyncs, then the journal's). A queue shared
     * by several hosts holds every witness, so that any host can run it. */
    int inline_body = wl <= ENG_INLINE_MAX || e->q->ops->shared;
    if (!inline_body)
        snprintf(j.input, sizeof j.input, "%s.wtns", j.id);
    j.input_bytes = wl;
    j.host_bytes = host_bytes;
    j.worker = j.device = -1;
    st = inline_body ? CUZK_OK : write_durable(e->spool, j.input, wd, wl, err);
    eng_job saved;
    int dup = 0;
    if (!st) {
        pthread_mutex_lock(&e->dblock);
        st = e->q->ops->submit(e->q, &j, inline_body ? wd : NULL, wl, &saved, &dup, err);
        uint64_t mark = journal_mark(e);
        if (!st && !dup)
            e->submit_mark = mark;
        else
            mark = e->submit_mark > e->end_mark ? e->submit_mark : e->end_mark;
        pthread_mutex_unlock(&e->dblock);
        /* Journaled before acknowledged: concurrent submits share the flush. */
        if (!st && (st = journal_sync(e, mark, err)) && !dup) {
            eng_job gone;
            int dq = 0;
            cuzk_error cerr = {0};
            pthread_mutex_lock(&e->dblock); /* not acknowledged: do not run it */
            e->q->ops->cancel(e->q, j.id, now_ms(), &gone, &dq, &cerr);
            pthread_mutex_unlock(&e->dblock);
        }
    }
    free(owned);
    if (st || dup) {
        spool_remove(e, &j);
        pthread_mutex_lock(&e->lock);
        active_sub(e, wl);
        pthread_mutex_unlock(&e->lock);
        return st ? st : idem_answer(e, &saved, j.req_sha256, out, existed, err);
    }
    char qk[2 * CUZK_IDEM_KEY_MAX + 3];
    pthread_mutex_lock(&e->lock);
    e->counters.submitted++;
    pthread_cond_broadcast(&e->work_cv);
    elog(e, "job_submitted", "job=%s key=%s priority=%s bytes=%zu%s%s", j.id, key_id,
         PRIO[j.priority], wl, j.idem_key[0] ? " idempotency_key=" : "",
         j.idem_key[0] ? logq(qk, sizeof qk, j.idem_key) : "");
    pthread_mutex_unlock(&e->lock);
    job_info_fill(e, &saved, out);
    return CUZK_OK;
}

cuzk_status cuzk_engine_job_get(cuzk_engine *e, const char *job_id, cuzk_job_info *out,
                                cuzk_error *err)
{
    eng_job j;
    if (!job_id || strlen(job_id) != CUZK_JOB_ID_LEN)
        return ecode(err, CUZK_ENGINE_NOT_FOUND, "job %.80s: no such job", job_id ? job_id : "");
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = e->q->ops->get(e->q, job_id, &j, err);
    uint64_t mark = e->end_mark;
    pthread_mutex_unlock(&e->dblock);
    /* An end (and its proof) is reported only once a crash cannot take it
     * back; queued / running may still change, durable or not. */
    if (!st && cuzk_job_state_terminal((cuzk_job_state)j.state))
        st = journal_sync(e, mark, err);
    if (!st)
        job_info_fill(e, &j, out);
    return st;
}

cuzk_status cuzk_engine_job_wait(cuzk_engine *e, const char *job_id, double timeout_s,
                                 cuzk_job_info *out, cuzk_error *err)
{
    double end = cuzk_now() + (timeout_s > 0 ? timeout_s : 0);
    for (;;) {
        cuzk_status st = cuzk_engine_job_get(e, job_id, out, err);
        if (st || cuzk_job_state_terminal(out->state))
            return st;
        double left = end - cuzk_now();
        if (left <= 0)
            return CUZK_OK;
        /* Another host may end the job: a shared queue is polled sooner. */
        double step = e->q->ops->shared ? ENG_QUEUE_POLL_S : 1;
        pthread_mutex_lock(&e->lock);
        if (!e->stopping)
            cond_wait_s(&e->change_cv, &e->lock, left < step ? left : step);
        int stopping = e->stopping;
        pthread_mutex_unlock(&e->lock);
        if (stopping)
            return cuzk_engine_job_get(e, job_id, out, err);
    }
}

cuzk_status cuzk_engine_job_result(cuzk_engine *e, const char *job_id, char **proof_json,
                                   char **public_json, cuzk_error *err)
{
    *proof_json = *public_json = NULL;
    cuzk_job_info info;
    cuzk_status st = cuzk_engine_job_get(e, job_id, &info, err);
    if (st)
        return st;
    if (info.state != CUZK_JOB_DONE)
        return ecode(err, CUZK_ENGINE_CONFLICT, "job %s is %s, not done", job_id,
                     cuzk_job_state_name(info.state));
    pthread_mutex_lock(&e->dblock);
    st = e->q->ops->result(e->q, job_id, proof_json, public_json, err);
    pthread_mutex_unlock(&e->dblock);
    return st;
}

cuzk_status cuzk_engine_job_cancel(cuzk_engine *e, const char *job_id, cuzk_job_info *out,
                                   cuzk_error *err)
{
    eng_job j;
    int dequeued = 0;
    if (!job_id || strlen(job_id) != CUZK_JOB_ID_LEN)
        return ecode(err, CUZK_ENGINE_NOT_FOUND, "job %.80s: no such job", job_id ? job_id : "");
    pthread_mutex_lock(&e->lock);
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = e->q->ops->cancel(e->q, job_id, now_ms(), &j, &dequeued, err);
    uint64_t mark = journal_mark(e);
    if (!st && dequeued)
        e->end_mark = mark;
    pthread_mutex_unlock(&e->dblock);
    if (!st && dequeued) {
        active_sub(e, j.input_bytes);
        e->counters.cancelled++;
        elog(e, "job_cancelled", "job=%s running=0", j.id);
        pthread_cond_broadcast(&e->change_cv);
        pthread_cond_broadcast(&e->work_cv);
    } else if (!st && j.state == CUZK_JOB_RUNNING) {
        for (size_t i = 0; i < e->n_workers; i++) {
            eng_worker *w = &e->workers[i];
            if (w->busy && !strcmp(w->job_id, j.id) && w->stop == STOP_NONE) {
                w->stop = STOP_CANCEL;
                atomic_store(&w->prog.cancel, 1);
                elog(e, "job_cancel_requested", "job=%s worker=%d", j.id, w->index);
            }
        }
        pthread_cond_broadcast(&e->work_cv); /* a job held by a pause */
    }
    pthread_mutex_unlock(&e->lock);
    if (!st)
        st = journal_sync(e, mark, err);
    if (!st && dequeued)
        spool_remove(e, &j);
    if (!st && out)
        job_info_fill(e, &j, out);
    return st;
}

cuzk_status cuzk_engine_job_list(cuzk_engine *e, const cuzk_job_filter *filter,
                                 cuzk_job_info **out, size_t *n, cuzk_error *err)
{
    int state = filter ? filter->state : -1;
    size_t limit = filter && filter->limit ? filter->limit : 1000;
    eng_job *v = NULL;
    size_t len = 0;
    *out = NULL;
    *n = 0;
    uint64_t *pos = NULL;
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = e->q->ops->list(e->q, state, filter ? filter->before : 0, limit, &v, &len, err);
    if (!st && !(pos = malloc((len ? len : 1) * sizeof *pos)))
        st = cuzk_err_force(err, CUZK_ERR_NOMEM, "jobs: out of memory");
    if (!st)
        st = e->q->ops->positions(e->q, v, len, pos, err); /* one walk for the page */
    uint64_t mark = e->submit_mark > e->end_mark ? e->submit_mark : e->end_mark;
    pthread_mutex_unlock(&e->dblock);
    if (!st)
        st = journal_sync(e, mark, err);
    if (st) {
        free(v);
        free(pos);
        return st;
    }
    *out = calloc(len ? len : 1, sizeof **out);
    if (!*out) {
        free(v);
        free(pos);
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "jobs: out of memory");
    }
    for (size_t i = 0; i < len; i++)
        job_info_fill_at(e, &v[i], &(*out)[i], &pos[i]);
    free(pos);
    *n = len;
    free(v);
    return CUZK_OK;
}

/* ---- status ---------------------------------------------------------------- */

cuzk_status cuzk_engine_snapshot_get(cuzk_engine *e, cuzk_engine_snapshot **out, cuzk_error *err)
{
    cuzk_engine_snapshot *s = calloc(1, sizeof *s);
    if (!s)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "status: out of memory");
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = e->q->ops->stats(e->q, s->queued, &s->running, &s->spool_bytes, err);
    pthread_mutex_unlock(&e->dblock);
    if (st) {
        free(s);
        return st;
    }
    pthread_mutex_lock(&e->lock);
    s->uptime_s = cuzk_now() - e->start_mono;
    s->pid = (int)getpid();
    s->draining = e->draining;
    s->paused = e->paused;
    s->admit = e->admit;
    snprintf(s->host_id, sizeof s->host_id, "%s", e->host_id);
    s->host_budget = e->host_budget;
    s->host_used = e->jobs_reserved + keys_resident_bytes(e);
    s->counters = e->counters;
    s->counters.journal_flushes = e->q->ops->flushes(e->q);
    s->workers = calloc(e->n_workers ? e->n_workers : 1, sizeof *s->workers);
    s->keys = calloc(e->n_keys ? e->n_keys : 1, sizeof *s->keys);
    s->timeline = calloc(e->tl_n ? e->tl_n : 1, sizeof *s->timeline);
    s->phases = calloc(e->n_phases ? e->n_phases : 1, sizeof *s->phases);
    s->devices = calloc(e->n_devices ? (size_t)e->n_devices : 1, sizeof *s->devices);
    if (s->workers && s->keys && s->timeline && s->phases && s->devices) {
        s->n_workers = e->n_workers;
        for (size_t i = 0; i < e->n_workers; i++) {
            const eng_worker *w = &e->workers[i];
            cuzk_worker_info *o = &s->workers[i];
            o->index = w->index;
            o->device = w->device;
            if (w->busy) {
                memcpy(o->job_id, w->job_id, sizeof o->job_id);
                const char *ph = atomic_load(&w->prog.phase);
                snprintf(o->phase, sizeof o->phase, "%s", ph ? ph : "");
                o->progress = atomic_load(&w->prog.fraction);
            }
            o->jobs_done = w->jobs_done;
            o->busy_s = w->busy_s;
        }
        s->n_keys = e->n_keys;
        for (size_t i = 0; i < e->n_keys; i++)
            key_info_fill(e, e->keys[i], &s->keys[i]);
        s->n_timeline = e->tl_n;
        size_t first = (e->tl_next + CUZK_TIMELINE_MAX - e->tl_n) % CUZK_TIMELINE_MAX;
        for (size_t i = 0; i < e->tl_n; i++)
            s->timeline[i] = e->timeline[(first + i) % CUZK_TIMELINE_MAX];
        s->n_phases = e->n_phases;
        memcpy(s->phases, e->phases, e->n_phases * sizeof *s->phases);
        s->n_devices = (size_t)e->n_devices;
        for (int i = 0; i < e->n_devices; i++) {
            s->devices[i] = e->device_info[i];
            /* what the keys resident there planned for (the driver's free
             * memory is the GPU backend's to read) */
            uint64_t used = 0;
            for (size_t k = 0; k < e->n_keys; k++)
                used += e->keys[k]->slot[e->devices[i] + 1].device_bytes;
            s->devices[i].memory_free = used < s->devices[i].memory_budget
                                            ? s->devices[i].memory_budget - used
                                            : 0;
        }
    } else {
        st = cuzk_err_force(err, CUZK_ERR_NOMEM, "status: out of memory");
    }
    pthread_mutex_unlock(&e->lock);
    if (st) {
        cuzk_engine_snapshot_free(s);
        return st;
    }
    *out = s;
    return CUZK_OK;
}

void cuzk_engine_snapshot_free(cuzk_engine_snapshot *s)
{
    if (!s)
        return;
    free(s->workers);
    free(s->devices);
    free(s->keys);
    free(s->timeline);
    free(s->phases);
    free(s);
}
