/* foveavmaf: scores the distorted stream (sink pad "dis") against the
 * reference (sink pad "ref") frame by frame with libvmaf's integer VIF, posts
 * the scores of each frame as an element message, writes them with libvmaf's
 * pooling in libvmaf's JSON layout (that of `fovea vif --json`) to `location`
 * at the end of the stream, and passes the distorted frames on unchanged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <gst/base/gstaggregator.h>

#include "common.h"
#include "cuda.h"
#include "elements.h"
#include "fovea/io.h"
#include "fovea/quality.h"

GST_DEBUG_CATEGORY_STATIC(fovea_vmaf_debug);
#define GST_CAT_DEFAULT fovea_vmaf_debug

#define MAX_METRICS 64

enum { PROP_0, PROP_LOCATION, PROP_GAIN_LIMIT, PROP_BACKEND, PROP_THREADS };

/* One frame's scores as posted and written. */
typedef struct {
    guint64 frame;
    GstClockTime pts;
    double v[MAX_METRICS];
} score_row;

typedef struct {
    GstAggregator parent;
    GstAggregatorPad *ref, *dis;

    /* properties (object lock) */
    gchar *location;
    gdouble gain_limit;
    fovea_backend backend;
    gint threads;

    /* READY and above */
    fovea_context *ctx;
    fovea_gst_cuda *cuda;
    /* PAUSED and above (the aggregating thread's) */
    fovea_vif *vif;
    GstVideoInfo ref_info, dis_info;
    gboolean have_ref_info, have_dis_info;
    int nmetrics;
    char names[MAX_METRICS][64];
    GArray *rows;             /* score_row, every frame scored */
    guint64 passed_unscored;  /* distorted frames without a reference */
    guint64 ref_dropped;      /* reference frames without a distorted one */
    gboolean warned_ref_end;
    gboolean finished;        /* the JSON was written (or not wanted) */
    GstSegment out_segment;   /* the distorted pad's segment, forwarded */
    gint64 t_first, t_last;   /* monotonic time of the first and last score */
} GstFoveaVmaf;

typedef struct {
    GstAggregatorClass parent_class;
} GstFoveaVmafClass;

G_DEFINE_TYPE(GstFoveaVmaf, gst_fovea_vmaf, GST_TYPE_AGGREGATOR)

#define VMAF(obj) ((GstFoveaVmaf *)(obj))

/* Luma of any YUV or gray layout, 8 to 16 bits: what the scores read. */
static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_I420,      GST_VIDEO_FORMAT_NV12,      GST_VIDEO_FORMAT_Y42B,
    GST_VIDEO_FORMAT_Y444,      GST_VIDEO_FORMAT_GRAY8,     GST_VIDEO_FORMAT_I420_10LE,
    GST_VIDEO_FORMAT_I422_10LE, GST_VIDEO_FORMAT_Y444_10LE, GST_VIDEO_FORMAT_I420_12LE,
    GST_VIDEO_FORMAT_I422_12LE, GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_16LE,
    GST_VIDEO_FORMAT_GRAY16_LE,
};

#define MIN_SIDE 16

/* ------------------------------------------------------------------ properties */

