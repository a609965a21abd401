/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractor of the feature "ciede" (host side): ciede.cu certifies
 * every pixel's dE00 on the device; the pixels it cannot certify come to the
 * host function below through a list in mapped pinned memory and are
 * computed with the C arithmetic (ciede_pixel.h, this machine's libm), in
 * stream order before the device's raster-order double sum. When a batch's
 * list overflows (more than CIEDE_CUDA_CAP ambiguous pixels: adversarial
 * content), raw() recomputes each pair that lost entries with the C
 * extractor's frame loop on a host copy of its planes (the rare slow path:
 * pinned and device frames stay valid until their scores were received, the
 * queue's staging until then too). */
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "quality/ciede.h"
#include "quality/ciede_cuda.h"
#include "quality/ciede_pixel.h"

/* Ambiguous pixels a batch can send to the host (20 bytes each, pinned). */
#define CIEDE_CUDA_CAP 65536u

typedef struct ciede_cuda {
    fovea_context *ctx; /* outlives the state */
    ciede_geom g;
    ciede_cuda_args a;
    ciede_amb *h_list; /* pinned, mapped: a.list is its device address */
    float *h_vals;     /* pinned, mapped: a.vals */
    unsigned *h_count; /* pinned */
    unsigned alloc_cap;
    /* the slow path's host planes (made at the first overflow) */
    uint8_t *host;
    float *rows;
    unsigned long long ambiguous, fallbacks; /* pixels sent to the host, pairs recomputed */
} ciede_cuda;

static void cuda_close(void **priv)
{
    ciede_cuda *st = priv ? *priv : NULL;
    if (!st)
        return;
    fv_device_free(st->ctx, st->a.de);
    fv_device_free(st->ctx, st->a.count);
    fv_pinned_free(st->ctx, st->h_list);
    fv_pinned_free(st->ctx, st->h_vals);
    fv_pinned_free(st->ctx, st->h_count);
    free(st->host);
    free(st->rows);
    free(st);
    *priv = NULL;
}

/* The host function (a driver thread, in stream order after the pixel
 * kernel and the copy of the count): C's values of the listed pixels. */
static void host_patch(void *data)
{
    ciede_cuda *st = data;
    const unsigned n = *st->h_count < st->a.cap ? *st->h_count : st->a.cap;
    for (unsigned k = 0; k < n; k++) {
        const ciede_amb *e = &st->h_list[k];
        st->h_vals[k] =
            ciede_pixel(e->s[0], e->s[1], e->s[2], e->s[3], e->s[4], e->s[5], st->g.bpc);
    }
}

static int cuda_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    /* the C extractor's refusal, word for word */
    if (s->chroma == 400)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "ciede: the input has no chroma planes (gray); CIEDE2000 needs "
                            "YUV (libvmaf refuses gray input too)");
    ciede_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->ctx = ctx;
    ciede_geom_of(&st->g, s);
    ciede_cuda_args *a = &st->a;
    a->width = s->width;
    a->height = s->height;
    a->bpc = s->bpc;
    a->chroma = s->chroma;
    a->cw = st->g.cw;
    a->ch = st->g.ch;
    a->cstride = st->g.cstride;
    a->cap = st->alloc_cap = CIEDE_CUDA_CAP;
    a->host_fn = host_patch;
    a->host_data = st;
    const int batch = s->batch < 1 ? 1 : s->batch;
    /* sizes are bounded by FOVEA_MAX_DIM and the batch: no overflow */
    const size_t de_bytes = fv_ciede_cuda_de_bytes(batch, s->width, s->height);
    int status = fv_device_malloc(ctx, de_bytes, (void **)&a->de);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, sizeof(unsigned), (void **)&a->count);
    if (status == FOVEA_OK)
        status = fv_pinned_malloc(ctx, st->alloc_cap * sizeof(ciede_amb), (void **)&st->h_list);
    if (status == FOVEA_OK)
        status = fv_pinned_malloc(ctx, st->alloc_cap * sizeof(float), (void **)&st->h_vals);
    if (status == FOVEA_OK)
        status = fv_pinned_malloc(ctx, sizeof(unsigned), (void **)&st->h_count);
    void *dl = NULL, *dv = NULL;
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaHostGetDevicePointer(&dl, st->h_list, 0));
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaHostGetDevicePointer(&dv, st->h_vals, 0));
    if (status < 0) {
        cuda_close((void **)&st);
        return status;
    }
    a->list = dl;
    a->vals = dv;
    a->h_count = st->h_count;
    *priv = st;
    return FOVEA_OK;
}

