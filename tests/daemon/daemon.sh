#!/usr/bin/env bash
# End-to-end tests of `cuzk serve` and its clients. One invocation = one CTest
# test (label "daemon"):
#
#   daemon.sh <cuzk-binary> <repo-root> <scenario>
#
# Each scenario starts its own daemon on a free localhost port (port 0; the
# URL is read from the daemon's "listening" log line) with a fresh state
# directory, and checks against independent verifiers: `snarkjs groth16
# verify` on the committed snarkjs fixtures, and `cuzk verify`.
#
#   prove      both curves: prove --remote (TCP and Unix socket), submit/await,
#              snarkjs verifies; keys register/list/evict; status, metrics
#   priority   1 worker, paused: a critical job submitted behind 50 normal
#              ones runs first once the workers resume
#   cancel     a queued job is removed; a running one (held by a pause) stops
#              and frees its worker; the next job still completes
#   crash      kill -9 with a job running (held) and 11 queued, restart:
#              every job completes exactly once and every proof verifies
#   drain      SIGTERM: the running job (held) finishes once resumed, queued
#              ones wait for the next start, new submissions get 503
#   idempotent the same idempotency key returns the same job; reused for
#              another witness: 409
#   bad        malformed JSON, unknown key, witness of another circuit,
#              oversized body, a client stopping mid-request, unknown
#              endpoint / method, token required, rate limit
#   concurrent 200 concurrent clients
#   load1000   1000 jobs, mixed priorities, every 10th cancelled: nothing lost,
#              every proof verifies, RSS flat (<= 5 % growth)
#   page       the status page renders queue, workers, keys and the timeline
#              in headless Chromium
#
# Tests that need a job queued or running hold that state with the workers'
# pause (`cuzk serve --paused`, `cuzk workers admit|resume`) instead of a job
# sized to be slow: they pass at any machine speed.
#
# Exit 0 = pass, 1 = fail, 77 = skip (node/snarkjs or chromium missing).
# DAEMON_KEEP=1 keeps the temp directory.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 <cuzk> <repo-root> <scenario>" >&2; exit 2; }
CUZK=$1 ROOT=$2 SCEN=$3
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
DATA="$ROOT/tests/data/interop"
TAG="[daemon $SCEN]"

source "$ROOT/tests/daemon/lib.sh"

need_snarkjs() {
  if ! command -v node >/dev/null || [ ! -x "$SNARKJS" ]; then
    echo "SKIP $TAG: node or $SNARKJS missing (run 'npm ci' in $ROOT)"; exit 77
  fi
}

verify_snarkjs() {  # VK PUBLIC PROOF DESC
  "$SNARKJS" groth16 verify "$1" "$2" "$3" >"$T/sj" 2>&1 && grep -q 'OK!' "$T/sj" || fail "snarkjs rejected $4: $(tail -n 3 "$T/sj")"
}

wait_state() {  # JOB STATE: long-polls until the job has STATE (30 s)
  local i
  for i in $(seq 1 60); do
    http GET "/v1/jobs/$1?wait=0.5"
    [ "$(echo "$BODY" | jget state)" = "$2" ] && return 0
  done
  fail "job $1 did not reach $2: $BODY"
}
wait_held() {  # JOB: until the job is running and held by the pause (30 s)
  local i
  for i in $(seq 1 60); do
    http GET "/v1/jobs/$1?wait=0.5"
    [ "$(echo "$BODY" | jget state)" = running ] && [ "$(echo "$BODY" | jget phase)" = paused ] && return 0
    case "$(echo "$BODY" | jget state)" in done|failed|cancelled) fail "job $1 ended instead of being held: $BODY" ;; esac
  done
  fail "job $1 was not held running: $BODY"
}
wait_draining() {  # until /v1/status says draining (the signal was handled)
  local i
  for i in $(seq 1 600); do
    http GET /v1/status
    [ "$(echo "$BODY" | jget draining)" = true ] && return 0
    sleep 0.05
  done
  fail "the daemon did not start draining: $BODY"
}
workers() { ok "workers $*" "$CUZK" workers "$@"; }

