/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Kernels of the delta stream encoder (docs/stream.md, docs/stream-format.md;
// tiles.c's stream_code_block is the reference they match byte for byte):
// the per-tile change flags against the reconstruction R, a one-block scan
// that lists the carried tiles with the offsets of their coded bytes, and the
// coding of each carried tile's plane blocks (the mode choice's integer cost
// sums do not depend on the order they are added in), R then taking the
// source's samples on those blocks.
#include <cuda_runtime.h>
#include <stdint.h>

#include "diff/changed.h"
#include "stream/stream_cuda.h"

namespace
{

constexpr int kFlagThreads = 128;
constexpr int kCodeThreads = 256;
constexpr int kScan = STREAM_CUDA_SCAN_THREADS;

enum { kRaw = 0, kTemporal = 1, kSpatial = 2, kTemporalMed = 3 }; // STREAM_MODE_*

struct Block {
    int x0, y0, w, h;
};

// Plane p's block of tile (tx, ty): stream_block's.
__device__ __forceinline__ Block block_of(const stream_cuda_geom &g, int p, int tx, int ty)
{
    const stream_cuda_plane &pl = g.pl[p];
    Block b;
    b.x0 = (tx * g.tile) >> pl.sx;
    b.y0 = (ty * g.tile) >> pl.sy;
    int bx = ((tx + 1) * g.tile) >> pl.sx, by = ((ty + 1) * g.tile) >> pl.sy;
    if (bx > pl.pw)
        bx = pl.pw;
    if (by > pl.ph)
        by = pl.ph;
    b.w = bx - b.x0;
    b.h = by - b.y0;
    return b;
}

// Coded bytes of plane p's block: a mode byte and the samples' bytes.
__device__ __forceinline__ unsigned long long block_bytes(const stream_cuda_geom &g, int p,
                                                          const Block &b)
{
    return 1ull + (unsigned long long)b.w * (unsigned long long)b.h *
                      (unsigned long long)g.pl[p].cpp * (unsigned long long)g.pl[p].bps;
}

__device__ unsigned long long tile_bytes(const stream_cuda_geom &g, int t)
{
    const int tx = t % g.tiles_x, ty = t / g.tiles_x;
    unsigned long long n = 0;
    for (int p = 0; p < g.planes; p++)
        n += block_bytes(g, p, block_of(g, p, tx, ty));
    return n;
}

// Sample j of row y of a block at origin o (stride s): a byte or a 16-bit
// little-endian container.
__device__ __forceinline__ uint32_t ld(const uint8_t *o, ptrdiff_t s, int y, int j, int bps)
{
    const uint8_t *r = o + (ptrdiff_t)y * s;
    return bps == 1 ? (uint32_t)r[j] : (uint32_t)r[2 * j] | (uint32_t)r[2 * j + 1] << 8;
}

// ---------------------------------------------------------------- flags

// A tile is flagged when some sample of it changed beyond the threshold
// against R: diff_changed, the diff system's rule (the C encoder's mask).
__global__ void __launch_bounds__(kFlagThreads)
    k_flags(stream_cuda_geom g, int threshold, uint8_t *flags)
{
    const int t = blockIdx.x;
    const int tx = t % g.tiles_x, ty = t / g.tiles_x;
    int hit = 0;
    for (int p = 0; p < g.planes; p++) {
        const stream_cuda_plane &pl = g.pl[p];
        const Block b = block_of(g, p, tx, ty);
        const int len = b.w * pl.cpp, n = len * b.h;
        const ptrdiff_t col = (ptrdiff_t)b.x0 * pl.cpp * pl.bps;
        const uint8_t *so = pl.src + (ptrdiff_t)b.y0 * pl.ss + col;
        const uint8_t *ro = pl.rec + (ptrdiff_t)b.y0 * pl.rs + col;
        for (int k = threadIdx.x; k < n && !hit; k += kFlagThreads) {
            const int y = k / len, j = k - y * len;
            const int a = (int)ld(so, pl.ss, y, j, pl.bps), r = (int)ld(ro, pl.rs, y, j, pl.bps);
            hit = diff_changed(a, r, threshold);
        }
    }
    hit = __syncthreads_or(hit);
    if (threadIdx.x == 0)
        flags[t] = (uint8_t)(hit != 0);
}

// ---------------------------------------------------------------- scan

// Thread i owns tiles [i chunk, (i + 1) chunk), chunk a multiple of 8 (whole
// bytes of the map); Hillis-Steele scans of the counts and bytes.
__global__ void __launch_bounds__(kScan)
    k_scan(stream_cuda_geom g, const uint8_t *flags, int key, uint8_t *map, int32_t *list,
           unsigned long long *off)
{
    __shared__ unsigned int cnt[2][kScan];
    __shared__ unsigned long long byt[2][kScan];
    const int tiles = g.tiles_x * g.tiles_y;
    const int chunk = ((tiles + kScan - 1) / kScan + 7) & ~7;
    const int i = threadIdx.x;
    const long long a0 = (long long)i * chunk;
    const int a = a0 < tiles ? (int)a0 : tiles;
    const int b = a + chunk < tiles ? a + chunk : tiles;
    unsigned int c = 0;
    unsigned long long s = 0;
    for (int t = a; t < b; t++) {
        const int f = flags ? flags[t] : 0;
        if (key || f) {
            c++;
            s += tile_bytes(g, t);
        }
    }
    if (map) {
        for (int t = a; t < b; t += 8) {
            unsigned int m = 0;
            for (int k = 0; k < 8 && t + k < b; k++)
                if (flags && flags[t + k])
                    m |= 1u << k;
            map[t >> 3] = (uint8_t)m;
        }
    }
    int cur = 0;
    cnt[0][i] = c;
    byt[0][i] = s;
    __syncthreads();
    for (int d = 1; d < kScan; d <<= 1) {
        unsigned int cv = cnt[cur][i];
        unsigned long long bv = byt[cur][i];
        if (i >= d) {
            cv += cnt[cur][i - d];
            bv += byt[cur][i - d];
        }
        cnt[cur ^ 1][i] = cv;
        byt[cur ^ 1][i] = bv;
        cur ^= 1;
        __syncthreads();
    }
    // exclusive: the inclusive sum less the thread's own
    unsigned int pos = cnt[cur][i] - c;
    unsigned long long at = byt[cur][i] - s;
    for (int t = a; t < b; t++) {
        const int f = flags ? flags[t] : 0;
        if (key || f) {
            list[pos] = t;
            off[pos] = at;
            pos++;
            at += tile_bytes(g, t);
        }
    }
}

// ---------------------------------------------------------------- code

__device__ __forceinline__ uint32_t zigzag(uint32_t d, int bits)
{
    const int32_t s = (int32_t)(d << (32 - bits)) >> (32 - bits);
    return ((uint32_t)s << 1 ^ (uint32_t)(s >> 31)) & ((1u << bits) - 1);
}

// A block's samples: the source's and R's at the block origin.
struct View {
    const uint8_t *s;
    const uint8_t *r;
    ptrdiff_t ss, rs;
    int len, cpp, bps, bits;
    __device__ uint32_t S(int y, int j) const
    {
        return ld(s, ss, y, j, bps);
    }
    __device__ uint32_t R(int y, int j) const
    {
        return ld(r, rs, y, j, bps);
    }
    // (S - R) mod 2^bits, read as signed
    __device__ int32_t res(int y, int j) const
    {
        const uint32_t d = (S(y, j) - R(y, j)) << (32 - bits);
        return (int32_t)d >> (32 - bits);
    }
};

// tiles.c's med: the median edge predictor of sample j of row y from the
// block's samples left, above and above-left.
__device__ __forceinline__ uint32_t med(const View &v, int y, int j)
{
    const int c = v.cpp;
    if (y == 0)
        return j < c ? 0u : v.S(0, j - c);
    if (j < c)
        return v.S(y - 1, j);
    const uint32_t l = v.S(y, j - c), u = v.S(y - 1, j), d = v.S(y - 1, j - c);
    const uint32_t mn = l < u ? l : u, mx = l < u ? u : l;
    return d >= mx ? mn : d <= mn ? mx : l + u - d;
}

// tiles.c's med_res: the same predictor of the residual S - R, modulo 2^bits.
__device__ __forceinline__ uint32_t med_res(const View &v, int y, int j)
{
    const int c = v.cpp;
    int32_t p;
    if (y == 0) {
        p = j < c ? 0 : v.res(0, j - c);
    } else if (j < c) {
        p = v.res(y - 1, j);
    } else {
        const int32_t l = v.res(y, j - c), u = v.res(y - 1, j), d = v.res(y - 1, j - c);
        const int32_t mn = l < u ? l : u, mx = l < u ? u : l;
        p = d >= mx ? mn : d <= mn ? mx : l + u - d;
    }
    return (uint32_t)p & ((1u << v.bits) - 1);
}

// Block (i, p): plane p of carried tile list[i].
__global__ void __launch_bounds__(kCodeThreads) k_code(stream_cuda_code_args a)
{
    __shared__ uint16_t cost[256];
    __shared__ uint32_t part[kCodeThreads / 32][4];
    __shared__ int mode_s;
    for (int k = threadIdx.x; k < 256; k += kCodeThreads)
        cost[k] = a.cost[k];
    const int i = blockIdx.x, p = blockIdx.y;
    const stream_cuda_geom &g = a.g;
    const int t = a.list[i];
    const int tx = t % g.tiles_x, ty = t / g.tiles_x;
    unsigned long long at = a.off[i];
    for (int q = 0; q < p; q++)
        at += block_bytes(g, q, block_of(g, q, tx, ty));
    uint8_t *out = a.out + at;
    const stream_cuda_plane &pl = g.pl[p];
    const Block b = block_of(g, p, tx, ty);
    const ptrdiff_t col = (ptrdiff_t)b.x0 * pl.cpp * pl.bps;
    View v;
    v.s = pl.src + (ptrdiff_t)b.y0 * pl.ss + col;
    v.r = pl.rec + (ptrdiff_t)b.y0 * pl.rs + col;
    v.ss = pl.ss;
    v.rs = pl.rs;
    v.len = b.w * pl.cpp;
    v.cpp = pl.cpp;
    v.bps = pl.bps;
    v.bits = 8 * pl.bps;
    const int n = v.len * b.h;
    const int wide = v.bits == 16;
    const int nm = a.key ? 2 : 4; // RAW, SPATIAL, TEMPORAL, TEMPORAL_MED
    __syncthreads();

    // each mode's estimated bits: integer sums, any order
    uint32_t F[4] = {0, 0, 0, 0};
    for (int k = threadIdx.x; k < n; k += kCodeThreads) {
        const int y = k / v.len, j = k - y * v.len;
        const uint32_t s = v.S(y, j);
        uint32_t val[4] = {s, 0, 0, 0};
        val[1] = zigzag(s - med(v, y, j), v.bits);
        if (!a.key) {
            const uint32_t r = v.R(y, j);
            val[2] = zigzag(s - r, v.bits);
            val[3] = zigzag(s - r - med_res(v, y, j), v.bits);
        }
        for (int m = 0; m < nm; m++)
            F[m] += cost[val[m] & 0xff] + (wide ? cost[val[m] >> 8] : 0u);
    }
    for (int m = 0; m < 4; m++)
        for (int o = 16; o > 0; o >>= 1)
            F[m] += __shfl_down_sync(0xffffffffu, F[m], o);
    if ((threadIdx.x & 31) == 0)
        for (int m = 0; m < 4; m++)
            part[threadIdx.x >> 5][m] = F[m];
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t T[4] = {0, 0, 0, 0};
        for (int w = 0; w < kCodeThreads / 32; w++)
            for (int m = 0; m < 4; m++)
                T[m] += part[w][m];
        const int mode_of[4] = {kRaw, kSpatial, kTemporal, kTemporalMed};
        int best = 0;
        for (int m = 1; m < nm; m++)
            if (T[m] < T[best])
                best = m;
        mode_s = mode_of[best];
        out[0] = (uint8_t)mode_of[best];
    }
    __syncthreads();
    const int mode = mode_s;
    uint8_t *lo = out + 1, *hi = lo + n;
    for (int k = threadIdx.x; k < n; k += kCodeThreads) {
        const int y = k / v.len, j = k - y * v.len;
        uint32_t val = v.S(y, j);
        if (mode == kSpatial)
            val = zigzag(val - med(v, y, j), v.bits);
        else if (mode == kTemporal)
            val = zigzag(val - v.R(y, j), v.bits);
        else if (mode == kTemporalMed)
            val = zigzag(val - v.R(y, j) - med_res(v, y, j), v.bits);
        lo[k] = (uint8_t)val;
        if (wide)
            hi[k] = (uint8_t)(val >> 8);
    }
    // every read of R's block is done: R takes the source's samples
    __syncthreads();
    const int row = v.len * pl.bps, bytes = row * b.h;
    uint8_t *ro = pl.rec + (ptrdiff_t)b.y0 * pl.rs + col;
    for (int k = threadIdx.x; k < bytes; k += kCodeThreads) {
        const int y = k / row, x = k - y * row;
        ro[(ptrdiff_t)y * pl.rs + x] = v.s[(ptrdiff_t)y * pl.ss + x];
    }
}

} // namespace

