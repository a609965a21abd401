/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The IQA-style SSIM of libvmaf's float_ssim and float_ms_ssim: loading,
 * decimation and the windowed SSIM map, to the float (ssim_iqa.h). Loops run
 * across columns with one double accumulator per column so that each output
 * keeps libvmaf's order of terms while the compiler may vectorize across
 * outputs. */
#include "quality/ssim_iqa.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* libvmaf's 1-D Gaussian taps (sigma 1.5, 11 taps, as libvmaf rounds them). */
const float iqa_gauss[IQA_WINDOW] = {0.001028f, 0.007599f, 0.036001f, 0.109361f,
                                     0.213006f, 0.266012f, 0.213006f, 0.109361f,
                                     0.036001f, 0.007599f, 0.001028f};

/* The five windowed images: the means, the squares' and the cross product's. */
enum { IQA_REF, IQA_CMP, IQA_REF2, IQA_CMP2, IQA_CROSS, IQA_IMAGES };

int iqa_ssim_work_init(iqa_ssim_work *wk, int max_w)
{
    memset(wk, 0, sizeof(*wk));
    const size_t n = (size_t)(max_w > 0 ? max_w : 1);
    wk->max_w = max_w;
    wk->prod = malloc(3 * n * sizeof(float));
    wk->ring = malloc((size_t)IQA_WINDOW * IQA_IMAGES * n * sizeof(float));
    wk->acc = malloc(n * sizeof(double));
    wk->vert = malloc((size_t)IQA_IMAGES * n * sizeof(float));
    wk->lcs = malloc(3 * n * sizeof(double));
    if (!wk->prod || !wk->ring || !wk->acc || !wk->vert || !wk->lcs) {
        iqa_ssim_work_free(wk);
        return -1;
    }
    return 0;
}

void iqa_ssim_work_free(iqa_ssim_work *wk)
{
    free(wk->prod);
    free(wk->ring);
    free(wk->acc);
    free(wk->vert);
    free(wk->lcs);
    memset(wk, 0, sizeof(*wk));
}

void iqa_load(const uint8_t *src, ptrdiff_t stride, int w, int h, int bpc, float *dst)
{
    /* libvmaf divides by 2^(bpc - 8) in float: exact */
    const float scaler = (float)(1 << (bpc - 8));
    for (int y = 0; y < h; y++) {
        const uint8_t *s = src + (ptrdiff_t)y * stride;
        float *d = dst + (size_t)y * (size_t)w;
        if (bpc == 8) {
            for (int x = 0; x < w; x++)
                d[x] = (float)s[x];
        } else {
            for (int x = 0; x < w; x++)
                d[x] = (float)(uint16_t)(s[2 * x] | s[2 * x + 1] << 8) / scaler;
        }
    }
}

/* One row through the 11 taps: out[x] = (float)(sum over u of (double)(in[x + u] * tap[u])),
 * the terms in tap order. */
static void window_row(const float *in, int n, double *acc, float *out)
{
    for (int x = 0; x < n; x++)
        acc[x] = 0.0;
    for (int u = 0; u < IQA_WINDOW; u++) {
        const float t = iqa_gauss[u];
        const float *p = in + u;
        for (int x = 0; x < n; x++)
            acc[x] += (double)(p[x] * t);
    }
    for (int x = 0; x < n; x++)
        out[x] = (float)acc[x];
}

/* The horizontal pass of input row y of both images into ring slot y % 11. */
static void horizontal(const float *ref, const float *cmp, int w, int y, int dw, iqa_ssim_work *wk)
{
    const size_t n = (size_t)wk->max_w;
    const float *r = ref + (size_t)y * (size_t)w;
    const float *c = cmp + (size_t)y * (size_t)w;
    float *rr = wk->prod, *cc = wk->prod + n, *rc = wk->prod + 2 * n;
    for (int x = 0; x < w; x++) {
        rr[x] = r[x] * r[x];
        cc[x] = c[x] * c[x];
        rc[x] = r[x] * c[x];
    }
    float *slot = wk->ring + (size_t)(y % IQA_WINDOW) * IQA_IMAGES * n;
    const float *in[IQA_IMAGES] = {r, c, rr, cc, rc};
    for (int i = 0; i < IQA_IMAGES; i++)
        window_row(in[i], dw, wk->acc, slot + (size_t)i * n);
}

