/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* SpEED of one plane pair in float, as libvmaf's plain C computes it: the
 * samples to float (offset -128), the optional prescale (nearest, bilinear,
 * bicubic, lanczos4 with libvmaf's mirrored borders), the antialias Gaussian
 * (its samples at every 16th row and column only: libvmaf filters the whole
 * plane and then keeps those), the operating-scale Gaussian and local mean
 * subtraction, the block statistics (speed_est) and the score. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quality/speed.h"

/* The loops that carry the work (the antialias filter's vertical pass, the
 * covariance) are compiled for x86-64-v4 (AVX-512), AVX2 and the baseline
 * and picked at run time: each float or double sum keeps libvmaf's order (the
 * vectors run across independent sums), and nothing may be contracted into
 * FMA (x86-64-v4 has FMA): GCC does not contract in ISO C mode (CMake builds
 * with -std=c11), clang is told by the pragma; in GNU C mode the v4 clone is
 * left out. FOVEA_SPEED_NO_CLONES builds one version. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) &&                              \
    !defined(FOVEA_SPEED_NO_CLONES) && !(defined(__clang__) && __clang_major__ < 16)
#if defined(__clang__) || defined(__STRICT_ANSI__)
#define SPEED_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define SPEED_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#else
#define SPEED_CLONES
#endif

/* positions of the covariance's centered samples held at once */
#define SPEED_COV_CHUNK 256

#define SPEED_PI 3.14159265358979323846
#define SPEED_E 2.7182818284590452354
#define SPEED_EPS 1e-6

/* ---------------------------------------------------------------- sizes and filters */

int speed_kernelscale_valid(double kernelscale)
{
    static const float valid[] = {
        1.0f,           1.0f / 2.0f,  3.0f / 2.0f, 2.0f,         2.0f / 3.0f,  24.0f / 10.0f,
        360.0f / 97.0f, 4.0f / 3.0f,  3.5f / 3.0f, 3.75f / 3.0f, 4.25f / 3.0f, 5.0f / 3.0f,
        3.0f,           1.0f / 2.25f, 1.4746f,     1.54f,        1.6f,         1.06667f,
        0.711111f,      0.740740f,    1.111111f,
    };
    const float k = (float)kernelscale;
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++)
        if ((double)fabsf(k - valid[i]) < 1e-3)
            return 1;
    return 0;
}

int speed_dims_init(speed_dims *d, int width, int height, const speed_params *p)
{
    d->width = width;
    d->height = height;
    d->scaled_width = (int)((double)width * p->prescale + 0.5);
    d->scaled_height = (int)((double)height * p->prescale + 0.5);
    d->alloc_width = width > d->scaled_width ? width : d->scaled_width;
    d->alloc_height = height > d->scaled_height ? height : d->scaled_height;
    d->op_width = d->scaled_width >> SPEED_SCALES;
    d->op_height = d->scaled_height >> SPEED_SCALES;
    d->blocks_h = d->op_width / SPEED_BLOCK;
    d->blocks_v = d->op_height / SPEED_BLOCK;
    d->blocks = d->blocks_h * d->blocks_v;
    d->sub_width = d->blocks_h * SPEED_BLOCK - SPEED_BLOCK + 1;
    d->sub_height = d->blocks_v * SPEED_BLOCK - SPEED_BLOCK + 1;
    return d->blocks > 0 ? 0 : -1;
}

/* libvmaf's filter width of a scale (0..4) and kernel scale. */
static int filter_width(int scale, double kernelscale)
{
    const int n = (1 << (4 - scale)) + 1;
    int w = (int)ceil((double)((float)n * (float)kernelscale));
    if (w % 2 == 0)
        w++;
    return w > 3 ? w : 3;
}

/* A normalized Gaussian of width taps and deviation stdev, in libvmaf's float
 * arithmetic. */
