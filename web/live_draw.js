// SPDX-License-Identifier: BSD-2-Clause-Patent
// fovea live page's drawing (docs/live.md, "The page"): WebGL 2 draws a view
// from the decoded planes (integer textures as the wire format has them; the
// YUV to RGB conversion, the heat, noise and mask maps in a fragment shader,
// with the integer arithmetic of web/wasm/live_decoder.c's ld_render, so both
// give the same pixels); without WebGL 2 on a GPU (a software WebGL costs
// more CPU than the 2D canvas) the worker renders RGBA and the page puts it
// on a 2D canvas, at half the size when the page shows it at 55 % or less.
'use strict';

const GL_VERTEX = `#version 300 es
in vec2 a_pos;
void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }`;

// kind: 0 gray, 1 planar YUV, 2 NV12, 3 packed RGB; shift: samples to 8 bits
const GL_FRAGMENT = `#version 300 es
precision highp float;
precision highp int;
precision highp usampler2D;
uniform usampler2D u_p0, u_p1, u_p2, u_prev, u_mask;
uniform highp sampler2D u_heat;
uniform int u_kind, u_shift, u_view, u_tile, u_height;
uniform ivec2 u_sub;
uniform float u_top;
out vec4 o_color;

// x >> 8 rounding toward minus infinity, as C's >> on the negative ints here
int shr8(int x) { return ((x + 65536) >> 8) - 256; }

void main() {
  ivec2 p = ivec2(int(gl_FragCoord.x), u_height - 1 - int(gl_FragCoord.y));
  uvec4 s = texelFetch(u_p0, p, 0);
  int luma;
  ivec3 video;
  if (u_kind == 3) {
    ivec3 c = ivec3(s.rgb) >> u_shift;
    video = c;
    luma = min((77 * c.r + 150 * c.g + 29 * c.b) >> 8, 255);
  } else {
    luma = min(int(s.r) >> u_shift, 255);
    video = ivec3(luma);
    if (u_kind != 0) {
      ivec2 cp = p >> u_sub;
      int u, v;
      if (u_kind == 2) {
        uvec4 uv = texelFetch(u_p1, cp, 0);
        u = int(uv.r);
        v = int(uv.g);
      } else {
        u = int(texelFetch(u_p1, cp, 0).r) >> u_shift;
        v = int(texelFetch(u_p2, cp, 0).r) >> u_shift;
      }
      int c = 298 * (luma - 16), d = u - 128, e = v - 128;
      video = clamp(ivec3(shr8(c + 409 * e + 128), shr8(c - 100 * d - 208 * e + 128),
                          shr8(c + 516 * d + 128)), 0, 255);
    }
  }
  ivec2 t = p / u_tile;
  ivec3 o = u_view == 2 ? ivec3(0) : video;
  if (u_view == 1) {
    float h = min(texelFetch(u_heat, t, 0).r / u_top, 1.0);
    int l = luma / 2;
    o = ivec3(min(l + int(h * 255.0), 255),
              min(l + int((h > 0.5 ? (h - 0.5) * 2.0 : 0.0) * 200.0), 255), l / 2);
  } else if (u_view == 2 || u_view == 3) {
    int dv = abs(luma - int(texelFetch(u_prev, p, 0).r));
    if (dv != 0) o = ivec3(min(64 + dv * 16, 255), o.g / 2, o.b / 2);
  } else if (u_view == 4 && texelFetch(u_mask, t, 0).r != 0u) {
    o = ivec3(o.r / 2, o.g / 2 + 110, o.b / 2);
  }
  o_color = vec4(vec3(o) / 255.0, 1.0);
}`;

