/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Synthetic scene: determinism, content, band limit (a render vs a 2x render box-
 * downsampled), camera renders consistent with the panorama through the lens
 * models (reprojection PSNR), color response, formats and argument checks. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fovea/fovea.h"
#include "stitch/geometry.h"
#include "stitch/rig.h"
#include "scene.h"
#include "testutil.h"

#define PANO_W 400
#define PANO_H 200

/* Panorama 400x200 over 150 x 75 degrees (square pixels) and two cameras: a
 * pinhole with mild distortion looking straight ahead, pixels about as large as
 * the panorama's, and a fisheye turned right. */
static void make_rig(fovea_rig *rig)
{
    fv_rig_init(rig);
    rig->projection = FOVEA_PROJ_EQUIRECTANGULAR;
    rig->width = PANO_W;
    rig->height = PANO_H;
    rig->hfov = 150.0;
    rig->vfov = 75.0;
    rig->num_cameras = 2;
    fovea_rig_camera *c = &rig->cameras[0];
    snprintf(c->name, sizeof(c->name), "center");
    c->width = 320;
    c->height = 240;
    c->model = FOVEA_CAM_PINHOLE;
    c->fx = c->fy = 1.0 / (150.0 * FOVEA_DEG2RAD / PANO_W);
    c->cx = (c->width - 1) / 2.0;
    c->cy = (c->height - 1) / 2.0;
    c->dist[0] = -0.05;
    c->dist[1] = 0.01;
    c = &rig->cameras[1];
    snprintf(c->name, sizeof(c->name), "right");
    c->width = 320;
    c->height = 240;
    c->model = FOVEA_CAM_FISHEYE;
    c->fx = c->fy = 110.0;
    c->cx = 159.5;
    c->cy = 119.5;
    c->dist[0] = 0.02;
    c->dist[1] = -0.01;
    c->yaw = 40.0;
    c->pitch = -5.0;
    c->roll = 2.0;
}

static double pano_pitch(const fovea_rig *rig)
{
    double p = scene_rig_pitch(rig);
    CHECK(fabs(p - rig->hfov * FOVEA_DEG2RAD / rig->width) < 1e-15);
    return p;
}

static void alloc_rgba(fovea_frame *f, int w, int h)
{
    REQUIRE(fovea_frame_alloc(NULL, f, w, h, FOVEA_PIX_RGBA, FOVEA_MEM_HOST) == FOVEA_OK);
}

static const uint8_t *px(const fovea_frame *f, int x, int y)
{
    return f->data[0] + (ptrdiff_t)y * f->stride[0] + (ptrdiff_t)x * 4;
}

/* PSNR over the RGB samples of two equally sized RGBA frames. */
static double psnr_rgba(const fovea_frame *a, const fovea_frame *b)
{
    double se = 0.0;
    long n = 0;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            for (int k = 0; k < 3; k++) {
                double e = (double)px(a, x, y)[k] - px(b, x, y)[k];
                se += e * e;
                n++;
            }
    return se == 0.0 ? 99.0 : 10.0 * log10(255.0 * 255.0 * n / se);
}

/* Each panorama pixel that camera cam sees, against the camera image sampled
 * bilinearly where the pixel projects (what the stitcher does): PSNR. */
static double reprojection_psnr(const fovea_rig *rig, int cam, const fovea_frame *pano,
                                const fovea_frame *img, long *covered)
{
    double se = 0.0;
    long n = 0;
    *covered = 0;
    for (int j = 0; j < rig->height; j++) {
        for (int i = 0; i < rig->width; i++) {
            double u, v;
            if (!fv_rig_project(rig, cam, i, j, &u, &v) ||
                !fv_inside_image(u, v, img->width, img->height))
                continue;
            int x0 = (int)floor(u), y0 = (int)floor(v);
            x0 = x0 > img->width - 2 ? img->width - 2 : x0;
            y0 = y0 > img->height - 2 ? img->height - 2 : y0;
            double fx = u - x0, fy = v - y0;
            for (int k = 0; k < 3; k++) {
                double top = px(img, x0, y0)[k] * (1.0 - fx) + px(img, x0 + 1, y0)[k] * fx;
                double bot = px(img, x0, y0 + 1)[k] * (1.0 - fx) + px(img, x0 + 1, y0 + 1)[k] * fx;
                double e = top + (bot - top) * fy - px(pano, i, j)[k];
                se += e * e;
                n++;
            }
            (*covered)++;
        }
    }
    return n == 0 ? 0.0 : (se == 0.0 ? 99.0 : 10.0 * log10(255.0 * 255.0 * n / se));
}