static void gaussian(float *out, int width, float stdev)
{
    const int half = (width - 1) / 2;
    float sum = 0;
    for (int i = 0; i < width; i++) {
        const float x = (float)(i - half);
        const float num = (float)exp(-0.5 * (double)x / (double)stdev * (double)x / (double)stdev);
        const float den = (float)(1 / ((double)stdev * sqrt(2 * SPEED_PI)));
        out[i] = num / den;
        sum += out[i];
    }
    for (int i = 0; i < width; i++)
        out[i] /= sum;
}

void speed_filters(const speed_params *p, float *aa, int *width_aa, float *f4, int *width_4)
{
    *width_aa = filter_width(1, p->kernelscale);
    *width_4 = filter_width(SPEED_SCALES, p->kernelscale);
    /* the antialias filter has the width of scale 1 and the deviation of
     * scale 4's decimation (sqrt(16) / 2) */
    gaussian(aa, *width_aa, (float)(sqrt(SPEED_SCALES) * *width_aa / 5.0f));
    gaussian(f4, *width_4, (float)*width_4 / 5.0f);
}

static int mirror_index(int i, int n)
{
    return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i);
}

/* row[j] = the sum over k of f[k] rows[k][j], in the order of k, for every
 * column j (the vertical pass of one output row). */
SPEED_CLONES static void filter_column(const float *f, int taps, const float *const *rows, int w,
                                       float *restrict row)
{
    for (int j = 0; j < w; j++)
        row[j] = 0;
    for (int k = 0; k < taps; k++) {
        const float fk = f[k], *r = rows[k];
        for (int j = 0; j < w; j++)
            row[j] += fk * r[j];
    }
}

/* The separable filter f (width taps) over the w x h image src, vertical pass
 * then horizontal, at every step-th row and column only: dst is
 * (h / step) x (w / step) (step 1: the whole image). row: w floats. */
static void filter_sep(const float *f, int taps, const float *src, float *dst, int w, int h,
                       size_t stride, int step, float *row)
{
    const int half = taps / 2;
    const float *rows[SPEED_MAX_TAPS];
    for (int oi = 0; oi < h / step; oi++) {
        const int i = oi * step;
        /* acc = 0, then acc += f[k] src[..] for k in order: 0 + x is x */
        for (int k = 0; k < taps; k++)
            rows[k] = src + (size_t)mirror_index(i - half + k, h) * stride;
        filter_column(f, taps, rows, w, row);
        for (int oj = 0; oj < w / step; oj++) {
            const int j = oj * step;
            float acc = 0;
            for (int k = 0; k < taps; k++)
                acc += f[k] * row[mirror_index(j - half + k, w)];
            dst[(size_t)oi * stride + (size_t)oj] = acc;
        }
    }
}

/* ---------------------------------------------------------------- prescale */

static float mirror_f(float i, float left, float right)
{
    return i < left ? -i : i > right ? 2 * right - i : i;
}

/* The source coordinate of destination index x at ratio src/dst. */
static float source_coord(int x, float ratio)
{
    return (float)(((double)x + 0.5) * (double)ratio - 0.5);
}

static void scale_nearest(const float *src, int sw, int sh, float *dst, int dw, int dh,
                          size_t stride)
{
    const float rx = (float)sw / (float)dw, ry = (float)sh / (float)dh;
    for (int y = 0; y < dh; y++)
        for (int x = 0; x < dw; x++)
            dst[(size_t)y * stride + (size_t)x] =
                src[(size_t)(int)((float)y * ry) * stride + (size_t)(int)((float)x * rx)];
}

/* The two source samples of destination x and the weight of the second. */
static void bilinear_at(int x, int sw, float rx, int *lo, int *hi, float *frac)
{
    const float xx = source_coord(x, rx);
    *lo = (int)mirror_f((float)floor((double)xx), 0, (float)(sw - 1));
    *hi = (int)mirror_f((float)ceil((double)xx), 0, (float)(sw - 1));
    *frac = xx - (float)*lo;
}

static void bilinear_columns(int sw, int dw, int *lo, int *hi, float *frac)
{
    const float rx = (float)sw / (float)dw;
    for (int x = 0; x < dw; x++)
        bilinear_at(x, sw, rx, &lo[x], &hi[x], &frac[x]);
}

