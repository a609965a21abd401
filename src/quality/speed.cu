/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// SpEED kernels of the CUDA speed_chroma (speed_cuda.h): per chroma image of a
// batch of pairs, the operating image (load with offset -128, prescale,
// antialias Gaussian kept at every 16th row and column), its local mean
// subtraction, the 25x25 covariance of its 5x5 neighborhoods, the
// eigenvalues and the Householder QR factors of it, and each block's
// variance. Every float and double operation is speed_ref.c's and
// speed_linalg.c's, in their order (compiled with --fmad=false, IEEE division
// and square root): each reduction the C code does in sequence is done in
// sequence by one thread (a covariance entry, a matrix product's element, a
// block's back substitution); only independent elements run in parallel.
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality/speed_cuda.h"

namespace
{

constexpr int kN = 25;   // SPEED_ELEMS
constexpr int kTaps = 9; // SPEED_AXIS_TAPS
constexpr int kThreads = 128;
constexpr int kStatThreads = 256;
constexpr double kEps = 1e-6; // speed_linalg.c's SPEED_EPS
constexpr int kMaxQrSteps = 500;

__device__ __forceinline__ int mirror_index(int i, int n)
{
    return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i);
}

// speed_ref.c's load(): one sample of image src as float
__device__ __forceinline__ float load(const speed_cuda_args &a, const uint8_t *src,
                                      ptrdiff_t stride, int y, int x)
{
    const uint8_t *row = src + (ptrdiff_t)y * stride;
    if (a.bpc == 8)
        return (float)row[x] + -128.0f;
    const float scaler = a.bpc == 10 ? 4.0f : a.bpc == 12 ? 16.0f : 256.0f;
    const unsigned v = (unsigned)row[2 * x] | (unsigned)row[2 * x + 1] << 8;
    return (float)v / scaler + -128.0f;
}

// sample (y, x) of the prescaled image: scale_nearest, scale_bilinear,
// interpolate() of speed_ref.c from speed_prescale_axis's tables
__device__ float scaled(const speed_cuda_args &a, const uint8_t *src, ptrdiff_t stride, int y,
                        int x)
{
    if (a.method < 0)
        return load(a, src, stride, y, x);
    const int *ry = a.row_idx + (size_t)y * kTaps, *cx = a.col_idx + (size_t)x * kTaps;
    if (a.method == 0) // nearest
        return load(a, src, stride, ry[0], cx[0]);
    if (a.method == 1) { // bilinear
        const float dy = a.row_w[(size_t)y * kTaps], dx = a.col_w[(size_t)x * kTaps];
        const float r1x1 = load(a, src, stride, ry[0], cx[0]);
        const float r1x2 = load(a, src, stride, ry[0], cx[1]);
        const float r2x1 = load(a, src, stride, ry[1], cx[0]);
        const float r2x2 = load(a, src, stride, ry[1], cx[1]);
        return (1 - dy) * (1 - dx) * r1x1 + (1 - dy) * dx * r1x2 + dy * (1 - dx) * r2x1 +
               dy * dx * r2x2;
    }
    const int lanczos = a.method == 3, taps = lanczos ? 9 : 4;
    const float *wy = a.row_w + (size_t)y * kTaps, *wx = a.col_w + (size_t)x * kTaps;
    float value = 0, wsum = 0;
    for (int j = 0; j < taps; j++) {
        for (int i = 0; i < taps; i++) {
            const float w = wx[i] * wy[j];
            wsum += w;
            value += load(a, src, stride, ry[j], cx[i]) * w;
        }
    }
    return lanczos ? value / wsum : value;
}

// the antialias filter_sep of speed_ref.c at output (oi, oj): the vertical
// sums of the columns its horizontal taps read, then the horizontal sum
__global__ void __launch_bounds__(kThreads) op_kernel(const speed_cuda_args a)
{
    const int z = blockIdx.z, m = blockIdx.y;
    const int ow = a.op_width, oh = a.op_height;
    const int t = blockIdx.x * kThreads + threadIdx.x;
    if (t >= ow * oh)
        return;
    const int i = (t / ow) << 4, j = (t % ow) << 4;
    const int taps = a.width_aa, half = taps / 2;
    const int sw = a.scaled_width, sh = a.scaled_height;
    const uint8_t *src = a.src[m][z];
    const ptrdiff_t stride = a.stride[m][z];
    const float *f = a.filt_aa;
    float out = 0;
    for (int k2 = 0; k2 < taps; k2++) {
        const int col = mirror_index(j - half + k2, sw);
        float acc = 0;
        for (int k = 0; k < taps; k++)
            acc += f[k] * scaled(a, src, stride, mirror_index(i - half + k, sh), col);
        out += f[k2] * acc;
    }
    a.op[(size_t)(z * SPEED_CUDA_IMAGES + m) * (size_t)(ow * oh) + (size_t)t] = out;
}

