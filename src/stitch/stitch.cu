// Stitch kernels: one pass per frame. Each thread produces 4 horizontally adjacent
// panorama pixels (RGB: one 16-byte store) or a 4x2 luma block with its 2x1 chroma
// (YUV). Remap coordinates come from the coarse per-camera grid interpolated here.
// Tiles one camera sees need no weights (weight 1); overlap tiles read theirs from
// a per-tile table the host fills from the reference. Tiles only touch the
// cameras their mask names. The arithmetic
// mirrors src/stitch/map.c and stitch_ref.c operation for operation; this file is
// compiled with --fmad=false so no multiply-add is contracted and results match
// the C reference bit for bit.
#include <cuda_runtime.h>
#include <stdint.h>

#include "stitch/stitch_cuda.h"

namespace {

// The kernels' parameter: the launch's fields and MAXC camera slots (the
// launch copies the n cameras it has; see stitch_kernel_head).
template <int MAXC>
struct kargs : stitch_kernel_head {
    stitch_kernel_cam cam[MAXC];
};

// Exact float of an unsigned byte without a conversion instruction: the byte in
// the low mantissa bits of 2^23, minus 2^23.
__device__ __forceinline__ float byte_to_float(unsigned int b)
{
    return __int_as_float(0x4B000000 | b) - 8388608.0f;
}

// Round to nearest, ties to even, for 0 <= x < 2^22: fovea_round_rne() in color.h.
__device__ __forceinline__ int round_rne(float x)
{
    return __float_as_int(x + 12582912.0f) - 0x4B400000;
}

// The four grid nodes (u, v) of cell (gx, gy) of a camera's grid.
__device__ __forceinline__ void grid_cell(const stitch_kernel_cam &c, int gx, int gy, float2 &n00,
                                          float2 &n10, float2 &n01, float2 &n11)
{
    const float2 *g = reinterpret_cast<const float2 *>(c.uv);
    n00 = __ldg(&g[(size_t)gy * c.grid_w + gx]);
    n10 = __ldg(&g[(size_t)gy * c.grid_w + gx + 1]);
    n01 = __ldg(&g[(size_t)(gy + 1) * c.grid_w + gx]);
    n11 = __ldg(&g[(size_t)(gy + 1) * c.grid_w + gx + 1]);
}

// Grid lookup: identical to lookup_core() in map.c (q = fisheye ellipse measure).
__device__ __forceinline__ bool lookup(const stitch_kernel_cam &c, int i, int j, float &u,
                                       float &v, float &q)
{
    const int step = 1 << c.step_shift;
    const int gx = i >> c.step_shift, gy = j >> c.step_shift;
    // (float)r / (float)step, exactly: step is a power of two and r < 32
    const float inv = __int_as_float((127 - c.step_shift) << 23);
    const float fx = byte_to_float((unsigned int)(i & (step - 1))) * inv;
    const float fy = byte_to_float((unsigned int)(j & (step - 1))) * inv;
    float2 n00, n10, n01, n11;
    grid_cell(c, gx, gy, n00, n10, n01, n11);
    const float ax = 1.0f - fx, ay = 1.0f - fy;
    u = ax * (ay * n00.x + fy * n01.x) + fx * (ay * n10.x + fy * n11.x);
    v = ax * (ay * n00.y + fy * n01.y) + fx * (ay * n10.y + fy * n11.y);
    // NaN nodes propagate: comparisons below are false for NaN
    bool seen = u >= 0.0f && u <= (float)(c.width - 1) && v >= 0.0f && v <= (float)(c.height - 1);
    q = 0.0f;
    if (c.clip_rx > 0.0f) {
        // clip_irx = 1.0f / clip_rx computed on the host: the same float
        const float ex = (u - c.clip_cx) * c.clip_irx;
        const float ey = (v - c.clip_cy) * c.clip_iry;
        q = ex * ex + ey * ey;
        seen = seen && q < 1.0f;
    }
    return seen;
}

// Lookups of pixels i0..i0+3 of row j (i0 a multiple of 4, i0 < pano_w) for one
// camera: the same arithmetic as lookup(), with the grid nodes loaded once when
// the four pixels share a cell (step >= 4). Pixels at or past pano_w are not seen
// (with step 1 or 2 their nodes would lie outside the grid).
__device__ __forceinline__ void lookup4(const stitch_kernel_cam &c, int i0, int j, int pano_w,
                                        float (&u)[4], float (&v)[4], bool (&seen)[4],
                                        float (&q)[4])
{
    if (c.step_shift < 2) {
#pragma unroll
        for (int k = 0; k < 4; k++) {
            u[k] = v[k] = q[k] = 0.0f;
            seen[k] = i0 + k < pano_w && lookup(c, i0 + k, j, u[k], v[k], q[k]);
        }
        return;
    }
    const int step = 1 << c.step_shift;
    const int gx = i0 >> c.step_shift, gy = j >> c.step_shift;
    const float inv = __int_as_float((127 - c.step_shift) << 23);
    const float fy = byte_to_float((unsigned int)(j & (step - 1))) * inv;
    const float ay = 1.0f - fy;
    float2 n00, n10, n01, n11;
    grid_cell(c, gx, gy, n00, n10, n01, n11);
    // the cell's columns, shared by the four pixels
    const float lu = ay * n00.x + fy * n01.x, ru = ay * n10.x + fy * n11.x;
    const float lv = ay * n00.y + fy * n01.y, rv = ay * n10.y + fy * n11.y;
    const float umax = (float)(c.width - 1), vmax = (float)(c.height - 1);
    const float fx0 = byte_to_float((unsigned int)(i0 & (step - 1))) * inv;
    const bool clip = c.clip_rx > 0.0f;
    const float irx = c.clip_irx, iry = c.clip_iry;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        // (i0 + k) & (step - 1) = (i0 & (step - 1)) + k: the four share a cell
        const float fx = fx0 + (float)k * inv;
        const float ax = 1.0f - fx;
        u[k] = ax * lu + fx * ru;
        v[k] = ax * lv + fx * rv;
        // no short-circuit: one predicate chain, no branches per pixel
        bool sk = (u[k] >= 0.0f) & (u[k] <= umax) & (v[k] >= 0.0f) & (v[k] <= vmax);
        q[k] = 0.0f;
        if (clip) {
            const float ex = (u[k] - c.clip_cx) * irx;
            const float ey = (v[k] - c.clip_cy) * iry;
            q[k] = ex * ex + ey * ey;
            sk = sk & (q[k] < 1.0f);
        }
        seen[k] = sk;
    }
}

// Lookups of pixels i0..i0+3 of rows j0 and j0 + 1 (j0 even) for one camera, as
// two lookup4() calls; with step >= 2 both rows lie in one grid cell, so the four
// nodes are loaded once and the column weights ax, fx are shared. Rows at or past
// pano_h are not seen. CHECK = false: the caller knows the camera sees all eight
// pixels (an interior tile), so the tests are skipped and seen is all true.
template <bool CHECK>
__device__ __forceinline__ void lookup4x2(const stitch_kernel_cam &c, int i0, int j0, int pano_w,
                                          int pano_h, float (&u)[2][4], float (&v)[2][4],
                                          bool (&seen)[2][4], float (&q)[2][4])
{
    if (c.step_shift < 2) {
#pragma unroll
        for (int dy = 0; dy < 2; dy++) {
            if (j0 + dy < pano_h) {
                lookup4(c, i0, j0 + dy, pano_w, u[dy], v[dy], seen[dy], q[dy]);
                if (!CHECK)
                    for (int k = 0; k < 4; k++)
                        seen[dy][k] = true;
            } else {
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    u[dy][k] = v[dy][k] = q[dy][k] = 0.0f;
                    seen[dy][k] = false;
                }
            }
        }
        return;
    }
    const int step = 1 << c.step_shift;
    const int gx = i0 >> c.step_shift, gy = j0 >> c.step_shift;
    const float inv = __int_as_float((127 - c.step_shift) << 23);
    float2 n00, n10, n01, n11;
    grid_cell(c, gx, gy, n00, n10, n01, n11);
    const float umax = (float)(c.width - 1), vmax = (float)(c.height - 1);
    const float fx0 = byte_to_float((unsigned int)(i0 & (step - 1))) * inv;
    const bool clip = c.clip_rx > 0.0f;
    float fx[4], ax[4];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        fx[k] = fx0 + (float)k * inv;
        ax[k] = 1.0f - fx[k];
    }
#pragma unroll
    for (int dy = 0; dy < 2; dy++) {
        // (j0 + dy) & (step - 1) = (j0 & (step - 1)) + dy: j0 is even and step >= 4
        const float fy = byte_to_float((unsigned int)((j0 + dy) & (step - 1))) * inv;
        const float ay = 1.0f - fy;
        const float lu = ay * n00.x + fy * n01.x, ru = ay * n10.x + fy * n11.x;
        const float lv = ay * n00.y + fy * n01.y, rv = ay * n10.y + fy * n11.y;
        const bool row = j0 + dy < pano_h;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            u[dy][k] = ax[k] * lu + fx[k] * ru;
            v[dy][k] = ax[k] * lv + fx[k] * rv;
            q[dy][k] = 0.0f;
            if (!CHECK) {
                seen[dy][k] = true;
                continue;
            }
            bool sk = row & (u[dy][k] >= 0.0f) & (u[dy][k] <= umax) & (v[dy][k] >= 0.0f) &
                      (v[dy][k] <= vmax);
            if (clip) {
                const float ex = (u[dy][k] - c.clip_cx) * c.clip_irx;
                const float ey = (v[dy][k] - c.clip_cy) * c.clip_iry;
                q[dy][k] = ex * ex + ey * ey;
                sk = sk & (q[dy][k] < 1.0f);
            }
            seen[dy][k] = sk;
        }
    }
}

// Overlap tiles (any tile not seen by exactly one camera with analytic weights)
// read their blend weights from a table the host fills with fovea_map_weights
// (the C reference's own values, so the blend is the reference's bit for bit):
// per tile, one 128x16 float plane per camera of its weight mask, in camera order.
// The element of pixel (i, j) of the tile holding (i0, j0): row j - j0, column i - i0.
__device__ __forceinline__ const float *tile_table(const stitch_kernel_head &a, int tile)
{
    return a.tile_weights + __ldg(&a.tile_wofs[tile]);
}

