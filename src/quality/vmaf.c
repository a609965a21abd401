/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The quality compositor: a model and/or a feature list in, the feature
 * instances of a context (libvmaf's names, order and option suffixes), the
 * queue with the one-frame lookahead, every reported double derived from a
 * driver's raw values by the features' derive, the model's score, libvmaf's
 * pooling and the frames kept for fovea_vmaf_write. docs/quality.md, "API". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quality/model.h"
#include "quality/vmaf_context.h"

/* ---------------------------------------------------------------- models */

static int model_open(fovea_vmaf_model **m, fovea_context *ctx, const char *what, int file)
{
    if (!m)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: NULL model pointer");
    *m = NULL;
    if (!what)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            file ? "vmaf: NULL model path" : "vmaf: NULL model version");
    fovea_vmaf_model *vm = calloc(1, sizeof(*vm));
    if (!vm)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    char err[FOVEA_ERRLEN];
    int st = file ? vmaf_model_load(&vm->m, what, err, sizeof err)
                  : vmaf_model_open_spec(&vm->m, what, err, sizeof err);
    if (st < 0) {
        free(vm);
        return fv_ctx_error(ctx, st, file ? "vmaf: model %s" : "vmaf: %s", err);
    }
    *m = vm;
    return FOVEA_OK;
}

int fovea_vmaf_model_open(fovea_vmaf_model **m, fovea_context *ctx, const char *spec)
{
    return model_open(m, ctx, spec, 0);
}

int fovea_vmaf_model_open_file(fovea_vmaf_model **m, fovea_context *ctx, const char *path)
{
    return model_open(m, ctx, path, 1);
}

const char *fovea_vmaf_model_name(const fovea_vmaf_model *m)
{
    return m && m->m ? m->m->name : NULL;
}

const char *fovea_builtin_vmaf_model(int i)
{
    return i >= 0 && i < vmaf_builtin_model_count ? vmaf_builtin_models[i].version : NULL;
}

void fovea_vmaf_model_close(fovea_vmaf_model **m)
{
    if (!m || !*m)
        return;
    vmaf_model_free(&(*m)->m);
    free(*m);
    *m = NULL;
}

/* ---------------------------------------------------------------- plan */

/* The instance of def with options o: an existing one with equal options,
 * or a new one. @return its index or a status */
static int add_instance(fovea_vmaf *v, const feature_def *def, const feature_opts *o)
{
    for (int e = 0; e < v->n_ex; e++)
        if (v->ex[e].def == def && feature_same_opts(def, &v->ex[e].opts, o))
            return e;
    if (v->n_ex == VMAF_MAX_EXTRACTORS)
        return fv_ctx_error(v->ctx, FOVEA_ERR_UNSUPPORTED, "vmaf: more than %d feature instances",
                            VMAF_MAX_EXTRACTORS);
    if (def->check) {
        char err[FOVEA_ERRLEN];
        int st = def->check(o, err, sizeof err);
        if (st < 0)
            return fv_ctx_error(v->ctx, st, "vmaf: %s", err);
    }
    vmaf_instance *x = &v->ex[v->n_ex];
    x->def = def;
    x->opts = *o;
    memset(v->state[v->n_ex], 0, sizeof(v->state[v->n_ex]));
    return v->n_ex++;
}

/* The features of a list "vif:debug=true,adm" (settings.features). */
static int add_list(fovea_vmaf *v, const char *list)
{
    char buf[1024];
    if (strlen(list) >= sizeof buf)
        return fv_ctx_error(v->ctx, FOVEA_ERR_INVALID_ARG, "vmaf: feature list too long");
    strcpy(buf, list);
    int n = 0;
    char *save_f = NULL;
    for (char *f = strtok_r(buf, ",", &save_f); f; f = strtok_r(NULL, ",", &save_f)) {
        char *save_o = NULL;
        char *name = strtok_r(f, ":", &save_o);
        const feature_def *def = feature_find(name);
        if (!def)
            return fv_ctx_error(v->ctx, FOVEA_ERR_INVALID_ARG, "vmaf: unknown feature \"%.40s\"",
                                name ? name : "");
        feature_opts o;
        feature_default_opts(def, &o);
        for (char *kv = strtok_r(NULL, ":", &save_o); kv; kv = strtok_r(NULL, ":", &save_o)) {
            char *eq = strchr(kv, '=');
            if (!eq)
                return fv_ctx_error(v->ctx, FOVEA_ERR_INVALID_ARG,
                                    "vmaf: %s: option \"%.40s\" has no value", def->name, kv);
            *eq = '\0';
            char err[FOVEA_ERRLEN];
            int st = feature_set_opt(def, &o, kv, eq + 1, err, sizeof err);
            if (st < 0)
                return fv_ctx_error(v->ctx, st, "vmaf: %s", err);
        }
        FOVEA_TRY(add_instance(v, def, &o));
        n++;
    }
    if (n == 0)
        return fv_ctx_error(v->ctx, FOVEA_ERR_INVALID_ARG, "vmaf: empty feature list");
    return FOVEA_OK;
}

