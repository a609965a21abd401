/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Import of full-resolution float lookup tables (two cameras, left/right) into a
 * step-1 stitch map with explicit weights. Table conventions: docs/map-format.md. */
#ifndef FOVEA_STITCH_MAP_IMPORT_H
#define FOVEA_STITCH_MAP_IMPORT_H

#include <stddef.h>

#include "stitch/map.h"

/* Read dir/lut_left_x.bin, lut_left_y.bin, lut_right_x.bin, lut_right_y.bin,
 * weight_left.bin and weight_right.bin: raw little-endian float32, row-major,
 * pano_w x pano_h each. Coordinates are camera pixels with the top-left pixel
 * center at (0,0); a coordinate that is non-finite, negative or past the last
 * pixel (u > cam_w-1, v > cam_h-1) marks the pixel as not seen by that camera;
 * such nodes are stored as (-1,-1) (outside the image, but finite so they do not
 * spoil the exact lookup of their seen neighbors).
 * Camera 0 = left, camera 1 = right, both cam_w x cam_h; step 1; px_scale 1.
 * Weights must be finite and >= 0; they are set to 0 where the camera does not see.
 * @param m receives the map (zeroed first; left empty on failure)
 * @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_IO (missing/unreadable
 *         file), FOVEA_ERR_MISMATCH (file size is not pano_w*pano_h*4),
 *         FOVEA_ERR_CORRUPT (bad weight) or FOVEA_ERR_NOMEM; err names the file. */
int fv_map_import_tables(const char *dir, int pano_w, int pano_h, int cam_w, int cam_h,
                         float feather, fovea_stitch_map *m, char *err, size_t errsz);

#endif
