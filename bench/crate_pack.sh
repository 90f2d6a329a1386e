# shellcheck shell=bash disable=SC2154,SC2034
# Sourced by bench/supraseal_crate_device.sh and bench/bp_porep_device.sh:
# the `pack` step they share (where cargo is; the GPU machine has none).
#
#   crate_pack <cuda-build-dir> <dir> [tests]
#     builds the supraseal-c2 crate's example `bench` (release) against that
#     CUDA build of libcuzk and copies it with the build's `cuzk` into <dir>;
#     with `tests`, also the crate's test binary (tests/prove.rs) as <dir>/prove.
#     Sets CRATE_PACK_BUILD to the build dir (absolute). Exits 1 when the
#     build is not a CUDA build or a binary is not made.
# Needs $repo (the repository root).

crate_pack() {
  local build out crate log exe
  build=$(cd "${1:?cuda build dir}" && pwd)
  out=${2:?output dir}
  grep -q cudart "$build/cuzk.pc" || { echo "Error: $build: not a CUDA build (cuzk.pc names no cudart)"; exit 1; }
  mkdir -p "$out"
  crate=$repo/rust/supraseal-c2
  export CUZK_BUILD_DIR=$build CARGO_TARGET_DIR=$build/rust-target
  rm -f "$crate/Cargo.lock"
  if [ "${3:-}" = tests ]; then
    log=$(cargo test --offline --release --no-run --test prove --manifest-path "$crate/Cargo.toml" 2>&1) ||
      { echo "$log"; exit 1; }
    exe=$(echo "$log" | sed -n 's/.*Executable tests\/prove.rs (\(.*\))$/\1/p' | tail -1)
    [ -x "$exe" ] || { echo "$log"; echo "Error: no test executable found"; exit 1; }
    cp "$exe" "$out/prove"
  fi
  cargo build --offline --release --example bench -q --manifest-path "$crate/Cargo.toml"
  cp "$CARGO_TARGET_DIR/release/examples/bench" "$out/bench"
  cp "$build/cuzk" "$out/cuzk"
  CRATE_PACK_BUILD=$build
}