static int add_metric(fovea_vmaf *v, int ex, int output, const char *name)
{
    if (v->n_metrics == FOVEA_VMAF_MAX_METRICS)
        return fv_ctx_error(v->ctx, FOVEA_ERR_UNSUPPORTED, "vmaf: more than %d metrics",
                            FOVEA_VMAF_MAX_METRICS);
    if (ex < 0) {
        for (int i = 0; i < v->n_metrics; i++)
            if (!strcmp(v->names[i], name))
                return fv_ctx_error(v->ctx, FOVEA_ERR_INVALID_ARG,
                                    "vmaf: two scores named \"%s\": give each model its own "
                                    "name (name=...)",
                                    name);
        snprintf(v->names[v->n_metrics], VMAF_NAME_LEN, "%s", name);
    } else {
        /* name is the instance's option suffix; some outputs never carry it */
        const int bare = v->ex[ex].def->outputs[output].late & FEATURE_BARE;
        snprintf(v->names[v->n_metrics], VMAF_NAME_LEN, "%s%s", v->ex[ex].def->outputs[output].name,
                 bare ? "" : name);
    }
    v->metric_ex[v->n_metrics] = ex;
    v->metric_out[v->n_metrics] = output;
    if (ex >= 0)
        v->out_metric[ex][output] = v->n_metrics;
    v->n_metrics++;
    return FOVEA_OK;
}

/* A scorer for model m: its features' instances. */
static int add_scorer(fovea_vmaf *v, const vmaf_model *m, int boot)
{
    if (v->n_scorers == VMAF_MAX_SCORERS)
        return fv_ctx_error(v->ctx, FOVEA_ERR_UNSUPPORTED, "vmaf: more than %d model scores",
                            VMAF_MAX_SCORERS);
    vmaf_scorer *s = &v->scorer[v->n_scorers];
    s->m = m;
    s->boot = boot;
    for (int i = 0; i < m->n_features; i++) {
        const int e = add_instance(v, m->feature[i].def, &m->feature[i].opts);
        if (e < 0)
            return e;
        s->feat_ex[i] = e;
    }
    return v->n_scorers++;
}

/* The metrics: libvmaf registers one extractor per distinct (feature,
 * options) in the order the models (then the list) name their features, and
 * prints the features in the order they first reach its collector: each
 * instance's per-frame outputs, then the outputs written at the end of the
 * stream (motion2, motion3); then each model's score (a collection's model
 * "0") in model order, then each collection's sub-model scores and its
 * statistics (libvmaf's CLI predicts the plain scores first). */
