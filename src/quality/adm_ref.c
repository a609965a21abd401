/* C reference of libvmaf's integer ADM (DLM and AIM): a 4-level db2 DWT, the
 * decoupling of the distorted bands into restored and additive parts, CSF
 * weighting, contrast masking and cube sums, in libvmaf's fixed-point
 * arithmetic: the passes over a level's rows (a level's constants and the
 * floats from its sums are adm_level.c's). docs/quality.md ("Integer ADM")
 * explains every step; each shift, rounding and cast below is libvmaf's,
 * including its wrap-arounds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fovea/frame.h"
#include "quality/adm.h"

/* The float and double steps must round as libvmaf's do (CMake builds with
 * -ffp-contract=off; clang is told here too). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define ADM_PI 3.14159265358979323846

/* db2 analysis filters in Q15 (the low-pass taps sum to 46342 = sqrt(2) * 2^15). */
static const int32_t db2_lo[4] = {15826, 27411, 7345, -4240};
static const int32_t db2_hi[4] = {-4240, -7345, 27411, -15826};

/* Band order: the three detail bands as libvmaf's theta (0 = h, 1 = v, 2 = d),
 * then the approximation. h is vertical high-pass + horizontal low-pass, v the
 * reverse, d high-pass both ways, a low-pass both ways. */
enum { BAND_H, BAND_V, BAND_D, BAND_A, NBANDS };

/* A level is computed row by row in one pass per thread (level_rows): the
 * DWT of a band row, its decoupling, the maskers' rows and the sums of the
 * row above, so that only the approximation band (the next level's input)
 * goes through memory; everything else lives in a few rows per thread. */
typedef struct adm_thread {
    int32_t *lo[2], *hi[2];   /* vertical DWT pass of ref, dis (input width) */
    int32_t *band[2][NBANDS]; /* one DWT output row of ref, dis */
    int32_t *x[2][3][2];      /* [restored, additive][band][row & 1] */
    int32_t *f[2][3];         /* [masker: restored, additive][row % 3]: the summed
                                 |csf| / 30 of the masker's bands, one column of
                                 padding each side */
    int32_t *c[2][2];         /* [masker][row & 1]: the summed |csf| / 15 */
    int64_t acc[16];          /* den, DLM and AIM numerators (h, v, d each); the
                                 rest keeps threads off each other's cache lines */
} adm_thread;

struct adm_state {
    adm_params p;
    int bw, bh;       /* band size of the first level (every level fits in it) */
    ptrdiff_t stride; /* elements, of every band plane */
    int32_t *band_a[2][2];    /* [ref, dis][ping, pong]: the approximation band of a
                                 level is read by the next one, which writes the other */
    int *ind_y[4], *ind_x[4]; /* DWT source rows/columns of each output row/column */
    int32_t *div_lookup;      /* 65537 entries: 2^30 / (i - 32768) */
    void *mem;
    /* per thread of the context computing */
    int nthr;
    adm_thread *thr;
    void *thr_mem;
};

/* ---------------------------------------------------------------- DWT */

/* Source index of tap k (0..3) for output n of a level with n_in inputs: taps
 * 2n-1 .. 2n+2; index -1 reads 1 (mirror without repeating the edge), index
 * n_in + e reads n_in - 1 - e (mirror repeating it). */
static void dwt_indices(int *ind[4], int n_in)
{
    int n_out = (n_in + 1) / 2;
    for (int n = 0; n < n_out; n++) {
        for (int k = 0; k < 4; k++) {
            int i = 2 * n - 1 + k;
            if (i < 0)
                i = -i;
            if (i >= n_in)
                i = 2 * n_in - i - 1;
            ind[k][n] = i;
        }
    }
}

/* The row loops below are compiled for AVX-512, AVX2 and the baseline and
 * picked at run time, as VIF's (plain C, vectorized by the compiler; see
 * ADM_FP_CLONES for the one with floating point). FOVEA_ADM_NO_CLONES builds
 * one version for the compiler's target (to test the others' bits). */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(FOVEA_ADM_NO_CLONES)
#define ADM_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define ADM_CLONES
#endif

/* The vertical pass of one output row from its four source rows (r8: level
 * 0's samples, r32: the previous approximation band above), every column:
 * lo = (sum_k lo_k * s_k - sub + add) >> shift, hi = (sum_k hi_k * s_k + add)
 * >> shift. Level 0 keeps int16 results, as libvmaf does. At 8 bits the sums
 * (< 2^24) are exact in 32 bits, and so are level 1's; else 64 bits. */
