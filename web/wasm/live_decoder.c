/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The live page's decoder: fovea's stream decoder (src/stream/decoder.c)
 * compiled to WebAssembly, plus what the page draws from each decoded frame
 * (RGBA of the video, the heat map, the noise map, the change mask) and the
 * CRC-32 of the frame's bytes in the wire format's plane order. One decoder
 * per page; the page feeds it whole messages (one WebSocket message each). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "fovea/stream.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define LD_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define LD_EXPORT
#endif

enum { VIEW_VIDEO = 0, VIEW_HEAT = 1, VIEW_NOISE = 2, VIEW_NOISE_OVERLAY = 3, VIEW_MASK = 4 };

typedef struct live_decoder {
    fovea_context *ctx;
    fovea_stream_decoder *dec;
    uint8_t *in;
    size_t in_cap;
    fovea_stream_event ev;
    int width, height, tile, tiles_x, tiles_y, threshold, keyframe_interval;
    fovea_pixfmt fmt;
    uint32_t crc;
    double frame, timestamp_us, seconds;
    int keyframe, tiles_sent, tiles_total, have_frame;
    uint8_t *rgba, *luma, *prev_luma, *mask, *bitmap;
    float *heat;
} live_decoder;

static live_decoder g;
/* CRC-32 (zlib's: reflected 0xEDB88320), four bytes a step ("slicing by
 * 4": table k advances a byte through k more zero bytes) */
static uint32_t crc_table[4][256];

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 4; t++)
            crc_table[t][i] = crc_table[0][crc_table[t - 1][i] & 0xFF] ^ (crc_table[t - 1][i] >> 8);
}

