/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea quality metrics, bit-exact with libvmaf 3.2.0: libvmaf's feature
 * extractors (integer VIF, ADM, motion) on their own or composed into a
 * libvmaf model's score (VMAF). */
#ifndef FOVEA_QUALITY_H
#define FOVEA_QUALITY_H

#include <stdio.h>

#include "fovea/fovea.h"
#include "fovea/io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* One scoring object: a VMAF model's features and score, or a plain list of */
/* features ("vif", "adm", "motion"), bit-exact with libvmaf 3.2.0           */
/* (docs/quality.md).                                                         */

/** Most metrics one VMAF context reports per frame. */
#define FOVEA_VMAF_MAX_METRICS 128

/** A loaded VMAF model (libvmaf's JSON model format). Immutable once loaded:
 *  one model may serve any number of VMAF contexts, in any thread. */
typedef struct fovea_vmaf_model fovea_vmaf_model;

/** A model by libvmaf's version name ("vmaf_v0.6.1", fovea_builtin_vmaf_model
 *  lists them) or by libvmaf's --model parameter string: colon-separated
 *  "version=NAME" or "path=FILE", "name=NAME" (the name its score is
 *  reported under; default "vmaf"), "enable_transform", "disable_clip" and
 *  feature option overrides "FEATURE.OPTION=VALUE" (e.g.
 *  "version=vmaf_v1.0.16_3d0h:cambi.enc_width=1280:name=v1"). A bootstrap
 *  model (vmaf_b_v0.6.3) reports NAME, NAME_0001... (its sub-models) and
 *  NAME_bagging, NAME_stddev, NAME_ci_p95_lo, NAME_ci_p95_hi.
 *  @param m receives the model (NULL on failure)
 *  @param ctx context for the error message (may be NULL)
 *  @param spec a version name or parameter string (a string without '=' is a
 *         version name)
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (unknown name, parameter, feature
 *          or option; NULL), FOVEA_ERR_UNSUPPORTED (a model using a feature or
 *          option fovea does not compute: the message names it), the errors
 *          of fovea_vmaf_model_open_file for path=, FOVEA_ERR_NOMEM */
FOVEA_API int fovea_vmaf_model_open(fovea_vmaf_model **m, fovea_context *ctx, const char *spec);

/** @return the i-th built-in model's version name (i from 0), or NULL past
 *  the last one. */
FOVEA_API const char *fovea_builtin_vmaf_model(int i);

/** @return the name m's score is reported under ("vmaf" unless the
 *  parameter string gave name=), or NULL for NULL. */
FOVEA_API const char *fovea_vmaf_model_name(const fovea_vmaf_model *m);

/** Load a libvmaf JSON model file (at most 16 MiB).
 *  @param m receives the model (NULL on failure)
 *  @param ctx context for the error message (may be NULL)
 *  @return FOVEA_OK, FOVEA_ERR_IO (unreadable), FOVEA_ERR_CORRUPT (malformed
 *          JSON or values; the message names the file and the field),
 *          FOVEA_ERR_UNSUPPORTED (a valid libvmaf model using a feature or
 *          kernel fovea does not compute), FOVEA_ERR_NOMEM,
 *          FOVEA_ERR_INVALID_ARG (NULL) */
FOVEA_API int fovea_vmaf_model_open_file(fovea_vmaf_model **m, fovea_context *ctx,
                                         const char *path);

/** Free a model and set *m to NULL. Safe on NULL. Every VMAF context using the
 *  model must be closed first. */
FOVEA_API void fovea_vmaf_model_close(fovea_vmaf_model **m);

/** Prediction flags (libvmaf's VmafModelFlags) and output choices. */
#define FOVEA_VMAF_ENABLE_TRANSFORM 1 /**< apply the model's score_transform even when disabled */
#define FOVEA_VMAF_DISABLE_CLIP 2     /**< do not clip the score to the model's score_clip */
#define FOVEA_VMAF_NO_PREDICTION                                                                   \
    4 /**< the model's features without its score (libvmaf's
                                           --no_prediction) */
#define FOVEA_VMAF_NO_SUFFIX                                                                       \
    8 /**< metric names without libvmaf's option suffixes
                                           (integer_vif_scale0 whatever the gain limit) */

