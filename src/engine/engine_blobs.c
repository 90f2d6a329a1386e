/* DESIGN — witnesses between hosts (a shared queue): blobs.
 *
 * With a shared (PostgreSQL) queue and cluster.advertise_url or
 * cluster.shared_dir set, a witness larger than cluster.inline_witness_max
 * is not stored in the database: the accepting host writes it durably to
 * its blob directory (the spool, or <shared_dir>/<host_id>/) under its
 * content's name, <sha256>.wtns (a streamed upload, hashed as it came, is
 * renamed there, or copied on another file system: never read into
 * memory; a blob of that hash there already makes it redundant), and the
 * job row names it:
 *
 *     blob:<sha256 hex>:<owner host id>:<owner's advertise_url>
 *
 * The proving host reads it from the owner's directory in shared_dir when
 * that is set and the file is there, from its own blob directory when it is
 * the owner, else over GET <url>/v1/blobs/<sha256> with the cluster token
 * (libcurl, connect timeout 5 s, cluster.fetch_timeout in all, at most the
 * job's witness size). Whatever the source, the bytes are hashed and used
 * only if they are the sha256 the job names. A fetch that fails is tried
 * BLOB_TRIES times (backoff 0.25 s doubling); then the job goes back to the
 * queue (an attempt spent; failed with the fetch's one-line error at
 * engine.max_attempts); an owner that answers 404 (the blob is gone for
 * good) fails the job at once.
 *
 * Two jobs with the same witness share one file. A blob file goes when no
 * queued or running job of the cluster names it: the owner's housekeeping
 * (blob_sweep) lists its blob directory, reads the live inputs of the whole
 * queue and removes the others, except blobs a submit of this host is
 * writing or committed after that read (the pins: a submit pins its hash
 * before it writes and marks the pin with a generation once its job is
 * committed; a sweep spares pins newer than its read and drops older ones,
 * which its read saw). */
#include <curl/curl.h>
#include <stdatomic.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "engine/engine_internal.h"

#define BLOB_TRIES 3

int blob_enabled(const cuzk_engine *e)
{
    return e->blob_dir[0] != 0;
}

static cuzk_status blob_url_check(const cuzk_engine *e, const char *url, cuzk_error *err)
{
    if (strlen(BLOB_PREFIX) + 65 + strlen(e->host_id) + 1 + strlen(url) >= sizeof(((eng_job *)0)->witness) ||
        strlen(url) >= sizeof e->adv_url)
        return cuzk_err_force(err, CUZK_ERR_USAGE,
                              "engine.host_id and cluster.advertise_url \"%s\" are too long together (%zu bytes at most)",
                              url, sizeof(((eng_job *)0)->witness) - strlen(BLOB_PREFIX) - 67);
    return CUZK_OK;
}

cuzk_status cuzk_engine_advertise(cuzk_engine *e, const char *url, cuzk_error *err)
{
    if (!blob_enabled(e) || strcmp(e->cfg.advertise_url, "auto"))
        return CUZK_OK;
    cuzk_status st = blob_url_check(e, url, err);
    if (st)
        return st;
    if (strstr(url, "://0.0.0.0:") || strstr(url, "://[::]:"))
        return cuzk_err_force(err, CUZK_ERR_USAGE,
                              "cluster.advertise_url = auto: the server listens on %s, which other hosts "
                              "cannot reach: set the URL they can",
                              url);
    pthread_mutex_lock(&e->blob_mu);
    snprintf(e->adv_url, sizeof e->adv_url, "%s", url);
    pthread_mutex_unlock(&e->blob_mu);
    atomic_store(&e->adv_ready, 1);
    if (e->q->ops->describe_host) {
        cuzk_error derr = {0};
        pthread_mutex_lock(&e->dblock);
        cuzk_status dst = e->q->ops->describe_host(e->q, e->adv_url, e->n_devices, (int)e->n_workers, &derr);
        pthread_mutex_unlock(&e->dblock);
        if (dst)
            return cuzk_err_force(err, dst, "%s", derr.msg);
    }
    pthread_mutex_lock(&e->lock);
    elog(e, "cluster_advertise", "url=%s", url);
    pthread_mutex_unlock(&e->lock);
    return CUZK_OK;
}

