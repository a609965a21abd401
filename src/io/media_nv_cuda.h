/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Launchers of media_nv.cu: NVDEC's surfaces (NV12, P010/P016, YUV444,
 * YUV444P16) into fovea's planar frames on a stream. */
#ifndef FOVEA_IO_MEDIA_NV_CUDA_H
#define FOVEA_IO_MEDIA_NV_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One decoded surface: planes[0] luma; for semi-planar 4:2:0 planes[1] holds
 * U,V interleaved; for planar 4:4:4 planes[1], planes[2] are U and V. */
typedef struct media_nv_surface {
    const uint8_t *planes[3];
    ptrdiff_t pitch[3];
    int semi_planar; /* 1: NV12/P0xx (4:2:0), 0: three planes (4:4:4) */
    int bytes;       /* bytes per sample: 1 or 2 */
    int shift;       /* right shift of 16-bit samples: 16 - bit depth (P010: 6); 0 for 8 bits */
} media_nv_surface;

/* Write the surface's width x height picture into the planes dst[0..2]
 * (pitches dst_pitch) of a planar frame of the same depth (I420, I420P10..16,
 * I444, I444P10..16). Returns cudaGetLastError() of the launches (an int of
 * cudaError_t). */
int media_nv_to_planar(const media_nv_surface *s, uint8_t *const dst[3],
                       const ptrdiff_t dst_pitch[3], int width, int height, void *stream);

#ifdef __cplusplus
}
#endif

#endif
