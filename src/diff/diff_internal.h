/* Internal interface of the differencing system: the heat-map colour table and
 * the table of functions every backend (C reference, later CUDA) provides. */
#ifndef FOVEA_DIFF_INTERNAL_H
#define FOVEA_DIFF_INTERNAL_H

#include <stdint.h>

#include "core/backend.h"
#include "core/core.h"
#include "fovea/diff.h"

/* Heat-map colour table: entry i is the colour of d = i / (DIFF_HEAT_ENTRIES - 1). */
#define DIFF_HEAT_ENTRIES 1024
void diff_heat_table(uint8_t table[DIFF_HEAT_ENTRIES][3]);

/* BT.601 limited-range RGB -> YUV of 8-bit samples (docs/diff.md). */
static inline void diff_rgb_to_yuv(int r, int g, int b, uint8_t *y, uint8_t *u, uint8_t *v)
{
    *y = (uint8_t)(((66 * r + 129 * g + 25 * b + 128) >> 8) + 16);
    *u = (uint8_t)(((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128);
    *v = (uint8_t)(((112 * r - 94 * g - 18 * b + 128) >> 8) + 128);
}

/* One checked request handed to a backend: frames of the same size and
 * format, host memory, outputs in a supported format. */
typedef struct diff_job {
    const fovea_frame *prev, *cur;  /* for the mask: ref, cur */
    fovea_frame *out;               /* heat/noise output (NULL for the mask) */
    const fovea_pixfmt_desc *desc;  /* of prev and cur */
    int channels;                   /* 1 (gray) or 3 */
    int maxval;                     /* 2^bits - 1 */
    int threshold;                  /* the settings' or the automatic one */
} diff_job;

/* One denoising request: in filtered into out (same size and format, host,
 * no shared planes). TEMPORAL: out = one step of state towards in, with
 * state (in's size and format) left as it was. */
typedef struct diff_filter_job {
    fovea_diff_denoise_mode mode;   /* not NONE */
    const fovea_frame *in;
    fovea_frame *out;
    const fovea_pixfmt_desc *desc;
    const fovea_frame *state;       /* TEMPORAL only */
    int strength;                   /* TEMPORAL only: S, 0..255 */
} diff_filter_job;

typedef struct diff_params {
    fovea_diff_settings settings;
} diff_params;

/* A differencing backend (core/backend.h): init(priv, ctx, const diff_params *). */
typedef struct diff_backend {
    backend_info info;
    int (*heatmap)(void *priv, fovea_context *ctx, const diff_job *job);
    int (*noise)(void *priv, fovea_context *ctx, const diff_job *job);
    int (*mask)(void *priv, fovea_context *ctx, const diff_job *job, fovea_diff_mask_result *out);
    int (*denoise)(void *priv, fovea_context *ctx, const diff_filter_job *job);
    /* hist[v + maxval] = number of pixels whose plane-0 first-sample
     * difference cur - prev is v (2 * maxval + 1 entries, zeroed by the callee) */
    int (*diff_hist)(void *priv, fovea_context *ctx, const diff_job *job, int64_t *hist);
} diff_backend;

/* One step of the temporal filter on a sample: state s towards x with strength
 * S, s + floor(((x - s) * (256 - S) + 128) / 256) (floor, also for negative
 * numerators; the result stays between s and x). */
static inline int diff_temporal_step(int s, int x, int strength)
{
    const int v = (x - s) * (256 - strength) + 128;
    return s + (v >= 0 ? v >> 8 : -((255 - v) >> 8));
}

/* The C reference filters (denoise_ref.c). */
int diff_ref_denoise(void *priv, fovea_context *ctx, const diff_filter_job *job);

/* The backends: diff_ref.c (and later diff_cuda.c); the list in diff_backends.c. */
extern const diff_backend diff_backend_ref;
extern const backend_info *const diff_backends[];
extern const size_t diff_backend_count;

#endif
