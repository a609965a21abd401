/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The feature "ciede": libvmaf's CIEDE2000 (its `ciede` extractor, ciede.c):
 * every pixel's YUV (BT.709, limited range) to linear RGB, to XYZ, to L*a*b*,
 * the CIEDE2000 difference of reference and distorted pixel (kL 0.65, kC 1,
 * kH 4) summed over the frame in raster order (a double, the raw value), and
 * the score 45 - 20 log10(mean).
 *
 * Bit-exactness: the float and double types of every intermediate are
 * libvmaf's (the Lab values and most CIEDE2000 terms are floats computed in
 * double and rounded; r_sub_t's powers are powf), with the same libm calls
 * in the same order; the sum is one double in raster order (no split over
 * threads). x * x of a float stands for libvmaf's pow(x, 2) (exact in double).
 *
 * Chroma: libvmaf upsamples 4:2:0 and 4:2:2 chroma by reading its own planes
 * (floor(w/2) wide, rows padded with zeros to a multiple of 32 samples, U then
 * V in one allocation): 4:2:0 pixel (i, j) reads chroma (i/2, j/2); 4:2:2
 * reads (i/2, j) - libvmaf halves the rows, not the columns, reading on
 * through the padding into later rows. Those reads are reproduced here
 * through the same layout. Odd 4:2:0 heights make libvmaf read the V plane's
 * row past its end (past its allocation: its value varies from run to run);
 * fovea reads zeros there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "quality/feature.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const feature_output ciede_outputs[] = {{"ciede2000", NULL, 0}};

_Static_assert(sizeof(double) <= FEATURE_RAW_BYTES, "a sum fits a feature_raw");

static void ciede_derive(const feature_opts *o, const feature_frame *f, const feature_raw *raw,
                         const feature_raw *const *next, double *state, double *out)
{
    (void)o;
    (void)next;
    (void)state;
    double sum;
    memcpy(&sum, raw->b, sizeof(sum));
    out[0] = 45. - 20. * log10(sum / (double)((unsigned)f->width * (unsigned)f->height));
}

const feature_def feature_ciede = {
    .name = "ciede",
    .label = "ciede",
    .flags = FEATURE_CHROMA,
    .min_dim = 1,
    .cpu_bytes_per_pixel = 0,
    .n_options = 0,
    .options = NULL,
    .n_outputs = 1,
    .outputs = ciede_outputs,
    .derive = ciede_derive,
};

/* ---------------------------------------------------------------- arithmetic */

typedef struct lab {
    float l, a, b;
} lab;

static double to_linear(double c)
{
    if (c > 10. / 255.)
        return pow((c + 0.055) * (1.0 / 1.055), 2.4);
    return c * (1.0 / 12.92);
}

static float lab_f(double c)
{
    const double kappa = 24389.0 / 27.0;
    const double epsilon = 216.0 / 24389.0;
    if (c > epsilon)
        return (float)pow(c, 1.0 / 3.0);
    return (float)((kappa * c + 16.0) * (1.0 / 116.0));
}

static lab lab_of(double y, double u, double v, int bpc)
{
    const double scale = (double)(1 << (bpc - 8));
    y = (y - 16. * scale) * (1. / (219. * scale));
    u = (u - 128. * scale) * (1. / (224. * scale));
    v = (v - 128. * scale) * (1. / (224. * scale));
    const double r = to_linear(y + 1.28033 * v);
    const double g = to_linear(y - 0.21482 * u - 0.38059 * v);
    const double b = to_linear(y + 2.12798 * u);
    double x = r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894;
    double yy = r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958;
    double z = r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677;
    x = lab_f(x * (1.0 / 0.95047));
    yy = lab_f(yy);
    z = lab_f(z * (1.0 / 1.08883));
    lab c = {(float)((116.0 * yy) - 16.0), (float)(500.0 * (x - yy)), (float)(200.0 * (yy - z))};
    return c;
}