case "$SCEN" in
prove)
  need_snarkjs
  start_daemon main --socket "$T/cuzk.sock" --cpu-workers 2
  for curve in bn128 bls12381; do
    D=$DATA/$curve
    ok "prove --remote $curve" "$CUZK" prove --remote "$URL" "$D/mul.zkey" "$D/mul.wtns" "$T/p.json" "$T/pub.json"
    verify_snarkjs "$D/mul.vkey.json" "$T/pub.json" "$T/p.json" "prove --remote $curve"
    cmp -s <(jget 0 <"$T/pub.json") <(jget 0 <"$D/mul.public.json") || fail "$curve public.json differs from snarkjs's"
    ok "prove --remote unix $curve" "$CUZK" prove --remote "unix:$T/cuzk.sock" "$D/manypub.zkey" "$D/manypub.wtns" "$T/p2.json" "$T/pub2.json"
    verify_snarkjs "$D/manypub.vkey.json" "$T/pub2.json" "$T/p2.json" "prove --remote over the Unix socket ($curve)"
    ok "submit $curve" "$CUZK" submit --priority high "$D/boundary_hi.zkey" "$D/boundary_hi.wtns"
    JOB=$(cat "$T/out")
    ok "await $curve" "$CUZK" await "$JOB" "$T/p3.json" "$T/pub3.json"
    verify_snarkjs "$D/boundary_hi.vkey.json" "$T/pub3.json" "$T/p3.json" "submit/await ($curve)"
    note "$curve: prove --remote (TCP, Unix socket) and submit/await verified by snarkjs"
  done
  # Keys: register (content id), list, get, evict; submit by id with the witness by path.
  http POST /v1/keys -H 'Content-Type: application/json' -d "{\"path\":\"$DATA/bn128/nopub.zkey\"}"
  expect_code 200 "register key"
  KID=$(echo "$BODY" | jget id)
  [ "$(sha256sum "$DATA/bn128/nopub.zkey" | cut -c1-64)" = "$KID" ] || fail "key id is not the SHA-256 of the file: $KID"
  [ "$(echo "$BODY" | jget resident)" = true ] || fail "registered key not resident: $BODY"
  cp "$DATA/bn128/nopub.zkey" "$T/copy.zkey"
  http POST /v1/keys -H 'Content-Type: application/json' -d "{\"path\":\"$T/copy.zkey\"}"
  [ "$(echo "$BODY" | jget id)" = "$KID" ] || fail "the same key content under another path got another id"
  http GET /v1/keys; expect_code 200 "list keys"
  echo "$BODY" | grep -q "$KID" || fail "key list lacks $KID"
  ok "submit by key id" "$CUZK" submit --witness-path "$KID" "$DATA/bn128/nopub.wtns"
  ok "await by key id" "$CUZK" await "$(cat "$T/out")" "$T/p4.json" "$T/pub4.json"
  verify_snarkjs "$DATA/bn128/nopub.vkey.json" "$T/pub4.json" "$T/p4.json" "job by key id + witness path"
  http DELETE "/v1/keys/$KID"; expect_code 200 "evict"
  [ "$(echo "$BODY" | jget resident)" = false ] || fail "evicted key still resident: $BODY"
  ok "prove after evict" "$CUZK" prove --remote "$URL" "$KID" "$DATA/bn128/nopub.wtns" "$T/p5.json" "$T/pub5.json"
  verify_snarkjs "$DATA/bn128/nopub.vkey.json" "$T/pub5.json" "$T/p5.json" "job after evict (key reloaded)"
  # Status and metrics reflect the work.
  ok "status" "$CUZK" status
  [ "$(jget counters.completed <"$T/out")" -ge 8 ] || fail "status counters.completed < 8: $(cat "$T/out")"
  http GET /metrics; expect_code 200 metrics
  echo "$BODY" | grep -Eq '^cuzk_jobs_total\{outcome="completed"\} ([89]|[1-9][0-9])$' || fail "metrics lack the completed count: $(echo "$BODY" | grep jobs_total)"
  echo "$BODY" | grep -q '^# TYPE cuzk_queue_depth gauge' || fail "metrics: no queue depth"
  http GET "/v1/jobs?state=done&limit=3"; expect_code 200 "job list"
  [ "$(echo "$BODY" | jget jobs.length)" = 3 ] || fail "job list limit: $BODY"
  stop_daemon
  ;;

