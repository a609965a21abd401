/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Rendering the synthetic scene: a ground-truth panorama of a rig, or the image
 * one rig camera sees (inverse lens model, camera rotation, color response).
 * Exact directions are computed once per pixel center (fovea/rig.h); the
 * n x n sub-samples of a pixel interpolate the directions of the centers around
 * them, which is exact to far below a pixel (directions vary smoothly). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/rig.h"
#include "scene.h"

#define DEG2RAD (3.14159265358979323846 / 180.0)

/* 1 when (u, v) lies inside a w x h image: 0 <= u <= w-1 and 0 <= v <= h-1. */
static int inside_image(double u, double v, int w, int h)
{
    return u >= 0.0 && u <= (double)(w - 1) && v >= 0.0 && v <= (double)(h - 1);
}

float color_response_apply(const color_response *r, int k, float in)
{
    double x = (double)r->gain[k] * in / 255.0;
    x = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
    if (r->gamma != 1.0f)
        x = pow(x, r->gamma);
    double out = 255.0 * x + r->offset[k];
    return (float)(out < 0.0 ? 0.0 : (out > 255.0 ? 255.0 : out));
}

/* Angle between the world directions of image points (u, v) and (u + du, v + dv)
 * of camera cam; 0 when either has no direction. */
static double camera_step_angle(const fovea_rig *rig, int cam, double u, double v, double du,
                                double dv)
{
    double a[3], b[3];
    if (!fovea_rig_camera_to_dir(rig, cam, u, v, a) ||
        !fovea_rig_camera_to_dir(rig, cam, u + du, v + dv, b))
        return 0.0;
    double cx = a[1] * b[2] - a[2] * b[1], cy = a[2] * b[0] - a[0] * b[2];
    double cz = a[0] * b[1] - a[1] * b[0];
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
}

double scene_rig_pitch(const fovea_rig *rig)
{
    fovea_rig_panorama p;
    if (fovea_rig_get_panorama(rig, &p) < 0 || p.width <= 0)
        return 0.0;
    return p.hfov * DEG2RAD / p.width;
}

double scene_rig_coarsest_pitch(const fovea_rig *rig)
{
    fovea_rig_panorama p;
    if (fovea_rig_get_panorama(rig, &p) < 0 || p.width <= 0 || p.height <= 0)
        return 0.0;
    double pitch = p.hfov * DEG2RAD / p.width;
    if (p.projection == FOVEA_PROJ_EQUIRECTANGULAR) {
        double v = p.vfov * DEG2RAD / p.height;
        pitch = v > pitch ? v : pitch;
    }
    /* cameras: the largest pixel angle where a camera sees the panorama, over a
     * grid of panorama points */
    const int gx = 48, gy = 24;
    const int n = fovea_rig_num_cameras(rig);
    for (int c = 0; c < n && c < FOVEA_RIG_MAX_CAMERAS; c++) {
        fovea_rig_camera cam;
        if (fovea_rig_get_camera(rig, c, &cam) < 0 || cam.width < 2 || cam.height < 2 ||
            !(cam.fx > 0.0) || !(cam.fy > 0.0))
            continue;
        for (int j = 0; j <= gy; j++) {
            for (int i = 0; i <= gx; i++) {
                double d[3], u, v;
                fovea_rig_panorama_to_dir(rig, (p.width - 1.0) * i / gx, (p.height - 1.0) * j / gy,
                                          d);
                if (!fovea_rig_dir_to_camera(rig, c, d, &u, &v) ||
                    !inside_image(u, v, cam.width, cam.height))
                    continue;
                u = u > cam.width - 2.0 ? cam.width - 2.0 : u;
                v = v > cam.height - 2.0 ? cam.height - 2.0 : v;
                double ah = camera_step_angle(rig, c, u, v, 1.0, 0.0);
                double av = camera_step_angle(rig, c, u, v, 0.0, 1.0);
                pitch = ah > pitch ? ah : pitch;
                pitch = av > pitch ? av : pitch;
            }
        }
    }
    return pitch;
}

typedef struct render_job {
    const scene_model *s;
    const fovea_rig *rig;
    int cam; /* camera index, or -1: the panorama */
    color_response resp;
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
    if (job->cam >= 0)
        return fovea_rig_camera_to_dir(job->rig, job->cam, x, y, d);
    return fovea_rig_panorama_to_dir(job->rig, x, y, d) == FOVEA_OK;
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
                    scene_color(job->s, d[0], d[1], d[2], rgb);
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
                    v = color_response_apply(&job->resp, k, v);
                px[k] = to_u8(v);
            }
            if (job->bpp == 4)
                px[3] = 255;
        }
    }
    free(buf);
}

