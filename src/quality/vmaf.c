/* Public VMAF API: models, the extractor instances and metric names of a
 * context (libvmaf's names, order and option suffixes), the queue with
 * motion's one-frame lookahead, every reported double derived from a
 * backend's raw values, the model's score and libvmaf's pooling.
 * docs/vmaf.md, "VMAF API". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/quality.h"
#include "quality/model.h"
#include "quality/motion.h"
#include "quality/vmaf_internal.h"

struct fovea_vmaf_model {
    vmaf_model *m;
};

/* What one metric reports: a value of extractor instance ex. */
typedef enum metric_kind {
    M_ADM2,
    M_AIM,
    M_ADM3,
    M_ADM_SCALE, /* + scale */
    M_MOTION,    /* VMAF_integer_feature_motion_sad_score */
    M_MOTION2,
    M_MOTION3,
    M_VIF_SCALE, /* + scale */
    M_VMAF
} metric_kind;

typedef struct metric {
    metric_kind kind;
    int ex;    /* instance */
    int scale; /* M_ADM_SCALE, M_VIF_SCALE */
} metric;

/* Longest name: the motion SAD's with every option suffix. */
#define VMAF_NAME_LEN 160

typedef struct ex_info {
    vmaf_ex_params bp;       /* what the backend gets */
    vmaf_feature_opts opts;  /* the model's options (names, motion derivation) */
    double carry;            /* motion3's moving average within the stream */
} ex_info;

/* One submitted pair until its scores are received. */
typedef struct entry {
    int64_t frame;        /* number of the pair since open or reset */
    int64_t index;        /* its index in its stream */
    int width, height;    /* its size (the derivations use it) */
    int last;             /* the stream was flushed after it */
    int have_raw;         /* raw filled (otherwise still inside the backend) */
    vmaf_raw raw;
} entry;

struct fovea_vmaf {
    fovea_context *ctx;
    fovea_vmaf_settings set;
    fovea_vmaf_model *own_model; /* the built-in model when settings.model is NULL */
    const vmaf_model *model;
    int predict;                 /* the model's score is a metric */
    int has_motion;              /* lookahead needed */
    int min_dim;                 /* smallest width and height */
    const char *min_metric;      /* the extractor that needs min_dim */

    int n_ex;
    ex_info ex[VMAF_MAX_EXTRACTORS];
    int n_metrics;
    metric metrics[FOVEA_VMAF_MAX_METRICS];
    char names[FOVEA_VMAF_MAX_METRICS][VMAF_NAME_LEN];
    int feat_metric[VMAF_MODEL_MAX_FEATURES]; /* model feature -> metric */

    const vmaf_backend *backend;
    void *priv;
    vmaf_params params; /* of priv; width 0 = none */

    /* pending pairs, oldest first: the first (count - queued) have raw values,
     * the last queued ones are inside an asynchronous backend */
    entry *q;
    int q_cap, q_head, q_count, queued;

    /* the stream being submitted */
    int stream_open;
    int64_t stream_next; /* index of the next pair in the stream */
    int s_width, s_height, s_bpc;
    int64_t submitted;   /* frame number of the next pair */

    /* pooling, in frame order */
    int64_t frames;
    double sum[FOVEA_VMAF_MAX_METRICS], inv_sum[FOVEA_VMAF_MAX_METRICS];
    double min[FOVEA_VMAF_MAX_METRICS], max[FOVEA_VMAF_MAX_METRICS];
};

/* ---------------------------------------------------------------- models */

int fovea_vmaf_model_load(fovea_vmaf_model **m, fovea_context *ctx, const char *path)
{
    if (!m)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: NULL model pointer");
    *m = NULL;
    if (!path)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: NULL model path");
    fovea_vmaf_model *vm = calloc(1, sizeof(*vm));
    if (!vm)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    char err[FOVEA_ERRLEN];
    int st = vmaf_model_load(&vm->m, path, err, sizeof err);
    if (st < 0) {
        free(vm);
        return fv_ctx_error(ctx, st, "vmaf: model %s", err);
    }
    *m = vm;
    return FOVEA_OK;
}