static void vmaf_set_property(GObject *obj, guint id, const GValue *v, GParamSpec *ps)
{
    GstFoveaVmaf *self = VMAF(obj);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_LOCATION:
        g_free(self->location);
        self->location = g_value_dup_string(v);
        break;
    case PROP_GAIN_LIMIT:
        self->gain_limit = g_value_get_double(v);
        break;
    case PROP_BACKEND:
        self->backend = (fovea_backend)g_value_get_enum(v);
        break;
    case PROP_THREADS:
        self->threads = g_value_get_int(v);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void vmaf_get_property(GObject *obj, guint id, GValue *v, GParamSpec *ps)
{
    GstFoveaVmaf *self = VMAF(obj);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_LOCATION:
        g_value_set_string(v, self->location);
        break;
    case PROP_GAIN_LIMIT:
        g_value_set_double(v, self->gain_limit);
        break;
    case PROP_BACKEND:
        g_value_set_enum(v, self->backend);
        break;
    case PROP_THREADS:
        g_value_set_int(v, self->threads);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

/* ------------------------------------------------------------------ states */

static GstStateChangeReturn vmaf_change_state(GstElement *el, GstStateChange t)
{
    GstFoveaVmaf *self = VMAF(el);
    if (t == GST_STATE_CHANGE_NULL_TO_READY) {
        GST_OBJECT_LOCK(self);
        const fovea_backend b = self->backend;
        const int threads = self->threads;
        GST_OBJECT_UNLOCK(self);
        self->ctx = fovea_gst_open_context(el, fovea_vmaf_debug, b, threads);
        if (!self->ctx)
            return GST_STATE_CHANGE_FAILURE;
        self->cuda = fovea_gst_cuda_open(el, self->ctx);
        fovea_gst_cuda_announce(self->cuda, el);
    }
    GstStateChangeReturn ret = GST_ELEMENT_CLASS(gst_fovea_vmaf_parent_class)->change_state(el, t);
    if (t == GST_STATE_CHANGE_READY_TO_NULL) {
        fovea_gst_cuda_close(&self->cuda);
        fovea_close(&self->ctx);
    }
    return ret;
}

static void reset_stream(GstFoveaVmaf *self)
{
    g_array_set_size(self->rows, 0);
    self->passed_unscored = 0;
    self->ref_dropped = 0;
    self->warned_ref_end = FALSE;
    self->finished = FALSE;
    self->t_first = self->t_last = 0;
    gst_segment_init(&self->out_segment, GST_FORMAT_UNDEFINED);
    if (self->vif)
        fovea_vif_reset(self->vif);
}

static gboolean vmaf_start(GstAggregator *agg)
{
    GstFoveaVmaf *self = VMAF(agg);
    fovea_vif_settings vs;
    fovea_vif_default_settings(&vs);
    GST_OBJECT_LOCK(self);
    vs.vif_enhn_gain_limit = self->gain_limit;
    GST_OBJECT_UNLOCK(self);
    const int st = fovea_vif_open(&self->vif, self->ctx, &vs);
    if (st < 0) {
        FOVEA_GST_ERROR(self, LIBRARY, INIT, self->ctx, st, "cannot create the VIF scorer");
        return FALSE;
    }
    self->nmetrics = FOVEA_VIF_SCALES;
    for (int k = 0; k < FOVEA_VIF_SCALES; k++)
        snprintf(self->names[k], sizeof(self->names[k]), "integer_vif_scale%d", k);
    self->have_ref_info = self->have_dis_info = FALSE;
    reset_stream(self);
    return TRUE;
}

static gboolean vmaf_stop(GstAggregator *agg)
{
    GstFoveaVmaf *self = VMAF(agg);
    fovea_vif_close(&self->vif);
    return TRUE;
}

/* ------------------------------------------------------------------ caps */

static GstCaps *pad_caps(GstFoveaVmaf *self, GstAggregatorPad *pad)
{
    GstCaps *caps = fovea_gst_raw_caps(formats, G_N_ELEMENTS(formats), self->cuda != NULL);
    gst_caps_set_simple(caps, "width", GST_TYPE_INT_RANGE, MIN_SIDE, FOVEA_MAX_DIM, "height",
                        GST_TYPE_INT_RANGE, MIN_SIDE, FOVEA_MAX_DIM, NULL);
    /* the other pad's size, once known */
    const GstVideoInfo *other = pad == self->ref ? (self->have_dis_info ? &self->dis_info : NULL)
                                                 : (self->have_ref_info ? &self->ref_info : NULL);
    if (other)
        gst_caps_set_simple(caps, "width", G_TYPE_INT, GST_VIDEO_INFO_WIDTH(other), "height",
                            G_TYPE_INT, GST_VIDEO_INFO_HEIGHT(other), NULL);
    if (pad == self->dis) {
        /* the distorted frames go on unchanged: what downstream takes too */
        GstCaps *down = gst_pad_peer_query_caps(GST_AGGREGATOR_SRC_PAD(self), caps);
        gst_caps_unref(caps);
        caps = down;
    }
    return caps;
}

static gboolean vmaf_sink_query(GstAggregator *agg, GstAggregatorPad *pad, GstQuery *query)
{
    GstFoveaVmaf *self = VMAF(agg);
    switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CAPS: {
        GstCaps *caps = pad_caps(self, pad), *filter = NULL;
        gst_query_parse_caps(query, &filter);
        if (filter) {
            GstCaps *t = gst_caps_intersect_full(filter, caps, GST_CAPS_INTERSECT_FIRST);
            gst_caps_unref(caps);
            caps = t;
        }
        gst_query_set_caps_result(query, caps);
        gst_caps_unref(caps);
        return TRUE;
    }
    case GST_QUERY_ACCEPT_CAPS: {
        GstCaps *caps = NULL;
        gst_query_parse_accept_caps(query, &caps);
        GstCaps *ours = pad_caps(self, pad);
        gst_query_set_accept_caps_result(query, gst_caps_is_subset(caps, ours));
        gst_caps_unref(ours);
        return TRUE;
    }
    case GST_QUERY_ALLOCATION:
        /* the distorted frames are pushed on: downstream's pool suits them */
        if (pad == self->dis)
            return gst_pad_peer_query(GST_AGGREGATOR_SRC_PAD(self), query);
        break;
    case GST_QUERY_CONTEXT:
        if (fovea_gst_cuda_handle_query(self->cuda, GST_ELEMENT(self), query))
            return TRUE;
        break;
    default:
        break;
    }
    return GST_AGGREGATOR_CLASS(gst_fovea_vmaf_parent_class)->sink_query(agg, pad, query);
}

static gboolean vmaf_src_query(GstAggregator *agg, GstQuery *query)
{
    GstFoveaVmaf *self = VMAF(agg);
    if (GST_QUERY_TYPE(query) == GST_QUERY_CAPS) {
        /* what the distorted input can be */
        GstCaps *filter = NULL;
        gst_query_parse_caps(query, &filter);
        GstCaps *caps = gst_pad_peer_query_caps(GST_PAD(self->dis), filter);
        GstCaps *tmpl = gst_pad_get_pad_template_caps(GST_AGGREGATOR_SRC_PAD(self));
        GstCaps *res = gst_caps_intersect(caps, tmpl);
        gst_caps_unref(caps);
        gst_caps_unref(tmpl);
        gst_query_set_caps_result(query, res);
        gst_caps_unref(res);
        return TRUE;
    }
    if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
        fovea_gst_cuda_handle_query(self->cuda, GST_ELEMENT(self), query))
        return TRUE;
    return GST_AGGREGATOR_CLASS(gst_fovea_vmaf_parent_class)->src_query(agg, query);
}

