/* Shared bits of the libFuzzer targets. A target must never crash, leak or
 * hit UB on any input; when a parser accepts an input, the target also
 * checks properties that must then hold (round trips), and traps if not. */
#ifndef CUZK_FUZZ_COMMON_H
#define CUZK_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A rejected input must come with a one-line message naming the input. */
static inline void fuzz_check_error(cuzk_status st, const cuzk_error *e, const char *name)
{
    if (st == CUZK_OK)
        return;
    if (e->code != st || !strstr(e->msg, name) || strchr(e->msg, '\n'))
        __builtin_trap();
}

#define FUZZ_ASSERT(c)             \
    do {                           \
        if (!(c))                  \
            __builtin_trap();      \
    } while (0)

#endif
