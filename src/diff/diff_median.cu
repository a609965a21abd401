/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// The fused median3 + heat map kernel (docs/diff.md; diff_ref.c the
// reference it matches byte for byte): it keeps both frames' tiles (128 x 16
// pixels and a halo) in shared memory as (prev, cur) 16-bit pairs and runs one
// median network on the pair, its column sorts shared by two rows.
#include <cuda_runtime.h>
#include <stdint.h>

#include "diff/diff_map_cuda.h"
#include "diff/diff_sample.cuh"

// Blocks of the fused median an SM keeps: its 2 x 4 pixels a thread need 48
// registers on sm_90, more where the 16-bit pair min/max and the 3-way ones
// are not single instructions (before sm_90).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define DIFF_MEDIAN_BLOCKS 3
#else
#define DIFF_MEDIAN_BLOCKS 5
#endif

namespace
{

constexpr int kMedCols = 32 * 4 + 2; // pixels of a block's tile row with the halo
constexpr int kMedPitch = 132;       // words a shared row (16-byte aligned rows)
constexpr int kMedTileRows = 16;     // rows a block makes: 2 a thread
constexpr int kMedRows = kMedTileRows + 2;

__device__ __forceinline__ uint32_t vmin(uint32_t a, uint32_t b)
{
    return __vminu2(a, b);
}

__device__ __forceinline__ uint32_t vmax(uint32_t a, uint32_t b)
{
    return __vmaxu2(a, b);
}

// median of three, on both 16-bit halves at once
__device__ __forceinline__ uint32_t vmed3(uint32_t a, uint32_t b, uint32_t c)
{
    return vmax(vmin(a, b), vmin(vmax(a, b), c));
}

// Heat map of the 3x3 medians (replicated borders) of an 8-bit RGB24 (C = 3)
// or RGBA (C = 4) pair. A block's 128 x 16 pixel tile plus a one-pixel halo
// is loaded once, each sample stored as prev | cur << 16, so one median
// network serves both frames. A thread makes 4 pixels of 2 rows: each of the
// 6 columns it needs has its two middle samples sorted once for both rows,
// each row's column (lo, mid, hi) is that pair with the row above or below,
// and a median is med3(max3 lo, med3 mid, min3 hi) of 3 columns (exact; the
// 3-way max and min are one instruction on sm_90).
template <int C>
__global__ void __launch_bounds__(32 * kRowsPerBlock, DIFF_MEDIAN_BLOCKS)
    k_heat_median(const __grid_constant__ diff_cuda_map_args a)
{
    __shared__ __align__(16) uint32_t s[3][kMedRows][kMedPitch];
    const int w = a.in.w, h = a.in.h;
    const int bx = (int)blockIdx.x * 128, by = (int)blockIdx.y * kMedTileRows;
    for (int r = (int)threadIdx.y; r < kMedRows; r += kRowsPerBlock) {
        int gy = by - 1 + r;
        gy = gy < 0 ? 0 : gy >= h ? h - 1 : gy;
        const uint8_t *ra = a.in.a[0] + (ptrdiff_t)gy * a.in.as[0];
        const uint8_t *rb = a.in.b[0] + (ptrdiff_t)gy * a.in.bs[0];
        for (int col = (int)threadIdx.x; col < kMedCols; col += 32) {
            int gx = bx - 1 + col;
            gx = gx < 0 ? 0 : gx >= w ? w - 1 : gx;
            const uint8_t *pa = ra + C * gx, *pb = rb + C * gx;
#pragma unroll
            for (int c = 0; c < 3; c++) // bytes a, 0, b, 0 of the zero-extended loads
                s[c][r][col] =
                    __byte_perm((uint32_t)__ldg(pa + c), (uint32_t)__ldg(pb + c), 0x5410);
        }
    }
    __syncthreads();
    const int x0 = bx + 4 * (int)threadIdx.x, y0 = by + 2 * (int)threadIdx.y;
    if (x0 >= w || y0 >= h)
        return;
    const int n = w - x0 < 4 ? w - x0 : 4;
    // per row and pixel: the channels' |med prev - med cur| in the low halves
    // (the high halves collect med cur: no carry reaches the low ones)
    uint32_t sum[2][4], mx[2][4];
#pragma unroll
    for (int c = 0; c < 3; c++) {
        uint32_t lo[2][6], mid[2][6], hi[2][6];
        uint32_t v[4][6];
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const uint32_t *row = &s[c][2 * threadIdx.y + r][4 * threadIdx.x];
            const uint4 q = *reinterpret_cast<const uint4 *>(row);
            const uint2 e = *reinterpret_cast<const uint2 *>(row + 4);
            v[r][0] = q.x;
            v[r][1] = q.y;
            v[r][2] = q.z;
            v[r][3] = q.w;
            v[r][4] = e.x;
            v[r][5] = e.y;
        }
#pragma unroll
        for (int j = 0; j < 6; j++) {
            const uint32_t pl = vmin(v[1][j], v[2][j]), ph = vmax(v[1][j], v[2][j]);
#pragma unroll
            for (int rr = 0; rr < 2; rr++) {
                const uint32_t x = v[rr ? 3 : 0][j];
                lo[rr][j] = vmin(pl, x);
                hi[rr][j] = vmax(ph, x);
                mid[rr][j] = vmax(pl, vmin(ph, x));
            }
        }
#pragma unroll
        for (int rr = 0; rr < 2; rr++)
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const uint32_t l = __vimax3_u16x2(lo[rr][i], lo[rr][i + 1], lo[rr][i + 2]);
                const uint32_t m = vmed3(mid[rr][i], mid[rr][i + 1], mid[rr][i + 2]);
                const uint32_t hh = __vimin3_u16x2(hi[rr][i], hi[rr][i + 1], hi[rr][i + 2]);
                const uint32_t med = vmed3(l, m, hh);
                const uint32_t d = __vabsdiffu2(med, med >> 16);
                sum[rr][i] = c == 0 ? d : sum[rr][i] + d;
                mx[rr][i] = c == 0 ? d : vmax(mx[rr][i], d);
            }
    }
    const bool changed[4] = {false, false, false, false};
#pragma unroll
    for (int rr = 0; rr < 2; rr++) {
        if (y0 + rr >= h)
            break;
        uint32_t col[4];
#pragma unroll
        for (int i = 0; i < 4; i++)
            col[i] = __ldg(a.vlut + ((a.measure_max ? mx[rr][i] : sum[rr][i]) & 0xffffu));
        store4(a, x0, y0 + rr, n, col, changed);
    }
}
} // namespace

extern "C" int fv_diff_cuda_heat_median(const diff_cuda_map_args *a, void *stream)
{
    if (a->in.layout != DIFF_CUDA_PACKED || a->in.wide || a->out_fmt == DIFF_CUDA_OUT_I420 ||
        a->kind != DIFF_CUDA_HEAT)
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    const dim3 block(32, kRowsPerBlock);
    const dim3 grid(blocks_for(a->in.w, 128), blocks_for(a->in.h, kMedTileRows));
    if (a->in.comps == 4)
        k_heat_median<4><<<grid, block, 0, s>>>(*a);
    else
        k_heat_median<3><<<grid, block, 0, s>>>(*a);
    return (int)cudaGetLastError();
}
