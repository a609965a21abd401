/* VMAF C reference: the model's features from the VIF, ADM and motion
 * references, and the per-frame score (docs/quality.md, "VMAF model"). */
#include "quality/vmaf_ref.h"

#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fovea/fovea.h"
#include "fovea/quality.h"
#include "quality/adm.h"
#include "quality/motion.h"

/* One feature extractor instance: features of the same extractor with the same
 * options share it, as libvmaf's extractors do. */
typedef enum ex_type { EX_VIF, EX_ADM, EX_MOTION } ex_type;

typedef struct extractor {
    ex_type type;
    vmaf_feature_opts opts;
    fovea_vif *vif;
    adm_state *adm;
    motion_state *motion;
} extractor;

struct vmaf_ref {
    const vmaf_model *model;
    int flags;
    fovea_context *ctx; /* CPU context of the VIF extractors */
    int nex;
    extractor ex[VMAF_MODEL_MAX_FEATURES];
    int ex_of[VMAF_MODEL_MAX_FEATURES]; /* extractor of each model feature */
    int has_motion;
    int width, height, bpc;
    int opened;           /* extractors opened for width x height x bpc */
    int have_pending;     /* pending holds a frame waiting for its motion */
    vmaf_frame_score pending;
    int64_t frames_in;    /* pairs pushed */
    /* pooling */
    int64_t pooled;
    double sum, inv_sum, min, max;
};

static ex_type type_of(vmaf_feature_kind k)
{
    return k == VMAF_FEATURE_ADM2 ? EX_ADM : k == VMAF_FEATURE_MOTION2 ? EX_MOTION : EX_VIF;
}

