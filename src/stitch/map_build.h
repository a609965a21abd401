/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Building a stitch map (map.h) from a rig: per camera, the coarsest grid whose
 * float bilinear lookup stays within a tolerance of the exact projection. */
#ifndef FOVEA_STITCH_MAP_BUILD_H
#define FOVEA_STITCH_MAP_BUILD_H

#include <stdint.h>

#include "fovea/fovea.h"
#include "fovea/stitch.h"
#include "stitch/map.h"
#include "stitch/rig.h"

/* Fisheye grid nodes hold the projection extended past max_theta by
 * EXTRA_CELLS * max_step panorama pixel pitches (at most EXTRA_MAX_DEG, and less
 * where the angle polynomial stops increasing): enough that no cell holding a
 * visible pixel has a NaN node, little enough that a reader ignoring the clip
 * ellipse sees only a thin extra band. */
#define FOVEA_MAP_FISHEYE_EXTRA_CELLS 3.0
#define FOVEA_MAP_FISHEYE_EXTRA_MAX_DEG 20.0

/* fovea_stitch_map_camera_stats, fovea_stitch_map_stats: fovea/stitch.h */

typedef struct fv_map_build_options {
    int max_step;     /* coarsest grid tried: 1, 2, 4, 8, 16 or 32 (default 16) */
    double tolerance; /* allowed |lookup - exact| in u and in v, camera px (default 0.01) */
    fovea_stitch_map_stats *stats; /* optional output */
} fv_map_build_options;

void fv_map_build_default_options(fv_map_build_options *opt);

/* Build map from rig. For each camera, grids of step max_step, max_step/2, ..., 2
 * are checked at every panorama pixel: wherever the exact projection is inside the
 * image or the lookup sees the pixel, the lookup must be finite, the exact
 * projection defined, and |lookup - exact| <= tolerance in u and v (so pixels seen
 * by one and not the other lie within tolerance of the image border). The coarsest
 * passing step is kept; when none passes, step 1 (every pixel stored).
 * map is overwritten (pass a zeroed or freed map); on failure it is left zeroed.
 * ctx may be NULL (serial, no error message). opt may be NULL (defaults).
 * @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (bad rig/options), FOVEA_ERR_NOMEM */
int fv_map_build(fovea_context *ctx, const fovea_rig *rig, fovea_stitch_map *map,
                 const fv_map_build_options *opt);

#endif
