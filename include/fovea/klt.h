/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea KLT: a feature tracker with the API and the numbers of Birchfield's
 * KLT 1.3.4 (KLTSelectGoodFeatures, KLTTrackFeatures, ...), per-context state
 * instead of the original's globals, and a backend field (cpu / cuda / auto):
 * the CUDA backend runs every stage on the GPU with the reference's arithmetic.
 * docs/klt.md lists the compatibility notes and the quirks kept on purpose. */
#ifndef FOVEA_KLT_H
#define FOVEA_KLT_H

#include <stdio.h>

#include "fovea/fovea.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef float KLT_locType;
typedef unsigned char KLT_PixelType;

#define KLT_BOOL int

#ifndef TRUE
#define TRUE 1
#define FALSE 0
#endif

/* Feature status codes (KLT_FeatureRec.val when <= 0). */
#define KLT_TRACKED 0
#define KLT_NOT_FOUND -1
#define KLT_SMALL_DET -2
#define KLT_MAX_ITERATIONS -3
#define KLT_OOB -4
#define KLT_LARGE_RESIDUE -5

/** A float image (affine reference patches of features). */
typedef struct KLT_FloatImageRec {
    int ncols;
    int nrows;
    float *data;
} KLT_FloatImageRec, *KLT_FloatImage;

/** Tracking context. Fields up to pyramid_last_grady are KLT 1.3.4's, in its
 *  order and with its defaults (set by KLTCreateTrackingContext). */
typedef struct KLT_TrackingContextRec {
    /* Available to user */
    int mindist;                     /**< min distance between features (10) */
    int window_width, window_height; /**< tracking window (7 x 7), odd, >= 3 */
    /** keep the last pyramid (FALSE); set FALSE only via KLTStopSequentialMode */
    KLT_BOOL sequentialMode;
    KLT_BOOL smoothBeforeSelecting; /**< smooth before selecting features (TRUE) */
    KLT_BOOL writeInternalImages;   /**< KLT debugging aid; ignored by fovea (FALSE) */
    KLT_BOOL lighting_insensitive;  /**< normalize gain and bias while tracking (FALSE) */

    /* Available, but hopefully can ignore */
    int min_eigenvalue;       /**< smallest eigenvalue allowed for selection (1) */
    float min_determinant;    /**< below: KLT_SMALL_DET (0.01) */
    float min_displacement;   /**< stop iterating below this step (0.1) */
    int max_iterations;       /**< (10) */
    float max_residue;        /**< mean abs window difference; above: KLT_LARGE_RESIDUE (10.0) */
    float grad_sigma;         /**< (1.0) */
    float smooth_sigma_fact;  /**< smoothing sigma = fact * max(window) (0.1) */
    float pyramid_sigma_fact; /**< pyramid sigma = fact * subsampling (0.9) */
    float step_factor;        /**< Newton step size (1.0) */
    int nSkippedPixels;       /**< candidate step - 1 in selection (0) */
    int borderx;              /**< no features within this border (24, from KLTUpdateTCBorder) */
    int bordery;
    int nPyramidLevels; /**< including level 0 (2, from KLTChangeTCPyramid(tc, 15)) */
    int subsampling;    /**< 2, 4, 8, 16 or 32 (4) */

    /* affine consistency check */
    int affine_window_width, affine_window_height; /**< (15 x 15) */
    int affineConsistencyCheck;    /**< -1 off (default), 0 translation, 1 similarity, 2 affine */
    int affine_max_iterations;     /**< (10) */
    float affine_max_residue;      /**< (10.0) */
    float affine_min_displacement; /**< (0.02) */
    float affine_max_displacement_differ; /**< (1.5) */

    /* User must not touch these (KLT keeps the last pyramids here; fovea
     * keeps them in its private state and sets these to non-NULL markers
     * while a pyramid is held, for programs that test them) */
    void *pyramid_last;
    void *pyramid_last_gradx;
    void *pyramid_last_grady;

    /* fovea additions */
    fovea_backend backend; /**< AUTO (default): CUDA when a device is present, else
                                       the C reference; CPU: the C reference; CUDA: the
                                       CUDA backend (calls fail with FOVEA_ERR_NO_DEVICE
                                       without a device). Changing it between calls drops
                                       the kept pyramid of sequential mode (the next
                                       KLTTrackFeatures then needs img1). */
    fovea_context *ctx;    /**< optional, not owned: thread pool, log callback and (CUDA
                                       backend, when it is a CUDA context) the device and
                                       stream to run on; otherwise the CUDA backend runs on
                                       a context of its own on device 0.
                                       NULL = single thread, no log messages (errors: see
                                       fovea_klt_last_status). It must stay open
                                       while the tracking context uses it: until
                                       KLTFreeTrackingContext, or the first call after
                                       tc->ctx is changed */
    void *priv;            /**< fovea private state; do not touch */
} KLT_TrackingContextRec, *KLT_TrackingContext;

