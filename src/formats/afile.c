/* DESIGN: the output writer (contract in formats.h, "output files").
 *
 * Check, then create, then commit:
 *  - check (cuzk_oset_output): the given path is resolved by following
 *    symlinks of its last component by hand (so the file they name is
 *    replaced in its own directory, and a dangling link creates its target),
 *    stopping at the stdio names (/dev/stdout, /dev/fd/N, ...), whose
 *    descriptor is written into. The kind of the target decides: regular or
 *    missing -> atomic replacement; character device / FIFO -> stream; else
 *    refused. Identity (device, inode; for a missing file its directory's
 *    plus the name) is compared with the inputs and the other outputs.
 *  - create (cuzk_oset_open): "<name>.tmp.XXXXXX" with O_EXCL and mode 0666
 *    (the kernel applies the umask: no process-wide umask() dance), then the
 *    existing target's owner and mode are copied onto it.
 *  - commit (cuzk_oset_commit): fflush + fsync of every temporary (one thread
 *    each), the cancel flag, flock of every output directory (in device/inode
 *    order: no deadlock between two sets), then each output is exchanged with
 *    its existing target (renameat2 RENAME_EXCHANGE: the temporary name then
 *    holds the old file) or renamed onto a missing one (RENAME_NOREPLACE).
 *    A failure undoes the earlier outputs in reverse (exchange back / unlink
 *    what was created); success unlinks the old files. Where the file system
 *    has no RENAME_EXCHANGE a plain rename is used and that one earlier file
 *    cannot be put back.
 * Temporaries are never left behind except by a kill that gives no chance to
 * run (SIGKILL, power loss); the CLI turns SIGINT / SIGTERM into the cancel
 * flag so they go through abort. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/fmt_internal.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

enum { PUB_NONE, PUB_EXCHANGED, PUB_CREATED, PUB_REPLACED };

/* The descriptor a stdio name stands for, or -1. */
static int stdio_fd_of(const char *p)
{
    const char *n;
    if (!strcmp(p, "/dev/stdin"))
        return 0;
    if (!strcmp(p, "/dev/stdout"))
        return 1;
    if (!strcmp(p, "/dev/stderr"))
        return 2;
    if (!strncmp(p, "/dev/fd/", 8))
        n = p + 8;
    else if (!strncmp(p, "/proc/self/fd/", 14))
        n = p + 14;
    else
        return -1;
    long v = 0;
    if (!*n)
        return -1;
    for (; *n; n++) {
        if (*n < '0' || *n > '9' || v > INT_MAX / 10)
            return -1;
        v = v * 10 + (*n - '0');
    }
    return v <= INT_MAX ? (int)v : -1;
}

static const char *kind_name(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* Length of the directory part of p including its '/' (0: none). */
static size_t dir_len(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? (size_t)(s - p) + 1 : 0;
}

/* Follows the symlinks of the last component; sets f->path, f->stream_fd or
 * *st / *exists. */
static cuzk_status resolve(cuzk_afile *f, struct stat *st, bool *exists, cuzk_error *err)
{
    char *cur = strdup(f->name);
    if (!cur)
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory", f->name);
    *exists = false;
    for (int hops = 0;; hops++) {
        int fd = stdio_fd_of(cur);
        if (fd >= 0) {
            f->stream_fd = fd;
            break;
        }
        if (lstat(cur, st) != 0) {
            int e = errno;
            if (e == ENOENT)
                break;
            free(cur);
            return cuzk_err(err, CUZK_ERR_IO, "%s: cannot write: %s", f->name, strerror(e));
        }
        if (!S_ISLNK(st->st_mode)) {
            *exists = true;
            break;
        }
        if (hops == 40) {
            free(cur);
            return cuzk_err(err, CUZK_ERR_IO, "%s: cannot write: %s", f->name, strerror(ELOOP));
        }
        char buf[PATH_MAX];
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n < 0) {
            int e = errno;
            free(cur);
            return cuzk_err(err, CUZK_ERR_IO, "%s: cannot read the link: %s", f->name, strerror(e));
        }
        buf[n] = 0;
        size_t dl = buf[0] == '/' ? 0 : dir_len(cur);
        char *next = malloc(dl + (size_t)n + 1);
        if (!next) {
            free(cur);
            return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory", f->name);
        }
        memcpy(next, cur, dl);
        memcpy(next + dl, buf, (size_t)n + 1);
        free(cur);
        cur = next;
    }
    f->path = cur;
    return CUZK_OK;
}

