/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Pixel format conversion on the CPU. Every pair of formats goes through one
 * pipeline: source rows -> full-resolution 4:4:4 intermediate (uint16 per sample)
 * -> destination rows, one or two rows at a time, bands of rows across threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fovea/convert.h"

/* Rows per parallel work item. Even, so a 4:2:0 chroma row never straddles bands. */
#define BAND_ROWS 16

/* Fractional bits of the fixed-point matrices. YUV->RGB shifts by YUV2RGB_FRAC plus
 * (depth - 8) so the coefficients stay the same size at every depth; RGB->YUV keeps
 * 14 bits. Both keep every intermediate sum below 2^31 at 16-bit depth with 8-bit RGB.
 * 16-bit RGB (rgb48, rgba64) adds 8 more fractional bits on its side (YUV->RGB48
 * shifts by 8 more, RGB48->YUV keeps 22 bits), so the coefficients keep the same
 * size and relative precision as at 8 bits; those sums are 64-bit. */
#define YUV2RGB_FRAC 13
#define RGB2YUV_FRAC 14

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

void fovea_convert_options_init(fovea_convert_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof(*o));
    o->colorspace = FOVEA_CS_BT601;
    o->range = FOVEA_RANGE_LIMITED;
    o->alpha = 255;
}

enum { MODE_YUV_YUV, MODE_YUV_RGB, MODE_RGB_YUV, MODE_RGB_RGB };

/* The parts of a format the pipeline cares about. Gray is YUV without chroma. */
typedef struct {
    int rgb;   /* packed RGB24 / RGBA / RGB48 / RGBA64 */
    int comps; /* samples per pixel of plane 0 */
    int gray;
    int nv12;
    int depth;
    int bps;    /* bytes per sample */
    int sw, sh; /* log2 chroma subsampling */
} fmt_info;

/* YUV (depth D) -> RGB (8 or 16 bits):
 * channel = clamp((cy*(Y-yo) + c*(C-co) + 2^(sh-1)) >> sh) with the coefficients
 * scaled to the RGB maximum (255 or 65535). */
typedef struct {
    int32_t yo, co;
    int32_t cy, crv, cgu, cgv, cbu;
    int sh;
} yuv2rgb_coef;

/* RGB (8 or 16 bits) -> YUV (depth D):
 * Y = clamp((yr*R + yg*G + yb*B + (yo << F) + 2^(F-1)) >> F), chroma likewise around
 * co, F = frac. Each row of coefficients sums to the exact target (luma: the full
 * luma scale, chroma: zero), so grays map to neutral chroma exactly. */
typedef struct {
    int32_t yr, yg, yb, ur, ug, ub, vr, vg, vb;
    int32_t yo, co, ymax, cmax;
    int frac;
} rgb2yuv_coef;

typedef struct {
    const fovea_frame *src;
    fovea_frame *dst;
    fmt_info s, t;
    int w, h;
    int mode;
    int need_chroma;  /* the intermediate carries U and V */
    int depth_change; /* YUV->YUV with different depths */
    int full;         /* full range */
    uint8_t alpha;
    yuv2rgb_coef y2r;
    rgb2yuv_coef r2y;
    uint16_t *scratch;
    size_t scratch_per_thread; /* uint16 elements */
    int threads;
} convert_job;

static void fmt_info_get(fovea_pixfmt fmt, fmt_info *fi)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    fi->rgb = d->is_rgb;
    fi->comps = d->components;
    fi->gray = d->is_yuv && d->planes == 1;
    fi->nv12 = fmt == FOVEA_PIX_NV12;
    fi->depth = d->bit_depth;
    fi->bps = d->bytes_per_sample;
    fi->sw = d->log2_chroma_w;
    fi->sh = d->log2_chroma_h;
}

/* Nearest integer, halves away from zero (coefficients only; never per pixel). */
static int32_t round_fixed(double v)
{
    return v < 0 ? -(int32_t)(-v + 0.5) : (int32_t)(v + 0.5);
}

