# SPDX-License-Identifier: BSD-2-Clause-Patent
"""`fovea live` end to end in headless Chromium (docs/live.md): a y4m clip
served, the page's WebAssembly decoder shows it exactly (T = 0: the CRC of
the source frame; T > 0: the CRC of `fovea receive`'s frame), two browsers at
once, one closing mid-stream, a control changed through the DOM changes the
bytes per frame for every viewer, a screenshot of each view, tokens,
malformed and oversized messages, --max-clients. With "camera" after the
output folder: only the camera controls, on the fake V4L2 device of
fake_v4l2.c ($FOVEA_FAKE_V4L2_LIB). Exit 77 when something it needs is
absent."""
import array
import asyncio
import json
import os
import random
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zlib

import cdp
import websockets

FOVEA = os.environ["FOVEA_CLI"]
OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "live-test")
W, H, N = 160, 96, 40


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def make_clip(path):
    """A still gradient with a moving bright square, plus seeded noise of +-3 on the
    luma everywhere (what a threshold removes)."""
    rng = random.Random(50)
    frames = []
    with open(path, "wb") as f:
        f.write(b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n" % (W, H))
        for k in range(N):
            y = bytearray(W * H)
            for r in range(H):
                for c in range(W):
                    v = (c * 2 + r) & 0xFF
                    if 30 + k * 2 <= c < 50 + k * 2 and 30 <= r < 60:
                        v = 235
                    v += rng.randint(-3, 3)
                    y[r * W + c] = min(255, max(0, v))
            u = bytes(((c * 4 + k) & 0xFF) for r in range(H // 2) for c in range(W // 2))
            v = bytes(((r * 5 + 64) & 0xFF) for r in range(H // 2) for c in range(W // 2))
            frame = bytes(y) + u + v
            frames.append(frame)
            f.write(b"FRAME\n" + frame)
    return frames


def y4m_frames(path):
    d = open(path, "rb").read()
    p = d.index(b"\n") + 1
    size = W * H * 3 // 2
    out = []
    while p < len(d):
        q = d.index(b"\n", p) + 1
        out.append(d[q:q + size])
        p = q + size
    return out


class Server:
    def __init__(self, *args, env=None):
        self.err = open(os.path.join(OUT, "server-%d.err" % time.monotonic_ns()), "w+")
        self.proc = subprocess.Popen([FOVEA, "live"] + list(args), stderr=self.err, env=env)
        t0 = time.time()
        while True:
            self.err.seek(0)
            m = re.search(r"serving http://[^:]+:(\d+)/", self.err.read())
            if m:
                self.port = int(m.group(1))
                break
            if self.proc.poll() is not None or time.time() - t0 > 30:
                fail("fovea live did not start: " + self.log())
            time.sleep(0.05)
        self.base = "http://127.0.0.1:%d/" % self.port

    def log(self):
        self.err.seek(0)
        return self.err.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        rc = self.proc.wait(30)
        if rc != 0:
            fail("fovea live exited %d: %s" % (rc, self.log()))


async def frame_crc(page):
    return await page.eval(
        "[document.getElementById('frame-number').textContent,"
        " document.getElementById('frame-crc').textContent]")


async def check_crc(page, crcs, what):
    num, crc = await frame_crc(page)
    want = "%08x" % crcs[int(num) % len(crcs)]
    if crc != want:
        fail("%s: frame %s CRC %s, the source's is %s" % (what, num, crc, want))
    return int(num)


async def frames_of(page):
    return int(await page.eval("document.getElementById('frames').textContent"))


async def mean_bytes(page, n=10):
    start = await frames_of(page)
    await page.wait("Number(document.getElementById('frames').textContent) >= %d" % (start + n))
    return await page.eval("state.hist.bytes.slice(-%d).reduce((a, b) => a + b, 0) / %d" % (n, n))


async def lossless_and_viewers(browser, clip, crcs):
    srv = Server(clip, "--http", "127.0.0.1:0", "--loop")
    try:
        a = await browser.page(srv.base + "?stop=25")
        b = await browser.page(srv.base)
        await a.wait("document.body.dataset.done === '1'", 60)
        await check_crc(a, crcs, "page a (stopped after 25 frames)")
        await b.wait("Number(document.getElementById('frames').textContent) >= 25", 60)
        await check_crc(b, crcs, "page b, a second browser at once")
        # the source's noise (seeded, +-3 on the luma) charted from the server
        sigma = float(await b.wait("(s => s !== '-' && s)(document.getElementById('sigma')"
                                   ".textContent)", 30))
        if not 1.0 < sigma < 6.0:
            fail("noise sigma %.2f for luma noise of +-3" % sigma)
        # a third viewer leaves mid-stream: the others go on
        c = await browser.page(srv.base)
        await c.wait("Number(document.getElementById('frames').textContent) >= 3", 60)
        await c.close()
        before = await frames_of(b)
        await b.wait("Number(document.getElementById('frames').textContent) >= %d" % (before + 20), 60)
        await check_crc(b, crcs, "page b after page c closed")
        if "a viewer left" not in srv.log():
            fail("the server did not see page c leave: " + srv.log())
        # a control through the DOM: every viewer gets the new stream
        e = await browser.page(srv.base)
        await e.wait("Number(document.getElementById('frames').textContent) >= 3", 60)
        lossless = await mean_bytes(b)
        await b.eval("(() => { const t = document.getElementById('threshold'); t.value = '12';"
                     " t.dispatchEvent(new Event('change')); return 1; })()")
        for p, name in ((b, "b"), (e, "e")):
            await p.wait("document.getElementById('geometry').textContent.endsWith('T 12')", 30)
        await mean_bytes(b, 3)  # past the keyframe of the new stream
        lossy = await mean_bytes(b)
        print("bytes per frame: T=0 %.0f, T=12 %.0f" % (lossless, lossy))
        if not lossy < 0.5 * lossless:
            fail("threshold 12 did not reduce the bytes per frame: %.0f -> %.0f" % (lossless, lossy))
        if await e.eval("document.getElementById('threshold').value") != "12":
            fail("page e did not get the new threshold's state")
        # pause (every viewer): the frame numbers stop, then go on
        await b.eval("(() => { const p = document.getElementById('pause'); p.checked = true;"
                     " p.dispatchEvent(new Event('change')); return 1; })()")
        await e.wait("document.getElementById('pause').checked", 30)
        await asyncio.sleep(0.5)
        n0 = await e.eval("document.getElementById('frame-number').textContent")
        await asyncio.sleep(1.0)
        n1 = await e.eval("document.getElementById('frame-number').textContent")
        if n0 != n1:
            fail("paused, yet the frames went on: %s -> %s" % (n0, n1))
        await b.eval("(() => { const p = document.getElementById('pause'); p.checked = false;"
                     " p.dispatchEvent(new Event('change')); return 1; })()")
        await e.wait("document.getElementById('frame-number').textContent !== '%s'" % n1, 30)
        # a screenshot of each view
        for view, name in (("0", "video"), ("1", "heat"), ("2", "noise"), ("3", "noise-overlay"),
                           ("4", "mask"), ("all", "side-by-side")):
            await b.eval("(() => { const s = document.getElementById('view-select');"
                         " s.value = '%s'; s.dispatchEvent(new Event('change')); return 1; })()"
                         % view)
            n = await frames_of(b)
            await b.wait("Number(document.getElementById('frames').textContent) >= %d" % (n + 5))
            await b.screenshot(os.path.join(OUT, "view-%s.png" % name))
        await slow_viewer(srv, b)
        await malformed(srv)
        for p in (a, b, e):
            await p.close()
    finally:
        srv.stop()
    return srv.log()


async def slow_viewer(srv, page):
    """A viewer that stops reading is dropped back to a keyframe; page goes on."""
    import socket
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", srv.port))
    ws = await websockets.connect("ws://127.0.0.1:%d/stream" % srv.port, sock=sock,
                                  subprotocols=["fovea-live"], max_queue=1, read_limit=4096)
    n0 = await frames_of(page)
    t0 = time.time()
    while "fell behind" not in srv.log():
        if time.time() - t0 > 60:
            fail("a viewer that stopped reading was not dropped back: " + srv.log())
        await asyncio.sleep(0.2)
    n1 = await frames_of(page)
    print("slow viewer dropped back after %.1f s; page b showed %d frames meanwhile"
          % (time.time() - t0, n1 - n0))
    if n1 - n0 < 5 * (time.time() - t0):  # 25 fps: at least 5 fps even under ASan
        fail("page b was slowed by the stalled viewer: %d frames in %.1f s"
             % (n1 - n0, time.time() - t0))
    await ws.close()


async def malformed(srv):
    uri = "ws://127.0.0.1:%d/stream" % srv.port
    for _ in range(2):  # twice: logged once
        async with websockets.connect(uri, subprotocols=["fovea-live"], max_size=None) as ws:
            await ws.send("not json")
            await ws.send(b"\x00\x01junk")
            await ws.send('{"type":"control","threshold":-4}')
            await ws.send("x" * 10000)  # oversized: the server closes
            try:
                for _ in range(100):
                    await asyncio.wait_for(ws.recv(), 10)
                fail("an oversized message did not close the socket")
            except websockets.ConnectionClosed as e:
                if e.code != 1009:
                    fail("oversized message: close code %s, not 1009" % e.code)
    log = srv.log()
    for line in ("not a JSON object", "not RESYNC", "over 4096 bytes"):
        if log.count(line) != 1:
            fail("'%s' logged %d times (once expected): %s" % (line, log.count(line), log))


async def behind(browser, clip, crcs):
    """A page that decodes slower than the stream (?slow=90: 11 fps of 25)
    skips to a keyframe instead of falling further behind: the frames it
    shows stay fresh, and exact."""
    srv = Server(clip, "--http", "127.0.0.1:0", "--loop")
    try:
        p = await browser.page(srv.base + "?slow=90")
        await p.wait("Number(document.getElementById('frames').textContent) >= 60", 60)
        skipped = int(await p.eval("document.getElementById('skipped').textContent"))
        lat = sorted(await p.eval("state.hist.latency.slice(-20)"))
        print("a slow page: %d deltas skipped, latency median %.0f ms over its last 20 frames"
              % (skipped, lat[10]))
        if skipped == 0:
            fail("a page decoding at 11 fps of 25 skipped nothing")
        if lat[10] > 1500:  # a page that queues: ~7 s behind after 60 frames
            fail("a slow page fell behind: latency median %.0f ms" % lat[10])
        await check_crc(p, crcs, "a page that skips")
        await p.close()
    finally:
        srv.stop()


async def lossy_matches_receive(browser, clip):
    """T = 6: the page shows what `fovea receive` writes, frame for frame."""
    t = "6"
    srv = Server(clip, "--http", "127.0.0.1:0", "--threshold", t, "--clients", "1")
    try:
        p = await browser.page(srv.base + "?stop=%d" % (N - 5))
        await p.wait("document.body.dataset.done === '1'", 60)
        num, crc = await frame_crc(p)
        await p.close()
    finally:
        srv.stop()
    send = subprocess.Popen([FOVEA, "send", clip, "--listen", "127.0.0.1:0", "-t", t, "-c", "1",
                             "-q"], stderr=subprocess.PIPE, text=True)
    line = send.stderr.readline()
    port = re.search(r":(\d+)", line).group(1)
    out = os.path.join(OUT, "received.y4m")
    subprocess.run([FOVEA, "receive", "127.0.0.1:" + port, "-o", out, "-q"], check=True)
    send.wait(30)
    want = "%08x" % zlib.crc32(y4m_frames(out)[int(num)])
    if crc != want:
        fail("T=%s: page frame %s CRC %s, fovea receive's %s" % (t, num, crc, want))
    print("T=%s: frame %s CRC %s as fovea receive" % (t, num, crc))


async def show_view(page, view):
    n = int(await page.eval("state.capture = true; state.captured = {}; state.drawn"))
    await page.eval("(() => { const s = document.getElementById('view-select');"
                    " s.value = '%s'; s.dispatchEvent(new Event('change')); return 1; })()" % view)
    await page.wait("state.drawn > %d" % n, 30)


def make_variant(frames, kind):
    """The clip in another format, frames as the y4m has them (the wire
    format's bytes): "422p10" (10 bits, low bits set, 4:2:2 chroma from the
    4:2:0 rows repeated) or "mono" (the luma alone)."""
    path = os.path.join(OUT, "clip-%s.y4m" % kind)
    out = []
    for k, f in enumerate(frames):
        y, u, v = f[:W * H], f[W * H:W * H * 5 // 4], f[W * H * 5 // 4:]
        if kind == "mono":
            out.append(bytes(y))
            continue
        a = array.array("H", ((s << 2) | ((i + k) & 3) for i, s in enumerate(y)))
        for c in (u, v):  # each chroma row twice: 4:2:2
            a.extend((c[(r // 2) * (W // 2) + x] << 2) | (x & 3)
                     for r in range(H) for x in range(W // 2))
        if sys.byteorder != "little":
            a.byteswap()
        out.append(a.tobytes())
    with open(path, "wb") as f:
        f.write(b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C%s\n" % (W, H, kind.encode()))
        for fr in out:
            f.write(b"FRAME\n" + fr)
    return path, [zlib.crc32(fr) for fr in out]


async def webgl_matches_2d(browser, clip, crcs):
    """The same frame drawn with WebGL and on a 2D canvas (the fallback, the
    worker's RGBA): the same pixels in every view (the heat map within 1: a
    float division on the GPU), and the same frame-crc."""
    srv = Server(clip, "--http", "127.0.0.1:0", "--clients", "2")
    try:
        gl = await browser.page(srv.base + "?stop=30&draw=gl")
        d2 = await browser.page(srv.base + "?stop=30&draw=2d")
        for p in (gl, d2):
            await p.wait("document.body.dataset.done === '1'", 60)
        mode = await gl.eval("document.getElementById('draw-mode').textContent")
        if await d2.eval("document.getElementById('draw-mode').textContent") != "2D canvas":
            fail("?draw=2d did not draw on a 2D canvas")
        if mode != "WebGL 2":
            print("NOTE: this Chromium has no WebGL 2: the page drew on a 2D canvas")
        na = await check_crc(gl, crcs, "WebGL page")
        nb = await check_crc(d2, crcs, "2D page")
        if na != nb or na != 29:
            fail("the pages stopped at frames %d and %d, 29 expected" % (na, nb))
        for view, canvas, tol in (("0", "view-video", 0), ("1", "view-heat", 1),
                                  ("2", "view-noise", 0), ("3", "view-noise", 0),
                                  ("4", "view-mask", 0)):
            for p in (gl, d2):
                await show_view(p, view)
            a = await gl.eval("state.captured['%s']" % canvas)
            b = await d2.eval("state.captured['%s']" % canvas)
            if not a or not b:
                fail("view %s: no pixels read back from %s" % (view, "the WebGL page" if not a else
                                                               "the 2D page"))
            if len(a) != len(b) or len(a) != W * H * 4:
                fail("view %s: %d and %d bytes of pixels" % (view, len(a), len(b)))
            diff = max(abs(x - y) for x, y in zip(a, b))
            if diff > tol:
                bad = sum(1 for x, y in zip(a, b) if x != y)
                fail("view %s: %s and the 2D canvas differ by up to %d (%d samples)"
                     % (view, mode, diff, bad))
            if len(set(a)) < 8:
                fail("view %s: hardly anything drawn (%d values)" % (view, len(set(a))))
        print("%s and 2D canvas: the same pixels in every view, frame %d of %s"
              % (mode, na, os.path.basename(clip)))
        for p in (gl, d2):
            await p.close()
    finally:
        srv.stop()


async def tokens(browser, clip):
    r = subprocess.run([FOVEA, "live", clip, "--http", "0.0.0.0:0"], capture_output=True,
                       text=True, timeout=30)
    if r.returncode != 2 or "token" not in r.stderr:
        fail("a non-loopback address without --token: exit %d (2 expected): %s"
             % (r.returncode, r.stderr))
    srv = Server(clip, "--http", "127.0.0.1:0", "--loop", "--token", "sesame",
                 "--view-token", "look", "--max-clients", "2")
    try:
        try:
            urllib.request.urlopen(srv.base).read()
            fail("the page was served without the token")
        except urllib.error.HTTPError as e:
            if e.code != 403:
                fail("no token: HTTP %d, 403 expected" % e.code)
        try:
            async with websockets.connect("ws://127.0.0.1:%d/stream" % srv.port,
                                          subprotocols=["fovea-live"]):
                fail("the socket took a viewer without the token")
        except websockets.InvalidStatusCode:
            pass
        except websockets.InvalidHandshake:
            pass
        v = await browser.page(srv.base + "?token=look")
        await v.wait("Number(document.getElementById('frames').textContent) >= 3", 60)
        if not await v.eval("document.getElementById('controls').disabled"):
            fail("watch-only viewer: controls not disabled")
        if not await v.eval("document.getElementById('camera').disabled"):
            fail("no camera: camera controls not disabled")
        f = await browser.page(srv.base + "?token=sesame")
        await f.wait("Number(document.getElementById('frames').textContent) >= 3", 60)
        if await f.eval("document.getElementById('controls').disabled"):
            fail("full-access viewer: controls disabled")
        # a third viewer: --max-clients 2
        async with websockets.connect("ws://127.0.0.1:%d/stream?token=look" % srv.port,
                                      subprotocols=["fovea-live"]) as ws:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if msg.get("type") != "refused":
                fail("a third viewer with --max-clients 2 got %s" % msg)
        await v.close()
        await f.close()
    finally:
        srv.stop()


async def set_input(page, id, value):
    """A control changed as a user does: its value, then its change event."""
    prop = "checked" if isinstance(value, bool) else "value"
    await page.eval("(() => { const t = document.getElementById('%s'); t.%s = %s;"
                    " t.dispatchEvent(new Event('change')); return 1; })()"
                    % (id, prop, json.dumps(value if prop == "checked" else str(value))))


def device_got(log, line):
    return os.path.exists(log) and line in open(log).read().splitlines()


async def camera(browser, clip):
    """The camera's controls on the page, with a fake V4L2 device (an
    LD_PRELOAD library) as --camera-controls: read from the device, greyed
    out where it lacks one (autogain) or one is read-only (saturation) or
    inactive (exposure while auto exposure is on); set through the DOM, the
    device gets the value (rounded to its step) and every viewer the state;
    EBUSY reaches the page; an unplugged camera greys everything out and the
    stream goes on."""
    lib = os.environ.get("FOVEA_FAKE_V4L2_LIB")
    if not lib or not os.path.exists(lib):
        print("SKIP: no fake V4L2 device library (FOVEA_FAKE_V4L2_LIB)")
        sys.exit(77)
    dev = "/fovea-fake/video7"
    log = os.path.join(OUT, "fake-v4l2.log")
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, LD_PRELOAD=lib, FOVEA_FAKE_V4L2=dev, FOVEA_FAKE_V4L2_LOG=log)
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"
    r = subprocess.run([FOVEA, "live", clip, "--http", "127.0.0.1:0", "--camera-controls",
                        "/nonexistent/video9"], capture_output=True, text=True, timeout=30, env=env)
    if r.returncode != 1 or "/nonexistent/video9" not in r.stderr:
        fail("--camera-controls of a missing device: exit %d (1 expected): %s"
             % (r.returncode, r.stderr))
    srv = Server(clip, "--http", "127.0.0.1:0", "--loop", "--camera-controls", dev, env=env)
    try:
        a = await browser.page(srv.base)
        b = await browser.page(srv.base)
        for p in (a, b):
            await p.wait("document.getElementById('cam-brightness') &&"
                         " Number(document.getElementById('frames').textContent) >= 3", 60)
        got = await a.eval(
            "(() => { const g = (id) => document.getElementById(id); return {"
            " fieldset: g('camera').disabled, note: g('camera-note').textContent,"
            " brightness: [g('cam-brightness').value, g('cam-brightness').min,"
            "  g('cam-brightness').max, g('cam-brightness').disabled],"
            " contrast_step: g('cam-contrast').step,"
            " disabled: ['autogain', 'saturation', 'exposure', 'gain', 'exposure_auto']"
            "  .map((n) => g('cam-' + n).disabled),"
            " auto: [g('cam-exposure_auto').checked, g('cam-white_balance_auto').checked] };"
            " })()")
        want = {"fieldset": False, "note": "", "brightness": ["128", "0", "255", False],
                "contrast_step": "5", "disabled": [True, True, True, False, False],
                "auto": [True, True]}
        if got != want:
            fail("camera controls on the page: %s, expected %s" % (got, want))
        # through the DOM: the device gets it, every viewer sees it
        await set_input(a, "cam-brightness", 140)
        await b.wait("document.getElementById('cam-brightness').value === '140'", 30)
        if not device_got(log, "S_CTRL brightness 140"):
            fail("brightness 140 from the page did not reach the device: %s"
                 % (open(log).read() if os.path.exists(log) else "no log"))
        await set_input(a, "cam-contrast", 57)  # the step is 5 (the slider rounds it too)
        await b.wait("document.getElementById('cam-contrast').value === '55'", 30)
        if not device_got(log, "S_CTRL contrast 55"):
            fail("contrast 57 did not reach the device as 55 (its step)")
        await set_input(a, "cam-exposure_auto", False)  # manual: exposure is active
        await b.wait("!document.getElementById('cam-exposure').disabled", 30)
        if not device_got(log, "S_CTRL exposure_auto 1"):
            fail("auto exposure off did not reach the device as manual (1)")
        await set_input(b, "cam-exposure", 700)
        await a.wait("document.getElementById('cam-exposure').value === '700'", 30)
        await set_input(a, "cam-gain", 30)  # the fake answers EBUSY
        await a.wait("document.getElementById('status').textContent.includes('busy')", 30)
        n = await frames_of(b)
        await b.wait("Number(document.getElementById('frames').textContent) >= %d" % (n + 10), 60)
        await a.screenshot(os.path.join(OUT, "view-camera.png"))
        print("camera controls: set through the page, the device got: %s"
              % ", ".join(open(log).read().split("\n")[:-1]))
        for p in (a, b):
            await p.close()
    finally:
        srv.stop()
    # unplugged mid-run (ENODEV after 40 ioctls: the second read, ~2 s in)
    env["FOVEA_FAKE_V4L2_GONE_AFTER"] = "40"
    srv = Server(clip, "--http", "127.0.0.1:0", "--loop", "--camera-controls", dev, env=env)
    try:
        p = await browser.page(srv.base)
        await p.wait("document.getElementById('camera-note').textContent.includes('gone')", 30)
        if not await p.eval("document.getElementById('camera').disabled &&"
                            " document.getElementById('cam-brightness').disabled"):
            fail("an unplugged camera's controls are not disabled")
        n = await frames_of(p)
        await p.wait("Number(document.getElementById('frames').textContent) >= %d" % (n + 10), 60)
        await p.close()
        reply = await camera_message(srv, {"brightness": 10})
        if "the camera is gone" not in reply:
            fail("a camera control after the camera was unplugged: %s" % reply)
    finally:
        srv.stop()
    if srv.log().count("the camera is gone") != 1:
        fail("an unplugged camera: not logged once: " + srv.log())
    print("camera unplugged: controls greyed out, the stream went on")
    # not a camera: "camera": false, and a camera control is refused
    srv = Server(clip, "--http", "127.0.0.1:0", "--loop")
    try:
        reply = await camera_message(srv, {"contrast": 3})
        if "the source is not a camera" not in reply:
            fail("a camera control for a clip: %s" % reply)
    finally:
        srv.stop()


async def camera_message(srv, controls):
    """Send a camera control over the socket; the first error message back
    (the state messages before it must say what the source is)."""
    uri = "ws://127.0.0.1:%d/stream" % srv.port
    async with websockets.connect(uri, subprotocols=["fovea-live"], max_size=None) as ws:
        await ws.send(json.dumps({"type": "control", "camera": controls}))
        for _ in range(200):
            m = await asyncio.wait_for(ws.recv(), 10)
            if isinstance(m, str):
                msg = json.loads(m)
                if msg["type"] == "state" and msg["camera"] != ("--camera-controls" in
                                                               srv.proc.args):
                    fail("state camera %s: %s" % (msg["camera"], m))
                if msg["type"] == "error":
                    return msg["message"]
    fail("no error message for a camera control")


async def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):  # a previous run's
        if f.startswith("server-") or f.startswith("view-"):
            os.remove(os.path.join(OUT, f))
    clip = os.path.join(OUT, "clip.y4m")
    make_clip(clip)
    crcs = [zlib.crc32(f) for f in y4m_frames(clip)]
    browser = cdp.Browser()
    try:
        if "camera" in sys.argv[2:]:
            await camera(browser, clip)
            return
        await lossless_and_viewers(browser, clip, crcs)
        await lossy_matches_receive(browser, clip)
        await behind(browser, clip, crcs)
        await webgl_matches_2d(browser, clip, crcs)
        frames = y4m_frames(clip)
        for kind in ("422p10", "mono"):
            await webgl_matches_2d(browser, *make_variant(frames, kind))
        await tokens(browser, clip)
    finally:
        browser.close()
    print("ok: screenshots in " + OUT)


asyncio.run(main())
