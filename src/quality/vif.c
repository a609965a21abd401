/* Public VIF API: settings, frame checks, backend dispatch (synchronous and
 * queued), the scores derived from a backend's per-scale numerators and
 * denominators, and libvmaf's pooling. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/quality.h"
#include "quality/vif_internal.h"

struct fovea_vif {
    fovea_context *ctx;
    fovea_vif_settings settings;
    const vif_backend *backend;
    void *priv;
    vif_params params; /* of the buffers in priv; width 0 = none yet */
    int queued;        /* pairs inside an asynchronous backend */
    /* results taken from the backend but not yet received, oldest first */
    vif_raw *done;
    int done_cap, done_head, done_count;
    /* pooling accumulator, in libvmaf's order of operations */
    int64_t frames;
    double sum[FOVEA_VIF_SCALES], inv_sum[FOVEA_VIF_SCALES];
    double min[FOVEA_VIF_SCALES], max[FOVEA_VIF_SCALES];
};

void fovea_vif_default_settings(fovea_vif_settings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->vif_enhn_gain_limit = FOVEA_VIF_ENHN_GAIN_LIMIT_MAX;
    s->debug = 0;
}

int fovea_vif_open(fovea_vif **out, fovea_context *ctx, const fovea_vif_settings *s)
{
    if (!out)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vif: NULL output pointer");
    *out = NULL;
    if (!ctx)
        return FOVEA_ERR_INVALID_ARG;
    fovea_vif_settings set;
    if (s)
        set = *s;
    else
        fovea_vif_default_settings(&set);
    /* written so that NaN fails too */
    if (!(set.vif_enhn_gain_limit >= 1.0 &&
          set.vif_enhn_gain_limit <= FOVEA_VIF_ENHN_GAIN_LIMIT_MAX))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                               "vif: vif_enhn_gain_limit %g outside [1, 100]",
                               set.vif_enhn_gain_limit);
    fovea_vif *v = calloc(1, sizeof(*v));
    if (!v)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vif: out of memory");
    v->ctx = ctx;
    v->settings = set;
    /* the context's backend (resolved by fovea_open) scores the pairs */
    const backend_info *b = NULL;
    char msg[FOVEA_ERRLEN];
    int st = backend_pick(ctx, vif_backends, vif_backend_count, fovea_context_backend(ctx), &b,
                          msg, sizeof msg);
    if (st < 0) {
        free(v);
        return fv_ctx_error(ctx, st, "vif: %s", msg);
    }
    v->backend = (const vif_backend *)b; /* b is its info, the first member */
    *out = v;
    return FOVEA_OK;
}

void fovea_vif_close(fovea_vif **pv)
{
    if (!pv || !*pv)
        return;
    fovea_vif *v = *pv;
    if (v->priv)
        v->backend->info.close(&v->priv);
    free(v->done);
    free(v);
    *pv = NULL;
}

fovea_backend fovea_vif_backend(const fovea_vif *v)
{
    return v ? v->backend->info.kind : FOVEA_BACKEND_CPU;
}

static int done_push(fovea_vif *v, const vif_raw *r)
{
    if (v->done_count == v->done_cap) {
        const int ncap = v->done_cap ? 2 * v->done_cap : 64;
        vif_raw *n = v->done_cap < INT32_MAX / 2 ? malloc((size_t)ncap * sizeof(*n)) : NULL;
        if (!n)
            return fv_ctx_error(v->ctx, FOVEA_ERR_NOMEM, "vif: out of memory");
        for (int i = 0; i < v->done_count; i++)
            n[i] = v->done[(v->done_head + i) % v->done_cap];
        free(v->done);
        v->done = n;
        v->done_cap = ncap;
        v->done_head = 0;
    }
    v->done[(v->done_head + v->done_count) % v->done_cap] = *r;
    v->done_count++;
    return FOVEA_OK;
}

/* Take the oldest result out of the backend into the done queue. */
static int collect_one(fovea_vif *v)
{
    vif_raw raw;
    int st = v->backend->collect(v->priv, v->ctx, &raw);
    if (st < 0)
        return st;
    v->queued--;
    return done_push(v, &raw);
}

