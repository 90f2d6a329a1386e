/* snarkjs JSON files (snarkjs-formats.md §6): proof.json, public.json and
 * verification_key.json. Parsing uses cJSON; output is produced by a small
 * emitter that reproduces JavaScript's JSON.stringify(x, null, 1) byte for
 * byte (snarkjs), or the compact form (rapidsnark). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/fmt_internal.h"
#include "util/bigint.h"

/* ---- emitter ---------------------------------------------------------------- */

#define JW_MAX_DEPTH 16

typedef struct {
    char *buf;
    size_t len, cap;
    bool oom, pretty, after_key;
    int depth;
    unsigned count[JW_MAX_DEPTH];
} jw;

static void jw_put(jw *w, const char *s, size_t n)
{
    if (w->oom)
        return;
    if (w->len + n + 1 > w->cap) {
        size_t nc = w->cap ? w->cap : 1024;
        while (nc < w->len + n + 1)
            nc *= 2;
        char *nb = realloc(w->buf, nc);
        if (!nb) {
            w->oom = true;
            return;
        }
        w->buf = nb;
        w->cap = nc;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = 0;
}
static void jw_puts(jw *w, const char *s) { jw_put(w, s, strlen(s)); }

static void jw_newline(jw *w, int indent)
{
    jw_puts(w, "\n");
    for (int i = 0; i < indent; i++)
        jw_puts(w, " ");
}

/* Separator and indentation before a value or key at the current depth. */
static void jw_pre(jw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0) {
        if (w->count[w->depth]++)
            jw_puts(w, ",");
        if (w->pretty)
            jw_newline(w, w->depth);
    }
}

static void jw_open(jw *w, char c)
{
    jw_pre(w);
    jw_put(w, &c, 1);
    if (w->depth + 1 >= JW_MAX_DEPTH) {
        w->oom = true; /* cannot happen with our fixed shapes */
        return;
    }
    w->count[++w->depth] = 0;
}

static void jw_close(jw *w, char c)
{
    if (w->count[w->depth] && w->pretty)
        jw_newline(w, w->depth - 1);
    jw_put(w, &c, 1);
    w->depth--;
}

static void jw_quoted(jw *w, const char *s)
{
    jw_puts(w, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            jw_puts(w, "\\");
        jw_put(w, s, 1);
    }
    jw_puts(w, "\"");
}

static void jw_key(jw *w, const char *k)
{
    jw_pre(w);
    jw_quoted(w, k);
    jw_puts(w, w->pretty ? ": " : ":");
    w->after_key = true;
}

static void jw_str(jw *w, const char *s)
{
    jw_pre(w);
    jw_quoted(w, s);
}

static void jw_uint(jw *w, unsigned long long v)
{
    char b[32];
    snprintf(b, sizeof b, "%llu", v);
    jw_pre(w);
    jw_puts(w, b);
}

static cuzk_status jw_finish(jw *w, char **out, size_t *len, cuzk_error *err)
{
    if (w->oom || !w->buf) {
        free(w->buf);
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory serialising JSON");
    }
    *out = w->buf;
    if (len)
        *len = w->len;
    return CUZK_OK;
}

/* Fq element (Montgomery) as a JSON decimal string. */
static void jw_fq(jw *w, const fmt_ops *ops, const void *fq)
{
    char d[200];
    if (ops->fq_to_dec(d, sizeof d, fq) < 0) {
        w->oom = true;
        return;
    }
    jw_str(w, d);
}

static bool all_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

/* snarkjs toObject: projective with z = 1, infinity = (0, 1, 0). */
static void jw_g1(jw *w, const fmt_ops *ops, const void *pt)
{
    size_t fq = ops->desc->n8q;
    jw_open(w, '[');
    if (all_zero(pt, ops->desc->g1_affine)) {
        jw_str(w, "0");
        jw_str(w, "1");
        jw_str(w, "0");
    } else {
        jw_fq(w, ops, pt);
        jw_fq(w, ops, (const uint8_t *)pt + fq);
        jw_str(w, "1");
    }
    jw_close(w, ']');
}

static void jw_g2(jw *w, const fmt_ops *ops, const void *pt)
{
    size_t fq = ops->desc->n8q;
    const uint8_t *b = pt;
    bool inf = all_zero(pt, ops->desc->g2_affine);
    jw_open(w, '[');
    for (int c = 0; c < 2; c++) {
        jw_open(w, '[');
        if (inf) {
            jw_str(w, c == 1 ? "1" : "0");
            jw_str(w, "0");
        } else {
            jw_fq(w, ops, b + (2 * c) * fq);
            jw_fq(w, ops, b + (2 * c + 1) * fq);
        }
        jw_close(w, ']');
    }
    jw_open(w, '[');
    jw_str(w, inf ? "0" : "1");
    jw_str(w, "0");
    jw_close(w, ']');
    jw_close(w, ']');
}

/* ---- reading helpers ---------------------------------------------------------- */

/* Size limits, from what each file can legitimately hold (snarkjs writes
 * about 1.5 KB for a proof, ~80 bytes a public signal and ~270 bytes an IC
 * point; the limits leave room for any formatting). */
