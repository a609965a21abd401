/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Hugin's photometric model as nona applies it (docs/stitch.md "Hugin projects"):
 * the tables both stitch backends read, built once per stitcher from the map's
 * per-camera parameters (photo.c), and the per-sample arithmetic they share. */
#ifndef FOVEA_STITCH_PHOTO_H
#define FOVEA_STITCH_PHOTO_H

#include <stdint.h>

#include "stitch/color.h"
#include "stitch/map.h"
#include "stitch/stitch_math.h"

/* The EMoR response model's data (emor_data.c): mean curve and five basis curves. */
extern const double fv_emor_f0[1024];
extern const double fv_emor_h[5][1024];

/* A camera's tables: vig = (cx, cy, s, Va, Vb, Vc, Vd, 0): the vignetting factor
 * at image point (u, v) is Va + r2 (Vb + r2 (Vc + r2 Vd)), r2 = ((u - cx) s)^2 +
 * ((v - cy) s)^2 (stitch_photo_vig); lin[k][q] is the linear light of a sample of
 * quarter code q in channel k, exposure and white balance included. */
typedef struct stitch_photo_cam {
    float vig[STITCH_PHOTO_VIG];
    float lin[3][FOVEA_LUT_SIZE];
} stitch_photo_cam;

/* What the backends get (stitch_params.photo): per camera its tables or NULL
 * (the camera's samples pass unchanged), and the output response table
 * (STITCH_PHOTO_OUT_SIZE quarter codes, stitch_photo_q). */
typedef struct stitch_photo {
    const stitch_photo_cam *cam[FOVEA_STITCH_MAX_CAMERAS];
    const uint16_t *out;
} stitch_photo;

/* The stitcher's own copy: the view above and the storage it points into. */
typedef struct stitch_photo_store {
    stitch_photo view;
    uint16_t out[STITCH_PHOTO_OUT_SIZE];
    stitch_photo_cam cam[FOVEA_STITCH_MAX_CAMERAS];
} stitch_photo_store;

/* Build the tables of the map's cameras whose photometric part is enabled.
 * @return 1 (*out allocated, to free()), 0 (no camera has one: *out NULL) or
 *         FOVEA_ERR_NOMEM */
int fv_photo_build(const fovea_stitch_map *m, stitch_photo_store **out);

/* Hugin's EMoR response curve of coefficients p (rounded to float as Hugin
 * stores them) at 1024 points over [0, 1]. */
void fv_photo_emor_curve(const double p[5], double lut[1024]);

#endif