static float hue_angle(float x, float y)
{
    if (x == 0.0f && y == 0.0f)
        return 0.0f;
    float h = (float)atan2(x, y);
    if (h < 0.0f)
        h = (float)(h + 2. * M_PI);
    return h;
}

static float hue_delta(float c1, float c2, float h1, float h2)
{
    if (c1 == 0.0f || c2 == 0.0f)
        return 0.0f;
    if (fabsf(h1 - h2) <= M_PI)
        return h2 - h1;
    if (h2 <= h1)
        return (float)(h2 - h1 + 2. * M_PI);
    return (float)(h2 - h1 - 2. * M_PI);
}

static float rotation(float c_bar_prime, float h_bar_prime)
{
    const float deg = (float)(((float)(h_bar_prime * (180.0 / M_PI)) - 275.0) * (1.0 / 25.0));
    const float c7 = powf(c_bar_prime, 7);
    const float rad = (float)((float)(60.0 * exp(-(powf(deg, 2)))) * (M_PI / 180.0));
    return (float)(-2.0 * sqrt(c7 / (c7 + powf(25.f, 7))) * sin(rad));
}

static float de2000(lab p, lab q)
{
    const double p25 = 6103515625.0; /* pow(25, 7), exact */
    const float dl = q.l - p.l;
    const float l_bar = (p.l + q.l) / 2;
    const float c1 = (float)sqrt((double)p.a * p.a + (double)p.b * p.b);
    const float c2 = (float)sqrt((double)q.a * q.a + (double)q.b * q.b);
    const float c_bar = (c1 + c2) / 2;
    const double cb7 = pow(c_bar, 7);
    const double g = 1 - sqrt(cb7 / (cb7 + p25));
    const float a1 = (float)(p.a + (p.a / 2) * g);
    const float a2 = (float)(q.a + (q.a / 2) * g);
    const float cp1 = (float)sqrt((double)a1 * a1 + (double)p.b * p.b);
    const float cp2 = (float)sqrt((double)a2 * a2 + (double)q.b * q.b);
    const float cbp = (cp1 + cp2) / 2;
    const float dc = cp2 - cp1;
    const float lm = l_bar - 50;
    const double lm2 = (double)lm * lm;
    const float sl = (float)(1. + ((0.015 * lm2) / sqrt(20 + lm2)));
    const float sc = (float)(1. + 0.045 * cbp);
    const float h1 = hue_angle(p.b, a1);
    const float h2 = hue_angle(q.b, a2);
    const float dh = hue_delta(c1, c2, h1, h2);
    const float dhh = (float)(2.0 * sqrt(cp1 * cp2) * sin(dh / 2.0));
    const float hbp =
        fabs(h1 - h2) > M_PI ? (float)((h1 + h2 + 2.0 * M_PI) / 2.0) : (float)((h1 + h2) / 2.0);
    const float t =
        (float)(1.0 - 0.17 * cos(hbp - M_PI / 6.0) + 0.24 * cos(2.0 * hbp) +
                0.32 * cos(3.0 * hbp + M_PI / 30.0) - 0.20 * cos(4.0 * hbp - 7.0 * M_PI / 20.0));
    const float sh = (float)(1.0 + 0.015 * cbp * t);
    const float rt = rotation(cbp, hbp);
    const float lt = dl / (0.65f * sl);
    const float ch = dc / (1.0f * sc);
    const float hu = dhh / (4.0f * sh);
    return (float)sqrt((double)lt * lt + (double)ch * ch + (double)hu * hu + rt * ch * hu);
}

/* ---------------------------------------------------------------- C extractor */

typedef struct ciede_cpu {
    int width, height, bpc, chroma;
    int cw, ch, cstride; /* chroma planes, and libvmaf's padded row (samples) */
    float *row;          /* 4 rows of width: reference U, V, distorted U, V */
} ciede_cpu;

static void cpu_close(void **priv)
{
    ciede_cpu *st = priv ? *priv : NULL;
    if (!st)
        return;
    free(st->row);
    free(st);
    *priv = NULL;
}

