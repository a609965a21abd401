/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Stitcher host logic: validation, backend choice, color tables, and the
 * automatic color balance schedule (analyze every K frames, smooth, apply). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stitch/map_file.h"
#include "stitch/multiband.h"
#include "stitch/stitch_internal.h"

void fovea_stitcher_default_settings(fovea_stitcher_settings *s)
{
    memset(s, 0, sizeof(*s));
    s->color = FOVEA_COLOR_AUTO;
    s->auto_interval = 30;
    s->auto_smoothing = 0.5f;
    s->auto_max_step = 0.01f;
    s->auto_dead_band = 0.01f;
    s->deterministic = 0;
    s->gain_min = 0.5f;
    s->gain_max = 2.0f;
    s->gamma_min = 0.7f;
    s->gamma_max = 1.4f;
    s->regularization = 0.05f;
    s->min_overlap_samples = 1000;
    s->yuv_full_range = 0;
    s->yuv_colorspace = FOVEA_CS_BT601;
    s->blend = FOVEA_BLEND_FEATHER;
    s->blend_levels = 5;
    s->seam = FOVEA_SEAM_NONE;
    s->seam_interval = 30;
}

int fv_stitch_yuv_flags(const fovea_stitcher_settings *s)
{
    return STITCH_YUV | (s->yuv_full_range ? STITCH_YUV_FULL : 0) |
           (s->yuv_colorspace == FOVEA_CS_BT709 ? STITCH_YUV_BT709 : 0);
}

/* Luma weights (w_R, w_B) of the flags' matrix: BT.601 0.299, 0.114; BT.709
 * 0.2126, 0.0722. */
static void yuv_weights(int flags, double *wr, double *wb)
{
    *wr = flags & STITCH_YUV_BT709 ? 0.2126 : 0.299;
    *wb = flags & STITCH_YUV_BT709 ? 0.0722 : 0.114;
}

stitch_input_kind fv_stitch_input_kind(fovea_pixfmt fmt)
{
    switch (fmt) {
    case FOVEA_PIX_RGBA: return STITCH_IN_RGBA;
    case FOVEA_PIX_RGB24: return STITCH_IN_RGB24;
    case FOVEA_PIX_NV12: return STITCH_IN_NV12;
    default: return STITCH_IN_I420;
    }
}

/* One channel's correction on normalized values: min(g x, 1)^gamma (identity
 * for a gain or gamma that is not a positive finite number). */
static double channel_curve(double g, double gamma, double x)
{
    if (!(g > 0.0 && isfinite(g) && gamma > 0.0 && isfinite(gamma)))
        return x;
    x = fmin(g * x, 1.0);
    return x > 0.0 ? pow(x, gamma) : 0.0;
}

/* YUV chroma tables of one camera (the matrix and range of flags, as
 * stitch_yuv_rgbq). For a
 * block of mean luma code y, the gray of that luma, x in [0, 1], goes through
 * the camera's RGB curves f_R, f_G, f_B: the chroma of the corrected gray is
 * the offset n_u = C (f_B - Y') / (2 (1 - w_B)), n_v = C (f_R - Y') / (2 (1 -
 * w_R)), with Y' = w_R f_R + w_G f_G + w_B f_B and C the chroma range (224
 * limited, 255 full). Chroma away from gray is scaled by the derivative of
 * the corrected chroma along it, s_u = (1 - w_B) f_B' + w_B f_G', s_v = (1 - w_R)
 * f_R' + w_R f_G' (cross terms between U and V, of the order of the gains'
 * differences times the chroma, left out), with the curves' slopes taken as
 * secants over y +- 27 codes (limited range; 32 full: about x +- 1/8, a
 * typical chroma excursion; the derivative of a power curve is unbounded at
 * black), clamped to black and white. So U' = 128 + n_u + s_u (U - 128),
 * stored as a + s q for the quarter code q = 4 U. */
