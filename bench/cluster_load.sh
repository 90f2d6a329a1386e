#!/usr/bin/env bash
# The cluster fault load (tests/daemon/cluster_load.sh) with N jobs (default
# 1000), timed: three daemons on a throwaway PostgreSQL, kill -9, SIGSTOP past
# a lease, a PostgreSQL crash and terminated backends at held states; every
# acknowledged job done exactly once, all proofs verified (cuzk verify; 10 per
# curve with snarkjs). The same as `ctest -L cluster_load` for N = 1000.
#
#   bench/cluster_load.sh <cuzk> [N]
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 <cuzk> [N]" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
t0=$(date +%s)
bash "$ROOT/tests/daemon/cluster_load.sh" "$(realpath "$1")" "$ROOT" "${2:-1000}" | grep -v '^ts='
echo "wall: $(($(date +%s) - t0)) s for ${2:-1000} jobs"
