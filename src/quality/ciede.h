/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The C computation of the feature "ciede" (feature_ciede.c) shared by its
 * CUDA extractor (feature_ciede_cuda.c: the rare slow path). */
#ifndef FOVEA_QUALITY_CIEDE_H
#define FOVEA_QUALITY_CIEDE_H

#include "quality/feature.h"

/* One frame's shape as libvmaf reads it. */
typedef struct ciede_geom {
    int width, height, bpc, chroma;
    int cw, ch, cstride; /* chroma planes, and libvmaf's padded row (samples) */
} ciede_geom;

extern const feature_def feature_ciede;

void ciede_geom_of(ciede_geom *g, const feature_setup *s);

/* The raw value of one pair: every pixel's dE00 (ciede_pixel.h) added to one
 * double in raster order; rows: 4 x width floats of scratch. */
double ciede_frame_sum(const ciede_geom *g, const feature_pair *p, float *rows);

/* The CUDA extractor's counts since init (ambiguous pixels sent to the
 * host, pairs recomputed on the host after a list overflow), and, when cap
 * is nonzero, a smaller list for later launches (tests force the slow path
 * with it). */
void ciede_cuda_stats(void *priv, unsigned cap, unsigned long long *ambiguous,
                      unsigned long long *fallbacks);

#endif
