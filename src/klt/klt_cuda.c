/* CUDA backend of KLT (host side): per tracking context, on the caller's CUDA
 * context (its device and stream; klt_backends.c gives it), two device
 * pyramids (the kept one of sequential mode stays on the GPU), selection
 * buffers and feature arrays, all allocated
 * on first use or size change and reused. Per call: the frame upload, the
 * kernels of klt.cu on the stream, one copy of the feature arrays each way. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/cuda_util.h"
#include "core/device.h"
#include "klt/klt_cuda.h"
#include "klt/klt_internal.h"

/* The candidate grid of a selection (select.c): gradients, borders, step,
 * window and threshold; two selections with equal grids sort the same list. */
typedef struct kc_cand_grid {
    const float *gx, *gy;
    int ncols, bx, by, step, nx, ny, hw, hh, min_eig;
    size_t npoints;
} kc_cand_grid;

typedef struct kc_pyr {
    int valid, nlevels, ss, ncols, nrows;
    int w[KLT_MAX_LEVELS], h[KLT_MAX_LEVELS];
    float *img[KLT_MAX_LEVELS], *gx[KLT_MAX_LEVELS], *gy[KLT_MAX_LEVELS];
    size_t cap[KLT_MAX_LEVELS];     /* floats of each of img/gx/gy at a level */
    unsigned char *raw;             /* pinned: the input bytes (upload source, reuse test) */
    size_t raw_cap;
    int raw_host;                   /* raw holds the input (it came from pageable memory) */
    unsigned char *d_raw;           /* the input bytes on the device (every input) */
    size_t d_raw_cap;
    float sig[2 * KLT_MAX_LEVELS];  /* as klt_pyramid.sig */
} kc_pyr;

typedef struct kc_state {
    fovea_context *ctx;             /* not owned: the device and stream the backend runs on */
    kc_pyr pyr[2];
    float *d_tmp;
    size_t tmp_cap;                 /* floats */
    float *d_sel;                   /* 3 images: smoothed, gx, gy */
    size_t sel_cap;                 /* floats per image */
    unsigned char *h_selraw, *d_selraw;
    size_t h_selraw_cap, d_selraw_cap;
    unsigned char *d_cmp;           /* an input compared with a kept one, on the device */
    size_t d_cmp_cap;
    int *d_flag, *h_flag;           /* the comparison's answer (device, pinned) */
    int *d_keys;                    /* sort check only: values */
    unsigned *d_pix;                /* sort check only: ids */
    size_t pts_cap;                 /* points */
    int *d_qs;                      /* quicksort emulation (klt_cuda_qs), one block */
    size_t qs_cap;                  /* bytes */
    int qs_blocks, qs_coop;         /* the sort's grid (klt_cuda_qs_grid); 0: not asked yet */
    int kcap_hint[2];               /* sort prefix the last selection's pass needed
                                     * [0] KLTSelectGoodFeatures, [1] replacement */
    unsigned char *d_map;
    size_t map_cap;
    uint32_t *d_feat, *h_feat;      /* feature arrays, layout below */
    size_t feat_cap, h_feat_cap;    /* bytes */
    int *slots;                     /* host: slots to fill in selection order */
    size_t slots_cap;               /* bytes */
    float *h_aff;                   /* host copies of level 0 for the affine check */
    size_t h_aff_cap;               /* bytes */
    float *aff_win;
    size_t aff_win_cap;             /* bytes */
    /* Candidates of the next replacement, computed ahead: when a replacement
     * followed the last track call, the next track call starts the
     * eigenvalue map and the sort's first round for its new pyramid on a
     * second stream as soon as the pyramid is built; they run beside the
     * tracking kernel and the call's return, and a replacement that asks for
     * exactly those candidates waits for them instead of computing them. */
    void *spec_stream;              /* cudaStream_t, created on first use */
    void *spec_built, *spec_done;   /* cudaEvent_t: pyramid built (main stream), work done */
    int spec_wanted;                /* the last track call was followed by a replacement */
    int spec_launched;              /* spec_done marks work that reads a pyramid, writes d_qs */
    int spec_ready;                 /* spec_* below are sorted and not consumed yet */
    kc_cand_grid spec_grid;
    int spec_kcap;
} kc_state;

/* feature arrays of n slots, 32-bit words: in x, y, val | out x, y, xloc, yloc,
 * val | selection: survivor points (2n), taken pixels, taken values, count */
enum { F_IN_X, F_IN_Y, F_IN_VAL, F_OUT_X, F_OUT_Y, F_OUT_XLOC, F_OUT_YLOC, F_OUT_VAL,
       F_PTS, F_TAKE_PIX = F_PTS + 2, F_TAKE_VAL, F_COUNT };
/* after the n * F_COUNT words: taken count, "needs more candidates" flag,
 * candidates the last pass could read (its sort prefix) */

/* A failed call's end: a failure reported through the context (CUDA, device
 * memory; after it nothing on the GPU is trusted) becomes the tracking
 * context's error; one the KLT checks reported already (klt_fail) stays. */
static int kc_end(KLT_TrackingContext tc, kc_state *kc, int rc)
{
    klt_state *st = klt_priv(tc);
    if (rc >= 0 || st->status < 0)
        return rc;
    st->have_last = 0;
    kc->pyr[0].valid = kc->pyr[1].valid = 0;
    return klt_fail(tc, rc, "CUDA backend: %s", fovea_last_error(kc->ctx));
}

static cudaStream_t kc_stream(const kc_state *kc)
{
    return fv_ctx_stream(kc->ctx);
}

/* ---------------------------------------------------------------- buffers */

static int dev_ensure(kc_state *kc, void **p, size_t *cap, size_t bytes)
{
    if (*p && bytes <= *cap)
        return FOVEA_OK;
    if (*p) {
        /* buffers are only replaced between calls: nothing queued on the
         * call's stream uses them; work computed ahead may, so it ends first */
        if (kc->spec_launched) {
            int rc = FOVEA_CUDA(kc->ctx, cudaStreamSynchronize((cudaStream_t)kc->spec_stream));
            if (rc < 0)
                return rc;
        }
        fv_device_free(kc->ctx, *p);
        *p = NULL;
        *cap = 0;
    }
    int rc = fv_device_malloc(kc->ctx, bytes ? bytes : 1, p);
    if (rc == FOVEA_OK)
        *cap = bytes;
    return rc;
}

static int pinned_ensure(kc_state *kc, void **p, size_t *cap, size_t bytes)
{
    if (*p && bytes <= *cap)
        return FOVEA_OK;
    if (*p) {
        fv_pinned_free(kc->ctx, *p);
        *p = NULL;
        *cap = 0;
    }
    int rc = fv_pinned_malloc(kc->ctx, bytes ? bytes : 1, p);
    if (rc == FOVEA_OK)
        *cap = bytes;
    return rc;
}

static int floats_bytes(size_t n, size_t *bytes)
{
    return fv_mul_size(n ? n : 1, sizeof(float), bytes) ? FOVEA_OK : FOVEA_ERR_NOMEM;
}

/* Copy img to the device. Pageable host memory goes through pinned staging in
 * slices, so that the host copy of one slice overlaps the transfer of the
 * previous one; pinned host and device (or managed) memory are copied
 * directly (kind: fv_ptr_memtype of img). */
