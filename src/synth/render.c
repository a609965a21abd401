/* Rendering the synthetic scene: a ground-truth panorama of a rig, or the image
 * one rig camera sees (inverse lens model, camera rotation, color response).
 * Exact directions are computed once per pixel center (stitch/geometry.h); the
 * n x n sub-samples of a pixel interpolate the directions of the centers around
 * them, which is exact to far below a pixel (directions vary smoothly). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "stitch/geometry.h"
#include "synth/scene.h"

float fovea_color_response_apply(const fovea_color_response *r, int k, float in)
{
    double x = (double)r->gain[k] * in / 255.0;
    x = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
    if (r->gamma != 1.0f)
        x = pow(x, r->gamma);
    double out = 255.0 * x + r->offset[k];
    return (float)(out < 0.0 ? 0.0 : (out > 255.0 ? 255.0 : out));
}

/* Angle between the directions of image points (u, v) and (u + du, v + dv) of a
 * camera; 0 when either has no direction. */
static double camera_step_angle(const fovea_rig_camera *c, double u, double v, double du,
                                double dv)
{
    double a[3], b[3];
    if (!fovea_camera_unproject(c, u, v, a) || !fovea_camera_unproject(c, u + du, v + dv, b))
        return 0.0;
    double cx = a[1] * b[2] - a[2] * b[1], cy = a[2] * b[0] - a[0] * b[2];
    double cz = a[0] * b[1] - a[1] * b[0];
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
}

double fovea_scene_rig_pitch(const fovea_rig *rig)
{
    if (!rig || rig->width <= 0)
        return 0.0;
    return rig->hfov * FOVEA_DEG2RAD / rig->width;
}

double fovea_scene_rig_coarsest_pitch(const fovea_rig *rig)
{
    if (!rig || rig->width <= 0 || rig->height <= 0)
        return 0.0;
    double pitch = rig->hfov * FOVEA_DEG2RAD / rig->width;
    if (rig->projection == FOVEA_PROJ_EQUIRECTANGULAR) {
        double v = rig->vfov * FOVEA_DEG2RAD / rig->height;
        pitch = v > pitch ? v : pitch;
    }
    /* cameras: the largest pixel angle where a camera sees the panorama, over a
     * grid of panorama points */
    const int gx = 48, gy = 24;
    for (int c = 0; c < rig->num_cameras && c < FOVEA_RIG_MAX_CAMERAS; c++) {
        const fovea_rig_camera *cam = &rig->cameras[c];
        if (cam->width < 2 || cam->height < 2 || !(cam->fx > 0.0) || !(cam->fy > 0.0))
            continue;
        for (int j = 0; j <= gy; j++) {
            for (int i = 0; i <= gx; i++) {
                double d[3], u, v;
                fovea_pano_dir(rig, (rig->width - 1.0) * i / gx, (rig->height - 1.0) * j / gy, d);
                if (!fovea_rig_dir_to_camera(rig, c, d, &u, &v) ||
                    !fovea_inside_image(u, v, cam->width, cam->height))
                    continue;
                u = u > cam->width - 2.0 ? cam->width - 2.0 : u;
                v = v > cam->height - 2.0 ? cam->height - 2.0 : v;
                double ah = camera_step_angle(cam, u, v, 1.0, 0.0);
                double av = camera_step_angle(cam, u, v, 0.0, 1.0);
                pitch = ah > pitch ? ah : pitch;
                pitch = av > pitch ? av : pitch;
            }
        }
    }
    return pitch;
}

typedef struct render_job {
    const fovea_scene *s;
    const fovea_rig *rig;
    const fovea_rig_camera *cam;   /* NULL: the panorama */
    double rot[3][3];              /* panorama or camera rotation (to world) */
    fovea_color_response resp;
    int use_resp;
    fovea_frame *out;
    int width, height, bpp;
    atomic_int failed;
} render_job;

