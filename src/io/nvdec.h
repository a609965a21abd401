/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The driver's video decoder (NVDEC) as fovea asks it: what it decodes
 * (cuvidGetDecoderCaps of libnvcuvid) and the CUDA driver context FFmpeg's
 * CUDA hwaccel shares with fovea (cuCtxGetCurrent of libcuda); both libraries
 * are dlopen'd, so a machine without them still runs fovea. CUDA builds only
 * (nvdec_cuda.c). */
#ifndef FOVEA_IO_NVDEC_H
#define FOVEA_IO_NVDEC_H

#include <stddef.h>

#include "fovea/io.h"

/* NVDEC's codec numbers (cudaVideoCodec) */
enum {
    NVDEC_MPEG1 = 0,
    NVDEC_MPEG2 = 1,
    NVDEC_MPEG4 = 2,
    NVDEC_VC1 = 3,
    NVDEC_H264 = 4,
    NVDEC_JPEG = 5,
    NVDEC_HEVC = 8,
    NVDEC_VP8 = 9,
    NVDEC_VP9 = 10,
    NVDEC_AV1 = 11
};

/* What NVDEC on ctx's device says of codec (NVDEC_*) at chroma (400, 420,
 * 422, 444) and bit_depth: cap->codec is left NULL; max/min sizes and
 * decoders filled; returns 1 when supported, 0 when not, or a negative status
 * with the reason in why (no libnvcuvid, no CUDA context). Makes ctx's device
 * current on the calling thread. */
int nvdec_query(fovea_context *ctx, int codec, int chroma, int bit_depth, fovea_hwdec_cap *cap,
                char *why, size_t n);

/* The CUDA driver context of ctx's device (the runtime's primary context,
 * made current on the calling thread) as a CUcontext, for FFmpeg. */
int nvdec_cu_context(fovea_context *ctx, void **cu_context, char *why, size_t n);

#endif
