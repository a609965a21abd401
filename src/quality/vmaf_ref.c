/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The C driver of the quality compositor: the raw values of every feature
 * instance of a frame pair from the features' C extractors (feature.h).
 *
 * Threads: pairs are queued in slots, one per thread of the context (fewer
 * when the frames are large); a full batch is scored one pair per thread,
 * each pair on one thread. A batch of one pair (a caller that waits for each
 * score) is split over the threads by rows instead, and so is a pair scored
 * at once (ref_process: fovea_vmaf_process), read in place without the copy
 * into a slot. Every sum is an integer, so every way gives the same bits for
 * any thread count. */
#include <stdlib.h>
#include <string.h>

#include "quality/vmaf_internal.h"

/* The slots' state stays below this (ADM keeps 4 int32 planes of a quarter
 * of the frame: about 15 MB a slot at 1920x1080 with VIF and the luma). */
#define VMAF_REF_SLOT_BUDGET ((size_t)1 << 30)

/* One queued pair and the extractor states that score it. */
typedef struct slot {
    void *priv[VMAF_MAX_EXTRACTORS]; /* one state per instance */
    uint8_t *ref, *dis;              /* the pair's luma, rows of width * bytes */
    uint8_t *ref_c[2], *dis_c[2];    /* its U and V (params.chroma not 400), rows of c_row_bytes */
    int new_stream;
    int status;
    vmaf_raw raw;
} slot;

typedef struct vmaf_ref {
    vmaf_params p;
    const feature_extractor *fx[VMAF_MAX_EXTRACTORS];
    int bytes;          /* per sample */
    size_t row_bytes;   /* width * bytes */
    size_t c_row_bytes; /* chroma_width * bytes */
    int nslots;
    slot *s;
    int n_in;        /* pairs in slots [0, n_in) waiting to be scored */
    int n_out, next; /* scored pairs not collected, from slot next */
    uint8_t *prev;   /* the reference before slot 0's (last of the previous batch) */
    uint8_t *prev2;  /* the one before it (params.history 2) */
    int prev_new;    /* prev's pair was the first of its stream (prev2 is of another) */
    int nthreads;
} vmaf_ref;

static void free_slot(vmaf_ref *st, slot *s)
{
    for (int e = 0; e < st->p.n_ex; e++)
        if (st->fx[e])
            st->fx[e]->close(&s->priv[e]);
    free(s->ref);
    free(s->dis);
    for (int c = 0; c < 2; c++) {
        free(s->ref_c[c]);
        free(s->dis_c[c]);
    }
}

static void ref_close(void **priv)
{
    vmaf_ref *st = priv ? *priv : NULL;
    if (!st)
        return;
    for (int i = 0; st->s && i < st->nslots; i++)
        free_slot(st, &st->s[i]);
    free(st->s);
    free(st->prev);
    free(st->prev2);
    free(st);
    *priv = NULL;
}

static int init_slot(vmaf_ref *st, fovea_context *ctx, slot *s)
{
    const vmaf_params *p = &st->p;
    const size_t plane = st->row_bytes * (size_t)p->height; /* <= 2^29: no overflow */
    s->ref = malloc(plane);
    s->dis = malloc(plane);
    int ok = s->ref && s->dis;
    if (p->chroma != 400) {
        const size_t cplane = st->c_row_bytes * (size_t)p->chroma_height;
        for (int c = 0; c < 2; c++) {
            s->ref_c[c] = malloc(cplane);
            s->dis_c[c] = malloc(cplane);
            ok = ok && s->ref_c[c] && s->dis_c[c];
        }
    }
    if (!ok)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: cannot allocate buffers for %dx%d",
                            p->width, p->height);
    for (int e = 0; e < p->n_ex; e++) {
        feature_setup fs;
        memset(&fs, 0, sizeof(fs));
        fs.width = p->width;
        fs.height = p->height;
        fs.bpc = p->bpc;
        if (p->ex[e].def->flags & FEATURE_CHROMA) {
            fs.chroma = p->chroma;
            fs.chroma_width = p->chroma_width;
            fs.chroma_height = p->chroma_height;
        } else {
            fs.chroma = 400;
        }
        fs.opts = p->ex[e].opts;
        /* the first slot also scores one-pair batches split by rows */
        fs.threads = s == st->s ? st->nthreads : 0;
        FOVEA_TRY(st->fx[e]->init(&s->priv[e], ctx, &fs));
    }
    return FOVEA_OK;
}