static int cuda_launch(void *priv, fovea_context *ctx, const feature_batch *b,
                       unsigned long long *sums, void *stream)
{
    ciede_cuda *st = priv;
    ciede_cuda_args *a = &st->a;
    a->nframes = b->n;
    for (int z = 0; z < b->n; z++)
        for (int p = 0; p < 3; p++)
            feature_batch_plane(b, z, p, &a->ref[p][z], &a->rstride[p][z], &a->dis[p][z],
                                &a->dstride[p][z]);
    a->sums = sums;
    FOVEA_CUDA_TRY(ctx, fv_ciede_cuda_launch(a, stream));
    return FOVEA_OK;
}

/* The slow path: pair's planes (device addresses in its counters) to the
 * host, and C's frame loop on them. NaN when a copy fails (the message is in
 * the context). */
static double host_sum(ciede_cuda *st, const unsigned long long *sums)
{
    const ciede_geom *g = &st->g;
    const size_t bytes = g->bpc > 8 ? 2 : 1;
    const size_t lrow = (size_t)g->width * bytes, crow = (size_t)g->cw * bytes;
    const size_t lsize = lrow * (size_t)g->height, csize = crow * (size_t)g->ch;
    if (!st->host) {
        st->host = malloc(2 * lsize + 4 * csize + 1);
        st->rows = malloc(4 * (size_t)g->width * sizeof(float));
        if (!st->host || !st->rows) {
            fv_ctx_error(st->ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
            return NAN;
        }
    }
    feature_pair p;
    memset(&p, 0, sizeof(p));
    uint8_t *dst = st->host;
    for (int k = 0; k < 6; k++) {
        const int luma = k % 3 == 0;
        const size_t row = luma ? lrow : crow;
        const size_t h = luma ? (size_t)g->height : (size_t)g->ch;
        const void *src = (const void *)(uintptr_t)sums[CIEDE_SUM_PLANES + k];
        const size_t spitch = (size_t)sums[CIEDE_SUM_STRIDES + k];
        if (row && h &&
            FOVEA_CUDA(st->ctx, cudaMemcpy2D(dst, row, src, spitch, row, h,
                                             cudaMemcpyDeviceToHost)) != FOVEA_OK)
            return NAN;
        if (luma) {
            *(k ? &p.dis : &p.ref) = dst;
            *(k ? &p.dis_stride : &p.ref_stride) = (ptrdiff_t)row;
        } else if (k < 3) {
            p.ref_c[k - 1] = dst;
            p.ref_c_stride[k - 1] = (ptrdiff_t)row;
        } else {
            p.dis_c[k - 4] = dst;
            p.dis_c_stride[k - 4] = (ptrdiff_t)row;
        }
        dst += row * h;
    }
    return ciede_frame_sum(g, &p, st->rows);
}

/* the sum as the C extractor stores it */
static void cuda_raw(void *priv, const unsigned long long *sums, int first, feature_raw *raw)
{
    ciede_cuda *st = priv;
    (void)first;
    double sum;
    st->ambiguous += sums[CIEDE_SUM_AMBIGUOUS];
    if (sums[CIEDE_SUM_OVERFLOW]) {
        st->fallbacks++;
        sum = host_sum(st, sums);
    } else {
        const unsigned long long bits = sums[CIEDE_SUM_BITS];
        memcpy(&sum, &bits, sizeof(sum));
    }
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, &sum, sizeof(sum));
}

void ciede_cuda_stats(void *priv, unsigned cap, unsigned long long *ambiguous,
                      unsigned long long *fallbacks)
{
    ciede_cuda *st = priv;
    if (cap)
        st->a.cap = cap < st->alloc_cap ? cap : st->alloc_cap;
    if (ambiguous)
        *ambiguous = st->ambiguous;
    if (fallbacks)
        *fallbacks = st->fallbacks;
}

const feature_extractor feature_ciede_cuda = {
    &feature_ciede, FOVEA_BACKEND_CUDA,   cuda_init,   cuda_close, NULL,
    CIEDE_SUMS,     CIEDE_CUDA_MAX_BATCH, cuda_launch, cuda_raw,
};
