/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* foveavmaf's scoring: the pairs handed to the scorer (device frames kept
 * mapped until their scores are received), the scores posted as element
 * messages, and the JSON written at the end through the library's writer. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "fovea/advanced.h"
#include "fovea/io.h"
#include "vmaf.h"

GstClockTime vmaf_running_time(GstAggregatorPad *pad, GstBuffer *buf)
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

/* Device pointers when buf is CUDA memory of the element's context and the
 * scorer runs on the device; a host map otherwise. */
static gboolean map_input(GstFoveaVmaf *self, GstVideoFrame *vf, const GstVideoInfo *info,
                          GstBuffer *buf, fovea_frame *out, gboolean *device)
{
    const fovea_backend b = fovea_vmaf_backend(self->vmaf);
    const gboolean dev =
        b == FOVEA_BACKEND_CUDA && fovea_gst_cuda_buffer_is_ours(self->base.cuda, buf);
    if (!gst_video_frame_map(vf, info, buf, GST_MAP_READ | (dev ? fovea_gst_cuda_map_flag() : 0)))
        return FALSE;
    fovea_gst_wrap_frame(vf, dev ? FOVEA_MEM_DEVICE : FOVEA_MEM_HOST,
                         fovea_context_device(self->score_ctx), out);
    *device = dev;
    return TRUE;
}

static void add_row(GstFoveaVmaf *self, GstClockTime pts, GstClockTime rt, const double *v, int n)
{
    score_row row;
    memset(&row, 0, sizeof(row));
    row.frame = self->rows->len;
    row.pts = pts;
    for (int k = 0; k < n && k < MAX_METRICS; k++)
        row.v[k] = v[k];
    g_array_append_val(self->rows, row);
    if (self->rows->len == 1)
        self->t_first = g_get_monotonic_time();
    self->t_last = g_get_monotonic_time();
    post_scores(self, &row, rt);
}

/* The VMAF scores that are ready, in frame order. @return FALSE after posting an error */
static gboolean receive_vmaf(GstFoveaVmaf *self)
{
    for (;;) {
        fovea_vmaf_scores sc;
        const int st = fovea_vmaf_receive(self->vmaf, &sc);
        if (st == FOVEA_AGAIN)
            return TRUE;
        if (st < 0) {
            FOVEA_GST_ERROR(self, STREAM, FAILED, self->score_ctx, st, "frame %u", self->rows->len);
            return FALSE;
        }
        pending_pair *p = g_queue_pop_head(&self->pending);
        add_row(self, p ? p->pts : GST_CLOCK_TIME_NONE, p ? p->rt : GST_CLOCK_TIME_NONE, sc.value,
                sc.count);
        if (p && p->held) {
            gst_video_frame_unmap(&p->r);
            gst_video_frame_unmap(&p->d);
        }
        g_free(p);
    }
}

/* Queue one pair and post the scores that are ready. @return FALSE after posting an error */
gboolean vmaf_score_pair(GstFoveaVmaf *self, GstBuffer *rbuf, GstBuffer *dbuf, GstClockTime rt)
{
    GstVideoFrame rf, df;
    fovea_frame r, d;
    gboolean rdev = FALSE, ddev = FALSE;
    if (!map_input(self, &rf, &self->ref_info, rbuf, &r, &rdev)) {
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("cannot map a reference frame"), (NULL));
        return FALSE;
    }
    if (!map_input(self, &df, &self->dis_info, dbuf, &d, &ddev)) {
        gst_video_frame_unmap(&rf);
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("cannot map a distorted frame"), (NULL));
        return FALSE;
    }
    const int st = fovea_vmaf_submit(self->vmaf, &r, &d);
    pending_pair *p = g_new0(pending_pair, 1);
    p->pts = GST_BUFFER_PTS(dbuf);
    p->rt = rt;
    /* device frames are read until their scores are received: kept mapped;
     * host frames were copied */
    p->held = st == FOVEA_OK && (rdev || ddev);
    if (p->held) {
        p->r = rf;
        p->d = df;
    } else {
        gst_video_frame_unmap(&rf);
        gst_video_frame_unmap(&df);
    }
    if (st < 0) {
        g_free(p);
        FOVEA_GST_ERROR(self, STREAM, FAILED, self->score_ctx, st, "frame %u",
                        self->rows->len + g_queue_get_length(&self->pending));
        return FALSE;
    }
    g_queue_push_tail(&self->pending, p);
    return receive_vmaf(self);
}

/* ------------------------------------------------------------------ the JSON */

