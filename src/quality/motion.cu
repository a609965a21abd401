/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Integer motion kernel: motion_sad() of motion_ref.c for a batch of pairs of
// luma planes (blockIdx.z = pair). A block covers 252 x 16 outputs: each of
// its 256 threads filters one source column (the tile's columns and two on
// each side, mirrored) vertically down 16 rows from a window of 20 differences
// kept in registers, into shared memory; then 252 threads filter horizontally,
// add |value| over their column, and the block's 64-bit sum goes to the pair's
// counter with one atomicAdd (integers: any order gives the same bits).
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality/motion_cuda.h"

namespace
{

constexpr int kThreads = 256;
constexpr int kTaps = 5;
constexpr int kHalf = kTaps / 2;
constexpr int kTileW = kThreads - 2 * kHalf; // output columns per block
constexpr int kTileH = 16;                   // output rows per block

// motion_filter of motion_ref.c, 1/65536
__device__ __forceinline__ constexpr int32_t tap(int k)
{
    constexpr int32_t f[kTaps] = {3571, 16004, 26386, 16004, 3571};
    return f[k];
}

// motion_ref.c's mirror (-1 -> 1, n -> n - 2), clamped so that tile positions
// past the plane (whose results are not summed) read inside it.
__device__ __forceinline__ int mirror_clamp(int i, int n)
{
    if (i < 0)
        i = -i;
    if (i >= n)
        i = 2 * n - i - 2;
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

template <bool U8>
__device__ __forceinline__ int32_t sample(const uint8_t *base, ptrdiff_t stride, int y, int x)
{
    const uint8_t *row = base + (ptrdiff_t)y * stride;
    if (U8)
        return __ldg(row + x);
    return __ldg(reinterpret_cast<const uint16_t *>(row) + x);
}

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

template <bool U8> __global__ void __launch_bounds__(kThreads) sad_kernel(const motion_cuda_args a)
{
    __shared__ int32_t s_v[kTileH][kThreads]; // vertical pass, column x0 - 2 + thread
    __shared__ unsigned long long s_red[kThreads / 32];

    const int z = blockIdx.z;
    const uint8_t *prev = a.prev[z], *cur = a.cur[z];
    if (!prev)
        return; // the whole block: no motion for this pair
    const ptrdiff_t ps = a.pstride[z], cs = a.cstride[z];
    const int tid = threadIdx.x;
    const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH;
    const int w = a.w, h = a.h, bpc = a.bpc;

    // 1. vertical pass of prev - cur (64-bit sums, arithmetic shift)
    {
        const int gx = mirror_clamp(x0 - kHalf + tid, w);
        int32_t d[kTileH + 2 * kHalf];
#pragma unroll
        for (int r = 0; r < kTileH + 2 * kHalf; r++) {
            const int gy = mirror_clamp(y0 - kHalf + r, h);
            d[r] = sample<U8>(prev, ps, gy, gx) - sample<U8>(cur, cs, gy, gx);
        }
        const long long rnd = 1LL << (bpc - 1);
#pragma unroll
        for (int r = 0; r < kTileH; r++) {
            long long acc = 0;
#pragma unroll
            for (int k = 0; k < kTaps; k++)
                acc += (long long)tap(k) * d[r + k];
            s_v[r][tid] = (int32_t)((acc + rnd) >> bpc);
        }
    }
    __syncthreads();

    // 2. horizontal pass and |value| of one output column
    unsigned long long sad = 0;
    if (tid < kTileW && x0 + tid < w) {
        const int rows = h - y0 < kTileH ? h - y0 : kTileH;
        for (int r = 0; r < rows; r++) {
            long long acc = 0;
#pragma unroll
            for (int k = 0; k < kTaps; k++)
                acc += (long long)tap(k) * s_v[r][tid + k];
            const long long v = (acc + 32768) >> 16;
            sad += (unsigned long long)(v < 0 ? -v : v);
        }
    }

    // 3. one atomic per block
    sad = warp_sum(sad);
    if ((tid & 31) == 0)
        s_red[tid >> 5] = sad;
    __syncthreads();
    if (tid == 0) {
        unsigned long long t = 0;
#pragma unroll
        for (int i = 0; i < kThreads / 32; i++)
            t += s_red[i];
        if (t != 0)
            atomicAdd(&a.sad[z], t);
    }
}

} // namespace

extern "C" int fv_motion_cuda_launch_sad(const motion_cuda_args *a, void *stream)
{
    if (a->nframes < 1 || a->nframes > MOTION_CUDA_MAX_BATCH || a->w < 3 || a->h < 3 ||
        (a->bpc != 8 && a->bpc != 10 && a->bpc != 12 && a->bpc != 16))
        return (int)cudaErrorInvalidValue;
    const dim3 grid((unsigned)((a->w + kTileW - 1) / kTileW),
                    (unsigned)((a->h + kTileH - 1) / kTileH), (unsigned)a->nframes);
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (a->bpc == 8)
        sad_kernel<true><<<grid, kThreads, 0, s>>>(*a);
    else
        sad_kernel<false><<<grid, kThreads, 0, s>>>(*a);
    return (int)cudaGetLastError();
}
