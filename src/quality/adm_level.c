/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The constants of an integer ADM level (CSF weights, scored region, DWT
 * rounding, the shifts of its sums) and the floats and doubles libvmaf makes
 * from a level's sums: shared by the C reference (adm_ref.c, the passes over
 * the rows) and the CUDA extractor. docs/quality.md ("Integer ADM"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quality/adm.h"

/* The float and double steps must round as libvmaf's do (CMake builds with
 * -ffp-contract=off; clang is told here too). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define ADM_PI 3.14159265358979323846
#define ADM_BORDER_FACTOR 0.1
#define ADM_DLM_WEIGHT 0.5 /* adm_dlm_weight: integer_adm3 = mix of DLM and 1 - AIM */
#define DB2_LO_SUM 46342   /* the db2 low-pass taps' sum, sqrt(2) * 2^15 */

void adm_default_params(adm_params *p, int width, int height, int bpc)
{
    memset(p, 0, sizeof(*p));
    p->width = width;
    p->height = height;
    p->bpc = bpc;
    p->enhn_gain_limit = 100.0;
    p->norm_view_dist = 3.0;
    p->ref_display_height = 1080;
    p->csf_mode = ADM_CSF_WATSON97;
    p->csf_scale = 1.0;
    p->csf_diag_scale = 1.0;
    p->noise_weight = ADM_NOISE_WEIGHT;
    p->dlm_weight = ADM_DLM_WEIGHT;
    p->min_val = 0.0;
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
    return (float)(2.0 * watson_a * pow(10.0, watson_k * temp * temp) / watson_amp[lambda][theta]);
}

/* Barten's CSF in the simplified form of HDR-VDP-2 (Mantiuk et al. 2011):
 * its parameters at six luminances (cd/m2), interpolated in log luminance;
 * the luminance-dependent sensitivity (barten_sa) and the optical MTF. The
 * numbers are libvmaf's (floats); so are the float and double steps. */
/* double literals rounded to float, as libvmaf's */
static const float barten_lum[6] = {0.002, 0.02, 0.2, 2.0, 20.0, 150.0};
static const float barten_par[6][4] = {
    {0.991265, 3.74038, 0.50722, 4.46044},  {0.800889, 3.54104, 0.682505, 4.94958},
    {0.476505, 4.37453, 0.750315, 5.28678}, {0.405782, 4.40602, 0.935314, 5.61425},
    {0.334278, 3.79542, 1.07327, 6.4635},   {0.394533, 2.7755, 1.16577, 7.45665}};
static const float barten_sa[4] = {30.162, 4.0627, 1.6596, 0.2712};
static const float barten_mtf_a[4] = {0.424838596301290, 0.572435103936480, 0.000167576239164937,
                                      0.00255872352306433};
static const float barten_mtf_b[4] = {0.028, 0.37, 37.0, 360.0};
#define BARTEN_LUMINANCE 100.0 /* libvmaf's adm CSF luminance, cd/m2 */

static float barten_lerp(float x0, float y0, float x1, float y1, float x)
{
    return y0 + ((y1 - y0) / (x1 - x0)) * (x - x0);
}

static float barten_mtf(float sf)
{
    float m = 0.0f;
    for (int i = 0; i < 4; i++)
        m = (float)(m + barten_mtf_a[i] * exp(-barten_mtf_b[i] * sf));
    return m;
}

static float barten_sens(float lum)
{
    return (float)(barten_sa[0] * pow(pow(barten_sa[1] / lum, barten_sa[2]) + 1, -barten_sa[3]));
}

static float barten_csf(int lambda, double nvd, int rdh, double scale)
{
    const float r = (float)(nvd * rdh * ADM_PI / 180.0);
    const float sf = (float)(r / pow(2, lambda + 1)); /* the level's nominal frequency */
    double lum = BARTEN_LUMINANCE;
    lum = lum > barten_lum[5] ? barten_lum[5] : (lum < barten_lum[0] ? barten_lum[0] : lum);
    int k = 0;
    for (int i = 0; i < 5; i++)
        if (lum >= barten_lum[i] && lum <= barten_lum[i + 1]) {
            k = i;
            break;
        }
    const float x0 = (float)log10(barten_lum[k]), x1 = (float)log10(barten_lum[k + 1]);
    const float x = (float)log10(lum);
    float q[4];
    for (int j = 0; j < 4; j++)
        q[j] = barten_lerp(x0, barten_par[k][j], x1, barten_par[k + 1][j], x);
    const float a = (float)(1.0f + pow(q[0] * sf, q[1]));
    const float b = (float)(1.0f / pow(1 - exp(-pow(sf / 7, 2)), q[2]));
    const float csf = (float)(q[3] / pow(a * b, 0.5));
    return (float)(csf * barten_mtf(sf) * barten_sens((float)BARTEN_LUMINANCE) * scale);
}

/* libvmaf's blended CSF weights: [table][h/v, d][level], the tables for the
 * viewing conditions of blend_index. */
static const float blend_csf[2][8][2][4] = {
    {/* ADM_CSF_BLEND */
     {{0.01183, 0.025026, 0.04295, 0.058621}, {0.004302, 0.011778, 0.023918, 0.035901}},
     {{0.004212, 0.014809, 0.029642, 0.047464}, {0.000984, 0.005852, 0.0146, 0.027574}},
     {{0.00226, 0.01183, 0.025026, 0.04295}, {0.000479, 0.004302, 0.011778, 0.023918}},
     {{0.000092, 0.004212, 0.014809, 0.029642}, {0.000050, 0.000984, 0.005852, 0.0146}},
     {{0.018715, 0.035637, 0.052798, 0.061509}, {0.007999, 0.018396, 0.031851, 0.037718}},
     {{0.010144, 0.022561, 0.040309, 0.05672}, {0.003463, 0.010282, 0.021839, 0.034641}},
     {{0.027961, 0.045875, 0.060275, 0.056234}, {0.013572, 0.026277, 0.036959, 0.034511}},
     {{0.016781, 0.032822, 0.05032, 0.061594}, {0.00691, 0.016545, 0.029917, 0.037777}}},
    {/* ADM_CSF_BLEND_MAE */
     {{0.011249, 0.022606, 0.035930, 0.045673}, {0.004097, 0.010921, 0.021430, 0.031313}},
     {{0.004052, 0.013939, 0.026298, 0.038833}, {0.000927, 0.005544, 0.013415, 0.024515}},
     {{0.002166, 0.011249, 0.022606, 0.035930}, {0.000447, 0.004097, 0.010921, 0.021430}},
     {{0.000077, 0.004052, 0.013939, 0.026298}, {0.000045, 0.000927, 0.005544, 0.013415}},
     {{0.017329, 0.030870, 0.042134, 0.047410}, {0.007509, 0.016707, 0.028072, 0.032722}},
     {{0.009689, 0.020577, 0.034162, 0.044523}, {0.003302, 0.009579, 0.019661, 0.030318}},
     {{0.024969, 0.037825, 0.046676, 0.043974}, {0.012511, 0.023424, 0.032139, 0.030166}},
     {{0.015665, 0.028766, 0.040612, 0.047483}, {0.006514, 0.015107, 0.026476, 0.032776}}}};

/* The table of a viewing condition: 1080 lines at 3 H (0) and 5 H (1), 2160
 * at 3 H (2) and 5 H (3), 720 (4, 5), 480 (6, 7); 2160 lines at 1.5 H has the
 * pixels per degree of 1080 at 3 H (0). -1: none (compared exactly, as
 * libvmaf does). */
static int blend_index(double nvd, int rdh)
{
    static const int lines[4] = {1080, 2160, 720, 480};
    for (int i = 0; i < 4; i++)
        if (rdh == lines[i] && (nvd == 3.0 || nvd == 5.0))
            return 2 * i + (nvd == 5.0);
    return rdh == 2160 && nvd == 1.5 ? 0 : -1;
}

int adm_csf_blend_supported(double norm_view_dist, int ref_display_height)
{
    return blend_index(norm_view_dist, ref_display_height) >= 0;
}

/* The CSF weight of the h/v bands (rf[0], rf[1]) and the d band (rf[2]). */
static void csf_factors(const adm_params *p, int scale, float rf[3])
{
    const double nvd = p->norm_view_dist;
    const int rdh = p->ref_display_height;
    if (p->csf_mode == ADM_CSF_BARTEN) {
        rf[0] = rf[1] = barten_csf(scale, nvd, rdh, p->csf_scale);
        rf[2] = barten_csf(scale, nvd, rdh, p->csf_diag_scale);
    } else if (p->csf_mode == ADM_CSF_BLEND || p->csf_mode == ADM_CSF_BLEND_MAE) {
        /* adm_open refuses conditions without a table (libvmaf's weight would
         * be -EINVAL as a float, and its scores NaN) */
        const int k = blend_index(nvd, rdh);
        const int t = p->csf_mode == ADM_CSF_BLEND_MAE;
        rf[0] = rf[1] = blend_csf[t][k < 0 ? 0 : k][0][scale];
        rf[2] = blend_csf[t][k < 0 ? 0 : k][1][scale];
    } else {
        rf[0] = rf[1] = 1.0f / quant_step(scale, 1, nvd, rdh);
        rf[2] = 1.0f / quant_step(scale, 2, nvd, rdh);
    }
}

/* libvmaf converts the weights to uint16 and uint32 with C casts; out of
 * range (Barten's weights can be), those are what x86-64 does: a truncation
 * to int32 (uint16) or int64 (uint32) whose low bits are kept, the
 * "indefinite" value (the sign bit alone) when even that is out of range. */
static uint16_t weight_u16(double v)
{
    if (!(v > -2147483649.0 && v < 2147483648.0))
        return 0;
    return (uint16_t)(uint32_t)(int32_t)v;
}

static uint32_t weight_u32(double v)
{
    if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0))
        return 0;
    return (uint32_t)(uint64_t)(int64_t)v;
}

