/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Rigs: validate ranges with field-path messages, write a rig back as JSON,
 * and the public rig handle (rig_parse.c reads the JSON). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/core.h"
#include "fovea/fovea.h"
#include "stitch/geometry.h"
#include "stitch/rig.h"


const char *fovea_projection_name(fovea_projection p)
{
    switch (p) {
    case FOVEA_PROJ_EQUIRECTANGULAR: return "equirectangular";
    case FOVEA_PROJ_CYLINDRICAL: return "cylindrical";
    }
    return "unknown";
}

const char *fovea_camera_model_name(fovea_camera_model m)
{
    switch (m) {
    case FOVEA_CAM_PINHOLE: return "pinhole";
    case FOVEA_CAM_FISHEYE: return "fisheye";
    case FOVEA_CAM_PANOTOOLS: return "panotools";
    }
    return "unknown";
}

const char *fovea_lens_name(fovea_lens l)
{
    switch (l) {
    case FOVEA_LENS_RECTILINEAR: return "rectilinear";
    case FOVEA_LENS_CYLINDRICAL: return "cylindrical";
    case FOVEA_LENS_FISHEYE: return "fisheye";
    case FOVEA_LENS_EQUIRECTANGULAR: return "equirectangular";
    case FOVEA_LENS_ORTHOGRAPHIC: return "orthographic";
    case FOVEA_LENS_STEREOGRAPHIC: return "stereographic";
    case FOVEA_LENS_EQUISOLID: return "equisolid";
    }
    return "unknown";
}

void fv_rig_init(fovea_rig *rig)
{
    memset(rig, 0, sizeof(*rig));
    rig->projection = FOVEA_PROJ_EQUIRECTANGULAR;
    rig->feather = FOVEA_RIG_DEFAULT_FEATHER;
    rig->max_theta = FOVEA_RIG_DEFAULT_MAX_THETA;
}

/* ------------------------------------------------------------------ validation */

static int valid_size(int v)
{
    return v >= 1 && v <= FOVEA_RIG_MAX_SIZE;
}

/* The shear must stay invertible and the radial polynomial must grow at the center
 * (d > 0): otherwise no image point has one direction. */
static int validate_panotools(const fovea_rig_camera *c, int k, char *err, size_t errsz)
{
    const int bad = FOVEA_ERR_INVALID_ARG;
    double gs = c->dist[3] / c->height, ts = c->dist[4] / c->width;
    if (!(fabs(gs) < 1.0 && fabs(ts) < 1.0))
        return fv_errbuf(err, errsz, bad,
                         "cameras[%d].dist: shear g must be within the image height and t "
                         "within its width",
                         k);
    if (fv_pt_radial_on(c) && !(1.0 - c->dist[0] - c->dist[1] - c->dist[2] > 0.0))
        return fv_errbuf(err, errsz, bad,
                         "cameras[%d].dist: radial polynomial must have d = 1 - a - b - c > 0", k);
    return FOVEA_OK;
}

