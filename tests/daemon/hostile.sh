#!/usr/bin/env bash
# The daemon under hostile clients (label "daemon"). One invocation = one
# CTest test:
#
#   hostile.sh <cuzk-binary> <repo-root> <scenario>
#
# Each scenario starts its own daemon on a free port of 127.0.0.1 with a fresh
# state directory; every client is on this machine (source addresses
# 127.0.0.X play distinct client addresses), bounded in count and time. Each
# check waits for the state it checks (a gauge of the daemon, an answer)
# instead of assuming a speed, so the suite passes on a loaded machine.
#
#   slowloris  2x max_connections clients trickling headers and bodies from
#              several addresses: the connections stay bounded and a
#              legitimate prove --remote is still answered (its round-trip
#              beside the unattacked one is printed)
#   deadlines  a request trickling its headers, one trickling its body: both
#              closed by the daemon (header_timeout, body_min_rate); connections
#              beyond max_connections_per_address closed at once
#   paths      key and witness paths outside keys.dirs / witness.dirs, symlinks
#              out of them, a FIFO, a device, a 3 GiB file: refused at once,
#              one message whether the file exists or not, no file bytes in
#              answers; requests racing a directory swapped for a symlink out
#              never reach the file outside; local clients (another user over
#              the Unix socket and TCP) may name only what their user can read
#   state      the state directory and its files are private (0700 / 0600, the
#              journal included), the pid is in `lock` and /v1/status, a start
#              that fails (address in use) leaves no state directory behind
#   diskfull   the state directory on a small tmpfs (root only, else skipped)
#              that fills while 1 MiB witnesses stream into spool files (the
#              journal names them spool:<sha256>, small ones inline:<sha256>) and
#              small ones into the journal, with a job held running: refused
#              submissions get 507 (never 400) and leave no file; the running
#              job, its result not storable, stays in store_result, retrying;
#              the disk grows: every acknowledged job completes once and
#              verifies, the spool empties, PRAGMA integrity_check is ok
#   list10k    10,000 queued jobs (written into a stopped daemon's journal, then
#              the daemon restarted with its workers paused, so they stay queued):
#              every page of 100 by cursor, positions checked against the
#              queue order; the time of each page printed
#   malformed  mistyped, unknown and non-UTF-8 fields, control characters, bad
#              numbers: 400 with a message, answers always valid JSON; a
#              client-chosen value cannot forge a log line or field; 405 with
#              code method_not_allowed and Allow on every endpoint; the token
#              from --token-file or $CUZK_TOKEN for serve and every client
#              command; a --token flag blanked in the command line
#   memory     8 concurrent 32 MiB witness bodies, held half sent: they stream
#              to the spool, the daemon's RSS grows by less than body_memory
#              (4 MiB) over its RSS with the key resident; each holds 64 KiB of
#              body_memory; beyond it 503 with Retry-After
#
# Exit 0 = pass, 1 = fail, 77 = skip. DAEMON_KEEP=1 keeps the temp directory.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 <cuzk> <repo-root> <scenario>" >&2; exit 2; }
CUZK=$1 ROOT=$2 SCEN=$3
DATA="$ROOT/tests/data/interop"
HJS="$ROOT/tests/daemon/hostile.cjs"
TAG="[hostile $SCEN]"
command -v node >/dev/null || { echo "SKIP $TAG: node missing"; exit 77; }

TMP_PREFIX=cuzk-hostile
source "$ROOT/tests/daemon/lib.sh"

case "$SCEN" in
slowloris)
  MAXC=16
  # Deadlines far beyond the test: the attackers are never timed out, so a
  # legitimate client gets in only by the connection limit's eviction.
  start_daemon main --max-connections $MAXC --max-connections-per-address 8 --header-timeout 300 --body-min-rate 1K --cpu-workers 1 --threads 1
  D=$DATA/bn128
  median() { tr ' ' '\n' | grep . | sort -n | sed -n 3p; }
  # Unattacked round-trips (5 after one that loads the key).
  "$CUZK" prove --remote "$URL" "$D/mul.zkey" "$D/mul.wtns" "$T/p.json" "$T/pub.json" || fail "unattacked prove"
  times0=""
  for i in 1 2 3 4 5; do
    t0=$(ms); "$CUZK" prove --remote "$URL" "$D/mul.zkey" "$D/mul.wtns" "$T/p.json" "$T/pub.json" || fail "unattacked prove $i"
    times0="$times0 $(( $(ms) - t0 ))"
  done
  # 2 x max_connections attackers from 4 addresses (8 each: the per-address limit).
  mkfifo "$T/attack.in"
  node "$HJS" attack "$PORT" $((2 * MAXC)) 20 4 <"$T/attack.in" >"$T/attack.out" 2>&1 &
  APID=$!; PIDS+=("$APID")
  exec 3>"$T/attack.in"
  full() { local c; c=$(metric cuzk_http_connections); [ -n "$c" ] && [ "$c" -ge $((MAXC - 1)) ]; }
  wait_for "the attackers fill the connection limit" full
  worst=0 times1=""
  for i in 1 2 3 4 5; do
    t0=$(ms); "$CUZK" prove --remote "$URL" "$D/mul.zkey" "$D/mul.wtns" "$T/p.json" "$T/pub.json" >"$T/err" 2>&1 || fail "prove under attack ($i): $(cat "$T/err")"
    t=$(( $(ms) - t0 )); [ $t -gt $worst ] && worst=$t; times1="$times1 $t"
    "$CUZK" verify "$DATA/bn128/mul.vkey.json" "$T/pub.json" "$T/p.json" >/dev/null || fail "proof under attack does not verify"
    c=$(metric cuzk_http_connections)
    [ "$c" -le $((MAXC + 1)) ] || fail "the daemon holds $c connections (limit $MAXC)"
  done
  full || fail "the attack was not in effect until the end"
  closed=$(metric cuzk_http_slow_closed_total)
  exec 3>&-
  wait "$APID"
  note "prove --remote round-trip (ms): unattacked$times0 (median $(echo $times0 | median)); under $((2 * MAXC)) slow clients$times1 (median $(echo $times1 | median)); attackers' connections closed $closed times"
  # The target (2x) is for an idle machine; here only that it stays far below the
  # 300 s the attackers would otherwise hold a slot.
  [ "$worst" -lt 30000 ] || fail "a legitimate client waited ${worst} ms"
  stop_daemon
  ;;

