/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The C driver of the quality compositor: the raw values of every feature
 * instance of a frame pair from the features' C extractors (feature.h).
 *
 * Threads: pairs are copied into a ring of slots (planes the caller holds
 * until the pair is collected, vmaf_plane.held, are read in place instead;
 * only a reference luma that later pairs read as their previous reference is
 * copied) and scored by the driver's own workers, one pair per worker, each
 * worker taking the oldest waiting pair as soon as it is free (no batch
 * barrier: the copies of the next pairs and the collection of finished ones
 * overlap the scoring). Each worker has its own extractor states; slots hold
 * only the pictures. A pair collected while it is the only one queued and no
 * worker has taken it (a caller that waits for each score) is split over the
 * context's threads by rows instead, and so is a pair scored at once
 * (ref_process: fovea_vmaf_process), read in place without the copy into a
 * slot. Every sum is an integer (or a float feature's sum in one fixed order
 * on one thread), so every way gives the same bits for any thread count.
 *
 * Previous references are the previous slots' pictures: a slot is refilled
 * only once the two pairs after it (which read it as their prev and prev2)
 * were collected, so the ring keeps three slots more than the pairs queued. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "quality/vmaf_internal.h"

/* The workers' states and the slots stay below this (ADM keeps 4 int32
 * planes of a quarter of the frame: about 10 MB a worker at 1920x1080 with
 * VIF; a slot holds the pair's pictures). */
#define VMAF_REF_BUDGET ((size_t)1 << 30)
/* Slots not holding a queued pair: the two a refill must not overwrite while
 * the pairs after them may read them, and the one being filled. */
#define VMAF_REF_GAP 3

enum { SLOT_FREE = 0, SLOT_FILLED, SLOT_TAKEN, SLOT_DONE };

/* One queued pair. */
typedef struct slot {
    uint8_t *ref, *dis;           /* copies of the pair's luma, rows of width * bytes */
    uint8_t *ref_c[2], *dis_c[2]; /* of its U and V (params.chroma not 400), rows of c_row_bytes */
    /* what the pair reads (ref, dis; Y, U, V): the copies, or the caller's
     * planes it holds until the pair is collected (vmaf_plane.held) */
    const uint8_t *pic[2][3];
    ptrdiff_t pic_stride[2][3];
    int new_stream;
    int state; /* SLOT_*, under the lock */
    int status;
    vmaf_raw raw;
} slot;

typedef struct vmaf_ref vmaf_ref;

/* One worker: its thread and its extractor states. */
typedef struct worker {
    vmaf_ref *st;
    void *priv[VMAF_MAX_EXTRACTORS];
    pthread_t thread;
    int started;
} worker;

struct vmaf_ref {
    vmaf_params p;
    const feature_extractor *fx[VMAF_MAX_EXTRACTORS];
    int bytes;          /* per sample */
    size_t row_bytes;   /* width * bytes */
    size_t c_row_bytes; /* chroma_width * bytes */
    int nslots;
    slot *s;
    int head, count; /* queued pairs: slots head .. head + count - 1 (mod nslots) */
    int take;        /* the next slot a worker takes (mod nslots) */
    int nworkers;
    worker *w;
    void *split[VMAF_MAX_EXTRACTORS]; /* states that split one pair over the pool */
    int nthreads;                     /* of the context's pool */
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    int locks; /* the mutex and conditions were made */
    int quit;
};

static void close_states(vmaf_ref *st, void **priv)
{
    for (int e = 0; e < st->p.n_ex; e++)
        if (st->fx[e])
            st->fx[e]->close(&priv[e]);
}

static void free_slot(slot *s)
{
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
    if (st->locks) {
        pthread_mutex_lock(&st->lock);
        st->quit = 1;
        pthread_cond_broadcast(&st->work);
        pthread_mutex_unlock(&st->lock);
    }
    for (int i = 0; st->w && i < st->nworkers; i++) {
        if (st->w[i].started)
            pthread_join(st->w[i].thread, NULL);
        close_states(st, st->w[i].priv);
    }
    close_states(st, st->split);
    for (int i = 0; st->s && i < st->nslots; i++)
        free_slot(&st->s[i]);
    if (st->locks) {
        pthread_mutex_destroy(&st->lock);
        pthread_cond_destroy(&st->work);
        pthread_cond_destroy(&st->done);
    }
    free(st->s);
    free(st->w);
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
    return FOVEA_OK;
}

/* Extractor states for one worker (threads 0: a pair on one thread) or for
 * splitting a pair over the pool (threads: the pool's size). */
static int init_states(vmaf_ref *st, fovea_context *ctx, void **priv, int threads)
{
    const vmaf_params *p = &st->p;
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
        fs.threads = threads;
        FOVEA_TRY(st->fx[e]->init(&priv[e], ctx, &fs));
    }
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- scoring */

