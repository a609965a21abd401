/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* foveatrack: the positions posted for every frame are those of fovea's KLT
 * run directly on the same luma with the same parameters (bit for bit), for
 * YUV and RGB frames; draw=false passes the frames on untouched, draw=true
 * paints the features; a flush selects afresh; parameters KLT refuses for the
 * frame size are a clean error with the library's message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/check/gstharness.h>

#include "fovea/klt.h"
#include "gst_helpers.h"

#define W 128
#define H 96
#define FRAMES 6
#define NFEAT 40
#define DUR (GST_SECOND / 30)

typedef struct {
    GstVideoInfo info;
    GstBuffer *frames[FRAMES];
} feed;

static void push_frames(GstElement *pipe, void *data)
{
    feed *f = data;
    for (int i = 0; i < FRAMES; i++)
        gt_push(pipe, "src", gst_buffer_ref(f->frames[i]));
    gt_eos(pipe, "src");
}

static void make_feed(feed *f, GstVideoFormat fmt)
{
    gst_video_info_set_format(&f->info, fmt, W, H);
    f->info.fps_n = 30;
    f->info.fps_d = 1;
    for (int i = 0; i < FRAMES; i++)
        f->frames[i] = gt_frame(&f->info, i, 2, 1, 0, 11, DUR);
}

static void free_feed(feed *f)
{
    for (int i = 0; i < FRAMES; i++)
        gst_buffer_unref(f->frames[i]);
}

static gchar *caps_string(const GstVideoInfo *info)
{
    GstCaps *caps = gst_video_info_to_caps(info);
    gchar *s = gst_caps_to_string(caps);
    gst_caps_unref(caps);
    return s;
}

