/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The stitching demo (`make demo`, `fovea demo`): render a ground-truth
 * panorama and the camera views of a rig from the procedural scene, give the
 * cameras different color responses, stitch them back with automatic color
 * balance, and measure the result. Also the end-to-end test's engine. */
#ifndef FOVEA_TOOLS_DEMO_H
#define FOVEA_TOOLS_DEMO_H

#include "fovea/diff.h"
#include "fovea/stitch.h"

typedef struct demo_options {
    int scale_div;               /* 1 = the rig (2 x 3840x2160 -> 5700x1900), 2, 4, ... */
    int identical_colors;        /* 1: every camera has the identity response */
    int color_auto;              /* 1: analyze the overlaps and balance (default) */
    uint64_t seed;               /* scene seed */
    const char *out_dir;         /* write PNGs here (NULL: none) */
    int yuv;                     /* 1: the cameras converted to I420 and stitched in I420,
                               as video is; PSNR against the ground truth put
                               through the same conversions, mismatch on Y, U, V */
    fovea_colorspace colorspace; /* yuv: matrix of the conversions and the stitch (BT.601) */
    int full_range;              /* yuv: 1 = full-range YUV (default 0: limited) */
    /* called as each of the run's steps starts (1..steps: the map, the ground
     * truth, each camera, the stitch, the outputs, the heat map) with what it
     * does, and once at the end with step steps + 1 and what NULL; NULL: none */
    void (*progress)(void *opaque, int step, int steps, const char *what);
    void *progress_opaque;
} demo_options;

typedef struct demo_result {
    int num_cameras;
    int pano_width, pano_height;
    double pct_covered;     /* panorama pixels seen by some camera */
    double psnr_covered;    /* stitched vs ground truth over covered pixels, dB */
    double mismatch_before; /* mean |A - B| over overlap samples and R, G, B (yuv: Y, U, V),
                                 codes, no correction */
    double mismatch_after;  /* the same with the corrections in use after balancing */
    fovea_color_correction cc[FOVEA_STITCH_MAX_CAMERAS];
    double seconds_render, seconds_map, seconds_stitch;
    /* heatmap.png: the heat map of a view of the scene and the same view
       panned by heat_pan_deg (fovea_diff) */
    int heat_width, heat_height;
    double heat_pan_deg;
    int heat_normalize;      /* the difference shown red */
    double heat_changed_pct; /* pixels with a channel difference > 10 */
    const char *heat_backend;
    const char *backend;
    int grid_step[FOVEA_STITCH_MAX_CAMERAS];
} demo_result;

void demo_default_options(demo_options *o);

/* Run the demo on ctx's backend. err gets a message on failure. With
 * out_dir, the PNGs and rig.json (the rig, accepted by `fovea rig check`,
 * whose cameras are camera<c>.png's size) are written there. */
int demo_run(fovea_context *ctx, const demo_options *o, demo_result *r, char *err, size_t errsz);

#endif
