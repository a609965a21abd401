/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The context: resolves the backend, owns (or borrows) the CUDA stream and the
 * CPU thread pool; its last error messages live in core/error.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "core/device.h"

void fovea_default_settings(fovea_settings *s)
{
    memset(s, 0, sizeof(*s));
    s->backend = FOVEA_BACKEND_AUTO;
    s->cuda_device = 0;
    s->threads = 0;
    s->log_level = FOVEA_LOG_WARNING;
}

int fovea_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

int fovea_open(fovea_context **out, const fovea_settings *s)
{
    fovea_settings defaults;
    if (!out)
        return fv_ctx_error(NULL, FOVEA_ERR_INVALID_ARG, "fovea_open: NULL context pointer");
    *out = NULL;
    if (!s) {
        fovea_default_settings(&defaults);
        s = &defaults;
    }
    if (s->backend < FOVEA_BACKEND_AUTO || s->backend > FOVEA_BACKEND_CUDA)
        return fv_ctx_error(NULL, FOVEA_ERR_INVALID_ARG, "fovea_open: invalid backend %d",
                            (int)s->backend);
    if (s->threads < 0 || s->threads > FOVEA_MAX_THREADS)
        return fv_ctx_error(NULL, FOVEA_ERR_INVALID_ARG,
                            "fovea_open: threads %d out of range (0 = one per CPU, at most %d)",
                            s->threads, FOVEA_MAX_THREADS);
    if (s->cuda_device < 0)
        return fv_ctx_error(NULL, FOVEA_ERR_INVALID_ARG, "fovea_open: negative CUDA device %d",
                            s->cuda_device);

    fovea_context *ctx = calloc(1, sizeof(*ctx));
    if (!ctx)
        return FOVEA_ERR_NOMEM;
    ctx->settings = *s;
    ctx->device = -1;
    fv_ctx_error_init(ctx);
    ctx->threads = s->threads > 0 ? s->threads : fovea_cpu_count();

    /* a CPU context never asks the CUDA runtime: its first call starts the
     * driver (cuInit), a cost a short CPU run on a GPU machine should not pay */
    int ndev = 0;
    if (s->backend != FOVEA_BACKEND_CPU)
        fovea_device_count(&ndev);
    if (s->backend == FOVEA_BACKEND_CUDA || (s->backend == FOVEA_BACKEND_AUTO && ndev > 0)) {
        if (!fovea_cuda_compiled()) {
            free(ctx);
            return FOVEA_ERR_NO_DEVICE;
        }
        if (s->cuda_device >= ndev) {
            if (s->backend == FOVEA_BACKEND_CUDA) {
                free(ctx);
                return FOVEA_ERR_NO_DEVICE;
            }
        } else {
            int st = fv_device_bind(ctx, s->cuda_device, s->cuda_stream);
            if (st < 0) {
                if (s->backend == FOVEA_BACKEND_CUDA) {
                    free(ctx);
                    return st;
                }
            } else {
                ctx->backend = FOVEA_BACKEND_CUDA;
                ctx->device = s->cuda_device;
            }
        }
    }
    if (ctx->backend != FOVEA_BACKEND_CUDA)
        ctx->backend = FOVEA_BACKEND_CPU;

    int st = fv_threadpool_create(&ctx->pool, ctx->threads);
    if (st < 0) {
        fv_device_unbind(ctx);
        free(ctx);
        return st;
    }
    *out = ctx;
    return FOVEA_OK;
}

void fovea_close(fovea_context **pctx)
{
    if (!pctx || !*pctx)
        return;
    fovea_context *ctx = *pctx;
    fv_device_unbind(ctx);
    fv_threadpool_destroy(&ctx->pool);
    free(ctx);
    *pctx = NULL;
}

fovea_backend fovea_context_backend(const fovea_context *ctx)
{
    return ctx ? ctx->backend : FOVEA_BACKEND_CPU;
}

int fovea_context_threads(const fovea_context *ctx)
{
    return ctx ? ctx->threads : 1;
}

void *fovea_context_stream(const fovea_context *ctx)
{
    return ctx ? ctx->stream : NULL;
}

int fovea_context_device(const fovea_context *ctx)
{
    return ctx ? ctx->device : -1;
}

int fovea_sync(fovea_context *ctx)
{
    if (!ctx)
        return FOVEA_ERR_INVALID_ARG;
    return fv_device_sync(ctx);
}

int fovea_context_wait_stream(fovea_context *ctx, void *stream)
{
    if (!ctx)
        return FOVEA_ERR_INVALID_ARG;
    return fv_device_order(ctx, ctx->stream, stream);
}

int fovea_context_signal_stream(fovea_context *ctx, void *stream)
{
    if (!ctx)
        return FOVEA_ERR_INVALID_ARG;
    return fv_device_order(ctx, stream, ctx->stream);
}
