/* C reference of libvmaf's integer ADM (DLM and AIM): a 4-level db2 DWT, the
 * decoupling of the distorted bands into restored and additive parts, CSF
 * weighting, contrast masking and cube sums, in libvmaf's fixed-point
 * arithmetic. docs/quality.md ("Integer ADM") explains every step; each shift,
 * rounding and cast below is libvmaf's, including its wrap-arounds. */
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
#define ADM_BORDER_FACTOR 0.1
#define ADM_DLM_WEIGHT 0.5       /* adm_dlm_weight: integer_adm3 = mix of DLM and 1 - AIM */

/* db2 analysis filters in Q15 (the low-pass taps sum to 46342 = sqrt(2) * 2^15). */
static const int32_t db2_lo[4] = {15826, 27411, 7345, -4240};
static const int32_t db2_hi[4] = {-4240, -7345, 27411, -15826};
#define DB2_LO_SUM 46342

/* Band order: the three detail bands as libvmaf's theta (0 = h, 1 = v, 2 = d),
 * then the approximation. h is vertical high-pass + horizontal low-pass, v the
 * reverse, d high-pass both ways, a low-pass both ways. */
enum { BAND_H, BAND_V, BAND_D, BAND_A, NBANDS };

struct adm_state {
    adm_params p;
    int bw, bh;       /* band size of the first level (every level fits in it) */
    ptrdiff_t stride; /* elements, of every band plane */
    int32_t *ref[NBANDS], *dis[NBANDS];
    int32_t *rst[3], *add[3]; /* decoupled: restored and additive parts */
    int32_t *csf[3], *flt[3]; /* a CSF-weighted band and its |x|/30 */
    int32_t *band_a[2][2];    /* [ref, dis][ping, pong]: the approximation band of a
                                 level is read by the next one, which writes the other */
    int *ind_y[4], *ind_x[4]; /* DWT source rows/columns of each output row/column */
    int32_t *div_lookup;      /* 65537 entries: 2^30 / (i - 32768) */
    void *mem;
    /* per thread of the context computing: 4 vertical-pass rows of width
     * (ref lo, ref hi, dis lo, dis hi) and the row sums' partial accumulators */
    int nthr;
    int32_t *thr_rows;
    int64_t *thr_acc;         /* THR_ACC per thread (3 used; the rest keeps threads
                                 off each other's cache lines) */
};

#define THR_ACC 8

void adm_default_params(adm_params *p, int width, int height, int bpc)
{
    memset(p, 0, sizeof(*p));
    p->width = width;
    p->height = height;
    p->bpc = bpc;
    p->enhn_gain_limit = 100.0;
    p->norm_view_dist = 3.0;
    p->ref_display_height = 1080;
}

/* ---------------------------------------------------------------- CSF factors */

/* Watson et al. 1997 ("Visibility of wavelet quantization noise") threshold
 * model for luma, as libvmaf tabulates it (floats). */
static const float watson_a = 0.495f, watson_k = 0.466f, watson_f0 = 0.401f;
static const float watson_g[4] = {1.501f, 1.0f, 0.534f, 1.0f};
static const float watson_amp[6][4] = {
    {0.62171f, 0.67234f, 0.72709f, 0.67234f},     {0.34537f, 0.41317f, 0.49428f, 0.41317f},
    {0.18004f, 0.22727f, 0.28688f, 0.22727f},     {0.091401f, 0.11792f, 0.15214f, 0.11792f},
    {0.045943f, 0.059758f, 0.077727f, 0.059758f}, {0.023013f, 0.030018f, 0.039156f, 0.030018f}};

/* Quantization step of level lambda, orientation theta (1 = h/v, 2 = d), with
 * libvmaf's mix of float and double steps. */
static float quant_step(int lambda, int theta, double nvd, int rdh)
{
    float r = (float)(nvd * rdh * ADM_PI / 180.0); /* display resolution, pixels/degree */
    float temp = (float)log10(pow(2.0, lambda + 1) * watson_f0 * watson_g[theta] / r);
    return (float)(2.0 * watson_a * pow(10.0, watson_k * temp * temp) /
                   watson_amp[lambda][theta]);
}

/* The CSF weight of the h/v bands (rf[0], rf[1]) and the d band (rf[2]). */
static void csf_factors(const adm_params *p, int scale, float rf[3])
{
    rf[0] = rf[1] = 1.0f / quant_step(scale, 1, p->norm_view_dist, p->ref_display_height);
    rf[2] = 1.0f / quant_step(scale, 2, p->norm_view_dist, p->ref_display_height);
}

/* Level 0 uses the weights in Q21 (h, v) and Q23 (d) as uint16; libvmaf
 * hard-codes the default viewing condition's values. */
static void csf_factors_q0(const adm_params *p, uint32_t q[3])
{
    if (fabs(p->norm_view_dist * p->ref_display_height - 3.0 * 1080) < 1.0e-8) {
        q[0] = q[1] = 36453;
        q[2] = 49417;
        return;
    }
    float rf[3];
    csf_factors(p, 0, rf);
    q[0] = (uint16_t)(rf[0] * pow(2, 21));
    q[1] = (uint16_t)(rf[1] * pow(2, 21));
    q[2] = (uint16_t)(rf[2] * pow(2, 23));
}

