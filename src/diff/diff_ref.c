/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The C reference of the differencing system: the specification of every map
 * (docs/diff.md), plain loops, multi-threaded over rows on the context's pool. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_internal.h"

#define DIFF_PI 3.14159265358979323846

/* One map request on the compared pair: frames of the same size and format,
 * host memory. */
typedef struct diff_job {
    const fovea_frame *prev, *cur; /* the compared pair (for the mask: ref, cur) */
    fovea_frame *out;              /* heat/noise output */
    const fovea_pixfmt_desc *desc;
    int channels, maxval, top, threshold;
} diff_job;

/* Per-thread rows: differences and colors of up to two image rows; the fast
 * paths' byte differences and 16-bit measures. */
typedef struct diff_thread {
    int32_t *sum[2], *mx[2];
    uint8_t *rgb[2];
    uint8_t *scratch;
    uint16_t *fsum[2], *fmx[2];
} diff_thread;

typedef struct diff_ref {
    fovea_diff_settings set;
    int generic; /* no fast paths (tests) */
    int nthreads;
    diff_thread *thr;
    void *rows_mem;
    int rows_width; /* width the rows were allocated for */
    uint8_t heat[DIFF_HEAT_ENTRIES][3];
    /* fast paths: colors by difference, for heat_lut_top / noise_lut_thr */
    diff_fast_lut heat_lut, noise_lut;
    int heat_lut_top, noise_lut_thr;
    /* change mask */
    uint8_t *changed;
    int32_t *list;
    int64_t *row_pixels, *row_sum; /* per tile row */
    int *row_max;
    int tiles_cap, tile_rows_cap;
    /* difference histograms, one per thread */
    uint32_t *hist;
    size_t hist_len;
    /* the pair begin made: the frames as given, the filtered copies, or the
     * temporal state before and after a step (tstate[tcur ^ 1], tstate[tcur]) */
    const fovea_frame *cmp_prev, *cmp_cur;
    fovea_frame filt[2], tstate[2];
    int tcur;
} diff_ref;

void diff_heat_table(uint8_t table[DIFF_HEAT_ENTRIES][3])
{
    for (int i = 0; i < DIFF_HEAT_ENTRIES; i++) {
        const double d = (double)i / (DIFF_HEAT_ENTRIES - 1);
        const double s[3] = {sin(DIFF_PI * d - DIFF_PI / 2), sin(DIFF_PI * d),
                             sin(DIFF_PI * d + DIFF_PI / 2)};
        for (int c = 0; c < 3; c++) {
            const double v = s[c] < 0.0 ? 0.0 : s[c] > 1.0 ? 1.0 : s[c];
            table[i][c] = (uint8_t)floor(255.0 * v + 0.5);
        }
    }
}

static void ref_close(void **priv)
{
    if (!priv || !*priv)
        return;
    diff_ref *st = *priv;
    free(st->rows_mem);
    free(st->thr);
    free(st->changed);
    free(st->list);
    free(st->row_pixels);
    free(st->row_sum);
    free(st->row_max);
    free(st->hist);
    for (int i = 0; i < 2; i++) {
        fovea_frame_free(NULL, &st->filt[i]);
        fovea_frame_free(NULL, &st->tstate[i]);
    }
    free(st);
    *priv = NULL;
}

static int ref_init(void **priv, fovea_context *ctx, const void *params)
{
    const diff_params *p = params;
    *priv = NULL;
    diff_ref *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "diff: out of memory");
    st->set = p->settings;
    st->generic = p->generic;
    st->noise_lut_thr = -1;
    st->nthreads = fv_threadpool_size(ctx ? ctx->pool : NULL);
    if (st->nthreads < 1)
        st->nthreads = 1;
    st->thr = calloc((size_t)st->nthreads, sizeof(diff_thread));
    if (!st->thr) {
        ref_close((void **)&st);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "diff: out of memory");
    }
    diff_heat_table(st->heat);
    *priv = st;
    return FOVEA_OK;
}

