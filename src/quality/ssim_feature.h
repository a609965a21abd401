/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The features "float_ssim" (feature_float_ssim.c) and "float_ms_ssim"
 * (feature_float_ms_ssim.c) as their extractors see them: options (table
 * order), raw values and what the C and CUDA extractors share. */
#ifndef FOVEA_QUALITY_SSIM_FEATURE_H
#define FOVEA_QUALITY_SSIM_FEATURE_H

#include "quality/feature.h"

/* float_ssim's options; its raw values are an iqa_ssim_means. */
enum {
    SSIM_OPT_CLIP_DB = 0,
    SSIM_OPT_ENABLE_DB,
    SSIM_OPT_ENABLE_LCS,
    SSIM_OPT_SCALE,
    SSIM_OPTIONS
};

extern const feature_def feature_float_ssim;

#define MS_SCALES 5
/* libvmaf refuses pictures whose fifth scale (the size halved four times,
 * rounded down) is narrower than the 11-tap window: 11 << 4 */
#define MS_MIN_DIM 176
/* the 9x9 low-pass of MS-SSIM's halvings */
#define MS_LPF 9

/* float_ms_ssim's options */
enum { MS_OPT_CLIP_DB = 0, MS_OPT_ENABLE_DB, MS_OPT_ENABLE_LCS, MS_OPTIONS };

/* What the extractor hands the derivation: the product of the scales and the
 * float means of each scale. */
typedef struct ms_raw {
    double msssim;
    float l[MS_SCALES], c[MS_SCALES], s[MS_SCALES];
} ms_raw;

extern const feature_def feature_float_ms_ssim;

/* libvmaf's low-pass, MS_LPF x MS_LPF row-major floats. */
extern const float ms_lpf[MS_LPF * MS_LPF];

/* m->msssim from m's per-scale means: the product over the scales of
 * l^alpha c^beta s^gamma, in libvmaf's order and types (host libm: both
 * backends). Returns -1, or the first scale at which the product is
 * infinite (libvmaf fails there). */
int ms_combine(ms_raw *m);

#endif
