#!/usr/bin/env bash
# cuzk plan: exit codes, one-line errors and the printed plan, without a GPU
# (--gpu-mem). Usage: plan.sh <cuzk> <source dir>
set -u
CUZK=$1
SRC=$2
fails=0
check() { # name expected_rc actual_rc
    if [ "$2" != "$3" ]; then echo "FAIL $1: exit $3, expected $2"; fails=$((fails + 1)); else echo "ok   $1"; fi
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# the tiers' table, as docs/ARCHITECTURE.md lists it
"$CUZK" plan --tiers >"$T/tiers" 2>"$T/err"
check "--tiers" 0 $?
[ "$(wc -l <"$T/tiers")" = 7 ] && grep -q "^7 host-witness  *key partly streamed, witness on the host" "$T/tiers" ||
    { echo "FAIL --tiers: $(cat "$T/tiers")"; fails=$((fails + 1)); }
sed -n '/^  \$ cuzk plan --tiers$/,/^  ```$/p' "$SRC/docs/ARCHITECTURE.md" | sed '1d;$d;s/^  //' >"$T/tiers.doc"
diff "$T/tiers.doc" "$T/tiers" >/dev/null || { echo "FAIL --tiers: docs/ARCHITECTURE.md lists other tiers:"; diff "$T/tiers.doc" "$T/tiers"; fails=$((fails + 1)); }
"$CUZK" plan --tiers x >/dev/null 2>"$T/err"
check "--tiers x" 1 $?
for curve in bn128 bls12381; do
    Z=$SRC/tests/data/formats/$curve/mul.zkey
    "$CUZK" plan --gpu-mem 16G "$Z" >"$T/out" 2>"$T/err"
    check "$curve 16G" 0 $?
    grep -q "^tier     1: key resident" "$T/out" || { echo "FAIL $curve 16G: not tier 1"; fails=$((fails + 1)); }
    grep -q "^peak " "$T/out" || { echo "FAIL $curve 16G: no peak line"; fails=$((fails + 1)); }
    [ -s "$T/err" ] && { echo "FAIL $curve 16G: stderr not empty"; fails=$((fails + 1)); }
    # a budget that only a streamed key fits
    "$CUZK" plan --gpu-mem 450M --workers 3 "$Z" >"$T/out" 2>"$T/err"
    check "$curve 450M" 0 $?
    grep -q "^tier     [456]: key partly streamed" "$T/out" || { echo "FAIL $curve 450M: key not streamed"; fails=$((fails + 1)); }
    # nothing fits: exit 6, one line naming the file
    "$CUZK" plan --gpu-mem 100M "$Z" >"$T/out" 2>"$T/err"
    check "$curve 100M" 6 $?
    [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^Error: $Z: .*does not fit.*needs at least .* (with tier [4-7]; the smallest tier, 7," "$T/err" ||
        { echo "FAIL $curve 100M: message: $(cat "$T/err")"; fails=$((fails + 1)); }
    [ -s "$T/out" ] && { echo "FAIL $curve 100M: output on stdout"; fails=$((fails + 1)); }
done
Z=$SRC/tests/data/formats/bn128/mul.zkey
"$CUZK" plan --gpu-mem 12X "$Z" >/dev/null 2>&1; check "bad size" 1 $?
"$CUZK" plan --gpu-mem 16G --workers 0 "$Z" >/dev/null 2>&1; check "0 workers" 1 $?
"$CUZK" plan --gpu-mem 16G >/dev/null 2>&1; check "no zkey" 1 $?
"$CUZK" plan --gpu-mem 16G "$T/missing.zkey" >/dev/null 2>&1; check "missing file" 2 $?
"$CUZK" plan --gpu-mem 16G "$SRC/tests/data/formats/bn128/witness.wtns" >/dev/null 2>&1; check "not a zkey" 3 $?
# without --gpu-mem the device is asked: no device is exit 7 naming the option
"$CUZK" plan "$Z" >/dev/null 2>"$T/err"
rc=$?
if [ $rc = 7 ]; then
    grep -q -- "--gpu-mem" "$T/err" || { echo "FAIL no device: message: $(cat "$T/err")"; fails=$((fails + 1)); }
else
    check "device plan" 0 $rc
fi
[ $fails = 0 ] && echo "all passed" || echo "$fails failed"
[ $fails = 0 ]
