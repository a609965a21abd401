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
        powf((float)((bottom - top) * (right - left) * ADM_NOISE_WEIGHT), 1.0f / 3.0f);
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
