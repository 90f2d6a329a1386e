#!/usr/bin/env bash
# MSM tuning runs on the device machine (prebuilt binaries, see
# tools/gpu_dist.sh): DIST holds the binaries under test, BASE (optional) a
# bench_gpu of the previous state for same-minute before/after figures.
# Everything is logged under $OUT (or ./gpu-out).
#
# usage: tools/gpu_msm_run.sh compare     MSM test, micro-benchmarks, 2^24 MSM
#                                          base vs new with phase profiles, knobs
#        tools/gpu_msm_run.sh final       GPU tests, selftest, sanitizers, MSM
#                                          table 2^22..2^26 (base and new)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=${DIST:-$ROOT/build-gpu-msm/dist}
BASE=${BASE:-$ROOT/build-gpu-msm/base}
O=${OUT:-$ROOT/gpu-out}
mkdir -p "$O"
export LD_LIBRARY_PATH=$ROOT/.gpu-deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
exec > >(tee -a "$O/summary.txt") 2>&1

nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv
cat "$D/COMMIT" 2>/dev/null

gtest() {
    s=$(date +%s)
    "$D/$1" > "$O/$1.log" 2>&1; rc=$?
    el "$1: exit $rc ($(( $(date +%s) - s )) s)"
    grep -E "FAILED|ERROR|differs|mismatch|PASSED|SKIPPED" "$O/$1.log" | head -20
}

# bench NAME BIN ENV... -- ARGS: MSM rows and the per-run phase profiles
bench() {
    local name=$1 bin=$2; shift 2
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    el "bench $name: ${envs[*]} $*"
    env "${envs[@]}" CUZK_GPU_MSM_PROFILE=1 "$bin" --only msm "$@" > "$O/bench_$name.txt" 2>&1
    echo "exit $?"
    grep -E "^msm " "$O/bench_$name.txt" | tail -40
    grep msm-prof "$O/bench_$name.txt" | awk '{k=$2" "$3} !(k in seen){seen[k]=1; print}' | grep "n=16777216\|n=67108864" | head -20
}

case "${1:-compare}" in
compare)
    gtest test_gpu_msm
    for v in micro_eo micro_portred; do
        [ -x "$D/$v" ] && { el "$v"; "$D/$v" 2>&1 | tee "$O/$v.txt" | grep -E "madd|mul" | head -12; }
    done
    [ -x "$BASE/bench_gpu" ] && bench base24 "$BASE/bench_gpu" X=1 -- --min 24 --max 24 --reps 5
    bench new24 "$D/bench_gpu" X=1 -- --min 24 --max 24 --reps 5
    # VAR: a bench_gpu built with other compile-time switches
    [ -n "${VAR:-}" ] && [ -x "$VAR/bench_gpu" ] && bench var24 "$VAR/bench_gpu" X=1 -- --min 24 --max 24 --reps 5
    for k in ${KNOBS:-}; do
        bench "knob_${k//[^a-zA-Z0-9]/_}" "$D/bench_gpu" "$k" -- --min 24 --max 24 --reps 5 --g2 "${KNOB_G2:-0}"
    done
    [ -n "${BIG:-}" ] && bench new26 "$D/bench_gpu" X=1 -- --min 26 --max 26 --reps 3 --g2 0
    ;;
final)
    # Order: correctness, the knob comparisons, the table, then the
    # sanitizers (each step bounded, so a cut run still brings the rest).
    gtest test_gpu_msm
    gtest test_gpu_ntt
    el "selftest 2^20"
    timeout 60 "$D/cuzk" selftest --gpu --max-lg 20 > "$O/selftest20.txt" 2>&1; echo "selftest 20 exit $?"
    tail -4 "$O/selftest20.txt"
    for k in ${KNOBS:-}; do
        bench "knob_${k//[^a-zA-Z0-9]/_}" "$D/bench_gpu" "$k" -- --min 24 --max 24 --reps 5 --g2 0
    done
    [ -n "${VAR:-}" ] && [ -x "$VAR/bench_gpu" ] && bench var24 "$VAR/bench_gpu" X=1 -- --min 24 --max 24 --reps 3 --curve bls12_381
    bench new "$D/bench_gpu" X=1 -- --min "${MIN_LG:-22}" --max "${MAX_LG:-26}" --reps "${REPS:-5}"
    for tool in memcheck racecheck; do
        el "$tool"
        CUZK_GPU_TEST_MAX_LG=6 timeout "${SAN_S:-60}" compute-sanitizer --tool $tool --error-exitcode 99 "$D/test_gpu_msm" > "$O/san_$tool.txt" 2>&1
        echo "$tool test_gpu_msm: exit $? | $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' "$O/san_$tool.txt" | tr '\n' ' ')"
    done
    ;;
esac
el "done"
