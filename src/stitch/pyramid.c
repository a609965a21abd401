/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Multi-band blending of 8-bit planes, the C reference: straightforward
 * separable loops over pyramid_math.h's integer arithmetic. Rows are split
 * across the context's threads; every value is a function of its inputs
 * alone, so the result does not depend on the thread count. */
#include <stdlib.h>
#include <string.h>

#include "stitch/pyramid.h"

void fv_pyr_geom_init(fv_pyr_geom *g, int w, int h, int levels)
{
    memset(g, 0, sizeof(*g));
    g->levels = levels;
    size_t off = 0;
    for (int k = 0; k <= levels; k++) {
        g->w[k] = k ? pyr_half(g->w[k - 1]) : w;
        g->h[k] = k ? pyr_half(g->h[k - 1]) : h;
        g->off[k] = off;
        off += (size_t)g->w[k] * (size_t)g->h[k];
    }
    g->total = off;
}

int fv_pyr_work_alloc(fv_pyr_work *wk, int w, int h, int levels)
{
    memset(wk, 0, sizeof(*wk));
    if (w < 1 || h < 1 || w > 16384 || h > 16384 || levels < 0 || levels > PYR_MAX_LEVELS)
        return FOVEA_ERR_INVALID_ARG;
    fv_pyr_geom_init(&wk->g, w, h, levels);
    const size_t t = wk->g.total, p = (size_t)w * (size_t)h;
    wk->gauss = malloc(t * sizeof(int16_t));
    wk->num = malloc(t * sizeof(int32_t));
    wk->den = malloc(t * sizeof(int32_t));
    wk->sum = malloc(t * sizeof(int32_t));
    wk->tmp = malloc(p * sizeof(int32_t));
    wk->expd = malloc(p * sizeof(int32_t));
    wk->lapf = malloc(t * sizeof(int16_t));
    if (!wk->gauss || !wk->num || !wk->den || !wk->sum || !wk->tmp || !wk->expd || !wk->lapf) {
        fv_pyr_work_free(wk);
        return FOVEA_ERR_NOMEM;
    }
    return FOVEA_OK;
}

void fv_pyr_work_free(fv_pyr_work *wk)
{
    free(wk->gauss);
    free(wk->num);
    free(wk->den);
    free(wk->sum);
    free(wk->tmp);
    free(wk->expd);
    free(wk->lapf);
    memset(wk, 0, sizeof(*wk));
}

/* One separable pass over rows y0 + [begin, end) and columns [x0, x1) of
 * the destination: src (sw x sh, int16 or int32) to dst (rows dw apart). */
typedef struct pass_job {
    const int16_t *s16;
    const int32_t *s32;
    int16_t *d16;
    int32_t *d32;
    int sw, sh, dw, dh;
    int x0, x1, y0;
} pass_job;

/* REDUCE, horizontal: tmp(y, x) = sum_t tap(t) src(y, 2x + t) */
static void reduce_h(void *arg, int begin, int end, int thread)
{
    const pass_job *j = arg;
    (void)thread;
    for (int y = j->y0 + begin; y < j->y0 + end; y++) {
        const int16_t *s = j->s16 + (size_t)y * (size_t)j->sw;
        int32_t *d = j->d32 + (size_t)y * (size_t)j->dw;
        for (int x = j->x0; x < j->x1; x++) {
            int32_t acc = 0;
            for (int t = -2; t <= 2; t++)
                acc += pyr_tap(t) * s[pyr_clamp(2 * x + t, j->sw)];
            d[x] = acc;
        }
    }
}

/* REDUCE, vertical: dst(y, x) = (sum_t tap(t) tmp(2y + t, x) + 128) >> 8 */
static void reduce_v(void *arg, int begin, int end, int thread)
{
    const pass_job *j = arg;
    (void)thread;
    for (int y = j->y0 + begin; y < j->y0 + end; y++) {
        const int32_t *r[5];
        for (int t = -2; t <= 2; t++)
            r[t + 2] = j->s32 + (size_t)pyr_clamp(2 * y + t, j->sh) * (size_t)j->dw;
        int16_t *d = j->d16 + (size_t)y * (size_t)j->dw;
        for (int x = j->x0; x < j->x1; x++) {
            int32_t acc = 0;
            for (int t = -2; t <= 2; t++)
                acc += pyr_tap(t) * r[t + 2][x];
            d[x] = (int16_t)((acc + 128) >> 8);
        }
    }
}

