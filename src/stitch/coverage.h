/* Coverage statistics and a colour visualisation of a stitch map (for
 * `fovea rig check`): who sees what, how wide the overlaps are, where the seams run. */
#ifndef FOVEA_STITCH_COVERAGE_H
#define FOVEA_STITCH_COVERAGE_H

#include <stddef.h>
#include <stdint.h>

#include "stitch/map.h"

typedef struct fovea_coverage {
    int num_cameras;
    int64_t total;                 /* panorama pixels */
    double pct_none;               /* % of panorama pixels seen by no camera */
    double pct_one;                /* ... by exactly one camera */
    double pct_multi;              /* ... by two or more */
    double pct_camera[FOVEA_STITCH_MAX_CAMERAS];  /* ... by camera c */
    /* Pairs a < b (entries [a][b]; [b][a] mirrors them, the diagonal is 0):
     * pct: % of panorama pixels both see; rows: rows where both see at least one
     * pixel; width: median over those rows of the number of pixels both see in the
     * row (the overlap's horizontal extent in panorama pixels; 0 when none). */
    double overlap_pct[FOVEA_STITCH_MAX_CAMERAS][FOVEA_STITCH_MAX_CAMERAS];
    int overlap_rows[FOVEA_STITCH_MAX_CAMERAS][FOVEA_STITCH_MAX_CAMERAS];
    double overlap_width[FOVEA_STITCH_MAX_CAMERAS][FOVEA_STITCH_MAX_CAMERAS];
} fovea_coverage;

/* Coverage of map by fovea_map_lookup. @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_NOMEM */
int fovea_map_coverage(const fovea_stitch_map *map, fovea_coverage *out);

/* Colour of camera c in the visualisation (RGB). */
void fovea_coverage_color(int c, uint8_t rgb[3]);

/* RGB24 picture of the map, pano_width x pano_height, rows stride bytes apart:
 * each pixel is the weight-blended colour of the cameras (fovea_map_weights),
 * at 60% intensity where one camera sees it and full intensity in overlaps; seams
 * (the camera of largest weight differs from the right or lower neighbour's) are
 * white; uncovered pixels black.
 * @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_NOMEM */
int fovea_map_coverage_image(const fovea_stitch_map *map, uint8_t *rgb, ptrdiff_t stride);

#endif
