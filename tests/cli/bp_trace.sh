#!/usr/bin/env bash
# cuzk prove --format bellperson --trace FILE and -v: the timeline parses as
# JSON (node, else python3) and holds the host phases of every partition
# (prep_scalars .. verify), with the circom fixture mul and the PoRep-shaped
# circuit (--porep); -v prints one CUZK_TIMING line per phase and partition;
# a trace path that cannot be created is one Error: line, exit 2, before any
# work (an existing proof file is left as it was); after a failed proof the
# trace is still valid JSON and no proof is written. With a GPU, the same on
# the GPU: device intervals (gpu.* lines, copy and kernels events) and, with
# two workers, host phases on a lane per worker thread and device work on a
# lane per worker slot; --gpus all gives the same proofs.
# Usage: bp_trace.sh <cuzk> <source dir>
set -u
CUZK=$1 ROOT=$2
D=$ROOT/tests/data/interop/bls12381
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { [ "$2" = "$3" ] && echo "ok   $1" || fail "$1: exit $3, expected $2"; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# A trace's complete events, one line:
#   n=<count> cats=<categories> names=<names> prep=<prep_scalars events> verify=<verify events>
#   host_lanes=<host (pid, tid) pairs> slots=<device (pid, slot) pairs>
# (sorted, comma-separated; device tid = 3 x slot + stream). Fails if the file does not parse.
tracesum() {
    if command -v node >/dev/null 2>&1; then
        node -e '
const t=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
const ev=t.traceEvents.filter(e=>e.ph==="X"&&e.dur>=0&&e.ts>=0);
const u=a=>[...new Set(a)].sort().join(",");
const n=k=>ev.filter(e=>e.name===k).length;
const h=ev.filter(e=>e.cat==="host"), d=ev.filter(e=>e.cat!=="host");
console.log(`n=${ev.length} cats=${u(ev.map(e=>e.cat))} names=${u(ev.map(e=>e.name))} prep=${n("prep_scalars")} ` +
  `verify=${n("verify")} host_lanes=${new Set(h.map(e=>e.pid+"."+e.tid)).size} ` +
  `slots=${new Set(d.map(e=>e.pid+"."+Math.floor(e.tid/3))).size}`)' "$1"
    else
        python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X" and e["dur"] >= 0 and e["ts"] >= 0]
u = lambda a: ",".join(sorted(set(a)))
n = lambda k: sum(1 for e in ev if e["name"] == k)
h = [e for e in ev if e["cat"] == "host"]
d = [e for e in ev if e["cat"] != "host"]
print("n=%d cats=%s names=%s prep=%d verify=%d host_lanes=%d slots=%d" % (len(ev), u(e["cat"] for e in ev),
      u(e["name"] for e in ev), n("prep_scalars"), n("verify"), len(set((e["pid"], e["tid"]) for e in h)),
      len(set((e["pid"], e["tid"] // 3) for e in d))))' "$1"
    fi
}
HOST_PHASES="abc,assemble,load_wtns,load_zkey,msm_a,msm_b1,msm_b2,msm_c,msm_h,ntt,prep_scalars,prepare,verify,write"
has_phases() { # has_phases <summary> <comma-separated names>: every name among the summary's names
    local names=${1#*names=}
    names=",${names%% *},"
    local IFS=,
    for p in $2; do
        case "$names" in *",$p,"*) ;; *) return 1 ;; esac
    done
}

"$CUZK" setup -q --format bellperson "$D/mul.r1cs" "$T/mul.params" >/dev/null 2>&1 || fail "setup mul"
"$CUZK" setup -q --format bellperson --porep --scale 10 --seed 2 --cpu "$T/porep.params" >/dev/null 2>&1 ||
    fail "setup --porep --scale 10"

# the circom fixture, 3 partitions, on the CPU
"$CUZK" prove --format bellperson -v --trace "$T/t.json" --partitions 3 --seed 1 "$T/mul.params" "$D/mul.r1cs" \
    "$D/mul.wtns" "$T/p.bin" "$T/pub.json" 2>"$T/err"
check "prove --format bellperson --trace --partitions 3" 0 $?
sum=$(tracesum "$T/t.json") || fail "the trace does not parse: $(head -c 300 "$T/t.json")"
has_phases "$sum" "$HOST_PHASES" && case "$sum" in *" prep=3 verify=3 "*) true ;; *) false ;; esac &&
    echo "ok   trace: $sum" || fail "trace: $sum"
[ "$(grep -c '^CUZK_TIMING phase=prep_scalars ms=' "$T/err")" = 3 ] &&
    [ "$(grep -c '^CUZK_TIMING phase=msm_b2 ms=' "$T/err")" = 3 ] && grep -q '^CUZK_TIMING phase=total ms=' "$T/err" &&
    echo "ok   -v: a timing line per phase and partition" || fail "-v lines: $(cat "$T/err")"
"$CUZK" verify -q --format bellperson "$T/mul.vk" "$T/pub.json" "$T/p.bin" >/dev/null 2>&1
check "the traced proof verifies" 0 $?

# the PoRep-shaped circuit, 2 partitions
"$CUZK" prove -q --format bellperson --porep --scale 10 --porep-seed 2 --partitions 2 --seed 1 --trace "$T/tp.json" \
    "$T/porep.params" "$T/pp.bin" "$T/ppub.json" 2>"$T/err"
check "prove --format bellperson --porep --trace --partitions 2" 0 $?
sum=$(tracesum "$T/tp.json") || fail "the --porep trace does not parse"
has_phases "$sum" "$HOST_PHASES" && case "$sum" in *" prep=2 verify=2 "*) true ;; *) false ;; esac &&
    echo "ok   --porep trace: $sum" || fail "--porep trace: $sum"

# a trace that cannot be created: one line, exit 2, before any work; the proof file is left alone
echo "old proof" >"$T/keep.bin"
"$CUZK" prove --format bellperson --trace "$T/no/such/dir/t.json" --seed 1 "$T/mul.params" "$D/mul.r1cs" \
    "$D/mul.wtns" "$T/keep.bin" "$T/keep.json" 2>"$T/err"
check "unwritable --trace" 2 $?
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "^Error: $T/no/such/dir/t.json: " "$T/err" || fail "unwritable --trace: $(cat "$T/err")"
[ "$(cat "$T/keep.bin")" = "old proof" ] && [ ! -e "$T/keep.json" ] || fail "unwritable --trace: an output was touched"
"$CUZK" prove --format bellperson --trace 2>"$T/err" >/dev/null
check "--trace without a value" 1 $?

# a failing proof (the witness of another circuit: exit 4) still leaves a valid trace, and no proof
"$CUZK" prove --format bellperson --trace "$T/tf.json" --seed 1 "$T/mul.params" "$D/mul.r1cs" "$D/linear.wtns" \
    "$T/f.bin" "$T/f.json" 2>"$T/err"
check "failing proof with --trace" 4 $?
[ "$(wc -l <"$T/err")" = 1 ] || fail "failing proof: more than one line: $(cat "$T/err")"
[ ! -e "$T/f.bin" ] && [ ! -e "$T/f.json" ] || fail "failing proof: an output was written"
sum=$(tracesum "$T/tf.json") && has_phases "$sum" "load_zkey" && echo "ok   trace after an error: $sum" ||
    fail "trace after an error: $sum"

# the GPU: device intervals in -v and in the trace; two workers: host phases on at most two lanes (the
# threads' numbers; which thread takes which partition is up to the scheduler), device work on at most two slots
"$CUZK" prove --format bellperson --gpu -v --trace "$T/tg.json" --partitions 4 --gpu-workers 2 --seed 1 \
    "$T/porep.params" --porep --scale 10 --porep-seed 2 "$T/gp.bin" "$T/gpub.json" 2>"$T/err"
rc=$?
if [ $rc = 8 ]; then
    echo "ok   --gpu without a GPU: exit 8 (device spans not checked here)"
else
    check "prove --format bellperson --gpu -v --trace --partitions 4 --gpu-workers 2" 0 $rc
    cmp -s "$T/gp.bin" /dev/null && fail "--gpu: empty proof"
    "$CUZK" verify -q --format bellperson "$T/porep.vk" "$T/gpub.json" "$T/gp.bin" >/dev/null 2>&1
    check "the GPU proofs verify" 0 $?
    for p in upload_witness abc ntt msm_h msm_a msm_b1 msm_c msm_b2; do
        [ "$(grep -c "^CUZK_TIMING phase=gpu\.$p ms=[0-9.]* device=0 worker=[01] stream=" "$T/err")" = 4 ] ||
            fail "-v: not 4 gpu.$p lines: $(grep -c "phase=gpu\.$p " "$T/err")"
    done
    sum=$(tracesum "$T/tg.json") || fail "the GPU trace does not parse"
    has_phases "$sum" "$HOST_PHASES,upload_witness" &&
        case "$sum" in *" cats=calls,copy,host,kernels "*" prep=4 verify=4 host_lanes="[12]" slots="[12]) true ;; *) false ;; esac &&
        echo "ok   GPU trace: $sum" || fail "GPU trace: $sum"
    # every GPU (--gpus all): the same proofs (the same r and s from --seed)
    "$CUZK" prove -q --format bellperson --gpu --gpus all --partitions 4 --seed 1 "$T/porep.params" --porep \
        --scale 10 --porep-seed 2 "$T/ga.bin" "$T/gapub.json" 2>"$T/err"
    check "prove --format bellperson --gpu --gpus all --partitions 4" 0 $?
    cmp -s "$T/ga.bin" "$T/gp.bin" && cmp -s "$T/gapub.json" "$T/gpub.json" &&
        echo "ok   --gpus all: the same proofs" || fail "--gpus all: other proofs"
fi
[ $fails = 0 ] && echo "all ok" || { echo "$fails failure(s)"; exit 1; }
