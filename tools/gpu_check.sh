#!/usr/bin/env bash
# GPU check for a fresh checkout on a machine with an NVIDIA GPU:
# configure + build (Release, sm_90), run the GPU unit tests, run the GPU
# benchmark, print the results.
#
# usage: tools/gpu_check.sh [MIN_LG] [MAX_LG] [REPS] [extra bench_gpu args...]
#   defaults: 20 24 5. Example: tools/gpu_check.sh 20 27 5 --curve all
# env: BUILD (build dir, default build-gpucheck), JOBS (default 16),
#      ARCH (CUDA architectures, default 90-real), SKIP_TESTS=1, SKIP_BENCH=1
#
# If cJSON / cmocka / pkg-config are missing there, run tools/gpu_deps_pack.sh
# on a machine that has them and bring .gpu-deps/ along: it is used here.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build-gpucheck}
JOBS=${JOBS:-16}
ARCH=${ARCH:-90-real}
MIN=${1:-20}; MAX=${2:-24}; REPS=${3:-5}
shift $(( $# < 3 ? $# : 3 ))
T0=$(date +%s)
echo "== GPU"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,driver_version --format=csv 2>&1 | head -3
nvcc --version 2>&1 | tail -1

EXTRA=()
DEPS=$ROOT/.gpu-deps
if [ -d "$DEPS" ] && { ! pkg-config --exists libcjson 2>/dev/null || [ ! -f /usr/include/cmocka.h ]; }; then
    echo "== using carried dependencies in $DEPS"
    mkdir -p "$DEPS/pkgconfig" "$DEPS/bin"
    cat > "$DEPS/pkgconfig/libcjson.pc" <<PC
prefix=$DEPS
libdir=\${prefix}/lib
includedir=\${prefix}/include
Name: libcjson
Description: cJSON (carried)
Version: 1.7.15
Libs: -L\${libdir} -lcjson
Cflags: -I\${includedir}
PC
    export PKG_CONFIG_PATH=$DEPS/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    export LD_LIBRARY_PATH=$DEPS/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    EXTRA+=(-DCMOCKA_LIB="$DEPS/lib/libcmocka.so" -DCMOCKA_INCLUDE="$DEPS/include")
    if ! command -v pkg-config >/dev/null 2>&1; then
        # Minimal stand-in answering CMake's FindPkgConfig queries for libcjson.
        cat > "$DEPS/bin/pkg-config" <<'PK'
#!/bin/sh
D=$(cd "$(dirname "$0")/.." && pwd)
for a in "$@"; do
  case "$a" in
    --version) echo 0.29.2; exit 0;;
    --modversion) echo 1.7.15; exit 0;;
    --cflags|--cflags-only-I) echo "-I$D/include"; exit 0;;
    --libs) echo "-L$D/lib -lcjson"; exit 0;;
    --libs-only-L) echo "-L$D/lib"; exit 0;;
    --libs-only-l) echo "-lcjson"; exit 0;;
    --variable=prefix) echo "$D"; exit 0;;
    --variable=libdir) echo "$D/lib"; exit 0;;
    --variable=includedir) echo "$D/include"; exit 0;;
    --cflags-only-other|--libs-only-other|--static|--print-errors|--short-errors|--variable=*) ;;
  esac
done
exit 0
PK
        chmod +x "$DEPS/bin/pkg-config"
        EXTRA+=(-DPKG_CONFIG_EXECUTABLE="$DEPS/bin/pkg-config")
    fi
fi

echo "== configure + build ($BUILD)"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES="$ARCH" "${EXTRA[@]}" > "$BUILD.configure.log" 2>&1 \
    || { tail -40 "$BUILD.configure.log"; echo "CONFIGURE FAILED"; exit 1; }
TARGETS="test_gpu_ntt test_gpu_msm"
if grep -q "bench_gpu" "$BUILD/Makefile" "$BUILD"/bench/Makefile 2>/dev/null; then TARGETS="$TARGETS bench_gpu"; fi
make -C "$BUILD" -j"$JOBS" $TARGETS > "$BUILD.build.log" 2>&1 \
    || { grep -E "error|Error" "$BUILD.build.log" | head -40; tail -20 "$BUILD.build.log"; echo "BUILD FAILED"; exit 1; }
BENCH=$(find "$BUILD" -name bench_gpu -type f -perm -u+x | head -1)
if [ -z "$BENCH" ]; then
    # No CMake target for the benchmark yet: link it by hand.
    BENCH=$BUILD/bench_gpu_manual
    CJ=$(pkg-config --libs libcjson 2>/dev/null || echo -lcjson)
    cc -O2 -std=c11 -D_GNU_SOURCE -I"$ROOT/include" -I"$ROOT/src" -I/usr/local/cuda/include \
       "$ROOT/bench/bench_gpu.c" "$BUILD/src/libcuzk.a" -L/usr/local/cuda/lib64 -lcudart_static \
       $CJ -lpthread -ldl -lrt -lm -lstdc++ -o "$BENCH" || { echo "BENCH LINK FAILED"; BENCH=; }
fi
echo "build took $(( $(date +%s) - T0 )) s"

if [ "${SKIP_TESTS:-0}" != 1 ]; then
    echo "== GPU unit tests"
    for t in test_gpu_ntt test_gpu_msm; do
        exe=$(find "$BUILD" -name $t -type f -perm -u+x | head -1)
        s=$(date +%s)
        "$exe" > "$BUILD/$t.log" 2>&1; rc=$?
        echo "$t: exit $rc ($(( $(date +%s) - s )) s)"
        grep -E "FAILED|ERROR|error|differs|mismatch|PASSED|SKIPPED" "$BUILD/$t.log" | head -30
    done
fi
if [ "${SKIP_BENCH:-0}" != 1 ] && [ -n "$BENCH" ]; then
    echo "== benchmark 2^$MIN..2^$MAX"
    "$BENCH" --min "$MIN" --max "$MAX" --reps "$REPS" "$@" 2>&1 | tee "$BUILD/bench.log" | sed -n '/^op /,$p'
fi
echo "total $(( $(date +%s) - T0 )) s"
