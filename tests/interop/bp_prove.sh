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
#   fail), and another r gives another proof. `cuzk verify --format
#   bellperson` accepts the proofs with the .vk and with the .params.
# case = "partitions": three partitions in one call, each equal to the
#   reference's proof for its r + i, s + i; the 576-byte file verifies, with
#   a partition made with other parameters it does not.
# case = "errors": bad inputs give one "Error:" line and docs/CLI.md's exit
#   code, and write nothing: parameters of another circuit (4), a BN254
#   r1cs (7), a truncated .params (3), a witness that does not satisfy the
#   circuit (4), r not below the field order (1).
#
# case = "porep": the PoRep-shaped circuit without files (setup / prove
#   --format bellperson --porep): the same seed gives the same .params, which
#   `cuzk info --full` checks point by point (subgroup too); the proof of the
#   matching assignment verifies with the .vk and the .params, one of another
#   seed is refused (4); a bad --scale is a usage error (1). (Its points are
#   compared with bp_setup.c's in-memory setup in tests/unit/test_bp_porep.c.)
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
    local byte
    byte=$(od -An -tu1 -j191 -N1 "$T/p.bin" | tr -d ' ')
    printf "\\$(printf %03o $((byte ^ 1)))" | dd of="$T/bad.bin" bs=1 seek=191 conv=notrunc status=none
    cmp -s "$T/p.bin" "$T/bad.bin" && fail "$label: the flip did nothing"
    node "$REF" "$T/k.params" "$r1cs" "$wtns" $R1 $S1 "$T/p.bin" 7 $S1 "$T/p2.bin" $R1 $S1 "!$T/bad.bin" $R1 $S1 "!$T/p2.bin" \
        >"$T/out" 2>&1 || fail "$label: reference: $(cat "$T/out")"
    sed "s/^/$label: /" "$T/out"
    # the bellperson verifier (fil-formats' reader) accepts it with the .vk and the .params
    "$CUZK" verify -q --format bellperson "$T/k.vk" "$T/pub.json" "$T/p.bin" >"$T/out" 2>&1 ||
        fail "$label: cuzk verify --format bellperson (.vk): $(cat "$T/out")"
    "$CUZK" verify -q --format bellperson "$T/k.params" "$T/pub2.json" "$T/p2.bin" >"$T/out" 2>&1 ||
        fail "$label: cuzk verify --format bellperson (.params): $(cat "$T/out")"
    "$CUZK" verify -q --format bellperson "$T/k.vk" "$T/pub.json" "$T/bad.bin" >"$T/out" 2>&1
    local rc=$?
    [ $rc -eq 5 ] || [ $rc -eq 3 ] || fail "$label: verify of the flipped proof: exit $rc"
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
partitions)
    # several partitions in one cuzk_bp_prove call: each is the proof the
    # reference makes for its r + i, s + i; the file verifies as a whole
    "$CUZK" setup -q --format bellperson "$D/mul.r1cs" "$T/k.params" 2>/dev/null || fail "setup mul"
    "$CUZK" prove -q --format bellperson "$T/k.params" "$D/mul.r1cs" "$D/mul.wtns" "$T/p.bin" "$T/pub.json" \
        --partitions 3 --r 100 --s 200 2>"$T/err" || fail "prove --partitions 3: $(cat "$T/err")"
    [ "$(stat -c %s "$T/p.bin")" -eq 576 ] || fail "3 partitions: not 576 bytes"
    "$CUZK" verify -q --format bellperson "$T/k.vk" "$T/pub.json" "$T/p.bin" >"$T/out" 2>&1 ||
        fail "verify of 3 partitions: $(cat "$T/out")"
    for i in 0 1 2; do dd if="$T/p.bin" of="$T/p$i.bin" bs=192 skip=$i count=1 status=none; done
    node "$REF" "$T/k.params" "$D/mul.r1cs" "$D/mul.wtns" 100 200 "$T/p0.bin" 101 201 "$T/p1.bin" 102 202 "$T/p2.bin" \
        100 200 "!$T/p1.bin" >"$T/out" 2>&1 || fail "reference: $(cat "$T/out")"
    cat "$T/out"
    # the last partition replaced by the proof for another r of partition 0's
    # inputs is still valid (all partitions share the inputs here); one of
    # another circuit's parameters is not
    "$CUZK" setup -q --format bellperson "$D/mul.r1cs" "$T/k2.params" 2>/dev/null || fail "setup mul again"
    "$CUZK" prove -q --format bellperson "$T/k2.params" "$D/mul.r1cs" "$D/mul.wtns" "$T/o.bin" "$T/o.json" --seed 3 \
        2>"$T/err" || fail "prove with k2: $(cat "$T/err")"
    cat "$T/p0.bin" "$T/p1.bin" "$T/o.bin" >"$T/mix.bin"
    "$CUZK" verify -q --format bellperson "$T/k.vk" "$T/pub.json" "$T/mix.bin" >"$T/out" 2>&1
    [ $? -eq 5 ] || fail "a partition from other parameters: not exit 5: $(cat "$T/out")"
    ;;
