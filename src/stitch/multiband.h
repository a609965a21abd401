/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Multi-band blending and seam placement for a stitcher (host logic): each
 * camera warped alone by the stitcher's backend, the seam masks, and the
 * pyramid blend over the feathered panorama (docs/stitch.md, "Multi-band
 * blending"). */
#ifndef FOVEA_MULTIBAND_H
#define FOVEA_MULTIBAND_H

#include "stitch/pyramid.h"
#include "stitch/stitch_internal.h"

typedef struct fv_multiband fv_multiband;

/* Made by fovea_stitcher_open for FOVEA_BLEND_MULTIBAND (after the backend). */
int fv_multiband_open(fv_multiband **mb, fovea_stitcher *st);
void fv_multiband_close(fv_multiband **mb);

/* The stitcher's new correction tables, for the cameras' own stitches. */
int fv_multiband_set_tables(fv_multiband *mb, const stitch_tables *t);

/* The stitch of in into out: the backend's feathered panorama (with overlap
 * statistics when want_stats, as stitch_backend.process), every covered
 * pixel then replaced by the multi-band blend. */
int fv_multiband_process(fv_multiband *mb, const fovea_frame *const *in, fovea_frame *out,
                         int want_stats);

/* whole = 1: every camera's pyramid over the whole panorama (the
 * computation before restricted blending, kept for tests; host only, the
 * device backend always restricts). Same output either way. */
void fv_multiband_set_whole(fv_multiband *mb, int whole);
/* The plan of the luma (or RGBA) planes, or of the chroma planes. */
const fv_pyr_plan *fv_multiband_plan(const fv_multiband *mb, int chroma);

/* The seam labels in use (w x h bytes: camera per pixel, 255 uncovered), for
 * tests and measurements; NULL before the first frame. */
const uint8_t *fv_multiband_labels(const fv_multiband *mb);

/* What a backend that works on device frames (BACKEND_READS_DEVICE) does of
 * multiband blending on its device: stitch_backend.multiband names its table
 * (multiband_cuda.c). multiband.c keeps the host logic (coverage, labels,
 * the seam's dynamic programming) and hands the per-pixel work over: the
 * same integer arithmetic as its host code, so the same output. */
typedef struct mb_setup {
    int n, w, h, cw, ch, levels;
    const uint8_t *const *seen;  /* n planes w x h: camera c sees the pixel */
    const uint8_t *const *cseen; /* n planes cw x ch */
    const uint8_t *covered, *ccovered;
    const uint32_t *cells; /* fv_seam_cells, ncells entries (NULL: no seam placement) */
    size_t ncells;
    /* where each camera matters (pyramid.h): luma or RGBA, chroma */
    const fv_pyr_plan *plan, *cplan;
} mb_setup;

typedef struct mb_device_ops {
    int (*open)(void **dev, fovea_context *ctx, const mb_setup *s);
    void (*close)(void **dev);
    /* Device views of the inputs, staged once for every stitch of the frame. */
    int (*stage)(void *dev, const fovea_frame *const *in, const fovea_frame **view);
    /* The device frame the panorama is made in: out itself on the device,
     * else a frame of the device's (finish copies it to out). */
    int (*target)(void *dev, fovea_frame *out, fovea_frame **pano);
    /* The seam's reduced difference map of the warped images (device
     * frames), into diffs (ncells, host); returns when it is there. */
    int (*seam_diffs)(void *dev, const fovea_frame *warped, int32_t *diffs);
    /* New labels (w x h, host): rebuild the masks' pyramids (chroma ones too
     * when yuv). */
    int (*set_labels)(void *dev, const uint8_t *label, int yuv);
    /* fill_unseen and the blend of every plane of the warped images into pano,
     * where covered. */
    int (*blend)(void *dev, fovea_frame *warped, fovea_frame *pano);
    /* pano to out when they differ. */
    int (*finish)(void *dev, const fovea_frame *pano, fovea_frame *out);
} mb_device_ops;

/* multiband_cuda.c (CUDA builds): the CUDA backend's table. */
extern const mb_device_ops multiband_cuda_ops;

#endif