/* Rows for width w on every thread (kept while the width fits). */
static int ensure_rows(diff_ref *st, fovea_context *ctx, int w)
{
    if (st->rows_mem && st->rows_width >= w)
        return FOVEA_OK;
    free(st->rows_mem);
    st->rows_mem = NULL;
    st->rows_width = 0;
    /* w <= FOVEA_MAX_DIM; color rows padded so the next int32 row stays aligned */
    const size_t rgb_bytes = ((size_t)w * 3 + 15) & ~(size_t)15;
    const size_t per_row = (size_t)w * 2 * sizeof(int32_t) + rgb_bytes;
    const size_t fast_row = ((size_t)w * sizeof(uint16_t) + 15) & ~(size_t)15;
    const size_t scratch = (diff_fast_scratch_bytes(w) + 15) & ~(size_t)15;
    const size_t per_thread = 2 * per_row + 4 * fast_row + scratch;
    size_t total;
    if (!fv_mul_size(per_thread, (size_t)st->nthreads, &total) || !(st->rows_mem = malloc(total)))
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "diff: cannot allocate rows of %d", w);
    uint8_t *m = st->rows_mem;
    for (int t = 0; t < st->nthreads; t++) {
        for (int r = 0; r < 2; r++) {
            st->thr[t].sum[r] = (int32_t *)(void *)m;
            m += (size_t)w * sizeof(int32_t);
            st->thr[t].mx[r] = (int32_t *)(void *)m;
            m += (size_t)w * sizeof(int32_t);
            st->thr[t].rgb[r] = m;
            m += rgb_bytes;
        }
        for (int r = 0; r < 2; r++) {
            st->thr[t].fsum[r] = (uint16_t *)(void *)m;
            m += fast_row;
            st->thr[t].fmx[r] = (uint16_t *)(void *)m;
            m += fast_row;
        }
        st->thr[t].scratch = m;
        m += scratch;
    }
    st->rows_width = w;
    return FOVEA_OK;
}

static inline int sample_at(const uint8_t *row, int i, int wide)
{
    return wide ? (int)row[2 * i] | (int)row[2 * i + 1] << 8 : (int)row[i];
}

/* The channel differences of every pixel of row y: their sum and their largest.
 * A chroma sample's difference counts for every pixel it covers. */
static void row_diffs(const diff_job *job, int y, int32_t *sum, int32_t *mx)
{
    const fovea_frame *a = job->prev, *b = job->cur;
    const fovea_pixfmt_desc *d = job->desc;
    const int w = a->width, wide = d->bytes_per_sample == 2;
    const uint8_t *a0 = a->data[0] + (ptrdiff_t)y * a->stride[0];
    const uint8_t *b0 = b->data[0] + (ptrdiff_t)y * b->stride[0];
    if (d->is_rgb) {
        const int comp = d->components;
        for (int x = 0; x < w; x++) {
            int s = 0, m = 0;
            for (int c = 0; c < 3; c++) { /* alpha is not compared */
                const int v = diff_absdiff(sample_at(a0, x * comp + c, wide),
                                           sample_at(b0, x * comp + c, wide));
                s += v;
                m = v > m ? v : m;
            }
            sum[x] = s;
            mx[x] = m;
        }
        return;
    }
    if (d->planes == 1) {
        for (int x = 0; x < w; x++)
            sum[x] = mx[x] = diff_absdiff(sample_at(a0, x, wide), sample_at(b0, x, wide));
        return;
    }
    const int cy = y >> d->log2_chroma_h, cw = d->log2_chroma_w;
    const uint8_t *a1 = a->data[1] + (ptrdiff_t)cy * a->stride[1];
    const uint8_t *b1 = b->data[1] + (ptrdiff_t)cy * b->stride[1];
    const uint8_t *a2 = d->planes == 3 ? a->data[2] + (ptrdiff_t)cy * a->stride[2] : NULL;
    const uint8_t *b2 = d->planes == 3 ? b->data[2] + (ptrdiff_t)cy * b->stride[2] : NULL;
    for (int x = 0; x < w; x++) {
        const int cx = x >> cw;
        const int dy = diff_absdiff(sample_at(a0, x, wide), sample_at(b0, x, wide));
        int du, dv;
        if (d->planes == 2) { /* NV12: U, V interleaved */
            du = diff_absdiff(sample_at(a1, 2 * cx, wide), sample_at(b1, 2 * cx, wide));
            dv = diff_absdiff(sample_at(a1, 2 * cx + 1, wide), sample_at(b1, 2 * cx + 1, wide));
        } else {
            du = diff_absdiff(sample_at(a1, cx, wide), sample_at(b1, cx, wide));
            dv = diff_absdiff(sample_at(a2, cx, wide), sample_at(b2, cx, wide));
        }
        sum[x] = dy + du + dv;
        int m = dy > du ? dy : du;
        mx[x] = m > dv ? m : dv;
    }
}

