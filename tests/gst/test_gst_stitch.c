/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* foveastitch: two cameras (RGBA, RGB, NV12, I420) stitched by the element are
 * the library's panoramas of the same frames (fovea_stitcher_process with the
 * same settings), color off and automatic (deterministic, with the color
 * messages matching fovea_stitcher_get_color); a camera that ends early gets
 * the missing policy (wait, black, repeat up to max-repeat, then an error); a
 * flushing seek restarts cleanly; a Hugin project's photometric part is
 * applied unless photometric=false; bad properties are clean errors carrying
 * the library's message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/stitch.h"
#include "gst_helpers.h"

#define CW 160
#define CH 120
#define PW 320
#define PH 120
#define FRAMES 6
#define DUR (GST_SECOND / 30)

static const char *rig_json =
    "{\"panorama\": {\"projection\": \"equirectangular\", \"width\": 320, \"height\": 120,\n"
    "  \"hfov\": 100, \"vfov\": 40},\n \"blend\": {\"feather\": 16},\n \"cameras\": [\n"
    "  {\"name\": \"left\", \"width\": 160, \"height\": 120, \"model\": \"pinhole\", \"fx\": 120,"
    " \"fy\": 120, \"cx\": 79.5, \"cy\": 59.5, \"yaw\": -20, \"pitch\": 0, \"roll\": 0},\n"
    "  {\"name\": \"right\", \"width\": 160, \"height\": 120, \"model\": \"fisheye\", \"fx\": 90,"
    " \"fy\": 90, \"cx\": 79.5, \"cy\": 59.5, \"yaw\": 20, \"pitch\": 0, \"roll\": 0}]}\n";

static gchar *dir, *rig;

typedef struct {
    GstVideoInfo info;
    int n[2]; /* frames pushed per camera */
    GstBuffer *frames[2][FRAMES];
} feed;

static void push_cams(GstElement *pipe, void *data)
{
    feed *f = data;
    for (int i = 0; i < FRAMES; i++)
        for (int c = 0; c < 2; c++)
            if (i < f->n[c])
                gt_push(pipe, c ? "cam1" : "cam0", gst_buffer_ref(f->frames[c][i]));
    gt_eos(pipe, "cam0");
    gt_eos(pipe, "cam1");
}

static void make_feed(feed *f, GstVideoFormat fmt, int n0, int n1)
{
    gst_video_info_set_format(&f->info, fmt, CW, CH);
    f->info.fps_n = 30;
    f->info.fps_d = 1;
    f->n[0] = n0;
    f->n[1] = n1;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < FRAMES; i++)
            /* different exposures so that the color balance has work */
            f->frames[c][i] = gt_frame(&f->info, i, 3 - 5 * c, 1, 2, 21 + (uint32_t)c, DUR);
}

static void free_feed(feed *f)
{
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < FRAMES; i++)
            gst_buffer_unref(f->frames[c][i]);
}

/* The element on the rig (src NULL) or on src (e.g. pto="FILE"), with props. */
static GstElement *launch_on(const feed *f, const char *src, const char *props)
{
    GstCaps *caps = gst_video_info_to_caps(&f->info);
    gchar *cs = gst_caps_to_string(caps);
    gchar *rig_src = src ? NULL : g_strdup_printf("rig=\"%s\"", rig);
    gchar *desc =
        g_strdup_printf("foveastitch name=s %s backend=cpu %s ! appsink name=out sync=false  "
                        "appsrc name=cam0 format=time caps=\"%s\" ! s.sink_0  "
                        "appsrc name=cam1 format=time caps=\"%s\" ! s.sink_1",
                        src ? src : rig_src, props, cs, cs);
    g_free(rig_src);
    GstElement *pipe = gt_launch(desc);
    gst_caps_unref(caps);
    g_free(cs);
    g_free(desc);
    return pipe;
}

static GstElement *launch(const feed *f, const char *props)
{
    return launch_on(f, NULL, props);
}

/* The library's panorama of cameras' frames (NULL: a black frame). */
typedef struct {
    fovea_context *ctx;
    fovea_stitch_map *map;
    fovea_stitcher *st;
    fovea_frame out, black[2];
} reference;