ADM_CLONES static void dwt_vertical(int scale, int bpc, const uint8_t *const r8[4],
                                    const int32_t *const r32[4], int w, const adm_dwt_round *vr,
                                    int32_t *restrict lo, int32_t *restrict hi)
{
    if (scale == 0 && bpc == 8) {
        const int32_t sub = (int32_t)vr->sub, add = (int32_t)vr->add;
        for (int j = 0; j < w; j++) {
            const int32_t s0 = r8[0][j], s1 = r8[1][j], s2 = r8[2][j], s3 = r8[3][j];
            const int32_t l = db2_lo[0] * s0 + db2_lo[1] * s1 + db2_lo[2] * s2 + db2_lo[3] * s3;
            const int32_t h = db2_hi[0] * s0 + db2_hi[1] * s1 + db2_hi[2] * s2 + db2_hi[3] * s3;
            lo[j] = (int16_t)((l - sub + add) >> 8);
            hi[j] = (int16_t)((h + add) >> 8);
        }
    } else if (scale == 0) {
        /* libvmaf sums in int32, whose intermediate wrap-around at 16 bits
         * cancels (the final sums fit); exact 64-bit sums give the same values */
        const uint16_t *q[4];
        for (int k = 0; k < 4; k++)
            q[k] = (const uint16_t *)(const void *)r8[k];
        for (int j = 0; j < w; j++) {
            int64_t l = 0, h = 0;
            for (int k = 0; k < 4; k++) {
                l += (int64_t)db2_lo[k] * q[k][j];
                h += (int64_t)db2_hi[k] * q[k][j];
            }
            lo[j] = (int16_t)((l - vr->sub + vr->add) >> vr->shift);
            hi[j] = (int16_t)((h + vr->add) >> vr->shift);
        }
    } else if (scale == 1 && vr->add == 0 && vr->shift == 0) {
        /* level 1 reads level 0's approximation band, int16 values: every sum
         * (|sum| <= 54822 * 2^15 < 2^31) is exact in 32 bits */
        for (int j = 0; j < w; j++) {
            int32_t l = 0, h = 0;
            for (int k = 0; k < 4; k++) {
                l += db2_lo[k] * r32[k][j];
                h += db2_hi[k] * r32[k][j];
            }
            lo[j] = l;
            hi[j] = h;
        }
    } else {
        for (int j = 0; j < w; j++) {
            int64_t l = 0, h = 0;
            for (int k = 0; k < 4; k++) {
                l += (int64_t)db2_lo[k] * r32[k][j];
                h += (int64_t)db2_hi[k] * r32[k][j];
            }
            lo[j] = (int32_t)((l + vr->add) >> vr->shift);
            hi[j] = (int32_t)((h + vr->add) >> vr->shift);
        }
    }
}

/* One output column j of the horizontal pass through the mirrored column
 * indices (the edges). */
static inline void dwt_h_at(int scale, int *const ind[4], const int32_t *lo, const int32_t *hi,
                            int j, const adm_dwt_round *hr, int32_t *a, int32_t *v, int32_t *h,
                            int32_t *d)
{
    int64_t ll = 0, lh = 0, hl = 0, h2 = 0;
    for (int k = 0; k < 4; k++) {
        const int c = ind[k][j];
        ll += db2_lo[k] * (int64_t)lo[c];
        lh += db2_hi[k] * (int64_t)lo[c];
        hl += db2_lo[k] * (int64_t)hi[c];
        h2 += db2_hi[k] * (int64_t)hi[c];
    }
    const int64_t out[4] = {(ll + hr->add) >> hr->shift, (lh + hr->add) >> hr->shift,
                            (hl + hr->add) >> hr->shift, (h2 + hr->add) >> hr->shift};
    a[j] = scale == 0 ? (int16_t)out[0] : (int32_t)out[0];
    v[j] = scale == 0 ? (int16_t)out[1] : (int32_t)out[1];
    h[j] = scale == 0 ? (int16_t)out[2] : (int32_t)out[2];
    d[j] = scale == 0 ? (int16_t)out[3] : (int32_t)out[3];
}

/* The horizontal pass at the even columns of one row into the four bands
 * (a: lo lo, v: lo hi, h: hi lo, d: hi hi). Output column j reads columns
 * 2j-1 .. 2j+2, mirrored at the edges; the columns in between read them
 * directly. Level 0's inputs are int16, so its sums (< 54822 * 2^15 + 2^15 <
 * 2^31) are exact in 32 bits. */
ADM_CLONES static void dwt_horizontal(int scale, int *const ind[4], const int32_t *restrict lo,
                                      const int32_t *restrict hi, int w, const adm_dwt_round *hr,
                                      int32_t *restrict a, int32_t *restrict v,
                                      int32_t *restrict h, int32_t *restrict d)
{
    const int bw = (w + 1) / 2;
    /* inside: 2j - 1 >= 0 and 2j + 2 <= w - 1 */
    const int j0 = bw < 1 ? bw : 1;
    const int j1 = (w - 1) / 2 > j0 ? (w - 1) / 2 : j0;
    for (int j = 0; j < j0; j++)
        dwt_h_at(scale, ind, lo, hi, j, hr, a, v, h, d);
    if (scale == 0) {
        for (int j = j0; j < j1; j++) {
            const int32_t *l = lo + 2 * j - 1, *g = hi + 2 * j - 1;
            const int32_t ll =
                db2_lo[0] * l[0] + db2_lo[1] * l[1] + db2_lo[2] * l[2] + db2_lo[3] * l[3];
            const int32_t lh =
                db2_hi[0] * l[0] + db2_hi[1] * l[1] + db2_hi[2] * l[2] + db2_hi[3] * l[3];
            const int32_t hl =
                db2_lo[0] * g[0] + db2_lo[1] * g[1] + db2_lo[2] * g[2] + db2_lo[3] * g[3];
            const int32_t h2 =
                db2_hi[0] * g[0] + db2_hi[1] * g[1] + db2_hi[2] * g[2] + db2_hi[3] * g[3];
            a[j] = (int16_t)((ll + 32768) >> 16);
            v[j] = (int16_t)((lh + 32768) >> 16);
            h[j] = (int16_t)((hl + 32768) >> 16);
            d[j] = (int16_t)((h2 + 32768) >> 16);
        }
    } else {
        for (int j = j0; j < j1; j++) {
            const int32_t *l = lo + 2 * j - 1, *g = hi + 2 * j - 1;
            int64_t ll = 0, lh = 0, hl = 0, h2 = 0;
            for (int k = 0; k < 4; k++) {
                ll += (int64_t)db2_lo[k] * l[k];
                lh += (int64_t)db2_hi[k] * l[k];
                hl += (int64_t)db2_lo[k] * g[k];
                h2 += (int64_t)db2_hi[k] * g[k];
            }
            a[j] = (int32_t)((ll + hr->add) >> hr->shift);
            v[j] = (int32_t)((lh + hr->add) >> hr->shift);
            h[j] = (int32_t)((hl + hr->add) >> hr->shift);
            d[j] = (int32_t)((h2 + hr->add) >> hr->shift);
        }
    }
    for (int j = j1; j < bw; j++)
        dwt_h_at(scale, ind, lo, hi, j, hr, a, v, h, d);
}