/** Settings of a VMAF context: what it computes. With neither a model nor a
 *  feature list, the built-in vmaf_v0.6.1 model. */
typedef struct fovea_vmaf_settings {
    /** Model, or NULL. Kept by reference: it must outlive the context. Its
     *  features come first, then the model's score (unless
     *  FOVEA_VMAF_NO_PREDICTION). */
    const fovea_vmaf_model *model;
    /** More models scored besides model (after it), or NULL: n_models of
     *  them (at most 7), each kept by reference like model. Each model's score is
     *  named by its name (fovea_vmaf_model_name): two models of one name are
     *  refused. The array itself is read at open only. */
    const fovea_vmaf_model *const *models;
    int n_models; /**< entries of models; default 0 */
    /** Features computed besides the model's (or alone when model is NULL),
     *  or NULL: a comma-separated list of feature names, each with options
     *  as name=value after colons, e.g. "vif",
     *  "vif:vif_enhn_gain_limit=1.5:debug=true", "adm,motion". Features:
     *  vif (integer_vif_scale0..3; debug=true adds integer_vif,
     *  integer_vif_num, integer_vif_den and the num/den of each scale), adm
     *  (e.g. "adm:adm_csf_mode=2:adm_dlm_weight=0.7", as libvmaf's v1 models;
     *  debug=true adds libvmaf's debug outputs), motion (e.g.
     *  "motion:motion_five_frame_window=true"); their options are libvmaf's.
     *  Copied at open. */
    const char *features;
    int flags; /**< FOVEA_VMAF_* flags; default 0 */
    /** 1: keep every received frame's values for fovea_vmaf_write. Default 0. */
    int keep_frames;
    /** Score every Nth pair only (libvmaf's n_subsample): frames 0, N, 2N, ...
     *  of the stream are received, kept, pooled and written (with their own
     *  frame numbers); the others still feed motion, whose features compare
     *  each frame with the one submitted before it, so a kept frame's values
     *  are those of a run without subsampling. 0 or 1 = every pair
     *  (default 0). */
    int subsample;
} fovea_vmaf_settings;

/** The metrics of one frame pair. value[i] is the metric named
 *  fovea_vmaf_metric_name(v, i); the order and the names are libvmaf's output
 *  order and names for the chosen features (names carry libvmaf's option
 *  suffixes, e.g. integer_adm2_egl_1, when the model sets extractor options). */
typedef struct fovea_vmaf_scores {
    int64_t frame; /**< 0-based number of the pair */
    int count;     /**< fovea_vmaf_metric_count(v) */
    double value[FOVEA_VMAF_MAX_METRICS];
} fovea_vmaf_scores;

/** libvmaf's pooling of every metric over the frames received. */
typedef struct fovea_vmaf_pooled_scores {
    int64_t frames; /**< frames pooled (0: values are 0) */
    int count;      /**< metrics */
    struct {
        double min, max;
        double mean;          /**< sum / n, in frame order */
        double harmonic_mean; /**< n / sum(1 / (x + 1)) - 1 */
    } metric[FOVEA_VMAF_MAX_METRICS];
} fovea_vmaf_pooled_scores;

/** An opaque VMAF context: one stream of frame pairs. Not thread-safe (one per
 *  thread); the work runs on the fovea context's threads or its CUDA device. */
typedef struct fovea_vmaf fovea_vmaf;

/** Fill s with defaults (no model, no models, no feature list: the built-in
 *  vmaf_v0.6.1's features and score; no flags, frames not kept). */
FOVEA_API void fovea_vmaf_default_settings(fovea_vmaf_settings *s);

/** Create a VMAF context on ctx. The backend comes from the context: CPU
 *  contexts use the C references, on the context's threads; CUDA contexts
 *  the CUDA kernels, whose integer arithmetic is identical (the same doubles,
 *  bit for bit). fovea_vmaf_backend() says which one runs.
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (NULL, bad settings: unknown
 *          feature or option, option out of range, an empty list),
 *          FOVEA_ERR_UNSUPPORTED (a model whose extractor options fovea cannot
 *          honor), FOVEA_ERR_NOMEM, FOVEA_ERR_NO_DEVICE, FOVEA_ERR_CUDA */
FOVEA_API int fovea_vmaf_open(fovea_vmaf **v, fovea_context *ctx, const fovea_vmaf_settings *s);

