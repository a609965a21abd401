/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Multi-band blending on the CUDA backend's device (host side): the device
 * copies of the coverage, the masks' pyramids, the pyramid scratch, and the
 * sequence of multiband.cu's kernels that computes pyramid.c's numbers (the
 * same integer arithmetic: the same panorama as the C backend), every
 * camera's pyramid in the same launches. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "core/stage.h"
#include "stitch/multiband.h"
#include "stitch/multiband_cuda.h"
#include "stitch/pyramid.h"
#include "stitch/seam.h"

_Static_assert(MB_SEAM_CELL == SEAM_CELL, "seam cells shared with multiband.cu");
_Static_assert(MB_MAXC == FOVEA_STITCH_MAX_CAMERAS, "camera limit shared with multiband.cu");

typedef struct mb_cuda {
    fovea_context *ctx;
    int n, w, h, cw, ch;
    fv_pyr_geom g, cg;       /* luma (or RGBA) and chroma pyramids */
    fv_pyr_plan plan, cplan; /* where each camera matters (pyramid.h) */
    uint8_t *d_seen[FOVEA_STITCH_MAX_CAMERAS], *d_cseen[FOVEA_STITCH_MAX_CAMERAS];
    uint8_t *d_covered, *d_ccovered, *d_label;
    /* the masks' pyramids, n of g.total (luma) and of cg.total (chroma) */
    int16_t *d_mask, *d_cmask;
    /* pyramid scratch: every camera's Gaussian levels, then the feathered
     * panorama's (n + 1 slots g.total apart; the chroma planes use
     * cg.total), the blended Laplacian then the collapse (one pyramid), each
     * slot's horizontal pass of a level (w x h apart); a slot is written only
     * inside its pieces' boxes */
    int16_t *d_gauss, *d_lap;
    int32_t *d_tmp;
    size_t tmp_bs; /* entries of a slot of d_tmp: the largest horizontal pass */
    uint32_t *d_cells;
    int32_t *d_diffs, *h_diffs; /* h_diffs pinned */
    size_t ncells;
    fv_stage in[FOVEA_STITCH_MAX_CAMERAS];
    fovea_frame pano; /* the panorama when the caller's output is not on the device */
} mb_cuda;

static void mbc_close(void **pdev)
{
    mb_cuda *d = *pdev;
    if (!d)
        return;
    fovea_context *ctx = d->ctx;
    cudaSetDevice(fovea_context_device(ctx));
    cudaStreamSynchronize(fv_ctx_stream(ctx));
    for (int c = 0; c < FOVEA_STITCH_MAX_CAMERAS; c++) {
        fv_device_free(ctx, d->d_seen[c]);
        fv_device_free(ctx, d->d_cseen[c]);
        fv_stage_close(ctx, &d->in[c]);
    }
    fv_device_free(ctx, d->d_covered);
    fv_device_free(ctx, d->d_ccovered);
    fv_device_free(ctx, d->d_label);
    fv_device_free(ctx, d->d_mask);
    fv_device_free(ctx, d->d_cmask);
    fv_device_free(ctx, d->d_gauss);
    fv_device_free(ctx, d->d_lap);
    fv_device_free(ctx, d->d_tmp);
    fv_device_free(ctx, d->d_cells);
    fv_device_free(ctx, d->d_diffs);
    fv_pinned_free(ctx, d->h_diffs);
    fovea_frame_free(ctx, &d->pano);
    free(d);
    *pdev = NULL;
}

/* A device copy of a host array (synchronous: the coverage is made once). */
static int upload(fovea_context *ctx, void **dst, const void *src, size_t bytes)
{
    int status = fv_device_malloc(ctx, bytes, dst);
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice));
    return status;
}

