/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The backend table shape every system shares, and the one picker that chooses
 * a system's table for a context (as libvmaf's feature extractors: the CUDA
 * variant of a system is one more table in the system's list). */
#ifndef FOVEA_CORE_BACKEND_H
#define FOVEA_CORE_BACKEND_H

#include <stddef.h>

#include "fovea/fovea.h"

/* What a backend provides beyond the system's processing calls (backend_info
 * .provides). */
enum {
    BACKEND_READS_DEVICE = 1 << 0, /* reads and writes frames in CUDA device memory */
    BACKEND_ASYNC = 1 << 1,        /* queues work on the context's stream (submit/collect,
                                      or results completed later) */
};

/* The common head of every system's backend table. A system's table is a
 * const struct whose first member is a backend_info, followed by the system's
 * own processing functions (process, or submit/collect, ...), each taking the
 * priv that init made:
 *
 *   typedef struct stitch_backend {
 *       backend_info info;
 *       int (*process)(void *priv, ...);
 *       ...
 *   } stitch_backend;
 *
 * init makes the backend's private state for ctx (the caller's context: a CUDA
 * backend runs on its device and stream) from the system's params; close frees
 * it and sets *priv to NULL (safe on a NULL *priv). Statuses are fovea
 * statuses, detail in ctx's last error. */
typedef struct backend_info {
    const char *name;   /* "cpu", "cuda" */
    fovea_backend kind; /* FOVEA_BACKEND_CPU or FOVEA_BACKEND_CUDA */
    unsigned provides;  /* BACKEND_* flags */
    int (*init)(void **priv, fovea_context *ctx, const void *params);
    void (*close)(void **priv);
} backend_info;

/* A system's list of tables holds its C table, then BACKEND_CUDA_ENTRY(its
 * CUDA table): the entry exists in CUDA builds only (the table is defined in
 * the system's *_cuda.c, which only CUDA builds compile), so no system tests
 * FOVEA_HAVE_CUDA itself. */
#ifdef FOVEA_HAVE_CUDA
#define BACKEND_CUDA_ENTRY(table) &(table).info,
#else
#define BACKEND_CUDA_ENTRY(table)
#endif

/* Pick the table of list[0..n) for a request:
 *   CPU  -> the cpu table;
 *   CUDA -> the cuda table; FOVEA_ERR_NO_DEVICE without one compiled in or
 *           without a device ("backend cuda: fovea was built without CUDA",
 *           "backend cuda: no CUDA device");
 *   AUTO -> the cuda table when a device is present (ctx is a CUDA context, or
 *           the machine has a CUDA device) and one is compiled in, else cpu.
 * Stitch and VIF request their context's backend (resolved by fovea_open);
 * KLT its tracking context's field. On failure *chosen is NULL and the
 * message goes to err (fv_errbuf). */
int backend_pick(const fovea_context *ctx, const backend_info *const *list, size_t n,
                 fovea_backend requested, const backend_info **chosen, char *err, size_t errsz);

#endif
