/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* foveadiff: every mode on several formats and denoising filters (the
 * temporal one included) gives the library's bytes (fovea_diff_compute's heat
 * map or noise map; its mask drawn as tiles) and its statistics per frame; the first frame and the frame after a flush
 * are compared with themselves; caps it cannot do are refused; a setting the
 * library refuses is a clean error with its message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/check/gstharness.h>

#include "fovea/diff.h"
#include "gst_helpers.h"

#define W 96
#define H 64
#define FRAMES 4
#define DUR (GST_SECOND / 25)

typedef struct {
    const char *in, *out, *mode;
    int threshold, normalize, tile;
    const char *denoise;
    fovea_diff_denoise_mode dn;
} diff_case;

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

/* The mask drawn as the element documents it: changed tiles white, others black. */
static void draw_mask(fovea_frame *out, const fovea_diff_mask_result *m)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(out->fmt);
    for (int p = 0; p < d->planes; p++) {
        const int sh = p ? d->log2_chroma_w : 0;
        for (int y = 0; y < fovea_plane_height(out->fmt, out->height, p); y++) {
            uint8_t *row = out->data[p] + (ptrdiff_t)y * out->stride[p];
            for (int x = 0; x < fovea_plane_width(out->fmt, out->width, p); x++) {
                const int on = m->changed[((y << sh) / m->tile) * m->tiles_x + (x << sh) / m->tile];
                if (d->is_rgb) {
                    for (int k = 0; k < 3; k++)
                        row[d->components * x + k] = on ? 255 : 0;
                    if (d->components == 4)
                        row[4 * x + 3] = 255;
                } else {
                    row[x] = p ? 128 : (on ? 235 : 16);
                }
            }
        }
    }
}

