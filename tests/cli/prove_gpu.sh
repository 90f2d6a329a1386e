#!/usr/bin/env bash
# cuzk prove --gpu / --gpu=auto / --gpu-mem / several triples / --trace, and
# cuzk bench prove (its rows and trace). Without a GPU:
# --gpu exits 8 with one line, --gpu=auto proves on the CPU and says so.
# With one: GPU proofs are byte-identical to the CPU's (r = s = 0), verify,
# and a budget nothing fits is refused (exit 6) before any output.
# Usage: prove_gpu.sh <cuzk> <source dir> [constraints]
set -u
CUZK=$1
N=${3:-3000}
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { [ "$2" = "$3" ] && echo "ok   $1" || fail "$1: exit $3, expected $2"; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# A trace file's complete events: "<count> <categories> <names>" (sorted, comma-separated); fails if it does not parse.
tracesum() {
    if command -v node >/dev/null 2>&1; then
        node -e 'const t=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));const ev=t.traceEvents.filter(e=>e.ph==="X"&&e.dur>=0&&e.ts>=0);const u=a=>[...new Set(a)].sort().join(",");console.log(ev.length,u(ev.map(e=>e.cat)),u(ev.map(e=>e.name)))' "$1"
    else
        python3 -c 'import json,sys; ev=[e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"]=="X" and e["dur"]>=0 and e["ts"]>=0]; u=lambda a: ",".join(sorted(set(a))); print(len(ev), u(e["cat"] for e in ev), u(e["name"] for e in ev))' "$1"
    fi
}
for curve in bn128 bls12381; do
    D=$T/$curve
    mkdir -p "$D"
    "$CUZK" gen --curve $curve --constraints $N --public 2 --seed 7 "$D/c.r1cs" "$D/w.wtns" >/dev/null 2>&1 &&
        "$CUZK" setup "$D/c.r1cs" "$D/c.zkey" >/dev/null 2>&1 &&
        "$CUZK" export-vk "$D/c.zkey" "$D/vk.json" >/dev/null 2>&1 || { fail "$curve: gen/setup"; continue; }
    # CPU reference (deterministic), with a timeline of its phases
    "$CUZK" prove --insecure-zero-rs --trace "$D/cpu_trace.json" "$D/c.zkey" "$D/w.wtns" "$D/cpu.json" "$D/cpu_pub.json"
    check "$curve cpu prove" 0 $?
    sum=$(tracesum "$D/cpu_trace.json") || fail "$curve CPU trace does not parse"
    case "$sum" in *" host "*abc*msm_b2*verify*) echo "ok   $curve CPU trace: $sum" ;; *) fail "$curve CPU trace: $sum" ;; esac
    "$CUZK" prove --gpu --insecure-zero-rs "$D/c.zkey" "$D/w.wtns" "$D/gpu.json" "$D/gpu_pub.json" 2>"$D/err"
    rc=$?
    if [ $rc = 8 ]; then
        [ "$(wc -l <"$D/err")" = 1 ] && grep -q "^Error: --gpu: no CUDA device" "$D/err" || fail "$curve no-GPU message: $(cat "$D/err")"
        [ -e "$D/gpu.json" ] && fail "$curve: output written without a GPU"
        echo "ok   $curve --gpu without a GPU: exit 8"
        "$CUZK" prove --gpu=auto --insecure-zero-rs "$D/c.zkey" "$D/w.wtns" "$D/auto.json" "$D/auto_pub.json" 2>"$D/err"
        check "$curve --gpu=auto on the CPU" 0 $?
        grep -q "proving on the CPU" "$D/err" || fail "$curve --gpu=auto did not say CPU: $(cat "$D/err")"
        cmp -s "$D/cpu.json" "$D/auto.json" || fail "$curve --gpu=auto proof differs"
    else
        check "$curve gpu prove" 0 $rc
        cmp -s "$D/cpu.json" "$D/gpu.json" && echo "ok   $curve GPU proof = CPU proof" || fail "$curve GPU proof differs from the CPU's"
        cmp -s "$D/cpu_pub.json" "$D/gpu_pub.json" || fail "$curve public.json differs"
        "$CUZK" verify "$D/vk.json" "$D/gpu_pub.json" "$D/gpu.json" >/dev/null
        check "$curve GPU proof verifies" 0 $?
        # device phases timed by events in -v and in the trace, the measured peak beside the planned one
        "$CUZK" prove --gpu -v --trace "$D/gpu_trace.json" "$D/c.zkey" "$D/w.wtns" "$D/t.json" "$D/tp.json" 2>"$D/err"
        check "$curve GPU prove -v --trace" 0 $?
        for ph in abc ntt msm_h msm_a msm_b1 msm_c msm_b2 upload_witness; do
            grep -q "^CUZK_TIMING phase=gpu\.$ph ms=[0-9.]* device=0 " "$D/err" || fail "$curve: no gpu.$ph timing line"
        done
        for ph in load_zkey prepare load_wtns abc ntt msm_h msm_b2 assemble verify write total; do
            grep -q "^CUZK_TIMING phase=$ph ms=" "$D/err" || fail "$curve: no $ph timing line with --gpu"
        done
        read -r planned peak <<<"$(sed -n 's/^CUZK_DEVICE_MEM device=0 planned_bytes=\([0-9]*\) peak_bytes=\([0-9]*\)$/\1 \2/p' "$D/err")"
        [ -n "${peak:-}" ] && [ "$peak" -gt 0 ] && [ "$peak" -le "$planned" ] &&
            echo "ok   $curve device peak $peak <= planned $planned" || fail "$curve device memory line: $(grep CUZK_DEVICE_MEM "$D/err")"
        sum=$(tracesum "$D/gpu_trace.json") || fail "$curve GPU trace does not parse"
        case "$sum" in *" calls,copy,host,kernels "*msm_b2*upload_witness*wait_gpu*) echo "ok   $curve GPU trace: $sum" ;; *) fail "$curve GPU trace: $sum" ;; esac
        # the bench: one row per W with kernels, busy fraction and peaks, and its trace
        "$CUZK" bench prove --gpu --workers 1,2 --proofs 4 --trace "$D/bench_trace.json" "$D/c.zkey" "$D/w.wtns" >"$D/bench" 2>&1
        check "$curve GPU bench prove" 0 $?
        [ "$(grep -cE '^[12] +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+% +[0-9.]+ +[0-9.]+ ' "$D/bench")" = 2 ] ||
            fail "$curve bench rows: $(cat "$D/bench")"
        tracesum "$D/bench_trace.json" >/dev/null || fail "$curve bench trace does not parse"
        # random r, s: a different proof that verifies; two triples, key loaded once
        "$CUZK" prove --gpu "$D/c.zkey" "$D/w.wtns" "$D/g1.json" "$D/g1p.json" "$D/w.wtns" "$D/g2.json" "$D/g2p.json"
        check "$curve GPU two triples" 0 $?
        for k in 1 2; do
            "$CUZK" verify "$D/vk.json" "$D/g${k}p.json" "$D/g$k.json" >/dev/null || fail "$curve triple $k does not verify"
        done
        cmp -s "$D/g1.json" "$D/g2.json" && fail "$curve: two random proofs are equal"
        # 2 workers' plan at a cap that streams the key
        "$CUZK" prove --gpu --gpu-mem 600M --insecure-zero-rs "$D/c.zkey" "$D/w.wtns" "$D/cap.json" "$D/cap_pub.json"
        check "$curve GPU at 600M" 0 $?
        cmp -s "$D/cpu.json" "$D/cap.json" || fail "$curve GPU proof at 600M differs"
        "$CUZK" prove --gpu --gpu-mem 100M "$D/c.zkey" "$D/w.wtns" "$D/no.json" "$D/no_pub.json" 2>"$D/err"
        check "$curve GPU at 100M refused" 6 $?
        [ -e "$D/no.json" ] && fail "$curve: output written after a refused plan"
        "$CUZK" prove --gpu=auto --insecure-zero-rs "$D/c.zkey" "$D/w.wtns" "$D/auto.json" "$D/auto_pub.json" 2>"$D/err"
        check "$curve --gpu=auto" 0 $?
        grep -q "proving on GPU" "$D/err" || fail "$curve --gpu=auto did not say GPU: $(cat "$D/err")"
    fi
    # several triples on the CPU: the same bytes as one at a time
    "$CUZK" prove -v --insecure-zero-rs "$D/c.zkey" "$D/w.wtns" "$D/m1.json" "$D/m1p.json" "$D/w.wtns" "$D/m2.json" "$D/m2p.json" 2>"$D/err"
    check "$curve cpu two triples" 0 $?
    for ph in load_wtns abc msm_b2 verify write; do
        [ "$(grep -c "^CUZK_TIMING phase=$ph ms=" "$D/err")" = 2 ] || fail "$curve two triples: not two $ph timing lines"
    done
    cmp -s "$D/cpu.json" "$D/m1.json" && cmp -s "$D/cpu.json" "$D/m2.json" || fail "$curve: triples differ from the single proof"
    # a bad second witness: the first triple is written, the second nothing
    head -c 100 "$D/w.wtns" >"$D/bad.wtns"
    "$CUZK" prove --insecure-zero-rs "$D/c.zkey" "$D/w.wtns" "$D/b1.json" "$D/b1p.json" "$D/bad.wtns" "$D/b2.json" "$D/b2p.json" 2>/dev/null
    check "$curve bad second triple" 3 $?
    [ -e "$D/b1.json" ] && [ ! -e "$D/b2.json" ] || fail "$curve: outputs after a bad second triple"