priority)
  start_daemon main --cpu-workers 1 --threads 1 --paused
  D=$DATA/bls12381
  # 50 normal jobs, then a critical one, all queued while the workers are paused.
  urls=(); for i in $(seq 1 50); do urls+=("$URL/v1/jobs?key_path=$D/mul.zkey&priority=normal"); done
  curl -s -w '\n%{http_code}\n' --data-binary "@$D/mul.wtns" -H 'Content-Type: application/octet-stream' "${urls[@]}" >"$T/codes"
  [ "$(grep -c '^201$' "$T/codes")" = 50 ] || fail "submitting 50 normal jobs: $(grep -E "^[0-9]{3}$" "$T/codes" | sort | uniq -c)"
  "$CUZK" submit --priority critical "$D/mul.zkey" "$D/mul.wtns" >"$T/crit" || fail "submit critical"
  CRIT=$(cat "$T/crit")
  http GET "/v1/jobs/$CRIT"; [ "$(echo "$BODY" | jget position)" = 0 ] || fail "critical job not first in the queue: $BODY"
  http GET /v1/status
  [ "$(echo "$BODY" | jget paused)" = true ] && [ "$(echo "$BODY" | jget running)" = 0 ] || fail "paused daemon: $BODY"
  [ "$(echo "$BODY" | jget queue.total)" = 51 ] || fail "51 jobs should be queued: $BODY"
  workers resume
  ok "await critical" "$CUZK" await "$CRIT"
  # One worker, started after every job was queued: the critical job ran first.
  http GET "/v1/jobs?limit=1000"
  for j in $(echo "$BODY" | node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>console.log(JSON.parse(d).jobs.map(x=>x.id).join(" ")))'); do
    "$CUZK" await "$j" >/dev/null || fail "job $j"
  done
  http GET "/v1/jobs?state=done&limit=1000"
  ORDER=$(echo "$BODY" | node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{const j=JSON.parse(d).jobs.sort((a,b)=>a.started_ms-b.started_ms||a.finished_ms-b.finished_ms);console.log(j.map(x=>x.id).join(" "))})')
  [ "$(echo "$ORDER" | wc -w)" = 51 ] || fail "expected 51 finished jobs: $ORDER"
  [ "${ORDER%% *}" = "$CRIT" ] || fail "the critical job did not run first: $ORDER"
  note "critical job submitted behind 50 normal ones ran first (1 worker, resumed after all were queued)"
  stop_daemon
  ;;

cancel)
  start_daemon main --cpu-workers 1 --threads 1 --paused
  D=$DATA/bn128
  ok "submit first" "$CUZK" submit "$D/mul.zkey" "$D/mul.wtns"; RUN=$(cat "$T/out")
  ok "submit queued" "$CUZK" submit "$D/nopub.zkey" "$D/nopub.wtns"; Q=$(cat "$T/out")
  ok "submit last" "$CUZK" submit "$D/mul.zkey" "$D/mul.wtns"; LAST=$(cat "$T/out")
  workers admit 1
  wait_held "$RUN"
  http GET "/v1/jobs/$Q"; [ "$(echo "$BODY" | jget state)" = queued ] || fail "the second job should still be queued: $BODY"
  ok "cancel queued" "$CUZK" cancel "$Q"
  [ "$(jget state <"$T/out")" = cancelled ] || fail "queued job not cancelled at once: $(cat "$T/out")"
  http GET "/v1/jobs/$Q/proof"; expect_code 409 "proof of a cancelled job"
  ok "cancel running" "$CUZK" cancel "$RUN"
  wait_state "$RUN" cancelled
  "$CUZK" await "$RUN" >/dev/null 2>&1; [ $? = 9 ] || fail "await of a cancelled job must exit 9"
  http GET /v1/status
  [ "$(echo "$BODY" | jget running)" = 0 ] || fail "a job still running after cancel: $BODY"
  [ "$(echo "$BODY" | jget keys.0.users)" = 0 ] && [ "$(echo "$BODY" | jget keys.1.users)" = 0 ] || fail "a cancelled job still holds its key: $BODY"
  http GET "/v1/jobs/$LAST"; [ "$(echo "$BODY" | jget state)" = queued ] || fail "the last job ran while paused: $BODY"
  workers resume
  ok "await last" "$CUZK" await "$LAST" "$T/p.json" "$T/pub.json"
  ok "verify last" "$CUZK" verify "$D/mul.vkey.json" "$T/pub.json" "$T/p.json"
  ok "cancel finished" "$CUZK" cancel "$LAST"
  [ "$(jget state <"$T/out")" = done ] || fail "cancel changed a finished job: $(cat "$T/out")"
  note "queued cancel immediate, running (held) cancel ends it and frees its worker and key"
  stop_daemon
  ;;