#define JSON_PROOF_MAX ((size_t)64 << 10)
#define JSON_VK_MAX ((size_t)256 << 20)
#define JSON_PUBLIC_MAX ((size_t)256 << 20)
#define JSON_MAX_DEPTH 64

static cuzk_status read_text(const char *path, size_t max, const char *what, char **out,
                             size_t *len, cuzk_error *err)
{
    int fd;
    uint64_t size;
    cuzk_status st = cuzk_open_input_for(path, what, &fd, &size, err);
    if (st)
        return st;
    if (size > max) {
        close(fd);
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %llu bytes, more than %s can hold (at most %zu)",
                        path, (unsigned long long)size, what, max);
    }
    char *buf = malloc((size_t)size + 1);
    if (!buf) {
        close(fd);
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory reading the file", path);
    }
    size_t n = 0;
    while (n < size) {
        ssize_t got = read(fd, buf + n, (size_t)size - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            int e = got < 0 ? errno : EIO;
            close(fd);
            free(buf);
            return cuzk_err(err, CUZK_ERR_IO, "%s: read error: %s", path,
                            got < 0 ? strerror(e) : "the file shrank while it was read");
        }
        n += (size_t)got;
    }
    close(fd);
    buf[n] = 0;
    *out = buf;
    *len = n;
    return CUZK_OK;
}

/* ---- the JSON text as JavaScript's JSON.parse reads it ---------------------------
 * snarkjs reads its files with JSON.parse(fs.readFileSync(f, "utf8")). Before
 * cJSON builds a tree, the text is checked against the same grammar (RFC 8259:
 * only space, tab, CR and LF as white space, strict numbers, no control
 * characters in strings), with three refusals of ours: a UTF-8 byte-order
 * mark (JSON.parse rejects it too: it is not white space), a NUL in a string
 * (\u0000: cJSON would cut the string there and read "1\u0000x" as "1",
 * where snarkjs fails on the whole string) and nesting deeper than
 * JSON_MAX_DEPTH. Duplicate keys are valid JSON: the last one wins, as in
 * JavaScript (obj_get). The scan counts the values, which bounds the tree. */

typedef struct {
    const char *p, *end, *start, *nm;
    size_t values;
    cuzk_error *err;
} jscan;

static cuzk_status js_fail(jscan *s, const char *what)
{
    return cuzk_err(s->err, CUZK_ERR_FORMAT, "%s: invalid JSON: %s at byte %zu", s->nm, what,
                    (size_t)(s->p - s->start));
}

static void js_ws(jscan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A string at s->p (the opening quote). */
static cuzk_status js_string(jscan *s)
{
    s->p++;
    while (s->p < s->end) {
        unsigned char c = (unsigned char)*s->p;
        if (c == '"') {
            s->p++;
            return CUZK_OK;
        }
        if (c == 0)
            return js_fail(s, "a NUL byte inside a string");
        if (c < 0x20)
            return js_fail(s, "a control character inside a string");
        if (c != '\\') {
            s->p++;
            continue;
        }
        if (s->end - s->p < 2)
            break;
        char e = s->p[1];
        if (e == 'u') {
            if (s->end - s->p < 6)
                break;
            unsigned v = 0;
            for (int i = 2; i < 6; i++) {
                int h = hexval(s->p[i]);
                if (h < 0)
                    return js_fail(s, "a bad \\u escape");
                v = v * 16 + (unsigned)h;
            }
            if (v == 0)
                return js_fail(s, "a NUL (\\u0000) inside a string");
            s->p += 6;
        } else if (strchr("\"\\/bfnrt", e) && e) {
            s->p += 2;
        } else {
            return js_fail(s, "a bad escape");
        }
    }
    return js_fail(s, "an unterminated string");
}

static cuzk_status js_number(jscan *s)
{
    const char *p = s->p;
    if (p < s->end && *p == '-')
        p++;
    if (p >= s->end || *p < '0' || *p > '9')
        return js_fail(s, "a bad number");
    if (*p == '0')
        p++;
    else
        while (p < s->end && *p >= '0' && *p <= '9')
            p++;
    if (p < s->end && *p == '.') {
        p++;
        if (p >= s->end || *p < '0' || *p > '9')
            return js_fail(s, "a bad number");
        while (p < s->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < s->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < s->end && (*p == '+' || *p == '-'))
            p++;
        if (p >= s->end || *p < '0' || *p > '9')
            return js_fail(s, "a bad number");
        while (p < s->end && *p >= '0' && *p <= '9')
            p++;
    }
    s->p = p;
    return CUZK_OK;
}

static cuzk_status js_value(jscan *s, int depth)
{
    js_ws(s);
    if (s->p >= s->end)
        return js_fail(s, "unexpected end");
    s->values++;
    char c = *s->p;
    if (c == '"')
        return js_string(s);
    if (c == '-' || (c >= '0' && c <= '9'))
        return js_number(s);
    static const char *const lit[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(lit[i]);
        if ((size_t)(s->end - s->p) >= n && !memcmp(s->p, lit[i], n)) {
            s->p += n;
            return CUZK_OK;
        }
    }
    if (c != '[' && c != '{')
        return js_fail(s, (unsigned char)c == 0xef ? "a UTF-8 byte-order mark" : "an unexpected character");
    if (depth >= JSON_MAX_DEPTH)
        return js_fail(s, "nesting deeper than 64 levels");
    char close = c == '[' ? ']' : '}';
    s->p++;
    js_ws(s);
    if (s->p < s->end && *s->p == close) {
        s->p++;
        return CUZK_OK;
    }
    for (;;) {
        cuzk_status st;
        if (close == '}') {
            js_ws(s);
            if (s->p >= s->end || *s->p != '"')
                return js_fail(s, "a missing object key");
            if ((st = js_string(s)))
                return st;
            js_ws(s);
            if (s->p >= s->end || *s->p != ':')
                return js_fail(s, "a missing ':'");
            s->p++;
        }
        if ((st = js_value(s, depth + 1)))
            return st;
        js_ws(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            continue;
        }
        if (s->p < s->end && *s->p == close) {
            s->p++;
            return CUZK_OK;
        }
        return js_fail(s, close == ']' ? "a missing ',' or ']'" : "a missing ',' or '}'");
    }
}

/* The whole text is one JSON value (white space around it); *values counts
 * every value, containers included. */
static cuzk_status json_scan(const char *text, size_t len, const char *nm, size_t *values,
                             cuzk_error *err)
{
    jscan s = {text, text + len, text, nm, 0, err};
    cuzk_status st = js_value(&s, 0);
    if (st)
        return st;
    js_ws(&s);
    if (s.p != s.end)
        return js_fail(&s, "trailing data");
    *values = s.values;
    return CUZK_OK;
}

static cuzk_status parse_json(cJSON **root, const char *text, size_t len, const char *nm,
                              cuzk_error *err)
{
    *root = NULL;
    size_t values;
    cuzk_status st = json_scan(text, len, nm, &values, err);
    if (st)
        return st;
    /* The tree costs ~100 bytes a value: a text of tiny values (a 20 MB
     * array of "1" would be ~800 MB of tree) is refused; snarkjs files have
     * long decimal strings, a few times smaller as a tree than as text. */
    if (values > len / 8 + 65536)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: %zu JSON values in %zu bytes: not a snarkjs file (its values are long "
                        "decimal strings)", nm, values, len);
    const char *end = NULL;
    *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!*root) {
        size_t off = end && end >= text ? (size_t)(end - text) : 0;
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: invalid JSON near byte %zu", nm, off);
    }
    return CUZK_OK;
}

