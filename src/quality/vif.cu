// Integer VIF kernels: one launch per scale. A block loads a mirrored tile of
// ref and dis into shared memory, runs the vertical and horizontal statistic
// filters, the per-pixel statistic and a block reduction of its four 64-bit
// sums (one atomicAdd each), and writes its part of the next scale's subsampled
// images from the same tile. Every step is the arithmetic of vif_ref.c; the
// double steps use explicitly rounded intrinsics (and the file is compiled with
// --fmad=false) so nothing is contracted.
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality/vif_cuda.h"

namespace {

constexpr int kTileW = 32;   // output columns per block (one warp wide)
constexpr int kTileH = 16;   // output rows per block
constexpr int kThreads = 256;
constexpr int kSigmaNsq = 65536 << 1;

// The filters of vif_ref.c (fovea_vif_filter), as immediates after unrolling.
template <int S>
__device__ __forceinline__ constexpr uint32_t tap(int k)
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
__device__ __forceinline__ uint32_t load_sample(const uint8_t *base, ptrdiff_t stride, int y,
                                                int x)
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

template <int S, bool U8>
__global__ void __launch_bounds__(kThreads) vif_scale_kernel(const vif_cuda_scale_args a)
{
    constexpr int T = Taps<S>::n, H = Taps<S>::half;
    constexpr int TW = kTileW + 2 * H, TH = kTileH + 2 * H;
    constexpr bool SUB = S < 3;
    constexpr int NS = SUB ? S + 1 : S; // next scale (unused when !SUB)
    constexpr int ST = Taps<NS>::n, SH = Taps<NS>::half;
    constexpr int SW = kTileW + 2 * SH; // subsample vertical results per row

    __shared__ uint16_t s_ref[TH][TW], s_dis[TH][TW];
    __shared__ uint16_t s_mu1[kTileH][TW], s_mu2[kTileH][TW];
    __shared__ uint32_t s_xx[kTileH][TW], s_yy[kTileH][TW], s_xy[kTileH][TW];
    __shared__ uint16_t s_vr[SUB ? kTileH / 2 : 1][SUB ? SW : 1];
    __shared__ uint16_t s_vd[SUB ? kTileH / 2 : 1][SUB ? SW : 1];
    __shared__ long long s_red[kThreads / 32][VIF_CUDA_NSUMS];

    const int tid = threadIdx.x;
    const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH;
    const int w = a.w, h = a.h;

    // 1. mirrored tile of both images
    for (int i = tid; i < TH * TW; i += kThreads) {
        const int r = i / TW, c = i - r * TW;
        const int gy = mirror_clamp(y0 - H + r, h), gx = mirror_clamp(x0 - H + c, w);
        s_ref[r][c] = (uint16_t)load_sample<U8>(a.ref, a.rstride, gy, gx);
        s_dis[r][c] = (uint16_t)load_sample<U8>(a.dis, a.dstride, gy, gx);
    }
    __syncthreads();

    // 2. vertical statistic pass (vstat_u8 / vstat_u16 of vif_ref.c)
    const int shift = a.shift;
    const uint32_t rnd = 1u << (shift - 1);
    for (int i = tid; i < kTileH * TW; i += kThreads) {
        const int r = i / TW, c = i - r * TW;
        if (U8) {
            uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
#pragma unroll
            for (int k = 0; k < T; k++) {
                const uint32_t x = s_ref[r + k][c], y = s_dis[r + k][c], cf = tap<S>(k);
                s0 += cf * x;
                s1 += cf * y;
                s2 += cf * (x * x);
                s3 += cf * (y * y);
                s4 += cf * (x * y);
            }
            s_mu1[r][c] = (uint16_t)((s0 + 128) >> 8);
            s_mu2[r][c] = (uint16_t)((s1 + 128) >> 8);
            s_xx[r][c] = s2;
            s_yy[r][c] = s3;
            s_xy[r][c] = s4;
        } else {
            const int sh = 2 * (shift - 8);
            const uint32_t sq_rnd = sh ? 1u << (sh - 1) : 0;
            uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
#pragma unroll
            for (int k = 0; k < T; k++) {
                const uint32_t x = s_ref[r + k][c], y = s_dis[r + k][c], cf = tap<S>(k);
                const uint32_t xx = x * x, yy = y * y, xy = x * y;
                s0 += cf * x;
                s1 += cf * y;
                s2 += cf * (xx >> 16);
                s3 += cf * (xx & 0xffff);
                s4 += cf * (yy >> 16);
                s5 += cf * (yy & 0xffff);
                s6 += cf * (xy >> 16);
                s7 += cf * (xy & 0xffff);
            }
            s_mu1[r][c] = (uint16_t)((s0 + rnd) >> shift);
            s_mu2[r][c] = (uint16_t)((s1 + rnd) >> shift);
            s_xx[r][c] = (s2 << (16 - sh)) + ((s3 + sq_rnd) >> sh);
            s_yy[r][c] = (s4 << (16 - sh)) + ((s5 + sq_rnd) >> sh);
            s_xy[r][c] = (s6 << (16 - sh)) + ((s7 + sq_rnd) >> sh);
        }
    }

    // 3. vertical pass of the subsampling, at the even rows of the tile (tile
    //    origins are even, so local even rows are global even rows)
    if (SUB) {
        for (int i = tid; i < (kTileH / 2) * SW; i += kThreads) {
            const int q = i / SW, cc = i - q * SW;
            const int r0 = 2 * q + H - SH, c = cc + H - SH;
            uint32_t sr = 0, sd = 0;
#pragma unroll
            for (int k = 0; k < ST; k++) {
                sr += tap<NS>(k) * s_ref[r0 + k][c];
                sd += tap<NS>(k) * s_dis[r0 + k][c];
            }
            s_vr[q][cc] = (uint16_t)((sr + rnd) >> shift);
            s_vd[q][cc] = (uint16_t)((sd + rnd) >> shift);
        }
    }
    __syncthreads();

    // 4. horizontal statistic pass and the per-pixel statistic (hstat and
    //    row_statistic of vif_ref.c)
    long long num_log = 0, den_log = 0, num_non_log = 0, den_non_log = 0;
    {
        const int c = tid & 31;
        const double eps = 65536 * 1.0e-10;
        const double limit = a.enhn_gain_limit;
        for (int r = tid >> 5; r < kTileH; r += kThreads / 32) {
            const int gx = x0 + c, gy = y0 + r;
            if (gx >= w || gy >= h)
                continue;
            uint32_t a1 = 0, a2 = 0, axh = 0, axl = 0, ayh = 0, ayl = 0, ach = 0, acl = 0;
#pragma unroll
            for (int k = 0; k < T; k++) {
                const uint32_t cf = tap<S>(k);
                const uint32_t vxx = s_xx[r][c + k], vyy = s_yy[r][c + k], vxy = s_xy[r][c + k];
                a1 += cf * s_mu1[r][c + k];
                a2 += cf * s_mu2[r][c + k];
                axh += cf * (vxx >> 16);
                axl += cf * (vxx & 0xffff);
                ayh += cf * (vyy >> 16);
                ayl += cf * (vyy & 0xffff);
                ach += cf * (vxy >> 16);
                acl += cf * (vxy & 0xffff);
            }
            const uint32_t xx = axh + ((axl + 32768) >> 16);
            const uint32_t yy = ayh + ((ayl + 32768) >> 16);
            const uint32_t xy = ach + ((acl + 32768) >> 16);
            const int32_t sigma1_sq = (int32_t)(xx - mul_hi_round(a1, a1));
            const int32_t v2 = (int32_t)(yy - mul_hi_round(a2, a2));
            const int32_t sigma2_sq = v2 > 0 ? v2 : 0;
            const int32_t sigma12 = (int32_t)(xy - mul_hi_round(a1, a2));
            if (sigma1_sq >= kSigmaNsq) {
                den_log += log2_u32(a.log2_table, (uint32_t)kSigmaNsq + (uint32_t)sigma1_sq) -
                           2048 * 17;
                if (sigma12 > 0 && sigma2_sq > 0) {
                    const double g =
                        __ddiv_rn((double)sigma12, __dadd_rn((double)sigma1_sq, eps));
                    const double sv =
                        __dsub_rn((double)sigma2_sq, __dmul_rn(g, (double)sigma12));
                    const double gl = g > limit ? limit : g;
                    const double gg = __dmul_rn(__dmul_rn(gl, gl), (double)sigma1_sq);
                    const double svc = sv > 0.0 ? sv : 0.0;
                    const uint32_t numer1 = (uint32_t)(int32_t)svc + (uint32_t)kSigmaNsq;
                    const int64_t numer2 = (int64_t)gg + numer1;
                    num_log += log2_u64(a.log2_table, (uint64_t)numer2) -
                               log2_u64(a.log2_table, numer1);
                }
            } else {
                num_non_log += sigma2_sq;
                den_non_log++;
            }
        }
    }

    // 5. horizontal pass of the subsampling: even columns only
    if (SUB) {
        const int w2 = w / 2, h2 = h / 2;
        for (int i = tid; i < (kTileH / 2) * (kTileW / 2); i += kThreads) {
            const int q = i / (kTileW / 2), p = i - q * (kTileW / 2);
            const int i2 = y0 / 2 + q, j2 = x0 / 2 + p;
            if (i2 >= h2 || j2 >= w2)
                continue;
            uint32_t sr = 0, sd = 0;
#pragma unroll
            for (int k = 0; k < ST; k++) {
                sr += tap<NS>(k) * s_vr[q][2 * p + k];
                sd += tap<NS>(k) * s_vd[q][2 * p + k];
            }
            uint16_t *orow = reinterpret_cast<uint16_t *>(
                reinterpret_cast<uint8_t *>(a.out_ref) + (ptrdiff_t)i2 * a.out_stride);
            uint16_t *drow = reinterpret_cast<uint16_t *>(
                reinterpret_cast<uint8_t *>(a.out_dis) + (ptrdiff_t)i2 * a.out_stride);
            orow[j2] = (uint16_t)((sr + 32768) >> 16);
            drow[j2] = (uint16_t)((sd + 32768) >> 16);
        }
    }

    // 6. block reduction; integers, so the order does not matter
    num_log = warp_sum(num_log);
    den_log = warp_sum(den_log);
    num_non_log = warp_sum(num_non_log);
    den_non_log = warp_sum(den_non_log);
    if ((tid & 31) == 0) {
        s_red[tid >> 5][0] = num_log;
        s_red[tid >> 5][1] = den_log;
        s_red[tid >> 5][2] = num_non_log;
        s_red[tid >> 5][3] = den_non_log;
    }
    __syncthreads();
    if (tid < VIF_CUDA_NSUMS) {
        long long t = 0;
#pragma unroll
        for (int wi = 0; wi < kThreads / 32; wi++)
            t += s_red[wi][tid];
        if (t != 0)
            atomicAdd(&a.sums[tid], (unsigned long long)t);
    }
}

} // namespace

extern "C" int fovea_vif_cuda_launch_scale(const vif_cuda_scale_args *a, void *stream)
{
    const dim3 grid((unsigned)((a->w + kTileW - 1) / kTileW),
                    (unsigned)((a->h + kTileH - 1) / kTileH));
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    switch (a->scale) {
    case 0:
        if (a->u8)
            vif_scale_kernel<0, true><<<grid, kThreads, 0, s>>>(*a);
        else
            vif_scale_kernel<0, false><<<grid, kThreads, 0, s>>>(*a);
        break;
    case 1:
        vif_scale_kernel<1, false><<<grid, kThreads, 0, s>>>(*a);
        break;
    case 2:
        vif_scale_kernel<2, false><<<grid, kThreads, 0, s>>>(*a);
        break;
    case 3:
        vif_scale_kernel<3, false><<<grid, kThreads, 0, s>>>(*a);
        break;
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
