/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Read-ahead rings of the `fovea` commands (cli.h): one reader thread per
 * input filling frames ahead of the command, which takes and releases them in
 * order. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_ring_init(cli_ring *q, fovea_context *ctx, fovea_reader *r, int nslots, int64_t limit,
                  fovea_memtype mem, int stop_on_error)
{
    memset(q, 0, sizeof(*q));
    q->r = r;
    q->ctx = ctx;
    q->nslots = nslots;
    q->limit = limit;
    q->stop_on_error = stop_on_error;
    q->slot = calloc((size_t)nslots, sizeof(*q->slot));
    if (!q->slot)
        return FOVEA_ERR_NOMEM;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    q->ready = 1;
    const fovea_video_info *in = fovea_reader_info(r);
    for (int k = 0; k < nslots; k++) {
        int st = fovea_frame_alloc(ctx, &q->slot[k].f, in->width, in->height, in->fmt, mem);
        if (st < 0)
            return st;
    }
    return FOVEA_OK;
}

static void *ring_main(void *arg)
{
    cli_ring *q = arg;
    for (int64_t k = 0;; k++) {
        pthread_mutex_lock(&q->mu);
        while (!q->stop && k >= q->released + q->nslots)
            pthread_cond_wait(&q->cv, &q->mu);
        const int stop = q->stop;
        pthread_mutex_unlock(&q->mu);
        if (stop)
            break;
        cli_ring_slot *sl = &q->slot[k % q->nslots];
        const int st = q->limit >= 0 && k >= q->limit ? FOVEA_EOF : fovea_reader_read(q->r, &sl->f);
        if (st < 0)
            /* the reader's message is this (the reading) thread's last error */
            snprintf(sl->msg, sizeof(sl->msg), "%s", cli_last_error(q->ctx));
        pthread_mutex_lock(&q->mu);
        sl->status = st;
        sl->filled = 1;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
        if (st == FOVEA_EOF || (st < 0 && q->stop_on_error))
            break; /* the command takes nothing after this one */
    }
    return NULL;
}

int cli_ring_run(cli_ring *q)
{
    if (pthread_create(&q->th, NULL, ring_main, q) != 0)
        return -1;
    q->started = 1;
    return 0;
}

int cli_ring_take(cli_ring *q, fovea_frame **f, const char **msg)
{
    cli_ring_slot *sl = &q->slot[q->taken % q->nslots];
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

void cli_ring_release(cli_ring *q)
{
    pthread_mutex_lock(&q->mu);
    q->slot[q->released % q->nslots].filled = 0;
    q->released++;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

void cli_ring_stop(cli_ring *q)
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
        fovea_frame_free(q->ctx, &q->slot[k].f);
    free(q->slot);
    q->slot = NULL;
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    q->ready = 0;
}
