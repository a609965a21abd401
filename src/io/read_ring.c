/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Read-ahead rings (read_ring.h): one reader thread per input filling frames
 * ahead of the consumer, which takes and releases them in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "io/io_internal.h"
#include "io/read_ring.h"

static void *ring_main(void *arg)
{
    fv_read_ring *q = arg;
    for (int64_t k = 0;; k++) {
        pthread_mutex_lock(&q->mu);
        while (!q->stop && k >= q->released + q->nslots)
            pthread_cond_wait(&q->cv, &q->mu);
        const int stop = q->stop;
        pthread_mutex_unlock(&q->mu);
        if (stop)
            break;
        fv_read_slot *sl = &q->slot[k % q->nslots];
        int st = q->limit >= 0 && k >= q->limit ? FOVEA_EOF : FOVEA_OK;
        /* a slot's frame is made when first used: a short input pins no
         * more than it reads, and the pinning of the rest overlaps the
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
        if (st != FOVEA_OK)
            break; /* the consumer takes nothing after this one */
    }
    return NULL;
}

int fv_read_ring_start(fv_read_ring *q, fovea_context *ctx, fovea_reader *r, int nslots,
                       int64_t limit, fovea_memtype mem)
{
    memset(q, 0, sizeof(*q));
    q->r = r;
    q->ctx = ctx;
    q->nslots = nslots;
    q->limit = limit;
    q->slot = calloc((size_t)nslots, sizeof(*q->slot));
    if (!q->slot)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cannot allocate %d input frames", nslots);
    if (pthread_mutex_init(&q->mu, NULL) != 0)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cannot make a mutex");
    if (pthread_cond_init(&q->cv, NULL) != 0) {
        pthread_mutex_destroy(&q->mu);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cannot make a condition");
    }
    q->ready = 1;
    q->mem = mem;
    if (pthread_create(&q->th, NULL, ring_main, q) != 0)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cannot start a reader thread");
    q->started = 1;
    return FOVEA_OK;
}

int fv_read_ring_take(fv_read_ring *q, fovea_frame **f, const char **msg)
{
    fv_read_slot *sl = &q->slot[q->taken % q->nslots];
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

void fv_read_ring_release(fv_read_ring *q)
{
    pthread_mutex_lock(&q->mu);
    q->slot[q->released % q->nslots].filled = 0;
    q->released++;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

void fv_read_ring_stop(fv_read_ring *q)
{
    if (!q->ready) {
        free(q->slot);
        q->slot = NULL;
        return;
    }
    pthread_mutex_lock(&q->mu);
    q->stop = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    if (q->started)
        pthread_join(q->th, NULL);
    q->started = 0;
    for (int k = 0; k < q->nslots; k++)
        if (q->slot[k].made)
            fovea_frame_free(q->ctx, &q->slot[k].f);
    free(q->slot);
    q->slot = NULL;
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    q->ready = 0;
}