/* Write up to two rows of colors (rgb[r], 3 bytes a pixel) at rows y0, y0 + 1
 * of an RGB24, RGBA or I420 frame; y0 is even. I420 chroma is the color of the
 * rounded mean RGB of the pixels a chroma sample covers. */
static void write_rgb_rows(fovea_frame *out, int y0, int rows, uint8_t *const rgb[2])
{
    const int w = out->width;
    for (int r = 0; r < rows; r++) {
        uint8_t *o = out->data[0] + (ptrdiff_t)(y0 + r) * out->stride[0];
        const uint8_t *c = rgb[r];
        if (out->fmt == FOVEA_PIX_RGB24) {
            memcpy(o, c, (size_t)w * 3);
        } else if (out->fmt == FOVEA_PIX_RGBA) {
            for (int x = 0; x < w; x++) {
                o[4 * x] = c[3 * x];
                o[4 * x + 1] = c[3 * x + 1];
                o[4 * x + 2] = c[3 * x + 2];
                o[4 * x + 3] = 255;
            }
        } else {
            uint8_t u, v;
            for (int x = 0; x < w; x++)
                diff_rgb_to_yuv(c[3 * x], c[3 * x + 1], c[3 * x + 2], &o[x], &u, &v);
        }
    }
    if (out->fmt != FOVEA_PIX_I420)
        return;
    uint8_t *ou = out->data[1] + (ptrdiff_t)(y0 / 2) * out->stride[1];
    uint8_t *ov = out->data[2] + (ptrdiff_t)(y0 / 2) * out->stride[2];
    for (int cx = 0; cx < (w + 1) / 2; cx++) {
        int s[3] = {0, 0, 0}, n = 0;
        for (int r = 0; r < rows; r++)
            for (int x = 2 * cx; x < 2 * cx + 2 && x < w; x++, n++)
                for (int c = 0; c < 3; c++)
                    s[c] += rgb[r][3 * x + c];
        uint8_t yy;
        diff_rgb_to_yuv((s[0] + n / 2) / n, (s[1] + n / 2) / n, (s[2] + n / 2) / n, &yy, &ou[cx],
                        &ov[cx]);
    }
}

typedef struct map_arg {
    diff_ref *st;
    const diff_job *job;
    int kind;                 /* 0 heat, 1 noise black, 2 noise overlay */
    const diff_fast_lut *lut; /* the fast path's colors (kinds 0, 1), or NULL: generic */
} map_arg;

