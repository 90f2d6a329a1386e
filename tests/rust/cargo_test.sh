#!/usr/bin/env bash
# Builds and tests the supraseal-c2 crate (rust/supraseal-c2) against this
# build tree's libcuzk: both API variants (the original's and Curio's, which
# differ in generate_groth16_proof). Cargo's output goes under the build tree.
# Usage: cargo_test.sh <build-dir> <source-dir>
# Exit 77 (skipped) only when there is no cargo: scripts/deps.sh installs it.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo not found: skipping the supraseal-c2 crate's tests (scripts/deps.sh installs Debian's cargo)"
  exit 77
fi
export CUZK_BUILD_DIR="$build"
export CARGO_TARGET_DIR="$build/rust-target"
crate="$src/rust/supraseal-c2"
# The tests' files (parameters, proofs, the layout probe) go to a scratch
# directory removed afterwards.
TMPDIR=$(mktemp -d "$build/rust-tmp.XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
cargo --version
# The crate has no dependencies: its lock files only record it. Dropped so
# that one written by a newer cargo (lock format 4) cannot stop an older one.
rm -f "$crate/Cargo.lock" "$crate/curio/Cargo.lock"
cargo test --offline --manifest-path "$crate/Cargo.toml"
cargo test --offline --manifest-path "$crate/curio/Cargo.toml"
