/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CAMBI's C reference (cambi.h): libvmaf 3.2.0's plain-C arithmetic. A
 * picture is brought to the encode's size and to 10 bits (nearest sample,
 * anti-dithering below 10 encode bits); a spatial mask keeps the flat
 * regions; then at five scales (each decimated by two, filtered by a 3x3
 * mode) every masked pixel gets a contrast value from the histogram of its
 * window, and the top-k mean of those values, weighted per scale, is the
 * score. Integer arithmetic except: the scaling positions (float, summed
 * column by column as libvmaf does), the contrast values (float), the
 * pooling (a double sum of floats in the order libvmaf's quick select leaves
 * them) and the luminance tables (double, at open). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "quality/cambi.h"
#include "quality/cambi_pixel.h"

/* the 7x7 window of the flat-region mask */
#define MASK_PAD 3
/* the 10-bit limited range the luminance tables use */
#define LUMA_FOOT 64
#define LUMA_HEAD 940

static const int scale_weight[CAMBI_SCALES] = {16, 8, 4, 2, 1};
/* contrast weight of a difference of d + 1 levels */
const int cambi_contrast_weight[CAMBI_MAX_DIFFS] = {1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8,
                                                    8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};

typedef struct cambi_state {
    cambi_params p;
    cambi_plan pl;
    double topk;
    int alloc_w, alloc_h;
    uint16_t *image, *mask; /* alloc_w x alloc_h, row pitch alloc_w */
    float *c_values;
    uint16_t *hist;     /* band_size rows of alloc_w counters */
    uint16_t *rows;     /* 3 rows of the mode filter */
    uint32_t *cols;     /* column sums of the mask's window */
    int *pos_x, *pos_y; /* the scaling's positions (alloc_w, alloc_h) */
} cambi_state;

/* ---------------------------------------------------------------- luminance */

static double eotf_bt1886(double v)
{
    const double lw = pow(300.0, 1.0 / 2.4), lb = pow(0.01, 1.0 / 2.4);
    const double a = pow(lw - lb, 2.4);
    const double b = lb / (lw - lb);
    const double x = v + b;
    return a * pow(x > 0 ? x : 0, 2.4);
}

static double eotf_pq(double v)
{
    const double m1 = 0.1593017578125, m2 = 78.84375;
    const double c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875;
    const double num = pow(v, 1.0 / m2) - c1;
    const double den = c2 - c3 * pow(v, 1.0 / m2);
    return 10000 * pow((num > 0 ? num : 0) / den, 1.0 / m1);
}

/* The luminance of a 10-bit limited-range sample. */
static double luminance(int sample, int pq)
{
    const int s = sample < LUMA_FOOT ? LUMA_FOOT : sample > LUMA_HEAD ? LUMA_HEAD : sample;
    const double v = (double)(s - LUMA_FOOT) / (LUMA_HEAD - LUMA_FOOT);
    return pq ? eotf_pq(v) : eotf_bt1886(v);
}

/* Is a step of diff levels above sample visible? */
static int visible(int sample, int diff, double tvi, int pq)
{
    const double mean = luminance(sample, pq);
    return luminance(sample + diff, pq) - mean > tvi * mean;
}

/* -1: the step is visible at sample + 1 too (the threshold is above); 1: not
 * visible at sample (below); 0: sample is the last visible one. */
static int tvi_side(int sample, int diff, double tvi, int pq)
{
    if (!visible(sample, diff, tvi, pq))
        return 1;
    return visible(sample + 1, diff, tvi, pq) ? -1 : 0;
}

/* The largest sample where a step of diff levels is visible, by bisection
 * over the limited range (libvmaf's search, same probes). */
static int tvi_for_diff(int diff, double tvi, int pq)
{
    int lo = LUMA_FOOT, hi = LUMA_HEAD - diff - 1;
    int side = tvi_side(lo, diff, tvi, pq);
    if (side > 0)
        return 0;
    if (side == 0)
        return lo;
    side = tvi_side(hi, diff, tvi, pq);
    if (side < 0)
        return 1023;
    if (side == 0)
        return hi;
    for (;;) {
        const int mid = lo + (hi - lo) / 2;
        side = tvi_side(mid, diff, tvi, pq);
        if (side == 0)
            return mid;
        if (side > 0)
            hi = mid;
        else
            lo = mid;
    }
}

/* ---------------------------------------------------------------- open */