static int mbc_open(void **pdev, fovea_context *ctx, const mb_setup *s)
{
    *pdev = NULL;
    mb_cuda *d = calloc(1, sizeof(*d));
    if (!d)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    d->ctx = ctx;
    d->n = s->n;
    d->w = s->w;
    d->h = s->h;
    d->cw = s->cw;
    d->ch = s->ch;
    d->plan = *s->plan;
    d->cplan = *s->cplan;
    fv_pyr_geom_init(&d->g, s->w, s->h, s->levels);
    fv_pyr_geom_init(&d->cg, s->cw, s->ch, s->levels);
    const size_t px = (size_t)s->w * (size_t)s->h, cpx = (size_t)s->cw * (size_t)s->ch;
    /* a horizontal pass: REDUCE's of level k, ceil(w_k / 2) x h_k, or
     * EXPAND's of level k + 1 to level k, w_k x ceil(h_k / 2); level 0's
     * are the largest */
    const size_t red = (size_t)pyr_half(s->w) * (size_t)s->h;
    const size_t expd = (size_t)s->w * (size_t)pyr_half(s->h);
    d->tmp_bs = red > expd ? red : expd;
    const size_t t = d->g.total, n = (size_t)d->n;
    int status = fv_device_activate(ctx);
    for (int c = 0; c < d->n && status == FOVEA_OK; c++) {
        status = upload(ctx, (void **)&d->d_seen[c], s->seen[c], px);
        if (status == FOVEA_OK)
            status = upload(ctx, (void **)&d->d_cseen[c], s->cseen[c], cpx);
    }
    /* sizes below 16384 x 16384 x 16 cameras x 4/3 x 4 bytes: no overflow in size_t */
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, n * t * sizeof(int16_t), (void **)&d->d_mask);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, n * d->cg.total * sizeof(int16_t), (void **)&d->d_cmask);
    if (status == FOVEA_OK)
        status = upload(ctx, (void **)&d->d_covered, s->covered, px);
    if (status == FOVEA_OK)
        status = upload(ctx, (void **)&d->d_ccovered, s->ccovered, cpx);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, px, (void **)&d->d_label);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, (n + 1) * t * sizeof(int16_t), (void **)&d->d_gauss);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, t * sizeof(int16_t), (void **)&d->d_lap);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, (n + 1) * d->tmp_bs * sizeof(int32_t), (void **)&d->d_tmp);
    d->ncells = s->cells ? s->ncells : 0;
    if (status == FOVEA_OK && d->ncells > 0) {
        status = upload(ctx, (void **)&d->d_cells, s->cells, d->ncells * 2 * sizeof(uint32_t));
        if (status == FOVEA_OK)
            status = fv_device_malloc(ctx, d->ncells * sizeof(int32_t), (void **)&d->d_diffs);
        if (status == FOVEA_OK)
            status = fv_pinned_malloc(ctx, d->ncells * sizeof(int32_t), (void **)&d->h_diffs);
    }
    if (status < 0) {
        void *p = d;
        mbc_close(&p);
        return status;
    }
    *pdev = d;
    return FOVEA_OK;
}

static int mbc_stage(void *dev, const fovea_frame *const *in, const fovea_frame **view)
{
    mb_cuda *d = dev;
    FOVEA_TRY(fv_device_activate(d->ctx));
    for (int c = 0; c < d->n; c++)
        FOVEA_TRY(fv_stage_upload(d->ctx, &d->in[c], in[c], &view[c]));
    return FOVEA_OK;
}

static int mbc_target(void *dev, fovea_frame *out, fovea_frame **pano)
{
    mb_cuda *d = dev;
    if (out->mem == FOVEA_MEM_DEVICE) {
        *pano = out;
        return FOVEA_OK;
    }
    FOVEA_TRY(fv_frame_ensure(d->ctx, &d->pano, out, FOVEA_MEM_DEVICE));
    *pano = &d->pano;
    return FOVEA_OK;
}

static int mbc_seam_diffs(void *dev, const fovea_frame *warped, int32_t *diffs)
{
    mb_cuda *d = dev;
    fovea_context *ctx = d->ctx;
    if (d->ncells == 0)
        return FOVEA_OK;
    mb_planes pl;
    memset(&pl, 0, sizeof(pl));
    for (int c = 0; c < d->n; c++) {
        pl.p[c] = warped[c].data[0];
        pl.stride[c] = (int)warped[c].stride[0];
    }
    const cudaStream_t stream = fv_ctx_stream(ctx);
    FOVEA_CUDA_TRY(ctx, fv_mb_seam_diffs(&pl, warped[0].fmt == FOVEA_PIX_RGBA, d->w, d->h,
                                         d->d_cells, (int)d->ncells, d->d_diffs, stream));
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(d->h_diffs, d->d_diffs, d->ncells * sizeof(int32_t),
                                        cudaMemcpyDeviceToHost, stream));
    /* the dynamic programming runs on the host, on this frame's map */
    FOVEA_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    memcpy(diffs, d->h_diffs, d->ncells * sizeof(int32_t));
    return FOVEA_OK;
}

static mb_box to_mb(fv_pyr_box b)
{
    mb_box m = {b.x0, b.x1, b.y0, b.y1};
    return m;
}

