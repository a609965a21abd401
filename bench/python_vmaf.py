#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause-Patent
"""The Python binding's own cost on VMAF (docs/python.md, "Speed").

Rows, on the same 1080p frames in one process:
  c-api      fovea_vmaf_submit/receive over the numpy frames' memory, called
             through ctypes (one call per pair: the C API's rate)
  numpy      fovea.vmaf(ref_frames, dis_frames)
  cli        `fovea vmaf -q ref.y4m dis.y4m` (a subprocess)
  files      fovea.vmaf("ref.y4m", "dis.y4m")
Each is the median of --repeat runs; fps = frames / seconds.
usage: bench/python_vmaf.py [--frames N] [--repeat R] [--cli build/fovea] [--json]
(PYTHONPATH must reach the fovea package, or install it.)"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import fovea


class Frame(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("fmt", ctypes.c_int),
                ("mem", ctypes.c_int), ("data", ctypes.c_void_p * 4),
                ("stride", ctypes.c_ssize_t * 4), ("index", ctypes.c_int64),
                ("buf", ctypes.c_void_p), ("buf_size", ctypes.c_size_t), ("device", ctypes.c_int)]


class Settings(ctypes.Structure):
    _fields_ = [("model", ctypes.c_void_p), ("models", ctypes.c_void_p),
                ("n_models", ctypes.c_int), ("features", ctypes.c_char_p),
                ("flags", ctypes.c_int), ("keep_frames", ctypes.c_int),
                ("subsample", ctypes.c_int)]


def libfovea():
    pkg = os.path.dirname(fovea._fovea.__file__)
    for d in [pkg] + os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        p = os.path.join(d, "libfovea.so.0")
        if os.path.exists(p):
            return ctypes.CDLL(p)
    return ctypes.CDLL("libfovea.so.0")  # the one the extension was linked with


def c_api_run(lib, ref, dis):
    """Seconds to score the pairs through the C API (keep_frames, as fovea.vmaf)."""
    ctx, model, v = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    assert lib.fovea_open(ctypes.byref(ctx), None) == 0
    assert lib.fovea_vmaf_model_open(ctypes.byref(model), ctx, b"vmaf_v0.6.1") == 0
    s = Settings()
    lib.fovea_vmaf_default_settings(ctypes.byref(s))
    s.model, s.keep_frames = model, 1
    assert lib.fovea_vmaf_open(ctypes.byref(v), ctx, ctypes.byref(s)) == 0
    gray8 = 1

    def frame(a):
        f = Frame(a.shape[1], a.shape[0], gray8, 0)
        f.data[0] = a.ctypes.data
        f.stride[0] = a.strides[0]
        return f

    t0 = time.perf_counter()
    for a, b in zip(ref, dis):
        fa, fb = frame(a), frame(b)
        assert lib.fovea_vmaf_submit(v, ctypes.byref(fa), ctypes.byref(fb)) == 0
        while lib.fovea_vmaf_receive(v, None) == 0:
            pass
    lib.fovea_vmaf_flush(v)
    while lib.fovea_vmaf_receive(v, None) == 0:
        pass
    secs = time.perf_counter() - t0
    lib.fovea_vmaf_close(ctypes.byref(v))
    lib.fovea_vmaf_model_close(ctypes.byref(model))
    lib.fovea_close(ctypes.byref(ctx))
    return secs


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cli", default=os.path.join("build", "fovea"))
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    w, h = 1920, 1080
    rng = np.random.default_rng(1)
    yy, xx = np.mgrid[0:h, 0:w]
    tex = rng.integers(0, 64, (h + a.frames, w + a.frames))
    ref = [np.ascontiguousarray(((xx + 2 * yy + 3 * i) % 160 + tex[i:i + h, i:i + w])
                                .astype(np.uint8)) for i in range(a.frames)]
    dis = [np.clip(r.astype(np.int16) + rng.integers(-6, 7, r.shape), 0, 255).astype(np.uint8)
           for r in ref]
    lib = libfovea()
    rows = {}
    rows["c-api"] = [c_api_run(lib, ref, dis) for _ in range(a.repeat)]
    rows["numpy"] = [timed(lambda: fovea.vmaf(ref, dis)) for _ in range(a.repeat)]
    with tempfile.TemporaryDirectory() as d:
        rp, dp = os.path.join(d, "ref.y4m"), os.path.join(d, "dis.y4m")
        fovea.write(rp, ref, fps=25)
        fovea.write(dp, dis, fps=25)
        if os.path.exists(a.cli):
            rows["cli"] = [timed(lambda: subprocess.run([a.cli, "vmaf", "-q", rp, dp],
                                                        check=True, capture_output=True))
                           for _ in range(a.repeat)]
        rows["files"] = [timed(lambda: fovea.vmaf(rp, dp)) for _ in range(a.repeat)]
    out = {k: {"median_s": statistics.median(v), "fps": a.frames / statistics.median(v)}
           for k, v in rows.items()}
    out["numpy_vs_c_api"] = out["numpy"]["fps"] / out["c-api"]["fps"]
    if "cli" in out:
        out["files_vs_cli"] = out["files"]["fps"] / out["cli"]["fps"]
    if a.json:
        json.dump(out, sys.stdout, indent=1)
        print()
        return
    print(f"VMAF vmaf_v0.6.1, {a.frames} frames 1920x1080 gray8, {os.cpu_count()} CPUs, "
          f"median of {a.repeat}")
    print(f"{'case':8} {'median s':>9} {'fps':>8}")
    for k in ("c-api", "numpy", "cli", "files"):
        if k in out:
            print(f"{k:8} {out[k]['median_s']:9.3f} {out[k]['fps']:8.2f}")
    print(f"numpy / c-api rate: {out['numpy_vs_c_api']:.3f}")
    if "files_vs_cli" in out:
        print(f"files / cli rate:   {out['files_vs_cli']:.3f}")


if __name__ == "__main__":
    main()
