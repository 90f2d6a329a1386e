#!/usr/bin/env bash
# sort helper, precompute branch (s3-sort-precompute, binaries in dev-sort/dist-pre; NOT YET RUN):
# correctness (test_gpu_msm incl. test_precompute, selftest, memcheck at 2^6), then MSM rows
# with --precompute 2 and 64 (= W) at 2^24 (G1, G2) and 2^26 (G1), vs plain.
# run: carry [".gpu-deps", "dev-sort"], command "bash dev-sort/run3.sh", timeout ~300 s
set -u
H=$PWD/dev-sort
O=${OUT:-$PWD/gpu-out}
mkdir -p "$O" "$H/binp"
export LD_LIBRARY_PATH=$PWD/.gpu-deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for f in "$H"/dist-pre/*.gz; do gunzip -c "$f" > "$H/binp/$(basename "$f" .gz)"; done
chmod +x "$H"/binp/*
D=$H/binp
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
exec > >(tee -a "$O/summary.txt") 2>&1
cat "$H/dist-pre/COMMIT"
el "correctness (parallel)"
( timeout -k 3 90 "$D/test_gpu_msm" > "$O/test_gpu_msm.log" 2>&1; echo "test_gpu_msm exit $?" > "$O/rc_1.txt" ) & P1=$!
( timeout -k 3 60 "$D/cuzk" selftest --gpu --max-lg 20 > "$O/selftest.log" 2>&1; echo "selftest exit $?" > "$O/rc_2.txt" ) & P2=$!
( CUZK_GPU_TEST_MAX_LG=6 timeout -k 3 90 compute-sanitizer --tool memcheck --error-exitcode 99 "$D/test_gpu_msm" > "$O/memcheck.log" 2>&1
  echo "memcheck exit $? $(grep 'ERROR SUMMARY' "$O/memcheck.log" | tail -1)" > "$O/rc_3.txt" ) & P3=$!
wait $P1 $P2 $P3
el "correctness done"
cat "$O"/rc_*.txt
grep -h -E "FAILED|PASSED|differs|OK \]" "$O/test_gpu_msm.log" | head -20
for t in 0 2 64; do
    el "msm 2^24 precompute=$t"
    CUZK_GPU_MSM_PROFILE=1 timeout -k 3 60 "$D/bench_gpu" --only msm --min 24 --max 24 --reps 5 --precompute $t > "$O/msm24_pre$t.txt" 2>&1; echo "exit $?"
    grep -E "^msm " "$O/msm24_pre$t.txt" | awk '!s[$0]++' | sed "s/^/pre$t: /"
done
for t in 2 64; do
    el "msm 2^26 G1 precompute=$t"
    timeout -k 3 60 "$D/bench_gpu" --only msm --min 26 --max 26 --reps 5 --g2 0 --precompute $t > "$O/msm26_pre$t.txt" 2>&1; echo "exit $?"
    grep -E "^msm " "$O/msm26_pre$t.txt" | awk '!s[$0]++' | sed "s/^/pre$t: /"
done
el done
cd "$O" && tar czf logs.tar.gz *.log *.txt 2>/dev/null
