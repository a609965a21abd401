/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// KLT selection kernels: the minimum-eigenvalue map over the candidate grid
// (gradient products staged in shared memory), the marking of squares around
// kept features in the byte map, and the greedy minimum-distance pass over
// the sorted candidates (the sort: sort.cu). Float steps are the reference's
// (select.c), written with explicitly rounded intrinsics in the same order.
#include <cuda_runtime.h>
#include <limits.h>

#include <cub/block/block_scan.cuh>

#include "klt/klt_rn.cuh"
#include "klt/select_cuda.h"

namespace
{

// ------------------------------------------------------------ eigenvalues

constexpr int kEigW = 32;    // candidate columns per block (one warp)
constexpr int kEigV = 4;     // vertically adjacent candidates per thread
constexpr int kEigMaxTy = 8; // thread rows per block (32 candidate rows)
constexpr long long kEigSmem = 48 * 1024;

// (gxx + gyy - sqrt((gxx-gyy)^2 + 4 gxy gxy)) / 2: float terms, double root,
// truncated to int (saturating at INT_MAX) as select.c does.
__device__ __forceinline__ int min_eigenvalue(float sxx, float sxy, float syy)
{
    float d = fsub(sxx, syy);
    float under = fadd(fmul(d, d), fmul(fmul(4.0f, sxy), sxy));
    double root = __dsqrt_rn((double)under);
    double v = __dmul_rn(__dsub_rn((double)fadd(sxx, syy), root), 0.5);
    float val = __double2float_rn(v);
    return val >= 2147483648.0f ? INT_MAX : __float2int_rz(val);
}

// Adds one window row (n pixels of the three product planes, columns in
// ascending order) to the sums of the candidates LO..HI of the thread.
template <int V, int LO, int HI>
__device__ __forceinline__ void eig_row(const float *qxx, const float *qxy, const float *qyy, int n,
                                        float (&sxx)[V], float (&sxy)[V], float (&syy)[V])
{
#pragma unroll 4
    for (int c = 0; c < n; c++) {
        const float pxx = qxx[c], pxy = qxy[c], pyy = qyy[c];
#pragma unroll
        for (int v = LO; v <= HI; v++) {
            sxx[v] = fadd(sxx[v], pxx);
            sxy[v] = fadd(sxy[v], pxy);
            syy[v] = fadd(syy[v], pyy);
        }
    }
}

// Calls eig_row<V, L, H> for the range (lo, hi): a chain over every range
// L <= H < V, (0, 0), (0, 1), ..., (V - 1, V - 1).
template <int V, int L, int H> struct EigRows {
    static __device__ __forceinline__ void run(int lo, int hi, const float *qxx, const float *qxy,
                                               const float *qyy, int n, float (&sxx)[V],
                                               float (&sxy)[V], float (&syy)[V])
    {
        if (lo == L && hi == H)
            eig_row<V, L, H>(qxx, qxy, qyy, n, sxx, sxy, syy);
        else
            EigRows<V, (H + 1 < V ? L : L + 1), (H + 1 < V ? H + 1 : L + 1)>::run(
                lo, hi, qxx, qxy, qyy, n, sxx, sxy, syy);
    }
};
template <int V, int H> struct EigRows<V, V, H> {
    static __device__ __forceinline__ void run(int, int, const float *, const float *,
                                               const float *, int, float (&)[V], float (&)[V],
                                               float (&)[V])
    {
    }
};

// Block: kEigW x blockDim.y threads, kEigW x (blockDim.y * kEigV) candidates;
// thread (tx, ty) owns candidate column tx, rows ty * kEigV + v. The block's
// footprint (tw x th pixels, windows included) is staged in shared memory as
// three planes gx*gx, gx*gy, gy*gy (rounded products, the values the
// reference adds). A thread walks the union of its candidates' window rows
// once; each row is added to the candidates whose window holds it, so every
// candidate still sums its window row by row, columns ascending, from zero:
// the reference's order. The set of candidates of a row is a contiguous range
// [lo, hi], dispatched to a loop specialized for it so the sums stay in
// registers and no addition is predicated away.
template <int V>
__global__ void __launch_bounds__(kEigW *kEigMaxTy)
    eigen_tile_kernel(klt_cuda_eig_args a, int tw, int th)
{
    extern __shared__ float sm[];
    const int plane = tw * th;
    float *pxx = sm, *pxy = sm + plane, *pyy = sm + 2 * plane;
    const int s = a.step, tx = threadIdx.x, ty = threadIdx.y;
    const int k0 = blockIdx.x * kEigW, row0 = blockIdx.y * (blockDim.y * V);
    // the tile's corner is the first candidate's window corner; pixels past
    // the last candidate's window (partial blocks) are not read: zeros
    const int x0 = a.bx + k0 * s - a.hw, y0 = a.by + row0 * s - a.hh;
    const int xmax = a.bx + (a.nx - 1) * s + a.hw, ymax = a.by + (a.ny - 1) * s + a.hh;
    for (int r = ty; r < th; r += blockDim.y) {
        const int yy = y0 + r;
        for (int c = tx; c < tw; c += kEigW) {
            const int xx = x0 + c;
            float gx = 0.0f, gy = 0.0f;
            if (yy <= ymax && xx <= xmax) {
                const size_t i = (size_t)yy * a.ncols + xx;
                gx = __ldg(a.gx + i);
                gy = __ldg(a.gy + i);
            }
            const int o = r * tw + c;
            pxx[o] = fmul(gx, gx);
            pxy[o] = fmul(gx, gy);
            pyy[o] = fmul(gy, gy);
        }
    }
    __syncthreads();

    float sxx[V], sxy[V], syy[V];
#pragma unroll
    for (int v = 0; v < V; v++)
        sxx[v] = sxy[v] = syy[v] = 0.0f;
    const int wh = 2 * a.hh + 1, ww = 2 * a.hw + 1;
    // candidate v of the thread covers its rows [v*s, v*s + wh - 1]
    const int nr = (V - 1) * s + wh;
    const int base = ty * V * s * tw + tx * s;
    for (int r = 0; r < nr; r++) {
        const int lo = r >= wh ? (r - wh + s) / s : 0;
        const int hi = r / s < V - 1 ? r / s : V - 1;
        if (lo > hi)
            continue;
        const int o = base + r * tw;
        EigRows<V, 0, 0>::run(lo, hi, pxx + o, pxy + o, pyy + o, ww, sxx, sxy, syy);
    }

    const int k = k0 + tx;
    int above = 0;
#pragma unroll
    for (int v = 0; v < V; v++) {
        const int row = row0 + ty * V + v;
        if (k < a.nx && row < a.ny) {
            const int x = a.bx + k * s, y = a.by + row * s;
            const int iv = min_eigenvalue(sxx[v], sxy[v], syy[v]);
            size_t idx = (size_t)row * a.nx + k;
            reinterpret_cast<int2 *>(a.cand)[idx] =
                make_int2(iv, (int)((unsigned)y * (unsigned)a.ncols + (unsigned)x));
            above |= (iv >= a.min_eig) << v;
        }
    }
    int n = 0;
#pragma unroll
    for (int v = 0; v < V; v++)
        n += __syncthreads_count(above & (1 << v));
    if (tx == 0 && ty == 0 && n)
        atomicAdd(a.nabove, n);
}

// Windows or steps whose tile does not fit: one thread per candidate reading
// the window from global memory (through L1).
__global__ void eigen_global_kernel(klt_cuda_eig_args a)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const bool in = k < a.nx && row < a.ny;
    int above = 0;
    if (in) {
        const int x = a.bx + k * a.step, y = a.by + row * a.step;
        float sxx = 0.0f, sxy = 0.0f, syy = 0.0f;
        for (int yy = y - a.hh; yy <= y + a.hh; yy++) {
            const float *rx = a.gx + (size_t)yy * a.ncols;
            const float *ry = a.gy + (size_t)yy * a.ncols;
            for (int xx = x - a.hw; xx <= x + a.hw; xx++) {
                float gx = __ldg(rx + xx), gy = __ldg(ry + xx);
                sxx = fadd(sxx, fmul(gx, gx));
                sxy = fadd(sxy, fmul(gx, gy));
                syy = fadd(syy, fmul(gy, gy));
            }
        }
        const int iv = min_eigenvalue(sxx, sxy, syy);
        size_t idx = (size_t)row * a.nx + k;
        reinterpret_cast<int2 *>(a.cand)[idx] =
            make_int2(iv, (int)((unsigned)y * (unsigned)a.ncols + (unsigned)x));
        above = iv >= a.min_eig;
    }
    const int n = __syncthreads_count(above);
    if (threadIdx.x == 0 && threadIdx.y == 0 && n)
        atomicAdd(a.nabove, n);
}

