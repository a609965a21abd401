// Rows (h) of bench_stitch (see stitch_staged.h): tiles filtered on the SM
// from camera boxes that the bulk tensor copy engine (TMA) brings into shared
// memory, mixed in one kernel with tiles filtered by the texture unit.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "stitch_floor_tex.cuh"
#include "stitch_staged.h"

namespace {

struct kparams {
    const CUtensorMap *tmap;   // device, [camera * 2 + plane]
    floor_args f;              // grids, textures, outputs, sizes (owner unused)
    const staged_tile *tiles;
    int box_w, cbox_w;         // texels
    int box_bytes, cbox_bytes; // one chunk's bytes (STAGED_ROWS rows)
    int smem_luma;             // bytes of the RGBA / luma region (chroma after it)
    int smem_bytes;            // the block's dynamic shared memory
};

using floor_tex::cell;
using floor_tex::cell_at;
using floor_tex::pos;

// round(256 x) for |x| < 2^13, ties to even, without a conversion instruction
__device__ __forceinline__ int fixed8(float x)
{
    return __float_as_int(fmaf(x, 256.0f, 12582912.0f)) - 0x4B400000;
}

__device__ __forceinline__ unsigned int smem_addr(const void *p)
{
    return (unsigned int)__cvta_generic_to_shared(p);
}

// The bulk tensor copies and transaction barriers exist from sm_90 on. The
// file is also compiled for the default sm_80/86/89 targets: there the helpers
// trap, and bench_staged_init refuses devices older than sm_90, so the rows
// (h) are skipped there instead of breaking the build.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define STAGED_SM90(...) __trap()
#else
#define STAGED_SM90(...) __VA_ARGS__
#endif

// thread 0: arm the barrier for `bytes` and issue `n` box copies of one plane
__device__ __forceinline__ void tma_boxes(const CUtensorMap *map, unsigned int dst, int chunk_bytes,
                                          int n, int x, int y, unsigned int bar)
{
    for (int k = 0; k < n; k++)
        STAGED_SM90(asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst + (unsigned int)(k * chunk_bytes)),
                     "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y + k * STAGED_ROWS),
                     "r"(bar)
                     : "memory"));
}

