#!/usr/bin/env bash
# Witnesses that stay on the accepting host (docs/CLUSTER.md, "Witnesses"):
# three `cuzk serve` daemons on one PostgreSQL queue (cluster_lib.sh) with
# cluster.inline_witness_max = 0, so every witness is a blob.
#
#   cluster_blobs.sh <cuzk-binary> <repo-root>
#
# 1. A (advertise_url auto, the cluster token) accepts jobs of both curves
#    while every host is paused: the jobs name blob:<sha256>:A:<A's URL>,
#    no witness is in the database, A's spool holds one file per distinct
#    witness. GET /v1/blobs on A: without / with a wrong token 401, with
#    the API token 401, a malformed or unknown hash 404, a path 404; with
#    the cluster token the bytes whose sha256 is the name.
# -- the cluster view: B holds one (workers admit 1); `cuzk status` on C and
#    A shows the three hosts (alive, GPUs, slots, URL, leases, resident keys)
#    and the cluster's queue.
# 2. B proves them all, fetching from A (A's log: blob_served), proofs
#    verified (cuzk verify, snarkjs for one per curve); then A's sweep
#    removes the blob files no live job names.
# 3. A blob deleted from A's spool: the job fails at once with one line
#    (404, the witness is gone), attempt 1.
# 4. C (shared_dir, no URL) accepts a streamed witness: it is in
#    <shared_dir>/C/ (as root a tmpfs: copied there from C's spool, not
#    renamed), no upload or temporary file left, and B (the same
#    shared_dir) reads it from there.
# 4b. A 64 MiB witness streamed to A (curl -T): its upload file is renamed
#    into A's blob store under its hash, A's peak RSS grows by less than a
#    quarter of it (no copy in memory), B proves it, snarkjs verifies.
# 5. A killed (kill -9) with a job whose blob it holds: B tries it
#    engine.max_attempts times (the job requeued between), then fails it
#    with the fetch's one-line error.
# 6. Keys by content id: a job names a key whose file moved from the job's
#    path into B's keys.dirs: B finds it there (same name, same content id)
#    and runs the job. A job whose key file is gone: B does not claim it
#    (key_missing), it stays queued; the file back, C (which registered it)
#    runs it, attempt 1.
# Every wait is for a state, with a generous deadline.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 <cuzk> <repo-root>" >&2; exit 2; }
CUZK=$1 ROOT=$2
shift 2
EXTRA=("$@")
TAG="[daemon cluster blobs]"
. "$(dirname "$0")/cluster_lib.sh"

CTOK=cluster-secret-1234
printf '%s\n' "$CTOK" >"$T/ctok"
chmod 600 "$T/ctok"
mkdir -p "$T/shared"
# As root the shared directory is a tmpfs of its own: C's streamed uploads
# (in its spool, another file system) are copied into it, not renamed.
SHARED_FS="the same file system as the spools"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64M,mode=0755 cuzk-shared "$T/shared" 2>/dev/null; then
  trap 'umount -l "$T/shared" 2>/dev/null; cleanup' EXIT
  SHARED_FS="a tmpfs of its own"
fi
start_host A --paused --advertise-url auto --cluster-token-file "$T/ctok" --inline-witness-max 0
mkdir -p "$T/keysB" "$T/k1" "$T/k2"
start_host B --paused --advertise-url auto --cluster-token-file "$T/ctok" --inline-witness-max 0 --shared-dir "$T/shared" \
  --key-dirs "$T/keysB"
start_host C --paused --shared-dir "$T/shared" --inline-witness-max 0
grep -q "$CTOK" "$T"/daemon-*.log && fail "the cluster token was logged"
grep -q "event=cluster_advertise url=${URLS[A]}" "$T/daemon-A.log" || fail "A did not advertise its URL"

# ---- 1: placement and the endpoint ----
: >"$T/jobs"
for i in 0 1 2 3; do
  if [ $((i % 2)) = 0 ]; then c=bn128; else c=bls12381; fi
  ok "submit $i to A" on A "$CUZK" submit "$DATA/$c/mul.zkey" "$DATA/$c/mul.wtns"
  echo "$(cat "$T/out") $c" >>"$T/jobs"
