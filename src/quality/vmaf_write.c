/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* libvmaf's output formats of a fovea_vmaf's kept frames: the JSON layout of
 * `vmaf --json` (frames, pooled_metrics, aggregate_metrics, then the
 * caller's "fovea" members) and its CSV. Numbers are %.17g (they read back
 * as the same double); JSON has no NaN or infinity: null. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "quality/vmaf_context.h"

static cJSON *number(double x)
{
    if (!isfinite(x))
        return cJSON_CreateNull();
    char buf[64];
    snprintf(buf, sizeof(buf), "%.17g", x);
    return cJSON_CreateRaw(buf);
}

static void add_field(cJSON *obj, const fovea_vmaf_field *f)
{
    switch (f->type) {
    case FOVEA_VMAF_FIELD_STRING: cJSON_AddStringToObject(obj, f->key, f->str ? f->str : ""); break;
    case FOVEA_VMAF_FIELD_NUMBER: cJSON_AddNumberToObject(obj, f->key, f->num); break;
    case FOVEA_VMAF_FIELD_EXACT: cJSON_AddItemToObject(obj, f->key, number(f->num)); break;
    default: cJSON_AddBoolToObject(obj, f->key, f->num != 0.0); break;
    }
}

static cJSON *json_tree(const fovea_vmaf *v, const fovea_vmaf_output *o)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    char ver[64];
    snprintf(ver, sizeof(ver), "fovea %s", fovea_version());
    cJSON_AddStringToObject(root, "version", ver);
    cJSON_AddNumberToObject(root, "fps", o ? o->fps : 0.0);
    cJSON *frames = cJSON_AddArrayToObject(root, "frames");
    const int nm = v->n_metrics;
    for (int64_t i = 0; frames && i < v->n_kept; i++) {
        cJSON *fr = cJSON_CreateObject();
        cJSON_AddItemToArray(frames, fr);
        cJSON_AddNumberToObject(fr, "frameNum", (double)(i * v->set.subsample));
        cJSON *m = cJSON_AddObjectToObject(fr, "metrics");
        const double *row = v->kept + (size_t)i * (size_t)nm;
        for (int k = 0; m && k < nm; k++)
            cJSON_AddItemToObject(m, v->names[k], number(row[k]));
    }
    fovea_vmaf_pooled_scores pl;
    fovea_vmaf_pooled(v, &pl);
    cJSON *pooled = cJSON_AddObjectToObject(root, "pooled_metrics");
    for (int k = 0; pooled && pl.frames > 0 && k < nm; k++) {
        cJSON *p = cJSON_AddObjectToObject(pooled, v->names[k]);
        if (!p)
            break;
        cJSON_AddItemToObject(p, "min", number(pl.metric[k].min));
        cJSON_AddItemToObject(p, "max", number(pl.metric[k].max));
        cJSON_AddItemToObject(p, "mean", number(pl.metric[k].mean));
        cJSON_AddItemToObject(p, "harmonic_mean", number(pl.metric[k].harmonic_mean));
    }
    cJSON *agg = cJSON_AddObjectToObject(root, "aggregate_metrics");
    fovea_vmaf_aggregates ag;
    fovea_vmaf_aggregate(v, &ag);
    for (int k = 0; agg && k < ag.count; k++)
        cJSON_AddItemToObject(agg, ag.name[k], number(ag.value[k]));
    if (o && o->fields) {
        cJSON *fv = cJSON_AddObjectToObject(root, "fovea");
        for (int i = 0; fv && i < o->n_fields; i++)
            add_field(fv, &o->fields[i]);
    }
    return root;
}

static int write_csv(const fovea_vmaf *v, FILE *f)
{
    const int nm = v->n_metrics;
    fputs("Frame", f);
    for (int k = 0; k < nm; k++)
        fprintf(f, ",%s", v->names[k]);
    fputc('\n', f);
    for (int64_t i = 0; i < v->n_kept; i++) {
        fprintf(f, "%lld", (long long)(i * v->set.subsample));
        const double *row = v->kept + (size_t)i * (size_t)nm;
        for (int k = 0; k < nm; k++)
            fprintf(f, ",%.17g", row[k]);
        fputc('\n', f);
    }
    return ferror(f) ? fv_ctx_error(v->ctx, FOVEA_ERR_IO, "vmaf: write error") : FOVEA_OK;
}

int fovea_vmaf_write(const fovea_vmaf *v, FILE *f, fovea_vmaf_format format,
                     const fovea_vmaf_output *o)
{
    if (!v || !f)
        return FOVEA_ERR_INVALID_ARG;
    if (!v->set.keep_frames)
        return fv_ctx_error(v->ctx, FOVEA_ERR_INVALID_ARG,
                            "vmaf: writing needs settings.keep_frames");
    if (format == FOVEA_VMAF_OUTPUT_CSV)
        return write_csv(v, f);
    if (format != FOVEA_VMAF_OUTPUT_JSON)
        return fv_ctx_error(v->ctx, FOVEA_ERR_INVALID_ARG, "vmaf: unknown output format %d",
                            (int)format);
    cJSON *root = json_tree(v, o);
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return fv_ctx_error(v->ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    const int bad = fputs(text, f) == EOF || fputc('\n', f) == EOF;
    free(text);
    return bad ? fv_ctx_error(v->ctx, FOVEA_ERR_IO, "vmaf: write error") : FOVEA_OK;
}

int64_t fovea_vmaf_kept_frames(const fovea_vmaf *v)
{
    return v ? v->n_kept : 0;
}

const double *fovea_vmaf_kept_values(const fovea_vmaf *v, int64_t i)
{
    if (!v || i < 0 || i >= v->n_kept)
        return NULL;
    return v->kept + (size_t)i * (size_t)v->n_metrics;
}
