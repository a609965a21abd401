#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause-Patent
"""Write an 8-bit y4m's frames at a higher depth, every sample shifted left
(x << (bits - 8)), as libvmaf's v1 models are meant to be run on 8-bit
sources: y4m-shift.py IN OUT BITS [--raw] (BITS 8: as they are; 10, 12, 16;
a source above 8 bits is copied as it is).
The C tag gets its p<bits> suffix; other header tags are kept. --raw writes
the planes without y4m headers and prints libvmaf's raw-input options
(-w W -h H -p 420|422|444 -b BITS): libvmaf reads only 4:2:0 y4m directly."""
import array
import re
import sys


def main():
    src, dst, bits = sys.argv[1], sys.argv[2], int(sys.argv[3])
    raw = sys.argv[4:] == ["--raw"]
    if bits not in (8, 10, 12, 16):
        sys.exit(f"y4m-shift: bits {bits}: 8, 10, 12 or 16")
    data = open(src, "rb").read()
    end = data.index(b"\n")
    tags = data[:end].split(b" ")
    if tags[0] != b"YUV4MPEG2":
        sys.exit(f"y4m-shift: {src}: not a y4m file")
    width = height = None
    chroma = b"420"
    in_bits = 8
    out_tags = []
    for t in tags:
        if t[:1] == b"W":
            width = int(t[1:])
        elif t[:1] == b"H":
            height = int(t[1:])
        elif t[:1] == b"C":
            m = re.fullmatch(rb"C(420|422|444)(jpeg|paldv|mpeg2|p(10|12|16))?", t)
            if not m:
                sys.exit(f"y4m-shift: {src}: {t.decode()}: not a 4:2:0/4:2:2/4:4:4 format")
            chroma = m.group(1)
            if m.group(3):
                in_bits = int(m.group(3))
            t = b"C" + chroma + (b"p%d" % bits if bits > 8 else b"")
        elif t.startswith(b"XYSCSS="):
            continue
        out_tags.append(t)
    if in_bits > 8:
        # not an 8-bit source: as it is
        bits = in_bits
        out_tags = [re.sub(rb"^C(...).*", rb"C\1p%d" % bits, t) for t in out_tags]
    if not any(t[:1] == b"C" for t in out_tags) and bits > 8:
        out_tags.append(b"C420p%d" % bits)
    sub = {b"420": (2, 2), b"422": (2, 1), b"444": (1, 1)}[chroma]
    cw, ch = (width + sub[0] - 1) // sub[0], (height + sub[1] - 1) // sub[1]
    frame = (width * height + 2 * cw * ch) * (2 if in_bits > 8 else 1)
    out = [] if raw else [b" ".join(out_tags) + b"\n"]
    pos = end + 1
    shift = bits - 8
    while pos < len(data):
        nl = data.index(b"\n", pos)
        if not raw:
            out.append(data[pos:nl + 1])
        pos = nl + 1
        samples = data[pos:pos + frame]
        if len(samples) != frame:
            sys.exit(f"y4m-shift: {src}: truncated frame")
        pos += frame
        if raw and (cw != width // sub[0] or ch != height // sub[1]):
            # libvmaf's pictures have floor(w/2) x floor(h/2) chroma planes, and
            # its raw reader reads that much: drop the last column and row
            bps = 2 if in_bits > 8 else 1
            fw, fh = width // sub[0], height // sub[1]
            luma = samples[:width * height * bps]
            planes = [luma]
            for p in range(2):
                base = (width * height + p * cw * ch) * bps
                for y in range(fh):
                    row = base + y * cw * bps
                    planes.append(samples[row:row + fw * bps])
            samples = b"".join(planes)
        if bits == in_bits:
            out.append(samples)
            continue
        wide = array.array("H", (x << shift for x in samples))
        if sys.byteorder != "little":
            wide.byteswap()
        out.append(wide.tobytes())
    open(dst, "wb").write(b"".join(out))
    if raw:
        print(f"-w {width} -h {height} -p {chroma.decode()} -b {bits}")


main()
