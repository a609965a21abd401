/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Multi-band blending and seam placement (C reference): the pyramid's
 * integer arithmetic, identities (one image, identical images), odd sizes,
 * RGBA and I420 through the stitcher, and the DP seam's hysteresis. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/stitch.h"
#include "stitch/multiband.h"
#include "stitch/pyramid.h"
#include "stitch/seam.h"
#include "testutil.h"

/* A plane of w x h random bytes with some structure (a ramp plus noise). */
static uint8_t *random_plane(test_rng *r, int w, int h)
{
    uint8_t *p = malloc((size_t)w * (size_t)h);
    REQUIRE(p);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int v = (x * 7 + y * 3) % 200 + (int)test_rng_below(r, 56);
            p[(size_t)y * (size_t)w + (size_t)x] = (uint8_t)v;
        }
    return p;
}

static int16_t *mask_pyramid(fv_pyr_work *wk, const uint8_t *owner, int cam)
{
    int16_t *m = malloc(wk->g.total * sizeof(int16_t));
    REQUIRE(m);
    for (size_t p = 0; p < (size_t)wk->g.w[0] * (size_t)wk->g.h[0]; p++)
        m[p] = owner[p] == cam ? PYR_ONE : 0;
    fv_pyr_gauss(NULL, wk, m);
    return m;
}

/* REDUCE and EXPAND by hand on an impulse. */
static void test_arithmetic(void)
{
    fv_pyr_work wk;
    REQUIRE(fv_pyr_work_alloc(&wk, 5, 5, 1) == FOVEA_OK);
    CHECK_EQ_INT(wk.g.w[1], 3);
    CHECK_EQ_INT(wk.g.h[1], 3);
    memset(wk.gauss, 0, wk.g.total * sizeof(int16_t));
    wk.gauss[2 * 5 + 2] = PYR_MAX; /* 255 at the center */
    fv_pyr_gauss(NULL, &wk, wk.gauss);
    const int16_t *g1 = wk.gauss + wk.g.off[1];
    /* center: 6 * 6 * 4080 / 256 = 573.75 -> 574; (0,1): row tap 1 (2y+t = 2
     * for y = 0 at t = 2), column tap 6: 6 * 4080 / 256 = 95.6 -> 96 */
    CHECK_EQ_INT(g1[1 * 3 + 1], 574);
    CHECK_EQ_INT(g1[0 * 3 + 1], 96);
    CHECK_EQ_INT(g1[0], 16); /* 4080 / 256 = 15.9 */
    CHECK_EQ_INT(pyr_div_round(-7, 2), -4);
    CHECK_EQ_INT(pyr_div_round(7, 2), 4);
    CHECK_EQ_INT(pyr_div_round(-5, 3), -2);
    CHECK_EQ_INT(pyr_to_u8(PYR_MAX), 255);
    CHECK_EQ_INT(pyr_to_u8(-3), 0);
    CHECK_EQ_INT(pyr_to_u8(24), 2); /* 1.5 rounds up */
    fv_pyr_work_free(&wk);
}

/* One image through the pyramid, and n identical images under any masks,
 * give the image back exactly; at every size and level count. */
static void test_identities(void)
{
    static const int sizes[][2] = {{1, 1}, {1, 7}, {9, 1}, {2, 3}, {37, 23}, {64, 64}, {101, 33}};
    test_rng r;
    test_rng_seed(&r, 51);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        for (int levels = 0; levels <= PYR_MAX_LEVELS; levels += (levels < 3 ? 1 : 4)) {
            fv_pyr_work wk;
            REQUIRE(fv_pyr_work_alloc(&wk, w, h, levels) == FOVEA_OK);
            uint8_t *img = random_plane(&r, w, h);
            uint8_t *owner = malloc((size_t)w * (size_t)h);
            uint8_t *cov = malloc((size_t)w * (size_t)h);
            uint8_t *out = malloc((size_t)w * (size_t)h);
            REQUIRE(owner && cov && out);
            for (size_t p = 0; p < (size_t)w * (size_t)h; p++) {
                owner[p] = (uint8_t)test_rng_below(&r, 4); /* 3: nobody's mask */
                cov[p] = 1;
            }
            const uint8_t *src[3] = {img, img, img};
            int16_t *m[3];
            for (int c = 0; c < 3; c++)
                m[c] = mask_pyramid(&wk, owner, c);
            for (int n = 1; n <= 3; n++) {
                memset(out, 0, (size_t)w * (size_t)h);
                fv_pyr_blend_plane(NULL, &wk, n, src, w, 1, (const int16_t *const *)m, cov, w, out,
                                   w, 1);
                if (memcmp(out, img, (size_t)w * (size_t)h) != 0) {
                    fprintf(stderr, "identity fails: %dx%d, %d levels, %d images\n", w, h, levels,
                            n);
                    test_failures++;
                }
            }
            for (int c = 0; c < 3; c++)
                free(m[c]);
            free(img);
            free(owner);
            free(cov);
            free(out);
            fv_pyr_work_free(&wk);
        }
    }
}

