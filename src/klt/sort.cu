/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// KLT's quicksort on the GPU (why and how: sort_cuda.h): the partition
// levels of the long segments across the blocks of one cooperative grid, then
// the short segments, one block each, their last small parts one warp each.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "klt/sort_common.cuh"
#include "klt/sort_small.cuh"

namespace cg = cooperative_groups;

namespace
{

// Everything runs in one cooperative launch (qs_run_kernel): per level of the
// long segments three grid-wide barriers (after the tile counts, after the
// ranks, after the moves). A level of at most 32 segments (the usual case:
// the few segments that hold the prefix) is planned by every block for
// itself right after the barrier, a segment of at most 32 tiles has its tile
// offsets summed by every block of it from the tile counts: no fence,
// counter or last block on the path between the barriers. Wider levels and
// longer segments have them made once, in global memory (plan: block 0 and
// one more barrier; offsets: the block that counts the segment's last tile).

// Counters and lists written by other blocks in this launch: read at L2.
__device__ __forceinline__ int ld_cg(const int *p)
{
    return __ldcg(p);
}

// Grid-wide barrier (a one-block grid: the block's; such a grid is launched
// without the cooperative attribute when the device has none).
__device__ __forceinline__ void qs_grid_sync()
{
    if (gridDim.x > 1)
        cg::this_grid().sync();
    else
        __syncthreads();
}

// a'[k] of the segment at src + lo of length n
__device__ __forceinline__ int2 qs_elem(const int2 *src, int n, int k)
{
    const int h = n >> 1;
    return src[k == 0 ? h : k == h ? 0 : k];
}

__device__ __forceinline__ void qs_push(int *list, int *count, int lo, int n, int buf)
{
    const int i = atomicAdd(count, 1);
    reinterpret_cast<int2 *>(list)[i] = make_int2(lo, n | (buf << kQsBufBit));
}

// Where a segment of the array in buffer buf goes next.
__device__ void qs_classify(const klt_cuda_qs &q, int next, int lo, int n, int buf, int nabove)
{
    if (n <= 1 || lo >= nabove)
        return; // final (written to qa by whoever placed it), or never read
    if (lo >= q.kcap)
        qs_push(q.defer, q.ctr + KLT_QS_NDEFER, lo, n, buf);
    else if (n <= KLT_CUDA_QS_SMALL)
        qs_push(q.small, q.ctr + KLT_QS_NSMALL, lo, n, buf);
    else
        qs_push(q.list[next], q.ctr + next, lo, n, buf);
}

__global__ void qs_pack_kernel(const int *__restrict__ keys, const unsigned *__restrict__ pix,
                               int2 *__restrict__ qa, int n, int min_eig, int *nabove)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int above = 0;
    if (i < n) {
        qa[i] = make_int2(keys[i], (int)pix[i]);
        above = keys[i] >= min_eig;
    }
    const int c = __syncthreads_count(above);
    if (threadIdx.x == 0 && c)
        atomicAdd(nabove, c);
}

// One block: the first segments (resets the counters).
__device__ void qs_seed(const klt_cuda_qs &q, int from_defer, int nabove, QsShared &sh)
{
    if (threadIdx.x == 0) {
        sh.carry = from_defer ? ld_cg(q.ctr + KLT_QS_NDEFER) : 0;
        q.ctr[KLT_QS_LIST0] = q.ctr[KLT_QS_LIST1] = 0;
        q.ctr[KLT_QS_NSMALL] = q.ctr[KLT_QS_NDEFER] = 0;
        q.ctr[KLT_QS_NTILES] = q.ctr[KLT_QS_DONE] = 0;
    }
    __syncthreads();
    const int nd = sh.carry;
    if (!from_defer) {
        if (threadIdx.x == 0)
            qs_classify(q, 0, 0, q.n, 0, nabove);
        __syncthreads();
        return;
    }
    // the deferred list is read and appended to in place: chunk by chunk,
    // every read before any push (pushes never outnumber the reads)
    const int2 *d = reinterpret_cast<const int2 *>(q.defer);
    for (int base = 0; base < nd; base += kQsThreads) {
        const int i = base + threadIdx.x;
        int2 sg = make_int2(0, 0);
        if (i < nd)
            sg = __ldcg(d + i);
        __syncthreads();
        if (i < nd)
            qs_classify(q, 0, sg.x, sg.y & kQsLenMask, sg.y >> kQsBufBit, nabove);
        __syncthreads();
    }
}