/* The pair of slot i with its previous references (the previous slots). */
static void slot_pair(const vmaf_ref *st, int i, feature_pair *pair)
{
    const slot *s = &st->s[i];
    const int n = st->nslots;
    const slot *s1 = &st->s[(i + n - 1) % n], *s2 = &st->s[(i + n - 2) % n];
    memset(pair, 0, sizeof(*pair));
    pair->ref = s->pic[0][0];
    pair->dis = s->pic[1][0];
    pair->ref_stride = s->pic_stride[0][0];
    pair->dis_stride = s->pic_stride[1][0];
    /* previous references: the slots' copies (ref_submit makes them) */
    pair->prev_stride = pair->prev2_stride = (ptrdiff_t)st->row_bytes;
    if (!s->new_stream && st->p.history > 0) {
        pair->prev = s1->ref;
        /* the previous pair is not the first of the stream */
        if (st->p.history > 1 && !s1->new_stream)
            pair->prev2 = s2->ref;
    }
    if (st->p.chroma != 400) {
        for (int c = 0; c < 2; c++) {
            pair->ref_c[c] = s->pic[0][1 + c];
            pair->dis_c[c] = s->pic[1][1 + c];
            pair->ref_c_stride[c] = s->pic_stride[0][1 + c];
            pair->dis_c_stride[c] = s->pic_stride[1][1 + c];
        }
    }
}

/* Every instance's raw values of pair with the extractor states priv. ctx
 * splits the work by rows (the split states only); NULL scores it on the
 * calling thread. */
static int score_pair(vmaf_ref *st, fovea_context *ctx, void *const *priv, const feature_pair *pair,
                      vmaf_raw *raw)
{
    memset(raw, 0, sizeof(*raw));
    for (int e = 0; e < st->p.n_ex; e++)
        FOVEA_TRY(st->fx[e]->extract(priv[e], ctx, pair, &raw->ex[e]));
    return FOVEA_OK;
}

static void *worker_main(void *opaque)
{
    worker *w = opaque;
    vmaf_ref *st = w->st;
    pthread_mutex_lock(&st->lock);
    for (;;) {
        while (!st->quit && st->s[st->take].state != SLOT_FILLED)
            pthread_cond_wait(&st->work, &st->lock);
        if (st->quit)
            break;
        const int i = st->take;
        st->take = (st->take + 1) % st->nslots;
        st->s[i].state = SLOT_TAKEN;
        pthread_mutex_unlock(&st->lock);

        feature_pair pair;
        slot_pair(st, i, &pair);
        const int rc = score_pair(st, NULL, w->priv, &pair, &st->s[i].raw);

        pthread_mutex_lock(&st->lock);
        st->s[i].status = rc;
        st->s[i].state = SLOT_DONE;
        pthread_cond_broadcast(&st->done);
    }
    pthread_mutex_unlock(&st->lock);
    return NULL;
}

/* ---------------------------------------------------------------- lifecycle */

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
    /* workers: one per thread of the context, within the memory budget
     * (estimated from each feature's state per pixel and two slots' pictures
     * a worker) */
    const size_t pixels = (size_t)p->width * (size_t)p->height;
    size_t pics = 2 * pixels * (size_t)st->bytes;
    if (p->chroma != 400)
        pics += 4 * (size_t)p->chroma_width * (size_t)p->chroma_height * (size_t)st->bytes;
    size_t per_worker = 2 * pics;
    for (int e = 0; e < p->n_ex; e++)
        per_worker += (size_t)p->ex[e].def->cpu_bytes_per_pixel * pixels;
    const size_t fit = VMAF_REF_BUDGET / (per_worker ? per_worker : 1);
    st->nworkers = fit < 1 ? 1 : fit < (size_t)st->nthreads ? (int)fit : st->nthreads;
    st->nslots = 2 * st->nworkers + VMAF_REF_GAP;
    st->s = calloc((size_t)st->nslots, sizeof(*st->s));
    st->w = calloc((size_t)st->nworkers, sizeof(*st->w));
    int rc = st->s && st->w ? FOVEA_OK : fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    for (int i = 0; rc == FOVEA_OK && i < st->nslots; i++)
        rc = init_slot(st, ctx, &st->s[i]);
    for (int i = 0; rc == FOVEA_OK && i < st->nworkers; i++) {
        st->w[i].st = st;
        rc = init_states(st, ctx, st->w[i].priv, 0);
    }
    if (rc == FOVEA_OK)
        rc = init_states(st, ctx, st->split, st->nthreads);
    if (rc == FOVEA_OK) {
        if (pthread_mutex_init(&st->lock, NULL) != 0)
            rc = fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: cannot make a mutex");
        else if (pthread_cond_init(&st->work, NULL) != 0) {
            pthread_mutex_destroy(&st->lock);
            rc = fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: cannot make a condition");
        } else if (pthread_cond_init(&st->done, NULL) != 0) {
            pthread_cond_destroy(&st->work);
            pthread_mutex_destroy(&st->lock);
            rc = fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: cannot make a condition");
        } else {
            st->locks = 1;
        }
    }
    for (int i = 0; rc == FOVEA_OK && i < st->nworkers; i++) {
        if (pthread_create(&st->w[i].thread, NULL, worker_main, &st->w[i]) != 0)
            rc = fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: cannot start a scoring thread");
        else
            st->w[i].started = 1;
    }
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
    /* as many pairs as workers, before the memory budget */
    const int n = fv_threadpool_size(ctx ? ctx->pool : NULL);
    return n < 1 ? 1 : n;
}