/* ---------------------------------------------------------------- decoupling */

/* The decoupling holds float and double steps (the angle test, the gain
 * limit): its clones must not contract them into FMA (x86-64-v4 has FMA;
 * "avx2" alone does not). CMake builds with -ffp-contract=off and GCC does
 * not contract in ISO C mode anyway; in GNU C mode the v4 clone is left out. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && \
    !defined(FOVEA_ADM_NO_CLONES) && (defined(__clang__) || defined(__STRICT_ANSI__))
#define ADM_FP_CLONES ADM_CLONES
#elif defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && \
    !defined(FOVEA_ADM_NO_CLONES)
#define ADM_FP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define ADM_FP_CLONES
#endif

#if defined(__GNUC__)
#define ADM_INLINE static inline __attribute__((always_inline))
#else
#define ADM_INLINE static inline
#endif

/* The number of significant bits of v above the low 15 (0 when v < 2^15),
 * without a branch or a bit-scan so the callers vectorize everywhere. */
ADM_INLINE int bits_above_15(uint32_t v)
{
    uint32_t x = v >> 15; /* < 2^17 */
    int n = 0, s;
    s = (x >= 1u << 16) ? 16 : 0;
    n += s;
    x >>= s;
    s = (x >= 1u << 8) ? 8 : 0;
    n += s;
    x >>= s;
    s = (x >= 1u << 4) ? 4 : 0;
    n += s;
    x >>= s;
    s = (x >= 1u << 2) ? 2 : 0;
    n += s;
    x >>= s;
    s = (x >= 1u << 1) ? 1 : 0;
    n += s;
    x >>= s;
    return n + (int)x;
}

/* k = clamp(t / o, 0, 1) in Q15 through libvmaf's reciprocal table. Level 0
 * indexes the table with o itself (|o| <= 32768); above, o is first rounded to
 * its 15 leading bits and the shift undone after the multiply. o == 0 gives
 * 32768. Written without branches (every path is computed, the table read at
 * an index in range) so the column loops vectorize. */
ADM_INLINE int32_t ratio_q15(const int32_t *div_lookup, int scale, int32_t o, int32_t t)
{
    int64_t k;
    if (scale == 0) {
        k = (int32_t)(((int64_t)div_lookup[o + 32768] * t + 16384) >> 15);
    } else {
        const uint32_t ao = o < 0 ? 0u - (uint32_t)o : (uint32_t)o;
        const int sh = bits_above_15(ao); /* 0, or the shift to 15 bits */
        const uint32_t m = (ao + ((1u << sh) >> 1)) >> sh; /* <= 32768 */
        /* libvmaf multiplies the entry of m by o's sign; the table is odd
         * (entry 32768 - m is minus entry 32768 + m), so this reads the entry
         * of o's sign times m (a signed index, which vectorizes as a gather) */
        const int32_t sm = o < 0 ? -(int32_t)m : (int32_t)m;
        /* rounding term 2^(14 + sh) <= 2^31, made by a 32-bit shift; the shift
         * count in 64 bits (GCC vectorizes a 64-bit shift only so) */
        k = ((int64_t)div_lookup[sm + 32768] * t + (int64_t)(16384u << sh)) >> (int64_t)(15 + sh);
    }
    k = k < 0 ? 0 : (k > 32768 ? 32768 : k);
    return o == 0 ? 32768 : (int32_t)k;
}

float adm_cos_1deg_sq(void)
{
    return (float)(cos(ADM_PI / 180.0) * cos(ADM_PI / 180.0));
}

/* Split each distorted detail coefficient t into the part explained by the
 * reference o (restored: k*o, k = t/o clamped to [0,1]) and the rest
 * (additive: t - restored), columns [l, r) of one row. Where (oh,ov) and
 * (th,tv) point within 1 degree of each other, an enhancement (|t| > |o|) is
 * restored up to enhn_gain_limit * k*o.
 *
 * Two loops, each of which GCC vectorizes (one loop with both the table and
 * the float steps it turns into branches): first, per band, k and k*o (into
 * the restored and additive rows), then the angle test and the gain limit. */

/* Pass 1 of one band: x = k*o rounded (at level 0 |k*o| <= 2^30 fits 32 bits
 * and the value stays in int16), kk = k. A function of its own: inlined,
 * GCC no longer sees that the table read does not alias the stores. */