int fv_rig_validate_buf(const fovea_rig *rig, char *err, size_t errsz)
{
    const int bad = FOVEA_ERR_INVALID_ARG;
    if (!rig)
        return fv_errbuf(err, errsz, bad, "rig: NULL");
    if (rig->projection != FOVEA_PROJ_EQUIRECTANGULAR && rig->projection != FOVEA_PROJ_CYLINDRICAL)
        return fv_errbuf(err, errsz, bad, "panorama.projection: unknown projection");
    if (!valid_size(rig->width))
        return fv_errbuf(err, errsz, bad, "panorama.width: must be an integer in [1, %d]",
                         FOVEA_RIG_MAX_SIZE);
    if (!valid_size(rig->height))
        return fv_errbuf(err, errsz, bad, "panorama.height: must be an integer in [1, %d]",
                         FOVEA_RIG_MAX_SIZE);
    if (!isfinite(rig->hfov) || !(rig->hfov > 0.0 && rig->hfov <= 360.0))
        return fv_errbuf(err, errsz, bad, "panorama.hfov: must be in (0, 360] degrees");
    if (rig->projection == FOVEA_PROJ_EQUIRECTANGULAR &&
        (!isfinite(rig->vfov) || !(rig->vfov > 0.0 && rig->vfov <= 180.0)))
        return fv_errbuf(err, errsz, bad, "panorama.vfov: must be in (0, 180] degrees");
    if (!isfinite(rig->yaw))
        return fv_errbuf(err, errsz, bad, "panorama.yaw: must be a finite number");
    if (!isfinite(rig->pitch))
        return fv_errbuf(err, errsz, bad, "panorama.pitch: must be a finite number");
    if (!isfinite(rig->feather) || rig->feather < 0.0)
        return fv_errbuf(err, errsz, bad, "blend.feather: must be a finite number >= 0");
    if (!isfinite(rig->max_theta) || !(rig->max_theta > 0.0 && rig->max_theta <= 180.0))
        return fv_errbuf(err, errsz, bad, "max_theta: must be in (0, 180] degrees");
    if (rig->num_cameras < 1 || rig->num_cameras > FOVEA_RIG_MAX_CAMERAS)
        return fv_errbuf(err, errsz, bad, "cameras: must have 1 to %d entries (has %d)",
                         FOVEA_RIG_MAX_CAMERAS, rig->num_cameras);
    for (int k = 0; k < rig->num_cameras; k++) {
        const fovea_rig_camera *c = &rig->cameras[k];
        if (c->model != FOVEA_CAM_PINHOLE && c->model != FOVEA_CAM_FISHEYE &&
            c->model != FOVEA_CAM_PANOTOOLS)
            return fv_errbuf(err, errsz, bad, "cameras[%d].model: unknown model", k);
        if (c->model == FOVEA_CAM_PANOTOOLS &&
            (c->lens < FOVEA_LENS_RECTILINEAR || c->lens > FOVEA_LENS_EQUISOLID))
            return fv_errbuf(err, errsz, bad, "cameras[%d].lens: unknown lens", k);
        if (!valid_size(c->width))
            return fv_errbuf(err, errsz, bad, "cameras[%d].width: must be an integer in [1, %d]", k,
                             FOVEA_RIG_MAX_SIZE);
        if (!valid_size(c->height))
            return fv_errbuf(err, errsz, bad, "cameras[%d].height: must be an integer in [1, %d]",
                             k, FOVEA_RIG_MAX_SIZE);
        if (!isfinite(c->fx) || !(c->fx > 0.0))
            return fv_errbuf(err, errsz, bad, "cameras[%d].fx: must be a finite number > 0", k);
        if (!isfinite(c->fy) || !(c->fy > 0.0))
            return fv_errbuf(err, errsz, bad, "cameras[%d].fy: must be a finite number > 0", k);
        if (!isfinite(c->cx))
            return fv_errbuf(err, errsz, bad, "cameras[%d].cx: must be a finite number", k);
        if (!isfinite(c->cy))
            return fv_errbuf(err, errsz, bad, "cameras[%d].cy: must be a finite number", k);
        for (int d = 0; d < 5; d++)
            if (!isfinite(c->dist[d]))
                return fv_errbuf(err, errsz, bad, "cameras[%d].dist[%d]: must be a finite number",
                                 k, d);
        if (c->model == FOVEA_CAM_FISHEYE && c->dist[4] != 0.0)
            return fv_errbuf(err, errsz, bad,
                             "cameras[%d].dist: a fisheye has 4 coefficients (dist[4] must be 0)",
                             k);
        if (c->model == FOVEA_CAM_PANOTOOLS) {
            int rc = validate_panotools(c, k, err, errsz);
            if (rc < 0)
                return rc;
        }
        if (!isfinite(c->yaw))
            return fv_errbuf(err, errsz, bad, "cameras[%d].yaw: must be a finite number", k);
        if (!isfinite(c->pitch))
            return fv_errbuf(err, errsz, bad, "cameras[%d].pitch: must be a finite number", k);
        if (!isfinite(c->roll))
            return fv_errbuf(err, errsz, bad, "cameras[%d].roll: must be a finite number", k);
        if (c->model == FOVEA_CAM_FISHEYE) {
            /* the image radius must grow with the angle up to max_theta, otherwise two
             * directions land on one pixel and visibility by image radius breaks */
            double fold = fv_fisheye_fold_theta(c->dist);
            if (fold <= rig->max_theta * (FOVEA_PI / 180.0))
                return fv_errbuf(err, errsz, bad,
                                 "cameras[%d].dist: fisheye image radius stops growing at "
                                 "theta = %.2f degrees, before max_theta = %g",
                                 k, fold * (180.0 / FOVEA_PI), rig->max_theta);
        }
    }
    return fv_rig_photo_validate(rig, err, errsz);
}

/* ------------------------------------------------------------------ writing */

/* A number that reads back to the same double (cJSON's own printer accepts 15
 * digits when they are merely close); null for a non-finite value. */
cJSON *fv_rig_json_num(double v)
{
    char buf[40];
    if (!isfinite(v))
        return cJSON_CreateNull();
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return cJSON_CreateRaw(buf);
}

