#!/usr/bin/env bash
# NTT tuning run on the device machine (binaries prebuilt here by
# `BUILD=$PWD/build-gpu-ntt tools/gpu_dist.sh`, carried with .gpu-deps).
# usage: DIST=build-gpu-ntt/dist tools/ntt_dev_run.sh [test] [bench VARIANT...] [prof] [sass] [ncu]
# VARIANT: NAME[@BLOCKxTHREADS][:MIN], e.g. default, v3o, v3:24, v3@1024x128:24
# Logs under $OUT (or ./gpu-out). VARIANTS: values of CUZK_GPU_NTT_KERNEL
# ("default" = unset).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=${DIST:-$ROOT/build-gpu-ntt/dist}
O=${OUT:-$ROOT/gpu-out}
MIN=${NTT_MIN:-20}
MAX=${NTT_MAX:-27}
mkdir -p "$O"
TMPD=$(mktemp -d)
export LD_LIBRARY_PATH=$ROOT/.gpu-deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$O/gpu.txt"
cat "$D/COMMIT" 2>/dev/null | tee -a "$O/gpu.txt"
mode=
for a in "$@"; do
    case "$a" in
    test) el "test_gpu_ntt"; timeout 150 "$D/test_gpu_ntt" > "$O/test_gpu_ntt.log" 2>&1; echo "test_gpu_ntt exit $?" | tee -a "$O/summary.txt"
          grep -E "FAILED|ERROR|mismatch|PASSED|SKIPPED|OK \]" "$O/test_gpu_ntt.log" | head -20 | tee -a "$O/summary.txt"; mode= ;;
    bench) mode=bench ;;
    msm) mode=; el "test_gpu_msm"; timeout 150 "$D/test_gpu_msm" > "$O/test_gpu_msm.log" 2>&1; echo "test_gpu_msm exit $?" | tee -a "$O/summary.txt"
          grep -E "FAILED|PASSED" "$O/test_gpu_msm.log" | head -5 | tee -a "$O/summary.txt" ;;
    self) mode=; el "selftest 2^20"; timeout 150 "$D/cuzk" selftest --gpu --max-lg 20 > "$TMPD/self.txt" 2>&1; echo "selftest exit $?" | tee -a "$O/summary.txt"
          tail -3 "$TMPD/self.txt" | tee -a "$O/summary.txt" ;;
    san) mode=
          for s in "memcheck test_gpu_ntt" "racecheck test_gpu_ntt" "memcheck test_gpu_msm"; do
              read -r t1 t2 <<< "$s"
              el "$t1 $t2"
              CUZK_GPU_TEST_MAX_LG=6 timeout 100 compute-sanitizer --tool $t1 --error-exitcode 99 "$D/$t2" > "$TMPD/san.txt" 2>&1
              echo "$t1 $t2: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$TMPD/san.txt" | tail -1)" | tee -a "$O/summary.txt"
          done ;;
    prof) mode=
          for v in default v3; do
              for lg in 24 27; do
                  if [ "$v" = default ]; then unset CUZK_GPU_NTT_KERNEL; else export CUZK_GPU_NTT_KERNEL=$v; fi
                  CUZK_GPU_NTT_PROF=1 timeout 60 "$D/bench_gpu" --only ntt --min $lg --max $lg --reps 2 --curve bn254 2>&1 \
                      | grep ntt-prof | sort | uniq -c | sed "s/^/$v 2^$lg /" | tail -6
              done
          done
          unset CUZK_GPU_NTT_KERNEL ;;
    sass) mode=
          cuobjdump -sass "$D/bench_gpu" 2>&1 | awk '/Function :/{p = ($3 ~ /ntt_pass/)} p' > "$O/ntt.sass"
          awk '/Function :/{f=$3} /^ +\/\*[0-9a-f]{4}\*\//{for(i=1;i<=NF;i++) if($i ~ /^[A-Z][A-Z0-9_.]+$/){c[f" "$i]++; break}} END{for(k in c) print c[k], k}' \
              "$O/ntt.sass" | grep bn254 | sort -k2,2 -k1,1nr | awk '$1>30' | sed 's/_ZN[0-9A-Za-z_]*ntt_cu_[0-9a-f]*//' > "$O/ntt_ops.txt"
          grep -E "pass_kernel.* (MOV|IMAD.MOV.U32|IMAD.WIDE.U32|IMAD.WIDE.U32.X|IADD3.X|LDL|STL)$" "$O/ntt_ops.txt" | sed 's/IN8cuzk_gpu2fpINS1_10bn254_fr_pEEE//; s/EEEvNS_8ntt_argsIT_EE//' | tee -a "$O/summary.txt"
          gzip -f "$O/ntt.sass" ;;
    ncu) mode=
          if command -v ncu > /dev/null; then
              timeout 100 ncu --kernel-name regex:ntt_pass --launch-skip 0 --launch-count 3 --section SpeedOfLight \
                  --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis \
                  "$D/bench_gpu" --only ntt --min 24 --max 24 --reps 1 --curve bn254 > "$O/ncu.txt" 2>&1
              grep -vE "^==PROF==|^ntt |^device" "$O/ncu.txt" | grep -E "ntt_pass|L1/TEX Cache|Issue Slots|Warp Cycles Per Issued|Duration|Theoretical Occ|highest-utilized" | cut -c1-160 | head -40
          else
              echo "no ncu"
          fi ;;
    *) if [ "$mode" = bench ]; then
           # NAME[@BLOCKxTHREADS][:MIN]
           v=$a; mn=$MIN
           case "$v" in *:*) mn=${v#*:}; v=${v%%:*} ;; esac
           k=${v%%@*}
           if [ "$k" = default ]; then unset CUZK_GPU_NTT_KERNEL; else export CUZK_GPU_NTT_KERNEL=$k; fi
           case "$v" in *@*) bt=${v#*@}; export CUZK_GPU_NTT_BLOCK=${bt%x*} CUZK_GPU_NTT_THREADS=${bt#*x} ;; esac
           el "bench $v 2^$mn..2^$MAX"
           timeout 120 "$D/bench_gpu" --only ntt --min $mn --max $MAX --reps 5 > "$TMPD/bench_$v.txt" 2>&1; echo "bench exit $?"
           grep -E "^ntt (fwd|odd)" "$TMPD/bench_$v.txt" | awk -v v=$v '!s[$0]++ { if ($2 ~ /odd/) print v, $2, $3, $5, $6; else print v, $2 "_" $3, $4, $6, $7 }' | paste - - - - | tail -12
           grep -E "^ntt fwd" "$TMPD/bench_$v.txt" | awk -v v=$v '!s[$0]++ {printf "%s %s %s %s %s | ", v, $3, $4, $6, $7} END {print ""}' >> "$O/summary.txt"
           unset CUZK_GPU_NTT_KERNEL CUZK_GPU_NTT_BLOCK CUZK_GPU_NTT_THREADS
       fi ;;
    esac
done
el done
[ -f "$O/summary.txt" ] && { echo "== summary"; cat "$O/summary.txt"; }
