/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// NVDEC's surfaces into fovea's planar device frames: the luma (and 4:4:4's
// chroma) planes copied with the high-bit samples shifted down to fovea's
// low-bit layout (P010's 10 bits live in bits 6..15), the interleaved U,V of
// NV12/P0xx split into two planes. Exact: a copy and a shift, no arithmetic.
#include <cuda_runtime.h>
#include <stdint.h>

#include "io/media_nv_cuda.h"

namespace
{

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

// one sample a thread: dst = src >> shift (16-bit samples)
__global__ void shift_plane(const uint8_t *src, ptrdiff_t sp, uint8_t *dst, ptrdiff_t dp, int w,
                            int h, int shift)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    const uint16_t v = reinterpret_cast<const uint16_t *>(src + y * sp)[x];
    reinterpret_cast<uint16_t *>(dst + y * dp)[x] = static_cast<uint16_t>(v >> shift);
}

// one chroma pair a thread: U,V interleaved into two planes
template <typename T>
__global__ void split_uv(const uint8_t *src, ptrdiff_t sp, uint8_t *u, ptrdiff_t up, uint8_t *v,
                         ptrdiff_t vp, int cw, int ch, int shift)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cw || y >= ch)
        return;
    const T *row = reinterpret_cast<const T *>(src + y * sp);
    reinterpret_cast<T *>(u + y * up)[x] = static_cast<T>(row[2 * x] >> shift);
    reinterpret_cast<T *>(v + y * vp)[x] = static_cast<T>(row[2 * x + 1] >> shift);
}

dim3 grid_for(int w, int h)
{
    return dim3(static_cast<unsigned>((w + kBlockX - 1) / kBlockX),
                static_cast<unsigned>((h + kBlockY - 1) / kBlockY));
}

// a plane of w samples x h rows: a 2D copy when nothing shifts
cudaError_t plane(const uint8_t *src, ptrdiff_t sp, uint8_t *dst, ptrdiff_t dp, int w, int h,
                  int bytes, int shift, cudaStream_t stream)
{
    if (shift == 0)
        return cudaMemcpy2DAsync(dst, static_cast<size_t>(dp), src, static_cast<size_t>(sp),
                                 static_cast<size_t>(w) * static_cast<size_t>(bytes),
                                 static_cast<size_t>(h), cudaMemcpyDeviceToDevice, stream);
    shift_plane<<<grid_for(w, h), dim3(kBlockX, kBlockY), 0, stream>>>(src, sp, dst, dp, w, h,
                                                                       shift);
    return cudaGetLastError();
}

} // namespace

extern "C" int media_nv_to_planar(const media_nv_surface *s, uint8_t *const dst[3],
                                  const ptrdiff_t dst_pitch[3], int width, int height,
                                  void *stream_)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_);
    cudaError_t e = plane(s->planes[0], s->pitch[0], dst[0], dst_pitch[0], width, height, s->bytes,
                          s->shift, stream);
    if (e != cudaSuccess)
        return static_cast<int>(e);
    if (!s->semi_planar) {
        for (int p = 1; p < 3 && e == cudaSuccess; p++)
            e = plane(s->planes[p], s->pitch[p], dst[p], dst_pitch[p], width, height, s->bytes,
                      s->shift, stream);
        return static_cast<int>(e);
    }
    const int cw = (width + 1) / 2;
    const int ch = (height + 1) / 2;
    if (s->bytes == 1)
        split_uv<uint8_t><<<grid_for(cw, ch), dim3(kBlockX, kBlockY), 0, stream>>>(
            s->planes[1], s->pitch[1], dst[1], dst_pitch[1], dst[2], dst_pitch[2], cw, ch, 0);
    else
        split_uv<uint16_t><<<grid_for(cw, ch), dim3(kBlockX, kBlockY), 0, stream>>>(
            s->planes[1], s->pitch[1], dst[1], dst_pitch[1], dst[2], dst_pitch[2], cw, ch,
            s->shift);
    return static_cast<int>(cudaGetLastError());
}
