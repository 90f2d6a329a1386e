/* The iden3 "binfile" container shared by .r1cs, .wtns, .zkey and .ptau:
 * magic[4], u32 version, u32 nSections, then nSections × (u32 id, u64 size,
 * body). A file is indexed once with pread against the size fstat reported,
 * and its sections are read with pread too: a file truncated or rewritten
 * while it is read gives an I/O or format error, never a SIGBUS. Only a
 * zkey whose points are used in place maps the file (cuzk_binfile_map),
 * after the index has checked every section against the file size. Readers
 * look sections up by id, since writers use different orders. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/fmt_internal.h"
#include "formats/map_guard.h"

static char *dup_name(const char *s) { return strdup(s ? s : "<buffer>"); }

static void printable_magic(char out[17], const uint8_t *m)
{
    /* Quote a bad magic so users see what file they passed (e.g. "zkey"
     * given where "wtns" was expected), hex-escaping non-printables. */
    size_t o = 0;
    for (int i = 0; i < 4; i++) {
        if (m[i] >= 0x20 && m[i] < 0x7f && m[i] != '\\')
            out[o++] = (char)m[i];
        else
            o += (size_t)snprintf(out + o, 5, "\\x%02x", m[i]);
    }
    out[o] = 0;
}

static cuzk_status index_file(cuzk_binfile *bf, const char *magic, uint32_t max_version,
                              cuzk_error *err)
{
    const char *nm = bf->name;
    size_t size = bf->size;
    if (size < 12)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: truncated file (%zu bytes, a %s file has at least 12)", nm, size, magic);
    /* Section headers are read through a small window: a file of many
     * empty sections costs one pread per 4 KiB, not one per section. */
    fmt_cursor cur;
    cuzk_status st = fmt_cursor_init(&cur, bf, 4096, err);
    if (st)
        return st;
    const uint8_t *d = fmt_cursor_at(&cur, 0, 12, err);
    if (!d) {
        st = CUZK_ERR_IO;
        goto out;
    }
    if (memcmp(d, magic, 4) != 0) {
        char got[17];
        printable_magic(got, d);
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: wrong magic \"%s\", expected a %s file", nm, got, magic);
        goto out;
    }
    memcpy(bf->magic, d, 4);
    bf->magic[4] = 0;
    bf->version = fmt_rd32(d + 4);
    if (bf->version < 1 || bf->version > max_version) {
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: wrong %s version %u (supported: 1..%u)", nm, magic,
                      bf->version, max_version);
        goto out;
    }
    uint32_t ns = fmt_rd32(d + 8);
    /* Every section needs at least its 12-byte header (rapidsnark's check);
     * this also bounds the allocation below by the file size. */
    if ((uint64_t)ns > (size - 12) / 12) {
        st = cuzk_err(err, CUZK_ERR_FORMAT,
                      "%s: truncated file: %u sections declared but only %zu bytes", nm, ns, size);
        goto out;
    }
    bf->sections = calloc(ns ? ns : 1, sizeof *bf->sections);
    if (!bf->sections) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory indexing %u sections", nm, ns);
        goto out;
    }
    uint64_t pos = 12;
    for (uint32_t i = 0; i < ns; i++) {
        if (size - pos < 12) {
            st = cuzk_err(err, CUZK_ERR_FORMAT,
                          "%s: truncated file: header of section %u of %u at offset %llu is past the "
                          "end (%zu bytes)",
                          nm, i + 1, ns, (unsigned long long)pos, size);
            goto out;
        }
        const uint8_t *h = fmt_cursor_at(&cur, pos, 12, err);
        if (!h) {
            st = CUZK_ERR_IO;
            goto out;
        }
        uint32_t id = fmt_rd32(h);
        uint64_t sz = fmt_rd64(h + 4);
        pos += 12;
        if (sz > size - pos) {
            st = cuzk_err(err, CUZK_ERR_FORMAT,
                          "%s: truncated file: section %u (size %llu at offset %llu) extends past "
                          "the end of the file (%zu bytes)",
                          nm, id, (unsigned long long)sz, (unsigned long long)pos, size);
            goto out;
        }
        bf->sections[i] = (cuzk_binfile_section){id, pos, sz};
        pos += sz;
    }
    bf->n_sections = ns;
out:
    fmt_cursor_free(&cur);
    return st;
}

cuzk_status cuzk_binfile_open_buffer(cuzk_binfile *bf, const void *data, size_t size,
                                     const char *name, const char *magic, uint32_t max_version,
                                     cuzk_error *err)
{
    memset(bf, 0, sizeof *bf);
    bf->name = dup_name(name);
    if (!bf->name)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    bf->data = data;
    bf->size = data ? size : 0;
    cuzk_status st = index_file(bf, magic, max_version, err);
    if (st)
        cuzk_binfile_close(bf);
    return st;
}