/* The two inputs must agree in size and bit depth. */
static gboolean check_pair(GstFoveaVmaf *self)
{
    if (!self->have_ref_info || !self->have_dis_info)
        return TRUE;
    const GstVideoInfo *r = &self->ref_info, *d = &self->dis_info;
    if (GST_VIDEO_INFO_WIDTH(r) != GST_VIDEO_INFO_WIDTH(d) ||
        GST_VIDEO_INFO_HEIGHT(r) != GST_VIDEO_INFO_HEIGHT(d)) {
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                          ("ref is %dx%d but dis is %dx%d: the scores need equal sizes",
                           GST_VIDEO_INFO_WIDTH(r), GST_VIDEO_INFO_HEIGHT(r),
                           GST_VIDEO_INFO_WIDTH(d), GST_VIDEO_INFO_HEIGHT(d)),
                          (NULL));
        return FALSE;
    }
    if (GST_VIDEO_INFO_COMP_DEPTH(r, 0) != GST_VIDEO_INFO_COMP_DEPTH(d, 0)) {
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                          ("ref is %u-bit but dis is %u-bit: the scores need equal bit depths",
                           GST_VIDEO_INFO_COMP_DEPTH(r, 0), GST_VIDEO_INFO_COMP_DEPTH(d, 0)),
                          (NULL));
        return FALSE;
    }
    return TRUE;
}

