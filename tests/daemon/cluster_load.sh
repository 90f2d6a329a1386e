#!/usr/bin/env bash
# The cluster under faults with a load (issue: three daemons on one database,
# 1000 jobs of both curves and all priorities submitted to all three).
#
#   cluster_load.sh <cuzk-binary> <repo-root> [N]    (N jobs in all, default 1000)
#
# Hosts A, B and C (one worker each, leases of 2 s renewed every 0.25 s,
# engine.max_attempts 10) on a PostgreSQL the test starts (cluster_lib.sh).
#
# 1. Priority: every host paused, 50 normal jobs and then 1 critical one
#    are submitted; the hosts resume: the critical job's claim is among the
#    first 3 (hosts x slots) claims of the attempts log.
# 2. The load: the hosts paused, N - 51 more jobs (bn128 and BLS12-381 by
#    turns, critical / high / normal / low by turns) are submitted to A, B
#    and C by turns (8 at a time, idempotency keys, retried on a lost
#    answer). Faults, each at a state the test holds:
#    - A is admitted one job and holds it (running, before its proof), and
#      is killed (kill -9);
#    - C is admitted one job, holds it, and is stopped (SIGSTOP) past its
#      lease; B (paused) holds one job too, and its housekeeping rescues
#      the jobs of A and C once their leases run out;
#    - PostgreSQL crashes and restarts (pg_ctl restart -m immediate) while
#      B holds its job; B resumes and runs the queue (its held job done);
#    - B pauses and holds another job; every cuzk backend is terminated
#      (pg_terminate_backend); B resumes (that job done);
#    - C continues (SIGCONT) and resumes: its late result is fenced; A starts
#      again (same host id and state directory) and helps finish.
# 3. From the jobs table and the attempts log, against the list of
#    acknowledged submits: every job ended done exactly once (one result,
#    one attempt outcome done), none lost, none extra; the held jobs of A
#    and C show lease_expired then done elsewhere; no host ran two attempts
#    at once (1 slot each); every proof verifies with cuzk verify, and 10 of
#    each curve with snarkjs (all 1000 with snarkjs would take minutes).
#
# Exit 0 = pass, 1 = fail, 77 = skip (node/snarkjs missing).
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 <cuzk> <repo-root> [N]" >&2; exit 2; }
CUZK=$1 ROOT=$2 N=${3:-1000}
EXTRA=()
TAG="[daemon cluster load]"
. "$(dirname "$0")/cluster_lib.sh"
HELP="$(dirname "$0")/cluster_load.cjs"
T0=$(date +%s)

FLAGS=(--paused --max-attempts 10 --retention 1h)
start_host A "${FLAGS[@]}"
start_host B "${FLAGS[@]}"
start_host C "${FLAGS[@]}"
PAIRS=("$DATA/bn128/mul.zkey:$DATA/bn128/mul.wtns" "$DATA/bls12381/mul.zkey:$DATA/bls12381/mul.wtns")
: >"$T/acked"

# ---- 1: a critical job behind 50 normal ones ----
node "$HELP" submit "$T/acked" 50 normal 0 "${URLS[A]}" "${URLS[B]}" "${URLS[C]}" -- "${PAIRS[@]}" ||
  fail "submitting 50 normal jobs"
node "$HELP" submit "$T/crit" 1 critical 50 "${URLS[C]}" -- "${PAIRS[0]}" || fail "submitting the critical job"
cat "$T/crit" >>"$T/acked"
CRIT=$(cut -d' ' -f1 "$T/crit")
for h in A B C; do ok "resume $h" on "$h" "$CUZK" workers resume; done
wait_sql "SELECT count(*) FROM cuzk.jobs WHERE state = 'done'" 51 "the first 51 jobs done"
R=$(psql_ "SELECT r FROM (SELECT job_id, rank() OVER (ORDER BY started_at) AS r FROM cuzk.attempts) x WHERE job_id = '$CRIT'")
[ -n "$R" ] && [ "$R" -le 3 ] || fail "the critical job submitted behind 50 normal ones was claim $R (expected among the first 3)"
note "a critical job submitted behind 50 normal ones was claim $R of 51 (3 hosts x 1 slot)"

