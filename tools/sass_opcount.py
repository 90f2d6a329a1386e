#!/usr/bin/env python3
"""Opcode histogram of the kernels in a cubin, without cuobjdump/nvdisasm.

Used where the CUDA toolkit has ptxas but no disassembler (the build box):
each Volta+ SASS instruction is 128 bits and its low 9 bits name the
operation (bits 9-11 select the operand form), so counting those per .text
section shows instruction counts and the local-memory traffic (LDL/STL) of a
kernel, which is what the Fp2 call-convention changes alter.

usage: sass_opcount.py FILE.cubin [NAME_SUBSTRING]
Only the opcodes below are named; others print as hex (low 9 bits)."""
import struct
import sys

# low 9 bits of the first 64-bit word (sm_70 .. sm_90)
NAMES = {
    0x024: "IMAD", 0x025: "IMAD.WIDE", 0x027: "IMAD.HI", 0x010: "IADD3",
    0x183: "LDL", 0x187: "STL", 0x180: "LD", 0x185: "ST", 0x181: "LDG",
    0x186: "STG", 0x184: "LDS", 0x188: "STS", 0x002: "MOV", 0x012: "LOP3",
    0x007: "SEL", 0x019: "SHF", 0x00c: "ISETP", 0x147: "BRA", 0x144: "CALL",
    0x150: "RET", 0x118: "NOP", 0x14d: "EXIT",
}


def sections(data):
    """(index, name, offset, size, type) of each section."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    stro = hdrs[shstrndx][4]
    out = []
    for i, h in enumerate(hdrs):
        name = data[stro + h[0]:data.index(b"\0", stro + h[0])].decode()
        out.append((i, name, h[4], h[5], h[1], h[6]))
    return out


def functions(data, secs):
    """Function symbols: section index -> [(offset in section, size, name)].
    Out-of-line callees are laid out inside each calling kernel's section."""
    funcs = {}
    for _, name, off, size, typ, link in secs:
        if typ != 2:  # SHT_SYMTAB
            continue
        stro = secs[link][2]
        for k in range(off, off + size, 24):
            st_name, st_info, _, shndx, value, ssize = struct.unpack_from("<IBBHQQ", data, k)
            if st_info & 0xF != 2 or ssize == 0:
                continue
            sname = data[stro + st_name:data.index(b"\0", stro + st_name)].decode()
            funcs.setdefault(shndx, []).append((value, ssize, sname))
    return funcs


def hist(data, off, size):
    h = {}
    for i in range(off, off + size, 16):
        lo, = struct.unpack_from("<Q", data, i)
        h[lo & 0x1FF] = h.get(lo & 0x1FF, 0) + 1
    return h


def show(label, h, size):
    named = sorted(((NAMES.get(k, hex(k)), v) for k, v in h.items()), key=lambda x: -x[1])
    print(f"{label}: {size // 16} instr")
    print("   " + " ".join(f"{k}={v}" for k, v in named[:24]))


def main():
    data = open(sys.argv[1], "rb").read()
    want = sys.argv[2] if len(sys.argv) > 2 else ""
    secs = sections(data)
    funcs = functions(data, secs)
    for idx, name, off, size, _, _ in secs:
        if not name.startswith(".text.") or want not in name:
            continue
        show(name[6:][:100], hist(data, off, size), size)
        # the callees inside this section (the kernel's own code is the rest)
        for value, fsize, fname in sorted(funcs.get(idx, [])):
            if fsize < size:
                show("  callee " + fname.split("$")[-1][:90] + f" @{value:#x}", hist(data, off + value, fsize), fsize)


if __name__ == "__main__":
    main()
