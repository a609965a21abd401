/* Internal interface of the VMAF system: the table of functions every VMAF
 * backend (C reference, CUDA) provides, and what vmaf.c hands it. A backend
 * computes RAW values only (libvmaf's float sums per scale, motion's integer
 * SAD); every double a user sees is derived from them in vmaf.c by the shared
 * functions of adm.h, motion.h and vif_internal.h, identically for every
 * backend. docs/vmaf.md ("VMAF API") describes the queue around it. */
#ifndef FOVEA_QUALITY_VMAF_INTERNAL_H
#define FOVEA_QUALITY_VMAF_INTERNAL_H

#include <stdint.h>

#include "core/backend.h"
#include "core/core.h"
#include "fovea/quality.h"
#include "quality/adm.h"
#include "quality/vif_internal.h"

/* Extractor instances one context runs: a model's features of one extractor
 * with equal options share an instance (as libvmaf's extractors do). Each
 * instance reports at least 3 metrics, so FOVEA_VMAF_MAX_METRICS bounds this. */
#define VMAF_MAX_EXTRACTORS 16

typedef enum vmaf_ex_type { VMAF_EX_VIF = 0, VMAF_EX_ADM, VMAF_EX_MOTION } vmaf_ex_type;

/* One extractor instance and the options that change what the backend
 * computes (motion's other options only change the derivation in vmaf.c). */
typedef struct vmaf_ex_params {
    vmaf_ex_type type;
    double enhn_gain_limit;    /* VIF: vif_enhn_gain_limit; ADM: adm_enhn_gain_limit (1..100) */
    double norm_view_dist;     /* ADM: adm_norm_view_dist */
    int ref_display_height;    /* ADM: adm_ref_display_height */
    int force_zero;            /* MOTION: motion_force_zero (SAD 0, nothing computed) */
} vmaf_ex_params;

/* What init receives. width, height >= ADM_MIN_DIM when an ADM instance is
 * present, >= VIF_MIN_DIM otherwise; bpc 8, 10, 12 or 16. */
typedef struct vmaf_params {
    int width, height;
    int bpc;
    int n_ex;
    vmaf_ex_params ex[VMAF_MAX_EXTRACTORS];
} vmaf_params;

/* The raw values of one extractor instance for one frame pair; only the
 * member of the instance's type is meaningful. */
typedef struct vmaf_ex_raw {
    vif_raw vif;    /* VIF: float numerator and denominator of each scale */
    adm_raw adm;    /* ADM: float num, den and aim_num of each scale */
    /* MOTION: sum of |blur(prev_ref - ref)| (motion.h, motion_sad) of this
     * frame's reference against the previous frame's of the same stream; 0
     * for the first frame of a stream and with force_zero. */
    uint64_t sad;
} vmaf_ex_raw;

/* One frame pair's raw values, instance i in ex[i] (vmaf_params order). */
typedef struct vmaf_raw {
    vmaf_ex_raw ex[VMAF_MAX_EXTRACTORS];
} vmaf_raw;

/* A VMAF backend (core/backend.h): init(priv, ctx, const vmaf_params *) makes
 * the state for one size and depth; vmaf.c closes and inits again for another
 * (after collecting every queued pair). Statuses are fovea statuses; messages
 * go through fv_ctx_error. Planes are luma planes (vif_plane: 8-bit samples or
 * 16-bit little-endian containers, strides in bytes, host, pinned or device
 * memory; device memory only for a backend with BACKEND_READS_DEVICE).
 *
 * Motion: the backend keeps what it needs of the previous pair's reference
 * itself (the C backend a copy of the luma), so the caller's frames are never
 * held for motion. new_stream = 1 marks the first pair of a stream: its SAD is
 * 0 and only its reference is kept. Pairs reach the backend in stream order.
 *
 * A backend either scores a pair at once (process; submit NULL) or queues
 * pairs (submit) and hands back their results in submission order (collect);
 * vmaf.c uses submit/collect when submit is not NULL. */
typedef struct vmaf_backend {
    backend_info info;
    /* Synchronous: the raw values of one pair. */
    int (*process)(void *priv, fovea_context *ctx, const vif_plane *ref, const vif_plane *dis,
                   int new_stream, vmaf_raw *out);
    /* Optional. Queue a pair; VMAF_QUEUE_FULL (positive, not an error) when
     * nothing more fits until a result is collected. Host planes are copied
     * before return; pinned and device planes are read until the pair's
     * result is collected. */
    int (*submit)(void *priv, fovea_context *ctx, const vif_plane *ref, const vif_plane *dis,
                  int new_stream);
    /* The oldest queued pair's result, waiting for it (only called while
     * pairs are queued). */
    int (*collect)(void *priv, fovea_context *ctx, vmaf_raw *out);
    /* Pairs handled together for a w x h stream on ctx (NULL: 1); callers
     * keep about three batches pending. */
    int (*batch)(const fovea_context *ctx, int width, int height);
} vmaf_backend;

/* submit's "collect first" answer. */
#define VMAF_QUEUE_FULL 2

/* The VMAF backends: vmaf_ref.c (C), vmaf_cuda.c (CUDA builds); the list in
 * vmaf_backends.c. */
extern const vmaf_backend vmaf_backend_ref;
extern const vmaf_backend vmaf_backend_cuda;
extern const backend_info *const vmaf_backends[];
extern const size_t vmaf_backend_count;

#endif
