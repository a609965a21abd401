/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Panorama stitching: rig -> remap map, bilinear remap of N cameras, feathered
 * blending, per-camera color correction and automatic color balance, on the
 * C reference backend or the CUDA backend of a context. */
#ifndef FOVEA_STITCH_H
#define FOVEA_STITCH_H

#include "fovea/convert.h"
#include "fovea/fovea.h"
#include "fovea/rig.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FOVEA_STITCH_MAX_CAMERAS 16

/** A remap map: where each panorama pixel samples each camera. Read-only once
 *  opened (the stitcher copies what it needs). It is opened from one of four
 *  sources: a rig file (fovea_stitch_map_open_rig_file), a rig
 *  (fovea_stitch_map_open_rig, with build settings), a map file
 *  (fovea_stitch_map_open_file) or six imported tables
 *  (fovea_stitch_map_open_tables); it keeps no context: ctx only gives the
 *  build its threads and receives the message of a failure (may be NULL). */
typedef struct fovea_stitch_map fovea_stitch_map;

/** Open a map built from a rig JSON file (see docs/rig.md) with the default
 *  build settings.
 *  @param map receives the map (NULL on failure)
 *  @return FOVEA_OK, FOVEA_ERR_IO, FOVEA_ERR_CORRUPT (invalid rig, message names the field) */
FOVEA_API int fovea_stitch_map_open_rig_file(fovea_stitch_map **map, fovea_context *ctx,
                                             const char *rig_path);
/** Open a map file written by fovea_stitch_map_save (docs/map-format.md).
 *  @param map receives the map (NULL on failure)
 *  @return FOVEA_OK or a negative status (FOVEA_ERR_IO, FOVEA_ERR_CORRUPT, ...) */
FOVEA_API int fovea_stitch_map_open_file(fovea_stitch_map **map, fovea_context *ctx,
                                         const char *path);
/** Save a map file (through fovea_outfile: a file being replaced keeps its old
 *  content on failure). ctx (may be NULL) receives the message on failure.
 *  @return FOVEA_OK or a negative status */
FOVEA_API int fovea_stitch_map_save(const fovea_stitch_map *map, fovea_context *ctx,
                                    const char *path);
/** Open a map from six full-resolution float tables in dir (lut_left_x.bin, ...
 *  weight_right.bin) for two cameras of cam_w x cam_h and a pano_w x pano_h panorama.
 *  @param map receives the map (NULL on failure)
 *  @return FOVEA_OK or a negative status */
FOVEA_API int fovea_stitch_map_open_tables(fovea_stitch_map **map, fovea_context *ctx,
                                           const char *dir, int pano_w, int pano_h, int cam_w,
                                           int cam_h);
/** Panorama size and camera count of a map. */
FOVEA_API void fovea_stitch_map_geometry(const fovea_stitch_map *map, int *pano_w, int *pano_h,
                                         int *num_cameras);
/** Image size of camera cam of a map. */
FOVEA_API void fovea_stitch_map_camera_size(const fovea_stitch_map *map, int cam, int *w, int *h);
/** Whether the map covers anything: some panorama pixel that a camera sees
 *  with a blend weight > 0. A map that covers nothing (every camera looking
 *  away from the panorama's field, all-zero imported weights, ...) stitches
 *  only empty panoramas. Stops at the first covered pixel.
 *  @return 1 covered, 0 nothing covered, FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_stitch_map_covers_any(const fovea_stitch_map *map);
/** Free a map and set *map to NULL. Safe on NULL. */
FOVEA_API void fovea_stitch_map_close(fovea_stitch_map **map);

/* ---------------------------------------------------------------- building and describing maps */

/** Settings of fovea_stitch_map_open_rig: how each camera's lookup is stored. */
typedef struct fovea_stitch_map_settings {
    int max_step;     /**< coarsest grid tried: 1, 2, 4, 8, 16 or 32 (default 16) */
    double tolerance; /**< allowed |lookup - exact| in u and in v, camera pixels
                                 (default 0.01) */
} fovea_stitch_map_settings;

