/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Automatic color balance between cameras: overlap statistics (accumulated in
 * integers so the C and CUDA backends produce identical sums) and the solver
 * that turns them into per-camera gains and gammas. */
#ifndef FOVEA_STITCH_COLOR_H
#define FOVEA_STITCH_COLOR_H

#include <stdint.h>
#include <string.h>
#include "fovea/stitch.h"

#define FOVEA_MAX_PAIRS (FOVEA_STITCH_MAX_CAMERAS * (FOVEA_STITCH_MAX_CAMERAS - 1) / 2)

/* Sums over the pixels of one camera pair's overlap. Each pixel seen by cameras a
 * and b (a < b) with blend weights wa, wb contributes with the integer weight
 * q = round(1024 * wa * wb) (largest at the seam, falling to 0 at the overlap's
 * edges). Its raw (uncorrected) bilinear samples are quantized to quarter code
 * values s = round(4 * value) (0..1020) for R, G, B, and luma
 * Y = (77 R + 150 G + 29 B + 128) >> 8 of those; each goes through the integer
 * log table L(s) = round(-1024 ln(max(s, 4) / 1020)). Accumulated: the weighted
 * log of each channel and of luma, and the weighted square of the luma log.
 * Integers make the C and CUDA sums identical; logs make a gain a shift and a
 * gamma a scale, so the solver can invert both exactly. */
enum {
    FOVEA_ST_W = 0, /* sum of q */
    FOVEA_ST_N = 1, /* pixel count */
    FOVEA_ST_A = 2, /* camera a: q L(R), q L(G), q L(B), q L(Y), q L(Y)^2 */
    FOVEA_ST_B = 7, /* camera b: the same */
    FOVEA_ST_FIELDS = 12
};
#define FOVEA_LOG_TABLE_SIZE 1021
#define FOVEA_LOG_SCALE 1024.0

typedef struct fv_overlap_stats {
    uint64_t v[FOVEA_MAX_PAIRS][FOVEA_ST_FIELDS];
} fv_overlap_stats;

/* The log table L above (identical for both backends; the CUDA stitcher uploads it). */
void fv_color_log_table(int32_t table[FOVEA_LOG_TABLE_SIZE]);

/* Index of pair (a, b), a < b, among n cameras. */
static inline int fv_pair_index(int a, int b, int n)
{
    return a * n - a * (a + 1) / 2 + (b - a - 1);
}

/* Solve for corrections from overlap stats. Cameras in no usable overlap (or when
 * anything is non-finite) keep identity. Returns the number of overlaps used. */
int fv_color_solve(const fv_overlap_stats *st, int n, const fovea_stitcher_settings *s,
                   fovea_color_correction *out);

/* Per-camera correction tables: lut[k][q] is the corrected value of the input
 * q / 4 (q = 0..1020, quarter code values), k = 0..2 for R, G, B (for YUV
 * stitching k = 0 is the luma curve, see stitch.c). */
#define FOVEA_LUT_SIZE 1021
/* Move cur toward target along a straight line in logs of the gains and gammas,
 * by at most max_step (|ln(new/old)| of every value), once the largest
 * distance has exceeded dead_band (*moving keeps the motion going until cur
 * reaches target). Returns 1 when cur changed. */
int fv_color_step(fovea_color_correction *cur, const fovea_color_correction *target, int n,
                  double max_step, double dead_band, int *moving);

void fv_color_build_lut(const fovea_color_correction *cc, float lut[3][FOVEA_LUT_SIZE]);

/* out[q] = b(q)^gamma (gamma > 0) for the quarter codes q = 0..1020, where
 * b(q) = q / 1020 (FOVEA_CURVE_FULL) or, for limited-range luma,
 * (q / 4 - 16) / 219 above q = 64 and 0 up to it (FOVEA_CURVE_LUMA): one exp
 * per entry, the logs of b tabulated once. */
#define FOVEA_CURVE_FULL 0
#define FOVEA_CURVE_LUMA 1
void fv_color_power_curve(int kind, double gamma, double out[FOVEA_LUT_SIZE]);

/* Round a float in [0, 2^22) to the nearest integer, ties to even, the way both
 * backends do it: adding 1.5 * 2^23 leaves the rounded integer in the low
 * mantissa bits (plain IEEE addition; no conversion instruction). */
static inline int fv_round_rne(float x)
{
    float t = x + 12582912.0f;
    uint32_t bits;
    memcpy(&bits, &t, sizeof(bits));
    return (int)(bits - 0x4B400000u);
}

/* Table index of a value: x clamped to [0, 255], in quarter codes, rounded. */
static inline int fv_lut_index(float x)
{
    x = x < 0.0f ? 0.0f : (x > 255.0f ? 255.0f : x);
    return fv_round_rne(x * 4.0f);
}

/* The corrected value of x (in [0, 255] after clamping). */
static inline float fv_lut_apply(const float *lut, float x)
{
    return lut[fv_lut_index(x)];
}

/* 8-bit output of a blended value: clamped to [0, 255], rounded to nearest even
 * (NaN, which no table should hold, gives 0 rather than an undefined conversion). */
static inline uint8_t fv_round_u8(float x)
{
    x = x > 0.0f ? (x < 255.0f ? x : 255.0f) : 0.0f;
    return (uint8_t)fv_round_rne(x);
}

#endif
