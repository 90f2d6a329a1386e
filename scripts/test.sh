#!/usr/bin/env bash
# Runs every test: installs dependencies, then
#   1. Release build + all CTest tests (unit, interop with snarkjs/circom),
#   2. ASan/UBSan build + the unit tests,
#   3. the libFuzzer targets, each for a short bounded time.
# GPU tests run when a CUDA device is present and are skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh

jobs=$(nproc)
cuda_args=()
# CI has nvcc but no GPU: one architecture keeps the build short. The default
# build (no CUZK_CUDA_ARCHITECTURES given) produces all of them.
if [ -n "${CI:-}" ]; then cuda_args+=(-DCUZK_CUDA_ARCHITECTURES=90-real); fi

echo "== Release build + tests"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" >/dev/null
cmake --build build -j"$jobs"
# then the 1000-job cluster fault load (label cluster_load, minutes) alone,
# so its daemons do not share the cores with the other tests
(cd build && ctest --output-on-failure -j"$jobs" -LE cluster_load)
(cd build && ctest --output-on-failure -L cluster_load)

echo "== ASan/UBSan build + unit tests"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUZK_SANITIZE=ON -DCUZK_CUDA=OFF >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ctest --output-on-failure -j"$jobs" -L unit)

if [ -x tests/fuzz/run.sh ]; then
  echo "== Fuzz targets (bounded)"
  tests/fuzz/run.sh "${CUZK_FUZZ_SECONDS:-15}"
fi
echo "== All tests passed"