static void matrix_kr_kb(fovea_colorspace cs, double *kr, double *kb)
{
    if (cs == FOVEA_CS_BT709) {
        *kr = 0.2126;
        *kb = 0.0722;
    } else {
        *kr = 0.299;
        *kb = 0.114;
    }
}

/* Luma and chroma scales at depth d. Limited range scales the 8-bit levels by
 * 2^(d-8) (16..235, 16..240); full range spans luma 0..2^d-1 and chroma
 * (255 << (d-8)) around 128 << (d-8), matching the bit-depth rules below. */
static void range_scales(int full, int d, double *ys, double *cs, int32_t *yo, int32_t *co)
{
    int k = d - 8;
    *co = 128 << k;
    if (full) {
        *ys = (double)((1 << d) - 1);
        *cs = (double)(255 << k);
        *yo = 0;
    } else {
        *ys = (double)(219 << k);
        *cs = (double)(224 << k);
        *yo = 16 << k;
    }
}

/* d: YUV depth; rgb_depth: 8 or 16. */
static void yuv2rgb_init(yuv2rgb_coef *c, fovea_colorspace cspace, int full, int d, int rgb_depth)
{
    double kr, kb, ys, cs;
    matrix_kr_kb(cspace, &kr, &kb);
    double kg = 1.0 - kr - kb;
    range_scales(full, d, &ys, &cs, &c->yo, &c->co);
    c->sh = YUV2RGB_FRAC + d - 8 + rgb_depth - 8;
    const double one = (double)(1 << c->sh), omax = (double)((1 << rgb_depth) - 1);
    c->cy = round_fixed(omax / ys * one);
    c->crv = round_fixed(omax / cs * 2.0 * (1.0 - kr) * one);
    c->cbu = round_fixed(omax / cs * 2.0 * (1.0 - kb) * one);
    c->cgu = round_fixed(-omax / cs * 2.0 * (1.0 - kb) * kb / kg * one);
    c->cgv = round_fixed(-omax / cs * 2.0 * (1.0 - kr) * kr / kg * one);
}

/* d: YUV depth; rgb_depth: 8 or 16. */
static void rgb2yuv_init(rgb2yuv_coef *c, fovea_colorspace cspace, int full, int d, int rgb_depth)
{
    double kr, kb, ys, cs;
    matrix_kr_kb(cspace, &kr, &kb);
    range_scales(full, d, &ys, &cs, &c->yo, &c->co);
    c->frac = RGB2YUV_FRAC + rgb_depth - 8;
    const double one = (double)(1 << c->frac), imax = (double)((1 << rgb_depth) - 1);
    const double yscale = ys / imax * one, cscale = cs / imax * one;
    c->yr = round_fixed(kr * yscale);
    c->yb = round_fixed(kb * yscale);
    c->yg = round_fixed(yscale) - c->yr - c->yb;
    /* U = (B - Y') / (2 (1 - Kb)), V = (R - Y') / (2 (1 - Kr)) */
    c->ub = round_fixed(0.5 * cscale);
    c->ur = round_fixed(-kr / (2.0 * (1.0 - kb)) * cscale);
    c->ug = -c->ub - c->ur;
    c->vr = round_fixed(0.5 * cscale);
    c->vb = round_fixed(-kb / (2.0 * (1.0 - kr)) * cscale);
    c->vg = -c->vr - c->vb;
    c->ymax = c->cmax = (1 << d) - 1;
}

/* ---------------------------------------------------------------- row helpers */

static inline const uint8_t *src_row(const fovea_frame *f, int p, int y)
{
    return f->data[p] + (ptrdiff_t)y * f->stride[p];
}

static inline uint8_t *dst_row(fovea_frame *f, int p, int y)
{
    return f->data[p] + (ptrdiff_t)y * f->stride[p];
}

/* Samples wider than 8 bits are little-endian in memory whatever the host order. */
static void load_row(const uint8_t *p, int bps, uint16_t *out, int n)
{
    if (bps == 1) {
        for (int x = 0; x < n; x++)
            out[x] = p[x];
    } else {
        for (int x = 0; x < n; x++)
            out[x] = (uint16_t)(p[2 * x] | (p[2 * x + 1] << 8));
    }
}