extern "C" int fv_stream_cuda_flags(const stream_cuda_geom *g, int threshold, uint8_t *flags,
                                    void *stream)
{
    const int tiles = g->tiles_x * g->tiles_y;
    if (tiles < 1 || g->planes < 1 || g->planes > 3)
        return (int)cudaErrorInvalidValue;
    k_flags<<<(unsigned)tiles, kFlagThreads, 0, static_cast<cudaStream_t>(stream)>>>(*g, threshold,
                                                                                     flags);
    return (int)cudaGetLastError();
}

extern "C" int fv_stream_cuda_scan(const stream_cuda_geom *g, const uint8_t *flags, int key,
                                   uint8_t *map, int32_t *list, unsigned long long *off,
                                   void *stream)
{
    if (g->tiles_x < 1 || g->tiles_y < 1 || g->planes < 1 || g->planes > 3)
        return (int)cudaErrorInvalidValue;
    k_scan<<<1, kScan, 0, static_cast<cudaStream_t>(stream)>>>(*g, flags, key, map, list, off);
    return (int)cudaGetLastError();
}

extern "C" int fv_stream_cuda_code(const stream_cuda_code_args *a, void *stream)
{
    if (a->n < 1 || a->g.planes < 1 || a->g.planes > 3)
        return (int)cudaErrorInvalidValue;
    const dim3 grid((unsigned)a->n, (unsigned)a->g.planes);
    k_code<<<grid, kCodeThreads, 0, static_cast<cudaStream_t>(stream)>>>(*a);
    return (int)cudaGetLastError();
}
