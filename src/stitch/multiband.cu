/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Multi-band blending kernels: pyramid.c's loops, one thread per output value,
// over pyramid_math.h's integer arithmetic (so the same numbers as the C
// reference), and the seam's reduced difference map. Every camera's pyramid
// (each piece's box of it, and the feathered panorama's) is built by the same
// launches (one tile grid over the jobs' boxes, pyramid.h's plan); the blend of a level reads all
// cameras' Laplacians at once and keeps pyramid.c's three sums in registers
// (integer sums: the order does not matter), writing the blended Laplacian
// once. The vertical pass of EXPAND is fused into the kernels that
// use the expansion (blend, collapse): the same sums, no expanded level in
// memory.
#include <cuda_runtime.h>
#include <stdint.h>

#include "stitch/multiband_cuda.h"
#include "stitch/pyramid_math.h"

namespace
{

const dim3 kBlock(32, 8);

dim3 grid_for(int w, int h)
{
    return dim3((unsigned int)(w + 31) / 32, (unsigned int)(h + 7) / 8);
}

__device__ __forceinline__ int luma_at(const uint8_t *row, int x, int rgba)
{
    return rgba ? (row[4 * x] + 2 * row[4 * x + 1] + row[4 * x + 2] + 2) >> 2 : row[x];
}

__global__ void seam_diffs_kernel(mb_planes pl, int rgba, int w, int h, const uint32_t *cells,
                                  int ncells, int32_t *diffs)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ncells)
        return;
    const uint32_t cams = cells[2 * i], pos = cells[2 * i + 1];
    const int a = (int)(cams & 0xffu), b = (int)(cams >> 8 & 0xffu);
    const int cx = (int)(pos & 0xffffu), cy = (int)(pos >> 16);
    int32_t d = 0;
    for (int y = cy * MB_SEAM_CELL; y < (cy + 1) * MB_SEAM_CELL && y < h; y++) {
        const uint8_t *ra = pl.p[a] + (ptrdiff_t)y * pl.stride[a];
        const uint8_t *rb = pl.p[b] + (ptrdiff_t)y * pl.stride[b];
        for (int x = cx * MB_SEAM_CELL; x < (cx + 1) * MB_SEAM_CELL && x < w; x++) {
            const int e = luma_at(ra, x, rgba) - luma_at(rb, x, rgba);
            d += e < 0 ? -e : e;
        }
    }
    diffs[i] = d;
}

__global__ void mask0_kernel(const uint8_t *label, int w, int h, int c, int16_t *mask)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    const size_t p = (size_t)y * (size_t)w + (size_t)x;
    mask[p] = label[p] == c ? PYR_ONE : 0;
}

__global__ void chroma_mask_kernel(const int16_t *m, int w, int h, int16_t *cm, int cw, int ch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cw || y >= ch)
        return;
    int sum = 0;
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++)
            sum +=
                m[(size_t)pyr_clamp(2 * y + dy, h) * (size_t)w + (size_t)pyr_clamp(2 * x + dx, w)];
    cm[(size_t)y * (size_t)cw + (size_t)x] = (int16_t)((sum + 2) >> 2);
}

