#!/usr/bin/env bash
# Daemon benchmark: the same warm-key proofs through `cuzk serve` and by the
# prover alone. Not a CTest test.
#
# Usage: bench/bench_daemon.sh [options]
#   -k LOG2        circuit: `cuzk gen --constraints 2^LOG2` + `cuzk setup` (default 16)
#   -C CURVE       bn128 or bls12381 (default bn128)
#   -z ZKEY -W WTNS  use this key and witness instead of generating one
#   -n JOBS        jobs per daemon run (default 20)
#   -c LIST        client counts, comma-separated (default 1)
#   -r RUNS        rounds; medians are reported (default 3)
#   -t THREADS     prover threads for both (default: all CPUs)
#   -d DIR         work directory; a generated circuit is cached there (default /tmp/cuzk-bench-daemon)
#   -g             GPU backend for both (daemon: every GPU, -w workers per GPU)
#   -w W           workers (CPU workers, or workers per GPU with -g; default 1)
# Environment: CUZK (default <repo>/build/cuzk).
#
# Each round runs `cuzk bench prove --workers W --proofs JOBS` (key loaded
# once, the witness parsed once, JOBS proofs by W threads, each verified: the
# prover's own time per proof) and then, per client count C, `cuzk bench serve
# -n JOBS -c C` against one daemon with a warm key. Per C it prints the
# medians of: the daemon's wall time per job (run time / JOBS), the prover's
# own time per proof, their difference = the overhead per job (HTTP,
# journal and its flushes, spool, scheduling, the witness parsed and the proof
# serialised per job), the client latency p50, the daemon's journal
# flushes per job (from /metrics), and the CPU time the daemon process and
# `cuzk bench prove` spent per job (user + system; the latter includes its
# key load and 4 extra proofs, negligible for small circuits): less
# sensitive to other load on the machine than the wall times. With C = 1 the
# overhead is the latency a job adds; with C >= 2 W it is what the daemon
# adds to each proof at full load.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CUZK=${CUZK:-$ROOT/build/cuzk}
K=16 CURVE=bn128 JOBS=20 RUNS=3 THREADS=0 DIR=/tmp/cuzk-bench-daemon GPU=0 WORKERS=1 CLIENTS=1 Z= W=
while getopts "k:C:z:W:n:c:r:t:d:gw:h" opt; do
  case $opt in
    k) K=$OPTARG ;; C) CURVE=$OPTARG ;; z) Z=$OPTARG ;; W) W=$OPTARG ;; n) JOBS=$OPTARG ;;
    c) CLIENTS=$OPTARG ;; r) RUNS=$OPTARG ;; t) THREADS=$OPTARG ;; d) DIR=$OPTARG ;; g) GPU=1 ;;
    w) WORKERS=$OPTARG ;; *) sed -n '2,29p' "$0"; exit 2 ;;
  esac
done
mkdir -p "$DIR"
if [ -z "$Z" ]; then
  Z=$DIR/$CURVE-$K.zkey W=$DIR/$CURVE-$K.wtns
  if [ ! -f "$Z" ]; then
    "$CUZK" gen --curve "$CURVE" --constraints "2^$K" --seed 1 "$DIR/$CURVE-$K.r1cs" "$W"
    "$CUZK" setup "$DIR/$CURVE-$K.r1cs" "$Z.tmp" 2>/dev/null && mv "$Z.tmp" "$Z"
  fi
fi
Z=$(realpath "$Z") W=$(realpath "$W")
TARGS=(); [ "$THREADS" -gt 0 ] && TARGS=(-t "$THREADS")
PARGS=(--workers "$WORKERS" --proofs "$JOBS"); [ $GPU = 1 ] && PARGS+=(--gpu)
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

