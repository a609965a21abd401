/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* foveadiff: each frame against the previous one through fovea's frame
 * differencing: a heat map, a noise map (changed pixels red, on black or over
 * the frame) or the change mask drawn as tiles, with the statistics of every
 * frame posted as an element message. Inputs in CUDA memory of the element's
 * context are read on the device without a copy (the diff system's CUDA
 * backend); the maps come out in system memory. */
#include <string.h>

#include <gst/video/gstvideofilter.h>

#include "common.h"
#include "cuda.h"
#include "elements.h"
#include "fovea/diff.h"

GST_DEBUG_CATEGORY_STATIC(fovea_diff_debug);
#define GST_CAT_DEFAULT fovea_diff_debug

typedef enum {
    MODE_HEATMAP = 0, /* heat map of the difference */
    MODE_NOISE = 1,   /* changed pixels red on black */
    MODE_OVERLAY = 2, /* changed pixels red over the frame (the input's format) */
    MODE_MASK = 3     /* changed tiles white on black */
} diff_mode;

static GType mode_get_type(void)
{
    static gsize type = 0;
    static const GEnumValue values[] = {
        {MODE_HEATMAP,
         "heat map of the difference: blue where none, through green, to red at "
         "normalize and above",
         "heatmap"},
        {MODE_NOISE, "pixels that changed by more than the threshold in red, on black", "noise"},
        {MODE_OVERLAY, "pixels that changed painted red over the frame", "overlay"},
        {MODE_MASK, "tiles with a changed sample in white, on black", "mask"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type)) {
        GType t = g_enum_register_static("FoveaDiffMode", values);
        g_once_init_leave(&type, t);
    }
    return (GType)type;
}

static GType denoise_get_type(void)
{
    static gsize type = 0;
    static const GEnumValue values[] = {
        {FOVEA_DIFF_DENOISE_NONE, "frames compared as they are", "none"},
        {FOVEA_DIFF_DENOISE_MEDIAN3, "3x3 median", "median3"},
        {FOVEA_DIFF_DENOISE_GAUSS5, "5x5 Gaussian", "gauss5"},
        {FOVEA_DIFF_DENOISE_TEMPORAL, "temporal recursive filter", "temporal"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type)) {
        GType t = g_enum_register_static("FoveaDiffDenoise", values);
        g_once_init_leave(&type, t);
    }
    return (GType)type;
}

static GType measure_get_type(void)
{
    static gsize type = 0;
    static const GEnumValue values[] = {
        {FOVEA_DIFF_SUM, "sum of the channel differences", "sum"},
        {FOVEA_DIFF_MAX, "largest channel difference", "max"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type)) {
        GType t = g_enum_register_static("FoveaDiffMeasure", values);
        g_once_init_leave(&type, t);
    }
    return (GType)type;
}

enum {
    PROP_0,
    PROP_MODE,
    PROP_THRESHOLD,
    PROP_DENOISE,
    PROP_NORMALIZE,
    PROP_MEASURE,
    PROP_TILE,
    PROP_AUTO_K,
    PROP_TEMPORAL_STRENGTH,
    PROP_BACKEND,
    PROP_THREADS
};

typedef struct {
    GstVideoFilter parent;
    /* properties (object lock) */
    diff_mode mode;
    fovea_diff_settings set;
    fovea_gst_base base; /* backend, threads; the context from READY on */
    /* the streaming thread's */
    fovea_diff *d;
    GstBuffer *prev; /* the previous input frame (a ref) */
    guint64 frames;
} GstFoveaDiff;

typedef struct {
    GstVideoFilterClass parent_class;
} GstFoveaDiffClass;

G_DEFINE_TYPE(GstFoveaDiff, gst_fovea_diff, GST_TYPE_VIDEO_FILTER)

#define DIFF(obj) ((GstFoveaDiff *)(obj))

static const GstVideoFormat in_formats[] = {
    GST_VIDEO_FORMAT_I420,      GST_VIDEO_FORMAT_NV12,      GST_VIDEO_FORMAT_Y42B,
    GST_VIDEO_FORMAT_Y444,      GST_VIDEO_FORMAT_GRAY8,     GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_RGBA,      GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_I422_10LE,
    GST_VIDEO_FORMAT_Y444_10LE, GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_I422_12LE,
    GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_16LE, GST_VIDEO_FORMAT_GRAY16_LE,
    GST_VIDEO_FORMAT_RGBA64_LE,
};
/* the maps' formats (and the only inputs of overlay) */
static const GstVideoFormat out_formats[] = {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGB,
                                             GST_VIDEO_FORMAT_I420};

