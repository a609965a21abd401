/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Feature selection (KLTSelectGoodFeatures / KLTReplaceLostFeatures), C
 * reference: minimum-eigenvalue map over the candidate grid, KLT's own
 * quicksort (its order of equal values is part of the results), then the
 * minimum-distance pass that fills the slots. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "klt/klt_internal.h"

typedef struct klt_point {
    int x, y, val;
} klt_point;

static void swap_points(klt_point *a, klt_point *b)
{
    klt_point t = *a;
    *a = *b;
    *b = t;
}

/* Descending sort with the algorithm of KLT's _quicksort (by M. Lourakis):
 * middle element as pivot moved to the front, Hoare-style partition. It is not
 * stable; its order of equal values is part of KLT's results.
 *
 * The two parts left by a partition are sorted independently of each other,
 * so the order in which they are processed does not change the result. The
 * minimum-distance pass only reads the list from the front until the slots
 * are full, so the sort is done lazily: a stack of unsorted ranges, leftmost
 * on top, and a range is partitioned only when an element in it is needed.
 * Same permutation as the full sort, far less work. */

typedef struct sort_range {
    unsigned lo, n;
} sort_range;

typedef struct lazy_sort {
    klt_point *p;
    sort_range *stack;
    size_t top; /* number of pending ranges */
} lazy_sort;

/* One partition step of p[0..n), n > 1; returns the pivot's final index. */
static unsigned partition_step(klt_point *p, unsigned n)
{
    swap_points(&p[0], &p[n / 2]);
    const int pivot = p[0].val;
    unsigned i = 0, j = n;
    for (;;) {
        do
            --j;
        while (p[j].val < pivot);
        do
            ++i;
        while (i < j && p[i].val > pivot);
        if (i >= j)
            break;
        swap_points(&p[i], &p[j]);
    }
    swap_points(&p[j], &p[0]);
    return j;
}

/* Make element idx final. */
static void lazy_sort_need(lazy_sort *ls, unsigned idx)
{
    while (ls->top > 0 && ls->stack[ls->top - 1].lo <= idx) {
        sort_range r = ls->stack[--ls->top];
        unsigned j = partition_step(ls->p + r.lo, r.n);
        unsigned rn = r.n - j - 1;
        if (rn > 1)
            ls->stack[ls->top++] = (sort_range){r.lo + j + 1, rn};
        if (j > 1)
            ls->stack[ls->top++] = (sort_range){r.lo, j};
    }
}

void klt_ref_quicksort(int *val, unsigned *id, size_t n)
{
    klt_point *p = malloc((n ? n : 1) * sizeof *p);
    sort_range *stack = malloc((n / 2 + 2) * sizeof *stack);
    if (!p || !stack) {
        free(p);
        free(stack);
        return;
    }
    for (size_t i = 0; i < n; i++)
        p[i] = (klt_point){(int)id[i], 0, val[i]};
    lazy_sort ls = {p, stack, 0};
    if (n > 1) {
        ls.stack[ls.top++] = (sort_range){0, (unsigned)n};
        lazy_sort_need(&ls, (unsigned)n - 1);
    }
    for (size_t i = 0; i < n; i++) {
        val[i] = p[i].val;
        id[i] = (unsigned)p[i].x;
    }
    free(p);
    free(stack);
}

/* Smaller eigenvalue of [gxx gxy; gxy gyy]: float terms, double sqrt and
 * what follows, as KLT computes it. */
static float min_eigenvalue(float gxx, float gxy, float gyy)
{
    return (float)((gxx + gyy - sqrt((gxx - gyy) * (gxx - gyy) + 4 * gxy * gxy)) / 2.0f);
}

typedef struct eig_job {
    const float *pxx, *pxy, *pyy; /* per-pixel products gx*gx, gx*gy, gy*gy */
    int ncols;
    int bx, by, step, hw, hh;
    int nx;     /* candidates per row */
    int span;   /* ncols - 2*bx */
    float *acc; /* per thread: 3 * span */
    klt_point *points;
} eig_job;

static void products_rows(void *arg, int begin, int end, int thread)
{
    void **a = arg;
    const klt_image *gx = a[0], *gy = a[1];
    float *pxx = a[2], *pxy = a[3], *pyy = a[4];
    size_t n0 = (size_t)begin * gx->ncols, n1 = (size_t)end * gx->ncols;
    for (size_t i = n0; i < n1; i++) {
        float x = gx->data[i], y = gy->data[i];
        pxx[i] = x * x;
        pxy[i] = x * y;
        pyy[i] = y * y;
    }
}

/* acc[i] = window sum at column bx + i of one product image, in KLT's order:
 * rows top to bottom, each row left to right. */
static void window_sums(float *restrict acc, const float *restrict prod, int nc, int y, int bx,
                        int hw, int hh, int span)
{
    for (int i = 0; i < span; i++)
        acc[i] = 0.0f;
    for (int yy = y - hh; yy <= y + hh; yy++) {
        const float *row = prod + (size_t)yy * nc + bx;
        for (int dx = -hw; dx <= hw; dx++) {
            const float *restrict s = row + dx;
            for (int i = 0; i < span; i++)
                acc[i] += s[i];
        }
    }
}

