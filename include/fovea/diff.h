/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea frame differencing: per-pixel difference of two frames, as a heat map,
 * a noise map (changed pixels painted red) and a per-tile change mask. The
 * arithmetic is integer and documented in docs/diff.md. */
#ifndef FOVEA_DIFF_H
#define FOVEA_DIFF_H

#include "fovea/fovea.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The per-pixel difference a heat map shows. Both are computed from the
 *  channel differences |cur - prev| of a pixel (R, G, B; or Y and the chroma
 *  samples covering the pixel; or the gray sample). */
typedef enum fovea_diff_measure {
    FOVEA_DIFF_SUM = 0, /**< sum over the channels (0..765 for 8-bit RGB); default */
    FOVEA_DIFF_MAX = 1  /**< largest channel difference (0..255 for 8-bit) */
} fovea_diff_measure;

/** How the noise map shows changed pixels (any channel difference > threshold). */
typedef enum fovea_diff_noise_mode {
    FOVEA_DIFF_NOISE_BLACK = 0,  /**< red (255,0,0) where changed, black elsewhere; default */
    FOVEA_DIFF_NOISE_OVERLAY = 1 /**< red painted over the current frame */
} fovea_diff_noise_mode;

/** Denoising applied to the frames before they are differenced (docs/diff.md
 *  gives the exact integer arithmetic of each filter). */
typedef enum fovea_diff_denoise_mode {
    FOVEA_DIFF_DENOISE_NONE = 0,    /**< frames compared as given; default */
    FOVEA_DIFF_DENOISE_MEDIAN3 = 1, /**< 3x3 median per plane and component */
    FOVEA_DIFF_DENOISE_GAUSS5 = 2,  /**< 5x5 Gaussian, taps [1 4 6 4 1]/16 in two passes */
    /** Temporal recursive filter: a per-sample exponential average kept by the
     *  context, one step per compared frame (settings.temporal_strength). */
    FOVEA_DIFF_DENOISE_TEMPORAL = 3
} fovea_diff_denoise_mode;

/** threshold setting: derive the threshold of each call from the noise of the
 *  pair compared, ceil(auto_k x sigma) (fovea_diff_noise_sigma, docs/diff.md). */
#define FOVEA_DIFF_THRESHOLD_AUTO (-1)

/** normalize_max setting: the top of the heat map is a quarter of the
 *  measure's full range, rounded up (192 for the SUM of 8-bit frames, 64 for
 *  their MAX), so motion in real video shows beyond blue; the default. */
#define FOVEA_DIFF_NORMALIZE_QUARTER (-1)

/** Tile sizes of the change mask. */
#define FOVEA_DIFF_TILE_MIN 8
#define FOVEA_DIFF_TILE_MAX 64

/** Settings of a differencing context. */
typedef struct fovea_diff_settings {
    fovea_diff_measure measure; /**< heat-map measure; default SUM */
    /** Difference that maps to the top of the heat map (1.0): 0 = the measure's
     *  full range (channels x (2^bits - 1) for SUM, 2^bits - 1 for MAX);
     *  > 0 = this value (larger differences saturate), so small changes show;
     *  FOVEA_DIFF_NORMALIZE_QUARTER = a quarter of the full range, rounded up.
     *  Default FOVEA_DIFF_NORMALIZE_QUARTER. */
    int normalize_max;
    /** A pixel (noise map) or sample (mask) changed when a channel difference is
     *  strictly greater than this, in the frame's sample units (0..2^bits - 1).
     *  FOVEA_DIFF_THRESHOLD_AUTO: ceil(auto_k x sigma) of each call's pair
     *  (after denoising), clamped to 0..2^bits - 1. Default 10. */
    int threshold;
    int tile;                         /**< change-mask tile side: 8, 16, 32 or 64; default 16 */
    fovea_diff_noise_mode noise_mode; /**< default BLACK */
    /** Filter applied to both frames (every plane, at its own resolution)
     *  before heat map, noise map and mask. Default NONE. */
    fovea_diff_denoise_mode denoise;
    /** k of the automatic threshold (> 0, <= 1000); default 3. */
    double auto_k;
    /** Strength S of the temporal filter, 0..255: the weight of the history in
     *  1/256. With state s and the new sample x, s += floor(((x - s) * (256 - S)
     *  + 128) / 256) (docs/diff.md); 0 = no filtering. Default 192. */
    int temporal_strength;
} fovea_diff_settings;


