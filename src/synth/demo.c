/* Stitching demo engine (see demo.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "fovea/convert.h"
#include "fovea/io.h"
#include "stitch/color.h"
#include "stitch/coverage.h"
#include "stitch/map_build.h"
#include "stitch/rig.h"
#include "stitch/stitch_internal.h"
#include "synth/demo.h"
#include "synth/scene.h"

void fovea_demo_default_options(fovea_demo_options *o)
{
    memset(o, 0, sizeof(*o));
    o->scale_div = 1;
    o->color_auto = 1;
    o->seed = 2026;
    o->colorspace = FOVEA_CS_BT601;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The rig of docs/rig.md's example (the broadcast rig): a pinhole camera
 * with barrel distortion on the left, a fisheye on the right. */
static void demo_rig(fovea_rig *rig, int div)
{
    fovea_rig_init(rig);
    rig->projection = FOVEA_PROJ_EQUIRECTANGULAR;
    rig->width = 5700 / div;
    rig->height = 1900 / div;
    rig->hfov = 150.0;
    rig->vfov = 50.0;
    rig->feather = 64.0 / div;
    rig->num_cameras = 2;
    for (int c = 0; c < 2; c++) {
        fovea_rig_camera *k = &rig->cameras[c];
        memset(k, 0, sizeof(*k));
        snprintf(k->name, sizeof(k->name), "%s", c == 0 ? "left" : "right");
        k->width = 3840 / div;
        k->height = 2160 / div;
        k->cx = (k->width - 1) / 2.0;
        k->cy = (k->height - 1) / 2.0;
        k->yaw = c == 0 ? -35.0 : 35.0;
    }
    rig->cameras[0].model = FOVEA_CAM_PINHOLE;
    rig->cameras[0].fx = rig->cameras[0].fy = 2132.0 / div;
    rig->cameras[0].dist[0] = -0.05;
    rig->cameras[0].dist[1] = 0.01;
    rig->cameras[1].model = FOVEA_CAM_FISHEYE;
    rig->cameras[1].fx = rig->cameras[1].fy = 1200.0 / div;
    rig->cameras[1].dist[0] = 0.02;
    rig->cameras[1].dist[1] = -0.01;
}

/* Bilinear sample of byte ch of pixels of bpp bytes in plane p (of w x h
 * samples) at (u, v), pixel centres at integers, u and v inside the plane. */
static float sample_plane(const fovea_frame *f, int p, int w, int h, float u, float v, int bpp,
                          int ch)
{
    int x0 = (int)u, y0 = (int)v;
    float fx = u - (float)x0, fy = v - (float)y0;
    int x1 = x0 + 1 < w ? x0 + 1 : x0;
    int y1 = y0 + 1 < h ? y0 + 1 : y0;
    const uint8_t *r0 = f->data[p] + (ptrdiff_t)y0 * f->stride[p];
    const uint8_t *r1 = f->data[p] + (ptrdiff_t)y1 * f->stride[p];
    float top = (1.0f - fx) * r0[bpp * x0 + ch] + fx * r0[bpp * x1 + ch];
    float bot = (1.0f - fx) * r1[bpp * x0 + ch] + fx * r1[bpp * x1 + ch];
    return (1.0f - fy) * top + fy * bot;
}

static float sample_u8(const fovea_frame *f, float u, float v, int bpp, int ch)
{
    return sample_plane(f, 0, f->width, f->height, u, v, bpp, ch);
}

/* Component k (0 Y, 1 U, 2 V) of an I420 camera at luma position (u, v),
 * through camera c's tables as the stitcher applies them: luma through its
 * luma curve; chroma (at the chroma position of (u, v), clamped) through its
 * chroma tables at the luma sampled there. */
static float corrected_yuv(const stitch_tables *t, int c, const fovea_frame *f, float u, float v,
                           int k)
{
    const float y = sample_u8(f, u, v, 1, 0);
    if (k == 0)
        return t->lut[c][0][lrintf(4.0f * y)];
    const int cw = (f->width + 1) / 2, ch = (f->height + 1) / 2;
    float x = (u - 0.5f) * 0.5f, z = (v - 0.5f) * 0.5f;
    x = x < 0.0f ? 0.0f : (x > (float)(cw - 1) ? (float)(cw - 1) : x);
    z = z < 0.0f ? 0.0f : (z > (float)(ch - 1) ? (float)(ch - 1) : z);
    const float s = sample_plane(f, k, cw, ch, x, z, 1, 0);
    const float *e = t->chroma[c][lrintf(y)];
    const int q = (int)lrintf(4.0f * s);
    return k == 1 ? stitch_chroma_corrected(e[0], e[1], q) : stitch_chroma_corrected(e[2], e[3], q);
}

