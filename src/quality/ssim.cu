/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Float SSIM kernels (ssim_cuda.h): ssim_iqa.c's arithmetic for a batch of
// pairs (blockIdx.z = pair). Stages, each a launch: the samples as floats;
// the decimations (one thread per output: its k x k double sum in C's order);
// per map level the horizontal 11-tap pass of the five images (r, c, r*r,
// c*c, r*c) and the vertical pass with the l, c, s terms (one thread per
// position, the terms stored in raster order); then ordered_sums: one block
// per (map, sum, pair) adds the terms of its sum with the bits of C's raster
// order loop (ordered_sum.cuh: a plain parallel reduction would round
// differently).
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality/ordered_sum.cuh"
#include "quality/ssim_cuda.h"

namespace
{

constexpr int kWin = 11;
constexpr int kImages = 5;

size_t align256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

// Byte offsets in the scratch of each stage's images (a batch of frames each).
struct layout {
    size_t img[SSIM_CUDA_MAX_LEVELS][2]; // ref, dis of each level
    size_t img_frame[SSIM_CUDA_MAX_LEVELS];
    size_t hor, hor_frame; // the horizontal pass: 5 images of dw x h, floats a frame
    size_t tl[SSIM_CUDA_MAX_LEVELS], tc[SSIM_CUDA_MAX_LEVELS], ts[SSIM_CUDA_MAX_LEVELS];
    size_t n[SSIM_CUDA_MAX_LEVELS]; // positions of each map (0: empty)
    size_t sums;                    // ordered_sums_launch's scratch
    size_t bytes;
};

// The valid region of level l's SSIM map: 1 when it has a position.
int map_dims(const ssim_cuda_args *a, int l, int *dw, int *dh)
{
    *dw = a->lw[l] - (kWin - 1);
    *dh = a->lh[l] - (kWin - 1);
    return *dw > 0 && *dh > 0;
}

// the ordered sums of a launch: with_ssim + 3 for each map of each pair
int sum_jobs(const ssim_cuda_args *a)
{
    return (a->levels - a->first_map) * (a->with_ssim + 3) * a->nframes;
}

layout make_layout(const ssim_cuda_args *a)
{
    layout L = {};
    const size_t b = (size_t)a->nframes;
    size_t off = 0;
    for (int l = 0; l < a->levels; l++) {
        L.img_frame[l] = (size_t)a->lw[l] * (size_t)a->lh[l];
        for (int i = 0; i < 2; i++) {
            L.img[l][i] = off;
            off += align256(b * L.img_frame[l] * sizeof(float));
        }
    }
    for (int l = a->first_map; l < a->levels; l++) {
        int dw, dh;
        if (!map_dims(a, l, &dw, &dh))
            continue;
        const size_t f = (size_t)kImages * (size_t)dw * (size_t)a->lh[l];
        L.hor_frame = f > L.hor_frame ? f : L.hor_frame;
    }
    L.hor = off;
    off += align256(b * L.hor_frame * sizeof(float));
    for (int l = a->first_map; l < a->levels; l++) {
        int dw, dh;
        L.n[l] = map_dims(a, l, &dw, &dh) ? (size_t)dw * (size_t)dh : 0;
        L.tl[l] = off;
        off += align256(b * L.n[l] * sizeof(double));
        L.tc[l] = off;
        off += align256(b * L.n[l] * sizeof(double));
        L.ts[l] = off;
        off += align256(b * L.n[l] * sizeof(float));
    }
    size_t max_n = 0;
    for (int l = a->first_map; l < a->levels; l++)
        max_n = L.n[l] > max_n ? L.n[l] : max_n;
    L.sums = off;
    off += align256(ordered_sums_scratch(sum_jobs(a), max_n));
    L.bytes = off ? off : 256;
    return L;
}

// ---------------------------------------------------------------- loading

struct load_params {
    const uint8_t *src[2][SSIM_CUDA_MAX_BATCH];
    ptrdiff_t stride[2][SSIM_CUDA_MAX_BATCH];
    int w, h;
    float scaler; // 2^(bpc - 8)
    float *out[2];
    size_t frame; // floats a frame
};

// iqa_load: a sample as a float, divided by 2^(bpc - 8) (exact)
template <bool U8> __global__ void load_kernel(const load_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z >> 1, i = blockIdx.z & 1;
    if (x >= p.w || y >= p.h)
        return;
    const uint8_t *row = p.src[i][z] + (ptrdiff_t)y * p.stride[i][z];
    float v;
    if (U8)
        v = (float)__ldg(row + x);
    else
        v = (float)__ldg(reinterpret_cast<const uint16_t *>(row) + x) / p.scaler;
    p.out[i][(size_t)z * p.frame + (size_t)y * (size_t)p.w + (size_t)x] = v;
}

// ---------------------------------------------------------------- decimation

struct decimate_params {
    const float *src[2];
    float *dst[2];
    size_t src_frame, dst_frame;
    int w, h, sw, sh, factor, taps;
    float kernel[SSIM_CUDA_MAX_TAPS];
};

// ssim_iqa.c's mirror: one reflection, the edge sample repeated
__device__ __forceinline__ int mirror(int x, int n)
{
    if (x < 0)
        return -1 - x;
    if (x >= n)
        return 2 * n - x - 1;
    return x;
}

// iqa_decimate: one output, kernel rows outer, columns inner, in double
__global__ void decimate_kernel(const decimate_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z >> 1, im = blockIdx.z & 1;
    if (x >= p.sw || y >= p.sh)
        return;
    const float *src = p.src[im] + (size_t)z * p.src_frame;
    const int lo = -(p.taps / 2);
    double sum = 0.0;
    for (int i = 0; i < p.taps; i++) {
        const float *row = src + (size_t)mirror(y * p.factor + lo + i, p.h) * (size_t)p.w;
        for (int j = 0; j < p.taps; j++)
            sum += (double)(row[mirror(x * p.factor + lo + j, p.w)] * p.kernel[i * p.taps + j]);
    }
    p.dst[im][(size_t)z * p.dst_frame + (size_t)y * (size_t)p.sw + (size_t)x] = (float)sum;
}

// ---------------------------------------------------------------- the map

struct map_params {
    const float *ref, *cmp; // the level's images
    size_t img_frame;
    float *hor; // 5 images of dw x h a frame
    size_t hor_frame;
    double *tl, *tc; // terms: dw x dh a frame
    float *ts;
    size_t n;
    int w, h, dw, dh;
    float gauss[kWin];
    float c1, c2, c3;
};

// window_row of ssim_iqa.c for the five images at one position
__global__ void horizontal_kernel(const map_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z;
    if (x >= p.dw || y >= p.h)
        return;
    const size_t in = (size_t)z * p.img_frame + (size_t)y * (size_t)p.w + (size_t)x;
    const float *r = p.ref + in, *c = p.cmp + in;
    double acc[kImages] = {0.0, 0.0, 0.0, 0.0, 0.0};
#pragma unroll
    for (int u = 0; u < kWin; u++) {
        const float t = p.gauss[u];
        const float rv = r[u], cv = c[u];
        acc[0] += (double)(rv * t);
        acc[1] += (double)(cv * t);
        acc[2] += (double)((rv * rv) * t);
        acc[3] += (double)((cv * cv) * t);
        acc[4] += (double)((rv * cv) * t);
    }
    const size_t plane = (size_t)p.dw * (size_t)p.h;
    float *out = p.hor + (size_t)z * p.hor_frame + (size_t)y * (size_t)p.dw + (size_t)x;
#pragma unroll
    for (int i = 0; i < kImages; i++)
        out[(size_t)i * plane] = (float)acc[i];
}

// vertical() and lcs_row() of ssim_iqa.c at one position
__global__ void vertical_kernel(const map_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z;
    if (x >= p.dw || y >= p.dh)
        return;
    const size_t plane = (size_t)p.dw * (size_t)p.h;
    const float *hor = p.hor + (size_t)z * p.hor_frame + (size_t)y * (size_t)p.dw + (size_t)x;
    float v[kImages];
#pragma unroll
    for (int i = 0; i < kImages; i++) {
        double acc = 0.0;
#pragma unroll
        for (int k = 0; k < kWin; k++)
            acc += (double)(hor[(size_t)i * plane + (size_t)k * (size_t)p.dw] * p.gauss[k]);
        v[i] = (float)acc;
    }
    const float m1 = v[0], m2 = v[1];
    float s11 = v[2] - m1 * m1;
    float s22 = v[3] - m2 * m2;
    s11 = 0.0f > s11 ? 0.0f : s11;
    s22 = 0.0f > s22 ? 0.0f : s22;
    const float s12 = v[4] - m1 * m2;
    const float sd = (float)sqrt((double)(s11 * s22));
    const double l = (2.0 * m1 * m2 + p.c1) / (double)(m1 * m1 + m2 * m2 + p.c1);
    const double c = (2.0 * sd + p.c2) / (double)(s11 + s22 + p.c2);
    const float cross = (s12 < 0.0f && sd <= 0.0f) ? 0.0f : s12;
    const float s = (cross + p.c3) / (sd + p.c3);
    const size_t o = (size_t)z * p.n + (size_t)y * (size_t)p.dw + (size_t)x;
    p.tl[o] = l;
    p.tc[o] = c;
    p.ts[o] = s;
}

// ---------------------------------------------------------------- ordered sums

struct sum_params {
    const double *tl[SSIM_CUDA_MAX_LEVELS], *tc[SSIM_CUDA_MAX_LEVELS];
    const float *ts[SSIM_CUDA_MAX_LEVELS];
    size_t n[SSIM_CUDA_MAX_LEVELS]; // map m of pair z at + z * n[m]
    int with_ssim;
    unsigned long long *sums;
    size_t frame_sums;
};

// The sums as ordered_sum.cuh's jobs: job = (z * maps + m) * nsums + k, sum k
// of map m of pair z. Its terms, as C adds them: kind 0 the SSIM
// (l * c * s), 1 l, 2 c, 3 s.
struct sum_jobs_t {
    sum_params p;
    int maps;
    __device__ __forceinline__ void split(int job, int *m, int *k, int *z) const
    {
        const int nsums = p.with_ssim + 3;
        *k = job % nsums;
        *m = (job / nsums) % maps;
        *z = job / nsums / maps;
    }
    __device__ __forceinline__ size_t size(int job) const
    {
        int m, k, z;
        split(job, &m, &k, &z);
        return p.n[m];
    }
    __device__ __forceinline__ double term(int job, size_t i) const
    {
        int m, k, z;
        split(job, &m, &k, &z);
        const size_t o = (size_t)z * p.n[m] + i;
        switch (p.with_ssim ? k : k + 1) {
        case 0: return p.tl[m][o] * p.tc[m][o] * (double)p.ts[m][o];
        case 1: return p.tl[m][o];
        case 2: return p.tc[m][o];
        default: return (double)p.ts[m][o];
        }
    }
    __device__ __forceinline__ void put(int job, double acc) const
    {
        int m, k, z;
        split(job, &m, &k, &z);
        p.sums[(size_t)z * p.frame_sums + (size_t)m * (size_t)(p.with_ssim + 3) + (size_t)k] =
            (unsigned long long)__double_as_longlong(acc);
    }
};

dim3 grid2(int w, int h, int z, dim3 block)
{
    return dim3((unsigned)((w + (int)block.x - 1) / (int)block.x),
                (unsigned)((h + (int)block.y - 1) / (int)block.y), (unsigned)z);
}

bool valid(const ssim_cuda_args *a)
{
    if (a->nframes < 1 || a->nframes > SSIM_CUDA_MAX_BATCH || a->levels < 1 ||
        a->levels > SSIM_CUDA_MAX_LEVELS || a->first_map < 0 || a->first_map >= a->levels ||
        (a->with_ssim != 0 && a->with_ssim != 1) ||
        (a->bpc != 8 && a->bpc != 10 && a->bpc != 12 && a->bpc != 16))
        return false;
    if (a->levels > 1 && (a->factor < 1 || a->taps < 1 || a->taps * a->taps > SSIM_CUDA_MAX_TAPS))
        return false;
    for (int l = 0; l < a->levels; l++)
        if (a->lw[l] < 1 || a->lh[l] < 1)
            return false;
    return true;
}

} // namespace