/* One pixel center's direction. */
typedef struct center_dir {
    double d[3];
    int ok;
} center_dir;

/* Exact world direction of pixel center / image point (x, y). */
static int exact_dir(const render_job *job, double x, double y, double d[3])
{
    double p[3];
    if (job->cam) {
        if (!fovea_camera_unproject(job->cam, x, y, p))
            return 0;
    } else {
        fovea_pano_dir0(job->rig, x, y, p);
    }
    fovea_mat_vec(job->rot, p, d);
    return 1;
}

/* Directions of the centers of row y, columns -1..width (width + 2 entries). */
static void fill_row(const render_job *job, int y, center_dir *row)
{
    for (int i = -1; i <= job->width; i++) {
        center_dir *c = &row[i + 1];
        c->ok = exact_dir(job, i, y, c->d);
    }
}

static inline uint8_t to_u8(double v)
{
    double r = floor(v + 0.5);
    return (uint8_t)(r < 0.0 ? 0.0 : (r > 255.0 ? 255.0 : r));
}

static void render_rows(void *arg, int begin, int end, int thread)
{
    render_job *job = arg;
    const int w = job->width, n = job->s->p.supersample;
    size_t row_len = (size_t)w + 2;
    center_dir *buf = malloc(3 * row_len * sizeof(*buf));
    if (!buf) {
        atomic_store(&job->failed, 1);
        return;
    }
    /* rows[0..2] hold centers of rows j-1, j, j+1 */
    center_dir *rows[3] = {buf, buf + row_len, buf + 2 * row_len};
    fill_row(job, begin - 1, rows[0]);
    fill_row(job, begin, rows[1]);
    for (int j = begin; j < end; j++) {
        if (j > begin) {
            center_dir *t = rows[0];
            rows[0] = rows[1];
            rows[1] = rows[2];
            rows[2] = t;
        }
        fill_row(job, j + 1, rows[2]);
        uint8_t *dst = job->out->data[0] + (ptrdiff_t)j * job->out->stride[0];
        for (int i = 0; i < w; i++) {
            double acc[3] = {0.0, 0.0, 0.0};
            int count = 0;
            for (int b = 0; b < n; b++) {
                double oy = (b + 0.5) / n - 0.5;
                int ry = oy < 0.0 ? 0 : 1; /* upper of the two center rows */
                double fy = oy < 0.0 ? oy + 1.0 : oy;
                for (int a = 0; a < n; a++) {
                    double ox = (a + 0.5) / n - 0.5;
                    int cx = ox < 0.0 ? i : i + 1; /* row index of the left center (column + 1) */
                    double fx = ox < 0.0 ? ox + 1.0 : ox;
                    const center_dir *c00 = &rows[ry][cx], *c10 = &rows[ry][cx + 1];
                    const center_dir *c01 = &rows[ry + 1][cx], *c11 = &rows[ry + 1][cx + 1];
                    double d[3];
                    if (c00->ok && c10->ok && c01->ok && c11->ok) {
                        for (int k = 0; k < 3; k++) {
                            double top = c00->d[k] + (c10->d[k] - c00->d[k]) * fx;
                            double bot = c01->d[k] + (c11->d[k] - c01->d[k]) * fx;
                            d[k] = top + (bot - top) * fy;
                        }
                    } else if (!exact_dir(job, i + ox, j + oy, d)) {
                        continue;
                    }
                    float rgb[3];
                    fovea_scene_color(job->s, d[0], d[1], d[2], rgb);
                    acc[0] += rgb[0];
                    acc[1] += rgb[1];
                    acc[2] += rgb[2];
                    count++;
                }
            }
            uint8_t *px = dst + (ptrdiff_t)i * job->bpp;
            for (int k = 0; k < 3; k++) {
                float v = count ? (float)(acc[k] / count) : 0.0f;
                if (job->use_resp && count)
                    v = fovea_color_response_apply(&job->resp, k, v);
                px[k] = to_u8(v);
            }
            if (job->bpp == 4)
                px[3] = 255;
        }
    }
    free(buf);
}

