# Shared by the cluster tests (sourced after CUZK, ROOT, EXTRA and TAG are
# set): the daemon tests' helpers (lib.sh: T, PIDS, fail, note, ok, jget,
# http, wait_for, start_daemon, ...), a throwaway PostgreSQL cluster (initdb
# into a temporary directory, Unix socket only, fsync off, synchronous
# commits on, commit timestamps tracked (pg_xact_commit_timestamp: when a
# row was written, on the database's clock), stopped at exit; as root the
# server runs as the `postgres` user) in $QUEUE, and:
#   start_host NAME [flags]   start_daemon with host id NAME on the queue:
#                             URLS[NAME], DPIDS[NAME]
#   on HOST cmd...            runs a cuzk client command against HOST
#   psql_ SQL, wait_sql SQL EXPECTED DESC, wait_held HOST JOB, job HOST ID [WAIT]
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
DATA="$ROOT/tests/data/interop"
LEASE=${LEASE:-2s} RENEW=${RENEW:-0.25s}

TMP_PREFIX=cuzk-cluster
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
chmod 755 "$T"   # the postgres user reaches its directory inside
PG="" AS=""
cleanup() {  # lib.sh's, with stopped daemons continued and the database stopped
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && { kill -CONT "$p"; kill -9 "$p"; } 2>/dev/null; done
  [ -n "$PG" ] && $AS "$PG/pg_ctl" -D "$T/pg/data" -m immediate -w stop >/dev/null 2>&1
  if [ "${DAEMON_KEEP:-0}" = 1 ]; then echo "keeping $T"; else rm -rf "$T"; fi
}
if ! command -v node >/dev/null || [ ! -x "$SNARKJS" ]; then
  echo "SKIP $TAG: node or $SNARKJS missing (run 'npm ci' in $ROOT)"; exit 77
fi

# ---- the database ----
PG=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$PG" ] && [ -x "$PG/initdb" ] ||
  fail "the PostgreSQL server is not installed (no /usr/lib/postgresql/*/bin/initdb): install the Debian package postgresql (scripts/deps.sh)"
mkdir -p "$T/pg"
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || fail "running as root without a postgres user: install the Debian package postgresql"
  chown postgres "$T/pg"; AS="runuser -u postgres --"
fi
$AS "$PG/initdb" -D "$T/pg/data" -A trust -U postgres -E UTF8 --no-sync --no-instructions >"$T/pg/initdb.log" 2>&1 ||
  fail "initdb: $(tail -n 5 "$T/pg/initdb.log")"
$AS "$PG/pg_ctl" -D "$T/pg/data" -w -t 60 -l "$T/pg/log" -o "-k $T/pg -c listen_addresses='' -c fsync=off -c track_commit_timestamp=on" start >/dev/null ||
  fail "PostgreSQL did not start: $(tail -n 5 "$T/pg/log")"
QUEUE="host=$T/pg dbname=postgres user=postgres password=not-a-secret-7"
psql_() { $AS "$PG/psql" -h "$T/pg" -U postgres -d postgres -XAtq -c "$1"; }

# ---- the daemons ----
declare -A URLS DPIDS
start_host() {  # NAME [settings...]
  local name=$1; shift
  start_daemon "$name" --host-id "$name" --queue "$QUEUE" --lease $LEASE --lease-renew $RENEW \
    --cpu-workers 1 --threads 1 ${EXTRA[@]+"${EXTRA[@]}"} "$@"
  DPIDS[$name]=$DPID
  URLS[$name]=$URL
}
on() { local h=$1; shift; CUZK_URL=${URLS[$h]} "$@"; }
job() { curl -sS "${URLS[$1]}/v1/jobs/$2?wait=${3:-0}"; }
wait_held() {  # HOST JOB: the job is running on HOST, held by its pause (60 s)
  for _ in $(seq 1 120); do
    local b; b=$(job "$1" "$2" 0.5)
    [ "$(echo "$b" | jget state)" = running ] && [ "$(echo "$b" | jget phase)" = paused ] && return 0
  done
  fail "job $2 was not held on $1: $(job "$1" "$2")"
}
wait_sql() {  # SQL EXPECTED DESC: polls the database (60 s)
  for _ in $(seq 1 600); do [ "$(psql_ "$1")" = "$2" ] && return 0; sleep 0.1; done
  fail "$3: $(psql_ "$1") (expected $2)"
}