static void store_row(const uint16_t *in, int bps, uint8_t *p, int n)
{
    if (bps == 1) {
        for (int x = 0; x < n; x++)
            p[x] = (uint8_t)in[x];
    } else {
        for (int x = 0; x < n; x++) {
            p[2 * x] = (uint8_t)(in[x] & 0xff);
            p[2 * x + 1] = (uint8_t)(in[x] >> 8);
        }
    }
}

/* Nearest up-sampling: luma column x takes chroma column x >> 1; for odd widths the
 * last chroma sample covers one column. */
static void load_chroma_row(const uint8_t *p, int bps, int sw, uint16_t *out, int w)
{
    if (!sw) {
        load_row(p, bps, out, w);
        return;
    }
    int pairs = w >> 1;
    if (bps == 1) {
        for (int x = 0; x < pairs; x++)
            out[2 * x] = out[2 * x + 1] = p[x];
        if (w & 1)
            out[w - 1] = p[pairs];
    } else {
        for (int x = 0; x < pairs; x++)
            out[2 * x] = out[2 * x + 1] = (uint16_t)(p[2 * x] | (p[2 * x + 1] << 8));
        if (w & 1)
            out[w - 1] = (uint16_t)(p[2 * pairs] | (p[2 * pairs + 1] << 8));
    }
}

static void load_nv12_chroma_row(const uint8_t *p, uint16_t *u, uint16_t *v, int w)
{
    int pairs = w >> 1;
    for (int x = 0; x < pairs; x++) {
        u[2 * x] = u[2 * x + 1] = p[2 * x];
        v[2 * x] = v[2 * x + 1] = p[2 * x + 1];
    }
    if (w & 1) {
        u[w - 1] = p[2 * pairs];
        v[w - 1] = p[2 * pairs + 1];
    }
}

/* Down-sampling: each output chroma sample is the average of the intermediate samples
 * it covers (r1 NULL = one row), rounded half up: (a+b+c+d+2)>>2, (a+b+1)>>1. At odd
 * edges fewer samples are present and the average is over those. */
static void downsample_chroma(const uint16_t *r0, const uint16_t *r1, int sw, int w, uint16_t *out)
{
    if (!sw) {
        if (r1) {
            for (int x = 0; x < w; x++)
                out[x] = (uint16_t)((r0[x] + r1[x] + 1) >> 1);
        } else {
            memcpy(out, r0, (size_t)w * sizeof(*out));
        }
        return;
    }
    int pairs = w >> 1;
    if (r1) {
        for (int x = 0; x < pairs; x++)
            out[x] =
                (uint16_t)(((uint32_t)r0[2 * x] + r0[2 * x + 1] + r1[2 * x] + r1[2 * x + 1] + 2) >>
                           2);
        if (w & 1)
            out[pairs] = (uint16_t)((r0[w - 1] + r1[w - 1] + 1) >> 1);
    } else {
        for (int x = 0; x < pairs; x++)
            out[x] = (uint16_t)((r0[2 * x] + r0[2 * x + 1] + 1) >> 1);
        if (w & 1)
            out[pairs] = r0[w - 1];
    }
}

/* Bit-depth changes, in place.
 * Limited range (and chroma at any range): code values scale by 2^k as the video
 * standards define, so 16/128/235 map to 64/512/940 at 10 bits: up = v << k,
 * down = min((v + 2^(k-1)) >> k, max), which inverts up exactly.
 * Full-range luma/gray: the maximum maps to the maximum. Up replicates the top bits
 * into the new low bits, (v << k) | (v >> (s - k)) (k <= s always holds here);
 * down = (v * (2^t - 1) + 2^(s-1)) >> s, a rounded scale by (2^t-1)/2^s, which
 * inverts the replication exactly for every depth pair (see the test). */
