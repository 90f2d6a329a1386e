/* The job queue on PostgreSQL (libpq), shared by several hosts: the
 * scale-out design's cuzk_jobs / attempts / results / inputs tables in a
 * schema of their own (`cuzk`), written to run on YugabyteDB too: nothing
 * SERIALIZABLE, no advisory locks, no large objects, LISTEN/NOTIFY only
 * when asked (opts.notify; the engine polls anyway), FIFO by the
 * submitter's enqueue time rather than by sequence (YugabyteDB caches
 * sequences per connection).
 *
 * Every call is ONE statement (data-modifying CTEs), so it is its own
 * transaction: atomic, no transaction left open, and safe to run again.
 * - claims: `FOR UPDATE SKIP LOCKED` on the head (priority, then age) for
 *   claim_next; by id (guarded by state = 'queued') for claim. A claim sets
 *   lease_until = now() + lease on the database's clock.
 * - affinity (peek, claim_next): hosts publish their resident keys
 *   (host_keys); a job whose key another live host has waits up to
 *   opts.affinity_s (from queued_at, database clock) unless critical, and
 *   a host's resident keys come first within a priority (AFFINITY below).
 * - wake-ups: with opts.notify, statements that queue or end a job NOTIFY
 *   cuzk_jobs / cuzk_done (SQL[1]); listen() waits on its own connection.
 * - fencing: every transition out of running is guarded by (id, attempt,
 *   owner, state = 'running'); 0 rows = fenced.
 * - leases: renew extends the leases of the owner's jobs in one statement
 *   (and heartbeats cuzk.hosts); rescue_expired requeues any running job
 *   whose lease ran out, closing its attempt as lease_expired.
 * - errors, by SQLSTATE: 40001 / 40P01 (serialization failure, deadlock)
 *   run the statement again with a short backoff; class 08, 57P01-57P03 or
 *   a dead connection reconnect with capped exponential backoff (for up to
 *   opts.retry_s), prepare the statements again and run it again. A
 *   statement whose connection died may or may not have committed: submit
 *   (same id / idempotency key), claim (same owner and start time),
 *   complete and finish (the attempt's recorded outcome) tell which.
 * - migrations: forward-only, serialized by SELECT ... FOR UPDATE on the
 *   schema-version row (no advisory locks); a database newer than this
 *   build is refused.
 * - durability: a commit is durable when it returns (synchronous_commit is
 *   the server's business), so mark() is 0 and sync() has nothing to do.
 * The connection string is never shown as given: messages carry it with
 * any password redacted. */
#include <ctype.h>
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/queue.h"
#include "util/common.h"

#define PG_SCHEMA_VERSION 4

/* Forward-only: migration i takes the schema from version i to i + 1. Each
 * is idempotent (IF NOT EXISTS), because YugabyteDB may commit DDL outside
 * the migration's transaction. */
/* (cuzk.keys, of version 1, held the hosts' key registries, which live on
 * each host since (keyreg.h); unused, kept as migrations only go forward.) */
static const char *const MIGRATIONS[PG_SCHEMA_VERSION] = {
    "CREATE TABLE IF NOT EXISTS cuzk.jobs ("
    " id text PRIMARY KEY, seq bigserial NOT NULL, idem_key text UNIQUE, req_sha256 bytea NOT NULL,"
    " kind text NOT NULL DEFAULT 'groth16', key_id text NOT NULL, key_path text NOT NULL,"
    " priority smallint NOT NULL, state text NOT NULL DEFAULT 'queued',"
    " enqueued_at bigint NOT NULL, started_at bigint, finished_at bigint,"
    " attempt int NOT NULL DEFAULT 0, max_attempts int NOT NULL, owner text,"
    " lease_until timestamptz, cancel_requested boolean NOT NULL DEFAULT false,"
    " input_uri text NOT NULL, input_bytes bigint NOT NULL, host_bytes bigint NOT NULL,"
    " device_bytes bigint NOT NULL, worker int, device int, error_code int, error text);"
    "CREATE INDEX IF NOT EXISTS jobs_ready ON cuzk.jobs (priority ASC, enqueued_at ASC, seq ASC)"
    " WHERE state = 'queued';"
    "CREATE INDEX IF NOT EXISTS jobs_seq ON cuzk.jobs (seq DESC);"
    "CREATE INDEX IF NOT EXISTS jobs_state_seq ON cuzk.jobs (state, seq DESC);"
    "CREATE INDEX IF NOT EXISTS jobs_lease ON cuzk.jobs (lease_until ASC) WHERE state = 'running';"
    "CREATE INDEX IF NOT EXISTS jobs_owner ON cuzk.jobs (owner ASC) WHERE state = 'running';"
    "CREATE INDEX IF NOT EXISTS jobs_finished ON cuzk.jobs (finished_at ASC)"
    " WHERE state IN ('done', 'failed', 'cancelled');"
    "CREATE TABLE IF NOT EXISTS cuzk.attempts (job_id text NOT NULL, attempt int NOT NULL,"
    " host_id text NOT NULL, started_at bigint NOT NULL, ended_at bigint, outcome text,"
    " PRIMARY KEY (job_id, attempt));"
    "CREATE TABLE IF NOT EXISTS cuzk.results (job_id text PRIMARY KEY, attempt int NOT NULL,"
    " proof text NOT NULL, public_json text NOT NULL, verified boolean NOT NULL,"
    " created_at bigint NOT NULL);"
    "CREATE TABLE IF NOT EXISTS cuzk.inputs (job_id text PRIMARY KEY, body bytea NOT NULL);"
    "CREATE TABLE IF NOT EXISTS cuzk.keys (host_id text NOT NULL, path text NOT NULL,"
    " key_id text NOT NULL, file_bytes bigint NOT NULL, mtime_ns bigint NOT NULL,"
    " inode bigint NOT NULL, dev bigint NOT NULL, host_bytes bigint NOT NULL DEFAULT 0,"
    " registered_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (host_id, path));"
    "CREATE TABLE IF NOT EXISTS cuzk.hosts (host_id text PRIMARY KEY,"
    " started_at timestamptz NOT NULL, last_seen timestamptz NOT NULL);",
    /* 2: key affinity. host_keys = the keys each host has loaded (or is
     * loading); jobs.queued_at = when the job was submitted, on the
     * database's clock, from which a job waits for a host with its key. */
    "CREATE TABLE IF NOT EXISTS cuzk.host_keys (host_id text NOT NULL, key_id text NOT NULL,"
    " since timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (host_id, key_id));"
    "CREATE INDEX IF NOT EXISTS host_keys_key ON cuzk.host_keys (key_id ASC);"
    "ALTER TABLE cuzk.jobs ADD COLUMN IF NOT EXISTS queued_at timestamptz DEFAULT now();",
    /* 3: the cluster view: what each host says of itself (describe_host). */
    "ALTER TABLE cuzk.hosts ADD COLUMN IF NOT EXISTS url text;"
    "ALTER TABLE cuzk.hosts ADD COLUMN IF NOT EXISTS gpus int;"
    "ALTER TABLE cuzk.hosts ADD COLUMN IF NOT EXISTS slots int;",
    /* 4: jobs.input_uri holds the witness's content id (blobref.h): a
     * witness in the queue was named "" and is "inline:<sha256>" now;
     * those from before keep no hash. */
    "UPDATE cuzk.jobs SET input_uri = 'inline:' WHERE input_uri = '';",
};

#define JOB_COLS                                                                               \
    "id, seq, idem_key, req_sha256, key_id, key_path, priority, state, enqueued_at,"           \
    " started_at, finished_at, attempt, max_attempts, owner, cancel_requested::int, input_uri," \
    " input_bytes, host_bytes, device_bytes, worker, device, error_code, error"
#define LEASE "now() + $%d::float8 * interval '1 millisecond'"
/* Claims and renewals commit without waiting for the WAL flush: one lost in
 * a server crash leaves the job queued (or its lease shorter), the claimer's
 * renewal then finds it gone and its end is fenced, so nothing acknowledged
 * is lost (SQLite does not flush claims either). Everything a client is told
 * about (submit, complete, finish, cancel) commits synchronously. */
#define ASYNC "s AS (SELECT set_config('synchronous_commit', 'off', true) AS sc)"
#define ATTEMPT_OPEN                                                                           \
    " a AS (INSERT INTO cuzk.attempts (job_id, attempt, host_id, started_at)"                 \
    " SELECT id, attempt, owner, started_at FROM u ON CONFLICT (job_id, attempt) DO UPDATE"   \
    " SET host_id = excluded.host_id, started_at = excluded.started_at, ended_at = NULL,"     \
    " outcome = NULL)"
