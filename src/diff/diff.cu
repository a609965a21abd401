// Differencing kernels (docs/diff.md is the arithmetic; diff_ref.c the
// reference they match byte for byte). Maps to RGB24/RGBA: one thread per 4
// pixels of a row, 8-bit RGB24/RGBA read as 32-/128-bit words where rows are
// aligned; I420 maps: one thread per 2x2 quad (its chroma sample). The change
// mask: blocks own up to 128 px of one tile row, take their place from a
// ticket and compact the list of changed tiles with a decoupled look-back.
// The fused median3 + heat map keeps both frames' tiles (128 x 16 pixels and
// a halo) in shared memory as (prev, cur) 16-bit pairs and runs one median
// network on the pair, its column sorts shared by two rows.
#include <cuda_runtime.h>
#include <stdint.h>

#include "diff/changed.h"
#include "diff/diff_cuda.h"

// Blocks of 256 threads an SM keeps for the streaming kernels: all its
// threads (2048 on sm_80 and sm_90, 1536 on sm_86 / sm_87 / sm_89).
#if defined(__CUDA_ARCH__) && \
    (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
#define DIFF_STREAM_BLOCKS 6
#else
#define DIFF_STREAM_BLOCKS 8
#endif
// Blocks of the fused median an SM keeps: its 2 x 4 pixels a thread need 48
// registers on sm_90, more where the 16-bit pair min/max and the 3-way ones
// are not single instructions (before sm_90).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define DIFF_MEDIAN_BLOCKS 3
#else
#define DIFF_MEDIAN_BLOCKS 5
#endif

namespace {

constexpr int kHeatTop = 1023;      // DIFF_HEAT_ENTRIES - 1
constexpr int kRowsPerBlock = 8;    // blockDim.y of the row and mask kernels
constexpr int kMaskThreads = 32 * kRowsPerBlock;
constexpr unsigned kLookAggregate = 1, kLookPrefix = 2;
// Look-back words a lane reads a round: 128 predecessors a round, so a block
// of the first wave (all of whose predecessors start with it) finds a prefix
// in a few rounds.
constexpr int kLookPer = 4;

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
        const uint32_t *ra = reinterpret_cast<const uint32_t *>(p.a[0] + (ptrdiff_t)y * p.as[0]) +
                             3 * (x0 >> 2);
        const uint32_t *rb = reinterpret_cast<const uint32_t *>(p.b[0] + (ptrdiff_t)y * p.bs[0]) +
                             3 * (x0 >> 2);
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
        const uint4 a = __ldg(reinterpret_cast<const uint4 *>(p.a[0] + (ptrdiff_t)y * p.as[0]) +
                              (x0 >> 2));
        const uint4 b = __ldg(reinterpret_cast<const uint4 *>(p.b[0] + (ptrdiff_t)y * p.bs[0]) +
                              (x0 >> 2));
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
                if (CI == 3) {
                    c0 = byte_of(d[k][(3 * i) >> 2], (3 * i) & 3);
                    c1 = byte_of(d[k][(3 * i + 1) >> 2], (3 * i + 1) & 3);
                    c2 = byte_of(d[k][(3 * i + 2) >> 2], (3 * i + 2) & 3);
                } else {
                    c0 = byte_of(d[k][i], 0);
                    c1 = byte_of(d[k][i], 1);
                    c2 = byte_of(d[k][i], 2);
                }
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
                        make_uint4(col[0] | 0xff000000u, col[1] | 0xff000000u,
                                   col[2] | 0xff000000u, col[3] | 0xff000000u);
                else
                    for (int i = 0; i < np; i++)
                        reinterpret_cast<uint32_t *>(ro)[4 * g + i] = col[i] | 0xff000000u;
            } else if (np > 0) {
                s[3 * g] = col[0] | col[1] << 24;
                s[3 * g + 1] = col[1] >> 8 | col[2] << 16;
                s[3 * g + 2] = col[2] >> 16 | col[3] << 8;
            }
        }
        if (KIND != DIFF_CUDA_OVERLAY && CO == 3) {
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
        __syncwarp(); // the next unit writes s
    }
}

// ---------------------------------------------------------------- median3 + heat

