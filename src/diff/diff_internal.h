/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal interface of the differencing system: the heat-map color table and
 * the table of functions every backend (C reference, CUDA) provides. */
#ifndef FOVEA_DIFF_INTERNAL_H
#define FOVEA_DIFF_INTERNAL_H

#include <stdint.h>

#include "core/backend.h"
#include "core/core.h"
#include "diff/changed.h"
#include "fovea/diff.h"

/* Heat-map color table: entry i is the color of d = i / (DIFF_HEAT_ENTRIES - 1). */
#define DIFF_HEAT_ENTRIES 1024
void diff_heat_table(uint8_t table[DIFF_HEAT_ENTRIES][3]);

/* The table entry of difference v on a scale topping at top (> 0): the
 * rounded min(v, top) / top x 1023 (docs/diff.md). */
static inline int diff_heat_index(int64_t v, int64_t top)
{
    if (v > top)
        v = top;
    return (int)((v * (DIFF_HEAT_ENTRIES - 1) + top / 2) / top);
}

/* BT.601 limited-range RGB -> YUV of 8-bit samples (docs/diff.md). */
static inline void diff_rgb_to_yuv(int r, int g, int b, uint8_t *y, uint8_t *u, uint8_t *v)
{
    *y = (uint8_t)(((66 * r + 129 * g + 25 * b + 128) >> 8) + 16);
    *u = (uint8_t)(((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128);
    *v = (uint8_t)(((112 * r - 94 * g - 18 * b + 128) >> 8) + 128);
}

/* One checked call handed to a backend: the pair as given (same size and
 * format; host, pinned, or device memory where the backend reads it), how to
 * denoise it, and the outputs wanted (checked: size, format, no plane shared
 * with the inputs except an overlay noise map that is cur itself). */
typedef struct diff_call {
    const fovea_frame *prev, *cur;   /* for the mask: ref, cur */
    const fovea_pixfmt_desc *desc;   /* of prev and cur */
    int channels;                    /* 1 (gray) or 3 */
    int maxval;                      /* 2^bits - 1 */
    int top;                         /* heat map: the difference that maps to 1.0 */
    fovea_diff_denoise_mode denoise; /* NONE for fovea_diff_noise_sigma */
    int restart;                     /* TEMPORAL: the state starts from prev */
    int strength;                    /* TEMPORAL: S */
    int want_hist;                   /* begin fills the histogram */
    int threshold;                   /* maps: the settings' or the automatic one */
    fovea_frame *heat, *noise;       /* wanted map outputs, or NULL */
    fovea_diff_mask_result *mask;    /* wanted mask, or NULL */
    int async;                       /* mask alone: maps queues it, collect completes it */
} diff_call;

/* One fovea_diff_denoise request: in filtered into out (same size and format,
 * no shared planes). TEMPORAL: one step of the backend's state with in (the
 * state starts from in when restart), out = the state after it. */
typedef struct diff_filter_job {
    fovea_diff_denoise_mode mode; /* not NONE */
    const fovea_frame *in;
    fovea_frame *out;
    const fovea_pixfmt_desc *desc;
    int strength; /* TEMPORAL only: S, 0..255 */
    int restart;  /* TEMPORAL only */
} diff_filter_job;

typedef struct diff_params {
    fovea_diff_settings settings;
    int generic; /* C reference: the generic path for every format (tests) */
} diff_params;

/* Tests: fovea_diff_open whose C reference takes its generic path for every
 * format, the specification the fast paths (diff_fast.c) are compared with. */
int diff_open_generic(fovea_diff **d, fovea_context *ctx, const fovea_diff_settings *s);

/* A differencing backend (core/backend.h): init(priv, ctx, const diff_params *).
 * A call is begin, then maps (diff.c derives the automatic threshold from the
 * histogram between the two); the pair begin made stays valid until maps. */
typedef struct diff_backend {
    backend_info info;
    /* Make the pair the maps compare: the pair as given, or both frames
     * filtered, or one temporal step (the state before and after it). With
     * want_hist, hist[v + maxval] = number of pixels whose plane-0 first-sample
     * difference cur - prev of that pair is v (2 maxval + 1 entries). */
    int (*begin)(void *priv, fovea_context *ctx, const diff_call *c, int64_t *hist);
    /* The wanted outputs of the pair begin made: heat map, mask, then the
     * noise map (overlay: over c->cur as given, copied into the output first
     * unless the output is c->cur). Host outputs are complete on return. */
    int (*maps)(void *priv, fovea_context *ctx, const diff_call *c);
    int (*denoise)(void *priv, fovea_context *ctx, const diff_filter_job *job);
    /* Complete the mask of an async maps call (its c->mask filled). */
    int (*collect)(void *priv, fovea_context *ctx);
} diff_backend;

/* One step of the temporal filter on a sample: state s towards x with strength
 * S, s + floor(((x - s) * (256 - S) + 128) / 256) (floor, also for negative
 * numerators; the result stays between s and x). */
static inline int diff_temporal_step(int s, int x, int strength)
{
    const int v = (x - s) * (256 - strength) + 128;
    return s + (v >= 0 ? v >> 8 : -((255 - v) >> 8));
}

/* The C reference filters (denoise_ref.c) of one host frame: in -> out with
 * MEDIAN3 or GAUSS5, or out = one temporal step of state towards in. */
int diff_ref_filter(fovea_context *ctx, fovea_diff_denoise_mode mode, const fovea_frame *in,
                    const fovea_frame *state, int strength, fovea_frame *out);

/* ---- fast paths of the C reference (diff_fast.c): 8-bit RGB24, RGBA, I420 */

/* Values of the SUM measure of 8-bit samples, 0..765. */
#define DIFF_FAST_VALUES 766

/* Color tables indexed by a pixel's difference v: R | G << 8 | B << 16, the
 * same with 11 bits a component (four add up without carries), and its
 * BT.601 Y. */
typedef struct diff_fast_lut {
    uint32_t rgb[DIFF_FAST_VALUES];
    uint32_t wide[DIFF_FAST_VALUES];
    uint8_t y[DIFF_FAST_VALUES];
} diff_fast_lut;

/* 1 for the input formats with fast paths. */
int diff_fast_format(fovea_pixfmt fmt);
/* Bytes of scratch diff_fast_row needs for rows of w pixels. */
size_t diff_fast_scratch_bytes(int w);
/* Heat map: entry v = the color of diff_heat_index(v, top). */
void diff_fast_heat_lut(const uint8_t heat[DIFF_HEAT_ENTRIES][3], int top, diff_fast_lut *t);
/* Noise map (black): entry v = red when v > threshold, else black. */
void diff_fast_noise_lut(int threshold, diff_fast_lut *t);
/* The SUM (sum != NULL) and MAX (mx != NULL) measures of row y's pixels. */
void diff_fast_row(const fovea_frame *a, const fovea_frame *b, int y, uint8_t *scratch,
                   uint16_t *sum, uint16_t *mx);
/* Rows y0 (even) and y0 + 1 (rows = 2) of an RGB24, RGBA or I420 map: the
 * color t gives each pixel's value v[r][x]. */
void diff_fast_color_rows(fovea_frame *out, int y0, int rows, const uint16_t *const v[2],
                          const diff_fast_lut *t);
/* The overlay noise map's writes in rows y0 (even) and y0 + 1 (rows = 2). */
void diff_fast_overlay_rows(fovea_frame *out, int y0, int rows, const uint16_t *const mx[2],
                            int threshold);
/* One row of the mask: flags of the row's tiles, and adds its changed pixels,
 * its sum of SUM, and its largest SUM to *pixels, *total, *largest. */
void diff_fast_mask_row(const uint16_t *sum, const uint16_t *mx, int w, int tile, int threshold,
                        uint8_t *flags, int64_t *pixels, int64_t *total, int *largest);

/* The backends: diff_ref.c and diff_cuda.c; the list in diff_backends.c. */
extern const diff_backend diff_backend_ref;
extern const diff_backend diff_backend_cuda;
extern const backend_info *const diff_backends[];
extern const size_t diff_backend_count;

#endif