/** What the build chose for one camera and how well the grid fits. */
typedef struct fovea_stitch_map_camera_stats {
    int step;            /**< chosen grid step */
    double max_err;      /**< max |lookup - exact| in u or v (camera px) over every
                                 pixel that the exact projection or the lookup sees */
    int64_t seen_exact;  /**< panorama pixels inside the image by the exact projection */
    int64_t seen_lookup; /**< panorama pixels the lookup sees */
    int64_t bad;         /**< pixels failing the check (0 unless fallback) */
    int fallback;        /**< 1: even step 1 failed the check and was kept anyway */
} fovea_stitch_map_camera_stats;

typedef struct fovea_stitch_map_stats {
    int num_cameras;
    fovea_stitch_map_camera_stats cam[FOVEA_STITCH_MAX_CAMERAS];
} fovea_stitch_map_stats;

/** Fill s with defaults. */
FOVEA_API void fovea_stitch_map_default_settings(fovea_stitch_map_settings *s);

/** Open a map built from a rig. For each camera, grids of step max_step, max_step/2,
 *  ..., 2 are checked at every panorama pixel against the exact projection; the
 *  coarsest that stays within tolerance is kept, else step 1 (every pixel stored).
 *  @param map   receives the map (NULL on failure)
 *  @param ctx   threads for the build, and the message of a failure (may be NULL)
 *  @param s     settings, or NULL for defaults
 *  @param stats receives what was chosen per camera (may be NULL)
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (bad rig or settings), FOVEA_ERR_NOMEM */
FOVEA_API int fovea_stitch_map_open_rig(fovea_stitch_map **map, fovea_context *ctx,
                                        const fovea_rig *rig, const fovea_stitch_map_settings *s,
                                        fovea_stitch_map_stats *stats);

/** One camera of a map, as stored. */
typedef struct fovea_stitch_map_camera_info {
    int width, height;           /**< camera image size */
    int grid_step;               /**< lookup grid spacing, panorama pixels (1 = every pixel) */
    int grid_width, grid_height; /**< lookup grid nodes */
    float px_scale;              /**< panorama pixels per camera pixel near the image center */
    int fisheye_clip;            /**< 1: a fisheye visibility ellipse limits what it sees */
    int explicit_weights;        /**< 1: blend weights stored per pixel (imported tables);
                                    0: computed from the seams */
} fovea_stitch_map_camera_info;

/** Describe camera cam of a map. @return FOVEA_OK or FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_stitch_map_get_camera_info(const fovea_stitch_map *map, int cam,
                                               fovea_stitch_map_camera_info *info);

/** @return the blend feather of a map (transition width across a seam, panorama
 *  pixels; it shapes computed weights only), or -1 for NULL */
FOVEA_API float fovea_stitch_map_feather(const fovea_stitch_map *map);

/** Where camera cam samples panorama pixel (i, j), by the stored lookup.
 *  @param u, v receive the camera pixel coordinates (pixel centers at integers),
 *              also outside the image; NaN where the projection is undefined
 *              (either may be NULL)
 *  @return 1 when the camera sees the pixel, 0 otherwise (also for arguments out
 *          of range) */
FOVEA_API int fovea_stitch_map_lookup(const fovea_stitch_map *map, int cam, int i, int j, float *u,
                                      float *v);

/** Blend weights of every camera at panorama pixel (i, j), as the stitcher uses
 *  them: w[c] > 0 for the cameras that see it, 0 for the others; u[c], v[c] where
 *  each samples it. Arrays hold FOVEA_STITCH_MAX_CAMERAS entries.
 *  @return the number of cameras with w > 0 (0: uncovered, or arguments out of range) */
FOVEA_API int fovea_stitch_map_weights(const fovea_stitch_map *map, int i, int j,
                                       float w[FOVEA_STITCH_MAX_CAMERAS],
                                       float u[FOVEA_STITCH_MAX_CAMERAS],
                                       float v[FOVEA_STITCH_MAX_CAMERAS]);

