/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Helpers of the gst-fovea element tests (see gst_helpers.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gst_helpers.h"

void gt_init(int *argc, char ***argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    gst_init(argc, argv);
    g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
    GstPlugin *p = gst_registry_find_plugin(gst_registry_get(), "fovea");
    GT_CHECK(p != NULL, "the plugin 'fovea' is not found (GST_PLUGIN_PATH=%s)",
             g_getenv("GST_PLUGIN_PATH") ? g_getenv("GST_PLUGIN_PATH") : "");
    gst_object_unref(p);
}

GstElement *gt_launch(const char *desc)
{
    GError *err = NULL;
    GstElement *pipe = gst_parse_launch(desc, &err);
    GT_CHECK(pipe && !err, "gst_parse_launch(%s): %s", desc, err ? err->message : "?");
    return pipe;
}

static void collect(GstMessage *m, gt_result *res)
{
    switch (GST_MESSAGE_TYPE(m)) {
    case GST_MESSAGE_ELEMENT: {
        const GstStructure *s = gst_message_get_structure(m);
        if (s)
            g_ptr_array_add(res->messages, gst_structure_copy(s));
        break;
    }
    case GST_MESSAGE_ERROR:
        if (!res->error) {
            GError *e = NULL;
            gchar *dbg = NULL;
            gst_message_parse_error(m, &e, &dbg);
            res->error = g_strdup_printf("%s | %s", e ? e->message : "?", dbg ? dbg : "");
            g_clear_error(&e);
            g_free(dbg);
        }
        break;
    case GST_MESSAGE_EOS: res->eos = TRUE; break;
    default: break;
    }
}

void gt_run(GstElement *pipe, void (*push)(GstElement *pipe, void *data), void *data, int timeout_s,
            gt_result *res)
{
    memset(res, 0, sizeof(*res));
    res->messages = g_ptr_array_new_with_free_func((GDestroyNotify)gst_structure_free);
    res->samples = g_ptr_array_new_with_free_func((GDestroyNotify)gst_sample_unref);
    GstBus *bus = gst_element_get_bus(pipe);
    GstElement *out = gst_bin_get_by_name(GST_BIN(pipe), "out");
    const GstStateChangeReturn sc = gst_element_set_state(pipe, GST_STATE_PLAYING);
    if (sc != GST_STATE_CHANGE_FAILURE && push)
        push(pipe, data);
    const gint64 end = g_get_monotonic_time() + (gint64)timeout_s * G_USEC_PER_SEC;
    for (;;) {
        GstMessage *m = gst_bus_timed_pop(bus, 50 * GST_MSECOND);
        if (m) {
            collect(m, res);
            gst_message_unref(m);
        }
        if (out) {
            GstSample *s;
            while ((s = gst_app_sink_try_pull_sample(GST_APP_SINK(out), 0)))
                g_ptr_array_add(res->samples, s);
        }
        if (res->eos || res->error)
            break;
        GT_CHECK(g_get_monotonic_time() < end, "no EOS nor error within %d s", timeout_s);
    }
    if (out) {
        GstSample *s;
        while ((s = gst_app_sink_try_pull_sample(GST_APP_SINK(out), 0)))
            g_ptr_array_add(res->samples, s);
    }
    gst_element_set_state(pipe, GST_STATE_NULL);
    /* what was posted while stopping */
    GstMessage *m;
    while ((m = gst_bus_pop(bus))) {
        collect(m, res);
        gst_message_unref(m);
    }
    if (out)
        gst_object_unref(out);
    gst_object_unref(bus);
}

void gt_result_clear(gt_result *res)
{
    if (res->messages)
        g_ptr_array_unref(res->messages);
    if (res->samples)
        g_ptr_array_unref(res->samples);
    g_free(res->error);
    memset(res, 0, sizeof(*res));
}

GPtrArray *gt_messages(const gt_result *res, const char *name)
{
    GPtrArray *a = g_ptr_array_new();
    for (guint i = 0; i < res->messages->len; i++) {
        GstStructure *s = g_ptr_array_index(res->messages, i);
        if (gst_structure_has_name(s, name))
            g_ptr_array_add(a, s);
    }
    return a;
}

void gt_push(GstElement *pipe, const char *src, GstBuffer *buf)
{
    GstElement *e = gst_bin_get_by_name(GST_BIN(pipe), src);
    GT_CHECK(e != NULL, "no element %s", src);
    const GstFlowReturn r = gst_app_src_push_buffer(GST_APP_SRC(e), buf);
    GT_CHECK(r == GST_FLOW_OK || r == GST_FLOW_EOS || r == GST_FLOW_FLUSHING, "push %s: %s", src,
             gst_flow_get_name(r));
    gst_object_unref(e);
}

void gt_eos(GstElement *pipe, const char *src)
{
    GstElement *e = gst_bin_get_by_name(GST_BIN(pipe), src);
    GT_CHECK(e != NULL, "no element %s", src);
    gst_app_src_end_of_stream(GST_APP_SRC(e));
    gst_object_unref(e);
}

static uint32_t rng(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* A smooth pattern with features (sums of a few waves and soft blobs), value 0..1. */
static double pattern(double x, double y, int comp)
{
    double v = 0.5 + 0.18 * sin(0.11 * x + 0.7 * comp) * cos(0.07 * y - 0.3 * comp) +
               0.12 * sin(0.031 * (x + 2 * y) + comp);
    const double cx[3] = {40, 120, 200}, cy[3] = {30, 90, 60};
    for (int k = 0; k < 3; k++) {
        const double dx = fmod(x, 240.0) - cx[k], dy = fmod(y, 160.0) - cy[k];
        v += 0.25 * exp(-(dx * dx + dy * dy) / (60.0 + 40 * k)) * (k == comp % 3 ? 1 : -0.6);
    }
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

GstBuffer *gt_frame(const GstVideoInfo *info, int frame, int dx, int dy, int noise, uint32_t seed,
                    GstClockTime dur)
{
    GstBuffer *buf = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(info), NULL);
    GstVideoFrame vf;
    GT_CHECK(gst_video_frame_map(&vf, info, buf, GST_MAP_WRITE), "map");
    uint32_t s = seed * 2654435761u + (uint32_t)frame * 40503u + 1u;
    const GstVideoFormatInfo *fi = info->finfo;
    for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS(fi); c++) {
        const int depth = GST_VIDEO_FORMAT_INFO_DEPTH(fi, c);
        const int maxv = (1 << depth) - 1;
        const int w = GST_VIDEO_FRAME_COMP_WIDTH(&vf, c), h = GST_VIDEO_FRAME_COMP_HEIGHT(&vf, c);
        const int pstride = GST_VIDEO_FRAME_COMP_PSTRIDE(&vf, c);
        const int sx = GST_VIDEO_FORMAT_INFO_W_SUB(fi, c), sy = GST_VIDEO_FORMAT_INFO_H_SUB(fi, c);
        const gboolean alpha = GST_VIDEO_FORMAT_INFO_HAS_ALPHA(fi) && c == 3;
        for (int y = 0; y < h; y++) {
            guint8 *row = (guint8 *)GST_VIDEO_FRAME_COMP_DATA(&vf, c) +
                          (gsize)y * GST_VIDEO_FRAME_COMP_STRIDE(&vf, c);
            for (int x = 0; x < w; x++) {
                int v;
                if (alpha) {
                    v = maxv;
                } else {
                    const double px = (double)((x << sx) - frame * dx);
                    const double py = (double)((y << sy) - frame * dy);
                    v = (int)(pattern(px + 1000, py + 1000, (int)c) * maxv + 0.5);
                    if (noise)
                        v += (int)(rng(&s) % (uint32_t)(2 * noise + 1)) - noise;
                    v = v < 0 ? 0 : v > maxv ? maxv : v;
                }
                guint8 *p = row + (gsize)x * pstride;
                if (depth > 8) {
                    p[0] = (guint8)(v & 0xff);
                    p[1] = (guint8)(v >> 8);
                } else {
                    p[0] = (guint8)v;
                }
            }
        }
    }
    gst_video_frame_unmap(&vf);
    GST_BUFFER_PTS(buf) = (GstClockTime)frame * dur;
    GST_BUFFER_DURATION(buf) = dur;
    return buf;
}

static fovea_pixfmt pixfmt_of(GstVideoFormat f)
{
    switch (f) {
    case GST_VIDEO_FORMAT_GRAY8: return FOVEA_PIX_GRAY8;
    case GST_VIDEO_FORMAT_GRAY16_LE: return FOVEA_PIX_GRAY16;
    case GST_VIDEO_FORMAT_I420: return FOVEA_PIX_I420;
    case GST_VIDEO_FORMAT_I420_10LE: return FOVEA_PIX_I420P10;
    case GST_VIDEO_FORMAT_I420_12LE: return FOVEA_PIX_I420P12;
    case GST_VIDEO_FORMAT_Y42B: return FOVEA_PIX_I422;
    case GST_VIDEO_FORMAT_I422_10LE: return FOVEA_PIX_I422P10;
    case GST_VIDEO_FORMAT_Y444: return FOVEA_PIX_I444;
    case GST_VIDEO_FORMAT_Y444_10LE: return FOVEA_PIX_I444P10;
    case GST_VIDEO_FORMAT_NV12: return FOVEA_PIX_NV12;
    case GST_VIDEO_FORMAT_RGB: return FOVEA_PIX_RGB24;
    case GST_VIDEO_FORMAT_RGBA: return FOVEA_PIX_RGBA;
    case GST_VIDEO_FORMAT_RGBA64_LE: return FOVEA_PIX_RGBA64;
    default: return FOVEA_PIX_NONE;
    }
}

void gt_wrap(const GstVideoFrame *vf, fovea_frame *out)
{
    memset(out, 0, sizeof(*out));
    out->width = GST_VIDEO_FRAME_WIDTH(vf);
    out->height = GST_VIDEO_FRAME_HEIGHT(vf);
    out->fmt = pixfmt_of(GST_VIDEO_FRAME_FORMAT(vf));
    GT_CHECK(out->fmt != FOVEA_PIX_NONE, "format %s",
             gst_video_format_to_string(GST_VIDEO_FRAME_FORMAT(vf)));
    out->mem = FOVEA_MEM_HOST;
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(vf); p++) {
        out->data[p] = GST_VIDEO_FRAME_PLANE_DATA(vf, p);
        out->stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE(vf, p);
    }
}