static void build_chroma_table(const fovea_color_correction *cc, int flags,
                               float tab[STITCH_CHROMA_CODES][4])
{
    const int full = (flags & STITCH_YUV_FULL) != 0;
    double wr, wb;
    yuv_weights(flags, &wr, &wb);
    const double wg = 1.0 - wr - wb;
    const double range = full ? 255.0 : 224.0;
    const int black = full ? 0 : 16, white = full ? 255 : 235, half = full ? 32 : 27;
    double x[STITCH_CHROMA_CODES], f[3][STITCH_CHROMA_CODES];
    const double gamma = cc->gamma;
    const int plain = gamma > 0.0 && isfinite(gamma);
    for (int y = black; y <= white; y++) {
        x[y] = (double)(y - black) / (double)(white - black);
        const double lx = y > black ? log(x[y]) : 0.0;
        for (int k = 0; k < 3; k++) {
            const double g = cc->gain[k];
            if (plain && gamma != 1.0 && g > 0.0 && isfinite(g) && y > black && g * x[y] < 1.0)
                f[k][y] = exp(gamma * (log(g) + lx)); /* (g x)^gamma, one exp */
            else
                f[k][y] = channel_curve(g, gamma, x[y]);
        }
    }
    for (int y = 0; y < STITCH_CHROMA_CODES; y++) {
        const int yc = y < black ? black : (y > white ? white : y);
        const int lo = yc - half < black ? black : yc - half;
        const int hi = yc + half > white ? white : yc + half;
        double slope[3];
        for (int k = 0; k < 3; k++)
            slope[k] = (f[k][hi] - f[k][lo]) / (x[hi] - x[lo]);
        const double fr = f[0][yc], fg = f[1][yc], fb = f[2][yc];
        /* (a gray stays gray when the three curves agree: no offset at all) */
        const double yp = fr == fg && fg == fb ? fr : wr * fr + wg * fg + wb * fb;
        const double nu = range * (fb - yp) / (2.0 * (1.0 - wb));
        const double nv = range * (fr - yp) / (2.0 * (1.0 - wr));
        const double su = (1.0 - wb) * slope[2] + wb * slope[1];
        const double sv = (1.0 - wr) * slope[0] + wr * slope[1];
        tab[y][0] = (float)(128.0 + nu - 128.0 * su);
        tab[y][1] = (float)(su * 0.25);
        tab[y][2] = (float)(128.0 + nv - 128.0 * sv);
        tab[y][3] = (float)(sv * 0.25);
    }
}

/* Luma weights of R, G, B in 8 bits (sum 256) for the YUV luma gain: BT.601, BT.709 */
static const double luma_weights8[2][3] = {{77.0, 150.0, 29.0}, {54.0, 183.0, 19.0}};

