/* Internal interface of the VIF system: the constants of libvmaf's integer VIF
 * and the table of functions every backend (C reference, CUDA) provides. */
#ifndef FOVEA_QUALITY_VIF_INTERNAL_H
#define FOVEA_QUALITY_VIF_INTERNAL_H

#include <stdint.h>

#include "core/backend.h"
#include "core/core.h"
#include "fovea/quality.h"

/* Gaussian filters of the four scales, in 1/65536 (each sums to 65536). */
#define VIF_MAX_TAPS 17
extern const uint16_t fv_vif_filter[FOVEA_VIF_SCALES][VIF_MAX_TAPS];
extern const int fv_vif_taps[FOVEA_VIF_SCALES];

/* Entries 32768..65535 of the table hold round(2048 * log2(i)) as libvmaf computes
 * it (log2 rounded to float first); the rest are 0. */
#define VIF_LOG2_TABLE_SIZE 65536
void fv_vif_log2_table(uint16_t *table);

/* Smallest width and height the arithmetic is defined for (mirror borders at
 * the 4th scale need 2 rows and columns). */
#define VIF_MIN_DIM 16

/* Luma plane handed to a backend. */
typedef struct vif_plane {
    const uint8_t *data; /* 8-bit samples, or 16-bit little-endian containers */
    ptrdiff_t stride;    /* bytes */
    fovea_memtype mem;   /* host, pinned or device (device: CUDA backend only) */
} vif_plane;

/* What a backend returns per frame: libvmaf's float numerator and denominator
 * of each scale. Scores are derived from these in vif.c, identically for every
 * backend. */
typedef struct vif_raw {
    float num[FOVEA_VIF_SCALES];
    float den[FOVEA_VIF_SCALES];
} vif_raw;

/* The scores of a pair from its raw values (frame not set; the debug fields
 * only when debug), identically for every backend and for VMAF. */
void vif_derive(const vif_raw *raw, int debug, fovea_vif_scores *sc);

/* Check a frame handed to system sys ("vif", "vmaf") for metric ("VIF",
 * "ADM") with the smallest width and height min_dim; return its bit depth
 * (> 0) or a negative status with the message recorded in ctx. */
int vif_check_frame(fovea_context *ctx, fovea_backend kind, const fovea_frame *f, const char *sys,
                    const char *what, const char *metric, int min_dim);

typedef struct vif_params {
    int width, height;
    int bpc;                    /* 8, 10, 12 or 16 */
    double enhn_gain_limit;
} vif_params;

/* A VIF backend (core/backend.h): init(priv, ctx, const vif_params *) may be
 * called again with new params (size change) after close. Statuses are fovea
 * statuses; messages go through fv_ctx_error. A backend either scores a
 * pair at once (process) or queues pairs (submit) and hands back their results
 * in submission order (collect); vif.c picks submit/collect when submit is not
 * NULL. */
typedef struct vif_backend {
    backend_info info;
    int (*process)(void *priv, fovea_context *ctx, const vif_plane *ref, const vif_plane *dis,
                   vif_raw *out);
    /* Optional (NULL in a synchronous backend). Queue a pair; VIF_QUEUE_FULL
     * when nothing more fits until a result is collected. Pinned and device
     * planes are read until the pair's result is collected; host planes are
     * copied before return. */
    int (*submit)(void *priv, fovea_context *ctx, const vif_plane *ref, const vif_plane *dis);
    /* The oldest queued pair's result, waiting for it (only called while pairs
     * are queued). */
    int (*collect)(void *priv, fovea_context *ctx, vif_raw *out);
    /* Pairs handled together for a w x h stream (NULL: 1). */
    int (*batch)(int width, int height);
} vif_backend;

/* CUDA builds (vif_cuda.c): a pair's raw values from the VIF kernels'
 * VIF_CUDA_FRAME_SUMS sums (vif_cuda.h), for the VIF and VMAF CUDA backends. */
void vif_cuda_raw(const unsigned long long *sums, vif_raw *out);

/* submit's "collect first" answer (positive: not an error). */
#define VIF_QUEUE_FULL 2

/* The VIF backends: vif_ref.c, vif_cuda.c (CUDA builds); the list in
 * vif_backends.c. */
extern const vif_backend vif_backend_ref;
extern const vif_backend vif_backend_cuda;
extern const backend_info *const vif_backends[];
extern const size_t vif_backend_count;

#endif
