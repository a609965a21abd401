/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The per-pixel arithmetic of the CAMBI kernels (cambi.cu), as inline
 * functions compiled for the device there and for the host by the CPU
 * emulation test (tests/test_quality_cambi_emul.c), which runs the kernels'
 * arithmetic pixel by pixel against cambi_ref.c. Dense images (pitch =
 * width). */
#ifndef FOVEA_QUALITY_CAMBI_PIXEL_H
#define FOVEA_QUALITY_CAMBI_PIXEL_H

#include <stddef.h>
#include <stdint.h>

#include "quality/cambi_cuda.h"

#ifdef __CUDACC__
#define CAMBI_HD __host__ __device__ __forceinline__
#else
#define CAMBI_HD static inline
#endif

/* a * b rounded once (never contracted on the device) */
CAMBI_HD float cambi_px_fmul(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

/* not counted in a window: unmasked, out of the band or outside */
#define CAMBI_NO_KEY 0xffffu

CAMBI_HD unsigned cambi_px_sample(const uint8_t *src, ptrdiff_t stride, int bpc, int x, int y)
{
    const uint8_t *row = src + (ptrdiff_t)y * stride;
    if (bpc == 8)
        return row[x];
    return (unsigned)row[2 * x] | (unsigned)row[2 * x + 1] << 8;
}

/* The sample as 10 bits: shifted up from 8, rounded down from 12 and 16. */
CAMBI_HD int cambi_px_10b(unsigned v, int bpc)
{
    if (bpc <= 10)
        return (uint16_t)(v << (10 - bpc));
    const int sh = bpc - 10;
    return (uint16_t)((v + (1u << (sh - 1))) >> sh);
}

CAMBI_HD int cambi_px_scaled(const cambi_cuda_pre *a, int x, int y)
{
    return cambi_px_10b(cambi_px_sample(a->src, a->stride, a->bpc, a->pos_x[x], a->pos_y[y]),
                        a->bpc);
}

/* Output (x, y) of the scaling. The C reference anti-dithers in place,
 * reading only samples it has not written yet: each output is the mean of the
 * scaled samples at and right of / below it. */
CAMBI_HD uint16_t cambi_px_pre(const cambi_cuda_pre *a, int x, int y)
{
    int v = cambi_px_scaled(a, x, y);
    if (a->dither) {
        const int right = x < a->ow - 1, below = y < a->oh - 1;
        if (right && below)
            v = (v + cambi_px_scaled(a, x + 1, y) + cambi_px_scaled(a, x, y + 1) +
                 cambi_px_scaled(a, x + 1, y + 1)) >>
                2;
        else if (below)
            v = (v + cambi_px_scaled(a, x, y + 1)) >> 1;
        else if (right)
            v = (v + cambi_px_scaled(a, x + 1, y)) >> 1;
    }
    return (uint16_t)v;
}

CAMBI_HD unsigned cambi_px_flat(const uint16_t *img, int w, int h, int x, int y)
{
    const uint16_t *p = img + (size_t)y * (size_t)w + (size_t)x;
    return (x == w - 1 || p[0] == p[1]) && (y == h - 1 || p[0] == p[w]);
}

/* 1 where the clipped 7x7 window holds more than threshold flat samples. */
CAMBI_HD uint8_t cambi_px_mask(const uint16_t *img, int w, int h, int x, int y, uint32_t threshold)
{
    const int x0 = x - 3 < 0 ? 0 : x - 3, x1 = x + 3 >= w ? w - 1 : x + 3;
    const int y0 = y - 3 < 0 ? 0 : y - 3, y1 = y + 3 >= h ? h - 1 : y + 3;
    uint32_t sum = 0;
    for (int yy = y0; yy <= y1; yy++)
        for (int xx = x0; xx <= x1; xx++)
            sum += cambi_px_flat(img, w, h, xx, yy);
    return sum > threshold;
}

/* the value two of three share, else the smallest (symmetric in a, b, c) */
CAMBI_HD uint16_t cambi_px_mode3(uint16_t a, uint16_t b, uint16_t c)
{
    if (a == b || a == c)
        return a;
    if (b == c)
        return b;
    return a <= b && a <= c ? a : b <= c ? b : c;
}

CAMBI_HD uint16_t cambi_px_hmode(const uint16_t *in, int w, int x, int y)
{
    const uint16_t *r = in + (size_t)y * (size_t)w;
    if (x == 0 || x == w - 1)
        return r[x];
    return cambi_px_mode3(r[x - 1], r[x], r[x + 1]);
}

/* The horizontal mode (edge columns kept), then the vertical mode of three
 * such rows; the first and last rows keep their samples. */
CAMBI_HD uint16_t cambi_px_mode(const uint16_t *in, int w, int h, int x, int y)
{
    if (y == 0 || y == h - 1)
        return in[(size_t)y * (size_t)w + (size_t)x];
    return cambi_px_mode3(cambi_px_hmode(in, w, x, y - 1), cambi_px_hmode(in, w, x, y),
                          cambi_px_hmode(in, w, x, y + 1));
}

/* The key of a sample: its value when masked and in the band. */
CAMBI_HD uint16_t cambi_px_key(const cambi_cuda_cv *a, uint16_t v, uint8_t m)
{
    return m && (uint16_t)(v - a->band_base) < a->band_size ? v : (uint16_t)CAMBI_NO_KEY;
}

/* The contrast value of a pixel of key v: win points at the top left key of
 * its window (pitch keys a row); cnt holds 2 num_diffs + 1 counters at
 * cnt[k * cnt_step]. The window counts (the C reference's histogram) of the
 * values v + k - num_diffs, then the largest weighted p0 pk / (p0 + pk). */
CAMBI_HD float cambi_px_cvalue(const cambi_cuda_cv *a, const uint16_t *win, int pitch, uint16_t v,
                               uint16_t *cnt, int cnt_step)
{
    if (v == CAMBI_NO_KEY)
        return 0.0f;
    const int nd = a->num_diffs, span = 2 * nd + 1, size = a->window;
    for (int k = 0; k < span; k++)
        cnt[k * cnt_step] = 0;
    for (int r = 0; r < size; r++) {
        const uint16_t *row = win + (ptrdiff_t)r * pitch;
        for (int c = 0; c < size; c++) {
            const unsigned k = (unsigned)((int)row[c] - (int)v + nd);
            if (k < (unsigned)span)
                cnt[k * cnt_step]++;
        }
    }
    const int value = v + nd;
    const int p0 = cnt[nd * cnt_step];
    float best = 0.0f;
    for (int d = 0; d < nd; d++) {
        if (value > a->tvi[d] || value + d + 1 <= a->vlt_luma)
            continue;
        const int p1 = cnt[(nd + d + 1) * cnt_step];
        const int p2 = cnt[(nd - d - 1) * cnt_step];
        const int pk = p1 > p2 ? p1 : p2;
        const float val = cambi_px_fmul((float)(a->weight[d] * p0 * pk), a->recip[pk + p0]);
        if (val > best)
            best = val;
    }
    return best;
}

/* ---- the top-k sum on the device (feature_cambi_cuda.c: "Pooling") ----
 * A radix select (4 passes of 8 bits over the float bits, which order
 * non-negative floats) finds T, the k-th largest value, and kleft, the copies
 * of T among the k largest; then the values above T are summed exactly in
 * units of 2^-CAMBI_FIX_BITS (128 bits) with the smallest exponent of their
 * last set bit. cambi_topk_mean (cambi_ref.c) turns that into libvmaf's mean
 * when the sequential double sum is exact in any order. */
#define CAMBI_FIX_BITS 40
/* the largest float exponent field whose value fits the 128-bit sum's lanes */
#define CAMBI_FIX_MAX_EXP 146
/* counters of one (picture, scale) in the pair's sums */
enum {
    CAMBI_SUM_LO,
    CAMBI_SUM_HI,
    CAMBI_SUM_LSB,
    CAMBI_SUM_BAD,
    CAMBI_SUM_T,
    CAMBI_SUM_KLEFT,
    CAMBI_SUM_COUNT
};

/* After the histogram hist of digit shift of the values matching prefix under
 * mask: the digit of the kleft-th largest; prefix, mask and kleft narrowed
 * (kleft becomes its rank among the values with the new prefix). */
CAMBI_HD void cambi_px_pick(const uint32_t *hist, int shift, uint32_t *prefix, uint32_t *mask,
                            int32_t *kleft)
{
    uint32_t cum = 0;
    for (int d = 255; d >= 0; d--) {
        if (cum + hist[d] >= (uint32_t)*kleft || d == 0) {
            *prefix |= (uint32_t)d << shift;
            *mask |= 255u << shift;
            *kleft -= (int32_t)cum;
            return;
        }
        cum += hist[d];
    }
}

/* One value of the sum (bits u of a float above T): its units of
 * 2^-CAMBI_FIX_BITS in *units and 100 - the exponent of its last set bit in
 * *lsb (0 for a zero); 0 when it does not fit (denormal, too fine, too
 * large). */
CAMBI_HD int cambi_px_fix(uint32_t u, uint64_t *units, uint32_t *lsb)
{
    *units = 0;
    *lsb = 0;
    if (u == 0)
        return 1;
    const int e = (int)(u >> 23) & 255;
    if (e == 0 || e > CAMBI_FIX_MAX_EXP)
        return 0;
    const uint32_t man = (u & 0x7fffffu) | 0x800000u;
    int tz = 0;
    while (!((man >> tz) & 1u))
        tz++;
    const int last = e - 150 + tz; /* value = man 2^(e - 150) */
    if (last < -CAMBI_FIX_BITS)
        return 0;
    const int sh = e - 150 + CAMBI_FIX_BITS;
    *units = sh >= 0 ? (uint64_t)man << sh : (uint64_t)(man >> -sh);
    *lsb = (uint32_t)(100 - last);
    return 1;
}

#endif
