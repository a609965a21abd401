/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Automatic color balance over time (docs/stitch.md, "Automatic color
 * balance"): the first frame gets the stills correction in full; a lighting
 * ramp is followed with every frame-to-frame change within auto_max_step; a
 * sudden change converges within the documented number of frames; a steady
 * noisy scene leaves the corrections untouched (no flicker). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/stitch.h"
#include "testutil.h"

#define NCAM 2
#define CW 161
#define CH 121

static fovea_stitch_map *make_map(void)
{
    fovea_rig_panorama p;
    fovea_rig_panorama_init(&p);
    p.projection = FOVEA_PROJ_EQUIRECTANGULAR;
    p.width = 240;
    p.height = 120;
    p.hfov = 120.0;
    p.vfov = 60.0;
    p.feather = 12.0;
    fovea_rig_camera cams[NCAM];
    for (int c = 0; c < NCAM; c++) {
        memset(&cams[c], 0, sizeof(cams[c]));
        snprintf(cams[c].name, sizeof(cams[c].name), "cam%d", c);
        cams[c].model = FOVEA_CAM_PINHOLE;
        cams[c].width = CW;
        cams[c].height = CH;
        cams[c].fx = cams[c].fy = 110.0;
        cams[c].cx = 80.0;
        cams[c].cy = 60.0;
        cams[c].yaw = c ? 25.0 : -25.0;
    }
    fovea_rig *rig = NULL;
    REQUIRE(fovea_rig_open_cameras(&rig, NULL, &p, cams, NCAM) == FOVEA_OK);
    fovea_stitch_map *map = NULL;
    REQUIRE(fovea_stitch_map_open_rig(&map, NULL, rig, NULL, NULL) == FOVEA_OK);
    fovea_rig_close(&rig);
    return map;
}

/* The scene depends on the latitude of the ray only, which a camera's yaw
 * keeps: both cameras see the same values in their overlap. Camera c's
 * exposure scales it by gain[c]; noise adds up to +-noise codes. */
static void render(fovea_frame *f, double gain, int noise, test_rng *rng)
{
    for (int y = 0; y < CH; y++) {
        for (int x = 0; x < CW; x++) {
            double dx = (x - 80.0) / 110.0, dy = (y - 60.0) / 110.0;
            double lat = atan2(dy, sqrt(1.0 + dx * dx));
            double v = 50.0 + 70.0 * (1.0 + sin(6.0 * lat + 0.3 * sin(9.0 * lat)));
            uint8_t *px = f->data[0] + (size_t)y * (size_t)f->stride[0] + 4 * (size_t)x;
            for (int k = 0; k < 3; k++) {
                double s = gain * v * (1.0 - 0.08 * k);
                if (noise)
                    s += (double)test_rng_below(rng, (uint32_t)(2 * noise + 1)) - noise;
                px[k] = (uint8_t)(s < 0.0 ? 0.0 : s > 255.0 ? 255.0 : floor(s + 0.5));
            }
            px[3] = 255;
        }
    }
}

typedef struct rigrun {
    fovea_context *ctx;
    fovea_stitch_map *map;
    fovea_frame cam[NCAM], out;
    const fovea_frame *in[NCAM];
    test_rng rng;
} rigrun;

static void scene(rigrun *r, double gain1, int noise)
{
    render(&r->cam[0], 1.0, noise, &r->rng);
    render(&r->cam[1], gain1, noise, &r->rng);
}

/* largest |ln(b/a)| over every gain and gamma */
static double distance(const fovea_color_correction *a, const fovea_color_correction *b)
{
    double d = 0.0;
    for (int c = 0; c < NCAM; c++) {
        for (int k = 0; k < 3; k++)
            d = fmax(d, fabs(log((double)b[c].gain[k] / a[c].gain[k])));
        d = fmax(d, fabs(log((double)b[c].gamma / a[c].gamma)));
    }
    return d;
}

static double mismatch(rigrun *r, const fovea_color_correction *cc)
{
    double m = 0.0;
    CHECK_EQ_INT(fovea_stitch_overlap_mismatch(r->map, r->in, NCAM, cc, NULL, &m), FOVEA_OK);
    return m;
}

static fovea_stitcher *open_st(rigrun *r, int interval)
{
    fovea_stitcher_settings ss;
    fovea_stitcher_default_settings(&ss);
    ss.deterministic = 1;
    ss.auto_interval = interval;
    fovea_stitcher *st = NULL;
    REQUIRE(fovea_stitcher_open(&st, r->ctx, r->map, &ss) == FOVEA_OK);
    return st;
}

/* the stills path's correction of the current images */
static void stills(rigrun *r, fovea_color_correction *cc)
{
    fovea_stitcher *st = open_st(r, 30);
    REQUIRE(fovea_stitcher_analyze(st, r->in, NCAM, 1, cc) == FOVEA_OK);
    fovea_stitcher_close(&st);
}

/* (1) one still through the video path = the stills path, on frame 0 */
static void test_first_frame(rigrun *r)
{
    scene(r, 1.25, 0);
    fovea_frame ref;
    REQUIRE(fovea_frame_alloc(r->ctx, &ref, 240, 120, FOVEA_PIX_RGBA, FOVEA_MEM_HOST) == FOVEA_OK);
    fovea_stitcher *a = open_st(r, 30), *b = open_st(r, 30);
    fovea_color_correction ca[NCAM], cb[NCAM];
    REQUIRE(fovea_stitcher_analyze(a, r->in, NCAM, 1, ca) == FOVEA_OK);
    CHECK_EQ_INT(fovea_stitcher_process(a, r->in, NCAM, &ref), FOVEA_OK);
    CHECK_EQ_INT(fovea_stitcher_process(b, r->in, NCAM, &r->out), FOVEA_OK);
    CHECK_EQ_INT(fovea_stitcher_get_color(b, cb, NCAM), FOVEA_OK);
    CHECK(memcmp(ca, cb, sizeof(ca)) == 0);
    long differ = 0;
    for (int y = 0; y < 120; y++)
        differ += memcmp(ref.data[0] + (size_t)y * (size_t)ref.stride[0],
                         r->out.data[0] + (size_t)y * (size_t)r->out.stride[0], 4 * 240) != 0;
    CHECK_EQ_INT(differ, 0);
    /* the correction is real: camera 1's gains relative to camera 0's undo 1.25 */
    double rel = log((double)cb[1].gain[1] / cb[0].gain[1]);
    fovea_color_correction ident[NCAM];
    for (int c = 0; c < NCAM; c++) {
        ident[c].gain[0] = ident[c].gain[1] = ident[c].gain[2] = 1.0f;
        ident[c].gamma = 1.0f;
    }
    double m0 = mismatch(r, ident), m1 = mismatch(r, cb);
    printf("first frame: stills correction applied in full (ln gain ratio %.3f, camera 1 got "
           "1.25x), seam mismatch %.2f -> %.2f codes\n",
           rel, m0, m1);
    CHECK(rel < -0.1);
    CHECK(m1 < 0.5 * m0);
    fovea_stitcher_close(&a);
    fovea_stitcher_close(&b);
    fovea_frame_free(r->ctx, &ref);
}

/* Run frames with camera 1's exposure gain1(f); checks the per-frame bound and
 * returns the worst seam mismatch after frame `settle` and the frames until
 * the corrections last changed. */
static void run_clip(rigrun *r, fovea_stitcher *st, int frames, double (*gain1)(int), int noise,
                     double *worst_step, double *worst_mismatch, int settle, int *last_change,
                     fovea_color_correction *first)
{
    fovea_color_correction prev[NCAM], cur[NCAM];
    *worst_step = 0.0;
    *worst_mismatch = 0.0;
    *last_change = -1;
    for (int f = 0; f < frames; f++) {
        scene(r, gain1(f), noise);
        CHECK_EQ_INT(fovea_stitcher_process(st, r->in, NCAM, &r->out), FOVEA_OK);
        /* frame f + 1 is stitched with these; frame 0 with those frame 0 primed */
        CHECK_EQ_INT(fovea_stitcher_get_color(st, cur, NCAM), FOVEA_OK);
        if (f == 0 && first)
            memcpy(first, cur, sizeof(cur));
        if (f > 0) {
            double d = distance(prev, cur);
            *worst_step = fmax(*worst_step, d);
            if (d > 0.0)
                *last_change = f;
        }
        if (f >= settle)
            *worst_mismatch = fmax(*worst_mismatch, mismatch(r, cur));
        memcpy(prev, cur, sizeof(cur));
    }
}

static double ramp(int f)
{
    return f < 60 ? 1.0 + 0.005 * f : 1.3;
}
static double jump(int f)
{
    return f < 10 ? 1.1 : 1.1 * 1.3;
}
static double steady(int f)
{
    (void)f;
    return 1.15;
}

/* (2) a lighting ramp, analyzed every frame */
static void test_ramp(rigrun *r)
{
    fovea_stitcher *st = open_st(r, 1);
    double step, worst;
    int last;
    run_clip(r, st, 90, ramp, 1, &step, &worst, 0, &last, NULL);
    fovea_color_correction want[NCAM], got[NCAM];
    stills(r, want);
    CHECK_EQ_INT(fovea_stitcher_get_color(st, got, NCAM), FOVEA_OK);
    double err = distance(want, got);
    printf("ramp +0.5%%/frame for 60 frames: largest step %.4f (bound 0.01), worst seam "
           "mismatch %.2f codes, end %.4f from the stills correction\n",
           step, worst, err);
    CHECK(step <= 0.01 + 1e-6);
    CHECK(worst < 5.0); /* against about 25 codes uncorrected at the end */
    CHECK(err <= 0.02);
    fovea_stitcher_close(&st);
}

/* (3) camera 1 jumps +30% at frame 10: defaults (analysis every 30 frames) */
static void test_jump(rigrun *r)
{
    fovea_stitcher *st = open_st(r, 30);
    double step, worst;
    int last;
    run_clip(r, st, 240, jump, 0, &step, &worst, 0, &last, NULL);
    fovea_color_correction want[NCAM], got[NCAM];
    stills(r, want);
    CHECK_EQ_INT(fovea_stitcher_get_color(st, got, NCAM), FOVEA_OK);
    double err = distance(want, got);
    printf("jump +30%% at frame 10: largest step %.4f (bound 0.01), last change at frame %d "
           "(%d frames after), end %.4f from the stills correction\n",
           step, last, last - 10, err);
    CHECK(step <= 0.01 + 1e-6);
    CHECK(last > 10 && last - 10 <= 150); /* docs/stitch.md: within 5 analyses */
    CHECK(err <= 0.02);
    fovea_stitcher_close(&st);

    st = open_st(r, 1);
    run_clip(r, st, 120, jump, 0, &step, &worst, 0, &last, NULL);
    printf("jump +30%% at frame 10, analysis every frame: largest step %.4f, last change %d "
           "frames after\n",
           step, last - 10);
    CHECK(step <= 0.01 + 1e-6);
    CHECK(last > 10 && last - 10 <= 40);
    fovea_stitcher_close(&st);
}

/* (4) steady scene with sensor noise, analyzed every frame: no flicker */
static void test_steady(rigrun *r)
{
    fovea_stitcher *st = open_st(r, 1);
    double step, worst;
    int last;
    fovea_color_correction first[NCAM];
    run_clip(r, st, 150, steady, 3, &step, &worst, 0, &last, first);
    printf("steady scene, noise +-3 codes, 150 frames: largest step %.6f, last change at "
           "frame %d\n",
           step, last);
    CHECK_EQ_INT(last, -1); /* never changed after frame 0's estimate */
    fovea_stitcher_close(&st);
}

int main(void)
{
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    rigrun r;
    memset(&r, 0, sizeof(r));
    REQUIRE(fovea_open(&r.ctx, &s) == FOVEA_OK);
    r.map = make_map();
    for (int c = 0; c < NCAM; c++) {
        REQUIRE(fovea_frame_alloc(r.ctx, &r.cam[c], CW, CH, FOVEA_PIX_RGBA, FOVEA_MEM_HOST) ==
                FOVEA_OK);
        r.in[c] = &r.cam[c];
    }
    REQUIRE(fovea_frame_alloc(r.ctx, &r.out, 240, 120, FOVEA_PIX_RGBA, FOVEA_MEM_HOST) == FOVEA_OK);
    test_rng_seed(&r.rng, 51);
    test_first_frame(&r);
    test_ramp(&r);
    test_jump(&r);
    test_steady(&r);
    for (int c = 0; c < NCAM; c++)
        fovea_frame_free(r.ctx, &r.cam[c]);
    fovea_frame_free(r.ctx, &r.out);
    fovea_stitch_map_close(&r.map);
    fovea_close(&r.ctx);
    return test_finish("test_stitch_color_time");
}
