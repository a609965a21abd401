// The texture-gather floor for bench_stitch (see stitch_floor.h): the gather
// and the stores of fovea's stitch, nothing else. Same tiles and thread layout
// as fovea's texture path: RGBA 32 x 8 threads of 4 x 2 pixels, YUV 32 x 4
// threads of 4 x 4 luma pixels and their 2 x 2 chroma pixels.
#include <cuda_runtime.h>

#include "stitch_floor.h"
#include "stitch_floor_tex.cuh"

namespace {

using floor_tex::cell;
using floor_tex::cell_at;

// STORE false: the gather alone (the values kept alive behind a condition that
// never holds), to split the floor into its gather and its stores
template <bool STORE>
__global__ void __launch_bounds__(256, 4) floor_rgba(const floor_args a)
{
    const int c = a.owner[blockIdx.y * a.tiles_x + blockIdx.x];
    const int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    const int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * 2;
    if (i0 >= a.pano_w || j0 >= a.pano_h)
        return;
    uint4 px[2] = {make_uint4(0, 0, 0, 0), make_uint4(0, 0, 0, 0)};
    if (c != FLOOR_NO_CAMERA) {
        const cell t = cell_at(a, c, i0, j0);
        floor_tex::rgba_px(c ? a.tex[1][0] : a.tex[0][0], t, px);
    }
    if constexpr (!STORE) {
        if (a.pano_w < 0) // never: pano_w > 0
            *reinterpret_cast<uint4 *>(a.out0) = make_uint4(px[0].x ^ px[1].x, px[0].y ^ px[1].y,
                                                            px[0].z ^ px[1].z, px[0].w ^ px[1].w);
    } else {
        floor_tex::store_rgba(a.out0, a.stride0, a.pano_w, i0, j0, px);
    }
}

template <bool STORE>
__global__ void __launch_bounds__(128, 8) floor_nv12(const floor_args a)
{
    const int c = a.owner[blockIdx.y * a.tiles_x + blockIdx.x];
    const int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    const int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * 4;
    if (i0 >= a.pano_w || j0 >= a.pano_h)
        return;
    unsigned int y4[4] = {0, 0, 0, 0}, u2[2] = {0x8080u, 0x8080u}, v2[2] = {0x8080u, 0x8080u};
    if (c != FLOOR_NO_CAMERA) {
        const cell t = cell_at(a, c, i0, j0);
        floor_tex::nv12_px(c ? a.tex[1][0] : a.tex[0][0], c ? a.tex[1][1] : a.tex[0][1], t, y4, u2,
                           v2);
    }
    if constexpr (!STORE) {
        if (a.pano_w < 0) // never
            *reinterpret_cast<unsigned int *>(a.out0) =
                y4[0] ^ y4[1] ^ y4[2] ^ y4[3] ^ u2[0] ^ u2[1] ^ v2[0] ^ v2[1];
    } else {
        // pano_w, pano_h even: whole 2 x 2 blocks; i0 a multiple of 4
        floor_tex::store_i420(a.out0, a.stride0, a.out1, a.stride1, a.out2, a.stride2, a.pano_w,
                              a.pano_h, i0, j0, y4, u2, v2);
    }
}

struct stream_plan {
    const uint4 *in[FLOOR_STREAM_IN];
    uint4 *out[FLOOR_STREAM_OUT];
    unsigned int n_in[FLOOR_STREAM_IN], n_out[FLOOR_STREAM_OUT]; // 16-byte words
    unsigned int iters;                                           // the longest span
};

// Iteration i loads word i of every input span that long (all loads issued
// before any is used) and stores word i of every output span that long.
__global__ void __launch_bounds__(256) floor_stream(const stream_plan p)
{
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < p.iters;
         i += gridDim.x * blockDim.x) {
        uint4 v[FLOOR_STREAM_IN];
#pragma unroll
        for (int s = 0; s < FLOOR_STREAM_IN; s++)
            v[s] = i < p.n_in[s] ? __ldg(&p.in[s][i]) : make_uint4(0, 0, 0, 0);
        unsigned int acc = i;
#pragma unroll
        for (int s = 0; s < FLOOR_STREAM_IN; s++)
            acc ^= v[s].x ^ v[s].y ^ v[s].z ^ v[s].w;
#pragma unroll
        for (int s = 0; s < FLOOR_STREAM_OUT; s++)
            if (i < p.n_out[s])
                p.out[s][i] = make_uint4(acc, acc + 1u, acc + 2u, acc + 3u);
    }
}

} // namespace

