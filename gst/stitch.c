/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* foveastitch: a GstVideoAggregator that stitches one camera per request pad
 * (sink_0 = camera 0 of the rig, ...) into a panorama with fovea's stitcher,
 * inputs synchronized by timestamp, with a policy for cameras that have no
 * frame in time, and the color corrections posted when they change. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "elements.h"
#include "pinned.h"
#include "stitch.h"

GST_DEBUG_CATEGORY(fovea_stitch_debug);

static GType missing_policy_get_type(void)
{
    static gsize type = 0;
    static const GEnumValue values[] = {
        {MISSING_WAIT, "wait for every camera; the output ends when a camera ends", "wait"},
        {MISSING_BLACK, "stitch black in its place", "black"},
        {MISSING_REPEAT, "repeat its last frame up to max-repeat times in a row, then fail",
         "repeat"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type)) {
        GType t = g_enum_register_static("FoveaStitchMissing", values);
        g_once_init_leave(&type, t);
    }
    return (GType)type;
}

/* ------------------------------------------------------------------ the pad */

G_DEFINE_TYPE(GstFoveaStitchPad, gst_fovea_stitch_pad, GST_TYPE_VIDEO_AGGREGATOR_PAD)

/* ------------------------------------------------------------------ the element */

#define DEFAULT_COLOR "auto"
#define DEFAULT_COLOR_INTERVAL 30
#define DEFAULT_COLOR_SMOOTHING 0.5
#define DEFAULT_MISSING MISSING_WAIT
#define DEFAULT_MAX_REPEAT 5

enum {
    PROP_0,
    PROP_RIG,
    PROP_MAP,
    PROP_PTO,
    PROP_COLOR,
    PROP_COLOR_INTERVAL,
    PROP_COLOR_SMOOTHING,
    PROP_DETERMINISTIC,
    PROP_MISSING,
    PROP_MAX_REPEAT,
    PROP_PHOTOMETRIC,
    PROP_BACKEND,
    PROP_THREADS
};

G_DEFINE_TYPE(GstFoveaStitch, gst_fovea_stitch, GST_TYPE_VIDEO_AGGREGATOR)

/* Camera index of a pad named sink_N; -1 for another name. */
int stitch_pad_camera(GstPad *pad)
{
    unsigned idx;
    char tail;
    if (sscanf(GST_OBJECT_NAME(pad), "sink_%u%c", &idx, &tail) != 1 ||
        idx >= FOVEA_STITCH_MAX_CAMERAS)
        return -1;
    return (int)idx;
}

static void pad_forget(GstFoveaStitchPad *p)
{
    gst_buffer_replace(&p->last, NULL);
    p->repeats = 0;
    p->missing = FALSE;
    p->use = USE_CURRENT;
}

static GstFlowReturn pad_flush(GstAggregatorPad *aggpad, GstAggregator *agg)
{
    pad_forget(STITCH_PAD(aggpad));
    return GST_AGGREGATOR_PAD_CLASS(gst_fovea_stitch_pad_parent_class)->flush(aggpad, agg);
}

/* Inputs are mapped for the device when they are CUDA memory of the element's
 * context (no copy), for the CPU otherwise. */
static gboolean pad_prepare_frame(GstVideoAggregatorPad *vpad, GstVideoAggregator *vagg,
                                  GstBuffer *buf, GstVideoFrame *frame)
{
    GstFoveaStitchPad *p = STITCH_PAD(vpad);
    const gboolean dev = fovea_gst_cuda_buffer_is_ours(STITCH(vagg)->base.cuda, buf);
    p->mapped_device = dev;
    if (!gst_video_frame_map(frame, &vpad->info, buf,
                             GST_MAP_READ | (dev ? fovea_gst_cuda_map_flag() : 0))) {
        GST_WARNING_OBJECT(vpad, "cannot map the input buffer");
        return FALSE;
    }
    return TRUE;
}

static void pad_finalize(GObject *obj)
{
    pad_forget(STITCH_PAD(obj));
    G_OBJECT_CLASS(gst_fovea_stitch_pad_parent_class)->finalize(obj);
}

static void gst_fovea_stitch_pad_class_init(GstFoveaStitchPadClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = pad_finalize;
    GST_AGGREGATOR_PAD_CLASS(klass)->flush = pad_flush;
    GST_VIDEO_AGGREGATOR_PAD_CLASS(klass)->prepare_frame = pad_prepare_frame;
}

static void gst_fovea_stitch_pad_init(GstFoveaStitchPad *p)
{
    p->use = USE_CURRENT;
}

