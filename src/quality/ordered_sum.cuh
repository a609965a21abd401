/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// The sum of n terms in order, one rounded addition after another, as the C
// extractors add them (`acc += t[i]`, Acc float or double), computed by one
// block in parallel with the same bits.
//
// While the accumulator stays in one binade [2^e, 2^(e+1)) (or its negative),
// every partial sum is an integer number S of units u = 2^(e - M + 1) (M the
// significand bits), and one addition is S += RN(t / u), the term rounded to
// units, except for an exact tie (t / u = n + 1/2), where round-half-even
// picks the candidate that leaves S even: the step depends on S's parity
// only. So each run of terms maps (S's parity) -> (offset): a pair of
// integers, and the composition of pairs is associative: a block scan gives
// every partial sum exactly. An addition is emulated only when the emulated
// sum stays at least one unit inside the binade ([2^(M-1) + 1, 2^M - 1]
// units): then the exact sum is inside too and the rounding is the one
// emulated. The first addition that leaves that range (about log2(n) times
// for a sum that grows, and at any term too large to scale) is done for real
// by one thread, and the scan restarts with the new binade from the next
// term. A sum from zero starts with kOrderedSumThreads real additions by one
// thread (its first binade crossings come every few terms); zero
// accumulators skip zero terms; non-finite or tiny (near subnormal)
// accumulators take one real addition at a time.
//
// Cost: the terms are read once; one iteration handles kOrderedSumThreads x
// kOrderedSumPer terms, plus one iteration per binade crossing. Every thread
// returns the sum. psnr_hvs.cu, ciede.cu and ssim.cu use it
// (docs/quality.md "Ordered sums on CUDA"); test_gpu_ordered_sum checks it
// against the sequential loop on adversarial terms.
#ifndef FOVEA_QUALITY_ORDERED_SUM_CUH
#define FOVEA_QUALITY_ORDERED_SUM_CUH

#include <stddef.h>
#include <stdint.h>

constexpr int kOrderedSumThreads = 512;
constexpr int kOrderedSumPer = 8; // terms a thread per iteration
constexpr int kOrderedSumWarps = kOrderedSumThreads / 32;

template <typename Acc> struct ordered_fp;
template <> struct ordered_fp<double> {
    static constexpr int kMant = 53;
    static constexpr int kMinExp = -960; // 2^(52 - e) must be a finite double
    static __device__ __forceinline__ int exponent(double v)
    {
        return (int)((__double_as_longlong(v) >> 52) & 0x7ff) - 1023;
    }
    static __device__ __forceinline__ bool finite(double v)
    {
        return ((__double_as_longlong(v) >> 52) & 0x7ff) != 0x7ff;
    }
};
template <> struct ordered_fp<float> {
    static constexpr int kMant = 24;
    static constexpr int kMinExp = -126;
    static __device__ __forceinline__ int exponent(float v)
    {
        return (int)((__float_as_uint(v) >> 23) & 0xff) - 127;
    }
    static __device__ __forceinline__ bool finite(float v)
    {
        return ((__float_as_uint(v) >> 23) & 0xff) != 0xff;
    }
};

// 2^k for a normal double (-1022 <= k <= 1023), exactly
__device__ __forceinline__ double ordered_pow2(int k)
{
    return __longlong_as_double((long long)(1023 + k) << 52);
}

// the map of a run of terms: the offset in units for an even (c0) and an
// odd (c1) start
struct ordered_pair {
    long long c0, c1;
};

__device__ __forceinline__ ordered_pair ordered_compose(ordered_pair a, ordered_pair b)
{
    // unsigned arithmetic: a sum past the first out-of-range term may wrap;
    // it is never used
    ordered_pair r;
    r.c0 = (long long)((unsigned long long)a.c0 + (unsigned long long)((a.c0 & 1) ? b.c1 : b.c0));
    r.c1 = (long long)((unsigned long long)a.c1 + (unsigned long long)((a.c1 & 1) ? b.c0 : b.c1));
    return r;
}

__device__ __forceinline__ long long ordered_pick(ordered_pair a, long long parity)
{
    return parity ? a.c1 : a.c0;
}

// One term scaled to units: r = RN-even(q), tie = +1/-1 when q = r +- 1/2
// exactly (the other candidate is r + tie), big when |q| is out of range.
struct ordered_unit {
    long long r;
    int tie;
    bool big;
};