static void run_case(const diff_case *c)
{
    char what[160];
    snprintf(what, sizeof(what), "%s -> %s %s (threshold %d, normalize %d, tile %d, %s)", c->in,
             c->out, c->mode, c->threshold, c->normalize, c->tile, c->denoise);
    feed f;
    gst_video_info_set_format(&f.info, gst_video_format_from_string(c->in), W, H);
    f.info.fps_n = 25;
    f.info.fps_d = 1;
    for (int i = 0; i < FRAMES; i++)
        f.frames[i] = gt_frame(&f.info, i, 3, 1, 4, 7, DUR);
    GstCaps *caps = gst_video_info_to_caps(&f.info);
    gchar *cs = gst_caps_to_string(caps);
    gst_caps_unref(caps);
    gchar *desc =
        g_strdup_printf("appsrc name=src format=time caps=\"%s\" ! foveadiff mode=%s "
                        "threshold=%d normalize=%d tile=%d denoise=%s ! "
                        "video/x-raw,format=%s ! appsink name=out sync=false",
                        cs, c->mode, c->threshold, c->normalize, c->tile, c->denoise, c->out);
    GstElement *pipe = gt_launch(desc);
    gt_result r;
    gt_run(pipe, push_frames, &f, 60, &r);
    GT_CHECK(!r.error, "%s: %s", what, r.error);
    GT_CHECK(r.samples->len == FRAMES, "%s: %u frames out", what, r.samples->len);
    GPtrArray *stats = gt_messages(&r, "foveadiff");
    GT_CHECK(stats->len == FRAMES, "%s: %u stats messages", what, stats->len);

    /* the library on the same frames */
    fovea_context *ctx = NULL;
    GT_CHECK(fovea_open(&ctx, NULL) == FOVEA_OK, "context");
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    s.threshold = c->threshold;
    s.normalize_max = c->normalize;
    s.tile = c->tile;
    s.denoise = c->dn;
    s.noise_mode =
        strcmp(c->mode, "overlay") == 0 ? FOVEA_DIFF_NOISE_OVERLAY : FOVEA_DIFF_NOISE_BLACK;
    fovea_diff *d = NULL;
    GT_CHECK(fovea_diff_open(&d, ctx, &s) == FOVEA_OK, "diff open: %s", fovea_last_error(ctx));
    GstVideoInfo oi;
    gst_video_info_set_format(&oi, gst_video_format_from_string(c->out), W, H);
    for (int i = 0; i < FRAMES; i++) {
        GstVideoFrame pv, cv, ov, gv;
        GT_CHECK(gst_video_frame_map(&pv, &f.info, f.frames[i ? i - 1 : 0], GST_MAP_READ), "map");
        GT_CHECK(gst_video_frame_map(&cv, &f.info, f.frames[i], GST_MAP_READ), "map");
        GstBuffer *ob = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(&oi), NULL);
        GT_CHECK(gst_video_frame_map(&ov, &oi, ob, GST_MAP_WRITE), "map");
        fovea_frame prev, cur, out;
        gt_wrap(&pv, &prev);
        gt_wrap(&cv, &cur);
        gt_wrap(&ov, &out);
        /* every output of the pair from one call, as the element makes them */
        fovea_diff_mask_result m;
        fovea_diff_outputs outs;
        memset(&outs, 0, sizeof(outs));
        outs.mask = &m;
        if (strcmp(c->mode, "heatmap") == 0)
            outs.heatmap = &out;
        else if (strcmp(c->mode, "mask") != 0)
            outs.noise = &out;
        const int st = fovea_diff_compute(d, &prev, &cur, &outs);
        GT_CHECK(st == FOVEA_OK, "%s: library: %s", what, fovea_last_error(ctx));
        if (strcmp(c->mode, "mask") == 0)
            draw_mask(&out, &m);

        GstSample *smp = g_ptr_array_index(r.samples, i);
        GstVideoInfo gi;
        GT_CHECK(gst_video_info_from_caps(&gi, gst_sample_get_caps(smp)), "caps");
        GT_CHECK(gst_video_frame_map(&gv, &gi, gst_sample_get_buffer(smp), GST_MAP_READ), "map");
        char fw[200];
        snprintf(fw, sizeof(fw), "%s frame %d", what, i);
        GT_CHECK(gt_frame_equal(&gv, &out, fw), "%s: output differs from the library's", fw);
        GT_CHECK(GST_BUFFER_PTS(gst_sample_get_buffer(smp)) == (GstClockTime)i * DUR, "%s: pts",
                 fw);

        const GstStructure *ms = g_ptr_array_index(stats, i);
        guint64 frame = 0;
        gint64 px = -1, tiles = -1, sum = -1;
        int mx = -1, th = -1;
        GT_CHECK(gst_structure_get(ms, "frame", G_TYPE_UINT64, &frame, "changed-pixels",
                                   G_TYPE_INT64, &px, "changed-tiles", G_TYPE_INT64, &tiles,
                                   "diff-sum", G_TYPE_INT64, &sum, "diff-max", G_TYPE_INT, &mx,
                                   "threshold", G_TYPE_INT, &th, NULL),
                 "%s: stats fields", fw);
        GT_CHECK(frame == (guint64)i && px == m.changed_pixels && tiles == m.changed_tiles &&
                     sum == m.diff_sum && mx == m.diff_max && th == m.threshold,
                 "%s: stats %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
                 " %d %d, expected %lld %lld %lld %d %d",
                 fw, px, tiles, sum, mx, th, (long long)m.changed_pixels,
                 (long long)m.changed_tiles, (long long)m.diff_sum, m.diff_max, m.threshold);
        if (i == 0 && c->dn != FOVEA_DIFF_DENOISE_TEMPORAL)
            GT_CHECK(px == 0 && sum == 0, "%s: the first frame is compared with itself", fw);
        else if (i > 0)
            GT_CHECK(sum > 0, "%s: moving frames differ", fw);
        gst_video_frame_unmap(&gv);
        gst_video_frame_unmap(&pv);
        gst_video_frame_unmap(&cv);
        gst_video_frame_unmap(&ov);
        gst_buffer_unref(ob);
    }
    fovea_diff_close(&d);
    fovea_close(&ctx);
    g_ptr_array_unref(stats);
    gt_result_clear(&r);
    gst_object_unref(pipe);
    g_free(desc);
    g_free(cs);
    for (int i = 0; i < FRAMES; i++)
        gst_buffer_unref(f.frames[i]);
    printf("ok: %s\n", what);
}

