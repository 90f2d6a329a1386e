#!/usr/bin/env bash
# cuzk <-> snarkjs interop tests. One invocation = one CTest test:
#
#   interop.sh <cuzk-binary> <repo-root> <scenario> <curve> [circuit]
#
# scenario (curve = bn128 | bls12381, circuit = a tests/circuits/*.circom main):
#   prove    <circ>  cuzk proves with the committed snarkjs zkey + wtns; snarkjs
#                    verifies; public.json value-equal to snarkjs's; proofs are
#                    randomized; --threads 1, -v (and --rapidsnark for mul) work
#   verify   <circ>  snarkjs proofs (committed + fresh + rapidsnark-style) -> cuzk verify OK
#   setup    <circ>  cuzk setup zkey -> snarkjs prove/export vk/verify; cuzk prove on it
#   exportvk <circ>  cuzk export-vk == snarkjs zkey export verificationkey (JSON value)
#   tamper           tampered proofs (swapped / negated / off-curve / non-subgroup
#                    points) and public inputs (+1, +r, count) rejected by snarkjs
#                    AND cuzk verify, with docs/CLI.md's exit code
#   malformed        bad inputs to cuzk prove: one-line "Error:" naming the file,
#                    the exit code docs/CLI.md gives, no output file left behind
#   gen              cuzk gen -> (cuzk setup | snarkjs setup) -> cuzk prove -> snarkjs verify
#   info             cuzk info on each file kind
#   json             JSON read as snarkjs reads it (JSON.parse): a byte-order mark
#                    and a NUL inside a string rejected by both, duplicate keys
#                    resolved by both to the last one, leading zeros and
#                    \u escapes of digits accepted by both
#   keyapi           the library's key handle (cuzk-api-prove, next to the cuzk binary): one
#                    key, three witnesses of mul computed by circom's wasm; each proof
#                    verified by snarkjs; cuzk_proof_to_bytes equal to @noble/curves'
#                    compressed points (BLS12-381) / snarkjs's Solidity calldata (BN254)
#
# Exit 0 = pass, 1 = fail (first mismatch, with the command output), 77 = skip
# (node or node_modules/.bin/snarkjs missing: run `npm ci` in the repo root).
# INTEROP_KEEP=1 keeps the temp directory for debugging.
set -uo pipefail

[ $# -ge 4 ] || { echo "usage: $0 <cuzk> <repo-root> <scenario> <curve> [circuit]" >&2; exit 2; }
CUZK=$1 ROOT=$2 SCEN=$3 CURVE=$4 CIRC=${5:-mul}
case "$CURVE" in
  bn128) OTHER=bls12381 ;;
  bls12381) OTHER=bn128 ;;
  *) echo "unknown curve $CURVE" >&2; exit 2 ;;
esac
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
TOOL="$ROOT/tests/interop/tool.mjs"
D="$ROOT/tests/data/interop/$CURVE"
DO="$ROOT/tests/data/interop/$OTHER"
TAG="[$SCEN $CURVE${5:+ $5}]"

if ! command -v node >/dev/null || [ ! -x "$SNARKJS" ]; then
  echo "SKIP $TAG: node or $SNARKJS missing (run 'npm ci' in $ROOT)"
  exit 77
