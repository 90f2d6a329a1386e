#!/usr/bin/env bash
# Fp2 call-convention variants for the device comparison (issue 3, G2 MSM):
# runs tools/gpu_dist.sh for the default build (CUZK_GPU_FP2_MODE=0, see
# src/gpu/gpu_field.cuh), then for each mode in MODES recompiles only the two
# G2 MSM objects with -DCUZK_GPU_FP2_MODE=m, relinks test_gpu_msm and
# bench_gpu into $B/dist/var_m<m>/ (a VAR dir for tools/gpu_msm_run.sh
# compare: G1 and the NTT stay the default code, only G2 differs; stored as
# var_m<m>.tar.gz, unpack with tar xzf in the dist dir) and puts
# the default objects back. Also the micro-benchmark per mode
# ($B/dist/micro_fp2m<m>) and the G2 MSM cubins per mode
# ($B/dist/cubin.tar.gz, SASS with cuobjdump on the device or op counts here with
# tools/sass_opcount.py).
#
# usage: BUILD=DIR tools/gpu_g2_dist.sh [MODES]   (MODES default "1 2")
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build-gpu-g2}
MODES=${1:-1 2}
[ "${SKIP_DEFAULT:-0}" = 1 ] || BUILD=$B "$ROOT/tools/gpu_dist.sh"
D=$B/dist
OBJ=$B/src/CMakeFiles/cuzk_obj.dir/gpu
G2="msm_bn254_g2 msm_bls12_381_g2"
# the flags CMake compiles these objects with
FLAGS=$(sed -n 's/^CUDA_FLAGS = //p' "$B/src/CMakeFiles/cuzk_obj.dir/flags.make")
DEFS=$(sed -n 's/^CUDA_DEFINES = //p' "$B/src/CMakeFiles/cuzk_obj.dir/flags.make")
SAVE=$(mktemp -d)
for t in $G2; do cp "$OBJ/$t.cu.o" "$SAVE/"; done
restore() {
    for t in $G2; do cp "$SAVE/$t.cu.o" "$OBJ/$t.cu.o"; done
    make -C "$B" -j"${JOBS:-2}" test_gpu_msm bench_gpu > /dev/null
    rm -rf "$SAVE"
}
trap restore EXIT
for m in $MODES; do
    for t in $G2; do
        # shellcheck disable=SC2086
        (cd "$B/src" && nvcc -forward-unknown-to-host-compiler $DEFS -I"$ROOT/include" -I"$ROOT/src" $FLAGS \
            -DCUZK_GPU_FP2_MODE=$m -x cu -c "$ROOT/src/gpu/$t.cu" -o "$OBJ/$t.cu.o")
    done
    make -C "$B" -j"${JOBS:-2}" test_gpu_msm bench_gpu > /dev/null
    mkdir -p "$D/var_m$m"
    cp "$B/tests/test_gpu_msm" "$B/bench/bench_gpu" "$D/var_m$m/"
    # compressed: the carry to the device is limited to 64 MiB in all
    tar czf "$D/var_m$m.tar.gz" -C "$D" "var_m$m" && rm -rf "$D/var_m$m"
    echo "mode $m: $D/var_m$m.tar.gz (tar xzf it in $D)"
done
restore
trap - EXIT
[ "${MICRO:-1}" = 1 ] || exit 0
NV="nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -I$ROOT/include -I$ROOT/src"
mkdir -p "$D/cubin"
for m in 0 $MODES; do
    $NV -DCUZK_GPU_FP2_MODE=$m "$ROOT/tools/gpu_micro.cu" -o "$D/micro_fp2m$m"
    for t in $G2; do $NV -DCUZK_GPU_FP2_MODE=$m -cubin -o "$D/cubin/${t}_m$m.cubin" "$ROOT/src/gpu/$t.cu"; done
done
tar czf "$D/cubin.tar.gz" -C "$D" cubin && rm -rf "$D/cubin"
du -sh "$D"
