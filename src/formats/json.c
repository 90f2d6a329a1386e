/* snarkjs JSON files (snarkjs-formats.md §6): proof.json, public.json and
 * verification_key.json. Parsing uses cJSON; output is produced by a small
 * emitter that reproduces JavaScript's JSON.stringify(x, null, 1) byte for
 * byte (snarkjs), or the compact form (rapidsnark). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    size_t fq = ops->p->n8q;
    jw_open(w, '[');
    if (all_zero(pt, ops->p->g1_size)) {
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
    size_t fq = ops->p->n8q;
    const uint8_t *b = pt;
    bool inf = all_zero(pt, ops->p->g2_size);
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

static cuzk_status read_text(const char *path, char **out, size_t *len, cuzk_error *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return cuzk_err(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *nb = cap > ((size_t)1 << 34) ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
        if (got == 0)
            break;
    }
    int rerr = ferror(fp);
    fclose(fp);
    if (!buf)
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory reading the file", path);
    if (rerr) {
        free(buf);
        return cuzk_err(err, CUZK_ERR_IO, "%s: read error", path);
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return CUZK_OK;
}

static cuzk_status parse_json(cJSON **root, const char *text, size_t len, const char *nm,
                              cuzk_error *err)
{
    const char *end = NULL;
    *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!*root) {
        size_t off = end && end >= text ? (size_t)(end - text) : 0;
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: invalid JSON (syntax error near byte %zu)", nm, off);
    }
    /* Only whitespace may follow the value. */
    for (const char *p = end; p && p < text + len; p++)
        if (*p != ' ' && *p != '\n' && *p != '\r' && *p != '\t') {
            cJSON_Delete(*root);
            *root = NULL;
            return cuzk_err(err, CUZK_ERR_FORMAT, "%s: invalid JSON (trailing data at byte %zu)", nm,
                            (size_t)(p - text));
        }
    return CUZK_OK;
}

/* Decimal string -> Fq (Montgomery), with messages. */
static cuzk_status get_fq(const fmt_ops *ops, void *out, const cJSON *v, const char *nm,
                          const char *what, cuzk_error *err)
{
    if (!cJSON_IsString(v))
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %s is not a decimal string", nm, what);
    switch (ops->fq_from_dec(out, v->valuestring)) {
    case FMT_DEC_OK: return CUZK_OK;
    case FMT_DEC_SYNTAX:
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %s is not a decimal string", nm, what);
    default:
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %s is >= q (value >= modulus)", nm, what);
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

static cuzk_status get_g1(const fmt_ops *ops, void *out, const cJSON *v, const char *nm,
                          const char *what, cuzk_error *err)
{
    char w[96];
    if (!is_array_n(v, 3))
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %s is not a G1 point [x, y, z]", nm, what);
    int z = z_value(cJSON_GetArrayItem(v, 2));
    if (z < 0)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %s: z must be \"1\" (affine) or \"0\" (infinity)",
                        nm, what);
    uint8_t *b = out;
    size_t fq = ops->p->n8q;
    cuzk_status st;
    snprintf(w, sizeof w, "%s.x", what);
    if ((st = get_fq(ops, b, cJSON_GetArrayItem(v, 0), nm, w, err)))
        return st;
    snprintf(w, sizeof w, "%s.y", what);
    if ((st = get_fq(ops, b + fq, cJSON_GetArrayItem(v, 1), nm, w, err)))
        return st;
    if (z == 0) {
        memset(out, 0, ops->p->g1_size);
        return CUZK_OK;
    }
    /* (0, 0) is our infinity encoding but not a curve point. */
    int why = all_zero(out, ops->p->g1_size) ? FMT_PT_CURVE : ops->g1_check(out, true);
    if (why)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: point %s %s", nm, what, fmt_pt_reason(why));
    return CUZK_OK;
}

static cuzk_status get_g2(const fmt_ops *ops, void *out, const cJSON *v, const char *nm,
                          const char *what, cuzk_error *err)
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
    size_t fq = ops->p->n8q;
    for (int c = 0; c < 2; c++) {
        const cJSON *co = cJSON_GetArrayItem(v, c);
        if (!is_array_n(co, 2))
            return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %s.%c is not an Fq2 pair", nm, what,
                            c ? 'y' : 'x');
        for (int k = 0; k < 2; k++) {
            cuzk_status st;
            snprintf(w, sizeof w, "%s.%c.c%d", what, c ? 'y' : 'x', k);
            if ((st = get_fq(ops, b + (2 * c + k) * fq, cJSON_GetArrayItem(co, k), nm, w, err)))
                return st;
        }
    }
    if (z0 == 0) {
        memset(out, 0, ops->p->g2_size);
        return CUZK_OK;
    }
    int why = all_zero(out, ops->p->g2_size) ? FMT_PT_CURVE : ops->g2_check(out, true);
    if (why)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: point %s %s", nm, what, fmt_pt_reason(why));
    return CUZK_OK;
}