static uint32_t crc_update(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    for (; n >= 4; n -= 4, p += 4) {
        crc ^= (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        crc = crc_table[3][crc & 0xFF] ^ crc_table[2][(crc >> 8) & 0xFF] ^
              crc_table[1][(crc >> 16) & 0xFF] ^ crc_table[0][crc >> 24];
    }
    for (; n > 0; n--, p++)
        crc = crc_table[0][(crc ^ *p) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

static void free_views(void)
{
    free(g.rgba);
    free(g.luma);
    free(g.prev_luma);
    free(g.mask);
    free(g.bitmap);
    free(g.heat);
    g.rgba = g.luma = g.prev_luma = g.mask = g.bitmap = NULL;
    g.heat = NULL;
}

/** (Re)open the decoder: a new HELLO (a control changed the stream) starts over. */
LD_EXPORT int ld_open(void)
{
    if (!crc_table[0][1])
        crc_init();
    fovea_stream_decoder_close(&g.dec);
    if (!g.ctx) {
        fovea_settings s;
        fovea_default_settings(&s);
        s.backend = FOVEA_BACKEND_CPU;
        s.threads = 1;
        if (fovea_open(&g.ctx, &s) < 0)
            return -1;
    }
    free_views();
    g.width = g.height = 0;
    g.have_frame = 0;
    return fovea_stream_decoder_open(&g.dec, g.ctx, NULL);
}

/** A buffer of n bytes the page copies the next message into. */
LD_EXPORT uint8_t *ld_buffer(size_t n)
{
    if (n > g.in_cap) {
        uint8_t *p = realloc(g.in, n);
        if (!p)
            return NULL;
        g.in = p;
        g.in_cap = n;
    }
    return g.in;
}

/** Write a RESYNC message (a keyframe, please) into the ld_buffer.
 *  @return its size */
LD_EXPORT size_t ld_resync(void)
{
    const size_t n = FOVEA_STREAM_HEADER_SIZE + 8;
    if (!ld_buffer(n))
        return 0;
    return fovea_stream_resync_message(g.dec ? fovea_stream_decoder_shown(g.dec) : -1, g.in);
}

LD_EXPORT const char *ld_error(void)
{
    return g.ctx ? fovea_last_error(g.ctx) : "no decoder";
}

static int setup_views(void)
{
    const size_t px = (size_t)g.width * (size_t)g.height;
    const size_t tiles = (size_t)g.tiles_x * (size_t)g.tiles_y;
    free_views();
    g.rgba = malloc(px * 4);
    g.luma = calloc(px, 1);
    g.prev_luma = calloc(px, 1);
    g.mask = calloc(tiles, 1);
    g.bitmap = malloc((tiles + 7) / 8);
    g.heat = calloc(tiles, sizeof(float));
    return g.rgba && g.luma && g.prev_luma && g.mask && g.bitmap && g.heat ? 0 : -1;
}

/* Which tiles the message carried: all for a keyframe, the tile map's bits
 * for a delta (the decoder has checked the message already). */
static void read_mask(const uint8_t *msg, size_t n)
{
    const size_t tiles = (size_t)g.tiles_x * (size_t)g.tiles_y;
    const uint8_t *p = msg + FOVEA_STREAM_HEADER_SIZE;
    if (g.keyframe) {
        memset(g.mask, 1, tiles);
        return;
    }
    memset(g.mask, 0, tiles);
    if (n < FOVEA_STREAM_HEADER_SIZE + 36)
        return;
    const uint32_t m =
        (uint32_t)p[32] | (uint32_t)p[33] << 8 | (uint32_t)p[34] << 16 | (uint32_t)p[35] << 24;
    if (m == 0 || (size_t)m > n - FOVEA_STREAM_HEADER_SIZE - 36)
        return;
    const size_t bytes = (tiles + 7) / 8;
    if (ZSTD_decompress(g.bitmap, bytes, p + 36, m) != bytes)
        return;
    for (size_t i = 0; i < tiles; i++)
        g.mask[i] = (g.bitmap[i / 8] >> (i % 8)) & 1;
}

static int depth_shift(void)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(g.fmt);
    return d && d->bit_depth > 8 ? d->bit_depth - 8 : 0;
}

/* The frame's CRC over its planes' rows in order, and its luma (8 bits) for
 * the maps. */
static void digest(const fovea_frame *f)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    uint32_t crc = 0;
    for (int p = 0; p < d->planes; p++) {
        const size_t row = fovea_plane_row_bytes(f->fmt, f->width, p);
        const int h = fovea_plane_height(f->fmt, f->height, p);
        for (int y = 0; y < h; y++)
            crc = crc_update(crc, f->data[p] + (ptrdiff_t)y * f->stride[p], row);
    }
    g.crc = crc;
    uint8_t *t = g.prev_luma;
    g.prev_luma = g.luma;
    g.luma = t;
    const int sh = depth_shift();
    const int bytes = d->bit_depth > 8 ? 2 : 1;
    const int comps = d->components;
    for (int y = 0; y < g.height; y++) {
        const uint8_t *s = f->data[0] + (ptrdiff_t)y * f->stride[0];
        uint8_t *o = g.luma + (size_t)y * (size_t)g.width;
        if (comps == 1 && bytes == 1) {
            memcpy(o, s, (size_t)g.width);
            continue;
        }
        for (int x = 0; x < g.width; x++) {
            int v;
            const size_t at = (size_t)x * (size_t)comps * (size_t)bytes;
            if (comps >= 3) { /* RGB: a luma for the maps */
                int c[3];
                for (int k = 0; k < 3; k++)
                    c[k] = bytes == 2 ? (s[at + 2 * k] | s[at + 2 * k + 1] << 8) >> 8 : s[at + k];
                v = (77 * c[0] + 150 * c[1] + 29 * c[2]) >> 8;
            } else {
                v = bytes == 2 ? (s[at] | s[at + 1] << 8) >> sh : s[at];
            }
            o[x] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
}

/** Decode one message of n bytes (in the ld_buffer). @return its type, or a
 *  negative fovea status (ld_error says why). */
LD_EXPORT int ld_feed(size_t n)
{
    if (!g.dec)
        return -1;
    const int st = fovea_stream_decoder_feed(g.dec, g.in, n, &g.ev);
    if (st < 0)
        return st;
    const fovea_stream_event *ev = &g.ev;
    if (ev->type == FOVEA_STREAM_MSG_HELLO) {
        g.width = ev->info->width;
        g.height = ev->info->height;
        g.fmt = ev->info->fmt;
        g.tile = ev->tile;
        g.threshold = ev->threshold;
        g.keyframe_interval = ev->keyframe_interval;
        g.tiles_x = (g.width + g.tile - 1) / g.tile;
        g.tiles_y = (g.height + g.tile - 1) / g.tile;
        if (setup_views() < 0)
            return FOVEA_ERR_NOMEM;
    }
    if (ev->frame) {
        g.frame = (double)ev->fi.frame;
        g.timestamp_us = (double)ev->fi.timestamp_us;
        g.seconds = ev->fi.seconds;
        g.keyframe = ev->fi.keyframe;
        g.tiles_sent = (int)ev->fi.tiles_sent;
        g.tiles_total = (int)ev->fi.tiles_total;
        read_mask(g.in, n);
        const size_t tiles = (size_t)g.tiles_x * (size_t)g.tiles_y;
        for (size_t i = 0; i < tiles; i++)
            g.heat[i] = g.heat[i] * 0.95f + (g.keyframe ? 0.0f : (float)g.mask[i]);
        digest(ev->frame);
        g.have_frame = 1;
    }
    return (int)ev->type;
}

/** Numbers about the stream and the last frame: 0 width, 1 height, 2 T, 3 K,
 *  4 tile, 5 frame number, 6 timestamp (us), 7 CRC-32, 8 keyframe, 9 tiles
 *  sent, 10 tiles in all, 11 decode seconds, 12 pixel format code; where the
 *  page's worker copies the frame from (WebAssembly memory addresses): 13 +
 *  2p plane p's first byte, 14 + 2p its stride (p = 0..2); 19 the luma (8
 *  bits, width x height), 20 the previous frame's luma, 21 the heat map
 *  (float per tile), 22 the change mask (byte per tile); the format: 23
 *  planes, 24 bit depth, 25 bytes per sample, 26 and 27 log2 of the chroma
 *  subsampling (horizontal, vertical), 28 samples per pixel in plane 0, 29
 *  1 for RGB. */
LD_EXPORT double ld_value(int i)
{
    const fovea_frame *f = g.have_frame ? g.ev.frame : NULL;
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(g.fmt);
    if (i >= 13 && i <= 18) {
        const int p = (i - 13) / 2;
        if (!f || !d || p >= d->planes)
            return 0;
        return i % 2 ? (double)(uintptr_t)f->data[p] : (double)f->stride[p];
    }
    if (i >= 23 && i <= 29 && !d)
        return 0;
    switch (i) {
    case 0: return g.width;
    case 1: return g.height;
    case 2: return g.threshold;
    case 3: return g.keyframe_interval;
    case 4: return g.tile;
    case 5: return g.frame;
    case 6: return g.timestamp_us;
    case 7: return (double)g.crc;
    case 8: return g.keyframe;
    case 9: return g.tiles_sent;
    case 10: return g.tiles_total;
    case 11: return g.seconds;
    case 12: return (double)g.fmt;
    case 19: return (double)(uintptr_t)g.luma;
    case 20: return (double)(uintptr_t)g.prev_luma;
    case 21: return (double)(uintptr_t)g.heat;
    case 22: return (double)(uintptr_t)g.mask;
    case 23: return d->planes;
    case 24: return d->bit_depth;
    case 25: return d->bytes_per_sample;
    case 26: return d->log2_chroma_w;
    case 27: return d->log2_chroma_h;
    case 28: return d->components;
    case 29: return d->is_rgb;
    default: return 0;
    }
}

static uint8_t clamp8(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* The views are drawn at every step-th pixel of every step-th row (step 2:
 * a page showing the canvas at half its size or less draws a quarter of the
 * pixels); ow x oh pixels. */
static int out_size(int n, int step)
{
    return (n + step - 1) / step;
}

/* render_video for 8-bit planar YUV (the usual stream), one row at a time
 * without a test per sample: the same arithmetic. */
static void render_video_yuv8(const fovea_frame *f, const fovea_pixfmt_desc *d, int step)
{
    const int ow = out_size(g.width, step), oh = out_size(g.height, step);
    for (int oy = 0; oy < oh; oy++) {
        const int y = oy * step;
        uint8_t *o = g.rgba + (size_t)oy * (size_t)ow * 4;
        const uint8_t *ly = f->data[0] + (ptrdiff_t)y * f->stride[0];
        const int cy = y >> d->log2_chroma_h;
        const uint8_t *pu = f->data[1] + (ptrdiff_t)cy * f->stride[1];
        const uint8_t *pv = f->data[2] + (ptrdiff_t)cy * f->stride[2];
        const int sw = d->log2_chroma_w;
        for (int x = 0; x < g.width; x += step, o += 4) {
            const int c = 298 * (ly[x] - 16), dd = pu[x >> sw] - 128, e = pv[x >> sw] - 128;
            o[0] = clamp8((c + 409 * e + 128) >> 8);
            o[1] = clamp8((c - 100 * dd - 208 * e + 128) >> 8);
            o[2] = clamp8((c + 516 * dd + 128) >> 8);
            o[3] = 255;
        }
    }
}

/* BT.601 limited range, integer: the video view of a YUV frame. */
static void render_video(const fovea_frame *f, int step)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    if (d->is_yuv && d->planes == 3 && d->bytes_per_sample == 1) {
        render_video_yuv8(f, d, step);
        return;
    }
    const int sh = depth_shift(), b = d->bit_depth > 8 ? 2 : 1;
    const int nv12 = f->fmt == FOVEA_PIX_NV12;
    const int rgb = d->is_rgb, gray = d->is_yuv && d->planes == 1;
    const int comps = d->components;
    const int ow = out_size(g.width, step), oh = out_size(g.height, step);
    for (int oy = 0; oy < oh; oy++) {
        const int y = oy * step;
        uint8_t *o = g.rgba + (size_t)oy * (size_t)ow * 4;
        const uint8_t *s0 = f->data[0] + (ptrdiff_t)y * f->stride[0];
        const int cy = y >> d->log2_chroma_h;
        for (int x = 0; x < g.width; x += step, o += 4) {
            o[3] = 255;
            if (rgb) {
                for (int k = 0; k < 3; k++) {
                    const size_t at = ((size_t)x * (size_t)comps + (size_t)k) * (size_t)b;
                    o[k] = b == 2 ? (uint8_t)(s0[at + 1]) : s0[at];
                }
                continue;
            }
            const int yv = g.luma[(size_t)y * (size_t)g.width + (size_t)x];
            if (gray) {
                o[0] = o[1] = o[2] = (uint8_t)yv;
                continue;
            }
            const int cx = x >> d->log2_chroma_w;
            int u, v;
            if (nv12) {
                const uint8_t *uv = f->data[1] + (ptrdiff_t)cy * f->stride[1] + 2 * cx;
                u = uv[0];
                v = uv[1];
            } else if (b == 2) {
                const uint8_t *pu = f->data[1] + (ptrdiff_t)cy * f->stride[1] + 2 * cx;
                const uint8_t *pv = f->data[2] + (ptrdiff_t)cy * f->stride[2] + 2 * cx;
                u = (pu[0] | pu[1] << 8) >> sh;
                v = (pv[0] | pv[1] << 8) >> sh;
            } else {
                u = f->data[1][(ptrdiff_t)cy * f->stride[1] + cx];
                v = f->data[2][(ptrdiff_t)cy * f->stride[2] + cx];
            }
            const int c = 298 * (yv - 16), dd = u - 128, e = v - 128;
            o[0] = clamp8((c + 409 * e + 128) >> 8);
            o[1] = clamp8((c - 100 * dd - 208 * e + 128) >> 8);
            o[2] = clamp8((c + 516 * dd + 128) >> 8);
        }
    }
}

/** Draw a view into an RGBA buffer and return it: ceil(width / step) x
 *  ceil(height / step) pixels, the frame's at every step-th column and row
 *  (step 1 or 2). view: 0 video, 1 heat map over the luma, 2 noise map on
 *  black, 3 noise map over the video, 4 change mask over the video.
 *  heat_norm: 0 scales the heat map by its largest tile, 1 by a fixed ceiling
 *  (a tile changing every frame is full). */
LD_EXPORT uint8_t *ld_render(int view, int heat_norm, int step)
{
    if (!g.have_frame || !g.ev.frame)
        return NULL;
    step = step == 2 ? 2 : 1;
    const int ow = out_size(g.width, step), oh = out_size(g.height, step);
    const size_t px = (size_t)ow * (size_t)oh;
    if (view == VIEW_NOISE) {
        memset(g.rgba, 0, px * 4);
        for (size_t i = 0; i < px; i++)
            g.rgba[4 * i + 3] = 255;
    } else {
        render_video(g.ev.frame, step);
    }
    if (view == VIEW_VIDEO)
        return g.rgba;
    float top = 20.0f; /* 1 / (1 - 0.95): a tile that changes every frame */
    if (view == VIEW_HEAT && heat_norm == 0) {
        top = 1e-6f;
        for (int i = 0; i < g.tiles_x * g.tiles_y; i++)
            top = g.heat[i] > top ? g.heat[i] : top;
    }
    for (int oy = 0; oy < oh; oy++) {
        const int y = oy * step, ty = y / g.tile;
        for (int ox = 0; ox < ow; ox++) {
            const int x = ox * step;
            const size_t i = (size_t)y * (size_t)g.width + (size_t)x;
            const size_t t = (size_t)ty * (size_t)g.tiles_x + (size_t)(x / g.tile);
            uint8_t *o = g.rgba + 4 * ((size_t)oy * (size_t)ow + (size_t)ox);
            if (view == VIEW_HEAT) {
                float h = g.heat[t] / top;
                h = h > 1.0f ? 1.0f : h;
                const int l = g.luma[i] / 2;
                o[0] = clamp8(l + (int)(h * 255.0f));
                o[1] = clamp8(l + (int)((h > 0.5f ? (h - 0.5f) * 2.0f : 0.0f) * 200.0f));
                o[2] = (uint8_t)(l / 2);
            } else if (view == VIEW_NOISE || view == VIEW_NOISE_OVERLAY) {
                const int dv = abs((int)g.luma[i] - (int)g.prev_luma[i]);
                if (dv)
                    o[0] = clamp8(64 + dv * 16), o[1] = o[1] / 2, o[2] = o[2] / 2;
            } else if (view == VIEW_MASK && g.mask[t]) {
                o[0] = (uint8_t)(o[0] / 2);
                o[1] = (uint8_t)(o[1] / 2 + 110);
                o[2] = (uint8_t)(o[2] / 2);
            }
        }
    }
    return g.rgba;
}