fi
[ -x "$CUZK" ] || { echo "FAIL $TAG: cuzk binary '$CUZK' not found or not executable"; exit 1; }
[ -f "$D/$CIRC.zkey" ] || { echo "FAIL $TAG: no fixture $D/$CIRC.zkey"; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-interop.XXXXXX")
if [ "${INTEROP_KEEP:-0}" = 1 ]; then echo "keeping $T"; else trap 'rm -rf "$T"' EXIT; fi
LOG="$T/log"   # stdout+stderr of the last command run by run()
ERR="$T/err"   # stderr alone of the last command run by run()

fail() {
  echo "FAIL $TAG: $*"
  if [ -s "$LOG" ]; then echo "---- output of the last command ----"; tail -n 40 "$LOG"; fi
  exit 1
}
note() { echo "  $*"; }

# run CMD...: runs with a 5-minute cap; sets RC, leaves output in $LOG/$ERR.
run() {
  timeout 300 "$@" >"$T/stdout" 2>"$ERR"
  RC=$?
  cat "$T/stdout" "$ERR" >"$LOG"
  return 0
}
ok() {   # ok DESC CMD...: CMD must exit 0
  local desc=$1; shift
  run "$@"
  [ $RC = 0 ] || fail "$desc: exit $RC (expected 0): $*"
}
cz() { ok "cuzk $1" "$CUZK" "$@"; }
sj() { ok "snarkjs $1 $2" "$SNARKJS" "$@"; }
tool() { ok "tool.mjs $1" node "$TOOL" "$@"; }

# Both verifiers: "OK!" and exit 0 to accept.
sj_accept() {   # VK PUB PROOF DESC
  run "$SNARKJS" groth16 verify "$1" "$2" "$3"
  [ $RC = 0 ] && grep -q 'OK!' "$LOG" || fail "snarkjs groth16 verify rejected $4 (exit $RC)"
}
cz_accept() {
  run "$CUZK" verify "$1" "$2" "$3"
  [ $RC = 0 ] && grep -q 'OK!' "$LOG" || fail "cuzk verify rejected $4 (exit $RC)"
}
# Rejection: non-zero exit, and not a crash (signal / timeout). cuzk must use
# the exit code docs/CLI.md gives for the case (CODE): 5 and "Invalid proof"
# for a well-formed but wrong proof (its points included: off the curve, out
# of the subgroup), 3 for a malformed input (bad JSON, a public value >=
# modulus), 4 for inputs that disagree (public count).
sj_reject() {
  run "$SNARKJS" groth16 verify "$1" "$2" "$3"
  [ $RC != 0 ] || fail "snarkjs groth16 verify ACCEPTED $4"
  ! grep -q 'OK!' "$LOG" || fail "snarkjs printed OK! for $4"
}
cz_reject() {   # VK PUB PROOF DESC CODE
  run "$CUZK" verify "$1" "$2" "$3"
  [ $RC != 0 ] || fail "cuzk verify ACCEPTED $4"
  [ $RC -lt 124 ] || fail "cuzk verify crashed or timed out on $4 (exit $RC)"
  ! grep -q 'OK!' "$LOG" || fail "cuzk verify printed OK! for $4"
  [ $RC = "$5" ] || fail "cuzk verify: exit $RC for $4, docs/CLI.md says $5"
  if [ "$5" = 5 ]; then grep -q '^Invalid proof' "$T/stdout" || fail "cuzk verify: no 'Invalid proof' for $4"
  else grep -q '^Error: ' "$ERR" || fail "cuzk verify: no 'Error: ' line on stderr for $4"; fi
}
both_reject() { sj_reject "$@"; cz_reject "$@"; note "rejected by both: $4"; }

npub_of() { node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).nPublic)' "$1"; }
same_bytes() { cmp -s "$1" "$2" && echo "byte-identical" || echo "value-equal, formatting differs"; }