ADM_CLONES static void ratio_row(int scale, const int32_t *restrict div_lookup, int l, int r,
                                 const int32_t *restrict o, const int32_t *restrict t,
                                 int32_t *restrict x, int32_t *restrict kk)
{
    if (scale == 0) {
        for (int j = l; j < r; j++) {
            const int32_t k = ratio_q15(div_lookup, 0, o[j], t[j]);
            x[j] = (int16_t)((k * o[j] + 16384) >> 15);
            kk[j] = k;
        }
    } else {
        for (int j = l; j < r; j++) {
            const int32_t k = ratio_q15(div_lookup, 1, o[j], t[j]);
            x[j] = (int32_t)(((int64_t)k * o[j] + 16384) >> 15);
            kk[j] = k;
        }
    }
}

/* The restored value of one coefficient from pass 1's x = k*o: where the
 * angle test passed and k*o points as o does (libvmaf tests the sign of k*o
 * as a float product: k > 0 and o's sign), up to gain * k*o toward t,
 * truncated toward 0. The limited value lies between 0 and t, so the
 * conversion is in range. */
ADM_INLINE int32_t restored(int scale, int32_t o, int32_t t, int32_t x, int32_t k, int angle,
                            double gain)
{
    const double g = (double)x * gain;
    const double v = o > 0 ? (g < t ? g : (double)t) : (g > t ? g : (double)t);
    const int32_t e = scale == 0 ? (int16_t)v : (int32_t)v;
    return (angle & (k > 0) & (o != 0)) ? e : x;
}

/* t - restored, wrapped to the level's width. */
ADM_INLINE int32_t additive(int scale, int32_t t, int32_t x)
{
    return scale == 0 ? (int16_t)(t - x) : (int32_t)((uint32_t)t - (uint32_t)x);
}

/* Pass 2: rh/rv/rd hold x and ah/av/ad hold k from pass 1; they get the
 * restored and additive parts. */
ADM_INLINE void restore_cols(const int scale, double gain, float cos_1deg_sq, int l, int r,
                             const int32_t *restrict oh, const int32_t *restrict ov,
                             const int32_t *restrict od, const int32_t *restrict th,
                             const int32_t *restrict tv, const int32_t *restrict td,
                             int32_t *restrict rh, int32_t *restrict rv, int32_t *restrict rd,
                             int32_t *restrict ah, int32_t *restrict av, int32_t *restrict ad)
{
    for (int j = l; j < r; j++) {
        /* the angle test runs in float/double on values scaled by 1/4096;
         * level 0's products (|x| <= 2^15) and their sums (<= 2^31) are exact
         * in double, so rounding them to float equals rounding the int64 sums */
        float ot_dp, o_mag, t_mag;
        if (scale == 0) {
            ot_dp = (float)((double)oh[j] * th[j] + (double)ov[j] * tv[j]);
            o_mag = (float)((double)oh[j] * oh[j] + (double)ov[j] * ov[j]);
            t_mag = (float)((double)th[j] * th[j] + (double)tv[j] * tv[j]);
        } else {
            ot_dp = (float)((int64_t)oh[j] * th[j] + (int64_t)ov[j] * tv[j]);
            o_mag = (float)((int64_t)oh[j] * oh[j] + (int64_t)ov[j] * ov[j]);
            t_mag = (float)((int64_t)th[j] * th[j] + (int64_t)tv[j] * tv[j]);
        }
        const double dp = ot_dp / 4096.0;
        /* both comparisons evaluated (&, not &&): a loop without branches */
        const int angle =
            (dp >= 0.0f) & (dp * dp >= cos_1deg_sq * (o_mag / 4096.0) * (t_mag / 4096.0));
        const int32_t xh = restored(scale, oh[j], th[j], rh[j], ah[j], angle, gain);
        const int32_t xv = restored(scale, ov[j], tv[j], rv[j], av[j], angle, gain);
        const int32_t xd = restored(scale, od[j], td[j], rd[j], ad[j], angle, gain);
        rh[j] = xh;
        rv[j] = xv;
        rd[j] = xd;
        ah[j] = additive(scale, th[j], xh);
        av[j] = additive(scale, tv[j], xv);
        ad[j] = additive(scale, td[j], xd);
    }
}

ADM_INLINE void decouple_cols(const int scale, const int32_t *div_lookup, double gain, int l,
                              int r, const int32_t *const o[3], const int32_t *const t[3],
                              int32_t *const rst[3], int32_t *const add[3])
{
    for (int b = 0; b < 3; b++)
        ratio_row(scale, div_lookup, l, r, o[b], t[b], rst[b], add[b]);
    restore_cols(scale, gain, adm_cos_1deg_sq(), l, r, o[BAND_H], o[BAND_V], o[BAND_D],
                 t[BAND_H], t[BAND_V], t[BAND_D], rst[BAND_H], rst[BAND_V], rst[BAND_D],
                 add[BAND_H], add[BAND_V], add[BAND_D]);
}

ADM_FP_CLONES static void decouple_row(int scale, const int32_t *div_lookup, double gain, int l,
                                       int r, const int32_t *const o[3],
                                       const int32_t *const t[3], int32_t *const rst[3],
                                       int32_t *const add[3])
{
    if (scale == 0)
        decouple_cols(0, div_lookup, gain, l, r, o, t, rst, add);
    else
        decouple_cols(1, div_lookup, gain, l, r, o, t, rst, add);
}

/* ---------------------------------------------------------------- CSF and masking */