void fv_stitch_build_tables(const fovea_color_correction *cc, int n, int yuv, stitch_tables *t)
{
    for (int c = 0; c < n; c++) {
        if (!yuv) {
            fv_color_build_lut(&cc[c], t->lut[c]);
            continue;
        }
        /* YUV: the luma curve applies the luma-weighted gain (the matrix's
         * luma weights in 8 bits: BT.601 77, 150, 29; BT.709 54, 183, 19) and
         * the gamma to luma normalized to [0,1]; chroma through the chroma
         * tables (build_chroma_table). */
        const double *wy = luma_weights8[(yuv & STITCH_YUV_BT709) != 0];
        const double gy =
            (wy[0] * cc[c].gain[0] + wy[1] * cc[c].gain[1] + wy[2] * cc[c].gain[2]) / 256.0;
        const double gamma = cc[c].gamma;
        if (yuv & STITCH_YUV_FULL) {
            /* full range: 255 min(gy Y / 255, 1)^gamma, an RGB channel's curve */
            const fovea_color_correction luma = {{(float)gy, (float)gy, (float)gy}, (float)gamma};
            float rgb[3][FOVEA_LUT_SIZE];
            fv_color_build_lut(&luma, rgb);
            memcpy(t->lut[c][0], rgb[0], sizeof(t->lut[c][0]));
        } else {
            /* limited range: codes below 16 untouched, codes above 235 kept
             * that far above what 235 becomes. 16 + 219 min(gy b(q), 1)^gamma
             * with b(q) = max(q / 4 - 16, 0) / 219: below the clamp 16 + 219
             * gy^gamma b(q)^gamma, one exp per code */
            double p[FOVEA_LUT_SIZE];
            const int plain = gy > 0.0 && isfinite(gy) && gamma > 0.0 && isfinite(gamma);
            if (plain)
                fv_color_power_curve(FOVEA_CURVE_LUMA, gamma, p);
            const double scale = plain ? 219.0 * pow(gy, gamma) : 0.0;
            /* gy^gamma past the double range: the definition (as in
             * fv_color_build_lut) */
            const int direct = !plain || !isfinite(scale);
            const int white = 4 * 235; /* the quarter code of nominal white */
            for (int q = 0; q < FOVEA_LUT_SIZE; q++) {
                double x = q / 4.0;
                double y = (x - 16.0) / 219.0;
                y = y < 0.0 ? 0.0 : y;
                y *= gy;
                double o;
                if (x < 16.0)
                    o = x; /* below black: untouched */
                else if (q > white)
                    /* above white: on top of what white becomes, so that
                     * super-whites pass through an identity correction */
                    o = fmin((double)t->lut[c][0][white] + (x - 235.0), 255.0);
                else if (y >= 1.0)
                    o = 235.0;
                else
                    o = direct ? 16.0 + 219.0 * pow(y, gamma) : 16.0 + scale * p[q];
                t->lut[c][0][q] = (float)o;
            }
        }
        for (int k = 1; k < 3; k++)
            memcpy(t->lut[c][k], t->lut[c][0], sizeof(t->lut[c][0]));
        build_chroma_table(&cc[c], yuv, t->chroma[c]);
    }
    for (int c = 0; c < n; c++)
        for (int k = 0; k < 3; k++)
            for (int q = 0; q < FOVEA_LUT_SIZE; q++)
                t->lut8[c][k][q] = fv_round_u8(t->lut[c][k][q]);
}

static int refresh_tables(fovea_stitcher *st, stitch_input_kind kind)
{
    fovea_color_correction ident[FOVEA_STITCH_MAX_CAMERAS];
    const fovea_color_correction *cc = st->cc;
    if (st->settings.color == FOVEA_COLOR_OFF) {
        for (int c = 0; c < st->n; c++) {
            ident[c].gain[0] = ident[c].gain[1] = ident[c].gain[2] = 1.0f;
            ident[c].gamma = 1.0f;
        }
        cc = ident;
    }
    fv_stitch_build_tables(
        cc, st->n, stitch_input_is_yuv(kind) ? fv_stitch_yuv_flags(&st->settings) : 0, &st->tables);
    st->last_kind = kind;
    st->tables_valid = 1;
    int status = st->backend->set_tables(st->priv, &st->tables);
    return status == FOVEA_OK && st->mb ? fv_multiband_set_tables(st->mb, &st->tables) : status;
}

