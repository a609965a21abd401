/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CUDA stitcher vs the C reference on rendered outdoor scenes: RGBA, RGB24,
 * NV12 and I420 inputs, device and host frames, 1, 2, 3 and 5 cameras, pinhole and fisheye,
 * grid maps and imported exact tables, odd sizes; output poisoned first. The two
 * backends use the same float operations in the same order, so the test demands
 * agreement within 1 code value everywhere and reports how many samples differ
 * at all. Also: overlap statistics -> identical solved corrections, and automatic
 * color balance on a stream (deterministic: every frame bit-exact). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fovea/convert.h"
#include "fovea/stitch.h"
#include "stitch/map_build.h"
#include "stitch/rig.h"
#include "stitch/stitch_internal.h"
#include "scene.h"
#include "testutil.h"

static const char *rigs[] = {
    /* the rig at a quarter of the size */
    "{\"panorama\": {\"projection\": \"equirectangular\", \"width\": 1425, \"height\": 475,"
    " \"hfov\": 150.0, \"vfov\": 50.0}, \"blend\": {\"feather\": 16},"
    " \"cameras\": [{\"width\": 960, \"height\": 540, \"model\": \"pinhole\", \"fx\": 533.0,"
    " \"fy\": 533.0, \"cx\": 479.5, \"cy\": 269.5, \"dist\": [-0.05, 0.01], \"yaw\": -35.0,"
    " \"pitch\": 0.0, \"roll\": 0.0}, {\"width\": 960, \"height\": 540, \"model\": \"fisheye\","
    " \"fx\": 300.0, \"fy\": 300.0, \"cx\": 479.5, \"cy\": 269.5, \"dist\": [0.02, -0.01],"
    " \"yaw\": 35.0, \"pitch\": 0.0, \"roll\": 0.0}]}",
    /* two pinholes, even sizes that the 128x16 tiles do not divide (1426 = 11 x 128
     * + 18, 474 = 29 x 16 + 10; neither a multiple of 4): the tiles the right and
     * bottom edges cut, where one camera sees all their pixels, take the interior
     * path with clipped stores */
    "{\"panorama\": {\"projection\": \"equirectangular\", \"width\": 1426, \"height\": 474,"
    " \"hfov\": 150.0, \"vfov\": 46.0}, \"blend\": {\"feather\": 16},"
    " \"cameras\": [{\"width\": 960, \"height\": 540, \"model\": \"pinhole\", \"fx\": 533.0,"
    " \"fy\": 533.0, \"cx\": 479.5, \"cy\": 269.5, \"dist\": [-0.05, 0.01], \"yaw\": -35.0,"
    " \"pitch\": 0.0, \"roll\": 0.0}, {\"width\": 960, \"height\": 540, \"model\": \"pinhole\","
    " \"fx\": 533.0, \"fy\": 533.0, \"cx\": 479.5, \"cy\": 269.5, \"dist\": [-0.05, 0.01],"
    " \"yaw\": 35.0, \"pitch\": 0.0, \"roll\": 0.0}]}",
    /* three cameras on a cylinder, odd sizes, one rolled */
    "{\"panorama\": {\"projection\": \"cylindrical\", \"width\": 1001, \"height\": 333,"
    " \"hfov\": 200.0, \"vfov\": 60.0, \"yaw\": 3.0}, \"blend\": {\"feather\": 24},"
    " \"cameras\": [{\"width\": 641, \"height\": 481, \"model\": \"pinhole\", \"fx\": 420.0,"
    " \"fy\": 420.0, \"cx\": 320.0, \"cy\": 240.0, \"yaw\": -60.0, \"pitch\": 2.0, \"roll\": 1.0},"
    " {\"width\": 641, \"height\": 481, \"model\": \"pinhole\", \"fx\": 420.0, \"fy\": 421.0,"
    " \"cx\": 320.0, \"cy\": 240.0, \"dist\": [-0.1, 0.02, 0.001, -0.001], \"yaw\": 0.0,"
    " \"pitch\": 0.0, \"roll\": 0.0}, {\"width\": 641, \"height\": 481, \"model\": \"pinhole\","
    " \"fx\": 420.0, \"fy\": 420.0, \"cx\": 320.0, \"cy\": 240.0, \"yaw\": 60.0, \"pitch\": -2.0,"
    " \"roll\": -1.0}]}",
    /* five cameras all around (the kernels' many-camera path), odd sizes */
    "{\"panorama\": {\"projection\": \"equirectangular\", \"width\": 901, \"height\": 301,"
    " \"hfov\": 360.0, \"vfov\": 110.0}, \"blend\": {\"feather\": 12},"
    " \"cameras\": ["
    "{\"width\": 321, \"height\": 241, \"model\": \"pinhole\", \"fx\": 150.0, \"fy\": 150.0,"
    " \"cx\": 160.0, \"cy\": 120.0, \"yaw\": 0.0, \"pitch\": 0.0, \"roll\": 0.0},"
    "{\"width\": 321, \"height\": 241, \"model\": \"pinhole\", \"fx\": 150.0, \"fy\": 150.0,"
    " \"cx\": 160.0, \"cy\": 120.0, \"yaw\": 72.0, \"pitch\": 3.0, \"roll\": 0.0},"
    "{\"width\": 321, \"height\": 241, \"model\": \"fisheye\", \"fx\": 110.0, \"fy\": 110.0,"
    " \"cx\": 160.0, \"cy\": 120.0, \"yaw\": 144.0, \"pitch\": 0.0, \"roll\": 2.0},"
    "{\"width\": 321, \"height\": 241, \"model\": \"pinhole\", \"fx\": 150.0, \"fy\": 150.0,"
    " \"cx\": 160.0, \"cy\": 120.0, \"dist\": [-0.05, 0.01], \"yaw\": 216.0, \"pitch\": -3.0,"
    " \"roll\": 0.0},"
    "{\"width\": 321, \"height\": 241, \"model\": \"pinhole\", \"fx\": 150.0, \"fy\": 150.0,"
    " \"cx\": 160.0, \"cy\": 120.0, \"yaw\": 288.0, \"pitch\": 40.0, \"roll\": 0.0}]}",
    /* one camera */
    "{\"panorama\": {\"projection\": \"equirectangular\", \"width\": 515, \"height\": 257,"
    " \"hfov\": 90.0, \"vfov\": 45.0}, \"cameras\": [{\"width\": 400, \"height\": 300,"
    " \"model\": \"pinhole\", \"fx\": 300.0, \"fy\": 300.0, \"cx\": 199.5, \"cy\": 149.5,"
    " \"yaw\": 0.0, \"pitch\": 0.0, \"roll\": 0.0}]}",
};

