// The texture-gather floor's per-thread work (stitch_floor.h), shared by the
// floor kernels (bench rows (f), stitch_floor.cu) and the texture tiles of the
// staged rows (h) (stitch_staged.cu): grid step 4, so a thread's 4 x 2 RGBA
// or 4 x 4 luma pixels lie in one cell of the camera's grid.
#ifndef FOVEA_BENCH_STITCH_FLOOR_TEX_CUH
#define FOVEA_BENCH_STITCH_FLOOR_TEX_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace floor_tex {

// The grid cell holding pixel (i0, j0) (step 4: a 4 x 4 block is one cell).
struct cell {
    float2 n00, n10, n01, n11;
    float fx0, fy0;
};

// A: any argument struct with the cameras' device grids `uv[2]` (u, v
// interleaved) and their row length `grid_w`
template <class A> __device__ __forceinline__ cell cell_at(const A &a, int c, int i0, int j0)
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

// The camera position (texel centres at integers) at column fraction fx and
// row fraction fy of the cell.
__device__ __forceinline__ float2 pos(const cell &t, float fx, float fy)
{
    const float lu = fmaf(fy, t.n01.x - t.n00.x, t.n00.x), ru = fmaf(fy, t.n11.x - t.n10.x, t.n10.x);
    const float lv = fmaf(fy, t.n01.y - t.n00.y, t.n00.y), rv = fmaf(fy, t.n11.y - t.n10.y, t.n10.y);
    return make_float2(fmaf(fx, ru - lu, lu), fmaf(fx, rv - lv, lv));
}

__device__ __forceinline__ unsigned int to_byte(float t)
{
    return __float2uint_rn(t * 255.0f);
}

// The 4 x 2 RGBA pixels of cell t's thread, one bilinear fetch each (alpha 255).
__device__ __forceinline__ void rgba_px(cudaTextureObject_t tex, const cell &t, uint4 px[2])
{
    float4 s[2][4];
#pragma unroll
    for (int dy = 0; dy < 2; dy++)
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const float2 p = pos(t, t.fx0 + 0.25f * (float)k, t.fy0 + 0.25f * (float)dy);
            s[dy][k] = tex2D<float4>(tex, p.x + 0.5f, p.y + 0.5f);
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

// The 4 x 4 luma pixels of a whole cell (four bytes a row) and its 2 x 2
// chroma pixels (U and V two bytes a row), chroma fetched at the 2 x 2 blocks'
// centres: half the luma texture coordinate.
__device__ __forceinline__ void nv12_px(cudaTextureObject_t ty, cudaTextureObject_t tuv,
                                        const cell &t, unsigned int y4[4], unsigned int u2[2],
                                        unsigned int v2[2])
{
    float s[4][4];
    float2 ch[2][2];
#pragma unroll
    for (int dy = 0; dy < 4; dy++)
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const float2 p = pos(t, 0.25f * (float)k, 0.25f * (float)dy);
            s[dy][k] = tex2D<float>(ty, p.x + 0.5f, p.y + 0.5f);
        }
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
        for (int b = 0; b < 2; b++) {
            const float2 p = pos(t, 0.125f + 0.5f * (float)b, 0.125f + 0.5f * (float)h);
            ch[h][b] = tex2D<float2>(tuv, 0.5f * (p.x + 0.5f), 0.5f * (p.y + 0.5f));
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

// Stores a thread's 4 x 2 RGBA pixels at (i0, j0) (i0 < w, j0 + 1 < h), the
// columns past w left out.
__device__ __forceinline__ void store_rgba(uint8_t *out, int stride, int w, int i0, int j0,
                                           const uint4 px[2])
{
#pragma unroll
    for (int dy = 0; dy < 2; dy++) {
        uint8_t *row = out + (size_t)(j0 + dy) * stride;
        if (i0 + 3 < w) {
            *reinterpret_cast<uint4 *>(row + 4 * (size_t)i0) = px[dy];
        } else {
            const unsigned int v[4] = {px[dy].x, px[dy].y, px[dy].z, px[dy].w};
            for (int k = 0; k < 4 && i0 + k < w; k++)
                reinterpret_cast<unsigned int *>(row)[i0 + k] = v[k];
        }
    }
}

// Stores a thread's 4 x 4 luma and 2 x 2 chroma pixels at luma (i0, j0) of an
// I420 frame of even size w x h (i0 a multiple of 4), what lies past the edges
// left out; chroma two bytes at a time.
__device__ __forceinline__ void store_i420(uint8_t *y, int ys, uint8_t *u, int us, uint8_t *v,
                                           int vs, int w, int h, int i0, int j0,
                                           const unsigned int y4[4], const unsigned int u2[2],
                                           const unsigned int v2[2])
{
#pragma unroll
    for (int dy = 0; dy < 4 && j0 + dy < h; dy++) {
        uint8_t *row = y + (size_t)(j0 + dy) * ys;
        if (i0 + 3 < w) {
            *reinterpret_cast<unsigned int *>(row + i0) = y4[dy];
        } else {
            for (int k = 0; k < 4 && i0 + k < w; k++)
                row[i0 + k] = (uint8_t)(y4[dy] >> (8 * k));
        }
    }
#pragma unroll
    for (int hh = 0; hh < 2 && j0 + 2 * hh < h; hh++) {
        uint8_t *pu = u + (size_t)(j0 / 2 + hh) * us + i0 / 2;
        uint8_t *pv = v + (size_t)(j0 / 2 + hh) * vs + i0 / 2;
        if (i0 + 2 < w) { // one 16-bit store each, as fovea's kernel makes them
            *reinterpret_cast<uint16_t *>(pu) = (uint16_t)u2[hh];
            *reinterpret_cast<uint16_t *>(pv) = (uint16_t)v2[hh];
        } else {
            pu[0] = (uint8_t)u2[hh];
            pv[0] = (uint8_t)v2[hh];
        }
    }
}

} // namespace floor_tex

#endif