/* The end of a rescued job: cancelled if asked, failed at max_attempts, else queued. */
#define RESCUE_SET                                                                             \
    "UPDATE cuzk.jobs SET state = CASE WHEN cancel_requested THEN 'cancelled'"                 \
    " WHEN attempt >= max_attempts THEN 'failed' ELSE 'queued' END,"                          \
    " finished_at = CASE WHEN cancel_requested OR attempt >= max_attempts THEN $%d::bigint END," \
    " error_code = CASE WHEN cancel_requested OR attempt >= max_attempts THEN $%d::int ELSE 0 END," \
    " error = CASE WHEN cancel_requested THEN 'cancelled while running'"                      \
    " WHEN attempt >= max_attempts THEN 'interrupted too many times (max_attempts)' END,"     \
    " owner = CASE WHEN cancel_requested OR attempt >= max_attempts THEN owner END,"          \
    " lease_until = NULL WHERE state = 'running' AND "
#define RESCUE_TAIL(outcome, t)                                                                \
    " RETURNING id, attempt, state), a AS (UPDATE cuzk.attempts t SET ended_at = $" t "::bigint," \
    " outcome = '" outcome "' FROM u WHERE t.job_id = u.id AND t.attempt = u.attempt),"        \
    " d AS (DELETE FROM cuzk.inputs t USING u WHERE t.job_id = u.id AND u.state <> 'queued')"  \
    " SELECT count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state <> 'queued')" \
    " FROM u"

/* Delay scheduling: a queued job j may be taken by host $h (its resident
 * keys $r, the affinity delay $d and the lease $l in ms) when it is
 * critical, or there is no delay, or its key is resident here, or it has
 * waited the delay (database clock), or no other live host (heartbeat
 * within a lease) has its key. Within a priority, jobs whose key is
 * resident here come first, and so does every job that has waited the
 * delay (FIFO among them): a cold job is never passed over for longer
 * than the delay. */
#define AFFINITY(h, r, d, l)                                                                    \
    "(priority = 0 OR $" #d "::float8 <= 0 OR key_id = ANY($" #r "::text[])"                    \
    " OR queued_at IS NULL OR queued_at <= now() - $" #d "::float8 * interval '1 millisecond'"  \
    " OR NOT EXISTS (SELECT 1 FROM cuzk.host_keys k JOIN cuzk.hosts h ON h.host_id = k.host_id" \
    " WHERE k.key_id = j.key_id AND k.host_id <> $" #h "::text"                                 \
    " AND h.last_seen > now() - $" #l "::float8 * interval '1 millisecond'))"
/* The head, in the order ORDER BY priority, FIRST DESC, enqueued_at, seq
 * would give, in two walks of the index jobs_ready (priority, enqueued_at,
 * seq) that each stop at their first match (a sort over a computed key
 * read every queued job of the head's priority, 10,000 rows for one):
 * t = the first job this host may take (AFFINITY), f = the first FIRST job
 * of t's priority (FIRST implies AFFINITY); f if there is one, else t.
 * No priority before t's has a job this host may take, so t's priority is
 * the head's; within it FIRST jobs come first, f is the oldest of them.
 * Claims lock both rows (SKIP LOCKED): the one not taken is free again at
 * the statement's commit. */
#define FIRST(r, d)                                                                             \
    "(key_id = ANY($" #r "::text[]) OR queued_at IS NULL"                                       \
    " OR queued_at <= now() - $" #d "::float8 * interval '1 millisecond')"

enum {
    S_GET, S_BY_IDEM, S_SUBMIT, S_PEEK, S_CLAIM, S_CLAIM_NEXT, S_COMPLETE, S_REQUEUE, S_END,
    S_CANCEL, S_RESCUE_OWNER, S_RESCUE_EXPIRED, S_RENEW, S_RESULT, S_LIST_ALL, S_LIST_STATE,
    S_POSITION, S_STATS, S_EXPIRE, S_INPUT, S_LIVE, S_OUTCOME, S_PUBLISH, S_DESCRIBE, S_HOSTS,
    S_COUNT
};

/* SQL[0]: the statements; SQL[1]: the same, with wake-ups for listeners
 * (engine.notify): a job queued (submit, requeue, rescue) notifies channel
 * cuzk_jobs, a job ended (complete, finish, cancel, rescue) cuzk_done, the
 * payload its id. Delivered at commit, to sessions listening then only. */
static char *SQL[2][S_COUNT];

static const char *notify_tail(int id)
{
    switch (id) {
    case S_SUBMIT: return " LEFT JOIN LATERAL (SELECT pg_notify('cuzk_jobs', j.id)) n ON true";
    case S_REQUEUE:
        return " LEFT JOIN LATERAL (SELECT pg_notify(CASE WHEN u.state = 'queued' THEN 'cuzk_jobs'"
               " ELSE 'cuzk_done' END, u.id)) n ON true";
    case S_COMPLETE:
    case S_END: return " LEFT JOIN LATERAL (SELECT pg_notify('cuzk_done', u.id)) n ON true";
    case S_CANCEL: return " LEFT JOIN LATERAL (SELECT pg_notify('cuzk_done', c.id)) n ON true";
    case S_RESCUE_OWNER:
    case S_RESCUE_EXPIRED:
        return " LEFT JOIN LATERAL (SELECT pg_notify(CASE WHEN u.state = 'queued' THEN 'cuzk_jobs'"
               " ELSE 'cuzk_done' END, u.id)) n ON true";
    default: return "";
    }
}

