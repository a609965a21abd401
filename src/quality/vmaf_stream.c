/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The stream of a fovea_vmaf: submit/flush/receive with the features'
 * lookahead (motion's one or two frames), the driver's queue, every reported double derived from raw
 * values by the features' derive (identically for every backend), the
 * model's score, libvmaf's pooling and the kept frames. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quality/vmaf_context.h"

/* ---------------------------------------------------------------- queue */

static vmaf_entry *q_at(fovea_vmaf *v, int i)
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
        vmaf_entry *n = malloc((size_t)ncap * sizeof(*n));
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
static vmaf_entry *q_push(fovea_vmaf *v)
{
    vmaf_entry *e = &v->q[(v->q_head + v->q_count) % v->q_cap];
    v->q_count++;
    memset(e, 0, sizeof(*e));
    return e;
}

/* The driver's oldest queued result into its entry. */
static int collect_one(fovea_vmaf *v)
{
    vmaf_entry *e = q_at(v, v->q_count - v->queued);
    int st = v->backend->collect(v->priv, v->ctx, &e->raw);
    if (st < 0)
        return st;
    e->have_raw = 1;
    v->queued--;
    return FOVEA_OK;
}

/* Collect every pair queued in the driver (results kept for receive). */
static int drain(fovea_vmaf *v)
{
    while (v->queued > 0)
        FOVEA_TRY(collect_one(v));
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- submit */

/* Check a frame; return its bit depth (> 0) or a status with the message. */
static int check_frame(const fovea_vmaf *v, const fovea_frame *f, const char *what)
{
    fovea_context *ctx = v->ctx;
    if (!f || !f->data[0])
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: %s frame is NULL or empty", what);
    if (f->mem == FOVEA_MEM_DEVICE && !(v->backend->info.provides & BACKEND_READS_DEVICE))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "vmaf: %s frame is in device memory (the CPU backend needs host "
                            "frames)",
                            what);
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    if (!d)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: %s frame has no valid format", what);
    if (!d->is_yuv || d->components != 1)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "vmaf: %s frame is %s; %s needs a YUV or gray format (luma)", what,
                            d->name, v->min_metric);
    if (v->chroma && d->planes == 2)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "vmaf: %s frame is %s; %s reads chroma from planar YUV (convert it "
                            "to a planar format first)",
                            what, d->name, v->chroma_metric);
    if (f->width < v->min_dim || f->height < v->min_dim || f->width > FOVEA_MAX_DIM ||
        f->height > FOVEA_MAX_DIM)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "vmaf: %s frame is %dx%d; %s needs %d..%d in each dimension", what,
                            f->width, f->height, v->min_metric, v->min_dim, FOVEA_MAX_DIM);
    if (f->stride[0] < (ptrdiff_t)f->width * d->bytes_per_sample)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "vmaf: %s frame stride %td too small", what,
                            f->stride[0]);
    return d->bit_depth;
}

/* The chroma format of f (checked): 400, 420, 422 or 444. */
static int chroma_of(const fovea_frame *f)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    if (d->planes != 3)
        return 400;
    return d->log2_chroma_w ? (d->log2_chroma_h ? 420 : 422) : 444;
}

/* Check a pair, start a new stream when its size changes without motion,
 * and (re)make the driver's state for its size and depth. @return its bit
 * depth (> 0) or a status */