static void ref_open(reference *r, GstVideoFormat fmt, fovea_color_mode color, int interval)
{
    memset(r, 0, sizeof(*r));
    fovea_settings fs;
    fovea_default_settings(&fs);
    fs.backend = FOVEA_BACKEND_CPU;
    GT_CHECK(fovea_open(&r->ctx, &fs) == FOVEA_OK, "context");
    GT_CHECK(fovea_stitch_map_open_rig_file(&r->map, r->ctx, rig) == FOVEA_OK, "map: %s",
             fovea_last_error(r->ctx));
    fovea_stitcher_settings ss;
    fovea_stitcher_default_settings(&ss);
    ss.color = color;
    ss.auto_interval = interval;
    ss.deterministic = color == FOVEA_COLOR_AUTO;
    GT_CHECK(fovea_stitcher_open(&r->st, r->ctx, r->map, &ss) == FOVEA_OK, "stitcher");
    const int rgb = fmt == GST_VIDEO_FORMAT_RGBA || fmt == GST_VIDEO_FORMAT_RGB;
    GT_CHECK(fovea_frame_alloc(r->ctx, &r->out, PW, PH, rgb ? FOVEA_PIX_RGBA : FOVEA_PIX_I420,
                               FOVEA_MEM_HOST) == FOVEA_OK,
             "alloc");
}

static void ref_close(reference *r)
{
    fovea_frame_free(r->ctx, &r->out);
    for (int c = 0; c < 2; c++)
        fovea_frame_free(r->ctx, &r->black[c]);
    fovea_stitcher_close(&r->st);
    fovea_stitch_map_close(&r->map);
    fovea_close(&r->ctx);
}

/* Black as the element documents it: RGB 0 (alpha 255), Y 16 and UV 128. */
static const fovea_frame *black(reference *r, int c, fovea_pixfmt fmt)
{
    fovea_frame *f = &r->black[c];
    if (!f->buf) {
        GT_CHECK(fovea_frame_alloc(r->ctx, f, CW, CH, fmt, FOVEA_MEM_HOST) == FOVEA_OK, "alloc");
        const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
        for (int p = 0; p < d->planes; p++)
            for (int y = 0; y < fovea_plane_height(fmt, CH, p); y++) {
                uint8_t *row = f->data[p] + (ptrdiff_t)y * f->stride[p];
                const size_t n = fovea_plane_row_bytes(fmt, CW, p);
                memset(row, d->is_rgb ? 0 : p ? 128 : 16, n);
                if (d->components == 4)
                    for (int x = 0; x < CW; x++)
                        row[4 * x + 3] = 255;
            }
    }
    return f;
}

/* Stitch the frames each camera gives at step i: its frame src[c] (-1 = black). */
static void ref_stitch(reference *r, const feed *f, const int src[2])
{
    GstVideoFrame vf[2];
    fovea_frame in[2];
    const fovea_frame *inp[2];
    for (int c = 0; c < 2; c++) {
        if (src[c] < 0) {
            const GstVideoFormat gf = GST_VIDEO_INFO_FORMAT(&f->info);
            inp[c] = black(r, c,
                           gf == GST_VIDEO_FORMAT_RGBA   ? FOVEA_PIX_RGBA
                           : gf == GST_VIDEO_FORMAT_RGB  ? FOVEA_PIX_RGB24
                           : gf == GST_VIDEO_FORMAT_NV12 ? FOVEA_PIX_NV12
                                                         : FOVEA_PIX_I420);
            continue;
        }
        GT_CHECK(gst_video_frame_map(&vf[c], &f->info, f->frames[c][src[c]], GST_MAP_READ), "map");
        gt_wrap(&vf[c], &in[c]);
        inp[c] = &in[c];
    }
    GT_CHECK(fovea_stitcher_process(r->st, inp, 2, &r->out) == FOVEA_OK, "stitch: %s",
             fovea_last_error(r->ctx));
    for (int c = 0; c < 2; c++)
        if (src[c] >= 0)
            gst_video_frame_unmap(&vf[c]);
}

static void check_sample(GstSample *smp, const fovea_frame *want, const char *what)
{
    GstVideoInfo gi;
    GstVideoFrame gv;
    GT_CHECK(gst_video_info_from_caps(&gi, gst_sample_get_caps(smp)), "caps");
    GT_CHECK(gst_video_frame_map(&gv, &gi, gst_sample_get_buffer(smp), GST_MAP_READ), "map");
    GT_CHECK(gt_frame_equal(&gv, want, what), "%s: the panorama differs from the library's", what);
    gst_video_frame_unmap(&gv);
}

