// SPDX-License-Identifier: BSD-2-Clause-Patent
// fovea live page: a worker (live_worker.js) receives the delta stream over
// a WebSocket and decodes each message with fovea's decoder (WebAssembly);
// this page shows its counters, draws the newest decoded frame, once per
// animation frame at most (live_draw.js: WebGL 2, or a 2D canvas), and sends the
// controls as JSON (docs/live.md). ?token=T is passed on to the socket;
// ?stop=N closes the socket after N frames shown (tests); ?draw=2d draws
// on a 2D canvas, ?draw=gl with WebGL 2 even in software (tests; by default
// WebGL 2 when it runs on a GPU, else the 2D canvas); ?slow=MS makes each
// decode take MS at least (tests: a page that falls behind).
'use strict';

const params = new URLSearchParams(location.search);
const token = params.get('token') || '';
const stopAfter = parseInt(params.get('stop') || '0', 10);
const slowMs = parseInt(params.get('slow') || '0', 10);
const $ = (id) => document.getElementById(id);

const state = {
  worker: null, fmt: null, frames: 0, drawn: 0, errors: 0, view: '0', heatNorm: 0, sigma: null,
  role: 'view', closed: false, draw: params.get('draw') === '2d' ? '2d' : 'gl',
  software: params.get('draw') === 'gl', // a WebGL 2 without a GPU will do
  pending: null,   // the newest frame from the worker not drawn yet: {frame, buf}
  drawers: {}, step: 1, drewSinceAnimation: false,
  capture: false, captured: {}, // tests: the pixels of each canvas drawn
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

// ------------------------------------------------------------------ from the worker

function onHello(fmt) {
  state.fmt = fmt;
  $('geometry').textContent = fmt.width + 'x' + fmt.height + ', tile ' + fmt.tile + ', T ' +
    fmt.threshold;
  for (const c of document.querySelectorAll('canvas')) {
    if (c.width !== fmt.width || c.height !== fmt.height) {
      c.width = fmt.width;
      c.height = fmt.height;
    }
  }
  if (state.pending) giveBack(state.pending.buf); // of the old stream
  state.pending = null;
  if (drawStep() !== state.step) viewsChanged();
}

// a decoded frame's numbers (every frame; its pixels come apart, when the page has room)
function shown(f) {
  state.frames++;
  const now = performance.now();
  $('frames').textContent = state.frames;
  $('frame-number').textContent = f.number;
  $('frame-crc').textContent = hex8(f.crc);
  $('bytes').textContent = f.nbytes;
  $('skipped').textContent = f.skipped;
  const tiles = 100 * f.tilesSent / Math.max(1, f.tilesTotal);
  $('tiles').textContent = tiles.toFixed(1) + ' %';
  state.times.push(now);
  state.bytesWindow.push(f.nbytes);
  state.decodeMs.push(f.dt);
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
    $('latency').textContent = f.latency.toFixed(1);
    $('decode-ms').textContent = median(state.decodeMs).toFixed(2);
  }
  chartPush(state.frames, f.nbytes, tiles, f.latency, fps);
  if (f.last) {
    state.closed = true;
    setStatus('stopped after ' + stopAfter + ' frames');
  }
}

// a frame's pixels: drawn at once, unless a frame was drawn since the last
// animation frame (then at the next: the screen would not show both); a
// newer one replaces one not drawn yet (it is stale)
function onPlanes(frame) {
  if (state.pending) giveBack(state.pending.buf);
  state.pending = { frame, buf: frame.buf };
  const last = state.closed && stopAfter > 0 && frame.seq >= stopAfter;
  if (!state.drewSinceAnimation || last) draw();
  if (last) document.body.dataset.done = '1';
}

function giveBack(buf) {
  state.worker.postMessage({ type: 'free', buf }, buf ? [buf] : []);
}

function onWorker(e) {
  const msg = e.data;
  if (msg.type === 'frame') {
    if (!(state.closed && stopAfter > 0)) shown(msg);
  } else if (msg.type === 'planes') {
    onPlanes(msg);
  } else if (msg.type === 'hello') {
    onHello(msg.fmt);
  } else if (msg.type === 'text') {
    onText(JSON.parse(msg.data));
  } else if (msg.type === 'error') {
    state.errors++;
    $('errors').textContent = state.errors;
    console.warn('decode error: ' + msg.message);
  } else if (msg.type === 'status') {
    if (!state.closed) setStatus(msg.text);
  } else if (msg.type === 'closed') {
    if (!msg.wanted && !state.closed) setStatus('disconnected');
  }
}

function onText(msg) {
  if (msg.type === 'state') onState(msg);
  else if (msg.type === 'stats') { state.sigma = msg.noise_sigma; $('sigma').textContent = msg.noise_sigma.toFixed(2); }
  else if (msg.type === 'refused') setStatus('server full (--max-clients ' + msg.max_clients + ')');
  else if (msg.type === 'error') setStatus('server: ' + msg.message);
}

// ------------------------------------------------------------------ drawing

// the views shown: [view, canvas] pairs
function shownViews() {
  const all = state.view === 'all', out = [];
  for (const d of document.querySelectorAll('.view')) {
    const v = d.dataset.view;
    const on = all || v === state.view || (state.view === '3' && v === '2');
    d.classList.toggle('shown', on);
    if (on) out.push([all ? Number(v) : Number(state.view), d.querySelector('canvas')]);
  }
  $('views').classList.toggle('all', all);
  return out;
}

function drawer(canvas) {
  let d = state.drawers[canvas.id];
  if (!d) d = state.drawers[canvas.id] = makeDrawer(canvas, state.draw, state.software);
  return d;
}

