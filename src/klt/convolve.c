/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* KLT's Gaussian / derivative kernels and separable convolution with zeroed
 * borders. Every output pixel keeps KLT's float accumulation order (taps of
 * the flipped kernel from the left), so loops may run over pixels in any
 * order, and rows in parallel, with identical results. */
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "klt/klt_internal.h"

static void compute_kernels(klt_kernels *k, float sigma)
{
    const float factor = 0.01f; /* tail truncation, relative to the maximum */
    const int hw = KLT_MAX_KERNEL_WIDTH / 2;
    klt_kernel *g = &k->gauss, *d = &k->deriv;
    float max_gauss = 1.0f;
    float max_deriv = (float)(sigma * exp(-0.5f));
    int i;

    for (i = -hw; i <= hw; i++) {
        /* the quotient is float (int / float), exp is double */
        g->data[i + hw] = (float)exp(-i * i / (2 * sigma * sigma));
        d->data[i + hw] = -i * g->data[i + hw];
    }
    /* width: drop taps from both ends while |value| / max < factor */
    g->width = KLT_MAX_KERNEL_WIDTH;
    for (i = -hw; i < hw && fabs(g->data[i + hw] / max_gauss) < factor; i++)
        g->width -= 2;
    d->width = KLT_MAX_KERNEL_WIDTH;
    for (i = -hw; i < hw && fabs(d->data[i + hw] / max_deriv) < factor; i++)
        d->width -= 2;
    if (g->width < 1)
        g->width = 1;
    if (d->width < 1)
        d->width = 1;

    /* move the kept taps to the front */
    memmove(g->data, g->data + (KLT_MAX_KERNEL_WIDTH - g->width) / 2,
            (size_t)g->width * sizeof(float));
    memmove(d->data, d->data + (KLT_MAX_KERNEL_WIDTH - d->width) / 2,
            (size_t)d->width * sizeof(float));

    /* normalize: sum(g) = 1, -sum(i * d[i]) = 1, float accumulation in order */
    float den = 0.0f;
    for (i = 0; i < g->width; i++)
        den += g->data[i];
    for (i = 0; i < g->width; i++)
        g->data[i] /= den;
    int dhw = d->width / 2;
    den = 0.0f;
    for (i = -dhw; i <= dhw; i++)
        den -= i * d->data[i + dhw];
    for (i = -dhw; i <= dhw; i++)
        d->data[i + dhw] /= den;

    k->sigma_last = sigma;
}

void klt_kernel_widths(klt_kernels *k, float sigma, int *gauss_width, int *deriv_width)
{
    compute_kernels(k, sigma);
    *gauss_width = k->gauss.width;
    *deriv_width = k->deriv.width;
}

void klt_kernels_for(klt_kernels *k, float sigma)
{
    if (fabs(sigma - k->sigma_last) > 0.05)
        compute_kernels(k, sigma);
}

/* ---- horizontal pass: out[i] = sum_m in[i - r + m] * k[w-1-m]; 0 within r of
 *      the left/right edge ---- */

typedef struct conv_job {
    const klt_image *in;
    klt_image *out;
    const klt_kernel *kern;
    int ss; /* subsample step (1 = every pixel) */
} conv_job;

static void horiz_rows(void *arg, int begin, int end, int thread)
{
    const conv_job *jb = arg;
    const int ncols = jb->in->ncols;
    const int w = jb->kern->width, r = w / 2;
    const float *kd = jb->kern->data;
    for (int j = begin; j < end; j++) {
        const float *restrict src = jb->in->data + (size_t)j * ncols;
        float *restrict dst = jb->out->data + (size_t)j * ncols;
        int lo = r, hi = ncols - r;
        if (hi < lo)
            hi = lo = ncols; /* image narrower than the kernel: all zero */
        for (int i = 0; i < lo; i++)
            dst[i] = 0.0f;
        for (int i = lo; i < hi; i++)
            dst[i] = 0.0f;
        for (int m = 0; m < w; m++) {
            const float kv = kd[w - 1 - m];
            const float *restrict s = src + m;
            for (int i = lo; i < hi; i++)
                dst[i] += s[i - r] * kv;
        }
        for (int i = hi; i < ncols; i++)
            dst[i] = 0.0f;
    }
}

static void vert_rows(void *arg, int begin, int end, int thread)
{
    const conv_job *jb = arg;
    const int ncols = jb->in->ncols, nrows = jb->in->nrows;
    const int w = jb->kern->width, r = w / 2;
    const float *kd = jb->kern->data;
    for (int j = begin; j < end; j++) {
        float *restrict dst = jb->out->data + (size_t)j * ncols;
        if (j < r || j >= nrows - r) {
            memset(dst, 0, (size_t)ncols * sizeof(float));
            continue;
        }
        for (int i = 0; i < ncols; i++)
            dst[i] = 0.0f;
        for (int m = 0; m < w; m++) {
            const float kv = kd[w - 1 - m];
            const float *restrict s = jb->in->data + (size_t)(j - r + m) * ncols;
            for (int i = 0; i < ncols; i++)
                dst[i] += s[i] * kv;
        }
    }
}