# ---------------------------------------------------------------------------
scen_prove() {
  local Z="$D/$CIRC.zkey" W="$D/$CIRC.wtns" VK="$D/$CIRC.vkey.json"
  cz prove "$Z" "$W" "$T/p1.json" "$T/pub1.json"
  [ -s "$T/p1.json" ] && [ -s "$T/pub1.json" ] || fail "cuzk prove exited 0 but left no proof/public file"
  tool proofshape "$T/p1.json" "$CURVE"
  run node "$TOOL" jsoneq "$T/pub1.json" "$D/$CIRC.public.json"
  [ $RC = 0 ] || fail "public.json differs from snarkjs groth16 prove's"
  note "public.json vs snarkjs: $(same_bytes "$T/pub1.json" "$D/$CIRC.public.json")"
  sj_accept "$VK" "$T/pub1.json" "$T/p1.json" "cuzk proof"
  note "snarkjs verifies cuzk's proof"
  # A second proof (single thread) must also verify and must differ: r, s
  # are fresh randomness per proof (zero-knowledge), so equal proofs mean a
  # broken RNG or the test-only r = s = 0 mode leaking into the CLI.
  cz prove --threads 1 "$Z" "$W" "$T/p2.json" "$T/pub2.json"
  sj_accept "$VK" "$T/pub2.json" "$T/p2.json" "cuzk proof (--threads 1)"
  run node "$TOOL" jsoneq "$T/p1.json" "$T/p2.json"
  [ $RC = 1 ] || fail "two cuzk proofs of the same witness are identical (r, s not random?)"
  note "--threads 1 proof verifies and differs from the first"
  # -v: per-phase timing lines on stderr (docs/CLI.md), still a valid proof.
  cz prove -v "$Z" "$W" "$T/p3.json" "$T/pub3.json"
  grep -q 'CUZK_TIMING phase=total ms=' "$ERR" || fail "cuzk prove -v printed no 'CUZK_TIMING phase=total' line"
  sj_accept "$VK" "$T/pub3.json" "$T/p3.json" "cuzk proof (-v)"
  note "prove -v reports timings, proof verifies"
  if [ "$CIRC" = mul ]; then
    cz prove --rapidsnark "$Z" "$W" "$T/p4.json" "$T/pub4.json"
    tool rapidshape "$T/p4.json" "$T/pub4.json"
    sj_accept "$VK" "$T/pub4.json" "$T/p4.json" "cuzk proof (--rapidsnark)"
    note "prove --rapidsnark: compact rapidsnark layout, snarkjs verifies"
  fi
}

scen_verify() {
  local VK="$D/$CIRC.vkey.json"
  cz_accept "$VK" "$D/$CIRC.public.json" "$D/$CIRC.proof.json" "committed snarkjs proof"
  sj groth16 prove "$D/$CIRC.zkey" "$D/$CIRC.wtns" "$T/p.json" "$T/pub.json"
  cz_accept "$VK" "$T/pub.json" "$T/p.json" "fresh snarkjs proof"
  # rapidsnark writes compact JSON without the "curve" key.
  tool compact "$T/p.json" "$T/pr.json"
  cz_accept "$VK" "$T/pub.json" "$T/pr.json" "rapidsnark-style proof (no curve field)"
  note "cuzk verify accepts committed, fresh and rapidsnark-style snarkjs proofs"
}

scen_setup() {
  local W="$D/$CIRC.wtns" npub
  npub=$(npub_of "$D/$CIRC.vkey.json")
  cz setup "$D/$CIRC.r1cs" "$T/c.zkey"
  sj zkey export verificationkey "$T/c.zkey" "$T/vk.json"
  tool vkshape "$T/vk.json" "$CURVE" "$npub"
  run node "$TOOL" jsoneq "$T/vk.json" "$D/$CIRC.vkey.json"
  [ $RC = 1 ] || fail "cuzk setup produced the fixture's verification key (toxic waste not random?)"
  sj groth16 prove "$T/c.zkey" "$W" "$T/sp.json" "$T/spub.json"
  sj_accept "$T/vk.json" "$T/spub.json" "$T/sp.json" "snarkjs proof with cuzk-setup zkey"
  note "snarkjs proves + verifies with the cuzk setup zkey"
  cz prove "$T/c.zkey" "$W" "$T/cp.json" "$T/cpub.json"
  sj_accept "$T/vk.json" "$T/cpub.json" "$T/cp.json" "cuzk proof with cuzk-setup zkey"
  note "cuzk proves with its own zkey, snarkjs verifies"
}

scen_exportvk() {
  cz export-vk "$D/$CIRC.zkey" "$T/vk.json"
  tool vkshape "$T/vk.json" "$CURVE" "$(npub_of "$D/$CIRC.vkey.json")"
  run node "$TOOL" jsoneq "$T/vk.json" "$D/$CIRC.vkey.json"
  [ $RC = 0 ] || fail "cuzk export-vk differs from snarkjs zkey export verificationkey"
  note "verification_key.json vs snarkjs: $(same_bytes "$T/vk.json" "$D/$CIRC.vkey.json")"
}

