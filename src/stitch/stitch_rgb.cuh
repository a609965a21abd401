/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Stitch kernels (stitch.cu): the RGB(A) inputs' kernel, an RGBA panorama.
#ifndef FOVEA_STITCH_RGB_CUH
#define FOVEA_STITCH_RGB_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "stitch/stitch_cuda.h"
#include "stitch/stitch_block.cuh"
#include "stitch/stitch_sample.cuh"
#include "stitch/stitch_stats.cuh"

namespace
{

// One blended RGBA pixel from each camera's weight and sample (quarter codes;
// cameras with weight 0 are skipped), adding the pixel's pair statistics on
// analysis frames to sh_stats (the thread's or block's counters, see STAT_ACC).
template <int MAXC, bool STATS>
__device__ __forceinline__ unsigned int combine_rgb(const kargs<MAXC> &a, const float (&w)[MAXC],
                                                    const int (&q)[MAXC][3],
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

// A single-camera tile's pixels i0..i0+3 of rows j0 .. j0 + ROWS - 1 (RGB; ROWS
// 2, or 1 for a tile made by two blocks): weight 1, so each output is the
// camera's corrected sample (8-bit tables lut8 in shared memory). CHECK = false
// for interior tiles (every pixel seen).
template <bool TEX, bool CHECK, int ROWS = 2>
__device__ __forceinline__ void single_rgb(const stitch_kernel_head &a,
                                           const stitch_kernel_cam &cam, const uint8_t *lut8,
                                           int i0, int j0)
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
template <int MAXC, bool STATS, bool TEX>
__global__ void __launch_bounds__(256, MAXC <= 2 ? (STATS ? 2 : 4) : 1)
    stitch_rgb_kernel(const kargs<MAXC> a)
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
                            sample_rgb<TEX>(a, a.cam[c], use ? u[c][k] : 0.0f, use ? v[c][k] : 0.0f,
                                            q[g][c]);
                        } else if (w[k][c] > 0.0f) {
                            sample_rgb<TEX>(a, a.cam[c], u[c][k], v[c][k], q[g][c]);
                        }
                    }
#pragma unroll
                for (int g = 0; g < G; g++) {
                    const int k = k0 + g;
                    px[k] = ok[k] ? combine_rgb<MAXC, STATS>(a, w[k], q[g],
                                                             STAT_ACC(MAXC, own, sh_stats))
                                  : 0u;
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

} // namespace

#endif