// Pixels i0..i0+3 of tile row r (i0 a multiple of 4, col = i0 - tile x origin)
// of an overlap tile: every weighted camera's weights from the table and its
// positions from the grid; ok[k]: some camera has weight > 0 at pixel k (pixels
// past the panorama have weight 0). Cameras outside wmask get w = 0.
template <int MAXC>
__device__ __forceinline__ void table_row(const kargs<MAXC> &a, const float *tw,
                                          uint32_t wmask, int i0, int j, int r, int col,
                                          float (&u)[MAXC][4], float (&v)[MAXC][4],
                                          float (&w)[4][MAXC], bool (&ok)[4])
{
#pragma unroll
    for (int k = 0; k < 4; k++)
        ok[k] = false;
    int slot = 0;
#pragma unroll
    for (int c = 0; c < MAXC; c++) {
#pragma unroll
        for (int k = 0; k < 4; k++)
            w[k][c] = u[c][k] = v[c][k] = 0.0f;
        if (!(wmask >> c & 1u))
            continue;
        const float4 t = __ldg(reinterpret_cast<const float4 *>(
            tw + ((size_t)slot * STITCH_TILE_H + r) * STITCH_TILE_W + col));
        slot++;
        w[0][c] = t.x;
        w[1][c] = t.y;
        w[2][c] = t.z;
        w[3][c] = t.w;
        bool sn[4];
        float q[4];
        lookup4(a.cam[c], i0, j, a.pano_w, u[c], v[c], sn, q);
#pragma unroll
        for (int k = 0; k < 4; k++)
            ok[k] = ok[k] | (w[k][c] > 0.0f);
    }
}

// One pixel of an overlap tile (e = its table element, r * STITCH_TILE_W + column):
// every weighted camera's weight, and (u, v) where the weight is > 0. Returns
// whether any weight is > 0.
template <int MAXC>
__device__ __forceinline__ bool table_pixel(const kargs<MAXC> &a, const float *tw,
                                            uint32_t wmask, int i, int j, int e,
                                            float (&w)[MAXC], float (&u)[MAXC], float (&v)[MAXC])
{
    bool any = false;
    int slot = 0;
#pragma unroll
    for (int c = 0; c < MAXC; c++) {
        w[c] = u[c] = v[c] = 0.0f;
        if (!(wmask >> c & 1u))
            continue;
        w[c] = __ldg(&tw[(size_t)slot * STITCH_TILE_H * STITCH_TILE_W + e]);
        slot++;
        if (w[c] > 0.0f) {
            float q;
            lookup(a.cam[c], i, j, u[c], v[c], q);
            any = true;
        }
    }
    return any;
}

// Integer bilinear sampling, identical to sample_at / sample_channel in
// stitch_ref.c: position rounded to 1/256 pixel, result in quarter codes.
struct sample_pos {
    const uint8_t *r0, *r1; // rows y0, y1
    int o0, o1;             // byte offsets of x0, x1 in a row
    int fx, fy;             // 0..255
};

__device__ __forceinline__ sample_pos sample_at(const uint8_t *base, int stride, int bpp, int w,
                                                int h, float u, float v)
{
    sample_pos s;
    const int u8 = round_rne(u * 256.0f), v8 = round_rne(v * 256.0f);
    const int x0 = u8 >> 8, y0 = v8 >> 8;
    const int x1 = x0 + 1 < w ? x0 + 1 : x0;
    const int y1 = y0 + 1 < h ? y0 + 1 : y0;
    s.fx = u8 & 255;
    s.fy = v8 & 255;
    s.r0 = base + (size_t)y0 * stride;
    s.r1 = base + (size_t)y1 * stride;
    s.o0 = x0 * bpp;
    s.o1 = x1 * bpp;
    return s;
}

__device__ __forceinline__ int sample_channel(const sample_pos &s, int ch)
{
    const int p00 = __ldg(&s.r0[s.o0 + ch]), p10 = __ldg(&s.r0[s.o1 + ch]);
    const int p01 = __ldg(&s.r1[s.o0 + ch]), p11 = __ldg(&s.r1[s.o1 + ch]);
    const int top = p00 * (256 - s.fx) + p10 * s.fx;
    const int bot = p01 * (256 - s.fx) + p11 * s.fx;
    return (top * (256 - s.fy) + bot * s.fy + 8192) >> 14;
}

__device__ __forceinline__ int sample_q(const uint8_t *base, int stride, int bpp, int w, int h,
                                        float u, float v, int ch)
{
    return sample_channel(sample_at(base, stride, bpp, w, h, u, v), ch);
}

// RGBA: R, G, B of one position from four 32-bit texel loads. R and B share a
// register as two 16-bit lanes through the horizontal pass (each lane stays
// below 255 * 256), G has its own; the vertical pass is per channel in 32 bits.
__device__ __forceinline__ void sample_rgba(const uint8_t *base, int stride, int w, int h,
                                            float u, float v, int q[3])
{
    const sample_pos s = sample_at(base, stride, 4, w, h, u, v);
    const unsigned int p00 = __ldg(reinterpret_cast<const unsigned int *>(s.r0 + s.o0));
    const unsigned int p10 = __ldg(reinterpret_cast<const unsigned int *>(s.r0 + s.o1));
    const unsigned int p01 = __ldg(reinterpret_cast<const unsigned int *>(s.r1 + s.o0));
    const unsigned int p11 = __ldg(reinterpret_cast<const unsigned int *>(s.r1 + s.o1));
    const unsigned int wx0 = 256 - s.fx, wx1 = s.fx, wy0 = 256 - s.fy, wy1 = s.fy;
    const unsigned int rb_t = (p00 & 0x00FF00FFu) * wx0 + (p10 & 0x00FF00FFu) * wx1;
    const unsigned int rb_b = (p01 & 0x00FF00FFu) * wx0 + (p11 & 0x00FF00FFu) * wx1;
    const unsigned int g_t = ((p00 >> 8) & 0xFFu) * wx0 + ((p10 >> 8) & 0xFFu) * wx1;
    const unsigned int g_b = ((p01 >> 8) & 0xFFu) * wx0 + ((p11 >> 8) & 0xFFu) * wx1;
    q[0] = (int)(((rb_t & 0xFFFFu) * wy0 + (rb_b & 0xFFFFu) * wy1 + 8192u) >> 14);
    q[1] = (int)((g_t * wy0 + g_b * wy1 + 8192u) >> 14);
    q[2] = (int)(((rb_t >> 16) * wy0 + (rb_b >> 16) * wy1 + 8192u) >> 14);
}

__device__ __forceinline__ void sample_rgb_int(const stitch_kernel_head &a,
                                               const stitch_kernel_cam &cam, float u, float v,
                                               int q[3])
{
    if (a.in_format == 0) {
        sample_rgba(cam.plane0, cam.stride0, cam.width, cam.height, u, v, q);
    } else {
        const sample_pos s = sample_at(cam.plane0, cam.stride0, 3, cam.width, cam.height, u, v);
        q[0] = sample_channel(s, 0);
        q[1] = sample_channel(s, 1);
        q[2] = sample_channel(s, 2);
    }
}

// Texture path: the texture unit filters with 8-bit fractional weights like the
// integer path; it may place a position 1/256 pixel differently and round the
// quarter code differently at ties, so it agrees with the C reference within one
// quarter code (the test bounds the output within 1 code value).
__device__ __forceinline__ int tex_q(float x)
{
    return round_rne(x * 1020.0f);
}

template <bool TEX>
__device__ __forceinline__ void sample_rgb(const stitch_kernel_head &a,
                                           const stitch_kernel_cam &cam, float u, float v,
                                           int q[3])
{
    if (TEX) {
        const float4 t = tex2D<float4>(cam.tex0, u + 0.5f, v + 0.5f);
        q[0] = tex_q(t.x);
        q[1] = tex_q(t.y);
        q[2] = tex_q(t.z);
    } else {
        sample_rgb_int(a, cam, u, v, q);
    }
}

template <bool TEX>
__device__ __forceinline__ int sample_luma(const stitch_kernel_cam &cam, float u, float v)
{
    if (TEX)
        return tex_q(tex2D<float>(cam.tex0, u + 0.5f, v + 0.5f));
    return sample_q(cam.plane0, cam.stride0, 1, cam.width, cam.height, u, v, 0);
}

template <bool TEX>
__device__ __forceinline__ void sample_chroma(const stitch_kernel_cam &cam, bool nv12, int chw,
                                              int chh, float x, float y, int &qu, int &qv)
{
    if (TEX) {
        if (nv12) {
            const float2 t = tex2D<float2>(cam.tex1, x + 0.5f, y + 0.5f);
            qu = tex_q(t.x);
            qv = tex_q(t.y);
        } else {
            qu = tex_q(tex2D<float>(cam.tex1, x + 0.5f, y + 0.5f));
            qv = tex_q(tex2D<float>(cam.tex2, x + 0.5f, y + 0.5f));
        }
    } else if (nv12) {
        const sample_pos sp = sample_at(cam.plane1, cam.stride1, 2, chw, chh, x, y);
        qu = sample_channel(sp, 0);
        qv = sample_channel(sp, 1);
    } else {
        qu = sample_q(cam.plane1, cam.stride1, 1, chw, chh, x, y, 0);
        qv = sample_q(cam.plane2, cam.stride2, 1, chw, chh, x, y, 0);
    }
}

// fovea_round_u8 in color.h
__device__ __forceinline__ unsigned int round_u8(float x)
{
    x = x < 0.0f ? 0.0f : (x > 255.0f ? 255.0f : x);
    return (unsigned int)round_rne(x);
}

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
        for (int k = threadIdx.y * blockDim.x + threadIdx.x; k < count; k += blockDim.x * blockDim.y)
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