/* After a flush the next frame has no previous one: compared with itself. */
static void test_flush(void)
{
    GstHarness *h = gst_harness_new_parse("foveadiff mode=heatmap threshold=4");
    GstBus *bus = gst_bus_new();
    gst_element_set_bus(h->element, bus);
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, W, H);
    info.fps_n = 25;
    info.fps_d = 1;
    GstCaps *caps = gst_video_info_to_caps(&info);
    gst_harness_set_src_caps(h, caps);
    gst_harness_set_sink_caps_str(h, "video/x-raw,format=RGBA");
    for (int i = 0; i < 3; i++) {
        GT_CHECK(gst_harness_push(h, gt_frame(&info, i, 4, 0, 2, 3, DUR)) == GST_FLOW_OK, "push");
        gst_buffer_unref(gst_harness_pull(h));
    }
    GT_CHECK(gst_harness_push_event(h, gst_event_new_flush_start()), "flush start");
    GT_CHECK(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)), "flush stop");
    GstSegment seg;
    gst_segment_init(&seg, GST_FORMAT_TIME);
    GT_CHECK(gst_harness_push_event(h, gst_event_new_segment(&seg)), "segment");
    GT_CHECK(gst_harness_push(h, gt_frame(&info, 9, 4, 0, 2, 3, DUR)) == GST_FLOW_OK, "push");
    gst_buffer_unref(gst_harness_pull(h));
    /* the stats of the four frames: the first and the one after the flush are zero */
    int n = 0;
    GstMessage *m;
    while ((m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT))) {
        const GstStructure *s = gst_message_get_structure(m);
        gint64 sum = -1;
        GT_CHECK(gst_structure_get_int64(s, "diff-sum", &sum), "diff-sum");
        if (n == 0 || n == 3)
            GT_CHECK(sum == 0, "frame %d after a start or flush: diff-sum %" G_GINT64_FORMAT, n,
                     sum);
        else
            GT_CHECK(sum > 0, "frame %d: diff-sum 0", n);
        n++;
        gst_message_unref(m);
    }
    GT_CHECK(n == 4, "%d stats messages", n);
    gst_element_set_bus(h->element, NULL);
    gst_object_unref(bus);
    gst_harness_teardown(h);
    printf("ok: flush\n");
}

/* A setting the library refuses: a clean error with its message; caps the
 * element cannot do: not negotiated. */
static void test_errors(void)
{
    GstElement *pipe = gt_launch("videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! "
                                 "foveadiff tile=12 ! fakesink");
    gt_result r;
    gt_run(pipe, NULL, NULL, 30, &r);
    GT_CHECK(r.error && strstr(r.error, "tile 12 is not 8, 16, 32 or 64"), "tile=12: error %s",
             r.error ? r.error : "(none)");
    gt_result_clear(&r);
    gst_object_unref(pipe);

    /* overlay keeps the frame's format: NV12 cannot be painted, refused at link time */
    GError *err = NULL;
    pipe = gst_parse_launch("videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=64,"
                            "height=48 ! foveadiff mode=overlay ! fakesink",
                            &err);
    GT_CHECK(err && strstr(err->message, "can't handle caps"), "overlay of NV12: %s",
             err ? err->message : "linked");
    g_clear_error(&err);
    if (pipe)
        gst_object_unref(pipe);
    printf("ok: errors\n");
}

/* The element's defaults are the library's (and so fovea diff's): the heat
 * map's top a quarter of the range, threshold, tile, auto-k. */
static void test_defaults(void)
{
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    GstElement *e = gst_element_factory_make("foveadiff", NULL);
    GT_CHECK(e, "foveadiff: no element");
    gint normalize = 0, threshold = 0, tile = 0;
    gdouble k = 0;
    g_object_get(e, "normalize", &normalize, "threshold", &threshold, "tile", &tile, "auto-k", &k,
                 NULL);
    GT_CHECK(normalize == FOVEA_DIFF_NORMALIZE_QUARTER && normalize == s.normalize_max,
             "normalize default %d, library %d", normalize, s.normalize_max);
    GT_CHECK(threshold == s.threshold && tile == s.tile && k == s.auto_k,
             "defaults threshold %d tile %d auto-k %g", threshold, tile, k);
    gst_object_unref(e);
    printf("ok: defaults\n");
}

/* The name of a drawn color: black, white, or its one dominant channel. */
static const char *color_name(const uint8_t *c)
{
    if (c[0] < 32 && c[1] < 32 && c[2] < 32)
        return "black";
    if (c[0] > 224 && c[1] > 224 && c[2] > 224)
        return "white";
    return c[0] >= c[1] && c[0] >= c[2] ? "red" : c[1] >= c[2] ? "green" : "blue";
}

/* The words of the mode property name the colors the library draws: the heat
 * map's at no difference, half the top and the top, in that order (and no
 * other); the noise map's for a changed and an unchanged pixel. */