done
SHA_BN=$(sha256sum <"$DATA/bn128/mul.wtns" | cut -d' ' -f1)
SHA_BLS=$(sha256sum <"$DATA/bls12381/mul.wtns" | cut -d' ' -f1)
R=$(psql_ "SELECT count(*) FROM cuzk.jobs WHERE input_uri IN ('blob:$SHA_BN:A:${URLS[A]}', 'blob:$SHA_BLS:A:${URLS[A]}')")
[ "$R" = 4 ] || fail "jobs naming A's blobs: $R of 4 ($(psql_ "SELECT input_uri FROM cuzk.jobs LIMIT 1"))"
[ "$(psql_ "SELECT count(*) FROM cuzk.inputs")" = 0 ] || fail "witnesses stored in the database"
[ -f "$T/A/spool/$SHA_BN.wtns" ] && [ -f "$T/A/spool/$SHA_BLS.wtns" ] || fail "A's spool lacks the blobs: $(ls "$T/A/spool")"
[ "$(ls "$T/A/spool" | wc -l)" = 2 ] || fail "A's spool holds other files: $(ls "$T/A/spool")"
note "4 jobs accepted by A name blob:<sha256>:A:${URLS[A]}; 2 files in A's spool, none in the database"

code() { curl -s -o "$T/blob" -w '%{http_code}' "$@"; }
B_URL="${URLS[A]}/v1/blobs"
[ "$(code "$B_URL/$SHA_BN")" = 401 ] || fail "a blob without a token was not refused"
[ "$(code -H "Authorization: Bearer wrong" "$B_URL/$SHA_BN")" = 401 ] || fail "a wrong cluster token was not refused"
[ "$(code -H "Authorization: Bearer $CTOK" "$B_URL/${SHA_BN^^}")" = 404 ] || fail "an upper-case hash was served"
[ "$(code -H "Authorization: Bearer $CTOK" "$B_URL/$(printf '%064d' 0)")" = 404 ] || fail "an unknown hash was not 404"
[ "$(code -H "Authorization: Bearer $CTOK" --path-as-is "$B_URL/../../spool/$SHA_BN.wtns")" = 404 ] || fail "a path was followed"
[ "$(code -H "Authorization: Bearer $CTOK" "$B_URL/$SHA_BN.wtns")" = 404 ] || fail "a file name was served"
[ "$(code -H "Authorization: Bearer $CTOK" -X POST "$B_URL/$SHA_BN")" = 405 ] || fail "POST to a blob was not 405"
[ "$(code -H "Authorization: Bearer $CTOK" "$B_URL/$SHA_BN")" = 200 ] || fail "the blob was not served with the cluster token"
[ "$(sha256sum <"$T/blob" | cut -d' ' -f1)" = "$SHA_BN" ] || fail "the served blob is not the witness"
note "GET /v1/blobs: 401 without / with a wrong token, 404 for bad, unknown or path names, 405 for POST, 200 and the bytes with the cluster token"

# ---- the cluster view (any host shows every host, from the database) ----
FIRST=$(head -n 1 "$T/jobs" | cut -d' ' -f1)
ok "admit 1 on B" on B "$CUZK" workers admit 1
wait_held B "$FIRST"
ok "status on C" on C "$CUZK" status
ST=$(cat "$T/out")
[ "$(echo "$ST" | jget cluster.hosts.length)" = 3 ] || fail "cluster view hosts: $(echo "$ST" | jget cluster)"
R=$(echo "$ST" | node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{const s=JSON.parse(d);
  console.log(s.cluster.hosts.map(h=>[h.id,h.alive,h.gpus,h.slots,h.leases,h.url||"-"].join(":")).join(" ")+" | "+
  [s.cluster.leases,s.queue.normal,s.running].join(" "))})')
[ "$R" = "A:true:0:1:0:${URLS[A]} B:true:0:1:1:${URLS[B]} C:true:0:1:0:- | 1 3 1" ] || fail "cluster view: $R"
note "cuzk status on C: hosts A, B, C alive (GPUs, slots, URLs), B holding 1 lease, 3 queued normal + 1 running in the cluster"