/** Who sees what in a map (by fovea_stitch_map_lookup), for checking a rig. */
typedef struct fovea_stitch_coverage {
    int num_cameras;
    int64_t total;                               /**< panorama pixels */
    double pct_none;                             /**< % of panorama pixels seen by no camera */
    double pct_one;                              /**< ... by exactly one camera */
    double pct_multi;                            /**< ... by two or more */
    double pct_camera[FOVEA_STITCH_MAX_CAMERAS]; /**< ... by camera c */
    /** Pairs a < b (entries [a][b]; [b][a] mirrors them, the diagonal is 0):
     *  pct: % of panorama pixels both see; rows: rows where both see at least one
     *  pixel; width: median over those rows of the number of pixels both see in the
     *  row (the overlap's horizontal extent in panorama pixels; 0 when none). */
    double overlap_pct[FOVEA_STITCH_MAX_CAMERAS][FOVEA_STITCH_MAX_CAMERAS];
    int overlap_rows[FOVEA_STITCH_MAX_CAMERAS][FOVEA_STITCH_MAX_CAMERAS];
    double overlap_width[FOVEA_STITCH_MAX_CAMERAS][FOVEA_STITCH_MAX_CAMERAS];
} fovea_stitch_coverage;

/** Measure the coverage of a map.
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG or FOVEA_ERR_NOMEM */
FOVEA_API int fovea_stitch_map_coverage(const fovea_stitch_map *map, fovea_stitch_coverage *out);

/** Draw the coverage of a map: each pixel is the weight-blended color of the
 *  cameras, at 60% intensity where one camera sees it and full intensity in
 *  overlaps; seams (the camera of largest weight differs from the right or lower
 *  neighbor's) are white; uncovered pixels black.
 *  @param out host RGB24 frame of the panorama's size
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_MISMATCH (out's size, format
 *          or memory) or FOVEA_ERR_NOMEM */
FOVEA_API int fovea_stitch_map_coverage_image(const fovea_stitch_map *map, fovea_frame *out);

/** Per-camera color correction: out = 255 * (clamp(gain[k] * in, 0, 255) / 255) ^ gamma,
 *  per RGB channel k. Identity: gains 1, gamma 1. */
typedef struct fovea_color_correction {
    float gain[3]; /**< R, G, B */
    float gamma;
} fovea_color_correction;

typedef enum fovea_color_mode {
    FOVEA_COLOR_OFF = 0,   /**< no correction */
    FOVEA_COLOR_FIXED = 1, /**< corrections given by fovea_stitcher_set_color */
    FOVEA_COLOR_AUTO = 2   /**< measured from the overlaps and applied automatically */
} fovea_color_mode;

/** How overlapping cameras are blended (docs/stitch.md, "Multi-band blending"). */
typedef enum fovea_blend_mode {
    FOVEA_BLEND_FEATHER = 0,  /**< feathered weights across the seam (default, fastest) */
    FOVEA_BLEND_MULTIBAND = 1 /**< Laplacian pyramids blended by the seam masks' Gaussian
                                 pyramids (Burt and Adelson), integer arithmetic */
} fovea_blend_mode;

/** Where the seam between two cameras runs (multiband blending only). */
typedef enum fovea_seam_mode {
    FOVEA_SEAM_NONE = 0, /**< the map's seam: each pixel goes to the camera of largest weight */
    FOVEA_SEAM_DP = 1    /**< a path through the overlap that avoids differences (dynamic
                            programming on a reduced map), recomputed every seam_interval
                            frames, kept unless a new one is clearly cheaper */
} fovea_seam_mode;

