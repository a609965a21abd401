/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Multi-band blending restricted to where each camera matters (pyramid.h's
 * plan) equals the whole-panorama computation byte for byte: planes with
 * random partial regions, regions across the left and right edges, cameras
 * that see nothing, chroma planes; and whole stitches of a 360-degree rig
 * with a camera straddling longitude 180 degrees. */
#include <stdlib.h>
#include <string.h>

#include "fovea/stitch.h"
#include "stitch/multiband.h"
#include "stitch/pyramid.h"
#include "testutil.h"

#define NCAM 5

/* A random box of region in a lw x lh plane: [x0, x0 + bw) columns taken
 * modulo lw (so it may cross the right edge onto the left one). */
static void own_box(test_rng *r, uint8_t *own, int lw, int lh)
{
    const int bw = 1 + (int)test_rng_below(r, (uint32_t)(lw / 2 + 1));
    const int bh = 1 + (int)test_rng_below(r, (uint32_t)lh);
    const int x0 = (int)test_rng_below(r, (uint32_t)lw);
    const int y0 = (int)test_rng_below(r, (uint32_t)(lh - bh + 1));
    for (int y = y0; y < y0 + bh; y++)
        for (int x = x0; x < x0 + bw; x++)
            own[(size_t)y * (size_t)lw + (size_t)(x % lw)] = 1;
}

/* One plane case: n cameras whose own regions are random boxes (0, 1 or 2
 * each), images equal to F outside them, labels a random owner (or none),
 * covered where any camera owns the pixel. half: the plane is chroma of a
 * lw x lh luma plane. */
static int plane_case(test_rng *r, int lw, int lh, int half, int levels, int *two_pieces)
{
    const int w = half ? (lw + 1) / 2 : lw, h = half ? (lh + 1) / 2 : lh,
              n = 1 + (int)(test_rng_below(r, NCAM));
    const size_t lpx = (size_t)lw * (size_t)lh, px = (size_t)w * (size_t)h;
    uint8_t *own[NCAM], *img[NCAM], *f = malloc(px), *cov = calloc(px, 1), *label = malloc(px),
                                    *a = malloc(px), *b = malloc(px);
    REQUIRE(f && cov && label && a && b);
    for (size_t p = 0; p < px; p++)
        f[p] = (uint8_t)test_rng_below(r, 256);
    for (int c = 0; c < n; c++) {
        own[c] = calloc(lpx, 1);
        img[c] = malloc(px);
        REQUIRE(own[c] && img[c]);
        const int boxes = (int)test_rng_below(r, 3);
        for (int i = 0; i < boxes; i++)
            own_box(r, own[c], lw, lh);
    }
    /* labels: a random owner of the pixel (chroma: of its 2x2 block) */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const size_t p = (size_t)y * (size_t)w + (size_t)x;
            int owners[NCAM], k = 0;
            for (int c = 0; c < n; c++) {
                int any = 0;
                for (int dy = 0; dy <= half; dy++)
                    for (int dx = 0; dx <= half; dx++) {
                        const int ly = half ? 2 * y + dy : y, lx = half ? 2 * x + dx : x;
                        if (ly < lh && lx < lw)
                            any |= own[c][(size_t)ly * (size_t)lw + (size_t)lx];
                    }
                img[c][p] = any ? (uint8_t)test_rng_below(r, 256) : f[p];
                if (any)
                    owners[k++] = c;
            }
            label[p] = k ? (uint8_t)owners[test_rng_below(r, (uint32_t)k)] : 255;
            /* covered where owned, but a few owned pixels not stored */
            cov[p] = k > 0 && test_rng_below(r, 16) != 0;
            if (k && test_rng_below(r, 8) == 0)
                label[p] = 255; /* owned, nobody's mask */
        }
    fv_pyr_work wk;
    REQUIRE(fv_pyr_work_alloc(&wk, w, h, levels) == FOVEA_OK);
    int16_t *m[NCAM];
    const uint8_t *src[NCAM];
    for (int c = 0; c < n; c++) {
        m[c] = malloc(wk.g.total * sizeof(int16_t));
        REQUIRE(m[c]);
        for (size_t p = 0; p < px; p++)
            m[c][p] = label[p] == c ? PYR_ONE : 0;
        fv_pyr_gauss(NULL, &wk, m[c]);
        src[c] = img[c];
    }
    memcpy(a, f, px);
    memcpy(b, f, px);
    fv_pyr_blend_plane(NULL, &wk, n, src, w, 1, (const int16_t *const *)m, cov, w, a, w, 1);
    fv_pyr_plan plan;
    fv_pyr_plan_make(&plan, &wk.g, n, (const uint8_t *const *)own, lw, lw, lh, half, cov, w);
    for (int i = 0; i + 1 < plan.npieces; i++)
        *two_pieces += plan.cam[i] == plan.cam[i + 1];
    fv_pyr_blend_plane_plan(NULL, &wk, &plan, n, src, w, 1, (const int16_t *const *)m, cov, w, b, w,
                            1);
    const int same = memcmp(a, b, px) == 0;
    if (!same)
        fprintf(stderr, "restricted differs: %dx%d%s, %d levels, %d cameras\n", w, h,
                half ? " (chroma)" : "", levels, n);
    for (int c = 0; c < n; c++) {
        free(own[c]);
        free(img[c]);
        free(m[c]);
    }
    fv_pyr_work_free(&wk);
    free(f);
    free(cov);
    free(label);
    free(a);
    free(b);
    return same;
}