/* Checks one output; creates nothing. */
static cuzk_status out_check(cuzk_afile *f, const char *path, cuzk_cancel_fn cancel, void *cancel_user,
                             cuzk_error *err)
{
    memset(f, 0, sizeof *f);
    f->stream_fd = -1;
    f->cancel = cancel;
    f->cancel_user = cancel_user;
    if (!path || !*path)
        return cuzk_err(err, CUZK_ERR_USAGE, "empty output path");
    if (!(f->name = strdup(path)))
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    struct stat st;
    bool exists;
    cuzk_status s = resolve(f, &st, &exists, err);
    if (s)
        return s;
    if (f->stream_fd >= 0) {
        if (fstat(f->stream_fd, &st) != 0)
            return cuzk_err(err, CUZK_ERR_IO, "%s: descriptor %d is not open", path, f->stream_fd);
        f->stream = true;
        f->dev = (uint64_t)st.st_dev;
        f->ino = (uint64_t)st.st_ino;
        f->exists = true;
        return CUZK_OK;
    }
    if (exists) {
        f->exists = true;
        f->dev = (uint64_t)st.st_dev;
        f->ino = (uint64_t)st.st_ino;
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
            f->stream = true;
            return CUZK_OK;
        }
        if (!S_ISREG(st.st_mode))
            return cuzk_err(err, CUZK_ERR_IO, "%s: is %s; refusing to replace it", path,
                            kind_name(st.st_mode));
        if (faccessat(AT_FDCWD, f->path, W_OK, AT_EACCESS) != 0)
            return cuzk_err(err, CUZK_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        f->mode = (uint32_t)(st.st_mode & 07777);
        f->uid = (uint32_t)st.st_uid;
        f->gid = (uint32_t)st.st_gid;
    }
    /* The directory: it must exist and be writable, and it identifies a new
     * file and is what the commit locks. */
    size_t dl = dir_len(f->path);
    const char *base = f->path + dl;
    if (!*base)
        return cuzk_err(err, CUZK_ERR_IO, "%s: cannot write: %s", path, strerror(EISDIR));
    if (strlen(base) > NAME_MAX)
        return cuzk_err(err, CUZK_ERR_IO, "%s: cannot write: %s", path, strerror(ENAMETOOLONG));
    char *dir = dl ? strndup(f->path, dl) : strdup(".");
    if (!dir)
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    struct stat ds;
    cuzk_status r = CUZK_OK;
    int e = stat(dir, &ds) != 0 ? errno : S_ISDIR(ds.st_mode) ? 0 : ENOTDIR;
    if (e)
        r = cuzk_err(err, CUZK_ERR_IO, "%s: cannot create: %s", path, strerror(e));
    else if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0)
        r = cuzk_err(err, CUZK_ERR_IO, "%s: cannot create a file in its directory: %s", path,
                     strerror(errno));
    f->dir_dev = (uint64_t)ds.st_dev;
    f->dir_ino = (uint64_t)ds.st_ino;
    free(dir);
    return r;
}

static cuzk_status out_fail_open(cuzk_afile *f, int fd, int e, const char *what, cuzk_error *err)
{
    if (fd >= 0)
        close(fd);
    return cuzk_err(err, CUZK_ERR_IO, "%s: %s: %s", f->name, what, strerror(e));
}

