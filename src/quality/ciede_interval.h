/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Certified CIEDE2000 (the kernel of ciede.cu; compiled for the host too,
 * for tests). Every double of ciede_pixel.h's arithmetic that comes after a
 * libm call is carried as an interval [lo, hi] that contains the value the
 * C code (glibc's libm) produces: basic operations on exact values are
 * computed as C computes them (IEEE, round to nearest), on intervals with
 * outward rounding (RN is monotone, so RN of every point of the exact range
 * lies inside); a libm result is widened by CIEDE_W_<fn> ulps of it (this
 * libm's documented error plus glibc's, with margin) and a monotone
 * function is evaluated at both ends. Each rounding to float (the Lab
 * values, a1, a2, h1, h2, dhh, t, 60 exp(.), rt) is certain when both ends
 * round to the same float bits; otherwise, and when a branch is not decided
 * by an interval, the pixel is AMBIGUOUS: ciede_cert_pixel returns 0 and the
 * caller takes C's value for it. powf(x, 2) is computed correctly rounded
 * (test_quality_ciede_powf verifies glibc's equals it on ciede's whole
 * range); powf(x, 7) too, and where x^7 lies within CIEDE_POWF7_T ulp of a
 * float midpoint (where glibc's may differ from it: statement V, verified by
 * the same program) the rotation term and dE are computed for the floats on
 * both sides: certain only when every candidate gives the same dE. */
#ifndef FOVEA_QUALITY_CIEDE_INTERVAL_H
#define FOVEA_QUALITY_CIEDE_INTERVAL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "quality/ciede_pixel.h"

/* Widening of each libm result, in ulps of the result: CUDA's maximum error
 * (Programming Guide, double functions: pow 2, atan2 2, sin 2, cos 2, exp 1)
 * plus glibc's (manual "Known Maximum Errors", x86_64: 1 each), doubled: both
 * tables come from extensive, not exhaustive, tests. */
#define CIEDE_W_POW 6.0
#define CIEDE_W_ATAN2 6.0
#define CIEDE_W_SIN 6.0
#define CIEDE_W_COS 6.0
#define CIEDE_W_EXP 4.0

/* The libm of the interval code (tests substitute perturbed ones). */
#ifndef CIEDE_POW
#define CIEDE_POW pow
#define CIEDE_ATAN2 atan2
#define CIEDE_SIN sin
#define CIEDE_COS cos
#define CIEDE_EXP exp
#endif

#ifdef __CUDA_ARCH__
#define CI_ADD_RD(a, b) __dadd_rd(a, b)
#define CI_ADD_RU(a, b) __dadd_ru(a, b)
#define CI_MUL_RD(a, b) __dmul_rd(a, b)
#define CI_MUL_RU(a, b) __dmul_ru(a, b)
#define CI_DIV_RD(a, b) __ddiv_rd(a, b)
#define CI_DIV_RU(a, b) __ddiv_ru(a, b)
#define CI_SQRT_RD(a) __dsqrt_rd(a)
#define CI_SQRT_RU(a) __dsqrt_ru(a)
#define CI_CLZ64(a) __clzll((long long)(a))
#else
/* host: round to nearest, then one step outward (a valid enclosure) */
#define CI_ADD_RD(a, b) nextafter((a) + (b), -INFINITY)
#define CI_ADD_RU(a, b) nextafter((a) + (b), INFINITY)
#define CI_MUL_RD(a, b) nextafter((a) * (b), -INFINITY)
#define CI_MUL_RU(a, b) nextafter((a) * (b), INFINITY)
#define CI_DIV_RD(a, b) nextafter((a) / (b), -INFINITY)
#define CI_DIV_RU(a, b) nextafter((a) / (b), INFINITY)
#define CI_SQRT_RD(a) nextafter(sqrt(a), -INFINITY)
#define CI_SQRT_RU(a) nextafter(sqrt(a), INFINITY)
#define CI_CLZ64(a) __builtin_clzll(a)
#endif

typedef struct civ {
    double lo, hi;
} civ;

CIEDE_HD civ civ_pt(double x)
{
    civ r = {x, x};
    return r;
}

CIEDE_HD civ civ_of(double lo, double hi)
{
    civ r = {lo, hi};
    return r;
}

CIEDE_HD int civ_exact(civ a)
{
    return a.lo == a.hi;
}

CIEDE_HD civ civ_add(civ a, civ b)
{
    if (civ_exact(a) && civ_exact(b))
        return civ_pt(a.lo + b.lo);
    return civ_of(CI_ADD_RD(a.lo, b.lo), CI_ADD_RU(a.hi, b.hi));
}

CIEDE_HD civ civ_sub(civ a, civ b)
{
    if (civ_exact(a) && civ_exact(b))
        return civ_pt(a.lo - b.lo);
    return civ_of(CI_ADD_RD(a.lo, -b.hi), CI_ADD_RU(a.hi, -b.lo));
}

CIEDE_HD civ civ_mul(civ a, civ b)
{
    if (civ_exact(a) && civ_exact(b))
        return civ_pt(a.lo * b.lo);
    const double l0 = CI_MUL_RD(a.lo, b.lo), l1 = CI_MUL_RD(a.lo, b.hi);
    const double l2 = CI_MUL_RD(a.hi, b.lo), l3 = CI_MUL_RD(a.hi, b.hi);
    const double h0 = CI_MUL_RU(a.lo, b.lo), h1 = CI_MUL_RU(a.lo, b.hi);
    const double h2 = CI_MUL_RU(a.hi, b.lo), h3 = CI_MUL_RU(a.hi, b.hi);
    return civ_of(fmin(fmin(l0, l1), fmin(l2, l3)), fmax(fmax(h0, h1), fmax(h2, h3)));
}

/* a / b for b of one sign (else the unbounded interval: undecided) */
CIEDE_HD civ civ_div(civ a, civ b)
{
    if (!(b.lo > 0.0 || b.hi < 0.0))
        return civ_of(-INFINITY, INFINITY);
    if (civ_exact(a) && civ_exact(b))
        return civ_pt(a.lo / b.lo);
    const double l0 = CI_DIV_RD(a.lo, b.lo), l1 = CI_DIV_RD(a.lo, b.hi);
    const double l2 = CI_DIV_RD(a.hi, b.lo), l3 = CI_DIV_RD(a.hi, b.hi);
    const double h0 = CI_DIV_RU(a.lo, b.lo), h1 = CI_DIV_RU(a.lo, b.hi);
    const double h2 = CI_DIV_RU(a.hi, b.lo), h3 = CI_DIV_RU(a.hi, b.hi);
    return civ_of(fmin(fmin(l0, l1), fmin(l2, l3)), fmax(fmax(h0, h1), fmax(h2, h3)));
}

CIEDE_HD civ civ_sqrt(civ a)
{
    if (!(a.lo >= 0.0))
        return civ_of(-INFINITY, INFINITY);
    if (civ_exact(a))
        return civ_pt(sqrt(a.lo));
    return civ_of(CI_SQRT_RD(a.lo), CI_SQRT_RU(a.hi));
}

/* the values within w ulps (of the value) of a libm result r: glibc's result
 * and this libm's are both within their bounds of the exact value */
CIEDE_HD civ civ_libm(double r, double w)
{
    const double d = CI_ADD_RU(CI_MUL_RU(fabs(r), w * 0x1p-52), 0x1p-1020);
    return civ_of(CI_ADD_RD(r, -d), CI_ADD_RU(r, d));
}

CIEDE_HD uint32_t civ_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* The float C's (float) gives every point of a, in *f: 1 when certain. */
CIEDE_HD int civ_float(civ a, float *f)
{
    if (!(a.lo <= a.hi) || !isfinite(a.lo) || !isfinite(a.hi))
        return 0;
    const float lo = (float)a.lo, hi = (float)a.hi;
    uint32_t bl, bh;
    memcpy(&bl, &lo, 4);
    memcpy(&bh, &hi, 4);
    *f = lo;
    return bl == bh;
}

/* ---------------------------------------------------------------- powf */

/* x^7 rounded to the nearest float (ties to even), from the exact integer
 * power of x's significand (6 limbs of 32 bits); *d: the distance of the
 * exact x^7 from the nearest rounding boundary (a midpoint between two
 * floats), in units of the quantum of x^7's binade (0.5: exact) */
CIEDE_HD float ciede_powf7_d(float x, double *d)
{
    uint32_t bits;
    memcpy(&bits, &x, 4);
    *d = 0.5;
    const int neg = (int)(bits >> 31), ef = (int)((bits >> 23) & 255);
    if (ef == 255)
        return x * x * x * x * x * x * x; /* inf or NaN: never from ciede's arithmetic */
    uint32_t m = bits & 0x7fffff;
    int e = -149;
    if (ef) {
        m |= 0x800000;
        e = ef - 150;
    }
    if (m == 0)
        return x; /* +-0 */
    uint32_t n[6] = {m, 0, 0, 0, 0, 0};
    for (int k = 1; k < 7; k++) {
        uint64_t carry = 0;
        for (int i = 0; i < 6; i++) {
            const uint64_t t = (uint64_t)n[i] * m + carry;
            n[i] = (uint32_t)t;
            carry = t >> 32;
        }
    }
    int b = 191; /* the top bit of n */
    while (!((n[b >> 5] >> (b & 31)) & 1))
        b--;
    const int e7 = 7 * e, top = b + e7; /* the value is in [2^top, 2^(top + 1)) */
    if (top > 127)
        return neg ? -INFINITY : INFINITY;
    const int q = top - 23 > -149 ? top - 23 : -149; /* the quantum of the result */
    const int s = q - e7;                            /* bits of n below it */
    if (s <= 0)                                      /* b <= 23: exact */
        return (neg ? -1.0f : 1.0f) * ldexpf((float)n[0], e7);
    uint64_t hi = 0; /* n >> s (at most 25 bits) */
    for (int i = 0; i < 25; i++) {
        const int k = s + i;
        if (k < 192 && ((n[k >> 5] >> (k & 31)) & 1))
            hi |= (uint64_t)1 << i;
    }
    /* the 64 bits below the quantum (the fraction of an ulp, times 2^64),
     * and whether any bit below them is set */
    uint64_t frac = 0;
    for (int i = 0; i < 64; i++) {
        const int k = s - 1 - i;
        if (k >= 0 && k < 192 && ((n[k >> 5] >> (k & 31)) & 1))
            frac |= (uint64_t)1 << (63 - i);
    }
    int sticky = 0;
    for (int i = 0; i < s - 64 && i < 192 && !sticky; i++)
        sticky = (n[i >> 5] >> (i & 31)) & 1;
    const uint64_t half = (uint64_t)1 << 63;
    /* |frac - 1/2| (the bits below frac only move it away from 1/2 above it,
     * toward it below: below 2^-64 either way) */
    *d = (frac >= half ? (double)(frac - half) : (double)(half - frac)) * 0x1p-64;
    if (frac > half || (frac == half && (sticky || (hi & 1))))
        hi++;
    return (neg ? -1.0f : 1.0f) * ldexpf((float)hi, q);
}

CIEDE_HD float ciede_powf7(float x)
{
    double d;
    return ciede_powf7_d(x, &d);
}

/* glibc's powf(x, 7) equals ciede_powf7(x) whenever x^7 lies at least this
 * far (ciede_powf7_d's d) from a float midpoint: statement V, verified for
 * every float of [0, 1906.5] by test_quality_ciede_powf (which fails when a
 * glibc differs at d >= CIEDE_POWF7_T); pixels whose c_bar_prime is nearer
 * are ambiguous (the host computes them). */
#define CIEDE_POWF7_T 0x1p-8

/* x^2 rounded to the nearest float: the double product is exact. */
CIEDE_HD float ciede_powf2(float x)
{
    return (float)((double)x * (double)x);
}

/* the threshold the kernel applies (tests lower it to see the check fail) */
#ifndef CIEDE_POWF7_THRESHOLD
#define CIEDE_POWF7_THRESHOLD CIEDE_POWF7_T
#endif

/* ---------------------------------------------------------------- pixels */
/* (casts to double are explicit: under nvcc, sqrt(float) and pow(float, int)
 * would pick C++'s float overloads, not C's double functions) */

CIEDE_HD civ civ_to_linear(double c)
{
    if (c > 10. / 255.)
        return civ_libm(CIEDE_POW((c + 0.055) * (1.0 / 1.055), 2.4), CIEDE_W_POW);
    return civ_pt(c * (1.0 / 12.92));
}

/* ciede_lab_f of every point of c: 1 when certain */
CIEDE_HD int civ_lab_f(civ c, float *f)
{
    const double kappa = 24389.0 / 27.0;
    const double epsilon = 216.0 / 24389.0;
    if (c.lo > epsilon) {
        /* x^(1/3) is increasing */
        const civ lo = civ_libm(CIEDE_POW(c.lo, 1.0 / 3.0), CIEDE_W_POW);
        const civ hi = civ_exact(c) ? lo : civ_libm(CIEDE_POW(c.hi, 1.0 / 3.0), CIEDE_W_POW);
        return civ_float(civ_of(lo.lo, hi.hi), f);
    }
    if (!(c.hi <= epsilon))
        return 0; /* the branch is undecided */
    return civ_float(civ_mul(civ_add(civ_mul(civ_pt(kappa), c), civ_pt(16.0)), civ_pt(1.0 / 116.0)),
                     f);
}

CIEDE_HD int civ_lab_of(double y, double u, double v, int bpc, float *lab)
{
    const double scale = (double)(1 << (bpc - 8));
    y = (y - 16. * scale) * (1. / (219. * scale));
    u = (u - 128. * scale) * (1. / (224. * scale));
    v = (v - 128. * scale) * (1. / (224. * scale));
    const civ r = civ_to_linear(y + 1.28033 * v);
    const civ g = civ_to_linear(y - 0.21482 * u - 0.38059 * v);
    const civ b = civ_to_linear(y + 2.12798 * u);
    const civ x = civ_add(
        civ_add(civ_mul(r, civ_pt(0.4124564390896921)), civ_mul(g, civ_pt(0.357576077643909))),
        civ_mul(b, civ_pt(0.18043748326639894)));
    const civ yy = civ_add(
        civ_add(civ_mul(r, civ_pt(0.21267285140562248)), civ_mul(g, civ_pt(0.715152155287818))),
        civ_mul(b, civ_pt(0.07217499330655958)));
    const civ z = civ_add(
        civ_add(civ_mul(r, civ_pt(0.019333895582329317)), civ_mul(g, civ_pt(0.119192025881303))),
        civ_mul(b, civ_pt(0.9503040785363677)));
    float fx, fy, fz;
    if (!civ_lab_f(civ_mul(x, civ_pt(1.0 / 0.95047)), &fx) || !civ_lab_f(yy, &fy) ||
        !civ_lab_f(civ_mul(z, civ_pt(1.0 / 1.08883)), &fz))
        return 0;
    const double dx = fx, dy = fy, dz = fz;
    lab[0] = (float)((116.0 * dy) - 16.0);
    lab[1] = (float)(500.0 * (dx - dy));
    lab[2] = (float)(200.0 * (dy - dz));
    return 1;
}

/* ciede_hue_angle: 1 when certain */
CIEDE_HD int civ_hue_angle(float x, float y, float *out)
{
    if (x == 0.0f && y == 0.0f) {
        *out = 0.0f;
        return 1;
    }
    float h;
    if (x == 0.0f && y > 0.0f)
        h = x; /* atan2(+-0, y > 0) is +-0 exactly in every libm */
    else if (!civ_float(civ_libm(CIEDE_ATAN2((double)x, (double)y), CIEDE_W_ATAN2), &h))
        return 0;
    if (h < 0.0f)
        h = (float)(h + 2. * M_PI);
    *out = h;
    return 1;
}

CIEDE_HD float civ_hue_delta(float c1, float c2, float h1, float h2)
{
    if (c1 == 0.0f || c2 == 0.0f)
        return 0.0f;
    if (fabsf(h1 - h2) <= M_PI)
        return h2 - h1;
    if (h2 <= h1)
        return (float)(h2 - h1 + 2. * M_PI);
    return (float)(h2 - h1 - 2. * M_PI);
}

CIEDE_HD civ civ_sin(double x)
{
    if (x == 0.0)
        return civ_pt(x); /* sin(+-0) is +-0 exactly */
    return civ_libm(CIEDE_SIN(x), CIEDE_W_SIN);
}

/* The rotation term rt for each float glibc's powf(c_bar_prime, 7) may be:
 * the correctly rounded x^7, and when x^7 lies within CIEDE_POWF7_T of a
 * midpoint (statement V) its two neighbors too; rt[0..*n) distinct, 1 when
 * each is certain. */
CIEDE_HD int civ_rotation(float c_bar_prime, float h_bar_prime, float *rt, int *n)
{
    const float deg = (float)(((float)(h_bar_prime * (180.0 / M_PI)) - 275.0) * (1.0 / 25.0));
    double d;
    const float c7 = ciede_powf7_d(c_bar_prime, &d);
    float e60;
    if (!civ_float(
            civ_mul(civ_pt(60.0), civ_libm(CIEDE_EXP((double)-(ciede_powf2(deg))), CIEDE_W_EXP)),
            &e60))
        return 0;
    const float rad = (float)(e60 * (M_PI / 180.0));
    const civ sn = civ_sin(rad);
    const float p25 = 6103515648.0f; /* powf(25.f, 7): checked by test_quality_ciede_powf */
    float cand[3] = {c7, c7, c7};
    int nc = 1;
    if (d < CIEDE_POWF7_THRESHOLD) {
        cand[1] = nextafterf(c7, -INFINITY);
        cand[2] = nextafterf(c7, INFINITY);
        nc = 3;
    }
    *n = 0;
    for (int k = 0; k < nc; k++) {
        const double s = -2.0 * sqrt((double)(cand[k] / (cand[k] + p25)));
        float r;
        if (!civ_float(civ_mul(civ_pt(s), sn), &r))
            return 0;
        int seen = 0;
        for (int j = 0; j < *n; j++)
            seen |= rt[j] == r;
        if (!seen)
            rt[(*n)++] = r;
    }
    return 1;
}

/* ciede_de2000 of certain Lab values: 1 when certain */
CIEDE_HD int civ_de2000(const float *p, const float *q, float *out)
{
    const double p25 = 6103515625.0;
    const float dl = q[0] - p[0];
    const float l_bar = (p[0] + q[0]) / 2;
    const float c1 = (float)sqrt((double)p[1] * p[1] + (double)p[2] * p[2]);
    const float c2 = (float)sqrt((double)q[1] * q[1] + (double)q[2] * q[2]);
    const float c_bar = (c1 + c2) / 2;
    const civ cb7 =
        c_bar == 0.0f ? civ_pt(0.0) : civ_libm(CIEDE_POW((double)c_bar, 7.0), CIEDE_W_POW);
    const civ g = civ_sub(civ_pt(1), civ_sqrt(civ_div(cb7, civ_add(cb7, civ_pt(p25)))));
    float a1, a2;
    if (!civ_float(civ_add(civ_pt(p[1]), civ_mul(civ_pt(p[1] / 2), g)), &a1) ||
        !civ_float(civ_add(civ_pt(q[1]), civ_mul(civ_pt(q[1] / 2), g)), &a2))
        return 0;
    const float cp1 = (float)sqrt((double)a1 * a1 + (double)p[2] * p[2]);
    const float cp2 = (float)sqrt((double)a2 * a2 + (double)q[2] * q[2]);
    const float cbp = (cp1 + cp2) / 2;
    const float dc = cp2 - cp1;
    const float lm = l_bar - 50;
    const double lm2 = (double)lm * lm;
    const float sl = (float)(1. + ((0.015 * lm2) / sqrt(20 + lm2)));
    const float sc = (float)(1. + 0.045 * cbp);
    float h1, h2, dhh, t;
    if (!civ_hue_angle(p[2], a1, &h1) || !civ_hue_angle(q[2], a2, &h2))
        return 0;
    const float dh = civ_hue_delta(c1, c2, h1, h2);
    if (!civ_float(civ_mul(civ_pt(2.0 * sqrt((double)(cp1 * cp2))), civ_sin(dh / 2.0)), &dhh))
        return 0;
    const float hbp = fabs((double)(h1 - h2)) > M_PI ? (float)((h1 + h2 + 2.0 * M_PI) / 2.0)
                                                     : (float)((h1 + h2) / 2.0);
    const civ c0 = civ_libm(CIEDE_COS(hbp - M_PI / 6.0), CIEDE_W_COS);
    const civ cc1 = civ_libm(CIEDE_COS(2.0 * hbp), CIEDE_W_COS);
    const civ cc2 = civ_libm(CIEDE_COS(3.0 * hbp + M_PI / 30.0), CIEDE_W_COS);
    const civ cc3 = civ_libm(CIEDE_COS(4.0 * hbp - 7.0 * M_PI / 20.0), CIEDE_W_COS);
    civ tt = civ_sub(civ_pt(1.0), civ_mul(civ_pt(0.17), c0));
    tt = civ_add(tt, civ_mul(civ_pt(0.24), cc1));
    tt = civ_add(tt, civ_mul(civ_pt(0.32), cc2));
    tt = civ_sub(tt, civ_mul(civ_pt(0.20), cc3));
    if (!civ_float(tt, &t))
        return 0;
    const float sh = (float)(1.0 + 0.015 * cbp * t);
    float rt[3];
    int nrt;
    if (!civ_rotation(cbp, hbp, rt, &nrt))
        return 0;
    const float lt = dl / (0.65f * sl);
    const float ch = dc / (1.0f * sc);
    const float hu = dhh / (4.0f * sh);
    /* the same float for every candidate rt, or ambiguous */
    float de[3];
    for (int k = 0; k < nrt; k++) {
        de[k] = (float)sqrt((double)lt * lt + (double)ch * ch + (double)hu * hu + rt[k] * ch * hu);
        if (k > 0 && civ_bits(de[k]) != civ_bits(de[0]))
            return 0;
    }
    *out = de[0];
    return 1;
}

/* One pixel's dE00 in *out: 1 when certified equal to ciede_pixel's, 0 when
 * ambiguous (the caller computes it with ciede_pixel). */
CIEDE_HD int ciede_cert_pixel(float ry, float ru, float rv, float dy, float du, float dv, int bpc,
                              float *out)
{
    float p[3], q[3];
    if (!civ_lab_of(ry, ru, rv, bpc, p) || !civ_lab_of(dy, du, dv, bpc, q))
        return 0;
    return civ_de2000(p, q, out);
}

/* ---------------------------------------------------------------- exact sum */

/* C adds the float dE values (all >= 0) to one double in raster order. When
 * every value is a multiple of 2^-k (k = 23 - the exponent of the smallest
 * nonzero value) and their total is below 2^(53 - k), every partial sum is
 * such a multiple below 2^(53 - k): representable, so each addition is exact
 * and the sequential sum is the exact total, which a 128-bit fixed-point sum
 * (unit 2^-CIEDE_FIX) computes in any order. */
#define CIEDE_FIX 90

/* v >= 0 (finite) in units of 2^-CIEDE_FIX into (*hi, *lo); 0 when v has
 * bits below the unit or is too large (then the exact path is not taken) */
CIEDE_HD int ciede_fixed(float v, uint64_t *hi, uint64_t *lo)
{
    uint32_t b;
    memcpy(&b, &v, 4);
    *hi = *lo = 0;
    if (b == 0)
        return 1;
    const int ef = (int)(b >> 23);
    /* below 2^9: a total of up to 2^28 values stays below 2^127 units */
    if (ef == 0 || ef > 127 + 8 || (b >> 31))
        return 0; /* subnormal, 512 or more, negative or not finite */
    const uint64_t m = (b & 0x7fffff) | 0x800000;
    const int sh = ef - 150 + CIEDE_FIX; /* v = m 2^(ef - 150) */
    if (sh < 0)
        return 0;
    if (sh >= 64) {
        *hi = m << (sh - 64);
    } else {
        *lo = m << sh;
        *hi = sh > 40 ? m >> (64 - sh) : 0;
    }
    return 1;
}

/* The sequential sum from the fixed-point total (hi, lo) and the bits of the
 * smallest nonzero value (min_bits; 0x7f800000 when all are 0): 1 and *sum
 * when the exactness condition holds. */
CIEDE_HD int ciede_exact_sum(uint64_t hi, uint64_t lo, uint32_t min_bits, double *sum)
{
    if (min_bits >= 0x7f800000u) {
        *sum = 0.0;
        return hi == 0 && lo == 0;
    }
    const int k = 150 - (int)(min_bits >> 23); /* the smallest value's ulp is 2^-k */
    if (k > CIEDE_FIX)
        return 0;
    /* total < 2^(53 - k): below 2^(53 - k + CIEDE_FIX) in units */
    const int lim = 53 - k + CIEDE_FIX;
    const int top = hi ? 127 - CI_CLZ64(hi) : lo ? 63 - CI_CLZ64(lo) : -1;
    if (top >= lim)
        return 0;
    *sum = ((double)hi * 0x1p64 + (double)lo) * 0x1p-90;
    return 1;
}

#endif
