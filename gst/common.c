/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* gst-fovea: what the elements share (see common.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "cuda.h"

GType fovea_gst_backend_get_type(void)
{
    static gsize type = 0;
    static const GEnumValue values[] = {
        {FOVEA_BACKEND_AUTO, "CUDA when a device is present, else the CPU", "auto"},
        {FOVEA_BACKEND_CPU, "the C reference on CPU threads", "cpu"},
        {FOVEA_BACKEND_CUDA, "CUDA (an error without a device)", "cuda"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type)) {
        GType t = g_enum_register_static("FoveaBackend", values);
        g_once_init_leave(&type, t);
    }
    return (GType)type;
}

void fovea_gst_install_backend_properties(GObjectClass *klass, guint prop_backend,
                                          guint prop_threads)
{
    g_object_class_install_property(
        klass, prop_backend,
        g_param_spec_enum("backend", "Backend",
                          "fovea backend (takes effect when the element leaves the NULL state)",
                          FOVEA_GST_TYPE_BACKEND, FOVEA_GST_DEFAULT_BACKEND,
                          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        klass, prop_threads,
        g_param_spec_int("threads", "Threads", "CPU worker threads; 0 = one per CPU", 0, 1024,
                         FOVEA_GST_DEFAULT_THREADS,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
}

/* The library's log messages go to the element's debug category. */
static void log_to_gst(void *opaque, fovea_log_level level, const char *msg)
{
    GstDebugCategory *cat = opaque;
    GstDebugLevel gl = level == FOVEA_LOG_ERROR     ? GST_LEVEL_ERROR
                       : level == FOVEA_LOG_WARNING ? GST_LEVEL_WARNING
                       : level == FOVEA_LOG_INFO    ? GST_LEVEL_INFO
                                                    : GST_LEVEL_DEBUG;
    GST_CAT_LEVEL_LOG(cat, gl, NULL, "%s", msg);
}

fovea_context *fovea_gst_open_context(GstElement *el, GstDebugCategory *cat, fovea_backend b,
                                      int threads)
{
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = b;
    s.threads = threads;
    s.log = log_to_gst;
    s.log_opaque = cat;
    s.log_level = FOVEA_LOG_DEBUG;
    fovea_context *ctx = NULL;
    const int st = fovea_open(&ctx, &s);
    if (st < 0) {
        /* fovea_open has no context to record a message on */
        GST_ELEMENT_ERROR(
            el, RESOURCE, OPEN_READ_WRITE,
            ("backend %s: cannot create a fovea context: %s", fovea_backend_name(b),
             st == FOVEA_ERR_NO_DEVICE
                 ? (fovea_cuda_compiled() ? "no CUDA device" : "fovea was built without CUDA")
                 : fovea_strerror(st)),
            ("fovea_open: status %d", st));
        return NULL;
    }
    GST_CAT_INFO_OBJECT(cat, el, "fovea %s context, %d threads",
                        fovea_backend_name(fovea_context_backend(ctx)), fovea_context_threads(ctx));
    return ctx;
}

void fovea_gst_base_init(fovea_gst_base *b, gboolean cpu_context)
{
    memset(b, 0, sizeof(*b));
    b->backend = FOVEA_GST_DEFAULT_BACKEND;
    b->threads = FOVEA_GST_DEFAULT_THREADS;
    b->cpu_context = cpu_context;
}

gboolean fovea_gst_base_set_property(fovea_gst_base *b, guint id, guint prop_backend,
                                     guint prop_threads, const GValue *v)
{
    if (id == prop_backend)
        b->backend = (fovea_backend)g_value_get_enum(v);
    else if (id == prop_threads)
        b->threads = g_value_get_int(v);
    else
        return FALSE;
    return TRUE;
}

gboolean fovea_gst_base_get_property(const fovea_gst_base *b, guint id, guint prop_backend,
                                     guint prop_threads, GValue *v)
{
    if (id == prop_backend)
        g_value_set_enum(v, b->backend);
    else if (id == prop_threads)
        g_value_set_int(v, b->threads);
    else
        return FALSE;
    return TRUE;
}

GstStateChangeReturn fovea_gst_base_change_state(fovea_gst_base *b, GstElement *el,
                                                 GstDebugCategory *cat, GstElementClass *parent,
                                                 GstStateChange t)
{
    if (t == GST_STATE_CHANGE_NULL_TO_READY) {
        GST_OBJECT_LOCK(el);
        const fovea_backend backend = b->backend;
        const int threads = b->threads;
        GST_OBJECT_UNLOCK(el);
        b->ctx =
            fovea_gst_open_context(el, cat, b->cpu_context ? FOVEA_BACKEND_CPU : backend, threads);
        if (!b->ctx)
            return GST_STATE_CHANGE_FAILURE;
        if (!b->cpu_context) {
            /* CUDA memory where the context runs on CUDA, announced to the pipeline */
            b->cuda = fovea_gst_cuda_open(el, b->ctx);
            fovea_gst_cuda_announce(b->cuda, el);
        }
    }
    const GstStateChangeReturn ret = parent->change_state(el, t);
    if (t == GST_STATE_CHANGE_READY_TO_NULL)
        fovea_gst_base_close(b);
    return ret;
}

void fovea_gst_base_close(fovea_gst_base *b)
{
    fovea_gst_cuda_close(&b->cuda); /* before the context it belongs to */
    fovea_close(&b->ctx);
}

static const struct {
    GstVideoFormat gst;
    fovea_pixfmt fv;
} format_table[] = {
    {GST_VIDEO_FORMAT_GRAY8, FOVEA_PIX_GRAY8},
    {GST_VIDEO_FORMAT_GRAY16_LE, FOVEA_PIX_GRAY16},
    {GST_VIDEO_FORMAT_I420, FOVEA_PIX_I420},
    {GST_VIDEO_FORMAT_I420_10LE, FOVEA_PIX_I420P10},
    {GST_VIDEO_FORMAT_I420_12LE, FOVEA_PIX_I420P12},
    {GST_VIDEO_FORMAT_Y42B, FOVEA_PIX_I422},
    {GST_VIDEO_FORMAT_I422_10LE, FOVEA_PIX_I422P10},
    {GST_VIDEO_FORMAT_I422_12LE, FOVEA_PIX_I422P12},
    {GST_VIDEO_FORMAT_Y444, FOVEA_PIX_I444},
    {GST_VIDEO_FORMAT_Y444_10LE, FOVEA_PIX_I444P10},
    {GST_VIDEO_FORMAT_Y444_12LE, FOVEA_PIX_I444P12},
    {GST_VIDEO_FORMAT_Y444_16LE, FOVEA_PIX_I444P16},
    {GST_VIDEO_FORMAT_NV12, FOVEA_PIX_NV12},
    {GST_VIDEO_FORMAT_RGB, FOVEA_PIX_RGB24},
    {GST_VIDEO_FORMAT_RGBA, FOVEA_PIX_RGBA},
    {GST_VIDEO_FORMAT_RGBA64_LE, FOVEA_PIX_RGBA64},
};

fovea_pixfmt fovea_gst_pixfmt(GstVideoFormat f)
{
    for (size_t i = 0; i < G_N_ELEMENTS(format_table); i++)
        if (format_table[i].gst == f)
            return format_table[i].fv;
    return FOVEA_PIX_NONE;
}

GstVideoFormat fovea_gst_video_format(fovea_pixfmt f)
{
    for (size_t i = 0; i < G_N_ELEMENTS(format_table); i++)
        if (format_table[i].fv == f)
            return format_table[i].gst;
    return GST_VIDEO_FORMAT_UNKNOWN;
}

void fovea_gst_wrap_frame(const GstVideoFrame *vf, fovea_memtype mem, int device, fovea_frame *out)
{
    memset(out, 0, sizeof(*out));
    out->width = GST_VIDEO_FRAME_WIDTH(vf);
    out->height = GST_VIDEO_FRAME_HEIGHT(vf);
    out->fmt = fovea_gst_pixfmt(GST_VIDEO_FRAME_FORMAT(vf));
    out->mem = mem;
    out->device = mem == FOVEA_MEM_DEVICE ? device : 0;
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(vf) && p < 4; p++) {
        out->data[p] = GST_VIDEO_FRAME_PLANE_DATA(vf, p);
        out->stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE(vf, p);
    }
}

GstCaps *fovea_gst_raw_caps(const GstVideoFormat *formats, guint n, gboolean with_cuda)
{
    GstCaps *caps = gst_video_make_raw_caps(formats, n);
    if (with_cuda && fovea_gst_cuda_compiled()) {
        GstCaps *cuda = gst_video_make_raw_caps_with_features(
            formats, n, gst_caps_features_new(FOVEA_GST_CAPS_FEATURE_CUDA, NULL));
        caps = gst_caps_merge(cuda, caps); /* CUDA first: preferred where both work */
    }
    return caps;
}

gboolean fovea_gst_caps_is_cuda(const GstCaps *caps)
{
    if (!caps || gst_caps_get_size(caps) == 0)
        return FALSE;
    GstCapsFeatures *f = gst_caps_get_features(caps, 0);
    return f && gst_caps_features_contains(f, FOVEA_GST_CAPS_FEATURE_CUDA);
}

gchar *fovea_gst_read_file(const gchar *path, gsize limit, gsize *len, gchar **err)
{
    FILE *fp = fopen(path, "rb");
    *err = NULL;
    if (!fp) {
        *err = g_strdup_printf("%s: %s", path, g_strerror(errno));
        return NULL;
    }
    gchar *buf = g_malloc(limit + 1);
    const size_t n = fread(buf, 1, limit + 1, fp);
    const int bad = ferror(fp);
    fclose(fp);
    if (bad || n > limit) {
        *err = g_strdup_printf("%s: %s", path, bad ? "read error" : "file too large");
        g_free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