static int check_out(fovea_context *ctx, const fovea_frame *out, int w, int h, int *bpp)
{
    if (!out || !out->data[0])
        return fovea_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "scene render: no output frame");
    if (out->mem != FOVEA_MEM_HOST && out->mem != FOVEA_MEM_PINNED)
        return fovea_ctx_error(ctx, FOVEA_ERR_MISMATCH, "scene render: output must be host memory");
    if (out->fmt != FOVEA_PIX_RGBA && out->fmt != FOVEA_PIX_RGB24)
        return fovea_ctx_error(ctx, FOVEA_ERR_MISMATCH, "scene render: output must be rgba or rgb24");
    if (out->width != w || out->height != h)
        return fovea_ctx_error(ctx, FOVEA_ERR_MISMATCH,
                               "scene render: output is %dx%d, expected %dx%d", out->width,
                               out->height, w, h);
    *bpp = out->fmt == FOVEA_PIX_RGBA ? 4 : 3;
    return FOVEA_OK;
}

static int run_job(fovea_context *ctx, render_job *job)
{
    atomic_init(&job->failed, 0);
    fovea_parallel_for(ctx, job->height, 8, render_rows, job);
    if (atomic_load(&job->failed))
        return fovea_ctx_error(ctx, FOVEA_ERR_NOMEM, "scene render: out of memory");
    return FOVEA_OK;
}

int fovea_scene_render_panorama(fovea_context *ctx, const fovea_scene *s, const fovea_rig *rig,
                                fovea_frame *out)
{
    if (!s || !rig)
        return fovea_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "scene render: NULL scene or rig");
    if (rig->width < 1 || rig->height < 1 || rig->width > FOVEA_MAX_DIM ||
        rig->height > FOVEA_MAX_DIM || !(rig->hfov > 0.0))
        return fovea_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "scene render: invalid panorama");
    render_job job;
    memset(&job, 0, sizeof(job));
    int st = check_out(ctx, out, rig->width, rig->height, &job.bpp);
    if (st != FOVEA_OK)
        return st;
    job.s = s;
    job.rig = rig;
    job.out = out;
    job.width = rig->width;
    job.height = rig->height;
    fovea_rotation(rig->yaw, rig->pitch, 0.0, job.rot);
    return run_job(ctx, &job);
}

int fovea_scene_render_camera(fovea_context *ctx, const fovea_scene *s, const fovea_rig *rig,
                              int cam, const fovea_color_response *resp, fovea_frame *out)
{
    if (!s || !rig)
        return fovea_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "scene render: NULL scene or rig");
    if (cam < 0 || cam >= rig->num_cameras || cam >= FOVEA_RIG_MAX_CAMERAS)
        return fovea_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "scene render: no camera %d", cam);
    const fovea_rig_camera *c = &rig->cameras[cam];
    if (c->width < 1 || c->height < 1 || c->width > FOVEA_MAX_DIM ||
        c->height > FOVEA_MAX_DIM || !(c->fx > 0.0) || !(c->fy > 0.0))
        return fovea_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "scene render: invalid camera %d",
                               cam);
    if (resp && !(resp->gamma > 0.0f))
        return fovea_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "scene render: gamma must be > 0");
    render_job job;
    memset(&job, 0, sizeof(job));
    int st = check_out(ctx, out, c->width, c->height, &job.bpp);
    if (st != FOVEA_OK)
        return st;
    job.s = s;
    job.rig = rig;
    job.cam = c;
    job.out = out;
    job.width = c->width;
    job.height = c->height;
    if (resp) {
        job.resp = *resp;
        job.use_resp = 1;
    }
    fovea_rotation(c->yaw, c->pitch, c->roll, job.rot);
    return run_job(ctx, &job);
}