static int check_out(const fovea_frame *out, int w, int h, int *bpp)
{
    if (!out || !out->data[0])
        return FOVEA_ERR_INVALID_ARG;
    if (out->mem != FOVEA_MEM_HOST && out->mem != FOVEA_MEM_PINNED)
        return FOVEA_ERR_MISMATCH;
    if (out->fmt != FOVEA_PIX_RGBA && out->fmt != FOVEA_PIX_RGB24)
        return FOVEA_ERR_MISMATCH;
    if (out->width != w || out->height != h)
        return FOVEA_ERR_MISMATCH;
    *bpp = out->fmt == FOVEA_PIX_RGBA ? 4 : 3;
    return FOVEA_OK;
}

/* Rows are handed out in chunks of ROWS_PER_CHUNK to the context's number of
 * threads (the caller's included); every pixel is a function of the scene and
 * the rig alone, so the image does not depend on the split. */
#define ROWS_PER_CHUNK 8

typedef struct render_pool {
    render_job *job;
    atomic_int next;
} render_pool;

static void *render_worker(void *arg)
{
    render_pool *pool = arg;
    for (;;) {
        int begin = atomic_fetch_add(&pool->next, ROWS_PER_CHUNK);
        if (begin >= pool->job->height)
            break;
        int end =
            begin + ROWS_PER_CHUNK < pool->job->height ? begin + ROWS_PER_CHUNK : pool->job->height;
        render_rows(pool->job, begin, end, 0);
    }
    return NULL;
}

static int run_job(fovea_context *ctx, render_job *job)
{
    atomic_init(&job->failed, 0);
    render_pool pool;
    pool.job = job;
    atomic_init(&pool.next, 0);
    int threads = ctx ? fovea_context_threads(ctx) : 1;
    int chunks = (job->height + ROWS_PER_CHUNK - 1) / ROWS_PER_CHUNK;
    threads = threads < chunks ? threads : chunks;
    threads = threads < 1 ? 1 : (threads > 256 ? 256 : threads);
    pthread_t tid[256];
    int started = 0;
    while (started < threads - 1 && pthread_create(&tid[started], NULL, render_worker, &pool) == 0)
        started++;
    render_worker(&pool); /* with no thread started, the caller renders it all */
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    return atomic_load(&job->failed) ? FOVEA_ERR_NOMEM : FOVEA_OK;
}

int scene_render_panorama(fovea_context *ctx, const scene_model *s, const fovea_rig *rig,
                          fovea_frame *out)
{
    fovea_rig_panorama p;
    if (!s || !rig || fovea_rig_get_panorama(rig, &p) < 0)
        return FOVEA_ERR_INVALID_ARG;
    if (p.width < 1 || p.height < 1 || p.width > FOVEA_MAX_DIM || p.height > FOVEA_MAX_DIM ||
        !(p.hfov > 0.0))
        return FOVEA_ERR_INVALID_ARG;
    render_job job;
    memset(&job, 0, sizeof(job));
    int st = check_out(out, p.width, p.height, &job.bpp);
    if (st != FOVEA_OK)
        return st;
    job.s = s;
    job.rig = rig;
    job.cam = -1;
    job.out = out;
    job.width = p.width;
    job.height = p.height;
    return run_job(ctx, &job);
}

int scene_render_camera(fovea_context *ctx, const scene_model *s, const fovea_rig *rig, int cam,
                        const color_response *resp, fovea_frame *out)
{
    fovea_rig_camera c;
    if (!s || !rig || cam < 0 || cam >= FOVEA_RIG_MAX_CAMERAS ||
        fovea_rig_get_camera(rig, cam, &c) < 0)
        return FOVEA_ERR_INVALID_ARG;
    if (c.width < 1 || c.height < 1 || c.width > FOVEA_MAX_DIM || c.height > FOVEA_MAX_DIM ||
        !(c.fx > 0.0) || !(c.fy > 0.0))
        return FOVEA_ERR_INVALID_ARG;
    if (resp && !(resp->gamma > 0.0f))
        return FOVEA_ERR_INVALID_ARG;
    render_job job;
    memset(&job, 0, sizeof(job));
    int st = check_out(out, c.width, c.height, &job.bpp);
    if (st != FOVEA_OK)
        return st;
    job.s = s;
    job.rig = rig;
    job.cam = cam;
    job.out = out;
    job.width = c.width;
    job.height = c.height;
    if (resp) {
        job.resp = *resp;
        job.use_resp = 1;
    }
    return run_job(ctx, &job);
}
