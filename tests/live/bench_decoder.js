// SPDX-License-Identifier: BSD-2-Clause-Patent
// The live page's WebAssembly decoder on a recorded stream, in node: decode
// time per frame, and what the page's worker adds to each frame it hands
// over: the video view's RGBA (the 2D canvas; full size and every other
// pixel) or the planes' copy (WebGL) (docs/live.md, "Measured").
// Usage: node bench_decoder.js BUILD/web/decoder.js STREAM.bin [ROUNDS]
// (STREAM.bin: the bytes of a `fovea send` connection, HELLO first)
'use strict';
const fs = require('fs');
const path = require('path');

async function main() {
  const FoveaDecoder = require(path.resolve(process.argv[2]));
  const data = fs.readFileSync(process.argv[3]);
  const rounds = parseInt(process.argv[4] || '3', 10);
  const wasm = path.join(path.dirname(path.resolve(process.argv[2])), 'decoder.wasm');
  const m = await FoveaDecoder({ wasmBinary: fs.readFileSync(wasm) });
  const msgs = [];
  for (let p = 0; p + 20 <= data.length;) {
    const n = 20 + data.readUInt32LE(p + 8);
    msgs.push(data.subarray(p, p + n));
    p += n;
  }
  const times = { 2: [], 3: [], render1: [], render2: [], copy: [] };
  const clock = (f) => { const t0 = process.hrtime.bigint(); f(); return Number(process.hrtime.bigint() - t0) / 1e6; };
  for (let r = 0; r < rounds; r++) {
    m._ld_open();
    for (const msg of msgs) {
      const b = m._ld_buffer(msg.length);
      m.HEAPU8.set(msg, b);
      const t0 = process.hrtime.bigint();
      const type = m._ld_feed(msg.length);
      const dt = Number(process.hrtime.bigint() - t0) / 1e6;
      if (type < 0) throw new Error('decode: ' + m.UTF8ToString(m._ld_error()));
      if (type === 2 || type === 3) {
        times[type].push(dt);
        times.render1.push(clock(() => m._ld_render(0, 0, 1)));
        times.render2.push(clock(() => m._ld_render(0, 0, 2)));
        times.copy.push(clock(() => { // Y, U, V as the worker copies them (4:2:0 here)
          const w = m._ld_value(0), h = m._ld_value(1), n = w * h + 2 * (w >> 1) * (h >> 1);
          const dst = new Uint8Array(n);
          let o = 0;
          for (let p = 0; p < 3; p++) {
            const src = m._ld_value(13 + 2 * p), stride = m._ld_value(14 + 2 * p);
            const pw = p ? w >> 1 : w, ph = p ? h >> 1 : h;
            for (let y = 0; y < ph; y++, o += pw)
              dst.set(m.HEAPU8.subarray(src + y * stride, src + y * stride + pw), o);
          }
        }));
      }
    }
  }
  const med = (a) => { const s = a.slice().sort((x, y) => x - y); return s[s.length >> 1]; };
  console.log(m._ld_value(0) + 'x' + m._ld_value(1) + ': ' + msgs.length + ' messages; keyframe ' +
    'median ' + med(times[2]).toFixed(2) + ' ms, delta median ' + med(times[3]).toFixed(2) +
    ' ms (' + (1000 / med(times[3])).toFixed(0) + ' fps); video RGBA ' + med(times.render1).toFixed(2) +
    ' ms, every other pixel ' + med(times.render2).toFixed(2) + ' ms; planes copied ' +
    med(times.copy).toFixed(2) + ' ms');
}
main();
