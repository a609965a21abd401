/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* foveavmaf: every frame's posted scores and the JSON written at the end are
 * the library's on the same pairs, exact doubles: the feature list "vif"
 * (features=vif, 8- and 10-bit video), the VMAF API's
 * metrics, vmaf included, and pooling (features=vmaf); the distorted frames
 * pass on unchanged; a distorted frame without a reference passes on
 * unscored and is counted; a flushing seek starts a new scoring run;
 * mismatched inputs, a bad model and an unwritable location are clean
 * errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fovea/quality.h"
#include "gst_helpers.h"
#include "../vif_test.h"

#define W 96
#define H 64
#define DUR (GST_SECOND / 25)
#define MAXF 8

typedef struct {
    GstVideoInfo ri, di;
    int nref, ndis;
    GstBuffer *ref[MAXF], *dis[MAXF];
} feed;

static void push_pairs(GstElement *pipe, void *data)
{
    feed *f = data;
    for (int i = 0; i < MAXF; i++) {
        if (i < f->nref)
            gt_push(pipe, "ref", gst_buffer_ref(f->ref[i]));
        if (i < f->ndis)
            gt_push(pipe, "dis", gst_buffer_ref(f->dis[i]));
    }
    gt_eos(pipe, "ref");
    gt_eos(pipe, "dis");
}

static void make_feed(feed *f, GstVideoFormat rf, int rw, int rh, GstVideoFormat df, int dw, int dh,
                      int nref, int ndis)
{
    memset(f, 0, sizeof(*f));
    gst_video_info_set_format(&f->ri, rf, rw, rh);
    gst_video_info_set_format(&f->di, df, dw, dh);
    f->ri.fps_n = f->di.fps_n = 25;
    f->ri.fps_d = f->di.fps_d = 1;
    f->nref = nref;
    f->ndis = ndis;
    for (int i = 0; i < MAXF; i++) {
        f->ref[i] = gt_frame(&f->ri, i, 2, 1, 1, 5, DUR);
        f->dis[i] = gt_frame(&f->di, i, 2, 1, 9, 6, DUR); /* the same scene, noisier */
    }
}

static void free_feed(feed *f)
{
    for (int i = 0; i < MAXF; i++) {
        gst_buffer_unref(f->ref[i]);
        gst_buffer_unref(f->dis[i]);
    }
}

static GstElement *launch(const feed *f, const char *location, const char *props)
{
    GstCaps *rc = gst_video_info_to_caps(&f->ri), *dc = gst_video_info_to_caps(&f->di);
    gchar *rs = gst_caps_to_string(rc), *ds = gst_caps_to_string(dc);
    gchar *desc = g_strdup_printf("foveavmaf name=q location=\"%s\" backend=cpu %s ! appsink "
                                  "name=out sync=false  appsrc name=ref format=time caps=\"%s\" "
                                  "! q.ref  appsrc name=dis format=time caps=\"%s\" ! q.dis",
                                  location, props, rs, ds);
    GstElement *pipe = gt_launch(desc);
    gst_caps_unref(rc);
    gst_caps_unref(dc);
    g_free(rs);
    g_free(ds);
    g_free(desc);
    return pipe;
}

static double json_metric(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    GT_CHECK(cJSON_IsNumber(v), "JSON: no number %s", name);
    /* the raw text as written (%.17g), read back exactly */
    return v->valuedouble;
}

