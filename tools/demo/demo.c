/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Stitching demo engine (see demo.h), on the public API only. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demo.h"
#include "fovea/advanced.h"
#include "fovea/convert.h"
#include "fovea/io.h"
#include "fovea/rig.h"
#include "scene.h"

void demo_default_options(demo_options *o)
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

/* Everything one run makes; freed by demo_state_free. */
typedef struct demo_state {
    fovea_rig *rig;
    fovea_rig_panorama pano;
    fovea_rig_camera cam[FOVEA_STITCH_MAX_CAMERAS];
    int n;
    fovea_stitch_map *map;
    fovea_stitcher *stitcher;
    fovea_stitcher_settings ss;
    fovea_convert_options co;                    /* the YUV conventions of the video path */
    fovea_frame gt, pano_out;                    /* ground truth and stitched panorama, RGBA */
    fovea_frame cams[FOVEA_STITCH_MAX_CAMERAS];  /* rendered cameras, RGBA */
    fovea_frame ycams[FOVEA_STITCH_MAX_CAMERAS]; /* yuv: the cameras in I420 */
    fovea_frame ypano, ygt;                      /* yuv: stitched panorama, ground truth in I420 */
    const fovea_frame *in[FOVEA_STITCH_MAX_CAMERAS]; /* what is stitched */
} demo_state;

static void demo_state_free(demo_state *d)
{
    fovea_stitcher_close(&d->stitcher);
    fovea_stitch_map_close(&d->map);
    fovea_rig_close(&d->rig);
    for (int c = 0; c < FOVEA_STITCH_MAX_CAMERAS; c++) {
        fovea_frame_free(NULL, &d->cams[c]);
        fovea_frame_free(NULL, &d->ycams[c]);
    }
    fovea_frame_free(NULL, &d->gt);
    fovea_frame_free(NULL, &d->pano_out);
    fovea_frame_free(NULL, &d->ygt);
    fovea_frame_free(NULL, &d->ypano);
}

/* The rig of docs/rig.md's example (the broadcast rig): a pinhole camera
 * with barrel distortion on the left, a fisheye on the right. */
static int make_rig(demo_state *d, int div, char *err, size_t errsz)
{
    fovea_rig_panorama *p = &d->pano;
    fovea_rig_panorama_init(p);
    p->projection = FOVEA_PROJ_EQUIRECTANGULAR;
    p->width = 5700 / div;
    p->height = 1900 / div;
    p->hfov = 150.0;
    p->vfov = 50.0;
    p->feather = 64.0 / div;
    d->n = 2;
    for (int c = 0; c < 2; c++) {
        fovea_rig_camera *k = &d->cam[c];
        memset(k, 0, sizeof(*k));
        snprintf(k->name, sizeof(k->name), "%s", c == 0 ? "left" : "right");
        k->width = 3840 / div;
        k->height = 2160 / div;
        k->cx = (k->width - 1) / 2.0;
        k->cy = (k->height - 1) / 2.0;
        k->yaw = c == 0 ? -35.0 : 35.0;
    }
    d->cam[0].model = FOVEA_CAM_PINHOLE;
    d->cam[0].fx = d->cam[0].fy = 2132.0 / div;
    d->cam[0].dist[0] = -0.05;
    d->cam[0].dist[1] = 0.01;
    d->cam[1].model = FOVEA_CAM_FISHEYE;
    d->cam[1].fx = d->cam[1].fy = 1200.0 / div;
    d->cam[1].dist[0] = 0.02;
    d->cam[1].dist[1] = -0.01;
    int st = fovea_rig_open_cameras(&d->rig, NULL, p, d->cam, d->n);
    if (st < 0)
        snprintf(err, errsz, "%s", fovea_last_error(NULL));
    return st;
}

/* The ground truth and the camera images, and for the video path their I420
 * versions (the ground truth goes through the same two conversions, so that
 * the PSNR measures the stitch and not the chroma subsampling). */