static void change_depth(uint16_t *v, int n, int from, int to, int replicate)
{
    if (from == to)
        return;
    if (to > from) {
        int k = to - from;
        if (replicate) {
            int r = from - k;
            for (int x = 0; x < n; x++)
                v[x] = (uint16_t)((v[x] << k) | (v[x] >> r));
        } else {
            for (int x = 0; x < n; x++)
                v[x] = (uint16_t)(v[x] << k);
        }
    } else {
        int k = from - to;
        if (replicate) {
            uint32_t mul = (1u << to) - 1, half = 1u << (from - 1);
            for (int x = 0; x < n; x++)
                v[x] = (uint16_t)((v[x] * mul + half) >> from);
        } else {
            uint32_t half = 1u << (k - 1), maxv = (1u << to) - 1;
            for (int x = 0; x < n; x++) {
                uint32_t t = ((uint32_t)v[x] + half) >> k;
                v[x] = (uint16_t)(t < maxv ? t : maxv);
            }
        }
    }
}

static inline int32_t clamp_i32(int32_t v, int32_t lo, int32_t hi)
{
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

static ALWAYS_INLINE void yuv_to_rgb_row_n(const yuv2rgb_coef *c, const uint16_t *y,
                                           const uint16_t *u, const uint16_t *v, uint8_t *out,
                                           int w, int comps, uint8_t alpha)
{
    const int sh = c->sh;
    const int32_t half = 1 << (sh - 1), hi = (256 << sh) - 1;
    const int32_t yo = c->yo, co = c->co, cy = c->cy, crv = c->crv, cgu = c->cgu, cgv = c->cgv,
                  cbu = c->cbu;
    for (int x = 0; x < w; x++) {
        int32_t yy = cy * ((int32_t)y[x] - yo) + half;
        int32_t uu = (int32_t)u[x] - co, vv = (int32_t)v[x] - co;
        int32_t r = clamp_i32(yy + crv * vv, 0, hi);
        int32_t g = clamp_i32(yy + cgu * uu + cgv * vv, 0, hi);
        int32_t b = clamp_i32(yy + cbu * uu, 0, hi);
        out[comps * x] = (uint8_t)(r >> sh);
        out[comps * x + 1] = (uint8_t)(g >> sh);
        out[comps * x + 2] = (uint8_t)(b >> sh);
        if (comps == 4)
            out[comps * x + 3] = alpha;
    }
}

static inline int64_t clamp_i64(int64_t v, int64_t lo, int64_t hi)
{
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

static inline void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v & 0xff);
    p[1] = (uint8_t)(v >> 8);
}

static inline uint32_t get16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

/* The same arithmetic to 16-bit RGB (coefficients from yuv2rgb_init(.., 16)), 64-bit sums. */
static void yuv_to_rgb16_row(const yuv2rgb_coef *c, const uint16_t *y, const uint16_t *u,
                             const uint16_t *v, uint8_t *out, int w, int comps, uint16_t alpha)
{
    const int sh = c->sh;
    const int64_t half = (int64_t)1 << (sh - 1), hi = ((int64_t)65536 << sh) - 1;
    for (int x = 0; x < w; x++) {
        int64_t yy = (int64_t)c->cy * ((int32_t)y[x] - c->yo) + half;
        int64_t uu = (int32_t)u[x] - c->co, vv = (int32_t)v[x] - c->co;
        int64_t r = clamp_i64(yy + c->crv * vv, 0, hi);
        int64_t g = clamp_i64(yy + c->cgu * uu + c->cgv * vv, 0, hi);
        int64_t b = clamp_i64(yy + c->cbu * uu, 0, hi);
        uint8_t *o = out + (size_t)2 * (size_t)comps * (size_t)x;
        put16(o, (uint32_t)(r >> sh));
        put16(o + 2, (uint32_t)(g >> sh));
        put16(o + 4, (uint32_t)(b >> sh));
        if (comps == 4)
            put16(o + 6, alpha);
    }
}