/* Mean |A - B| over the overlap samples (every pixel seen with weight > 0 by two
 * cameras, every pair), with the cameras' samples through the stitcher's tables
 * for cc: R, G and B of RGBA cameras, or (yuv: STITCH_YUV_* flags) Y, U and V
 * of I420 cameras. */
static double overlap_mismatch(const fovea_stitch_map *m, const fovea_frame *cams,
                               const fovea_color_correction *cc, int yuv)
{
    stitch_tables *t = malloc(sizeof(*t));
    if (!t)
        return -1.0;
    fovea_stitch_build_tables(cc, m->num_cameras, yuv, t);
    double sum = 0.0;
    long count = 0;
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    for (int j = 0; j < m->pano_height; j += 2)
        for (int i = 0; i < m->pano_width; i += 2) {
            if (fovea_map_weights(m, i, j, w, u, v) < 2)
                continue;
            for (int a = 0; a < m->num_cameras; a++)
                for (int b = a + 1; b < m->num_cameras; b++) {
                    if (!(w[a] > 0.0f) || !(w[b] > 0.0f))
                        continue;
                    for (int k = 0; k < 3; k++) {
                        float x, y;
                        if (yuv) {
                            x = corrected_yuv(t, a, &cams[a], u[a], v[a], k);
                            y = corrected_yuv(t, b, &cams[b], u[b], v[b], k);
                        } else {
                            x = fovea_lut_apply(t->lut[a][k], sample_u8(&cams[a], u[a], v[a], 4, k));
                            y = fovea_lut_apply(t->lut[b][k], sample_u8(&cams[b], u[b], v[b], 4, k));
                        }
                        sum += fabs((double)x - (double)y);
                        count++;
                    }
                }
        }
    free(t);
    return count ? sum / (double)count : 0.0;
}

static int write_png(const char *dir, const char *name, const fovea_frame *f, char *err,
                     size_t errsz)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return fovea_png_write_file(path, f, err, errsz);
}

