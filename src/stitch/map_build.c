/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Stitch map builder: grid nodes from the exact projection (geometry.c), then a
 * check of the float lookup against the exact projection at every panorama pixel
 * to pick the coarsest grid step per camera that meets the tolerance. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "stitch/geometry.h"
#include "stitch/map_build.h"

#define MAX_CANDIDATES 6

void fv_map_build_default_options(fv_map_build_options *opt)
{
    memset(opt, 0, sizeof(*opt));
    opt->max_step = 16;
    opt->tolerance = 0.01;
}

/* One camera's exact projection with the panorama and camera rotations folded
 * into a single matrix (panorama d0 -> camera frame). */
typedef struct {
    const fovea_rig *rig;
    const fovea_rig_camera *cam;
    double m[3][3];
    double lim_exact; /* spec visibility limit (fisheye), radians */
    double lim_ext;   /* limit of the extended projection stored in nodes */
} cam_proj;

static void cam_proj_init(cam_proj *p, const fovea_rig *rig, int c, int max_step)
{
    double rp[3][3], rc[3][3];
    p->rig = rig;
    p->cam = &rig->cameras[c];
    fv_rotation(rig->yaw, rig->pitch, 0.0, rp);
    fv_rotation(p->cam->yaw, p->cam->pitch, p->cam->roll, rc);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            p->m[i][j] = rc[0][i] * rp[0][j] + rc[1][i] * rp[1][j] + rc[2][i] * rp[2][j];
    p->lim_exact = fv_camera_limit(rig, p->cam);
    p->lim_ext = p->lim_exact;
    if (p->cam->model == FOVEA_CAM_FISHEYE) {
        /* a pixel is at most a cell diagonal (step * sqrt 2 pixel pitches) from its
         * nodes; with margin, every node of a cell holding a visible pixel is finite */
        double pitch = rig->hfov * FOVEA_DEG2RAD / rig->width;
        if (rig->projection == FOVEA_PROJ_EQUIRECTANGULAR &&
            rig->vfov * FOVEA_DEG2RAD / rig->height > pitch)
            pitch = rig->vfov * FOVEA_DEG2RAD / rig->height;
        double extra = FOVEA_MAP_FISHEYE_EXTRA_CELLS * max_step * pitch;
        if (extra > FOVEA_MAP_FISHEYE_EXTRA_MAX_DEG * FOVEA_DEG2RAD)
            extra = FOVEA_MAP_FISHEYE_EXTRA_MAX_DEG * FOVEA_DEG2RAD;
        double ext = p->lim_exact + extra;
        double fold = fv_fisheye_fold_theta(p->cam->dist);
        if (ext > fold)
            ext = fold;
        if (ext > FOVEA_PI)
            ext = FOVEA_PI;
        if (ext > p->lim_ext)
            p->lim_ext = ext;
    }
}

/* Project d0. Returns 1 when the extended projection is defined; *exact gets 1 when
 * the spec's own projection is defined too. */
static int cam_proj_eval(const cam_proj *p, const double d0[3], double *u, double *v, int *exact)
{
    double q[3];
    fv_mat_vec(p->m, d0, q);
    if (fv_camera_project(p->cam, p->lim_exact, q, u, v)) {
        *exact = 1;
        return 1;
    }
    *exact = 0;
    return p->lim_ext > p->lim_exact && fv_camera_project(p->cam, p->lim_ext, q, u, v);
}

/* ------------------------------------------------------------------ nodes */

/* Row factors of the panorama direction: d0 = (a * sin lon, b, a * cos lon), the
 * formulas of fv_pano_dir0() split into a column and a row part. */
static void pano_row(const fovea_rig *rig, double j, double *a, double *b)
{
    if (rig->projection == FOVEA_PROJ_CYLINDRICAL) {
        double hh = (j + 0.5 - rig->height / 2.0) * (rig->hfov * FOVEA_DEG2RAD / rig->width);
        double n = sqrt(1.0 + hh * hh);
        *a = 1.0 / n;
        *b = hh / n;
    } else {
        double lat = (j + 0.5 - rig->height / 2.0) * (rig->vfov * FOVEA_DEG2RAD) / rig->height;
        *a = cos(lat);
        *b = sin(lat);
    }
}

