/* Witness references (src/engine/blobref.c), as read back from the job
 * queue: any input is parsed in bounds; what parses as a blob has a 64-digit
 * lowercase hex hash, a host id without ':' that fits its buffer, and a URL
 * inside the input, and is a WREF_BLOB with the same hash; an inline: /
 * spool: reference has no hash or a valid one; formatting the parts again
 * gives the input back; formatting into any buffer size stays in bounds
 * and NUL-terminated. */
#include <stdlib.h>
#include <string.h>

#include "engine/blobref.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = 0;
    char sha[65], host[16];
    const char *url = NULL;
    FUZZ_ASSERT(blob_hex_ok(s) == (strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64));
    if (blob_ref_parse(s, sha, host, sizeof host, &url)) {
        FUZZ_ASSERT(blob_hex_ok(sha));
        FUZZ_ASSERT(strlen(host) < sizeof host && !strchr(host, ':'));
        FUZZ_ASSERT(url >= s && url <= s + strlen(s));
        size_t cap = strlen(s) + 1;
        char *again = malloc(cap);
        FUZZ_ASSERT(again);
        FUZZ_ASSERT(blob_ref_format(again, cap, sha, host, url) == 0);
        FUZZ_ASSERT(!strcmp(again, s));
        FUZZ_ASSERT(blob_ref_format(again, cap - 1, sha, host, url) == -1 && again[0] == 0);
        free(again);
    }
    char wsha[65];
    int kind = witness_ref_kind(s, wsha);
    FUZZ_ASSERT(kind == 0 || kind == WREF_INLINE || kind == WREF_SPOOL || kind == WREF_BLOB);
    FUZZ_ASSERT(wsha[0] ? blob_hex_ok(wsha) && kind : 1);
    if (blob_ref_parse(s, sha, host, sizeof host, &url))
        FUZZ_ASSERT(kind == WREF_BLOB && !strcmp(wsha, sha));
    if ((kind == WREF_INLINE || kind == WREF_SPOOL) && wsha[0]) {
        char again[80];
        FUZZ_ASSERT(witness_ref_format(again, sizeof again, kind, wsha) == 0 && !strcmp(again, s));
    }
    size_t caps[] = {1, 5, 70, 300};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        char *out = malloc(caps[i]);
        FUZZ_ASSERT(out);
        int rc = blob_ref_format(out, caps[i], s, "h", s);
        FUZZ_ASSERT(strlen(out) < caps[i]);
        FUZZ_ASSERT(rc == 0 || out[0] == 0);
        rc = witness_ref_format(out, caps[i], WREF_SPOOL, s);
        FUZZ_ASSERT(strlen(out) < caps[i]);
        FUZZ_ASSERT(rc == 0 ? blob_hex_ok(s) : out[0] == 0);
        free(out);
    }
    free(s);
    return 0;
}
