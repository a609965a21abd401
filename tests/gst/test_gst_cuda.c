/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CUDA memory (GPU only; exit 77 without a device, without fovea's CUDA
 * backend or without GStreamer's CUDA library): cameras and quality inputs
 * given as video/x-raw(memory:CUDAMemory) in the element's own CUDA context
 * (zero copy), in another GstCudaContext (mapped through the host) and in
 * system memory all give the same panoramas and scores on backend=cuda; the
 * panoramas stay in CUDA memory when downstream takes it; they are within one
 * code value of the C reference's (the CUDA stitcher samples with the texture
 * unit), the VIF scores and foveadiff's maps are the C reference's exactly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GST_USE_UNSTABLE_API 1
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "fovea/diff.h"
#include "fovea/quality.h"
#include "fovea/stitch.h"
#include "gst_helpers.h"
#include "../vif_test.h"

#define CW 320
#define CH 240
#define FRAMES 4
#define DUR (GST_SECOND / 30)

static const char *rig_json =
    "{\"panorama\": {\"projection\": \"equirectangular\", \"width\": 640, \"height\": 240,\n"
    "  \"hfov\": 100, \"vfov\": 40},\n \"blend\": {\"feather\": 24},\n \"cameras\": [\n"
    "  {\"width\": 320, \"height\": 240, \"model\": \"pinhole\", \"fx\": 240, \"fy\": 240,"
    " \"cx\": 159.5, \"cy\": 119.5, \"yaw\": -20, \"pitch\": 0, \"roll\": 0},\n"
    "  {\"width\": 320, \"height\": 240, \"model\": \"pinhole\", \"fx\": 240, \"fy\": 240,"
    " \"cx\": 159.5, \"cy\": 119.5, \"yaw\": 20, \"pitch\": 0, \"roll\": 0}]}\n";

typedef enum { MEM_SYSTEM, MEM_OURS, MEM_FOREIGN } memkind;
static const char *mem_name[] = {"system memory", "CUDA memory of the element's context",
                                 "CUDA memory of another context"};

typedef struct {
    GstVideoInfo info;
    GstBuffer *host[2][FRAMES];
    memkind mem;
    const char *srcs[2];
    GstCudaContext *cuda; /* the context the CUDA buffers are made in */
} feed;

