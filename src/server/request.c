/* Strict checks of what a client sends: JSON bodies (every field known and
 * of its type), text fields (valid UTF-8, no control characters where they
 * would reach a log or a path), numbers in the query. Pure functions over
 * their inputs (cJSON only), so tests/fuzz/fuzz_request.c runs them alone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/server_internal.h"

/* Length of the UTF-8 sequence at s (at most n bytes), 0 if invalid
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!len || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (c == 0xe0 && s[1] < 0xa0)
        return 0; /* overlong */
    if (c == 0xed && s[1] >= 0xa0)
        return 0; /* surrogates */
    if (c == 0xf0 && s[1] < 0x90)
        return 0; /* overlong */
    if (c == 0xf4 && s[1] >= 0x90)
        return 0; /* past U+10FFFF */
    return len;
}

int text_ok(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (p[i] < 0x20 || p[i] == 0x7f)
            return 0;
        size_t k = utf8_seq(p + i, n - i);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

void text_scrub(char *s)
{
    unsigned char *p = (unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t k = p[i] < 0x20 || p[i] == 0x7f ? 0 : utf8_seq(p + i, n - i);
        if (!k) {
            p[i++] = '?';
            continue;
        }
        i += k;
    }
}

/* One string member: present and a non-empty string of text, else a
 * message. Absent: *out stays NULL. */
static int member_text(const cJSON *v, const char *name, const char **out, char *msg, size_t cap)
{
    if (!cJSON_IsString(v) || !v->valuestring) {
        snprintf(msg, cap, "request body: \"%s\" must be a string", name);
        return -1;
    }
    size_t n = strlen(v->valuestring);
    if (!n || n > 4096 || !text_ok(v->valuestring, n)) {
        snprintf(msg, cap, "request body: \"%s\" must be 1 to 4096 bytes of UTF-8 text without control characters",
                 name);
        return -1;
    }
    *out = v->valuestring;
    return 0;
}

/* Copies the member name for a message, as text. */
static void name_for_msg(char *dst, size_t cap, const char *name)
{
    snprintf(dst, cap, "%s", name ? name : "");
    text_scrub(dst);
}

int parse_submit_body(const cJSON *body, submit_fields *out, char *msg, size_t cap)
{
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(body)) {
        snprintf(msg, cap, "request body: malformed JSON (expected an object)");
        return -1;
    }
    static const char *const names[] = {"key", "key_path", "witness_path", "priority", "idempotency_key"};
    const char **slots[] = {&out->key, &out->key_path, &out->witness_path, &out->priority, &out->idempotency_key};
    for (const cJSON *m = body->child; m; m = m->next) {
        size_t i = 0;
        while (i < 5 && (!m->string || strcmp(m->string, names[i])))
            i++;
        if (i == 5) {
            char nm[80];
            name_for_msg(nm, sizeof nm, m->string);
            snprintf(msg, cap,
                     "request body: unknown field \"%s\" (fields: key, key_path, witness_path, priority, "
                     "idempotency_key)",
                     nm);
            return -1;
        }
        if (*slots[i]) {
            snprintf(msg, cap, "request body: \"%s\" given twice", names[i]);
            return -1;
        }
        if (member_text(m, names[i], slots[i], msg, cap))
            return -1;
    }
    if (!out->witness_path) {
        snprintf(msg, cap, "request body: \"witness_path\" is required (or send the .wtns bytes as the body)");
        return -1;
    }
    if (out->key && out->key_path) {
        snprintf(msg, cap, "request body: \"key\" or \"key_path\", not both");
        return -1;
    }
    return 0;
}

int parse_key_body(const cJSON *body, const char **path, int *load, char *msg, size_t cap)
{
    *path = NULL;
    *load = 1;
    if (!cJSON_IsObject(body)) {
        snprintf(msg, cap, "request body: expected a JSON object {\"path\": ...}");
        return -1;
    }
    int seen_load = 0;
    for (const cJSON *m = body->child; m; m = m->next) {
        if (m->string && !strcmp(m->string, "path")) {
            if (*path) {
                snprintf(msg, cap, "request body: \"path\" given twice");
                return -1;
            }
            if (member_text(m, "path", path, msg, cap))
                return -1;
        } else if (m->string && !strcmp(m->string, "load")) {
            if (!cJSON_IsBool(m) || seen_load++) {
                snprintf(msg, cap, "request body: \"load\" must be true or false (once)");
                return -1;
            }
            *load = cJSON_IsTrue(m);
        } else {
            char nm[80];
            name_for_msg(nm, sizeof nm, m->string);
            snprintf(msg, cap, "request body: unknown field \"%s\" (fields: path, load)", nm);
            return -1;
        }
    }
    if (!*path) {
        snprintf(msg, cap, "request body: \"path\" (a .zkey path) is required");
        return -1;
    }
    return 0;
}

int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9' || strlen(s) > 20)
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int split_path(const char *url, const char *prefix, char *id, size_t cap, const char **tail)
{
    size_t pl = strlen(prefix);
    if (strncmp(url, prefix, pl) || !url[pl])
        return 0;
    const char *p = url + pl, *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    if (!n || n >= cap)
        return 0;
    memcpy(id, p, n);
    id[n] = 0;
    *tail = slash ? slash : "";
    return 1;
}
