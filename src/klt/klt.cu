// KLT kernels: separable convolution with shared-memory tiles (smoothing,
// gradients), the pyramid's smoothing at sampled points, the candidate sort,
// the greedy minimum-distance pass and the per-feature Lucas-Kanade tracker
// (the eigenvalue map and the square marking are in klt_select.cu) (one warp per feature). Every float step that the C
// reference (convolve.c, select.c, window.c, track.c) computes is written with
// explicitly rounded intrinsics in the same order, so nothing is contracted
// into an FMA whatever the compile flags: the results are the reference's bits.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "klt/klt_cuda.h"
#include "klt/klt_rn.cuh"

namespace cg = cooperative_groups;

namespace {

// Status codes of fovea/klt.h (kept in sync by hand: the header is C).
constexpr int kTracked = 0;
constexpr int kSmallDet = -2;
constexpr int kMaxIterations = -3;
constexpr int kOob = -4;
constexpr int kLargeResidue = -5;

// ------------------------------------------------------------ convolution

constexpr int kConvW = 32;  // output columns per block
constexpr int kConvH = 8;   // output rows per block

template <typename T> __device__ __forceinline__ float load_px(const T *p, size_t i);
template <> __device__ __forceinline__ float load_px<unsigned char>(const unsigned char *p, size_t i)
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
    float *s_k = sm;                              // 4 x KLT_CUDA_MAX_KERNEL
    float *s_in = s_k + 4 * KLT_CUDA_MAX_KERNEL;  // th x tw
    float *s_h1 = s_in + th * tw;                 // th x kConvW
    float *s_h2 = s_h1 + th * kConvW;             // th x kConvW (TWO)
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
            s_h2[i] = (gx < r2 || gx >= ncols - r2)
                          ? 0.0f
                          : taps(s_in + ty * tw + tx + rh - r2, 1, s_k + 2 * KLT_CUDA_MAX_KERNEL,
                                 h2.width);
        }
    }
    __syncthreads();

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int gx = x0 + tx, gy = y0 + ty;
    if (gx >= ncols || gy >= nrows)
        return;
    const size_t o = (size_t)gy * ncols + gx;
    int r1 = v1.width / 2;
    out1[o] = (gy < r1 || gy >= nrows - r1)
                  ? 0.0f
                  : taps(s_h1 + (ty + rv - r1) * kConvW + tx, kConvW, s_k + KLT_CUDA_MAX_KERNEL,
                         v1.width);
    if (TWO) {
        int r2 = v2.width / 2;
        out2[o] = (gy < r2 || gy >= nrows - r2)
                      ? 0.0f
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
    size_t smem = sizeof(float) * (4 * KLT_CUDA_MAX_KERNEL + (size_t)th * tw +
                                   (TWO ? 2 : 1) * (size_t)th * kConvW);
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(conv_kernel<T, TWO>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)smem);
        if (e != cudaSuccess)
            return e;
    }
    dim3 block(kConvW, kConvH);
    dim3 grid((a->ncols + kConvW - 1) / kConvW, (a->nrows + kConvH - 1) / kConvH);
    conv_kernel<T, TWO><<<grid, block, smem, stream>>>((const T *)a->in, a->ncols, a->nrows,
                                                       a->h1, a->v1, a->h2, a->v2, a->out1,
                                                       a->out2);
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

// ------------------------------------------------------------ selection

constexpr int kGreedyThreads = 512;
constexpr int kGreedyPer = 8;
constexpr int kGreedyChunk = kGreedyThreads * kGreedyPer;
constexpr int kGreedyWarps = kGreedyThreads / 32;
// a group has kGreedyThreads candidates (one per thread), one bit each: a
// mask is one word per warp
constexpr int kGreedyWords = kGreedyWarps;
constexpr int kUndecided = 0, kTaken = 1, kRejected = 2;

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
        const int2 o = s_pos[k0 + b];  // the same address in every lane
        const bool near = (unsigned)(o.x - x + d) <= d2 && (unsigned)(o.y - y + d) <= d2;
        bits |= near ? 1u << b : 0u;
    }
    // only earlier candidates: bits below t - k0
    const int lim = t - k0;
    return lim >= 32 ? bits : lim <= 0 ? 0u : bits & ((1u << lim) - 1u);
}