S=$DIR/state; rm -rf "$S"
DARGS=(--state-dir "$S" --listen 127.0.0.1:0 --retention 10m)
[ "$THREADS" -gt 0 ] && DARGS+=(--threads "$THREADS")
if [ $GPU = 1 ]; then DARGS+=(--workers-per-device "$WORKERS"); else DARGS+=(--devices none --cpu-workers "$WORKERS"); fi
"$CUZK" serve --foreground "${DARGS[@]}" 2>"$DIR/daemon.log" &
DPID=$!
trap 'kill -TERM $DPID 2>/dev/null; wait $DPID 2>/dev/null' EXIT
for _ in $(seq 1 200); do grep -q 'event=listening' "$DIR/daemon.log" && break; sleep 0.05; done
URL=$(grep -o 'event=listening url=[^ ]*' "$DIR/daemon.log" | sed 's/.*url=//')
metrics() { curl -s "$URL/metrics" 2>/dev/null ||
  python3 -c "import sys, urllib.request as u; sys.stdout.write(u.urlopen('$URL/metrics').read().decode())" 2>/dev/null; }
flushes() { metrics | awk '/^cuzk_journal_flushes_total/ {print $2}'; }
"$CUZK" bench serve --url "$URL" --key "$Z" --witness "$W" -n 2 -c 1 >/dev/null # loads the key
TICK=$(getconf CLK_TCK)
dcpu() { awk -v t="$TICK" '{print ($14 + $15) / t}' /proc/$DPID/stat; }
TIMEFORMAT='%U %S'


IFS=, read -ra CS <<<"$CLIENTS"
: >"$DIR/prover"; : >"$DIR/pcpu"
for c in "${CS[@]}"; do : >"$DIR/wall.$c"; : >"$DIR/lat.$c"; : >"$DIR/fl.$c"; : >"$DIR/cpu.$c"; done
for r in $(seq 1 "$RUNS"); do
  { time "$CUZK" bench prove "${TARGS[@]}" "${PARGS[@]}" "$Z" "$W" >"$DIR/prove.out"; } 2>"$DIR/prove.time"
  awk 'NR == 2 {print $3 * 1000}' "$DIR/prove.out" >>"$DIR/prover"
  awk -v n="$JOBS" '{print ($1 + $2) / (n + 4) * 1000}' "$DIR/prove.time" >>"$DIR/pcpu"
  for c in "${CS[@]}"; do
    f0=$(flushes) c0=$(dcpu)
    "$CUZK" bench serve --url "$URL" --key "$Z" --witness "$W" -n "$JOBS" -c "$c" >"$DIR/bench.out"
    f1=$(flushes) c1=$(dcpu)
    echo "$c0 $c1 $JOBS" | awk '{print ($2 - $1) / $3 * 1000}' >>"$DIR/cpu.$c"
    cat "$DIR/bench.out" >&2
    sed -n "s/^jobs [0-9]*: .* in \([0-9.]*\) s .*/\1/p" "$DIR/bench.out" | awk -v n="$JOBS" '{print $1 / n * 1000}' >>"$DIR/wall.$c"
    sed -n 's/^latency ms: p50 \([0-9.]*\).*/\1/p' "$DIR/bench.out" >>"$DIR/lat.$c"
    [ -n "$f0" ] && echo "$f0 $f1 $JOBS" | awk '{print ($2 - $1) / $3}' >>"$DIR/fl.$c"
  done
done
PROVER=$(median <"$DIR/prover") PCPU=$(median <"$DIR/pcpu")
echo "| circuit | workers | clients | daemon ms per job | prover ms per proof | overhead ms per job | latency p50 ms | journal flushes per job | daemon CPU ms per job | prover CPU ms per proof |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for c in "${CS[@]}"; do
  WALL=$(median <"$DIR/wall.$c") LAT=$(median <"$DIR/lat.$c") CPU=$(median <"$DIR/cpu.$c")
  FL=$( [ -s "$DIR/fl.$c" ] && median <"$DIR/fl.$c" || echo "-")
  printf '| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %s | %.2f | %.2f |\n' "$(basename "$Z" .zkey)" "$WORKERS" "$c" \
    "$WALL" "$PROVER" "$(echo "$WALL $PROVER" | awk '{print $1 - $2}')" "$LAT" "$FL" "$CPU" "$PCPU"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
