#!/usr/bin/env bash
# Known answers from eigerco/polka-storage (Apache-2.0): its pallet tests hold
# a 2 KiB PoRep proof and a 2 KiB Window PoSt proof with their verifying keys
# (compressed points) and chain-level inputs. Nothing of them is committed
# here: the values are read from a polka-storage checkout at run time.
#
#   kat_polka.sh <cuzk> <cuzk repo root> <polka-storage checkout>
#
# Checks that both proofs verify from their raw inputs (`cuzk filecoin
# inputs` + `cuzk verify --format bellperson`), and that every tampered
# chain-level input, every tampered public input, every flipped proof byte
# and a wrong partition count are rejected. The keys are decoded and
# re-encoded as .vk by @noble/curves (tests/interop/bp_convert.mjs).
# Exit 0 pass, 1 fail, 77 skipped (no node / node_modules).
# CTest runs it when configured with -DCUZK_POLKA_STORAGE_DIR=<checkout>.
set -uo pipefail
CUZK=$1 ROOT=$2 POLKA=$3
CONV="$ROOT/tests/interop/bp_convert.mjs"
TESTS="$POLKA/pallets/proofs/src/tests"
command -v node >/dev/null || { echo "skipped: no node"; exit 77; }
[ -f "$TESTS/porep.rs" ] && [ -f "$TESTS/post.rs" ] || { echo "FAIL: no $TESTS/{porep,post}.rs"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-kat.XXXXXX")
trap 'rm -rf "$T"' EXIT
LOG="$T/.log"
fail() { echo "FAIL: $*"; [ -s "$LOG" ] && tail -n 20 "$LOG"; exit 1; }
run() { timeout 120 "$@" >"$LOG" 2>&1; RC=$?; }

# The hex string assigned in the body of `fn NAME` of a Rust file.
hexof() {
  awk -v fn="fn $2(" 'index($0, fn) { f = 1 }
    f && /hex_str = "/ { match($0, /"[0-9a-fA-F]*"/); print substr($0, RSTART + 1, RLENGTH - 2); exit }' "$1"
}
# A byte array literal `[V; 32]` assigned to `let NAME =` in a Rust file, as hex.
arr32() {
  local v
  v=$(sed -n "s/.*let $2 = \[\([0-9]*\)u8; 32\].*/\1/p" "$1" | head -n1)
  [ -n "$v" ] || return 1
  for _ in $(seq 32); do printf '%02x' "$v"; done
}
num() { sed -n "s/.*let $2 = SectorNumber::new(\([0-9]*\)).*/\1/p" "$1" | head -n1; }

P="$TESTS/porep.rs" S="$TESTS/post.rs"
PVK=$(hexof "$P" default_porep_verifyingkey) PPROOF=$(hexof "$P" default_porep_proof)
COMM_R=$(hexof "$P" default_porep_comm_r) COMM_D=$(hexof "$P" default_porep_comm_d)
SVK=$(hexof "$S" default_post_verifyingkey) SPROOF=$(hexof "$S" default_post_proof)
S_COMM_R=$(hexof "$S" default_porep_comm_r)
TICKET=$(arr32 "$P" ticket) SEED=$(arr32 "$P" seed) PROVER=$(arr32 "$P" prover_id) RAND=$(arr32 "$S" randomness)
SECTOR=$(num "$P" sector) S_SECTOR=$(num "$S" sector_id)
for v in PVK PPROOF COMM_R COMM_D SVK SPROOF S_COMM_R TICKET SEED PROVER RAND SECTOR S_SECTOR; do
  [ -n "${!v}" ] || fail "could not read $v from the polka-storage tests"
done
grep -q 'StackedDRG2KiBV1P1' "$P" && grep -q 'StackedDRGWindow2KiBV1P1' "$S" || fail "not the 2 KiB fixtures"
# polka-storage's porep id of StackedDRG2KiBV1P1: registered proof id 0, nonce 0
# (pallets/proofs/src/porep/config.rs), i.e. 32 zero bytes.
PID=$(printf '%064d' 0)
echo "porep: sector $SECTOR, ticket ${TICKET:0:8}.., seed ${SEED:0:8}.., prover ${PROVER:0:8}.., comm_r ${COMM_R:0:8}.."
echo "post:  sector $S_SECTOR, randomness ${RAND:0:8}.., comm_r ${S_COMM_R:0:8}.."

node "$CONV" vkc "$PVK" "$T/porep.vk"; rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "porep vk"
node "$CONV" vkc "$SVK" "$T/post.vk" || fail "post vk"
node "$CONV" hex "$PPROOF" "$T/porep.bin" && node "$CONV" hex "$SPROOF" "$T/post.bin" || fail "proof bytes"

porep_inputs() {   # porep_inputs OUT [overrides: api sector ticket seed comm_r comm_d prover porep_id]
  local out=$1
  "$CUZK" filecoin inputs porep --sector-size 2KiB --api-version "${2:-1.1.0}" --porep-id "${9:-$PID}" \
    --prover-id "${8:-$PROVER}" --sector "${3:-$SECTOR}" --ticket "${4:-$TICKET}" --seed "${5:-$SEED}" \
    --comm-r "${6:-$COMM_R}" --comm-d "${7:-$COMM_D}" > "$out" 2>"$LOG"
}
post_inputs() {    # post_inputs OUT [api randomness sector comm_r]
  "$CUZK" filecoin inputs window-post --sector-size 2KiB --api-version "${2:-1.2.0}" --randomness "${3:-$RAND}" \
    "${4:-$S_SECTOR}:${5:-$S_COMM_R}" > "$1" 2>"$LOG"
}
V="$CUZK verify --format bellperson"
expect_verify() {  # expect_verify CODE DESC VK PUB PROOF
  run $V "$3" "$4" "$5"
  [ "$RC" = "$1" ] || fail "$2: exit $RC, expected $1"
}

# 1. Both proofs verify from their raw inputs.
porep_inputs "$T/porep.json" || fail "filecoin inputs porep"
[ "$(grep -c '"' "$T/porep.json")" = 39 ] || fail "porep: expected 39 inputs"
expect_verify 0 "PoRep" "$T/porep.vk" "$T/porep.json" "$T/porep.bin"
echo "  PoRep 2KiB proof verifies (39 inputs)"
porep_inputs "$T/porep12.json" 1.2.0 || fail "inputs 1.2.0"
cmp -s "$T/porep.json" "$T/porep12.json" || fail "PoRep inputs differ between API 1.1 and 1.2"
post_inputs "$T/post.json" || fail "filecoin inputs window-post"
[ "$(grep -c '"' "$T/post.json")" = 22 ] || fail "post: expected 22 inputs"
expect_verify 0 "Window PoSt" "$T/post.vk" "$T/post.json" "$T/post.bin"
echo "  Window PoSt 2KiB proof verifies (22 inputs)"

# 2. Tampered chain-level inputs: each gives other public inputs, rejected.
flip() { local h=$1; printf '%s%02x%s' "${h:0:2*$2}" $(( 0x${h:2*$2:2} ^ 1 )) "${h:2*$2+2}"; }
n=0
for spec in "api:1.0.0" "sector:$((SECTOR + 1))" "ticket:$(flip "$TICKET" 5)" "seed:$(flip "$SEED" 31)" \
            "comm_r:$(flip "$COMM_R" 0)" "comm_d:$(flip "$COMM_D" 17)" "prover:$(flip "$PROVER" 3)" \
            "porep_id:$(flip "$PID" 0)"; do
  k=${spec%%:*} v=${spec#*:}
  a=(1.1.0 "$SECTOR" "$TICKET" "$SEED" "$COMM_R" "$COMM_D" "$PROVER" "$PID")
  case $k in api) a[0]=$v;; sector) a[1]=$v;; ticket) a[2]=$v;; seed) a[3]=$v;; comm_r) a[4]=$v;;
    comm_d) a[5]=$v;; prover) a[6]=$v;; porep_id) a[7]=$v;; esac
  porep_inputs "$T/t.json" "${a[@]}" || fail "inputs with tampered $k"
  expect_verify 5 "PoRep with tampered $k" "$T/porep.vk" "$T/t.json" "$T/porep.bin"
  n=$((n + 1))