static void eig_rows(void *arg, int begin, int end, int thread)
{
    const eig_job *jb = arg;
    const int span = jb->span, nc = jb->ncols;
    float *sxx = jb->acc + (size_t)thread * 3 * span;
    float *sxy = sxx + span, *syy = sxy + span;
    for (int row = begin; row < end; row++) {
        int y = jb->by + row * jb->step;
        window_sums(sxx, jb->pxx, nc, y, jb->bx, jb->hw, jb->hh, span);
        window_sums(sxy, jb->pxy, nc, y, jb->bx, jb->hw, jb->hh, span);
        window_sums(syy, jb->pyy, nc, y, jb->bx, jb->hw, jb->hh, span);
        klt_point *out = jb->points + (size_t)row * jb->nx;
        for (int k = 0; k < jb->nx; k++) {
            int i = k * jb->step;
            float val = min_eigenvalue(sxx[i], sxy[i], syy[i]);
            out[k].x = jb->bx + i;
            out[k].y = y;
            /* KLT clamps values beyond an int with a warning (and its cast of
             * 2^31 wraps); fovea saturates to INT_MAX */
            out[k].val = val >= 2147483648.0f ? INT_MAX : (int)val;
        }
    }
}

static void fill_map(unsigned char *map, int x, int y, int d, int ncols, int nrows)
{
    int x0 = x - d < 0 ? 0 : x - d, x1 = x + d >= ncols ? ncols - 1 : x + d;
    int y0 = y - d < 0 ? 0 : y - d, y1 = y + d >= nrows ? nrows - 1 : y + d;
    if (x0 > x1)
        return;
    for (int iy = y0; iy <= y1; iy++)
        memset(map + (size_t)iy * ncols + x0, 1, (size_t)(x1 - x0 + 1));
}

/* Take candidates in sorted order when their pixel is free and val is large
 * enough; each taken one blocks the square of half size mindist-1 around it. */
static void enforce_min_distance(lazy_sort *ls, size_t npoints, KLT_FeatureList fl, int ncols,
                                 int nrows, int mindist, int min_eigenvalue, int overwrite_all,
                                 unsigned char *map)
{
    if (min_eigenvalue < 1)
        min_eigenvalue = 1;
    memset(map, 0, (size_t)ncols * nrows);
    mindist--;

    if (!overwrite_all)
        for (int k = 0; k < fl->nFeatures; k++)
            if (fl->feature[k]->val >= 0)
                fill_map(map, (int)fl->feature[k]->x, (int)fl->feature[k]->y, mindist, ncols,
                         nrows);

    size_t p = 0;
    int indx = 0;
    for (;;) {
        if (p < npoints) {
            lazy_sort_need(ls, (unsigned)p);
            /* sorted: once below the threshold, no later candidate is taken */
            if (ls->p[p].val < min_eigenvalue)
                p = npoints;
        }
        if (p >= npoints) {
            /* out of candidates: the remaining (lost) slots become NOT_FOUND */
            for (; indx < fl->nFeatures; indx++)
                if (overwrite_all || fl->feature[indx]->val < 0)
                    klt_feature_set(fl->feature[indx], -1.0f, -1.0f, KLT_NOT_FOUND);
            break;
        }
        const klt_point *c = &ls->p[p++];
        while (!overwrite_all && indx < fl->nFeatures && fl->feature[indx]->val >= 0)
            indx++;
        if (indx >= fl->nFeatures)
            break;
        if (!map[(size_t)c->y * ncols + c->x] && c->val >= min_eigenvalue) {
            klt_feature_set(fl->feature[indx], (KLT_locType)c->x, (KLT_locType)c->y, c->val);
            indx++;
            fill_map(map, c->x, c->y, mindist, ncols, nrows);
        }
    }
}

