/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// ordered_sum.cuh against the sequential loop it emulates (`acc += t[i]`,
// float and double accumulators, float and double terms), bit for bit, on
// terms made to break it: rounding ties at every parity, sums that cross
// binades up and down, cancellation to zero, zeros and negative zeros, terms
// too large to scale, subnormals, infinities and NaN, and every length
// around the block's window. Prints the device time of a 2-million-term sum.
// FOVEA_ORDERED_QUICK=1 leaves out the long sums and the timing (for
// compute-sanitizer). Exit 77 without a GPU.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_require.h"
#include "quality/ordered_sum.cuh"

namespace
{

template <typename Acc, typename T> struct term_fn {
    const T *t;
    __device__ __forceinline__ Acc operator()(size_t i) const
    {
        return (Acc)t[i];
    }
};

template <typename Acc, typename T>
__global__ void __launch_bounds__(kOrderedSumThreads)
    sum_kernel(const T *t, const size_t *n, int cases, Acc *out)
{
    const int c = blockIdx.x;
    if (c >= cases)
        return;
    size_t off = 0;
    for (int k = 0; k < c; k++)
        off += n[k];
    const Acc acc = ordered_sum_terms<Acc>(term_fn<Acc, T>{t + off}, n[c]);
    if (threadIdx.x == 0)
        out[c] = acc;
}

// the same cases as jobs of ordered_sums_launch (many blocks a sum)
template <typename Acc, typename T> struct test_jobs {
    const T *t;
    const size_t *n, *off;
    Acc *out;
    __device__ size_t size(int job) const
    {
        return n[job];
    }
    __device__ Acc term(int job, size_t i) const
    {
        return (Acc)t[off[job] + i];
    }
    __device__ void put(int job, Acc acc) const
    {
        out[job] = acc;
    }
};

uint64_t rng = 0x9e3779b97f4a7c15ull;
uint64_t next_u64()
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
double unit()
{
    return (double)(next_u64() >> 11) * 0x1.0p-53;
}

bool same_bits(double a, double b)
{
    if (a != a && b != b)
        return true;
    return memcmp(&a, &b, sizeof a) == 0;
}
bool same_bits(float a, float b)
{
    if (a != a && b != b)
        return true;
    return memcmp(&a, &b, sizeof a) == 0;
}

int failures = 0;
bool quick = false;


// the cases: generators of n terms (T: float or double)
template <typename T> void make_case(int kind, size_t n, T *t)
{
    for (size_t i = 0; i < n; i++) {
        double v = 0;
        switch (kind) {
        case 0: // uniform [0, 1)
            v = unit();
            break;
        case 1: // halves and quarters: ties once the ulp passes them
            v = (double)(next_u64() % 16) * 0.25 + 0.5;
            break;
        case 2: // mixed signs: a random walk crossing binades often
            v = unit() - 0.5;
            break;
        case 3: // magnitudes 1e-30 .. 1e30, both signs (large ones do not scale)
            v = pow(10.0, unit() * 60.0 - 30.0) * ((next_u64() & 1) ? 1 : -1);
            break;
        case 4: // mostly zeros (some -0.0), rare small integers
            v = (next_u64() % 64) == 0 ? (double)(next_u64() % 5) : ((next_u64() & 1) ? -0.0 : 0.0);
            break;
        case 5: // +x, -x pairs: cancellation to exactly zero, then a remainder
            v = (i & 1) ? -(double)t[i - 1] : (double)(next_u64() % 1000) * 0.125;
            break;
        case 6: // subnormal-sized terms
            v = (double)(next_u64() % 7) * (sizeof(T) == 4 ? 1e-42 : 1e-320);
            break;
        case 7: // SSIM-like: values near 1 with full-precision noise
            v = 1.0 - unit() * 1e-3;
            break;
        case 8: // integers on odd steps: ties at parity 1 and 0 alike
            v = (double)(1 + 2 * (next_u64() % 3));
            break;
        default: // mixed: positive, one huge, one inf, one nan at the end
            v = unit();
            if (i == n / 3)
                v = 1e30;
            if (i == n / 2)
                v = -1e30;
            if (kind == 10 && i == n - 2)
                v = INFINITY;
            if (kind == 11 && i == n / 4)
                v = NAN;
            break;
        }
        t[i] = (T)v;
    }
}

template <typename Acc, typename T> void run(const char *what)
{
    static const size_t lens[] = {0,    1,    2,    3,    511,   512,    4095,
                                  4096, 4097, 8191, 9000, 65537, 300001, 2000000};
    const int nkinds = 12;
    int ncases = 0;
    size_t total = 0;
    size_t n_of[256];
    int kind_of[256];
    for (int k = 0; k < nkinds; k++)
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
            if (lens[l] > 300001 && k != 0 && k != 1 && k != 7)
                continue; // the long cases: growing sums only (test time)
            if (lens[l] > 65537 && quick)
                continue;
            n_of[ncases] = lens[l];
            kind_of[ncases] = k;
            total += lens[l];
            ncases++;
        }
    T *h = (T *)malloc(total * sizeof(T) + 1);
    Acc *want = (Acc *)malloc((size_t)ncases * sizeof(Acc));
    Acc *got = (Acc *)malloc((size_t)ncases * sizeof(Acc));
    size_t off = 0;
    for (int c = 0; c < ncases; c++) {
        make_case<T>(kind_of[c], n_of[c], h + off);
        Acc acc = 0;
        for (size_t i = 0; i < n_of[c]; i++)
            acc += (Acc)h[off + i];
        want[c] = acc;
        off += n_of[c];
    }
    T *d;
    size_t *dn;
    Acc *dout;
    CUDA_REQUIRE(cudaMalloc(&d, total * sizeof(T) + 1));
    CUDA_REQUIRE(cudaMalloc(&dn, sizeof(size_t) * (size_t)ncases));
    CUDA_REQUIRE(cudaMalloc(&dout, sizeof(Acc) * (size_t)ncases));
    CUDA_REQUIRE(cudaMemcpy(d, h, total * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaMemcpy(dn, n_of, sizeof(size_t) * (size_t)ncases, cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaMemset(dout, 0xa5, sizeof(Acc) * (size_t)ncases)); // poisoned
    sum_kernel<Acc, T><<<ncases, kOrderedSumThreads>>>(d, dn, ncases, dout);
    CUDA_REQUIRE(cudaGetLastError());
    CUDA_REQUIRE(cudaMemcpy(got, dout, sizeof(Acc) * (size_t)ncases, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int c = 0; c < ncases; c++)
        if (!same_bits(want[c], got[c])) {
            if (bad++ < 8)
                fprintf(stderr, "%s: kind %d, n %zu: sequential %a, ordered_sum %a\n", what,
                        kind_of[c], n_of[c], (double)want[c], (double)got[c]);
        }
    printf("%s, one block a sum: %d cases, %d differ\n", what, ncases, bad);
    failures += bad;

    // many blocks a sum
    size_t *off_of = (size_t *)malloc(sizeof(size_t) * (size_t)ncases), *doff;
    size_t max_n = 0, o2 = 0;
    for (int c = 0; c < ncases; c++) {
        off_of[c] = o2;
        o2 += n_of[c];
        max_n = n_of[c] > max_n ? n_of[c] : max_n;
    }
    CUDA_REQUIRE(cudaMalloc(&doff, sizeof(size_t) * (size_t)ncases));
    CUDA_REQUIRE(cudaMemcpy(doff, off_of, sizeof(size_t) * (size_t)ncases, cudaMemcpyHostToDevice));
    void *scratch;
    CUDA_REQUIRE(cudaMalloc(&scratch, ordered_sums_scratch(ncases, max_n)));
    CUDA_REQUIRE(cudaMemset(scratch, 0x5a, ordered_sums_scratch(ncases, max_n)));
    CUDA_REQUIRE(cudaMemset(dout, 0xa5, sizeof(Acc) * (size_t)ncases));
    const test_jobs<Acc, T> jobs = {d, dn, doff, dout};
    CUDA_REQUIRE(ordered_sums_launch<Acc>(jobs, ncases, max_n, scratch, 0));
    CUDA_REQUIRE(cudaMemcpy(got, dout, sizeof(Acc) * (size_t)ncases, cudaMemcpyDeviceToHost));
    bad = 0;
    for (int c = 0; c < ncases; c++)
        if (!same_bits(want[c], got[c])) {
            if (bad++ < 8)
                fprintf(stderr, "%s (many blocks): kind %d, n %zu: sequential %a, ordered %a\n",
                        what, kind_of[c], n_of[c], (double)want[c], (double)got[c]);
        }
    printf("%s, many blocks a sum: %d cases, %d differ\n", what, ncases, bad);
    failures += bad;
    CUDA_REQUIRE(cudaFree(scratch));
    CUDA_REQUIRE(cudaFree(doff));
    free(off_of);

    // device time of one 2M-term growing sum (kind 0), 8 blocks at once
    {
        size_t first = 0;
        int c0 = -1;
        for (int c = 0; c < ncases; c++) {
            if (kind_of[c] == 0 && n_of[c] == 2000000) {
                c0 = c;
                break;
            }
            first += n_of[c];
        }
        if (c0 >= 0 && !quick) {
            size_t n8[8];
            for (int k = 0; k < 8; k++)
                n8[k] = 2000000;
            T *d8;
            CUDA_REQUIRE(cudaMalloc(&d8, 8 * 2000000 * sizeof(T)));
            for (int k = 0; k < 8; k++)
                CUDA_REQUIRE(cudaMemcpy(d8 + (size_t)k * 2000000, d + first, 2000000 * sizeof(T),
                                        cudaMemcpyDeviceToDevice));
            CUDA_REQUIRE(cudaMemcpy(dn, n8, sizeof n8, cudaMemcpyHostToDevice));
            cudaEvent_t a, b;
            CUDA_REQUIRE(cudaEventCreate(&a));
            CUDA_REQUIRE(cudaEventCreate(&b));
            float best = 1e30f;
            for (int r = 0; r < 5; r++) {
                CUDA_REQUIRE(cudaEventRecord(a));
                sum_kernel<Acc, T><<<8, kOrderedSumThreads>>>(d8, dn, 8, dout);
                CUDA_REQUIRE(cudaEventRecord(b));
                CUDA_REQUIRE(cudaEventSynchronize(b));
                float ms;
                CUDA_REQUIRE(cudaEventElapsedTime(&ms, a, b));
                best = ms < best ? ms : best;
            }
            printf("%s, one block a sum: 8 sums of 2,000,000 terms at once: %.1f us\n", what,
                   best * 1000.0f);
            size_t o8[8];
            for (int k = 0; k < 8; k++)
                o8[k] = (size_t)k * 2000000;
            size_t *d_o8;
            CUDA_REQUIRE(cudaMalloc(&d_o8, sizeof o8));
            CUDA_REQUIRE(cudaMemcpy(d_o8, o8, sizeof o8, cudaMemcpyHostToDevice));
            void *scr;
            CUDA_REQUIRE(cudaMalloc(&scr, ordered_sums_scratch(8, 2000000)));
            const test_jobs<Acc, T> j8 = {d8, dn, d_o8, dout};
            best = 1e30f;
            for (int r = 0; r < 5; r++) {
                CUDA_REQUIRE(cudaEventRecord(a));
                CUDA_REQUIRE(ordered_sums_launch<Acc>(j8, 8, 2000000, scr, 0));
                CUDA_REQUIRE(cudaEventRecord(b));
                CUDA_REQUIRE(cudaEventSynchronize(b));
                float ms;
                CUDA_REQUIRE(cudaEventElapsedTime(&ms, a, b));
                best = ms < best ? ms : best;
            }
            Acc g8[8];
            CUDA_REQUIRE(cudaMemcpy(g8, dout, sizeof g8, cudaMemcpyDeviceToHost));
            for (int k = 0; k < 8; k++)
                if (!same_bits(g8[k], want[c0])) {
                    fprintf(stderr, "%s: timed sum %d differs\n", what, k);
                    failures++;
                }
            printf("%s, many blocks a sum: 8 sums of 2,000,000 terms at once: %.1f us\n", what,
                   best * 1000.0f);
            CUDA_REQUIRE(cudaFree(scr));
            CUDA_REQUIRE(cudaFree(d_o8));
            CUDA_REQUIRE(cudaFree(d8));
            CUDA_REQUIRE(cudaEventDestroy(a));
            CUDA_REQUIRE(cudaEventDestroy(b));
        }
    }
    CUDA_REQUIRE(cudaFree(d));
    CUDA_REQUIRE(cudaFree(dn));
    CUDA_REQUIRE(cudaFree(dout));
    free(h);
    free(want);
    free(got);
}

} // namespace

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    quick = getenv("FOVEA_ORDERED_QUICK") && *getenv("FOVEA_ORDERED_QUICK") == '1';
    run<double, float>("double += float");
    run<float, float>("float += float");
    run<double, double>("double += double");
    if (failures) {
        fprintf(stderr, "test_gpu_ordered_sum: %d sums differ from the sequential loop\n",
                failures);
        return 1;
    }
    printf("test_gpu_ordered_sum: every sum identical to the sequential loop\n");
    return 0;
}
