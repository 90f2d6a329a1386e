#!/usr/bin/env bash
# Bellperson mode on a GPU: GPU proofs byte-identical to CPU proofs for fixed
# r, s at every memory-plan tier the sizes reach and with 1 and 2 workers,
# the supraseal-c2 crate's tests with the GPU required, then timings.
#
#   bench/bp_gpu.sh <cuzk-binary> [--sizes "10 12 ..."] [--timed K] [--timed-mem SIZE|least] [--crate DIR]
#
# For each k of --sizes (default "10 12 14 16 18 20"): `cuzk gen` makes a
# BLS12-381 circuit whose bellperson domain is 2^k (2^k - 4 constraints, 3
# public inputs, PoRep-like densities), `cuzk setup --format bellperson` its
# INSECURE parameters; the assignment is proved as 3 partitions in one call
# (--partitions 3, partition i with r = 5 + i, s = 6 + i) on the CPU, the
# reference. Then, for W = 1 and 2 workers (--workers LIST), `cuzk plan --bellperson` is asked
# which tier each of a descending list of --gpu-mem caps gives (the plan is
# arithmetic over the file's counts and the cap, what `cuzk prove` computes),
# and for the first cap of every tier reached (1 resident pre-staged ... 7
# the witness on the host, one page-locked domain vector) plus no cap, the same 3 partitions are
# proved with --gpu --gpu-workers W --gpu-mem CAP: the 3 x 192-byte proofs,
# the 3 x 384-byte in-memory proofs (--raw-proof) and the public inputs must
# equal the CPU's byte for byte (every GPU proof is also verified before it
# is written). A 2^k whose sizes reach no streamed tier (4-7) is reported.
# --crate DIR: `bench/supraseal_crate_device.sh run DIR -n 3 -r 1 16` (the
# crate's tests with the GPU required, then 3 partitions of 2^16 through
# generate_groth16_proofs and start/finish; DIR packed beforehand where cargo
# is: `bench/supraseal_crate_device.sh pack <cuda-build> DIR`). --timed K (default 22; 0: none): one 2^K circuit,
# 3 GPU proofs of 3 partitions with -v (CUZK_TIMING lines), W = 1 and 2;
# --timed-mem SIZE proves them with --gpu-mem SIZE, `least` with the least
# budget `cuzk plan` gives at that W (rounded up to the MiB; at 2^16 and up
# tier 7's), the tier printed first.
# Prints PASS and exits 0 when every comparison holds; FAIL: <what> and 1 at
# the first that does not. Scratch files go to $TMPDIR.
set -uo pipefail
USAGE="usage: bench/bp_gpu.sh <cuzk> [--sizes LIST] [--workers LIST] [--timed K] [--timed-mem SIZE|least] [--crate DIR]"
CUZK=${1:?$USAGE}
shift
SIZES="10 12 14 16 18 20" WORKERS="1 2" TK=22 TMEM= CRATE=
while [ $# -gt 0 ]; do
    case $1 in
    --sizes) SIZES=$2; shift 2 ;;
    --workers) WORKERS=$2; shift 2 ;;
    --timed) TK=$2; shift 2 ;;
    --timed-mem) TMEM=$2; shift 2 ;;
    --crate) CRATE=$2; shift 2 ;;
    *) echo "$USAGE"; exit 1 ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
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

# prove k tag [flags...]: 3 partitions of c$k with fixed r, s into $T/tag.{bin,raw,json}
prove() {
    local k=$1 tag=$2
    shift 2
    "$CUZK" prove -q --format bellperson "$@" --partitions 3 --r 5 --s 6 "$T/c$k.params" "$T/c$k.r1cs" \
        "$T/c$k.wtns" "$T/$tag.bin" "$T/$tag.json" --raw-proof "$T/$tag.raw" 2>"$T/err"
}

same() { # tag: equal to the CPU's
    cmp -s "$T/cpu.bin" "$T/$1.bin" && cmp -s "$T/cpu.raw" "$T/$1.raw" && cmp -s "$T/cpu.json" "$T/$1.json"
}

# tier_of k W cap: the tier `cuzk plan` gives (empty when nothing fits)
tier_of() {
    "$CUZK" plan --bellperson --workers "$2" --gpu-mem "$3" "$T/c$1.params" 2>/dev/null |
        sed -n 's/^tier *\([0-9]\).*/\1/p'
}

