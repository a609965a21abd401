# SPDX-License-Identifier: BSD-2-Clause-Patent
"""Measure `fovea live` (docs/live.md, "Measured"): serve CLIP (--loop) with
the given fovea options to B headless Chromium pages for S seconds and print,
over all pages, the in-page latency (server timestamp to decoded frame, and
to the frame drawn), the WebAssembly decode time per frame (deltas and
keyframes apart), the frames drawn and the server's drop-backs.
Usage: FOVEA_CLI=build/fovea python3 measure_live.py CLIP PAGES SECONDS [fovea live options]
(FOVEA_LIVE_QUERY=draw=2d: the page's URL query, here the 2D canvas fallback)"""
import asyncio
import os
import re
import subprocess
import sys
import time

import cdp


def cpu_seconds(root):
    """CPU time (user + system) of process root and all its descendants."""
    tick = os.sysconf("SC_CLK_TCK")
    stats = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    v = f.read().rsplit(")", 1)[1].split()
                stats[int(d)] = (int(v[1]), int(v[11]) + int(v[12]))
            except (OSError, IndexError):
                pass
    todo, total = [root], 0
    while todo:
        p = todo.pop()
        total += stats.get(p, (0, 0))[1]
        todo += [c for c, (pp, _) in stats.items() if pp == p]
    return total / tick


def pct(a, p):
    s = sorted(a)
    return s[min(len(s) - 1, int(p * len(s)))] if s else float("nan")


async def main():
    clip, pages, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    srv = subprocess.Popen([os.environ["FOVEA_CLI"], "live", clip, "--http", "127.0.0.1:0",
                            "--loop"] + sys.argv[4:], stderr=subprocess.PIPE, text=True)
    port = re.search(r":(\d+)/", srv.stderr.readline()).group(1)
    b = cdp.Browser()
    try:
        q = os.environ.get("FOVEA_LIVE_QUERY", "")
        ps = [await b.page("http://127.0.0.1:%s/%s" % (port, "?" + q if q else ""))
              for _ in range(pages)]
        for p in ps:
            await p.wait("Number(document.getElementById('frames').textContent) >= 5", 120)
        # collect in the page: latency and decode time of every frame from now on
        hook = ("window.m = {lat: [], dec: [], key: [], shown: [], drawn: 0, pack: [], draw: []};"
                " const f0 = shown, d0 = drawn;"
                " shown = function (f) { f0(f); (f.keyframe ? m.key : m.dec).push(f.dt);"
                " m.lat.push(f.latency); };"
                " drawn = function (f) { d0(f); m.drawn++;"
                " m.shown.push(Date.now() - f.timestamp / 1000);"
                " m.pack.push(f.packMs); m.draw.push(f.drawMs); }; 1")
        for p in ps:
            await p.eval(hook)
        t0 = time.time()
        c0 = (cpu_seconds(srv.pid), cpu_seconds(b.proc.pid), os.getloadavg()[0])
        await asyncio.sleep(secs)
        c1 = (cpu_seconds(srv.pid), cpu_seconds(b.proc.pid), os.getloadavg()[0])
        lat, dec, key, frames, shown, drawn, pack, draw = [], [], [], [], [], [], [], []
        for p in ps:
            m = await p.eval("window.m")
            lat += m["lat"]
            dec += m["dec"]
            key += m["key"]
            shown += m["shown"]
            pack += m["pack"]
            draw += m["draw"]
            frames.append(len(m["lat"]))
            drawn.append(m["drawn"])
        el = time.time() - t0
        mode = await ps[0].eval("document.getElementById('draw-mode').textContent")
        print("pages %d (%s), %.0f s: frames decoded per page %s (%.1f fps each), drawn %s"
              % (pages, mode, el, frames, sum(frames) / len(frames) / el, drawn))
        print("latency ms to decoded: median %.1f, p90 %.1f; to drawn: median %.1f, p90 %.1f"
              % (pct(lat, 0.5), pct(lat, 0.9), pct(shown, 0.5), pct(shown, 0.9)))
        print("per frame drawn, ms: worker's copy (and RGBA) median %.2f, page's drawing %.2f"
              % (pct(pack, 0.5), pct(draw, 0.5)))
        sk = [await p.eval("document.getElementById('skipped').textContent") for p in ps]
        print("deltas skipped (behind) per page: %s" % sk)
        print("CPU: server %.2f cores, Chromium %.2f cores (%.2f a page); load average %.1f -> %.1f"
              % ((c1[0] - c0[0]) / el, (c1[1] - c0[1]) / el, (c1[1] - c0[1]) / el / pages,
                 c0[2], c1[2]))
        print("decode ms per delta: median %.2f (%.0f fps), p90 %.2f; keyframes: median %.2f (%d)"
              % (pct(dec, 0.5), 1000 / max(pct(dec, 0.5), 1e-3), pct(dec, 0.9), pct(key, 0.5),
                 len(key)))
    finally:
        b.close()
        srv.terminate()
        srv.wait(30)
        for line in srv.stderr.read().splitlines():
            if "frames sent" in line:
                print(line.strip())


asyncio.run(main())
