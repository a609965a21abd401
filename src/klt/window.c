/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Window sampling and the 2x2 Lucas-Kanade system shared by the translational
 * tracker and the affine consistency check. Every expression keeps KLT 1.3.4's
 * float operations and their order (bilinear weights left to right, sums in
 * row-major window order), which the bit-exact results depend on. */
#include <math.h>

#include "klt/klt_internal.h"

float klt_interpolate(float x, float y, const KLT_FloatImageRec *img)
{
    int xt = (int)x; /* top-left corner */
    int yt = (int)y;
    float ax = x - xt;
    float ay = y - yt;
    const float *p = img->data + (img->ncols * yt) + xt;
    return (1 - ax) * (1 - ay) * p[0] + ax * (1 - ay) * p[1] + (1 - ax) * ay * p[img->ncols] +
           ax * ay * p[img->ncols + 1];
}

int klt_window_oob(float x, int half, int n)
{
    const float one_plus_eps = 1.001f; /* KLT's margin against rounding */
    /* written as negations so that a NaN position counts as outside */
    return !(x - half >= 0.0f) || !(n - (x + half) >= one_plus_eps);
}

void klt_win_diff(const KLT_FloatImageRec *img1, const KLT_FloatImageRec *img2, float x1, float y1,
                  float x2, float y2, int width, int height, float *out)
{
    int hw = width / 2, hh = height / 2;
    for (int j = -hh; j <= hh; j++)
        for (int i = -hw; i <= hw; i++) {
            float g1 = klt_interpolate(x1 + i, y1 + j, img1);
            float g2 = klt_interpolate(x2 + i, y2 + j, img2);
            *out++ = g1 - g2;
        }
}

void klt_win_grad_sum(const KLT_FloatImageRec *gx1, const KLT_FloatImageRec *gy1,
                      const KLT_FloatImageRec *gx2, const KLT_FloatImageRec *gy2, float x1,
                      float y1, float x2, float y2, int width, int height, float *outx, float *outy)
{
    int hw = width / 2, hh = height / 2;
    for (int j = -hh; j <= hh; j++)
        for (int i = -hw; i <= hw; i++) {
            float g1 = klt_interpolate(x1 + i, y1 + j, gx1);
            float g2 = klt_interpolate(x2 + i, y2 + j, gx2);
            *outx++ = g1 + g2;
            g1 = klt_interpolate(x1 + i, y1 + j, gy1);
            g2 = klt_interpolate(x2 + i, y2 + j, gy2);
            *outy++ = g1 + g2;
        }
}

/* Difference normalized for gain and bias: I1 - (alpha * I2 + beta) with
 * alpha = sqrt(mean(I1^2) / mean(I2^2)), beta = mean(I1) - alpha * mean(I2). */
void klt_win_diff_li(const KLT_FloatImageRec *img1, const KLT_FloatImageRec *img2, float x1,
                     float y1, float x2, float y2, int width, int height, float *out)
{
    int hw = width / 2, hh = height / 2;
    float sum1 = 0, sum2 = 0, sq1 = 0, sq2 = 0;
    for (int j = -hh; j <= hh; j++)
        for (int i = -hw; i <= hw; i++) {
            float g1 = klt_interpolate(x1 + i, y1 + j, img1);
            float g2 = klt_interpolate(x2 + i, y2 + j, img2);
            sum1 += g1;
            sum2 += g2;
            sq1 += g1 * g1;
            sq2 += g2 * g2;
        }
    float mean1 = sq1 / (width * height);
    float mean2 = sq2 / (width * height);
    float alpha = (float)sqrt(mean1 / mean2);
    mean1 = sum1 / (width * height);
    mean2 = sum2 / (width * height);
    float beta = mean1 - alpha * mean2;
    for (int j = -hh; j <= hh; j++)
        for (int i = -hw; i <= hw; i++) {
            float g1 = klt_interpolate(x1 + i, y1 + j, img1);
            float g2 = klt_interpolate(x2 + i, y2 + j, img2);
            *out++ = g1 - g2 * alpha - beta;
        }
}

/* Gradient sum g1 + alpha * g2; KLT's alpha here is sqrt(mean(I1) / mean(I2))
 * (plain means, not the squares used for the difference): kept as is. */
void klt_win_grad_sum_li(const KLT_FloatImageRec *gx1, const KLT_FloatImageRec *gy1,
                         const KLT_FloatImageRec *gx2, const KLT_FloatImageRec *gy2,
                         const KLT_FloatImageRec *img1, const KLT_FloatImageRec *img2, float x1,
                         float y1, float x2, float y2, int width, int height, float *outx,
                         float *outy)
{
    int hw = width / 2, hh = height / 2;
    float sum1 = 0, sum2 = 0;
    for (int j = -hh; j <= hh; j++)
        for (int i = -hw; i <= hw; i++) {
            sum1 += klt_interpolate(x1 + i, y1 + j, img1);
            sum2 += klt_interpolate(x2 + i, y2 + j, img2);
        }
    float mean1 = sum1 / (width * height);
    float mean2 = sum2 / (width * height);
    float alpha = (float)sqrt(mean1 / mean2);
    for (int j = -hh; j <= hh; j++)
        for (int i = -hw; i <= hw; i++) {
            float g1 = klt_interpolate(x1 + i, y1 + j, gx1);
            float g2 = klt_interpolate(x2 + i, y2 + j, gx2);
            *outx++ = g1 + g2 * alpha;
            g1 = klt_interpolate(x1 + i, y1 + j, gy1);
            g2 = klt_interpolate(x2 + i, y2 + j, gy2);
            *outy++ = g1 + g2 * alpha;
        }
}

void klt_gradient_matrix(const float *gx, const float *gy, int n, float *gxx, float *gxy,
                         float *gyy)
{
    float sxx = 0.0f, sxy = 0.0f, syy = 0.0f;
    for (int i = 0; i < n; i++) {
        sxx += gx[i] * gx[i];
        sxy += gx[i] * gy[i];
        syy += gy[i] * gy[i];
    }
    *gxx = sxx;
    *gxy = sxy;
    *gyy = syy;
}

void klt_error_vector(const float *diff, const float *gx, const float *gy, int n, float step_factor,
                      float *ex, float *ey)
{
    float sx = 0.0f, sy = 0.0f;
    for (int i = 0; i < n; i++) {
        sx += diff[i] * gx[i];
        sy += diff[i] * gy[i];
    }
    *ex = sx * step_factor;
    *ey = sy * step_factor;
}

int klt_solve2(float gxx, float gxy, float gyy, float ex, float ey, float small, float *dx,
               float *dy)
{
    float det = gxx * gyy - gxy * gxy;
    if (det < small)
        return KLT_SMALL_DET;
    *dx = (gyy * ex - gxy * ey) / det;
    *dy = (gxx * ey - gxy * ex) / det;
    return KLT_TRACKED;
}

float klt_sum_abs(const float *w, int n)
{
    float sum = 0.0f;
    for (int i = 0; i < n; i++)
        sum += fabsf(w[i]);
    return sum;
}
