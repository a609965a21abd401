/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fixed-size pthread pool used by every C reference backend. One job at a time:
 * workers and the caller pull chunks of an index range from a shared counter. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/core.h"

struct fv_threadpool {
    int size;             /* threads including the caller */
    pthread_t *workers;   /* size - 1 workers */
    pthread_mutex_t lock; /* guards the job fields and generation */
    pthread_cond_t wake;
    pthread_cond_t done;
    pthread_mutex_t submit; /* serializes callers */
    unsigned long generation;
    int quit;
    /* current job */
    fv_range_fn fn;
    void *arg;
    int n, chunk;
    atomic_int next;
    int active; /* workers still inside the current job */
};

static _Thread_local int in_pool_worker;

static void run_chunks(struct fv_threadpool *p, int thread)
{
    for (;;) {
        int begin = atomic_fetch_add(&p->next, p->chunk);
        if (begin >= p->n)
            break;
        int end = begin + p->chunk < p->n ? begin + p->chunk : p->n;
        p->fn(p->arg, begin, end, thread);
    }
}

typedef struct {
    struct fv_threadpool *pool;
    int index;
} worker_arg;

static void *worker_main(void *opaque)
{
    worker_arg *wa = opaque;
    struct fv_threadpool *p = wa->pool;
    int thread = wa->index;
    free(wa);
    in_pool_worker = 1;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->quit)
            break;
        seen = p->generation;
        pthread_mutex_unlock(&p->lock);
        run_chunks(p, thread);
        pthread_mutex_lock(&p->lock);
        if (--p->active == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int fv_threadpool_create(struct fv_threadpool **out, int threads)
{
    if (threads < 1)
        threads = 1;
    struct fv_threadpool *p = calloc(1, sizeof(*p));
    if (!p)
        return FOVEA_ERR_NOMEM;
    p->size = threads;
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_init(&p->submit, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    if (threads > 1) {
        p->workers = calloc((size_t)threads - 1, sizeof(pthread_t));
        if (!p->workers) {
            fv_threadpool_destroy(&p);
            return FOVEA_ERR_NOMEM;
        }
        for (int i = 0; i < threads - 1; i++) {
            worker_arg *wa = malloc(sizeof(*wa));
            if (wa) {
                wa->pool = p;
                wa->index = i + 1;
            }
            if (!wa || pthread_create(&p->workers[i], NULL, worker_main, wa) != 0) {
                free(wa);
                p->size = i + 1; /* only i workers exist */
                fv_threadpool_destroy(&p);
                return FOVEA_ERR_NOMEM;
            }
        }
    }
    *out = p;
    return FOVEA_OK;
}

void fv_threadpool_destroy(struct fv_threadpool **pp)
{
    if (!pp || !*pp)
        return;
    struct fv_threadpool *p = *pp;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; p->workers && i < p->size - 1; i++)
        pthread_join(p->workers[i], NULL);
    free(p->workers);
    pthread_mutex_destroy(&p->lock);
    pthread_mutex_destroy(&p->submit);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    free(p);
    *pp = NULL;
}

int fv_threadpool_size(const struct fv_threadpool *p)
{
    return p ? p->size : 1;
}

void fv_parallel_for(fovea_context *ctx, int n, int grain, fv_range_fn fn, void *arg)
{
    if (n <= 0)
        return;
    if (grain < 1)
        grain = 1;
    struct fv_threadpool *p = ctx ? ctx->pool : NULL;
    if (!p || p->size == 1 || in_pool_worker || n <= grain) {
        fn(arg, 0, n, 0);
        return;
    }
    pthread_mutex_lock(&p->submit);
    /* about four chunks per thread balances uneven rows without much overhead */
    int chunk = n / (p->size * 4);
    if (chunk < grain)
        chunk = grain;
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->arg = arg;
    p->n = n;
    p->chunk = chunk;
    atomic_store(&p->next, 0);
    p->active = p->size - 1;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);

    in_pool_worker = 1;
    run_chunks(p, 0);
    in_pool_worker = 0;

    pthread_mutex_lock(&p->lock);
    while (p->active > 0)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_unlock(&p->submit);
}
