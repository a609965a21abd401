/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Multi-band blending and DP seams, CUDA vs the C reference: RGBA, RGB24,
 * NV12 and I420 inputs (the stitcher's formats, all 8-bit), 2, 3 and 5
 * cameras, odd sizes, 1, 3, 5 and 7 levels, the map's seam and the DP seam,
 * host and device frames, outputs poisoned first, several frames whose
 * content moves so that the seam interval and its hysteresis run. With exact
 * sampling the warped images are the same bytes and everything after them is
 * integer arithmetic: every frame and every seam label must be identical. The
 * texture sampling's difference is printed (a measurement). The C reference
 * blends only where each camera matters (pyramid.h's plan, a camera across
 * longitude 180 in two pieces on the 360-degree rig): it must equal its
 * whole-panorama computation too. */
#include <stdlib.h>
#include <string.h>

#include "fovea/convert.h"
#include "fovea/stitch.h"
#include "stitch/map_build.h"
#include "stitch/multiband.h"
#include "stitch/rig.h"
#include "stitch/stitch_internal.h"
#include "scene.h"
#include "testutil.h"

/* The demo's two-camera rig at 1/8 of its size, odd panorama width; the
 * second rig renders camera 1 turned by 0.4 degrees of yaw and 0.2 of pitch
 * (parallax-like misregistration: the DP seam has something to avoid). */
#define DEMO_RIG(yaw, pitch)                                                                       \
    "{\"panorama\": {\"projection\": \"equirectangular\", \"width\": 713, \"height\": 237,"        \
    " \"hfov\": 150.0, \"vfov\": 50.0}, \"blend\": {\"feather\": 8},"                              \
    " \"cameras\": [{\"width\": 480, \"height\": 270, \"model\": \"pinhole\", \"fx\": 266.5,"      \
    " \"fy\": 266.5, \"cx\": 239.5, \"cy\": 134.5, \"dist\": [-0.05, 0.01], \"yaw\": -35.0,"       \
    " \"pitch\": 0.0, \"roll\": 0.0}, {\"width\": 480, \"height\": 270, \"model\": \"fisheye\","   \
    " \"fx\": 150.0, \"fy\": 150.0, \"cx\": 239.5, \"cy\": 134.5, \"dist\": [0.02, -0.01],"        \
    " \"yaw\": " yaw ", \"pitch\": " pitch ", \"roll\": 0.0}]}"

static const char *rigs[][2] = {
    {DEMO_RIG("35.0", "0.0"), DEMO_RIG("35.4", "0.2")},
    /* three cameras on a cylinder, odd sizes, one rolled */
    {"{\"panorama\": {\"projection\": \"cylindrical\", \"width\": 501, \"height\": 167,"
     " \"hfov\": 200.0, \"vfov\": 60.0, \"yaw\": 3.0}, \"blend\": {\"feather\": 12},"
     " \"cameras\": [{\"width\": 321, \"height\": 241, \"model\": \"pinhole\", \"fx\": 210.0,"
     " \"fy\": 210.0, \"cx\": 160.0, \"cy\": 120.0, \"yaw\": -60.0, \"pitch\": 2.0, \"roll\": 1.0},"
     " {\"width\": 321, \"height\": 241, \"model\": \"pinhole\", \"fx\": 210.0, \"fy\": 210.5,"
     " \"cx\": 160.0, \"cy\": 120.0, \"dist\": [-0.1, 0.02], \"yaw\": 0.0, \"pitch\": 0.0,"
     " \"roll\": 0.0}, {\"width\": 321, \"height\": 241, \"model\": \"pinhole\", \"fx\": 210.0,"
     " \"fy\": 210.0, \"cx\": 160.0, \"cy\": 120.0, \"yaw\": 60.0, \"pitch\": -2.0,"
     " \"roll\": -1.0}]}",
     NULL},
    /* five cameras all around (a 360-degree panorama: the wrap-around seam), odd sizes */
    {"{\"panorama\": {\"projection\": \"equirectangular\", \"width\": 451, \"height\": 151,"
     " \"hfov\": 360.0, \"vfov\": 110.0}, \"blend\": {\"feather\": 6},"
     " \"cameras\": ["
     "{\"width\": 161, \"height\": 121, \"model\": \"pinhole\", \"fx\": 75.0, \"fy\": 75.0,"
     " \"cx\": 80.0, \"cy\": 60.0, \"yaw\": 0.0, \"pitch\": 0.0, \"roll\": 0.0},"
     "{\"width\": 161, \"height\": 121, \"model\": \"pinhole\", \"fx\": 75.0, \"fy\": 75.0,"
     " \"cx\": 80.0, \"cy\": 60.0, \"yaw\": 72.0, \"pitch\": 3.0, \"roll\": 0.0},"
     "{\"width\": 161, \"height\": 121, \"model\": \"fisheye\", \"fx\": 55.0, \"fy\": 55.0,"
     " \"cx\": 80.0, \"cy\": 60.0, \"yaw\": 144.0, \"pitch\": 0.0, \"roll\": 2.0},"
     "{\"width\": 161, \"height\": 121, \"model\": \"pinhole\", \"fx\": 75.0, \"fy\": 75.0,"
     " \"cx\": 80.0, \"cy\": 60.0, \"dist\": [-0.05, 0.01], \"yaw\": 216.0, \"pitch\": -3.0,"
     " \"roll\": 0.0},"
     "{\"width\": 161, \"height\": 121, \"model\": \"pinhole\", \"fx\": 75.0, \"fy\": 75.0,"
     " \"cx\": 80.0, \"cy\": 60.0, \"yaw\": 288.0, \"pitch\": 10.0, \"roll\": 0.0}]}",
     NULL},
};

static const fovea_color_correction ccs[5] = {
    {{1.10f, 1.0f, 0.92f}, 1.12f}, {{0.95f, 1.03f, 1.07f}, 0.90f}, {{1.0f, 0.97f, 1.0f}, 1.05f},
    {{1.05f, 0.9f, 1.1f}, 0.95f},  {{0.9f, 1.0f, 1.0f}, 1.0f},
};

#define FRAMES 5

/* cases whose plan has a camera in two pieces (across longitude 180) */
static int split_cases;

/* Largest sample difference of two host frames; counts the samples that differ. */
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

/* Frame f of camera c: the rendered view with a dark upright bar (a
 * passer-by) that moves across the image from frame to frame. */
static void make_frame(const fovea_frame *base, int c, int f, fovea_frame *dst)
{
    for (int y = 0; y < base->height; y++)
        memcpy(dst->data[0] + (ptrdiff_t)y * dst->stride[0],
               base->data[0] + (ptrdiff_t)y * base->stride[0], 4 * (size_t)base->width);
    const int bw = base->width / 24 + 2, bh = base->height / 3;
    const int x0 = (base->width / 3 + f * base->width / 7 + c * 13) % (base->width - bw);
    const int y0 = base->height / 3;
    for (int y = y0; y < y0 + bh; y++)
        for (int x = x0; x < x0 + bw; x++) {
            uint8_t *p = dst->data[0] + (ptrdiff_t)y * dst->stride[0] + 4 * x;
            p[0] = (uint8_t)(30 + (x * 5 + y * 3 + f) % 30);
            p[1] = 28;
            p[2] = 60;
        }
}

typedef struct mb_case {
    int levels, dp, exact, device_out, device_in;
} mb_case;

/* frames[f][c]: the cameras' RGBA frames. Returns the number of frames whose
 * DP labels differ from the map's (0 without dp). */
static int run_case(const char *name, fovea_context *cpu, fovea_context *gpu,
                    const fovea_stitch_map *map,
                    fovea_frame frames[FRAMES][FOVEA_STITCH_MAX_CAMERAS], int n,
                    fovea_pixfmt in_fmt, const mb_case *k)
{
    int pw, ph, nc;
    fovea_stitch_map_geometry(map, &pw, &ph, &nc);
    const fovea_pixfmt out_fmt =
        (in_fmt == FOVEA_PIX_NV12 || in_fmt == FOVEA_PIX_I420) ? FOVEA_PIX_I420 : FOVEA_PIX_RGBA;
    fovea_stitcher_settings s;
    fovea_stitcher_default_settings(&s);
    s.color = FOVEA_COLOR_FIXED;
    s.cuda_exact_sampling = k->exact;
    s.blend = FOVEA_BLEND_MULTIBAND;
    s.blend_levels = k->levels;
    s.seam = k->dp ? FOVEA_SEAM_DP : FOVEA_SEAM_NONE;
    s.seam_interval = 2;
    fovea_stitcher *sc = NULL, *sg = NULL, *sf = NULL, *sw = NULL;
    REQUIRE(fovea_stitcher_open(&sc, cpu, map, &s) == FOVEA_OK);
    /* the C reference over the whole panorama (before restricted blending) */
    REQUIRE(fovea_stitcher_open(&sw, cpu, map, &s) == FOVEA_OK);
    fv_multiband_set_whole(sw->mb, 1);
    const fv_pyr_plan *plan = fv_multiband_plan(sc->mb, 0);
    split_cases += plan->npieces > n;
    int st = fovea_stitcher_open(&sg, gpu, map, &s);
    if (st != FOVEA_OK)
        fprintf(stderr, "%s: cuda multiband open failed: %s\n", name, fovea_last_error(gpu));
    REQUIRE(st == FOVEA_OK);
    s.blend = FOVEA_BLEND_FEATHER;
    s.seam = FOVEA_SEAM_NONE;
    REQUIRE(fovea_stitcher_open(&sf, cpu, map, &s) == FOVEA_OK);
    REQUIRE(fovea_stitcher_set_color(sc, ccs, n) == FOVEA_OK);
    REQUIRE(fovea_stitcher_set_color(sw, ccs, n) == FOVEA_OK);
    REQUIRE(fovea_stitcher_set_color(sg, ccs, n) == FOVEA_OK);
    REQUIRE(fovea_stitcher_set_color(sf, ccs, n) == FOVEA_OK);

    fovea_frame conv[FOVEA_STITCH_MAX_CAMERAS], dev[FOVEA_STITCH_MAX_CAMERAS];
    const fovea_frame *in_cpu[FOVEA_STITCH_MAX_CAMERAS], *in_gpu[FOVEA_STITCH_MAX_CAMERAS];
    for (int c = 0; c < n; c++) {
        REQUIRE(fovea_frame_alloc(NULL, &conv[c], frames[0][c].width, frames[0][c].height, in_fmt,
                                  FOVEA_MEM_HOST) == FOVEA_OK);
        if (k->device_in)
            REQUIRE(fovea_frame_alloc(gpu, &dev[c], conv[c].width, conv[c].height, in_fmt,
                                      FOVEA_MEM_DEVICE) == FOVEA_OK);
        in_cpu[c] = &conv[c];
        in_gpu[c] = k->device_in ? &dev[c] : &conv[c];
    }
    fovea_frame ref, got, feath, dout, whole;
    REQUIRE(fovea_frame_alloc(NULL, &ref, pw, ph, out_fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &whole, pw, ph, out_fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &got, pw, ph, out_fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &feath, pw, ph, out_fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    if (k->device_out)
        REQUIRE(fovea_frame_alloc(gpu, &dout, pw, ph, out_fmt, FOVEA_MEM_DEVICE) == FOVEA_OK);
    int worst_all = 0, moved_frames = 0;
    long ndiff_all = 0, label_diff = 0, vs_feather = 0, vs_whole = 0;
    const size_t px = (size_t)pw * (size_t)ph;
    for (int f = 0; f < FRAMES; f++) {
        for (int c = 0; c < n; c++) {
            REQUIRE(fovea_frame_convert(cpu, &conv[c], &frames[f][c], NULL) == FOVEA_OK);
            if (k->device_in)
                REQUIRE(fovea_frame_copy(gpu, &dev[c], &conv[c]) == FOVEA_OK);
        }
        fovea_frame_fill(NULL, &ref, 0x5A);
        fovea_frame_fill(NULL, &got, 0xA5);
        REQUIRE(fovea_stitcher_process(sc, in_cpu, n, &ref) == FOVEA_OK);
        REQUIRE(fovea_stitcher_process(sf, in_cpu, n, &feath) == FOVEA_OK);
        fovea_frame_fill(NULL, &whole, 0x3C);
        REQUIRE(fovea_stitcher_process(sw, in_cpu, n, &whole) == FOVEA_OK);
        long nw = 0;
        compare(&ref, &whole, &nw);
        vs_whole += nw;
        if (k->device_out) {
            REQUIRE(fovea_frame_fill(gpu, &dout, 0xA5) == FOVEA_OK);
            st = fovea_stitcher_process(sg, in_gpu, n, &dout);
            if (st == FOVEA_OK)
                st = fovea_frame_copy(gpu, &got, &dout);
            if (st == FOVEA_OK)
                st = fovea_sync(gpu);
        } else {
            st = fovea_stitcher_process(sg, in_gpu, n, &got);
        }
        if (st != FOVEA_OK)
            fprintf(stderr, "%s: cuda multiband failed: %s\n", name, fovea_last_error(gpu));
        REQUIRE(st == FOVEA_OK);
        long nd = 0, nf = 0;
        const int worst = compare(&ref, &got, &nd);
        worst_all = worst > worst_all ? worst : worst_all;
        ndiff_all += nd;
        compare(&ref, &feath, &nf);
        vs_feather += nf;
        const uint8_t *lc = fv_multiband_labels(sc->mb), *lg = fv_multiband_labels(sg->mb);
        REQUIRE(lc && lg);
        for (size_t p = 0; p < px; p++)
            label_diff += lc[p] != lg[p];
    }
    /* the map's labels, for "the DP seam moved": a multiband stitcher
     * without dp has them from its first frame */
    if (k->dp) {
        fovea_stitcher *s0 = NULL;
        fovea_stitcher_settings s2 = s;
        s2.blend = FOVEA_BLEND_MULTIBAND;
        s2.seam = FOVEA_SEAM_NONE;
        s2.blend_levels = 1;
        REQUIRE(fovea_stitcher_open(&s0, cpu, map, &s2) == FOVEA_OK);
        REQUIRE(fovea_stitcher_process(s0, in_cpu, n, &feath) == FOVEA_OK);
        const uint8_t *l0 = fv_multiband_labels(s0->mb), *lg = fv_multiband_labels(sg->mb);
        for (size_t p = 0; p < px; p++)
            if (l0[p] != lg[p]) {
                moved_frames = 1;
                break;
            }
        fovea_stitcher_close(&s0);
    }
    printf("%-30s %-6s levels %d %-5s %s sampling, %s in, %s out: max diff %d, %ld samples "
           "differ, %ld labels differ (%ld samples differ from feathering; %d pieces, %ld "
           "samples differ from the whole-panorama C)\n",
           name, fovea_pixfmt_name(in_fmt), k->levels, k->dp ? "dp" : "none",
           k->exact ? "exact  " : "texture", k->device_in ? "device" : "host",
           k->device_out ? "device" : "host", worst_all, ndiff_all, label_diff, vs_feather,
           plan->npieces, vs_whole);
    /* restricted blending (the C reference's default) equals the whole one */
    CHECK(vs_whole == 0);
    /* the blend did something: multiband is not the feathered stitch */
    CHECK(vs_feather > 0);
    if (k->exact) {
        /* same bytes into the pyramids, same integer arithmetic */
        CHECK_EQ_INT(worst_all, 0);
        CHECK(ndiff_all == 0);
        CHECK(label_diff == 0);
    }
    fovea_stitcher_close(&sc);
    fovea_stitcher_close(&sg);
    fovea_stitcher_close(&sf);
    fovea_stitcher_close(&sw);
    fovea_frame_free(NULL, &whole);
    fovea_frame_free(NULL, &ref);
    fovea_frame_free(NULL, &got);
    fovea_frame_free(NULL, &feath);
    if (k->device_out)
        fovea_frame_free(gpu, &dout);
    for (int c = 0; c < n; c++) {
        fovea_frame_free(NULL, &conv[c]);
        if (k->device_in)
            fovea_frame_free(gpu, &dev[c]);
    }
    return moved_frames;
}

int main(void)
{
    if (!test_have_gpu()) {
        printf("test_gpu_multiband: no CUDA device, skipped\n");
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
        fovea_rig rig, render;
        split_cases = 0;
        char err[512];
        REQUIRE(fv_rig_parse(rigs[r][0], strlen(rigs[r][0]), &rig, err, sizeof(err)) == FOVEA_OK);
        const char *rt = rigs[r][1] ? rigs[r][1] : rigs[r][0];
        REQUIRE(fv_rig_parse(rt, strlen(rt), &render, err, sizeof(err)) == FOVEA_OK);
        fovea_stitch_map *map = calloc(1, sizeof(*map));
        REQUIRE(map != NULL);
        fv_map_build_options mo;
        fv_map_build_default_options(&mo);
        REQUIRE(fv_map_build(cpu, &rig, map, &mo) == FOVEA_OK);
        scene_params sp;
        scene_default_params(&sp, 11 + r, scene_rig_pitch(&rig));
        scene_model scene;
        REQUIRE(scene_init(&scene, &sp) == FOVEA_OK);
        const int n = rig.num_cameras;
        fovea_frame base[FOVEA_STITCH_MAX_CAMERAS];
        static fovea_frame frames[FRAMES][FOVEA_STITCH_MAX_CAMERAS];
        for (int c = 0; c < n; c++) {
            REQUIRE(fovea_frame_alloc(NULL, &base[c], rig.cameras[c].width, rig.cameras[c].height,
                                      FOVEA_PIX_RGBA, FOVEA_MEM_HOST) == FOVEA_OK);
            color_response resp = {{1.0f + 0.05f * c, 1.0f, 1.0f - 0.04f * c}, 1.0f, {0, 0, 0}};
            REQUIRE(scene_render_camera(cpu, &scene, &render, c, &resp, &base[c]) == FOVEA_OK);
            for (int f = 0; f < FRAMES; f++) {
                REQUIRE(fovea_frame_alloc(NULL, &frames[f][c], base[c].width, base[c].height,
                                          FOVEA_PIX_RGBA, FOVEA_MEM_HOST) == FOVEA_OK);
                make_frame(&base[c], c, f, &frames[f][c]);
            }
        }
        char name[64];
        snprintf(name, sizeof(name), "rig %zu (%d cams, %dx%d)", r, n, rig.width, rig.height);
        static const fovea_pixfmt fmts[4] = {FOVEA_PIX_RGBA, FOVEA_PIX_RGB24, FOVEA_PIX_NV12,
                                             FOVEA_PIX_I420};
        static const int levels[4] = {1, 3, 5, 7};
        int moved = 0;
        for (int fi = 0; fi < 4; fi++) {
            for (int dp = 0; dp < 2; dp++) {
                /* levels and frame placement vary with the format */
                mb_case k = {levels[(fi + dp) % 4], dp, 1, fi % 2, fi >= 2};
                moved += run_case(name, cpu, gpu, map, frames, n, fmts[fi], &k);
            }
            mb_case k5 = {5, 1, 1, 1, 1};
            if (fi == 0 || fi == 3)
                moved += run_case(name, cpu, gpu, map, frames, n, fmts[fi], &k5);
        }
        /* texture sampling: a measurement, no bound asserted */
        mb_case kt = {5, 0, 0, 1, 1};
        run_case(name, cpu, gpu, map, frames, n, FOVEA_PIX_RGBA, &kt);
        run_case(name, cpu, gpu, map, frames, n, FOVEA_PIX_NV12, &kt);
        /* on the misregistered demo rig the DP seam leaves the map's */
        if (r == 0)
            CHECK(moved > 0);
        /* on the 360-degree rig cameras straddle longitude 180: with few
         * levels their two parts are separate pieces */
        if (r == 2)
            CHECK(split_cases > 0);
        for (int c = 0; c < n; c++) {
            fovea_frame_free(NULL, &base[c]);
            for (int f = 0; f < FRAMES; f++)
                fovea_frame_free(NULL, &frames[f][c]);
        }
        fovea_stitch_map_close(&map);
    }
    fovea_close(&cpu);
    fovea_close(&gpu);
    return test_finish("test_gpu_multiband");
}