// the operating image less its Gaussian blur (filter_sep at step 1, prepare())
__global__ void __launch_bounds__(kThreads) mean_kernel(const speed_cuda_args a)
{
    const int z = blockIdx.z, m = blockIdx.y;
    const int ow = a.op_width, oh = a.op_height;
    const int t = blockIdx.x * kThreads + threadIdx.x;
    if (t >= ow * oh)
        return;
    const int i = t / ow, j = t % ow;
    const int taps = a.width_4, half = taps / 2;
    const size_t img = (size_t)(z * SPEED_CUDA_IMAGES + m) * (size_t)(ow * oh);
    const float *op = a.op + img;
    const float *f = a.filt_4;
    float blur = 0;
    for (int k2 = 0; k2 < taps; k2++) {
        const int col = mirror_index(j - half + k2, ow);
        float acc = 0;
        for (int k = 0; k < taps; k++)
            acc += f[k] * op[(size_t)mirror_index(i - half + k, oh) * (size_t)ow + (size_t)col];
        blur += f[k2] * acc;
    }
    a.x[img + (size_t)t] = op[t] - blur;
}

// ------------------------------------------------------------ speed_linalg.c on one thread

__device__ __forceinline__ float root(float x)
{
    return (float)sqrt((double)x);
}

__device__ __forceinline__ float hypot_f(float x, float y)
{
    return root(x * x + y * y);
}

__device__ __forceinline__ float sign_of(float x)
{
    return x >= 0 ? 1.0f : -1.0f;
}

__device__ float householder_column(float *a, int n, int col, int start)
{
    if (n - start == 1)
        return 0.0f;
    float sq = 0.0f;
    for (int r = start + 1; r < n; r++)
        sq += a[r * n + col] * a[r * n + col];
    const float xnorm = root(sq);
    if (xnorm == 0.0f)
        return 0.0f;
    const float alpha = a[start * n + col];
    const float beta = -sign_of(alpha) * hypot_f(alpha, xnorm);
    const float tau = (beta - alpha) / beta;
    const float s = alpha - beta;
    if (s != 0.0f) {
        for (int r = start; r < n; r++)
            a[r * n + col] /= s;
        a[start * n + col] = beta;
    }
    return tau;
}

__device__ void chop(const float *d, float *sd, int n)
{
    for (int i = 0; i + 1 < n; i++)
        if ((double)fabsf(sd[i]) < kEps * (double)(fabsf(d[i]) + fabsf(d[i + 1])))
            sd[i] = 0.0f;
}

__device__ float wilkinson_shift(const float *d, const float *sd, int n)
{
    const float ta = d[n - 2], tb = d[n - 1], tab = sd[n - 2];
    const float dt = (float)((double)(ta - tb) / 2.0);
    if (dt > 0)
        return tb - tab * (tab / (dt + hypot_f(dt, tab)));
    if (dt == 0)
        return tb - fabsf(tab);
    return tb + tab * (tab / (-dt + hypot_f(dt, tab)));
}

__device__ void givens(float a, float b, float *c, float *s)
{
    if (b == 0) {
        *c = 1;
        *s = 0;
    } else if (fabsf(b) > fabsf(a)) {
        const float t = -a / b;
        const float s1 = (float)(1.0 / sqrt((double)(1 + t * t)));
        *s = s1;
        *c = s1 * t;
    } else {
        const float t = -b / a;
        const float c1 = (float)(1.0 / sqrt((double)(1 + t * t)));
        *c = c1;
        *s = c1 * t;
    }
}

