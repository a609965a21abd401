/* fovea quality metrics, bit-exact with libvmaf 3.2.0: integer VIF (visual
 * information fidelity, four scales; libvmaf's `vif` feature extractor) and
 * full VMAF (VIF, ADM and motion features and a libvmaf model's score). */
#ifndef FOVEA_QUALITY_H
#define FOVEA_QUALITY_H

#include "fovea/fovea.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Number of VIF scales. */
#define FOVEA_VIF_SCALES 4

/** Largest (and default) enhancement gain limit, as in libvmaf. */
#define FOVEA_VIF_ENHN_GAIN_LIMIT_MAX 100.0

/** Settings of a VIF context. */
typedef struct fovea_vif_settings {
    /** libvmaf's `vif_enhn_gain_limit`: upper bound of the gain g in the numerator,
     *  1.0 (gain disabled) .. 100.0. Default 100.0. */
    double vif_enhn_gain_limit;
    /** 1: fill the debug fields of fovea_vif_scores (libvmaf's `debug=true`
     *  outputs: numerator and denominator per scale, their sums and ratio).
     *  Default 0 (the fields are then 0). */
    int debug;
} fovea_vif_settings;

/** Scores of one frame pair. Every value is the double libvmaf reports. */
typedef struct fovea_vif_scores {
    int64_t frame;                    /**< 0-based number of the pair in this context */
    double scale[FOVEA_VIF_SCALES];   /**< integer_vif_scale0..3 */
    /* debug outputs (0 unless settings.debug) */
    double num[FOVEA_VIF_SCALES];     /**< integer_vif_num_scale0..3 */
    double den[FOVEA_VIF_SCALES];     /**< integer_vif_den_scale0..3 */
    double num_total;                 /**< integer_vif_num (sum of num[]) */
    double den_total;                 /**< integer_vif_den (sum of den[]) */
    double vif;                       /**< integer_vif = num_total / den_total (1 when 0/0) */
} fovea_vif_scores;

/** libvmaf's pooling of one per-frame value over the frames processed. */
typedef struct fovea_vif_pool {
    double min, max;
    double mean;           /**< sum / n, summed in frame order */
    double harmonic_mean;  /**< n / sum(1 / (x + 1)) - 1, as libvmaf */
} fovea_vif_pool;

/** Pooled scores over every frame processed since open (or the last reset). */
typedef struct fovea_vif_pooled_scores {
    int64_t frames;                        /**< number of frames pooled */
    fovea_vif_pool scale[FOVEA_VIF_SCALES];
} fovea_vif_pooled_scores;

/** An opaque VIF context: backend state, scratch buffers and the pooling
 *  accumulator. One context scores one stream of frame pairs; it is not
 *  thread-safe (use one per thread). */
typedef struct fovea_vif fovea_vif;

/** Fill s with defaults (gain limit 100.0, debug off). */
FOVEA_API void fovea_vif_default_settings(fovea_vif_settings *s);

/** Create a VIF context on ctx. The backend comes from the context: CPU contexts
 *  use the C reference, multi-threaded over the context's threads; CUDA contexts
 *  use the CUDA backend, whose integer arithmetic is identical (same scores, bit
 *  for bit). fovea_vif_backend() says which one runs.
 *  @param v receives the context (NULL on failure)
 *  @param ctx fovea context; must outlive the VIF context
 *  @param s settings, or NULL for defaults
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (gain limit outside [1, 100], NULL
 *          arguments), FOVEA_ERR_NOMEM */
FOVEA_API int fovea_vif_open(fovea_vif **v, fovea_context *ctx, const fovea_vif_settings *s);

/** Destroy a VIF context and set *v to NULL. Safe on NULL. */
FOVEA_API void fovea_vif_close(fovea_vif **v);

/** @return the backend that computes the scores (CPU or CUDA). */
FOVEA_API fovea_backend fovea_vif_backend(const fovea_vif *v);