int blob_ready(cuzk_engine *e)
{
    return blob_enabled(e) && (e->cfg.shared_dir[0] || atomic_load(&e->adv_ready));
}

cuzk_status blob_setup(cuzk_engine *e, cuzk_error *err)
{
    const cuzk_config *c = &e->cfg;
    cuzk_status st;
    if (!e->q->ops->shared)
        return CUZK_OK;
    /* Any host of a shared queue may run a job whose witness is a blob. */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    e->curl_inited = 1;
    if (!c->advertise_url[0] && !c->shared_dir[0])
        return CUZK_OK; /* this host's witnesses all go into the queue */
    if (strchr(e->host_id, ':'))
        return cuzk_err_force(err, CUZK_ERR_USAGE,
                              "engine.host_id \"%s\": a host id with ':' cannot own witness blobs"
                              " (cluster.advertise_url / shared_dir)",
                              e->host_id);
    int autou = !strcmp(c->advertise_url, "auto");
    if (c->advertise_url[0]) {
        if (!autou && strncmp(c->advertise_url, "http://", 7) && strncmp(c->advertise_url, "https://", 8))
            return cuzk_err_force(err, CUZK_ERR_USAGE,
                                  "cluster.advertise_url \"%s\": expected http://HOST:PORT, https://... or auto",
                                  c->advertise_url);
        if (!c->cluster_token[0])
            return cuzk_err_force(err, CUZK_ERR_USAGE,
                                  "cluster.advertise_url needs cluster.token (or cluster.token_file): "
                                  "the hosts' token for GET /v1/blobs");
    }
    if (!autou && (st = blob_url_check(e, c->advertise_url, err)))
        return st;
    if (!autou) {
        snprintf(e->adv_url, sizeof e->adv_url, "%s", c->advertise_url);
        atomic_store(&e->adv_ready, 1);
    }
    if (c->shared_dir[0]) {
        char d[sizeof e->blob_dir];
        snprintf(d, sizeof d, "%s/%s", c->shared_dir, e->host_id);
        if (mkdir(c->shared_dir, 0700) && errno != EEXIST)
            return cuzk_err_force(err, CUZK_ERR_IO, "%s: cannot create cluster.shared_dir: %s",
                                  c->shared_dir, strerror(errno));
        if (mkdir(d, 0700) && errno != EEXIST)
            return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", d, strerror(errno));
        snprintf(e->blob_dir, sizeof e->blob_dir, "%s", d);
    } else {
        snprintf(e->blob_dir, sizeof e->blob_dir, "%s", e->spool);
    }
    elog(e, "cluster_blobs", "inline_max=%llu dir=%s url=%s",
         (unsigned long long)c->inline_witness_max, e->blob_dir,
         c->advertise_url[0] ? c->advertise_url : "-"); /* auto: cluster_advertise follows */
    return CUZK_OK;
}

void blob_teardown(cuzk_engine *e)
{
    free(e->pins);
    e->pins = NULL;
    e->n_pins = e->cap_pins = 0;
    if (e->curl_inited)
        curl_global_cleanup();
    e->curl_inited = 0;
}