/** One feature. x, y are -1 when lost; val > 0 is the eigenvalue of a newly
 *  selected feature, 0 KLT_TRACKED, < 0 a loss code. */
typedef struct KLT_FeatureRec {
    KLT_locType x;
    KLT_locType y;
    int val;
    /* affine consistency check */
    KLT_FloatImage aff_img;
    KLT_FloatImage aff_img_gradx;
    KLT_FloatImage aff_img_grady;
    KLT_locType aff_x;
    KLT_locType aff_y;
    KLT_locType aff_Axx;
    KLT_locType aff_Ayx;
    KLT_locType aff_Axy;
    KLT_locType aff_Ayy;
} KLT_FeatureRec, *KLT_Feature;

typedef struct KLT_FeatureListRec {
    int nFeatures;
    KLT_Feature *feature;
} KLT_FeatureListRec, *KLT_FeatureList;

typedef struct KLT_FeatureHistoryRec {
    int nFrames;
    KLT_Feature *feature;
} KLT_FeatureHistoryRec, *KLT_FeatureHistory;

typedef struct KLT_FeatureTableRec {
    int nFrames;
    int nFeatures;
    KLT_Feature **feature; /**< feature[feat][frame] */
} KLT_FeatureTableRec, *KLT_FeatureTable;

/* ---- Create / free. Create functions return NULL when out of memory. ---- */

/** A context with KLT 1.3.4's defaults (incl. KLTChangeTCPyramid(tc, 15) and
 *  KLTUpdateTCBorder). @return the context or NULL */
FOVEA_API KLT_TrackingContext KLTCreateTrackingContext(void);
/** @return a list of nFeatures slots (val = KLT_NOT_FOUND, x = y = -1) or NULL */
FOVEA_API KLT_FeatureList KLTCreateFeatureList(int nFeatures);
/** @return the history of one feature over nFrames frames (every val
 *  KLT_NOT_FOUND) or NULL */
FOVEA_API KLT_FeatureHistory KLTCreateFeatureHistory(int nFrames);
/** @return a table of nFeatures features over nFrames frames (every val
 *  KLT_NOT_FOUND) or NULL */
FOVEA_API KLT_FeatureTable KLTCreateFeatureTable(int nFrames, int nFeatures);
/** Free functions accept NULL. */
FOVEA_API void KLTFreeTrackingContext(KLT_TrackingContext tc);
/** Free a feature list (NULL is accepted). */
FOVEA_API void KLTFreeFeatureList(KLT_FeatureList fl);
/** Free a feature history (NULL is accepted). */
FOVEA_API void KLTFreeFeatureHistory(KLT_FeatureHistory fh);
/** Free a feature table (NULL is accepted). */
FOVEA_API void KLTFreeFeatureTable(KLT_FeatureTable ft);

/* ---- Processing ----
 * Images are ncols x nrows bytes without padding. On the CUDA backend they may
 * be host memory, pinned host memory (copied without a staging copy) or
 * CUDA device / managed memory (a frame already on the GPU, e.g. from a
 * decoder: copied on the device, nothing crosses the bus); the kind is found
 * from the pointer on each call. The C backend reads host (or managed)
 * memory and fails with FOVEA_ERR_INVALID_ARG on a device pointer. Every call
 * has finished reading its images when it returns. */

/** Select the fl->nFeatures best features of img (ncols x nrows, 8-bit, no padding). */
FOVEA_API void KLTSelectGoodFeatures(KLT_TrackingContext tc, KLT_PixelType *img, int ncols,
                                     int nrows, KLT_FeatureList fl);
/** Track the features of fl from img1 to img2 (img1 unused in sequential mode
 *  once a pyramid is kept). */
FOVEA_API void KLTTrackFeatures(KLT_TrackingContext tc, KLT_PixelType *img1, KLT_PixelType *img2,
                                int ncols, int nrows, KLT_FeatureList fl);
/** Refill the slots with val < 0 with new features of img. */
FOVEA_API void KLTReplaceLostFeatures(KLT_TrackingContext tc, KLT_PixelType *img, int ncols,
                                      int nrows, KLT_FeatureList fl);

