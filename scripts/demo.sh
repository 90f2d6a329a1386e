#!/usr/bin/env bash
# The main job on the bundled example: builds cuzk, then for both curves
# compiles examples/demo.circom with circom2, computes the witness, makes an
# INSECURE dev key with `cuzk setup`, proves with `cuzk prove -v` (per-phase
# timings) and verifies with both `cuzk verify` and `snarkjs groth16 verify`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
./scripts/deps.sh
echo "== Building cuzk"
cuda=()
# Without a visible GPU the CUDA kernels would only cost build time here.
if ! nvidia-smi -L >/dev/null 2>&1; then cuda=(-DCUZK_CUDA=OFF); fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${cuda[@]}" >/dev/null
cmake --build build -j"$(nproc)" --target cuzk >/dev/null
cuzk="$root/build/cuzk"
snarkjs="$root/node_modules/.bin/snarkjs"
circom="$root/node_modules/.bin/circom2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for curve in bn128 bls12381; do
  echo
  echo "== $curve: examples/demo.circom"
  d="$work/$curve"; mkdir -p "$d"
  "$circom" examples/demo.circom --r1cs --wasm --prime "$curve" -o "$d" >/dev/null
  "$snarkjs" wtns calculate "$d/demo_js/demo.wasm" examples/demo_input.json "$d/demo.wtns" >/dev/null
  "$cuzk" info "$d/demo.r1cs"
  echo "-- cuzk setup (INSECURE dev key)"
  "$cuzk" setup -q "$d/demo.r1cs" "$d/demo.zkey" 2>/dev/null
  "$cuzk" export-vk "$d/demo.zkey" "$d/vk.json"
  echo "-- cuzk prove -v"
  "$cuzk" prove -v "$d/demo.zkey" "$d/demo.wtns" "$d/proof.json" "$d/public.json"
  echo "public signals: $(tr -d ' \n' < "$d/public.json")"
  echo -n "-- cuzk verify: "
  "$cuzk" verify "$d/vk.json" "$d/public.json" "$d/proof.json"
  echo -n "-- snarkjs groth16 verify: "
  "$snarkjs" groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json" | grep -o 'OK!\|Invalid proof'
done
echo
echo "Demo finished: both curves proved by cuzk and verified by cuzk and snarkjs."