// One blended RGBA pixel from each camera's weight and sample (quarter codes;
// cameras with weight 0 are skipped), adding the pixel's pair statistics on
// analysis frames to sh_stats (the thread's or block's counters, see STAT_ACC).
template <int MAXC, bool STATS>
__device__ __forceinline__ unsigned int combine_rgb(const kargs<MAXC> &a,
                                                    const float (&w)[MAXC], const int (&q)[MAXC][3],
                                                    unsigned long long *sh_stats)
{
    float acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f;
    unsigned long long raw[MAXC][4];
#pragma unroll
    for (int c = 0; c < MAXC; c++) {
        if (!(w[c] > 0.0f))
            continue;
        const float *lut = a.cam[c].lut;
        acc0 += w[c] * __ldg(&lut[q[c][0]]);
        acc1 += w[c] * __ldg(&lut[STITCH_LUT_SIZE + q[c][1]]);
        acc2 += w[c] * __ldg(&lut[2 * STITCH_LUT_SIZE + q[c][2]]);
        if (STATS) {
            raw[c][0] = (unsigned long long)q[c][0];
            raw[c][1] = (unsigned long long)q[c][1];
            raw[c][2] = (unsigned long long)q[c][2];
            raw[c][3] = (unsigned long long)stitch_stats_luma(q[c][0], q[c][1], q[c][2]);
        }
    }
    if (STATS)
        add_pairs<MAXC>(sh_stats, a.n, w, raw, a.log_table);
    return round_u8(acc0) | (round_u8(acc1) << 8) | (round_u8(acc2) << 16) | (255u << 24);
}

// One blended RGBA pixel from the cameras with weight > 0 at positions (u, v)
// (the general path).
template <int MAXC, bool STATS, bool TEX>
__device__ __forceinline__ unsigned int blend_rgb(const kargs<MAXC> &a, const float (&w)[MAXC],
                                                  const float (&u)[MAXC], const float (&v)[MAXC],
                                                  unsigned long long *sh_stats)
{
    int q[MAXC][3];
#pragma unroll
    for (int c = 0; c < MAXC; c++) {
        q[c][0] = q[c][1] = q[c][2] = 0;
        if (w[c] > 0.0f)
            sample_rgb<TEX>(a, a.cam[c], u[c], v[c], q[c]);
    }
    return combine_rgb<MAXC, STATS>(a, w, q, sh_stats);
}

// Store px[0..3] at pixels i0..i0+3 of an RGBA row (one 16-byte store inside the panorama).
__device__ __forceinline__ void store_rgba4(uint8_t *orow, int i0, int pano_w,
                                            const unsigned int (&px)[4])
{
    if (i0 + 3 < pano_w) {
        *reinterpret_cast<uint4 *>(orow + 4 * (size_t)i0) = make_uint4(px[0], px[1], px[2], px[3]);
    } else {
        for (int k = 0; k < 4 && i0 + k < pano_w; k++)
            reinterpret_cast<uint32_t *>(orow)[i0 + k] = px[k];
    }
}

// Bytes of the overlap-statistics counters in dynamic shared memory (the
// statistics pass; the stitch holds a single-camera tile's 8-bit tables there).
__host__ __device__ __forceinline__ int stats_bytes_aligned(int npairs)
{
    return (npairs * STITCH_STAT_FIELDS * 8 + 15) & ~15;
}

// Copy camera c's 8-bit tables (nch x STITCH_LUT_SIZE bytes) into shared memory,
// the whole block, 16 bytes at a time (the tables are STITCH_LUT8_STRIDE apart:
// aligned, and the last chunk stays inside the stride).
__device__ __forceinline__ const uint8_t *shared_lut8(const stitch_kernel_cam &cam, int nch,
                                                     uint8_t *sh)
{
    const int chunks = (nch * STITCH_LUT_SIZE + 15) / 16;
    const uint4 *src = reinterpret_cast<const uint4 *>(cam.lut8);
    uint4 *dst = reinterpret_cast<uint4 *>(sh);
    for (int k = threadIdx.y * blockDim.x + threadIdx.x; k < chunks; k += blockDim.x * blockDim.y)
        dst[k] = __ldg(&src[k]);
    __syncthreads();
    return sh;
}

// ---- interior tiles, texture path ----
// A tile the camera sees whole needs no seen tests, so in the texture path its
// positions need not be bit-identical to the reference's either (the texture
// unit quantises them to 1/256 pixel anyway): they are interpolated with
// multiply-adds, the texel-centre offset folded in, and quarter codes rounded
// with one multiply-add. Within the texture path's one-code bound.

// Texture coordinates (u + 0.5, v + 0.5) of K (4 or 2) pixels of one row of a
// grid cell (nodes n00..n11) at column fractions fx0, fx0 + inv, ... and row
// fraction fy.
template <int K>
__device__ __forceinline__ void tex_row4(const float2 &n00, const float2 &n10, const float2 &n01,
                                         const float2 &n11, float fx0, float inv, float fy,
                                         float (&x)[K], float (&y)[K])
{
    const float lu = __fmaf_rn(fy, n01.x - n00.x, n00.x);
    const float ru = __fmaf_rn(fy, n11.x - n10.x, n10.x);
    const float lv = __fmaf_rn(fy, n01.y - n00.y, n00.y);
    const float rv = __fmaf_rn(fy, n11.y - n10.y, n10.y);
    const float du = ru - lu, dv = rv - lv, lu5 = lu + 0.5f, lv5 = lv + 0.5f;
#pragma unroll
    for (int k = 0; k < K; k++) {
        const float fx = __fmaf_rn((float)k, inv, fx0);
        x[k] = __fmaf_rn(fx, du, lu5);
        y[k] = __fmaf_rn(fx, dv, lv5);
    }
}

// The grid cell of a camera holding pixel (i0, j0) (grid step >= 4): its four
// nodes, the pixel's column and row fractions in it, and inv = 1 / step.
struct tex_cell {
    float2 n00, n10, n01, n11;
    float fx0, fy0, inv;
};

__device__ __forceinline__ tex_cell tex_cell_at(const stitch_kernel_cam &c, int i0, int j0)
{
    tex_cell t;
    const int step = 1 << c.step_shift;
    grid_cell(c, i0 >> c.step_shift, j0 >> c.step_shift, t.n00, t.n10, t.n01, t.n11);
    t.inv = __int_as_float((127 - c.step_shift) << 23);
    t.fx0 = byte_to_float((unsigned int)(i0 & (step - 1))) * t.inv;
    t.fy0 = byte_to_float((unsigned int)(j0 & (step - 1))) * t.inv;
    return t;
}

// Texture coordinates of pixels i0..i0+K-1 of rows j0 .. j0 + ROWS - 1, cell t
// at (i0, j0) (i0 a multiple of K, the rows in the cell: ROWS = 2 needs j0 even,
// ROWS = 4 a multiple of 4). fy0 + dy * inv is exact (multiples of inv).
template <int ROWS, int K>
__device__ __forceinline__ void tex_coords4(const tex_cell &t, float (&x)[ROWS][K],
                                            float (&y)[ROWS][K])
{
#pragma unroll
    for (int dy = 0; dy < ROWS; dy++)
        tex_row4(t.n00, t.n10, t.n01, t.n11, t.fx0, t.inv, __fmaf_rn((float)dy, t.inv, t.fy0),
                 x[dy], y[dy]);
}

// Quarter code of a filtered texture value with one multiply-add (tex_q).
__device__ __forceinline__ int tex_q_fma(float t)
{
    return __float_as_int(__fmaf_rn(t, 1020.0f, 12582912.0f)) - 0x4B400000;
}

// An interior tile's pixels i0..i0+3 of rows j0, j0 + 1 (RGB, texture path).
__device__ __forceinline__ void interior_rgb_tex(const stitch_kernel_head &a,
                                                 const stitch_kernel_cam &cam, const uint8_t *lut8,
                                                 int i0, int j0)
{
    if (i0 >= a.pano_w || j0 >= a.pano_h)
        return; // past the panorama's edge (a tile it cuts)
    float x[2][4], y[2][4];
    tex_coords4<2>(tex_cell_at(cam, i0, j0), x, y);
    float4 t[2][4];
#pragma unroll
    for (int dy = 0; dy < 2; dy++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            t[dy][k] = tex2D<float4>(cam.tex0, x[dy][k], y[dy][k]);
#pragma unroll
    for (int dy = 0; dy < 2; dy++) {
        unsigned int px[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const unsigned int r = lut8[tex_q_fma(t[dy][k].x)];
            const unsigned int g = lut8[STITCH_LUT_SIZE + tex_q_fma(t[dy][k].y)];
            const unsigned int b = lut8[2 * STITCH_LUT_SIZE + tex_q_fma(t[dy][k].z)];
            px[k] = r | (g << 8) | (b << 16) | (255u << 24);
        }
        if (j0 + dy < a.pano_h)
            store_rgba4(a.out0 + (size_t)(j0 + dy) * a.out_stride0, i0, a.pano_w, px);
    }
}

// The weights of pixels col..col+3 of row r of an overlap tile's plane `slot`
// (see tile_table), and the bits of those > 0.
__device__ __forceinline__ float4 table_w4(const float *tw, int slot, int r, int col,
                                           unsigned int &pos)
{
    const float4 w = __ldg(reinterpret_cast<const float4 *>(
        tw + ((size_t)slot * STITCH_TILE_H + r) * STITCH_TILE_W + col));
    pos = (unsigned int)(w.x > 0.0f) | (unsigned int)(w.y > 0.0f) << 1 |
          (unsigned int)(w.z > 0.0f) << 2 | (unsigned int)(w.w > 0.0f) << 3;
    return w;
}

// A single-camera tile's pixels i0..i0+3 of rows j0 .. j0 + ROWS - 1 (RGB; ROWS
// 2, or 1 for a tile made by two blocks): weight 1, so each output is the
// camera's corrected sample (8-bit tables lut8 in shared memory). CHECK = false
// for interior tiles (every pixel seen).
template <bool TEX, bool CHECK, int ROWS = 2>
__device__ __forceinline__ void single_rgb(const stitch_kernel_head &a, const stitch_kernel_cam &cam,
                                           const uint8_t *lut8, int i0, int j0)
{
    if (j0 >= a.pano_h || i0 >= a.pano_w)
        return;
    float u[ROWS][4], v[ROWS][4], q4[ROWS][4];
    bool seen[ROWS][4];
    if constexpr (ROWS == 2) {
        lookup4x2<CHECK>(cam, i0, j0, a.pano_w, a.pano_h, u, v, seen, q4);
    } else {
        lookup4(cam, i0, j0, a.pano_w, u[0], v[0], seen[0], q4[0]);
        if (!CHECK)
#pragma unroll
            for (int k = 0; k < 4; k++)
                seen[0][k] = true;
    }
    unsigned int px[ROWS][4];
    if (TEX) {
        // branch-free: the texture clamps any position, so all eight fetches
        // and then all table reads go out together; unseen pixels are masked
        int q[ROWS][4][3];
#pragma unroll
        for (int dy = 0; dy < ROWS; dy++)
#pragma unroll
            for (int k = 0; k < 4; k++)
                sample_rgb<TEX>(a, cam, seen[dy][k] ? u[dy][k] : 0.0f,
                                seen[dy][k] ? v[dy][k] : 0.0f, q[dy][k]);
#pragma unroll
        for (int dy = 0; dy < ROWS; dy++)
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const unsigned int r = lut8[q[dy][k][0]];
                const unsigned int g = lut8[STITCH_LUT_SIZE + q[dy][k][1]];
                const unsigned int b = lut8[2 * STITCH_LUT_SIZE + q[dy][k][2]];
                px[dy][k] = seen[dy][k] ? (r | (g << 8) | (b << 16) | (255u << 24)) : 0u;
            }
    } else {
#pragma unroll
        for (int dy = 0; dy < ROWS; dy++)
#pragma unroll
            for (int k = 0; k < 4; k++) {
                px[dy][k] = 0;
                if (!seen[dy][k] || i0 + k >= a.pano_w)
                    continue;
                int q[3];
                sample_rgb<TEX>(a, cam, u[dy][k], v[dy][k], q);
                // weight 1: the output is the rounded table entry (lut8 = round_u8(lut))
                const unsigned int r = lut8[q[0]];
                const unsigned int g = lut8[STITCH_LUT_SIZE + q[1]];
                const unsigned int b = lut8[2 * STITCH_LUT_SIZE + q[2]];
                px[dy][k] = r | (g << 8) | (b << 16) | (255u << 24);
            }
    }
#pragma unroll
    for (int dy = 0; dy < ROWS; dy++)
        if (j0 + dy < a.pano_h)
            store_rgba4(a.out0 + (size_t)(j0 + dy) * a.out_stride0, i0, a.pano_w, px[dy]);
}

