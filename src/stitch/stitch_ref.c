/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* C reference stitcher: the specification the CUDA backend reproduces.
 * RGB inputs: every panorama pixel blends the bilinear samples of the cameras
 * that see it (weights from fv_map_weights, computed a row at a time by
 * fv_map_row_weights: the same numbers), each passed through its camera's
 * correction LUT, rounded to 8 bits. YUV inputs: luma the same way with the luma
 * LUT; chroma per 2x2 luma block (see stitch_yuv_block). Threads split rows.
 * Runs of pixels one camera alone sees whole (fv_map_row_single) take the
 * one-camera case's shortcut without the per-pixel weights: the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "stitch/stitch_internal.h"

/* Sampling, in integers so both backends compute the same numbers cheaply. The
 * position is rounded to 1/256 pixel: u8 = round_rne(256 u), x0 = u8 >> 8,
 * fx = u8 & 255, x1 = min(x0 + 1, w - 1) (and the same for v). Each channel:
 *   top = p00 (256 - fx) + p10 fx,   bot = p01 (256 - fx) + p11 fx
 *   val = top (256 - fy) + bot fy           (0 .. 255 * 65536)
 *   q   = (val + 8192) >> 14                (quarter code values, 0 .. 1020)
 * q indexes the correction tables and feeds the overlap statistics. */
typedef struct sample_pos {
    const uint8_t *p00, *p10, *p01, *p11;
    int fx, fy;
} sample_pos;

static inline void sample_at(const uint8_t *base, ptrdiff_t stride, int bpp, int w, int h, float u,
                             float v, sample_pos *s)
{
    int u8 = fv_round_rne(u * 256.0f), v8 = fv_round_rne(v * 256.0f);
    int x0 = u8 >> 8, y0 = v8 >> 8;
    int x1 = x0 + 1 < w ? x0 + 1 : x0;
    int y1 = y0 + 1 < h ? y0 + 1 : y0;
    s->fx = u8 & 255;
    s->fy = v8 & 255;
    s->p00 = base + (ptrdiff_t)y0 * stride + (ptrdiff_t)x0 * bpp;
    s->p10 = base + (ptrdiff_t)y0 * stride + (ptrdiff_t)x1 * bpp;
    s->p01 = base + (ptrdiff_t)y1 * stride + (ptrdiff_t)x0 * bpp;
    s->p11 = base + (ptrdiff_t)y1 * stride + (ptrdiff_t)x1 * bpp;
}

static inline int sample_channel(const sample_pos *s, int ch)
{
    int top = s->p00[ch] * (256 - s->fx) + s->p10[ch] * s->fx;
    int bot = s->p01[ch] * (256 - s->fx) + s->p11[ch] * s->fx;
    return (top * (256 - s->fy) + bot * s->fy + 8192) >> 14;
}

/* Channel ch of a packed image with bpp bytes per pixel, in quarter codes. */
static inline int sample_q(const uint8_t *base, ptrdiff_t stride, int bpp, int w, int h, float u,
                           float v, int ch)
{
    sample_pos s;
    sample_at(base, stride, bpp, w, h, u, v, &s);
    return sample_channel(&s, ch);
}

/* Hugin's photometric correction of camera pc's samples q[3] taken at (u, v)
 * (stitch_math.h): corrected quarter codes, which the color tables and the
 * overlap statistics then take as they take raw ones. */
static inline void photo_apply(const stitch_photo_cam *pc, const uint16_t *out, float u, float v,
                               int q[3])
{
    const float vig = stitch_photo_vig(pc->vig, u, v);
    for (int k = 0; k < 3; k++)
        q[k] = stitch_photo_q(pc->lin[k][q[k]], vig, out);
}

/* Camera c's R, G, B samples at (u, v) in quarter codes, photometric part included. */
static inline void sample_rgbq(const sample_pos *sp, const stitch_photo *ph, int c, float u,
                               float v, int q[3])
{
    for (int k = 0; k < 3; k++)
        q[k] = sample_channel(sp, k);
    if (ph && ph->cam[c])
        photo_apply(ph->cam[c], ph->out, u, v, q);
}

