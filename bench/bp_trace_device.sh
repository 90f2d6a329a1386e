#!/usr/bin/env bash
# The timeline of bellperson-mode proofs of the PoRep-shaped circuit (the
# 32 GiB layout at LG 27) on a GPU machine: where a partition's time goes,
# host phases and device intervals, to set beside the zkey path's
# (`cuzk bench prove --porep --gpu --trace`, bench/host_plan_device.sh).
# Not a CTest test. One device call at 2^27: setup ~95-110 s (skipped when
# WORK holds the finished file, e.g. from bench/bp_porep_device.sh), the
# load ~10 s, ~3 s a partition.
#
#   [CUZK=path/to/cuzk] [WORK=dir] [OUT=dir] bench/bp_trace_device.sh [LG [N [prove options...]]]
#
#   LG     the domain 2^LG (default 27), seed 1
#   N      partitions in the one call (default 4)
#   prove options: passed on, e.g. --gpu-mem 24G --gpu-workers 1
#   CUZK   the CUDA build's cuzk (default <repo>/build-gpu/cuzk)
#   WORK   where the .params goes (default <repo>/build-bp-porep: local disk, never a tmpfs; 44 GiB at 27)
#   OUT    the results (default <repo>/gpu-out): bp_trace_2pLG.json (open in https://ui.perfetto.dev),
#          bp_timing_2pLG.txt (the -v lines), and on stdout a table per phase (count, mean, total ms):
#          host phases, then the device intervals (gpu.*: CUDA events, per worker slot and stream)
# Exit non-zero at the first failure (setup, prove or verify).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CUZK=${CUZK:-$ROOT/build-gpu/cuzk}
WORK=${WORK:-$ROOT/build-bp-porep}
OUT=${OUT:-$ROOT/gpu-out}
LG=${1:-27}
N=${2:-4}
shift $(($# < 2 ? $# : 2))
mkdir -p "$WORK" "$OUT"
export LD_LIBRARY_PATH=$ROOT/.gpu-deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} # tools/gpu_deps_pack.sh, if carried
params=$WORK/porep-2^$LG-s1.params
vk=${params%.params}.vk
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader || true
if [ -s "$params.done" ] && [ "$(stat -c %s "$params" 2>/dev/null)" = "$(cat "$params.done")" ] && [ -s "$vk" ]; then
    echo "== $params is there: no setup"
else
    rm -f "$params" "$params.done" "$vk"
    echo "== setup 2^$LG seed 1 -> $params ($(df -h --output=avail "$WORK" | tail -1 | tr -d ' ') free)"
    "$CUZK" setup -q --format bellperson --porep --scale "$LG" --seed 1 --gpu "$params" "$vk"
    stat -c %s "$params" >"$params.done"
fi
tr=$OUT/bp_trace_2p$LG.json tim=$OUT/bp_timing_2p$LG.txt
echo "== prove --format bellperson --porep --scale $LG --gpu --partitions $N $* -v --trace $tr"
"$CUZK" prove --format bellperson --porep --scale "$LG" --porep-seed 1 --gpu --partitions "$N" -v --trace "$tr" "$@" \
    "$params" "$WORK/proof.bin" "$WORK/public.json" 2>"$tim" || { cat "$tim"; exit 1; }
"$CUZK" verify -q --format bellperson "$vk" "$WORK/public.json" "$WORK/proof.bin"
awk '/^CUZK_TIMING phase=/ {
        split($2, p, "="); split($3, m, "=");
        if (!(p[2] in n)) order[k++] = p[2];
        n[p[2]]++; s[p[2]] += m[2]
     }
     /^CUZK_DEVICE_MEM/ { print }
     END {
        printf "%-22s %6s %12s %12s\n", "phase", "count", "mean ms", "total ms";
        for (i = 0; i < k; i++) if (order[i] !~ /^gpu\./) printf "%-22s %6d %12.3f %12.3f\n", order[i], n[order[i]], s[order[i]] / n[order[i]], s[order[i]];
        for (i = 0; i < k; i++) if (order[i] ~ /^gpu\./) printf "%-22s %6d %12.3f %12.3f\n", order[i], n[order[i]], s[order[i]] / n[order[i]], s[order[i]];
     }' "$tim"
echo "== $tr ($(stat -c %s "$tr") bytes), $tim"