template <int M> __device__ __forceinline__ ordered_unit ordered_scale(double t, double scale)
{
    ordered_unit u;
    const double q = t * scale; // exact: a power of two, no overflow below 2^(M+1)
    if (!(fabs(q) < (double)(1ll << (M + 1)))) {
        u.r = 0;
        u.tie = 0;
        u.big = true;
        return u;
    }
    const double r = rint(q);
    const double d = q - r;
    u.r = (long long)r;
    u.tie = d == 0.5 ? 1 : d == -0.5 ? -1 : 0;
    u.big = false;
    return u;
}

// the step of one term from a sum with this parity
__device__ __forceinline__ long long ordered_step(const ordered_unit &u, long long parity)
{
    // r is even at a tie (rint): keep S + r if S is even, else the other one
    return u.r + ((u.tie != 0 && parity) ? (long long)u.tie : 0ll);
}

// Block-wide exclusive scan of the threads' pairs; *total gets the whole.
__device__ __forceinline__ ordered_pair ordered_block_scan(ordered_pair v, ordered_pair *total,
                                                           ordered_pair *s_warp)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    ordered_pair inc = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        ordered_pair a;
        a.c0 = __shfl_up_sync(0xffffffffu, inc.c0, o);
        a.c1 = __shfl_up_sync(0xffffffffu, inc.c1, o);
        if (lane >= o)
            inc = ordered_compose(a, inc);
    }
    if (lane == 31)
        s_warp[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        ordered_pair w = lane < kOrderedSumWarps ? s_warp[lane] : ordered_pair{0, 0};
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            ordered_pair a;
            a.c0 = __shfl_up_sync(0xffffffffu, w.c0, o);
            a.c1 = __shfl_up_sync(0xffffffffu, w.c1, o);
            if (lane >= o)
                w = ordered_compose(a, w);
        }
        if (lane < kOrderedSumWarps)
            s_warp[kOrderedSumWarps + lane] = w; // inclusive over warps
    }
    __syncthreads();
    const ordered_pair before_warp =
        warp ? s_warp[kOrderedSumWarps + warp - 1] : ordered_pair{0, 0};
    ordered_pair prev;
    prev.c0 = __shfl_up_sync(0xffffffffu, inc.c0, 1);
    prev.c1 = __shfl_up_sync(0xffffffffu, inc.c1, 1);
    if (lane == 0)
        prev = ordered_pair{0, 0};
    *total = s_warp[2 * kOrderedSumWarps - 1];
    return ordered_compose(before_warp, prev);
}

