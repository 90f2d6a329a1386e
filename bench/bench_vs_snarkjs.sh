#!/usr/bin/env bash
# Whole-command prover benchmark: cuzk vs snarkjs (and rapidsnark if given),
# same zkey and witness, loading included. Not a CTest test.
#
# Usage: bench/bench_vs_snarkjs.sh [options] [LOG2_SIZE...]
#   LOG2_SIZE        constraint counts as powers of two (default: 12 13 14 15 16 17 18)
#   -c CURVES        comma-separated: bn128,bls12381 (default both)
#   -n RUNS          timed runs per command; the median is reported (default 3)
#   -w WARMUP        untimed runs before timing (default 0)
#   -d DIR           work directory; generated r1cs/wtns/zkey are cached there
#                    and reused by later runs (default /tmp/cuzk-bench)
#   -o FILE          also write the Markdown table to FILE
# Environment:
#   CUZK             cuzk binary (default <repo>/build/cuzk)
#   CUZK_PROVE_ARGS  extra `cuzk prove` options (default "--no-verify": snarkjs and
#                    rapidsnark do not self-verify either; set "" to time the default)
#   RAPIDSNARK       path to a rapidsnark `prover` binary: adds a BN254 column
#   SNARKJS          snarkjs CLI (default <repo>/node_modules/.bin/snarkjs)
# Timing uses hyperfine when installed (apt-get install -y hyperfine), else a
# bash loop over `date +%s.%N`. Every cuzk proof (and rapidsnark's) is checked
# with `snarkjs groth16 verify`; a rejected proof is marked INVALID in the
# table and makes the script exit 1.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CUZK=${CUZK:-$ROOT/build/cuzk}
SNARKJS=${SNARKJS:-$ROOT/node_modules/.bin/snarkjs}
CUZK_PROVE_ARGS=${CUZK_PROVE_ARGS---no-verify}
RAPIDSNARK=${RAPIDSNARK:-}
CURVES=bn128,bls12381 RUNS=3 WARMUP=0 DIR=/tmp/cuzk-bench OUTFILE=
while getopts "c:n:w:d:o:h" opt; do
  case $opt in
    c) CURVES=$OPTARG ;; n) RUNS=$OPTARG ;; w) WARMUP=$OPTARG ;;
    d) DIR=$OPTARG ;; o) OUTFILE=$OPTARG ;;
    *) sed -n '2,24p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(12 13 14 15 16 17 18)
[ -x "$CUZK" ] || { echo "cuzk binary not found: $CUZK (set CUZK=...)" >&2; exit 1; }
[ -x "$SNARKJS" ] || { echo "snarkjs not found: $SNARKJS (run 'npm ci')" >&2; exit 1; }
[ -z "$RAPIDSNARK" ] || [ -x "$RAPIDSNARK" ] || { echo "RAPIDSNARK=$RAPIDSNARK is not executable" >&2; exit 1; }
mkdir -p "$DIR"
HYPERFINE=$(command -v hyperfine || true)
log() { echo "$*" >&2; }

# median_time CMD: median wall seconds of RUNS executions of the shell
# command string CMD (stdout/stderr discarded, failure aborts).
median_time() {
  local cmd=$1
  if [ -n "$HYPERFINE" ]; then
    hyperfine -N --style none --warmup "$WARMUP" --runs "$RUNS" \
      --export-json "$DIR/hf.json" "$cmd" >/dev/null 2>"$DIR/hf.err" ||
      { cat "$DIR/hf.err" >&2; return 1; }
    node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1])).results[0];
             console.log(r.median.toFixed(3))' "$DIR/hf.json"
  else
    local i t0 t1 times=()
    for ((i = 0; i < WARMUP; i++)); do bash -c "$cmd" >/dev/null 2>&1; done
    for ((i = 0; i < RUNS; i++)); do
      t0=$(date +%s.%N)
      bash -c "$cmd" >/dev/null 2>"$DIR/run.err" || { cat "$DIR/run.err" >&2; return 1; }
      t1=$(date +%s.%N)
      times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.6f", b - a}')")
    done
    printf '%s\n' "${times[@]}" | sort -g |
      awk '{a[NR]=$1} END{m = NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.3f\n", m}'
  fi
}

# verified VK PUB PROOF: "ok" if snarkjs accepts the proof, else "INVALID".
verified() {
  if "$SNARKJS" groth16 verify "$1" "$2" "$3" 2>&1 | grep -q 'OK!'; then echo ok; else echo INVALID; fi
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.1f×", a / b; else print "—" }'; }

status=0
header="| curve | constraints | cuzk (s) | snarkjs (s) | speed-up |"
rule="|---|---:|---:|---:|---:|"
if [ -n "$RAPIDSNARK" ]; then
  header="$header rapidsnark (s) | speed-up vs rapidsnark |"
  rule="$rule---:|---:|"
fi
rows=()
for curve in ${CURVES//,/ }; do
  for k in "${SIZES[@]}"; do
    n=$((1 << k)) base="$DIR/$curve-$k"
    if [ ! -s "$base.zkey" ]; then
      log "[$curve 2^$k] cuzk gen + cuzk setup"
      "$CUZK" gen --constraints $n --curve "$curve" --public 1 "$base.r1cs" "$base.wtns"
      "$CUZK" setup "$base.r1cs" "$base.zkey.tmp" && mv "$base.zkey.tmp" "$base.zkey"
      "$SNARKJS" zkey export verificationkey "$base.zkey" "$base.vk.json" >/dev/null
    fi
    log "[$curve 2^$k] timing cuzk prove"
    # shellcheck disable=SC2086  # CUZK_PROVE_ARGS is a word list
    t_cuzk=$(median_time "$CUZK prove $CUZK_PROVE_ARGS $base.zkey $base.wtns $base.cuzk.proof.json $base.cuzk.public.json")
    v_cuzk=$(verified "$base.vk.json" "$base.cuzk.public.json" "$base.cuzk.proof.json")
    [ "$v_cuzk" = ok ] || { status=1; t_cuzk="$t_cuzk INVALID"; }
    log "[$curve 2^$k] timing snarkjs groth16 prove"
    t_sj=$(median_time "$SNARKJS groth16 prove $base.zkey $base.wtns $base.sj.proof.json $base.sj.public.json")
    row="| $curve | $n (2^$k) | $t_cuzk | $t_sj | $(ratio "$t_sj" "${t_cuzk%% *}") |"
    if [ -n "$RAPIDSNARK" ]; then
      if [ "$curve" = bn128 ]; then
        log "[$curve 2^$k] timing rapidsnark"
        t_rs=$(median_time "$RAPIDSNARK $base.zkey $base.wtns $base.rs.proof.json $base.rs.public.json")
        [ "$(verified "$base.vk.json" "$base.rs.public.json" "$base.rs.proof.json")" = ok ] || t_rs="$t_rs INVALID"
        row="$row $t_rs | $(ratio "${t_rs%% *}" "${t_cuzk%% *}") |"
      else
        row="$row n/a (BN254 only) | — |"
      fi
    fi
    rows+=("$row")
    log "$row"
  done
done

{
  echo "cuzk prove ${CUZK_PROVE_ARGS:-(default options)} vs snarkjs 0.7.6 groth16 prove; whole commands, median of $RUNS run(s)${HYPERFINE:+ (hyperfine)}; $(nproc) CPU threads, $(uname -m)"
  echo
  echo "$header"
  echo "$rule"
  printf '%s\n' "${rows[@]}"
} | tee ${OUTFILE:+"$OUTFILE"}
exit $status