/* libvmaf's window for a size: 65 is about one degree at 4K. */
static int window_for(int window, int w, int h, int speedup)
{
    unsigned ws = ((unsigned)window * (unsigned)(w + h) / 375u) >> 4;
    ws &= 0xffffu;
    if (speedup)
        ws = (ws + 1) >> 1;
    return (int)(ws | 1u);
}

/* The width and height of scale s of a w x h picture. */
void cambi_scale_size(int w, int h, int speedup, int s, int *sw, int *sh)
{
    for (int k = 0; k <= s; k++) {
        if (k > 0 || speedup) {
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
        }
    }
    *sw = w;
    *sh = h;
}

/* Refuse a size where libvmaf's histogram reads outside the picture. */
static int check_scales(fovea_context *ctx, const char *what, int w, int h, int speedup, int window)
{
    const int pad = window >> 1;
    for (int s = 0; s < CAMBI_SCALES; s++) {
        int sw, sh;
        cambi_scale_size(w, h, speedup, s, &sw, &sh);
        if (sw < pad || sh < pad)
            return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                                "cambi: the %s %dx%d is too narrow for its %d-sample window "
                                "(scale %d is %dx%d; libvmaf reads outside the picture there)",
                                what, w, h, window, s, sw, sh);
    }
    return FOVEA_OK;
}

static int resolve(cambi_plan *st, fovea_context *ctx, const cambi_params *p)
{
    st->enc_bd = p->enc_bitdepth ? p->enc_bitdepth : p->bpc;
    st->enc_w = p->enc_width;
    st->enc_h = p->enc_height;
    if (!st->enc_w || !st->enc_h || st->enc_w > p->width || st->enc_h > p->height) {
        /* an encode larger than the input is not upscaled back */
        st->enc_w = p->width;
        st->enc_h = p->height;
    }
    st->src_w = p->src_width;
    st->src_h = p->src_height;
    if (!st->src_w || !st->src_h) {
        st->src_w = p->width;
        st->src_h = p->height;
    }
    if (st->enc_w < CAMBI_MIN_DIM && st->enc_h < CAMBI_MIN_DIM)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "cambi: the encode %dx%d is too small (libvmaf needs a width or "
                            "height of at least %d)",
                            st->enc_w, st->enc_h, CAMBI_MIN_DIM);
    if (st->src_w < CAMBI_MIN_DIM && st->src_h < CAMBI_MIN_DIM)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "cambi: the source %dx%d is too small (libvmaf needs a width or "
                            "height of at least %d)",
                            st->src_w, st->src_h, CAMBI_MIN_DIM);
    if ((st->src_w > st->enc_w && st->src_h < st->enc_h) ||
        (st->src_w < st->enc_w && st->src_h > st->enc_h))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "cambi: the source %dx%d and the encode %dx%d are not ordered in "
                            "both dimensions (libvmaf refuses them)",
                            st->src_w, st->src_h, st->enc_w, st->enc_h);
    const long long enc_pix = (long long)st->enc_w * st->enc_h;
    st->speedup = (p->high_res_speedup == 1080 && enc_pix >= 1920 * 1080) ||
                  (p->high_res_speedup == 1440 && enc_pix >= 2560 * 1440) ||
                  (p->high_res_speedup == 2160 && enc_pix >= 3840 * 2160);
    st->window = window_for(p->window_size, st->enc_w, st->enc_h, st->speedup);
    st->src_window = window_for(p->window_size, st->src_w, st->src_h, st->speedup);
    const int wmax = st->window > st->src_window ? st->window : st->src_window;
    if (wmax * wmax >= CAMBI_RECIP_SIZE)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "cambi: the window %d (window_size %d at this size) is larger than "
                            "libvmaf's table allows (%dx%d samples at most)",
                            wmax, p->window_size, 65, 65);
    FOVEA_TRY(check_scales(ctx, "encode", st->enc_w, st->enc_h, st->speedup, st->window));
    if (p->full_ref)
        FOVEA_TRY(check_scales(ctx, "source", st->src_w, st->src_h, st->speedup, st->src_window));
    return FOVEA_OK;
}