// The reference walks the sorted list one candidate at a time, taking a
// candidate when no earlier taken one is within d (Chebyshev) of it. Here a
// chunk of kGreedyChunk candidates is tested against the map in parallel and
// the free ones (in sorted order) are decided in groups of up to
// kGreedyThreads: a group is tested against the map again (the marks of the
// groups before it) and its free ones are gathered in order; each finds its
// earlier neighbours in the group once (a bit mask, one word per warp), and
// then they are decided in rounds on two masks (taken, undecided): a free
// candidate is taken once none of its earlier neighbours is taken or
// undecided, rejected once one is taken (decisions are final, and each round
// decides at least the earliest undecided one). The first of the taken ones
// fill the slots left, and the block marks their squares. Same decisions as
// the sequential pass. All candidates read have values >= min_eig (the pass
// ends at *nabove), so none stops it early.
__global__ void __launch_bounds__(kGreedyThreads) greedy_kernel(klt_cuda_greedy_args a)
{
    typedef cub::BlockScan<int, kGreedyThreads> Scan;
    __shared__ typename Scan::TempStorage scan_tmp;
    __shared__ int s_idx[kGreedyChunk];   // free candidates of the chunk: index
    __shared__ int s_xy[kGreedyChunk];    // x | y << 16
    __shared__ int2 s_pos[kGreedyThreads];  // free candidates of a group: (x, y)
    __shared__ int s_cme[kGreedyThreads];   // ... their place in s_idx
    __shared__ short s_take[kGreedyThreads];
    __shared__ uint4 s_tk4[kGreedyWords / 4], s_un4[kGreedyWords / 4];  // bit masks
    unsigned *s_tk = reinterpret_cast<unsigned *>(s_tk4), *s_un = reinterpret_cast<unsigned *>(s_un4);
    __shared__ int s_total, s_reach;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    if (a.resume && *a.out_more == 0)
        return;  // the pass before ended for good (uniform: one value for all)
    const int2 *cand = reinterpret_cast<const int2 *>(a.cand);
    const int nabove = *a.nabove;
    const int end = a.limit < nabove ? a.limit : nabove;
    if (tid == 0) {
        s_total = a.resume ? *a.out_n : 0;
        s_reach = 0;
    }
    __syncthreads();
    for (int base = a.start; base < end && s_total < a.nslots; base += kGreedyChunk) {
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
        Scan(scan_tmp).ExclusiveSum(cnt, off, ns);
        for (int j = 0; j < kGreedyPer; j++) {
            if (pix[j] < 0)
                continue;
            const int py = pix[j] / a.ncols;
            s_idx[off] = i0 + j;
            s_xy[off] = (pix[j] - py * a.ncols) | (py << 16);
            off++;
        }
        __syncthreads();
        for (int g = 0; g < ns && s_total < a.nslots; g += kGreedyThreads) {
            // a group: the next kGreedyThreads free candidates of the chunk
            const int gn = ns - g < kGreedyThreads ? ns - g : kGreedyThreads;
            const int me = g + tid;
            int fr = tid < gn;
            const int xy0 = fr ? s_xy[me] : 0;
            if (fr && g > 0)
                fr = a.map[(size_t)(xy0 >> 16) * a.ncols + (xy0 & 0xffff)] == 0;
            int pos, m;
            Scan(scan_tmp).ExclusiveSum(fr, pos, m);
            if (fr) {
                s_pos[pos] = make_int2(xy0 & 0xffff, xy0 >> 16);
                s_cme[pos] = me;
            }
            __syncthreads();
            // thread t: the group's free candidate t (t < m)
            const int t = tid;
            const bool act = t < m;
            const int2 p = act ? s_pos[t] : make_int2(0, 0);
            unsigned conf[kGreedyWords];
            // the warp's words: up to its last active thread's
            const int wlast = m > 0 ? ((m - 1 < (tid | 31) ? m - 1 : (tid | 31)) >> 5) : -1;
#pragma unroll
            for (int w = 0; w < kGreedyWords; w++)
                conf[w] = a.d >= 0 && w <= wlast && act ? greedy_near_word(s_pos, w, t, p.x, p.y, a.d)
                                                        : 0u;
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
                        const uint4 T = s_tk4[q], U = s_un4[q];
                        tk |= (conf[4 * q] & T.x) | (conf[4 * q + 1] & T.y) |
                              (conf[4 * q + 2] & T.z) | (conf[4 * q + 3] & T.w);
                        op |= (conf[4 * q] & U.x) | (conf[4 * q + 1] & U.y) |
                              (conf[4 * q + 2] & U.z) | (conf[4 * q + 3] & U.w);
                    }
                    st = tk ? kRejected : op ? kUndecided : kTaken;
                }
                const unsigned bu = __ballot_sync(0xffffffffu, st == kUndecided);
                const unsigned bt = __ballot_sync(0xffffffffu, st == kTaken);
                __syncthreads();  // every thread has read the masks
                if (lane == 0) {
                    s_un[warp] = bu;
                    s_tk[warp] = bt;
                }
            }
            // the first taken ones fill the slots left
            const int take = st == kTaken;
            int rank, ntake;
            Scan(scan_tmp).ExclusiveSum(take, rank, ntake);
            const int total = s_total, room = a.nslots - total;
            const int nkeep = ntake < room ? ntake : room;
            if (take && rank < room) {
                const int ci = s_idx[s_cme[t]];
                const int2 c = cand[ci];
                a.out_pix[total + rank] = c.y;
                a.out_val[total + rank] = c.x;
                s_take[rank] = (short)t;
                if (rank == nkeep - 1)
                    s_reach = ci + 1;  // the last taken so far
            }
            __syncthreads();
            if (a.d >= 0) {
                // a warp per row of a square: the lanes' bytes are adjacent
                const int side = 2 * a.d + 1;
                for (int r = warp; r < nkeep * side; r += kGreedyWarps) {
                    const int k = r / side;
                    const int2 tp = s_pos[s_take[k]];
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
                s_total = total + nkeep;
            __syncthreads();  // the marks are visible to the next group's tests
        }
    }
    __syncthreads();
    if (tid == 0) {
        *a.out_n = s_total;
        *a.out_more = s_total < a.nslots && a.limit < a.n && nabove > a.limit;
        // what the pass needed: up to its last taken candidate once the
        // slots are full, else everything up to limit
        *a.out_reach = s_total >= a.nslots ? s_reach : a.limit;
    }
}

// ------------------------------------------------------------ KLT's quicksort

// The partition of select.c's partition_step on a' = the segment with its
// middle element exchanged with the first (pivot value P = a'[0]). With
// L = positions k >= 1 holding a value <= P (ranked from the left) and R =
// those holding a value >= P (ranked from the right), the t-th of L and the
// t-th of R are exchanged exactly when the former lies left of the latter;
// T exchanges in all. The scan then stops at J = the (T+1)-th of R when that
// lies right of the T-th of L (position 0 when T = 0), else at the T-th of L,
// and the pivot is exchanged with what is there. An element of L at k with
// rank t moves iff at least t elements of R lie right of k; one of R moves iff
// at least t of L lie left of it (a value equal to P is in both, moves at
// most once). Counts of L (low 16 bits) and R (high 16 bits) are packed into
// one scan: a tile or a short segment has fewer than 65536 elements.
//
// Everything runs in one cooperative launch (qs_run_kernel): per level of the
// long segments three grid-wide barriers (after the tile counts, after the
// ranks, after the moves). A level of at most 32 segments (the usual case:
// the few segments that hold the prefix) is planned by every block for
// itself right after the barrier, a segment of at most 32 tiles has its tile
// offsets summed by every block of it from the tile counts: no fence,
// counter or last block on the path between the barriers. Wider levels and
// longer segments have them made once, in global memory (plan: block 0 and
// one more barrier; offsets: the block that counts the segment's last tile).

constexpr int kQsThreads = 1024;
constexpr int kQsPer = KLT_CUDA_QS_TILE / kQsThreads;
constexpr int kQsSmallPer = KLT_CUDA_QS_SMALL / kQsThreads;
constexpr int kQsBufBit = 30;
constexpr int kQsLenMask = (1 << kQsBufBit) - 1;

typedef cub::BlockScan<int, kQsThreads> QsScan;
typedef cub::BlockReduce<int, kQsThreads> QsReduce;

union QsTemp {
    QsScan::TempStorage scan;
    QsReduce::TempStorage reduce;
};

constexpr int kQsLocalSegs = 32;  // a level of at most this many segments is planned locally
constexpr int kQsLocalTiles = 32; // a segment of at most this many tiles sums its offsets locally

struct QsShared {
    QsTemp tmp;
    int carry, flag, ntiles;
    int loff, roff;               // this block's tile: L / R ranks before it
    int2 seg[kQsLocalSegs];       // a local plan: the level's segments,
    int tile0[kQsThreads];        // their first tiles (also qs_plan's scratch)
};

// Counters and lists written by other blocks in this launch: read at L2.
__device__ __forceinline__ int ld_cg(const int *p)
{
    return __ldcg(p);
}

// Grid-wide barrier (a one-block grid: the block's; such a grid is launched
// without the cooperative attribute when the device has none).
__device__ __forceinline__ void qs_grid_sync()
{
    if (gridDim.x > 1)
        cg::this_grid().sync();
    else
        __syncthreads();
}

// a'[k] of the segment at src + lo of length n
__device__ __forceinline__ int2 qs_elem(const int2 *src, int n, int k)
{
    const int h = n >> 1;
    return src[k == 0 ? h : k == h ? 0 : k];
}

__device__ __forceinline__ void qs_push(int *list, int *count, int lo, int n, int buf)
{
    const int i = atomicAdd(count, 1);
    reinterpret_cast<int2 *>(list)[i] = make_int2(lo, n | (buf << kQsBufBit));
}

