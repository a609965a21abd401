/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Affine consistency check of KLT 1.3.4 (the part contributed by T.
 * Thormaehlen): each feature keeps a patch of the image where it was first
 * tracked, and every later frame the patch is tracked into the current image
 * with a translation (mode 0), similarity (1) or affine (2) model. Reproduced
 * with its arithmetic and its quirks (see docs/klt.md). */
#include <math.h>
#include <string.h>

#include "core/core.h"
#include "klt/klt_internal.h"

int klt_affine_store_patch(KLT_TrackingContext tc, KLT_Feature f, float x, float y,
                           const KLT_FloatImageRec *img, const KLT_FloatImageRec *gx,
                           const KLT_FloatImageRec *gy)
{
    const int border = 2; /* room for interpolation */
    int w = tc->affine_window_width + border, h = tc->affine_window_height + border;
    const KLT_FloatImageRec *src[3] = {img, gx, gy};
    KLT_FloatImage dst[3];

    for (int k = 0; k < 3; k++) {
        dst[k] = klt_create_float_image(w, h);
        if (!dst[k]) {
            for (int m = 0; m < k; m++)
                klt_free_float_image(dst[m]);
            return FOVEA_ERR_NOMEM;
        }
    }
    int x0 = (int)x, y0 = (int)y, hw = w / 2, hh = h / 2;
    for (int k = 0; k < 3; k++) {
        float *out = dst[k]->data;
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) {
                int xx = x0 - hw + i, yy = y0 - hh + j;
                /* KLT reads outside the image here (never with its border
                 * rule); fovea uses 0 */
                int inside = xx >= 0 && yy >= 0 && xx < src[k]->ncols && yy < src[k]->nrows;
                *out++ = inside ? src[k]->data[(size_t)yy * src[k]->ncols + xx] : 0.0f;
            }
    }
    klt_feature_clear_affine(f);
    f->aff_img = dst[0];
    f->aff_img_gradx = dst[1];
    f->aff_img_grady = dst[2];
    f->aff_x = x - (int)x + (tc->affine_window_width + border) / 2;
    f->aff_y = y - (int)y + (tc->affine_window_height + border) / 2;
    return FOVEA_OK;
}

/* Gauss-Jordan elimination with full pivoting (Numerical Recipes) on the n x n
 * system a x = b, in place; b receives the solution. On a singular matrix it
 * stops where KLT stops, leaving b partly reduced (KLT still applies it). */
static int gauss_jordan(float a[6][6], int n, float b[6])
{
    int ipiv[6] = {0};
    int row = 0, col = 0;
    for (int i = 0; i < n; i++) {
        float big = 0.0f;
        for (int j = 0; j < n; j++)
            if (ipiv[j] != 1)
                for (int k = 0; k < n; k++) {
                    if (ipiv[k] == 0) {
                        if (fabsf(a[j][k]) >= big) {
                            big = fabsf(a[j][k]);
                            row = j;
                            col = k;
                        }
                    } else if (ipiv[k] > 1) {
                        return KLT_SMALL_DET;
                    }
                }
        ++ipiv[col];
        if (row != col) {
            for (int l = 0; l < n; l++) {
                float t = a[row][l];
                a[row][l] = a[col][l];
                a[col][l] = t;
            }
            float t = b[row];
            b[row] = b[col];
            b[col] = t;
        }
        if (a[col][col] == 0.0f)
            return KLT_SMALL_DET;
        float pivinv = 1.0f / a[col][col];
        a[col][col] = 1.0f;
        for (int l = 0; l < n; l++)
            a[col][l] *= pivinv;
        b[col] *= pivinv;
        for (int ll = 0; ll < n; ll++)
            if (ll != col) {
                float dum = a[ll][col];
                a[ll][col] = 0.0f;
                for (int l = 0; l < n; l++)
                    a[ll][l] -= a[col][l] * dum;
                b[ll] -= b[col] * dum;
            }
    }
    /* the column unscrambling of the inverse is not needed for the solution */
    return KLT_TRACKED;
}

/* Window of img2 sampled through the affine map around (x2, y2), minus the
 * straight window of img1 around (x1, y1). */
static void diff_affine(const KLT_FloatImageRec *img1, const KLT_FloatImageRec *img2, float x1,
                        float y1, float x2, float y2, float Axx, float Ayx, float Axy, float Ayy,
                        int width, int height, float *out)
{
    int hw = width / 2, hh = height / 2;
    for (int j = -hh; j <= hh; j++)
        for (int i = -hw; i <= hw; i++) {
            float g1 = klt_interpolate(x1 + i, y1 + j, img1);
            float mi = Axx * i + Axy * j;
            float mj = Ayx * i + Ayy * j;
            float g2 = klt_interpolate(x2 + mi, y2 + mj, img2);
            *out++ = g1 - g2;
        }
}