/** Score one reference/distorted pair. Only the luma plane (plane 0) is read.
 *  Frames: host or pinned memory, or device memory on the CUDA backend (scored
 *  without a copy through the host); any YUV or gray format (8, 10, 12 or 16 bit, any chroma
 *  layout, NV12), width and height >= 16; ref and dis must have the same size and
 *  bit depth. Buffers are allocated at the first frame and reused while the size
 *  and bit depth stay the same. The scores are added to the pooling accumulator.
 *  Not while pairs submitted with fovea_vif_submit are pending.
 *  @param out receives the scores (may be NULL to only pool)
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (NULL, too small, device memory on the CPU backend,
 *          pairs pending), FOVEA_ERR_UNSUPPORTED (RGB formats), FOVEA_ERR_MISMATCH (sizes or
 *          bit depths differ), FOVEA_ERR_NOMEM, FOVEA_ERR_CUDA; detail in
 *          fovea_last_error(ctx). */
FOVEA_API int fovea_vif_process(fovea_vif *v, const fovea_frame *ref, const fovea_frame *dis,
                                fovea_vif_scores *out);

/** Queue a pair for scoring (the asynchronous API; receive the scores with
 *  fovea_vif_receive). Frames as for fovea_vif_process. The CUDA backend groups
 *  pairs into batches of fovea_vif_batch_size() pairs, scored by one launch per
 *  scale; host frames are copied to the device on a second stream, so the copies
 *  of one batch overlap the kernels of the previous one. The CPU backend scores
 *  the pair before returning.
 *  Pageable host frames are copied before return and may be reused at once;
 *  pinned and device frames are read later and must stay valid and unchanged
 *  until this pair's scores were received. When the backend's queue is full,
 *  submit waits for the oldest batch (its scores are kept for receive). A pair
 *  of another size or bit depth first finishes the queued pairs.
 *  @return FOVEA_OK, or the errors of fovea_vif_process (the pair is then not
 *          queued) */
FOVEA_API int fovea_vif_submit(fovea_vif *v, const fovea_frame *ref, const fovea_frame *dis);

/** Scores of the oldest pending pair (submitted, not yet received), in
 *  submission order, waiting for the device when needed (a partly filled batch
 *  is launched). The scores are numbered and pooled exactly as
 *  fovea_vif_process does.
 *  @param out receives the scores (may be NULL to only pool)
 *  @return FOVEA_OK, FOVEA_EOF when no pair is pending, FOVEA_ERR_INVALID_ARG (NULL v),
 *          FOVEA_ERR_CUDA; detail in fovea_last_error(ctx). */
FOVEA_API int fovea_vif_receive(fovea_vif *v, fovea_vif_scores *out);

/** @return the number of pending pairs (submitted, scores not yet received);
 *  0 for NULL. */
FOVEA_API int64_t fovea_vif_pending(const fovea_vif *v);

/** Pairs the backend scores together for width x height frames: the CUDA
 *  backend's batch (up to 32 pairs of small frames, 1 pair at 3840x2160); 1 on
 *  the CPU backend. Keeping about three batches pending keeps the device busy
 *  and the copies overlapped.
 *  @return >= 1 */
FOVEA_API int fovea_vif_batch_size(const fovea_vif *v, int width, int height);

/** Pooled min / max / mean / harmonic mean of each scale over the frames
 *  processed (or received) so far (libvmaf's pooled_metrics). With no frame, frames is 0 and
 *  the values are 0.
 *  @return FOVEA_OK or FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_vif_pooled(const fovea_vif *v, fovea_vif_pooled_scores *out);

/** Forget the pooled frames and restart frame numbering at 0. Pending pairs are
 *  finished and their scores dropped. */
FOVEA_API void fovea_vif_reset(fovea_vif *v);


/* ------------------------------------------------------------------------ */
/* VMAF: every feature of a libvmaf model (integer VIF, ADM, motion) and the   */
/* model's score, bit-exact with libvmaf 3.2.0 (docs/vmaf.md).                */

/** Most metrics one VMAF context reports per frame. */
#define FOVEA_VMAF_MAX_METRICS 64

/** A loaded VMAF model (libvmaf's JSON model format). Immutable once loaded:
 *  one model may serve any number of VMAF contexts, in any thread. */
typedef struct fovea_vmaf_model fovea_vmaf_model;

/** Load a libvmaf JSON model file (at most 16 MiB).
 *  @param m receives the model (NULL on failure)
 *  @param ctx context for the error message (may be NULL)
 *  @return FOVEA_OK, FOVEA_ERR_IO (unreadable), FOVEA_ERR_CORRUPT (malformed
 *          JSON or values; the message names the file and the field),
 *          FOVEA_ERR_UNSUPPORTED (a valid libvmaf model using a feature or
 *          kernel fovea does not compute), FOVEA_ERR_NOMEM,
 *          FOVEA_ERR_INVALID_ARG (NULL) */
