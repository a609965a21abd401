/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The pipeline of the `fovea` commands that read and write video (cli.h):
 * the inputs' reader threads (fovea_read_ring) and one writer thread writing the
 * frames the command queues, in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void *writer_main(void *arg)
{
    cli_pipe *p = arg;
    for (int64_t k = 0;; k++) {
        cli_pipe_slot *ws = &p->slot[k % p->nslots];
        pthread_mutex_lock(&p->mu);
        while (!ws->filled && !p->closing)
            pthread_cond_wait(&p->cv, &p->mu);
        const int have = ws->filled;
        pthread_mutex_unlock(&p->mu);
        if (!have)
            break; /* closing, and every queued frame is written */
        const int st = fovea_writer_write(p->w, &ws->f[ws->which]);
        pthread_mutex_lock(&p->mu);
        if (st < 0) {
            p->failed = 1;
            p->status = st;
            /* the writer's message is this thread's last error */
            snprintf(p->msg, sizeof(p->msg), "%s", fovea_last_error(NULL));
        } else {
            p->written++;
        }
        ws->filled = 0;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (st < 0)
            break;
    }
    return NULL;
}

int cli_pipe_init(cli_pipe *p, int nslots)
{
    memset(p, 0, sizeof(*p));
    p->slot = calloc((size_t)nslots, sizeof(*p->slot));
    if (!p->slot)
        return FOVEA_ERR_NOMEM;
    p->nslots = nslots;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->ready = 1;
    return FOVEA_OK;
}

int cli_ring_open(fovea_read_ring **q, fovea_context *ctx, fovea_reader *r, int nslots,
                  int64_t limit, fovea_memtype mem, int read_past_error)
{
    fovea_read_ring_settings rs;
    fovea_read_ring_default_settings(&rs);
    rs.slots = nslots;
    rs.limit = limit;
    rs.mem = mem;
    rs.read_past_error = read_past_error;
    return fovea_read_ring_open(q, ctx, r, &rs);
}

int cli_pipe_start(cli_pipe *p, fovea_writer *w, fovea_read_ring **const *rings, int nrings)
{
    p->w = w;
    p->rings = rings;
    p->nrings = nrings;
    for (int c = 0; c < nrings; c++)
        if (fovea_read_ring_start(*rings[c]) != FOVEA_OK) {
            cli_error(NULL, "cannot start a reader thread");
            return -1;
        }
    if (!w)
        return 0;                                       /* the readers only */
    fovea_writer_set_temp_hook(w, cli_temp_hook, NULL); /* removed if interrupted */
    if (pthread_create(&p->th, NULL, writer_main, p) != 0) {
        cli_error(NULL, "cannot start the writer thread");
        return -1;
    }
    p->started = 1;
    return 0;
}

int cli_pipe_put(cli_pipe *p, fovea_frame *bufs[2], int which)
{
    cli_pipe_slot *ws = &p->slot[p->queued % p->nslots];
    pthread_mutex_lock(&p->mu);
    while (ws->filled && !p->failed)
        pthread_cond_wait(&p->cv, &p->mu);
    const int st = p->failed ? p->status : FOVEA_OK;
    if (!p->failed) {
        for (int k = 0; k < 2; k++) {
            const fovea_frame t = ws->f[k];
            ws->f[k] = *bufs[k];
            *bufs[k] = t;
        }
        ws->which = which;
        ws->filled = 1;
        p->queued++;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return st;
}

int cli_pipe_finish(cli_pipe *p)
{
    if (!p->ready)
        return FOVEA_OK;
    pthread_mutex_lock(&p->mu);
    p->closing = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (p->started)
        pthread_join(p->th, NULL);
    p->started = 0;
    for (int c = 0; c < p->nrings; c++)
        fovea_read_ring_close(p->rings[c]);
    return p->failed ? p->status : FOVEA_OK;
}

void cli_pipe_free(cli_pipe *p, fovea_context *ctx)
{
    if (!p->ready)
        return;
    for (int k = 0; p->slot && k < p->nslots; k++) {
        fovea_frame_free(ctx, &p->slot[k].f[0]);
        fovea_frame_free(ctx, &p->slot[k].f[1]);
    }
    free(p->slot);
    p->slot = NULL;
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    p->ready = 0;
}

const char *cli_pipe_error(const cli_pipe *p)
{
    return p->failed ? p->msg : fovea_last_error(NULL);
}
