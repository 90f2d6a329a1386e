/* Runtime dispatch for the AVX-512 IFMA field code (see fp_ifma.h). */
#include "field/fp_ifma.h"

#include "cuzk/dev.h"

#include <stdatomic.h>

/* -1: not decided yet; 0: scalar; 1: IFMA. A CPU feature, decided once per
 * process (like the CPUID checks it caches); cuzk_ifma_set changes it. */
static _Atomic int cuzk_ifma_state = -1;

bool cuzk_ifma_supported(void)
{
#if defined(CUZK_IFMA)
    __builtin_cpu_init();
    /* libgcc/compiler-rt also check that the OS saves the ZMM state. */
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
#else
    return false;
#endif
}

bool cuzk_ifma_enabled(void)
{
    int s = atomic_load_explicit(&cuzk_ifma_state, memory_order_relaxed);
    if (CUZK_LIKELY(s >= 0))
        return s != 0;
    s = cuzk_ifma_supported();
    atomic_store_explicit(&cuzk_ifma_state, s, memory_order_relaxed);
    return s != 0;
}

void cuzk_ifma_set(bool on)
{
    atomic_store_explicit(&cuzk_ifma_state, on && cuzk_ifma_supported(), memory_order_relaxed);
}

int cuzk_dev_set_ifma(int on)
{
    cuzk_ifma_set(on != 0);
    return cuzk_ifma_enabled();
}
