/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The feature "float_ms_ssim": libvmaf's float MS-SSIM (its `float_ms_ssim`
 * feature extractor: Wang's five scales, each an SSIM of ssim_iqa.c on
 * pictures halved by a 9x9 low-pass), its options and a C extractor. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "quality/feature.h"
#include "quality/ssim_feature.h"
#include "quality/ssim_iqa.h"

/* Options in table (alphabetical) order (ssim_feature.h); none is a feature
 * parameter in libvmaf. */

static const feature_option ms_options[MS_OPTIONS] = {
    [MS_OPT_CLIP_DB] = {"clip_db", "clip_db", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 0, NULL},
    [MS_OPT_ENABLE_DB] = {"enable_db", "enable_db", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 0, NULL},
    [MS_OPT_ENABLE_LCS] = {"enable_lcs", "enable_lcs", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 0, NULL},
};

static const feature_output ms_outputs[1 + 3 * MS_SCALES] = {
    {"float_ms_ssim", NULL, 0},          {"float_ms_ssim_l_scale0", NULL, 0},
    {"float_ms_ssim_l_scale1", NULL, 0}, {"float_ms_ssim_l_scale2", NULL, 0},
    {"float_ms_ssim_l_scale3", NULL, 0}, {"float_ms_ssim_l_scale4", NULL, 0},
    {"float_ms_ssim_c_scale0", NULL, 0}, {"float_ms_ssim_c_scale1", NULL, 0},
    {"float_ms_ssim_c_scale2", NULL, 0}, {"float_ms_ssim_c_scale3", NULL, 0},
    {"float_ms_ssim_c_scale4", NULL, 0}, {"float_ms_ssim_s_scale0", NULL, 0},
    {"float_ms_ssim_s_scale1", NULL, 0}, {"float_ms_ssim_s_scale2", NULL, 0},
    {"float_ms_ssim_s_scale3", NULL, 0}, {"float_ms_ssim_s_scale4", NULL, 0},
};

_Static_assert(sizeof(ms_raw) <= FEATURE_RAW_BYTES, "ms_raw fits a feature_raw");

/* libvmaf's exponents per scale (Wang et al.), as floats. */
static const float ms_alpha[MS_SCALES] = {0.0000f, 0.0000f, 0.0000f, 0.0000f, 0.1333f};
static const float ms_beta[MS_SCALES] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};
static const float ms_gamma[MS_SCALES] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};

/* The 9x9 low-pass of libvmaf's decimation (9/7 biorthogonal wavelet), as
 * libvmaf rounds it: a 2-D table, not the product of its 1-D taps. */
const float ms_lpf[MS_LPF * MS_LPF] = {
    0.000714f, -0.000450f, -0.002090f, 0.007132f,  0.016114f,  0.007132f,  -0.002090f, -0.000450f,
    0.000714f, -0.000450f, 0.000283f,  0.001316f,  -0.004490f, -0.010146f, -0.004490f, 0.001316f,
    0.000283f, -0.000450f, -0.002090f, 0.001316f,  0.006115f,  -0.020867f, -0.047149f, -0.020867f,
    0.006115f, 0.001316f,  -0.002090f, 0.007132f,  -0.004490f, -0.020867f, 0.071207f,  0.160885f,
    0.071207f, -0.020867f, -0.004490f, 0.007132f,  0.016114f,  -0.010146f, -0.047149f, 0.160885f,
    0.363505f, 0.160885f,  -0.047149f, -0.010146f, 0.016114f,  0.007132f,  -0.004490f, -0.020867f,
    0.071207f, 0.160885f,  0.071207f,  -0.020867f, -0.004490f, 0.007132f,  -0.002090f, 0.001316f,
    0.006115f, -0.020867f, -0.047149f, -0.020867f, 0.006115f,  0.001316f,  -0.002090f, -0.000450f,
    0.000283f, 0.001316f,  -0.004490f, -0.010146f, -0.004490f, 0.001316f,  0.000283f,  -0.000450f,
    0.000714f, -0.000450f, -0.002090f, 0.007132f,  0.016114f,  0.007132f,  -0.002090f, -0.000450f,
    0.000714f,
};

int ms_combine(ms_raw *m)
{
    m->msssim = 1.0;
    for (int k = 0; k < MS_SCALES; k++) {
        m->msssim *=
            pow(m->l[k], ms_alpha[k]) * pow(m->c[k], ms_beta[k]) * pow(m->s[k], ms_gamma[k]);
        if (m->msssim == INFINITY)
            return k;
    }
    return -1;
}

static int ms_count(const feature_opts *o)
{
    return o->v[MS_OPT_ENABLE_LCS] != 0.0 ? 1 + 3 * MS_SCALES : 1;
}