/* ------------------------------------------------------------------ properties */

static void stitch_set_property(GObject *obj, guint id, const GValue *v, GParamSpec *ps)
{
    GstFoveaStitch *self = STITCH(obj);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_RIG:
        g_free(self->rig);
        g_free(self->pto);
        self->rig = g_value_dup_string(v);
        break;
    case PROP_MAP:
        g_free(self->map_path);
        self->map_path = g_value_dup_string(v);
        break;
    case PROP_PTO:
        g_free(self->pto);
        self->pto = g_value_dup_string(v);
        break;
    case PROP_COLOR:
        g_free(self->color);
        self->color = g_value_dup_string(v);
        if (!self->color)
            self->color = g_strdup(DEFAULT_COLOR);
        break;
    case PROP_COLOR_INTERVAL: self->color_interval = g_value_get_int(v); break;
    case PROP_COLOR_SMOOTHING: self->color_smoothing = g_value_get_double(v); break;
    case PROP_DETERMINISTIC: self->deterministic = g_value_get_boolean(v); break;
    case PROP_MISSING: self->missing = (missing_policy)g_value_get_enum(v); break;
    case PROP_MAX_REPEAT: self->max_repeat = g_value_get_uint(v); break;
    case PROP_PHOTOMETRIC: self->photometric = g_value_get_boolean(v); break;
    default:
        if (!fovea_gst_base_set_property(&self->base, id, PROP_BACKEND, PROP_THREADS, v))
            G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void stitch_get_property(GObject *obj, guint id, GValue *v, GParamSpec *ps)
{
    GstFoveaStitch *self = STITCH(obj);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_RIG: g_value_set_string(v, self->rig); break;
    case PROP_MAP: g_value_set_string(v, self->map_path); break;
    case PROP_PTO: g_value_set_string(v, self->pto); break;
    case PROP_COLOR: g_value_set_string(v, self->color); break;
    case PROP_COLOR_INTERVAL: g_value_set_int(v, self->color_interval); break;
    case PROP_COLOR_SMOOTHING: g_value_set_double(v, self->color_smoothing); break;
    case PROP_DETERMINISTIC: g_value_set_boolean(v, self->deterministic); break;
    case PROP_MISSING: g_value_set_enum(v, self->missing); break;
    case PROP_MAX_REPEAT: g_value_set_uint(v, self->max_repeat); break;
    case PROP_PHOTOMETRIC: g_value_set_boolean(v, self->photometric); break;
    default:
        if (!fovea_gst_base_get_property(&self->base, id, PROP_BACKEND, PROP_THREADS, v))
            G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

/* ------------------------------------------------------------------ states */

static void free_black(GstFoveaStitch *self)
{
    for (int c = 0; c < FOVEA_STITCH_MAX_CAMERAS; c++)
        fovea_frame_free(self->base.ctx, &self->black[c]);
}

/* The color property: auto, off, or a corrections file (fixed:FILE or FILE).
 * @return FALSE after posting an error */
static gboolean load_color(GstFoveaStitch *self, const gchar *color)
{
    if (g_strcmp0(color, "auto") == 0) {
        self->color_mode = FOVEA_COLOR_AUTO;
        return TRUE;
    }
    if (g_strcmp0(color, "off") == 0) {
        self->color_mode = FOVEA_COLOR_OFF;
        return TRUE;
    }
    const gchar *path = g_str_has_prefix(color, "fixed:") ? color + 6 : color;
    gchar *err = NULL;
    gsize len = 0;
    gchar *text = *path ? fovea_gst_read_file(path, 1 << 20, &len, &err) : NULL;
    if (!text) {
        GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ,
                          ("color: %s", err ? err : "expected auto, off or a corrections file"),
                          ("color=%s", color));
        g_free(err);
        return FALSE;
    }
    const int st =
        fovea_color_corrections_from_json(self->base.ctx, text, len, self->ncam, self->fixed_cc);
    g_free(text);
    if (st < 0) {
        FOVEA_GST_ERROR(self, RESOURCE, READ, self->base.ctx, st, "color: %s", path);
        return FALSE;
    }
    self->color_mode = FOVEA_COLOR_FIXED;
    return TRUE;
}

static gboolean stitch_start(GstAggregator *agg)
{
    GstFoveaStitch *self = STITCH(agg);
    GST_OBJECT_LOCK(self);
    gchar *rig = g_strdup(self->rig), *map = g_strdup(self->map_path);
    gchar *pto = g_strdup(self->pto);
    gchar *color = g_strdup(self->color);
    GST_OBJECT_UNLOCK(self);
    gboolean ok = FALSE;
    int st;

    if ((rig != NULL) + (map != NULL) + (pto != NULL) != 1) {
        GST_ELEMENT_ERROR(
            self, RESOURCE, SETTINGS, ("set one of the rig, pto or map properties"),
            ("rig=%s pto=%s map=%s", GST_STR_NULL(rig), GST_STR_NULL(pto), GST_STR_NULL(map)));
        goto done;
    }
    const char *what = rig ? "rig" : pto ? "pto" : "map";
    if (pto) {
        fovea_rig *r = NULL;
        st = fovea_rig_open_pto(&r, self->base.ctx, pto);
        if (st >= 0)
            st = fovea_stitch_map_open_rig(&self->map, self->base.ctx, r, NULL, NULL);
        fovea_rig_close(&r);
    } else {
        st = rig ? fovea_stitch_map_open_rig_file(&self->map, self->base.ctx, rig)
                 : fovea_stitch_map_open_file(&self->map, self->base.ctx, map);
    }
    if (st < 0) {
        /* the library's message names the file */
        if (st == FOVEA_ERR_IO)
            FOVEA_GST_ERROR(self, RESOURCE, OPEN_READ, self->base.ctx, st, "%s", what);
        else
            FOVEA_GST_ERROR(self, RESOURCE, READ, self->base.ctx, st, "%s", what);
        goto done;
    }
    if (fovea_stitch_map_covers_any(self->map) <= 0) {
        GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
                          ("%s: no camera sees any pixel of the panorama (zero coverage): "
                           "nothing to stitch",
                           rig   ? rig
                           : pto ? pto
                                 : map),
                          (NULL));
        goto done;
    }
    fovea_stitch_map_geometry(self->map, &self->pano_w, &self->pano_h, &self->ncam);
    for (int c = 0; c < self->ncam; c++)
        fovea_stitch_map_camera_size(self->map, c, &self->cam_w[c], &self->cam_h[c]);
    if (!load_color(self, color))
        goto done;
    self->frames = 0;
    self->posted_any = FALSE;
    GST_INFO_OBJECT(self, "%d cameras -> %dx%d panorama", self->ncam, self->pano_w, self->pano_h);
    ok = GST_AGGREGATOR_CLASS(gst_fovea_stitch_parent_class)->start(agg);
done:
    g_free(rig);
    g_free(map);
    g_free(pto);
    g_free(color);
    if (!ok)
        fovea_stitch_map_close(&self->map);
    return ok;
}