# ---- 2: B proves what A holds ----
ok "resume B" on B "$CUZK" workers resume
n=0
while read -r id c; do
  n=$((n + 1))
  ok "await $id on C" on C "$CUZK" await --timeout 120 "$id" "$T/p$n.json" "$T/pub$n.json"
  ok "verify $id" "$CUZK" verify "$DATA/$c/mul.vkey.json" "$T/pub$n.json" "$T/p$n.json"
  if [ $n -le 2 ]; then
    "$SNARKJS" groth16 verify "$DATA/$c/mul.vkey.json" "$T/pub$n.json" "$T/p$n.json" >"$T/sj" 2>&1 && grep -q 'OK!' "$T/sj" ||
      fail "snarkjs rejected the proof of $id ($c)"
  fi
done <"$T/jobs"
R=$(psql_ "SELECT string_agg(DISTINCT host_id || ':' || outcome, ',') FROM cuzk.attempts")
[ "$R" = "B:done" ] || fail "attempts: $R (expected every one B:done)"
grep -q "event=blob_served sha256=$SHA_BN" "$T/daemon-A.log" || fail "A did not serve the bn128 blob"
grep -q "event=blob_served sha256=$SHA_BLS" "$T/daemon-A.log" || fail "A did not serve the bls12-381 blob"
spool_empty() { [ -z "$(ls "$T/A/spool")" ]; }
wait_for "A's sweep of the blobs no live job names" spool_empty
grep -q "event=blobs_swept removed=" "$T/daemon-A.log" || fail "A did not log its sweep"
wait_sql "SELECT count(*) FROM cuzk.host_keys WHERE host_id = 'B'" 2 "B's resident keys"
ok "status on A" on A "$CUZK" status
R=$(jget cluster.hosts.1.keys <"$T/out")
[ "$R" = "$(psql_ "SELECT json_agg(key_id ORDER BY key_id) FROM cuzk.host_keys WHERE host_id = 'B'" | tr -d ' ')" ] ||
  fail "B's resident keys in A's view: $R"
note "B fetched A's blobs (hash checked), 4 proofs verified (cuzk verify, snarkjs 2), A's view shows B's 2 resident keys; A swept both blobs after the jobs ended"

# ---- 3: a blob gone for good ----
ok "pause B" on B "$CUZK" workers pause
ok "submit a job to A" on A "$CUZK" submit "$DATA/bn128/mul.zkey" "$DATA/bn128/mul.wtns"
G=$(cat "$T/out")
rm -f "$T/A/spool/$SHA_BN.wtns"
ok "resume B" on B "$CUZK" workers resume
on B "$CUZK" await --timeout 120 "$G" "$T/pg.json" "$T/pubg.json" >"$T/out" 2>"$T/err" && fail "a job without its witness succeeded"
R=$(psql_ "SELECT state || ':' || attempt FROM cuzk.jobs WHERE id = '$G'")
[ "$R" = "failed:1" ] || fail "the job whose blob is gone: $R (expected failed:1)"
E=$(job B "$G" | jget error)
case $E in *"404"*"gone"*) ;; *) fail "the error of the job whose blob is gone: $E" ;; esac
[ "$(echo "$E" | wc -l)" = 1 ] || fail "the error is not one line"
note "a blob deleted from A's spool: the job failed at once: $E"

# ---- 4: a shared directory ----
ok "pause B" on B "$CUZK" workers pause   # the blob stays until its job ends
curl -sS -o "$T/c.out" -w '%{http_code}' -X POST -T "$DATA/bls12381/mul.wtns" -H 'Content-Type: application/octet-stream' \
  "${URLS[C]}/v1/jobs?key_path=$DATA/bls12381/mul.zkey" >"$T/c.code" || fail "the upload to C: curl failed"
[ "$(cat "$T/c.code")" = 201 ] || fail "the upload to C: HTTP $(cat "$T/c.code"): $(cat "$T/c.out")"
S=$(jget id <"$T/c.out")
[ -f "$T/shared/C/$SHA_BLS.wtns" ] || fail "C's blob is not in the shared directory: $(ls -a "$T/shared/C")"
[ "$(sha256sum <"$T/shared/C/$SHA_BLS.wtns" | cut -d' ' -f1)" = "$SHA_BLS" ] || fail "C's blob is not the witness"
[ -z "$(ls -a "$T/C/spool" "$T/shared/C" | grep -E '^\.(upload-|.*\.tmp$)')" ] ||
  fail "C left an upload or a temporary file: $(ls -a "$T/C/spool" "$T/shared/C")"
