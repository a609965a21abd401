/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The media reader's hardware decoder backend (media_read.c holds the CPU
 * one): NVDEC through FFmpeg's CUDA hwaccel, in media_read_cuda.c (FFmpeg and
 * CUDA builds only; listed with BACKEND_CUDA_ENTRY-style macros below). */
#ifndef FOVEA_IO_MEDIA_READ_H
#define FOVEA_IO_MEDIA_READ_H

#include <libavcodec/avcodec.h>

#include "core/backend.h"
#include "fovea/io.h"

/* A decoder backend that attaches a hardware device to FFmpeg's decoder.
 * info.init(priv, ctx, dec) attaches it to the AVCodecContext dec before
 * avcodec_open2 (the message of a failure in ctx's last error). */
typedef struct media_hw_backend {
    backend_info info;
    /* FOVEA_OK when the backend decodes the stream par on ctx; else a
     * negative status with the reason in why ("h264 10-bit 4:2:0: NVDEC
     * cannot decode it on this GPU") */
    int (*check)(fovea_context *ctx, const AVCodecParameters *par, char *why, size_t n);
    /* fovea's format of the frames of the opened decoder dec (the one the
     * CPU decoder gives for the same stream), FOVEA_PIX_NONE when none */
    fovea_pixfmt (*format)(void *priv, const AVCodecContext *dec, const AVFrame *fr);
    /* The decoded frame fr into f, of fr's size and format's fovea format: a
     * device frame of the context (queued on its stream), or a host frame
     * (complete on return). Errors in ctx's last error. */
    int (*deliver)(void *priv, const AVFrame *fr, fovea_frame *f);
} media_hw_backend;

#ifdef FOVEA_HAVE_CUDA
extern const media_hw_backend media_backend_cuda;
#define MEDIA_HW_BACKEND (&media_backend_cuda)
#else
#define MEDIA_HW_BACKEND ((const media_hw_backend *)0)
#endif

#endif
