/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Multi-band blending over the stitcher's backend: every camera is stitched
 * alone through a one-camera view of the map (the backend's own sampling and
 * color tables: the warped image the feathered stitch blends), pixels a
 * camera does not see take the feathered panorama's value, and each plane is
 * blended by pyramids (pyramid.c) with the seam masks (the map's seam or
 * seam.c's). The masks' pyramids are rebuilt only when the seam moves. */
#include <stdlib.h>
#include <string.h>

#include "stitch/multiband.h"
#include "stitch/pyramid.h"
#include "stitch/seam.h"

struct fv_multiband {
    fovea_stitcher *st;
    int n, w, h, cw, ch;
    fovea_stitch_map sub_map[FOVEA_STITCH_MAX_CAMERAS]; /* views: cam[0] borrows */
    stitch_photo sub_photo[FOVEA_STITCH_MAX_CAMERAS];   /* their photometric tables */
    stitch_params sub_params[FOVEA_STITCH_MAX_CAMERAS];
    void *sub_priv[FOVEA_STITCH_MAX_CAMERAS];
    stitch_tables *sub_tables; /* n: camera c's tables in slot 0 */
    fovea_frame warped[FOVEA_STITCH_MAX_CAMERAS];
    uint8_t *seen[FOVEA_STITCH_MAX_CAMERAS];  /* w x h: camera c sees the pixel */
    uint8_t *cseen[FOVEA_STITCH_MAX_CAMERAS]; /* cw x ch: ... a pixel of the 2x2 block */
    uint8_t *luma[FOVEA_STITCH_MAX_CAMERAS];  /* seam placement: warped luma */
    uint8_t *label0, *label, *covered, *ccovered;
    int16_t *mask[FOVEA_STITCH_MAX_CAMERAS], *cmask[FOVEA_STITCH_MAX_CAMERAS];
    int masks_valid; /* 0: rebuild the masks' pyramids */
    int have_labels;
    fv_pyr_work work, cwork;
    fv_seam seam;
    int64_t frame;
    /* a device backend's half (stitch_backend.multiband), else NULL: host */
    const mb_device_ops *dops;
    void *dev;
    uint32_t *cells; /* its seam cells (fv_seam_cells) */
    /* where each camera matters (pyramid.h): luma or RGBA, chroma; whole = 1
     * computes every pyramid over the whole panorama instead (tests) */
    fv_pyr_plan plan, cplan;
    int whole;
};

/* Which cameras see each pixel, alone and together (the map's label: the
 * camera of largest weight, the lowest index among equals), rows split over
 * the context's threads; failed[thread] = 1 when a row buffer cannot grow. */
typedef struct coverage_job {
    fv_multiband *mb;
    int *failed;
} coverage_job;

static void coverage_rows(void *arg, int begin, int end, int thread)
{
    const coverage_job *job = arg;
    fv_multiband *mb = job->mb;
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    fv_map_row row;
    fv_map_row_init(&row);
    for (int j = begin; j < end && !job->failed[thread]; j++) {
        if (fv_map_row_set(&row, &mb->st->map, j) < 0) {
            job->failed[thread] = 1;
            break;
        }
        for (int i = 0; i < mb->w; i++) {
            const size_t p = (size_t)j * (size_t)mb->w + (size_t)i;
            int best = SEAM_NONE;
            if (fv_map_row_weights(&row, i, w, u, v) > 0) {
                for (int c = 0; c < mb->n; c++)
                    if (w[c] > 0.0f && (best == SEAM_NONE || w[c] > w[best]))
                        best = c;
            }
            mb->label0[p] = (uint8_t)best;
            mb->covered[p] = best != SEAM_NONE;
        }
        for (int c = 0; c < mb->n; c++) {
            if (fv_map_row_set(&row, &mb->sub_map[c], j) < 0) {
                job->failed[thread] = 1;
                break;
            }
            for (int i = 0; i < mb->w; i++)
                mb->seen[c][(size_t)j * (size_t)mb->w + (size_t)i] =
                    fv_map_row_weights(&row, i, w, u, v) > 0;
        }
    }
    fv_map_row_free(&row);
}

static int make_coverage(fv_multiband *mb)
{
    fovea_context *ctx = mb->st->ctx;
    const int threads = fovea_context_threads(ctx);
    int *failed = calloc((size_t)(threads > 0 ? threads : 1), sizeof(int));
    if (!failed)
        return FOVEA_ERR_NOMEM;
    coverage_job job = {mb, failed};
    fv_parallel_for(ctx, mb->h, 4, coverage_rows, &job);
    int status = FOVEA_OK;
    for (int t = 0; t < (threads > 0 ? threads : 1); t++)
        if (failed[t])
            status = FOVEA_ERR_NOMEM;
    free(failed);
    for (int c = 0; c < mb->n && status == FOVEA_OK; c++)
        for (int y = 0; y < mb->ch; y++)
            for (int x = 0; x < mb->cw; x++) {
                int any = 0;
                for (int dy = 0; dy < 2; dy++)
                    for (int dx = 0; dx < 2; dx++)
                        if (2 * y + dy < mb->h && 2 * x + dx < mb->w)
                            any |= mb->seen[c][(size_t)(2 * y + dy) * (size_t)mb->w +
                                               (size_t)(2 * x + dx)];
                mb->cseen[c][(size_t)y * (size_t)mb->cw + (size_t)x] = (uint8_t)any;
            }
    for (int y = 0; y < mb->ch && status == FOVEA_OK; y++)
        for (int x = 0; x < mb->cw; x++) {
            int any = 0;
            for (int c = 0; c < mb->n; c++)
                any |= mb->cseen[c][(size_t)y * (size_t)mb->cw + (size_t)x];
            mb->ccovered[(size_t)y * (size_t)mb->cw + (size_t)x] = (uint8_t)any;
        }
    return status;
}

/* The plans of the luma (or RGBA) and chroma planes: a camera may differ
 * from the feathered panorama where it sees, and own a mask where it holds
 * the map's label (the DP seam labels only pixels both cameras see). */
static int make_plans(fv_multiband *mb)
{
    const size_t px = (size_t)mb->w * (size_t)mb->h;
    uint8_t *own[FOVEA_STITCH_MAX_CAMERAS] = {NULL};
    int status = FOVEA_OK;
    for (int c = 0; c < mb->n && status == FOVEA_OK; c++) {
        if (!(own[c] = malloc(px))) {
            status = FOVEA_ERR_NOMEM;
            break;
        }
        for (size_t p = 0; p < px; p++)
            own[c][p] = mb->seen[c][p] || mb->label0[p] == c;
    }
    if (status == FOVEA_OK) {
        fv_pyr_plan_make(&mb->plan, &mb->work.g, mb->n, (const uint8_t *const *)own, mb->w, mb->w,
                         mb->h, 0, mb->covered, mb->w);
        fv_pyr_plan_make(&mb->cplan, &mb->cwork.g, mb->n, (const uint8_t *const *)own, mb->w, mb->w,
                         mb->h, 1, mb->ccovered, mb->cw);
    }
    for (int c = 0; c < mb->n; c++)
        free(own[c]);
    return status;
}

void fv_multiband_set_whole(fv_multiband *mb, int whole)
{
    mb->whole = whole;
}

const fv_pyr_plan *fv_multiband_plan(const fv_multiband *mb, int chroma)
{
    return chroma ? &mb->cplan : &mb->plan;
}

void fv_multiband_close(fv_multiband **pmb)
{
    if (!pmb || !*pmb)
        return;
    fv_multiband *mb = *pmb;
    const stitch_backend *b = mb->st->backend;
    if (mb->dev)
        mb->dops->close(&mb->dev);
    free(mb->cells);
    for (int c = 0; c < mb->n; c++) {
        if (mb->sub_priv[c])
            b->info.close(&mb->sub_priv[c]);
        fovea_frame_free(mb->st->ctx, &mb->warped[c]);
        free(mb->seen[c]);
        free(mb->cseen[c]);
        free(mb->luma[c]);
        free(mb->mask[c]);
        free(mb->cmask[c]);
    }
    free(mb->sub_tables);
    free(mb->label0);
    free(mb->label);
    free(mb->covered);
    free(mb->ccovered);
    fv_pyr_work_free(&mb->work);
    fv_pyr_work_free(&mb->cwork);
    fv_seam_free(&mb->seam);
    free(mb);
    *pmb = NULL;
}

int fv_multiband_open(fv_multiband **out, fovea_stitcher *st)
{
    fovea_context *ctx = st->ctx;
    *out = NULL;
    if ((st->backend->info.provides & BACKEND_READS_DEVICE) && !st->backend->multiband)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "stitcher: backend %s has no multiband blending",
                            st->backend->info.name);
    fv_multiband *mb = calloc(1, sizeof(*mb));
    if (!mb)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    mb->st = st;
    mb->n = st->n;
    mb->w = st->map.pano_width;
    mb->h = st->map.pano_height;
    mb->cw = (mb->w + 1) >> 1;
    mb->ch = (mb->h + 1) >> 1;
    const size_t px = (size_t)mb->w * (size_t)mb->h, cpx = (size_t)mb->cw * (size_t)mb->ch;
    int status = fv_pyr_work_alloc(&mb->work, mb->w, mb->h, st->settings.blend_levels);
    if (status == FOVEA_OK)
        status = fv_pyr_work_alloc(&mb->cwork, mb->cw, mb->ch, st->settings.blend_levels);
    mb->sub_tables = calloc((size_t)mb->n, sizeof(stitch_tables));
    mb->label0 = malloc(px);
    mb->label = malloc(px);
    mb->covered = malloc(px);
    mb->ccovered = malloc(cpx);
    int nomem = !mb->sub_tables || !mb->label0 || !mb->label || !mb->covered || !mb->ccovered;
    for (int c = 0; c < mb->n; c++) {
        mb->seen[c] = malloc(px);
        mb->cseen[c] = malloc(cpx);
        mb->luma[c] = malloc(px);
        mb->mask[c] = malloc(mb->work.g.total * sizeof(int16_t));
        mb->cmask[c] = malloc(mb->cwork.g.total * sizeof(int16_t));
        nomem |= !mb->seen[c] || !mb->cseen[c] || !mb->luma[c] || !mb->mask[c] || !mb->cmask[c];
    }
    if (status == FOVEA_OK && nomem)
        status = FOVEA_ERR_NOMEM;
    for (int c = 0; c < mb->n && status == FOVEA_OK; c++) {
        /* a one-camera view of the map: that camera's weights are 1 wherever
         * it sees, so the backend's stitch is its warped image */
        fovea_stitch_map *sm = &mb->sub_map[c];
        sm->pano_width = mb->w;
        sm->pano_height = mb->h;
        sm->num_cameras = 1;
        sm->feather = st->map.feather;
        sm->cam[0] = st->map.cam[c];
        mb->sub_params[c] = st->params;
        mb->sub_params[c].map = sm;
        if (st->params.photo) {
            sm->photo[0] = st->map.photo[c];
            mb->sub_photo[c].out = st->params.photo->out;
            mb->sub_photo[c].cam[0] = st->params.photo->cam[c];
            mb->sub_params[c].photo = &mb->sub_photo[c];
        }
        status = st->backend->info.init(&mb->sub_priv[c], ctx, &mb->sub_params[c]);
    }
    if (status == FOVEA_OK)
        status = make_coverage(mb);
    if (status == FOVEA_OK)
        status = make_plans(mb);
    if (status == FOVEA_OK && st->settings.seam == FOVEA_SEAM_DP)
        status = fv_seam_init(&mb->seam, mb->n, mb->w, mb->h, mb->label0,
                              (const uint8_t *const *)mb->seen);
    if (status == FOVEA_OK && st->backend->multiband) {
        mb->dops = st->backend->multiband;
        const int dp = st->settings.seam == FOVEA_SEAM_DP;
        if (dp &&
            !(mb->cells = malloc((mb->seam.ncells ? mb->seam.ncells : 1) * 2 * sizeof(uint32_t))))
            status = FOVEA_ERR_NOMEM;
        if (status == FOVEA_OK && dp)
            fv_seam_cells(&mb->seam, mb->cells);
        mb_setup su = {mb->n,
                       mb->w,
                       mb->h,
                       mb->cw,
                       mb->ch,
                       st->settings.blend_levels,
                       (const uint8_t *const *)mb->seen,
                       (const uint8_t *const *)mb->cseen,
                       mb->covered,
                       mb->ccovered,
                       dp ? mb->cells : NULL,
                       dp ? mb->seam.ncells : 0,
                       &mb->plan,
                       &mb->cplan};
        if (status == FOVEA_OK)
            status = mb->dops->open(&mb->dev, ctx, &su);
    }
    if (status < 0) {
        fv_multiband_close(&mb);
        return status == FOVEA_ERR_NOMEM ? fv_ctx_error(ctx, status, "out of memory") : status;
    }
    memcpy(mb->label, mb->label0, px);
    *out = mb;
    return FOVEA_OK;
}

