/* Guarded file mappings (map_guard.h): SIGBUS on a truncated mapping
 * becomes a mark the key's users turn into CUZK_ERR_IO. */
#include "formats/map_guard.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct cuzk_map_guard {
    uintptr_t base;
    size_t size;
    atomic_int lost;
    int slot;
};

#define GUARD_SLOTS 256
static _Atomic(cuzk_map_guard *) g_slots[GUARD_SLOTS];
static struct sigaction g_prev;
static uintptr_t g_page = 4096;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static bool g_installed;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    const uintptr_t a = (uintptr_t)si->si_addr;
    for (int i = 0; i < GUARD_SLOTS; i++) {
        cuzk_map_guard *g = atomic_load(&g_slots[i]);
        if (!g || a < g->base || a - g->base >= g->size)
            continue;
        const uintptr_t pg = a & ~(g_page - 1), end = g->base + g->size;
        /* zero pages from the faulting page on (mmap is a plain system call
         * on Linux, safe here); the read is restarted and sees zeros */
        void *r = mmap((void *)pg, end - pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (r != MAP_FAILED) {
            atomic_store(&g->lost, 1);
            return;
        }
        break;
    }
    /* not ours: the previous handler, or the default action */
    if ((g_prev.sa_flags & SA_SIGINFO) && g_prev.sa_sigaction) {
        g_prev.sa_sigaction(sig, si, uc);
        return;
    }
    if (!(g_prev.sa_flags & SA_SIGINFO) && g_prev.sa_handler != SIG_DFL && g_prev.sa_handler != SIG_IGN) {
        g_prev.sa_handler(sig);
        return;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGBUS, &dfl, NULL); /* the fault repeats on return and ends the process */
}

static void install(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    if (pg > 0)
        g_page = (uintptr_t)pg;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    g_installed = sigaction(SIGBUS, &sa, &g_prev) == 0;
}

cuzk_map_guard *cuzk_map_guard_add(void *base, size_t size)
{
    if (!base || !size)
        return NULL;
    pthread_once(&g_once, install);
    if (!g_installed)
        return NULL;
    cuzk_map_guard *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->base = (uintptr_t)base;
    g->size = size;
    atomic_init(&g->lost, 0);
    pthread_mutex_lock(&g_mu);
    g->slot = -1;
    for (int i = 0; i < GUARD_SLOTS && g->slot < 0; i++)
        if (!atomic_load(&g_slots[i])) {
            atomic_store(&g_slots[i], g);
            g->slot = i;
        }
    pthread_mutex_unlock(&g_mu);
    if (g->slot < 0) {
        free(g);
        return NULL;
    }
    return g;
}

bool cuzk_map_guard_lost(const cuzk_map_guard *g) { return g && atomic_load(&((cuzk_map_guard *)g)->lost); }

void cuzk_map_guard_remove(cuzk_map_guard *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g_mu);
    atomic_store(&g_slots[g->slot], NULL);
    pthread_mutex_unlock(&g_mu);
    free(g);
}