int fovea_demo_run(fovea_context *ctx, const fovea_demo_options *o, fovea_demo_result *r,
                   char *err, size_t errsz)
{
    memset(r, 0, sizeof(*r));
    if (!o || o->scale_div < 1 || o->scale_div > 16) {
        snprintf(err, errsz, "demo: scale divisor must be 1..16");
        return FOVEA_ERR_INVALID_ARG;
    }
    fovea_rig rig;
    demo_rig(&rig, o->scale_div);
    int st = fovea_rig_validate(&rig, err, errsz);
    if (st < 0)
        return st;
    const int n = rig.num_cameras;
    r->num_cameras = n;
    r->pano_width = rig.width;
    r->pano_height = rig.height;
    r->backend = fovea_backend_name(fovea_context_backend(ctx));

    fovea_frame gt, pano, cams[FOVEA_STITCH_MAX_CAMERAS];
    fovea_frame ycams[FOVEA_STITCH_MAX_CAMERAS], ypano, ygt;
    memset(&gt, 0, sizeof(gt));
    memset(&pano, 0, sizeof(pano));
    memset(cams, 0, sizeof(cams));
    memset(ycams, 0, sizeof(ycams));
    memset(&ypano, 0, sizeof(ypano));
    memset(&ygt, 0, sizeof(ygt));
    fovea_stitch_map map;
    memset(&map, 0, sizeof(map));
    fovea_stitcher *stitcher = NULL;

    double t0 = now_s();
    fovea_map_build_options mo;
    fovea_map_build_stats ms;
    fovea_map_build_default_options(&mo);
    mo.stats = &ms;
    st = fovea_map_build(ctx, &rig, &map, &mo);
    if (st < 0) {
        snprintf(err, errsz, "demo: map build failed: %s", fovea_last_error(ctx));
        goto done;
    }
    for (int c = 0; c < n; c++)
        r->grid_step[c] = ms.cam[c].step;
    r->seconds_map = now_s() - t0;

    t0 = now_s();
    fovea_scene_params sp;
    /* the fisheye sees fewer pixels per radian than the panorama has: make the
     * scene's finest detail sit between the two pitches (geometric mean), so it
     * stays crisp in the panorama without aliasing badly in the coarsest camera */
    double pano_pitch = fovea_scene_rig_pitch(&rig), pitch = pano_pitch;
    for (int c = 0; c < n; c++) {
        double cam_pitch = 1.0 / (rig.cameras[c].fx < rig.cameras[c].fy ? rig.cameras[c].fx
                                                                          : rig.cameras[c].fy);
        double p = sqrt(cam_pitch * pano_pitch);
        pitch = p > pitch ? p : pitch;
    }
    fovea_scene_default_params(&sp, o->seed, pitch);
    fovea_scene scene;
    if ((st = fovea_scene_init(&scene, &sp)) < 0)
        goto done;
    if ((st = fovea_frame_alloc(NULL, &gt, rig.width, rig.height, FOVEA_PIX_RGBA, FOVEA_MEM_HOST)) < 0 ||
        (st = fovea_frame_alloc(NULL, &pano, rig.width, rig.height, FOVEA_PIX_RGBA, FOVEA_MEM_HOST)) < 0)
        goto done;
    if ((st = fovea_scene_render_panorama(ctx, &scene, &rig, &gt)) < 0)
        goto done;
    /* deliberately different camera responses: one warm and bright with a
     * gentler curve, one cool with a steeper one */
    const fovea_color_response responses[2] = {
        {{1.10f, 1.02f, 0.90f}, 0.92f, {0, 0, 0}},
        {{0.92f, 0.98f, 1.08f}, 1.10f, {0, 0, 0}},
    };
    for (int c = 0; c < n; c++) {
        fovea_color_response ident = {{1, 1, 1}, 1, {0, 0, 0}};
        if ((st = fovea_frame_alloc(NULL, &cams[c], rig.cameras[c].width, rig.cameras[c].height,
                                    FOVEA_PIX_RGBA, FOVEA_MEM_HOST)) < 0)
            goto done;
        if ((st = fovea_scene_render_camera(ctx, &scene, &rig, c,
                                            o->identical_colors ? &ident : &responses[c & 1],
                                            &cams[c])) < 0)
            goto done;
    }
    fovea_convert_options co; /* the YUV conventions of the video path */
    fovea_convert_options_init(&co);
    co.colorspace = o->colorspace;
    co.range = o->full_range ? FOVEA_RANGE_FULL : FOVEA_RANGE_LIMITED;
    if (o->yuv) {
        /* the video path: I420 cameras, an I420 panorama; the ground truth
         * goes through the same two conversions, so that the PSNR measures
         * the stitch and not the chroma subsampling */
        for (int c = 0; c < n && st >= 0; c++) {
            st = fovea_frame_alloc(NULL, &ycams[c], cams[c].width, cams[c].height, FOVEA_PIX_I420,
                                   FOVEA_MEM_HOST);
            if (st >= 0)
                st = fovea_frame_convert(ctx, &ycams[c], &cams[c], &co);
        }
        if (st >= 0)
            st = fovea_frame_alloc(NULL, &ygt, rig.width, rig.height, FOVEA_PIX_I420, FOVEA_MEM_HOST);
        if (st >= 0)
            st = fovea_frame_convert(ctx, &ygt, &gt, &co);
        if (st >= 0)
            st = fovea_frame_convert(ctx, &gt, &ygt, &co);
        if (st >= 0)
            st = fovea_frame_alloc(NULL, &ypano, rig.width, rig.height, FOVEA_PIX_I420,
                                   FOVEA_MEM_HOST);
        if (st < 0)
            goto done;
    }
    r->seconds_render = now_s() - t0;

    fovea_stitch_settings ss;
    fovea_stitch_default_settings(&ss);
    ss.color = o->color_auto ? FOVEA_COLOR_AUTO : FOVEA_COLOR_OFF;
    ss.yuv_colorspace = o->colorspace;
    ss.yuv_full_range = o->full_range;
    if ((st = fovea_stitcher_create(ctx, &stitcher, &map, &ss)) < 0) {
        snprintf(err, errsz, "demo: %s", fovea_last_error(ctx));
        goto done;
    }
    const fovea_frame *in[FOVEA_STITCH_MAX_CAMERAS];
    for (int c = 0; c < n; c++)
        in[c] = o->yuv ? &ycams[c] : &cams[c];
    t0 = now_s();
    if (o->color_auto && (st = fovea_stitcher_analyse(stitcher, in, n, 1, NULL)) < 0) {
        snprintf(err, errsz, "demo: colour analysis: %s", fovea_last_error(ctx));
        goto done;
    }
    if ((st = fovea_stitcher_process(stitcher, in, n, o->yuv ? &ypano : &pano)) < 0) {
        snprintf(err, errsz, "demo: stitch: %s", fovea_last_error(ctx));
        goto done;
    }
    r->seconds_stitch = now_s() - t0;
    if (o->yuv && (st = fovea_frame_convert(ctx, &pano, &ypano, &co)) < 0)
        goto done;
    fovea_stitcher_get_color(stitcher, r->cc, n);

    /* PSNR over covered pixels (alpha 255; an I420 panorama has no alpha:
     * the pixels some camera weights) */
    double se = 0.0;
    long covered = 0;
    float cw_[FOVEA_STITCH_MAX_CAMERAS], cu_[FOVEA_STITCH_MAX_CAMERAS], cv_[FOVEA_STITCH_MAX_CAMERAS];
    for (int j = 0; j < rig.height; j++) {
        const uint8_t *a = pano.data[0] + (ptrdiff_t)j * pano.stride[0];
        const uint8_t *b = gt.data[0] + (ptrdiff_t)j * gt.stride[0];
        for (int i = 0; i < rig.width; i++) {
            if (o->yuv ? fovea_map_weights(&map, i, j, cw_, cu_, cv_) == 0 : a[4 * i + 3] != 255)
                continue;
            covered++;
            for (int k = 0; k < 3; k++) {
                double d = (double)a[4 * i + k] - (double)b[4 * i + k];
                se += d * d;
            }
        }
    }
    r->pct_covered = 100.0 * (double)covered / ((double)rig.width * rig.height);
    double mse = covered ? se / (3.0 * (double)covered) : 0.0;
    r->psnr_covered = mse > 0.0 ? 10.0 * log10(255.0 * 255.0 / mse) : 99.0;

    fovea_color_correction ident[FOVEA_STITCH_MAX_CAMERAS];
    for (int c = 0; c < n; c++) {
        ident[c].gain[0] = ident[c].gain[1] = ident[c].gain[2] = 1.0f;
        ident[c].gamma = 1.0f;
    }
    const int yuv_flags = o->yuv ? fovea_stitch_yuv_flags(&ss) : 0;
    r->mismatch_before = overlap_mismatch(&map, o->yuv ? ycams : cams, ident, yuv_flags);
    r->mismatch_after = overlap_mismatch(&map, o->yuv ? ycams : cams, r->cc, yuv_flags);

    if (o->out_dir) {
        char name[64];
        for (int c = 0; c < n && st >= 0; c++) {
            snprintf(name, sizeof(name), "camera%d.png", c);
            st = write_png(o->out_dir, name, &cams[c], err, errsz);
        }
        if (st >= 0)
            st = write_png(o->out_dir, "panorama.png", &pano, err, errsz);
        if (st >= 0)
            st = write_png(o->out_dir, "ground_truth.png", &gt, err, errsz);
        if (st >= 0) {
            fovea_frame cov;
            st = fovea_frame_alloc(NULL, &cov, rig.width, rig.height, FOVEA_PIX_RGB24, FOVEA_MEM_HOST);
            if (st >= 0)
                st = fovea_map_coverage_image(&map, cov.data[0], cov.stride[0]);
            if (st >= 0)
                st = write_png(o->out_dir, "coverage.png", &cov, err, errsz);
            fovea_frame_free(NULL, &cov);
        }
    }
done:
    fovea_stitcher_destroy(&stitcher);
    fovea_stitch_map_free(&map);
    for (int c = 0; c < n; c++) {
        fovea_frame_free(NULL, &cams[c]);
        fovea_frame_free(NULL, &ycams[c]);
    }
    fovea_frame_free(NULL, &gt);
    fovea_frame_free(NULL, &pano);
    fovea_frame_free(NULL, &ygt);
    fovea_frame_free(NULL, &ypano);
    if (st < 0 && err && !err[0])
        snprintf(err, errsz, "demo: %s", fovea_strerror(st));
    return st;
}