/* Member `key` of an object; with duplicate keys the last, as in JavaScript. */
static const cJSON *obj_get(const cJSON *o, const char *key)
{
    const cJSON *r = NULL;
    for (const cJSON *c = o ? o->child : NULL; c; c = c->next)
        if (c->string && !strcmp(c->string, key))
            r = c;
    return r;
}

/* Decimal string -> Fq (Montgomery), with messages. */
static cuzk_status get_fq(const fmt_ops *ops, void *out, const cJSON *v, const char *nm,
                          const char *what, cuzk_status bad, cuzk_error *err)
{
    if (!cJSON_IsString(v))
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %s is not a decimal string", nm, what);
    switch (ops->fq_from_dec(out, v->valuestring)) {
    case FMT_DEC_OK: return CUZK_OK;
    case FMT_DEC_SYNTAX:
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %s is not a decimal string", nm, what);
    default:
        return cuzk_err(err, bad, "%s: %s is >= q (value >= modulus)", nm, what);
    }
}

/* "1" -> 1, "0" -> 0, anything else -> -1 (z must be normalised). */
static int z_value(const cJSON *v)
{
    if (!cJSON_IsString(v))
        return -1;
    if (!strcmp(v->valuestring, "1"))
        return 1;
    if (!strcmp(v->valuestring, "0"))
        return 0;
    return -1;
}

static bool is_array_n(const cJSON *v, int n) { return cJSON_IsArray(v) && cJSON_GetArraySize(v) == n; }

/* A point read into out: infinity (z = 0) stored as zeros, else checked on
 * the curve and in the subgroup ((0, 0) is our infinity encoding, not a
 * curve point); a bad point is `bad`. */
static cuzk_status point_done(const fmt_ops *ops, void *out, bool g2, bool infinity, const char *nm,
                              const char *what, cuzk_status bad, cuzk_error *err)
{
    size_t sz = g2 ? ops->desc->g2_affine : ops->desc->g1_affine;
    if (infinity) {
        memset(out, 0, sz);
        return CUZK_OK;
    }
    int why = all_zero(out, sz) ? FMT_PT_CURVE : g2 ? ops->g2_check(out, true) : ops->g1_check(out, true);
    if (why)
        return cuzk_err(err, bad, "%s: point %s %s", nm, what, fmt_pt_reason(why));
    return CUZK_OK;
}