__device__ void qr_step(float *d, float *sd, int n)
{
    float mu = wilkinson_shift(d, sd, n);
    if (kEps * (double)fabsf(mu) > (double)(fabsf(d[0]) + fabsf(sd[0])))
        mu = 0;
    float x = d[0] - mu, z = sd[0];
    float bk = 0, zk = 0;
    float ap = d[0], bp = sd[0], aq = d[1];
    float c, s;
    if (n == 2) {
        givens(x, z, &c, &s);
        const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        d[0] = ap1;
        sd[0] = bp1;
        d[1] = aq1;
        return;
    }
    float bq = sd[1];
    for (int k = 0; k < n - 1; k++) {
        givens(x, z, &c, &s);
        const float bk1 = c * bk - s * zk;
        const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        const float zp1 = -s * bq;
        const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        const float bq1 = c * bq;
        bk = bp1;
        zk = zp1;
        ap = aq1;
        bp = bq1;
        if (k < n - 2)
            aq = d[k + 2];
        if (k < n - 3)
            bq = sd[k + 2];
        d[k] = ap1;
        if (k > 0)
            sd[k - 1] = bk1;
        if (k < n - 2)
            sd[k + 1] = bp;
        x = bk;
        z = zk;
    }
    d[n - 1] = ap;
    sd[n - 2] = bk;
}

// the implicit QR iterations of speed_eigenvalues on the tridiagonal d, sd
__device__ void tridiagonal_eigen(float *d, float *sd, int n)
{
    chop(d, sd, n);
    int b = n - 1;
    for (int iter = 0; b > 0 && iter < kMaxQrSteps;) {
        if (sd[b - 1] == 0.0f) {
            b--;
            continue;
        }
        int lo = b - 1;
        while (lo > 0 && sd[lo - 1] != 0.0f)
            lo--;
        qr_step(d + lo, sd + lo, b - lo + 1);
        chop(d + lo, sd + lo, b - lo + 1);
        iter++;
    }
}

__device__ float vec_norm(const float *x, int n)
{
    float sum = 0;
    for (int i = 0; i < n; i++)
        sum += x[i] * x[i];
    return root(sum);
}

// ------------------------------------------------------------ the block's cooperative steps

struct stat_shared {
    float cov[kN * kN];
    float a[kN * kN]; // the eigenvalue reduction's copy
    float z[kN * kN], q[kN * kN], h[kN * kN], t[kN * kN];
    float mean[kN], v[kN], x[kN], d[kN], sd[kN];
    float tau, k;
    int singular;
};

// dst = x y for 25x25 matrices, one element per thread in sequence over k
__device__ void mat_mul(float *dst, const float *x, const float *y)
{
    for (int e = threadIdx.x; e < kN * kN; e += kStatThreads) {
        const int i = e / kN, j = e % kN;
        float acc = 0;
        for (int k = 0; k < kN; k++)
            acc += x[i * kN + k] * y[k * kN + j];
        dst[e] = acc;
    }
}

// tridiagonalize() of speed_linalg.c on s.a into s.d, s.sd
__device__ void tridiagonalize(stat_shared &s)
{
    const int n = kN, tid = threadIdx.x;
    float *a = s.a;
    for (int i = 0; i + 2 < n; i++) {
        const int lo = i + 1;
        if (tid == 0)
            s.tau = householder_column(a, n, i, lo);
        __syncthreads();
        const float tau = s.tau;
        for (int j = lo + tid; j < n; j += kStatThreads)
            s.v[j] = a[j * n + i];
        __syncthreads();
        if (tau == 0.0f)
            continue;
        if (tid == 0) {
            a[lo * n + i] = s.v[lo];
            s.v[lo] = 1.0f;
        }
        __syncthreads();
        for (int r = lo + tid; r < n; r += kStatThreads) {
            float acc = 0.0f;
            for (int c = lo; c < n; c++)
                acc += tau * a[r * n + c] * s.v[c];
            s.x[r] = acc;
        }
        __syncthreads();
        if (tid == 0) {
            float xv = 0.0f;
            for (int r = lo; r < n; r++)
                xv += s.x[r] * s.v[r];
            s.k = (float)(-0.5 * (double)tau * (double)xv);
        }
        __syncthreads();
        const float k = s.k;
        for (int r = lo + tid; r < n; r += kStatThreads)
            s.x[r] += k * s.v[r];
        __syncthreads();
        const int m = n - lo;
        for (int e = tid; e < m * m; e += kStatThreads) {
            const int r = lo + e / m, c = lo + e % m;
            a[r * n + c] -= s.x[r] * s.v[c] + s.v[r] * s.x[c];
        }
        __syncthreads();
    }
    if (tid == 0) {
        for (int i = 0; i < n; i++)
            s.d[i] = a[i * n + i];
        for (int i = 0; i + 1 < n; i++)
            s.sd[i] = a[(i + 1) * n + i];
    }
    __syncthreads();
}