int fovea_stitcher_open(fovea_stitcher **out, fovea_context *ctx, const fovea_stitch_map *map,
                        const fovea_stitcher_settings *s)
{
    fovea_stitcher_settings defaults;
    if (!ctx || !out || !map)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "stitcher: missing context or map");
    *out = NULL;
    if (!s) {
        fovea_stitcher_default_settings(&defaults);
        s = &defaults;
    }
    if (s->color < FOVEA_COLOR_OFF || s->color > FOVEA_COLOR_AUTO || s->auto_interval < 1 ||
        !(s->auto_smoothing > 0.0f && s->auto_smoothing <= 1.0f) ||
        !(s->gain_min > 0.0f && s->gain_min <= 1.0f && s->gain_max >= 1.0f) ||
        !(s->gamma_min > 0.0f && s->gamma_min <= 1.0f && s->gamma_max >= 1.0f) ||
        !(s->regularization >= 0.0f) || !isfinite(s->gain_max) || !isfinite(s->gamma_max) ||
        !(s->auto_max_step > 0.0f && isfinite(s->auto_max_step)) ||
        !(s->auto_dead_band >= 0.0f && isfinite(s->auto_dead_band)) ||
        (s->yuv_colorspace != FOVEA_CS_BT601 && s->yuv_colorspace != FOVEA_CS_BT709))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "stitcher: invalid color settings (interval >= 1, smoothing in "
                            "(0,1], max step > 0, dead band >= 0, gain/gamma ranges must "
                            "contain 1, YUV colorspace BT.601 or BT.709)");
    if ((s->blend != FOVEA_BLEND_FEATHER && s->blend != FOVEA_BLEND_MULTIBAND) ||
        (s->blend == FOVEA_BLEND_MULTIBAND && (s->blend_levels < 1 || s->blend_levels > 10)) ||
        (s->seam != FOVEA_SEAM_NONE && s->seam != FOVEA_SEAM_DP) || s->seam_interval < 1 ||
        (s->seam == FOVEA_SEAM_DP && s->blend != FOVEA_BLEND_MULTIBAND))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "stitcher: invalid blend settings (blend feather or multiband with "
                            "1..10 levels; seam none, or dp with multiband; seam interval >= 1)");
    fovea_stitcher *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    st->ctx = ctx;
    st->settings = *s;
    int status = fv_stitch_map_copy(&st->map, map);
    if (status < 0) {
        free(st);
        return fv_ctx_error(ctx, status, "stitcher: cannot copy the map");
    }
    st->n = map->num_cameras;
    fv_color_log_table(st->log_table);
    for (int c = 0; c < st->n; c++) {
        st->cc[c].gain[0] = st->cc[c].gain[1] = st->cc[c].gain[2] = 1.0f;
        st->cc[c].gamma = 1.0f;
    }
    memcpy(st->target, st->cc, sizeof(st->target));
    st->params.map = &st->map;
    st->params.settings = &st->settings;
    st->params.log_table = st->log_table;
    /* Hugin's photometric part (a map built from a rig that has one) */
    if (!s->ignore_photometric && (status = fv_photo_build(&st->map, &st->photo)) < 0) {
        fv_stitch_map_free(&st->map);
        free(st);
        return fv_ctx_error(ctx, status, "out of memory");
    }
    st->params.photo = st->photo ? &st->photo->view : NULL;
    /* the context's backend (resolved by fovea_open) runs the stitch */
    const backend_info *b = NULL;
    char msg[FOVEA_ERRLEN];
    status = backend_pick(ctx, stitch_backends, stitch_backend_count, fovea_context_backend(ctx),
                          &b, msg, sizeof msg);
    if (status < 0)
        fv_ctx_error(ctx, status, "stitcher: %s", msg);
    else
        status = b->init(&st->priv, ctx, &st->params);
    if (status < 0) {
        fv_stitch_map_free(&st->map);
        free(st->photo);
        free(st);
        return status;
    }
    st->backend = (const stitch_backend *)b; /* b is its info, the first member */
    if (s->blend == FOVEA_BLEND_MULTIBAND && (status = fv_multiband_open(&st->mb, st)) < 0) {
        fovea_stitcher_close(&st);
        return status;
    }
    *out = st;
    return FOVEA_OK;
}

void fovea_stitcher_close(fovea_stitcher **pst)
{
    if (!pst || !*pst)
        return;
    fovea_stitcher *st = *pst;
    fv_multiband_close(&st->mb);
    if (st->backend)
        st->backend->info.close(&st->priv);
    fv_stitch_map_free(&st->map);
    free(st->photo);
    free(st);
    *pst = NULL;
}