static mb_box box_and(fv_pyr_box a, fv_pyr_box b)
{
    mb_box r = {a.x0 > b.x0 ? a.x0 : b.x0, a.x1 < b.x1 ? a.x1 : b.x1, a.y0 > b.y0 ? a.y0 : b.y0,
                a.y1 < b.y1 ? a.y1 : b.y1};
    return r;
}

/* Levels 1 .. K of n whole pyramids (slots bstride apart, the masks') whose
 * level 0 is filled (fv_pyr_gauss). */
static int gauss_whole(mb_cuda *d, const fv_pyr_geom *g, int16_t *pyr, size_t bstride)
{
    const size_t px = d->tmp_bs;
    mb_jobs j;
    memset(&j, 0, sizeof(j));
    j.count = d->n;
    for (int k = 0; k < g->levels; k++) {
        for (int c = 0; c < d->n; c++) {
            mb_box b = {0, g->w[k + 1], 0, g->h[k + 1]};
            j.slot[c] = c;
            j.b[c] = b;
        }
        FOVEA_CUDA_TRY(d->ctx,
                       fv_mb_reduce(pyr + g->off[k], g->w[k], g->h[k], d->d_tmp,
                                    pyr + g->off[k + 1], bstride, px, &j, fv_ctx_stream(d->ctx)));
    }
    return FOVEA_OK;
}

static int mbc_set_labels(void *dev, const uint8_t *label, int yuv)
{
    mb_cuda *d = dev;
    fovea_context *ctx = d->ctx;
    const cudaStream_t stream = fv_ctx_stream(ctx);
    /* pageable source: the call returns once label is read */
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(d->d_label, label, (size_t)d->w * (size_t)d->h,
                                        cudaMemcpyHostToDevice, stream));
    for (int c = 0; c < d->n; c++) {
        int16_t *m = d->d_mask + (size_t)c * d->g.total;
        FOVEA_CUDA_TRY(ctx, fv_mb_mask0(d->d_label, d->w, d->h, c, m, stream));
        if (yuv)
            FOVEA_CUDA_TRY(ctx,
                           fv_mb_chroma_mask(m, d->w, d->h, d->d_cmask + (size_t)c * d->cg.total,
                                             d->cw, d->ch, stream));
    }
    FOVEA_TRY(gauss_whole(d, &d->g, d->d_mask, d->g.total));
    if (yuv)
        FOVEA_TRY(gauss_whole(d, &d->cg, d->d_cmask, d->cg.total));
    return FOVEA_OK;
}

/* The jobs of level k: every piece (slot: its camera) with box q (Gaussian
 * levels) or r (Laplacian, inside the blend's box c), and, when f, the
 * feathered panorama (slot n) with box fq or c. */
static void level_jobs(const mb_cuda *d, const fv_pyr_plan *p, int k, int lap, int f, mb_jobs *j)
{
    memset(j, 0, sizeof(*j));
    for (int i = 0; i < p->npieces; i++) {
        j->slot[j->count] = p->cam[i];
        j->b[j->count++] = lap ? box_and(p->r[i][k], p->c[k]) : to_mb(p->q[i][k]);
    }
    if (f) {
        j->slot[j->count] = d->n;
        j->b[j->count++] = to_mb(lap ? p->c[k] : p->fq[k]);
    }
}

/* fv_pyr_blend_plane_plan on the device: the pieces' and the feathered
 * panorama's Gaussian levels in their boxes (F read from dst), then per level
 * the blended Laplacian (all cameras at once) in the blend's box, then the
 * collapse. */
