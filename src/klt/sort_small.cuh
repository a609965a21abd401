/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// The short phase of the candidate sort (included by sort.cu): a segment of
// at most KLT_CUDA_QS_SMALL elements is finished by one block in shared
// memory, all its sub-segments of one depth at a time, down to 32 elements;
// each of those by one warp.
#ifndef FOVEA_KLT_SORT_SMALL_CUH
#define FOVEA_KLT_SORT_SMALL_CUH

#include "klt/sort_common.cuh"

namespace
{

// Segments of at most 32 elements are finished by one warp, an element per
// lane: the same partitions as below (and as select.c's partition_step), every
// sub-segment of a depth at once, with ballots for the counts and the warp's
// part of lpos / rpos (QsSmallMem: a segment's own positions) for the ranks;
// no block barriers. a, lpos, rpos: the segment's start in the block's arrays.
constexpr int kQsWarpSeg = 32;

__device__ void qs_warp_sort(int2 *a, int m, short *lpos, short *rpos)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const unsigned le = (2u << lane) - 1u;    // lanes <= lane (lane 31: all)
    const unsigned ge = ~((1u << lane) - 1u); // lanes >= lane
    int2 e = lane < m ? a[lane] : make_int2(0, 0);
    int slo = 0, sn = lane < m ? m : 0; // this position's segment [slo, slo + sn)
    for (;;) {
        const bool act = sn >= 2;
        if (!__any_sync(full, act))
            break;
        const int h = sn >> 1, kk = lane - slo;
        // the middle element to the front
        const int src = !act ? lane : kk == 0 ? slo + h : kk == h ? slo : lane;
        e.x = __shfl_sync(full, e.x, src);
        e.y = __shfl_sync(full, e.y, src);
        const int p = __shfl_sync(full, e.x, act ? slo : lane);
        const int isl = act && kk > 0 && e.x <= p;
        const int isr = act && kk > 0 && e.x >= p;
        const unsigned segm = !act ? 0u : sn == 32 ? full : ((1u << sn) - 1u) << slo;
        const unsigned bl = __ballot_sync(full, isl) & segm;
        const unsigned br = __ballot_sync(full, isr) & segm;
        const int cl = __popc(bl & le); // rank among L from the left (1-based)
        const int cr = __popc(br & ge); // rank among R from the right (1-based)
        const bool lmv = isl && cr - isr >= cl, rmv = isr && cl - isl >= cr;
        const unsigned bm = __ballot_sync(full, lmv) & segm;
        if (isl)
            lpos[slo + cl - 1] = (short)kk;
        if (isr)
            rpos[slo + cr - 1] = (short)kk;
        __syncwarp();
        int dest = lane, J = 0;
        if (act) {
            const int nt = __popc(bm), nr = __popc(br);
            const int lt = nt >= 1 ? lpos[slo + nt - 1] : 0;
            J = nt < nr && rpos[slo + nt] > lt ? rpos[slo + nt] : lt;
            int d = kk;
            if (lmv)
                d = rpos[slo + cl - 1];
            else if (rmv)
                d = lpos[slo + cr - 1];
            d = d == J ? 0 : d == 0 ? J : d;
            dest = slo + d;
        }
        __syncwarp(); // the ranks are read before the elements land
        if (lane < m)
            a[dest] = e;
        __syncwarp();
        if (lane < m)
            e = a[lane];
        if (act) {
            // children: [slo, slo + J), the pivot, [slo + J + 1, slo + sn)
            if (kk < J) {
                sn = J;
            } else if (kk == J) {
                slo += J;
                sn = 1;
            } else {
                slo += J + 1;
                sn -= J + 1;
            }
        }
        __syncwarp(); // a[] is rewritten by the next depth
    }
}

// The short phase (qs_small) in the block's dynamic shared memory, SMALL
// entries each: the segment's elements, the scan of their packed flags, the
// exchange counts (at each segment's start), the L / R positions by rank, and
// every position's segment (start, and the length at the start).
struct QsSmallMem {
    int2 *a;
    int *scan, *t;
    short *lpos, *rpos, *seglo, *segn;
};

__device__ __forceinline__ QsSmallMem qs_small_mem(int4 *qs_sm)
{
    QsSmallMem m;
    m.a = reinterpret_cast<int2 *>(qs_sm);                     // SMALL
    m.scan = reinterpret_cast<int *>(m.a + KLT_CUDA_QS_SMALL); // SMALL
    m.t = m.scan + KLT_CUDA_QS_SMALL;                          // SMALL
    m.lpos = reinterpret_cast<short *>(m.t + KLT_CUDA_QS_SMALL);
    m.rpos = m.lpos + KLT_CUDA_QS_SMALL;
    m.seglo = m.rpos + KLT_CUDA_QS_SMALL;
    m.segn = m.seglo + KLT_CUDA_QS_SMALL;
    return m;
}