/* The masker's rows for the masking threshold, from one row of its three
 * bands (src; restored or additive part), columns [l, r): csf = band
 * weighted by the CSF; f = sum over the bands of |csf| / 30 (the 3x3
 * neighbourhood's off-centre weight) and c = sum over the bands of |csf| / 15
 * (the centre's). The threshold is a sum over bands and neighbours, so the
 * bands are added first; in uint32, as the int32 sums wrap in libvmaf. */
ADM_INLINE void mask_cols(const int scale, const uint32_t q[3], int l, int r,
                          const int32_t *const src[3], int32_t *restrict f, int32_t *restrict c)
{
    const int32_t *restrict s0 = src[0], *restrict s1 = src[1], *restrict s2 = src[2];
    for (int j = l; j < r; j++) {
        const int32_t x[3] = {s0[j], s1[j], s2[j]};
        uint32_t fs = 0, cs = 0;
        for (int b = 0; b < 3; b++) {
            if (scale == 0) {
                /* Q21 (h, v) or Q23 (d) weight, back to the band's Q */
                static const int sh[3] = {15, 15, 17}, rnd[3] = {16384, 16384, 65535};
                const int16_t v = (int16_t)(((int32_t)q[b] * x[b] + rnd[b]) >> sh[b]);
                const int32_t a = abs(v);
                fs += (uint32_t)(int16_t)((4369 * a + 2048) >> 12); /* 1/30 in Q17 */
                cs += (uint32_t)(int16_t)((8738 * a + 2048) >> 12); /* 1/15 in Q17 */
            } else {
                const int32_t v = (int32_t)(((int64_t)q[b] * x[b] + (1 << 27)) >> 28);
                const int32_t a = abs(v);
                /* 1/30 and 1/15 in Q32; libvmaf's rounding constant 2^31 is
                 * stored in an int32 and so becomes -2^31 */
                fs += (uint32_t)(int32_t)(((int64_t)143165577 * a - ((int64_t)1 << 31)) >> 32);
                cs += (uint32_t)(int32_t)(((int64_t)286331153 * a - ((int64_t)1 << 31)) >> 32);
            }
        }
        f[j] = (int32_t)fs;
        c[j] = (int32_t)cs;
    }
}

ADM_CLONES static void mask_row(int scale, const uint32_t q[3], int l, int r,
                                const int32_t *const src[3], int32_t *f, int32_t *c)
{
    if (scale == 0)
        mask_cols(0, q, l, r, src, f, c);
    else
        mask_cols(1, q, l, r, src, f, c);
}

/* ---------------------------------------------------------------- row sums */

/* Neighbour index with the DWT's border rule: -1 reads 1, n reads n - 1. */
static inline int nb(int i, int n)
{
    return i < 0 ? 1 : (i >= n ? n - 1 : i);
}

/* The denominator's sums of one row of the reference's three detail bands
 * (o), columns [l, r), added to accum (see adm_den_float, adm_level.c). Level 0 sums |x|^3
 * exactly (|x| <= 2^15: x*x fits 32 bits, the cube 45) and rounds the row
 * sum down by row_shift bits; above, every cube is rounded as libvmaf does. */
ADM_CLONES static void den_row(const adm_level *L, const int32_t *const o[3], int64_t accum[3])
{
    for (int b = 0; b < 3; b++) {
        const int32_t *restrict x = o[b];
        uint64_t inner = 0;
        if (L->scale == 0) {
            for (int j = L->sl; j < L->sr; j++) {
                const uint32_t a = (uint16_t)abs(x[j]);
                inner += (uint64_t)(a * a) * a;
            }
        } else {
            const uint32_t sq = L->den_sq, sh_cub = L->den_cub_shift;
            const uint64_t rnd_cub = L->den_cub_round;
            for (int j = L->sl; j < L->sr; j++) {
                const uint64_t a = (uint32_t)abs(x[j]);
                /* rounding constant 2^sq, not 2^(sq-1), as in libvmaf */
                inner += ((((a * a) + ((uint64_t)1 << sq)) >> sq) * a + rnd_cub) >> sh_cub;
            }
        }
        accum[b] = (int64_t)((uint64_t)accum[b] +
                             ((inner + L->den_row_round) >> L->den_row_shift));
    }
}

/* The cubed, masked term of band b at one sample: r the band's value, q its
 * CSF weight, thr the threshold. */
ADM_INLINE int64_t num_term(int scale, int b, uint32_t q, int32_t r, int32_t thr,
                            uint32_t sh_cub, int64_t rnd_cub)
{
    int32_t x, x_sq;
    if (scale == 0) {
        /* x in Q(21|23 + band); thr << 10 (h, v) or 12 (d) brings the threshold
         * to the same Q; both in wrapping int32 */
        const int sub = b == 2 ? 12 : 10, sh_sq = b == 2 ? 30 : 29;
        const int32_t xv = (int32_t)((uint32_t)r * q);
        x = (int32_t)((uint32_t)abs(xv) - ((uint32_t)thr << sub));
        x = x < 0 ? 0 : x;
        x_sq = (int32_t)(((int64_t)x * x + ((int64_t)1 << (sh_sq - 1))) >> sh_sq);
    } else {
        const int32_t xv = (int32_t)(((int64_t)r * q + (1 << 27)) >> 28);
        x = abs(xv) - thr;
        x = x < 0 ? 0 : x;
        x_sq = (int32_t)(((int64_t)x * x + (1 << 29)) >> 30);
    }
    return ((int64_t)x_sq * x + rnd_cub) >> sh_cub;
}