/* ---- Utilities ---- */

/** @return the number of features with val >= 0 */
FOVEA_API int KLTCountRemainingFeatures(KLT_FeatureList fl);
/** Print the context fields to stderr, as KLT does (an explicit print request). */
FOVEA_API void KLTPrintTrackingContext(KLT_TrackingContext tc);
/** Choose nPyramidLevels and subsampling for a search range in pixels
 *  (does not update the border). */
FOVEA_API void KLTChangeTCPyramid(KLT_TrackingContext tc, int search_range);
/** Recompute borderx/bordery from the window, sigmas and pyramid. */
FOVEA_API void KLTUpdateTCBorder(KLT_TrackingContext tc);
/** Drop the kept pyramid and turn sequential mode off. */
FOVEA_API void KLTStopSequentialMode(KLT_TrackingContext tc);
/** Kept for source compatibility; does nothing (fovea never prints: messages
 *  go to the log callback of tc->ctx). */
FOVEA_API void KLTSetVerbosity(int verbosity);
/** @return smooth_sigma_fact * max(window_width, window_height) */
FOVEA_API float _KLTComputeSmoothSigma(KLT_TrackingContext tc);

/* ---- Storing / extracting features ---- */
/** Copy every feature of fl into column frame of ft. */
FOVEA_API void KLTStoreFeatureList(KLT_FeatureList fl, KLT_FeatureTable ft, int frame);
/** Copy column frame of ft into fl. */
FOVEA_API void KLTExtractFeatureList(KLT_FeatureList fl, KLT_FeatureTable ft, int frame);
/** Copy the history fh into row feat of ft. */
FOVEA_API void KLTStoreFeatureHistory(KLT_FeatureHistory fh, KLT_FeatureTable ft, int feat);
/** Copy row feat of ft into the history fh. */
FOVEA_API void KLTExtractFeatureHistory(KLT_FeatureHistory fh, KLT_FeatureTable ft, int feat);

/* ---- Writing / reading. fmt NULL = binary file; fmt like "%5.1f" or "%3d" =
 *      text (fname NULL = text to stderr, as KLT does). ---- */
/** Write greyimg with the features of fl drawn as red squares to a PPM file
 *  (errors go to the log callback; fovea_klt_write_feature_list_ppm has a
 *  status). */
FOVEA_API void KLTWriteFeatureListToPPM(KLT_FeatureList fl, KLT_PixelType *greyimg, int ncols,
                                        int nrows, const char *filename);
/** Write a feature list as text (fmt) or binary (fmt NULL). */
FOVEA_API void KLTWriteFeatureList(KLT_FeatureList fl, const char *fname, const char *fmt);
/** Write a feature history as text (fmt) or binary (fmt NULL). */
FOVEA_API void KLTWriteFeatureHistory(KLT_FeatureHistory fh, const char *fname, const char *fmt);
/** Write a feature table as text (fmt) or binary (fmt NULL). */
FOVEA_API void KLTWriteFeatureTable(KLT_FeatureTable ft, const char *fname, const char *fmt);
/** Read a list written by KLTWriteFeatureList (text or binary). fl NULL: a
 *  new list is created. @return the list, or NULL on error (bad file, count
 *  differing from fl->nFeatures) */
FOVEA_API KLT_FeatureList KLTReadFeatureList(KLT_FeatureList fl, const char *fname);
/** Read a history written by KLTWriteFeatureHistory; fh NULL: a new one is
 *  created. @return the history, or NULL on error */
FOVEA_API KLT_FeatureHistory KLTReadFeatureHistory(KLT_FeatureHistory fh, const char *fname);
/** Read a table written by KLTWriteFeatureTable; ft NULL: a new one is
 *  created. @return the table, or NULL on error */
FOVEA_API KLT_FeatureTable KLTReadFeatureTable(KLT_FeatureTable ft, const char *fname);

/* ---- fovea extensions ---- */

/** Like KLTPrintTrackingContext, to a stream of the caller's choice. */
FOVEA_API void fovea_klt_print_context(KLT_TrackingContext tc, FILE *fp);

/** Status of the last KLT call on tc: FOVEA_OK, or a negative fovea status
 *  (bad arguments, out of memory) with detail in fovea_last_error(tc->ctx)
 *  (tc->ctx may be NULL: see fovea_last_error).
 *  KLT 1.3.4 exits the process in these cases; fovea returns instead. */