static void scale_bilinear(const speed_state *s, const float *src, int sh, float *dst, int dw,
                           int dh)
{
    const size_t stride = s->stride;
    const float ry = (float)sh / (float)dh;
    for (int y = 0; y < dh; y++) {
        const float yy = source_coord(y, ry);
        const int y1 = (int)mirror_f((float)floor((double)yy), 0, (float)(sh - 1));
        const int y2 = (int)mirror_f((float)ceil((double)yy), 0, (float)(sh - 1));
        const float dy = yy - (float)y1;
        const float *r1 = src + (size_t)y1 * stride, *r2 = src + (size_t)y2 * stride;
        for (int x = 0; x < dw; x++) {
            const int x1 = s->col_lo[x], x2 = s->col_hi[x];
            const float dx = s->col_frac[x];
            dst[(size_t)y * stride + (size_t)x] = (1 - dy) * (1 - dx) * r1[x1] +
                                                  (1 - dy) * dx * r1[x2] + dy * (1 - dx) * r2[x1] +
                                                  dy * dx * r2[x2];
        }
    }
}

static float bicubic_weight(float t)
{
    const float a = -0.75f;
    if (t < 0)
        t = -t;
    if (t < 1)
        return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2)
        return (((t - 5) * t + 8) * t - 4) * a;
    return 0;
}

static float lanczos4_weight(float x, float a)
{
    if ((double)x == 0.0)
        return 1.0f;
    if (x > -a && x < a)
        return (float)((double)a * sin(SPEED_PI * (double)x) *
                       sin(SPEED_PI * (double)x / (double)a) /
                       (SPEED_PI * SPEED_PI * (double)x * (double)x));
    return 0.0f;
}

/* Bicubic (radius 2) or lanczos4 (radius 4) interpolation of one sample;
 * lanczos normalizes by its weights' sum. */
static float interpolate(const float *src, int sw, int sh, size_t stride, float x, float y,
                         int lanczos)
{
    const int r = lanczos ? 4 : 2, lo = lanczos ? -4 : -1;
    const int x0 = (int)floor((double)x), y0 = (int)floor((double)y);
    const float dx = x - (float)x0, dy = y - (float)y0;
    float wx[9], wy[9];
    for (int i = lo; i <= r; i++) {
        wx[i - lo] = lanczos ? lanczos4_weight((float)i - dx, 4.0f) : bicubic_weight((float)i - dx);
        wy[i - lo] = lanczos ? lanczos4_weight((float)i - dy, 4.0f) : bicubic_weight((float)i - dy);
    }
    float value = 0, wsum = 0;
    for (int j = lo; j <= r; j++) {
        for (int i = lo; i <= r; i++) {
            const float w = wx[i - lo] * wy[j - lo];
            wsum += w;
            const int xi = (int)mirror_f((float)(x0 + i), 0, (float)(sw - 1));
            const int yi = (int)mirror_f((float)(y0 + j), 0, (float)(sh - 1));
            value += src[(size_t)yi * stride + (size_t)xi] * w;
        }
    }
    return lanczos ? value / wsum : value;
}

static void scale_kernel(const float *src, int sw, int sh, float *dst, int dw, int dh,
                         size_t stride, int lanczos)
{
    const float rx = (float)sw / (float)dw, ry = (float)sh / (float)dh;
    for (int y = 0; y < dh; y++) {
        const float yy = source_coord(y, ry);
        for (int x = 0; x < dw; x++)
            dst[(size_t)y * stride + (size_t)x] =
                interpolate(src, sw, sh, stride, source_coord(x, rx), yy, lanczos);
    }
}