int fv_multiband_set_tables(fv_multiband *mb, const stitch_tables *t)
{
    for (int c = 0; c < mb->n; c++) {
        stitch_tables *s = &mb->sub_tables[c];
        memcpy(s->lut[0], t->lut[c], sizeof(s->lut[0]));
        memcpy(s->lut8[0], t->lut8[c], sizeof(s->lut8[0]));
        memcpy(s->chroma[0], t->chroma[c], sizeof(s->chroma[0]));
        int status = mb->st->backend->set_tables(mb->sub_priv[c], s);
        if (status < 0)
            return status;
    }
    return FOVEA_OK;
}

const uint8_t *fv_multiband_labels(const fv_multiband *mb)
{
    return mb && mb->have_labels ? mb->label : NULL;
}

/* The masks' Gaussian pyramids from the labels (chroma: the mean of the 2x2
 * block's luma masks, (sum + 2) >> 2, indices clamped). */
static void build_masks(fv_multiband *mb, int yuv)
{
    fovea_context *ctx = mb->st->ctx;
    for (int c = 0; c < mb->n; c++) {
        int16_t *m = mb->mask[c];
        for (size_t p = 0; p < (size_t)mb->w * (size_t)mb->h; p++)
            m[p] = mb->label[p] == c ? PYR_ONE : 0;
        fv_pyr_gauss(ctx, &mb->work, m);
        if (!yuv)
            continue;
        int16_t *cm = mb->cmask[c];
        for (int y = 0; y < mb->ch; y++)
            for (int x = 0; x < mb->cw; x++) {
                int sum = 0;
                for (int dy = 0; dy < 2; dy++)
                    for (int dx = 0; dx < 2; dx++)
                        sum += m[(size_t)pyr_clamp(2 * y + dy, mb->h) * (size_t)mb->w +
                                 (size_t)pyr_clamp(2 * x + dx, mb->w)];
                cm[(size_t)y * (size_t)mb->cw + (size_t)x] = (int16_t)((sum + 2) >> 2);
            }
        fv_pyr_gauss(ctx, &mb->cwork, cm);
    }
    mb->masks_valid = 1;
}