// A thread's positions k0 + i at one depth of the short phase: the element
// (pivot moved to the front), its packed L/R flags, its segment's start and
// length (0: nothing to do at this depth).
struct QsSmallPos {
    int2 e[kQsSmallPer];
    int f[kQsSmallPer], lo[kQsSmallPer], sn[kQsSmallPer];
};

// The thread's positions at this depth; those in segments of at most
// kQsWarpSeg elements are set done (starts: the ones opening a segment of
// 2..32, left to a warp). Returns the packed flags' sum; active = 1 when a
// position is in a longer segment.
__device__ __forceinline__ int qs_small_flags(const QsSmallMem &m, int k0, unsigned &done,
                                              unsigned &starts, QsSmallPos &P, int &active)
{
    int sum = 0;
    active = 0;
    for (int i = 0; i < kQsSmallPer; i++) {
        const int k = k0 + i;
        P.f[i] = 0;
        P.sn[i] = 0;
        P.lo[i] = 0;
        if (done >> i & 1)
            continue;
        P.lo[i] = m.seglo[k];
        P.sn[i] = m.segn[P.lo[i]];
        if (P.sn[i] > kQsWarpSeg) {
            const int kk = k - P.lo[i], h = P.sn[i] >> 1;
            P.e[i] = m.a[P.lo[i] + (kk == 0 ? h : kk == h ? 0 : kk)];
            const int p = m.a[P.lo[i] + h].x;
            if (kk > 0)
                P.f[i] = (P.e[i].x <= p) | ((P.e[i].x >= p) << 16);
            else
                m.t[k] = 0; // the segment's exchange count
            active = 1;
        } else {
            // final, or in a segment a warp finishes after the loop
            done |= 1u << i;
            if (P.sn[i] >= 2 && k == P.lo[i])
                starts |= 1u << i;
            P.sn[i] = 0;
        }
        sum += P.f[i];
    }
    return sum;
}

// After the scan: the ranks of L and R in each segment (lpos, rpos) and the
// segments' exchange counts (t).
__device__ __forceinline__ void qs_small_ranks(const QsSmallMem &m, int k0, const QsSmallPos &P)
{
    const int lane = threadIdx.x & 31;
    for (int i = 0; i < kQsSmallPer; i++) {
        const int k = k0 + i;
        bool mv = false;
        if (P.sn[i] >= 2 && k != P.lo[i]) {
            const int h0 = m.scan[P.lo[i]], he = m.scan[P.lo[i] + P.sn[i] - 1], c = m.scan[k];
            const int isl = P.f[i] & 1, isr = P.f[i] >> 16;
            const int cl = (c & 0xffff) - (h0 & 0xffff);
            const int cr = (he >> 16) - (c >> 16) + isr;
            if (isl)
                m.lpos[P.lo[i] + cl - 1] = (short)(k - P.lo[i]);
            if (isr)
                m.rpos[P.lo[i] + cr - 1] = (short)(k - P.lo[i]);
            mv = isl && cr - isr >= cl;
        }
        // one shared atomic per segment and warp (a long segment's moves
        // would otherwise all hit one counter)
        const unsigned peers = __match_any_sync(0xffffffffu, mv ? P.lo[i] : -1);
        if (mv && lane == __ffs(peers) - 1)
            atomicAdd(m.t + P.lo[i], __popc(peers));
    }
}

