/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Integer ADM kernels for a batch of frame pairs (blockIdx.z = pair), the
// arithmetic of adm_ref.c step for step. Per level: a DWT launch (a block makes
// a 64 x 8 tile of the four bands of ref and dis: the vertical pass into shared
// memory, then the horizontal pass) and a scoring launch over the scored region
// (a block takes a 64 x 16 tile: decoupling and CSF of the tile and its
// one-pixel ring, the masking sums of the ring in shared memory, then the
// denominator and both numerators). adm_ref.c shifts each row's 64-bit sum
// before adding it, so the scoring kernels sum each row of a tile with warp
// shuffles and add it to that row's counter (integer: any order gives the same
// bits); a last launch shifts and adds the rows. The float steps stay on the
// host (adm_den_float, adm_num_float). Level 0 bands are int16 as in the
// reference, the others int32. The double steps of the angle test use
// explicitly rounded intrinsics (and the file is compiled with --fmad=false).
#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "quality/adm_cuda.h"

namespace
{

constexpr int kPlanes = 8; // ref h, v, d, a, then dis h, v, d, a (adm_ref.c's band order)
constexpr int kBandA = 3;

constexpr int kDwtThreads = 256;
constexpr int kDwtW = 64;               // output columns per block
constexpr int kDwtH = 8;                // output rows per block
constexpr int kDwtCols = 2 * kDwtW + 2; // vertical results per row (source columns 2x-1 .. 2x+2)

constexpr int kScThreads = 256;
constexpr int kScW = 64; // scored columns per block: lanes and lanes + 32
constexpr int kScH = 16; // scored rows per block: warps and warps + 8
constexpr int kScRing = 2 * (kScW + 2) + 2 * kScH;
static_assert(kScThreads == 32 * (kScH / 2) && kScW == 64, "two rows and two columns a thread");
static_assert(kScRing <= kScThreads, "one ring position a thread");

constexpr int kFinThreads = 32 * ADM_CUDA_NSUMS; // one warp per sum

// db2 analysis filters in Q15 (adm_ref.c's db2_lo / db2_hi).
__device__ __forceinline__ constexpr int32_t lo_tap(int k)
{
    constexpr int32_t f[4] = {15826, 27411, 7345, -4240};
    return f[k];
}

__device__ __forceinline__ constexpr int32_t hi_tap(int k)
{
    constexpr int32_t f[4] = {-4240, -7345, 27411, -15826};
    return f[k];
}

// Where a pair's scratch keeps each level's eight band planes and per-row sums.
struct Layout {
    int bw[ADM_SCALES], bh[ADM_SCALES];
    size_t pitch[ADM_SCALES]; // elements
    size_t plane_bytes[ADM_SCALES];
    size_t band_off[ADM_SCALES]; // bytes from the pair's base
    size_t rows_off[ADM_SCALES]; // bytes from the pair's base: bh x ADM_CUDA_NSUMS u64
    size_t rows_bytes;           // the row sums of every level (contiguous)
    size_t pair_bytes;
};

size_t align256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

Layout make_layout(int width, int height)
{
    Layout l;
    size_t off = 0;
    int w = width, h = height;
    for (int s = 0; s < ADM_SCALES; s++) {
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        l.bw[s] = w;
        l.bh[s] = h;
        l.pitch[s] = ((size_t)w + 63) & ~(size_t)63;
        l.plane_bytes[s] = align256(l.pitch[s] * (s == 0 ? 2 : 4) * (size_t)h);
        l.band_off[s] = off;
        off += kPlanes * l.plane_bytes[s];
    }
    const size_t rows0 = off;
    for (int s = 0; s < ADM_SCALES; s++) {
        l.rows_off[s] = off;
        off += (size_t)l.bh[s] * ADM_CUDA_NSUMS * sizeof(unsigned long long);
    }
    l.rows_bytes = off - rows0;
    l.pair_bytes = align256(off);
    return l;
}

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

// |v| as GCC's abs() computes it (INT32_MIN stays INT32_MIN).
__device__ __forceinline__ int32_t iabs(int32_t v)
{
    return v < 0 ? (int32_t)(0u - (uint32_t)v) : v;
}

// ---------------------------------------------------------------- DWT

// adm_ref.c's dwt_indices rule: -1 reads 1, n + e reads n - 1 - e; clamped so
// that positions past the band (whose results are not stored) read inside.
__device__ __forceinline__ int dwt_mirror(int i, int n)
{
    if (i < 0)
        i = -i;
    if (i >= n)
        i = 2 * n - i - 1;
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

struct DwtArgs {
    const uint8_t *src[2][ADM_CUDA_MAX_BATCH]; // ref, dis input of pair z
    ptrdiff_t stride[2][ADM_CUDA_MAX_BATCH];   // bytes
    uint8_t *work;
    size_t pair_bytes;
    size_t out_off, out_plane_bytes, out_pitch; // this level's planes (pitch in elements)
    int w, h;                                   // input size
    int bw, bh;                                 // band size
    long long v_sub, v_add, h_add;
    int v_shift, h_shift;
    size_t zero_off, zero_bytes; // level 0: the pair's row sums, cleared here
};

template <typename In>
__device__ __forceinline__ long long load_in(const uint8_t *base, ptrdiff_t stride, int y, int x)
{
    return (long long)__ldg(reinterpret_cast<const In *>(base + (ptrdiff_t)y * stride) + x);
}

// One level of the DWT (adm_ref.c's dwt_level). In: uint8_t / uint16_t
// samples at level 0, the previous level's approximation band (int16_t at
// level 1, int32_t above) otherwise; Out: int16_t at level 0 (which also
// stores the vertical pass in int16), int32_t above.
template <typename In, typename Out>
__global__ void __launch_bounds__(kDwtThreads) dwt_kernel(const DwtArgs a)
{
    __shared__ int32_t s_v[4][kDwtH][kDwtCols]; // ref lo, ref hi, dis lo, dis hi

    const int tid = threadIdx.x, z = blockIdx.z;
    const int x0 = blockIdx.x * kDwtW, y0 = blockIdx.y * kDwtH;
    uint8_t *pair = a.work + (size_t)z * a.pair_bytes;
    if (a.zero_bytes && blockIdx.x == 0 && blockIdx.y == 0) {
        // the scoring launches of this batch add into these (stream order)
        unsigned long long *rows = reinterpret_cast<unsigned long long *>(pair + a.zero_off);
        for (size_t i = tid; i < a.zero_bytes / sizeof(unsigned long long); i += kDwtThreads)
            rows[i] = 0;
    }

    // 1. vertical pass at the source columns of the tile (mirrored)
    for (int i = tid; i < kDwtH * kDwtCols; i += kDwtThreads) {
        const int r = i / kDwtCols, c = i - r * kDwtCols;
        const int gx = dwt_mirror(2 * x0 - 1 + c, a.w);
        const int oy = y0 + r;
        int rows[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            rows[k] = dwt_mirror(2 * oy - 1 + k, a.h);
#pragma unroll
        for (int img = 0; img < 2; img++) {
            const uint8_t *src = a.src[img][z];
            const ptrdiff_t stride = a.stride[img][z];
            long long l = 0, hh = 0;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const long long s = load_in<In>(src, stride, rows[k], gx);
                l += lo_tap(k) * s;
                hh += hi_tap(k) * s;
            }
            l = (l - a.v_sub + a.v_add) >> a.v_shift;
            hh = (hh + a.v_add) >> a.v_shift;
            s_v[2 * img][r][c] = (Out)l;
            s_v[2 * img + 1][r][c] = (Out)hh;
        }
    }
    __syncthreads();

    // 2. horizontal pass at the even columns: a = lo(lo), v = hi(lo),
    //    h = lo(hi), d = hi(hi)
    for (int i = tid; i < kDwtH * kDwtW; i += kDwtThreads) {
        const int r = i / kDwtW, j = i - r * kDwtW;
        const int oy = y0 + r, ox = x0 + j;
        if (oy >= a.bh || ox >= a.bw)
            continue;
#pragma unroll
        for (int img = 0; img < 2; img++) {
            long long ll = 0, lh = 0, hl = 0, h2 = 0;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const long long lo = s_v[2 * img][r][2 * j + k];
                const long long hi = s_v[2 * img + 1][r][2 * j + k];
                ll += lo_tap(k) * lo;
                lh += hi_tap(k) * lo;
                hl += lo_tap(k) * hi;
                h2 += hi_tap(k) * hi;
            }
            const long long v[4] = {(hl + a.h_add) >> a.h_shift, (lh + a.h_add) >> a.h_shift,
                                    (h2 + a.h_add) >> a.h_shift, (ll + a.h_add) >> a.h_shift};
#pragma unroll
            for (int b = 0; b < 4; b++) {
                Out *plane = reinterpret_cast<Out *>(pair + a.out_off +
                                                     (size_t)(4 * img + b) * a.out_plane_bytes);
                plane[(size_t)oy * a.out_pitch + ox] = (Out)v[b];
            }
        }
    }
}

// ---------------------------------------------------------------- scoring

struct ScoreArgs {
    uint8_t *work;
    size_t pair_bytes;
    size_t band_off, plane_bytes, pitch; // this level's planes (pitch in elements)
    size_t rows_off;                     // this level's row sums
    adm_level L;
    float cos_sq; // adm_cos_1deg_sq()
    double gain;  // enhn_gain_limit
};

// Neighbor index of num_sums (adm_ref.c's nb): -1 reads 1, n reads n - 1
// (and positions further out, never used, read n - 1 too).
__device__ __forceinline__ int nb(int i, int n)
{
    return i < 0 ? 1 : (i >= n ? n - 1 : i);
}

// adm_ref.c's ratio_q15: k = clamp(t / o, 0, 1) in Q15; the reciprocal table
// entry D[32768 + i] = trunc(2^30 / i) is computed instead of looked up.
template <bool L0> __device__ __forceinline__ long long ratio_q15(int32_t o, int32_t t)
{
    if (o == 0)
        return 32768;
    const uint32_t ao = o < 0 ? 0u - (uint32_t)o : (uint32_t)o;
    long long k;
    if (L0) {
        const int32_t d = (int32_t)(1073741824u / ao); // |o| <= 32768
        const int32_t dl = o < 0 ? -d : d;
        k = (int32_t)(((long long)dl * t + 16384) >> 15);
    } else {
        int sh = 0;
        uint32_t m = ao;
        if (ao >= 32768) {
            sh = 17 - __clz((int)ao);
            m = (ao + (1u << (sh - 1))) >> sh;
        }
        const long long dl = (int32_t)(1073741824u / m);
        k = (dl * t * (o < 0 ? -1 : 1) + (1LL << (14 + sh))) >> (15 + sh);
    }
    return k < 0 ? 0 : (k > 32768 ? 32768 : k);
}

// adm_ref.c's decouple at one position: restored and additive parts of the
// three detail bands (o: reference, t: distorted coefficients h, v, d).
template <bool L0>
__device__ __forceinline__ void decouple_px(const int32_t (&o)[3], const int32_t (&t)[3],
                                            float cos_sq, double gain, int32_t (&rst)[3],
                                            int32_t (&add)[3])
{
    const long long ot_dp = (long long)o[0] * t[0] + (long long)o[1] * t[1];
    const long long o_mag = (long long)o[0] * o[0] + (long long)o[1] * o[1];
    const long long t_mag = (long long)t[0] * t[0] + (long long)t[1] * t[1];
    // (float)x / 4096.0 in double: a float scaled by a power of two in double
    // is exact either way (no overflow, no subnormal), so multiply by 2^-12
    const double dp = __dmul_rn((double)__ll2float_rn(ot_dp), 0x1p-12);
    const double om = __dmul_rn((double)__ll2float_rn(o_mag), 0x1p-12);
    const double tm = __dmul_rn((double)__ll2float_rn(t_mag), 0x1p-12);
    const bool angle_flag =
        dp >= 0.0 && __dmul_rn(dp, dp) >= __dmul_rn(__dmul_rn((double)cos_sq, om), tm);
#pragma unroll
    for (int b = 0; b < 3; b++) {
        const long long k = ratio_q15<L0>(o[b], t[b]);
        long long r = (k * o[b] + 16384) >> 15;
        r = L0 ? (long long)(int16_t)r : (long long)(int32_t)r;
        if (angle_flag && k > 0 && o[b] != 0) {
            const double g = __dmul_rn((double)r, gain);
            const double tv = (double)t[b];
            const double v = o[b] > 0 ? (g < tv ? g : tv) : (g > tv ? g : tv);
            // v lies between 0 and t: in range of the band's type
            const int32_t vi = __double2int_rz(v);
            r = L0 ? (long long)(int16_t)vi : (long long)vi;
        }
        const long long d = (long long)t[b] - r;
        rst[b] = (int32_t)r;
        add[b] = L0 ? (int32_t)(int16_t)d : (int32_t)d;
    }
}

// adm_ref.c's csf_bands on one position of the masker x, summed over the three
// bands: f = sum of the |csf|/30 terms (what a neighbor contributes to the
// threshold) and c = sum of the |csf|/15 center terms of num_sums. Sums in
// wrapping 32-bit arithmetic, as the reference's int32 thr (any order).
template <bool L0>
__device__ __forceinline__ void masker(const int32_t (&x)[3], const uint32_t (&q)[3], uint32_t &f,
                                       uint32_t &c)
{
    f = 0;
    c = 0;
#pragma unroll
    for (int b = 0; b < 3; b++) {
        if (L0) {
            const int sh = b == 2 ? 17 : 15, rnd = b == 2 ? 65535 : 16384;
            const int32_t cs = (int16_t)(((int32_t)q[b] * x[b] + rnd) >> sh);
            const int32_t ac = cs < 0 ? -cs : cs; // <= 32768
            f += (uint32_t)(int32_t)(int16_t)((4369 * ac + 2048) >> 12);
            c += (uint32_t)(int32_t)(int16_t)((8738 * ac + 2048) >> 12);
        } else {
            const int32_t cs = (int32_t)(((long long)q[b] * x[b] + (1 << 27)) >> 28);
            const int32_t ac = iabs(cs);
            f += (uint32_t)(int32_t)(((long long)143165577 * ac - (1LL << 31)) >> 32);
            c += (uint32_t)(int32_t)(((long long)286331153 * ac - (1LL << 31)) >> 32);
        }
    }
}

// One band's term of num_sums: x = CSF-weighted r less the threshold, clipped
// at 0, cubed in fixed point.
template <bool L0>
__device__ __forceinline__ long long num_term(int32_t r, uint32_t q, uint32_t thr, int b,
                                              const adm_level &L)
{
    int32_t x, x_sq;
    if (L0) {
        const int sub = b == 2 ? 12 : 10, sh_sq = b == 2 ? 30 : 29;
        const int32_t xv = r * (int32_t)q;
        const uint32_t axv = xv < 0 ? 0u - (uint32_t)xv : (uint32_t)xv;
        x = (int32_t)(axv - (thr << sub));
        x = x < 0 ? 0 : x;
        x_sq = (int32_t)(((long long)x * x + (1LL << (sh_sq - 1))) >> sh_sq);
    } else {
        const int32_t xv = (int32_t)(((long long)r * q + (1 << 27)) >> 28);
        x = (int32_t)((uint32_t)iabs(xv) - thr);
        x = x < 0 ? 0 : x;
        x_sq = (int32_t)(((long long)x * x + (1 << 29)) >> 30);
    }
    return ((long long)x_sq * x + L.num_cub_round[b]) >> L.num_cub_shift[b];
}

// One band's term of den_sums.
template <bool L0>
__device__ __forceinline__ unsigned long long den_term(int32_t o, const adm_level &L)
{
    if (L0) {
        const unsigned long long x = (uint16_t)(o < 0 ? -o : o);
        return x * x * x;
    }
    const unsigned long long x = (uint32_t)iabs(o);
    return ((((x * x) + (1ULL << L.den_sq)) >> L.den_sq) * x + L.den_cub_round) >> L.den_cub_shift;
}

template <bool L0>
__device__ __forceinline__ void load_px(const uint8_t *bands, size_t plane_bytes, size_t at,
                                        int32_t (&o)[3], int32_t (&t)[3])
{
    using T = typename std::conditional<L0, int16_t, int32_t>::type;
#pragma unroll
    for (int b = 0; b < 3; b++) {
        o[b] = __ldg(reinterpret_cast<const T *>(bands + (size_t)b * plane_bytes) + at);
        t[b] = __ldg(reinterpret_cast<const T *>(bands + (size_t)(4 + b) * plane_bytes) + at);
    }
}

// Denominator and numerators of one level over a kScW x kScH tile of the scored
// region; each row's sums are added to that row's counters.
template <bool L0> __global__ void __launch_bounds__(kScThreads) score_kernel(const ScoreArgs a)
{
    // masking sums f of the tile and its ring: [0] of the additive part (the
    // DLM masker), [1] of the restored part (the AIM masker)
    __shared__ uint32_t s_f[2][kScH + 2][kScW + 2];

    const adm_level &L = a.L;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, z = blockIdx.z;
    const int j0 = L.sl + blockIdx.x * kScW, i0 = L.st + blockIdx.y * kScH;
    const uint8_t *bands = a.work + (size_t)z * a.pair_bytes + a.band_off;
    const uint32_t q[3] = {L.q[0], L.q[1], L.q[2]};

    // 1. this thread's four positions: rows warp, warp + 8; columns lane, lane + 32
    int32_t rst[2][2][3], add[2][2][3];
    uint32_t c_add[2][2], c_rst[2][2];
    unsigned long long den[2][3] = {{0, 0, 0}, {0, 0, 0}};
#pragma unroll
    for (int rr = 0; rr < 2; rr++) {
#pragma unroll
        for (int cc = 0; cc < 2; cc++) {
            const int li = warp + 8 * rr, lj = lane + 32 * cc;
            const int i = i0 + li, j = j0 + lj;
            const size_t at = (size_t)nb(i, L.h) * a.pitch + nb(j, L.w);
            int32_t o[3], t[3];
            load_px<L0>(bands, a.plane_bytes, at, o, t);
            decouple_px<L0>(o, t, a.cos_sq, a.gain, rst[rr][cc], add[rr][cc]);
            uint32_t f_add, f_rst;
            masker<L0>(add[rr][cc], q, f_add, c_add[rr][cc]);
            masker<L0>(rst[rr][cc], q, f_rst, c_rst[rr][cc]);
            s_f[0][li + 1][lj + 1] = f_add;
            s_f[1][li + 1][lj + 1] = f_rst;
            if (i < L.sb && j < L.sr) {
#pragma unroll
                for (int b = 0; b < 3; b++)
                    den[rr][b] += den_term<L0>(o[b], L);
            }
        }
    }

    // 2. the ring around the tile: masking sums only
    if (tid < kScRing) {
        int li, lj;
        if (tid < kScW + 2) {
            li = -1;
            lj = tid - 1;
        } else if (tid < 2 * (kScW + 2)) {
            li = kScH;
            lj = tid - (kScW + 2) - 1;
        } else {
            const int k = tid - 2 * (kScW + 2);
            li = k < kScH ? k : k - kScH;
            lj = k < kScH ? -1 : kScW;
        }
        const size_t at = (size_t)nb(i0 + li, L.h) * a.pitch + nb(j0 + lj, L.w);
        int32_t o[3], t[3], r[3], d[3];
        load_px<L0>(bands, a.plane_bytes, at, o, t);
        decouple_px<L0>(o, t, a.cos_sq, a.gain, r, d);
        uint32_t f_add, f_rst, unused;
        masker<L0>(d, q, f_add, unused);
        masker<L0>(r, q, f_rst, unused);
        s_f[0][li + 1][lj + 1] = f_add;
        s_f[1][li + 1][lj + 1] = f_rst;
    }
    __syncthreads();

    // 3. numerators: DLM (restored part, masked by the additive part) and AIM
    //    (additive part, masked by the restored part)
    long long num[2][3] = {{0, 0, 0}, {0, 0, 0}}, aim[2][3] = {{0, 0, 0}, {0, 0, 0}};
#pragma unroll
    for (int rr = 0; rr < 2; rr++) {
#pragma unroll
        for (int cc = 0; cc < 2; cc++) {
            const int li = warp + 8 * rr, lj = lane + 32 * cc;
            if (i0 + li >= L.sb || j0 + lj >= L.sr)
                continue;
            uint32_t thr_dlm = c_add[rr][cc], thr_aim = c_rst[rr][cc];
#pragma unroll
            for (int di = 0; di < 3; di++) {
#pragma unroll
                for (int dj = 0; dj < 3; dj++) {
                    if (di == 1 && dj == 1)
                        continue;
                    thr_dlm += s_f[0][li + di][lj + dj];
                    thr_aim += s_f[1][li + di][lj + dj];
                }
            }
#pragma unroll
            for (int b = 0; b < 3; b++) {
                num[rr][b] += num_term<L0>(rst[rr][cc][b], q[b], thr_dlm, b, L);
                aim[rr][b] += num_term<L0>(add[rr][cc][b], q[b], thr_aim, b, L);
            }
        }
    }

    // 4. per-row sums: a warp holds two rows of the tile
    unsigned long long *rows =
        reinterpret_cast<unsigned long long *>(a.work + (size_t)z * a.pair_bytes + a.rows_off);
#pragma unroll
    for (int rr = 0; rr < 2; rr++) {
        const int i = i0 + warp + 8 * rr;
        unsigned long long v[ADM_CUDA_NSUMS];
#pragma unroll
        for (int b = 0; b < 3; b++) {
            v[b] = den[rr][b];
            v[3 + b] = (unsigned long long)num[rr][b];
            v[6 + b] = (unsigned long long)aim[rr][b];
        }
#pragma unroll
        for (int k = 0; k < ADM_CUDA_NSUMS; k++)
            v[k] = warp_sum(v[k]);
        if (lane == 0 && i < L.sb) {
#pragma unroll
            for (int k = 0; k < ADM_CUDA_NSUMS; k++)
                if (v[k] != 0)
                    atomicAdd(&rows[(size_t)i * ADM_CUDA_NSUMS + k], v[k]);
        }
    }
}

// ---------------------------------------------------------------- rows

struct FinalArgs {
    const uint8_t *work;
    size_t pair_bytes;
    size_t rows_off[ADM_SCALES];
    adm_level L[ADM_SCALES];
    unsigned long long *sums;
};

// Sum of the shifted rows of one level (blockIdx.x) of one pair (blockIdx.y):
// warp k takes sum k; unsigned for the denominator, signed for the numerators.
__global__ void __launch_bounds__(kFinThreads) rows_kernel(const FinalArgs a)
{
    const int s = blockIdx.x, z = blockIdx.y;
    const int k = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const adm_level &L = a.L[s];
    const unsigned long long *rows = reinterpret_cast<const unsigned long long *>(
        a.work + (size_t)z * a.pair_bytes + a.rows_off[s]);
    unsigned long long acc = 0;
    for (int i = L.st + lane; i < L.sb; i += 32) {
        const unsigned long long v = rows[(size_t)i * ADM_CUDA_NSUMS + k];
        if (k < 3)
            acc += (v + L.den_row_round) >> L.den_row_shift;
        else
            acc += (unsigned long long)(((long long)v + L.num_row_round) >> L.num_row_shift);
    }
    acc = warp_sum(acc);
    if (lane == 0)
        a.sums[(size_t)z * ADM_CUDA_FRAME_SUMS + s * ADM_CUDA_NSUMS + k] = acc;
}

template <typename In, typename Out>
cudaError_t launch_dwt(const DwtArgs &a, int nframes, cudaStream_t s)
{
    const dim3 grid((unsigned)((a.bw + kDwtW - 1) / kDwtW), (unsigned)((a.bh + kDwtH - 1) / kDwtH),
                    (unsigned)nframes);
    dwt_kernel<In, Out><<<grid, kDwtThreads, 0, s>>>(a);
    return cudaGetLastError();
}

template <bool L0> cudaError_t launch_score(const ScoreArgs &a, int nframes, cudaStream_t s)
{
    const int rw = a.L.sr - a.L.sl, rh = a.L.sb - a.L.st;
    const dim3 grid((unsigned)((rw + kScW - 1) / kScW), (unsigned)((rh + kScH - 1) / kScH),
                    (unsigned)nframes);
    score_kernel<L0><<<grid, kScThreads, 0, s>>>(a);
    return cudaGetLastError();
}

} // namespace