typedef struct {
    const cam_proj *proj;
    fv_camera_map *grid;
    const double *col; /* per node column: sin lon, then cos lon */
} fill_job;

static void fill_rows(void *arg, int begin, int end, int thread)
{
    const fill_job *job = arg;
    fv_camera_map *g = job->grid;
    const double *cs = job->col, *cc = job->col + g->grid_w;
    for (int gy = begin; gy < end; gy++) {
        float *row = g->uv + (size_t)gy * (size_t)g->grid_w * 2;
        double ra, rb;
        pano_row(job->proj->rig, (double)gy * g->step, &ra, &rb);
        for (int gx = 0; gx < g->grid_w; gx++) {
            double d0[3] = {ra * cs[gx], rb, ra * cc[gx]}, u, v;
            int exact;
            float fu = NAN, fv = NAN;
            if (cam_proj_eval(job->proj, d0, &u, &v, &exact)) {
                fu = (float)u;
                fv = (float)v;
                if (!isfinite(fu) || !isfinite(fv))
                    fu = fv = NAN;
            }
            row[2 * gx] = fu;
            row[2 * gx + 1] = fv;
        }
    }
}

/* ------------------------------------------------------------------ check */

typedef struct {
    double max_err;
    int64_t seen_exact, seen_lookup, bad;
} row_result;

typedef struct {
    const cam_proj *proj;
    const fv_camera_map *cand[MAX_CANDIDATES];
    int ncand;
    atomic_int failed[MAX_CANDIDATES]; /* set once a candidate fails: skip it after */
    int allow_skip;                    /* 0: check every pixel (complete statistics) */
    double tol;
    const double *col_sin, *col_cos; /* per panorama column: sin/cos lon */
    row_result *rows;                /* pano_h * ncand */
} check_job;

static void check_rows(void *arg, int begin, int end, int thread)
{
    check_job *job = arg; /* failed[] is written */
    const fovea_rig *rig = job->proj->rig;
    const fovea_rig_camera *cam = job->proj->cam;
    for (int j = begin; j < end; j++) {
        row_result *res = job->rows + (size_t)j * job->ncand;
        int skip[MAX_CANDIDATES];
        for (int k = 0; k < job->ncand; k++) {
            memset(&res[k], 0, sizeof(res[k]));
            skip[k] =
                job->allow_skip && atomic_load_explicit(&job->failed[k], memory_order_relaxed);
        }
        double ra, rb;
        pano_row(rig, j, &ra, &rb);
        for (int i = 0; i < rig->width; i++) {
            double d0[3] = {ra * job->col_sin[i], rb, ra * job->col_cos[i]};
            double eu = NAN, ev = NAN;
            int exact = 0;
            int ext = cam_proj_eval(job->proj, d0, &eu, &ev, &exact);
            int exact_seen = exact && fv_inside_image(eu, ev, cam->width, cam->height);
            for (int k = 0; k < job->ncand; k++) {
                if (skip[k])
                    continue;
                float lu, lv;
                int lseen = fv_camera_map_lookup(job->cand[k], i, j, &lu, &lv);
                if (!exact_seen && !lseen)
                    continue;
                res[k].seen_exact += exact_seen;
                res[k].seen_lookup += lseen;
                if (!ext || !isfinite(lu) || !isfinite(lv)) {
                    res[k].bad++;
                    continue;
                }
                double err = fmax(fabs((double)lu - eu), fabs((double)lv - ev));
                if (err > res[k].max_err)
                    res[k].max_err = err;
                if (!(err <= job->tol))
                    res[k].bad++;
            }
        }
        /* a failed candidate is out: the rows after need not check it (whether a
         * row skipped it or not, it fails; passing candidates are checked fully) */
        for (int k = 0; k < job->ncand; k++)
            if (res[k].bad && !skip[k])
                atomic_store_explicit(&job->failed[k], 1, memory_order_relaxed);
    }
}