// RGB: each thread produces 4 horizontally adjacent pixels in each of two rows
// (a thread block covers one 128x16 mask tile).
// The tile a block makes: its place in the grid, or on the statistics pass
// (launched over the list of the tiles that weight two cameras or more: no
// other tile holds a pair) that list's entry.
template <bool STATS>
__device__ __forceinline__ int2 block_tile(const stitch_kernel_head &a)
{
    if (!STATS)
        return make_int2((int)blockIdx.x, (int)blockIdx.y);
    const int t = (int)__ldg(&a.stats_tiles[blockIdx.x]);
    return make_int2(t % a.tiles_x, t / a.tiles_x);
}

// The block's tile and mask, and which part of the tile it makes: part 0 the
// whole tile; parts 1 and 2 only row part - 1 of its threads' two rows (RGB
// pixel rows, YUV chroma rows: a tile made by two blocks); YUV overlap tiles
// are made by four blocks, parts 1 to 4 (see stitch_yuv_kernel). With the
// block list (texture path, grid steps >= 4; see stitch_kernel_head.items)
// tile and mask come in one load.
template <bool STATS, bool TEX>
__device__ __forceinline__ void block_item(const stitch_kernel_head &a, int2 &tile, uint32_t &mask,
                                           int &part)
{
    part = 0;
    if (TEX && !STATS && a.items) {
        const uint2 it = __ldg(reinterpret_cast<const uint2 *>(a.items) + blockIdx.x);
        const int t = (int)(it.x & STITCH_ITEM_TILE);
        tile = make_int2(t % a.tiles_x, t / a.tiles_x);
        part = (int)(it.x >> STITCH_ITEM_PART_SHIFT);
        mask = it.y;
    } else {
        tile = block_tile<STATS>(a);
        mask = __ldg(&a.tile_masks[tile.y * a.tiles_x + tile.x]);
    }
}

template <int MAXC, bool STATS, bool TEX>
__global__ void __launch_bounds__(256, MAXC <= 2 ? (STATS ? 2 : 4) : 1) stitch_rgb_kernel(const kargs<MAXC> a)
{
    extern __shared__ __align__(16) unsigned long long sh_stats[];
    const int npairs = a.n * (a.n - 1) / 2;
    unsigned long long own[STITCH_STAT_FIELDS]; // the thread's counters (two cameras)
    zero_stats<STATS>(own, sh_stats, npairs * STITCH_STAT_FIELDS);
    int2 tile;
    uint32_t mask;
    int part;
    block_item<STATS, TEX>(a, tile, mask, part);
    const int dy_begin = part ? part - 1 : 0, dy_end = part ? part : 2; // the rows made
    const int tile_index = tile.y * a.tiles_x + tile.x;
    const int i0 = (tile.x * (int)blockDim.x + (int)threadIdx.x) * 4;
    const int j0 = (tile.y * (int)blockDim.y + (int)threadIdx.y) * 2;
    const uint32_t seen_mask = mask & 0xffffu, wmask = mask >> 16;
    // One camera seen anywhere in the tile (analytic weights): its weight is
    // exactly 1 wherever it sees (raw / raw, or the border fallback), so the
    // result is its corrected sample, bit for bit what the general path gives.
    // (single-camera tiles have no overlap statistics to add: the statistics pass skips them)
    const bool single = !a.explicit_weights && __popc(seen_mask) == 1;
    if (STATS && single)
        return; // no pairs to count (the whole block leaves)
    if (single) {
        const stitch_kernel_cam cam = a.cam[__ffs(seen_mask) - 1]; // fields in registers once
        // the tables in shared memory: 3 x 4-byte loads per thread here instead
        // of 3 scattered table loads per pixel through L1 below
        const uint8_t *lut8 = shared_lut8(cam, 3, reinterpret_cast<uint8_t *>(sh_stats));
        if (TEX && (mask & STITCH_TILE_INTERIOR) && cam.step_shift >= 2)
            interior_rgb_tex(a, cam, lut8, i0, j0);
        else if (mask & STITCH_TILE_INTERIOR) // the camera sees every pixel
            single_rgb<TEX, false>(a, cam, lut8, i0, j0);
        else if (part != 0) // one of the two blocks of an edge tile: one row each
            single_rgb<TEX, true, 1>(a, cam, lut8, i0, j0 + part - 1);
        else
            single_rgb<TEX, true>(a, cam, lut8, i0, j0);
    } else if (MAXC <= 4 && j0 < a.pano_h && i0 < a.pano_w) {
        // Several cameras, row by row: every weighted camera's weights (table) and
        // positions (grid) for the four pixels, then the samples of 8 / MAXC
        // pixels from every camera at once (their latencies overlap), then those
        // pixels' blends.
        constexpr int G = MAXC <= 2 ? 4 : 2; // pixels per batch of samples
        const float *tw = tile_table(a, tile_index);
        const int col = 4 * threadIdx.x, r0 = 2 * threadIdx.y;
#pragma unroll 1
        for (int dy = dy_begin; dy < dy_end; dy++) {
            const int j = j0 + dy;
            if (j >= a.pano_h)
                break;
            float u[MAXC][4], v[MAXC][4], w[4][MAXC];
            bool ok[4];
            table_row<MAXC>(a, tw, wmask, i0, j, r0 + dy, col, u, v, w, ok);
            unsigned int px[4];
#pragma unroll
            for (int k0 = 0; k0 < 4; k0 += G) {
                int q[G][MAXC][3];
#pragma unroll
                for (int g = 0; g < G; g++)
#pragma unroll
                    for (int c = 0; c < MAXC; c++) {
                        const int k = k0 + g;
                        q[g][c][0] = q[g][c][1] = q[g][c][2] = 0;
                        if (!(wmask >> c & 1u))
                            continue;
                        if (TEX) {
                            // branch-free: the texture clamps any position
                            const bool use = w[k][c] > 0.0f;
                            sample_rgb<TEX>(a, a.cam[c], use ? u[c][k] : 0.0f,
                                            use ? v[c][k] : 0.0f, q[g][c]);
                        } else if (w[k][c] > 0.0f) {
                            sample_rgb<TEX>(a, a.cam[c], u[c][k], v[c][k], q[g][c]);
                        }
                    }
#pragma unroll
                for (int g = 0; g < G; g++) {
                    const int k = k0 + g;
                    px[k] = ok[k] ? combine_rgb<MAXC, STATS>(a, w[k], q[g], STAT_ACC(MAXC, own, sh_stats)) : 0u;
                }
            }
            store_rgba4(a.out0 + (size_t)j * a.out_stride0, i0, a.pano_w, px);
        }
    } else if (j0 < a.pano_h && i0 < a.pano_w) {
        // many cameras: pixel by pixel
        const float *tw = tile_table(a, tile_index);
#pragma unroll 1
        for (int dy = dy_begin; dy < dy_end; dy++) {
            const int j = j0 + dy;
            if (j >= a.pano_h)
                break;
            uint32_t *orow = reinterpret_cast<uint32_t *>(a.out0 + (size_t)j * a.out_stride0);
#pragma unroll 1
            for (int k = 0; k < 4; k++) {
                const int i = i0 + k;
                if (i >= a.pano_w)
                    break;
                orow[i] = 0;
                if (wmask == 0)
                    continue;
                float w[MAXC], u[MAXC], v[MAXC];
                if (!table_pixel<MAXC>(a, tw, wmask, i, j,
                                       (2 * threadIdx.y + dy) * STITCH_TILE_W + 4 * threadIdx.x + k,
                                       w, u, v))
                    continue;
                orow[i] = blend_rgb<MAXC, STATS, TEX>(a, w, u, v, STAT_ACC(MAXC, own, sh_stats));
            }
        }
    }
    if (STATS)
        flush_stats<MAXC>(sh_stats, own, a.stats, npairs * STITCH_STAT_FIELDS);
}