/* map_rows of an 8-bit RGB24, RGBA or I420 pair (diff_fast.c). */
static void fast_map_rows(const map_arg *ma, int begin, int end, diff_thread *th)
{
    const diff_job *job = ma->job;
    const int h = job->cur->height;
    const int heat_sum = ma->kind == 0 && ma->st->set.measure == FOVEA_DIFF_SUM;
    for (int j = begin; j < end; j++) {
        const int y0 = 2 * j, rows = h - y0 < 2 ? 1 : 2;
        for (int r = 0; r < rows; r++)
            diff_fast_row(job->prev, job->cur, y0 + r, th->scratch, heat_sum ? th->fsum[r] : NULL,
                          heat_sum ? NULL : th->fmx[r]);
        const uint16_t *const v[2] = {heat_sum ? th->fsum[0] : th->fmx[0],
                                      heat_sum ? th->fsum[1] : th->fmx[1]};
        if (ma->kind == 2)
            diff_fast_overlay_rows(job->out, y0, rows, v, job->threshold);
        else
            diff_fast_color_rows(job->out, y0, rows, v, ma->lut);
    }
}

static void map_rows(void *arg, int begin, int end, int thread)
{
    const map_arg *ma = arg;
    diff_ref *st = ma->st;
    const diff_job *job = ma->job;
    diff_thread *th = &st->thr[thread];
    if (ma->lut || (ma->kind == 2 && !st->generic && diff_fast_format(job->cur->fmt))) {
        fast_map_rows(ma, begin, end, th);
        return;
    }
    const int w = job->cur->width, h = job->cur->height;
    const int thr = job->threshold;
    const int64_t top = job->top;
    for (int j = begin; j < end; j++) {
        const int y0 = 2 * j, rows = h - y0 < 2 ? 1 : 2;
        for (int r = 0; r < rows; r++) {
            row_diffs(job, y0 + r, th->sum[r], th->mx[r]);
            const int32_t *v = st->set.measure == FOVEA_DIFF_SUM ? th->sum[r] : th->mx[r];
            uint8_t *c = th->rgb[r];
            for (int x = 0; x < w; x++) {
                if (ma->kind == 0) {
                    memcpy(&c[3 * x], st->heat[diff_heat_index(v[x], top)], 3);
                } else {
                    c[3 * x] = diff_beyond(th->mx[r][x], thr) ? 255 : 0;
                    c[3 * x + 1] = c[3 * x + 2] = 0;
                }
            }
        }
        if (ma->kind != 2) {
            write_rgb_rows(job->out, y0, rows, th->rgb);
            continue;
        }
        /* overlay: only changed pixels (and chroma samples covering one) are written */
        fovea_frame *out = job->out;
        uint8_t ry, ru, rv;
        diff_rgb_to_yuv(255, 0, 0, &ry, &ru, &rv);
        for (int r = 0; r < rows; r++) {
            uint8_t *o = out->data[0] + (ptrdiff_t)(y0 + r) * out->stride[0];
            const int px = out->fmt == FOVEA_PIX_RGBA ? 4 : 3;
            for (int x = 0; x < w; x++) {
                if (!diff_beyond(th->mx[r][x], thr))
                    continue;
                if (out->fmt == FOVEA_PIX_I420) {
                    o[x] = ry;
                } else {
                    o[px * x] = 255;
                    o[px * x + 1] = 0;
                    o[px * x + 2] = 0;
                }
            }
        }
        if (out->fmt == FOVEA_PIX_I420) {
            uint8_t *ou = out->data[1] + (ptrdiff_t)j * out->stride[1];
            uint8_t *ov = out->data[2] + (ptrdiff_t)j * out->stride[2];
            for (int x = 0; x < w; x++) {
                int any =
                    diff_beyond(th->mx[0][x], thr) || (rows == 2 && diff_beyond(th->mx[1][x], thr));
                if (any) {
                    ou[x / 2] = ru;
                    ov[x / 2] = rv;
                }
            }
        }
    }
}