static int upload(kc_state *kc, unsigned char *pinned, unsigned char *dev,
                  const unsigned char *img, size_t n, fovea_memtype kind)
{
    if (kind != FOVEA_MEM_HOST)
        return FOVEA_CUDA(kc->ctx, cudaMemcpyAsync(dev, img, n, cudaMemcpyDefault,
                                                   kc_stream(kc)));
    const size_t slice = (size_t)1 << 19;
    for (size_t off = 0; off < n; off += slice) {
        size_t len = n - off < slice ? n - off : slice;
        memcpy(pinned + off, img + off, len);
        int rc = FOVEA_CUDA(kc->ctx, cudaMemcpyAsync(dev + off, pinned + off, len,
                                                     cudaMemcpyHostToDevice, kc_stream(kc)));
        if (rc < 0)
            return rc;
    }
    return FOVEA_OK;
}

static void kc_free_pyr(kc_state *kc, kc_pyr *p)
{
    for (int i = 0; i < KLT_MAX_LEVELS; i++) {
        fv_device_free(kc->ctx, p->img[i]);
        fv_device_free(kc->ctx, p->gx[i]);
        fv_device_free(kc->ctx, p->gy[i]);
    }
    fv_device_free(kc->ctx, p->d_raw);
    fv_pinned_free(kc->ctx, p->raw);
    memset(p, 0, sizeof *p);
}

static void cuda_close(void **priv)
{
    kc_state *kc = *priv;
    if (!kc)
        return;
    if (kc->spec_stream)
        cudaStreamSynchronize((cudaStream_t)kc->spec_stream);
    fv_device_sync(kc->ctx);
    kc_free_pyr(kc, &kc->pyr[0]);
    kc_free_pyr(kc, &kc->pyr[1]);
    fv_device_free(kc->ctx, kc->d_tmp);
    fv_device_free(kc->ctx, kc->d_sel);
    fv_device_free(kc->ctx, kc->d_selraw);
    fv_pinned_free(kc->ctx, kc->h_selraw);
    fv_device_free(kc->ctx, kc->d_cmp);
    fv_device_free(kc->ctx, kc->d_flag);
    fv_pinned_free(kc->ctx, kc->h_flag);
    fv_device_free(kc->ctx, kc->d_keys);
    fv_device_free(kc->ctx, kc->d_pix);
    fv_device_free(kc->ctx, kc->d_qs);
    fv_device_free(kc->ctx, kc->d_map);
    fv_device_free(kc->ctx, kc->d_feat);
    fv_pinned_free(kc->ctx, kc->h_feat);
    if (kc->spec_stream) {
        cudaStreamSynchronize((cudaStream_t)kc->spec_stream);
        cudaStreamDestroy((cudaStream_t)kc->spec_stream);
    }
    if (kc->spec_built)
        cudaEventDestroy((cudaEvent_t)kc->spec_built);
    if (kc->spec_done)
        cudaEventDestroy((cudaEvent_t)kc->spec_done);
    free(kc->slots);
    free(kc->h_aff);
    free(kc->aff_win);
    free(kc);
    *priv = NULL;
}

/* The backend state, made when a tracking context first runs on this backend
 * with ctx (a CUDA context: the caller's, or the tracking context's default
 * one, see klt/klt_backends.c); buffers are allocated on first use. */
static int cuda_init(void **priv, fovea_context *ctx, const void *params)
{
    (void)params;
    kc_state *kc = calloc(1, sizeof *kc);
    if (!kc)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    kc->ctx = ctx;
    *priv = kc;
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- kernels */

static klt_cuda_kernel to_dev(const klt_kernel *k)
{
    klt_cuda_kernel d;
    memset(&d, 0, sizeof d);
    d.width = k->width;
    memcpy(d.data, k->data, (size_t)k->width * sizeof(float));
    return d;
}

/* Smoothing (gauss both ways) or gradient pair of in into out1 (and out2). */
static int conv_smooth(kc_state *kc, const klt_kernels *k, const void *in, int in_u8,
                       int ncols, int nrows, float *out)
{
    klt_cuda_conv_args a;
    memset(&a, 0, sizeof a);
    a.in = in;
    a.in_u8 = in_u8;
    a.ncols = ncols;
    a.nrows = nrows;
    a.h1 = a.v1 = to_dev(&k->gauss);
    a.out1 = out;
    return FOVEA_CUDA(kc->ctx, klt_cuda_conv(&a, kc_stream(kc)));
}

static int conv_gradients(kc_state *kc, const klt_kernels *k, const void *in, int in_u8,
                          int ncols, int nrows, float *gx, float *gy)
{
    klt_cuda_conv_args a;
    memset(&a, 0, sizeof a);
    a.in = in;
    a.in_u8 = in_u8;
    a.ncols = ncols;
    a.nrows = nrows;
    a.h1 = to_dev(&k->deriv);
    a.v1 = to_dev(&k->gauss);
    a.h2 = to_dev(&k->gauss);
    a.v2 = to_dev(&k->deriv);
    a.out1 = gx;
    a.out2 = gy;
    return FOVEA_CUDA(kc->ctx, klt_cuda_conv(&a, kc_stream(kc)));
}

/* ---------------------------------------------------------------- pyramids */

/* pyramid.c's klt_pyramid_build on the GPU: same kernel-cache requests. */
static int kc_build(KLT_TrackingContext tc, kc_state *kc, kc_pyr *p, const KLT_PixelType *img,
                    fovea_memtype kind, int ncols, int nrows)
{
    klt_state *st = klt_priv(tc);
    const int ss = tc->subsampling, nl = tc->nPyramidLevels;
    FOVEA_TRY(klt_pyramid_params_check(tc));
    p->valid = 0;
    const size_t npix = (size_t)ncols * (size_t)nrows;
    size_t bytes;
    int c = ncols, r = nrows;
    for (int i = 0; i < nl; i++) {
        size_t n = (size_t)c * (size_t)r;
        if (floats_bytes(n, &bytes) < 0)
            return klt_fail(tc, FOVEA_ERR_NOMEM, "pyramid: size overflow");
        if (!p->img[i] || n > p->cap[i]) {
            size_t cap = 0;
            fv_device_free(kc->ctx, p->img[i]);
            fv_device_free(kc->ctx, p->gx[i]);
            fv_device_free(kc->ctx, p->gy[i]);
            p->img[i] = p->gx[i] = p->gy[i] = NULL;
            p->cap[i] = 0;
            FOVEA_TRY(dev_ensure(kc, (void **)&p->img[i], &cap, bytes));
            FOVEA_TRY(dev_ensure(kc, (void **)&p->gx[i], &cap, bytes));
            FOVEA_TRY(dev_ensure(kc, (void **)&p->gy[i], &cap, bytes));
            p->cap[i] = n;
        }
        p->w[i] = c;
        p->h[i] = r;
        c /= ss;
        r /= ss;
    }
    if (floats_bytes(npix, &bytes) < 0)
        return klt_fail(tc, FOVEA_ERR_NOMEM, "pyramid: size overflow");
    FOVEA_TRY(dev_ensure(kc, (void **)&kc->d_tmp, &kc->tmp_cap, bytes));
    p->raw_host = 0;
    if (kind == FOVEA_MEM_HOST)
        FOVEA_TRY(pinned_ensure(kc, (void **)&p->raw, &p->raw_cap, npix));
    FOVEA_TRY(dev_ensure(kc, (void **)&p->d_raw, &p->d_raw_cap, npix));
    p->nlevels = nl;
    p->ss = ss;
    p->ncols = ncols;
    p->nrows = nrows;

    FOVEA_TRY(upload(kc, p->raw, p->d_raw, img, npix, kind));
    p->raw_host = kind == FOVEA_MEM_HOST;
    klt_kernels_for(&st->kernels, _KLTComputeSmoothSigma(tc));
    FOVEA_TRY(conv_smooth(kc, &st->kernels, p->d_raw, 1, ncols, nrows, p->img[0]));
    p->sig[0] = st->kernels.sigma_last;
    const float sigma = ss * tc->pyramid_sigma_fact;
    for (int i = 1; i < nl; i++) {
        klt_kernels_for(&st->kernels, sigma);
        klt_cuda_kernel g = to_dev(&st->kernels.gauss);
        FOVEA_CUDA_TRY(kc->ctx, klt_cuda_smooth_subsample(p->img[i - 1], p->w[i - 1], p->h[i - 1], &g, ss,
                                          kc->d_tmp, p->img[i], kc_stream(kc)));
        p->sig[i] = st->kernels.sigma_last;
    }
    for (int i = 0; i < nl; i++) {
        klt_kernels_for(&st->kernels, tc->grad_sigma);
        FOVEA_TRY(conv_gradients(kc, &st->kernels, p->img[i], 0, p->w[i], p->h[i], p->gx[i],
                              p->gy[i]));
        p->sig[nl + i] = st->kernels.sigma_last;
    }
    p->valid = 1;
    return FOVEA_OK;
}

/* pyramid.c's reuse tests: is img (of kind) the input p was built from?
 * Host input against a host copy: compared on the host. Otherwise on the
 * device, against p's device copy (one round trip): the input is copied
 * there first. 1 = same, 0 = not, < 0: failure (reported). */
static int kc_same_input(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p,
                         const KLT_PixelType *img, fovea_memtype kind, int ncols, int nrows)
{
    if (!p->valid || p->ncols != ncols || p->nrows != nrows)
        return 0;
    const size_t npix = (size_t)ncols * (size_t)nrows;
    if (kind == FOVEA_MEM_HOST && p->raw_host)
        return memcmp(p->raw, img, npix) == 0;
    cudaStream_t stream = kc_stream(kc);
    size_t cap = 0;
    FOVEA_TRY(dev_ensure(kc, (void **)&kc->d_cmp, &kc->d_cmp_cap, npix));
    if (!kc->d_flag)
        FOVEA_TRY(dev_ensure(kc, (void **)&kc->d_flag, &cap, sizeof(int)));
    if (!kc->h_flag)
        FOVEA_TRY(pinned_ensure(kc, (void **)&kc->h_flag, &cap, sizeof(int)));
    FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(kc->d_cmp, img, npix, cudaMemcpyDefault, stream));
    FOVEA_CUDA_TRY(kc->ctx, klt_cuda_differs(kc->d_cmp, p->d_raw, npix, kc->d_flag, stream));
    FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(kc->h_flag, kc->d_flag, sizeof(int), cudaMemcpyDeviceToHost,
                            stream));
    FOVEA_CUDA_TRY(kc->ctx, cudaStreamSynchronize(stream));
    return *kc->h_flag == 0;
}

