/* Panorama stitching: rig -> remap map, bilinear remap of N cameras, feathered
 * blending, per-camera color correction and automatic color balance, on the
 * C reference backend or the CUDA backend of a context. */
#ifndef FOVEA_STITCH_H
#define FOVEA_STITCH_H

#include "fovea/convert.h"
#include "fovea/fovea.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FOVEA_STITCH_MAX_CAMERAS 16

/** A remap map: where each panorama pixel samples each camera. */
typedef struct fovea_stitch_map fovea_stitch_map;

/** Build a map from a rig JSON file (see docs/rig.md).
 *  @param ctx threads for the build (may be NULL); @param err message buffer
 *  @return FOVEA_OK, FOVEA_ERR_IO, FOVEA_ERR_CORRUPT (invalid rig, message names the field) */
FOVEA_API int fovea_stitch_map_from_rig(fovea_context *ctx, const char *rig_path, fovea_stitch_map **map,
                                        char *err, size_t errsz);
/** Load a map file written by fovea_stitch_map_save (docs/map-format.md). */
FOVEA_API int fovea_stitch_map_load(const char *path, fovea_stitch_map **map, char *err, size_t errsz);
/** Save a map file. */
FOVEA_API int fovea_stitch_map_save(const fovea_stitch_map *map, const char *path, char *err, size_t errsz);
/** Import six full-resolution float tables (lut_left_x.bin, ... weight_right.bin). */
FOVEA_API int fovea_stitch_map_import(const char *dir, int pano_w, int pano_h, int cam_w, int cam_h,
                                      fovea_stitch_map **map, char *err, size_t errsz);
/** Panorama size and camera count/sizes of a map. */
FOVEA_API void fovea_stitch_map_geometry(const fovea_stitch_map *map, int *pano_w, int *pano_h,
                                         int *num_cameras);
FOVEA_API void fovea_stitch_map_camera_size(const fovea_stitch_map *map, int cam, int *w, int *h);
/** Whether the map covers anything: some panorama pixel that a camera sees
 *  with a blend weight > 0. A map that covers nothing (every camera looking
 *  away from the panorama's field, all-zero imported weights, ...) stitches
 *  only empty panoramas. Stops at the first covered pixel.
 *  @return 1 covered, 0 nothing covered, FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_stitch_map_covers_any(const fovea_stitch_map *map);
/** Free a map and set *map to NULL. */
FOVEA_API void fovea_stitch_map_destroy(fovea_stitch_map **map);

/** Per-camera color correction: out = 255 * (clamp(gain[k] * in, 0, 255) / 255) ^ gamma,
 *  per RGB channel k. Identity: gains 1, gamma 1. */
typedef struct fovea_color_correction {
    float gain[3];  /**< R, G, B */
    float gamma;
} fovea_color_correction;

typedef enum fovea_color_mode {
    FOVEA_COLOR_OFF = 0,   /**< no correction */
    FOVEA_COLOR_FIXED = 1, /**< corrections given by fovea_stitcher_set_color */
    FOVEA_COLOR_AUTO = 2   /**< measured from the overlaps and applied automatically */
} fovea_color_mode;

typedef struct fovea_stitch_settings {
    fovea_color_mode color;   /**< default AUTO */
    int auto_interval;        /**< analyse every K frames (default 30) */
    float auto_smoothing;     /**< 0..1: new = old + s * (measured - old) (default 0.1) */
    int deterministic;        /**< 1: analyse frame n synchronously, apply from frame n+1
                                   (no smoothing lag from timing); default 0 */
    float gain_min, gain_max;   /**< clamp of solved gains (default 0.5, 2.0) */
    float gamma_min, gamma_max; /**< clamp of solved gammas (default 0.7, 1.4) */
    float regularization;     /**< pull of the gains toward 1 (default 0.05) */
    int min_overlap_samples;  /**< fewer samples in an overlap => identity (default 1000) */
    int yuv_full_range;       /**< YUV inputs in full range: Y 0..255, uncovered Y 0
                                   (default 0: limited, Y 16..235, UV 16..240) */
    fovea_colorspace yuv_colorspace; /**< matrix of YUV inputs for the colour correction
                                   (statistics, gains' luma weights, chroma correction):
                                   FOVEA_CS_BT601 (default) or FOVEA_CS_BT709 */
    int cuda_exact_sampling;  /**< CUDA: 1 = bilinear sampling in the kernel's integer
                                   arithmetic, bit-exact with the C reference; 0 (default) =
                                   the texture unit where the frames allow it (RGBA, NV12,
                                   I420 with aligned planes), faster, within 1 code value */
} fovea_stitch_settings;

FOVEA_API void fovea_stitch_default_settings(fovea_stitch_settings *s);

typedef struct fovea_stitcher fovea_stitcher;

/** Create a stitcher for a map on the context's backend. The map is copied
 *  (device tables uploaded once); the caller may destroy it afterwards. */
FOVEA_API int fovea_stitcher_create(fovea_context *ctx, fovea_stitcher **st, const fovea_stitch_map *map,
                                    const fovea_stitch_settings *s);

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

/** Like fovea_stitcher_process, but on the CUDA backend nothing waits: pinned
 *  inputs are copied and a pinned output is written asynchronously on the context
 *  stream. Call fovea_sync(ctx) before reading the output or reusing the inputs.
 *  With several contexts (streams) this overlaps one frame's copies with another's
 *  kernel. Pageable host frames still make the call wait for their copies. On the
 *  CPU backend it is fovea_stitcher_process. */
FOVEA_API int fovea_stitcher_process_async(fovea_stitcher *st, const fovea_frame *const *inputs, int n,
                                           fovea_frame *out);

/** Set fixed corrections (mode FIXED, or the starting point of AUTO). */
FOVEA_API int fovea_stitcher_set_color(fovea_stitcher *st, const fovea_color_correction *cc, int n);
/** Corrections in use now: those the next frame will be stitched with (automatic
 *  balance absorbs new statistics at the end of a process call). */
FOVEA_API int fovea_stitcher_get_color(const fovea_stitcher *st, fovea_color_correction *cc, int n);

/** Measure the overlaps of one set of frames and solve for corrections without
 *  stitching (used for stills: analyse then apply on the same frame).
 *  @param apply 1: the result becomes the corrections in use (no smoothing) */
FOVEA_API int fovea_stitcher_analyse(fovea_stitcher *st, const fovea_frame *const *inputs, int n,
                                     int apply, fovea_color_correction *result);

FOVEA_API void fovea_stitcher_destroy(fovea_stitcher **st);

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
 *          err names the field, e.g. "cameras[1].gain[2]: must be a number > 0 ..." */
FOVEA_API int fovea_color_corrections_from_json(const char *json, size_t len, int n,
                                                fovea_color_correction *cc, char *err, size_t errsz);

/** The corrections as JSON that fovea_color_corrections_from_json reads back to the
 *  same floats (and `fovea stitch --color fixed:FILE` takes).
 *  @return a NUL-terminated string to free(), or NULL (bad arguments, no memory) */
FOVEA_API char *fovea_color_corrections_to_json(const fovea_color_correction *cc, int n);

#ifdef __cplusplus
}
#endif

#endif