scen_tamper() {
  local VK="$D/$CIRC.vkey.json" P="$D/$CIRC.proof.json" PUB="$D/$CIRC.public.json" r
  cz_accept "$VK" "$PUB" "$P" "untampered committed proof"
  # A second, independent valid proof supplies valid replacement points.
  sj groth16 prove "$D/$CIRC.zkey" "$D/$CIRC.wtns" "$T/q.json" "$T/qpub.json"
  for k in pi_a pi_b pi_c; do
    tool swap "$P" "$T/q.json" $k "$T/sw_$k.json"
    both_reject "$VK" "$PUB" "$T/sw_$k.json" "$k from another valid proof" 5
  done
  tool negate "$P" pi_a "$CURVE" "$T/neg_a.json"
  both_reject "$VK" "$PUB" "$T/neg_a.json" "pi_a negated" 5
  tool negate "$P" pi_c "$CURVE" "$T/neg_c.json"
  both_reject "$VK" "$PUB" "$T/neg_c.json" "pi_c negated" 5
  tool pubadd "$PUB" 0 1 "$T/pub_first.json"
  both_reject "$VK" "$T/pub_first.json" "$P" "public[0] + 1" 5
  tool pubadd "$PUB" -1 1 "$T/pub_last.json"
  both_reject "$VK" "$T/pub_last.json" "$P" "public[last] + 1" 5
  # Points that are not group elements: an invalid proof for both (snarkjs:
  # isWellConstructed fails -> "Invalid proof").
  tool offcurve "$P" pi_a "$T/off_a.json"
  both_reject "$VK" "$PUB" "$T/off_a.json" "pi_a off the curve" 5
  tool offcurve "$P" pi_c "$T/off_c.json"
  both_reject "$VK" "$PUB" "$T/off_c.json" "pi_c off the curve" 5
  tool nonsubgroup "$P" pi_b "$CURVE" "$T/sub_b.json"
  both_reject "$VK" "$PUB" "$T/sub_b.json" "pi_b on the curve, outside the subgroup" 5
  if [ "$CURVE" = bls12381 ]; then   # BN254 G1 has cofactor 1
    tool nonsubgroup "$P" pi_a "$CURVE" "$T/sub_a.json"
    both_reject "$VK" "$PUB" "$T/sub_a.json" "pi_a on the curve, outside the subgroup" 5
  fi
  r=$(node -e "console.log({bn128: '21888242871839275222246405745257275088548364400416034343698204186575808495617', bls12381: '52435875175126190479447740508185965837690552500527637822603658699938581184513'}['$CURVE'])")
  tool pubadd "$PUB" 0 "$r" "$T/pub_r.json"
  both_reject "$VK" "$T/pub_r.json" "$P" "public[0] + r (non-canonical, >= r)" 3
  tool pubresize "$PUB" -1 "$T/pub_short.json"
  both_reject "$VK" "$T/pub_short.json" "$P" "one public value missing" 4
  tool pubresize "$PUB" 1 "$T/pub_long.json"
  both_reject "$VK" "$T/pub_long.json" "$P" "one extra public value" 4
}

