// KLT kernels: separable convolution with shared-memory tiles (smoothing,
// gradients), the pyramid's smoothing at sampled points, the minimum-eigenvalue
// map, the candidate sort, the greedy minimum-distance pass and the per-feature
// Lucas-Kanade tracker (one warp per feature). Every float step that the C
// reference (convolve.c, select.c, window.c, track.c) computes is written with
// explicitly rounded intrinsics in the same order, so nothing is contracted
// into an FMA whatever the compile flags: the results are the reference's bits.
#include <cuda_runtime.h>
#include <limits.h>

#include <cub/device/device_radix_sort.cuh>

#include "klt/klt_cuda.h"

namespace {

// Status codes of fovea/klt.h (kept in sync by hand: the header is C).
constexpr int kTracked = 0;
constexpr int kSmallDet = -2;
constexpr int kMaxIterations = -3;
constexpr int kOob = -4;
constexpr int kLargeResidue = -5;

__device__ __forceinline__ float fadd(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float fsub(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ float fmul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float fdiv(float a, float b) { return __fdiv_rn(a, b); }

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
    if (!(i < r || i >= ncols - r)) {
        const float *s = in + (size_t)j * ncols + i - r;
        for (int m = 0; m < w; m++)
            acc = fadd(acc, fmul(__ldg(s + m), k.data[w - 1 - m]));
    }
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
    if (!(j < r || j >= nrows - r)) {
        const float *s = tmp + (size_t)(j - r) * oc + x;
        for (int m = 0; m < w; m++)
            acc = fadd(acc, fmul(__ldg(s + (size_t)m * oc), k.data[w - 1 - m]));
    }
    out[(size_t)y * oc + x] = acc;
}

// ------------------------------------------------------------ selection

__global__ void eigen_kernel(klt_cuda_eig_args a)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (k >= a.nx || row >= a.ny)
        return;
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
    // (gxx + gyy - sqrt((gxx-gyy)^2 + 4 gxy gxy)) / 2: float terms, double root
    float d = fsub(sxx, syy);
    float under = fadd(fmul(d, d), fmul(fmul(4.0f, sxy), sxy));
    double root = __dsqrt_rn((double)under);
    double v = __dmul_rn(__dsub_rn((double)fadd(sxx, syy), root), 0.5);
    float val = __double2float_rn(v);
    int iv = val >= 2147483648.0f ? INT_MAX : __float2int_rz(val);
    size_t idx = (size_t)row * a.nx + k;
    a.keys[idx] = iv;
    a.pix[idx] = (unsigned)y * (unsigned)a.ncols + (unsigned)x;
}

__global__ void mark_kernel(unsigned char *map, int ncols, int nrows, const int *pts, int n,
                            int d)
{
    const int side = 2 * d + 1;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)n * side)
        return;
    int p = (int)(t / side), r = (int)(t - (long long)p * side);
    int px = pts[2 * p], py = pts[2 * p + 1];
    int yy = py - d + r;
    if (yy < 0 || yy >= nrows)
        return;
    int xa = px - d < 0 ? 0 : px - d, xb = px + d >= ncols ? ncols - 1 : px + d;
    unsigned char *row = map + (size_t)yy * ncols;
    for (int xx = xa; xx <= xb; xx++)
        row[xx] = 1;
}

constexpr int kGreedyThreads = 512;

