#!/usr/bin/env bash
# cuzk bench prove --porep (the PoRep-shaped key made in memory) and
# cuzk setup --gpu. Without a GPU: a small --porep run proves and verifies
# on the CPU and prints the shape; --gpu exits 8 with one line and writes
# nothing. With one: the same on the GPU, and a key from setup --gpu proves
# and verifies.
# Usage: porep.sh <cuzk> <source dir>
set -u
CUZK=$1
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { [ "$2" = "$3" ] && echo "ok   $1" || fail "$1: exit $3, expected $2"; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$CUZK" bench prove --porep --scale 11 --workers 1 --proofs 1 --seed 5 >"$T/out" 2>"$T/err"
check "bench --porep (CPU)" 0 $?
grep -q "^porep 2^11 bls12381: .* terms a row A 2\.[34][0-9] B 1\.00 C 2\.[12][0-9]; private wires in B 2[0-9]\.[0-9] %" "$T/out" ||
    fail "shape line: $(head -1 "$T/out")"
grep -q "^1 " "$T/out" || fail "no row for W = 1: $(cat "$T/out" "$T/err")"

for args in "--porep --scale 9" "--porep --scale 28" "--porep x.zkey" "--porep --curve nope" "--scale 12 a.zkey b.wtns" \
    "--porep --seed x" "--porep --gpu=x" "--porep --gpu=-1" "--porep --gpu=1x"; do
    # shellcheck disable=SC2086
    "$CUZK" bench prove $args >/dev/null 2>"$T/err"
    check "bench prove $args: usage error" 1 $?
    [ "$(wc -l <"$T/err")" = 1 ] || fail "bench prove $args: more than one line: $(cat "$T/err")"
done

# the device plan of the full-size key, without making it
"$CUZK" plan --porep --host-mem 1T --gpu-mem 140G >"$T/plan" 2>&1
check "plan --porep --gpu-mem 140G" 0 $?
grep -q "^porep 2^27: bls12381, domain 2^27, 130170221 wires (327 public)" "$T/plan" || fail "plan header: $(head -1 "$T/plan")"
# (with a GPU present the budget is capped by its free memory: tier 2)
grep -q "^tier     [12]:" "$T/plan" || fail "140G: tier 1 or 2 expected: $(grep tier "$T/plan")"
"$CUZK" plan --porep --host-mem 1T --gpu-mem 16G >"$T/plan" 2>&1
check "plan --porep --gpu-mem 16G" 0 $?
grep -q "^tier     6:" "$T/plan" || fail "16G: tier 6 expected: $(grep tier "$T/plan")"
# an 8 GiB card (and its budget less the 512 MiB margin): tier 7, the witness
# on the host, fits with room to spare; 4 GiB does not (exit 6, one line)
for mem in 8G 7680M; do
    "$CUZK" plan --porep --host-mem 1T --gpu-mem $mem --workers 2 >"$T/plan" 2>&1
    check "plan --porep --gpu-mem $mem" 0 $?
    grep -q "^tier     7: key partly streamed, witness on the host" "$T/plan" ||
        fail "$mem: tier 7 expected: $(grep tier "$T/plan")"
    grep -q "^least    4.42[12] GiB: the least budget a proof with this key fits (tier 7); 3.[0-9]* GiB to spare" "$T/plan" ||
        fail "$mem: least line: $(grep least "$T/plan")"
done
"$CUZK" plan --porep --host-mem 1T --gpu-mem 4G >"$T/plan" 2>"$T/err"
check "plan --porep --gpu-mem 4G" 6 $?
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "needs at least 4.42 GiB (with tier 7; the smallest tier, 7, keeps" "$T/err" ||
    fail "4G: message: $(cat "$T/err")"
# the host plan beside it: a 125 GiB host holds the mapped key's proofs at
# every card size with 2 workers (streamed MSM bases page-locked); a 64 GiB
# host too, the streamed bases staged through page-locked chunks where
# locked ones do not fit; 40 GiB at 16G holds one worker (a warning line,
# the plan for 1), 30 GiB none (exit 6, one line naming host memory)
for mem in 80G 24G 16G 8G; do
    "$CUZK" plan --porep --porep-cache --host-mem 125G --gpu-mem $mem --workers 2 >"$T/plan" 2>"$T/err"
    check "plan --porep --host-mem 125G --gpu-mem $mem" 0 $?
    grep -q "^host plan (GPU prover, 2 workers, key mapped from its file):" "$T/plan" || fail "$mem: host plan header"
    grep -q "^host     [0-9.]* GiB of 125.000 GiB" "$T/plan" || fail "$mem: host line: $(grep '^host ' "$T/plan")"
    grep -q "^  key .*GiB of it page-locked (streamed MSM bases)" "$T/plan" ||
        fail "$mem: key line: $(grep '^  key ' "$T/plan")"
    grep -q "^binds    device memory" "$T/plan" || fail "$mem: binds: $(grep '^binds' "$T/plan")"
    "$CUZK" plan --porep --porep-cache --host-mem 64G --gpu-mem $mem --workers 2 --fixed-workers >"$T/plan" 2>"$T/err"
    check "plan --porep --host-mem 64G --gpu-mem $mem" 0 $?
    grep -q "^host     [1-5][0-9].[0-9]* GiB of 64.000 GiB" "$T/plan" || fail "$mem 64G: host: $(grep '^host ' "$T/plan")"
    if [ $mem != 80G ]; then
        grep -q "^  key .*streamed MSM bases staged through [0-9.]* GiB of page-locked chunks" "$T/plan" ||
            fail "$mem 64G: key line: $(grep '^  key ' "$T/plan")"
    fi
done
# asked: staged on the 125 GiB host; locked on the 64 GiB one lowers the workers
"$CUZK" plan --porep --porep-cache --host-mem 125G --gpu-mem 8G --workers 2 --stage-bases yes >"$T/plan" 2>"$T/err"
check "plan --porep --gpu-mem 8G --stage-bases yes" 0 $?
grep -q "^host     52.[0-9]* GiB of 125.000 GiB" "$T/plan" || fail "stage-bases yes: host: $(grep '^host ' "$T/plan")"
"$CUZK" plan --porep --porep-cache --host-mem 64G --gpu-mem 8G --workers 2 --stage-bases no >"$T/plan" 2>"$T/err"
check "plan --porep --host-mem 64G --gpu-mem 8G --stage-bases no" 6 $?
grep -q "no tier fits the host memory with 1 worker" "$T/err" || fail "stage-bases no at 64G: $(cat "$T/err")"
"$CUZK" plan --porep --porep-cache --stage-bases maybe >/dev/null 2>"$T/err"
check "plan --stage-bases maybe: usage error" 1 $?
"$CUZK" plan --porep --porep-cache --host-mem 40G --gpu-mem 16G --workers 2 >"$T/plan" 2>"$T/err"
check "plan --porep --host-mem 40G" 0 $?
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "^Warning: porep 2^27: 2 workers do not fit .*; planned with 1" "$T/err" ||
    fail "40G: warning: $(cat "$T/err")"
grep -q "^binds    host memory: 1 of 2 workers fit" "$T/plan" || fail "40G: binds: $(grep '^binds' "$T/plan")"
"$CUZK" plan --porep --porep-cache --host-mem 40G --gpu-mem 16G --workers 2 --fixed-workers >"$T/plan" 2>"$T/err"
check "plan --porep --host-mem 40G --fixed-workers" 6 $?
"$CUZK" plan --porep --porep-cache --host-mem 30G --gpu-mem 16G >"$T/plan" 2>"$T/err"
check "plan --porep --host-mem 30G" 6 $?
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "no tier fits the host memory with 1 worker: the leanest needs .* GiB (tier 7, key mapped), 30.00 GiB are available" "$T/err" ||
    fail "30G: message: $(cat "$T/err")"
# the key held (made in memory, no cache) needs its 88 GiB more
"$CUZK" plan --porep --host-mem 125G --gpu-mem 80G --workers 1 >"$T/plan" 2>"$T/err"
check "plan --porep (held) --host-mem 125G" 0 $?
grep -q "^host plan (GPU prover, 1 worker, key held in memory):" "$T/plan" || fail "held: host plan header"
"$CUZK" plan --cpu --porep --porep-cache --scale 16 --host-mem 4G --workers 2 >"$T/plan" 2>"$T/err"
check "plan --cpu" 0 $?
grep -q "^host plan (CPU prover, 2 workers, key mapped from its file):" "$T/plan" || fail "cpu: host plan header"
for args in "--porep x.zkey" "--porep --scale 9 --gpu-mem 1G" "--scale 20 --gpu-mem 1G a.zkey"; do
    # shellcheck disable=SC2086
    "$CUZK" plan $args >/dev/null 2>"$T/err"
    check "plan $args: usage error" 1 $?
done

"$CUZK" gen --curve bls12381 --constraints 2000 --public 2 --seed 3 "$T/c.r1cs" "$T/w.wtns" >/dev/null 2>&1 ||
    fail "gen"
"$CUZK" setup --gpu=x "$T/c.r1cs" "$T/g.zkey" 2>/dev/null
check "setup --gpu=x: usage error" 1 $?
"$CUZK" setup --gpu "$T/c.r1cs" "$T/g.zkey" 2>"$T/err"
rc=$?
if [ $rc = 8 ]; then
    echo "ok   setup --gpu without a GPU: exit 8"
    grep -q "^Error: setup: no CUDA device 0" "$T/err" || fail "setup --gpu message: $(cat "$T/err")"
    [ -e "$T/g.zkey" ] && fail "setup --gpu wrote a key without a GPU"
    "$CUZK" bench prove --porep --scale 11 --gpu >/dev/null 2>"$T/err"
    check "bench --porep --gpu without a GPU" 8 $?
else
    check "setup --gpu" 0 $rc
    "$CUZK" export-vk "$T/g.zkey" "$T/vk.json" >/dev/null &&
        "$CUZK" prove "$T/g.zkey" "$T/w.wtns" "$T/p.json" "$T/pub.json" &&
        "$CUZK" verify "$T/vk.json" "$T/pub.json" "$T/p.json" >/dev/null
    check "key of setup --gpu proves and verifies" 0 $?
    "$CUZK" bench prove --porep --scale 13 --gpu --workers 1,2 --proofs 2 >"$T/out" 2>"$T/err"
    check "bench --porep --gpu" 0 $?
    grep -q "points on the GPU" "$T/out" || fail "bench --porep --gpu: $(cat "$T/out" "$T/err")"
fi
[ $fails = 0 ] && echo "all ok" || { echo "$fails failure(s)"; exit 1; }