/* ---------------------------------------------------------------- queue */

/* rows of row_bytes from src (stride bytes apart) to dst, packed */
static void copy_plane(uint8_t *dst, size_t row_bytes, const uint8_t *src, ptrdiff_t stride,
                       int rows)
{
    for (int y = 0; y < rows; y++)
        memcpy(dst + (size_t)y * row_bytes, src + y * stride, row_bytes);
}

static int ref_submit(void *priv, fovea_context *ctx, const vmaf_plane *ref, const vmaf_plane *dis,
                      int new_stream)
{
    (void)ctx;
    vmaf_ref *st = priv;
    if (st->count >= st->nslots - VMAF_REF_GAP)
        return VMAF_QUEUE_FULL; /* the oldest result is collected first */
    /* the slot is free: its pair was collected, and so were the two after it
     * that read its pictures (the gap); no worker touches it until FILLED */
    const int i = (st->head + st->count) % st->nslots;
    slot *s = &st->s[i];
    const int planes = st->p.chroma != 400 ? 3 : 1;
    for (int k = 0; k < 2; k++) {
        const vmaf_plane *in = k ? dis : ref;
        uint8_t *const copy[3] = {k ? s->dis : s->ref, k ? s->dis_c[0] : s->ref_c[0],
                                  k ? s->dis_c[1] : s->ref_c[1]};
        for (int c = 0; c < planes; c++) {
            /* the reference's luma is copied for the pairs after it that
             * read it as their previous reference */
            if (in->held && (k || c || st->p.history == 0)) {
                s->pic[k][c] = in->data[c];
                s->pic_stride[k][c] = in->stride[c];
            } else {
                copy_plane(copy[c], c ? st->c_row_bytes : st->row_bytes, in->data[c], in->stride[c],
                           c ? st->p.chroma_height : st->p.height);
                s->pic[k][c] = copy[c];
                s->pic_stride[k][c] = (ptrdiff_t)(c ? st->c_row_bytes : st->row_bytes);
            }
        }
    }
    pthread_mutex_lock(&st->lock);
    s->new_stream = new_stream;
    s->status = FOVEA_OK;
    s->state = SLOT_FILLED;
    st->count++;
    pthread_cond_signal(&st->work);
    pthread_mutex_unlock(&st->lock);
    return FOVEA_OK;
}

static int ref_collect(void *priv, fovea_context *ctx, vmaf_raw *out)
{
    vmaf_ref *st = priv;
    if (st->count == 0)
        return fv_ctx_error(ctx, FOVEA_ERR_INTERNAL, "vmaf: nothing queued");
    const int i = st->head;
    slot *s = &st->s[i];
    pthread_mutex_lock(&st->lock);
    if (st->count == 1 && s->state == SLOT_FILLED && st->nthreads > 1) {
        /* a caller waiting for each score: this pair alone, split by rows
         * over the pool (no worker takes it: take moves past it) */
        s->state = SLOT_TAKEN;
        st->take = (st->take + 1) % st->nslots;
        pthread_mutex_unlock(&st->lock);
        feature_pair pair;
        slot_pair(st, i, &pair);
        const int rc = score_pair(st, ctx, st->split, &pair, &s->raw);
        pthread_mutex_lock(&st->lock);
        s->status = rc;
        s->state = SLOT_DONE;
    }
    while (s->state != SLOT_DONE)
        pthread_cond_wait(&st->done, &st->lock);
    s->state = SLOT_FREE;
    st->head = (st->head + 1) % st->nslots;
    st->count--;
    const int rc = s->status;
    pthread_mutex_unlock(&st->lock);
    *out = s->raw; /* the slot is refilled only after two more collections */
    return rc < 0 ? rc : FOVEA_OK;
}

/* One pair now, split over the threads by rows with the split states, read
 * where the caller has it: the copy into a slot would be a serial memcpy of
 * both planes while the pool waits, a large share of VIF alone's time on many
 * cores. A stream of its own: no previous reference is read or kept. */
static int ref_process(void *priv, fovea_context *ctx, const vmaf_plane *ref, const vmaf_plane *dis,
                       vmaf_raw *out)
{
    vmaf_ref *st = priv;
    if (st->count > 0)
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
    /* the next submitted pair starts a new stream: the previous slots'
     * pictures are never read for it */
    return score_pair(st, ctx, st->split, &pair, out);
}

const vmaf_backend vmaf_backend_ref = {
    {"cpu", FOVEA_BACKEND_CPU, BACKEND_ASYNC, ref_init, ref_close},
    ref_submit,
    ref_collect,
    ref_batch,
    ref_process,
};
