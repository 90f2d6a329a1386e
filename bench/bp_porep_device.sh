#!/usr/bin/env bash
# The PoRep-shaped circuit at the real 32 GiB layout through the supraseal-c2
# crate (cuzk's bellperson mode) and through supraseal-c2 itself, on one
# `.params` file, on a GPU machine that has no cargo. Not a CTest test.
#
#   bench/bp_porep_device.sh pack <cuda-build-dir> <dir> [<harness-build-dir>]
#     (where cargo is) the crate's example `bench` (built against that CUDA
#     build of libcuzk) and the build's `cuzk` into <dir>, and
#     when the supraseal-c2 sources are there (SRC, default <repo>/.ssv/src)
#     supraseal_porep_upstream / _cuzk (bench/supraseal_porep_build.sh,
#     linked with the libcuzk of <harness-build-dir>, default the CUDA one;
#     a CPU build will do).
#   bench/bp_porep_device.sh run <dir> [-l LG] [-s SEED] [-n N] [-r R] [-S] [-g GPU_MEM] [-W WORKERS]
#                                      [-H HOST_MEM] [-B auto|yes|no]
#                                      [-w WORKDIR] [-a ANCHOR_BIN] [-b gpu|cpu] [-V VARIANTS] STEP...
#     (on the GPU machine) STEPs, in the order given:
#       setup   INSECURE `.params` of the PoRep-shaped circuit, domain 2^LG
#               (default 27: 44 GiB), seed SEED (default 1), written by `cuzk
#               setup --format bellperson --porep` into WORKDIR (default
#               <repo>/build-bp-porep: local disk, never a tmpfs), timed, with
#               its host and GPU peaks. Skipped when WORKDIR already holds the
#               finished file of that LG and seed (a resumed run).
#       crate   the crate's bench on it: SRS::try_new (load time until the
#               first proof can start), the assignment (cuzk_bp_circuit_porep),
#               N partitions a call (default 3) through
#               generate_groth16_proofs, R + 1 timed calls (default R 2;
#               the median, as the other provers' R calls after one warm-up:
#               the first call warms up); -S: one copy of the assignment for all
#               partitions (host memory: 16.7 GB a copy at 2^27); -b cpu:
#               the crate's CPU backend (a check of the script without a GPU);
#               -g SIZE: the device budget (16G: as `--gpu-mem`), -W N: the
#               GPU workers of the memory plan (default: the plan's); -H SIZE:
#               the host budget (`--host-mem`), -B: streamed MSM bases staged
#               through page-locked chunks or locked (`--stage-bases`); -G
#               full:2,24G:2,8G:1: each entry (budget and workers) in turn in
#               one process, the assignment made once (a line each in the
#               results).
#       supra   supraseal-c2 itself on the same file WITH THE SAME ASSIGNMENT
#               (<dir>/supraseal_porep_upstream and _cuzk: supraseal-c2's
#               generate_groth16_proofs_c through the supraseal-anchor glue,
#               the assignment from cuzk_bp_circuit_porep), N circuits a call,
#               R reps after a warm-up; its proofs are verified against the
#               file's verifying key. -V "upstream" or "cuzk": one variant
#               (default both; supra and anchor).
#       anchor  supraseal-c2 on the same file: ANCHOR_BIN/anchor_upstream and
#               anchor_cuzk (default <repo>/.ssv/bin; tools/supraseal-anchor)
#               with --srs FILE and no --gen, N circuits, R reps. supraseal-c2
#               asserts that the file's A and B_G1 counts equal its
#               assignment's (inputs + popcount(a_aux), popcount(b_inp) +
#               popcount(b_aux)); the anchor draws its own density bitmaps,
#               so each variant's shape (its SHAPE line, printed before any
#               load) is compared with the file first and a variant that
#               disagrees is reported and skipped instead of aborting.
#       table   one table of everything WORKDIR/results.txt holds.
#       clean   removes WORKDIR.
#     `all` = setup crate supra anchor table.
# At 2^27 one 600 s call may not hold everything: run `setup crate table`,
# then `setup supra anchor table` in a second call (its setup resumes from the file
# while the machine still holds it, else writes it again).
# Exit non-zero at the first failure (a skipped anchor variant is no failure).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/crate_pack.sh
. "$repo/bench/crate_pack.sh"
cmd=${1:-}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# peak_run LOG CMD...: runs CMD (stdout+stderr to LOG and to the terminal),
# sampling its VmHWM (/proc) and the GPU's used memory
# (nvidia-smi, device-wide) every 0.5 s; prints LOG at the end. Sets
# PEAK_HWM_GIB, PEAK_GPU_GIB, RC.
peak_run() {
  local log=$1
  shift
  local gpu_log
  gpu_log=$(mktemp)
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 500 >"$gpu_log" 2>/dev/null &
  local smi=$!
  "$@" >"$log" 2>&1 &
  local pid=$! hwm=0
  while kill -0 "$pid" 2>/dev/null; do
    local h
    h=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
    sleep 0.5
  done
  RC=0
  wait "$pid" || RC=$?
  kill "$smi" 2>/dev/null || true
  wait "$smi" 2>/dev/null || true
  PEAK_HWM_GIB=$(awk -v k="$hwm" 'BEGIN { printf "%.2f", k / 1048576 }')
  PEAK_GPU_GIB=$(sort -n "$gpu_log" | tail -1 | awk '{ printf "%.2f", $1 / 1024 }')
  [ -n "$PEAK_GPU_GIB" ] || PEAK_GPU_GIB=n/a
  rm -f "$gpu_log"
  cat "$log"
}

