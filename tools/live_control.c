/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Control messages of the live page: parsed with cJSON, every value checked
 * before anything changes. */
#include "live_control.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const denoise_names[] = {"none", "median3", "gauss5", "temporal", NULL};
static const char *const heat_names[] = {"max", "fixed", NULL};

const char *const live_camera_names[LIVE_CAM_COUNT] = {
    "brightness", "contrast", "saturation",    "gain",
    "autogain",   "exposure", "exposure_auto", "white_balance_auto"};

int live_camera_is_bool(int id)
{
    return id == LIVE_CAM_AUTOGAIN || id == LIVE_CAM_EXPOSURE_AUTO ||
           id == LIVE_CAM_WHITE_BALANCE_AUTO;
}

static int name_index(const char *const *names, const char *s)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

/* An integer in [lo, hi]: JSON numbers are doubles, so a fraction or a value
 * out of range is refused rather than rounded. */
static int get_int(const cJSON *v, int lo, int hi, int *out)
{
    if (!cJSON_IsNumber(v))
        return -1;
    const double d = v->valuedouble;
    if (!(d >= lo && d <= hi) || d != (double)(int)d)
        return -1;
    *out = (int)d;
    return 0;
}

/* "camera": {"brightness": 140, "exposure_auto": true}: known names only,
 * integers (V4L2 controls are 32-bit) or true/false by the control's kind;
 * the device's range is applied when set (tools/live_camera.c). */
static int parse_camera(const cJSON *obj, live_controls *c, int *set)
{
    if (!cJSON_IsObject(obj))
        return -1;
    for (const cJSON *it = obj->child; it; it = it->next) {
        int id = -1;
        for (int i = 0; i < LIVE_CAM_COUNT && it->string; i++)
            if (strcmp(it->string, live_camera_names[i]) == 0)
                id = i;
        if (id < 0 || (c->camera_set & (1u << id)))
            return -1;
        if (live_camera_is_bool(id)) {
            if (!cJSON_IsBool(it))
                return -1;
            c->camera[id] = cJSON_IsTrue(it);
        } else if (get_int(it, -2147483647 - 1, 2147483647, &c->camera[id]) < 0) {
            return -1;
        }
        c->camera_set |= 1u << id;
    }
    if (c->camera_set)
        *set |= LIVE_SET_CAMERA;
    return 0;
}

static int parse_field(const cJSON *it, live_controls *c, int *set)
{
    const char *k = it->string;
    int i;
    if (strcmp(k, "type") == 0)
        return cJSON_IsString(it) && strcmp(it->valuestring, "control") == 0 ? 0 : -1;
    if (strcmp(k, "threshold") == 0) {
        *set |= LIVE_SET_THRESHOLD;
        return get_int(it, 0, 65535, &c->threshold);
    }
    if (strcmp(k, "keyframe_interval") == 0) {
        *set |= LIVE_SET_KEYFRAME;
        return get_int(it, 0, 1 << 30, &c->keyframe_interval);
    }
    if (strcmp(k, "denoise") == 0) {
        if (!cJSON_IsString(it) || (i = name_index(denoise_names, it->valuestring)) < 0)
            return -1;
        *set |= LIVE_SET_DENOISE;
        c->denoise = i;
        return 0;
    }
    if (strcmp(k, "heat_norm") == 0) {
        if (!cJSON_IsString(it) || (i = name_index(heat_names, it->valuestring)) < 0)
            return -1;
        *set |= LIVE_SET_HEAT_NORM;
        c->heat_norm = i;
        return 0;
    }
    if (strcmp(k, "paused") == 0) {
        if (!cJSON_IsBool(it))
            return -1;
        *set |= LIVE_SET_PAUSED;
        c->paused = cJSON_IsTrue(it);
        return 0;
    }
    if (strcmp(k, "camera") == 0)
        return parse_camera(it, c, set);
    return -1;
}