#define DEFAULT_MODE MODE_HEATMAP

/* ------------------------------------------------------------------ properties */

static void diff_set_property(GObject *obj, guint id, const GValue *v, GParamSpec *ps)
{
    GstFoveaDiff *self = DIFF(obj);
    gboolean reconfigure = FALSE;
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_MODE: {
        const diff_mode m = (diff_mode)g_value_get_enum(v);
        reconfigure = m != self->mode;
        self->mode = m;
        break;
    }
    case PROP_THRESHOLD: self->set.threshold = g_value_get_int(v); break;
    case PROP_DENOISE: self->set.denoise = (fovea_diff_denoise_mode)g_value_get_enum(v); break;
    case PROP_NORMALIZE: self->set.normalize_max = g_value_get_int(v); break;
    case PROP_MEASURE: self->set.measure = (fovea_diff_measure)g_value_get_enum(v); break;
    case PROP_TILE: self->set.tile = g_value_get_int(v); break;
    case PROP_AUTO_K: self->set.auto_k = g_value_get_double(v); break;
    case PROP_TEMPORAL_STRENGTH: self->set.temporal_strength = g_value_get_int(v); break;
    default:
        if (!fovea_gst_base_set_property(&self->base, id, PROP_BACKEND, PROP_THREADS, v))
            G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
        break;
    }
    GST_OBJECT_UNLOCK(self);
    if (reconfigure)
        gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
}

static void diff_get_property(GObject *obj, guint id, GValue *v, GParamSpec *ps)
{
    GstFoveaDiff *self = DIFF(obj);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_MODE: g_value_set_enum(v, self->mode); break;
    case PROP_THRESHOLD: g_value_set_int(v, self->set.threshold); break;
    case PROP_DENOISE: g_value_set_enum(v, self->set.denoise); break;
    case PROP_NORMALIZE: g_value_set_int(v, self->set.normalize_max); break;
    case PROP_MEASURE: g_value_set_enum(v, self->set.measure); break;
    case PROP_TILE: g_value_set_int(v, self->set.tile); break;
    case PROP_AUTO_K: g_value_set_double(v, self->set.auto_k); break;
    case PROP_TEMPORAL_STRENGTH: g_value_set_int(v, self->set.temporal_strength); break;
    default:
        if (!fovea_gst_base_get_property(&self->base, id, PROP_BACKEND, PROP_THREADS, v))
            G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

/* ------------------------------------------------------------------ states */

static GstStateChangeReturn diff_change_state(GstElement *el, GstStateChange t)
{
    return fovea_gst_base_change_state(&DIFF(el)->base, el, fovea_diff_debug,
                                       GST_ELEMENT_CLASS(gst_fovea_diff_parent_class), t);
}

static gboolean diff_start(GstBaseTransform *bt)
{
    GstFoveaDiff *self = DIFF(bt);
    GST_OBJECT_LOCK(self);
    fovea_diff_settings set = self->set;
    set.noise_mode = self->mode == MODE_OVERLAY ? FOVEA_DIFF_NOISE_OVERLAY : FOVEA_DIFF_NOISE_BLACK;
    GST_OBJECT_UNLOCK(self);
    const int st = fovea_diff_open(&self->d, self->base.ctx, &set);
    if (st < 0) {
        FOVEA_GST_ERROR(self, LIBRARY, SETTINGS, self->base.ctx, st, "cannot set up differencing");
        return FALSE;
    }
    self->frames = 0;
    return TRUE;
}

static gboolean diff_stop(GstBaseTransform *bt)
{
    GstFoveaDiff *self = DIFF(bt);
    gst_buffer_replace(&self->prev, NULL);
    fovea_diff_close(&self->d);
    return TRUE;
}

static gboolean diff_sink_event(GstBaseTransform *bt, GstEvent *event)
{
    GstFoveaDiff *self = DIFF(bt);
    /* after a flush or a new stream the next frame starts over */
    if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP ||
        GST_EVENT_TYPE(event) == GST_EVENT_STREAM_START) {
        gst_buffer_replace(&self->prev, NULL);
        self->frames = 0;
        if (self->d)
            fovea_diff_reset(self->d);
    }
    return GST_BASE_TRANSFORM_CLASS(gst_fovea_diff_parent_class)->sink_event(bt, event);
}