static int build_plan(fovea_vmaf *v)
{
    for (int k = 0; k < v->n_models; k++) {
        const vmaf_model *m = v->models[k];
        FOVEA_TRY(add_scorer(v, m, -1));
        for (int i = 0; i < m->n_sub; i++)
            FOVEA_TRY(add_scorer(v, m->sub[i], k));
    }
    if (v->features)
        FOVEA_TRY(add_list(v, v->features));
    char suffix[VMAF_NAME_LEN];
    for (int late = 0; late < 2; late++) {
        for (int e = 0; e < v->n_ex; e++) {
            const feature_def *d = v->ex[e].def;
            const int n = d->count ? d->count(&v->ex[e].opts) : d->n_outputs;
            if (v->set.flags & FOVEA_VMAF_NO_SUFFIX)
                suffix[0] = '\0';
            else
                feature_suffix(d, &v->ex[e].opts, suffix, sizeof suffix);
            for (int k = 0; k < n; k++)
                if ((d->outputs[k].late & ~FEATURE_BARE) == late &&
                    (!d->has_output || d->has_output(&v->ex[e].opts, k)))
                    FOVEA_TRY(add_metric(v, e, k, suffix));
        }
    }
    if (!v->predict)
        v->n_scorers = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int s = 0; s < v->n_scorers; s++) {
            vmaf_scorer *sc = &v->scorer[s];
            if ((sc->boot >= 0) != pass)
                continue;
            sc->metric = v->n_metrics;
            FOVEA_TRY(add_metric(v, -1, 0, sc->m->name));
            for (int i = 0; i < sc->m->n_features; i++)
                sc->feat_metric[i] = v->out_metric[sc->feat_ex[i]][sc->m->feature[i].output];
            const int last = s + 1 == v->n_scorers || v->scorer[s + 1].boot != sc->boot;
            if (pass == 1 && last) {
                /* the end of a collection: its statistics */
                vmaf_boot *b = &v->boot[v->n_boot++];
                b->m = v->models[sc->boot];
                b->n = b->m->n_sub;
                b->first = s + 1 - b->n;
                b->metric = v->n_metrics;
                static const char *const stat[4] = {"_bagging", "_stddev", "_ci_p95_lo",
                                                    "_ci_p95_hi"};
                for (int j = 0; j < 4; j++) {
                    char name[VMAF_NAME_LEN];
                    snprintf(name, sizeof name, "%s%s", b->m->name, stat[j]);
                    FOVEA_TRY(add_metric(v, -1, 0, name));
                }
            }
        }
    }
    v->min_dim = 0;
    for (int e = 0; e < v->n_ex; e++) {
        const feature_def *d = v->ex[e].def;
        if (d->min_dim > v->min_dim) {
            v->min_dim = d->min_dim;
            v->min_metric = d->label;
        }
        int history, lookahead;
        feature_window(d, &v->ex[e].opts, &history, &lookahead);
        v->ex_lookahead[e] = lookahead;
        if (history > v->history)
            v->history = history;
        if (history || lookahead)
            v->has_motion = 1;
        if (lookahead > v->lookahead)
            v->lookahead = lookahead;
        if (d->flags & FEATURE_CHROMA) {
            v->chroma = 1;
            v->chroma_metric = d->label;
        }
    }
    return FOVEA_OK;
}

const feature_extractor *vmaf_extractor(fovea_context *ctx, const vmaf_instance *x,
                                        fovea_backend kind)
{
    const feature_extractor *fx = feature_extractor_for(x->def, kind);
    if (!fx)
        fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                     "vmaf: feature %s has no %s extractor yet (the cpu backend computes it; "
                     "the automatic backend picks it)",
                     x->def->name, fovea_backend_name(kind));
    return fx;
}

/* ---------------------------------------------------------------- lifecycle */

void fovea_vmaf_default_settings(fovea_vmaf_settings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->model = NULL;
    s->models = NULL;
    s->n_models = 0;
    s->features = NULL;
    s->flags = 0;
    s->keep_frames = 0;
    s->subsample = 0;
}

