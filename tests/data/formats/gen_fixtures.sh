#!/bin/sh
# Regenerates the format fixtures in this directory with the pinned snarkjs
# 0.7.6 / circom2 0.2.23 from the repository's node_modules (~40 s on 2 cores).
# The *.export.json files are snarkjs's own decodings (zkey/r1cs/wtns export
# json, re-serialised compactly); the unit tests cross-check our readers
# against them. ptau/zkey randomness makes every run produce different keys.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
S="$ROOT/node_modules/.bin/snarkjs"
C="$ROOT/node_modules/.bin/circom2"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
compact() { node -e 'process.stdout.write(JSON.stringify(require(process.argv[1])))' "$1"; }

# name circuit input curve out_dir
build() {
    name=$1; input=$2; curve=$3; out=$4; d="$W/$out"
    mkdir -p "$d" "$HERE/$out"
    cp "$HERE/$name.circom" "$HERE/$input" "$d/"
    (
        cd "$d"
        "$C" "$name.circom" --r1cs --wasm --prime "$curve" -o .
        "$S" powersoftau new "$curve" 6 p0.ptau
        "$S" powersoftau contribute p0.ptau p1.ptau --name=c1 -e="entropy"
        "$S" powersoftau prepare phase2 p1.ptau pf.ptau
        "$S" groth16 setup "$name.r1cs" pf.ptau k0.zkey
        "$S" zkey contribute k0.zkey "$name.zkey" --name=z1 -e="more entropy"
        "$S" zkey export verificationkey "$name.zkey" verification_key.json
        "$S" wtns calculate "${name}_js/$name.wasm" "$input" witness.wtns
        "$S" wtns check "$name.r1cs" witness.wtns
        "$S" groth16 prove "$name.zkey" witness.wtns proof.json public.json
        "$S" groth16 verify verification_key.json public.json proof.json
        "$S" zkey export json "$name.zkey" zkey.json
        "$S" r1cs export json "$name.r1cs" r1cs.json
        "$S" wtns export json witness.wtns wtns.json
    ) >"$d/log" 2>&1 || { cat "$d/log"; exit 1; }
    cp "$d/$name.r1cs" "$d/$name.zkey" "$d/witness.wtns" "$d/proof.json" \
       "$d/public.json" "$d/verification_key.json" "$HERE/$out/"
    for j in zkey r1cs wtns; do compact "$d/$j.json" >"$HERE/$out/$j.export.json"; done
}

build mul mul_input.json bn128 bn128
build mul mul_input.json bls12381 bls12381
build lin lin_input.json bn128 lin
echo "fixtures written to $HERE"
