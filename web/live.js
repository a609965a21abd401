// SPDX-License-Identifier: BSD-2-Clause-Patent
// fovea live page: receives the delta stream over a WebSocket, decodes each
// message with fovea's decoder (WebAssembly, decoder.js), draws the views and
// sends the controls as JSON (docs/live.md). ?token=T is passed on to the
// socket; ?stop=N closes the socket after N frames shown (tests).
'use strict';

const params = new URLSearchParams(location.search);
const token = params.get('token') || '';
const stopAfter = parseInt(params.get('stop') || '0', 10);
const $ = (id) => document.getElementById(id);

const state = {
  mod: null, ws: null, frames: 0, errors: 0, view: '0', heatNorm: 0, dirty: false, sigma: null,
  role: 'view', closed: false,
  hist: { t: [], bytes: [], tiles: [], latency: [], fps: [], sigma: [] },
  times: [], bytesWindow: [], decodeMs: [], lastUpdate: 0,
};

function setStatus(s) { $('status').textContent = s; }

function hex8(v) { return (v >>> 0).toString(16).padStart(8, '0'); }

function median(a) {
  if (!a.length) return 0;
  const s = a.slice().sort((x, y) => x - y);
  return s[s.length >> 1];
}

// ------------------------------------------------------------------ decoding

function feed(buf) {
  const m = state.mod;
  const bytes = new Uint8Array(buf);
  if (bytes.length >= 6 && bytes[5] === 1) m._ld_open(); // a new stream: a new decoder
  const p = m._ld_buffer(bytes.length);
  m.HEAPU8.set(bytes, p);
  const t0 = performance.now();
  const type = m._ld_feed(bytes.length);
  const dt = performance.now() - t0;
  if (type < 0) {
    state.errors++;
    $('errors').textContent = state.errors;
    console.warn('decode error: ' + m.UTF8ToString(m._ld_error()));
    const n = m._ld_resync(); // ask for a keyframe
    if (n > 0 && state.ws.readyState === 1)
      state.ws.send(m.HEAPU8.slice(m._ld_buffer(n), m._ld_buffer(n) + n));
    return;
  }
  if (type === 1) {
    const w = m._ld_value(0), h = m._ld_value(1);
    $('geometry').textContent = w + 'x' + h + ', tile ' + m._ld_value(4) + ', T ' + m._ld_value(2);
    for (const c of document.querySelectorAll('canvas')) { c.width = w; c.height = h; }
    state.images = {};
  } else if (type === 2 || type === 3) {
    shown(m, bytes.length, dt);
  } else if (type === 4) {
    setStatus('stream ended');
  }
}

function shown(m, nbytes, dt) {
  state.frames++;
  const now = performance.now();
  const latency = Date.now() - m._ld_value(6) / 1000;
  $('frames').textContent = state.frames;
  $('frame-number').textContent = m._ld_value(5);
  $('frame-crc').textContent = hex8(m._ld_value(7));
  $('bytes').textContent = nbytes;
  const tiles = 100 * m._ld_value(9) / Math.max(1, m._ld_value(10));
  $('tiles').textContent = tiles.toFixed(1) + ' %';
  state.times.push(now);
  state.bytesWindow.push(nbytes);
  state.decodeMs.push(dt);
  while (state.times.length > 60) { state.times.shift(); state.bytesWindow.shift(); }
  if (state.decodeMs.length > 120) state.decodeMs.shift();
  const span = (state.times[state.times.length - 1] - state.times[0]) / 1000;
  const fps = span > 0 ? (state.times.length - 1) / span : 0;
  const sum = state.bytesWindow.reduce((a, b) => a + b, 0);
  const mbps = span > 0 ? 8 * sum / span / 1e6 : 0;
  if (now - state.lastUpdate > 250) {
    state.lastUpdate = now;
    $('fps').textContent = fps.toFixed(1);
    $('mbps').textContent = mbps.toFixed(2);
    $('latency').textContent = latency.toFixed(1);
    $('decode-ms').textContent = median(state.decodeMs).toFixed(2);
  }
  chartPush(state.frames, nbytes, tiles, latency, fps);
  state.dirty = true;
  if (stopAfter > 0 && state.frames >= stopAfter) {
    state.closed = true;
    state.ws.close();
    draw();
    document.body.dataset.done = '1';
    setStatus('stopped after ' + stopAfter + ' frames');
  }
}

// ------------------------------------------------------------------ drawing

function drawView(view, canvasId) {
  const m = state.mod, c = $(canvasId);
  const p = m._ld_render(view, state.heatNorm);
  if (!p || !c.width) return;
  const n = c.width * c.height * 4;
  let img = state.images[canvasId];
  if (!img) img = state.images[canvasId] = new ImageData(c.width, c.height);
  img.data.set(m.HEAPU8.subarray(p, p + n));
  c.getContext('2d').putImageData(img, 0, 0);
}