/* Luma of the warped images for the seam: Y, or (R + 2 G + B + 2) >> 2. */
static void warped_luma(fv_multiband *mb, int yuv)
{
    for (int c = 0; c < mb->n; c++) {
        const fovea_frame *f = &mb->warped[c];
        for (int y = 0; y < mb->h; y++) {
            const uint8_t *s = f->data[0] + (ptrdiff_t)y * f->stride[0];
            uint8_t *d = mb->luma[c] + (size_t)y * (size_t)mb->w;
            for (int x = 0; x < mb->w; x++)
                d[x] =
                    yuv ? s[x] : (uint8_t)((s[4 * x] + 2 * s[4 * x + 1] + s[4 * x + 2] + 2) >> 2);
        }
    }
}

/* Pixels camera c does not see take the feathered panorama's value, inside
 * box b of plane k (bpp bytes a pixel). */
static void fill_box(fv_multiband *mb, const fovea_frame *out, int c, int k, int bpp, fv_pyr_box b)
{
    fovea_frame *f = &mb->warped[c];
    const uint8_t *seen_plane = k ? mb->cseen[c] : mb->seen[c];
    const int w = k ? mb->cw : mb->w;
    for (int y = b.y0; y < b.y1; y++) {
        uint8_t *d = f->data[k] + (ptrdiff_t)y * f->stride[k];
        const uint8_t *s = out->data[k] + (ptrdiff_t)y * out->stride[k];
        const uint8_t *seen = seen_plane + (size_t)y * (size_t)w;
        for (int x = b.x0; x < b.x1; x++)
            if (!seen[x])
                memcpy(d + bpp * x, s + bpp * x, (size_t)bpp);
    }
}