static void test_formats(GstVideoFormat fmt, gboolean color_auto)
{
    char what[96];
    snprintf(what, sizeof(what), "%s color=%s", gst_video_format_to_string(fmt),
             color_auto ? "auto" : "off");
    feed f;
    make_feed(&f, fmt, FRAMES, FRAMES);
    GstElement *pipe =
        launch(&f, color_auto ? "color=auto deterministic=true color-interval=2" : "color=off");
    gt_result r;
    gt_run(pipe, push_cams, &f, 60, &r);
    GT_CHECK(!r.error, "%s: %s", what, r.error);
    GT_CHECK(r.samples->len == FRAMES, "%s: %u panoramas", what, r.samples->len);
    GPtrArray *colors = gt_messages(&r, "foveastitch-color");

    reference ref;
    ref_open(&ref, fmt, color_auto ? FOVEA_COLOR_AUTO : FOVEA_COLOR_OFF, 2);
    guint posted = 0;
    fovea_color_correction last[2];
    for (int i = 0; i < FRAMES; i++) {
        /* the corrections frame i is stitched with, posted when they change:
         * those set before it, except on frame 0, which the automatic balance
         * measures and corrects in full before stitching it (read after) */
        const int src[2] = {i, i};
        if (i == 0)
            ref_stitch(&ref, &f, src);
        fovea_color_correction cc[2];
        GT_CHECK(fovea_stitcher_get_color(ref.st, cc, 2) == FOVEA_OK, "get_color");
        if (i == 0 || memcmp(cc, last, sizeof(cc)) != 0) {
            GT_CHECK(posted < colors->len, "%s: no color message for frame %d", what, i);
            const GstStructure *s = g_ptr_array_index(colors, posted++);
            guint64 frame = 99;
            GT_CHECK(gst_structure_get_uint64(s, "frame", &frame) && frame == (guint64)i,
                     "%s: color message for frame %" G_GUINT64_FORMAT ", expected %d", what, frame,
                     i);
            const GValue *g = gst_structure_get_value(s, "gains");
            for (int k = 0; k < 6; k++)
                GT_CHECK(g_value_get_double(gst_value_array_get_value(g, (guint)k)) ==
                             (double)cc[k / 3].gain[k % 3],
                         "%s: frame %d gain %d", what, i, k);
        }
        memcpy(last, cc, sizeof(cc));
        if (i > 0)
            ref_stitch(&ref, &f, src);
        char fw[128];
        snprintf(fw, sizeof(fw), "%s frame %d", what, i);
        check_sample(g_ptr_array_index(r.samples, i), &ref.out, fw);
        /* output times count frames at the output rate */
        GT_CHECK(GST_BUFFER_PTS(gst_sample_get_buffer(g_ptr_array_index(r.samples, i))) ==
                     gst_util_uint64_scale_int((guint64)i, GST_SECOND, 30),
                 "%s: pts", fw);
    }
    GT_CHECK(posted == colors->len, "%s: %u color messages, expected %u", what, colors->len,
             posted);
    /* frame 0's message carries the balance measured on it: not the identity */
    if (color_auto) {
        const GstStructure *s0 = g_ptr_array_index(colors, 0);
        const GValue *g0 = gst_structure_get_value(s0, "gains");
        int moved = 0;
        for (int k = 0; k < 6; k++)
            moved |= g_value_get_double(gst_value_array_get_value(g0, (guint)k)) != 1.0;
        GT_CHECK(moved, "%s: the automatic balance left frame 0 uncorrected", what);
    }
    ref_close(&ref);
    g_ptr_array_unref(colors);
    gt_result_clear(&r);
    gst_object_unref(pipe);
    free_feed(&f);
    printf("ok: %s\n", what);
}

/* The RGBA panoramas of the feed through the element on a Hugin project. */
static gt_result run_pto(const feed *f, const char *pto, const char *props)
{
    gchar *src = g_strdup_printf("pto=\"%s\"", pto);
    GstElement *pipe = launch_on(f, src, props);
    gt_result r;
    gt_run(pipe, push_cams, (void *)f, 60, &r);
    gst_object_unref(pipe);
    g_free(src);
    return r;
}