/* The step of the run that starts now, to o->progress: of n cameras' run. */
static void step(const demo_options *o, int n, int k, const char *what)
{
    if (o->progress)
        o->progress(o->progress_opaque, k, n + 5, what);
}

static int render_inputs(fovea_context *ctx, const demo_options *o, demo_state *d)
{
    const int w = d->pano.width, h = d->pano.height;
    scene_params sp;
    /* the fisheye sees fewer pixels per radian than the panorama has: make the
     * scene's finest detail sit between the two pitches (geometric mean), so it
     * stays crisp in the panorama without aliasing badly in the coarsest camera */
    double pano_pitch = scene_rig_pitch(d->rig), pitch = pano_pitch;
    for (int c = 0; c < d->n; c++) {
        double cam_pitch = 1.0 / (d->cam[c].fx < d->cam[c].fy ? d->cam[c].fx : d->cam[c].fy);
        double p = sqrt(cam_pitch * pano_pitch);
        pitch = p > pitch ? p : pitch;
    }
    scene_default_params(&sp, o->seed, pitch);
    scene_model scene;
    int st;
    if ((st = scene_init(&scene, &sp)) < 0)
        return st;
    if ((st = fovea_frame_alloc(NULL, &d->gt, w, h, FOVEA_PIX_RGBA, FOVEA_MEM_HOST)) < 0 ||
        (st = fovea_frame_alloc(NULL, &d->pano_out, w, h, FOVEA_PIX_RGBA, FOVEA_MEM_HOST)) < 0)
        return st;
    step(o, d->n, 2, "rendering the ground-truth panorama");
    if ((st = scene_render_panorama(ctx, &scene, d->rig, &d->gt)) < 0)
        return st;
    /* deliberately different camera responses: one warm and bright with a
     * gentler curve, one cool with a steeper one */
    const color_response responses[2] = {
        {{1.10f, 1.02f, 0.90f}, 0.92f, {0, 0, 0}},
        {{0.92f, 0.98f, 1.08f}, 1.10f, {0, 0, 0}},
    };
    const color_response ident = COLOR_RESPONSE_IDENTITY;
    for (int c = 0; c < d->n; c++) {
        if ((st = fovea_frame_alloc(NULL, &d->cams[c], d->cam[c].width, d->cam[c].height,
                                    FOVEA_PIX_RGBA, FOVEA_MEM_HOST)) < 0)
            return st;
        char what[64];
        snprintf(what, sizeof what, "rendering camera %d of %d", c + 1, d->n);
        step(o, d->n, 3 + c, what);
        if ((st = scene_render_camera(ctx, &scene, d->rig, c,
                                      o->identical_colors ? &ident : &responses[c & 1],
                                      &d->cams[c])) < 0)
            return st;
        d->in[c] = &d->cams[c];
    }
    if (!o->yuv)
        return FOVEA_OK;
    for (int c = 0; c < d->n; c++) {
        if ((st = fovea_frame_alloc(NULL, &d->ycams[c], d->cams[c].width, d->cams[c].height,
                                    FOVEA_PIX_I420, FOVEA_MEM_HOST)) < 0 ||
            (st = fovea_frame_convert(ctx, &d->ycams[c], &d->cams[c], &d->co)) < 0)
            return st;
        d->in[c] = &d->ycams[c];
    }
    if ((st = fovea_frame_alloc(NULL, &d->ygt, w, h, FOVEA_PIX_I420, FOVEA_MEM_HOST)) < 0 ||
        (st = fovea_frame_convert(ctx, &d->ygt, &d->gt, &d->co)) < 0 ||
        (st = fovea_frame_convert(ctx, &d->gt, &d->ygt, &d->co)) < 0)
        return st;
    return fovea_frame_alloc(NULL, &d->ypano, w, h, FOVEA_PIX_I420, FOVEA_MEM_HOST);
}