int klt_ref_select(KLT_TrackingContext tc, const KLT_PixelType *img, int ncols, int nrows,
                   KLT_FeatureList fl, int replace)
{
    klt_state *st = klt_priv(tc);
    const klt_image *gx, *gy;
    int rc;

    klt_fix_window(tc, replace ? "KLTReplaceLostFeatures" : "KLTSelectGoodFeatures");
    int hw = tc->window_width / 2, hh = tc->window_height / 2;

    if (replace && tc->sequentialMode && st->have_last) {
        /* KLT quirk: the kept (always smoothed) level 0 of the last tracked
         * image is used, whatever smoothBeforeSelecting says */
        const klt_pyramid *p = &st->pyr[st->last];
        if (p->img[0].ncols != ncols || p->img[0].nrows != nrows)
            return klt_fail(tc, FOVEA_ERR_MISMATCH,
                            "(KLTReplaceLostFeatures) image is %dx%d, kept pyramid %dx%d", ncols,
                            nrows, p->img[0].ncols, p->img[0].nrows);
        gx = &p->gx[0];
        gy = &p->gy[0];
    } else if (tc->smoothBeforeSelecting &&
               klt_level0_matches(tc, &st->pyr[st->last], img, ncols, nrows)) {
        /* the image was just tracked into: its pyramid level 0 is what the
         * smoothing and gradients below would compute, kernels included */
        const klt_pyramid *p = &st->pyr[st->last];
        gx = &p->gx[0];
        gy = &p->gy[0];
    } else {
        if ((rc = klt_image_alloc(&st->sel_img, ncols, nrows)) < 0 ||
            (rc = klt_image_alloc(&st->sel_gx, ncols, nrows)) < 0 ||
            (rc = klt_image_alloc(&st->sel_gy, ncols, nrows)) < 0 ||
            (rc = klt_image_alloc(&st->tmp, ncols, nrows)) < 0 ||
            (rc = klt_image_alloc(&st->tmp2, ncols, nrows)) < 0)
            return klt_fail(tc, rc, "out of memory for selection");
        if (tc->smoothBeforeSelecting) {
            klt_to_float(img, ncols, nrows, &st->tmp2);
            klt_smooth(tc->ctx, &st->kernels, &st->tmp2, _KLTComputeSmoothSigma(tc), &st->tmp,
                       &st->sel_img);
        } else {
            klt_to_float(img, ncols, nrows, &st->sel_img);
        }
        klt_gradients(tc->ctx, &st->kernels, &st->sel_img, tc->grad_sigma, &st->tmp, &st->sel_gx,
                      &st->sel_gy);
        gx = &st->sel_gx;
        gy = &st->sel_gy;
    }

    /* candidate grid */
    int bx = tc->borderx < hw ? hw : tc->borderx;
    int by = tc->bordery < hh ? hh : tc->bordery;
    if (tc->nSkippedPixels < 0)
        return klt_fail(tc, FOVEA_ERR_INVALID_ARG, "nSkippedPixels must be >= 0");
    /* borders beyond the image and steps beyond FOVEA_MAX_DIM give the same
     * grid as these bounds (no column, or one); they keep 2 * bx and
     * span + step in range */
    bx = bx > ncols ? ncols : bx;
    by = by > nrows ? nrows : by;
    int step = tc->nSkippedPixels >= FOVEA_MAX_DIM ? FOVEA_MAX_DIM : tc->nSkippedPixels + 1;
    int span = ncols - 2 * bx > 0 ? ncols - 2 * bx : 0;
    int rspan = nrows - 2 * by > 0 ? nrows - 2 * by : 0;
    int nx = (span + step - 1) / step, ny = (rspan + step - 1) / step;
    size_t npoints = (size_t)nx * (size_t)ny;

    int threads = tc->ctx ? fovea_context_threads(tc->ctx) : 1;
    size_t npix = (size_t)ncols * nrows, pts_bytes, acc_floats;
    if (!fv_mul_size(npoints, sizeof(klt_point), &pts_bytes) ||
        !fv_mul_size((size_t)threads * 3, (size_t)(span ? span : 1), &acc_floats))
        return klt_fail(tc, FOVEA_ERR_NOMEM, "selection: size overflow");
    size_t win_bytes = (acc_floats + 3 * npix) * sizeof(float);
    if ((rc = klt_ensure(&st->points, &st->points_cap, pts_bytes)) < 0 ||
        (rc = klt_ensure((void **)&st->win, &st->win_cap, win_bytes)) < 0 ||
        (rc = klt_ensure((void **)&st->featuremap, &st->featuremap_cap, npix)) < 0 ||
        (rc = klt_ensure(&st->sort_stack, &st->sort_stack_cap,
                         (npoints / 2 + 2) * sizeof(sort_range))) < 0)
        return klt_fail(tc, rc, "out of memory for selection");

    float *pxx = st->win, *pxy = pxx + npix, *pyy = pxy + npix;
    if (npoints > 0) {
        void *pa[5] = {(void *)gx, (void *)gy, pxx, pxy, pyy};
        fv_parallel_for(tc->ctx, nrows, 16384 / ncols + 1, products_rows, pa);
        eig_job jb = {pxx, pxy, pyy, ncols, bx, by, step, hw, hh, nx, span, pyy + npix, st->points};
        fv_parallel_for(tc->ctx, ny, 1, eig_rows, &jb);
    }
    lazy_sort ls = {st->points, st->sort_stack, 0};
    if (npoints > 1)
        ls.stack[ls.top++] = (sort_range){0, (unsigned)npoints};

    if (tc->mindist < 0) {
        klt_log(tc, FOVEA_LOG_WARNING, "mindist is negative (%d); setting to zero", tc->mindist);
        tc->mindist = 0;
    }
    enforce_min_distance(&ls, npoints, fl, ncols, nrows, tc->mindist, tc->min_eigenvalue, !replace,
                         st->featuremap);
    return FOVEA_OK;
}
