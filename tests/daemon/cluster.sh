#!/usr/bin/env bash
# Three `cuzk serve` daemons (hosts A, B, C: own host ids, ports and state
# directories) on one PostgreSQL queue, which this test starts itself
# (initdb into a temporary directory, Unix socket only, fsync off,
# synchronous commits on, stopped at exit; as root the server runs as the
# `postgres` user).
#
#   cluster.sh <cuzk-binary> <repo-root> [daemon flags...]
#
# The daemon flags go to every `cuzk serve` (daemon_cluster_poll: --notify=false,
# the polling that YugabyteDB without LISTEN/NOTIFY gets).
#
# 1. jobs of both curves submitted to A, B and C while every host is paused;
#    A is admitted one job, holds it running, and is killed (kill -9). B and
#    C resume: A's job runs elsewhere once its lease (2 s here) has run out,
#    as attempt 2; every job ends done exactly once, awaited from a host
#    other than the one that accepted it, and every proof verifies (cuzk
#    verify; snarkjs for one per curve). The time from the kill to the
#    commit of that job's result (database clock: clock_timestamp() before
#    the kill, pg_xact_commit_timestamp of the result row) is printed and
#    must be at most the lease + 10 s. LEASE=30s RENEW=5s measures it at
#    the daemon's defaults.
# 2. zombie: C is admitted a job and holds it, is stopped (SIGSTOP) past
#    its lease, B runs the job; C continues (SIGCONT) and resumes, finishes
#    its proof late, and its result is fenced (not recorded).
# 3. a job held running on C and cancelled through B ends cancelled: C sees
#    the request at its next lease renewal and stops the job.
# 4. PostgreSQL crashes and restarts (pg_ctl restart -m immediate) right
#    after 12 jobs are submitted: the daemons reconnect and every job ends
#    done exactly once.
# Witnesses here are stored in the database with the job (no advertise_url:
# cluster_blobs.sh tests witnesses kept on a host); keys are found by path.
# Every wait is for a state, with a generous deadline, never a race.
#
# Exit 0 = pass, 1 = fail, 77 = skip (node/snarkjs missing). The PostgreSQL
# server binaries are required: without them the test fails and says so.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 <cuzk> <repo-root> [daemon flags...]" >&2; exit 2; }
CUZK=$1 ROOT=$2
shift 2
EXTRA=("$@")
TAG="[daemon cluster]"
. "$(dirname "$0")/cluster_lib.sh"

start_host A --paused
start_host B --paused
start_host C --paused
grep -q "not-a-secret-7" "$T"/daemon-*.log && fail "the queue's password was logged"
# Each host listens for wake-ups on a connection of its own, unless told not to.
WANT=3; case " ${EXTRA[*]:-} " in *" --notify=false "*) WANT=0 ;; esac
wait_sql "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'cuzk@%/listen'" $WANT "listening hosts"
note "3 daemons on one PostgreSQL: ${URLS[A]} ${URLS[B]} ${URLS[C]}"

# ---- 1: kill -9 a host holding a job ----
: >"$T/jobs"
hosts=(A B C)
for i in $(seq 0 11); do
  h=${hosts[$((i % 3))]}
  if [ $((i % 2)) = 0 ]; then c=bn128; else c=bls12381; fi
  ok "submit $i to $h" on "$h" "$CUZK" submit "$DATA/$c/mul.zkey" "$DATA/$c/mul.wtns"
  echo "$(cat "$T/out") $h $c" >>"$T/jobs"