/* EXPAND, horizontal: tmp(y, x) = sum_k wt_k src(y, idx_k(x)) */
static void expand_h(void *arg, int begin, int end, int thread)
{
    const pass_job *j = arg;
    (void)thread;
    for (int y = j->y0 + begin; y < j->y0 + end; y++) {
        const int16_t *s = j->s16 + (size_t)y * (size_t)j->sw;
        int32_t *d = j->d32 + (size_t)y * (size_t)j->dw;
        for (int x = j->x0; x < j->x1; x++) {
            int idx[3], wt[3];
            pyr_expand_taps(x, j->sw, idx, wt);
            d[x] = wt[0] * s[idx[0]] + wt[1] * s[idx[1]] + wt[2] * s[idx[2]];
        }
    }
}

/* EXPAND, vertical: dst(y, x) = (sum_k wt_k tmp(idx_k(y), x) + 32) >> 6 */
static void expand_v(void *arg, int begin, int end, int thread)
{
    const pass_job *j = arg;
    (void)thread;
    for (int y = j->y0 + begin; y < j->y0 + end; y++) {
        int idx[3], wt[3];
        pyr_expand_taps(y, j->sh, idx, wt);
        const int32_t *r0 = j->s32 + (size_t)idx[0] * (size_t)j->dw;
        const int32_t *r1 = j->s32 + (size_t)idx[1] * (size_t)j->dw;
        const int32_t *r2 = j->s32 + (size_t)idx[2] * (size_t)j->dw;
        int32_t *d = j->d32 + (size_t)y * (size_t)j->dw;
        for (int x = j->x0; x < j->x1; x++)
            d[x] = (wt[0] * r0[x] + wt[1] * r1[x] + wt[2] * r2[x] + 32) >> 6;
    }
}

static int box_empty(const fv_pyr_box *b)
{
    return b->x0 >= b->x1 || b->y0 >= b->y1;
}

static fv_pyr_box whole_box(const fv_pyr_geom *g, int k)
{
    fv_pyr_box b = {0, g->w[k], 0, g->h[k]};
    return b;
}

/* Level k + 1 of pyr from level k, inside box b (level k + 1): the
 * horizontal pass on the level-k rows the vertical pass reads. */
static void reduce_level(fovea_context *ctx, fv_pyr_work *wk, int16_t *pyr, int k, fv_pyr_box b)
{
    const fv_pyr_geom *g = &wk->g;
    if (box_empty(&b))
        return;
    const int r0 = 2 * b.y0 - 2 < 0 ? 0 : 2 * b.y0 - 2;
    const int r1 = 2 * b.y1 + 1 > g->h[k] ? g->h[k] : 2 * b.y1 + 1;
    pass_job j = {pyr + g->off[k], NULL,    NULL, wk->tmp, g->w[k], g->h[k],
                  g->w[k + 1],     g->h[k], b.x0, b.x1,    r0};
    fv_parallel_for(ctx, r1 - r0, 16, reduce_h, &j);
    pass_job v = {NULL,    wk->tmp,     pyr + g->off[k + 1], NULL, g->w[k + 1],
                  g->h[k], g->w[k + 1], g->h[k + 1],         b.x0, b.x1,
                  b.y0};
    fv_parallel_for(ctx, b.y1 - b.y0, 16, reduce_v, &v);
}

/* wk->expd = EXPAND of level k + 1 of pyr to level k's size, inside box b
 * (level k): the horizontal pass on the level-(k + 1) rows it reads. */
static void expand_level(fovea_context *ctx, fv_pyr_work *wk, const int16_t *pyr, int k,
                         fv_pyr_box b)
{
    const fv_pyr_geom *g = &wk->g;
    const int r0 = (b.y0 >> 1) - 1 < 0 ? 0 : (b.y0 >> 1) - 1;
    const int r1 = ((b.y1 - 1) >> 1) + 2 > g->h[k + 1] ? g->h[k + 1] : ((b.y1 - 1) >> 1) + 2;
    pass_job j = {pyr + g->off[k + 1], NULL, NULL, wk->tmp, g->w[k + 1], g->h[k + 1], g->w[k],
                  g->h[k + 1],         b.x0, b.x1, r0};
    fv_parallel_for(ctx, r1 - r0, 16, expand_h, &j);
    pass_job v = {NULL,    wk->tmp, NULL, wk->expd, g->w[k], g->h[k + 1],
                  g->w[k], g->h[k], b.x0, b.x1,     b.y0};
    fv_parallel_for(ctx, b.y1 - b.y0, 16, expand_v, &v);
}

void fv_pyr_gauss(fovea_context *ctx, fv_pyr_work *wk, int16_t *pyr)
{
    for (int k = 0; k < wk->g.levels; k++)
        reduce_level(ctx, wk, pyr, k, whole_box(&wk->g, k + 1));
}

