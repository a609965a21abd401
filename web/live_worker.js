// SPDX-License-Identifier: BSD-2-Clause-Patent
// fovea live page's worker: owns the WebSocket and the WebAssembly decoder
// (decoder.js), decodes every message in order, and hands the page the
// newest decoded frame when the page has room for it (docs/live.md, "The
// page"): the page never waits for decoding, and a page that draws slower
// than the stream skips to the newest frame instead of queueing old ones.
'use strict';
let haveDecoder = true;
try {
  importScripts('decoder.js');
} catch (e) {
  haveDecoder = false; // served without it: fovea built without emscripten
}

const w = {
  mod: null, ws: null, stop: 0, closed: false, frames: 0,
  draw: 'gl',        // 'gl': the planes as decoded; '2d': RGBA of each view (the fallback)
  views: [0],        // the views shown (2d: an RGBA each; gl: 2 and 3 need the previous luma)
  heatNorm: 0,
  step: 1,           // 2d: every step-th pixel of every step-th row (the page shows it that small)
  inFlight: 0,       // frame buffers the page holds (to draw at its next animation frame)
  pool: [],          // buffers the page gave back
  unsent: false,     // the newest decoded frame has not gone to the page
  fmt: null,
  skipping: false,   // skips deltas until a keyframe (behind: asked for one)
  lastResync: -1e9,
  skipped: 0,
  slowMs: 0,         // tests (?slow=MS): each decode takes MS at least, as on a slow machine
};
// One frame with the page at a time: it draws it at its next animation frame
// and gives the buffer back, and the worker then sends the newest frame
// decoded meanwhile. (Two made the worker copy and render frames that a
// newer one replaced before they were drawn: 20 % of them at 30 fps.)
const MAX_IN_FLIGHT = 1;
// A page that cannot decode as fast as the stream comes falls behind in its
// socket (the browser queues the messages for the worker, unbounded): when a
// delta is older than LAG_MS, skip it and the ones after it, undecoded, ask
// for a keyframe (RESYNC) and go on from there; at most once in RESYNC_GAP_MS.
const LAG_MS = 400, RESYNC_GAP_MS = 2000;

function post(msg, transfer) { postMessage(msg, transfer || []); }

// ------------------------------------------------------------------ frames to the page

function planeGeometry() {
  const m = w.mod, f = w.fmt, out = [];
  for (let p = 0; p < f.planes; p++) {
    let pw = f.width, ph = f.height, comps = f.comps;
    if (p > 0) {
      pw = (f.width >> f.l2w) + ((f.width & ((1 << f.l2w) - 1)) !== 0 ? 1 : 0);
      ph = (f.height >> f.l2h) + ((f.height & ((1 << f.l2h) - 1)) !== 0 ? 1 : 0);
      comps = f.planes === 2 ? 2 : 1; // NV12: U,V pairs
    }
    out.push({ w: pw, h: ph, comps, row: pw * comps * f.bps, src: m._ld_value(13 + 2 * p),
               stride: m._ld_value(14 + 2 * p) });
  }
  return out;
}

function takeBuffer(n) {
  while (w.pool.length) {
    const b = w.pool.pop();
    if (b.byteLength >= n) return b;
  }
  return new ArrayBuffer(n);
}

// Copy the frame's planes (rows without padding: the CRC's bytes) into one
// buffer the page takes over (transferred, not copied), 4-byte aligned each.
function packGl(m, frame) {
  const planes = planeGeometry();
  const tiles = w.fmt.tilesX * w.fmt.tilesY;
  const needPrev = w.views.includes(2) || w.views.includes(3);
  let n = 0;
  const at = (bytes) => { const o = n; n += (bytes + 3) & ~3; return o; };
  for (const p of planes) p.off = at(p.row * p.h);
  const heatOff = at(4 * tiles), maskOff = at(tiles);
  const prevOff = needPrev ? at(w.fmt.width * w.fmt.height) : -1;
  const buf = takeBuffer(n);
  const dst = new Uint8Array(buf);
  const heap = m.HEAPU8;
  for (const p of planes) {
    if (p.stride === p.row) {
      dst.set(heap.subarray(p.src, p.src + p.row * p.h), p.off);
    } else {
      for (let y = 0; y < p.h; y++)
        dst.set(heap.subarray(p.src + y * p.stride, p.src + y * p.stride + p.row),
                p.off + y * p.row);
    }
    delete p.src;
  }
  const heat = m._ld_value(21), mask = m._ld_value(22);
  dst.set(heap.subarray(heat, heat + 4 * tiles), heatOff);
  dst.set(heap.subarray(mask, mask + tiles), maskOff);
  if (needPrev) {
    const prev = m._ld_value(20);
    dst.set(heap.subarray(prev, prev + w.fmt.width * w.fmt.height), prevOff);
  }
  frame.planes = planes;
  frame.heatOff = heatOff;
  frame.maskOff = maskOff;
  frame.prevOff = prevOff;
  return buf;
}

// The fallback: the views drawn here into RGBA, one after the other in one buffer.
function pack2d(m, frame) {
  const ow = Math.ceil(w.fmt.width / w.step), oh = Math.ceil(w.fmt.height / w.step);
  const px = 4 * ow * oh;
  const buf = takeBuffer(px * w.views.length);
  const dst = new Uint8Array(buf);
  frame.rgba = [];
  frame.ow = ow;
  frame.oh = oh;
  w.views.forEach((v, i) => {
    const p = m._ld_render(v, w.heatNorm, w.step);
    if (!p) return;
    dst.set(m.HEAPU8.subarray(p, p + px), i * px);
    frame.rgba.push({ view: v, off: i * px });
  });
  return buf;
}