/* ------------------------------------------------------------------ caps */

static gboolean format_listed(const GValue *v, const GstVideoFormat *list, guint n)
{
    const gchar *name = g_value_get_string(v);
    for (guint i = 0; i < n; i++)
        if (g_strcmp0(name, gst_video_format_to_string(list[i])) == 0)
            return TRUE;
    return FALSE;
}

/* The formats of s's "format" field that are in list (all of list when s is
 * NULL or has no format), as a GValue list; FALSE when none is. */
static gboolean formats_of(const GstStructure *s, const GstVideoFormat *list, guint n, GValue *out)
{
    const GValue *f = s ? gst_structure_get_value(s, "format") : NULL;
    g_value_init(out, GST_TYPE_LIST);
    GValue item = G_VALUE_INIT;
    g_value_init(&item, G_TYPE_STRING);
    for (guint i = 0; i < n; i++) {
        gboolean ok = !f;
        if (f && G_VALUE_HOLDS_STRING(f))
            ok = g_strcmp0(g_value_get_string(f), gst_video_format_to_string(list[i])) == 0;
        else if (f && GST_VALUE_HOLDS_LIST(f))
            for (guint k = 0; k < gst_value_list_get_size(f) && !ok; k++) {
                const GValue *e = gst_value_list_get_value(f, k);
                ok = G_VALUE_HOLDS_STRING(e) && format_listed(e, &list[i], 1);
            }
        if (ok) {
            g_value_set_string(&item, gst_video_format_to_string(list[i]));
            gst_value_list_append_value(out, &item);
        }
    }
    g_value_unset(&item);
    if (gst_value_list_get_size(out) == 0) {
        g_value_unset(out);
        return FALSE;
    }
    return TRUE;
}

/* Maps have their own formats (and colors); overlay keeps the frame's format.
 * Size and rate pass through. */
static GstCaps *diff_transform_caps(GstBaseTransform *bt, GstPadDirection dir, GstCaps *caps,
                                    GstCaps *filter)
{
    GstFoveaDiff *self = DIFF(bt);
    GST_OBJECT_LOCK(self);
    const diff_mode mode = self->mode;
    GST_OBJECT_UNLOCK(self);
    GstCaps *res = gst_caps_new_empty();
    for (guint i = 0; i < gst_caps_get_size(caps); i++) {
        const GstStructure *s = gst_caps_get_structure(caps, i);
        GstStructure *o = gst_structure_copy(s);
        GValue fl = G_VALUE_INIT;
        gboolean ok;
        if (mode == MODE_OVERLAY) {
            /* the same format on both sides: one of the maps' */
            ok = formats_of(s, out_formats, G_N_ELEMENTS(out_formats), &fl);
        } else if (dir == GST_PAD_SINK) {
            ok = formats_of(s, in_formats, G_N_ELEMENTS(in_formats), &fl);
            if (ok) {
                g_value_unset(&fl);
                ok = formats_of(NULL, out_formats, G_N_ELEMENTS(out_formats), &fl);
            }
        } else {
            ok = formats_of(s, out_formats, G_N_ELEMENTS(out_formats), &fl);
            if (ok) {
                g_value_unset(&fl);
                ok = formats_of(NULL, in_formats, G_N_ELEMENTS(in_formats), &fl);
            }
        }
        if (!ok) {
            gst_structure_free(o);
            continue;
        }
        gst_structure_take_value(o, "format", &fl);
        if (mode != MODE_OVERLAY)
            gst_structure_remove_fields(o, "colorimetry", "chroma-site", NULL);
        /* the maps are made in system memory; the input may also be CUDA
         * memory where the element has a CUDA context */
        if (dir == GST_PAD_SRC && self->base.cuda)
            gst_caps_append_structure_full(
                res, gst_structure_copy(o),
                gst_caps_features_new(FOVEA_GST_CAPS_FEATURE_CUDA, NULL));
        gst_caps_append_structure(res, o);
    }
    if (filter) {
        GstCaps *t = gst_caps_intersect_full(filter, res, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(res);
        res = t;
    }
    GST_DEBUG_OBJECT(self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
                     dir == GST_PAD_SINK ? "sink" : "src", caps, res);
    return res;
}

static gboolean diff_set_info(GstVideoFilter *vf, GstCaps *incaps, GstVideoInfo *in,
                              GstCaps *outcaps, GstVideoInfo *out)
{
    GstFoveaDiff *self = DIFF(vf);
    if (fovea_gst_pixfmt(GST_VIDEO_INFO_FORMAT(in)) == FOVEA_PIX_NONE ||
        fovea_gst_pixfmt(GST_VIDEO_INFO_FORMAT(out)) == FOVEA_PIX_NONE) {
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                          ("unsupported formats %s -> %s",
                           gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(in)),
                           gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(out))),
                          (NULL));
        return FALSE;
    }
    /* a new format or size starts over */
    gst_buffer_replace(&self->prev, NULL);
    if (self->d)
        fovea_diff_reset(self->d);
    return TRUE;
}