static void test_planes(void)
{
    static const int sizes[][2] = {{1, 1},    {3, 2},    {17, 9},  {64, 40},
                                   {101, 37}, {160, 23}, {257, 65}};
    test_rng r;
    test_rng_seed(&r, 5151);
    int two = 0, cases = 0;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (int levels = 0; levels <= 7; levels++)
            for (int rep = 0; rep < 6; rep++) {
                cases++;
                CHECK(plane_case(&r, sizes[s][0], sizes[s][1], rep & 1, levels, &two));
            }
    CHECK(two > 10); /* wrapped and split regions made two pieces */
    fprintf(stderr, "%d plane cases, %d with a camera in two pieces\n", cases, two);
}

/* A ring of cameras over a 360 x 180 degree panorama, pitched so the
 * coverage is partial; camera 2 looks at longitude 180 (both edges). */
static fovea_stitch_map *ring_map(int pw, int ph)
{
    fovea_rig_panorama p;
    fovea_rig_panorama_init(&p);
    p.projection = FOVEA_PROJ_EQUIRECTANGULAR;
    p.width = pw;
    p.height = ph;
    p.hfov = 360.0;
    p.vfov = 180.0;
    p.feather = 8.0;
    static const double yaw[4] = {0.0, 95.0, 180.0, -80.0}, pitch[4] = {0.0, 10.0, -5.0, 20.0};
    fovea_rig_camera cams[4];
    for (int c = 0; c < 4; c++) {
        memset(&cams[c], 0, sizeof(cams[c]));
        snprintf(cams[c].name, sizeof(cams[c].name), "cam%d", c);
        cams[c].model = FOVEA_CAM_PINHOLE;
        cams[c].width = 161;
        cams[c].height = 121;
        cams[c].fx = cams[c].fy = 70.0;
        cams[c].cx = 80.0;
        cams[c].cy = 60.0;
        cams[c].yaw = yaw[c];
        cams[c].pitch = pitch[c];
    }
    fovea_rig *rig = NULL;
    REQUIRE(fovea_rig_open_cameras(&rig, NULL, &p, cams, 4) == FOVEA_OK);
    fovea_stitch_map *map = NULL;
    REQUIRE(fovea_stitch_map_open_rig(&map, NULL, rig, NULL, NULL) == FOVEA_OK);
    fovea_rig_close(&rig);
    return map;
}

static void test_ring(fovea_context *ctx)
{
    const int pw = 360, ph = 181;
    fovea_stitch_map *map = ring_map(pw, ph);
    test_rng r;
    test_rng_seed(&r, 180);
    static const fovea_pixfmt fmts[2] = {FOVEA_PIX_RGBA, FOVEA_PIX_I420};
    for (int f = 0; f < 4; f++)
        for (int seam = 0; seam < 2; seam++) {
            const int levels = f < 2 ? 3 : 5; /* 5: camera 2 in one piece */
            fovea_frame cam[4], out[2];
            const fovea_frame *in[4];
            for (int c = 0; c < 4; c++) {
                REQUIRE(fovea_frame_alloc(NULL, &cam[c], 161, 121, fmts[f & 1], FOVEA_MEM_HOST) ==
                        FOVEA_OK);
                test_fill_random(&cam[c], &r);
                in[c] = &cam[c];
            }
            for (int whole = 0; whole < 2; whole++) {
                fovea_stitcher_settings ss;
                fovea_stitcher_default_settings(&ss);
                ss.color = FOVEA_COLOR_OFF;
                ss.blend = FOVEA_BLEND_MULTIBAND;
                ss.seam = seam ? FOVEA_SEAM_DP : FOVEA_SEAM_NONE;
                ss.seam_interval = 1;
                ss.blend_levels = levels;
                fovea_stitcher *st = NULL;
                REQUIRE(fovea_stitcher_open(&st, ctx, map, &ss) == FOVEA_OK);
                fv_multiband_set_whole(st->mb, whole);
                /* camera 2 straddles longitude 180: two pieces */
                const fv_pyr_plan *pl = fv_multiband_plan(st->mb, 0);
                int twice = 0;
                for (int i = 0; i < pl->npieces; i++)
                    twice += pl->cam[i] == 2;
                CHECK_EQ_INT(twice, (levels == 3 ? 2 : 1));
                CHECK_EQ_INT(pl->npieces, (levels == 3 ? 5 : 4));
                REQUIRE(fovea_frame_alloc(NULL, &out[whole], pw, ph, fmts[f & 1], FOVEA_MEM_HOST) ==
                        FOVEA_OK);
                CHECK_EQ_INT(fovea_stitcher_process(st, in, 4, &out[whole]), FOVEA_OK);
                fovea_stitcher_close(&st);
            }
            const int yuv = f & 1;
            for (int k = 0; k < (yuv ? 3 : 1); k++) {
                const int w = k ? (pw + 1) / 2 : pw, h = k ? (ph + 1) / 2 : ph;
                const int bytes = yuv ? w : 4 * w;
                int same = 1;
                for (int y = 0; y < h; y++)
                    same &= memcmp(out[0].data[k] + (ptrdiff_t)y * out[0].stride[k],
                                   out[1].data[k] + (ptrdiff_t)y * out[1].stride[k],
                                   (size_t)bytes) == 0;
                if (!same)
                    fprintf(stderr, "ring: plane %d differs (%s, seam %d, %d levels)\n", k,
                            yuv ? "I420" : "RGBA", seam, levels);
                CHECK(same);
            }
            for (int c = 0; c < 4; c++)
                fovea_frame_free(NULL, &cam[c]);
            fovea_frame_free(NULL, &out[0]);
            fovea_frame_free(NULL, &out[1]);
        }
    fovea_stitch_map_close(&map);
}

int main(void)
{
    fovea_context *ctx = NULL;
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    s.threads = 2;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
    test_planes();
    test_ring(ctx);
    fovea_close(&ctx);
    return test_finish("test_stitch_mbregion");
}
