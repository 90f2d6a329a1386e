#!/usr/bin/env bash
# Run on the build machine: copies into .gpu-deps/ (git-ignored) what the GPU
# machine lacks to build and run the device binaries: the cJSON and cmocka
# headers (tools/gpu_check.sh configures there) and the shared libraries the
# given binaries load beyond glibc's and the compiler's runtime (cuzk links
# SQLite, libpq, libmicrohttpd, libcurl, inih and libcrypto; the tests cmocka
# and cJSON). Pass the binaries to scan (default: build-gpu/cuzk if it exists).
# Not committed; carry it with the checkout and put .gpu-deps/lib on
# LD_LIBRARY_PATH there.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=$ROOT/.gpu-deps
rm -rf "$D"
mkdir -p "$D/include" "$D/lib"
cp -r /usr/include/cjson "$D/include/"
cp /usr/include/cmocka.h "$D/include/"
for l in libcjson libcmocka; do
    cp -P /usr/lib/x86_64-linux-gnu/$l.so* "$D/lib/"
done
[ $# -gt 0 ] || { [ -x "$ROOT/build-gpu/cuzk" ] && set -- "$ROOT/build-gpu/cuzk"; }
for bin in "$@"; do
    ldd "$bin" | awk '$3 ~ /^\// { print $1, $3 }' |
        grep -vE '^(linux-vdso|ld-linux|libc\.|libm\.|libpthread|libdl|librt|libgcc_s|libstdc\+\+|libresolv|libcuda)' |
        while read -r so path; do cp -L "$path" "$D/lib/$so"; done
done
echo "packed into $D:"; ls "$D/lib" | tr '\n' ' '; echo; du -sh "$D"
