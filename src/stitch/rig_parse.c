/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Rig JSON parsing: cJSON into fovea_rig, every object's keys checked (an
 * unknown key is refused, with the nearest known one suggested), messages
 * with the field's path and the line and column. */
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

typedef struct {
    char *err;
    size_t errsz;
} perr;

/* ------------------------------------------------------------------ keys */

/* The keys of each object of a rig (the spec's fields and fovea's optional
 * ones). Anything else is refused: a misspelt optional key would otherwise be
 * ignored and its default used. At most 32 keys per object (a bit mask). */
static const char *const root_keys[] = {"panorama", "blend", "max_theta", "cameras", NULL};
static const char *const panorama_keys[] = {"projection", "width", "height",      "hfov", "vfov",
                                            "yaw",        "pitch", "photometric", NULL};
static const char *const blend_keys[] = {"feather", NULL};
static const char *const camera_keys[] = {"name", "model", "lens", "width",       "height",
                                          "fx",   "fy",    "cx",   "cy",          "dist",
                                          "yaw",  "pitch", "roll", "photometric", NULL};

/* A key as it can be shown in a message: JSON-style escapes for quotes,
 * backslashes and bytes outside printable ASCII, cut after 40 bytes. */
static void show_key(char *buf, size_t size, const char *key)
{
    size_t o = 0, i = 0;
    for (; key[i] && i < 40 && o + 8 < size; i++) {
        unsigned char ch = (unsigned char)key[i];
        if (ch == '"' || ch == '\\')
            o += (size_t)snprintf(buf + o, size - o, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f)
            o += (size_t)snprintf(buf + o, size - o, "\\x%02x", ch);
        else
            buf[o++] = (char)ch;
    }
    if (key[i] && o + 4 <= size) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o < size ? o : size - 1] = '\0';
}

