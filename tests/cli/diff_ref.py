#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause-Patent
"""An independent reference of docs/diff.md for the CLI tests of `fovea diff`
(tests/cli/test_cli_diff*.sh): plain Python, 8-bit rgb24 / rgba / gray8 /
i420 frames, every map, filter and number the command outputs. It also makes
the golden inputs (a single changed pixel, a moving square, gradients) and
reads and writes y4m, PNM and PNG (no module outside the standard library).

    diff_ref.py make DIR
    diff_ref.py check IN [diff options] [--heatmap F] [--noise F] [--mask F]
                         [--json F]
`check` runs the reference on IN with the options given to `fovea diff` and
compares every output file byte for byte (and the JSON numbers exactly);
it prints what differs and exits 1 on any difference.
"""
import json
import math
import struct
import sys
import zlib

# ---------------------------------------------------------------- frames
# A frame: {"fmt", "w", "h", "p": [planes]}, each plane a list of rows, each
# row a list of ints. rgb24/rgba: planes R, G, B (and A); gray8: one plane;
# i420: Y, U, V (chroma (w+1)//2 x (h+1)//2).


def new_frame(fmt, w, h):
    if fmt == "i420":
        cw, ch = (w + 1) // 2, (h + 1) // 2
        dims = [(w, h), (cw, ch), (cw, ch)]
    else:
        n = {"rgb24": 3, "rgba": 4, "gray8": 1}[fmt]
        dims = [(w, h)] * n
    return {"fmt": fmt, "w": w, "h": h, "p": [[[0] * pw for _ in range(ph)] for pw, ph in dims]}


def copy_frame(f):
    return {"fmt": f["fmt"], "w": f["w"], "h": f["h"], "p": [[r[:] for r in p] for p in f["p"]]}


# ---------------------------------------------------------------- files


def read_y4m(path):
    data = open(path, "rb").read()
    nl = data.index(b"\n")
    head = data[:nl].split()
    assert head[0] == b"YUV4MPEG2", path
    tags = {t[:1]: t[1:] for t in head[1:]}
    w, h = int(tags[b"W"]), int(tags[b"H"])
    c = tags.get(b"C", b"420jpeg")
    fmt = "gray8" if c == b"mono" else "i420"
    assert c in (b"mono", b"420jpeg", b"420", b"420mpeg2", b"420paldv"), c
    frames, pos = [], nl + 1
    while pos < len(data):
        e = data.index(b"\n", pos)
        assert data[pos:pos + 5] == b"FRAME", (path, pos)
        pos = e + 1
        f = new_frame(fmt, w, h)
        for p in f["p"]:
            pw = len(p[0])
            for row in p:
                row[:] = data[pos:pos + pw]
                assert len(row) == pw, "truncated " + path
                pos += pw
        frames.append(f)
    return frames, head


def write_y4m(path, frames, extra=b""):
    f0 = frames[0]
    c = b"mono" if f0["fmt"] == "gray8" else b"420jpeg"
    out = [b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C%s%s\n" % (f0["w"], f0["h"], c, extra)]
    for f in frames:
        out.append(b"FRAME\n")
        for p in f["p"]:
            for row in p:
                out.append(bytes(row))
    open(path, "wb").write(b"".join(out))


def packed_rows(f):
    """rows of interleaved samples of an RGB or gray frame"""
    n = len(f["p"])
    return [[f["p"][c][y][x] for x in range(f["w"]) for c in range(n)] for y in range(f["h"])]


def from_packed(fmt, w, h, rows):
    f = new_frame(fmt, w, h)
    n = len(f["p"])
    for y in range(h):
        for x in range(w):
            for c in range(n):
                f["p"][c][y][x] = rows[y][x * n + c]
    return f


def write_pnm(path, f):
    magic = b"P5" if f["fmt"] == "gray8" else b"P6"
    body = b"".join(bytes(r) for r in packed_rows(f))
    open(path, "wb").write(b"%s\n%d %d\n255\n" % (magic, f["w"], f["h"]) + body)


def read_pnm(path):
    data = open(path, "rb").read()
    parts = data.split(maxsplit=4)
    magic, w, h, mx = parts[0], int(parts[1]), int(parts[2]), int(parts[3])
    assert mx == 255
    body = parts[4]
    fmt = "gray8" if magic == b"P5" else "rgb24"
    n = 1 if fmt == "gray8" else 3
    rows = [list(body[y * w * n:(y + 1) * w * n]) for y in range(h)]
    return from_packed(fmt, w, h, rows)


def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def write_png(path, f):
    ctype = {"gray8": 0, "rgb24": 2, "rgba": 6}[f["fmt"]]
    raw = b"".join(b"\0" + bytes(r) for r in packed_rows(f))
    data = (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", f["w"], f["h"], 8,
                                                                  ctype, 0, 0, 0)) +
            png_chunk(b"IDAT", zlib.compress(raw)) + png_chunk(b"IEND", b""))
    open(path, "wb").write(data)


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and inter == 0, (path, depth, inter)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    n = {0: 1, 2: 3, 6: 4}[ctype]
    fmt = {0: "gray8", 2: "rgb24", 6: "rgba"}[ctype]
    raw = zlib.decompress(idat)
    stride = w * n
    rows, prev = [], [0] * stride
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = list(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - n] if i >= n else 0
            b = prev[i]
            c = prev[i - n] if i >= n else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line
    return from_packed(fmt, w, h, rows)