static void build_sql(void)
{
    static const char *const fixed[S_COUNT] = {
        [S_GET] = "SELECT " JOB_COLS " FROM cuzk.jobs WHERE id = $1",
        [S_BY_IDEM] = "SELECT " JOB_COLS " FROM cuzk.jobs WHERE idem_key = $1",
        [S_SUBMIT] =
            "WITH j AS (INSERT INTO cuzk.jobs (id, idem_key, req_sha256, key_id, key_path, priority,"
            " state, enqueued_at, max_attempts, input_uri, input_bytes, host_bytes, device_bytes)"
            " VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7, $8, $9, $10, $11, $12)"
            " ON CONFLICT DO NOTHING RETURNING *),"
            " i AS (INSERT INTO cuzk.inputs (job_id, body) SELECT id, $13::bytea FROM j"
            " WHERE $13::bytea IS NOT NULL) SELECT " JOB_COLS " FROM j",
        /* The head in two walks of jobs_ready (FIRST, above). */
        [S_PEEK] = "WITH t AS (SELECT " JOB_COLS " FROM cuzk.jobs j WHERE state = 'queued'"
                   " AND NOT (key_id = ANY($5::text[])) AND " AFFINITY(1, 2, 3, 4)
                   " ORDER BY priority, enqueued_at, seq LIMIT 1),"
                   " f AS (SELECT " JOB_COLS " FROM cuzk.jobs j WHERE state = 'queued'"
                   " AND priority = (SELECT priority FROM t) AND NOT (key_id = ANY($5::text[]))"
                   " AND " FIRST(2, 3) " ORDER BY enqueued_at, seq LIMIT 1)"
                   " SELECT * FROM f UNION ALL SELECT * FROM t WHERE NOT EXISTS (SELECT 1 FROM f)",
        [S_PUBLISH] =
            "WITH h AS (INSERT INTO cuzk.hosts (host_id, started_at, last_seen)"
            " VALUES ($1, now(), now()) ON CONFLICT (host_id) DO UPDATE SET last_seen = now()),"
            " d AS (DELETE FROM cuzk.host_keys WHERE host_id = $1 AND NOT (key_id = ANY($2::text[]))),"
            " i AS (INSERT INTO cuzk.host_keys (host_id, key_id) SELECT $1, k FROM unnest($2::text[]) k"
            " ON CONFLICT (host_id, key_id) DO NOTHING) SELECT 1",
        [S_COMPLETE] =
            "WITH u AS (UPDATE cuzk.jobs SET state = 'done', finished_at = $4::bigint, error_code = 0,"
            " error = NULL, lease_until = NULL"
            " WHERE id = $1 AND attempt = $2 AND owner = $3 AND state = 'running' RETURNING id, attempt),"
            " r AS (INSERT INTO cuzk.results (job_id, attempt, proof, public_json, verified, created_at)"
            " SELECT id, attempt, $5::text, $6::text, true, $4::bigint FROM u ON CONFLICT (job_id)"
            " DO UPDATE SET attempt = excluded.attempt, proof = excluded.proof,"
            " public_json = excluded.public_json, created_at = excluded.created_at),"
            " d AS (DELETE FROM cuzk.inputs t USING u WHERE t.job_id = u.id),"
            " a AS (UPDATE cuzk.attempts t SET ended_at = $4::bigint, outcome = 'done' FROM u"
            " WHERE t.job_id = u.id AND t.attempt = u.attempt) SELECT count(*) FROM u",
        [S_REQUEUE] =
            "WITH u AS (UPDATE cuzk.jobs SET"
            " state = CASE WHEN attempt >= max_attempts THEN 'failed' ELSE 'queued' END,"
            " finished_at = CASE WHEN attempt >= max_attempts THEN $4::bigint END,"
            " error_code = CASE WHEN attempt >= max_attempts THEN $5::int ELSE 0 END,"
            " error = CASE WHEN attempt >= max_attempts THEN 'interrupted too many times (max_attempts)' END,"
            " owner = NULL, lease_until = NULL"
            " WHERE id = $1 AND attempt = $2 AND owner = $3 AND state = 'running'"
            " RETURNING id, attempt, state),"
            " a AS (UPDATE cuzk.attempts t SET ended_at = $4::bigint, outcome = 'requeued' FROM u"
            " WHERE t.job_id = u.id AND t.attempt = u.attempt),"
            " d AS (DELETE FROM cuzk.inputs t USING u WHERE t.job_id = u.id AND u.state <> 'queued')"
            " SELECT count(*) FROM u",
        [S_END] =
            "WITH u AS (UPDATE cuzk.jobs SET state = $4::text, finished_at = $5::bigint,"
            " error_code = $6::int, error = $7::text, lease_until = NULL"
            " WHERE id = $1 AND attempt = $2 AND owner = $3 AND state = 'running' RETURNING id, attempt),"
            " a AS (UPDATE cuzk.attempts t SET ended_at = $5::bigint, outcome = $4::text FROM u"
            " WHERE t.job_id = u.id AND t.attempt = u.attempt),"
            " d AS (DELETE FROM cuzk.inputs t USING u WHERE t.job_id = u.id) SELECT count(*) FROM u",
        [S_CANCEL] =
            "WITH c AS (UPDATE cuzk.jobs SET state = 'cancelled', finished_at = $2::bigint,"
            " error_code = $3::int, error = 'cancelled while queued' WHERE id = $1 AND state = 'queued'"
            " RETURNING id),"
            " d AS (DELETE FROM cuzk.inputs t USING c WHERE t.job_id = c.id),"
            " r AS (UPDATE cuzk.jobs SET cancel_requested = true WHERE id = $1 AND state = 'running')"
            " SELECT count(*) FROM c",
        [S_RESULT] = "SELECT proof, public_json FROM cuzk.results WHERE job_id = $1",
        /* Pages newest first by seq (the cursor); jobs_seq and
         * jobs_state_seq keep each page O(limit). */
        [S_LIST_ALL] = "SELECT " JOB_COLS " FROM cuzk.jobs WHERE seq < $2 ORDER BY seq DESC LIMIT $1",
        [S_LIST_STATE] = "SELECT " JOB_COLS " FROM cuzk.jobs WHERE state = $1 AND seq < $3"
                         " ORDER BY seq DESC LIMIT $2",
        [S_POSITION] = "SELECT count(*) FROM cuzk.jobs WHERE state = 'queued' AND (priority < $1"
                       " OR (priority = $1 AND (enqueued_at < $2 OR (enqueued_at = $2 AND seq < $3))))",
        [S_STATS] = "SELECT state, priority, count(*), coalesce(sum(input_bytes), 0) FROM cuzk.jobs"
                    " WHERE state IN ('queued', 'running') GROUP BY state, priority",
        [S_EXPIRE] =
            "WITH x AS (SELECT id FROM cuzk.jobs WHERE state IN ('done', 'failed', 'cancelled')"
            " AND finished_at < $1 ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED),"
            " r AS (DELETE FROM cuzk.results t USING x WHERE t.job_id = x.id),"
            " i AS (DELETE FROM cuzk.inputs t USING x WHERE t.job_id = x.id),"
            " a AS (DELETE FROM cuzk.attempts t USING x WHERE t.job_id = x.id),"
            " j AS (DELETE FROM cuzk.jobs t USING x WHERE t.id = x.id RETURNING t.*)"
            " SELECT " JOB_COLS " FROM j ORDER BY finished_at",
        [S_INPUT] = "SELECT body FROM cuzk.inputs WHERE job_id = $1",
        [S_DESCRIBE] =
            "INSERT INTO cuzk.hosts (host_id, started_at, last_seen, url, gpus, slots)"
            " VALUES ($1, now(), now(), $2, $3, $4) ON CONFLICT (host_id) DO UPDATE"
            " SET last_seen = now(), started_at = now(), url = $2, gpus = $3, slots = $4",
        [S_HOSTS] =
            "SELECT h.host_id, coalesce(h.url, ''), coalesce(h.gpus, 0), coalesce(h.slots, 0),"
            " extract(epoch FROM now() - h.last_seen)::float8, coalesce(r.n, 0),"
            " coalesce(extract(epoch FROM r.soonest - now())::float8, 0),"
            " coalesce((SELECT string_agg(k.key_id, ',' ORDER BY k.key_id) FROM cuzk.host_keys k"
            " WHERE k.host_id = h.host_id), '')"
            " FROM cuzk.hosts h LEFT JOIN (SELECT owner, count(*) AS n, min(lease_until) AS soonest"
            " FROM cuzk.jobs WHERE state = 'running' GROUP BY owner) r ON r.owner = h.host_id"
            " ORDER BY h.host_id",
        [S_LIVE] = "SELECT id, input_uri FROM cuzk.jobs WHERE state IN ('queued', 'running')"
                   " AND input_uri <> '' AND input_uri NOT LIKE 'inline:%'",
        [S_OUTCOME] = "SELECT outcome FROM cuzk.attempts WHERE job_id = $1 AND attempt = $2"
                      " AND host_id = $3",
    };
    char buf[4096];
    for (int i = 0; i < S_COUNT; i++) {
        buf[0] = 0;
        switch (i) {
        case S_CLAIM:
            snprintf(buf, sizeof buf,
                     "WITH u AS (UPDATE cuzk.jobs SET state = 'running', owner = $2, attempt = attempt + 1,"
                     " started_at = $3, worker = $4, device = $5, lease_until = " LEASE
                     " WHERE id = $1 AND state = 'queued' RETURNING *)," ATTEMPT_OPEN
                     ", " ASYNC " SELECT " JOB_COLS " FROM u, s",
                     6);
            break;
        case S_CLAIM_NEXT:
            snprintf(buf, sizeof buf,
                     "WITH t AS (SELECT id, priority FROM cuzk.jobs j WHERE state = 'queued' AND "
                     AFFINITY(1, 6, 7, 5) " ORDER BY priority, enqueued_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED),"
                     " f AS (SELECT id FROM cuzk.jobs j WHERE state = 'queued' AND priority = (SELECT priority FROM t)"
                     " AND " FIRST(6, 7) " ORDER BY enqueued_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED),"
                     " c AS (SELECT id FROM f UNION ALL SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM f)),"
                     " u AS (UPDATE cuzk.jobs j SET state = 'running', owner = $1, attempt = j.attempt + 1,"
                     " started_at = $2, worker = $3, device = $4, lease_until = " LEASE
                     " FROM c WHERE j.id = c.id AND j.state = 'queued' RETURNING j.*)," ATTEMPT_OPEN
                     ", " ASYNC " SELECT " JOB_COLS " FROM u, s",
                     5);
            break;
        case S_RESCUE_OWNER:
            snprintf(buf, sizeof buf, "WITH u AS (" RESCUE_SET "owner = $1" RESCUE_TAIL("interrupted", "2"),
                     2, 3);
            break;
        case S_RESCUE_EXPIRED:
            snprintf(buf, sizeof buf,
                     "WITH u AS (" RESCUE_SET "lease_until < now()" RESCUE_TAIL("lease_expired", "1"), 1,
                     2);
            break;
        case S_RENEW:
            snprintf(buf, sizeof buf,
                     "WITH h AS (INSERT INTO cuzk.hosts (host_id, started_at, last_seen)"
                     " VALUES ($1, now(), now()) ON CONFLICT (host_id) DO UPDATE SET last_seen = now()),"
                     " " ASYNC ", r AS (UPDATE cuzk.jobs SET lease_until = " LEASE
                     " WHERE owner = $1 AND state = 'running' AND id = ANY($2::text[])"
                     " RETURNING id, cancel_requested::int AS c) SELECT id, c FROM r, s",
                     3);
            break;
        default:
            snprintf(buf, sizeof buf, "%s", fixed[i]);
        }
        SQL[0][i] = strdup(buf);
        size_t len = strlen(buf) + strlen(notify_tail(i)) + 1;
        if ((SQL[1][i] = malloc(len)))
            snprintf(SQL[1][i], len, "%s%s", buf, notify_tail(i));
    }
}

