// The texture-gather floor for bench_stitch (see stitch_floor.h): the gather
// and the stores of fovea's stitch, nothing else. Same tiles and thread layout
// as fovea's texture path: RGBA 32 x 8 threads of 4 x 2 pixels, YUV 32 x 4
// threads of 4 x 4 luma pixels and their 2 x 2 chroma pixels.
#include <cuda_runtime.h>

#include "stitch_floor.h"

namespace {

// The grid cell holding pixel (i0, j0) (step 4: a 4 x 4 block is one cell).
struct cell {
    float2 n00, n10, n01, n11;
    float fx0, fy0;
};

__device__ __forceinline__ cell cell_at(const floor_args &a, int c, int i0, int j0)
{
    // selects, not a.uv[c]: a dynamic index into the parameters would copy them
    // to local memory in every thread
    const float2 *g = reinterpret_cast<const float2 *>(c ? a.uv[1] : a.uv[0]);
    const size_t gx = (size_t)(i0 >> 2), gy = (size_t)(j0 >> 2);
    cell t;
    t.n00 = __ldg(&g[gy * a.grid_w + gx]);
    t.n10 = __ldg(&g[gy * a.grid_w + gx + 1]);
    t.n01 = __ldg(&g[(gy + 1) * a.grid_w + gx]);
    t.n11 = __ldg(&g[(gy + 1) * a.grid_w + gx + 1]);
    t.fx0 = 0.25f * (float)(i0 & 3);
    t.fy0 = 0.25f * (float)(j0 & 3);
    return t;
}

// Texture coordinates (u + 0.5, v + 0.5) at column fraction fx, row fraction fy.
__device__ __forceinline__ float2 coord(const cell &t, float fx, float fy)
{
    const float lu = fmaf(fy, t.n01.x - t.n00.x, t.n00.x), ru = fmaf(fy, t.n11.x - t.n10.x, t.n10.x);
    const float lv = fmaf(fy, t.n01.y - t.n00.y, t.n00.y), rv = fmaf(fy, t.n11.y - t.n10.y, t.n10.y);
    return make_float2(fmaf(fx, ru - lu, lu) + 0.5f, fmaf(fx, rv - lv, lv) + 0.5f);
}

__device__ __forceinline__ unsigned int to_byte(float t)
{
    return __float2uint_rn(t * 255.0f);
}

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
        const cudaTextureObject_t tex = c ? a.tex[1][0] : a.tex[0][0];
        float4 s[2][4];
#pragma unroll
        for (int dy = 0; dy < 2; dy++)
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const float2 p = coord(t, t.fx0 + 0.25f * (float)k, t.fy0 + 0.25f * (float)dy);
                s[dy][k] = tex2D<float4>(tex, p.x, p.y);
            }
#pragma unroll
        for (int dy = 0; dy < 2; dy++) {
            unsigned int w[4];
#pragma unroll
            for (int k = 0; k < 4; k++)
                w[k] = to_byte(s[dy][k].x) | to_byte(s[dy][k].y) << 8 | to_byte(s[dy][k].z) << 16 |
                       0xff000000u;
            px[dy] = make_uint4(w[0], w[1], w[2], w[3]);
        }
    }
    if constexpr (!STORE) {
        if (a.pano_w < 0) // never: pano_w > 0
            *reinterpret_cast<uint4 *>(a.out0) = make_uint4(px[0].x ^ px[1].x, px[0].y ^ px[1].y,
                                                            px[0].z ^ px[1].z, px[0].w ^ px[1].w);
    } else {
#pragma unroll
        for (int dy = 0; dy < 2; dy++) {
            uint8_t *row = a.out0 + (size_t)(j0 + dy) * a.stride0;
            if (i0 + 3 < a.pano_w) {
                *reinterpret_cast<uint4 *>(row + 4 * (size_t)i0) = px[dy];
            } else {
                const unsigned int w[4] = {px[dy].x, px[dy].y, px[dy].z, px[dy].w};
                for (int k = 0; k < 4 && i0 + k < a.pano_w; k++)
                    reinterpret_cast<unsigned int *>(row)[i0 + k] = w[k];
            }
        }
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
        const cudaTextureObject_t ty = c ? a.tex[1][0] : a.tex[0][0];
        const cudaTextureObject_t tuv = c ? a.tex[1][1] : a.tex[0][1];
        float s[4][4];
        float2 ch[2][2];
#pragma unroll
        for (int dy = 0; dy < 4; dy++)
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const float2 p = coord(t, 0.25f * (float)k, 0.25f * (float)dy);
                s[dy][k] = tex2D<float>(ty, p.x, p.y);
            }
        // chroma at the 2 x 2 blocks' centres, half the luma texture coordinate
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int b = 0; b < 2; b++) {
                const float2 p = coord(t, 0.125f + 0.5f * (float)b, 0.125f + 0.5f * (float)h);
                ch[h][b] = tex2D<float2>(tuv, 0.5f * p.x, 0.5f * p.y);
            }
#pragma unroll
        for (int dy = 0; dy < 4; dy++)
            y4[dy] = to_byte(s[dy][0]) | to_byte(s[dy][1]) << 8 | to_byte(s[dy][2]) << 16 |
                     to_byte(s[dy][3]) << 24;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            u2[h] = to_byte(ch[h][0].x) | to_byte(ch[h][1].x) << 8;
            v2[h] = to_byte(ch[h][0].y) | to_byte(ch[h][1].y) << 8;
        }
    }
    if constexpr (!STORE) {
        if (a.pano_w < 0) // never
            *reinterpret_cast<unsigned int *>(a.out0) =
                y4[0] ^ y4[1] ^ y4[2] ^ y4[3] ^ u2[0] ^ u2[1] ^ v2[0] ^ v2[1];
    } else {
        // pano_w, pano_h even: whole 2 x 2 blocks; i0 a multiple of 4
#pragma unroll
        for (int dy = 0; dy < 4 && j0 + dy < a.pano_h; dy++) {
            uint8_t *row = a.out0 + (size_t)(j0 + dy) * a.stride0;
            if (i0 + 3 < a.pano_w) {
                *reinterpret_cast<unsigned int *>(row + i0) = y4[dy];
            } else {
                for (int k = 0; k < 4 && i0 + k < a.pano_w; k++)
                    row[i0 + k] = (uint8_t)(y4[dy] >> (8 * k));
            }
        }
#pragma unroll
        for (int h = 0; h < 2 && j0 + 2 * h < a.pano_h; h++) {
            uint8_t *pu = a.out1 + (size_t)(j0 / 2 + h) * a.stride1 + i0 / 2;
            uint8_t *pv = a.out2 + (size_t)(j0 / 2 + h) * a.stride2 + i0 / 2;
            if (i0 + 2 < a.pano_w) { // one 16-bit store each, as fovea's kernel makes them
                *reinterpret_cast<uint16_t *>(pu) = (uint16_t)u2[h];
                *reinterpret_cast<uint16_t *>(pv) = (uint16_t)v2[h];
            } else {
                pu[0] = (uint8_t)u2[h];
                pv[0] = (uint8_t)v2[h];
            }
        }
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
