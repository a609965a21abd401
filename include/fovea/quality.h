/* fovea quality metrics: libvmaf's integer VIF (visual information fidelity,
 * four scales), bit-exact with libvmaf's `vif` feature extractor. */
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

#ifdef __cplusplus
}
#endif

#endif
