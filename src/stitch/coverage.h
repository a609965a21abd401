/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Coverage statistics and a color visualization of a stitch map (for
 * `fovea rig check`): who sees what, how wide the overlaps are, where the seams run. */
#ifndef FOVEA_STITCH_COVERAGE_H
#define FOVEA_STITCH_COVERAGE_H

#include <stddef.h>
#include <stdint.h>

#include "fovea/stitch.h"
#include "stitch/map.h"

/* fovea_stitch_coverage and fovea_stitch_map_coverage(): fovea/stitch.h */

/* Color of camera c in the visualization (RGB). */
void fv_coverage_color(int c, uint8_t rgb[3]);

/* RGB24 picture of the map, pano_width x pano_height, rows stride bytes apart:
 * each pixel is the weight-blended color of the cameras (fv_map_weights),
 * at 60% intensity where one camera sees it and full intensity in overlaps; seams
 * (the camera of largest weight differs from the right or lower neighbor's) are
 * white; uncovered pixels black.
 * @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_NOMEM */
int fv_map_coverage_image(const fovea_stitch_map *map, uint8_t *rgb, ptrdiff_t stride);

#endif