static int kc_pyramid_matches(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p,
                              const KLT_PixelType *img, fovea_memtype kind, int ncols, int nrows)
{
    int same = kc_same_input(tc, kc, p, img, kind, ncols, nrows);
    if (same <= 0)
        return same;
    return p->nlevels == tc->nPyramidLevels && p->ss == tc->subsampling &&
           klt_kernels_replay(tc, p->sig, p->nlevels);
}

static int kc_level0_matches(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p,
                             const KLT_PixelType *img, fovea_memtype kind, int ncols, int nrows)
{
    int same = kc_same_input(tc, kc, p, img, kind, ncols, nrows);
    if (same <= 0)
        return same;
    return klt_kernels_replay_level0(tc, p->sig, p->nlevels);
}

/* ---------------------------------------------------------------- per call */

static int feat_ensure(KLT_TrackingContext tc, kc_state *kc, int n)
{
    size_t words, bytes;
    if (!fv_mul_size((size_t)(n > 0 ? n : 1), (size_t)F_COUNT, &words) ||
        !fv_mul_size(words + 3, sizeof(uint32_t), &bytes))
        return klt_fail(tc, FOVEA_ERR_NOMEM, "feature arrays: size overflow");
    FOVEA_TRY(dev_ensure(kc, (void **)&kc->d_feat, &kc->feat_cap, bytes));
    FOVEA_TRY(pinned_ensure(kc, (void **)&kc->h_feat, &kc->h_feat_cap, bytes));
    return FOVEA_OK;
}

static int call_begin(KLT_TrackingContext tc, kc_state *kc)
{
    FOVEA_TRY(fv_device_activate(kc->ctx));
    return FOVEA_OK;
}

/* Wait for the work queued so far (its end is the call's end so far). */
static int call_sync(KLT_TrackingContext tc, kc_state *kc)
{
    FOVEA_CUDA_TRY(kc->ctx, cudaStreamSynchronize(kc_stream(kc)));
    return FOVEA_OK;
}

/* Wait for the call's work (the feature copy back is the last of it);
 * queued: whether anything was queued after the last call_sync. */
static int call_end_q(KLT_TrackingContext tc, kc_state *kc, int queued)
{
    if (queued)
        FOVEA_TRY(call_sync(tc, kc));
    return FOVEA_OK;
}

static int call_end(KLT_TrackingContext tc, kc_state *kc)
{
    return call_end_q(tc, kc, 1);
}

/* ---------------------------------------------------------------- candidate order */

/* Candidates the selection reads before the sort of the rest is deferred:
 * enough for the usual pass (a few per slot beyond the blocked ones), or half
 * as many again as the context's recent passes needed (a video's next frame
 * usually needs about as much; kcap_hint: up to the last taken candidate,
 * kept apart for selections and replacements, whose needs differ, and
 * forgotten slowly (kc_hint_update), because the need varies from frame to
 * frame: a replacement right after a selection reads far deeper, every top
 * candidate being a feature already); when it needs more, another round
 * sorts 4x as many, which costs about as much as the first sort (one more
 * host round trip, and the deferred segments' levels). A shorter prefix
 * leaves more of the sort deferred, and deferred segments are never sorted
 * unless a pass reaches them. */
static int kc_first_kcap(const kc_state *kc, int replace, int nslots)
{
    long long k = (long long)nslots * 64;
    if (k < 8192)
        k = 8192;
    const int hint = kc->kcap_hint[replace != 0];
    const long long h = (long long)hint + hint / 2;
    if (h > k)
        k = h;
    return k > INT32_MAX ? INT32_MAX : (int)k;
}

/* After a pass that needed the first reach candidates: the hint becomes the
 * larger of reach and 31/32 of the hint before (about a third of a large
 * need is forgotten after 12 passes). */
static void kc_hint_update(kc_state *kc, int replace, int reach)
{
    int *h = &kc->kcap_hint[replace != 0];
    const int kept = *h - *h / 32;
    *h = reach > kept ? reach : kept;
}

/* Lay out q over one device block for n candidates. */
static int kc_qs_layout(KLT_TrackingContext tc, kc_state *kc, size_t n, klt_cuda_qs *q)
{
    const size_t ml = klt_cuda_qs_max_large(n), mt = klt_cuda_qs_max_tiles(n);
    const size_t half = n / 2 + 1;
    /* ints: qa, qb 2n each; lpos, rpos n each; 2 lists 2 ml each; small,
     * defer 2 half each; 5 x ml; 6 x mt; counters */
    size_t ints = 6 * n + 9 * ml + 4 * half + 6 * mt + KLT_QS_NCTR, bytes;
    if (n > (size_t)INT32_MAX / 2 || !fv_mul_size(ints, sizeof(int), &bytes))
        return klt_fail(tc, FOVEA_ERR_NOMEM, "selection: size overflow");
    FOVEA_TRY(dev_ensure(kc, (void **)&kc->d_qs, &kc->qs_cap, bytes));
    if (!kc->qs_blocks) {
        int blocks = 1, coop = 0;
        FOVEA_CUDA_TRY(kc->ctx, klt_cuda_qs_grid(&blocks, &coop));
        kc->qs_blocks = blocks > 0 ? blocks : 1;
        kc->qs_coop = coop;
    }
    memset(q, 0, sizeof *q);
    int *w = kc->d_qs;
    q->qa = w;
    w += 2 * n;
    q->qb = w;
    w += 2 * n;
    q->lpos = w;
    w += n;
    q->rpos = w;
    w += n;
    for (int i = 0; i < 2; i++) {
        q->list[i] = w;
        w += 2 * ml;
    }
    q->small = w;
    w += 2 * half;
    q->defer = w;
    w += 2 * half;
    int **segs[5] = {&q->seg_t, &q->seg_nr, &q->seg_tile0, &q->seg_j, &q->seg_done};
    for (int i = 0; i < 5; i++) {
        *segs[i] = w;
        w += ml;
    }
    int **tiles[6] = {&q->tile_seg, &q->tile_first, &q->tile_l, &q->tile_r, &q->tile_loff,
                      &q->tile_roff};
    for (int i = 0; i < 6; i++) {
        *tiles[i] = w;
        w += mt;
    }
    q->ctr = w;
    q->n = (int)n;
    return FOVEA_OK;
}