static int add_num(cJSON *obj, const char *key, double v)
{
    cJSON *it = fv_rig_json_num(v);
    if (!it || !cJSON_AddItemToObject(obj, key, it)) {
        cJSON_Delete(it);
        return 0;
    }
    return 1;
}

char *fovea_rig_to_json(const fovea_rig *rig)
{
    if (!rig)
        return NULL;
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    int ok = 1;
    cJSON *pano = cJSON_AddObjectToObject(root, "panorama");
    ok = ok && pano;
    if (ok) {
        ok = ok &&
             cJSON_AddStringToObject(pano, "projection", fovea_projection_name(rig->projection));
        ok = ok && add_num(pano, "width", rig->width) && add_num(pano, "height", rig->height);
        ok = ok && add_num(pano, "hfov", rig->hfov) && add_num(pano, "vfov", rig->vfov);
        ok = ok && add_num(pano, "yaw", rig->yaw) && add_num(pano, "pitch", rig->pitch);
        ok = ok && fv_rig_photo_write_panorama(pano, rig);
    }
    cJSON *blend = ok ? cJSON_AddObjectToObject(root, "blend") : NULL;
    ok = ok && blend && add_num(blend, "feather", rig->feather);
    ok = ok && add_num(root, "max_theta", rig->max_theta);
    cJSON *cams = ok ? cJSON_AddArrayToObject(root, "cameras") : NULL;
    ok = ok && cams;
    for (int k = 0; ok && k < rig->num_cameras && k < FOVEA_RIG_MAX_CAMERAS; k++) {
        const fovea_rig_camera *c = &rig->cameras[k];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(cams, o)) {
            cJSON_Delete(o);
            ok = 0;
            break;
        }
        ok = ok && cJSON_AddStringToObject(o, "name", c->name);
        ok = ok && add_num(o, "width", c->width) && add_num(o, "height", c->height);
        ok = ok && cJSON_AddStringToObject(o, "model", fovea_camera_model_name(c->model));
        if (c->model == FOVEA_CAM_PANOTOOLS)
            ok = ok && cJSON_AddStringToObject(o, "lens", fovea_lens_name(c->lens));
        ok = ok && add_num(o, "fx", c->fx) && add_num(o, "fy", c->fy);
        ok = ok && add_num(o, "cx", c->cx) && add_num(o, "cy", c->cy);
        int nd = c->model == FOVEA_CAM_FISHEYE ? 4 : 5;
        cJSON *d = ok ? cJSON_AddArrayToObject(o, "dist") : NULL;
        ok = ok && d;
        for (int k2 = 0; ok && k2 < nd; k2++) {
            cJSON *it = fv_rig_json_num(c->dist[k2]);
            if (!it || !cJSON_AddItemToArray(d, it)) {
                cJSON_Delete(it);
                ok = 0;
            }
        }
        ok = ok && add_num(o, "yaw", c->yaw) && add_num(o, "pitch", c->pitch) &&
             add_num(o, "roll", c->roll);
        ok = ok && fv_rig_photo_write_camera(o, &c->photometric);
    }
    char *printed = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!printed)
        return NULL;
    /* hand back plain malloc memory whatever cJSON's allocator hooks are */
    size_t n = strlen(printed) + 1;
    char *s = malloc(n);
    if (s)
        memcpy(s, printed, n);
    cJSON_free(printed);
    return s;
}

int fv_rig_write_json(const fovea_rig *rig, FILE *f)
{
    if (!rig || !f)
        return FOVEA_ERR_INVALID_ARG;
    char *s = fovea_rig_to_json(rig);
    if (!s)
        return FOVEA_ERR_NOMEM;
    size_t n = strlen(s);
    int rc = (fwrite(s, 1, n, f) == n && fputc('\n', f) != EOF) ? FOVEA_OK : FOVEA_ERR_IO;
    free(s);
    return rc;
}

/* ------------------------------------------------------------------ public handle */

void fovea_rig_panorama_init(fovea_rig_panorama *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof(*p));
    p->projection = FOVEA_PROJ_EQUIRECTANGULAR;
    p->feather = FOVEA_RIG_DEFAULT_FEATHER;
    p->max_theta = FOVEA_RIG_DEFAULT_MAX_THETA;
}

static int rig_open_buf(fovea_rig **rig, const char *path, char *err, size_t errsz)
{
    if (!rig)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "rig: NULL argument");
    *rig = calloc(1, sizeof(**rig));
    if (!*rig)
        return fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "rig: out of memory");
    int st = fv_rig_load(path, *rig, err, errsz);
    if (st < 0)
        fovea_rig_close(rig);
    return st;
}

