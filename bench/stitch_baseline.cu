/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Baseline for bench_stitch: the kernel shape the users run today (see
// stitch_baseline.h). Written plainly on purpose; it is the yardstick.
// stitch_baseline_fast.cu compiles this file again with --use_fast_math
// (powf -> __powf, approximate divisions) under another entry name.
#ifndef BASELINE_ENTRY
#define BASELINE_ENTRY bench_baseline_stitch
#endif
#include <cuda_runtime.h>

#include "stitch_baseline.h"

// Manual bilinear sample of the three color channels at (x, y), four 32-bit
// texel loads from global memory; 0 outside the image.
__device__ static void sample_rgb(const uint8_t *img, int stride, int w, int h, float x, float y,
                                  float out[3])
{
    out[0] = out[1] = out[2] = 0.0f;
    if (x < 0.0f || y < 0.0f || x > (float)(w - 1) || y > (float)(h - 1))
        return;
    int x0 = (int)floorf(x), y0 = (int)floorf(y);
    int x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1);
    float fx = x - (float)x0, fy = y - (float)y0;
    uchar4 p00 = *reinterpret_cast<const uchar4 *>(img + (size_t)y0 * stride + 4 * x0);
    uchar4 p10 = *reinterpret_cast<const uchar4 *>(img + (size_t)y0 * stride + 4 * x1);
    uchar4 p01 = *reinterpret_cast<const uchar4 *>(img + (size_t)y1 * stride + 4 * x0);
    uchar4 p11 = *reinterpret_cast<const uchar4 *>(img + (size_t)y1 * stride + 4 * x1);
    float w00 = (1.0f - fx) * (1.0f - fy), w10 = fx * (1.0f - fy);
    float w01 = (1.0f - fx) * fy, w11 = fx * fy;
    out[0] = w00 * p00.x + w10 * p10.x + w01 * p01.x + w11 * p11.x;
    out[1] = w00 * p00.y + w10 * p10.y + w01 * p01.y + w11 * p11.y;
    out[2] = w00 * p00.z + w10 * p10.z + w01 * p01.z + w11 * p11.z;
}

__global__ static void baseline_kernel(baseline_args a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= a.pano_w || j >= a.pano_h)
        return;
    size_t p = (size_t)j * a.pano_w + i;
    float lx = a.lx[p], ly = a.ly[p], rx = a.rx[p], ry = a.ry[p];
    float wl = a.wl[p], wr = a.wr[p];
    float l[3], r[3];
    sample_rgb(a.left, a.left_stride, a.cam_w, a.cam_h, lx, ly, l);
    sample_rgb(a.right, a.right_stride, a.cam_w, a.cam_h, rx, ry, r);
    uchar4 o;
    unsigned char *oc = &o.x;
    for (int ch = 0; ch < 3; ch++) {
        float lc = 255.0f * powf(fminf(1.0f, a.gain_l[ch] * l[ch] / 255.0f), a.gamma_l);
        float rc = 255.0f * powf(fminf(1.0f, a.gain_r[ch] * r[ch] / 255.0f), a.gamma_r);
        float v = wl * lc + wr * rc;
        oc[ch] = (unsigned char)fminf(255.0f, fmaxf(0.0f, v + 0.5f));
    }
    o.w = (wl + wr) > 0.0f ? 255 : 0;
    *reinterpret_cast<uchar4 *>(a.out + (size_t)j * a.out_stride + 4 * i) = o;
}

extern "C" int BASELINE_ENTRY(const baseline_args *a, void *stream)
{
    dim3 block(32, 8);
    dim3 grid((a->pano_w + 31) / 32, (a->pano_h + 7) / 8);
    baseline_kernel<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(*a);
    return (int)cudaGetLastError();
}