static cuzk_status get_curve(const cJSON *root, const char *nm, cuzk_curve hint, cuzk_curve *out,
                             cuzk_error *err)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "curve");
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
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "protocol");
    if (!p && !required)
        return CUZK_OK;
    if (!cJSON_IsString(p) || strcmp(p->valuestring, "groth16") != 0)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: \"protocol\" must be \"groth16\"", nm);
    return CUZK_OK;
}

/* ---- proof.json ------------------------------------------------------------------ */

cuzk_status cuzk_proof_points_read_json_buffer(cuzk_proof_points *p, const char *text, size_t len,
                                        const char *name, cuzk_curve curve, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    const char *nm = name ? name : "proof";
    cJSON *root;
    cuzk_status st = parse_json(&root, text, len, nm, err);
    if (st)
        return st;
    if (!cJSON_IsObject(root)) {
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: not a JSON object", nm);
        goto out;
    }
    if ((st = check_protocol(root, nm, false, err)) || (st = get_curve(root, nm, curve, &p->curve, err)))
        goto out;
    const fmt_ops *ops = fmt_ops_get(p->curve);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "pi_a");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "pi_b");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "pi_c");
    if (!a || !b || !c) {
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: missing %s", nm, !a ? "pi_a" : !b ? "pi_b" : "pi_c");
        goto out;
    }
    if ((st = get_g1(ops, &p->a, a, nm, "pi_a", err)) || (st = get_g2(ops, &p->b, b, nm, "pi_b", err)) ||
        (st = get_g1(ops, &p->c, c, nm, "pi_c", err)))
        goto out;
out:
    cJSON_Delete(root);
    if (st)
        memset(p, 0, sizeof *p);
    return st;
}

cuzk_status cuzk_proof_points_read_json(cuzk_proof_points *p, const char *path, cuzk_curve curve, cuzk_error *err)
{
    char *text;
    size_t len;
    memset(p, 0, sizeof *p);
    cuzk_status st = read_text(path, &text, &len, err);
    if (st)
        return st;
    st = cuzk_proof_points_read_json_buffer(p, text, len, path, curve, err);
    free(text);
    return st;
}

cuzk_status cuzk_proof_points_to_json(const cuzk_proof_points *p, int style, char **out, size_t *len,
                               cuzk_error *err)
{
    const fmt_ops *ops = fmt_ops_get(p->curve);
    if (!ops)
        return cuzk_err(err, CUZK_ERR_USAGE, "proof has no supported curve");
    jw w = {.pretty = style != CUZK_JSON_RAPIDSNARK};
    jw_open(&w, '{');
    jw_key(&w, "pi_a");
    jw_g1(&w, ops, &p->a);
    jw_key(&w, "pi_b");
    jw_g2(&w, ops, &p->b);
    jw_key(&w, "pi_c");
    jw_g1(&w, ops, &p->c);
    jw_key(&w, "protocol");
    jw_str(&w, "groth16");
    if (style != CUZK_JSON_RAPIDSNARK) {
        jw_key(&w, "curve");
        jw_str(&w, ops->p->name);
    }
    jw_close(&w, '}');
    return jw_finish(&w, out, len, err);
}

static cuzk_status write_string(const char *path, char *s, size_t len, cuzk_status st,
                                cuzk_error *err)
{
    if (st)
        return st;
    st = cuzk_write_file_atomic(path, s, len, err);
    free(s);
    return st;
}

cuzk_status cuzk_proof_points_write_json(const cuzk_proof_points *p, const char *path, int style, cuzk_error *err)
{
    char *s = NULL;
    size_t len = 0;
    cuzk_status st = cuzk_proof_points_to_json(p, style, &s, &len, err);
    return write_string(path, s, len, st, err);
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
    const cuzk_curve_params *cp = cuzk_curve_params_get(curve);
    if (!cp)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: the curve of the public signals must be given", nm);
    cJSON *root;
    cuzk_status st = parse_json(&root, text, len, nm, err);
    if (st)
        return st;
    if (!cJSON_IsArray(root)) {
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: not a JSON array of decimal strings", nm);
        goto out;
    }
    int n = cJSON_GetArraySize(root);
    pub->curve = curve;
    pub->n = (uint32_t)n;
    pub->values.ptr = cuzk_alloc((size_t)n, 32);
    if (!pub->values.ptr) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory", nm);
        goto out;
    }
    uint64_t(*v)[4] = pub->values.ptr;
    int i = 0;
    for (const cJSON *e = root->child; e; e = e->next, i++) {
        if (!cJSON_IsString(e) || !fmt_is_decimal(e->valuestring, 400)) {
            st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: public signal %d is not a decimal string", nm, i);
            goto out;
        }
        if (!cuzk_bn_from_dec(v[i], 4, e->valuestring) || !fmt_limbs_lt(v[i], cp->r, 4)) {
            st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: public signal %d is >= r (value >= modulus)", nm,
                          i);
            goto out;
        }
    }