/* ------------------------------------------------------------------ build */

/* sin and cos of the longitude of columns 0, step, 2 step, ... (n of each). */
static void lon_table(const fovea_rig *rig, int n, int step, double *out)
{
    for (int k = 0; k < n; k++) {
        double x = (double)k * step;
        double lon = (x + 0.5 - rig->width / 2.0) * (rig->hfov * FOVEA_DEG2RAD) / rig->width;
        out[k] = sin(lon);
        out[n + k] = cos(lon);
    }
}

static void free_grid(fv_camera_map *g)
{
    free(g->uv);
    g->uv = NULL;
}

/* x as a float within [lo, hi] (the map's float parameters, see build_camera) */
static float float_within(double x, double lo, double hi)
{
    return (float)fmin(fmax(x, lo), hi);
}

static int build_camera(fovea_context *ctx, const fovea_rig *rig, int c,
                        const fv_map_build_options *opt, fv_camera_map *out,
                        fovea_stitch_map_camera_stats *st)
{
    const fovea_rig_camera *rc = &rig->cameras[c];
    cam_proj proj;
    cam_proj_init(&proj, rig, c, opt->max_step);

    fv_camera_map tmpl;
    memset(&tmpl, 0, sizeof(tmpl));
    tmpl.cam_width = rc->width;
    tmpl.cam_height = rc->height;
    /* Kept within [1e-30, 1e30]: absurd but valid focal lengths (1e300) would
     * make it 0 or infinite as a float, a map no file could hold. */
    tmpl.px_scale = float_within((rig->width / (rig->hfov * FOVEA_DEG2RAD)) / rc->fx, 1e-30, 1e30);
    if (rc->model == FOVEA_CAM_FISHEYE) {
        double td = fv_fisheye_td(rc->dist, proj.lim_exact);
        /* within [-1e30, 1e30] and radii within [1e-30, 1e30], as px_scale: a
         * float center or radius of infinity, or radius 0, would be no ellipse
         * or an invalid one (the ellipse of such a camera is off its image) */
        tmpl.clip_cx = float_within(rc->cx, -1e30, 1e30);
        tmpl.clip_cy = float_within(rc->cy, -1e30, 1e30);
        tmpl.clip_rx = float_within(rc->fx * td, 1e-30, 1e30);
        tmpl.clip_ry = float_within(rc->fy * td, 1e-30, 1e30);
    }

    int W = rig->width, H = rig->height;
    fv_camera_map grids[MAX_CANDIDATES];
    int steps[MAX_CANDIDATES];
    int ncand = 0;
    for (int s = opt->max_step; s >= 2; s /= 2)
        steps[ncand++] = s;

    double *col = malloc(sizeof(double) * 2 * (size_t)W);
    row_result *rows = malloc(sizeof(row_result) * (size_t)H * MAX_CANDIDATES);
    int rc_status = FOVEA_OK;
    for (int k = 0; k < MAX_CANDIDATES; k++)
        grids[k] = tmpl;
    if (!col || !rows) {
        rc_status = FOVEA_ERR_NOMEM;
        goto done;
    }
    lon_table(rig, W, 1, col);

    int chosen = -1;
    for (int pass = 0; pass < 2 && chosen < 0; pass++) {
        if (pass == 1) {
            /* nothing coarser passed: the exact path */
            for (int k = 0; k < ncand; k++)
                free_grid(&grids[k]);
            steps[0] = 1;
            ncand = 1;
        }
        if (ncand == 0)
            continue;
        for (int k = 0; k < ncand; k++) {
            rc_status = fv_camera_map_alloc(&grids[k], W, H, steps[k]);
            if (rc_status < 0)
                goto done;
            int gw = grids[k].grid_w;
            double *ncol = malloc(sizeof(double) * 2 * (size_t)gw);
            if (!ncol) {
                rc_status = FOVEA_ERR_NOMEM;
                goto done;
            }
            lon_table(rig, gw, steps[k], ncol);
            fill_job fj = {&proj, &grids[k], ncol};
            fv_parallel_for(ctx, grids[k].grid_h, 1, fill_rows, &fj);
            free(ncol);
        }
        check_job cj;
        memset(&cj, 0, sizeof(cj));
        for (int k = 0; k < MAX_CANDIDATES; k++)
            atomic_init(&cj.failed[k], 0);
        cj.proj = &proj;
        for (int k = 0; k < ncand; k++)
            cj.cand[k] = &grids[k];
        cj.ncand = ncand;
        cj.allow_skip = steps[0] != 1;
        cj.tol = opt->tolerance;
        cj.col_sin = col;
        cj.col_cos = col + W;
        cj.rows = rows;
        fv_parallel_for(ctx, H, 4, check_rows, &cj);

        fovea_stitch_map_camera_stats cs[MAX_CANDIDATES];
        memset(cs, 0, sizeof(cs));
        for (int k = 0; k < ncand; k++) {
            cs[k].step = steps[k];
            for (int j = 0; j < H; j++) {
                const row_result *r = &rows[(size_t)j * ncand + k];
                if (r->max_err > cs[k].max_err)
                    cs[k].max_err = r->max_err;
                cs[k].seen_exact += r->seen_exact;
                cs[k].seen_lookup += r->seen_lookup;
                cs[k].bad += r->bad;
            }
        }
        for (int k = 0; k < ncand && chosen < 0; k++)
            if (cs[k].bad == 0 && !atomic_load(&cj.failed[k]))
                chosen = k;
        if (chosen < 0 && steps[0] == 1) {
            chosen = 0;
            cs[0].fallback = 1;
        }
        if (chosen >= 0)
            *st = cs[chosen];
    }
    if (chosen < 0) {
        rc_status = fv_ctx_error(ctx, FOVEA_ERR_INTERNAL, "map build: no grid chosen");
        goto done;
    }
    *out = grids[chosen];
    grids[chosen].uv = NULL;
done:
    for (int k = 0; k < MAX_CANDIDATES; k++)
        free_grid(&grids[k]);
    free(col);
    free(rows);
    if (rc_status == FOVEA_ERR_NOMEM)
        fv_ctx_error(ctx, rc_status, "map build: out of memory (camera %d)", c);
    return rc_status;
}

