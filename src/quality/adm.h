/* Internal interface of libvmaf's integer ADM (the `adm` feature extractor of
 * libvmaf 3.2.0): the C reference that the CUDA version will match bit for bit.
 * docs/quality.md ("Integer ADM") describes the arithmetic. */
#ifndef FOVEA_QUALITY_ADM_H
#define FOVEA_QUALITY_ADM_H

#include <stddef.h>
#include <stdint.h>

#define ADM_SCALES 4

/* Smallest width and height: below 33 libvmaf's 4th DWT level reads outside
 * its image (its border index table needs >= 5 input rows and columns) and
 * its cube shifts become negative, so its values are not defined. */
#define ADM_MIN_DIM 33

typedef struct adm_params {
    int width, height;
    int bpc;                   /* 8, 10, 12 or 16 */
    double enhn_gain_limit;    /* adm_enhn_gain_limit, 1..100 (default 100) */
    double norm_view_dist;     /* adm_norm_view_dist, 0.75..24 (default 3.0) */
    int ref_display_height;    /* adm_ref_display_height, 1..4320 (default 1080) */
} adm_params;

/* libvmaf's defaults for a width x height, bpc-bit stream. */
void adm_default_params(adm_params *p, int width, int height, int bpc);

/* One frame pair's values. num/den/aim_num are libvmaf's float per-scale sums
 * (its debug outputs integer_adm_num_scaleN / integer_adm_den_scaleN); the
 * doubles are the features libvmaf prints. */
typedef struct adm_result {
    float num[ADM_SCALES];     /* DLM numerator of each scale */
    float den[ADM_SCALES];     /* denominator of each scale */
    float aim_num[ADM_SCALES]; /* AIM numerator of each scale */
    double num_sum, den_sum;   /* integer_adm_num / integer_adm_den */
    double adm2;               /* integer_adm2 (also integer_adm) */
    double aim;                /* integer_aim */
    double adm3;               /* integer_adm3 */
    double scale[ADM_SCALES];  /* integer_adm_scale0..3 */
} adm_result;

/* The constants of one level (band size, regions, CSF weights, shifts and
 * rounding terms), computed by adm_level_setup with the reference's own
 * expressions: adm_ref.c and the CUDA kernels (adm.cu) both take them from
 * here. Level s (0..3) makes w x h bands from a (2w or 2w-1) x (2h or 2h-1)
 * input. */
typedef struct adm_level {
    int scale;
    int w, h;                  /* band size */
    int sl, st, sr, sb;        /* scored region: columns [sl, sr), rows [st, sb) */
    int wl, wt, wr, wb;        /* work region (decoupling, CSF), clipped to the band */
    /* DWT rounding: vertical (S - v_sub + v_add) >> v_shift (v_sub: low-pass
     * only), horizontal (S + h_add) >> h_shift */
    int64_t v_sub, v_add, h_add;
    int v_shift, h_shift;
    uint32_t q[3];             /* CSF weights (Q21, Q21, Q23 at level 0; Q32 above) */
    /* denominator: level 0 sums x^3 per row; levels 1..3 sum
     * ((((x*x + 2^den_sq) >> den_sq) * x + den_cub_round) >> den_cub_shift);
     * each row's sum is added as (row + den_row_round) >> den_row_shift */
    uint32_t den_sq, den_cub_shift, den_row_shift;
    uint64_t den_cub_round, den_row_round;
    double den_scale;          /* the sum is divided by this (shift_csf) */
    /* numerator: per pixel (X2*X + num_cub_round[b]) >> num_cub_shift[b], rows
     * added as (row + num_row_round) >> num_row_shift */
    uint32_t num_cub_shift[3], num_row_shift;
    int64_t num_cub_round[3], num_row_round;
} adm_level;

/* Fill L for level `scale` of a p->width x p->height stream. */
void adm_level_setup(const adm_params *p, int scale, adm_level *L);

/* The angle test's constant cos(1 degree)^2 as libvmaf rounds it (float). */
float adm_cos_1deg_sq(void);

/* The float denominator of a level from its three 64-bit band sums (h, v, d),
 * and the float numerator from its three band sums with noise weight nw
 * (ADM_NOISE_WEIGHT for DLM, 0 for AIM): the cube roots and noise floors,
 * in libvmaf's float/double steps. */
float adm_den_float(const adm_params *p, const adm_level *L, const uint64_t acc[3]);
float adm_num_float(const adm_params *p, const adm_level *L, const int64_t acc[3], double nw);

/* The doubles of out (num_sum .. scale[]) from its floats num/den/aim_num. */
void adm_finish(const adm_params *p, adm_result *out);

#define ADM_NOISE_WEIGHT 0.03125 /* adm_noise_weight */

typedef struct adm_state adm_state;

/* Buffers for one size; FOVEA_ERR_INVALID_ARG for parameters libvmaf refuses
 * (or sizes below ADM_MIN_DIM / above FOVEA_MAX_DIM), FOVEA_ERR_NOMEM. */
int adm_open(adm_state **st, const adm_params *p);
void adm_close(adm_state **st);

/* Score one pair of luma planes of the opened size and depth: 8-bit samples,
 * or 16-bit little-endian containers above 8 bits; strides in bytes. */
void adm_compute(adm_state *st, const uint8_t *ref, ptrdiff_t ref_stride, const uint8_t *dis,
                 ptrdiff_t dis_stride, adm_result *out);

#endif