out:
    cJSON_Delete(root);
    if (st)
        cuzk_public_free(pub);
    return st;
}

cuzk_status cuzk_public_read_json(cuzk_public *pub, const char *path, cuzk_curve curve,
                                  cuzk_error *err)
{
    char *text;
    size_t len;
    memset(pub, 0, sizeof *pub);
    cuzk_status st = read_text(path, &text, &len, err);
    if (st)
        return st;
    st = cuzk_public_read_json_buffer(pub, text, len, path, curve, err);
    free(text);
    return st;
}

cuzk_status cuzk_public_to_json(cuzk_curve curve, const void *values, size_t n, int style,
                                char **out, size_t *len, cuzk_error *err)
{
    const cuzk_curve_params *cp = cuzk_curve_params_get(curve);
    if (!cp)
        return cuzk_err(err, CUZK_ERR_USAGE, "public signals have no supported curve");
    const uint64_t(*v)[4] = values;
    jw w = {.pretty = style != CUZK_JSON_RAPIDSNARK};
    jw_open(&w, '[');
    for (size_t i = 0; i < n; i++) {
        char d[100];
        if (!fmt_limbs_lt(v[i], cp->r, 4) || cuzk_bn_to_dec(d, sizeof d, v[i], 4) < 0) {
            free(w.buf);
            return cuzk_err(err, CUZK_ERR_USAGE, "public signal %zu is >= r", i);
        }
        jw_str(&w, d);
    }
    jw_close(&w, ']');
    return jw_finish(&w, out, len, err);
}

cuzk_status cuzk_public_write_json(cuzk_curve curve, const void *values, size_t n,
                                   const char *path, int style, cuzk_error *err)
{
    char *s = NULL;
    size_t len = 0;
    cuzk_status st = cuzk_public_to_json(curve, values, n, style, &s, &len, err);
    return write_string(path, s, len, st, err);
}

/* ---- verification_key.json ---------------------------------------------------------- */

void cuzk_vk_free(cuzk_vk *vk)
{
    if (!vk)
        return;
    cuzk_free(vk->ic.ptr);
    memset(vk, 0, sizeof *vk);
}

cuzk_status cuzk_vk_from_zkey(cuzk_vk *vk, const cuzk_zkey *zk, cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    const cuzk_curve_params *cp = cuzk_curve_params_get(zk->curve);
    if (!cp || !zk->ic.ptr)
        return cuzk_err(err, CUZK_ERR_USAGE, "zkey not loaded");
    vk->curve = zk->curve;
    vk->n_public = zk->n_public;
    vk->alpha_1 = zk->alpha_1;
    vk->beta_2 = zk->beta_2;
    vk->gamma_2 = zk->gamma_2;
    vk->delta_2 = zk->delta_2;
    vk->ic.ptr = cuzk_alloc((size_t)zk->n_public + 1, cp->g1_size);
    if (!vk->ic.ptr)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    memcpy(vk->ic.ptr, zk->ic.ptr, ((size_t)zk->n_public + 1) * cp->g1_size);
    return CUZK_OK;
}

