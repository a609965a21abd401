/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Seams on content where the cameras disagree: the demo's rig and scene,
 * camera 1 rendered 0.4 degrees off its calibration (what parallax does to
 * objects away from the calibrated distance) and camera 0 with an object
 * that camera 1 does not see (a passer-by) across the map's seam. Prints the
 * seam mismatch (mean |A - B| of the two cameras' luma along the seam used)
 * and the ghosting (mean over the overlap of the smaller difference between
 * the panorama's gradient magnitude and either camera's: structure that
 * matches neither camera) of feathering, multiband on the map's seam and
 * multiband with the DP seam, and checks that multiband with the DP seam
 * does better on both (docs/stitch.md quotes these figures).
 * Usage: test_stitch_seams [scale_div] (default 4; 1 = the demo's full size). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scene.h"
#include "fovea/stitch.h"
#include "stitch/multiband.h"
#include "testutil.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The demo's rig (tools/demo/demo.c), camera 1 turned by dyaw, dpitch. */
static fovea_rig *demo_rig(int div, double dyaw, double dpitch)
{
    fovea_rig_panorama p;
    fovea_rig_panorama_init(&p);
    p.projection = FOVEA_PROJ_EQUIRECTANGULAR;
    p.width = 5700 / div;
    p.height = 1900 / div;
    p.hfov = 150.0;
    p.vfov = 50.0;
    p.feather = 64.0 / div;
    fovea_rig_camera cam[2];
    for (int c = 0; c < 2; c++) {
        memset(&cam[c], 0, sizeof(cam[c]));
        snprintf(cam[c].name, sizeof(cam[c].name), "%s", c ? "right" : "left");
        cam[c].width = 3840 / div;
        cam[c].height = 2160 / div;
        cam[c].cx = (cam[c].width - 1) / 2.0;
        cam[c].cy = (cam[c].height - 1) / 2.0;
        cam[c].yaw = c ? 35.0 + dyaw : -35.0;
        cam[c].pitch = c ? dpitch : 0.0;
    }
    cam[0].model = FOVEA_CAM_PINHOLE;
    cam[0].fx = cam[0].fy = 2132.0 / div;
    cam[0].dist[0] = -0.05;
    cam[0].dist[1] = 0.01;
    cam[1].model = FOVEA_CAM_FISHEYE;
    cam[1].fx = cam[1].fy = 1200.0 / div;
    cam[1].dist[0] = 0.02;
    cam[1].dist[1] = -0.01;
    fovea_rig *rig = NULL;
    REQUIRE(fovea_rig_open_cameras(&rig, NULL, &p, cam, 2) == FOVEA_OK);
    return rig;
}

static double luma_at(const fovea_frame *f, int x, int y)
{
    const uint8_t *p = f->data[0] + (ptrdiff_t)y * f->stride[0] + 4 * x;
    return 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
}

/* Bilinear luma of a camera frame at (u, v). */
static double sample_luma(const fovea_frame *f, float u, float v)
{
    int x0 = (int)floorf(u), y0 = (int)floorf(v);
    double fx = u - x0, fy = v - y0;
    int x1 = x0 + 1 < f->width ? x0 + 1 : x0, y1 = y0 + 1 < f->height ? y0 + 1 : y0;
    return (1 - fy) * ((1 - fx) * luma_at(f, x0, y0) + fx * luma_at(f, x1, y0)) +
           fy * ((1 - fx) * luma_at(f, x0, y1) + fx * luma_at(f, x1, y1));
}

typedef struct overlap_data {
    int w, h;
    float *a, *b;    /* each camera's luma, NAN where not seen */
    uint8_t *label0; /* the map's seam: camera of largest weight, 255 none */
} overlap_data;

static void overlap_init(overlap_data *o, const fovea_stitch_map *map,
                         const fovea_frame *const *cams)
{
    fovea_stitch_map_geometry(map, &o->w, &o->h, NULL);
    const size_t n = (size_t)o->w * (size_t)o->h;
    o->a = malloc(n * sizeof(float));
    o->b = malloc(n * sizeof(float));
    o->label0 = malloc(n);
    REQUIRE(o->a && o->b && o->label0);
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    for (int j = 0; j < o->h; j++)
        for (int i = 0; i < o->w; i++) {
            const size_t p = (size_t)j * (size_t)o->w + (size_t)i;
            int cnt = fovea_stitch_map_weights(map, i, j, w, u, v);
            o->a[p] = w[0] > 0.0f ? (float)sample_luma(cams[0], u[0], v[0]) : NAN;
            o->b[p] = w[1] > 0.0f ? (float)sample_luma(cams[1], u[1], v[1]) : NAN;
            o->label0[p] = cnt == 0 ? 255 : (w[1] > w[0] ? 1 : 0);
        }
}

/* Mean |A - B| over the pixels whose right neighbor has the other label. */
static double seam_mismatch(const overlap_data *o, const uint8_t *label)
{
    double sum = 0.0;
    long cnt = 0;
    for (int j = 0; j < o->h; j++)
        for (int i = 0; i + 1 < o->w; i++) {
            const size_t p = (size_t)j * (size_t)o->w + (size_t)i;
            if (label[p] == 255 || label[p + 1] == 255 || label[p] == label[p + 1])
                continue;
            for (int k = 0; k < 2; k++)
                if (!isnan(o->a[p + k]) && !isnan(o->b[p + k])) {
                    sum += fabs(o->a[p + k] - o->b[p + k]);
                    cnt++;
                }
        }
    return cnt ? sum / (double)cnt : 0.0;
}

static double grad_at(const float *img, int w, int i, int j)
{
    const size_t p = (size_t)j * (size_t)w + (size_t)i;
    double gx = img[p + 1] - img[p - 1], gy = img[p + (size_t)w] - img[p - (size_t)w];
    return sqrt(gx * gx + gy * gy);
}

/* Mean over the overlap (both cameras see the pixel and its neighbors) of
 * min(|g(pano) - g(A)|, |g(pano) - g(B)|), g the gradient magnitude. */
static double ghosting(const overlap_data *o, const fovea_frame *pano)
{
    float *pl = malloc((size_t)o->w * (size_t)o->h * sizeof(float));
    REQUIRE(pl);
    for (int j = 0; j < o->h; j++)
        for (int i = 0; i < o->w; i++)
            pl[(size_t)j * (size_t)o->w + (size_t)i] = (float)luma_at(pano, i, j);
    double sum = 0.0;
    long cnt = 0;
    for (int j = 1; j + 1 < o->h; j++)
        for (int i = 1; i + 1 < o->w; i++) {
            const size_t p = (size_t)j * (size_t)o->w + (size_t)i;
            const size_t nb[5] = {p, p - 1, p + 1, p - (size_t)o->w, p + (size_t)o->w};
            int ok = 1;
            for (int k = 0; k < 5; k++)
                ok &= !isnan(o->a[nb[k]]) && !isnan(o->b[nb[k]]);
            if (!ok)
                continue;
            const double g = grad_at(pl, o->w, i, j);
            const double da = fabs(g - grad_at(o->a, o->w, i, j));
            const double db = fabs(g - grad_at(o->b, o->w, i, j));
            sum += da < db ? da : db;
            cnt++;
        }
    free(pl);
    return cnt ? sum / (double)cnt : 0.0;
}

int main(int argc, char **argv)
{
    const int div = argc > 1 ? atoi(argv[1]) : 4;
    REQUIRE(div >= 1 && div <= 16);
    fovea_context *ctx = NULL;
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);

    fovea_rig *rig = demo_rig(div, 0.0, 0.0), *moved = demo_rig(div, 0.4, 0.2);
    scene_params sp;
    scene_default_params(&sp, 2026, scene_rig_pitch(rig) * 1.5);
    scene_model scene;
    REQUIRE(scene_init(&scene, &sp) == FOVEA_OK);
    fovea_frame cam[2];
    fovea_rig_camera rc[2];
    for (int c = 0; c < 2; c++) {
        REQUIRE(fovea_rig_get_camera(rig, c, &rc[c]) == FOVEA_OK);
        REQUIRE(fovea_frame_alloc(NULL, &cam[c], rc[c].width, rc[c].height, FOVEA_PIX_RGBA,
                                  FOVEA_MEM_HOST) == FOVEA_OK);
        REQUIRE(scene_render_camera(ctx, &scene, c ? moved : rig, c, NULL, &cam[c]) == FOVEA_OK);
    }
    /* the passer-by: a dark upright figure in camera 0 where the panorama's
     * middle (the map's seam) is, 1/5 of the image high */
    {
        const double d[3] = {0.0, 0.05, 1.0};
        double u, v;
        REQUIRE(fovea_rig_dir_to_camera(rig, 0, d, &u, &v) == 1);
        const int pw = rc[0].width / 40, ph = rc[0].height / 5;
        for (int y = (int)v - ph / 2; y < (int)v + ph / 2; y++)
            for (int x = (int)u - pw; x < (int)u + pw; x++) {
                if (x < 0 || y < 0 || x >= rc[0].width || y >= rc[0].height)
                    continue;
                uint8_t *p = cam[0].data[0] + (ptrdiff_t)y * cam[0].stride[0] + 4 * x;
                p[0] = (uint8_t)(40 + (x * 5 + y * 3) % 30);
                p[1] = 36;
                p[2] = 70;
            }
    }
    fovea_stitch_map *map = NULL;
    REQUIRE(fovea_stitch_map_open_rig(&map, ctx, rig, NULL, NULL) == FOVEA_OK);
    const fovea_frame *in[2] = {&cam[0], &cam[1]};
    overlap_data o;
    overlap_init(&o, map, in);

    static const char *names[3] = {"feather", "multiband, map seam", "multiband + DP seam"};
    double mism[3], ghost[3], secs[3];
    fovea_frame pano;
    REQUIRE(fovea_frame_alloc(NULL, &pano, o.w, o.h, FOVEA_PIX_RGBA, FOVEA_MEM_HOST) == FOVEA_OK);
    for (int k = 0; k < 3; k++) {
        fovea_stitcher_settings ss;
        fovea_stitcher_default_settings(&ss);
        ss.color = FOVEA_COLOR_OFF;
        ss.blend = k ? FOVEA_BLEND_MULTIBAND : FOVEA_BLEND_FEATHER;
        ss.seam = k == 2 ? FOVEA_SEAM_DP : FOVEA_SEAM_NONE;
        fovea_stitcher *st = NULL;
        REQUIRE(fovea_stitcher_open(&st, ctx, map, &ss) == FOVEA_OK);
        /* the first frame places the seam; time the second */
        REQUIRE(fovea_stitcher_process(st, in, 2, &pano) == FOVEA_OK);
        double t0 = now_s();
        REQUIRE(fovea_stitcher_process(st, in, 2, &pano) == FOVEA_OK);
        secs[k] = now_s() - t0;
        const uint8_t *lab = k ? fv_multiband_labels(st->mb) : o.label0;
        mism[k] = seam_mismatch(&o, lab);
        ghost[k] = ghosting(&o, &pano);
        fovea_stitcher_close(&st);
        printf("%-22s seam mismatch %6.2f codes  ghosting %6.3f  %.1f ms (%dx%d, %d threads)\n",
               names[k], mism[k], ghost[k], 1e3 * secs[k], o.w, o.h, fovea_context_threads(ctx));
    }
    CHECK(mism[2] < mism[0]);
    CHECK(ghost[1] < ghost[0]);
    CHECK(ghost[2] < ghost[0]);
    free(o.a);
    free(o.b);
    free(o.label0);
    fovea_frame_free(NULL, &pano);
    for (int c = 0; c < 2; c++)
        fovea_frame_free(NULL, &cam[c]);
    fovea_stitch_map_close(&map);
    fovea_rig_close(&rig);
    fovea_rig_close(&moved);
    fovea_close(&ctx);
    return test_finish("test_stitch_seams");
}