crash)
  start_daemon main --cpu-workers 1 --threads 1 --paused
  : >"$T/jobs"
  for i in $(seq 1 4); do "$CUZK" submit "$DATA/bls12381/mul.zkey" "$DATA/bls12381/mul.wtns" >>"$T/jobs" || fail "submit $i"; done
  for i in $(seq 1 8); do "$CUZK" submit "$DATA/bn128/mul.zkey" "$DATA/bn128/mul.wtns" >>"$T/jobs" || fail "submit mul $i"; done
  workers admit 1
  wait_held "$(head -n 1 "$T/jobs")"
  # A client waiting across the crash must get its proof: it is connected
  # (a socket open) before the kill.
  "$CUZK" await "$(sed -n 2p "$T/jobs")" "$T/pw.json" "$T/pubw.json" >"$T/await.out" 2>&1 &
  AW=$!
  for _ in $(seq 1 600); do
    ls -l "/proc/$AW/fd" 2>/dev/null | grep -q 'socket:' && break
    kill -0 "$AW" 2>/dev/null || fail "await exited before the crash: $(cat "$T/await.out")"
    sleep 0.05
  done
  kill -9 "$DPID"; wait "$DPID" 2>/dev/null
  note "killed the daemon with job 1 running (held) and 11 queued"
  EXPECT_STARTS=2 LISTEN=${URL#http://} start_daemon main --cpu-workers 1 --threads 1
  n=0
  while read -r j; do
    n=$((n + 1))
    if [ $n -le 4 ]; then vk=$DATA/bls12381/mul.vkey.json; else vk=$DATA/bn128/mul.vkey.json; fi
    ok "await $j after restart" "$CUZK" await --timeout 120 "$j" "$T/p$n.json" "$T/pub$n.json"
    ok "verify $j" "$CUZK" verify "$vk" "$T/pub$n.json" "$T/p$n.json"
  done <"$T/jobs"
  wait "$AW" || fail "a client waiting across the crash failed: $(cat "$T/await.out")"
  ok "verify waited proof" "$CUZK" verify "$DATA/bls12381/mul.vkey.json" "$T/pubw.json" "$T/pw.json"
  http GET "/v1/jobs?limit=1000"
  [ "$(echo "$BODY" | jget jobs.length)" = 12 ] || fail "expected exactly 12 jobs after the restart: $BODY"
  NDONE=$(echo "$BODY" | node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{const j=JSON.parse(d).jobs;console.log(j.filter(x=>x.state==="done").length+" "+new Set(j.map(x=>x.id)).size+" "+j.filter(x=>x.attempt===2).map(x=>x.id).join(",")+" "+Math.max(...j.map(x=>x.attempt)))})')
  [ "$NDONE" = "12 12 $(head -n 1 "$T/jobs") 2" ] || fail "after restart: done/unique/re-run/max-attempt = $NDONE (expected 12 12 <job 1> 2)"
  http GET /v1/status
  [ "$(echo "$BODY" | jget counters.recovered)" -ge 1 ] || fail "nothing recovered: $BODY"
  note "12 jobs, each done exactly once (the interrupted one re-ran: attempt 2), a waiting client got its proof"
  stop_daemon
  ;;

drain)
  start_daemon main --cpu-workers 1 --threads 1 --drain-timeout 300 --paused
  ok "submit running" "$CUZK" submit "$DATA/bn128/mul.zkey" "$DATA/bn128/mul.wtns"; RUN=$(cat "$T/out")
  ok "submit queued" "$CUZK" submit "$DATA/bn128/mul.zkey" "$DATA/bn128/mul.wtns"; Q=$(cat "$T/out")
  workers admit 1
  wait_held "$RUN"
  kill -TERM "$DPID"
  wait_draining
  http POST "/v1/jobs?key_path=$DATA/bn128/mul.zkey" --data-binary "@$DATA/bn128/mul.wtns" -H 'Content-Type: application/octet-stream'
  expect_code 503 "submit while draining"
  kill -0 "$DPID" 2>/dev/null || fail "the daemon exited while a job was running"
  workers resume   # the held job finishes; the queued one stays queued
  wait "$DPID"; rc=$?
  [ $rc = 0 ] || fail "daemon exit $rc after SIGTERM"
  EXPECT_STARTS=2 start_daemon main --cpu-workers 1 --threads 1
  http GET "/v1/jobs/$RUN"; [ "$(echo "$BODY" | jget state)" = done ] || fail "running job did not finish during the drain: HTTP $CODE $BODY"
  [ "$(echo "$BODY" | jget attempt)" = 1 ] || fail "the drained job ran twice: $BODY"
  http GET "/v1/jobs/$Q"; [ "$(echo "$BODY" | jget attempt)" = 0 ] || [ "$(echo "$BODY" | jget state)" = done ] || fail "the queued job ran during the drain: $BODY"
  ok "queued job after restart" "$CUZK" await --timeout 60 "$Q"
  http GET "/v1/jobs/$Q"; [ "$(echo "$BODY" | jget attempt)" = 1 ] || fail "the queued job ran more than once: $BODY"
  note "drain: running job finished, queued job kept and done after restart, submissions refused with 503"
  stop_daemon
  ;;

