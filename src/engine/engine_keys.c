/* DESIGN — the key registry and cache.
 *
 * A key is named by the SHA-256 of its file (its id). The registry (this
 * host's, keyreg.h) remembers path, stat identity and the memory it took,
 * so a restart does not re-hash an unchanged file (key_identify). In memory
 * (e->lock) each key has one entry that never moves (workers hold pointers
 * unlocked) with a slot per place it can be loaded: slot 0 = the host (CPU
 * prover), slot d + 1 = GPU d. A slot is UNLOADED, LOADING (one thread loads
 * it, others wait on change_cv) or RESIDENT, with its users and last use.
 *
 * Memory: a key counts its host plan's figure (devmem.h; else what it took
 * last time, else its file size). fits() says whether a job's need fits the
 * host budget once every idle key (no users) is evicted and, on a GPU, the
 * key's device plan fits beside the keys in use there; make_room() evicts
 * idle keys least recently used first (on a GPU first those its device plan
 * needs gone). A key in use is never evicted. A key file that changed since
 * it was registered is refused at load (MISMATCH), never proved with. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cuzk/gpu.h"
#include "engine/engine_internal.h"

static void hex(char *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
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

/* A key's plan on every GPU in use (devmem.h); no GPU: nothing to plan. */
void key_plan(const cuzk_engine *e, const char *path, eng_kplan *out)
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
    if (!e->n_devices && !eng_hostmem_plan(&shape, 0, 0, 1, 0, 0, &hk, &hj, &err)) {
        out->host_key = hk;
        out->host_job = hj;
    }
    for (int i = 0; i < e->n_devices; i++) {
        cuzk_error perr = {0};
        if (eng_devmem_plan(&shape, e->device_info[i].memory_budget, e->device_sms[i],
                            (unsigned)eng_workers_per_device(e), e->cfg.msm_copies, &out->bytes[i], &perr)) {
            snprintf(out->why, sizeof out->why, "GPU %d: %.400s", e->devices[i], perr.msg);
            continue;
        }
        if (!eng_hostmem_plan(&shape, e->device_info[i].memory_budget, e->device_sms[i],
                              (unsigned)eng_workers_per_device(e), e->cfg.msm_copies, e->cfg.stage_bases ? 1 : 0,
                              &hk, &hj, &perr)) {
            out->host_key = hk > out->host_key ? hk : out->host_key;
            out->host_job = hj > out->host_job ? hj : out->host_job;
        }
    }
}

int key_fits_a_device(const cuzk_engine *e, const eng_kentry *k)
{
    for (int i = 0; i < e->n_devices; i++)
        if (k->plan.bytes[i])
            return 1;
    return 0;
}

/* ---- key cache (e->lock held) ----------------------------------------------- */

eng_kentry *key_find(cuzk_engine *e, const char *id)
{
    for (size_t i = 0; i < e->n_keys; i++)
        if (!strcmp(e->keys[i]->id, id))
            return e->keys[i];
    return NULL;
}

/* Memory a key will take once loaded: what it took last time (remembered in
 * the registry), else its file size. */
uint64_t key_estimate(const eng_kentry *k)
{
    if (k->plan.host_key) /* the host plan (the key mapped: its page cache is not counted) */
        return k->plan.host_key;
    return k->rec.host_bytes ? k->rec.host_bytes : k->meta.file_bytes;
}

uint64_t keys_resident_bytes(const cuzk_engine *e)
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

uint64_t key_need(const eng_kentry *k, int slot)
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
int fits(const cuzk_engine *e, const eng_kentry *k, int slot, uint64_t need)
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
    e->keys_dirty = 1;
    e->counters.keys_evicted++;
    elog(e, "key_evicted", "key=%s device=%d reason=%s", k->id, slot - 1, why);
}

/* Evicts idle keys, least recently used first, until `need` more host
 * bytes fit; on a GPU slot where `keep` is not resident yet, first the idle
 * keys there that its device plan needs gone (devmem.h). */
void make_room(cuzk_engine *e, const eng_kentry *keep, int keep_slot, uint64_t need)
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

void key_info_fill(const cuzk_engine *e, const eng_kentry *k, cuzk_engine_key_info *o)
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

cuzk_status key_add(cuzk_engine *e, const eng_key_rec *rec, const eng_key_meta *meta,
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
static cuzk_status sha256_file(int kfd, const char *path, char out[CUZK_KEY_ID_LEN + 1], cuzk_error *err)
{
    /* The descriptor key_identify opened (no symlink on the way), read from
     * its start (a dup: it shares the offset, which nothing else uses). */
    int fd = dup(kfd);
    if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0) {
        if (fd >= 0)
            close(fd);
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    }
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

/* Opens abs (resolved) with no symbolic link on the way: openat2 with
 * RESOLVE_NO_SYMLINKS, or O_NOFOLLOW on the last component where the
 * kernel lacks it. Never blocks (a FIFO). */
static int open_resolved(const char *abs)
{
    int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
#ifdef SYS_openat2
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)flags;
    how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    int fd = (int)syscall(SYS_openat2, AT_FDCWD, abs, &how, sizeof how);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
        return fd;
#endif
    return open(abs, flags | O_NOFOLLOW);
}

