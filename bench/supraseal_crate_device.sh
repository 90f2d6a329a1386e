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
# shellcheck source=bench/crate_pack.sh
. "$repo/bench/crate_pack.sh"
cmd=${1:-}
case $cmd in
pack)
  out=${3:?output dir}
  crate_pack "${2:-}" "$out" tests
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