/* One launch of the sort (klt_cuda_qs_run) on a grid of at most max_blocks
 * (0: as many as fit), no more than the first level has tiles. */
static int kc_qs_launch(KLT_TrackingContext tc, kc_state *kc, const klt_cuda_qs *q,
                        int from_defer, const int *gate, int max_blocks, cudaStream_t stream)
{
    long long tiles = ((long long)q->n + KLT_CUDA_QS_TILE - 1) / KLT_CUDA_QS_TILE;
    int blocks = kc->qs_blocks;
    if (max_blocks > 0 && blocks > max_blocks)
        blocks = max_blocks;
    if (blocks > tiles)
        blocks = (int)tiles;
    if (blocks < 1)
        blocks = 1;
    FOVEA_CUDA_TRY(kc->ctx, klt_cuda_qs_run(q, from_defer, gate, blocks, kc->qs_coop, stream));
    return FOVEA_OK;
}

/* The candidate grid of a selection on gradients gx, gy (select.c); the
 * window is the one klt_fix_window left in tc. Fails (without a message)
 * when nSkippedPixels is negative or there are too many candidates. */
static int kc_grid_make(KLT_TrackingContext tc, const float *gx, const float *gy, int ncols,
                        int nrows, kc_cand_grid *g)
{
    memset(g, 0, sizeof *g);
    g->gx = gx;
    g->gy = gy;
    g->ncols = ncols;
    g->hw = tc->window_width / 2;
    g->hh = tc->window_height / 2;
    g->bx = tc->borderx < g->hw ? g->hw : tc->borderx;
    g->by = tc->bordery < g->hh ? g->hh : tc->bordery;
    if (tc->nSkippedPixels < 0)
        return FOVEA_ERR_INVALID_ARG;
    /* select.c's bounds: the same grid, no overflow */
    g->bx = g->bx > ncols ? ncols : g->bx;
    g->by = g->by > nrows ? nrows : g->by;
    g->step = tc->nSkippedPixels >= FOVEA_MAX_DIM ? FOVEA_MAX_DIM : tc->nSkippedPixels + 1;
    const int span = ncols - 2 * g->bx > 0 ? ncols - 2 * g->bx : 0;
    const int rspan = nrows - 2 * g->by > 0 ? nrows - 2 * g->by : 0;
    g->nx = (span + g->step - 1) / g->step;
    g->ny = (rspan + g->step - 1) / g->step;
    g->npoints = (size_t)g->nx * (size_t)g->ny;
    if (g->npoints > (size_t)INT32_MAX / 2)
        return FOVEA_ERR_UNSUPPORTED;
    g->min_eig = tc->min_eigenvalue < 1 ? 1 : tc->min_eigenvalue;
    return FOVEA_OK;
}

static int kc_grid_equal(const kc_cand_grid *a, const kc_cand_grid *b)
{
    return a->gx == b->gx && a->gy == b->gy && a->ncols == b->ncols && a->bx == b->bx &&
           a->by == b->by && a->step == b->step && a->nx == b->nx && a->ny == b->ny &&
           a->hw == b->hw && a->hh == b->hh && a->min_eig == b->min_eig &&
           a->npoints == b->npoints;
}

/* On stream: the eigenvalue map of grid g (g->npoints > 0) into the sort's
 * array and the sort's first round with prefix kcap. q: the sort's layout. */
static int kc_candidates(KLT_TrackingContext tc, kc_state *kc, const kc_cand_grid *g, int kcap,
                         cudaStream_t stream, klt_cuda_qs *q)
{
    FOVEA_TRY(kc_qs_layout(tc, kc, g->npoints, q));
    q->kcap = kcap;
    FOVEA_CUDA_TRY(kc->ctx, cudaMemsetAsync(q->ctr, 0, KLT_QS_NCTR * sizeof(int), stream));
    klt_cuda_eig_args ea;
    ea.gx = g->gx;
    ea.gy = g->gy;
    ea.ncols = g->ncols;
    ea.bx = g->bx;
    ea.by = g->by;
    ea.step = g->step;
    ea.nx = g->nx;
    ea.ny = g->ny;
    ea.hw = g->hw;
    ea.hh = g->hh;
    ea.cand = q->qa;
    ea.min_eig = g->min_eig;
    ea.nabove = q->ctr + KLT_QS_NABOVE;
    FOVEA_CUDA_TRY(kc->ctx, klt_cuda_eigen(&ea, stream));
    FOVEA_TRY(kc_qs_launch(tc, kc, q, 0, NULL, 0, stream));
    return FOVEA_OK;
}

/* Make the call's stream wait for work computed ahead (it reads a pyramid
 * and writes the sort's buffers). */
static int kc_spec_join(KLT_TrackingContext tc, kc_state *kc)
{
    if (kc->spec_launched)
        FOVEA_CUDA_TRY(kc->ctx, cudaStreamWaitEvent(kc_stream(kc), (cudaEvent_t)kc->spec_done, 0));
    return FOVEA_OK;
}

/* Mark on the call's stream that the pyramid the next replacement may use is
 * built (the second stream starts from there). */