static pthread_once_t sql_once = PTHREAD_ONCE_INIT;

typedef struct pg_queue {
    eng_queue base;
    PGconn *conn;
    char *conninfo;         /* as given: never shown */
    char safe[512];         /* conninfo with the password redacted */
    char host[256];
    char app[300];          /* application_name: cuzk@host */
    double lease_ms, retry_s;
    double affinity_ms;     /* opts.affinity_s */
    int notify;             /* opts.notify: statements send wake-ups (SQL[1]) */
    char *resident;         /* this host's resident keys as a text[] literal (publish_keys) */
    char *skip;             /* keys this host cannot find: peek passes over their jobs (skip_keys) */
    PGconn *lconn;          /* the listener's own connection (listen), NULL = not connected */
    double lnext;           /* listener: no reconnect before this (mono_s) */
    double lbackoff;
    unsigned char prepared[S_COUNT];
    int retried;            /* the last run reconnected or retried after sending */
    uint64_t reconnects;
} pg_queue;

/* ---- parameters ------------------------------------------------------------ */

typedef struct pargs {
    const char *v[16];
    int len[16], fmt[16];
    char num[16][32];
    int n;
} pargs;

static void a_str(pargs *a, const char *s)
{
    a->v[a->n] = s;
    a->len[a->n] = 0;
    a->fmt[a->n++] = 0;
}

static void a_int(pargs *a, int64_t x)
{
    snprintf(a->num[a->n], sizeof a->num[0], "%lld", (long long)x);
    a_str(a, a->num[a->n]);
}

static void a_float(pargs *a, double x)
{
    snprintf(a->num[a->n], sizeof a->num[0], "%.3f", x);
    a_str(a, a->num[a->n]);
}

static void a_bin(pargs *a, const void *p, size_t n)
{
    a->v[a->n] = p;
    a->len[a->n] = (int)n;
    a->fmt[a->n++] = 1;
}

/* ---- connection, errors, retries ------------------------------------------- */

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

/* libpq's message on one line, without the trailing newline. */
static void one_line(const char *msg, char *out, size_t cap)
{
    size_t n = 0;
    int space = 0;
    for (const char *p = msg ? msg : ""; *p && n + 1 < cap; p++) {
        if (isspace((unsigned char)*p)) {
            space = n > 0;
            continue;
        }
        if (space && n + 2 < cap)
            out[n++] = ' ';
        space = 0;
        out[n++] = *p;
    }
    out[n] = 0;
}

static cuzk_status conn_err(pg_queue *q, cuzk_error *err, const char *what, const char *why)
{
    char line[600];
    one_line(why, line, sizeof line);
    return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s: %s", q->safe, what, line);
}

static void drop_conn(pg_queue *q)
{
    if (q->conn)
        PQfinish(q->conn);
    q->conn = NULL;
    memset(q->prepared, 0, sizeof q->prepared);
}

static void quiet(void *arg, const char *msg)
{
    (void)arg, (void)msg; /* NOTICEs ("already exists, skipping") are not news */
}

/* One connection attempt; 0 or -1 with *why (libpq's message). */
static int connect_once(pg_queue *q, char *why, size_t cap)
{
    const char *keys[] = {"connect_timeout", "keepalives", "keepalives_idle",
                          "keepalives_interval", "keepalives_count", "dbname",
                          "fallback_application_name", NULL};
    const char *vals[] = {"5", "1", "10", "5", "3", q->conninfo, q->app, NULL};
    drop_conn(q);
    q->conn = PQconnectdbParams(keys, vals, 1);
    if (!q->conn || PQstatus(q->conn) != CONNECTION_OK) {
        snprintf(why, cap, "%s", q->conn ? PQerrorMessage(q->conn) : "out of memory");
        drop_conn(q);
        return -1;
    }
    PQsetNoticeProcessor(q->conn, quiet, NULL);
    /* Bounded statements; nothing here ever leaves a transaction open, but
     * a stray one must not pin the queue's rows. Never SERIALIZABLE. */
    PGresult *r = PQexec(q->conn, "SET statement_timeout = '60s'; SET lock_timeout = '30s';"
                                  " SET idle_in_transaction_session_timeout = '60s';"
                                  " SET default_transaction_isolation = 'read committed'");
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok)
        snprintf(why, cap, "%s", PQerrorMessage(q->conn));
    PQclear(r);
    if (!ok) {
        drop_conn(q);
        return -1;
    }
    return 0;
}

/* Connects, retrying with capped exponential backoff until retry_s. */
static cuzk_status ensure_conn(pg_queue *q, double deadline, cuzk_error *err)
{
    if (q->conn && PQstatus(q->conn) == CONNECTION_OK)
        return CUZK_OK;
    double backoff = 0.05;
    char why[600] = "";
    for (;;) {
        if (!connect_once(q, why, sizeof why)) {
            q->reconnects++;
            return CUZK_OK;
        }
        if (mono_s() + backoff > deadline)
            return conn_err(q, err, "cannot reach the database", why);
        sleep_s(backoff);
        backoff = backoff * 2 > 1.0 ? 1.0 : backoff * 2;
    }
}

enum { E_FATAL, E_RETRY, E_CONN };

static int classify(pg_queue *q, const PGresult *r)
{
    const char *ss = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    if (!q->conn || PQstatus(q->conn) != CONNECTION_OK)
        return E_CONN;
    if (!ss) /* the server always sends one: this error is libpq's own (a lost connection) */
        return E_CONN;
    if (!strcmp(ss, "40001") || !strcmp(ss, "40P01"))
        return E_RETRY;
    if (!strncmp(ss, "08", 2) || !strcmp(ss, "57P01") || !strcmp(ss, "57P02") ||
        !strcmp(ss, "57P03"))
        return E_CONN;
    return E_FATAL;
}

/* Runs prepared statement `id` (preparing it on this connection first),
 * retrying as the top says. *out: the result (PQclear it) on success. */
static cuzk_status run(pg_queue *q, int id, const pargs *a, PGresult **out, const char *what,
                       cuzk_error *err)
{
    *out = NULL;
    q->retried = 0;
    double deadline = mono_s() + q->retry_s, backoff = 0.01;
    for (int tries = 0;; tries++) {
        cuzk_status st = ensure_conn(q, deadline, err);
        if (st)
            return st;
        PGresult *r = NULL;
        char name[32];
        snprintf(name, sizeof name, "cuzk_q%d", id);
        if (!q->prepared[id]) {
            r = PQprepare(q->conn, name, SQL[q->notify][id], 0, NULL);
            if (PQresultStatus(r) == PGRES_COMMAND_OK) {
                q->prepared[id] = 1;
                PQclear(r);
                r = NULL;
            }
        }
        if (!r) {
            r = PQexecPrepared(q->conn, name, a ? a->n : 0, a ? a->v : NULL,
                               a ? a->len : NULL, a ? a->fmt : NULL, id == S_INPUT);
            ExecStatusType rs = PQresultStatus(r);
            if (rs == PGRES_COMMAND_OK || rs == PGRES_TUPLES_OK) {
                *out = r;
                return CUZK_OK;
            }
        }
        int kind = classify(q, r);
        const char *ss = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
        if (kind == E_FATAL && ss && !strcmp(ss, "26000") && tries < 3) {
            memset(q->prepared, 0, sizeof q->prepared); /* lost by a pooler: prepare again */
            kind = E_RETRY;
        }
        if (kind == E_FATAL || (kind == E_RETRY && tries >= 20) ||
            (kind == E_CONN && mono_s() >= deadline)) {
            char why[600];
            snprintf(why, sizeof why, "%s", r ? PQresultErrorMessage(r) : PQerrorMessage(q->conn));
            PQclear(r);
            if (kind == E_CONN)
                drop_conn(q);
            return conn_err(q, err, what, why);
        }
        PQclear(r);
        q->retried = 1;
        if (kind == E_CONN)
            drop_conn(q);
        else {
            sleep_s(backoff);
            backoff = backoff * 2 > 0.5 ? 0.5 : backoff * 2;
        }
    }
}

/* ---- rows ------------------------------------------------------------------ */

static int64_t iv(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static void sv(char *dst, size_t cap, const PGresult *r, int row, int col)
{
    snprintf(dst, cap, "%s", PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col));
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                                : -1;
}