static cuzk_status get_g1(const fmt_ops *ops, void *out, const cJSON *v, const char *nm,
                          const char *what, cuzk_status bad, cuzk_error *err)
{
    char w[96];
    if (!is_array_n(v, 3))
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %s is not a G1 point [x, y, z]", nm, what);
    int z = z_value(cJSON_GetArrayItem(v, 2));
    if (z < 0)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %s: z must be \"1\" (affine) or \"0\" (infinity)",
                        nm, what);
    uint8_t *b = out;
    size_t fq = ops->desc->n8q;
    cuzk_status st;
    snprintf(w, sizeof w, "%s.x", what);
    if ((st = get_fq(ops, b, cJSON_GetArrayItem(v, 0), nm, w, bad, err)))
        return st;
    snprintf(w, sizeof w, "%s.y", what);
    if ((st = get_fq(ops, b + fq, cJSON_GetArrayItem(v, 1), nm, w, bad, err)))
        return st;
    return point_done(ops, out, false, z == 0, nm, what, bad, err);
}

static cuzk_status get_g2(const fmt_ops *ops, void *out, const cJSON *v, const char *nm,
                          const char *what, cuzk_status bad, cuzk_error *err)
{
    char w[96];
    if (!is_array_n(v, 3))
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %s is not a G2 point [x, y, z]", nm, what);
    const cJSON *zc = cJSON_GetArrayItem(v, 2);
    int z0 = is_array_n(zc, 2) ? z_value(cJSON_GetArrayItem(zc, 0)) : -1;
    int z1 = is_array_n(zc, 2) ? z_value(cJSON_GetArrayItem(zc, 1)) : -1;
    if (z0 < 0 || z1 != 0)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: %s: z must be [\"1\", \"0\"] (affine) or [\"0\", \"0\"] (infinity)", nm,
                        what);
    uint8_t *b = out;
    size_t fq = ops->desc->n8q;
    for (int c = 0; c < 2; c++) {
        const cJSON *co = cJSON_GetArrayItem(v, c);
        if (!is_array_n(co, 2))
            return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %s.%c is not an Fq2 pair", nm, what,
                            c ? 'y' : 'x');
        for (int k = 0; k < 2; k++) {
            cuzk_status st;
            snprintf(w, sizeof w, "%s.%c.c%d", what, c ? 'y' : 'x', k);
            if ((st = get_fq(ops, b + (2 * c + k) * fq, cJSON_GetArrayItem(co, k), nm, w, bad, err)))
                return st;
        }
    }
    return point_done(ops, out, true, z0 == 0, nm, what, bad, err);
}

static cuzk_status get_curve(const cJSON *root, const char *nm, cuzk_curve hint, cuzk_curve *out,
                             cuzk_error *err)
{
    const cJSON *c = obj_get(root, "curve");
    if (!c) {
        if (hint == CUZK_CURVE_NONE)
            return cuzk_err(err, CUZK_ERR_FORMAT, "%s: no \"curve\" field", nm);
        *out = hint;
        return CUZK_OK;
    }
    cuzk_curve cv = cJSON_IsString(c) ? cuzk_curve_from_name(c->valuestring) : CUZK_CURVE_NONE;
    if (cv == CUZK_CURVE_NONE)
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "%s: wrong curve \"%s\" (supported: bn128, bls12381)",
                        nm, cJSON_IsString(c) ? c->valuestring : "?");
    if (hint != CUZK_CURVE_NONE && hint != cv)
        return cuzk_err(err, CUZK_ERR_MISMATCH, "%s: wrong curve: the file is for %s, expected %s", nm,
                        cuzk_curve_name(cv), cuzk_curve_name(hint));
    *out = cv;
    return CUZK_OK;
}

static cuzk_status check_protocol(const cJSON *root, const char *nm, bool required, cuzk_error *err)
{
    const cJSON *p = obj_get(root, "protocol");
    if (!p && !required)
        return CUZK_OK;
    if (!cJSON_IsString(p) || strcmp(p->valuestring, "groth16") != 0)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: \"protocol\" must be \"groth16\"", nm);
    return CUZK_OK;
}

/* ---- proof.json ------------------------------------------------------------------ */

/* proof.json and verification_key.json: a JSON object, "protocol" groth16
 * (required or not), and its curve (get_curve). On error *root is NULL. */
static cuzk_status parse_groth16_object(cJSON **root, const char *text, size_t len, const char *nm,
                                        bool protocol_required, cuzk_curve hint, cuzk_curve *curve,
                                        cuzk_error *err)
{
    cuzk_status st = parse_json(root, text, len, nm, err);
    if (st)
        return st;
    if (!cJSON_IsObject(*root))
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: not a JSON object", nm);
    else if (!(st = check_protocol(*root, nm, protocol_required, err)))
        st = get_curve(*root, nm, hint, curve, err);
    if (st) {
        cJSON_Delete(*root);
        *root = NULL;
    }
    return st;
}

/* ---- the three files: one reader and one writer --------------------------------------
 * Each kind of file is its size bound and description (read_text), its text
 * reader, and its serialiser into the emitter (which checks what it is
 * given); the path and string functions of every kind go through these. */
typedef struct json_kind {
    size_t max;
    const char *what;
    cuzk_status (*parse)(void *out, const char *text, size_t len, const char *name, cuzk_curve curve,
                         cuzk_error *err);
    cuzk_status (*build)(jw *w, const void *obj, int style, cuzk_error *err);
} json_kind;