/* The numerator's sums of one row over the scored columns into inner[3]:
 * x the row of the three bands scored, fm / f0 / fp the masker's f rows above,
 * at and below (mirrored at the band's edges, one column of padding each
 * side), c its centre row. The threshold of a sample is the 3x3
 * neighbourhood of f without its centre, plus c. */
ADM_INLINE void num_cols(const int scale, const adm_level *L, const int32_t *const x[3],
                         const int32_t *fm, const int32_t *f0, const int32_t *fp,
                         const int32_t *c, int64_t inner[3])
{
    const int32_t *restrict x0 = x[0], *restrict x1 = x[1], *restrict x2 = x[2];
    const int32_t *restrict m = fm, *restrict z = f0, *restrict p = fp, *restrict cc = c;
    const uint32_t q0 = L->q[0], q1 = L->q[1], q2 = L->q[2];
    const uint32_t h0 = L->num_cub_shift[0], h1 = L->num_cub_shift[1], h2 = L->num_cub_shift[2];
    const int64_t r0 = L->num_cub_round[0], r1 = L->num_cub_round[1], r2 = L->num_cub_round[2];
    int64_t s0 = 0, s1 = 0, s2 = 0;
    for (int j = L->sl; j < L->sr; j++) {
        const uint32_t t = (uint32_t)m[j - 1] + (uint32_t)m[j] + (uint32_t)m[j + 1] +
                           (uint32_t)z[j - 1] + (uint32_t)z[j + 1] + (uint32_t)p[j - 1] +
                           (uint32_t)p[j] + (uint32_t)p[j + 1] + (uint32_t)cc[j];
        const int32_t thr = (int32_t)t;
        s0 += num_term(scale, 0, q0, x0[j], thr, h0, r0);
        s1 += num_term(scale, 1, q1, x1[j], thr, h1, r1);
        s2 += num_term(scale, 2, q2, x2[j], thr, h2, r2);
    }
    inner[0] = s0;
    inner[1] = s1;
    inner[2] = s2;
}

/* One row's numerator sums, each rounded and added to accum (see adm_num_float, adm_level.c). */
ADM_CLONES static void num_row(const adm_level *L, const int32_t *const x[3], const int32_t *fm,
                               const int32_t *f0, const int32_t *fp, const int32_t *c,
                               int64_t accum[3])
{
    int64_t inner[3];
    if (L->scale == 0)
        num_cols(0, L, x, fm, f0, fp, c, inner);
    else
        num_cols(1, L, x, fm, f0, fp, c, inner);
    for (int b = 0; b < 3; b++)
        accum[b] += (inner[b] + L->num_row_round) >> L->num_row_shift;
}

/* ---------------------------------------------------------------- API */

int adm_open(adm_state **out, const adm_params *p)
{
    *out = NULL;
    if (p->width < ADM_MIN_DIM || p->height < ADM_MIN_DIM || p->width > FOVEA_MAX_DIM ||
        p->height > FOVEA_MAX_DIM)
        return FOVEA_ERR_INVALID_ARG;
    if (p->bpc != 8 && p->bpc != 10 && p->bpc != 12 && p->bpc != 16)
        return FOVEA_ERR_INVALID_ARG;
    if (!(p->enhn_gain_limit >= 1.0 && p->enhn_gain_limit <= 100.0) ||
        !(p->norm_view_dist >= 0.75 && p->norm_view_dist <= 24.0) ||
        p->ref_display_height < 1 || p->ref_display_height > 4320)
        return FOVEA_ERR_INVALID_ARG;
    /* libvmaf refuses angular frequencies below 1080p at 3H (its 16-bit level-0
     * pipeline would overflow) */
    if (p->norm_view_dist * p->ref_display_height < 3.0 * 1080)
        return FOVEA_ERR_INVALID_ARG;

    adm_state *st = calloc(1, sizeof(*st));
    if (!st)
        return FOVEA_ERR_NOMEM;
    st->p = *p;
    st->bw = (p->width + 1) / 2;
    st->bh = (p->height + 1) / 2;
    st->stride = st->bw;
    const size_t plane = (size_t)st->bw * (size_t)st->bh; /* < 2^26: no overflow */
    const size_t n32 = 4 * plane + 65537;
    const size_t nint = 4 * (size_t)(st->bw + st->bh);
    st->mem = calloc(n32 * sizeof(int32_t) + nint * sizeof(int), 1);
    if (!st->mem) {
        free(st);
        return FOVEA_ERR_NOMEM;
    }
    int32_t *m = st->mem;
    for (int s = 0; s < 2; s++)
        for (int pp = 0; pp < 2; pp++, m += plane)
            st->band_a[s][pp] = m;
    st->div_lookup = m;
    m += 65537;
    int *ip = (int *)m;
    for (int k = 0; k < 4; k++) {
        st->ind_y[k] = ip;
        ip += st->bh;
        st->ind_x[k] = ip;
        ip += st->bw;
    }
    /* reciprocals in Q30, truncated; entry 32768 + i for i = -32768..32768 */
    for (int i = 1; i <= 32768; i++) {
        st->div_lookup[32768 + i] = (int32_t)(1073741824 / i);
        st->div_lookup[32768 - i] = -(int32_t)(1073741824 / i);
    }
    if (adm_reserve_threads(st, 1) < 0) {
        adm_close(&st);
        return FOVEA_ERR_NOMEM;
    }
    *out = st;
    return FOVEA_OK;
}