static void test_scores(GstVideoFormat fmt, const char *dir)
{
    feed f;
    const int n = 6;
    make_feed(&f, fmt, W, H, fmt, W, H, n, n + 1); /* one distorted frame without a reference */
    gchar *json = g_build_filename(dir, "scores.json", NULL);
    GstElement *pipe = launch(&f, json, "features=vif");
    gt_result r;
    gt_run(pipe, push_pairs, &f, 60, &r);
    GT_CHECK(!r.error, "%s", r.error);
    GT_CHECK(r.samples->len == (guint)n + 1, "%u frames passed on", r.samples->len);
    for (int i = 0; i <= n; i++) {
        GstMapInfo a, b;
        GstBuffer *ob = gst_sample_get_buffer(g_ptr_array_index(r.samples, i));
        GT_CHECK(gst_buffer_map(ob, &a, GST_MAP_READ) && gst_buffer_map(f.dis[i], &b, GST_MAP_READ),
                 "map");
        GT_CHECK(a.size == b.size && memcmp(a.data, b.data, a.size) == 0 &&
                     GST_BUFFER_PTS(ob) == GST_BUFFER_PTS(f.dis[i]),
                 "frame %d changed on its way", i);
        gst_buffer_unmap(ob, &a);
        gst_buffer_unmap(f.dis[i], &b);
    }
    GPtrArray *msgs = gt_messages(&r, "foveavmaf");
    GT_CHECK(msgs->len == (guint)n, "%u score messages", msgs->len);

    /* the library on the same pairs */
    fovea_context *ctx = NULL;
    fovea_vmaf *vif = NULL;
    fovea_settings fs;
    fovea_default_settings(&fs);
    fs.backend = FOVEA_BACKEND_CPU;
    GT_CHECK(fovea_open(&ctx, &fs) == FOVEA_OK && vif_test_open(&vif, ctx, NULL) == FOVEA_OK,
             "vif");
    vif_test_scores sc[MAXF];
    for (int i = 0; i < n; i++) {
        GstVideoFrame rv, dv;
        fovea_frame a, b;
        GT_CHECK(gst_video_frame_map(&rv, &f.ri, f.ref[i], GST_MAP_READ) &&
                     gst_video_frame_map(&dv, &f.di, f.dis[i], GST_MAP_READ),
                 "map");
        gt_wrap(&rv, &a);
        gt_wrap(&dv, &b);
        GT_CHECK(vif_test_process(vif, &a, &b, &sc[i]) == FOVEA_OK, "vif: %s",
                 fovea_last_error(ctx));
        gst_video_frame_unmap(&rv);
        gst_video_frame_unmap(&dv);
        const GstStructure *s = g_ptr_array_index(msgs, i);
        guint64 frame = 99;
        GT_CHECK(gst_structure_get_uint64(s, "frame", &frame) && frame == (guint64)i, "frame");
        for (int k = 0; k < VIF_TEST_SCALES; k++) {
            char name[32];
            double v = -1;
            snprintf(name, sizeof(name), "integer_vif_scale%d", k);
            GT_CHECK(gst_structure_get_double(s, name, &v) && v == sc[i].scale[k],
                     "frame %d %s: %.17g, library %.17g", i, name, v, sc[i].scale[k]);
        }
        GT_CHECK(sc[i].scale[0] > 0.1 && sc[i].scale[0] < 0.999, "frame %d: scale0 %g", i,
                 sc[i].scale[0]);
    }
    vif_test_pooled pl;
    vif_test_pooled_scores(vif, &pl);

    /* the JSON: every frame and the pooled scores, exact */
    gchar *text = NULL;
    GT_CHECK(g_file_get_contents(json, &text, NULL, NULL), "%s not written", json);
    cJSON *root = cJSON_Parse(text);
    GT_CHECK(root, "%s: not JSON", json);
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(root, "frames");
    GT_CHECK(cJSON_GetArraySize(frames) == n, "JSON: %d frames", cJSON_GetArraySize(frames));
    for (int i = 0; i < n; i++) {
        const cJSON *fr = cJSON_GetArrayItem(frames, i);
        GT_CHECK(cJSON_GetObjectItemCaseSensitive(fr, "frameNum")->valuedouble == i, "frameNum");
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(fr, "metrics");
        for (int k = 0; k < VIF_TEST_SCALES; k++) {
            char name[32];
            snprintf(name, sizeof(name), "integer_vif_scale%d", k);
            GT_CHECK(json_metric(m, name) == sc[i].scale[k], "JSON frame %d %s", i, name);
        }
    }
    const cJSON *pooled = cJSON_GetObjectItemCaseSensitive(root, "pooled_metrics");
    for (int k = 0; k < VIF_TEST_SCALES; k++) {
        char name[32];
        snprintf(name, sizeof(name), "integer_vif_scale%d", k);
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(pooled, name);
        GT_CHECK(json_metric(o, "min") == pl.scale[k].min &&
                     json_metric(o, "max") == pl.scale[k].max &&
                     json_metric(o, "mean") == pl.scale[k].mean &&
                     json_metric(o, "harmonic_mean") == pl.scale[k].harmonic_mean,
                 "JSON pooled %s", name);
    }
    const cJSON *fv = cJSON_GetObjectItemCaseSensitive(root, "fovea");
    GT_CHECK(cJSON_GetObjectItemCaseSensitive(fv, "distorted_unscored")->valuedouble == 1,
             "the distorted frame without a reference is counted");
    GT_CHECK(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "aggregate_metrics")),
             "aggregate_metrics");
    cJSON_Delete(root);
    g_free(text);

    fovea_vmaf_close(&vif);
    fovea_close(&ctx);
    g_ptr_array_unref(msgs);
    gt_result_clear(&r);
    gst_object_unref(pipe);
    g_free(json);
    free_feed(&f);
    printf("ok: scores %s\n", gst_video_format_to_string(fmt));
}

