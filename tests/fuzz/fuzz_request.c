/* The daemon's request checks (src/server/request.c): JSON bodies of
 * POST /v1/jobs and POST /v1/keys, the text check and scrub applied to
 * every query argument, header and error message, and the decimal
 * arguments. The first byte picks the check, the rest is the input.
 * Properties: an accepted body's fields are text and all known; scrubbed
 * text always passes the text check and keeps its length; an accepted
 * number re-prints to its own digits and lies in range; a message is one
 * line of text. */
#include <stdio.h>

#include "fuzz_common.h"
#include "server/server_internal.h"

static void check_msg(const char *msg)
{
    FUZZ_ASSERT(msg[0] && !strchr(msg, '\n') && text_ok(msg, strlen(msg)));
}

static int field_ok(const char *f)
{
    return !f || (f[0] && text_ok(f, strlen(f)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    unsigned mode = data[0] % 5;
    const char *in = (const char *)data + 1;
    size_t n = size - 1;
    char msg[512];
    if (mode == 0 || mode == 1) {
        cJSON *body = cJSON_ParseWithLength(in, n);
        if (mode == 0) {
            submit_fields f;
            if (parse_submit_body(body, &f, msg, sizeof msg) == 0) {
                FUZZ_ASSERT(f.witness_path && !(f.key && f.key_path));
                FUZZ_ASSERT(field_ok(f.key) && field_ok(f.key_path) && field_ok(f.witness_path) &&
                            field_ok(f.priority) && field_ok(f.idempotency_key));
            } else {
                check_msg(msg);
            }
        } else {
            const char *path;
            int load;
            if (parse_key_body(body, &path, &load, msg, sizeof msg) == 0)
                FUZZ_ASSERT(path && field_ok(path) && (load == 0 || load == 1));
            else
                check_msg(msg);
        }
        cJSON_Delete(body);
    } else if (mode == 2) {
        char *s = malloc(n + 1);
        FUZZ_ASSERT(s);
        memcpy(s, in, n);
        s[n] = 0;
        size_t len = strlen(s);
        int was_ok = text_ok(s, len);
        char *copy = strdup(s);
        FUZZ_ASSERT(copy);
        text_scrub(s);
        FUZZ_ASSERT(strlen(s) == len && text_ok(s, len));
        if (was_ok) /* text is left as it is */
            FUZZ_ASSERT(!strcmp(s, copy));
        free(copy);
        free(s);
    } else if (mode == 4) {
        /* The router's path split: what it returns puts the URL back together. */
        char *url = malloc(n + 1), id[72];
        FUZZ_ASSERT(url);
        memcpy(url, in, n);
        url[n] = 0;
        const char *tail;
        static const char *const prefixes[] = {"/v1/jobs/", "/v1/keys/"};
        for (int p = 0; p < 2; p++)
            if (split_path(url, prefixes[p], id, sizeof id, &tail)) {
                size_t pl = strlen(prefixes[p]), il = strlen(id);
                FUZZ_ASSERT(il && il < sizeof id && !strchr(id, '/'));
                FUZZ_ASSERT(!strncmp(url, prefixes[p], pl) && !strncmp(url + pl, id, il));
                FUZZ_ASSERT(!strcmp(url + pl + il, tail) && (!*tail || *tail == '/'));
            }
        free(url);
    } else {
        char s[32];
        size_t k = n < sizeof s - 1 ? n : sizeof s - 1;
        memcpy(s, in, k);
        s[k] = 0;
        uint64_t v, lo = 1, hi = 100000;
        if (parse_uint(s, lo, hi, &v) == 0) {
            char back[32];
            snprintf(back, sizeof back, "%llu", (unsigned long long)v);
            const char *digits = s;
            while (digits[0] == '0' && digits[1])
                digits++;
            FUZZ_ASSERT(v >= lo && v <= hi && !strcmp(back, digits));
        }
    }
    return 0;
}