typedef struct fovea_stitcher_settings {
    fovea_color_mode color;          /**< default AUTO */
    int auto_interval;               /**< analyze every K frames (default 30) */
    float auto_smoothing;            /**< 0..1: target = old + s * (measured - old) on each
                                   analysis after the first (default 0.5; the first analysis,
                                   on the first frame, is applied in full) */
    int deterministic;               /**< 1: analyze frame n synchronously, apply from frame n+1
                                   (no smoothing lag from timing); default 0 */
    float gain_min, gain_max;        /**< clamp of solved gains (default 0.5, 2.0) */
    float gamma_min, gamma_max;      /**< clamp of solved gammas (default 0.7, 1.4) */
    float regularization;            /**< pull of the gains toward 1 (default 0.05) */
    int min_overlap_samples;         /**< fewer samples in an overlap => identity (default 1000) */
    int yuv_full_range;              /**< YUV inputs in full range: Y 0..255, uncovered Y 0
                                   (default 0: limited, Y 16..235, UV 16..240) */
    fovea_colorspace yuv_colorspace; /**< matrix of YUV inputs for the color correction
                                   (statistics, gains' luma weights, chroma correction):
                                   FOVEA_CS_BT601 (default) or FOVEA_CS_BT709 */
    int cuda_exact_sampling;         /**< CUDA: 1 = bilinear sampling in the kernel's integer
                                   arithmetic, bit-exact with the C reference; 0 (default) =
                                   the texture unit where the frames allow it (RGBA, NV12,
                                   I420 with aligned planes), faster, within 1 code value */
    fovea_blend_mode blend;          /**< FOVEA_BLEND_FEATHER (default) or FOVEA_BLEND_MULTIBAND */
    int blend_levels;                /**< multiband: pyramid reductions, 1..10 (default 5) */
    fovea_seam_mode seam;            /**< multiband: FOVEA_SEAM_NONE (default) or FOVEA_SEAM_DP */
    int seam_interval;               /**< FOVEA_SEAM_DP: place the seam again every N frames
                                   (default 30; the first frame always) */
    float auto_max_step;             /**< AUTO: largest change of the corrections from one frame
                                   to the next, as |ln(new/old)| of every gain and gamma
                                   (default 0.01, about 1%); all move together */
    float auto_dead_band;            /**< AUTO: the corrections start moving only when the
                                   target differs from them by more than this, in the same
                                   measure (default 0.01); then they move until they reach it */
    int ignore_photometric;          /**< 1: leave out the map's photometric part (Hugin's
                                   exposure, white balance, vignetting and response of a
                                   rig that has one, docs/stitch.md "Hugin projects");
                                   default 0: applied (RGB inputs only) */
} fovea_stitcher_settings;

/** Fill s with defaults. */
FOVEA_API void fovea_stitcher_default_settings(fovea_stitcher_settings *s);

typedef struct fovea_stitcher fovea_stitcher;

/** Open a stitcher for a map on the context's backend. The map is copied
 *  (device tables uploaded once); the caller may close it afterwards.
 *  @param st receives the stitcher (NULL on failure)
 *  @param ctx fovea context; must outlive st
 *  @param s settings, or NULL for defaults
 *  @return FOVEA_OK or a negative status (detail in fovea_last_error(ctx)) */
FOVEA_API int fovea_stitcher_open(fovea_stitcher **st, fovea_context *ctx,
                                  const fovea_stitch_map *map, const fovea_stitcher_settings *s);

/** Stitch one set of synchronized camera frames.
 *  @param inputs num_cameras frames, all RGBA, all RGB24, all NV12 or all I420, each
 *         the size the map expects; host, pinned or device memory (device only on CUDA
 *         contexts)
 *  @param out RGBA (from RGB inputs) or I420 (from YUV inputs), panorama-sized; host,
 *         pinned or device memory.
 *  On the CUDA backend the work is queued on the context stream; a host or pinned
 *  output is complete on return, a device output once the stream gets there.
 *  @return FOVEA_OK or a negative status (detail in fovea_last_error). */
FOVEA_API int fovea_stitcher_process(fovea_stitcher *st, const fovea_frame *const *inputs, int n,
                                     fovea_frame *out);

/** Like fovea_stitcher_process, but stream-ordered (docs/api.md): on the CUDA
 *  backend nothing waits: pinned inputs are copied and a pinned output is
 *  written asynchronously on the context stream, and the call is complete when
 *  fovea_sync(ctx) returns. Call it before reading the output or reusing the
 *  inputs. This is not a queue (nothing to receive: the output is the
 *  caller's frame), so it is not a submit/receive pair.
 *  With several contexts (streams) this overlaps one frame's copies with another's
 *  kernel. Pageable host frames still make the call wait for their copies. On the
 *  CPU backend it is fovea_stitcher_process. */