/* Every plane of every camera over the whole panorama, or only where the
 * restricted blend reads the camera's image (its pieces' level-0 boxes). */
static void fill_unseen(fv_multiband *mb, const fovea_frame *out, int yuv)
{
    const fv_pyr_box all = {0, mb->w, 0, mb->h}, call = {0, mb->cw, 0, mb->ch};
    for (int k = 0; k < (yuv ? 3 : 1); k++) {
        const fv_pyr_plan *p = k ? &mb->cplan : &mb->plan;
        for (int c = 0; c < mb->n && mb->whole; c++)
            fill_box(mb, out, c, k, yuv ? 1 : 4, k ? call : all);
        for (int i = 0; i < p->npieces && !mb->whole; i++)
            fill_box(mb, out, p->cam[i], k, yuv ? 1 : 4, p->q[i][0]);
    }
}

/* Place the seam again (every seam_interval frames): the reduced difference
 * map of the warped images, on the host or the device, then the dynamic
 * programming on the host. */
static int place_seam(fv_multiband *mb, int yuv)
{
    const fovea_stitcher_settings *set = &mb->st->settings;
    if (set->seam != FOVEA_SEAM_DP || mb->frame % set->seam_interval != 0)
        return FOVEA_OK;
    if (mb->dev) {
        int status = mb->dops->seam_diffs(mb->dev, mb->warped, mb->seam.diff);
        if (status < 0)
            return status;
    } else {
        warped_luma(mb, yuv);
        fv_seam_diffs(&mb->seam, (const uint8_t *const *)mb->luma, mb->seam.diff);
    }
    if (fv_seam_update_diffs(&mb->seam, mb->seam.diff)) {
        fv_seam_labels(&mb->seam, mb->label0, mb->label);
        mb->masks_valid = 0;
    }
    return FOVEA_OK;
}

