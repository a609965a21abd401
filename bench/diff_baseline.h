/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The published study's heat-map kernel, reproduced as bench_diff's baseline:
 * one block of 1,024 threads walking the whole RGB24 frame with 4-byte loads,
 * the sum of |cur - prev| of a pixel mapped to blue-green-red with three sinf
 * per pixel; and the same arithmetic with one thread per pixel. */
#ifndef FOVEA_BENCH_DIFF_BASELINE_H
#define FOVEA_BENCH_DIFF_BASELINE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* prev, cur, out: packed RGB24 frames of w x h pixels in device memory (rows
 * without padding; w * h a multiple of 4 for the one-block kernel, whose
 * threads take 4 pixels = three 32-bit words at a time). Each returns the
 * cudaError_t of its launch. */
int bench_diff_baseline_one_block(const uint8_t *prev, const uint8_t *cur, uint8_t *out, int w,
                                  int h, void *stream);
int bench_diff_baseline_per_pixel(const uint8_t *prev, const uint8_t *cur, uint8_t *out, int w,
                                  int h, void *stream);

/* Keep the GPU busy for about us microseconds (one thread spinning on the
 * global timer), so that work queued behind it starts as soon as it ends:
 * events around that work then time the device alone, not the host's
 * launches. */
int bench_diff_gpu_busy(void *stream, int us);

#ifdef __cplusplus
}
#endif

#endif