/** Destroy a VMAF context and set *v to NULL. Safe on NULL. */
FOVEA_API void fovea_vmaf_close(fovea_vmaf **v);

/** @return the backend that computes the features (CPU or CUDA). */
FOVEA_API fovea_backend fovea_vmaf_backend(const fovea_vmaf *v);

/** @return the name of a feature the CUDA backend has no extractor for when
 *  a context whose backend was AUTO (resolved to CUDA) runs v on the C
 *  backend because of it, else NULL. A context asked for CUDA explicitly
 *  refuses such a feature list at fovea_vmaf_open instead. */
FOVEA_API const char *fovea_vmaf_backend_reason(const fovea_vmaf *v);

/** @return the number of metrics per frame (1..FOVEA_VMAF_MAX_METRICS). */
FOVEA_API int fovea_vmaf_metric_count(const fovea_vmaf *v);

/** @return libvmaf's name of metric i, or NULL when i is out of range. The
 *  string belongs to v. */
FOVEA_API const char *fovea_vmaf_metric_name(const fovea_vmaf *v, int i);

/** @return the index of the metric named name ("vmaf", "integer_adm2", ...),
 *  or -1. */
FOVEA_API int fovea_vmaf_metric_index(const fovea_vmaf *v, const char *name);

/** Queue the next pair of the stream. Only the luma plane (plane 0) is read;
 *  any YUV or gray format (8, 10, 12 or 16 bit, any chroma layout, NV12);
 *  host or pinned memory, or device memory on the CUDA backend (read without
 *  a copy through the host); ref and dis of the same size and bit depth;
 *  width and height >= 33 when ADM is computed (its fourth wavelet level),
 *  >= 16 with VIF. Buffers are made at the first pair and kept while the
 *  size and depth stay.
 *  The motion features of frame n compare its reference with the reference of
 *  frame n - 1 (frame 0 has motion 0) and integer_motion2 of frame n is the
 *  smaller of the motion of frames n and n + 1: frame n's scores are therefore
 *  ready only once frame n + 1 was submitted, or after fovea_vmaf_flush
 *  (features without motion, such as "vif", are ready at once).
 *  The context keeps what motion needs of the previous frame itself: the
 *  caller's frames are not held. Pageable host frames may be reused at
 *  return; pinned and device frames must stay valid and unchanged until this
 *  pair's scores were received. With motion, a pair of another size or depth
 *  is refused with FOVEA_ERR_MISMATCH until the stream is flushed; without,
 *  it starts a new stream (the pending pairs are finished first). When the
 *  backend's queue is full, submit waits for the oldest batch (its scores are
 *  kept for receive), so it never returns FOVEA_AGAIN: receive at any pace.
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (NULL, too small, device memory on
 *          the CPU backend), FOVEA_ERR_UNSUPPORTED (RGB formats),
 *          FOVEA_ERR_MISMATCH (sizes or bit depths differ), FOVEA_ERR_NOMEM,
 *          FOVEA_ERR_CUDA (the pair is then not queued); detail in
 *          fovea_last_error(ctx) */
FOVEA_API int fovea_vmaf_submit(fovea_vmaf *v, const fovea_frame *ref, const fovea_frame *dis);

/** The scores of the oldest frame whose scores are ready, in frame order,
 *  waiting for the device when needed. The scores are pooled (and kept, with
 *  settings.keep_frames) as they are received. With settings.subsample N > 1
 *  the pairs between two scored frames leave the queue unreported (pinned
 *  and device frames may be reused once fovea_vmaf_pending no longer counts
 *  them), and FOVEA_AGAIN may come with fewer pairs pending.
 *  @param out receives the scores (may be NULL to only pool)
 *  @return FOVEA_OK; FOVEA_AGAIN when no frame is ready (none pending, or the
 *          only one waits for its successor or for fovea_vmaf_flush);
 *          FOVEA_ERR_INVALID_ARG, FOVEA_ERR_NOMEM, FOVEA_ERR_CUDA */
FOVEA_API int fovea_vmaf_receive(fovea_vmaf *v, fovea_vmaf_scores *out);