// Terms [p, n) added to acc: term(i) gives term i as Acc (the value C adds).
// Every thread of the block (kOrderedSumThreads) must call it; every thread
// gets the sum.
template <typename Acc, typename Term>
__device__ Acc ordered_sum_range(const Term &term, size_t p, size_t n, Acc acc)
{
    typedef ordered_fp<Acc> fp;
    constexpr int M = fp::kMant;
    constexpr size_t kWin = (size_t)kOrderedSumThreads * kOrderedSumPer;
    constexpr long long kLo = (1ll << (M - 1)) + 1, kHi = (1ll << M) - 1;
    __shared__ ordered_pair s_warp[2 * kOrderedSumWarps];
    __shared__ unsigned long long s_first;
    __shared__ Acc s_acc;
    const int tid = threadIdx.x;
    if (acc == (Acc)0 && p < n) {
        // a sum that starts at zero crosses a binade at about every power of
        // two of its length: its first kOrderedSumThreads terms are staged and
        // added by one thread, one real addition after another
        __shared__ Acc s_head[kOrderedSumThreads];
        const size_t m = n - p < (size_t)kOrderedSumThreads ? n - p : (size_t)kOrderedSumThreads;
        if ((size_t)tid < m)
            s_head[tid] = term(p + (size_t)tid);
        __syncthreads();
        if (tid == 0) {
            Acc a = acc;
            for (size_t i = 0; i < m; i++)
                a = a + s_head[i];
            s_acc = a;
        }
        __syncthreads();
        acc = s_acc;
        p += m;
        __syncthreads(); // s_acc is reused
    }
    while (p < n) {
        const int e = fp::exponent(acc);
        if (acc == 0 || !fp::finite(acc) || e < fp::kMinExp) {
            if (acc != acc)
                return acc; // NaN stays NaN
            size_t next = p;
            if (acc == 0) {
                // zero terms leave a zero sum alone (+0 + -0 = +0): find the
                // first other term of the window
                if (tid == 0)
                    s_first = ~0ull;
                __syncthreads();
                for (int k = 0; k < kOrderedSumPer; k++) {
                    const size_t i = p + (size_t)k * kOrderedSumThreads + (size_t)tid;
                    if (i < n && term(i) != (Acc)0) {
                        atomicMin(&s_first, (unsigned long long)i);
                        break;
                    }
                }
                __syncthreads();
                next = s_first == ~0ull ? p + kWin : (size_t)s_first;
                __syncthreads();
                if (next >= n)
                    return acc;
                if (next >= p + kWin) {
                    p = next;
                    continue;
                }
            }
            // one real addition
            acc = acc + term(next);
            p = next + 1;
            continue;
        }
        // S units of u = 2^(e - M + 1); scale = 1 / u
        const double scale = ordered_pow2(M - 1 - e), unit = ordered_pow2(e - (M - 1));
        const long long S = (long long)((double)acc * scale);
        const long long par0 = S & 1;
        const size_t base = p + (size_t)tid * kOrderedSumPer;
        ordered_unit u[kOrderedSumPer];
        ordered_pair mine = {0, 0};
#pragma unroll
        for (int k = 0; k < kOrderedSumPer; k++) {
            const size_t i = base + (size_t)k;
            if (i < n) {
                u[k] = ordered_scale<M>((double)term(i), scale);
            } else {
                u[k].r = 0;
                u[k].tie = 0;
                u[k].big = false;
            }
            mine.c0 += ordered_step(u[k], mine.c0 & 1);
            mine.c1 += ordered_step(u[k], (1 + mine.c1) & 1);
        }
        if (tid == 0)
            s_first = ~0ull;
        ordered_pair total;
        const ordered_pair before = ordered_block_scan(mine, &total, s_warp);
        // this thread's own path from its real start
        long long off = ordered_pick(before, par0);
        size_t bad = ~(size_t)0;
        long long off_bad = 0;
#pragma unroll
        for (int k = 0; k < kOrderedSumPer; k++) {
            const size_t i = base + (size_t)k;
            if (bad == ~(size_t)0 && i < n) {
                // unsigned: past another thread's out-of-range term the
                // offsets may have wrapped (this thread's result is not used)
                const long long next =
                    (long long)((unsigned long long)off +
                                (unsigned long long)ordered_step(u[k], (par0 + off) & 1));
                const long long v = (long long)((unsigned long long)S + (unsigned long long)next);
                const bool out =
                    u[k].big || (S > 0 ? (v < kLo || v > kHi) : (v > -kLo || v < -kHi));
                if (out) {
                    bad = i;
                    off_bad = off;
                } else {
                    off = next;
                }
            }
        }
        if (bad != ~(size_t)0)
            atomicMin(&s_first, (unsigned long long)bad);
        __syncthreads();
        const unsigned long long first = s_first;
        if (first == ~0ull) {
            acc = (Acc)((double)(S + ordered_pick(total, par0)) * unit);
            p = p + kWin;
        } else {
            if (bad == (size_t)first) {
                // the partial sum before the term, exact, then the real addition
                const Acc before_term = (Acc)((double)(S + off_bad) * unit);
                s_acc = before_term + term(bad);
            }
            __syncthreads();
            acc = s_acc;
            p = (size_t)first + 1;
        }
        __syncthreads(); // s_first and s_acc are reused
    }
    return acc;
}

// terms [0, n) from a zero sum
template <typename Acc, typename Term> __device__ Acc ordered_sum_terms(const Term &term, size_t n)
{
    return ordered_sum_range<Acc>(term, 0, n, (Acc)0);
}

// ------------------------------------------------------------ many blocks a sum
//
// A long sum is cut into segments of kOrderedSegTerms terms, three launches:
//  1. ordered_approx_kernel (a block per segment): the segment's plain sum in
//     any order, only to guess the binade the exact sum is in at each
//     segment's start;
//  2. ordered_summary_kernel (a block per segment): with that guess, the
//     segment's map S -> S + c[parity] and the least and greatest partial
//     offsets along it (for both start parities), or "none" when a term does
//     not scale or an offset grows past any binade;
//  3. ordered_walk_kernel (a block per sum): the real sum walks the segments
//     in order; a segment whose summary was made for the binade the sum is
//     really in, and whose partial sums stay inside it, is one step; any
//     other (the first, the ones where the sum crosses a binade, about
//     log2(n) of them) is added by ordered_sum_range.
// The guess only decides which segments take the fast step, never a value.
//
// Jobs describes the sums of a launch: __device__ size_t size(int job),
// Acc term(int job, size_t i) and void put(int job, Acc sum).

