/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Stitch kernels: one pass per frame. Each thread produces 4 horizontally adjacent
// panorama pixels (RGB: one 16-byte store) or a 4x2 luma block with its 2x1 chroma
// (YUV). Remap coordinates come from the coarse per-camera grid interpolated here.
// Tiles one camera sees need no weights (weight 1); overlap tiles read theirs from
// a per-tile table the host fills from the reference. Tiles only touch the
// cameras their mask names. The arithmetic
// mirrors src/stitch/map.c and stitch_ref.c operation for operation; this file is
// compiled with --fmad=false so no multiply-add is contracted and results match
// the C reference bit for bit.
//
// The kernels live in parts by job (stitch_sample, stitch_stats, stitch_block,
// stitch_rgb, stitch_yuv .cuh), all compiled here: this file holds the launchers.
#include <cuda_runtime.h>
#include <stdint.h>

#include "stitch/stitch_cuda.h"
#include "stitch/stitch_rgb.cuh"
#include "stitch/stitch_yuv.cuh"

namespace
{

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
    if (!stitch_input_is_yuv(k.in_format))
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
    if (!stitch_input_is_yuv(k.in_format))
        stitch_rgb_kernel<MAXC, true, TEX><<<stats_grid, block, stats_shmem, stream>>>(k);
    else
        stitch_yuv_kernel<MAXC, true, TEX><<<stats_grid, yuv_block, stats_shmem, stream>>>(k);
    return cudaGetLastError();
}

template <bool TEX> cudaError_t launch_tex(const stitch_kernel_args *a, cudaStream_t s)
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

extern "C" int fv_stitch_launch(const stitch_kernel_args *a, void *stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    return (int)(a->h.use_tex ? launch_tex<true>(a, s) : launch_tex<false>(a, s));
}
