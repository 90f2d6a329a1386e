#!/usr/bin/env bash
# cuzk prove --gpu / --gpu=auto / --gpu-mem / several triples. Without a GPU:
# --gpu exits 8 with one line, --gpu=auto proves on the CPU and says so.
# With one: GPU proofs are byte-identical to the CPU's (r = s = 0), verify,
# and a budget nothing fits is refused (exit 6) before any output.
# Usage: prove_gpu.sh <cuzk> <source dir> [constraints]
set -u
CUZK=$1
N=${3:-3000}
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { [ "$2" = "$3" ] && echo "ok   $1" || fail "$1: exit $3, expected $2"; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for curve in bn128 bls12381; do
    D=$T/$curve
    mkdir -p "$D"
    "$CUZK" gen --curve $curve --constraints $N --public 2 --seed 7 "$D/c.r1cs" "$D/w.wtns" >/dev/null 2>&1 &&
        "$CUZK" setup "$D/c.r1cs" "$D/c.zkey" >/dev/null 2>&1 &&
        "$CUZK" export-vk "$D/c.zkey" "$D/vk.json" >/dev/null 2>&1 || { fail "$curve: gen/setup"; continue; }
    # CPU reference (deterministic)
    "$CUZK" prove --insecure-zero-rs "$D/c.zkey" "$D/w.wtns" "$D/cpu.json" "$D/cpu_pub.json"
    check "$curve cpu prove" 0 $?
    "$CUZK" prove --gpu --insecure-zero-rs "$D/c.zkey" "$D/w.wtns" "$D/gpu.json" "$D/gpu_pub.json" 2>"$D/err"
    rc=$?
    if [ $rc = 8 ]; then
        [ "$(wc -l <"$D/err")" = 1 ] && grep -q "^Error: --gpu: no CUDA device" "$D/err" || fail "$curve no-GPU message: $(cat "$D/err")"
        [ -e "$D/gpu.json" ] && fail "$curve: output written without a GPU"
        echo "ok   $curve --gpu without a GPU: exit 8"
        "$CUZK" prove --gpu=auto --insecure-zero-rs "$D/c.zkey" "$D/w.wtns" "$D/auto.json" "$D/auto_pub.json" 2>"$D/err"
        check "$curve --gpu=auto on the CPU" 0 $?
        grep -q "proving on the CPU" "$D/err" || fail "$curve --gpu=auto did not say CPU: $(cat "$D/err")"
        cmp -s "$D/cpu.json" "$D/auto.json" || fail "$curve --gpu=auto proof differs"
    else
        check "$curve gpu prove" 0 $rc
        cmp -s "$D/cpu.json" "$D/gpu.json" && echo "ok   $curve GPU proof = CPU proof" || fail "$curve GPU proof differs from the CPU's"
        cmp -s "$D/cpu_pub.json" "$D/gpu_pub.json" || fail "$curve public.json differs"
        "$CUZK" verify "$D/vk.json" "$D/gpu_pub.json" "$D/gpu.json" >/dev/null
        check "$curve GPU proof verifies" 0 $?
        # random r, s: a different proof that verifies; two triples, key loaded once
        "$CUZK" prove --gpu "$D/c.zkey" "$D/w.wtns" "$D/g1.json" "$D/g1p.json" "$D/w.wtns" "$D/g2.json" "$D/g2p.json"
        check "$curve GPU two triples" 0 $?
        for k in 1 2; do
            "$CUZK" verify "$D/vk.json" "$D/g${k}p.json" "$D/g$k.json" >/dev/null || fail "$curve triple $k does not verify"
        done
        cmp -s "$D/g1.json" "$D/g2.json" && fail "$curve: two random proofs are equal"
        # 2 workers' plan at a cap that streams the key
        "$CUZK" prove --gpu --gpu-mem 600M --insecure-zero-rs "$D/c.zkey" "$D/w.wtns" "$D/cap.json" "$D/cap_pub.json"
        check "$curve GPU at 600M" 0 $?
        cmp -s "$D/cpu.json" "$D/cap.json" || fail "$curve GPU proof at 600M differs"
        "$CUZK" prove --gpu --gpu-mem 100M "$D/c.zkey" "$D/w.wtns" "$D/no.json" "$D/no_pub.json" 2>"$D/err"
        check "$curve GPU at 100M refused" 6 $?
        [ -e "$D/no.json" ] && fail "$curve: output written after a refused plan"
        "$CUZK" prove --gpu=auto --insecure-zero-rs "$D/c.zkey" "$D/w.wtns" "$D/auto.json" "$D/auto_pub.json" 2>"$D/err"
        check "$curve --gpu=auto" 0 $?
        grep -q "proving on GPU" "$D/err" || fail "$curve --gpu=auto did not say GPU: $(cat "$D/err")"
    fi
    # several triples on the CPU: the same bytes as one at a time
    "$CUZK" prove --insecure-zero-rs "$D/c.zkey" "$D/w.wtns" "$D/m1.json" "$D/m1p.json" "$D/w.wtns" "$D/m2.json" "$D/m2p.json"
    check "$curve cpu two triples" 0 $?
    cmp -s "$D/cpu.json" "$D/m1.json" && cmp -s "$D/cpu.json" "$D/m2.json" || fail "$curve: triples differ from the single proof"
    # a bad second witness: the first triple is written, the second nothing
    head -c 100 "$D/w.wtns" >"$D/bad.wtns"
    "$CUZK" prove --insecure-zero-rs "$D/c.zkey" "$D/w.wtns" "$D/b1.json" "$D/b1p.json" "$D/bad.wtns" "$D/b2.json" "$D/b2p.json" 2>/dev/null
    check "$curve bad second triple" 3 $?
    [ -e "$D/b1.json" ] && [ ! -e "$D/b2.json" ] || fail "$curve: outputs after a bad second triple"
done
Z=$T/bn128/c.zkey
W=$T/bn128/w.wtns
"$CUZK" prove --gpu=x "$Z" "$W" "$T/x.json" "$T/xp.json" 2>/dev/null; check "bad --gpu value" 1 $?
"$CUZK" prove --gpu-mem 1G "$Z" "$W" "$T/x.json" "$T/xp.json" 2>/dev/null; check "--gpu-mem without --gpu" 1 $?
"$CUZK" prove "$Z" "$W" "$T/x.json" 2>/dev/null; check "incomplete triple" 1 $?
[ $fails = 0 ] && echo "all passed" || echo "$fails failed"
[ $fails = 0 ]