static int kc_spec_built(KLT_TrackingContext tc, kc_state *kc)
{
    if (!kc->spec_stream) {
        /* the lowest priority: the call's own kernels (the tracking) get the
         * SMs first, the sort fills what they leave */
        int least = 0, greatest = 0;
        FOVEA_CUDA_TRY(kc->ctx, cudaDeviceGetStreamPriorityRange(&least, &greatest));
        cudaStream_t sst;
        FOVEA_CUDA_TRY(kc->ctx, cudaStreamCreateWithPriority(&sst, cudaStreamNonBlocking, least));
        kc->spec_stream = sst;
    }
    for (int i = 0; i < 2; i++) {
        void **ev = i ? &kc->spec_done : &kc->spec_built;
        if (!*ev) {
            cudaEvent_t e;
            FOVEA_CUDA_TRY(kc->ctx, cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
            *ev = e;
        }
    }
    FOVEA_CUDA_TRY(kc->ctx, cudaEventRecord((cudaEvent_t)kc->spec_built, kc_stream(kc)));
    return FOVEA_OK;
}

/* Start the next replacement's candidates for pyramid p on the second stream,
 * after the point kc_spec_built marked (queued after the call's own kernels,
 * which are thus dispatched first). */
static int kc_speculate(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p)
{
    kc_cand_grid g;
    if (kc_grid_make(tc, p->gx[0], p->gy[0], p->ncols, p->nrows, &g) < 0 || g.npoints == 0)
        return FOVEA_OK;  /* the replacement reports it, or has nothing to sort */
    cudaStream_t side = (cudaStream_t)kc->spec_stream;
    FOVEA_CUDA_TRY(kc->ctx, cudaStreamWaitEvent(side, (cudaEvent_t)kc->spec_built, 0));
    const int kcap = kc_first_kcap(kc, 1, 0);
    klt_cuda_qs q;
    kc->spec_launched = 1;  /* from here on, side has work that the call's stream must wait for */
    FOVEA_TRY(kc_candidates(tc, kc, &g, kcap, side, &q));
    FOVEA_CUDA_TRY(kc->ctx, cudaEventRecord((cudaEvent_t)kc->spec_done, side));
    kc->spec_grid = g;
    kc->spec_kcap = kcap;
    kc->spec_ready = 1;
    return FOVEA_OK;
}

/* Sort check input: n values and ids. */
static int kc_points_ensure(KLT_TrackingContext tc, kc_state *kc, size_t n)
{
    size_t kbytes;
    if (!fv_mul_size(n, sizeof(int), &kbytes))
        return klt_fail(tc, FOVEA_ERR_NOMEM, "selection: size overflow");
    if (!kc->d_keys || n > kc->pts_cap) {
        size_t c1 = 0, c2 = 0;
        fv_device_free(kc->ctx, kc->d_keys);
        fv_device_free(kc->ctx, kc->d_pix);
        kc->d_keys = NULL;
        kc->d_pix = NULL;
        kc->pts_cap = 0;
        FOVEA_TRY(dev_ensure(kc, (void **)&kc->d_keys, &c1, kbytes));
        FOVEA_TRY(dev_ensure(kc, (void **)&kc->d_pix, &c2, kbytes));
        kc->pts_cap = n;
    }
    return FOVEA_OK;
}

static int kc_sort_check(KLT_TrackingContext tc, kc_state *kc, const int *val, int n,
                         int max_blocks, int *out_val, unsigned *out_id)
{
    if (n <= 0)
        return FOVEA_OK;
    FOVEA_TRY(call_begin(tc, kc));
    FOVEA_TRY(kc_spec_join(tc, kc));
    kc->spec_ready = 0;
    FOVEA_TRY(kc_points_ensure(tc, kc, (size_t)n));
    klt_cuda_qs q;
    FOVEA_TRY(kc_qs_layout(tc, kc, (size_t)n, &q));
    unsigned *ids = malloc((size_t)n * sizeof(unsigned));
    int *pairs = malloc((size_t)n * 2 * sizeof(int));
    if (!ids || !pairs) {
        free(ids);
        free(pairs);
        return klt_fail(tc, FOVEA_ERR_NOMEM, "sort check: out of memory");
    }
    for (int i = 0; i < n; i++)
        ids[i] = (unsigned)i;
    q.kcap = INT32_MAX;
    cudaStream_t stream = kc_stream(kc);
    int rc = FOVEA_CUDA(kc->ctx, cudaMemcpyAsync(kc->d_keys, val, (size_t)n * sizeof(int),
                                                 cudaMemcpyHostToDevice, stream));
    if (rc >= 0)
        rc = FOVEA_CUDA(kc->ctx, cudaMemcpyAsync(kc->d_pix, ids, (size_t)n * sizeof(unsigned),
                                                 cudaMemcpyHostToDevice, stream));
    if (rc >= 0)
        rc = FOVEA_CUDA(kc->ctx, cudaMemsetAsync(q.ctr, 0, KLT_QS_NCTR * sizeof(int), stream));
    /* every value counts as above the threshold: the whole array is sorted */
    if (rc >= 0)
        rc = FOVEA_CUDA(kc->ctx, klt_cuda_qs_pack(kc->d_keys, kc->d_pix, q.qa, n, INT32_MIN,
                                                  q.ctr + KLT_QS_NABOVE, stream));
    if (rc >= 0)
        rc = kc_qs_launch(tc, kc, &q, 0, NULL, max_blocks, stream);
    if (rc >= 0)
        rc = FOVEA_CUDA(kc->ctx, cudaMemcpyAsync(pairs, q.qa, (size_t)n * 2 * sizeof(int),
                                                 cudaMemcpyDeviceToHost, stream));
    if (rc >= 0)
        rc = call_end(tc, kc);
    if (rc >= 0)
        for (int i = 0; i < n; i++) {
            out_val[i] = pairs[2 * i];
            out_id[i] = (unsigned)pairs[2 * i + 1];
        }
    free(ids);
    free(pairs);
    return rc < 0 ? rc : FOVEA_OK;
}

/* Selection, stage 1: the gradients of level 0 (gx, gy on the device), from
 * the kept pyramid when KLT reuses it, else from the uploaded image. */
static int kc_sel_gradients(KLT_TrackingContext tc, kc_state *kc, const KLT_PixelType *img,
                            int ncols, int nrows, int replace, const float **gx_out,
                            const float **gy_out)
{
    klt_state *st = klt_priv(tc);
    const size_t npix = (size_t)ncols * (size_t)nrows;
    const fovea_memtype kind = fv_ptr_memtype(img);
    int reuse0 = 0;
    if (!(replace && tc->sequentialMode && st->have_last) && tc->smoothBeforeSelecting) {
        reuse0 = kc_level0_matches(tc, kc, &kc->pyr[st->last], img, kind, ncols, nrows);
        FOVEA_TRY(reuse0);
    }
    if (replace && tc->sequentialMode && st->have_last) {
        /* KLT quirk (see select.c): the kept level 0 */
        const kc_pyr *p = &kc->pyr[st->last];
        if (p->ncols != ncols || p->nrows != nrows)
            return klt_fail(tc, FOVEA_ERR_MISMATCH,
                            "(KLTReplaceLostFeatures) image is %dx%d, kept pyramid %dx%d",
                            ncols, nrows, p->ncols, p->nrows);
        *gx_out = p->gx[0];
        *gy_out = p->gy[0];
        return FOVEA_OK;
    }
    if (reuse0) {
        *gx_out = kc->pyr[st->last].gx[0];
        *gy_out = kc->pyr[st->last].gy[0];
        return FOVEA_OK;
    }
    size_t bytes, n3;
    if (!fv_mul_size(npix, 3, &n3) || floats_bytes(n3, &bytes) < 0)
        return klt_fail(tc, FOVEA_ERR_NOMEM, "selection: size overflow");
    if (!kc->d_sel || npix > kc->sel_cap) {
        size_t cap = 0;
        fv_device_free(kc->ctx, kc->d_sel);
        kc->d_sel = NULL;
        kc->sel_cap = 0;
        FOVEA_TRY(dev_ensure(kc, (void **)&kc->d_sel, &cap, bytes));
        kc->sel_cap = npix;
    }
    if (kind == FOVEA_MEM_HOST)
        FOVEA_TRY(pinned_ensure(kc, (void **)&kc->h_selraw, &kc->h_selraw_cap, npix));
    FOVEA_TRY(dev_ensure(kc, (void **)&kc->d_selraw, &kc->d_selraw_cap, npix));
    FOVEA_TRY(upload(kc, kc->h_selraw, kc->d_selraw, img, npix, kind));
    float *simg = kc->d_sel, *sgx = simg + npix, *sgy = sgx + npix;
    if (tc->smoothBeforeSelecting) {
        klt_kernels_for(&st->kernels, _KLTComputeSmoothSigma(tc));
        FOVEA_TRY(conv_smooth(kc, &st->kernels, kc->d_selraw, 1, ncols, nrows, simg));
        klt_kernels_for(&st->kernels, tc->grad_sigma);
        FOVEA_TRY(conv_gradients(kc, &st->kernels, simg, 0, ncols, nrows, sgx, sgy));
    } else {
        /* the bytes as floats, convolved directly (same values) */
        klt_kernels_for(&st->kernels, tc->grad_sigma);
        FOVEA_TRY(conv_gradients(kc, &st->kernels, kc->d_selraw, 1, ncols, nrows, sgx, sgy));
    }
    *gx_out = sgx;
    *gy_out = sgy;
    return FOVEA_OK;
}

/* Selection, stage 2: the candidates sorted by eigenvalue (their first kcap
 * in order), taken from the sort computed ahead when it is the same grid. */
static int kc_sel_sort(KLT_TrackingContext tc, kc_state *kc, KLT_FeatureList fl, int replace,
                       const kc_cand_grid *grid, cudaStream_t stream, klt_cuda_qs *q,
                       int *kcap_out)
{
    const int nfeat = fl->nFeatures;
    /* slots to fill, in order; survivors (replace) block their squares */
    int nslots0 = 0;
    for (int k = 0; k < nfeat; k++)
        nslots0 += !replace || fl->feature[k]->val < 0;
    memset(q, 0, sizeof *q);
    int kcap = kc_first_kcap(kc, replace, nslots0);
    if (grid->npoints > 0 && replace && kc->spec_ready && kc_grid_equal(&kc->spec_grid, grid)) {
        /* computed ahead by the last track call (the stream waits for it):
         * the same list sorted with that call's prefix; the rounds below
         * extend it as usual when the pass needs more */
        FOVEA_TRY(kc_qs_layout(tc, kc, grid->npoints, q));
        kcap = kc->spec_kcap;
        q->kcap = kcap;
    } else if (grid->npoints > 0) {
        FOVEA_TRY(kc_spec_join(tc, kc));  /* work computed ahead writes the same buffers */
        FOVEA_TRY(kc_candidates(tc, kc, grid, kcap, stream, q));
    }
    kc->spec_ready = 0;
    /* guess that a replacement follows the next track call when it could use
     * that call's pyramid (sequential mode, or smoothing before selecting); a
     * track call not followed by one stops the guessing until the next
     * replacement */
    kc->spec_wanted = tc->sequentialMode || tc->smoothBeforeSelecting;
    *kcap_out = kcap;
    return FOVEA_OK;
}

/* Selection, stage 3: the slots to fill (kc->slots) and the distance map,
 * where the survivors of a replacement already block their squares. */
static int kc_sel_block(KLT_TrackingContext tc, kc_state *kc, KLT_FeatureList fl, int replace,
                        int ncols, int nrows, int d, cudaStream_t stream, int *nslots_out)
{
    const int nfeat = fl->nFeatures;
    const size_t npix = (size_t)ncols * (size_t)nrows;
    size_t sbytes;
    if (!fv_mul_size((size_t)(nfeat > 0 ? nfeat : 1), sizeof(int), &sbytes) ||
        klt_ensure((void **)&kc->slots, &kc->slots_cap, sbytes) < 0)
        return klt_fail(tc, FOVEA_ERR_NOMEM, "selection: out of memory");
    int nslots = 0, nsurv = 0;
    int32_t *pts = (int32_t *)(kc->h_feat + (size_t)F_PTS * nfeat);
    for (int k = 0; k < nfeat; k++) {
        const KLT_FeatureRec *f = fl->feature[k];
        if (!replace || f->val < 0) {
            kc->slots[nslots++] = k;
        } else {
            pts[2 * nsurv] = (int)f->x;
            pts[2 * nsurv + 1] = (int)f->y;
            nsurv++;
        }
    }
    *nslots_out = nslots;
    FOVEA_TRY(dev_ensure(kc, (void **)&kc->d_map, &kc->map_cap, npix));
    FOVEA_CUDA_TRY(kc->ctx, cudaMemsetAsync(kc->d_map, 0, npix, stream));
    int32_t *dpts = (int32_t *)(kc->d_feat + (size_t)F_PTS * nfeat);
    if (nsurv > 0) {
        FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(dpts, pts, (size_t)nsurv * 2 * sizeof(int32_t),
                                cudaMemcpyHostToDevice, stream));
        FOVEA_CUDA_TRY(kc->ctx, klt_cuda_mark(kc->d_map, ncols, nrows, dpts, nsurv, d, stream));
    }
    return FOVEA_OK;
}