done
for spec in "randomness:$(flip "$RAND" 9)" "sector:$((S_SECTOR + 1))" "comm_r:$(flip "$S_COMM_R" 30)" "sector-added:"; do
  k=${spec%%:*} v=${spec#*:}
  case $k in
    randomness) post_inputs "$T/t.json" 1.2.0 "$v";;
    sector) post_inputs "$T/t.json" 1.2.0 "$RAND" "$v";;
    comm_r) post_inputs "$T/t.json" 1.2.0 "$RAND" "$S_SECTOR" "$v";;
    sector-added) # a second sector makes API 1.0/1.1 challenge indices differ from 1.2
      "$CUZK" filecoin inputs window-post --sector-size 2KiB --api-version 1.2.0 --randomness "$RAND" \
        "$S_SECTOR:$S_COMM_R" "$((S_SECTOR + 1)):$S_COMM_R" > "$T/a12.json" &&
      "$CUZK" filecoin inputs window-post --sector-size 2KiB --api-version 1.0.0 --randomness "$RAND" \
        "$S_SECTOR:$S_COMM_R" "$((S_SECTOR + 1)):$S_COMM_R" > "$T/a10.json" || fail "post api inputs"
      ! cmp -s "$T/a12.json" "$T/a10.json" || fail "PoSt API 1.0 and 1.2 give the same inputs for two sectors"
      cp "$T/a12.json" "$T/t.json";;
  esac
  expect_verify 5 "PoSt with tampered $k" "$T/post.vk" "$T/t.json" "$T/post.bin"
  n=$((n + 1))