static int check_frames(fovea_stitcher *st, const fovea_frame *const *in, int n,
                        const fovea_frame *out)
{
    fovea_context *ctx = st->ctx;
    if (!in)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "inputs is NULL (expected %d camera "
                            "frames)",
                            st->n);
    if (n != st->n)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH, "map expects %d cameras, got %d", st->n, n);
    const int cuda = (st->backend->info.provides & BACKEND_READS_DEVICE) != 0;
    for (int c = 0; c < n; c++) {
        const fovea_frame *f = in[c];
        if (!f || !f->data[0])
            return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "camera %d: no frame", c);
        if (f->fmt != FOVEA_PIX_RGBA && f->fmt != FOVEA_PIX_RGB24 && f->fmt != FOVEA_PIX_NV12 &&
            f->fmt != FOVEA_PIX_I420)
            return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                                "camera %d: pixel format %s (stitching takes rgba, rgb24, nv12 "
                                "or i420)",
                                c, fovea_pixfmt_name(f->fmt));
        if (f->fmt != in[0]->fmt)
            return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH,
                                "camera %d is %s but camera 0 is %s: all cameras must share "
                                "one pixel format",
                                c, fovea_pixfmt_name(f->fmt), fovea_pixfmt_name(in[0]->fmt));
        if (f->width != st->map.cam[c].cam_width || f->height != st->map.cam[c].cam_height)
            return fv_ctx_error(
                ctx, FOVEA_ERR_MISMATCH, "camera %d: map expects %dx%d, input is %dx%d", c,
                st->map.cam[c].cam_width, st->map.cam[c].cam_height, f->width, f->height);
        if (f->mem == FOVEA_MEM_DEVICE && !cuda)
            return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                                "camera %d: device frame on a CPU context", c);
        char name[32];
        snprintf(name, sizeof(name), "camera %d", c);
        FOVEA_TRY(fv_frame_check(ctx, f, name));
    }
    if (!out || !out->data[0])
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "no output frame");
    fovea_pixfmt want =
        stitch_input_is_yuv(fv_stitch_input_kind(in[0]->fmt)) ? FOVEA_PIX_I420 : FOVEA_PIX_RGBA;
    if (out->fmt != want || out->width != st->map.pano_width || out->height != st->map.pano_height)
        return fv_ctx_error(
            ctx, FOVEA_ERR_MISMATCH, "output must be %dx%d %s for %s inputs (got %dx%d %s)",
            st->map.pano_width, st->map.pano_height, fovea_pixfmt_name(want),
            fovea_pixfmt_name(in[0]->fmt), out->width, out->height, fovea_pixfmt_name(out->fmt));
    if (out->mem == FOVEA_MEM_DEVICE && !cuda)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "device output on a CPU context");
    if (st->photo && want == FOVEA_PIX_I420 && !st->photo_warned) {
        fv_log(ctx, FOVEA_LOG_WARNING,
               "stitcher: the map's photometric correction (Hugin's exposure, white balance, "
               "vignetting and response) applies to RGB inputs only: %s inputs are stitched "
               "without it",
               fovea_pixfmt_name(in[0]->fmt));
        st->photo_warned = 1;
    }
    return fv_frame_check(ctx, out, "output frame");
}

/* Turn fresh statistics into corrections. The first estimate (full = 1: on
 * the first frame, fovea_stitcher_analyze) becomes the corrections at once;
 * later ones move the target by `auto_smoothing` of the way, and the
 * corrections follow the target frame by frame (step_color). */
static int absorb_stats(fovea_stitcher *st, const fv_overlap_stats *stats, int full,
                        fovea_color_correction *result)
{
    fovea_color_correction solved[FOVEA_STITCH_MAX_CAMERAS];
    fv_color_solve(stats, st->n, &st->settings, solved);
    if (result)
        memcpy(result, solved, sizeof(solved[0]) * (size_t)st->n);
    if (full || !st->color_primed) {
        memcpy(st->cc, solved, sizeof(solved[0]) * (size_t)st->n);
        memcpy(st->target, solved, sizeof(solved[0]) * (size_t)st->n);
        st->color_primed = 1;
        st->color_moving = 0;
        st->tables_valid = 0;
        return FOVEA_OK;
    }
    const float smoothing = st->settings.auto_smoothing;
    for (int c = 0; c < st->n; c++) {
        for (int k = 0; k < 3; k++)
            st->target[c].gain[k] += smoothing * (solved[c].gain[k] - st->target[c].gain[k]);
        st->target[c].gamma += smoothing * (solved[c].gamma - st->target[c].gamma);
    }
    return FOVEA_OK;
}

