/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Staging of host frames for the CUDA backends: a device copy of a host frame,
 * a pageable one going through a pinned copy filled on the context's threads,
 * and the event that says when the upload from that pinned copy is done.
 * Implemented in stage_cuda.c: include only from CUDA builds' files. */
#ifndef FOVEA_STAGE_H
#define FOVEA_STAGE_H

#include "core/core.h"

/* Zeroed is empty; every buffer follows the frames it stages (fv_frame_ensure). */
typedef struct fv_stage {
    fovea_frame dev; /* device copy of a host frame */
    fovea_frame pin; /* pinned copy of a pageable frame, the upload's source */
    void *read;      /* cudaEvent_t recorded after the upload from pin, made with pin */
    int pending;     /* read recorded and not waited for yet */
    int staged;      /* the last copy read pin: fv_stage_mark records read */
} fv_stage;

/* A device view of frame f: f itself on the device, else s->dev holding its
 * copy, queued on the context's stream. A pageable f is first copied into
 * s->pin (after waiting for the upload from there fv_stage_mark last
 * recorded), so the caller may reuse f on return; a pinned f is read by the
 * upload until the stream gets there. Call fv_stage_mark after the uploads
 * that must be done before pin is filled again. */
int fv_stage_copy(fovea_context *ctx, fv_stage *s, const fovea_frame *f, const fovea_frame **view);

/* Record s->read on the context's stream when the last fv_stage_copy went
 * through s->pin. */
int fv_stage_mark(fovea_context *ctx, fv_stage *s);

/* fv_stage_copy, then fv_stage_mark. */
int fv_stage_upload(fovea_context *ctx, fv_stage *s, const fovea_frame *f,
                    const fovea_frame **view);

/* Free the frames and the event (nothing queued may still use them); leaves s
 * zeroed. */
void fv_stage_close(fovea_context *ctx, fv_stage *s);

#endif