int speed_prescale_axis(speed_method method, int src_n, int dst_n, int *idx, float *w)
{
    const float ratio = (float)src_n / (float)dst_n;
    const int lanczos = method == SPEED_LANCZOS4, r = lanczos ? 4 : 2, lo = lanczos ? -4 : -1;
    for (int x = 0; x < dst_n; x++) {
        int *ix = idx + (size_t)x * SPEED_AXIS_TAPS;
        float *wx = w + (size_t)x * SPEED_AXIS_TAPS;
        memset(ix, 0, SPEED_AXIS_TAPS * sizeof(*ix));
        memset(wx, 0, SPEED_AXIS_TAPS * sizeof(*wx));
        if (method == SPEED_NEAREST) {
            ix[0] = (int)((float)x * ratio);
            continue;
        }
        if (method == SPEED_BILINEAR) {
            bilinear_at(x, src_n, ratio, &ix[0], &ix[1], &wx[0]);
            continue;
        }
        /* interpolate()'s weights and mirrored indexes along one axis */
        const float c = source_coord(x, ratio);
        const int x0 = (int)floor((double)c);
        const float dx = c - (float)x0;
        for (int i = lo; i <= r; i++) {
            wx[i - lo] =
                lanczos ? lanczos4_weight((float)i - dx, 4.0f) : bicubic_weight((float)i - dx);
            ix[i - lo] = (int)mirror_f((float)(x0 + i), 0, (float)(src_n - 1));
        }
    }
    return method == SPEED_NEAREST ? 1 : method == SPEED_BILINEAR ? 2 : r - lo + 1;
}

/* ---------------------------------------------------------------- state */

void speed_state_free(speed_state *s)
{
    free(s->image);
    free(s->work[0]);
    free(s->work[1]);
    free(s->filt_aa);
    free(s->filt_4);
    free(s->col_lo);
    free(s->col_hi);
    free(s->col_frac);
    free(s->cov);
    free(s->eig);
    free(s->rhs);
    free(s->sol);
    free(s->lin);
    free(s->cov_sum);
    free(s->cov_chunk);
    free(s->need);
    for (int k = 0; k < 2; k++) {
        free(s->ent[k]);
        free(s->var[k]);
    }
    memset(s, 0, sizeof(*s));
}

static float *floats(size_t n)
{
    return malloc((n ? n : 1) * sizeof(float));
}

int speed_state_init(speed_state *s, int width, int height, const speed_params *p)
{
    memset(s, 0, sizeof(*s));
    if (speed_dims_init(&s->dims, width, height, p) != 0)
        return -1;
    const speed_dims *d = &s->dims;
    s->params = *p;
    s->stride = (size_t)d->alloc_width;
    const size_t image = s->stride * (size_t)d->alloc_height;
    const size_t blocks = (size_t)d->blocks, e = SPEED_ELEMS;
    s->image = floats(image);
    s->work[0] = floats(image);
    s->work[1] = floats(image);
    s->filt_aa = floats(SPEED_MAX_TAPS);
    s->filt_4 = floats(SPEED_MAX_TAPS);
    s->cov = floats(e * e);
    s->eig = floats(e);
    s->rhs = floats(e * blocks);
    s->sol = floats(e * blocks);
    s->lin = floats(5 * e * e + e * (blocks > 4 ? blocks : 4));
    for (int k = 0; k < 2; k++) {
        s->ent[k] = floats(blocks);
        s->var[k] = floats(blocks);
    }
    s->cov_sum = malloc(e * e * sizeof(double));
    s->cov_chunk = malloc(SPEED_COV_CHUNK * e * sizeof(double));
    s->need = calloc((size_t)d->height, 1);
    s->col_lo = malloc((size_t)d->scaled_width * sizeof(int));
    s->col_hi = malloc((size_t)d->scaled_width * sizeof(int));
    s->col_frac = floats((size_t)d->scaled_width);
    if (!s->image || !s->work[0] || !s->work[1] || !s->filt_aa || !s->filt_4 || !s->cov ||
        !s->eig || !s->rhs || !s->sol || !s->lin || !s->ent[0] || !s->ent[1] || !s->var[0] ||
        !s->var[1] || !s->cov_sum || !s->cov_chunk || !s->need || !s->col_lo || !s->col_hi ||
        !s->col_frac) {
        speed_state_free(s);
        return -2;
    }
    speed_filters(p, s->filt_aa, &s->width_aa, s->filt_4, &s->width_4);
    /* without the prescale only the antialias filter's rows around every
     * 16th row are read */
    const int half = s->width_aa / 2;
    for (int y = 0; y < d->height; y++)
        s->need[y] = (uint8_t)speed_prescaled(d, p);
    if (!speed_prescaled(d, p))
        for (int oi = 0; oi < d->height >> SPEED_SCALES; oi++)
            for (int k = 0; k < s->width_aa; k++)
                s->need[mirror_index((oi << SPEED_SCALES) - half + k, d->height)] = 1;
    bilinear_columns(width, d->scaled_width, s->col_lo, s->col_hi, s->col_frac);
    return 0;
}