ok "resume B" on B "$CUZK" workers resume
[ "$(psql_ "SELECT input_uri FROM cuzk.jobs WHERE id = '$S'")" = "blob:$SHA_BLS:C:" ] || fail "C's job: $(psql_ "SELECT input_uri FROM cuzk.jobs WHERE id = '$S'")"
ok "await $S on A" on A "$CUZK" await --timeout 120 "$S" "$T/ps.json" "$T/pubs.json"
ok "verify $S" "$CUZK" verify "$DATA/bls12381/mul.vkey.json" "$T/pubs.json" "$T/ps.json"
[ "$(psql_ "SELECT host_id || ':' || outcome FROM cuzk.attempts WHERE job_id = '$S'")" = "B:done" ] || fail "C's job was not done by B"
note "C's streamed witness put in <shared_dir>/C/ ($SHARED_FS), read by B from there, proof verified"

# ---- 4b: a large streamed witness is renamed into the blob store, never read ----
# mul.wtns with a 64 MiB section of its own appended (readers skip unknown
# sections: the same witness for the key). A keeps it as a blob without a
# second copy in memory: its peak RSS stays far below the body's size.
BIG=$((64 << 20))
node -e 'const fs=require("fs");const w=fs.readFileSync(process.argv[1]);const b=Buffer.alloc(12);
  b.writeUInt32LE(3,0);b.writeBigUInt64LE(BigInt(process.argv[3]),4);const h=Buffer.from(w);
  h.writeUInt32LE(w.readUInt32LE(8)+1,8);const f=fs.openSync(process.argv[2],"w");fs.writeSync(f,h);
  fs.writeSync(f,b);const z=Buffer.alloc(1<<20,7);for(let i=0;i<Number(process.argv[3])>>20;i++)fs.writeSync(f,z);
  fs.closeSync(f)' "$DATA/bn128/mul.wtns" "$T/big.wtns" $BIG || fail "cannot write the large witness"
SHA_BIG=$(sha256sum <"$T/big.wtns" | cut -d' ' -f1)
ok "pause B" on B "$CUZK" workers pause
R0=$(rss_kb "${DPIDS[A]}")
curl -sS -o "$T/big.out" -w '%{http_code}' -X POST -T "$T/big.wtns" -H 'Content-Type: application/octet-stream' \
  "${URLS[A]}/v1/jobs?key_path=$DATA/bn128/mul.zkey" >"$T/big.code" || fail "the large upload: curl failed"
[ "$(cat "$T/big.code")" = 201 ] || fail "the large upload: HTTP $(cat "$T/big.code"): $(cat "$T/big.out")"
L=$(jget id <"$T/big.out")
H1=$(awk '/^VmHWM/{print $2}' "/proc/${DPIDS[A]}/status")
[ "$(psql_ "SELECT input_uri FROM cuzk.jobs WHERE id = '$L'")" = "blob:$SHA_BIG:A:${URLS[A]}" ] ||
  fail "the large job: $(psql_ "SELECT input_uri FROM cuzk.jobs WHERE id = '$L'")"
[ -f "$T/A/spool/$SHA_BIG.wtns" ] || fail "A's spool lacks the large blob: $(ls -a "$T/A/spool")"
[ -z "$(ls -a "$T/A/spool" | grep '^\.upload-')" ] || fail "the upload file stayed: $(ls -a "$T/A/spool")"
ok "resume B" on B "$CUZK" workers resume
ok "await $L on C" on C "$CUZK" await --timeout 120 "$L" "$T/pl.json" "$T/publ.json"
"$SNARKJS" groth16 verify "$DATA/bn128/mul.vkey.json" "$T/publ.json" "$T/pl.json" >"$T/sj" 2>&1 && grep -q 'OK!' "$T/sj" ||
  fail "snarkjs rejected the proof of the large witness"
H2=$(awk '/^VmHWM/{print $2}' "/proc/${DPIDS[A]}/status")
grow=$(( (H2 > H1 ? H2 : H1) - R0 ))
note "a $((BIG >> 20)) MiB streamed witness: a blob renamed from the upload, B proved it (snarkjs OK); A's RSS ${R0} kB before, peak ${H1} kB after accepting, ${H2} kB after serving it (+${grow} kB)"
[ $((grow * 1024)) -lt $((BIG / 4)) ] || fail "A's peak RSS grew by ${grow} kB for a $((BIG >> 20)) MiB witness (a copy in memory?)"