/* A bytea in text form ("\x..."): its bytes (malloc'd), or NULL. */
static unsigned char *bytea(const PGresult *r, int row, int col, size_t *n)
{
    const char *s = PQgetvalue(r, row, col);
    *n = 0;
    if (s[0] != '\\' || s[1] != 'x')
        return PQunescapeBytea((const unsigned char *)s, n); /* escape format */
    size_t len = strlen(s + 2) / 2;
    unsigned char *b = malloc(len ? len : 1);
    if (!b)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        int h = hexval(s[2 + 2 * i]), l = hexval(s[3 + 2 * i]);
        if (h < 0 || l < 0) {
            free(b);
            return NULL;
        }
        b[i] = (unsigned char)(h << 4 | l);
    }
    *n = len;
    return b;
}

static void read_job(const PGresult *r, int row, eng_job *j)
{
    memset(j, 0, sizeof *j);
    sv(j->id, sizeof j->id, r, row, 0);
    j->seq = (uint64_t)iv(r, row, 1);
    sv(j->idem_key, sizeof j->idem_key, r, row, 2);
    size_t n = 0;
    unsigned char *h = bytea(r, row, 3, &n);
    if (h && n == 32)
        memcpy(j->req_sha256, h, 32);
    free(h); /* PQunescapeBytea's memory is free()-able on Linux (PQfreemem = free) */
    sv(j->key_id, sizeof j->key_id, r, row, 4);
    sv(j->key_path, sizeof j->key_path, r, row, 5);
    j->priority = (int)iv(r, row, 6);
    j->state = cuzk_job_state_parse(PQgetvalue(r, row, 7));
    j->enqueued_ms = iv(r, row, 8);
    j->started_ms = iv(r, row, 9);
    j->finished_ms = iv(r, row, 10);
    j->attempt = (int)iv(r, row, 11);
    j->max_attempts = (int)iv(r, row, 12);
    sv(j->owner, sizeof j->owner, r, row, 13);
    j->cancel_requested = (int)iv(r, row, 14);
    sv(j->witness, sizeof j->witness, r, row, 15);
    j->input_bytes = (uint64_t)iv(r, row, 16);
    j->host_bytes = (uint64_t)iv(r, row, 17);
    j->device_bytes = (uint64_t)iv(r, row, 18);
    j->worker = PQgetisnull(r, row, 19) ? -1 : (int)iv(r, row, 19);
    j->device = PQgetisnull(r, row, 20) ? -1 : (int)iv(r, row, 20);
    j->error_code = (int)iv(r, row, 21);
    sv(j->error, sizeof j->error, r, row, 22);
}

/* ---- open / migrate -------------------------------------------------------- */

static void pg_close(eng_queue *base)
{
    pg_queue *q = (pg_queue *)base;
    if (!q)
        return;
    drop_conn(q);
    if (q->lconn)
        PQfinish(q->lconn);
    free(q->resident);
    free(q->skip);
    free(q->conninfo);
    free(q);
}

/* A simple-protocol command (several statements allowed); 0 or the kind of error. */
static int simple(pg_queue *q, const char *sql, char *why, size_t cap, PGresult **keep)
{
    PGresult *r = PQexec(q->conn, sql);
    ExecStatusType rs = PQresultStatus(r);
    if (rs == PGRES_COMMAND_OK || rs == PGRES_TUPLES_OK) {
        if (keep)
            *keep = r;
        else
            PQclear(r);
        return 0;
    }
    int kind = classify(q, r);
    const char *ss = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    /* two hosts creating the schema at once: the loser sees a duplicate */
    if (ss && (!strcmp(ss, "23505") || !strcmp(ss, "42P06") || !strcmp(ss, "42P07")))
        kind = E_RETRY;
    snprintf(why, cap, "%s", r ? PQresultErrorMessage(r) : PQerrorMessage(q->conn));
    PQclear(r);
    return kind == E_FATAL ? -1 : kind;
}

/* Brings the schema to PG_SCHEMA_VERSION: the version row is locked
 * (FOR UPDATE) for the whole migration, so hosts starting together migrate
 * one after the other and the later ones find nothing to do. */
static cuzk_status migrate(pg_queue *q, cuzk_error *err)
{
    double deadline = mono_s() + q->retry_s;
    char why[600] = "";
    for (int tries = 0;; tries++) {
        cuzk_status st = ensure_conn(q, deadline, err);
        if (st)
            return st;
        /* Up to date already (every start but the first): no DDL, no lock,
         * and no CREATE privilege needed. */
        PGresult *cur = PQexec(q->conn, "SELECT version FROM cuzk.schema_version WHERE id = 1");
        int at = PQresultStatus(cur) == PGRES_TUPLES_OK && PQntuples(cur) == 1
                     ? atoi(PQgetvalue(cur, 0, 0))
                     : -1;
        PQclear(cur);
        if (at == PG_SCHEMA_VERSION)
            return CUZK_OK;
        int rc = simple(q,
                        "CREATE SCHEMA IF NOT EXISTS cuzk;"
                        "CREATE TABLE IF NOT EXISTS cuzk.schema_version (id int PRIMARY KEY,"
                        " version int NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());"
                        "INSERT INTO cuzk.schema_version (id, version) VALUES (1, 0)"
                        " ON CONFLICT (id) DO NOTHING",
                        why, sizeof why, NULL);
        PGresult *r = NULL;
        int version = -1;
        if (!rc)
            rc = simple(q, "BEGIN", why, sizeof why, NULL);
        if (!rc && !(rc = simple(q, "SELECT version FROM cuzk.schema_version WHERE id = 1 FOR UPDATE",
                                 why, sizeof why, &r))) {
            version = PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : -1;
            PQclear(r);
            if (version < 0 || version > PG_SCHEMA_VERSION) {
                simple(q, "ROLLBACK", why, sizeof why, NULL);
                return cuzk_err_force(err, (cuzk_status)CUZK_ERR_UNSUPPORTED,
                                      "%s: the cuzk schema is at version %d, this cuzk knows up to %d:"
                                      " upgrade cuzk (schemas only move forward)",
                                      q->safe, version, PG_SCHEMA_VERSION);
            }
            for (int v = version; v < PG_SCHEMA_VERSION && !rc; v++)
                rc = simple(q, MIGRATIONS[v], why, sizeof why, NULL);
            if (!rc && version < PG_SCHEMA_VERSION) {
                char up[128];
                snprintf(up, sizeof up,
                         "UPDATE cuzk.schema_version SET version = %d, updated_at = now() WHERE id = 1",
                         PG_SCHEMA_VERSION);
                rc = simple(q, up, why, sizeof why, NULL);
            }
            if (!rc)
                rc = simple(q, "COMMIT", why, sizeof why, NULL);
        }
        if (!rc)
            return CUZK_OK;
        if (q->conn && PQtransactionStatus(q->conn) != PQTRANS_IDLE) {
            char w2[600];
            simple(q, "ROLLBACK", w2, sizeof w2, NULL);
        }
        if (rc < 0 || tries >= 20 || mono_s() >= deadline)
            return conn_err(q, err, "cannot set up the cuzk schema", why);
        if (rc == E_CONN)
            drop_conn(q);
        sleep_s(0.05 * (tries + 1));
    }
}

static cuzk_status pg_open(eng_queue **out, const char *where, const eng_queue_opts *opts,
                           cuzk_error *err)
{
    *out = NULL;
    pthread_once(&sql_once, build_sql);
    pg_queue *q = calloc(1, sizeof *q);
    if (!q || !(q->conninfo = strdup(where))) {
        free(q);
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "queue: out of memory");
    }
    q->base.ops = &eng_queue_postgres;
    eng_queue_redact(where, q->safe, sizeof q->safe);
    snprintf(q->host, sizeof q->host, "%s", opts && opts->host && opts->host[0] ? opts->host : "localhost");
    snprintf(q->app, sizeof q->app, "cuzk@%.60s", q->host);
    q->lease_ms = 1000 * (opts && opts->lease_s > 0 ? opts->lease_s : 30);
    q->retry_s = opts && opts->retry_s > 0 ? opts->retry_s : 10;
    q->affinity_ms = opts && opts->affinity_s > 0 ? 1000 * opts->affinity_s : 0;
    q->notify = opts && opts->notify;
    q->lbackoff = 0.05;
    if (!(q->resident = strdup("{}")) || !(q->skip = strdup("{}"))) {
        pg_close(&q->base);
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "queue: out of memory");
    }
    for (int i = 0; i < S_COUNT; i++)
        if (!SQL[0][i] || !SQL[1][i]) {
            pg_close(&q->base);
            return cuzk_err_force(err, CUZK_ERR_NOMEM, "queue: out of memory");
        }
    cuzk_status st = migrate(q, err);
    if (st) {
        pg_close(&q->base);
        return st;
    }
    *out = &q->base;
    return CUZK_OK;
}