/* A CUDA-memory copy of a host buffer, from a pool in ctx. */
static GstBuffer *to_cuda(GstCudaContext *ctx, GstBufferPool **pool, const GstVideoInfo *info,
                          GstBuffer *host)
{
    if (!*pool) {
        GstCaps *caps = gst_video_info_to_caps(info);
        gst_caps_set_features(caps, 0,
                              gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
        *pool = gst_cuda_buffer_pool_new(ctx);
        GstStructure *config = gst_buffer_pool_get_config(*pool);
        gst_buffer_pool_config_set_params(config, caps, (guint)GST_VIDEO_INFO_SIZE(info), 0, 0);
        gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
        /* FALSE with the pool's own adjusted config (it pads rows): set that one */
        if (!gst_buffer_pool_set_config(*pool, config))
            GT_CHECK(gst_buffer_pool_set_config(*pool, gst_buffer_pool_get_config(*pool)),
                     "CUDA pool config");
        GT_CHECK(gst_buffer_pool_set_active(*pool, TRUE), "CUDA pool");
        gst_caps_unref(caps);
    }
    GstBuffer *buf = NULL;
    GT_CHECK(gst_buffer_pool_acquire_buffer(*pool, &buf, NULL) == GST_FLOW_OK, "CUDA buffer");
    GstVideoFrame s, d;
    GT_CHECK(gst_video_frame_map(&s, info, host, GST_MAP_READ), "map");
    GT_CHECK(gst_video_frame_map(&d, info, buf, GST_MAP_WRITE), "map CUDA for the host");
    GT_CHECK(gst_video_frame_copy(&d, &s), "copy");
    gst_video_frame_unmap(&s);
    gst_video_frame_unmap(&d);
    GST_BUFFER_PTS(buf) = GST_BUFFER_PTS(host);
    GST_BUFFER_DURATION(buf) = GST_BUFFER_DURATION(host);
    return buf;
}

static void push_feed(GstElement *pipe, void *data)
{
    feed *f = data;
    GstBufferPool *pool[2] = {NULL, NULL};
    for (int i = 0; i < FRAMES; i++)
        for (int c = 0; c < 2 && f->srcs[c]; c++)
            gt_push(pipe, f->srcs[c],
                    f->mem == MEM_SYSTEM ? gst_buffer_ref(f->host[c][i])
                                         : to_cuda(f->cuda, &pool[c], &f->info, f->host[c][i]));
    for (int c = 0; c < 2 && f->srcs[c]; c++) {
        gt_eos(pipe, f->srcs[c]);
        if (pool[c]) {
            gst_buffer_pool_set_active(pool[c], FALSE);
            gst_object_unref(pool[c]);
        }
    }
}

/* The GstCudaContext an element offers on its pad (fovea's primary context). */
static GstCudaContext *element_context(GstElement *pipe, const char *el, const char *pad)
{
    GstElement *e = gst_bin_get_by_name(GST_BIN(pipe), el);
    GstPad *p = gst_element_get_static_pad(e, pad);
    GstQuery *q = gst_query_new_context(GST_CUDA_CONTEXT_TYPE);
    GT_CHECK(gst_pad_query(p, q), "%s.%s answers no CUDA context query", el, pad);
    GstContext *ctx = NULL;
    gst_query_parse_context(q, &ctx);
    GstCudaContext *cuda = NULL;
    GT_CHECK(ctx && gst_structure_get(gst_context_get_structure(ctx), GST_CUDA_CONTEXT_TYPE,
                                      GST_TYPE_CUDA_CONTEXT, &cuda, NULL),
             "no CUDA context in the answer");
    gst_query_unref(q);
    gst_object_unref(p);
    gst_object_unref(e);
    return cuda;
}

static gchar *caps_str(const GstVideoInfo *info, gboolean cuda)
{
    GstCaps *caps = gst_video_info_to_caps(info);
    if (cuda)
        gst_caps_set_features(caps, 0,
                              gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
    gchar *s = gst_caps_to_string(caps);
    gst_caps_unref(caps);
    return s;
}

/* Run a pipeline fed by f: its appsrcs are set to f's memory once the
 * element (READY) has its CUDA context. */
static void run_fed(const char *desc, feed *f, const char *el, const char *pad, gt_result *r)
{
    GstElement *pipe = gt_launch(desc);
    GT_CHECK(gst_element_set_state(pipe, GST_STATE_READY) != GST_STATE_CHANGE_FAILURE, "READY");
    GstCudaContext *ours = element_context(pipe, el, pad);
    f->cuda = f->mem == MEM_FOREIGN ? gst_cuda_context_new(0) : gst_object_ref(ours);
    GT_CHECK(f->cuda, "CUDA context");
    if (f->mem == MEM_FOREIGN)
        GT_CHECK(gst_cuda_context_get_handle(f->cuda) != gst_cuda_context_get_handle(ours),
                 "the foreign context is the element's");
    gt_run(pipe, push_feed, f, 120, r);
    GT_CHECK(!r->error, "%s: %s", mem_name[f->mem], r->error);
    gst_object_unref(ours);
    gst_clear_object(&f->cuda);
    gst_object_unref(pipe);
}

static GstBuffer *download(GstSample *s, GstVideoInfo *info)
{
    GT_CHECK(gst_video_info_from_caps(info, gst_sample_get_caps(s)), "caps");
    return gst_buffer_ref(gst_sample_get_buffer(s));
}

static gboolean same_frames(GstBuffer *a, GstBuffer *b, const GstVideoInfo *info, int tol,
                            int *maxdiff)
{
    GstVideoFrame fa, fb;
    GT_CHECK(gst_video_frame_map(&fa, info, a, GST_MAP_READ) &&
                 gst_video_frame_map(&fb, info, b, GST_MAP_READ),
             "map");
    *maxdiff = 0;
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&fa); p++) {
        const int rows = GST_VIDEO_FRAME_COMP_HEIGHT(&fa, p);
        const int bytes = GST_VIDEO_FRAME_COMP_WIDTH(&fa, p) * GST_VIDEO_FRAME_COMP_PSTRIDE(&fa, p);
        for (int y = 0; y < rows; y++) {
            const guint8 *ra = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&fa, p) +
                               (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE(&fa, p);
            const guint8 *rb = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&fb, p) +
                               (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE(&fb, p);
            for (int x = 0; x < bytes; x++) {
                const int d = abs((int)ra[x] - (int)rb[x]);
                if (d > *maxdiff)
                    *maxdiff = d;
            }
        }
    }
    gst_video_frame_unmap(&fa);
    gst_video_frame_unmap(&fb);
    return *maxdiff <= tol;
}

