/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CAMBI (libvmaf's banding metric, its `cambi` extractor): the C reference
 * of one picture's score (cambi_ref.c), shared by the feature unit
 * (feature_cambi.c). The arithmetic follows libvmaf 3.2.0's plain-C path. */
#ifndef FOVEA_QUALITY_CAMBI_H
#define FOVEA_QUALITY_CAMBI_H

#include <stddef.h>
#include <stdint.h>

#include "quality/feature.h"

/* libvmaf refuses an encode (or source) whose width and height are both below
 * this */
#define CAMBI_MIN_DIM 216
#define CAMBI_SCALES 5

/* The options of one instance, as libvmaf resolves them (0: unset). */
typedef struct cambi_params {
    int width, height, bpc; /* the input pictures */
    int enc_width, enc_height, enc_bitdepth;
    int src_width, src_height;
    int window_size;
    double topk;
    double tvi_threshold;
    double vis_lum_threshold;
    int max_log_contrast;
    int pq; /* the PQ EOTF, else BT.1886 */
    int high_res_speedup;
    int full_ref;
    int threads; /* C: the threads one pair may be split over (0, 1: none) */
} cambi_params;

/* libvmaf's reciprocal table covers window areas below this */
#define CAMBI_RECIP_SIZE 4226
/* libvmaf's largest number of contrast levels (1 << max_log_contrast) */
#define CAMBI_MAX_DIFFS 32

/* What every backend derives from the options at open: the sizes, the
 * windows, the TVI and visibility thresholds and the reciprocal table. */
typedef struct cambi_plan {
    int enc_w, enc_h, enc_bd;
    int src_w, src_h;
    int speedup;
    int window, src_window;
    int num_diffs;
    uint16_t tvi[CAMBI_MAX_DIFFS]; /* largest 10-bit value (+ num_diffs) where a difference of
                                      d + 1 levels is visible */
    uint16_t vlt_luma;
    uint16_t band_base, band_size; /* the values whose histogram rows are ever read */
    float recip[CAMBI_RECIP_SIZE]; /* libvmaf's 1/i as floats */
} cambi_plan;

extern const feature_def feature_cambi;

/* The two doubles of one pair (the feature's raw values). */
typedef struct cambi_raw {
    double dis, src;
} cambi_raw;

/* p from the options of an extractor's setup (feature_cambi.c). */
void cambi_params_from(const feature_setup *s, cambi_params *p);

/* The plan of p, refusing (with a message through ctx) what libvmaf
 * refuses: the C and CUDA extractors refuse the same instances. */
int cambi_plan_make(cambi_plan *pl, fovea_context *ctx, const cambi_params *p);

/* The width and height of scale s of a w x h picture. */
void cambi_scale_size(int w, int h, int speedup, int s, int *sw, int *sh);

/* The number of flat samples the 7x7 window of the spatial mask must exceed
 * in a w x h picture. */
uint32_t cambi_mask_threshold(int w, int h);

/* The nearest-sample positions of the scaling of in samples to out samples
 * (libvmaf's float steps): pos[0 .. out). */
void cambi_positions(int in, int out, int *pos);

/* The contrast weight of a difference of d + 1 levels (d < CAMBI_MAX_DIFFS). */
extern const int cambi_contrast_weight[CAMBI_MAX_DIFFS];

/* The mean of the top-k fraction of the w x h values cv (reordered: libvmaf's
 * quick select, then a double sum in the order it leaves them). */
double cambi_pool(float *cv, double topk, int w, int h);

/* The top-k mean cambi_pool gives, from the counters of the device's exact
 * sum (cambi_pixel.h: CAMBI_SUM_COUNT of them) of the k largest values: 1
 * with *mean when every partial sum of the sequential double sum is exact
 * (then its order does not matter), 0 when that is not shown (pool the map). */
int cambi_topk_mean(const uint64_t *c, int k, double *mean);

/* The number of values cambi_pool averages among n. */
int cambi_topk_count(double topk, int n);

/* The score of a picture from its CAMBI_SCALES per-scale pooled values. */
double cambi_combine(const double *per_scale, int window);

/* Make the state for p (size checks, the TVI and visibility tables, the
 * buffers); a message through ctx on refusal. */
int cambi_ref_open(void **priv, fovea_context *ctx, const cambi_params *p);
void cambi_ref_close(void **priv);

/* The score of the distorted picture dis, and with full_ref of the reference
 * ref (else src_score untouched); luma planes in host memory (8-bit samples
 * or 16-bit containers), strides in bytes. Scores are before cambi_max_val.
 * With ctx and p->threads above 1, the mask and the contrast values are
 * split over ctx's threads by bands of rows (the same doubles). */
int cambi_ref_process(void *priv, fovea_context *ctx, const uint8_t *dis, ptrdiff_t dis_stride,
                      const uint8_t *ref, ptrdiff_t ref_stride, double *dis_score,
                      double *src_score);

#endif