/* Balance (analyze the frame and apply the result at once) and stitch. */
static int stitch(fovea_context *ctx, const demo_options *o, demo_state *d, demo_result *r,
                  char *err, size_t errsz)
{
    int st;
    if ((st = fovea_stitcher_open(&d->stitcher, ctx, d->map, &d->ss)) < 0) {
        snprintf(err, errsz, "demo: %s", fovea_last_error(ctx));
        return st;
    }
    double t0 = now_s();
    if (o->color_auto && (st = fovea_stitcher_analyze(d->stitcher, d->in, d->n, 1, NULL)) < 0) {
        snprintf(err, errsz, "demo: color analysis: %s", fovea_last_error(ctx));
        return st;
    }
    if ((st = fovea_stitcher_process(d->stitcher, d->in, d->n, o->yuv ? &d->ypano : &d->pano_out)) <
        0) {
        snprintf(err, errsz, "demo: stitch: %s", fovea_last_error(ctx));
        return st;
    }
    r->seconds_stitch = now_s() - t0;
    if (o->yuv && (st = fovea_frame_convert(ctx, &d->pano_out, &d->ypano, &d->co)) < 0)
        return st;
    fovea_stitcher_get_color(d->stitcher, r->cc, d->n);
    return FOVEA_OK;
}

/* PSNR against the ground truth over covered pixels (alpha 255; an I420
 * panorama has no alpha: the pixels some camera weights), and the overlap
 * mismatch without and with the corrections in use. */
static int measure(const demo_options *o, const demo_state *d, demo_result *r)
{
    const int w = d->pano.width, h = d->pano.height;
    double se = 0.0;
    long covered = 0;
    float cw_[FOVEA_STITCH_MAX_CAMERAS], cu_[FOVEA_STITCH_MAX_CAMERAS],
        cv_[FOVEA_STITCH_MAX_CAMERAS];
    for (int j = 0; j < h; j++) {
        const uint8_t *a = d->pano_out.data[0] + (ptrdiff_t)j * d->pano_out.stride[0];
        const uint8_t *b = d->gt.data[0] + (ptrdiff_t)j * d->gt.stride[0];
        for (int i = 0; i < w; i++) {
            if (o->yuv ? fovea_stitch_map_weights(d->map, i, j, cw_, cu_, cv_) == 0
                       : a[4 * i + 3] != 255)
                continue;
            covered++;
            for (int k = 0; k < 3; k++) {
                double diff = (double)a[4 * i + k] - (double)b[4 * i + k];
                se += diff * diff;
            }
        }
    }
    r->pct_covered = 100.0 * (double)covered / ((double)w * h);
    double mse = covered ? se / (3.0 * (double)covered) : 0.0;
    r->psnr_covered = mse > 0.0 ? 10.0 * log10(255.0 * 255.0 / mse) : 99.0;

    fovea_color_correction ident[FOVEA_STITCH_MAX_CAMERAS];
    for (int c = 0; c < d->n; c++) {
        ident[c].gain[0] = ident[c].gain[1] = ident[c].gain[2] = 1.0f;
        ident[c].gamma = 1.0f;
    }
    int st = fovea_stitch_overlap_mismatch(d->map, d->in, d->n, ident, &d->ss, &r->mismatch_before);
    if (st >= 0)
        st = fovea_stitch_overlap_mismatch(d->map, d->in, d->n, r->cc, &d->ss, &r->mismatch_after);
    return st;
}

static int write_png(const char *dir, const char *name, const fovea_frame *f, char *err,
                     size_t errsz)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int st = fovea_png_write_file(NULL, path, f);
    if (st < 0)
        snprintf(err, errsz, "%s", fovea_last_error(NULL));
    return st;
}

/* The rig as `fovea rig check` and `fovea stitch --rig` read it. */
static int write_rig(const char *dir, const fovea_rig *rig, char *err, size_t errsz)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/rig.json", dir);
    char *json = fovea_rig_to_json(rig);
    FILE *f = json ? fopen(path, "w") : NULL;
    int bad = !f || fputs(json, f) == EOF || fputc('\n', f) == EOF;
    if (f && fclose(f) != 0)
        bad = 1;
    if (bad)
        snprintf(err, errsz, "%s: %s", path, json ? strerror(errno) : "out of memory");
    free(json);
    return bad ? (json ? FOVEA_ERR_IO : FOVEA_ERR_NOMEM) : FOVEA_OK;
}