/* The vertical pass of output row y (input rows y .. y + 10) into wk->vert. */
static void vertical(int y, int dw, iqa_ssim_work *wk)
{
    const size_t n = (size_t)wk->max_w;
    for (int i = 0; i < IQA_IMAGES; i++) {
        double *acc = wk->acc;
        for (int x = 0; x < dw; x++)
            acc[x] = 0.0;
        for (int v = 0; v < IQA_WINDOW; v++) {
            const float t = iqa_gauss[v];
            const float *p = wk->ring + ((size_t)((y + v) % IQA_WINDOW) * IQA_IMAGES + i) * n;
            for (int x = 0; x < dw; x++)
                acc[x] += (double)(p[x] * t);
        }
        float *out = wk->vert + (size_t)i * n;
        for (int x = 0; x < dw; x++)
            out[x] = (float)acc[x];
    }
}

void iqa_ssim_constants(float *c1, float *c2, float *c3)
{
    *c1 = (0.01f * 255) * (0.01f * 255);
    *c2 = (0.03f * 255) * (0.03f * 255);
    *c3 = *c2 / 2.0f;
}

/* l, c and s of one output row, as libvmaf's default (zli-nflx) branch:
 * variances clamped at 0, the structure's cross term clamped at 0 where the
 * window is flat. */
static void lcs_row(int dw, iqa_ssim_work *wk)
{
    const size_t n = (size_t)wk->max_w;
    float c1, c2, c3;
    iqa_ssim_constants(&c1, &c2, &c3);
    const float *mu1 = wk->vert, *mu2 = wk->vert + n, *e11 = wk->vert + 2 * n,
                *e22 = wk->vert + 3 * n, *e12 = wk->vert + 4 * n;
    double *lo = wk->lcs, *co = wk->lcs + n, *so = wk->lcs + 2 * n;
    for (int x = 0; x < dw; x++) {
        const float m1 = mu1[x], m2 = mu2[x];
        float s11 = e11[x] - m1 * m1;
        float s22 = e22[x] - m2 * m2;
        s11 = 0.0f > s11 ? 0.0f : s11;
        s22 = 0.0f > s22 ? 0.0f : s22;
        const float s12 = e12[x] - m1 * m2;
        const float sd = (float)sqrt((double)(s11 * s22));
        lo[x] = (2.0 * m1 * m2 + c1) / (double)(m1 * m1 + m2 * m2 + c1);
        co[x] = (2.0 * sd + c2) / (double)(s11 + s22 + c2);
        const float cross = (s12 < 0.0f && sd <= 0.0f) ? 0.0f : s12;
        so[x] = (double)((cross + c3) / (sd + c3));
    }
}

void iqa_ssim(const float *ref, const float *cmp, int w, int h, iqa_ssim_work *wk,
              iqa_ssim_means *out)
{
    const int dw = w - IQA_WINDOW + 1, dh = h - IQA_WINDOW + 1;
    const size_t n = (size_t)wk->max_w;
    double ssim_sum = 0.0, l_sum = 0.0, c_sum = 0.0, s_sum = 0.0;
    if (dw > 0 && dh > 0) {
        for (int y = 0; y < h; y++) {
            horizontal(ref, cmp, w, y, dw, wk);
            if (y < IQA_WINDOW - 1)
                continue;
            vertical(y - (IQA_WINDOW - 1), dw, wk);
            lcs_row(dw, wk);
            /* one sequential sum over the whole map, in raster order */
            const double *lo = wk->lcs, *co = wk->lcs + n, *so = wk->lcs + 2 * n;
            for (int x = 0; x < dw; x++) {
                ssim_sum += lo[x] * co[x] * so[x];
                l_sum += lo[x];
                c_sum += co[x];
                s_sum += so[x];
            }
        }
    }
    const double count = (double)(dw * dh);
    out->ssim = (float)(ssim_sum / count);
    out->l = (float)(l_sum / count);
    out->c = (float)(c_sum / count);
    out->s = (float)(s_sum / count);
}

int iqa_decimated(int n, int factor)
{
    return n / factor + (n & 1);
}

/* libvmaf's symmetric border: one reflection, the edge sample repeated. */
static int mirror(int x, int n)
{
    if (x < 0)
        return -1 - x;
    if (x >= n)
        return 2 * n - x - 1;
    return x;
}