/* Selection, stage 4: the greedy pass that enforces the minimum distance,
 * with the rounds that sort more when it runs out; its result is queued for
 * the host (*queued: whether a copy is still in flight). */
static int kc_sel_greedy(KLT_TrackingContext tc, kc_state *kc, klt_cuda_qs *q, int kcap,
                         size_t npoints, int nfeat, int nslots, int ncols, int nrows, int d,
                         cudaStream_t stream, int *queued_out)
{
    klt_cuda_greedy_args ga;
    ga.cand = q->qa;
    ga.n = (int)npoints;
    ga.start = 0;
    ga.limit = kcap < (int)npoints ? kcap : (int)npoints;
    ga.resume = 0;
    ga.nabove = q->ctr + KLT_QS_NABOVE;
    ga.nslots = nslots;
    ga.map = kc->d_map;
    ga.ncols = ncols;
    ga.nrows = nrows;
    ga.d = d;
    ga.out_pix = (int *)(kc->d_feat + (size_t)F_TAKE_PIX * nfeat);
    ga.out_val = (int *)(kc->d_feat + (size_t)F_TAKE_VAL * nfeat);
    ga.out_n = (int *)(kc->d_feat + (size_t)F_COUNT * nfeat);
    ga.out_more = ga.out_n + 1;
    ga.out_reach = ga.out_n + 2;
    const size_t nback = ((size_t)2 * nfeat + 3) * sizeof(uint32_t);
    const uint32_t *more = kc->h_feat + (size_t)F_COUNT * nfeat + 1;
    *queued_out = 1;
    if (npoints > 0) {
        /* candidates computed ahead: the map above was made meanwhile */
        FOVEA_TRY(kc_spec_join(tc, kc));
        FOVEA_CUDA_TRY(kc->ctx, klt_cuda_greedy(&ga, stream));
        FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(kc->h_feat + (size_t)F_TAKE_PIX * nfeat, ga.out_pix, nback,
                                cudaMemcpyDeviceToHost, stream));
        /* When the pass reaches the deferred part it asks for more (out_more):
         * a round that sorts 4x as many and a pass that goes on from there,
         * until it has what it needs. Rare once a context has seen a frame
         * (the prefix follows the last pass's need), so they are decided here,
         * after a synchronisation, rather than queued for every call. */
        while (ga.limit < ga.n) {
            FOVEA_TRY(call_sync(tc, kc));
            *queued_out = 0;
            if (*more == 0)
                break;
            *queued_out = 1;
            kcap = kcap > INT32_MAX / 4 ? INT32_MAX : kcap * 4;
            q->kcap = kcap;
            FOVEA_TRY(kc_qs_launch(tc, kc, q, 1, ga.out_more, 0, stream));
            ga.start = ga.limit;
            ga.limit = kcap < ga.n ? kcap : ga.n;
            ga.resume = 1;
            FOVEA_CUDA_TRY(kc->ctx, klt_cuda_greedy(&ga, stream));
            FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(kc->h_feat + (size_t)F_TAKE_PIX * nfeat, ga.out_pix, nback,
                                    cudaMemcpyDeviceToHost, stream));
        }
    } else {
        FOVEA_CUDA_TRY(kc->ctx, cudaMemsetAsync(ga.out_n, 0, 3 * sizeof(uint32_t), stream));
        FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(kc->h_feat + (size_t)F_TAKE_PIX * nfeat, ga.out_pix, nback,
                                cudaMemcpyDeviceToHost, stream));
    }
    return FOVEA_OK;
}

