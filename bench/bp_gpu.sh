#!/usr/bin/env bash
# Bellperson mode on a GPU: GPU proofs equal to CPU proofs for fixed r, s,
# then the timing of GPU proofs of bellperson-shaped circuits.
#
#   bench/bp_gpu.sh <cuzk-binary> [sizes] [timed-size]
#
# sizes (default "10 14 18"): for each k, `cuzk gen` makes a BLS12-381
# circuit whose bellperson domain is 2^k (2^k - 4 constraints, 3 public
# inputs, PoRep-like profile), `cuzk setup --format bellperson` its INSECURE
# parameters, and the same seed is proved on the CPU and with --gpu: the
# 192-byte proofs and the 384-byte in-memory proofs (--raw-proof) must be
# identical. The 2^10 parameters are also proved with --gpu-mem 512M, a budget
# the five MSM handles share in proportion to their bases (the same proof).
# 2^14 is also proved as 3 partitions in one call (--partitions) on both.
# timed-size (default 22): one circuit of 2^k, three GPU proofs with -v: the
# CUZK_TIMING lines (load, prepare, abc, ntt, msm_*, verify, total) of each;
# then 3 partitions in one call (total minus load and prepare = 3 proofs).
# Exit 0 when every comparison holds. Scratch files go to $TMPDIR.
set -uo pipefail
CUZK=${1:?usage: bench/bp_gpu.sh <cuzk> [sizes] [timed-size]}
SIZES=${2:-10 14 18}
TK=${3:-22}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null

make_circuit() { # k -> $T/c$k.{r1cs,wtns,params}
    local k=$1 t0
    t0=$(date +%s%N)
    "$CUZK" gen -q --curve bls12381 --constraints $(((1 << k) - 4)) --public 3 --seed "$k" "$T/c$k.r1cs" "$T/c$k.wtns" ||
        fail "gen 2^$k"
    "$CUZK" setup -q --format bellperson "$T/c$k.r1cs" "$T/c$k.params" 2>/dev/null || fail "setup 2^$k"
    echo "2^$k: circuit + INSECURE parameters in $((($(date +%s%N) - t0) / 1000000)) ms ($(du -h "$T/c$k.params" | cut -f1))"
}

for k in $SIZES; do
    make_circuit "$k"
    for dev in cpu gpu; do
        flag=$([ $dev = gpu ] && echo --gpu)
        "$CUZK" prove -q --format bellperson $flag "$T/c$k.params" "$T/c$k.r1cs" "$T/c$k.wtns" "$T/$dev.bin" \
            "$T/$dev.json" --raw-proof "$T/$dev.raw" --seed 77 2>"$T/err" || fail "2^$k $dev: $(cat "$T/err")"
    done
    cmp "$T/cpu.bin" "$T/gpu.bin" || fail "2^$k: GPU proof differs from the CPU proof"
    cmp "$T/cpu.raw" "$T/gpu.raw" || fail "2^$k: GPU raw proof differs from the CPU raw proof"
    cmp "$T/cpu.json" "$T/gpu.json" || fail "2^$k: public inputs differ"
    echo "2^$k: GPU proof == CPU proof (192 and 384 bytes)"
    if [ "$k" = 14 ]; then # several circuits in one call
        for dev in cpu gpu; do
            flag=$([ $dev = gpu ] && echo --gpu)
            "$CUZK" prove -q --format bellperson $flag --partitions 3 "$T/c$k.params" "$T/c$k.r1cs" "$T/c$k.wtns" \
                "$T/m$dev.bin" "$T/m$dev.json" --r 5 --s 6 2>"$T/err" || fail "2^$k $dev --partitions 3: $(cat "$T/err")"
        done
        cmp "$T/mcpu.bin" "$T/mgpu.bin" || fail "2^$k: 3 GPU partitions differ from the CPU's"
        echo "2^$k: 3 partitions in one call, GPU == CPU"
    fi
    if [ "$k" = 10 ]; then
        "$CUZK" prove -q --format bellperson --gpu --gpu-mem 512M "$T/c$k.params" "$T/c$k.r1cs" "$T/c$k.wtns" \
            "$T/gs.bin" "$T/gs.json" --seed 77 2>"$T/err" || fail "2^$k gpu --gpu-mem 512M: $(cat "$T/err")"
        cmp "$T/cpu.bin" "$T/gs.bin" || fail "2^$k: GPU proof with --gpu-mem 512M differs"
        echo "2^$k: GPU proof with --gpu-mem 512M == CPU proof"
    fi
    rm -f "$T/c$k".*
done

make_circuit "$TK"
for i in 1 2 3; do
    echo "-- GPU proof $i of 2^$TK"
    "$CUZK" prove --format bellperson --gpu -v -q "$T/c$TK.params" "$T/c$TK.r1cs" "$T/c$TK.wtns" "$T/t.bin" \
        "$T/t.json" 2>&1 | grep -E "CUZK_TIMING|Error" || fail "timed proof $i"
done
echo "-- 3 partitions of 2^$TK in one GPU call"
"$CUZK" prove --format bellperson --gpu -v -q --partitions 3 "$T/c$TK.params" "$T/c$TK.r1cs" "$T/c$TK.wtns" \
    "$T/t.bin" "$T/t.json" 2>&1 | grep -E "CUZK_TIMING phase=(load_zkey|prepare|total)|Error" || fail "3 partitions"
echo "-- CPU proof of 2^$TK (for comparison)"
"$CUZK" prove --format bellperson -v -q "$T/c$TK.params" "$T/c$TK.r1cs" "$T/c$TK.wtns" "$T/t.bin" "$T/t.json" 2>&1 |
    grep -E "CUZK_TIMING|Error"
echo PASS