int fv_map_build(fovea_context *ctx, const fovea_rig *rig, fovea_stitch_map *map,
                 const fv_map_build_options *opt_in)
{
    if (!rig || !map)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "map build: NULL argument");
    memset(map, 0, sizeof(*map));
    fv_map_build_options opt;
    if (opt_in)
        opt = *opt_in;
    else
        fv_map_build_default_options(&opt);
    char msg[256];
    if (fv_rig_validate_buf(rig, msg, sizeof(msg)) < 0)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "map build: invalid rig: %s", msg);
    int s = opt.max_step;
    if (!(s == 1 || s == 2 || s == 4 || s == 8 || s == 16 || s == 32))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "map build: max_step %d is not 1, 2, 4, 8, 16 or 32", s);
    if (!(opt.tolerance > 0.0) || !isfinite(opt.tolerance))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "map build: tolerance must be a finite number > 0");

    fovea_stitch_map_stats stats;
    memset(&stats, 0, sizeof(stats));
    map->pano_width = rig->width;
    map->pano_height = rig->height;
    map->num_cameras = rig->num_cameras;
    map->feather = (float)rig->feather;
    for (int c = 0; c < rig->num_cameras; c++)
        map->photo[c] = rig->cameras[c].photometric;
    map->photo_exposure = rig->photo_exposure;
    memcpy(map->photo_emor, rig->photo_emor, sizeof(map->photo_emor));
    map->photo_linear_response = rig->photo_linear_response;
    stats.num_cameras = rig->num_cameras;
    for (int c = 0; c < rig->num_cameras; c++) {
        int rc = build_camera(ctx, rig, c, &opt, &map->cam[c], &stats.cam[c]);
        if (rc < 0) {
            fv_stitch_map_free(map);
            return rc;
        }
    }
    if (opt.stats)
        *opt.stats = stats;
    return FOVEA_OK;
}