/* Levels 1..3 use them in Q32 (uint32). */
static void csf_factors_q32(const adm_params *p, int scale, uint32_t q[3])
{
    float rf[3];
    csf_factors(p, scale, rf);
    for (int t = 0; t < 3; t++)
        q[t] = (uint32_t)(rf[t] * pow(2, 32));
}

/* ---------------------------------------------------------------- regions */

/* The region scored at a level: 10% of each side left out (truncated). */
static void score_region(int w, int h, int *l, int *t, int *r, int *b)
{
    *l = (int)(w * ADM_BORDER_FACTOR - 0.5);
    *t = (int)(h * ADM_BORDER_FACTOR - 0.5);
    *r = w - *l;
    *b = h - *t;
}

/* The region the decoupling and the CSF fill: the scored one plus a margin for
 * the masking filter's 3x3 neighbourhood, clipped to the band. */
static void work_region(int w, int h, int *l, int *t, int *r, int *b)
{
    int left = (int)(w * ADM_BORDER_FACTOR - 0.5 - 1);
    int top = (int)(h * ADM_BORDER_FACTOR - 0.5 - 1);
    int right = w - left + 2;
    int bottom = h - top + 2;
    *l = left < 0 ? 0 : left;
    *t = top < 0 ? 0 : top;
    *r = right > w ? w : right;
    *b = bottom > h ? h : bottom;
}

/* Restrict the rows [*top, *bottom) of a region to a thread's rows [i0, i1). */
static void clip_rows(int *top, int *bottom, int i0, int i1)
{
    if (*top < i0)
        *top = i0;
    if (*bottom > i1)
        *bottom = i1;
}

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

/* Rounding of the two passes: (sum - sub + add) >> shift. */
typedef struct dwt_round {
    int64_t sub, add;
    int shift;
} dwt_round;

/* The vertical (vr) and horizontal (hr) rounding of level `scale`. */
static void dwt_rounding(int bpc, int scale, dwt_round *vr, dwt_round *hr)
{
    if (scale == 0) {
        /* The samples are centred (x - 2^(bpc-1), folded into the low-pass
         * sum) and scaled by 2^-bpc vertically and 2^-16 horizontally, so every
         * bit depth gives bands of the same scale. */
        vr->add = (int64_t)1 << (bpc - 1);
        vr->sub = (int64_t)DB2_LO_SUM * vr->add;
        vr->shift = bpc;
        hr->sub = 0;
        hr->add = 32768;
        hr->shift = 16;
    } else {
        static const int vadd[3] = {0, 32768, 32768}, vsh[3] = {0, 16, 16};
        static const int hadd[3] = {16384, 32768, 16384}, hsh[3] = {15, 16, 15};
        vr->sub = 0;
        vr->add = vadd[scale - 1];
        vr->shift = vsh[scale - 1];
        hr->sub = 0;
        hr->add = hadd[scale - 1];
        hr->shift = hsh[scale - 1];
    }
}

/* The integer loops below are compiled for AVX-512, AVX2 and the baseline and
 * picked at run time, as VIF's (plain C, vectorized by the compiler); they
 * hold no floating point. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__)
#define ADM_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define ADM_CLONES
#endif

/* The vertical pass of one output row from its four source rows (r8: level
 * 0's samples, r32: the previous approximation band above), every column:
 * lo = (sum_k lo_k * s_k - sub + add) >> shift, hi = (sum_k hi_k * s_k + add)
 * >> shift. Level 0 keeps int16 results, as libvmaf does. At 8 bits the sums
 * (< 2^24) are exact in 32 bits; above, 64 bits. */
ADM_CLONES static void dwt_vertical(int scale, int bpc, const uint8_t *const r8[4],
                                    const int32_t *const r32[4], int w, const dwt_round *vr,
                                    int32_t *lo, int32_t *hi)
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
                            int j, const dwt_round *hr, int32_t *a, int32_t *v, int32_t *h,
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
ADM_CLONES static void dwt_horizontal(int scale, int *const ind[4], const int32_t *lo,
                                      const int32_t *hi, int w, const dwt_round *hr,
                                      int32_t *a, int32_t *v, int32_t *h, int32_t *d)
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

/* One DWT level of a w x h image (level 0: the input samples; above: the
 * previous level's approximation band) into the four (w+1)/2 x (h+1)/2
 * bands, output rows [i0, i1). Level 0 keeps every intermediate and result
 * in int16 as libvmaf does; the levels above keep int32. */
