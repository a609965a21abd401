/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal stitcher state shared by the host logic (stitch.c), the C reference
 * backend (stitch_ref.c) and the CUDA backend (stitch_cuda.c + stitch.cu). */
#ifndef FOVEA_STITCH_INTERNAL_H
#define FOVEA_STITCH_INTERNAL_H

#include "core/backend.h"
#include "core/core.h"
#include "fovea/stitch.h"
#include "stitch/color.h"
#include "stitch/map.h"
#include "stitch/photo.h"
#include "stitch/stitch_cuda.h"
#include "stitch/stitch_math.h"

/* Correction tables handed to the backends: lut[c][k][0..1020] (RGB: per
 * channel; YUV: k = 0 luma curve) and, for YUV, the chroma tables. */
typedef struct stitch_tables {
    float lut[FOVEA_STITCH_MAX_CAMERAS][3][FOVEA_LUT_SIZE];
    /* fv_round_u8 of lut: a pixel one camera alone weights (w = 1 exactly) is
     * its camera's rounded table entry. YUV: [c][0] the luma curve ([c][1] and
     * [c][2] unused) */
    uint8_t lut8[FOVEA_STITCH_MAX_CAMERAS][3][FOVEA_LUT_SIZE];
    /* YUV: chroma[c][y] = (a_u, s_u, a_v, s_v) for a 2x2 block whose raw luma
     * averages code y (stitch_chroma_index): camera c's corrected U of a chroma
     * sample of quarter code q is a_u + s_u * q (float operations in that order),
     * V likewise (see fv_stitch_build_tables) */
    float chroma[FOVEA_STITCH_MAX_CAMERAS][STITCH_CHROMA_CODES][4];
} stitch_tables;

/* What a stitch backend is made for (init's params). The stitcher owns it and
 * what it points to, unchanged until the backend is closed (ref_runs_off
 * excepted: tests set it between calls). */
typedef struct stitch_params {
    const fovea_stitch_map *map; /* the stitcher's copy */
    const fovea_stitcher_settings *settings;
    const int32_t *log_table;  /* FOVEA_LOG_TABLE_SIZE entries, for overlap
                                              statistics */
    const stitch_photo *photo; /* Hugin's photometric tables, or NULL (none) */
    int ref_runs_off;          /* C backend: 1 = every pixel through the per-pixel
                                              weights, no single-camera runs (tests compare) */
} stitch_params;

/* A stitch backend (core/backend.h): init(priv, ctx, const stitch_params *)
 * keeps a pointer to the params. */
typedef struct stitch_backend {
    backend_info info;
    /* Stitch inputs into out with the tables of the last set_tables. When
     * want_stats, also accumulate overlap statistics of this frame; a backend
     * may complete them asynchronously and report readiness through
     * poll_stats. */
    int (*process)(void *priv, const fovea_frame *const *in, fovea_frame *out, int want_stats);
    /* Returns 1 and fills *stats when statistics requested earlier are ready,
     * 0 when none are pending/ready; wait = 1 blocks until ready. */
    int (*poll_stats)(void *priv, fv_overlap_stats *stats, int wait);
    /* Take new tables (CUDA: upload them on the stream). t stays valid and
     * unchanged until the next set_tables or close. */
    int (*set_tables)(void *priv, const stitch_tables *t);
    /* Multi-band blending on the backend's device (multiband.h); NULL: on the
     * host, multiband.c's own loops. */
    const struct mb_device_ops *multiband;
} stitch_backend;

struct fovea_stitcher {
    fovea_context *ctx;
    fovea_stitch_map map; /* deep copy */
    fovea_stitcher_settings settings;
    stitch_params params; /* the backend's view of the above */
    const stitch_backend *backend;
    void *priv; /* backend state */
    int n;      /* cameras */
    fovea_color_correction cc[FOVEA_STITCH_MAX_CAMERAS];
    fovea_color_correction target[FOVEA_STITCH_MAX_CAMERAS]; /* AUTO: where cc goes */
    int color_primed; /* AUTO: the first estimate (or set_color) is in cc and target */
    int color_moving; /* AUTO: cc left the dead band and moves toward target */
    stitch_tables tables;
    int64_t frame;               /* frames processed */
    stitch_input_kind last_kind; /* tables are built for this family */
    int tables_valid;
    int32_t log_table[FOVEA_LOG_TABLE_SIZE]; /* for overlap statistics */
    struct fv_multiband *mb;                 /* FOVEA_BLEND_MULTIBAND: multiband.c */
    stitch_photo_store *photo;               /* NULL: no photometric correction */
    int photo_warned;                        /* YUV inputs, which it skips, were logged */
};

/* The stitch backends: stitch_ref.c, stitch_cuda.c (CUDA builds); the list in
 * stitch_backends.c. */
extern const stitch_backend stitch_backend_ref;
extern const stitch_backend stitch_backend_cuda;
extern const backend_info *const stitch_backends[];
extern const size_t stitch_backend_count;

/* Build the correction tables for a family of inputs from st->cc: yuv 0 for RGB
 * inputs, else the STITCH_YUV_* flags of the YUV conventions (stitch_cuda.h). */
void fv_stitch_build_tables(const fovea_color_correction *cc, int n, int yuv, stitch_tables *t);

/* The STITCH_YUV_* flags of the settings' YUV conventions (with STITCH_YUV). */
int fv_stitch_yuv_flags(const fovea_stitcher_settings *s);

/* Deep copy of a map. */
int fv_stitch_map_copy(fovea_stitch_map *dst, const fovea_stitch_map *src);

/* Reference helpers shared with tests: the output of one RGB panorama pixel and
 * the overlap statistics it contributes. */
stitch_input_kind fv_stitch_input_kind(fovea_pixfmt fmt);

#endif
