#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause-Patent
"""The Python binding's own cost on VMAF (docs/python.md, "Speed").

Rows, on the same 1080p frames in one process, on one backend and thread
count (--backend, --threads; the C API, the package and the CLI alike):
  c-api        fovea_vmaf_submit/receive over the numpy frames' memory, called
               through ctypes (one submit per pair, about three batches kept
               pending as quality.h advises: the C API's rate)
  numpy        fovea.vmaf(ref_frames, dis_frames)
  c-api-device the C API on device frames (uploaded before timing)  } CUDA
  device       fovea.vmaf on fovea.DeviceArray frames (the same)     } only
  cli          `fovea vmaf -q ref.y4m dis.y4m` (a subprocess)
  files        fovea.vmaf("ref.y4m", "dis.y4m")
The frames cycle through --distinct different ones (the files hold them all).
Each is the median of --repeat rounds (every case once a round); fps =
frames / seconds; cpu s: the CPU time the case used (every thread, and the
CLI's process), which a loaded machine does not change as it does the time;
the ratios numpy / c-api, device / c-api-device and files / cli are the
binding's cost (goal: within 5%, a ratio >= 0.95).
usage: bench/python_vmaf.py [--frames N] [--distinct D] [--repeat R] [--backend auto|cpu|cuda]
                            [--threads T] [--cli build/fovea] [--json] [--json-out F]
(PYTHONPATH must reach the fovea package, or install it.)"""
import argparse
import ctypes
import json
import os
import resource
import shutil
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


class ContextSettings(ctypes.Structure):
    _fields_ = [("backend", ctypes.c_int), ("cuda_device", ctypes.c_int),
                ("cuda_stream", ctypes.c_void_p), ("threads", ctypes.c_int),
                ("log", ctypes.c_void_p), ("log_opaque", ctypes.c_void_p),
                ("log_level", ctypes.c_int)]


BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2}


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


def c_api_run(lib, ref, dis, backend, threads, device=False):
    """Seconds to score the pairs through the C API (keep_frames, as
    fovea.vmaf); device: on device copies of the frames made before timing."""
    ctx, model, v = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    cs = ContextSettings()
    lib.fovea_default_settings(ctypes.byref(cs))
    cs.backend, cs.threads = BACKENDS[backend], threads
    assert lib.fovea_open(ctypes.byref(ctx), ctypes.byref(cs)) == 0
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
        if not device:
            return f
        d = Frame()
        assert lib.fovea_frame_alloc(ctx, ctypes.byref(d), f.width, f.height, gray8, 2) == 0
        assert lib.fovea_frame_copy(ctx, ctypes.byref(d), ctypes.byref(f)) == 0
        return d

    fref, fdis = [frame(a) for a in ref], [frame(b) for b in dis]
    assert lib.fovea_sync(ctx) == 0
    lib.fovea_vmaf_pending.restype = ctypes.c_int64
    t0, c0 = time.perf_counter(), cpu_time()
    # as a C caller should (quality.h, fovea_vmaf_batch_size): about three
    # batches kept pending, so that every thread (or the GPU) stays busy
    depth = 3 * lib.fovea_vmaf_batch_size(v, ref[0].shape[1], ref[0].shape[0])
    for fa, fb in zip(fref, fdis):
        assert lib.fovea_vmaf_submit(v, ctypes.byref(fa), ctypes.byref(fb)) == 0
        while lib.fovea_vmaf_pending(v) > depth and lib.fovea_vmaf_receive(v, None) == 0:
            pass
    lib.fovea_vmaf_flush(v)
    while lib.fovea_vmaf_receive(v, None) == 0:
        pass
    secs, cpu = time.perf_counter() - t0, cpu_time() - c0
    lib.fovea_vmaf_close(ctypes.byref(v))
    lib.fovea_vmaf_model_close(ctypes.byref(model))
    if device:
        for f in fref + fdis:
            lib.fovea_frame_free(ctx, ctypes.byref(f))
    lib.fovea_close(ctypes.byref(ctx))
    return secs, cpu


