/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Statement V of the CUDA ciede (ciede_interval.h): for every float x that
 * ciede can pass to powf(x, 7) (c_bar_prime in [0, C_MAX]), glibc's powf(x, 7)
 * equals the correctly rounded x^7 (ciede_powf7) whenever d(x), the distance
 * of the exact x^7 from the nearest float midpoint in ulps, is at least
 * CIEDE_POWF7_T; and powf(x, 2) equals the correctly rounded x^2 for every x
 * of deg's range [DEG_MIN, DEG_MAX] (bounds derived in bounds() from
 * libvmaf's arithmetic). Also checks ciede_powf7 itself against an
 * independent double-double evaluation, and powf(25.f, 7).
 *
 * Prints the largest d(x) among glibc's x^7 differences, the threshold it
 * calls for (the power of two above twice that), the number of differences
 * and of x with d(x) < CIEDE_POWF7_T (the floats that make a pixel
 * ambiguous). Fails on a difference at d(x) >= CIEDE_POWF7_T, a wrong x^2,
 * a wrong powf(25, 7) or a wrong ciede_powf7.
 *
 * Default: every 1009th float of the ranges (ctest). With the argument
 * "full": every float, over one thread per CPU (seconds on 16 cores). Run it
 * under both of glibc's x86_64 powf variants: as is (the FMA one on an FMA
 * machine) and with GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2_Usable,-FMA_Usable
 * (glibc < 2.33 names) or =-AVX2,-FMA (newer): the program prints powf's
 * resolved address so the switch can be seen. "full list" prints every
 * difference; a third argument sets the threads ("full - 16"). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "quality/ciede_interval.h"

static float from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* Upper bounds of |Lab a|, |Lab b| and so of c_bar_prime over every input
 * (any sample value, any depth: normalized y in [-16/219, 240/219], u, v in
 * [-128/224, 128/224]); each step is monotone or bounded by its extremes, 1%
 * margin on the result. */
static double bounds(void)
{
    const double ylo = -16. / 219., yhi = 240. / 219., clo = -128. / 224., chi = 128. / 224.;
    /* r = y + 1.28033 v, g = y - 0.21482 u - 0.38059 v, b = y + 2.12798 u */
    const double lin_in[3][2] = {
        {ylo + 1.28033 * clo, yhi + 1.28033 * chi},
        {ylo - 0.21482 * chi - 0.38059 * chi, yhi - 0.21482 * clo - 0.38059 * clo},
        {ylo + 2.12798 * clo, yhi + 2.12798 * chi}};
    double lin[3][2];
    for (int k = 0; k < 3; k++)
        for (int e = 0; e < 2; e++) /* both branches are increasing */
            lin[k][e] = ciede_to_linear(lin_in[k][e]);
    /* near the branch point the pow branch is below the linear one by at
     * most 1e-4: widen the low ends */
    for (int k = 0; k < 3; k++)
        lin[k][0] = fmin(lin[k][0], -1e-4);
    static const double m[3][3] = {{0.4124564390896921, 0.357576077643909, 0.18043748326639894},
                                   {0.21267285140562248, 0.715152155287818, 0.07217499330655958},
                                   {0.019333895582329317, 0.119192025881303, 0.9503040785363677}};
    const double n[3] = {0.95047, 1.0, 1.08883};
    double flo = INFINITY, fhi = -INFINITY;
    for (int r = 0; r < 3; r++) {
        double tlo = 0, thi = 0;
        for (int k = 0; k < 3; k++) {
            tlo += m[r][k] * lin[k][0];
            thi += m[r][k] * lin[k][1];
        }
        flo = fmin(flo, ciede_lab_f(tlo / n[r]));
        fhi = fmax(fhi, ciede_lab_f(thi / n[r]));
    }
    const double amax = 500. * (fhi - flo), bmax = 200. * (fhi - flo);
    /* a' = a (1 + g/2)... libvmaf: a + (a / 2) g with g in [0, 1] */
    const double cmax = sqrt(1.5 * amax * 1.5 * amax + bmax * bmax);
    return cmax * 1.01;
}

/* x^7 in double-double (hi + lo) with a relative error below 2^-100: an
 * independent check of ciede_powf7 away from float midpoints */
