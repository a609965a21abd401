/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// CAMBI kernels: the per-pixel stages of cambi_ref.c for one picture, on
// dense images, over the per-pixel functions of cambi_pixel.h, and the top-k
// sums of its maps. Everything is integer except the contrast value, one
// float product of the integer weight x p0 x pk (converted with round to
// nearest, as C's cast) and libvmaf's float reciprocal, rounded once
// (__fmul_rn; the file is compiled with --fmad=false too); the reciprocals
// are made on the host. The contrast values count, in the window of each
// masked pixel, the masked in-band samples equal to its value and to its
// value +- 1 .. num_diffs: the same counts as the C reference's sliding
// column histograms. Argument structs are __grid_constant__: the per-pixel
// functions take their address without a per-thread copy.
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality/cambi_cuda.h"
#include "quality/cambi_pixel.h"

namespace
{

constexpr int kBlockW = 32, kBlockH = 8;
constexpr int kCvW = 32, kCvH = 4, kCvThreads = kCvW * kCvH;

__global__ void preprocess_kernel(const __grid_constant__ cambi_cuda_pre a)
{
    const int x = blockIdx.x * kBlockW + threadIdx.x, y = blockIdx.y * kBlockH + threadIdx.y;
    if (x < a.ow && y < a.oh)
        a.out[(size_t)y * (size_t)a.ow + (size_t)x] = cambi_px_pre(&a, x, y);
}

// One block: kBlockW x kBlockH masks. The flat flags of the tile and its
// 3-sample margin go to shared memory once (a sample outside the picture
// counts 0, as the clipped window leaves it out), then each thread adds its
// 7x7 window there.
constexpr int kMaskW = kBlockW + 6, kMaskH = kBlockH + 6;

__global__ void __launch_bounds__(kBlockW *kBlockH)
    mask_kernel(const uint16_t *img, uint8_t *mask, int w, int h, uint32_t threshold)
{
    __shared__ uint8_t flat[kMaskH][kMaskW];
    const int bx = blockIdx.x * kBlockW - 3, by = blockIdx.y * kBlockH - 3;
    const int t = threadIdx.y * kBlockW + threadIdx.x;
    for (int i = t; i < kMaskW * kMaskH; i += kBlockW * kBlockH) {
        const int gx = bx + i % kMaskW, gy = by + i / kMaskW;
        flat[i / kMaskW][i % kMaskW] =
            gx >= 0 && gx < w && gy >= 0 && gy < h ? (uint8_t)cambi_px_flat(img, w, h, gx, gy) : 0;
    }
    __syncthreads();
    const int x = blockIdx.x * kBlockW + threadIdx.x, y = blockIdx.y * kBlockH + threadIdx.y;
    if (x >= w || y >= h)
        return;
    uint32_t sum = 0;
#pragma unroll
    for (int j = 0; j < 7; j++)
#pragma unroll
        for (int i = 0; i < 7; i++)
            sum += flat[threadIdx.y + j][threadIdx.x + i];
    mask[(size_t)y * (size_t)w + (size_t)x] = sum > threshold;
}

template <typename T> __global__ void decimate_kernel(const T *in, T *out, int w, int h)
{
    const int ow = (w + 1) >> 1, oh = (h + 1) >> 1;
    const int x = blockIdx.x * kBlockW + threadIdx.x, y = blockIdx.y * kBlockH + threadIdx.y;
    if (x < ow && y < oh)
        out[(size_t)y * (size_t)ow + (size_t)x] = in[(size_t)(2 * y) * (size_t)w + (size_t)(2 * x)];
}

__global__ void mode_kernel(const uint16_t *in, uint16_t *out, int w, int h)
{
    const int x = blockIdx.x * kBlockW + threadIdx.x, y = blockIdx.y * kBlockH + threadIdx.y;
    if (x < w && y < h)
        out[(size_t)y * (size_t)w + (size_t)x] = cambi_px_mode(in, w, h, x, y);
}

// One block: kCvW x kCvH pixels. The keys of the tile and its window margin
// go to shared memory, then each thread counts the keys near its own in its
// window, with its counters in shared memory (thread-strided).
__global__ void __launch_bounds__(kCvThreads)
    cvalues_kernel(const __grid_constant__ cambi_cuda_cv a)
{
    extern __shared__ uint16_t sm[];
    const int pad = a.window >> 1;
    const int sw = kCvW + 2 * pad, sh = kCvH + 2 * pad;
    uint16_t *keys = sm;
    uint16_t *cnt = sm + ((sw * sh + 1) & ~1);
    const int bx = blockIdx.x * kCvW - pad, by = blockIdx.y * kCvH - pad;
    for (int i = threadIdx.x; i < sw * sh; i += kCvThreads) {
        const int gx = bx + i % sw, gy = by + i / sw;
        uint16_t k = (uint16_t)CAMBI_NO_KEY;
        if (gx >= 0 && gx < a.w && gy >= 0 && gy < a.h) {
            const size_t o = (size_t)gy * (size_t)a.w + (size_t)gx;
            k = cambi_px_key(&a, a.img[o], a.mask[o]);
        }
        keys[i] = k;
    }
    __syncthreads();
    const int t = threadIdx.x, tx = t % kCvW, ty = t / kCvW;
    const int x = blockIdx.x * kCvW + tx, y = blockIdx.y * kCvH + ty;
    if (x >= a.w || y >= a.h)
        return;
    const uint16_t v = keys[(ty + pad) * sw + tx + pad];
    a.c[(size_t)y * (size_t)a.w + (size_t)x] =
        cambi_px_cvalue(&a, keys + ty * sw + tx, sw, v, cnt + t, kCvThreads);
}

// The radix select's state in sel: the histogram of the current digit, then
// the prefix and mask of the digits chosen so far and the rank left.
constexpr int kSelPrefix = 256, kSelMask = 257, kSelKleft = 258;
constexpr int kSelThreads = 256;

__global__ void sel_init_kernel(uint32_t *sel, int k)
{
    const int t = threadIdx.x;
    sel[t] = 0;
    if (t == 0) {
        sel[kSelPrefix] = 0;
        sel[kSelMask] = 0;
        sel[kSelKleft] = (uint32_t)k;
    }
}

__device__ __forceinline__ uint32_t bits_of(float v)
{
    return (uint32_t)__float_as_uint(v);
}

__global__ void __launch_bounds__(kSelThreads)
    sel_hist_kernel(const float *map, int n, uint32_t *sel, int shift)
{
    __shared__ uint32_t h[256];
    h[threadIdx.x] = 0;
    __syncthreads();
    const uint32_t prefix = sel[kSelPrefix], mask = sel[kSelMask];
    // whole warps every iteration: the lanes with the same digit (maps are
    // mostly zeros and a few exponents) add once, by their first lane
    const int lane = threadIdx.x & 31;
    for (int base = blockIdx.x * kSelThreads; base < n; base += gridDim.x * kSelThreads) {
        const int i = base + threadIdx.x;
        uint32_t digit = 256; // none
        if (i < n) {
            const uint32_t u = bits_of(map[i]);
            if ((u & mask) == prefix)
                digit = (u >> shift) & 255u;
        }
        const unsigned peers = __match_any_sync(0xffffffffu, digit);
        if (digit < 256 && lane == __ffs(peers) - 1)
            atomicAdd(&h[digit], (uint32_t)__popc(peers));
    }
    __syncthreads();
    if (h[threadIdx.x])
        atomicAdd(&sel[threadIdx.x], h[threadIdx.x]);
}

// The digit, by 256 threads: thread d holds hist[d] and the count of the
// digits above it (a suffix scan); the digit cambi_px_pick chooses is the one
// whose range holds rank kleft (d = 0 when none does), so exactly one thread
// writes. Then the histogram is cleared for the next pass.
__global__ void __launch_bounds__(kSelThreads) sel_pick_kernel(uint32_t *sel, int shift)
{
    __shared__ uint32_t warp_tot[kSelThreads / 32];
    const int d = threadIdx.x, lane = d & 31, warp = d >> 5;
    const uint32_t hd = sel[d];
    const uint32_t kleft = sel[kSelKleft];
    // inclusive suffix sum within the warp (lanes above = higher digits)
    uint32_t incl = hd;
    for (int o = 1; o < 32; o <<= 1) {
        const uint32_t v = __shfl_down_sync(0xffffffffu, incl, o);
        if (lane + o < 32)
            incl += v;
    }
    if (lane == 0)
        warp_tot[warp] = incl;
    __syncthreads();
    for (int w2 = warp + 1; w2 < kSelThreads / 32; w2++)
        incl += warp_tot[w2];
    const uint32_t excl = incl - hd;
    const bool pick = d == 0 ? excl < kleft : (incl >= kleft && excl < kleft);
    __syncthreads(); // every thread has read sel[] before it changes
    if (pick) {
        sel[kSelPrefix] |= (uint32_t)d << shift;
        sel[kSelMask] |= 255u << shift;
        sel[kSelKleft] = kleft - excl;
    }
    sel[d] = 0;
}

struct Fix {
    unsigned long long lo, hi, lsb, bad;
};

__device__ __forceinline__ void fix_add(Fix &a, unsigned long long lo, unsigned long long hi)
{
    const unsigned long long s = a.lo + lo;
    a.hi += hi + (s < a.lo);
    a.lo = s;
}

// The values above T summed exactly (128 bits in units of 2^-CAMBI_FIX_BITS:
// order free), the finest last set bit and whether some value did not fit;
// T and the copies of T left from the select.
__global__ void __launch_bounds__(kSelThreads)
    sel_sum_kernel(const float *map, int n, const uint32_t *sel, unsigned long long *out)
{
    __shared__ Fix part[kSelThreads / 32];
    const uint32_t t_bits = sel[kSelPrefix];
    Fix f = {0, 0, 0, 0};
    for (int i = blockIdx.x * kSelThreads + threadIdx.x; i < n; i += gridDim.x * kSelThreads) {
        const uint32_t u = bits_of(map[i]);
        if (u <= t_bits)
            continue;
        uint64_t units;
        uint32_t lsb;
        if (!cambi_px_fix(u, &units, &lsb)) {
            f.bad = 1;
            continue;
        }
        fix_add(f, (unsigned long long)units, 0);
        f.lsb = lsb > f.lsb ? lsb : f.lsb;
    }
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned long long lo = __shfl_down_sync(0xffffffffu, f.lo, o);
        const unsigned long long hi = __shfl_down_sync(0xffffffffu, f.hi, o);
        const unsigned long long lsb = __shfl_down_sync(0xffffffffu, f.lsb, o);
        const unsigned long long bad = __shfl_down_sync(0xffffffffu, f.bad, o);
        fix_add(f, lo, hi);
        f.lsb = lsb > f.lsb ? lsb : f.lsb;
        f.bad |= bad;
    }
    const int warp = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0)
        part[warp] = f;
    __syncthreads();
    if (threadIdx.x != 0)
        return;
    for (int w = 1; w < kSelThreads / 32; w++) {
        fix_add(f, part[w].lo, part[w].hi);
        f.lsb = part[w].lsb > f.lsb ? part[w].lsb : f.lsb;
        f.bad |= part[w].bad;
    }
    // a wrap of the low word carries into the high word (exact in any order)
    const unsigned long long old = atomicAdd(&out[CAMBI_SUM_LO], f.lo);
    const unsigned long long carry = old + f.lo < old ? 1ull : 0ull;
    if (f.hi + carry)
        atomicAdd(&out[CAMBI_SUM_HI], f.hi + carry);
    if (f.lsb)
        atomicMax(&out[CAMBI_SUM_LSB], f.lsb);
    if (f.bad)
        atomicOr(&out[CAMBI_SUM_BAD], f.bad);
    if (blockIdx.x == 0) {
        out[CAMBI_SUM_T] = t_bits;
        out[CAMBI_SUM_KLEFT] = sel[kSelKleft];
    }
}