static int make_tables(cambi_plan *st, fovea_context *ctx, const cambi_params *p)
{
    st->num_diffs = 1 << p->max_log_contrast;
    for (int d = 0; d < st->num_diffs; d++)
        st->tvi[d] = (uint16_t)(tvi_for_diff(d + 1, p->tvi_threshold, p->pq) + st->num_diffs);
    /* the first sample at or above the visibility threshold (0: the foot) */
    int s = LUMA_FOOT;
    while (luminance(s, p->pq) < p->vis_lum_threshold) {
        if (s > LUMA_HEAD)
            return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                                "cambi: cambi_vis_lum_threshold %g is above the EOTF's peak "
                                "(libvmaf never returns there)",
                                p->vis_lum_threshold);
        s++;
    }
    st->vlt_luma = (uint16_t)(s == LUMA_FOOT ? 0 : s);
    const int lo = (int)st->vlt_luma - 3 * st->num_diffs + 1;
    st->band_base = (uint16_t)(lo > 0 ? lo : 0);
    st->band_size = (uint16_t)(st->tvi[st->num_diffs - 1] + 1 - st->band_base);
    /* libvmaf's table holds 1/i printed to 9 digits, read back as floats */
    st->recip[0] = 0.0f;
    for (int i = 1; i < CAMBI_RECIP_SIZE; i++) {
        char buf[40];
        snprintf(buf, sizeof buf, "%.9g", 1.0 / i);
        st->recip[i] = strtof(buf, NULL);
    }
    return FOVEA_OK;
}

int cambi_plan_make(cambi_plan *pl, fovea_context *ctx, const cambi_params *p)
{
    memset(pl, 0, sizeof(*pl));
    FOVEA_TRY(resolve(pl, ctx, p));
    return make_tables(pl, ctx, p);
}

void cambi_ref_close(void **priv)
{
    cambi_state *st = priv ? *priv : NULL;
    if (!st)
        return;
    free(st->image);
    free(st->mask);
    free(st->c_values);
    free(st->hist);
    free(st->rows);
    free(st->cols);
    free(st->pos_x);
    free(st->pos_y);
    free(st);
    *priv = NULL;
}

int cambi_ref_open(void **priv, fovea_context *ctx, const cambi_params *p)
{
    *priv = NULL;
    cambi_state *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cambi: out of memory");
    st->p = *p;
    st->topk = p->topk;
    const int rc = cambi_plan_make(&st->pl, ctx, p);
    if (rc < 0) {
        cambi_ref_close((void **)&st);
        return rc;
    }
    const cambi_plan *pl = &st->pl;
    st->alloc_w = pl->enc_w;
    st->alloc_h = pl->enc_h;
    if (p->full_ref) {
        st->alloc_w = pl->src_w > st->alloc_w ? pl->src_w : st->alloc_w;
        st->alloc_h = pl->src_h > st->alloc_h ? pl->src_h : st->alloc_h;
    }
    const size_t w = (size_t)st->alloc_w, px = w * (size_t)st->alloc_h;
    st->image = malloc(px * sizeof(*st->image));
    st->mask = malloc(px * sizeof(*st->mask));
    st->c_values = malloc(px * sizeof(*st->c_values));
    st->hist = malloc(w * pl->band_size * sizeof(*st->hist));
    st->rows = malloc(3 * w * sizeof(*st->rows));
    st->cols = malloc(w * sizeof(*st->cols));
    st->pos_x = malloc(w * sizeof(*st->pos_x));
    st->pos_y = malloc((size_t)st->alloc_h * sizeof(*st->pos_y));
    if (!st->image || !st->mask || !st->c_values || !st->hist || !st->rows || !st->cols ||
        !st->pos_x || !st->pos_y) {
        cambi_ref_close((void **)&st);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cambi: out of memory");
    }
    *priv = st;
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- preprocessing */

static unsigned sample_at(const uint8_t *plane, ptrdiff_t stride, int bpc, int x, int y)
{
    const uint8_t *row = plane + (ptrdiff_t)y * stride;
    if (bpc == 8)
        return row[x];
    return (unsigned)row[2 * x] | (unsigned)row[2 * x + 1] << 8;
}

/* The input's samples as 10 bits (8: shifted up; 12, 16: rounded down). */
static uint16_t to_10b(unsigned v, int bpc)
{
    if (bpc <= 10)
        return (uint16_t)(v << (10 - bpc));
    const int sh = bpc - 10;
    return (uint16_t)((v + (1u << (sh - 1))) >> sh);
}

static int validate(fovea_context *ctx, const uint8_t *plane, ptrdiff_t stride, int w, int h,
                    int bpc)
{
    if (bpc == 8 || bpc == 16)
        return FOVEA_OK;
    const unsigned max = (1u << bpc) - 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (sample_at(plane, stride, bpc, x, y) > max)
                return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                                    "cambi: a luma sample is above %u, the maximum of %d bits", max,
                                    bpc);
    return FOVEA_OK;
}