static void test_stitch(const char *rig, GstVideoFormat fmt)
{
    feed f;
    memset(&f, 0, sizeof(f));
    gst_video_info_set_format(&f.info, fmt, CW, CH);
    f.info.fps_n = 30;
    f.info.fps_d = 1;
    f.srcs[0] = "cam0";
    f.srcs[1] = "cam1";
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < FRAMES; i++)
            f.host[c][i] = gt_frame(&f.info, i, 2 - 4 * c, 1, 2, 31 + (uint32_t)c, DUR);
    GstBuffer *out[3][FRAMES];
    GstVideoInfo oi;
    for (int m = MEM_SYSTEM; m <= MEM_FOREIGN; m++) {
        f.mem = (memkind)m;
        gchar *cs = caps_str(&f.info, m != MEM_SYSTEM);
        /* CUDA in, CUDA out; system memory in and out for the baseline */
        gchar *desc = g_strdup_printf(
            "foveastitch name=s rig=\"%s\" backend=cuda color=off ! video/x-raw%s ! "
            "appsink name=out sync=false  appsrc name=cam0 format=time caps=\"%s\" ! s.sink_0  "
            "appsrc name=cam1 format=time caps=\"%s\" ! s.sink_1",
            rig, m != MEM_SYSTEM ? "(memory:CUDAMemory)" : "", cs, cs);
        gt_result r;
        run_fed(desc, &f, "s", "sink_0", &r);
        GT_CHECK(r.samples->len == FRAMES, "%s: %u panoramas", mem_name[m], r.samples->len);
        for (int i = 0; i < FRAMES; i++) {
            GstSample *s = g_ptr_array_index(r.samples, i);
            if (m != MEM_SYSTEM)
                GT_CHECK(gst_is_cuda_memory(gst_buffer_peek_memory(gst_sample_get_buffer(s), 0)),
                         "%s: the panorama is not in CUDA memory", mem_name[m]);
            else /* system memory from the element's pool of pinned frames (gst/pinned.c) */
                GT_CHECK(
                    gst_mini_object_get_qdata(
                        GST_MINI_OBJECT_CAST(gst_buffer_peek_memory(gst_sample_get_buffer(s), 0)),
                        g_quark_from_string("fovea-pinned-frame")) != NULL,
                    "system memory: the panorama is not in a pinned buffer of the element");
            out[m][i] = download(s, &oi);
        }
        gt_result_clear(&r);
        g_free(desc);
        g_free(cs);
    }
    /* the C reference on the same frames */
    fovea_context *ctx = NULL;
    fovea_settings fs;
    fovea_default_settings(&fs);
    fs.backend = FOVEA_BACKEND_CPU;
    fovea_stitch_map *map = NULL;
    fovea_stitcher *st = NULL;
    fovea_stitcher_settings ss;
    fovea_stitcher_default_settings(&ss);
    ss.color = FOVEA_COLOR_OFF;
    GT_CHECK(fovea_open(&ctx, &fs) == FOVEA_OK &&
                 fovea_stitch_map_open_rig_file(&map, ctx, rig) == FOVEA_OK &&
                 fovea_stitcher_open(&st, ctx, map, &ss) == FOVEA_OK,
             "reference");
    for (int i = 0; i < FRAMES; i++) {
        int d = 0;
        GT_CHECK(same_frames(out[MEM_OURS][i], out[MEM_SYSTEM][i], &oi, 0, &d),
                 "frame %d: CUDA memory in/out differs from system memory (by %d)", i, d);
        GT_CHECK(same_frames(out[MEM_FOREIGN][i], out[MEM_SYSTEM][i], &oi, 0, &d),
                 "frame %d: another context's CUDA memory differs from system memory (by %d)", i,
                 d);
        GstVideoFrame v[2], o;
        fovea_frame in[2], ref;
        const fovea_frame *inp[2] = {&in[0], &in[1]};
        for (int c = 0; c < 2; c++) {
            GT_CHECK(gst_video_frame_map(&v[c], &f.info, f.host[c][i], GST_MAP_READ), "map");
            gt_wrap(&v[c], &in[c]);
        }
        GstBuffer *rb = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(&oi), NULL);
        GT_CHECK(gst_video_frame_map(&o, &oi, rb, GST_MAP_WRITE), "map");
        gt_wrap(&o, &ref);
        GT_CHECK(fovea_stitcher_process(st, inp, 2, &ref) == FOVEA_OK, "reference stitch");
        gst_video_frame_unmap(&o);
        for (int c = 0; c < 2; c++)
            gst_video_frame_unmap(&v[c]);
        GT_CHECK(same_frames(out[MEM_OURS][i], rb, &oi, 1, &d),
                 "frame %d: %d code values from the C reference", i, d);
        gst_buffer_unref(rb);
    }
    fovea_stitcher_close(&st);
    fovea_stitch_map_close(&map);
    fovea_close(&ctx);
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < FRAMES; i++)
            gst_buffer_unref(out[m][i]);
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < FRAMES; i++)
            gst_buffer_unref(f.host[c][i]);
    printf("ok: foveastitch %s: CUDA memory (own and foreign context) == system memory, "
           "within 1 of the C reference\n",
           gst_video_format_to_string(fmt));
}