int fovea_vmaf_open(fovea_vmaf **out, fovea_context *ctx, const fovea_vmaf_settings *s)
{
    if (!out)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: NULL output pointer");
    *out = NULL;
    if (!ctx)
        return FOVEA_ERR_INVALID_ARG;
    fovea_vmaf_settings set;
    if (s)
        set = *s;
    else
        fovea_vmaf_default_settings(&set);
    if (set.flags & ~(FOVEA_VMAF_ENABLE_TRANSFORM | FOVEA_VMAF_DISABLE_CLIP |
                      FOVEA_VMAF_NO_PREDICTION | FOVEA_VMAF_NO_SUFFIX))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: unknown flags 0x%x", set.flags);
    if (set.model && !set.model->m)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: empty model");
    if (set.subsample < 0)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: subsample %d is negative",
                            set.subsample);
    if (set.subsample == 0)
        set.subsample = 1;
    if (set.n_models < 0 || set.n_models > VMAF_MAX_MODELS - 1 || (set.n_models && !set.models))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: n_models must be 0 to %d",
                            VMAF_MAX_MODELS - 1);
    for (int k = 0; k < set.n_models; k++)
        if (!set.models[k] || !set.models[k]->m)
            return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: models[%d] is NULL", k);

    fovea_vmaf *v = calloc(1, sizeof(*v));
    if (!v)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    v->ctx = ctx;
    v->set = set;
    int st = FOVEA_OK;
    if (set.features) {
        v->features = strdup(set.features);
        if (!v->features) {
            st = fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
            goto fail;
        }
        v->set.features = v->features;
    }
    if (set.model)
        v->models[v->n_models++] = set.model->m;
    for (int k = 0; k < set.n_models; k++)
        v->models[v->n_models++] = set.models[k]->m;
    if (v->n_models == 0 && !set.features) {
        st = fovea_vmaf_model_open(&v->own_model, ctx, "vmaf_v0.6.1");
        if (st < 0)
            goto fail;
        v->models[v->n_models++] = v->own_model->m;
    }
    v->set.models = NULL; /* not kept: the caller's array may go */
    v->set.n_models = 0;
    v->predict = v->n_models > 0 && !(set.flags & FOVEA_VMAF_NO_PREDICTION);
    st = build_plan(v);
    if (st < 0)
        goto fail;

    const backend_info *b = NULL;
    char msg[FOVEA_ERRLEN];
    fovea_backend want = fovea_context_backend(ctx);
    /* a context that chose CUDA by itself (backend AUTO) runs a feature list
     * CUDA cannot run whole on the C backend; asked for CUDA, it is an error
     * naming the feature (below) */
    if (want == FOVEA_BACKEND_CUDA && ctx && ctx->settings.backend == FOVEA_BACKEND_AUTO) {
        for (int e = 0; e < v->n_ex; e++) {
            if (!feature_extractor_for(v->ex[e].def, FOVEA_BACKEND_CUDA)) {
                want = FOVEA_BACKEND_CPU;
                v->cpu_for = v->ex[e].def->name;
                break;
            }
        }
    }
    st = backend_pick(ctx, vmaf_backends, vmaf_backend_count, want, &b, msg, sizeof msg);
    if (st < 0) {
        st = fv_ctx_error(ctx, st, "vmaf: %s", msg);
        goto fail;
    }
    v->backend = (const vmaf_backend *)b; /* b is its info, the first member */
    for (int e = 0; e < v->n_ex; e++) {
        if (!vmaf_extractor(ctx, &v->ex[e], v->backend->info.kind)) {
            st = FOVEA_ERR_UNSUPPORTED;
            goto fail;
        }
    }
    *out = v;
    return FOVEA_OK;

fail:
    fovea_vmaf_model_close(&v->own_model);
    free(v->features);
    free(v);
    return st;
}

void fovea_vmaf_close(fovea_vmaf **pv)
{
    if (!pv || !*pv)
        return;
    fovea_vmaf *v = *pv;
    if (v->priv)
        v->backend->info.close(&v->priv);
    fovea_vmaf_model_close(&v->own_model);
    free(v->features);
    free(v->q);
    free(v->kept);
    free(v);
    *pv = NULL;
}

const char *fovea_vmaf_backend_reason(const fovea_vmaf *v)
{
    return v ? v->cpu_for : NULL;
}

fovea_backend fovea_vmaf_backend(const fovea_vmaf *v)
{
    return v ? v->backend->info.kind : FOVEA_BACKEND_CPU;
}

int fovea_vmaf_metric_count(const fovea_vmaf *v)
{
    return v ? v->n_metrics : 0;
}

const char *fovea_vmaf_metric_name(const fovea_vmaf *v, int i)
{
    if (!v || i < 0 || i >= v->n_metrics)
        return NULL;
    return v->names[i];
}

int fovea_vmaf_metric_index(const fovea_vmaf *v, const char *name)
{
    if (!v || !name)
        return -1;
    for (int i = 0; i < v->n_metrics; i++)
        if (!strcmp(v->names[i], name))
            return i;
    return -1;
}

int fovea_vmaf_batch_size(const fovea_vmaf *v, int width, int height)
{
    if (!v || !v->backend->batch)
        return 1;
    int n = v->backend->batch(v->ctx, width, height);
    return n < 1 ? 1 : n;
}

int64_t fovea_vmaf_pending(const fovea_vmaf *v)
{
    return v ? v->q_count : 0;
}
