/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The optional photometric part of rig JSON (docs/rig.md "photometric"): Hugin's
 * exposure, white balance, vignetting and response per camera, and the
 * panorama's output exposure and response; read, checked and written. */
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include "core/core.h"
#include "stitch/rig.h"

static const char *const cam_keys[] = {"exposure",          "white_balance", "vignetting",
                                       "vignetting_center", "response",      "emor"};
static const char *const pano_keys[] = {"exposure", "response", "emor"};

/* Refuse keys outside known (a misspelt optional key would silently take its default). */
static int only_keys(const cJSON *o, const char *path, const char *const *known, int n, char *err,
                     size_t errsz)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, o)
    {
        int ok = 0;
        for (int i = 0; i < n && !ok; i++)
            ok = it->string && strcmp(it->string, known[i]) == 0;
        if (!ok)
            return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "%s: unknown field '%.40s'", path,
                             it->string ? it->string : "");
    }
    return FOVEA_OK;
}

/* An optional finite number. @return 1 read, 0 absent, < 0 error */
static int opt_number(const cJSON *o, const char *key, const char *path, double *out, char *err,
                      size_t errsz)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!it)
        return 0;
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble))
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "%s.%s: must be a finite number", path,
                         key);
    *out = it->valuedouble + 0.0;
    return 1;
}

/* An optional "response": "emor" (0) or "linear" (1). */
static int opt_response(const cJSON *o, const char *path, int *linear, char *err, size_t errsz)
{
    const cJSON *resp = cJSON_GetObjectItemCaseSensitive(o, "response");
    if (!resp)
        return 0;
    if (cJSON_IsString(resp) && strcmp(resp->valuestring, "emor") == 0)
        *linear = 0;
    else if (cJSON_IsString(resp) && strcmp(resp->valuestring, "linear") == 0)
        *linear = 1;
    else
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT,
                         "%s.response: must be \"emor\" or \"linear\"", path);
    return 1;
}

/* An optional array of exactly n finite numbers. */
static int opt_array(const cJSON *o, const char *key, const char *path, double *out, int n,
                     char *err, size_t errsz)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!it)
        return 0;
    if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != n)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "%s.%s: must be an array of %d numbers",
                         path, key, n);
    int k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, it)
    {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble))
            return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "%s.%s[%d]: must be a finite number",
                             path, key, k);
        out[k++] = e->valuedouble + 0.0;
    }
    return 1;
}

void fv_rig_photo_default(fovea_rig_photometric *p)
{
    memset(p, 0, sizeof(*p));
    p->wb_red = p->wb_blue = 1.0;
    p->vignetting[0] = 1.0;
}

int fv_rig_photo_parse_camera(const cJSON *cam, int k, fovea_rig_photometric *p, char *err,
                              size_t errsz)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(cam, "photometric");
    fv_rig_photo_default(p);
    if (!o)
        return FOVEA_OK;
    char path[48];
    snprintf(path, sizeof(path), "cameras[%d].photometric", k);
    if (!cJSON_IsObject(o))
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "%s: must be an object", path);
    int r = only_keys(o, path, cam_keys, (int)(sizeof(cam_keys) / sizeof(cam_keys[0])), err, errsz);
    double wb[2] = {1.0, 1.0};
    if (r >= 0)
        r = opt_number(o, "exposure", path, &p->exposure, err, errsz);
    if (r >= 0)
        r = opt_array(o, "white_balance", path, wb, 2, err, errsz);
    if (r >= 0)
        r = opt_array(o, "vignetting", path, p->vignetting, 4, err, errsz);
    if (r >= 0)
        r = opt_array(o, "vignetting_center", path, p->vignetting_center, 2, err, errsz);
    if (r >= 0)
        r = opt_array(o, "emor", path, p->emor, 5, err, errsz);
    if (r < 0)
        return r;
    p->wb_red = wb[0];
    p->wb_blue = wb[1];
    if ((r = opt_response(o, path, &p->linear_response, err, errsz)) < 0)
        return r;
    p->enabled = 1;
    return FOVEA_OK;
}

int fv_rig_photo_parse_panorama(const cJSON *pano, fovea_rig *rig, char *err, size_t errsz)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(pano, "photometric");
    if (!o)
        return FOVEA_OK;
    const char *path = "panorama.photometric";
    if (!cJSON_IsObject(o))
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "%s: must be an object", path);
    int r = only_keys(o, path, pano_keys, 3, err, errsz);
    if (r >= 0)
        r = opt_number(o, "exposure", path, &rig->photo_exposure, err, errsz);
    if (r >= 0)
        r = opt_array(o, "emor", path, rig->photo_emor, 5, err, errsz);
    if (r >= 0)
        r = opt_response(o, path, &rig->photo_linear_response, err, errsz);
    return r < 0 ? r : FOVEA_OK;
}