// Where a segment of the array in buffer buf goes next.
__device__ void qs_classify(const klt_cuda_qs &q, int next, int lo, int n, int buf, int nabove)
{
    if (n <= 1 || lo >= nabove)
        return;  // final (written to qa by whoever placed it), or never read
    if (lo >= q.kcap)
        qs_push(q.defer, q.ctr + KLT_QS_NDEFER, lo, n, buf);
    else if (n <= KLT_CUDA_QS_SMALL)
        qs_push(q.small, q.ctr + KLT_QS_NSMALL, lo, n, buf);
    else
        qs_push(q.list[next], q.ctr + next, lo, n, buf);
}

__global__ void qs_pack_kernel(const int *__restrict__ keys, const unsigned *__restrict__ pix,
                               int2 *__restrict__ qa, int n, int min_eig, int *nabove)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int above = 0;
    if (i < n) {
        qa[i] = make_int2(keys[i], (int)pix[i]);
        above = keys[i] >= min_eig;
    }
    const int c = __syncthreads_count(above);
    if (threadIdx.x == 0 && c)
        atomicAdd(nabove, c);
}

// One block: the first segments (resets the counters).
__device__ void qs_seed(const klt_cuda_qs &q, int from_defer, int nabove, QsShared &sh)
{
    if (threadIdx.x == 0) {
        sh.carry = from_defer ? ld_cg(q.ctr + KLT_QS_NDEFER) : 0;
        q.ctr[KLT_QS_LIST0] = q.ctr[KLT_QS_LIST1] = 0;
        q.ctr[KLT_QS_NSMALL] = q.ctr[KLT_QS_NDEFER] = 0;
        q.ctr[KLT_QS_NTILES] = q.ctr[KLT_QS_DONE] = 0;
    }
    __syncthreads();
    const int nd = sh.carry;
    if (!from_defer) {
        if (threadIdx.x == 0)
            qs_classify(q, 0, 0, q.n, 0, nabove);
        __syncthreads();
        return;
    }
    // the deferred list is read and appended to in place: chunk by chunk,
    // every read before any push (pushes never outnumber the reads)
    const int2 *d = reinterpret_cast<const int2 *>(q.defer);
    for (int base = 0; base < nd; base += kQsThreads) {
        const int i = base + threadIdx.x;
        int2 sg = make_int2(0, 0);
        if (i < nd)
            sg = __ldcg(d + i);
        __syncthreads();
        if (i < nd)
            qs_classify(q, 0, sg.x, sg.y & kQsLenMask, sg.y >> kQsBufBit, nabove);
        __syncthreads();
    }
}

// One block: tiles of the segments of list cur (consecutive per segment) in
// global memory, for a level of more than kQsLocalSegs segments; clears list
// 1 - cur and the counters of the level.
__device__ void qs_plan(const klt_cuda_qs &q, int cur, QsShared &sh)
{
    const int nseg = ld_cg(q.ctr + cur);  // final: the same value in every thread
    const int2 *list = reinterpret_cast<const int2 *>(q.list[cur]);
    if (threadIdx.x == 0)
        sh.carry = 0;
    __syncthreads();
    for (int base = 0; base < nseg; base += kQsThreads) {
        const int i = base + threadIdx.x;
        int nt = 0;
        if (i < nseg)
            nt = ((__ldcg(list + i).y & kQsLenMask) + KLT_CUDA_QS_TILE - 1) / KLT_CUDA_QS_TILE;
        int off, total;
        QsScan(sh.tmp.scan).ExclusiveSum(nt, off, total);
        off += sh.carry;
        if (i < nseg) {
            q.seg_tile0[i] = off;
            q.seg_t[i] = 0;
            q.seg_done[i] = 0;
            if (nseg <= kQsThreads)
                sh.tile0[i] = off;
        }
        __syncthreads();
        if (threadIdx.x == 0)
            sh.carry += total;
        __syncthreads();
    }
    const int ntiles = sh.carry;
    // every segment has >= 2 tiles: seg_tile0 is strictly increasing
    const int *tile0 = nseg <= kQsThreads ? sh.tile0 : q.seg_tile0;
    for (int t = threadIdx.x; t < ntiles; t += kQsThreads) {
        int lo = 0, hi = nseg - 1;
        while (lo < hi) {
            const int mid = (lo + hi + 1) >> 1;
            if (tile0[mid] <= t)
                lo = mid;
            else
                hi = mid - 1;
        }
        q.tile_seg[t] = lo;
        q.tile_first[t] = t - tile0[lo];
    }
    if (threadIdx.x == 0) {
        q.ctr[1 - cur] = 0;
        q.ctr[KLT_QS_NTILES] = ntiles;
        q.ctr[KLT_QS_DONE] = 0;
    }
    __syncthreads();
}

// The plan of the level in list cur (nseg segments), as this block needs it:
// with at most kQsLocalSegs segments made by its first warp in shared memory
// (sh.seg, sh.tile0), else made by block 0 in global memory (qs_plan) with a
// barrier after it. Block 0 also clears what the level accumulates into: the
// next list's counter and the segments' exchange counts. Returns the level's
// tile count.
__device__ int qs_level_plan(const klt_cuda_qs &q, int cur, int nseg, QsShared &sh)
{
    if (nseg > kQsLocalSegs) {
        if (blockIdx.x == 0)
            qs_plan(q, cur, sh);
        qs_grid_sync();
        return ld_cg(q.ctr + KLT_QS_NTILES);
    }
    if (threadIdx.x < 32) {
        const unsigned full = 0xffffffffu;
        const int lane = threadIdx.x;
        int2 sg = make_int2(0, 0);
        int nt = 0;
        if (lane < nseg) {
            sg = __ldcg(reinterpret_cast<const int2 *>(q.list[cur]) + lane);
            nt = ((sg.y & kQsLenMask) + KLT_CUDA_QS_TILE - 1) / KLT_CUDA_QS_TILE;
        }
        int inc = nt;
        for (int o = 1; o < 32; o <<= 1) {
            const int v = __shfl_up_sync(full, inc, o);
            if (lane >= o)
                inc += v;
        }
        if (lane < nseg) {
            sh.seg[lane] = sg;
            sh.tile0[lane] = inc - nt;
            if (blockIdx.x == 0)
                q.seg_t[lane] = 0;
        }
        if (lane == 31)
            sh.ntiles = inc;
        if (blockIdx.x == 0 && lane == 0)
            q.ctr[1 - cur] = 0;
    }
    __syncthreads();
    return sh.ntiles;
}

// Where the partition of segment s (at lo) puts its pivot.
__device__ __forceinline__ int qs_stop(const klt_cuda_qs &q, int s, int lo)
{
    const int nt = q.seg_t[s], nr = q.seg_nr[s];
    const int lt = nt >= 1 ? q.lpos[lo + nt - 1] : 0;
    return nt < nr && q.rpos[lo + nt] > lt ? q.rpos[lo + nt] : lt;
}

// After a level (segment s of list cur, pivot at J): elements placed for good
// in qb (the pivot, a child of one element) are copied to qa, where the
// result is read.
__device__ void qs_final(const klt_cuda_qs &q, int cur, int s)
{
    const int2 sg = reinterpret_cast<const int2 *>(q.list[cur])[s];
    if (sg.y >> kQsBufBit)
        return;  // the level wrote to qa
    const int lo = sg.x, n = sg.y & kQsLenMask, J = q.seg_j[s];
    const int2 *b = reinterpret_cast<const int2 *>(q.qb);
    int2 *a = reinterpret_cast<int2 *>(q.qa);
    a[lo + J] = b[lo + J];
    if (J == 1)
        a[lo] = b[lo];
    if (n - J - 1 == 1)
        a[lo + J + 1] = b[lo + J + 1];
}