/* Creates the temporary file or opens the stream. */
static cuzk_status out_create(cuzk_afile *f, cuzk_error *err)
{
    int fd = -1;
    if (f->stream && f->stream_fd >= 0) {
        if ((fd = fcntl(f->stream_fd, F_DUPFD_CLOEXEC, 3)) < 0)
            return out_fail_open(f, -1, errno, "cannot open for writing", err);
    } else if (f->stream) {
        /* Non-blocking open: a FIFO without a reader fails (ENXIO) instead of
         * hanging; writes then block as usual. */
        fd = open(f->path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            struct stat sb;
            bool fifo = stat(f->path, &sb) == 0 && S_ISFIFO(sb.st_mode);
            /* ENXIO: a FIFO with no reader, or a device with nothing behind
             * it (/dev/tty without a controlling terminal). */
            return out_fail_open(f, -1, e,
                                 fifo ? (e == ENXIO ? "cannot open the FIFO for writing (it has no reader)"
                                                    : "cannot open the FIFO for writing")
                                      : "cannot open the character device for writing",
                                 err);
        }
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
            return out_fail_open(f, fd, errno, "cannot open for writing", err);
    } else {
        size_t dl = dir_len(f->path), bl = strlen(f->path + dl);
        size_t keep = bl > NAME_MAX - 11 ? NAME_MAX - 11 : bl; /* ".tmp.XXXXXX" */
        char *t = malloc(dl + keep + 12);
        if (!t)
            return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory", f->name);
        memcpy(t, f->path, dl + keep);
        memcpy(t + dl + keep, ".tmp.", 5);
        char *x = t + dl + keep + 5;
        static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        for (int tries = 0; fd < 0; tries++) {
            unsigned char rb[6];
            if (!cuzk_random_bytes(rb, sizeof rb))
                for (int i = 0; i < 6; i++)
                    rb[i] = (unsigned char)((unsigned)getpid() * 31u + (unsigned)tries * 7u + (unsigned)i);
            for (int i = 0; i < 6; i++)
                x[i] = abc[rb[i] % 62];
            x[6] = 0;
            fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd < 0 && (errno != EEXIST || tries == 100)) {
                int e = errno;
                free(t);
                return out_fail_open(f, -1, e, "cannot create", err);
            }
        }
        f->tmp = t;
        if (f->exists) {
            /* Keep the replaced file's owner (root only can) and mode. */
            if (geteuid() == 0)
                (void)fchown(fd, (uid_t)f->uid, (gid_t)f->gid);
            (void)fchmod(fd, (mode_t)f->mode);
        }
    }
    FILE *fp = fdopen(fd, "wb");
    if (!fp) {
        int e = errno;
        if (f->tmp) {
            unlink(f->tmp);
            free(f->tmp);
            f->tmp = NULL;
        }
        return out_fail_open(f, fd, e, "cannot open for writing", err);
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
    if (f->cancel && f->cancel(f->cancel_user)) {
        f->failed = f->cancelled = true;
        return;
    }
    errno = 0;
    if (fwrite(data, 1, len, (FILE *)f->fp) != len) {
        f->failed = true;
        f->wr_errno = errno ? errno : EIO;
    }
}

/* flush, fsync, close; keeps the temporary file (the caller removes it). */
static cuzk_status out_sync(cuzk_afile *f, cuzk_error *err)
{
    FILE *fp = f->fp;
    if (!fp)
        return cuzk_err(err, CUZK_ERR_INTERNAL, "%s: output not open", f->name ? f->name : "?");
    int e = f->failed ? (f->wr_errno ? f->wr_errno : EIO) : 0;
    if (!e && fflush(fp) != 0)
        e = errno;
    if (!e && !f->stream && fsync(fileno(fp)) != 0)
        e = errno;
    if (fclose(fp) != 0 && !e)
        e = errno;
    f->fp = NULL;
    if (f->cancelled)
        return cuzk_err(err, CUZK_ERR_CANCELLED, "%s: cancelled; not written", f->name);
    if (e)
        return cuzk_err(err, CUZK_ERR_IO, "%s: write failed: %s", f->name, strerror(e));
    return CUZK_OK;
}