static int run_map(void *priv, fovea_context *ctx, const diff_job *job, int kind)
{
    diff_ref *st = priv;
    FOVEA_TRY(ensure_rows(st, ctx, job->cur->width));
    map_arg ma = {st, job, kind, NULL};
    if (!st->generic && diff_fast_format(job->cur->fmt) && kind == 0) {
        if (st->heat_lut_top != job->top) {
            diff_fast_heat_lut(st->heat, job->top, &st->heat_lut);
            st->heat_lut_top = job->top;
        }
        ma.lut = &st->heat_lut;
    } else if (!st->generic && diff_fast_format(job->cur->fmt) && kind == 1) {
        if (st->noise_lut_thr != job->threshold) {
            diff_fast_noise_lut(job->threshold, &st->noise_lut);
            st->noise_lut_thr = job->threshold;
        }
        ma.lut = &st->noise_lut;
    }
    fv_parallel_for(ctx, (job->cur->height + 1) / 2, 2, map_rows, &ma);
    return FOVEA_OK;
}

typedef struct mask_arg {
    diff_ref *st;
    const diff_job *job;
    int tiles_x;
} mask_arg;

/* Tile rows [begin, end): flags, and per tile row the changed pixels, the sum
 * and the largest of the SUM measure. */
static void mask_rows(void *arg, int begin, int end, int thread)
{
    const mask_arg *ma = arg;
    diff_ref *st = ma->st;
    const diff_job *job = ma->job;
    diff_thread *th = &st->thr[thread];
    const int w = job->cur->width, h = job->cur->height, t = st->set.tile;
    const int fast = !st->generic && diff_fast_format(job->cur->fmt);
    for (int ty = begin; ty < end; ty++) {
        uint8_t *flags = st->changed + (size_t)ty * (size_t)ma->tiles_x;
        memset(flags, 0, (size_t)ma->tiles_x);
        int64_t pixels = 0, sum = 0;
        int mx = 0;
        for (int y = ty * t; y < h && y < (ty + 1) * t && fast; y++) {
            diff_fast_row(job->prev, job->cur, y, th->scratch, th->fsum[0], th->fmx[0]);
            diff_fast_mask_row(th->fsum[0], th->fmx[0], w, t, job->threshold, flags, &pixels, &sum,
                               &mx);
        }
        for (int y = ty * t; y < h && y < (ty + 1) * t && !fast; y++) {
            row_diffs(job, y, th->sum[0], th->mx[0]);
            for (int x = 0; x < w; x++) {
                sum += th->sum[0][x];
                mx = th->sum[0][x] > mx ? th->sum[0][x] : mx;
                if (diff_beyond(th->mx[0][x], job->threshold)) {
                    pixels++;
                    flags[x / t] = 1;
                }
            }
        }
        st->row_pixels[ty] = pixels;
        st->row_sum[ty] = sum;
        st->row_max[ty] = mx;
    }
}

static int ref_mask(void *priv, fovea_context *ctx, const diff_job *job,
                    fovea_diff_mask_result *out)
{
    diff_ref *st = priv;
    const int t = st->set.tile, w = job->cur->width, h = job->cur->height;
    const int tx = (w + t - 1) / t, ty = (h + t - 1) / t;
    const int tiles = tx * ty; /* <= (16384 / 8)^2 */
    FOVEA_TRY(ensure_rows(st, ctx, w));
    if (tiles > st->tiles_cap) {
        free(st->changed);
        free(st->list);
        st->changed = malloc((size_t)tiles);
        st->list = malloc((size_t)tiles * sizeof(int32_t));
        st->tiles_cap = st->changed && st->list ? tiles : 0;
        if (!st->tiles_cap)
            return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "diff: cannot allocate %d tiles", tiles);
    }
    if (ty > st->tile_rows_cap) {
        free(st->row_pixels);
        free(st->row_sum);
        free(st->row_max);
        st->row_pixels = malloc((size_t)ty * sizeof(int64_t));
        st->row_sum = malloc((size_t)ty * sizeof(int64_t));
        st->row_max = malloc((size_t)ty * sizeof(int));
        st->tile_rows_cap = st->row_pixels && st->row_sum && st->row_max ? ty : 0;
        if (!st->tile_rows_cap)
            return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "diff: cannot allocate %d tile rows", ty);
    }
    mask_arg ma = {st, job, tx};
    fv_parallel_for(ctx, ty, 1, mask_rows, &ma);

    memset(out, 0, sizeof(*out));
    out->tile = t;
    out->tiles_x = tx;
    out->tiles_y = ty;
    out->threshold = job->threshold;
    out->changed = st->changed;
    out->list = st->list;
    for (int r = 0; r < ty; r++) {
        out->changed_pixels += st->row_pixels[r];
        out->diff_sum += st->row_sum[r];
        out->diff_max = st->row_max[r] > out->diff_max ? st->row_max[r] : out->diff_max;
    }
    for (int i = 0; i < tiles; i++)
        if (st->changed[i])
            st->list[out->changed_tiles++] = i;
    return FOVEA_OK;
}