static int rig_open_json_buf(fovea_rig **rig, const char *json, size_t len, char *err, size_t errsz)
{
    if (!rig || !json)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "rig: NULL argument");
    *rig = calloc(1, sizeof(**rig));
    if (!*rig)
        return fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "rig: out of memory");
    int st = fv_rig_parse(json, len, *rig, err, errsz);
    if (st < 0)
        fovea_rig_close(rig);
    return st;
}

static int rig_create_buf(fovea_rig **rig, const fovea_rig_panorama *pano,
                          const fovea_rig_camera *cams, int n, char *err, size_t errsz)
{
    if (!rig)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "rig: NULL argument");
    *rig = NULL;
    if (!pano || (n > 0 && !cams))
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "rig: NULL argument");
    if (n < 1 || n > FOVEA_RIG_MAX_CAMERAS)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG,
                         "cameras: expected 1..%d cameras, got %d", FOVEA_RIG_MAX_CAMERAS, n);
    fovea_rig *r = calloc(1, sizeof(*r));
    if (!r)
        return fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "rig: out of memory");
    r->projection = pano->projection;
    r->width = pano->width;
    r->height = pano->height;
    r->hfov = pano->hfov;
    r->vfov = pano->vfov;
    r->yaw = pano->yaw;
    r->pitch = pano->pitch;
    r->feather = pano->feather;
    r->max_theta = pano->max_theta;
    r->photo_exposure = pano->photo_exposure;
    memcpy(r->photo_emor, pano->photo_emor, sizeof(r->photo_emor));
    r->photo_linear_response = pano->photo_linear_response;
    r->num_cameras = n;
    memcpy(r->cameras, cams, (size_t)n * sizeof(*cams));
    for (int c = 0; c < n; c++) /* a name that fills its buffer is cut, never unterminated */
        r->cameras[c].name[FOVEA_RIG_NAME_LEN - 1] = '\0';
    int st = fv_rig_validate_buf(r, err, errsz);
    if (st < 0) {
        free(r);
        return st;
    }
    *rig = r;
    return FOVEA_OK;
}

void fovea_rig_close(fovea_rig **rig)
{
    if (!rig)
        return;
    free(*rig);
    *rig = NULL;
}

int fovea_rig_get_panorama(const fovea_rig *rig, fovea_rig_panorama *pano)
{
    if (!rig || !pano)
        return FOVEA_ERR_INVALID_ARG;
    memset(pano, 0, sizeof(*pano));
    pano->projection = rig->projection;
    pano->width = rig->width;
    pano->height = rig->height;
    pano->hfov = rig->hfov;
    pano->vfov = rig->vfov;
    pano->yaw = rig->yaw;
    pano->pitch = rig->pitch;
    pano->feather = rig->feather;
    pano->max_theta = rig->max_theta;
    pano->photo_exposure = rig->photo_exposure;
    memcpy(pano->photo_emor, rig->photo_emor, sizeof(pano->photo_emor));
    pano->photo_linear_response = rig->photo_linear_response;
    return FOVEA_OK;
}

int fovea_rig_num_cameras(const fovea_rig *rig)
{
    return rig ? rig->num_cameras : FOVEA_ERR_INVALID_ARG;
}

int fovea_rig_get_camera(const fovea_rig *rig, int cam, fovea_rig_camera *out)
{
    if (!rig || !out || cam < 0 || cam >= rig->num_cameras || cam >= FOVEA_RIG_MAX_CAMERAS)
        return FOVEA_ERR_INVALID_ARG;
    *out = rig->cameras[cam];
    return FOVEA_OK;
}

int fovea_rig_validate(const fovea_rig *rig, fovea_context *ctx)
{
    char err[FOVEA_ERRLEN] = "";
    int st = fv_rig_validate_buf(rig, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}

int fovea_rig_open_file(fovea_rig **rig, fovea_context *ctx, const char *path)
{
    char err[FOVEA_ERRLEN] = "";
    int st = rig_open_buf(rig, path, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}

int fovea_rig_open_json(fovea_rig **rig, fovea_context *ctx, const char *json, size_t len)
{
    char err[FOVEA_ERRLEN] = "";
    int st = rig_open_json_buf(rig, json, len, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}

int fovea_rig_open_cameras(fovea_rig **rig, fovea_context *ctx, const fovea_rig_panorama *pano,
                           const fovea_rig_camera *cams, int n)
{
    char err[FOVEA_ERRLEN] = "";
    int st = rig_create_buf(rig, pano, cams, n, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}