// One block: tiles of the segments of list cur (consecutive per segment) in
// global memory, for a level of more than kQsLocalSegs segments; clears list
// 1 - cur and the counters of the level.
__device__ void qs_plan(const klt_cuda_qs &q, int cur, QsShared &sh)
{
    const int nseg = ld_cg(q.ctr + cur); // final: the same value in every thread
    const int2 *list = reinterpret_cast<const int2 *>(q.list[cur]);
    if (threadIdx.x == 0)
        sh.carry = 0;
    __syncthreads();
    for (int base = 0; base < nseg; base += kQsThreads) {
        const int i = base + threadIdx.x;
        int nt = 0;
        if (i < nseg)
            nt = ((__ldcg(list + i).y & kQsLenMask) + KLT_CUDA_QS_TILE - 1) / KLT_CUDA_QS_TILE;
        int off, total;
        QsScan(sh.tmp.scan).ExclusiveSum(nt, off, total);
        off += sh.carry;
        if (i < nseg) {
            q.seg_tile0[i] = off;
            q.seg_t[i] = 0;
            q.seg_done[i] = 0;
            if (nseg <= kQsThreads)
                sh.tile0[i] = off;
        }
        __syncthreads();
        if (threadIdx.x == 0)
            sh.carry += total;
        __syncthreads();
    }
    const int ntiles = sh.carry;
    // every segment has >= 2 tiles: seg_tile0 is strictly increasing
    const int *tile0 = nseg <= kQsThreads ? sh.tile0 : q.seg_tile0;
    for (int t = threadIdx.x; t < ntiles; t += kQsThreads) {
        int lo = 0, hi = nseg - 1;
        while (lo < hi) {
            const int mid = (lo + hi + 1) >> 1;
            if (tile0[mid] <= t)
                lo = mid;
            else
                hi = mid - 1;
        }
        q.tile_seg[t] = lo;
        q.tile_first[t] = t - tile0[lo];
    }
    if (threadIdx.x == 0) {
        q.ctr[1 - cur] = 0;
        q.ctr[KLT_QS_NTILES] = ntiles;
        q.ctr[KLT_QS_DONE] = 0;
    }
    __syncthreads();
}

// The plan of the level in list cur (nseg segments), as this block needs it:
// with at most kQsLocalSegs segments made by its first warp in shared memory
// (sh.seg, sh.tile0), else made by block 0 in global memory (qs_plan) with a
// barrier after it. Block 0 also clears what the level accumulates into: the
// next list's counter and the segments' exchange counts. Returns the level's
// tile count.
__device__ int qs_level_plan(const klt_cuda_qs &q, int cur, int nseg, QsShared &sh)
{
    if (nseg > kQsLocalSegs) {
        if (blockIdx.x == 0)
            qs_plan(q, cur, sh);
        qs_grid_sync();
        return ld_cg(q.ctr + KLT_QS_NTILES);
    }
    if (threadIdx.x < 32) {
        const unsigned full = 0xffffffffu;
        const int lane = threadIdx.x;
        int2 sg = make_int2(0, 0);
        int nt = 0;
        if (lane < nseg) {
            sg = __ldcg(reinterpret_cast<const int2 *>(q.list[cur]) + lane);
            nt = ((sg.y & kQsLenMask) + KLT_CUDA_QS_TILE - 1) / KLT_CUDA_QS_TILE;
        }
        int inc = nt;
        for (int o = 1; o < 32; o <<= 1) {
            const int v = __shfl_up_sync(full, inc, o);
            if (lane >= o)
                inc += v;
        }
        if (lane < nseg) {
            sh.seg[lane] = sg;
            sh.tile0[lane] = inc - nt;
            if (blockIdx.x == 0)
                q.seg_t[lane] = 0;
        }
        if (lane == 31)
            sh.ntiles = inc;
        if (blockIdx.x == 0 && lane == 0)
            q.ctr[1 - cur] = 0;
    }
    __syncthreads();
    return sh.ntiles;
}

// Where the partition of segment s (at lo) puts its pivot.
__device__ __forceinline__ int qs_stop(const klt_cuda_qs &q, int s, int lo)
{
    const int nt = q.seg_t[s], nr = q.seg_nr[s];
    const int lt = nt >= 1 ? q.lpos[lo + nt - 1] : 0;
    return nt < nr && q.rpos[lo + nt] > lt ? q.rpos[lo + nt] : lt;
}