static gboolean vmaf_sink_event(GstAggregator *agg, GstAggregatorPad *pad, GstEvent *event)
{
    GstFoveaVmaf *self = VMAF(agg);
    if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
        GstCaps *caps;
        GstVideoInfo info;
        gst_event_parse_caps(event, &caps);
        if (!gst_video_info_from_caps(&info, caps) ||
            fovea_gst_pixfmt(GST_VIDEO_INFO_FORMAT(&info)) == FOVEA_PIX_NONE) {
            GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                              ("%s: unsupported caps (YUV or gray, 8 to 16 bits)",
                               GST_PAD_NAME(pad)),
                              ("%" GST_PTR_FORMAT, caps));
            gst_event_unref(event);
            return FALSE;
        }
        if (pad == self->ref) {
            self->ref_info = info;
            self->have_ref_info = TRUE;
        } else {
            self->dis_info = info;
            self->have_dis_info = TRUE;
            gst_pad_mark_reconfigure(GST_AGGREGATOR_SRC_PAD(self));
        }
        gst_event_unref(event);
        return check_pair(self);
    }
    return GST_AGGREGATOR_CLASS(gst_fovea_vmaf_parent_class)->sink_event(agg, pad, event);
}

static GstFlowReturn vmaf_update_src_caps(GstAggregator *agg, GstCaps *downstream, GstCaps **ret)
{
    GstFoveaVmaf *self = VMAF(agg);
    GstCaps *dis = gst_pad_get_current_caps(GST_PAD(self->dis));
    if (!dis)
        return GST_AGGREGATOR_FLOW_NEED_DATA;
    *ret = gst_caps_intersect(downstream, dis);
    gst_caps_unref(dis);
    return GST_FLOW_OK;
}

/* ------------------------------------------------------------------ scoring */

static GstClockTime running_time(GstAggregatorPad *pad, GstBuffer *buf)
{
    if (!GST_BUFFER_PTS_IS_VALID(buf))
        return GST_CLOCK_TIME_NONE;
    return gst_segment_to_running_time(&pad->segment, GST_FORMAT_TIME, GST_BUFFER_PTS(buf));
}

