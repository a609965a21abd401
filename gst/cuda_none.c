/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* gst-fovea without GStreamer's CUDA library: system memory only (see cuda.h). */
#include "cuda.h"

gboolean fovea_gst_cuda_compiled(void)
{
    return FALSE;
}

fovea_gst_cuda *fovea_gst_cuda_open(GstElement *el, fovea_context *ctx)
{
    (void)el;
    (void)ctx;
    return NULL;
}

void fovea_gst_cuda_close(fovea_gst_cuda **c)
{
    if (c)
        *c = NULL;
}

gboolean fovea_gst_cuda_buffer_is_ours(const fovea_gst_cuda *c, GstBuffer *buf)
{
    (void)c;
    (void)buf;
    return FALSE;
}

GstMapFlags fovea_gst_cuda_map_flag(void)
{
    return (GstMapFlags)0;
}

gboolean fovea_gst_cuda_handle_query(const fovea_gst_cuda *c, GstElement *el, GstQuery *query)
{
    (void)c;
    (void)el;
    (void)query;
    return FALSE;
}

void fovea_gst_cuda_announce(const fovea_gst_cuda *c, GstElement *el)
{
    (void)c;
    (void)el;
}

GstBufferPool *fovea_gst_cuda_pool_new(const fovea_gst_cuda *c, GstCaps *caps, guint min, guint max)
{
    (void)c;
    (void)caps;
    (void)min;
    (void)max;
    return NULL;
}
