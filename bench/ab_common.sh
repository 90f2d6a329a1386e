# shellcheck shell=bash
# What the A/B scripts (bench/msm_ab.sh, bench/small_ab.sh) share, sourced
# after they set ROOT, OLD, NEW, DEADLINE and O: the output folder, the
# test libraries' path, the clock (el: a line with the seconds since the
# start; left: seconds to DEADLINE), the log of everything printed
# ($O/NAME.txt), and the GPU and the two builds named at the top.
ab_start() {
    mkdir -p "$O"
    export LD_LIBRARY_PATH=$ROOT/.gpu-deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    T0=$(date +%s)
    exec > >(tee -a "$O/$1.txt") 2>&1
    nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv
    for d in "$OLD" "$NEW"; do echo "$d: $(head -1 "$d/COMMIT" 2>/dev/null)"; done
}
el() { echo "[$(($(date +%s) - T0)) s] $*"; }
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