/* Bytes of panorama i that differ between two runs. */
static size_t sample_diff(const gt_result *a, const gt_result *b, guint i)
{
    GstMapInfo ma, mb;
    GstBuffer *ba = gst_sample_get_buffer(g_ptr_array_index(a->samples, i));
    GstBuffer *bb = gst_sample_get_buffer(g_ptr_array_index(b->samples, i));
    size_t n = 0;
    if (!gst_buffer_map(ba, &ma, GST_MAP_READ))
        return (size_t)-1;
    if (!gst_buffer_map(bb, &mb, GST_MAP_READ)) {
        gst_buffer_unmap(ba, &ma);
        return (size_t)-1;
    }
    const size_t len = ma.size < mb.size ? ma.size : mb.size;
    for (size_t k = 0; k < len; k++)
        n += ma.data[k] != mb.data[k];
    n += ma.size > mb.size ? ma.size - mb.size : mb.size - ma.size;
    gst_buffer_unmap(ba, &ma);
    gst_buffer_unmap(bb, &mb);
    return n;
}

/* A Hugin project with a photometric part (exposure, white balance,
 * vignetting, an EMoR response): applied by default; with photometric=false
 * the panoramas are those of the same project without it. */
static void test_photometric(void)
{
    static const char *geometry[2] = {"r0 p0 y-20", "r0 p0 y20"};
    static const char *photo[2] = {
        "Ra0.6 Rb-0.3 Rc0.2 Rd0.1 Re0 Eev0.5 Er1.2 Eb0.8 Va1 Vb-0.3 Vc0.1 Vd0 Vx4 Vy-3 Vm5",
        "Ra0 Rb0 Rc0 Rd0 Re0 Eev-0.25 Er0.9 Eb1.1 Va1 Vb-0.2 Vc0 Vd0 Vx0 Vy0 Vm5"};
    gchar *with = g_build_filename(dir, "photo.pto", NULL);
    gchar *without = g_build_filename(dir, "plain.pto", NULL);
    for (int k = 0; k < 2; k++) {
        GString *t = g_string_new("p f2 w320 h120 v100 E0 R0 n\"TIFF_m\"\n");
        for (int c = 0; c < 2; c++)
            g_string_append_printf(t, "i w%d h%d f0 v67 %s %s n\"cam%d.png\"\n", CW, CH,
                                   geometry[c], k == 0 ? photo[c] : "Eev0 Er1 Eb1", c);
        gt_write_file(k == 0 ? with : without, t->str);
        g_string_free(t, TRUE);
    }
    feed f;
    make_feed(&f, GST_VIDEO_FORMAT_RGBA, FRAMES, FRAMES);
    gt_result on = run_pto(&f, with, "color=off");
    gt_result off = run_pto(&f, with, "color=off photometric=false");
    gt_result plain = run_pto(&f, without, "color=off");
    GT_CHECK(!on.error && !off.error && !plain.error, "photometric: %s",
             on.error    ? on.error
             : off.error ? off.error
                         : plain.error);
    GT_CHECK(
        on.samples->len == FRAMES && off.samples->len == FRAMES && plain.samples->len == FRAMES,
        "photometric: %u, %u, %u panoramas", on.samples->len, off.samples->len, plain.samples->len);
    size_t changed = 0;
    for (guint i = 0; i < FRAMES; i++) {
        GT_CHECK(sample_diff(&off, &plain, i) == 0,
                 "photometric=false: panorama %u differs from the project without it", i);
        changed += sample_diff(&on, &off, i);
    }
    /* exposure, white balance and vignetting move most of the covered bytes */
    GT_CHECK(changed > (size_t)FRAMES * PW * PH, "photometric: only %zu bytes changed", changed);
    gt_result_clear(&on);
    gt_result_clear(&off);
    gt_result_clear(&plain);
    free_feed(&f);
    g_free(with);
    g_free(without);
    printf("ok: photometric (%zu bytes of %d panoramas changed by it)\n", changed, FRAMES);
}

