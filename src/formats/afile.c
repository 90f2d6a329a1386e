/* Atomic file output: write a temporary file next to the target, fsync it,
 * then rename it over the target. Readers of the target see either the old
 * file or the complete new one, and a failed run leaves nothing behind. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/fmt_internal.h"

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

cuzk_status cuzk_afile_open(cuzk_afile *f, const char *path, cuzk_error *err)
{
    memset(f, 0, sizeof *f);
    size_t n = strlen(path);
    f->path = xstrdup(path);
    f->tmp = malloc(n + 16);
    if (!f->path || !f->tmp) {
        free(f->tmp); /* not created yet: nothing to unlink */
        f->tmp = NULL;
        cuzk_afile_abort(f);
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    }
    /* Same directory (rename must not cross file systems); mkstemp makes the
     * name unique so concurrent writers of one target do not collide. */
    memcpy(f->tmp, path, n);
    memcpy(f->tmp + n, ".tmp.XXXXXX", 12);
    int fd = mkstemp(f->tmp);
    if (fd < 0) {
        int e = errno;
        free(f->tmp);
        f->tmp = NULL;
        cuzk_afile_abort(f);
        return cuzk_err(err, CUZK_ERR_IO, "%s: cannot create: %s", path, strerror(e));
    }
    /* mkstemp creates 0600; output files should get the usual umask mode. */
    mode_t um = umask(0);
    umask(um);
    (void)fchmod(fd, 0666 & ~um);
    FILE *fp = fdopen(fd, "wb");
    if (!fp) {
        int e = errno;
        close(fd);
        cuzk_afile_abort(f);
        return cuzk_err(err, CUZK_ERR_IO, "%s: cannot open for writing: %s", path, strerror(e));
    }
    /* Large buffer: the writers emit many small records. */
    setvbuf(fp, NULL, _IOFBF, 1 << 20);
    f->fp = fp;
    return CUZK_OK;
}

void cuzk_afile_write(cuzk_afile *f, const void *data, size_t len)
{
    if (f->failed || !f->fp || len == 0)
        return;
    if (fwrite(data, 1, len, (FILE *)f->fp) != len)
        f->failed = true;
}

cuzk_status cuzk_afile_sync(cuzk_afile *f, cuzk_error *err)
{
    if (!f->fp) {
        cuzk_afile_abort(f);
        return cuzk_err(err, CUZK_ERR_INTERNAL, "atomic file not open");
    }
    FILE *fp = f->fp;
    int e = 0;
    if (f->failed || ferror(fp))
        e = errno ? errno : EIO;
    if (!e && fflush(fp) != 0)
        e = errno;
    if (!e && fsync(fileno(fp)) != 0)
        e = errno;
    if (fclose(fp) != 0 && !e)
        e = errno;
    f->fp = NULL;
    if (e) {
        cuzk_status st = cuzk_err(err, CUZK_ERR_IO, "%s: write failed: %s", f->path, strerror(e));
        cuzk_afile_abort(f);
        return st;
    }
    return CUZK_OK;
}

cuzk_status cuzk_afile_publish(cuzk_afile *f, cuzk_error *err)
{
    if (f->fp || !f->tmp) {
        cuzk_afile_abort(f);
        return cuzk_err(err, CUZK_ERR_INTERNAL, "atomic file not synced");
    }
    if (rename(f->tmp, f->path) != 0) {
        int e = errno;
        cuzk_status st = cuzk_err(err, CUZK_ERR_IO, "%s: write failed: %s", f->path, strerror(e));
        cuzk_afile_abort(f);
        return st;
    }
    free(f->tmp);
    f->tmp = NULL;
    free(f->path);
    f->path = NULL;
    return CUZK_OK;
}

cuzk_status cuzk_afile_commit(cuzk_afile *f, cuzk_error *err)
{
    cuzk_status st = cuzk_afile_sync(f, err);
    return st ? st : cuzk_afile_publish(f, err);
}

void cuzk_afile_abort(cuzk_afile *f)
{
    if (f->fp) {
        fclose((FILE *)f->fp);
        f->fp = NULL;
    }
    if (f->tmp) {
        unlink(f->tmp);
        free(f->tmp);
        f->tmp = NULL;
    }
    free(f->path);
    f->path = NULL;
    f->failed = false;
}

cuzk_status cuzk_write_file_atomic(const char *path, const void *data, size_t len, cuzk_error *err)
{
    cuzk_afile f;
    cuzk_status st = cuzk_afile_open(&f, path, err);
    if (st)
        return st;
    cuzk_afile_write(&f, data, len);
    return cuzk_afile_commit(&f, err);
}