__global__ void fill_unseen_kernel(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                                   ptrdiff_t src_stride, const uint8_t *seen, int w, mb_box b,
                                   int bpp)
{
    const int x = b.x0 + (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = b.y0 + (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= b.x1 || y >= b.y1 || seen[(size_t)y * (size_t)w + (size_t)x])
        return;
    for (int k = 0; k < bpp; k++)
        dst[(ptrdiff_t)y * dst_stride + (ptrdiff_t)x * bpp + k] =
            src[(ptrdiff_t)y * src_stride + (ptrdiff_t)x * bpp + k];
}

// A batch of boxes on a one-dimensional grid of 32x8 tiles: job j owns the
// blocks start[j] .. start[j + 1] - 1, tiles[j] tiles across (no idle blocks
// when the boxes differ in size, as F's band and a camera's box do).
struct tiled_jobs {
    mb_jobs j;
    int start[MB_MAXJ + 1];
    int tiles[MB_MAXJ];
};

// The position of this thread in its job's box; false outside it.
__device__ __forceinline__ bool job_xy(const tiled_jobs &t, int *x, int *y, int *slot)
{
    const int blk = (int)blockIdx.x;
    int i = 0;
    while (i + 1 < t.j.count && blk >= t.start[i + 1])
        i++;
    const int local = blk - t.start[i];
    const mb_box b = t.j.b[i];
    *x = b.x0 + (local % t.tiles[i]) * (int)blockDim.x + (int)threadIdx.x;
    *y = b.y0 + (local / t.tiles[i]) * (int)blockDim.y + (int)threadIdx.y;
    *slot = t.j.slot[i];
    return *x < b.x1 && *y < b.y1;
}

__global__ void load_kernel(mb_planes src, int step, int w, tiled_jobs jobs, int16_t *dst,
                            size_t bstride)
{
    int x, y, z;
    if (!job_xy(jobs, &x, &y, &z))
        return;
    dst[bstride * z + (size_t)y * (size_t)w + (size_t)x] =
        (int16_t)(src.p[z][(ptrdiff_t)y * src.stride[z] + (ptrdiff_t)x * step] << PYR_FRAC);
}

// REDUCE, horizontal: tmp(y, x) = sum_t tap(t) src(y, 2x + t)
__global__ void reduce_h_kernel(const int16_t *s, int sw, int32_t *d, int dw, size_t bstride,
                                size_t tmp_bstride, tiled_jobs jobs)
{
    int x, y, z;
    if (!job_xy(jobs, &x, &y, &z))
        return;
    const int16_t *r = s + bstride * z + (size_t)y * (size_t)sw;
    int32_t acc = 0;
    for (int t = -2; t <= 2; t++)
        acc += pyr_tap(t) * r[pyr_clamp(2 * x + t, sw)];
    d[tmp_bstride * z + (size_t)y * (size_t)dw + (size_t)x] = acc;
}

// REDUCE, vertical: dst(y, x) = (sum_t tap(t) tmp(2y + t, x) + 128) >> 8
__global__ void reduce_v_kernel(const int32_t *s, int dw, int sh, int16_t *d, size_t bstride,
                                size_t tmp_bstride, tiled_jobs jobs)
{
    int x, y, z;
    if (!job_xy(jobs, &x, &y, &z))
        return;
    const int32_t *t0 = s + tmp_bstride * z;
    int32_t acc = 0;
    for (int t = -2; t <= 2; t++)
        acc += pyr_tap(t) * t0[(size_t)pyr_clamp(2 * y + t, sh) * (size_t)dw + (size_t)x];
    d[bstride * z + (size_t)y * (size_t)dw + (size_t)x] = (int16_t)((acc + 128) >> 8);
}

// EXPAND, horizontal: tmp(y, x) = sum_k wt_k src(y, idx_k(x))
__global__ void expand_h_kernel(const int16_t *s, int sw, int32_t *d, int dw, size_t bstride,
                                size_t tmp_bstride, tiled_jobs jobs)
{
    int x, y, z;
    if (!job_xy(jobs, &x, &y, &z))
        return;
    const int16_t *r = s + bstride * z + (size_t)y * (size_t)sw;
    int idx[3], wt[3];
    pyr_expand_taps(x, sw, idx, wt);
    d[tmp_bstride * z + (size_t)y * (size_t)dw + (size_t)x] =
        wt[0] * r[idx[0]] + wt[1] * r[idx[1]] + wt[2] * r[idx[2]];
}

// EXPAND, vertical, of one value: (sum_k wt_k tmp(idx_k(y), x) + 32) >> 6
__device__ __forceinline__ int32_t expand_v_at(const int32_t *tmp, int w, int ch, int x, int y)
{
    int idx[3], wt[3];
    pyr_expand_taps(y, ch, idx, wt);
    return (wt[0] * tmp[(size_t)idx[0] * (size_t)w + (size_t)x] +
            wt[1] * tmp[(size_t)idx[1] * (size_t)w + (size_t)x] +
            wt[2] * tmp[(size_t)idx[2] * (size_t)w + (size_t)x] + 32) >>
           6;
}

// The blended Laplacian of one sample over the n cameras (pyramid.c's
// restricted blend, the sums in registers): the pieces holding the sample
// add their camera's terms, every other camera adds F's Laplacian (slot n)
// to the sum with a zero mask.
__global__ void blend_level_kernel(const int16_t *g, size_t g_bstride, const int32_t *tmp,
                                   size_t tmp_bstride, int w, int ch, mb_masks masks, int n,
                                   mb_jobs pieces, mb_box b, int16_t *lap)
{
    const int x = b.x0 + (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = b.y0 + (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= b.x1 || y >= b.y1)
        return;
    const size_t o = (size_t)y * (size_t)w + (size_t)x;
    const int32_t lapf =
        g[g_bstride * n + o] - (tmp ? expand_v_at(tmp + tmp_bstride * n, w, ch, x, y) : 0);
    int32_t num = 0, den = 0, sum = 0, held = 0;
    for (int i = 0; i < pieces.count; i++) {
        const mb_box p = pieces.b[i];
        if (x < p.x0 || x >= p.x1 || y < p.y0 || y >= p.y1)
            continue;
        const int c = pieces.slot[i];
        const int32_t l =
            g[g_bstride * c + o] - (tmp ? expand_v_at(tmp + tmp_bstride * c, w, ch, x, y) : 0);
        const int32_t m = masks.m[c][o];
        num += m * l;
        den += m;
        sum += l;
        held++;
    }
    sum += (n - held) * lapf;
    lap[o] = (int16_t)(den > 0 ? pyr_div_round(num, den) : pyr_div_round(sum, n));
}

__global__ void collapse_kernel(int16_t *lap, const int32_t *tmp, int w, int ch, mb_box b)
{
    const int x = b.x0 + (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = b.y0 + (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= b.x1 || y >= b.y1)
        return;
    const size_t o = (size_t)y * (size_t)w + (size_t)x;
    lap[o] = (int16_t)pyr_clamp_level(lap[o] + (tmp ? expand_v_at(tmp, w, ch, x, y) : 0));
}

__global__ void store_kernel(const int16_t *g, int w, const uint8_t *covered, uint8_t *dst,
                             ptrdiff_t stride, int step, mb_box b)
{
    const int x = b.x0 + (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = b.y0 + (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= b.x1 || y >= b.y1)
        return;
    const size_t o = (size_t)y * (size_t)w + (size_t)x;
    if (covered[o])
        dst[(ptrdiff_t)y * stride + (ptrdiff_t)x * step] = (uint8_t)pyr_to_u8(g[o]);
}

bool box_empty(const mb_box &b)
{
    return b.x0 >= b.x1 || b.y0 >= b.y1;
}

dim3 grid_box(const mb_box &b)
{
    return grid_for(b.x1 - b.x0, b.y1 - b.y0);
}

// The one-dimensional grid of a batch, empty jobs dropped (false: nothing to
// launch).
bool grid_jobs(const mb_jobs *in, tiled_jobs *out, dim3 *grid)
{
    int blocks = 0;
    out->j.count = 0;
    for (int i = 0; i < in->count; i++) {
        const mb_box b = in->b[i];
        if (box_empty(b))
            continue;
        const int n = out->j.count++;
        out->j.b[n] = b;
        out->j.slot[n] = in->slot[i];
        out->tiles[n] = (b.x1 - b.x0 + 31) / 32;
        out->start[n] = blocks;
        blocks += out->tiles[n] * ((b.y1 - b.y0 + 7) / 8);
    }
    out->start[out->j.count] = blocks;
    *grid = dim3((unsigned int)blocks, 1, 1);
    return blocks > 0;
}

} // namespace

extern "C" int fv_mb_seam_diffs(const mb_planes *pl, int rgba, int w, int h, const uint32_t *cells,
                                int ncells, int32_t *diffs, void *stream)
{
    if (ncells <= 0)
        return cudaSuccess;
    seam_diffs_kernel<<<(unsigned int)(ncells + 127) / 128, 128, 0, (cudaStream_t)stream>>>(
        *pl, rgba, w, h, cells, ncells, diffs);
    return cudaGetLastError();
}

extern "C" int fv_mb_mask0(const uint8_t *label, int w, int h, int c, int16_t *mask, void *stream)
{
    mask0_kernel<<<grid_for(w, h), kBlock, 0, (cudaStream_t)stream>>>(label, w, h, c, mask);
    return cudaGetLastError();
}

extern "C" int fv_mb_chroma_mask(const int16_t *m, int w, int h, int16_t *cm, int cw, int ch,
                                 void *stream)
{
    chroma_mask_kernel<<<grid_for(cw, ch), kBlock, 0, (cudaStream_t)stream>>>(m, w, h, cm, cw, ch);
    return cudaGetLastError();
}

extern "C" int fv_mb_fill_unseen(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                                 ptrdiff_t src_stride, const uint8_t *seen, int w, mb_box b,
                                 int bpp, void *stream)
{
    if (box_empty(b))
        return cudaSuccess;
    fill_unseen_kernel<<<grid_box(b), kBlock, 0, (cudaStream_t)stream>>>(
        dst, dst_stride, src, src_stride, seen, w, b, bpp);
    return cudaGetLastError();
}

extern "C" int fv_mb_load(const mb_planes *src, int step, int w, const mb_jobs *jobs, int16_t *dst,
                          size_t dst_bstride, void *stream)
{
    tiled_jobs j;
    dim3 grid;
    if (!grid_jobs(jobs, &j, &grid))
        return cudaSuccess;
    load_kernel<<<grid, kBlock, 0, (cudaStream_t)stream>>>(*src, step, w, j, dst, dst_bstride);
    return cudaGetLastError();
}

extern "C" int fv_mb_reduce(const int16_t *src, int sw, int sh, int32_t *tmp, int16_t *dst,
                            size_t bstride, size_t tmp_bstride, const mb_jobs *jobs, void *stream)
{
    const int dw = pyr_half(sw);
    // the horizontal pass on the rows 2y - 2 .. 2y + 2 of the boxes' rows
    mb_jobs hj = *jobs;
    tiled_jobs vj, hjj;
    for (int i = 0; i < hj.count; i++) {
        const int y0 = 2 * jobs->b[i].y0 - 2, y1 = 2 * jobs->b[i].y1 + 1;
        hj.b[i].y0 = y0 < 0 ? 0 : y0;
        hj.b[i].y1 = y1 > sh ? sh : y1;
        if (box_empty(jobs->b[i]))
            hj.b[i].y1 = hj.b[i].y0;
    }
    dim3 gh, gv;
    if (!grid_jobs(jobs, &vj, &gv) || !grid_jobs(&hj, &hjj, &gh))
        return cudaSuccess;
    reduce_h_kernel<<<gh, kBlock, 0, (cudaStream_t)stream>>>(src, sw, tmp, dw, bstride, tmp_bstride,
                                                             hjj);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return e;
    reduce_v_kernel<<<gv, kBlock, 0, (cudaStream_t)stream>>>(tmp, dw, sh, dst, bstride, tmp_bstride,
                                                             vj);
    return cudaGetLastError();
}

extern "C" int fv_mb_expand_h(const int16_t *src, int sw, int sh, int32_t *tmp, int dw,
                              size_t bstride, size_t tmp_bstride, const mb_jobs *jobs, void *stream)
{
    // the rows y / 2 - 1 .. (y - 1) / 2 + 1 of the level above
    mb_jobs hj = *jobs;
    tiled_jobs j;
    for (int i = 0; i < hj.count; i++) {
        const int y0 = (jobs->b[i].y0 >> 1) - 1, y1 = ((jobs->b[i].y1 - 1) >> 1) + 2;
        hj.b[i].y0 = y0 < 0 ? 0 : y0;
        hj.b[i].y1 = y1 > sh ? sh : y1;
        if (box_empty(jobs->b[i]))
            hj.b[i].y1 = hj.b[i].y0;
    }
    dim3 grid;
    if (!grid_jobs(&hj, &j, &grid))
        return cudaSuccess;
    expand_h_kernel<<<grid, kBlock, 0, (cudaStream_t)stream>>>(src, sw, tmp, dw, bstride,
                                                               tmp_bstride, j);
    return cudaGetLastError();
}

extern "C" int fv_mb_blend_level(const int16_t *g, size_t g_bstride, const int32_t *tmp,
                                 size_t tmp_bstride, int w, int ch, const mb_masks *masks, int n,
                                 const mb_jobs *pieces, mb_box b, int16_t *lap, void *stream)
{
    if (box_empty(b))
        return cudaSuccess;
    mb_jobs p;
    p.count = 0;
    for (int i = 0; i < pieces->count; i++)
        if (!box_empty(pieces->b[i])) {
            p.b[p.count] = pieces->b[i];
            p.slot[p.count++] = pieces->slot[i];
        }
    blend_level_kernel<<<grid_box(b), kBlock, 0, (cudaStream_t)stream>>>(
        g, g_bstride, tmp, tmp_bstride, w, ch, *masks, n, p, b, lap);
    return cudaGetLastError();
}

extern "C" int fv_mb_collapse(int16_t *lap, const int32_t *tmp, int w, int ch, mb_box b,
                              void *stream)
{
    if (box_empty(b))
        return cudaSuccess;
    collapse_kernel<<<grid_box(b), kBlock, 0, (cudaStream_t)stream>>>(lap, tmp, w, ch, b);
    return cudaGetLastError();
}

extern "C" int fv_mb_store(const int16_t *g, int w, const uint8_t *covered, uint8_t *dst,
                           ptrdiff_t stride, int step, mb_box b, void *stream)
{
    if (box_empty(b))
        return cudaSuccess;
    store_kernel<<<grid_box(b), kBlock, 0, (cudaStream_t)stream>>>(g, w, covered, dst, stride, step,
                                                                   b);
    return cudaGetLastError();
}