static void grad_affine(const KLT_FloatImageRec *gx, const KLT_FloatImageRec *gy, float x, float y,
                        float Axx, float Ayx, float Axy, float Ayy, int width, int height,
                        float *outx, float *outy)
{
    int hw = width / 2, hh = height / 2;
    for (int j = -hh; j <= hh; j++)
        for (int i = -hw; i <= hw; i++) {
            float mi = Axx * i + Axy * j;
            float mj = Ayx * i + Ayy * j;
            *outx++ = klt_interpolate(x + mi, y + mj, gx);
            *outy++ = klt_interpolate(x + mi, y + mj, gy);
        }
}

static void matrix6(const float *gxw, const float *gyw, int width, int height, float T[6][6])
{
    int hw = width / 2, hh = height / 2;
    for (int j = 0; j < 6; j++)
        for (int i = j; i < 6; i++)
            T[j][i] = 0.0f;
    for (int j = -hh; j <= hh; j++)
        for (int i = -hw; i <= hw; i++) {
            float gx = *gxw++, gy = *gyw++;
            float gxx = gx * gx, gxy = gx * gy, gyy = gy * gy;
            float x = (float)i, y = (float)j;
            float xx = x * x, xy = x * y, yy = y * y;
            T[0][0] += xx * gxx;
            T[0][1] += xx * gxy;
            T[0][2] += xy * gxx;
            T[0][3] += xy * gxy;
            T[0][4] += x * gxx;
            T[0][5] += x * gxy;
            T[1][1] += xx * gyy;
            T[1][2] += xy * gxy;
            T[1][3] += xy * gyy;
            T[1][4] += x * gxy;
            T[1][5] += x * gyy;
            T[2][2] += yy * gxx;
            T[2][3] += yy * gxy;
            T[2][4] += y * gxx;
            T[2][5] += y * gxy;
            T[3][3] += yy * gyy;
            T[3][4] += y * gxy;
            T[3][5] += y * gyy;
            T[4][4] += gxx;
            T[4][5] += gxy;
            T[5][5] += gyy;
        }
    for (int j = 0; j < 5; j++)
        for (int i = j + 1; i < 6; i++)
            T[i][j] = T[j][i];
}

static void error6(const float *diff, const float *gxw, const float *gyw, int width, int height,
                   float e[6])
{
    int hw = width / 2, hh = height / 2;
    for (int i = 0; i < 6; i++)
        e[i] = 0.0f;
    for (int j = -hh; j <= hh; j++)
        for (int i = -hw; i <= hw; i++) {
            float d = *diff++;
            float dgx = d * *gxw++;
            float dgy = d * *gyw++;
            e[0] += dgx * i;
            e[1] += dgy * i;
            e[2] += dgx * j;
            e[3] += dgy * j;
            e[4] += dgx;
            e[5] += dgy;
        }
    for (int i = 0; i < 6; i++)
        e[i] *= 0.5f;
}

static void matrix4(const float *gxw, const float *gyw, int width, int height, float T[6][6])
{
    int hw = width / 2, hh = height / 2;
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++)
            T[j][i] = 0.0f;
    for (int j = -hh; j <= hh; j++)
        for (int i = -hw; i <= hw; i++) {
            float gx = *gxw++, gy = *gyw++;
            float x = (float)i, y = (float)j;
            T[0][0] += (x * gx + y * gy) * (x * gx + y * gy);
            T[0][1] += (x * gx + y * gy) * (x * gy - y * gx);
            T[0][2] += (x * gx + y * gy) * gx;
            T[0][3] += (x * gx + y * gy) * gy;
            T[1][1] += (x * gy - y * gx) * (x * gy - y * gx);
            T[1][2] += (x * gy - y * gx) * gx;
            T[1][3] += (x * gy - y * gx) * gy;
            T[2][2] += gx * gx;
            T[2][3] += gx * gy;
            T[3][3] += gy * gy;
        }
    for (int j = 0; j < 3; j++)
        for (int i = j + 1; i < 4; i++)
            T[i][j] = T[j][i];
}