# expect_error CODE DESC NAMED ZKEY WTNS [PROOF PUBLIC]: cuzk prove must fail
# cleanly with exit CODE (docs/CLI.md: 2 I/O, 3 malformed file, 4 inputs
# disagree), exactly one stderr line "Error: ..." that names NAMED, and
# neither output file left behind.
expect_error() {
  local code=$1; shift
  local desc=$1 named=$2 zkey=$3 wtns=$4 proof=${5:-$T/out/proof.json} pub=${6:-$T/out/public.json}
  rm -rf "$T/out"; mkdir -p "$T/out"
  run "$CUZK" prove "$zkey" "$wtns" "$proof" "$pub"
  [ $RC != 0 ] || fail "$desc: cuzk prove exited 0"
  [ $RC -lt 124 ] || fail "$desc: cuzk prove crashed or timed out (exit $RC)"
  [ $RC = "$code" ] || fail "$desc: exit $RC, docs/CLI.md says $code"
  [ "$(grep -c . "$ERR")" = 1 ] || fail "$desc: expected exactly one line on stderr, got $(grep -c . "$ERR")"
  grep -q '^Error: ' "$ERR" || fail "$desc: stderr line does not start with 'Error: '"
  grep -qF "$named" "$ERR" || fail "$desc: error message does not name '$named'"
  [ ! -e "$proof" ] && [ ! -e "$pub" ] || fail "$desc: output file left behind after failure"
  [ -z "$(ls -A "$T/out")" ] || fail "$desc: stray files left in the output directory: $(ls -A "$T/out")"
  note "$desc -> exit $RC: $(head -n1 "$ERR")"
}

scen_malformed() {
  local Z="$D/mul.zkey" W="$D/mul.wtns" size
  size=$(stat -c %s "$Z")
  tool trunc "$Z" $((size / 2)) "$T/half.zkey"
  expect_error 3 "zkey truncated to half" half.zkey "$T/half.zkey" "$W"
  tool trunc "$Z" 100 "$T/head.zkey"
  expect_error 3 "zkey truncated to 100 bytes" head.zkey "$T/head.zkey" "$W"
  tool trunc "$Z" 0 "$T/empty.zkey"
  expect_error 3 "empty zkey" empty.zkey "$T/empty.zkey" "$W"
  cp "$W" "$T/notazkey.zkey"
  expect_error 3 "wtns passed as zkey" notazkey.zkey "$T/notazkey.zkey" "$W"
  expect_error 2 "missing zkey" missing.zkey "$T/missing.zkey" "$W"
  expect_error 2 "missing wtns" missing.wtns "$Z" "$T/missing.wtns"
  cp "$DO/mul.wtns" "$T/othercurve.wtns"   # same circuit, same nVars, other prime
  expect_error 4 "$OTHER witness with a $CURVE zkey" othercurve.wtns "$Z" "$T/othercurve.wtns"
  cp "$D/nopub.wtns" "$T/wronglen.wtns"
  expect_error 4 "witness of another circuit (wrong length)" wronglen.wtns "$Z" "$T/wronglen.wtns"
  tool trunc "$W" $(( $(stat -c %s "$W") - 16 )) "$T/short.wtns"
  expect_error 3 "truncated witness" short.wtns "$Z" "$T/short.wtns"
  tool wtnsbump "$W" -1 "$T/unsat.wtns"        # internal wire t[9]: breaks one constraint
  expect_error 4 "witness not satisfying the circuit (internal wire)" unsat.wtns "$Z" "$T/unsat.wtns"
  tool wtnsbump "$W" 2 "$T/unsatpub.wtns"      # public input c
  expect_error 4 "witness not satisfying the circuit (public input)" unsatpub.wtns "$Z" "$T/unsatpub.wtns"
  expect_error 2 "unwritable proof path" nodir "$Z" "$W" "$T/out/nodir/proof.json" "$T/out/public.json"
  # Usage errors: non-zero exit, no crash.
  run "$CUZK" prove "$Z" "$W"
  [ $RC = 1 ] || fail "cuzk prove with 2 arguments: exit $RC, docs/CLI.md says 1 (usage)"
  run "$CUZK" no-such-command
  [ $RC = 1 ] || fail "unknown command: exit $RC, docs/CLI.md says 1 (usage)"
  note "usage errors exit 1"
}

