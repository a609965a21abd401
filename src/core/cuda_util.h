/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal CUDA helpers for C code. Only compiled in CUDA builds: include from
 * files named *_cuda.c or guarded by FOVEA_HAVE_CUDA. */
#ifndef FOVEA_CUDA_UTIL_H
#define FOVEA_CUDA_UTIL_H

#include "core/core.h"

#ifdef FOVEA_HAVE_CUDA
#include <cuda_runtime_api.h>

/* Map a cudaError_t to FOVEA_ERR_CUDA, recording "file:line: expr: error" in the
 * context; returns FOVEA_OK for cudaSuccess. */
int fv_cuda_status(fovea_context *ctx, int cuda_err, const char *expr, const char *file, int line);

/* Every CUDA API call and every launcher goes through this. Evaluates to a
 * fovea status. Launchers return cudaGetLastError() of their launch. */
#define FOVEA_CUDA(ctx, call) fv_cuda_status((ctx), (int)(call), #call, __FILE__, __LINE__)

/* Return from the calling function on failure. */
#define FOVEA_CUDA_TRY(ctx, call)                                                                  \
    do {                                                                                           \
        int fv_cuda_st_ = FOVEA_CUDA(ctx, call);                                                   \
        if (fv_cuda_st_ != FOVEA_OK)                                                               \
            return fv_cuda_st_;                                                                    \
    } while (0)

/* The context's stream as a cudaStream_t. */
static inline cudaStream_t fv_ctx_stream(const fovea_context *ctx)
{
    return ctx ? (cudaStream_t)ctx->stream : (cudaStream_t)0;
}
#endif

#endif