constexpr int kMedCols = 32 * 4 + 2;   // pixels of a block's tile row with the halo
constexpr int kMedPitch = 132;         // words a shared row (16-byte aligned rows)
constexpr int kMedTileRows = 16;       // rows a block makes: 2 a thread
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
                s[c][r][col] = __byte_perm((uint32_t)__ldg(pa + c), (uint32_t)__ldg(pb + c),
                                           0x5410);
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

// ---------------------------------------------------------------- change mask

__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void store_relaxed(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" : : "l"(p), "l"(v) : "memory");
}

// The number of changed tiles of the blocks before ticket b (warp-collective,
// every lane gets it): publish this block's count, then read the predecessors'
// words 128 at a time back to the nearest inclusive prefix, waiting while one
// closer than it has not published yet; then publish the inclusive prefix.
__device__ __forceinline__ unsigned lookback(const diff_cuda_mask_args &a, int b, unsigned count)
{
    const int lane = (int)(threadIdx.x & 31);
    const unsigned long long ep = (unsigned long long)a.epoch << 32;
    if (b == 0) {
        if (lane == 0)
            store_relaxed(a.look, ep | (unsigned long long)kLookPrefix << 30 | count);
        return 0;
    }
    if (lane == 0)
        store_relaxed(a.look + b, ep | (unsigned long long)kLookAggregate << 30 | count);
    unsigned excl = 0;
    int j = b - 1;
    for (;;) {
        // lane L reads blocks j - 4L .. j - 4L - 3, nearest first
        unsigned val = 0;     // its entries up to its nearest prefix
        int near = kLookPer;  // that prefix (kLookPer: none)
        bool unpublished = false;
#pragma unroll
        for (int q = 0; q < kLookPer; q++) {
            const int idx = j - lane * kLookPer - q;
            bool valid = true, prefix = true;
            unsigned v = 0;
            if (idx >= 0) {
                const unsigned long long wv = load_relaxed(a.look + idx);
                valid = (unsigned)(wv >> 32) == a.epoch;
                prefix = valid && ((unsigned)(wv >> 30) & 3u) == kLookPrefix;
                v = valid ? (unsigned)wv & 0x3fffffffu : 0u;
            }
            if (near == kLookPer) {
                unpublished |= !valid;
                val += v;
                if (prefix)
                    near = q;
            }
        }
        const unsigned waiting = __ballot_sync(0xffffffffu, unpublished);
        const unsigned prefixes = __ballot_sync(0xffffffffu, near < kLookPer);
        // lanes up to the nearest prefix (all lanes when there is none)
        const int first = prefixes ? __ffs((int)prefixes) - 1 : 31;
        const unsigned upto = first == 31 ? 0xffffffffu : (2u << first) - 1u;
        if (waiting & upto) {
            __nanosleep(20);
            continue;
        }
        unsigned part = lane <= first ? val : 0u;
        for (int o = 16; o > 0; o >>= 1)
            part += __shfl_xor_sync(0xffffffffu, part, o);
        excl += part;
        if (prefixes)
            break;
        j -= 32 * kLookPer;
    }
    if (lane == 0)
        store_relaxed(a.look + b, ep | (unsigned long long)kLookPrefix << 30 | (excl + count));
    return excl;
}

