#!/usr/bin/env bash
# The daemon's per-job cost on its two queues, and several daemons on one
# PostgreSQL queue:
#
#   bench/bench_cluster.sh <cuzk> [jobs] [clients] [hosts] [daemon flags...]
#
# (the daemon flags go to every `cuzk serve`, e.g. --notify=false or
# --affinity-delay=0 to compare with the defaults)
#
# 1. one daemon on SQLite, then one on PostgreSQL (a throwaway cluster:
#    Unix socket, fsync and synchronous commits on), 1 CPU worker each:
#    `cuzk bench serve` of the 11-constraint bn128 circuit (the proof is
#    ~10 ms, so the queue's share shows);
# 2. `hosts` daemons on the PostgreSQL queue, `clients` clients on each:
#    throughput, who ran what, no job done twice, and the latency of the
#    workers' queue statements as the server times them
#    (log_min_duration_statement = 0 for this part): the claim (UPDATE ...
#    WHERE id AND state = 'queued') and the peek at the head before it.
# As root the PostgreSQL server runs as the postgres user.
set -euo pipefail
CUZK=$(realpath "$1"); N=${2:-200}; C=${3:-4}; H=${4:-3}
EXTRA=("${@:5}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=$ROOT/tests/data/interop/bn128
T=$(mktemp -d /tmp/cuzk-bench-cluster.XXXXXX); chmod 755 "$T"
PIDS=() AS=""
PG=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
cleanup() {
  for p in "${PIDS[@]:-}"; do kill -9 "$p" 2>/dev/null || true; done
  $AS "$PG/pg_ctl" -D "$T/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/pg"
if [ "$(id -u)" = 0 ]; then chown postgres "$T/pg"; AS="runuser -u postgres --"; fi
$AS "$PG/initdb" -D "$T/pg/data" -A trust -U postgres -E UTF8 --no-instructions >/dev/null
$AS "$PG/pg_ctl" -D "$T/pg/data" -w -l "$T/pg/log" -o "-k $T/pg -c listen_addresses=''" start >/dev/null
Q="host=$T/pg dbname=postgres user=postgres"

start() {  # NAME [settings]: sets URL
  local name=$1; shift
  "$CUZK" serve --foreground --listen 127.0.0.1:0 --state-dir "$T/$name" --host-id "$name" \
    --cpu-workers 1 --threads 1 ${EXTRA[@]+"${EXTRA[@]}"} "$@" 2>"$T/$name.log" &
  PIDS+=("$!")
  URL=""
  for _ in $(seq 1 400); do
    URL=$(grep -o 'event=listening url=[^ ]*' "$T/$name.log" 2>/dev/null | sed 's/.*url=//' || true)
    [ -n "$URL" ] && break; sleep 0.05
  done
}

echo "== one daemon, 1 client, $N jobs (bn128 mul, 11 constraints), load average $(cut -d' ' -f1-3 /proc/loadavg)"
start s1 --queue sqlite
echo "-- sqlite"; "$CUZK" bench serve --url "$URL" --key "$D/mul.zkey" --witness "$D/mul.wtns" -n "$N" -c 1 --warmup 5
kill -TERM "${PIDS[-1]}"; wait "${PIDS[-1]}" || true
start p1 --queue "$Q"
echo "-- postgresql"; "$CUZK" bench serve --url "$URL" --key "$D/mul.zkey" --witness "$D/mul.wtns" -n "$N" -c 1 --warmup 5
kill -TERM "${PIDS[-1]}"; wait "${PIDS[-1]}" || true

echo "== $H daemons on one PostgreSQL queue, $C clients on each, $N jobs each"
$AS "$PG/psql" -h "$T/pg" -U postgres -XAtq -c "ALTER SYSTEM SET log_min_duration_statement = 0" -c "SELECT pg_reload_conf()" >/dev/null
urls=() BP=()
for h in $(seq 1 "$H"); do start "h$h" --queue "$Q" --lease-renew 1s; urls+=("$URL"); done
for u in "${urls[@]}"; do
  "$CUZK" bench serve --url "$u" --key "$D/mul.zkey" --witness "$D/mul.wtns" -n "$N" -c "$C" >"$T/b-${u##*:}.txt" 2>&1 &
  BP+=("$!")
done
for p in "${BP[@]}"; do wait "$p"; done
for u in "${urls[@]}"; do echo "-- submitted to $u"; cat "$T/b-${u##*:}.txt"; done
$AS "$PG/psql" -h "$T/pg" -U postgres -XAtq -c "ALTER SYSTEM RESET log_min_duration_statement" -c "SELECT pg_reload_conf()" >/dev/null
echo "-- jobs done by host"
$AS "$PG/psql" -h "$T/pg" -U postgres -XAtq -c \
  "SELECT host_id || ' ' || count(*) FROM cuzk.attempts WHERE outcome = 'done' GROUP BY host_id ORDER BY 1"
$AS "$PG/psql" -h "$T/pg" -U postgres -XAtq -c \
  "SELECT 'jobs ' || count(*) || ', done ' || count(*) FILTER (WHERE state = 'done') || ', recorded done twice ' || (SELECT count(*) FROM (SELECT job_id FROM cuzk.attempts WHERE outcome = 'done' GROUP BY 1 HAVING count(*) > 1) x) FROM cuzk.jobs"
for s in "cuzk_q4 claim" "cuzk_q3 peek"; do
  set -- $s
  grep -o "duration: [0-9.]* ms  execute $1:" "$T/pg/log" | awk '{print $2}' | sort -g >"$T/lat" || true
  n=$(wc -l <"$T/lat")
  [ "$n" -gt 0 ] || continue
  echo "-- server-side $2 latency over $n statements: p50 $(sed -n "$(( (n + 1) / 2 ))p" "$T/lat") ms, p99 $(sed -n "$(( (n * 99 + 99) / 100 ))p" "$T/lat") ms, max $(tail -n 1 "$T/lat") ms"
done