static int lower_ascii(int ch)
{
    return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

/* Case-insensitive edit distance with adjacent transpositions (optimal string
 * alignment); keys longer than 64 bytes are too far from any known key. */
static int key_distance(const char *a, const char *b)
{
    enum { MAXK = 64 };
    size_t n = strlen(a), m = strlen(b);
    if (n > MAXK || m > MAXK)
        return MAXK;
    int d[MAXK + 1][MAXK + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int ca = lower_ascii((unsigned char)a[i - 1]);
            int cb = lower_ascii((unsigned char)b[j - 1]);
            int v = d[i - 1][j - 1] + (ca != cb);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == lower_ascii((unsigned char)b[j - 2]) &&
                lower_ascii((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

/* 1 when one of a, b starts with the other (case-insensitive), the shorter
 * having at least 3 bytes ("distortion" for "dist", "proj" for "projection"). */
static int key_prefix(const char *a, const char *b)
{
    size_t i = 0;
    while (a[i] && b[i] && lower_ascii((unsigned char)a[i]) == lower_ascii((unsigned char)b[i]))
        i++;
    return i >= 3 && (!a[i] || !b[i]);
}

/* The known key a misspelt one most likely meant, or NULL: a case-insensitive
 * match first, then the smallest edit distance (first in the list on a tie)
 * up to 1 for keys of 3 bytes or less, else up to max(2, a third of the
 * known key's length), then a shared prefix. */
static const char *nearest_key(const char *key, const char *const *known)
{
    const char *best = NULL;
    int best_d = 1 << 30;
    for (int k = 0; known[k]; k++) {
        int d = key_distance(key, known[k]);
        if (d == 0 && strlen(key) == strlen(known[k]))
            return known[k]; /* differs in case only */
        int len = (int)strlen(known[k]);
        int limit = len <= 3 ? 1 : len / 3 > 2 ? len / 3 : 2;
        if (d <= limit && d < best_d) {
            best = known[k];
            best_d = d;
        }
    }
    if (best)
        return best;
    for (int k = 0; known[k]; k++)
        if (key_prefix(key, known[k]))
            return known[k];
    return NULL;
}

/* Every member of obj must be one of known, each at most once. where names
 * obj in messages ("(root)", "panorama", "cameras[1]"). */
static int check_keys(const cJSON *obj, const char *where, const char *const *known, perr *pe)
{
    unsigned long seen = 0;
    const cJSON *it;
    char shown[200];
    cJSON_ArrayForEach(it, obj)
    {
        const char *key = it->string ? it->string : "";
        int k = 0;
        while (known[k] && strcmp(known[k], key) != 0)
            k++;
        show_key(shown, sizeof shown, key);
        if (!known[k]) {
            const char *near = nearest_key(key, known);
            if (near)
                return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                                 "%s: unknown key \"%s\" (did you mean \"%s\"?)", where, shown,
                                 near);
            char list[256];
            size_t o = 0;
            for (int j = 0; known[j] && o < sizeof list; j++)
                o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", j ? ", " : "", known[j]);
            return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                             "%s: unknown key \"%s\" (known keys: %s)", where, shown, list);
        }
        if (seen & (1ul << k))
            return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                             "%s: duplicate key \"%s\" (each key may appear once)", where, shown);
        seen |= 1ul << k;
    }
    return FOVEA_OK;
}

/* cJSON ends a string at an escaped NUL (\u0000) or a raw NUL byte, so
 * "ya\u0000w" would read as "ya": find either in the strings of the parsed
 * text t[0, len) (valid JSON, so quotes and escapes pair up). @return 1 and
 * the offset of the string's opening quote, and whether it is a key. */
static int find_nul_in_string(const char *t, size_t len, size_t *at, int *is_key)
{
    size_t open = 0;
    int in_str = 0, nul = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = t[i];
        if (!in_str) {
            if (ch == '"') {
                in_str = 1;
                open = i;
            }
            continue;
        }
        if (ch == '"') {
            in_str = 0;
            if (nul) {
                size_t j = i + 1;
                while (j < len && (t[j] == ' ' || t[j] == '\t' || t[j] == '\n' || t[j] == '\r'))
                    j++;
                *at = open;
                *is_key = j < len && t[j] == ':';
                return 1;
            }
        } else if (ch == '\0') {
            nul = 1;
        } else if (ch == '\\' && i + 1 < len) {
            if (len - i >= 6 && memcmp(t + i + 1, "u0000", 5) == 0)
                nul = 1;
            i++; /* the escaped character: \\ and \" do not end anything */
        }
    }
    return 0;
}

/* A raw NUL byte outside the strings of t[0, len), whose document ends at
 * doc_end: cJSON skips one between tokens as whitespace and the text after
 * the document is only checked up to one, so "{...}\0anything" would load.
 * Only NUL bytes ending the text (a C string's terminator) are allowed.
 * @return 1 and the NUL's offset, else 0. */
static int find_raw_nul(const char *t, size_t len, size_t doc_end, size_t *at)
{
    int in_str = 0;
    for (size_t i = 0; i < doc_end; i++) {
        if (in_str && t[i] == '\\')
            i++;
        else if (t[i] == '"')
            in_str = !in_str;
        else if (!in_str && t[i] == '\0') {
            *at = i;
            return 1;
        }
    }
    const char *nul = memchr(t + doc_end, '\0', len - doc_end);
    if (!nul)
        return 0;
    for (const char *q = nul; q < t + len; q++)
        if (*q != '\0') {
            *at = (size_t)(nul - t);
            return 1;
        }
    return 0;
}

/* Read a finite number. @return 1 found, 0 absent (optional), negative on error. */
static int get_number(const cJSON *obj, const char *key, const char *path, int required,
                      double *out, perr *pe)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it) {
        if (required)
            return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT, "%s: missing required field",
                             path);
        return 0;
    }
    if (!cJSON_IsNumber(it))
        return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT, "%s: must be a number", path);
    if (!isfinite(it->valuedouble))
        return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT, "%s: must be a finite number",
                         path);
    *out = it->valuedouble + 0.0; /* -0 becomes +0: the writer prints both as 0 */
    return 1;
}

/* Read a required integer size (range checked by validate, here only integrality). */
static int get_size(const cJSON *obj, const char *key, const char *path, int *out, perr *pe)
{
    double d = 0.0;
    int r = get_number(obj, key, path, 1, &d, pe);
    if (r < 0)
        return r;
    if (d != floor(d) || d < 1.0 || d > FOVEA_RIG_MAX_SIZE)
        return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                         "%s: must be an integer in [1, %d] (got %g)", path, FOVEA_RIG_MAX_SIZE, d);
    *out = (int)d;
    return 1;
}