// ------------------------------------------------------------ marking

constexpr int kMarkThreads = 256;
constexpr int kMarkMaxWarps = 32; // warps per point, at most

// wpp warps per point; the point's clipped square is walked as one
// row-major run of bytes, lane-consecutive, so a warp's stores hit a few
// consecutive bytes of one or two rows.
__global__ void __launch_bounds__(kMarkThreads)
    mark_kernel(unsigned char *map, int ncols, int nrows, const int *pts, int n, int d, int wpp)
{
    const long long gw = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (gw >= (long long)n * wpp)
        return;
    const int p = (int)(gw / wpp), w = (int)(gw - (long long)p * wpp);
    const long long px = pts[2 * p], py = pts[2 * p + 1];
    const long long xa = px - d < 0 ? 0 : px - d, xb = px + d >= ncols ? ncols - 1 : px + d;
    const long long ya = py - d < 0 ? 0 : py - d, yb = py + d >= nrows ? nrows - 1 : py + d;
    if (xa > xb || ya > yb)
        return;
    const int cw = (int)(xb - xa + 1), ch = (int)(yb - ya + 1);
    const int stride = wpp * 32, dr = stride / cw, dc = stride - dr * cw;
    const int i0 = w * 32 + lane;
    int r = i0 / cw, c = i0 - r * cw;
    unsigned char *sq = map + (size_t)ya * ncols + xa;
    while (r < ch) {
        sq[(size_t)r * ncols + c] = 1;
        c += dc;
        r += dr;
        if (c >= cw) {
            c -= cw;
            r++;
        }
    }
}