deadlines)
  start_daemon main --header-timeout 1 --body-min-rate 1K --max-connections-per-address 4
  node "$HJS" trickle "$PORT" headers >"$T/h.out" &
  H=$!
  node "$HJS" trickle "$PORT" body >"$T/b.out" &
  B=$!
  wait $H; wait $B
  th=$(sed -n 's/closed_after //p' "$T/h.out"); tb=$(sed -n 's/closed_after //p' "$T/b.out")
  [ -n "$th" ] && [ -n "$tb" ] || fail "trickling clients: $(cat "$T/h.out" "$T/b.out")"
  grep -q 'event=http_closed reason=header_timeout' "$T/daemon-main.log" || fail "no header_timeout close logged"
  grep -q 'event=http_closed reason=body_min_rate' "$T/daemon-main.log" || fail "no body_min_rate close logged"
  note "headers at 10 B/s closed after ${th} s (header_timeout 1 s); body at 10 B/s closed after ${tb} s (body_min_rate 1K)"
  # A body at full speed after the grace period is fine.
  http POST "/v1/jobs?key_path=$DATA/bn128/mul.zkey" --data-binary "@$DATA/bn128/mul.wtns" -H 'Content-Type: application/octet-stream'
  expect_code 201 "a prompt client"
  stop_daemon
  start_daemon perip --header-timeout 300 --max-connections-per-address 4
  out=$(node "$HJS" perip "$PORT" 10 127.0.0.9 4) || fail "per-address limit: $out"
  [ "$out" = "open 4 closed 6" ] || fail "per-address limit 4, 10 connections: $out"
  http GET /v1/status; expect_code 200 "another address while one is at its limit"
  note "10 connections from one address, limit 4: $out"
  stop_daemon
  ;;

memory)
  # Witness bodies stream to the spool: 8 concurrent 32 MiB bodies (256 MiB)
  # held half sent while the daemon's RSS is read; body_memory 4 MiB.
  D=$DATA/bn128
  N=8 BYTES=$((32 << 20)) BUDGET=$((4 << 20))
  start_daemon main --body-memory $BUDGET --max-request-bytes 64M --cpu-workers 1 --threads 1
  ok "a first proof (the key resident)" "$CUZK" prove --remote "$URL" "$D/mul.zkey" "$D/mul.wtns" "$T/p.json" "$T/pub.json"
  R0=$(rss_kb "$DPID")
  mkfifo "$T/hold.in"
  node "$HJS" hold "$PORT" $N $BYTES "/v1/jobs?key_path=$D/mul.zkey" <"$T/hold.in" >"$T/hold.out" 2>&1 &
  HP=$!; PIDS+=("$HP")
  exec 3>"$T/hold.in"
  # Held: every body's first half is in the spool (the daemon has read it).
  spooled() { [ "$(cat "$T"/main/spool/.upload-* 2>/dev/null | wc -c)" -ge $((N * (BYTES / 2))) ]; }
  wait_for "$N half bodies in the spool" spooled
  R1=$(rss_kb "$DPID")
  reserved=$(metric cuzk_http_body_bytes_reserved)
  echo go >&3; exec 3>&-
  wait "$HP"
  codes=$(tail -n 1 "$T/hold.out")
  [ "$codes" = "$(printf '400 %.0s' $(seq 1 $N) | sed 's/ $//')" ] || fail "$N streamed bodies of garbage: codes $codes (expected $N x 400): $(cat "$T/hold.out")"
  [ -z "$(ls -A "$T/main/spool")" ] || fail "the refused bodies left spool files: $(ls -la "$T/main/spool")"
  grow=$(( R1 - R0 ))
  note "$N bodies of $((BYTES >> 20)) MiB, half sent each and held ($((N * BYTES / 2 >> 20)) MiB in the spool): RSS ${R0} kB with the key resident, ${R1} kB held (+${grow} kB), body_memory reserved ${reserved} B of ${BUDGET}"
  [ $(( grow * 1024 )) -le $BUDGET ] || fail "RSS grew by ${grow} kB with the bodies in flight, over body_memory ($BUDGET B)"
  [ "$reserved" = $((N * 65536)) ] || fail "body_memory reserved $reserved B for $N streamed bodies (expected $N x 64 KiB)"
  # Beyond body_memory: 4 streamed bodies with room for 3 (64 KiB each).
  stop_daemon
  start_daemon small --body-memory 192K --max-request-bytes 32M
  codes=$(node "$HJS" bodies "$PORT" 4 $((8 << 20)) "/v1/jobs?key_path=$D/mul.zkey" 65536 2>"$T/bodies.err") || fail "bodies: $codes $(cat "$T/bodies.err")"
  n400=$(echo "$codes" | tr ' ' '\n' | grep -c '^400$'); n503=$(echo "$codes" | tr ' ' '\n' | grep -Ec '^(503|-1)$')
  [ "$n400" = 3 ] && [ "$n503" = 1 ] || fail "4 bodies, room for 3: codes $codes (expected 3 x 400, 1 x 503 or reset)"
  http POST "/v1/jobs?key_path=$D/mul.zkey" --data-binary "@$D/mul.wtns" -H 'Content-Type: application/octet-stream'
  expect_code 201 "a witness once the bodies are gone"
  http GET /metrics
  echo "$BODY" | grep -Eq '^cuzk_http_body_bytes_reserved 0$' || fail "body memory still reserved after the requests: $(echo "$BODY" | grep body_bytes)"
  note "body_memory 192 KiB, 4 streamed bodies: $codes (3 streamed, 1 refused with 503 before its body)"
  stop_daemon
  ;;