__global__ void tag_kernel(unsigned long long *sums, size_t frame_sums, int n,
                           unsigned long long first)
{
    const int z = blockIdx.x * blockDim.x + threadIdx.x;
    if (z < n)
        sums[(size_t)z * frame_sums] = first + (unsigned long long)z;
}

dim3 grid_for(int w, int h)
{
    return dim3((unsigned)((w + kBlockW - 1) / kBlockW), (unsigned)((h + kBlockH - 1) / kBlockH));
}

} // namespace

extern "C" int fv_cambi_cuda_preprocess(const cambi_cuda_pre *a, void *stream)
{
    if (a->ow < 1 || a->oh < 1 || a->bpc < 8 || a->bpc > 16)
        return (int)cudaErrorInvalidValue;
    preprocess_kernel<<<grid_for(a->ow, a->oh), dim3(kBlockW, kBlockH), 0,
                        static_cast<cudaStream_t>(stream)>>>(*a);
    return (int)cudaGetLastError();
}

extern "C" int fv_cambi_cuda_mask(const uint16_t *img, uint8_t *mask, int w, int h,
                                  uint32_t threshold, void *stream)
{
    if (w < 1 || h < 1)
        return (int)cudaErrorInvalidValue;
    mask_kernel<<<grid_for(w, h), dim3(kBlockW, kBlockH), 0, static_cast<cudaStream_t>(stream)>>>(
        img, mask, w, h, threshold);
    return (int)cudaGetLastError();
}

