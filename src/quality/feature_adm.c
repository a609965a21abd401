/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The feature "adm": libvmaf's integer ADM (its `adm` feature extractor).
 * Options, outputs, the doubles derived from the raw sums (for every
 * backend), and the C extractor over adm_ref.c. */
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "quality/adm.h"
#include "quality/feature.h"

_Static_assert(sizeof(adm_raw) <= FEATURE_RAW_BYTES, "adm_raw fits a feature_raw");

static const feature_option adm_options[ADM_OPTIONS] = {
    [ADM_OPT_GAIN_LIMIT] = {"adm_enhn_gain_limit", "egl", FEATURE_OPT_DOUBLE, 100.0, 1.0, 100.0, 1},
    [ADM_OPT_VIEW_DIST] = {"adm_norm_view_dist", "nvd", FEATURE_OPT_DOUBLE, 3.0, 0.75, 24.0, 1},
    [ADM_OPT_DISPLAY_HEIGHT] = {"adm_ref_display_height", "rdh", FEATURE_OPT_INT, 1080.0, 1.0,
                                4320.0, 1},
};

static const feature_output adm_outputs[] = {
    {"integer_adm2", "VMAF_integer_feature_adm2_score", 0},
    {"integer_aim", NULL, 0},
    {"integer_adm3", NULL, 0},
    {"integer_adm_scale0", NULL, 0},
    {"integer_adm_scale1", NULL, 0},
    {"integer_adm_scale2", NULL, 0},
    {"integer_adm_scale3", NULL, 0},
};

static int adm_check(const feature_opts *o, char *err, size_t errsz)
{
    const double nvd = o->v[ADM_OPT_VIEW_DIST], rdh = o->v[ADM_OPT_DISPLAY_HEIGHT];
    /* libvmaf refuses these too (its level-0 pipeline would overflow) */
    if (nvd * (int)rdh < 3.0 * 1080)
        return fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED,
                         "adm_norm_view_dist * adm_ref_display_height = %g is below 3 * 1080",
                         nvd * (int)rdh);
    return FOVEA_OK;
}

static void adm_derive_out(const feature_opts *o, const feature_frame *f, const feature_raw *r,
                           const feature_raw *const *next, double *state, double *out)
{
    (void)o;
    (void)next;
    (void)state;
    adm_result ar;
    adm_derive((const adm_raw *)(const void *)r->b, f->width, f->height, &ar);
    out[0] = ar.adm2;
    out[1] = ar.aim;
    out[2] = ar.adm3;
    for (int s = 0; s < ADM_SCALES; s++)
        out[3 + s] = ar.scale[s];
}

const feature_def feature_adm = {
    "adm",          "ADM",       0,
    ADM_MIN_DIM,    4, /* four int32 planes of a quarter frame */
    ADM_OPTIONS,    adm_options, (int)(sizeof adm_outputs / sizeof adm_outputs[0]),
    adm_outputs,    NULL,        adm_check,
    adm_derive_out, NULL,        .aggregate = NULL,
};

void adm_params_from_opts(adm_params *p, const feature_setup *s)
{
    adm_default_params(p, s->width, s->height, s->bpc);
    p->enhn_gain_limit = s->opts.v[ADM_OPT_GAIN_LIMIT];
    p->norm_view_dist = s->opts.v[ADM_OPT_VIEW_DIST];
    p->ref_display_height = (int)s->opts.v[ADM_OPT_DISPLAY_HEIGHT];
}

/* ---------------------------------------------------------------- C extractor */

static void cpu_close(void **priv)
{
    adm_state *st = priv ? *priv : NULL;
    adm_close(&st);
    if (priv)
        *priv = NULL;
}

static int cpu_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    adm_params ap;
    adm_params_from_opts(&ap, s);
    adm_state *st = NULL;
    int rc = adm_open(&st, &ap);
    if (rc < 0)
        return fv_ctx_error(ctx, rc, "vmaf: ADM cannot score %dx%d at %d bits", s->width, s->height,
                            s->bpc);
    /* scratch to split one pair over the threads */
    if (s->threads > 0 && adm_reserve_threads(st, s->threads) < 0) {
        adm_close(&st);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    }
    *priv = st;
    return FOVEA_OK;
}

static int cpu_extract(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw)
{
    memset(raw, 0, sizeof(*raw));
    adm_compute_raw(priv, ctx, p->ref, p->ref_stride, p->dis, p->dis_stride,
                    (adm_raw *)(void *)raw->b);
    return FOVEA_OK;
}

const feature_extractor feature_adm_cpu = {
    &feature_adm, FOVEA_BACKEND_CPU, cpu_init, cpu_close, cpu_extract, 0, 0, NULL, NULL,
};