static int rows_grain(int ncols)
{
    /* at least ~16k pixels per chunk so small levels stay serial */
    int g = 16384 / (ncols > 0 ? ncols : 1);
    return g < 1 ? 1 : g;
}

static void convolve_separate(fovea_context *ctx, const klt_image *in, const klt_kernel *hk,
                              const klt_kernel *vk, klt_image *tmp, klt_image *out)
{
    conv_job jb = {in, tmp, hk, 1};
    fv_parallel_for(ctx, in->nrows, rows_grain(in->ncols), horiz_rows, &jb);
    conv_job jv = {tmp, out, vk, 1};
    fv_parallel_for(ctx, in->nrows, rows_grain(in->ncols), vert_rows, &jv);
}

void klt_smooth(fovea_context *ctx, klt_kernels *k, const klt_image *in, float sigma,
                klt_image *tmp, klt_image *out)
{
    klt_kernels_for(k, sigma);
    tmp->ncols = out->ncols = in->ncols;
    tmp->nrows = out->nrows = in->nrows;
    convolve_separate(ctx, in, &k->gauss, &k->gauss, tmp, out);
}

void klt_gradients(fovea_context *ctx, klt_kernels *k, const klt_image *in, float sigma,
                   klt_image *tmp, klt_image *gx, klt_image *gy)
{
    klt_kernels_for(k, sigma);
    tmp->ncols = gx->ncols = gy->ncols = in->ncols;
    tmp->nrows = gx->nrows = gy->nrows = in->nrows;
    convolve_separate(ctx, in, &k->deriv, &k->gauss, tmp, gx);
    convolve_separate(ctx, in, &k->gauss, &k->deriv, tmp, gy);
}

/* ---- smoothing evaluated only at the pyramid's sample points ---- */

typedef struct sub_job {
    const klt_image *in;
    klt_image *tmp; /* in->nrows x out->ncols: horizontal pass at sampled columns */
    klt_image *out;
    const klt_kernel *kern;
    int ss;
} sub_job;

static void sub_horiz(void *arg, int begin, int end, int thread)
{
    const sub_job *jb = arg;
    const int ncols = jb->in->ncols, oc = jb->out->ncols, ss = jb->ss;
    const int w = jb->kern->width, r = w / 2;
    const float *kd = jb->kern->data;
    for (int j = begin; j < end; j++) {
        const float *src = jb->in->data + (size_t)j * ncols;
        float *dst = jb->tmp->data + (size_t)j * oc;
        for (int x = 0; x < oc; x++) {
            int i = ss * x + ss / 2;
            if (i < r || i >= ncols - r) {
                dst[x] = 0.0f;
                continue;
            }
            const float *s = src + i - r;
            float sum = 0.0f;
            for (int m = 0; m < w; m++)
                sum += s[m] * kd[w - 1 - m];
            dst[x] = sum;
        }
    }
}

static void sub_vert(void *arg, int begin, int end, int thread)
{
    const sub_job *jb = arg;
    const int nrows = jb->in->nrows, oc = jb->out->ncols, ss = jb->ss;
    const int w = jb->kern->width, r = w / 2;
    const float *kd = jb->kern->data;
    for (int y = begin; y < end; y++) {
        int j = ss * y + ss / 2;
        float *restrict dst = jb->out->data + (size_t)y * oc;
        if (j < r || j >= nrows - r) {
            memset(dst, 0, (size_t)oc * sizeof(float));
            continue;
        }
        for (int x = 0; x < oc; x++)
            dst[x] = 0.0f;
        for (int m = 0; m < w; m++) {
            const float kv = kd[w - 1 - m];
            const float *restrict s = jb->tmp->data + (size_t)(j - r + m) * oc;
            for (int x = 0; x < oc; x++)
                dst[x] += s[x] * kv;
        }
    }
}

void klt_smooth_subsample(fovea_context *ctx, klt_kernels *k, const klt_image *in, float sigma,
                          int ss, klt_image *tmp, klt_image *out)
{
    klt_kernels_for(k, sigma);
    out->ncols = in->ncols / ss;
    out->nrows = in->nrows / ss;
    tmp->ncols = out->ncols;
    tmp->nrows = in->nrows;
    sub_job jb = {in, tmp, out, &k->gauss, ss};
    fv_parallel_for(ctx, in->nrows, rows_grain(out->ncols), sub_horiz, &jb);
    fv_parallel_for(ctx, out->nrows, rows_grain(out->ncols), sub_vert, &jb);
}