static int decimate_fits_1d(int n, int factor, int k)
{
    const int m = iqa_decimated(n, factor);
    const int lo = -(k / 2), hi = k - 1 - k / 2;
    for (int x = 0; x < m; x++) {
        for (int u = lo; u <= hi; u++) {
            const int c = mirror(x * factor + u, n);
            if (c < 0 || c >= n)
                return 0;
        }
    }
    return 1;
}

int iqa_decimate_fits(int w, int h, int factor, int k)
{
    return decimate_fits_1d(w, factor, k) && decimate_fits_1d(h, factor, k);
}

/* One tap of every output of a row: acc[x] += (double)(row[x * factor + off] * t),
 * the columns mirrored outside [xa, xb). */
static void decimate_tap(const float *row, int factor, int off, float t, const int *cols, int k,
                         int j, int xa, int xb, int sw, double *acc)
{
    for (int x = 0; x < xa; x++)
        acc[x] += (double)(row[cols[x * k + j]] * t);
    const float *p = row + off;
    if (factor == 2) {
        for (int x = xa; x < xb; x++)
            acc[x] += (double)(p[2 * x] * t);
    } else {
        for (int x = xa; x < xb; x++)
            acc[x] += (double)(p[x * factor] * t);
    }
    for (int x = xb; x < sw; x++)
        acc[x] += (double)(row[cols[x * k + j]] * t);
}

void iqa_decimate(const float *src, int w, int h, int factor, const float *kernel, int k,
                  float *dst, int *cols, double *acc)
{
    const int sw = iqa_decimated(w, factor), sh = iqa_decimated(h, factor);
    const int lo = -(k / 2);
    for (int x = 0; x < sw; x++)
        for (int j = 0; j < k; j++)
            cols[x * k + j] = mirror(x * factor + lo + j, w);
    if (dst == src) {
        /* in place: raster order, each output written after its reads, as
         * libvmaf's in-place decimation */
        for (int y = 0; y < sh; y++) {
            for (int x = 0; x < sw; x++) {
                const int *cx = cols + x * k;
                double sum = 0.0;
                for (int i = 0; i < k; i++) {
                    const float *row = src + (size_t)mirror(y * factor + lo + i, h) * (size_t)w;
                    const float *kr = kernel + i * k;
                    for (int j = 0; j < k; j++)
                        sum += (double)(row[cx[j]] * kr[j]);
                }
                dst[(size_t)y * (size_t)sw + (size_t)x] = (float)sum;
            }
        }
        return;
    }
    /* a row at a time, one accumulator per output, the terms of each in
     * libvmaf's order (kernel rows outer, columns inner); [xa, xb) are the
     * outputs whose taps all lie inside the row */
    int xa = (-lo + factor - 1) / factor, xb = (w - k - lo) >= 0 ? (w - k - lo) / factor + 1 : 0;
    xb = xb < sw ? xb : sw;
    xa = xa < xb ? xa : xb;
    for (int y = 0; y < sh; y++) {
        for (int x = 0; x < sw; x++)
            acc[x] = 0.0;
        for (int i = 0; i < k; i++) {
            const float *row = src + (size_t)mirror(y * factor + lo + i, h) * (size_t)w;
            for (int j = 0; j < k; j++)
                decimate_tap(row, factor, lo + j, kernel[i * k + j], cols, k, j, xa, xb, sw, acc);
        }
        float *out = dst + (size_t)y * (size_t)sw;
        for (int x = 0; x < sw; x++)
            out[x] = (float)acc[x];
    }
}

int iqa_auto_scale(int w, int h)
{
    const float a = (float)(w < h ? w : h) / 256.0f;
    const int r = a - (float)(int)a >= 0.5 ? (int)a + 1 : (int)a;
    return r > 1 ? r : 1;
}

double iqa_max_db(int w, int h, int bpc, int clip)
{
    if (!clip)
        return INFINITY;
    /* libvmaf's unsigned arithmetic: the peak squared fits 32 bits at 16 bpc */
    const unsigned peak = (1u << bpc) - 1u;
    const double mse = 0.5 / (double)((unsigned)w * (unsigned)h);
    return ceil(10. * log10((double)(peak * peak) / mse));
}

double iqa_db(double score, double max_db)
{
    const double db = -10. * log10(1 - score);
    return db < max_db ? db : max_db;
}