static void test_mode_descriptions(void)
{
    GEnumClass *ec = NULL;
    GstElement *e = gst_element_factory_make("foveadiff", NULL);
    GT_CHECK(e, "foveadiff: no element");
    GParamSpec *ps = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "mode");
    GT_CHECK(ps && G_IS_PARAM_SPEC_ENUM(ps), "mode: no enum property");
    ec = G_PARAM_SPEC_ENUM(ps)->enum_class;
    const char *heat = g_enum_get_value_by_nick(ec, "heatmap")->value_name;
    const char *noise = g_enum_get_value_by_nick(ec, "noise")->value_name;

    /* one row of three pixels: differences 0, top / 2 and top (normalize 128) */
    fovea_context *ctx = NULL;
    GT_CHECK(fovea_open(&ctx, NULL) == FOVEA_OK, "context");
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    s.normalize_max = 128;
    s.threshold = 10;
    fovea_diff *d = NULL;
    GT_CHECK(fovea_diff_open(&d, ctx, &s) == FOVEA_OK, "diff open");
    fovea_frame a, b, out;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&out, 0, sizeof out);
    GT_CHECK(fovea_frame_alloc(NULL, &a, 3, 1, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == FOVEA_OK &&
                 fovea_frame_alloc(NULL, &b, 3, 1, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == FOVEA_OK &&
                 fovea_frame_alloc(NULL, &out, 3, 1, FOVEA_PIX_RGB24, FOVEA_MEM_HOST) == FOVEA_OK,
             "frames");
    const uint8_t pa[3] = {50, 50, 50}, pb[3] = {50, 50 + 64, 50 + 128};
    memcpy(a.data[0], pa, 3);
    memcpy(b.data[0], pb, 3);
    GT_CHECK(fovea_diff_heatmap(d, &a, &b, &out) == FOVEA_OK, "heatmap: %s", fovea_last_error(ctx));
    const char *want[3];
    for (int x = 0; x < 3; x++)
        want[x] = color_name(out.data[0] + 3 * x);
    const char *p1 = strstr(heat, want[0]), *p2 = p1 ? strstr(p1 + 1, want[1]) : NULL;
    const char *p3 = p2 ? strstr(p2 + 1, want[2]) : NULL;
    GT_CHECK(p3, "heatmap description '%s' does not name %s, %s, %s in order", heat, want[0],
             want[1], want[2]);
    GT_CHECK(!strstr(heat, "black") && !strstr(heat, "white"),
             "heatmap description '%s' names colors the map does not draw", heat);
    GT_CHECK(fovea_diff_noise(d, &a, &b, &out) == FOVEA_OK, "noise: %s", fovea_last_error(ctx));
    const char *changed = color_name(out.data[0] + 3 * 2), *same = color_name(out.data[0]);
    GT_CHECK(strstr(noise, changed) && strstr(noise, same),
             "noise description '%s': draws %s on %s", noise, changed, same);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    fovea_frame_free(NULL, &out);
    fovea_diff_close(&d);
    fovea_close(&ctx);
    gst_object_unref(e);
    printf("ok: mode descriptions (heat map %s, %s, %s)\n", want[0], want[1], want[2]);
}

int main(int argc, char **argv)
{
    gt_init(&argc, &argv);
    static const diff_case cases[] = {
        {"I420", "RGBA", "heatmap", 10, 0, 16, "none", FOVEA_DIFF_DENOISE_NONE},
        {"RGB", "RGB", "heatmap", 10, FOVEA_DIFF_NORMALIZE_QUARTER, 16, "none",
         FOVEA_DIFF_DENOISE_NONE},
        {"I420", "I420", "heatmap", 10, 64, 16, "none", FOVEA_DIFF_DENOISE_NONE},
        {"RGB", "RGB", "noise", 6, 0, 8, "median3", FOVEA_DIFF_DENOISE_MEDIAN3},
        {"RGBA", "RGBA", "overlay", 6, 0, 16, "none", FOVEA_DIFF_DENOISE_NONE},
        {"I420", "I420", "overlay", -1, 0, 16, "gauss5", FOVEA_DIFF_DENOISE_GAUSS5},
        {"NV12", "RGB", "mask", 8, 0, 16, "none", FOVEA_DIFF_DENOISE_NONE},
        {"GRAY8", "I420", "mask", 5, 0, 32, "none", FOVEA_DIFF_DENOISE_NONE},
        {"Y444_10LE", "RGBA", "heatmap", 40, 0, 16, "median3", FOVEA_DIFF_DENOISE_MEDIAN3},
        {"I420", "RGB", "heatmap", 4, 32, 16, "temporal", FOVEA_DIFF_DENOISE_TEMPORAL},
        {"RGBA", "RGBA", "mask", 3, 0, 8, "temporal", FOVEA_DIFF_DENOISE_TEMPORAL},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
        run_case(&cases[i]);
    test_flush();
    test_errors();
    test_defaults();
    test_mode_descriptions();
    gst_deinit();
    return 0;
}
