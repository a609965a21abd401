/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The per-pixel arithmetic of libvmaf's CIEDE2000 (feature_ciede.c), shared
 * by the C extractor and the host side of the CUDA extractor
 * (feature_ciede_cuda.c patches the pixels the device could not certify
 * with these very functions), and libvmaf's chroma read position, shared
 * with the kernel (ciede.cu). The libm arithmetic is host only: the device
 * certifies its results by intervals (ciede_interval.h). */
#ifndef FOVEA_QUALITY_CIEDE_PIXEL_H
#define FOVEA_QUALITY_CIEDE_PIXEL_H

#include <math.h>

#ifdef __CUDACC__
#define CIEDE_HD static inline __host__ __device__
#else
#define CIEDE_HD static inline
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Where libvmaf's upsampled chroma sample (row r, column c of its padded
 * plane k: 0 U, 1 V) lies in fovea's planes: *q the plane, *rr, *cc its row
 * and column; 0 when libvmaf reads a zero there (its row padding, or past
 * its allocation). cw x ch are the chroma planes, cstride libvmaf's padded
 * row ((cw + 31) & ~31). */
CIEDE_HD int ciede_chroma_pos(int cw, int ch, int cstride, int k, int r, int c, int *q, int *rr,
                              int *cc)
{
    const long plane = (long)ch * cstride;
    long pos = (long)k * plane + (long)r * cstride + c;
    if (plane == 0 || pos >= 2 * plane)
        return 0;
    *q = (int)(pos / plane);
    pos -= *q * plane;
    *rr = (int)(pos / cstride);
    *cc = (int)(pos % cstride);
    return *cc < cw;
}

#ifndef __CUDA_ARCH__

typedef struct ciede_lab {
    float l, a, b;
} ciede_lab;

static inline double ciede_to_linear(double c)
{
    if (c > 10. / 255.)
        return pow((c + 0.055) * (1.0 / 1.055), 2.4);
    return c * (1.0 / 12.92);
}

static inline float ciede_lab_f(double c)
{
    const double kappa = 24389.0 / 27.0;
    const double epsilon = 216.0 / 24389.0;
    if (c > epsilon)
        return (float)pow(c, 1.0 / 3.0);
    return (float)((kappa * c + 16.0) * (1.0 / 116.0));
}

static inline ciede_lab ciede_lab_of(double y, double u, double v, int bpc)
{
    const double scale = (double)(1 << (bpc - 8));
    y = (y - 16. * scale) * (1. / (219. * scale));
    u = (u - 128. * scale) * (1. / (224. * scale));
    v = (v - 128. * scale) * (1. / (224. * scale));
    const double r = ciede_to_linear(y + 1.28033 * v);
    const double g = ciede_to_linear(y - 0.21482 * u - 0.38059 * v);
    const double b = ciede_to_linear(y + 2.12798 * u);
    double x = r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894;
    double yy = r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958;
    double z = r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677;
    x = ciede_lab_f(x * (1.0 / 0.95047));
    yy = ciede_lab_f(yy);
    z = ciede_lab_f(z * (1.0 / 1.08883));
    ciede_lab c = {(float)((116.0 * yy) - 16.0), (float)(500.0 * (x - yy)),
                   (float)(200.0 * (yy - z))};
    return c;
}

static inline float ciede_hue_angle(float x, float y)
{
    if (x == 0.0f && y == 0.0f)
        return 0.0f;
    float h = (float)atan2(x, y);
    if (h < 0.0f)
        h = (float)(h + 2. * M_PI);
    return h;
}

static inline float ciede_hue_delta(float c1, float c2, float h1, float h2)
{
    if (c1 == 0.0f || c2 == 0.0f)
        return 0.0f;
    if (fabsf(h1 - h2) <= M_PI)
        return h2 - h1;
    if (h2 <= h1)
        return (float)(h2 - h1 + 2. * M_PI);
    return (float)(h2 - h1 - 2. * M_PI);
}

static inline float ciede_rotation(float c_bar_prime, float h_bar_prime)
{
    const float deg = (float)(((float)(h_bar_prime * (180.0 / M_PI)) - 275.0) * (1.0 / 25.0));
    const float c7 = powf(c_bar_prime, 7);
    const float rad = (float)((float)(60.0 * exp(-(powf(deg, 2)))) * (M_PI / 180.0));
    return (float)(-2.0 * sqrt(c7 / (c7 + powf(25.f, 7))) * sin(rad));
}

static inline float ciede_de2000(ciede_lab p, ciede_lab q)
{
    const double p25 = 6103515625.0; /* pow(25, 7), exact */
    const float dl = q.l - p.l;
    const float l_bar = (p.l + q.l) / 2;
    const float c1 = (float)sqrt((double)p.a * p.a + (double)p.b * p.b);
    const float c2 = (float)sqrt((double)q.a * q.a + (double)q.b * q.b);
    const float c_bar = (c1 + c2) / 2;
    const double cb7 = pow(c_bar, 7);
    const double g = 1 - sqrt(cb7 / (cb7 + p25));
    const float a1 = (float)(p.a + (p.a / 2) * g);
    const float a2 = (float)(q.a + (q.a / 2) * g);
    const float cp1 = (float)sqrt((double)a1 * a1 + (double)p.b * p.b);
    const float cp2 = (float)sqrt((double)a2 * a2 + (double)q.b * q.b);
    const float cbp = (cp1 + cp2) / 2;
    const float dc = cp2 - cp1;
    const float lm = l_bar - 50;
    const double lm2 = (double)lm * lm;
    const float sl = (float)(1. + ((0.015 * lm2) / sqrt(20 + lm2)));
    const float sc = (float)(1. + 0.045 * cbp);
    const float h1 = ciede_hue_angle(p.b, a1);
    const float h2 = ciede_hue_angle(q.b, a2);
    const float dh = ciede_hue_delta(c1, c2, h1, h2);
    const float dhh = (float)(2.0 * sqrt(cp1 * cp2) * sin(dh / 2.0));
    const float hbp =
        fabs(h1 - h2) > M_PI ? (float)((h1 + h2 + 2.0 * M_PI) / 2.0) : (float)((h1 + h2) / 2.0);
    const float t =
        (float)(1.0 - 0.17 * cos(hbp - M_PI / 6.0) + 0.24 * cos(2.0 * hbp) +
                0.32 * cos(3.0 * hbp + M_PI / 30.0) - 0.20 * cos(4.0 * hbp - 7.0 * M_PI / 20.0));
    const float sh = (float)(1.0 + 0.015 * cbp * t);
    const float rt = ciede_rotation(cbp, hbp);
    const float lt = dl / (0.65f * sl);
    const float ch = dc / (1.0f * sc);
    const float hu = dhh / (4.0f * sh);
    return (float)sqrt((double)lt * lt + (double)ch * ch + (double)hu * hu + rt * ch * hu);
}

/* The dE00 of one pixel from its reference and distorted samples. */
static inline float ciede_pixel(float ry, float ru, float rv, float dy, float du, float dv, int bpc)
{
    return ciede_de2000(ciede_lab_of(ry, ru, rv, bpc), ciede_lab_of(dy, du, dv, bpc));
}

#endif /* !__CUDA_ARCH__ */

#endif