static int prepare(fovea_vmaf *v, const fovea_frame *ref, const fovea_frame *dis)
{
    fovea_context *ctx = v->ctx;
    const int bpc = check_frame(v, ref, "reference");
    if (bpc < 0)
        return bpc;
    const int bpc_dis = check_frame(v, dis, "distorted");
    if (bpc_dis < 0)
        return bpc_dis;
    if (ref->width != dis->width || ref->height != dis->height)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH,
                            "vmaf: reference is %dx%d but distorted is %dx%d", ref->width,
                            ref->height, dis->width, dis->height);
    if (bpc != bpc_dis)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH,
                            "vmaf: reference is %d-bit but distorted is %d-bit", bpc, bpc_dis);
    const int chroma = v->chroma ? chroma_of(ref) : 400;
    if (v->chroma && chroma != chroma_of(dis))
        return fv_ctx_error(
            ctx, FOVEA_ERR_MISMATCH, "vmaf: reference is %s but distorted is %s (%s reads chroma)",
            fovea_pixfmt_name(ref->fmt), fovea_pixfmt_name(dis->fmt), v->chroma_metric);
    if (v->stream_open && (ref->width != v->s_width || ref->height != v->s_height ||
                           bpc != v->s_bpc || chroma != v->s_chroma)) {
        if (v->has_motion)
            return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH,
                                "vmaf: the stream is %dx%d at %d bits, this pair %dx%d at %d "
                                "bits (flush the stream first)",
                                v->s_width, v->s_height, v->s_bpc, ref->width, ref->height, bpc);
        /* nothing reads across frames: the pair starts a stream of its own */
        fovea_vmaf_flush(v);
    }

    vmaf_params p;
    memset(&p, 0, sizeof(p));
    p.width = ref->width;
    p.height = ref->height;
    p.bpc = bpc;
    p.chroma = chroma;
    if (chroma != 400) {
        /* libvmaf's pictures have floor(w / 2) x floor(h / 2) chroma planes
         * (its readers drop the last column and row of an odd size's): the
         * chroma features read that much, as libvmaf does */
        const int sx = chroma != 444, sy = chroma == 420;
        p.chroma_width = ref->width >> sx;
        p.chroma_height = ref->height >> sy;
    }
    p.history = v->history;
    p.n_ex = v->n_ex;
    for (int e = 0; e < v->n_ex; e++)
        p.ex[e] = v->ex[e];
    if (!v->priv || p.width != v->params.width || p.height != v->params.height ||
        p.bpc != v->params.bpc || p.chroma != v->params.chroma) {
        if (v->priv) {
            /* the queued pairs of the old size are scored with the old state */
            FOVEA_TRY(drain(v));
            v->backend->info.close(&v->priv);
        }
        memset(&v->params, 0, sizeof(v->params));
        FOVEA_TRY(v->backend->info.init(&v->priv, ctx, &p));
        v->params = p;
    }
    return bpc;
}

/* The planes of f a driver reads (chroma when params.chroma says so). */
static void picture_of(const fovea_vmaf *v, const fovea_frame *f, vmaf_plane *p)
{
    memset(p, 0, sizeof(*p));
    const int planes = v->params.chroma != 400 ? 3 : 1;
    for (int i = 0; i < planes; i++) {
        p->data[i] = f->data[i];
        p->stride[i] = f->stride[i];
    }
    p->mem = f->mem;
    p->held = v->held_frames && f->mem == FOVEA_MEM_HOST;
}