__device__ __forceinline__ void bar_init(unsigned int bar)
{
    STAGED_SM90(asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory"));
    STAGED_SM90(asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"));
    STAGED_SM90(asm volatile("fence.proxy.async.shared::cta;" ::: "memory"));
}

__device__ __forceinline__ void bar_expect(unsigned int bar, unsigned int bytes)
{
    STAGED_SM90(asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory"));
}

// waits for the barrier's first phase (a block's only one)
__device__ __forceinline__ void bar_wait(unsigned int bar)
{
    unsigned int done = 0;
    while (!done)
        STAGED_SM90(asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;"
                     " selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(bar)
                     : "memory"));
}

// A bilinear tap of a box at (bx, by): the top-left texel (x, y) in the box
// (clamped to [0, maxx] x [0, maxy]) and the 8-bit fractions, the position
// rounded to 1/256 texel.
struct tap {
    int x, y;
    unsigned int fx, fy;
};

__device__ __forceinline__ tap tap_at(float u, float v, int bx, int by, int maxx, int maxy)
{
    const int ui = fixed8(u), vi = fixed8(v);
    tap t;
    t.x = min(max((ui >> 8) - bx, 0), maxx);
    t.y = min(max((vi >> 8) - by, 0), maxy);
    t.fx = (unsigned int)ui & 255u;
    t.fy = (unsigned int)vi & 255u;
    return t;
}

// Bilinear RGBA sample at (u, v) from a box at (bx, by) of `pitch` bytes per
// row: integer weights of 8 bits, R/B and G/A two to a 32-bit multiply.
__device__ __forceinline__ unsigned int sample_rgba(const unsigned char *box, int pitch, int maxx,
                                                    int maxy, int bx, int by, float u, float v)
{
    const tap k = tap_at(u, v, bx, by, maxx, maxy);
    const unsigned int fx = k.fx, fy = k.fy;
    const unsigned char *q = box + k.y * pitch + 4 * k.x;
    const unsigned int p00 = *reinterpret_cast<const unsigned int *>(q);
    const unsigned int p10 = *reinterpret_cast<const unsigned int *>(q + 4);
    const unsigned int p01 = *reinterpret_cast<const unsigned int *>(q + pitch);
    const unsigned int p11 = *reinterpret_cast<const unsigned int *>(q + pitch + 4);
    const unsigned int wx = 256u - fx, wy = 256u - fy;
    const unsigned int tl = __byte_perm(p00, 0, 0x4240) * wx + __byte_perm(p10, 0, 0x4240) * fx;
    const unsigned int th = __byte_perm(p00, 0, 0x4341) * wx + __byte_perm(p10, 0, 0x4341) * fx;
    const unsigned int bl = __byte_perm(p01, 0, 0x4240) * wx + __byte_perm(p11, 0, 0x4240) * fx;
    const unsigned int bh = __byte_perm(p01, 0, 0x4341) * wx + __byte_perm(p11, 0, 0x4341) * fx;
    const unsigned int r = ((tl & 0xffffu) * wy + (bl & 0xffffu) * fy + 32768u) >> 16;
    const unsigned int b = ((tl >> 16) * wy + (bl >> 16) * fy + 32768u) >> 16;
    const unsigned int g = ((th & 0xffffu) * wy + (bh & 0xffffu) * fy + 32768u) >> 16;
    return r | g << 8 | b << 16 | 0xff000000u;
}

__device__ __forceinline__ unsigned int sample_luma(const unsigned char *box, int pitch, int maxx,
                                                    int maxy, int bx, int by, float u, float v)
{
    const tap k = tap_at(u, v, bx, by, maxx, maxy);
    const unsigned int fx = k.fx, fy = k.fy;
    const unsigned char *q = box + k.y * pitch + k.x;
    const unsigned int wx = 256u - fx, wy = 256u - fy;
    const unsigned int top = q[0] * wx + q[1] * fx, bot = q[pitch] * wx + q[pitch + 1] * fx;
    return (top * wy + bot * fy + 32768u) >> 16;
}

// U | V << 8 of a bilinear UV sample (2-byte texels)
__device__ __forceinline__ unsigned int sample_uv(const unsigned char *box, int pitch, int maxx,
                                                  int maxy, int bx, int by, float u, float v)
{
    const tap k = tap_at(u, v, bx, by, maxx, maxy);
    const unsigned int fx = k.fx, fy = k.fy;
    const unsigned char *q = box + k.y * pitch + 2 * k.x;
    const unsigned int p00 = *reinterpret_cast<const unsigned short *>(q);
    const unsigned int p10 = *reinterpret_cast<const unsigned short *>(q + 2);
    const unsigned int p01 = *reinterpret_cast<const unsigned short *>(q + pitch);
    const unsigned int p11 = *reinterpret_cast<const unsigned short *>(q + pitch + 2);
    const unsigned int wx = 256u - fx, wy = 256u - fy;
    const unsigned int t = __byte_perm(p00, 0, 0x4140) * wx + __byte_perm(p10, 0, 0x4140) * fx;
    const unsigned int b = __byte_perm(p01, 0, 0x4140) * wx + __byte_perm(p11, 0, 0x4140) * fx;
    const unsigned int cu = ((t & 0xffffu) * wy + (b & 0xffffu) * fy + 32768u) >> 16;
    const unsigned int cv = ((t >> 16) * wy + (b >> 16) * fy + 32768u) >> 16;
    return cu | cv << 8;
}

// thread 0: arm `bar` and copy tile t's box(es) to shared memory at `dst`
template <bool NV12>
__device__ __forceinline__ void issue(const kparams &a, const staged_tile &t, unsigned int dst,
                                      unsigned int bar)
{
    const int cam = t.cam;
    bar_expect(bar, (unsigned int)(t.chunks * a.box_bytes + (NV12 ? t.cchunks * a.cbox_bytes : 0)));
    tma_boxes(&a.tmap[cam * 2], dst, a.box_bytes, t.chunks, t.x0, t.y0, bar);
    if (NV12)
        tma_boxes(&a.tmap[cam * 2 + 1], dst + (unsigned int)a.smem_luma, a.cbox_bytes, t.cchunks,
                  t.cx0, t.cy0, bar);
}

// tile (tx, ty) of the RGBA frame; a STAGED_SMEM tile's box is (arriving) at
// `box`, completing `bar`.
__device__ __forceinline__ void rgba_tile(const kparams &k, const staged_tile &t, int tx, int ty,
                                          const unsigned char *box, unsigned int bar)
{
    const floor_args &a = k.f;
    const int i0 = (tx * 32 + (int)threadIdx.x) * 4;
    const int j0 = (ty * 8 + (int)threadIdx.y) * 2;
    const int cam = t.cam;
    uint4 px[2] = {make_uint4(0, 0, 0, 0), make_uint4(0, 0, 0, 0)};
    const bool inside = i0 < a.pano_w && j0 < a.pano_h;
    if (t.mode != STAGED_NONE && inside) {
        const cell ce = cell_at(a, cam, i0, j0);
        if (t.mode == STAGED_TEX) {
            floor_tex::rgba_px(cam ? a.tex[1][0] : a.tex[0][0], ce, px);
        } else {
            float2 p[2][4];
#pragma unroll
            for (int dy = 0; dy < 2; dy++)
#pragma unroll
                for (int k = 0; k < 4; k++)
                    p[dy][k] = pos(ce, ce.fx0 + 0.25f * (float)k, ce.fy0 + 0.25f * (float)dy);
            bar_wait(bar);
            const int pitch = 4 * k.box_w, maxx = k.box_w - 2, maxy = t.chunks * STAGED_ROWS - 2;
            unsigned int w[2][4];
#pragma unroll
            for (int dy = 0; dy < 2; dy++)
#pragma unroll
                for (int k = 0; k < 4; k++)
                    w[dy][k] = sample_rgba(box, pitch, maxx, maxy, t.x0, t.y0, p[dy][k].x, p[dy][k].y);
#pragma unroll
            for (int dy = 0; dy < 2; dy++)
                px[dy] = make_uint4(w[dy][0], w[dy][1], w[dy][2], w[dy][3]);
        }
    }
    if (inside)
        floor_tex::store_rgba(a.out0, a.stride0, a.pano_w, i0, j0, px);
}

// tile (tx, ty) of the NV12 -> I420 frame, as rgba_tile
__device__ __forceinline__ void nv12_tile(const kparams &k, const staged_tile &t, int tx, int ty,
                                          const unsigned char *sm, unsigned int bar)
{
    const floor_args &a = k.f;
    const int i0 = (tx * 32 + (int)threadIdx.x) * 4;
    const int j0 = (ty * 4 + (int)threadIdx.y) * 4;
    const int cam = t.cam;
    const unsigned char *csm = sm + k.smem_luma;
    unsigned int y4[4] = {0, 0, 0, 0}, u2[2] = {0x8080u, 0x8080u}, v2[2] = {0x8080u, 0x8080u};
    const bool inside = i0 < a.pano_w && j0 < a.pano_h;
    if (t.mode != STAGED_NONE && inside) {
        const cell ce = cell_at(a, cam, i0, j0);
        if (t.mode == STAGED_TEX) {
            floor_tex::nv12_px(cam ? a.tex[1][0] : a.tex[0][0], cam ? a.tex[1][1] : a.tex[0][1], ce,
                               y4, u2, v2);
        } else {
            float2 p[4][4], q[2][2];
#pragma unroll
            for (int dy = 0; dy < 4; dy++)
#pragma unroll
                for (int k = 0; k < 4; k++)
                    p[dy][k] = pos(ce, 0.25f * (float)k, 0.25f * (float)dy);
#pragma unroll
            for (int h = 0; h < 2; h++)
#pragma unroll
                for (int bb = 0; bb < 2; bb++) {
                    const float2 m = pos(ce, 0.125f + 0.5f * (float)bb, 0.125f + 0.5f * (float)h);
                    q[h][bb] = make_float2(fmaf(0.5f, m.x, -0.25f), fmaf(0.5f, m.y, -0.25f));
                }
            bar_wait(bar);
            const int pitch = k.box_w, maxx = k.box_w - 2, maxy = t.chunks * STAGED_ROWS - 2;
#pragma unroll
            for (int dy = 0; dy < 4; dy++) {
                unsigned int w = 0;
#pragma unroll
                for (int k = 0; k < 4; k++)
                    w |= sample_luma(sm, pitch, maxx, maxy, t.x0, t.y0, p[dy][k].x, p[dy][k].y)
                         << (8 * k);
                y4[dy] = w;
            }
            const int cpitch = 2 * k.cbox_w, cmaxx = k.cbox_w - 2,
                      cmaxy = t.cchunks * STAGED_ROWS - 2;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const unsigned int s0 =
                    sample_uv(csm, cpitch, cmaxx, cmaxy, t.cx0, t.cy0, q[h][0].x, q[h][0].y);
                const unsigned int s1 =
                    sample_uv(csm, cpitch, cmaxx, cmaxy, t.cx0, t.cy0, q[h][1].x, q[h][1].y);
                u2[h] = (s0 & 0xffu) | (s1 & 0xffu) << 8;
                v2[h] = s0 >> 8 | (s1 & 0xff00u);
            }
        }
    }
    if (inside)
        floor_tex::store_i420(a.out0, a.stride0, a.out1, a.stride1, a.out2, a.stride2, a.pano_w,
                              a.pano_h, i0, j0, y4, u2, v2);
}


// one tile per block
template <bool NV12>
__global__ void __launch_bounds__(NV12 ? 128 : 256) staged_one(const __grid_constant__ kparams a)
{
    extern __shared__ __align__(128) unsigned char sm[];
    __shared__ __align__(8) unsigned long long bar;
    const staged_tile t = a.tiles[blockIdx.y * a.f.tiles_x + blockIdx.x];
    const unsigned int b = smem_addr(&bar);
    if (t.mode == STAGED_SMEM) {
        if (threadIdx.x == 0 && threadIdx.y == 0) {
            bar_init(b);
            issue<NV12>(a, t, smem_addr(sm), b);
        }
        __syncthreads();
    }
    if (NV12)
        nv12_tile(a, t, blockIdx.x, blockIdx.y, sm, b);
    else
        rgba_tile(a, t, blockIdx.x, blockIdx.y, sm, b);
}

// a tensor map over a plane with boxes of box_w texels x STAGED_ROWS rows
int encode(CUtensorMap *m, const uint8_t *plane, int w, int h, int stride, int bpp, int box_w)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
    if (!fn) {
        cudaDriverEntryPointQueryResult q;
        void *f = nullptr;
        const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000,
                                                               cudaEnableDefault, &q);
        if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !f)
            return e != cudaSuccess ? (int)e : (int)cudaErrorNotSupported;
        fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
    }
    const CUtensorMapDataType type = bpp == 4   ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                     : bpp == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                                : CU_TENSOR_MAP_DATA_TYPE_UINT8;
    const cuuint64_t dims[2] = {(cuuint64_t)w, (cuuint64_t)h};
    const cuuint64_t strides[1] = {(cuuint64_t)stride};
    const cuuint32_t box[2] = {(cuuint32_t)box_w, (cuuint32_t)STAGED_ROWS};
    const cuuint32_t es[2] = {1, 1};
    const CUresult r = fn(m, type, 2, const_cast<uint8_t *>(plane), dims, strides, box, es,
                          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                          CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? 0 : 1000 + (int)r;
}