// ------------------------------------------------------------ minimum distance

constexpr int kGreedyThreads = 512;
constexpr int kGreedyPer = 8;
constexpr int kGreedyChunk = kGreedyThreads * kGreedyPer;
constexpr int kGreedyWarps = kGreedyThreads / 32;
// a group has kGreedyThreads candidates (one per thread), one bit each: a
// mask is one word per warp
constexpr int kGreedyWords = kGreedyWarps;
constexpr int kUndecided = 0, kTaken = 1, kRejected = 2;

typedef cub::BlockScan<int, kGreedyThreads> GreedyScan;

struct GreedyShared {
    GreedyScan::TempStorage scan_tmp;
    int idx[kGreedyChunk];    // free candidates of the chunk: index
    int xy[kGreedyChunk];     // x | y << 16
    int2 pos[kGreedyThreads]; // free candidates of a group: (x, y)
    int cme[kGreedyThreads];  // ... their place in idx
    short take[kGreedyThreads];
    uint4 tk4[kGreedyWords / 4], un4[kGreedyWords / 4]; // bit masks: taken, undecided
    int total, reach;
};

// Bit b of the result: candidate 32 w + b (< t) of the group's free ones
// (positions s_pos) lies within d (Chebyshev) of (x, y). Word w of a thread's
// mask: candidates 32 w .. 32 w + 31; only the words below (t >> 5) + 1 are
// made (the others stay 0).
__device__ __forceinline__ unsigned greedy_near_word(const int2 *s_pos, int w, int t, int x, int y,
                                                     int d)
{
    unsigned bits = 0;
    const int k0 = w * 32;
    const unsigned d2 = 2u * (unsigned)d;
#pragma unroll
    for (int b = 0; b < 32; b++) {
        const int2 o = s_pos[k0 + b]; // the same address in every lane
        const bool near = (unsigned)(o.x - x + d) <= d2 && (unsigned)(o.y - y + d) <= d2;
        bits |= near ? 1u << b : 0u;
    }
    // only earlier candidates: bits below t - k0
    const int lim = t - k0;
    return lim >= 32 ? bits : lim <= 0 ? 0u : bits & ((1u << lim) - 1u);
}

