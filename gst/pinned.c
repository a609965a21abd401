/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* gst-fovea pinned memory (see pinned.h): a GstBufferPool whose buffers are
 * blocks of fovea pinned memory in GStreamer's default video layout. */
#include "pinned.h"

#include "common.h"

GST_DEBUG_CATEGORY_STATIC(fovea_gst_pinned_debug);
#define GST_CAT_DEFAULT fovea_gst_pinned_debug

#define FOVEA_GST_TYPE_PINNED_POOL (fovea_gst_pinned_pool_get_type())
G_DECLARE_FINAL_TYPE(FoveaGstPinnedPool, fovea_gst_pinned_pool, FOVEA_GST, PINNED_POOL,
                     GstBufferPool)

struct _FoveaGstPinnedPool {
    GstBufferPool parent;
    GstVideoInfo info;
    fovea_pixfmt fmt;
};

G_DEFINE_TYPE(FoveaGstPinnedPool, fovea_gst_pinned_pool, GST_TYPE_BUFFER_POOL)

static GQuark pinned_quark(void)
{
    static gsize q = 0;
    if (g_once_init_enter(&q))
        g_once_init_leave(&q, (gsize)g_quark_from_static_string("fovea-pinned-frame"));
    return (GQuark)q;
}

static void debug_init(void)
{
    static gsize once = 0;
    if (g_once_init_enter(&once)) {
        GST_DEBUG_CATEGORY_INIT(fovea_gst_pinned_debug, "foveapinned", 0, "fovea pinned memory");
        g_once_init_leave(&once, 1);
    }
}

static const gchar **pool_options(GstBufferPool *pool)
{
    (void)pool;
    static const gchar *options[] = {GST_BUFFER_POOL_OPTION_VIDEO_META, NULL};
    return options;
}

/* The library has no call for bare pinned bytes: a GRAY8 frame 16384 samples
 * wide has rows of exactly 16384 bytes (a multiple of the 64-byte stride
 * alignment), so it is one contiguous block of at least size bytes. Pinned
 * memory belongs to the process, not to a context (cudaHostAlloc with the
 * portable flag): no context is kept, see pinned.h. */
#define PINNED_ROW 16384
static int pinned_block(fovea_frame *f, gsize size)
{
    const gsize rows = (size + PINNED_ROW - 1) / PINNED_ROW;
    if (rows > FOVEA_MAX_DIM)
        return FOVEA_ERR_INVALID_ARG;
    return fovea_frame_alloc(NULL, f, PINNED_ROW, rows > 0 ? (int)rows : 1, FOVEA_PIX_GRAY8,
                             FOVEA_MEM_PINNED);
}

static gboolean pool_set_config(GstBufferPool *pool, GstStructure *config)
{
    FoveaGstPinnedPool *self = FOVEA_GST_PINNED_POOL(pool);
    GstCaps *caps = NULL;
    guint size = 0, min = 0, max = 0;
    if (!gst_buffer_pool_config_get_params(config, &caps, &size, &min, &max) || !caps)
        return FALSE;
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps))
        return FALSE;
    const fovea_pixfmt fmt = fovea_gst_pixfmt(GST_VIDEO_INFO_FORMAT(&info));
    if (fmt == FOVEA_PIX_NONE || GST_VIDEO_INFO_SIZE(&info) > (gsize)PINNED_ROW * FOVEA_MAX_DIM) {
        GST_WARNING_OBJECT(pool, "no pinned frames for %" GST_PTR_FORMAT, caps);
        return FALSE;
    }
    self->info = info;
    self->fmt = fmt;
    gst_buffer_pool_config_set_params(config, caps, (guint)GST_VIDEO_INFO_SIZE(&info), min, max);
    return GST_BUFFER_POOL_CLASS(fovea_gst_pinned_pool_parent_class)->set_config(pool, config);
}

static void free_frame(gpointer data)
{
    fovea_frame *f = data;
    fovea_frame_free(NULL, f);
    g_free(f);
}

