/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// KLT pyramid kernels: separable convolution with shared-memory tiles
// (smoothing, gradients), the pyramid's smoothing at sampled points, and the
// comparison of an input with the one a kept pyramid was built from. Every
// float step that the C reference (convolve.c, pyramid.c) computes is written
// with explicitly rounded intrinsics in the same order, so nothing is
// contracted into an FMA whatever the compile flags: the results are the
// reference's bits.
#include <cuda_runtime.h>
#include <stdint.h>

#include "klt/klt_rn.cuh"
#include "klt/pyramid_cuda.h"

namespace
{

// ------------------------------------------------------------ convolution

constexpr int kConvW = 32; // output columns per block
constexpr int kConvH = 8;  // output rows per block

template <typename T> __device__ __forceinline__ float load_px(const T *p, size_t i);
template <>
__device__ __forceinline__ float load_px<unsigned char>(const unsigned char *p, size_t i)
{
    return (float)__ldg(p + i);
}
template <> __device__ __forceinline__ float load_px<float>(const float *p, size_t i)
{
    return __ldg(p + i);
}

// One output of a pass: sum_m src[m * stride] * k[w-1-m], from 0, in m order
// (the reference's accumulation, so the float result is the same).
__device__ __forceinline__ float taps(const float *src, int stride, const float *k, int w)
{
    float acc = 0.0f;
    for (int m = 0; m < w; m++)
        acc = fadd(acc, fmul(src[m * stride], k[w - 1 - m]));
    return acc;
}

// Tile of (kConvH + 2 rv) x (kConvW + 2 rh) inputs; the horizontal pass of
// the kConvH + 2 rv rows into shared memory, then the vertical pass.
template <typename T, bool TWO>
__global__ void conv_kernel(const T *__restrict__ in, int ncols, int nrows, klt_cuda_kernel h1,
                            klt_cuda_kernel v1, klt_cuda_kernel h2, klt_cuda_kernel v2,
                            float *__restrict__ out1, float *__restrict__ out2)
{
    extern __shared__ float sm[];
    const int rh = (TWO && h2.width > h1.width ? h2.width : h1.width) / 2;
    const int rv = (TWO && v2.width > v1.width ? v2.width : v1.width) / 2;
    const int tw = kConvW + 2 * rh, th = kConvH + 2 * rv;
    float *s_k = sm;                             // 4 x KLT_CUDA_MAX_KERNEL
    float *s_in = s_k + 4 * KLT_CUDA_MAX_KERNEL; // th x tw
    float *s_h1 = s_in + th * tw;                // th x kConvW
    float *s_h2 = s_h1 + th * kConvW;            // th x kConvW (TWO)
    const int tid = threadIdx.y * kConvW + threadIdx.x;
    const int nthreads = kConvW * kConvH;
    const int x0 = blockIdx.x * kConvW, y0 = blockIdx.y * kConvH;

    for (int i = tid; i < KLT_CUDA_MAX_KERNEL; i += nthreads) {
        s_k[i] = h1.data[i];
        s_k[KLT_CUDA_MAX_KERNEL + i] = v1.data[i];
        if (TWO) {
            s_k[2 * KLT_CUDA_MAX_KERNEL + i] = h2.data[i];
            s_k[3 * KLT_CUDA_MAX_KERNEL + i] = v2.data[i];
        }
    }
    for (int i = tid; i < th * tw; i += nthreads) {
        int ty = i / tw, tx = i - ty * tw;
        int gx = x0 - rh + tx, gy = y0 - rv + ty;
        s_in[i] = (gx >= 0 && gx < ncols && gy >= 0 && gy < nrows)
                      ? load_px<T>(in, (size_t)gy * ncols + gx)
                      : 0.0f;
    }
    __syncthreads();

    // horizontal: zero within r of the left / right edge
    for (int i = tid; i < th * kConvW; i += nthreads) {
        int ty = i / kConvW, tx = i - ty * kConvW;
        int gx = x0 + tx;
        int r1 = h1.width / 2;
        s_h1[i] = (gx < r1 || gx >= ncols - r1)
                      ? 0.0f
                      : taps(s_in + ty * tw + tx + rh - r1, 1, s_k, h1.width);
        if (TWO) {
            int r2 = h2.width / 2;
            s_h2[i] = (gx < r2 || gx >= ncols - r2) ? 0.0f
                                                    : taps(s_in + ty * tw + tx + rh - r2, 1,
                                                           s_k + 2 * KLT_CUDA_MAX_KERNEL, h2.width);
        }
    }
    __syncthreads();

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int gx = x0 + tx, gy = y0 + ty;
    if (gx >= ncols || gy >= nrows)
        return;
    const size_t o = (size_t)gy * ncols + gx;
    int r1 = v1.width / 2;
    out1[o] = (gy < r1 || gy >= nrows - r1) ? 0.0f
                                            : taps(s_h1 + (ty + rv - r1) * kConvW + tx, kConvW,
                                                   s_k + KLT_CUDA_MAX_KERNEL, v1.width);
    if (TWO) {
        int r2 = v2.width / 2;
        out2[o] = (gy < r2 || gy >= nrows - r2) ? 0.0f
                                                : taps(s_h2 + (ty + rv - r2) * kConvW + tx, kConvW,
                                                       s_k + 3 * KLT_CUDA_MAX_KERNEL, v2.width);
    }
}

template <typename T, bool TWO>
cudaError_t launch_conv(const klt_cuda_conv_args *a, cudaStream_t stream)
{
    int rh = a->h1.width, rv = a->v1.width;
    if (TWO) {
        rh = a->h2.width > rh ? a->h2.width : rh;
        rv = a->v2.width > rv ? a->v2.width : rv;
    }
    rh /= 2;
    rv /= 2;
    const int th = kConvH + 2 * rv, tw = kConvW + 2 * rh;
    size_t smem = sizeof(float) *
                  (4 * KLT_CUDA_MAX_KERNEL + (size_t)th * tw + (TWO ? 2 : 1) * (size_t)th * kConvW);
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(
            conv_kernel<T, TWO>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return e;
    }
    dim3 block(kConvW, kConvH);
    dim3 grid((a->ncols + kConvW - 1) / kConvW, (a->nrows + kConvH - 1) / kConvH);
    conv_kernel<T, TWO><<<grid, block, smem, stream>>>((const T *)a->in, a->ncols, a->nrows, a->h1,
                                                       a->v1, a->h2, a->v2, a->out1, a->out2);
    return cudaGetLastError();
}

// ------------------------------------------------------------ pyramid subsampling

// The kernel's weighted sum of k.width samples stride apart from s (the
// reference's order: the kernel reversed, sums from the first sample).
__device__ __forceinline__ float sub_dot(const float *s, size_t stride, const klt_cuda_kernel &k)
{
    const int w = k.width;
    float acc = 0.0f;
    for (int m = 0; m < w; m++)
        acc = fadd(acc, fmul(__ldg(s + (size_t)m * stride), k.data[w - 1 - m]));
    return acc;
}

__global__ void sub_horiz_kernel(const float *__restrict__ in, int ncols, int nrows, int oc,
                                 klt_cuda_kernel k, int ss, float *__restrict__ tmp)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= oc || j >= nrows)
        return;
    const int w = k.width, r = w / 2;
    int i = ss * x + ss / 2;
    float acc = 0.0f;
    if (!(i < r || i >= ncols - r))
        acc = sub_dot(in + (size_t)j * ncols + i - r, 1, k);
    tmp[(size_t)j * oc + x] = acc;
}