done
FIRST=$(head -n 1 "$T/jobs" | cut -d' ' -f1)
ok "admit 1 on A" on A "$CUZK" workers admit 1
wait_held A "$FIRST"
[ "$(psql_ "SELECT owner || ':' || attempt FROM cuzk.jobs WHERE id = '$FIRST'")" = "A:1" ] || fail "the first job is not A's attempt 1"
# A's only worker holds the job with its key loaded: the housekeeper publishes the key.
KEY_A=$(psql_ "SELECT key_id FROM cuzk.jobs WHERE id = '$FIRST'")
wait_sql "SELECT string_agg(key_id, ',') FROM cuzk.host_keys WHERE host_id = 'A'" "$KEY_A" "A's resident keys"
K0=$(psql_ "SELECT extract(epoch FROM clock_timestamp())")   # the database's clock, just before the kill
kill -9 "${DPIDS[A]}"; wait "${DPIDS[A]}" 2>/dev/null
note "killed A (kill -9) holding job $FIRST"
ok "resume B" on B "$CUZK" workers resume
ok "resume C" on C "$CUZK" workers resume
n=0
while read -r id h c; do
  n=$((n + 1))
  case $h in A) w=B ;; B) w=C ;; C) w=B ;; esac   # awaited from another host
  ok "await $id on $w" on "$w" "$CUZK" await --timeout 120 "$id" "$T/p$n.json" "$T/pub$n.json"
  ok "verify $id" "$CUZK" verify "$DATA/$c/mul.vkey.json" "$T/pub$n.json" "$T/p$n.json"
  if [ $n -le 2 ]; then
    "$SNARKJS" groth16 verify "$DATA/$c/mul.vkey.json" "$T/pub$n.json" "$T/p$n.json" >"$T/sj" 2>&1 && grep -q 'OK!' "$T/sj" ||
      fail "snarkjs rejected the proof of $id ($c)"
  fi
done <"$T/jobs"
R=$(psql_ "SELECT count(*) FILTER (WHERE state = 'done') || ' ' || count(*) FROM cuzk.jobs")
[ "$R" = "12 12" ] || fail "jobs done/total: $R"
R=$(psql_ "SELECT string_agg(attempt || ':' || host_id || ':' || outcome, ',' ORDER BY attempt) FROM cuzk.attempts WHERE job_id = '$FIRST'")
case $R in 1:A:lease_expired,2:[BC]:done) ;; *) fail "attempts of the killed host's job: $R" ;; esac
R=$(psql_ "SELECT count(*) FROM (SELECT job_id FROM cuzk.attempts WHERE outcome = 'done' GROUP BY job_id HAVING count(*) > 1) x")
[ "$R" = 0 ] || fail "$R jobs recorded done twice"
R=$(psql_ "SELECT count(*) FROM cuzk.results")
[ "$R" = 12 ] || fail "results: $R (expected 12)"
note "12 jobs (both curves, submitted to A, B, C) done exactly once; A's held job re-ran elsewhere after its lease: $(psql_ "SELECT string_agg(attempt || ':' || host_id || ':' || outcome, ',' ORDER BY attempt) FROM cuzk.attempts WHERE job_id = '$FIRST'")"
# From the kill to the commit of the job's result by another host, both on
# the database's clock: at most the lease + 10 s (the issue's bound).
FAILOVER=$(psql_ "SELECT round((extract(epoch FROM pg_xact_commit_timestamp(xmin)) - $K0)::numeric, 3) FROM cuzk.results WHERE job_id = '$FIRST'")
[ -n "$FAILOVER" ] || fail "no commit timestamp for the result of $FIRST"
LEASE_S=${LEASE%s}
awk -v f="$FAILOVER" -v l="$LEASE_S" 'BEGIN { exit !(f > 0 && f <= l + 10) }' ||
  fail "A's job ended elsewhere ${FAILOVER} s after the kill, over the lease (${LEASE_S} s) + 10 s"
note "failover: A's job done on another host ${FAILOVER} s after the kill (database clock; lease ${LEASE_S} s, bound lease + 10 s)"
echo "$(psql_ "SELECT host_id || '=' || count(*) FROM cuzk.attempts WHERE outcome = 'done' GROUP BY host_id ORDER BY 1")" | tr '\n' ' ' | sed 's/^/  done by host: /'; echo
wait_sql "SELECT count(*) > 0 FROM cuzk.host_keys WHERE host_id IN ('B', 'C')" t "resident keys published by B and C"