static void sha_hex(const void *data, size_t len, char out[65])
{
    uint8_t d[32];
    unsigned dl = 0;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (!md || !EVP_DigestInit_ex(md, EVP_sha256(), NULL) || !EVP_DigestUpdate(md, data, len) ||
        !EVP_DigestFinal_ex(md, d, &dl))
        memset(d, 0, sizeof d);
    EVP_MD_CTX_free(md);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* ---- the accepting host ---------------------------------------------------- */

/* Pins sha (being written: no sweep removes it) and formats its reference. */
static cuzk_status blob_pin(cuzk_engine *e, const char *sha, char *ref, size_t cap, cuzk_error *err)
{
    pthread_mutex_lock(&e->blob_mu);
    if (e->n_pins == e->cap_pins) {
        size_t nc = e->cap_pins ? 2 * e->cap_pins : 64;
        eng_blob_pin *np = realloc(e->pins, nc * sizeof *np);
        if (!np) {
            pthread_mutex_unlock(&e->blob_mu);
            return ecode(err, CUZK_ERR_NOMEM, "out of memory");
        }
        e->pins = np;
        e->cap_pins = nc;
    }
    eng_blob_pin *p = &e->pins[e->n_pins++];
    memcpy(p->sha, sha, sizeof p->sha);
    p->gen = 0; /* being written: no sweep removes it */
    pthread_mutex_unlock(&e->blob_mu);
    if (blob_ref_format(ref, cap, sha, e->host_id, atomic_load(&e->adv_ready) ? e->adv_url : ""))
        return ecode(err, CUZK_ERR_INTERNAL, "blob reference too long"); /* checked at open */
    return CUZK_OK;
}

cuzk_status blob_store(cuzk_engine *e, const void *data, size_t len, char *ref, size_t cap,
                       cuzk_error *err)
{
    char sha[65], name[80];
    sha_hex(data, len, sha);
    cuzk_status st = blob_pin(e, sha, ref, cap, err);
    snprintf(name, sizeof name, "%s.wtns", sha);
    return st ? st : write_durable(e->blob_dir, name, data, len, err); /* the caller unpins */
}

cuzk_status blob_store_upload(cuzk_engine *e, cuzk_engine_upload *u, char *ref, size_t cap,
                              cuzk_error *err)
{
    uint8_t d[32];
    char sha[65], name[80];
    upload_digest(u, d);
    for (int i = 0; i < 32; i++)
        snprintf(sha + 2 * i, 3, "%02x", d[i]);
    cuzk_status st = blob_pin(e, sha, ref, cap, err);
    snprintf(name, sizeof name, "%s.wtns", sha);
    return st ? st : upload_commit_blob(u, e->blob_dir, name, err); /* the caller unpins */
}

void blob_unpin(cuzk_engine *e, const char *sha)
{
    pthread_mutex_lock(&e->blob_mu);
    for (size_t i = 0; i < e->n_pins; i++)
        if (!e->pins[i].gen && !memcmp(e->pins[i].sha, sha, 64)) {
            e->pins[i].gen = ++e->blob_gen; /* committed (or given up) now */
            break;
        }
    pthread_mutex_unlock(&e->blob_mu);
}

cuzk_status cuzk_engine_blob_open(cuzk_engine *e, const char *sha, int *fd, uint64_t *size,
                                  cuzk_error *err)
{
    *fd = -1;
    if (!blob_enabled(e) || !sha || !blob_hex_ok(sha))
        return ecode(err, CUZK_ENGINE_NOT_FOUND, "blob %.80s: not found", sha ? sha : "");
    char p[sizeof e->blob_dir + 80];
    snprintf(p, sizeof p, "%s/%s.wtns", e->blob_dir, sha);
    int f = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat sb;
    if (f < 0 || fstat(f, &sb) || !S_ISREG(sb.st_mode)) {
        if (f >= 0)
            close(f);
        return ecode(err, CUZK_ENGINE_NOT_FOUND, "blob %s: not found on this host", sha);
    }
    *fd = f;
    *size = (uint64_t)sb.st_size;
    return CUZK_OK;
}

/* Removes the blob files no live job names (housekeeping, no lock held). */
void blob_sweep(cuzk_engine *e)
{
    if (!blob_enabled(e))
        return;
    DIR *d = opendir(e->blob_dir);
    if (!d)
        return;
    char (*cand)[65] = NULL;
    size_t nc = 0, cc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l != 69 || strcmp(de->d_name + 64, ".wtns"))
            continue;
        char sha[65];
        memcpy(sha, de->d_name, 64);
        sha[64] = 0;
        if (!blob_hex_ok(sha))
            continue;
        if (nc == cc) {
            size_t ncap = cc ? 2 * cc : 64;
            char (*n2)[65] = realloc(cand, ncap * sizeof *cand);
            if (!n2)
                break;
            cand = n2;
            cc = ncap;
        }
        memcpy(cand[nc++], sha, 65);
    }
    closedir(d);
    if (!nc) {
        free(cand);
        return;
    }
    pthread_mutex_lock(&e->blob_mu);
    uint64_t g0 = e->blob_gen;
    pthread_mutex_unlock(&e->blob_mu);
    eng_live_input *live = NULL;
    size_t n = 0;
    cuzk_error err = {0};
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = e->q->ops->live_inputs(e->q, &live, &n, &err);
    pthread_mutex_unlock(&e->dblock);
    if (st) {
        free(cand);
        return;
    }
    size_t removed = 0;
    pthread_mutex_lock(&e->blob_mu);
    for (size_t i = 0; i < nc; i++) {
        int keep = 0;
        for (size_t k = 0; k < n && !keep; k++)
            keep = !strncmp(live[k].witness, BLOB_PREFIX, 5) && !strncmp(live[k].witness + 5, cand[i], 64);
        for (size_t k = 0; k < e->n_pins && !keep; k++)
            keep = (!e->pins[k].gen || e->pins[k].gen > g0) && !memcmp(e->pins[k].sha, cand[i], 64);
        if (!keep) {
            char p[sizeof e->blob_dir + 80];
            snprintf(p, sizeof p, "%s/%s.wtns", e->blob_dir, cand[i]);
            removed += unlink(p) == 0;
        }
    }
    size_t w = 0; /* pins the read saw are done with */
    for (size_t k = 0; k < e->n_pins; k++)
        if (!e->pins[k].gen || e->pins[k].gen > g0)
            e->pins[w++] = e->pins[k];
    e->n_pins = w;
    pthread_mutex_unlock(&e->blob_mu);
    free(live);
    free(cand);
    if (removed) {
        pthread_mutex_lock(&e->lock);
        elog(e, "blobs_swept", "removed=%zu", removed);
        pthread_mutex_unlock(&e->lock);
    }
}