int fovea_vmaf_model_builtin(fovea_vmaf_model **m, fovea_context *ctx, const char *version)
{
    if (!m)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: NULL model pointer");
    *m = NULL;
    if (!version)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: NULL model version");
    fovea_vmaf_model *vm = calloc(1, sizeof(*vm));
    if (!vm)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    char err[FOVEA_ERRLEN];
    int st = vmaf_model_load_version(&vm->m, version, err, sizeof err);
    if (st < 0) {
        free(vm);
        return fv_ctx_error(ctx, st, "vmaf: %s", err);
    }
    *m = vm;
    return FOVEA_OK;
}

void fovea_vmaf_model_free(fovea_vmaf_model **m)
{
    if (!m || !*m)
        return;
    vmaf_model_free(&(*m)->m);
    free(*m);
    *m = NULL;
}

/* ---------------------------------------------------------------- names */

/* libvmaf's option suffix of an extractor instance (feature_name.c): every
 * option that differs from the extractor's default, in the alphabetical order
 * of the option names, as _<alias>_<value> (%g for doubles, %d for ints) or
 * _<alias> for a bool; empty when every option is the default. */
static void option_suffix(const ex_info *x, char *buf, size_t n)
{
    const vmaf_feature_opts *o = &x->opts;
    size_t len = 0;
    buf[0] = '\0';
#define ADD(...) (len += (size_t)snprintf(buf + len, len < n ? n - len : 0, __VA_ARGS__))
    switch (x->bp.type) {
    case VMAF_EX_ADM:
        if (o->adm_enhn_gain_limit != 100.0)
            ADD("_egl_%g", o->adm_enhn_gain_limit);
        if (o->adm_norm_view_dist != 3.0)
            ADD("_nvd_%g", o->adm_norm_view_dist);
        if (o->adm_ref_display_height != 1080)
            ADD("_rdh_%d", o->adm_ref_display_height);
        break;
    case VMAF_EX_VIF:
        if (o->vif_enhn_gain_limit != 100.0)
            ADD("_egl_%g", o->vif_enhn_gain_limit);
        break;
    case VMAF_EX_MOTION:
        if (o->motion_blend_factor != 1.0)
            ADD("_mbf_%g", o->motion_blend_factor);
        if (o->motion_blend_offset != 40.0)
            ADD("_mbo_%g", o->motion_blend_offset);
        if (o->motion_force_zero)
            ADD("_force_0");
        if (o->motion_fps_weight != 1.0)
            ADD("_mfw_%g", o->motion_fps_weight);
        if (o->motion_max_val != 10000.0)
            ADD("_mmxv_%g", o->motion_max_val);
        if (o->motion_moving_average)
            ADD("_mma");
        break;
    }
#undef ADD
}

static int add_metric(fovea_vmaf *v, metric_kind kind, int ex, int scale, const char *suffix)
{
    if (v->n_metrics == FOVEA_VMAF_MAX_METRICS)
        return fv_ctx_error(v->ctx, FOVEA_ERR_UNSUPPORTED,
                            "vmaf: the model needs more than %d metrics", FOVEA_VMAF_MAX_METRICS);
    static const char *const base[] = {
        "integer_adm2",    "integer_aim",     "integer_adm3",       "integer_adm_scale",
        "VMAF_integer_feature_motion_sad_score", "integer_motion2", "integer_motion3",
        "integer_vif_scale", "vmaf"};
    char *name = v->names[v->n_metrics];
    if (kind == M_ADM_SCALE || kind == M_VIF_SCALE)
        snprintf(name, VMAF_NAME_LEN, "%s%d%s", base[kind], scale, suffix);
    else
        snprintf(name, VMAF_NAME_LEN, "%s%s", base[kind], suffix);
    metric *m = &v->metrics[v->n_metrics++];
    m->kind = kind;
    m->ex = ex;
    m->scale = scale;
    return FOVEA_OK;
}

static int find_metric(const fovea_vmaf *v, metric_kind kind, int ex, int scale)
{
    for (int i = 0; i < v->n_metrics; i++)
        if (v->metrics[i].kind == kind && v->metrics[i].ex == ex &&
            v->metrics[i].scale == scale)
            return i;
    return -1;
}