FOVEA_API int fovea_vmaf_model_load(fovea_vmaf_model **m, fovea_context *ctx, const char *path);

/** A built-in model by libvmaf's version name: "vmaf_v0.6.1".
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (unknown name, NULL), FOVEA_ERR_NOMEM */
FOVEA_API int fovea_vmaf_model_builtin(fovea_vmaf_model **m, fovea_context *ctx,
                                       const char *version);

/** Free a model and set *m to NULL. Safe on NULL. Every VMAF context using the
 *  model must be closed first. */
FOVEA_API void fovea_vmaf_model_free(fovea_vmaf_model **m);

/** Which features a VMAF context computes. */
typedef enum fovea_vmaf_features {
    /** The model's features and the score: libvmaf's `-m version=...` output
     *  (integer_adm2, integer_aim, integer_adm3, integer_adm_scale0..3,
     *  VMAF_integer_feature_motion_sad_score, integer_vif_scale0..3,
     *  integer_motion2, integer_motion3, vmaf for vmaf_v0.6.1). Default. */
    FOVEA_VMAF_FEATURES_MODEL = 0,
    /** The model's features, no score (libvmaf's --no_prediction). */
    FOVEA_VMAF_FEATURES_MODEL_ONLY = 1,
    /** integer_vif_scale0..3 only (libvmaf's --feature vif --no_prediction). */
    FOVEA_VMAF_FEATURES_VIF = 2
} fovea_vmaf_features;

/** Prediction flags (libvmaf's VmafModelFlags). */
#define FOVEA_VMAF_ENABLE_TRANSFORM 1 /**< apply the model's score_transform even when disabled */
#define FOVEA_VMAF_DISABLE_CLIP 2     /**< do not clip the score to the model's score_clip */

/** Settings of a VMAF context. */
typedef struct fovea_vmaf_settings {
    /** Model; NULL = the built-in vmaf_v0.6.1 (loaded by the context). Kept by
     *  reference: it must outlive the context. */
    const fovea_vmaf_model *model;
    fovea_vmaf_features features;   /**< default FOVEA_VMAF_FEATURES_MODEL */
    int flags;                      /**< FOVEA_VMAF_* prediction flags; default 0 */
} fovea_vmaf_settings;

/** The metrics of one frame pair. value[i] is the metric named
 *  fovea_vmaf_metric_name(v, i); the order and the names are libvmaf's output
 *  order and names for the chosen features (names carry libvmaf's option
 *  suffixes, e.g. integer_adm2_egl_1, when the model sets extractor options). */
typedef struct fovea_vmaf_scores {
    int64_t frame;                           /**< 0-based number of the pair */
    int count;                               /**< fovea_vmaf_metric_count(v) */
    double value[FOVEA_VMAF_MAX_METRICS];
} fovea_vmaf_scores;

/** libvmaf's pooling of every metric over the frames received. */
typedef struct fovea_vmaf_pooled_scores {
    int64_t frames;                          /**< frames pooled (0: values are 0) */
    int count;                               /**< metrics */
    struct {
        double min, max;
        double mean;                         /**< sum / n, in frame order */
        double harmonic_mean;                /**< n / sum(1 / (x + 1)) - 1 */
    } metric[FOVEA_VMAF_MAX_METRICS];
} fovea_vmaf_pooled_scores;

/** An opaque VMAF context: one stream of frame pairs. Not thread-safe (one per
 *  thread); the work runs on the fovea context's threads or its CUDA device. */
typedef struct fovea_vmaf fovea_vmaf;

/** Fill s with defaults (built-in vmaf_v0.6.1, model features and score, no flags). */
FOVEA_API void fovea_vmaf_default_settings(fovea_vmaf_settings *s);

/** Create a VMAF context on ctx; the backend comes from the context as for
 *  VIF, and both backends give identical doubles.
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (NULL, bad settings),
 *          FOVEA_ERR_UNSUPPORTED (a model whose extractor options fovea cannot
 *          honour), FOVEA_ERR_NOMEM, FOVEA_ERR_NO_DEVICE, FOVEA_ERR_CUDA */