/* Two flat images meeting at a vertical seam: far from it each keeps its
 * value exactly, across it the blend is monotone and spreads with the levels
 * (the feather multiband does implicitly), and uncovered pixels are left. */
static void test_two_flat(void)
{
    const int w = 97, h = 9;
    for (int levels = 1; levels <= 5; levels += 4) {
        fv_pyr_work wk;
        REQUIRE(fv_pyr_work_alloc(&wk, w, h, levels) == FOVEA_OK);
        uint8_t *a = malloc((size_t)w * h), *b = malloc((size_t)w * h),
                *owner = malloc((size_t)w * h), *cov = malloc((size_t)w * h),
                *out = malloc((size_t)w * h);
        REQUIRE(a && b && owner && cov && out);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const size_t p = (size_t)y * w + (size_t)x;
                a[p] = 60;
                b[p] = 200;
                owner[p] = x < w / 2 ? 0 : 1;
                cov[p] = x != 0;
                out[p] = 7;
            }
        int16_t *m[2] = {mask_pyramid(&wk, owner, 0), mask_pyramid(&wk, owner, 1)};
        const uint8_t *src[2] = {a, b};
        fv_pyr_blend_plane(NULL, &wk, 2, src, w, 1, (const int16_t *const *)m, cov, w, out, w, 1);
        const uint8_t *row = out + (size_t)(h / 2) * w;
        CHECK_EQ_INT(row[0], 7); /* not covered: untouched */
        int mono = 1, width = 0;
        for (int x = 2; x < w; x++) {
            mono &= row[x] >= row[x - 1];
            width += row[x] != 60 && row[x] != 200;
        }
        CHECK(mono);
        CHECK(row[w / 2 - 1] > 60 && row[w / 2] < 200); /* no hard step at the seam */
        if (levels == 1) {
            CHECK_EQ_INT(row[1], 60);
            CHECK_EQ_INT(row[w - 1], 200);
            CHECK(width <= 8);
        } else {
            CHECK(width >= 20); /* low frequencies cross over a wide band */
        }
        free(m[0]);
        free(m[1]);
        free(a);
        free(b);
        free(owner);
        free(cov);
        free(out);
        fv_pyr_work_free(&wk);
    }
}

/* A rig of two cameras looking the same way: both warp to the same image,
 * so multiband gives each camera's warped image exactly, as a one-camera
 * stitch does; RGBA and I420, odd panorama sizes. */
static fovea_stitch_map *make_map(int ncam, int pw, int ph, double yaw1)
{
    fovea_rig_panorama p;
    fovea_rig_panorama_init(&p);
    p.projection = FOVEA_PROJ_EQUIRECTANGULAR;
    p.width = pw;
    p.height = ph;
    p.hfov = 100.0;
    p.vfov = 100.0 * ph / pw;
    p.feather = 12.0;
    fovea_rig_camera cams[2];
    for (int c = 0; c < 2; c++) {
        memset(&cams[c], 0, sizeof(cams[c]));
        snprintf(cams[c].name, sizeof(cams[c].name), "cam%d", c);
        cams[c].model = FOVEA_CAM_PINHOLE;
        cams[c].width = 161;
        cams[c].height = 121;
        cams[c].fx = cams[c].fy = 110.0;
        cams[c].cx = 80.0;
        cams[c].cy = 60.0;
        cams[c].yaw = c ? yaw1 : -yaw1;
    }
    fovea_rig *rig = NULL;
    REQUIRE(fovea_rig_open_cameras(&rig, NULL, &p, cams, ncam) == FOVEA_OK);
    fovea_stitch_map *map = NULL;
    REQUIRE(fovea_stitch_map_open_rig(&map, NULL, rig, NULL, NULL) == FOVEA_OK);
    fovea_rig_close(&rig);
    return map;
}

static void stitch_once(fovea_context *ctx, const fovea_stitch_map *map,
                        const fovea_stitcher_settings *ss, const fovea_frame *const *in, int n,
                        fovea_frame *out)
{
    fovea_stitcher *st = NULL;
    REQUIRE(fovea_stitcher_open(&st, ctx, map, ss) == FOVEA_OK);
    CHECK_EQ_INT(fovea_stitcher_process(st, in, n, out), FOVEA_OK);
    fovea_stitcher_close(&st);
}