/* ---- the operations --------------------------------------------------------- */

static cuzk_status one_job(pg_queue *q, int id, const pargs *a, eng_job *out, int *found,
                           const char *what, cuzk_error *err)
{
    PGresult *r;
    *found = 0;
    cuzk_status st = run(q, id, a, &r, what, err);
    if (st)
        return st;
    if (PQntuples(r) > 0) {
        read_job(r, 0, out);
        *found = 1;
    }
    PQclear(r);
    return CUZK_OK;
}

static cuzk_status pg_get(eng_queue *base, const char *id, eng_job *out, cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    pargs a = {0};
    a_str(&a, id);
    int found;
    cuzk_status st = one_job(q, S_GET, &a, out, &found, "get job", err);
    if (!st && !found)
        st = cuzk_err_force(err, (cuzk_status)CUZK_ENGINE_NOT_FOUND, "job %s: no such job", id);
    return st;
}

static cuzk_status pg_by_idem(eng_queue *base, const char *idem_key, eng_job *out, int *found,
                              cuzk_error *err)
{
    pargs a = {0};
    a_str(&a, idem_key);
    return one_job((pg_queue *)base, S_BY_IDEM, &a, out, found, "idempotency lookup", err);
}

static cuzk_status pg_submit(eng_queue *base, const eng_job *j, const void *body, size_t body_len,
                             eng_job *out, int *existed, cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    *existed = 0;
    pargs a = {0};
    a_str(&a, j->id);
    a_str(&a, j->idem_key[0] ? j->idem_key : NULL);
    a_bin(&a, j->req_sha256, 32);
    a_str(&a, j->key_id);
    a_str(&a, j->key_path);
    a_int(&a, j->priority);
    a_int(&a, j->enqueued_ms);
    a_int(&a, j->max_attempts);
    a_str(&a, j->witness);
    a_int(&a, (int64_t)j->input_bytes);
    a_int(&a, (int64_t)j->host_bytes);
    a_int(&a, (int64_t)j->device_bytes);
    if (body)
        a_bin(&a, body, body_len);
    else
        a_str(&a, NULL);
    int found = 0;
    cuzk_status st = one_job(q, S_SUBMIT, &a, out, &found, "submit", err);
    if (st || found)
        return st;
    /* Nothing inserted: the idempotency key (or, after a lost connection,
     * this very id) is there already. */
    if (j->idem_key[0] && (st = pg_by_idem(base, j->idem_key, out, &found, err)))
        return st;
    if (!found) {
        pargs g = {0};
        a_str(&g, j->id);
        if ((st = one_job(q, S_GET, &g, out, &found, "submit", err)))
            return st;
        if (!found)
            return cuzk_err_force(err, CUZK_ERR_INTERNAL, "%s: submit of job %s: not inserted, not found",
                                  q->safe, j->id);
    }
    *existed = strcmp(out->id, j->id) != 0;
    return CUZK_OK;
}

static cuzk_status pg_peek(eng_queue *base, eng_job *out, int *found, cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    pargs a = {0};
    a_str(&a, q->host);
    a_str(&a, q->resident);
    a_float(&a, q->affinity_ms);
    a_float(&a, q->lease_ms);
    a_str(&a, q->skip);
    return one_job(q, S_PEEK, &a, out, found, "peek", err);
}

/* After a lost connection, did our claim commit? Same owner, same start time, running. */
static int claim_landed(pg_queue *q, const char *id, const char *owner, int64_t now_ms,
                        eng_job *out)
{
    cuzk_error e2 = {0};
    return !pg_get(&q->base, id, out, &e2) && out->state == CUZK_JOB_RUNNING &&
           !strcmp(out->owner, owner) && out->started_ms == now_ms;
}

static cuzk_status pg_claim(eng_queue *base, const char *id, const char *owner, int worker,
                            int device, int64_t now_ms, eng_job *out, int *claimed,
                            cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    pargs a = {0};
    a_str(&a, id);
    a_str(&a, owner);
    a_int(&a, now_ms);
    a_int(&a, worker);
    a_int(&a, device);
    a_float(&a, q->lease_ms);
    cuzk_status st = one_job(q, S_CLAIM, &a, out, claimed, "claim", err);
    if (!st && !*claimed && q->retried)
        *claimed = claim_landed(q, id, owner, now_ms, out);
    return st;
}

static cuzk_status pg_claim_next(eng_queue *base, const char *owner, int worker, int device,
                                 int64_t now_ms, eng_job *out, int *claimed, cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    pargs a = {0};
    a_str(&a, owner);
    a_int(&a, now_ms);
    a_int(&a, worker);
    a_int(&a, device);
    a_float(&a, q->lease_ms);
    a_str(&a, q->resident);
    a_float(&a, q->affinity_ms);
    /* A lost connection may hide a committed claim: it is then not ours to
     * run (we cannot tell which job it was) and its lease, never renewed,
     * runs out, so another claim picks it up again. */
    return one_job(q, S_CLAIM_NEXT, &a, out, claimed, "claim", err);
}

static cuzk_status count_rows(pg_queue *q, int id, const pargs *a, int64_t *n, const char *what,
                              cuzk_error *err)
{
    PGresult *r;
    cuzk_status st = run(q, id, a, &r, what, err);
    if (st)
        return st;
    *n = PQntuples(r) > 0 ? iv(r, 0, 0) : 0;
    PQclear(r);
    return CUZK_OK;
}

/* After a lost connection, did our end of (id, attempt) commit? The
 * attempt's recorded outcome says. */
static int end_landed(pg_queue *q, const char *id, int attempt, const char *owner,
                      const char *outcome)
{
    pargs a = {0};
    a_str(&a, id);
    a_int(&a, attempt);
    a_str(&a, owner);
    PGresult *r;
    cuzk_error e2 = {0};
    if (run(q, S_OUTCOME, &a, &r, "outcome", &e2))
        return 0;
    int yes = PQntuples(r) == 1 && !PQgetisnull(r, 0, 0) && !strcmp(PQgetvalue(r, 0, 0), outcome);
    PQclear(r);
    return yes;
}

static cuzk_status pg_complete(eng_queue *base, const char *id, int attempt, const char *owner,
                               const char *proof_json, const char *public_json, int64_t now_ms,
                               int *fenced, cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    pargs a = {0};
    a_str(&a, id);
    a_int(&a, attempt);
    a_str(&a, owner);
    a_int(&a, now_ms);
    a_str(&a, proof_json);
    a_str(&a, public_json);
    int64_t n = 0;
    cuzk_status st = count_rows(q, S_COMPLETE, &a, &n, "complete", err);
    if (st)
        return st;
    *fenced = n == 0 && !(q->retried && end_landed(q, id, attempt, owner, "done"));
    return CUZK_OK;
}

static cuzk_status pg_finish(eng_queue *base, const char *id, int attempt, const char *owner,
                             int state, int code, const char *msg, int64_t now_ms, int *fenced,
                             cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    const char *name = cuzk_job_state_name((cuzk_job_state)state);
    pargs a = {0};
    a_str(&a, id);
    a_int(&a, attempt);
    a_str(&a, owner);
    int64_t n = 0;
    cuzk_status st;
    if (state == CUZK_JOB_QUEUED) {
        a_int(&a, now_ms);
        a_int(&a, CUZK_ERR_CANCELLED);
        st = count_rows(q, S_REQUEUE, &a, &n, "finish", err);
    } else {
        a_str(&a, name);
        a_int(&a, now_ms);
        a_int(&a, code);
        a_str(&a, msg);
        st = count_rows(q, S_END, &a, &n, "finish", err);
    }
    if (st)
        return st;
    *fenced = n == 0 && !(q->retried && end_landed(q, id, attempt, owner,
                                                   state == CUZK_JOB_QUEUED ? "requeued" : name));
    return CUZK_OK;
}

static cuzk_status pg_cancel(eng_queue *base, const char *id, int64_t now_ms, eng_job *out,
                             int *dequeued, cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    pargs a = {0};
    a_str(&a, id);
    a_int(&a, now_ms);
    a_int(&a, CUZK_ERR_CANCELLED);
    int64_t n = 0;
    cuzk_status st = count_rows(q, S_CANCEL, &a, &n, "cancel", err);
    if (st)
        return st;
    *dequeued = n > 0;
    return pg_get(base, id, out, err);
}

