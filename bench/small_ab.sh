#!/usr/bin/env bash
# A/B of two cuzk builds' small proofs on one GPU, in one device call: the
# new build's test_gpu_g16 and test_porep (every GPU MSM and proof against
# the CPU's), then `cuzk bench prove --porep --scale LG [--curve bn128] --gpu
# --workers 1 --proofs N --seed 1` for each size and curve, the old and the
# new binary alternated twice (old, new, new, old: each runs first once),
# then one run of the new binary per curve at the first size with --trace
# (Perfetto JSON: the host's phases and the device's, so what follows the
# last kernel can be read off), and one table of the W = 1 rows (latency ms,
# s per proof, kernels ms, latency / kernels; old and new, two figures each).
#
# usage (on the device machine, binaries built elsewhere):
#   OLD=dir/with/old/cuzk NEW=dir/with/new/cuzk bench/small_ab.sh
# env: SCALES ("20 22"), PROOFS (12), TESTS (1; 0: none), DEADLINE (560:
# a call's 10 minutes less the start; a run that would start past it is
# skipped and says so), OUT (./gpu-out). NEW holds test_gpu_g16 and
# test_porep when TESTS=1; .gpu-deps/lib (tools/gpu_deps_pack.sh) goes on
# LD_LIBRARY_PATH for their cmocka and cJSON.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=${OLD:?OLD: the directory of the old cuzk}
NEW=${NEW:?NEW: the directory of the new cuzk}
SCALES=${SCALES:-20 22}
PROOFS=${PROOFS:-12}
TESTS=${TESTS:-1}
DEADLINE=${DEADLINE:-560}
O=${OUT:-$ROOT/gpu-out}
# shellcheck source=bench/ab_common.sh
. "$ROOT/bench/ab_common.sh"
ab_start small_ab

if [ "$TESTS" = 1 ]; then
    for t in test_gpu_g16 test_porep; do
        el "$t"
        timeout 200 "$NEW/$t" >"$O/$t.txt" 2>&1
        rc=$?
        grep -E '^# .*(tier|order|MSM)|PASSED|FAILED|SKIPPED' "$O/$t.txt" | tail -20
        echo "$t: rc $rc"
    done
fi

# one bench run: tag (old|new), curve (bls12381|bn128), lg, extra args
run() {
    local tag=$1 curve=$2 lg=$3
    shift 3
    if [ "$(left)" -lt 30 ]; then
        el "skipped (deadline): $tag $curve 2^$lg"
        return
    fi
    local bin=$OLD/cuzk
    [ "$tag" = new ] && bin=$NEW/cuzk
    el "$tag $curve 2^$lg $*"
    timeout "$(left)" "$bin" bench prove --porep --scale "$lg" --curve "$curve" --gpu --workers 1 --proofs "$PROOFS" \
        --seed 1 "$@" >"$O/run.txt" 2>&1
    cat "$O/run.txt"
    [ $# -gt 0 ] && return # the traced runs stay out of the table
    # the W = 1 row: W latency_ms s_per_proof kernels_ms lat/kern ...
    awk -v t="$tag" -v c="$curve" -v l="$lg" '$1 == "1" && NF > 5 { print c, l, t, $2, $3, $4, $5 }' "$O/run.txt" \
        >>"$O/rows.txt"
}

: >"$O/rows.txt"
for lg in $SCALES; do
    for curve in bn128 bls12381; do
        for tag in old new new old; do run "$tag" "$curve" "$lg"; done
    done
done
set -- $SCALES
for curve in bn128 bls12381; do
    run new "$curve" "$1" --trace "$O/trace-new-$curve-$1.json"
    run old "$curve" "$1" --trace "$O/trace-old-$curve-$1.json"
done

echo "curve lg | latency ms old | new | s/proof old | new | kernels ms old | new | lat/kern old | new"
for lg in $SCALES; do
    for curve in bn128 bls12381; do
        awk -v c="$curve" -v l="$lg" '
            $1 == c && $2 == l { k = $3; lat[k] = lat[k] " " $4; sp[k] = sp[k] " " $5; ke[k] = ke[k] " " $6; r[k] = r[k] " " $7 }
            END { printf "%s 2^%s |%s |%s |%s |%s |%s |%s |%s |%s\n", c, l, lat["old"], lat["new"], sp["old"], sp["new"],
                         ke["old"], ke["new"], r["old"], r["new"] }' "$O/rows.txt"
    done
done
el "done"
