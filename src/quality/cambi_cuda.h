/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launchers of the CAMBI kernels (cambi.cu), callable from C: the
 * per-pixel stages of cambi_ref.c for one picture (scaling to 10 bits with
 * anti-dithering, spatial mask, decimation, mode filter, contrast values).
 * Images are dense (row pitch = width). Each returns the cudaError_t of its
 * launch as an int (0 = success). */
#ifndef FOVEA_QUALITY_CAMBI_CUDA_H
#define FOVEA_QUALITY_CAMBI_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The input picture scaled to ow x oh 10-bit samples at out. */
typedef struct cambi_cuda_pre {
    const uint8_t *src; /* luma: 8-bit samples or 16-bit containers */
    ptrdiff_t stride;   /* bytes */
    int bpc;            /* 8..16 */
    int ow, oh;
    const int *pos_x, *pos_y; /* cambi_positions of the scaling, device */
    int dither;               /* the encode has fewer than 10 bits: 2x2 anti-dithering */
    uint16_t *out;
} cambi_cuda_pre;

int fv_cambi_cuda_preprocess(const cambi_cuda_pre *a, void *stream);

/* mask = 1 where the 7x7 window (clipped) of img holds more than threshold
 * flat samples. */
int fv_cambi_cuda_mask(const uint16_t *img, uint8_t *mask, int w, int h, uint32_t threshold,
                       void *stream);

/* Every other sample of every other row of a w x h picture (w, h: the
 * source's size) into a dense (w + 1) / 2 x (h + 1) / 2 one. */
int fv_cambi_cuda_decimate16(const uint16_t *in, uint16_t *out, int w, int h, void *stream);
int fv_cambi_cuda_decimate8(const uint8_t *in, uint8_t *out, int w, int h, void *stream);

/* The 3x3 mode filter of a w x h picture. */
int fv_cambi_cuda_mode(const uint16_t *in, uint16_t *out, int w, int h, void *stream);

/* The contrast values of a w x h scale: img (mode filtered), mask; one float
 * per pixel into c (0 where the mask is 0 or the value is out of the band). */
typedef struct cambi_cuda_cv {
    const uint16_t *img;
    const uint8_t *mask;
    float *c;
    int w, h;
    int window; /* odd, at most 65 */
    int num_diffs;
    int weight[32]; /* cambi_contrast_weight */
    uint16_t tvi[32];
    uint16_t vlt_luma, band_base, band_size;
    const float *recip; /* CAMBI_RECIP_SIZE floats, device */
} cambi_cuda_cv;

int fv_cambi_cuda_cvalues(const cambi_cuda_cv *a, void *stream);

/* The device's top-k sum of the n values of map (k of them): a radix select
 * then an exact sum, into CAMBI_SUM_COUNT counters at out (cambi_pixel.h;
 * zeroed before). sel: device scratch of CAMBI_CUDA_SEL_WORDS words. */
#define CAMBI_CUDA_SEL_WORDS 260
int fv_cambi_cuda_topk(const float *map, int n, int k, uint32_t *sel, unsigned long long *out,
                       void *stream);

/* sums[z * frame_sums] = first + z for z < n (the pairs' tags). */
int fv_cambi_cuda_tag(unsigned long long *sums, size_t frame_sums, int n, unsigned long long first,
                      void *stream);

#ifdef __cplusplus
}
#endif

#endif
