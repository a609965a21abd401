/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// KLT tracking kernel: the per-feature Lucas-Kanade tracker, one warp per
// feature, coarse to fine. Every float step that the C reference (window.c,
// track.c) computes is written with explicitly rounded intrinsics in the same
// order, so nothing is contracted into an FMA whatever the compile flags: the
// results are the reference's bits.
#include <cuda_runtime.h>

#include "klt/klt_rn.cuh"
#include "klt/track_cuda.h"

namespace
{

// Status codes of fovea/klt.h (kept in sync by hand: the header is C).
constexpr int kTracked = 0;
constexpr int kSmallDet = -2;
constexpr int kMaxIterations = -3;
constexpr int kOob = -4;
constexpr int kLargeResidue = -5;

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
    float *a, *b, *gx, *gy; // n floats each, per warp
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
        __syncwarp(); // the windows are rewritten by the next iteration
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
    const bool outside =
        xout < (float)A.borderx || xout > (float)((long long)A.ncols - 1 - A.borderx) ||
        yout < (float)A.bordery || yout > (float)((long long)A.nrows - 1 - A.bordery);
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

} // namespace

// ------------------------------------------------------------ launcher

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
        cudaError_t e = cudaFuncSetAttribute(
            track_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return (int)e;
    }
    const int blocks = (a->nfeat + warps - 1) / warps;
    track_kernel<<<blocks, 32 * warps, smem, (cudaStream_t)stream>>>(*a);
    return (int)cudaGetLastError();
}
