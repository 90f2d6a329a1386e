#!/usr/bin/env bash
# The supraseal-c2 crate (rust/supraseal-c2) on a GPU machine that has no
# cargo. Not a CTest test.
#
#   bench/supraseal_crate_device.sh pack <cuda-build-dir> <dir>
#     (where cargo is) builds, against a CUDA build of libcuzk, the crate's
#     test binary (tests/prove.rs) and its example `bench`, release, and
#     copies them with that build's `cuzk` CLI into <dir> (about 45 MB).
#   bench/supraseal_crate_device.sh run <dir> [-n N] [-r R] [-S] [LOG2 ...]
#     (on the GPU machine) runs the crate's tests with the GPU required
#     (SRS loads pick the GPU; GPU proofs must equal CPU proofs), then for
#     each LOG2 (default: 20 24) makes a bellperson-domain-2^LOG2 circuit with
#     a PoRep partition's 327 public inputs (`cuzk gen` + INSECURE `cuzk setup
#     --format bellperson`, in $TMPDIR or /dev/shm) and times N partitions a
#     call (default 3) through generate_groth16_proofs and start/finish, R
#     repetitions (default 3); -S: one copy of the assignment for all
#     partitions (less host memory, for the large sizes).
# Exit non-zero at the first failure.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-}
case $cmd in
pack)
  build=$(cd "${2:?cuda build dir}" && pwd)
  out=${3:?output dir}
  grep -q cudart "$build/cuzk.pc" || { echo "Error: $build: not a CUDA build (cuzk.pc names no cudart)"; exit 1; }
  mkdir -p "$out"
  crate=$repo/rust/supraseal-c2
  export CUZK_BUILD_DIR=$build CARGO_TARGET_DIR=$build/rust-target
  rm -f "$crate/Cargo.lock"
  log=$(cargo test --offline --release --no-run --test prove --manifest-path "$crate/Cargo.toml" 2>&1) ||
    { echo "$log"; exit 1; }
  exe=$(echo "$log" | sed -n 's/.*Executable tests\/prove.rs (\(.*\))$/\1/p' | tail -1)
  [ -x "$exe" ] || { echo "$log"; echo "Error: no test executable found"; exit 1; }
  cargo build --offline --release --example bench -q --manifest-path "$crate/Cargo.toml"
  cp "$exe" "$out/prove"
  cp "$CARGO_TARGET_DIR/release/examples/bench" "$out/bench"
  cp "$build/cuzk" "$out/cuzk"
  ls -l "$out"
  ;;
run)
  dir=$(cd "${2:?dir}" && pwd)
  shift 2
  n=3 reps=3 shared=()
  while getopts "n:r:S" o; do
    case $o in n) n=$OPTARG ;; r) reps=$OPTARG ;; S) shared=(--shared) ;; *) exit 1 ;; esac
  done
  shift $((OPTIND - 1))
  sizes=("$@")
  [ ${#sizes[@]} -gt 0 ] || sizes=(20 24)
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
  work=$(mktemp -d "${TMPDIR:-/dev/shm}/crate.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  echo "== the crate's tests, GPU required"
  SUPRASEAL_C2_CUZK_BIN=$dir/cuzk SUPRASEAL_C2_REQUIRE_GPU=1 TMPDIR=$work "$dir/prove" --test-threads=1
  for k in "${sizes[@]}"; do
    c=$work/c$k
    echo "== 2^$k: circuit + INSECURE parameters"
    /usr/bin/time -f "gen %e s" "$dir/cuzk" gen -q --curve bls12381 --constraints $(((1 << k) - 328)) --public 327 \
      --seed "$k" "$c.r1cs" "$c.wtns"
    /usr/bin/time -f "setup %e s" "$dir/cuzk" setup -q --format bellperson "$c.r1cs" "$c.params" 2>&1 | grep -v WARNING
    for mode in "" --split; do
      echo "== 2^$k: $n partitions a call through the crate ${mode:-(generate_groth16_proofs)}"
      "$dir/bench" --params "$c.params" --r1cs "$c.r1cs" --wtns "$c.wtns" --backend gpu --circuits "$n" \
        --reps "$reps" "${shared[@]}" $mode
    done
    rm -f "$c".*
  done
  ;;
*)
  sed -n '2,18p' "$0"
  exit 1
  ;;
esac
