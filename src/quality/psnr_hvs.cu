/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// PSNR-HVS kernels (psnr_hvs_cuda.h): per plane, one thread per 8x8 block
// computes its 64 weighted errors with the C extractor's own arithmetic
// (psnr_hvs_block.h) into the scratch, blocks in raster order; then each
// (plane, pair) sum gets the bits of C's single float accumulator adding them
// in that order (ordered_sum.cuh: a plain parallel reduction would round
// differently).
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality/psnr_hvs_block.h"
#include "quality/psnr_hvs_cuda.h"
#include "quality/ordered_sum.cuh"

namespace
{

size_t align256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

int blocks(int n)
{
    return n > 7 ? (n - 7 + 6) / 7 : 0;
}

// terms of plane p a frame, and the offset of plane p's terms in the scratch
size_t plane_terms(const hvs_cuda_args *a, int p)
{
    return (size_t)blocks(a->w[p]) * (size_t)blocks(a->h[p]) * 64;
}

size_t plane_offset(const hvs_cuda_args *a, int p)
{
    size_t off = 0;
    for (int k = 0; k < p; k++)
        off += align256((size_t)a->nframes * plane_terms(a, k) * sizeof(float));
    return off;
}

// ordered_sums_launch's scratch, after the terms
size_t sums_scratch(const hvs_cuda_args *a)
{
    size_t max_n = 0;
    for (int p = 0; p < 3; p++)
        max_n = plane_terms(a, p) > max_n ? plane_terms(a, p) : max_n;
    return align256(ordered_sums_scratch(3 * a->nframes, max_n));
}

struct terms_params {
    const uint8_t *ref[HVS_CUDA_MAX_BATCH], *dis[HVS_CUDA_MAX_BATCH];
    ptrdiff_t rstride[HVS_CUDA_MAX_BATCH], dstride[HVS_CUDA_MAX_BATCH];
    int nbx, nby;
    float csf[64], mask[64];
    float *terms; // nbx * nby * 64 a frame
};

template <bool U8>
__device__ void load_block(int32_t *px, const uint8_t *p, ptrdiff_t stride, int x, int y)
{
    for (int i = 0; i < 8; i++) {
        const uint8_t *row = p + (ptrdiff_t)(y + i) * stride;
        for (int j = 0; j < 8; j++)
            px[i * 8 + j] =
                U8 ? (int32_t)row[x + j] : (int32_t) reinterpret_cast<const uint16_t *>(row)[x + j];
    }
}

constexpr int kTermThreads = 128;

template <bool U8>
__global__ void __launch_bounds__(kTermThreads) terms_kernel(const terms_params p)
{
    // the tables in shared memory (a pointer into the parameters would make
    // each thread copy them)
    __shared__ float s_csf[64], s_mask[64];
    if (threadIdx.x < 64) {
        s_csf[threadIdx.x] = p.csf[threadIdx.x];
        s_mask[threadIdx.x] = p.mask[threadIdx.x];
    }
    __syncthreads();
    const int blk = blockIdx.x * kTermThreads + threadIdx.x;
    const int z = blockIdx.y;
    if (blk >= p.nbx * p.nby)
        return;
    const int x = (blk % p.nbx) * 7, y = (blk / p.nbx) * 7;
    int32_t ps[64], pd[64];
    load_block<U8>(ps, p.ref[z], p.rstride[z], x, y);
    load_block<U8>(pd, p.dis[z], p.dstride[z], x, y);
    float t[64];
    hvs_block_terms(ps, pd, s_csf, s_mask, t);
    float *out = p.terms + ((size_t)z * (size_t)p.nbx * (size_t)p.nby + (size_t)blk) * 64;
#pragma unroll
    for (int i = 0; i < 64; i += 4)
        *reinterpret_cast<float4 *>(out + i) = make_float4(t[i], t[i + 1], t[i + 2], t[i + 3]);
}

struct sum_params {
    const float *terms[3];
    size_t n[3]; // plane p of pair z at terms[p] + z * n[p]
    unsigned long long *sums;
};

// The sums as ordered_sum.cuh's jobs: job = 3 * z + plane, the plane's terms
// in raster order into a float.
struct sum_jobs_t {
    sum_params p;
    __device__ __forceinline__ size_t size(int job) const
    {
        return p.n[job % 3];
    }
    __device__ __forceinline__ float term(int job, size_t i) const
    {
        const int pl = job % 3, z = job / 3;
        return p.terms[pl][(size_t)z * p.n[pl] + i];
    }
    __device__ __forceinline__ void put(int job, float acc) const
    {
        p.sums[job] = (unsigned long long)__float_as_uint(acc);
    }
};

bool valid(const hvs_cuda_args *a)
{
    if (a->nframes < 1 || a->nframes > HVS_CUDA_MAX_BATCH)
        return false;
    for (int p = 0; p < 3; p++)
        if (a->w[p] < 0 || a->h[p] < 0)
            return false;
    return true;
}

} // namespace

extern "C" size_t fv_hvs_cuda_work_bytes(const hvs_cuda_args *a)
{
    if (!valid(a))
        return 0;
    return plane_offset(a, 3) + sums_scratch(a);
}

extern "C" int fv_hvs_cuda_launch(const hvs_cuda_args *a, void *stream)
{
    if (!valid(a) || !a->work || !a->sums)
        return (int)cudaErrorInvalidValue;
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    char *work = static_cast<char *>(a->work);
    sum_params sp = {};
    for (int pl = 0; pl < 3; pl++) {
        sp.terms[pl] = reinterpret_cast<const float *>(work + plane_offset(a, pl));
        sp.n[pl] = plane_terms(a, pl);
        if (sp.n[pl] == 0)
            continue; // no block: a sum of nothing
        terms_params tp = {};
        for (int z = 0; z < a->nframes; z++) {
            tp.ref[z] = a->ref[pl][z];
            tp.dis[z] = a->dis[pl][z];
            tp.rstride[z] = a->rstride[pl][z];
            tp.dstride[z] = a->dstride[pl][z];
        }
        tp.nbx = blocks(a->w[pl]);
        tp.nby = blocks(a->h[pl]);
        for (int k = 0; k < 64; k++) {
            tp.csf[k] = a->csf[pl][k];
            tp.mask[k] = a->mask[pl][k];
        }
        tp.terms = reinterpret_cast<float *>(work + plane_offset(a, pl));
        const dim3 grid((unsigned)((tp.nbx * tp.nby + kTermThreads - 1) / kTermThreads),
                        (unsigned)a->nframes);
        if (a->u8)
            terms_kernel<true><<<grid, kTermThreads, 0, st>>>(tp);
        else
            terms_kernel<false><<<grid, kTermThreads, 0, st>>>(tp);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return (int)e;
    }
    sp.sums = a->sums;
    size_t max_n = 0;
    for (int pl = 0; pl < 3; pl++)
        max_n = sp.n[pl] > max_n ? sp.n[pl] : max_n;
    return (int)ordered_sums_launch<float>(sum_jobs_t{sp}, 3 * a->nframes, max_n,
                                           work + plane_offset(a, 3), st);
}