/* The per-sample steps of one level k inside a box (rows y0 + [begin, end),
 * columns [x0, x1)); lap is level k of gauss minus the expanded level k + 1
 * in expd (the top level is its Gaussian level). */
enum level_op {
    OP_FIRST,    /* num, den, sum = the first camera's terms */
    OP_ADD,      /* += another camera's terms */
    OP_F,        /* restricted: lapf = F's lap; num = den = 0; sum = n lapf */
    OP_PIECE,    /* restricted: += a camera's terms, sum += lap - lapf */
    OP_COLLAPSE, /* gauss = clamp(blended lap + expd) */
};

typedef struct level_job {
    fv_pyr_work *wk;
    const int16_t *mask;
    int k, n, op;
    int x0, x1, y0;
} level_job;

static void level_rows(void *arg, int begin, int end, int thread)
{
    const level_job *a = arg;
    fv_pyr_work *wk = a->wk;
    const fv_pyr_geom *g = &wk->g;
    const int top = a->k == g->levels;
    (void)thread;
    for (int y = a->y0 + begin; y < a->y0 + end; y++) {
        const size_t row = (size_t)y * (size_t)g->w[a->k];
        const size_t o = g->off[a->k] + row;
        for (int x = a->x0; x < a->x1; x++) {
            const int32_t e = top ? 0 : wk->expd[row + x];
            if (a->op == OP_COLLAPSE) {
                const int32_t den = wk->den[o + x];
                const int lap = den > 0 ? pyr_div_round(wk->num[o + x], den)
                                        : pyr_div_round(wk->sum[o + x], a->n);
                wk->gauss[o + x] = (int16_t)pyr_clamp_level(lap + e);
                continue;
            }
            const int32_t lap = wk->gauss[o + x] - e;
            if (a->op == OP_F) {
                wk->lapf[o + x] = (int16_t)lap;
                wk->num[o + x] = 0;
                wk->den[o + x] = 0;
                wk->sum[o + x] = a->n * lap;
                continue;
            }
            const int32_t m = a->mask[o + x];
            if (a->op == OP_FIRST) {
                wk->num[o + x] = m * lap;
                wk->den[o + x] = m;
                wk->sum[o + x] = lap;
            } else {
                wk->num[o + x] += m * lap;
                wk->den[o + x] += m;
                wk->sum[o + x] += a->op == OP_PIECE ? lap - wk->lapf[o + x] : lap;
            }
        }
    }
}

static void level_op(fovea_context *ctx, fv_pyr_work *wk, const int16_t *mask, int k, int n, int op,
                     fv_pyr_box b)
{
    level_job a = {wk, mask, k, n, op, b.x0, b.x1, b.y0};
    fv_parallel_for(ctx, b.y1 - b.y0, 16, level_rows, &a);
}

/* Level 0 of gauss from 8-bit samples, or covered samples of it to 8 bits,
 * inside box b. */
typedef struct io_job {
    fv_pyr_work *wk;
    const uint8_t *src;
    ptrdiff_t stride;
    int step;
    const uint8_t *covered;
    ptrdiff_t cov_stride;
    uint8_t *dst;
    fv_pyr_box b;
} io_job;

static void load_rows(void *arg, int begin, int end, int thread)
{
    const io_job *a = arg;
    const int w = a->wk->g.w[0];
    (void)thread;
    for (int y = a->b.y0 + begin; y < a->b.y0 + end; y++) {
        const uint8_t *s = a->src + (ptrdiff_t)y * a->stride;
        int16_t *d = a->wk->gauss + (size_t)y * (size_t)w;
        for (int x = a->b.x0; x < a->b.x1; x++)
            d[x] = (int16_t)(s[(ptrdiff_t)x * a->step] << PYR_FRAC);
    }
}

static void store_rows(void *arg, int begin, int end, int thread)
{
    const io_job *a = arg;
    const int w = a->wk->g.w[0];
    (void)thread;
    for (int y = a->b.y0 + begin; y < a->b.y0 + end; y++) {
        const int16_t *s = a->wk->gauss + (size_t)y * (size_t)w;
        const uint8_t *cov = a->covered + (ptrdiff_t)y * a->cov_stride;
        uint8_t *d = a->dst + (ptrdiff_t)y * a->stride;
        for (int x = a->b.x0; x < a->b.x1; x++)
            if (cov[x])
                d[(ptrdiff_t)x * a->step] = (uint8_t)pyr_to_u8(s[x]);
    }
}