# caps from 8 GiB down by 1 %, in MiB (tiers 3 and 6 live in narrow windows)
CAPS=$(awk 'BEGIN { for (m = 8192; m >= 384; m = int(m * 0.99)) printf "%dM ", m }')

for k in $SIZES; do
    make_circuit "$k"
    prove "$k" cpu || fail "2^$k cpu: $(cat "$T/err")"
    streamed=0
    for W in $WORKERS; do
        declare -A seen=()
        runs=("")
        # every cap's tier at once (one `cuzk plan` each, on all cores), then in descending order
        export -f tier_of
        export CUZK T
        # shellcheck disable=SC2016
        printf '%s\n' $CAPS | xargs -P "$(nproc)" -I{} bash -c 'echo "{} $(tier_of '"$k $W"' {})"' >"$T/tiers"
        for cap in $CAPS; do
            t=$(awk -v c="$cap" '$1 == c { print $2 }' "$T/tiers")
            [ -n "$t" ] || break
            [ -n "${seen[$t]:-}" ] && continue
            seen[$t]=$cap
            runs+=("$cap")
        done
        for cap in "${runs[@]}"; do
            if [ -n "$cap" ]; then
                t=$(tier_of "$k" "$W" "$cap")
                capf=(--gpu-mem "$cap")
            else
                t="(no cap)" capf=()
            fi
            [ "${t:-0}" -ge 4 ] 2>/dev/null && streamed=1
            prove "$k" gpu --gpu --gpu-workers "$W" "${capf[@]}" ||
                fail "2^$k W=$W tier $t ${cap:-}: $(cat "$T/err")"
            same gpu || fail "2^$k W=$W tier $t ${cap:-}: GPU proofs differ from the CPU's"
            echo "2^$k W=$W tier $t ${cap:+--gpu-mem $cap}: 3 partitions, GPU == CPU (192 + 384 bytes each)"
        done
        unset seen
    done
    [ $streamed = 1 ] || echo "note: 2^$k reached no streamed tier (4-7) above the least budget"
    rm -f "$T/c$k".*
done

if [ -n "$CRATE" ]; then
    echo "== the supraseal-c2 crate's tests, GPU required ($CRATE)"
    bash "$here/supraseal_crate_device.sh" run "$CRATE" -n 3 -r 1 16 >"$T/crate.log" 2>&1
    rc=$?
    tail -40 "$T/crate.log"
    [ $rc = 0 ] || fail "the crate's tests (exit $rc)"
fi

if [ "$TK" != 0 ]; then
    make_circuit "$TK"
    for W in 1 2; do
        memf=()
        if [ "$TMEM" = least ]; then
            g=$("$CUZK" plan --bellperson --workers "$W" --gpu-mem 1T "$T/c$TK.params" 2>/dev/null |
                sed -n 's/^least *\([0-9.]*\) GiB.*/\1/p')
            [ -n "$g" ] || fail "no least budget for 2^$TK"
            memf=(--gpu-mem "$(awk -v g="$g" 'BEGIN { printf "%dM", int((g + 0.001) * 1024) + 1 }')")
        elif [ -n "$TMEM" ]; then
            memf=(--gpu-mem "$TMEM")
        fi
        [ ${#memf[@]} = 0 ] || echo "-- W=$W ${memf[*]}: tier $(tier_of "$TK" "$W" "${memf[1]}")"
        for i in 1 2 3; do
            echo "-- GPU, W=$W: 3 partitions of 2^$TK, run $i"
            "$CUZK" prove --format bellperson --gpu --gpu-workers "$W" "${memf[@]}" -v -q --partitions 3 \
                "$T/c$TK.params" "$T/c$TK.r1cs" "$T/c$TK.wtns" "$T/t.bin" "$T/t.json" 2>&1 |
                grep -E "CUZK_TIMING phase=(load_zkey|prepare|total)|Error" || fail "timed proof $i"
        done
    done
    echo "-- CPU: 3 partitions of 2^$TK (for comparison)"
    "$CUZK" prove --format bellperson -v -q --partitions 3 "$T/c$TK.params" "$T/c$TK.r1cs" "$T/c$TK.wtns" \
        "$T/t.bin" "$T/t.json" 2>&1 | grep -E "CUZK_TIMING phase=(load_zkey|prepare|total)|Error"
fi
echo PASS