struct QsTile {
    int t, s, lo, n, buf, k0;
    int first, t0, nt;  // the tile's index in its segment, the segment's first tile, tiles
    const int2 *src;
};

// Tile t of the level (nseg segments in list cur, planned by qs_level_plan).
__device__ __forceinline__ QsTile qs_tile(const klt_cuda_qs &q, int cur, int nseg, int t,
                                          const QsShared &sh)
{
    QsTile r;
    int2 sg;
    r.t = t;
    if (nseg <= kQsLocalSegs) {
        int s = 0;
        for (int k = 1; k < nseg; k++)
            if (sh.tile0[k] <= t)
                s = k;
        r.s = s;
        r.t0 = sh.tile0[s];
        sg = sh.seg[s];
    } else {
        r.s = q.tile_seg[t];
        r.t0 = t - q.tile_first[t];
        sg = reinterpret_cast<const int2 *>(q.list[cur])[r.s];
    }
    r.first = t - r.t0;
    r.lo = sg.x;
    r.n = sg.y & kQsLenMask;
    r.nt = (r.n + KLT_CUDA_QS_TILE - 1) / KLT_CUDA_QS_TILE;
    r.buf = sg.y >> kQsBufBit;
    r.k0 = r.first * KLT_CUDA_QS_TILE + threadIdx.x * kQsPer;
    r.src = reinterpret_cast<const int2 *>(r.buf ? q.qb : q.qa) + r.lo;
    return r;
}

// Elements of this thread: values and packed L/R flags; returns the packed
// flags' sum.
__device__ __forceinline__ int qs_flags(const QsTile &T, int2 *e, int *f)
{
    const int p = T.src[T.n >> 1].x;
    int sum = 0;
    for (int i = 0; i < kQsPer; i++) {
        const int k = T.k0 + i;
        f[i] = 0;
        if (k < T.n) {
            e[i] = qs_elem(T.src, T.n, k);
            if (k > 0)
                f[i] = (e[i].x <= p) | ((e[i].x >= p) << 16);
        }
        sum += f[i];
    }
    return sum;
}

// One warp: tile offsets of L (from the left) and R (from the right) of
// segment s, from the tile counts of every block (read at L2).
__device__ void qs_offsets(const klt_cuda_qs &q, int s, int n, int t0, int lane)
{
    const int nt = (n + KLT_CUDA_QS_TILE - 1) / KLT_CUDA_QS_TILE;
    int cl = 0, cr = 0;
    for (int base = 0; base < nt; base += 32) {
        const int i = base + lane;
        const int tl = i < nt ? t0 + i : -1, tr = i < nt ? t0 + nt - 1 - i : -1;
        int vl = tl >= 0 ? ld_cg(q.tile_l + tl) : 0, vr = tr >= 0 ? ld_cg(q.tile_r + tr) : 0;
        int il = vl, ir = vr;
        for (int o = 1; o < 32; o <<= 1) {
            int a = __shfl_up_sync(0xffffffffu, il, o), b = __shfl_up_sync(0xffffffffu, ir, o);
            if (lane >= o) {
                il += a;
                ir += b;
            }
        }
        if (tl >= 0) {
            q.tile_loff[tl] = cl + il - vl;
            q.tile_roff[tr] = cr + ir - vr;
        }
        cl += __shfl_sync(0xffffffffu, il, 31);
        cr += __shfl_sync(0xffffffffu, ir, 31);
    }
    if (lane == 0)
        q.seg_nr[s] = cr;
}

// Tile T, phase 0: L / R counts; in a segment of more than kQsLocalTiles
// tiles the block that counts its last tile makes the segment's tile offsets
// (and clears the segment's counter for the next level).
__device__ void qs_tile_count(const klt_cuda_qs &q, const QsTile &T, QsShared &sh)
{
    int2 e[kQsPer];
    int f[kQsPer];
    const int total = QsReduce(sh.tmp.reduce).Sum(qs_flags(T, e, f));
    if (threadIdx.x == 0) {
        q.tile_l[T.t] = total & 0xffff;
        q.tile_r[T.t] = total >> 16;
        sh.flag = 0;
        if (T.nt > kQsLocalTiles) {
            __threadfence();
            sh.flag = atomicAdd(q.seg_done + T.s, 1) == T.nt - 1;
            __threadfence();
        }
    }
    __syncthreads();
    if (sh.flag) {
        __threadfence();
        if (threadIdx.x < 32)
            qs_offsets(q, T.s, T.n, T.t0, threadIdx.x);
        if (threadIdx.x == 0)
            q.seg_done[T.s] = 0;
    }
    __syncthreads();
}

// Tile T of a segment of at most kQsLocalTiles tiles, after the counts: its
// offsets (L ranks to its left, R ranks to its right) into sh.loff / sh.roff
// and tile_loff / tile_roff, the segment's R count by its first tile; by the
// first warp.
__device__ void qs_local_offsets(const klt_cuda_qs &q, const QsTile &T, QsShared &sh)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x;
    int vl = 0, vr = 0;
    if (lane < T.nt) {
        vl = ld_cg(q.tile_l + T.t0 + lane);
        vr = ld_cg(q.tile_r + T.t0 + lane);
    }
    const int loff = (int)__reduce_add_sync(full, (unsigned)(lane < T.first ? vl : 0));
    const int roff = (int)__reduce_add_sync(full, (unsigned)(lane > T.first ? vr : 0));
    const int nr = (int)__reduce_add_sync(full, (unsigned)vr);
    if (lane == 0) {
        sh.loff = loff;
        sh.roff = roff;
        q.tile_loff[T.t] = loff;
        q.tile_roff[T.t] = roff;
        if (T.first == 0)
            q.seg_nr[T.s] = nr;
    }
}

