/* DESIGN — durability of what the engine is given: the spool.
 *
 * A witness larger than ENG_INLINE_MAX (on one host) goes to a spool file,
 * <state_dir>/spool/<job id>.wtns (the job names it spool:<sha256>: the
 * queue holds content ids, never this host's file names), written under a
 * temporary name, fsynced, renamed and its directory fsynced
 * (write_durable) before the job that names it is journaled, so an acknowledged job never lacks its witness.
 * A witness streamed in (a request body as it arrives) is written to
 * spool/.upload-XXXXXX and hashed as it comes (cuzk_engine_upload); its
 * submission fsyncs and renames that file: memory holds only what is in
 * flight, never the body.
 * Smaller witnesses (and every witness of a shared queue) live in the queue
 * with their job. A spool file is removed once its job's end is durable in
 * the queue (spool_remove_durable); at start, files no queued or running job
 * names are swept (a crash between the two writes). Full disk -> NO_SPACE,
 * failing storage -> UNAVAILABLE (store_code): server faults, never the
 * client's. The queue's own group commit is queue.h's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine_internal.h"

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
int store_code(int en)
{
    return en == ENOSPC || en == EDQUOT ? CUZK_ENGINE_NO_SPACE : CUZK_ENGINE_UNAVAILABLE;
}

/* Writes data to dir/name durably (temporary name, fsync, rename, fsync dir). */
cuzk_status write_durable(const char *dir, const char *name, const void *data, size_t len,
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

void spool_path(const cuzk_engine *e, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", e->spool, name);
}

void spool_file(const eng_job *j, char *out, size_t cap)
{
    snprintf(out, cap, "%s.wtns", j->id);
}

/* Only a spool: witness is this host's file of the job; one in the queue
 * goes with the job's end, a blob with its owner's sweep once no live job
 * names it. */
void spool_remove(cuzk_engine *e, const eng_job *j)
{
    char sha[65], name[CUZK_JOB_ID_LEN + 8], p[CUZK_CFG_STR_MAX + 512];
    if (witness_ref_kind(j->witness, sha) != WREF_SPOOL)
        return;
    spool_file(j, name, sizeof name);
    spool_path(e, name, p, sizeof p);
    unlink(p);
}


/* A job's spool file goes only once its end is durable: a power loss
 * before the flush would bring the job back without its witness. */
void spool_remove_durable(cuzk_engine *e, const eng_job *j, uint64_t mark)
{
    cuzk_error err = {0};
    char sha[65];
    if (witness_ref_kind(j->witness, sha) != WREF_SPOOL)
        return;
    if (journal_sync(e, mark, &err))
        elog(e, "journal_error", "op=sync job=%s error=\"%s\"", j->id, err.msg);
    else
        spool_remove(e, j);
}

/* Removes spool files no queued / running job refers to (a crash between
 * writing the witness and journaling the job, or after a job ended): a
 * spool: job keeps <id>.wtns, a blob: job its <sha256>.wtns. */
void spool_sweep(cuzk_engine *e)
{
    eng_live_input *live = NULL;
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
        for (size_t i = 0; i < n && !keep; i++) {
            char sha[65], name[CUZK_JOB_ID_LEN + 8];
            int kind = witness_ref_kind(live[i].witness, sha);
            if (kind == WREF_SPOOL) {
                snprintf(name, sizeof name, "%s.wtns", live[i].id);
                keep = !strcmp(name, de->d_name);
            } else if (kind == WREF_BLOB) {
                keep = strlen(de->d_name) == 69 && !strncmp(sha, de->d_name, 64) &&
                       !strcmp(de->d_name + 64, ".wtns");
            }
        }
        if (!keep) {
            char p[CUZK_CFG_STR_MAX + 512];
            spool_path(e, de->d_name, p, sizeof p);
            removed += unlink(p) == 0;
        }
    }
    if (d)
        closedir(d);
    free(live);
    if (removed)
        elog(e, "spool_swept", "removed=%zu", removed);
}

/* ---- uploads ---------------------------------------------------------------- */

struct cuzk_engine_upload {
    cuzk_engine *e;
    int fd;
    int taken, hashed;
    uint64_t bytes;
    EVP_MD_CTX *md;
    uint8_t digest[32];
    char path[CUZK_CFG_STR_MAX + 64];
};

cuzk_status cuzk_engine_upload_open(cuzk_engine *e, uint64_t expect_bytes, cuzk_engine_upload **out,
                                    cuzk_error *err)
{
    *out = NULL;
    pthread_mutex_lock(&e->lock);
    uint64_t uploading = __atomic_load_n(&e->upload_bytes, __ATOMIC_RELAXED);
    int full = e->spool_bytes + uploading + expect_bytes > e->cfg.max_spool_bytes;
    if (full)
        e->counters.rejected_busy++;
    pthread_mutex_unlock(&e->lock);
    if (full)
        return ecode(err, CUZK_ENGINE_BUSY, "queue full (max_spool_bytes of witnesses): retry later");
    cuzk_engine_upload *u = calloc(1, sizeof *u);
    if (!u || !(u->md = EVP_MD_CTX_new()) || !EVP_DigestInit_ex(u->md, EVP_sha256(), NULL)) {
        if (u)
            EVP_MD_CTX_free(u->md);
        free(u);
        return ecode(err, CUZK_ERR_NOMEM, "out of memory for an upload");
    }
    u->e = e;
    snprintf(u->path, sizeof u->path, "%s/.upload-XXXXXX", e->spool);
    u->fd = mkostemp(u->path, O_CLOEXEC); /* mode 0600 */
    if (u->fd < 0) {
        int en = errno;
        EVP_MD_CTX_free(u->md);
        free(u);
        return ecode(err, store_code(en), "witness spool (%s): %s", e->spool, strerror(en));
    }
    *out = u;
    return CUZK_OK;
}