/* ---- the proving host ------------------------------------------------------- */

typedef struct fetch_buf {
    uint8_t *p;
    size_t len, cap;
    int over;
    atomic_int *cancel; /* the worker's: a cancel or a drain stops the transfer */
} fetch_buf;

static int fetch_progress(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    fetch_buf *b = user;
    (void)dt, (void)dn, (void)ut, (void)un;
    return b->cancel && atomic_load(b->cancel) ? 1 : 0;
}

static size_t fetch_write(char *ptr, size_t size, size_t nmemb, void *user)
{
    fetch_buf *b = user;
    size_t n = size * nmemb;
    if (b->len + n > b->cap) {
        b->over = 1;
        return 0; /* more than the job's witness: stop */
    }
    memcpy(b->p + b->len, ptr, n);
    b->len += n;
    return n;
}

static cuzk_status read_file(const char *path, size_t want, uint8_t *buf, size_t *got, int *missing,
                             cuzk_error *err)
{
    *missing = 0;
    int f = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (f < 0) {
        *missing = errno == ENOENT;
        return ecode(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    }
    size_t n = 0;
    while (n <= want) {
        ssize_t r = read(f, buf + n, want + 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r < 0) {
                int en = errno;
                close(f);
                return ecode(err, CUZK_ERR_IO, "%s: %s", path, strerror(en));
            }
            break;
        }
        n += (size_t)r;
    }
    close(f);
    *got = n;
    return CUZK_OK;
}