typedef struct hist_arg {
    diff_ref *st;
    const diff_job *job;
} hist_arg;

static void hist_rows(void *arg, int begin, int end, int thread)
{
    const hist_arg *ha = arg;
    const diff_job *job = ha->job;
    uint32_t *h = ha->st->hist + (size_t)thread * ha->st->hist_len;
    const int comp = job->desc->components, wide = job->desc->bytes_per_sample == 2;
    for (int y = begin; y < end; y++) {
        const uint8_t *a = job->prev->data[0] + (ptrdiff_t)y * job->prev->stride[0];
        const uint8_t *b = job->cur->data[0] + (ptrdiff_t)y * job->cur->stride[0];
        for (int x = 0; x < job->cur->width; x++)
            h[sample_at(b, x * comp, wide) - sample_at(a, x * comp, wide) + job->maxval]++;
    }
}

static int ref_diff_hist(diff_ref *st, fovea_context *ctx, const diff_job *job, int64_t *hist)
{
    const size_t len = 2 * (size_t)job->maxval + 1;
    if (st->hist_len != len) {
        free(st->hist);
        st->hist_len = 0;
        /* <= 131071 entries a thread; a count fits 32 bits (16384^2 pixels) */
        st->hist = malloc(len * (size_t)st->nthreads * sizeof(uint32_t));
        if (!st->hist)
            return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "diff: cannot allocate histograms");
        st->hist_len = len;
    }
    memset(st->hist, 0, len * (size_t)st->nthreads * sizeof(uint32_t));
    hist_arg ha = {st, job};
    fv_parallel_for(ctx, job->cur->height, 16, hist_rows, &ha);
    for (size_t i = 0; i < len; i++) {
        hist[i] = 0;
        for (int t = 0; t < st->nthreads; t++)
            hist[i] += st->hist[(size_t)t * len + i];
    }
    return FOVEA_OK;
}

static int same_shape(const fovea_frame *a, const fovea_frame *b)
{
    return a->data[0] && a->width == b->width && a->height == b->height && a->fmt == b->fmt;
}

/* Host scratch frame s shaped like f (kept while size and format stay). */
static int ensure_frame(fovea_context *ctx, fovea_frame *s, const fovea_frame *f)
{
    if (same_shape(s, f))
        return FOVEA_OK;
    fovea_frame_free(ctx, s);
    return fovea_frame_alloc(ctx, s, f->width, f->height, f->fmt, FOVEA_MEM_HOST);
}

/* One temporal step with x: the state after it is tstate[tcur] (the one
 * before, tstate[tcur ^ 1]); restart starts the state from first. */