kparams make_params(const staged_args *a)
{
    kparams k;
    k.tmap = static_cast<const CUtensorMap *>(a->d_tmap);
    k.f = a->base;
    k.tiles = a->tiles;
    k.box_w = a->box_w;
    k.cbox_w = a->cbox_w;
    k.box_bytes = a->box_w * (a->nv12 ? 1 : 4) * STAGED_ROWS;
    k.cbox_bytes = a->cbox_w * 2 * STAGED_ROWS;
    k.smem_luma = (k.box_bytes * a->max_chunks + 127) / 128 * 128;
    k.smem_bytes = (k.smem_luma + (a->nv12 ? k.cbox_bytes * a->max_cchunks : 0) + 127) / 128 * 128;
    return k;
}

template <typename K> cudaError_t set_smem(K kernel, size_t bytes)
{
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

} // namespace

extern "C" int bench_staged_init(staged_args *a)
{
    static_assert(sizeof(CUtensorMap) == 128, "tensor map size");
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
        return (int)cudaErrorUnknown;
    if (major < 9)
        return STAGED_NEEDS_SM90;
    for (int c = 0; c < 2; c++)
        for (int p = 0; p < (a->nv12 ? 2 : 1); p++) {
            const int bpp = a->nv12 ? (p ? 2 : 1) : 4;
            const int e = encode(reinterpret_cast<CUtensorMap *>(a->tmap[c][p]), a->plane[c][p],
                                 a->plane_w[c][p], a->plane_h[c][p], a->plane_stride[c][p], bpp,
                                 p ? a->cbox_w : a->box_w);
            if (e)
                return e;
        }
    if (!a->d_tmap) {
        const cudaError_t m = cudaMalloc(&a->d_tmap, sizeof(a->tmap));
        if (m != cudaSuccess)
            return (int)m;
    }
    const cudaError_t m = cudaMemcpy(a->d_tmap, a->tmap, sizeof(a->tmap), cudaMemcpyHostToDevice);
    if (m != cudaSuccess)
        return (int)m;
    const size_t smem = (size_t)make_params(a).smem_bytes;
    const cudaError_t e = a->nv12 ? set_smem(staged_one<true>, smem) : set_smem(staged_one<false>, smem);
    return (int)e;
}

extern "C" int bench_staged_run(const staged_args *a, void *stream)
{
    const kparams k = make_params(a);
    const size_t smem = (size_t)k.smem_bytes;
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    const dim3 grid(a->base.tiles_x, a->base.tiles_y);
    const dim3 block(32, a->nv12 ? 4 : 8);
    if (a->nv12)
        staged_one<true><<<grid, block, smem, st>>>(k);
    else
        staged_one<false><<<grid, block, smem, st>>>(k);
    return (int)cudaGetLastError();
}
