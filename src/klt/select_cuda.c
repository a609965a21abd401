/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CUDA backend of KLT, selection (host side): select.c's stages with the
 * kernels of select.cu and sort.cu: the gradients of level 0, the candidates
 * sorted by eigenvalue (a prefix; more when the pass needs more; computed
 * ahead by a track call when a replacement is likely to follow), the slots
 * and the distance map, the greedy pass and the write-back. */
#include <stdint.h>
#include <string.h>

#include "core/core.h"
#include "klt/klt_cuda_internal.h"
#include "klt/select_cuda.h"
#include "klt/sort_cuda.h"

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
           a->hw == b->hw && a->hh == b->hh && a->min_eig == b->min_eig && a->npoints == b->npoints;
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

/* ---------------------------------------------------------------- computed ahead */

/* Make the call's stream wait for work computed ahead (it reads a pyramid
 * and writes the sort's buffers). */
int kc_spec_join(KLT_TrackingContext tc, kc_state *kc)
{
    if (kc->spec_launched)
        FOVEA_CUDA_TRY(kc->ctx, cudaStreamWaitEvent(kc_stream(kc), (cudaEvent_t)kc->spec_done, 0));
    return FOVEA_OK;
}

/* Mark on the call's stream that the pyramid the next replacement may use is
 * built (the second stream starts from there). */
int kc_spec_built(KLT_TrackingContext tc, kc_state *kc)
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
int kc_speculate(KLT_TrackingContext tc, kc_state *kc, const kc_pyr *p)
{
    kc_cand_grid g;
    if (kc_grid_make(tc, p->gx[0], p->gy[0], p->ncols, p->nrows, &g) < 0 || g.npoints == 0)
        return FOVEA_OK; /* the replacement reports it, or has nothing to sort */
    cudaStream_t side = (cudaStream_t)kc->spec_stream;
    FOVEA_CUDA_TRY(kc->ctx, cudaStreamWaitEvent(side, (cudaEvent_t)kc->spec_built, 0));
    const int kcap = kc_first_kcap(kc, 1, 0);
    klt_cuda_qs q;
    kc->spec_launched = 1; /* from here on, side has work that the call's stream must wait for */
    FOVEA_TRY(kc_candidates(tc, kc, &g, kcap, side, &q));
    FOVEA_CUDA_TRY(kc->ctx, cudaEventRecord((cudaEvent_t)kc->spec_done, side));
    kc->spec_grid = g;
    kc->spec_kcap = kcap;
    kc->spec_ready = 1;
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- the stages */

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
                            "(KLTReplaceLostFeatures) image is %dx%d, kept pyramid %dx%d", ncols,
                            nrows, p->ncols, p->nrows);
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
    if (!fv_mul_size(npix, 3, &n3) || kc_floats_bytes(n3, &bytes) < 0)
        return klt_fail(tc, FOVEA_ERR_NOMEM, "selection: size overflow");
    if (!kc->d_sel || npix > kc->sel_cap) {
        size_t cap = 0;
        fv_device_free(kc->ctx, kc->d_sel);
        kc->d_sel = NULL;
        kc->sel_cap = 0;
        FOVEA_TRY(kc_dev_ensure(kc, (void **)&kc->d_sel, &cap, bytes));
        kc->sel_cap = npix;
    }
    if (kind == FOVEA_MEM_HOST)
        FOVEA_TRY(kc_pinned_ensure(kc, (void **)&kc->h_selraw, &kc->h_selraw_cap, npix));
    FOVEA_TRY(kc_dev_ensure(kc, (void **)&kc->d_selraw, &kc->d_selraw_cap, npix));
    FOVEA_TRY(kc_upload(kc, kc->h_selraw, kc->d_selraw, img, npix, kind));
    float *simg = kc->d_sel, *sgx = simg + npix, *sgy = sgx + npix;
    if (tc->smoothBeforeSelecting) {
        klt_kernels_for(&st->kernels, _KLTComputeSmoothSigma(tc));
        FOVEA_TRY(kc_conv_smooth(kc, &st->kernels, kc->d_selraw, 1, ncols, nrows, simg));
        klt_kernels_for(&st->kernels, tc->grad_sigma);
        FOVEA_TRY(kc_conv_gradients(kc, &st->kernels, simg, 0, ncols, nrows, sgx, sgy));
    } else {
        /* the bytes as floats, convolved directly (same values) */
        klt_kernels_for(&st->kernels, tc->grad_sigma);
        FOVEA_TRY(kc_conv_gradients(kc, &st->kernels, kc->d_selraw, 1, ncols, nrows, sgx, sgy));
    }
    *gx_out = sgx;
    *gy_out = sgy;
    return FOVEA_OK;
}

