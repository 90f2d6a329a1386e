#!/usr/bin/env bash
# Proofs through the supraseal-c2 crate's API (rust/supraseal-c2, the Rust
# entry bellperson calls) beside `cuzk prove --format bellperson` on the same circuit:
# a synthetic BLS12-381 circuit (`cuzk gen`), INSECURE bellperson parameters
# (`cuzk setup --format bellperson`), then the crate's example `bench`
# (SRS::try_new_with timed, N partitions a call through
# generate_groth16_proofs, and with -s also Curio's start/finish).
# Not a CTest test.
#
# Usage: bench/supraseal_crate.sh [options]
#   -b DIR      cuzk build tree (default <repo>/build; a CUDA build for the GPU)
#   -k LOG2     bellperson domain 2^LOG2 (cuzk gen: 2^LOG2 - K - 1 constraints; default 20)
#   -p K        public inputs (default 327, a PoRep partition's)
#   -n N        partitions (circuits) per call (default 2)
#   -r R        repetitions, the median reported (default 3)
#   -B BACKEND  cpu, gpu or auto (default auto)
#   -d DIR      work directory; circuit and parameters are cached there
#               (default /dev/shm/cuzk-crate-bench)
#   -s          also time start/finish (Curio's split API)
# Needs cargo (the crate builds offline, std only).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build lg=20 pub=327 n=2 reps=3 backend=auto dir=/dev/shm/cuzk-crate-bench split=0
while getopts "b:k:p:n:r:B:d:s" o; do
  case $o in
    b) build=$(cd "$OPTARG" && pwd) ;; k) lg=$OPTARG ;; p) pub=$OPTARG ;; n) n=$OPTARG ;;
    r) reps=$OPTARG ;; B) backend=$OPTARG ;; d) dir=$OPTARG ;; s) split=1 ;;
    *) sed -n '2,21p' "$0"; exit 1 ;;
  esac
done
cuzk=$build/cuzk
mkdir -p "$dir"
c=$dir/c$lg-p$pub
if [ ! -f "$c.params" ]; then
  echo "== circuit 2^$lg, $pub public inputs; INSECURE bellperson parameters"
  # 2^LOG2 - (inputs + ONE) constraints: with bellperson's input constraints the domain is 2^LOG2.
  /usr/bin/time -f "gen: %e s, %M KiB peak" "$cuzk" gen -q --curve bls12381 --constraints $(((1 << lg) - pub - 1)) \
    --public "$pub" --seed 1 "$c.r1cs" "$c.wtns"
  /usr/bin/time -f "setup: %e s, %M KiB peak" "$cuzk" setup -q --format bellperson "$c.r1cs" "$c.params"
fi
ls -l "$c.params"

echo "== the crate's example, built against $build"
crate=$repo/rust/supraseal-c2
rm -f "$crate/Cargo.lock"
export CUZK_BUILD_DIR=$build CARGO_TARGET_DIR=$build/rust-target
cargo build --offline --release --example bench -q --manifest-path "$crate/Cargo.toml"
ex=$CARGO_TARGET_DIR/release/examples/bench
gpu=()
[ "$backend" = gpu ] && gpu=(--gpu)

echo "== cuzk prove --format bellperson (the same circuit, one proof, the CLI alone)"
"$cuzk" prove --format bellperson -v "${gpu[@]}" "$c.params" "$c.r1cs" "$c.wtns" \
  "$dir/p.bin" "$dir/public.json" 2>&1 | grep -E "CUZK_TIMING|Error" || true

echo "== the crate: $n partitions a call, $reps reps"
"$ex" --params "$c.params" --r1cs "$c.r1cs" --wtns "$c.wtns" --circuits "$n" --reps "$reps" --backend "$backend"
if [ "$split" = 1 ]; then
  "$ex" --params "$c.params" --r1cs "$c.r1cs" --wtns "$c.wtns" --circuits "$n" --reps "$reps" \
    --backend "$backend" --split
fi
