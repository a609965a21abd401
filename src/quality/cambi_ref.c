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
#include "quality/cambi_rows.h"

/* the 7x7 window of the flat-region mask */
#define MASK_PAD 3
/* the 10-bit limited range the luminance tables use */
#define LUMA_FOOT 64
#define LUMA_HEAD 940

static const int scale_weight[CAMBI_SCALES] = {16, 8, 4, 2, 1};
/* contrast weight of a difference of d + 1 levels */
const int cambi_contrast_weight[CAMBI_MAX_DIFFS] = {1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8,
                                                    8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};

/* the 10-bit sample values (12 and 16 bits round up to 1024) */
#define SAMPLE_VALUES 1025

/* A pair split over the pool runs the mask and the contrast values in up to
 * this many bands of rows, each with its own buffers (a 1080p scale-0
 * histogram is about 1 MB). */
#define CAMBI_MAX_BANDS 8

/* The buffers of one band of rows. */
typedef struct cambi_band {
    uint16_t *hist; /* band_size rows of alloc_w counters */
    uint8_t *flat;  /* 8 rows of the mask's flat samples */
    uint8_t *cols;  /* column counts of the mask's window, 3 zeros either side */
    cambi_cv_sum sum;
} cambi_band;

typedef struct cambi_state {
    cambi_params p;
    cambi_plan pl;
    double topk;
    int alloc_w, alloc_h;
    uint16_t *image; /* alloc_w x alloc_h, row pitch alloc_w */
    uint8_t *mask;   /* the same */
    uint16_t *keys;  /* the same: the histogram row of a counted sample (cambi_rows.h) */
    float *c_values;
    uint16_t *rows; /* 3 rows of the mode filter */
    int bands;      /* row bands the mask and the contrast values are split in */
    cambi_band band[CAMBI_MAX_BANDS];
    uint8_t *any;                  /* per row of a scale: 1 when a sample is masked */
    int *pos_x, *pos_y;            /* the scaling's positions (alloc_w, alloc_h) */
    uint32_t diffs[SAMPLE_VALUES]; /* per sample value: bit d where d + 1 levels count */
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
    free(st->keys);
    free(st->c_values);
    for (int b = 0; b < CAMBI_MAX_BANDS; b++) {
        free(st->band[b].hist);
        free(st->band[b].flat);
        free(st->band[b].cols);
    }
    free(st->rows);

    free(st->any);
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
    st->keys = malloc(px * sizeof(*st->keys));
    st->c_values = malloc(px * sizeof(*st->c_values));

    st->rows = malloc(3 * w * sizeof(*st->rows));
    st->bands = p->threads < 2 ? 1 : p->threads > CAMBI_MAX_BANDS ? CAMBI_MAX_BANDS : p->threads;
    int bands_ok = 1;
    for (int b = 0; b < st->bands; b++) {
        cambi_band *bd = &st->band[b];
        bd->hist = malloc(w * pl->band_size * sizeof(*bd->hist));
        bd->flat = malloc(8 * w);
        bd->cols = malloc(w + 2 * MASK_PAD);
        bands_ok &= bd->hist && bd->flat && bd->cols;
    }
    st->any = malloc((size_t)st->alloc_h);
    st->pos_x = malloc(w * sizeof(*st->pos_x));
    st->pos_y = malloc((size_t)st->alloc_h * sizeof(*st->pos_y));
    if (!st->image || !st->mask || !st->keys || !st->c_values || !st->rows || !bands_ok ||
        !st->any || !st->pos_x || !st->pos_y) {
        cambi_ref_close((void **)&st);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cambi: out of memory");
    }
    for (int v = 0; v < SAMPLE_VALUES; v++) {
        const int value = v + pl->num_diffs;
        st->diffs[v] = 0;
        for (int d = 0; d < pl->num_diffs; d++)
            if (value <= pl->tvi[d] && value + d + 1 > pl->vlt_luma)
                st->diffs[v] |= 1u << d;
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

/* Refuse samples above the bit depth (seen: the OR of every sample). */
static int check_range(fovea_context *ctx, unsigned seen, int bpc)
{
    if (bpc == 8 || bpc == 16 || !(seen >> bpc))
        return FOVEA_OK;
    return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                        "cambi: a luma sample is above %u, the maximum of %d bits", (1u << bpc) - 1,
                        bpc);
}

static int validate(fovea_context *ctx, const uint8_t *plane, ptrdiff_t stride, int w, int h,
                    int bpc)
{
    if (bpc == 8 || bpc == 16)
        return FOVEA_OK;
    unsigned seen = 0;
    for (int y = 0; y < h; y++)
        seen |= cambi_row_or((const uint16_t *)(const void *)(plane + (ptrdiff_t)y * stride), w);
    return check_range(ctx, seen, bpc);
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
 * float steps, in 10 bits; anti-dithered (2x2 mean) below 10 encode bits.
 * The input is refused (through ctx) when a sample is above its bit depth:
 * checked while converting when the size does not change, else first. */
static int preprocess(cambi_state *st, fovea_context *ctx, const uint8_t *plane, ptrdiff_t stride,
                      int ow, int oh)
{
    const int iw = st->p.width, ih = st->p.height, bpc = st->p.bpc;
    const int pitch = st->alloc_w;
    uint16_t *out = st->image;
    const int same = ow == iw && oh == ih;
    if (!same)
        FOVEA_TRY(validate(ctx, plane, stride, iw, ih, bpc));
    cambi_positions(iw, ow, st->pos_x);
    cambi_positions(ih, oh, st->pos_y);
    unsigned seen = 0;
    for (int y = 0; y < oh; y++) {
        uint16_t *o = out + (size_t)y * (size_t)pitch;
        const uint8_t *row = plane + (ptrdiff_t)st->pos_y[y] * stride;
        if (ow == iw) { /* the positions are the identity */
            seen |= cambi_row_to10(row, bpc, o, ow);
            continue;
        }
        for (int x = 0; x < ow; x++)
            o[x] = to_10b(sample_at(row, 0, bpc, st->pos_x[x], 0), bpc);
    }
    if (same)
        FOVEA_TRY(check_range(ctx, seen, bpc));
    if (st->pl.enc_bd >= 10)
        return FOVEA_OK;
    /* in place, reading only samples not yet written */
    for (int y = 0; y < oh; y++) {
        uint16_t *r = out + (size_t)y * (size_t)pitch;
        cambi_row_dither(r, y < oh - 1 ? r + pitch : NULL, ow);
    }
    return FOVEA_OK;
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

/* mask = 1 where the 7x7 window (clipped to the picture) holds more flat
 * samples than libvmaf's threshold for the size. */
uint32_t cambi_mask_threshold(int w, int h)
{
    const uint32_t shifted = (uint32_t)(w >> 6) * (uint32_t)(h >> 6);
    return (uint32_t)((49 + 3 * (ceil_log2(shifted) - 11) - 1) >> 1);
}

/* The flat samples of row y (1 where a sample equals its right and lower
 * neighbors; the last column and row count as equal) into its slot of the
 * ring flat. */
static const uint8_t *flat_row(const cambi_state *st, uint8_t *flat, int w, int h, int y)
{
    const uint16_t *p = st->image + (size_t)y * (size_t)st->alloc_w;
    uint8_t *out = flat + (size_t)(y & 7) * (size_t)st->alloc_w;
    cambi_row_flat(p, y < h - 1 ? p + st->alloc_w : NULL, w, out);
    return out;
}

/* The mask of rows y0 .. y1 with band bd's buffers: the column counts of the
 * window's rows, started from the rows above y0 that the window holds; rows
 * y - 4 and y + 3 are 7 apart, so a ring of 8 flat rows holds both. */
static void mask_rows(cambi_state *st, cambi_band *bd, int w, int h, int y0, int y1)
{
    const uint32_t threshold = cambi_mask_threshold(w, h);
    uint8_t *cols = bd->cols + MASK_PAD;
    memset(bd->cols, 0, (size_t)w + 2 * MASK_PAD);
    const int first = y0 - MASK_PAD > 0 ? y0 - MASK_PAD : 0;
    for (int y = first; y < y0 + MASK_PAD && y < h; y++)
        cambi_row_cols(cols, flat_row(st, bd->flat, w, h, y), NULL, w);
    for (int y = y0; y < y1; y++) {
        const uint8_t *add = y + MASK_PAD < h ? flat_row(st, bd->flat, w, h, y + MASK_PAD) : NULL;
        const int out = y - MASK_PAD - 1;
        const uint8_t *sub =
            out >= first ? bd->flat + (size_t)(out & 7) * (size_t)st->alloc_w : NULL;
        cambi_row_cols(cols, add, sub, w);
        cambi_row_mask(cols, w, threshold, st->mask + (size_t)y * (size_t)st->alloc_w);
    }
}

/* ---------------------------------------------------------------- scales */

/* every other sample of every other row, in place (row 0 reads ahead of
 * what it writes; the others read rows below the one they write) */
static void decimate(cambi_state *st, int w, int h)
{
    const size_t pitch = (size_t)st->alloc_w;
    for (int x = 0; x < w; x++) {
        st->image[x] = st->image[2 * x];
        st->mask[x] = st->mask[2 * x];
    }
    for (int y = 1; y < h; y++) {
        cambi_row_decimate16(st->image + y * pitch, st->image + 2 * y * pitch, w);
        cambi_row_decimate8(st->mask + y * pitch, st->mask + 2 * y * pitch, w);
    }
}

/* The 3x3 mode filter in place: a horizontal mode per row (edge columns
 * kept), then the vertical mode of three such rows; the first and last rows
 * keep their samples. */
static void mode_filter(cambi_state *st, int w, int h)
{
    const size_t pitch = (size_t)st->alloc_w;
    for (int y = 0; y < h; y++) {
        cambi_row_hmode(st->image + y * pitch, w, st->rows + (y % 3) * w);
        if (y > 1)
            cambi_row_vmode(st->rows, st->rows + w, st->rows + 2 * w, w,
                            st->image + (y - 1) * pitch);
    }
}

/* The contrast values of rows y0 .. y1 of a w x h scale with band bd's
 * histograms and sum (the keys and any[] set): the histogram of row y counts
 * rows y - pad .. y + pad and columns x - pad .. x + pad, clipped to the
 * picture (each row's counted samples, its keys, added when it enters the
 * window and removed when it leaves; a band starts from the rows above y0
 * that the window holds). Rows without a counted sample (any[y] 0) change
 * nothing and have no contrast: their values are left unset (pool() zeroes
 * them when it needs them). */
static void cv_rows(cambi_state *st, cambi_band *bd, int w, int h, int pad, int y0, int y1)
{
    const size_t pitch = (size_t)st->alloc_w;
    const cambi_plan *pl = &st->pl;
    const uint8_t *any = st->any;
    const cambi_hist_rows hr = {bd->hist, w, pad};
    const cambi_cv_rows cr = {
        bd->hist, w, pl->band_base, st->diffs, cambi_contrast_weight, pl->recip,
    };
    memset(&bd->sum, 0, sizeof(bd->sum));
    memset(bd->hist, 0, (size_t)w * pl->band_size * sizeof(*bd->hist));
    const int first = y0 - pad > 0 ? y0 - pad : 0;
    for (int y = first; y < y0 + pad && y < h; y++)
        if (any[y])
            cambi_row_hist(&hr, st->keys + y * pitch, NULL);
    for (int y = y0; y < y1; y++) {
        const int a = y + pad < h && any[y + pad] ? y + pad : -1;
        const int s = y - pad - 1 >= first && any[y - pad - 1] ? y - pad - 1 : -1;
        if (a >= 0 || s >= 0)
            cambi_row_hist(&hr, a >= 0 ? st->keys + a * pitch : NULL,
                           s >= 0 ? st->keys + s * pitch : NULL);
        if (any[y])
            cambi_row_cvalues(&cr, st->keys + y * pitch, st->c_values + (size_t)y * (size_t)w,
                              &bd->sum);
    }
}

/* A stage over the row bands of a w x h picture or scale. */
typedef struct band_job {
    cambi_state *st;
    int w, h, pad, bands;
    int mask; /* 1: the mask, 0: the contrast values */
} band_job;

static void band_rows(void *arg, int begin, int end, int thread)
{
    (void)thread;
    const band_job *j = arg;
    for (int b = begin; b < end; b++) {
        const int y0 = (int)((long long)j->h * b / j->bands);
        const int y1 = (int)((long long)j->h * (b + 1) / j->bands);
        if (j->mask)
            mask_rows(j->st, &j->st->band[b], j->w, j->h, y0, y1);
        else
            cv_rows(j->st, &j->st->band[b], j->w, j->h, j->pad, y0, y1);
    }
}

/* The bands of a stage on h rows: one without ctx, else at most st->bands
 * of at least 64 rows. */
static int bands_for(const cambi_state *st, fovea_context *ctx, int h)
{
    const int most = h / 64;
    const int n = ctx ? (st->bands < most ? st->bands : most) : 1;
    return n > 1 ? n : 1;
}

static void spatial_mask(cambi_state *st, fovea_context *ctx, int w, int h)
{
    band_job j = {st, w, h, 0, bands_for(st, ctx, h), 1};
    if (j.bands > 1)
        fv_parallel_for(ctx, j.bands, 1, band_rows, &j);
    else
        mask_rows(st, &st->band[0], w, h, 0, h);
}

/* c_values of a w x h scale and the exact sum of the nonzero ones (the sum
 * of the bands' exact sums, in any order). */
static void c_values(cambi_state *st, fovea_context *ctx, int w, int h, int window,
                     cambi_cv_sum *sum)
{
    const size_t pitch = (size_t)st->alloc_w;
    const cambi_plan *pl = &st->pl;
    int counted = 0;
    for (int y = 0; y < h; y++) {
        st->any[y] = (uint8_t)cambi_row_keys(st->image + y * pitch, st->mask + y * pitch, w,
                                             pl->band_base, pl->band_size, st->keys + y * pitch);
        counted |= st->any[y];
    }
    memset(sum, 0, sizeof(*sum));
    if (!counted)
        return;
    band_job j = {st, w, h, window >> 1, bands_for(st, ctx, h), 0};
    if (j.bands > 1)
        fv_parallel_for(ctx, j.bands, 1, band_rows, &j);
    else
        cv_rows(st, &st->band[0], w, h, j.pad, 0, h);
    unsigned __int128 units = 0;
    for (int b = 0; b < j.bands; b++) {
        const cambi_cv_sum *t = &st->band[b].sum;
        units += (unsigned __int128)t->units_hi << 64 | t->units_lo;
        sum->lsb = t->lsb > sum->lsb ? t->lsb : sum->lsb;
        sum->nonzero += t->nonzero;
        sum->bad |= t->bad;
    }
    sum->units_lo = (uint64_t)units;
    sum->units_hi = (uint64_t)(units >> 64);
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

/* cambi_pool's mean without its quick select where that is shown to be the
 * same double: when the top k hold every nonzero value (the rest are zeros,
 * which add nothing), their sum in any order is libvmaf's if every partial sum
 * is exact, which cambi_topk_mean checks from the exact fixed-point sum sum
 * (cambi_pixel.h); otherwise the quick select and libvmaf's order. */
static double pool(float *cv, const uint8_t *any, const cambi_cv_sum *sum, double topk, int w,
                   int h)
{
    const int k = cambi_topk_count(topk, w * h);
    if (sum->nonzero <= k && !sum->bad) {
        const uint64_t c[CAMBI_SUM_COUNT] = {
            [CAMBI_SUM_LO] = sum->units_lo,
            [CAMBI_SUM_HI] = sum->units_hi,
            [CAMBI_SUM_LSB] = sum->lsb,
        };
        double mean;
        if (cambi_topk_mean(c, k, &mean))
            return mean;
    }
    for (int y = 0; y < h; y++)
        if (!any[y])
            memset(cv + (size_t)y * (size_t)w, 0, (size_t)w * sizeof(*cv));
    return cambi_pool(cv, topk, w, h);
}

/* The score of the picture now in st->image (w x h, 10 bits). */
static double score(cambi_state *st, fovea_context *ctx, int w, int h, int window)
{
    spatial_mask(st, ctx, w, h);
    double per_scale[CAMBI_SCALES];
    for (int s = 0; s < CAMBI_SCALES; s++) {
        if (s > 0 || st->pl.speedup) {
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
            decimate(st, w, h);
        }
        mode_filter(st, w, h);
        cambi_cv_sum sum;
        c_values(st, ctx, w, h, window, &sum);
        per_scale[s] = pool(st->c_values, st->any, &sum, st->topk, w, h);
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
    const cambi_plan *pl = &st->pl;
    FOVEA_TRY(preprocess(st, ctx, dis, dis_stride, pl->enc_w, pl->enc_h));
    *dis_score = score(st, ctx, pl->enc_w, pl->enc_h, pl->window);
    if (!st->p.full_ref)
        return FOVEA_OK;
    FOVEA_TRY(preprocess(st, ctx, ref, ref_stride, pl->src_w, pl->src_h));
    *src_score = score(st, ctx, pl->src_w, pl->src_h, pl->src_window);
    return FOVEA_OK;
}
