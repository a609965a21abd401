# SPDX-License-Identifier: BSD-2-Clause-Patent
"""A small Chrome DevTools Protocol client for the live page's tests: starts
headless Chromium, opens pages, evaluates JavaScript in them, takes
screenshots. Uses python3-websockets (Debian) and the standard library."""
import asyncio
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

import websockets


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Page:
    def __init__(self, browser, info):
        self.browser = browser
        self.info = info
        self.ws = None
        self.next_id = 0

    async def open(self):
        self.ws = await websockets.connect(self.info["webSocketDebuggerUrl"], max_size=None)

    async def call(self, method, **params):
        self.next_id += 1
        my = self.next_id
        await self.ws.send(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            msg = json.loads(await self.ws.recv())
            if msg.get("id") == my:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})

    async def eval(self, expr):
        r = await self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError("page: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    async def wait(self, expr, timeout=30.0):
        t0 = time.time()
        while time.time() - t0 < timeout:
            try:
                v = await self.eval(expr)
            except RuntimeError:  # the page is still loading
                v = None
            if v:
                return v
            await asyncio.sleep(0.1)
        raise TimeoutError("waited %.0f s for %s" % (timeout, expr))

    async def screenshot(self, path):
        r = await self.call("Page.captureScreenshot", format="png")
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    async def close(self):
        if self.ws:
            await self.ws.close()
        urllib.request.urlopen("http://127.0.0.1:%d/json/close/%s"
                               % (self.browser.port, self.info["id"])).read()


class Browser:
    def __init__(self, width=1280, height=1250):
        self.dir = tempfile.mkdtemp(prefix="fovea-chromium-")
        cmd = [chromium_path(), "--headless=new", "--no-sandbox", "--disable-gpu",
               "--no-first-run", "--no-default-browser-check", "--disable-extensions",
               "--remote-debugging-port=0", "--user-data-dir=" + self.dir,
               "--window-size=%d,%d" % (width, height), "about:blank"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.dir, "DevToolsActivePort")
        t0 = time.time()
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if time.time() - t0 > 30 or self.proc.poll() is not None:
                raise RuntimeError("chromium did not start")
            time.sleep(0.1)
        with open(port_file) as f:
            self.port = int(f.readline())

    async def page(self, url):
        """A page in a window of its own: visible, so that it draws (a
        background tab gets no animation frames)."""
        ver = json.loads(urllib.request.urlopen(
            "http://127.0.0.1:%d/json/version" % self.port).read())
        async with websockets.connect(ver["webSocketDebuggerUrl"], max_size=None) as ws:
            await ws.send(json.dumps({"id": 1, "method": "Target.createTarget",
                                      "params": {"url": url, "newWindow": True}}))
            while True:
                msg = json.loads(await ws.recv())
                if msg.get("id") == 1:
                    target = msg["result"]["targetId"]
                    break
        pages = json.loads(urllib.request.urlopen(
            "http://127.0.0.1:%d/json/list" % self.port).read())
        info = next(p for p in pages if p["id"] == target)
        p = Page(self, info)
        await p.open()
        return p

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)