paths)
  K=$T/keys W=$T/wit
  mkdir -p "$K" "$W"
  cp "$DATA/bn128/mul.zkey" "$K/"; cp "$DATA/bn128/mul.wtns" "$W/"
  ln -s "$DATA/bn128/mul.zkey" "$K/out.zkey"; ln -s /etc/passwd "$W/passwd.wtns"; ln -s /dev/zero "$W/zero.wtns"
  mkfifo "$W/fifo.wtns"
  truncate -s 3G "$W/huge.wtns"
  start_daemon main --local-files false --key-dirs "$K" --witness-dirs "$W" --max-request-bytes 64M
  sub() { http POST /v1/jobs -H 'Content-Type: application/json' --max-time 30 -d "{\"key_path\":\"$1\",\"witness_path\":\"$2\"}"; }
  sub "$K/mul.zkey" "$W/mul.wtns"; expect_code 201 "key and witness inside their directories"
  # Outside: the same answer for a file that exists and one that does not.
  sub /etc/passwd "$W/mul.wtns"; expect_code 403 "key_path /etc/passwd"; m1=${BODY//\/etc\/passwd/P}
  sub /etc/no-such-file "$W/mul.wtns"; expect_code 403 "key_path /etc/no-such-file"; m2=${BODY//\/etc\/no-such-file/P}
  [ "$m1" = "$m2" ] || fail "the answers tell an existing file from a missing one: $m1 / $m2"
  sub "$K/mul.zkey" /etc/passwd; expect_code 403 "witness_path /etc/passwd"
  echo "$BODY" | grep -q root && fail "file content in an answer: $BODY"
  sub "$K/out.zkey" "$W/mul.wtns"; expect_code 403 "a symlink out of keys.dirs"
  sub "$K/mul.zkey" "$W/passwd.wtns"; expect_code 403 "a symlink out of witness.dirs"
  sub "$K/mul.zkey" "$W/zero.wtns"; expect_code 403 "a symlink to a device"
  sub "$K/mul.zkey" "$K/../../../../../../etc/passwd"; expect_code 403 "dot-dot out of the directory"
  sub "$K/mul.zkey" "$W/fifo.wtns"; expect_code 400 "a FIFO"
  echo "$BODY" | grep -q 'not a regular file' || fail "FIFO: $BODY"
  R0=$(awk '/^VmHWM/{print $2}' "/proc/$DPID/status")
  sub "$K/mul.zkey" "$W/huge.wtns"; expect_code 413 "a 3 GiB witness file"
  R1=$(awk '/^VmHWM/{print $2}' "/proc/$DPID/status")
  [ $((R1 - R0)) -lt 65536 ] || fail "the 3 GiB file was read: peak RSS +$((R1 - R0)) kB"
  if [ "$(id -u)" = 0 ]; then
    mknod "$W/null.wtns" c 1 3
    sub "$K/mul.zkey" "$W/null.wtns"; expect_code 400 "a device inside witness.dirs"
  fi
  http POST "/v1/jobs?key_path=/etc/passwd" --data-binary "@$DATA/bn128/mul.wtns" -H 'Content-Type: application/octet-stream'
  expect_code 403 "binary form, key_path outside"
  http POST /v1/keys -H 'Content-Type: application/json' -d '{"path":"/etc/passwd"}'; expect_code 403 "register /etc/passwd"
  http POST /v1/keys -H 'Content-Type: application/json' -d "{\"path\":\"$K/mul.zkey\"}"; expect_code 200 "register inside keys.dirs"
  note "outside the directories, symlinks out, dot-dot: 403 with one message; FIFO and device 400 at once; 3 GiB file 413 unread (+$((R1 - R0)) kB)"
  # A directory swapped for a symbolic link out while requests name a file in
  # it: inside is a file that is no witness (400), outside a valid one (201
  # would mean the daemon followed the swapped-in link).
  mkdir -p "$W/swap" "$T/outside"; echo "not a witness" >"$W/swap/x.wtns"; cp "$DATA/bn128/mul.wtns" "$T/outside/x.wtns"
  node -e '
    const fs=require("fs"),[d,out,stop]=process.argv.slice(1);let n=0;
    while(!fs.existsSync(stop)){fs.renameSync(d,d+".d");fs.symlinkSync(out,d);fs.unlinkSync(d);fs.renameSync(d+".d",d);n++}
    console.log(n)' "$W/swap" "$T/outside" "$T/swap.stop" >"$T/swaps" &
  SW=$!; PIDS+=("$SW")
  declare -A seen=()
  for i in $(seq 1 300); do
    sub "$K/mul.zkey" "$W/swap/x.wtns"
    seen[$CODE]=$(( ${seen[$CODE]:-0} + 1 ))
    [ "$CODE" = 201 ] && fail "request $i followed the swapped-in symlink out of witness.dirs: $BODY"
  done
  touch "$T/swap.stop"; wait "$SW"
  codes=$(for c in "${!seen[@]}"; do printf '%s x %s, ' "${seen[$c]}" "$c"; done)
  note "300 requests naming a file in a directory swapped $(cat "$T/swaps") times for a symlink out: ${codes%, } (never 201)"
  stop_daemon   # the FIFO held nothing: SIGTERM completes
  # Local clients: another user may name only files it can read itself.
  if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    chmod 755 "$T"; mkdir -m 777 "$T/out"
    cp "$DATA/bn128/mul.zkey" "$DATA/bn128/mul.wtns" "$T/out/"; chmod 644 "$T/out/"*
    install -m 600 "$DATA/bn128/mul.zkey" "$T/private.zkey"
    start_daemon local --socket "$T/cuzk.sock"
    chmod 666 "$T/cuzk.sock"
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    for via in "unix:$T/cuzk.sock" "$URL"; do
      as_nobody "$CUZK" prove --remote "$via" "$T/out/mul.zkey" "$T/out/mul.wtns" "$T/out/p.json" "$T/out/pub.json" >"$T/err" 2>&1 || fail "another user's prove --remote via $via: $(cat "$T/err")"
      as_nobody "$CUZK" prove --remote "$via" "$T/private.zkey" "$T/out/mul.wtns" "$T/out/p.json" "$T/out/pub.json" >"$T/err" 2>&1 && fail "another user named a key it cannot read via $via"
      grep -q 'may name' "$T/err" || fail "refusal via $via: $(cat "$T/err")"
    done
    "$CUZK" prove --remote "unix:$T/cuzk.sock" "$T/private.zkey" "$T/out/mul.wtns" "$T/p.json" "$T/pub.json" || fail "the key's owner via the Unix socket"
    note "user nobody: prove --remote with its own readable key works over the Unix socket and TCP; a 0600 root key refused"
    stop_daemon
  fi
  ;;

state)
  out=$("$CUZK" serve --listen 127.0.0.1:0 --state-dir "$T/st") || fail "detached start: $out"
  DPID=$(echo "$out" | sed -n 's/.*(pid \([0-9]*\),.*/\1/p'); PIDS+=("$DPID")
  URL=$(echo "$out" | sed -n 's/^cuzk serve: \(http[^ ]*\) .*/\1/p')
  [ -n "$DPID" ] && [ -n "$URL" ] || fail "detached start printed: $out"
  http POST "/v1/jobs?key_path=$DATA/bn128/mul.zkey" --data-binary "@$DATA/bn128/mul.wtns" -H 'Content-Type: application/octet-stream'
  expect_code 201 submit
  for f in st:700 st/spool:700 st/journal.db:600 st/journal.db-wal:600 st/journal.db-shm:600 st/keys.db:600 st/keys.db-wal:600 st/keys.db-shm:600 st/lock:600 st/cuzk.log:600; do
    m=$(stat -c %a "$T/${f%%:*}") || fail "${f%%:*} missing"
    [ "$m" = "${f##*:}" ] || fail "${f%%:*} has mode $m (expected ${f##*:})"
  done
  [ "$(tr -d '\n' <"$T/st/lock")" = "$DPID" ] || fail "lock holds '$(cat "$T/st/lock")', the daemon is $DPID"
  http GET /v1/status; [ "$(echo "$BODY" | jget pid)" = "$DPID" ] || fail "/v1/status pid: $(echo "$BODY" | jget pid), expected $DPID"
  # Address in use: the failed start leaves no new directory (detached and foreground).
  "$CUZK" serve --listen "${URL#http://}" --state-dir "$T/new" >"$T/err" 2>&1 && fail "a second daemon on the same address started"
  [ ! -e "$T/new" ] || fail "a failed detached start left $T/new: $(ls -la "$T/new")"
  "$CUZK" serve --foreground --listen "${URL#http://}" --state-dir "$T/new2" 2>"$T/err" && fail "a second daemon on the same address started"
  [ ! -e "$T/new2" ] || fail "a failed start left $T/new2: $(ls -la "$T/new2")"
  kill -TERM "$DPID"
  for _ in $(seq 1 600); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$DPID" 2>/dev/null && fail "the detached daemon did not stop"
  note "state dir 0700, journal/wal/shm/lock/log 0600, pid $DPID in lock and /v1/status; a failed start left nothing"
  ;;

diskfull)
  [ "$(id -u)" = 0 ] || { echo "SKIP $TAG: needs root to mount a tmpfs"; exit 77; }
  # A circuit whose witness (1 MiB + 140 B) goes to a spool file, not the journal.
  G=$T/gen; mkdir -p "$G"
  ok "gen" "$CUZK" gen -q --constraints 2^15 --seed 7 "$G/big.r1cs" "$G/big.wtns"
  ok "setup" "$CUZK" setup -q -t 2 "$G/big.r1cs" "$G/big.zkey"
  ok "export-vk" "$CUZK" export-vk "$G/big.zkey" "$G/big.vk.json"
  [ "$(stat -c %s "$G/big.wtns")" -gt 1048576 ] || fail "the big witness fits the journal"
  mkdir -p "$T/fs"
  mount -t tmpfs -o size=8M,mode=0700 cuzk-hostile "$T/fs" 2>"$T/err" || { echo "SKIP $TAG: cannot mount a tmpfs: $(cat "$T/err")"; exit 77; }
  trap 'umount -l "$T/fs" 2>/dev/null; cleanup' EXIT
  start_daemon main --state-dir "$T/fs/st" --cpu-workers 1 --threads 1 --paused
  D=$DATA/bn128
  : >"$T/acked"
  sub_big() { http POST "/v1/jobs?key_path=$G/big.zkey" --data-binary "@$G/big.wtns" -H 'Content-Type: application/octet-stream'; }
  sub_small() { http POST "/v1/jobs?key_path=$D/mul.zkey" --data-binary "@$D/mul.wtns" -H 'Content-Type: application/octet-stream'; }
  # One big job claimed and held before its proof (the running job).
  sub_big; expect_code 201 "the first big job"; held=$(echo "$BODY" | jget id); echo "$held $G/big.vk.json" >>"$T/acked"
  # The journal names witnesses by content, the spool keeps this host's file of the job.
  command -v sqlite3 >/dev/null || fail "sqlite3 (the command) is missing: scripts/deps.sh installs it"
  ref=$(sqlite3 "$T/fs/st/journal.db" "SELECT input_uri FROM cuzk_jobs WHERE id = '$held'")
  [ "$ref" = "spool:$(sha256sum <"$G/big.wtns" | cut -d' ' -f1)" ] || fail "the big job's witness reference: $ref (expected spool:<sha256>)"
  [ -f "$T/fs/st/spool/$held.wtns" ] || fail "no spool file $held.wtns: $(ls -a "$T/fs/st/spool")"
  sub_small; expect_code 201 "the first small job"; echo "$(echo "$BODY" | jget id) $D/mul.vkey.json" >>"$T/acked"
  ref=$(sqlite3 "$T/fs/st/journal.db" "SELECT input_uri FROM cuzk_jobs WHERE id = '$(echo "$BODY" | jget id)'")
  [ "$ref" = "inline:$(sha256sum <"$D/mul.wtns" | cut -d' ' -f1)" ] || fail "the small job's witness reference: $ref (expected inline:<sha256>)"
  ok "admit" "$CUZK" workers admit 1
  heldrun() { http GET "/v1/jobs/$held"; [ "$(echo "$BODY" | jget phase)" = paused ]; }
  wait_for "the first job held running" heldrun
  # Witnesses streamed into the spool until the disk is full: 507 (never 400).
  codes=""
  for i in $(seq 1 40); do
    if [ $((i % 4)) = 0 ]; then sub_small; vk=$D/mul.vkey.json; else sub_big; vk=$G/big.vk.json; fi
    if [ "$CODE" = 201 ]; then echo "$(echo "$BODY" | jget id) $vk" >>"$T/acked"; continue; fi
    codes="$codes $CODE"
    [ "$CODE" = 507 ] || [ "$CODE" = 503 ] || fail "submission $i on a full disk: HTTP $CODE (expected 507/503): $BODY"
    echo "$BODY" | jget error.message >>"$T/refusals"
    [ $(echo $codes | wc -w) -ge 3 ] && break
  done
  n=$(wc -l <"$T/acked")
  grep -q 'witness spool' "$T/refusals" || fail "no upload was refused by the full disk: $(cat "$T/refusals")"
  [ -n "$codes" ] || fail "the 8 MiB tmpfs never filled ($n jobs)"
  ls -A "$T/fs/st/spool" | grep -q '^\.upload-' && fail "a refused upload left its file: $(ls -la "$T/fs/st/spool")"
  # To the last byte (what a refused upload freed), then the held job runs:
  # its result cannot be stored; it stays running in store_result, retrying.
  cat /dev/zero >"$T/fs/filler" 2>/dev/null
  sub_big; [ "$CODE" = 507 ] || [ "$CODE" = 503 ] || fail "a big witness on a full disk: HTTP $CODE: $BODY"
  sub_small; [ "$CODE" = 507 ] || [ "$CODE" = 503 ] || fail "a small witness on a full disk: HTTP $CODE: $BODY"
  codes="$codes | full:$CODE"
  ok "resume" "$CUZK" workers resume
  storing() { http GET "/v1/jobs/$held"; [ "$(echo "$BODY" | jget state)" = running ] && [ "$(echo "$BODY" | jget phase)" = store_result ]; }
  wait_for "the running job retrying its result on the full disk" storing
  http GET /v1/status; expect_code 200 "status while full"
  note "$n jobs acknowledged (big witnesses in spool files, small in the journal), then:$codes; the running job in store_result while full"
  mount -o remount,size=256M "$T/fs" || fail "cannot grow the tmpfs"
  while read -r j vk; do
    "$CUZK" await --timeout 120 "$j" "$T/p.json" "$T/pub.json" >"$T/err" 2>&1 || fail "acknowledged job $j after the disk grew: $(cat "$T/err")"
    "$CUZK" verify "$vk" "$T/pub.json" "$T/p.json" >/dev/null || fail "the proof of $j does not verify ($vk)"
  done <"$T/acked"
  http GET "/v1/jobs?limit=100000"
  summary=$(echo "$BODY" | node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{const j=JSON.parse(d).jobs;console.log(j.length+" "+j.filter(x=>x.state==="done").length+" "+new Set(j.map(x=>x.id)).size+" "+Math.max(...j.map(x=>x.attempt)))})')
  [ "$summary" = "$n $n $n 1" ] || fail "jobs/done/unique/max-attempt = $summary (expected $n $n $n 1)"
  http GET /v1/status; [ "$(echo "$BODY" | jget running)" = 0 ] || fail "a job still running: $BODY"
  stop_daemon
  [ -z "$(ls -A "$T/fs/st/spool")" ] || fail "spool files left after every job ended: $(ls -la "$T/fs/st/spool")"
  command -v sqlite3 >/dev/null || fail "sqlite3 (the command) is missing: scripts/deps.sh installs it"
  ic=$(sqlite3 "$T/fs/st/journal.db" 'PRAGMA integrity_check' 2>&1)
  [ "$ic" = ok ] || fail "journal integrity_check: $ic"
  note "after growing: all $n acknowledged jobs done exactly once (attempt 1), every proof verified; spool empty; integrity_check ok"
  ;;

