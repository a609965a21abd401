/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Heat and noise map kernels (docs/diff.md; diff_ref.c the reference they
// match byte for byte). RGB24/RGBA maps: one thread per 4 pixels of a row,
// 8-bit RGB24/RGBA read as 32-/128-bit words where rows are aligned, or a warp
// per 512-pixel unit where planes are on 16 bytes; I420 maps: one thread per
// 2x2 quad (its chroma sample). Also the heat map's value-to-color table.
#include <cuda_runtime.h>
#include <stdint.h>

#include "diff/changed.h"
#include "diff/diff_map_cuda.h"
#include "diff/diff_sample.cuh"

// Blocks of 256 threads an SM keeps for the streaming kernels: all its
// threads (2048 on sm_80 and sm_90, 1536 on sm_86 / sm_87 / sm_89).
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
#define DIFF_STREAM_BLOCKS 6
#else
#define DIFF_STREAM_BLOCKS 8
#endif

namespace
{

// Heat and noise maps to RGB24 / RGBA: 4 pixels of one row a thread.
template <int R>
__global__ void __launch_bounds__(32 * kRowsPerBlock, DIFF_STREAM_BLOCKS)
    k_map_row(const __grid_constant__ diff_cuda_map_args a)
{
    const int x0 = (int)(blockIdx.x * 32 + threadIdx.x) * 4;
    const int y = (int)(blockIdx.y * kRowsPerBlock + threadIdx.y);
    if (x0 >= a.in.w || y >= a.in.h)
        return;
    const int n = a.in.w - x0 < 4 ? a.in.w - x0 : 4;
    int sum[4], mx[4];
    read4<R>(a.in, x0, y, n, sum, mx);
    uint32_t col[4] = {0, 0, 0, 0};
    bool changed[4] = {false, false, false, false};
    for (int i = 0; i < n; i++) {
        if (a.kind == DIFF_CUDA_HEAT) {
            col[i] = heat_color(a, a.measure_max ? mx[i] : sum[i]);
        } else {
            changed[i] = diff_beyond(mx[i], a.threshold);
            col[i] = changed[i] ? 255u : 0u;
        }
    }
    store4(a, x0, y, n, col, changed);
}

// Heat and noise maps to I420: one thread per 2x2 quad, the chroma sample it
// shares (the rounded mean color of its pixels; OVERLAY: red when one of
// them changed), so an overlay into the current frame itself stays race-free.
__global__ void __launch_bounds__(32 * kRowsPerBlock)
    k_map_quad(const __grid_constant__ diff_cuda_map_args a)
{
    const int qx = (int)(blockIdx.x * 32 + threadIdx.x);
    const int qy = (int)(blockIdx.y * kRowsPerBlock + threadIdx.y);
    const int x0 = 2 * qx, y0 = 2 * qy;
    if (x0 >= a.in.w || y0 >= a.in.h)
        return;
    const int nx = a.in.w - x0 < 2 ? 1 : 2, ny = a.in.h - y0 < 2 ? 1 : 2;
    uint32_t col[2][2] = {{0, 0}, {0, 0}};
    bool changed[2][2] = {{false, false}, {false, false}};
    for (int r = 0; r < ny; r++)
        for (int i = 0; i < nx; i++) {
            int s, m;
            pix_diff(a.in, x0 + i, y0 + r, s, m);
            changed[r][i] = diff_beyond(m, a.threshold);
            if (a.kind == DIFF_CUDA_HEAT)
                col[r][i] = heat_color(a, a.measure_max ? m : s);
            else
                col[r][i] = changed[r][i] ? 255u : 0u;
        }
    uint8_t *ou = a.out[1] + (ptrdiff_t)qy * a.os[1] + qx;
    uint8_t *ov = a.out[2] + (ptrdiff_t)qy * a.os[2] + qx;
    if (a.kind == DIFF_CUDA_OVERLAY) {
        int ry, ru, rv;
        to_yuv(255, 0, 0, ry, ru, rv);
        bool any = false;
        for (int r = 0; r < ny; r++)
            for (int i = 0; i < nx; i++)
                if (changed[r][i]) {
                    a.out[0][(ptrdiff_t)(y0 + r) * a.os[0] + x0 + i] = (uint8_t)ry;
                    any = true;
                }
        if (any) {
            *ou = (uint8_t)ru;
            *ov = (uint8_t)rv;
        }
        return;
    }
    int s[3] = {0, 0, 0};
    for (int r = 0; r < ny; r++)
        for (int i = 0; i < nx; i++) {
            const int cr = byte_of(col[r][i], 0), cg = byte_of(col[r][i], 1),
                      cb = byte_of(col[r][i], 2);
            int y, u, v;
            to_yuv(cr, cg, cb, y, u, v);
            a.out[0][(ptrdiff_t)(y0 + r) * a.os[0] + x0 + i] = (uint8_t)y;
            s[0] += cr;
            s[1] += cg;
            s[2] += cb;
        }
    const int n = nx * ny;
    int y, u, v;
    to_yuv((s[0] + n / 2) / n, (s[1] + n / 2) / n, (s[2] + n / 2) / n, y, u, v);
    *ou = (uint8_t)u;
    *ov = (uint8_t)v;
}

// ---------------------------------------------------------------- 8-bit RGB maps by warps

// A warp makes kUnitPx pixels of one row at a time, 4 groups of 4 pixels a
// lane (group g = lane + 32 k): every global access is 16 bytes a lane on
// consecutive chunks. RGB24 rows are loaded as chunks, differenced bytewise,
// staged in shared memory, where a group is 3 words (stride 3: no bank
// conflict), and RGB24 maps go back the same way; RGBA groups are one chunk.
constexpr int kUnitPx = 512;
constexpr int kUnitWords = kUnitPx * 3 / 4;
constexpr int kMapWarps = 8; // a block's warps

__device__ __forceinline__ uint4 ld16(const uint8_t *row, int chunk)
{
    return __ldg(reinterpret_cast<const uint4 *>(row) + chunk);
}

// Chunk c of a row of n bytes whose end it passes: the bytes before n, zeros after.
__device__ __noinline__ uint4 ld16_tail(const uint8_t *row, int c, int n)
{
    uint32_t w[4] = {0, 0, 0, 0};
    for (int i = 0; 16 * c + i < n; i++)
        w[i >> 2] |= (uint32_t)row[16 * c + i] << (8 * (i & 3));
    return make_uint4(w[0], w[1], w[2], w[3]);
}

__device__ __noinline__ void st16_tail(uint8_t *row, int c, int n, uint4 v)
{
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
    for (int i = 0; 16 * c + i < n; i++)
        row[16 * c + i] = (uint8_t)(w[i >> 2] >> (8 * (i & 3)));
}

__device__ __forceinline__ uint4 absdiff16(uint4 a, uint4 b)
{
    return make_uint4(__vabsdiffu4(a.x, b.x), __vabsdiffu4(a.y, b.y), __vabsdiffu4(a.z, b.z),
                      __vabsdiffu4(a.w, b.w));
}

// Channels R, G, B of pixel i (0..3) of a group from its differences dk:
// 3 words (12 bytes of R, G, B) or 4 (one a pixel, alpha ignored).
template <int CI>
__device__ __forceinline__ void group_channels(const uint32_t (&dk)[CI], int i, int &c0, int &c1,
                                               int &c2)
{
    if (CI == 3) {
        c0 = byte_of(dk[(3 * i) >> 2], (3 * i) & 3);
        c1 = byte_of(dk[(3 * i + 1) >> 2], (3 * i + 1) & 3);
        c2 = byte_of(dk[(3 * i + 2) >> 2], (3 * i + 2) & 3);
    } else {
        c0 = byte_of(dk[i], 0);
        c1 = byte_of(dk[i], 1);
        c2 = byte_of(dk[i], 2);
    }
}

// Write a unit of n RGB24 pixels staged in the warp's words s to row ro, 16
// bytes a lane (the bytes before the row's end only).
__device__ __forceinline__ void unit_store_rgb24(uint8_t *ro, const uint32_t *s, int lane, int n)
{
    __syncwarp();
    const int nb = 3 * n, chunks = (nb + 15) / 16;
#pragma unroll
    for (int k = 0; k < 3; k++) {
        const int c = lane + 32 * k;
        if (16 * c + 16 <= nb)
            reinterpret_cast<uint4 *>(ro)[c] = reinterpret_cast<const uint4 *>(s)[c];
        else if (c < chunks)
            st16_tail(ro, c, nb, reinterpret_cast<const uint4 *>(s)[c]);
    }
}

// Heat map, black or overlay noise map of an 8-bit RGB24 (CI = 3) or RGBA
// (CI = 4) pair into RGB24 / RGBA (CO; OVERLAY: CO = CI, only the changed
// pixels written). Planes and strides of a, b and (not OVERLAY) out on 16
// bytes. A grid of at most a.grid_cap blocks walks the units.
template <int CI, int CO, int KIND>
__global__ void __launch_bounds__(32 * kMapWarps, 4)
    k_map8(const __grid_constant__ diff_cuda_map_args a)
{
    __shared__ __align__(16) uint32_t s_units[kMapWarps][kUnitWords];
    const int lane = (int)(threadIdx.x & 31), wib = (int)(threadIdx.x >> 5);
    uint32_t *s = s_units[wib];
    const int w = a.in.w;
    const int per_row = (w + kUnitPx - 1) / kUnitPx;
    const int units = per_row * a.in.h;
    for (int u = (int)blockIdx.x * kMapWarps + wib; u < units; u += (int)gridDim.x * kMapWarps) {
        const int y = u / per_row, x0 = (u - y * per_row) * kUnitPx;
        const int n = w - x0 < kUnitPx ? w - x0 : kUnitPx;
        const uint8_t *ra = a.in.a[0] + (ptrdiff_t)y * a.in.as[0] + (ptrdiff_t)x0 * CI;
        const uint8_t *rb = a.in.b[0] + (ptrdiff_t)y * a.in.bs[0] + (ptrdiff_t)x0 * CI;
        uint8_t *ro = a.out[0] + (ptrdiff_t)y * a.os[0] + (ptrdiff_t)x0 * CO;
        // the channel differences of the lane's groups: 3 words (12 bytes of
        // R, G, B) or 4 words (one a pixel, alpha ignored)
        uint32_t d[4][CI];
        if (CI == 3) {
            const int nb = 3 * n, chunks = (nb + 15) / 16;
            uint4 va[3], vb[3];
#pragma unroll
            for (int k = 0; k < 3; k++) {
                const int c = lane + 32 * k;
                if (16 * c + 16 <= nb) {
                    va[k] = ld16(ra, c);
                    vb[k] = ld16(rb, c);
                } else if (c < chunks) {
                    va[k] = ld16_tail(ra, c, nb);
                    vb[k] = ld16_tail(rb, c, nb);
                }
            }
#pragma unroll
            for (int k = 0; k < 3; k++) {
                const int c = lane + 32 * k;
                if (c < chunks)
                    reinterpret_cast<uint4 *>(s)[c] = absdiff16(va[k], vb[k]);
            }
            __syncwarp();
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const int g = lane + 32 * k;
#pragma unroll
                for (int j = 0; j < CI; j++)
                    d[k][j] = 4 * g < n ? s[3 * g + j] : 0u;
            }
        } else {
            uint4 va[4], vb[4];
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const int g = lane + 32 * k;
                va[k] = vb[k] = make_uint4(0, 0, 0, 0);
                if (4 * g + 4 <= n) {
                    va[k] = ld16(ra, g);
                    vb[k] = ld16(rb, g);
                } else if (4 * g < n) {
                    va[k] = ld16_tail(ra, g, 4 * n);
                    vb[k] = ld16_tail(rb, g, 4 * n);
                }
            }
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const uint4 q = absdiff16(va[k], vb[k]);
                d[k][0] = q.x;
                d[k][CI > 1 ? 1 : 0] = q.y;
                d[k][CI > 2 ? 2 : 0] = q.z;
                d[k][CI > 3 ? 3 : 0] = q.w;
            }
        }
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int g = lane + 32 * k;
            const int np = n - 4 * g < 4 ? n - 4 * g : 4; // <= 0: not in the unit
            uint32_t col[4];
            bool changed[4];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                int c0, c1, c2;
                group_channels<CI>(d[k], i, c0, c1, c2);
                const int m = max(max(c0, c1), c2);
                changed[i] = diff_beyond(m, a.threshold);
                if (KIND == DIFF_CUDA_HEAT)
                    col[i] = __ldg(a.vlut + (a.measure_max ? m : c0 + c1 + c2));
                else
                    col[i] = changed[i] ? 255u : 0u;
            }
            if (KIND == DIFF_CUDA_OVERLAY) {
                for (int i = 0; i < np; i++)
                    if (changed[i]) {
                        uint8_t *q = ro + CO * (4 * g + i);
                        q[0] = 255;
                        q[1] = 0;
                        q[2] = 0;
                    }
            } else if (CO == 4) {
                if (np == 4)
                    reinterpret_cast<uint4 *>(ro)[g] =
                        make_uint4(col[0] | 0xff000000u, col[1] | 0xff000000u, col[2] | 0xff000000u,
                                   col[3] | 0xff000000u);
                else
                    for (int i = 0; i < np; i++)
                        reinterpret_cast<uint32_t *>(ro)[4 * g + i] = col[i] | 0xff000000u;
            } else if (np > 0) {
                s[3 * g] = col[0] | col[1] << 24;
                s[3 * g + 1] = col[1] >> 8 | col[2] << 16;
                s[3 * g + 2] = col[2] >> 16 | col[3] << 8;
            }
        }
        if (KIND != DIFF_CUDA_OVERLAY && CO == 3)
            unit_store_rgb24(ro, s, lane, n);
        __syncwarp(); // the next unit writes s
    }
}

