#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause-Patent
"""y4m helpers of the delta stream's CLI tests (tests/cli/test_cli_stream*.sh).

  gen CHROMA BITS W H FRAMES SEED OUT [FPS [noise]]  a deterministic clip: a
      random picture in which every frame a block moves, a band drifts by small
      steps (below most thresholds: the case that drifts in a naive streamer)
      and the rest stays; CHROMA 420, 422, 444 or mono; BITS 8..16; with
      noise (8-bit only) every frame is new random samples
  bound SRC OUT T            every sample of every frame of OUT within T of SRC
                             (same frame count); prints the largest error
  frames SRC OUT STATS [T]   OUT holds the frames STATS (a receiver's --stats)
                             lists, each within T (default 0) of SRC's frame of
                             that number
  same A STATS_A B STATS_B   from B's first frame on, the frames both have are
                             byte-identical
  prefix SRC OUT             OUT's frames (maybe none, maybe no header) are SRC's
                             first ones, whole and exact: nothing wrong written
"""
import json
import random
import sys


def parse_header(line):
    f = {"C": "420jpeg"}
    for tok in line.split()[1:]:
        f[tok[0]] = tok[1:]
    w, h = int(f["W"]), int(f["H"])
    c = f["C"]
    bits = 8
    for depth in ("10", "12", "16"):
        if c.endswith("p" + depth) or c == "mono" + depth:
            bits = int(depth)
    if c.startswith("mono"):
        planes = [(w, h)]
    elif c.startswith("444"):
        planes = [(w, h)] * 3
    elif c.startswith("422"):
        planes = [(w, h)] + [((w + 1) // 2, h)] * 2
    else:
        planes = [(w, h)] + [((w + 1) // 2, (h + 1) // 2)] * 2
    return planes, 2 if bits > 8 else 1, bits


def read_y4m(path, allow_partial=False):
    data = open(path, "rb").read()
    if not data:
        return None, [], 0
    nl = data.index(b"\n")
    header = data[:nl].decode()
    planes, bps, _ = parse_header(header)
    size = sum(w * h for w, h in planes) * bps
    frames, pos = [], nl + 1
    while pos < len(data):
        e = data.index(b"\n", pos)
        if not data[pos:e].startswith(b"FRAME"):
            sys.exit(f"{path}: no FRAME marker at byte {pos}")
        if e + 1 + size > len(data):
            if allow_partial:
                sys.exit(f"{path}: a partial frame at the end (byte {pos})")
            sys.exit(f"{path}: truncated frame")
        frames.append(data[e + 1:e + 1 + size])
        pos = e + 1 + size
    return header, frames, bps


def samples(frame, bps):
    if bps == 1:
        return frame
    return [frame[i] | (frame[i + 1] << 8) for i in range(0, len(frame), 2)]


def gen(chroma, bits, w, h, n, seed, out, fps="25:1", mode=""):
    tag = {"420": "420jpeg", "422": "422", "444": "444", "mono": "mono"}[chroma]
    if bits > 8:
        tag = (tag if chroma != "420" else "420") + "p%d" % bits
        if chroma == "mono":
            tag = "mono%d" % bits
    planes, bps, _ = parse_header(f"YUV4MPEG2 W{w} H{h} C{tag}")
    rng = random.Random(seed)
    top = (1 << bits) - 1
    cur = [[rng.randrange(top + 1) for _ in range(pw * ph)] for pw, ph in planes]
    with open(out, "wb") as fp:
        fp.write(f"YUV4MPEG2 W{w} H{h} F{fps} Ip A1:1 C{tag}\n".encode())
        for k in range(n):
            if mode == "noise":
                fp.write(b"FRAME\n" + rng.randbytes(sum(pw * ph for pw, ph in planes)))
                continue
            if k:
                for p, (pw, ph) in enumerate(planes):
                    bw, bh = max(1, pw // 4), max(1, ph // 3)
                    x0, y0 = (k * 5) % pw, (k * 3) % ph
                    for y in range(y0, min(ph, y0 + bh)):
                        for x in range(x0, min(pw, x0 + bw)):
                            cur[p][y * pw + x] = rng.randrange(top + 1)
                    for y in range(ph // 2, ph):  # the lower half drifts by -1..+1
                        for x in range(0, pw, 3):
                            v = cur[p][y * pw + x] + rng.randrange(3) - 1
                            cur[p][y * pw + x] = min(top, max(0, v))
            fp.write(b"FRAME\n")
            for plane in cur:
                if bps == 1:
                    fp.write(bytes(plane))
                else:
                    fp.write(b"".join(v.to_bytes(2, "little") for v in plane))


def max_error(a, b, bps):
    sa, sb = samples(a, bps), samples(b, bps)
    return max((abs(x - y) for x, y in zip(sa, sb)), default=0)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "gen":
        gen(args[0], int(args[1]), int(args[2]), int(args[3]), int(args[4]), int(args[5]),
            args[6], *(args[7:9]))
    elif cmd == "bound":
        hs, fs, bps = read_y4m(args[0])
        ho, fo, _ = read_y4m(args[1])
        t = int(args[2])
        if hs.split()[1:3] != ho.split()[1:3] or len(fs) != len(fo):
            sys.exit(f"{args[1]}: {len(fo)} frames '{ho}', expected {len(fs)} '{hs}'")
        worst = 0
        for k, (a, b) in enumerate(zip(fs, fo)):
            e = max_error(a, b, bps)
            if e > t:
                sys.exit(f"frame {k}: error {e} > {t}")
            worst = max(worst, e)
        print(worst)
    elif cmd == "frames":
        _, fs, bps = read_y4m(args[0])
        _, fo, _ = read_y4m(args[1])
        st = json.load(open(args[2]))
        t = int(args[3]) if len(args) > 3 else 0
        nums = [f["frame"] for f in st["frames"]]
        if len(nums) != len(fo):
            sys.exit(f"{args[1]}: {len(fo)} frames, the stats list {len(nums)}")
        if nums != sorted(set(nums)):
            sys.exit(f"{args[2]}: frame numbers not increasing")
        for k, frame in zip(nums, fo):
            e = max_error(fs[k], frame, bps) if t else (0 if fs[k] == frame else t + 1)
            if e > t:
                sys.exit(f"{args[1]}: frame {k} differs from the source (error {e} > {t})")
    elif cmd == "same":
        _, fa, _ = read_y4m(args[0])
        _, fb, _ = read_y4m(args[2])
        na = [f["frame"] for f in json.load(open(args[1]))["frames"]]
        nb = [f["frame"] for f in json.load(open(args[3]))["frames"]]
        a = dict(zip(na, fa))
        common = [k for k in nb if k in a]
        if not common or common[0] != nb[0]:
            sys.exit(f"{args[0]} lacks {args[2]}'s first frame {nb[:1]}")
        for k, frame in zip(nb, fb):
            if k in a and a[k] != frame:
                sys.exit(f"frame {k} differs between {args[0]} and {args[2]}")
        print(len(common))
    elif cmd == "prefix":
        _, fs, _ = read_y4m(args[0])
        ho, fo, _ = read_y4m(args[1], allow_partial=True)
        if len(fo) > len(fs) or fs[:len(fo)] != fo:
            sys.exit(f"{args[1]}: a frame that is not the source's")
        print(len(fo))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