static void dwt_level(adm_state *st, int scale, const uint8_t *src8, ptrdiff_t src_stride,
                      const int32_t *src32, int w, int i0, int i1, int32_t *lo, int32_t *hi,
                      int32_t *const out[NBANDS])
{
    const int bpc = st->p.bpc;
    dwt_round vr, hr;
    dwt_rounding(bpc, scale, &vr, &hr);
    for (int i = i0; i < i1; i++) {
        const uint8_t *r8[4] = {NULL, NULL, NULL, NULL};
        const int32_t *r32[4] = {NULL, NULL, NULL, NULL};
        for (int k = 0; k < 4; k++) {
            const int row = st->ind_y[k][i];
            if (scale == 0)
                r8[k] = src8 + row * src_stride;
            else
                r32[k] = src32 + row * st->stride;
        }
        dwt_vertical(scale, bpc, r8, r32, w, &vr, lo, hi);
        const ptrdiff_t at = i * st->stride;
        dwt_horizontal(scale, st->ind_x, lo, hi, w, &hr, out[BAND_A] + at, out[BAND_V] + at,
                       out[BAND_H] + at, out[BAND_D] + at);
    }
}

/* ---------------------------------------------------------------- decoupling */

/* k = clamp(t / o, 0, 1) in Q15 through libvmaf's reciprocal table. Level 0
 * indexes the table with o itself (|o| <= 32768); above, o is first rounded to
 * its 15 leading bits and the shift undone after the multiply. */
static int64_t ratio_q15(const int32_t *div_lookup, int scale, int32_t o, int32_t t)
{
    if (o == 0)
        return 32768;
    int64_t k;
    if (scale == 0) {
        k = (int32_t)(((int64_t)div_lookup[o + 32768] * t + 16384) >> 15);
    } else {
        uint32_t ao = o < 0 ? 0u - (uint32_t)o : (uint32_t)o;
        int sh = 0;
        uint32_t m = ao;
        if (ao >= 32768) {
            sh = 17 - __builtin_clz(ao);
            m = (ao + (1u << (sh - 1))) >> sh;
        }
        k = ((int64_t)div_lookup[m + 32768] * t * (o < 0 ? -1 : 1) + ((int64_t)1 << (14 + sh))) >>
            (15 + sh);
    }
    return k < 0 ? 0 : (k > 32768 ? 32768 : k);
}

/* Split each distorted detail coefficient t into the part explained by the
 * reference o (restored: k*o, k = t/o clamped to [0,1]) and the rest
 * (additive: t - restored). Where (oh,ov) and (th,tv) point within 1 degree
 * of each other, an enhancement (|t| > |o|) is restored up to
 * enhn_gain_limit * k*o. */
float adm_cos_1deg_sq(void)
{
    return (float)(cos(ADM_PI / 180.0) * cos(ADM_PI / 180.0));
}

static void decouple(adm_state *st, int scale, int w, int h, int i0, int i1)
{
    const float cos_1deg_sq = adm_cos_1deg_sq();
    const double gain = st->p.enhn_gain_limit;
    int left, top, right, bottom;
    work_region(w, h, &left, &top, &right, &bottom);
    clip_rows(&top, &bottom, i0, i1);
    for (int i = top; i < bottom; i++) {
        for (int j = left; j < right; j++) {
            const ptrdiff_t at = i * st->stride + j;
            int32_t o[3], t[3];
            for (int b = 0; b < 3; b++) {
                o[b] = st->ref[b][at];
                t[b] = st->dis[b][at];
            }
            /* the angle test runs in float/double on values scaled by 1/4096 */
            int64_t ot_dp = (int64_t)o[BAND_H] * t[BAND_H] + (int64_t)o[BAND_V] * t[BAND_V];
            int64_t o_mag = (int64_t)o[BAND_H] * o[BAND_H] + (int64_t)o[BAND_V] * o[BAND_V];
            int64_t t_mag = (int64_t)t[BAND_H] * t[BAND_H] + (int64_t)t[BAND_V] * t[BAND_V];
            double dp = (float)ot_dp / 4096.0;
            int angle_flag = dp >= 0.0f && dp * dp >= cos_1deg_sq * ((float)o_mag / 4096.0) *
                                                           ((float)t_mag / 4096.0);
            for (int b = 0; b < 3; b++) {
                int64_t k = ratio_q15(st->div_lookup, scale, o[b], t[b]);
                int64_t r = (k * o[b] + 16384) >> 15;
                r = scale == 0 ? (int16_t)r : (int32_t)r;
                /* libvmaf tests the sign of k*o as a float product: k > 0 and o's sign */
                if (angle_flag && k > 0 && o[b] != 0) {
                    double g = (double)r * gain;
                    double v;
                    if (o[b] > 0)
                        v = g < t[b] ? g : (double)t[b];
                    else
                        v = g > t[b] ? g : (double)t[b];
                    r = scale == 0 ? (int16_t)v : (int32_t)v; /* truncation toward 0 */
                }
                int64_t a = (int64_t)t[b] - r;
                st->rst[b][at] = (int32_t)r;
                st->add[b][at] = scale == 0 ? (int16_t)a : (int32_t)a;
            }
        }
    }
}

/* ---------------------------------------------------------------- CSF */

/* csf = band weighted by the CSF; flt = |csf| / 30, the masking filter's
 * off-centre contribution. Over the work region. */