static cuzk_status json_read_file(const json_kind *k, void *out, const char *path, cuzk_curve curve,
                                  cuzk_error *err)
{
    char *text;
    size_t len;
    cuzk_status st = read_text(path, k->max, k->what, &text, &len, err);
    if (st)
        return st;
    st = k->parse(out, text, len, path, curve, err);
    free(text);
    return st;
}

/* JSON.stringify(x, null, 1) (snarkjs) or compact (CUZK_JSON_RAPIDSNARK). */
static cuzk_status json_text(const json_kind *k, const void *obj, int style, char **out, size_t *len,
                             cuzk_error *err)
{
    jw w = {.pretty = style != CUZK_JSON_RAPIDSNARK};
    cuzk_status st = k->build(&w, obj, style, err);
    if (st) {
        free(w.buf);
        return st;
    }
    return jw_finish(&w, out, len, err);
}

static cuzk_status json_write_file(const json_kind *k, const void *obj, int style, const char *path,
                                   cuzk_error *err)
{
    char *s = NULL;
    size_t len = 0;
    cuzk_status st = json_text(k, obj, style, &s, &len, err);
    if (st)
        return st;
    st = cuzk_write_file_atomic(path, s, len, err);
    free(s);
    return st;
}

/* A point of a snarkjs object: its key, group and place in our struct. */
typedef struct {
    const char *key;
    bool g2;
    size_t offset;
} named_point;

/* The points of a proof and of a verification key, in file order. */
static const named_point PROOF_POINTS[] = {
    {"pi_a", false, offsetof(cuzk_proof_points, a)},
    {"pi_b", true, offsetof(cuzk_proof_points, b)},
    {"pi_c", false, offsetof(cuzk_proof_points, c)},
};
static const named_point VK_POINTS[] = {
    {"vk_alpha_1", false, offsetof(cuzk_vk, alpha_1)},
    {"vk_beta_2", true, offsetof(cuzk_vk, beta_2)},
    {"vk_gamma_2", true, offsetof(cuzk_vk, gamma_2)},
    {"vk_delta_2", true, offsetof(cuzk_vk, delta_2)},
};

/* Reads the n points pt[] of root into obj. One that is missing is a format
 * error (all are looked for first); one that is not a valid group element
 * returns `bad`. */
static cuzk_status get_points(const fmt_ops *ops, const cJSON *root, const named_point *pt, size_t n,
                              void *obj, const char *nm, cuzk_status bad, cuzk_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (!obj_get(root, pt[i].key))
            return cuzk_err(err, CUZK_ERR_FORMAT, "%s: missing %s", nm, pt[i].key);
    for (size_t i = 0; i < n; i++) {
        const cJSON *v = obj_get(root, pt[i].key);
        void *dst = (uint8_t *)obj + pt[i].offset;
        cuzk_status st = pt[i].g2 ? get_g2(ops, dst, v, nm, pt[i].key, bad, err)
                                  : get_g1(ops, dst, v, nm, pt[i].key, bad, err);
        if (st)
            return st;
    }
    return CUZK_OK;
}

/* Writes the n points pt[] of obj as members of the open object. */
static void put_points(jw *w, const fmt_ops *ops, const named_point *pt, size_t n, const void *obj)
{
    for (size_t i = 0; i < n; i++) {
        const void *src = (const uint8_t *)obj + pt[i].offset;
        jw_key(w, pt[i].key);
        if (pt[i].g2)
            jw_g2(w, ops, src);
        else
            jw_g1(w, ops, src);
    }
}

cuzk_status cuzk_proof_points_read_json_buffer(cuzk_proof_points *p, const char *text, size_t len,
                                        const char *name, cuzk_curve curve, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    const char *nm = name ? name : "proof";
    cJSON *root = NULL;
    cuzk_status st = parse_groth16_object(&root, text, len, nm, false, curve, &p->curve, err);
    if (st)
        goto out;
    /* A point that is not a valid group element makes an invalid proof,
     * as for snarkjs (isWellConstructed -> "Invalid proof"). */
    st = get_points(fmt_ops_get(p->curve), root, PROOF_POINTS, CUZK_ARRAY_LEN(PROOF_POINTS), p, nm,
                    CUZK_ERR_INVALID_PROOF, err);
out:
    cJSON_Delete(root);
    if (st)
        memset(p, 0, sizeof *p);
    return st;
}

static cuzk_status proof_parse(void *out, const char *text, size_t len, const char *name, cuzk_curve curve,
                               cuzk_error *err)
{
    return cuzk_proof_points_read_json_buffer(out, text, len, name, curve, err);
}

static cuzk_status proof_build(jw *w, const void *obj, int style, cuzk_error *err)
{
    const cuzk_proof_points *p = obj;
    const fmt_ops *ops = fmt_ops_get(p->curve);
    if (!ops)
        return cuzk_err(err, CUZK_ERR_USAGE, "proof has no supported curve");
    jw_open(w, '{');
    put_points(w, ops, PROOF_POINTS, CUZK_ARRAY_LEN(PROOF_POINTS), p);
    jw_key(w, "protocol");
    jw_str(w, "groth16");
    if (style != CUZK_JSON_RAPIDSNARK) {
        jw_key(w, "curve");
        jw_str(w, ops->desc->snarkjs_name);
    }
    jw_close(w, '}');
    return CUZK_OK;
}

