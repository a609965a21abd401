/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal interface of the VIF feature: the constants of libvmaf's integer
 * VIF, its raw values and its C reference. */
#ifndef FOVEA_QUALITY_VIF_INTERNAL_H
#define FOVEA_QUALITY_VIF_INTERNAL_H

#include <stdint.h>

#include "core/core.h"
#include "quality/feature.h"

/* Number of VIF scales. */
#define VIF_SCALES 4

/* Gaussian filters of the four scales, in 1/65536 (each sums to 65536). */
#define VIF_MAX_TAPS 17
extern const uint16_t fv_vif_filter[VIF_SCALES][VIF_MAX_TAPS];
extern const int fv_vif_taps[VIF_SCALES];

/* Entries 32768..65535 of the table hold round(2048 * log2(i)) as libvmaf computes
 * it (log2 rounded to float first); the rest are 0. */
#define VIF_LOG2_TABLE_SIZE 65536
void fv_vif_log2_table(uint16_t *table);

/* Smallest width and height the arithmetic is defined for (mirror borders at
 * the 4th scale need 2 rows and columns). */
#define VIF_MIN_DIM 16

/* Luma plane handed to the C reference. */
typedef struct vif_plane {
    const uint8_t *data; /* 8-bit samples, or 16-bit little-endian containers */
    ptrdiff_t stride;    /* bytes */
    fovea_memtype mem;   /* host or pinned */
} vif_plane;

/* What a backend returns per frame: libvmaf's float numerator and denominator
 * of each scale. Scores are derived from these by feature_vif's derive,
 * identically for every backend. */
typedef struct vif_raw {
    float num[VIF_SCALES];
    float den[VIF_SCALES];
} vif_raw;

typedef struct vif_params {
    int width, height;
    int bpc; /* 8, 10, 12 or 16 */
    double enhn_gain_limit;
} vif_params;

/* The feature "vif" (feature_vif.c): its options, in table order. */
enum { VIF_OPT_DEBUG = 0, VIF_OPT_GAIN_LIMIT, VIF_OPTIONS };
extern const feature_def feature_vif;

/* The C reference (vif_ref.c): state for one size and depth, and the raw
 * values of one pair, split over ctx's threads by rows (ctx NULL: on the
 * calling thread). */
int vif_ref_open(void **priv, fovea_context *ctx, const vif_params *p);
void vif_ref_close(void **priv);
int vif_ref_process(void *priv, fovea_context *ctx, const vif_plane *ref, const vif_plane *dis,
                    vif_raw *out);

#endif
