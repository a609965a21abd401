/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The batch scheduler of `fovea vmaf --manifest`: which workers run (CUDA
 * devices, several per device, or CPU workers) and the threads that hand them
 * the pairs. The same code runs GPU and CPU workers, so the CPU tests cover
 * the path a multi-GPU machine takes (tests/test_tools_vmaf_sched.c). */
#ifndef FOVEA_TOOLS_VMAF_SCHED_H
#define FOVEA_TOOLS_VMAF_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "fovea/fovea.h"

#define SCHED_MAX_DEVICES 64
#define SCHED_MAX_WORKERS 256

/* One worker: a thread with a fovea context of its own. */
typedef struct sched_worker {
    fovea_backend backend; /* CPU or CUDA */
    int device;            /* CUDA device index; -1 for CPU workers */
    int threads;           /* the context's CPU threads */
    char label[32];        /* "cuda:1", "cpu" */
} sched_worker;

/* What the workers are made from. */
typedef struct sched_request {
    fovea_backend backend; /* AUTO: every visible CUDA device, else CPU */
    int visible_devices;   /* CUDA devices present (fovea_device_count) */
    const int *devices;    /* --devices: indices to use (distinct), NULL = all visible */
    int ndevices;
    int jobs;      /* pairs in flight per device (GPU) or CPU workers; 0 = default */
    int threads;   /* threads per context; 0 = default */
    int cpu_count; /* online CPUs */
} sched_request;

/* Pairs in flight per GPU by default: one pair's files are opened and its
 * first frames read while the other's are scored. */
#define SCHED_DEFAULT_GPU_JOBS 2

/* The workers for a request: on CUDA, jobs workers per device, interleaved
 * (device order, then again) so that the first pairs go to distinct devices;
 * on CPU, jobs workers (default: one per 4 CPUs, at least 1) sharing the CPUs
 * (threads each: default cpu_count / workers, at least 1).
 * @return the number of workers (>= 1), or -1 with a message in err (a device
 *         that is not there, CUDA asked for and none visible, too many) */
int sched_plan(const sched_request *rq, sched_worker *out, int max, char *err, size_t errsz);

/* What the scheduler calls, from the worker threads. opaque is the caller's. */
typedef struct sched_ops {
    /* Make worker w's state (its context). @return 0, or -1 with a message
     * in err: the worker then takes no task */
    int (*init)(void *opaque, int w, void **state, char *err, size_t errsz);
    /* Run task t (0 .. ntasks-1) on worker w. */
    void (*run)(void *opaque, int w, void *state, int64_t t);
    /* Free worker w's state (after its last task). */
    void (*fini)(void *opaque, int w, void *state);
    /* Task t was not run because no worker could start: msg says why.
     * Called on the calling thread, after every worker ended. */
    void (*unrun)(void *opaque, int64_t t, const char *msg);
} sched_ops;

/* Run tasks 0 .. ntasks-1 on nworkers threads: each worker takes the next
 * task when it is free (so the output order is the completion order) until
 * none is left; no worker takes one before every init returned. A worker
 * whose init fails takes none; the others take its share.
 * @return the number of tasks run, or -1 when no thread could start */
int64_t sched_run(const sched_ops *ops, void *opaque, int nworkers, int64_t ntasks);

/* --shard I/N: "I/N" with 0 <= I < N. @return 0, or -1 */
int sched_parse_shard(const char *s, int64_t *index, int64_t *count);

/* --devices: a comma-separated list of distinct device indices ("0,1").
 * @return the number of indices (1..max), or -1 */
int sched_parse_devices(const char *s, int *out, int max);

/* Whether pair k (0-based, in manifest order) belongs to shard I of N:
 * k % N == I. */
static inline int sched_in_shard(int64_t k, int64_t index, int64_t count)
{
    return k % count == index;
}

#endif