static void error4(const float *diff, const float *gxw, const float *gyw, int width, int height,
                   float e[6])
{
    int hw = width / 2, hh = height / 2;
    for (int i = 0; i < 4; i++)
        e[i] = 0.0f;
    for (int j = -hh; j <= hh; j++)
        for (int i = -hw; i <= hw; i++) {
            float d = *diff++;
            float dgx = d * *gxw++;
            float dgy = d * *gyw++;
            e[0] += dgx * i + dgy * j;
            e[1] += dgy * i - dgx * j;
            e[2] += dgx;
            e[3] += dgy;
        }
    for (int i = 0; i < 4; i++)
        e[i] *= 0.5f;
}

/* One iteration of modes 1 and 2 (similarity, affine): the reference window
 * and the corners of the warped one must lie inside the images; then a
 * Gauss-Jordan step on the 4 or 6 parameters (f's matrix, *x2, *y2).
 * Returns 0 when a window is outside (nothing changed), else 1 with *status
 * (the solve's; left as it was in another mode), *dx, *dy and *converged. */
static int affine_step(KLT_TrackingContext tc, KLT_Feature f, float *x2, float *y2,
                       const KLT_FloatImageRec *img2, const KLT_FloatImageRec *gx2,
                       const KLT_FloatImageRec *gy2, float *scratch, float *dx, float *dy,
                       int *status, int *converged)
{
    const int width = tc->affine_window_width, height = tc->affine_window_height;
    const int n = width * height, hw = width / 2, hh = height / 2;
    const int mode = tc->affineConsistencyCheck;
    const float th = tc->min_displacement, th_aff = tc->affine_min_displacement;
    const float x1 = f->aff_x, y1 = f->aff_y;
    const KLT_FloatImageRec *img1 = f->aff_img;
    const int nc1 = img1->ncols, nr1 = img1->nrows, nc2 = img2->ncols, nr2 = img2->nrows;
    float *diff = scratch, *gx = scratch + n, *gy = scratch + 2 * n;
    float *Axx = &f->aff_Axx, *Ayx = &f->aff_Ayx, *Axy = &f->aff_Axy, *Ayy = &f->aff_Ayy;
    float T[6][6], a[6];

    float ul_x = *Axx * (-hw) + *Axy * hh + *x2;
    float ul_y = *Ayx * (-hw) + *Ayy * hh + *y2;
    float ll_x = *Axx * (-hw) + *Axy * (-hh) + *x2;
    float ll_y = *Ayx * (-hw) + *Ayy * (-hh) + *y2;
    float ur_x = *Axx * hw + *Axy * hh + *x2;
    float ur_y = *Ayx * hw + *Ayy * hh + *y2;
    float lr_x = *Axx * hw + *Axy * (-hh) + *x2;
    float lr_y = *Ayx * hw + *Ayy * (-hh) + *y2;

    if (klt_window_oob(x1, hw, nc1) || klt_window_oob(y1, hh, nr1) ||
        klt_window_oob(ul_x, 0, nc2) || klt_window_oob(ll_x, 0, nc2) ||
        klt_window_oob(ur_x, 0, nc2) || klt_window_oob(lr_x, 0, nc2) ||
        klt_window_oob(ul_y, 0, nr2) || klt_window_oob(ll_y, 0, nr2) ||
        klt_window_oob(ur_y, 0, nr2) || klt_window_oob(lr_y, 0, nr2)) {
        return 0;
    }
    diff_affine(img1, img2, x1, y1, *x2, *y2, *Axx, *Ayx, *Axy, *Ayy, width, height, diff);
    grad_affine(gx2, gy2, *x2, *y2, *Axx, *Ayx, *Axy, *Ayy, width, height, gx, gy);
    if (mode == 1) {
        error4(diff, gx, gy, width, height, a);
        matrix4(gx, gy, width, height, T);
        *status = gauss_jordan(T, 4, a);
        *Axx += a[0];
        *Ayx += a[1];
        *Ayy = *Axx;
        *Axy = -(*Ayx);
        *dx = a[2];
        *dy = a[3];
    } else if (mode == 2) {
        error6(diff, gx, gy, width, height, a);
        matrix6(gx, gy, width, height, T);
        *status = gauss_jordan(T, 6, a);
        *Axx += a[0];
        *Ayx += a[1];
        *Axy += a[2];
        *Ayy += a[3];
        *dx = a[4];
        *dy = a[5];
    }
    *x2 += *dx;
    *y2 += *dy;
    /* movement of the window corners in this iteration */
    ul_x -= *Axx * (-hw) + *Axy * hh + *x2;
    ul_y -= *Ayx * (-hw) + *Ayy * hh + *y2;
    ll_x -= *Axx * (-hw) + *Axy * (-hh) + *x2;
    ll_y -= *Ayx * (-hw) + *Ayy * (-hh) + *y2;
    ur_x -= *Axx * hw + *Axy * hh + *x2;
    ur_y -= *Ayx * hw + *Ayy * hh + *y2;
    lr_x -= *Axx * hw + *Axy * (-hh) + *x2;
    lr_y -= *Ayx * hw + *Ayy * (-hh) + *y2;
    *converged = fabsf(*dx) < th && fabsf(*dy) < th && fabsf(ul_x) < th_aff &&
                 fabsf(ul_y) < th_aff && fabsf(ll_x) < th_aff && fabsf(ll_y) < th_aff &&
                 fabsf(ur_x) < th_aff && fabsf(ur_y) < th_aff && fabsf(lr_x) < th_aff &&
                 fabsf(lr_y) < th_aff;
    return 1;
}