static void load_box(fovea_context *ctx, fv_pyr_work *wk, const uint8_t *src, ptrdiff_t stride,
                     int step, fv_pyr_box b)
{
    io_job io = {wk, src, stride, step, NULL, 0, NULL, b};
    if (!box_empty(&b))
        fv_parallel_for(ctx, b.y1 - b.y0, 16, load_rows, &io);
}

static void collapse_store(fovea_context *ctx, fv_pyr_work *wk, int n, const fv_pyr_box *c,
                           const uint8_t *covered, ptrdiff_t cov_stride, uint8_t *dst,
                           ptrdiff_t dst_stride, int dst_step)
{
    const int K = wk->g.levels;
    for (int k = K; k >= 0; k--) {
        if (box_empty(&c[k]))
            continue;
        if (k < K)
            expand_level(ctx, wk, wk->gauss, k, c[k]);
        level_op(ctx, wk, NULL, k, n, OP_COLLAPSE, c[k]);
    }
    io_job out = {wk, NULL, dst_stride, dst_step, covered, cov_stride, dst, c[0]};
    if (!box_empty(&c[0]))
        fv_parallel_for(ctx, c[0].y1 - c[0].y0, 16, store_rows, &out);
}

void fv_pyr_blend_plane(fovea_context *ctx, fv_pyr_work *wk, int n, const uint8_t *const *src,
                        ptrdiff_t stride, int step, const int16_t *const *masks,
                        const uint8_t *covered, ptrdiff_t cov_stride, uint8_t *dst,
                        ptrdiff_t dst_stride, int dst_step)
{
    const fv_pyr_geom *g = &wk->g;
    const int K = g->levels;
    fv_pyr_box whole[PYR_MAX_LEVELS + 1];
    for (int k = 0; k <= K; k++)
        whole[k] = whole_box(g, k);
    for (int c = 0; c < n; c++) {
        load_box(ctx, wk, src[c], stride, step, whole[0]);
        fv_pyr_gauss(ctx, wk, wk->gauss);
        for (int k = 0; k <= K; k++) {
            if (k < K)
                expand_level(ctx, wk, wk->gauss, k, whole[k]);
            level_op(ctx, wk, masks[c], k, n, c == 0 ? OP_FIRST : OP_ADD, whole[k]);
        }
    }
    collapse_store(ctx, wk, n, whole, covered, cov_stride, dst, dst_stride, dst_step);
}

static fv_pyr_box box_and(fv_pyr_box a, fv_pyr_box b)
{
    fv_pyr_box r = {a.x0 > b.x0 ? a.x0 : b.x0, a.x1 < b.x1 ? a.x1 : b.x1, a.y0 > b.y0 ? a.y0 : b.y0,
                    a.y1 < b.y1 ? a.y1 : b.y1};
    return r;
}

void fv_pyr_blend_plane_plan(fovea_context *ctx, fv_pyr_work *wk, const fv_pyr_plan *plan, int n,
                             const uint8_t *const *src, ptrdiff_t stride, int step,
                             const int16_t *const *masks, const uint8_t *covered,
                             ptrdiff_t cov_stride, uint8_t *dst, ptrdiff_t dst_stride, int dst_step)
{
    const int K = wk->g.levels;
    /* F's Laplacian on the blend's boxes: every camera's terms start as F's */
    load_box(ctx, wk, dst, dst_stride, dst_step, plan->fq[0]);
    for (int k = 0; k < K; k++)
        reduce_level(ctx, wk, wk->gauss, k, plan->fq[k + 1]);
    for (int k = 0; k <= K; k++) {
        if (box_empty(&plan->c[k]))
            continue;
        if (k < K)
            expand_level(ctx, wk, wk->gauss, k, plan->c[k]);
        level_op(ctx, wk, NULL, k, n, OP_F, plan->c[k]);
    }
    /* each piece replaces F's terms by its camera's where they differ */
    for (int i = 0; i < plan->npieces; i++) {
        const int c = plan->cam[i];
        load_box(ctx, wk, src[c], stride, step, plan->q[i][0]);
        for (int k = 0; k < K; k++)
            reduce_level(ctx, wk, wk->gauss, k, plan->q[i][k + 1]);
        for (int k = 0; k <= K; k++) {
            const fv_pyr_box b = box_and(plan->r[i][k], plan->c[k]);
            if (box_empty(&b))
                continue;
            if (k < K)
                expand_level(ctx, wk, wk->gauss, k, b);
            level_op(ctx, wk, masks[c], k, n, OP_PIECE, b);
        }
    }
    collapse_store(ctx, wk, n, plan->c, covered, cov_stride, dst, dst_stride, dst_step);
}