/* Selection, stage 5: the features taken (on the host after call_end) into
 * the list's slots, the rest marked not found. */
static int kc_sel_write_back(KLT_TrackingContext tc, kc_state *kc, KLT_FeatureList fl,
                             int replace, int ncols, int nslots)
{
    const int nfeat = fl->nFeatures;
    const int32_t *tpix = (const int32_t *)(kc->h_feat + (size_t)F_TAKE_PIX * nfeat);
    const int32_t *tval = (const int32_t *)(kc->h_feat + (size_t)F_TAKE_VAL * nfeat);
    int taken = (int)kc->h_feat[(size_t)F_COUNT * nfeat];
    kc_hint_update(kc, replace, (int)kc->h_feat[(size_t)F_COUNT * nfeat + 2]);
    if (taken < 0 || taken > nslots)
        return klt_fail(tc, FOVEA_ERR_INTERNAL, "CUDA selection returned %d features", taken);
    for (int k = 0; k < nslots; k++) {
        KLT_Feature f = fl->feature[kc->slots[k]];
        if (k < taken)
            klt_feature_set(f, (KLT_locType)(tpix[k] % ncols), (KLT_locType)(tpix[k] / ncols),
                        tval[k]);
        else
            klt_feature_set(f, -1.0f, -1.0f, KLT_NOT_FOUND);
    }
    return FOVEA_OK;
}

static int kc_select(KLT_TrackingContext tc, kc_state *kc, const KLT_PixelType *img, int ncols,
                     int nrows, KLT_FeatureList fl, int replace)
{
    klt_fix_window(tc, replace ? "KLTReplaceLostFeatures" : "KLTSelectGoodFeatures");
    FOVEA_TRY(call_begin(tc, kc));
    cudaStream_t stream = kc_stream(kc);

    const float *gx = NULL, *gy = NULL;
    FOVEA_TRY(kc_sel_gradients(tc, kc, img, ncols, nrows, replace, &gx, &gy));

    /* candidate grid, as select.c */
    kc_cand_grid grid;
    int grc = kc_grid_make(tc, gx, gy, ncols, nrows, &grid);
    if (grc == FOVEA_ERR_INVALID_ARG)
        return klt_fail(tc, grc, "nSkippedPixels must be >= 0");
    if (grc < 0)
        return klt_fail(tc, grc, "selection: too many candidates");

    if (tc->mindist < 0) {
        klt_log(tc, FOVEA_LOG_WARNING, "mindist is negative (%d); setting to zero", tc->mindist);
        tc->mindist = 0;
    }
    const int nfeat = fl->nFeatures;
    FOVEA_TRY(feat_ensure(tc, kc, nfeat));

    klt_cuda_qs q;
    int kcap = 0;
    FOVEA_TRY(kc_sel_sort(tc, kc, fl, replace, &grid, stream, &q, &kcap));
    const int d = tc->mindist - 1;
    int nslots = 0;
    FOVEA_TRY(kc_sel_block(tc, kc, fl, replace, ncols, nrows, d, stream, &nslots));
    int queued = 1;
    FOVEA_TRY(kc_sel_greedy(tc, kc, &q, kcap, grid.npoints, nfeat, nslots, ncols, nrows, d, stream,
                            &queued));
    FOVEA_TRY(call_end_q(tc, kc, queued));
    return kc_sel_write_back(tc, kc, fl, replace, ncols, nslots);
}

/* Affine consistency check of the features just tracked, on the host (the
 * patches are host data of the feature list): level 0 of both pyramids is
 * copied back only when some feature needs it. */
static int affine_check(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p1,
                        const kc_pyr *p2, KLT_FeatureList fl, const int *tracked,
                        const float *xloc, const float *yloc)
{
    int need1 = 0, need2 = 0;
    for (int k = 0; k < fl->nFeatures; k++)
        if (tracked[k]) {
            if (fl->feature[k]->aff_img)
                need2 = 1;
            else
                need1 = 1;
        }
    if (!need1 && !need2)
        return FOVEA_OK;
    const size_t npix = (size_t)p1->ncols * (size_t)p1->nrows;
    size_t bytes, n6;
    if (!fv_mul_size(npix, 6, &n6) || floats_bytes(n6, &bytes) < 0 ||
        klt_ensure((void **)&kc->h_aff, &kc->h_aff_cap, bytes) < 0)
        return klt_fail(tc, FOVEA_ERR_NOMEM, "out of memory for the affine check");
    size_t tw = (size_t)tc->window_width * tc->window_height;
    size_t aw = (size_t)tc->affine_window_width * tc->affine_window_height;
    if (klt_ensure((void **)&kc->aff_win, &kc->aff_win_cap,
                   3 * (tw > aw ? tw : aw) * sizeof(float)) < 0)
        return klt_fail(tc, FOVEA_ERR_NOMEM, "out of memory for the affine check");
    float *h = kc->h_aff;
    const kc_pyr *src[2] = {p1, p2};
    const int need[2] = {need1, need2};
    for (int i = 0; i < 2; i++) {
        if (!need[i])
            continue;
        const float *planes[3] = {src[i]->img[0], src[i]->gx[0], src[i]->gy[0]};
        for (int k = 0; k < 3; k++)
            FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(h + (size_t)(3 * i + k) * npix, planes[k],
                                    npix * sizeof(float), cudaMemcpyDeviceToHost,
                                    kc_stream(kc)));
    }
    FOVEA_CUDA_TRY(kc->ctx, cudaStreamSynchronize(kc_stream(kc)));
    KLT_FloatImageRec v[6];
    for (int i = 0; i < 6; i++) {
        v[i].ncols = p1->ncols;
        v[i].nrows = p1->nrows;
        v[i].data = h + (size_t)i * npix;
    }
    int failed = 0;
    for (int k = 0; k < fl->nFeatures; k++) {
        if (!tracked[k])
            continue;
        KLT_Feature f = fl->feature[k];
        if (!f->aff_img) {
            /* first success: the reference patch around the previous position */
            if (klt_affine_store_patch(tc, f, xloc[k], yloc[k], &v[0], &v[1], &v[2]) < 0)
                failed = 1;
            continue;
        }
        float xout = f->x, yout = f->y;
        int val = klt_track_affine(tc, f, &xout, &yout, &v[3], &v[4], &v[5], kc->aff_win);
        f->val = val;
        if (val != KLT_TRACKED) {
            f->x = -1.0f;
            f->y = -1.0f;
            f->aff_x = -1.0f;
            f->aff_y = -1.0f;
            klt_feature_clear_affine(f);
        }
    }
    if (failed)
        return klt_fail(tc, FOVEA_ERR_NOMEM, "out of memory for affine patches");
    return FOVEA_OK;
}

