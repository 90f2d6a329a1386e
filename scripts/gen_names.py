#!/usr/bin/env python3
"""Writes src/names.tags: where each per-curve name made by a template is defined.

Curve-generic code is written once in template headers and instantiated per
curve by pasting the instance name (FP_(mul) is bn254_fr_mul), so most
per-curve names appear nowhere in the source as written. This script runs the
C preprocessor over every .c file of src/ that instantiates a template (one
that #defines a <TAG>_PREFIX or <TAG>_CURVE), finds the functions, types and
objects defined there whose name starts with a curve id of src/curve/curves.h
and whose defining line does not spell the name, and writes them as a ctags
file (sorted; paths relative to src/): name, template file, the defining
line as a search pattern (so that lines added above it change nothing),
kind (f function, t type, v object).

  grep -n '^bn254_fr_mul\\b' src/names.tags      # where it is defined
  vim: :set tags+=src/names.tags  then  :tag bn254_fr_mul

Usage (from the repository root):
  python3 scripts/gen_names.py [--cc CC] [--check]
--check writes nothing and exits 1 (printing a diff) if src/names.tags is not
what it would write: the CTest `names_tags` runs it, so the file cannot go
stale. The preprocessor runs with fixed flags (-std=c11 -D_GNU_SOURCE, the
default x86-64 target), so the file is the same for every build type.
"""
import difflib
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
OUT = os.path.join(SRC, "names.tags")
INSTANTIATES = re.compile(r"^\s*#\s*define\s+[A-Z0-9]+_(PREFIX|CURVE)\b", re.M)
TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[A-Za-z_]\w*|\d\w*|\S')
MARKER = re.compile(r'^#\s*(\d+)\s+"([^"]*)"')


def curve_ids():
    text = open(os.path.join(SRC, "curve", "curves.h")).read()
    body = text[text.index("#define CUZK_CURVES(X)"):]
    body = body[: body.index("\n\n")]
    return re.findall(r"X\((\w+),", body)


def instantiating_files():
    out = []
    for d, _, files in os.walk(SRC):
        for f in files:
            if f.endswith(".c"):
                p = os.path.join(d, f)
                if INSTANTIATES.search(open(p, errors="replace").read()):
                    out.append(p)
    return sorted(out)


def tokens(pre):
    """(token, file, line) over preprocessed text, following its line markers."""
    cur, line = "", 0
    for raw in pre.split("\n"):
        m = MARKER.match(raw)
        if m:
            line, cur = int(m.group(1)), m.group(2)
            continue
        if raw.lstrip().startswith("#"):  # #pragma
            line += 1
            continue
        for t in TOKEN.findall(raw):
            yield t, cur, line
        line += 1


IDENT = re.compile(r"[A-Za-z_]\w*$")
SKIP_CALLS = {"__attribute__", "__asm__", "asm", "__typeof__", "typeof", "_Alignas", "__declspec"}


def definitions(pre):
    """(name, kind, file, line) of the top-level definitions in preprocessed text."""
    toks = list(tokens(pre))
    n, i, depth = len(toks), 0, 0
    stmt = []  # top-level tokens of the current declaration
    while i < n:
        t = toks[i][0]
        if depth > 0:
            depth += t == "{"
            depth -= t == "}"
            i += 1
            continue
        if t == "(":
            prev = stmt[-1] if stmt else None
            j, pd = i, 0
            while j < n:  # the matching ')'
                pd += toks[j][0] == "("
                pd -= toks[j][0] == ")"
                j += 1
                if pd == 0:
                    break
            k = j
            while k < n and toks[k][0] in SKIP_CALLS:  # attributes after the declarator
                k += 1
                pd = 0
                while k < n:
                    pd += toks[k][0] == "("
                    pd -= toks[k][0] == ")"
                    k += 1
                    if pd == 0:
                        break
            is_def = k < n and toks[k][0] == "{"
            if (prev and IDENT.match(prev[0]) and prev[0] not in SKIP_CALLS and "typedef" not in
                    [s[0] for s in stmt] and is_def and "=" not in [s[0] for s in stmt]):
                yield prev[0], "f", prev[1], prev[2]
            stmt.append(toks[i])
            stmt.extend(toks[i + 1:j])
            i = j
            if is_def:
                i = k + 1
                depth = 1
                stmt = []
            continue
        if t == "{":
            depth = 1
            i += 1
            continue
        if t == "=" and stmt and IDENT.match(stmt[-1][0]) and "typedef" not in [s[0] for s in stmt]:
            yield stmt[-1][0], "v", stmt[-1][1], stmt[-1][2]
        if t == ";" and stmt:
            words = [s for s in stmt if IDENT.match(s[0])]
            if stmt[0][0] == "typedef" and words:
                yield words[-1][0], "t", words[-1][1], words[-1][2]
            stmt = []
            i += 1
            continue
        stmt.append(toks[i])
        i += 1


def collect(cc):
    ids = curve_ids()
    prefix = re.compile(r"(%s)_\w+$" % "|".join(ids))
    lines_of = {}
    found = {}
    for c in instantiating_files():
        pre = subprocess.run([cc, "-E", "-std=c11", "-D_GNU_SOURCE", "-I", os.path.join(ROOT, "include"),
                              "-I", SRC, c], check=True, capture_output=True, text=True).stdout
        for name, kind, f, line in definitions(pre):
            if not prefix.match(name):
                continue
            path = os.path.normpath(os.path.join(ROOT, f)) if not os.path.isabs(f) else os.path.normpath(f)
            if not path.startswith(SRC + os.sep):
                continue
            if path not in lines_of:
                lines_of[path] = open(path, errors="replace").read().split("\n")
            text = lines_of[path][line - 1] if 0 < line <= len(lines_of[path]) else ""
            if re.search(r"\b%s\b" % re.escape(name), text):
                continue  # spelled out where it is defined: grep finds it already
            key = (name, os.path.relpath(path, SRC), line)
            found[key] = (kind, text)
    return found


def render(found):
    out = ["!_TAG_FILE_FORMAT\t2\t/extended format/",
           "!_TAG_FILE_SORTED\t1\t/0=unsorted, 1=sorted/",
           "!_TAG_PROGRAM_NAME\tscripts/gen_names.py\t/per-curve names made by the templates; do not edit/"]
    for (name, path, line), (kind, text) in sorted(found.items()):
        # The address is the defining line as a search pattern (as ctags
        # writes it), so lines added above it do not make the file stale.
        pat = text.replace("\\", "\\\\").replace("/", "\\/")
        out.append('%s\t%s\t/^%s$/;"\t%s' % (name, path, pat, kind))
    return "\n".join(out) + "\n"


def main():
    cc, check = os.environ.get("CC", "cc"), False
    args = sys.argv[1:]
    while args:
        a = args.pop(0)
        if a == "--cc":
            cc = args.pop(0)
        elif a == "--check":
            check = True
        else:
            sys.exit("usage: gen_names.py [--cc CC] [--check]")
    text = render(collect(cc))
    if check:
        old = open(OUT).read() if os.path.exists(OUT) else ""
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                       "src/names.tags", "regenerated", n=0))
            print("src/names.tags is stale: run python3 scripts/gen_names.py")
            return 1
        return 0
    open(OUT, "w").write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