static void test_vif(void)
{
    feed f;
    memset(&f, 0, sizeof(f));
    gst_video_info_set_format(&f.info, GST_VIDEO_FORMAT_NV12, CW, CH);
    f.info.fps_n = 30;
    f.info.fps_d = 1;
    f.srcs[0] = "ref";
    f.srcs[1] = "dis";
    for (int i = 0; i < FRAMES; i++) {
        f.host[0][i] = gt_frame(&f.info, i, 1, 1, 1, 41, DUR);
        f.host[1][i] = gt_frame(&f.info, i, 1, 1, 12, 42, DUR);
    }
    /* the C reference */
    fovea_context *ctx = NULL;
    fovea_vmaf *vif = NULL;
    fovea_settings fs;
    fovea_default_settings(&fs);
    fs.backend = FOVEA_BACKEND_CPU;
    GT_CHECK(fovea_open(&ctx, &fs) == FOVEA_OK && vif_test_open(&vif, ctx, NULL) == FOVEA_OK,
             "vif");
    vif_test_scores sc[FRAMES];
    for (int i = 0; i < FRAMES; i++) {
        GstVideoFrame a, b;
        fovea_frame x, y;
        GT_CHECK(gst_video_frame_map(&a, &f.info, f.host[0][i], GST_MAP_READ) &&
                     gst_video_frame_map(&b, &f.info, f.host[1][i], GST_MAP_READ),
                 "map");
        gt_wrap(&a, &x);
        gt_wrap(&b, &y);
        GT_CHECK(vif_test_process(vif, &x, &y, &sc[i]) == FOVEA_OK, "vif");
        gst_video_frame_unmap(&a);
        gst_video_frame_unmap(&b);
    }
    for (int m = MEM_SYSTEM; m <= MEM_FOREIGN; m++) {
        f.mem = (memkind)m;
        gchar *cs = caps_str(&f.info, m != MEM_SYSTEM);
        gchar *desc = g_strdup_printf(
            "foveavmaf name=q features=vif backend=cuda ! appsink name=out sync=false  "
            "appsrc name=ref format=time caps=\"%s\" ! q.ref  appsrc name=dis format=time "
            "caps=\"%s\" ! q.dis",
            cs, cs);
        gt_result r;
        run_fed(desc, &f, "q", "ref", &r);
        GT_CHECK(r.samples->len == FRAMES, "%s: %u frames passed on", mem_name[m], r.samples->len);
        GPtrArray *msgs = gt_messages(&r, "foveavmaf");
        GT_CHECK(msgs->len == FRAMES, "%s: %u messages", mem_name[m], msgs->len);
        for (int i = 0; i < FRAMES; i++)
            for (int k = 0; k < VIF_TEST_SCALES; k++) {
                char name[32];
                double v = -1;
                snprintf(name, sizeof(name), "integer_vif_scale%d", k);
                GT_CHECK(gst_structure_get_double(g_ptr_array_index(msgs, i), name, &v) &&
                             v == sc[i].scale[k],
                         "%s: frame %d %s %.17g, C reference %.17g", mem_name[m], i, name, v,
                         sc[i].scale[k]);
            }
        g_ptr_array_unref(msgs);
        gt_result_clear(&r);
        g_free(desc);
        g_free(cs);
    }
    fovea_vmaf_close(&vif);
    fovea_close(&ctx);
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < FRAMES; i++)
            gst_buffer_unref(f.host[c][i]);
    printf("ok: foveavmaf features=vif: every memory == the C reference's scores\n");
}