static int kc_track(KLT_TrackingContext tc, kc_state *kc, const KLT_PixelType *img1,
                    const KLT_PixelType *img2, int ncols, int nrows, KLT_FeatureList fl)
{
    klt_state *st = klt_priv(tc);
    klt_fix_window(tc, "KLTTrackFeatures");
    const size_t nwin = (size_t)tc->window_width * (size_t)tc->window_height;
    if (nwin * 4 * sizeof(float) > 200 * 1024)
        return klt_fail(tc, FOVEA_ERR_UNSUPPORTED,
                        "(KLTTrackFeatures) a %dx%d window is too large for the CUDA backend",
                        tc->window_width, tc->window_height);
    FOVEA_TRY(call_begin(tc, kc));
    /* this call rebuilds a pyramid that work computed ahead may still read */
    FOVEA_TRY(kc_spec_join(tc, kc));
    if (kc->spec_ready)
        kc->spec_wanted = 0;  /* the last one was not used: stop computing ahead */
    kc->spec_ready = 0;
    kc_pyr *p1, *p2;
    if (tc->sequentialMode && st->have_last) {
        p1 = &kc->pyr[st->last];
        p2 = &kc->pyr[1 - st->last];
        FOVEA_TRY(klt_sequential_check(tc, ncols, nrows, p1->ncols, p1->nrows, p1->nlevels,
                                    p1->ss));
    } else {
        if (!img1)
            return klt_fail(tc, FOVEA_ERR_INVALID_ARG, "(KLTTrackFeatures) img1 is NULL");
        st->have_last = 0;
        const fovea_memtype kind1 = fv_ptr_memtype(img1);
        const int same = kc_pyramid_matches(tc, kc, &kc->pyr[st->last], img1, kind1, ncols, nrows);
        FOVEA_TRY(same);
        if (same) {
            p1 = &kc->pyr[st->last];
            p2 = &kc->pyr[1 - st->last];
        } else {
            p1 = &kc->pyr[0];
            p2 = &kc->pyr[1];
            FOVEA_TRY(kc_build(tc, kc, p1, img1, kind1, ncols, nrows));
        }
    }
    int rc = kc_build(tc, kc, p2, img2, fv_ptr_memtype(img2), ncols, nrows);
    if (rc < 0) {
        st->have_last = 0;
        return rc;
    }
    st->last = (int)(p2 - kc->pyr);
    if (kc->spec_wanted)
        FOVEA_TRY(kc_spec_built(tc, kc));

    const int nfeat = fl->nFeatures;
    FOVEA_TRY(feat_ensure(tc, kc, nfeat));
    float *hx = (float *)(kc->h_feat + (size_t)F_IN_X * nfeat);
    float *hy = (float *)(kc->h_feat + (size_t)F_IN_Y * nfeat);
    int32_t *hv = (int32_t *)(kc->h_feat + (size_t)F_IN_VAL * nfeat);
    for (int k = 0; k < nfeat; k++) {
        hx[k] = fl->feature[k]->x;
        hy[k] = fl->feature[k]->y;
        hv[k] = fl->feature[k]->val;
    }
    cudaStream_t stream = kc_stream(kc);
    if (nfeat > 0) {
        FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(kc->d_feat, kc->h_feat, (size_t)3 * nfeat * sizeof(uint32_t),
                                cudaMemcpyHostToDevice, stream));
        klt_cuda_track_args a;
        memset(&a, 0, sizeof a);
        a.nlevels = p1->nlevels;
        a.ss = (float)tc->subsampling;
        for (int r = 0; r < p1->nlevels; r++) {
            a.lev[r].img1 = p1->img[r];
            a.lev[r].gx1 = p1->gx[r];
            a.lev[r].gy1 = p1->gy[r];
            a.lev[r].img2 = p2->img[r];
            a.lev[r].gx2 = p2->gx[r];
            a.lev[r].gy2 = p2->gy[r];
            a.lev[r].ncols = p1->w[r];
            a.lev[r].nrows = p1->h[r];
        }
        a.width = tc->window_width;
        a.height = tc->window_height;
        a.step_factor = tc->step_factor;
        a.max_iterations = tc->max_iterations;
        a.small = tc->min_determinant;
        a.th = tc->min_displacement;
        a.max_residue = tc->max_residue;
        a.lighting_insensitive = tc->lighting_insensitive;
        a.borderx = tc->borderx;
        a.bordery = tc->bordery;
        a.ncols = ncols;
        a.nrows = nrows;
        a.nfeat = nfeat;
        a.in_x = (const float *)(kc->d_feat + (size_t)F_IN_X * nfeat);
        a.in_y = (const float *)(kc->d_feat + (size_t)F_IN_Y * nfeat);
        a.in_val = (const int *)(kc->d_feat + (size_t)F_IN_VAL * nfeat);
        a.out_x = (float *)(kc->d_feat + (size_t)F_OUT_X * nfeat);
        a.out_y = (float *)(kc->d_feat + (size_t)F_OUT_Y * nfeat);
        a.out_xloc = (float *)(kc->d_feat + (size_t)F_OUT_XLOC * nfeat);
        a.out_yloc = (float *)(kc->d_feat + (size_t)F_OUT_YLOC * nfeat);
        a.out_val = (int *)(kc->d_feat + (size_t)F_OUT_VAL * nfeat);
        FOVEA_CUDA_TRY(kc->ctx, klt_cuda_track(&a, stream));
        FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(kc->h_feat + (size_t)F_OUT_X * nfeat, a.out_x,
                                (size_t)5 * nfeat * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                stream));
    }
    if (kc->spec_wanted)
        FOVEA_TRY(kc_speculate(tc, kc, p2));
    FOVEA_TRY(call_end(tc, kc));

    const float *ox = (const float *)(kc->h_feat + (size_t)F_OUT_X * nfeat);
    const float *oy = (const float *)(kc->h_feat + (size_t)F_OUT_Y * nfeat);
    const float *oxl = (const float *)(kc->h_feat + (size_t)F_OUT_XLOC * nfeat);
    const float *oyl = (const float *)(kc->h_feat + (size_t)F_OUT_YLOC * nfeat);
    const int32_t *ov = (const int32_t *)(kc->h_feat + (size_t)F_OUT_VAL * nfeat);
    /* the input words are free now: flags of the features tracked */
    int32_t *tracked = hv;
    int any_tracked = 0;
    for (int k = 0; k < nfeat; k++) {
        KLT_Feature f = fl->feature[k];
        tracked[k] = 0;
        if (f->val < 0)
            continue;
        if (ov[k] != KLT_TRACKED) {
            f->x = -1.0f;
            f->y = -1.0f;
            f->val = ov[k];
            klt_feature_clear_affine(f);
            continue;
        }
        f->x = ox[k];
        f->y = oy[k];
        f->val = KLT_TRACKED;
        tracked[k] = 1;
        any_tracked = 1;
    }
    rc = FOVEA_OK;
    if (tc->affineConsistencyCheck >= 0 && any_tracked)
        rc = affine_check(tc, kc, p1, p2, fl, tracked, oxl, oyl);

    if (tc->sequentialMode) {
        st->have_last = 1;
        tc->pyramid_last = &kc->pyr[st->last].img[0];
        tc->pyramid_last_gradx = &kc->pyr[st->last].gx[0];
        tc->pyramid_last_grady = &kc->pyr[st->last].gy[0];
    } else {
        st->have_last = 0;
        tc->pyramid_last = tc->pyramid_last_gradx = tc->pyramid_last_grady = NULL;
    }
    return rc;
}

/* ---------------------------------------------------------------- the table */

static int cuda_select(void *priv, KLT_TrackingContext tc, const KLT_PixelType *img, int ncols,
                       int nrows, KLT_FeatureList fl, int replace)
{
    return kc_end(tc, priv, kc_select(tc, priv, img, ncols, nrows, fl, replace));
}

static int cuda_track(void *priv, KLT_TrackingContext tc, const KLT_PixelType *img1,
                      const KLT_PixelType *img2, int ncols, int nrows, KLT_FeatureList fl)
{
    return kc_end(tc, priv, kc_track(tc, priv, img1, img2, ncols, nrows, fl));
}

static int cuda_sort_check(void *priv, KLT_TrackingContext tc, const int *val, int n,
                           int max_blocks, int *out_val, unsigned *out_id)
{
    return kc_end(tc, priv, kc_sort_check(tc, priv, val, n, max_blocks, out_val, out_id));
}

const klt_backend klt_backend_cuda = {
    {"cuda", FOVEA_BACKEND_CUDA, BACKEND_READS_DEVICE, cuda_init, cuda_close},
    cuda_select,
    cuda_track,
    cuda_sort_check,
};