/* ------------------------------------------------------------------ frames */

/* The change mask drawn at frame resolution: changed tiles white, others black. */
static void draw_mask(GstVideoFrame *out, const fovea_diff_mask_result *m)
{
    const int w = GST_VIDEO_FRAME_WIDTH(out), h = GST_VIDEO_FRAME_HEIGHT(out);
    const GstVideoFormat f = GST_VIDEO_FRAME_FORMAT(out);
    if (f == GST_VIDEO_FORMAT_I420) {
        for (int p = 0; p < 3; p++) {
            const int sh = p ? 1 : 0;
            const int pw = GST_VIDEO_FRAME_COMP_WIDTH(out, p),
                      ph = GST_VIDEO_FRAME_COMP_HEIGHT(out, p);
            for (int y = 0; y < ph; y++) {
                guint8 *row = (guint8 *)GST_VIDEO_FRAME_PLANE_DATA(out, p) +
                              (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE(out, p);
                const int ty = (y << sh) / m->tile;
                for (int x = 0; x < pw; x++) {
                    const int on = m->changed[ty * m->tiles_x + (x << sh) / m->tile];
                    row[x] = p ? 128 : (on ? 235 : 16);
                }
            }
        }
        return;
    }
    const int bpp = f == GST_VIDEO_FORMAT_RGBA ? 4 : 3;
    for (int y = 0; y < h; y++) {
        guint8 *row = (guint8 *)GST_VIDEO_FRAME_PLANE_DATA(out, 0) +
                      (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE(out, 0);
        const int ty = y / m->tile;
        for (int x = 0; x < w; x++) {
            const guint8 v = m->changed[ty * m->tiles_x + x / m->tile] ? 255 : 0;
            row[bpp * x] = row[bpp * x + 1] = row[bpp * x + 2] = v;
            if (bpp == 4)
                row[4 * x + 3] = 255;
        }
    }
}

static void post_stats(GstFoveaDiff *self, const fovea_diff_mask_result *m, GstClockTime pts, int w,
                       int h)
{
    const double pixels = (double)w * (double)h;
    GstStructure *s = gst_structure_new(
        "foveadiff", "frame", G_TYPE_UINT64, self->frames, "timestamp", G_TYPE_UINT64, (guint64)pts,
        "changed-pixels", G_TYPE_INT64, (gint64)m->changed_pixels, "changed-fraction",
        G_TYPE_DOUBLE, pixels > 0 ? (double)m->changed_pixels / pixels : 0.0, "changed-tiles",
        G_TYPE_INT64, (gint64)m->changed_tiles, "tiles", G_TYPE_INT, m->tiles_x * m->tiles_y,
        "tile", G_TYPE_INT, m->tile, "diff-sum", G_TYPE_INT64, (gint64)m->diff_sum, "diff-mean",
        G_TYPE_DOUBLE, pixels > 0 ? (double)m->diff_sum / pixels : 0.0, "diff-max", G_TYPE_INT,
        m->diff_max, "threshold", G_TYPE_INT, m->threshold, NULL);
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

/* A frame of buf: device pointers when it is CUDA memory of the element's
 * context and the maps are made on the device, a host map otherwise. */
static gboolean map_input(GstFoveaDiff *self, GstVideoFrame *vf, const GstVideoInfo *info,
                          GstBuffer *buf, fovea_frame *out)
{
    const gboolean dev = fovea_diff_backend(self->d) == FOVEA_BACKEND_CUDA &&
                         fovea_gst_cuda_buffer_is_ours(self->base.cuda, buf);
    if (!gst_video_frame_map(vf, info, buf, GST_MAP_READ | (dev ? fovea_gst_cuda_map_flag() : 0)))
        return FALSE;
    fovea_gst_wrap_frame(vf, dev ? FOVEA_MEM_DEVICE : FOVEA_MEM_HOST,
                         fovea_context_device(self->base.ctx), out);
    return TRUE;
}

static GstFlowReturn diff_transform(GstBaseTransform *bt, GstBuffer *inbuf, GstBuffer *outbuf)
{
    GstFoveaDiff *self = DIFF(bt);
    GstVideoFilter *vf = GST_VIDEO_FILTER(bt);
    GST_OBJECT_LOCK(self);
    const diff_mode mode = self->mode;
    GST_OBJECT_UNLOCK(self);
    fovea_frame cur, prev, out;
    GstVideoFrame cf, pf, of;
    if (!map_input(self, &cf, &vf->in_info, inbuf, &cur)) {
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("cannot map the frame"), (NULL));
        return GST_FLOW_ERROR;
    }
    if (!gst_video_frame_map(&of, &vf->out_info, outbuf, GST_MAP_WRITE)) {
        gst_video_frame_unmap(&cf);
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("cannot map the output"), (NULL));
        return GST_FLOW_ERROR;
    }
    fovea_gst_wrap_frame(&of, FOVEA_MEM_HOST, 0, &out);
    prev = cur; /* the first frame of a stream is compared with itself */
    gboolean pf_mapped = FALSE;
    if (self->prev) {
        if (!map_input(self, &pf, &vf->in_info, self->prev, &prev)) {
            gst_video_frame_unmap(&cf);
            gst_video_frame_unmap(&of);
            GST_ELEMENT_ERROR(self, STREAM, FAILED, ("cannot map the previous frame"), (NULL));
            return GST_FLOW_ERROR;
        }
        pf_mapped = TRUE;
    }
    /* one call: the frames denoised once (the temporal filter steps once),
     * the map and the mask from the same compared frames; host outputs are
     * complete when it returns */
    fovea_diff_mask_result mask;
    fovea_diff_outputs outs;
    memset(&outs, 0, sizeof(outs));
    outs.mask = &mask;
    if (mode == MODE_HEATMAP)
        outs.heatmap = &out;
    else if (mode == MODE_NOISE || mode == MODE_OVERLAY)
        outs.noise = &out; /* black or overlay: the context's noise mode (diff_start) */
    int st = fovea_diff_compute(self->d, &prev, &cur, &outs);
    if (st == FOVEA_OK && mode == MODE_MASK)
        draw_mask(&of, &mask);
    if (pf_mapped)
        gst_video_frame_unmap(&pf);
    gst_video_frame_unmap(&cf);
    gst_video_frame_unmap(&of);
    if (st < 0) {
        FOVEA_GST_ERROR(self, STREAM, FAILED, self->base.ctx, st, "frame %" G_GUINT64_FORMAT,
                        self->frames);
        return GST_FLOW_ERROR;
    }
    post_stats(self, &mask, GST_BUFFER_PTS(inbuf), cur.width, cur.height);
    gst_buffer_replace(&self->prev, inbuf);
    self->frames++;
    return GST_FLOW_OK;
}

/* Never called (diff_transform maps the frames itself, for the device where
 * it can): GstVideoFilter switches an element without transform_frame to in
 * place. */
static GstFlowReturn diff_transform_frame(GstVideoFilter *vf, GstVideoFrame *in, GstVideoFrame *out)
{
    GST_ELEMENT_ERROR(vf, CORE, NOT_IMPLEMENTED, ("internal: unexpected transform_frame"), (NULL));
    return GST_FLOW_ERROR;
}

static gboolean diff_query(GstBaseTransform *bt, GstPadDirection dir, GstQuery *query)
{
    GstFoveaDiff *self = DIFF(bt);
    if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
        fovea_gst_cuda_handle_query(self->base.cuda, GST_ELEMENT(self), query))
        return TRUE;
    return GST_BASE_TRANSFORM_CLASS(gst_fovea_diff_parent_class)->query(bt, dir, query);
}