scen_gen() {
  local n=300 k=3
  cz gen --constraints $n --curve "$CURVE" --public $k "$T/g.r1cs" "$T/g.wtns"
  # Independent checks of the generated files by snarkjs.
  sj r1cs info "$T/g.r1cs"
  grep -q "# of Constraints: $n\$" "$LOG" || fail "snarkjs r1cs info: expected $n constraints"
  local pi po
  pi=$(sed -n 's/.*# of Public Inputs: //p' "$LOG"); po=$(sed -n 's/.*# of Outputs: //p' "$LOG")
  [ $((pi + po)) = $k ] || fail "snarkjs r1cs info: public inputs + outputs = $pi + $po, expected $k"
  # snarkjs spells the curves bn-128 / bls12-381 here.
  tr -d '-' <"$LOG" | grep -qi "curve: $CURVE" || fail "snarkjs r1cs info: not a $CURVE r1cs"
  sj wtns check "$T/g.r1cs" "$T/g.wtns"
  grep -q 'WITNESS IS CORRECT' "$LOG" || fail "snarkjs wtns check: witness does not satisfy the r1cs"
  note "snarkjs: r1cs has $n constraints, $k public; witness satisfies it"
  tool wtnspub "$T/g.wtns" $k "$T/wpub.json"
  # cuzk setup -> cuzk prove -> snarkjs verify
  cz setup "$T/g.r1cs" "$T/g.zkey"
  cz prove "$T/g.zkey" "$T/g.wtns" "$T/p.json" "$T/pub.json"
  run node "$TOOL" jsoneq "$T/pub.json" "$T/wpub.json"
  [ $RC = 0 ] || fail "public.json is not w[1..$k] of the witness"
  sj zkey export verificationkey "$T/g.zkey" "$T/vk.json"
  sj_accept "$T/vk.json" "$T/pub.json" "$T/p.json" "cuzk proof, cuzk setup, generated circuit"
  note "gen -> cuzk setup -> cuzk prove -> snarkjs verify OK"
  # snarkjs setup (from the committed ptau) -> cuzk prove -> snarkjs verify
  sj groth16 setup "$T/g.r1cs" "$D/pot10.ptau" "$T/s.zkey"
  cz prove "$T/s.zkey" "$T/g.wtns" "$T/sp.json" "$T/spub.json"
  sj zkey export verificationkey "$T/s.zkey" "$T/svk.json"
  sj_accept "$T/svk.json" "$T/spub.json" "$T/sp.json" "cuzk proof, snarkjs setup, generated circuit"
  note "gen -> snarkjs setup -> cuzk prove -> snarkjs verify OK"
}

scen_keyapi() {
  local API CIRCOM VK="$D/mul.vkey.json" i
  API="$(dirname "$CUZK")/cuzk-api-prove"
  CIRCOM="$ROOT/node_modules/.bin/circom2"
  [ -x "$API" ] || fail "no $API (built with the interop tests)"
  [ -x "$CIRCOM" ] || fail "no $CIRCOM"
  # Witnesses of the committed key's circuit (circom2 --O1, as make_fixtures.sh).
  (cd "$ROOT/tests/circuits" && "$CIRCOM" mul.circom --wasm --O1 --prime "$CURVE" -o "$T" >"$LOG" 2>&1) ||
    fail "circom2 mul.circom failed"
  local inputs=('{"a":"3","b":"11","c":"5"}' '{"a":"7","b":"2","c":"9"}' '{"a":"123456789","b":"987654321","c":"3"}')
  for i in 0 1 2; do
    printf '%s' "${inputs[$i]}" >"$T/in$i.json"
    sj wtns calculate "$T/mul_js/mul.wasm" "$T/in$i.json" "$T/w$i.wtns"
  done
  mkdir -p "$T/out"
  ok "cuzk-api-prove" "$API" "$D/mul.zkey" "$T/out" "$T/w0.wtns" "$T/w1.wtns" "$T/w2.wtns"
  for i in 0 1 2; do
    sj_accept "$VK" "$T/out/$i.public.json" "$T/out/$i.proof.json" "proof $i of one loaded key"
    if [ "$CURVE" = bn128 ]; then
      sj zkey export soliditycalldata "$T/out/$i.public.json" "$T/out/$i.proof.json"
      cp "$T/stdout" "$T/calldata$i"
      tool proofbytes "$CURVE" "$T/out/$i.proof.json" "$T/out/$i.bytes" "$T/calldata$i"
    else
      tool proofbytes "$CURVE" "$T/out/$i.proof.json" "$T/out/$i.bytes"
    fi
  done
  note "one key, 3 witnesses: snarkjs verifies each; proof bytes match $([ "$CURVE" = bn128 ] && echo "snarkjs calldata" || echo "@noble/curves")"
}