/* Add one pixel's pair contributions (see fv_overlap_stats): raw[c][0..3] are
 * the R, G, B, Y samples of camera c in quarter codes. */
static void add_pair_stats(uint64_t (*acc)[FOVEA_ST_FIELDS], int n, const float *w,
                           const uint64_t (*raw)[4], const int32_t *log_table)
{
    for (int a = 0; a < n; a++) {
        if (!(w[a] > 0.0f))
            continue;
        for (int b = a + 1; b < n; b++) {
            if (!(w[b] > 0.0f))
                continue;
            uint64_t q = (uint64_t)(int)(1024.0f * w[a] * w[b] + 0.5f);
            uint64_t *s = acc[fv_pair_index(a, b, n)];
            s[FOVEA_ST_W] += q;
            s[FOVEA_ST_N] += 1;
            for (int k = 0; k < 4; k++) {
                s[FOVEA_ST_A + k] += q * (uint64_t)log_table[raw[a][k]];
                s[FOVEA_ST_B + k] += q * (uint64_t)log_table[raw[b][k]];
            }
            uint64_t la = (uint64_t)log_table[raw[a][3]], lb = (uint64_t)log_table[raw[b][3]];
            s[FOVEA_ST_A + 4] += q * la * la;
            s[FOVEA_ST_B + 4] += q * lb * lb;
        }
    }
}

/* Longest single-camera run handled at once (positions on the stack). */
#define REF_RUN 256

/* The backend's state: what init was given, the tables of the last
 * set_tables, and the statistics of the last analyzed frame. */
typedef struct ref_state {
    fovea_context *ctx;
    const stitch_params *params;
    const fovea_stitch_map *map;
    int n; /* cameras */
    const stitch_tables *tables;
    const int32_t *log_table;
    fv_overlap_stats pending;
    int have_pending;
} ref_state;

typedef struct ref_job {
    const ref_state *st;
    const fovea_frame *const *in;
    fovea_frame *out;
    int want_stats;
    int black_y;
    int yuv_flags;
    uint64_t (*stats)[FOVEA_MAX_PAIRS][FOVEA_ST_FIELDS]; /* one block per thread */
} ref_job;