/* ---------------------------------------------------------------- one plane */

/* The plane into s->image as libvmaf's picture_copy with offset -128. */
SPEED_CLONES static void load_row(const uint8_t *row, int bpc, int w, float *restrict dst)
{
    const float scaler = bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
    if (bpc == 8) {
        for (int x = 0; x < w; x++)
            dst[x] = (float)row[x] + -128.0f;
    } else {
        /* 16-bit words, little-endian as the frames hold them */
        const uint16_t *v = (const uint16_t *)(const void *)row;
        for (int x = 0; x < w; x++)
            dst[x] = (float)v[x] / scaler + -128.0f;
    }
}

/* The rows of the plane that the computation reads (s->need) into s->image. */
static void load(speed_state *s, const uint8_t *src, ptrdiff_t stride, int bpc)
{
    const speed_dims *d = &s->dims;
    for (int y = 0; y < d->height; y++)
        if (s->need[y])
            load_row(src + (ptrdiff_t)y * stride, bpc, d->width, s->image + (size_t)y * s->stride);
}

int speed_prescaled(const speed_dims *d, const speed_params *p)
{
    return !(fabs(p->prescale - 1.0) < 1.0e-3) &&
           !(d->scaled_width == d->width && d->scaled_height == d->height);
}

/* The mean-subtracted operating image of s->image, in s->work[1]. */
static void prepare(speed_state *s)
{
    const speed_dims *d = &s->dims;
    const speed_params *p = &s->params;
    const int sw = d->scaled_width, sh = d->scaled_height;
    const float *scaled = s->image;
    /* libvmaf skips the prescale within 1e-3 of 1 (the sizes then agree:
     * speed_chroma refuses the others) */
    if (speed_prescaled(d, p)) {
        float *dst = s->work[0];
        if (p->method == SPEED_NEAREST)
            scale_nearest(s->image, d->width, d->height, dst, sw, sh, s->stride);
        else if (p->method == SPEED_BILINEAR)
            scale_bilinear(s, s->image, d->height, dst, sw, sh);
        else
            scale_kernel(s->image, d->width, d->height, dst, sw, sh, s->stride,
                         p->method == SPEED_LANCZOS4);
        scaled = dst;
    }
    /* antialias, keeping every 16th sample: op_width x op_height in work[1];
     * s->image serves as the row scratch once scaled is work[0] */
    float *row = scaled == s->image ? s->work[0] : s->image;
    filter_sep(s->filt_aa, s->width_aa, scaled, s->work[1], sw, sh, s->stride, 1 << SPEED_SCALES,
               row);
    /* local mean: work[1] -= its Gaussian blur */
    float *blur = s->work[0];
    filter_sep(s->filt_4, s->width_4, s->work[1], blur, d->op_width, d->op_height, s->stride, 1,
               s->image);
    for (int y = 0; y < d->op_height; y++)
        for (int x = 0; x < d->op_width; x++)
            s->work[1][(size_t)y * s->stride + (size_t)x] -=
                blur[(size_t)y * s->stride + (size_t)x];
}

static int speed_est(speed_state *s, const float *data, float *ent, float *var);

int speed_side(speed_state *s, const uint8_t *plane, ptrdiff_t stride, int bpc, int k)
{
    load(s, plane, stride, bpc);
    prepare(s);
    return speed_est(s, s->work[1], s->ent[k], s->var[k]);
}