extern "C" size_t fv_ssim_cuda_work_bytes(const ssim_cuda_args *a)
{
    return valid(a) ? make_layout(a).bytes : 0;
}

#define SSIM_LAUNCHED()                                                                            \
    do {                                                                                           \
        const cudaError_t e_ = cudaGetLastError();                                                 \
        if (e_ != cudaSuccess)                                                                     \
            return (int)e_;                                                                        \
    } while (0)

extern "C" int fv_ssim_cuda_launch(const ssim_cuda_args *a, void *stream)
{
    if (!valid(a) || !a->work || !a->sums)
        return (int)cudaErrorInvalidValue;
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    const layout L = make_layout(a);
    char *work = static_cast<char *>(a->work);
    const int nz = a->nframes;
    const dim3 block(32, 8);

    // the samples as floats (level 0)
    load_params lp = {};
    for (int z = 0; z < nz; z++) {
        lp.src[0][z] = a->ref[z];
        lp.src[1][z] = a->dis[z];
        lp.stride[0][z] = a->rstride[z];
        lp.stride[1][z] = a->dstride[z];
    }
    lp.w = a->lw[0];
    lp.h = a->lh[0];
    lp.scaler = (float)(1 << (a->bpc - 8));
    lp.out[0] = reinterpret_cast<float *>(work + L.img[0][0]);
    lp.out[1] = reinterpret_cast<float *>(work + L.img[0][1]);
    lp.frame = L.img_frame[0];
    if (a->bpc == 8)
        load_kernel<true><<<grid2(lp.w, lp.h, 2 * nz, block), block, 0, st>>>(lp);
    else
        load_kernel<false><<<grid2(lp.w, lp.h, 2 * nz, block), block, 0, st>>>(lp);
    SSIM_LAUNCHED();

    // the decimations
    for (int l = 1; l < a->levels; l++) {
        decimate_params dp = {};
        for (int i = 0; i < 2; i++) {
            dp.src[i] = reinterpret_cast<const float *>(work + L.img[l - 1][i]);
            dp.dst[i] = reinterpret_cast<float *>(work + L.img[l][i]);
        }
        dp.src_frame = L.img_frame[l - 1];
        dp.dst_frame = L.img_frame[l];
        dp.w = a->lw[l - 1];
        dp.h = a->lh[l - 1];
        dp.sw = a->lw[l];
        dp.sh = a->lh[l];
        dp.factor = a->factor;
        dp.taps = a->taps;
        for (int k = 0; k < a->taps * a->taps; k++)
            dp.kernel[k] = a->kernel[k];
        decimate_kernel<<<grid2(dp.sw, dp.sh, 2 * nz, block), block, 0, st>>>(dp);
        SSIM_LAUNCHED();
    }

    // the maps' terms
    sum_params sp = {};
    for (int l = a->first_map; l < a->levels; l++) {
        const int m = l - a->first_map;
        sp.tl[m] = reinterpret_cast<const double *>(work + L.tl[l]);
        sp.tc[m] = reinterpret_cast<const double *>(work + L.tc[l]);
        sp.ts[m] = reinterpret_cast<const float *>(work + L.ts[l]);
        sp.n[m] = L.n[l];
        if (L.n[l] == 0)
            continue; // an empty map: its sums are 0
        map_params mp = {};
        mp.ref = reinterpret_cast<const float *>(work + L.img[l][0]);
        mp.cmp = reinterpret_cast<const float *>(work + L.img[l][1]);
        mp.img_frame = L.img_frame[l];
        mp.hor = reinterpret_cast<float *>(work + L.hor);
        mp.hor_frame = L.hor_frame;
        mp.tl = reinterpret_cast<double *>(work + L.tl[l]);
        mp.tc = reinterpret_cast<double *>(work + L.tc[l]);
        mp.ts = reinterpret_cast<float *>(work + L.ts[l]);
        mp.n = L.n[l];
        mp.w = a->lw[l];
        mp.h = a->lh[l];
        map_dims(a, l, &mp.dw, &mp.dh);
        for (int k = 0; k < kWin; k++)
            mp.gauss[k] = a->gauss[k];
        mp.c1 = a->c1;
        mp.c2 = a->c2;
        mp.c3 = a->c3;
        horizontal_kernel<<<grid2(mp.dw, mp.h, nz, block), block, 0, st>>>(mp);
        SSIM_LAUNCHED();
        vertical_kernel<<<grid2(mp.dw, mp.dh, nz, block), block, 0, st>>>(mp);
        SSIM_LAUNCHED();
    }

    // the sums, in raster order
    sp.with_ssim = a->with_ssim;
    sp.sums = a->sums;
    sp.frame_sums = a->frame_sums;
    const sum_jobs_t jobs = {sp, a->levels - a->first_map};
    size_t max_n = 0;
    for (int m = 0; m < jobs.maps; m++)
        max_n = sp.n[m] > max_n ? sp.n[m] : max_n;
    const cudaError_t e = ordered_sums_launch<double>(jobs, sum_jobs(a), max_n, work + L.sums, st);
    if (e != cudaSuccess)
        return (int)e;
    return (int)cudaSuccess;
}
