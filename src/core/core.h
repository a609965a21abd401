/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal core: the context structure, error recording, logging and the CPU
 * thread pool shared by every reference backend. */
#ifndef FOVEA_CORE_H
#define FOVEA_CORE_H

#include <stdarg.h>
#include "fovea/fovea.h"

#define FOVEA_ERRLEN 1024

struct fv_threadpool;

struct fovea_context {
    fovea_settings settings;
    fovea_backend backend; /* resolved: CPU or CUDA */
    int device;            /* CUDA device, -1 for CPU */
    void *stream;          /* cudaStream_t */
    int own_stream;
    int threads;
    struct fv_threadpool *pool;
    uint64_t err_id; /* key of this context's per-thread last-error slots */
};

/* Give ctx its last-error key (fovea_open). */
void fv_ctx_error_init(fovea_context *ctx);

/* Record a formatted message as the last error of ctx for the calling thread
 * (read with fovea_last_error(ctx) on the same thread) and return status.
 * ctx may be NULL: the message goes to the thread's context-less slot. */
int fv_ctx_error(fovea_context *ctx, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Format a message into a caller's error buffer (err may be NULL or errsz 0)
 * and return status: the error path of internal helpers that report through
 * (char *err, size_t errsz); public functions move the text to their context
 * with fv_ctx_error(ctx, st, "%s", err). */
int fv_errbuf(char *err, size_t errsz, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Return from the calling function with call's status when it is negative
 * (an error already recorded where the callee reports). CUDA calls go through
 * FOVEA_CUDA_TRY (core/cuda_util.h) instead. */
#define FOVEA_TRY(call)                                                                            \
    do {                                                                                           \
        int fv_try_st_ = (call);                                                                   \
        if (fv_try_st_ < 0)                                                                        \
            return fv_try_st_;                                                                     \
    } while (0)

/* Deliver a message to the context's log callback if its level passes. */
void fv_log(fovea_context *ctx, fovea_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- CPU thread pool (pthreads). One pool per context, fixed size. ---- */

/* Work item: process the index range [begin, end). thread is 0..threads-1. */
typedef void (*fv_range_fn)(void *arg, int begin, int end, int thread);

int fv_threadpool_create(struct fv_threadpool **pool, int threads);
void fv_threadpool_destroy(struct fv_threadpool **pool);
int fv_threadpool_size(const struct fv_threadpool *pool);

/* Split [0, n) into chunks of at least grain indices and run fn on them across
 * the context's threads (the caller participates); returns when all are done.
 * ctx may be NULL (runs serially). Nested calls from a worker run serially. */
void fv_parallel_for(fovea_context *ctx, int n, int grain, fv_range_fn fn, void *arg);

/* Copy host (pageable or pinned) frame src into host frame dst, the rows of
 * every plane split across the context's threads (one thread's memcpy is
 * slower than the PCIe link the CUDA backends' staging copies feed):
 * fovea_frame_copy's host-to-host path. Finishes before it returns. */
int fv_frame_copy_host(fovea_context *ctx, fovea_frame *dst, const fovea_frame *src);

/* The checks at the boundary of every public function that reads or writes a
 * caller's frame: not NULL, a valid format and memory kind, a size of
 * 1..FOVEA_MAX_DIM, every plane present with a stride of at least its row's
 * bytes (a smaller one would make rows overlap and the last one run past the
 * caller's buffer). what names the frame in the message ("source frame").
 * @return FOVEA_OK or FOVEA_ERR_INVALID_ARG with ctx's last error set. */
int fv_frame_check(fovea_context *ctx, const fovea_frame *f, const char *what);
/* The same check, the message into msg (n bytes) instead of ctx. */
int fv_frame_check_buf(const fovea_frame *f, const char *what, char *msg, size_t n);

/* Make g a frame of f's size and format in memory mem, kept when it already is
 * one, else freed and allocated again (scratch and staging frames that follow
 * their inputs). */
int fv_frame_ensure(fovea_context *ctx, fovea_frame *g, const fovea_frame *f, fovea_memtype mem);

/* fovea_cpu_count(): fovea/fovea.h */

/* Overflow-checked size arithmetic: return 0 on overflow, 1 on success. */
static inline int fv_mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > (size_t)-1 / a)
        return 0;
    *out = a * b;
    return 1;
}
static inline int fv_add_size(size_t a, size_t b, size_t *out)
{
    if (b > (size_t)-1 - a)
        return 0;
    *out = a + b;
    return 1;
}

#endif
