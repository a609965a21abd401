/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* gst-fovea pinned memory: a pool of system-memory video buffers whose memory
 * is fovea pinned memory (page-locked host memory) of a CUDA context. The
 * library copies such frames to and from the GPU at the full PCIe rate, where
 * pageable buffers go through its staging copy first (docs/gst.md, Speed).
 * An element on the CUDA backend uses one for its system-memory output and
 * offers one upstream (allocation queries); the buffers are plain system
 * memory to every other element. */
#ifndef FOVEA_GST_PINNED_H
#define FOVEA_GST_PINNED_H

#include <gst/gst.h>
#include <gst/video/video.h>

#include "fovea/fovea.h"

G_BEGIN_DECLS

/* A pool of pinned buffers for caps (raw video, system memory, a format fovea
 * has) on ctx; NULL when ctx is not a CUDA context or caps do not fit. The
 * pool keeps no reference to ctx after this call: buffers outliving the
 * element free their memory through the library. */
GstBufferPool *fovea_gst_pinned_pool_new(fovea_context *ctx, GstCaps *caps, guint min, guint max);

/* Whether buf's memory (one block) was made by such a pool: it may then be
 * handed to the library as FOVEA_MEM_PINNED. */
gboolean fovea_gst_buffer_is_pinned(GstBuffer *buf);

/* Answer an allocation query from upstream with a pinned pool when ctx is a
 * CUDA context and the query's caps are system memory; keeps any pool already
 * there otherwise. need_pool as in the query. */
void fovea_gst_propose_pinned(fovea_context *ctx, GstQuery *query);

G_END_DECLS

#endif