void cambi_positions(int in, int out, int *pos)
{
    /* the same size gives the identity (steps of exactly 1 from 0) */
    const float r = (float)in / (float)out;
    float f = (float)(r / 2 - 0.5);
    for (int i = 0; i < out; i++) {
        pos[i] = (int)(f + 0.5);
        f += r;
    }
}

/* The input scaled to ow x oh by nearest sample, positions as libvmaf's
 * float steps, in 10 bits; anti-dithered (2x2 mean) below 10 encode bits. */
static void preprocess(cambi_state *st, const uint8_t *plane, ptrdiff_t stride, int ow, int oh)
{
    const int iw = st->p.width, ih = st->p.height, bpc = st->p.bpc;
    const int pitch = st->alloc_w;
    uint16_t *out = st->image;
    cambi_positions(iw, ow, st->pos_x);
    cambi_positions(ih, oh, st->pos_y);
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++)
            out[y * pitch + x] =
                to_10b(sample_at(plane, stride, bpc, st->pos_x[x], st->pos_y[y]), bpc);
    if (st->pl.enc_bd >= 10)
        return;
    /* in place, reading only samples not yet written */
    for (int y = 0; y < oh - 1; y++) {
        uint16_t *r = out + y * pitch, *n = r + pitch;
        for (int x = 0; x < ow - 1; x++)
            r[x] = (uint16_t)((r[x] + r[x + 1] + n[x] + n[x + 1]) >> 2);
        r[ow - 1] = (uint16_t)((r[ow - 1] + n[ow - 1]) >> 1);
    }
    uint16_t *last = out + (oh - 1) * pitch;
    for (int x = 0; x < ow - 1; x++)
        last[x] = (uint16_t)((last[x] + last[x + 1]) >> 1);
}

/* ---------------------------------------------------------------- mask */

static int ceil_log2(uint32_t n)
{
    int s = 0;
    if (n == 0)
        return 0;
    for (uint32_t t = n - 1; t > 0; t >>= 1)
        s++;
    return s;
}

/* 1 where the sample equals its right and lower neighbors (the last column
 * and row count as equal). */
static uint32_t flat_at(const uint16_t *img, int pitch, int w, int h, int x, int y)
{
    const uint16_t *p = img + y * pitch + x;
    return (x == w - 1 || p[0] == p[1]) && (y == h - 1 || p[0] == p[pitch]);
}

/* mask = 1 where the 7x7 window (clipped to the picture) holds more flat
 * samples than libvmaf's threshold for the size. */
uint32_t cambi_mask_threshold(int w, int h)
{
    const uint32_t shifted = (uint32_t)(w >> 6) * (uint32_t)(h >> 6);
    return (uint32_t)((49 + 3 * (ceil_log2(shifted) - 11) - 1) >> 1);
}

static void spatial_mask(cambi_state *st, int w, int h)
{
    const int pitch = st->alloc_w;
    const uint32_t threshold = cambi_mask_threshold(w, h);
    uint32_t *cols = st->cols;
    memset(cols, 0, (size_t)w * sizeof(*cols));
    for (int y = 0; y < MASK_PAD && y < h; y++)
        for (int x = 0; x < w; x++)
            cols[x] += flat_at(st->image, pitch, w, h, x, y);
    for (int y = 0; y < h; y++) {
        if (y + MASK_PAD < h)
            for (int x = 0; x < w; x++)
                cols[x] += flat_at(st->image, pitch, w, h, x, y + MASK_PAD);
        if (y - MASK_PAD - 1 >= 0)
            for (int x = 0; x < w; x++)
                cols[x] -= flat_at(st->image, pitch, w, h, x, y - MASK_PAD - 1);
        uint32_t sum = 0;
        for (int x = 0; x < MASK_PAD && x < w; x++)
            sum += cols[x];
        uint16_t *m = st->mask + y * pitch;
        for (int x = 0; x < w; x++) {
            if (x + MASK_PAD < w)
                sum += cols[x + MASK_PAD];
            if (x - MASK_PAD - 1 >= 0)
                sum -= cols[x - MASK_PAD - 1];
            m[x] = sum > threshold;
        }
    }
}