static void yuv_to_rgb_row(const yuv2rgb_coef *c, const uint16_t *y, const uint16_t *u,
                           const uint16_t *v, uint8_t *out, int w, int comps, int bps,
                           uint8_t alpha)
{
    if (bps == 2)
        yuv_to_rgb16_row(c, y, u, v, out, w, comps, (uint16_t)(alpha * 257u));
    else if (comps == 4)
        yuv_to_rgb_row_n(c, y, u, v, out, w, 4, alpha);
    else
        yuv_to_rgb_row_n(c, y, u, v, out, w, 3, alpha);
}

static ALWAYS_INLINE void rgb_to_yuv_row_n(const rgb2yuv_coef *c, const uint8_t *in, uint16_t *y,
                                           uint16_t *u, uint16_t *v, int w, int comps)
{
    const int32_t half = 1 << (RGB2YUV_FRAC - 1);
    const int32_t yoff = (c->yo << RGB2YUV_FRAC) + half, coff = (c->co << RGB2YUV_FRAC) + half;
    const int32_t yhi = ((c->ymax + 1) << RGB2YUV_FRAC) - 1;
    const int32_t chi = ((c->cmax + 1) << RGB2YUV_FRAC) - 1;
    for (int x = 0; x < w; x++) {
        int32_t r = in[comps * x], g = in[comps * x + 1], b = in[comps * x + 2];
        int32_t yy = clamp_i32(c->yr * r + c->yg * g + c->yb * b + yoff, 0, yhi);
        int32_t uu = clamp_i32(c->ur * r + c->ug * g + c->ub * b + coff, 0, chi);
        int32_t vv = clamp_i32(c->vr * r + c->vg * g + c->vb * b + coff, 0, chi);
        y[x] = (uint16_t)(yy >> RGB2YUV_FRAC);
        u[x] = (uint16_t)(uu >> RGB2YUV_FRAC);
        v[x] = (uint16_t)(vv >> RGB2YUV_FRAC);
    }
}

/* The same arithmetic from 16-bit RGB (coefficients from rgb2yuv_init(.., 16)). */
static void rgb16_to_yuv_row(const rgb2yuv_coef *c, const uint8_t *in, uint16_t *y, uint16_t *u,
                             uint16_t *v, int w, int comps)
{
    const int f = c->frac;
    const int64_t half = (int64_t)1 << (f - 1);
    const int64_t yoff = ((int64_t)c->yo << f) + half, coff = ((int64_t)c->co << f) + half;
    const int64_t yhi = ((int64_t)(c->ymax + 1) << f) - 1;
    const int64_t chi = ((int64_t)(c->cmax + 1) << f) - 1;
    for (int x = 0; x < w; x++) {
        const uint8_t *p = in + (size_t)2 * (size_t)comps * (size_t)x;
        int64_t r = get16(p), g = get16(p + 2), b = get16(p + 4);
        int64_t yy = clamp_i64(c->yr * r + c->yg * g + c->yb * b + yoff, 0, yhi);
        int64_t uu = clamp_i64(c->ur * r + c->ug * g + c->ub * b + coff, 0, chi);
        int64_t vv = clamp_i64(c->vr * r + c->vg * g + c->vb * b + coff, 0, chi);
        y[x] = (uint16_t)(yy >> f);
        u[x] = (uint16_t)(uu >> f);
        v[x] = (uint16_t)(vv >> f);
    }
}

static void rgb_to_yuv_row(const rgb2yuv_coef *c, const uint8_t *in, uint16_t *y, uint16_t *u,
                           uint16_t *v, int w, int comps, int bps)
{
    if (bps == 2)
        rgb16_to_yuv_row(c, in, y, u, v, w, comps);
    else if (comps == 4)
        rgb_to_yuv_row_n(c, in, y, u, v, w, 4);
    else
        rgb_to_yuv_row_n(c, in, y, u, v, w, 3);
}

/* RGB depth changes: up 8 -> 16 is v * 257 (exact: 255 -> 65535, and every 8-bit
 * value comes back unchanged); down 16 -> 8 is (v * 255 + 32767) / 65535, which
 * equals round(v / 257) (ties cannot occur) and inverts the way up. */
