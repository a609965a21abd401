/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* SpEED's small dense linear algebra in float, in libvmaf's order of
 * operations: the eigenvalues of the 25x25 covariance (Householder
 * reduction to tridiagonal form, then implicit symmetric QR steps with
 * Wilkinson shifts, as GSL's symmtd/symm) and the solution of K X = Y by an
 * explicit Householder QR of K and back substitution. Square roots are taken
 * in double and rounded to float, as libvmaf's sqrt() of a float. */
#include <math.h>
#include <string.h>

#include "quality/speed.h"

#define SPEED_EPS 1e-6 /* double, as libvmaf compares */

/* The matrix products and the back substitution are compiled for x86-64-v4,
 * AVX2 and the baseline (speed_ref.c's SPEED_CLONES says why that keeps every
 * float: the vectors run across independent sums, nothing is contracted). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) &&                              \
    !defined(FOVEA_SPEED_NO_CLONES) && !(defined(__clang__) && __clang_major__ < 16)
#if defined(__clang__) || defined(__STRICT_ANSI__)
#define SPEED_LINALG_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define SPEED_LINALG_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#else
#define SPEED_LINALG_CLONES
#endif
#define SPEED_MAX_QR_STEPS 500

static float root(float x)
{
    return (float)sqrt((double)x);
}

static float hypot_f(float x, float y)
{
    return root(x * x + y * y);
}

static float sign_of(float x)
{
    return x >= 0 ? 1.0f : -1.0f;
}

/* ---------------------------------------------------------------- eigenvalues */

/* The Householder vector annihilating a[start + 1 .. n - 1][col], stored in
 * place below a[start][col] (scaled so its first element is an implicit 1,
 * a[start][col] becoming beta); returns tau (0: nothing to annihilate). */
static float householder_column(float *a, int n, int col, int start)
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

/* Reduce the symmetric a (modified) to its diagonal d and subdiagonal sd;
 * v and x are n floats of scratch. */
static void tridiagonalize(float *a, int n, float *d, float *sd, float *v, float *x)
{
    for (int i = 0; i + 2 < n; i++) {
        const int lo = i + 1;
        const float tau = householder_column(a, n, i, lo);
        for (int j = lo; j < n; j++)
            v[j] = a[j * n + i];
        if (tau == 0.0f)
            continue;
        a[lo * n + i] = v[lo];
        v[lo] = 1.0f;
        /* x = tau A v over rows and columns lo.. */
        for (int r = lo; r < n; r++) {
            x[r] = 0.0f;
            for (int c = lo; c < n; c++)
                x[r] += tau * a[r * n + c] * v[c];
        }
        float xv = 0.0f;
        for (int r = lo; r < n; r++)
            xv += x[r] * v[r];
        const float k = (float)(-0.5 * (double)tau * (double)xv);
        for (int r = lo; r < n; r++)
            x[r] += k * v[r];
        /* A -= x v' + v x' */
        for (int r = lo; r < n; r++)
            for (int c = lo; c < n; c++)
                a[r * n + c] -= x[r] * v[c] + v[r] * x[c];
    }
    for (int i = 0; i < n; i++)
        d[i] = a[i * n + i];
    for (int i = 0; i + 1 < n; i++)
        sd[i] = a[(i + 1) * n + i];
}

static void chop(const float *d, float *sd, int n)
{
    for (int i = 0; i + 1 < n; i++)
        if ((double)fabsf(sd[i]) < SPEED_EPS * (double)(fabsf(d[i]) + fabsf(d[i + 1])))
            sd[i] = 0.0f;
}

/* The eigenvalue of the trailing 2x2 block nearer its last element. */
static float wilkinson_shift(const float *d, const float *sd, int n)
{
    const float ta = d[n - 2], tb = d[n - 1], tab = sd[n - 2];
    const float dt = (float)((double)(ta - tb) / 2.0);
    if (dt > 0)
        return tb - tab * (tab / (dt + hypot_f(dt, tab)));
    if (dt == 0)
        return tb - fabsf(tab);
    return tb + tab * (tab / (-dt + hypot_f(dt, tab)));
}

static void givens(float a, float b, float *c, float *s)
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

/* One implicit QR step on the unreduced tridiagonal block d, sd of size n. */
static void qr_step(float *d, float *sd, int n)
{
    float mu = wilkinson_shift(d, sd, n);
    if (SPEED_EPS * (double)fabsf(mu) > (double)(fabsf(d[0]) + fabsf(sd[0])))
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

void speed_eigenvalues(const float *a_in, int n, float *eig, float *work)
{
    float *a = work, *d = a + n * n, *sd = d + n, *v = sd + n, *x = v + n;
    memcpy(a, a_in, (size_t)n * (size_t)n * sizeof(*a));
    if (n == 1) {
        eig[0] = a[0];
        return;
    }
    tridiagonalize(a, n, d, sd, v, x);
    chop(d, sd, n);
    /* deflate from the bottom: QR steps on the last unreduced block */
    int b = n - 1;
    for (int iter = 0; b > 0 && iter < SPEED_MAX_QR_STEPS;) {
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
    memcpy(eig, d, (size_t)n * sizeof(*eig));
}

/* ---------------------------------------------------------------- linear system */

static float vec_norm(const float *x, int n)
{
    float sum = 0;
    for (int i = 0; i < n; i++)
        sum += x[i] * x[i];
    return root(sum);
}

/* dst = x y for n x n x and n x cols y (dst distinct from both): each
 * element the float sum over k in order (from 0, as libvmaf's), the vectors
 * across the row's independent sums. */
SPEED_LINALG_CLONES static void mat_mul(float *restrict dst, const float *x, const float *y, int n,
                                        int cols)
{
    for (int i = 0; i < n; i++) {
        float *d = dst + (size_t)i * (size_t)cols;
        for (int j = 0; j < cols; j++)
            d[j] = 0;
        for (int k = 0; k < n; k++) {
            const float xk = x[i * n + k];
            const float *yk = y + (size_t)k * (size_t)cols;
            for (int j = 0; j < cols; j++)
                d[j] += xk * yk[j];
        }
    }
}

/* Row i of the back substitution: x[i][j] = (qb[i][j] - the sum over k > i
 * of x[k][j] r[i][k], subtracted in order) / den, across the columns j. */
SPEED_LINALG_CLONES static void back_row(const float *qb, const float *r, int n, int i, int cols,
                                         float den, float *x)
{
    float *xi = x + (size_t)i * (size_t)cols;
    for (int j = 0; j < cols; j++)
        xi[j] = qb[(size_t)i * (size_t)cols + (size_t)j];
    for (int k = i + 1; k < n; k++) {
        const float rk = r[i * n + k];
        const float *xk = x + (size_t)k * (size_t)cols;
        for (int j = 0; j < cols; j++)
            xi[j] -= xk[j] * rk;
    }
    for (int j = 0; j < cols; j++)
        xi[j] = xi[j] / den;
}

/* q = H_{n-2} .. H_0 (the Householder reflections that triangularize a) and
 * r = q a, as libvmaf forms them: each reflection from the column of the
 * partly reduced matrix z, its sign from a's diagonal. */
static void householder_qr(const float *a, int n, float *q, float *r, float *h, float *z, float *t)
{
    memcpy(z, a, (size_t)n * (size_t)n * sizeof(*z));
    for (int i = 0; i < n * n; i++)
        q[i] = i % (n + 1) == 0 ? 1.0f : 0.0f;
    float *v = r; /* r is free until the end */
    for (int k = 0; k + 1 < n; k++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i < k || j < k)
                    z[i * n + j] = i == j ? 1.0f : 0.0f;
        for (int i = 0; i < n; i++)
            v[i] = z[i * n + k];
        const float norm = vec_norm(v, n);
        v[k] += sign_of(a[k * n + k]) * norm;
        const float vn = vec_norm(v, n);
        for (int i = 0; i < n; i++)
            v[i] = v[i] / vn;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                h[i * n + j] = -2.0f * v[i] * v[j];
        for (int i = 0; i < n; i++)
            h[i * n + i] += 1;
        mat_mul(t, h, z, n, n);
        memcpy(z, t, (size_t)n * (size_t)n * sizeof(*z));
        mat_mul(t, h, q, n, n);
        memcpy(q, t, (size_t)n * (size_t)n * sizeof(*q));
    }
    mat_mul(r, q, a, n, n);
}

int speed_solve(const float *a, int n, const float *b, int cols, float *x, float *work)
{
    const size_t nn = (size_t)n * (size_t)n;
    float *q = work, *r = q + nn, *h = r + nn, *z = h + nn, *t = z + nn, *qb = t + nn;
    householder_qr(a, n, q, r, h, z, t);
    /* R X = Q B by back substitution */
    mat_mul(qb, q, b, n, cols);
    for (int i = n - 1; i >= 0; i--) {
        const float den = r[i * n + i];
        if ((double)fabsf(den) < SPEED_EPS)
            return -1;
        back_row(qb, r, n, i, cols, den, x);
    }
    return 0;
}
