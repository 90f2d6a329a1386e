#!/usr/bin/env bash
# Bellperson-mode proofs against an independent reference prover:
#
#   bp_prove.sh <cuzk-binary> <repo-root> <case>
#
# case = a circom fixture of tests/data/interop/bls12381 (mul, nopub, ...),
# or "gen" (random r1cs from `cuzk gen`, several sizes and input counts):
#   cuzk setup --format bellperson -> cuzk prove --format bellperson with
#   fixed r, s -> tests/interop/bp_reference.mjs (@noble/curves) rebuilds the
#   assignment from the r1cs and witness, proves as bellperson does and
#   requires its proof to verify (pairing check, IC from the .params) and to
#   equal cuzk's 192 bytes; cuzk's proof must also pass noble's check. A
#   proof with one bit flipped must fail that comparison (the check can
#   fail), and another r gives another proof.
# case = "errors": bad inputs give one "Error:" line and docs/CLI.md's exit
#   code, and write nothing: parameters of another circuit (4), a BN254
#   r1cs (7), a truncated .params (3), a witness that does not satisfy the
#   circuit (4), r not below the field order (1).
#
# Exit 0 pass, 1 fail, 77 skip (node or @noble/curves missing).
set -uo pipefail
CUZK=$1 ROOT=$2 CASE=$3
D=$ROOT/tests/data/interop/bls12381
REF=$ROOT/tests/interop/bp_reference.mjs
command -v node >/dev/null || { echo "skipped: no node"; exit 77; }
[ -d "$ROOT/node_modules/@noble/curves" ] || { echo "skipped: no node_modules (npm ci)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
R1=0x1d2c3b4a59687766554433221100ffeeddccbbaa99887766554433221100abcd
S1=4242424242424242424242

# setup + prove + reference; $1 = r1cs, $2 = wtns, $3 = label
check() {
    local r1cs=$1 wtns=$2 label=$3
    "$CUZK" setup -q --format bellperson "$r1cs" "$T/k.params" 2>"$T/err" || fail "$label: setup: $(cat "$T/err")"
    [ -s "$T/k.vk" ] || fail "$label: no .vk next to the .params"
    "$CUZK" prove -q --format bellperson "$T/k.params" "$r1cs" "$wtns" "$T/p.bin" "$T/pub.json" --r $R1 --s $S1 \
        2>"$T/err" || fail "$label: prove: $(cat "$T/err")"
    # another r: another proof
    "$CUZK" prove -q --format bellperson "$T/k.params" "$r1cs" "$wtns" "$T/p2.bin" "$T/pub2.json" --r 7 --s $S1 \
        2>"$T/err" || fail "$label: prove: $(cat "$T/err")"
    cmp -s "$T/p.bin" "$T/p2.bin" && fail "$label: r = 7 gave the same proof"
    cmp -s "$T/pub.json" "$T/pub2.json" || fail "$label: public.json differs between two proofs"
    # the comparison can fail: one flipped bit of C's x, and the valid proof for r = 7
    # compared with the reference for r = R1, must be rejected
    cp "$T/p.bin" "$T/bad.bin"
    printf '\x01' | dd of="$T/bad.bin" bs=1 seek=191 conv=notrunc status=none
    cmp -s "$T/p.bin" "$T/bad.bin" && fail "$label: the flip did nothing"
    node "$REF" "$T/k.params" "$r1cs" "$wtns" $R1 $S1 "$T/p.bin" 7 $S1 "$T/p2.bin" $R1 $S1 "!$T/bad.bin" $R1 $S1 "!$T/p2.bin" \
        >"$T/out" 2>&1 || fail "$label: reference: $(cat "$T/out")"
    sed "s/^/$label: /" "$T/out"
}

# runs cuzk, expects exit code $1 and one Error: line, no outputs
expect_err() {
    local code=$1 label=$2
    shift 2
    rm -f "$T/o.bin" "$T/o.json"
    "$CUZK" "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    [ $rc -eq "$code" ] || fail "$label: exit $rc, expected $code: $(cat "$T/err")"
    [ "$(grep -c . "$T/err")" -eq 1 ] && grep -q '^Error: ' "$T/err" || fail "$label: not one Error: line: $(cat "$T/err")"
    [ ! -e "$T/o.bin" ] && [ ! -e "$T/o.json" ] || fail "$label: an output was written"
    echo "$label: $(cat "$T/err")"
}

case "$CASE" in
gen)
    for spec in "1 0" "3 1" "40 2" "200 5"; do
        set -- $spec
        "$CUZK" gen -q --curve bls12381 --constraints "$1" --public "$2" --seed "$1$2" "$T/g.r1cs" "$T/g.wtns" ||
            fail "gen $spec"
        check "$T/g.r1cs" "$T/g.wtns" "gen constraints=$1 public=$2"
    done
    ;;
errors)
    "$CUZK" setup -q --format bellperson "$D/mul.r1cs" "$T/mul.params" 2>/dev/null || fail "setup mul"
    "$CUZK" setup -q --format bellperson "$D/linear.r1cs" "$T/lin.params" 2>/dev/null || fail "setup linear"
    expect_err 4 "params of another circuit" prove --format bellperson "$T/lin.params" "$D/mul.r1cs" "$D/mul.wtns" \
        "$T/o.bin" "$T/o.json" --seed 1
    expect_err 7 "a BN254 r1cs" setup --format bellperson "$ROOT/tests/data/interop/bn128/mul.r1cs" "$T/o.params"
    head -c 1000 "$T/mul.params" >"$T/trunc.params"
    expect_err 3 "a truncated .params" prove --format bellperson "$T/trunc.params" "$D/mul.r1cs" "$D/mul.wtns" \
        "$T/o.bin" "$T/o.json" --seed 1
    expect_err 4 "a witness of another circuit" prove --format bellperson "$T/mul.params" "$D/mul.r1cs" \
        "$D/linear.wtns" "$T/o.bin" "$T/o.json" --seed 1
    expect_err 1 "r above the field order" prove --format bellperson "$T/mul.params" "$D/mul.r1cs" "$D/mul.wtns" \
        "$T/o.bin" "$T/o.json" --r 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 --s 1
    ;;
*)
    [ -f "$D/$CASE.r1cs" ] || fail "no fixture $CASE"
    check "$D/$CASE.r1cs" "$D/$CASE.wtns" "$CASE"
    ;;
esac
echo PASS