// After a level (segment s of list cur, pivot at J): elements placed for good
// in qb (the pivot, a child of one element) are copied to qa, where the
// result is read.
__device__ void qs_final(const klt_cuda_qs &q, int cur, int s)
{
    const int2 sg = reinterpret_cast<const int2 *>(q.list[cur])[s];
    if (sg.y >> kQsBufBit)
        return; // the level wrote to qa
    const int lo = sg.x, n = sg.y & kQsLenMask, J = q.seg_j[s];
    const int2 *b = reinterpret_cast<const int2 *>(q.qb);
    int2 *a = reinterpret_cast<int2 *>(q.qa);
    a[lo + J] = b[lo + J];
    if (J == 1)
        a[lo] = b[lo];
    if (n - J - 1 == 1)
        a[lo + J + 1] = b[lo + J + 1];
}

struct QsTile {
    int t, s, lo, n, buf, k0;
    int first, t0, nt; // the tile's index in its segment, the segment's first tile, tiles
    const int2 *src;
};

// Tile t of the level (nseg segments in list cur, planned by qs_level_plan).
__device__ __forceinline__ QsTile qs_tile(const klt_cuda_qs &q, int cur, int nseg, int t,
                                          const QsShared &sh)
{
    QsTile r;
    int2 sg;
    r.t = t;
    if (nseg <= kQsLocalSegs) {
        int s = 0;
        for (int k = 1; k < nseg; k++)
            if (sh.tile0[k] <= t)
                s = k;
        r.s = s;
        r.t0 = sh.tile0[s];
        sg = sh.seg[s];
    } else {
        r.s = q.tile_seg[t];
        r.t0 = t - q.tile_first[t];
        sg = reinterpret_cast<const int2 *>(q.list[cur])[r.s];
    }
    r.first = t - r.t0;
    r.lo = sg.x;
    r.n = sg.y & kQsLenMask;
    r.nt = (r.n + KLT_CUDA_QS_TILE - 1) / KLT_CUDA_QS_TILE;
    r.buf = sg.y >> kQsBufBit;
    r.k0 = r.first * KLT_CUDA_QS_TILE + threadIdx.x * kQsPer;
    r.src = reinterpret_cast<const int2 *>(r.buf ? q.qb : q.qa) + r.lo;
    return r;
}

// Elements of this thread: values and packed L/R flags; returns the packed
// flags' sum.
__device__ __forceinline__ int qs_flags(const QsTile &T, int2 *e, int *f)
{
    const int p = T.src[T.n >> 1].x;
    int sum = 0;
    for (int i = 0; i < kQsPer; i++) {
        const int k = T.k0 + i;
        f[i] = 0;
        if (k < T.n) {
            e[i] = qs_elem(T.src, T.n, k);
            if (k > 0)
                f[i] = (e[i].x <= p) | ((e[i].x >= p) << 16);
        }
        sum += f[i];
    }
    return sum;
}

// One warp: tile offsets of L (from the left) and R (from the right) of
// segment s, from the tile counts of every block (read at L2).
__device__ void qs_offsets(const klt_cuda_qs &q, int s, int n, int t0, int lane)
{
    const int nt = (n + KLT_CUDA_QS_TILE - 1) / KLT_CUDA_QS_TILE;
    int cl = 0, cr = 0;
    for (int base = 0; base < nt; base += 32) {
        const int i = base + lane;
        const int tl = i < nt ? t0 + i : -1, tr = i < nt ? t0 + nt - 1 - i : -1;
        int vl = tl >= 0 ? ld_cg(q.tile_l + tl) : 0, vr = tr >= 0 ? ld_cg(q.tile_r + tr) : 0;
        int il = vl, ir = vr;
        for (int o = 1; o < 32; o <<= 1) {
            int a = __shfl_up_sync(0xffffffffu, il, o), b = __shfl_up_sync(0xffffffffu, ir, o);
            if (lane >= o) {
                il += a;
                ir += b;
            }
        }
        if (tl >= 0) {
            q.tile_loff[tl] = cl + il - vl;
            q.tile_roff[tr] = cr + ir - vr;
        }
        cl += __shfl_sync(0xffffffffu, il, 31);
        cr += __shfl_sync(0xffffffffu, ir, 31);
    }
    if (lane == 0)
        q.seg_nr[s] = cr;
}

// Tile T, phase 0: L / R counts; in a segment of more than kQsLocalTiles
// tiles the block that counts its last tile makes the segment's tile offsets
// (and clears the segment's counter for the next level).
__device__ void qs_tile_count(const klt_cuda_qs &q, const QsTile &T, QsShared &sh)
{
    int2 e[kQsPer];
    int f[kQsPer];
    const int total = QsReduce(sh.tmp.reduce).Sum(qs_flags(T, e, f));
    if (threadIdx.x == 0) {
        q.tile_l[T.t] = total & 0xffff;
        q.tile_r[T.t] = total >> 16;
        sh.flag = 0;
        if (T.nt > kQsLocalTiles) {
            __threadfence();
            sh.flag = atomicAdd(q.seg_done + T.s, 1) == T.nt - 1;
            __threadfence();
        }
    }
    __syncthreads();
    if (sh.flag) {
        __threadfence();
        if (threadIdx.x < 32)
            qs_offsets(q, T.s, T.n, T.t0, threadIdx.x);
        if (threadIdx.x == 0)
            q.seg_done[T.s] = 0;
    }
    __syncthreads();
}