/* One try: *gone = 1 when the owner says the blob does not exist. */
static cuzk_status fetch_once(cuzk_engine *e, const eng_job *j, const char *sha, const char *host,
                              const char *url, fetch_buf *b, int *gone, cuzk_error *err)
{
    *gone = 0;
    b->len = 0;
    b->over = 0;
    char path[CUZK_CFG_STR_MAX + 400], full[512];
    int missing = 0;
    const char *where = NULL;
    if (!strcmp(host, e->host_id)) { /* ours (the spool, if blobs are off here since) */
        snprintf(path, sizeof path, "%s/%s.wtns", e->blob_dir[0] ? e->blob_dir : e->spool, sha);
        where = path;
    } else if (e->cfg.shared_dir[0]) {
        snprintf(path, sizeof path, "%s/%s/%s.wtns", e->cfg.shared_dir, host, sha);
        if (!access(path, F_OK) || !url[0])
            where = path;
    }
    if (where) {
        cuzk_status st = read_file(where, (size_t)j->input_bytes, b->p, &b->len, &missing, err);
        if (st) {
            *gone = missing;
            return st;
        }
    } else {
        if (!url[0])
            return ecode(err, CUZK_ERR_IO, "no cluster.shared_dir here and host %s advertises no URL", host);
        CURL *c = curl_easy_init();
        if (!c)
            return ecode(err, CUZK_ERR_NOMEM, "out of memory (curl)");
        char auth[CUZK_CFG_STR_MAX + 32];
        size_t ul = strlen(url);
        snprintf(full, sizeof full, "%.*s/v1/blobs/%s", (int)(url[ul - 1] == '/' ? ul - 1 : ul), url, sha);
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", e->cfg.cluster_token);
        struct curl_slist *hdr = curl_slist_append(NULL, auth);
        char ebuf[CURL_ERROR_SIZE] = "";
        long timeout_ms = (long)(e->cfg.fetch_timeout_s > 0 ? e->cfg.fetch_timeout_s * 1000 : 600000);
        curl_easy_setopt(c, CURLOPT_URL, full);
        curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
        curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
        curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 30L);
        curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)j->input_bytes);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, fetch_write);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, b);
        curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
        curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, fetch_progress);
        curl_easy_setopt(c, CURLOPT_XFERINFODATA, b);
        curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
        CURLcode rc = curl_easy_perform(c);
        long code = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        curl_slist_free_all(hdr);
        curl_easy_cleanup(c);
        /* The message names the URL without the token (never in a header we print). */
        if (rc == CURLE_OK && code == 404) {
            *gone = 1;
            return ecode(err, CUZK_ERR_IO, "%s: 404: host %s no longer has it", full, host);
        }
        if (rc == CURLE_ABORTED_BY_CALLBACK)
            return ecode(err, CUZK_ERR_CANCELLED, "cancelled");
        if (rc != CURLE_OK && !b->over)
            return ecode(err, CUZK_ERR_IO, "%s: %s", full, ebuf[0] ? ebuf : curl_easy_strerror(rc));
        if (!b->over && code != 200)
            return ecode(err, CUZK_ERR_IO, "%s: HTTP %ld", full, code);
        where = full;
    }
    if (b->over || b->len != j->input_bytes)
        return ecode(err, CUZK_ERR_MISMATCH, "%s: %s bytes, the job's witness has %llu", where,
                     b->over ? "more" : "other", (unsigned long long)j->input_bytes);
    char got[65];
    sha_hex(b->p, b->len, got);
    if (strcmp(got, sha))
        return ecode(err, CUZK_ERR_MISMATCH, "%s: sha256 %s, the job names %s", where, got, sha);
    return CUZK_OK;
}

cuzk_status blob_fetch(cuzk_engine *e, const eng_job *j, atomic_int *cancel, void **body,
                       size_t *len, int *gone, cuzk_error *err)
{
    char sha[65], host[256];
    const char *url;
    *body = NULL;
    *len = 0;
    *gone = 0;
    if (!blob_ref_parse(j->witness, sha, host, sizeof host, &url))
        return ecode(err, CUZK_ERR_FORMAT, "job %s: malformed witness reference in the queue", j->id);
    fetch_buf b = {.p = malloc((size_t)j->input_bytes + 1), .cap = (size_t)j->input_bytes,
                   .cancel = cancel};
    if (!b.p)
        return ecode(err, CUZK_ERR_NOMEM, "job %s: out of memory for its witness (%llu bytes)", j->id,
                     (unsigned long long)j->input_bytes);
    cuzk_status st = CUZK_OK;
    double wait = 0.25;
    for (int t = 0; t < BLOB_TRIES; t++) {
        if (t) {
            struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
            nanosleep(&ts, NULL);
            wait *= 2;
        }
        if (cancel && atomic_load(cancel)) {
            st = ecode(err, CUZK_ERR_CANCELLED, "cancelled");
            break;
        }
        st = fetch_once(e, j, sha, host, url, &b, gone, err);
        if (!st || *gone || st == CUZK_ERR_CANCELLED)
            break;
    }
    if (st) {
        free(b.p);
        return st;
    }
    *body = b.p;
    *len = b.len;
    return CUZK_OK;
}