static cuzk_status key_identify_fd(cuzk_engine *e, const char *abs, const char *via, int kfd,
                                   const struct stat *sbp, eng_kentry **out, cuzk_error *err);

/* Identifies (hashing unless the registry knows this exact file) and adds a
 * key; does not load it. */
cuzk_status key_identify(cuzk_engine *e, const char *path, eng_kentry **out,
                                cuzk_error *err)
{
    char abs[PATH_MAX];
    if (!realpath(path, abs))
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    /* Everything below reads the file opened here: abs as resolved, with no
     * symbolic link on the way (a directory swapped for one since is
     * refused), through /proc/self/fd. */
    int kfd = open_resolved(abs);
    if (kfd < 0)
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", path,
                              errno == ELOOP ? "a symbolic link appeared on its path" : strerror(errno));
    struct stat sb;
    if (fstat(kfd, &sb)) {
        int en = errno;
        close(kfd);
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", path, strerror(en));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(kfd);
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: not a regular file", path);
    }
    char via[64];
    snprintf(via, sizeof via, "/proc/self/fd/%d", kfd);
    if (access(via, R_OK)) /* no /proc: by the path */
        snprintf(via, sizeof via, "%.63s", "");
    cuzk_status st = key_identify_fd(e, abs, via[0] ? via : abs, kfd, &sb, out, err);
    close(kfd);
    if (st && via[0]) { /* messages name the path, not the descriptor */
        size_t vl = strlen(via);
        char *at = strstr(err->msg, via);
        if (at && strlen(err->msg) - vl + strlen(abs) < sizeof err->msg) {
            char rest[CUZK_ERROR_MSG_MAX];
            snprintf(rest, sizeof rest, "%s", at + vl);
            snprintf(at, sizeof err->msg - (size_t)(at - err->msg), "%s%s", abs, rest);
        }
    }
    return st;
}

static cuzk_status key_identify_fd(cuzk_engine *e, const char *abs, const char *via, int kfd,
                                   const struct stat *sbp, eng_kentry **out, cuzk_error *err)
{
    struct stat sb = *sbp;
    eng_key_rec rec = {0}, known;
    if (strlen(abs) >= sizeof rec.path)
        return cuzk_err_force(err, CUZK_ERR_USAGE, "%.200s...: path longer than %zu bytes", abs,
                              sizeof rec.path - 1);
    memcpy(rec.path, abs, strlen(abs) + 1);
    rec_stat(&rec, &sb);
    int found = 0;
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = eng_keyreg_by_path(e->reg, abs, &known, &found, err);
    pthread_mutex_unlock(&e->dblock);
    if (st)
        return st;
    eng_key_meta meta;
    eng_kplan plan;
    memset(&plan, 0, sizeof plan);
    if ((st = eng_key_meta_read(via, &meta, err)))
        return st;
    if (found && rec_same_file(&rec, &known)) {
        memcpy(rec.id, known.id, sizeof rec.id);
        rec.host_bytes = known.host_bytes;
    } else {
        if ((st = sha256_file(kfd, abs, rec.id, err)))
            return st;
        pthread_mutex_lock(&e->dblock);
        st = eng_keyreg_put(e->reg, &rec, err);
        pthread_mutex_unlock(&e->dblock);
        if (st)
            return st;
    }
    pthread_mutex_lock(&e->lock);
    int known_key = key_find(e, rec.id) != NULL;
    pthread_mutex_unlock(&e->lock);
    if (!known_key) /* a new entry: its device plans (reads the key's header) */
        key_plan(e, via, &plan);
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
cuzk_status key_acquire_loaded(cuzk_engine *e, eng_kentry *k, int slot,
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
    e->keys_dirty = 1;
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
                          (unsigned)eng_workers_per_device(e), e->cfg.msm_copies, e->cfg.stage_bases ? 1 : 0, &key,
                          &hb, &db, err);
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
        e->keys_dirty = 1;
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
        if (eng_keyreg_put(e->reg, &upd, &rerr))
            elog(e, "journal_error", "op=key_put key=%s error=\"%s\"", upd.id, rerr.msg);
        pthread_mutex_unlock(&e->dblock);
    }
    return st;
}

void keys_publish(cuzk_engine *e)
{
    if (!e->keys_dirty || !e->q->ops->shared || !e->q->ops->publish_keys)
        return;
    const char **ids = calloc(e->n_keys + 1, sizeof *ids);
    size_t n = 0;
    for (size_t i = 0; ids && i < e->n_keys; i++)
        for (int s = 0; s < ENG_SLOTS; s++)
            if (e->keys[i]->slot[s].state != KEY_UNLOADED) {
                ids[n++] = e->keys[i]->id;
                break;
            }
    cuzk_error err = {0};
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = ids ? e->q->ops->publish_keys(e->q, ids, n, &err)
                         : cuzk_err_force(&err, CUZK_ERR_NOMEM, "publish keys: out of memory");
    pthread_mutex_unlock(&e->dblock);
    free(ids);
    if (st)
        elog(e, "journal_error", "op=publish_keys error=\"%s\"", err.msg);
    else
        e->keys_dirty = 0;
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

