#!/usr/bin/env bash
# A/B of two cuzk builds' MSMs on one GPU, in one device call: the new
# build's test_gpu_msm (every group against the CPU library), then
# `cuzk bench kernels --only msm --min MIN --max MAX --curve all --reps R`
# for the old and the new binary, alternating, and one table of the rows
# of both (median ms old, new, new / old).
#
# Order: round 1 G1 only (--no-g2), old then new; round 2, if the call has
# time left for both, the full command (G1 and G2) new then old, so each
# build has run first once and G2 is compared too. Every run is cut at
# DEADLINE seconds from the start (default 560: a call's 10 minutes less
# the start); a round that does not fit is skipped and says so.
#
# usage (on the device machine, binaries built elsewhere):
#   OLD=dir/with/old/cuzk NEW=dir/with/new/cuzk [TEST=path/to/test_gpu_msm] \
#     bench/msm_ab.sh
# env: MIN (24), MAX (26), REPS (5), DEADLINE (560), TEST_S (240: the
# test's limit), OUT (./gpu-out). .gpu-deps/lib (tools/gpu_deps_pack.sh)
# goes on LD_LIBRARY_PATH for the test's cmocka and cJSON.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=${OLD:?OLD: the directory of the old cuzk}
NEW=${NEW:?NEW: the directory of the new cuzk}
TEST=${TEST:-$NEW/test_gpu_msm}
MIN=${MIN:-24}
MAX=${MAX:-26}
REPS=${REPS:-5}
DEADLINE=${DEADLINE:-560}
TEST_S=${TEST_S:-240}
O=${OUT:-$ROOT/gpu-out}
# shellcheck source=bench/ab_common.sh
. "$ROOT/bench/ab_common.sh"
ab_start msm_ab

# 1. the new build against the CPU library
if [ -x "$TEST" ]; then
    lim=$(left)
    [ "$TEST_S" -lt "$lim" ] && lim=$TEST_S
    el "test_gpu_msm (limit ${lim} s)"
    timeout -k 5 "$lim" "$TEST" > "$O/test_gpu_msm.txt" 2>&1
    rc=$?
    tail -15 "$O/test_gpu_msm.txt"
    el "test_gpu_msm rc=$rc"
else
    el "no test binary at $TEST: test skipped"
fi

# 2. benchmarks; run NAME DIR EXTRA... -> $O/bench_NAME_TAG.txt, seconds taken in $took
took=0
run() {
    local tag=$1 dir=$2
    shift 2
    local lim
    lim=$(left)
    if [ "$lim" -lt 20 ]; then
        el "skip $tag: ${lim} s left"
        took=-1
        return
    fi
    el "$tag: $dir/cuzk bench kernels --only msm --min $MIN --max $MAX --curve all --reps $REPS $* (limit ${lim} s)"
    local t
    t=$(date +%s)
    timeout -k 5 "$lim" "$dir/cuzk" bench kernels --only msm --min "$MIN" --max "$MAX" --curve all --reps "$REPS" "$@" \
        > "$O/bench_$tag.txt" 2>&1
    local rc=$?
    took=$(($(date +%s) - t))
    el "$tag rc=$rc, ${took} s"
}

# round 1: G1 only (the groups the change is for), old then new
run old_g1 "$OLD" --no-g2
t_g1=$took
run new_g1 "$NEW" --no-g2
[ "$took" -gt "$t_g1" ] && t_g1=$took
# round 2: the full command (G1 and G2), new then old, if both fit: a full
# run is about 4 G1 runs (G2 MSMs take ~3x G1's, and their copies longer)
if [ "$t_g1" -gt 0 ] && [ "$(left)" -gt $((2 * 4 * t_g1 + 20)) ]; then
    run new_full "$NEW"
    run old_full "$OLD"
elif [ "$t_g1" -gt 0 ]; then
    el "round 2 (G1 and G2) skipped: $(left) s left, about $((2 * 4 * t_g1)) s needed"
else
    el "round 2 skipped: round 1 did not run"
fi

# 3. one table: every row of both builds (rounds side by side)
python3 - "$O" <<'EOF'
import os, re, sys
o = sys.argv[1]
pat = re.compile(r'^(msm(?: \S+)?)\s+(\S+ G[12])\s+(\S+)\s+2\^(\d+)\s+([\d.]+)\s+([\d.]+)\s*(.*)$')
def rows(name):
    p = os.path.join(o, 'bench_%s.txt' % name)
    out = {}
    if not os.path.exists(p):
        return out
    for line in open(p, errors='replace'):
        m = pat.match(line.strip())
        if m:
            k = (m.group(1), m.group(2), m.group(3), int(m.group(4)))
            out[k] = (float(m.group(5)), m.group(7).strip())
    return out
runs = {n: rows(n) for n in ('old_g1', 'new_g1', 'new_full', 'old_full')}
keys = []
for n in ('old_g1', 'new_g1', 'new_full', 'old_full'):
    for k in runs[n]:
        if k not in keys:
            keys.append(k)
def f(n, k):
    v = runs[n].get(k)
    return '%10.3f' % v[0] if v else '%10s' % '-'
def ratio(a, b, k):
    x, y = runs[a].get(k), runs[b].get(k)
    return '%7.3f' % (y[0] / x[0]) if x and y and x[0] > 0 else '%7s' % '-'
print('\nmedian ms; round 1 G1 only (old, then new), round 2 G1 and G2 (new, then old); ratio = new / old')
print('%-14s %-9s %-9s %-5s %10s %10s %7s %10s %10s %7s  %s' % ('op', 'group', 'scalars', 'size', 'old (1)', 'new (1)',
      'ratio1', 'new (2)', 'old (2)', 'ratio2', 'new build: window, memory'))
for k in keys:
    print('%-14s %-9s %-9s 2^%-3d %s %s %s %s %s %s  %s' % (k[0], k[1], k[2], k[3], f('old_g1', k), f('new_g1', k),
          ratio('old_g1', 'new_g1', k), f('new_full', k), f('old_full', k), ratio('old_full', 'new_full', k),
          (runs['new_g1'].get(k) or runs['new_full'].get(k) or ('', ''))[1]))
EOF
el "done"