// householder_qr() of speed_linalg.c on s.cov: Q in s.q, R in s.h
__device__ void householder_qr(stat_shared &s)
{
    const int n = kN, tid = threadIdx.x;
    const float *a = s.cov;
    for (int e = tid; e < n * n; e += kStatThreads) {
        s.z[e] = a[e];
        s.q[e] = e % (n + 1) == 0 ? 1.0f : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k + 1 < n; k++) {
        for (int e = tid; e < n * n; e += kStatThreads) {
            const int i = e / n, j = e % n;
            if (i < k || j < k)
                s.z[e] = i == j ? 1.0f : 0.0f;
        }
        __syncthreads();
        for (int i = tid; i < n; i += kStatThreads)
            s.v[i] = s.z[i * n + k];
        __syncthreads();
        if (tid == 0) {
            const float norm = vec_norm(s.v, n);
            s.v[k] += sign_of(a[k * n + k]) * norm;
            const float vn = vec_norm(s.v, n);
            for (int i = 0; i < n; i++)
                s.v[i] = s.v[i] / vn;
        }
        __syncthreads();
        for (int e = tid; e < n * n; e += kStatThreads) {
            const int i = e / n, j = e % n;
            float h = -2.0f * s.v[i] * s.v[j];
            if (i == j)
                h += 1;
            s.h[e] = h;
        }
        __syncthreads();
        mat_mul(s.t, s.h, s.z);
        __syncthreads();
        for (int e = tid; e < n * n; e += kStatThreads)
            s.z[e] = s.t[e];
        __syncthreads();
        mat_mul(s.t, s.h, s.q);
        __syncthreads();
        for (int e = tid; e < n * n; e += kStatThreads)
            s.q[e] = s.t[e];
        __syncthreads();
    }
    mat_mul(s.h, s.q, a);
    __syncthreads();
}

// speed_est() of speed_ref.c up to the solve, one block per image: the means
// and covariance of the 5x5 neighborhoods, the eigenvalues, the singular flag
// and the QR factors
__global__ void __launch_bounds__(kStatThreads) stat_kernel(const speed_cuda_args a)
{
    __shared__ stat_shared s;
    const int z = blockIdx.y, m = blockIdx.x, tid = threadIdx.x;
    const int img = z * SPEED_CUDA_IMAGES + m;
    const int ow = a.op_width, sw = a.sub_width, sh = a.sub_height;
    const float *data = a.x + (size_t)img * (size_t)(ow * a.op_height);
    float *out = a.out + (size_t)img * a.out_image;
    if (tid == 0 && m == 0)
        a.sums[z] = a.tag + (unsigned long long)z;
    for (int k = tid; k < kN; k += kStatThreads) {
        const float *o = data + (size_t)(k / 5) * (size_t)ow + (size_t)(k % 5);
        float sum = 0;
        for (int i = 0; i < sh; i++)
            for (int j = 0; j < sw; j++)
                sum += o[(size_t)i * (size_t)ow + (size_t)j];
        s.mean[k] = sum / (float)((size_t)sw * (size_t)sh);
    }
    __syncthreads();
    for (int e = tid; e < kN * (kN + 1) / 2; e += kStatThreads) {
        int ea = 0;
        while ((ea + 1) * (ea + 2) / 2 <= e)
            ea++;
        const int eb = e - ea * (ea + 1) / 2; // eb <= ea
        const float *xa = data + (size_t)(ea / 5) * (size_t)ow + (size_t)(ea % 5);
        const float *xb = data + (size_t)(eb / 5) * (size_t)ow + (size_t)(eb % 5);
        const double ma = (double)s.mean[ea], mb = (double)s.mean[eb];
        double sum = 0;
        for (int i = 0; i < sh; i++)
            for (int j = 0; j < sw; j++)
                sum += ((double)xa[(size_t)i * (size_t)ow + (size_t)j] - ma) *
                       ((double)xb[(size_t)i * (size_t)ow + (size_t)j] - mb);
        const float cv = (float)(sum / (double)((size_t)sw * (size_t)sh));
        s.cov[ea * kN + eb] = cv;
        s.cov[eb * kN + ea] = cv;
    }
    __syncthreads();
    for (int e = tid; e < kN * kN; e += kStatThreads)
        s.a[e] = s.cov[e];
    __syncthreads();
    tridiagonalize(s);
    if (tid == 0) {
        tridiagonal_eigen(s.d, s.sd, kN);
        int regular = 1;
        for (int k = 0; k < kN; k++)
            if ((double)s.d[k] < kEps)
                regular = 0;
        s.singular = !regular;
    }
    __syncthreads();
    if (!s.singular) {
        householder_qr(s);
        if (tid == 0)
            for (int i = kN - 1; i >= 0; i--)
                if ((double)fabsf(s.h[i * kN + i]) < kEps)
                    s.singular = 1;
        float *qr = a.qr + (size_t)img * (size_t)(2 * kN * kN);
        for (int e = tid; e < kN * kN; e += kStatThreads) {
            qr[e] = s.q[e];
            qr[kN * kN + e] = s.h[e];
        }
        __syncthreads();
    }
    if (tid == 0)
        out[0] = s.singular ? 1.0f : 0.0f;
    for (int k = tid; k < kN; k += kStatThreads)
        out[1 + k] = s.d[k];
}