static void ms_derive(const feature_opts *o, const feature_frame *f, const feature_raw *r,
                      const feature_raw *const *next, double *state, double *out)
{
    (void)next;
    (void)state;
    ms_raw m;
    memcpy(&m, r->b, sizeof(m));
    out[0] = m.msssim;
    if (o->v[MS_OPT_ENABLE_DB] != 0.0)
        out[0] =
            iqa_db(out[0], iqa_max_db(f->width, f->height, f->bpc, o->v[MS_OPT_CLIP_DB] != 0.0));
    for (int k = 0; k < MS_SCALES; k++) {
        out[1 + k] = (double)m.l[k];
        out[1 + MS_SCALES + k] = (double)m.c[k];
        out[1 + 2 * MS_SCALES + k] = (double)m.s[k];
    }
}

const feature_def feature_float_ms_ssim = {
    "float_ms_ssim",
    "float_ms_ssim (five scales)",
    0,
    MS_MIN_DIM,
    11, /* the two pictures as floats at every scale */
    MS_OPTIONS,
    ms_options,
    1 + 3 * MS_SCALES,
    ms_outputs,
    ms_count,
    NULL,
    ms_derive,
    NULL,
    .aggregate = NULL,
};

/* ---------------------------------------------------------------- C extractor */

typedef struct ms_cpu {
    int bpc;
    int w[MS_SCALES], h[MS_SCALES];
    float *ref[MS_SCALES], *dis[MS_SCALES];
    int *cols; /* decimation scratch */
    iqa_ssim_work work;
} ms_cpu;

static void cpu_close(void **priv)
{
    ms_cpu *st = priv ? *priv : NULL;
    if (!st)
        return;
    for (int k = 0; k < MS_SCALES; k++) {
        free(st->ref[k]);
        free(st->dis[k]);
    }
    free(st->cols);
    iqa_ssim_work_free(&st->work);
    free(st);
    *priv = NULL;
}

static int cpu_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    if (s->width < MS_MIN_DIM || s->height < MS_MIN_DIM)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "vmaf: float_ms_ssim needs at least %dx%d (five scales of the "
                            "11x11 window); the picture is %dx%d",
                            MS_MIN_DIM, MS_MIN_DIM, s->width, s->height);
    ms_cpu *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->bpc = s->bpc;
    int ok = 1;
    for (int k = 0; k < MS_SCALES; k++) {
        st->w[k] = k ? iqa_decimated(st->w[k - 1], 2) : s->width;
        st->h[k] = k ? iqa_decimated(st->h[k - 1], 2) : s->height;
        const size_t n = (size_t)st->w[k] * (size_t)st->h[k];
        st->ref[k] = malloc(n * sizeof(float));
        st->dis[k] = malloc(n * sizeof(float));
        ok = ok && st->ref[k] && st->dis[k];
    }
    st->cols = malloc((size_t)st->w[1] * MS_LPF * sizeof(int));
    if (!ok || !st->cols || iqa_ssim_work_init(&st->work, s->width) != 0) {
        cpu_close((void **)&st);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    }
    *priv = st;
    return FOVEA_OK;
}

static int cpu_extract(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw)
{
    ms_cpu *st = priv;
    iqa_load(p->ref, p->ref_stride, st->w[0], st->h[0], st->bpc, st->ref[0]);
    iqa_load(p->dis, p->dis_stride, st->w[0], st->h[0], st->bpc, st->dis[0]);
    for (int k = 1; k < MS_SCALES; k++) {
        iqa_decimate(st->ref[k - 1], st->w[k - 1], st->h[k - 1], 2, ms_lpf, MS_LPF, st->ref[k],
                     st->cols, st->work.acc);
        iqa_decimate(st->dis[k - 1], st->w[k - 1], st->h[k - 1], 2, ms_lpf, MS_LPF, st->dis[k],
                     st->cols, st->work.acc);
    }
    ms_raw m;
    memset(&m, 0, sizeof(m));
    for (int k = 0; k < MS_SCALES; k++) {
        iqa_ssim_means sm;
        iqa_ssim(st->ref[k], st->dis[k], st->w[k], st->h[k], &st->work, &sm);
        m.l[k] = sm.l;
        m.c[k] = sm.c;
        m.s[k] = sm.s;
    }
    const int inf = ms_combine(&m);
    if (inf >= 0)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "vmaf: float_ms_ssim is infinite at scale %d (libvmaf fails too)", inf);
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, &m, sizeof(m));
    return FOVEA_OK;
}

const feature_extractor feature_float_ms_ssim_cpu = {
    &feature_float_ms_ssim, FOVEA_BACKEND_CPU, cpu_init, cpu_close, cpu_extract, 0, 0, NULL, NULL,
};
