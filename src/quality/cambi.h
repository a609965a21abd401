/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CAMBI (libvmaf's banding metric, its `cambi` extractor): the C reference
 * of one picture's score (cambi_ref.c), shared by the feature unit
 * (feature_cambi.c). The arithmetic follows libvmaf 3.2.0's plain-C path. */
#ifndef FOVEA_QUALITY_CAMBI_H
#define FOVEA_QUALITY_CAMBI_H

#include <stddef.h>
#include <stdint.h>

#include "quality/feature.h"

/* libvmaf refuses an encode (or source) whose width and height are both below
 * this */
#define CAMBI_MIN_DIM 216
#define CAMBI_SCALES 5

/* The options of one instance, as libvmaf resolves them (0: unset). */
typedef struct cambi_params {
    int width, height, bpc; /* the input pictures */
    int enc_width, enc_height, enc_bitdepth;
    int src_width, src_height;
    int window_size;
    double topk;
    double tvi_threshold;
    double vis_lum_threshold;
    int max_log_contrast;
    int pq; /* the PQ EOTF, else BT.1886 */
    int high_res_speedup;
    int full_ref;
} cambi_params;

/* Make the state for p (size checks, the TVI and visibility tables, the
 * buffers); a message through ctx on refusal. */
int cambi_ref_open(void **priv, fovea_context *ctx, const cambi_params *p);
void cambi_ref_close(void **priv);

/* The score of the distorted picture dis, and with full_ref of the reference
 * ref (else src_score untouched); luma planes in host memory (8-bit samples
 * or 16-bit containers), strides in bytes. Scores are before cambi_max_val. */
int cambi_ref_process(void *priv, fovea_context *ctx, const uint8_t *dis, ptrdiff_t dis_stride,
                      const uint8_t *ref, ptrdiff_t ref_stride, double *dis_score,
                      double *src_score);

#endif