static const json_kind PROOF_JSON = {JSON_PROOF_MAX, "a proof", proof_parse, proof_build};

cuzk_status cuzk_proof_points_read_json(cuzk_proof_points *p, const char *path, cuzk_curve curve, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    return json_read_file(&PROOF_JSON, p, path, curve, err);
}

cuzk_status cuzk_proof_points_to_json(const cuzk_proof_points *p, int style, char **out, size_t *len,
                               cuzk_error *err)
{
    return json_text(&PROOF_JSON, p, style, out, len, err);
}

cuzk_status cuzk_proof_points_write_json(const cuzk_proof_points *p, const char *path, int style, cuzk_error *err)
{
    return json_write_file(&PROOF_JSON, p, style, path, err);
}

/* ---- public.json ------------------------------------------------------------------- */

void cuzk_public_free(cuzk_public *pub)
{
    if (!pub)
        return;
    cuzk_free(pub->values.ptr);
    memset(pub, 0, sizeof *pub);
}

cuzk_status cuzk_public_read_json_buffer(cuzk_public *pub, const char *text, size_t len,
                                         const char *name, cuzk_curve curve, cuzk_error *err)
{
    memset(pub, 0, sizeof *pub);
    const char *nm = name ? name : "public";
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(curve);
    if (!cp)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: the curve of the public signals must be given", nm);
    /* No tree: the array is read straight from the checked text, so memory
     * is 32 bytes a signal whatever the values look like. */
    size_t values;
    cuzk_status st = json_scan(text, len, nm, &values, err);
    if (st)
        return st;
    const char *p = text, *end = text + len;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (*p != '[')
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: not a JSON array of decimal strings", nm);
    if (values - 1 > UINT32_MAX)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: more than 2^32 public signals", nm);
    pub->curve = curve;
    pub->values.ptr = cuzk_alloc(values, 32);
    if (!pub->values.ptr)
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory for %zu public signals", nm, values - 1);
    uint64_t(*v)[4] = pub->values.ptr;
    uint32_t i = 0;
    for (p++;; i++) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (*p == ']')
            break;
        /* A string of decimal digits (escapes decoded, as JSON.parse does). */
        bool ok = *p == '"', big = false;
        size_t digits = 0;
        memset(v[i], 0, 32);
        const char *q = p + 1;
        while (ok && q < end && *q != '"') {
            unsigned c = (unsigned char)*q++;
            if (c == '\\') {
                if (*q == 'u') {
                    c = (unsigned)(hexval(q[1]) << 12 | hexval(q[2]) << 8 | hexval(q[3]) << 4 | hexval(q[4]));
                    q += 5;
                } else {
                    c = 0;
                    q++;
                }
            }
            if (c < '0' || c > '9') {
                ok = false;
                break;
            }
            uint64_t carry = c - '0';
            for (int k = 0; k < 4; k++) {
                unsigned __int128 t = (unsigned __int128)v[i][k] * 10u + carry;
                v[i][k] = (uint64_t)t;
                carry = (uint64_t)(t >> 64);
            }
            big |= carry != 0;
            digits++;
        }
        if (!ok || !digits) {
            st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: public signal %u is not a decimal string", nm, i);
            goto out;
        }
        if (big || !fmt_limbs_lt(v[i], cp->r, 4)) {
            st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: public signal %u is >= r (value >= modulus)", nm, i);
            goto out;
        }
        p = q + 1;
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (*p == ',')
            p++;
    }
    pub->n = i;
out:
    if (st)
        cuzk_public_free(pub);
    return st;
}

static cuzk_status public_parse(void *out, const char *text, size_t len, const char *name, cuzk_curve curve,
                                cuzk_error *err)
{
    return cuzk_public_read_json_buffer(out, text, len, name, curve, err);
}

/* What cuzk_public_to_json serialises. */
typedef struct {
    cuzk_curve curve;
    const void *values;
    size_t n;
} public_values;

static cuzk_status public_build(jw *w, const void *obj, int style, cuzk_error *err)
{
    (void)style;
    const public_values *pv = obj;
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(pv->curve);
    if (!cp)
        return cuzk_err(err, CUZK_ERR_USAGE, "public signals have no supported curve");
    const uint64_t(*v)[4] = pv->values;
    jw_open(w, '[');
    for (size_t i = 0; i < pv->n; i++) {
        char d[100];
        if (!fmt_limbs_lt(v[i], cp->r, 4) || cuzk_bn_to_dec(d, sizeof d, v[i], 4) < 0)
            return cuzk_err(err, CUZK_ERR_USAGE, "public signal %zu is >= r", i);
        jw_str(w, d);
    }
    jw_close(w, ']');
    return CUZK_OK;
}

static const json_kind PUBLIC_JSON = {JSON_PUBLIC_MAX, "a public-signals file", public_parse, public_build};