/* libvmaf's layout through the library's writer, as `fovea vif --json` and
 * `fovea vmaf --json` write it. @return FALSE after posting an error */
static gboolean write_json(GstFoveaVmaf *self, const gchar *path)
{
    const guint n = self->rows->len;
    const double secs = (double)(self->t_last - self->t_first) / 1e6;
    GST_OBJECT_LOCK(self);
    const double gain = self->gain_limit;
    gchar *model = g_strdup(self->model_name);
    GST_OBJECT_UNLOCK(self);
    const gboolean vif = self->mode == FEATURES_VIF;
    fovea_vmaf_field f[16];
    int nf = 0;
#define FIELD(k, t, str_, num_) (f[nf++] = (fovea_vmaf_field){k, t, str_, num_})
    FIELD("version", FOVEA_VMAF_FIELD_STRING, fovea_version(), 0);
    if (vif) {
        FIELD("feature", FOVEA_VMAF_FIELD_STRING, "vif (libvmaf integer VIF)", 0);
        FIELD("vif_enhn_gain_limit", FOVEA_VMAF_FIELD_EXACT, NULL, gain);
        FIELD("debug", FOVEA_VMAF_FIELD_BOOL, NULL, 0);
    } else {
        FIELD("feature", FOVEA_VMAF_FIELD_STRING, "vmaf (the model's features and score)", 0);
        FIELD("model", FOVEA_VMAF_FIELD_STRING, model, 0);
    }
    FIELD("backend", FOVEA_VMAF_FIELD_STRING, fovea_backend_name(fovea_vmaf_backend(self->vmaf)),
          0);
    FIELD("threads", FOVEA_VMAF_FIELD_NUMBER, NULL, fovea_context_threads(self->score_ctx));
    FIELD("element", FOVEA_VMAF_FIELD_STRING, GST_OBJECT_NAME(self), 0);
    FIELD("width", FOVEA_VMAF_FIELD_NUMBER, NULL, GST_VIDEO_INFO_WIDTH(&self->dis_info));
    FIELD("height", FOVEA_VMAF_FIELD_NUMBER, NULL, GST_VIDEO_INFO_HEIGHT(&self->dis_info));
    FIELD("pixfmt", FOVEA_VMAF_FIELD_STRING,
          fovea_pixfmt_name(fovea_gst_pixfmt(GST_VIDEO_INFO_FORMAT(&self->dis_info))), 0);
    FIELD("frames", FOVEA_VMAF_FIELD_NUMBER, NULL, (double)n);
    FIELD("distorted_unscored", FOVEA_VMAF_FIELD_NUMBER, NULL, (double)self->passed_unscored);
    FIELD("reference_dropped", FOVEA_VMAF_FIELD_NUMBER, NULL, (double)self->ref_dropped);
#undef FIELD
    const fovea_vmaf_output o = {secs > 0 && n > 1 ? (double)(n - 1) / secs : 0.0, f, nf};
    fovea_outfile *of = NULL;
    int st = fovea_outfile_open(&of, self->base.ctx, path);
    if (st == FOVEA_OK) {
        /* a failed write is reported by commit with the stream's reason */
        st = fovea_vmaf_write(self->vmaf, fovea_outfile_file(of), FOVEA_VMAF_OUTPUT_JSON, &o);
        if (st == FOVEA_ERR_NOMEM) {
            fovea_outfile_close(&of);
            g_free(model);
            GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("%s: out of memory", path), (NULL));
            return FALSE;
        }
        st = fovea_outfile_commit(&of, self->base.ctx);
    }
    g_free(model);
    if (st < 0) {
        FOVEA_GST_ERROR(self, RESOURCE, WRITE, self->base.ctx, st, "location");
        return FALSE;
    }
    return TRUE;
}

/* The end of the distorted stream: the JSON, once. @return FALSE after posting an error */
gboolean vmaf_finish(GstFoveaVmaf *self)
{
    if (self->finished)
        return TRUE;
    self->finished = TRUE;
    /* the last frame's VMAF scores need the end of the stream */
    if (fovea_vmaf_flush(self->vmaf) < 0 || !receive_vmaf(self))
        return FALSE;
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
                             self->ref_dropped, self->ref_dropped == 1 ? "" : "s", self->rows->len),
                            (NULL));
    if (path && *path && self->rows->len == 0)
        GST_ELEMENT_WARNING(self, RESOURCE, WRITE,
                            ("no frame pair was scored: %s not written", path), (NULL));
    else if (path && *path)
        ok = write_json(self, path);
    g_free(path);
    return ok;
}