/* Finish every pair queued in the backend (results kept for receive). */
static int drain(fovea_vif *v)
{
    while (v->queued > 0) {
        int st = collect_one(v);
        if (st < 0)
            return st;
    }
    return FOVEA_OK;
}

void fovea_vif_reset(fovea_vif *v)
{
    if (!v)
        return;
    /* finish pending pairs; on an error they are abandoned with the buffers */
    if (drain(v) < 0 && v->priv) {
        v->backend->info.close(&v->priv);
        memset(&v->params, 0, sizeof(v->params));
        v->queued = 0;
    }
    v->done_count = 0;
    v->done_head = 0;
    v->frames = 0;
    for (int s = 0; s < FOVEA_VIF_SCALES; s++)
        v->sum[s] = v->inv_sum[s] = v->min[s] = v->max[s] = 0.0;
}

int64_t fovea_vif_pending(const fovea_vif *v)
{
    return v ? (int64_t)v->queued + v->done_count : 0;
}

int fovea_vif_batch_size(const fovea_vif *v, int width, int height)
{
    if (!v || !v->backend->batch)
        return 1;
    return v->backend->batch(width, height);
}

int vif_check_frame(fovea_context *ctx, fovea_backend kind, const fovea_frame *f, const char *sys,
                    const char *what, const char *metric, int min_dim)
{
    if (!f || !f->data[0])
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "%s: %s frame is NULL or empty", sys,
                            what);
    if (f->mem == FOVEA_MEM_DEVICE && kind != FOVEA_BACKEND_CUDA)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "%s: %s frame is in device memory (the CPU backend needs host "
                            "frames)", sys, what);
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    if (!d)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "%s: %s frame has no valid format", sys,
                            what);
    if (!d->is_yuv || d->components != 1)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "%s: %s frame is %s; %s needs a YUV or gray format (luma)", sys,
                            what, d->name, metric);
    if (f->width < min_dim || f->height < min_dim || f->width > FOVEA_MAX_DIM ||
        f->height > FOVEA_MAX_DIM)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "%s: %s frame is %dx%d; %s needs %d..%d in each dimension", sys,
                            what, f->width, f->height, metric, min_dim, FOVEA_MAX_DIM);
    if (f->stride[0] < (ptrdiff_t)f->width * d->bytes_per_sample)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "%s: %s frame stride %td too small",
                            sys, what, f->stride[0]);
    return d->bit_depth;
}

void vif_derive(const vif_raw *raw, int debug, fovea_vif_scores *sc)
{
    for (int s = 0; s < FOVEA_VIF_SCALES; s++) {
        /* libvmaf divides the floats in float and reports the result as double */
        const float ratio = raw->num[s] / raw->den[s];
        sc->scale[s] = (double)ratio;
    }
    if (debug) {
        for (int s = 0; s < FOVEA_VIF_SCALES; s++) {
            sc->num[s] = (double)raw->num[s];
            sc->den[s] = (double)raw->den[s];
        }
        sc->num_total = sc->num[0] + sc->num[1] + sc->num[2] + sc->num[3];
        sc->den_total = sc->den[0] + sc->den[1] + sc->den[2] + sc->den[3];
        sc->vif = sc->den_total == 0.0 ? 1.0 : sc->num_total / sc->den_total;
    }
}