cuzk_status cuzk_public_count_json(const char *path, size_t *n, cuzk_error *err)
{
    *n = SIZE_MAX;
    int fd;
    uint64_t size;
    cuzk_status st = cuzk_open_input_for(path, PUBLIC_JSON.what, &fd, &size, err);
    if (st)
        return st;
    if (size > JSON_PUBLIC_MAX) {
        close(fd);
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %llu bytes, more than %s can hold (at most %zu)", path,
                        (unsigned long long)size, PUBLIC_JSON.what, PUBLIC_JSON.max);
    }
    /* ws [ ws ("digits" ws (, ws "digits" ws)*)? ] ws, streamed. */
    enum { PRE, FIRST, VAL, STR, POST, END, OTHER } state = PRE;
    size_t count = 0, digits = 0;
    char buf[1 << 16];
    for (;;) {
        ssize_t got = read(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            close(fd);
            return cuzk_err(err, CUZK_ERR_IO, "%s: read error: %s", path, strerror(e));
        }
        if (got == 0)
            break;
        for (ssize_t i = 0; i < got && state != OTHER; i++) {
            char c = buf[i];
            bool ws = c == ' ' || c == '\t' || c == '\n' || c == '\r';
            switch (state) {
            case PRE: state = ws ? PRE : c == '[' ? FIRST : OTHER; break;
            case FIRST:
            case VAL:
                if (ws)
                    break;
                if (c == '"') {
                    state = STR;
                    digits = 0;
                } else {
                    state = state == FIRST && c == ']' ? END : OTHER;
                }
                break;
            case STR:
                if (c >= '0' && c <= '9') {
                    digits++;
                } else if (c == '"' && digits) {
                    count++;
                    state = POST;
                } else {
                    state = OTHER; /* escapes, other characters: the full read judges them */
                }
                break;
            case POST: state = ws ? POST : c == ',' ? VAL : c == ']' ? END : OTHER; break;
            case END: state = ws ? END : OTHER; break;
            case OTHER: break;
            }
        }
        if (state == OTHER)
            break;
    }
    close(fd);
    if (state == END)
        *n = count;
    return CUZK_OK;
}

cuzk_status cuzk_public_read_json(cuzk_public *pub, const char *path, cuzk_curve curve,
                                  cuzk_error *err)
{
    memset(pub, 0, sizeof *pub);
    return json_read_file(&PUBLIC_JSON, pub, path, curve, err);
}

cuzk_status cuzk_public_to_json(cuzk_curve curve, const void *values, size_t n, int style,
                                char **out, size_t *len, cuzk_error *err)
{
    public_values pv = {curve, values, n};
    return json_text(&PUBLIC_JSON, &pv, style, out, len, err);
}

cuzk_status cuzk_public_write_json(cuzk_curve curve, const void *values, size_t n,
                                   const char *path, int style, cuzk_error *err)
{
    public_values pv = {curve, values, n};
    return json_write_file(&PUBLIC_JSON, &pv, style, path, err);
}

/* ---- verification_key.json ---------------------------------------------------------- */

void cuzk_vk_free(cuzk_vk *vk)
{
    if (!vk)
        return;
    cuzk_free(vk->ic.ptr);
    free(vk->prep);
    memset(vk, 0, sizeof *vk);
}

cuzk_status cuzk_vk_from_zkey(cuzk_vk *vk, const cuzk_zkey *zk, cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(zk->curve);
    if (!cp || !zk->ic.ptr)
        return cuzk_err(err, CUZK_ERR_USAGE, "zkey not loaded");
    vk->curve = zk->curve;
    vk->n_public = zk->n_public;
    vk->alpha_1 = zk->alpha_1;
    vk->beta_2 = zk->beta_2;
    vk->gamma_2 = zk->gamma_2;
    vk->delta_2 = zk->delta_2;
    vk->ic.ptr = cuzk_alloc((size_t)zk->n_public + 1, cp->g1_affine);
    if (!vk->ic.ptr)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    memcpy(vk->ic.ptr, zk->ic.ptr, ((size_t)zk->n_public + 1) * cp->g1_affine);
    return CUZK_OK;
}