/* features=vmaf: every metric of the model, the score included, as the VMAF
 * API gives them; the last frame's scores come at the end of the stream. */
static void test_vmaf_with(GstVideoFormat fmt, const char *dir, const char *props,
                           const char *model_spec, const char *features)
{
    feed f;
    const int n = 5;
    make_feed(&f, fmt, W, H, fmt, W, H, n, n);
    gchar *json = g_build_filename(dir, "vmaf.json", NULL);
    GstElement *pipe = launch(&f, json, props);
    gt_result r;
    gt_run(pipe, push_pairs, &f, 120, &r);
    GT_CHECK(!r.error, "%s", r.error);
    GT_CHECK(r.samples->len == (guint)n, "%u frames passed on", r.samples->len);
    GPtrArray *msgs = gt_messages(&r, "foveavmaf");
    GT_CHECK(msgs->len == (guint)n, "%u score messages", msgs->len);

    fovea_context *ctx = NULL;
    fovea_vmaf *v = NULL;
    fovea_settings fs;
    fovea_default_settings(&fs);
    fs.backend = FOVEA_BACKEND_CPU;
    GT_CHECK(fovea_open(&ctx, &fs) == FOVEA_OK, "open: %s", fovea_last_error(ctx));
    fovea_vmaf_model *model = NULL;
    GT_CHECK(fovea_vmaf_model_open(&model, ctx, model_spec) == FOVEA_OK, "model: %s",
             fovea_last_error(ctx));
    fovea_vmaf_settings vs;
    fovea_vmaf_default_settings(&vs);
    vs.model = model;
    vs.features = features;
    GT_CHECK(fovea_vmaf_open(&v, ctx, &vs) == FOVEA_OK, "vmaf: %s", fovea_last_error(ctx));
    fovea_vmaf_scores sc[MAXF];
    int got = 0;
    for (int i = 0; i < n; i++) {
        GstVideoFrame rv, dv;
        fovea_frame a, b;
        GT_CHECK(gst_video_frame_map(&rv, &f.ri, f.ref[i], GST_MAP_READ) &&
                     gst_video_frame_map(&dv, &f.di, f.dis[i], GST_MAP_READ),
                 "map");
        gt_wrap(&rv, &a);
        gt_wrap(&dv, &b);
        GT_CHECK(fovea_vmaf_submit(v, &a, &b) == FOVEA_OK, "submit: %s", fovea_last_error(ctx));
        gst_video_frame_unmap(&rv);
        gst_video_frame_unmap(&dv);
        while (got < n && fovea_vmaf_receive(v, &sc[got]) == FOVEA_OK)
            got++;
    }
    GT_CHECK(fovea_vmaf_flush(v) == FOVEA_OK, "flush");
    while (got < n && fovea_vmaf_receive(v, &sc[got]) == FOVEA_OK)
        got++;
    GT_CHECK(got == n, "the library scored %d frames", got);
    const int nm = fovea_vmaf_metric_count(v);
    GT_CHECK(fovea_vmaf_metric_index(v, "vmaf") >= 0, "no vmaf metric");
    for (int i = 0; i < n; i++) {
        const GstStructure *s = g_ptr_array_index(msgs, i);
        for (int k = 0; k < nm; k++) {
            double x = -1;
            const char *name = fovea_vmaf_metric_name(v, k);
            GT_CHECK(gst_structure_get_double(s, name, &x) && x == sc[i].value[k],
                     "frame %d %s: %.17g, library %.17g", i, name, x, sc[i].value[k]);
        }
    }
    fovea_vmaf_pooled_scores pl;
    fovea_vmaf_pooled(v, &pl);
    gchar *text = NULL;
    GT_CHECK(g_file_get_contents(json, &text, NULL, NULL), "%s not written", json);
    cJSON *root = cJSON_Parse(text);
    GT_CHECK(root, "not JSON");
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(root, "frames");
    const cJSON *pooled = cJSON_GetObjectItemCaseSensitive(root, "pooled_metrics");
    GT_CHECK(cJSON_GetArraySize(frames) == n, "JSON frames");
    for (int k = 0; k < nm; k++) {
        const char *name = fovea_vmaf_metric_name(v, k);
        for (int i = 0; i < n; i++)
            GT_CHECK(json_metric(
                         cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(frames, i), "metrics"),
                         name) == sc[i].value[k],
                     "JSON frame %d %s", i, name);
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(pooled, name);
        GT_CHECK(json_metric(o, "min") == pl.metric[k].min &&
                     json_metric(o, "max") == pl.metric[k].max &&
                     json_metric(o, "mean") == pl.metric[k].mean &&
                     json_metric(o, "harmonic_mean") == pl.metric[k].harmonic_mean,
                 "JSON pooled %s", name);
    }
    const double vm = sc[n - 1].value[fovea_vmaf_metric_index(v, "vmaf")];
    GT_CHECK(vm > 1 && vm <= 100, "vmaf %g", vm);
    cJSON_Delete(root);
    g_free(text);
    fovea_vmaf_close(&v);
    fovea_vmaf_model_close(&model);
    fovea_close(&ctx);
    g_ptr_array_unref(msgs);
    gt_result_clear(&r);
    gst_object_unref(pipe);
    g_free(json);
    free_feed(&f);
    printf("ok: vmaf %s %s (%d metrics, last vmaf %.3f)\n", gst_video_format_to_string(fmt), props,
           nm, vm);
}