def read_image(path):
    low = path.lower()
    if low.endswith(".png"):
        return read_png(path)
    return read_pnm(path)


def is_pattern(path):
    return "%" in path and (path.lower().endswith(".png") or path.lower()[-4:] in (".ppm", ".pgm", ".pnm"))


def read_input(path):
    if path.endswith(".y4m") or path == "-":
        return read_y4m(path)[0]
    if is_pattern(path):
        frames, i = [], 0
        import os
        if not os.path.exists(path % 0):
            i = 1
        while os.path.exists(path % i):
            frames.append(read_image(path % i))
            i += 1
        return frames
    return [read_image(path)]


def read_output(path, count):
    if path.endswith(".y4m") or "." not in path.rsplit("/", 1)[-1]:
        return read_y4m(path)[0]
    if is_pattern(path):
        return [read_image(path % i) for i in range(count)]
    return [read_image(path)]


# ---------------------------------------------------------------- the arithmetic


def channel_diffs(prev, cur, x, y):
    if cur["fmt"] == "i420":
        cx, cy = x >> 1, y >> 1
        return [abs(cur["p"][0][y][x] - prev["p"][0][y][x]),
                abs(cur["p"][1][cy][cx] - prev["p"][1][cy][cx]),
                abs(cur["p"][2][cy][cx] - prev["p"][2][cy][cx])]
    n = 1 if cur["fmt"] == "gray8" else 3  # alpha never compared
    return [abs(cur["p"][c][y][x] - prev["p"][c][y][x]) for c in range(n)]


def heat_table():
    t = []
    for i in range(1024):
        d = i / 1023.0
        s = [math.sin(math.pi * d - math.pi / 2), math.sin(math.pi * d),
             math.sin(math.pi * d + math.pi / 2)]
        t.append([int(math.floor(255.0 * min(1.0, max(0.0, v)) + 0.5)) for v in s])
    return t


HEAT = heat_table()


def rgb_to_yuv(r, g, b):
    return (((66 * r + 129 * g + 25 * b + 128) >> 8) + 16,
            ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128,
            ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128)