cuzk_status cuzk_vk_read_json_buffer(cuzk_vk *vk, const char *text, size_t len, const char *name,
                                     cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    const char *nm = name ? name : "verification key";
    cJSON *root = NULL;
    cuzk_status st = parse_groth16_object(&root, text, len, nm, true, CUZK_CURVE_NONE, &vk->curve, err);
    if (st)
        goto out;
    const fmt_ops *ops = fmt_ops_get(vk->curve);
    const cJSON *np = obj_get(root, "nPublic");
    if (!cJSON_IsNumber(np) || np->valuedouble < 0 || np->valuedouble > 4294967294.0 ||
        np->valuedouble != (double)(uint32_t)np->valuedouble) {
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: \"nPublic\" is missing or not a valid count", nm);
        goto out;
    }
    vk->n_public = (uint32_t)np->valuedouble;
    if ((st = get_points(ops, root, VK_POINTS, CUZK_ARRAY_LEN(VK_POINTS), vk, nm, CUZK_ERR_FORMAT, err)))
        goto out;
    const cJSON *ic = obj_get(root, "IC");
    if (!cJSON_IsArray(ic) || (uint64_t)cJSON_GetArraySize(ic) != (uint64_t)vk->n_public + 1) {
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: IC must be an array of nPublic + 1 = %llu points", nm,
                      (unsigned long long)vk->n_public + 1);
        goto out;
    }
    vk->ic.ptr = cuzk_alloc((size_t)vk->n_public + 1, ops->desc->g1_affine);
    if (!vk->ic.ptr) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory", nm);
        goto out;
    }
    size_t i = 0;
    for (const cJSON *e = ic->child; e; e = e->next, i++) {
        char w[32];
        snprintf(w, sizeof w, "IC[%zu]", i);
        if ((st = get_g1(ops, (uint8_t *)vk->ic.ptr + i * ops->desc->g1_affine, e, nm, w, CUZK_ERR_FORMAT, err)))
            goto out;
    }
    const cJSON *ab = obj_get(root, "vk_alphabeta_12");
    if (ab) {
        size_t fq = ops->desc->n8q;
        uint8_t *o = (uint8_t *)&vk->alphabeta_12;
        if (!is_array_n(ab, 2)) {
            st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: vk_alphabeta_12 is not an Fq12 [2][3][2]", nm);
            goto out;
        }
        for (int a = 0; a < 2; a++) {
            const cJSON *x = cJSON_GetArrayItem(ab, a);
            for (int b = 0; b < 3; b++) {
                const cJSON *y = is_array_n(x, 3) ? cJSON_GetArrayItem(x, b) : NULL;
                if (!is_array_n(y, 2)) {
                    st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: vk_alphabeta_12 is not an Fq12 [2][3][2]", nm);
                    goto out;
                }
                for (int c = 0; c < 2; c++) {
                    char w[64];
                    snprintf(w, sizeof w, "vk_alphabeta_12[%d][%d][%d]", a, b, c);
                    if ((st = get_fq(ops, o + (size_t)(a * 6 + b * 2 + c) * fq, cJSON_GetArrayItem(y, c),
                                     nm, w, CUZK_ERR_FORMAT, err)))
                        goto out;
                }
            }
        }
        vk->has_alphabeta = true;
    }
out:
    cJSON_Delete(root);
    if (st)
        cuzk_vk_free(vk);
    return st;
}

static cuzk_status vk_parse(void *out, const char *text, size_t len, const char *name, cuzk_curve curve,
                            cuzk_error *err)
{
    (void)curve; /* the file names its curve */
    return cuzk_vk_read_json_buffer(out, text, len, name, err);
}

static cuzk_status vk_build(jw *w, const void *obj, int style, cuzk_error *err)
{
    (void)style;
    const cuzk_vk *vk = obj;
    const fmt_ops *ops = fmt_ops_get(vk->curve);
    if (!ops || !vk->ic.ptr)
        return cuzk_err(err, CUZK_ERR_USAGE, "verification key has no supported curve");
    if (!vk->has_alphabeta)
        return cuzk_err(err, CUZK_ERR_USAGE, "verification key: vk_alphabeta_12 was not computed");
    jw_open(w, '{');
    jw_key(w, "protocol");
    jw_str(w, "groth16");
    jw_key(w, "curve");
    jw_str(w, ops->desc->snarkjs_name);
    jw_key(w, "nPublic");
    jw_uint(w, vk->n_public);
    put_points(w, ops, VK_POINTS, CUZK_ARRAY_LEN(VK_POINTS), vk);
    jw_key(w, "vk_alphabeta_12");
    const uint8_t *ab = (const uint8_t *)&vk->alphabeta_12;
    size_t fq = ops->desc->n8q;
    jw_open(w, '[');
    for (int a = 0; a < 2; a++) {
        jw_open(w, '[');
        for (int b = 0; b < 3; b++) {
            jw_open(w, '[');
            for (int c = 0; c < 2; c++)
                jw_fq(w, ops, ab + (size_t)(a * 6 + b * 2 + c) * fq);
            jw_close(w, ']');
        }
        jw_close(w, ']');
    }
    jw_close(w, ']');
    jw_key(w, "IC");
    jw_open(w, '[');
    for (size_t i = 0; i <= vk->n_public; i++)
        jw_g1(w, ops, (const uint8_t *)vk->ic.ptr + i * ops->desc->g1_affine);
    jw_close(w, ']');
    jw_close(w, '}');
    return CUZK_OK;
}

static const json_kind VK_JSON = {JSON_VK_MAX, "a verification key", vk_parse, vk_build};

cuzk_status cuzk_vk_read_json(cuzk_vk *vk, const char *path, cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    return json_read_file(&VK_JSON, vk, path, CUZK_CURVE_NONE, err);
}

/* snarkjs writes the verification key pretty-printed only. */
cuzk_status cuzk_vk_to_json(const cuzk_vk *vk, char **out, size_t *len, cuzk_error *err)
{
    return json_text(&VK_JSON, vk, CUZK_JSON_SNARKJS, out, len, err);
}

cuzk_status cuzk_vk_write_json(const cuzk_vk *vk, const char *path, cuzk_error *err)
{
    return json_write_file(&VK_JSON, vk, CUZK_JSON_SNARKJS, path, err);
}