static void two_prod(double a, double b, double *p, double *e)
{
    *p = a * b;
    *e = fma(a, b, -*p);
}

static void dd_mul(double ah, double al, double bh, double bl, double *ch, double *cl)
{
    double p, e;
    two_prod(ah, bh, &p, &e);
    e += ah * bl + al * bh;
    *ch = p + e;
    *cl = e - (*ch - p);
}

/* 1: ciede_powf7(x) is consistent with the double-double power (or x^7 is
 * too close to a float midpoint to tell) */
static int powf7_consistent(float x, float f)
{
    if (x == 0.0f || !isnormal(x) || fabsf(x) < 0x1p-17f)
        return 1; /* subnormal results: not covered by this check */
    double h = x, l = 0, h2, l2, h4, l4, h3, l3, h7, l7;
    dd_mul(h, l, h, l, &h2, &l2);
    dd_mul(h2, l2, h2, l2, &h4, &l4);
    dd_mul(h2, l2, h, l, &h3, &l3);
    dd_mul(h4, l4, h3, l3, &h7, &l7);
    /* f must be the float nearest h7 + l7: compare with the midpoints */
    const double fd = f;
    const double up = (fd + (double)nextafterf(f, INFINITY)) / 2;
    const double dn = (fd + (double)nextafterf(f, -INFINITY)) / 2;
    const double tol = fabs(h7) * 0x1p-98;
    const double v_up = (h7 - up) + l7, v_dn = (h7 - dn) + l7;
    if (fabs(v_up) < tol || fabs(v_dn) < tol)
        return 1;
    return v_up < 0 && v_dn > 0;
}

/* one thread's slice of the x^7 range, and what it found */
typedef struct slice {
    uint32_t b0, b1, step; /* float bits b0, b0 + step, ... below b1 */
    uint32_t sign;         /* x^2: the sign bit of the slice's floats */
    int list;
    uint64_t n, diff, near, bad_v, bad_cr;
    double dmax; /* the largest d(x) among the differences */
} slice;

static void *run_slice(void *arg)
{
    slice *s = arg;
    for (uint64_t b = s->b0; b < s->b1; b += s->step) {
        const float x = from_bits((uint32_t)b);
        double d;
        const float g = powf(x, 7), c = ciede_powf7_d(x, &d);
        s->n++;
        if (!powf7_consistent(x, c) && s->bad_cr++ < 5)
            printf("FAIL ciede_powf7(%a) = %a is not the nearest float\n", x, c);
        if (d < CIEDE_POWF7_T)
            s->near++;
        if (bits_of(g) == bits_of(c))
            continue;
        s->diff++;
        if (d > s->dmax)
            s->dmax = d;
        if (d >= CIEDE_POWF7_T && s->bad_v++ < 5)
            printf("FAIL (V) powf(%a, 7): glibc %a, correctly rounded %a, d = %.3g ulp\n", x, g, c,
                   d);
        else if (s->list)
            printf("powf(%a, 7): glibc %a, correctly rounded %a, d = %.3g\n", x, g, c, d);
    }
    return NULL;
}

/* one thread's slice of deg's range: glibc's x^2 against the correctly
 * rounded square (bad_cr counts the differences) */