// The chunk of candidates [base, base + kGreedyChunk) (before end): the ones
// whose pixel is free in the map, in sorted order, into sh.idx / sh.xy.
// Returns their count.
__device__ __forceinline__ int greedy_chunk(const klt_cuda_greedy_args &a, const int2 *cand,
                                            int base, int end, GreedyShared &sh)
{
    const int tid = threadIdx.x;
    int pix[kGreedyPer];
    int cnt = 0;
    const int i0 = base + tid * kGreedyPer;
    for (int j = 0; j < kGreedyPer; j++) {
        pix[j] = -1;
        if (i0 + j < end)
            pix[j] = cand[i0 + j].y;
    }
    for (int j = 0; j < kGreedyPer; j++) {
        if (pix[j] >= 0 && a.map[pix[j]] != 0)
            pix[j] = -1;
        cnt += pix[j] >= 0;
    }
    int off, ns;
    GreedyScan(sh.scan_tmp).ExclusiveSum(cnt, off, ns);
    for (int j = 0; j < kGreedyPer; j++) {
        if (pix[j] < 0)
            continue;
        const int py = pix[j] / a.ncols;
        sh.idx[off] = i0 + j;
        sh.xy[off] = (pix[j] - py * a.ncols) | (py << 16);
        off++;
    }
    __syncthreads();
    return ns;
}

// A group: the next kGreedyThreads free candidates of the chunk (from g of
// ns), tested against the map again (the marks of the groups before it); the
// ones still free into sh.pos / sh.cme in order. Returns their count.
__device__ __forceinline__ int greedy_group(const klt_cuda_greedy_args &a, int g, int ns,
                                            GreedyShared &sh)
{
    const int tid = threadIdx.x;
    const int gn = ns - g < kGreedyThreads ? ns - g : kGreedyThreads;
    const int me = g + tid;
    int fr = tid < gn;
    const int xy0 = fr ? sh.xy[me] : 0;
    if (fr && g > 0)
        fr = a.map[(size_t)(xy0 >> 16) * a.ncols + (xy0 & 0xffff)] == 0;
    int pos, m;
    GreedyScan(sh.scan_tmp).ExclusiveSum(fr, pos, m);
    if (fr) {
        sh.pos[pos] = make_int2(xy0 & 0xffff, xy0 >> 16);
        sh.cme[pos] = me;
    }
    __syncthreads();
    return m;
}

// The decisions on the group's m free candidates (thread t: candidate t, t <
// m): each finds its earlier neighbors once (conf, a bit mask), then rounds
// on the two masks (taken, undecided) until none is undecided. Returns
// kTaken or kRejected (kRejected for threads past m).
__device__ __forceinline__ int greedy_decide(const klt_cuda_greedy_args &a, int m, GreedyShared &sh)
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    unsigned *s_tk = reinterpret_cast<unsigned *>(sh.tk4);
    unsigned *s_un = reinterpret_cast<unsigned *>(sh.un4);
    const int t = tid;
    const bool act = t < m;
    const int2 p = act ? sh.pos[t] : make_int2(0, 0);
    unsigned conf[kGreedyWords];
    // the warp's words: up to its last active thread's
    const int wlast = m > 0 ? ((m - 1 < (tid | 31) ? m - 1 : (tid | 31)) >> 5) : -1;