def cpu_time():
    """CPU seconds of this process's threads and of its finished children
    (the CLI): the work done, whatever the load of the machine."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), \
        resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def machine():
    """This machine in a line: CPU model and count, GPU (nvidia-smi)."""
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    gpu = ""
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20).stdout.strip()
        gpu = gpu.splitlines()[0] if gpu else ""
    except (OSError, subprocess.SubprocessError):
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0
    return (f"{cpu}, {os.cpu_count()} CPUs (load {load:.1f})" + (f", {gpu}" if gpu else "") +
            f", Python {sys.version.split()[0]}, numpy {np.__version__}")


def timed(fn):
    t0, c0 = time.perf_counter(), cpu_time()
    fn()
    return time.perf_counter() - t0, cpu_time() - c0


def main():
    ap = argparse.ArgumentParser()
    # 240 frames: the CLI's start (process, model, threads, rings) is a few
    # percent of a run at most, not most of it as at 24
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--distinct", type=int, default=48,
                    help="different frames (they repeat in a cycle; memory)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--backend", choices=sorted(BACKENDS), default="auto")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--cli", default=os.path.join("build", "fovea"))
    ap.add_argument("--json", action="store_true", help="print JSON instead of the table")
    ap.add_argument("--json-out", help="also write the JSON to this file")
    a = ap.parse_args()
    w, h = 1920, 1080
    rng = np.random.default_rng(1)
    yy, xx = np.mgrid[0:h, 0:w]
    nd = max(1, min(a.distinct, a.frames))
    tex = rng.integers(0, 64, (h + nd, w + nd))
    ref = [np.ascontiguousarray(((xx + 2 * yy + 3 * i) % 160 + tex[i:i + h, i:i + w])
                                .astype(np.uint8)) for i in range(nd)]
    dis = [np.clip(r.astype(np.int16) + rng.integers(-6, 7, r.shape), 0, 255).astype(np.uint8)
           for r in ref]
    ref = [ref[i % nd] for i in range(a.frames)]
    dis = [dis[i % nd] for i in range(a.frames)]
    lib = libfovea()
    ctx = fovea.Context(backend=a.backend, threads=a.threads)
    cuda = ctx.backend == "cuda"
    cases = {"c-api": lambda: c_api_run(lib, ref, dis, a.backend, a.threads),
             "numpy": lambda: timed(lambda: fovea.vmaf(ref, dis, ctx=ctx))}
    if cuda:
        dref = [fovea.to_device(f, ctx=ctx) for f in ref]
        ddis = [fovea.to_device(f, ctx=ctx) for f in dis]
        ctx.sync()
        cases["c-api-device"] = lambda: c_api_run(lib, ref, dis, a.backend, a.threads,
                                                  device=True)
        cases["device"] = lambda: timed(lambda: fovea.vmaf(dref, ddis, ctx=ctx))
    d = tempfile.mkdtemp()
    rp, dp = os.path.join(d, "ref.y4m"), os.path.join(d, "dis.y4m")
    fovea.write(rp, ref, fps=25)
    fovea.write(dp, dis, fps=25)
    if os.path.exists(a.cli):
        cmd = [a.cli, "vmaf", "-q", "--backend", a.backend, "--threads", str(a.threads), rp, dp]
        cases["cli"] = lambda: timed(lambda: subprocess.run(cmd, check=True, capture_output=True))
    cases["files"] = lambda: timed(lambda: fovea.vmaf(rp, dp, ctx=ctx))
    # the repeats interleaved (a round of every case, R times): a load that
    # drifts over the run weighs on every case alike
    rows = {k: [] for k in cases}
    try:
        for _ in range(a.repeat):
            for k, run in cases.items():
                rows[k].append(run())
    finally:
        shutil.rmtree(d, ignore_errors=True)
    out = {}
    for k, v in rows.items():
        wall = statistics.median(x[0] for x in v)
        cpu = statistics.median(x[1] for x in v)
        out[k] = {"median_s": wall, "fps": a.frames / wall, "cpu_s": cpu,
                  "wall_s": [x[0] for x in v]}
    ratios = {"numpy_vs_c_api": ("numpy", "c-api"), "device_vs_c_api_device":
              ("device", "c-api-device"), "files_vs_cli": ("files", "cli")}
    for name, (x, y) in ratios.items():
        if x in out and y in out:
            out[name] = out[x]["fps"] / out[y]["fps"]
    out["machine"] = machine()
    out["backend"] = ctx.backend
    out["threads"] = ctx.threads
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(out, f, indent=1)
    if a.json:
        json.dump(out, sys.stdout, indent=1)
        print()
        return
    print(f"VMAF vmaf_v0.6.1, {a.frames} frames 1920x1080 gray8, backend {ctx.backend}, "
          f"{ctx.threads} threads, median of {a.repeat}")
    print(f"machine: {out['machine']}")
    print(f"{'case':13} {'median s':>9} {'fps':>8} {'cpu s':>8}")
    for k in ("c-api", "numpy", "c-api-device", "device", "cli", "files"):
        if k in out:
            print(f"{k:13} {out[k]['median_s']:9.3f} {out[k]['fps']:8.2f} {out[k]['cpu_s']:8.2f}")
    for name, (x, y) in ratios.items():
        if name in out:
            print(f"{x} / {y} rate: {out[name]:.3f}")


if __name__ == "__main__":
    main()