case $cmd in
pack)
  out=${3:?output dir}
  crate_pack "${2:-}" "$out"
  build=$CRATE_PACK_BUILD
  src=${SRC:-$repo/.ssv/src}
  if [ -d "$src/supra_seal" ] && command -v nvcc >/dev/null; then
    SRC=$src "$repo/bench/supraseal_porep_build.sh" "${4:-$build}" "$out"
  else
    echo "note: no supraseal-c2 sources at $src (SRC=...) or no nvcc: supraseal_porep_* not built (step supra)"
  fi
  ls -l "$out"
  du -sh "$out"
  ;;
run)
  dir=$(cd "${2:?dir}" && pwd)
  shift 2
  lg=27 seed=1 n=3 reps=2 shared=() work=$repo/build-bp-porep anchor=$repo/.ssv/bin backend=gpu caps=()
  variants="upstream cuzk"
  while getopts "l:s:n:r:Sw:a:b:V:g:W:G:H:B:" o; do
    case $o in
    H) caps+=(--host-mem "$OPTARG") ;;
    B) caps+=(--stage-bases "$OPTARG") ;;
    G) caps+=(--grid "$OPTARG") ;;
    g) caps+=(--gpu-mem "$OPTARG") ;;
    W) caps+=(--workers "$OPTARG") ;;
    V) variants=$OPTARG ;;
    b) backend=$OPTARG ;;
    l) lg=$OPTARG ;; s) seed=$OPTARG ;; n) n=$OPTARG ;; r) reps=$OPTARG ;; S) shared=(--shared) ;;
    w) work=$OPTARG ;; a) anchor=$OPTARG ;; *) exit 1 ;;
    esac
  done
  shift $((OPTIND - 1))
  steps=("$@")
  [ ${#steps[@]} -gt 0 ] || { echo "Error: no STEP (setup crate supra anchor table clean all)"; exit 1; }
  [ "${steps[*]}" = all ] && steps=(setup crate supra anchor table)
  mkdir -p "$work"
  work=$(cd "$work" && pwd)
  params=$work/porep-2^$lg-s$seed.params
  res=$work/results.txt
  case $(stat -f -c %T "$work" 2>/dev/null) in
  tmpfs | ramfs) echo "Error: $work is on a $(stat -f -c %T "$work"): the file must go on disk (-w DIR)"; exit 1 ;;
  esac
  for step in "${steps[@]}"; do
    case $step in
    setup)
      if [ -s "$params.done" ] && [ "$(stat -c %s "$params" 2>/dev/null)" = "$(cat "$params.done")" ]; then
        echo "== setup 2^$lg seed $seed: $params is there ($(cat "$params.done") bytes): resumed"
        continue
      fi
      rm -f "$params" "$params.done" "${params%.params}.vk"
      echo "== setup 2^$lg seed $seed -> $params ($(df -h --output=avail "$work" | tail -1 | tr -d ' ') free)"
      t0=$(now)
      peak_run "$work/setup.log" "$dir/cuzk" setup -v --format bellperson --porep --scale "$lg" --seed "$seed" \
        "$params"
      t1=$(now)
      [ "$RC" = 0 ] || { echo "Error: setup failed (exit $RC)"; exit 1; }
      size=$(stat -c %s "$params")
      plan=$(sed -n 's/.*host plan \([0-9.]*\) GiB.*/\1/p' "$work/setup.log" | head -1)
      echo "$size" >"$params.done"
      echo "setup lg=$lg seed=$seed seconds=$(secs "$t0" "$t1") bytes=$size plan_gib=${plan:-?}" \
        "host_peak_gib=$PEAK_HWM_GIB gpu_peak_gib=$PEAK_GPU_GIB" | tee -a "$res"
      ;;
    crate)
      [ -s "$params.done" ] || { echo "Error: no finished $params: run the setup step first"; exit 1; }
      echo "== crate bench: 2^$lg, $n partitions a call, $((reps + 1)) calls ${shared[*]}"
      peak_run "$work/crate.log" "$dir/bench" --params "$params" --porep "$lg" --seed "$seed" --backend "$backend" \
        --circuits "$n" --reps "$((reps + 1))" "${shared[@]}" "${caps[@]}"
      [ "$RC" = 0 ] || { echo "Error: the crate bench failed (exit $RC)"; exit 1; }
      asg=$(sed -n 's/^assignment: \([0-9.]*\) s.*/\1/p' "$work/crate.log")
      grep '^SUMMARY ' "$work/crate.log" | sed 's/^SUMMARY //' | while read -r s; do
        echo "crate lg=$lg $s assignment_s=$asg sampled_host_peak_gib=$PEAK_HWM_GIB gpu_used_peak_gib=$PEAK_GPU_GIB" \
          "shared=${shared[*]:-no} caps=$(echo "${caps[*]:-none}" | tr ' ' ,)" | tee -a "$res"
      done
      ;;
    supra)
      [ -s "$params.done" ] || { echo "Error: no finished $params: run the setup step first"; exit 1; }
      for v in $variants; do
        exe=$dir/supraseal_porep_$v
        [ -x "$exe" ] || { echo "Error: $exe: not there (pack with the supraseal-c2 sources)"; exit 1; }
        echo "== supraseal_porep_$v: 2^$lg, $n circuits a call, $reps reps ${shared[*]}"
        sh_arg=()
        [ ${#shared[@]} -gt 0 ] && sh_arg=(--shared)
        peak_run "$work/supra_$v.log" "$exe" --params "$params" --lg "$lg" --seed "$seed" --circuits "$n" \
          --reps "$reps" "${sh_arg[@]}"
        [ "$RC" = 0 ] || { echo "Error: supraseal_porep_$v failed (exit $RC)"; exit 1; }
        load=$(sed -n 's/^SRS_LOAD .*total=\([0-9.]*\)s.*/\1/p' "$work/supra_$v.log")
        asg=$(sed -n 's/^ASSIGNMENT \([0-9.]*\)s.*/\1/p' "$work/supra_$v.log")
        sum=$(grep '^SUMMARY ' "$work/supra_$v.log" | tail -1)
        f() { echo "$sum" | sed -n "s/.* $1=\([^ ]*\).*/\1/p" | tr -d 'sGiB'; }
        echo "supra variant=$v lg=$lg load_s=$load circuits=$n median_s=$(f median) per_circuit_s=$(f per_circuit)" \
          "host_peak_gib=$PEAK_HWM_GIB rss_anon_gib=$(f rss_anon) gpu_peak_gib=$PEAK_GPU_GIB" \
          "assignment_s=$asg verified=$(echo "$sum" | sed -n 's/.* verified=\([a-z]*\).*/\1/p')" | tee -a "$res"
      done
      ;;
    anchor)
      [ -s "$params.done" ] || { echo "Error: no finished $params: run the setup step first"; exit 1; }
      info=$("$dir/cuzk" info "$params")
      fa=$(echo "$info" | awk '/section A /{ print $3 }')
      fb=$(echo "$info" | awk '/section B_G1 /{ print $3 }')
      for v in $variants; do
        exe=$anchor/anchor_$v
        [ -x "$exe" ] || { echo "Error: $exe: not there (-a DIR: the anchor binaries)"; exit 1; }
        # its shape, from a run that stops at the load of a file that is not there
        shape=$("$exe" --lg "$lg" --srs "$work/no-such-file" 2>/dev/null | grep '^SHAPE' || true)
        aa=$(echo "$shape" | sed -n 's/.* A=\([0-9]*\).*/\1/p')
        ab=$(echo "$shape" | sed -n 's/.* B_G1=B_G2=\([0-9]*\).*/\1/p')
        if [ "$aa" != "$fa" ] || [ "$ab" != "$fb" ]; then
          echo "== anchor_$v: skipped: its assignment has A=${aa:-?} B=${ab:-?} points, the file A=$fa B=$fb;" \
            "supraseal-c2 asserts they agree"
          echo "anchor variant=$v lg=$lg skipped=shape a_anchor=${aa:-?} b_anchor=${ab:-?} a_file=$fa b_file=$fb" \
            >>"$res"
          continue
        fi
        echo "== anchor_$v: 2^$lg, $n circuits, $reps reps, --srs $params"
        peak_run "$work/anchor_$v.log" "$exe" --lg "$lg" --srs "$params" --circuits "$n" --reps "$reps"
        [ "$RC" = 0 ] || { echo "Error: anchor_$v failed (exit $RC)"; exit 1; }
        load=$(sed -n 's/^SRS_LOAD .*total=\([0-9.]*\)s.*/\1/p' "$work/anchor_$v.log")
        sum=$(grep '^SUMMARY ' "$work/anchor_$v.log" | tail -1)
        med=$(echo "$sum" | sed -n 's/.* median=\([0-9.]*\)s.*/\1/p')
        per=$(echo "$sum" | sed -n 's/.* per_circuit=\([0-9.]*\)s.*/\1/p')
        gpu=$(grep '^PROVE ' "$work/anchor_$v.log" | sed -n 's/.*gpu_peak_used=\([0-9.]*\) GiB.*/\1/p' | sort -n | tail -1)
        echo "anchor variant=$v lg=$lg load_s=$load circuits=$n median_s=$med per_circuit_s=$per" \
          "host_peak_gib=$PEAK_HWM_GIB gpu_peak_gib=${gpu:-$PEAK_GPU_GIB}" | tee -a "$res"
      done
      ;;
    table)
      [ -s "$res" ] || { echo "Error: $res: no results yet"; exit 1; }
      echo "== results ($res)"
      awk '
        function v(k,   i, a) { for (i = 2; i <= NF; i++) { split($i, a, "="); if (a[1] == k) return a[2] } return "-" }
        BEGIN { printf "| run | 2^lg | load / write s | partitions | s a call | s a partition | partitions/s | host peak GiB | GPU peak GiB | notes |\n"
                printf "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n" }
        $1 == "setup" { printf "| cuzk setup --porep (write) | %s | %s | - | - | - | - | %s (plan %s) | %s | %.2f GiB file |\n",
                        v("lg"), v("seconds"), v("host_peak_gib"), v("plan_gib"), v("gpu_peak_gib"), v("bytes") / 2^30 }
        $1 == "crate" { printf "| cuzk via supraseal-c2 crate | %s | %s | %s | %s | %s | %s | %s (anon %s) | %s | assignment %s s, verified %s, caps %s |\n",
                        v("lg"), v("load_s"), v("circuits"), v("median_s"), v("per_circuit_s"), v("circuits_per_s"),
                        v("host_peak_gib"), v("rss_anon_gib"), v("device_peak_gib"), v("assignment_s"), v("verified"), v("caps") }
        $1 == "supra" { per = v("per_circuit_s"); printf "| supraseal-c2 %s, same assignment | %s | %s | %s | %s | %s | %.3f | %s (anon %s) | %s (sampled) | assignment %s s, verified %s |\n",
                        v("variant"), v("lg"), v("load_s"), v("circuits"), v("median_s"), per, (per > 0 ? 1 / per : 0),
                        v("host_peak_gib"), v("rss_anon_gib"), v("gpu_peak_gib"), v("assignment_s"), v("verified") }
        $1 == "anchor" && v("skipped") != "-" { printf "| supraseal-c2 %s | %s | - | - | - | - | - | - | - | skipped: anchor A=%s B=%s, file A=%s B=%s |\n",
                        v("variant"), v("lg"), v("a_anchor"), v("b_anchor"), v("a_file"), v("b_file") }
        $1 == "anchor" && v("skipped") == "-" { per = v("per_circuit_s"); printf "| supraseal-c2 %s | %s | %s | %s | %s | %s | %.3f | %s | %s | proofs not verified (random inputs) |\n",
                        v("variant"), v("lg"), v("load_s"), v("circuits"), v("median_s"), per, (per > 0 ? 1 / per : 0),
                        v("host_peak_gib"), v("gpu_peak_gib") }
      ' "$res"
      ;;
    clean)
      rm -rf "$work"
      ;;
    *)
      echo "Error: unknown step '$step' (setup crate supra anchor table clean all)"
      exit 1
      ;;
    esac
  done
  ;;
*)
  sed -n '2,40p' "$0"
  exit 1
  ;;
esac