/* One frame's move of the corrections toward the target, bounded. */
static void step_color(fovea_stitcher *st)
{
    if (fv_color_step(st->cc, st->target, st->n, st->settings.auto_max_step,
                      st->settings.auto_dead_band, &st->color_moving))
        st->tables_valid = 0;
}

int fovea_stitcher_process(fovea_stitcher *st, const fovea_frame *const *in, int n,
                           fovea_frame *out)
{
    int status = fovea_stitcher_process_async(st, in, n, out);
    if (status != FOVEA_OK)
        return status;
    /* pinned frames are copied asynchronously: wait so the caller may reuse the
     * inputs and read the output */
    int pinned = out->mem == FOVEA_MEM_PINNED;
    for (int c = 0; c < n; c++)
        pinned |= in[c]->mem == FOVEA_MEM_PINNED;
    return pinned ? fovea_sync(st->ctx) : FOVEA_OK;
}

int fovea_stitcher_process_async(fovea_stitcher *st, const fovea_frame *const *in, int n,
                                 fovea_frame *out)
{
    if (!st)
        return FOVEA_ERR_INVALID_ARG;
    int status = check_frames(st, in, n, out);
    if (status < 0)
        return status;
    stitch_input_kind kind = fv_stitch_input_kind(in[0]->fmt);
    int autocolor = st->settings.color == FOVEA_COLOR_AUTO && st->n > 1;
    /* The first frame is balanced with its own measurement, applied in full,
     * as fovea_stitcher_analyze does for stills (one extra pass, once). */
    int primed_now = 0;
    if (autocolor && !st->color_primed) {
        status = fovea_stitcher_analyze(st, in, n, 1, NULL);
        if (status < 0)
            return status;
        st->color_primed = 1;
        primed_now = 1;
    }

    if (!st->tables_valid || st->last_kind != kind) {
        status = refresh_tables(st, kind);
        if (status < 0)
            return status;
    }
    int analyze = autocolor && !primed_now && st->frame % st->settings.auto_interval == 0;
    status = st->mb ? fv_multiband_process(st->mb, in, out, analyze)
                    : st->backend->process(st->priv, in, out, analyze);
    if (status < 0)
        return status;
    st->frame++;
    /* New statistics move the target after this frame's work is queued, so
     * that solving and building the tables (tens of microseconds on the host)
     * run while the device stitches; their upload is queued behind this frame:
     * they apply from the next frame on. Deterministic: this frame's own
     * statistics, waited for. Otherwise: those of an earlier analysis frame
     * that have arrived in the background by now, without waiting. Then the
     * corrections take one bounded step toward the target. */
    if (autocolor) {
        if (analyze || !st->settings.deterministic) {
            fv_overlap_stats stats;
            int ready = st->backend->poll_stats(st->priv, &stats, st->settings.deterministic);
            if (ready < 0)
                return ready;
            if (ready)
                absorb_stats(st, &stats, 0, NULL);
        }
        step_color(st);
        if (!st->tables_valid) {
            status = refresh_tables(st, kind);
            if (status < 0)
                return status;
        }
    }
    return FOVEA_OK;
}