/* Level 0 uses the weights in Q21 (h, v) and Q23 (d) as uint16; libvmaf
 * hard-codes the default viewing condition's values of Watson's model. */
static void csf_factors_q0(const adm_params *p, uint32_t q[3])
{
    if (fabs(p->norm_view_dist * p->ref_display_height - 3.0 * 1080) < 1.0e-8 &&
        p->csf_mode == ADM_CSF_WATSON97) {
        q[0] = q[1] = 36453;
        q[2] = 49417;
        return;
    }
    float rf[3];
    csf_factors(p, 0, rf);
    q[0] = weight_u16(rf[0] * pow(2, 21));
    q[1] = weight_u16(rf[1] * pow(2, 21));
    q[2] = weight_u16(rf[2] * pow(2, 23));
}

/* Levels 1..3 use them in Q32 (uint32). */
static void csf_factors_q32(const adm_params *p, int scale, uint32_t q[3])
{
    float rf[3];
    csf_factors(p, scale, rf);
    for (int t = 0; t < 3; t++)
        q[t] = weight_u32(rf[t] * pow(2, 32));
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

/* The vertical (vr) and horizontal (hr) rounding of level `scale`. */
void adm_dwt_rounding(int bpc, int scale, adm_dwt_round *vr, adm_dwt_round *hr)
{
    if (scale == 0) {
        /* The samples are centerd (x - 2^(bpc-1), folded into the low-pass
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

/* ---------------------------------------------------------------- level floats */

static uint32_t ceil_log2(double v)
{
    return (uint32_t)ceil(log2(v));
}

/* Denominator of a level: sum over the scored region of |ref band|^3 weighted
 * by the CSF cubed, one cube root per band plus the noise floor; in two
 * steps, the row sums (den_row) and the floats (den_level). */
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

/* Denominator of a level from its sums (den_row over every row): one cube
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
        powf((float)((bottom - top) * (right - left) * p->noise_weight), 1.0f / 3.0f);
    float d[3];
    for (int b = 0; b < 3; b++) {
        double c = (double)(accum[b] / shift_csf) * pow(rf[b], 3);
        d[b] = powf((float)c, 1.0f / 3.0f) + noise;
    }
    return d[0] + d[1] + d[2];
}

/* Numerator of a level: the CSF-weighted band x (restored part for DLM,
 * additive part for AIM) less the contrast masking threshold (the 3x3
 * neighborhood of the masker's |csf|/30, center |csf|/15, summed over the
 * three orientations), clipped at 0 and cubed, summed over the scored region;
 * one cube root per band plus the noise floor (noise_weight 0 for AIM). In
 * two steps as the denominator: num_row, num_level. */
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

/* Numerator of a level from its sums (num_row over every row). */
static float num_level(int scale, int w, int h, const int64_t accum[3], double noise_weight)
{
    int left, top, right, bottom;
    score_region(w, h, &left, &top, &right, &bottom);
    uint32_t sh_cub[3];
    const uint32_t sh_inner = num_shifts(scale, w, h, sh_cub);
    const float noise = powf((float)((bottom - top) * (right - left) * noise_weight), 1.0f / 3.0f);
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

void adm_derive_params(const adm_params *p, const adm_raw *raw, adm_result *out)
{
    memset(out, 0, sizeof(*out));
    double num = 0, den = 0, aim = 0;
    for (int scale = 0; scale < ADM_SCALES; scale++) {
        float n = raw->num[scale], d = raw->den[scale], a = raw->aim_num[scale];
        if (p->skip_aim)
            a = 0.0f;
        if (scale == 0 && p->skip_scale0) {
            /* libvmaf's level 0 then keeps only the approximation band; its
             * denominator is set to 1e-10 (a float) against a division by 0 */
            n = 0.0f;
            d = 1e-10f;
            a = 0.0f;
        }
        out->num[scale] = n;
        out->den[scale] = d;
        out->aim_num[scale] = a;
        num += n;
        den += d;
        aim += a;
    }
    const double limit = 1e-10 * (p->width * p->height) / (1920.0 * 1080.0);
    num = num < limit ? 0 : num;
    den = den < limit ? 0 : den;
    if (den == 0.0) {
        /* only with adm_noise_weight 0 on a flat reference; libvmaf leaves
         * integer_aim undefined here, fovea reports 0 */
        out->adm2 = 1.0;
        out->aim = 0.0;
    } else {
        out->adm2 = num / den;
        out->aim = aim / den;
    }
    out->num_sum = num;
    out->den_sum = den;
    const double adm3 = out->adm2 * p->dlm_weight + (1 - out->aim) * (1 - p->dlm_weight);
    out->adm3 = adm3 > p->min_val ? adm3 : p->min_val;
    for (int s = 0; s < ADM_SCALES; s++)
        out->scale[s] = (double)out->num[s] / (double)out->den[s];
}

void adm_derive(const adm_raw *raw, int width, int height, adm_result *out)
{
    adm_params p;
    adm_default_params(&p, width, height, 8);
    adm_derive_params(&p, raw, out);
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

    adm_dwt_round vr, hr;
    adm_dwt_rounding(p->bpc, scale, &vr, &hr);
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
