#!/usr/bin/env bash
# Host and device memory of the PoRep-shaped partition beside their plans,
# on a GPU machine, one device call (bounded by DEADLINE seconds, default
# 520: a call's 10 minutes less the start).
#
# For each configuration SCALE:GPUMEM (GPUMEM: a --gpu-mem size, or "full"
# for the card's free memory) it prints
#   - `cuzk plan --porep`: the device plan and the host plan with W = 2, and
#     which resource binds (the same arithmetic the prover runs at load);
#   - `cuzk bench prove --porep --gpu` with W = 1,2 (every proof verified),
#     each row with the device plan / measured peak, the tier, the host
#     plan's peak, the measured host peak (anonymous: sampled RssAnon and
#     VmHWM less file-backed and shared pages) and the MemAvailable drop
#     (everything the run took, page-locked buffers included);
#   - VmHWM of the whole run (GNU time's max RSS, file-backed key pages
#     included) and the GPU's used memory peak sampled by nvidia-smi.
# The key: SCALE <= CACHE_MAX (default 26) is written once to CACHE (default
# ./build-porep-cache, git-ignored so it stays between calls; 2^26: a 47.5 GB zkey and a 2.1 GB witness, 2^25 half of
# that; 2^27 would be 95 GB, more than a 64 GiB disk) and then used mapped
# from its file, so only the first run at a scale makes it (~1 min on an
# H100 at 2^26); above CACHE_MAX it is made in memory by each run (2^27: ~2
# min, held in anonymous memory: 88 GiB, so the host plan may lower W or
# refuse, exit 6, before anything is made).
# A configuration that would not finish before DEADLINE is skipped (it
# needs EST seconds: default 150 at 2^26 with the cache, 330 at 2^27).
# What the plans say for 2^27 held in memory on a 125 GiB host (~120 GiB
# available): making the key 105 GiB; then W = 2 at full / 24G / 16G:
# attach 98.2 GiB, proofs ~77 GiB; 8G (tier 7, a/b/c page-locked per
# worker): 122.4 GiB for W = 2, so W is lowered to 1 there (101.6 GiB).
# Calls for the 2^27 set (one or two configurations a call):
#   DIST=... bench/host_plan_device.sh 27:full
#   DIST=... bench/host_plan_device.sh 27:24G
#   DIST=... bench/host_plan_device.sh 27:16G
#   DIST=... bench/host_plan_device.sh 27:8G
#
# usage: tools/gpu_dist.sh here (binaries in build-gpu2/dist), then carry
#        build-gpu2/dist and .gpu-deps and run there:
#        DIST=build-gpu2/dist bench/host_plan_device.sh 27:full
#        (the binaries of tools/gpu_dist.sh; cuzk is all it runs)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=${DIST:-$ROOT/build-gpu2/dist}
O=${OUT:-$ROOT/gpu-out}
CACHE=${CACHE:-$ROOT/build-porep-cache}
CACHE_MAX=${CACHE_MAX:-26}
DEADLINE=${DEADLINE:-520}
PROOFS=${PROOFS:-4}
mkdir -p "$O"
export LD_LIBRARY_PATH=$ROOT/.gpu-deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0)) s] $*"; }
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
exec > >(tee -a "$O/host_plan_summary.txt") 2>&1
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv
grep -E "MemTotal|MemAvailable" /proc/meminfo
df -h "$ROOT" | tail -1
cat "$D/COMMIT" 2>/dev/null
[ $# -gt 0 ] || set -- 26:full 26:24G 26:16G 26:8G
for cfg in "$@"; do
    S=${cfg%%:*}
    M=${cfg#*:}
    MEM=()
    [ "$M" != full ] && MEM=(--gpu-mem "$M")
    PC=()
    PCP=()
    if [ "$S" -le "$CACHE_MAX" ]; then
        PC=(--porep-cache "$CACHE")
        PCP=(--porep-cache)
    fi
    if [ "$S" -ge 27 ]; then est=${EST:-330}; else est=${EST:-150}; fi
    [ "$S" -le "$CACHE_MAX" ] && [ ! -f "$CACHE/porep-2^$S-bls12381-s1.zkey" ] && est=$((est + 90))
    if [ "$(left)" -lt "$est" ]; then
        el "skip $cfg: $(left) s left, it needs about $est s"
        continue
    fi
    tag="s${S}_$M"
    el "== 2^$S, gpu-mem $M: plans (W = 2)"
    "$D/cuzk" plan --porep --scale "$S" "${PCP[@]}" "${MEM[@]}" --workers 2 >"$O/plan_$tag.txt" 2>&1
    echo "plan exit $?"
    grep -E "^Warning|^Error|^tier|^peak|^host |^binds" "$O/plan_$tag.txt"
    el "== 2^$S, gpu-mem $M: bench prove W = 1,2, $PROOFS proofs each"
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 >"$O/gpumem_$tag.txt" 2>/dev/null &
    SMI=$!
    TIME=()
    command -v /usr/bin/time >/dev/null && TIME=(/usr/bin/time -v -o "$O/time_$tag.txt")
    timeout -k 10 "$(($(left) - 5))" "${TIME[@]}" "$D/cuzk" bench prove --porep --scale "$S" --seed 1 --gpu \
        "${MEM[@]}" "${PC[@]}" --workers 1,2 --proofs "$PROOFS" >"$O/bench_$tag.txt" 2>&1
    rc=$?
    kill "$SMI" 2>/dev/null
    wait "$SMI" 2>/dev/null
    echo "bench exit $rc"
    grep -vE "^\s*$" "$O/bench_$tag.txt" | grep -E "^plan:|^porep|^W |^[0-9]|^Warning|^Error" | cut -c1-200
    gpu_peak=$(sort -n "$O/gpumem_$tag.txt" 2>/dev/null | tail -1)
    hwm=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$O/time_$tag.txt" 2>/dev/null)
    printf 'summary 2^%s %s: exit %s; GPU used peak %s MiB (nvidia-smi, whole card); VmHWM %s GiB (file-backed key pages included)\n' \
        "$S" "$M" "$rc" "${gpu_peak:-?}" "$(awk -v k="${hwm:-0}" 'BEGIN { printf "%.2f", k / 1048576 }')"
done
el "done"
