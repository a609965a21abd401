/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Device helpers the differencing kernels share (diff_map.cu, diff_median.cu,
// diff_mask.cu, diff_filter.cu): samples, the per-pixel differences and their
// word readers, the heat color and the maps' 4-pixel store. docs/diff.md is
// the arithmetic; diff_ref.c the reference the kernels match byte for byte.
#ifndef FOVEA_DIFF_SAMPLE_CUH
#define FOVEA_DIFF_SAMPLE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "diff/changed.h"
#include "diff/diff_map_cuda.h"

namespace
{

constexpr int kHeatTop = 1023;   // DIFF_HEAT_ENTRIES - 1
constexpr int kRowsPerBlock = 8; // blockDim.y of the row and mask kernels

__device__ __forceinline__ int absd(int a, int b)
{
    return a > b ? a - b : b - a;
}

// Sample i of a row: bytes, or 16-bit little-endian containers read bytewise
// (any alignment).
__device__ __forceinline__ int sample(const uint8_t *row, int i, int wide)
{
    return wide ? (int)row[2 * i] | (int)row[2 * i + 1] << 8 : (int)row[i];
}

__device__ __forceinline__ void put_sample(uint8_t *row, int i, int wide, int v)
{
    if (wide) {
        row[2 * i] = (uint8_t)(v & 255);
        row[2 * i + 1] = (uint8_t)(v >> 8);
    } else {
        row[i] = (uint8_t)v;
    }
}

// BT.601 limited range of diff_rgb_to_yuv (arithmetic shifts: floor).
__device__ __forceinline__ void to_yuv(int r, int g, int b, int &y, int &u, int &v)
{
    y = ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16;
    u = ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128;
    v = ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128;
}

// The channel differences of pixel (x, y): their sum and their largest (a
// chroma sample counts for every pixel it covers).
__device__ __forceinline__ void pix_diff(const diff_cuda_pair &p, int x, int y, int &sum, int &mx)
{
    const int wide = p.wide;
    const uint8_t *a0 = p.a[0] + (ptrdiff_t)y * p.as[0];
    const uint8_t *b0 = p.b[0] + (ptrdiff_t)y * p.bs[0];
    if (p.layout == DIFF_CUDA_PACKED) {
        int s = 0, m = 0;
        for (int c = 0; c < 3; c++) { // alpha is not compared
            const int i = x * p.comps + c;
            const int v = absd(sample(a0, i, wide), sample(b0, i, wide));
            s += v;
            m = v > m ? v : m;
        }
        sum = s;
        mx = m;
        return;
    }
    const int dy = absd(sample(a0, x, wide), sample(b0, x, wide));
    if (p.layout == DIFF_CUDA_GRAY) {
        sum = mx = dy;
        return;
    }
    const int cx = x >> p.sw, cy = y >> p.sh;
    const uint8_t *a1 = p.a[1] + (ptrdiff_t)cy * p.as[1];
    const uint8_t *b1 = p.b[1] + (ptrdiff_t)cy * p.bs[1];
    int du, dv;
    if (p.layout == DIFF_CUDA_NV12) {
        du = absd(sample(a1, 2 * cx, wide), sample(b1, 2 * cx, wide));
        dv = absd(sample(a1, 2 * cx + 1, wide), sample(b1, 2 * cx + 1, wide));
    } else {
        const uint8_t *a2 = p.a[2] + (ptrdiff_t)cy * p.as[2];
        const uint8_t *b2 = p.b[2] + (ptrdiff_t)cy * p.bs[2];
        du = absd(sample(a1, cx, wide), sample(b1, cx, wide));
        dv = absd(sample(a2, cx, wide), sample(b2, cx, wide));
    }
    sum = dy + du + dv;
    const int m = dy > du ? dy : du;
    mx = m > dv ? m : dv;
}

// pix_diff of n pixels from x0: the word readers' tail at the right border,
// kept out of line so its address arithmetic does not crowd their loops
__device__ __noinline__ void pix_diff_n(const diff_cuda_pair &p, int x0, int y, int n, int *sum,
                                        int *mx)
{
    for (int i = 0; i < n; i++)
        pix_diff(p, x0 + i, y, sum[i], mx[i]);
}

__device__ __forceinline__ int byte_of(uint32_t w, int k)
{
    return (int)((w >> (8 * k)) & 255u);
}

// The differences of pixels x0 .. x0 + n - 1 (n <= 4, x0 a multiple of 4) of
// row y, through reader R.
template <int R>
__device__ __forceinline__ void read4(const diff_cuda_pair &p, int x0, int y, int n, int sum[4],
                                      int mx[4])
{
    if (R == DIFF_CUDA_READ_RGB24 && n == 4) {
        // 4 pixels = 12 bytes = 3 words at byte 3 * x0 (a multiple of 4)
        const uint32_t *ra =
            reinterpret_cast<const uint32_t *>(p.a[0] + (ptrdiff_t)y * p.as[0]) + 3 * (x0 >> 2);
        const uint32_t *rb =
            reinterpret_cast<const uint32_t *>(p.b[0] + (ptrdiff_t)y * p.bs[0]) + 3 * (x0 >> 2);
        uint32_t d[3];
        for (int k = 0; k < 3; k++)
            d[k] = __vabsdiffu4(__ldg(ra + k), __ldg(rb + k));
        for (int i = 0; i < 4; i++) {
            int s = 0, m = 0;
            for (int c = 0; c < 3; c++) {
                const int k = 3 * i + c;
                const int v = byte_of(d[k >> 2], k & 3);
                s += v;
                m = v > m ? v : m;
            }
            sum[i] = s;
            mx[i] = m;
        }
        return;
    }
    if (R == DIFF_CUDA_READ_RGBA && n == 4) {
        const uint4 a =
            __ldg(reinterpret_cast<const uint4 *>(p.a[0] + (ptrdiff_t)y * p.as[0]) + (x0 >> 2));
        const uint4 b =
            __ldg(reinterpret_cast<const uint4 *>(p.b[0] + (ptrdiff_t)y * p.bs[0]) + (x0 >> 2));
        const uint32_t d[4] = {__vabsdiffu4(a.x, b.x), __vabsdiffu4(a.y, b.y),
                               __vabsdiffu4(a.z, b.z), __vabsdiffu4(a.w, b.w)};
        for (int i = 0; i < 4; i++) {
            const int r = byte_of(d[i], 0), g = byte_of(d[i], 1), bl = byte_of(d[i], 2);
            sum[i] = r + g + bl;
            const int m = r > g ? r : g;
            mx[i] = m > bl ? m : bl;
        }
        return;
    }
    if (R != DIFF_CUDA_READ_ANY) {
        pix_diff_n(p, x0, y, n, sum, mx);
    } else {
        for (int i = 0; i < n; i++)
            pix_diff(p, x0 + i, y, sum[i], mx[i]);
    }
}

// Color (R | G << 8 | B << 16) of difference v on the heat map.
__device__ __forceinline__ uint32_t heat_color(const diff_cuda_map_args &a, int v)
{
    const int vv = v < a.top ? v : a.top;
    if (vv <= DIFF_CUDA_VLUT_MAX)
        return __ldg(a.vlut + vv);
    // vv * 1023 + top / 2 < 2^31 for top <= 3 x 65535
    const unsigned i = ((unsigned)vv * kHeatTop + (unsigned)(a.top / 2)) / (unsigned)a.top;
    return __ldg(a.heat + i);
}

// Write the colors of pixels x0 .. x0 + n - 1 of row y of an RGB24/RGBA map
// (kind HEAT or BLACK: every pixel; OVERLAY: the changed ones, R, G, B only).
__device__ __forceinline__ void store4(const diff_cuda_map_args &a, int x0, int y, int n,
                                       const uint32_t col[4], const bool changed[4])
{
    uint8_t *o = a.out[0] + (ptrdiff_t)y * a.os[0];
    const int px = a.out_fmt == DIFF_CUDA_OUT_RGBA ? 4 : 3;
    if (a.kind == DIFF_CUDA_OVERLAY) {
        for (int i = 0; i < n; i++)
            if (changed[i]) {
                o[px * (x0 + i)] = 255;
                o[px * (x0 + i) + 1] = 0;
                o[px * (x0 + i) + 2] = 0;
            }
        return;
    }
    if (n == 4 && a.out_words) {
        if (px == 3) {
            uint32_t *w = reinterpret_cast<uint32_t *>(o) + 3 * (x0 >> 2);
            w[0] = col[0] | col[1] << 24;
            w[1] = col[1] >> 8 | col[2] << 16;
            w[2] = col[2] >> 16 | col[3] << 8;
        } else {
            reinterpret_cast<uint4 *>(o)[x0 >> 2] =
                make_uint4(col[0] | 0xff000000u, col[1] | 0xff000000u, col[2] | 0xff000000u,
                           col[3] | 0xff000000u);
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        uint8_t *q = o + px * (x0 + i);
        q[0] = (uint8_t)byte_of(col[i], 0);
        q[1] = (uint8_t)byte_of(col[i], 1);
        q[2] = (uint8_t)byte_of(col[i], 2);
        if (px == 4)
            q[3] = 255;
    }
}

inline unsigned blocks_for(int n, int per)
{
    return (unsigned)((n + per - 1) / per);
}

} // namespace

#endif