// Tile T, phase 1: ranks -> lpos / rpos, and the segment's exchange count;
// phase 2: the moves (and the children, by the segment's first tile).
template <int PHASE>
__device__ void qs_tile_move(const klt_cuda_qs &q, int cur, const QsTile &T, int nabove,
                             QsShared &sh)
{
    if (PHASE == 1 && T.nt <= kQsLocalTiles && threadIdx.x < 32)
        qs_local_offsets(q, T, sh);
    int2 e[kQsPer];
    int f[kQsPer];
    const int sum = qs_flags(T, e, f);
    int excl, total;
    QsScan(sh.tmp.scan).ExclusiveSum(sum, excl, total);
    __syncthreads();  // sh.loff / sh.roff
    int loff, roff;
    if (PHASE == 1 && T.nt <= kQsLocalTiles) {
        loff = sh.loff;
        roff = sh.roff;
    } else {
        loff = q.tile_loff[T.t];
        roff = q.tile_roff[T.t];
    }
    const int rtile = total >> 16;
    int *lpos = q.lpos + T.lo, *rpos = q.rpos + T.lo;
    int incl = excl, moved = 0;
    const int J = PHASE == 2 ? qs_stop(q, T.s, T.lo) : 0;
    for (int i = 0; i < kQsPer; i++) {
        const int k = T.k0 + i;
        if (k >= T.n)
            break;
        incl += f[i];
        const int isl = f[i] & 1, isr = f[i] >> 16;
        const int cl = loff + (incl & 0xffff);                  // L in [1, k]
        const int cr = roff + rtile - (incl >> 16) + isr;       // R in [k, n)
        const bool ml = isl && cr - isr >= cl, mr = isr && cl - isl >= cr;
        if (PHASE == 1) {
            if (isl)
                lpos[cl - 1] = k;
            if (isr)
                rpos[cr - 1] = k;
            moved += ml;
        } else {
            int dest = ml ? rpos[cl - 1] : mr ? lpos[cr - 1] : k;
            dest = dest == J ? 0 : dest == 0 ? J : dest;
            // the source (qa when buf is 0) is still read by other tiles:
            // final elements reach qa at the next level (qs_final)
            int2 *out = reinterpret_cast<int2 *>(T.buf ? q.qa : q.qb) + T.lo;
            out[dest] = e[i];
        }
    }
    __syncthreads();  // the scan's storage is reused
    if (PHASE == 1) {
        const int m = QsReduce(sh.tmp.reduce).Sum(moved);
        if (threadIdx.x == 0 && m)
            atomicAdd(q.seg_t + T.s, m);
    } else if (threadIdx.x == 0 && T.first == 0) {
        q.seg_j[T.s] = J;
        qs_classify(q, 1 - cur, T.lo, J, 1 - T.buf, nabove);
        qs_classify(q, 1 - cur, T.lo + J + 1, T.n - J - 1, 1 - T.buf, nabove);
    }
    __syncthreads();
}

// Segments of at most 32 elements are finished by one warp, an element per
// lane: the same partitions as below (and as select.c's partition_step), every
// sub-segment of a depth at once, with ballots for the counts and the warp's
// part of s_lpos / s_rpos (a segment's own positions) for the ranks; no block
// barriers. a, lpos, rpos: the segment's start in the block's arrays.
constexpr int kQsWarpSeg = 32;

__device__ void qs_warp_sort(int2 *a, int m, short *lpos, short *rpos)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const unsigned le = (2u << lane) - 1u;     // lanes <= lane (lane 31: all)
    const unsigned ge = ~((1u << lane) - 1u);  // lanes >= lane
    int2 e = lane < m ? a[lane] : make_int2(0, 0);
    int slo = 0, sn = lane < m ? m : 0;  // this position's segment [slo, slo + sn)
    for (;;) {
        const bool act = sn >= 2;
        if (!__any_sync(full, act))
            break;
        const int h = sn >> 1, kk = lane - slo;
        // the middle element to the front
        const int src = !act ? lane : kk == 0 ? slo + h : kk == h ? slo : lane;
        e.x = __shfl_sync(full, e.x, src);
        e.y = __shfl_sync(full, e.y, src);
        const int p = __shfl_sync(full, e.x, act ? slo : lane);
        const int isl = act && kk > 0 && e.x <= p;
        const int isr = act && kk > 0 && e.x >= p;
        const unsigned segm = !act ? 0u : sn == 32 ? full : ((1u << sn) - 1u) << slo;
        const unsigned bl = __ballot_sync(full, isl) & segm;
        const unsigned br = __ballot_sync(full, isr) & segm;
        const int cl = __popc(bl & le);  // rank among L from the left (1-based)
        const int cr = __popc(br & ge);  // rank among R from the right (1-based)
        const bool lmv = isl && cr - isr >= cl, rmv = isr && cl - isl >= cr;
        const unsigned bm = __ballot_sync(full, lmv) & segm;
        if (isl)
            lpos[slo + cl - 1] = (short)kk;
        if (isr)
            rpos[slo + cr - 1] = (short)kk;
        __syncwarp();
        int dest = lane, J = 0;
        if (act) {
            const int nt = __popc(bm), nr = __popc(br);
            const int lt = nt >= 1 ? lpos[slo + nt - 1] : 0;
            J = nt < nr && rpos[slo + nt] > lt ? rpos[slo + nt] : lt;
            int d = kk;
            if (lmv)
                d = rpos[slo + cl - 1];
            else if (rmv)
                d = lpos[slo + cr - 1];
            d = d == J ? 0 : d == 0 ? J : d;
            dest = slo + d;
        }
        __syncwarp();  // the ranks are read before the elements land
        if (lane < m)
            a[dest] = e;
        __syncwarp();
        if (lane < m)
            e = a[lane];
        if (act) {
            // children: [slo, slo + J), the pivot, [slo + J + 1, slo + sn)
            if (kk < J) {
                sn = J;
            } else if (kk == J) {
                slo += J;
                sn = 1;
            } else {
                slo += J + 1;
                sn -= J + 1;
            }
        }
        __syncwarp();  // a[] is rewritten by the next depth
    }
}