function draw() {
  if (!state.dirty || !state.mod) return;
  state.dirty = false;
  const all = state.view === 'all';
  $('views').classList.toggle('all', all);
  for (const d of document.querySelectorAll('.view')) {
    const v = d.dataset.view;
    const on = all || v === state.view || (state.view === '3' && v === '2');
    d.classList.toggle('shown', on);
    if (on) drawView(all ? Number(v) : Number(state.view), d.querySelector('canvas').id);
  }
}

function frameLoop(now) {
  draw();
  chartDraw(now);
  requestAnimationFrame(frameLoop);
}

// ------------------------------------------------------------------ charts

function chartSetup() {
  if (typeof uPlot === 'undefined') {
    $('charts').textContent = 'charts not built (npm packages absent at build time)';
    return;
  }
  const axis = { stroke: '#ccc', grid: { stroke: '#333' }, ticks: { stroke: '#555' } };
  const mk = (title, series) => new uPlot({
    title, width: 460, height: 200, scales: { x: { time: false } }, axes: [axis, axis],
    series: [{ label: 'frame' }].concat(series),
  }, [[]].concat(series.map(() => [])), $('charts'));
  state.charts = [
    mk('bytes per frame', [{ label: 'bytes', stroke: '#4ea' }]),
    mk('tiles sent (%)', [{ label: 'tiles %', stroke: '#fa4' }]),
    mk('latency (ms) and frames/s', [{ label: 'latency ms', stroke: '#e55' },
      { label: 'fps', stroke: '#59f' }]),
    mk('source noise sigma', [{ label: 'sigma', stroke: '#ddd' }]),
  ];
}

// with the drawing (not a timer: a hidden tab's timers are throttled, and a
// screenshot draws a frame), at most 4 times a second
function chartDraw(now) {
  const h = state.hist;
  if (!state.charts || !h.t.length || now - (state.chartAt || 0) < 250) return;
  state.chartAt = now;
  state.charts[0].setData([h.t, h.bytes]);
  state.charts[1].setData([h.t, h.tiles]);
  state.charts[2].setData([h.t, h.latency, h.fps]);
  state.charts[3].setData([h.t, h.sigma]);
}

function chartPush(t, bytes, tiles, latency, fps) {
  const h = state.hist;
  h.t.push(t); h.bytes.push(bytes); h.tiles.push(tiles); h.latency.push(latency); h.fps.push(fps);
  h.sigma.push(state.sigma);
  if (h.t.length > 300) for (const k in h) h[k].shift();
}

// ------------------------------------------------------------------ controls

function send(obj) {
  if (state.ws && state.ws.readyState === 1) state.ws.send(JSON.stringify(obj));
}

function onState(s) {
  state.role = s.role;
  $('threshold').value = s.threshold;
  $('denoise').value = s.denoise;
  $('keyframe').value = s.keyframe_interval;
  $('heat-norm').value = s.heat_norm;
  $('pause').checked = s.paused;
  state.heatNorm = s.heat_norm === 'fixed' ? 1 : 0;
  $('controls').disabled = s.role !== 'control';
  $('camera').disabled = !s.camera;
  state.dirty = true;
}

function controlsSetup() {
  $('view-select').addEventListener('change', (e) => { state.view = e.target.value; state.dirty = true; });
  const num = (id, key) => $(id).addEventListener('change', (e) => {
    const v = parseInt(e.target.value, 10);
    if (Number.isInteger(v)) send({ type: 'control', [key]: v });
  });
  num('threshold', 'threshold');
  num('keyframe', 'keyframe_interval');
  $('denoise').addEventListener('change', (e) => send({ type: 'control', denoise: e.target.value }));
  $('heat-norm').addEventListener('change', (e) => send({ type: 'control', heat_norm: e.target.value }));
  $('pause').addEventListener('change', (e) => send({ type: 'control', paused: e.target.checked }));
}

// ------------------------------------------------------------------ socket

function connect() {
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/stream' +
    (token ? '?token=' + encodeURIComponent(token) : '');
  const ws = new WebSocket(url, 'fovea-live');
  ws.binaryType = 'arraybuffer';
  state.ws = ws;
  ws.onopen = () => setStatus('connected');
  ws.onmessage = (e) => {
    if (typeof e.data === 'string') {
      const msg = JSON.parse(e.data);
      if (msg.type === 'state') onState(msg);
      else if (msg.type === 'stats') { state.sigma = msg.noise_sigma; $('sigma').textContent = msg.noise_sigma.toFixed(2); }
      else if (msg.type === 'refused') setStatus('server full (--max-clients ' + msg.max_clients + ')');
      else if (msg.type === 'error') setStatus('server: ' + msg.message);
      return;
    }
    if (state.closed) return;
    feed(e.data);
  };
  ws.onclose = () => { if (!state.closed) setStatus('disconnected'); };
}

async function main() {
  controlsSetup();
  chartSetup();
  if (typeof FoveaDecoder === 'undefined') {
    setStatus('this fovea was built without the WebAssembly decoder (emscripten)');
    return;
  }
  state.mod = await FoveaDecoder();
  state.mod._ld_open();
  connect();
  requestAnimationFrame(frameLoop);
}

main();
