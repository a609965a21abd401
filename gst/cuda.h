/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* gst-fovea CUDA memory: video/x-raw(memory:CUDAMemory) buffers of GStreamer's
 * CUDA library seen as fovea device frames, without a copy. Built from cuda.c
 * where gstreamer-cuda-1.0 (and the CUDA headers it includes) are found, from
 * cuda_none.c otherwise; the elements call the same functions either way.
 *
 * fovea's CUDA backend runs on the CUDA runtime, that is on its device's
 * primary context; GStreamer's CUDA memory belongs to a GstCudaContext. Device
 * pointers are shared without a copy when both are the same CUDA context, so
 * an element wraps the primary context of its fovea context in a
 * GstCudaContext, offers it to its neighbors (context queries, have-context)
 * and treats the CUDA memory of any other context as host memory (GStreamer
 * downloads it when it is mapped for the CPU). */
#ifndef FOVEA_GST_CUDA_H
#define FOVEA_GST_CUDA_H

#include <gst/gst.h>
#include <gst/video/video.h>

#include "fovea/fovea.h"

G_BEGIN_DECLS

#define FOVEA_GST_CAPS_FEATURE_CUDA "memory:CUDAMemory"

typedef struct fovea_gst_cuda fovea_gst_cuda;

/* TRUE in builds with GStreamer's CUDA library (the pad templates then list
 * memory:CUDAMemory caps). */
gboolean fovea_gst_cuda_compiled(void);

/* Set config on pool, accepting the pool's own adjustment of it (a CUDA pool
 * pads rows) when it keeps caps and buffer counts; takes config. */
gboolean fovea_gst_pool_configure(GstBufferPool *pool, GstStructure *config, GstCaps *caps,
                                  guint min, guint max);

/* CUDA memory for an element whose fovea context is ctx: NULL (system memory
 * only, said in the debug log) unless ctx runs on the CUDA backend and
 * GStreamer's CUDA library loads. Call on the thread that opened ctx. */
fovea_gst_cuda *fovea_gst_cuda_open(GstElement *el, fovea_context *ctx);
void fovea_gst_cuda_close(fovea_gst_cuda **c);

/* Whether every memory of buf is CUDA memory of c's CUDA context (so its
 * device pointers may be handed to fovea). FALSE for NULL c. */
gboolean fovea_gst_cuda_buffer_is_ours(const fovea_gst_cuda *c, GstBuffer *buf);

/* GST_MAP_CUDA, or 0 in builds without GStreamer's CUDA library. */
GstMapFlags fovea_gst_cuda_map_flag(void);

/* Answer a GST_QUERY_CONTEXT for GStreamer's CUDA context with c's. */
gboolean fovea_gst_cuda_handle_query(const fovea_gst_cuda *c, GstElement *el, GstQuery *query);

/* Tell the pipeline about c's CUDA context (a have-context message), so that
 * CUDA elements started later share it. */
void fovea_gst_cuda_announce(const fovea_gst_cuda *c, GstElement *el);

/* A buffer pool of CUDA memory in c's context for caps, or NULL. */
GstBufferPool *fovea_gst_cuda_pool_new(const fovea_gst_cuda *c, GstCaps *caps, guint min,
                                       guint max);

/* Whether caps (fixed) carry memory:CUDAMemory. */
gboolean fovea_gst_caps_is_cuda(const GstCaps *caps);

G_END_DECLS

#endif