#pragma unroll
    for (int w = 0; w < kGreedyWords; w++)
        conf[w] =
            a.d >= 0 && w <= wlast && act ? greedy_near_word(sh.pos, w, t, p.x, p.y, a.d) : 0u;
    int st = act ? (a.d < 0 ? kTaken : kUndecided) : kRejected;
    {
        const unsigned bu = __ballot_sync(0xffffffffu, st == kUndecided);
        const unsigned bt = __ballot_sync(0xffffffffu, st == kTaken);
        if (lane == 0) {
            s_un[warp] = bu;
            s_tk[warp] = bt;
        }
    }
    while (__syncthreads_or(st == kUndecided)) {
        if (st == kUndecided) {
            // words past the warp's own are 0 in conf
            unsigned tk = 0, op = 0;
#pragma unroll
            for (int q = 0; q < kGreedyWords / 4; q++) {
                const uint4 T = sh.tk4[q], U = sh.un4[q];
                tk |= (conf[4 * q] & T.x) | (conf[4 * q + 1] & T.y) | (conf[4 * q + 2] & T.z) |
                      (conf[4 * q + 3] & T.w);
                op |= (conf[4 * q] & U.x) | (conf[4 * q + 1] & U.y) | (conf[4 * q + 2] & U.z) |
                      (conf[4 * q + 3] & U.w);
            }
            st = tk ? kRejected : op ? kUndecided : kTaken;
        }
        const unsigned bu = __ballot_sync(0xffffffffu, st == kUndecided);
        const unsigned bt = __ballot_sync(0xffffffffu, st == kTaken);
        __syncthreads(); // every thread has read the masks
        if (lane == 0) {
            s_un[warp] = bu;
            s_tk[warp] = bt;
        }
    }
    return st;
}

// The first taken ones (st of this thread's candidate) fill the slots left:
// written out, their squares marked in the map, sh.total advanced.
__device__ __forceinline__ void greedy_take(const klt_cuda_greedy_args &a, const int2 *cand, int st,
                                            GreedyShared &sh)
{
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int t = tid;
    const int take = st == kTaken;
    int rank, ntake;
    GreedyScan(sh.scan_tmp).ExclusiveSum(take, rank, ntake);
    const int total = sh.total, room = a.nslots - total;
    const int nkeep = ntake < room ? ntake : room;
    if (take && rank < room) {
        const int ci = sh.idx[sh.cme[t]];
        const int2 c = cand[ci];
        a.out_pix[total + rank] = c.y;
        a.out_val[total + rank] = c.x;
        sh.take[rank] = (short)t;
        if (rank == nkeep - 1)
            sh.reach = ci + 1; // the last taken so far
    }
    __syncthreads();
    if (a.d >= 0) {
        // a warp per row of a square: the lanes' bytes are adjacent
        const int side = 2 * a.d + 1;
        for (int r = warp; r < nkeep * side; r += kGreedyWarps) {
            const int k = r / side;
            const int2 tp = sh.pos[sh.take[k]];
            const int yy = tp.y - a.d + (r - k * side);
            if (yy < 0 || yy >= a.nrows)
                continue;
            const int xa = tp.x - a.d < 0 ? 0 : tp.x - a.d;
            const int xb = tp.x + a.d >= a.ncols ? a.ncols - 1 : tp.x + a.d;
            unsigned char *row = a.map + (size_t)yy * a.ncols;
            for (int xx = xa + lane; xx <= xb; xx += 32)
                row[xx] = 1;
        }
    }
    if (tid == 0)
        sh.total = total + nkeep;
    __syncthreads(); // the marks are visible to the next group's tests
}

// The reference walks the sorted list one candidate at a time, taking a
// candidate when no earlier taken one is within d (Chebyshev) of it. Here a
// chunk of kGreedyChunk candidates is tested against the map in parallel and
// the free ones (in sorted order) are decided in groups of up to
// kGreedyThreads: a group is tested against the map again (the marks of the
// groups before it) and its free ones are gathered in order; each finds its
// earlier neighbors in the group once (a bit mask, one word per warp), and
// then they are decided in rounds on two masks (taken, undecided): a free
// candidate is taken once none of its earlier neighbors is taken or
// undecided, rejected once one is taken (decisions are final, and each round
// decides at least the earliest undecided one). The first of the taken ones
// fill the slots left, and the block marks their squares. Same decisions as
// the sequential pass. All candidates read have values >= min_eig (the pass
// ends at *nabove), so none stops it early.
__global__ void __launch_bounds__(kGreedyThreads) greedy_kernel(klt_cuda_greedy_args a)
{
    __shared__ GreedyShared sh;
    const int tid = threadIdx.x;
    if (a.resume && *a.out_more == 0)
        return; // the pass before ended for good (uniform: one value for all)
    const int2 *cand = reinterpret_cast<const int2 *>(a.cand);
    const int nabove = *a.nabove;
    const int end = a.limit < nabove ? a.limit : nabove;
    if (tid == 0) {
        sh.total = a.resume ? *a.out_n : 0;
        sh.reach = 0;
    }
    __syncthreads();
    for (int base = a.start; base < end && sh.total < a.nslots; base += kGreedyChunk) {
        const int ns = greedy_chunk(a, cand, base, end, sh);
        for (int g = 0; g < ns && sh.total < a.nslots; g += kGreedyThreads) {
            const int m = greedy_group(a, g, ns, sh);
            const int st = greedy_decide(a, m, sh);
            greedy_take(a, cand, st, sh);
        }
    }
    __syncthreads();
    if (tid == 0) {
        *a.out_n = sh.total;
        *a.out_more = sh.total < a.nslots && a.limit < a.n && nabove > a.limit;
        // what the pass needed: up to its last taken candidate once the
        // slots are full, else everything up to limit
        *a.out_reach = sh.total >= a.nslots ? sh.reach : a.limit;
    }
}

} // namespace