constexpr size_t kOrderedSegTerms = (size_t)kOrderedSumThreads * kOrderedSumPer;

struct ordered_seg {
    long long c[2], lo[2], hi[2];
    int e;  // the exponent of the binade the summary is for
    int ok; // 0: no summary
};

inline __host__ __device__ size_t ordered_segs(size_t n)
{
    return (n + kOrderedSegTerms - 1) / kOrderedSegTerms;
}

// scratch bytes of ordered_sums_launch for jobs sums of at most max_n terms
inline size_t ordered_sums_scratch(int jobs, size_t max_n)
{
    const size_t segs = ordered_segs(max_n) ? ordered_segs(max_n) : 1;
    return (size_t)jobs * segs * (sizeof(double) + sizeof(ordered_seg));
}

// a run of terms summarized for both start parities (big: no summary)
struct ordered_run {
    long long c[2], lo[2], hi[2];
    int big;
};

constexpr long long kOrderedNone = 1ll << 62; // lo of an empty run (hi: -)

__device__ __forceinline__ ordered_run ordered_run_empty()
{
    ordered_run r;
    for (int q = 0; q < 2; q++) {
        r.c[q] = 0;
        r.lo[q] = kOrderedNone;
        r.hi[q] = -kOrderedNone;
    }
    r.big = 0;
    return r;
}

// a then b; lim bounds every offset of a run that can stay in one binade
// (anything past it makes the run "big": it crosses whatever the start)
__device__ __forceinline__ ordered_run ordered_run_then(const ordered_run &a, const ordered_run &b,
                                                        long long lim)
{
    ordered_run r;
    r.big = a.big | b.big;
    for (int q = 0; q < 2; q++) {
        const int j = (int)((q + a.c[q]) & 1);
        const long long ac = a.c[q];
        r.c[q] = (long long)((unsigned long long)ac + (unsigned long long)b.c[j]);
        const long long blo = b.lo[j] == kOrderedNone ? kOrderedNone : ac + b.lo[j];
        const long long bhi = b.hi[j] == -kOrderedNone ? -kOrderedNone : ac + b.hi[j];
        r.lo[q] = a.lo[q] < blo ? a.lo[q] : blo;
        r.hi[q] = a.hi[q] > bhi ? a.hi[q] : bhi;
        if (r.c[q] > lim || r.c[q] < -lim || r.lo[q] < -lim || r.hi[q] > lim)
            r.big = 1;
    }
    if (r.big)
        return ordered_run{{0, 0}, {0, 0}, {0, 0}, 1}; // values unused: keep them small
    return r;
}

// lane - o's run (Up) or lane + o's, for the whole warp
template <bool Up>
__device__ __forceinline__ ordered_run ordered_run_shfl(const ordered_run &r, int o)
{
    ordered_run b;
#pragma unroll
    for (int q = 0; q < 2; q++) {
        b.c[q] =
            Up ? __shfl_up_sync(0xffffffffu, r.c[q], o) : __shfl_down_sync(0xffffffffu, r.c[q], o);
        b.lo[q] = Up ? __shfl_up_sync(0xffffffffu, r.lo[q], o)
                     : __shfl_down_sync(0xffffffffu, r.lo[q], o);
        b.hi[q] = Up ? __shfl_up_sync(0xffffffffu, r.hi[q], o)
                     : __shfl_down_sync(0xffffffffu, r.hi[q], o);
    }
    b.big = Up ? __shfl_up_sync(0xffffffffu, r.big, o) : __shfl_down_sync(0xffffffffu, r.big, o);
    return b;
}

template <typename Jobs>
__global__ void __launch_bounds__(kOrderedSumThreads)
    ordered_approx_kernel(const __grid_constant__ Jobs J, double *approx, int max_segs)
{
    const int seg = blockIdx.x, job = blockIdx.y;
    const size_t n = J.size(job), begin = (size_t)seg * kOrderedSegTerms;
    if (begin >= n)
        return;
    const size_t end = begin + kOrderedSegTerms < n ? begin + kOrderedSegTerms : n;
    double v = 0.0;
    for (size_t i = begin + threadIdx.x; i < end; i += kOrderedSumThreads)
        v += (double)J.term(job, i);
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    __shared__ double part[kOrderedSumWarps];
    if ((threadIdx.x & 31) == 0)
        part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0.0;
        for (int w = 0; w < kOrderedSumWarps; w++)
            t += part[w];
        approx[(size_t)job * (size_t)max_segs + (size_t)seg] = t;
    }
}