// Change mask: the block with ticket b owns tile row b / groups, pixels
// [g * 128, g * 128 + 128) with g = b % groups: whole tiles (tile 8 .. 64),
// so its flags need no other block. Warps are rows, lanes 4-pixel columns.
template <int R>
__global__ void __launch_bounds__(kMaskThreads, 4)
    k_mask(const __grid_constant__ diff_cuda_mask_args a)
{
    __shared__ unsigned s_ticket;
    __shared__ unsigned s_bits[kRowsPerBlock];
    __shared__ unsigned s_pix[kRowsPerBlock];
    __shared__ unsigned s_sum[kRowsPerBlock];
    __shared__ int s_max[kRowsPerBlock];
    const int lane = (int)threadIdx.x, wy = (int)threadIdx.y;
    if (lane == 0 && wy == 0) {
        s_ticket = atomicAdd(a.ticket, 1u);
        // every block has its ticket once the last one is handed out
        if (s_ticket == (unsigned)a.blocks - 1)
            *a.ticket = 0;
    }
    __syncthreads();
    const int b = (int)s_ticket;
    const int groups = (a.in.w + DIFF_CUDA_MASK_SPAN - 1) / DIFF_CUDA_MASK_SPAN;
    const int ty = b / groups, g = b - ty * groups;
    const int x0 = g * DIFF_CUDA_MASK_SPAN + 4 * lane;
    const int y0 = ty * a.tile;
    const int y1 = y0 + a.tile < a.in.h ? y0 + a.tile : a.in.h;
    // a thread sums at most 4 x 8 pixels, a block 32 x 8 times that, of at
    // most 3 x 65535 each: 32 bits hold a block's sum
    unsigned pix = 0, sum = 0;
    int mxs = 0;
    if (x0 < a.in.w) {
        const int n = a.in.w - x0 < 4 ? a.in.w - x0 : 4;
#pragma unroll 2
        for (int y = y0 + wy; y < y1; y += kRowsPerBlock) {
            int s[4], m[4];
            read4<R>(a.in, x0, y, n, s, m);
            for (int i = 0; i < n; i++) {
                sum += (unsigned)s[i];
                mxs = s[i] > mxs ? s[i] : mxs;
                pix += diff_beyond(m[i], a.threshold);
            }
        }
    }
    const unsigned bits = __ballot_sync(0xffffffffu, pix != 0);
    for (int o = 16; o > 0; o >>= 1) {
        pix += __shfl_xor_sync(0xffffffffu, pix, o);
        sum += __shfl_xor_sync(0xffffffffu, sum, o);
        const int m = __shfl_xor_sync(0xffffffffu, mxs, o);
        mxs = m > mxs ? m : mxs;
    }
    if (lane == 0) {
        s_bits[wy] = bits;
        s_pix[wy] = pix;
        s_sum[wy] = sum;
        s_max[wy] = mxs;
    }
    __syncthreads();
    if (wy != 0)
        return;
    unsigned all = 0, bpix = 0, bsum = 0;
    int bmax = 0;
    for (int k = 0; k < kRowsPerBlock; k++) {
        all |= s_bits[k];
        bpix += s_pix[k];
        bsum += s_sum[k];
        bmax = s_max[k] > bmax ? s_max[k] : bmax;
    }
    // tile t of the block: lanes [t * per, (t + 1) * per)
    const int per = a.tile / 4, span = DIFF_CUDA_MASK_SPAN / a.tile;
    const int tx0 = g * span;
    const int ntiles = a.tiles_x - tx0 < span ? a.tiles_x - tx0 : span;
    bool changed = false;
    if (lane < ntiles) {
        const unsigned m = (per == 32 ? 0xffffffffu : (1u << per) - 1u) << (lane * per);
        changed = (all & m) != 0;
        a.flags[(size_t)ty * a.tiles_x + tx0 + lane] = changed ? 1 : 0;
    }
    const unsigned tbits = __ballot_sync(0xffffffffu, changed);
    const unsigned count = (unsigned)__popc(tbits);
    const unsigned excl = lookback(a, b, count);
    int32_t *list = reinterpret_cast<int32_t *>(a.res + DIFF_CUDA_RES_WORDS);
    if (changed)
        list[excl + (unsigned)__popc(tbits & ((1u << lane) - 1u))] = ty * a.tiles_x + tx0 + lane;
    if (lane == 0) {
        if (count)
            atomicAdd(a.res + DIFF_CUDA_RES_TILES, (unsigned long long)count);
        if (bpix)
            atomicAdd(a.res + DIFF_CUDA_RES_PIXELS, (unsigned long long)bpix);
        if (bsum)
            atomicAdd(a.res + DIFF_CUDA_RES_SUM, (unsigned long long)bsum);
        if (bmax)
            atomicMax(a.res + DIFF_CUDA_RES_MAX, (unsigned long long)bmax);
        if (b == 0)
            for (int k = 0; k < DIFF_CUDA_RES_WORDS; k++)
                a.next[k] = 0;
    }
}

// ---------------------------------------------------------------- histogram

constexpr int kHistRows = 16;
constexpr int kHistSharedMax = 8191; // bins kept in shared memory (up to 12 bits)