cuzk_status cuzk_open_input(const char *path, int *fd_out, uint64_t *size, cuzk_error *err)
{
    return cuzk_open_input_for(path, NULL, fd_out, size, err);
}

cuzk_status cuzk_open_input_for(const char *path, const char *what, int *fd_out, uint64_t *size, cuzk_error *err)
{
    *fd_out = -1;
    /* Non-blocking: opening a FIFO must not wait for a writer. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && errno == ENOENT && !strcmp(path, "-")) /* a file named "-" is read as any other */
        return cuzk_err(err, CUZK_ERR_USAGE,
                        "-: '-' (standard input) is not supported for %s; give a file (./- for a file named '-')",
                        what ? what : "an input file");
    if (fd < 0)
        return cuzk_err(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return cuzk_err(err, CUZK_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return cuzk_err(err, CUZK_ERR_IO, "%s: not a regular file (%s)", path,
                        S_ISDIR(sb.st_mode)    ? "a directory"
                        : S_ISFIFO(sb.st_mode) ? "a FIFO"
                        : S_ISCHR(sb.st_mode)  ? "a character device"
                        : S_ISBLK(sb.st_mode)  ? "a block device"
                        : S_ISSOCK(sb.st_mode) ? "a socket"
                                               : "a special file");
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    *fd_out = fd;
    *size = (uint64_t)sb.st_size;
    return CUZK_OK;
}

cuzk_status cuzk_binfile_open(cuzk_binfile *bf, const char *path, const char *magic,
                              uint32_t max_version, cuzk_error *err)
{
    memset(bf, 0, sizeof *bf);
    bf->fd = -1;
    bf->name = dup_name(path);
    if (!bf->name)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    int fd;
    uint64_t fsize;
    char what[32];
    snprintf(what, sizeof what, "%s %s file", magic[0] == 'r' ? "an" : "a", magic);
    cuzk_status st = cuzk_open_input_for(path, what, &fd, &fsize, err);
    if (st)
        goto fail;
    if (fsize > SIZE_MAX) {
        close(fd);
        st = cuzk_err(err, CUZK_ERR_NOMEM, "%s: file too large to address", path);
        goto fail;
    }
    bf->size = (size_t)fsize;
    bf->fd = fd;
    bf->own_fd = true;
    if ((st = index_file(bf, magic, max_version, err)))
        goto fail;
    return CUZK_OK;
fail:
    cuzk_binfile_close(bf);
    return st;
}

cuzk_status cuzk_binfile_map(cuzk_binfile *bf, cuzk_error *err)
{
    if (bf->map || !bf->own_fd)
        return CUZK_OK;
    /* Read-only, of the size the index was checked against; a later
     * truncation raises SIGBUS on touch, which the guard turns into zero
     * pages and a mark (map_guard.h). MAP_SHARED, not MAP_PRIVATE: the GPU
     * prover page-locks streamed sections (cudaHostRegister, a long-term
     * pin), and Linux pins the page-cache pages of a private ("COW")
     * mapping only after copying each into anonymous memory
     * (gup_must_unshare), which doubles the key in RAM and, on 6.x
     * kernels, stalled a 12 GiB registration for minutes. */
    void *m = mmap(NULL, bf->size, PROT_READ, MAP_SHARED, bf->fd, 0);
    if (m == MAP_FAILED)
        return cuzk_err(err, CUZK_ERR_IO, "%s: mmap failed: %s", bf->name, strerror(errno));
    (void)madvise(m, bf->size, MADV_SEQUENTIAL);
    bf->map = m;
    bf->guard = cuzk_map_guard_add(m, bf->size);
    bf->data = m;
    return CUZK_OK;
}

void cuzk_binfile_close(cuzk_binfile *bf)
{
    if (!bf)
        return;
    cuzk_map_guard_remove(bf->guard);
    if (bf->map)
        munmap(bf->map, bf->size);
    if (bf->own_fd && bf->fd >= 0)
        close(bf->fd);
    free(bf->sections);
    free(bf->name);
    memset(bf, 0, sizeof *bf);
}

size_t cuzk_binfile_count(const cuzk_binfile *bf, uint32_t id)
{
    size_t n = 0;
    for (uint32_t i = 0; i < bf->n_sections; i++)
        n += bf->sections[i].id == id;
    return n;
}

const cuzk_binfile_section *cuzk_binfile_find(const cuzk_binfile *bf, uint32_t id)
{
    for (uint32_t i = 0; i < bf->n_sections; i++)
        if (bf->sections[i].id == id)
            return &bf->sections[i];
    return NULL;
}

cuzk_status cuzk_binfile_get(const cuzk_binfile *bf, uint32_t id, const cuzk_binfile_section **sec,
                             cuzk_error *err)
{
    size_t n = cuzk_binfile_count(bf, id);
    if (n == 0)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: missing section %u", bf->name, id);
    if (n > 1)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: duplicated section %u (%zu copies)", bf->name, id,
                        n);
    *sec = cuzk_binfile_find(bf, id);
    return CUZK_OK;
}

void fmt_binfile_drop(const cuzk_binfile *bf, uint64_t offset, uint64_t size)
{
    if (!bf->map || size == 0)
        return;
    /* Only whole pages inside the range: neighbouring sections may still be
     * needed. The page cache keeps the data; only our RSS shrinks. */
    const uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t start = (offset + pg - 1) / pg * pg, end = (offset + size) / pg * pg;
    if (end > start)
        (void)madvise((uint8_t *)bf->map + start, end - start, MADV_DONTNEED);
}

typedef struct {
    int fd;
    uint64_t offset;
    uint8_t *dst;
    size_t size, chunk;
    atomic_int err; /* first errno seen (EIO for a short file), else 0 */
    atomic_bool short_file;
} copy_job;

static void copy_range(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    copy_job *j = p;
    for (size_t q = lo; q < hi; q++) {
        size_t o = q * j->chunk, end = o + j->chunk < j->size ? o + j->chunk : j->size;
        while (o < end) {
            ssize_t got = pread(j->fd, j->dst + o, end - o, (off_t)(j->offset + o));
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                int zero = 0;
                if (got == 0)
                    atomic_store(&j->short_file, true);
                atomic_compare_exchange_strong(&j->err, &zero, got < 0 ? errno : EIO);
                return;
            }
            o += (size_t)got;
        }
    }
}