static void ref_rows_rgb(void *arg, int begin, int end, int thread)
{
    const ref_job *job = arg;
    const ref_state *st = job->st;
    const fovea_stitch_map *m = st->map;
    const int n = st->n;
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    uint64_t raw[FOVEA_STITCH_MAX_CAMERAS][4];
    const int bpp = job->in[0]->fmt == FOVEA_PIX_RGBA ? 4 : 3;
    const stitch_photo *photo = st->params->photo;
    float ru[REF_RUN], rv[REF_RUN];
    fv_map_row row;
    fv_map_row_init(&row);
    for (int j = begin; j < end; j++) {
        uint8_t *orow = job->out->data[0] + (ptrdiff_t)j * job->out->stride[0];
        /* the row's lookups prepared once (same weights); per pixel without memory */
        const int by_row = fv_map_row_set(&row, m, j) == FOVEA_OK;
        const int runs = by_row && !st->params->ref_runs_off;
        for (int i = 0; i < m->pano_width; i++) {
            uint8_t *o = orow + 4 * i;
            int rc, rend;
            if (runs && fv_map_row_single(&row, i, REF_RUN, &rc, &rend, ru, rv)) {
                /* a run that camera rc alone sees: weight 1, as in the
                 * one-camera case below, without the per-pixel weights */
                const fovea_frame *f = job->in[rc];
                const stitch_photo_cam *pc = photo ? photo->cam[rc] : NULL;
                for (int k = 0; i + k < rend; k++, o += 4) {
                    sample_pos sp;
                    sample_at(f->data[0], f->stride[0], bpp, f->width, f->height, ru[k], rv[k],
                              &sp);
                    if (pc) {
                        int q[3] = {sample_channel(&sp, 0), sample_channel(&sp, 1),
                                    sample_channel(&sp, 2)};
                        photo_apply(pc, photo->out, ru[k], rv[k], q);
                        for (int ch = 0; ch < 3; ch++)
                            o[ch] = st->tables->lut8[rc][ch][q[ch]];
                    } else {
                        for (int ch = 0; ch < 3; ch++)
                            o[ch] = st->tables->lut8[rc][ch][sample_channel(&sp, ch)];
                    }
                    o[3] = 255;
                }
                i = rend - 1;
                continue;
            }
            int cnt =
                by_row ? fv_map_row_weights(&row, i, w, u, v) : fv_map_weights(m, i, j, w, u, v);
            if (cnt == 0) {
                o[0] = o[1] = o[2] = o[3] = 0;
                continue;
            }
            if (cnt == 1) {
                /* one camera, weight exactly 1 (x / x): 1 * lut rounds to lut8,
                 * and a single camera has no pair statistics to add */
                int c = 0;
                while (!(w[c] > 0.0f))
                    c++;
                if (w[c] == 1.0f) {
                    const fovea_frame *f = job->in[c];
                    sample_pos sp;
                    sample_at(f->data[0], f->stride[0], bpp, f->width, f->height, u[c], v[c], &sp);
                    int q[3];
                    sample_rgbq(&sp, photo, c, u[c], v[c], q);
                    for (int k = 0; k < 3; k++)
                        o[k] = st->tables->lut8[c][k][q[k]];
                    o[3] = 255;
                    continue;
                }
            }
            float acc[3] = {0.0f, 0.0f, 0.0f};
            for (int c = 0; c < n; c++) {
                if (!(w[c] > 0.0f))
                    continue;
                const fovea_frame *f = job->in[c];
                sample_pos sp;
                sample_at(f->data[0], f->stride[0], bpp, f->width, f->height, u[c], v[c], &sp);
                int q[3];
                sample_rgbq(&sp, photo, c, u[c], v[c], q);
                for (int k = 0; k < 3; k++) {
                    acc[k] += w[c] * st->tables->lut[c][k][q[k]];
                    raw[c][k] = (uint64_t)q[k];
                }
                raw[c][3] =
                    (uint64_t)stitch_stats_luma((int)raw[c][0], (int)raw[c][1], (int)raw[c][2]);
            }
            o[0] = fv_round_u8(acc[0]);
            o[1] = fv_round_u8(acc[1]);
            o[2] = fv_round_u8(acc[2]);
            o[3] = 255;
            if (job->want_stats)
                add_pair_stats(job->stats[thread], n, w, (const uint64_t(*)[4])raw, st->log_table);
        }
    }
    fv_map_row_free(&row);
}

/* Chroma sample geometry: chroma sample k of a 4:2:0 plane covers luma k*2 and
 * k*2+1 and sits at luma coordinate 2k + 0.5, so luma u maps to chroma (u - 0.5)/2. */
static inline float luma_to_chroma(float x, int chroma_size)
{
    float c = (x - 0.5f) * 0.5f;
    float hi = (float)(chroma_size - 1);
    return c < 0.0f ? 0.0f : (c > hi ? hi : c);
}


/* U and V of a 4:2:0 frame (NV12 or I420) at chroma position (x, y), in
 * quarter codes. */
static void sample_chroma_q(const fovea_frame *f, int nv12, float x, float y, int *qu, int *qv)
{
    int chw = (f->width + 1) >> 1, chh = (f->height + 1) >> 1;
    if (nv12) {
        *qu = sample_q(f->data[1], f->stride[1], 2, chw, chh, x, y, 0);
        *qv = sample_q(f->data[1], f->stride[1], 2, chw, chh, x, y, 1);
    } else {
        *qu = sample_q(f->data[1], f->stride[1], 1, chw, chh, x, y, 0);
        *qv = sample_q(f->data[2], f->stride[2], 1, chw, chh, x, y, 0);
    }
}

/* Camera c's corrected U and V of a chroma sample (quarter codes qu, qv) in a
 * block whose raw luma samples of camera c add up to ysum over n pixels. */