idempotent)
  start_daemon main
  D=$DATA/bn128
  sub() { http POST "/v1/jobs?key_path=$1&idempotency_key=$3" --data-binary "@$2" -H 'Content-Type: application/octet-stream'; }
  sub "$D/mul.zkey" "$D/mul.wtns" k1; expect_code 201 "first submit"; J1=$(echo "$BODY" | jget id)
  sub "$D/mul.zkey" "$D/mul.wtns" k1; expect_code 200 "repeat submit"; J2=$(echo "$BODY" | jget id)
  [ "$J1" = "$J2" ] || fail "same idempotency key gave two jobs: $J1 $J2"
  ok "await" "$CUZK" await "$J1"
  sub "$D/mul.zkey" "$D/mul.wtns" k1; expect_code 200 "repeat after done"; [ "$(echo "$BODY" | jget id)" = "$J1" ] || fail "repeat after done: $BODY"
  sub "$D/nopub.zkey" "$D/nopub.wtns" k1; expect_code 409 "same key, other request"
  ok "submit --idempotency-key" "$CUZK" submit --idempotency-key k2 "$D/mul.zkey" "$D/mul.wtns"; A=$(cat "$T/out")
  ok "submit --idempotency-key again" "$CUZK" submit --idempotency-key k2 "$D/mul.zkey" "$D/mul.wtns"
  [ "$(cat "$T/out")" = "$A" ] || fail "cuzk submit with the same idempotency key gave a new job"
  http GET /v1/status; [ "$(echo "$BODY" | jget counters.submitted)" = 2 ] || fail "duplicates counted as new jobs: $BODY"
  note "idempotent resubmission returns the same job; a conflicting reuse is 409"
  stop_daemon
  ;;

