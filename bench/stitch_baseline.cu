// Baseline for bench_stitch: the kernel shape the users run today (see
// stitch_baseline.h). Written plainly on purpose; it is the yardstick.
#include <cuda_runtime.h>

#include "stitch_baseline.h"

__device__ static float sample_channel(const uint8_t *img, int stride, int w, int h, float x,
                                       float y, int ch)
{
    if (x < 0.0f || y < 0.0f || x > (float)(w - 1) || y > (float)(h - 1))
        return 0.0f;
    int x0 = (int)floorf(x), y0 = (int)floorf(y);
    int x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1);
    float fx = x - (float)x0, fy = y - (float)y0;
    float p00 = img[(size_t)y0 * stride + 4 * x0 + ch];
    float p10 = img[(size_t)y0 * stride + 4 * x1 + ch];
    float p01 = img[(size_t)y1 * stride + 4 * x0 + ch];
    float p11 = img[(size_t)y1 * stride + 4 * x1 + ch];
    return (1.0f - fy) * ((1.0f - fx) * p00 + fx * p10) + fy * ((1.0f - fx) * p01 + fx * p11);
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
    uint8_t *o = a.out + (size_t)j * a.out_stride + 4 * i;
    for (int ch = 0; ch < 3; ch++) {
        float l = sample_channel(a.left, a.left_stride, a.cam_w, a.cam_h, lx, ly, ch);
        float r = sample_channel(a.right, a.right_stride, a.cam_w, a.cam_h, rx, ry, ch);
        l = 255.0f * powf(fminf(1.0f, a.gain_l[ch] * l / 255.0f), a.gamma_l);
        r = 255.0f * powf(fminf(1.0f, a.gain_r[ch] * r / 255.0f), a.gamma_r);
        float v = wl * l + wr * r;
        o[ch] = (uint8_t)fminf(255.0f, fmaxf(0.0f, v + 0.5f));
    }
    o[3] = (wl + wr) > 0.0f ? 255 : 0;
}

extern "C" int bench_baseline_stitch(const baseline_args *a, void *stream)
{
    dim3 block(32, 8);
    dim3 grid((a->pano_w + 31) / 32, (a->pano_h + 7) / 8);
    baseline_kernel<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(*a);
    return (int)cudaGetLastError();
}