/* Puts the synced temporary file in place, remembering how (f->state). */
static cuzk_status out_publish(cuzk_afile *f, cuzk_error *err)
{
    if (f->stream)
        return CUZK_OK;
    if (f->fp || !f->tmp)
        return cuzk_err(err, CUZK_ERR_INTERNAL, "%s: output not synced", f->name);
    for (int tries = 0; tries < 4; tries++) {
        struct stat st;
        if (lstat(f->path, &st) == 0) {
            if (!S_ISREG(st.st_mode))
                return cuzk_err(err, CUZK_ERR_IO, "%s: is now %s; refusing to replace it", f->name,
                                kind_name(st.st_mode));
            if (renameat2(AT_FDCWD, f->tmp, AT_FDCWD, f->path, RENAME_EXCHANGE) == 0) {
                f->state = PUB_EXCHANGED; /* f->tmp now names the old file */
                return CUZK_OK;
            }
            if (errno != EINVAL && errno != ENOSYS)
                break;
            if (rename(f->tmp, f->path) != 0)
                break;
            f->state = PUB_REPLACED;
        } else if (errno == ENOENT) {
            if (renameat2(AT_FDCWD, f->tmp, AT_FDCWD, f->path, RENAME_NOREPLACE) != 0) {
                if (errno == EEXIST)
                    continue; /* created meanwhile: exchange with it */
                if ((errno != EINVAL && errno != ENOSYS) || rename(f->tmp, f->path) != 0)
                    break;
            }
            f->state = PUB_CREATED;
        } else {
            break;
        }
        free(f->tmp);
        f->tmp = NULL;
        return CUZK_OK;
    }
    return cuzk_err(err, CUZK_ERR_IO, "%s: write failed: %s", f->name, strerror(errno));
}

/* Undoes out_publish as far as possible. */
static void out_rollback(cuzk_afile *f)
{
    if (f->state == PUB_EXCHANGED) {
        if (renameat2(AT_FDCWD, f->tmp, AT_FDCWD, f->path, RENAME_EXCHANGE) != 0)
            (void)rename(f->tmp, f->path); /* the old file back in any case */
    } else if (f->state == PUB_CREATED) {
        unlink(f->path);
    }
    f->state = PUB_NONE;
}

void cuzk_afile_abort(cuzk_afile *f)
{
    if (!f)
        return;
    if (f->fp) {
        __fpurge((FILE *)f->fp); /* a stream gets nothing more of a failed output */
        fclose((FILE *)f->fp);
    }
    if (f->tmp)
        unlink(f->tmp); /* the temporary file, or after an exchange the old file */
    free(f->tmp);
    free(f->path);
    free(f->name);
    memset(f, 0, sizeof *f);
    f->stream_fd = -1;
}

/* ---- directory locks ------------------------------------------------------------ */

static int cmp_dir(const cuzk_afile *a, const cuzk_afile *b)
{
    if (a->dir_dev != b->dir_dev)
        return a->dir_dev < b->dir_dev ? -1 : 1;
    if (a->dir_ino != b->dir_ino)
        return a->dir_ino < b->dir_ino ? -1 : 1;
    return 0;
}

/* Locks the distinct directories of the non-stream outputs in (dev, ino)
 * order; fds[] gets the open directories (-1 elsewhere). */