static inline uint32_t rgb_up16(uint32_t v)
{
    return v * 257u;
}

static inline uint32_t rgb_down8(uint32_t v)
{
    return (v * 255u + 32767u) / 65535u;
}

/* RGB <-> RGB where a side is 16-bit: channels rescaled as above; alpha carried
 * (rescaled) when both sides have it, else out_alpha (8-bit, rescaled for 16-bit). */
static void rgb_to_rgb_row_depth(const uint8_t *in, int in_comps, int in_bps, uint8_t *out,
                                 int out_comps, int out_bps, uint8_t out_alpha, int w)
{
    const int nc = in_comps == 4 && out_comps == 4 ? 4 : 3;
    for (int x = 0; x < w; x++) {
        const uint8_t *p = in + (size_t)in_comps * (size_t)in_bps * (size_t)x;
        uint8_t *o = out + (size_t)out_comps * (size_t)out_bps * (size_t)x;
        for (int c = 0; c < nc; c++) {
            uint32_t v = in_bps == 2 ? get16(p + 2 * c) : p[c];
            if (out_bps == 2)
                put16(o + 2 * c, in_bps == 2 ? v : rgb_up16(v));
            else
                o[c] = (uint8_t)(in_bps == 2 ? rgb_down8(v) : v);
        }
        if (out_comps == 4 && nc == 3) {
            if (out_bps == 2)
                put16(o + 6, rgb_up16(out_alpha));
            else
                o[3] = out_alpha;
        }
    }
}

static void rgb_to_rgb_row(const uint8_t *in, int in_comps, int in_bps, uint8_t *out, int out_comps,
                           int out_bps, uint8_t alpha, int w)
{
    if (in_bps != 1 || out_bps != 1) {
        rgb_to_rgb_row_depth(in, in_comps, in_bps, out, out_comps, out_bps, alpha, w);
    } else if (in_comps == out_comps) {
        memcpy(out, in, (size_t)w * (size_t)in_comps);
    } else if (out_comps == 4) {
        for (int x = 0; x < w; x++) {
            out[4 * x] = in[3 * x];
            out[4 * x + 1] = in[3 * x + 1];
            out[4 * x + 2] = in[3 * x + 2];
            out[4 * x + 3] = alpha;
        }
    } else {
        for (int x = 0; x < w; x++) {
            out[3 * x] = in[4 * x];
            out[3 * x + 1] = in[4 * x + 1];
            out[3 * x + 2] = in[4 * x + 2];
        }
    }
}

/* ---------------------------------------------------------------- pipeline */

/* Fill the intermediate row of frame row y: Y/U/V at the source depth (YUV source)
 * or at the destination depth (RGB source, through the matrix). */
static void load_intermediate(const convert_job *j, int y, uint16_t *yr, uint16_t *ur, uint16_t *vr)
{
    const fovea_frame *f = j->src;
    const fmt_info *s = &j->s;
    int w = j->w;
    if (s->rgb) {
        rgb_to_yuv_row(&j->r2y, src_row(f, 0, y), yr, ur, vr, w, s->comps, s->bps);
        return;
    }
    load_row(src_row(f, 0, y), s->bps, yr, w);
    if (!j->need_chroma)
        return;
    if (s->gray) {
        uint16_t neutral = (uint16_t)(128 << (s->depth - 8));
        for (int x = 0; x < w; x++)
            ur[x] = vr[x] = neutral;
    } else if (s->nv12) {
        load_nv12_chroma_row(src_row(f, 1, y >> 1), ur, vr, w);
    } else {
        int cy = y >> s->sh;
        load_chroma_row(src_row(f, 1, cy), s->bps, s->sw, ur, w);
        load_chroma_row(src_row(f, 2, cy), s->bps, s->sw, vr, w);
    }
}