extern "C" int bench_floor_stream(const floor_stream_args *a, void *stream)
{
    stream_plan p = {};
    uintptr_t mis = 0;
    size_t longest = 0;
    for (int s = 0; s < FLOOR_STREAM_IN; s++) {
        p.in[s] = reinterpret_cast<const uint4 *>(a->in[s]);
        mis |= (uintptr_t)a->in[s];
        longest = a->in_bytes[s] / 16 > longest ? a->in_bytes[s] / 16 : longest;
    }
    for (int s = 0; s < FLOOR_STREAM_OUT; s++) {
        p.out[s] = reinterpret_cast<uint4 *>(a->out[s]);
        mis |= (uintptr_t)a->out[s];
        longest = a->out_bytes[s] / 16 > longest ? a->out_bytes[s] / 16 : longest;
    }
    if ((mis & 15) || longest == 0 || longest >= (1u << 31))
        return (int)cudaErrorInvalidValue;
    for (int s = 0; s < FLOOR_STREAM_IN; s++)
        p.n_in[s] = (unsigned int)(a->in_bytes[s] / 16);
    for (int s = 0; s < FLOOR_STREAM_OUT; s++)
        p.n_out[s] = (unsigned int)(a->out_bytes[s] / 16);
    p.iters = (unsigned int)longest;
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess)
        return (int)e;
    floor_stream<<<sms * 16, 256, 0, static_cast<cudaStream_t>(stream)>>>(p);
    return (int)cudaGetLastError();
}

extern "C" int bench_floor_texture(const uint8_t *plane, int w, int h, int stride, int channels,
                                   unsigned long long *tex)
{
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypePitch2D;
    rd.res.pitch2D.devPtr = const_cast<uint8_t *>(plane);
    rd.res.pitch2D.desc = channels == 4   ? cudaCreateChannelDesc<uchar4>()
                          : channels == 2 ? cudaCreateChannelDesc<uchar2>()
                                          : cudaCreateChannelDesc<unsigned char>();
    rd.res.pitch2D.width = (size_t)w;
    rd.res.pitch2D.height = (size_t)h;
    rd.res.pitch2D.pitchInBytes = (size_t)stride;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t t = 0;
    const cudaError_t e = cudaCreateTextureObject(&t, &rd, &td, nullptr);
    *tex = (unsigned long long)t;
    return (int)e;
}

extern "C" void bench_floor_texture_free(unsigned long long tex)
{
    if (tex)
        cudaDestroyTextureObject((cudaTextureObject_t)tex);
}

extern "C" int bench_floor_rgba(const floor_args *a, void *stream)
{
    if (a->step_shift != 2)
        return (int)cudaErrorInvalidValue;
    const dim3 grid(a->tiles_x, a->tiles_y);
    if (a->no_stores)
        floor_rgba<false><<<grid, dim3(32, 8), 0, static_cast<cudaStream_t>(stream)>>>(*a);
    else
        floor_rgba<true><<<grid, dim3(32, 8), 0, static_cast<cudaStream_t>(stream)>>>(*a);
    return (int)cudaGetLastError();
}

extern "C" int bench_floor_nv12(const floor_args *a, void *stream)
{
    // the chroma stores are 16-bit: even planes and strides
    const uintptr_t odd = (uintptr_t)a->out1 | (uintptr_t)a->out2 | (uintptr_t)a->stride1 |
                          (uintptr_t)a->stride2;
    if (a->step_shift != 2 || (a->pano_w & 1) || (a->pano_h & 1) || (odd & 1))
        return (int)cudaErrorInvalidValue;
    const dim3 grid(a->tiles_x, a->tiles_y);
    if (a->no_stores)
        floor_nv12<false><<<grid, dim3(32, 4), 0, static_cast<cudaStream_t>(stream)>>>(*a);
    else
        floor_nv12<true><<<grid, dim3(32, 4), 0, static_cast<cudaStream_t>(stream)>>>(*a);
    return (int)cudaGetLastError();
}
