/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Denoise filter kernels (median3, gauss5) and the temporal filter's step
// (docs/diff.md; diff_ref.c and denoise_ref.c the reference they match).
#include <cuda_runtime.h>
#include <stdint.h>

#include "diff/diff_filter_cuda.h"
#include "diff/diff_sample.cuh"

namespace
{

constexpr int kFilterMedian = 1, kFilterTemporal = 3; // else gauss5 (2)

__device__ __forceinline__ int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

// One plane: every sample (x, component c) from the samples of its own
// component, borders replicated (diff_ref_filter).
__global__ void __launch_bounds__(256) k_filter(const __grid_constant__ diff_cuda_filter_args a)
{
    const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (i >= a.w * a.comps || y >= a.h)
        return;
    const int x = i / a.comps, c = i - x * a.comps;
    int v;
    if (a.mode == kFilterTemporal) {
        const int s = sample(a.state + (ptrdiff_t)y * a.ts, i, a.wide);
        const int in = sample(a.src + (ptrdiff_t)y * a.ss, i, a.wide);
        const int t = (in - s) * (256 - a.strength) + 128;
        v = s + (t >= 0 ? t >> 8 : -((255 - t) >> 8));
    } else if (a.mode == kFilterMedian) {
        int n[9];
        for (int dy = -1; dy <= 1; dy++) {
            const uint8_t *row = a.src + (ptrdiff_t)clampi(y + dy, 0, a.h - 1) * a.ss;
            for (int dx = -1; dx <= 1; dx++)
                n[3 * (dy + 1) + dx + 1] =
                    sample(row, clampi(x + dx, 0, a.w - 1) * a.comps + c, a.wide);
        }
        // sort the columns, then med3(max of lows, med3 of mids, min of highs)
        int lo[3], mid[3], hi[3];
        for (int j = 0; j < 3; j++) {
            const int p = n[j], q = n[3 + j], r = n[6 + j];
            const int t = min(p, q), u = max(p, q);
            lo[j] = min(t, r);
            const int t2 = max(t, r);
            mid[j] = min(u, t2);
            hi[j] = max(u, t2);
        }
        const int l = max(max(lo[0], lo[1]), lo[2]);
        const int m = max(min(mid[0], mid[1]), min(max(mid[0], mid[1]), mid[2]));
        const int hh = min(min(hi[0], hi[1]), hi[2]);
        v = max(min(l, m), min(max(l, m), hh));
    } else {
        const int taps[5] = {1, 4, 6, 4, 1};
        int sv = 0;
        for (int k = -2; k <= 2; k++) {
            const uint8_t *row = a.src + (ptrdiff_t)clampi(y + k, 0, a.h - 1) * a.ss;
            int sh = 0;
            for (int j = -2; j <= 2; j++)
                sh += taps[j + 2] * sample(row, clampi(x + j, 0, a.w - 1) * a.comps + c, a.wide);
            sv += taps[k + 2] * ((sh + 8) >> 4);
        }
        v = (sv + 8) >> 4;
    }
    put_sample(a.dst + (ptrdiff_t)y * a.ds, i, a.wide, v);
}
} // namespace

extern "C" int fv_diff_cuda_filter(const diff_cuda_filter_args *a, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    const dim3 block(64, 4);
    const dim3 grid(blocks_for(a->w * a->comps, 64), blocks_for(a->h, 4));
    k_filter<<<grid, block, 0, s>>>(*a);
    return (int)cudaGetLastError();
}
