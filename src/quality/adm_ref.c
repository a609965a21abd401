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
    int32_t *tmp[4];          /* vertical-pass rows: ref lo, ref hi, dis lo, dis hi */
    int *ind_y[4], *ind_x[4]; /* DWT source rows/columns of each output row/column */
    int32_t *div_lookup;      /* 65537 entries: 2^30 / (i - 32768) */
    void *mem;
};

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

static uint32_t ceil_log2(double v)
{
    return (uint32_t)ceil(log2(v));
}

float adm_cos_1deg_sq(void)
{
    return (float)(cos(ADM_PI / 180.0) * cos(ADM_PI / 180.0));
}

void adm_level_setup(const adm_params *p, int scale, adm_level *L)
{
    memset(L, 0, sizeof(*L));
    L->scale = scale;
    int w = p->width, h = p->height;
    for (int s = 0; s <= scale; s++) {
        w = (w + 1) / 2;
        h = (h + 1) / 2;
    }
    L->w = w;
    L->h = h;
    score_region(w, h, &L->sl, &L->st, &L->sr, &L->sb);
    work_region(w, h, &L->wl, &L->wt, &L->wr, &L->wb);

    if (scale == 0) {
        /* The samples are centred (x - 2^(bpc-1), folded into the low-pass
         * sum) and scaled by 2^-bpc vertically and 2^-16 horizontally, so every
         * bit depth gives bands of the same scale. */
        L->v_add = (int64_t)1 << (p->bpc - 1);
        L->v_sub = (int64_t)DB2_LO_SUM * L->v_add;
        L->v_shift = p->bpc;
        L->h_add = 32768;
        L->h_shift = 16;
        csf_factors_q0(p, L->q);
    } else {
        static const int vadd[3] = {0, 32768, 32768}, vsh[3] = {0, 16, 16};
        static const int hadd[3] = {16384, 32768, 16384}, hsh[3] = {15, 16, 15};
        L->v_sub = 0;
        L->v_add = vadd[scale - 1];
        L->v_shift = vsh[scale - 1];
        L->h_add = hadd[scale - 1];
        L->h_shift = hsh[scale - 1];
        csf_factors_q32(p, scale, L->q);
    }

    /* denominator (scored region) */
    const int rw = L->sr - L->sl, rh = L->sb - L->st;
    if (scale == 0) {
        int32_t sh = (int32_t)ceil(log2(rh * rw) - 20);
        sh = sh > 0 ? sh : 0;
        L->den_row_shift = (uint32_t)sh;
        L->den_row_round = sh > 0 ? (uint64_t)1 << (sh - 1) : 0;
        L->den_scale = pow(2, 18 - sh);
    } else {
        static const uint32_t sh_sq[3] = {31, 30, 31}, to_float[3] = {32, 27, 23};
        L->den_sq = sh_sq[scale - 1];
        L->den_cub_shift = ceil_log2(rw);
        L->den_row_shift = ceil_log2(rh);
        L->den_cub_round = (uint32_t)pow(2, L->den_cub_shift - 1);
        L->den_row_round = (uint32_t)pow(2, L->den_row_shift - 1);
        L->den_scale =
            pow(2, (uint32_t)(to_float[scale - 1] - L->den_row_shift - L->den_cub_shift));
    }

    /* numerator */
    L->num_row_shift = ceil_log2(h);
    L->num_row_round = (uint32_t)pow(2, L->num_row_shift - 1);
    if (scale == 0) {
        L->num_cub_shift[0] = L->num_cub_shift[1] = (uint32_t)ceil(log2(w) - 4);
        L->num_cub_shift[2] = (uint32_t)ceil(log2(w) - 3);
    } else {
        L->num_cub_shift[0] = L->num_cub_shift[1] = L->num_cub_shift[2] = ceil_log2(w);
    }
    for (int b = 0; b < 3; b++)
        L->num_cub_round[b] = (uint32_t)pow(2, L->num_cub_shift[b] - 1);
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

/* One DWT level of a w x h image (level 0: the input samples; above: the
 * previous level's approximation band) into the four (w+1)/2 x (h+1)/2
 * bands. Level 0 keeps every intermediate and result in int16 as libvmaf
 * does (the casts below); the levels above keep int32. */
static void dwt_level(adm_state *st, const adm_level *L, const uint8_t *src8,
                      ptrdiff_t src_stride, const int32_t *src32, int w, int32_t *lo, int32_t *hi,
                      int32_t *const out[NBANDS])
{
    const int bpc = st->p.bpc, scale = L->scale;
    const int bw = L->w, bh = L->h;
    for (int i = 0; i < bh; i++) {
        /* vertical pass over every column of the four source rows */
        for (int j = 0; j < w; j++) {
            int64_t s[4];
            for (int k = 0; k < 4; k++) {
                int row = st->ind_y[k][i];
                if (scale > 0) {
                    s[k] = src32[row * st->stride + j];
                } else if (bpc == 8) {
                    s[k] = src8[row * src_stride + j];
                } else {
                    const uint8_t *p = src8 + row * src_stride + 2 * j;
                    s[k] = p[0] | (p[1] << 8);
                }
            }
            int64_t l = 0, hh = 0;
            for (int k = 0; k < 4; k++) {
                l += db2_lo[k] * s[k];
                hh += db2_hi[k] * s[k];
            }
            /* level 0: libvmaf sums in int32, whose intermediate wrap-around
             * at 16 bits cancels (the final sums fit); exact 64-bit sums give
             * the same values */
            l = (l - L->v_sub + L->v_add) >> L->v_shift;
            hh = (hh + L->v_add) >> L->v_shift;
            lo[j] = scale == 0 ? (int16_t)l : (int32_t)l;
            hi[j] = scale == 0 ? (int16_t)hh : (int32_t)hh;
        }
        /* horizontal pass at the even columns */
        for (int j = 0; j < bw; j++) {
            int64_t ll = 0, lh = 0, hl = 0, h2 = 0;
            for (int k = 0; k < 4; k++) {
                int c = st->ind_x[k][j];
                ll += db2_lo[k] * (int64_t)lo[c];
                lh += db2_hi[k] * (int64_t)lo[c];
                hl += db2_lo[k] * (int64_t)hi[c];
                h2 += db2_hi[k] * (int64_t)hi[c];
            }
            int64_t v[NBANDS];
            v[BAND_A] = (ll + L->h_add) >> L->h_shift;
            v[BAND_V] = (lh + L->h_add) >> L->h_shift;
            v[BAND_H] = (hl + L->h_add) >> L->h_shift;
            v[BAND_D] = (h2 + L->h_add) >> L->h_shift;
            for (int b = 0; b < NBANDS; b++)
                out[b][i * st->stride + j] = scale == 0 ? (int16_t)v[b] : (int32_t)v[b];
        }
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
static void decouple(adm_state *st, const adm_level *L)
{
    const float cos_1deg_sq = adm_cos_1deg_sq();
    const double gain = st->p.enhn_gain_limit;
    const int scale = L->scale;
    for (int i = L->wt; i < L->wb; i++) {
        for (int j = L->wl; j < L->wr; j++) {
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
static void csf_bands(adm_state *st, const adm_level *L, int32_t *const src[3])
{
    const int scale = L->scale;
    const uint32_t *q = L->q;
    for (int b = 0; b < 3; b++) {
        for (int i = L->wt; i < L->wb; i++) {
            for (int j = L->wl; j < L->wr; j++) {
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

/* Denominator sums of a level: over the scored region, |ref band|^3 (level 0)
 * or its fixed-point cube (levels 1..3), rows shifted as they are added. */
static void den_sums(const adm_state *st, const adm_level *L, uint64_t accum[3])
{
    for (int b = 0; b < 3; b++) {
        accum[b] = 0;
        for (int i = L->st; i < L->sb; i++) {
            uint64_t inner = 0;
            for (int j = L->sl; j < L->sr; j++) {
                if (L->scale == 0) {
                    uint64_t x = (uint16_t)abs(st->ref[b][i * st->stride + j]);
                    inner += x * x * x;
                } else {
                    uint64_t x = (uint32_t)abs(st->ref[b][i * st->stride + j]);
                    /* rounding constant 2^sq, not 2^(sq-1), as in libvmaf */
                    inner += ((((x * x) + ((uint64_t)1 << L->den_sq)) >> L->den_sq) * x +
                              L->den_cub_round) >>
                             L->den_cub_shift;
                }
            }
            accum[b] += (inner + L->den_row_round) >> L->den_row_shift;
        }
    }
}

/* Denominator of a level: the band sums weighted by the CSF cubed, one cube
 * root per band plus the noise floor. */
float adm_den_float(const adm_params *p, const adm_level *L, const uint64_t acc[3])
{
    float rf[3];
    csf_factors(p, L->scale, rf);
    const float noise =
        powf((float)((L->sb - L->st) * (L->sr - L->sl) * ADM_NOISE_WEIGHT), 1.0f / 3.0f);
    float d[3];
    for (int b = 0; b < 3; b++) {
        double c = (double)(acc[b] / L->den_scale) * pow(rf[b], 3);
        d[b] = powf((float)c, 1.0f / 3.0f) + noise;
    }
    return d[0] + d[1] + d[2];
}

/* Neighbour index with the DWT's border rule: -1 reads 1, n reads n - 1. */
static inline int nb(int i, int n)
{
    return i < 0 ? 1 : (i >= n ? n - 1 : i);
}

/* Numerator sums of a level: the CSF-weighted band x (restored part for DLM,
 * additive part for AIM) less the contrast masking threshold (the 3x3
 * neighbourhood of the masker's |csf|/30, centre |csf|/15, summed over the
 * three orientations), clipped at 0 and cubed, summed over the scored region,
 * rows shifted as they are added. */
static void num_sums(const adm_state *st, const adm_level *L, int32_t *const x_band[3],
                     int64_t accum[3])
{
    const int scale = L->scale, w = L->w, h = L->h;
    const uint32_t *q = L->q;
    accum[0] = accum[1] = accum[2] = 0;
    for (int i = L->st; i < L->sb; i++) {
        int64_t inner[3] = {0, 0, 0};
        for (int j = L->sl; j < L->sr; j++) {
            /* masking threshold */
            int32_t thr = 0;
            for (int b = 0; b < 3; b++) {
                const int32_t *f = st->flt[b];
                int32_t sum = 0;
                for (int di = -1; di <= 1; di++) {
                    for (int dj = -1; dj <= 1; dj++) {
                        if (di == 0 && dj == 0)
                            continue;
                        sum += f[nb(i + di, h) * st->stride + nb(j + dj, w)];
                    }
                }
                int32_t c = abs(st->csf[b][i * st->stride + j]);
                if (scale == 0)
                    sum += (int16_t)((8738 * c + 2048) >> 12); /* 1/15 in Q17 */
                else /* 1/15 in Q32, the same -2^31 rounding as the CSF step */
                    sum += (int32_t)(((int64_t)286331153 * c - ((int64_t)1 << 31)) >> 32);
                thr += sum;
            }
            for (int b = 0; b < 3; b++) {
                const int32_t r = x_band[b][i * st->stride + j];
                int32_t x, x_sq;
                if (scale == 0) {
                    /* x in Q(21|23 + band); thr << 10 (h, v) or 12 (d) brings the
                     * threshold to the same Q; both in wrapping int32 */
                    static const int sub[3] = {10, 10, 12}, sh_sq[3] = {29, 29, 30};
                    int32_t xv = r * (int32_t)q[b];
                    x = (int32_t)((uint32_t)abs(xv) - ((uint32_t)thr << sub[b]));
                    x = x < 0 ? 0 : x;
                    x_sq = (int32_t)(((int64_t)x * x + ((int64_t)1 << (sh_sq[b] - 1))) >> sh_sq[b]);
                } else {
                    int32_t xv = (int32_t)(((int64_t)r * q[b] + (1 << 27)) >> 28);
                    x = abs(xv) - thr;
                    x = x < 0 ? 0 : x;
                    x_sq = (int32_t)(((int64_t)x * x + (1 << 29)) >> 30);
                }
                inner[b] += ((int64_t)x_sq * x + L->num_cub_round[b]) >> L->num_cub_shift[b];
            }
        }
        for (int b = 0; b < 3; b++)
            accum[b] += (inner[b] + L->num_row_round) >> L->num_row_shift;
    }
}

/* Numerator of a level: one cube root per band plus the noise floor (noise
 * weight 0 for AIM). */
float adm_num_float(const adm_params *p, const adm_level *L, const int64_t acc[3], double nw)
{
    (void)p;
    const float noise = powf((float)((L->sb - L->st) * (L->sr - L->sl) * nw), 1.0f / 3.0f);
    float n[3];
    for (int b = 0; b < 3; b++) {
        const uint32_t e = L->num_cub_shift[b] + L->num_row_shift;
        float f;
        if (L->scale == 0) {
            static const uint32_t q_total[3] = {52, 52, 57};
            f = (float)(acc[b] / pow(2, (uint32_t)(q_total[b] - e)));
        } else {
            static const uint32_t q_total[3] = {45, 39, 36};
            float fs = (float)pow(2, (uint32_t)(q_total[L->scale - 1] - e));
            f = (float)acc[b] / fs;
        }
        n[b] = powf(f, 1.0f / 3.0f) + noise;
    }
    return n[0] + n[1] + n[2];
}

void adm_finish(const adm_params *p, adm_result *out)
{
    double num = 0, den = 0, aim = 0;
    for (int scale = 0; scale < ADM_SCALES; scale++) {
        num += out->num[scale];
        den += out->den[scale];
        aim += out->aim_num[scale];
    }
    const double limit = 1e-10 * (p->width * p->height) / (1920.0 * 1080.0);
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
        out->scale[s] = (double)out->num[s] / (double)out->den[s];
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
    const size_t nplanes = 2 * NBANDS + 4 * 3;
    const size_t n32 = nplanes * plane + 4 * (size_t)p->width + 65537;
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
    for (int k = 0; k < 4; k++, m += p->width)
        st->tmp[k] = m;
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
    *out = st;
    return FOVEA_OK;
}

void adm_close(adm_state **st)
{
    if (!st || !*st)
        return;
    free((*st)->mem);
    free(*st);
    *st = NULL;
}

void adm_compute(adm_state *st, const uint8_t *ref, ptrdiff_t ref_stride, const uint8_t *dis,
                 ptrdiff_t dis_stride, adm_result *out)
{
    memset(out, 0, sizeof(*out));
    int w = st->p.width, h = st->p.height;
    for (int scale = 0; scale < ADM_SCALES; scale++) {
        adm_level L;
        adm_level_setup(&st->p, scale, &L);
        dwt_indices(st->ind_y, h);
        dwt_indices(st->ind_x, w);
        /* Levels above 0 read the previous approximation band and overwrite
         * it: libvmaf does this in place, which is safe because output row i
         * only needs source rows >= 2i - 1 >= i (for i >= 1); here it is the
         * same, row i is written after the last read of it. */
        dwt_level(st, &L, ref, ref_stride, st->ref[BAND_A], w, st->tmp[0], st->tmp[1], st->ref);
        dwt_level(st, &L, dis, dis_stride, st->dis[BAND_A], w, st->tmp[2], st->tmp[3], st->dis);
        w = L.w;
        h = L.h;

        decouple(st, &L);
        uint64_t den[3];
        int64_t num[3];
        den_sums(st, &L, den);
        out->den[scale] = adm_den_float(&st->p, &L, den);
        /* DLM: the restored part, masked by the additive part */
        csf_bands(st, &L, st->add);
        num_sums(st, &L, st->rst, num);
        out->num[scale] = adm_num_float(&st->p, &L, num, ADM_NOISE_WEIGHT);
        /* AIM: the additive part, masked by the restored part, no noise floor */
        csf_bands(st, &L, st->rst);
        num_sums(st, &L, st->add, num);
        out->aim_num[scale] = adm_num_float(&st->p, &L, num, 0.0);
    }
    adm_finish(&st->p, out);
}