static int cpu_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    if (s->chroma == 400)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "ciede: the input has no chroma planes (gray); CIEDE2000 needs "
                            "YUV (libvmaf refuses gray input too)");
    ciede_cpu *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->width = s->width;
    st->height = s->height;
    st->bpc = s->bpc;
    st->chroma = s->chroma;
    st->cw = s->chroma_width;
    st->ch = s->chroma_height;
    st->cstride = (st->cw + 31) & ~31;
    st->row = malloc(4 * (size_t)s->width * sizeof(*st->row));
    if (!st->row) {
        cpu_close((void **)&st);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    }
    *priv = st;
    return FOVEA_OK;
}

static float sample(const uint8_t *base, ptrdiff_t stride, int bpc, int r, int c)
{
    const uint8_t *row = base + (ptrdiff_t)r * stride;
    return bpc == 8 ? (float)row[c] : (float)((const uint16_t *)(const void *)row)[c];
}

/* Chroma sample k (0 U, 1 V) at libvmaf's linear position (row r, column c
 * of its padded plane, reading on into the next rows and the V plane). */
static float chroma_at(const ciede_cpu *st, const uint8_t *const *planes, const ptrdiff_t *strides,
                       int k, int r, int c)
{
    const long plane = (long)st->ch * st->cstride;
    long pos = (long)k * plane + (long)r * st->cstride + c;
    if (plane == 0 || pos >= 2 * plane)
        return 0.0f; /* past libvmaf's allocation */
    const int q = (int)(pos / plane);
    pos -= q * plane;
    const int rr = (int)(pos / st->cstride), cc = (int)(pos % st->cstride);
    if (cc >= st->cw)
        return 0.0f; /* its zero padding */
    return sample(planes[q], strides[q], st->bpc, rr, cc);
}

/* Row i of the upsampled U and V of one picture into u and v. */
static void chroma_row(const ciede_cpu *st, const uint8_t *const *planes, const ptrdiff_t *strides,
                       int i, float *u, float *v)
{
    const int w = st->width;
    if (st->chroma == 444) {
        for (int j = 0; j < w; j++) {
            u[j] = sample(planes[0], strides[0], st->bpc, i, j);
            v[j] = sample(planes[1], strides[1], st->bpc, i, j);
        }
        return;
    }
    const int r = i / 2, half = st->chroma == 420;
    for (int j = 0; j < w; j++) {
        const int c = half ? j / 2 : j;
        if (r < st->ch && c < st->cw) {
            u[j] = sample(planes[0], strides[0], st->bpc, r, c);
            v[j] = sample(planes[1], strides[1], st->bpc, r, c);
        } else {
            u[j] = chroma_at(st, planes, strides, 0, r, c);
            v[j] = chroma_at(st, planes, strides, 1, r, c);
        }
    }
}

static int cpu_extract(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw)
{
    (void)ctx;
    ciede_cpu *st = priv;
    const int w = st->width;
    float *ru = st->row, *rv = ru + w, *du = rv + w, *dv = du + w;
    double sum = 0.;
    for (int i = 0; i < st->height; i++) {
        chroma_row(st, p->ref_c, p->ref_c_stride, i, ru, rv);
        chroma_row(st, p->dis_c, p->dis_c_stride, i, du, dv);
        for (int j = 0; j < w; j++) {
            const float ry = sample(p->ref, p->ref_stride, st->bpc, i, j);
            const float dy = sample(p->dis, p->dis_stride, st->bpc, i, j);
            const lab a = lab_of(ry, ru[j], rv[j], st->bpc);
            const lab b = lab_of(dy, du[j], dv[j], st->bpc);
            sum += de2000(a, b);
        }
    }
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, &sum, sizeof(sum));
    return FOVEA_OK;
}

const feature_extractor feature_ciede_cpu = {
    &feature_ciede, FOVEA_BACKEND_CPU, cpu_init, cpu_close, cpu_extract, 0, 0, NULL, NULL,
};