static int ref_init(void **priv, fovea_context *ctx, const void *params)
{
    const vmaf_params *p = params;
    *priv = NULL;
    vmaf_ref *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->p = *p;
    for (int e = 0; e < p->n_ex; e++) {
        st->fx[e] = vmaf_extractor(ctx, &p->ex[e], FOVEA_BACKEND_CPU);
        if (!st->fx[e]) {
            free(st);
            return FOVEA_ERR_UNSUPPORTED;
        }
    }
    st->bytes = p->bpc == 8 ? 1 : 2;
    st->row_bytes = (size_t)p->width * (size_t)st->bytes;
    st->c_row_bytes = (size_t)p->chroma_width * (size_t)st->bytes;
    st->nthreads = fv_threadpool_size(ctx ? ctx->pool : NULL);
    if (st->nthreads < 1)
        st->nthreads = 1;
    /* slots: one per thread, within the memory budget (estimated from each
     * feature's state per pixel and the pair's luma) */
    const size_t pixels = (size_t)p->width * (size_t)p->height;
    size_t per_slot = 2 * pixels * (size_t)st->bytes;
    if (p->chroma != 400)
        per_slot += 4 * (size_t)p->chroma_width * (size_t)p->chroma_height * (size_t)st->bytes;
    for (int e = 0; e < p->n_ex; e++)
        per_slot += (size_t)p->ex[e].def->cpu_bytes_per_pixel * pixels;
    const size_t fit = VMAF_REF_SLOT_BUDGET / (per_slot ? per_slot : 1);
    st->nslots = fit < 1 ? 1 : fit < (size_t)st->nthreads ? (int)fit : st->nthreads;
    st->s = calloc((size_t)st->nslots, sizeof(*st->s));
    st->prev = malloc(st->row_bytes * (size_t)p->height);
    if (p->history > 1)
        st->prev2 = malloc(st->row_bytes * (size_t)p->height);
    int rc = st->s && st->prev && (p->history < 2 || st->prev2)
                 ? FOVEA_OK
                 : fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    for (int i = 0; rc == FOVEA_OK && i < st->nslots; i++)
        rc = init_slot(st, ctx, &st->s[i]);
    if (rc < 0) {
        ref_close((void **)&st);
        return rc;
    }
    *priv = st;
    return FOVEA_OK;
}

static int ref_batch(const fovea_context *ctx, int width, int height)
{
    (void)width;
    (void)height;
    /* as many as ref_init makes slots, before the memory budget */
    const int n = fv_threadpool_size(ctx ? ctx->pool : NULL);
    return n < 1 ? 1 : n;
}

/* ---------------------------------------------------------------- scoring */

/* Every instance's raw values of pair with the extractor states priv. ctx
 * splits the work by rows (slot 0's states only); NULL scores it on the
 * calling thread. */
static int score_pair(vmaf_ref *st, fovea_context *ctx, void *const *priv, const feature_pair *pair,
                      vmaf_raw *raw)
{
    memset(raw, 0, sizeof(*raw));
    for (int e = 0; e < st->p.n_ex; e++)
        FOVEA_TRY(st->fx[e]->extract(priv[e], ctx, pair, &raw->ex[e]));
    return FOVEA_OK;
}

/* The pair of slot i with its previous references (the previous pairs'
 * slots, or the references kept from the previous batch). */
static void slot_pair(const vmaf_ref *st, int i, feature_pair *pair)
{
    const slot *s = &st->s[i];
    memset(pair, 0, sizeof(*pair));
    pair->ref = s->ref;
    pair->dis = s->dis;
    pair->ref_stride = pair->dis_stride = pair->prev_stride = pair->prev2_stride =
        (ptrdiff_t)st->row_bytes;
    if (!s->new_stream) {
        pair->prev = i > 0 ? st->s[i - 1].ref : st->prev;
        /* the previous pair is not the first of the stream */
        const int prev_new = i > 0 ? st->s[i - 1].new_stream : st->prev_new;
        if (st->prev2 && !prev_new)
            pair->prev2 = i > 1 ? st->s[i - 2].ref : i == 1 ? st->prev : st->prev2;
    }
    if (st->p.chroma != 400) {
        for (int c = 0; c < 2; c++) {
            pair->ref_c[c] = s->ref_c[c];
            pair->dis_c[c] = s->dis_c[c];
            pair->ref_c_stride[c] = pair->dis_c_stride[c] = (ptrdiff_t)st->c_row_bytes;
        }
    }
}

/* Score the pair of slot i. ctx splits the work by rows (a one-pair batch);
 * NULL scores it on the calling thread. */
static int score_slot(vmaf_ref *st, fovea_context *ctx, int i)
{
    feature_pair pair;
    slot_pair(st, i, &pair);
    return score_pair(st, ctx, st->s[i].priv, &pair, &st->s[i].raw);
}

static void score_slots(void *arg, int begin, int end, int thread)
{
    (void)thread;
    vmaf_ref *st = arg;
    for (int i = begin; i < end; i++)
        st->s[i].status = score_slot(st, NULL, i);
}

