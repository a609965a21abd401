/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Queued CUDA work on batches of frame planes (internal, CUDA builds only:
 * the file is named *_cuda as every C file that needs the CUDA runtime).
 *
 * A queue has a few slots; each slot is one batch of up to `batch` items of
 * `planes` planes (plane p: height[p] rows of row_bytes[p]). Host planes are copied on the
 * queue's copy stream into the slot's device staging (pageable ones through
 * its pinned staging first), so the copies of one batch overlap the kernels
 * of the previous one; device planes are read in place. A full slot (or the
 * oldest one, when its results are waited for) is launched on the context's
 * stream by the owner's launch callback, between the wait for the slot's
 * copies and its done event. Results are taken item by item, oldest first.
 * The owner keeps whatever else a slot needs (its sums, flags) in arrays
 * indexed by the slot number.
 *
 * Users: the quality compositor (quality/vmaf_cuda.c), whose items are
 * independent frame pairs of one fixed shape, so batching them and
 * overlapping a batch's uploads with the previous batch's kernels pays.
 * Not the diff system's queued mask (diff/diff_cuda.c,
 * fovea_diff_mask_submit/receive), whose shape is not this one: one mask is
 * in flight (a batch of 1 in 1 slot: nothing to overlap); its pair is
 * uploaded into the diff context's own staging because the same upload
 * feeds the filters, the temporal state (advanced in submission order, at
 * submit) and the histogram, and an automatic threshold waits for the
 * histogram on the host before the mask is launched; frame size and format
 * may change from call to call (a fixed row_bytes x height here); and its
 * result is a host read-back in two steps (counters with the head of the
 * tile list, then the rest of a long list) that this queue does not do.
 * Moving it here would mean uploading the pair twice or moving the whole
 * diff pipeline into a launch callback, for one event wait in return. */
#ifndef FOVEA_CORE_QUEUE_CUDA_H
#define FOVEA_CORE_QUEUE_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "core/cuda_util.h"

#define CUDA_QUEUE_MAX_SLOTS 8
#define CUDA_QUEUE_MAX_PLANES 6
#define CUDA_QUEUE_MAX_BATCH 32

/* cuda_queue_add's "take a result first" answer (positive: not an error). */
#define CUDA_QUEUE_FULL 2

/* One plane handed to the queue. */
typedef struct cuda_queue_plane {
    const uint8_t *data;
    ptrdiff_t stride;  /* bytes */
    fovea_memtype mem; /* host, pinned or device */
} cuda_queue_plane;

typedef struct cuda_queue_slot {
    int n; /* items in the batch */
    int launched;
    int copies;                    /* H2D copies queued on the copy stream for it */
    int tag[CUDA_QUEUE_MAX_BATCH]; /* the owner's flags of each item */
    /* where the kernels read plane p of item z */
    const uint8_t *src[CUDA_QUEUE_MAX_PLANES][CUDA_QUEUE_MAX_BATCH];
    ptrdiff_t stride[CUDA_QUEUE_MAX_PLANES][CUDA_QUEUE_MAX_BATCH];
    uint8_t *d_in[CUDA_QUEUE_MAX_PLANES]; /* device staging of host planes (lazy) */
    uint8_t *h_in[CUDA_QUEUE_MAX_PLANES]; /* pinned staging of pageable planes (lazy) */
    cudaEvent_t copied, done;
} cuda_queue_slot;

typedef struct cuda_queue cuda_queue;

/* Queue the work of slot k on stream (the context's) and return a status;
 * the queue has made the stream wait for the slot's copies and records its
 * done event after. */
typedef int (*cuda_queue_launch_fn)(void *opaque, cuda_queue *q, int k, cudaStream_t stream);

struct cuda_queue {
    fovea_context *ctx; /* outlives the queue */
    int nslots, batch, planes;
    size_t row_bytes[CUDA_QUEUE_MAX_PLANES]; /* bytes of plane p's row */
    int height[CUDA_QUEUE_MAX_PLANES];
    size_t pitch[CUDA_QUEUE_MAX_PLANES], plane_bytes[CUDA_QUEUE_MAX_PLANES]; /* its staging */
    cudaStream_t copy;
    cuda_queue_launch_fn launch;
    void *opaque;
    cuda_queue_slot slot[CUDA_QUEUE_MAX_SLOTS];
    int head;  /* oldest slot in use */
    int used;  /* slots in use (the newest may be filling) */
    int taken; /* items of slot[head] already taken */
};

/* Set q up (zeroed by the call) for nslots slots of batch items of planes
 * planes, plane p height[p] rows of row_bytes[p]; creates the copy stream
 * and the events (staging is allocated when first needed).
 * @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (limits), FOVEA_ERR_CUDA */
int cuda_queue_init(cuda_queue *q, fovea_context *ctx, int nslots, int batch, int planes,
                    const size_t *row_bytes, const int *height, cuda_queue_launch_fn launch,
                    void *opaque);

/* Wait for everything queued and free the queue's buffers, streams and
 * events. Safe on a zeroed or partly initialized queue. */
void cuda_queue_close(cuda_queue *q);

/* Add one item of q->planes planes, with the owner's flags tag: to the
 * filling slot, or a new one. *k and *z receive its slot and its index in
 * the batch (k and z may be NULL). A full batch is
 * launched. @return FOVEA_OK, CUDA_QUEUE_FULL (every slot busy: take the
 * oldest results first; nothing added), or an error (nothing added) */
int cuda_queue_add(cuda_queue *q, const cuda_queue_plane *planes, int tag, int *k, int *z);

/* The oldest item: launch its slot when needed and wait for the slot's done
 * event. *k and *z receive its slot and index; the slot's results stay
 * valid until cuda_queue_take moves past its last item.
 * @return FOVEA_OK, FOVEA_ERR_INTERNAL (nothing queued), FOVEA_ERR_CUDA */
int cuda_queue_wait(cuda_queue *q, int *k, int *z);

/* Done with the oldest item (after cuda_queue_wait). */
void cuda_queue_take(cuda_queue *q);

/* Items added and not yet taken. */
int cuda_queue_pending(const cuda_queue *q);

#endif