def colors_to(fmt, w, h, col):
    """a map of colors col[y][x] = (r, g, b) as an rgb24 or i420 frame"""
    f = new_frame(fmt, w, h)
    if fmt == "rgb24":
        for y in range(h):
            for x in range(w):
                for c in range(3):
                    f["p"][c][y][x] = col[y][x][c]
        return f
    for y in range(h):
        for x in range(w):
            f["p"][0][y][x] = rgb_to_yuv(*col[y][x])[0]
    for cy in range((h + 1) // 2):
        for cx in range((w + 1) // 2):
            px = [col[yy][xx] for yy in (2 * cy, 2 * cy + 1) for xx in (2 * cx, 2 * cx + 1)
                  if yy < h and xx < w]
            n = len(px)
            mean = [(sum(p[c] for p in px) + n // 2) // n for c in range(3)]
            _, u, v = rgb_to_yuv(*mean)
            f["p"][1][cy][cx] = u
            f["p"][2][cy][cx] = v
    return f


def filter_plane(p, mode):
    h, w = len(p), len(p[0])

    def s(x, y):
        return p[min(max(y, 0), h - 1)][min(max(x, 0), w - 1)]
    if mode == "median3":
        return [[sorted(s(x + i, y + j) for j in (-1, 0, 1) for i in (-1, 0, 1))[4]
                 for x in range(w)] for y in range(h)]
    t = (1, 4, 6, 4, 1)
    hp = [[(sum(t[k + 2] * s(x + k, y) for k in range(-2, 3)) + 8) >> 4 for x in range(w)]
          for y in range(h)]
    return [[(sum(t[k + 2] * hp[min(max(y + k, 0), h - 1)][x] for k in range(-2, 3)) + 8) >> 4
             for x in range(w)] for y in range(h)]


def spatial(f, mode):
    g = copy_frame(f)
    g["p"] = [filter_plane(p, mode) for p in f["p"]]
    return g


def temporal_step(state, x, strength):
    g = copy_frame(state)
    for pi, p in enumerate(g["p"]):
        for y, row in enumerate(p):
            for i, s in enumerate(row):
                row[i] = s + (((x["p"][pi][y][i] - s) * (256 - strength) + 128) >> 8)
    return g


def lower_median(vals):
    v = sorted(vals)
    return v[(len(v) - 1) // 2]


def sigma_of(prev, cur):
    v = [cur["p"][0][y][x] - prev["p"][0][y][x] for y in range(cur["h"]) for x in range(cur["w"])]
    med = lower_median(v)
    mad = lower_median([abs(a - med) for a in v])
    if mad > 0 or med != 0:
        return 1.4826 * mad
    # more than half exactly 0 (compressed video): the median of the small
    # changes, 0 < |v| <= (maxval + 1) / 16 (16: the frames here are 8-bit)
    small = [abs(a) for a in v if 0 < abs(a) <= 16]
    return 1.4826 * lower_median(small) if small else 0.0


def compare_pair(prev, cur, given_cur, o, out_fmt):
    """every output of one pair of (denoised) frames; given_cur is the current
    frame as given (the overlay paints over it)"""
    w, h = cur["w"], cur["h"]
    sigma = sigma_of(prev, cur)
    thr = o["threshold"]
    if thr == "auto":
        thr = min(math.ceil(o["auto_k"] * sigma), 255)
    nch = 1 if cur["fmt"] == "gray8" else 3
    full = nch * 255 if o["measure"] == "sum" else 255
    if o["normalize"] == "quarter":
        top = (full + 3) // 4
    else:
        top = o["normalize"] if o["normalize"] > 0 else full
    heat = [[None] * w for _ in range(h)]
    changed = [[False] * w for _ in range(h)]
    total, mx, npix = 0, 0, 0
    for y in range(h):
        for x in range(w):
            d = channel_diffs(prev, cur, x, y)
            s, m = sum(d), max(d)
            v = s if o["measure"] == "sum" else m
            i = (min(v, top) * 1023 + top // 2) // top
            heat[y][x] = HEAT[i]
            changed[y][x] = m > thr
            total += s
            mx = max(mx, s)
            npix += changed[y][x]
    t = o["tile"]
    tx, ty = (w + t - 1) // t, (h + t - 1) // t
    mask = new_frame("gray8", tx, ty)
    ntiles = 0
    for j in range(ty):
        for i in range(tx):
            c = any(changed[y][x] for y in range(j * t, min(h, j * t + t))
                    for x in range(i * t, min(w, i * t + t)))
            mask["p"][0][j][i] = 255 if c else 0
            ntiles += c
    res = {"heat": colors_to(out_fmt, w, h, heat), "mask": mask,
           "stats": {"changed_pixels": npix, "changed_tiles": ntiles, "diff_sum": total,
                     "max_diff": mx, "threshold": thr, "sigma": sigma, "tiles": tx * ty}}
    if o["noise_mode"] == "black":
        res["noise"] = colors_to(out_fmt, w, h, [[(255, 0, 0) if changed[y][x] else (0, 0, 0)
                                                   for x in range(w)] for y in range(h)])
    else:
        g = copy_frame(given_cur)
        if g["fmt"] == "i420":
            for y in range(h):
                for x in range(w):
                    if changed[y][x]:
                        g["p"][0][y][x] = 82
                        g["p"][1][y >> 1][x >> 1] = 90
                        g["p"][2][y >> 1][x >> 1] = 240
        else:
            for y in range(h):
                for x in range(w):
                    if changed[y][x]:
                        g["p"][0][y][x], g["p"][1][y][x], g["p"][2][y][x] = 255, 0, 0
        res["noise"] = g
    return res


def run(frames, o, out_fmt, limit=None):
    results = []
    state = None
    n = len(frames) - 1 if limit is None else min(limit, len(frames) - 1)
    for i in range(n):
        prev, cur = frames[i], frames[i + 1]
        mode = o["denoise"]
        if mode in ("median3", "gauss5"):
            a, b = spatial(prev, mode), spatial(cur, mode)
        elif mode == "temporal":
            if state is None:
                state = copy_frame(prev)
            a = state
            state = temporal_step(state, cur, o["temporal_strength"])
            b = state
        else:
            a, b = prev, cur
        results.append(compare_pair(a, b, cur, o, out_fmt))
    return results


# ---------------------------------------------------------------- the golden inputs


def lcg(seed):
    x = seed
    while True:
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        yield x >> 16


def make(d):
    rnd = lcg(7)
    # a single changed pixel: rgb24 20x12, PPM pair pixel0.ppm, pixel1.ppm
    a = new_frame("rgb24", 20, 12)
    for c in range(3):
        for y in range(12):
            for x in range(20):
                a["p"][c][y][x] = 40 + (next(rnd) % 150)
    b = copy_frame(a)
    b["p"][0][5][13] += 30
    b["p"][1][5][13] -= 20
    b["p"][2][5][13] += 5
    write_pnm(d + "/pixel0.ppm", a)
    write_pnm(d + "/pixel1.ppm", b)
    # a moving square: i420 21x13 (odd), 5 frames on a gradient, with a little
    # texture so that the filters have something to do
    frames = []
    for k in range(5):
        f = new_frame("i420", 21, 13)
        for y in range(13):
            for x in range(21):
                f["p"][0][y][x] = 30 + 4 * x + 3 * y + ((x * 7 + y * 3) % 5)
        for y in range(7):
            for x in range(11):
                f["p"][1][y][x] = 100 + x
                f["p"][2][y][x] = 140 - y
        for y in range(3 + k, 8 + k):
            for x in range(2 + 3 * k, 7 + 3 * k):
                if y < 13 and x < 21:
                    f["p"][0][y][x] = 220
                    f["p"][1][y >> 1][x >> 1] = 60
        frames.append(f)
    write_y4m(d + "/square.y4m", frames)
    # gradients: rgb24 PNG sequence grad000..003.png, 64x9, the second frame
    # brighter by a ramp over x so every difference from 0 to 192 per channel
    # shows; then a shift and noise
    g = []
    for k in range(4):
        f = new_frame("rgb24", 64, 9)
        for y in range(9):
            for x in range(64):
                base = 10 + x
                ramp = (3 * x) if k >= 1 else 0
                f["p"][0][y][x] = min(255, base + ramp)
                f["p"][1][y][x] = min(255, base + y + (ramp // 2 if k >= 2 else 0))
                f["p"][2][y][x] = min(255, 20 + ((x + 5 * k) % 30) + (next(rnd) % 7 if k == 3 else 0))
        g.append(f)
    for k, f in enumerate(g):
        write_png(d + "/grad%03d.png" % k, f)
    # sensor noise: gray8 PGM sequence noisy00..04.pgm, 24x16, a pattern plus
    # seeded noise of -6..6 in every frame, a bright bar moving through
    for k in range(5):
        f = new_frame("gray8", 24, 16)
        for y in range(16):
            for x in range(24):
                v = 60 + 3 * x + 2 * y + (next(rnd) % 13) - 6
                if 4 * k <= x < 4 * k + 3:
                    v = 230
                f["p"][0][y][x] = v
        write_pnm(d + "/noisy%02d.pgm" % k, f)
    # rgba PNGs numbered from 1 for the overlay: alpha must survive
    for k in range(3):
        f = new_frame("rgba", 10, 6)
        for y in range(6):
            for x in range(10):
                f["p"][0][y][x] = 50 + 10 * x
                f["p"][1][y][x] = 60 + 5 * y
                f["p"][2][y][x] = 70
                f["p"][3][y][x] = 100 + x + y
        if k:
            f["p"][1][2 + k][3 * k] = 200
        write_png(d + "/rgba%d.png" % (k + 1), f)


# ---------------------------------------------------------------- check


def parse(argv):
    o = {"measure": "sum", "threshold": 10, "auto_k": 3.0, "tile": 16, "denoise": "none",
         "temporal_strength": 192, "normalize": "quarter", "noise_mode": "black", "frames": None}
    outs = {}
    i = 0
    while i < len(argv):
        k, v = argv[i], argv[i + 1] if i + 1 < len(argv) else None
        i += 2
        if k in ("--heatmap", "--noise", "--mask", "--json"):
            outs[k[2:]] = v
        elif k == "--threshold":
            o["threshold"] = "auto" if v == "auto" else int(v)
        elif k == "--auto-k":
            o["auto_k"] = float(v)
        elif k == "--tile":
            o["tile"] = int(v)
        elif k == "--denoise":
            if v.startswith("temporal"):
                o["denoise"] = "temporal"
                if ":" in v:
                    o["temporal_strength"] = int(v.split(":")[1])
            else:
                o["denoise"] = v
        elif k == "--normalize":
            o["normalize"] = v if v == "quarter" else int(v)
        elif k == "--measure":
            o["measure"] = v
        elif k == "--noise-mode":
            o["noise_mode"] = v
        elif k == "--frames":
            o["frames"] = int(v) or None
        elif k in ("--backend", "--threads"):
            pass  # the same outputs on every backend and thread count
        else:
            raise SystemExit("diff_ref.py: unknown option " + k)
    return o, outs


def same_frame(a, b):
    return a["fmt"] == b["fmt"] and a["w"] == b["w"] and a["h"] == b["h"] and a["p"] == b["p"]


def first_difference(a, b):
    if (a["fmt"], a["w"], a["h"]) != (b["fmt"], b["w"], b["h"]):
        return "%s %dx%d, expected %s %dx%d" % (a["fmt"], a["w"], a["h"], b["fmt"], b["w"], b["h"])
    for pi, (pa, pb) in enumerate(zip(a["p"], b["p"])):
        for y, (ra, rb) in enumerate(zip(pa, pb)):
            for x, (va, vb) in enumerate(zip(ra, rb)):
                if va != vb:
                    return "plane %d (%d, %d): %d, expected %d" % (pi, x, y, va, vb)
    return "?"


def check(argv):
    src = argv[0]
    o, outs = parse(argv[1:])
    frames = read_input(src)
    bad = 0
    for kind in ("heatmap", "noise", "mask"):
        if kind not in outs:
            continue
        path = outs[kind]
        image = not (path.endswith(".y4m") or "." not in path.rsplit("/", 1)[-1])
        fmt = "rgb24" if image else "i420"
        res = run(frames, o, fmt, o["frames"])
        got = read_output(path, len(res))
        if len(got) != len(res):
            print("%s: %d maps, expected %d" % (path, len(got), len(res)))
            bad += 1
            continue
        for i, r in enumerate(res):
            want = r["heat" if kind == "heatmap" else kind]
            if kind == "noise" and o["noise_mode"] == "overlay":
                if image and want["fmt"] == "i420":
                    raise SystemExit("diff_ref.py: overlay of i420 into images is not modelled")
                if not image and want["fmt"] != "i420":
                    raise SystemExit("diff_ref.py: overlay of RGB into y4m is not modelled")
            if not same_frame(got[i], want):
                print("%s: map %d: %s" % (path, i, first_difference(got[i], want)))
                bad += 1
    if "json" in outs:
        res = run(frames, o, "rgb24", o["frames"])
        d = json.load(open(outs["json"]))
        w, h = frames[0]["w"], frames[0]["h"]
        px = w * h
        maps = d["maps"]
        if len(maps) != len(res):
            print("json: %d maps, expected %d" % (len(maps), len(res)))
            bad += 1
        for i, (m, r) in enumerate(zip(maps, res)):
            s = r["stats"]
            want = {"map": i, "prev_frame": i, "frame": i + 1,
                    "changed_pixels": s["changed_pixels"],
                    "changed_pixel_fraction": s["changed_pixels"] / px,
                    "changed_tiles": s["changed_tiles"],
                    "changed_tile_fraction": s["changed_tiles"] / s["tiles"],
                    "mean_diff": s["diff_sum"] / px, "max_diff": s["max_diff"],
                    "noise_sigma": s["sigma"], "threshold": s["threshold"]}
            for k, v in want.items():
                if m.get(k) != v:
                    print("json: map %d: %s = %r, expected %r" % (i, k, m.get(k), v))
                    bad += 1
        n = len(res)
        st = [r["stats"] for r in res]
        tiles = st[0]["tiles"]
        want = {"maps": n, "frames": n + 1,
                "changed_pixels": sum(s["changed_pixels"] for s in st),
                "changed_pixel_fraction": sum(s["changed_pixels"] for s in st) / (n * px),
                "changed_tiles": sum(s["changed_tiles"] for s in st),
                "changed_tile_fraction": sum(s["changed_tiles"] for s in st) / (n * tiles),
                "mean_diff": sum(s["diff_sum"] for s in st) / (n * px),
                "max_diff": max(s["max_diff"] for s in st),
                "threshold_min": min(s["threshold"] for s in st),
                "threshold_max": max(s["threshold"] for s in st)}
        sig = 0.0
        for s in st:
            sig += s["sigma"]
        want["mean_noise_sigma"] = sig / n
        for k, v in want.items():
            if d["totals"].get(k) != v:
                print("json: totals: %s = %r, expected %r" % (k, d["totals"].get(k), v))
                bad += 1
    if bad:
        sys.exit(1)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "check":
        check(sys.argv[2:])
    else:
        sys.exit(__doc__)
