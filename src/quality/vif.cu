/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Integer VIF kernels: one launch per scale for a batch of frame pairs
// (blockIdx.z = pair). A block loads a mirrored tile of ref and dis into shared
// memory; each thread runs the vertical statistic filter down 8 rows of one
// column from registers, then the horizontal filter over 4 neighboring
// columns from vector loads, the per-pixel statistic and a block reduction of
// its four 64-bit sums (one atomicAdd each); the next scale's subsampled images
// come from the same tile. Symmetric taps are folded (mirrored pair added
// before the multiply): in uint32 arithmetic c*(a+b) == c*a + c*b mod 2^32, so
// every sum has the bits of vif_ref.c's. The double steps use explicitly
// rounded intrinsics (and the file is compiled with --fmad=false) so nothing is
// contracted.
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality/vif_cuda.h"

namespace
{

constexpr int kThreads = 256;
constexpr int kTileW = 112; // output columns per block
constexpr int kTileH = 16;  // output rows per block
constexpr int kCols = 128;  // tile columns in shared memory (kTileW + 16 at scale 0)
constexpr int kVRows = 8;   // vertical results per thread (one column)
constexpr int kHCols = 4;   // horizontal results per thread (one row)
constexpr int kSigmaNsq = 65536 << 1;
static_assert(kThreads == kCols * (kTileH / kVRows), "one vertical job per thread");

// The filters of vif_ref.c (fv_vif_filter), as immediates after unrolling.
template <int S> __device__ __forceinline__ constexpr uint32_t tap(int k)
{
    if (S == 0) {
        constexpr uint32_t f[17] = {489,  935,  1640, 2640, 3896, 5274, 6547, 7455, 7784,
                                    7455, 6547, 5274, 3896, 2640, 1640, 935,  489};
        return f[k];
    } else if (S == 1) {
        constexpr uint32_t f[9] = {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244};
        return f[k];
    } else if (S == 2) {
        constexpr uint32_t f[5] = {3571, 16004, 26386, 16004, 3571};
        return f[k];
    } else {
        constexpr uint32_t f[3] = {10904, 43728, 10904};
        return f[k];
    }
}

template <int S> struct Taps {
    static constexpr int n = S == 0 ? 17 : S == 1 ? 9 : S == 2 ? 5 : 3;
    static constexpr int half = n / 2;
};

// Shared memory of one block of scale S, in bytes from the start: reduction,
// vertical x*x / y*y / x*y (u32), input tile (u16), vertical mu (u16), vertical
// pass of the subsampling (u16). Every part starts 16-byte aligned.
template <int S> struct Smem {
    static constexpr int H = Taps<S>::half;
    static constexpr int in_rows = kTileH + 2 * H;
    static constexpr size_t red = 0;
    static constexpr size_t sq = red + (kThreads / 32) * VIF_CUDA_NSUMS * 8;
    static constexpr size_t in = sq + 3 * kTileH * kCols * 4;
    static constexpr size_t mu = in + 2 * in_rows * kCols * 2;
    static constexpr size_t sub = mu + 2 * kTileH * kCols * 2;
    static constexpr size_t bytes = sub + (S < 3 ? 2 * (kTileH / 2) * kCols * 2 : 0);
};

// vif_ref.c's mirror(), clamped so that tile positions outside the image (whose
// results are never used) still read inside it.
__device__ __forceinline__ int mirror_clamp(int i, int n)
{
    if (i < 0)
        i = -i;
    if (i >= n)
        i = 2 * (n - 1) - i;
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

// ((uint64_t)a * b + 2^31) >> 32
__device__ __forceinline__ uint32_t mul_hi_round(uint32_t a, uint32_t b)
{
    return (uint32_t)(((unsigned long long)a * b + 0x80000000ull) >> 32);
}

__device__ __forceinline__ int32_t log2_u32(const uint16_t *t, uint32_t v)
{
    const int k = 16 - __clz((int)v);
    return (int32_t)__ldg(&t[v >> k]) + 2048 * k;
}

__device__ __forceinline__ int32_t log2_u64(const uint16_t *t, uint64_t v)
{
    const int k = 48 - __clzll((long long)v);
    return (int32_t)__ldg(&t[v >> k]) + 2048 * k;
}

template <bool U8>
__device__ __forceinline__ uint32_t load_sample(const uint8_t *base, ptrdiff_t stride, int y, int x)
{
    const uint8_t *row = base + (ptrdiff_t)y * stride;
    if (U8)
        return __ldg(row + x);
    return __ldg(reinterpret_cast<const uint16_t *>(row) + x);
}

__device__ __forceinline__ long long warp_sum(long long v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

// o[r] = sum_k tap(k) * v[r + k] for R consecutive outputs, symmetric taps folded.
template <int S, int R, int N>
__device__ __forceinline__ void filt(const uint32_t (&v)[N], uint32_t (&o)[R])
{
    constexpr int T = Taps<S>::n, H = Taps<S>::half;
    static_assert(R + T - 1 <= N, "filter window");
#pragma unroll
    for (int r = 0; r < R; r++) {
        uint32_t s = tap<S>(H) * v[r + H];
#pragma unroll
        for (int k = 0; k < H; k++)
            s += tap<S>(k) * (v[r + k] + v[r + T - 1 - k]);
        o[r] = s;
    }
}

// N u16 values from 8-byte aligned shared memory (N a multiple of 4).
template <int N> __device__ __forceinline__ void load_u16(const uint16_t *p, uint32_t (&v)[N])
{
#pragma unroll
    for (int m = 0; m < N / 4; m++) {
        const uint2 u = reinterpret_cast<const uint2 *>(p)[m];
        v[4 * m] = u.x & 0xffffu;
        v[4 * m + 1] = u.x >> 16;
        v[4 * m + 2] = u.y & 0xffffu;
        v[4 * m + 3] = u.y >> 16;
    }
}

// N u32 values from 16-byte aligned shared memory (N a multiple of 4).
template <int N> __device__ __forceinline__ void load_u32(const uint32_t *p, uint32_t (&v)[N])
{
#pragma unroll
    for (int m = 0; m < N / 4; m++) {
        const uint4 u = reinterpret_cast<const uint4 *>(p)[m];
        v[4 * m] = u.x;
        v[4 * m + 1] = u.y;
        v[4 * m + 2] = u.z;
        v[4 * m + 3] = u.w;
    }
}

// Horizontal sum of a 32-bit vertical result over kHCols columns: the high and
// low 16-bit halves filtered apart and recombined as (sum + 32768) >> 16 of the
// 48-bit sum (hstat of vif_ref.c).
template <int S, int N>
__device__ __forceinline__ void hsum_wide(const uint32_t *p, uint32_t (&o)[kHCols])
{
    uint32_t hi[N], lo[N], oh[kHCols], ol[kHCols];
    load_u32<N>(p, hi);
#pragma unroll
    for (int j = 0; j < N; j++) {
        lo[j] = hi[j] & 0xffffu;
        hi[j] >>= 16;
    }
    filt<S>(hi, oh);
    filt<S>(lo, ol);
#pragma unroll
    for (int q = 0; q < kHCols; q++)
        o[q] = oh[q] + ((ol[q] + 32768) >> 16);
}

struct Sums {
    long long num_log, den_log, num_non_log, den_non_log;
};

// libvmaf's per-pixel statistic (row_statistic of vif_ref.c).
__device__ __forceinline__ void statistic(uint32_t a1, uint32_t a2, uint32_t xx, uint32_t yy,
                                          uint32_t xy, const uint16_t *log2_table, double limit,
                                          Sums &acc)
{
    const double eps = 65536 * 1.0e-10;
    const int32_t sigma1_sq = (int32_t)(xx - mul_hi_round(a1, a1));
    const int32_t v2 = (int32_t)(yy - mul_hi_round(a2, a2));
    const int32_t sigma2_sq = v2 > 0 ? v2 : 0;
    const int32_t sigma12 = (int32_t)(xy - mul_hi_round(a1, a2));
    if (sigma1_sq >= kSigmaNsq) {
        acc.den_log += log2_u32(log2_table, (uint32_t)kSigmaNsq + (uint32_t)sigma1_sq) - 2048 * 17;
        if (sigma12 > 0 && sigma2_sq > 0) {
            const double g = __ddiv_rn((double)sigma12, __dadd_rn((double)sigma1_sq, eps));
            const double sv = __dsub_rn((double)sigma2_sq, __dmul_rn(g, (double)sigma12));
            const double gl = g > limit ? limit : g;
            const double gg = __dmul_rn(__dmul_rn(gl, gl), (double)sigma1_sq);
            const double svc = sv > 0.0 ? sv : 0.0;
            const uint32_t numer1 = (uint32_t)(int32_t)svc + (uint32_t)kSigmaNsq;
            const int64_t numer2 = (int64_t)gg + numer1;
            acc.num_log += log2_u64(log2_table, (uint64_t)numer2) - log2_u64(log2_table, numer1);
        }
    } else {
        acc.num_non_log += sigma2_sq;
        acc.den_non_log++;
    }
}

// The kernel's steps below, one function each, in the order the kernel runs
// them; every one is inlined, so the kernel compiles as one body.

// The shared-memory parts of one block of scale S (Smem<S>).
template <int S> struct Tile {
    long long (*red)[VIF_CUDA_NSUMS]; // [kThreads / 32]
    uint32_t *sq;                     // [3][kTileH][kCols]
    uint16_t *in;                     // [2][Smem<S>::in_rows][kCols]
    uint16_t *mu;                     // [2][kTileH][kCols]
    uint16_t *sub;                    // [2][kTileH/2][kCols]
};

// 1. mirrored tile of both images
template <int S, bool U8>
__device__ __forceinline__ void load_tile(const vif_cuda_scale_args &a, int tid, int z, int x0,
                                          int y0, uint16_t *s_in)
{
    constexpr int H = Taps<S>::half;
    constexpr int IR = Smem<S>::in_rows;
    const int w = a.w, h = a.h;
    const uint8_t *ref = a.ref[z], *dis = a.dis[z];
    const ptrdiff_t rstride = a.rstride[z], dstride = a.dstride[z];
    for (int i = tid; i < IR * kCols; i += kThreads) {
        const int r = i / kCols, c = i - r * kCols;
        const int gy = mirror_clamp(y0 - H + r, h), gx = mirror_clamp(x0 - H + c, w);
        s_in[i] = (uint16_t)load_sample<U8>(ref, rstride, gy, gx);
        s_in[IR * kCols + i] = (uint16_t)load_sample<U8>(dis, dstride, gy, gx);
    }
}

// One of the three vertical products of step 2 (f = 0: x*x, 1: y*y, 2: x*y)
// filtered down kVRows rows of one column into dst (u32).
template <int S, bool U8, int NV>
__device__ __forceinline__ void vertical_product(const uint32_t (&x)[NV], const uint32_t (&y)[NV],
                                                 int f, int shift, uint32_t *dst, int r0, int c)
{
    uint32_t o[kVRows];
    if (U8) {
        // x*y < 2^16: the unshifted sums fit 32 bits
        uint32_t p[NV];
#pragma unroll
        for (int j = 0; j < NV; j++)
            p[j] = f == 0 ? x[j] * x[j] : f == 1 ? y[j] * y[j] : x[j] * y[j];
        filt<S>(p, o);
#pragma unroll
        for (int r = 0; r < kVRows; r++)
            dst[(r0 + r) * kCols + c] = o[r];
    } else {
        const int sh = 2 * (shift - 8);
        const uint32_t sq_rnd = sh ? 1u << (sh - 1) : 0;
        uint32_t hi[NV], lo[NV], ol[kVRows];
#pragma unroll
        for (int j = 0; j < NV; j++) {
            const uint32_t p = f == 0 ? x[j] * x[j] : f == 1 ? y[j] * y[j] : x[j] * y[j];
            hi[j] = p >> 16;
            lo[j] = p & 0xffffu;
        }
        filt<S>(hi, o);
        filt<S>(lo, ol);
#pragma unroll
        for (int r = 0; r < kVRows; r++)
            dst[(r0 + r) * kCols + c] = (o[r] << (16 - sh)) + ((ol[r] + sq_rnd) >> sh);
    }
}

// 2. vertical statistic pass (vstat_u8 / vstat_u16 of vif_ref.c): one column,
//    kVRows consecutive rows per thread, the window kept in registers
template <int S, bool U8>
__device__ __forceinline__ void vertical_pass(const Tile<S> &t, int tid, int shift, uint32_t rnd)
{
    constexpr int H = Taps<S>::half;
    constexpr int IR = Smem<S>::in_rows;
    constexpr int NV = kVRows + 2 * H;
    const int c = tid % kCols, r0 = (tid / kCols) * kVRows;
    uint32_t x[NV], y[NV], o[kVRows];
#pragma unroll
    for (int j = 0; j < NV; j++) {
        x[j] = t.in[(r0 + j) * kCols + c];
        y[j] = t.in[(IR + r0 + j) * kCols + c];
    }
    filt<S>(x, o);
#pragma unroll
    for (int r = 0; r < kVRows; r++)
        t.mu[(r0 + r) * kCols + c] = (uint16_t)((o[r] + rnd) >> shift);
    filt<S>(y, o);
#pragma unroll
    for (int r = 0; r < kVRows; r++)
        t.mu[(kTileH + r0 + r) * kCols + c] = (uint16_t)((o[r] + rnd) >> shift);
#pragma unroll
    for (int f = 0; f < 3; f++)
        vertical_product<S, U8>(x, y, f, shift, t.sq + f * kTileH * kCols, r0, c);
}

// The filter of the next scale (the subsampling filter of scale S)
template <int S> struct Next {
    static constexpr int NS = S < 3 ? S + 1 : S; // next scale (unused at S == 3)
    static constexpr int T = Taps<NS>::n, H = Taps<NS>::half;
};

// 3. vertical pass of the subsampling, at the even rows of the tile (tile
//    origins are even, so local even rows are global even rows)
template <int S>
__device__ __forceinline__ void subsample_rows(const Tile<S> &t, int tid, int shift, uint32_t rnd)
{
    constexpr int H = Taps<S>::half;
    constexpr int IR = Smem<S>::in_rows;
    constexpr int NS = Next<S>::NS, ST = Next<S>::T, SH = Next<S>::H;
    constexpr int SW = kTileW + 2 * SH; // subsample vertical results per row
    const uint16_t *s_in = t.in;
    for (int i = tid; i < (kTileH / 2) * SW; i += kThreads) {
        const int q = i / SW, cc = i - q * SW;
        const int r0 = 2 * q + H - SH, c = cc + H - SH;
        uint32_t sr = tap<NS>(SH) * s_in[(r0 + SH) * kCols + c];
        uint32_t sd = tap<NS>(SH) * s_in[(IR + r0 + SH) * kCols + c];
#pragma unroll
        for (int k = 0; k < SH; k++) {
            sr += tap<NS>(k) *
                  ((uint32_t)s_in[(r0 + k) * kCols + c] + s_in[(r0 + ST - 1 - k) * kCols + c]);
            sd += tap<NS>(k) * ((uint32_t)s_in[(IR + r0 + k) * kCols + c] +
                                s_in[(IR + r0 + ST - 1 - k) * kCols + c]);
        }
        t.sub[q * kCols + cc] = (uint16_t)((sr + rnd) >> shift);
        t.sub[(kTileH / 2 + q) * kCols + cc] = (uint16_t)((sd + rnd) >> shift);
    }
}

// 4. horizontal statistic pass over kHCols columns per thread and the
//    per-pixel statistic (hstat and row_statistic of vif_ref.c)
template <int S>
__device__ __forceinline__ void horizontal_pass(const vif_cuda_scale_args &a, const Tile<S> &t,
                                                int tid, int x0, int y0, Sums &acc)
{
    constexpr int H = Taps<S>::half;
    constexpr int NH = (kHCols + 2 * H + 3) & ~3; // window, rounded for vector loads
    constexpr int groups = kTileW / kHCols;
    static_assert(kTileW % kHCols == 0 && (groups - 1) * kHCols + NH <= kCols, "window");
    const int w = a.w, h = a.h;
    const double limit = a.enhn_gain_limit;
    for (int i = tid; i < kTileH * groups; i += kThreads) {
        const int r = i / groups, c0 = (i - r * groups) * kHCols;
        if (y0 + r >= h || x0 + c0 >= w)
            continue;
        uint32_t v[NH], a1[kHCols], a2[kHCols], xx[kHCols], yy[kHCols], xy[kHCols];
        load_u16<NH>(t.mu + r * kCols + c0, v);
        filt<S>(v, a1);
        load_u16<NH>(t.mu + (kTileH + r) * kCols + c0, v);
        filt<S>(v, a2);
        hsum_wide<S, NH>(t.sq + r * kCols + c0, xx);
        hsum_wide<S, NH>(t.sq + (kTileH + r) * kCols + c0, yy);
        hsum_wide<S, NH>(t.sq + (2 * kTileH + r) * kCols + c0, xy);
#pragma unroll
        for (int q = 0; q < kHCols; q++)
            if (x0 + c0 + q < w)
                statistic(a1[q], a2[q], xx[q], yy[q], xy[q], a.log2_table, limit, acc);
    }
}

// 5. horizontal pass of the subsampling: even columns only
template <int S>
__device__ __forceinline__ void subsample_cols(const vif_cuda_scale_args &a, const Tile<S> &t,
                                               int tid, int z, int x0, int y0)
{
    constexpr int NS = Next<S>::NS, ST = Next<S>::T, SH = Next<S>::H;
    const int w2 = a.w / 2, h2 = a.h / 2;
    const size_t fofs = (size_t)z * a.out_frame_bytes;
    for (int i = tid; i < (kTileH / 2) * (kTileW / 2); i += kThreads) {
        const int q = i / (kTileW / 2), p = i - q * (kTileW / 2);
        const int i2 = y0 / 2 + q, j2 = x0 / 2 + p;
        if (i2 >= h2 || j2 >= w2)
            continue;
        const uint16_t *vr = t.sub + q * kCols + 2 * p;
        const uint16_t *vd = t.sub + (kTileH / 2 + q) * kCols + 2 * p;
        uint32_t sr = tap<NS>(SH) * vr[SH], sd = tap<NS>(SH) * vd[SH];
#pragma unroll
        for (int k = 0; k < SH; k++) {
            sr += tap<NS>(k) * ((uint32_t)vr[k] + vr[ST - 1 - k]);
            sd += tap<NS>(k) * ((uint32_t)vd[k] + vd[ST - 1 - k]);
        }
        uint16_t *orow = reinterpret_cast<uint16_t *>(reinterpret_cast<uint8_t *>(a.out_ref) +
                                                      fofs + (ptrdiff_t)i2 * a.out_stride);
        uint16_t *drow = reinterpret_cast<uint16_t *>(reinterpret_cast<uint8_t *>(a.out_dis) +
                                                      fofs + (ptrdiff_t)i2 * a.out_stride);
        orow[j2] = (uint16_t)((sr + 32768) >> 16);
        drow[j2] = (uint16_t)((sd + 32768) >> 16);
    }
}

// 6. block reduction; integers, so the order does not matter
template <int S>
__device__ __forceinline__ void block_sums(const vif_cuda_scale_args &a, const Tile<S> &t, int tid,
                                           int z, Sums acc)
{
    acc.num_log = warp_sum(acc.num_log);
    acc.den_log = warp_sum(acc.den_log);
    acc.num_non_log = warp_sum(acc.num_non_log);
    acc.den_non_log = warp_sum(acc.den_non_log);
    if ((tid & 31) == 0) {
        t.red[tid >> 5][0] = acc.num_log;
        t.red[tid >> 5][1] = acc.den_log;
        t.red[tid >> 5][2] = acc.num_non_log;
        t.red[tid >> 5][3] = acc.den_non_log;
    }
    __syncthreads();
    if (tid < VIF_CUDA_NSUMS) {
        long long s = 0;
#pragma unroll
        for (int wi = 0; wi < kThreads / 32; wi++)
            s += t.red[wi][tid];
        if (s != 0)
            atomicAdd(&a.sums[(size_t)z * VIF_CUDA_FRAME_SUMS + S * VIF_CUDA_NSUMS + tid],
                      (unsigned long long)s);
    }
}

template <int S, bool U8>
__global__ void __launch_bounds__(kThreads, 2) vif_scale_kernel(const vif_cuda_scale_args a)
{
    constexpr bool SUB = S < 3;
    static_assert(kTileW + 2 * Taps<S>::half <= kCols, "tile columns");

    extern __shared__ __align__(16) unsigned char smem[];
    const Tile<S> t = {reinterpret_cast<long long(*)[VIF_CUDA_NSUMS]>(smem + Smem<S>::red),
                       reinterpret_cast<uint32_t *>(smem + Smem<S>::sq),
                       reinterpret_cast<uint16_t *>(smem + Smem<S>::in),
                       reinterpret_cast<uint16_t *>(smem + Smem<S>::mu),
                       reinterpret_cast<uint16_t *>(smem + Smem<S>::sub)};

    const int tid = threadIdx.x;
    const int z = blockIdx.z;
    const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH;

    load_tile<S, U8>(a, tid, z, x0, y0, t.in);
    __syncthreads();

    const int shift = a.shift;
    const uint32_t rnd = 1u << (shift - 1);
    vertical_pass<S, U8>(t, tid, shift, rnd);
    if (SUB)
        subsample_rows<S>(t, tid, shift, rnd);
    __syncthreads();

    Sums acc = {0, 0, 0, 0};
    horizontal_pass<S>(a, t, tid, x0, y0, acc);
    if (SUB)
        subsample_cols<S>(a, t, tid, z, x0, y0);
    block_sums<S>(a, t, tid, z, acc);
}

template <int S, bool U8> cudaError_t prepare_one()
{
    return cudaFuncSetAttribute(vif_scale_kernel<S, U8>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, (int)Smem<S>::bytes);
}

template <int S, bool U8>
cudaError_t launch(const vif_cuda_scale_args &a, dim3 grid, cudaStream_t s)
{
    vif_scale_kernel<S, U8><<<grid, kThreads, Smem<S>::bytes, s>>>(a);
    return cudaGetLastError();
}

} // namespace

extern "C" int fv_vif_cuda_prepare(void)
{
    cudaError_t e = prepare_one<0, true>();
    if (e == cudaSuccess)
        e = prepare_one<0, false>();
    if (e == cudaSuccess)
        e = prepare_one<1, false>();
    if (e == cudaSuccess)
        e = prepare_one<2, false>();
    if (e == cudaSuccess)
        e = prepare_one<3, false>();
    return (int)e;
}

extern "C" int fv_vif_cuda_launch_scale(const vif_cuda_scale_args *a, void *stream)
{
    if (a->nframes < 1 || a->nframes > VIF_CUDA_MAX_BATCH)
        return (int)cudaErrorInvalidValue;
    const dim3 grid((unsigned)((a->w + kTileW - 1) / kTileW),
                    (unsigned)((a->h + kTileH - 1) / kTileH), (unsigned)a->nframes);
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    switch (a->scale) {
    case 0: return (int)(a->u8 ? launch<0, true>(*a, grid, s) : launch<0, false>(*a, grid, s));
    case 1: return (int)launch<1, false>(*a, grid, s);
    case 2: return (int)launch<2, false>(*a, grid, s);
    case 3: return (int)launch<3, false>(*a, grid, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