static void post_scores(GstFoveaVmaf *self, const score_row *row, GstClockTime rt)
{
    GstStructure *s = gst_structure_new("foveavmaf", "frame", G_TYPE_UINT64, row->frame,
                                        "timestamp", G_TYPE_UINT64, (guint64)row->pts,
                                        "running-time", G_TYPE_UINT64, (guint64)rt, NULL);
    for (int k = 0; k < self->nmetrics; k++)
        gst_structure_set(s, self->names[k], G_TYPE_DOUBLE, row->v[k], NULL);
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

static gboolean map_input(GstFoveaVmaf *self, GstVideoFrame *vf, const GstVideoInfo *info,
                          GstBuffer *buf, fovea_frame *out)
{
    const gboolean dev = fovea_gst_cuda_buffer_is_ours(self->cuda, buf);
    if (!gst_video_frame_map(vf, info, buf, GST_MAP_READ | (dev ? fovea_gst_cuda_map_flag() : 0)))
        return FALSE;
    fovea_gst_wrap_frame(vf, dev ? FOVEA_MEM_DEVICE : FOVEA_MEM_HOST,
                         fovea_context_device(self->ctx), out);
    return TRUE;
}

/* Score one pair and post its scores. @return FALSE after posting an error */
static gboolean score_pair(GstFoveaVmaf *self, GstBuffer *rbuf, GstBuffer *dbuf, GstClockTime rt)
{
    GstVideoFrame rf, df;
    fovea_frame r, d;
    if (!map_input(self, &rf, &self->ref_info, rbuf, &r)) {
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("cannot map a reference frame"), (NULL));
        return FALSE;
    }
    if (!map_input(self, &df, &self->dis_info, dbuf, &d)) {
        gst_video_frame_unmap(&rf);
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("cannot map a distorted frame"), (NULL));
        return FALSE;
    }
    fovea_vif_scores sc;
    const int st = fovea_vif_process(self->vif, &r, &d, &sc);
    gst_video_frame_unmap(&rf);
    gst_video_frame_unmap(&df);
    if (st < 0) {
        FOVEA_GST_ERROR(self, STREAM, FAILED, self->ctx, st, "frame %u", self->rows->len);
        return FALSE;
    }
    score_row row;
    memset(&row, 0, sizeof(row));
    row.frame = self->rows->len;
    row.pts = GST_BUFFER_PTS(dbuf);
    for (int k = 0; k < FOVEA_VIF_SCALES; k++)
        row.v[k] = sc.scale[k];
    g_array_append_val(self->rows, row);
    if (self->rows->len == 1)
        self->t_first = g_get_monotonic_time();
    self->t_last = g_get_monotonic_time();
    post_scores(self, &row, rt);
    return TRUE;
}

/* ------------------------------------------------------------------ the JSON */

static cJSON *json_number(double x)
{
    if (!isfinite(x))
        return cJSON_CreateNull();
    char buf[64];
    snprintf(buf, sizeof(buf), "%.17g", x);
    return cJSON_CreateRaw(buf);
}