/* One plane's blend on the host (pyramid.c): restricted to the plan, or
 * over the whole panorama. */
static void blend_plane(fv_multiband *mb, int chroma, const uint8_t *const *src, ptrdiff_t stride,
                        int step, uint8_t *dst, ptrdiff_t dst_stride)
{
    fovea_context *ctx = mb->st->ctx;
    fv_pyr_work *wk = chroma ? &mb->cwork : &mb->work;
    const int16_t *const *m = (const int16_t *const *)(chroma ? mb->cmask : mb->mask);
    const uint8_t *cov = chroma ? mb->ccovered : mb->covered;
    const int cw = chroma ? mb->cw : mb->w;
    if (mb->whole)
        fv_pyr_blend_plane(ctx, wk, mb->n, src, stride, step, m, cov, cw, dst, dst_stride, step);
    else
        fv_pyr_blend_plane_plan(ctx, wk, chroma ? &mb->cplan : &mb->plan, mb->n, src, stride, step,
                                m, cov, cw, dst, dst_stride, step);
}

/* The blend of the warped images into pano on the host. */
static void blend_host(fv_multiband *mb, fovea_frame *out, int yuv)
{
    fill_unseen(mb, out, yuv);
    const uint8_t *src[FOVEA_STITCH_MAX_CAMERAS];
    for (int k = 0; k < 3; k++) {
        const int p = yuv ? k : 0;
        for (int c = 0; c < mb->n; c++)
            src[c] = mb->warped[c].data[p] + (yuv ? 0 : k);
        blend_plane(mb, yuv && k > 0, src, mb->warped[0].stride[p], yuv ? 1 : 4,
                    out->data[p] + (yuv ? 0 : k), out->stride[p]);
    }
}

int fv_multiband_process(fv_multiband *mb, const fovea_frame *const *in, fovea_frame *out,
                         int want_stats)
{
    fovea_stitcher *st = mb->st;
    fovea_context *ctx = st->ctx;
    const int yuv = out->fmt == FOVEA_PIX_I420;
    const fovea_memtype mem = mb->dev ? FOVEA_MEM_DEVICE : FOVEA_MEM_HOST;
    const fovea_frame *view[FOVEA_STITCH_MAX_CAMERAS];
    const fovea_frame *const *src = in;
    fovea_frame *pano = out;
    int status;
    if (mb->dev) {
        /* inputs staged once for the feathered and the one-camera stitches;
         * the panorama made on the device */
        if ((status = mb->dops->stage(mb->dev, in, view)) < 0 ||
            (status = mb->dops->target(mb->dev, out, &pano)) < 0)
            return status;
        src = view;
    }
    if ((status = st->backend->process(st->priv, src, pano, want_stats)) < 0)
        return status;
    for (int c = 0; c < mb->n; c++) {
        if (mb->warped[c].data[0] && mb->warped[c].fmt != out->fmt)
            fovea_frame_free(ctx, &mb->warped[c]);
        if (!mb->warped[c].data[0] &&
            (status = fovea_frame_alloc(ctx, &mb->warped[c], mb->w, mb->h, out->fmt, mem)) < 0)
            return status;
        const fovea_frame *one[1] = {src[c]};
        if ((status = st->backend->process(mb->sub_priv[c], one, &mb->warped[c], 0)) < 0)
            return status;
    }
    if ((status = place_seam(mb, yuv)) < 0)
        return status;
    mb->have_labels = 1;
    if (!mb->masks_valid || (yuv && !(mb->masks_valid & 2))) {
        if (mb->dev) {
            if ((status = mb->dops->set_labels(mb->dev, mb->label, yuv)) < 0)
                return status;
        } else {
            build_masks(mb, yuv);
        }
        mb->masks_valid = yuv ? 3 : 1;
    }
    if (mb->dev) {
        if ((status = mb->dops->blend(mb->dev, mb->warped, pano)) < 0 ||
            (status = mb->dops->finish(mb->dev, pano, out)) < 0)
            return status;
    } else {
        blend_host(mb, out, yuv);
    }
    mb->frame++;
    return FOVEA_OK;
}