static cuzk_status rescue_run(pg_queue *q, int id, const pargs *a, uint64_t *requeued,
                              uint64_t *ended, cuzk_error *err)
{
    PGresult *r;
    *requeued = *ended = 0;
    cuzk_status st = run(q, id, a, &r, "rescue", err);
    if (st)
        return st;
    if (PQntuples(r) > 0) {
        *requeued = (uint64_t)iv(r, 0, 0);
        *ended = (uint64_t)iv(r, 0, 1);
    }
    PQclear(r);
    return CUZK_OK;
}

/* At start: this host's own running jobs (a restarted host need not wait
 * for its leases). Other hosts' jobs are theirs until their leases expire. */
static cuzk_status pg_rescue(eng_queue *base, const char *owner, int64_t now_ms,
                             uint64_t *requeued, uint64_t *ended, cuzk_error *err)
{
    pargs a = {0};
    a_str(&a, owner);
    a_int(&a, now_ms);
    a_int(&a, CUZK_ERR_CANCELLED);
    return rescue_run((pg_queue *)base, S_RESCUE_OWNER, &a, requeued, ended, err);
}

static cuzk_status pg_rescue_expired(eng_queue *base, int64_t now_ms, uint64_t *requeued,
                                     uint64_t *ended, cuzk_error *err)
{
    pargs a = {0};
    a_int(&a, now_ms);
    a_int(&a, CUZK_ERR_CANCELLED);
    return rescue_run((pg_queue *)base, S_RESCUE_EXPIRED, &a, requeued, ended, err);
}

/* ids as a text[] literal (malloc'd; NULL = out of memory): job ids are
 * uuids and key ids hex (no quoting needed), but quote them anyway. */
static char *text_array(const char *const *ids, size_t n)
{
    size_t cap = 3;
    for (size_t i = 0; i < n; i++)
        cap += 2 * strlen(ids[i]) + 3;
    char *arr = malloc(cap);
    if (!arr)
        return NULL;
    size_t len = 0;
    arr[len++] = '{';
    for (size_t i = 0; i < n; i++) {
        if (i)
            arr[len++] = ',';
        arr[len++] = '"';
        for (const char *c = ids[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                arr[len++] = '\\';
            arr[len++] = *c;
        }
        arr[len++] = '"';
    }
    arr[len++] = '}';
    arr[len] = 0;
    return arr;
}

static cuzk_status pg_renew(eng_queue *base, const char *owner, const char *const *ids, size_t n,
                            int *held, cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    for (size_t i = 0; i < n; i++)
        held[i] = 0;
    char *arr = text_array(ids, n);
    if (!arr)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "renew: out of memory");
    pargs a = {0};
    a_str(&a, owner);
    a_str(&a, arr);
    a_float(&a, q->lease_ms);
    PGresult *r;
    cuzk_status st = run(q, S_RENEW, &a, &r, "renew leases", err);
    free(arr);
    if (st)
        return st;
    for (int k = 0; k < PQntuples(r); k++)
        for (size_t i = 0; i < n; i++)
            if (!strcmp(ids[i], PQgetvalue(r, k, 0)))
                held[i] = 1 + (int)iv(r, k, 1);
    PQclear(r);
    return CUZK_OK;
}

static cuzk_status pg_result(eng_queue *base, const char *id, char **proof_json,
                             char **public_json, cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    *proof_json = *public_json = NULL;
    pargs a = {0};
    a_str(&a, id);
    PGresult *r;
    cuzk_status st = run(q, S_RESULT, &a, &r, "result", err);
    if (st)
        return st;
    if (PQntuples(r) == 0)
        st = cuzk_err_force(err, (cuzk_status)CUZK_ENGINE_NOT_FOUND, "job %s: no proof", id);
    else if (!(*proof_json = strdup(PQgetvalue(r, 0, 0))) ||
             !(*public_json = strdup(PQgetvalue(r, 0, 1)))) {
        free(*proof_json);
        *proof_json = NULL;
        st = cuzk_err_force(err, CUZK_ERR_NOMEM, "job %s: out of memory", id);
    }
    PQclear(r);
    return st;
}

static cuzk_status all_jobs(pg_queue *q, int id, const pargs *a, eng_job **out, size_t *n,
                            const char *what, cuzk_error *err)
{
    *out = NULL;
    *n = 0;
    PGresult *r;
    cuzk_status st = run(q, id, a, &r, what, err);
    if (st)
        return st;
    int rows = PQntuples(r);
    eng_job *v = malloc((size_t)(rows ? rows : 1) * sizeof *v);
    if (!v) {
        PQclear(r);
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: out of memory", what);
    }
    for (int i = 0; i < rows; i++)
        read_job(r, i, &v[i]);
    PQclear(r);
    *out = v;
    *n = (size_t)rows;
    return CUZK_OK;
}

static cuzk_status pg_list(eng_queue *base, int state, uint64_t before_seq, size_t limit, eng_job **out,
                           size_t *n, cuzk_error *err)
{
    pargs a = {0};
    if (state >= 0)
        a_str(&a, cuzk_job_state_name((cuzk_job_state)state));
    a_int(&a, (int64_t)limit);
    a_int(&a, before_seq && before_seq <= INT64_MAX ? (int64_t)before_seq : INT64_MAX);
    return all_jobs((pg_queue *)base, state >= 0 ? S_LIST_STATE : S_LIST_ALL, &a, out, n, "list",
                    err);
}

static cuzk_status pg_position(eng_queue *base, const eng_job *j, uint64_t *pos, cuzk_error *err)
{
    pargs a = {0};
    a_int(&a, j->priority);
    a_int(&a, j->enqueued_ms);
    a_int(&a, (int64_t)j->seq);
    int64_t n = 0;
    cuzk_status st = count_rows((pg_queue *)base, S_POSITION, &a, &n, "position", err);
    *pos = (uint64_t)n;
    return st;
}

/* A page's positions: one count each (the page is at most a few hundred). */
static cuzk_status pg_positions(eng_queue *base, const eng_job *v, size_t n, uint64_t *pos, cuzk_error *err)
{
    for (size_t i = 0; i < n; i++) {
        pos[i] = 0;
        if (v[i].state != CUZK_JOB_QUEUED)
            continue;
        cuzk_status st = pg_position(base, &v[i], &pos[i], err);
        if (st)
            return st;
    }
    return CUZK_OK;
}

static cuzk_status pg_stats(eng_queue *base, uint64_t queued[CUZK_PRIO_COUNT], uint64_t *running,
                            uint64_t *spool_bytes, cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    memset(queued, 0, CUZK_PRIO_COUNT * sizeof *queued);
    *running = *spool_bytes = 0;
    PGresult *r;
    cuzk_status st = run(q, S_STATS, NULL, &r, "stats", err);
    if (st)
        return st;
    for (int i = 0; i < PQntuples(r); i++) {
        int state = cuzk_job_state_parse(PQgetvalue(r, i, 0));
        int prio = (int)iv(r, i, 1);
        uint64_t cnt = (uint64_t)iv(r, i, 2);
        if (state == CUZK_JOB_QUEUED && prio >= 0 && prio < CUZK_PRIO_COUNT)
            queued[prio] += cnt;
        else if (state == CUZK_JOB_RUNNING)
            *running += cnt;
        *spool_bytes += (uint64_t)iv(r, i, 3);
    }
    PQclear(r);
    return CUZK_OK;
}

static cuzk_status pg_expire(eng_queue *base, int64_t before_ms, size_t max, eng_job **ids,
                             size_t *n, cuzk_error *err)
{
    pargs a = {0};
    a_int(&a, before_ms);
    a_int(&a, (int64_t)max);
    return all_jobs((pg_queue *)base, S_EXPIRE, &a, ids, n, "expire", err);
}

static cuzk_status pg_input(eng_queue *base, const char *id, void **body, size_t *len,
                            cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    *body = NULL;
    *len = 0;
    pargs a = {0};
    a_str(&a, id);
    PGresult *r;
    cuzk_status st = run(q, S_INPUT, &a, &r, "input", err);
    if (st)
        return st;
    if (PQntuples(r) == 0) {
        st = cuzk_err_force(err, (cuzk_status)CUZK_ENGINE_NOT_FOUND, "job %s: no witness", id);
    } else { /* a binary result: the bytes as they are */
        size_t n = (size_t)PQgetlength(r, 0, 0);
        if (!(*body = malloc(n ? n : 1)))
            st = cuzk_err_force(err, CUZK_ERR_NOMEM, "job %s: out of memory", id);
        else {
            memcpy(*body, PQgetvalue(r, 0, 0), n);
            *len = n;
        }
    }
    PQclear(r);
    return st;
}

