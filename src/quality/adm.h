/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal interface of libvmaf's integer ADM (the `adm` feature extractor of
 * libvmaf 3.2.0): the C reference that the CUDA version will match bit for bit.
 * docs/quality.md ("Integer ADM") describes the arithmetic. */
#ifndef FOVEA_QUALITY_ADM_H
#define FOVEA_QUALITY_ADM_H

#include <stddef.h>
#include <stdint.h>

#include "fovea/fovea.h"
#include "quality/feature.h"

#define ADM_SCALES 4

/* Smallest width and height: below 33 libvmaf's 4th DWT level reads outside
 * its image (its border index table needs >= 5 input rows and columns) and
 * its cube shifts become negative, so its values are not defined. */
#define ADM_MIN_DIM 33

/* adm_csf_mode: the contrast sensitivity function that weights the bands. */
enum {
    ADM_CSF_WATSON97 = 0, /* Watson et al. 1997's DWT thresholds (default) */
    ADM_CSF_BARTEN,       /* Barten's CSF as in HDR-VDP-2, at 100 cd/m2, times adm_csf_scale
                             (h, v) and adm_csf_diag_scale (d) */
    ADM_CSF_BLEND,        /* libvmaf's tabulated Barten/Watson blend (the v1 models) */
    ADM_CSF_BLEND_MAE,    /* the same, its later tables */
    ADM_CSF_MODES
};

typedef struct adm_params {
    int width, height;
    int bpc;                /* 8, 10, 12 or 16 */
    double enhn_gain_limit; /* adm_enhn_gain_limit, 1..100 (default 100) */
    double norm_view_dist;  /* adm_norm_view_dist, 0.75..24 (default 3.0) */
    int ref_display_height; /* adm_ref_display_height, 1..4320 (default 1080) */
    int csf_mode;           /* adm_csf_mode, ADM_CSF_* (default Watson97) */
    double csf_scale;       /* adm_csf_scale, 0..50 (default 1; Barten only) */
    double csf_diag_scale;  /* adm_csf_diag_scale, 0..50 (default 1; Barten only) */
    double noise_weight;    /* adm_noise_weight, 0..1500 (default ADM_NOISE_WEIGHT): the
                               noise floor of the DLM numerator and the denominator */
    /* what only the derivation of the doubles uses */
    double dlm_weight; /* adm_dlm_weight, 0..1 (default 0.5): integer_adm3's mix */
    double min_val;    /* adm_min_val, 0..1 (default 0): integer_adm3's floor */
    int skip_aim;      /* adm_skip_aim: AIM numerators 0 */
    int skip_scale0;   /* adm_skip_scale0: level 0 scores nothing (numerator 0,
                          denominator 1e-10f) */
} adm_params;

/* 1 when the blend modes (ADM_CSF_BLEND, ADM_CSF_BLEND_MAE) have weights for a
 * viewing distance and display height (libvmaf tabulates 480, 720, 1080 and
 * 2160 lines at 3 and 5 H, and 2160 lines at 1.5 H). */
int adm_csf_blend_supported(double norm_view_dist, int ref_display_height);

/* libvmaf's defaults for a width x height, bpc-bit stream. */
void adm_default_params(adm_params *p, int width, int height, int bpc);

/* The feature "adm" (feature_adm.c): its options, in table order, and the
 * parameters of an extractor's setup. */
enum {
    ADM_OPT_CSF_DIAG_SCALE = 0,
    ADM_OPT_CSF_MODE,
    ADM_OPT_CSF_SCALE,
    ADM_OPT_DLM_WEIGHT,
    ADM_OPT_GAIN_LIMIT,
    ADM_OPT_MIN_VAL,
    ADM_OPT_NOISE_WEIGHT,
    ADM_OPT_VIEW_DIST,
    ADM_OPT_DISPLAY_HEIGHT,
    ADM_OPT_SKIP_AIM,
    ADM_OPT_SKIP_SCALE0,
    ADM_OPT_DEBUG,
    ADM_OPTIONS
};
extern const feature_def feature_adm;
void adm_params_from_opts(adm_params *p, const feature_setup *s);
/* The options of o into p (sizes and depth untouched). */
void adm_params_set_opts(adm_params *p, const feature_opts *o);

/* What a backend computes per frame pair: libvmaf's float per-scale sums (its
 * debug outputs integer_adm_num_scaleN / integer_adm_den_scaleN, and the AIM
 * numerators). Every reported double is derived from them by adm_derive. */
typedef struct adm_raw {
    float num[ADM_SCALES];     /* DLM numerator of each scale */
    float den[ADM_SCALES];     /* denominator of each scale */
    float aim_num[ADM_SCALES]; /* AIM numerator of each scale */
} adm_raw;

/* One frame pair's values: the raw sums and the doubles libvmaf prints. */
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

/* For backends other than adm_ref.c's (the CUDA kernels, adm.cu): the
 * integer constants of one level, computed by the reference's own
 * expressions, and the float steps from a level's 64-bit sums. */
