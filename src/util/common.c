#include "util/common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define CUZK_HUGE_ALIGN ((size_t)2 << 20)
#define CUZK_HUGE_MIN ((size_t)1 << 20)

static cuzk_status vset(cuzk_error *e, cuzk_status code, const char *fmt, va_list ap)
{
    if (e) {
        e->code = code;
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        /* Keep messages to one line. */
        for (char *p = e->msg; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
    }
    return code;
}

cuzk_status cuzk_err(cuzk_error *e, cuzk_status code, const char *fmt, ...)
{
    if (e && e->code != CUZK_OK)
        return e->code;
    va_list ap;
    va_start(ap, fmt);
    vset(e, code, fmt, ap);
    va_end(ap);
    return code;
}

cuzk_status cuzk_err_force(cuzk_error *e, cuzk_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset(e, code, fmt, ap);
    va_end(ap);
    return code;
}

void cuzk_err_clear(cuzk_error *e)
{
    if (e) {
        e->code = CUZK_OK;
        e->msg[0] = 0;
    }
}

void *cuzk_alloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = n * size;
    if (bytes == 0)
        bytes = 1;
    bytes = (bytes + 63) & ~(size_t)63;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* Large arrays (keys, witness, NTT vectors, MSM buffers): 2 MiB-aligned
     * and marked for transparent huge pages, so first touch costs one fault
     * per 2 MiB instead of per 4 KiB. Faults are dear (~15 us each measured
     * in our VMs: 34 MiB of zkey points took ~130 ms of faults). madvise
     * failing (THP off) is harmless. */
    if (bytes >= CUZK_HUGE_MIN) {
        size_t rounded = (bytes + CUZK_HUGE_ALIGN - 1) & ~(CUZK_HUGE_ALIGN - 1);
        if (rounded >= bytes) {
            void *p = aligned_alloc(CUZK_HUGE_ALIGN, rounded);
            if (p)
                (void)madvise(p, rounded, MADV_HUGEPAGE);
            return p;
        }
    }
#endif
    return aligned_alloc(64, bytes);
}

void *cuzk_calloc(size_t n, size_t size)
{
    void *p = cuzk_alloc(n, size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void cuzk_free(void *p) { free(p); }

double cuzk_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool cuzk_random_bytes(void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        p += got;
        n -= (size_t)got;
    }
    return true;
}

const char *cuzk_status_name(cuzk_status s)
{
    switch (s) {
    case CUZK_OK: return "ok";
    case CUZK_ERR_USAGE: return "usage";
    case CUZK_ERR_IO: return "io";
    case CUZK_ERR_FORMAT: return "format";
    case CUZK_ERR_MISMATCH: return "mismatch";
    case CUZK_ERR_INVALID_PROOF: return "invalid-proof";
    case CUZK_ERR_NOMEM: return "out-of-memory";
    case CUZK_ERR_UNSUPPORTED: return "unsupported";
    case CUZK_ERR_GPU: return "gpu";
    case CUZK_ERR_CANCELLED: return "cancelled";
    case CUZK_ERR_INTERNAL: return "internal";
    }
    return "unknown";
}

const char *cuzk_version(void) { return CUZK_VERSION_STRING; }

uint64_t cuzk_host_mem_total(void)
{
    return (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
}

uint64_t cuzk_mem_margin(uint64_t total, uint64_t floor)
{
    return total / 50 > floor ? total / 50 : floor;
}

uint64_t cuzk_mem_after_margin(uint64_t avail, uint64_t total, uint64_t floor)
{
    const uint64_t m = cuzk_mem_margin(total, floor);
    return avail > m ? avail - m : 0;
}

uint64_t cuzk_host_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    uint64_t avail = kb ? (uint64_t)kb * 1024 : cuzk_host_mem_total();
    /* a cgroup v2 limit (containers, systemd units): what it leaves, when lower */
    unsigned long long max = 0, cur = 0;
    FILE *m = fopen("/sys/fs/cgroup/memory.max", "r"), *c = fopen("/sys/fs/cgroup/memory.current", "r");
    if (m && c && fscanf(m, "%llu", &max) == 1 && fscanf(c, "%llu", &cur) == 1 && max > 0) {
        uint64_t left = max > cur ? max - cur : 0;
        if (left < avail)
            avail = left;
    }
    if (m)
        fclose(m);
    if (c)
        fclose(c);
    return avail;
}

cuzk_status cuzk_host_mem_check(uint64_t need, const char *what, cuzk_error *e)
{
    const uint64_t avail = cuzk_host_mem_available();
    /* kept for the system and the process's other allocations */
    const uint64_t keep = cuzk_mem_margin(cuzk_host_mem_total(), CUZK_MARGIN_HOST_MIN);
    if (need <= avail && avail - need >= keep)
        return CUZK_OK;
    return cuzk_err(e, CUZK_ERR_NOMEM, "%s need %.2f GiB of host memory; %.2f GiB are available (%.2f GiB kept free)",
                    what, (double)need / (1 << 30), (double)avail / (1 << 30), (double)keep / (1 << 30));
}