extern "C" int fv_cambi_cuda_decimate16(const uint16_t *in, uint16_t *out, int w, int h,
                                        void *stream)
{
    if (w < 1 || h < 1)
        return (int)cudaErrorInvalidValue;
    decimate_kernel<uint16_t><<<grid_for((w + 1) >> 1, (h + 1) >> 1), dim3(kBlockW, kBlockH), 0,
                                static_cast<cudaStream_t>(stream)>>>(in, out, w, h);
    return (int)cudaGetLastError();
}

extern "C" int fv_cambi_cuda_decimate8(const uint8_t *in, uint8_t *out, int w, int h, void *stream)
{
    if (w < 1 || h < 1)
        return (int)cudaErrorInvalidValue;
    decimate_kernel<uint8_t><<<grid_for((w + 1) >> 1, (h + 1) >> 1), dim3(kBlockW, kBlockH), 0,
                               static_cast<cudaStream_t>(stream)>>>(in, out, w, h);
    return (int)cudaGetLastError();
}

extern "C" int fv_cambi_cuda_mode(const uint16_t *in, uint16_t *out, int w, int h, void *stream)
{
    if (w < 1 || h < 1)
        return (int)cudaErrorInvalidValue;
    mode_kernel<<<grid_for(w, h), dim3(kBlockW, kBlockH), 0, static_cast<cudaStream_t>(stream)>>>(
        in, out, w, h);
    return (int)cudaGetLastError();
}