static void swap_buf(uint8_t **a, uint8_t **b)
{
    uint8_t *t = *a;
    *a = *b;
    *b = t;
}

/* Score the queued pairs: one per thread, or one split by rows. */
static int run_batch(vmaf_ref *st, fovea_context *ctx)
{
    const int n = st->n_in;
    if (n == 1) {
        st->s[0].status = score_slot(st, ctx, 0);
    } else {
        fv_parallel_for(ctx, n, 1, score_slots, st);
    }
    int rc = FOVEA_OK;
    for (int i = 0; i < n && rc == FOVEA_OK; i++)
        rc = st->s[i].status; /* the C extractors do not fail; kept for the shape */
    /* the last references are the next batch's previous ones: swap the
     * buffers (a slot's old contents are overwritten by its next pair) */
    if (st->prev2) {
        if (n > 1)
            swap_buf(&st->prev2, &st->s[n - 2].ref);
        else
            swap_buf(&st->prev2, &st->prev);
    }
    swap_buf(&st->prev, &st->s[n - 1].ref);
    st->prev_new = st->s[n - 1].new_stream;
    st->n_in = 0;
    st->n_out = n;
    st->next = 0;
    return rc;
}

static int ref_submit(void *priv, fovea_context *ctx, const vmaf_plane *ref, const vmaf_plane *dis,
                      int new_stream)
{
    vmaf_ref *st = priv;
    if (st->n_out > 0)
        return VMAF_QUEUE_FULL; /* the scored batch is collected first */
    slot *s = &st->s[st->n_in];
    for (int y = 0; y < st->p.height; y++) {
        memcpy(s->ref + (size_t)y * st->row_bytes, ref->data[0] + y * ref->stride[0],
               st->row_bytes);
        memcpy(s->dis + (size_t)y * st->row_bytes, dis->data[0] + y * dis->stride[0],
               st->row_bytes);
    }
    for (int c = 0; st->p.chroma != 400 && c < 2; c++) {
        for (int y = 0; y < st->p.chroma_height; y++) {
            memcpy(s->ref_c[c] + (size_t)y * st->c_row_bytes,
                   ref->data[1 + c] + y * ref->stride[1 + c], st->c_row_bytes);
            memcpy(s->dis_c[c] + (size_t)y * st->c_row_bytes,
                   dis->data[1 + c] + y * dis->stride[1 + c], st->c_row_bytes);
        }
    }
    s->new_stream = new_stream;
    st->n_in++;
    if (st->n_in == st->nslots)
        return run_batch(st, ctx);
    return FOVEA_OK;
}

static int ref_collect(void *priv, fovea_context *ctx, vmaf_raw *out)
{
    vmaf_ref *st = priv;
    if (st->n_out == 0) {
        if (st->n_in == 0)
            return fv_ctx_error(ctx, FOVEA_ERR_INTERNAL, "vmaf: nothing queued");
        FOVEA_TRY(run_batch(st, ctx));
    }
    *out = st->s[st->next].raw;
    st->next++;
    st->n_out--;
    return FOVEA_OK;
}

/* One pair now, split over the threads by rows with slot 0's states, read
 * where the caller has it: the copy into a slot would be a serial memcpy of
 * both planes while the pool waits, a large share of VIF alone's time on many
 * cores. A stream of its own: no previous reference is read or kept. */
static int ref_process(void *priv, fovea_context *ctx, const vmaf_plane *ref, const vmaf_plane *dis,
                       vmaf_raw *out)
{
    vmaf_ref *st = priv;
    if (st->n_in > 0 || st->n_out > 0)
        return fv_ctx_error(ctx, FOVEA_ERR_INTERNAL,
                            "vmaf: a pair scored at once with pairs "
                            "queued");
    feature_pair pair;
    memset(&pair, 0, sizeof(pair));
    pair.ref = ref->data[0];
    pair.dis = dis->data[0];
    pair.ref_stride = ref->stride[0];
    pair.dis_stride = dis->stride[0];
    for (int c = 0; st->p.chroma != 400 && c < 2; c++) {
        pair.ref_c[c] = ref->data[1 + c];
        pair.dis_c[c] = dis->data[1 + c];
        pair.ref_c_stride[c] = ref->stride[1 + c];
        pair.dis_c_stride[c] = dis->stride[1 + c];
    }
    return score_pair(st, ctx, st->s[0].priv, &pair, out);
}

const vmaf_backend vmaf_backend_ref = {
    {"cpu", FOVEA_BACKEND_CPU, BACKEND_ASYNC, ref_init, ref_close},
    ref_submit,
    ref_collect,
    ref_batch,
    ref_process,
};