/* Write chroma rows of the destination from n intermediate rows starting at frame row y. */
static void store_chroma(const convert_job *j, int y, int n, uint16_t *const *ur,
                         uint16_t *const *vr, uint16_t *tu, uint16_t *tv)
{
    fovea_frame *f = j->dst;
    const fmt_info *t = &j->t;
    int w = j->w, cw = (w + (1 << t->sw) - 1) >> t->sw;
    int groups = t->sh ? 1 : n; /* 4:2:0 consumes both rows in one chroma row */
    for (int g = 0; g < groups; g++) {
        const uint16_t *u1 = t->sh && n == 2 ? ur[1] : NULL;
        const uint16_t *v1 = t->sh && n == 2 ? vr[1] : NULL;
        int cy = t->sh ? y >> 1 : y + g;
        downsample_chroma(ur[g], u1, t->sw, w, tu);
        downsample_chroma(vr[g], v1, t->sw, w, tv);
        if (t->nv12) {
            uint8_t *p = dst_row(f, 1, cy);
            for (int x = 0; x < cw; x++) {
                p[2 * x] = (uint8_t)tu[x];
                p[2 * x + 1] = (uint8_t)tv[x];
            }
        } else {
            store_row(tu, t->bps, dst_row(f, 1, cy), cw);
            store_row(tv, t->bps, dst_row(f, 2, cy), cw);
        }
    }
}

/* Convert frame rows y .. y+n-1 (n = 1 or 2; y even). */
static void convert_rows(const convert_job *j, int y, int n, uint16_t *scratch)
{
    const size_t w = (size_t)j->w;
    uint16_t *yr[2] = {scratch, scratch + w};
    uint16_t *ur[2] = {scratch + 2 * w, scratch + 3 * w};
    uint16_t *vr[2] = {scratch + 4 * w, scratch + 5 * w};
    uint16_t *tu = scratch + 6 * w, *tv = scratch + 7 * w;

    for (int r = 0; r < n; r++)
        load_intermediate(j, y + r, yr[r], ur[r], vr[r]);

    if (j->depth_change) {
        for (int r = 0; r < n; r++) {
            change_depth(yr[r], j->w, j->s.depth, j->t.depth, j->full);
            if (j->need_chroma) {
                change_depth(ur[r], j->w, j->s.depth, j->t.depth, 0);
                change_depth(vr[r], j->w, j->s.depth, j->t.depth, 0);
            }
        }
    }

    if (j->t.rgb) {
        for (int r = 0; r < n; r++)
            yuv_to_rgb_row(&j->y2r, yr[r], ur[r], vr[r], dst_row(j->dst, 0, y + r), j->w,
                           j->t.comps, j->t.bps, j->alpha);
        return;
    }
    for (int r = 0; r < n; r++)
        store_row(yr[r], j->t.bps, dst_row(j->dst, 0, y + r), j->w);
    if (!j->t.gray)
        store_chroma(j, y, n, ur, vr, tu, tv);
}

static void convert_band(void *arg, int begin, int end, int thread)
{
    const convert_job *j = arg;
    uint16_t *scratch = NULL;
    if (j->mode != MODE_RGB_RGB) {
        if (thread < 0 || thread >= j->threads)
            return; /* cannot happen: the pool has threads workers */
        scratch = j->scratch + (size_t)thread * j->scratch_per_thread;
    }
    for (int band = begin; band < end; band++) {
        int y0 = band * BAND_ROWS;
        int y1 = y0 + BAND_ROWS < j->h ? y0 + BAND_ROWS : j->h;
        if (j->mode == MODE_RGB_RGB) {
            for (int y = y0; y < y1; y++)
                rgb_to_rgb_row(src_row(j->src, 0, y), j->s.comps, j->s.bps, dst_row(j->dst, 0, y),
                               j->t.comps, j->t.bps, j->alpha, j->w);
            continue;
        }
        for (int y = y0; y < y1; y += 2)
            convert_rows(j, y, y + 1 < y1 ? 2 : 1, scratch);
    }
}