int fovea_vmaf_submit(fovea_vmaf *v, const fovea_frame *ref, const fovea_frame *dis)
{
    if (!v)
        return FOVEA_ERR_INVALID_ARG;
    fovea_context *ctx = v->ctx;
    const int bpc = prepare(v, ref, dis);
    if (bpc < 0)
        return bpc;
    int st;
    FOVEA_TRY(q_reserve(v));
    const int new_stream = !v->stream_open;
    vmaf_plane rp, dp;
    picture_of(v, ref, &rp);
    picture_of(v, dis, &dp);
    /* the driver's results fill the entries in order: the new entry joins
     * the queue once the driver took the pair */
    while ((st = v->backend->submit(v->priv, ctx, &rp, &dp, new_stream)) == VMAF_QUEUE_FULL)
        FOVEA_TRY(collect_one(v));
    if (st < 0)
        return st;
    vmaf_entry *e = q_push(v);
    v->queued++;
    e->frame = v->submitted;
    e->index = v->stream_open ? v->stream_next : 0;
    e->width = ref->width;
    e->height = ref->height;
    e->bpc = bpc;
    e->chroma = v->params.chroma;
    if (new_stream) {
        v->stream_open = 1;
        v->stream_next = 0;
        v->s_width = ref->width;
        v->s_height = ref->height;
        v->s_bpc = bpc;
        v->s_chroma = v->params.chroma;
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

/* Every metric of entry e; next[k] is the pair k + 1 after it in its stream
 * (NULL past the end of the stream or past the lookahead). */
static void derive(fovea_vmaf *v, const vmaf_entry *e, vmaf_entry *const *next, double *value)
{
    const feature_frame f = {e->width, e->height, e->bpc, e->index, e->chroma};
    for (int x = 0; x < v->n_ex; x++) {
        double out[FEATURE_MAX_OUTPUTS] = {0};
        const feature_raw *nraw[FEATURE_MAX_LOOKAHEAD] = {NULL};
        for (int k = 0; k < v->ex_lookahead[x]; k++)
            nraw[k] = next[k] ? &next[k]->raw.ex[x] : NULL;
        v->ex[x].def->derive(&v->ex[x].opts, &f, &e->raw.ex[x], nraw, v->state[x], out);
        for (int i = 0; i < v->n_metrics; i++)
            if (v->metric_ex[i] == x)
                value[i] = out[v->metric_out[i]];
    }
    int flags = 0;
    if (v->set.flags & FOVEA_VMAF_ENABLE_TRANSFORM)
        flags |= VMAF_PREDICT_ENABLE_TRANSFORM;
    if (v->set.flags & FOVEA_VMAF_DISABLE_CLIP)
        flags |= VMAF_PREDICT_DISABLE_CLIP;
    double raw[VMAF_MAX_SCORERS];
    for (int s = 0; s < v->n_scorers; s++) {
        const vmaf_scorer *sc = &v->scorer[s];
        double feat[VMAF_MODEL_MAX_FEATURES];
        for (int k = 0; k < sc->m->n_features; k++)
            feat[k] = value[sc->feat_metric[k]];
        /* the score is the raw prediction transformed and clipped: a
         * collection's statistics need the raw one */
        raw[s] = vmaf_model_predict(sc->m, feat, VMAF_PREDICT_RAW);
        value[sc->metric] = vmaf_model_finish(sc->m, raw[s], flags);
    }
    for (int b = 0; b < v->n_boot; b++) {
        const vmaf_boot *bt = &v->boot[b];
        double stat[4];
        vmaf_model_bootstrap(bt->m, raw + bt->first, flags, stat);
        for (int j = 0; j < 4; j++)
            value[bt->metric + j] = stat[j];
    }
}

/* Keep a received frame's values for fovea_vmaf_write. */
static int keep(fovea_vmaf *v, const double *value)
{
    if (v->n_kept == v->kept_cap) {
        const int64_t ncap = v->kept_cap ? 2 * v->kept_cap : 256;
        if ((uint64_t)ncap > SIZE_MAX / FOVEA_VMAF_MAX_METRICS / sizeof(double))
            return fv_ctx_error(v->ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
        double *n = realloc(v->kept, (size_t)ncap * (size_t)v->n_metrics * sizeof(double));
        if (!n)
            return fv_ctx_error(v->ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
        v->kept = n;
        v->kept_cap = ncap;
    }
    memcpy(v->kept + (size_t)v->n_kept * (size_t)v->n_metrics, value,
           (size_t)v->n_metrics * sizeof(double));
    v->n_kept++;
    return FOVEA_OK;
}

/* The oldest pending pair's values into sc and its entry into done, the pair off the queue.
 * @return FOVEA_OK, FOVEA_AGAIN (it waits for its successor or the flush) or
 *         an error */
static int next_values(fovea_vmaf *v, fovea_vmaf_scores *sc, vmaf_entry *done)
{
    if (v->q_count == 0)
        return FOVEA_AGAIN;
    vmaf_entry *e = q_at(v, 0);
    /* this pair's values need the next ones of its stream */
    vmaf_entry *next[FEATURE_MAX_LOOKAHEAD] = {NULL};
    const vmaf_entry *c = e;
    for (int k = 0; k < v->lookahead && !c->last; k++) {
        if (v->q_count < k + 2)
            return FOVEA_AGAIN;
        c = next[k] = q_at(v, k + 1);
    }
    while (!e->have_raw)
        FOVEA_TRY(collect_one(v));
    for (int k = 0; k < v->lookahead; k++)
        while (next[k] && !next[k]->have_raw)
            FOVEA_TRY(collect_one(v));
    memset(sc, 0, sizeof(*sc));
    sc->frame = e->frame;
    sc->count = v->n_metrics;
    derive(v, e, next, sc->value);
    *done = *e;
    v->q_head = (v->q_head + 1) % v->q_cap;
    v->q_count--;
    return FOVEA_OK;
}

int fovea_vmaf_receive(fovea_vmaf *v, fovea_vmaf_scores *out)
{
    if (!v)
        return FOVEA_ERR_INVALID_ARG;
    fovea_vmaf_scores sc;
    /* with subsample, the pairs between scored frames are derived (motion's
     * state goes through every frame) and dropped, as libvmaf skips them */
    vmaf_entry done;
    const vmaf_entry *e = &done;
    for (;;) {
        const int st = next_values(v, &sc, &done);
        if (st != FOVEA_OK)
            return st;
        if (sc.frame % v->set.subsample == 0)
            break;
    }
    if (v->set.keep_frames)
        FOVEA_TRY(keep(v, sc.value));

    for (int i = 0; i < v->n_metrics; i++) {
        const double x = sc.value[i];
        v->sum[i] += x;
        v->inv_sum[i] += 1.0 / (x + 1.0);
        if (v->frames == 0 || x < v->min[i])
            v->min[i] = x;
        if (v->frames == 0 || x > v->max[i])
            v->max[i] = x;
    }
    const feature_frame ff = {e->width, e->height, e->bpc, e->index, e->chroma};
    for (int x = 0; x < v->n_ex; x++)
        if (v->ex[x].def->accumulate)
            v->ex[x].def->accumulate(&v->ex[x].opts, &ff, &e->raw.ex[x], &v->acc[x]);
    v->frames++;
    if (out)
        *out = sc;
    return FOVEA_OK;
}

int fovea_vmaf_process(fovea_vmaf *v, const fovea_frame *ref, const fovea_frame *dis,
                       fovea_vmaf_scores *out)
{
    if (!v)
        return FOVEA_ERR_INVALID_ARG;
    if (v->q_count > 0)
        return fv_ctx_error(v->ctx, FOVEA_ERR_INVALID_ARG,
                            "vmaf: fovea_vmaf_process with %d submitted pairs pending; "
                            "receive them first",
                            v->q_count);
    FOVEA_TRY(fovea_vmaf_flush(v));
    if (!v->backend->process) {
        FOVEA_TRY(fovea_vmaf_submit(v, ref, dis));
        FOVEA_TRY(fovea_vmaf_flush(v));
        return fovea_vmaf_receive(v, out);
    }
    /* the driver scores the pair now, reading the frames where they are: the
     * entry submit and flush would make, with its raw values */
    const int bpc = prepare(v, ref, dis);
    if (bpc < 0)
        return bpc;
    FOVEA_TRY(q_reserve(v));
    vmaf_plane rp, dp;
    picture_of(v, ref, &rp);
    picture_of(v, dis, &dp);
    vmaf_raw raw;
    FOVEA_TRY(v->backend->process(v->priv, v->ctx, &rp, &dp, &raw));
    vmaf_entry *e = q_push(v);
    e->frame = v->submitted++;
    e->index = 0;
    e->width = ref->width;
    e->height = ref->height;
    e->bpc = bpc;
    e->chroma = v->params.chroma;
    e->last = 1;
    e->have_raw = 1;
    e->raw = raw;
    return fovea_vmaf_receive(v, out);
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

int fovea_vmaf_aggregate(const fovea_vmaf *v, fovea_vmaf_aggregates *out)
{
    if (!v || !out)
        return FOVEA_ERR_INVALID_ARG;
    memset(out, 0, sizeof(*out));
    for (int x = 0; x < v->n_ex; x++) {
        const feature_def *d = v->ex[x].def;
        if (!d->aggregate || out->count + d->n_aggregates > FOVEA_VMAF_MAX_AGGREGATES)
            continue;
        const int n = d->aggregate(&v->ex[x].opts, &v->acc[x], out->value + out->count);
        for (int k = 0; k < n; k++)
            out->name[out->count + k] = d->aggregates[k];
        out->count += n;
    }
    return FOVEA_OK;
}

void fovea_vmaf_reset(fovea_vmaf *v)
{
    if (!v)
        return;
    /* finish the driver's queued pairs; on an error they are abandoned with
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
    v->n_kept = 0;
    for (int i = 0; i < FOVEA_VMAF_MAX_METRICS; i++)
        v->sum[i] = v->inv_sum[i] = v->min[i] = v->max[i] = 0.0;
    memset(v->acc, 0, sizeof(v->acc));
}