int fovea_vif_submit(fovea_vif *v, const fovea_frame *ref, const fovea_frame *dis)
{
    if (!v)
        return FOVEA_ERR_INVALID_ARG;
    fovea_context *ctx = v->ctx;
    const int bpc_ref =
        vif_check_frame(ctx, v->backend->info.kind, ref, "vif", "reference", "VIF", VIF_MIN_DIM);
    if (bpc_ref < 0)
        return bpc_ref;
    const int bpc_dis =
        vif_check_frame(ctx, v->backend->info.kind, dis, "vif", "distorted", "VIF", VIF_MIN_DIM);
    if (bpc_dis < 0)
        return bpc_dis;
    if (ref->width != dis->width || ref->height != dis->height)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH,
                               "vif: reference is %dx%d but distorted is %dx%d", ref->width,
                               ref->height, dis->width, dis->height);
    if (bpc_ref != bpc_dis)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH,
                               "vif: reference is %d-bit but distorted is %d-bit", bpc_ref,
                               bpc_dis);
    if (fovea_vif_pending(v) >= INT32_MAX)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vif: too many pairs pending");

    vif_params p;
    p.width = ref->width;
    p.height = ref->height;
    p.bpc = bpc_ref;
    p.enhn_gain_limit = v->settings.vif_enhn_gain_limit;
    int st;
    if (!v->priv || p.width != v->params.width || p.height != v->params.height ||
        p.bpc != v->params.bpc) {
        if (v->priv) {
            /* the queued pairs of the old size are scored with the old buffers */
            st = drain(v);
            if (st < 0)
                return st;
            v->backend->info.close(&v->priv);
        }
        memset(&v->params, 0, sizeof(v->params));
        st = v->backend->info.init(&v->priv, ctx, &p);
        if (st < 0)
            return st;
        v->params = p;
    }

    vif_plane rp = {ref->data[0], ref->stride[0], ref->mem};
    vif_plane dp = {dis->data[0], dis->stride[0], dis->mem};
    if (!v->backend->submit) {
        vif_raw raw;
        st = v->backend->process(v->priv, ctx, &rp, &dp, &raw);
        return st < 0 ? st : done_push(v, &raw);
    }
    while ((st = v->backend->submit(v->priv, ctx, &rp, &dp)) == VIF_QUEUE_FULL) {
        st = collect_one(v);
        if (st < 0)
            return st;
    }
    if (st < 0)
        return st;
    v->queued++;
    return FOVEA_OK;
}

int fovea_vif_receive(fovea_vif *v, fovea_vif_scores *out)
{
    if (!v)
        return FOVEA_ERR_INVALID_ARG;
    vif_raw raw;
    if (v->done_count > 0) {
        raw = v->done[v->done_head];
        v->done_head = (v->done_head + 1) % v->done_cap;
        v->done_count--;
    } else if (v->queued > 0) {
        int st = v->backend->collect(v->priv, v->ctx, &raw);
        if (st < 0)
            return st;
        v->queued--;
    } else {
        return FOVEA_EOF;
    }

    fovea_vif_scores sc;
    memset(&sc, 0, sizeof(sc));
    sc.frame = v->frames;
    vif_derive(&raw, v->settings.debug, &sc);

    for (int s = 0; s < FOVEA_VIF_SCALES; s++) {
        const double x = sc.scale[s];
        v->sum[s] += x;
        v->inv_sum[s] += 1.0 / (x + 1.0);
        if (v->frames == 0 || x < v->min[s])
            v->min[s] = x;
        if (v->frames == 0 || x > v->max[s])
            v->max[s] = x;
    }
    v->frames++;
    if (out)
        *out = sc;
    return FOVEA_OK;
}

int fovea_vif_process(fovea_vif *v, const fovea_frame *ref, const fovea_frame *dis,
                      fovea_vif_scores *out)
{
    if (!v)
        return FOVEA_ERR_INVALID_ARG;
    if (fovea_vif_pending(v) > 0)
        return fv_ctx_error(v->ctx, FOVEA_ERR_INVALID_ARG,
                               "vif: fovea_vif_process with %lld submitted pairs pending; "
                               "receive them first", (long long)fovea_vif_pending(v));
    int st = fovea_vif_submit(v, ref, dis);
    if (st < 0)
        return st;
    return fovea_vif_receive(v, out);
}

int fovea_vif_pooled(const fovea_vif *v, fovea_vif_pooled_scores *out)
{
    if (!v || !out)
        return FOVEA_ERR_INVALID_ARG;
    memset(out, 0, sizeof(*out));
    out->frames = v->frames;
    if (v->frames == 0)
        return FOVEA_OK;
    const double n = (double)v->frames;
    for (int s = 0; s < FOVEA_VIF_SCALES; s++) {
        out->scale[s].min = v->min[s];
        out->scale[s].max = v->max[s];
        out->scale[s].mean = v->sum[s] / n;
        out->scale[s].harmonic_mean = n / v->inv_sum[s] - 1.0;
    }
    return FOVEA_OK;
}
