/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// The sum of n floats in raster order, one addition after another, as the C
// extractors add them (float or double accumulator: Acc), by one block of
// kOrderedSumThreads threads: every thread stages the next chunk of
// kOrderedSumChunk values in shared memory (its loads issued before the
// current chunk's adds, its stores after them) while thread 0 adds the
// current one. Only thread 0's return value is the sum. psnr_hvs.cu and
// ciede.cu use it; it is the bound of their device time (docs/quality.md).
#ifndef FOVEA_QUALITY_ORDERED_SUM_CUH
#define FOVEA_QUALITY_ORDERED_SUM_CUH

#include <stddef.h>

constexpr int kOrderedSumThreads = 128;
constexpr int kOrderedSumChunk = 4096; // values staged at a time (double-buffered)

template <typename Acc> __device__ Acc ordered_sum_block(const float *t, size_t n)
{
    constexpr int kPer = kOrderedSumChunk / kOrderedSumThreads;
    __shared__ float s_t[2][kOrderedSumChunk];
    const int tid = threadIdx.x;
#pragma unroll
    for (int k = 0; k < kPer; k++) {
        const size_t i = (size_t)(k * kOrderedSumThreads + tid);
        if (i < n)
            s_t[0][i] = t[i];
    }
    __syncthreads();
    Acc acc = 0;
    for (size_t c0 = 0; c0 < n; c0 += kOrderedSumChunk) {
        const int buf = (int)((c0 / kOrderedSumChunk) & 1);
        float r[kPer];
        const size_t next = c0 + kOrderedSumChunk;
#pragma unroll
        for (int k = 0; k < kPer; k++) {
            const size_t i = next + (size_t)(k * kOrderedSumThreads + tid);
            if (i < n)
                r[k] = t[i];
        }
        if (tid == 0) {
            const int cnt = n - c0 < (size_t)kOrderedSumChunk ? (int)(n - c0) : kOrderedSumChunk;
            const float *s = s_t[buf];
#pragma unroll 16
            for (int i = 0; i < cnt; i++)
                acc += (Acc)s[i];
        }
#pragma unroll
        for (int k = 0; k < kPer; k++) {
            const size_t i = next + (size_t)(k * kOrderedSumThreads + tid);
            if (i < n)
                s_t[buf ^ 1][k * kOrderedSumThreads + tid] = r[k];
        }
        __syncthreads();
    }
    return acc;
}

#endif