cuzk_status cuzk_engine_upload_write(cuzk_engine_upload *u, const void *data, size_t n, cuzk_error *err)
{
    const uint8_t *p = data;
    size_t left = n;
    while (left) {
        ssize_t w = write(u->fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int en = w < 0 ? errno : EIO;
            return ecode(err, store_code(en), "witness spool (%s): %s", u->e->spool, strerror(en));
        }
        p += w;
        left -= (size_t)w;
    }
    EVP_DigestUpdate(u->md, data, n);
    u->bytes += n;
    __atomic_add_fetch(&u->e->upload_bytes, n, __ATOMIC_RELAXED);
    return CUZK_OK;
}

uint64_t cuzk_engine_upload_bytes(const cuzk_engine_upload *u) { return u->bytes; }

const char *upload_path(const cuzk_engine_upload *u) { return u->path; }

void upload_digest(cuzk_engine_upload *u, uint8_t out[32])
{
    if (!u->hashed) {
        unsigned dl = 0;
        if (!EVP_DigestFinal_ex(u->md, u->digest, &dl))
            memset(u->digest, 0, sizeof u->digest);
        u->hashed = 1;
    }
    memcpy(out, u->digest, 32);
}

cuzk_status upload_commit(cuzk_engine_upload *u, const char *dir, const char *name, cuzk_error *err)
{
    char dst[CUZK_CFG_STR_MAX + 512];
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    if (fsync(u->fd) || rename(u->path, dst) || fsync_dir(dir)) {
        int en = errno;
        unlink(dst);
        return ecode(err, store_code(en), "%s: %s", dst, strerror(en));
    }
    u->taken = 1;
    return CUZK_OK;
}

/* Copies the upload to dir/.name.tmp, fsynced (another file system). */
static cuzk_status upload_copy(cuzk_engine_upload *u, const char *tmp, cuzk_error *err)
{
    enum { CHUNK = 1 << 20 };
    uint8_t *buf = malloc(CHUNK);
    if (!buf)
        return ecode(err, CUZK_ERR_NOMEM, "out of memory copying %s", u->path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int en = fd < 0 ? errno : 0;
    const char *bad = tmp;
    for (uint64_t off = 0; !en && off < u->bytes;) {
        size_t want = u->bytes - off < CHUNK ? (size_t)(u->bytes - off) : CHUNK;
        ssize_t n = pread(u->fd, buf, want, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            en = n < 0 ? errno : EIO;
            bad = u->path;
            break;
        }
        for (ssize_t w = 0; w < n && !en;) {
            ssize_t m = write(fd, buf + w, (size_t)(n - w));
            if (m < 0 && errno == EINTR)
                continue;
            if (m <= 0)
                en = m < 0 ? errno : EIO;
            else
                w += m;
        }
        off += (uint64_t)n;
    }
    if (!en && fsync(fd))
        en = errno;
    if (fd >= 0 && close(fd) && !en)
        en = errno;
    free(buf);
    if (en) {
        unlink(tmp);
        return ecode(err, store_code(en), "%s: %s", bad, strerror(en));
    }
    return CUZK_OK;
}

cuzk_status upload_commit_blob(cuzk_engine_upload *u, const char *dir, const char *name, cuzk_error *err)
{
    char dst[CUZK_CFG_STR_MAX + 512], tmp[CUZK_CFG_STR_MAX + 512];
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    struct stat sb;
    if (!stat(dst, &sb) && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size == u->bytes)
        return CUZK_OK; /* that blob is there: the upload goes at free */
    if (fsync(u->fd))
        return ecode(err, store_code(errno), "%s: %s", u->path, strerror(errno));
    if (!rename(u->path, dst)) {
        u->taken = 1;
    } else if (errno != EXDEV) {
        return ecode(err, store_code(errno), "%s: %s", dst, strerror(errno));
    } else { /* the blob directory is on another file system */
        snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
        cuzk_status st = upload_copy(u, tmp, err);
        if (st)
            return st;
        if (rename(tmp, dst)) {
            int en = errno;
            unlink(tmp);
            return ecode(err, store_code(en), "%s: %s", dst, strerror(en));
        }
    }
    if (fsync_dir(dir)) {
        int en = errno;
        return ecode(err, store_code(en), "%s: %s", dir, strerror(en));
    }
    return CUZK_OK;
}

cuzk_status upload_read(cuzk_engine_upload *u, uint8_t **data, size_t *len, cuzk_error *err)
{
    *data = malloc(u->bytes ? (size_t)u->bytes : 1);
    if (!*data)
        return ecode(err, CUZK_ERR_NOMEM, "out of memory for a witness of %llu bytes",
                     (unsigned long long)u->bytes);
    for (uint64_t got = 0; got < u->bytes;) {
        ssize_t n = pread(u->fd, *data + got, (size_t)(u->bytes - got), (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int en = n < 0 ? errno : EIO;
            free(*data);
            *data = NULL;
            return ecode(err, store_code(en), "%s: %s", u->path, strerror(en));
        }
        got += (uint64_t)n;
    }
    *len = (size_t)u->bytes;
    return CUZK_OK;
}

void cuzk_engine_upload_free(cuzk_engine_upload *u)
{
    if (!u)
        return;
    close(u->fd);
    if (!u->taken)
        unlink(u->path);
    __atomic_sub_fetch(&u->e->upload_bytes, u->bytes, __ATOMIC_RELAXED);
    EVP_MD_CTX_free(u->md);
    free(u);
}