/* ---------------------------------------------------------------- scales */

/* every other sample of every other row, in place */
static void decimate(uint16_t *img, int pitch, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            img[y * pitch + x] = img[2 * y * pitch + 2 * x];
}

/* the value two of three share, else the smallest */
static uint16_t mode3(uint16_t a, uint16_t b, uint16_t c)
{
    if (a == b || a == c)
        return a;
    if (b == c)
        return b;
    return a <= b && a <= c ? a : b <= c ? b : c;
}

/* The 3x3 mode filter in place: a horizontal mode per row (edge columns
 * kept), then the vertical mode of three such rows; the first and last rows
 * keep their samples. */
static void mode_filter(cambi_state *st, int w, int h)
{
    const int pitch = st->alloc_w;
    for (int y = 0; y < h; y++) {
        const uint16_t *in = st->image + y * pitch;
        uint16_t *r = st->rows + (y % 3) * w;
        r[0] = in[0];
        for (int x = 1; x < w - 1; x++)
            r[x] = mode3(in[x - 1], in[x], in[x + 1]);
        r[w - 1] = in[w - 1];
        if (y > 1) {
            uint16_t *o = st->image + (y - 1) * pitch;
            for (int x = 0; x < w; x++)
                o[x] = mode3(st->rows[x], st->rows[w + x], st->rows[2 * w + x]);
        }
    }
}

/* Add (inc 1) or remove (-1) row y's masked in-band samples to the
 * histograms of the columns whose window holds them. */
static void hist_row(cambi_state *st, int w, int y, int pad, int inc)
{
    const uint16_t *img = st->image + y * st->alloc_w, *m = st->mask + y * st->alloc_w;
    for (int x = 0; x < w; x++) {
        if (!m[x])
            continue;
        const uint16_t v = (uint16_t)(img[x] - st->pl.band_base);
        if (v >= st->pl.band_size)
            continue;
        uint16_t *h = st->hist + (size_t)v * (size_t)w;
        const int lo = x - pad < 0 ? 0 : x - pad, hi = x + pad + 1 > w ? w : x + pad + 1;
        for (int c = lo; c < hi; c++)
            h[c] = (uint16_t)(h[c] + inc);
    }
}

/* The contrast value of a masked sample with value img (10 bits) in column
 * x: the largest weighted p0 p1 / (p0 + p1) over the visible differences. */
static float c_value(const cambi_state *st, int w, int x, uint16_t img)
{
    const cambi_plan *pl = &st->pl;
    const int nd = pl->num_diffs;
    const int compact = (int)img - (int)pl->band_base;
    if ((unsigned)compact >= pl->band_size)
        return 0.0f;
    const int value = img + nd;
    const uint16_t *col = st->hist + x;
    const uint16_t p0 = col[(size_t)compact * (size_t)w];
    float best = 0.0f;
    for (int d = 0; d < nd; d++) {
        if (value > pl->tvi[d] || value + d + 1 <= pl->vlt_luma)
            continue;
        const int i1 = compact + d + 1, i2 = compact - d - 1;
        const uint16_t p1 = col[(size_t)i1 * (size_t)w];
        const uint16_t p2 = i2 >= 0 ? col[(size_t)i2 * (size_t)w] : 0;
        const uint16_t pk = p1 > p2 ? p1 : p2;
        const float val = (float)(cambi_contrast_weight[d] * p0 * pk) * pl->recip[pk + p0];
        if (val > best)
            best = val;
    }
    return best;
}

/* c_values of a w x h scale; the histogram of row y counts rows y - pad ..
 * y + pad and columns x - pad .. x + pad, clipped to the picture. */
static void c_values(cambi_state *st, int w, int h, int window)
{
    const int pad = window >> 1;
    memset(st->hist, 0, (size_t)w * st->pl.band_size * sizeof(*st->hist));
    memset(st->c_values, 0, (size_t)w * (size_t)h * sizeof(*st->c_values));
    for (int y = 0; y < pad && y < h; y++)
        hist_row(st, w, y, pad, 1);
    for (int y = 0; y < h; y++) {
        if (y + pad < h)
            hist_row(st, w, y + pad, pad, 1);
        if (y - pad - 1 >= 0)
            hist_row(st, w, y - pad - 1, pad, -1);
        const uint16_t *img = st->image + y * st->alloc_w, *m = st->mask + y * st->alloc_w;
        float *cv = st->c_values + (size_t)y * (size_t)w;
        for (int x = 0; x < w; x++)
            if (m[x])
                cv[x] = c_value(st, w, x, img[x]);
    }
}

