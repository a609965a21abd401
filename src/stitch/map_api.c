/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Public map handle: construction from a rig, map files and imported tables,
 * and the deep copy the stitcher keeps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fovea/stitch.h"
#include "stitch/coverage.h"
#include "stitch/map_build.h"
#include "stitch/map_file.h"
#include "stitch/map_import.h"
#include "stitch/rig.h"
#include "stitch/stitch_internal.h"

static int new_map(fovea_stitch_map **out)
{
    *out = calloc(1, sizeof(**out));
    return *out ? FOVEA_OK : FOVEA_ERR_NOMEM;
}

static int map_from_rig_buf(fovea_context *ctx, const char *rig_path, fovea_stitch_map **map,
                            char *err, size_t errsz)
{
    if (!rig_path || !map)
        return FOVEA_ERR_INVALID_ARG;
    *map = NULL;
    fovea_rig rig;
    int st = fv_rig_load(rig_path, &rig, err, errsz);
    if (st < 0)
        return st;
    if ((st = new_map(map)) < 0)
        return st;
    fv_map_build_options opt;
    fv_map_build_default_options(&opt);
    st = fv_map_build(ctx, &rig, *map, &opt);
    if (st < 0) {
        if (err && errsz) /* ctx's message is read before ctx records err */
            snprintf(err, errsz, "%s: cannot build the map: %s", rig_path,
                     ctx && fovea_last_error(ctx)[0] ? fovea_last_error(ctx) : fovea_strerror(st));
        fovea_stitch_map_close(map);
    }
    return st;
}

static int map_load_buf(const char *path, fovea_stitch_map **map, char *err, size_t errsz)
{
    if (!path || !map)
        return FOVEA_ERR_INVALID_ARG;
    int st = new_map(map);
    if (st < 0)
        return st;
    st = fv_map_load(path, *map, err, errsz);
    if (st < 0)
        fovea_stitch_map_close(map);
    return st;
}

static int map_save_buf(const fovea_stitch_map *map, const char *path, char *err, size_t errsz)
{
    if (!map || !path)
        return FOVEA_ERR_INVALID_ARG;
    return fv_map_save(map, path, err, errsz);
}

static int map_import_buf(const char *dir, int pano_w, int pano_h, int cam_w, int cam_h,
                          fovea_stitch_map **map, char *err, size_t errsz)
{
    if (!dir || !map)
        return FOVEA_ERR_INVALID_ARG;
    int st = new_map(map);
    if (st < 0)
        return st;
    st = fv_map_import_tables(dir, pano_w, pano_h, cam_w, cam_h, 64.0f, *map, err, errsz);
    if (st < 0)
        fovea_stitch_map_close(map);
    return st;
}