static int check_frame(fovea_context *ctx, const fovea_frame *f, const char *what)
{
    const fovea_pixfmt_desc *d = f ? fovea_pixfmt_get_desc(f->fmt) : NULL;
    if (!d)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "convert: %s frame missing or of "
                            "invalid format",
                            what);
    if (f->mem != FOVEA_MEM_HOST && f->mem != FOVEA_MEM_PINNED)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "convert: %s frame is not in host memory",
                            what);
    if (f->width <= 0 || f->height <= 0 || f->width > FOVEA_MAX_DIM || f->height > FOVEA_MAX_DIM)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "convert: %s frame size %dx%d", what,
                            f->width, f->height);
    for (int p = 0; p < d->planes; p++)
        if (!f->data[p])
            return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                                "convert: %s frame plane %d has no pixels", what, p);
    char name[48];
    snprintf(name, sizeof(name), "convert: %s frame", what);
    return fv_frame_check(ctx, f, name);
}

int fovea_frame_convert(fovea_context *ctx, fovea_frame *dst, const fovea_frame *src,
                        const fovea_convert_options *opt)
{
    int st = check_frame(ctx, src, "source");
    if (st < 0)
        return st;
    if ((st = check_frame(ctx, dst, "destination")) < 0)
        return st;
    if (src->width != dst->width || src->height != dst->height)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH, "convert: size %dx%d vs %dx%d", src->width,
                            src->height, dst->width, dst->height);
    fovea_convert_options defaults;
    if (!opt) {
        fovea_convert_options_init(&defaults);
        opt = &defaults;
    }
    if ((opt->colorspace != FOVEA_CS_BT601 && opt->colorspace != FOVEA_CS_BT709) ||
        (opt->range != FOVEA_RANGE_LIMITED && opt->range != FOVEA_RANGE_FULL))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "convert: invalid options");

    if (src->fmt == dst->fmt) {
        if (src != dst)
            st = fovea_frame_copy(ctx, dst, src);
        dst->index = src->index;
        return st;
    }

    convert_job j;
    memset(&j, 0, sizeof(j));
    j.src = src;
    j.dst = dst;
    j.w = src->width;
    j.h = src->height;
    j.full = opt->range == FOVEA_RANGE_FULL;
    j.alpha = opt->alpha;
    fmt_info_get(src->fmt, &j.s);
    fmt_info_get(dst->fmt, &j.t);
    if (j.s.rgb && j.t.rgb) {
        j.mode = MODE_RGB_RGB;
    } else if (j.s.rgb) {
        j.mode = MODE_RGB_YUV;
        j.need_chroma = 1;
        rgb2yuv_init(&j.r2y, opt->colorspace, j.full, j.t.depth, j.s.depth);
    } else if (j.t.rgb) {
        j.mode = MODE_YUV_RGB;
        j.need_chroma = 1;
        yuv2rgb_init(&j.y2r, opt->colorspace, j.full, j.s.depth, j.t.depth);
    } else {
        j.mode = MODE_YUV_YUV;
        j.need_chroma = !j.t.gray;
        j.depth_change = j.s.depth != j.t.depth;
    }

    j.threads = ctx ? fovea_context_threads(ctx) : 1;
    if (j.threads < 1)
        j.threads = 1;
    if (j.mode != MODE_RGB_RGB) {
        /* per thread: Y, U, V for two rows, and two down-sampled chroma rows */
        size_t total;
        j.scratch_per_thread = 8 * (size_t)j.w;
        if (!fv_mul_size(j.scratch_per_thread, (size_t)j.threads, &total) ||
            !fv_mul_size(total, sizeof(uint16_t), &total))
            return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "convert: scratch size overflow");
        j.scratch = malloc(total);
        if (!j.scratch)
            return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "convert: cannot allocate %zu bytes", total);
    }
    int nbands = (j.h + BAND_ROWS - 1) / BAND_ROWS;
    fv_parallel_for(ctx, nbands, 1, convert_band, &j);
    free(j.scratch);
    dst->index = src->index;
    return FOVEA_OK;
}