cuzk_status fmt_binfile_copy(const cuzk_binfile *bf, uint64_t offset, void *dst, size_t size,
                             cuzk_pool *pool, cuzk_error *err)
{
    if (!bf->own_fd) {
        memcpy(dst, bf->data + offset, size);
        return CUZK_OK;
    }
    copy_job j = {bf->fd, offset, dst, size, (size_t)1 << 20, 0, false};
    if (size <= j.chunk)
        copy_range(&j, 0, size ? 1 : 0, 0);
    else
        cuzk_parallel_for(pool, (size + j.chunk - 1) / j.chunk, 1, copy_range, &j);
    int e = atomic_load(&j.err);
    if (!e)
        return CUZK_OK;
    if (atomic_load(&j.short_file))
        return cuzk_err(err, CUZK_ERR_IO,
                        "%s: cannot read %zu bytes at offset %llu: the file is shorter than when it "
                        "was opened (%zu bytes; truncated while being read?)",
                        bf->name, size, (unsigned long long)offset, bf->size);
    return cuzk_err(err, CUZK_ERR_IO, "%s: cannot read %zu bytes at offset %llu: %s", bf->name,
                    size, (unsigned long long)offset, strerror(e));
}

cuzk_status fmt_cursor_init(fmt_cursor *c, const cuzk_binfile *bf, size_t cap, cuzk_error *err)
{
    memset(c, 0, sizeof *c);
    c->bf = bf;
    if (!bf->own_fd || bf->map) {
        /* The bytes are in memory: one window over the whole file. */
        c->base = bf->data;
        c->hi = bf->size;
        return CUZK_OK;
    }
    c->buf = malloc(cap);
    if (!c->buf)
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory for a read buffer", bf->name);
    c->cap = cap;
    c->base = c->buf;
    return CUZK_OK;
}

const uint8_t *fmt_cursor_fill(fmt_cursor *c, uint64_t off, size_t n, cuzk_error *err)
{
    const cuzk_binfile *bf = c->bf;
    if (!c->buf || n > c->cap || off > bf->size || n > bf->size - off) {
        cuzk_err(err, CUZK_ERR_INTERNAL, "%s: read of %zu bytes at offset %llu outside the file or window",
                 bf->name, n, (unsigned long long)off);
        return NULL;
    }
    size_t len = (size_t)CUZK_MIN((uint64_t)c->cap, bf->size - off);
    if (fmt_binfile_copy(bf, off, c->buf, len, NULL, err))
        return NULL;
    c->lo = off;
    c->hi = off + len;
    return c->buf;
}

void fmt_cursor_free(fmt_cursor *c)
{
    free(c->buf);
    memset(c, 0, sizeof *c);
}
