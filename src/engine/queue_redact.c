/* A queue setting shown without its secret: the password of a
 * postgresql:// URI's authority, and the value of any password= keyword (a
 * conninfo's, or a URI's query parameter), become ***. Self-contained (the
 * fuzz target builds it alone). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine/queue.h"

/* Appends src[0..n) to out (bounded). */
static void put(char *out, size_t cap, size_t *len, const char *src, size_t n)
{
    while (n-- && *len + 1 < cap)
        out[(*len)++] = *src++;
    out[*len < cap ? *len : cap - 1] = 0;
}

void eng_queue_redact(const char *where, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = 0;
    if (!where)
        return;
    size_t len = 0;
    const char *p = where;
    /* URI: postgresql://user:secret@host/... -> postgresql://user:***@host/... */
    const char *scheme = strstr(where, "://");
    if (scheme && (!strncmp(where, "postgresql://", 13) || !strncmp(where, "postgres://", 11))) {
        /* The last '@' before the query, even past a '/': a password with a
         * raw '/' is still hidden (more than the userinfo may be covered). */
        const char *auth = scheme + 3;
        size_t alen = strcspn(auth, "?");
        const char *at = NULL;
        for (const char *c = auth; c < auth + alen; c++)
            if (*c == '@')
                at = c;
        const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
        if (colon) {
            put(out, cap, &len, where, (size_t)(colon + 1 - where));
            put(out, cap, &len, "***", 3);
            p = at;
        }
    }
    /* password=... in a conninfo or a URI's query: the value becomes *** */
    while (*p) {
        int boundary = p == where || isspace((unsigned char)p[-1]) || p[-1] == '?' || p[-1] == '&';
        if (boundary && !strncasecmp(p, "password", 8)) {
            const char *q = p + 8;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q == '=') {
                q++;
                while (*q == ' ' || *q == '\t')
                    q++;
                put(out, cap, &len, p, (size_t)(q - p));
                put(out, cap, &len, "***", 3);
                if (*q == '\'') { /* quoted, with \' escapes */
                    for (q++; *q && *q != '\''; q++)
                        if (*q == '\\' && q[1])
                            q++;
                    if (*q)
                        q++;
                } else {
                    while (*q && !isspace((unsigned char)*q) && *q != '&')
                        q++;
                }
                p = q;
                continue;
            }
        }
        put(out, cap, &len, p, 1);
        p++;
    }
}
