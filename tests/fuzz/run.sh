#!/bin/sh
# Builds the libFuzzer targets with clang + ASan/UBSan and runs each one for
# a bounded time, starting from the committed seed corpus.
#   tests/fuzz/run.sh [seconds per target, default 20] [build dir]
# New corpus entries go to <build>/fuzz-corpus/<target>, crashes to
# <build>/fuzz-artifacts/. Exits non-zero if any target finds a crash.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SECS=${1:-20}
B=${2:-$ROOT/build-fuzz}
TARGETS="binfile r1cs wtns zkey proof_json public_json vk_json files output request bp_params bp_vk bp_proof conninfo blobref"

# CUZK_PORTABLE: the 6-limb x86-64 asm needs more registers than ASan's
# instrumentation leaves, so sanitized builds use the portable field code.
CC=clang cmake -S "$ROOT" -B "$B" -DCUZK_FUZZ=ON -DCUZK_SANITIZE=ON -DCUZK_PORTABLE=ON -DCUZK_CUDA=OFF \
    -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$B" --target fuzz_targets -j2

mkdir -p "$B/fuzz-artifacts"
status=0
for t in $TARGETS; do
    mkdir -p "$B/fuzz-corpus/$t"
    echo "== fuzz_$t (${SECS}s)"
    if ! "$B/tests/fuzz/fuzz_$t" "$B/fuzz-corpus/$t" "$ROOT/tests/fuzz/corpus/$t" \
        -max_total_time="$SECS" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$B/fuzz-artifacts/$t-" -print_final_stats=1 \
        >"$B/fuzz-artifacts/$t.log" 2>&1; then
        echo "fuzz_$t FAILED; see $B/fuzz-artifacts/$t.log"
        tail -n 30 "$B/fuzz-artifacts/$t.log"
        status=1
    else
        grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$B/fuzz-artifacts/$t.log" | tr '\n' ' '
        echo
    fi
done
exit $status