/* The luma KLT sees: the Y plane, or (77 R + 150 G + 29 B + 128) >> 8. */
static void luma(GstBuffer *buf, const GstVideoInfo *info, unsigned char *out)
{
    GstVideoFrame vf;
    GT_CHECK(gst_video_frame_map(&vf, info, buf, GST_MAP_READ), "map");
    const int rgb = GST_VIDEO_INFO_IS_RGB(info);
    const int bpp = GST_VIDEO_INFO_COMP_PSTRIDE(info, 0);
    for (int y = 0; y < H; y++) {
        const guint8 *row = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&vf, 0) +
                            (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE(&vf, 0);
        for (int x = 0; x < W; x++) {
            const guint8 *p = row + (gsize)x * (rgb ? bpp : 1);
            out[y * W + x] =
                rgb ? (unsigned char)((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8) : p[0];
        }
    }
    gst_video_frame_unmap(&vf);
}

static double array_double(const GstStructure *s, const char *field, int k)
{
    const GValue *a = gst_structure_get_value(s, field);
    GT_CHECK(a && GST_VALUE_HOLDS_ARRAY(a) && (int)gst_value_array_get_size(a) > k, "%s", field);
    const GValue *v = gst_value_array_get_value(a, (guint)k);
    return G_VALUE_HOLDS_DOUBLE(v) ? g_value_get_double(v) : (double)g_value_get_int(v);
}

static void test_positions(GstVideoFormat fmt, gboolean replace, gboolean sequential)
{
    feed f;
    make_feed(&f, fmt);
    gchar *cs = caps_string(&f.info);
    gchar *desc = g_strdup_printf("appsrc name=src format=time caps=\"%s\" ! foveatrack "
                                  "features=%d replace=%d sequential=%d backend=cpu ! "
                                  "appsink name=out sync=false",
                                  cs, NFEAT, replace, sequential);
    GstElement *pipe = gt_launch(desc);
    gt_result r;
    gt_run(pipe, push_frames, &f, 60, &r);
    GT_CHECK(!r.error, "%s", r.error);
    GT_CHECK(r.samples->len == FRAMES, "%u frames out", r.samples->len);
    GPtrArray *msgs = gt_messages(&r, "foveatrack");
    GT_CHECK(msgs->len == FRAMES, "%u messages", msgs->len);

    /* the library on the same luma, as cmd_track drives it */
    KLT_TrackingContext tc = KLTCreateTrackingContext();
    KLT_FeatureList fl = KLTCreateFeatureList(NFEAT);
    tc->backend = FOVEA_BACKEND_CPU;
    tc->sequentialMode = sequential;
    KLTUpdateTCBorder(tc);
    unsigned char prev[W * H], cur[W * H];
    int tracked_total = 0;
    for (int i = 0; i < FRAMES; i++) {
        luma(f.frames[i], &f.info, cur);
        if (i == 0) {
            KLTSelectGoodFeatures(tc, cur, W, H, fl);
        } else {
            KLTTrackFeatures(tc, prev, cur, W, H, fl);
            if (replace)
                KLTReplaceLostFeatures(tc, cur, W, H, fl);
        }
        GT_CHECK(fovea_klt_last_status(tc) == FOVEA_OK, "KLT: %s", fovea_last_error(NULL));
        const GstStructure *s = g_ptr_array_index(msgs, i);
        guint64 frame = 0;
        int nf = 0, tracked = 0;
        GT_CHECK(gst_structure_get(s, "frame", G_TYPE_UINT64, &frame, "features", G_TYPE_INT, &nf,
                                   "tracked", G_TYPE_INT, &tracked, NULL),
                 "fields");
        GT_CHECK(frame == (guint64)i && nf == NFEAT,
                 "frame %d: frame %" G_GUINT64_FORMAT " features %d", i, frame, nf);
        GT_CHECK(tracked == KLTCountRemainingFeatures(fl), "frame %d: tracked %d, KLT %d", i,
                 tracked, KLTCountRemainingFeatures(fl));
        for (int k = 0; k < NFEAT; k++) {
            const KLT_Feature ft = fl->feature[k];
            GT_CHECK(array_double(s, "x", k) == (double)ft->x &&
                         array_double(s, "y", k) == (double)ft->y &&
                         (int)array_double(s, "val", k) == ft->val,
                     "frame %d feature %d: (%.9g, %.9g, %d), KLT (%.9g, %.9g, %d)", i, k,
                     array_double(s, "x", k), array_double(s, "y", k),
                     (int)array_double(s, "val", k), (double)ft->x, (double)ft->y, ft->val);
        }
        tracked_total += tracked;
        memcpy(prev, cur, sizeof(cur));
    }
    GT_CHECK(tracked_total > FRAMES * NFEAT / 4, "hardly anything tracked (%d)", tracked_total);

    /* the features are drawn: the output differs from the input */
    GstMapInfo a, b;
    GstBuffer *ob = gst_sample_get_buffer(g_ptr_array_index(r.samples, FRAMES - 1));
    GT_CHECK(gst_buffer_map(ob, &a, GST_MAP_READ) &&
                 gst_buffer_map(f.frames[FRAMES - 1], &b, GST_MAP_READ),
             "map");
    GT_CHECK(a.size == b.size && memcmp(a.data, b.data, a.size) != 0, "nothing drawn");
    gst_buffer_unmap(ob, &a);
    gst_buffer_unmap(f.frames[FRAMES - 1], &b);

    KLTFreeFeatureList(fl);
    KLTFreeTrackingContext(tc);
    g_ptr_array_unref(msgs);
    gt_result_clear(&r);
    gst_object_unref(pipe);
    g_free(desc);
    g_free(cs);
    free_feed(&f);
    printf("ok: positions %s replace=%d sequential=%d\n", gst_video_format_to_string(fmt), replace,
           sequential);
}

/* draw=false: the frames pass on untouched (the positions are still posted). */
static void test_no_draw(void)
{
    feed f;
    make_feed(&f, GST_VIDEO_FORMAT_NV12);
    gchar *cs = caps_string(&f.info);
    gchar *desc = g_strdup_printf("appsrc name=src format=time caps=\"%s\" ! foveatrack "
                                  "features=20 draw=false ! appsink name=out sync=false",
                                  cs);
    GstElement *pipe = gt_launch(desc);
    gt_result r;
    gt_run(pipe, push_frames, &f, 60, &r);
    GT_CHECK(!r.error, "%s", r.error);
    GT_CHECK(r.samples->len == FRAMES, "%u frames", r.samples->len);
    for (int i = 0; i < FRAMES; i++) {
        GstMapInfo a, b;
        GstBuffer *ob = gst_sample_get_buffer(g_ptr_array_index(r.samples, i));
        GT_CHECK(gst_buffer_map(ob, &a, GST_MAP_READ) &&
                     gst_buffer_map(f.frames[i], &b, GST_MAP_READ),
                 "map");
        GT_CHECK(a.size == b.size && memcmp(a.data, b.data, a.size) == 0, "frame %d changed", i);
        gst_buffer_unmap(ob, &a);
        gst_buffer_unmap(f.frames[i], &b);
    }
    GPtrArray *msgs = gt_messages(&r, "foveatrack");
    GT_CHECK(msgs->len == FRAMES, "%u messages", msgs->len);
    g_ptr_array_unref(msgs);
    gt_result_clear(&r);
    gst_object_unref(pipe);
    g_free(desc);
    g_free(cs);
    free_feed(&f);
    printf("ok: draw=false\n");
}

/* After a flush the features are selected afresh on the next frame. */
static void test_flush(void)
{
    feed f;
    make_feed(&f, GST_VIDEO_FORMAT_GRAY8);
    GstHarness *h = gst_harness_new_parse("foveatrack features=30 draw=false backend=cpu");
    GstBus *bus = gst_bus_new();
    gst_element_set_bus(h->element, bus);
    GstCaps *caps = gst_video_info_to_caps(&f.info);
    gst_harness_set_src_caps(h, caps);
    for (int i = 0; i < 3; i++) {
        GT_CHECK(gst_harness_push(h, gst_buffer_ref(f.frames[i])) == GST_FLOW_OK, "push");
        gst_buffer_unref(gst_harness_pull(h));
    }
    GT_CHECK(gst_harness_push_event(h, gst_event_new_flush_start()), "flush start");
    GT_CHECK(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)), "flush stop");
    GstSegment seg;
    gst_segment_init(&seg, GST_FORMAT_TIME);
    GT_CHECK(gst_harness_push_event(h, gst_event_new_segment(&seg)), "segment");
    GT_CHECK(gst_harness_push(h, gst_buffer_ref(f.frames[5])) == GST_FLOW_OK, "push");
    gst_buffer_unref(gst_harness_pull(h));
    /* the last message: frame 0 again, and the features KLT selects on frame 5 */
    GstMessage *m, *last = NULL;
    while ((m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT))) {
        if (last)
            gst_message_unref(last);
        last = m;
    }
    GT_CHECK(last, "no message");
    const GstStructure *s = gst_message_get_structure(last);
    guint64 frame = 99;
    GT_CHECK(gst_structure_get_uint64(s, "frame", &frame) && frame == 0,
             "after the flush: frame %" G_GUINT64_FORMAT, frame);
    KLT_TrackingContext tc = KLTCreateTrackingContext();
    KLT_FeatureList fl = KLTCreateFeatureList(30);
    tc->backend = FOVEA_BACKEND_CPU;
    KLTUpdateTCBorder(tc);
    unsigned char img[W * H];
    luma(f.frames[5], &f.info, img);
    KLTSelectGoodFeatures(tc, img, W, H, fl);
    for (int k = 0; k < 30; k++)
        GT_CHECK(array_double(s, "x", k) == (double)fl->feature[k]->x &&
                     (int)array_double(s, "val", k) == fl->feature[k]->val,
                 "after the flush: feature %d is not KLT's selection", k);
    KLTFreeFeatureList(fl);
    KLTFreeTrackingContext(tc);
    gst_message_unref(last);
    gst_element_set_bus(h->element, NULL);
    gst_object_unref(bus);
    gst_harness_teardown(h);
    free_feed(&f);
    printf("ok: flush\n");
}

/* A pyramid the frame cannot hold: an error when the caps arrive, with KLT's reason. */
static void test_bad_params(void)
{
    GstElement *pipe = gt_launch("videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! "
                                 "foveatrack pyramid-levels=6 subsampling=8 ! fakesink");
    gt_result r;
    gt_run(pipe, NULL, NULL, 30, &r);
    GT_CHECK(r.error && strstr(r.error, "KLT parameters for 64x48 frames: ") &&
                 strstr(r.error, "nPyramidLevels 6 with subsampling 8"),
             "error: %s", r.error ? r.error : "(none)");
    printf("ok: bad parameters: %s\n", r.error);
    gt_result_clear(&r);
    gst_object_unref(pipe);
}

int main(int argc, char **argv)
{
    gt_init(&argc, &argv);
    test_positions(GST_VIDEO_FORMAT_I420, FALSE, FALSE);
    test_positions(GST_VIDEO_FORMAT_I420, TRUE, TRUE);
    test_positions(GST_VIDEO_FORMAT_RGBA, TRUE, FALSE);
    test_no_draw();
    test_flush();
    test_bad_params();
    gst_deinit();
    return 0;
}