FOVEA_API int fovea_stitcher_process_async(fovea_stitcher *st, const fovea_frame *const *inputs,
                                           int n, fovea_frame *out);

/** Set fixed corrections (mode FIXED, or the starting point of AUTO). */
FOVEA_API int fovea_stitcher_set_color(fovea_stitcher *st, const fovea_color_correction *cc, int n);
/** Corrections in use now: those the next frame will be stitched with (automatic
 *  balance absorbs new statistics at the end of a process call). */
FOVEA_API int fovea_stitcher_get_color(const fovea_stitcher *st, fovea_color_correction *cc, int n);

/** Measure the overlaps of one set of frames and solve for corrections without
 *  stitching (used for stills: analyze then apply on the same frame).
 *  @param apply 1: the result becomes the corrections in use (no smoothing) */
FOVEA_API int fovea_stitcher_analyze(fovea_stitcher *st, const fovea_frame *const *inputs, int n,
                                     int apply, fovea_color_correction *result);

/** Free a stitcher and set *st to NULL. Safe on NULL. */
FOVEA_API void fovea_stitcher_close(fovea_stitcher **st);

/** How far apart the cameras' colors are where they overlap: the mean |A - B| in
 *  code values over every pixel of every other row and column that two cameras
 *  see with weight > 0 (every such pair), and over R, G and B of RGBA inputs or
 *  Y, U and V of I420 inputs, each camera's bilinear samples put through the
 *  correction tables the stitcher builds for cc (with s's YUV conventions for
 *  I420). Compare cc with identity corrections to see what a balance gains.
 *  @param inputs n host frames, all RGBA or all I420, each its camera's size
 *  @param cc     n corrections
 *  @param s      the stitch settings (YUV conventions), or NULL for defaults
 *  @param mismatch receives the mean (0 when nothing overlaps)
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_MISMATCH (count, sizes,
 *          formats, memory) or FOVEA_ERR_NOMEM */
FOVEA_API int fovea_stitch_overlap_mismatch(const fovea_stitch_map *map,
                                            const fovea_frame *const *inputs, int n,
                                            const fovea_color_correction *cc,
                                            const fovea_stitcher_settings *s, double *mismatch);

/** Largest gain or gamma fovea_color_corrections_from_json accepts. */
#define FOVEA_COLOR_JSON_MAX 1e6

/** Read per-camera corrections from JSON {"cameras":[{"gain":[r,g,b],"gamma":g}, ...]}
 *  with exactly n cameras, in camera order. Other keys are ignored, so the
 *  summary of `fovea stitch --json` (or fovea_color_corrections_to_json) reads
 *  back. Every gain and gamma must be a number in (0, FOVEA_COLOR_JSON_MAX].
 *  @param json  the text (need not be NUL-terminated), len bytes
 *  @param cc    receives n corrections; left untouched on failure
 *  @return FOVEA_OK, FOVEA_ERR_CORRUPT (not JSON, a missing or invalid field),
 *          FOVEA_ERR_MISMATCH (another number of cameras) or FOVEA_ERR_INVALID_ARG;
 *          ctx's last error names the field, e.g. "cameras[1].gain[2]: must be a
 *          number > 0 ..." (ctx may be NULL) */
FOVEA_API int fovea_color_corrections_from_json(fovea_context *ctx, const char *json, size_t len,
                                                int n, fovea_color_correction *cc);

/** The corrections as JSON that fovea_color_corrections_from_json reads back to the
 *  same floats (and `fovea stitch --color fixed:FILE` takes).
 *  @return a NUL-terminated string to free(), or NULL (bad arguments, no memory) */
FOVEA_API char *fovea_color_corrections_to_json(const fovea_color_correction *cc, int n);

#ifdef __cplusplus
}
#endif

#endif
