#!/usr/bin/env python3
"""Reports include cycles among the project's headers.

Reads every `#include "..."` in src/, include/, tests/, bench/ and tools/
(C, C++ and CUDA files), resolves each name as the compiler does here (the
including file's directory, then src/, then include/) and looks for cycles
in the graph of headers. Prints each cycle as `a.h -> b.h -> a.h` and exits 1
if there is one, 0 otherwise. CTest `include_cycles` runs it.

    python3 scripts/check_includes.py [--root DIR]
"""
import argparse
import os
import re
import sys

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    args = ap.parse_args()
    root = os.path.normpath(args.root)
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
