/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* foveastitch: caps and allocation: the pad templates, what the camera pads
 * and the source pad take (caps and accept-caps queries), the checks on a
 * camera's new caps, the output caps, and the buffer pools (CUDA or pinned). */
#include "cuda.h"
#include "pinned.h"
#include "stitch.h"

/* G_DEFINE_TYPE keeps the parent class in stitch.c: this unit's copy, set by
 * stitch_caps_class_init */
static gpointer gst_fovea_stitch_parent_class;

static const GstVideoFormat sink_formats[] = {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGB,
                                              GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12};
static const GstVideoFormat src_formats[] = {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_I420};

/* The panorama format for a camera format: RGBA from RGB, I420 from YUV. */
static GstVideoFormat output_format(GstVideoFormat in)
{
    return in == GST_VIDEO_FORMAT_RGBA || in == GST_VIDEO_FORMAT_RGB ? GST_VIDEO_FORMAT_RGBA
                                                                     : GST_VIDEO_FORMAT_I420;
}

/* ------------------------------------------------------------------ caps */

/* The format another sink pad has already: all cameras must agree. */
static GstVideoFormat configured_format(GstFoveaStitch *self, GstPad *except)
{
    GstVideoFormat f = GST_VIDEO_FORMAT_UNKNOWN;
    GST_OBJECT_LOCK(self);
    for (GList *l = GST_ELEMENT(self)->sinkpads; l; l = l->next) {
        GstVideoAggregatorPad *p = l->data;
        if ((GstPad *)p != except && p->info.finfo &&
            GST_VIDEO_INFO_FORMAT(&p->info) != GST_VIDEO_FORMAT_UNKNOWN) {
            f = GST_VIDEO_INFO_FORMAT(&p->info);
            break;
        }
    }
    GST_OBJECT_UNLOCK(self);
    return f;
}

/* CUDA memory is offered once the element's CUDA context is open and, before
 * the element starts (a pipeline being linked, as gst_parse_launch does in the
 * NULL state), whenever its backend may be CUDA: such a link is checked again
 * when the caps are negotiated. A started element without CUDA offers none. */
static gboolean offers_cuda(GstFoveaStitch *self)
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

/* What camera pad can take: the stitch formats (or the one the other cameras
 * have), the camera's size once the map is loaded. */
static GstCaps *sink_caps(GstFoveaStitch *self, GstPad *pad)
{
    const GstVideoFormat other = configured_format(self, pad);
    GstCaps *caps =
        other != GST_VIDEO_FORMAT_UNKNOWN
            ? fovea_gst_raw_caps(&other, 1, offers_cuda(self))
            : fovea_gst_raw_caps(sink_formats, G_N_ELEMENTS(sink_formats), offers_cuda(self));
    const int c = stitch_pad_camera(pad);
    if (self->map && c >= 0 && c < self->ncam)
        gst_caps_set_simple(caps, "width", G_TYPE_INT, self->cam_w[c], "height", G_TYPE_INT,
                            self->cam_h[c], NULL);
    return caps;
}

static GstCaps *src_caps(GstFoveaStitch *self)
{
    const GstVideoFormat in = configured_format(self, NULL);
    const GstVideoFormat out =
        in != GST_VIDEO_FORMAT_UNKNOWN ? output_format(in) : GST_VIDEO_FORMAT_UNKNOWN;
    GstCaps *caps =
        out != GST_VIDEO_FORMAT_UNKNOWN
            ? fovea_gst_raw_caps(&out, 1, offers_cuda(self))
            : fovea_gst_raw_caps(src_formats, G_N_ELEMENTS(src_formats), offers_cuda(self));
    if (self->map)
        gst_caps_set_simple(caps, "width", G_TYPE_INT, self->pano_w, "height", G_TYPE_INT,
                            self->pano_h, NULL);
    return caps;
}

static gboolean answer_caps_query(GstQuery *query, GstCaps *caps)
{
    GstCaps *filter = NULL;
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

static gboolean stitch_sink_query(GstAggregator *agg, GstAggregatorPad *pad, GstQuery *query)
{
    GstFoveaStitch *self = STITCH(agg);
    switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CAPS: return answer_caps_query(query, sink_caps(self, GST_PAD(pad)));
    case GST_QUERY_ACCEPT_CAPS: {
        GstCaps *caps = NULL;
        gst_query_parse_accept_caps(query, &caps);
        GstCaps *ours = sink_caps(self, GST_PAD(pad));
        gst_query_set_accept_caps_result(query, gst_caps_is_subset(caps, ours));
        gst_caps_unref(ours);
        return TRUE;
    }
    case GST_QUERY_CONTEXT:
        if (fovea_gst_cuda_handle_query(self->base.cuda, GST_ELEMENT(self), query))
            return TRUE;
        break;
    default: break;
    }
    return GST_AGGREGATOR_CLASS(gst_fovea_stitch_parent_class)->sink_query(agg, pad, query);
}