done
Z=$T/bn128/c.zkey
W=$T/bn128/w.wtns
# the bench on the CPU, with its trace; a trace that cannot be written stops before any work
"$CUZK" bench prove --workers 1,2 --proofs 2 --trace "$T/bench_cpu.json" "$Z" "$W" >"$T/bench" 2>&1
check "cpu bench prove --trace" 0 $?
[ "$(grep -cE '^[12] +[0-9.]+ +[0-9.]+ +- ' "$T/bench")" = 2 ] || fail "cpu bench rows: $(cat "$T/bench")"
sum=$(tracesum "$T/bench_cpu.json") || fail "cpu bench trace does not parse"
case "$sum" in *" host "*msm_h*) echo "ok   cpu bench trace: $sum" ;; *) fail "cpu bench trace: $sum" ;; esac
"$CUZK" prove --trace "$T/no/such/dir/t.json" "$Z" "$W" "$T/x.json" "$T/xp.json" 2>"$T/err"
check "unwritable --trace" 2 $?
[ "$(wc -l <"$T/err")" = 1 ] && [ ! -e "$T/x.json" ] || fail "unwritable --trace: $(cat "$T/err")"
"$CUZK" prove --gpu=x "$Z" "$W" "$T/x.json" "$T/xp.json" 2>/dev/null; check "bad --gpu value" 1 $?
"$CUZK" prove --gpu-mem 1G "$Z" "$W" "$T/x.json" "$T/xp.json" 2>/dev/null; check "--gpu-mem without --gpu" 1 $?
"$CUZK" prove "$Z" "$W" "$T/x.json" 2>/dev/null; check "incomplete triple" 1 $?
[ $fails = 0 ] && echo "all passed" || echo "$fails failed"
[ $fails = 0 ]