/* libvmaf's layout, as `fovea vif --json` writes it. @return FALSE after posting an error */
static gboolean write_json(GstFoveaVmaf *self, const gchar *path)
{
    const guint n = self->rows->len;
    const score_row *rows = (const score_row *)(void *)self->rows->data;
    fovea_vif_pooled_scores pl;
    fovea_vif_pooled(self->vif, &pl);
    const double secs = (double)(self->t_last - self->t_first) / 1e6;
    cJSON *root = cJSON_CreateObject();
    char ver[64];
    snprintf(ver, sizeof(ver), "fovea %s", fovea_version());
    cJSON_AddStringToObject(root, "version", ver);
    cJSON_AddNumberToObject(root, "fps", secs > 0 && n > 1 ? (double)(n - 1) / secs : 0.0);
    cJSON *frames = cJSON_AddArrayToObject(root, "frames");
    for (guint i = 0; frames && i < n; i++) {
        cJSON *fr = cJSON_CreateObject();
        cJSON_AddItemToArray(frames, fr);
        cJSON_AddNumberToObject(fr, "frameNum", (double)i);
        cJSON *m = cJSON_AddObjectToObject(fr, "metrics");
        for (int k = 0; m && k < self->nmetrics; k++)
            cJSON_AddItemToObject(m, self->names[k], json_number(rows[i].v[k]));
    }
    cJSON *pooled = cJSON_AddObjectToObject(root, "pooled_metrics");
    for (int k = 0; pooled && n > 0 && k < self->nmetrics; k++) {
        cJSON *o = cJSON_AddObjectToObject(pooled, self->names[k]);
        cJSON_AddItemToObject(o, "min", json_number(pl.scale[k].min));
        cJSON_AddItemToObject(o, "max", json_number(pl.scale[k].max));
        cJSON_AddItemToObject(o, "mean", json_number(pl.scale[k].mean));
        cJSON_AddItemToObject(o, "harmonic_mean", json_number(pl.scale[k].harmonic_mean));
    }
    cJSON_AddObjectToObject(root, "aggregate_metrics");
    cJSON *fv = cJSON_AddObjectToObject(root, "fovea");
    if (fv) {
        cJSON_AddStringToObject(fv, "version", fovea_version());
        cJSON_AddStringToObject(fv, "feature", "vif (libvmaf integer VIF)");
        cJSON_AddStringToObject(fv, "backend",
                                fovea_backend_name(fovea_vif_backend(self->vif)));
        cJSON_AddNumberToObject(fv, "threads", fovea_context_threads(self->ctx));
        GST_OBJECT_LOCK(self);
        cJSON_AddItemToObject(fv, "vif_enhn_gain_limit", json_number(self->gain_limit));
        GST_OBJECT_UNLOCK(self);
        cJSON_AddBoolToObject(fv, "debug", 0);
        cJSON_AddStringToObject(fv, "element", GST_OBJECT_NAME(self));
        cJSON_AddNumberToObject(fv, "width", GST_VIDEO_INFO_WIDTH(&self->dis_info));
        cJSON_AddNumberToObject(fv, "height", GST_VIDEO_INFO_HEIGHT(&self->dis_info));
        cJSON_AddStringToObject(fv, "pixfmt", fovea_pixfmt_name(fovea_gst_pixfmt(
                                                  GST_VIDEO_INFO_FORMAT(&self->dis_info))));
        cJSON_AddNumberToObject(fv, "frames", (double)n);
        cJSON_AddNumberToObject(fv, "distorted_unscored", (double)self->passed_unscored);
        cJSON_AddNumberToObject(fv, "reference_dropped", (double)self->ref_dropped);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("%s: out of memory", path), (NULL));
        return FALSE;
    }
    fovea_outfile *of = NULL;
    int st = fovea_outfile_open(self->ctx, &of, path);
    if (st == FOVEA_OK) {
        FILE *fp = fovea_outfile_file(of);
        if (fputs(text, fp) == EOF || fputc('\n', fp) == EOF) {
            /* commit reports the stream's error with its reason */
        }
        st = fovea_outfile_commit(self->ctx, &of);
    }
    free(text);
    if (st < 0) {
        FOVEA_GST_ERROR(self, RESOURCE, WRITE, self->ctx, st, "location");
        return FALSE;
    }
    return TRUE;
}

/* The end of the distorted stream: the JSON, once. @return FALSE after posting an error */
static gboolean finish(GstFoveaVmaf *self)
{
    if (self->finished)
        return TRUE;
    self->finished = TRUE;
    GST_OBJECT_LOCK(self);
    gchar *path = g_strdup(self->location);
    GST_OBJECT_UNLOCK(self);
    gboolean ok = TRUE;
    if (self->passed_unscored || self->ref_dropped)
        GST_ELEMENT_WARNING(self, STREAM, FAILED,
                            ("%" G_GUINT64_FORMAT " distorted frame%s had no reference and "
                             "%" G_GUINT64_FORMAT " reference frame%s no distorted one: scored "
                             "%u pairs",
                             self->passed_unscored, self->passed_unscored == 1 ? "" : "s",
                             self->ref_dropped, self->ref_dropped == 1 ? "" : "s",
                             self->rows->len),
                            (NULL));
    if (path && *path && self->rows->len == 0)
        GST_ELEMENT_WARNING(self, RESOURCE, WRITE,
                            ("no frame pair was scored: %s not written", path), (NULL));
    else if (path && *path)
        ok = write_json(self, path);
    g_free(path);
    return ok;
}

/* The distorted pad's segment goes downstream with its frames. */
static void forward_segment(GstFoveaVmaf *self)
{
    const GstSegment *seg = &self->dis->segment;
    if (seg->format == GST_FORMAT_TIME && !gst_segment_is_equal(seg, &self->out_segment)) {
        self->out_segment = *seg;
        gst_aggregator_update_segment(GST_AGGREGATOR(self), seg);
    }
}