bad)
  start_daemon main --max-request-bytes 65536 --request-timeout 2
  D=$DATA/bn128
  http POST /v1/jobs -H 'Content-Type: application/json' -d '{"key_path": '; expect_code 400 "malformed JSON"
  [ "$(echo "$BODY" | jget error.code)" != undefined ] || fail "error not JSON: $BODY"
  http POST "/v1/jobs?key=0000000000000000000000000000000000000000000000000000000000000000" --data-binary "@$D/mul.wtns" -H 'Content-Type: application/octet-stream'
  expect_code 404 "unknown key"
  http POST "/v1/jobs?key_path=$D/mul.zkey" --data-binary "@$D/nopub.wtns" -H 'Content-Type: application/octet-stream'
  expect_code 400 "witness of another circuit"
  http POST "/v1/jobs?key_path=$DATA/bls12381/mul.zkey" --data-binary "@$D/mul.wtns" -H 'Content-Type: application/octet-stream'
  expect_code 400 "witness of another curve"
  head -c 100000 /dev/urandom >"$T/big"
  http POST "/v1/jobs?key_path=$D/mul.zkey" --data-binary "@$T/big" -H 'Content-Type: application/octet-stream'
  expect_code 413 "oversized body"
  http POST "/v1/jobs?key_path=$D/mul.zkey" --data-binary "@$T/big" -H 'Content-Type: application/octet-stream' -H 'Transfer-Encoding: chunked'
  expect_code 413 "oversized chunked body"
  http POST "/v1/jobs?key_path=$D/mul.zkey" --data-binary "@$D/mul.wtns" -H 'Content-Type: application/octet-stream' -H 'Content-Length: 5000' --max-time 4
  note "client stopping mid-request: HTTP $CODE"
  # A client that sends half a body and goes away.
  node -e '
    const net=require("net");const u=new URL(process.argv[1]);
    const s=net.connect(+u.port,u.hostname,()=>{s.write("POST /v1/jobs?key_path=x HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000\r\n\r\n"+"x".repeat(100));setTimeout(()=>s.destroy(),200);});' "$URL"
  http GET /v1/jobs/nope; expect_code 404 "unknown job"
  http GET /v1/nothing; expect_code 404 "unknown endpoint"
  http PUT /v1/jobs; expect_code 405 "wrong method"
  http GET "/v1/jobs?state=sleeping"; expect_code 400 "bad state filter"
  http POST /v1/jobs -H 'Content-Type: application/json' -d '{"key_path":"/nonexistent.zkey","witness_path":"/nonexistent.wtns"}'
  [ "${CODE:0:1}" = 4 ] || fail "nonexistent paths: HTTP $CODE: $BODY"
  http POST /v1/jobs -H 'Content-Type: application/json' -d "{\"key_path\":\"$D/mul.zkey\",\"witness_path\":\"$D/mul.wtns\",\"priority\":\"urgent\"}"
  expect_code 400 "bad priority"
  ok "good job after the bad ones" "$CUZK" prove --remote "$URL" "$D/mul.zkey" "$D/mul.wtns" "$T/p.json" "$T/pub.json"
  ok "verify" "$CUZK" verify "$D/mul.vkey.json" "$T/pub.json" "$T/p.json"
  http GET /metrics
  echo "$BODY" | grep -Eq '^cuzk_http_aborted_total [1-9]' || fail "the aborted request was not counted: $(echo "$BODY" | grep aborted)"
  http GET "/v1/jobs?limit=1000"; [ "$(echo "$BODY" | jget jobs.length)" = 1 ] || fail "a bad request left a job behind: $BODY"
  kill -0 "$DPID" || fail "daemon died"
  stop_daemon
  # Token: required beyond localhost; enforced when set.
  "$CUZK" serve --foreground --listen 0.0.0.0:0 --state-dir "$T/open" 2>"$T/open.err"
  rc=$?; [ $rc = 1 ] && grep -q 'token is required' "$T/open.err" || fail "listening on 0.0.0.0 without a token: exit $rc: $(cat "$T/open.err")"
  start_daemon tok --token s3cret --rate-limit 5
  http GET /v1/status; expect_code 401 "no token"
  http GET /v1/status -H 'Authorization: Bearer wrong'; expect_code 401 "wrong token"
  http GET /v1/status -H 'Authorization: Bearer s3cret'; expect_code 200 "right token"
  CUZK_TOKEN=s3cret "$CUZK" prove --remote "$URL" "$D/mul.zkey" "$D/mul.wtns" "$T/p.json" "$T/pub.json" || fail "prove with a token"
  # 40 requests in one keep-alive connection at a 5/s limit (burst 10): some get 429.
  urls=(); for i in $(seq 1 40); do urls+=("$URL/v1/status"); done
  curl -s -w '\n%{http_code}\n' -H 'Authorization: Bearer s3cret' "${urls[@]}" >"$T/codes"
  n429=$(grep -c '^429$' "$T/codes"); n200=$(grep -c '^200$' "$T/codes")
  [ "$n429" -gt 0 ] && [ "$n200" -ge 5 ] && [ $((n429 + n200)) = 40 ] || fail "40 requests at a 5/s limit: $(grep -E "^[0-9]{3}$" "$T/codes" | sort | uniq -c)"
  sleep 2.5   # the bucket refills: served again
  http GET /v1/status -H 'Authorization: Bearer s3cret'; expect_code 200 "after the rate limit"
  note "bad requests answered with JSON errors (400/404/405/409/413/401/429); the daemon kept serving"
  stop_daemon
  ;;

concurrent)
  start_daemon main --cpu-workers 2
  ok "bench 200 clients" "$CUZK" bench serve --key "$DATA/bn128/mul.zkey" --witness "$DATA/bn128/mul.wtns" -n 400 -c 200
  cat "$T/out"
  grep -q 'done 400, cancelled 0, failed 0, lost 0' "$T/out" || fail "200 concurrent clients: $(cat "$T/out")"
  stop_daemon
  ;;

