/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* foveatrack: fovea's KLT (Birchfield's KLT 1.3.4 numbers) on the frames'
 * luma: features selected on the first frame and tracked frame to frame
 * (lost ones replaced on request), drawn over the frames with their recent
 * trails, and their positions posted as an element message per frame. */
#include <stdlib.h>
#include <string.h>

#include <gst/video/gstvideofilter.h>

#include "common.h"
#include "elements.h"
#include "fovea/klt.h"

GST_DEBUG_CATEGORY_STATIC(fovea_track_debug);
#define GST_CAT_DEFAULT fovea_track_debug

#define MAX_TRAIL 64

enum {
    PROP_0,
    PROP_FEATURES,
    PROP_WINDOW,
    PROP_MINDIST,
    PROP_REPLACE,
    PROP_LEVELS,
    PROP_SUBSAMPLING,
    PROP_SEQUENTIAL,
    PROP_DRAW,
    PROP_TRAIL,
    PROP_BACKEND,
    PROP_THREADS
};

typedef struct {
    float x[MAX_TRAIL], y[MAX_TRAIL];
    int n; /* points held, newest last */
} trail;

typedef struct {
    GstVideoFilter parent;
    /* properties (object lock) */
    gint nfeatures, window, mindist, levels, subsampling, trail_len;
    gboolean replace, sequential, draw;
    /* backend: KLT's (tc->backend); the context is a CPU one, from READY on */
    fovea_gst_base base;
    /* the streaming thread's */
    KLT_TrackingContext tc;
    KLT_FeatureList fl;
    unsigned char *prev, *cur; /* packed 8-bit luma */
    trail *trails;
    int w, h;
    gboolean failed; /* make_tracker posted an error for these caps */
    guint64 frames;  /* frames tracked since the start of the stream */
} GstFoveaTrack;

typedef struct {
    GstVideoFilterClass parent_class;
} GstFoveaTrackClass;

G_DEFINE_TYPE(GstFoveaTrack, gst_fovea_track, GST_TYPE_VIDEO_FILTER)

#define TRACK(obj) ((GstFoveaTrack *)(obj))

static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_I420,  GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,
    GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGB,  GST_VIDEO_FORMAT_RGBA};

/* ------------------------------------------------------------------ properties */