static const cJSON *get_object(const cJSON *obj, const char *key, int required, perr *pe, int *rc)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    *rc = 0;
    if (!it) {
        if (required)
            *rc =
                fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT, "%s: missing required field", key);
        return NULL;
    }
    if (!cJSON_IsObject(it)) {
        *rc = fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT, "%s: must be an object", key);
        return NULL;
    }
    return it;
}

static int parse_panorama(const cJSON *p, fovea_rig *rig, perr *pe)
{
    int r;
    if ((r = check_keys(p, "panorama", panorama_keys, pe)) < 0)
        return r;
    const cJSON *proj = cJSON_GetObjectItemCaseSensitive(p, "projection");
    if (!proj)
        return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                         "panorama.projection: missing required field");
    if (!cJSON_IsString(proj))
        return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                         "panorama.projection: must be a string");
    if (strcmp(proj->valuestring, "equirectangular") == 0)
        rig->projection = FOVEA_PROJ_EQUIRECTANGULAR;
    else if (strcmp(proj->valuestring, "cylindrical") == 0)
        rig->projection = FOVEA_PROJ_CYLINDRICAL;
    else
        return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                         "panorama.projection: unknown projection '%.40s' "
                         "(equirectangular, cylindrical)",
                         proj->valuestring);
    if ((r = get_size(p, "width", "panorama.width", &rig->width, pe)) < 0)
        return r;
    if ((r = get_size(p, "height", "panorama.height", &rig->height, pe)) < 0)
        return r;
    if ((r = get_number(p, "hfov", "panorama.hfov", 1, &rig->hfov, pe)) < 0)
        return r;
    /* the cylindrical projection takes its vertical extent from hfov */
    if ((r = get_number(p, "vfov", "panorama.vfov", rig->projection == FOVEA_PROJ_EQUIRECTANGULAR,
                        &rig->vfov, pe)) < 0)
        return r;
    if ((r = get_number(p, "yaw", "panorama.yaw", 0, &rig->yaw, pe)) < 0)
        return r;
    if ((r = get_number(p, "pitch", "panorama.pitch", 0, &rig->pitch, pe)) < 0)
        return r;
    return fv_rig_photo_parse_panorama(p, rig, pe->err, pe->errsz);
}

/* "lens": required by a panotools camera, refused on the others. */
static int parse_lens(const cJSON *c, int k, fovea_rig_camera *cam, perr *pe)
{
    const cJSON *lens = cJSON_GetObjectItemCaseSensitive(c, "lens");
    cam->lens = FOVEA_LENS_RECTILINEAR;
    if (cam->model != FOVEA_CAM_PANOTOOLS) {
        if (lens)
            return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                             "cameras[%d].lens: only a panotools camera has a lens", k);
        return FOVEA_OK;
    }
    if (!lens)
        return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                         "cameras[%d].lens: missing required field (a panotools camera)", k);
    if (!cJSON_IsString(lens))
        return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                         "cameras[%d].lens: must be a string", k);
    for (int l = FOVEA_LENS_RECTILINEAR; l <= FOVEA_LENS_EQUISOLID; l++)
        if (strcmp(lens->valuestring, fovea_lens_name((fovea_lens)l)) == 0) {
            cam->lens = (fovea_lens)l;
            return FOVEA_OK;
        }
    return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                     "cameras[%d].lens: unknown lens '%.40s' (rectilinear, cylindrical, fisheye, "
                     "equirectangular, orthographic, stereographic, equisolid)",
                     k, lens->valuestring);
}

static int parse_camera(const cJSON *c, int k, fovea_rig_camera *cam, perr *pe)
{
    char path[64];
    int r;
    if (!cJSON_IsObject(c))
        return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT, "cameras[%d]: must be an object",
                         k);
    snprintf(path, sizeof(path), "cameras[%d]", k);
    if ((r = check_keys(c, path, camera_keys, pe)) < 0)
        return r;

    const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
    if (name) {
        if (!cJSON_IsString(name))
            return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                             "cameras[%d].name: must be a string", k);
        if (strlen(name->valuestring) >= FOVEA_RIG_NAME_LEN)
            return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                             "cameras[%d].name: longer than %d bytes", k, FOVEA_RIG_NAME_LEN - 1);
        snprintf(cam->name, sizeof(cam->name), "%s", name->valuestring);
    } else {
        snprintf(cam->name, sizeof(cam->name), "cam%d", k);
    }

    const cJSON *model = cJSON_GetObjectItemCaseSensitive(c, "model");
    if (!model)
        return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                         "cameras[%d].model: missing required field", k);
    if (!cJSON_IsString(model))
        return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                         "cameras[%d].model: must be a string", k);
    if (strcmp(model->valuestring, "pinhole") == 0)
        cam->model = FOVEA_CAM_PINHOLE;
    else if (strcmp(model->valuestring, "fisheye") == 0)
        cam->model = FOVEA_CAM_FISHEYE;
    else if (strcmp(model->valuestring, "panotools") == 0)
        cam->model = FOVEA_CAM_PANOTOOLS;
    else
        return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                         "cameras[%d].model: unknown model '%.40s' (pinhole, fisheye, panotools)",
                         k, model->valuestring);
    if ((r = parse_lens(c, k, cam, pe)) < 0)
        return r;

