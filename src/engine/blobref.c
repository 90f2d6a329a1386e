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