// The newest decoded frame to the page, if it has room (or must have it: the last one).
function sendFrame(force) {
  const m = w.mod;
  if (!w.unsent || !w.fmt || !m._ld_value(13)) return;
  if (w.inFlight >= MAX_IN_FLIGHT && !force) return;
  const frame = { type: 'planes', number: m._ld_value(5), timestamp: m._ld_value(6),
                  seq: w.frames };
  const t0 = performance.now();
  const buf = w.draw === 'gl' ? packGl(m, frame) : pack2d(m, frame);
  frame.packMs = performance.now() - t0; // the copy (and the 2D canvas's RGBA)
  frame.buf = buf;
  w.inFlight++;
  w.unsent = false;
  post(frame, [buf]);
}

// ------------------------------------------------------------------ decoding

function resync() {
  const m = w.mod, n = m._ld_resync();
  if (n > 0 && w.ws.readyState === 1)
    w.ws.send(m.HEAPU8.slice(m._ld_buffer(n), m._ld_buffer(n) + n));
}

// Behind: a delta older than LAG_MS (its timestamp, at byte 28 of the message).
function behind(bytes) {
  if (w.skipping) return true;
  if (bytes.length < 36 || bytes[5] !== 3) return false;
  const now = performance.now();
  const ts = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(28, true));
  if (Date.now() - ts / 1000 < LAG_MS || now - w.lastResync < RESYNC_GAP_MS) return false;
  w.skipping = true;
  w.lastResync = now;
  resync();
  return true;
}

function feed(buf) {
  const m = w.mod;
  const bytes = new Uint8Array(buf);
  if (bytes.length >= 6 && bytes[5] === 1) m._ld_open(); // a new stream: a new decoder
  if (bytes.length >= 6 && bytes[5] !== 3) w.skipping = false; // a keyframe, HELLO or END
  else if (behind(bytes)) {
    w.skipped++;
    return;
  }
  const p = m._ld_buffer(bytes.length);
  m.HEAPU8.set(bytes, p);
  const t0 = performance.now();
  const type = m._ld_feed(bytes.length);
  while (performance.now() - t0 < w.slowMs); // tests only
  const dt = performance.now() - t0;
  if (type < 0) {
    post({ type: 'error', message: m.UTF8ToString(m._ld_error()) });
    resync(); // ask for a keyframe
    return;
  }
  if (type === 1) {
    const v = (i) => m._ld_value(i);
    w.fmt = { width: v(0), height: v(1), tile: v(4), threshold: v(2), code: v(12), planes: v(23),
              depth: v(24), bps: v(25), l2w: v(26), l2h: v(27), comps: v(28), rgb: v(29) };
    w.fmt.tilesX = Math.ceil(w.fmt.width / w.fmt.tile);
    w.fmt.tilesY = Math.ceil(w.fmt.height / w.fmt.tile);
    w.unsent = false;
    post({ type: 'hello', fmt: w.fmt });
  } else if (type === 2 || type === 3) {
    w.frames++;
    const last = w.stop > 0 && w.frames >= w.stop;
    // every decoded frame's numbers (small); its pixels only when the page has room
    post({ type: 'frame', seq: w.frames, number: m._ld_value(5), timestamp: m._ld_value(6),
           latency: Date.now() - m._ld_value(6) / 1000, crc: m._ld_value(7) >>> 0,
           keyframe: m._ld_value(8), tilesSent: m._ld_value(9), tilesTotal: m._ld_value(10),
           nbytes: bytes.length, dt, last, skipped: w.skipped });
    w.unsent = true;
    sendFrame(last);
    if (last) {
      w.closed = true;
      w.ws.close();
    }
  } else if (type === 4) {
    post({ type: 'status', text: 'stream ended' });
  }
}

// ------------------------------------------------------------------ socket

function connect(url) {
  const ws = new WebSocket(url, 'fovea-live');
  ws.binaryType = 'arraybuffer';
  w.ws = ws;
  ws.onopen = () => post({ type: 'status', text: 'connected' });
  ws.onmessage = (e) => {
    if (typeof e.data === 'string') {
      post({ type: 'text', data: e.data });
      return;
    }
    if (!w.closed) feed(e.data);
  };
  ws.onclose = () => post({ type: 'closed', wanted: w.closed });
}

onmessage = async (e) => {
  const msg = e.data;
  if (msg.type === 'init') {
    if (!haveDecoder) {
      post({ type: 'status',
             text: 'this fovea was built without the WebAssembly decoder (emscripten)' });
      return;
    }
    w.stop = msg.stop;
    w.slowMs = msg.slowMs;
    w.draw = msg.draw;
    w.views = msg.views;
    w.heatNorm = msg.heatNorm;
    w.step = msg.step;
    w.mod = await FoveaDecoder();
    w.mod._ld_open();
    connect(msg.url);
  } else if (msg.type === 'free') {
    w.inFlight--;
    if (msg.buf) w.pool.push(msg.buf);
    if (w.pool.length > MAX_IN_FLIGHT + 1) w.pool.shift();
    sendFrame(false);
  } else if (msg.type === 'views') {
    // the page shows other views: the newest frame again, as they need it
    w.views = msg.views;
    w.heatNorm = msg.heatNorm;
    w.step = msg.step;
    w.pool = [];
    if (w.mod && w.mod._ld_value(13)) {
      w.unsent = true;
      sendFrame(true);
    }
  } else if (msg.type === 'send') {
    if (w.ws && w.ws.readyState === 1) w.ws.send(msg.data);
  }
};