static gboolean stitch_src_query(GstAggregator *agg, GstQuery *query)
{
    GstFoveaStitch *self = STITCH(agg);
    switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CAPS: return answer_caps_query(query, src_caps(self));
    case GST_QUERY_CONTEXT:
        if (fovea_gst_cuda_handle_query(self->base.cuda, GST_ELEMENT(self), query))
            return TRUE;
        break;
    default: break;
    }
    return GST_AGGREGATOR_CLASS(gst_fovea_stitch_parent_class)->src_query(agg, query);
}

/* New caps on a camera pad: the camera's size, and the other cameras' format. */
static gboolean stitch_sink_event(GstAggregator *agg, GstAggregatorPad *pad, GstEvent *event)
{
    GstFoveaStitch *self = STITCH(agg);
    if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
        GstCaps *caps;
        GstVideoInfo info;
        gst_event_parse_caps(event, &caps);
        const int c = stitch_pad_camera(GST_PAD(pad));
        if (!gst_video_info_from_caps(&info, caps)) {
            GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("%s: invalid caps", GST_PAD_NAME(pad)),
                              ("%" GST_PTR_FORMAT, caps));
            gst_event_unref(event);
            return FALSE;
        }
        if (self->map && (c < 0 || c >= self->ncam)) {
            GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                              ("%s: the map has %d camera%s (pads sink_0 .. sink_%d)",
                               GST_PAD_NAME(pad), self->ncam, self->ncam == 1 ? "" : "s",
                               self->ncam - 1),
                              (NULL));
            gst_event_unref(event);
            return FALSE;
        }
        if (self->map && (GST_VIDEO_INFO_WIDTH(&info) != self->cam_w[c] ||
                          GST_VIDEO_INFO_HEIGHT(&info) != self->cam_h[c])) {
            GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                              ("%s: camera %d is %dx%d, the map expects %dx%d", GST_PAD_NAME(pad),
                               c, GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info),
                               self->cam_w[c], self->cam_h[c]),
                              (NULL));
            gst_event_unref(event);
            return FALSE;
        }
        const GstVideoFormat other = configured_format(self, GST_PAD(pad));
        if (fovea_gst_pixfmt(GST_VIDEO_INFO_FORMAT(&info)) == FOVEA_PIX_NONE ||
            (other != GST_VIDEO_FORMAT_UNKNOWN && other != GST_VIDEO_INFO_FORMAT(&info))) {
            GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                              ("%s: %s, but the cameras must share one of RGBA, RGB, I420 or "
                               "NV12 (other cameras: %s)",
                               GST_PAD_NAME(pad),
                               gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)),
                               other != GST_VIDEO_FORMAT_UNKNOWN ? gst_video_format_to_string(other)
                                                                 : "none yet"),
                              (NULL));
            gst_event_unref(event);
            return FALSE;
        }
        STITCH_PAD(pad)->in_cuda = fovea_gst_caps_is_cuda(caps);
    }
    return GST_AGGREGATOR_CLASS(gst_fovea_stitch_parent_class)->sink_event(agg, pad, event);
}

/* Output caps: the panorama's size, RGBA (RGB cameras) or I420 (YUV cameras)
 * in the cameras' colorimetry, CUDA memory when both sides can. */