# ---- 5: the owner dies ----
ok "pause B" on B "$CUZK" workers pause
ok "submit a job to A" on A "$CUZK" submit "$DATA/bn128/mul.zkey" "$DATA/bn128/mul.wtns"
D=$(cat "$T/out")
kill -9 "${DPIDS[A]}"; wait "${DPIDS[A]}" 2>/dev/null
ok "resume B" on B "$CUZK" workers resume
wait_sql "SELECT state FROM cuzk.jobs WHERE id = '$D'" failed "the job whose owner died, failed"
R=$(psql_ "SELECT state || ':' || attempt FROM cuzk.jobs WHERE id = '$D'")
[ "$R" = "failed:3" ] || fail "the job whose owner died: $R (expected failed:3)"
R=$(psql_ "SELECT string_agg(attempt || ':' || outcome, ',' ORDER BY attempt) FROM cuzk.attempts WHERE job_id = '$D'")
[ "$R" = "1:requeued,2:requeued,3:failed" ] || fail "attempts of the job whose owner died: $R"
E=$(job B "$D" | jget error)
case $E in *"${URLS[A]}/v1/blobs/$SHA_BN"*) ;; *) fail "the error does not name the blob's URL: $E" ;; esac
[ "$(grep -c "event=witness_fetch_failed job=$D" "$T/daemon-B.log")" = 3 ] || fail "B did not log 3 failed fetches"
note "A dead: B tried its blob 3 times (requeued between), then failed the job: $E"

# ---- 6: keys by content id ----
cp "$DATA/bn128/linear.zkey" "$T/k1/linear.zkey"
ok "pause B" on B "$CUZK" workers pause
ok "submit a linear job to C" on C "$CUZK" submit "$T/k1/linear.zkey" "$DATA/bn128/linear.wtns"
K=$(cat "$T/out")
mv "$T/k1/linear.zkey" "$T/keysB/linear.zkey"
ok "resume B" on B "$CUZK" workers resume
ok "await $K on C" on C "$CUZK" await --timeout 120 "$K" "$T/pk.json" "$T/pubk.json"
ok "verify $K" "$CUZK" verify "$DATA/bn128/linear.vkey.json" "$T/pubk.json" "$T/pk.json"
[ "$(psql_ "SELECT host_id || ':' || outcome FROM cuzk.attempts WHERE job_id = '$K'")" = "B:done" ] || fail "the linear job was not done by B"
note "a key moved from the job's path into B's keys.dirs: B found it by name and content id, proof verified"
cp "$DATA/bn128/nopub.zkey" "$T/k2/nopub.zkey"
ok "pause B" on B "$CUZK" workers pause
ok "submit a nopub job to C" on C "$CUZK" submit "$T/k2/nopub.zkey" "$DATA/bn128/nopub.wtns"
M=$(cat "$T/out")
mv "$T/k2" "$T/k2.away"   # the same file (inode, mtime) comes back below
ok "resume B" on B "$CUZK" workers resume
wait_for "B to report the missing key" grep -q "event=key_missing job=$M" "$T/daemon-B.log"
R=$(psql_ "SELECT state || ':' || attempt FROM cuzk.jobs WHERE id = '$M'")
[ "$R" = "queued:0" ] || fail "the job whose key B lacks: $R (expected queued:0)"
mv "$T/k2.away" "$T/k2"
ok "resume C" on C "$CUZK" workers resume
ok "await $M on B" on B "$CUZK" await --timeout 120 "$M" "$T/pm.json" "$T/pubm.json"
ok "verify $M" "$CUZK" verify "$DATA/bn128/nopub.vkey.json" "$T/pubm.json" "$T/pm.json"
R=$(psql_ "SELECT string_agg(attempt || ':' || host_id || ':' || outcome, ',') FROM cuzk.attempts WHERE job_id = '$M'")
[ "$R" = "1:C:done" ] || fail "attempts of the job whose key B lacked: $R (expected 1:C:done)"
note "a job whose key B cannot find: B left it queued (key_missing), C ran it: $R"

kill -TERM "${DPIDS[B]}" "${DPIDS[C]}"
wait "${DPIDS[B]}" || fail "B exited $? after SIGTERM"
wait "${DPIDS[C]}" || fail "C exited $? after SIGTERM"
echo "PASS $TAG"