scen_info() {
  local f
  for f in "$D/mul.r1cs" "$D/mul.wtns" "$D/mul.zkey" "$D/mul.vkey.json" "$D/mul.proof.json"; do
    cz info "$f"
    [ -s "$T/stdout" ] || fail "cuzk info $f printed nothing"
    note "cuzk info $(basename "$f"): $(head -n1 "$T/stdout")"
  done
  tool trunc "$D/mul.zkey" 50 "$T/bad.zkey"
  run "$CUZK" info "$T/bad.zkey"
  [ $RC = 3 ] || fail "cuzk info on a truncated zkey: exit $RC, docs/CLI.md says 3 (malformed)"
  grep -q '^Error: .*bad.zkey' "$ERR" || fail "cuzk info on a truncated zkey: no 'Error:' naming the file"
}

scen_json() {
  local VK="$D/$CIRC.vkey.json" P="$D/$CIRC.proof.json" PUB="$D/$CIRC.public.json"
  sj groth16 prove "$D/$CIRC.zkey" "$D/$CIRC.wtns" "$T/q.json" "$T/qpub.json"
  tool bom "$VK" "$T/bom_vk.json"
  both_reject "$T/bom_vk.json" "$PUB" "$P" "verification key with a byte-order mark" 3
  tool bom "$PUB" "$T/bom_pub.json"
  both_reject "$VK" "$T/bom_pub.json" "$P" "public.json with a byte-order mark" 3
  tool bom "$P" "$T/bom_p.json"
  both_reject "$VK" "$PUB" "$T/bom_p.json" "proof with a byte-order mark" 3
  tool nul "$PUB" 0 "$T/nul_pub.json"
  both_reject "$VK" "$T/nul_pub.json" "$P" "public signal <valid>\\u00001" 3
  tool nul "$P" pi_a.0 "$T/nul_a.json"
  both_reject "$VK" "$PUB" "$T/nul_a.json" "pi_a.x <valid>\\u00001" 3
  tool nul "$P" pi_b.1.0 "$T/nul_b.json"
  both_reject "$VK" "$PUB" "$T/nul_b.json" "pi_b.y.c0 <valid>\\u00001" 3
  tool nul "$VK" vk_alpha_1.1 "$T/nul_vk.json"
  both_reject "$T/nul_vk.json" "$PUB" "$P" "vk_alpha_1.y <valid>\\u00001" 3
  local k
  for k in pi_a pi_b pi_c; do
    tool dupkey "$P" $k "$T/q.json" first "$T/dup_first_$k.json"
    sj_accept "$VK" "$PUB" "$T/dup_first_$k.json" "duplicate $k, the valid one last"
    cz_accept "$VK" "$PUB" "$T/dup_first_$k.json" "duplicate $k, the valid one last"
    tool dupkey "$P" $k "$T/q.json" last "$T/dup_last_$k.json"
    both_reject "$VK" "$PUB" "$T/dup_last_$k.json" "duplicate $k, another proof's last" 5
  done
  note "duplicate keys: the last one counts for both"
  tool dupkey "$VK" vk_delta_2 "$D/nopub.vkey.json" last "$T/dup_vk.json"
  both_reject "$T/dup_vk.json" "$PUB" "$P" "verification key with another key's vk_delta_2 last" 5
  tool zeros "$PUB" 0 500 "$T/zeros_pub.json"
  sj_accept "$VK" "$T/zeros_pub.json" "$P" "public signal with 500 leading zeros"
  cz_accept "$VK" "$T/zeros_pub.json" "$P" "public signal with 500 leading zeros"
  tool zeros "$P" pi_c.1 450 "$T/zeros_c.json"
  sj_accept "$VK" "$PUB" "$T/zeros_c.json" "pi_c.y with 450 leading zeros"
  cz_accept "$VK" "$PUB" "$T/zeros_c.json" "pi_c.y with 450 leading zeros"
  note "numbers of more than 400 digits (leading zeros) accepted by both"
  tool escape "$PUB" 0 "$T/esc_pub.json"
  sj_accept "$VK" "$T/esc_pub.json" "$P" "public signal with a \\u escape"
  cz_accept "$VK" "$T/esc_pub.json" "$P" "public signal with a \\u escape"
  tool escape "$P" pi_a.1 "$T/esc_a.json"
  sj_accept "$VK" "$PUB" "$T/esc_a.json" "pi_a.y with a \\u escape"
  cz_accept "$VK" "$PUB" "$T/esc_a.json" "pi_a.y with a \\u escape"
  note "\\u escapes of digits decoded by both"
  # Where cuzk is stricter (docs/CLI.md "JSON as snarkjs reads it"): snarkjs
  # accepts, cuzk rejects with the code CLI.md gives.
  stricter qplus "$P" "$T/s_qplus.json";         sj_cz_reject "$VK" "$PUB" "$T/s_qplus.json" "pi_a.x + q" 5
  stricter hex "$PUB" "$T/s_hex.json";           sj_cz_reject "$VK" "$T/s_hex.json" "$P" "a public signal as 0x hex" 3
  stricter surrogate "$P" "$T/s_sur.json";       sj_cz_reject "$VK" "$PUB" "$T/s_sur.json" "a lone \\uD800 in an unread key" 3
  stricter deep "$P" "$T/s_deep.json";           sj_cz_reject "$VK" "$PUB" "$T/s_deep.json" "70 nested arrays in an unread key" 3
  stricter big "$P" "$T/s_big.json";            sj_cz_reject "$VK" "$PUB" "$T/s_big.json" "a proof of more than 64 KiB" 3
  stricter nulkey "$P" "$T/s_nulkey.json";       sj_cz_reject "$VK" "$PUB" "$T/s_nulkey.json" "\\u0000 in an unread key" 3
}