static inline void chroma_value(const stitch_tables *t, int c, int ysum, int n, int qu, int qv,
                                float *su, float *sv)
{
    const float *e = t->chroma[c][stitch_chroma_index(ysum, n)];
    *su = stitch_chroma_corrected(e[0], e[1], qu);
    *sv = stitch_chroma_corrected(e[2], e[3], qv);
}

/* One 2x2 luma block (bx, by) of a YUV output; rows: the block's two luma rows
 * prepared (fv_map_row), or NULL. Overlap statistics (stats not NULL) take
 * each pixel's luma with its camera's chroma sample of the block, as R, G, B
 * (stitch_yuv_rgbq), so they are added once the block's chroma is known. */
static void stitch_yuv_block(const ref_job *job, const fv_map_row *rows, int bx, int by,
                             uint64_t (*stats)[FOVEA_ST_FIELDS])
{
    const ref_state *st = job->st;
    const fovea_stitch_map *m = st->map;
    const int n = st->n;
    const int nv12 = job->in[0]->fmt == FOVEA_PIX_NV12;
    fovea_frame *out = job->out;
    float w[4][FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    float cw[FOVEA_STITCH_MAX_CAMERAS], cu[FOVEA_STITCH_MAX_CAMERAS], cv[FOVEA_STITCH_MAX_CAMERAS];
    int cn[FOVEA_STITCH_MAX_CAMERAS], ysum[FOVEA_STITCH_MAX_CAMERAS];
    int sq[4][FOVEA_STITCH_MAX_CAMERAS]; /* each pixel's raw luma per camera (statistics) */
    int seen[4] = {0, 0, 0, 0};
    memset(cw, 0, sizeof(cw));
    memset(cu, 0, sizeof(cu));
    memset(cv, 0, sizeof(cv));
    memset(cn, 0, sizeof(cn));
    memset(ysum, 0, sizeof(ysum));
    int pixels = 0;
    for (int dy = 0; dy < 2; dy++) {
        int j = 2 * by + dy;
        if (j >= m->pano_height)
            break;
        for (int dx = 0; dx < 2; dx++) {
            int i = 2 * bx + dx;
            if (i >= m->pano_width)
                break;
            const int p = 2 * dy + dx;
            pixels++;
            uint8_t *o = out->data[0] + (ptrdiff_t)j * out->stride[0] + i;
            int cnt = rows ? fv_map_row_weights(&rows[dy], i, w[p], u, v)
                           : fv_map_weights(m, i, j, w[p], u, v);
            if (cnt == 0) {
                *o = (uint8_t)job->black_y;
                continue;
            }
            seen[p] = 1;
            float acc = 0.0f;
            for (int c = 0; c < n; c++) {
                if (!(w[p][c] > 0.0f))
                    continue;
                const fovea_frame *f = job->in[c];
                int s = sample_q(f->data[0], f->stride[0], 1, f->width, f->height, u[c], v[c], 0);
                acc += w[p][c] * st->tables->lut[c][0][s];
                cw[c] += w[p][c];
                cu[c] += u[c];
                cv[c] += v[c];
                cn[c] += 1;
                ysum[c] += s;
                sq[p][c] = s;
            }
            *o = fv_round_u8(acc);
        }
    }
    /* Chroma: each camera's weight is the mean of its luma weights over the
     * block; its position is the mean of its luma positions where it has weight. */
    float accu = 0.0f, accv = 0.0f, wsum = 0.0f;
    int qu[FOVEA_STITCH_MAX_CAMERAS], qv[FOVEA_STITCH_MAX_CAMERAS];
    for (int c = 0; c < n; c++) {
        if (cn[c] == 0)
            continue;
        const fovea_frame *f = job->in[c];
        float wc = cw[c] / (float)pixels;
        float inv = 1.0f / (float)cn[c];
        int chw = (f->width + 1) >> 1, chh = (f->height + 1) >> 1;
        float x = luma_to_chroma(cu[c] * inv, chw), y = luma_to_chroma(cv[c] * inv, chh);
        sample_chroma_q(f, nv12, x, y, &qu[c], &qv[c]);
        float su, sv;
        chroma_value(st->tables, c, ysum[c], cn[c], qu[c], qv[c], &su, &sv);
        accu += wc * su;
        accv += wc * sv;
        wsum += wc;
    }
    uint8_t ou = 128, ov = 128;
    if (wsum > 0.0f) {
        ou = fv_round_u8(accu / wsum);
        ov = fv_round_u8(accv / wsum);
    }
    out->data[1][(ptrdiff_t)by * out->stride[1] + bx] = ou;
    out->data[2][(ptrdiff_t)by * out->stride[2] + bx] = ov;
    if (!stats)
        return;
    for (int p = 0; p < 4; p++) {
        if (!seen[p])
            continue;
        uint64_t raw[FOVEA_STITCH_MAX_CAMERAS][4];
        for (int c = 0; c < n; c++) {
            if (!(w[p][c] > 0.0f))
                continue;
            int rgbq[4];
            stitch_yuv_rgbq(sq[p][c], qu[c], qv[c], job->yuv_flags, rgbq);
            for (int k = 0; k < 4; k++)
                raw[c][k] = (uint64_t)rgbq[k];
        }
        add_pair_stats(stats, n, w[p], (const uint64_t(*)[4])raw, st->log_table);
    }
}

/* Whole 2x2 blocks bx .. *bx_end - 1 of block row by that one camera alone
 * sees whole (fv_map_row_single on both rows), made without per-pixel
 * weights: every weight is 1, so the general block's sums reduce to the
 * camera's own values (luma lut8; chroma at the mean of the four positions,
 * added in the general block's order, corrected through the chroma tables).
 * Returns 0 (nothing made) when block bx is not such a block. */
static int yuv_single_run(const ref_job *job, const fv_map_row *rows, int bx, int by,
                          float (*ru)[REF_RUN], float (*rv)[REF_RUN], int *bx_end)
{
    const ref_state *st = job->st;
    const int i0 = 2 * bx;
    int c0, c1, e0, e1;
    if (!fv_map_row_single(&rows[0], i0, REF_RUN, &c0, &e0, ru[0], rv[0]) ||
        !fv_map_row_single(&rows[1], i0, REF_RUN, &c1, &e1, ru[1], rv[1]) || c0 != c1)
        return 0;
    int nb = ((e0 < e1 ? e0 : e1) - i0) >> 1;
    if (nb < 1)
        return 0;
    const fovea_frame *f = job->in[c0];
    fovea_frame *out = job->out;
    const int nv12 = f->fmt == FOVEA_PIX_NV12;
    const int chw = (f->width + 1) >> 1, chh = (f->height + 1) >> 1;
    const uint8_t *lut_y = st->tables->lut8[c0][0];
    uint8_t *oy0 = out->data[0] + (ptrdiff_t)(2 * by) * out->stride[0] + i0;
    uint8_t *oy1 = oy0 + out->stride[0];
    uint8_t *ou = out->data[1] + (ptrdiff_t)by * out->stride[1] + bx;
    uint8_t *ov = out->data[2] + (ptrdiff_t)by * out->stride[2] + bx;
    for (int b = 0; b < nb; b++) {
        int k = 2 * b;
        float cu = 0.0f, cv = 0.0f;
        int ysum = 0;
        for (int dy = 0; dy < 2; dy++) {
            uint8_t *o = dy ? oy1 : oy0;
            for (int dx = 0; dx < 2; dx++) {
                float u = ru[dy][k + dx], v = rv[dy][k + dx];
                int q = sample_q(f->data[0], f->stride[0], 1, f->width, f->height, u, v, 0);
                o[k + dx] = lut_y[q];
                cu += u;
                cv += v;
                ysum += q;
            }
        }
        float x = luma_to_chroma(cu * 0.25f, chw), y = luma_to_chroma(cv * 0.25f, chh);
        int qu, qv;
        float su, sv;
        sample_chroma_q(f, nv12, x, y, &qu, &qv);
        chroma_value(st->tables, c0, ysum, 4, qu, qv, &su, &sv);
        /* weight 1: (1 * s) / 1 = s, rounded */
        ou[b] = fv_round_u8(su);
        ov[b] = fv_round_u8(sv);
    }
    *bx_end = bx + nb;
    return 1;
}

static void ref_rows_yuv(void *arg, int begin, int end, int thread)
{
    const ref_job *job = arg;
    const fovea_stitch_map *m = job->st->map;
    int bw = (m->pano_width + 1) >> 1;
    float ru[2][REF_RUN], rv[2][REF_RUN];
    fv_map_row rows[2];
    fv_map_row_init(&rows[0]);
    fv_map_row_init(&rows[1]);
    for (int by = begin; by < end; by++) {
        const int by_row = fv_map_row_set(&rows[0], m, 2 * by) == FOVEA_OK &&
                           fv_map_row_set(&rows[1], m, 2 * by + 1) == FOVEA_OK;
        for (int bx = 0; bx < bw; bx++) {
            int bx_end;
            if (by_row && !job->st->params->ref_runs_off &&
                yuv_single_run(job, rows, bx, by, ru, rv, &bx_end)) {
                bx = bx_end - 1;
                continue;
            }
            stitch_yuv_block(job, by_row ? rows : NULL, bx, by,
                             job->want_stats ? job->stats[thread] : NULL);
        }
    }
    fv_map_row_free(&rows[0]);
    fv_map_row_free(&rows[1]);
}


static int ref_init(void **priv, fovea_context *ctx, const void *params)
{
    const stitch_params *p = params;
    ref_state *rs = calloc(1, sizeof(*rs));
    if (!rs)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    rs->ctx = ctx;
    rs->params = p;
    rs->map = p->map;
    rs->n = p->map->num_cameras;
    rs->log_table = p->log_table;
    *priv = rs;
    return FOVEA_OK;
}

static int ref_process(void *priv, const fovea_frame *const *in, fovea_frame *out, int want_stats)
{
    ref_state *rs = priv;
    int threads = fovea_context_threads(rs->ctx);
    const int yuv_flags = fv_stitch_yuv_flags(rs->params->settings);
    ref_job job = {rs, in, out, want_stats, stitch_black_y(yuv_flags), yuv_flags, NULL};
    if (want_stats) {
        job.stats = calloc((size_t)threads, sizeof(*job.stats));
        if (!job.stats)
            return fv_ctx_error(rs->ctx, FOVEA_ERR_NOMEM, "out of memory");
    }
    stitch_input_kind kind = fv_stitch_input_kind(in[0]->fmt);
    if (kind == STITCH_IN_RGBA || kind == STITCH_IN_RGB24)
        fv_parallel_for(rs->ctx, rs->map->pano_height, 4, ref_rows_rgb, &job);
    else
        fv_parallel_for(rs->ctx, (rs->map->pano_height + 1) >> 1, 2, ref_rows_yuv, &job);
    if (want_stats) {
        memset(&rs->pending, 0, sizeof(rs->pending));
        for (int t = 0; t < threads; t++)
            for (int p = 0; p < FOVEA_MAX_PAIRS; p++)
                for (int k = 0; k < FOVEA_ST_FIELDS; k++)
                    rs->pending.v[p][k] += job.stats[t][p][k];
        rs->have_pending = 1;
        free(job.stats);
    }
    return FOVEA_OK;
}

static int ref_poll_stats(void *priv, fv_overlap_stats *stats, int wait)
{
    ref_state *rs = priv;
    (void)wait;
    if (!rs->have_pending)
        return 0;
    *stats = rs->pending;
    rs->have_pending = 0;
    return 1;
}

static int ref_set_tables(void *priv, const stitch_tables *t)
{
    ((ref_state *)priv)->tables = t;
    return FOVEA_OK;
}

static void ref_close(void **priv)
{
    free(*priv);
    *priv = NULL;
}

const stitch_backend stitch_backend_ref = {
    {"cpu", FOVEA_BACKEND_CPU, 0, ref_init, ref_close},
    ref_process,
    ref_poll_stats,
    ref_set_tables,
    NULL, /* multiband: multiband.c's host loops */
};