static void csf_bands(adm_state *st, int scale, int w, int h, int32_t *const src[3], int i0,
                      int i1)
{
    int left, top, right, bottom;
    work_region(w, h, &left, &top, &right, &bottom);
    clip_rows(&top, &bottom, i0, i1);
    uint32_t q[3];
    if (scale == 0)
        csf_factors_q0(&st->p, q);
    else
        csf_factors_q32(&st->p, scale, q);
    for (int b = 0; b < 3; b++) {
        for (int i = top; i < bottom; i++) {
            for (int j = left; j < right; j++) {
                const ptrdiff_t at = i * st->stride + j;
                if (scale == 0) {
                    /* Q21 (h, v) or Q23 (d) weight, back to the band's Q */
                    static const int sh[3] = {15, 15, 17}, rnd[3] = {16384, 16384, 65535};
                    int16_t c = (int16_t)(((int32_t)q[b] * src[b][at] + rnd[b]) >> sh[b]);
                    st->csf[b][at] = c;
                    st->flt[b][at] = (int16_t)((4369 * abs(c) + 2048) >> 12); /* 1/30 in Q17 */
                } else {
                    int32_t c = (int32_t)(((int64_t)q[b] * src[b][at] + (1 << 27)) >> 28);
                    st->csf[b][at] = c;
                    /* 1/30 in Q32; libvmaf's rounding constant 2^31 is stored in
                     * an int32 and so becomes -2^31 */
                    st->flt[b][at] =
                        (int32_t)(((int64_t)143165577 * abs(c) - ((int64_t)1 << 31)) >> 32);
                }
            }
        }
    }
}

/* ---------------------------------------------------------------- sums */

static uint32_t ceil_log2(double v)
{
    return (uint32_t)ceil(log2(v));
}

/* Denominator of a level: sum over the scored region of |ref band|^3 weighted
 * by the CSF cubed, one cube root per band plus the noise floor; in two
 * steps, the row sums (den_rows) and the floats (den_level). */
/* The shifts of the denominator's sums at level 0: the cubes of a row are
 * summed exactly, each row sum rounded down by sh bits. */
static int32_t den_shift0(int w, int h)
{
    int left, top, right, bottom;
    score_region(w, h, &left, &top, &right, &bottom);
    int32_t sh = (int32_t)ceil(log2((bottom - top) * (right - left)) - 20);
    return sh > 0 ? sh : 0;
}

/* Levels 1..3 square |x| in Q(2 band - sq) with these sq. */
static const uint32_t den_sh_sq[3] = {31, 30, 31};

/* Denominator sums of the rows [i0, i1) of the scored region, added to
 * accum (integer sums: any split of the rows gives the same totals). */
static void den_rows(adm_state *st, int scale, int w, int h, int i0, int i1, int64_t accum[3])
{
    int left, top, right, bottom;
    score_region(w, h, &left, &top, &right, &bottom);
    const int rows = bottom - top;
    clip_rows(&top, &bottom, i0, i1);
    if (scale == 0) {
        const int32_t sh = den_shift0(w, h);
        uint64_t rnd = sh > 0 ? (uint64_t)1 << (sh - 1) : 0;
        for (int b = 0; b < 3; b++) {
            for (int i = top; i < bottom; i++) {
                uint64_t inner = 0;
                for (int j = left; j < right; j++) {
                    uint64_t x = (uint16_t)abs(st->ref[b][i * st->stride + j]);
                    inner += x * x * x;
                }
                accum[b] = (int64_t)((uint64_t)accum[b] + ((inner + rnd) >> sh));
            }
        }
    } else {
        const uint32_t sq = den_sh_sq[scale - 1];
        const uint32_t sh_cub = ceil_log2(right - left), sh_acc = ceil_log2(rows);
        const uint64_t rnd_cub = (uint32_t)pow(2, sh_cub - 1);
        const uint64_t rnd_acc = (uint32_t)pow(2, sh_acc - 1);
        for (int b = 0; b < 3; b++) {
            for (int i = top; i < bottom; i++) {
                uint64_t inner = 0;
                for (int j = left; j < right; j++) {
                    uint64_t x = (uint32_t)abs(st->ref[b][i * st->stride + j]);
                    /* rounding constant 2^sq, not 2^(sq-1), as in libvmaf */
                    inner += ((((x * x) + ((uint64_t)1 << sq)) >> sq) * x + rnd_cub) >> sh_cub;
                }
                accum[b] = (int64_t)((uint64_t)accum[b] + ((inner + rnd_acc) >> sh_acc));
            }
        }
    }
}

/* Denominator of a level from its sums (den_rows over every row): one cube
 * root per band, CSF-weighted, plus the noise floor. */