/** A change mask: which tiles of the frame hold a changed sample. The arrays
 *  belong to the differencing context and stay valid until its next
 *  fovea_diff_mask call, fovea_diff_compute call with a mask, or
 *  fovea_diff_close. */
typedef struct fovea_diff_mask_result {
    int tile;               /**< tile side in pixels */
    int tiles_x, tiles_y;   /**< ceil(width / tile), ceil(height / tile) (border tiles partial) */
    const uint8_t *changed; /**< tiles_x * tiles_y flags, row-major: 1 changed, 0 not */
    const int32_t *list;    /**< the changed_tiles indices (ty * tiles_x + tx), ascending */
    int64_t changed_tiles;  /**< number of tiles with a changed pixel */
    int64_t changed_pixels; /**< pixels whose largest channel difference > threshold */
    int64_t diff_sum;       /**< sum over pixels of the SUM measure */
    int diff_max;           /**< largest SUM measure of a pixel */
    int threshold;          /**< the threshold used (the automatic one when set so) */
} fovea_diff_mask_result;

/** Outputs of one fovea_diff_compute call: any subset (NULL = not wanted). */
typedef struct fovea_diff_outputs {
    fovea_frame *heatmap;         /**< as fovea_diff_heatmap's out */
    fovea_frame *noise;           /**< as fovea_diff_noise's out */
    fovea_diff_mask_result *mask; /**< as fovea_diff_mask's out */
    double *sigma;                /**< as fovea_diff_noise_sigma (frames as compared) */
} fovea_diff_outputs;

/** An opaque differencing context: backend choice and scratch buffers. Not
 *  thread-safe (one per thread); the work itself runs on the fovea context's
 *  threads. */
typedef struct fovea_diff fovea_diff;

/** Fill s with defaults (SUM, a quarter of the range as the heat map's top
 *  (FOVEA_DIFF_NORMALIZE_QUARTER), threshold 10, tile 16,
 *  noise mode BLACK, no denoising, auto_k 3, temporal strength 192). */
FOVEA_API void fovea_diff_default_settings(fovea_diff_settings *s);

/** Create a differencing context on ctx. The backend comes from the context:
 *  a CUDA context runs the CUDA backend (host, pinned and device frames, the
 *  work queued on the context's stream), a CPU context the C reference (host
 *  and pinned frames). Both give the same bytes.
 *
 *  Memory (CUDA): frames may be in any memory, each on its own. Host and
 *  pinned outputs, the mask and sigma are complete when a call returns; a
 *  call whose outputs are all device frames may return before they are
 *  written (stream order on the context's stream; fovea_sync waits), and a
 *  pinned input must then stay unchanged until the stream passes the call.
 *  @param d receives the context (NULL on failure)
 *  @param ctx fovea context; must outlive d
 *  @param s settings, or NULL for defaults
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (a setting out of range, NULL
 *          arguments), FOVEA_ERR_NOMEM, FOVEA_ERR_NO_DEVICE; detail in
 *          fovea_last_error(ctx). */
FOVEA_API int fovea_diff_open(fovea_diff **d, fovea_context *ctx, const fovea_diff_settings *s);

/** Destroy a differencing context and set *d to NULL. Safe on NULL. */
FOVEA_API void fovea_diff_close(fovea_diff **d);

/** @return the backend that computes the maps (CPU or CUDA). */
FOVEA_API fovea_backend fovea_diff_backend(const fovea_diff *d);

/** Heat map of prev -> cur. Inputs: two frames of the same size and format,
 *  any of GRAY8..16, I420/I422/I444 (8..16 bit), NV12, RGB24, RGBA, RGB48,
 *  RGBA64 (alpha is ignored). out: a frame of the same size, RGB24, RGBA
 *  (alpha 255) or I420 (BT.601 limited range, docs/diff.md), sharing no plane
 *  with prev or cur.
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (NULL, empty frames, out shares a
 *          plane with an input),
 *          FOVEA_ERR_MISMATCH (sizes or formats differ), FOVEA_ERR_UNSUPPORTED
 *          (format, device memory on the C reference); detail in fovea_last_error(ctx). */
FOVEA_API int fovea_diff_heatmap(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                                 fovea_frame *out);

/** Noise map of prev -> cur: pixels with any channel difference > threshold
 *  painted red. Mode BLACK: out is RGB24, RGBA or I420 of the same size, red or
 *  black everywhere. Mode OVERLAY: out has cur's format (RGB24, RGBA or I420);
 *  when out is cur itself (same plane pointers) only the changed pixels are
 *  written, otherwise cur is copied into out first.
 *  @return as fovea_diff_heatmap */