typedef struct adm_level {
    int scale;
    int w, h;           /* band size */
    int sl, st, sr, sb; /* scored region: columns [sl, sr), rows [st, sb) */
    /* DWT rounding: vertical (S - v_sub + v_add) >> v_shift (v_sub for the
     * low-pass sum only), horizontal (S + h_add) >> h_shift */
    int64_t v_sub, v_add, h_add;
    int v_shift, h_shift;
    uint32_t q[3]; /* CSF weights (Q21, Q21, Q23 at level 0; Q32 above) */
    /* denominator: level 0 sums |x|^3 over a row; levels 1..3 sum
     * ((((x*x + 2^den_sq) >> den_sq) * |x| + den_cub_round) >> den_cub_shift);
     * each row's sum is added as (row + den_row_round) >> den_row_shift */
    uint32_t den_sq, den_cub_shift, den_row_shift;
    uint64_t den_cub_round, den_row_round;
    /* numerators: per sample (X2*X + num_cub_round[b]) >> num_cub_shift[b],
     * each row's sum added as (row + num_row_round) >> num_row_shift */
    uint32_t num_cub_shift[3], num_row_shift;
    int64_t num_cub_round[3], num_row_round;
} adm_level;

/* Fill L for level `scale` (0..3) of a p->width x p->height stream. */
void adm_level_setup(const adm_params *p, int scale, adm_level *L);

/* The angle test's cos(1 degree)^2, rounded to float as libvmaf does. */
float adm_cos_1deg_sq(void);

/* The float denominator of a level from its sums (h, v, d; unsigned 64-bit
 * values in int64 storage; noise weight p->noise_weight), and a numerator
 * from its sums with noise weight nw (p->noise_weight for DLM, 0 for AIM):
 * adm_raw's den / num / aim_num. */
float adm_den_float(const adm_params *p, int scale, const int64_t sums[3]);
float adm_num_float(const adm_params *p, int scale, const int64_t sums[3], double nw);

/* Rounding of the two DWT passes of a level: (sum - sub + add) >> shift; the
 * vertical (vr) and horizontal (hr) ones of level `scale` (adm_level.c). */
typedef struct adm_dwt_round {
    int64_t sub, add;
    int shift;
} adm_dwt_round;
void adm_dwt_rounding(int bpc, int scale, adm_dwt_round *vr, adm_dwt_round *hr);

/* libvmaf's adm_noise_weight. */
#define ADM_NOISE_WEIGHT 0.03125

typedef struct adm_state adm_state;

/* Buffers for one size; FOVEA_ERR_INVALID_ARG for parameters libvmaf refuses
 * (or sizes below ADM_MIN_DIM / above FOVEA_MAX_DIM), FOVEA_ERR_NOMEM. */
int adm_open(adm_state **st, const adm_params *p);
void adm_close(adm_state **st);

/* The doubles of a width x height frame's result from its raw sums (out's
 * float fields are set to raw's), in libvmaf's order of operations, with
 * libvmaf's default options. */
void adm_derive(const adm_raw *raw, int width, int height, adm_result *out);

/* The same with the options of p (dlm_weight, min_val, skip_aim and
 * skip_scale0 act here: raw's skipped values are ignored). */
void adm_derive_params(const adm_params *p, const adm_raw *raw, adm_result *out);

/* Score one pair of luma planes of the opened size and depth: 8-bit samples,
 * or 16-bit little-endian containers above 8 bits; strides in bytes. */
void adm_compute(adm_state *st, const uint8_t *ref, ptrdiff_t ref_stride, const uint8_t *dis,
                 ptrdiff_t dis_stride, adm_result *out);

/* Per-thread scratch for n threads (adm_open makes it for 1), so that
 * adm_compute_raw can split a pair over a context of n threads.
 * @return FOVEA_OK or FOVEA_ERR_NOMEM */
int adm_reserve_threads(adm_state *st, int n);

/* The raw sums of one pair (adm_compute is this and adm_derive). The work is
 * split over ctx's threads by rows when scratch for them was reserved (else,
 * and with ctx NULL, it runs on the calling thread); the sums are the same
 * bits for any thread count. */
void adm_compute_raw(adm_state *st, fovea_context *ctx, const uint8_t *ref, ptrdiff_t ref_stride,
                     const uint8_t *dis, ptrdiff_t dis_stride, adm_raw *out);

/* 1 when the CPU has AVX2 and the environment does not set FOVEA_SIMD=0 (read
 * once per process): adm_open then picks the hand-written AVX2 row passes
 * (adm_avx2.c), which give the same integers as the C reference. */
int adm_simd_default(void);

/* Use the AVX2 row passes (on != 0, when the CPU has AVX2, whatever
 * FOVEA_SIMD says) or the C reference's; returns the choice in effect. For
 * tests comparing both. */
int adm_set_simd(adm_state *st, int on);

#endif
