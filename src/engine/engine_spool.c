/* DESIGN — durability of what the engine is given: the spool.
 *
 * A witness larger than ENG_INLINE_MAX (on one host) goes to a spool file,
 * <state_dir>/spool/<job id>.wtns, written under a temporary name, fsynced,
 * renamed and its directory fsynced (write_durable) before the job that
 * names it is journaled, so an acknowledged job never lacks its witness.
 * Smaller witnesses (and every witness of a shared queue) live in the queue
 * with their job. A spool file is removed once its job's end is durable in
 * the queue (spool_remove_durable); at start, files no queued or running job
 * names are swept (a crash between the two writes). Full disk -> NO_SPACE,
 * failing storage -> UNAVAILABLE (store_code): server faults, never the
 * client's. The queue's own group commit is queue.h's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
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

void spool_remove(cuzk_engine *e, const eng_job *j)
{
    char sha[65], host[256];
    const char *url;
    if (!j->input[0]) /* stored in the queue: deleted with the job's end */
        return;
    if (blob_ref_parse(j->input, sha, host, sizeof host, &url))
        return; /* a blob: its owner's sweep removes it once no live job names it */
    char p[CUZK_CFG_STR_MAX + 512];
    spool_path(e, j->input, p, sizeof p);
    unlink(p);
}


/* A job's spool file goes only once its end is durable: a power loss
 * before the flush would bring the job back without its witness. */
void spool_remove_durable(cuzk_engine *e, const eng_job *j, uint64_t mark)
{
    cuzk_error err = {0};
    if (!j->input[0])
        return;
    if (journal_sync(e, mark, &err))
        elog(e, "journal_error", "op=sync job=%s error=\"%s\"", j->id, err.msg);
    else
        spool_remove(e, j);
}

/* Removes spool files no queued / running job refers to (a crash between
 * writing the witness and journaling the job, or after a job ended). */
void spool_sweep(cuzk_engine *e)
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
            keep = !strcmp(live[i], de->d_name) ||
                   (!strncmp(live[i], "blob:", 5) && strlen(de->d_name) == 69 &&
                    !strncmp(live[i] + 5, de->d_name, 64) && !strcmp(de->d_name + 64, ".wtns"));
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