static GstCaps *stitch_update_caps(GstVideoAggregator *vagg, GstCaps *downstream)
{
    GstFoveaStitch *self = STITCH(vagg);
    GstVideoInfo in;
    gboolean have = FALSE, in_cuda = FALSE;
    GST_OBJECT_LOCK(self);
    for (GList *l = GST_ELEMENT(self)->sinkpads; l && !have; l = l->next) {
        GstVideoAggregatorPad *p = l->data;
        if (p->info.finfo && GST_VIDEO_INFO_FORMAT(&p->info) != GST_VIDEO_FORMAT_UNKNOWN) {
            in = p->info;
            in_cuda = STITCH_PAD(p)->in_cuda;
            have = TRUE;
        }
    }
    GST_OBJECT_UNLOCK(self);
    if (!have || !self->map)
        return gst_caps_new_empty();
    GstVideoInfo out;
    gst_video_info_set_format(&out, output_format(GST_VIDEO_INFO_FORMAT(&in)), self->pano_w,
                              self->pano_h);
    if (GST_VIDEO_INFO_IS_YUV(&out)) {
        out.colorimetry = in.colorimetry;
        out.chroma_site = in.chroma_site;
    }
    GstCaps *sys = gst_video_info_to_caps(&out);
    GstStructure *s = gst_caps_get_structure(sys, 0);
    gst_structure_remove_field(s, "framerate");
    /* CUDA memory out first when the cameras come in it (frames stay on the
     * device), system memory first otherwise */
    GstCaps *want = gst_caps_new_empty();
    if (self->base.cuda) {
        GstCaps *cuda = gst_caps_copy(sys);
        gst_caps_set_features(cuda, 0, gst_caps_features_new(FOVEA_GST_CAPS_FEATURE_CUDA, NULL));
        if (in_cuda) {
            gst_caps_append(want, cuda);
            gst_caps_append(want, sys);
        } else {
            gst_caps_append(want, sys);
            gst_caps_append(want, cuda);
        }
    } else {
        gst_caps_append(want, sys);
    }
    GstCaps *res = gst_caps_intersect_full(want, downstream, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(want);
    GST_DEBUG_OBJECT(self, "output caps %" GST_PTR_FORMAT, res);
    return res;
}

static gboolean stitch_negotiated_src_caps(GstAggregator *agg, GstCaps *caps)
{
    GstFoveaStitch *self = STITCH(agg);
    self->out_cuda = self->base.cuda && fovea_gst_caps_is_cuda(caps);
    return GST_AGGREGATOR_CLASS(gst_fovea_stitch_parent_class)->negotiated_src_caps(agg, caps);
}

static gboolean stitch_decide_allocation(GstAggregator *agg, GstQuery *query)
{
    GstFoveaStitch *self = STITCH(agg);
    GstCaps *caps = NULL;
    gst_query_parse_allocation(query, &caps, NULL);
    if (!caps)
        return GST_AGGREGATOR_CLASS(gst_fovea_stitch_parent_class)->decide_allocation(agg, query);
    const gboolean cuda = self->base.cuda && fovea_gst_caps_is_cuda(caps);
    /* system memory on the CUDA backend: pinned buffers, which the stitcher
     * fills without its staging copy */
    GstBufferPool *pool = cuda ? fovea_gst_cuda_pool_new(self->base.cuda, caps, 0, 0)
                               : fovea_gst_pinned_pool_new(self->base.ctx, caps, 0, 0);
    if (!pool && !cuda)
        return GST_AGGREGATOR_CLASS(gst_fovea_stitch_parent_class)->decide_allocation(agg, query);
    if (!pool) {
        GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("cannot make a CUDA buffer pool"),
                          ("%" GST_PTR_FORMAT, caps));
        return FALSE;
    }
    GstStructure *config = gst_buffer_pool_get_config(pool);
    guint size = 0;
    gst_buffer_pool_config_get_params(config, NULL, &size, NULL, NULL);
    gst_structure_free(config);
    while (gst_query_get_n_allocation_pools(query) > 0)
        gst_query_remove_nth_allocation_pool(query, 0);
    gst_query_add_allocation_pool(query, pool, size, 0, 0);
    gst_object_unref(pool);
    return TRUE;
}

/* Upstream in system memory on the CUDA backend: offer pinned buffers (used by
 * producers that allocate from downstream: videotestsrc, decoders, converters). */
static gboolean stitch_propose_allocation(GstAggregator *agg, GstAggregatorPad *pad,
                                          GstQuery *decide_query, GstQuery *query)
{
    GstAggregatorClass *parent = GST_AGGREGATOR_CLASS(gst_fovea_stitch_parent_class);
    if (parent->propose_allocation && !parent->propose_allocation(agg, pad, decide_query, query))
        return FALSE;
    fovea_gst_propose_pinned(STITCH(agg)->base.ctx, query);
    return TRUE;
}

void stitch_caps_class_init(GstFoveaStitchClass *klass)
{
    GstElementClass *ec = GST_ELEMENT_CLASS(klass);
    GstAggregatorClass *ac = GST_AGGREGATOR_CLASS(klass);
    GstVideoAggregatorClass *vc = GST_VIDEO_AGGREGATOR_CLASS(klass);

    gst_fovea_stitch_parent_class = g_type_class_peek_parent(klass);
    GstCaps *sink = fovea_gst_raw_caps(sink_formats, G_N_ELEMENTS(sink_formats), TRUE);
    GstCaps *src = fovea_gst_raw_caps(src_formats, G_N_ELEMENTS(src_formats), TRUE);
    gst_element_class_add_pad_template(
        ec, gst_pad_template_new_with_gtype("sink_%u", GST_PAD_SINK, GST_PAD_REQUEST, sink,
                                            gst_fovea_stitch_pad_get_type()));
    gst_element_class_add_pad_template(
        ec, gst_pad_template_new_with_gtype("src", GST_PAD_SRC, GST_PAD_ALWAYS, src,
                                            GST_TYPE_AGGREGATOR_PAD));
    gst_caps_unref(sink);
    gst_caps_unref(src);

    ac->sink_query = stitch_sink_query;
    ac->src_query = stitch_src_query;
    ac->sink_event = stitch_sink_event;
    ac->negotiated_src_caps = stitch_negotiated_src_caps;
    ac->decide_allocation = stitch_decide_allocation;
    ac->propose_allocation = stitch_propose_allocation;
    vc->update_caps = stitch_update_caps;
}
