/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal interface of libvmaf's integer motion feature (extractor "motion"):
 * the per-frame blurred-difference SAD and the motion2/motion3 scores derived
 * from it. C reference in motion_ref.c; docs/quality.md, "Integer motion". */
#ifndef FOVEA_QUALITY_MOTION_H
#define FOVEA_QUALITY_MOTION_H

#include <stddef.h>
#include <stdint.h>

#include "quality/feature.h"

/* 5-tap Gaussian in units of 1/65536 (sums to 65536); the same taps as VIF's
 * scale 2. */
#define MOTION_TAPS 5
extern const uint16_t motion_filter[MOTION_TAPS];

/* Smallest width and height: the mirrored border reaches 2 samples past each
 * edge, which stays inside the plane only from 3 samples on. */
#define MOTION_MIN_DIM 3

/* libvmaf's options of the extractor; motion_default_params gives its
 * defaults (those of VMAF v0.6.1). The five-frame window
 * (motion_five_frame_window) is the feature's (feature_motion.c), not
 * motion_push's. */
typedef struct motion_params {
    int width, height;
    int bpc;             /* 8 (one byte a sample) or 10, 12, 16 (16-bit LE containers) */
    int force_zero;      /* motion_force_zero: every score 0, nothing computed */
    double fps_weight;   /* motion_fps_weight, 1.0: multiplies the SAD score */
    double max_val;      /* motion_max_val, 10000.0: clip of the SAD and motion3 scores */
    double blend_factor; /* motion_blend_factor, 1.0 (no blending) */
    double blend_offset; /* motion_blend_offset, 40.0 */
    int moving_average;  /* motion_moving_average: motion3 = mean of this and the previous */
} motion_params;

void motion_default_params(motion_params *p, int width, int height, int bpc);

/* The feature "motion" (feature_motion.c): its options, in table order. */
enum {
    MOTION_OPT_BLEND_FACTOR = 0,
    MOTION_OPT_BLEND_OFFSET,
    MOTION_OPT_FIVE_FRAME,
    MOTION_OPT_FORCE_ZERO,
    MOTION_OPT_FPS_WEIGHT,
    MOTION_OPT_MAX_VAL,
    MOTION_OPT_MOVING_AVERAGE,
    MOTION_OPT_DEBUG,
    MOTION_OPTIONS
};
extern const feature_def feature_motion;

/* Scores of one frame, under libvmaf's output names. */
typedef struct motion_scores {
    int64_t frame;  /* 0-based index of the frame in its stream */
    double motion;  /* VMAF_integer_feature_motion_sad_score: this frame vs the previous */
    double motion2; /* integer_motion2: min of this and the next frame's motion */
    double motion3; /* integer_motion3: motion2 blended and clipped */
} motion_scores;

/* Sum over the plane of |blur(prev - cur)|, the blur being the 5-tap filter
 * vertically then horizontally with libvmaf's roundings and mirrored borders.
 * Planes are w x h (w, h >= MOTION_MIN_DIM), strides in bytes; row holds w
 * int32 of scratch. */
uint64_t motion_sad(const uint8_t *prev, ptrdiff_t prev_stride, const uint8_t *cur,
                    ptrdiff_t cur_stride, int w, int h, int bpc, int32_t *row);

/* The part of motion_sad from output rows [y0, y1): the SAD is the sum of the
 * parts of any split of [0, h) (integer sums: any order, the same bits). */
uint64_t motion_sad_rows(const uint8_t *prev, ptrdiff_t prev_stride, const uint8_t *cur,
                         ptrdiff_t cur_stride, int w, int h, int bpc, int y0, int y1, int32_t *row);

/* motion_sad_rows on AVX2 (motion_avx2.c, x86 only): the same sum;
 * motion_sad_rows calls it when fv_simd_avx2() says so. */
uint64_t motion_sad_rows_avx2(const uint8_t *prev, ptrdiff_t prev_stride, const uint8_t *cur,
                              ptrdiff_t cur_stride, int w, int h, int bpc, int y0, int y1,
                              int32_t *row);

/* The SAD score of a frame from its SAD: sad / 256 / (w * h) * fps_weight,
 * clipped to max_val, in libvmaf's order of double operations. */
double motion_sad_score(uint64_t sad, const motion_params *p);

/* libvmaf's motion_blend of a score, clipped to max_val: motion3's
 * "processed" value. */
double motion_blend_clip(double score, const motion_params *p);

/* The scores of frame i (0-based in its stream) from SAD scores
 * (motion_sad_score): score is frame i's, next frame i + 1's (has_next 0 at
 * the end of the stream: the last frame keeps its own score). *carry holds
 * motion3's moving-average state from frame i - 1 to frame i (frame 0 sets
 * it). The same derivation serves every backend, in libvmaf's order of double
 * operations. */
void motion_derive(const motion_params *p, int64_t i, double score, int has_next, double next,
                   double *carry, motion_scores *out);

/* A stream of reference frames in order (motion reads only the reference). */
typedef struct motion_state motion_state;

/* FOVEA_OK, FOVEA_ERR_INVALID_ARG (size, depth or option out of range),
 * FOVEA_ERR_NOMEM. */
int motion_open(motion_state **s, const motion_params *p);
void motion_close(motion_state **s);

/* Takes the luma plane of the next frame (copied; the caller may reuse it).
 * The scores of frame n need frame n + 1, so a frame's scores come one push
 * late: returns 1 with *out = the previous frame's scores, 0 after the first
 * frame, or a negative status. */
int motion_push(motion_state *s, const uint8_t *luma, ptrdiff_t stride, motion_scores *out);

/* After the last push: 1 with the last frame's scores, then 0 (also when no
 * frame was pushed). A push after the flush starts a new stream. */
int motion_flush(motion_state *s, motion_scores *out);

#endif