/* libvmaf's quick select: after it, a[0 .. k) hold the k largest values, in
 * the order its partitions leave them (the pooled sum depends on it). */
static void quick_select(float *a, int n, int k)
{
    if (n == k)
        return;
    int left = 0, right = n - 1;
    while (left < right) {
        const float pivot = a[k];
        int i = left, j = right;
        do {
            while (a[i] > pivot)
                i++;
            while (a[j] < pivot)
                j--;
            if (i <= j) {
                const float t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < k)
            left = i;
        if (k < i)
            right = j;
    }
}

/* The mean of the top-k fraction of the c_values. */
int cambi_topk_count(double topk, int n)
{
    const int k = (int)(topk * n);
    return k < 1 ? 1 : k > n ? n : k;
}

double cambi_pool(float *cv, double topk, int w, int h)
{
    const int n = w * h;
    const int k = cambi_topk_count(topk, n);
    quick_select(cv, n, k);
    double sum = 0;
    for (int i = 0; i < k; i++)
        sum += cv[i];
    return sum / k;
}

int cambi_topk_mean(const uint64_t *c, int k, double *mean)
{
    if (c[CAMBI_SUM_BAD])
        return 0;
    unsigned __int128 s = (unsigned __int128)c[CAMBI_SUM_HI] << 64 | c[CAMBI_SUM_LO];
    uint32_t lsb = (uint32_t)c[CAMBI_SUM_LSB];
    const uint64_t kleft = c[CAMBI_SUM_KLEFT];
    if (kleft > 0) {
        uint64_t units;
        uint32_t t_lsb;
        if (!cambi_px_fix((uint32_t)c[CAMBI_SUM_T], &units, &t_lsb))
            return 0;
        s += (unsigned __int128)units * kleft;
        lsb = t_lsb > lsb ? t_lsb : lsb;
    }
    if (lsb == 0) { /* k zeros */
        *mean = 0.0 / k;
        return 1;
    }
    /* every value, so every partial sum, is a multiple of 2^last; below
     * 2^(53 + last) each one is a double: the sequential sum is exact */
    const int last = 100 - (int)lsb;
    const unsigned __int128 n = s >> (last + CAMBI_FIX_BITS);
    if (n >> 53)
        return 0;
    *mean = ldexp((double)(uint64_t)n, last) / k;
    return 1;
}

/* The score of the picture now in st->image (w x h, 10 bits). */
static double score(cambi_state *st, int w, int h, int window)
{
    spatial_mask(st, w, h);
    double per_scale[CAMBI_SCALES];
    for (int s = 0; s < CAMBI_SCALES; s++) {
        if (s > 0 || st->pl.speedup) {
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
            decimate(st->image, st->alloc_w, w, h);
            decimate(st->mask, st->alloc_w, w, h);
        }
        mode_filter(st, w, h);
        c_values(st, w, h, window);
        per_scale[s] = cambi_pool(st->c_values, st->topk, w, h);
    }
    return cambi_combine(per_scale, window);
}

double cambi_combine(const double *per_scale, int window)
{
    double sum = 0.0;
    for (int s = 0; s < CAMBI_SCALES; s++)
        sum += per_scale[s] * scale_weight[s];
    return sum / (double)(window * window);
}

int cambi_ref_process(void *priv, fovea_context *ctx, const uint8_t *dis, ptrdiff_t dis_stride,
                      const uint8_t *ref, ptrdiff_t ref_stride, double *dis_score,
                      double *src_score)
{
    cambi_state *st = priv;
    FOVEA_TRY(validate(ctx, dis, dis_stride, st->p.width, st->p.height, st->p.bpc));
    const cambi_plan *pl = &st->pl;
    preprocess(st, dis, dis_stride, pl->enc_w, pl->enc_h);
    *dis_score = score(st, pl->enc_w, pl->enc_h, pl->window);
    if (!st->p.full_ref)
        return FOVEA_OK;
    FOVEA_TRY(validate(ctx, ref, ref_stride, st->p.width, st->p.height, st->p.bpc));
    preprocess(st, ref, ref_stride, pl->src_w, pl->src_h);
    *src_score = score(st, pl->src_w, pl->src_h, pl->src_window);
    return FOVEA_OK;
}