__global__ void k_vlut(uint32_t *vlut, const uint32_t *heat, int top)
{
    const int v = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int vv = v < top ? v : top; // <= 4096: the product fits 32 bits
    if (v <= DIFF_CUDA_VLUT_MAX)
        vlut[v] = heat[((unsigned)vv * kHeatTop + (unsigned)(top / 2)) / (unsigned)top];
}

} // namespace

extern "C" int fv_diff_cuda_map(const diff_cuda_map_args *a, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    const dim3 block(32, kRowsPerBlock);
    if (a->out_fmt == DIFF_CUDA_OUT_I420) {
        const dim3 grid(blocks_for((a->in.w + 1) / 2, 32),
                        blocks_for((a->in.h + 1) / 2, kRowsPerBlock));
        k_map_quad<<<grid, block, 0, s>>>(*a);
        return (int)cudaGetLastError();
    }
    if (a->vec16 && a->in.layout == DIFF_CUDA_PACKED && !a->in.wide) {
        const int units = (a->in.w + kUnitPx - 1) / kUnitPx * a->in.h;
        unsigned grid = blocks_for(units, kMapWarps);
        if (a->grid_cap > 0 && grid > (unsigned)a->grid_cap)
            grid = (unsigned)a->grid_cap;
        const bool rgba = a->in.comps == 4, rgba_out = a->out_fmt == DIFF_CUDA_OUT_RGBA;
        const int block = 32 * kMapWarps;
        if (a->kind == DIFF_CUDA_OVERLAY) {
            if (rgba)
                k_map8<4, 4, DIFF_CUDA_OVERLAY><<<grid, block, 0, s>>>(*a);
            else
                k_map8<3, 3, DIFF_CUDA_OVERLAY><<<grid, block, 0, s>>>(*a);
        } else if (a->kind == DIFF_CUDA_HEAT) {
            if (rgba)
                rgba_out ? k_map8<4, 4, DIFF_CUDA_HEAT><<<grid, block, 0, s>>>(*a)
                         : k_map8<4, 3, DIFF_CUDA_HEAT><<<grid, block, 0, s>>>(*a);
            else
                rgba_out ? k_map8<3, 4, DIFF_CUDA_HEAT><<<grid, block, 0, s>>>(*a)
                         : k_map8<3, 3, DIFF_CUDA_HEAT><<<grid, block, 0, s>>>(*a);
        } else {
            if (rgba)
                rgba_out ? k_map8<4, 4, DIFF_CUDA_BLACK><<<grid, block, 0, s>>>(*a)
                         : k_map8<4, 3, DIFF_CUDA_BLACK><<<grid, block, 0, s>>>(*a);
            else
                rgba_out ? k_map8<3, 4, DIFF_CUDA_BLACK><<<grid, block, 0, s>>>(*a)
                         : k_map8<3, 3, DIFF_CUDA_BLACK><<<grid, block, 0, s>>>(*a);
        }
        return (int)cudaGetLastError();
    }
    const dim3 grid(blocks_for(a->in.w, 128), blocks_for(a->in.h, kRowsPerBlock));
    switch (a->reader) {
    case DIFF_CUDA_READ_RGB24: k_map_row<DIFF_CUDA_READ_RGB24><<<grid, block, 0, s>>>(*a); break;
    case DIFF_CUDA_READ_RGBA: k_map_row<DIFF_CUDA_READ_RGBA><<<grid, block, 0, s>>>(*a); break;
    default: k_map_row<DIFF_CUDA_READ_ANY><<<grid, block, 0, s>>>(*a); break;
    }
    return (int)cudaGetLastError();
}
extern "C" int fv_diff_cuda_vlut(uint32_t *vlut, const uint32_t *heat, int top, void *stream)
{
    if (top < 1)
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    k_vlut<<<blocks_for(DIFF_CUDA_VLUT_MAX + 1, 256), 256, 0, s>>>(vlut, heat, top);
    return (int)cudaGetLastError();
}