__device__ __forceinline__ float luma_to_chroma(float x, int chroma_size)
{
    float c = (x - 0.5f) * 0.5f;
    float hi = (float)(chroma_size - 1);
    return c < 0.0f ? 0.0f : (c > hi ? hi : c);
}

// Weight and chroma-plane position of one 2x2 block (pixels counted in
// `pixels`) from one camera's sums of weights and positions over its cn pixels:
// the same arithmetic as the C reference.
__device__ __forceinline__ void chroma_pos(const stitch_kernel_cam &cam, float cwt, float cu,
                                           float cv, int cn, int pixels, float &wc, float &x,
                                           float &y)
{
    wc = cwt / (float)pixels;
    const float inv = 1.0f / (float)cn;
    x = luma_to_chroma(cu * inv, (cam.width + 1) >> 1);
    y = luma_to_chroma(cv * inv, (cam.height + 1) >> 1);
}

// A camera's chroma sample (quarter codes) at a chroma-plane position.
template <bool TEX>
__device__ __forceinline__ void chroma_sample(const stitch_kernel_cam &cam, bool nv12, float x,
                                              float y, int &qu, int &qv)
{
    sample_chroma<TEX>(cam, nv12, (cam.width + 1) >> 1, (cam.height + 1) >> 1, x, y, qu, qv);
}

// The camera's chroma correction of a sample (quarter codes qu, qv) in a block
// whose chroma table index (stitch_chroma_index of its raw luma) is idx:
// chroma_value() in stitch_ref.c.
__device__ __forceinline__ void chroma_value(const stitch_kernel_cam &cam, int idx, int qu, int qv,
                                             float &su, float &sv)
{
    const float4 e = __ldg(reinterpret_cast<const float4 *>(cam.chroma) + idx);
    su = stitch_chroma_corrected(e.x, e.y, qu);
    sv = stitch_chroma_corrected(e.z, e.w, qv);
}

// Chroma of one 2x2 block from one camera (raw luma samples adding up to ysum
// over its cn pixels): chroma_pos, chroma_sample, chroma_value.
template <bool TEX>
__device__ __forceinline__ void block_chroma(const stitch_kernel_cam &cam, bool nv12, float cwt,
                                             float cu, float cv, int cn, int ysum, int pixels,
                                             float &wc, float &su, float &sv, int &qu, int &qv)
{
    float x, y;
    chroma_pos(cam, cwt, cu, cv, cn, pixels, wc, x, y);
    chroma_sample<TEX>(cam, nv12, x, y, qu, qv);
    chroma_value(cam, stitch_chroma_index(ysum, cn), qu, qv, su, sv);
}

// U and V of chroma pixels bx0 and bx0 + 1 of chroma row by (bx0 even).
__device__ __forceinline__ void store_chroma2(const stitch_kernel_head &a, int by, int bx0,
                                              int cw_out, const unsigned int (&ou)[2],
                                              const unsigned int (&ov)[2])
{
    uint8_t *pu = a.out1 + (size_t)by * a.out_stride1 + bx0;
    uint8_t *pv = a.out2 + (size_t)by * a.out_stride2 + bx0;
    if (bx0 + 1 < cw_out && ((reinterpret_cast<uintptr_t>(pu) | reinterpret_cast<uintptr_t>(pv)) & 1) == 0) {
        *reinterpret_cast<uint16_t *>(pu) = (uint16_t)(ou[0] | (ou[1] << 8));
        *reinterpret_cast<uint16_t *>(pv) = (uint16_t)(ov[0] | (ov[1] << 8));
    } else {
        for (int b = 0; b < 2 && bx0 + b < cw_out; b++) {
            pu[b] = (uint8_t)ou[b];
            pv[b] = (uint8_t)ov[b];
        }
    }
}

// Luma pixels i0..i0+3 of row j: one 32-bit store inside the panorama (i0 is a
// multiple of 4, so it is aligned where the plane and its stride are), bytes at
// its right edge, nothing past its bottom.
__device__ __forceinline__ void store_luma4(const stitch_kernel_head &a, int j, int i0,
                                           unsigned int y4)
{
    if (j >= a.pano_h)
        return;
    uint8_t *p = a.out0 + (size_t)j * a.out_stride0 + i0;
    if (i0 + 3 < a.pano_w) {
        *reinterpret_cast<uint32_t *>(p) = y4;
    } else {
        for (int k = 0; k < 4 && i0 + k < a.pano_w; k++)
            p[k] = (uint8_t)(y4 >> (8 * k));
    }
}

// An interior tile's 4x4 luma pixels (rows 2 * by0 .. 2 * by0 + 3, by0 even)
// and their chroma pixels (rows by0, by0 + 1, columns bx0, bx0 + 1), YUV,
// texture path. With a grid step >= 4 the sixteen pixels lie in one cell.
// Chroma: the reference samples each 2x2 block's chroma at the mean of its four
// positions, clamped to the chroma plane, i.e. at texture coordinate half the
// mean luma texture coordinate; bilinear interpolation in one cell makes that
// mean the position at the block's centre, so it is interpolated there directly
// (the texture's clamp addressing does the clamping). The chroma outputs come
// from the camera's chroma tables at each block's mean luma (weight 1).
__device__ __forceinline__ void interior_yuv_tex(const stitch_kernel_head &a,
                                                 const stitch_kernel_cam &cam, const uint8_t *lut8,
                                                 int bx0, int by0, bool nv12)
{
    const int i0 = 2 * bx0, j0 = 2 * by0;
    if (i0 >= a.pano_w || j0 >= a.pano_h)
        return; // past the panorama's edge (a tile it cuts; its sizes are even)
    const tex_cell cell = tex_cell_at(cam, i0, j0);
    float x[4][4], y[4][4];
    tex_coords4<4>(cell, x, y);
    // chroma texture coordinates: half the luma ones at the blocks' centres
    float cx[2][2], cy[2][2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float xr[4], yr[4];
        tex_row4(cell.n00, cell.n10, cell.n01, cell.n11, __fmaf_rn(0.5f, cell.inv, cell.fx0),
                 2.0f * cell.inv, __fmaf_rn((float)(2 * h) + 0.5f, cell.inv, cell.fy0), xr, yr);
#pragma unroll
        for (int b = 0; b < 2; b++) {
            cx[h][b] = 0.5f * xr[b];
            cy[h][b] = 0.5f * yr[b];
        }
    }
    float t[4][4], cu[2][2], cv[2][2];
#pragma unroll
    for (int dy = 0; dy < 4; dy++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            t[dy][k] = tex2D<float>(cam.tex0, x[dy][k], y[dy][k]);
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
        for (int b = 0; b < 2; b++) {
            if (nv12) {
                const float2 c2 = tex2D<float2>(cam.tex1, cx[h][b], cy[h][b]);
                cu[h][b] = c2.x;
                cv[h][b] = c2.y;
            } else {
                cu[h][b] = tex2D<float>(cam.tex1, cx[h][b], cy[h][b]);
                cv[h][b] = tex2D<float>(cam.tex2, cx[h][b], cy[h][b]);
            }
        }
    int ysum[2][2] = {{0, 0}, {0, 0}}; // each block's raw luma, quarter codes
#pragma unroll
    for (int dy = 0; dy < 4; dy++) {
        unsigned int y4 = 0;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int q = tex_q_fma(t[dy][k]);
            ysum[dy >> 1][k >> 1] += q;
            y4 |= (unsigned int)lut8[q] << (8 * k);
        }
        store_luma4(a, j0 + dy, i0, y4);
    }
#pragma unroll
    for (int h = 0; h < 2; h++) {
        if (by0 + h >= ((a.pano_h + 1) >> 1))
            break;
        unsigned int ou[2], ov[2];
#pragma unroll
        for (int b = 0; b < 2; b++) {
            float su, sv; // weight 1: the rounded corrected sample
            chroma_value(cam, stitch_chroma_index(ysum[h][b], 4), tex_q_fma(cu[h][b]),
                         tex_q_fma(cv[h][b]), su, sv);
            ou[b] = round_u8(su);
            ov[b] = round_u8(sv);
        }
        store_chroma2(a, by0 + h, bx0, (a.pano_w + 1) >> 1, ou, ov);
    }
}

// ---- overlap tiles, texture path (YUV) ----
// Luma pixels i0, i0 + 1 of row j (a 16-bit store inside the panorama; i0 is
// even and luma planes are aligned to 4), a byte at its right edge, nothing
// past its bottom.
__device__ __forceinline__ void store_luma2(const stitch_kernel_head &a, int j, int i0,
                                           unsigned int y2)
{
    if (j >= a.pano_h)
        return;
    uint8_t *p = a.out0 + (size_t)j * a.out_stride0 + i0;
    if (i0 + 1 < a.pano_w)
        *reinterpret_cast<uint16_t *>(p) = (uint16_t)y2;
    else
        p[0] = (uint8_t)y2;
}

// The weights of pixels (col, r) .. (col + 1, r) of a tile's table plane and
// which are > 0 (bits 0..1).
__device__ __forceinline__ float2 table_w2(const float *tw, int slot, int r, int col,
                                           unsigned int &pos)
{
    const float2 w = __ldg(reinterpret_cast<const float2 *>(
        tw + ((size_t)slot * STITCH_TILE_H + r) * STITCH_TILE_W + col));
    pos = (unsigned int)(w.x > 0.0f) | (unsigned int)(w.y > 0.0f) << 1;
    return w;
}