static int blend_plane(mb_cuda *d, const fv_pyr_geom *g, const fv_pyr_plan *p, mb_planes *src,
                       int step, const int16_t *masks, const uint8_t *covered, uint8_t *dst,
                       ptrdiff_t dst_stride)
{
    fovea_context *ctx = d->ctx;
    const cudaStream_t s = fv_ctx_stream(ctx);
    const int K = g->levels, n = d->n;
    const size_t bs = g->total, px = d->tmp_bs;
    mb_jobs j, pieces;
    src->p[n] = dst;
    src->stride[n] = (int)dst_stride;
    level_jobs(d, p, 0, 0, 1, &j);
    FOVEA_CUDA_TRY(ctx, fv_mb_load(src, step, g->w[0], &j, d->d_gauss, bs, s));
    for (int k = 0; k < K; k++) {
        level_jobs(d, p, k + 1, 0, 1, &j);
        FOVEA_CUDA_TRY(ctx, fv_mb_reduce(d->d_gauss + g->off[k], g->w[k], g->h[k], d->d_tmp,
                                         d->d_gauss + g->off[k + 1], bs, px, &j, s));
    }
    mb_masks mk;
    memset(&mk, 0, sizeof(mk));
    for (int k = 0; k <= K; k++) {
        const int ch = k < K ? g->h[k + 1] : 1;
        level_jobs(d, p, k, 1, 1, &j);
        if (k < K)
            FOVEA_CUDA_TRY(ctx, fv_mb_expand_h(d->d_gauss + g->off[k + 1], g->w[k + 1], g->h[k + 1],
                                               d->d_tmp, g->w[k], bs, px, &j, s));
        for (int c = 0; c < n; c++)
            mk.m[c] = masks + (size_t)c * bs + g->off[k];
        level_jobs(d, p, k, 1, 0, &pieces);
        FOVEA_CUDA_TRY(ctx, fv_mb_blend_level(d->d_gauss + g->off[k], bs, k < K ? d->d_tmp : NULL,
                                              px, g->w[k], ch, &mk, n, &pieces, to_mb(p->c[k]),
                                              d->d_lap + g->off[k], s));
    }
    for (int k = K; k >= 0; k--) {
        const int ch = k < K ? g->h[k + 1] : 1;
        memset(&j, 0, sizeof(j));
        j.count = 1;
        j.b[0] = to_mb(p->c[k]);
        if (k < K)
            FOVEA_CUDA_TRY(ctx, fv_mb_expand_h(d->d_lap + g->off[k + 1], g->w[k + 1], g->h[k + 1],
                                               d->d_tmp, g->w[k], 0, 0, &j, s));
        FOVEA_CUDA_TRY(ctx, fv_mb_collapse(d->d_lap + g->off[k], k < K ? d->d_tmp : NULL, g->w[k],
                                           ch, to_mb(p->c[k]), s));
    }
    FOVEA_CUDA_TRY(
        ctx, fv_mb_store(d->d_lap, g->w[0], covered, dst, dst_stride, step, to_mb(p->c[0]), s));
    return FOVEA_OK;
}

static int mbc_blend(void *dev, fovea_frame *warped, fovea_frame *pano)
{
    mb_cuda *d = dev;
    fovea_context *ctx = d->ctx;
    const cudaStream_t s = fv_ctx_stream(ctx);
    const int yuv = pano->fmt == FOVEA_PIX_I420;
    /* pixels a camera does not see take the feathered panorama's value,
     * where the blend reads the camera (its pieces' level-0 boxes) */
    for (int k = 0; k < (yuv ? 3 : 1); k++) {
        const fv_pyr_plan *p = k ? &d->cplan : &d->plan;
        for (int i = 0; i < p->npieces; i++) {
            const int c = p->cam[i];
            FOVEA_CUDA_TRY(ctx,
                           fv_mb_fill_unseen(warped[c].data[k], warped[c].stride[k], pano->data[k],
                                             pano->stride[k], k ? d->d_cseen[c] : d->d_seen[c],
                                             k ? d->cw : d->w, to_mb(p->q[i][0]), yuv ? 1 : 4, s));
        }
    }
    mb_planes src;
    memset(&src, 0, sizeof(src));
    for (int k = 0; k < 3; k++) {
        const int p = yuv ? k : 0, chroma = yuv && k > 0;
        for (int c = 0; c < d->n; c++) {
            src.p[c] = warped[c].data[p] + (yuv ? 0 : k);
            src.stride[c] = (int)warped[c].stride[p];
        }
        FOVEA_TRY(blend_plane(d, chroma ? &d->cg : &d->g, chroma ? &d->cplan : &d->plan, &src,
                              yuv ? 1 : 4, chroma ? d->d_cmask : d->d_mask,
                              chroma ? d->d_ccovered : d->d_covered, pano->data[p] + (yuv ? 0 : k),
                              pano->stride[p]));
    }
    return FOVEA_OK;
}

static int mbc_finish(void *dev, const fovea_frame *pano, fovea_frame *out)
{
    mb_cuda *d = dev;
    if (pano == out)
        return FOVEA_OK;
    FOVEA_TRY(fovea_frame_copy(d->ctx, out, pano));
    /* a pageable output is complete on return; a pinned one is waited for by
     * fovea_stitcher_process, not by the async variant */
    return out->mem == FOVEA_MEM_HOST ? fovea_sync(d->ctx) : FOVEA_OK;
}

const mb_device_ops multiband_cuda_ops = {
    mbc_open,       mbc_close,      mbc_stage, mbc_target,
    mbc_seam_diffs, mbc_set_labels, mbc_blend, mbc_finish,
};