void adm_close(adm_state **st)
{
    if (!st || !*st)
        return;
    free((*st)->mem);
    free((*st)->thr);
    free((*st)->thr_mem);
    free(*st);
    *st = NULL;
}

void adm_compute(adm_state *st, const uint8_t *ref, ptrdiff_t ref_stride, const uint8_t *dis,
                 ptrdiff_t dis_stride, adm_result *out)
{
    adm_raw raw;
    adm_compute_raw(st, NULL, ref, ref_stride, dis, dis_stride, &raw);
    adm_derive(&raw, st->p.width, st->p.height, out);
}

/* One level's pass over band rows, run on the context's threads. */
typedef struct adm_job {
    adm_state *st;
    adm_level L;
    int sw;                       /* the level's input width */
    const uint8_t *src8[2];       /* level 0: the frames (ref, dis) */
    ptrdiff_t stride8[2];
    const int32_t *src32[2];      /* above: the previous approximation bands */
    int32_t *out_a[2];            /* the approximation bands written (NULL at the last level) */
    adm_dwt_round vr, hr;
} adm_job;

/* The DWT of band row p of ref (s = 0) or dis (s = 1) into t->band[s]; the
 * approximation row goes to the plane when `keep`. */
static void dwt_row(const adm_job *j, adm_thread *t, int s, int p, int keep)
{
    const adm_state *st = j->st;
    const uint8_t *r8[4] = {NULL, NULL, NULL, NULL};
    const int32_t *r32[4] = {NULL, NULL, NULL, NULL};
    for (int k = 0; k < 4; k++) {
        const ptrdiff_t row = st->ind_y[k][p];
        if (j->L.scale == 0)
            r8[k] = j->src8[s] + row * j->stride8[s];
        else
            r32[k] = j->src32[s] + row * st->stride;
    }
    int32_t *a = keep && j->out_a[s] ? j->out_a[s] + p * st->stride : t->band[s][BAND_A];
    dwt_vertical(j->L.scale, st->p.bpc, r8, r32, j->sw, &j->vr, t->lo[s], t->hi[s]);
    dwt_horizontal(j->L.scale, st->ind_x, t->lo[s], t->hi[s], j->sw, &j->hr, a,
                   t->band[s][BAND_V], t->band[s][BAND_H], t->band[s][BAND_D]);
}

/* The numerator sums of scored row i (DLM: the restored part masked by the
 * additive one; AIM: the reverse). The rows i - 1, i, i + 1 (mirrored) are
 * the last three computed. */
static void num_at(const adm_job *j, adm_thread *t, int i)
{
    const int h = j->L.h;
    const int rm = nb(i - 1, h) % 3, r0 = i % 3, rp = nb(i + 1, h) % 3;
    for (int x = 0; x < 2; x++) {
        const int m = 1 - x; /* the masker */
        const int32_t *xr[3] = {t->x[x][0][i & 1], t->x[x][1][i & 1], t->x[x][2][i & 1]};
        num_row(&j->L, xr, t->f[m][rm], t->f[m][r0], t->f[m][rp], t->c[m][i & 1],
                t->acc + 3 + 3 * x);
    }
}

/* Band rows [i0, i1) of a level: their approximation rows, and the den and
 * numerator sums of the scored rows among them. The rows next to the range
 * that the masking needs are computed again here rather than shared. */
static void level_rows(void *arg, int i0, int i1, int thread)
{
    const adm_job *j = arg;
    adm_state *st = j->st;
    const adm_level *L = &j->L;
    adm_thread *t = &st->thr[thread];
    const int w = L->w, h = L->h;
    /* scored rows [n0, n1); masked rows [m0, m1]; computed rows [p0, p1) */
    const int n0 = L->st > i0 ? L->st : i0, n1 = L->sb < i1 ? L->sb : i1;
    int p0 = i0, p1 = i1, m0 = 0, m1 = -1;
    if (n0 < n1) {
        m0 = n0 > 0 ? n0 - 1 : 0;
        m1 = n1 < h ? n1 : h - 1;
        if (m1 < 1)
            m1 = 1; /* row 0 reads row 1 above it */
        p0 = p0 < m0 ? p0 : m0;
        p1 = p1 > m1 + 1 ? p1 : m1 + 1;
    }
    /* masked columns [cl, cr): the scored ones and their neighbours */
    const int cl = L->sl > 0 ? L->sl - 1 : 0, cr = L->sr < w ? L->sr + 1 : w;
    for (int p = p0; p < p1; p++) {
        const int keep = p >= i0 && p < i1;
        dwt_row(j, t, 0, p, keep);
        dwt_row(j, t, 1, p, keep);
        if (p >= m0 && p <= m1) {
            int32_t *rst[3], *add[3];
            for (int b = 0; b < 3; b++) {
                rst[b] = t->x[0][b][p & 1];
                add[b] = t->x[1][b][p & 1];
            }
            decouple_row(L->scale, st->div_lookup, st->p.enhn_gain_limit, cl, cr,
                         (const int32_t *const *)t->band[0], (const int32_t *const *)t->band[1],
                         rst, add);
            if (p >= n0 && p < n1)
                den_row(L, (const int32_t *const *)t->band[0], t->acc);
            for (int m = 0; m < 2; m++) {
                int32_t *f = t->f[m][p % 3], *c = t->c[m][p & 1];
                mask_row(L->scale, L->q, cl, cr, (const int32_t *const *)(m ? add : rst), f, c);
                /* the border rule of the neighbourhood: -1 reads 1, w reads w - 1 */
                if (L->sl == 0)
                    f[-1] = f[1];
                if (L->sr == w)
                    f[w] = f[w - 1];
            }
        }
        if (p - 1 >= n0 && p - 1 < n1)
            num_at(j, t, p - 1);
    }
    if (n0 < n1 && n1 == p1)
        num_at(j, t, n1 - 1); /* the band's last row: its row below is itself */
}