// ------------------------------------------------------------ launchers

extern "C" int klt_cuda_eigen(const klt_cuda_eig_args *a, void *stream)
{
    if (a->nx <= 0 || a->ny <= 0)
        return (int)cudaSuccess;
    cudaStream_t s = (cudaStream_t)stream;
    // the tallest block (kEigMaxTy, 4, 2 or 1 thread rows) whose tile fits
    const long long cap = kEigSmem / (3 * (long long)sizeof(float));
    const long long step = a->step;
    const long long tw = (kEigW - 1) * step + 2LL * a->hw + 1;
    int ty = 0;
    long long th = 0;
    if (a->step >= 1 && a->hw >= 0 && a->hh >= 0 && tw <= cap) {
        for (int t = kEigMaxTy; t >= 1; t /= 2) {
            th = ((long long)t * kEigV - 1) * step + 2LL * a->hh + 1;
            if (th <= cap && tw * th <= cap) {
                ty = t;
                break;
            }
        }
        // no taller than the grid needs
        while (ty > 1 && (long long)(ty / 2) * kEigV >= a->ny)
            ty /= 2;
        if (ty)
            th = ((long long)ty * kEigV - 1) * step + 2LL * a->hh + 1;
    }
    if (ty) {
        const size_t smem = (size_t)(3 * tw * th) * sizeof(float);
        const int rows = ty * kEigV;
        dim3 block(kEigW, ty);
        dim3 grid((a->nx + kEigW - 1) / kEigW, (a->ny + rows - 1) / rows);
        eigen_tile_kernel<kEigV><<<grid, block, smem, s>>>(*a, (int)tw, (int)th);
    } else {
        dim3 block(32, 8);
        dim3 grid((a->nx + 31) / 32, (a->ny + 7) / 8);
        eigen_global_kernel<<<grid, block, 0, s>>>(*a);
    }
    return (int)cudaGetLastError();
}

extern "C" int klt_cuda_mark(unsigned char *map, int ncols, int nrows, const int *pts, int n, int d,
                             void *stream)
{
    if (n <= 0 || d < 0)
        return (int)cudaSuccess;
    // about 8 bytes per lane; the grid stays within 2^31 blocks
    const long long side = 2LL * d + 1;
    const long long area = side * side;
    long long wpp = (area + 8 * 32 - 1) / (8 * 32);
    if (wpp > kMarkMaxWarps)
        wpp = kMarkMaxWarps;
    if (wpp < 1 || (long long)n * wpp > INT_MAX)
        wpp = 1;
    const long long threads = (long long)n * wpp * 32;
    const long long blocks = (threads + kMarkThreads - 1) / kMarkThreads;
    mark_kernel<<<(unsigned)blocks, kMarkThreads, 0, (cudaStream_t)stream>>>(map, ncols, nrows, pts,
                                                                             n, d, (int)wpp);
    return (int)cudaGetLastError();
}

extern "C" int klt_cuda_greedy(const klt_cuda_greedy_args *a, void *stream)
{
    greedy_kernel<<<1, kGreedyThreads, 0, (cudaStream_t)stream>>>(*a);
    return (int)cudaGetLastError();
}