done
echo "  $n tampered chain-level inputs rejected (exit 5)"

# 3. Every public input, changed by one, rejected.
bump() {  # bump IN OUT INDEX: value INDEX += 1 (decimal strings, BigInt)
  node -e 'const fs=require("fs");const a=JSON.parse(fs.readFileSync(process.argv[1]));
    a[+process.argv[3]]=(BigInt(a[+process.argv[3]])+1n).toString();fs.writeFileSync(process.argv[2],JSON.stringify(a));' "$@"
}
for i in $(seq 0 38); do
  bump "$T/porep.json" "$T/t.json" "$i"
  expect_verify 5 "PoRep input $i + 1" "$T/porep.vk" "$T/t.json" "$T/porep.bin"
done
for i in $(seq 0 21); do
  bump "$T/post.json" "$T/t.json" "$i"
  expect_verify 5 "PoSt input $i + 1" "$T/post.vk" "$T/t.json" "$T/post.bin"
done
echo "  39 + 22 public inputs changed by one: all rejected (exit 5)"

# 4. Every proof byte flipped (one bit), both proofs.
for f in porep post; do
  for i in $(seq 0 191); do
    cp "$T/$f.bin" "$T/f.bin"
    b=$(od -An -tu1 -j "$i" -N1 "$T/$f.bin" | tr -d ' ')
    printf "$(printf '\\%03o' $(( b ^ (1 << (i % 8)) )))" | dd of="$T/f.bin" bs=1 seek="$i" conv=notrunc status=none
    expect_verify 5 "$f proof byte $i flipped" "$T/$f.vk" "$T/$f.json" "$T/f.bin"
  done
done
echo "  2 x 192 flipped proof bytes rejected (exit 5)"

# 5. Partitions: the two proofs concatenated, or a proof twice, against one
#    partition's inputs (4); each proof with the other's key (5 or 4).
cat "$T/porep.bin" "$T/porep.bin" > "$T/two.bin"
expect_verify 4 "two proofs, one partition of inputs" "$T/porep.vk" "$T/porep.json" "$T/two.bin"
{ printf '['; cat "$T/porep.json"; printf ','; cat "$T/porep.json"; printf ']'; } > "$T/two.json"
expect_verify 0 "the PoRep proof as two partitions of the same statement" "$T/porep.vk" "$T/two.json" "$T/two.bin"
cat "$T/post.bin" "$T/porep.bin" > "$T/mixed.bin"
expect_verify 5 "a PoSt proof as partition 0 of the PoRep" "$T/porep.vk" "$T/two.json" "$T/mixed.bin"
expect_verify 4 "PoRep inputs against the PoSt key" "$T/post.vk" "$T/porep.json" "$T/porep.bin"
echo "  partition count and mixed partitions rejected"
echo "ok"
