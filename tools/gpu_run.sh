#!/usr/bin/env bash
# Runs prebuilt GPU binaries on the device machine (no build there: they are
# built here with tools/gpu_dist.sh and carried, with .gpu-deps for cmocka and
# cJSON). Everything is logged under $OUT (or ./gpu-out).
#
# usage: tools/gpu_run.sh explore          tuning experiments (micro, profiles, sweeps)
#        tools/gpu_run.sh final [MAX_LG]   GPU tests, selftest, compute-sanitizer,
#                                          benchmark 2^20..2^MAX_LG (default 26)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=${DIST:-$ROOT/build-gpu2/dist}
O=${OUT:-$ROOT/gpu-out}
mkdir -p "$O"
export LD_LIBRARY_PATH=$ROOT/.gpu-deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }

nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$O/gpu.txt"
cat "$D/COMMIT" 2>/dev/null | tee -a "$O/gpu.txt"

run_tests() {
    for t in test_gpu_ntt test_gpu_msm; do
        s=$(date +%s)
        "$D/$t" > "$O/$t.log" 2>&1; rc=$?
        el "$t: exit $rc ($(( $(date +%s) - s )) s)"
        grep -E "FAILED|ERROR|differs|mismatch|PASSED|SKIPPED" "$O/$t.log" | head -20
    done
}

case "${1:-explore}" in
explore)
    for m in micro_chain micro_sqrmul; do [ -x "$D/$m" ] && { el "$m"; "$D/$m" 2>&1 | tee "$O/$m.txt"; }; done
    el "micro (eo default)"; "$D/micro_eo" 2>&1 | tee "$O/micro_eo.txt"
    for o in "$D"/*.o; do
        [ -f "$o" ] || continue
        b=$(basename "$o" .o)
        cuobjdump -sass "$o" > "$O/$b.sass" 2>&1
        awk '/Function :/{f=$3} /^ +\/\*[0-9a-f]{4}\*\//{for(i=1;i<=NF;i++) if($i ~ /^[A-Z][A-Z0-9_.]+$/){split($i,a,"."); c[f" "a[1]]++; break}} END{for(k in c) print c[k], k}' \
            "$O/$b.sass" | grep -E "accumulate|mul_kernel|madd" | sort -k2,2 -k1,1nr | awk '$1>20' > "$O/$b.ops.txt"
        gzip -f "$O/$b.sass"
    done
    run_tests
    el "selftest 2^16"
    timeout 120 "$D/cuzk" selftest --gpu --max-lg 16 > "$O/selftest16.txt" 2>&1; echo "selftest exit $?"; tail -8 "$O/selftest16.txt"
    el "memcheck (small)"
    for t in test_gpu_ntt test_gpu_msm; do
        CUZK_GPU_TEST_MAX_LG=6 timeout 90 compute-sanitizer --tool memcheck --error-exitcode 99 "$D/$t" > "$O/san_$t.txt" 2>&1
        echo "memcheck $t: exit $? $(grep -E 'ERROR SUMMARY' "$O/san_$t.txt" | tail -1)"
    done
    el "msm profile 2^22..2^24"
    CUZK_GPU_MSM_PROFILE=1 "$D/bench_gpu" --min 22 --max 24 --reps 3 --only msm > "$O/bench_prof.txt" 2>&1
    grep -E "^msm |c=" "$O/bench_prof.txt" | grep -v msm-prof | tail -40
    grep msm-prof "$O/bench_prof.txt" | awk '!seen[$0]++' | sort -u | head -60
    el "window sweep bn254 G1 / bls G1, 2^24 uniform"
    for c in 16 17 18 19 20 21 22; do
        CUZK_GPU_MSM_PROFILE=1 "$D/bench_gpu" --min 24 --max 24 --reps 3 --only msm --g2 0 --window $c > "$O/win$c.txt" 2>&1
        grep -E "^msm " "$O/win$c.txt" | grep -v "unif/host" | tail -4
        grep msm-prof "$O/win$c.txt" | tail -1
    done
    el "segment sweep 2^24"
    for s in 64 128; do
        CUZK_GPU_MSM_SEG=$s CUZK_GPU_MSM_PROFILE=1 "$D/bench_gpu" --min 24 --max 24 --reps 3 --only msm --g2 0 > "$O/seg$s.txt" 2>&1
        echo "SEG=$s"; grep -E "^msm " "$O/seg$s.txt" | grep -v "unif/host" | tail -4
    done
    # (the radix-4 vs radix-2 NTT comparison of session 1 went with the radix-4 kernel)
    ;;
final)
    # Order: the required pieces first, the long self-test last (bounded by
    # FINAL_BUDGET seconds in all); logs are re-packed after each stage so a
    # cut run still brings them back.
    MAX=${2:-26}
    pack() { (cd "$O" && tar czf logs.tgz --exclude=logs.tgz --exclude=bench.txt --exclude=summary.txt . 2>/dev/null); }
    exec > >(tee -a "$O/summary.txt") 2>&1
    run_tests; pack
    el "selftest 2^20"
    "$D/cuzk" selftest --gpu --max-lg 20 > "$O/selftest20.txt" 2>&1; echo "selftest 20 exit $?"
    tail -8 "$O/selftest20.txt"; pack
    el "compute-sanitizer (CUZK_GPU_TEST_MAX_LG=${SAN_LG:-6})"
    for tool in memcheck racecheck; do
        for t in test_gpu_ntt test_gpu_msm; do
            CUZK_GPU_TEST_MAX_LG=${SAN_LG:-6} compute-sanitizer --tool $tool --error-exitcode 99 "$D/$t" > "$O/san_${tool}_$t.txt" 2>&1
            echo "$tool $t: exit $? | $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' "$O/san_${tool}_$t.txt" | tr '\n' ' ')"
        done
    done
    pack
    el "benchmark 2^20..2^$MAX"
    "$D/cuzk" bench kernels --min 20 --max "$MAX" --reps 5 > "$O/bench.txt" 2>&1; echo "bench exit $?"
    sed -n '/^op /,$p' "$O/bench.txt"; pack
    left=$(( ${FINAL_BUDGET:-330} - ($(date +%s) - T0) ))
    if [ "$left" -gt 30 ]; then
        el "selftest 2^${SELFTEST_LG:-24} (limit $left s)"
        timeout "$left" "$D/cuzk" selftest --gpu --max-lg "${SELFTEST_LG:-24}" > "$O/selftest24.txt" 2>&1; echo "selftest exit $?"
        tail -8 "$O/selftest24.txt"
    fi
    pack
    ;;
esac
el "done"
