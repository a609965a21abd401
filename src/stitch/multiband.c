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
};

/* Which cameras see each pixel, alone and together (the map's label: the
 * camera of largest weight, the lowest index among equals). */
static int make_coverage(fv_multiband *mb)
{
    const fovea_stitch_map *m = &mb->st->map;
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    fv_map_row row;
    fv_map_row_init(&row);
    int status = FOVEA_OK;
    for (int j = 0; j < mb->h && status == FOVEA_OK; j++) {
        if ((status = fv_map_row_set(&row, m, j)) < 0)
            break;
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
    }
    for (int c = 0; c < mb->n && status == FOVEA_OK; c++) {
        for (int j = 0; j < mb->h; j++) {
            if ((status = fv_map_row_set(&row, &mb->sub_map[c], j)) < 0)
                break;
            for (int i = 0; i < mb->w; i++)
                mb->seen[c][(size_t)j * (size_t)mb->w + (size_t)i] =
                    fv_map_row_weights(&row, i, w, u, v) > 0;
        }
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
    }
    fv_map_row_free(&row);
    for (int y = 0; y < mb->ch; y++)
        for (int x = 0; x < mb->cw; x++) {
            int any = 0;
            for (int c = 0; c < mb->n; c++)
                any |= mb->cseen[c][(size_t)y * (size_t)mb->cw + (size_t)x];
            mb->ccovered[(size_t)y * (size_t)mb->cw + (size_t)x] = (uint8_t)any;
        }
    return status;
}

void fv_multiband_close(fv_multiband **pmb)
{
    if (!pmb || !*pmb)
        return;
    fv_multiband *mb = *pmb;
    const stitch_backend *b = mb->st->backend;
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
    if (st->backend->info.provides & BACKEND_READS_DEVICE)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "stitcher: multiband blending runs on the cpu backend only so far");
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
        status = st->backend->info.init(&mb->sub_priv[c], ctx, &mb->sub_params[c]);
    }
    if (status == FOVEA_OK)
        status = make_coverage(mb);
    if (status == FOVEA_OK && st->settings.seam == FOVEA_SEAM_DP)
        status = fv_seam_init(&mb->seam, mb->n, mb->w, mb->h, mb->label0,
                              (const uint8_t *const *)mb->seen);
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

/* Pixels camera c does not see take the feathered panorama's value. */
static void fill_unseen(fv_multiband *mb, const fovea_frame *out, int yuv)
{
    for (int c = 0; c < mb->n; c++) {
        fovea_frame *f = &mb->warped[c];
        for (int y = 0; y < mb->h; y++) {
            uint8_t *d = f->data[0] + (ptrdiff_t)y * f->stride[0];
            const uint8_t *s = out->data[0] + (ptrdiff_t)y * out->stride[0];
            const uint8_t *seen = mb->seen[c] + (size_t)y * (size_t)mb->w;
            for (int x = 0; x < mb->w; x++) {
                if (seen[x])
                    continue;
                if (yuv)
                    d[x] = s[x];
                else
                    memcpy(d + 4 * x, s + 4 * x, 4);
            }
        }
        if (!yuv)
            continue;
        for (int k = 1; k < 3; k++)
            for (int y = 0; y < mb->ch; y++) {
                uint8_t *d = f->data[k] + (ptrdiff_t)y * f->stride[k];
                const uint8_t *s = out->data[k] + (ptrdiff_t)y * out->stride[k];
                const uint8_t *seen = mb->cseen[c] + (size_t)y * (size_t)mb->cw;
                for (int x = 0; x < mb->cw; x++)
                    if (!seen[x])
                        d[x] = s[x];
            }
    }
}

int fv_multiband_process(fv_multiband *mb, const fovea_frame *const *in, fovea_frame *out)
{
    fovea_stitcher *st = mb->st;
    fovea_context *ctx = st->ctx;
    const int yuv = out->fmt == FOVEA_PIX_I420;
    int status;
    for (int c = 0; c < mb->n; c++) {
        if (mb->warped[c].data[0] && mb->warped[c].fmt != out->fmt)
            fovea_frame_free(ctx, &mb->warped[c]);
        if (!mb->warped[c].data[0] && (status = fovea_frame_alloc(ctx, &mb->warped[c], mb->w, mb->h,
                                                                  out->fmt, FOVEA_MEM_HOST)) < 0)
            return status;
        const fovea_frame *one[1] = {in[c]};
        if ((status = st->backend->process(mb->sub_priv[c], one, &mb->warped[c], 0)) < 0)
            return status;
    }
    if (st->settings.seam == FOVEA_SEAM_DP && mb->frame % st->settings.seam_interval == 0) {
        warped_luma(mb, yuv);
        if (fv_seam_update(&mb->seam, (const uint8_t *const *)mb->luma)) {
            fv_seam_labels(&mb->seam, mb->label0, mb->label);
            mb->masks_valid = 0;
        }
    }
    mb->have_labels = 1;
    if (!mb->masks_valid || (yuv && !(mb->masks_valid & 2))) {
        build_masks(mb, yuv);
        mb->masks_valid = yuv ? 3 : 1;
    }
    fill_unseen(mb, out, yuv);
    const uint8_t *src[FOVEA_STITCH_MAX_CAMERAS];
    if (!yuv) {
        for (int k = 0; k < 3; k++) {
            for (int c = 0; c < mb->n; c++)
                src[c] = mb->warped[c].data[0] + k;
            fv_pyr_blend_plane(ctx, &mb->work, mb->n, src, mb->warped[0].stride[0], 4,
                               (const int16_t *const *)mb->mask, mb->covered, mb->w,
                               out->data[0] + k, out->stride[0], 4);
        }
    } else {
        for (int k = 0; k < 3; k++) {
            for (int c = 0; c < mb->n; c++)
                src[c] = mb->warped[c].data[k];
            fv_pyr_blend_plane(ctx, k ? &mb->cwork : &mb->work, mb->n, src, mb->warped[0].stride[k],
                               1, (const int16_t *const *)(k ? mb->cmask : mb->mask),
                               k ? mb->ccovered : mb->covered, k ? mb->cw : mb->w, out->data[k],
                               out->stride[k], 1);
        }
    }
    mb->frame++;
    return FOVEA_OK;
}