# ---- 2: the load, with faults ----
for h in A B C; do ok "pause $h" on "$h" "$CUZK" workers pause; done
node "$HELP" submit "$T/acked" $((N - 51)) critical,high,normal,low 51 "${URLS[A]}" "${URLS[B]}" "${URLS[C]}" -- "${PAIRS[@]}" ||
  fail "submitting the load"
[ "$(wc -l <"$T/acked")" = "$N" ] || fail "acknowledged submits: $(wc -l <"$T/acked") of $N"
note "$N jobs acknowledged by A, B and C ($(($(date +%s) - T0)) s so far)"
held_job() {  # HOST: the job HOST holds (running, paused)
  for _ in $(seq 1 600); do
    local id; id=$(psql_ "SELECT id FROM cuzk.jobs WHERE state = 'running' AND owner = '$1' LIMIT 1")
    if [ -n "$id" ] && [ "$(job "$1" "$id" 0.2 | jget phase)" = paused ]; then echo "$id"; return 0; fi
    sleep 0.1
  done
  return 1
}
ok "admit 1 on A" on A "$CUZK" workers admit 1
HA=$(held_job A) || fail "A holds no job"
ok "admit 1 on C" on C "$CUZK" workers admit 1
HC=$(held_job C) || fail "C holds no job"
kill -9 "${DPIDS[A]}"; wait "${DPIDS[A]}" 2>/dev/null
kill -STOP "${DPIDS[C]}"
note "A killed (kill -9) holding job $HA; C stopped (SIGSTOP) holding job $HC"
ok "admit 1 on B" on B "$CUZK" workers admit 1
HB=$(held_job B) || fail "B holds no job"
wait_sql "SELECT count(*) FROM cuzk.attempts WHERE job_id IN ('$HA', '$HC') AND attempt = 1 AND outcome = 'lease_expired'" 2 \
  "the held jobs of A and C rescued after their leases"
Q=$(psql_ "SELECT count(*) FROM cuzk.jobs WHERE state = 'queued'")
$AS "$PG/pg_ctl" -D "$T/pg/data" -m immediate -w -t 60 -l "$T/pg/log" restart >/dev/null || fail "PostgreSQL did not restart"
note "B rescued both; PostgreSQL restarted (-m immediate) while B holds job $HB, $Q jobs queued"
ok "resume B" on B "$CUZK" workers resume
wait_sql "SELECT state FROM cuzk.jobs WHERE id = '$HB'" done "B's held job after the database restart"
for _ in $(seq 1 600); do
  [ "$(psql_ "SELECT count(*) > 61 FROM cuzk.jobs WHERE state = 'done'")" = t ] && break
  sleep 0.1
done
ok "pause B" on B "$CUZK" workers pause
ok "admit 1 on B" on B "$CUZK" workers admit 1
HB2=$(held_job B) || fail "B holds no job"
Q=$(psql_ "SELECT count(*) FROM cuzk.jobs WHERE state = 'queued'")
K=$(psql_ "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name LIKE 'cuzk@%'")
[ "$K" -ge 1 ] || fail "no cuzk backend to terminate"
note "$K cuzk backends terminated while B holds job $HB2, $Q jobs queued"
ok "resume B" on B "$CUZK" workers resume
wait_sql "SELECT state FROM cuzk.jobs WHERE id = '$HB2'" done "B's held job after its backends were terminated"
kill -CONT "${DPIDS[C]}"
ok "resume C" on C "$CUZK" workers resume
wait_for "C's late result for $HC fenced" grep -q "event=job_fenced job=$HC" "$T/daemon-C.log"
mv "$T/daemon-A.log" "$T/daemon-A.killed.log"
start_host A --max-attempts 10 --retention 1h
note "C continued and its late result was fenced; A started again"
for _ in $(seq 1 3000); do
  [ "$(psql_ "SELECT count(*) FROM cuzk.jobs WHERE state NOT IN ('done', 'failed', 'cancelled')")" = 0 ] && break
  sleep 0.1
done

