#!/usr/bin/env bash
# One device call that checks and measures the GPU kernels of a prebuilt tree
# (built here with tools/gpu_dist.sh; carry .gpu-deps and the dist folder).
# Correctness first, in parallel (GPU tests incl. every MSM sort path,
# self-test, compute-sanitizer at 2^6), then benchmarks with the GPU to
# itself: NTT 2^24..2^27, MSM at 2^24 and 2^26, then the `cuzk bench kernels`
# table (TABLE_MIN..TABLE_MAX, default 20..25; TABLE27=1 adds 2^27 G1 + NTT).
# Every stage is killed at its limit (timeout -k: compute-sanitizer can
# ignore SIGTERM).
# Each stage is bounded by DEADLINE (seconds from the start). SKIP_TESTS=1
# skips the checks, SAN_FILTER (a CUZK_GPU_TEST_FILTER pattern) narrows the
# compute-sanitizer runs, MSM26=0 skips the separate 2^26 MSM stage.
# usage: DIST=build-run/dist tools/gpu_final.sh
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=${DIST:-$ROOT/build-run/dist}
O=${OUT:-$ROOT/gpu-out}
DEADLINE=${DEADLINE:-450}
mkdir -p "$O"
export LD_LIBRARY_PATH=$ROOT/.gpu-deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
exec > >(tee -a "$O/summary.txt") 2>&1
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv
cat "$D/COMMIT" 2>/dev/null

if [ "${SKIP_TESTS:-0}" != 1 ]; then
el "correctness (parallel)"
PIDS=()
TC=${TEST_S:-170}
( timeout -k 10 $TC "$D/test_gpu_ntt" > "$O/test_gpu_ntt.log" 2>&1; echo "test_gpu_ntt exit $?" > "$O/rc_ntt.txt" ) & PIDS+=($!)
( timeout -k 10 $TC "$D/test_gpu_msm" > "$O/test_gpu_msm.log" 2>&1; echo "test_gpu_msm exit $?" > "$O/rc_msm.txt" ) & PIDS+=($!)
( timeout -k 10 $TC "$D/cuzk" selftest --gpu --max-lg ${SELF_LG:-22} > "$O/selftest.log" 2>&1; echo "selftest exit $?" > "$O/rc_self.txt" ) & PIDS+=($!)
for t in memcheck racecheck; do
    for b in test_gpu_ntt test_gpu_msm; do
        ( CUZK_GPU_TEST_MAX_LG=6 CUZK_GPU_TEST_FILTER=${SAN_FILTER:-} timeout -k 10 $TC \
              compute-sanitizer --tool $t --error-exitcode 99 "$D/$b" > "$O/san_${t}_$b.log" 2>&1
          echo "$t $b: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$O/san_${t}_$b.log" | tail -1)" > "$O/rc_${t}_$b.txt" ) & PIDS+=($!)
    done
done
# explicit pids: a bare `wait` also waits for the tee process substitution above (bash >= 5.1) and hangs
wait "${PIDS[@]}"
el "correctness done"
cat "$O"/rc_*.txt
grep -h -E "MISMATCH|FAILED|PASSED|mismatch" "$O/test_gpu_ntt.log" "$O/test_gpu_msm.log" | head -20
tail -12 "$O/selftest.log"
fi

if [ "$(left)" -ge 150 ]; then
    el "ntt bench"
    timeout -k 5 40 "$D/bench_gpu" --only ntt --min 24 --max 27 --reps 5 > "$O/ntt.txt" 2>&1; echo "exit $?"
    grep -E "^ntt " "$O/ntt.txt" | grep -E "2\^(24|27)"
fi
if [ "$(left)" -ge 110 ]; then
    el "msm 2^24"
    timeout -k 5 60 "$D/bench_gpu" --only msm --min 24 --max 24 --reps 5 > "$O/msm24.txt" 2>&1; echo "exit $?"
    grep -E "^msm " "$O/msm24.txt" | grep -v unif/host
fi
if [ "${MSM26:-1}" = 1 ] && [ "$(left)" -ge 50 ]; then
    el "msm 2^26 G1"
    timeout -k 5 45 "$D/bench_gpu" --only msm --min 26 --max 26 --reps 3 --g2 0 > "$O/msm26.txt" 2>&1; echo "exit $?"
    grep -E "^msm " "$O/msm26.txt" | grep -v unif/host
fi
l=$(left)
if [ "$l" -gt 40 ]; then
    el "cuzk bench kernels (limit $l s)"
    timeout $(( l - 5 )) "$D/cuzk" bench kernels --min ${TABLE_MIN:-20} --max ${TABLE_MAX:-25} --reps 5 > "$O/bench_table.txt" 2>&1; echo "exit $?"
    sed -n '/^op /,$p' "$O/bench_table.txt"
fi
l=$(left)
if [ -n "${TABLE27:-}" ] && [ "$l" -gt 30 ]; then
    el "cuzk bench kernels 2^27, G1 only (limit $l s)"
    timeout $(( l - 5 )) "$D/cuzk" bench kernels --min 27 --max 27 --reps 5 --no-g2 > "$O/bench_table27.txt" 2>&1; echo "exit $?"
    sed -n '/^op /,$p' "$O/bench_table27.txt"
fi
el done
