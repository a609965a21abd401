/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Integer PSNR kernel: the per-plane sums of squared errors of feature_psnr.c
// for a batch of pairs (blockIdx.z = pair, blockIdx.y = plane). Each warp of a
// block sums one row: 8-bit rows in 32 bits, wrapping as the C row sum does
// (addition modulo 2^32 gives the same bits in any order), deeper rows in 64
// bits; the block's rows go to the plane's counter with one 64-bit atomicAdd
// (integers: any order gives the same sum).
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality/psnr_cuda.h"

namespace
{

constexpr int kThreads = 256;
constexpr int kRows = kThreads / 32; // rows per block, one per warp

template <typename T> __device__ __forceinline__ T warp_sum(T v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

template <bool U8> __global__ void __launch_bounds__(kThreads) sse_kernel(const psnr_cuda_args a)
{
    __shared__ unsigned long long s_rows[kRows];
    const int z = blockIdx.z, p = blockIdx.y;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int y = blockIdx.x * kRows + warp;
    const int w = a.w[p], h = a.h[p];
    if (blockIdx.x * kRows >= h)
        return; // the whole block is past this plane
    unsigned long long row = 0;
    if (y < h) {
        const uint8_t *r = a.ref[p][z] + (ptrdiff_t)y * a.rstride[p][z];
        const uint8_t *d = a.dis[p][z] + (ptrdiff_t)y * a.dstride[p][z];
        if (U8) {
            uint32_t s = 0;
            for (int x = lane; x < w; x += 32) {
                const int e = (int)__ldg(r + x) - (int)__ldg(d + x);
                s += (uint32_t)(e * e);
            }
            row = warp_sum(s); // the C row value, modulo 2^32
        } else {
            const uint16_t *r16 = reinterpret_cast<const uint16_t *>(r);
            const uint16_t *d16 = reinterpret_cast<const uint16_t *>(d);
            unsigned long long s = 0;
            for (int x = lane; x < w; x += 32) {
                const int e = (int)__ldg(r16 + x) - (int)__ldg(d16 + x);
                const uint32_t m = (uint32_t)(e < 0 ? -e : e);
                s += m * m;
            }
            row = warp_sum(s);
        }
    }
    if (lane == 0)
        s_rows[warp] = row;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
#pragma unroll
        for (int i = 0; i < kRows; i++)
            t += s_rows[i];
        if (t != 0)
            atomicAdd(&a.sse[3 * z + p], t);
    }
}

} // namespace

extern "C" int fv_psnr_cuda_launch(const psnr_cuda_args *a, void *stream)
{
    if (a->nframes < 1 || a->nframes > PSNR_CUDA_MAX_BATCH || (a->planes != 1 && a->planes != 3))
        return (int)cudaErrorInvalidValue;
    int hmax = 1;
    for (int p = 0; p < a->planes; p++) {
        if (a->w[p] < 0 || a->h[p] < 0) // 0: an empty chroma plane (width 1)
            return (int)cudaErrorInvalidValue;
        hmax = a->h[p] > hmax ? a->h[p] : hmax;
    }
    const dim3 grid((unsigned)((hmax + kRows - 1) / kRows), (unsigned)a->planes,
                    (unsigned)a->nframes);
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (a->u8)
        sse_kernel<true><<<grid, kThreads, 0, s>>>(*a);
    else
        sse_kernel<false><<<grid, kThreads, 0, s>>>(*a);
    return (int)cudaGetLastError();
}
