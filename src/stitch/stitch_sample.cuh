/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Stitch kernels (stitch.cu), what every path reads: the kernels' parameter,
// grid lookups (remap positions), the overlap tiles' weight tables, pixel
// sampling (integer and texture) and the rounding of outputs.
#ifndef FOVEA_STITCH_SAMPLE_CUH
#define FOVEA_STITCH_SAMPLE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "stitch/stitch_cuda.h"

namespace
{

// The kernels' parameter: the launch's fields and MAXC camera slots (the
// launch copies the n cameras it has; see stitch_kernel_head).
template <int MAXC> struct kargs : stitch_kernel_head {
    stitch_kernel_cam cam[MAXC];
};

// Exact float of an unsigned byte without a conversion instruction: the byte in
// the low mantissa bits of 2^23, minus 2^23.
__device__ __forceinline__ float byte_to_float(unsigned int b)
{
    return __int_as_float(0x4B000000 | b) - 8388608.0f;
}

// Round to nearest, ties to even, for 0 <= x < 2^22: fv_round_rne() in color.h.
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
__device__ __forceinline__ bool lookup(const stitch_kernel_cam &c, int i, int j, float &u, float &v,
                                       float &q)
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
// read their blend weights from a table the host fills with fv_map_weights
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
__device__ __forceinline__ void table_row(const kargs<MAXC> &a, const float *tw, uint32_t wmask,
                                          int i0, int j, int r, int col, float (&u)[MAXC][4],
                                          float (&v)[MAXC][4], float (&w)[4][MAXC], bool (&ok)[4])
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
__device__ __forceinline__ bool table_pixel(const kargs<MAXC> &a, const float *tw, uint32_t wmask,
                                            int i, int j, int e, float (&w)[MAXC], float (&u)[MAXC],
                                            float (&v)[MAXC])
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
__device__ __forceinline__ void sample_rgba(const uint8_t *base, int stride, int w, int h, float u,
                                            float v, int q[3])
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
    if (a.in_format == STITCH_IN_RGBA) {
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

// Hugin's photometric correction of a camera's samples q taken at (u, v): the
// corrected quarter codes (stitch_math.h, the C reference's photo_apply). Not
// inlined, values in and out: the paths without photometric tables keep their
// registers.
__device__ __noinline__ int3 photo_rgb(const unsigned short *out, const float *photo, float u,
                                       float v, int q0, int q1, int q2)
{
    const float vig = stitch_photo_vig(photo, u, v);
    const float *lin = photo + STITCH_PHOTO_VIG;
    return make_int3(stitch_photo_q(__ldg(&lin[q0]), vig, out),
                     stitch_photo_q(__ldg(&lin[STITCH_LUT_SIZE + q1]), vig, out),
                     stitch_photo_q(__ldg(&lin[2 * STITCH_LUT_SIZE + q2]), vig, out));
}

template <bool TEX>
__device__ __forceinline__ void sample_rgb(const stitch_kernel_head &a,
                                           const stitch_kernel_cam &cam, float u, float v, int q[3])
{
    if (TEX) {
        const float4 t = tex2D<float4>(cam.tex0, u + 0.5f, v + 0.5f);
        q[0] = tex_q(t.x);
        q[1] = tex_q(t.y);
        q[2] = tex_q(t.z);
    } else {
        sample_rgb_int(a, cam, u, v, q);
        // photometric RGB stitches take this path only (the host turns textures off)
        if (cam.photo != nullptr) {
            const int3 r = photo_rgb(a.photo_out, cam.photo, u, v, q[0], q[1], q[2]);
            q[0] = r.x;
            q[1] = r.y;
            q[2] = r.z;
        }
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

// fv_round_u8 in color.h
__device__ __forceinline__ unsigned int round_u8(float x)
{
    x = x < 0.0f ? 0.0f : (x > 255.0f ? 255.0f : x);
    return (unsigned int)round_rne(x);
}

// ---- interior tiles, texture path ----
// A tile the camera sees whole needs no seen tests, so in the texture path its
// positions need not be bit-identical to the reference's either (the texture
// unit quantises them to 1/256 pixel anyway): they are interpolated with
// multiply-adds, the texel-center offset folded in, and quarter codes rounded
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

} // namespace

#endif