list10k)
  command -v sqlite3 >/dev/null || fail "sqlite3 (the command) is missing: scripts/deps.sh installs it"
  D=$DATA/bn128
  start_daemon main --cpu-workers 1 --threads 1
  "$CUZK" prove --remote "$URL" "$D/mul.zkey" "$D/mul.wtns" "$T/p.json" "$T/pub.json" >/dev/null || fail "template job"
  stop_daemon
  # 10,000 queued jobs (priority i % 4, seq 100 + i), written into the journal
  # (fast); the daemon restarts paused, so nothing runs while they are listed.
  sqlite3 "$T/main/journal.db" "
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
    INSERT INTO cuzk_jobs (id, seq, req_sha256, key_id, key_path, priority, state, enqueued_at, max_attempts,
                           input_uri, input_bytes, host_bytes, device_bytes)
    SELECT printf('00000000-0000-4000-8000-%012d', i), 100 + i, t.req_sha256, t.key_id, t.key_path, i % 4,
           'queued', t.enqueued_at, 3, 'spool:', 0, 1, 0 FROM n, (SELECT * FROM cuzk_jobs LIMIT 1) t;" ||
    fail "filling the journal"
  EXPECT_STARTS=2 start_daemon main --cpu-workers 1 --threads 1 --max-queued 20000 --paused
  http GET /v1/status; [ "$(echo "$BODY" | jget queue.total)" = 10000 ] || fail "queue: $(echo "$BODY" | jget queue)"
  : >"$T/pages"; : >"$T/times"; cur=""
  for i in $(seq 1 200); do
    t=$(curl -sS -o "$T/page.json" -w '%{time_total}' "$URL/v1/jobs?state=queued&limit=100${cur:+&before=$cur}") || fail "page $i"
    echo "$t" >>"$T/times"
    cat "$T/page.json" >>"$T/pages"; echo >>"$T/pages"
    cur=$(grep -o '"next":"[0-9]*"' "$T/page.json" | tr -dc 0-9); [ -z "$cur" ] && break
  done
  check=$(node -e '
    const pages=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse);
    const jobs=pages.flatMap(p=>p.jobs);
    // Expected: by (priority, seq) with seq = 100 + i, priority = i % 4.
    const exp=new Map();
    const rest=[];for(let i=1;i<=10000;i++)rest.push(i);
    rest.sort((a,b)=>(a%4)-(b%4)||a-b).forEach((i,k)=>exp.set("00000000-0000-4000-8000-"+String(i).padStart(12,"0"),k));
    let bad=0;for(const j of jobs)if(exp.get(j.id)!==j.position)bad++;
    console.log(pages.length+" "+jobs.length+" "+new Set(jobs.map(j=>j.id)).size+" "+bad)' "$T/pages")
  [ "$check" = "101 10000 10000 0" ] || fail "pages/jobs/unique/wrong positions = $check (expected 101 10000 10000 0)"
  stats=$(sort -n "$T/times" | awk '{a[NR]=$1} END{printf "median %.1f ms, max %.1f ms", 1000*a[int((NR+1)/2)], 1000*a[NR]}')
  note "10,000 queued jobs in 100 pages of 100 by cursor, every position right; per page: $stats"
  max=$(sort -n "$T/times" | tail -n 1)
  # The target is 50 ms on an idle machine; 10x that here, on a shared one.
  awk -v m="$max" 'BEGIN{exit !(m < 0.5)}' || fail "a page took $max s"
  stop_daemon
  ;;

