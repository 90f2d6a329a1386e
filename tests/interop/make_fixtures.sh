#!/usr/bin/env bash
# Regenerates every committed interop fixture under tests/data/interop/ from
# scratch with the pinned circom2 + snarkjs (node_modules). Not run in CI: the
# powers-of-tau "prepare phase2" step alone takes ~20 s (BN254) and ~50 s
# (BLS12-381) at power 10 on a 2-core machine, and the results are random
# (snarkjs mixes OS randomness into every contribution), so re-running
# changes every .ptau/.zkey/proof byte while the r1cs and wtns stay identical.
#
# Usage: tests/interop/make_fixtures.sh [--keep-ptau] [curve...]
#   --keep-ptau  reuse the committed pot10.ptau instead of regenerating it
#   curve        bn128 and/or bls12381 (default both)
#
# Per curve C it writes tests/data/interop/C/:
#   pot10.ptau                 prepared phase-2 powers of tau, 2^10 (new + 1 contribution)
#   <circ>.r1cs                circom2 --O1 output of tests/circuits/<circ>.circom
#   <circ>.wtns                snarkjs wtns calculate of tests/circuits/<circ>.input.json
#   <circ>.zkey                snarkjs groth16 setup + one zkey contribute
#   <circ>.vkey.json           snarkjs zkey export verificationkey
#   <circ>.proof.json/.public.json  snarkjs groth16 prove (checked by groth16 verify)
# The wasm witness generators are not committed: compiling takes ~1 s and is
# only needed here.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
S="$ROOT/node_modules/.bin/snarkjs"
CIRCOM="$ROOT/node_modules/.bin/circom2"
CIRCUITS="$ROOT/tests/circuits"
POWER=10
KEEP_PTAU=0
curves=()
for arg in "$@"; do
  case "$arg" in
    --keep-ptau) KEEP_PTAU=1 ;;
    bn128|bls12381) curves+=("$arg") ;;
    *) echo "usage: $0 [--keep-ptau] [bn128] [bls12381]" >&2; exit 2 ;;
  esac
done
[ ${#curves[@]} -gt 0 ] || curves=(bn128 bls12381)
[ -x "$S" ] && [ -x "$CIRCOM" ] || { echo "run 'npm ci' in $ROOT first" >&2; exit 1; }

# circuit name and expected (nConstraints, nPublic): the boundary pair must
# sit exactly at nConstraints + nPublic = 2^8 - 1 and 2^8.
CIRCS="mul:11:2 nopub:8:0 manypub:150:300 linear:1:1 boundary_lo:254:1 boundary_hi:255:1"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
q() { "$S" "$@" >"$WORK/log" 2>&1 || { cat "$WORK/log" >&2; echo "FAILED: snarkjs $*" >&2; exit 1; }; }
rnd() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

for curve in "${curves[@]}"; do
  OUT="$ROOT/tests/data/interop/$curve"
  mkdir -p "$OUT"
  if [ $KEEP_PTAU = 0 ] || [ ! -f "$OUT/pot$POWER.ptau" ]; then
    echo "[$curve] powers of tau 2^$POWER"
    q powersoftau new "$curve" $POWER "$WORK/pot0.ptau"
    q powersoftau contribute "$WORK/pot0.ptau" "$WORK/pot1.ptau" --name=cuzk-fixtures -e="$(rnd)"
    q powersoftau prepare phase2 "$WORK/pot1.ptau" "$OUT/pot$POWER.ptau"
  fi
  for spec in $CIRCS; do
    IFS=: read -r c ncons npub <<<"$spec"
    echo "[$curve] $c"
    # circom2 (wasm build) resolves includes relative to the working directory.
    (cd "$CIRCUITS" && "$CIRCOM" "$c.circom" --r1cs --wasm --O1 --prime "$curve" -o "$WORK" >"$WORK/log" 2>&1) ||
      { cat "$WORK/log" >&2; exit 1; }
    cp "$WORK/$c.r1cs" "$OUT/$c.r1cs"
    q r1cs info "$OUT/$c.r1cs"
    got_c=$(sed -n 's/.*# of Constraints: //p' "$WORK/log")
    got_p=$(( $(sed -n 's/.*# of Public Inputs: //p' "$WORK/log") + $(sed -n 's/.*# of Outputs: //p' "$WORK/log") ))
    [ "$got_c:$got_p" = "$ncons:$npub" ] ||
      { echo "$c: nConstraints:nPublic = $got_c:$got_p, expected $ncons:$npub" >&2; exit 1; }
    q wtns calculate "$WORK/${c}_js/$c.wasm" "$CIRCUITS/$c.input.json" "$OUT/$c.wtns"
    q wtns check "$OUT/$c.r1cs" "$OUT/$c.wtns"
    q groth16 setup "$OUT/$c.r1cs" "$OUT/pot$POWER.ptau" "$WORK/$c.0.zkey"
    q zkey contribute "$WORK/$c.0.zkey" "$OUT/$c.zkey" --name=cuzk-fixtures -e="$(rnd)"
    q zkey export verificationkey "$OUT/$c.zkey" "$OUT/$c.vkey.json"
    q groth16 prove "$OUT/$c.zkey" "$OUT/$c.wtns" "$OUT/$c.proof.json" "$OUT/$c.public.json"
    q groth16 verify "$OUT/$c.vkey.json" "$OUT/$c.public.json" "$OUT/$c.proof.json"
    grep -q 'OK!' "$WORK/log" || { echo "$c: snarkjs rejected its own proof" >&2; exit 1; }
  done
done
echo "fixtures written under $ROOT/tests/data/interop/"