int speed_plane_score(speed_state *s, const uint8_t *ref, ptrdiff_t ref_stride, const uint8_t *dis,
                      ptrdiff_t dis_stride, int bpc, float *score)
{
    const int err_ref = speed_side(s, ref, ref_stride, bpc, 0);
    const int err_dis = speed_side(s, dis, dis_stride, bpc, 1);
    return speed_score(&s->params, s->dims.blocks, s->ent[0], s->var[0], err_ref, s->ent[1],
                       s->var[1], err_dis, score);
}

int speed_score(const speed_params *p, int blocks, const float *re, const float *rv, int err_ref,
                const float *de, const float *dv, int err_dis, float *score)
{
    /* one side singular: 0 rather than an inflated score */
    if ((err_ref != 0) != (err_dis != 0)) {
        *score = 0.0f;
        return 1;
    }
    const float sigma_nn = (float)p->sigma_nn, nn_floor = (float)p->nn_floor;
    const double c = log2(2 * SPEED_PI * SPEED_E);
    const float base =
        (float)((double)SPEED_ELEMS * (log2((double)((1 + nn_floor) * sigma_nn)) + c));
    float sum = 0;
    for (int b = 0; b < blocks; b++) {
        if (re[b] < base && de[b] < base)
            continue;
        double wr, wd; /* the variances weighting ref and dis */
        switch (p->weight_var_mode) {
        case 0: wr = (double)(1 + rv[b]), wd = (double)(1 + dv[b]); break;
        case 1: wr = wd = (double)(1 + rv[b]); break;
        case 2: wr = wd = (double)(1 + dv[b]); break;
        case 3: wr = wd = 1 + (double)(rv[b] + dv[b]) / 2.0; break;
        case 4: wr = (double)(1 + rv[b]), wd = 1 + (double)(rv[b] + dv[b]) / 2.0; break;
        case 5:
            wr = (double)(1 + rv[b]), wd = 1 + (0.75 * (double)rv[b] + 0.25 * (double)dv[b]);
            break;
        default:
            wr = (double)(1 + rv[b]), wd = 1 + (0.25 * (double)rv[b] + 0.75 * (double)dv[b]);
            break;
        }
        const float sr = (float)((double)re[b] * log2(wr));
        const float sd = (float)((double)de[b] * log2(wd));
        sum += fabsf(sr - sd);
    }
    *score = sum / (float)blocks;
    return err_ref || err_dis;
}

/* ---------------------------------------------------------------- block statistics */

/* Add the products of n positions' centered samples (c: SPEED_ELEMS doubles
 * a position) to the lower triangle of sum, position after position: each
 * sum[a][b] in the order of the positions, the vectors across b. */
SPEED_CLONES static void cov_chunk(const double *c, int n, double *restrict sum)
{
    for (int p = 0; p < n; p++) {
        const double *x = c + (size_t)p * SPEED_ELEMS;
        for (int a = 0; a < SPEED_ELEMS; a++) {
            const double xa = x[a];
            double *row = sum + a * SPEED_ELEMS;
            for (int b = 0; b <= a; b++)
                row[b] += xa * x[b];
        }
    }
}

/* The covariance of the neighborhoods' samples: for each pair a, b the double
 * sum over the positions (rows, then columns) of (x_a - m_a) (x_b - m_b),
 * divided by their number, as float. The sums are independent, so they run
 * side by side, each in libvmaf's order. */