static cuzk_status lock_dirs(cuzk_afile *const *fs, size_t n, int *fds, cuzk_error *err)
{
    const cuzk_afile *ord[CUZK_OSET_MAX];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        fds[i] = -1;
        if (fs[i]->stream)
            continue;
        size_t j = m;
        while (j > 0 && cmp_dir(ord[j - 1], fs[i]) > 0) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = fs[i];
        m++;
    }
    for (size_t i = 0, k = 0; i < m; i++) {
        if (i > 0 && cmp_dir(ord[i - 1], ord[i]) == 0)
            continue;
        const char *p = ord[i]->path;
        size_t dl = dir_len(p);
        char *dir = dl ? strndup(p, dl) : strdup(".");
        int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        int e = dir ? errno : ENOMEM;
        free(dir);
        if (fd < 0)
            return cuzk_err(err, CUZK_ERR_IO, "%s: cannot lock its directory: %s", ord[i]->name, strerror(e));
        fds[k++] = fd;
        while (flock(fd, LOCK_EX) != 0) {
            if (errno == EINTR)
                continue;
            if (errno == ENOLCK || errno == EOPNOTSUPP)
                break; /* no locks on this file system: publish unlocked */
            return cuzk_err(err, CUZK_ERR_IO, "%s: cannot lock its directory: %s", ord[i]->name,
                            strerror(errno));
        }
    }
    return CUZK_OK;
}

static void unlock_dirs(int *fds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]); /* closing releases the flock */
}

/* Publishes fs[0..n) all or nothing under the directory locks; then removes
 * the old files. On failure every output is aborted. */
static cuzk_status publish_all(cuzk_afile *const *fs, size_t n, cuzk_cancel_fn cancel, void *cancel_user,
                               cuzk_error *err)
{
    int fds[CUZK_OSET_MAX];
    cuzk_status st = lock_dirs(fs, n, fds, err);
    if (!st && cancel && cancel(cancel_user))
        st = cuzk_err(err, CUZK_ERR_CANCELLED, "%s: cancelled; not written", fs[0]->name);
    size_t done = 0;
    while (!st && done < n) {
        st = out_publish(fs[done], err);
        if (!st)
            done++;
    }
    if (st)
        while (done > 0)
            out_rollback(fs[--done]);
    unlock_dirs(fds, n);
    for (size_t i = 0; i < n; i++) {
        if (!st && fs[i]->state == PUB_EXCHANGED)
            unlink(fs[i]->tmp); /* the old file */
        cuzk_afile_abort(fs[i]);
    }
    return st;
}

/* ---- single output ------------------------------------------------------------------- */

cuzk_status cuzk_afile_open(cuzk_afile *f, const char *path, cuzk_error *err)
{
    cuzk_status st = out_check(f, path, NULL, NULL, err);
    if (!st)
        st = out_create(f, err);
    if (st)
        cuzk_afile_abort(f);
    return st;
}

cuzk_status cuzk_afile_sync(cuzk_afile *f, cuzk_error *err)
{
    cuzk_status st = out_sync(f, err);
    if (st)
        cuzk_afile_abort(f);
    return st;
}

cuzk_status cuzk_afile_publish(cuzk_afile *f, cuzk_error *err)
{
    if (f->fp) {
        cuzk_afile_abort(f);
        return cuzk_err(err, CUZK_ERR_INTERNAL, "output not synced");
    }
    cuzk_afile *one[1] = {f};
    return publish_all(one, 1, f->cancel, f->cancel_user, err);
}