# ---- 3: the record ----
cut -d' ' -f1 "$T/acked" | sort >"$T/acked.ids"
psql_ "SELECT id FROM cuzk.jobs ORDER BY 1" | sort >"$T/db.ids"
cmp -s "$T/acked.ids" "$T/db.ids" || fail "the jobs table and the acknowledged submits differ: $(diff "$T/acked.ids" "$T/db.ids" | head -n 5)"
[ "$(sort -u "$T/acked.ids" | wc -l)" = "$N" ] || fail "an id was acknowledged twice"
R=$(psql_ "SELECT state || '=' || count(*) FROM cuzk.jobs GROUP BY state ORDER BY 1" | tr '\n' ' ')
[ "$R" = "done=$N " ] || fail "job states: $R (expected done=$N)"
R=$(psql_ "SELECT count(*) FROM cuzk.results")
[ "$R" = "$N" ] || fail "results: $R (expected $N)"
R=$(psql_ "SELECT count(*) FROM (SELECT job_id FROM cuzk.attempts WHERE outcome = 'done' GROUP BY job_id HAVING count(*) = 1) x")
[ "$R" = "$N" ] || fail "jobs with exactly one done attempt: $R (expected $N)"
R=$(psql_ "SELECT count(*) FROM cuzk.attempts a JOIN cuzk.results r ON r.job_id = a.job_id AND r.attempt = a.attempt WHERE a.outcome = 'done'")
[ "$R" = "$N" ] || fail "results recorded by their done attempt: $R (expected $N)"
for H in "$HA" "$HC"; do
  R=$(psql_ "SELECT string_agg(attempt || ':' || host_id || ':' || outcome, ',' ORDER BY attempt) FROM cuzk.attempts WHERE job_id = '$H'")
  case $R in 1:[AC]:lease_expired,2:[ABC]:done) ;; *) fail "attempts of held job $H: $R" ;; esac
done
R=$(psql_ "SELECT count(*) FROM cuzk.attempts a JOIN cuzk.attempts b ON a.host_id = b.host_id
           AND (a.job_id, a.attempt) < (b.job_id, b.attempt)
           AND b.started_at < coalesce(a.ended_at, 9e18) AND a.started_at < coalesce(b.ended_at, 9e18)")
[ "$R" = 0 ] || fail "$R pairs of attempts overlap on one host (1 slot each)"
ATT=$(psql_ "SELECT outcome || '=' || count(*) FROM cuzk.attempts GROUP BY outcome ORDER BY outcome" | tr '\n' ' ')
BYH=$(psql_ "SELECT host_id || '=' || count(*) FROM cuzk.attempts WHERE outcome = 'done' GROUP BY host_id ORDER BY host_id" | tr '\n' ' ')
note "$N jobs done exactly once, none lost or extra, no host over its slot; attempts: $ATT; done by host: $BYH"

BN1=$(awk '$3 == 0 {print $1; exit}' "$T/acked")   # a job of pair 0 (bn128): its key id
KBN=$(psql_ "SELECT key_id FROM cuzk.jobs WHERE id = '$BN1'")
psql_ "SELECT json_agg(json_build_object('id', r.job_id, 'proof', r.proof, 'pub', r.public_json,
       'curve', CASE WHEN j.key_id = '$KBN' THEN 'bn128' ELSE 'bls12381' END) ORDER BY r.job_id)
       FROM cuzk.results r JOIN cuzk.jobs j ON j.id = r.job_id" >"$T/results.json"
mkdir -p "$T/proofs"
node -e '
const fs=require("fs"),[f,d]=process.argv.slice(1);
for(const r of JSON.parse(fs.readFileSync(f))){fs.writeFileSync(`${d}/${r.id}.${r.curve}.proof.json`,r.proof);fs.writeFileSync(`${d}/${r.id}.${r.curve}.public.json`,r.pub);}' \
  "$T/results.json" "$T/proofs" || fail "writing the proofs"
bad=0 n=0
for p in "$T"/proofs/*.proof.json; do
  c=${p%.proof.json}; c=${c##*.}
  n=$((n + 1))
  "$CUZK" verify "$DATA/$c/mul.vkey.json" "${p%.proof.json}.public.json" "$p" >/dev/null 2>&1 || bad=$((bad + 1))
done
[ "$n" = "$N" ] && [ $bad = 0 ] || fail "cuzk verify: $bad of $n proofs rejected"
SJ=$(node "$HELP" verify "$T/results.json" "$DATA" 10) || fail "snarkjs: $SJ"
note "cuzk verify accepts all $n proofs; $SJ (10 per curve)"

kill -TERM "${DPIDS[A]}" "${DPIDS[B]}" "${DPIDS[C]}"
for h in A B C; do wait "${DPIDS[$h]}" || fail "$h exited $? after SIGTERM"; done
echo "PASS $TAG ($(($(date +%s) - T0)) s)"