/* camera<c>.png, panorama.png, ground_truth.png, coverage.png and rig.json in
 * o->out_dir */
static int write_outputs(const demo_options *o, const demo_state *d, char *err, size_t errsz)
{
    char name[64];
    int st = write_rig(o->out_dir, d->rig, err, errsz);
    for (int c = 0; c < d->n && st >= 0; c++) {
        snprintf(name, sizeof(name), "camera%d.png", c);
        st = write_png(o->out_dir, name, &d->cams[c], err, errsz);
    }
    if (st >= 0)
        st = write_png(o->out_dir, "panorama.png", &d->pano_out, err, errsz);
    if (st >= 0)
        st = write_png(o->out_dir, "ground_truth.png", &d->gt, err, errsz);
    if (st >= 0) {
        fovea_frame cov;
        memset(&cov, 0, sizeof(cov));
        st = fovea_frame_alloc(NULL, &cov, d->pano.width, d->pano.height, FOVEA_PIX_RGB24,
                               FOVEA_MEM_HOST);
        if (st >= 0)
            st = fovea_stitch_map_coverage_image(d->map, &cov);
        if (st >= 0)
            st = write_png(o->out_dir, "coverage.png", &cov, err, errsz);
        fovea_frame_free(NULL, &cov);
    }
    return st;
}

/* The README's heat map: a 1280x720 (divided by the scale) pinhole view over
 * the pitch toward the left goal, then the same view panned by 0.25 degrees,
 * as a camera shake between two frames would; fovea_diff's heat map of the
 * pair (difference normalized to 192 so the edges that moved stand out)
 * goes to heatmap.png. */
static int heatmap(fovea_context *ctx, const demo_options *o, const demo_state *d, demo_result *r,
                   char *err, size_t errsz)
{
    const int div = o->scale_div;
    fovea_rig_camera cam[2];
    memset(cam, 0, sizeof(cam));
    for (int c = 0; c < 2; c++) {
        fovea_rig_camera *k = &cam[c];
        snprintf(k->name, sizeof(k->name), "view%d", c);
        k->model = FOVEA_CAM_PINHOLE;
        k->width = 1280 / div;
        k->height = 720 / div;
        k->fx = k->fy = 1280.0 / div; /* 53 degrees across */
        k->cx = (k->width - 1) / 2.0;
        k->cy = (k->height - 1) / 2.0;
        k->yaw = -24.0 + (c ? 0.25 : 0.0);
        k->pitch = -6.0;
    }
    fovea_rig *rig = NULL;
    fovea_frame f[2], heat;
    memset(f, 0, sizeof(f));
    memset(&heat, 0, sizeof(heat));
    fovea_diff *df = NULL;
    int st = fovea_rig_open_cameras(&rig, NULL, &d->pano, cam, 2);
    if (st < 0) {
        snprintf(err, errsz, "demo: heat map rig: %s", fovea_last_error(NULL));
        return st;
    }
    scene_params sp;
    scene_model scene;
    scene_default_params(&sp, o->seed, 1.0 / cam[0].fx);
    if ((st = scene_init(&scene, &sp)) < 0)
        goto done;
    for (int c = 0; c < 2 && st >= 0; c++)
        if ((st = fovea_frame_alloc(NULL, &f[c], cam[c].width, cam[c].height, FOVEA_PIX_RGB24,
                                    FOVEA_MEM_HOST)) >= 0)
            st = scene_render_camera(ctx, &scene, rig, c, NULL, &f[c]);
    if (st >= 0)
        st = fovea_frame_alloc(NULL, &heat, cam[0].width, cam[0].height, FOVEA_PIX_RGB24,
                               FOVEA_MEM_HOST);
    fovea_diff_settings ds;
    fovea_diff_default_settings(&ds);
    ds.normalize_max = 192;
    fovea_diff_mask_result m;
    fovea_diff_outputs outs = {&heat, NULL, &m, NULL};
    if (st >= 0 && (st = fovea_diff_open(&df, ctx, &ds)) >= 0)
        st = fovea_diff_compute(df, &f[0], &f[1], &outs);
    if (st < 0) {
        snprintf(err, errsz, "demo: heat map: %s", fovea_last_error(ctx));
        goto done;
    }
    r->heat_width = cam[0].width;
    r->heat_height = cam[0].height;
    r->heat_pan_deg = cam[1].yaw - cam[0].yaw;
    r->heat_normalize = ds.normalize_max;
    r->heat_changed_pct = 100.0 * (double)m.changed_pixels / ((double)heat.width * heat.height);
    r->heat_backend = fovea_backend_name(fovea_diff_backend(df));
    if (o->out_dir)
        st = write_png(o->out_dir, "heatmap.png", &heat, err, errsz);
done:
    fovea_diff_close(&df);
    fovea_frame_free(NULL, &f[0]);
    fovea_frame_free(NULL, &f[1]);
    fovea_frame_free(NULL, &heat);
    fovea_rig_close(&rig);
    return st;
}