malformed)
  start_daemon main
  D=$DATA/bn128
  isjson() { echo "$BODY" | node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{try{const v=JSON.parse(d);process.exit(v.error&&v.error.message?0:1)}catch(e){process.exit(1)}})'; }
  bad() {  # DESC EXPECTED-CODE curl-args...: the answer is a JSON error with that code
    local d=$1 want=$2; shift 2
    http "$@"
    [ "$CODE" = "$want" ] || fail "$d: HTTP $CODE (expected $want): $BODY"
    isjson || fail "$d: the answer is not a JSON error: $BODY"
  }
  J=(-H 'Content-Type: application/json')
  bad "priority 7" 400 POST /v1/jobs "${J[@]}" -d "{\"key_path\":\"$D/mul.zkey\",\"witness_path\":\"$D/mul.wtns\",\"priority\":7}"
  echo "$BODY" | grep -q '"priority\\" must be a string' || fail "priority 7: $BODY"
  bad "key_path 5" 400 POST /v1/jobs "${J[@]}" -d "{\"key_path\":5,\"witness_path\":\"$D/mul.wtns\"}"
  bad "unknown field" 400 POST /v1/jobs "${J[@]}" -d "{\"key_path\":\"$D/mul.zkey\",\"witness_path\":\"$D/mul.wtns\",\"prio\":\"high\"}"
  bad "key and key_path" 400 POST /v1/jobs "${J[@]}" -d "{\"key\":\"ab\",\"key_path\":\"$D/mul.zkey\",\"witness_path\":\"$D/mul.wtns\"}"
  bad "a field twice" 400 POST /v1/jobs "${J[@]}" -d "{\"key_path\":\"$D/mul.zkey\",\"key_path\":\"$D/mul.zkey\",\"witness_path\":\"$D/mul.wtns\"}"
  bad "a newline in the idempotency key" 400 POST /v1/jobs "${J[@]}" -d "{\"key_path\":\"$D/mul.zkey\",\"witness_path\":\"$D/mul.wtns\",\"idempotency_key\":\"a\\nts=x event=forged\"}"
  printf '{"key_path":"%s","witness_path":"%s","priority":"\xff\xfe"}' "$D/mul.zkey" "$D/mul.wtns" >"$T/bad-utf8.json"
  bad "invalid UTF-8 in JSON" 400 POST /v1/jobs "${J[@]}" --data-binary "@$T/bad-utf8.json"
  bad "invalid UTF-8 in the query" 400 POST "/v1/jobs?key_path=$D/mul.zkey&priority=%FF%FE" --data-binary "@$D/mul.wtns" -H 'Content-Type: application/octet-stream'
  bad "a newline in a query value" 400 POST "/v1/jobs?key_path=$D/mul.zkey&idempotency_key=a%0Aevent%3Dforged" --data-binary "@$D/mul.wtns" -H 'Content-Type: application/octet-stream'
  bad "a newline in the Idempotency-Key header" 400 POST "/v1/jobs?key_path=$D/mul.zkey" --data-binary "@$D/mul.wtns" -H 'Content-Type: application/octet-stream' -H $'Idempotency-Key: a\x01b'
  bad "register: path 1" 400 POST /v1/keys "${J[@]}" -d '{"path":1}'
  bad "register: load \"yes\"" 400 POST /v1/keys "${J[@]}" -d "{\"path\":\"$D/mul.zkey\",\"load\":\"yes\"}"
  bad "limit abc" 400 GET "/v1/jobs?limit=abc"
  bad "limit 0" 400 GET "/v1/jobs?limit=0"
  bad "limit -1" 400 GET "/v1/jobs?limit=-1"
  bad "before x" 400 GET "/v1/jobs?before=x"
  bad "wait nan" 400 GET "/v1/jobs/00000000-0000-4000-8000-000000000001?wait=nan"
  # A value with spaces is quoted in the log: it cannot forge a field.
  http POST "/v1/jobs?key_path=$D/mul.zkey&idempotency_key=a%20b%20event%3Dforged" --data-binary "@$D/mul.wtns" -H 'Content-Type: application/octet-stream'
  expect_code 201 "an idempotency key with spaces"
  grep -q 'idempotency_key="a b event=forged"' "$T/daemon-main.log" || fail "the idempotency key is not quoted in the log: $(grep job_submitted "$T/daemon-main.log")"
  forged=$(grep 'event=forged' "$T/daemon-main.log" | grep -v 'idempotency_key="a b event=forged"')
  [ -z "$forged" ] || fail "a forged log field: $forged"
  # 405 everywhere, with the documented code and Allow.
  for mp in "POST /" "PUT /metrics" "DELETE /v1/status" "PUT /v1/jobs" "PATCH /v1/keys" "POST /v1/keys/ab" \
            "POST /v1/jobs/00000000-0000-4000-8000-000000000001" "DELETE /v1/jobs/00000000-0000-4000-8000-000000000001/proof" \
            "GET /v1/jobs/00000000-0000-4000-8000-000000000001/cancel"; do
    curl -sS -D "$T/405.hdr" -o "$T/405.json" -X "${mp%% *}" "$URL${mp#* }"
    head -n 1 "$T/405.hdr" | grep -q ' 405' || fail "$mp: $(cat "$T/405.hdr")"
    grep -qi '^Allow: ' "$T/405.hdr" || fail "$mp: no Allow header: $(cat "$T/405.hdr")"
    [ "$(jget error.code <"$T/405.json")" = method_not_allowed ] || fail "$mp: $(cat "$T/405.json")"
  done
  http GET /v1/status
  curl -s -o "$T/page.html" "$URL/"
  [ "$(echo "$BODY" | jget devices.length)" = 0 ] && grep -q 'CPU only' "$T/page.html" || fail "the status page does not say CPU only"
  stop_daemon
  # The token from a file or the environment: never in the command line.
  printf 's3cret-from-file\n' >"$T/token"; chmod 600 "$T/token"
  start_daemon tok --token-file "$T/token"
  tr '\0' ' ' <"/proc/$DPID/cmdline" | grep -q s3cret && fail "the token is in the command line"
  http GET /v1/status; expect_code 401 "no token"
  http GET /v1/status -H 'Authorization: Bearer s3cret-from-file'; expect_code 200 "the token from --token-file"
  # Every client command takes --token-file (and $CUZK_TOKEN, below).
  "$CUZK" status >"$T/err" 2>&1 && fail "status without the token"
  grep -q 'bearer token' "$T/err" || fail "status without the token: $(cat "$T/err")"
  TF=(--token-file "$T/token")
  ok "workers pause, token from a file" "$CUZK" workers "${TF[@]}" pause
  ok "submit, token from a file" "$CUZK" submit "${TF[@]}" "$D/mul.zkey" "$D/mul.wtns"
  job=$(cat "$T/out")
  ok "status of a job, token from a file" "$CUZK" status "${TF[@]}" "$job"
  ok "cancel, token from a file" "$CUZK" cancel "${TF[@]}" "$job"
  ok "workers resume, token from a file" "$CUZK" workers "${TF[@]}" resume
  ok "submit, token from a file" "$CUZK" submit "${TF[@]}" "$D/mul.zkey" "$D/mul.wtns"
  ok "await, token from a file" "$CUZK" await "${TF[@]}" "$(cat "$T/out")"
  ok "prove --remote, token from a file" "$CUZK" prove --remote "$URL" "${TF[@]}" "$D/mul.zkey" "$D/mul.wtns" "$T/p.json" "$T/pub.json"
  "$CUZK" verify "$D/mul.vkey.json" "$T/pub.json" "$T/p.json" >/dev/null || fail "the proof made with --token-file"
  ok "bench serve, token from a file" "$CUZK" bench serve "${TF[@]}" --key "$D/mul.zkey" --witness "$D/mul.wtns" -n 1 -c 1
  "$CUZK" status --token-file "$T/no-such-token" >"$T/err" 2>&1; rc=$?
  [ $rc = 2 ] && grep -q 'no-such-token' "$T/err" || fail "a missing --token-file: exit $rc: $(cat "$T/err")"
  stop_daemon
  CUZK_TOKEN=s3cret-env start_daemon env
  http GET /v1/status; expect_code 401 "no token"
  CUZK_TOKEN=s3cret-env "$CUZK" status >/dev/null || fail "the token from \$CUZK_TOKEN"
  CUZK_TOKEN=s3cret-env ok "prove --remote, token from \$CUZK_TOKEN" "$CUZK" prove --remote "$URL" "$D/mul.zkey" "$D/mul.wtns" "$T/p.json" "$T/pub.json"
  stop_daemon
  # A token given as a flag anyway is blanked in the command line at once,
  # the daemon's and a client's (an await held by the workers' pause, seen
  # by the daemon, so past its start).
  start_daemon flag --token s3cret-flag --paused
  tr '\0' ' ' <"/proc/$DPID/cmdline" | grep -q s3cret && fail "the --token flag is in the daemon's command line"
  ok "submit with --token" "$CUZK" submit --token s3cret-flag "$D/mul.zkey" "$D/mul.wtns"
  job=$(cat "$T/out")
  "$CUZK" await --token=s3cret-flag --timeout 120 "$job" >/dev/null 2>&1 &
  AW=$!; PIDS+=("$AW")
  waiting() { [ "$(curl -s -H 'Authorization: Bearer s3cret-flag' "$URL/metrics" | awk '$1=="cuzk_http_connections"{print $2}')" -ge 2 ]; }
  wait_for "the client's long-poll" waiting
  tr '\0' ' ' <"/proc/$AW/cmdline" | grep -q s3cret && fail "the --token flag is in a client's command line: $(tr '\0' ' ' <"/proc/$AW/cmdline")"
  ok "cancel with --token" "$CUZK" cancel --token s3cret-flag "$job"
  wait "$AW"; [ $? = 9 ] || fail "await of the cancelled job"
  stop_daemon
  note "mistyped / unknown / duplicate / non-UTF-8 / control-character fields and bad numbers: 400 JSON errors; 405 + Allow on 9 endpoint/method pairs; token from a file (serve and every client command) and the environment; a --token flag blanked in ps (daemon and client)"
  ;;

*) echo "unknown scenario $SCEN" >&2; exit 2 ;;
esac
echo "PASS $TAG"