static GstFlowReturn pass_on(GstFoveaVmaf *self, GstBuffer *dbuf)
{
    forward_segment(self);
    return gst_aggregator_finish_buffer(GST_AGGREGATOR(self), dbuf);
}

static GstFlowReturn vmaf_aggregate(GstAggregator *agg, gboolean timeout)
{
    GstFoveaVmaf *self = VMAF(agg);
    GstBuffer *dbuf = gst_aggregator_pad_peek_buffer(self->dis);
    GstBuffer *rbuf = gst_aggregator_pad_peek_buffer(self->ref);
    GstFlowReturn ret = GST_FLOW_OK;

    if (!dbuf) {
        if (gst_aggregator_pad_is_eos(self->dis)) {
            while (gst_aggregator_pad_drop_buffer(self->ref))
                self->ref_dropped++;
            ret = finish(self) ? GST_FLOW_EOS : GST_FLOW_ERROR;
        } else {
            ret = GST_AGGREGATOR_FLOW_NEED_DATA; /* a timeout without a distorted frame */
        }
        goto done;
    }
    if (!rbuf) {
        /* no reference: after its end, or late in a live pipeline */
        if (gst_aggregator_pad_is_eos(self->ref) && !self->warned_ref_end) {
            GST_WARNING_OBJECT(self, "the reference ended after %u frames: the distorted "
                               "frames pass on unscored", self->rows->len);
            self->warned_ref_end = TRUE;
        }
        self->passed_unscored++;
        ret = pass_on(self, gst_aggregator_pad_pop_buffer(self->dis));
        goto done;
    }
    /* pair by running time, within half a frame; in order without timestamps */
    const GstClockTime rr = running_time(self->ref, rbuf), rd = running_time(self->dis, dbuf);
    GstClockTime tol = GST_BUFFER_DURATION_IS_VALID(dbuf) ? GST_BUFFER_DURATION(dbuf) / 2
                                                          : GST_MSECOND;
    if (GST_CLOCK_TIME_IS_VALID(rr) && GST_CLOCK_TIME_IS_VALID(rd)) {
        if (rr + tol < rd) {
            GST_DEBUG_OBJECT(self, "reference frame at %" GST_TIME_FORMAT " has no distorted "
                             "frame: dropped", GST_TIME_ARGS(rr));
            gst_aggregator_pad_drop_buffer(self->ref);
            self->ref_dropped++;
            goto done;
        }
        if (rd + tol < rr) {
            GST_DEBUG_OBJECT(self, "distorted frame at %" GST_TIME_FORMAT " has no reference: "
                             "passed unscored", GST_TIME_ARGS(rd));
            self->passed_unscored++;
            ret = pass_on(self, gst_aggregator_pad_pop_buffer(self->dis));
            goto done;
        }
    }
    if (!score_pair(self, rbuf, dbuf, rd)) {
        ret = GST_FLOW_ERROR;
        goto done;
    }
    gst_aggregator_pad_drop_buffer(self->ref);
    ret = pass_on(self, gst_aggregator_pad_pop_buffer(self->dis));
done:
    if (dbuf)
        gst_buffer_unref(dbuf);
    if (rbuf)
        gst_buffer_unref(rbuf);
    (void)timeout;
    return ret;
}

static GstFlowReturn vmaf_flush(GstAggregator *agg)
{
    GstFoveaVmaf *self = VMAF(agg);
    /* a flushing seek starts a new scoring run */
    reset_stream(self);
    return GST_FLOW_OK;
}

/* ------------------------------------------------------------------ class */

static void vmaf_finalize(GObject *obj)
{
    GstFoveaVmaf *self = VMAF(obj);
    g_free(self->location);
    g_array_unref(self->rows);
    G_OBJECT_CLASS(gst_fovea_vmaf_parent_class)->finalize(obj);
}

