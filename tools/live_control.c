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

char *live_state_json(const live_controls *c, const char *role, int clients)
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
    /* camera controls (V4L2) need a camera source: none yet (docs/live.md) */
    cJSON_AddBoolToObject(o, "camera", 0);
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}