static float den_level(const adm_params *p, int scale, int w, int h, const int64_t sums[3])
{
    int left, top, right, bottom;
    score_region(w, h, &left, &top, &right, &bottom);
    float rf[3];
    csf_factors(p, scale, rf);
    uint64_t accum[3];
    for (int b = 0; b < 3; b++)
        accum[b] = (uint64_t)sums[b];
    double shift_csf;
    if (scale == 0) {
        shift_csf = pow(2, 18 - den_shift0(w, h));
    } else {
        static const uint32_t to_float[3] = {32, 27, 23};
        const uint32_t sh_cub = ceil_log2(right - left), sh_acc = ceil_log2(bottom - top);
        shift_csf = pow(2, (uint32_t)(to_float[scale - 1] - sh_acc - sh_cub));
    }
    const float noise =
        powf((float)((bottom - top) * (right - left) * ADM_NOISE_WEIGHT), 1.0f / 3.0f);
    float d[3];
    for (int b = 0; b < 3; b++) {
        double c = (double)(accum[b] / shift_csf) * pow(rf[b], 3);
        d[b] = powf((float)c, 1.0f / 3.0f) + noise;
    }
    return d[0] + d[1] + d[2];
}

/* Neighbour index with the DWT's border rule: -1 reads 1, n reads n - 1. */
static inline int nb(int i, int n)
{
    return i < 0 ? 1 : (i >= n ? n - 1 : i);
}

/* Numerator of a level: the CSF-weighted band x (restored part for DLM,
 * additive part for AIM) less the contrast masking threshold (the 3x3
 * neighbourhood of the masker's |csf|/30, centre |csf|/15, summed over the
 * three orientations), clipped at 0 and cubed, summed over the scored region;
 * one cube root per band plus the noise floor (noise_weight 0 for AIM). In
 * two steps as the denominator: num_rows, num_level. */
/* The shift of the cubes of each band (sh_cub) and of the row sums
 * (returned) of a level's numerator. */
static uint32_t num_shifts(int scale, int w, int h, uint32_t sh_cub[3])
{
    if (scale == 0) {
        sh_cub[0] = sh_cub[1] = (uint32_t)ceil(log2(w) - 4);
        sh_cub[2] = (uint32_t)ceil(log2(w) - 3);
    } else {
        sh_cub[0] = sh_cub[1] = sh_cub[2] = ceil_log2(w);
    }
    return ceil_log2(h);
}

#if defined(__GNUC__)
#define ADM_INLINE static inline __attribute__((always_inline))
#else
#define ADM_INLINE static inline
#endif

/* The masking threshold at column j of a row (jm, jp: its neighbours, mirrored
 * at the edges): per band the 3x3 neighbourhood of |csf|/30 (flt; rows fm,
 * f0, fp) without its centre, plus |csf|/15 at the centre; summed over the
 * three bands. */