static void gst_fovea_vmaf_class_init(GstFoveaVmafClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GstElementClass *ec = GST_ELEMENT_CLASS(klass);
    GstAggregatorClass *ac = GST_AGGREGATOR_CLASS(klass);

    GST_DEBUG_CATEGORY_INIT(fovea_vmaf_debug, "foveavmaf", 0, "fovea video quality");

    oc->set_property = vmaf_set_property;
    oc->get_property = vmaf_get_property;
    oc->finalize = vmaf_finalize;
    const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
    g_object_class_install_property(
        oc, PROP_LOCATION,
        g_param_spec_string("location", "Location",
                            "write every frame's scores and the pooled ones as JSON in "
                            "libvmaf's layout to this file at the end of the stream",
                            NULL, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_GAIN_LIMIT,
        g_param_spec_double("vif-gain-limit", "VIF gain limit",
                            "libvmaf's vif_enhn_gain_limit, 1.0 (no gain) to 100.0", 1.0,
                            FOVEA_VIF_ENHN_GAIN_LIMIT_MAX, FOVEA_VIF_ENHN_GAIN_LIMIT_MAX,
                            rw | GST_PARAM_MUTABLE_READY));
    fovea_gst_install_backend_properties(oc, PROP_BACKEND, PROP_THREADS);

    gst_element_class_set_static_metadata(
        ec, "fovea video quality", "Filter/Analyzer/Video",
        "Scores the distorted stream (dis) against the reference (ref) with libvmaf's integer "
        "VIF, posts each frame's scores, writes libvmaf JSON at the end, and passes the "
        "distorted frames on",
        "fovea");
    GstCaps *caps = fovea_gst_raw_caps(formats, G_N_ELEMENTS(formats), TRUE);
    gst_element_class_add_pad_template(
        ec, gst_pad_template_new_with_gtype("ref", GST_PAD_SINK, GST_PAD_ALWAYS, caps,
                                            GST_TYPE_AGGREGATOR_PAD));
    gst_element_class_add_pad_template(
        ec, gst_pad_template_new_with_gtype("dis", GST_PAD_SINK, GST_PAD_ALWAYS, caps,
                                            GST_TYPE_AGGREGATOR_PAD));
    gst_element_class_add_pad_template(
        ec, gst_pad_template_new_with_gtype("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps,
                                            GST_TYPE_AGGREGATOR_PAD));
    gst_caps_unref(caps);

    ec->change_state = vmaf_change_state;
    ac->start = vmaf_start;
    ac->stop = vmaf_stop;
    ac->flush = vmaf_flush;
    ac->aggregate = vmaf_aggregate;
    ac->sink_query = vmaf_sink_query;
    ac->src_query = vmaf_src_query;
    ac->sink_event = vmaf_sink_event;
    ac->update_src_caps = vmaf_update_src_caps;
}

static GstAggregatorPad *add_sink_pad(GstFoveaVmaf *self, const char *name)
{
    GstPadTemplate *t = gst_element_class_get_pad_template(GST_ELEMENT_GET_CLASS(self), name);
    GstAggregatorPad *pad = g_object_new(GST_TYPE_AGGREGATOR_PAD, "name", name, "direction",
                                         GST_PAD_SINK, "template", t, NULL);
    gst_element_add_pad(GST_ELEMENT(self), GST_PAD(pad));
    return pad;
}

static void gst_fovea_vmaf_init(GstFoveaVmaf *self)
{
    self->gain_limit = FOVEA_VIF_ENHN_GAIN_LIMIT_MAX;
    self->backend = FOVEA_GST_DEFAULT_BACKEND;
    self->threads = FOVEA_GST_DEFAULT_THREADS;
    self->rows = g_array_new(FALSE, TRUE, sizeof(score_row));
    gst_segment_init(&self->out_segment, GST_FORMAT_UNDEFINED);
    self->ref = add_sink_pad(self, "ref");
    self->dis = add_sink_pad(self, "dis");
}