gboolean gt_frame_equal(const GstVideoFrame *vf, const fovea_frame *f, const char *what)
{
    fovea_frame g;
    gt_wrap(vf, &g);
    if (g.width != f->width || g.height != f->height || g.fmt != f->fmt) {
        fprintf(stderr, "%s: %dx%d %s, expected %dx%d %s\n", what, g.width, g.height,
                fovea_pixfmt_name(g.fmt), f->width, f->height, fovea_pixfmt_name(f->fmt));
        return FALSE;
    }
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    for (int p = 0; p < d->planes; p++) {
        const size_t row = fovea_plane_row_bytes(f->fmt, f->width, p);
        for (int y = 0; y < fovea_plane_height(f->fmt, f->height, p); y++) {
            const uint8_t *a = g.data[p] + (ptrdiff_t)y * g.stride[p];
            const uint8_t *b = f->data[p] + (ptrdiff_t)y * f->stride[p];
            if (memcmp(a, b, row) != 0) {
                size_t x = 0;
                while (a[x] == b[x])
                    x++;
                fprintf(stderr, "%s: plane %d row %d byte %zu: %u, expected %u\n", what, p, y, x,
                        a[x], b[x]);
                return FALSE;
            }
        }
    }
    return TRUE;
}

void gt_write_file(const char *path, const char *text)
{
    GError *e = NULL;
    GT_CHECK(g_file_set_contents(path, text, -1, &e), "%s: %s", path, e ? e->message : "?");
}

gchar *gt_tmpdir(void)
{
    GError *e = NULL;
    gchar *d = g_dir_make_tmp("fovea_gst_XXXXXX", &e);
    GT_CHECK(d != NULL, "tmpdir: %s", e ? e->message : "?");
    return d;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void gt_cleanup_dir(gchar *dir)
{
    if (dir)
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    g_free(dir);
}
