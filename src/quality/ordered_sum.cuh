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
// term. Zero accumulators skip zero terms; non-finite or tiny (near
// subnormal) accumulators take one real addition at a time.
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

// term(i) gives term i as Acc (the value C adds). Every thread of the block
// (kOrderedSumThreads) must call it; every thread gets the sum.
template <typename Acc, typename Term> __device__ Acc ordered_sum_terms(const Term &term, size_t n)
{
    typedef ordered_fp<Acc> fp;
    constexpr int M = fp::kMant;
    constexpr size_t kWin = (size_t)kOrderedSumThreads * kOrderedSumPer;
    constexpr long long kLo = (1ll << (M - 1)) + 1, kHi = (1ll << M) - 1;
    __shared__ ordered_pair s_warp[2 * kOrderedSumWarps];
    __shared__ unsigned long long s_first;
    __shared__ Acc s_acc;
    const int tid = threadIdx.x;
    Acc acc = 0;
    size_t p = 0;
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
        const double scale = __longlong_as_double((long long)(1023 + M - 1 - e) << 52);
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
            acc = (Acc)((double)(S + ordered_pick(total, par0)) / scale);
            p = p + kWin;
        } else {
            if (bad == (size_t)first) {
                // the partial sum before the term, exact, then the real addition
                const Acc before_term = (Acc)((double)(S + off_bad) / scale);
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

template <typename Acc> struct ordered_float_terms {
    const float *t;
    __device__ __forceinline__ Acc operator()(size_t i) const
    {
        return (Acc)t[i];
    }
};

// The common case: float terms in memory.
template <typename Acc> __device__ Acc ordered_sum_block(const float *t, size_t n)
{
    return ordered_sum_terms<Acc>(ordered_float_terms<Acc>{t}, n);
}

#endif