int live_control_parse(const char *msg, size_t len, live_controls *c, int *set, char *err, size_t n)
{
    *set = 0;
    if (len > LIVE_CONTROL_MAX) {
        snprintf(err, n, "control message of %zu bytes (at most %d)", len, LIVE_CONTROL_MAX);
        return -1;
    }
    cJSON *root = cJSON_ParseWithLength(msg, len);
    if (!root || !cJSON_IsObject(root)) {
        snprintf(err, n, "control message is not a JSON object");
        cJSON_Delete(root);
        return -1;
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    live_controls next = *c;
    next.camera_set = 0;
    int rc = cJSON_IsString(type) ? 0 : -1;
    if (rc < 0)
        snprintf(err, n, "control message without \"type\": \"control\"");
    for (const cJSON *it = root->child; it && rc == 0; it = it->next) {
        if (!it->string || parse_field(it, &next, set) < 0) {
            snprintf(err, n, "bad control field \"%.40s\"", it->string ? it->string : "");
            rc = -1;
        }
    }
    cJSON_Delete(root);
    if (rc == 0)
        *c = next;
    else
        *set = 0;
    return rc;
}

static cJSON *camera_json(const live_camera_state *cam)
{
    static const struct {
        unsigned bit;
        const char *name;
    } flags[] = {{LIVE_CAM_DISABLED, "disabled"},
                 {LIVE_CAM_INACTIVE, "inactive"},
                 {LIVE_CAM_READ_ONLY, "read_only"},
                 {LIVE_CAM_GRABBED, "grabbed"}};
    cJSON *list = cJSON_CreateArray();
    for (int i = 0; list && i < LIVE_CAM_COUNT; i++) {
        const live_camera_control *k = &cam->ctl[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddItemToArray(list, o);
        cJSON_AddStringToObject(o, "name", live_camera_names[i]);
        cJSON_AddStringToObject(o, "kind", live_camera_is_bool(i) ? "bool" : "int");
        const int available = k->available && !cam->error[0];
        cJSON_AddBoolToObject(o, "available", available);
        cJSON_AddBoolToObject(o, "settable", available && k->flags == 0);
        if (!available)
            continue;
        cJSON_AddNumberToObject(o, "min", k->min);
        cJSON_AddNumberToObject(o, "max", k->max);
        cJSON_AddNumberToObject(o, "step", k->step);
        cJSON_AddNumberToObject(o, "default", k->def);
        cJSON_AddNumberToObject(o, "value", k->value);
        cJSON *f = cJSON_AddArrayToObject(o, "flags");
        for (size_t j = 0; f && j < sizeof flags / sizeof flags[0]; j++)
            if (k->flags & flags[j].bit)
                cJSON_AddItemToArray(f, cJSON_CreateString(flags[j].name));
    }
    return list;
}

char *live_error_json(const char *msg)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "type", "error");
    cJSON_AddStringToObject(o, "message", msg);
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

char *live_state_json(const live_controls *c, const live_camera_state *cam, const char *role,
                      int clients)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "type", "state");
    cJSON_AddStringToObject(o, "role", role);
    cJSON_AddNumberToObject(o, "threshold", c->threshold);
    cJSON_AddStringToObject(o, "denoise", denoise_names[c->denoise & 3]);
    cJSON_AddNumberToObject(o, "keyframe_interval", c->keyframe_interval);
    cJSON_AddStringToObject(o, "heat_norm", heat_names[c->heat_norm & 1]);
    cJSON_AddBoolToObject(o, "paused", c->paused);
    cJSON_AddNumberToObject(o, "clients", clients);
    cJSON_AddBoolToObject(o, "camera", cam != NULL);
    if (cam) {
        if (cam->error[0])
            cJSON_AddStringToObject(o, "camera_error", cam->error);
        cJSON *list = camera_json(cam);
        if (list)
            cJSON_AddItemToObject(o, "camera_controls", list);
    }
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}