int fovea_stitcher_analyze(fovea_stitcher *st, const fovea_frame *const *in, int n, int apply,
                           fovea_color_correction *result)
{
    if (!st)
        return FOVEA_ERR_INVALID_ARG;
    /* Analysis runs the stitch with statistics into a scratch output. */
    fovea_frame scratch;
    stitch_input_kind kind =
        n > 0 && in && in[0] ? fv_stitch_input_kind(in[0]->fmt) : STITCH_IN_RGBA;
    fovea_memtype mem =
        st->backend->info.provides & BACKEND_READS_DEVICE ? FOVEA_MEM_DEVICE : FOVEA_MEM_HOST;
    int status =
        fovea_frame_alloc(st->ctx, &scratch, st->map.pano_width, st->map.pano_height,
                          stitch_input_is_yuv(kind) ? FOVEA_PIX_I420 : FOVEA_PIX_RGBA, mem);
    if (status < 0)
        return status;
    status = check_frames(st, in, n, &scratch);
    if (status == FOVEA_OK && (!st->tables_valid || st->last_kind != kind))
        status = refresh_tables(st, kind);
    if (status == FOVEA_OK) {
        /* drop statistics of an earlier frame still pending */
        fv_overlap_stats stats;
        st->backend->poll_stats(st->priv, &stats, 1);
        status = st->backend->process(st->priv, in, &scratch, 1);
        if (status == FOVEA_OK) {
            int ready = st->backend->poll_stats(st->priv, &stats, 1);
            if (ready < 0)
                status = ready;
            else if (ready) {
                fovea_color_correction saved[FOVEA_STITCH_MAX_CAMERAS];
                fovea_color_correction saved_target[FOVEA_STITCH_MAX_CAMERAS];
                const int primed = st->color_primed, moving = st->color_moving;
                memcpy(saved, st->cc, sizeof(saved));
                memcpy(saved_target, st->target, sizeof(saved_target));
                absorb_stats(st, &stats, 1, result);
                if (!apply) {
                    memcpy(st->cc, saved, sizeof(saved));
                    memcpy(st->target, saved_target, sizeof(saved_target));
                    st->color_primed = primed;
                    st->color_moving = moving;
                    st->tables_valid = 0;
                }
            }
        }
    }
    fovea_frame_free(st->ctx, &scratch);
    return status;
}

int fovea_stitcher_set_color(fovea_stitcher *st, const fovea_color_correction *cc, int n)
{
    if (!st)
        return fv_ctx_error(NULL, FOVEA_ERR_INVALID_ARG, "stitcher_set_color: NULL stitcher");
    if (!cc)
        return fv_ctx_error(st->ctx, FOVEA_ERR_INVALID_ARG, "stitcher_set_color: NULL corrections");
    if (n != st->n)
        return fv_ctx_error(st->ctx, FOVEA_ERR_INVALID_ARG,
                            "stitcher_set_color: %d corrections for %d cameras", n, st->n);
    for (int c = 0; c < n; c++) {
        for (int k = 0; k < 3; k++)
            if (!(cc[c].gain[k] > 0.0f) || !isfinite(cc[c].gain[k]))
                return fv_ctx_error(st->ctx, FOVEA_ERR_INVALID_ARG,
                                    "camera %d: gain must be finite and > 0", c);
        if (!(cc[c].gamma > 0.0f) || !isfinite(cc[c].gamma))
            return fv_ctx_error(st->ctx, FOVEA_ERR_INVALID_ARG,
                                "camera %d: gamma must be finite and > 0", c);
    }
    memcpy(st->cc, cc, sizeof(cc[0]) * (size_t)n);
    memcpy(st->target, cc, sizeof(cc[0]) * (size_t)n);
    st->color_primed = 1; /* AUTO starts here instead of measuring frame 0 */
    st->color_moving = 0;
    st->tables_valid = 0;
    return FOVEA_OK;
}

int fovea_stitcher_get_color(const fovea_stitcher *st, fovea_color_correction *cc, int n)
{
    if (!st)
        return fv_ctx_error(NULL, FOVEA_ERR_INVALID_ARG, "stitcher_get_color: NULL stitcher");
    if (!cc)
        return fv_ctx_error(st->ctx, FOVEA_ERR_INVALID_ARG, "stitcher_get_color: NULL corrections");
    if (n < st->n)
        return fv_ctx_error(st->ctx, FOVEA_ERR_INVALID_ARG,
                            "stitcher_get_color: room for %d corrections, the stitcher has %d "
                            "cameras",
                            n, st->n);
    memcpy(cc, st->cc, sizeof(cc[0]) * (size_t)st->n);
    return FOVEA_OK;
}
