/* The queue setting's redaction (src/engine/queue_redact.c): any input, any
 * output size, stays in bounds and NUL-terminated; a password= keyword
 * appended to any input never shows in the output. */
#include <stdlib.h>
#include <string.h>

#include "engine/queue.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char secret[] = " password=Zq9Xv7Wk";
    char *s = malloc(size + sizeof secret);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = 0;
    size_t caps[] = {1, 2, 7, 64, 4 * size + 64};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        char *out = malloc(caps[i]);
        FUZZ_ASSERT(out);
        eng_queue_redact(s, out, caps[i]);
        FUZZ_ASSERT(strlen(out) < caps[i]);
        free(out);
    }
    if (!memchr(data, 0, size) && !strstr(s, "Zq9Xv7Wk")) { /* a string: append the secret */
        memcpy(s + size, secret, sizeof secret);
        size_t cap = 4 * (size + sizeof secret) + 64;
        char *out = malloc(cap);
        FUZZ_ASSERT(out);
        eng_queue_redact(s, out, cap);
        FUZZ_ASSERT(!strstr(out, "Zq9Xv7Wk"));
        free(out);
    }
    free(s);
    return 0;
}
