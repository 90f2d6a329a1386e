#!/usr/bin/env bash
# Run on the build machine (which has libcjson-dev and libcmocka-dev): copies
# the cJSON and cmocka headers and shared libraries into .gpu-deps/ so that
# tools/gpu_check.sh can configure and run on a GPU machine that cannot
# install packages. Not committed; pass it along with the checkout.
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
echo "packed into $D:"; ls -l "$D/lib"