static void test_params(void)
{
    scene_params p;
    scene_model s;
    scene_default_params(&p, 1, 0.002);
    CHECK_EQ_INT(scene_init(&s, &p), FOVEA_OK);
    CHECK(s.num_objects > 10);
    /* sorted far to near */
    for (int i = 1; i < s.num_objects; i++)
        CHECK(hypot(s.obj[i - 1].gx, s.obj[i - 1].gz) >= hypot(s.obj[i].gx, s.obj[i].gz));
    p.pitch = 0.0;
    CHECK_EQ_INT(scene_init(&s, &p), FOVEA_ERR_INVALID_ARG);
    p.pitch = NAN;
    CHECK_EQ_INT(scene_init(&s, &p), FOVEA_ERR_INVALID_ARG);
    scene_default_params(&p, 1, 0.002);
    p.supersample = 0;
    CHECK_EQ_INT(scene_init(&s, &p), FOVEA_ERR_INVALID_ARG);
    p.supersample = 5;
    CHECK_EQ_INT(scene_init(&s, &p), FOVEA_ERR_INVALID_ARG);
    scene_default_params(&p, 1, 0.002);
    p.camera_height = 0.0;
    CHECK_EQ_INT(scene_init(&s, &p), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(scene_init(NULL, &p), FOVEA_ERR_INVALID_ARG);

    /* direction length does not matter; the zero vector is black */
    scene_default_params(&p, 1, 0.002);
    REQUIRE(scene_init(&s, &p) == FOVEA_OK);
    float a[3], b[3];
    scene_color(&s, 0.1, 0.05, 1.0, a);
    scene_color(&s, 3.0, 1.5, 30.0, b);
    for (int k = 0; k < 3; k++)
        CHECK(fabsf(a[k] - b[k]) < 1e-3f);
    scene_color(&s, 0.0, 0.0, 0.0, a);
    CHECK(a[0] == 0.0f && a[1] == 0.0f && a[2] == 0.0f);
    /* straight up and straight down are defined */
    scene_color(&s, 0.0, -1.0, 0.0, a);
    scene_color(&s, 0.0, 1.0, 0.0, b);
    CHECK(a[2] > 100.0f && b[1] > 20.0f);
}

static void test_determinism_and_content(fovea_context *ctx, const fovea_rig *rig)
{
    scene_params p;
    scene_model s1, s2;
    scene_default_params(&p, 11, pano_pitch(rig));
    REQUIRE(scene_init(&s1, &p) == FOVEA_OK);
    p.seed = 12;
    REQUIRE(scene_init(&s2, &p) == FOVEA_OK);

    fovea_frame a, b, c, serial;
    alloc_rgba(&a, rig->width, rig->height);
    alloc_rgba(&b, rig->width, rig->height);
    alloc_rgba(&c, rig->width, rig->height);
    alloc_rgba(&serial, rig->width, rig->height);
    CHECK_EQ_INT(scene_render_panorama(ctx, &s1, rig, &a), FOVEA_OK);
    CHECK_EQ_INT(scene_render_panorama(ctx, &s1, rig, &b), FOVEA_OK);
    CHECK(fovea_frame_equal(&a, &b));
    /* threads do not change the result */
    CHECK_EQ_INT(scene_render_panorama(NULL, &s1, rig, &serial), FOVEA_OK);
    CHECK(fovea_frame_equal(&a, &serial));
    CHECK_EQ_INT(scene_render_panorama(ctx, &s2, rig, &c), FOVEA_OK);
    long differ = 0;
    for (int y = 0; y < a.height; y++)
        for (int x = 0; x < a.width; x++)
            differ += memcmp(px(&a, x, y), px(&c, x, y), 3) != 0;
    printf("seed 11 vs 12: %.1f%% of pixels differ\n", 100.0 * differ / (a.width * a.height));
    CHECK(differ > (long)a.width * a.height / 5);

    /* not flat: per-channel spread, alpha opaque, sky brighter and bluer than ground */
    double sum[3] = {0}, sq[3] = {0};
    double sky[3] = {0}, ground[3] = {0};
    long nsky = 0, nground = 0;
    int alpha_ok = 1;
    for (int y = 0; y < a.height; y++) {
        for (int x = 0; x < a.width; x++) {
            const uint8_t *q = px(&a, x, y);
            alpha_ok &= q[3] == 255;
            for (int k = 0; k < 3; k++) {
                sum[k] += q[k];
                sq[k] += (double)q[k] * q[k];
            }
            if (y < a.height / 5) {
                for (int k = 0; k < 3; k++)
                    sky[k] += q[k];
                nsky++;
            } else if (y >= a.height * 7 / 10) {
                for (int k = 0; k < 3; k++)
                    ground[k] += q[k];
                nground++;
            }
        }
    }
    CHECK(alpha_ok);
    long n = (long)a.width * a.height;
    for (int k = 0; k < 3; k++) {
        double mean = sum[k] / n, sd = sqrt(sq[k] / n - mean * mean);
        printf("channel %d: mean %.1f, std dev %.1f\n", k, mean, sd);
        CHECK(sd > 20.0);
        sky[k] /= nsky;
        ground[k] /= nground;
    }
    printf("sky mean (%.0f %.0f %.0f), ground mean (%.0f %.0f %.0f)\n", sky[0], sky[1], sky[2],
           ground[0], ground[1], ground[2]);
    CHECK(sky[0] + sky[1] + sky[2] > ground[0] + ground[1] + ground[2] + 100.0);
    CHECK(sky[2] - sky[0] > ground[2] - ground[0] + 30.0);
    CHECK(ground[1] > ground[2]); /* grass */

    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    fovea_frame_free(NULL, &c);
    fovea_frame_free(NULL, &serial);
}

/* The same scene rendered at W x H and at 2W x 2H box-downsampled: a scene with
 * detail near the pixel size would differ a lot (aliasing in the first). */
static void test_band_limit(fovea_context *ctx, const fovea_rig *rig)
{
    scene_params p;
    scene_model s;
    scene_default_params(&p, 5, pano_pitch(rig));
    REQUIRE(scene_init(&s, &p) == FOVEA_OK);
    fovea_rig big = *rig;
    big.width *= 2;
    big.height *= 2;
    fovea_frame lo, hi, down;
    alloc_rgba(&lo, rig->width, rig->height);
    alloc_rgba(&hi, big.width, big.height);
    alloc_rgba(&down, rig->width, rig->height);
    CHECK_EQ_INT(scene_render_panorama(ctx, &s, rig, &lo), FOVEA_OK);
    CHECK_EQ_INT(scene_render_panorama(ctx, &s, &big, &hi), FOVEA_OK);
    for (int y = 0; y < down.height; y++) {
        for (int x = 0; x < down.width; x++) {
            uint8_t *o = down.data[0] + (ptrdiff_t)y * down.stride[0] + (ptrdiff_t)x * 4;
            for (int k = 0; k < 4; k++) {
                int v = px(&hi, 2 * x, 2 * y)[k] + px(&hi, 2 * x + 1, 2 * y)[k] +
                        px(&hi, 2 * x, 2 * y + 1)[k] + px(&hi, 2 * x + 1, 2 * y + 1)[k];
                o[k] = (uint8_t)((v + 2) / 4);
            }
        }
    }
    double psnr = psnr_rgba(&lo, &down);
    printf("band limit: %dx%d vs %dx%d downsampled 2x: PSNR %.2f dB\n", rig->width, rig->height,
           big.width, big.height, psnr);
    CHECK(psnr > 40.0);
    fovea_frame_free(NULL, &lo);
    fovea_frame_free(NULL, &hi);
    fovea_frame_free(NULL, &down);
}

static void test_cameras(fovea_context *ctx, const fovea_rig *rig)
{
    /* a scene for the coarsest pixel of the rig (the fisheye's) */
    double pitch = scene_rig_coarsest_pitch(rig);
    printf("rig coarsest pitch %.5f rad (panorama %.5f)\n", pitch, pano_pitch(rig));
    CHECK(pitch >= pano_pitch(rig));
    CHECK(pitch < 3.0 * pano_pitch(rig));
    scene_params p;
    scene_model s;
    scene_default_params(&p, 3, pitch);
    REQUIRE(scene_init(&s, &p) == FOVEA_OK);
    fovea_frame pano, img[2];
    alloc_rgba(&pano, rig->width, rig->height);
    CHECK_EQ_INT(scene_render_panorama(ctx, &s, rig, &pano), FOVEA_OK);
    for (int c = 0; c < 2; c++) {
        alloc_rgba(&img[c], rig->cameras[c].width, rig->cameras[c].height);
        CHECK_EQ_INT(scene_render_camera(ctx, &s, rig, c, NULL, &img[c]), FOVEA_OK);
        long covered;
        double psnr = reprojection_psnr(rig, c, &pano, &img[c], &covered);
        printf("camera %d (%s): %ld panorama pixels covered, reprojection PSNR %.2f dB\n", c,
               fovea_camera_model_name(rig->cameras[c].model), covered, psnr);
        CHECK(covered > (long)rig->width * rig->height / 10);
        CHECK(psnr > 40.0);
    }

    /* the pinhole camera's pixels match the panorama's: a scene as sharp as the
     * panorama reprojects as well */
    {
        scene_model sharp;
        scene_params sp;
        scene_default_params(&sp, 3, pano_pitch(rig));
        REQUIRE(scene_init(&sharp, &sp) == FOVEA_OK);
        fovea_frame sp_pano, sp_img;
        alloc_rgba(&sp_pano, rig->width, rig->height);
        alloc_rgba(&sp_img, rig->cameras[0].width, rig->cameras[0].height);
        CHECK_EQ_INT(scene_render_panorama(ctx, &sharp, rig, &sp_pano), FOVEA_OK);
        CHECK_EQ_INT(scene_render_camera(ctx, &sharp, rig, 0, NULL, &sp_img), FOVEA_OK);
        long covered;
        double psnr = reprojection_psnr(rig, 0, &sp_pano, &sp_img, &covered);
        printf("camera 0, scene at the panorama pitch: reprojection PSNR %.2f dB\n", psnr);
        CHECK(psnr > 40.0);
        fovea_frame_free(NULL, &sp_pano);
        fovea_frame_free(NULL, &sp_img);
    }

    /* the pinhole camera looks at the panorama center: the center 2x2 blocks agree
     * (both are centered between pixels) */
    for (int k = 0; k < 3; k++) {
        const fovea_frame *ci = &img[0];
        int cx = ci->width / 2, cy = ci->height / 2, px0 = rig->width / 2, py0 = rig->height / 2;
        int a = px(ci, cx - 1, cy - 1)[k] + px(ci, cx, cy - 1)[k] + px(ci, cx - 1, cy)[k] +
                px(ci, cx, cy)[k];
        int b = px(&pano, px0 - 1, py0 - 1)[k] + px(&pano, px0, py0 - 1)[k] +
                px(&pano, px0 - 1, py0)[k] + px(&pano, px0, py0)[k];
        printf("center channel %d: camera %.2f, panorama %.2f\n", k, a / 4.0, b / 4.0);
        CHECK(fabs(a / 4.0 - b / 4.0) <= 3.0);
    }

    /* threads do not change camera renders either */
    {
        fovea_frame serial;
        alloc_rgba(&serial, img[1].width, img[1].height);
        CHECK_EQ_INT(scene_render_camera(NULL, &s, rig, 1, NULL, &serial), FOVEA_OK);
        CHECK(fovea_frame_equal(&serial, &img[1]));
        fovea_frame_free(NULL, &serial);
    }

    /* the identity response changes nothing */
    color_response id = COLOR_RESPONSE_IDENTITY;
    fovea_frame same;
    alloc_rgba(&same, img[0].width, img[0].height);
    CHECK_EQ_INT(scene_render_camera(ctx, &s, rig, 0, &id, &same), FOVEA_OK);
    CHECK(fovea_frame_equal(&same, &img[0]));

    /* red gain 1.2: red up 20% where not clipped, green and blue unchanged */
    color_response warm = COLOR_RESPONSE_IDENTITY;
    warm.gain[0] = 1.2f;
    CHECK_EQ_INT(scene_render_camera(ctx, &s, rig, 0, &warm, &same), FOVEA_OK);
    double r0 = 0.0, r1 = 0.0;
    int gb_same = 1;
    for (int y = 0; y < same.height; y++) {
        for (int x = 0; x < same.width; x++) {
            const uint8_t *o = px(&img[0], x, y), *w = px(&same, x, y);
            gb_same &= o[1] == w[1] && o[2] == w[2];
            if (o[0] < 200) {
                r0 += o[0];
                r1 += w[0];
            }
        }
    }
    printf("red gain 1.2: mean red ratio %.4f\n", r1 / r0);
    CHECK(fabs(r1 / r0 - 1.2) < 0.01);
    CHECK(gb_same);

    /* RGB24 output equals the RGBA output's RGB */
    fovea_frame rgb;
    REQUIRE(fovea_frame_alloc(NULL, &rgb, img[1].width, img[1].height, FOVEA_PIX_RGB24,
                              FOVEA_MEM_HOST) == FOVEA_OK);
    CHECK_EQ_INT(scene_render_camera(ctx, &s, rig, 1, NULL, &rgb), FOVEA_OK);
    int rgb_same = 1;
    for (int y = 0; y < rgb.height; y++)
        for (int x = 0; x < rgb.width; x++)
            rgb_same &= memcmp(rgb.data[0] + (ptrdiff_t)y * rgb.stride[0] + x * 3,
                               px(&img[1], x, y), 3) == 0;
    CHECK(rgb_same);

    /* argument checks */
    CHECK_EQ_INT(scene_render_camera(ctx, &s, rig, 2, NULL, &img[0]), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(scene_render_camera(ctx, &s, rig, -1, NULL, &img[0]), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(scene_render_camera(ctx, &s, rig, 0, NULL, &pano), FOVEA_ERR_MISMATCH);
    CHECK_EQ_INT(scene_render_panorama(ctx, &s, rig, &img[0]), FOVEA_ERR_MISMATCH);
    CHECK_EQ_INT(scene_render_panorama(ctx, NULL, rig, &pano), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(scene_render_panorama(ctx, &s, rig, NULL), FOVEA_ERR_INVALID_ARG);
    color_response bad = COLOR_RESPONSE_IDENTITY;
    bad.gamma = 0.0f;
    CHECK_EQ_INT(scene_render_camera(ctx, &s, rig, 0, &bad, &img[0]), FOVEA_ERR_INVALID_ARG);
    fovea_frame gray;
    REQUIRE(fovea_frame_alloc(NULL, &gray, rig->width, rig->height, FOVEA_PIX_GRAY8,
                              FOVEA_MEM_HOST) == FOVEA_OK);
    CHECK_EQ_INT(scene_render_panorama(ctx, &s, rig, &gray), FOVEA_ERR_MISMATCH);

    fovea_frame_free(NULL, &gray);
    fovea_frame_free(NULL, &rgb);
    fovea_frame_free(NULL, &same);
    fovea_frame_free(NULL, &img[0]);
    fovea_frame_free(NULL, &img[1]);
    fovea_frame_free(NULL, &pano);
}

static void test_response(void)
{
    color_response r = COLOR_RESPONSE_IDENTITY;
    CHECK(fabsf(color_response_apply(&r, 0, 100.0f) - 100.0f) < 1e-4f);
    r.gamma = 2.0f;
    CHECK(fabsf(color_response_apply(&r, 1, 127.5f) - 63.75f) < 1e-3f);
    r.gamma = 1.0f;
    r.gain[2] = 2.0f;
    CHECK(fabsf(color_response_apply(&r, 2, 200.0f) - 255.0f) < 1e-4f); /* clipped */
    r.offset[0] = -10.0f;
    CHECK(fabsf(color_response_apply(&r, 0, 5.0f) - 0.0f) < 1e-4f);
    CHECK(fabsf(color_response_apply(&r, 0, 100.0f) - 90.0f) < 1e-4f);
}

int main(void)
{
    fovea_settings set;
    fovea_default_settings(&set);
    set.backend = FOVEA_BACKEND_CPU;
    set.threads = 2;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &set) == FOVEA_OK);
    fovea_rig rig;
    make_rig(&rig);
    REQUIRE(fovea_rig_validate(&rig, NULL) == FOVEA_OK);

    test_params();
    test_response();
    test_determinism_and_content(ctx, &rig);
    test_band_limit(ctx, &rig);
    test_cameras(ctx, &rig);

    fovea_close(&ctx);
    return test_finish("test_demo_scene");
}