static void forget_pads(GstFoveaStitch *self)
{
    GST_OBJECT_LOCK(self);
    for (GList *l = GST_ELEMENT(self)->sinkpads; l; l = l->next)
        pad_forget(STITCH_PAD(l->data));
    GST_OBJECT_UNLOCK(self);
}

static gboolean stitch_stop(GstAggregator *agg)
{
    GstFoveaStitch *self = STITCH(agg);
    forget_pads(self);
    fovea_stitcher_close(&self->st);
    free_black(self);
    fovea_stitch_map_close(&self->map);
    self->ncam = 0;
    return GST_AGGREGATOR_CLASS(gst_fovea_stitch_parent_class)->stop(agg);
}

static GstFlowReturn stitch_flush(GstAggregator *agg)
{
    GstFoveaStitch *self = STITCH(agg);
    self->frames = 0;
    return GST_AGGREGATOR_CLASS(gst_fovea_stitch_parent_class)->flush(agg);
}

static GstStateChangeReturn stitch_change_state(GstElement *el, GstStateChange t)
{
    return fovea_gst_base_change_state(&STITCH(el)->base, el, fovea_stitch_debug,
                                       GST_ELEMENT_CLASS(gst_fovea_stitch_parent_class), t);
}

/* ------------------------------------------------------------------ aggregating */

static GstClockTime output_running_time(GstAggregator *agg)
{
    GstSegment *seg = &GST_AGGREGATOR_PAD(agg->srcpad)->segment;
    GstClockTime t = seg->position;
    if (t == GST_CLOCK_TIME_NONE || t < seg->start)
        t = seg->start;
    return gst_segment_to_running_time(seg, GST_FORMAT_TIME, t);
}

/* Whether buf, the pad's current buffer, was already stitched and its time is
 * over (the aggregator keeps the last buffer of a late camera current). */
