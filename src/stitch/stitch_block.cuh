/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Stitch kernels (stitch.cu): what a thread block makes (its tile, mask and
// part) and a single-camera tile's 8-bit tables in shared memory.
#ifndef FOVEA_STITCH_BLOCK_CUH
#define FOVEA_STITCH_BLOCK_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "stitch/stitch_cuda.h"

namespace
{

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

// The tile a block makes: its place in the grid, or on the statistics pass
// (launched over the list of the tiles that weight two cameras or more: no
// other tile holds a pair) that list's entry.
template <bool STATS> __device__ __forceinline__ int2 block_tile(const stitch_kernel_head &a)
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

} // namespace

#endif