extern "C" size_t fv_adm_cuda_work_bytes(int width, int height, int nframes)
{
    return make_layout(width, height).pair_bytes * (size_t)(nframes > 0 ? nframes : 0);
}

extern "C" int fv_adm_cuda_launch(const adm_cuda_args *a, void *stream)
{
    if (a->nframes < 1 || a->nframes > ADM_CUDA_MAX_BATCH || a->width < ADM_MIN_DIM ||
        a->height < ADM_MIN_DIM)
        return (int)cudaErrorInvalidValue;
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    const Layout l = make_layout(a->width, a->height);
    uint8_t *work = static_cast<uint8_t *>(a->work);
    const int n = a->nframes;
    int w = a->width, h = a->height;
    for (int s = 0; s < ADM_SCALES; s++) {
        const adm_level &L = a->level[s];
        if (L.w != l.bw[s] || L.h != l.bh[s])
            return (int)cudaErrorInvalidValue;
        DwtArgs d;
        for (int z = 0; z < n; z++) {
            if (s == 0) {
                d.src[0][z] = a->ref[z];
                d.src[1][z] = a->dis[z];
                d.stride[0][z] = a->rstride[z];
                d.stride[1][z] = a->dstride[z];
            } else {
                // the previous level's approximation bands
                const uint8_t *prev = work + (size_t)z * l.pair_bytes + l.band_off[s - 1];
                d.src[0][z] = prev + kBandA * l.plane_bytes[s - 1];
                d.src[1][z] = prev + (4 + kBandA) * l.plane_bytes[s - 1];
                d.stride[0][z] = d.stride[1][z] =
                    (ptrdiff_t)(l.pitch[s - 1] * (s == 1 ? sizeof(int16_t) : sizeof(int32_t)));
            }
        }
        for (int z = n; z < ADM_CUDA_MAX_BATCH; z++) {
            d.src[0][z] = d.src[1][z] = nullptr;
            d.stride[0][z] = d.stride[1][z] = 0;
        }
        d.work = work;
        d.pair_bytes = l.pair_bytes;
        d.out_off = l.band_off[s];
        d.out_plane_bytes = l.plane_bytes[s];
        d.out_pitch = l.pitch[s];
        d.w = w;
        d.h = h;
        d.bw = L.w;
        d.bh = L.h;
        d.v_sub = L.v_sub;
        d.v_add = L.v_add;
        d.h_add = L.h_add;
        d.v_shift = L.v_shift;
        d.h_shift = L.h_shift;
        d.zero_off = s == 0 ? l.rows_off[0] : 0;
        d.zero_bytes = s == 0 ? l.rows_bytes : 0;
        cudaError_t e;
        if (s == 0)
            e = a->bpc == 8 ? launch_dwt<uint8_t, int16_t>(d, n, st)
                            : launch_dwt<uint16_t, int16_t>(d, n, st);
        else if (s == 1)
            e = launch_dwt<int16_t, int32_t>(d, n, st);
        else
            e = launch_dwt<int32_t, int32_t>(d, n, st);
        if (e != cudaSuccess)
            return (int)e;

        ScoreArgs sa;
        sa.work = work;
        sa.pair_bytes = l.pair_bytes;
        sa.band_off = l.band_off[s];
        sa.plane_bytes = l.plane_bytes[s];
        sa.pitch = l.pitch[s];
        sa.rows_off = l.rows_off[s];
        sa.L = L;
        sa.cos_sq = a->cos_1deg_sq;
        sa.gain = a->enhn_gain_limit;
        e = s == 0 ? launch_score<true>(sa, n, st) : launch_score<false>(sa, n, st);
        if (e != cudaSuccess)
            return (int)e;
        w = L.w;
        h = L.h;
    }
    FinalArgs f;
    f.work = work;
    f.pair_bytes = l.pair_bytes;
    for (int s = 0; s < ADM_SCALES; s++) {
        f.rows_off[s] = l.rows_off[s];
        f.L[s] = a->level[s];
    }
    f.sums = a->sums;
    rows_kernel<<<dim3(ADM_SCALES, (unsigned)n), kFinThreads, 0, st>>>(f);
    return (int)cudaGetLastError();
}
