#!/usr/bin/env bash
# One device call that checks and measures the GPU kernels of a prebuilt tree
# (built here with tools/gpu_dist.sh / tools/gpu_g2_dist.sh; carry .gpu-deps
# and the dist folder). Correctness first, in parallel (GPU tests incl. every
# NTT kernel variant and both MSM sort paths, the G2 variant binary's test,
# self-test, compute-sanitizer at 2^6), then benchmarks with the GPU to
# itself: NTT per kernel variant, MSM (SORTS: values of CUZK_GPU_MSM_SORT to
# compare, default "default") and the G2 Fp2 mode-1 binary at 2^24 and 2^26,
# then the `cuzk bench kernels` table (TABLE_MIN..TABLE_MAX, default 20..25;
# TABLE27=1 adds 2^27 G1 + NTT). NTT_VARIANTS: values of CUZK_GPU_NTT_KERNEL
# to time (default "default" = v3ol; the others: v3, v3l, v3o, v3O, v3Ol). Every stage is killed at its limit
# (timeout -k: compute-sanitizer can ignore SIGTERM).
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
for v in "$D"/var_m*.tar.gz; do [ -f "$v" ] && (cd "$D" && tar xzf "$(basename "$v")"); done

if [ "${SKIP_TESTS:-0}" != 1 ]; then
el "correctness (parallel)"
PIDS=()
TC=${TEST_S:-170}
( timeout -k 10 $TC "$D/test_gpu_ntt" > "$O/test_gpu_ntt.log" 2>&1; echo "test_gpu_ntt exit $?" > "$O/rc_ntt.txt" ) & PIDS+=($!)
( timeout -k 10 $TC "$D/test_gpu_msm" > "$O/test_gpu_msm.log" 2>&1; echo "test_gpu_msm exit $?" > "$O/rc_msm.txt" ) & PIDS+=($!)
if [ -x "$D/var_m1/test_gpu_msm" ]; then
    ( timeout -k 10 $TC "$D/var_m1/test_gpu_msm" > "$O/test_gpu_msm_m1.log" 2>&1; echo "test_gpu_msm (fp2 mode 1) exit $?" > "$O/rc_msm_m1.txt" ) & PIDS+=($!)
fi
( timeout -k 10 $TC "$D/cuzk" selftest --gpu --max-lg ${SELF_LG:-22} > "$O/selftest.log" 2>&1; echo "selftest exit $?" > "$O/rc_self.txt" ) & PIDS+=($!)
for t in memcheck racecheck; do
    for b in test_gpu_ntt test_gpu_msm; do
        ( CUZK_GPU_TEST_MAX_LG=6 CUZK_GPU_TEST_VARIANTS=",default," CUZK_GPU_TEST_FILTER=${SAN_FILTER:-} timeout -k 10 $TC \
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

for v in ${NTT_VARIANTS:-default}; do
    [ "$(left)" -lt 150 ] && { echo "skip ntt $v"; continue; }
    if [ "$v" = default ]; then unset CUZK_GPU_NTT_KERNEL; else export CUZK_GPU_NTT_KERNEL=$v; fi
    el "ntt bench $v"
    timeout -k 5 40 "$D/bench_gpu" --only ntt --min 24 --max 27 --reps 5 > "$O/ntt_$v.txt" 2>&1; echo "exit $?"
    grep -E "^ntt " "$O/ntt_$v.txt" | grep -E "2\^(24|27)" | sed "s/^/$v: /"
done
unset CUZK_GPU_NTT_KERNEL

for s in ${SORTS:-default}; do
    [ "$(left)" -lt 110 ] && { echo "skip msm $s"; continue; }
    el "msm 2^24 sort=$s"
    CUZK_GPU_MSM_SORT=$s CUZK_GPU_MSM_PROFILE=1 timeout -k 5 60 "$D/bench_gpu" --only msm --min 24 --max 24 --reps 5 > "$O/msm24_$s.txt" 2>&1; echo "exit $?"
    grep -E "^msm " "$O/msm24_$s.txt" | grep -v unif/host | sed "s/^/$s: /"
    grep msm-prof "$O/msm24_$s.txt" | awk '!s[$2" "$3" "$4]++' | head -8
done
if [ -x "$D/var_m1/bench_gpu" ] && [ "$(left)" -gt 80 ]; then
    el "msm 2^24 fp2 mode 1 (G2 only differs)"
    CUZK_GPU_MSM_PROFILE=1 timeout -k 5 60 "$D/var_m1/bench_gpu" --only msm --min 24 --max 24 --reps 5 > "$O/msm24_m1.txt" 2>&1; echo "exit $?"
    grep -E "^msm .* G2 " "$O/msm24_m1.txt" | grep -v unif/host | sed "s/^/m1: /"
fi
SORT=${TABLE_SORT:-default}
for s in ${SORTS:-default}; do
    [ "${MSM26:-1}" = 1 ] && [ "$(left)" -ge 50 ] || { echo "skip msm26 $s"; continue; }
    el "msm 2^26 G1 sort=$s"
    CUZK_GPU_MSM_SORT=$s timeout -k 5 45 "$D/bench_gpu" --only msm --min 26 --max 26 --reps 3 --g2 0 > "$O/msm26_$s.txt" 2>&1; echo "exit $?"
    grep -E "^msm " "$O/msm26_$s.txt" | grep -v unif/host | sed "s/^/$s: /"
done
l=$(left)
if [ "$l" -gt 40 ]; then
    el "cuzk bench kernels 2^20..2^27, sort=$SORT (limit $l s)"
    CUZK_GPU_MSM_SORT=$SORT timeout $(( l - 5 )) "$D/cuzk" bench kernels --min ${TABLE_MIN:-20} --max ${TABLE_MAX:-25} --reps 5 > "$O/bench_table.txt" 2>&1; echo "exit $?"
    sed -n '/^op /,$p' "$O/bench_table.txt"
fi
l=$(left)
if [ -n "${TABLE27:-}" ] && [ "$l" -gt 30 ]; then
    el "cuzk bench kernels 2^27, G1 only (limit $l s)"
    timeout $(( l - 5 )) "$D/cuzk" bench kernels --min 27 --max 27 --reps 5 --no-g2 > "$O/bench_table27.txt" 2>&1; echo "exit $?"
    sed -n '/^op /,$p' "$O/bench_table27.txt"
fi
el done
