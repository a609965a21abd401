/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Multi-band blending and seam placement for a stitcher (host logic): each
 * camera warped alone by the stitcher's backend, the seam masks, and the
 * pyramid blend over the feathered panorama (docs/stitch.md, "Multi-band
 * blending"). */
#ifndef FOVEA_MULTIBAND_H
#define FOVEA_MULTIBAND_H

#include "stitch/stitch_internal.h"

typedef struct fv_multiband fv_multiband;

/* Made by fovea_stitcher_open for FOVEA_BLEND_MULTIBAND (after the backend). */
int fv_multiband_open(fv_multiband **mb, fovea_stitcher *st);
void fv_multiband_close(fv_multiband **mb);

/* The stitcher's new correction tables, for the cameras' own stitches. */
int fv_multiband_set_tables(fv_multiband *mb, const stitch_tables *t);

/* out holds the feathered panorama of in (the stitcher's backend made it):
 * replace every covered pixel by the multi-band blend. */
int fv_multiband_process(fv_multiband *mb, const fovea_frame *const *in, fovea_frame *out);

/* The seam labels in use (w x h bytes: camera per pixel, 255 uncovered), for
 * tests and measurements; NULL before the first frame. */
const uint8_t *fv_multiband_labels(const fv_multiband *mb);

#endif