/* ------------------------------------------------------------------ class */

static void diff_finalize(GObject *obj)
{
    GstFoveaDiff *self = DIFF(obj);
    gst_buffer_replace(&self->prev, NULL);
    fovea_diff_close(&self->d);
    fovea_gst_base_close(&self->base);
    G_OBJECT_CLASS(gst_fovea_diff_parent_class)->finalize(obj);
}

static void gst_fovea_diff_class_init(GstFoveaDiffClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GstElementClass *ec = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass *bc = GST_BASE_TRANSFORM_CLASS(klass);
    GstVideoFilterClass *vc = GST_VIDEO_FILTER_CLASS(klass);

    GST_DEBUG_CATEGORY_INIT(fovea_diff_debug, "foveadiff", 0, "fovea frame differencing");

    oc->set_property = diff_set_property;
    oc->get_property = diff_get_property;
    oc->finalize = diff_finalize;
    const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
    fovea_diff_settings def;
    fovea_diff_default_settings(&def);
    g_object_class_install_property(oc, PROP_MODE,
                                    g_param_spec_enum("mode", "Mode", "what the output shows",
                                                      mode_get_type(), DEFAULT_MODE,
                                                      rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_THRESHOLD,
        g_param_spec_int("threshold", "Threshold",
                         "a sample changed when it differs by more than this (sample units); "
                         "-1 = automatic, from each pair's noise (auto-k x sigma)",
                         -1, 65535, def.threshold, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_DENOISE,
        g_param_spec_enum("denoise", "Denoise", "filter applied to both frames first",
                          denoise_get_type(), def.denoise, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_NORMALIZE,
        g_param_spec_int("normalize", "Normalize",
                         "difference shown as the top of the heat map; 0 = the measure's full "
                         "range, -1 = a quarter of it, rounded up (192 for 8-bit rgb sum)",
                         -1, 3 * 65535, def.normalize_max, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_MEASURE,
        g_param_spec_enum("measure", "Measure", "per-pixel difference the heat map shows",
                          measure_get_type(), def.measure, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(oc, PROP_TILE,
                                    g_param_spec_int("tile", "Tile",
                                                     "change-mask tile side: 8, 16, 32 or 64",
                                                     FOVEA_DIFF_TILE_MIN, FOVEA_DIFF_TILE_MAX,
                                                     def.tile, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_AUTO_K,
        g_param_spec_double("auto-k", "Auto k", "k of the automatic threshold", 1e-6, 1000.0,
                            def.auto_k, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_TEMPORAL_STRENGTH,
        g_param_spec_int("temporal-strength", "Temporal strength",
                         "with denoise=temporal, the weight of the history in 1/256", 0, 255,
                         def.temporal_strength, rw | GST_PARAM_MUTABLE_READY));
    fovea_gst_install_backend_properties(oc, PROP_BACKEND, PROP_THREADS);

    gst_element_class_set_static_metadata(
        ec, "fovea frame differencing", "Filter/Analyzer/Video",
        "Each frame against the previous one: heat map, noise map or change mask, with "
        "per-frame statistics posted as messages",
        "fovea");
    GstCaps *in = fovea_gst_raw_caps(in_formats, G_N_ELEMENTS(in_formats), TRUE);
    GstCaps *out = fovea_gst_raw_caps(out_formats, G_N_ELEMENTS(out_formats), FALSE);
    gst_element_class_add_pad_template(
        ec, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, in));
    gst_element_class_add_pad_template(
        ec, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, out));
    gst_caps_unref(in);
    gst_caps_unref(out);

    ec->change_state = diff_change_state;
    bc->start = diff_start;
    bc->stop = diff_stop;
    bc->sink_event = diff_sink_event;
    bc->transform_caps = diff_transform_caps;
    vc->set_info = diff_set_info;
    bc->transform = diff_transform;
    bc->query = diff_query;
    vc->transform_frame = diff_transform_frame;
    gst_type_mark_as_plugin_api(mode_get_type(), 0);
    gst_type_mark_as_plugin_api(denoise_get_type(), 0);
    gst_type_mark_as_plugin_api(measure_get_type(), 0);
}

static void gst_fovea_diff_init(GstFoveaDiff *self)
{
    fovea_diff_default_settings(&self->set);
    self->mode = DEFAULT_MODE;
    fovea_gst_base_init(&self->base, FALSE);
}