int demo_run(fovea_context *ctx, const demo_options *o, demo_result *r, char *err, size_t errsz)
{
    memset(r, 0, sizeof(*r));
    if (!o || o->scale_div < 1 || o->scale_div > 16) {
        snprintf(err, errsz, "demo: scale divisor must be 1..16");
        return FOVEA_ERR_INVALID_ARG;
    }
    demo_state *d = calloc(1, sizeof(*d));
    if (!d) {
        snprintf(err, errsz, "demo: %s", fovea_strerror(FOVEA_ERR_NOMEM));
        return FOVEA_ERR_NOMEM;
    }
    int st = make_rig(d, o->scale_div, err, errsz);
    if (st < 0)
        goto done;
    r->num_cameras = d->n;
    r->pano_width = d->pano.width;
    r->pano_height = d->pano.height;
    r->backend = fovea_backend_name(fovea_context_backend(ctx));
    fovea_convert_options_init(&d->co);
    d->co.colorspace = o->colorspace;
    d->co.range = o->full_range ? FOVEA_RANGE_FULL : FOVEA_RANGE_LIMITED;
    fovea_stitcher_default_settings(&d->ss);
    d->ss.color = o->color_auto ? FOVEA_COLOR_AUTO : FOVEA_COLOR_OFF;
    d->ss.yuv_colorspace = o->colorspace;
    d->ss.yuv_full_range = o->full_range;

    double t0 = now_s();
    step(o, d->n, 1, "building the stitching map");
    fovea_stitch_map_stats ms;
    st = fovea_stitch_map_open_rig(&d->map, ctx, d->rig, NULL, &ms);
    if (st < 0) {
        snprintf(err, errsz, "demo: map build failed: %s", fovea_last_error(ctx));
        goto done;
    }
    for (int c = 0; c < d->n; c++)
        r->grid_step[c] = ms.cam[c].step;
    r->seconds_map = now_s() - t0;

    t0 = now_s();
    if ((st = render_inputs(ctx, o, d)) < 0)
        goto done;
    r->seconds_render = now_s() - t0;
    step(o, d->n, 3 + d->n, "balancing and stitching");
    if ((st = stitch(ctx, o, d, r, err, errsz)) < 0 || (st = measure(o, d, r)) < 0)
        goto done;
    step(o, d->n, 4 + d->n, o->out_dir ? "writing the images and rig.json" : "measuring");
    if (o->out_dir)
        st = write_outputs(o, d, err, errsz);
    step(o, d->n, 5 + d->n, "rendering and differencing the heat map views");
    if (st >= 0)
        st = heatmap(ctx, o, d, r, err, errsz);
    if (st >= 0)
        step(o, d->n, 6 + d->n, NULL);
done:
    demo_state_free(d);
    free(d);
    if (st < 0 && err && !err[0])
        snprintf(err, errsz, "demo: %s", fovea_strerror(st));
    return st;
}
