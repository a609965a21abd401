/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The feature "float_ssim": libvmaf's float SSIM (its `float_ssim` feature
 * extractor), with its options, its dB conversion and a C extractor over
 * ssim_iqa.c. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "quality/feature.h"
#include "quality/ssim_feature.h"
#include "quality/ssim_iqa.h"

/* Options in table (alphabetical) order (ssim_feature.h); none is a feature
 * parameter in libvmaf, so none suffixes the output names. */

static const feature_option ssim_options[SSIM_OPTIONS] = {
    [SSIM_OPT_CLIP_DB] = {"clip_db", "clip_db", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 0, NULL},
    [SSIM_OPT_ENABLE_DB] = {"enable_db", "enable_db", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 0, NULL},
    [SSIM_OPT_ENABLE_LCS] = {"enable_lcs", "enable_lcs", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 0, NULL},
    /* 0: automatic, max(1, round(min(w, h) / 256)) */
    [SSIM_OPT_SCALE] = {"scale", "scale", FEATURE_OPT_INT, 0.0, 0.0, 10.0, 0, NULL},
};

static const feature_output ssim_outputs[] = {
    {"float_ssim", NULL, 0},
    {"float_ssim_l", NULL, 0},
    {"float_ssim_c", NULL, 0},
    {"float_ssim_s", NULL, 0},
};

_Static_assert(sizeof(iqa_ssim_means) <= FEATURE_RAW_BYTES, "the means fit a feature_raw");

static int ssim_count(const feature_opts *o)
{
    return o->v[SSIM_OPT_ENABLE_LCS] != 0.0 ? 4 : 1;
}

static void ssim_derive(const feature_opts *o, const feature_frame *f, const feature_raw *r,
                        const feature_raw *const *next, double *state, double *out)
{
    (void)next;
    (void)state;
    iqa_ssim_means m;
    memcpy(&m, r->b, sizeof(m));
    out[0] = (double)m.ssim;
    if (o->v[SSIM_OPT_ENABLE_DB] != 0.0)
        out[0] =
            iqa_db(out[0], iqa_max_db(f->width, f->height, f->bpc, o->v[SSIM_OPT_CLIP_DB] != 0.0));
    out[1] = (double)m.l;
    out[2] = (double)m.c;
    out[3] = (double)m.s;
}

const feature_def feature_float_ssim = {
    "float_ssim",
    "float_ssim",
    0,
    1,
    8, /* the two pictures as floats */
    SSIM_OPTIONS,
    ssim_options,
    (int)(sizeof ssim_outputs / sizeof ssim_outputs[0]),
    ssim_outputs,
    ssim_count,
    NULL,
    ssim_derive,
    NULL,
    .aggregate = NULL,
};

/* ---------------------------------------------------------------- C extractor */

typedef struct ssim_cpu {
    int width, height, bpc, scale;
    float *ref, *dis;      /* width x height, decimated in place */
    float kernel[10 * 10]; /* the scale x scale box filter */
    int *cols;             /* decimation scratch */
    iqa_ssim_work work;
} ssim_cpu;

static void cpu_close(void **priv)
{
    ssim_cpu *st = priv ? *priv : NULL;
    if (!st)
        return;
    free(st->ref);
    free(st->dis);
    free(st->cols);
    iqa_ssim_work_free(&st->work);
    free(st);
    *priv = NULL;
}

static int cpu_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    const int scale = s->opts.v[SSIM_OPT_SCALE] > 0.0 ? (int)s->opts.v[SSIM_OPT_SCALE]
                                                      : iqa_auto_scale(s->width, s->height);
    if (scale > 1 && !iqa_decimate_fits(s->width, s->height, scale, scale))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "vmaf: float_ssim: scale %d does not fit a %dx%d picture (libvmaf "
                            "reads outside it)",
                            scale, s->width, s->height);
    ssim_cpu *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->width = s->width;
    st->height = s->height;
    st->bpc = s->bpc;
    st->scale = scale;
    const size_t n = (size_t)s->width * (size_t)s->height;
    const int sw = scale > 1 ? iqa_decimated(s->width, scale) : s->width;
    st->ref = malloc(n * sizeof(float));
    st->dis = malloc(n * sizeof(float));
    st->cols = malloc((size_t)(sw > 0 ? sw : 1) * (size_t)scale * sizeof(int));
    if (!st->ref || !st->dis || !st->cols || iqa_ssim_work_init(&st->work, sw) != 0) {
        cpu_close((void **)&st);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    }
    /* libvmaf's box filter: 1 / (scale * scale) in float */
    for (int i = 0; i < scale * scale; i++)
        st->kernel[i] = 1.0f / (float)(scale * scale);
    *priv = st;
    return FOVEA_OK;
}

static int cpu_extract(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw)
{
    (void)ctx;
    ssim_cpu *st = priv;
    int w = st->width, h = st->height;
    iqa_load(p->ref, p->ref_stride, w, h, st->bpc, st->ref);
    iqa_load(p->dis, p->dis_stride, w, h, st->bpc, st->dis);
    if (st->scale > 1) {
        iqa_decimate(st->ref, w, h, st->scale, st->kernel, st->scale, st->ref, st->cols, NULL);
        iqa_decimate(st->dis, w, h, st->scale, st->kernel, st->scale, st->dis, st->cols, NULL);
        w = iqa_decimated(w, st->scale);
        h = iqa_decimated(h, st->scale);
    }
    iqa_ssim_means m;
    iqa_ssim(st->ref, st->dis, w, h, &st->work, &m);
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, &m, sizeof(m));
    return FOVEA_OK;
}

const feature_extractor feature_float_ssim_cpu = {
    &feature_float_ssim, FOVEA_BACKEND_CPU, cpu_init, cpu_close, cpu_extract, 0, 0, NULL, NULL,
};