# ---- 2: a stopped host's late result is fenced ----
ok "pause B" on B "$CUZK" workers pause
ok "pause C" on C "$CUZK" workers pause
ok "submit zombie job" on B "$CUZK" submit "$DATA/bn128/mul.zkey" "$DATA/bn128/mul.wtns"
Z=$(cat "$T/out")
ok "admit 1 on C" on C "$CUZK" workers admit 1
wait_held C "$Z"
kill -STOP "${DPIDS[C]}"
note "stopped C (SIGSTOP) holding job $Z"
ok "resume B" on B "$CUZK" workers resume
ok "await zombie job on B" on B "$CUZK" await --timeout 120 "$Z" "$T/pz.json" "$T/pubz.json"
ok "verify zombie job" "$CUZK" verify "$DATA/bn128/mul.vkey.json" "$T/pubz.json" "$T/pz.json"
kill -CONT "${DPIDS[C]}"
ok "resume C" on C "$CUZK" workers resume
wait_for "C's late result fenced" grep -q "event=job_fenced job=$Z" "$T/daemon-C.log"
R=$(psql_ "SELECT string_agg(attempt || ':' || host_id || ':' || outcome, ',' ORDER BY attempt) FROM cuzk.attempts WHERE job_id = '$Z'")
[ "$R" = "1:C:lease_expired,2:B:done" ] || fail "attempts of the zombie's job: $R"
[ "$(psql_ "SELECT attempt FROM cuzk.results WHERE job_id = '$Z'")" = 2 ] || fail "the recorded result is not B's attempt 2"
note "C stopped past its lease: B ran its job (attempt 2), C's late completion was fenced"

# ---- 3: a cancel sent to one host stops the job running on another ----
ok "pause C" on C "$CUZK" workers pause
ok "pause B" on B "$CUZK" workers pause
ok "submit job to cancel" on C "$CUZK" submit "$DATA/bn128/mul.zkey" "$DATA/bn128/mul.wtns"
X=$(cat "$T/out")
ok "admit 1 on C" on C "$CUZK" workers admit 1
wait_held C "$X"
ok "cancel on B" on B "$CUZK" cancel "$X"
cancelled() { [ "$(job B "$X" | jget state)" = cancelled ]; }
wait_for "a job running on C, cancelled on B, to end cancelled" cancelled
grep -q "event=job_cancelled job=$X" "$T/daemon-C.log" || fail "C did not stop the cancelled job"
[ "$(curl -s "${URLS[C]}/v1/status" | jget running)" = 0 ] || fail "C still runs a job after the cancel"
note "a job held on C and cancelled through B ended cancelled on C (its next lease renewal)"

# ---- 4: the database crashes and restarts mid-load ----
ok "resume B" on B "$CUZK" workers resume
ok "resume C" on C "$CUZK" workers resume
: >"$T/jobs4"
for i in $(seq 1 12); do
  h=B; [ $((i % 2)) = 0 ] && h=C
  ok "submit $i to $h" on "$h" "$CUZK" submit "$DATA/bn128/mul.zkey" "$DATA/bn128/mul.wtns"
  echo "$(cat "$T/out") $h" >>"$T/jobs4"
done
$AS "$PG/pg_ctl" -D "$T/pg/data" -m immediate -w -t 60 -l "$T/pg/log" restart >/dev/null || fail "PostgreSQL did not restart"
note "PostgreSQL restarted (-m immediate) with 12 jobs submitted"
n=0
while read -r id h; do
  n=$((n + 1)); w=B; [ "$h" = B ] && w=C
  ok "await $id on $w after the restart" on "$w" "$CUZK" await --timeout 120 "$id" "$T/q$n.json" "$T/qpub$n.json"
  ok "verify $id" "$CUZK" verify "$DATA/bn128/mul.vkey.json" "$T/qpub$n.json" "$T/q$n.json"
done <"$T/jobs4"
R=$(psql_ "SELECT count(*) FROM (SELECT job_id FROM cuzk.attempts WHERE outcome = 'done' GROUP BY job_id HAVING count(*) > 1) x")
[ "$R" = 0 ] || fail "$R jobs recorded done twice after the database restart"
R=$(psql_ "SELECT count(*) FILTER (WHERE state = 'done') || ' ' || count(*) FILTER (WHERE state NOT IN ('done', 'cancelled')) FROM cuzk.jobs")
[ "$R" = "25 0" ] || fail "after the database restart, jobs done / not ended: $R (expected 25 0)"
note "every job submitted before the database crash done exactly once, proofs verified"

kill -TERM "${DPIDS[B]}" "${DPIDS[C]}"
wait "${DPIDS[B]}" || fail "B exited $? after SIGTERM"
wait "${DPIDS[C]}" || fail "C exited $? after SIGTERM"
echo "PASS $TAG"