// After the ranks: every element to its place after its segment's partition,
// and the children segments (written by the segment's first position).
__device__ __forceinline__ void qs_small_moves(const QsSmallMem &m, int k0, const QsSmallPos &P)
{
    int nlo[kQsSmallPer], hj[kQsSmallPer], dest[kQsSmallPer];
    for (int i = 0; i < kQsSmallPer; i++) {
        const int k = k0 + i;
        hj[i] = -1;
        dest[i] = k;
        nlo[i] = P.lo[i];
        if (P.sn[i] < 2)
            continue;
        const int l = P.lo[i], kk = k - l;
        const int h0 = m.scan[l], he = m.scan[l + P.sn[i] - 1];
        const int nr = (he >> 16) - (h0 >> 16);
        const int nt = m.t[l];
        const int lt = nt >= 1 ? m.lpos[l + nt - 1] : 0;
        const int J = nt < nr && m.rpos[l + nt] > lt ? m.rpos[l + nt] : lt;
        int d = kk;
        if (kk > 0) {
            const int c = m.scan[k], isl = P.f[i] & 1, isr = P.f[i] >> 16;
            const int cl = (c & 0xffff) - (h0 & 0xffff);
            const int cr = (he >> 16) - (c >> 16) + isr;
            d = isl && cr - isr >= cl   ? m.rpos[l + cl - 1]
                : isr && cl - isl >= cr ? m.lpos[l + cr - 1]
                                        : kk;
        } else {
            hj[i] = J;
        }
        d = d == J ? 0 : d == 0 ? J : d;
        dest[i] = l + d;
        nlo[i] = d < J ? l : d == J ? l + J : l + J + 1;
    }
    __syncthreads();
    for (int i = 0; i < kQsSmallPer; i++) {
        if (P.sn[i] < 2)
            continue;
        m.a[dest[i]] = P.e[i];
        m.seglo[dest[i]] = (short)nlo[i];
        if (hj[i] >= 0) {
            // children: [lo, lo + J), the pivot, [lo + J + 1, lo + n)
            const int l = P.lo[i], J = hj[i];
            m.segn[l] = (short)J;
            m.segn[l + J] = 1;
            if (P.sn[i] - J - 1 > 0)
                m.segn[l + J + 1] = (short)(P.sn[i] - J - 1);
        }
    }
}

// The segments of 2..32 elements, each by the warp holding its start
// (starts: this thread's positions that open one).
__device__ __forceinline__ void qs_small_warps(const QsSmallMem &m, unsigned starts)
{
    const int lane = threadIdx.x & 31;
    for (unsigned have = __ballot_sync(0xffffffffu, starts != 0); have;
         have = __ballot_sync(0xffffffffu, starts != 0)) {
        const int src = __ffs(have) - 1;
        const unsigned st = __shfl_sync(0xffffffffu, starts, src);
        const int l = ((threadIdx.x & ~31) + src) * kQsSmallPer + __ffs(st) - 1;
        if (lane == src)
            starts &= starts - 1;
        qs_warp_sort(m.a + l, m.segn[l], m.lpos + l, m.rpos + l);
    }
}

// One short segment (sg): every partition of it down to single elements, all
// segments of one depth at a time, in shared memory; the result to qa.
__device__ void qs_small(const klt_cuda_qs &q, int2 sg, int4 *qs_sm, QsShared &sh)
{
    const QsSmallMem m = qs_small_mem(qs_sm);
    const int lo0 = sg.x, n = sg.y & kQsLenMask;
    const int2 *src = reinterpret_cast<const int2 *>((sg.y >> kQsBufBit) ? q.qb : q.qa) + lo0;
    const int k0 = threadIdx.x * kQsSmallPer;
    for (int k = threadIdx.x; k < n; k += kQsThreads) {
        m.a[k] = src[k];
        m.seglo[k] = 0;
    }
    if (threadIdx.x == 0)
        m.segn[0] = (short)n;
    __syncthreads();

    // Positions whose segment has one element hold their final element: a
    // thread's bit i is set once its position k0 + i is final (or past n), and
    // such positions are not read or written again.
    unsigned done = 0, starts = 0; // starts: positions opening a segment of 2..32
    for (int i = 0; i < kQsSmallPer; i++)
        if (k0 + i >= n)
            done |= 1u << i;
    for (;;) {
        QsSmallPos P;
        int active;
        const int sum = qs_small_flags(m, k0, done, starts, P, active);
        if (!__syncthreads_or(active))
            break;
        int incl;
        QsScan(sh.tmp.scan).ExclusiveSum(sum, incl);
        for (int i = 0; i < kQsSmallPer; i++) {
            incl += P.f[i];
            if (P.sn[i] >= 2)
                m.scan[k0 + i] = incl;
        }
        __syncthreads();
        qs_small_ranks(m, k0, P);
        __syncthreads();
        qs_small_moves(m, k0, P);
        __syncthreads();
    }
    qs_small_warps(m, starts);
    __syncthreads();
    for (int k = threadIdx.x; k < n; k += kQsThreads)
        reinterpret_cast<int2 *>(q.qa)[lo0 + k] = m.a[k];
    __syncthreads(); // m.a is reused by the block's next segment
}

constexpr size_t kQsSmallSmem =
    (size_t)KLT_CUDA_QS_SMALL * (sizeof(int2) + 2 * sizeof(int) + 4 * sizeof(short));

} // namespace

#endif
