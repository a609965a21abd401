/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Stitch kernels (stitch.cu): the overlap statistics of analysis frames, as
// add_pair_stats() in stitch_ref.c.
#ifndef FOVEA_STITCH_STATS_CUH
#define FOVEA_STITCH_STATS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "stitch/stitch_cuda.h"
#include "stitch/stitch_sample.cuh"

namespace
{

__device__ __forceinline__ int pair_index(int a, int b, int n)
{
    return a * n - a * (a + 1) / 2 + (b - a - 1);
}

// Where a thread adds its pixels' pair statistics: with two cameras (one pair)
// its own counters (registers), summed over the warp at the end by flush_stats;
// with more, the block's shared counters directly (atomics).
template <int MAXC>
__device__ __forceinline__ void stat_add(unsigned long long *s, unsigned long long x)
{
    if (MAXC == 2)
        *s += x;
    else
        atomicAdd(s, x);
}

// Pair statistics of one pixel: identical to add_pair_stats() in stitch_ref.c;
// acc: the thread's counters (MAXC == 2) or the block's (see stat_add).
template <int MAXC>
__device__ __forceinline__ void add_pairs(unsigned long long *acc, int n, const float (&w)[MAXC],
                                          const unsigned long long (&raw)[MAXC][4],
                                          const int *log_table)
{
#pragma unroll
    for (int a = 0; a < MAXC; a++) {
        if (!(w[a] > 0.0f))
            continue;
#pragma unroll
        for (int b = a + 1; b < MAXC; b++) {
            if (!(w[b] > 0.0f))
                continue;
            unsigned long long q = (unsigned long long)(int)(1024.0f * w[a] * w[b] + 0.5f);
            unsigned long long *s = acc + pair_index(a, b, n) * STITCH_STAT_FIELDS;
            stat_add<MAXC>(&s[0], q);
            stat_add<MAXC>(&s[1], 1ull);
#pragma unroll
            for (int k = 0; k < 4; k++) {
                stat_add<MAXC>(&s[2 + k], q * (unsigned long long)__ldg(&log_table[raw[a][k]]));
                stat_add<MAXC>(&s[7 + k], q * (unsigned long long)__ldg(&log_table[raw[b][k]]));
            }
            unsigned long long la = (unsigned long long)__ldg(&log_table[raw[a][3]]);
            unsigned long long lb = (unsigned long long)__ldg(&log_table[raw[b][3]]);
            stat_add<MAXC>(&s[6], q * la * la);
            stat_add<MAXC>(&s[11], q * lb * lb);
        }
    }
}

// The thread's statistics counters: its own (MAXC == 2) or the block's.
#define STAT_ACC(MAXC, own, shared) ((MAXC) == 2 ? (own) : (shared))

// Pair statistics of one YUV pixel: each weighted camera's raw luma s[c] with
// its chroma sample of the pixel's block (qu[c], qv[c]) as R, G, B
// (stitch_yuv_rgbq), as stitch_yuv_block() in stitch_ref.c.
template <int MAXC>
__device__ __forceinline__ void add_yuv_pairs(unsigned long long *acc, const stitch_kernel_head &a,
                                              const float (&w)[MAXC], const int (&s)[MAXC],
                                              const int (&qu)[MAXC], const int (&qv)[MAXC])
{
    unsigned long long raw[MAXC][4];
#pragma unroll
    for (int c = 0; c < MAXC; c++) {
        if (!(w[c] > 0.0f))
            continue;
        int rgbq[4];
        stitch_yuv_rgbq(s[c], qu[c], qv[c], a.yuv_flags, rgbq);
#pragma unroll
        for (int k = 0; k < 4; k++)
            raw[c][k] = (unsigned long long)rgbq[k];
    }
    add_pairs<MAXC>(acc, a.n, w, raw, a.log_table);
}

// Zero the thread's statistics counters and, on the statistics pass, the
// block's (count of them), before any thread adds to them.
template <bool STATS>
__device__ __forceinline__ void zero_stats(unsigned long long (&own)[STITCH_STAT_FIELDS],
                                           unsigned long long *sh, int count)
{
#pragma unroll
    for (int f = 0; f < STITCH_STAT_FIELDS; f++)
        own[f] = 0;
    if (STATS) {
        for (int k = threadIdx.y * blockDim.x + threadIdx.x; k < count;
             k += blockDim.x * blockDim.y)
            sh[k] = 0;
        __syncthreads();
    }
}

// The block's statistics into the frame's: with two cameras each warp first
// sums its threads' counters (own) into the block's; every thread takes part.
template <int MAXC>
__device__ __forceinline__ void flush_stats(unsigned long long *sh, const unsigned long long *own,
                                            unsigned long long *global, int count)
{
    if (MAXC == 2) {
#pragma unroll
        for (int f = 0; f < STITCH_STAT_FIELDS; f++) {
            unsigned long long x = own[f];
#pragma unroll
            for (int d = 16; d > 0; d >>= 1)
                x += __shfl_down_sync(0xffffffffu, x, d);
            if ((threadIdx.x & 31) == 0 && x)
                atomicAdd(&sh[f], x);
        }
    }
    __syncthreads();
    for (int k = threadIdx.y * blockDim.x + threadIdx.x; k < count; k += blockDim.x * blockDim.y)
        if (sh[k])
            atomicAdd(&global[k], sh[k]);
}

// Bytes of the overlap-statistics counters in dynamic shared memory (the
// statistics pass; the stitch holds a single-camera tile's 8-bit tables there).
__host__ __device__ __forceinline__ int stats_bytes_aligned(int npairs)
{
    return (npairs * STITCH_STAT_FIELDS * 8 + 15) & ~15;
}

} // namespace

#endif
