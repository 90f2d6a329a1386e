#!/usr/bin/env bash
# Builds the GPU binaries here (Release, sm_90) and gathers them in
# build-gpu2/dist for tools/gpu_final.sh on the device machine (carry
# build-gpu2/dist and .gpu-deps): device time is not spent compiling.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build-gpu2}
cmake -S "$ROOT" -B "$B" -DCUZK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90-real -DCMAKE_BUILD_TYPE=Release > /dev/null
make -C "$B" -j"${JOBS:-2}" test_gpu_ntt test_gpu_msm bench_gpu cuzk
"$ROOT/tools/gpu_deps_pack.sh" "$B/cuzk" > /dev/null # the libraries it loads, for the GPU machine
D=$B/dist
rm -rf "$D"
mkdir -p "$D"
cp "$B/tests/test_gpu_ntt" "$B/tests/test_gpu_msm" "$B/bench/bench_gpu" "$B/cuzk" "$D/"
NV="nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -I$ROOT/include -I$ROOT/src"
$NV "$ROOT/tools/gpu_micro.cu" -o "$D/micro"
(cd "$ROOT" && git rev-parse --short HEAD && git status --short src include | head -20) > "$D/COMMIT"
du -sh "$D"
