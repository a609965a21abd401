/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Baseline for bench_diff (see diff_baseline.h): the study's design, written
// plainly on purpose; it is the yardstick, not a model.
#include <cuda_runtime.h>

#include "diff_baseline.h"

// The study's coloring: d in [0, 1], three phase-shifted sines, clamped,
// scaled to 0..255.
__device__ static void heat_color(int sum, unsigned char rgb[3])
{
    const float pi = 3.14159265f;
    const float d = (float)sum / 765.0f;
    const float c[3] = {sinf(pi * d - pi / 2), sinf(pi * d), sinf(pi * d + pi / 2)};
    for (int k = 0; k < 3; k++)
        rgb[k] = (unsigned char)(fminf(1.0f, fmaxf(0.0f, c[k])) * 255.0f + 0.5f);
}

__device__ static unsigned int byte_of(const unsigned int w[3], int i)
{
    return (w[i >> 2] >> (8 * (i & 3))) & 255u;
}

// One block walks the frame: thread t takes 4 pixels (12 bytes, three aligned
// 32-bit words of each frame) at a time, 1,024 groups apart.
__global__ static void one_block_kernel(const unsigned int *prev, const unsigned int *cur,
                                        unsigned int *out, int groups)
{
    for (int g = threadIdx.x; g < groups; g += blockDim.x) {
        unsigned int a[3], b[3], o[3] = {0, 0, 0};
        for (int k = 0; k < 3; k++) {
            a[k] = prev[3 * g + k];
            b[k] = cur[3 * g + k];
        }
        for (int p = 0; p < 4; p++) {
            int sum = 0;
            for (int c = 0; c < 3; c++) {
                const int x = (int)byte_of(a, 3 * p + c), y = (int)byte_of(b, 3 * p + c);
                sum += x > y ? x - y : y - x;
            }
            unsigned char rgb[3];
            heat_color(sum, rgb);
            for (int c = 0; c < 3; c++) {
                const int i = 3 * p + c;
                o[i >> 2] |= (unsigned int)rgb[c] << (8 * (i & 3));
            }
        }
        for (int k = 0; k < 3; k++)
            out[3 * g + k] = o[k];
    }
}

__global__ static void per_pixel_kernel(const unsigned char *prev, const unsigned char *cur,
                                        unsigned char *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int sum = 0;
    for (int c = 0; c < 3; c++) {
        const int x = prev[3 * i + c], y = cur[3 * i + c];
        sum += x > y ? x - y : y - x;
    }
    unsigned char rgb[3];
    heat_color(sum, rgb);
    for (int c = 0; c < 3; c++)
        out[3 * i + c] = rgb[c];
}

extern "C" int bench_diff_baseline_one_block(const uint8_t *prev, const uint8_t *cur, uint8_t *out,
                                             int w, int h, void *stream)
{
    const int groups = w * h / 4;
    one_block_kernel<<<1, 1024, 0, static_cast<cudaStream_t>(stream)>>>(
        reinterpret_cast<const unsigned int *>(prev), reinterpret_cast<const unsigned int *>(cur),
        reinterpret_cast<unsigned int *>(out), groups);
    return (int)cudaGetLastError();
}

extern "C" int bench_diff_baseline_per_pixel(const uint8_t *prev, const uint8_t *cur, uint8_t *out,
                                             int w, int h, void *stream)
{
    const int n = w * h;
    per_pixel_kernel<<<(n + 255) / 256, 256, 0, static_cast<cudaStream_t>(stream)>>>(prev, cur, out,
                                                                                     n);
    return (int)cudaGetLastError();
}

// One thread that spins for about `ns` nanoseconds of the GPU's clock.
__global__ static void busy_kernel(long long ns)
{
    long long t0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (;;) {
        long long t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 >= ns)
            break;
        __nanosleep(1000);
    }
}

extern "C" int bench_diff_gpu_busy(void *stream, int us)
{
    busy_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(1000LL * us);
    return (int)cudaGetLastError();
}