int klt_track_affine(KLT_TrackingContext tc, KLT_Feature f, float *x2, float *y2,
                     const KLT_FloatImageRec *img2, const KLT_FloatImageRec *gx2,
                     const KLT_FloatImageRec *gy2, float *scratch)
{
    const int width = tc->affine_window_width, height = tc->affine_window_height;
    const int n = width * height, hw = width / 2, hh = height / 2;
    const int mode = tc->affineConsistencyCheck;
    const float th = tc->min_displacement;
    const float x1 = f->aff_x, y1 = f->aff_y;
    const KLT_FloatImageRec *img1 = f->aff_img, *gx1 = f->aff_img_gradx, *gy1 = f->aff_img_grady;
    const int nc1 = img1->ncols, nr1 = img1->nrows, nc2 = img2->ncols, nr2 = img2->nrows;
    float *diff = scratch, *gx = scratch + n, *gy = scratch + 2 * n;
    float *Axx = &f->aff_Axx, *Ayx = &f->aff_Ayx, *Axy = &f->aff_Axy, *Ayy = &f->aff_Ayy;
    const float old_x2 = *x2, old_y2 = *y2;
    float dx = 0.0f, dy = 0.0f;
    int iteration = 0, status = KLT_TRACKED, convergence = 0;

    do {
        if (!mode) {
            /* translation only, against the stored patch */
            if (klt_window_oob(x1, hw, nc1) || klt_window_oob(*x2, hw, nc2) ||
                klt_window_oob(y1, hh, nr1) || klt_window_oob(*y2, hh, nr2)) {
                status = KLT_OOB;
                break;
            }
            if (tc->lighting_insensitive) {
                klt_win_diff_li(img1, img2, x1, y1, *x2, *y2, width, height, diff);
                klt_win_grad_sum_li(gx1, gy1, gx2, gy2, img1, img2, x1, y1, *x2, *y2, width, height,
                                    gx, gy);
            } else {
                klt_win_diff(img1, img2, x1, y1, *x2, *y2, width, height, diff);
                klt_win_grad_sum(gx1, gy1, gx2, gy2, x1, y1, *x2, *y2, width, height, gx, gy);
            }
            float gxx, gxy, gyy, ex, ey;
            klt_gradient_matrix(gx, gy, n, &gxx, &gxy, &gyy);
            klt_error_vector(diff, gx, gy, n, tc->step_factor, &ex, &ey);
            status = klt_solve2(gxx, gxy, gyy, ex, ey, tc->min_determinant, &dx, &dy);
            convergence = fabsf(dx) < th && fabsf(dy) < th;
            /* KLT applies the step even when the system was singular (the
             * previous step then): kept */
            *x2 += dx;
            *y2 += dy;
        } else if (!affine_step(tc, f, x2, y2, img2, gx2, gy2, scratch, &dx, &dy, &status,
                                &convergence)) {
            status = KLT_OOB;
            break;
        }
        if (status == KLT_SMALL_DET)
            break;
        iteration++;
    } while (!convergence && iteration < tc->affine_max_iterations);

    if (klt_window_oob(*x2, hw, nc2) || klt_window_oob(*y2, hh, nr2))
        status = KLT_OOB;
    /* KLT's displacement check is one-sided (no absolute value): kept */
    if ((*x2 - old_x2) > tc->affine_max_displacement_differ ||
        (*y2 - old_y2) > tc->affine_max_displacement_differ)
        status = KLT_OOB;

    if (status == KLT_TRACKED) {
        if (!mode)
            klt_win_diff(img1, img2, x1, y1, *x2, *y2, width, height, diff);
        else
            diff_affine(img1, img2, x1, y1, *x2, *y2, *Axx, *Ayx, *Axy, *Ayy, width, height, diff);
        if (klt_sum_abs(diff, n) / (width * height) > tc->affine_max_residue)
            status = KLT_LARGE_RESIDUE;
    }
    return status;
}
