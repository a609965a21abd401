/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* foveavmaf: scores the distorted stream (sink pad "dis") against the
 * reference (sink pad "ref") frame by frame, with a VMAF model's features and
 * score (features=vmaf) or libvmaf's integer VIF alone (features=vif), posts
 * the scores of each frame as an element message, writes them with libvmaf's
 * pooling in libvmaf's JSON layout (that of `fovea vif --json`) to `location`
 * at the end of the stream, and passes the distorted frames on unchanged.
 * VMAF's motion feature needs the next frame: a frame's scores are posted
 * when the next pair arrives (or at the end). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/base/gstaggregator.h>

#include "common.h"
#include "cuda.h"
#include "elements.h"
#include "fovea/advanced.h"
#include "fovea/io.h"
#include "fovea/quality.h"
#include "vmaf.h"

GST_DEBUG_CATEGORY(fovea_vmaf_debug);

static GType features_get_type(void)
{
    static gsize type = 0;
    static const GEnumValue values[] = {
        {FEATURES_VIF, "libvmaf's integer VIF: integer_vif_scale0..3", "vif"},
        {FEATURES_VMAF, "the model's features (VIF, ADM, motion) and its vmaf score", "vmaf"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type)) {
        GType t = g_enum_register_static("FoveaVmafFeatures", values);
        g_once_init_leave(&type, t);
    }
    return (GType)type;
}

#define DEFAULT_FEATURES FEATURES_VMAF
#define DEFAULT_MODEL "vmaf_v0.6.1"

enum {
    PROP_0,
    PROP_LOCATION,
    PROP_FEATURES,
    PROP_MODEL,
    PROP_GAIN_LIMIT,
    PROP_EXTRA_FEATURES,
    PROP_BACKEND,
    PROP_THREADS
};

typedef struct {
    GstAggregatorClass parent_class;
} GstFoveaVmafClass;

G_DEFINE_TYPE(GstFoveaVmaf, gst_fovea_vmaf, GST_TYPE_AGGREGATOR)


/* Luma of any YUV or gray layout, 8 to 16 bits: what the scores read. */
static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_I420,      GST_VIDEO_FORMAT_NV12,      GST_VIDEO_FORMAT_Y42B,
    GST_VIDEO_FORMAT_Y444,      GST_VIDEO_FORMAT_GRAY8,     GST_VIDEO_FORMAT_I420_10LE,
    GST_VIDEO_FORMAT_I422_10LE, GST_VIDEO_FORMAT_Y444_10LE, GST_VIDEO_FORMAT_I420_12LE,
    GST_VIDEO_FORMAT_I422_12LE, GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_16LE,
    GST_VIDEO_FORMAT_GRAY16_LE,
};

#define MIN_SIDE 16     /* VIF */
#define MIN_SIDE_ADM 33 /* ADM's fourth wavelet level */

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
    case PROP_FEATURES: self->features = (features_mode)g_value_get_enum(v); break;
    case PROP_MODEL:
        g_free(self->model_name);
        self->model_name = g_value_dup_string(v);
        if (!self->model_name)
            self->model_name = g_strdup(DEFAULT_MODEL);
        break;
    case PROP_GAIN_LIMIT: self->gain_limit = g_value_get_double(v); break;
    case PROP_EXTRA_FEATURES:
        g_free(self->extra);
        self->extra = g_value_dup_string(v);
        break;
    default:
        if (!fovea_gst_base_set_property(&self->base, id, PROP_BACKEND, PROP_THREADS, v))
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
    case PROP_LOCATION: g_value_set_string(v, self->location); break;
    case PROP_FEATURES: g_value_set_enum(v, self->features); break;
    case PROP_MODEL: g_value_set_string(v, self->model_name); break;
    case PROP_GAIN_LIMIT: g_value_set_double(v, self->gain_limit); break;
    case PROP_EXTRA_FEATURES: g_value_set_string(v, self->extra); break;
    default:
        if (!fovea_gst_base_get_property(&self->base, id, PROP_BACKEND, PROP_THREADS, v))
            G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