// Tile T of a segment of at most kQsLocalTiles tiles, after the counts: its
// offsets (L ranks to its left, R ranks to its right) into sh.loff / sh.roff
// and tile_loff / tile_roff, the segment's R count by its first tile; by the
// first warp.
__device__ void qs_local_offsets(const klt_cuda_qs &q, const QsTile &T, QsShared &sh)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x;
    int vl = 0, vr = 0;
    if (lane < T.nt) {
        vl = ld_cg(q.tile_l + T.t0 + lane);
        vr = ld_cg(q.tile_r + T.t0 + lane);
    }
    const int loff = (int)__reduce_add_sync(full, (unsigned)(lane < T.first ? vl : 0));
    const int roff = (int)__reduce_add_sync(full, (unsigned)(lane > T.first ? vr : 0));
    const int nr = (int)__reduce_add_sync(full, (unsigned)vr);
    if (lane == 0) {
        sh.loff = loff;
        sh.roff = roff;
        q.tile_loff[T.t] = loff;
        q.tile_roff[T.t] = roff;
        if (T.first == 0)
            q.seg_nr[T.s] = nr;
    }
}

// Tile T, phase 1: ranks -> lpos / rpos, and the segment's exchange count;
// phase 2: the moves (and the children, by the segment's first tile).
template <int PHASE>
__device__ void qs_tile_move(const klt_cuda_qs &q, int cur, const QsTile &T, int nabove,
                             QsShared &sh)
{
    if (PHASE == 1 && T.nt <= kQsLocalTiles && threadIdx.x < 32)
        qs_local_offsets(q, T, sh);
    int2 e[kQsPer];
    int f[kQsPer];
    const int sum = qs_flags(T, e, f);
    int excl, total;
    QsScan(sh.tmp.scan).ExclusiveSum(sum, excl, total);
    __syncthreads(); // sh.loff / sh.roff
    int loff, roff;
    if (PHASE == 1 && T.nt <= kQsLocalTiles) {
        loff = sh.loff;
        roff = sh.roff;
    } else {
        loff = q.tile_loff[T.t];
        roff = q.tile_roff[T.t];
    }
    const int rtile = total >> 16;
    int *lpos = q.lpos + T.lo, *rpos = q.rpos + T.lo;
    int incl = excl, moved = 0;
    const int J = PHASE == 2 ? qs_stop(q, T.s, T.lo) : 0;
    for (int i = 0; i < kQsPer; i++) {
        const int k = T.k0 + i;
        if (k >= T.n)
            break;
        incl += f[i];
        const int isl = f[i] & 1, isr = f[i] >> 16;
        const int cl = loff + (incl & 0xffff);            // L in [1, k]
        const int cr = roff + rtile - (incl >> 16) + isr; // R in [k, n)
        const bool ml = isl && cr - isr >= cl, mr = isr && cl - isl >= cr;
        if (PHASE == 1) {
            if (isl)
                lpos[cl - 1] = k;
            if (isr)
                rpos[cr - 1] = k;
            moved += ml;
        } else {
            int dest = ml ? rpos[cl - 1] : mr ? lpos[cr - 1] : k;
            dest = dest == J ? 0 : dest == 0 ? J : dest;
            // the source (qa when buf is 0) is still read by other tiles:
            // final elements reach qa at the next level (qs_final)
            int2 *out = reinterpret_cast<int2 *>(T.buf ? q.qa : q.qb) + T.lo;
            out[dest] = e[i];
        }
    }
    __syncthreads(); // the scan's storage is reused
    if (PHASE == 1) {
        const int m = QsReduce(sh.tmp.reduce).Sum(moved);
        if (threadIdx.x == 0 && m)
            atomicAdd(q.seg_t + T.s, m);
    } else if (threadIdx.x == 0 && T.first == 0) {
        q.seg_j[T.s] = J;
        qs_classify(q, 1 - cur, T.lo, J, 1 - T.buf, nabove);
        qs_classify(q, 1 - cur, T.lo + J + 1, T.n - J - 1, 1 - T.buf, nabove);
    }
    __syncthreads();
}