/* ---------------------------------------------------------------- plan */

static vmaf_ex_type type_of(vmaf_feature_kind k)
{
    return k == VMAF_FEATURE_ADM2      ? VMAF_EX_ADM
           : k == VMAF_FEATURE_MOTION2 ? VMAF_EX_MOTION
                                       : VMAF_EX_VIF;
}

static int same_opts(vmaf_ex_type t, const vmaf_feature_opts *a, const vmaf_feature_opts *b)
{
    switch (t) {
    case VMAF_EX_VIF:
        return a->vif_enhn_gain_limit == b->vif_enhn_gain_limit;
    case VMAF_EX_ADM:
        return a->adm_enhn_gain_limit == b->adm_enhn_gain_limit &&
               a->adm_norm_view_dist == b->adm_norm_view_dist &&
               a->adm_ref_display_height == b->adm_ref_display_height;
    default:
        return a->motion_force_zero == b->motion_force_zero &&
               a->motion_fps_weight == b->motion_fps_weight &&
               a->motion_max_val == b->motion_max_val &&
               a->motion_blend_factor == b->motion_blend_factor &&
               a->motion_blend_offset == b->motion_blend_offset &&
               a->motion_moving_average == b->motion_moving_average;
    }
}

static void default_opts(vmaf_feature_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->adm_enhn_gain_limit = 100.0;
    o->adm_norm_view_dist = 3.0;
    o->adm_ref_display_height = 1080;
    o->vif_enhn_gain_limit = FOVEA_VIF_ENHN_GAIN_LIMIT_MAX;
    o->motion_fps_weight = 1.0;
    o->motion_max_val = 10000.0;
    o->motion_blend_factor = 1.0;
    o->motion_blend_offset = 40.0;
}

static int add_instance(fovea_vmaf *v, vmaf_ex_type t, const vmaf_feature_opts *o)
{
    for (int e = 0; e < v->n_ex; e++)
        if (v->ex[e].bp.type == t && same_opts(t, &v->ex[e].opts, o))
            return e;
    if (v->n_ex == VMAF_MAX_EXTRACTORS)
        return fv_ctx_error(v->ctx, FOVEA_ERR_UNSUPPORTED,
                            "vmaf: the model needs more than %d extractor instances",
                            VMAF_MAX_EXTRACTORS);
    ex_info *x = &v->ex[v->n_ex];
    memset(x, 0, sizeof(*x));
    x->opts = *o;
    x->bp.type = t;
    if (t == VMAF_EX_VIF) {
        x->bp.enhn_gain_limit = o->vif_enhn_gain_limit;
    } else if (t == VMAF_EX_ADM) {
        x->bp.enhn_gain_limit = o->adm_enhn_gain_limit;
        x->bp.norm_view_dist = o->adm_norm_view_dist;
        x->bp.ref_display_height = o->adm_ref_display_height;
        /* libvmaf refuses these too (its level-0 pipeline would overflow) */
        if (o->adm_norm_view_dist * o->adm_ref_display_height < 3.0 * 1080)
            return fv_ctx_error(v->ctx, FOVEA_ERR_UNSUPPORTED,
                                "vmaf: adm_norm_view_dist * adm_ref_display_height = %g is "
                                "below 3 * 1080", o->adm_norm_view_dist *
                                                      o->adm_ref_display_height);
    } else {
        x->bp.force_zero = o->motion_force_zero;
    }
    return v->n_ex++;
}

/* The instances and metrics: libvmaf registers one extractor per distinct
 * (extractor, options) in the order the model names its features, and prints
 * the features in the order they first reach its collector: each instance's
 * per-frame features (ADM: adm2, aim, adm3, scale0..3; motion: the SAD score;
 * VIF: scale0..3), then motion2 and motion3, which its motion extractor
 * writes at the flush, then the score. */