# stricter KIND IN OUT: a file snarkjs accepts and cuzk rejects (scen_json).
stricter() {
  run node -e '
const fs = require("fs"); const [kind, inp, out, curve] = process.argv.slice(1);
const Q = {bn128: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
  bls12381: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn};
let t = fs.readFileSync(inp, "utf8"); const j = JSON.parse(t);
if (kind === "qplus") { j.pi_a[0] = (BigInt(j.pi_a[0]) + Q[curve]).toString(); t = JSON.stringify(j, null, 1); }
else if (kind === "hex") { j[0] = "0x" + BigInt(j[0]).toString(16); t = JSON.stringify(j, null, 1); }
else if (kind === "surrogate") t = t.replace(/^\{/, "{\n \"note\\ud800\": 1,");
else if (kind === "deep") t = t.replace(/^\{/, "{\n \"note\": " + "[".repeat(70) + "]".repeat(70) + ",");
else if (kind === "big") t = t.replace(/^\{/, "{" + " ".repeat(70000));
else if (kind === "nulkey") t = t.replace(/^\{/, "{\n \"a\\u0000b\": 1,");
else process.exit(2);
fs.writeFileSync(out, t);' "$1" "$2" "$3" "$CURVE"
  [ $RC = 0 ] || fail "stricter $1: exit $RC"
}
sj_cz_reject() { sj_accept "$@"; cz_reject "$@"; note "snarkjs accepts, cuzk rejects (exit $5): $4"; }

case "$SCEN" in
  prove|verify|setup|exportvk|tamper|malformed|gen|info|json|keyapi) ;;
  *) echo "unknown scenario $SCEN" >&2; exit 2 ;;
esac
START=$(date +%s.%N)
echo "$TAG"
"scen_$SCEN"
echo "PASS $TAG ($(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $START}") s)"
