/* Blob references (blobref.h). */
#include "engine/blobref.h"

#include <stdio.h>
#include <string.h>

int blob_hex_ok(const char *h)
{
    size_t i = 0;
    for (; h[i]; i++)
        if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f')))
            return 0;
    return i == 64;
}

int blob_ref_parse(const char *input, char sha[65], char *host, size_t host_cap, const char **url)
{
    if (strncmp(input, BLOB_PREFIX, strlen(BLOB_PREFIX)))
        return 0;
    const char *p = input + strlen(BLOB_PREFIX);
    if (strlen(p) < 66 || p[64] != ':')
        return 0;
    memcpy(sha, p, 64);
    sha[64] = 0;
    if (!blob_hex_ok(sha))
        return 0;
    p += 65;
    const char *colon = strchr(p, ':');
    if (!colon || (size_t)(colon - p) >= host_cap)
        return 0;
    memcpy(host, p, (size_t)(colon - p));
    host[colon - p] = 0;
    *url = colon + 1;
    return 1;
}

int blob_ref_format(char *out, size_t cap, const char *sha, const char *host, const char *url)
{
    if (!cap)
        return -1;
    int n = strchr(host, ':') || !blob_hex_ok(sha) ? -1 : snprintf(out, cap, BLOB_PREFIX "%s:%s:%s", sha, host, url);
    if (n < 0 || (size_t)n >= cap) {
        out[0] = 0;
        return -1;
    }
    return 0;
}

int witness_ref_kind(const char *ref, char sha[65])
{
    sha[0] = 0;
    if (!ref[0]) /* a job from before content ids, its witness in the queue */
        return WREF_INLINE;
    if (!strncmp(ref, BLOB_PREFIX, strlen(BLOB_PREFIX))) {
        /* "<sha>:<host>:<url>"; the host id's length is blob_ref_parse's business */
        const char *p = ref + strlen(BLOB_PREFIX);
        char h[65];
        if (strlen(p) < 66 || p[64] != ':' || !strchr(p + 65, ':'))
            return 0;
        memcpy(h, p, 64);
        h[64] = 0;
        if (!blob_hex_ok(h))
            return 0;
        memcpy(sha, h, 65);
        return WREF_BLOB;
    }
    int kind = !strncmp(ref, INLINE_PREFIX, strlen(INLINE_PREFIX))  ? WREF_INLINE
               : !strncmp(ref, SPOOL_PREFIX, strlen(SPOOL_PREFIX)) ? WREF_SPOOL
                                                                    : 0;
    if (!kind)
        return 0;
    const char *h = ref + strlen(kind == WREF_INLINE ? INLINE_PREFIX : SPOOL_PREFIX);
    if (h[0] && !blob_hex_ok(h))
        return 0;
    snprintf(sha, 65, "%s", h);
    return kind;
}

int witness_ref_format(char *out, size_t cap, int kind, const char *sha)
{
    if (!cap)
        return -1;
    int n = (kind != WREF_INLINE && kind != WREF_SPOOL) || !blob_hex_ok(sha)
                ? -1
                : snprintf(out, cap, "%s%s", kind == WREF_INLINE ? INLINE_PREFIX : SPOOL_PREFIX, sha);
    if (n < 0 || (size_t)n >= cap) {
        out[0] = 0;
        return -1;
    }
    return 0;
}