template <typename Acc, typename Jobs>
__global__ void __launch_bounds__(kOrderedSumThreads)
    ordered_summary_kernel(const __grid_constant__ Jobs J, const double *approx, ordered_seg *segs,
                           int max_segs)
{
    typedef ordered_fp<Acc> fp;
    constexpr int M = fp::kMant;
    constexpr long long kLim = 1ll << (M + 1);
    const int seg = blockIdx.x, job = blockIdx.y, tid = threadIdx.x;
    const size_t n = J.size(job), begin = (size_t)seg * kOrderedSegTerms;
    if (begin >= n)
        return;
    const size_t end = begin + kOrderedSegTerms < n ? begin + kOrderedSegTerms : n;
    __shared__ double s_part[kOrderedSumWarps];
    __shared__ ordered_run s_run[kOrderedSumWarps];
    // the guess: the plain sum of the segments before this one
    double g = 0.0;
    for (int k = tid; k < seg; k += kOrderedSumThreads)
        g += approx[(size_t)job * (size_t)max_segs + (size_t)k];
    for (int o = 16; o > 0; o >>= 1)
        g += __shfl_down_sync(0xffffffffu, g, o);
    if ((tid & 31) == 0)
        s_part[tid >> 5] = g;
    __syncthreads();
    g = 0.0;
    for (int w = 0; w < kOrderedSumWarps; w++)
        g += s_part[w];
    const Acc guess = (Acc)g;
    const int e = fp::exponent(guess);
    ordered_seg *out = segs + (size_t)job * (size_t)max_segs + (size_t)seg;
    if (guess == (Acc)0 || !fp::finite(guess) || e < fp::kMinExp) {
        if (tid == 0)
            out->ok = 0;
        return;
    }
    const double scale = ordered_pow2(M - 1 - e);
    // this thread's kOrderedSumPer terms, both start parities at once
    ordered_run r = ordered_run_empty();
    const size_t first = begin + (size_t)tid * kOrderedSumPer;
    for (int k = 0; k < kOrderedSumPer; k++) {
        const size_t i = first + (size_t)k;
        if (i >= end)
            break;
        const ordered_unit u = ordered_scale<M>((double)J.term(job, i), scale);
        r.big |= u.big ? 1 : 0;
        for (int q = 0; q < 2; q++) {
            r.c[q] += ordered_step(u, (q + r.c[q]) & 1);
            r.lo[q] = r.c[q] < r.lo[q] ? r.c[q] : r.lo[q];
            r.hi[q] = r.c[q] > r.hi[q] ? r.c[q] : r.hi[q];
            if (r.c[q] > kLim || r.c[q] < -kLim)
                r.big = 1;
        }
        if (r.big) {
            r = ordered_run{{0, 0}, {0, 0}, {0, 0}, 1};
            break;
        }
    }
    // ordered reduction: lanes hold consecutive runs
    const int lane = tid & 31;
    for (int o = 1; o < 32; o <<= 1) {
        const ordered_run b = ordered_run_shfl<false>(r, o);
        if ((lane & (2 * o - 1)) == 0)
            r = ordered_run_then(r, b, kLim);
    }
    __syncthreads(); // s_part's readers are done (s_run is separate, to be safe)
    if (lane == 0)
        s_run[tid >> 5] = r;
    __syncthreads();
    if (tid == 0) {
        ordered_run t = s_run[0];
        for (int w = 1; w < kOrderedSumWarps; w++)
            t = ordered_run_then(t, s_run[w], kLim);
        ordered_seg o;
        for (int q = 0; q < 2; q++) {
            o.c[q] = t.c[q];
            o.lo[q] = t.lo[q];
            o.hi[q] = t.hi[q];
        }
        o.e = e;
        o.ok = !t.big;
        *out = o;
    }
}

template <typename Acc, typename Jobs> struct ordered_job_term {
    const Jobs *J;
    int job;
    __device__ __forceinline__ Acc operator()(size_t i) const
    {
        return J->term(job, i);
    }
};

