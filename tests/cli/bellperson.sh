#!/usr/bin/env bash
# `cuzk verify --format bellperson` and `cuzk info` on bellperson files made
# independently of cuzk: snarkjs's BLS12-381 fixture proofs (tests/data/interop)
# re-encoded as a bellperson .vk and 192-byte proofs by @noble/curves
# (tests/interop/bp_convert.mjs). Checks exit codes (0 valid, 5 invalid, 4 files
# disagree, 3 malformed), one-line errors, multi-partition proofs, a .params as
# the key (cuzk-bp-points params), and the parameters.json digest against
# coreutils' b2sum.
#   bellperson.sh <cuzk> <cuzk-bp-points> <repo-root>
# Exit 77 (skipped) without node / node_modules.
set -uo pipefail
CUZK=$1 BPP=$2 ROOT=$3
D="$ROOT/tests/data/interop/bls12381"
CONV="$ROOT/tests/interop/bp_convert.mjs"
command -v node >/dev/null || { echo "skipped: no node"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-bp.XXXXXX")
trap 'rm -rf "$T"' EXIT
LOG="$T/.log"
fail() { echo "FAIL: $*"; [ -s "$LOG" ] && tail -n 20 "$LOG"; exit 1; }
run() { timeout 120 "$@" >"$LOG" 2>&1; RC=$?; }
expect() {   # expect CODE DESC CMD...
  local code=$1 desc=$2; shift 2
  run "$@"
  [ "$RC" = "$code" ] || fail "$desc: exit $RC, expected $code: $*"
  if [ "$code" != 0 ]; then
    grep -q '^Error: ' "$LOG" && [ "$(grep -c '^Error: ' "$LOG")" = 1 ] || fail "$desc: expected one 'Error:' line"
  fi
  echo "  $desc -> $RC $(grep '^Error: ' "$LOG" | head -n1)"
}
node "$CONV" vk "$D/mul.vkey.json" "$T/k.vk"; rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "bp_convert vk"
node "$CONV" proof "$D/mul.proof.json" "$T/p.bin" || fail "bp_convert proof"
node "$CONV" proof "$D/mul.proof.json" "$D/mul.proof.json" "$D/mul.proof.json" "$T/p3.bin" || fail "bp_convert proof x3"
cp "$D/mul.public.json" "$T/pub.json"
PUB=$(tr -d ' \n' < "$T/pub.json")
echo "[$PUB,$PUB,$PUB]" > "$T/pub3.json"
V="$CUZK verify --format bellperson"

expect 0 "valid proof (.vk)" $V "$T/k.vk" "$T/pub.json" "$T/p.bin"
grep -qx 'OK!' "$LOG" || fail "no OK!"
expect 0 "three partitions" $V "$T/k.vk" "$T/pub3.json" "$T/p3.bin"
echo "[$PUB]" > "$T/pub1.json"
expect 0 "one partition as an array of one array" $V "$T/k.vk" "$T/pub1.json" "$T/p.bin"
"$BPP" params "$T/k.vk" "$T/k.params" 7 5 6 4 || fail "cuzk-bp-points params"
expect 0 "valid proof (.params as the key)" $V "$T/k.params" "$T/pub.json" "$T/p.bin"

# Inputs that disagree with the key or the proof: 4.
echo '["13172544000"]' > "$T/short.json"
expect 4 "too few inputs" $V "$T/k.vk" "$T/short.json" "$T/p.bin"
expect 4 "partitions != proofs" $V "$T/k.vk" "$T/pub3.json" "$T/p.bin"
# A wrong input: 5; a value >= r or not a number: 3.
echo '["13172544001","5"]' > "$T/bad.json"
expect 5 "tampered input" $V "$T/k.vk" "$T/bad.json" "$T/p.bin"
grep -qx 'Invalid proof' "$LOG" || fail "no 'Invalid proof'"
echo "[$PUB,[\"13172544000\",\"6\"],$PUB]" > "$T/bad3.json"
expect 5 "tampered input of partition 1" $V "$T/k.vk" "$T/bad3.json" "$T/p3.bin"
grep -q 'partition 1 of 3' "$LOG" || fail "the failing partition is not named"
echo '["52435875175126190479447740508185965837690552500527637822603658699938581184513","5"]' > "$T/r.json"
expect 3 "input = r" $V "$T/k.vk" "$T/r.json" "$T/p.bin"
echo '[1, 2]' > "$T/num.json"
expect 3 "numbers instead of strings" $V "$T/k.vk" "$T/num.json" "$T/p.bin"
echo "[$PUB,[\"1\"]]" > "$T/ragged.json"
expect 3 "partitions of different lengths" $V "$T/k.vk" "$T/ragged.json" "$T/p3.bin"

# Proof bytes: every byte flipped (one bit each, bit chosen per byte) is
# invalid (5) — except the sort flag, which negates a point and is then
# caught by the pairing check (also 5).
for i in $(seq 0 191); do
  cp "$T/p.bin" "$T/f.bin"
  b=$(od -An -tu1 -j "$i" -N1 "$T/p.bin" | tr -d ' ')
  printf "$(printf '\\%03o' $(( b ^ (1 << (i % 8)) )))" | dd of="$T/f.bin" bs=1 seek="$i" conv=notrunc status=none
  run $V "$T/k.vk" "$T/pub.json" "$T/f.bin"
  [ "$RC" = 5 ] || fail "proof byte $i flipped: exit $RC"
done
echo "  192 single-byte flips of the proof -> 5"
# Partition order: a second statement of the same circuit (c = 7: witness by
# circom2 + snarkjs, proof by cuzk) — both orders of the inputs with one
# proof order: only the matching one verifies.
CIRCOM="$ROOT/node_modules/.bin/circom2" SNARKJS="$ROOT/node_modules/.bin/snarkjs"
if [ -x "$CIRCOM" ] && [ -x "$SNARKJS" ]; then
  mkdir -p "$T/c"
  (cd "$ROOT/tests/circuits" && "$CIRCOM" mul.circom --wasm --O1 --prime bls12381 -o "$T/c" >"$LOG" 2>&1) || fail "circom2"
  echo '{"a":"3","b":"11","c":"7"}' > "$T/c/in.json"
  "$SNARKJS" wtns calculate "$T/c/mul_js/mul.wasm" "$T/c/in.json" "$T/c/w.wtns" >"$LOG" 2>&1 || fail "snarkjs wtns calculate"
  run "$CUZK" prove "$D/mul.zkey" "$T/c/w.wtns" "$T/c/proof.json" "$T/c/public.json"
  [ "$RC" = 0 ] || fail "cuzk prove of the second statement"
  node "$CONV" proof "$D/mul.proof.json" "$T/c/proof.json" "$T/p12.bin" || fail "bp_convert proof x2"
  PUB2=$(tr -d ' \n' < "$T/c/public.json")
  [ "$PUB2" != "$PUB" ] || fail "the second statement has the same inputs"
  echo "[$PUB,$PUB2]" > "$T/pub12.json"
  echo "[$PUB2,$PUB]" > "$T/pub21.json"
  expect 0 "two statements, partitions in order" $V "$T/k.vk" "$T/pub12.json" "$T/p12.bin"
  expect 5 "two statements, partitions swapped" $V "$T/k.vk" "$T/pub21.json" "$T/p12.bin"
  node "$CONV" proof "$T/c/proof.json" "$D/mul.proof.json" "$T/p21.bin" || fail "bp_convert proof x2"
  expect 0 "swapped proofs with swapped inputs" $V "$T/k.vk" "$T/pub21.json" "$T/p21.bin"
  expect 5 "swapped proofs, inputs in order" $V "$T/k.vk" "$T/pub12.json" "$T/p21.bin"
else
  echo "  (partition order: skipped, no circom2/snarkjs in node_modules)"
fi
head -c 191 "$T/p.bin" > "$T/t.bin"
expect 3 "truncated proof" $V "$T/k.vk" "$T/pub.json" "$T/t.bin"
cat "$T/p.bin" "$T/p.bin" | head -c 200 > "$T/t.bin"
expect 3 "proof with extra bytes" $V "$T/k.vk" "$T/pub.json" "$T/t.bin"
# Key files.
head -c 1000 "$T/k.vk" > "$T/t.vk"
expect 3 "truncated .vk" $V "$T/t.vk" "$T/pub.json" "$T/p.bin"
head -c $(( $(stat -c %s "$T/k.params") - 1 )) "$T/k.params" > "$T/t.params"
expect 3 "truncated .params" $V "$T/t.params" "$T/pub.json" "$T/p.bin"
{ cat "$T/k.params"; printf x; } > "$T/o.params"
expect 3 "oversized .params" $V "$T/o.params" "$T/pub.json" "$T/p.bin"
expect 2 "missing key" $V "$T/none.vk" "$T/pub.json" "$T/p.bin"
expect 1 "unknown format" $CUZK verify --format zcash "$T/k.vk" "$T/pub.json" "$T/p.bin"

# info: structure and the parameters.json digest (b2sum, coreutils).
expect 0 "info .vk" "$CUZK" info "$T/k.vk"
grep -q "IC points        3" "$LOG" || fail "info .vk: IC count"
grep -q "digest           $(b2sum "$T/k.vk" | cut -c1-32) " "$LOG" || fail "info .vk: digest != b2sum"
expect 0 "info .params" "$CUZK" info --full "$T/k.params"
grep -q "domain size      8 (2^3" "$LOG" || fail "info .params: domain"
grep -q "section B_G2     4 points (G2, 768 bytes)" "$LOG" || fail "info .params: B_G2"
grep -q "digest           $(b2sum "$T/k.params" | cut -c1-32) " "$LOG" || fail "info .params: digest != b2sum"
expect 3 "info truncated .params" "$CUZK" info "$T/t.params"
echo "ok"