static int build_plan(fovea_vmaf *v)
{
    const vmaf_model *m = v->model;
    int ex_of[VMAF_MODEL_MAX_FEATURES];
    if (v->set.features == FOVEA_VMAF_FEATURES_VIF) {
        vmaf_feature_opts o;
        default_opts(&o);
        FOVEA_TRY(add_instance(v, VMAF_EX_VIF, &o));
    } else {
        for (int i = 0; i < m->n_features; i++) {
            int e = add_instance(v, type_of(m->feature[i].kind), &m->feature[i].opts);
            if (e < 0)
                return e;
            ex_of[i] = e;
        }
    }
    char suffix[VMAF_NAME_LEN];
    for (int e = 0; e < v->n_ex; e++) {
        option_suffix(&v->ex[e], suffix, sizeof suffix);
        switch (v->ex[e].bp.type) {
        case VMAF_EX_ADM:
            FOVEA_TRY(add_metric(v, M_ADM2, e, 0, suffix));
            FOVEA_TRY(add_metric(v, M_AIM, e, 0, suffix));
            FOVEA_TRY(add_metric(v, M_ADM3, e, 0, suffix));
            for (int s = 0; s < ADM_SCALES; s++)
                FOVEA_TRY(add_metric(v, M_ADM_SCALE, e, s, suffix));
            break;
        case VMAF_EX_MOTION:
            FOVEA_TRY(add_metric(v, M_MOTION, e, 0, suffix));
            v->has_motion = 1;
            break;
        case VMAF_EX_VIF:
            for (int s = 0; s < FOVEA_VIF_SCALES; s++)
                FOVEA_TRY(add_metric(v, M_VIF_SCALE, e, s, suffix));
            break;
        }
    }
    for (int e = 0; e < v->n_ex; e++) {
        if (v->ex[e].bp.type != VMAF_EX_MOTION)
            continue;
        option_suffix(&v->ex[e], suffix, sizeof suffix);
        FOVEA_TRY(add_metric(v, M_MOTION2, e, 0, suffix));
        FOVEA_TRY(add_metric(v, M_MOTION3, e, 0, suffix));
    }
    if (v->predict) {
        FOVEA_TRY(add_metric(v, M_VMAF, -1, 0, ""));
        for (int i = 0; i < m->n_features; i++) {
            const vmaf_feature_kind k = m->feature[i].kind;
            if (k == VMAF_FEATURE_ADM2)
                v->feat_metric[i] = find_metric(v, M_ADM2, ex_of[i], 0);
            else if (k == VMAF_FEATURE_MOTION2)
                v->feat_metric[i] = find_metric(v, M_MOTION2, ex_of[i], 0);
            else
                v->feat_metric[i] =
                    find_metric(v, M_VIF_SCALE, ex_of[i], (int)(k - VMAF_FEATURE_VIF_SCALE0));
        }
    }
    v->min_dim = VIF_MIN_DIM;
    v->min_metric = "VIF";
    for (int e = 0; e < v->n_ex; e++) {
        if (v->ex[e].bp.type == VMAF_EX_ADM) {
            v->min_dim = ADM_MIN_DIM;
            v->min_metric = "ADM";
        }
    }
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- lifecycle */

void fovea_vmaf_default_settings(fovea_vmaf_settings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->model = NULL;
    s->features = FOVEA_VMAF_FEATURES_MODEL;
    s->flags = 0;
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
    if (set.features != FOVEA_VMAF_FEATURES_MODEL &&
        set.features != FOVEA_VMAF_FEATURES_MODEL_ONLY && set.features != FOVEA_VMAF_FEATURES_VIF)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: unknown features %d",
                            (int)set.features);
    if (set.flags & ~(FOVEA_VMAF_ENABLE_TRANSFORM | FOVEA_VMAF_DISABLE_CLIP))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: unknown flags 0x%x", set.flags);
    if (set.model && !set.model->m)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: empty model");

    fovea_vmaf *v = calloc(1, sizeof(*v));
    if (!v)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    v->ctx = ctx;
    v->set = set;
    int st = FOVEA_OK;
    if (set.model) {
        v->model = set.model->m;
    } else {
        st = fovea_vmaf_model_builtin(&v->own_model, ctx, "vmaf_v0.6.1");
        if (st < 0)
            goto fail;
        v->model = v->own_model->m;
    }
    v->predict = set.features == FOVEA_VMAF_FEATURES_MODEL;
    st = build_plan(v);
    if (st < 0)
        goto fail;

    const backend_info *b = NULL;
    char msg[FOVEA_ERRLEN];
    st = backend_pick(ctx, vmaf_backends, vmaf_backend_count, fovea_context_backend(ctx), &b,
                      msg, sizeof msg);
    if (st < 0) {
        st = fv_ctx_error(ctx, st, "vmaf: %s", msg);
        goto fail;
    }
    v->backend = (const vmaf_backend *)b; /* b is its info, the first member */
    *out = v;
    return FOVEA_OK;

fail:
    fovea_vmaf_model_free(&v->own_model);
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
    fovea_vmaf_model_free(&v->own_model);
    free(v->q);
    free(v);
    *pv = NULL;
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

/* ---------------------------------------------------------------- queue */

static entry *q_at(fovea_vmaf *v, int i)
{
    return &v->q[(v->q_head + i) % v->q_cap];
}

/* Room for one more entry at the end of the queue, or a status. */
static int q_reserve(fovea_vmaf *v)
{
    if (v->q_count == v->q_cap) {
        if (v->q_cap > INT32_MAX / 2)
            return fv_ctx_error(v->ctx, FOVEA_ERR_INVALID_ARG, "vmaf: too many pairs pending");
        const int ncap = v->q_cap ? 2 * v->q_cap : 8;
        entry *n = malloc((size_t)ncap * sizeof(*n));
        if (!n)
            return fv_ctx_error(v->ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
        for (int i = 0; i < v->q_count; i++)
            n[i] = *q_at(v, i);
        free(v->q);
        v->q = n;
        v->q_cap = ncap;
        v->q_head = 0;
    }
    return FOVEA_OK;
}

/* A new entry at the end of the queue (after q_reserve: cannot fail). */
static entry *q_push(fovea_vmaf *v)
{
    entry *e = &v->q[(v->q_head + v->q_count) % v->q_cap];
    v->q_count++;
    memset(e, 0, sizeof(*e));
    return e;
}

/* The backend's oldest queued result into its entry. */
static int collect_one(fovea_vmaf *v)
{
    entry *e = q_at(v, v->q_count - v->queued);
    int st = v->backend->collect(v->priv, v->ctx, &e->raw);
    if (st < 0)
        return st;
    e->have_raw = 1;
    v->queued--;
    return FOVEA_OK;
}

/* Collect every pair queued in the backend (results kept for receive). */
static int drain(fovea_vmaf *v)
{
    while (v->queued > 0)
        FOVEA_TRY(collect_one(v));
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- submit */

int fovea_vmaf_submit(fovea_vmaf *v, const fovea_frame *ref, const fovea_frame *dis)
{
    if (!v)
        return FOVEA_ERR_INVALID_ARG;
    fovea_context *ctx = v->ctx;
    const fovea_backend kind = v->backend->info.kind;
    const int bpc = vif_check_frame(ctx, kind, ref, "vmaf", "reference", v->min_metric,
                                    v->min_dim);
    if (bpc < 0)
        return bpc;
    const int bpc_dis = vif_check_frame(ctx, kind, dis, "vmaf", "distorted", v->min_metric,
                                        v->min_dim);
    if (bpc_dis < 0)
        return bpc_dis;
    if (ref->width != dis->width || ref->height != dis->height)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH,
                            "vmaf: reference is %dx%d but distorted is %dx%d", ref->width,
                            ref->height, dis->width, dis->height);
    if (bpc != bpc_dis)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH,
                            "vmaf: reference is %d-bit but distorted is %d-bit", bpc, bpc_dis);
    if (v->stream_open &&
        (ref->width != v->s_width || ref->height != v->s_height || bpc != v->s_bpc))
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH,
                            "vmaf: the stream is %dx%d at %d bits, this pair %dx%d at %d bits "
                            "(flush the stream first)", v->s_width, v->s_height, v->s_bpc,
                            ref->width, ref->height, bpc);

    vmaf_params p;
    memset(&p, 0, sizeof(p));
    p.width = ref->width;
    p.height = ref->height;
    p.bpc = bpc;
    p.n_ex = v->n_ex;
    for (int e = 0; e < v->n_ex; e++)
        p.ex[e] = v->ex[e].bp;
    int st;
    if (!v->priv || p.width != v->params.width || p.height != v->params.height ||
        p.bpc != v->params.bpc) {
        if (v->priv) {
            /* the queued pairs of the old size are scored with the old state */
            FOVEA_TRY(drain(v));
            v->backend->info.close(&v->priv);
        }
        memset(&v->params, 0, sizeof(v->params));
        FOVEA_TRY(v->backend->info.init(&v->priv, ctx, &p));
        v->params = p;
    }

    FOVEA_TRY(q_reserve(v));
    const int new_stream = !v->stream_open;
    vif_plane rp = {ref->data[0], ref->stride[0], ref->mem};
    vif_plane dp = {dis->data[0], dis->stride[0], dis->mem};
    entry *e;
    if (!v->backend->submit) {
        e = q_push(v);
        st = v->backend->process(v->priv, ctx, &rp, &dp, new_stream, &e->raw);
        if (st < 0) {
            v->q_count--; /* e is the newest entry */
            return st;
        }
        e->have_raw = 1;
    } else {
        /* the backend's results fill the entries in order: the new entry
         * joins the queue once the backend took the pair */
        while ((st = v->backend->submit(v->priv, ctx, &rp, &dp, new_stream)) ==
               VMAF_QUEUE_FULL)
            FOVEA_TRY(collect_one(v));
        if (st < 0)
            return st;
        e = q_push(v);
        v->queued++;
    }
    e->frame = v->submitted;
    e->index = v->stream_open ? v->stream_next : 0;
    e->width = p.width;
    e->height = p.height;
    if (new_stream) {
        v->stream_open = 1;
        v->stream_next = 0;
        v->s_width = p.width;
        v->s_height = p.height;
        v->s_bpc = bpc;
    }
    v->stream_next++;
    v->submitted++;
    return FOVEA_OK;
}