// An overlap tile's 2NBx2 luma pixels and NB chroma pixels of chroma row by,
// columns bx0 .. bx0 + NB - 1 (NB = 2: a tile made by one or two blocks; NB =
// 1: by four, see stitch_yuv_kernel; bx0 < (pano_w + 1) / 2, by < (pano_h + 1) /
// 2), when every camera's grid step is >= 4. Camera by camera (one camera's
// registers at a time: no spills), positions interpolated as on interior
// tiles, all of a camera's fetches issued together. A camera with weight 0 at a
// pixel adds 0 to the sums (the texture clamps its position), so there are no
// per-pixel branches; pixels past the panorama's edges have weight 0 in the
// table and are not stored. The blend is the reference's (its weights, its
// order of cameras) over the texture's samples. Each camera's chroma sample of
// a 2x2 block is taken at the mean position of the block's pixels it weights,
// with weight (sum of their weights) / (the block's pixels inside the
// panorama: 4, 2 or 1).
template <int MAXC, int NB>
__device__ __forceinline__ void overlap_yuv_tex(const kargs<MAXC> &a, int tile_y,
                                                const float *tw, uint32_t wmask, int bx0, int by,
                                                bool nv12)
{
    constexpr int K = 2 * NB; // luma pixels per row
    const int i0 = 2 * bx0, j0 = 2 * by;
    const int col = i0 & (STITCH_TILE_W - 1), r0 = j0 - STITCH_TILE_H * tile_y; // in the tile
    float acc[2][K];
#pragma unroll
    for (int dy = 0; dy < 2; dy++)
#pragma unroll
        for (int k = 0; k < K; k++)
            acc[dy][k] = 0.0f;
    float accu[NB], accv[NB], wsum[NB];
#pragma unroll
    for (int b = 0; b < NB; b++)
        accu[b] = accv[b] = wsum[b] = 0.0f;
    unsigned int ok = 0; // bit 4 * dy + k: some camera weights pixel (i0 + k, j0 + dy)
    // 1 / (pixels of block b inside the panorama): 1 / 4, 1 / 2 or 1
    const float rows = j0 + 1 < a.pano_h ? 2.0f : 1.0f;
    float inv_pixels[NB];
#pragma unroll
    for (int b = 0; b < NB; b++)
        inv_pixels[b] = 1.0f / ((i0 + 2 * b + 1 < a.pano_w ? 2.0f : 1.0f) * rows);
    int slot = 0;
    // two cameras: unrolled, so the second camera's loads need not wait for the first's sums
#pragma unroll(MAXC == 2 ? 2 : 1)
    for (int c = 0; c < MAXC; c++) {
        if (!(wmask >> c & 1u))
            continue;
        // the grid nodes' loads go out with the weights' (not after them)
        const stitch_kernel_cam &cam = a.cam[c];
        const tex_cell cell = tex_cell_at(cam, i0, j0);
        unsigned int p0, p1;
        float w[2][K];
        if constexpr (NB == 2) {
            const float4 w0 = table_w4(tw, slot, r0, col, p0);
            const float4 w1 = table_w4(tw, slot, r0 + 1, col, p1);
            w[0][0] = w0.x, w[0][1] = w0.y, w[0][2] = w0.z, w[0][3] = w0.w;
            w[1][0] = w1.x, w[1][1] = w1.y, w[1][2] = w1.z, w[1][3] = w1.w;
        } else {
            const float2 w0 = table_w2(tw, slot, r0, col, p0);
            const float2 w1 = table_w2(tw, slot, r0 + 1, col, p1);
            w[0][0] = w0.x, w[0][1] = w0.y;
            w[1][0] = w1.x, w[1][1] = w1.y;
        }
        slot++;
        const unsigned int pos = p0 | p1 << 4;
        if (!pos)
            continue;
        ok |= pos;
        float x[2][K], y[2][K];
        tex_coords4<2>(cell, x, y);
        float t[2][K];
#pragma unroll
        for (int dy = 0; dy < 2; dy++)
#pragma unroll
            for (int k = 0; k < K; k++)
                t[dy][k] = tex2D<float>(cam.tex0, x[dy][k], y[dy][k]);
        // each block's chroma position: the mean of its weighted pixels' positions
        const float chmax_x = (float)(((cam.width + 1) >> 1) - 1);
        const float chmax_y = (float)(((cam.height + 1) >> 1) - 1);
        float cu[NB], cv[NB], cwt[NB];
        int cidx[NB]; // the chroma tables' index: the block's weighted pixels' mean luma
#pragma unroll
        for (int b = 0; b < NB; b++) {
            float sx = 0.0f, sy = 0.0f;
            int ysum = 0;
            cwt[b] = 0.0f;
#pragma unroll
            for (int dy = 0; dy < 2; dy++)
#pragma unroll
                for (int dx = 0; dx < 2; dx++) {
                    const int k = 2 * b + dx;
                    const bool use = pos >> (4 * dy + k) & 1u;
                    sx += use ? x[dy][k] : 0.0f;
                    sy += use ? y[dy][k] : 0.0f;
                    ysum += use ? tex_q_fma(t[dy][k]) : 0;
                    cwt[b] += w[dy][k]; // 0 where unused
                }
            const int cn = __popc(pos & (0x33u << (2 * b)));
            cidx[b] = stitch_chroma_index(ysum, cn);
            const float inv = cn == 4 ? 0.25f : (cn == 2 ? 0.5f : (cn == 3 ? 1.0f / 3.0f : 1.0f));
            const float cx = fminf(fmaxf((sx * inv - 1.0f) * 0.5f, 0.0f), chmax_x) + 0.5f;
            const float cy = fminf(fmaxf((sy * inv - 1.0f) * 0.5f, 0.0f), chmax_y) + 0.5f;
            if (nv12) {
                const float2 c2 = tex2D<float2>(cam.tex1, cx, cy);
                cu[b] = c2.x;
                cv[b] = c2.y;
            } else {
                cu[b] = tex2D<float>(cam.tex1, cx, cy);
                cv[b] = tex2D<float>(cam.tex2, cx, cy);
            }
        }
#pragma unroll
        for (int dy = 0; dy < 2; dy++)
#pragma unroll
            for (int k = 0; k < K; k++)
                acc[dy][k] += w[dy][k] * __ldg(&cam.lut[tex_q_fma(t[dy][k])]);
#pragma unroll
        for (int b = 0; b < NB; b++) {
            if (cwt[b] > 0.0f) {
                const float wc = cwt[b] * inv_pixels[b]; // = cwt / pixels, exactly
                float su, sv;
                chroma_value(cam, cidx[b], tex_q_fma(cu[b]), tex_q_fma(cv[b]), su, sv);
                accu[b] += wc * su;
                accv[b] += wc * sv;
                wsum[b] += wc;
            }
        }
    }
#pragma unroll
    for (int dy = 0; dy < 2; dy++) {
        unsigned int yk = 0;
#pragma unroll
        for (int k = 0; k < K; k++)
            yk |= ((ok >> (4 * dy + k) & 1u) ? round_u8(acc[dy][k]) : (unsigned int)a.black_y)
                  << (8 * k);
        if constexpr (NB == 2)
            store_luma4(a, j0 + dy, i0, yk);
        else
            store_luma2(a, j0 + dy, i0, yk);
    }
    unsigned int ou[NB], ov[NB];
#pragma unroll
    for (int b = 0; b < NB; b++) {
        ou[b] = wsum[b] > 0.0f ? round_u8(accu[b] / wsum[b]) : 128u;
        ov[b] = wsum[b] > 0.0f ? round_u8(accv[b] / wsum[b]) : 128u;
    }
    if constexpr (NB == 2) {
        store_chroma2(a, by, bx0, (a.pano_w + 1) >> 1, ou, ov);
    } else {
        a.out1[(size_t)by * a.out_stride1 + bx0] = (uint8_t)ou[0];
        a.out2[(size_t)by * a.out_stride2 + bx0] = (uint8_t)ov[0];
    }
}

// A single-camera tile's 4x2 luma pixels and two chroma pixels of chroma row
// by, columns bx0, bx0 + 1 (YUV): weight 1, the same operations as the overlap
// path with w = 1 (luma table lut8 in shared memory). CHECK = false for
// interior tiles (every pixel seen).
template <bool TEX, bool CHECK>
__device__ __forceinline__ void single_yuv(const stitch_kernel_head &a, const stitch_kernel_cam &cam,
                                           const uint8_t *lut8, int bx0, int by, bool nv12)
{
    const int cw_out = (a.pano_w + 1) >> 1, ch_out = (a.pano_h + 1) >> 1;
    const int i0 = 2 * bx0, j0 = 2 * by; // luma
    if (by >= ch_out || bx0 >= cw_out)
        return;
    float u[2][4], v[2][4], q4[2][4];
    bool seen[2][4];
    lookup4x2<CHECK>(cam, i0, j0, a.pano_w, a.pano_h, u, v, seen, q4);
    // Both blocks' chroma positions first: sums over the block's seen
    // pixels (in the reference's order), divided by their count; for a
    // block seen whole the count is 4 and 1 / 4 is exact.
    float chx[2], chy[2];
    int cn[2], pixels[2];
    const int chw = (cam.width + 1) >> 1, chh = (cam.height + 1) >> 1;
#pragma unroll
    for (int b = 0; b < 2; b++) {
        float cu = 0.0f, cv = 0.0f;
        cn[b] = pixels[b] = 0;
#pragma unroll
        for (int dy = 0; dy < 2; dy++)
#pragma unroll
            for (int dx = 0; dx < 2; dx++) {
                const int k = 2 * b + dx;
                if (CHECK && (j0 + dy >= a.pano_h || i0 + k >= a.pano_w))
                    continue;
                pixels[b]++;
                if (seen[dy][k]) {
                    cu += u[dy][k];
                    cv += v[dy][k];
                    cn[b]++;
                }
            }
        const float inv = cn[b] > 0 ? 1.0f / (float)cn[b] : 0.0f;
        chx[b] = luma_to_chroma(cu * inv, chw);
        chy[b] = luma_to_chroma(cv * inv, chh);
    }
    int qu[2] = {0, 0}, qv[2] = {0, 0};
    int ysum[2] = {0, 0}; // each block's raw luma over its seen pixels, quarter codes
    if (TEX && i0 + 3 < a.pano_w) {
        // branch-free (see the RGB kernel): eight luma and both blocks'
        // chroma fetches go out together, then eight table reads, one
        // 32-bit store per row
        int q[2][4];
#pragma unroll
        for (int dy = 0; dy < 2; dy++)
#pragma unroll
            for (int k = 0; k < 4; k++)
                q[dy][k] = sample_luma<TEX>(cam, seen[dy][k] ? u[dy][k] : 0.0f,
                                            seen[dy][k] ? v[dy][k] : 0.0f);
#pragma unroll
        for (int b = 0; b < 2; b++)
            sample_chroma<TEX>(cam, nv12, chw, chh, chx[b], chy[b], qu[b], qv[b]);
#pragma unroll
        for (int dy = 0; dy < 2; dy++) {
            unsigned int y4 = 0;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const unsigned int y = lut8[q[dy][k]];
                y4 |= (seen[dy][k] ? y : (unsigned int)a.black_y) << (8 * k);
                ysum[k >> 1] += seen[dy][k] ? q[dy][k] : 0;
            }
            store_luma4(a, j0 + dy, i0, y4);
        }
    } else {
#pragma unroll
        for (int dy = 0; dy < 2; dy++) {
            if (j0 + dy >= a.pano_h)
                break;
            uint8_t *orow = a.out0 + (size_t)(j0 + dy) * a.out_stride0;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                if (i0 + k >= a.pano_w)
                    break;
                unsigned int y = (unsigned int)a.black_y;
                if (seen[dy][k]) {
                    const int q = sample_luma<TEX>(cam, u[dy][k], v[dy][k]);
                    ysum[k >> 1] += q;
                    y = lut8[q];
                }
                orow[i0 + k] = (uint8_t)y;
            }
        }