__global__ void sub_vert_kernel(const float *__restrict__ tmp, int nrows, int oc, int orows,
                                klt_cuda_kernel k, int ss, float *__restrict__ out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= oc || y >= orows)
        return;
    const int w = k.width, r = w / 2;
    int j = ss * y + ss / 2;
    float acc = 0.0f;
    if (!(j < r || j >= nrows - r))
        acc = sub_dot(tmp + (size_t)(j - r) * oc + x, (size_t)oc, k);
    out[(size_t)y * oc + x] = acc;
}

} // namespace

// ------------------------------------------------------------ launchers

extern "C" int klt_cuda_conv(const klt_cuda_conv_args *a, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (a->ncols <= 0 || a->nrows <= 0)
        return (int)cudaSuccess;
    cudaError_t e;
    if (a->in_u8)
        e = a->out2 ? launch_conv<unsigned char, true>(a, s)
                    : launch_conv<unsigned char, false>(a, s);
    else
        e = a->out2 ? launch_conv<float, true>(a, s) : launch_conv<float, false>(a, s);
    return (int)e;
}

extern "C" int klt_cuda_smooth_subsample(const float *in, int ncols, int nrows,
                                         const klt_cuda_kernel *k, int ss, float *tmp, float *out,
                                         void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    const int oc = ncols / ss, orows = nrows / ss;
    if (oc <= 0 || orows <= 0)
        return (int)cudaSuccess;
    dim3 block(32, 8);
    dim3 gh((oc + 31) / 32, (nrows + 7) / 8);
    sub_horiz_kernel<<<gh, block, 0, s>>>(in, ncols, nrows, oc, *k, ss, tmp);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return (int)e;
    dim3 gv((oc + 31) / 32, (orows + 7) / 8);
    sub_vert_kernel<<<gv, block, 0, s>>>(tmp, nrows, oc, orows, *k, ss, out);
    return (int)cudaGetLastError();
}

// ------------------------------------------------------------ input compare

// *flag |= 1 when a and b differ somewhere (16 bytes per step where both are
// aligned, bytes otherwise); the caller zeroes *flag first.
__global__ void differs_kernel(const unsigned char *__restrict__ a,
                               const unsigned char *__restrict__ b, size_t n, int *flag)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool diff = false;
    if (((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b)) & 15) == 0) {
        const uint4 *a4 = reinterpret_cast<const uint4 *>(a);
        const uint4 *b4 = reinterpret_cast<const uint4 *>(b);
        const size_t n4 = n / 16;
        for (size_t k = i; k < n4; k += stride) {
            const uint4 x = a4[k], y = b4[k];
            diff |= (x.x != y.x) | (x.y != y.y) | (x.z != y.z) | (x.w != y.w);
        }
        for (size_t k = n4 * 16 + i; k < n; k += stride)
            diff |= a[k] != b[k];
    } else {
        for (size_t k = i; k < n; k += stride)
            diff |= a[k] != b[k];
    }
    if (__syncthreads_or(diff) && threadIdx.x == 0)
        *flag = 1;
}

extern "C" int klt_cuda_differs(const unsigned char *a, const unsigned char *b, size_t n, int *flag,
                                void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e = cudaMemsetAsync(flag, 0, sizeof(int), s);
    if (e != cudaSuccess || n == 0)
        return (int)e;
    const size_t per_block = (size_t)256 * 16 * 4;
    size_t blocks = (n + per_block - 1) / per_block;
    if (blocks > 1024)
        blocks = 1024;
    differs_kernel<<<(unsigned)blocks, 256, 0, s>>>(a, b, n, flag);
    return (int)cudaGetLastError();
}