/* |v| <= lim and finite */
static int within(double v, double lim)
{
    return isfinite(v) && fabs(v) <= lim;
}

int fv_rig_photo_validate(const fovea_rig *rig, char *err, size_t errsz)
{
    const int bad = FOVEA_ERR_INVALID_ARG;
    if (rig->photo_linear_response != 0 && rig->photo_linear_response != 1)
        return fv_errbuf(err, errsz, bad, "panorama.photometric.response: unknown");
    if (!within(rig->photo_exposure, 64.0))
        return fv_errbuf(err, errsz, bad, "panorama.photometric.exposure: must be in [-64, 64]");
    for (int i = 0; i < 5; i++)
        if (!within(rig->photo_emor[i], 1000.0))
            return fv_errbuf(err, errsz, bad,
                             "panorama.photometric.emor[%d]: must be in [-1000, 1000]", i);
    for (int k = 0; k < rig->num_cameras; k++) {
        const fovea_rig_photometric *p = &rig->cameras[k].photometric;
        if (!p->enabled)
            continue;
        if (!within(p->exposure, 64.0))
            return fv_errbuf(err, errsz, bad,
                             "cameras[%d].photometric.exposure: must be in [-64, 64]", k);
        if (!(p->wb_red > 0.0 && p->wb_red <= 1000.0) ||
            !(p->wb_blue > 0.0 && p->wb_blue <= 1000.0))
            return fv_errbuf(err, errsz, bad,
                             "cameras[%d].photometric.white_balance: must be in (0, 1000]", k);
        for (int i = 0; i < 4; i++)
            if (!within(p->vignetting[i], 1e6))
                return fv_errbuf(err, errsz, bad,
                                 "cameras[%d].photometric.vignetting[%d]: must be in [-1e6, 1e6]",
                                 k, i);
        for (int i = 0; i < 2; i++)
            if (!within(p->vignetting_center[i], 1e6))
                return fv_errbuf(
                    err, errsz, bad,
                    "cameras[%d].photometric.vignetting_center[%d]: must be in [-1e6, 1e6]", k, i);
        if (p->linear_response != 0 && p->linear_response != 1)
            return fv_errbuf(err, errsz, bad, "cameras[%d].photometric.response: unknown", k);
        for (int i = 0; i < 5; i++)
            if (!within(p->emor[i], 1000.0))
                return fv_errbuf(err, errsz, bad,
                                 "cameras[%d].photometric.emor[%d]: must be in [-1000, 1000]", k,
                                 i);
    }
    return FOVEA_OK;
}

static int add_array(cJSON *o, const char *key, const double *v, int n)
{
    cJSON *a = cJSON_AddArrayToObject(o, key);
    for (int i = 0; a && i < n; i++) {
        cJSON *it = fv_rig_json_num(v[i]);
        if (!it || !cJSON_AddItemToArray(a, it)) {
            cJSON_Delete(it);
            return 0;
        }
    }
    return a != NULL;
}

static int add_number(cJSON *o, const char *key, double v)
{
    cJSON *it = fv_rig_json_num(v);
    if (!it || !cJSON_AddItemToObject(o, key, it)) {
        cJSON_Delete(it);
        return 0;
    }
    return 1;
}

int fv_rig_photo_any(const fovea_rig *rig)
{
    for (int k = 0; k < rig->num_cameras; k++)
        if (rig->cameras[k].photometric.enabled)
            return 1;
    return 0;
}

int fv_rig_photo_write_panorama(cJSON *pano, const fovea_rig *rig)
{
    if (!fv_rig_photo_any(rig))
        return 1;
    cJSON *o = cJSON_AddObjectToObject(pano, "photometric");
    return o && add_number(o, "exposure", rig->photo_exposure) &&
           cJSON_AddStringToObject(o, "response", rig->photo_linear_response ? "linear" : "emor") &&
           add_array(o, "emor", rig->photo_emor, 5);
}

int fv_rig_photo_write_camera(cJSON *cam, const fovea_rig_photometric *p)
{
    if (!p->enabled)
        return 1;
    cJSON *o = cJSON_AddObjectToObject(cam, "photometric");
    const double wb[2] = {p->wb_red, p->wb_blue};
    return o && add_number(o, "exposure", p->exposure) && add_array(o, "white_balance", wb, 2) &&
           add_array(o, "vignetting", p->vignetting, 4) &&
           add_array(o, "vignetting_center", p->vignetting_center, 2) &&
           cJSON_AddStringToObject(o, "response", p->linear_response ? "linear" : "emor") &&
           add_array(o, "emor", p->emor, 5);
}