int fovea_vmaf_flush(fovea_vmaf *v)
{
    if (!v)
        return FOVEA_ERR_INVALID_ARG;
    if (v->stream_open && v->q_count > 0)
        q_at(v, v->q_count - 1)->last = 1;
    v->stream_open = 0;
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- receive */

/* Every metric of entry e; n is the next pair of its stream (NULL at the end
 * of the stream). */
static void derive(fovea_vmaf *v, const entry *e, const entry *n, double *value)
{
    fovea_vif_scores vs[VMAF_MAX_EXTRACTORS];
    adm_result ar[VMAF_MAX_EXTRACTORS];
    motion_scores ms[VMAF_MAX_EXTRACTORS];
    for (int x = 0; x < v->n_ex; x++) {
        ex_info *xi = &v->ex[x];
        if (xi->bp.type == VMAF_EX_VIF) {
            vif_derive(&e->raw.ex[x].vif, 0, &vs[x]);
        } else if (xi->bp.type == VMAF_EX_ADM) {
            adm_derive(&e->raw.ex[x].adm, e->width, e->height, &ar[x]);
        } else {
            const vmaf_feature_opts *o = &xi->opts;
            motion_params mp;
            motion_default_params(&mp, e->width, e->height, 8);
            mp.force_zero = o->motion_force_zero;
            mp.fps_weight = o->motion_fps_weight;
            mp.max_val = o->motion_max_val;
            mp.blend_factor = o->motion_blend_factor;
            mp.blend_offset = o->motion_blend_offset;
            mp.moving_average = o->motion_moving_average;
            /* frame 0 of a stream has no previous frame: motion 0 */
            const double score = e->index == 0 ? 0.0 : motion_sad_score(e->raw.ex[x].sad, &mp);
            const double next = n ? motion_sad_score(n->raw.ex[x].sad, &mp) : 0.0;
            motion_derive(&mp, e->index, score, n != NULL, next, &xi->carry, &ms[x]);
        }
    }
    for (int i = 0; i < v->n_metrics; i++) {
        const metric *m = &v->metrics[i];
        double x = 0.0;
        switch (m->kind) {
        case M_ADM2: x = ar[m->ex].adm2; break;
        case M_AIM: x = ar[m->ex].aim; break;
        case M_ADM3: x = ar[m->ex].adm3; break;
        case M_ADM_SCALE: x = ar[m->ex].scale[m->scale]; break;
        case M_MOTION: x = ms[m->ex].motion; break;
        case M_MOTION2: x = ms[m->ex].motion2; break;
        case M_MOTION3: x = ms[m->ex].motion3; break;
        case M_VIF_SCALE: x = vs[m->ex].scale[m->scale]; break;
        case M_VMAF: {
            double f[VMAF_MODEL_MAX_FEATURES];
            for (int k = 0; k < v->model->n_features; k++)
                f[k] = value[v->feat_metric[k]];
            int flags = 0;
            if (v->set.flags & FOVEA_VMAF_ENABLE_TRANSFORM)
                flags |= VMAF_PREDICT_ENABLE_TRANSFORM;
            if (v->set.flags & FOVEA_VMAF_DISABLE_CLIP)
                flags |= VMAF_PREDICT_DISABLE_CLIP;
            x = vmaf_model_predict(v->model, f, flags);
            break;
        }
        }
        value[i] = x;
    }
}

int fovea_vmaf_receive(fovea_vmaf *v, fovea_vmaf_scores *out)
{
    if (!v)
        return FOVEA_ERR_INVALID_ARG;
    if (v->q_count == 0)
        return FOVEA_EOF;
    entry *e = q_at(v, 0);
    entry *n = NULL;
    if (v->has_motion && !e->last) {
        /* motion2 of this pair needs the next one */
        if (v->q_count < 2)
            return FOVEA_EOF;
        n = q_at(v, 1);
    }
    while (!e->have_raw || (n && !n->have_raw))
        FOVEA_TRY(collect_one(v));

    fovea_vmaf_scores sc;
    sc.frame = e->frame;
    sc.count = v->n_metrics;
    derive(v, e, n, sc.value);
    for (int i = v->n_metrics; i < FOVEA_VMAF_MAX_METRICS; i++)
        sc.value[i] = 0.0;

    for (int i = 0; i < v->n_metrics; i++) {
        const double x = sc.value[i];
        v->sum[i] += x;
        v->inv_sum[i] += 1.0 / (x + 1.0);
        if (v->frames == 0 || x < v->min[i])
            v->min[i] = x;
        if (v->frames == 0 || x > v->max[i])
            v->max[i] = x;
    }
    v->frames++;
    v->q_head = (v->q_head + 1) % v->q_cap;
    v->q_count--;
    if (out)
        *out = sc;
    return FOVEA_OK;
}

int fovea_vmaf_pooled(const fovea_vmaf *v, fovea_vmaf_pooled_scores *out)
{
    if (!v || !out)
        return FOVEA_ERR_INVALID_ARG;
    memset(out, 0, sizeof(*out));
    out->frames = v->frames;
    out->count = v->n_metrics;
    if (v->frames == 0)
        return FOVEA_OK;
    const double n = (double)v->frames;
    for (int i = 0; i < v->n_metrics; i++) {
        out->metric[i].min = v->min[i];
        out->metric[i].max = v->max[i];
        out->metric[i].mean = v->sum[i] / n;
        out->metric[i].harmonic_mean = n / v->inv_sum[i] - 1.0;
    }
    return FOVEA_OK;
}

void fovea_vmaf_reset(fovea_vmaf *v)
{
    if (!v)
        return;
    /* finish the backend's queued pairs; on an error they are abandoned with
     * its state */
    if (drain(v) < 0 && v->priv) {
        v->backend->info.close(&v->priv);
        memset(&v->params, 0, sizeof(v->params));
        v->queued = 0;
    }
    v->q_head = 0;
    v->q_count = 0;
    v->stream_open = 0;
    v->stream_next = 0;
    v->submitted = 0;
    v->frames = 0;
    for (int i = 0; i < FOVEA_VMAF_MAX_METRICS; i++)
        v->sum[i] = v->inv_sum[i] = v->min[i] = v->max[i] = 0.0;
}