/* Camera 1 ends after 3 frames of 6. */
static void test_missing(GstVideoFormat fmt, const char *props, int want_frames,
                         const char *want_error, int black_camera)
{
    char what[128];
    snprintf(what, sizeof(what), "%s missing: %s", gst_video_format_to_string(fmt), props);
    feed f;
    make_feed(&f, fmt, FRAMES, 3);
    gchar *p = g_strdup_printf("color=off %s", props);
    GstElement *pipe = launch(&f, p);
    g_free(p);
    gt_result r;
    gt_run(pipe, push_cams, &f, 60, &r);
    if (want_error) {
        GT_CHECK(r.error && strstr(r.error, want_error), "%s: error %s, expected '%s'", what,
                 r.error ? r.error : "(none)", want_error);
    } else {
        GT_CHECK(!r.error, "%s: %s", what, r.error);
    }
    GT_CHECK(r.samples->len == (guint)want_frames, "%s: %u panoramas, expected %d", what,
             r.samples->len, want_frames);
    reference ref;
    ref_open(&ref, fmt, FOVEA_COLOR_OFF, 30);
    for (int i = 0; i < (int)r.samples->len; i++) {
        const int src[2] = {i, i < 3 ? i : black_camera ? -1 : 2};
        ref_stitch(&ref, &f, src);
        char fw[160];
        snprintf(fw, sizeof(fw), "%s frame %d", what, i);
        check_sample(g_ptr_array_index(r.samples, i), &ref.out, fw);
    }
    if (want_frames > 3) {
        GPtrArray *cams = gt_messages(&r, "foveastitch-camera");
        GT_CHECK(cams->len >= 1, "%s: no camera message", what);
        int cam = -1;
        gboolean missing = FALSE;
        gst_structure_get_int(g_ptr_array_index(cams, 0), "camera", &cam);
        gst_structure_get_boolean(g_ptr_array_index(cams, 0), "missing", &missing);
        GT_CHECK(cam == 1 && missing, "%s: camera message", what);
        g_ptr_array_unref(cams);
    }
    ref_close(&ref);
    gt_result_clear(&r);
    gst_object_unref(pipe);
    free_feed(&f);
    printf("ok: %s%s%s\n", what, want_error ? ": " : "", want_error ? want_error : "");
}

/* A flushing seek: the panoramas after it are those of an unseeked run at the
 * same times (videotestsrc draws its animations from the frame number; the "snow" of
 * its SMPTE pattern is not, so it is not used). */
static GstSample *pull(GstElement *pipe)
{
    GstElement *out = gst_bin_get_by_name(GST_BIN(pipe), "out");
    GstSample *s = gst_app_sink_try_pull_sample(GST_APP_SINK(out), 20 * GST_SECOND);
    gst_object_unref(out);
    GT_CHECK(s != NULL, "no panorama within 20 s");
    return s;
}

