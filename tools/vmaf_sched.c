/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The batch scheduler of `fovea vmaf --manifest` (vmaf_sched.h): the worker
 * plan, the worker threads pulling pairs from one counter, shard and device
 * list parsing. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmaf_sched.h"

int sched_plan(const sched_request *rq, sched_worker *out, int max, char *err, size_t errsz)
{
    int use_cuda = rq->backend == FOVEA_BACKEND_CUDA ||
                   (rq->backend == FOVEA_BACKEND_AUTO && rq->visible_devices > 0);
    if (rq->devices && rq->ndevices > 0) {
        if (rq->backend == FOVEA_BACKEND_CPU) {
            snprintf(err, errsz, "--devices picks CUDA devices: it does not go with --backend cpu");
            return -1;
        }
        use_cuda = 1;
    }
    if (!use_cuda) {
        int jobs = rq->jobs > 0 ? rq->jobs : rq->cpu_count / 4;
        if (jobs < 1)
            jobs = 1;
        if (jobs > max) {
            snprintf(err, errsz, "--jobs %d: at most %d workers", jobs, max);
            return -1;
        }
        int threads = rq->threads > 0 ? rq->threads : rq->cpu_count / jobs;
        if (threads < 1)
            threads = 1;
        for (int w = 0; w < jobs; w++) {
            out[w].backend = FOVEA_BACKEND_CPU;
            out[w].device = -1;
            out[w].threads = threads;
            snprintf(out[w].label, sizeof(out[w].label), "cpu");
        }
        return jobs;
    }

    int dev[SCHED_MAX_DEVICES], ndev = 0;
    if (rq->visible_devices <= 0) {
        snprintf(err, errsz, "no CUDA device visible (--backend cpu scores on the CPU)");
        return -1;
    }
    if (rq->devices && rq->ndevices > 0) {
        for (int i = 0; i < rq->ndevices && i < SCHED_MAX_DEVICES; i++) {
            if (rq->devices[i] < 0 || rq->devices[i] >= rq->visible_devices) {
                snprintf(err, errsz, "--devices: no CUDA device %d (%d visible: 0..%d)",
                         rq->devices[i], rq->visible_devices, rq->visible_devices - 1);
                return -1;
            }
            dev[ndev++] = rq->devices[i];
        }
    } else {
        for (int d = 0; d < rq->visible_devices && d < SCHED_MAX_DEVICES; d++)
            dev[ndev++] = d;
    }
    const int jobs = rq->jobs > 0 ? rq->jobs : SCHED_DEFAULT_GPU_JOBS;
    if ((int64_t)jobs * ndev > max) {
        snprintf(err, errsz, "%d devices x --jobs %d: at most %d workers", ndev, jobs, max);
        return -1;
    }
    const int n = jobs * ndev;
    int threads = rq->threads > 0 ? rq->threads : rq->cpu_count / n;
    if (threads < 1)
        threads = 1;
    /* device order, then again: the first ndev pairs go to distinct devices */
    for (int w = 0; w < n; w++) {
        out[w].backend = FOVEA_BACKEND_CUDA;
        out[w].device = dev[w % ndev];
        out[w].threads = threads;
        snprintf(out[w].label, sizeof(out[w].label), "cuda:%d", out[w].device);
    }
    return n;
}

/* ------------------------------------------------------------------ threads */

typedef struct sched_state {
    const sched_ops *ops;
    void *opaque;
    int64_t ntasks;
    int64_t next; /* the next task to hand out */
    int64_t run;  /* tasks run */
    int waiting;  /* workers whose init has not returned yet */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char err[1024]; /* the last failed init's message */
} sched_state;

typedef struct sched_thread {
    sched_state *s;
    int w;
    pthread_t th;
    int started;
} sched_thread;

static void *worker_main(void *arg)
{
    sched_thread *t = arg;
    sched_state *s = t->s;
    void *state = NULL;
    char err[1024] = "";
    const int ok = s->ops->init(s->opaque, t->w, &state, err, sizeof(err)) == 0;
    /* every worker starts taking pairs once all are ready (a CUDA context
     * takes a while): the first pairs then go to distinct devices, in the
     * plan's order */
    pthread_mutex_lock(&s->mu);
    if (!ok)
        snprintf(s->err, sizeof(s->err), "%s", err[0] ? err : "the worker could not start");
    if (--s->waiting == 0)
        pthread_cond_broadcast(&s->cv);
    while (s->waiting > 0)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    if (!ok)
        return NULL;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        const int64_t k = s->next < s->ntasks ? s->next++ : -1;
        pthread_mutex_unlock(&s->mu);
        if (k < 0)
            break;
        s->ops->run(s->opaque, t->w, state, k);
        pthread_mutex_lock(&s->mu);
        s->run++;
        pthread_mutex_unlock(&s->mu);
    }
    s->ops->fini(s->opaque, t->w, state);
    return NULL;
}

int64_t sched_run(const sched_ops *ops, void *opaque, int nworkers, int64_t ntasks)
{
    sched_state s;
    memset(&s, 0, sizeof(s));
    s.ops = ops;
    s.opaque = opaque;
    s.ntasks = ntasks;
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    sched_thread *th = calloc((size_t)(nworkers > 0 ? nworkers : 1), sizeof(*th));
    int started = 0;
    pthread_mutex_lock(&s.mu); /* the workers wait here until all are counted */
    s.waiting = nworkers;
    for (int w = 0; th && w < nworkers; w++) {
        th[w].s = &s;
        th[w].w = w;
        th[w].started = pthread_create(&th[w].th, NULL, worker_main, &th[w]) == 0;
        started += th[w].started;
    }
    s.waiting -= nworkers - started; /* threads that did not start never report */
    if (s.waiting == 0)
        pthread_cond_broadcast(&s.cv);
    pthread_mutex_unlock(&s.mu);
    for (int w = 0; th && w < nworkers; w++)
        if (th[w].started)
            pthread_join(th[w].th, NULL);
    free(th);
    pthread_cond_destroy(&s.cv);
    pthread_mutex_destroy(&s.mu);
    /* tasks left when every worker failed to start (or no thread ran) */
    const char *why = s.err[0] ? s.err : "no worker thread could start";
    for (int64_t k = s.next; k < ntasks; k++)
        ops->unrun(opaque, k, why);
    return started ? s.run : -1;
}

/* ------------------------------------------------------------------ parsing */

static int parse_nonneg(const char *s, const char **end, long long *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *e;
    const long long v = strtoll(s, &e, 10);
    if (errno)
        return -1;
    *end = e;
    *out = v;
    return 0;
}

int sched_parse_shard(const char *s, int64_t *index, int64_t *count)
{
    long long i, n;
    const char *e;
    if (parse_nonneg(s, &e, &i) < 0 || *e != '/' || parse_nonneg(e + 1, &e, &n) < 0 || *e)
        return -1;
    if (n < 1 || i >= n)
        return -1;
    *index = i;
    *count = n;
    return 0;
}

int sched_parse_devices(const char *s, int *out, int max)
{
    int n = 0;
    for (;;) {
        long long v;
        const char *e;
        if (parse_nonneg(s, &e, &v) < 0 || v >= SCHED_MAX_DEVICES || n >= max)
            return -1;
        for (int k = 0; k < n; k++)
            if (out[k] == (int)v)
                return -1;
        out[n++] = (int)v;
        if (*e == '\0')
            return n;
        if (*e != ',')
            return -1;
        s = e + 1;
    }
}