static int temporal_step(diff_ref *st, fovea_context *ctx, const fovea_frame *x,
                         const fovea_frame *first, int restart, int strength)
{
    if (restart || !same_shape(&st->tstate[0], x)) {
        for (int i = 0; i < 2; i++)
            FOVEA_TRY(ensure_frame(ctx, &st->tstate[i], x));
        FOVEA_TRY(fovea_frame_copy(ctx, &st->tstate[0], first));
        st->tcur = 0;
    }
    FOVEA_TRY(diff_ref_filter(ctx, FOVEA_DIFF_DENOISE_TEMPORAL, x, &st->tstate[st->tcur], strength,
                              &st->tstate[st->tcur ^ 1]));
    st->tcur ^= 1;
    return FOVEA_OK;
}

static void fill_job(const diff_ref *st, const diff_call *c, diff_job *job)
{
    memset(job, 0, sizeof(*job));
    job->prev = st->cmp_prev;
    job->cur = st->cmp_cur;
    job->desc = c->desc;
    job->channels = c->channels;
    job->maxval = c->maxval;
    job->top = c->top;
    job->threshold = c->threshold;
}

static int ref_begin(void *priv, fovea_context *ctx, const diff_call *c, int64_t *hist)
{
    diff_ref *st = priv;
    st->cmp_prev = c->prev;
    st->cmp_cur = c->cur;
    if (c->denoise == FOVEA_DIFF_DENOISE_TEMPORAL) {
        FOVEA_TRY(temporal_step(st, ctx, c->cur, c->prev, c->restart, c->strength));
        st->cmp_prev = &st->tstate[st->tcur ^ 1];
        st->cmp_cur = &st->tstate[st->tcur];
    } else if (c->denoise != FOVEA_DIFF_DENOISE_NONE) {
        for (int i = 0; i < 2; i++) {
            const fovea_frame *in = i == 0 ? c->prev : c->cur;
            FOVEA_TRY(ensure_frame(ctx, &st->filt[i], in));
            FOVEA_TRY(diff_ref_filter(ctx, c->denoise, in, NULL, 0, &st->filt[i]));
        }
        st->cmp_prev = &st->filt[0];
        st->cmp_cur = &st->filt[1];
    }
    if (!c->want_hist)
        return FOVEA_OK;
    diff_job job;
    fill_job(st, c, &job);
    return ref_diff_hist(st, ctx, &job, hist);
}

static int ref_maps(void *priv, fovea_context *ctx, const diff_call *c)
{
    diff_ref *st = priv;
    diff_job job;
    fill_job(st, c, &job);
    if (c->heat) {
        job.out = c->heat;
        FOVEA_TRY(run_map(st, ctx, &job, 0));
    }
    if (c->mask) {
        job.out = NULL;
        FOVEA_TRY(ref_mask(st, ctx, &job, c->mask));
    }
    if (c->noise) {
        /* last: an overlay written into cur itself changes what the others read */
        const int overlay = st->set.noise_mode == FOVEA_DIFF_NOISE_OVERLAY;
        if (overlay && c->noise->data[0] != c->cur->data[0])
            FOVEA_TRY(fovea_frame_copy(ctx, c->noise, c->cur));
        job.out = c->noise;
        FOVEA_TRY(run_map(st, ctx, &job, overlay ? 2 : 1));
    }
    return FOVEA_OK;
}

static int ref_denoise(void *priv, fovea_context *ctx, const diff_filter_job *job)
{
    diff_ref *st = priv;
    if (job->mode != FOVEA_DIFF_DENOISE_TEMPORAL)
        return diff_ref_filter(ctx, job->mode, job->in, NULL, 0, job->out);
    FOVEA_TRY(temporal_step(st, ctx, job->in, job->in, job->restart, job->strength));
    return fovea_frame_copy(ctx, job->out, &st->tstate[st->tcur]);
}

/* The mask of an async call was made by ref_maps. */
static int ref_collect(void *priv, fovea_context *ctx)
{
    return FOVEA_OK;
}

const diff_backend diff_backend_ref = {
    {"cpu", FOVEA_BACKEND_CPU, 0, ref_init, ref_close},
    ref_begin,
    ref_maps,
    ref_denoise,
    ref_collect,
};
