/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Stitch kernels (stitch.cu): the YUV kernels' shared chroma helpers (a
// block's chroma position, sample and corrected value) and the I420 stores.
#ifndef FOVEA_STITCH_CHROMA_CUH
#define FOVEA_STITCH_CHROMA_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "stitch/stitch_cuda.h"
#include "stitch/stitch_block.cuh"
#include "stitch/stitch_sample.cuh"

namespace
{

__device__ __forceinline__ float luma_to_chroma(float x, int chroma_size)
{
    float c = (x - 0.5f) * 0.5f;
    float hi = (float)(chroma_size - 1);
    return c < 0.0f ? 0.0f : (c > hi ? hi : c);
}

// Weight and chroma-plane position of one 2x2 block (pixels counted in
// `pixels`) from one camera's sums of weights and positions over its cn pixels:
// the same arithmetic as the C reference.
__device__ __forceinline__ void chroma_pos(const stitch_kernel_cam &cam, float cwt, float cu,
                                           float cv, int cn, int pixels, float &wc, float &x,
                                           float &y)
{
    wc = cwt / (float)pixels;
    const float inv = 1.0f / (float)cn;
    x = luma_to_chroma(cu * inv, (cam.width + 1) >> 1);
    y = luma_to_chroma(cv * inv, (cam.height + 1) >> 1);
}

// A camera's chroma sample (quarter codes) at a chroma-plane position.
template <bool TEX>
__device__ __forceinline__ void chroma_sample(const stitch_kernel_cam &cam, bool nv12, float x,
                                              float y, int &qu, int &qv)
{
    sample_chroma<TEX>(cam, nv12, (cam.width + 1) >> 1, (cam.height + 1) >> 1, x, y, qu, qv);
}

// The camera's chroma correction of a sample (quarter codes qu, qv) in a block
// whose chroma table index (stitch_chroma_index of its raw luma) is idx:
// chroma_value() in stitch_ref.c.
__device__ __forceinline__ void chroma_value(const stitch_kernel_cam &cam, int idx, int qu, int qv,
                                             float &su, float &sv)
{
    const float4 e = __ldg(reinterpret_cast<const float4 *>(cam.chroma) + idx);
    su = stitch_chroma_corrected(e.x, e.y, qu);
    sv = stitch_chroma_corrected(e.z, e.w, qv);
}

// Chroma of one 2x2 block from one camera (raw luma samples adding up to ysum
// over its cn pixels): chroma_pos, chroma_sample, chroma_value.
template <bool TEX>
__device__ __forceinline__ void block_chroma(const stitch_kernel_cam &cam, bool nv12, float cwt,
                                             float cu, float cv, int cn, int ysum, int pixels,
                                             float &wc, float &su, float &sv, int &qu, int &qv)
{
    float x, y;
    chroma_pos(cam, cwt, cu, cv, cn, pixels, wc, x, y);
    chroma_sample<TEX>(cam, nv12, x, y, qu, qv);
    chroma_value(cam, stitch_chroma_index(ysum, cn), qu, qv, su, sv);
}

// U and V of chroma pixels bx0 and bx0 + 1 of chroma row by (bx0 even).
__device__ __forceinline__ void store_chroma2(const stitch_kernel_head &a, int by, int bx0,
                                              int cw_out, const unsigned int (&ou)[2],
                                              const unsigned int (&ov)[2])
{
    uint8_t *pu = a.out1 + (size_t)by * a.out_stride1 + bx0;
    uint8_t *pv = a.out2 + (size_t)by * a.out_stride2 + bx0;
    if (bx0 + 1 < cw_out &&
        ((reinterpret_cast<uintptr_t>(pu) | reinterpret_cast<uintptr_t>(pv)) & 1) == 0) {
        *reinterpret_cast<uint16_t *>(pu) = (uint16_t)(ou[0] | (ou[1] << 8));
        *reinterpret_cast<uint16_t *>(pv) = (uint16_t)(ov[0] | (ov[1] << 8));
    } else {
        for (int b = 0; b < 2 && bx0 + b < cw_out; b++) {
            pu[b] = (uint8_t)ou[b];
            pv[b] = (uint8_t)ov[b];
        }
    }
}

// Luma pixels i0..i0+3 of row j: one 32-bit store inside the panorama (i0 is a
// multiple of 4, so it is aligned where the plane and its stride are), bytes at
// its right edge, nothing past its bottom.
__device__ __forceinline__ void store_luma4(const stitch_kernel_head &a, int j, int i0,
                                            unsigned int y4)
{
    if (j >= a.pano_h)
        return;
    uint8_t *p = a.out0 + (size_t)j * a.out_stride0 + i0;
    if (i0 + 3 < a.pano_w) {
        *reinterpret_cast<uint32_t *>(p) = y4;
    } else {
        for (int k = 0; k < 4 && i0 + k < a.pano_w; k++)
            p[k] = (uint8_t)(y4 >> (8 * k));
    }
}

} // namespace

#endif