#pragma unroll
        for (int b = 0; b < 2; b++)
            if (cn[b] > 0)
                sample_chroma<TEX>(cam, nv12, chw, chh, chx[b], chy[b], qu[b], qv[b]);
    }
    unsigned int ou[2] = {128, 128}, ov[2] = {128, 128};
#pragma unroll
    for (int b = 0; b < 2; b++) {
        if (cn[b] == 0)
            continue;
        float su, sv;
        chroma_value(cam, stitch_chroma_index(ysum[b], cn[b]), qu[b], qv[b], su, sv);
        if (cn[b] == 4) {
            // the whole block seen (the common case): wc = 4 / 4 = 1, so
            // (wc * s) / wc = s: the same result without the divisions
            ou[b] = round_u8(su);
            ov[b] = round_u8(sv);
        } else {
            const float wc = (float)cn[b] / (float)pixels[b];
            ou[b] = round_u8((wc * su) / wc);
            ov[b] = round_u8((wc * sv) / wc);
        }
    }
    store_chroma2(a, by, bx0, cw_out, ou, ov);
}

// The 4x2 luma pixels and two chroma pixels of chroma row by, columns bx0,
// bx0 + 1 of a tile that is not a single-camera tile (YUV). own, sh_stats: the
// statistics counters (see STAT_ACC).
template <int MAXC, bool STATS, bool TEX>
__device__ __forceinline__ void overlap_yuv(const kargs<MAXC> &a, int2 tile, uint32_t wmask,
                                            int bx0, int by, bool nv12, unsigned long long *own,
                                            unsigned long long *sh_stats)
{
    const int cw_out = (a.pano_w + 1) >> 1, ch_out = (a.pano_h + 1) >> 1;
    const int i0 = 2 * bx0, j0 = 2 * by; // luma
    // (the texture path with grid steps >= 4 and no statistics: overlap_yuv_tex)
    if (MAXC <= 4 && by < ch_out && bx0 < cw_out) {
        // Several cameras, row by row: every weighted camera's weights (table)
        // and positions (grid) for the four pixels, then every camera's luma
        // samples of the four pixels at once (their latencies overlap), then the
        // luma blends and the chroma sums of each block; then every camera's
        // chroma samples of both blocks at once and their blends.
        const float *tw = tile_table(a, tile.y * a.tiles_x + tile.x);
        const int col = 4 * threadIdx.x, r0 = j0 - STITCH_TILE_H * tile.y;
        float cwt[MAXC][2], cu[MAXC][2], cv[MAXC][2];
        int cn[MAXC][2], ysum[MAXC][2];
#pragma unroll
        for (int c = 0; c < MAXC; c++)
#pragma unroll
            for (int b = 0; b < 2; b++) {
                cwt[c][b] = cu[c][b] = cv[c][b] = 0.0f;
                cn[c][b] = ysum[c][b] = 0;
            }
        int pixels[2] = {0, 0};
        // statistics: each pixel's weights and raw luma, added with the block's
        // chroma once it is known (see stitch_yuv_block in stitch_ref.c)
        float pw[STATS ? 2 : 1][4][MAXC];
        int ps[STATS ? 2 : 1][4][MAXC];
        unsigned int pseen = 0; // bit 4 * dy + k
#pragma unroll 1
        for (int dy = 0; dy < 2; dy++) {
            const int j = j0 + dy;
            if (j >= a.pano_h)
                break;
            float u[MAXC][4], v[MAXC][4], w[4][MAXC];
            bool ok[4];
            table_row<MAXC>(a, tw, wmask, i0, j, r0 + dy, col, u, v, w, ok);
            int s[4][MAXC];
#pragma unroll
            for (int k = 0; k < 4; k++)
#pragma unroll
                for (int c = 0; c < MAXC; c++) {
                    s[k][c] = 0;
                    if (!(wmask >> c & 1u))
                        continue;
                    if (TEX) {
                        // branch-free: the texture clamps any position
                        const bool use = w[k][c] > 0.0f;
                        s[k][c] = sample_luma<TEX>(a.cam[c], use ? u[c][k] : 0.0f,
                                                   use ? v[c][k] : 0.0f);
                    } else if (w[k][c] > 0.0f) {
                        s[k][c] = sample_luma<TEX>(a.cam[c], u[c][k], v[c][k]);
                    }
                }
            uint8_t *orow = a.out0 + (size_t)j * a.out_stride0;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                if (i0 + k >= a.pano_w)
                    break;
                const int b = k >> 1;
                pixels[b]++;
                if (!ok[k]) {
                    orow[i0 + k] = (uint8_t)a.black_y;
                    continue;
                }
                float acc = 0.0f;
#pragma unroll
                for (int c = 0; c < MAXC; c++) {
                    if (STATS) {
                        pw[dy][k][c] = w[k][c];
                        ps[dy][k][c] = s[k][c];
                    }
                    if (!(w[k][c] > 0.0f))
                        continue;
                    acc += w[k][c] * __ldg(&a.cam[c].lut[s[k][c]]);
                    cwt[c][b] += w[k][c];
                    cu[c][b] += u[c][k];
                    cv[c][b] += v[c][k];
                    cn[c][b] += 1;
                    ysum[c][b] += s[k][c];
                }
                orow[i0 + k] = (uint8_t)round_u8(acc);
                if (STATS)
                    pseen |= 1u << (4 * dy + k);
            }
        }
        float wc[MAXC][2];
        int qu[2][MAXC], qv[2][MAXC]; // per block, per camera
#pragma unroll
        for (int b = 0; b < 2; b++)
#pragma unroll
            for (int c = 0; c < MAXC; c++) {
                wc[c][b] = 0.0f;
                qu[b][c] = qv[b][c] = 0;
                if (cn[c][b] == 0 || bx0 + b >= cw_out)
                    continue;
                float x, y;
                chroma_pos(a.cam[c], cwt[c][b], cu[c][b], cv[c][b], cn[c][b], pixels[b], wc[c][b],
                           x, y);
                chroma_sample<TEX>(a.cam[c], nv12, x, y, qu[b][c], qv[b][c]);
            }
        unsigned int ou[2] = {128, 128}, ov[2] = {128, 128};
#pragma unroll
        for (int b = 0; b < 2; b++) {
            if (bx0 + b >= cw_out)
                break;
            float accu = 0.0f, accv = 0.0f, wsum = 0.0f;
#pragma unroll
            for (int c = 0; c < MAXC; c++) {
                if (cn[c][b] == 0)
                    continue;
                float su, sv;
                chroma_value(a.cam[c], stitch_chroma_index(ysum[c][b], cn[c][b]), qu[b][c],
                             qv[b][c], su, sv);
                accu += wc[c][b] * su;
                accv += wc[c][b] * sv;
                wsum += wc[c][b];
            }
            if (wsum > 0.0f) {
                ou[b] = round_u8(accu / wsum);
                ov[b] = round_u8(accv / wsum);
            }
        }
        store_chroma2(a, by, bx0, cw_out, ou, ov);
        if (STATS) {
#pragma unroll 1
            for (int p = 0; p < 8; p++) {
                if (!(pseen >> p & 1u))
                    continue;
                const int dy = p >> 2, k = p & 3, b = k >> 1;
                add_yuv_pairs<MAXC>(STAT_ACC(MAXC, own, sh_stats), a, pw[dy][k], ps[dy][k], qu[b],
                                    qv[b]);
            }
        }
    } else if (by < ch_out && bx0 < cw_out) {
        // many cameras: pixel by pixel
        const float *tw = tile_table(a, tile.y * a.tiles_x + tile.x);
        unsigned int ou[2] = {128, 128}, ov[2] = {128, 128};
#pragma unroll 1
        for (int b = 0; b < 2; b++) {
            const int bx = bx0 + b;
            if (bx >= cw_out)
                break;
            float cwt[MAXC], cu[MAXC], cv[MAXC];
            int cn[MAXC], ysum[MAXC];
#pragma unroll
            for (int c = 0; c < MAXC; c++) {
                cwt[c] = 0.0f;
                cu[c] = 0.0f;
                cv[c] = 0.0f;
                cn[c] = ysum[c] = 0;
            }
            // statistics: as in the row path above
            float pw[STATS ? 4 : 1][MAXC];
            int ps[STATS ? 4 : 1][MAXC];
            unsigned int pseen = 0;
            int pixels = 0;
#pragma unroll 1
            for (int dy = 0; dy < 2; dy++) {
                const int j = 2 * by + dy;
                if (j >= a.pano_h)
                    break;
#pragma unroll 1
                for (int dx = 0; dx < 2; dx++) {
                    const int i = 2 * bx + dx;
                    if (i >= a.pano_w)
                        break;
                    pixels++;
                    uint8_t *o = a.out0 + (size_t)j * a.out_stride0 + i;
                    float w[MAXC], u[MAXC], v[MAXC];
                    if (wmask == 0 ||
                        !table_pixel<MAXC>(a, tw, wmask, i, j,
                                           (j - STITCH_TILE_H * tile.y) * STITCH_TILE_W +
                                               (i - STITCH_TILE_W * tile.x),
                                           w, u, v)) {
                        *o = (uint8_t)a.black_y;
                        continue;
                    }
                    float acc = 0.0f;
                    const int p = 2 * dy + dx;
#pragma unroll
                    for (int c = 0; c < MAXC; c++) {
                        if (STATS) {
                            pw[p][c] = w[c];
                            ps[p][c] = 0;
                        }
                        if (!(w[c] > 0.0f))
                            continue;
                        const stitch_kernel_cam &cam = a.cam[c];
                        const int s = sample_luma<TEX>(cam, u[c], v[c]);
                        acc += w[c] * __ldg(&cam.lut[s]);
                        cwt[c] += w[c];
                        cu[c] += u[c];
                        cv[c] += v[c];
                        cn[c] += 1;
                        ysum[c] += s;
                        if (STATS)
                            ps[p][c] = s;
                    }
                    *o = (uint8_t)round_u8(acc);
                    if (STATS)
                        pseen |= 1u << p;
                }
            }
            float accu = 0.0f, accv = 0.0f, wsum = 0.0f;
            int qu[MAXC], qv[MAXC];
#pragma unroll
            for (int c = 0; c < MAXC; c++) {
                qu[c] = qv[c] = 0;
                if (cn[c] == 0)
                    continue;
                float wc, su, sv;
                block_chroma<TEX>(a.cam[c], nv12, cwt[c], cu[c], cv[c], cn[c], ysum[c], pixels, wc,
                                  su, sv, qu[c], qv[c]);
                accu += wc * su;
                accv += wc * sv;
                wsum += wc;
            }
            if (wsum > 0.0f) {
                ou[b] = round_u8(accu / wsum);
                ov[b] = round_u8(accv / wsum);
            }
            if (STATS) {
#pragma unroll 1
                for (int p = 0; p < 4; p++)
                    if (pseen >> p & 1u)
                        add_yuv_pairs<MAXC>(STAT_ACC(MAXC, own, sh_stats), a, pw[p], ps[p], qu, qv);
            }
        }
        store_chroma2(a, by, bx0, cw_out, ou, ov);
    }
}