static void track_set_property(GObject *obj, guint id, const GValue *v, GParamSpec *ps)
{
    GstFoveaTrack *self = TRACK(obj);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_FEATURES: self->nfeatures = g_value_get_int(v); break;
    case PROP_WINDOW: self->window = g_value_get_int(v); break;
    case PROP_MINDIST: self->mindist = g_value_get_int(v); break;
    case PROP_REPLACE: self->replace = g_value_get_boolean(v); break;
    case PROP_LEVELS: self->levels = g_value_get_int(v); break;
    case PROP_SUBSAMPLING: self->subsampling = g_value_get_int(v); break;
    case PROP_SEQUENTIAL: self->sequential = g_value_get_boolean(v); break;
    case PROP_DRAW: self->draw = g_value_get_boolean(v); break;
    case PROP_TRAIL: self->trail_len = g_value_get_int(v); break;
    default:
        if (!fovea_gst_base_set_property(&self->base, id, PROP_BACKEND, PROP_THREADS, v))
            G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void track_get_property(GObject *obj, guint id, GValue *v, GParamSpec *ps)
{
    GstFoveaTrack *self = TRACK(obj);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_FEATURES: g_value_set_int(v, self->nfeatures); break;
    case PROP_WINDOW: g_value_set_int(v, self->window); break;
    case PROP_MINDIST: g_value_set_int(v, self->mindist); break;
    case PROP_REPLACE: g_value_set_boolean(v, self->replace); break;
    case PROP_LEVELS: g_value_set_int(v, self->levels); break;
    case PROP_SUBSAMPLING: g_value_set_int(v, self->subsampling); break;
    case PROP_SEQUENTIAL: g_value_set_boolean(v, self->sequential); break;
    case PROP_DRAW: g_value_set_boolean(v, self->draw); break;
    case PROP_TRAIL: g_value_set_int(v, self->trail_len); break;
    default:
        if (!fovea_gst_base_get_property(&self->base, id, PROP_BACKEND, PROP_THREADS, v))
            G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

/* ------------------------------------------------------------------ states */

static GstStateChangeReturn track_change_state(GstElement *el, GstStateChange t)
{
    /* KLT picks its backend itself (tc->backend); the context gives it
     * threads and the log */
    return fovea_gst_base_change_state(&TRACK(el)->base, el, fovea_track_debug,
                                       GST_ELEMENT_CLASS(gst_fovea_track_parent_class), t);
}

static void free_tracker(GstFoveaTrack *self)
{
    KLTFreeFeatureList(self->fl);
    KLTFreeTrackingContext(self->tc);
    self->fl = NULL;
    self->tc = NULL;
    g_free(self->prev);
    g_free(self->cur);
    g_free(self->trails);
    self->prev = self->cur = NULL;
    self->trails = NULL;
}

static gboolean track_stop(GstBaseTransform *bt)
{
    free_tracker(TRACK(bt));
    return TRUE;
}

/* A tracker for w x h frames with the properties; FALSE after posting an error. */
static gboolean make_tracker(GstFoveaTrack *self, int w, int h)
{
    free_tracker(self);
    GST_OBJECT_LOCK(self);
    const int n = self->nfeatures, window = self->window, mindist = self->mindist;
    const int levels = self->levels, subsampling = self->subsampling;
    const gboolean sequential = self->sequential, draw = self->draw;
    const fovea_backend backend = self->base.backend;
    GST_OBJECT_UNLOCK(self);
    self->tc = KLTCreateTrackingContext();
    self->fl = KLTCreateFeatureList(n);
    self->prev = g_malloc((gsize)w * (gsize)h);
    self->cur = g_malloc((gsize)w * (gsize)h);
    self->trails = g_new0(trail, n);
    if (!self->tc || !self->fl) {
        GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("out of memory"), (NULL));
        return FALSE;
    }
    KLT_TrackingContext tc = self->tc;
    tc->ctx = self->base.ctx;
    tc->backend = backend;
    tc->window_width = tc->window_height = window;
    tc->mindist = mindist;
    tc->sequentialMode = sequential;
    if (window != 7)
        KLTChangeTCPyramid(tc, 15);
    if (levels)
        tc->nPyramidLevels = levels;
    if (subsampling)
        tc->subsampling = subsampling;
    KLTUpdateTCBorder(tc);
    const int st = fovea_klt_check_params(tc, w, h);
    if (st < 0) {
        FOVEA_GST_ERROR(self, CORE, NEGOTIATION, self->base.ctx, st,
                        "KLT parameters for %dx%d frames", w, h);
        return FALSE;
    }
    self->w = w;
    self->h = h;
    self->frames = 0;
    gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), !draw);
    return TRUE;
}

static gboolean track_set_info(GstVideoFilter *vf, GstCaps *incaps, GstVideoInfo *in,
                               GstCaps *outcaps, GstVideoInfo *out)
{
    GstFoveaTrack *self = TRACK(vf);
    /* parameters that do not fit the size: the error is posted once and the
     * first frame fails; refusing the caps here would make the base class try
     * them again at every event, each time posting the error */
    self->failed = !make_tracker(self, GST_VIDEO_INFO_WIDTH(in), GST_VIDEO_INFO_HEIGHT(in));
    return TRUE;
}

static gboolean track_sink_event(GstBaseTransform *bt, GstEvent *event)
{
    GstFoveaTrack *self = TRACK(bt);
    /* after a flush or a new stream, features are selected again */
    if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP ||
        GST_EVENT_TYPE(event) == GST_EVENT_STREAM_START) {
        self->frames = 0;
        if (self->tc)
            KLTStopSequentialMode(self->tc);
        GST_OBJECT_LOCK(self);
        if (self->tc)
            self->tc->sequentialMode = self->sequential;
        GST_OBJECT_UNLOCK(self);
    }
    return GST_BASE_TRANSFORM_CLASS(gst_fovea_track_parent_class)->sink_event(bt, event);
}

/* ------------------------------------------------------------------ frames */