// The reference walks the sorted list one candidate at a time. Here a chunk of
// kGreedyThreads candidates is tested against the map in parallel; those that
// pass (in sorted order) are then decided by warp 0 one by one against the
// ones taken earlier in the same chunk, and the taken ones mark the map before
// the next chunk. Same decisions as the sequential pass.
__global__ void __launch_bounds__(kGreedyThreads) greedy_kernel(klt_cuda_greedy_args a)
{
    __shared__ int s_surv_pix[kGreedyThreads], s_surv_val[kGreedyThreads];
    __shared__ short s_surv_x[kGreedyThreads], s_surv_y[kGreedyThreads];
    __shared__ unsigned char s_surv_dep[kGreedyThreads];
    __shared__ int s_take_pix[kGreedyThreads], s_take_val[kGreedyThreads];
    __shared__ short s_take_x[kGreedyThreads], s_take_y[kGreedyThreads];
    __shared__ int s_warp_cnt[kGreedyThreads / 32];
    __shared__ int s_nsurv, s_ntake, s_total;
    const int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
    const unsigned full = 0xffffffffu;
    if (tid == 0)
        s_total = 0;
    __syncthreads();
    if (a.nslots <= 0) {
        if (tid == 0)
            *a.out_n = 0;
        return;
    }
    for (int base = 0; base < a.n; base += kGreedyThreads) {
        const int i = base + tid;
        int ok = 0, below = 0, p = 0, v = 0;
        if (i < a.n) {
            v = a.keys[i];
            p = (int)a.pix[i];
            if (v >= a.min_eig)
                ok = a.map[p] == 0;
            else
                below = 1;
        }
        unsigned bal = __ballot_sync(full, ok);
        if (lane == 0)
            s_warp_cnt[wid] = __popc(bal);
        const int any_below = __syncthreads_or(below);
        int off = 0, tot = 0;
        for (int w = 0; w < kGreedyThreads / 32; w++) {
            int c = s_warp_cnt[w];
            off += w < wid ? c : 0;
            tot += c;
        }
        if (ok) {
            int pos = off + __popc(bal & ((1u << lane) - 1u));
            int py = p / a.ncols;
            s_surv_pix[pos] = p;
            s_surv_val[pos] = v;
            s_surv_x[pos] = (short)(p - py * a.ncols);
            s_surv_y[pos] = (short)py;
        }
        if (tid == 0)
            s_nsurv = tot;
        __syncthreads();
        // survivors with no earlier survivor of this chunk in reach are taken
        // for sure (while slots remain); only the others need the ordered test
        const int ns = s_nsurv;
        if (tid < ns) {
            const int sx = s_surv_x[tid], sy = s_surv_y[tid];
            int dep = 0;
            for (int t = 0; t < tid && !dep; t++) {
                int dx = s_surv_x[t] - sx, dy = s_surv_y[t] - sy;
                dep = dx <= a.d && -dx <= a.d && dy <= a.d && -dy <= a.d;
            }
            s_surv_dep[tid] = (unsigned char)dep;
        }
        __syncthreads();

        if (wid == 0) {
            int total = s_total, nt = 0;
            for (int s = 0; s < ns && total < a.nslots; s++) {
                const int sx = s_surv_x[s], sy = s_surv_y[s];
                int conflict = 0;
                if (s_surv_dep[s]) {
                    for (int t = lane; t < nt; t += 32) {
                        int dx = s_take_x[t] - sx, dy = s_take_y[t] - sy;
                        if (dx <= a.d && -dx <= a.d && dy <= a.d && -dy <= a.d)
                            conflict = 1;
                    }
                }
                if (!__any_sync(full, conflict)) {
                    if (lane == 0) {
                        s_take_pix[nt] = s_surv_pix[s];
                        s_take_val[nt] = s_surv_val[s];
                        s_take_x[nt] = (short)sx;
                        s_take_y[nt] = (short)sy;
                    }
                    nt++;
                    total++;
                }
                __syncwarp();
            }
            if (lane == 0) {
                s_ntake = nt;
                s_total = total;
            }
        }
        __syncthreads();

        const int nt = s_ntake, first = s_total - nt;
        for (int t = tid; t < nt; t += kGreedyThreads) {
            a.out_pix[first + t] = s_take_pix[t];
            a.out_val[first + t] = s_take_val[t];
        }
        if (a.d >= 0) {
            const int side = 2 * a.d + 1;
            for (int w = tid; w < nt * side; w += kGreedyThreads) {
                int t = w / side, r = w - t * side;
                int ty = s_take_y[t], tx = s_take_x[t];
                int yy = ty - a.d + r;
                if (yy < 0 || yy >= a.nrows)
                    continue;
                int xa = tx - a.d < 0 ? 0 : tx - a.d;
                int xb = tx + a.d >= a.ncols ? a.ncols - 1 : tx + a.d;
                unsigned char *row = a.map + (size_t)yy * a.ncols;
                for (int xx = xa; xx <= xb; xx++)
                    row[xx] = 1;
            }
        }
        __syncthreads();  // the marks are visible to the next chunk's tests
        if (s_total >= a.nslots || any_below)
            break;
    }
    if (tid == 0)
        *a.out_n = s_total;
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
    const bool outside = xout < (float)A.borderx || xout > (float)(A.ncols - 1 - A.borderx) ||
                         yout < (float)A.bordery || yout > (float)(A.nrows - 1 - A.bordery);
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

extern "C" int klt_cuda_eigen(const klt_cuda_eig_args *a, void *stream)
{
    if (a->nx <= 0 || a->ny <= 0)
        return (int)cudaSuccess;
    dim3 block(32, 8);
    dim3 grid((a->nx + 31) / 32, (a->ny + 7) / 8);
    eigen_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(*a);
    return (int)cudaGetLastError();
}

extern "C" int klt_cuda_sort(void *temp, size_t *temp_bytes, const int *keys_in, int *keys_out,
                             const unsigned *pix_in, unsigned *pix_out, int n, void *stream)
{
    return (int)cub::DeviceRadixSort::SortPairsDescending(temp, *temp_bytes, keys_in, keys_out,
                                                          pix_in, pix_out, n, 0,
                                                          (int)(sizeof(int) * 8),
                                                          (cudaStream_t)stream);
}

extern "C" int klt_cuda_mark(unsigned char *map, int ncols, int nrows, const int *pts, int n,
                             int d, void *stream)
{
    if (n <= 0 || d < 0)
        return (int)cudaSuccess;
    long long total = (long long)n * (2 * d + 1);
    int threads = 256;
    long long blocks = (total + threads - 1) / threads;
    mark_kernel<<<(unsigned)blocks, threads, 0, (cudaStream_t)stream>>>(map, ncols, nrows, pts,
                                                                       n, d);
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
