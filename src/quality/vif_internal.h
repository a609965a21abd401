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
/* Entries a table holds past VIF_LOG2_TABLE_SIZE (0): the AVX2 gathers read
 * 32 bits at an entry. */
#define VIF_LOG2_TABLE_PAD 2

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

/* The AVX2 statistic of one row (vif_avx2.c, x86 only): vif_ref.c's
 * row_statistic from the row's sigma1_sq, sigma2_sq and sigma12 (w each),
 * adding num_log, den_log, num_non_log and den_non_log to sums[0..3]. The
 * table has VIF_LOG2_TABLE_PAD entries past its end. */
/* vif_ref.c's vstat_u16 and hstat on AVX2 (same arguments and results). */
void vif_vstat_avx2(int scale, const uint32_t *const *rr, const uint32_t *const *dd, int w,
                    int shift, uint32_t *const *out);
void vif_hstat_avx2(int scale, uint32_t *const *in, int w, int32_t *const *sig);
void vif_statistic_avx2(const int32_t *s1, const int32_t *s2, const int32_t *s12, int w,
                        double limit, const uint16_t *log2_table, int64_t sums[4]);

#endif