ADM_INLINE int32_t mask_threshold(int scale, const int32_t *const fm[3],
                                  const int32_t *const f0[3], const int32_t *const fp[3],
                                  const int32_t *const c[3], int jm, int j, int jp)
{
    int32_t thr = 0;
    for (int b = 0; b < 3; b++) {
        int32_t sum = fm[b][jm] + fm[b][j] + fm[b][jp] + f0[b][jm] + f0[b][jp] + fp[b][jm] +
                      fp[b][j] + fp[b][jp];
        const int32_t a = abs(c[b][j]);
        if (scale == 0)
            sum += (int16_t)((8738 * a + 2048) >> 12); /* 1/15 in Q17 */
        else /* 1/15 in Q32, the same -2^31 rounding as the CSF step */
            sum += (int32_t)(((int64_t)286331153 * a - ((int64_t)1 << 31)) >> 32);
        thr += sum;
    }
    return thr;
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

/* The numerator's sums of one row over columns [left, right) into inner[3];
 * the columns with both neighbours inside the band read them directly. */
ADM_CLONES static void num_row(int scale, int w, int left, int right, const uint32_t q[3],
                               const uint32_t sh_cub[3], const int64_t rnd_cub[3],
                               const int32_t *const fm[3], const int32_t *const f0[3],
                               const int32_t *const fp[3], const int32_t *const c[3],
                               const int32_t *const x[3], int64_t inner[3])
{
    const int j0 = left > 1 ? left : 1 < right ? 1 : right;
    const int j1 = right < w - 1 ? right : (w - 1 > j0 ? w - 1 : j0);
    int64_t s0 = 0, s1 = 0, s2 = 0;
    for (int j = left; j < j0; j++) {
        const int32_t thr = mask_threshold(scale, fm, f0, fp, c, nb(j - 1, w), j, nb(j + 1, w));
        s0 += num_term(scale, 0, q[0], x[0][j], thr, sh_cub[0], rnd_cub[0]);
        s1 += num_term(scale, 1, q[1], x[1][j], thr, sh_cub[1], rnd_cub[1]);
        s2 += num_term(scale, 2, q[2], x[2][j], thr, sh_cub[2], rnd_cub[2]);
    }
    if (scale == 0) {
        for (int j = j0; j < j1; j++) {
            const int32_t thr = mask_threshold(0, fm, f0, fp, c, j - 1, j, j + 1);
            s0 += num_term(0, 0, q[0], x[0][j], thr, sh_cub[0], rnd_cub[0]);
            s1 += num_term(0, 1, q[1], x[1][j], thr, sh_cub[1], rnd_cub[1]);
            s2 += num_term(0, 2, q[2], x[2][j], thr, sh_cub[2], rnd_cub[2]);
        }
    } else {
        for (int j = j0; j < j1; j++) {
            const int32_t thr = mask_threshold(1, fm, f0, fp, c, j - 1, j, j + 1);
            s0 += num_term(1, 0, q[0], x[0][j], thr, sh_cub[0], rnd_cub[0]);
            s1 += num_term(1, 1, q[1], x[1][j], thr, sh_cub[1], rnd_cub[1]);
            s2 += num_term(1, 2, q[2], x[2][j], thr, sh_cub[2], rnd_cub[2]);
        }
    }
    for (int j = j1 > j0 ? j1 : j0; j < right; j++) {
        const int32_t thr = mask_threshold(scale, fm, f0, fp, c, nb(j - 1, w), j, nb(j + 1, w));
        s0 += num_term(scale, 0, q[0], x[0][j], thr, sh_cub[0], rnd_cub[0]);
        s1 += num_term(scale, 1, q[1], x[1][j], thr, sh_cub[1], rnd_cub[1]);
        s2 += num_term(scale, 2, q[2], x[2][j], thr, sh_cub[2], rnd_cub[2]);
    }
    inner[0] = s0;
    inner[1] = s1;
    inner[2] = s2;
}

/* Numerator sums of the rows [i0, i1) of the scored region, added to accum. */
static void num_rows(adm_state *st, int scale, int w, int h, int32_t *const x_band[3], int i0,
                     int i1, int64_t accum[3])
{
    int left, top, right, bottom;
    score_region(w, h, &left, &top, &right, &bottom);
    clip_rows(&top, &bottom, i0, i1);
    uint32_t q[3];
    uint32_t sh_cub[3];
    const uint32_t sh_inner = num_shifts(scale, w, h, sh_cub);
    int64_t rnd_cub[3], rnd_inner = (uint32_t)pow(2, sh_inner - 1);
    if (scale == 0)
        csf_factors_q0(&st->p, q);
    else
        csf_factors_q32(&st->p, scale, q);
    for (int b = 0; b < 3; b++)
        rnd_cub[b] = (uint32_t)pow(2, sh_cub[b] - 1);

    for (int i = top; i < bottom; i++) {
        const int32_t *fm[3], *f0[3], *fp[3], *c[3], *x[3];
        for (int b = 0; b < 3; b++) {
            fm[b] = st->flt[b] + nb(i - 1, h) * st->stride;
            f0[b] = st->flt[b] + i * st->stride;
            fp[b] = st->flt[b] + nb(i + 1, h) * st->stride;
            c[b] = st->csf[b] + i * st->stride;
            x[b] = x_band[b] + i * st->stride;
        }
        int64_t inner[3];
        num_row(scale, w, left, right, q, sh_cub, rnd_cub, fm, f0, fp, c, x, inner);
        for (int b = 0; b < 3; b++)
            accum[b] += (inner[b] + rnd_inner) >> sh_inner;
    }
}

/* Numerator of a level from its sums (num_rows over every row). */
static float num_level(int scale, int w, int h, const int64_t accum[3], double noise_weight)
{
    int left, top, right, bottom;
    score_region(w, h, &left, &top, &right, &bottom);
    uint32_t sh_cub[3];
    const uint32_t sh_inner = num_shifts(scale, w, h, sh_cub);
    const float noise =
        powf((float)((bottom - top) * (right - left) * noise_weight), 1.0f / 3.0f);
    float n[3];
    for (int b = 0; b < 3; b++) {
        float f;
        if (scale == 0) {
            static const uint32_t q_total[3] = {52, 52, 57};
            f = (float)(accum[b] / pow(2, (uint32_t)(q_total[b] - sh_cub[b] - sh_inner)));
        } else {
            static const uint32_t q_total[3] = {45, 39, 36};
            float fs = (float)pow(2, (uint32_t)(q_total[scale - 1] - sh_cub[b] - sh_inner));
            f = (float)accum[b] / fs;
        }
        n[b] = powf(f, 1.0f / 3.0f) + noise;
    }
    return n[0] + n[1] + n[2];
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
    const size_t nplanes = 2 * NBANDS + 2 + 4 * 3;
    const size_t n32 = nplanes * plane + 65537;
    const size_t nint = 4 * (size_t)(st->bw + st->bh);
    st->mem = calloc(n32 * sizeof(int32_t) + nint * sizeof(int), 1);
    if (!st->mem) {
        free(st);
        return FOVEA_ERR_NOMEM;
    }
    int32_t *m = st->mem;
    for (int b = 0; b < NBANDS; b++, m += plane)
        st->ref[b] = m;
    for (int b = 0; b < NBANDS; b++, m += plane)
        st->dis[b] = m;
    for (int b = 0; b < 3; b++) {
        st->rst[b] = m;
        st->add[b] = m + plane;
        st->csf[b] = m + 2 * plane;
        st->flt[b] = m + 3 * plane;
        m += 4 * plane;
    }
    st->band_a[0][0] = st->ref[BAND_A];
    st->band_a[1][0] = st->dis[BAND_A];
    st->band_a[0][1] = m;
    st->band_a[1][1] = m + plane;
    m += 2 * plane;
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
    free((*st)->thr_rows);
    free((*st)->thr_acc);
    free(*st);
    *st = NULL;
}

void adm_derive(const adm_raw *raw, int width, int height, adm_result *out)
{
    memset(out, 0, sizeof(*out));
    double num = 0, den = 0, aim = 0;
    for (int scale = 0; scale < ADM_SCALES; scale++) {
        out->num[scale] = raw->num[scale];
        out->den[scale] = raw->den[scale];
        out->aim_num[scale] = raw->aim_num[scale];
        num += raw->num[scale];
        den += raw->den[scale];
        aim += raw->aim_num[scale];
    }
    const double limit = 1e-10 * (width * height) / (1920.0 * 1080.0);
    num = num < limit ? 0 : num;
    den = den < limit ? 0 : den;
    if (den == 0.0) {
        /* unreachable (every level's denominator holds a positive noise floor);
         * libvmaf leaves integer_aim undefined here, fovea reports 0 */
        out->adm2 = 1.0;
        out->aim = 0.0;
    } else {
        out->adm2 = num / den;
        out->aim = aim / den;
    }
    out->num_sum = num;
    out->den_sum = den;
    double adm3 = out->adm2 * ADM_DLM_WEIGHT + (1 - out->aim) * (1 - ADM_DLM_WEIGHT);
    out->adm3 = adm3 > 0.0 ? adm3 : 0.0; /* adm_min_val 0 */
    for (int s = 0; s < ADM_SCALES; s++)
        out->scale[s] = (double)raw->num[s] / (double)raw->den[s];
}

void adm_compute(adm_state *st, const uint8_t *ref, ptrdiff_t ref_stride, const uint8_t *dis,
                 ptrdiff_t dis_stride, adm_result *out)
{
    adm_raw raw;
    adm_compute_raw(st, NULL, ref, ref_stride, dis, dis_stride, &raw);
    adm_derive(&raw, st->p.width, st->p.height, out);
}

/* One pass of a level over rows, run on the context's threads. */
typedef enum adm_pass { PASS_DWT, PASS_DECOUPLE_DEN, PASS_CSF, PASS_NUM } adm_pass;

typedef struct adm_job {
    adm_state *st;
    adm_pass pass;
    int scale;
    int w, h;                   /* PASS_DWT: the input's size; else the bands' */
    const uint8_t *ref8, *dis8; /* PASS_DWT level 0: the frames */
    ptrdiff_t ref_stride, dis_stride;
    const int32_t *ref32, *dis32; /* PASS_DWT above level 0: the previous approximation */
    int32_t *const *band;       /* PASS_CSF: its source; PASS_NUM: the numerator's band */
} adm_job;

static void adm_rows(void *arg, int i0, int i1, int thread)
{
    const adm_job *j = arg;
    adm_state *st = j->st;
    int64_t *acc = st->thr_acc + (size_t)thread * THR_ACC;
    switch (j->pass) {
    case PASS_DWT: {
        int32_t *rows = st->thr_rows + (size_t)thread * 4 * (size_t)st->p.width;
        const int w = st->p.width;
        dwt_level(st, j->scale, j->ref8, j->ref_stride, j->ref32, j->w, i0, i1, rows,
                  rows + w, st->ref);
        dwt_level(st, j->scale, j->dis8, j->dis_stride, j->dis32, j->w, i0, i1, rows + 2 * w,
                  rows + 3 * w, st->dis);
        break;
    }
    case PASS_DECOUPLE_DEN:
        /* den reads the reference bands only, decouple writes rst and add */
        decouple(st, j->scale, j->w, j->h, i0, i1);
        den_rows(st, j->scale, j->w, j->h, i0, i1, acc);
        break;
    case PASS_CSF:
        csf_bands(st, j->scale, j->w, j->h, j->band, i0, i1);
        break;
    case PASS_NUM:
        num_rows(st, j->scale, j->w, j->h, j->band, i0, i1, acc);
        break;
    }
}

/* Run a pass over rows [0, n); the threads' partial sums added into sums. */
static void run_pass(adm_state *st, fovea_context *ctx, adm_job *j, int n, int64_t sums[3])
{
    memset(st->thr_acc, 0, (size_t)st->nthr * THR_ACC * sizeof(*st->thr_acc));
    fv_parallel_for(ctx, n, 8, adm_rows, j);
    if (!sums)
        return;
    sums[0] = sums[1] = sums[2] = 0;
    for (int t = 0; t < st->nthr; t++)
        for (int b = 0; b < 3; b++) /* integer sums: the same for any split */
            sums[b] = (int64_t)((uint64_t)sums[b] + (uint64_t)st->thr_acc[t * THR_ACC + b]);
}

int adm_reserve_threads(adm_state *st, int n)
{
    if (n < 1)
        n = 1;
    if (n <= st->nthr)
        return FOVEA_OK;
    int32_t *rows = malloc((size_t)n * 4 * (size_t)st->p.width * sizeof(*rows));
    int64_t *acc = calloc((size_t)n * THR_ACC, sizeof(*acc));
    if (!rows || !acc) {
        free(rows);
        free(acc);
        return FOVEA_ERR_NOMEM;
    }
    free(st->thr_rows);
    free(st->thr_acc);
    st->thr_rows = rows;
    st->thr_acc = acc;
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
    int pp = 0; /* the approximation band's buffer of the level being written */
    adm_job j;
    memset(&j, 0, sizeof(j));
    j.st = st;
    for (int scale = 0; scale < ADM_SCALES; scale++) {
        dwt_indices(st->ind_y, h);
        dwt_indices(st->ind_x, w);
        /* Levels above 0 read the previous approximation band; libvmaf
         * overwrites it in place, here the level writes the other buffer
         * (the same values: libvmaf's output row i only needs source rows
         * >= 2i - 1 >= i, never one it has overwritten). */
        j.ref32 = st->ref[BAND_A];
        j.dis32 = st->dis[BAND_A];
        st->ref[BAND_A] = st->band_a[0][pp];
        st->dis[BAND_A] = st->band_a[1][pp];
        pp ^= 1;
        j.pass = PASS_DWT;
        j.scale = scale;
        j.w = w;
        j.h = h;
        j.ref8 = ref;
        j.dis8 = dis;
        j.ref_stride = ref_stride;
        j.dis_stride = dis_stride;
        run_pass(st, ctx, &j, (h + 1) / 2, NULL);
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        j.w = w;
        j.h = h;

        int64_t sums[3];
        j.pass = PASS_DECOUPLE_DEN;
        run_pass(st, ctx, &j, h, sums);
        out->den[scale] = den_level(&st->p, scale, w, h, sums);
        /* DLM: the restored part, masked by the additive part */
        j.pass = PASS_CSF;
        j.band = st->add;
        run_pass(st, ctx, &j, h, NULL);
        j.pass = PASS_NUM;
        j.band = st->rst;
        run_pass(st, ctx, &j, h, sums);
        out->num[scale] = num_level(scale, w, h, sums, ADM_NOISE_WEIGHT);
        /* AIM: the additive part, masked by the restored part, no noise floor */
        j.pass = PASS_CSF;
        j.band = st->rst;
        run_pass(st, ctx, &j, h, NULL);
        j.pass = PASS_NUM;
        j.band = st->add;
        run_pass(st, ctx, &j, h, sums);
        out->aim_num[scale] = num_level(scale, w, h, sums, 0.0);
    }
}

/* ---------------------------------------------------------------- other backends */

/* Band size of level `scale` of a p->width x p->height stream. */
static void level_size(const adm_params *p, int scale, int *w, int *h)
{
    *w = p->width;
    *h = p->height;
    for (int s = 0; s <= scale; s++) {
        *w = (*w + 1) / 2;
        *h = (*h + 1) / 2;
    }
}

void adm_level_setup(const adm_params *p, int scale, adm_level *L)
{
    memset(L, 0, sizeof(*L));
    L->scale = scale;
    level_size(p, scale, &L->w, &L->h);
    const int w = L->w, h = L->h;
    score_region(w, h, &L->sl, &L->st, &L->sr, &L->sb);

    dwt_round vr, hr;
    dwt_rounding(p->bpc, scale, &vr, &hr);
    L->v_sub = vr.sub;
    L->v_add = vr.add;
    L->v_shift = vr.shift;
    L->h_add = hr.add;
    L->h_shift = hr.shift;
    if (scale == 0)
        csf_factors_q0(p, L->q);
    else
        csf_factors_q32(p, scale, L->q);

    /* den_rows */
    if (scale == 0) {
        const int32_t sh = den_shift0(w, h);
        L->den_row_shift = (uint32_t)sh;
        L->den_row_round = sh > 0 ? (uint64_t)1 << (sh - 1) : 0;
    } else {
        L->den_sq = den_sh_sq[scale - 1];
        L->den_cub_shift = ceil_log2(L->sr - L->sl);
        L->den_row_shift = ceil_log2(L->sb - L->st);
        L->den_cub_round = (uint32_t)pow(2, L->den_cub_shift - 1);
        L->den_row_round = (uint32_t)pow(2, L->den_row_shift - 1);
    }

    /* num_rows */
    L->num_row_shift = num_shifts(scale, w, h, L->num_cub_shift);
    L->num_row_round = (uint32_t)pow(2, L->num_row_shift - 1);
    for (int b = 0; b < 3; b++)
        L->num_cub_round[b] = (uint32_t)pow(2, L->num_cub_shift[b] - 1);
}

float adm_den_float(const adm_params *p, int scale, const int64_t sums[3])
{
    int w, h;
    level_size(p, scale, &w, &h);
    return den_level(p, scale, w, h, sums);
}

float adm_num_float(const adm_params *p, int scale, const int64_t sums[3], double noise_weight)
{
    int w, h;
    level_size(p, scale, &w, &h);
    return num_level(scale, w, h, sums, noise_weight);
}