template <typename Acc, typename Jobs>
__global__ void __launch_bounds__(kOrderedSumThreads)
    ordered_walk_kernel(const __grid_constant__ Jobs J, const ordered_seg *segs, int max_segs)
{
    typedef ordered_fp<Acc> fp;
    constexpr int M = fp::kMant;
    constexpr long long kLo = (1ll << (M - 1)) + 1, kHi = (1ll << M) - 1;
    constexpr long long kLim = 1ll << (M + 1);
    constexpr int kStage = 256; // summaries staged in shared memory at a time
    __shared__ ordered_seg s_seg[kStage];
    const int job = blockIdx.x;
    const size_t n = J.size(job);
    const int nseg = (int)ordered_segs(n);
    const ordered_job_term<Acc, Jobs> term = {&J, job};
    Acc acc = 0;
    for (int s0 = 0; s0 < nseg; s0 += kStage) {
        const int cnt = nseg - s0 < kStage ? nseg - s0 : kStage;
        __syncthreads();
        for (int k = threadIdx.x; k < cnt; k += kOrderedSumThreads)
            s_seg[k] = segs[(size_t)job * (size_t)max_segs + (size_t)(s0 + k)];
        __syncthreads();
        int k = 0;
        while (k < cnt) {
            const int e = fp::exponent(acc);
            if (acc != (Acc)0 && fp::finite(acc) && e >= fp::kMinExp) {
                // up to 32 segments at once: every warp scans the same group
                // (the block stays in step without a barrier); the longest
                // prefix made for this binade whose partial sums stay inside
                // it is one step
                const double scale = ordered_pow2(M - 1 - e), unit = ordered_pow2(e - (M - 1));
                const long long S = (long long)((double)acc * scale);
                const int q = (int)(S & 1);
                const int lane = threadIdx.x & 31;
                const int gsize = cnt - k < 32 ? cnt - k : 32;
                ordered_run r = ordered_run_empty();
                if (lane < gsize) {
                    const ordered_seg &g = s_seg[k + lane];
                    if (g.ok && g.e == e) {
                        for (int j = 0; j < 2; j++) {
                            r.c[j] = g.c[j];
                            r.lo[j] = g.lo[j];
                            r.hi[j] = g.hi[j];
                        }
                    } else {
                        r.big = 1;
                    }
                }
                for (int o = 1; o < 32; o <<= 1) {
                    const ordered_run a = ordered_run_shfl<true>(r, o);
                    if (lane >= o)
                        r = ordered_run_then(a, r, kLim);
                }
                const long long lo = S + r.lo[q], hi = S + r.hi[q];
                const bool in = lane < gsize && !r.big &&
                                (S > 0 ? (lo >= kLo && hi <= kHi) : (hi <= -kLo && lo >= -kHi));
                const unsigned ok = __ballot_sync(0xffffffffu, in);
                const int m = ok == 0xffffffffu ? 32 : __ffs(~ok) - 1; // the leading prefix
                const long long c = __shfl_sync(0xffffffffu, r.c[q], m > 0 ? m - 1 : 0);
                if (m > 0) {
                    acc = (Acc)((double)(S + c) * unit);
                    k += m;
                    if (m == gsize)
                        continue;
                }
            }
            // segment k the slow way: a crossing, another binade, no summary
            const size_t begin = (size_t)(s0 + k) * kOrderedSegTerms;
            const size_t end = begin + kOrderedSegTerms < n ? begin + kOrderedSegTerms : n;
            acc = ordered_sum_range<Acc>(term, begin, end, acc);
            k++;
        }
    }
    if (threadIdx.x == 0)
        J.put(job, acc);
}

// The three launches for jobs sums of at most max_n terms each, on stream st,
// with ordered_sums_scratch(jobs, max_n) bytes of device scratch.
template <typename Acc, typename Jobs>
cudaError_t ordered_sums_launch(const Jobs &J, int jobs, size_t max_n, void *scratch,
                                cudaStream_t st)
{
    if (jobs < 1)
        return cudaSuccess;
    const int max_segs = (int)(ordered_segs(max_n) ? ordered_segs(max_n) : 1);
    double *approx = static_cast<double *>(scratch);
    ordered_seg *segs = reinterpret_cast<ordered_seg *>(approx + (size_t)jobs * (size_t)max_segs);
    const dim3 grid((unsigned)max_segs, (unsigned)jobs);
    ordered_approx_kernel<Jobs><<<grid, kOrderedSumThreads, 0, st>>>(J, approx, max_segs);
    ordered_summary_kernel<Acc, Jobs>
        <<<grid, kOrderedSumThreads, 0, st>>>(J, approx, segs, max_segs);
    ordered_walk_kernel<Acc, Jobs>
        <<<(unsigned)jobs, kOrderedSumThreads, 0, st>>>(J, segs, max_segs);
    return cudaGetLastError();
}

#endif