int fovea_stitch_map_open_rig_file(fovea_stitch_map **map, fovea_context *ctx, const char *rig_path)
{
    char err[FOVEA_ERRLEN] = "";
    int st = map_from_rig_buf(ctx, rig_path, map, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}

int fovea_stitch_map_open_file(fovea_stitch_map **map, fovea_context *ctx, const char *path)
{
    char err[FOVEA_ERRLEN] = "";
    int st = map_load_buf(path, map, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}

int fovea_stitch_map_save(const fovea_stitch_map *map, fovea_context *ctx, const char *path)
{
    char err[FOVEA_ERRLEN] = "";
    int st = map_save_buf(map, path, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}

int fovea_stitch_map_open_tables(fovea_stitch_map **map, fovea_context *ctx, const char *dir,
                                 int pano_w, int pano_h, int cam_w, int cam_h)
{
    char err[FOVEA_ERRLEN] = "";
    int st = map_import_buf(dir, pano_w, pano_h, cam_w, cam_h, map, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}

void fovea_stitch_map_geometry(const fovea_stitch_map *map, int *pano_w, int *pano_h,
                               int *num_cameras)
{
    if (pano_w)
        *pano_w = map ? map->pano_width : 0;
    if (pano_h)
        *pano_h = map ? map->pano_height : 0;
    if (num_cameras)
        *num_cameras = map ? map->num_cameras : 0;
}

void fovea_stitch_map_camera_size(const fovea_stitch_map *map, int cam, int *w, int *h)
{
    int ok = map && cam >= 0 && cam < map->num_cameras;
    if (w)
        *w = ok ? map->cam[cam].cam_width : 0;
    if (h)
        *h = ok ? map->cam[cam].cam_height : 0;
}

int fovea_stitch_map_covers_any(const fovea_stitch_map *map)
{
    if (!map || map->num_cameras < 1 || map->num_cameras > FOVEA_STITCH_MAX_CAMERAS)
        return FOVEA_ERR_INVALID_ARG;
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    for (int j = 0; j < map->pano_height; j++)
        for (int i = 0; i < map->pano_width; i++)
            if (fv_map_weights(map, i, j, w, u, v) > 0)
                return 1;
    return 0;
}

void fovea_stitch_map_default_settings(fovea_stitch_map_settings *s)
{
    if (!s)
        return;
    fv_map_build_options opt;
    fv_map_build_default_options(&opt);
    memset(s, 0, sizeof(*s));
    s->max_step = opt.max_step;
    s->tolerance = opt.tolerance;
}

int fovea_stitch_map_open_rig(fovea_stitch_map **map, fovea_context *ctx, const fovea_rig *rig,
                              const fovea_stitch_map_settings *s, fovea_stitch_map_stats *stats)
{
    if (!map)
        return FOVEA_ERR_INVALID_ARG;
    *map = NULL;
    if (!rig)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "map build: NULL rig");
    fv_map_build_options opt;
    fv_map_build_default_options(&opt);
    if (s) {
        opt.max_step = s->max_step;
        opt.tolerance = s->tolerance;
    }
    opt.stats = stats;
    int st = new_map(map);
    if (st < 0)
        return st;
    st = fv_map_build(ctx, rig, *map, &opt);
    if (st < 0)
        fovea_stitch_map_close(map);
    return st;
}

int fovea_stitch_map_get_camera_info(const fovea_stitch_map *map, int cam,
                                     fovea_stitch_map_camera_info *info)
{
    if (!map || !info || cam < 0 || cam >= map->num_cameras || cam >= FOVEA_STITCH_MAX_CAMERAS)
        return FOVEA_ERR_INVALID_ARG;
    const fv_camera_map *cm = &map->cam[cam];
    memset(info, 0, sizeof(*info));
    info->width = cm->cam_width;
    info->height = cm->cam_height;
    info->grid_step = cm->step;
    info->grid_width = cm->grid_w;
    info->grid_height = cm->grid_h;
    info->px_scale = cm->px_scale;
    info->fisheye_clip = cm->clip_rx > 0.0f;
    info->explicit_weights = cm->weight != NULL;
    return FOVEA_OK;
}

float fovea_stitch_map_feather(const fovea_stitch_map *map)
{
    return map ? map->feather : -1.0f;
}

int fovea_stitch_map_lookup(const fovea_stitch_map *map, int cam, int i, int j, float *u, float *v)
{
    float uu, vv;
    if (!map) {
        uu = vv = NAN;
        if (u)
            *u = uu;
        if (v)
            *v = vv;
        return 0;
    }
    int seen = fv_map_lookup(map, cam, i, j, &uu, &vv);
    if (u)
        *u = uu;
    if (v)
        *v = vv;
    return seen;
}

int fovea_stitch_map_weights(const fovea_stitch_map *map, int i, int j,
                             float w[FOVEA_STITCH_MAX_CAMERAS], float u[FOVEA_STITCH_MAX_CAMERAS],
                             float v[FOVEA_STITCH_MAX_CAMERAS])
{
    if (!map || !w)
        return 0;
    return fv_map_weights(map, i, j, w, u, v);
}

int fovea_stitch_map_coverage_image(const fovea_stitch_map *map, fovea_frame *out)
{
    if (!map || !out || !out->data[0])
        return FOVEA_ERR_INVALID_ARG;
    if (out->fmt != FOVEA_PIX_RGB24 || out->width != map->pano_width ||
        out->height != map->pano_height ||
        (out->mem != FOVEA_MEM_HOST && out->mem != FOVEA_MEM_PINNED))
        return FOVEA_ERR_MISMATCH;
    return fv_map_coverage_image(map, out->data[0], out->stride[0]);
}

void fovea_stitch_map_close(fovea_stitch_map **map)
{
    if (!map || !*map)
        return;
    fv_stitch_map_free(*map);
    free(*map);
    *map = NULL;
}

int fv_stitch_map_copy(fovea_stitch_map *dst, const fovea_stitch_map *src)
{
    *dst = *src;
    for (int c = 0; c < FOVEA_STITCH_MAX_CAMERAS; c++) {
        dst->cam[c].uv = NULL;
        dst->cam[c].weight = NULL;
    }
    for (int c = 0; c < src->num_cameras; c++) {
        const fv_camera_map *s = &src->cam[c];
        fv_camera_map *d = &dst->cam[c];
        size_t n = (size_t)s->grid_w * (size_t)s->grid_h * 2 * sizeof(float);
        d->uv = malloc(n);
        if (!d->uv)
            goto fail;
        memcpy(d->uv, s->uv, n);
        if (s->weight) {
            size_t wn = (size_t)src->pano_width * (size_t)src->pano_height * sizeof(float);
            d->weight = malloc(wn);
            if (!d->weight)
                goto fail;
            memcpy(d->weight, s->weight, wn);
        }
    }
    return FOVEA_OK;
fail:
    fv_stitch_map_free(dst);
    return FOVEA_ERR_NOMEM;
}