static void test_seek(void)
{
    gchar *desc = g_strdup_printf(
        "foveastitch name=s rig=\"%s\" color=off ! appsink name=out sync=false max-buffers=1  "
        "videotestsrc pattern=ball ! video/x-raw,format=I420,width=160,height=120,framerate=30/1 "
        "! s.sink_0  videotestsrc pattern=ball motion=sweep foreground-color=0xffff8000 ! video/x-raw,format=I420,width=160,height=120,"
        "framerate=30/1 ! s.sink_1",
        rig);
    GstSample *straight[6];
    GstElement *pipe = gt_launch(desc);
    GT_CHECK(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE, "play");
    for (int i = 0; i < 6; i++)
        straight[i] = pull(pipe);
    gst_element_set_state(pipe, GST_STATE_NULL);
    gst_object_unref(pipe);

    pipe = gt_launch(desc);
    GT_CHECK(gst_element_set_state(pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE, "play");
    for (int i = 0; i < 5; i++)
        gst_sample_unref(pull(pipe));
    GT_CHECK(gst_element_seek_simple(pipe, GST_FORMAT_TIME,
                                     GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
                                     gst_util_uint64_scale_int(2, GST_SECOND, 30)),
             "seek");
    for (int i = 2; i < 6; i++) {
        GstSample *s = pull(pipe);
        GstBuffer *b = gst_sample_get_buffer(s), *w = gst_sample_get_buffer(straight[i]);
        /* (the aggregator counts output times from the seek position: +-1 ns) */
        GT_CHECK(GST_BUFFER_PTS(b) + 1 >= GST_BUFFER_PTS(w) &&
                     GST_BUFFER_PTS(b) <= GST_BUFFER_PTS(w) + 1,
                 "after the seek: pts %" GST_TIME_FORMAT ", expected %" GST_TIME_FORMAT,
                 GST_TIME_ARGS(GST_BUFFER_PTS(b)), GST_TIME_ARGS(GST_BUFFER_PTS(w)));
        GstMapInfo a, c;
        GT_CHECK(gst_buffer_map(b, &a, GST_MAP_READ) && gst_buffer_map(w, &c, GST_MAP_READ), "map");
        GT_CHECK(a.size == c.size && memcmp(a.data, c.data, a.size) == 0,
                 "after the seek: frame %d differs from the straight run's", i);
        gst_buffer_unmap(b, &a);
        gst_buffer_unmap(w, &c);
        gst_sample_unref(s);
    }
    GstBus *bus = gst_element_get_bus(pipe);
    GstMessage *m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
    GT_CHECK(!m, "an error during the seek");
    gst_object_unref(bus);
    gst_element_set_state(pipe, GST_STATE_NULL);
    gst_object_unref(pipe);
    for (int i = 0; i < 6; i++)
        gst_sample_unref(straight[i]);
    g_free(desc);
    printf("ok: flushing seek\n");
}

/* A pipeline of two 160x120 test cameras with these properties must fail with want. */
static void expect_error(const char *props, int cameras, const char *want)
{
    GString *d = g_string_new(NULL);
    g_string_append_printf(d, "foveastitch name=s %s ! fakesink ", props);
    for (int c = 0; c < cameras; c++)
        g_string_append_printf(d,
                               " videotestsrc num-buffers=3 ! video/x-raw,format=I420,"
                               "width=160,height=120 ! s.sink_%d",
                               c);
    GstElement *pipe = gt_launch(d->str);
    gt_result r;
    gt_run(pipe, NULL, NULL, 30, &r);
    GT_CHECK(r.error && strstr(r.error, want), "%s: expected an error with '%s', got %s", d->str,
             want, r.error ? r.error : "(none)");
    printf("ok: error: %s\n", r.error);
    gt_result_clear(&r);
    gst_object_unref(pipe);
    g_string_free(d, TRUE);
}

static void test_errors(void)
{
    gchar *p;
    gchar *missing = g_build_filename(dir, "absent.json", NULL);
    p = g_strdup_printf("rig=\"%s\"", missing);
    expect_error(p, 2, "absent.json");
    g_free(p);
    expect_error("", 2, "set one of the rig, pto or map properties");

    gchar *bad = g_build_filename(dir, "bad.json", NULL);
    gt_write_file(bad, "{\"panorama\": {\"projection\": \"equirectangular\", \"width\": 320,");
    p = g_strdup_printf("rig=\"%s\"", bad);
    expect_error(p, 2, "bad.json");
    g_free(p);
    gt_write_file(bad, "{\"panorama\": {\"projection\": \"mercator\", \"width\": 320, "
                       "\"height\": 120, \"hfov\": 100, \"vfov\": 40}, \"cameras\": []}");
    p = g_strdup_printf("rig=\"%s\"", bad);
    expect_error(p, 2, "panorama.projection");
    g_free(p);
    p = g_strdup_printf("map=\"%s\"", rig); /* a rig is no map file */
    expect_error(p, 2, "map: ");
    g_free(p);

    gchar *colors = g_build_filename(dir, "colors.json", NULL);
    gt_write_file(colors, "{\"cameras\": [{\"gain\": [1, 1, 1], \"gamma\": 1}]}");
    p = g_strdup_printf("rig=\"%s\" color=fixed:%s", rig, colors);
    expect_error(p, 2, "colors.json");
    g_free(p);
    p = g_strdup_printf("rig=\"%s\" color=%s", rig, missing);
    expect_error(p, 2, "absent.json");
    g_free(p);

    p = g_strdup_printf("rig=\"%s\"", rig);
    expect_error(p, 3, "the map has 2 cameras");
    g_free(p);
    g_free(colors);
    g_free(bad);
    g_free(missing);
}

int main(int argc, char **argv)
{
    gt_init(&argc, &argv);
    dir = gt_tmpdir();
    rig = g_build_filename(dir, "rig.json", NULL);
    gt_write_file(rig, rig_json);

    static const GstVideoFormat fmts[] = {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGB,
                                          GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420};
    for (size_t i = 0; i < G_N_ELEMENTS(fmts); i++) {
        test_formats(fmts[i], FALSE);
        test_formats(fmts[i], TRUE);
    }
    test_photometric();
    test_missing(GST_VIDEO_FORMAT_I420, "missing=wait", 3, NULL, 0);
    test_missing(GST_VIDEO_FORMAT_I420, "missing=black", FRAMES, NULL, 1);
    test_missing(GST_VIDEO_FORMAT_RGBA, "missing=black", FRAMES, NULL, 1);
    test_missing(GST_VIDEO_FORMAT_I420, "missing=repeat max-repeat=3", FRAMES, NULL, 0);
    test_missing(GST_VIDEO_FORMAT_NV12, "missing=repeat max-repeat=2", 5,
                 "already repeated 2 times (max-repeat=2)", 0);
    test_seek();
    test_errors();

    g_free(rig);
    gt_cleanup_dir(dir);
    gst_deinit();
    return 0;
}
