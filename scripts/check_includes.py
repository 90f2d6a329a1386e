#!/usr/bin/env python3
"""Reports include cycles among the project's headers, and with --layers
includes that go up the layers of src/.

Reads every `#include "..."` in src/, include/, tests/, bench/ and tools/
(C, C++ and CUDA files), resolves each name as the compiler does here (the
including file's directory, then src/, then include/) and looks for cycles
in the graph of headers. Prints each cycle as `a.h -> b.h -> a.h` and exits 1
if there is one, 0 otherwise. CTest `include_cycles` runs it.

With --layers it checks instead that every include between two files of src/
goes down (or sideways, within one layer) the order LAYERS below: a file of
a lower layer never includes one of a higher layer. Each upward include is
printed as `a.c -> b.h (layer x below layer y)`; the few known ones still to
be fixed are listed in KNOWN_UPWARD (printed, not failed on; a listed one
that is gone fails, so the list stays true). A file of src/ in no layer fails
too, so a new folder gets its place in the order. Exits 1 on any of these.
CTest `include_layers` runs it; `--self-test` checks that it catches an
upward include, a file in no layer and a stale KNOWN_UPWARD entry
(CTest `include_layers_selftest`).

    python3 scripts/check_includes.py [--root DIR] [--layers | --self-test]
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
EXTS = ('.h', '.c', '.cu', '.cuh', '.cpp', '.hpp', '.inc')
DIRS = ('src', 'include', 'tests', 'bench', 'tools')


def resolve(root, here, name):
    for base in (os.path.dirname(here), os.path.join(root, 'src'), os.path.join(root, 'include')):
        p = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(p):
            return p
    return None  # a generated or system header: not part of a cycle here


def graph(root):
    edges = {}
    for d in DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in files:
                if not f.endswith(EXTS):
                    continue
                p = os.path.normpath(os.path.join(dirpath, f))
                with open(p, encoding='utf-8', errors='replace') as fh:
                    text = fh.read()
                deps = []
                for name in INCLUDE.findall(text):
                    r = resolve(root, p, name)
                    if r and r != p and r not in deps:
                        deps.append(r)
                edges[p] = deps
    return edges


def cycles(edges):
    """Every elementary cycle reached by a depth-first walk, reported once
    (rotated to start at its smallest node)."""
    found = set()
    WHITE, GREY, BLACK = 0, 1, 2
    color = {n: WHITE for n in edges}
    stack = []

    def visit(n):
        color[n] = GREY
        stack.append(n)
        for m in edges.get(n, ()):
            c = color.get(m, BLACK)
            if c == GREY:
                cyc = stack[stack.index(m):]
                i = cyc.index(min(cyc))
                found.add(tuple(cyc[i:] + cyc[:i]))
            elif c == WHITE:
                visit(m)
        stack.pop()
        color[n] = BLACK

    sys.setrecursionlimit(10000)
    for n in sorted(edges):
        if color[n] == WHITE:
            visit(n)
    return sorted(found)


# The layers of src/, lowest first (docs/ARCHITECTURE.md, "Layers"): a
# folder (or a file's path prefix under src/, the longest one decides) per
# entry; folders of one rank may include each other. include/ (the public
# headers) is below every layer and checked by nothing here.
LAYERS = [
    ['util'],
    ['field'],
    ['curve'],
    ['poly', 'msm'],
    ['formats', 'filecoin'],
    # The GPU code, in folders by idea, with its own order inside.
    ['gpu/device', 'gpu/plan'],
    ['gpu/field'],
    ['gpu/ec'],
    ['gpu/msm', 'gpu/ntt'],
    ['gpu/fixed_base', 'gpu/g16'],
    ['gpu/stub'],
    ['groth16'],
    ['diag'],
    ['engine'],
    ['server', 'client'],
    ['cli'],
]

# Upward includes known and not yet fixed (each needs more than moving a
# declaration): (including file, included file), paths relative to src/.
KNOWN_UPWARD = {
    # The CPU operations table of each curve lists the NTT and the MSM of the
    # layers above curve/; its home would be a layer above poly/ and msm/.
    ('curve/curve_ops.c', 'msm/msm.h'): 'per-curve table names the MSM above it',
    ('curve/curve_ops.c', 'poly/ntt.h'): 'per-curve table names the NTT above it',
    # The GPU operations table names the Groth16 kernels' types (g16.h): the
    # CSR handle and the pointwise-op enum.
    ('gpu/ec/curve_ops.cuh', 'gpu/g16/g16.h'): 'GPU per-curve table names the Groth16 kernels\' types',
}


def layer_of(rel):
    """(rank, name) of the layer of src/-relative path rel, or None."""
    best = None
    for rank, names in enumerate(LAYERS):
        for n in names:
            if (rel == n or rel.startswith(n + '/')) and (best is None or len(n) > len(best[1])):
                best = (rank, n)
    return best


def check_layers(root, known):
    """(problems, known ones found): the upward includes and unplaced files
    of src/ under root, and the KNOWN_UPWARD entries seen."""
    src = os.path.join(root, 'src')
    problems, seen = [], set()
    for p, deps in sorted(graph(root).items()):
        if not p.startswith(src + os.sep):
            continue
        rel = os.path.relpath(p, src)
        lp = layer_of(rel)
        if lp is None:
            problems.append('%s: in no layer (add its folder to LAYERS in scripts/check_includes.py)' % rel)
            continue
        for q in deps:
            if not q.startswith(src + os.sep):
                continue
            qrel = os.path.relpath(q, src)
            lq = layer_of(qrel)
            if lq is None or lq[0] <= lp[0]:
                continue
            if (rel, qrel) in known:
                seen.add((rel, qrel))
                continue
            problems.append('%s -> %s (layer %s below layer %s)' % (rel, qrel, lp[1], lq[1]))
    for k in sorted(set(known) - seen):
        problems.append('%s -> %s: listed in KNOWN_UPWARD but gone: remove it from the list' % k)
    return problems, seen


def layers_main(root):
    problems, seen = check_layers(root, KNOWN_UPWARD)
    for k in sorted(seen):
        print('known upward include (to fix): %s -> %s: %s' % (k[0], k[1], KNOWN_UPWARD[k]))
    for pr in problems:
        print('layering: ' + pr)
    if problems:
        print('%d layering problem(s): include only from the same or a lower layer' % len(problems))
        return 1
    print('every include of src/ goes down the layers (%d known exception(s))' % len(seen))
    return 0


def self_test():
    """The check on small made-up trees: it must pass a clean one and fail
    an upward include, a file in no layer and a stale KNOWN_UPWARD entry."""
    def tree(files):
        d = tempfile.mkdtemp(prefix='cuzk-layers-')
        for rel, text in files.items():
            p = os.path.join(d, 'src', rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, 'w', encoding='utf-8') as fh:
                fh.write(text)
        return d

    cases = [
        ('clean', {'util/a.h': '', 'field/b.c': '#include "util/a.h"\n',
                   'gpu/g16/c.cu': '#include "gpu/msm/d.cuh"\n', 'gpu/msm/d.cuh': ''}, {}, 0),
        ('upward', {'util/a.h': '#include "field/b.h"\n', 'field/b.h': ''}, {}, 1),
        ('gpu upward', {'gpu/msm/a.cuh': '#include "gpu/g16/b.h"\n', 'gpu/g16/b.h': ''}, {}, 1),
        ('groth16 -> gpu ok, gpu -> groth16 not', {'gpu/g16/a.c': '#include "groth16/b.h"\n',
                                                 'groth16/b.h': ''}, {}, 1),
        ('no layer', {'nowhere/a.c': ''}, {}, 1),
        ('known', {'util/a.h': '#include "field/b.h"\n', 'field/b.h': ''}, {('util/a.h', 'field/b.h'): ''}, 0),
        ('stale known', {'util/a.h': ''}, {('util/a.h', 'field/b.h'): ''}, 1),
    ]
    bad = 0
    for name, files, known, want in cases:
        d = tree(files)
        try:
            problems, _ = check_layers(d, known)
        finally:
            shutil.rmtree(d)
        got = 1 if problems else 0
        if got != want:
            bad += 1
            print('self-test %s: want %s, got %s %s' % (name, want, got, problems))
    print('layer check self-test: %d of %d cases wrong' % (bad, len(cases)))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument('--layers', action='store_true', help='check the layer order of src/ instead of cycles')
    mode.add_argument('--self-test', action='store_true', help='check the layer check on made-up trees')
    args = ap.parse_args()
    root = os.path.normpath(args.root)
    if args.self_test:
        return self_test()
    if args.layers:
        return layers_main(root)
    found = cycles(graph(root))
    for cyc in found:
        names = [os.path.relpath(p, root) for p in cyc + (cyc[0],)]
        print('include cycle: ' + ' -> '.join(names))
    if found:
        print('%d include cycle(s): break them (move the shared part into its own header)' % len(found))
        return 1
    print('no include cycle')
    return 0


if __name__ == '__main__':
    sys.exit(main())