static const fovea_color_correction ccs[5] = {
    {{1.10f, 1.0f, 0.92f}, 1.12f}, {{0.95f, 1.03f, 1.07f}, 0.90f}, {{1.0f, 0.97f, 1.0f}, 1.05f},
    {{1.05f, 0.9f, 1.1f}, 0.95f},  {{0.9f, 1.0f, 1.0f}, 1.0f},
};

/* Compare two host frames plane by plane; returns the largest sample difference
 * and counts the samples that differ at all. */
static int compare(const fovea_frame *a, const fovea_frame *b, long *ndiff)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(a->fmt);
    int worst = 0;
    *ndiff = 0;
    for (int p = 0; p < d->planes; p++) {
        size_t row = fovea_plane_row_bytes(a->fmt, a->width, p);
        for (int y = 0; y < fovea_plane_height(a->fmt, a->height, p); y++) {
            const uint8_t *ra = a->data[p] + (ptrdiff_t)y * a->stride[p];
            const uint8_t *rb = b->data[p] + (ptrdiff_t)y * b->stride[p];
            for (size_t x = 0; x < row; x++) {
                int dd = abs((int)ra[x] - (int)rb[x]);
                if (dd) {
                    (*ndiff)++;
                    worst = dd > worst ? dd : worst;
                }
            }
        }
    }
    return worst;
}

/* The cameras converted to in_fmt (conv, the C backend's inputs) and, with
 * device_frames, copied to device frames (dev, the CUDA backend's inputs;
 * otherwise it takes conv too). */
static void prepare_inputs(fovea_context *cpu, fovea_context *gpu, fovea_frame *const *cams, int n,
                           fovea_pixfmt in_fmt, int device_frames, fovea_frame *conv,
                           fovea_frame *dev, const fovea_frame **in_cpu, const fovea_frame **in_gpu)
{
    for (int c = 0; c < n; c++) {
        REQUIRE(fovea_frame_alloc(NULL, &conv[c], cams[c]->width, cams[c]->height, in_fmt,
                                  FOVEA_MEM_HOST) == FOVEA_OK);
        REQUIRE(fovea_frame_convert(cpu, &conv[c], cams[c], NULL) == FOVEA_OK);
        in_cpu[c] = &conv[c];
        in_gpu[c] = &conv[c];
        if (device_frames) {
            REQUIRE(fovea_frame_alloc(gpu, &dev[c], conv[c].width, conv[c].height, in_fmt,
                                      FOVEA_MEM_DEVICE) == FOVEA_OK);
            REQUIRE(fovea_frame_copy(gpu, &dev[c], &conv[c]) == FOVEA_OK);
            in_gpu[c] = &dev[c];
        }
    }
}