porep)
    P="--format bellperson --porep --scale 11"
    "$CUZK" setup -q $P --seed 3 "$T/k.params" 2>"$T/err" || fail "setup --porep: $(cat "$T/err")"
    [ -s "$T/k.vk" ] || fail "setup --porep: no .vk"
    "$CUZK" setup -q $P --seed 3 --threads 1 "$T/k2.params" "$T/k2.vk" 2>"$T/err" || fail "setup --porep again"
    cmp "$T/k.params" "$T/k2.params" && cmp "$T/k.vk" "$T/k2.vk" || fail "setup --porep: the same seed, other bytes"
    "$CUZK" setup -q $P --seed 4 "$T/k4.params" 2>/dev/null || fail "setup --porep --seed 4"
    cmp -s "$T/k.params" "$T/k4.params" && fail "setup --porep: another seed, the same bytes"
    "$CUZK" info --full "$T/k.params" >"$T/out" 2>&1 || fail "info --full: $(cat "$T/out")"
    grep -q 'domain size *2048' "$T/out" || fail "info: not a 2^11 domain: $(cat "$T/out")"
    "$CUZK" prove -q $P --porep-seed 3 "$T/k.params" "$T/p.bin" "$T/pub.json" --checked 2>"$T/err" ||
        fail "prove --porep: $(cat "$T/err")"
    "$CUZK" verify -q --format bellperson "$T/k.vk" "$T/pub.json" "$T/p.bin" >"$T/out" 2>&1 ||
        fail "verify (.vk): $(cat "$T/out")"
    "$CUZK" verify -q --format bellperson "$T/k.params" "$T/pub.json" "$T/p.bin" >"$T/out" 2>&1 ||
        fail "verify (.params): $(cat "$T/out")"
    expect_err 4 "the assignment of another seed" prove $P --porep-seed 4 "$T/k.params" "$T/o.bin" "$T/o.json"
    expect_err 1 "--scale 9" setup --format bellperson --porep --scale 9 "$T/o.params"
    expect_err 1 "--porep-seed without --porep" prove --format bellperson --porep-seed 4 "$T/k.params" \
        "$D/mul.r1cs" "$D/mul.wtns" "$T/o.bin" "$T/o.json"
    ;;
errors)
    "$CUZK" setup -q --format bellperson "$D/mul.r1cs" "$T/mul.params" 2>/dev/null || fail "setup mul"
    "$CUZK" setup -q --format bellperson "$D/linear.r1cs" "$T/lin.params" 2>/dev/null || fail "setup linear"
    expect_err 4 "params of another circuit" prove --format bellperson "$T/lin.params" "$D/mul.r1cs" "$D/mul.wtns" \
        "$T/o.bin" "$T/o.json" --seed 1
    expect_err 1 "--host-mem without --gpu" prove --format bellperson --host-mem 8G "$T/mul.params" "$D/mul.r1cs" \
        "$D/mul.wtns" "$T/o.bin" "$T/o.json" --seed 1
    expect_err 1 "--stage-bases maybe" prove --format bellperson --stage-bases maybe "$T/mul.params" "$D/mul.r1cs" \
        "$D/mul.wtns" "$T/o.bin" "$T/o.json" --seed 1
    expect_err 1 "--stage-bases without --gpu" prove --format bellperson --stage-bases yes "$T/mul.params" \
        "$D/mul.r1cs" "$D/mul.wtns" "$T/o.bin" "$T/o.json" --seed 1
    expect_err 1 "--gpus 0" prove --format bellperson --gpu --gpus 0 "$T/mul.params" "$D/mul.r1cs" \
        "$D/mul.wtns" "$T/o.bin" "$T/o.json" --seed 1
    expect_err 1 "--gpus without --gpu" prove --format bellperson --gpus all "$T/mul.params" "$D/mul.r1cs" \
        "$D/mul.wtns" "$T/o.bin" "$T/o.json" --seed 1
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