/* ------------------------------------------------------------------ states */

static GstStateChangeReturn vmaf_change_state(GstElement *el, GstStateChange t)
{
    GstFoveaVmaf *self = VMAF(el);
    const GstStateChangeReturn ret = fovea_gst_base_change_state(
        &self->base, el, fovea_vmaf_debug, GST_ELEMENT_CLASS(gst_fovea_vmaf_parent_class), t);
    if (t == GST_STATE_CHANGE_READY_TO_NULL)
        fovea_close(&self->cpu_ctx);
    return ret;
}

static void release_pending(GstFoveaVmaf *self)
{
    pending_pair *p;
    while ((p = g_queue_pop_head(&self->pending))) {
        if (p->held) {
            gst_video_frame_unmap(&p->r);
            gst_video_frame_unmap(&p->d);
        }
        g_free(p);
    }
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
    if (self->vmaf)
        fovea_vmaf_reset(self->vmaf);
    release_pending(self);
}

/* The VMAF scorer on ctx, or (backend auto) on a CPU context when ctx's
 * backend has none. @return a fovea status, ctx's message set */
static int open_vmaf(GstFoveaVmaf *self, const fovea_vmaf_settings *vs, fovea_backend asked)
{
    self->score_ctx = self->base.ctx;
    int st = fovea_vmaf_open(&self->vmaf, self->base.ctx, vs);
    if (st == FOVEA_ERR_NO_DEVICE && asked == FOVEA_BACKEND_AUTO &&
        fovea_context_backend(self->base.ctx) == FOVEA_BACKEND_CUDA) {
        GST_INFO_OBJECT(self, "no VMAF backend for CUDA in this build: VMAF on the CPU");
        if (!self->cpu_ctx)
            self->cpu_ctx =
                fovea_gst_open_context(GST_ELEMENT(self), fovea_vmaf_debug, FOVEA_BACKEND_CPU,
                                       fovea_context_threads(self->base.ctx));
        if (!self->cpu_ctx)
            return FOVEA_ERR_NOMEM; /* posted */
        self->score_ctx = self->cpu_ctx;
        st = fovea_vmaf_open(&self->vmaf, self->cpu_ctx, vs);
    }
    return st;
}

static gboolean vmaf_start(GstAggregator *agg)
{
    GstFoveaVmaf *self = VMAF(agg);
    GST_OBJECT_LOCK(self);
    self->mode = self->features;
    gchar *model = g_strdup(self->model_name);
    gchar *extra = self->extra && *self->extra ? g_strdup(self->extra) : NULL;
    const double gain = self->gain_limit;
    const fovea_backend asked = self->base.backend;
    GST_OBJECT_UNLOCK(self);
    int st;
    self->score_ctx = self->base.ctx;
    fovea_vmaf_settings vs;
    fovea_vmaf_default_settings(&vs);
    vs.keep_frames = 1; /* for the JSON */
    char features[128];
    if (self->mode == FEATURES_VIF) {
        /* the names stay plain whatever the gain limit */
        snprintf(features, sizeof features, "vif:vif_enhn_gain_limit=%.17g", gain);
        vs.features = features;
        vs.flags = FOVEA_VMAF_NO_SUFFIX;
    } else {
        /* libvmaf's model parameters (version=NAME:..., path=FILE:...), a
         * model file, or a built-in model by its version name */
        if (!strchr(model, '=') && (g_file_test(model, G_FILE_TEST_EXISTS) || strchr(model, '/') ||
                                    g_str_has_suffix(model, ".json")))
            st = fovea_vmaf_model_open_file(&self->model, self->base.ctx, model);
        else
            st = fovea_vmaf_model_open(&self->model, self->base.ctx, model);
        if (st < 0) {
            FOVEA_GST_ERROR(self, RESOURCE, READ, self->base.ctx, st,
                            "model"); /* the message names it */
            g_free(model);
            g_free(extra);
            return FALSE;
        }
        vs.model = self->model;
        vs.features = extra;
    }
    st = open_vmaf(self, &vs, asked);
    if (st < 0) {
        FOVEA_GST_ERROR(self, LIBRARY, INIT, self->score_ctx, st,
                        self->mode == FEATURES_VIF ? "cannot create the VIF scorer"
                                                   : "cannot create the VMAF scorer");
        fovea_vmaf_model_close(&self->model);
        g_free(model);
        g_free(extra);
        return FALSE;
    }
    self->nmetrics = fovea_vmaf_metric_count(self->vmaf);
    for (int k = 0; k < self->nmetrics && k < MAX_METRICS; k++)
        snprintf(self->names[k], sizeof(self->names[k]), "%s",
                 fovea_vmaf_metric_name(self->vmaf, k));
    g_free(model);
    g_free(extra);
    self->have_ref_info = self->have_dis_info = FALSE;
    reset_stream(self);
    return TRUE;
}