// the newest frame, once; the one before goes back to the worker
function draw() {
  const p = state.pending;
  if (!p || !state.fmt) return;
  state.pending = null;
  state.drewSinceAnimation = true;
  const t0 = performance.now();
  for (const [view, canvas] of shownViews()) {
    const d = drawer(canvas);
    d.draw(state.fmt, p.frame, p.buf, view, state.heatNorm);
    // tests: the pixels drawn, read back at once (WebGL keeps them no longer)
    if (state.capture)
      state.captured[canvas.id] = Array.from(d.read(state.fmt.width, state.fmt.height));
  }
  p.frame.drawMs = performance.now() - t0;
  state.drawn++;
  $('drawn').textContent = state.drawn;
  drawn(p.frame);
  giveBack(p.buf);
}

// a frame reached the screen (measure_live.py hooks this: latency to display)
function drawn(frame) { return frame; }

// 2D canvas: every other pixel and row when every canvas shown is shown at
// 55 % of its size or less (the browser would scale most of the rest away)
function drawStep() {
  if (state.draw !== '2d' || !state.fmt) return 1;
  const r = window.devicePixelRatio || 1;
  for (const [, c] of shownViews())
    if (!c.clientWidth || c.clientWidth * r > 0.55 * state.fmt.width) return 1;
  return 2;
}

function viewsChanged() {
  const views = shownViews().map((x) => x[0]);
  state.step = drawStep();
  if (state.worker)
    state.worker.postMessage({ type: 'views', views, heatNorm: state.heatNorm, step: state.step });
}

function frameLoop(now) {
  if (now - (state.stepAt || 0) > 500) { // the window resized?
    state.stepAt = now;
    if (drawStep() !== state.step) viewsChanged();
  }
  state.drewSinceAnimation = false;
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
  if (state.worker) state.worker.postMessage({ type: 'send', data: JSON.stringify(obj) });
}

function onState(s) {
  state.role = s.role;
  $('threshold').value = s.threshold;
  $('denoise').value = s.denoise;
  $('keyframe').value = s.keyframe_interval;
  $('heat-norm').value = s.heat_norm;
  $('pause').checked = s.paused;
  const norm = s.heat_norm === 'fixed' ? 1 : 0;
  $('controls').disabled = s.role !== 'control';
  cameraState(s);
  if (norm !== state.heatNorm) {
    state.heatNorm = norm;
    viewsChanged();
  }
}

// a camera source's own controls (V4L2), as the server reads them from the
// device: a slider or a checkbox each, greyed out (disabled) where the device
// lacks it, or it is inactive (an auto mode sets it), read-only or held
const cameraLabels = {
  brightness: 'brightness', contrast: 'contrast', saturation: 'saturation', gain: 'gain',
  autogain: 'auto gain', exposure: 'exposure', exposure_auto: 'auto exposure',
  white_balance_auto: 'auto white balance',
};

// the inputs, built again only when the list or a range changes
function cameraBuild(list) {
  const box = $('camera-list');
  const key = list.map((c) => [c.name, c.kind, c.available, c.min, c.max, c.step].join()).join(';');
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.textContent = '';
  for (const c of list) {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.id = 'cam-' + c.name;
    const name = cameraLabels[c.name] || c.name;
    if (c.kind === 'bool') {
      input.type = 'checkbox';
      label.append(input, ' ' + name);
    } else {
      input.type = 'range';
      label.className = 'range';
      if (c.available) Object.assign(input, { min: c.min, max: c.max, step: c.step });
      const out = document.createElement('output');
      out.id = 'cam-' + c.name + '-value';
      input.addEventListener('input', () => { out.textContent = input.value; });
      label.append(name + ' ', input, ' ', out);
    }
    input.addEventListener('change', () => send({ type: 'control', camera: {
      [c.name]: c.kind === 'bool' ? input.checked : Number(input.value) } }));
    box.append(label);
  }
}

function cameraState(s) {
  const list = s.camera_controls || Object.keys(cameraLabels).map((name) => ({
    name, kind: name.endsWith('auto') || name === 'autogain' ? 'bool' : 'int', available: false,
    settable: false }));
  cameraBuild(list);
  const control = s.role === 'control';
  for (const c of list) {
    const input = $('cam-' + c.name);
    input.disabled = !c.settable || !control;
    input.parentNode.classList.toggle('off', input.disabled); // greyed out
    input.title = !c.available ? 'the camera has no ' + c.name + ' control'
      : c.flags.length ? c.flags.join(', ') : '';
    if (!c.available) continue;
    if (c.kind === 'bool') input.checked = !!c.value;
    else {
      input.value = c.value;
      $('cam-' + c.name + '-value').textContent = c.value;
    }
  }
  $('camera').disabled = !s.camera || !!s.camera_error || !control;
  $('camera-note').textContent = !s.camera ? 'not a camera source'
    : s.camera_error || (control ? '' : 'watch-only');
}

function controlsSetup() {
  $('view-select').addEventListener('change', (e) => { state.view = e.target.value; viewsChanged(); });
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

// ------------------------------------------------------------------ start

function main() {
  controlsSetup();
  chartSetup();
  if (state.draw === 'gl' && !glAvailable(state.software)) state.draw = '2d';
  $('draw-mode').textContent = state.draw === 'gl' ? 'WebGL 2' : '2D canvas';
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/stream' +
    (token ? '?token=' + encodeURIComponent(token) : '');
  state.worker = new Worker('live_worker.js');
  state.worker.onmessage = onWorker;
  state.worker.postMessage({ type: 'init', url, stop: stopAfter, slowMs, draw: state.draw,
                             views: shownViews().map((x) => x[0]), heatNorm: state.heatNorm,
                             step: state.step });
  requestAnimationFrame(frameLoop);
}

main();