static void test_vmaf(GstVideoFormat fmt, const char *dir)
{
    test_vmaf_with(fmt, dir, "features=vmaf model=vmaf_v0.6.1", "vmaf_v0.6.1", NULL);
}

/* A flushing seek starts a new scoring run: the scores after it are those of
 * a straight run at the same frames, numbered from 0, and the JSON at the end
 * holds them alone. */
static void run_ball(const char *json, gboolean seek, GPtrArray **scores)
{
    gchar *desc =
        g_strdup_printf("foveavmaf name=q features=vif location=\"%s\" ! fakesink sync=false  "
                        "videotestsrc %s pattern=ball ! video/x-raw,format=I420,width=96,height=64,"
                        "framerate=25/1 ! q.ref  videotestsrc %s pattern=ball motion=sweep ! "
                        "video/x-raw,format=I420,width=96,height=64,framerate=25/1 ! q.dis",
                        json, seek ? "" : "num-buffers=6", seek ? "" : "num-buffers=6");
    GstElement *pipe = gt_launch(desc);
    g_free(desc);
    GstBus *bus = gst_element_get_bus(pipe);
    *scores = g_ptr_array_new_with_free_func((GDestroyNotify)gst_structure_free);
    GT_CHECK(gst_element_set_state(pipe, seek ? GST_STATE_PAUSED : GST_STATE_PLAYING) !=
                 GST_STATE_CHANGE_FAILURE,
             "state");
    if (seek) {
        GT_CHECK(gst_element_get_state(pipe, NULL, NULL, 10 * GST_SECOND) ==
                     GST_STATE_CHANGE_SUCCESS,
                 "preroll");
        const GstClockTime f = GST_SECOND / 25;
        GT_CHECK(gst_element_seek(pipe, 1.0, GST_FORMAT_TIME,
                                  GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET,
                                  (gint64)(2 * f), GST_SEEK_TYPE_SET, (gint64)(6 * f)),
                 "seek");
        gst_element_set_state(pipe, GST_STATE_PLAYING);
    }
    for (;;) {
        GstMessage *m = gst_bus_timed_pop(bus, 20 * GST_SECOND);
        GT_CHECK(m, "no EOS within 20 s");
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ELEMENT &&
            gst_structure_has_name(gst_message_get_structure(m), "foveavmaf"))
            g_ptr_array_add(*scores, gst_structure_copy(gst_message_get_structure(m)));
        const gboolean end = GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS;
        GT_CHECK(GST_MESSAGE_TYPE(m) != GST_MESSAGE_ERROR, "error");
        gst_message_unref(m);
        if (end)
            break;
    }
    gst_element_set_state(pipe, GST_STATE_NULL);
    gst_object_unref(bus);
    gst_object_unref(pipe);
}