#define CAM_PATH(field) (snprintf(path, sizeof(path), "cameras[%d]." field, k), path)
    if ((r = get_size(c, "width", CAM_PATH("width"), &cam->width, pe)) < 0)
        return r;
    if ((r = get_size(c, "height", CAM_PATH("height"), &cam->height, pe)) < 0)
        return r;
    if ((r = get_number(c, "fx", CAM_PATH("fx"), 1, &cam->fx, pe)) < 0)
        return r;
    if ((r = get_number(c, "fy", CAM_PATH("fy"), 1, &cam->fy, pe)) < 0)
        return r;
    if ((r = get_number(c, "cx", CAM_PATH("cx"), 1, &cam->cx, pe)) < 0)
        return r;
    if ((r = get_number(c, "cy", CAM_PATH("cy"), 1, &cam->cy, pe)) < 0)
        return r;
    if ((r = get_number(c, "yaw", CAM_PATH("yaw"), 0, &cam->yaw, pe)) < 0)
        return r;
    if ((r = get_number(c, "pitch", CAM_PATH("pitch"), 0, &cam->pitch, pe)) < 0)
        return r;
    if ((r = get_number(c, "roll", CAM_PATH("roll"), 0, &cam->roll, pe)) < 0)
        return r;
#undef CAM_PATH

    const cJSON *dist = cJSON_GetObjectItemCaseSensitive(c, "dist");
    if (dist) {
        int maxn = cam->model == FOVEA_CAM_FISHEYE ? 4 : 5;
        if (!cJSON_IsArray(dist))
            return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                             "cameras[%d].dist: must be an array of numbers", k);
        int n = cJSON_GetArraySize(dist);
        if (n > maxn)
            return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                             "cameras[%d].dist: %d coefficients, a %s camera has at most %d", k, n,
                             fovea_camera_model_name(cam->model), maxn);
        int d = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, dist)
        {
            if (!cJSON_IsNumber(e))
                return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                                 "cameras[%d].dist[%d]: must be a number", k, d);
            if (!isfinite(e->valuedouble))
                return fv_errbuf(pe->err, pe->errsz, FOVEA_ERR_CORRUPT,
                                 "cameras[%d].dist[%d]: must be a finite number", k, d);
            cam->dist[d++] = e->valuedouble + 0.0;
        }
    }
    return fv_rig_photo_parse_camera(c, k, &cam->photometric, pe->err, pe->errsz);
}

