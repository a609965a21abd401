/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Where each camera matters in a multi-band blend: the boxes of
 * fv_pyr_plan, from the footprints of REDUCE (level k + 1 at X reads level k
 * at 2X - 2 .. 2X + 2) and EXPAND (level k at x reads level k + 1 at X with
 * 2X - 2 <= x <= 2X + 2), clamped indices staying inside those ranges. */
#include <stdlib.h>
#include <string.h>

#include "stitch/pyramid.h"

/* A half-open interval [lo, hi), empty when lo >= hi. */
typedef struct span {
    int lo, hi;
} span;

static span span_clip(int lo, int hi, int n)
{
    span s = {lo < 0 ? 0 : lo, hi > n ? n : hi};
    return s;
}

static int span_empty(span s)
{
    return s.lo >= s.hi;
}

static span span_hull(span a, span b)
{
    if (span_empty(a))
        return b;
    if (span_empty(b))
        return a;
    span s = {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
    return s;
}

/* Level k + 1 positions whose REDUCE reads a level-k position of s. */
static span up_reduce(span s, int n1)
{
    if (span_empty(s))
        return s;
    return span_clip(((s.lo + 1) >> 1) - 1, ((s.hi + 1) >> 1) + 1, n1);
}

/* Level k positions whose EXPAND reads a level-(k + 1) position of s. */
static span down_expand(span s, int n0)
{
    if (span_empty(s))
        return s;
    return span_clip(2 * s.lo - 2, 2 * s.hi + 1, n0);
}

/* Level k + 1 positions the EXPAND of level-k positions s reads. */
static span up_expand(span s, int n1)
{
    if (span_empty(s))
        return s;
    return span_clip((s.lo >> 1) - 1, ((s.hi - 1) >> 1) + 2, n1);
}

/* Level k positions the REDUCE of level-(k + 1) positions s reads. */
static span down_reduce(span s, int n0)
{
    if (span_empty(s))
        return s;
    return span_clip(2 * s.lo - 2, 2 * s.hi + 1, n0);
}

/* One axis of a piece: a (where its image may differ from F, or its mask
 * be nonzero) from its level-0 span; r (where its Laplacian may differ) and
 * q (its Gaussian levels: r's, what r's EXPAND reads, and what REDUCE needs
 * for the level above), q from the top down. */
static void axis_boxes(span s0, const int *n, int K, span *r, span *q)
{
    span a[PYR_MAX_LEVELS + 1];
    a[0] = s0;
    for (int k = 0; k < K; k++)
        a[k + 1] = up_reduce(a[k], n[k + 1]);
    for (int k = 0; k <= K; k++)
        r[k] = k < K ? span_hull(a[k], down_expand(a[k + 1], n[k])) : a[k];
    for (int k = K; k >= 0; k--) {
        q[k] = r[k];
        if (k > 0)
            q[k] = span_hull(q[k], up_expand(r[k - 1], n[k]));
        if (k < K)
            q[k] = span_hull(q[k], down_reduce(q[k + 1], n[k]));
    }
}

/* The q and r boxes of a piece whose level-0 region lies in sx x sy. */
static void piece_boxes(const fv_pyr_geom *g, span sx, span sy, fv_pyr_box *q, fv_pyr_box *r)
{
    span rx[PYR_MAX_LEVELS + 1], qx[PYR_MAX_LEVELS + 1], ry[PYR_MAX_LEVELS + 1],
        qy[PYR_MAX_LEVELS + 1];
    axis_boxes(sx, g->w, g->levels, rx, qx);
    axis_boxes(sy, g->h, g->levels, ry, qy);
    for (int k = 0; k <= g->levels; k++) {
        fv_pyr_box bq = {qx[k].lo, qx[k].hi, qy[k].lo, qy[k].hi};
        fv_pyr_box br = {rx[k].lo, rx[k].hi, ry[k].lo, ry[k].hi};
        q[k] = bq;
        r[k] = br;
    }
}

static int boxes_meet(const fv_pyr_box *a, const fv_pyr_box *b, int levels)
{
    for (int k = 0; k <= levels; k++)
        if (a[k].x0 < b[k].x1 && b[k].x0 < a[k].x1 && a[k].y0 < b[k].y1 && b[k].y0 < a[k].y1)
            return 1;
    return 0;
}

/* Level-0 columns (of g) where own is set, with each column's row range. */
static void own_columns(const fv_pyr_geom *g, const uint8_t *own, ptrdiff_t stride, int lw, int lh,
                        int half, int *lo, int *hi)
{
    for (int x = 0; x < g->w[0]; x++) {
        lo[x] = g->h[0];
        hi[x] = 0;
    }
    for (int y = 0; y < lh; y++) {
        const uint8_t *row = own + (ptrdiff_t)y * stride;
        const int gy = half ? y >> 1 : y;
        for (int x = 0; x < lw; x++) {
            if (!row[x])
                continue;
            const int gx = half ? x >> 1 : x;
            if (gy < lo[gx])
                lo[gx] = gy;
            if (gy + 1 > hi[gx])
                hi[gx] = gy + 1;
        }
    }
}

/* Rows of the columns [x0, x1) that own something. */
static span rows_of(const int *lo, const int *hi, int x0, int x1)
{
    span s = {0, 0};
    for (int x = x0; x < x1; x++)
        if (lo[x] < hi[x]) {
            span c = {lo[x], hi[x]};
            s = span_hull(s, c);
        }
    return s;
}

static void add_piece(fv_pyr_plan *p, const fv_pyr_geom *g, int cam, span sx, span sy)
{
    const int i = p->npieces++;
    p->cam[i] = cam;
    piece_boxes(g, sx, sy, p->q[i], p->r[i]);
}

void fv_pyr_plan_make(fv_pyr_plan *p, const fv_pyr_geom *g, int n, const uint8_t *const *own,
                      ptrdiff_t own_stride, int lw, int lh, int half, const uint8_t *covered,
                      ptrdiff_t cov_stride)
{
    const int W = g->w[0];
    int *lo = malloc((size_t)W * 2 * sizeof(int));
    memset(p, 0, sizeof(*p));
    for (int c = 0; c < n && lo; c++) {
        int *hi = lo + W;
        if (!own[c])
            continue;
        own_columns(g, own[c], own_stride, lw, lh, half, lo, hi);
        int first = -1, last = -1, gap0 = 0, gap1 = 0;
        for (int x = 0; x < W; x++) {
            if (lo[x] >= hi[x])
                continue;
            if (last >= 0 && x - last - 1 > gap1 - gap0) {
                gap0 = last + 1;
                gap1 = x;
            }
            if (first < 0)
                first = x;
            last = x;
        }
        if (first < 0)
            continue; /* sees nothing: its image is F's everywhere */
        const span whole = {first, last + 1};
        if (gap1 - gap0 > first + (W - 1 - last)) {
            /* the largest gap is inside: two pieces, unless their boxes meet */
            const span a = {first, gap0}, b = {gap1, last + 1};
            add_piece(p, g, c, a, rows_of(lo, hi, a.lo, a.hi));
            add_piece(p, g, c, b, rows_of(lo, hi, b.lo, b.hi));
            const int i = p->npieces - 2;
            if (!boxes_meet(p->q[i], p->q[i + 1], g->levels))
                continue;
            p->npieces -= 2;
        }
        add_piece(p, g, c, whole, rows_of(lo, hi, whole.lo, whole.hi));
    }
    /* the blend and the collapse: the covered box and the coarser positions
     * its EXPANDs read; F's Gaussian levels as a piece's for those */
    span cx = {0, 0}, cy = {0, 0};
    if (lo) {
        int *hi = lo + W;
        own_columns(g, covered, cov_stride, W, g->h[0], 0, lo, hi);
        for (int x = 0; x < W; x++)
            if (lo[x] < hi[x]) {
                span s = {x, x + 1};
                cx = span_hull(cx, s);
            }
        cy = rows_of(lo, hi, 0, W);
    } else {
        /* no memory for the columns: one piece per camera over everything */
        span ax = {0, W}, ay = {0, g->h[0]};
        cx = ax;
        cy = ay;
        for (int c = 0; c < n; c++)
            add_piece(p, g, c, ax, ay);
    }
    free(lo);
    span x[PYR_MAX_LEVELS + 1], y[PYR_MAX_LEVELS + 1], fx[PYR_MAX_LEVELS + 1],
        fy[PYR_MAX_LEVELS + 1];
    x[0] = cx;
    y[0] = cy;
    for (int k = 0; k < g->levels; k++) {
        x[k + 1] = up_expand(x[k], g->w[k + 1]);
        y[k + 1] = up_expand(y[k], g->h[k + 1]);
    }
    for (int k = g->levels; k >= 0; k--) {
        fx[k] = x[k];
        fy[k] = y[k];
        if (k < g->levels) {
            fx[k] = span_hull(fx[k], down_reduce(fx[k + 1], g->w[k]));
            fy[k] = span_hull(fy[k], down_reduce(fy[k + 1], g->h[k]));
        }
    }
    for (int k = 0; k <= g->levels; k++) {
        fv_pyr_box c = {x[k].lo, x[k].hi, y[k].lo, y[k].hi};
        fv_pyr_box f = {fx[k].lo, fx[k].hi, fy[k].lo, fy[k].hi};
        p->c[k] = c;
        p->fq[k] = f;
    }
}
