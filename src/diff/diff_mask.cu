/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Change mask and histogram kernels (docs/diff.md; diff_ref.c the reference
// they match). The change mask: blocks own up to 128 px of one tile row, take
// their place from a ticket and compact the list of changed tiles with a
// decoupled look-back.
#include <cuda_runtime.h>
#include <stdint.h>

#include "diff/changed.h"
#include "diff/diff_mask_cuda.h"
#include "diff/diff_sample.cuh"

namespace
{

constexpr int kMaskThreads = 32 * kRowsPerBlock;
constexpr unsigned kLookAggregate = 1, kLookPrefix = 2;
// Look-back words a lane reads a round: 128 predecessors a round, so a block
// of the first wave (all of whose predecessors start with it) finds a prefix
// in a few rounds.
constexpr int kLookPer = 4;

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
        unsigned val = 0;    // its entries up to its nearest prefix
        int near = kLookPer; // that prefix (kLookPer: none)
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
} // namespace

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
    default: k_mask<DIFF_CUDA_READ_ANY><<<(unsigned)a->blocks, block, 0, s>>>(*a); break;
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
