/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* gst-fovea with GStreamer's CUDA library: fovea's primary CUDA context wrapped
 * as a GstCudaContext, CUDA memory of that context mapped as device frames, and
 * pools of it for outputs (see cuda.h). */
#define GST_USE_UNSTABLE_API 1
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "cuda.h"

GST_DEBUG_CATEGORY_STATIC(fovea_gst_cuda_debug);
#define GST_CAT_DEFAULT fovea_gst_cuda_debug

struct fovea_gst_cuda {
    GstCudaContext *ctx; /* wraps the primary context of the fovea context's device */
    gpointer handle;     /* its CUcontext */
    int device;
};

gboolean fovea_gst_cuda_compiled(void)
{
    return TRUE;
}

static void debug_init(void)
{
    static gsize once = 0;
    if (g_once_init_enter(&once)) {
        GST_DEBUG_CATEGORY_INIT(fovea_gst_cuda_debug, "foveacuda", 0, "fovea CUDA memory");
        g_once_init_leave(&once, 1);
    }
}

fovea_gst_cuda *fovea_gst_cuda_open(GstElement *el, fovea_context *ctx)
{
    debug_init();
    if (!ctx || fovea_context_backend(ctx) != FOVEA_BACKEND_CUDA)
        return NULL;
    if (!gst_cuda_load_library()) {
        GST_INFO_OBJECT(el, "GStreamer's CUDA library does not load: system memory only");
        return NULL;
    }
    /* GStreamer's CUDA allocator exists only once this ran (CUDA pools refuse
     * their config otherwise) */
    gst_cuda_memory_init_once();
    const int device = fovea_context_device(ctx);
    /* fovea_sync binds the context's device on this thread: the CUDA runtime
     * makes that device's primary context current, whose handle is taken off
     * the thread's context stack and put back at once */
    if (fovea_sync(ctx) < 0) {
        GST_WARNING_OBJECT(el, "fovea_sync: %s: system memory only", fovea_last_error(ctx));
        return NULL;
    }
    CUcontext cur = NULL;
    if (!gst_cuda_result(CuCtxPopCurrent(&cur)) || !cur) {
        GST_WARNING_OBJECT(el,
                           "no current CUDA context after binding device %d: system "
                           "memory only",
                           device);
        return NULL;
    }
    gst_cuda_result(CuCtxPushCurrent(cur));
    CUdevice dev = 0;
    if (!gst_cuda_result(CuDeviceGet(&dev, device))) {
        GST_WARNING_OBJECT(el, "CuDeviceGet(%d) failed: system memory only", device);
        return NULL;
    }
    GstCudaContext *gctx = gst_cuda_context_new_wrapped(cur, dev);
    if (!gctx) {
        GST_WARNING_OBJECT(el, "cannot wrap the CUDA context: system memory only");
        return NULL;
    }
    fovea_gst_cuda *c = g_new0(fovea_gst_cuda, 1);
    c->ctx = gctx;
    c->handle = gst_cuda_context_get_handle(gctx);
    c->device = device;
    GST_INFO_OBJECT(el, "CUDA memory on device %d (fovea's primary context %p)", device, c->handle);
    return c;
}

void fovea_gst_cuda_close(fovea_gst_cuda **pc)
{
    if (!pc || !*pc)
        return;
    gst_clear_object(&(*pc)->ctx);
    g_free(*pc);
    *pc = NULL;
}

gboolean fovea_gst_cuda_buffer_is_ours(const fovea_gst_cuda *c, GstBuffer *buf)
{
    if (!c || !buf)
        return FALSE;
    const guint n = gst_buffer_n_memory(buf);
    if (n == 0)
        return FALSE;
    for (guint i = 0; i < n; i++) {
        GstMemory *m = gst_buffer_peek_memory(buf, i);
        if (!gst_is_cuda_memory(m))
            return FALSE;
        GstCudaContext *mc = GST_CUDA_MEMORY_CAST(m)->context;
        if (mc != c->ctx && (!mc || gst_cuda_context_get_handle(mc) != c->handle))
            return FALSE;
    }
    return TRUE;
}

GstMapFlags fovea_gst_cuda_map_flag(void)
{
    return (GstMapFlags)GST_MAP_CUDA;
}

gboolean fovea_gst_cuda_handle_query(const fovea_gst_cuda *c, GstElement *el, GstQuery *query)
{
    if (!c)
        return FALSE;
    return gst_cuda_handle_context_query(el, query, c->ctx);
}

void fovea_gst_cuda_announce(const fovea_gst_cuda *c, GstElement *el)
{
    if (!c)
        return;
    GstContext *gc = gst_context_new_cuda_context(c->ctx);
    gst_element_post_message(el, gst_message_new_have_context(GST_OBJECT(el), gc));
}

/* gst_buffer_pool_set_config returns FALSE when the pool changed the config
 * (the CUDA pool pads rows, so the size it wants differs): GStreamer's rule is
 * to take the pool's version when it still fits the caps and the counts, and
 * set that. */
gboolean fovea_gst_pool_configure(GstBufferPool *pool, GstStructure *config, GstCaps *caps,
                                  guint min, guint max)
{
    if (gst_buffer_pool_set_config(pool, config))
        return TRUE;
    config = gst_buffer_pool_get_config(pool);
    GstCaps *got = NULL;
    guint size = 0, gmin = 0, gmax = 0;
    if (!gst_buffer_pool_config_get_params(config, &got, &size, &gmin, &gmax) || !got ||
        !gst_caps_is_equal(got, caps) || gmin < min || (max && gmax > max)) {
        gst_structure_free(config);
        return FALSE;
    }
    return gst_buffer_pool_set_config(pool, config);
}

GstBufferPool *fovea_gst_cuda_pool_new(const fovea_gst_cuda *c, GstCaps *caps, guint min, guint max)
{
    GstVideoInfo info;
    if (!c || !gst_video_info_from_caps(&info, caps))
        return NULL;
    GstBufferPool *pool = gst_cuda_buffer_pool_new(c->ctx);
    GstStructure *config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, (guint)GST_VIDEO_INFO_SIZE(&info), min, max);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!fovea_gst_pool_configure(pool, config, caps, min, max)) {
        gst_object_unref(pool);
        return NULL;
    }
    return pool;
}
