#!/usr/bin/env bash
# A/B of two cuzk builds on the PoRep-shaped partition through the zkey path,
# on one GPU, in one device call: for each cap in CAPS (a --gpu-mem size, or
# "full"), `cuzk bench prove --porep --scale LG --seed 1 --gpu [--gpu-mem X]
# --workers W --proofs N --trace F` with the new binary, then the old one
# (each run makes the key in memory: ~70 s at 2^27 on an H100), every proof
# verified; then one table of the W rows (s per proof, latency, kernels,
# busy, tier, device peak / plan, host peak / plan) and, from each trace,
# where the device waited (tools/trace_gaps.py); the runs and traces also in
# one archive, $OUT/porep_ab.tgz.
#
# usage (on the device machine, binaries built elsewhere):
#   OLD=dir/with/old/cuzk NEW=dir/with/new/cuzk bench/porep_ab.sh
# env: LG (27), CAPS ("full"), W (2), PROOFS (6), ORDER ("new old"),
# DEADLINE (560: a call's 10 minutes less the start; a run that would start
# with less than RUN_S (110) seconds left is skipped and says so), OUT
# (./gpu-out). .gpu-deps/lib (tools/gpu_deps_pack.sh) goes on LD_LIBRARY_PATH.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=${OLD:?OLD: the directory of the old cuzk}
NEW=${NEW:?NEW: the directory of the new cuzk}
LG=${LG:-27}
CAPS=${CAPS:-full}
W=${W:-2}
PROOFS=${PROOFS:-6}
ORDER=${ORDER:-new old}
RUN_S=${RUN_S:-110}
DEADLINE=${DEADLINE:-560}
O=${OUT:-$ROOT/gpu-out}
# shellcheck source=bench/ab_common.sh
. "$ROOT/bench/ab_common.sh"
ab_start porep_ab

: >"$O/rows.txt"
for cap in $CAPS; do
    for tag in $ORDER; do
        if [ "$(left)" -lt "$RUN_S" ]; then
            el "skipped (deadline): $tag $cap"
            continue
        fi
        bin=$OLD/cuzk
        [ "$tag" = new ] && bin=$NEW/cuzk
        mem=()
        [ "$cap" != full ] && mem=(--gpu-mem "$cap")
        el "$tag 2^$LG $cap"
        timeout "$(($(left) - 5))" "$bin" bench prove --porep --scale "$LG" --seed 1 --gpu "${mem[@]}" --workers "$W" \
            --proofs "$PROOFS" --trace "$O/trace-$tag-$cap.json" >"$O/run-$tag-$cap.txt" 2>&1
        echo "rc $?"
        grep -E '^(plan:|Warning|Error)' "$O/run-$tag-$cap.txt"
        awk -v t="$tag" -v c="$cap" '$1 ~ /^[0-9]+$/ && NF > 12 { print c, t, $0 }' "$O/run-$tag-$cap.txt" >>"$O/rows.txt"
        python3 "$ROOT/tools/trace_gaps.py" "$O/trace-$tag-$cap.json" || true
        gzip -f "$O/trace-$tag-$cap.json" 2>/dev/null
    done
done
echo "cap build | W s/proof latency_ms kernels_ms busy tier | device peak/plan GiB | host peak/plan GiB"
awk '{ printf "%s %s | %s %s %s %s %s %s | %s/%s | %s/%s\n", $1, $2, $3, $5, $4, $6, $8, $11, $10, $9, $13, $12 }' \
    "$O/rows.txt"
# one file for the device's return (it brings back at most 8)
tar -czf "$O/porep_ab.tgz" -C "$O" rows.txt $(cd "$O" && ls run-*.txt trace-*.json.gz 2>/dev/null)
