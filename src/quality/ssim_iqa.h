/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The IQA-style SSIM arithmetic libvmaf's float_ssim and float_ms_ssim share
 * (libvmaf's iqa/ folder: separable 11x11 Gaussian window over the "valid"
 * region, mirror-bordered decimation), reproduced to the float: the same
 * float/double types and the same order of every sum. docs/quality.md gives
 * the evaluation order stage by stage. */
#ifndef FOVEA_QUALITY_SSIM_IQA_H
#define FOVEA_QUALITY_SSIM_IQA_H

#include <stddef.h>
#include <stdint.h>

/* The Gaussian window's width and height. */
#define IQA_WINDOW 11

/* libvmaf's 1-D Gaussian taps (sigma 1.5), as libvmaf rounds them. */
extern const float iqa_gauss[IQA_WINDOW];

/* The SSIM constants C1, C2 and C3 = C2 / 2 of L 255, as libvmaf rounds them. */
void iqa_ssim_constants(float *c1, float *c2, float *c3);

/* Means over the valid region of one SSIM map (libvmaf rounds them to float). */
typedef struct iqa_ssim_means {
    float ssim, l, c, s;
} iqa_ssim_means;

/* Scratch of iqa_ssim for images up to max_w wide. */
typedef struct iqa_ssim_work {
    int max_w;
    float *prod; /* 3 x max_w: a row's ref*ref, cmp*cmp, ref*cmp */
    float *ring; /* IQA_WINDOW rows x 5 images x max_w: horizontal pass results */
    double *acc; /* max_w: per-column double sums */
    float *vert; /* 5 x max_w: one output row of the five windowed images */
    double *lcs; /* 3 x max_w: one output row's l, c and s */
} iqa_ssim_work;

/* @return 0, or -1 out of memory (wk zeroed then). */
int iqa_ssim_work_init(iqa_ssim_work *wk, int max_w);
void iqa_ssim_work_free(iqa_ssim_work *wk);

/* A plane of w x h samples (8-bit, or 16-bit little-endian containers for bpc
 * > 8) as floats on libvmaf's 8-bit scale: sample / 2^(bpc - 8), exact. dst
 * is w floats per row (stride w). */
void iqa_load(const uint8_t *src, ptrdiff_t stride, int w, int h, int bpc, float *dst);

/* libvmaf's _iqa_ssim with default arguments (K1 0.01, K2 0.03, L 255,
 * alpha = beta = gamma = 1) on w x h images of stride w: the means of the SSIM
 * map and of its l, c, s terms over the (w - 10) x (h - 10) valid positions
 * (sums of zero terms divided by that product when it is not positive, as
 * libvmaf does). */
void iqa_ssim(const float *ref, const float *cmp, int w, int h, iqa_ssim_work *wk,
              iqa_ssim_means *out);

/* The size libvmaf's _iqa_decimate gives: w / factor + (w & 1) (sic: the
 * parity of w, not a ceiling). */
int iqa_decimated(int n, int factor);

/* 1 when decimating w x h by factor with a k x k kernel reads only inside the
 * image (libvmaf mirrors each coordinate once; beyond that it reads outside
 * its buffer). */
int iqa_decimate_fits(int w, int h, int factor, int k);

/* libvmaf's _iqa_decimate: dst[y][x] = the k x k kernel (row-major floats)
 * centred at (x * factor, y * factor) of src, mirrored at the borders, for
 * the iqa_decimated() size. dst may be src (in place, in libvmaf's raster
 * order). cols is scratch of iqa_decimated(w, factor) * k ints, acc (unused
 * in place) of iqa_decimated(w, factor) doubles. Needs iqa_decimate_fits(). */
void iqa_decimate(const float *src, int w, int h, int factor, const float *kernel, int k,
                  float *dst, int *cols, double *acc);

/* libvmaf float_ssim's automatic scale: max(1, round(min(w, h) / 256)) with its
 * float rounding. */
int iqa_auto_scale(int w, int h);

/* libvmaf's dB conversion of an SSIM score: min(-10 log10(1 - score), max_db),
 * max_db = ceil(10 log10(peak^2 / (0.5 / (w h)))) with clip, else infinity. */
double iqa_max_db(int w, int h, int bpc, int clip);
double iqa_db(double score, double max_db);

#endif