/** End of the stream: the last frame submitted becomes ready (its motion2 is
 *  its own motion, as libvmaf's last frame). A pair submitted after the flush
 *  starts a new stream (motion restarts at 0; frame numbers and pooling go on
 *  until fovea_vmaf_reset). @return FOVEA_OK or FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_vmaf_flush(fovea_vmaf *v);

/** Score one pair now: submit, flush and receive (the pair is a stream of
 *  its own: its motion is 0). Not while pairs are pending.
 *  With settings.subsample N > 1, a pair whose frame number is not a
 *  multiple of N is not scored: FOVEA_AGAIN.
 *  @param out receives the scores (may be NULL to only pool)
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (pairs pending), or the errors of
 *          fovea_vmaf_submit and fovea_vmaf_receive */
FOVEA_API int fovea_vmaf_process(fovea_vmaf *v, const fovea_frame *ref, const fovea_frame *dis,
                                 fovea_vmaf_scores *out);

/** @return the number of pairs submitted and not yet received; 0 for NULL. */
FOVEA_API int64_t fovea_vmaf_pending(const fovea_vmaf *v);

/** Pairs the backend scores together for width x height frames: on the CPU
 *  backend one per thread of the context, each pair on its own thread (a pair
 *  received alone is split over the threads instead); keeping about three
 *  batches pending keeps every thread or the GPU busy. The scores do not
 *  depend on it. @return >= 1 */
FOVEA_API int fovea_vmaf_batch_size(const fovea_vmaf *v, int width, int height);

/** How fovea_vmaf_score_readers reads its two inputs. */
typedef struct fovea_vmaf_readers_settings {
    int64_t frames;    /**< pairs read at most; -1 (default): until an input ends */
    size_t ring_bytes; /**< the read-ahead frames' memory at most (default 256 MiB) */
    /** Called on the calling thread each time pairs left the scorer, with
     *  the number of pairs read and done so far (NULL: not called). */
    void (*progress)(void *opaque, int64_t pairs);
    void *opaque; /**< progress's first argument */
} fovea_vmaf_readers_settings;

/** Set s to the defaults: every pair, 256 MiB of read-ahead, no progress. */
FOVEA_API void fovea_vmaf_readers_default_settings(fovea_vmaf_readers_settings *s);

/** What fovea_vmaf_score_readers did. */
typedef struct fovea_vmaf_readers_result {
    int64_t pairs; /**< pairs read and submitted (all received unless an error came) */
    int64_t done;  /**< pairs whose scores were received (or skipped by subsample) */
    int failed;    /**< the input whose read failed: 0 ref, 1 dis; -1 none */
    int64_t frame; /**< the pair a read or the scorer failed on (with an error) */
    /** The input that ended the run: 0 the reference (the distorted is not
     *  read past it), 1 the distorted (the reference had one more frame);
     *  -1 the limit settings.frames */
    int ended;
} fovea_vmaf_readers_result;

/** Score the pairs of two readers to the end of the shorter (or
 *  settings.frames), flush and receive every score (pooled, and kept with
 *  settings.keep_frames): the CLI's pipeline. Each reader runs on a thread of
 *  its own into a ring of frames (pinned on a CUDA context; device frames
 *  read in place when a reader decodes with NVDEC and the scorer is CUDA)
 *  while the calling thread submits the pairs and keeps about three of the
 *  backend's batches pending (fovea_vmaf_batch_size), so that neither the
 *  scorer waits on the files nor the readers on the scorer. The distorted
 *  input is not read past the reference's end. The readers are the caller's
 *  (open, and may have skipped frames); they must not be used meanwhile.
 *  @param s NULL for the defaults
 *  @param out receives the counts and which input failed or ended first (may
 *         be NULL)
 *  On an error the pending pairs are dropped (fovea_vmaf_reset).
 *  @return FOVEA_OK (also when no pair was read: out->pairs 0), a read's
 *          status (the reader's message in fovea_last_error of v's context),
 *          FOVEA_ERR_INVALID_ARG (pairs pending on v), or the errors of
 *          fovea_vmaf_submit and fovea_vmaf_receive */
FOVEA_API int fovea_vmaf_score_readers(fovea_vmaf *v, fovea_reader *ref, fovea_reader *dis,
                                       const fovea_vmaf_readers_settings *s,
                                       fovea_vmaf_readers_result *out);