// One short segment (sg): every partition of it down to single elements, all
// segments of one depth at a time, in shared memory; the result to qa.
__device__ void qs_small(const klt_cuda_qs &q, int2 sg, int4 *qs_sm, QsShared &sh)
{
    int2 *s_a = reinterpret_cast<int2 *>(qs_sm);                    // SMALL
    int *s_scan = reinterpret_cast<int *>(s_a + KLT_CUDA_QS_SMALL);  // SMALL
    int *s_t = s_scan + KLT_CUDA_QS_SMALL;                           // SMALL
    short *s_lpos = reinterpret_cast<short *>(s_t + KLT_CUDA_QS_SMALL);
    short *s_rpos = s_lpos + KLT_CUDA_QS_SMALL;
    short *s_seglo = s_rpos + KLT_CUDA_QS_SMALL;
    short *s_segn = s_seglo + KLT_CUDA_QS_SMALL;

    const int lo0 = sg.x, n = sg.y & kQsLenMask;
    const int2 *src = reinterpret_cast<const int2 *>((sg.y >> kQsBufBit) ? q.qb : q.qa) + lo0;
    const int k0 = threadIdx.x * kQsSmallPer;
    for (int k = threadIdx.x; k < n; k += kQsThreads) {
        s_a[k] = src[k];
        s_seglo[k] = 0;
    }
    if (threadIdx.x == 0)
        s_segn[0] = (short)n;
    __syncthreads();

    // Positions whose segment has one element hold their final element: a
    // thread's bit i is set once its position k0 + i is final (or past n), and
    // such positions are not read or written again.
    unsigned done = 0, starts = 0;  // starts: positions opening a segment of 2..32
    for (int i = 0; i < kQsSmallPer; i++)
        if (k0 + i >= n)
            done |= 1u << i;
    const int lane = threadIdx.x & 31;
    for (;;) {
        int2 e[kQsSmallPer];
        int f[kQsSmallPer], lo[kQsSmallPer], sn[kQsSmallPer];
        int sum = 0, active = 0;
        for (int i = 0; i < kQsSmallPer; i++) {
            const int k = k0 + i;
            f[i] = 0;
            sn[i] = 0;
            lo[i] = 0;
            if (done >> i & 1)
                continue;
            lo[i] = s_seglo[k];
            sn[i] = s_segn[lo[i]];
            if (sn[i] > kQsWarpSeg) {
                const int kk = k - lo[i], h = sn[i] >> 1;
                e[i] = s_a[lo[i] + (kk == 0 ? h : kk == h ? 0 : kk)];
                const int p = s_a[lo[i] + h].x;
                if (kk > 0)
                    f[i] = (e[i].x <= p) | ((e[i].x >= p) << 16);
                else
                    s_t[k] = 0;  // the segment's exchange count
                active = 1;
            } else {
                // final, or in a segment a warp finishes after the loop
                done |= 1u << i;
                if (sn[i] >= 2 && k == lo[i])
                    starts |= 1u << i;
                sn[i] = 0;
            }
            sum += f[i];
        }
        if (!__syncthreads_or(active))
            break;
        int incl;
        QsScan(sh.tmp.scan).ExclusiveSum(sum, incl);
        for (int i = 0; i < kQsSmallPer; i++) {
            incl += f[i];
            if (sn[i] >= 2)
                s_scan[k0 + i] = incl;
        }
        __syncthreads();
        for (int i = 0; i < kQsSmallPer; i++) {
            const int k = k0 + i;
            bool mv = false;
            if (sn[i] >= 2 && k != lo[i]) {
                const int h0 = s_scan[lo[i]], he = s_scan[lo[i] + sn[i] - 1], c = s_scan[k];
                const int isl = f[i] & 1, isr = f[i] >> 16;
                const int cl = (c & 0xffff) - (h0 & 0xffff);
                const int cr = (he >> 16) - (c >> 16) + isr;
                if (isl)
                    s_lpos[lo[i] + cl - 1] = (short)(k - lo[i]);
                if (isr)
                    s_rpos[lo[i] + cr - 1] = (short)(k - lo[i]);
                mv = isl && cr - isr >= cl;
            }
            // one shared atomic per segment and warp (a long segment's moves
            // would otherwise all hit one counter)
            const unsigned peers = __match_any_sync(0xffffffffu, mv ? lo[i] : -1);
            if (mv && lane == __ffs(peers) - 1)
                atomicAdd(s_t + lo[i], __popc(peers));
        }
        __syncthreads();
        int nlo[kQsSmallPer], hj[kQsSmallPer], dest[kQsSmallPer];
        for (int i = 0; i < kQsSmallPer; i++) {
            const int k = k0 + i;
            hj[i] = -1;
            dest[i] = k;
            nlo[i] = lo[i];
            if (sn[i] < 2)
                continue;
            const int l = lo[i], kk = k - l;
            const int h0 = s_scan[l], he = s_scan[l + sn[i] - 1];
            const int nr = (he >> 16) - (h0 >> 16);
            const int nt = s_t[l];
            const int lt = nt >= 1 ? s_lpos[l + nt - 1] : 0;
            const int J = nt < nr && s_rpos[l + nt] > lt ? s_rpos[l + nt] : lt;
            int d = kk;
            if (kk > 0) {
                const int c = s_scan[k], isl = f[i] & 1, isr = f[i] >> 16;
                const int cl = (c & 0xffff) - (h0 & 0xffff);
                const int cr = (he >> 16) - (c >> 16) + isr;
                d = isl && cr - isr >= cl ? s_rpos[l + cl - 1]
                    : isr && cl - isl >= cr ? s_lpos[l + cr - 1]
                                             : kk;
            } else {
                hj[i] = J;
            }
            d = d == J ? 0 : d == 0 ? J : d;
            dest[i] = l + d;
            nlo[i] = d < J ? l : d == J ? l + J : l + J + 1;
        }
        __syncthreads();
        for (int i = 0; i < kQsSmallPer; i++) {
            if (sn[i] < 2)
                continue;
            s_a[dest[i]] = e[i];
            s_seglo[dest[i]] = (short)nlo[i];
            if (hj[i] >= 0) {
                // children: [lo, lo + J), the pivot, [lo + J + 1, lo + n)
                const int l = lo[i], J = hj[i];
                s_segn[l] = (short)J;
                s_segn[l + J] = 1;
                if (sn[i] - J - 1 > 0)
                    s_segn[l + J + 1] = (short)(sn[i] - J - 1);
            }
        }
        __syncthreads();
    }
    // the segments of 2..32 elements, each by the warp holding its start
    for (unsigned have = __ballot_sync(0xffffffffu, starts != 0); have;
         have = __ballot_sync(0xffffffffu, starts != 0)) {
        const int src = __ffs(have) - 1;
        const unsigned st = __shfl_sync(0xffffffffu, starts, src);
        const int l = ((threadIdx.x & ~31) + src) * kQsSmallPer + __ffs(st) - 1;
        if (lane == src)
            starts &= starts - 1;
        qs_warp_sort(s_a + l, s_segn[l], s_lpos + l, s_rpos + l);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < n; k += kQsThreads)
        reinterpret_cast<int2 *>(q.qa)[lo0 + k] = s_a[k];
    __syncthreads();  // s_a is reused by the block's next segment
}

constexpr size_t kQsSmallSmem =
    (size_t)KLT_CUDA_QS_SMALL * (sizeof(int2) + 2 * sizeof(int) + 4 * sizeof(short));

// The whole sort (see above): seed and first plan by block 0; per level the
// finals of the level before, tile counts (+ offsets), ranks, moves (+ the
// next plan); then the short segments, one block each.
__global__ void __launch_bounds__(kQsThreads) qs_run_kernel(klt_cuda_qs q, int from_defer,
                                                            const int *gate)
{
    extern __shared__ int4 qs_sm[];
    __shared__ QsShared sh;
    if (gate && ld_cg(gate) == 0)
        return;  // uniform: every block reads the same value
    const int nabove = ld_cg(q.ctr + KLT_QS_NABOVE);
    if (blockIdx.x == 0) {
        qs_seed(q, from_defer, nabove, sh);
        // segment counters of long segments start cleared (cleared again by
        // the block that reads them to the end)
        const int ml = q.n / (KLT_CUDA_QS_SMALL + 1) + 1;
        for (int i = threadIdx.x; i < ml; i += kQsThreads)
            q.seg_done[i] = 0;
    }
    qs_grid_sync();
    const int gthreads = gridDim.x * kQsThreads, gtid = blockIdx.x * kQsThreads + threadIdx.x;
    int cur = 0, prev = 0;
    for (;;) {
        const int nseg = ld_cg(q.ctr + cur);
        for (int s = gtid; s < prev; s += gthreads)
            qs_final(q, 1 - cur, s);
        if (nseg == 0)
            break;
        const int ntiles = qs_level_plan(q, cur, nseg, sh);
        for (int t = blockIdx.x; t < ntiles; t += gridDim.x)
            qs_tile_count(q, qs_tile(q, cur, nseg, t, sh), sh);
        qs_grid_sync();
        for (int t = blockIdx.x; t < ntiles; t += gridDim.x)
            qs_tile_move<1>(q, cur, qs_tile(q, cur, nseg, t, sh), nabove, sh);
        qs_grid_sync();
        for (int t = blockIdx.x; t < ntiles; t += gridDim.x)
            qs_tile_move<2>(q, cur, qs_tile(q, cur, nseg, t, sh), nabove, sh);
        qs_grid_sync();
        prev = nseg;
        cur = 1 - cur;
    }
    const int nsmall = ld_cg(q.ctr + KLT_QS_NSMALL);
    const int2 *small = reinterpret_cast<const int2 *>(q.small);
    for (int s = blockIdx.x; s < nsmall; s += gridDim.x)
        qs_small(q, __ldcg(small + s), qs_sm, sh);
}

