/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// ciede kernels (ciede_cuda.h): one thread per pixel certifies its dE00
// (ciede_interval.h) or appends it to the host's list; after the host
// function computed the listed pixels with the C arithmetic, a kernel patches
// them in, then each pair's sum gets the bits of C's single double
// accumulator adding the values in raster order (ordered_sum.cuh).
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality/ciede_cuda.h"
#include "quality/ciede_interval.h"
#include "quality/ordered_sum.cuh"

namespace
{

struct pixel_params {
    const uint8_t *pl[6][CIEDE_CUDA_MAX_BATCH]; // ref Y U V, dis Y U V
    ptrdiff_t st[6][CIEDE_CUDA_MAX_BATCH];
    int width, height, bpc, chroma, cw, ch, cstride;
    float *de;
    unsigned *count;
    ciede_amb *list;
    unsigned cap;
    unsigned long long *sums;
};

__device__ float sample(const uint8_t *base, ptrdiff_t stride, int bpc, int r, int c)
{
    const uint8_t *row = base + (ptrdiff_t)r * stride;
    return bpc == 8 ? (float)row[c] : (float)reinterpret_cast<const uint16_t *>(row)[c];
}

// pixel (i, j)'s upsampled U and V of picture pic (0 ref, 1 dis), as
// feature_ciede.c's chroma_row reads them
__device__ void chroma(const pixel_params &p, int pic, int z, int i, int j, float *uv)
{
    const uint8_t *const pu = p.pl[3 * pic + 1][z], *const pv = p.pl[3 * pic + 2][z];
    const ptrdiff_t su = p.st[3 * pic + 1][z], sv = p.st[3 * pic + 2][z];
    if (p.chroma == 444) {
        uv[0] = sample(pu, su, p.bpc, i, j);
        uv[1] = sample(pv, sv, p.bpc, i, j);
        return;
    }
    const int r = i / 2, c = p.chroma == 420 ? j / 2 : j;
    if (r < p.ch && c < p.cw) {
        uv[0] = sample(pu, su, p.bpc, r, c);
        uv[1] = sample(pv, sv, p.bpc, r, c);
        return;
    }
    for (int k = 0; k < 2; k++) {
        int q, rr, cc;
        uv[k] = ciede_chroma_pos(p.cw, p.ch, p.cstride, k, r, c, &q, &rr, &cc)
                    ? sample(q ? pv : pu, q ? sv : su, p.bpc, rr, cc)
                    : 0.0f;
    }
}

constexpr int kPixThreads = 128;

__global__ void __launch_bounds__(kPixThreads) pixel_kernel(const pixel_params p)
{
    const int z = blockIdx.y;
    unsigned long long *sums = p.sums + (size_t)z * CIEDE_SUMS;
    if (blockIdx.x == 0 && threadIdx.x < 6) {
        const int k = threadIdx.x;
        sums[CIEDE_SUM_PLANES + k] = (unsigned long long)(uintptr_t)p.pl[k][z];
        sums[CIEDE_SUM_STRIDES + k] = (unsigned long long)p.st[k][z];
    }
    const size_t npix = (size_t)p.width * (size_t)p.height;
    const size_t idx = (size_t)blockIdx.x * kPixThreads + threadIdx.x;
    if (idx >= npix)
        return;
    const int i = (int)(idx / (size_t)p.width), j = (int)(idx % (size_t)p.width);
    float s[6];
    s[0] = sample(p.pl[0][z], p.st[0][z], p.bpc, i, j);
    s[3] = sample(p.pl[3][z], p.st[3][z], p.bpc, i, j);
    chroma(p, 0, z, i, j, s + 1);
    chroma(p, 1, z, i, j, s + 4);
    float v;
    if (ciede_cert_pixel(s[0], s[1], s[2], s[3], s[4], s[5], p.bpc, &v)) {
        p.de[(size_t)z * npix + idx] = v;
        return;
    }
    p.de[(size_t)z * npix + idx] = 0.0f; // patched, or the pair is recomputed
    atomicAdd(&sums[CIEDE_SUM_AMBIGUOUS], 1ull);
    const unsigned k = atomicAdd(p.count, 1u);
    if (k >= p.cap) {
        sums[CIEDE_SUM_OVERFLOW] = 1;
        return;
    }
    ciede_amb e;
    e.pos = (uint32_t)idx;
    e.z = (uint16_t)z;
    for (int c = 0; c < 6; c++)
        e.s[c] = (uint16_t)s[c];
    p.list[k] = e;
}

// the host's values into the buffer
__global__ void patch_kernel(const unsigned *count, unsigned cap, const ciede_amb *list,
                             const float *vals, float *de, size_t npix)
{
    const unsigned n = *count < cap ? *count : cap;
    for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
        de[(size_t)list[k].z * npix + list[k].pos] = vals[k];
}

// The sums as ordered_sum.cuh's jobs: job = pair, its dE values added to
// one double in raster order, as the C extractor adds them.
struct sum_jobs_t {
    const float *de;
    size_t n;
    unsigned long long *sums;
    __device__ __forceinline__ size_t size(int) const
    {
        return n;
    }
    __device__ __forceinline__ double term(int job, size_t i) const
    {
        return (double)de[(size_t)job * n + i];
    }
    __device__ __forceinline__ void put(int job, double acc) const
    {
        sums[(size_t)job * CIEDE_SUMS + CIEDE_SUM_BITS] =
            (unsigned long long)__double_as_longlong(acc);
    }
};

size_t align256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

} // namespace