static int same_opts(ex_type t, const vmaf_feature_opts *a, const vmaf_feature_opts *b)
{
    switch (t) {
    case EX_VIF: return a->vif_enhn_gain_limit == b->vif_enhn_gain_limit;
    case EX_ADM:
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

static void close_extractors(vmaf_ref *s)
{
    for (int i = 0; i < s->nex; i++) {
        fovea_vif_close(&s->ex[i].vif);
        adm_close(&s->ex[i].adm);
        motion_close(&s->ex[i].motion);
    }
    s->opened = 0;
}

int vmaf_ref_open(vmaf_ref **out, const vmaf_model *m, int flags)
{
    if (!out)
        return fv_ctx_error(NULL, FOVEA_ERR_INVALID_ARG, "vmaf: NULL argument");
    *out = NULL;
    if (!m || m->n_features < 1 || m->n_features > VMAF_MODEL_MAX_FEATURES)
        return fv_ctx_error(NULL, FOVEA_ERR_INVALID_ARG, "vmaf: no model");
    vmaf_ref *s = calloc(1, sizeof(*s));
    if (!s)
        return fv_ctx_error(NULL, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    s->model = m;
    s->flags = flags;
    for (int i = 0; i < m->n_features; i++) {
        const ex_type t = type_of(m->feature[i].kind);
        int e = 0;
        while (e < s->nex && !(s->ex[e].type == t && same_opts(t, &s->ex[e].opts,
                                                               &m->feature[i].opts)))
            e++;
        if (e == s->nex) {
            s->ex[e].type = t;
            s->ex[e].opts = m->feature[i].opts;
            s->nex++;
        }
        s->ex_of[i] = e;
        if (t == EX_MOTION)
            s->has_motion = 1;
    }
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    int st = fovea_open(&s->ctx, &cs);
    if (st < 0) {
        free(s);
        return fv_ctx_error(NULL, st, "vmaf: cannot create a CPU context");
    }
    *out = s;
    return FOVEA_OK;
}

void vmaf_ref_close(vmaf_ref **s)
{
    if (!s || !*s)
        return;
    close_extractors(*s);
    fovea_close(&(*s)->ctx);
    free(*s);
    *s = NULL;
}

static int open_extractors(vmaf_ref *s)
{
    for (int e = 0; e < s->nex; e++) {
        extractor *x = &s->ex[e];
        int st = FOVEA_OK;
        if (x->type == EX_VIF) {
            fovea_vif_settings vs;
            fovea_vif_default_settings(&vs);
            vs.vif_enhn_gain_limit = x->opts.vif_enhn_gain_limit;
            st = fovea_vif_open(&x->vif, s->ctx, &vs);
        } else if (x->type == EX_ADM) {
            adm_params p;
            adm_default_params(&p, s->width, s->height, s->bpc);
            p.enhn_gain_limit = x->opts.adm_enhn_gain_limit;
            p.norm_view_dist = x->opts.adm_norm_view_dist;
            p.ref_display_height = x->opts.adm_ref_display_height;
            st = adm_open(&x->adm, &p);
            if (st < 0)
                return fv_ctx_error(NULL, st, "vmaf: adm: %dx%d at %d bits is not supported "
                                    "(at least %dx%d)", s->width, s->height, s->bpc,
                                    ADM_MIN_DIM, ADM_MIN_DIM);
        } else {
            motion_params p;
            motion_default_params(&p, s->width, s->height, s->bpc);
            p.force_zero = x->opts.motion_force_zero;
            p.fps_weight = x->opts.motion_fps_weight;
            p.max_val = x->opts.motion_max_val;
            p.blend_factor = x->opts.motion_blend_factor;
            p.blend_offset = x->opts.motion_blend_offset;
            p.moving_average = x->opts.motion_moving_average;
            st = motion_open(&x->motion, &p);
            if (st < 0)
                return fv_ctx_error(NULL, st, "vmaf: motion: %dx%d at %d bits is not supported",
                                    s->width, s->height, s->bpc);
        }
        if (st < 0)
            return fv_ctx_error(NULL, st, "vmaf: vif: %s", fovea_last_error(s->ctx));
    }
    s->opened = 1;
    return FOVEA_OK;
}

/* Predict the pending frame, pool it and hand it out. */
static void emit(vmaf_ref *s, vmaf_frame_score *out)
{
    vmaf_frame_score *p = &s->pending;
    p->vmaf = vmaf_model_predict(s->model, p->feature, s->flags);
    const double x = p->vmaf;
    s->sum += x;
    s->inv_sum += 1.0 / (x + 1.0);
    if (s->pooled == 0 || x < s->min)
        s->min = x;
    if (s->pooled == 0 || x > s->max)
        s->max = x;
    s->pooled++;
    s->have_pending = 0;
    if (out)
        *out = *p;
}

int vmaf_ref_push(vmaf_ref *s, const fovea_frame *ref, const fovea_frame *dis,
                  vmaf_frame_score *out)
{
    if (!s || !ref || !dis)
        return fv_ctx_error(NULL, FOVEA_ERR_INVALID_ARG, "vmaf: NULL argument");
    if (ref->mem == FOVEA_MEM_DEVICE || dis->mem == FOVEA_MEM_DEVICE)
        return fv_ctx_error(NULL, FOVEA_ERR_INVALID_ARG, "vmaf: the C reference takes host frames");
    const fovea_pixfmt_desc *dr = fovea_pixfmt_get_desc(ref->fmt);
    const fovea_pixfmt_desc *dd = fovea_pixfmt_get_desc(dis->fmt);
    if (!dr || !dd)
        return fv_ctx_error(NULL, FOVEA_ERR_INVALID_ARG, "vmaf: unknown pixel format");
    if (ref->width != dis->width || ref->height != dis->height || dr->bit_depth != dd->bit_depth)
        return fv_ctx_error(NULL, FOVEA_ERR_MISMATCH,
                            "vmaf: reference and distorted differ in size or bit depth");
    if (s->opened && (ref->width != s->width || ref->height != s->height ||
                      dr->bit_depth != s->bpc))
        return fv_ctx_error(NULL, FOVEA_ERR_MISMATCH, "vmaf: the size or depth changed mid-stream");
    if (!s->opened) {
        s->width = ref->width;
        s->height = ref->height;
        s->bpc = dr->bit_depth;
        int st = open_extractors(s);
        if (st < 0) {
            close_extractors(s);
            return st;
        }
    }

    vmaf_frame_score cur;
    memset(&cur, 0, sizeof(cur));
    cur.frame = s->frames_in;
    int motion_ready = 0;
    double motion2[VMAF_MODEL_MAX_FEATURES] = {0};
    for (int e = 0; e < s->nex; e++) {
        extractor *x = &s->ex[e];
        if (x->type == EX_VIF) {
            fovea_vif_scores vs;
            int st = fovea_vif_process(x->vif, ref, dis, &vs);
            if (st < 0)
                return fv_ctx_error(NULL, st, "vmaf: vif: %s", fovea_last_error(s->ctx));
            for (int i = 0; i < s->model->n_features; i++)
                if (s->ex_of[i] == e)
                    cur.feature[i] =
                        vs.scale[s->model->feature[i].kind - VMAF_FEATURE_VIF_SCALE0];
        } else if (x->type == EX_ADM) {
            adm_result r;
            adm_compute(x->adm, ref->data[0], ref->stride[0], dis->data[0], dis->stride[0], &r);
            for (int i = 0; i < s->model->n_features; i++)
                if (s->ex_of[i] == e)
                    cur.feature[i] = r.adm2;
        } else {
            motion_scores ms;
            int r = motion_push(x->motion, ref->data[0], ref->stride[0], &ms);
            if (r < 0)
                return fv_ctx_error(NULL, r, "vmaf: motion: cannot score the frame");
            motion_ready = r;
            motion2[e] = ms.motion2;
        }
    }
    s->frames_in++;
    int emitted = 0;
    if (s->have_pending) {
        if (s->has_motion && !motion_ready)
            return fv_ctx_error(NULL, FOVEA_ERR_INTERNAL, "vmaf: motion score missing");
        for (int i = 0; i < s->model->n_features; i++)
            if (s->ex[s->ex_of[i]].type == EX_MOTION)
                s->pending.feature[i] = motion2[s->ex_of[i]];
        emit(s, out);
        emitted = 1;
    }
    s->pending = cur;
    s->have_pending = 1;
    return emitted;
}

int vmaf_ref_flush(vmaf_ref *s, vmaf_frame_score *out)
{
    if (!s)
        return fv_ctx_error(NULL, FOVEA_ERR_INVALID_ARG, "vmaf: NULL argument");
    if (!s->have_pending)
        return 0;
    for (int e = 0; e < s->nex; e++) {
        if (s->ex[e].type != EX_MOTION)
            continue;
        motion_scores ms;
        int r = motion_flush(s->ex[e].motion, &ms);
        if (r != 1)
            return fv_ctx_error(NULL, FOVEA_ERR_INTERNAL, "vmaf: motion score missing");
        for (int i = 0; i < s->model->n_features; i++)
            if (s->ex_of[i] == e)
                s->pending.feature[i] = ms.motion2;
    }
    emit(s, out);
    return 1;
}

void vmaf_ref_pooled(const vmaf_ref *s, vmaf_pool *out)
{
    memset(out, 0, sizeof(*out));
    if (!s || s->pooled == 0)
        return;
    const double n = (double)s->pooled;
    out->frames = s->pooled;
    out->min = s->min;
    out->max = s->max;
    out->mean = s->sum / n;
    out->harmonic_mean = n / s->inv_sum - 1.0;
}