/* foveadiff: CUDA-memory frames (the element's context, another one) and
 * system memory give the same maps on backend=cuda, and those are the C
 * reference's bytes (the diff system's backends agree exactly). */
static void test_diff(GstVideoFormat fmt, const char *mode)
{
    feed f;
    memset(&f, 0, sizeof(f));
    gst_video_info_set_format(&f.info, fmt, CW, CH);
    f.info.fps_n = 30;
    f.info.fps_d = 1;
    f.srcs[0] = "src";
    for (int i = 0; i < FRAMES; i++)
        f.host[0][i] = gt_frame(&f.info, i, 3, 1, 3, 51, DUR);
    GstBuffer *out[3][FRAMES];
    GstVideoInfo oi;
    for (int m = MEM_SYSTEM; m <= MEM_FOREIGN; m++) {
        f.mem = (memkind)m;
        gchar *cs = caps_str(&f.info, m != MEM_SYSTEM);
        gchar *desc = g_strdup_printf("appsrc name=src format=time caps=\"%s\" ! foveadiff name=d "
                                      "mode=%s threshold=6 backend=cuda ! video/x-raw,format=RGBA "
                                      "! appsink name=out sync=false",
                                      cs, mode);
        gt_result r;
        run_fed(desc, &f, "d", "sink", &r);
        GT_CHECK(r.samples->len == FRAMES, "%s: %u maps", mem_name[m], r.samples->len);
        for (int i = 0; i < FRAMES; i++)
            out[m][i] = download(g_ptr_array_index(r.samples, i), &oi);
        gt_result_clear(&r);
        g_free(desc);
        g_free(cs);
    }
    fovea_context *ctx = NULL;
    fovea_diff *d = NULL;
    fovea_settings fs;
    fovea_default_settings(&fs);
    fs.backend = FOVEA_BACKEND_CPU;
    fovea_diff_settings ds;
    fovea_diff_default_settings(&ds);
    ds.threshold = 6;
    ds.noise_mode =
        strcmp(mode, "overlay") == 0 ? FOVEA_DIFF_NOISE_OVERLAY : FOVEA_DIFF_NOISE_BLACK;
    GT_CHECK(fovea_open(&ctx, &fs) == FOVEA_OK && fovea_diff_open(&d, ctx, &ds) == FOVEA_OK,
             "diff");
    for (int i = 0; i < FRAMES; i++) {
        int dd = 0;
        GT_CHECK(same_frames(out[MEM_OURS][i], out[MEM_SYSTEM][i], &oi, 0, &dd),
                 "%s frame %d: CUDA memory differs from system memory (by %d)", mode, i, dd);
        GT_CHECK(same_frames(out[MEM_FOREIGN][i], out[MEM_SYSTEM][i], &oi, 0, &dd),
                 "%s frame %d: another context's memory differs (by %d)", mode, i, dd);
        GstVideoFrame pv, cv, ov;
        fovea_frame prev, cur, ref;
        GT_CHECK(gst_video_frame_map(&pv, &f.info, f.host[0][i ? i - 1 : 0], GST_MAP_READ) &&
                     gst_video_frame_map(&cv, &f.info, f.host[0][i], GST_MAP_READ),
                 "map");
        gt_wrap(&pv, &prev);
        gt_wrap(&cv, &cur);
        GstBuffer *rb = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(&oi), NULL);
        GT_CHECK(gst_video_frame_map(&ov, &oi, rb, GST_MAP_WRITE), "map");
        gt_wrap(&ov, &ref);
        fovea_diff_outputs o;
        memset(&o, 0, sizeof(o));
        if (strcmp(mode, "heatmap") == 0)
            o.heatmap = &ref;
        else
            o.noise = &ref;
        GT_CHECK(fovea_diff_compute(d, &prev, &cur, &o) == FOVEA_OK, "reference");
        gst_video_frame_unmap(&pv);
        gst_video_frame_unmap(&cv);
        gst_video_frame_unmap(&ov);
        GT_CHECK(same_frames(out[MEM_OURS][i], rb, &oi, 0, &dd),
                 "%s frame %d: %d code values from the C reference", mode, i, dd);
        gst_buffer_unref(rb);
    }
    fovea_diff_close(&d);
    fovea_close(&ctx);
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < FRAMES; i++)
            gst_buffer_unref(out[m][i]);
    for (int i = 0; i < FRAMES; i++)
        gst_buffer_unref(f.host[0][i]);
    printf("ok: foveadiff %s %s: CUDA memory (own and foreign context) == system memory == "
           "the C reference\n",
           gst_video_format_to_string(fmt), mode);
}

int main(int argc, char **argv)
{
    int ndev = 0;
    fovea_device_count(&ndev);
    if (!fovea_cuda_compiled() || ndev == 0) {
        printf("test_gst_cuda: no CUDA device (or fovea built without CUDA): skipped\n");
        return 77;
    }
    gt_init(&argc, &argv);
    if (!gst_cuda_load_library()) {
        printf("test_gst_cuda: GStreamer's CUDA library does not load: skipped\n");
        return 77;
    }
    gst_cuda_memory_init_once(); /* the CUDA allocator the test's pools use */
    gchar *dir = gt_tmpdir();
    gchar *rig = g_build_filename(dir, "rig.json", NULL);
    gt_write_file(rig, rig_json);
    test_stitch(rig, GST_VIDEO_FORMAT_NV12);
    test_stitch(rig, GST_VIDEO_FORMAT_RGBA);
    test_vif();
    test_diff(GST_VIDEO_FORMAT_NV12, "heatmap");
    test_diff(GST_VIDEO_FORMAT_RGBA, "overlay");
    g_free(rig);
    gt_cleanup_dir(dir);
    gst_deinit();
    return 0;
}
