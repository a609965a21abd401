/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal device layer: everything the core needs from the CUDA runtime, with
 * CPU-only builds answering FOVEA_ERR_NO_DEVICE. */
#ifndef FOVEA_DEVICE_H
#define FOVEA_DEVICE_H

#include <stddef.h>
#include "core/core.h"

/* Select device dev for ctx and set ctx->stream: user_stream when not NULL,
 * otherwise a new non-blocking stream owned by the context. */
int fv_device_bind(fovea_context *ctx, int dev, void *user_stream);
void fv_device_unbind(fovea_context *ctx);
/* Wait for ctx's stream (no-op for CPU contexts). */
int fv_device_sync(fovea_context *ctx);
/* Make the work queued on waiter from now on wait for the work queued on
 * waited so far (streams of ctx's device; an event, no host wait). */
int fv_device_order(fovea_context *ctx, void *waiter, void *waited);
/* Make ctx's device current on the calling thread. */
int fv_device_activate(fovea_context *ctx);

int fv_device_malloc(fovea_context *ctx, size_t size, void **ptr);
void fv_device_free(fovea_context *ctx, void *ptr);
int fv_pinned_malloc(fovea_context *ctx, size_t size, void **ptr);
void fv_pinned_free(fovea_context *ctx, void *ptr);

/* Where the memory at p lives: FOVEA_MEM_DEVICE for device or managed memory
 * (of any device), FOVEA_MEM_PINNED for page-locked host memory the CUDA
 * runtime knows, FOVEA_MEM_HOST otherwise (always in CPU-only builds, and
 * for NULL). Never fails: an unknown pointer is host memory. */
fovea_memtype fv_ptr_memtype(const void *p);
/* 1 when p is device memory the host cannot read (not managed), else 0. */
int fv_ptr_device_only(const void *p);

/* 2-D copy between any host/pinned/device pointers, queued on ctx's stream. */
int fv_memcpy2d(fovea_context *ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
                size_t width_bytes, size_t rows);
/* 2-D memset of device memory, queued on ctx's stream. */
int fv_memset2d_device(fovea_context *ctx, void *dst, size_t pitch, int value, size_t width_bytes,
                       size_t rows);

#endif