static int frames_equal(const fovea_frame *a, const fovea_frame *b)
{
    const int planes = a->fmt == FOVEA_PIX_I420 ? 3 : 1;
    for (int k = 0; k < planes; k++) {
        const int pw = k ? (a->width + 1) / 2 : a->width;
        const int ph = k ? (a->height + 1) / 2 : a->height;
        const int bytes = a->fmt == FOVEA_PIX_RGBA ? 4 * pw : pw;
        for (int y = 0; y < ph; y++)
            if (memcmp(a->data[k] + (ptrdiff_t)y * a->stride[k],
                       b->data[k] + (ptrdiff_t)y * b->stride[k], (size_t)bytes) != 0)
                return 0;
    }
    return 1;
}

static void test_identical_cameras(fovea_context *ctx)
{
    const int pw = 301, ph = 151;
    fovea_stitch_map *two = make_map(2, pw, ph, 0.0), *one = make_map(1, pw, ph, 0.0);
    test_rng r;
    test_rng_seed(&r, 7);
    static const fovea_pixfmt fmts[2] = {FOVEA_PIX_RGBA, FOVEA_PIX_I420};
    for (int f = 0; f < 2; f++) {
        fovea_frame cam, ref, mb;
        REQUIRE(fovea_frame_alloc(NULL, &cam, 161, 121, fmts[f], FOVEA_MEM_HOST) == FOVEA_OK);
        test_fill_random(&cam, &r);
        const fovea_pixfmt of = f ? FOVEA_PIX_I420 : FOVEA_PIX_RGBA;
        REQUIRE(fovea_frame_alloc(NULL, &ref, pw, ph, of, FOVEA_MEM_HOST) == FOVEA_OK);
        REQUIRE(fovea_frame_alloc(NULL, &mb, pw, ph, of, FOVEA_MEM_HOST) == FOVEA_OK);
        const fovea_frame *in[2] = {&cam, &cam};
        fovea_stitcher_settings ss;
        fovea_stitcher_default_settings(&ss);
        ss.color = FOVEA_COLOR_OFF;
        stitch_once(ctx, one, &ss, in, 1, &ref);
        for (int seam = 0; seam < 2; seam++) {
            ss.blend = FOVEA_BLEND_MULTIBAND;
            ss.seam = seam ? FOVEA_SEAM_DP : FOVEA_SEAM_NONE;
            stitch_once(ctx, two, &ss, in, 2, &mb);
            CHECK(frames_equal(&ref, &mb));
        }
        fovea_frame_free(NULL, &cam);
        fovea_frame_free(NULL, &ref);
        fovea_frame_free(NULL, &mb);
    }
    fovea_stitch_map_close(&two);
    fovea_stitch_map_close(&one);
}

/* Settings are checked; a seam without multiband is refused. */
static void test_settings(fovea_context *ctx)
{
    fovea_stitch_map *map = make_map(2, 121, 61, 20.0);
    fovea_stitcher_settings ss;
    fovea_stitcher *st = NULL;
    fovea_stitcher_default_settings(&ss);
    CHECK_EQ_INT(ss.blend, FOVEA_BLEND_FEATHER);
    CHECK_EQ_INT(ss.blend_levels, 5);
    CHECK_EQ_INT(ss.seam, FOVEA_SEAM_NONE);
    CHECK_EQ_INT(ss.seam_interval, 30);
    ss.seam = FOVEA_SEAM_DP;
    CHECK_EQ_INT(fovea_stitcher_open(&st, ctx, map, &ss), FOVEA_ERR_INVALID_ARG);
    ss.blend = FOVEA_BLEND_MULTIBAND;
    ss.blend_levels = 11;
    CHECK_EQ_INT(fovea_stitcher_open(&st, ctx, map, &ss), FOVEA_ERR_INVALID_ARG);
    ss.blend_levels = 10;
    ss.seam_interval = 0;
    CHECK_EQ_INT(fovea_stitcher_open(&st, ctx, map, &ss), FOVEA_ERR_INVALID_ARG);
    CHECK(st == NULL);
    ss.seam_interval = 1;
    CHECK_EQ_INT(fovea_stitcher_open(&st, ctx, map, &ss), FOVEA_OK);
    fovea_stitcher_close(&st);
    fovea_stitch_map_close(&map);
}

