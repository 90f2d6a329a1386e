#!/usr/bin/env python3
"""Where a GPU proof's device waits: the idle gaps between the device phases
of a cuzk trace (`cuzk bench prove --trace F`, `cuzk prove --trace F`; plain or
gzipped Chrome trace-event JSON).

For every section of the trace whose name holds SECTION (default "throughput":
the steady-state run of `bench prove`; a trace without one, as `cuzk prove`'s
and `cuzk prove --format bellperson`'s: every GPU section), it takes the device phases of the
compute streams in time order and prints, for each pair of consecutive phases
(e.g. "ntt -> msm_h"), the median idle gap between them over the section,
then the busy fraction (phases over the span from the first to the last),
and what the host's calls for the device ("host calls" lanes: waiting for the
GPU's lock, allocations, frees, MSM handles made and destroyed, waits for the
stream, sums combined) took inside each kind of gap: per call, the median
over that kind's gaps of the time it overlapped the gap (ms).

  tools/trace_gaps.py trace.json.gz [SECTION] [--min MS]

Gaps below MS (default 1 ms) are left out of the table.
"""
import gzip
import json
import signal
import statistics
import sys
from collections import defaultdict


def load(path):
    with (gzip.open(path) if path.endswith(".gz") else open(path, "rb")) as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    min_ms = 1.0
    if "--min" in argv:
        min_ms = float(argv[argv.index("--min") + 1])
        args = [a for a in args if a != argv[argv.index("--min") + 1]]
    if not args or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) > 1 else 2
    try:
        ev = load(args[0])
    except (OSError, ValueError, KeyError) as e:
        print(f"{args[0]}: not a readable trace ({e})", file=sys.stderr)
        return 1
    procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name"}
    section = args[1] if len(args) > 1 else "throughput"
    if len(args) == 1 and not any(section in n and "GPU" in n for n in procs.values()):
        section = "GPU"  # no throughput run: every GPU section
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
    found = False
    for pid, pname in sorted(procs.items()):
        if section not in pname or "GPU" not in pname:
            continue
        found = True
        xs = [e for e in ev if e.get("pid") == pid and e.get("ph") == "X"
              and "compute" in threads.get((pid, e["tid"]), "")]
        xs.sort(key=lambda e: e["ts"])
        if not xs:
            continue
        calls = [e for e in ev if e.get("pid") == pid and e.get("ph") == "X"
                 and "host calls" in threads.get((pid, e["tid"]), "")]
        gaps = defaultdict(list)
        inside = defaultdict(lambda: defaultdict(list))
        for a, b in zip(xs, xs[1:]):
            lo, hi = a["ts"] + a["dur"], b["ts"]
            key = (a["name"], b["name"])
            gaps[key].append(max(0.0, (hi - lo) / 1000))
            took = defaultdict(float)
            for c in calls:
                took[c["name"]] += max(0.0, min(hi, c["ts"] + c["dur"]) - max(lo, c["ts"])) / 1000
            for name in set(c["name"] for c in calls):
                inside[key][name].append(took[name])
        busy = sum(e["dur"] for e in xs) / 1000
        span = (xs[-1]["ts"] + xs[-1]["dur"] - xs[0]["ts"]) / 1000
        print(f"{pname}: {len(xs)} device phases, busy {busy:.1f} of {span:.1f} ms ({100 * busy / span:.0f} %)")
        print(f"  {'gap':<24} {'median ms':>10} {'count':>6} {'total ms':>9}")
        for (a, b), v in sorted(gaps.items(), key=lambda kv: -sum(kv[1])):
            if statistics.median(v) >= min_ms:
                print(f"  {a + ' -> ' + b:<24} {statistics.median(v):>10.1f} {len(v):>6} {sum(v):>9.1f}")
                parts = sorted(((statistics.median(t), n) for n, t in inside[(a, b)].items()), reverse=True)
                shown = [f"{n} {m:.1f}" for m, n in parts if m >= 0.05]
                if shown:
                    print(f"    host calls inside: {', '.join(shown)}")
    if not found:
        print(f"{args[0]}: no GPU section whose name holds '{section}'", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends it quietly
    sys.exit(main(sys.argv))