/* Per-thread rows, in int32 elements: lo/hi (4 x width), band rows (8),
 * decoupled rows (12), f rings (6, padded by 2), c rows (4). */
static size_t thread_elems(const adm_state *st)
{
    const size_t wi = ((size_t)st->p.width + 15) & ~(size_t)15;
    const size_t wb = ((size_t)st->bw + 2 + 15) & ~(size_t)15;
    return 4 * wi + (8 + 12 + 6 + 4) * wb;
}

int adm_reserve_threads(adm_state *st, int n)
{
    if (n < 1)
        n = 1;
    if (n <= st->nthr)
        return FOVEA_OK;
    const size_t wi = ((size_t)st->p.width + 15) & ~(size_t)15;
    const size_t wb = ((size_t)st->bw + 2 + 15) & ~(size_t)15;
    const size_t per = thread_elems(st); /* < 2^20 */
    adm_thread *thr = calloc((size_t)n, sizeof(*thr));
    int32_t *mem = malloc((size_t)n * per * sizeof(int32_t) + 64);
    if (!thr || !mem) {
        free(thr);
        free(mem);
        return FOVEA_ERR_NOMEM;
    }
    int32_t *m = (int32_t *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    for (int i = 0; i < n; i++) {
        adm_thread *t = &thr[i];
        for (int s = 0; s < 2; s++) {
            t->lo[s] = m;
            t->hi[s] = m + wi;
            m += 2 * wi;
        }
        for (int s = 0; s < 2; s++)
            for (int b = 0; b < NBANDS; b++, m += wb)
                t->band[s][b] = m;
        for (int x = 0; x < 2; x++)
            for (int b = 0; b < 3; b++)
                for (int r = 0; r < 2; r++, m += wb)
                    t->x[x][b][r] = m;
        for (int x = 0; x < 2; x++)
            for (int r = 0; r < 3; r++, m += wb)
                t->f[x][r] = m + 1;
        for (int x = 0; x < 2; x++)
            for (int r = 0; r < 2; r++, m += wb)
                t->c[x][r] = m;
    }
    free(st->thr);
    free(st->thr_mem);
    st->thr = thr;
    st->thr_mem = mem;
    st->nthr = n;
    return FOVEA_OK;
}

void adm_compute_raw(adm_state *st, fovea_context *ctx, const uint8_t *ref, ptrdiff_t ref_stride,
                     const uint8_t *dis, ptrdiff_t dis_stride, adm_raw *out)
{
    /* without scratch for every thread of ctx: on the calling thread */
    if (fv_threadpool_size(ctx ? ctx->pool : NULL) > st->nthr)
        ctx = NULL;
    int w = st->p.width, h = st->p.height;
    adm_job j;
    memset(&j, 0, sizeof(j));
    j.st = st;
    j.src8[0] = ref;
    j.src8[1] = dis;
    j.stride8[0] = ref_stride;
    j.stride8[1] = dis_stride;
    for (int scale = 0; scale < ADM_SCALES; scale++) {
        dwt_indices(st->ind_y, h);
        dwt_indices(st->ind_x, w);
        adm_level_setup(&st->p, scale, &j.L);
        adm_dwt_rounding(st->p.bpc, scale, &j.vr, &j.hr);
        j.sw = w;
        /* level s reads the approximation written by level s - 1 (buffer
         * (s - 1) & 1) and writes the other; the last level's is not needed */
        for (int s = 0; s < 2; s++) {
            j.src32[s] = scale > 0 ? st->band_a[s][(scale - 1) & 1] : NULL;
            j.out_a[s] = scale < ADM_SCALES - 1 ? st->band_a[s][scale & 1] : NULL;
        }
        for (int t = 0; t < st->nthr; t++)
            memset(st->thr[t].acc, 0, sizeof(st->thr[t].acc));
        /* chunks of at least 16 rows: each recomputes about 2 rows of its
         * neighbours */
        fv_parallel_for(ctx, j.L.h, 16, level_rows, &j);
        int64_t sums[9] = {0};
        for (int t = 0; t < st->nthr; t++)
            for (int k = 0; k < 9; k++) /* integer sums: the same for any split */
                sums[k] = (int64_t)((uint64_t)sums[k] + (uint64_t)st->thr[t].acc[k]);
        w = j.L.w;
        h = j.L.h;
        out->den[scale] = adm_den_float(&st->p, scale, sums);
        /* DLM: the restored part, masked by the additive part; AIM: the
         * additive part, masked by the restored part, no noise floor */
        out->num[scale] = adm_num_float(&st->p, scale, sums + 3, ADM_NOISE_WEIGHT);
        out->aim_num[scale] = adm_num_float(&st->p, scale, sums + 6, 0.0);
    }
}