// the rest of speed_est() per block: R X = Q B for the block's column (zero
// when singular) and its variance, sum over k of x[k] rhs[k] / 25
__global__ void __launch_bounds__(kThreads) var_kernel(const speed_cuda_args a)
{
    const int z = blockIdx.z, m = blockIdx.y;
    const int blocks = a.blocks_h * a.blocks_v;
    const int b = blockIdx.x * kThreads + threadIdx.x;
    if (b >= blocks)
        return;
    const int img = z * SPEED_CUDA_IMAGES + m;
    const int ow = a.op_width, bv = b / a.blocks_h, bh = b % a.blocks_h;
    const float *data = a.x + (size_t)img * (size_t)(ow * a.op_height);
    float *out = a.out + (size_t)img * a.out_image;
    float rhs[kN], sol[kN];
    for (int k = 0; k < kN; k++)
        rhs[k] = data[(size_t)(bv * 5 + k / 5) * (size_t)ow + (size_t)(bh * 5 + k % 5)];
    if (out[0] != 0.0f) {
        for (int k = 0; k < kN; k++)
            sol[k] = 0.0f;
    } else {
        const float *q = a.qr + (size_t)img * (size_t)(2 * kN * kN), *r = q + kN * kN;
        float qb[kN];
        for (int i = 0; i < kN; i++) {
            float acc = 0;
            for (int k = 0; k < kN; k++)
                acc += q[i * kN + k] * rhs[k];
            qb[i] = acc;
        }
        for (int i = kN - 1; i >= 0; i--) {
            const float den = r[i * kN + i];
            float acc = qb[i];
            for (int k = i + 1; k < kN; k++)
                acc -= sol[k] * r[i * kN + k];
            sol[i] = acc / den;
        }
    }
    for (int k = 0; k < kN; k++)
        sol[k] = (sol[k] * rhs[k]) / (float)kN;
    float var = sol[0];
    for (int k = 1; k < kN; k++)
        var += sol[k];
    out[SPEED_CUDA_HEAD + b] = var;
}

} // namespace

extern "C" int fv_speed_cuda_launch(const speed_cuda_args *a, void *stream)
{
    if (a->nframes < 1 || a->nframes > SPEED_CUDA_MAX_BATCH || a->op_width < 5 ||
        a->op_height < 5 || a->blocks_h < 1 || a->blocks_v < 1 ||
        a->out_image < (size_t)(SPEED_CUDA_HEAD + a->blocks_h * a->blocks_v))
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    const int pixels = a->op_width * a->op_height, blocks = a->blocks_h * a->blocks_v;
    const dim3 grid_px((unsigned)((pixels + kThreads - 1) / kThreads), SPEED_CUDA_IMAGES,
                       (unsigned)a->nframes);
    op_kernel<<<grid_px, kThreads, 0, s>>>(*a);
    mean_kernel<<<grid_px, kThreads, 0, s>>>(*a);
    stat_kernel<<<dim3(SPEED_CUDA_IMAGES, (unsigned)a->nframes), kStatThreads, 0, s>>>(*a);
    const dim3 grid_b((unsigned)((blocks + kThreads - 1) / kThreads), SPEED_CUDA_IMAGES,
                      (unsigned)a->nframes);
    var_kernel<<<grid_b, kThreads, 0, s>>>(*a);
    return (int)cudaGetLastError();
}
