#!/usr/bin/env bash
# Builds bench/supraseal_porep.cpp against supraseal-c2 (both variants of the
# supraseal-anchor glue: upstream supra_seal c2/cuda and Curio's copy) and a
# libcuzk build, into OUT/supraseal_porep_upstream and OUT/supraseal_porep_cuzk.
# Not a CTest test.
#
#   bench/supraseal_porep_build.sh <cuzk-build-dir> <OUT>
#
# cuzk-build-dir: a CPU build is enough (the harness uses libcuzk only for the
# assignment and the verification). The supraseal-c2 sources are those of
# tools/supraseal-anchor's README (SRC, default <repo>/.ssv/src: supra_seal/,
# curio-c2/, sppark/, blst/), its glue.cu from ANCHOR_DIR (default
# /work/shared/tools/peer-bench/supraseal-anchor); nvcc, ARCH (sm_90).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?cuzk build dir}" && pwd)
out=${2:?output dir}
SRC=${SRC:-$repo/.ssv/src}
ANCHOR_DIR=${ANCHOR_DIR:-/work/shared/tools/peer-bench/supraseal-anchor}
ARCH=${ARCH:-sm_90}
lib=$build/src/libcuzk.a
[ -f "$lib" ] || { echo "Error: $lib: no libcuzk.a in that build"; exit 1; }
for d in supra_seal/c2/cuda curio-c2/extern/supraseal-c2/cuda sppark blst; do
  [ -d "$SRC/$d" ] || { echo "Error: $SRC/$d: missing (SRC=<the supraseal-anchor sources>)"; exit 1; }
done
[ -f "$ANCHOR_DIR/glue.cu" ] || { echo "Error: $ANCHOR_DIR/glue.cu: missing (ANCHOR_DIR=...)"; exit 1; }
mkdir -p "$out"
B=$(mktemp -d)
trap 'rm -rf "$B"' EXIT
if [ -f "$SRC/blst/libblst.a" ]; then cp "$SRC/blst/libblst.a" "$B/"; else
  (cd "$SRC/blst" && ./build.sh >/dev/null) && cp "$SRC/blst/libblst.a" "$B/"
fi
NV="nvcc -O3 -std=c++17 -arch=$ARCH -DTAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE -DFEATURE_BLS12_381 -D__ADX__
    -I$SRC/blst/src -I$SRC/blst/bindings -I$SRC/sppark
    -Xcompiler -Wno-subobject-linkage -Xcompiler -Wno-unused-function"
pids=()
$NV -x cu -c "$SRC/sppark/util/all_gpus.cpp" -o "$B/all_gpus.o" & pids+=($!)
$NV -I"$SRC/supra_seal/c2/cuda" -c "$ANCHOR_DIR/glue.cu" -o "$B/glue_upstream.o" & pids+=($!)
$NV -I"$SRC/curio-c2/extern/supraseal-c2/cuda" -DANCHOR_CUZK -c "$ANCHOR_DIR/glue.cu" -o "$B/glue_cuzk.o" & pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done
libs=$(sed -n 's/^Libs.private: //p' "$build/cuzk.pc")
for v in upstream cuzk; do
  def=
  [ $v = cuzk ] && def=-DANCHOR_CUZK
  g++ -std=c++17 -O2 -Wall -Wextra $def -I"$repo/include" -c "$repo/bench/supraseal_porep.cpp" -o "$B/h_$v.o"
  nvcc -arch="$ARCH" "$B/h_$v.o" "$B/glue_$v.o" "$B/all_gpus.o" "$lib" "$B/libblst.a" $libs \
    -Xcompiler -static-libstdc++ -Xcompiler -static-libgcc -lpthread -o "$out/supraseal_porep_$v"
done
ls -l "$out"/supraseal_porep_*