static cuzk_status pg_live_inputs(eng_queue *base, eng_live_input **out, size_t *n, cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    *out = NULL;
    *n = 0;
    PGresult *r;
    cuzk_status st = run(q, S_LIVE, NULL, &r, "spool scan", err);
    if (st)
        return st;
    int rows = PQntuples(r);
    eng_live_input *v = calloc((size_t)(rows ? rows : 1), sizeof *v);
    for (int i = 0; v && i < rows; i++) {
        snprintf(v[i].id, sizeof v[i].id, "%s", PQgetvalue(r, i, 0));
        snprintf(v[i].witness, sizeof v[i].witness, "%s", PQgetvalue(r, i, 1));
    }
    PQclear(r);
    if (!v)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "spool scan: out of memory");
    *out = v;
    *n = (size_t)rows;
    return CUZK_OK;
}

/* Replaces this host's resident keys, in the database (for the other
 * hosts' claims) and here (for ours); also a heartbeat. */
static cuzk_status pg_publish_keys(eng_queue *base, const char *const *key_ids, size_t n,
                                   cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    char *arr = text_array(key_ids, n);
    if (!arr)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "publish keys: out of memory");
    free(q->resident);
    q->resident = arr;
    pargs a = {0};
    a_str(&a, q->host);
    a_str(&a, arr);
    PGresult *r;
    cuzk_status st = run(q, S_PUBLISH, &a, &r, "publish resident keys", err);
    PQclear(r);
    return st;
}

static cuzk_status pg_describe_host(eng_queue *base, const char *url, int gpus, int slots,
                                    cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    pargs a = {0};
    a_str(&a, q->host);
    a_str(&a, url ? url : "");
    a_int(&a, gpus);
    a_int(&a, slots);
    PGresult *r;
    cuzk_status st = run(q, S_DESCRIBE, &a, &r, "describe host", err);
    PQclear(r);
    return st;
}

static cuzk_status pg_hosts(eng_queue *base, double lease_s, cuzk_cluster_host **out, size_t *n,
                            cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    pargs a = {0};
    PGresult *r;
    *out = NULL;
    *n = 0;
    cuzk_status st = run(q, S_HOSTS, &a, &r, "hosts", err);
    if (st)
        return st;
    int rows = PQntuples(r);
    cuzk_cluster_host *v = calloc(rows ? (size_t)rows : 1, sizeof *v);
    if (!v) {
        PQclear(r);
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "hosts: out of memory");
    }
    for (int i = 0; i < rows; i++) {
        cuzk_cluster_host *h = &v[i];
        snprintf(h->host_id, sizeof h->host_id, "%s", PQgetvalue(r, i, 0));
        snprintf(h->url, sizeof h->url, "%s", PQgetvalue(r, i, 1));
        h->gpus = atoi(PQgetvalue(r, i, 2));
        h->slots = atoi(PQgetvalue(r, i, 3));
        h->silent_s = strtod(PQgetvalue(r, i, 4), NULL);
        h->alive = h->silent_s < lease_s;
        h->running = strtoull(PQgetvalue(r, i, 5), NULL, 10);
        h->lease_left_s = strtod(PQgetvalue(r, i, 6), NULL);
        snprintf(h->keys, sizeof h->keys, "%s", PQgetvalue(r, i, 7));
    }
    PQclear(r);
    *out = v;
    *n = (size_t)rows;
    return CUZK_OK;
}

/* Keys this host cannot find (not at the job's path, not in its keys.dirs):
 * peek passes over their jobs, so that a host with the key takes them. */
static cuzk_status pg_skip_keys(eng_queue *base, const char *const *key_ids, size_t n,
                                cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    char *arr = text_array(key_ids, n);
    if (!arr)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "skip keys: out of memory");
    free(q->skip);
    q->skip = arr;
    return CUZK_OK;
}

static void drain_notifies(PGconn *c, unsigned *events)
{
    PGnotify *n;
    while ((n = PQnotifies(c))) {
        *events |= !strcmp(n->relname, "cuzk_jobs") ? ENG_WAKE_JOBS : ENG_WAKE_DONE;
        PQfreemem(n);
    }
}

/* The listener: its own connection (LISTEN cuzk_jobs, cuzk_done), waited
 * on with poll(). A new connection reports ENG_WAKE_RESCAN (what was
 * notified while none listened is lost: the caller looks again); a lost
 * one is reconnected with capped backoff, the wait meanwhile a plain
 * sleep (the caller's polling goes on). */
static cuzk_status pg_listen(eng_queue *base, double timeout_s, unsigned *events, cuzk_error *err)
{
    pg_queue *q = (pg_queue *)base;
    *events = 0;
    if (!q->notify)
        return cuzk_err_force(err, CUZK_ERR_UNSUPPORTED, "%s: notifications are off (engine.notify)",
                              q->safe);
    if (q->lconn && PQstatus(q->lconn) != CONNECTION_OK)
        goto lost;
    if (!q->lconn) {
        double now = mono_s();
        if (now < q->lnext) {
            double w = q->lnext - now;
            sleep_s(w < timeout_s ? w : timeout_s);
            return CUZK_OK;
        }
        const char *keys[] = {"connect_timeout", "keepalives", "keepalives_idle",
                              "keepalives_interval", "keepalives_count", "dbname",
                              "fallback_application_name", NULL};
        char app[320];
        snprintf(app, sizeof app, "%s/listen", q->app);
        const char *vals[] = {"5", "1", "10", "5", "3", q->conninfo, app, NULL};
        PGconn *c = PQconnectdbParams(keys, vals, 1);
        PGresult *r = c && PQstatus(c) == CONNECTION_OK ? PQexec(c, "LISTEN cuzk_jobs; LISTEN cuzk_done") : NULL;
        if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
            char why[600];
            snprintf(why, sizeof why, "%s", !c ? "out of memory" : r ? PQresultErrorMessage(r) : PQerrorMessage(c));
            PQclear(r);
            PQfinish(c);
            q->lnext = mono_s() + q->lbackoff;
            q->lbackoff = q->lbackoff * 2 > 1.0 ? 1.0 : q->lbackoff * 2;
            return conn_err(q, err, "cannot listen for wake-ups", why);
        }
        PQclear(r);
        PQsetNoticeProcessor(c, quiet, NULL);
        q->lconn = c;
        q->lbackoff = 0.05;
        *events = ENG_WAKE_RESCAN;
        return CUZK_OK;
    }
    if (!PQconsumeInput(q->lconn))
        goto lost;
    drain_notifies(q->lconn, events);
    if (*events || timeout_s <= 0)
        return CUZK_OK;
    struct pollfd pfd = {.fd = PQsocket(q->lconn), .events = POLLIN};
    int ms = (int)(timeout_s * 1000 + 0.5);
    int rc = poll(&pfd, 1, ms);
    if (rc < 0 && errno != EINTR)
        goto lost;
    if (rc > 0) {
        if (!PQconsumeInput(q->lconn))
            goto lost;
        drain_notifies(q->lconn, events);
    }
    return CUZK_OK;
lost:;
    char why[600];
    snprintf(why, sizeof why, "%s", PQerrorMessage(q->lconn));
    PQfinish(q->lconn);
    q->lconn = NULL;
    q->lnext = mono_s() + q->lbackoff;
    return conn_err(q, err, "listener connection lost", why);
}

static uint64_t pg_mark(eng_queue *base)
{
    (void)base;
    return 0; /* commits are durable when they return */
}

static cuzk_status pg_sync(eng_queue *base, uint64_t mark, cuzk_error *err)
{
    (void)base, (void)mark, (void)err;
    return CUZK_OK;
}

static uint64_t pg_flushes(eng_queue *base)
{
    (void)base;
    return 0;
}

const eng_queue_ops eng_queue_postgres = {
    .name = "postgresql",
    .shared = 1,
    .open = pg_open,
    .close = pg_close,
    .submit = pg_submit,
    .peek = pg_peek,
    .skip_keys = pg_skip_keys,
    .describe_host = pg_describe_host,
    .hosts = pg_hosts,
    .claim = pg_claim,
    .claim_next = pg_claim_next,
    .renew = pg_renew,
    .rescue_expired = pg_rescue_expired,
    .complete = pg_complete,
    .finish = pg_finish,
    .cancel = pg_cancel,
    .by_idem = pg_by_idem,
    .rescue = pg_rescue,
    .get = pg_get,
    .result = pg_result,
    .list = pg_list,
    .position = pg_position,
    .positions = pg_positions,
    .stats = pg_stats,
    .expire = pg_expire,
    .live_inputs = pg_live_inputs,
    .input = pg_input,
    .publish_keys = pg_publish_keys,
    .listen = pg_listen,
    .mark = pg_mark,
    .sync = pg_sync,
    .flushes = pg_flushes,
};
