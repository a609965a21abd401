/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Read-ahead rings (fovea/advanced.h): one reader thread per input filling
 * frames ahead of the consumer, which takes and releases them in order. The
 * CLI's commands and fovea_vmaf_score_readers read through them. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fovea/advanced.h"
#include "io/io_internal.h"

typedef struct read_slot {
    fovea_frame f;
    int status;     /* fovea_reader_read's */
    char msg[1024]; /* the reader's message when it failed */
    int filled;
    int made; /* f is allocated (by the reader thread, when first used) */
} read_slot;

struct fovea_read_ring {
    fovea_reader *r;
    fovea_context *ctx; /* frame allocation */
    read_slot *slot;
    int nslots;
    int64_t limit;       /* reads at most (then FOVEA_EOF), -1 = all */
    int read_past_error; /* 0: the thread ends at a failed read */
    fovea_memtype mem;   /* where the slots' frames are made */
    int64_t taken, released;
    int stop, ready, started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th;
};

void fovea_read_ring_default_settings(fovea_read_ring_settings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->slots = 4;
    s->limit = -1;
    s->mem = FOVEA_MEM_HOST;
}

static void *ring_main(void *arg)
{
    fovea_read_ring *q = arg;
    for (int64_t k = 0;; k++) {
        pthread_mutex_lock(&q->mu);
        while (!q->stop && k >= q->released + q->nslots)
            pthread_cond_wait(&q->cv, &q->mu);
        const int stop = q->stop;
        pthread_mutex_unlock(&q->mu);
        if (stop)
            break;
        read_slot *sl = &q->slot[k % q->nslots];
        int st = q->limit >= 0 && k >= q->limit ? FOVEA_EOF : FOVEA_OK;
        sl->msg[0] = '\0';
        /* a slot's frame is made when first used: a short input pins no
         * more than it reads, and pinning the others overlaps the
         * consumer's work on the first reads */
        if (st == FOVEA_OK && !sl->made) {
            const fovea_video_info *in = fovea_reader_info(q->r);
            st = fovea_frame_alloc(q->ctx, &sl->f, in->width, in->height, in->fmt, q->mem);
            if (st < 0)
                snprintf(sl->msg, sizeof(sl->msg), "cannot allocate input frame %lld: %s",
                         (long long)k, fovea_strerror(st));
            else
                sl->made = 1;
        }
        if (st == FOVEA_OK) {
            st = fovea_reader_read(q->r, &sl->f);
            if (st < 0)
                snprintf(sl->msg, sizeof(sl->msg), "%s",
                         q->r->err[0] ? q->r->err : fovea_strerror(st));
        }
        pthread_mutex_lock(&q->mu);
        sl->status = st;
        sl->filled = 1;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
        if (st == FOVEA_EOF || (st < 0 && !q->read_past_error))
            break; /* the consumer takes nothing after this one */
    }
    return NULL;
}

int fovea_read_ring_open(fovea_read_ring **ring, fovea_context *ctx, fovea_reader *r,
                         const fovea_read_ring_settings *s)
{
    if (!ring)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "fovea_read_ring_open: ring is NULL");
    *ring = NULL;
    fovea_read_ring_settings d;
    fovea_read_ring_default_settings(&d);
    if (!s)
        s = &d;
    if (!r || s->slots < 1)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "fovea_read_ring_open: %s",
                            r ? "slots must be at least 1" : "no reader");
    fovea_read_ring *q = calloc(1, sizeof(*q));
    if (!q)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    q->r = r;
    q->ctx = ctx;
    q->nslots = s->slots;
    q->limit = s->limit;
    q->read_past_error = s->read_past_error;
    *ring = q;
    q->slot = calloc((size_t)q->nslots, sizeof(*q->slot));
    if (!q->slot) {
        fovea_read_ring_close(ring);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cannot allocate %d input frames", q->nslots);
    }
    if (pthread_mutex_init(&q->mu, NULL) != 0) {
        fovea_read_ring_close(ring);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cannot make a mutex");
    }
    if (pthread_cond_init(&q->cv, NULL) != 0) {
        pthread_mutex_destroy(&q->mu);
        fovea_read_ring_close(ring);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cannot make a condition");
    }
    q->ready = 1;
    q->mem = s->mem;
    /* the first slot now: a memory type the context cannot make is refused
     * here, not at the first read */
    const fovea_video_info *in = fovea_reader_info(r);
    const int st = fovea_frame_alloc(ctx, &q->slot[0].f, in->width, in->height, in->fmt, s->mem);
    if (st < 0) {
        fovea_read_ring_close(ring);
        return fv_ctx_error(ctx, st, "cannot allocate an input frame: %s", fovea_strerror(st));
    }
    q->slot[0].made = 1;
    return FOVEA_OK;
}

int fovea_read_ring_start(fovea_read_ring *q)
{
    if (!q || q->started)
        return fv_ctx_error(q ? q->ctx : NULL, FOVEA_ERR_INVALID_ARG, "fovea_read_ring_start: %s",
                            q ? "started already" : "ring is NULL");
    if (pthread_create(&q->th, NULL, ring_main, q) != 0)
        return fv_ctx_error(q->ctx, FOVEA_ERR_NOMEM, "cannot start a reader thread");
    q->started = 1;
    return FOVEA_OK;
}

int fovea_read_ring_take(fovea_read_ring *q, fovea_frame **f, const char **msg)
{
    read_slot *sl = &q->slot[q->taken % q->nslots];
    pthread_mutex_lock(&q->mu);
    while (!sl->filled)
        pthread_cond_wait(&q->cv, &q->mu);
    const int st = sl->status;
    pthread_mutex_unlock(&q->mu);
    q->taken++;
    *f = &sl->f;
    *msg = sl->msg;
    return st;
}

void fovea_read_ring_release(fovea_read_ring *q)
{
    pthread_mutex_lock(&q->mu);
    q->slot[q->released % q->nslots].filled = 0;
    q->released++;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

void fovea_read_ring_close(fovea_read_ring **ring)
{
    if (!ring || !*ring)
        return;
    fovea_read_ring *q = *ring;
    if (q->ready) {
        pthread_mutex_lock(&q->mu);
        q->stop = 1;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
        if (q->started)
            pthread_join(q->th, NULL);
        pthread_cond_destroy(&q->cv);
        pthread_mutex_destroy(&q->mu);
    }
    for (int k = 0; q->slot && k < q->nslots; k++)
        if (q->slot[k].made)
            fovea_frame_free(q->ctx, &q->slot[k].f);
    free(q->slot);
    free(q);
    *ring = NULL;
}
