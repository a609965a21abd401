/* Internal interface of the VMAF C reference: a model's features computed with
 * the C references of VIF (fovea_vif on a CPU context), ADM (adm_ref.c) and
 * motion (motion_ref.c), and the per-frame score the model predicts from them
 * (model.c). docs/quality.md, "VMAF model". */
#ifndef FOVEA_QUALITY_VMAF_REF_H
#define FOVEA_QUALITY_VMAF_REF_H

#include <stdint.h>

#include "fovea/frame.h"
#include "quality/model.h"

/* One frame's score and the raw values of the model's features (model order). */
typedef struct vmaf_frame_score {
    int64_t frame;
    double feature[VMAF_MODEL_MAX_FEATURES];
    double vmaf;
} vmaf_frame_score;

/* libvmaf's pooling of the per-frame scores. */
typedef struct vmaf_pool {
    int64_t frames;
    double min, max;
    double mean;          /* sum / n, summed in frame order */
    double harmonic_mean; /* n / sum(1 / (x + 1)) - 1 */
} vmaf_pool;

typedef struct vmaf_ref vmaf_ref;

/* Scorer for one stream of frame pairs under model m (kept by reference: it
 * must outlive the scorer). flags: VMAF_PREDICT_*. Sizes and depth come from
 * the first pair. @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_NOMEM */
int vmaf_ref_open(vmaf_ref **s, const vmaf_model *m, int flags);
void vmaf_ref_close(vmaf_ref **s);

/* Score the next pair (host frames, any YUV/gray format; luma only is read).
 * motion2 of frame n needs frame n + 1, so a frame's score comes one push late:
 * returns 1 with *out = the previous frame's score, 0 after the first pair, or
 * a negative status (FOVEA_ERR_INVALID_ARG, _MISMATCH, _UNSUPPORTED, _NOMEM;
 * message in fovea_last_error(NULL)). */
int vmaf_ref_push(vmaf_ref *s, const fovea_frame *ref, const fovea_frame *dis,
                  vmaf_frame_score *out);

/* After the last push: 1 with the last frame's score, then 0. */
int vmaf_ref_flush(vmaf_ref *s, vmaf_frame_score *out);

/* Pooled vmaf over every score handed out so far. */
void vmaf_ref_pooled(const vmaf_ref *s, vmaf_pool *out);

#endif