// YUV: each thread covers YUV_ROWS(TEX) chroma rows of two chroma pixels side by
// side with their 2x2 luma blocks: texture path, a 4x4 luma block (32 x 4
// threads per tile); exact path, 4x2 (32 x 8 threads: its in-kernel sampling
// gains more from twice the threads than from two rows per thread). A thread
// block covers one 128x16 mask tile.
#define YUV_ROWS(TEX) ((TEX) ? 2 : 1)
template <int MAXC, bool STATS, bool TEX>
__global__ void __launch_bounds__(256 / YUV_ROWS(TEX),
                                  (MAXC <= 2 ? (STATS ? 2 : 4) : 1) * YUV_ROWS(TEX))
    stitch_yuv_kernel(const kargs<MAXC> a)
{
    extern __shared__ __align__(16) unsigned long long sh_stats[];
    const int npairs = a.n * (a.n - 1) / 2;
    unsigned long long own[STITCH_STAT_FIELDS]; // the thread's counters (two cameras)
    zero_stats<STATS>(own, sh_stats, npairs * STITCH_STAT_FIELDS);
    int2 tile;
    uint32_t mask;
    int part;
    block_item<STATS, TEX>(a, tile, mask, part);
    const int tile_index = tile.y * a.tiles_x + tile.x;
    const int bx0 = (tile.x * (int)blockDim.x + (int)threadIdx.x) * 2; // chroma column
    constexpr int R = YUV_ROWS(TEX);
    const int by0 = (tile.y * (int)blockDim.y + (int)threadIdx.y) * R; // chroma rows by0 .. by0 + R - 1
    const uint32_t seen_mask = mask & 0xffffu, wmask = mask >> 16;
    const bool nv12 = a.in_format == 2;
    // (single-camera tiles have no overlap statistics to add: the statistics pass skips them)
    const bool single = !a.explicit_weights && __popc(seen_mask) == 1;
    if (STATS && single)
        return; // no pairs to count (the whole block leaves)
    if (single) {
        // One camera in the tile: weight 1 wherever it sees (see the RGB kernel);
        // the same operations as the general path with w = 1.
        const stitch_kernel_cam cam = a.cam[__ffs(seen_mask) - 1]; // fields in registers once
        // the luma curve (lut8 plane 0) in shared memory
        const uint8_t *lut8 = shared_lut8(cam, 1, reinterpret_cast<uint8_t *>(sh_stats));
        if (TEX && (mask & STITCH_TILE_INTERIOR) && cam.step_shift >= 2) {
            interior_yuv_tex(a, cam, lut8, bx0, by0, nv12);
        } else if (part != 0) {
            // one of the two blocks of a single-camera edge tile (with the list
            // every step is >= 4, so interior tiles took the path above): one row each
            single_yuv<TEX, true>(a, cam, lut8, bx0, by0 + part - 1, nv12);
        } else {
            // the rows unrolled: their loads' latencies overlap
#pragma unroll
            for (int h = 0; h < R; h++) {
                if (mask & STITCH_TILE_INTERIOR) // the camera sees every pixel
                    single_yuv<TEX, false>(a, cam, lut8, bx0, by0 + h, nv12);
                else
                    single_yuv<TEX, true>(a, cam, lut8, bx0, by0 + h, nv12);
            }
        }
    } else if (TEX && !STATS && a.min_step_shift >= 2) {
        // overlap tiles on the texture path, the rows unrolled (as above)
        const float *tw = tile_table(a, tile_index);
        const int cw_out = (a.pano_w + 1) >> 1, ch_out = (a.pano_h + 1) >> 1;
        if (part != 0) {
            // one of the four blocks of a tile that blends cameras (the YUV
            // block list): chroma row parity (part - 1) & 1, chroma columns
            // half (part - 1) >> 1 of the tile's, one 2x2 luma block per thread
            const int by = by0 + ((part - 1) & 1);
            const int bx = tile.x * (STITCH_TILE_W / 2) + ((part - 1) >> 1) * 32 + (int)threadIdx.x;
            if (by < ch_out && bx < cw_out)
                overlap_yuv_tex<MAXC, 1>(a, tile.y, tw, wmask, bx, by, nv12);
        } else {
#pragma unroll
            for (int h = 0; h < R; h++)
                if (by0 + h < ch_out && bx0 < cw_out)
                    overlap_yuv_tex<MAXC, 2>(a, tile.y, tw, wmask, bx0, by0 + h, nv12);
        }
    } else {
#pragma unroll 1
        for (int h = 0; h < R; h++)
            overlap_yuv<MAXC, STATS, TEX>(a, tile, wmask, bx0, by0 + h, nv12, own, sh_stats);
    }
    if (STATS)
        flush_stats<MAXC>(sh_stats, own, a.stats, npairs * STITCH_STAT_FIELDS);
}

template <int MAXC, bool TEX>
cudaError_t launch_for(const stitch_kernel_args *full, cudaStream_t stream)
{
    kargs<MAXC> k;
    static_cast<stitch_kernel_head &>(k) = full->h;
    for (int c = 0; c < MAXC; c++)
        k.cam[c] = full->cam[c]; // slots past n are zero (the caller's memset)
    dim3 block(32, 8);
    dim3 grid((k.pano_w + STITCH_TILE_W - 1) / STITCH_TILE_W,
              (k.pano_h + STITCH_TILE_H - 1) / STITCH_TILE_H); // 32x8 threads x 4x2 pixels
    // the stitch: a single-camera tile's 8-bit tables in shared memory
    const size_t shmem = (size_t)((3 * STITCH_LUT_SIZE + 15) & ~15);
    const dim3 yuv_block(32, 8 / YUV_ROWS(TEX)); // see stitch_yuv_kernel
    // with the block list (stitch_kernel_head.items) one block per entry
    const dim3 blocks = TEX && k.items ? dim3((unsigned int)k.item_count) : grid;
    if (k.in_format <= 1)
        stitch_rgb_kernel<MAXC, false, TEX><<<blocks, block, shmem, stream>>>(k);
    else
        stitch_yuv_kernel<MAXC, false, TEX><<<blocks, yuv_block, shmem, stream>>>(k);
    if (!k.stats)
        return cudaGetLastError();
    // Analysis frames: then the overlap statistics, a second pass over the
    // tiles that weight two cameras or more only (a list: no blocks for the
    // others); it computes those tiles' pixels again and stores the same values.
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return e;
    if (k.stats_tile_count <= 0)
        return cudaSuccess; // no tile weights two cameras: no pairs (the counters stay 0)
    const size_t stats_shmem = (size_t)stats_bytes_aligned(k.n * (k.n - 1) / 2);
    const dim3 stats_grid((unsigned int)k.stats_tile_count); // one block per listed tile
    if (k.in_format <= 1)
        stitch_rgb_kernel<MAXC, true, TEX><<<stats_grid, block, stats_shmem, stream>>>(k);
    else
        stitch_yuv_kernel<MAXC, true, TEX><<<stats_grid, yuv_block, stats_shmem, stream>>>(k);
    return cudaGetLastError();
}

template <bool TEX>
cudaError_t launch_tex(const stitch_kernel_args *a, cudaStream_t s)
{
    if (a->h.n <= 2)
        return launch_for<2, TEX>(a, s);
    if (a->h.n <= 4)
        return launch_for<4, TEX>(a, s);
    if (a->h.n <= 8)
        return launch_for<8, TEX>(a, s);
    return launch_for<16, TEX>(a, s);
}

} // namespace

extern "C" int fovea_stitch_launch(const stitch_kernel_args *a, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    return (int)(a->h.use_tex ? launch_tex<true>(a, s) : launch_tex<false>(a, s));
}