load1000)
  start_daemon main --cpu-workers 2 --threads 1
  D=$DATA/bn128
  # The warm-up has the same shape as the run. The daemon's RSS rises by about
  # 2 MB over the first ~1200 jobs while the live heap stays flat (SQLite's
  # page cache filling to its 2 MiB default, glibc's caches of thread stacks
  # and of the 4 malloc arenas cuzk serve allows; docs/DAEMON.md), then stays
  # flat, so the sample is taken after 1200.
  ok "warm-up 1200" "$CUZK" bench serve --key "$D/mul.zkey" --witness "$D/mul.wtns" -n 1200 -c 16 --priority mixed --cancel-every 10
  R0=$(rss_kb "$DPID")
  ok "1000 jobs" "$CUZK" bench serve --key "$D/mul.zkey" --witness "$D/mul.wtns" -n 1000 -c 16 --priority mixed --cancel-every 10 --out "$T/proofs" --trace "$T/trace.json"
  R1=$(rss_kb "$DPID")
  cat "$T/out"
  grep -q 'lost 0' "$T/out" && grep -q 'failed 0' "$T/out" || fail "1000-job run: $(cat "$T/out")"
  nproofs=$(ls "$T/proofs" | grep -c 'proof.json$')
  ndone=$(sed -n 's/.*done \([0-9]*\),.*/\1/p' "$T/out")
  [ "$nproofs" = "$ndone" ] && [ "$ndone" -ge 900 ] || fail "proof files $nproofs, done $ndone"
  bad=0
  for p in "$T"/proofs/*.proof.json; do
    "$CUZK" verify "$D/mul.vkey.json" "${p%.proof.json}.public.json" "$p" >/dev/null 2>&1 || bad=$((bad + 1))
  done
  [ $bad = 0 ] || fail "$bad of $nproofs proofs do not verify"
  if [ -x "$SNARKJS" ]; then
    for p in $(ls "$T"/proofs/*.proof.json | shuf -n 5 --random-source=<(yes)); do
      verify_snarkjs "$D/mul.vkey.json" "${p%.proof.json}.public.json" "$p" "$p"
    done
  fi
  node -e 'const t=JSON.parse(require("fs").readFileSync(process.argv[1]));if(t.traceEvents.length<1000)process.exit(1)' "$T/trace.json" || fail "trace file"
  http GET "/v1/jobs?limit=100000"
  TOTAL=$(echo "$BODY" | jget jobs.length)
  [ "$TOTAL" = 2200 ] || fail "the daemon knows $TOTAL jobs (expected 2200)"
  growth=$(( (R1 - R0) * 100 / R0 ))
  note "RSS after warm-up ${R0} kB, after 1000 jobs ${R1} kB (${growth} %)"
  [ $(( (R1 - R0) * 100 )) -le $(( 5 * R0 )) ] || fail "RSS grew ${growth} % over 1000 jobs (limit 5 %)"
  stop_daemon
  ;;

page)
  CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
  [ -n "$CHROME" ] || { echo "SKIP $TAG: chromium not installed (scripts/deps.sh installs it)"; exit 77; }
  start_daemon main --cpu-workers 2
  D=$DATA/bn128
  ok "bench" "$CUZK" bench serve --key "$D/mul.zkey" --witness "$D/mul.wtns" -n 6 -c 2
  http GET "/v1/jobs?state=done&limit=1"; J=$(echo "$BODY" | jget jobs.0.id)
  KID=$(sha256sum "$D/mul.zkey" | cut -c1-16)
  timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$T/chrome" \
    --virtual-time-budget=5000 --dump-dom "$URL/" >"$T/dom.html" 2>"$T/chrome.err" || fail "chromium: $(tail -n 5 "$T/chrome.err")"
  grep -q 'data-loaded="1"' "$T/dom.html" || fail "page did not load /v1/status: $(grep -o '<div id="err">[^<]*' "$T/dom.html")"
  grep -q "data-job=\"$J\"" "$T/dom.html" || fail "timeline lacks job $J"
  grep -q "<td>$KID</td>" "$T/dom.html" || fail "keys table lacks $KID"
  grep -Eq '<table id="workers">.*<td class="num">0</td><td>cpu</td>' "$T/dom.html" || fail "workers table not rendered"
  grep -q 'class="lane" data-device="-1"' "$T/dom.html" || fail "no CPU lane in the timeline"
  note "status page rendered in headless Chromium: queue, workers, keys, timeline with job $J"
  stop_daemon
  ;;

*) echo "unknown scenario $SCEN" >&2; exit 2 ;;
esac
echo "PASS $TAG"
