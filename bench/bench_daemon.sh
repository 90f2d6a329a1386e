#!/usr/bin/env bash
# Daemon overhead benchmark: back-to-back proofs of one circuit through
# `cuzk serve` (warm key) against `cuzk prove` in-process time with loading
# excluded. Not a CTest test.
#
# Usage: bench/bench_daemon.sh [options]
#   -k LOG2        circuit size: `cuzk gen --constraints 2^LOG2` + `cuzk setup` (default 16)
#   -C CURVE       bn128 or bls12381 (default bn128)
#   -n JOBS        jobs per daemon run (default 20)
#   -r RUNS        repetitions of each measurement; medians are reported (default 3)
#   -t THREADS     prover threads for both (default: all CPUs)
#   -d DIR         work directory; the circuit is cached there (default /tmp/cuzk-bench-daemon)
#   -g             GPU backend for the daemon (gpu.devices all, -w workers per GPU)
#   -w W           workers (CPU workers, or workers per GPU with -g; default 1)
# Environment: CUZK (default <repo>/build/cuzk).
#
# Reports, per run: `cuzk prove -v` total minus the key loading (load_zkey and
# prepare: what a resident key keeps; the witness is read and the proof written
# per job in both) = the proof itself; the daemon's throughput with one client
# (-c 1) and its mean latency; the daemon's own prove time per job; and the
# overhead per job = client latency - the daemon's prove time (HTTP, journal,
# spool, queue hand-off, result fetch).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CUZK=${CUZK:-$ROOT/build/cuzk}
K=16 CURVE=bn128 JOBS=20 RUNS=3 THREADS=0 DIR=/tmp/cuzk-bench-daemon GPU=0 WORKERS=1
while getopts "k:C:n:r:t:d:gw:h" opt; do
  case $opt in
    k) K=$OPTARG ;; C) CURVE=$OPTARG ;; n) JOBS=$OPTARG ;; r) RUNS=$OPTARG ;;
    t) THREADS=$OPTARG ;; d) DIR=$OPTARG ;; g) GPU=1 ;; w) WORKERS=$OPTARG ;;
    *) sed -n '2,22p' "$0"; exit 2 ;;
  esac
done
mkdir -p "$DIR"
Z=$DIR/$CURVE-$K.zkey W=$DIR/$CURVE-$K.wtns
if [ ! -f "$Z" ]; then
  "$CUZK" gen --curve "$CURVE" --constraints "2^$K" --seed 1 "$DIR/$CURVE-$K.r1cs" "$W"
  "$CUZK" setup "$DIR/$CURVE-$K.r1cs" "$Z.tmp" 2>/dev/null && mv "$Z.tmp" "$Z"
fi
TARGS=(); [ "$THREADS" -gt 0 ] && TARGS=(-t "$THREADS")
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# 1. cuzk prove, in-process, loading excluded (default flags: the proof is verified, as in the daemon).
: >"$DIR/local"
for r in $(seq 1 $((RUNS * 3))); do
  "$CUZK" prove -v -q "${TARGS[@]}" "$Z" "$W" "$DIR/p.json" "$DIR/pub.json" 2>"$DIR/timing"
  awk '/CUZK_TIMING/ { split($2,a,"="); split($3,b,"="); ms[a[2]] = b[2] }
       END { print ms["total"] - ms["load_zkey"] - ms["prepare"] }' "$DIR/timing" >>"$DIR/local"
done
LOCAL=$(median <"$DIR/local")

# 2. the daemon: one client, back-to-back jobs, warm key.
S=$DIR/state; rm -rf "$S"
DARGS=(--state-dir "$S" --listen 127.0.0.1:0 --retention 10m)
[ "$THREADS" -gt 0 ] && DARGS+=(--threads "$THREADS")
if [ $GPU = 1 ]; then DARGS+=(--workers-per-device "$WORKERS"); else DARGS+=(--devices none --cpu-workers "$WORKERS"); fi
"$CUZK" serve --foreground "${DARGS[@]}" 2>"$DIR/daemon.log" &
DPID=$!
trap 'kill -TERM $DPID 2>/dev/null; wait $DPID 2>/dev/null' EXIT
for _ in $(seq 1 100); do grep -q 'event=listening' "$DIR/daemon.log" && break; sleep 0.05; done
URL=$(grep -o 'event=listening url=[^ ]*' "$DIR/daemon.log" | sed 's/.*url=//')
: >"$DIR/tput"; : >"$DIR/lat"; : >"$DIR/dprove"; : >"$DIR/over"
for r in $(seq 1 "$RUNS"); do
  "$CUZK" bench serve --url "$URL" --key "$Z" --witness "$W" -n "$JOBS" -c 1 --warmup 2 >"$DIR/bench.out"
  cat "$DIR/bench.out" >&2
  sed -n 's/^throughput \([0-9.]*\).*/\1/p' "$DIR/bench.out" >>"$DIR/tput"
  sed -n 's/^latency ms: p50 \([0-9.]*\).*/\1/p' "$DIR/bench.out" >>"$DIR/lat"
  sed -n 's/^prove ms (daemon): mean \([0-9.]*\).*/\1/p' "$DIR/bench.out" >>"$DIR/dprove"
  sed -n 's/^overhead ms per job.*mean \([0-9.-]*\).*/\1/p' "$DIR/bench.out" >>"$DIR/over"
done
TPUT=$(median <"$DIR/tput") LAT=$(median <"$DIR/lat") DPROVE=$(median <"$DIR/dprove") OVER=$(median <"$DIR/over")
printf '| %s 2^%s | %.1f | %.1f | %.2f | %.1f | %.1f | %+.1f %% |\n' "$CURVE" "$K" "$LOCAL" "$DPROVE" "$TPUT" \
  "$LAT" "$OVER" "$(echo "$LAT $LOCAL" | awk '{print ($1 - $2) / $2 * 100}')"
echo "columns: circuit | cuzk prove without loading (ms) | daemon prove per job (ms) | daemon proofs/s (1 client) | daemon latency p50 (ms) | overhead per job (ms) | daemon latency vs cuzk prove" >&2