/* 8-bit luma of the frame, packed: the Y plane, or (77 R + 150 G + 29 B + 128) >> 8. */
static void frame_luma(const GstVideoFrame *f, unsigned char *out)
{
    const int w = GST_VIDEO_FRAME_WIDTH(f), h = GST_VIDEO_FRAME_HEIGHT(f);
    const GstVideoFormat fmt = GST_VIDEO_FRAME_FORMAT(f);
    const int bpp = fmt == GST_VIDEO_FORMAT_RGBA ? 4 : fmt == GST_VIDEO_FORMAT_RGB ? 3 : 0;
    for (int y = 0; y < h; y++) {
        const guint8 *row = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(f, 0) +
                            (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE(f, 0);
        unsigned char *o = out + (gsize)y * w;
        if (!bpp) {
            memcpy(o, row, (gsize)w);
            continue;
        }
        for (int x = 0; x < w; x++) {
            const guint8 *p = row + (gsize)x * bpp;
            o[x] = (unsigned char)((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8);
        }
    }
}

typedef struct {
    guint8 r, g, b;
    guint8 y, u, v; /* BT.601 limited range */
} color;

static color make_color(guint8 r, guint8 g, guint8 b)
{
    color c = {r, g, b, 0, 0, 0};
    c.y = (guint8)(((66 * r + 129 * g + 25 * b + 128) >> 8) + 16);
    c.u = (guint8)(((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128);
    c.v = (guint8)(((112 * r - 94 * g - 18 * b + 128) >> 8) + 128);
    return c;
}

static void put_px(GstVideoFrame *f, int x, int y, const color *c)
{
    if (x < 0 || y < 0 || x >= GST_VIDEO_FRAME_WIDTH(f) || y >= GST_VIDEO_FRAME_HEIGHT(f))
        return;
    const GstVideoFormat fmt = GST_VIDEO_FRAME_FORMAT(f);
    guint8 *p0 =
        (guint8 *)GST_VIDEO_FRAME_PLANE_DATA(f, 0) + (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE(f, 0);
    if (fmt == GST_VIDEO_FORMAT_RGB || fmt == GST_VIDEO_FORMAT_RGBA) {
        guint8 *p = p0 + (gsize)x * (fmt == GST_VIDEO_FORMAT_RGBA ? 4 : 3);
        p[0] = c->r;
        p[1] = c->g;
        p[2] = c->b;
        return;
    }
    p0[x] = c->y;
    if (fmt == GST_VIDEO_FORMAT_GRAY8)
        return;
    const GstVideoFormatInfo *fi = f->info.finfo;
    const int cx = x >> GST_VIDEO_FORMAT_INFO_W_SUB(fi, 1),
              cy = y >> GST_VIDEO_FORMAT_INFO_H_SUB(fi, 1);
    if (fmt == GST_VIDEO_FORMAT_NV12) {
        guint8 *uv = (guint8 *)GST_VIDEO_FRAME_PLANE_DATA(f, 1) +
                     (gsize)cy * GST_VIDEO_FRAME_PLANE_STRIDE(f, 1) + 2 * (gsize)cx;
        uv[0] = c->u;
        uv[1] = c->v;
        return;
    }
    ((guint8 *)GST_VIDEO_FRAME_PLANE_DATA(
        f, 1))[(gsize)cy * GST_VIDEO_FRAME_PLANE_STRIDE(f, 1) + cx] = c->u;
    ((guint8 *)GST_VIDEO_FRAME_PLANE_DATA(
        f, 2))[(gsize)cy * GST_VIDEO_FRAME_PLANE_STRIDE(f, 2) + cx] = c->v;
}

static void draw_line(GstVideoFrame *f, float x0, float y0, float x1, float y1, const color *c)
{
    const float dx = x1 - x0, dy = y1 - y0;
    const float len = MAX(ABS(dx), ABS(dy));
    const int steps = MIN((int)len + 1, 4096);
    for (int i = 0; i <= steps; i++) {
        const float t = (float)i / (float)steps;
        put_px(f, (int)(x0 + t * dx + 0.5f), (int)(y0 + t * dy + 0.5f), c);
    }
}

static void draw_box(GstVideoFrame *f, float x, float y, const color *c)
{
    const int cx = (int)(x + 0.5f), cy = (int)(y + 0.5f);
    for (int j = -1; j <= 1; j++)
        for (int i = -1; i <= 1; i++)
            put_px(f, cx + i, cy + j, c);
}

/* The trails updated from the list and, when f is not NULL, drawn: green
 * tracked, yellow newly selected, red where a feature was lost in this frame,
 * trails dim green. */
static void draw_tracks(GstFoveaTrack *self, GstVideoFrame *f, int trail_len)
{
    const color green = make_color(0, 255, 0), yellow = make_color(255, 230, 0);
    const color red = make_color(255, 0, 0), dim = make_color(0, 150, 0);
    for (int k = 0; k < self->fl->nFeatures; k++) {
        const KLT_Feature ft = self->fl->feature[k];
        trail *t = &self->trails[k];
        if (ft->val < 0) {
            if (t->n > 0 && f)
                draw_box(f, t->x[t->n - 1], t->y[t->n - 1], &red);
            t->n = 0;
            continue;
        }
        if (ft->val > 0)
            t->n = 0; /* a new feature in this slot */
        if (t->n >= trail_len) {
            const int drop = t->n - trail_len + 1;
            memmove(t->x, t->x + drop, (gsize)(t->n - drop) * sizeof(float));
            memmove(t->y, t->y + drop, (gsize)(t->n - drop) * sizeof(float));
            t->n -= drop;
        }
        t->x[t->n] = ft->x;
        t->y[t->n] = ft->y;
        t->n++;
        if (!f)
            continue;
        for (int i = 1; i < t->n; i++)
            draw_line(f, t->x[i - 1], t->y[i - 1], t->x[i], t->y[i], &dim);
        draw_box(f, ft->x, ft->y, ft->val > 0 ? &yellow : &green);
    }
}

static void post_features(GstFoveaTrack *self, GstClockTime pts)
{
    GValue xs = G_VALUE_INIT, ys = G_VALUE_INIT, vals = G_VALUE_INIT;
    GValue d = G_VALUE_INIT, i = G_VALUE_INIT;
    gst_value_array_init(&xs, (guint)self->fl->nFeatures);
    gst_value_array_init(&ys, (guint)self->fl->nFeatures);
    gst_value_array_init(&vals, (guint)self->fl->nFeatures);
    g_value_init(&d, G_TYPE_DOUBLE);
    g_value_init(&i, G_TYPE_INT);
    for (int k = 0; k < self->fl->nFeatures; k++) {
        const KLT_Feature ft = self->fl->feature[k];
        g_value_set_double(&d, ft->x);
        gst_value_array_append_value(&xs, &d);
        g_value_set_double(&d, ft->y);
        gst_value_array_append_value(&ys, &d);
        g_value_set_int(&i, ft->val);
        gst_value_array_append_value(&vals, &i);
    }
    g_value_unset(&d);
    g_value_unset(&i);
    GstStructure *s =
        gst_structure_new("foveatrack", "frame", G_TYPE_UINT64, self->frames, "timestamp",
                          G_TYPE_UINT64, (guint64)pts, "features", G_TYPE_INT, self->fl->nFeatures,
                          "tracked", G_TYPE_INT, KLTCountRemainingFeatures(self->fl), NULL);
    gst_structure_take_value(s, "x", &xs);
    gst_structure_take_value(s, "y", &ys);
    gst_structure_take_value(s, "val", &vals);
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

static GstFlowReturn track_transform_frame_ip(GstVideoFilter *vf, GstVideoFrame *frame)
{
    GstFoveaTrack *self = TRACK(vf);
    GST_OBJECT_LOCK(self);
    const gboolean replace = self->replace;
    const int trail_len = self->trail_len;
    GST_OBJECT_UNLOCK(self);
    const int w = self->w, h = self->h;
    if (self->failed)
        return GST_FLOW_ERROR; /* posted by make_tracker */
    frame_luma(frame, self->cur);
    if (self->frames == 0) {
        KLTSelectGoodFeatures(self->tc, self->cur, w, h, self->fl);
    } else {
        KLTTrackFeatures(self->tc, self->prev, self->cur, w, h, self->fl);
        if (replace && fovea_klt_last_status(self->tc) == FOVEA_OK)
            KLTReplaceLostFeatures(self->tc, self->cur, w, h, self->fl);
    }
    const int st = fovea_klt_last_status(self->tc);
    if (st < 0) {
        FOVEA_GST_ERROR(self, STREAM, FAILED, self->base.ctx, st, "frame %" G_GUINT64_FORMAT,
                        self->frames);
        return GST_FLOW_ERROR;
    }
    draw_tracks(self, gst_base_transform_is_passthrough(GST_BASE_TRANSFORM(vf)) ? NULL : frame,
                trail_len);
    post_features(self, GST_BUFFER_PTS(frame->buffer));
    unsigned char *t = self->prev;
    self->prev = self->cur;
    self->cur = t;
    self->frames++;
    return GST_FLOW_OK;
}

/* ------------------------------------------------------------------ class */

static void track_finalize(GObject *obj)
{
    GstFoveaTrack *self = TRACK(obj);
    free_tracker(self);
    fovea_gst_base_close(&self->base);
    G_OBJECT_CLASS(gst_fovea_track_parent_class)->finalize(obj);
}

static void gst_fovea_track_class_init(GstFoveaTrackClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GstElementClass *ec = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass *bc = GST_BASE_TRANSFORM_CLASS(klass);
    GstVideoFilterClass *vc = GST_VIDEO_FILTER_CLASS(klass);

    GST_DEBUG_CATEGORY_INIT(fovea_track_debug, "foveatrack", 0, "fovea KLT tracking");

    oc->set_property = track_set_property;
    oc->get_property = track_get_property;
    oc->finalize = track_finalize;
    const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;
    g_object_class_install_property(
        oc, PROP_FEATURES,
        g_param_spec_int("features", "Features", "number of feature slots", 1, 100000, 150, rw));
    g_object_class_install_property(
        oc, PROP_WINDOW,
        g_param_spec_int("window", "Window", "tracking window W x W (odd)", 3, 255, 7, rw));
    g_object_class_install_property(oc, PROP_MINDIST,
                                    g_param_spec_int("min-distance", "Minimum distance",
                                                     "minimum distance between features in pixels",
                                                     0, 10000, 10, rw));
    g_object_class_install_property(
        oc, PROP_REPLACE,
        g_param_spec_boolean("replace", "Replace", "refill lost feature slots after every frame",
                             FALSE, rw));
    g_object_class_install_property(
        oc, PROP_LEVELS,
        g_param_spec_int("pyramid-levels", "Pyramid levels",
                         "pyramid levels including the full image; 0 = KLT's choice", 0, 8, 0, rw));
    g_object_class_install_property(
        oc, PROP_SUBSAMPLING,
        g_param_spec_int("subsampling", "Subsampling",
                         "pyramid subsampling 2, 4, 8, 16 or 32; 0 = KLT's choice", 0, 32, 0, rw));
    g_object_class_install_property(
        oc, PROP_SEQUENTIAL,
        g_param_spec_boolean("sequential", "Sequential",
                             "keep the last pyramid between frames (same results, less work)",
                             FALSE, rw));
    g_object_class_install_property(
        oc, PROP_DRAW,
        g_param_spec_boolean("draw", "Draw", "draw the features and their trails on the frames",
                             TRUE, rw));
    g_object_class_install_property(oc, PROP_TRAIL,
                                    g_param_spec_int("trail", "Trail",
                                                     "frames of history drawn per feature", 1,
                                                     MAX_TRAIL, 10, rw));
    fovea_gst_install_backend_properties(oc, PROP_BACKEND, PROP_THREADS);

    gst_element_class_set_static_metadata(
        ec, "fovea KLT tracker", "Filter/Analyzer/Video",
        "KLT feature tracking (Birchfield's KLT 1.3.4 numbers) on the luma, drawn over the "
        "frames, positions posted per frame",
        "fovea");
    GstCaps *caps = fovea_gst_raw_caps(formats, G_N_ELEMENTS(formats), FALSE);
    gst_element_class_add_pad_template(
        ec, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
    gst_element_class_add_pad_template(
        ec, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);

    ec->change_state = track_change_state;
    bc->stop = track_stop;
    bc->sink_event = track_sink_event;
    vc->set_info = track_set_info;
    vc->transform_frame_ip = track_transform_frame_ip;
}

static void gst_fovea_track_init(GstFoveaTrack *self)
{
    self->nfeatures = 150;
    self->window = 7;
    self->mindist = 10;
    self->trail_len = 10;
    self->draw = TRUE;
    fovea_gst_base_init(&self->base, TRUE);
}
