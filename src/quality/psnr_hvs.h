/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The feature "psnr_hvs" (feature_psnr_hvs.c) as its extractors see it: the
 * plane tables and the steps around the per-block arithmetic
 * (psnr_hvs_block.h) that the C and CUDA extractors share. Raw values: the
 * three planes' float scores. */
#ifndef FOVEA_QUALITY_PSNR_HVS_H
#define FOVEA_QUALITY_PSNR_HVS_H

#include <stddef.h>
#include <stdint.h>

#include "quality/feature.h"

extern const feature_def feature_psnr_hvs;

/* Plane p's (0 Y, 1 Cb, 2 Cr) contrast sensitivity table and its masking
 * table, 64 floats each, row-major, as the C extractor computes them. */
void psnr_hvs_tables(int plane, float csf[64], float mask[64]);

/* Blocks along a side of n samples (8x8 blocks every 7 samples). */
int psnr_hvs_blocks(int n);

/* A plane's score from the float sum of its terms and their count. */
float psnr_hvs_score(float sum, int pixels, int bpc);

/* Plane p's float score (libvmaf's calc_psnrhvs) of reference a and
 * distorted b, w x h samples of bpc bits (16-bit words above 8), strides in
 * bytes (psnr_hvs_rows.c). */
float psnr_hvs_plane(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs, int bpc, int w,
                     int h, int plane);

#endif