// Counts of cur - prev + maxval of plane 0's first sample; per-block counts
// in shared memory up to 12 bits, straight to global memory above.
__global__ void __launch_bounds__(256) k_hist(const __grid_constant__ diff_cuda_hist_args a)
{
    extern __shared__ unsigned s_hist[];
    const int bins = 2 * a.maxval + 1;
    const bool local = bins <= kHistSharedMax;
    if (local)
        for (int i = (int)threadIdx.x; i < bins; i += (int)blockDim.x)
            s_hist[i] = 0;
    __syncthreads();
    const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int step = a.in.layout == DIFF_CUDA_PACKED ? a.in.comps : 1;
    if (x < a.in.w) {
        const int yend = ((int)blockIdx.y + 1) * kHistRows;
        const int y1 = yend < a.in.h ? yend : a.in.h;
        for (int y = (int)blockIdx.y * kHistRows; y < y1; y++) {
            const int pa = sample(a.in.a[0] + (ptrdiff_t)y * a.in.as[0], x * step, a.in.wide);
            const int pb = sample(a.in.b[0] + (ptrdiff_t)y * a.in.bs[0], x * step, a.in.wide);
            const int i = pb - pa + a.maxval;
            atomicAdd(local ? &s_hist[i] : &a.hist[i], 1u);
        }
    }
    if (!local)
        return;
    __syncthreads();
    for (int i = (int)threadIdx.x; i < bins; i += (int)blockDim.x)
        if (s_hist[i])
            atomicAdd(&a.hist[i], s_hist[i]);
}

// ---------------------------------------------------------------- filters

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
                n[3 * (dy + 1) + dx + 1] = sample(row, clampi(x + dx, 0, a.w - 1) * a.comps + c,
                                                  a.wide);
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

__global__ void k_vlut(uint32_t *vlut, const uint32_t *heat, int top)
{
    const int v = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int vv = v < top ? v : top; // <= 4096: the product fits 32 bits
    if (v <= DIFF_CUDA_VLUT_MAX)
        vlut[v] = heat[((unsigned)vv * kHeatTop + (unsigned)(top / 2)) / (unsigned)top];
}

unsigned blocks_for(int n, int per)
{
    return (unsigned)((n + per - 1) / per);
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
    case DIFF_CUDA_READ_RGB24:
        k_map_row<DIFF_CUDA_READ_RGB24><<<grid, block, 0, s>>>(*a);
        break;
    case DIFF_CUDA_READ_RGBA:
        k_map_row<DIFF_CUDA_READ_RGBA><<<grid, block, 0, s>>>(*a);
        break;
    default:
        k_map_row<DIFF_CUDA_READ_ANY><<<grid, block, 0, s>>>(*a);
        break;
    }
    return (int)cudaGetLastError();
}

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

extern "C" int fv_diff_cuda_mask(const diff_cuda_mask_args *a, void *stream)
{
    if (a->tile < 8 || a->tile > 64 || (a->tile & (a->tile - 1)) || a->blocks < 1)
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    const dim3 block(32, kRowsPerBlock);
    switch (a->reader) {
    case DIFF_CUDA_READ_RGB24:
        k_mask<DIFF_CUDA_READ_RGB24><<<(unsigned)a->blocks, block, 0, s>>>(*a);
        break;
    case DIFF_CUDA_READ_RGBA:
        k_mask<DIFF_CUDA_READ_RGBA><<<(unsigned)a->blocks, block, 0, s>>>(*a);
        break;
    default:
        k_mask<DIFF_CUDA_READ_ANY><<<(unsigned)a->blocks, block, 0, s>>>(*a);
        break;
    }
    return (int)cudaGetLastError();
}

extern "C" int fv_diff_cuda_hist(const diff_cuda_hist_args *a, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    const int bins = 2 * a->maxval + 1;
    const size_t shared = bins <= kHistSharedMax ? (size_t)bins * sizeof(unsigned) : 0;
    const dim3 grid(blocks_for(a->in.w, 256), blocks_for(a->in.h, kHistRows));
    k_hist<<<grid, 256, shared, s>>>(*a);
    return (int)cudaGetLastError();
}

extern "C" int fv_diff_cuda_filter(const diff_cuda_filter_args *a, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    const dim3 block(64, 4);
    const dim3 grid(blocks_for(a->w * a->comps, 64), blocks_for(a->h, 4));
    k_filter<<<grid, block, 0, s>>>(*a);
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