// The whole sort (see above): seed and first plan by block 0; per level the
// finals of the level before, tile counts (+ offsets), ranks, moves (+ the
// next plan); then the short segments, one block each.
__global__ void __launch_bounds__(kQsThreads)
    qs_run_kernel(klt_cuda_qs q, int from_defer, const int *gate)
{
    extern __shared__ int4 qs_sm[];
    __shared__ QsShared sh;
    if (gate && ld_cg(gate) == 0)
        return; // uniform: every block reads the same value
    const int nabove = ld_cg(q.ctr + KLT_QS_NABOVE);
    if (blockIdx.x == 0) {
        qs_seed(q, from_defer, nabove, sh);
        // segment counters of long segments start cleared (cleared again by
        // the block that reads them to the end)
        const int ml = q.n / (KLT_CUDA_QS_SMALL + 1) + 1;
        for (int i = threadIdx.x; i < ml; i += kQsThreads)
            q.seg_done[i] = 0;
    }
    qs_grid_sync();
    const int gthreads = gridDim.x * kQsThreads, gtid = blockIdx.x * kQsThreads + threadIdx.x;
    int cur = 0, prev = 0;
    for (;;) {
        const int nseg = ld_cg(q.ctr + cur);
        for (int s = gtid; s < prev; s += gthreads)
            qs_final(q, 1 - cur, s);
        if (nseg == 0)
            break;
        const int ntiles = qs_level_plan(q, cur, nseg, sh);
        for (int t = blockIdx.x; t < ntiles; t += gridDim.x)
            qs_tile_count(q, qs_tile(q, cur, nseg, t, sh), sh);
        qs_grid_sync();
        for (int t = blockIdx.x; t < ntiles; t += gridDim.x)
            qs_tile_move<1>(q, cur, qs_tile(q, cur, nseg, t, sh), nabove, sh);
        qs_grid_sync();
        for (int t = blockIdx.x; t < ntiles; t += gridDim.x)
            qs_tile_move<2>(q, cur, qs_tile(q, cur, nseg, t, sh), nabove, sh);
        qs_grid_sync();
        prev = nseg;
        cur = 1 - cur;
    }
    const int nsmall = ld_cg(q.ctr + KLT_QS_NSMALL);
    const int2 *small = reinterpret_cast<const int2 *>(q.small);
    for (int s = blockIdx.x; s < nsmall; s += gridDim.x)
        qs_small(q, __ldcg(small + s), qs_sm, sh);
}

} // namespace

// ------------------------------------------------------------ launchers

extern "C" size_t klt_cuda_qs_max_large(size_t n)
{
    return n / (KLT_CUDA_QS_SMALL + 1) + 1;
}

extern "C" size_t klt_cuda_qs_max_tiles(size_t n)
{
    return n / KLT_CUDA_QS_TILE + klt_cuda_qs_max_large(n) + 1;
}

extern "C" int klt_cuda_qs_grid(int *blocks, int *coop)
{
    *blocks = 1;
    *coop = 0;
    int dev = 0, can = 0, sms = 0, per = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&can, cudaDevAttrCooperativeLaunch, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(qs_run_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)kQsSmallSmem);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, qs_run_kernel, kQsThreads,
                                                          kQsSmallSmem);
    if (e != cudaSuccess)
        return (int)e;
    if (can && per > 0 && sms > 0) {
        *coop = 1;
        *blocks = per * sms;
    }
    return (int)cudaSuccess;
}

extern "C" int klt_cuda_qs_pack(const int *keys, const unsigned *pix, int *qa, int n, int min_eig,
                                int *nabove, void *stream)
{
    if (n <= 0)
        return (int)cudaSuccess;
    qs_pack_kernel<<<(n + 255) / 256, 256, 0, (cudaStream_t)stream>>>(
        keys, pix, reinterpret_cast<int2 *>(qa), n, min_eig, nabove);
    return (int)cudaGetLastError();
}

extern "C" int klt_cuda_qs_run(const klt_cuda_qs *q, int from_defer, const int *gate, int blocks,
                               int coop, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e = cudaFuncSetAttribute(qs_run_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)kQsSmallSmem);
    if (e != cudaSuccess)
        return (int)e;
    if (coop && blocks > 1) {
        klt_cuda_qs qv = *q;
        void *args[] = {&qv, &from_defer, &gate};
        return (int)cudaLaunchCooperativeKernel((const void *)qs_run_kernel, dim3(blocks),
                                                dim3(kQsThreads), args, kQsSmallSmem, s);
    }
    qs_run_kernel<<<1, kQsThreads, kQsSmallSmem, s>>>(*q, from_defer, gate);
    return (int)cudaGetLastError();
}