static gboolean is_stale(GstFoveaStitchPad *p, GstBuffer *buf, GstClockTime out_rt)
{
    if (buf != p->last)
        return FALSE;
    if (!GST_BUFFER_PTS_IS_VALID(buf) || !GST_BUFFER_DURATION_IS_VALID(buf) ||
        !GST_CLOCK_TIME_IS_VALID(out_rt))
        return TRUE;
    const GstSegment *seg = &GST_AGGREGATOR_PAD(p)->segment;
    const GstClockTime end = gst_segment_to_running_time(
        seg, GST_FORMAT_TIME, GST_BUFFER_PTS(buf) + GST_BUFFER_DURATION(buf));
    return !GST_CLOCK_TIME_IS_VALID(end) || end <= out_rt;
}

static void post_camera_message(GstFoveaStitch *self, int cam, gboolean missing, const char *action,
                                guint repeats)
{
    GstStructure *s =
        gst_structure_new("foveastitch-camera", "camera", G_TYPE_INT, cam, "missing",
                          G_TYPE_BOOLEAN, missing, "action", G_TYPE_STRING, action, "repeats",
                          G_TYPE_UINT, repeats, "frame", G_TYPE_UINT64, self->frames, NULL);
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

/* Which frame each camera gives to this output time (pad->use), by the
 * missing-camera policy. @return GST_FLOW_OK (*skip: no output this time),
 * GST_FLOW_EOS, or GST_FLOW_ERROR posted */
static GstFlowReturn choose_frames(GstFoveaStitch *self, gboolean *skip)
{
    GstAggregator *agg = GST_AGGREGATOR(self);
    GST_OBJECT_LOCK(self);
    const missing_policy policy = self->missing;
    const guint max_repeat = self->max_repeat;
    GST_OBJECT_UNLOCK(self);
    const GstClockTime out_rt = output_running_time(agg);
    *skip = FALSE;

    GstFoveaStitchPad *pads[FOVEA_STITCH_MAX_CAMERAS] = {NULL};
    int npads = 0;
    GST_OBJECT_LOCK(self);
    for (GList *l = GST_ELEMENT(self)->sinkpads; l; l = l->next) {
        const int c = stitch_pad_camera(l->data);
        npads++;
        if (c >= 0 && c < self->ncam && !pads[c])
            pads[c] = gst_object_ref(l->data);
    }
    GST_OBJECT_UNLOCK(self);
    GstFlowReturn ret = GST_FLOW_OK;
    int linked = 0;
    for (int c = 0; c < self->ncam; c++)
        linked += pads[c] != NULL;
    if (linked != self->ncam || npads != self->ncam) {
        GST_ELEMENT_ERROR(self, CORE, PAD,
                          ("the map has %d camera%s: link exactly the pads sink_0 .. sink_%d "
                           "(%d sink pad%s now)",
                           self->ncam, self->ncam == 1 ? "" : "s", self->ncam - 1, npads,
                           npads == 1 ? "" : "s"),
                          (NULL));
        ret = GST_FLOW_ERROR;
        goto done;
    }
    for (int c = 0; c < self->ncam && ret == GST_FLOW_OK; c++) {
        GstFoveaStitchPad *p = pads[c];
        GstBuffer *cur = gst_video_aggregator_pad_get_current_buffer(GST_VIDEO_AGGREGATOR_PAD(p));
        const gboolean fresh = cur && gst_buffer_get_size(cur) > 0 && !is_stale(p, cur, out_rt);
        if (fresh) {
            p->use = USE_CURRENT;
            if (p->missing)
                post_camera_message(self, c, FALSE, "fresh", p->repeats);
            p->missing = FALSE;
            continue;
        }
        const gboolean eos = gst_aggregator_pad_is_eos(GST_AGGREGATOR_PAD(p));
        switch (policy) {
        case MISSING_WAIT:
            if (eos) {
                GST_INFO_OBJECT(self, "camera %d ended: end of the panorama stream", c);
                ret = GST_FLOW_EOS;
            } else {
                GST_DEBUG_OBJECT(self, "camera %d has no frame in time: no output", c);
                *skip = TRUE;
            }
            break;
        case MISSING_BLACK:
            p->use = USE_BLACK;
            if (!p->missing)
                post_camera_message(self, c, TRUE, "black", 0);
            p->missing = TRUE;
            break;
        case MISSING_REPEAT:
            if (!p->last) {
                GST_ELEMENT_ERROR(self, STREAM, FAILED,
                                  ("camera %d: no frame for output frame %" G_GUINT64_FORMAT
                                   " and no earlier frame to repeat",
                                   c, self->frames),
                                  ("missing=repeat max-repeat=%u", max_repeat));
                ret = GST_FLOW_ERROR;
            } else if (p->repeats >= max_repeat) {
                GST_ELEMENT_ERROR(self, STREAM, FAILED,
                                  ("camera %d: no frame for output frame %" G_GUINT64_FORMAT
                                   "%s, and its last frame was already repeated %u time%s "
                                   "(max-repeat=%u)",
                                   c, self->frames, eos ? " (it ended)" : "", p->repeats,
                                   p->repeats == 1 ? "" : "s", max_repeat),
                                  (NULL));
                ret = GST_FLOW_ERROR;
            } else {
                p->use = USE_LAST;
                p->repeats++;
                GST_DEBUG_OBJECT(self, "camera %d: repeating its last frame (%u/%u)", c, p->repeats,
                                 max_repeat);
                post_camera_message(self, c, TRUE, "repeat", p->repeats);
                p->missing = TRUE;
            }
            break;
        }
    }
done:
    for (int c = 0; c < FOVEA_STITCH_MAX_CAMERAS; c++)
        if (pads[c])
            gst_object_unref(pads[c]);
    return ret;
}

static GstFlowReturn stitch_create_output_buffer(GstVideoAggregator *vagg, GstBuffer **outbuf)
{
    GstFoveaStitch *self = STITCH(vagg);
    gboolean skip = FALSE;
    *outbuf = NULL;
    GstFlowReturn ret = choose_frames(self, &skip);
    if (ret != GST_FLOW_OK || skip)
        return ret;
    return GST_VIDEO_AGGREGATOR_CLASS(gst_fovea_stitch_parent_class)
        ->create_output_buffer(vagg, outbuf);
}

/* Black camera frames (host memory) in the stitch format. */
static gboolean ensure_black(GstFoveaStitch *self, int c, fovea_pixfmt fmt, int full_range)
{
    fovea_frame *f = &self->black[c];
    if (f->buf && f->fmt == fmt)
        return TRUE;
    fovea_frame_free(self->base.ctx, f);
    const int st =
        fovea_frame_alloc(self->base.ctx, f, self->cam_w[c], self->cam_h[c], fmt, FOVEA_MEM_HOST);
    if (st < 0) {
        FOVEA_GST_ERROR(self, RESOURCE, NO_SPACE_LEFT, self->base.ctx, st, "camera %d: black frame",
                        c);
        return FALSE;
    }
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    for (int p = 0; p < d->planes; p++) {
        const int w = fovea_plane_width(fmt, f->width, p),
                  h = fovea_plane_height(fmt, f->height, p);
        const size_t row = fovea_plane_row_bytes(fmt, f->width, p);
        for (int y = 0; y < h; y++) {
            uint8_t *r = f->data[p] + (ptrdiff_t)y * f->stride[p];
            if (d->is_rgb) {
                memset(r, 0, row);
                if (d->components == 4)
                    for (int x = 0; x < w; x++)
                        r[4 * x + 3] = 255;
            } else {
                memset(r, p == 0 ? (full_range ? 0 : 16) : 128, row);
            }
        }
    }
    return TRUE;
}

/* The stitcher for these inputs (made again when their format or YUV
 * conventions change). */
static gboolean ensure_stitcher(GstFoveaStitch *self, const GstVideoInfo *in)
{
    const fovea_pixfmt fmt = fovea_gst_pixfmt(GST_VIDEO_INFO_FORMAT(in));
    const fovea_colorspace cs =
        in->colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT709 ? FOVEA_CS_BT709 : FOVEA_CS_BT601;
    const int full = in->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
    if (self->st && self->st_fmt == fmt && self->st_cs == cs && self->st_full == full)
        return TRUE;
    fovea_stitcher_close(&self->st);
    fovea_stitcher_settings ss;
    fovea_stitcher_default_settings(&ss);
    GST_OBJECT_LOCK(self);
    ss.color = self->color_mode;
    ss.auto_interval = self->color_interval;
    ss.auto_smoothing = (float)self->color_smoothing;
    ss.deterministic = self->color_mode == FOVEA_COLOR_AUTO && self->deterministic;
    ss.ignore_photometric = !self->photometric;
    GST_OBJECT_UNLOCK(self);
    ss.yuv_colorspace = cs;
    ss.yuv_full_range = full;
    int st = fovea_stitcher_open(&self->st, self->base.ctx, self->map, &ss);
    if (st == FOVEA_OK && self->color_mode == FOVEA_COLOR_FIXED)
        st = fovea_stitcher_set_color(self->st, self->fixed_cc, self->ncam);
    if (st < 0) {
        FOVEA_GST_ERROR(self, LIBRARY, INIT, self->base.ctx, st, "cannot create the stitcher");
        fovea_stitcher_close(&self->st);
        return FALSE;
    }
    self->st_fmt = fmt;
    self->st_cs = cs;
    self->st_full = full;
    GST_INFO_OBJECT(self, "stitching %s (%s, %s range), color %s", fovea_pixfmt_name(fmt),
                    cs == FOVEA_CS_BT709 ? "bt709" : "bt601", full ? "full" : "limited",
                    ss.color == FOVEA_COLOR_AUTO  ? "auto"
                    : ss.color == FOVEA_COLOR_OFF ? "off"
                                                  : "fixed");
    return TRUE;
}

static void set_double_array(GstStructure *s, const char *field, const double *v, int n)
{
    GValue arr = G_VALUE_INIT, item = G_VALUE_INIT;
    gst_value_array_init(&arr, (guint)n);
    g_value_init(&item, G_TYPE_DOUBLE);
    for (int i = 0; i < n; i++) {
        g_value_set_double(&item, v[i]);
        gst_value_array_append_value(&arr, &item);
    }
    g_value_unset(&item);
    gst_structure_take_value(s, field, &arr);
}

/* The corrections the next frame is stitched with, posted (frame = that
 * frame's number) when they differ from those posted last. */
static void post_color(GstFoveaStitch *self, GstClockTime pts)
{
    fovea_color_correction cc[FOVEA_STITCH_MAX_CAMERAS];
    if (fovea_stitcher_get_color(self->st, cc, self->ncam) < 0)
        return;
    if (self->posted_any && memcmp(cc, self->posted_cc, sizeof(cc[0]) * (size_t)self->ncam) == 0)
        return;
    memcpy(self->posted_cc, cc, sizeof(cc[0]) * (size_t)self->ncam);
    self->posted_any = TRUE;
    double gains[3 * FOVEA_STITCH_MAX_CAMERAS], gammas[FOVEA_STITCH_MAX_CAMERAS];
    for (int c = 0; c < self->ncam; c++) {
        for (int k = 0; k < 3; k++)
            gains[3 * c + k] = cc[c].gain[k];
        gammas[c] = cc[c].gamma;
    }
    char *json = fovea_color_corrections_to_json(cc, self->ncam);
    GstStructure *s =
        gst_structure_new("foveastitch-color", "frame", G_TYPE_UINT64, self->frames, "timestamp",
                          G_TYPE_UINT64, (guint64)pts, "cameras", G_TYPE_INT, self->ncam, "json",
                          G_TYPE_STRING, json ? json : "", NULL);
    free(json);
    set_double_array(s, "gains", gains, 3 * self->ncam);
    set_double_array(s, "gammas", gammas, self->ncam);
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

static GstFlowReturn stitch_aggregate_frames(GstVideoAggregator *vagg, GstBuffer *outbuf)
{
    GstFoveaStitch *self = STITCH(vagg);
    GstFoveaStitchPad *pads[FOVEA_STITCH_MAX_CAMERAS] = {NULL};
    GstVideoFrame own[FOVEA_STITCH_MAX_CAMERAS]; /* repeats, mapped here */
    gboolean own_mapped[FOVEA_STITCH_MAX_CAMERAS] = {FALSE};
    fovea_frame in[FOVEA_STITCH_MAX_CAMERAS];
    const fovea_frame *inp[FOVEA_STITCH_MAX_CAMERAS];
    GstVideoFrame of;
    gboolean out_mapped = FALSE;
    GstFlowReturn ret = GST_FLOW_ERROR;
    const int dev = fovea_context_device(self->base.ctx);

    GST_OBJECT_LOCK(self);
    for (GList *l = GST_ELEMENT(self)->sinkpads; l; l = l->next) {
        const int c = stitch_pad_camera(l->data);
        if (c >= 0 && c < self->ncam && !pads[c])
            pads[c] = gst_object_ref(l->data);
    }
    GST_OBJECT_UNLOCK(self);

    /* the format and conventions: those of a camera's caps */
    const GstVideoInfo *info = NULL;
    for (int c = 0; c < self->ncam && !info; c++)
        if (pads[c] && GST_VIDEO_AGGREGATOR_PAD(pads[c])->info.finfo &&
            GST_VIDEO_INFO_FORMAT(&GST_VIDEO_AGGREGATOR_PAD(pads[c])->info) !=
                GST_VIDEO_FORMAT_UNKNOWN)
            info = &GST_VIDEO_AGGREGATOR_PAD(pads[c])->info;
    if (!info || !ensure_stitcher(self, info))
        goto done;
    const int full = info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;

    for (int c = 0; c < self->ncam; c++) {
        GstFoveaStitchPad *p = pads[c];
        if (!p)
            goto done;
        GstVideoAggregatorPad *vp = GST_VIDEO_AGGREGATOR_PAD(p);
        switch (p->use) {
        case USE_CURRENT: {
            GstVideoFrame *vf = gst_video_aggregator_pad_get_prepared_frame(vp);
            if (!vf) {
                GST_ELEMENT_ERROR(self, STREAM, FAILED, ("camera %d: cannot map its frame", c),
                                  (NULL));
                goto done;
            }
            fovea_gst_wrap_frame(vf,
                                 p->mapped_device                         ? FOVEA_MEM_DEVICE
                                 : fovea_gst_buffer_is_pinned(vf->buffer) ? FOVEA_MEM_PINNED
                                                                          : FOVEA_MEM_HOST,
                                 dev, &in[c]);
            gst_buffer_replace(&p->last, gst_video_aggregator_pad_get_current_buffer(vp));
            p->last_info = vp->info;
            p->repeats = 0;
            break;
        }
        case USE_LAST: {
            const gboolean d = fovea_gst_cuda_buffer_is_ours(self->base.cuda, p->last);
            if (!gst_video_frame_map(&own[c], &p->last_info, p->last,
                                     GST_MAP_READ | (d ? fovea_gst_cuda_map_flag() : 0))) {
                GST_ELEMENT_ERROR(self, STREAM, FAILED, ("camera %d: cannot map its last frame", c),
                                  (NULL));
                goto done;
            }
            own_mapped[c] = TRUE;
            fovea_gst_wrap_frame(&own[c],
                                 d                                     ? FOVEA_MEM_DEVICE
                                 : fovea_gst_buffer_is_pinned(p->last) ? FOVEA_MEM_PINNED
                                                                       : FOVEA_MEM_HOST,
                                 dev, &in[c]);
            break;
        }
        case USE_BLACK:
            if (!ensure_black(self, c, self->st_fmt, full))
                goto done;
            in[c] = self->black[c];
            break;
        }
        inp[c] = &in[c];
    }

    if (!gst_video_frame_map(&of, &vagg->info, outbuf,
                             GST_MAP_WRITE | (self->out_cuda ? fovea_gst_cuda_map_flag() : 0))) {
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("cannot map the output buffer"), (NULL));
        goto done;
    }
    out_mapped = TRUE;
    fovea_frame out;
    fovea_gst_wrap_frame(&of,
                         self->out_cuda                       ? FOVEA_MEM_DEVICE
                         : fovea_gst_buffer_is_pinned(outbuf) ? FOVEA_MEM_PINNED
                                                              : FOVEA_MEM_HOST,
                         dev, &out);
    int st = FOVEA_OK;
    /* color=auto: the first frame balanced with its own measurement, as a
     * still is (the message below then carries the corrections it gets) */
    if (self->frames == 0 && self->color_mode == FOVEA_COLOR_AUTO && self->ncam > 1)
        st = fovea_stitcher_analyze(self->st, inp, self->ncam, 1, NULL);
    post_color(self, GST_BUFFER_PTS(outbuf));
    if (st == FOVEA_OK)
        st = fovea_stitcher_process(self->st, inp, self->ncam, &out);
    if (st == FOVEA_OK && self->out_cuda)
        st = fovea_sync(self->base.ctx); /* the device output complete before downstream reads it */
    if (st < 0) {
        FOVEA_GST_ERROR(self, STREAM, FAILED, self->base.ctx, st,
                        "frame %" G_GUINT64_FORMAT ": stitching failed", self->frames);
        goto done;
    }
    self->frames++;
    ret = GST_FLOW_OK;
done:
    if (out_mapped)
        gst_video_frame_unmap(&of);
    for (int c = 0; c < FOVEA_STITCH_MAX_CAMERAS; c++) {
        if (own_mapped[c])
            gst_video_frame_unmap(&own[c]);
        if (pads[c])
            gst_object_unref(pads[c]);
    }
    return ret;
}

/* ------------------------------------------------------------------ class */

static void stitch_finalize(GObject *obj)
{
    GstFoveaStitch *self = STITCH(obj);
    /* after a failed start the state changes that close them may not run */
    fovea_stitcher_close(&self->st);
    fovea_stitch_map_close(&self->map);
    free_black(self);
    fovea_gst_base_close(&self->base);
    g_free(self->rig);
    g_free(self->map_path);
    g_free(self->color);
    G_OBJECT_CLASS(gst_fovea_stitch_parent_class)->finalize(obj);
}

static void gst_fovea_stitch_class_init(GstFoveaStitchClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GstElementClass *ec = GST_ELEMENT_CLASS(klass);
    GstAggregatorClass *ac = GST_AGGREGATOR_CLASS(klass);
    GstVideoAggregatorClass *vc = GST_VIDEO_AGGREGATOR_CLASS(klass);

    GST_DEBUG_CATEGORY_INIT(fovea_stitch_debug, "foveastitch", 0, "fovea panorama stitcher");

    oc->set_property = stitch_set_property;
    oc->get_property = stitch_get_property;
    oc->finalize = stitch_finalize;

    const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
    g_object_class_install_property(
        oc, PROP_RIG,
        g_param_spec_string("rig", "Rig",
                            "rig JSON file (docs/rig.md); the map is built when "
                            "the element starts",
                            NULL, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_MAP,
        g_param_spec_string("map", "Map",
                            "map file (fovea rig check --save-map, fovea map "
                            "import) instead of a rig",
                            NULL, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_PTO,
        g_param_spec_string("pto", "Hugin project",
                            "Hugin project (.pto, docs/stitch.md) instead of a rig; "
                            "the map is built when the element starts",
                            NULL, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_COLOR,
        g_param_spec_string("color", "Color",
                            "color correction: auto (measured in the "
                            "overlaps), off, or a corrections JSON file (fixed:FILE or FILE, "
                            "{\"cameras\":[{\"gain\":[r,g,b],\"gamma\":g},...]})",
                            DEFAULT_COLOR, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_COLOR_INTERVAL,
        g_param_spec_int("color-interval", "Color interval",
                         "with color=auto, measure the overlaps every K frames", 1, 1000000,
                         DEFAULT_COLOR_INTERVAL, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_COLOR_SMOOTHING,
        g_param_spec_double("color-smoothing", "Color smoothing",
                            "with color=auto, move the corrections this part of the way to "
                            "each measurement",
                            1e-6, 1.0, DEFAULT_COLOR_SMOOTHING, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_DETERMINISTIC,
        g_param_spec_boolean("deterministic", "Deterministic",
                             "with color=auto, measure synchronously (frame n measured, "
                             "applied from n+1) so that runs and backends agree",
                             FALSE, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_MISSING,
        g_param_spec_enum(
            "missing", "Missing camera", "what a camera without a frame for an output time gets",
            missing_policy_get_type(), DEFAULT_MISSING, rw | GST_PARAM_MUTABLE_PLAYING));
    g_object_class_install_property(
        oc, PROP_MAX_REPEAT,
        g_param_spec_uint("max-repeat", "Max repeat",
                          "with missing=repeat, the most times in a row a camera's last frame "
                          "is reused before the element fails",
                          0, G_MAXUINT, DEFAULT_MAX_REPEAT, rw | GST_PARAM_MUTABLE_PLAYING));
    g_object_class_install_property(
        oc, PROP_PHOTOMETRIC,
        g_param_spec_boolean("photometric", "Photometric",
                             "apply a Hugin project's exposure, white balance, vignetting and "
                             "response (pto; RGB formats) as nona does; false ignores them",
                             TRUE, rw | GST_PARAM_MUTABLE_READY));
    fovea_gst_install_backend_properties(oc, PROP_BACKEND, PROP_THREADS);

    gst_element_class_set_static_metadata(
        ec, "fovea panorama stitcher", "Filter/Editor/Video/Compositor",
        "Stitches synchronized cameras (sink_0 = the rig's camera 0, ...) into a panorama: "
        "bilinear remap, feathered blending, color balance",
        "fovea");
    stitch_caps_class_init(klass); /* pad templates, caps and allocation */

    ec->change_state = stitch_change_state;
    ac->start = stitch_start;
    ac->stop = stitch_stop;
    ac->flush = stitch_flush;
    vc->create_output_buffer = stitch_create_output_buffer;
    vc->aggregate_frames = stitch_aggregate_frames;

    gst_type_mark_as_plugin_api(missing_policy_get_type(), 0);
    gst_type_mark_as_plugin_api(gst_fovea_stitch_pad_get_type(), 0);
}

static void gst_fovea_stitch_init(GstFoveaStitch *self)
{
    self->color = g_strdup(DEFAULT_COLOR);
    self->color_interval = DEFAULT_COLOR_INTERVAL;
    self->color_smoothing = DEFAULT_COLOR_SMOOTHING;
    self->missing = DEFAULT_MISSING;
    self->max_repeat = DEFAULT_MAX_REPEAT;
    self->photometric = TRUE;
    fovea_gst_base_init(&self->base, FALSE);
}