extern "C" int fv_cambi_cuda_cvalues(const cambi_cuda_cv *a, void *stream)
{
    if (a->w < 1 || a->h < 1 || a->window < 1 || a->window > 65 || !(a->window & 1) ||
        a->num_diffs < 1 || a->num_diffs > 32)
        return (int)cudaErrorInvalidValue;
    const int pad = a->window >> 1;
    const size_t keys = (size_t)((kCvW + 2 * pad) * (kCvH + 2 * pad) + 1) & ~(size_t)1;
    const size_t smem = (keys + (size_t)(2 * a->num_diffs + 1) * kCvThreads) * sizeof(uint16_t);
    const dim3 grid((unsigned)((a->w + kCvW - 1) / kCvW), (unsigned)((a->h + kCvH - 1) / kCvH));
    cvalues_kernel<<<grid, kCvThreads, smem, static_cast<cudaStream_t>(stream)>>>(*a);
    return (int)cudaGetLastError();
}

extern "C" int fv_cambi_cuda_topk(const float *map, int n, int k, uint32_t *sel,
                                  unsigned long long *out, void *stream)
{
    if (n < 1 || k < 1 || k > n)
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    const int per = kSelThreads * 8;
    const unsigned blocks = (unsigned)((n + per - 1) / per < 1024 ? (n + per - 1) / per : 1024);
    sel_init_kernel<<<1, 256, 0, s>>>(sel, k);
    for (int shift = 24; shift >= 0; shift -= 8) {
        sel_hist_kernel<<<blocks, kSelThreads, 0, s>>>(map, n, sel, shift);
        sel_pick_kernel<<<1, kSelThreads, 0, s>>>(sel, shift);
    }
    sel_sum_kernel<<<blocks, kSelThreads, 0, s>>>(map, n, sel, out);
    return (int)cudaGetLastError();
}

extern "C" int fv_cambi_cuda_tag(unsigned long long *sums, size_t frame_sums, int n,
                                 unsigned long long first, void *stream)
{
    if (n < 1)
        return (int)cudaErrorInvalidValue;
    tag_kernel<<<(unsigned)((n + 31) / 32), 32, 0, static_cast<cudaStream_t>(stream)>>>(
        sums, frame_sums, n, first);
    return (int)cudaGetLastError();
}