FOVEA_API int fovea_klt_last_status(const KLT_TrackingContext tc);

/** The parameter check every processing call makes, for images of ncols x
 *  nrows, without processing anything (e.g. before reading any frame):
 *  subsampling in {2, 4, 8, 16, 32}, nPyramidLevels in 1..32, and every
 *  pyramid level at least as large as the window (after KLT's window
 *  corrections). KLTUpdateTCBorder also sets the last status: it fails (and
 *  sets the borders to INT_MAX) when the border does not fit in an int.
 *  @param tc    the context, with its fields set
 *  @param ncols image width, 1..FOVEA_MAX_DIM
 *  @param nrows image height, 1..FOVEA_MAX_DIM
 *  @return FOVEA_OK, or FOVEA_ERR_INVALID_ARG with a message naming the
 *          conflicting parameters in fovea_last_error(tc->ctx) (also the last
 *          status) */
FOVEA_API int fovea_klt_check_params(KLT_TrackingContext tc, int ncols, int nrows);

/* Tracking-context fields by name, for programs that set or check a context
 * from a description (a JSON or command-line file): the names are the field
 * names of KLT_TrackingContextRec as KLTPrintTrackingContext prints them, the
 * 28 user fields of KLT 1.3.4 from "mindist" to
 * "affine_max_displacement_differ" (fovea_klt_field_name lists them). Like an
 * assignment to the field, setting one changes nothing else (call
 * KLTChangeTCPyramid / KLTUpdateTCBorder as after an assignment). A failure
 * on a tracking context is also its last status, with a message in
 * fovea_last_error(tc->ctx); a success leaves the last status as it was. */

/** Set the field called name to value.
 *  @param tc    the tracking context
 *  @param name  a field name, e.g. "window_width", "max_residue"
 *  @param value the new value: for an int (or KLT_BOOL) field an integer in
 *               the range of int, stored exactly; for a float field a finite
 *               value within the range of float, rounded to the nearest float
 *  @return FOVEA_OK, or FOVEA_ERR_INVALID_ARG (tc or name NULL, unknown name,
 *          value not an int for an int field, not finite or out of float
 *          range for a float field; the field is then unchanged) */
FOVEA_API int fovea_klt_set_field(KLT_TrackingContext tc, const char *name, double value);

/** Read the field called name.
 *  @param tc    the tracking context
 *  @param name  a field name, as for fovea_klt_set_field
 *  @param value receives the field's value (exact: every int and float is a double)
 *  @return FOVEA_OK, or FOVEA_ERR_INVALID_ARG (tc, name or value NULL,
 *          unknown name; *value is then unchanged) */
FOVEA_API int fovea_klt_get_field(const KLT_TrackingContext tc, const char *name, double *value);

/** The names fovea_klt_set_field and fovea_klt_get_field take, in the order of
 *  KLT_TrackingContextRec.
 *  @param index 0, 1, ...
 *  @return the name of field index (a static string), or NULL when index is
 *          negative or past the last field */
FOVEA_API const char *fovea_klt_field_name(int index);

/** KLTWriteFeatureList with a status: FOVEA_OK,
 *  FOVEA_ERR_INVALID_ARG (bad fmt, binary to stderr) or FOVEA_ERR_IO. */
FOVEA_API int fovea_klt_write_feature_list(KLT_FeatureList fl, const char *fname, const char *fmt);
/** KLTWriteFeatureHistory with a status, as fovea_klt_write_feature_list. */
FOVEA_API int fovea_klt_write_feature_history(KLT_FeatureHistory fh, const char *fname,
                                              const char *fmt);
/** KLTWriteFeatureTable with a status, as fovea_klt_write_feature_list. */
FOVEA_API int fovea_klt_write_feature_table(KLT_FeatureTable ft, const char *fname,
                                            const char *fmt);
/** A feature table as text (KLT's layout, header included unless fp is stderr)
 *  to an open stream. @return FOVEA_OK, FOVEA_ERR_INVALID_ARG or FOVEA_ERR_IO */
FOVEA_API int fovea_klt_write_feature_table_stream(KLT_FeatureTable ft, FILE *fp, const char *fmt);
/** KLTWriteFeatureListToPPM with a status (FOVEA_OK, FOVEA_ERR_IO, ...). */
FOVEA_API int fovea_klt_write_feature_list_ppm(KLT_FeatureList fl, const KLT_PixelType *img,
                                               int ncols, int nrows, const char *filename);

#ifdef __cplusplus
}
#endif

#endif
