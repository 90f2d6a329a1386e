#!/usr/bin/env bash
# One device call for the NTT (prebuilt: BUILD=$PWD/build-gpu-ntt tools/gpu_dist.sh;
# carry .gpu-deps and build-gpu-ntt/dist). Correctness first, in parallel
# (test_gpu_ntt, test_gpu_msm, selftest --gpu 2^20, memcheck + racecheck of
# test_gpu_ntt at 2^6), then the NTT benchmark 2^MIN..2^MAX (median of 5)
# per kernel variant with the GPU to itself, skipping variants once the
# deadline (DEADLINE seconds after the start) is near.
# usage: DIST=build-gpu-ntt/dist tools/ntt_round2_run.sh VARIANT...   ("default" = unset)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=${DIST:-$ROOT/build-gpu-ntt/dist}
O=${OUT:-$ROOT/gpu-out}
MIN=${NTT_MIN:-20}
MAX=${NTT_MAX:-27}
DEADLINE=${DEADLINE:-185}
TSAN=${TSAN:-100}
mkdir -p "$O"
export LD_LIBRARY_PATH=$ROOT/.gpu-deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$O/gpu.txt"
cat "$D/COMMIT" 2>/dev/null | tee -a "$O/gpu.txt"

el "correctness (parallel)"
SANV=",default,v3o,v3O,v3l,v3ol,v3Ol,"
( timeout $TSAN "$D/test_gpu_ntt" > "$O/test_gpu_ntt.log" 2>&1; echo "test_gpu_ntt exit $?" > "$O/rc_ntt.txt" ) &
( timeout $TSAN "$D/test_gpu_msm" > "$O/test_gpu_msm.log" 2>&1; echo "test_gpu_msm exit $?" > "$O/rc_msm.txt" ) &
( timeout $TSAN "$D/cuzk" selftest --gpu --max-lg 20 > "$O/selftest20.log" 2>&1; echo "selftest exit $?" > "$O/rc_self.txt" ) &
for t in memcheck racecheck; do
    ( CUZK_GPU_TEST_MAX_LG=6 CUZK_GPU_TEST_VARIANTS=$SANV timeout $TSAN compute-sanitizer --tool $t --error-exitcode 99 \
          "$D/test_gpu_ntt" > "$O/san_$t.log" 2>&1
      echo "$t test_gpu_ntt (variants $SANV): exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$O/san_$t.log" | tail -1)" \
          > "$O/rc_$t.txt" ) &
done
wait
el "correctness done"
{
    cat "$O"/rc_*.txt
    grep -E "MISMATCH|FAILED|PASSED|ERROR" "$O/test_gpu_ntt.log" | head -30
    grep -E "FAILED|PASSED" "$O/test_gpu_msm.log" | head -5
    tail -3 "$O/selftest20.log"
} | tee "$O/summary.txt"

for v in "$@"; do
    left=$(( DEADLINE - ($(date +%s) - T0) ))
    if [ $left -lt 15 ]; then echo "skip bench $v (deadline)" | tee -a "$O/summary.txt"; continue; fi
    if [ "$v" = default ]; then unset CUZK_GPU_NTT_KERNEL; else export CUZK_GPU_NTT_KERNEL=$v; fi
    el "bench $v"
    timeout $(( left < 30 ? left : 30 )) "$D/bench_gpu" --only ntt --min $MIN --max $MAX --reps 5 > "$O/bench_$v.txt" 2>&1
    echo "bench $v exit $?" | tee -a "$O/summary.txt"
    grep -E "^ntt " "$O/bench_$v.txt" | awk -v v=$v '$2 ~ /odd/ {print v, $2, $3, $5, $6; next} {print v, $2 "_" $3, $4, $6, $7}' >> "$O/bench_all.txt"
done
unset CUZK_GPU_NTT_KERNEL
el done
# table: variant, op, curve, size, median ms
grep -E "fwd_NN|fwd_NR|odd" "$O/bench_all.txt" 2>/dev/null | grep -E " 2\^(20|24|27) " | column -t