cuzk_status cuzk_afile_commit(cuzk_afile *f, cuzk_error *err)
{
    cuzk_status st = cuzk_afile_sync(f, err);
    return st ? st : cuzk_afile_publish(f, err);
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

/* ---- output sets ------------------------------------------------------------------- */

void cuzk_oset_init(cuzk_oset *s, cuzk_cancel_fn cancel, void *cancel_user)
{
    memset(s, 0, sizeof *s);
    s->cancel = cancel;
    s->cancel_user = cancel_user;
}

cuzk_status cuzk_oset_input(cuzk_oset *s, const char *path, cuzk_error *err)
{
    struct stat st;
    if (!path || stat(path, &st) != 0)
        return CUZK_OK;
    if (s->n_in == CUZK_OSET_MAX)
        return cuzk_err(err, CUZK_ERR_INTERNAL, "%s: too many inputs in one output set", path);
    s->in_dev[s->n_in] = (uint64_t)st.st_dev;
    s->in_ino[s->n_in] = (uint64_t)st.st_ino;
    s->in_name[s->n_in++] = path;
    return CUZK_OK;
}

static bool same_file(const cuzk_afile *a, const cuzk_afile *b)
{
    if (a->stream || b->stream || a->exists != b->exists)
        return false;
    if (a->exists)
        return a->dev == b->dev && a->ino == b->ino;
    return a->dir_dev == b->dir_dev && a->dir_ino == b->dir_ino &&
           !strcmp(a->path + dir_len(a->path), b->path + dir_len(b->path));
}

cuzk_status cuzk_oset_output(cuzk_oset *s, const char *path, cuzk_afile **out, cuzk_error *err)
{
    if (s->n_out == CUZK_OSET_MAX)
        return cuzk_err(err, CUZK_ERR_INTERNAL, "%s: too many outputs in one output set", path);
    cuzk_afile *f = &s->out[s->n_out];
    cuzk_status st = out_check(f, path, s->cancel, s->cancel_user, err);
    for (size_t i = 0; !st && f->exists && i < s->n_in; i++)
        if (f->dev == s->in_dev[i] && f->ino == s->in_ino[i])
            st = cuzk_err(err, CUZK_ERR_USAGE, "%s: the output is the same file as the input %s; refusing to overwrite an input",
                          path, s->in_name[i]);
    for (size_t i = 0; !st && i < s->n_out; i++)
        if (same_file(f, &s->out[i]))
            st = cuzk_err(err, CUZK_ERR_USAGE, "%s: the same file as the output %s; each output needs its own file",
                          path, s->out[i].name);
    if (st) {
        cuzk_afile_abort(f);
        return st;
    }
    s->n_out++;
    if (out)
        *out = f;
    return CUZK_OK;
}

cuzk_status cuzk_oset_open(cuzk_oset *s, cuzk_error *err)
{
    for (size_t i = 0; i < s->n_out; i++) {
        cuzk_status st = out_create(&s->out[i], err);
        if (st) {
            cuzk_oset_abort(s);
            return st;
        }
    }
    return CUZK_OK;
}

typedef struct sync_job {
    cuzk_afile *f;
    cuzk_error err;
    cuzk_status st;
} sync_job;

static void *sync_main(void *p)
{
    sync_job *j = p;
    j->st = out_sync(j->f, &j->err);
    return NULL;
}

cuzk_status cuzk_oset_commit(cuzk_oset *s, cuzk_error *err)
{
    /* The fsyncs run side by side (each costs 5-15 ms of wall time on a VM
     * disk, a tenth of a small proof). */
    sync_job jobs[CUZK_OSET_MAX];
    pthread_t th[CUZK_OSET_MAX];
    bool threaded[CUZK_OSET_MAX] = {false};
    for (size_t i = 0; i < s->n_out; i++) {
        jobs[i] = (sync_job){.f = &s->out[i]};
        if (i > 0)
            threaded[i] = pthread_create(&th[i], NULL, sync_main, &jobs[i]) == 0;
    }
    for (size_t i = 0; i < s->n_out; i++) {
        if (i > 0 && threaded[i])
            pthread_join(th[i], NULL);
        else
            sync_main(&jobs[i]);
    }
    for (size_t i = 0; i < s->n_out; i++)
        if (jobs[i].st) {
            cuzk_err(err, jobs[i].err.code, "%s", jobs[i].err.msg);
            cuzk_oset_abort(s);
            return jobs[i].st;
        }
    cuzk_afile *fs[CUZK_OSET_MAX];
    for (size_t i = 0; i < s->n_out; i++)
        fs[i] = &s->out[i];
    cuzk_status st = s->n_out ? publish_all(fs, s->n_out, s->cancel, s->cancel_user, err) : CUZK_OK;
    s->n_out = 0;
    return st;
}

void cuzk_oset_abort(cuzk_oset *s)
{
    for (size_t i = 0; i < s->n_out; i++)
        cuzk_afile_abort(&s->out[i]);
    s->n_out = 0;
}