static void *run_square(void *arg)
{
    slice *s = arg;
    for (uint64_t b = s->b0; b < s->b1; b += s->step) {
        const float x = from_bits((uint32_t)b | s->sign);
        const float g = powf(x, 2), c = ciede_powf2(x);
        s->n++;
        if (bits_of(g) != bits_of(c) && s->bad_cr++ < 5)
            printf("DIFF powf(%a, 2): glibc %a, correctly rounded %a\n", x, g, c);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const int full = argc > 1 && strcmp(argv[1], "full") == 0;
    const int list = argc > 2 && strcmp(argv[2], "list") == 0;
    const uint32_t step = full ? 1 : 1009;
    Dl_info info;
    void *fn = (void *)powf;
    if (dladdr(fn, &info) && info.dli_fname)
        printf("powf at %s + 0x%lx (%s)\n", info.dli_fname,
               (unsigned long)((char *)fn - (char *)info.dli_fbase),
               info.dli_sname ? info.dli_sname : "?");
    const double cmax = bounds();
    const float deg_min = -11.5f, deg_max = 7.5f;
    printf("ranges: c_bar_prime in [0, %.3f], deg in [%g, %g]; %s\n", cmax, deg_min, deg_max,
           full ? "every float" : "every 1009th float");
    /* libvmaf's deg: hbp in [0, 2.5 pi] (its mean hue adds 2 pi whenever the
     * hues are more than pi apart), so (hbp 180 / pi - 275) / 25 in [-11, 7] */
    if (!((2.5 * M_PI * (180.0 / M_PI) - 275.0) / 25.0 < deg_max && -275.0 / 25.0 > deg_min)) {
        printf("FAIL: deg bounds\n");
        return 1;
    }
    int bad = 0;
    const float p25 = powf(25.f, 7), p25cr = ciede_powf7(25.f);
    if (bits_of(p25) != bits_of(p25cr) || p25 != 6103515648.0f) {
        printf("FAIL: powf(25, 7) = %.9g, correctly rounded %.9g\n", p25, p25cr);
        bad++;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const uint32_t top7 = bits_of((float)cmax);
    long nthreads = full ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    if (argc > 3)
        nthreads = atol(argv[3]);
    if (nthreads < 1 || nthreads > 256)
        nthreads = 1;
    /* interleaved slices of 2^16 floats would balance better; contiguous
     * ones are simpler and the cost per float is flat */
    slice sl[256];
    pthread_t th[256];
    const uint64_t count = (uint64_t)top7 / step + 1;
    for (long t = 0; t < nthreads; t++) {
        memset(&sl[t], 0, sizeof(sl[t]));
        sl[t].step = step;
        sl[t].list = list;
        sl[t].b0 = (uint32_t)(count * (uint64_t)t / (uint64_t)nthreads * step);
        sl[t].b1 = (uint32_t)(count * (uint64_t)(t + 1) / (uint64_t)nthreads * step);
        if (pthread_create(&th[t], NULL, run_slice, &sl[t]) != 0) {
            printf("FAIL: pthread_create\n");
            return 1;
        }
    }
    uint64_t n7 = 0, n2 = 0, d7 = 0, near = 0;
    double dmax = 0;
    for (long t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        n7 += sl[t].n;
        d7 += sl[t].diff;
        near += sl[t].near;
        bad += (int)(sl[t].bad_v + sl[t].bad_cr);
        dmax = fmax(dmax, sl[t].dmax);
    }
    /* x^2 over [deg_min, deg_max]: the positive floats up to deg_max, the
     * negative ones down to deg_min, each sign over the threads */
    for (int sgn = 0; sgn < 2; sgn++) {
        const uint64_t cnt = (uint64_t)bits_of(sgn ? -deg_min : deg_max) / step + 1;
        for (long t = 0; t < nthreads; t++) {
            memset(&sl[t], 0, sizeof(sl[t]));
            sl[t].step = step;
            sl[t].sign = (uint32_t)sgn << 31;
            sl[t].b0 = (uint32_t)(cnt * (uint64_t)t / (uint64_t)nthreads * step);
            sl[t].b1 = (uint32_t)(cnt * (uint64_t)(t + 1) / (uint64_t)nthreads * step);
            if (pthread_create(&th[t], NULL, run_square, &sl[t]) != 0) {
                printf("FAIL: pthread_create\n");
                return 1;
            }
        }
        for (long t = 0; t < nthreads; t++) {
            pthread_join(th[t], NULL);
            n2 += sl[t].n;
            bad += (int)sl[t].bad_cr;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* the threshold the differences call for: the power of two above 2 dmax */
    double tneed = 0x1p-60;
    while (tneed <= 2 * dmax)
        tneed *= 2;
    printf("checked %" PRIu64 " x^7 (%ld threads) and %" PRIu64 " x^2 in %.1f s: %d failures\n", n7,
           nthreads, n2, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
           bad);
    printf("x^7: glibc differs from the correctly rounded power for %" PRIu64 " (%.3g); "
           "largest d among them %.6g ulp: threshold %a (compiled in: %a); d < %a for %" PRIu64
           " (%.3g)\n",
           d7, (double)d7 / (double)n7, dmax, tneed, CIEDE_POWF7_T, CIEDE_POWF7_T, near,
           (double)near / (double)n7);
    return bad ? 1 : 0;
}