extern "C" size_t fv_ciede_cuda_de_bytes(int batch, int width, int height)
{
    if (batch < 1 || width < 1 || height < 1)
        return 0;
    const size_t npix = (size_t)width * (size_t)height;
    return align256((size_t)batch * npix * sizeof(float)) + ordered_sums_scratch(batch, npix) + 256;
}

extern "C" int fv_ciede_cuda_launch(const ciede_cuda_args *a, void *stream)
{
    if (!a || a->nframes < 1 || a->nframes > CIEDE_CUDA_MAX_BATCH || a->width < 1 ||
        a->height < 1 || !a->de || !a->count || !a->h_count || !a->list || !a->vals ||
        !a->host_fn || !a->sums || a->chroma == 400)
        return (int)cudaErrorInvalidValue;
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    pixel_params p = {};
    for (int z = 0; z < a->nframes; z++)
        for (int k = 0; k < 3; k++) {
            p.pl[k][z] = a->ref[k][z];
            p.pl[3 + k][z] = a->dis[k][z];
            p.st[k][z] = a->rstride[k][z];
            p.st[3 + k][z] = a->dstride[k][z];
        }
    p.width = a->width;
    p.height = a->height;
    p.bpc = a->bpc;
    p.chroma = a->chroma;
    p.cw = a->cw;
    p.ch = a->ch;
    p.cstride = a->cstride;
    p.de = a->de;
    p.count = a->count;
    p.list = a->list;
    p.cap = a->cap;
    p.sums = a->sums;
    const size_t npix = (size_t)a->width * (size_t)a->height;
    cudaError_t e = cudaMemsetAsync(a->count, 0, sizeof(unsigned), st);
    if (e != cudaSuccess)
        return (int)e;
    const dim3 grid((unsigned)((npix + kPixThreads - 1) / kPixThreads), (unsigned)a->nframes);
    pixel_kernel<<<grid, kPixThreads, 0, st>>>(p);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return (int)e;
    // the host's part, in stream order: count back, the C arithmetic on the
    // listed pixels (the list is written through the mapping), values patched
    e = cudaMemcpyAsync(a->h_count, a->count, sizeof(unsigned), cudaMemcpyDeviceToHost, st);
    if (e != cudaSuccess)
        return (int)e;
    e = cudaLaunchHostFunc(st, a->host_fn, a->host_data);
    if (e != cudaSuccess)
        return (int)e;
    patch_kernel<<<32, 256, 0, st>>>(a->count, a->cap, a->list, a->vals, a->de, npix);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return (int)e;
    // the sums' scratch follows the batch's values (fv_ciede_cuda_de_bytes)
    char *scratch = reinterpret_cast<char *>(a->de) + align256((size_t)a->nframes * npix * 4);
    return (int)ordered_sums_launch<double>(sum_jobs_t{a->de, npix, a->sums}, a->nframes, npix,
                                            scratch, st);
}
