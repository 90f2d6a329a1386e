#!/usr/bin/env bash
# The host plan at work, without a GPU: bench prove on the CPU with the
# PoRep-shaped key from a cache directory (the key mapped from its file),
# at a host cap that holds one worker's plan but not two's: the worker list
# is lowered with one warning line, the proof verifies (bench verifies every
# proof), and the measured host peak (the process's anonymous memory: sampled
# RssAnon and VmHWM less file-backed and shared pages) stays under the plan.
# A cap below one worker's plan is exit 6 with one line and no rows.
# Usage: host_plan.sh <cuzk>
set -u
CUZK=$1
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { [ "$2" = "$3" ] && echo "ok   $1" || fail "$1: exit $3, expected $2"; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
LG=15
# the key and witness, made once into the cache
"$CUZK" bench prove --porep --scale $LG --seed 4 --porep-cache "$T/cache" --workers 1 --proofs 1 >"$T/make" 2>&1
check "make the cache" 0 $?
ls "$T/cache/porep-2^$LG-bls12381-s4.zkey" "$T/cache/porep-2^$LG-bls12381-s4.wtns" >/dev/null || fail "cache files"

# the plans of 1 and 2 workers, in bytes
plan_bytes() {
    "$CUZK" plan --cpu --porep --porep-cache --scale $LG --host-mem 64G --workers "$1" |
        sed -n 's/^host     .* GiB of .* GiB (\([0-9]*\) of [0-9]* bytes)$/\1/p'
}
P1=$(plan_bytes 1)
P2=$(plan_bytes 2)
[ -n "$P1" ] && [ -n "$P2" ] && [ "$P2" -gt "$P1" ] || fail "plans: 1 worker '$P1', 2 workers '$P2'"
CAP=$(((P1 + P2) / 2))

"$CUZK" bench prove --porep --scale $LG --seed 4 --porep-cache "$T/cache" --workers 1,2 --proofs 2 \
    --host-mem "$CAP" >"$T/out" 2>"$T/err"
check "bench at a cap between 1 and 2 workers" 0 $?
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "^Warning: 2 workers do not fit the host plan; 1 do" "$T/err" ||
    fail "warning: $(cat "$T/err")"
grep -q "^plan: CPU, 1 worker: host .* GiB (key mapped)" "$T/out" || fail "plan line: $(head -1 "$T/out")"
grep -q "from the cache" "$T/out" || fail "not from the cache: $(sed -n 2p "$T/out")"
# every row: W = 1, the measured host peak under the plan's
rows=$(awk '$1 ~ /^[0-9]+$/' "$T/out")
[ -n "$rows" ] || fail "no rows: $(cat "$T/out")"
echo "$rows" | awk '{ if ($1 != 1) bad = bad " W=" $1; if ($11 + 0 > $10 + 0 || $11 + 0 <= 0) bad = bad " host " $11 " > plan " $10 }
    END { if (bad != "") { print bad; exit 1 } }' || fail "rows: $rows"
echo "$rows" | awk '{ print "     W=" $1 ": host plan " $10 " GiB, measured " $11 " GiB" }'

# below one worker's plan: refused before anything is loaded
"$CUZK" bench prove --porep --scale $LG --seed 4 --porep-cache "$T/cache" --workers 1 --proofs 1 \
    --host-mem $((P1 - 4096)) >"$T/out" 2>"$T/err"
check "bench below the plan" 6 $?
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "^Error: host plan: 1 proof with this key .* need .* GiB of host memory at their peak; .* is the cap" "$T/err" ||
    fail "refusal: $(cat "$T/err")"
[ -s "$T/out" ] && fail "output before the refusal: $(cat "$T/out")"
[ $fails = 0 ] && echo "all passed" || echo "$fails failed"
[ $fails = 0 ]
