/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Feature tracking (KLTTrackFeatures), C reference: pyramids of both images
 * (or the kept one in sequential mode), then per feature the coarse-to-fine
 * iterative Lucas-Kanade of KLT 1.3.4, features in parallel. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/core.h"
#include "klt/klt_internal.h"

typedef struct level_params {
    int width, height;
    float step_factor;
    int max_iterations;
    float small; /* min determinant */
    float th;    /* min displacement */
    float max_residue;
    int lighting_insensitive;
} level_params;

/* One pyramid level: KLT's _trackFeature. */
static int track_level(float x1, float y1, float *x2, float *y2, const KLT_FloatImageRec *img1,
                       const KLT_FloatImageRec *gx1, const KLT_FloatImageRec *gy1,
                       const KLT_FloatImageRec *img2, const KLT_FloatImageRec *gx2,
                       const KLT_FloatImageRec *gy2, const level_params *lp, float *win)
{
    const int w = lp->width, h = lp->height, n = w * h;
    const int hw = w / 2, hh = h / 2;
    const int nc = img1->ncols, nr = img1->nrows;
    float *diff = win, *gx = win + n, *gy = win + 2 * n;
    float gxx, gxy, gyy, ex, ey, dx = 0.0f, dy = 0.0f;
    int iteration = 0;
    int status = KLT_TRACKED;

    do {
        if (klt_window_oob(x1, hw, nc) || klt_window_oob(*x2, hw, nc) ||
            klt_window_oob(y1, hh, nr) || klt_window_oob(*y2, hh, nr)) {
            status = KLT_OOB;
            break;
        }
        if (lp->lighting_insensitive) {
            klt_win_diff_li(img1, img2, x1, y1, *x2, *y2, w, h, diff);
            klt_win_grad_sum_li(gx1, gy1, gx2, gy2, img1, img2, x1, y1, *x2, *y2, w, h, gx, gy);
        } else {
            klt_win_diff(img1, img2, x1, y1, *x2, *y2, w, h, diff);
            klt_win_grad_sum(gx1, gy1, gx2, gy2, x1, y1, *x2, *y2, w, h, gx, gy);
        }
        klt_gradient_matrix(gx, gy, n, &gxx, &gxy, &gyy);
        klt_error_vector(diff, gx, gy, n, lp->step_factor, &ex, &ey);
        status = klt_solve2(gxx, gxy, gyy, ex, ey, lp->small, &dx, &dy);
        if (status == KLT_SMALL_DET)
            break;
        *x2 += dx;
        *y2 += dy;
        iteration++;
    } while ((fabsf(dx) >= lp->th || fabsf(dy) >= lp->th) && iteration < lp->max_iterations);

    if (klt_window_oob(*x2, hw, nc) || klt_window_oob(*y2, hh, nr))
        status = KLT_OOB;

    if (status == KLT_TRACKED) {
        if (lp->lighting_insensitive)
            klt_win_diff_li(img1, img2, x1, y1, *x2, *y2, w, h, diff);
        else
            klt_win_diff(img1, img2, x1, y1, *x2, *y2, w, h, diff);
        if (klt_sum_abs(diff, n) / (w * h) > lp->max_residue)
            status = KLT_LARGE_RESIDUE;
    }

    if (status == KLT_SMALL_DET || status == KLT_OOB || status == KLT_LARGE_RESIDUE)
        return status;
    if (iteration >= lp->max_iterations)
        return KLT_MAX_ITERATIONS;
    return KLT_TRACKED;
}

static void lose_feature(KLT_Feature f, int code)
{
    f->x = -1.0f;
    f->y = -1.0f;
    f->val = code;
    klt_feature_clear_affine(f);
}

typedef struct track_job {
    KLT_TrackingContext tc;
    const klt_pyramid *p1, *p2;
    KLT_FeatureList fl;
    level_params lp;
    float *scratch;
    size_t per_thread;
    int ncols, nrows;
    atomic_int failed;
} track_job;

static void track_one(track_job *jb, KLT_Feature f, float *win)
{
    KLT_TrackingContext tc = jb->tc;
    const klt_pyramid *p1 = jb->p1, *p2 = jb->p2;
    const float ss = (float)tc->subsampling;
    const int nl = p1->nlevels;
    float xloc = f->x, yloc = f->y;
    int val = KLT_TRACKED;

    for (int r = nl - 1; r >= 0; r--) {
        xloc /= ss;
        yloc /= ss;
    }
    float xout = xloc, yout = yloc;

    for (int r = nl - 1; r >= 0; r--) {
        xloc *= ss;
        yloc *= ss;
        xout *= ss;
        yout *= ss;
        KLT_FloatImageRec i1 = klt_view(&p1->img[r]), gx1 = klt_view(&p1->gx[r]),
                          gy1 = klt_view(&p1->gy[r]);
        KLT_FloatImageRec i2 = klt_view(&p2->img[r]), gx2 = klt_view(&p2->gx[r]),
                          gy2 = klt_view(&p2->gy[r]);
        val = track_level(xloc, yloc, &xout, &yout, &i1, &gx1, &gy1, &i2, &gx2, &gy2, &jb->lp, win);
        /* only these stop the descent; max iterations / residue at a coarse
         * level continue from the current estimate */
        if (val == KLT_SMALL_DET || val == KLT_OOB)
            break;
    }

    /* success must also lie inside the selection border */
    /* in long long: a border the caller set near INT_MIN must not overflow */
    int outside = xout < tc->borderx || xout > (float)((long long)jb->ncols - 1 - tc->borderx) ||
                  yout < tc->bordery || yout > (float)((long long)jb->nrows - 1 - tc->bordery);
    if (val == KLT_OOB || outside) {
        lose_feature(f, KLT_OOB);
        return;
    }
    if (val != KLT_TRACKED) {
        lose_feature(f, val);
        return;
    }
    f->x = xout;
    f->y = yout;
    f->val = KLT_TRACKED;
    if (tc->affineConsistencyCheck < 0)
        return;

    KLT_FloatImageRec i1 = klt_view(&p1->img[0]), gx1 = klt_view(&p1->gx[0]),
                      gy1 = klt_view(&p1->gy[0]);
    if (!f->aff_img) {
        /* first success: keep the reference patch around the previous position */
        if (klt_affine_store_patch(tc, f, xloc, yloc, &i1, &gx1, &gy1) < 0)
            atomic_store(&jb->failed, 1);
        return;
    }
    KLT_FloatImageRec i2 = klt_view(&p2->img[0]), gx2 = klt_view(&p2->gx[0]),
                      gy2 = klt_view(&p2->gy[0]);
    val = klt_track_affine(tc, f, &xout, &yout, &i2, &gx2, &gy2, win);
    f->val = val;
    if (val != KLT_TRACKED) {
        /* KLT keeps the translational x, y on success and drops it on failure */
        f->x = -1.0f;
        f->y = -1.0f;
        f->aff_x = -1.0f;
        f->aff_y = -1.0f;
        klt_feature_clear_affine(f);
    }
}