// ------------------------------------------------------------ tracking

// KLT's bilinear interpolation (window.c klt_interpolate), same operation order.
__device__ __forceinline__ float interp(const float *__restrict__ img, int nc, float x, float y)
{
    int xt = __float2int_rz(x), yt = __float2int_rz(y);
    float ax = fsub(x, (float)xt), ay = fsub(y, (float)yt);
    const float *p = img + (nc * yt) + xt;
    float oax = fsub(1.0f, ax), oay = fsub(1.0f, ay);
    float s = fmul(fmul(oax, oay), __ldg(p));
    s = fadd(s, fmul(fmul(ax, oay), __ldg(p + 1)));
    s = fadd(s, fmul(fmul(oax, ay), __ldg(p + nc)));
    s = fadd(s, fmul(fmul(ax, ay), __ldg(p + nc + 1)));
    return s;
}

// window.c klt_window_oob: NaN counts as outside
__device__ __forceinline__ bool window_oob(float x, int half, int n)
{
    return !(fsub(x, (float)half) >= 0.0f) || !(fsub((float)n, fadd(x, (float)half)) >= 1.001f);
}

struct Win {
    float *a, *b, *gx, *gy;  // n floats each, per warp
};

// Image windows of both images into w.a (then the difference) and w.b; in
// lighting-insensitive mode also returns the gradient scale alpha' (plain
// means). Lanes sample, single lanes sum in window order.
__device__ float window_diff(const klt_cuda_track_args &A, const klt_cuda_level &L, float x1,
                             float y1, float x2, float y2, const Win &w, int lane)
{
    const int W = A.width, H = A.height, n = W * H, hw = W / 2, hh = H / 2;
    for (int e = lane; e < n; e += 32) {
        int j = e / W, i = e - j * W;
        float fi = (float)(i - hw), fj = (float)(j - hh);
        w.a[e] = interp(L.img1, L.ncols, fadd(x1, fi), fadd(y1, fj));
        w.b[e] = interp(L.img2, L.ncols, fadd(x2, fi), fadd(y2, fj));
    }
    __syncwarp();
    float alpha_g = 1.0f;
    if (A.lighting_insensitive) {
        // lane 0: sum1, 1: sum2, 2: sq1, 3: sq2
        const float *src = (lane & 1) ? w.b : w.a;
        const bool sq = lane >= 2;
        float acc = 0.0f;
        if (lane < 4) {
            for (int e = 0; e < n; e++) {
                float g = src[e];
                acc = fadd(acc, sq ? fmul(g, g) : g);
            }
        }
        const float sum1 = __shfl_sync(0xffffffffu, acc, 0);
        const float sum2 = __shfl_sync(0xffffffffu, acc, 1);
        const float sq1 = __shfl_sync(0xffffffffu, acc, 2);
        const float sq2 = __shfl_sync(0xffffffffu, acc, 3);
        const float wh = (float)(W * H);
        float alpha = __double2float_rn(__dsqrt_rn((double)fdiv(fdiv(sq1, wh), fdiv(sq2, wh))));
        float mean1 = fdiv(sum1, wh), mean2 = fdiv(sum2, wh);
        float beta = fsub(mean1, fmul(alpha, mean2));
        alpha_g = __double2float_rn(__dsqrt_rn((double)fdiv(mean1, mean2)));
        for (int e = lane; e < n; e += 32)
            w.a[e] = fsub(fsub(w.a[e], fmul(w.b[e], alpha)), beta);
    } else {
        for (int e = lane; e < n; e += 32)
            w.a[e] = fsub(w.a[e], w.b[e]);
    }
    __syncwarp();
    return alpha_g;
}

__device__ int track_level(const klt_cuda_track_args &A, const klt_cuda_level &L, float x1,
                           float y1, float *x2, float *y2, const Win &w, int lane)
{
    const int W = A.width, H = A.height, n = W * H, hw = W / 2, hh = H / 2;
    const int nc = L.ncols, nr = L.nrows;
    const unsigned full = 0xffffffffu;
    float dx = 0.0f, dy = 0.0f;
    int iteration = 0;
    int status = kTracked;

    do {
        if (window_oob(x1, hw, nc) || window_oob(*x2, hw, nc) || window_oob(y1, hh, nr) ||
            window_oob(*y2, hh, nr)) {
            status = kOob;
            break;
        }
        const float alpha_g = window_diff(A, L, x1, y1, *x2, *y2, w, lane);
        const bool li = A.lighting_insensitive != 0;
        for (int e = lane; e < n; e += 32) {
            int j = e / W, i = e - j * W;
            float fi = (float)(i - hw), fj = (float)(j - hh);
            float ax = fadd(x1, fi), ay = fadd(y1, fj), bx = fadd(*x2, fi), by = fadd(*y2, fj);
            float g1 = interp(L.gx1, nc, ax, ay), g2 = interp(L.gx2, nc, bx, by);
            w.gx[e] = li ? fadd(g1, fmul(g2, alpha_g)) : fadd(g1, g2);
            g1 = interp(L.gy1, nc, ax, ay);
            g2 = interp(L.gy2, nc, bx, by);
            w.gy[e] = li ? fadd(g1, fmul(g2, alpha_g)) : fadd(g1, g2);
        }
        __syncwarp();
        // lane 0: gxx, 1: gxy, 2: gyy, 3: diff.gx, 4: diff.gy
        const float *p = lane == 2 ? w.gy : lane >= 3 ? w.a : w.gx;
        const float *q = (lane == 0 || lane == 3) ? w.gx : w.gy;
        float acc = 0.0f;
        if (lane < 5)
            for (int e = 0; e < n; e++)
                acc = fadd(acc, fmul(p[e], q[e]));
        const float gxx = __shfl_sync(full, acc, 0);
        const float gxy = __shfl_sync(full, acc, 1);
        const float gyy = __shfl_sync(full, acc, 2);
        const float ex = fmul(__shfl_sync(full, acc, 3), A.step_factor);
        const float ey = fmul(__shfl_sync(full, acc, 4), A.step_factor);
        __syncwarp();  // the windows are rewritten by the next iteration
        const float det = fsub(fmul(gxx, gyy), fmul(gxy, gxy));
        if (det < A.small) {
            status = kSmallDet;
            break;
        }
        dx = fdiv(fsub(fmul(gyy, ex), fmul(gxy, ey)), det);
        dy = fdiv(fsub(fmul(gxx, ey), fmul(gxy, ex)), det);
        status = kTracked;
        *x2 = fadd(*x2, dx);
        *y2 = fadd(*y2, dy);
        iteration++;
    } while ((fabsf(dx) >= A.th || fabsf(dy) >= A.th) && iteration < A.max_iterations);

    if (window_oob(*x2, hw, nc) || window_oob(*y2, hh, nr))
        status = kOob;

    if (status == kTracked) {
        window_diff(A, L, x1, y1, *x2, *y2, w, lane);
        float acc = 0.0f;
        if (lane == 0)
            for (int e = 0; e < n; e++)
                acc = fadd(acc, fabsf(w.a[e]));
        const float sum = __shfl_sync(full, acc, 0);
        __syncwarp();
        if (fdiv(sum, (float)(W * H)) > A.max_residue)
            status = kLargeResidue;
    }
    if (status == kSmallDet || status == kOob || status == kLargeResidue)
        return status;
    if (iteration >= A.max_iterations)
        return kMaxIterations;
    return kTracked;
}