FOVEA_API int fovea_diff_noise(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                               fovea_frame *out);

/** Change mask of cur against any reference frame ref (the previous input, or
 *  a receiver's reconstruction): per tile whether a sample differs by more than
 *  the threshold, with the counts and the list of changed tiles.
 *  @param out receives the mask; its arrays belong to d
 *  @return as fovea_diff_heatmap, or FOVEA_ERR_NOMEM */
FOVEA_API int fovea_diff_mask(fovea_diff *d, const fovea_frame *ref, const fovea_frame *cur,
                              fovea_diff_mask_result *out);

/** Queue the change mask of cur against ref and return: the asynchronous
 *  form of fovea_diff_mask, in the submit/receive idiom (docs/api.md), whose
 *  result fovea_diff_mask_receive gives. The queue holds one mask. The CUDA
 *  backend queues the mask and the copy of its result on the context's
 *  stream (so the host can prepare the next frame meanwhile); the C backend
 *  computes it before returning. Until the mask is received, device and
 *  pinned frames must stay unchanged, and d refuses every other call
 *  (FOVEA_ERR_INVALID_ARG) but fovea_diff_mask_receive, fovea_diff_reset and
 *  fovea_diff_close. No flush is needed: receive waits for the device.
 *  @return FOVEA_OK (queued), FOVEA_AGAIN (a mask is pending: receive it
 *          first, then submit again; nothing was queued), or as
 *          fovea_diff_mask (on an error no mask is pending) */
FOVEA_API int fovea_diff_mask_submit(fovea_diff *d, const fovea_frame *ref, const fovea_frame *cur);

/** The mask of the pending fovea_diff_mask_submit, waiting for the device
 *  when needed.
 *  @param out receives the mask; its arrays belong to d, as fovea_diff_mask's
 *  @return FOVEA_OK, FOVEA_AGAIN (no mask pending: submit one first),
 *          FOVEA_ERR_INVALID_ARG (NULL), FOVEA_ERR_CUDA */
FOVEA_API int fovea_diff_mask_receive(fovea_diff *d, fovea_diff_mask_result *out);

/** The frame the maps would compare for in: the settings' denoise filter
 *  applied to every plane (a copy when the filter is NONE). TEMPORAL: one step
 *  of the context's state with in (the state starts from in when there is
 *  none, as after fovea_diff_reset), out = the state after it.
 *  @param in a frame of any format the maps accept
 *  @param out a frame of in's size and format, sharing no plane with in
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (NULL, empty, out shares in's
 *          planes), FOVEA_ERR_MISMATCH (size or format), FOVEA_ERR_UNSUPPORTED */
FOVEA_API int fovea_diff_denoise(fovea_diff *d, const fovea_frame *in, fovea_frame *out);

/** Robust noise level of the difference of two frames as given (no
 *  denoising): with d = cur - prev of the first sample of every pixel of plane
 *  0 (Y, gray or R), sigma = 1.4826 x MAD, MAD = median(|d - median(d)|),
 *  each median the lower one of the sorted values (exact, integer). When more
 *  than half of the d are exactly 0 (median and MAD 0: compressed video, whose
 *  skipped blocks copy the reference), MAD says nothing about the pixels that
 *  did change: sigma is then 1.4826 x median(|d|) over the small changes,
 *  0 < |d| <= (2^bits) / 16 (0 when there are none; docs/diff.md).
 *  @param sigma receives sigma in sample units
 *  @return as fovea_diff_heatmap, or FOVEA_ERR_NOMEM */
FOVEA_API int fovea_diff_noise_sigma(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                                     double *sigma);

/** Every wanted output of one pair in one call: the frames are denoised once
 *  (and the temporal filter advances once), then the heat map, noise map, mask
 *  and sigma are computed from the same compared frames. This is the call to
 *  use when several outputs of a pair are wanted, and the only way to get more
 *  than one output of a pair with the temporal filter (each map call advances
 *  it). With the temporal filter, the first call (or the first after
 *  fovea_diff_reset or a change of size or format) starts the state from prev;
 *  every call then compares the state before the step (the filtered prev) with
 *  the state after it (the filtered cur), so prev is read only at the start.
 *  @return as fovea_diff_heatmap */
FOVEA_API int fovea_diff_compute(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                                 const fovea_diff_outputs *out);

/** Forget the temporal filter's state (a new stream starts at the next call). */
FOVEA_API void fovea_diff_reset(fovea_diff *d);

#ifdef __cplusplus
}
#endif

#endif