static void covariance(speed_state *s, const float *data, const float *mean)
{
    const speed_dims *d = &s->dims;
    const size_t st = s->stride;
    const int sw = d->sub_width, sh = d->sub_height;
    double *sum = s->cov_sum, *c = s->cov_chunk;
    memset(sum, 0, SPEED_ELEMS * SPEED_ELEMS * sizeof(*sum));
    int n = 0;
    for (int i = 0; i < sh; i++)
        for (int j = 0; j < sw; j++) {
            double *x = c + (size_t)n * SPEED_ELEMS;
            for (int k = 0; k < SPEED_ELEMS; k++)
                x[k] =
                    (double)
                        data[(size_t)(i + k / SPEED_BLOCK) * st + (size_t)(j + k % SPEED_BLOCK)] -
                    (double)mean[k];
            if (++n == SPEED_COV_CHUNK) {
                cov_chunk(c, n, sum);
                n = 0;
            }
        }
    cov_chunk(c, n, sum);
    const double count = (double)((size_t)sw * (size_t)sh);
    for (int a = 0; a < SPEED_ELEMS; a++)
        for (int b = 0; b <= a; b++) {
            const float cv = (float)(sum[a * SPEED_ELEMS + b] / count);
            s->cov[a * SPEED_ELEMS + b] = cv;
            s->cov[b * SPEED_ELEMS + a] = cv;
        }
}

/* The entropies and variances of data's blocks (libvmaf's est_params);
 * nonzero when the covariance cannot be inverted (the variances are then
 * zero). */
static int speed_est(speed_state *s, const float *data, float *ent, float *var)
{
    const speed_dims *d = &s->dims;
    const size_t st = s->stride, blocks = (size_t)d->blocks;
    const int sw = d->sub_width, sh = d->sub_height;
    float *mean = s->eig; /* scratch until the eigenvalues */
    for (int k = 0; k < SPEED_ELEMS; k++) {
        const float *o = data + (size_t)(k / SPEED_BLOCK) * st + (size_t)(k % SPEED_BLOCK);
        float sum = 0;
        for (int i = 0; i < sh; i++)
            for (int j = 0; j < sw; j++)
                sum += o[(size_t)i * st + (size_t)j];
        mean[k] = sum / (float)((size_t)sw * (size_t)sh);
    }
    covariance(s, data, mean);
    speed_eigenvalues(s->cov, SPEED_ELEMS, s->eig, s->lin);
    /* rhs[k][block]: sample k of each block, in raster order */
    for (int k = 0; k < SPEED_ELEMS; k++)
        for (int bv = 0; bv < d->blocks_v; bv++)
            for (int bh = 0; bh < d->blocks_h; bh++)
                s->rhs[(size_t)k * blocks + (size_t)(bv * d->blocks_h + bh)] =
                    data[(size_t)(bv * SPEED_BLOCK + k / SPEED_BLOCK) * st +
                         (size_t)(bh * SPEED_BLOCK + k % SPEED_BLOCK)];
    int regular = 1;
    for (int k = 0; k < SPEED_ELEMS; k++)
        if ((double)s->eig[k] < SPEED_EPS)
            regular = 0;
    const int singular =
        !regular || speed_solve(s->cov, SPEED_ELEMS, s->rhs, (int)blocks, s->sol, s->lin) != 0;
    if (singular)
        memset(s->sol, 0, SPEED_ELEMS * blocks * sizeof(float));
    /* the variance of block b: sum over k of sol[k][b] rhs[k][b] / 25 */
    for (size_t i = 0; i < SPEED_ELEMS * blocks; i++)
        s->sol[i] = (s->sol[i] * s->rhs[i]) / (float)SPEED_ELEMS;
    for (int k = 1; k < SPEED_ELEMS; k++)
        for (size_t b = 0; b < blocks; b++)
            s->sol[b] += s->sol[(size_t)k * blocks + b];
    memcpy(var, s->sol, blocks * sizeof(float));
    speed_entropies(&s->params, s->eig, var, (int)blocks, ent);
    return singular;
}

void speed_entropies(const speed_params *p, const float *eig, const float *var, int blocks,
                     float *ent)
{
    const float sigma_nn = (float)p->sigma_nn;
    const double c = log2(2 * SPEED_PI * SPEED_E);
    memset(ent, 0, (size_t)blocks * sizeof(float));
    for (int k = 0; k < SPEED_ELEMS; k++) {
        const float l = eig[k] < 0 ? 0 : eig[k];
        for (int b = 0; b < blocks; b++)
            ent[b] = (float)((double)ent[b] + (log2((double)(l * var[b] + sigma_nn)) + c));
    }
}