__global__ void track_kernel(klt_cuda_track_args A)
{
    extern __shared__ float sm[];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int f = blockIdx.x * (blockDim.x >> 5) + warp;
    if (f >= A.nfeat)
        return;
    const int n = A.width * A.height;
    Win w;
    w.a = sm + (size_t)warp * 4 * n;
    w.b = w.a + n;
    w.gx = w.b + n;
    w.gy = w.gx + n;

    const float x = A.in_x[f], y = A.in_y[f];
    const int v0 = A.in_val[f];
    if (v0 < 0) {
        if (lane == 0) {
            A.out_x[f] = x;
            A.out_y[f] = y;
            A.out_val[f] = v0;
            A.out_xloc[f] = -1.0f;
            A.out_yloc[f] = -1.0f;
        }
        return;
    }
    const float ss = A.ss;
    float xloc = x, yloc = y;
    for (int r = A.nlevels - 1; r >= 0; r--) {
        xloc = fdiv(xloc, ss);
        yloc = fdiv(yloc, ss);
    }
    float xout = xloc, yout = yloc;
    int val = kTracked;
    for (int r = A.nlevels - 1; r >= 0; r--) {
        xloc = fmul(xloc, ss);
        yloc = fmul(yloc, ss);
        xout = fmul(xout, ss);
        yout = fmul(yout, ss);
        val = track_level(A, A.lev[r], xloc, yloc, &xout, &yout, w, lane);
        if (val == kSmallDet || val == kOob)
            break;
    }
    if (lane != 0)
        return;
    const bool outside = xout < (float)A.borderx ||
                         xout > (float)((long long)A.ncols - 1 - A.borderx) ||
                         yout < (float)A.bordery ||
                         yout > (float)((long long)A.nrows - 1 - A.bordery);
    if (val == kOob || outside) {
        A.out_x[f] = -1.0f;
        A.out_y[f] = -1.0f;
        A.out_val[f] = kOob;
    } else if (val != kTracked) {
        A.out_x[f] = -1.0f;
        A.out_y[f] = -1.0f;
        A.out_val[f] = val;
    } else {
        A.out_x[f] = xout;
        A.out_y[f] = yout;
        A.out_val[f] = kTracked;
    }
    A.out_xloc[f] = xloc;
    A.out_yloc[f] = yloc;
}

}  // namespace

// ------------------------------------------------------------ launchers

extern "C" int klt_cuda_conv(const klt_cuda_conv_args *a, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (a->ncols <= 0 || a->nrows <= 0)
        return (int)cudaSuccess;
    cudaError_t e;
    if (a->in_u8)
        e = a->out2 ? launch_conv<unsigned char, true>(a, s) : launch_conv<unsigned char, false>(a, s);
    else
        e = a->out2 ? launch_conv<float, true>(a, s) : launch_conv<float, false>(a, s);
    return (int)e;
}

extern "C" int klt_cuda_smooth_subsample(const float *in, int ncols, int nrows,
                                         const klt_cuda_kernel *k, int ss, float *tmp,
                                         float *out, void *stream)
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

extern "C" int klt_cuda_differs(const unsigned char *a, const unsigned char *b, size_t n,
                                int *flag, void *stream)
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

extern "C" int klt_cuda_greedy(const klt_cuda_greedy_args *a, void *stream)
{
    greedy_kernel<<<1, kGreedyThreads, 0, (cudaStream_t)stream>>>(*a);
    return (int)cudaGetLastError();
}

extern "C" int klt_cuda_track(const klt_cuda_track_args *a, void *stream)
{
    if (a->nfeat <= 0)
        return (int)cudaSuccess;
    const size_t per_warp = (size_t)4 * a->width * a->height * sizeof(float);
    int warps = (int)(48 * 1024 / per_warp);
    if (warps > 4)
        warps = 4;
    if (warps < 1)
        warps = 1;
    const size_t smem = per_warp * warps;
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(track_kernel,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)smem);
        if (e != cudaSuccess)
            return (int)e;
    }
    const int blocks = (a->nfeat + warps - 1) / warps;
    track_kernel<<<blocks, 32 * warps, smem, (cudaStream_t)stream>>>(*a);
    return (int)cudaGetLastError();
}

extern "C" size_t klt_cuda_qs_max_large(size_t n)
{
    return n / (KLT_CUDA_QS_SMALL + 1) + 1;
}

extern "C" size_t klt_cuda_qs_max_tiles(size_t n)
{
    return n / KLT_CUDA_QS_TILE + klt_cuda_qs_max_large(n) + 1;
}

extern "C" int klt_cuda_qs_grid(int *blocks, int *coop)
{
    *blocks = 1;
    *coop = 0;
    int dev = 0, can = 0, sms = 0, per = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&can, cudaDevAttrCooperativeLaunch, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(qs_run_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)kQsSmallSmem);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, qs_run_kernel, kQsThreads,
                                                          kQsSmallSmem);
    if (e != cudaSuccess)
        return (int)e;
    if (can && per > 0 && sms > 0) {
        *coop = 1;
        *blocks = per * sms;
    }
    return (int)cudaSuccess;
}

extern "C" int klt_cuda_qs_pack(const int *keys, const unsigned *pix, int *qa, int n, int min_eig,
                                int *nabove, void *stream)
{
    if (n <= 0)
        return (int)cudaSuccess;
    qs_pack_kernel<<<(n + 255) / 256, 256, 0, (cudaStream_t)stream>>>(
        keys, pix, reinterpret_cast<int2 *>(qa), n, min_eig, nabove);
    return (int)cudaGetLastError();
}

extern "C" int klt_cuda_qs_run(const klt_cuda_qs *q, int from_defer, const int *gate, int blocks,
                               int coop, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e = cudaFuncSetAttribute(qs_run_kernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)kQsSmallSmem);
    if (e != cudaSuccess)
        return (int)e;
    if (coop && blocks > 1) {
        klt_cuda_qs qv = *q;
        void *args[] = {&qv, &from_defer, &gate};
        return (int)cudaLaunchCooperativeKernel((const void *)qs_run_kernel, dim3(blocks),
                                                dim3(kQsThreads), args, kQsSmallSmem, s);
    }
    qs_run_kernel<<<1, kQsThreads, kQsSmallSmem, s>>>(*q, from_defer, gate);
    return (int)cudaGetLastError();
}