static void test_seek(const char *dir)
{
    gchar *json = g_build_filename(dir, "seek.json", NULL);
    GPtrArray *straight, *seeked;
    run_ball(json, FALSE, &straight);
    run_ball(json, TRUE, &seeked);
    GT_CHECK(straight->len == 6, "%u scores in the straight run", straight->len);
    GT_CHECK(seeked->len >= 4, "%u scores with the seek", seeked->len);
    for (guint i = 0; i < 4; i++) {
        const GstStructure *a = g_ptr_array_index(seeked, seeked->len - 4 + i);
        const GstStructure *b = g_ptr_array_index(straight, i + 2);
        guint64 frame = 99;
        double x = -1, y = -2;
        GT_CHECK(gst_structure_get_uint64(a, "frame", &frame) && frame == i,
                 "after the seek: frame %" G_GUINT64_FORMAT ", expected %u", frame, i);
        GT_CHECK(gst_structure_get_double(a, "integer_vif_scale0", &x) &&
                     gst_structure_get_double(b, "integer_vif_scale0", &y) && x == y,
                 "after the seek: frame %u scale0 %.17g, straight run %.17g", i, x, y);
    }
    gchar *text = NULL;
    GT_CHECK(g_file_get_contents(json, &text, NULL, NULL), "no JSON");
    cJSON *root = cJSON_Parse(text);
    GT_CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "frames")) == 4,
             "the JSON after the seek holds %d frames",
             cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "frames")));
    cJSON_Delete(root);
    g_free(text);
    g_ptr_array_unref(straight);
    g_ptr_array_unref(seeked);
    g_free(json);
    printf("ok: flushing seek\n");
}

static void expect_error_props(GstVideoFormat rf, int rw, int rh, GstVideoFormat df, int dw, int dh,
                               const char *location, const char *props, const char *want)
{
    feed f;
    make_feed(&f, rf, rw, rh, df, dw, dh, 3, 3);
    GstElement *pipe = launch(&f, location, props);
    gt_result r;
    gt_run(pipe, push_pairs, &f, 60, &r);
    /* want: one text, or alternatives separated by newlines */
    gboolean found = FALSE;
    gchar **alts = g_strsplit(want, "\n", -1);
    for (int i = 0; alts[i] && r.error; i++)
        found |= strstr(r.error, alts[i]) != NULL;
    g_strfreev(alts);
    GT_CHECK(found, "expected an error with '%s', got %s", want, r.error ? r.error : "(none)");
    printf("ok: error: %s\n", r.error);
    gt_result_clear(&r);
    gst_object_unref(pipe);
    free_feed(&f);
}

static void expect_error(GstVideoFormat rf, int rw, int rh, GstVideoFormat df, int dw, int dh,
                         const char *location, const char *want)
{
    expect_error_props(rf, rw, rh, df, dw, dh, location, "features=vif", want);
}

int main(int argc, char **argv)
{
    gt_init(&argc, &argv);
    gchar *dir = gt_tmpdir();
    test_scores(GST_VIDEO_FORMAT_I420, dir);
    test_scores(GST_VIDEO_FORMAT_I420_10LE, dir);
    test_vmaf(GST_VIDEO_FORMAT_I420, dir);
    test_vmaf(GST_VIDEO_FORMAT_I420_10LE, dir);
    test_seek(dir);
    /* libvmaf's model parameters and extra features beside the model's */
    test_vmaf_with(GST_VIDEO_FORMAT_I420, dir,
                   "features=vmaf model=version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0 "
                   "extra-features=psnr,float_ssim:enable_lcs=true",
                   "version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0",
                   "psnr,float_ssim:enable_lcs=true");
    gchar *json = g_build_filename(dir, "e.json", NULL);
    /* the second input's caps are refused (the caps offered carry the first's
     * size), or, when both pads negotiate at once, the element says why */
    expect_error(GST_VIDEO_FORMAT_I420, 96, 64, GST_VIDEO_FORMAT_I420, 96, 48, json,
                 "not-negotiated\nref is 96x64 but dis is 96x48");
    expect_error(GST_VIDEO_FORMAT_I420, 96, 64, GST_VIDEO_FORMAT_I420_10LE, 96, 64, json,
                 "ref is 8-bit but dis is 10-bit");
    /* a directory cannot be written as a file: the library's message names it */
    expect_error(GST_VIDEO_FORMAT_I420, 96, 64, GST_VIDEO_FORMAT_I420, 96, 64, dir, dir);
    expect_error_props(GST_VIDEO_FORMAT_I420, 96, 64, GST_VIDEO_FORMAT_I420, 96, 64, json,
                       "features=vmaf model=/nonexistent/model.json", "/nonexistent/model.json");
    expect_error_props(GST_VIDEO_FORMAT_I420, 96, 64, GST_VIDEO_FORMAT_I420, 96, 64, json,
                       "features=vmaf model=vmaf_v9", "no built-in model \"vmaf_v9\"");
    g_free(json);
    gt_cleanup_dir(dir);
    gst_deinit();
    return 0;
}