/* Two cameras 40 degrees apart over a textured scene; camera 1 alone has a
 * bright object across the map's seam. The DP seam goes around it (every
 * object pixel is camera 1's or camera 0's, not both), and stays put on a
 * frame that differs a little (hysteresis); without the object the seam
 * does not move at all. */
static void test_seam(fovea_context *ctx)
{
    const int pw = 241, ph = 121;
    fovea_stitch_map *map = make_map(2, pw, ph, 20.0);
    fovea_frame cam[2], out;
    for (int c = 0; c < 2; c++)
        REQUIRE(fovea_frame_alloc(NULL, &cam[c], 161, 121, FOVEA_PIX_RGBA, FOVEA_MEM_HOST) ==
                FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &out, pw, ph, FOVEA_PIX_RGBA, FOVEA_MEM_HOST) == FOVEA_OK);
    /* the scene: a smooth texture of direction, so both cameras agree */
    for (int c = 0; c < 2; c++)
        for (int y = 0; y < 121; y++)
            for (int x = 0; x < 161; x++) {
                double d[3];
                uint8_t *p = cam[c].data[0] + (ptrdiff_t)y * cam[c].stride[0] + 4 * x;
                (void)d;
                /* azimuth of pixel x in camera c (pinhole, yaw -20 / +20) */
                double az = (c ? 20.0 : -20.0) + 57.2958 * atan((x - 80.0) / 110.0);
                int v = (int)(128 + 60 * sin(az * 0.3) + 40 * sin(y * 0.2));
                p[0] = p[1] = p[2] = (uint8_t)v;
                p[3] = 255;
            }
    /* the object: camera 1 only, around the seam's middle rows (the seam sits
     * at azimuth 0, camera 1's x = 80 - 110 tan(20 deg) = 40) */
    for (int y = 50; y < 70; y++)
        for (int x = 34; x < 46; x++) {
            uint8_t *p = cam[1].data[0] + (ptrdiff_t)y * cam[1].stride[0] + 4 * x;
            p[0] = p[1] = p[2] = 250;
        }
    fovea_stitcher_settings ss;
    fovea_stitcher_default_settings(&ss);
    ss.color = FOVEA_COLOR_OFF;
    ss.blend = FOVEA_BLEND_MULTIBAND;
    ss.seam = FOVEA_SEAM_DP;
    ss.seam_interval = 1;
    fovea_stitcher *st = NULL;
    REQUIRE(fovea_stitcher_open(&st, ctx, map, &ss) == FOVEA_OK);
    const fovea_frame *in[2] = {&cam[0], &cam[1]};
    CHECK_EQ_INT(fovea_stitcher_process(st, in, 2, &out), FOVEA_OK);
    const uint8_t *lab = fv_multiband_labels(st->mb);
    REQUIRE(lab);
    uint8_t *first = malloc((size_t)pw * ph);
    REQUIRE(first);
    memcpy(first, lab, (size_t)pw * ph);
    /* the object's pixels in the panorama (where camera 1's warp is bright)
     * all belong to camera 0: the seam went around it */
    int object = 0, cut = 0;
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    for (int j = 0; j < ph; j++)
        for (int i = 0; i < pw; i++) {
            fovea_stitch_map_weights(map, i, j, w, u, v);
            if (!(w[1] > 0.0f) || u[1] < 34.0f || u[1] > 45.0f || v[1] < 50.0f || v[1] > 69.0f)
                continue;
            object++;
            cut += lab[(size_t)j * pw + (size_t)i] == 1;
        }
    CHECK(object > 50);
    CHECK_EQ_INT(cut, 0);
    /* the map's seam cuts through it */
    fovea_stitcher_settings plain = ss;
    plain.seam = FOVEA_SEAM_NONE;
    fovea_stitcher *st0 = NULL;
    REQUIRE(fovea_stitcher_open(&st0, ctx, map, &plain) == FOVEA_OK);
    CHECK_EQ_INT(fovea_stitcher_process(st0, in, 2, &out), FOVEA_OK);
    const uint8_t *lab0 = fv_multiband_labels(st0->mb);
    int cut0 = 0;
    for (size_t p = 0; p < (size_t)pw * ph; p++)
        cut0 += lab0[p] != first[p];
    CHECK(cut0 > 50);
    fovea_stitcher_close(&st0);
    /* a little noise on camera 0: the seam stays where it is */
    test_rng r;
    test_rng_seed(&r, 3);
    for (int y = 0; y < 121; y++)
        for (int x = 0; x < 161; x++) {
            uint8_t *p = cam[0].data[0] + (ptrdiff_t)y * cam[0].stride[0] + 4 * x;
            p[0] = p[1] = p[2] = (uint8_t)(p[0] + (int)test_rng_below(&r, 3) - 1);
        }
    CHECK_EQ_INT(fovea_stitcher_process(st, in, 2, &out), FOVEA_OK);
    CHECK(memcmp(first, fv_multiband_labels(st->mb), (size_t)pw * ph) == 0);
    free(first);
    fovea_stitcher_close(&st);
    for (int c = 0; c < 2; c++)
        fovea_frame_free(NULL, &cam[c]);
    fovea_frame_free(NULL, &out);
    fovea_stitch_map_close(&map);
}

