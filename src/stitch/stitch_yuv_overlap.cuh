/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Stitch kernels (stitch.cu): the YUV kernel's tiles that blend cameras: the
// texture path (overlap_yuv_tex), the row path (up to 4 cameras) and the
// pixel path (overlap_yuv_rows, overlap_yuv_pixels), chosen by overlap_yuv.
#ifndef FOVEA_STITCH_YUV_OVERLAP_CUH
#define FOVEA_STITCH_YUV_OVERLAP_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "stitch/stitch_cuda.h"
#include "stitch/stitch_block.cuh"
#include "stitch/stitch_chroma.cuh"
#include "stitch/stitch_sample.cuh"
#include "stitch/stitch_stats.cuh"

namespace
{

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

// The end of overlap_yuv_tex: the blended luma pixels (black where no camera
// weights them) and the chroma pixels (mid-gray where none does), stored.
template <int MAXC, int NB>
__device__ __forceinline__ void store_overlap_tex(const kargs<MAXC> &a, int i0, int j0, int bx0,
                                                  int by, const float (&acc)[2][2 * NB],
                                                  unsigned int ok, const float (&accu)[NB],
                                                  const float (&accv)[NB], const float (&wsum)[NB])
{
    constexpr int K = 2 * NB; // luma pixels per row
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
__device__ __forceinline__ void overlap_yuv_tex(const kargs<MAXC> &a, int tile_y, const float *tw,
                                                uint32_t wmask, int bx0, int by, bool nv12)
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
    store_overlap_tex<MAXC, NB>(a, i0, j0, bx0, by, acc, ok, accu, accv, wsum);
}

// overlap_yuv's row path (up to 4 cameras): per camera c and 2x2 block b of
// the thread's pair, the sums of the weights, positions and raw luma of the
// pixels c is weighted in (cn of them) that the block's chroma takes, and the
// pixels of each block inside the panorama.
template <int MAXC> struct yuv_pair_sums {
    float cwt[MAXC][2], cu[MAXC][2], cv[MAXC][2];
    int cn[MAXC][2], ysum[MAXC][2];
    int pixels[2];
};

// The row path's luma row j (row r of the tile's weight table, row dy of the
// pair's two): every weighted camera's weights (table) and positions (grid)
// for the four pixels i0 .. i0 + 3, every camera's luma samples of the four
// at once (their latencies overlap), then the luma blends and the sums of
// each block. Statistics: each pixel's weights and raw luma in pw[dy], ps[dy],
// seen pixels in pseen (bit 4 * dy + k), added with the block's chroma once it
// is known (see stitch_yuv_block in stitch_ref.c).
template <int MAXC, bool STATS, bool TEX>
__device__ __forceinline__ void overlap_yuv_row(const kargs<MAXC> &a, const float *tw,
                                                uint32_t wmask, int i0, int j, int r, int col,
                                                int dy, yuv_pair_sums<MAXC> &sum,
                                                float (&pw)[STATS ? 2 : 1][4][MAXC],
                                                int (&ps)[STATS ? 2 : 1][4][MAXC],
                                                unsigned int &pseen)
{
    float u[MAXC][4], v[MAXC][4], w[4][MAXC];
    bool ok[4];
    table_row<MAXC>(a, tw, wmask, i0, j, r, col, u, v, w, ok);
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
                s[k][c] = sample_luma<TEX>(a.cam[c], use ? u[c][k] : 0.0f, use ? v[c][k] : 0.0f);
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
        sum.pixels[b]++;
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
            sum.cwt[c][b] += w[k][c];
            sum.cu[c][b] += u[c][k];
            sum.cv[c][b] += v[c][k];
            sum.cn[c][b] += 1;
            sum.ysum[c][b] += s[k][c];
        }
        orow[i0 + k] = (uint8_t)round_u8(acc);
        if (STATS)
            pseen |= 1u << (4 * dy + k);
    }
}

