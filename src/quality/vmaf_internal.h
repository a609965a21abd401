/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal interface of the quality compositor (vmaf.c) and its drivers: the
 * table every driver (vmaf_ref.c: C, vmaf_cuda.c: CUDA) provides to run the
 * feature instances of one context on its backend. A driver computes RAW
 * values only, through the feature extractors of its backend (feature.h);
 * every double a user sees is derived from them in vmaf.c by each feature's
 * derive, identically for every backend. docs/quality.md ("API") describes
 * the queue around it. */
#ifndef FOVEA_QUALITY_VMAF_INTERNAL_H
#define FOVEA_QUALITY_VMAF_INTERNAL_H

#include <stdint.h>

#include "core/backend.h"
#include "core/core.h"
#include "fovea/quality.h"
#include "quality/feature.h"

/* Feature instances one context runs: a model's features of one feature with
 * equal options share an instance (as libvmaf's extractors do). */
#define VMAF_MAX_EXTRACTORS 16

/* One instance: a feature and its option values. */
typedef struct vmaf_instance {
    const feature_def *def;
    feature_opts opts;
} vmaf_instance;

/* What init receives. width, height >= every instance's min_dim; bpc 8, 10,
 * 12 or 16. */
typedef struct vmaf_params {
    int width, height;
    int bpc;
    /* chroma planes the drivers pass to FEATURE_CHROMA extractors: chroma
     * 420, 422 or 444 with planes of chroma_width x chroma_height; 400: none
     * (no instance reads chroma, or gray input) */
    int chroma, chroma_width, chroma_height;
    int history; /* previous references an instance reads (the most of any) */
    int n_ex;
    vmaf_instance ex[VMAF_MAX_EXTRACTORS];
} vmaf_params;

/* One frame pair's raw values, instance i in ex[i] (vmaf_params order). */
typedef struct vmaf_raw {
    feature_raw ex[VMAF_MAX_EXTRACTORS];
} vmaf_raw;

/* A picture handed to a driver: luma, and U and V when params.chroma is
 * not 400. */
typedef struct vmaf_plane {
    const uint8_t *data[3]; /* 8-bit samples, or 16-bit little-endian containers */
    ptrdiff_t stride[3];    /* bytes */
    fovea_memtype mem;      /* host, pinned or device (device: BACKEND_READS_DEVICE only) */
    int held;               /* host planes the caller keeps unchanged until the pair is collected */
} vmaf_plane;

/* A driver (core/backend.h): init(priv, ctx, const vmaf_params *) makes the
 * state for one size and depth; vmaf.c closes and inits again for another
 * (after collecting every queued pair). Statuses are fovea statuses;
 * messages go through fv_ctx_error.
 *
 * Previous frames: the driver keeps what its extractors need of the
 * previous pairs' references itself (params.history of them), so the
 * caller's frames are never held for it. new_stream = 1 marks the first pair
 * of a stream (no previous reference). Pairs reach the driver in stream
 * order.
 *
 * A driver queues pairs (submit) and hands back their results in submission
 * order (collect). */
typedef struct vmaf_backend {
    backend_info info;
    /* Queue a pair; VMAF_QUEUE_FULL (positive, not an error) when nothing
     * more fits until a result is collected. Host planes are copied before
     * return unless held; pinned, device and held planes may be read until
     * the pair's result is collected (the previous references a driver keeps
     * are its own copies all the same). */
    int (*submit)(void *priv, fovea_context *ctx, const vmaf_plane *ref, const vmaf_plane *dis,
                  int new_stream);
    /* The oldest queued pair's result, waiting for it (only called while
     * pairs are queued). */
    int (*collect)(void *priv, fovea_context *ctx, vmaf_raw *out);
    /* Pairs handled together for a w x h stream on ctx (NULL: 1); callers
     * keep about three batches pending. */
    int (*batch)(const fovea_context *ctx, int width, int height);
    /* Optional (NULL: fovea_vmaf_process submits and collects). Score one
     * pair now, a stream of its own (no previous reference), reading the
     * planes in place; only called with nothing queued, and the next pair
     * submitted starts a new stream. */
    int (*process)(void *priv, fovea_context *ctx, const vmaf_plane *ref, const vmaf_plane *dis,
                   vmaf_raw *out);
} vmaf_backend;

/* submit's "collect first" answer. */
#define VMAF_QUEUE_FULL 2

/* The drivers: vmaf_ref.c (C), vmaf_cuda.c (CUDA builds); the list in
 * vmaf_backends.c. */
extern const vmaf_backend vmaf_backend_ref;
extern const vmaf_backend vmaf_backend_cuda;
extern const backend_info *const vmaf_backends[];
extern const size_t vmaf_backend_count;

/* The extractor of instance x on backend kind; NULL with a message in ctx
 * when the feature has none there. */
const feature_extractor *vmaf_extractor(fovea_context *ctx, const vmaf_instance *x,
                                        fovea_backend kind);

#endif
