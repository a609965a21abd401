/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Per-camera color corrections as JSON: {"cameras":[{"gain":[r,g,b],"gamma":g}, ...]}
 * (include/fovea/stitch.h). Parsed with cJSON; other keys are ignored, so that
 * the summary `fovea stitch --json` writes can be read back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "core/core.h"
#include "fovea/stitch.h"

/* A field that must be a finite number in (0, FOVEA_COLOR_JSON_MAX]. */
static int positive_number(const cJSON *item, const char *field, float *out, char *err,
                           size_t errsz)
{
    if (!item)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "%s: missing required field", field);
    /* (float) of a double below the smallest denormal would be 0: refused too */
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) ||
        !((float)item->valuedouble > 0.0f) || item->valuedouble > FOVEA_COLOR_JSON_MAX)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "%s: must be a number > 0 and <= %g", field,
                         (double)FOVEA_COLOR_JSON_MAX);
    *out = (float)item->valuedouble;
    return FOVEA_OK;
}

static int corrections_from_json_buf(const char *json, size_t len, int n,
                                     fovea_color_correction *cc, char *err, size_t errsz)
{
    if (!json || !cc || n < 1 || n > FOVEA_STITCH_MAX_CAMERAS)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG,
                         "color corrections: NULL argument or camera count %d out of range", n);
    cJSON *root = cJSON_ParseWithLength(json, len);
    if (!root)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "invalid JSON");
    fovea_color_correction tmp[FOVEA_STITCH_MAX_CAMERAS];
    char field[64];
    int rc = FOVEA_ERR_CORRUPT;
    const cJSON *cams = cJSON_GetObjectItemCaseSensitive(root, "cameras");
    if (!cJSON_IsObject(root)) {
        fv_errbuf(err, errsz, rc, "(root): must be an object");
        goto done;
    }
    if (!cams) {
        fv_errbuf(err, errsz, rc, "cameras: missing required field");
        goto done;
    }
    if (!cJSON_IsArray(cams)) {
        fv_errbuf(err, errsz, rc, "cameras: must be an array");
        goto done;
    }
    const int count = cJSON_GetArraySize(cams);
    if (count != n) {
        fv_errbuf(err, errsz, FOVEA_ERR_MISMATCH, "cameras: has %d entr%s, the map has %d camera%s",
                  count, count == 1 ? "y" : "ies", n, n == 1 ? "" : "s");
        rc = FOVEA_ERR_MISMATCH;
        goto done;
    }
    int c = 0;
    const cJSON *cam = NULL;
    cJSON_ArrayForEach(cam, cams)
    {
        if (!cJSON_IsObject(cam)) {
            fv_errbuf(err, errsz, rc, "cameras[%d]: must be an object", c);
            goto done;
        }
        const cJSON *gain = cJSON_GetObjectItemCaseSensitive(cam, "gain");
        if (!gain) {
            fv_errbuf(err, errsz, rc, "cameras[%d].gain: missing required field", c);
            goto done;
        }
        if (!cJSON_IsArray(gain) || cJSON_GetArraySize(gain) != 3) {
            fv_errbuf(err, errsz, rc, "cameras[%d].gain: must be an array of 3 numbers [r, g, b]",
                      c);
            goto done;
        }
        int k = 0;
        const cJSON *g = NULL;
        cJSON_ArrayForEach(g, gain)
        {
            snprintf(field, sizeof(field), "cameras[%d].gain[%d]", c, k);
            if (positive_number(g, field, &tmp[c].gain[k], err, errsz) != FOVEA_OK)
                goto done;
            k++;
        }
        snprintf(field, sizeof(field), "cameras[%d].gamma", c);
        if (positive_number(cJSON_GetObjectItemCaseSensitive(cam, "gamma"), field, &tmp[c].gamma,
                            err, errsz) != FOVEA_OK)
            goto done;
        c++;
    }
    memcpy(cc, tmp, sizeof(tmp[0]) * (size_t)n);
    rc = FOVEA_OK;
done:
    cJSON_Delete(root);
    return rc;
}

char *fovea_color_corrections_to_json(const fovea_color_correction *cc, int n)
{
    if (!cc || n < 1 || n > FOVEA_STITCH_MAX_CAMERAS)
        return NULL;
    /* %.9g: every float reads back to itself */
    const size_t per = 4 * 20 + 48;
    size_t cap = 32 + (size_t)n * per, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    len += (size_t)snprintf(s + len, cap - len, "{\"cameras\": [");
    for (int c = 0; c < n; c++)
        len += (size_t)snprintf(s + len, cap - len,
                                "%s\n  {\"gain\": [%.9g, %.9g, %.9g], \"gamma\": %.9g}",
                                c ? "," : "", (double)cc[c].gain[0], (double)cc[c].gain[1],
                                (double)cc[c].gain[2], (double)cc[c].gamma);
    snprintf(s + len, cap - len, "\n]}\n");
    return s;
}

int fovea_color_corrections_from_json(fovea_context *ctx, const char *json, size_t len, int n,
                                      fovea_color_correction *cc)
{
    char err[FOVEA_ERRLEN] = "";
    int st = corrections_from_json_buf(json, len, n, cc, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}