/** libvmaf's pooled_metrics of every metric over the frames received so far.
 *  @return FOVEA_OK or FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_vmaf_pooled(const fovea_vmaf *v, fovea_vmaf_pooled_scores *out);

/** Most aggregate metrics of one context. */
#define FOVEA_VMAF_MAX_AGGREGATES 32

/** libvmaf's aggregate_metrics: values of the whole run that are not pooled
 *  from per-frame values (psnr's apsnr_y, apsnr_cb, apsnr_cr with
 *  enable_apsnr), over the frames received so far. */
typedef struct fovea_vmaf_aggregates {
    int count;                                   /**< values (0: none) */
    const char *name[FOVEA_VMAF_MAX_AGGREGATES]; /**< libvmaf's names (static strings) */
    double value[FOVEA_VMAF_MAX_AGGREGATES];     /**< may be infinite or NaN (JSON null) */
} fovea_vmaf_aggregates;

/** libvmaf's aggregate_metrics over the frames received so far.
 *  @return FOVEA_OK or FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_vmaf_aggregate(const fovea_vmaf *v, fovea_vmaf_aggregates *out);

/** Drop pending pairs, forget the pooled frames and the stream, restart frame
 *  numbering at 0. */
FOVEA_API void fovea_vmaf_reset(fovea_vmaf *v);

/* ------------------------------------------------------------------------ */
/* libvmaf's output formats (settings.keep_frames).                          */

/** Output formats of fovea_vmaf_write. */
typedef enum fovea_vmaf_format {
    FOVEA_VMAF_OUTPUT_JSON = 0, /**< libvmaf's --json layout */
    FOVEA_VMAF_OUTPUT_CSV = 1   /**< "Frame,<names>", then a row per frame */
} fovea_vmaf_format;

/** Types of a caller's JSON member. */
typedef enum fovea_vmaf_field_type {
    FOVEA_VMAF_FIELD_STRING = 0, /**< str */
    FOVEA_VMAF_FIELD_NUMBER,     /**< num, as JSON prints numbers (counts, sizes) */
    FOVEA_VMAF_FIELD_EXACT,      /**< num as %.17g (null when not finite) */
    FOVEA_VMAF_FIELD_BOOL        /**< num != 0 */
} fovea_vmaf_field_type;

/** A member of the JSON's "fovea" object (the caller's description of the run). */
typedef struct fovea_vmaf_field {
    const char *key;
    fovea_vmaf_field_type type;
    const char *str;
    double num;
} fovea_vmaf_field;

/** What the caller adds to the output. */
typedef struct fovea_vmaf_output {
    double fps;                     /**< JSON "fps" */
    const fovea_vmaf_field *fields; /**< the "fovea" object's members in order; NULL: none */
    int n_fields;
} fovea_vmaf_output;

/** Write the kept frames (settings.keep_frames) and the pooled values in
 *  libvmaf's layout (frame numbers i * settings.subsample, as libvmaf's
 *  --subsample writes them): JSON {"version", "fps", "frames": [{"frameNum",
 *  "metrics"}], "pooled_metrics" (when a frame was received),
 *  "aggregate_metrics" (fovea_vmaf_aggregate), then "fovea" with o's fields} and a newline; CSV a
 *  header and a row per frame. Numbers are %.17g (they read back as the same
 *  double); non-finite ones are null in JSON.
 *  @param o fps and fields for JSON (may be NULL); unused for CSV
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (NULL, frames not kept, unknown
 *          format), FOVEA_ERR_NOMEM, FOVEA_ERR_IO (a write failed) */
FOVEA_API int fovea_vmaf_write(const fovea_vmaf *v, FILE *f, fovea_vmaf_format format,
                               const fovea_vmaf_output *o);

/** @return the number of frames kept (settings.keep_frames); 0 for NULL. */
FOVEA_API int64_t fovea_vmaf_kept_frames(const fovea_vmaf *v);

/** @return the fovea_vmaf_metric_count values of kept frame i (valid until
 *  the next receive or reset), or NULL when i is out of range. With
 *  settings.subsample N > 1, kept frame i is frame i * N. */
FOVEA_API const double *fovea_vmaf_kept_values(const fovea_vmaf *v, int64_t i);

#ifdef __cplusplus
}
#endif

#endif
