/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Stitch kernels (stitch.cu): the YUV (NV12, I420) inputs' kernel, an I420
// panorama: single-camera tiles here (interior_yuv_tex, single_yuv), tiles
// that blend cameras in stitch_yuv_overlap.cuh, chroma helpers in
// stitch_chroma.cuh.
#ifndef FOVEA_STITCH_YUV_CUH
#define FOVEA_STITCH_YUV_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "stitch/stitch_cuda.h"
#include "stitch/stitch_block.cuh"
#include "stitch/stitch_chroma.cuh"
#include "stitch/stitch_sample.cuh"
#include "stitch/stitch_stats.cuh"
#include "stitch/stitch_yuv_overlap.cuh"

namespace
{

// An interior tile's 4x4 luma pixels (rows 2 * by0 .. 2 * by0 + 3, by0 even)
// and their chroma pixels (rows by0, by0 + 1, columns bx0, bx0 + 1), YUV,
// texture path. With a grid step >= 4 the sixteen pixels lie in one cell.
// Chroma: the reference samples each 2x2 block's chroma at the mean of its four
// positions, clamped to the chroma plane, i.e. at texture coordinate half the
// mean luma texture coordinate; bilinear interpolation in one cell makes that
// mean the position at the block's center, so it is interpolated there directly
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
    // chroma texture coordinates: half the luma ones at the blocks' centers
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

// A single-camera tile's 4x2 luma pixels and two chroma pixels of chroma row
// by, columns bx0, bx0 + 1 (YUV): weight 1, the same operations as the overlap
// path with w = 1 (luma table lut8 in shared memory). CHECK = false for
// interior tiles (every pixel seen).
template <bool TEX, bool CHECK>
__device__ __forceinline__ void single_yuv(const stitch_kernel_head &a,
                                           const stitch_kernel_cam &cam, const uint8_t *lut8,
                                           int bx0, int by, bool nv12)
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
    const int by0 =
        (tile.y * (int)blockDim.y + (int)threadIdx.y) * R; // chroma rows by0 .. by0 + R - 1
    const uint32_t seen_mask = mask & 0xffffu, wmask = mask >> 16;
    const bool nv12 = a.in_format == STITCH_IN_NV12;
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

} // namespace

#endif