static gboolean vmaf_stop(GstAggregator *agg)
{
    GstFoveaVmaf *self = VMAF(agg);
    release_pending(self);
    fovea_vmaf_close(&self->vmaf);
    fovea_vmaf_model_close(&self->model);
    return TRUE;
}

/* ------------------------------------------------------------------ caps */

/* CUDA memory is offered once the element's CUDA context is open and, before
 * the element starts (a pipeline being linked, as gst_parse_launch does in the
 * NULL state), whenever its backend may be CUDA: such a link is checked again
 * when the caps are negotiated. A started element without CUDA offers none. */
static gboolean offers_cuda(GstFoveaVmaf *self)
{
    if (self->base.cuda)
        return TRUE;
    if (self->base.ctx || !fovea_gst_cuda_compiled())
        return FALSE;
    GST_OBJECT_LOCK(self);
    const gboolean maybe = self->base.backend != FOVEA_BACKEND_CPU;
    GST_OBJECT_UNLOCK(self);
    return maybe;
}

static GstCaps *pad_caps(GstFoveaVmaf *self, GstAggregatorPad *pad)
{
    GstCaps *caps = fovea_gst_raw_caps(formats, G_N_ELEMENTS(formats), offers_cuda(self));
    GST_OBJECT_LOCK(self);
    const int min = self->features == FEATURES_VMAF ? MIN_SIDE_ADM : MIN_SIDE;
    GST_OBJECT_UNLOCK(self);
    gst_caps_set_simple(caps, "width", GST_TYPE_INT_RANGE, min, FOVEA_MAX_DIM, "height",
                        GST_TYPE_INT_RANGE, min, FOVEA_MAX_DIM, NULL);
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
        if (fovea_gst_cuda_handle_query(self->base.cuda, GST_ELEMENT(self), query))
            return TRUE;
        break;
    default: break;
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
        fovea_gst_cuda_handle_query(self->base.cuda, GST_ELEMENT(self), query))
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
            GST_ELEMENT_ERROR(
                self, CORE, NEGOTIATION,
                ("%s: unsupported caps (YUV or gray, 8 to 16 bits)", GST_PAD_NAME(pad)),
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
            ret = vmaf_finish(self) ? GST_FLOW_EOS : GST_FLOW_ERROR;
        } else {
            ret = GST_AGGREGATOR_FLOW_NEED_DATA; /* a timeout without a distorted frame */
        }
        goto done;
    }
    if (!rbuf) {
        /* no reference: after its end, or late in a live pipeline */
        if (gst_aggregator_pad_is_eos(self->ref) && !self->warned_ref_end) {
            GST_WARNING_OBJECT(self,
                               "the reference ended after %u frames: the distorted "
                               "frames pass on unscored",
                               self->rows->len);
            self->warned_ref_end = TRUE;
        }
        self->passed_unscored++;
        ret = pass_on(self, gst_aggregator_pad_pop_buffer(self->dis));
        goto done;
    }
    /* pair by running time, within half a frame; in order without timestamps */
    const GstClockTime rr = vmaf_running_time(self->ref, rbuf);
    const GstClockTime rd = vmaf_running_time(self->dis, dbuf);
    GstClockTime tol =
        GST_BUFFER_DURATION_IS_VALID(dbuf) ? GST_BUFFER_DURATION(dbuf) / 2 : GST_MSECOND;
    if (GST_CLOCK_TIME_IS_VALID(rr) && GST_CLOCK_TIME_IS_VALID(rd)) {
        if (rr + tol < rd) {
            GST_DEBUG_OBJECT(self,
                             "reference frame at %" GST_TIME_FORMAT " has no distorted "
                             "frame: dropped",
                             GST_TIME_ARGS(rr));
            gst_aggregator_pad_drop_buffer(self->ref);
            self->ref_dropped++;
            goto done;
        }
        if (rd + tol < rr) {
            GST_DEBUG_OBJECT(self,
                             "distorted frame at %" GST_TIME_FORMAT " has no reference: "
                             "passed unscored",
                             GST_TIME_ARGS(rd));
            self->passed_unscored++;
            ret = pass_on(self, gst_aggregator_pad_pop_buffer(self->dis));
            goto done;
        }
    }
    if (!vmaf_score_pair(self, rbuf, dbuf, rd)) {
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
    /* after a failed start the state changes that close them may not run */
    release_pending(self);
    fovea_vmaf_close(&self->vmaf);
    fovea_vmaf_model_close(&self->model);
    fovea_gst_base_close(&self->base);
    fovea_close(&self->cpu_ctx);
    g_free(self->location);
    g_free(self->model_name);
    g_free(self->extra);
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
    g_object_class_install_property(oc, PROP_FEATURES,
                                    g_param_spec_enum("features", "Features", "what is scored",
                                                      features_get_type(), DEFAULT_FEATURES,
                                                      rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_MODEL,
        g_param_spec_string("model", "Model",
                            "with features=vmaf: a libvmaf JSON model file, a built-in "
                            "model's version name, or libvmaf's model parameters "
                            "(version=vmaf_v1.0.16_3d0h:cambi.enc_width=1280, path=FILE:name=x)",
                            DEFAULT_MODEL, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_EXTRA_FEATURES,
        g_param_spec_string("extra-features", "Extra features",
                            "with features=vmaf: libvmaf features computed besides the "
                            "model's, comma-separated, options after colons "
                            "(psnr,float_ssim:enable_lcs=true,float_ms_ssim)",
                            NULL, rw | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        oc, PROP_GAIN_LIMIT,
        g_param_spec_double("vif-gain-limit", "VIF gain limit",
                            "with features=vif: libvmaf's vif_enhn_gain_limit, 1.0 (no gain) "
                            "to 100.0",
                            1.0, 100.0, 100.0, rw | GST_PARAM_MUTABLE_READY));
    fovea_gst_install_backend_properties(oc, PROP_BACKEND, PROP_THREADS);

    gst_element_class_set_static_metadata(
        ec, "fovea video quality", "Filter/Analyzer/Video",
        "Scores the distorted stream (dis) against the reference (ref) with VMAF or libvmaf's "
        "integer VIF (bit-exact), posts each frame's scores, writes libvmaf JSON at the end, "
        "and passes the distorted frames on",
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
    gst_type_mark_as_plugin_api(features_get_type(), 0);
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
    self->gain_limit = 100.0;
    self->features = DEFAULT_FEATURES;
    self->model_name = g_strdup(DEFAULT_MODEL);
    g_queue_init(&self->pending);
    fovea_gst_base_init(&self->base, FALSE);
    self->rows = g_array_new(FALSE, TRUE, sizeof(score_row));
    gst_segment_init(&self->out_segment, GST_FORMAT_UNDEFINED);
    self->ref = add_sink_pad(self, "ref");
    self->dis = add_sink_pad(self, "dis");
}