/* Selection, stage 2: the candidates sorted by eigenvalue (their first kcap
 * in order), taken from the sort computed ahead when it is the same grid. */
static int kc_sel_sort(KLT_TrackingContext tc, kc_state *kc, KLT_FeatureList fl, int replace,
                       const kc_cand_grid *grid, cudaStream_t stream, klt_cuda_qs *q, int *kcap_out)
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
        FOVEA_TRY(kc_spec_join(tc, kc)); /* work computed ahead writes the same buffers */
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
    FOVEA_TRY(kc_dev_ensure(kc, (void **)&kc->d_map, &kc->map_cap, npix));
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
        FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(kc->h_feat + (size_t)F_TAKE_PIX * nfeat, ga.out_pix,
                                                nback, cudaMemcpyDeviceToHost, stream));
        /* When the pass reaches the deferred part it asks for more (out_more):
         * a round that sorts 4x as many and a pass that goes on from there,
         * until it has what it needs. Rare once a context has seen a frame
         * (the prefix follows the last pass's need), so they are decided here,
         * after a synchronization, rather than queued for every call. */
        while (ga.limit < ga.n) {
            FOVEA_TRY(kc_call_sync(tc, kc));
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
            FOVEA_CUDA_TRY(kc->ctx,
                           cudaMemcpyAsync(kc->h_feat + (size_t)F_TAKE_PIX * nfeat, ga.out_pix,
                                           nback, cudaMemcpyDeviceToHost, stream));
        }
    } else {
        FOVEA_CUDA_TRY(kc->ctx, cudaMemsetAsync(ga.out_n, 0, 3 * sizeof(uint32_t), stream));
        FOVEA_CUDA_TRY(kc->ctx, cudaMemcpyAsync(kc->h_feat + (size_t)F_TAKE_PIX * nfeat, ga.out_pix,
                                                nback, cudaMemcpyDeviceToHost, stream));
    }
    return FOVEA_OK;
}

/* Selection, stage 5: the features taken (on the host after call_end) into
 * the list's slots, the rest marked not found. */
static int kc_sel_write_back(KLT_TrackingContext tc, kc_state *kc, KLT_FeatureList fl, int replace,
                             int ncols, int nslots)
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

int kc_select(KLT_TrackingContext tc, kc_state *kc, const KLT_PixelType *img, int ncols, int nrows,
              KLT_FeatureList fl, int replace)
{
    klt_fix_window(tc, replace ? "KLTReplaceLostFeatures" : "KLTSelectGoodFeatures");
    FOVEA_TRY(kc_call_begin(tc, kc));
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
    FOVEA_TRY(kc_feat_ensure(tc, kc, nfeat));

    klt_cuda_qs q;
    int kcap = 0;
    FOVEA_TRY(kc_sel_sort(tc, kc, fl, replace, &grid, stream, &q, &kcap));
    const int d = tc->mindist - 1;
    int nslots = 0;
    FOVEA_TRY(kc_sel_block(tc, kc, fl, replace, ncols, nrows, d, stream, &nslots));
    int queued = 1;
    FOVEA_TRY(kc_sel_greedy(tc, kc, &q, kcap, grid.npoints, nfeat, nslots, ncols, nrows, d, stream,
                            &queued));
    FOVEA_TRY(kc_call_end_q(tc, kc, queued));
    return kc_sel_write_back(tc, kc, fl, replace, ncols, nslots);
}