static void track_range(void *arg, int begin, int end, int thread)
{
    track_job *jb = arg;
    float *win = jb->scratch + (size_t)thread * jb->per_thread;
    for (int k = begin; k < end; k++) {
        KLT_Feature f = jb->fl->feature[k];
        if (f->val >= 0)
            track_one(jb, f, win);
    }
}

int klt_ref_track(KLT_TrackingContext tc, const KLT_PixelType *img1, const KLT_PixelType *img2,
                  int ncols, int nrows, KLT_FeatureList fl)
{
    klt_state *st = klt_priv(tc);
    klt_pyramid *p1, *p2;
    int rc;

    klt_fix_window(tc, "KLTTrackFeatures");

    if (tc->sequentialMode && st->have_last) {
        p1 = &st->pyr[st->last];
        p2 = &st->pyr[1 - st->last];
        if ((rc = klt_sequential_check(tc, ncols, nrows, p1->img[0].ncols, p1->img[0].nrows,
                                       p1->nlevels, p1->subsampling)) < 0)
            return rc;
    } else {
        if (!img1)
            return klt_fail(tc, FOVEA_ERR_INVALID_ARG, "(KLTTrackFeatures) img1 is NULL");
        st->have_last = 0;
        if (klt_pyramid_matches(tc, &st->pyr[st->last], img1, ncols, nrows)) {
            /* img1 is the image tracked into last time: same pyramid */
            p1 = &st->pyr[st->last];
            p2 = &st->pyr[1 - st->last];
        } else {
            p1 = &st->pyr[0];
            p2 = &st->pyr[1];
            if ((rc = klt_pyramid_build(tc, p1, img1, ncols, nrows)) < 0)
                return rc;
        }
    }
    if ((rc = klt_pyramid_build(tc, p2, img2, ncols, nrows)) < 0) {
        st->have_last = 0;
        return rc;
    }
    st->last = (int)(p2 - st->pyr);

    int threads = tc->ctx ? fovea_context_threads(tc->ctx) : 1;
    size_t tw = (size_t)tc->window_width * tc->window_height;
    size_t aw = (size_t)tc->affine_window_width * tc->affine_window_height;
    size_t per = 3 * (tw > aw ? tw : aw);
    size_t bytes;
    if (!fv_mul_size(per * sizeof(float), (size_t)threads, &bytes) ||
        (rc = klt_ensure((void **)&st->win, &st->win_cap, bytes)) < 0)
        return klt_fail(tc, FOVEA_ERR_NOMEM, "out of memory for tracking windows");

    track_job jb;
    jb.tc = tc;
    jb.p1 = p1;
    jb.p2 = p2;
    jb.fl = fl;
    jb.lp.width = tc->window_width;
    jb.lp.height = tc->window_height;
    jb.lp.step_factor = tc->step_factor;
    jb.lp.max_iterations = tc->max_iterations;
    jb.lp.small = tc->min_determinant;
    jb.lp.th = tc->min_displacement;
    jb.lp.max_residue = tc->max_residue;
    jb.lp.lighting_insensitive = tc->lighting_insensitive;
    jb.scratch = st->win;
    jb.per_thread = per;
    jb.ncols = ncols;
    jb.nrows = nrows;
    atomic_init(&jb.failed, 0);
    fv_parallel_for(tc->ctx, fl->nFeatures, 8, track_range, &jb);

    if (tc->sequentialMode) {
        st->have_last = 1;
        tc->pyramid_last = &st->pyr[st->last].img[0];
        tc->pyramid_last_gradx = &st->pyr[st->last].gx[0];
        tc->pyramid_last_grady = &st->pyr[st->last].gy[0];
    } else {
        st->have_last = 0;
        tc->pyramid_last = tc->pyramid_last_gradx = tc->pyramid_last_grady = NULL;
    }
    if (atomic_load(&jb.failed))
        return klt_fail(tc, FOVEA_ERR_NOMEM, "out of memory for affine patches");
    return FOVEA_OK;
}