static GstFlowReturn pool_alloc_buffer(GstBufferPool *pool, GstBuffer **out,
                                       GstBufferPoolAcquireParams *params)
{
    (void)params;
    FoveaGstPinnedPool *self = FOVEA_GST_PINNED_POOL(pool);
    GstVideoInfo *info = &self->info;
    fovea_frame *f = g_new0(fovea_frame, 1);
    if (pinned_block(f, GST_VIDEO_INFO_SIZE(info)) < 0) {
        GST_WARNING_OBJECT(pool, "pinned frame: %s", fovea_last_error(NULL));
        g_free(f);
        return GST_FLOW_ERROR;
    }
    /* GStreamer's own layout (GstVideoInfo's strides and offsets), so that
     * elements that ignore GstVideoMeta (filesink) see the usual bytes */
    GstMemory *mem =
        gst_memory_new_wrapped(0, f->buf, f->buf_size, 0, GST_VIDEO_INFO_SIZE(info), f, free_frame);
    gst_mini_object_set_qdata(GST_MINI_OBJECT_CAST(mem), pinned_quark(), GINT_TO_POINTER(1), NULL);
    GstBuffer *buf = gst_buffer_new();
    gst_buffer_append_memory(buf, mem);
    gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(info),
                                   (guint)GST_VIDEO_INFO_WIDTH(info),
                                   (guint)GST_VIDEO_INFO_HEIGHT(info),
                                   GST_VIDEO_INFO_N_PLANES(info), info->offset, info->stride);
    *out = buf;
    return GST_FLOW_OK;
}

static void fovea_gst_pinned_pool_class_init(FoveaGstPinnedPoolClass *klass)
{
    GstBufferPoolClass *pc = GST_BUFFER_POOL_CLASS(klass);
    pc->get_options = pool_options;
    pc->set_config = pool_set_config;
    pc->alloc_buffer = pool_alloc_buffer;
}

static void fovea_gst_pinned_pool_init(FoveaGstPinnedPool *self)
{
    (void)self;
}

GstBufferPool *fovea_gst_pinned_pool_new(fovea_context *ctx, GstCaps *caps, guint min, guint max)
{
    debug_init();
    if (!ctx || fovea_context_backend(ctx) != FOVEA_BACKEND_CUDA || !caps)
        return NULL;
    GstBufferPool *pool = g_object_new(FOVEA_GST_TYPE_PINNED_POOL, NULL);
    gst_object_ref_sink(pool);
    GstStructure *config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, 0, min, max);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config(pool, config)) {
        gst_object_unref(pool);
        return NULL;
    }
    return pool;
}

gboolean fovea_gst_buffer_is_pinned(GstBuffer *buf)
{
    if (!buf || gst_buffer_n_memory(buf) != 1)
        return FALSE;
    GstMemory *mem = gst_buffer_peek_memory(buf, 0);
    return gst_mini_object_get_qdata(GST_MINI_OBJECT_CAST(mem), pinned_quark()) != NULL;
}

void fovea_gst_propose_pinned(fovea_context *ctx, GstQuery *query)
{
    GstCaps *caps = NULL;
    gboolean need_pool = FALSE;
    gst_query_parse_allocation(query, &caps, &need_pool);
    if (!caps || !ctx || fovea_context_backend(ctx) != FOVEA_BACKEND_CUDA)
        return;
    GstCapsFeatures *feat = gst_caps_get_features(caps, 0);
    if (feat && !gst_caps_features_is_equal(feat, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
        return;
    GstBufferPool *pool = fovea_gst_pinned_pool_new(ctx, caps, 0, 0);
    if (!pool)
        return;
    GstStructure *config = gst_buffer_pool_get_config(pool);
    guint size = 0;
    gst_buffer_pool_config_get_params(config, NULL, &size, NULL, NULL);
    gst_structure_free(config);
    gst_query_add_allocation_pool(query, need_pool ? pool : NULL, size, 0, 0);
    if (!gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL))
        gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
    gst_object_unref(pool);
}
