/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The feature "psnr" (feature_psnr.c) as its extractors see it: its options
 * (table order) and its raw values, shared by the C and CUDA extractors. */
#ifndef FOVEA_QUALITY_PSNR_H
#define FOVEA_QUALITY_PSNR_H

#include <stdint.h>

#include "quality/feature.h"

enum {
    PSNR_OPT_ENABLE_APSNR,
    PSNR_OPT_ENABLE_CHROMA,
    PSNR_OPT_ENABLE_MSE,
    PSNR_OPT_MIN_SSE,
    PSNR_OPT_REDUCED_HBD_PEAK,
    PSNR_OPTIONS
};

/* Raw values of a frame: the planes' sums of squared errors (zero for the
 * planes not summed). */
typedef struct psnr_raw {
    uint64_t sse[3];
} psnr_raw;

extern const feature_def feature_psnr;

#endif