FOVEA_API int fovea_vmaf_open(fovea_vmaf **v, fovea_context *ctx, const fovea_vmaf_settings *s);

/** Destroy a VMAF context and set *v to NULL. Safe on NULL. */
FOVEA_API void fovea_vmaf_close(fovea_vmaf **v);

/** @return the backend that computes the features (CPU or CUDA). */
FOVEA_API fovea_backend fovea_vmaf_backend(const fovea_vmaf *v);

/** @return the number of metrics per frame (1..FOVEA_VMAF_MAX_METRICS). */
FOVEA_API int fovea_vmaf_metric_count(const fovea_vmaf *v);

/** @return libvmaf's name of metric i, or NULL when i is out of range. The
 *  string belongs to v. */
FOVEA_API const char *fovea_vmaf_metric_name(const fovea_vmaf *v, int i);

/** @return the index of the metric named name ("vmaf", "integer_adm2", ...),
 *  or -1. */
FOVEA_API int fovea_vmaf_metric_index(const fovea_vmaf *v, const char *name);

/** Queue the next pair of the stream. Frames as for fovea_vif_process (luma
 *  read; host, pinned, or device memory on the CUDA backend); width and height
 *  >= 33 when ADM is computed (its fourth wavelet level), >= 16 for VIF only.
 *  The motion features of frame n compare its reference with the reference of
 *  frame n - 1 (frame 0 has motion 0) and integer_motion2 of frame n is the
 *  smaller of the motion of frames n and n + 1: frame n's scores are therefore
 *  ready only once frame n + 1 was submitted, or after fovea_vmaf_flush
 *  (features without motion, FOVEA_VMAF_FEATURES_VIF, are ready at once).
 *  The context keeps what motion needs of the previous frame itself (blurred
 *  on its backend): the caller's frames are not held. Pageable host frames may
 *  be reused at return; pinned and device frames must stay valid and unchanged
 *  until this pair's scores were received. A pair of another size or depth
 *  is refused with FOVEA_ERR_MISMATCH until the stream is flushed.
 *  @return FOVEA_OK, or the errors of fovea_vif_process (the pair is then not
 *          queued) */
FOVEA_API int fovea_vmaf_submit(fovea_vmaf *v, const fovea_frame *ref, const fovea_frame *dis);

/** The scores of the oldest frame whose scores are ready, in frame order,
 *  waiting for the device when needed. The scores are pooled as they are
 *  received.
 *  @param out receives the scores (may be NULL to only pool)
 *  @return FOVEA_OK; FOVEA_EOF when no frame is ready (none pending, or the
 *          only one waits for its successor or for fovea_vmaf_flush);
 *          FOVEA_ERR_INVALID_ARG, FOVEA_ERR_CUDA */
FOVEA_API int fovea_vmaf_receive(fovea_vmaf *v, fovea_vmaf_scores *out);

/** End of the stream: the last frame submitted becomes ready (its motion2 is
 *  its own motion, as libvmaf's last frame). A pair submitted after the flush
 *  starts a new stream (motion restarts at 0; frame numbers and pooling go on
 *  until fovea_vmaf_reset). @return FOVEA_OK or FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_vmaf_flush(fovea_vmaf *v);

/** @return the number of pairs submitted and not yet received; 0 for NULL. */
FOVEA_API int64_t fovea_vmaf_pending(const fovea_vmaf *v);

/** Pairs the backend scores together for width x height frames: on the CPU
 *  backend one per thread of the context, each pair on its own thread (a pair
 *  received alone is split over the threads instead); keeping about three
 *  batches pending keeps every thread or the GPU busy. The scores do not
 *  depend on it. @return >= 1 */
FOVEA_API int fovea_vmaf_batch_size(const fovea_vmaf *v, int width, int height);

/** libvmaf's pooled_metrics of every metric over the frames received so far.
 *  @return FOVEA_OK or FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_vmaf_pooled(const fovea_vmaf *v, fovea_vmaf_pooled_scores *out);

/** Drop pending pairs, forget the pooled frames and the stream, restart frame
 *  numbering at 0. */
FOVEA_API void fovea_vmaf_reset(fovea_vmaf *v);

#ifdef __cplusplus
}
#endif

#endif