/* Approximate line/column (1-based) of a byte offset. */
static void line_col(const char *text, size_t len, size_t pos, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < pos && i < len; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

int fv_rig_parse(const char *json_text, size_t len, fovea_rig *rig, char *err, size_t errsz)
{
    perr pe = {err, errsz};
    if (err && errsz)
        err[0] = '\0';
    if (!json_text || !rig)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "rig: NULL argument");
    fv_rig_init(rig);

    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json_text, len, &end, 0);
    if (!root) {
        size_t pos = (end && end >= json_text) ? (size_t)(end - json_text) : 0;
        int line, col;
        line_col(json_text, len, pos, &line, &col);
        if (len == 0)
            return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "invalid JSON: empty input");
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "invalid JSON near line %d, column %d",
                         line, col);
    }
    /* cJSON stops after the first value: anything but whitespace after it is an error */
    if (end) {
        size_t pos = (size_t)(end - json_text);
        while (pos < len && (json_text[pos] == ' ' || json_text[pos] == '\t' ||
                             json_text[pos] == '\n' || json_text[pos] == '\r'))
            pos++;
        if (pos < len && json_text[pos] != '\0') {
            int line, col;
            line_col(json_text, len, pos, &line, &col);
            cJSON_Delete(root);
            return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT,
                             "invalid JSON: unexpected text after the document at line %d, "
                             "column %d",
                             line, col);
        }
    }

    int rc = FOVEA_OK;
    size_t nul_at;
    int nul_key;
    if (find_nul_in_string(json_text, end ? (size_t)(end - json_text) : len, &nul_at, &nul_key)) {
        int line, col;
        line_col(json_text, len, nul_at, &line, &col);
        rc = fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT,
                       "the %s at line %d, column %d contains a NUL character (\\u0000), "
                       "which keys and strings of a rig may not hold",
                       nul_key ? "key" : "string", line, col);
        goto done;
    }
    if (find_raw_nul(json_text, len, end ? (size_t)(end - json_text) : len, &nul_at)) {
        int line, col;
        line_col(json_text, len, nul_at, &line, &col);
        rc = fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT,
                       "a NUL byte at byte offset %zu (line %d, column %d): a rig is JSON text, "
                       "which holds none (only NUL bytes ending the text are taken for a "
                       "terminator)",
                       nul_at, line, col);
        goto done;
    }
    if (!cJSON_IsObject(root)) {
        rc = fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "(root): must be an object");
        goto done;
    }
    if ((rc = check_keys(root, "(root)", root_keys, &pe)) < 0)
        goto done;
    const cJSON *pano = get_object(root, "panorama", 1, &pe, &rc);
    if (rc < 0)
        goto done;
    if ((rc = parse_panorama(pano, rig, &pe)) < 0)
        goto done;
    const cJSON *blend = get_object(root, "blend", 0, &pe, &rc);
    if (rc < 0)
        goto done;
    if (blend && (rc = check_keys(blend, "blend", blend_keys, &pe)) < 0)
        goto done;
    if (blend && (rc = get_number(blend, "feather", "blend.feather", 0, &rig->feather, &pe)) < 0)
        goto done;
    if ((rc = get_number(root, "max_theta", "max_theta", 0, &rig->max_theta, &pe)) < 0)
        goto done;

    const cJSON *cams = cJSON_GetObjectItemCaseSensitive(root, "cameras");
    if (!cams) {
        rc = fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "cameras: missing required field");
        goto done;
    }
    if (!cJSON_IsArray(cams)) {
        rc = fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "cameras: must be an array");
        goto done;
    }
    int n = cJSON_GetArraySize(cams);
    if (n < 1 || n > FOVEA_RIG_MAX_CAMERAS) {
        rc = fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "cameras: must have 1 to %d entries (has %d)",
                       FOVEA_RIG_MAX_CAMERAS, n);
        goto done;
    }
    rig->num_cameras = n;
    int k = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cams)
    {
        if ((rc = parse_camera(c, k, &rig->cameras[k], &pe)) < 0)
            goto done;
        k++;
    }
    rc = fv_rig_validate_buf(rig, err, errsz);
    if (rc < 0)
        rc = FOVEA_ERR_CORRUPT;
    else
        rc = FOVEA_OK;
done:
    cJSON_Delete(root);
    return rc;
}

int fv_rig_load(const char *path, fovea_rig *rig, char *err, size_t errsz)
{
    if (!path || !rig)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "rig: NULL argument");
    FILE *f = fopen(path, "rb");
    if (!f)
        return fv_errbuf(err, errsz, FOVEA_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char *buf = malloc(FOVEA_RIG_FILE_LIMIT + 1);
    if (!buf) {
        fclose(f);
        return fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "%s: out of memory", path);
    }
    errno = 0;
    size_t n = fread(buf, 1, FOVEA_RIG_FILE_LIMIT + 1, f);
    int rd_err = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (rd_err) {
        free(buf);
        return fv_errbuf(err, errsz, FOVEA_ERR_IO, "%s: read error: %s", path, strerror(rd_err));
    }
    if (n > FOVEA_RIG_FILE_LIMIT) {
        free(buf);
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "%s: larger than %d bytes", path,
                         FOVEA_RIG_FILE_LIMIT);
    }
    char msg[512];
    int rc = fv_rig_parse(buf, n, rig, msg, sizeof(msg));
    free(buf);
    if (rc < 0)
        return fv_errbuf(err, errsz, rc, "%s: %s", path, msg);
    return rc;
}