// The row path's two chroma pixels from the sums: every camera's chroma
// samples of both blocks at once (qu, qv per block and camera, which the
// statistics take too), then their blends.
template <int MAXC, bool TEX>
__device__ __forceinline__ void overlap_yuv_chroma(const kargs<MAXC> &a, int bx0, int by,
                                                   int cw_out, bool nv12,
                                                   const yuv_pair_sums<MAXC> &sum,
                                                   int (&qu)[2][MAXC], int (&qv)[2][MAXC])
{
    float wc[MAXC][2];
#pragma unroll
    for (int b = 0; b < 2; b++)
#pragma unroll
        for (int c = 0; c < MAXC; c++) {
            wc[c][b] = 0.0f;
            qu[b][c] = qv[b][c] = 0;
            if (sum.cn[c][b] == 0 || bx0 + b >= cw_out)
                continue;
            float x, y;
            chroma_pos(a.cam[c], sum.cwt[c][b], sum.cu[c][b], sum.cv[c][b], sum.cn[c][b],
                       sum.pixels[b], wc[c][b], x, y);
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
            if (sum.cn[c][b] == 0)
                continue;
            float su, sv;
            chroma_value(a.cam[c], stitch_chroma_index(sum.ysum[c][b], sum.cn[c][b]), qu[b][c],
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
}

// overlap_yuv with up to 4 cameras (by, bx0 inside the chroma plane), row by
// row: the luma rows (overlap_yuv_row), the chroma (overlap_yuv_chroma), the
// statistics.
template <int MAXC, bool STATS, bool TEX>
__device__ __forceinline__ void overlap_yuv_rows(const kargs<MAXC> &a, int2 tile, uint32_t wmask,
                                                 int bx0, int by, bool nv12,
                                                 unsigned long long *own,
                                                 unsigned long long *sh_stats)
{
    const int cw_out = (a.pano_w + 1) >> 1;
    const int i0 = 2 * bx0, j0 = 2 * by; // luma
    const float *tw = tile_table(a, tile.y * a.tiles_x + tile.x);
    const int col = 4 * threadIdx.x, r0 = j0 - STITCH_TILE_H * tile.y;
    yuv_pair_sums<MAXC> sum;
#pragma unroll
    for (int c = 0; c < MAXC; c++)
#pragma unroll
        for (int b = 0; b < 2; b++) {
            sum.cwt[c][b] = sum.cu[c][b] = sum.cv[c][b] = 0.0f;
            sum.cn[c][b] = sum.ysum[c][b] = 0;
        }
    sum.pixels[0] = sum.pixels[1] = 0;
    float pw[STATS ? 2 : 1][4][MAXC];
    int ps[STATS ? 2 : 1][4][MAXC];
    unsigned int pseen = 0; // bit 4 * dy + k
#pragma unroll 1
    for (int dy = 0; dy < 2; dy++) {
        const int j = j0 + dy;
        if (j >= a.pano_h)
            break;
        overlap_yuv_row<MAXC, STATS, TEX>(a, tw, wmask, i0, j, r0 + dy, col, dy, sum, pw, ps,
                                          pseen);
    }
    int qu[2][MAXC], qv[2][MAXC]; // per block, per camera
    overlap_yuv_chroma<MAXC, TEX>(a, bx0, by, cw_out, nv12, sum, qu, qv);
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
}

// overlap_yuv_pixels' luma of the 2x2 block bx, by, pixel by pixel: the blends,
// and per camera the sums of weights, positions and raw luma of the pixels it
// is weighted in (cn of them) that the block's chroma takes, pixels the
// block's pixels inside the panorama. Statistics: each pixel's weights and raw
// luma in pw, ps, seen pixels in pseen (bit 2 * dy + dx).
template <int MAXC, bool STATS, bool TEX>
__device__ __forceinline__ void overlap_yuv_block_luma(
    const kargs<MAXC> &a, int2 tile, const float *tw, uint32_t wmask, int bx, int by,
    float (&cwt)[MAXC], float (&cu)[MAXC], float (&cv)[MAXC], int (&cn)[MAXC], int (&ysum)[MAXC],
    int &pixels, float (&pw)[STATS ? 4 : 1][MAXC], int (&ps)[STATS ? 4 : 1][MAXC],
    unsigned int &pseen)
{
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
            if (wmask == 0 || !table_pixel<MAXC>(a, tw, wmask, i, j,
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
}

// overlap_yuv with many cameras (by, bx0 inside the chroma plane): block by
// block, pixel by pixel (overlap_yuv_block_luma), then the block's chroma and
// statistics.
template <int MAXC, bool STATS, bool TEX>
__device__ __forceinline__ void overlap_yuv_pixels(const kargs<MAXC> &a, int2 tile, uint32_t wmask,
                                                   int bx0, int by, bool nv12,
                                                   unsigned long long *own,
                                                   unsigned long long *sh_stats)
{
    const int cw_out = (a.pano_w + 1) >> 1;
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
        float pw[STATS ? 4 : 1][MAXC];
        int ps[STATS ? 4 : 1][MAXC];
        unsigned int pseen = 0;
        int pixels = 0;
        overlap_yuv_block_luma<MAXC, STATS, TEX>(a, tile, tw, wmask, bx, by, cwt, cu, cv, cn, ysum,
                                                 pixels, pw, ps, pseen);
        float accu = 0.0f, accv = 0.0f, wsum = 0.0f;
        int qu[MAXC], qv[MAXC];
#pragma unroll
        for (int c = 0; c < MAXC; c++) {
            qu[c] = qv[c] = 0;
            if (cn[c] == 0)
                continue;
            float wc, su, sv;
            block_chroma<TEX>(a.cam[c], nv12, cwt[c], cu[c], cv[c], cn[c], ysum[c], pixels, wc, su,
                              sv, qu[c], qv[c]);
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

// The 4x2 luma pixels and two chroma pixels of chroma row by, columns bx0,
// bx0 + 1 of a tile that is not a single-camera tile (YUV). own, sh_stats: the
// statistics counters (see STAT_ACC).
template <int MAXC, bool STATS, bool TEX>
__device__ __forceinline__ void overlap_yuv(const kargs<MAXC> &a, int2 tile, uint32_t wmask,
                                            int bx0, int by, bool nv12, unsigned long long *own,
                                            unsigned long long *sh_stats)
{
    const int cw_out = (a.pano_w + 1) >> 1, ch_out = (a.pano_h + 1) >> 1;
    // (the texture path with grid steps >= 4 and no statistics: overlap_yuv_tex)
    if (MAXC <= 4 && by < ch_out && bx0 < cw_out)
        overlap_yuv_rows<MAXC, STATS, TEX>(a, tile, wmask, bx0, by, nv12, own, sh_stats);
    else if (by < ch_out && bx0 < cw_out)
        overlap_yuv_pixels<MAXC, STATS, TEX>(a, tile, wmask, bx0, by, nv12, own, sh_stats);
}

} // namespace

#endif
