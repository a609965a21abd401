/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Color mismatch across the overlaps of a map (fovea_stitch_overlap_mismatch):
 * each camera's samples through the correction tables the stitcher builds. */
#include <math.h>
#include <stdlib.h>

#include "stitch/stitch_internal.h"

/* Bilinear sample of byte ch of pixels of bpp bytes in plane p (of w x h
 * samples) at (u, v), pixel centers at integers, u and v inside the plane. */
static float sample_plane(const fovea_frame *f, int p, int w, int h, float u, float v, int bpp,
                          int ch)
{
    int x0 = (int)u, y0 = (int)v;
    float fx = u - (float)x0, fy = v - (float)y0;
    int x1 = x0 + 1 < w ? x0 + 1 : x0;
    int y1 = y0 + 1 < h ? y0 + 1 : y0;
    const uint8_t *r0 = f->data[p] + (ptrdiff_t)y0 * f->stride[p];
    const uint8_t *r1 = f->data[p] + (ptrdiff_t)y1 * f->stride[p];
    float top = (1.0f - fx) * r0[bpp * x0 + ch] + fx * r0[bpp * x1 + ch];
    float bot = (1.0f - fx) * r1[bpp * x0 + ch] + fx * r1[bpp * x1 + ch];
    return (1.0f - fy) * top + fy * bot;
}

static float sample_u8(const fovea_frame *f, float u, float v, int bpp, int ch)
{
    return sample_plane(f, 0, f->width, f->height, u, v, bpp, ch);
}

/* Component k (0 Y, 1 U, 2 V) of an I420 camera at luma position (u, v),
 * through camera c's tables as the stitcher applies them: luma through its
 * luma curve; chroma (at the chroma position of (u, v), clamped) through its
 * chroma tables at the luma sampled there. */
static float corrected_yuv(const stitch_tables *t, int c, const fovea_frame *f, float u, float v,
                           int k)
{
    const float y = sample_u8(f, u, v, 1, 0);
    if (k == 0)
        return t->lut[c][0][lrintf(4.0f * y)];
    const int cw = (f->width + 1) / 2, ch = (f->height + 1) / 2;
    float x = (u - 0.5f) * 0.5f, z = (v - 0.5f) * 0.5f;
    x = x < 0.0f ? 0.0f : (x > (float)(cw - 1) ? (float)(cw - 1) : x);
    z = z < 0.0f ? 0.0f : (z > (float)(ch - 1) ? (float)(ch - 1) : z);
    const float s = sample_plane(f, k, cw, ch, x, z, 1, 0);
    const float *e = t->chroma[c][lrintf(y)];
    const int q = (int)lrintf(4.0f * s);
    return k == 1 ? stitch_chroma_corrected(e[0], e[1], q) : stitch_chroma_corrected(e[2], e[3], q);
}

static int check_inputs(const fovea_stitch_map *m, const fovea_frame *const *inputs, int n,
                        int *yuv)
{
    if (n != m->num_cameras)
        return FOVEA_ERR_MISMATCH;
    for (int c = 0; c < n; c++) {
        const fovea_frame *f = inputs[c];
        if (!f || !f->data[0])
            return FOVEA_ERR_INVALID_ARG;
        if (f->mem != FOVEA_MEM_HOST && f->mem != FOVEA_MEM_PINNED)
            return FOVEA_ERR_MISMATCH;
        if (f->fmt != inputs[0]->fmt || (f->fmt != FOVEA_PIX_RGBA && f->fmt != FOVEA_PIX_I420))
            return FOVEA_ERR_MISMATCH;
        if (f->width != m->cam[c].cam_width || f->height != m->cam[c].cam_height)
            return FOVEA_ERR_MISMATCH;
    }
    *yuv = inputs[0]->fmt == FOVEA_PIX_I420;
    return FOVEA_OK;
}

int fovea_stitch_overlap_mismatch(const fovea_stitch_map *m, const fovea_frame *const *inputs,
                                  int n, const fovea_color_correction *cc,
                                  const fovea_stitcher_settings *s, double *mismatch)
{
    if (!m || !inputs || !cc || !mismatch || n < 1 || n > FOVEA_STITCH_MAX_CAMERAS)
        return FOVEA_ERR_INVALID_ARG;
    int yuv = 0;
    int st = check_inputs(m, inputs, n, &yuv);
    if (st < 0)
        return st;
    fovea_stitcher_settings defaults;
    if (!s) {
        fovea_stitcher_default_settings(&defaults);
        s = &defaults;
    }
    stitch_tables *t = malloc(sizeof(*t));
    if (!t)
        return FOVEA_ERR_NOMEM;
    /* RGBA: no YUV flags; I420: the settings' conventions, as the stitcher has them */
    fv_stitch_build_tables(cc, n, yuv ? fv_stitch_yuv_flags(s) : 0, t);
    double sum = 0.0;
    long count = 0;
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    for (int j = 0; j < m->pano_height; j += 2)
        for (int i = 0; i < m->pano_width; i += 2) {
            if (fv_map_weights(m, i, j, w, u, v) < 2)
                continue;
            for (int a = 0; a < n; a++)
                for (int b = a + 1; b < n; b++) {
                    if (!(w[a] > 0.0f) || !(w[b] > 0.0f))
                        continue;
                    for (int k = 0; k < 3; k++) {
                        float x, y;
                        if (yuv) {
                            x = corrected_yuv(t, a, inputs[a], u[a], v[a], k);
                            y = corrected_yuv(t, b, inputs[b], u[b], v[b], k);
                        } else {
                            x = fv_lut_apply(t->lut[a][k], sample_u8(inputs[a], u[a], v[a], 4, k));
                            y = fv_lut_apply(t->lut[b][k], sample_u8(inputs[b], u[b], v[b], 4, k));
                        }
                        sum += fabs((double)x - (double)y);
                        count++;
                    }
                }
        }
    free(t);
    *mismatch = count ? sum / (double)count : 0.0;
    return FOVEA_OK;
}
