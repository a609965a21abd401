/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Staging of host frames for the CUDA backends (core/stage.h): a pageable
 * frame crosses PCIe through a pinned copy (a copy from pageable memory by the
 * driver runs at a fifth of the pinned rate), guarded by an event. */
#include <string.h>

#include "core/cuda_util.h"
#include "core/stage.h"

int fv_stage_copy(fovea_context *ctx, fv_stage *s, const fovea_frame *f, const fovea_frame **view)
{
    if (f->mem == FOVEA_MEM_DEVICE) {
        *view = f;
        return FOVEA_OK;
    }
    FOVEA_TRY(fv_frame_ensure(ctx, &s->dev, f, FOVEA_MEM_DEVICE));
    const fovea_frame *from = f;
    if (f->mem == FOVEA_MEM_HOST) {
        /* the upload from pin queued last must have read it (one a caller's
         * error path left unmarked is marked now) */
        FOVEA_TRY(fv_stage_mark(ctx, s));
        if (s->pending) {
            FOVEA_CUDA_TRY(ctx, cudaEventSynchronize((cudaEvent_t)s->read));
            s->pending = 0;
        }
        if (!s->read) {
            cudaEvent_t e = NULL;
            FOVEA_CUDA_TRY(ctx, cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
            s->read = e;
        }
        FOVEA_TRY(fv_frame_ensure(ctx, &s->pin, f, FOVEA_MEM_PINNED));
        FOVEA_TRY(fv_frame_copy_host(ctx, &s->pin, f)); /* on the threads, done on return */
        from = &s->pin;
    }
    FOVEA_TRY(fovea_frame_copy(ctx, &s->dev, from));
    s->staged = from != f;
    *view = &s->dev;
    return FOVEA_OK;
}

int fv_stage_mark(fovea_context *ctx, fv_stage *s)
{
    if (!s->staged)
        return FOVEA_OK;
    s->staged = 0;
    FOVEA_CUDA_TRY(ctx, cudaEventRecord((cudaEvent_t)s->read, fv_ctx_stream(ctx)));
    s->pending = 1;
    return FOVEA_OK;
}

int fv_stage_upload(fovea_context *ctx, fv_stage *s, const fovea_frame *f, const fovea_frame **view)
{
    FOVEA_TRY(fv_stage_copy(ctx, s, f, view));
    return fv_stage_mark(ctx, s);
}

void fv_stage_close(fovea_context *ctx, fv_stage *s)
{
    fovea_frame_free(ctx, &s->dev);
    fovea_frame_free(ctx, &s->pin);
    if (s->read)
        cudaEventDestroy((cudaEvent_t)s->read);
    memset(s, 0, sizeof(*s));
}