static void run_case1(const char *name, fovea_context *cpu, fovea_context *gpu,
                      const fovea_stitch_map *map, fovea_frame *const *cams, int n,
                      fovea_pixfmt in_fmt, int device_frames, int exact)
{
    fovea_frame conv[FOVEA_STITCH_MAX_CAMERAS], dev[FOVEA_STITCH_MAX_CAMERAS];
    const fovea_frame *in_cpu[FOVEA_STITCH_MAX_CAMERAS], *in_gpu[FOVEA_STITCH_MAX_CAMERAS];
    prepare_inputs(cpu, gpu, cams, n, in_fmt, device_frames, conv, dev, in_cpu, in_gpu);
    int pw, ph, nc;
    fovea_stitch_map_geometry(map, &pw, &ph, &nc);
    fovea_pixfmt out_fmt =
        (in_fmt == FOVEA_PIX_NV12 || in_fmt == FOVEA_PIX_I420) ? FOVEA_PIX_I420 : FOVEA_PIX_RGBA;
    fovea_stitcher_settings s;
    fovea_stitcher_default_settings(&s);
    s.color = FOVEA_COLOR_FIXED;
    s.cuda_exact_sampling = exact;
    fovea_stitcher *sc = NULL, *sg = NULL;
    REQUIRE(fovea_stitcher_open(&sc, cpu, map, &s) == FOVEA_OK);
    REQUIRE(fovea_stitcher_open(&sg, gpu, map, &s) == FOVEA_OK);
    REQUIRE(fovea_stitcher_set_color(sc, ccs, n) == FOVEA_OK);
    REQUIRE(fovea_stitcher_set_color(sg, ccs, n) == FOVEA_OK);

    fovea_frame ref, got, dout;
    REQUIRE(fovea_frame_alloc(NULL, &ref, pw, ph, out_fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &got, pw, ph, out_fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    fovea_frame_fill(NULL, &ref, 0x5A);
    fovea_frame_fill(NULL, &got, 0xA5);
    REQUIRE(fovea_stitcher_process(sc, in_cpu, n, &ref) == FOVEA_OK);
    int st;
    if (device_frames) {
        REQUIRE(fovea_frame_alloc(gpu, &dout, pw, ph, out_fmt, FOVEA_MEM_DEVICE) == FOVEA_OK);
        REQUIRE(fovea_frame_fill(gpu, &dout, 0xA5) == FOVEA_OK);
        st = fovea_stitcher_process(sg, in_gpu, n, &dout);
        if (st == FOVEA_OK)
            st = fovea_frame_copy(gpu, &got, &dout);
        if (st == FOVEA_OK)
            st = fovea_sync(gpu);
        fovea_frame_free(gpu, &dout);
    } else {
        st = fovea_stitcher_process(sg, in_gpu, n, &got);
    }
    if (st != FOVEA_OK)
        fprintf(stderr, "%s: cuda stitch failed: %s\n", name, fovea_last_error(gpu));
    CHECK_EQ_INT(st, FOVEA_OK);
    long ndiff = 0;
    int worst = compare(&ref, &got, &ndiff);
    printf("%-34s %-6s %s sampling: max diff %d, %ld of %ld samples differ\n", name,
           fovea_pixfmt_name(in_fmt), exact ? "exact  " : "texture", worst, ndiff,
           (long)fovea_frame_packed_size(out_fmt, pw, ph));
    CHECK(worst <= 1);
    if (exact)
        CHECK_EQ_INT(ndiff, 0); /* same integer and float operations: bit-exact */

    if (device_frames) {
        /* a caller's device frame whose rows are not aligned for the kernels'
         * wide stores (it is staged): the same result */
        fovea_frame big, odd, got2;
        REQUIRE(fovea_frame_alloc(gpu, &big, pw + 8, ph, out_fmt, FOVEA_MEM_DEVICE) == FOVEA_OK);
        REQUIRE(fovea_frame_alloc(NULL, &got2, pw, ph, out_fmt, FOVEA_MEM_HOST) == FOVEA_OK);
        REQUIRE(fovea_frame_fill(gpu, &big, 0xA5) == FOVEA_OK);
        fovea_frame_fill(NULL, &got2, 0x5A);
        memset(&odd, 0, sizeof(odd));
        odd.width = pw;
        odd.height = ph;
        odd.fmt = out_fmt;
        odd.mem = FOVEA_MEM_DEVICE;
        odd.device = big.device;
        for (int p = 0; p < 3; p++) {
            odd.data[p] = big.data[p] ? big.data[p] + 1 : NULL;
            odd.stride[p] = big.stride[p] - 1;
        }
        st = fovea_stitcher_process(sg, in_gpu, n, &odd);
        if (st == FOVEA_OK)
            st = fovea_frame_copy(gpu, &got2, &odd);
        if (st == FOVEA_OK)
            st = fovea_sync(gpu);
        CHECK_EQ_INT(st, FOVEA_OK);
        long nd2 = 0;
        CHECK_EQ_INT(compare(&got, &got2, &nd2), 0);
        fovea_frame_free(gpu, &big);
        fovea_frame_free(NULL, &got2);
    }

    if (device_frames) {
        /* frames from a pool of buffers (as a decoder hands them out), two
         * contents: each buffer's texture must be its own (the stitcher keeps
         * several per camera plane) */
        fovea_frame inv[FOVEA_STITCH_MAX_CAMERAS], pool[3][FOVEA_STITCH_MAX_CAMERAS];
        const fovea_frame *in_inv[FOVEA_STITCH_MAX_CAMERAS];
        for (int c = 0; c < n; c++) {
            REQUIRE(fovea_frame_alloc(NULL, &inv[c], conv[c].width, conv[c].height, in_fmt,
                                      FOVEA_MEM_HOST) == FOVEA_OK);
            const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(in_fmt);
            for (int p = 0; p < d->planes; p++)
                for (int y = 0; y < fovea_plane_height(in_fmt, conv[c].height, p); y++)
                    for (size_t x = 0; x < fovea_plane_row_bytes(in_fmt, conv[c].width, p); x++)
                        inv[c].data[p][(ptrdiff_t)y * inv[c].stride[p] + x] =
                            (uint8_t)(255 - conv[c].data[p][(ptrdiff_t)y * conv[c].stride[p] + x]);
            in_inv[c] = &inv[c];
            for (int k = 0; k < 3; k++) {
                REQUIRE(fovea_frame_alloc(gpu, &pool[k][c], conv[c].width, conv[c].height, in_fmt,
                                          FOVEA_MEM_DEVICE) == FOVEA_OK);
                REQUIRE(fovea_frame_copy(gpu, &pool[k][c], k == 1 ? &inv[c] : &conv[c]) ==
                        FOVEA_OK);
            }
        }
        fovea_frame ref_inv, got5;
        REQUIRE(fovea_frame_alloc(NULL, &ref_inv, pw, ph, out_fmt, FOVEA_MEM_HOST) == FOVEA_OK);
        REQUIRE(fovea_frame_alloc(NULL, &got5, pw, ph, out_fmt, FOVEA_MEM_HOST) == FOVEA_OK);
        REQUIRE(fovea_stitcher_process(sc, in_inv, n, &ref_inv) == FOVEA_OK);
        for (int f = 0; f < 6; f++) {
            const fovea_frame *in_pool[FOVEA_STITCH_MAX_CAMERAS];
            for (int c = 0; c < n; c++)
                in_pool[c] = &pool[f % 3][c];
            fovea_frame_fill(NULL, &got5, 0xA5);
            st = fovea_stitcher_process(sg, in_pool, n, &got5);
            CHECK_EQ_INT(st, FOVEA_OK);
            long nd5 = 0;
            int worst5 = compare(f % 3 == 1 ? &ref_inv : &ref, &got5, &nd5);
            CHECK(worst5 <= 1);
            if (exact)
                CHECK_EQ_INT(nd5, 0);
        }
        for (int c = 0; c < n; c++) {
            fovea_frame_free(NULL, &inv[c]);
            for (int k = 0; k < 3; k++)
                fovea_frame_free(gpu, &pool[k][c]);
        }
        fovea_frame_free(NULL, &ref_inv);
        fovea_frame_free(NULL, &got5);
    }

    /* a picture came out, not one value (guards against a trivially black or
     * flat result agreeing with itself): the color samples of plane 0 (RGB
     * without alpha, or luma) have a real mean and spread; got is within one
     * code of ref (above) */
    double sum = 0.0, sum2 = 0.0;
    long count = 0;
    const int rgba_out = out_fmt == FOVEA_PIX_RGBA;
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++)
            for (int k = 0; k < (rgba_out ? 3 : 1); k++) {
                const double v =
                    ref.data[0][(ptrdiff_t)y * ref.stride[0] + (rgba_out ? 4 * x + k : x)];
                sum += v;
                sum2 += v * v;
                count++;
            }
    const double mean = sum / (double)count, sd = sqrt(sum2 / (double)count - mean * mean);
    CHECK(mean > 20.0 && mean < 235.0);
    CHECK(sd > 10.0);

    /* statistics and the solve agree exactly */
    if (n > 1) {
        fovea_color_correction a[FOVEA_STITCH_MAX_CAMERAS], b[FOVEA_STITCH_MAX_CAMERAS];
        REQUIRE(fovea_stitcher_analyze(sc, in_cpu, n, 0, a) == FOVEA_OK);
        st = fovea_stitcher_analyze(sg, in_gpu, n, 0, b);
        CHECK_EQ_INT(st, FOVEA_OK);
        /* exact sampling: identical integer statistics, identical solve; the
         * texture unit moves a few samples by a quarter code */
        const float tol = exact ? 0.0f : 2e-3f;
        float moved = 0.0f;
        for (int c = 0; c < n && st == FOVEA_OK; c++) {
            for (int k = 0; k < 3; k++) {
                CHECK(fabsf(a[c].gain[k] - b[c].gain[k]) <= tol);
                moved = fmaxf(moved, fabsf(a[c].gain[k] - 1.0f));
            }
            CHECK(fabsf(a[c].gamma - b[c].gamma) <= tol);
        }
        /* the cameras' rendered responses differ (main): a solve that stays at
         * identity would agree with itself trivially (YUV inputs too are
         * balanced per channel, docs/stitch.md section 4) */
        const float need = 0.005f;
        CHECK(moved > need);
        if (!(moved > need))
            for (int c = 0; c < n; c++)
                fprintf(stderr, "%s fmt %d exact %d: camera %d gains %.4f %.4f %.4f gamma %.4f\n",
                        name, (int)in_fmt, exact, c, a[c].gain[0], a[c].gain[1], a[c].gain[2],
                        a[c].gamma);
    }
    fovea_stitcher_close(&sc);
    fovea_stitcher_close(&sg);
    fovea_frame_free(NULL, &ref);
    fovea_frame_free(NULL, &got);
    for (int c = 0; c < n; c++) {
        fovea_frame_free(NULL, &conv[c]);
        if (device_frames)
            fovea_frame_free(gpu, &dev[c]);
    }
}

static void run_case(const char *name, fovea_context *cpu, fovea_context *gpu,
                     const fovea_stitch_map *map, fovea_frame *const *cams, int n,
                     fovea_pixfmt in_fmt, int device_frames)
{
    run_case1(name, cpu, gpu, map, cams, n, in_fmt, device_frames, 1);
    run_case1(name, cpu, gpu, map, cams, n, in_fmt, device_frames, 0);
}

/* Automatic color balance on a stream, both backends. Deterministic (frame n
 * analyzed, its corrections applied from frame n + 1): with exact sampling the
 * statistics, solves and tables are the same, so every frame must come out
 * bit for bit as the C backend's, also the frames after a correction changed
 * (the new tables reach the device behind the frame that measured them). Then
 * the background mode (statistics read back on the side stream and absorbed
 * when ready): the corrections must move away from identity within the clamps. */
static void run_auto(const char *name, fovea_context *cpu, fovea_context *gpu,
                     const fovea_stitch_map *map, fovea_frame *const *cams, int n,
                     fovea_pixfmt in_fmt, fovea_colorspace yuv_cs, int yuv_full)
{
    fovea_frame conv[FOVEA_STITCH_MAX_CAMERAS], dev[FOVEA_STITCH_MAX_CAMERAS];
    const fovea_frame *in_cpu[FOVEA_STITCH_MAX_CAMERAS], *in_gpu[FOVEA_STITCH_MAX_CAMERAS];
    prepare_inputs(cpu, gpu, cams, n, in_fmt, 1, conv, dev, in_cpu, in_gpu);
    int pw, ph, nc;
    fovea_stitch_map_geometry(map, &pw, &ph, &nc);
    fovea_pixfmt out_fmt = in_fmt == FOVEA_PIX_NV12 ? FOVEA_PIX_I420 : FOVEA_PIX_RGBA;
    fovea_stitcher_settings s;
    fovea_stitcher_default_settings(&s);
    s.color = FOVEA_COLOR_AUTO;
    s.deterministic = 1;
    s.auto_interval = 2;
    s.auto_smoothing = 0.5f;
    s.cuda_exact_sampling = 1;
    s.yuv_colorspace = yuv_cs;
    s.yuv_full_range = yuv_full;
    fovea_stitcher *sc = NULL, *sg = NULL;
    REQUIRE(fovea_stitcher_open(&sc, cpu, map, &s) == FOVEA_OK);
    REQUIRE(fovea_stitcher_open(&sg, gpu, map, &s) == FOVEA_OK);
    fovea_frame ref, got, first, dout;
    REQUIRE(fovea_frame_alloc(NULL, &ref, pw, ph, out_fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &got, pw, ph, out_fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &first, pw, ph, out_fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(gpu, &dout, pw, ph, out_fmt, FOVEA_MEM_DEVICE) == FOVEA_OK);
    long changed = 0;
    for (int f = 0; f < 5; f++) {
        fovea_frame_fill(NULL, &ref, 0x5A);
        fovea_frame_fill(NULL, &got, 0xA5);
        REQUIRE(fovea_frame_fill(gpu, &dout, 0xA5) == FOVEA_OK);
        REQUIRE(fovea_stitcher_process(sc, in_cpu, n, &ref) == FOVEA_OK);
        int st = fovea_stitcher_process(sg, in_gpu, n, &dout);
        if (st == FOVEA_OK)
            st = fovea_frame_copy(gpu, &got, &dout);
        if (st == FOVEA_OK)
            st = fovea_sync(gpu);
        CHECK_EQ_INT(st, FOVEA_OK);
        long nd = 0;
        int worst = compare(&ref, &got, &nd);
        CHECK_EQ_INT(worst, 0);
        CHECK_EQ_INT(nd, 0);
        fovea_color_correction a[FOVEA_STITCH_MAX_CAMERAS], b[FOVEA_STITCH_MAX_CAMERAS];
        REQUIRE(fovea_stitcher_get_color(sc, a, n) == FOVEA_OK);
        REQUIRE(fovea_stitcher_get_color(sg, b, n) == FOVEA_OK);
        CHECK(memcmp(a, b, sizeof(a[0]) * (size_t)n) == 0);
        if (f == 0)
            REQUIRE(fovea_frame_copy(NULL, &first, &got) == FOVEA_OK);
    }
    {
        /* the balance corrects the first frame in full: it differs from the
         * uncorrected stitch of the same inputs */
        fovea_stitcher_settings so = s;
        so.color = FOVEA_COLOR_OFF;
        fovea_stitcher *soff = NULL;
        REQUIRE(fovea_stitcher_open(&soff, cpu, map, &so) == FOVEA_OK);
        REQUIRE(fovea_stitcher_process(soff, in_cpu, n, &ref) == FOVEA_OK);
        long nd = 0;
        changed = compare(&ref, &first, &nd) > 0 ? nd : 0;
        fovea_stitcher_close(&soff);
    }
    printf("%-34s %-6s auto color%s, deterministic: 5 frames bit-exact, %ld samples changed by "
           "the corrections\n",
           name, fovea_pixfmt_name(in_fmt),
           in_fmt != FOVEA_PIX_NV12   ? ""
           : yuv_cs == FOVEA_CS_BT709 ? (yuv_full ? " (BT.709 full)" : " (BT.709)")
                                      : (yuv_full ? " (full range)" : ""),
           changed);
    CHECK(changed > 0); /* the balance did something, and the GPU followed it */

    /* background mode: statistics on every frame, absorbed when they arrive */
    fovea_stitcher_close(&sg);
    s.deterministic = 0;
    s.auto_interval = 1;
    s.auto_smoothing = 1.0f;
    s.cuda_exact_sampling = 0;
    REQUIRE(fovea_stitcher_open(&sg, gpu, map, &s) == FOVEA_OK);
    for (int f = 0; f < 8; f++)
        CHECK_EQ_INT(fovea_stitcher_process_async(sg, in_gpu, n, &dout), FOVEA_OK);
    CHECK_EQ_INT(fovea_sync(gpu), FOVEA_OK);
    CHECK_EQ_INT(fovea_stitcher_process(sg, in_gpu, n, &dout), FOVEA_OK);
    fovea_color_correction b[FOVEA_STITCH_MAX_CAMERAS];
    REQUIRE(fovea_stitcher_get_color(sg, b, n) == FOVEA_OK);
    float moved = 0.0f;
    for (int c = 0; c < n; c++) {
        for (int k = 0; k < 3; k++) {
            CHECK(b[c].gain[k] >= s.gain_min && b[c].gain[k] <= s.gain_max);
            moved += fabsf(b[c].gain[k] - 1.0f);
        }
        CHECK(b[c].gamma >= s.gamma_min && b[c].gamma <= s.gamma_max);
        moved += fabsf(b[c].gamma - 1.0f);
    }
    CHECK(moved > 1e-3f);
    fovea_stitcher_close(&sc);
    fovea_stitcher_close(&sg);
    fovea_frame_free(NULL, &ref);
    fovea_frame_free(NULL, &got);
    fovea_frame_free(NULL, &first);
    fovea_frame_free(gpu, &dout);
    for (int c = 0; c < n; c++) {
        fovea_frame_free(NULL, &conv[c]);
        fovea_frame_free(gpu, &dev[c]);
    }
}

/* Write the map's exact tables as the six users' files and import them. */
static int export_tables(const fovea_stitch_map *m, const char *dir)
{
    int pw = m->pano_width, ph = m->pano_height;
    const char *names[6] = {"lut_left_x.bin",  "lut_left_y.bin",  "lut_right_x.bin",
                            "lut_right_y.bin", "weight_left.bin", "weight_right.bin"};
    FILE *fp[6];
    for (int k = 0; k < 6; k++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, names[k]);
        fp[k] = fopen(path, "wb");
        if (!fp[k])
            return -1;
    }
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    for (int j = 0; j < ph; j++)
        for (int i = 0; i < pw; i++) {
            fv_map_weights(m, i, j, w, u, v);
            float vals[6] = {w[0] > 0 ? u[0] : -1.0f,
                             w[0] > 0 ? v[0] : -1.0f,
                             w[1] > 0 ? u[1] : -1.0f,
                             w[1] > 0 ? v[1] : -1.0f,
                             w[0],
                             w[1]};
            for (int k = 0; k < 6; k++)
                fwrite(&vals[k], 4, 1, fp[k]);
        }
    for (int k = 0; k < 6; k++)
        fclose(fp[k]);
    return 0;
}

int main(void)
{
    if (!test_have_gpu()) {
        printf("test_gpu_stitch: no CUDA device, skipped\n");
        return TEST_SKIP;
    }
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    fovea_context *cpu = NULL, *gpu = NULL;
    REQUIRE(fovea_open(&cpu, &s) == FOVEA_OK);
    s.backend = FOVEA_BACKEND_CUDA;
    REQUIRE(fovea_open(&gpu, &s) == FOVEA_OK);

    for (size_t r = 0; r < sizeof(rigs) / sizeof(rigs[0]); r++) {
        fovea_rig rig;
        char err[512];
        REQUIRE(fv_rig_parse(rigs[r], strlen(rigs[r]), &rig, err, sizeof(err)) == FOVEA_OK);
        fovea_stitch_map *map = calloc(1, sizeof(*map));
        fv_map_build_options mo;
        fv_map_build_default_options(&mo);
        REQUIRE(fv_map_build(cpu, &rig, map, &mo) == FOVEA_OK);
        scene_params sp;
        scene_default_params(&sp, 7 + r, scene_rig_pitch(&rig));
        scene_model scene;
        REQUIRE(scene_init(&scene, &sp) == FOVEA_OK);
        fovea_frame cams[FOVEA_STITCH_MAX_CAMERAS];
        fovea_frame *camp[FOVEA_STITCH_MAX_CAMERAS];
        for (int c = 0; c < rig.num_cameras; c++) {
            REQUIRE(fovea_frame_alloc(NULL, &cams[c], rig.cameras[c].width, rig.cameras[c].height,
                                      FOVEA_PIX_RGBA, FOVEA_MEM_HOST) == FOVEA_OK);
            color_response resp = {{1.0f + 0.05f * c, 1.0f, 1.0f - 0.04f * c}, 1.0f, {0, 0, 0}};
            REQUIRE(scene_render_camera(cpu, &scene, &rig, c, &resp, &cams[c]) == FOVEA_OK);
            camp[c] = &cams[c];
        }
        char name[64];
        snprintf(name, sizeof(name), "rig %zu (%d cams, %dx%d)", r, rig.num_cameras, rig.width,
                 rig.height);
        run_case(name, cpu, gpu, map, camp, rig.num_cameras, FOVEA_PIX_RGBA, 1);
        run_case(name, cpu, gpu, map, camp, rig.num_cameras, FOVEA_PIX_RGBA, 0);
        run_case(name, cpu, gpu, map, camp, rig.num_cameras, FOVEA_PIX_RGB24, 1);
        run_case(name, cpu, gpu, map, camp, rig.num_cameras, FOVEA_PIX_NV12, 1);
        run_case(name, cpu, gpu, map, camp, rig.num_cameras, FOVEA_PIX_I420, 0);
        if (rig.num_cameras > 1) {
            run_auto(name, cpu, gpu, map, camp, rig.num_cameras, FOVEA_PIX_RGBA, FOVEA_CS_BT601, 0);
            run_auto(name, cpu, gpu, map, camp, rig.num_cameras, FOVEA_PIX_NV12, FOVEA_CS_BT601, 0);
            /* the other YUV conventions: statistics, tables and uncovered black */
            run_auto(name, cpu, gpu, map, camp, rig.num_cameras, FOVEA_PIX_NV12, FOVEA_CS_BT709, 1);
        }

        if (rig.num_cameras > 1) {
            /* The same rig on coarse grids (every step >= 4, as the full-size
             * rigs get: the bench rig's are 4 and 8). These small rigs' pinholes
             * need step 2 for the default tolerance, and the kernels' fastest
             * paths (interior tiles by multiply-adds, the YUV overlap path and
             * its block list with tiles made by two blocks) need steps >= 4.
             * The map's accuracy does not matter here: both backends use it.
             * Steps of 4 (a thread's pixels fill a grid cell) on even rigs, up
             * to 16 on odd ones. */
            fovea_stitch_map *coarse = calloc(1, sizeof(*coarse));
            REQUIRE(coarse != NULL);
            mo.tolerance = 1.0;
            mo.max_step = r % 2 ? 16 : 4;
            REQUIRE(fv_map_build(cpu, &rig, coarse, &mo) == FOVEA_OK);
            int min_step = 32;
            for (int c = 0; c < coarse->num_cameras; c++)
                min_step = coarse->cam[c].step < min_step ? coarse->cam[c].step : min_step;
            CHECK(min_step >= 4);
            char cname[80];
            snprintf(cname, sizeof(cname), "%s, steps >= %d", name, min_step);
            run_case(cname, cpu, gpu, coarse, camp, rig.num_cameras, FOVEA_PIX_RGBA, 1);
            run_case(cname, cpu, gpu, coarse, camp, rig.num_cameras, FOVEA_PIX_NV12, 1);
            run_case(cname, cpu, gpu, coarse, camp, rig.num_cameras, FOVEA_PIX_I420, 0);
            fovea_stitch_map_close(&coarse);
        }

        {
            /* Hugin's photometric part on every camera (exposure, white balance,
             * vignetting off center, EMoR and linear responses): the CUDA backend
             * takes the exact path with the same float operations, so the output
             * is the C backend's byte for byte (RGB inputs; a YUV input is refused) */
            fovea_rig prig = rig;
            prig.photo_exposure = 0.25;
            for (int k = 0; k < 5; k++)
                prig.photo_emor[k] = 0.3 - 0.1 * k;
            for (int c = 0; c < prig.num_cameras; c++) {
                fovea_rig_photometric *ph = &prig.cameras[c].photometric;
                memset(ph, 0, sizeof(*ph));
                ph->enabled = 1;
                ph->exposure = 0.1 * c - 0.2;
                ph->wb_red = 1.0 + 0.07 * c;
                ph->wb_blue = 1.0 - 0.05 * c;
                ph->vignetting[0] = 1.0;
                ph->vignetting[1] = -0.3 - 0.05 * c;
                ph->vignetting[2] = 0.1;
                ph->vignetting[3] = -0.04;
                ph->vignetting_center[0] = 5.0 - 2.0 * c;
                ph->vignetting_center[1] = -3.0 + c;
                ph->linear_response = c == 1;
                for (int k = 0; k < 5; k++)
                    ph->emor[k] = 0.5 * k - 0.2 * c;
            }
            fovea_stitch_map *pmap = calloc(1, sizeof(*pmap));
            REQUIRE(pmap != NULL);
            fv_map_build_default_options(&mo);
            REQUIRE(fv_map_build(cpu, &prig, pmap, &mo) == FOVEA_OK);
            char pname[96];
            snprintf(pname, sizeof(pname), "%s, photometric", name);
            run_case(pname, cpu, gpu, pmap, camp, rig.num_cameras, FOVEA_PIX_RGBA, 1);
            run_case(pname, cpu, gpu, pmap, camp, rig.num_cameras, FOVEA_PIX_RGBA, 0);
            run_case(pname, cpu, gpu, pmap, camp, rig.num_cameras, FOVEA_PIX_RGB24, 1);
            if (rig.num_cameras > 1)
                run_auto(pname, cpu, gpu, pmap, camp, rig.num_cameras, FOVEA_PIX_RGBA,
                         FOVEA_CS_BT601, 0);
            fovea_stitch_map_close(&pmap);
        }

        if (rig.num_cameras == 2) {
            /* the exact path: the same map exported as six float tables */
            char dir[] = "/tmp/fovea_gpu_stitch_XXXXXX";
            REQUIRE(mkdtemp(dir) != NULL);
            REQUIRE(export_tables(map, dir) == 0);
            fovea_stitch_map *imp = NULL;
            int st = fovea_stitch_map_open_tables(&imp, NULL, dir, rig.width, rig.height,
                                                  rig.cameras[0].width, rig.cameras[0].height);
            if (st != FOVEA_OK)
                fprintf(stderr, "import: %s\n", fovea_last_error(NULL));
            REQUIRE(st == FOVEA_OK);
            run_case("imported exact tables", cpu, gpu, imp, camp, 2, FOVEA_PIX_RGBA, 1);
            run_case("imported exact tables", cpu, gpu, imp, camp, 2, FOVEA_PIX_NV12, 1);
            fovea_stitch_map_close(&imp);
            char cmd[256];
            snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
            CHECK(system(cmd) == 0);
        }
        for (int c = 0; c < rig.num_cameras; c++)
            fovea_frame_free(NULL, &cams[c]);
        fovea_stitch_map_close(&map);
    }
    fovea_close(&gpu);
    fovea_close(&cpu);
    return test_finish("test_gpu_stitch");
}
