/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The row passes of the CAMBI C reference (cambi_ref.c runs them over a
 * picture's rows): conversion to 10 bits, anti-dithering, the flat-region
 * mask, decimation, the mode filter, the window histograms and the contrast
 * values. Integer arithmetic except the contrast values' one float product;
 * written so the compiler vectorizes them (cambi_rows.c). Internal. */
#ifndef FOVEA_QUALITY_CAMBI_ROWS_H
#define FOVEA_QUALITY_CAMBI_ROWS_H

#include <stddef.h>
#include <stdint.h>

/* The bitwise OR of n 16-bit samples (a sample above 2^bpc - 1 shows as a
 * bit at or above bpc). */
unsigned cambi_row_or(const uint16_t *row, int n);

/* n samples of bpc bits (bytes at 8, else 16-bit words) as 10 bits: shifted
 * up from 8, rounded down from 12 and 16; returns the OR of the 16-bit
 * samples (0 at 8 bits). */
unsigned cambi_row_to10(const uint8_t *src, int bpc, uint16_t *dst, int n);

/* The anti-dithering of row r (w samples) in place from itself and the row
 * below n (NULL for the last row): the mean of the 2x2 (or 2x1, 1x2) samples
 * at and right of / below each one. */
void cambi_row_dither(uint16_t *r, const uint16_t *n, int w);

/* 1 where a sample equals its right and lower neighbors (below NULL: the
 * last row; the last column counts as equal). */
void cambi_row_flat(const uint16_t *p, const uint16_t *below, int w, uint8_t *out);

/* cols += add - sub (either may be NULL): the column counts of the mask's
 * window. */
void cambi_row_cols(uint8_t *cols, const uint8_t *add, const uint8_t *sub, int w);

/* m[x] = 1 where cols[x - 3] + ... + cols[x + 3] > threshold; cols has 3
 * zeros before its first and after its last column. */
void cambi_row_mask(const uint8_t *cols, int w, unsigned threshold, uint8_t *m);

/* dst[x] = src[2 x] for x < w (dst and src do not overlap). */
void cambi_row_decimate16(uint16_t *dst, const uint16_t *src, int w);
void cambi_row_decimate8(uint8_t *dst, const uint8_t *src, int w);

/* The horizontal mode of three of row in (edge samples kept) into out. */
void cambi_row_hmode(const uint16_t *in, int w, uint16_t *out);

/* out[x] = the mode of a[x], b[x], c[x]. */
void cambi_row_vmode(const uint16_t *a, const uint16_t *b, const uint16_t *c, int w, uint16_t *out);

/* The keys of a row: the histogram row (value - band_base) of a masked
 * sample in the band, else CAMBI_NO_KEY (cambi_pixel.h); 1 when one counts. */
int cambi_row_keys(const uint16_t *img, const uint8_t *mask, int w, uint16_t band_base,
                   uint16_t band_size, uint16_t *keys);

/* One row's change of the window histograms (band_size rows of w counters):
 * the counted samples of the row entering (its keys add) are counted in the
 * columns x - pad .. x + pad, those of the row leaving (sub) removed; either
 * may be NULL. */
typedef struct cambi_hist_rows {
    uint16_t *hist;
    int w, pad;
} cambi_hist_rows;
void cambi_row_hist(const cambi_hist_rows *h, const uint16_t *add, const uint16_t *sub);

/* The contrast values of one row of keys (0 where not counted): per 10-bit
 * sample value v, diffs[v] has bit d set where a difference of d + 1 levels
 * counts; weight[d] and recip as cambi_plan's. */
typedef struct cambi_cv_rows {
    const uint16_t *hist;
    int w;
    uint16_t band_base;
    const uint32_t *diffs;
    const int *weight;
    const float *recip;
} cambi_cv_rows;

/* The exact sum of the nonzero contrast values so far (cambi_pixel.h's fixed
 * point: units of 2^-CAMBI_FIX_BITS, the largest 100 - exponent of a last set
 * bit; bad when a value does not fit) and their count. */
typedef struct cambi_cv_sum {
    uint64_t units_lo, units_hi;
    uint32_t lsb;
    int nonzero, bad;
} cambi_cv_sum;
void cambi_row_cvalues(const cambi_cv_rows *c, const uint16_t *keys, float *cv, cambi_cv_sum *sum);

#endif