cuzk_status cuzk_vk_read_json_buffer(cuzk_vk *vk, const char *text, size_t len, const char *name,
                                     cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    const char *nm = name ? name : "verification key";
    cJSON *root;
    cuzk_status st = parse_json(&root, text, len, nm, err);
    if (st)
        return st;
    if (!cJSON_IsObject(root)) {
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: not a JSON object", nm);
        goto out;
    }
    if ((st = check_protocol(root, nm, true, err)) ||
        (st = get_curve(root, nm, CUZK_CURVE_NONE, &vk->curve, err)))
        goto out;
    const fmt_ops *ops = fmt_ops_get(vk->curve);
    const cJSON *np = cJSON_GetObjectItemCaseSensitive(root, "nPublic");
    if (!cJSON_IsNumber(np) || np->valuedouble < 0 || np->valuedouble > 4294967294.0 ||
        np->valuedouble != (double)(uint32_t)np->valuedouble) {
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: \"nPublic\" is missing or not a valid count", nm);
        goto out;
    }
    vk->n_public = (uint32_t)np->valuedouble;
    const char *keys[4] = {"vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2"};
    void *dst[4] = {&vk->alpha_1, &vk->beta_2, &vk->gamma_2, &vk->delta_2};
    for (int i = 0; i < 4; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, keys[i]);
        if (!v) {
            st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: missing %s", nm, keys[i]);
            goto out;
        }
        if ((st = i == 0 ? get_g1(ops, dst[i], v, nm, keys[i], err) : get_g2(ops, dst[i], v, nm, keys[i], err)))
            goto out;
    }
    const cJSON *ic = cJSON_GetObjectItemCaseSensitive(root, "IC");
    if (!cJSON_IsArray(ic) || (uint64_t)cJSON_GetArraySize(ic) != (uint64_t)vk->n_public + 1) {
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: IC must be an array of nPublic + 1 = %llu points", nm,
                      (unsigned long long)vk->n_public + 1);
        goto out;
    }
    vk->ic.ptr = cuzk_alloc((size_t)vk->n_public + 1, ops->p->g1_size);
    if (!vk->ic.ptr) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory", nm);
        goto out;
    }
    size_t i = 0;
    for (const cJSON *e = ic->child; e; e = e->next, i++) {
        char w[32];
        snprintf(w, sizeof w, "IC[%zu]", i);
        if ((st = get_g1(ops, (uint8_t *)vk->ic.ptr + i * ops->p->g1_size, e, nm, w, err)))
            goto out;
    }
    const cJSON *ab = cJSON_GetObjectItemCaseSensitive(root, "vk_alphabeta_12");
    if (ab) {
        size_t fq = ops->p->n8q;
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
                                     nm, w, err)))
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

cuzk_status cuzk_vk_read_json(cuzk_vk *vk, const char *path, cuzk_error *err)
{
    char *text;
    size_t len;
    memset(vk, 0, sizeof *vk);
    cuzk_status st = read_text(path, &text, &len, err);
    if (st)
        return st;
    st = cuzk_vk_read_json_buffer(vk, text, len, path, err);
    free(text);
    return st;
}

cuzk_status cuzk_vk_to_json(const cuzk_vk *vk, char **out, size_t *len, cuzk_error *err)
{
    const fmt_ops *ops = fmt_ops_get(vk->curve);
    if (!ops || !vk->ic.ptr)
        return cuzk_err(err, CUZK_ERR_USAGE, "verification key has no supported curve");
    if (!vk->has_alphabeta)
        return cuzk_err(err, CUZK_ERR_USAGE, "verification key: vk_alphabeta_12 was not computed");
    jw w = {.pretty = true};
    jw_open(&w, '{');
    jw_key(&w, "protocol");
    jw_str(&w, "groth16");
    jw_key(&w, "curve");
    jw_str(&w, ops->p->name);
    jw_key(&w, "nPublic");
    jw_uint(&w, vk->n_public);
    jw_key(&w, "vk_alpha_1");
    jw_g1(&w, ops, &vk->alpha_1);
    jw_key(&w, "vk_beta_2");
    jw_g2(&w, ops, &vk->beta_2);
    jw_key(&w, "vk_gamma_2");
    jw_g2(&w, ops, &vk->gamma_2);
    jw_key(&w, "vk_delta_2");
    jw_g2(&w, ops, &vk->delta_2);
    jw_key(&w, "vk_alphabeta_12");
    const uint8_t *ab = (const uint8_t *)&vk->alphabeta_12;
    size_t fq = ops->p->n8q;
    jw_open(&w, '[');
    for (int a = 0; a < 2; a++) {
        jw_open(&w, '[');
        for (int b = 0; b < 3; b++) {
            jw_open(&w, '[');
            for (int c = 0; c < 2; c++)
                jw_fq(&w, ops, ab + (size_t)(a * 6 + b * 2 + c) * fq);
            jw_close(&w, ']');
        }
        jw_close(&w, ']');
    }
    jw_close(&w, ']');
    jw_key(&w, "IC");
    jw_open(&w, '[');
    for (size_t i = 0; i <= vk->n_public; i++)
        jw_g1(&w, ops, (const uint8_t *)vk->ic.ptr + i * ops->p->g1_size);
    jw_close(&w, ']');
    jw_close(&w, '}');
    return jw_finish(&w, out, len, err);
}

cuzk_status cuzk_vk_write_json(const cuzk_vk *vk, const char *path, cuzk_error *err)
{
    char *s = NULL;
    size_t len = 0;
    cuzk_status st = cuzk_vk_to_json(vk, &s, &len, err);
    return write_string(path, s, len, st, err);
}