/* The seam's reduced difference map (what a device backend computes and
 * hands to fv_seam_update_diffs): every span cell listed once, in the layout
 * of the differences, each the sum of |left - right| over its pixels clipped
 * to the panorama; the seam placed from those sums equals fv_seam_update's. */
static void test_seam_cells(void)
{
    const int w = 37, h = 23; /* neither a multiple of SEAM_CELL */
    uint8_t *label0 = malloc((size_t)w * h), *seen[2], *luma[2];
    REQUIRE(label0);
    test_rng r;
    test_rng_seed(&r, 9);
    for (int c = 0; c < 2; c++) {
        seen[c] = malloc((size_t)w * h);
        luma[c] = random_plane(&r, w, h);
        REQUIRE(seen[c] && luma[c]);
        memset(seen[c], 1, (size_t)w * h);
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            label0[(size_t)y * w + (size_t)x] = x < 18 ? 0 : 1;
    fv_seam a, b;
    REQUIRE(fv_seam_init(&a, 2, w, h, label0, (const uint8_t *const *)seen) == FOVEA_OK);
    REQUIRE(fv_seam_init(&b, 2, w, h, label0, (const uint8_t *const *)seen) == FOVEA_OK);
    CHECK_EQ_INT(a.npairs, 1);
    CHECK(a.ncells > 0);
    uint32_t *cells = malloc(a.ncells * 2 * sizeof(uint32_t));
    int32_t *diffs = malloc(a.ncells * sizeof(int32_t));
    REQUIRE(cells && diffs);
    memset(cells, 0xff, a.ncells * 2 * sizeof(uint32_t));
    fv_seam_cells(&a, cells);
    fv_seam_diffs(&a, (const uint8_t *const *)luma, diffs);
    size_t listed = 0;
    for (int cy = 0; cy < a.rh; cy++) {
        const fv_seam_span *sp = &a.pair[0].row[cy];
        for (int x = sp->lo; sp->lo >= 0 && x <= sp->hi; x++, listed++) {
            const size_t i = (size_t)sp->off + (size_t)(x - sp->lo);
            REQUIRE(i < a.ncells);
            CHECK(cells[2 * i] == (uint32_t)(a.pair[0].left | a.pair[0].right << 8));
            CHECK(cells[2 * i + 1] == (uint32_t)(x | cy << 16));
            int32_t d = 0;
            for (int py = cy * SEAM_CELL; py < (cy + 1) * SEAM_CELL && py < h; py++)
                for (int px = x * SEAM_CELL; px < (x + 1) * SEAM_CELL && px < w; px++)
                    d += abs(luma[a.pair[0].left][(size_t)py * w + (size_t)px] -
                             luma[a.pair[0].right][(size_t)py * w + (size_t)px]);
            CHECK_EQ_INT(diffs[i], d);
        }
    }
    CHECK(listed == a.ncells);
    /* the last cell column and row are partial (37 = 9 x 4 + 1, 23 = 5 x 4 + 3) */
    CHECK_EQ_INT(a.rw, 10);
    CHECK_EQ_INT(a.rh, 6);
    CHECK_EQ_INT(fv_seam_update(&a, (const uint8_t *const *)luma), 1);
    CHECK_EQ_INT(fv_seam_update_diffs(&b, diffs), 1);
    for (int cy = 0; cy < a.rh; cy++)
        CHECK_EQ_INT(a.pair[0].row[cy].x, b.pair[0].row[cy].x);
    fv_seam_free(&a);
    fv_seam_free(&b);
    free(cells);
    free(diffs);
    free(label0);
    for (int c = 0; c < 2; c++) {
        free(seen[c]);
        free(luma[c]);
    }
}

int main(void)
{
    fovea_context *ctx = NULL;
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    s.threads = 2;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
    test_arithmetic();
    test_identities();
    test_two_flat();
    test_identical_cameras(ctx);
    test_settings(ctx);
    test_seam(ctx);
    test_seam_cells();
    fovea_close(&ctx);
    return test_finish("test_stitch_multiband");
}