// One canvas drawn with WebGL 2: its program, its textures.
class GlView {
  // software: take a WebGL 2 that renders on the CPU too (SwiftShader in a
  // browser without a GPU); else such a browser draws on a 2D canvas
  constructor(canvas, software) {
    const gl = canvas.getContext('webgl2', { antialias: false, depth: false, alpha: false,
                                             premultipliedAlpha: false,
                                             failIfMajorPerformanceCaveat: !software });
    if (!gl) throw new Error(software ? 'no WebGL 2' : 'no WebGL 2 on a GPU');
    // Chromium without a GPU gives SwiftShader all the same
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    this.renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    if (!software && /swiftshader|llvmpipe|softpipe|software/i.test(this.renderer))
      throw new Error('WebGL 2 renders on the CPU (' + this.renderer + ')');
    this.gl = gl;
    const sh = (type, src) => {
      const s = gl.createShader(type);
      gl.shaderSource(s, src);
      gl.compileShader(s);
      if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
      return s;
    };
    const prog = gl.createProgram();
    gl.attachShader(prog, sh(gl.VERTEX_SHADER, GL_VERTEX));
    gl.attachShader(prog, sh(gl.FRAGMENT_SHADER, GL_FRAGMENT));
    gl.linkProgram(prog);
    if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(prog));
    gl.useProgram(prog);
    this.u = {};
    for (const n of ['u_p0', 'u_p1', 'u_p2', 'u_prev', 'u_mask', 'u_heat', 'u_kind', 'u_shift',
                     'u_view', 'u_tile', 'u_height', 'u_sub', 'u_top'])
      this.u[n] = gl.getUniformLocation(prog, n);
    gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 3, -1, -1, 3]), gl.STATIC_DRAW);
    const a = gl.getAttribLocation(prog, 'a_pos');
    gl.enableVertexAttribArray(a);
    gl.vertexAttribPointer(a, 2, gl.FLOAT, false, 0, 0);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    this.tex = {};
    ['u_p0', 'u_p1', 'u_p2', 'u_prev', 'u_mask', 'u_heat'].forEach((n, i) => {
      const t = gl.createTexture();
      gl.activeTexture(gl.TEXTURE0 + i);
      gl.bindTexture(gl.TEXTURE_2D, t);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
      gl.uniform1i(this.u[n], i);
      this.tex[n] = { unit: i, t, key: '' };
    });
    // every sampler complete and of its kind from the start (a format without
    // chroma or a view without the maps leaves some unused)
    for (const n of ['u_p0', 'u_p1', 'u_p2', 'u_prev', 'u_mask'])
      this.upload(n, 1, 1, 1, 1, new Uint8Array(1));
    this.upload('u_heat', 1, 1, 1, 4, new Float32Array(1));
  }

  // texture n from data (w x h samples of comps components, bytes each)
  upload(n, w, h, comps, bytes, data) {
    const gl = this.gl, x = this.tex[n];
    const fmts = bytes === 4
      ? [gl.R32F, gl.RED, gl.FLOAT]
      : [[gl.R8UI, gl.RG8UI, gl.RGB8UI, gl.RGBA8UI], [gl.R16UI, gl.RG16UI, gl.RGB16UI,
          gl.RGBA16UI]][bytes - 1][comps - 1];
    const internal = bytes === 4 ? fmts[0] : fmts;
    const format = bytes === 4 ? fmts[1]
      : [gl.RED_INTEGER, gl.RG_INTEGER, gl.RGB_INTEGER, gl.RGBA_INTEGER][comps - 1];
    const type = bytes === 4 ? gl.FLOAT : bytes === 2 ? gl.UNSIGNED_SHORT : gl.UNSIGNED_BYTE;
    gl.activeTexture(gl.TEXTURE0 + x.unit);
    const key = w + 'x' + h + ':' + internal;
    if (x.key !== key) { // new size or format: new storage
      gl.deleteTexture(x.t);
      x.t = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, x.t);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
      gl.texStorage2D(gl.TEXTURE_2D, 1, internal, w, h);
      x.key = key;
    }
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, w, h, format, type, data);
  }

  draw(fmt, frame, buf, view, heatNorm) {
    const gl = this.gl, u = this.u;
    const big = fmt.bps === 2;
    frame.planes.forEach((p, i) => {
      const data = big ? new Uint16Array(buf, p.off, p.row * p.h / 2)
        : new Uint8Array(buf, p.off, p.row * p.h);
      this.upload('u_p' + i, p.w, p.h, i === 0 ? fmt.comps : p.comps, fmt.bps, data);
    });
    const tiles = fmt.tilesX * fmt.tilesY;
    if (view === 1) {
      const heat = new Float32Array(buf, frame.heatOff, tiles);
      let top = 20; // 1 / (1 - 0.95): a tile that changes every frame
      if (heatNorm === 0) {
        top = Math.fround(1e-6);
        for (let i = 0; i < tiles; i++) if (heat[i] > top) top = heat[i];
      }
      this.upload('u_heat', fmt.tilesX, fmt.tilesY, 1, 4, heat);
      gl.uniform1f(u.u_top, top);
    }
    if (view === 4)
      this.upload('u_mask', fmt.tilesX, fmt.tilesY, 1, 1,
                  new Uint8Array(buf, frame.maskOff, tiles));
    if ((view === 2 || view === 3) && frame.prevOff >= 0)
      this.upload('u_prev', fmt.width, fmt.height, 1, 1,
                  new Uint8Array(buf, frame.prevOff, fmt.width * fmt.height));
    const kind = fmt.rgb ? 3 : fmt.planes === 1 ? 0 : fmt.planes === 2 ? 2 : 1;
    const shift = fmt.rgb ? (fmt.bps === 2 ? 8 : 0) : fmt.depth - 8;
    gl.uniform1i(u.u_kind, kind);
    gl.uniform1i(u.u_shift, shift);
    gl.uniform1i(u.u_view, view);
    gl.uniform1i(u.u_tile, fmt.tile);
    gl.uniform1i(u.u_height, fmt.height);
    gl.uniform2i(u.u_sub, fmt.l2w, fmt.l2h);
    gl.viewport(0, 0, fmt.width, fmt.height);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
  }

  // what was just drawn, RGBA rows top first (before the page shows it: the
  // drawing buffer is not kept after that)
  read(w, h) {
    const gl = this.gl, px = new Uint8Array(4 * w * h), out = new Uint8Array(4 * w * h);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    for (let y = 0; y < h; y++)
      out.set(px.subarray(4 * w * (h - 1 - y), 4 * w * (h - y)), 4 * w * y);
    return out;
  }
}

// Does this browser draw with WebGL 2 (on a GPU, unless software)? (a
// throwaway canvas: a canvas keeps the first kind of context it gives)
function glAvailable(software) {
  try {
    new GlView(document.createElement('canvas'), software);
    return true;
  } catch (e) {
    console.warn('WebGL 2 unavailable, drawing on a 2D canvas: ' + e.message);
    return false;
  }
}

// The views of one canvas: WebGL or 2D.
function makeDrawer(canvas, mode, software) {
  if (mode === 'gl') {
    const v = new GlView(canvas, software);
    return { draw: (fmt, frame, buf, view, heatNorm) => v.draw(fmt, frame, buf, view, heatNorm),
             read: (w, h) => v.read(w, h) };
  }
  const ctx = canvas.getContext('2d');
  return {
    draw: (fmt, frame, buf, view) => {
      const r = frame.rgba.find((x) => x.view === view);
      if (!r) return;
      const w = frame.ow, h = frame.oh;
      if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
      ctx.putImageData(new ImageData(new Uint8ClampedArray(buf, r.off, 4 * w * h), w, h), 0, 0);
    },
    read: () => new Uint8Array(ctx.getImageData(0, 0, canvas.width, canvas.height).data.buffer),
  };
}
