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
    [ADM_OPT_CSF_DIAG_SCALE] = {"adm_csf_diag_scale", "scfd", FEATURE_OPT_DOUBLE, 1.0, 0.0, 50.0, 1,
                                NULL},
    [ADM_OPT_CSF_MODE] = {"adm_csf_mode", "csf", FEATURE_OPT_INT, 0.0, 0.0, 3.0, 1, NULL},
    [ADM_OPT_CSF_SCALE] = {"adm_csf_scale", "scf", FEATURE_OPT_DOUBLE, 1.0, 0.0, 50.0, 1, NULL},
    [ADM_OPT_DLM_WEIGHT] = {"adm_dlm_weight", "dlmw", FEATURE_OPT_DOUBLE, 0.5, 0.0, 1.0, 1, NULL},
    [ADM_OPT_GAIN_LIMIT] = {"adm_enhn_gain_limit", "egl", FEATURE_OPT_DOUBLE, 100.0, 1.0, 100.0, 1,
                            NULL},
    [ADM_OPT_MIN_VAL] = {"adm_min_val", "min", FEATURE_OPT_DOUBLE, 0.0, 0.0, 1.0, 1, NULL},
    [ADM_OPT_NOISE_WEIGHT] = {"adm_noise_weight", "nw", FEATURE_OPT_DOUBLE, ADM_NOISE_WEIGHT, 0.0,
                              1500.0, 1, NULL},
    [ADM_OPT_VIEW_DIST] = {"adm_norm_view_dist", "nvd", FEATURE_OPT_DOUBLE, 3.0, 0.75, 24.0, 1,
                           NULL},
    [ADM_OPT_DISPLAY_HEIGHT] = {"adm_ref_display_height", "rdh", FEATURE_OPT_INT, 1080.0, 1.0,
                                4320.0, 1, NULL},
    /* not feature parameters in libvmaf: no name suffix */
    [ADM_OPT_SKIP_AIM] = {"adm_skip_aim", "adm_skip_aim", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 0, NULL},
    [ADM_OPT_SKIP_SCALE0] = {"adm_skip_scale0", "ssz", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 1, NULL},
    /* libvmaf's debug option adds outputs */
    [ADM_OPT_DEBUG] = {"debug", "debug", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 0, NULL},
};

/* The scores, then libvmaf's debug outputs. */
#define ADM_MAIN_OUTPUTS 7
#define ADM_DEBUG_OUTPUTS 11
static const feature_output adm_outputs[ADM_MAIN_OUTPUTS + ADM_DEBUG_OUTPUTS] = {
    {"integer_adm2", "VMAF_integer_feature_adm2_score", 0},
    {"integer_aim", NULL, 0},
    {"integer_adm3", "VMAF_integer_feature_adm3_score", 0},
    {"integer_adm_scale0", NULL, 0},
    {"integer_adm_scale1", NULL, 0},
    {"integer_adm_scale2", NULL, 0},
    {"integer_adm_scale3", NULL, 0},
    {"integer_adm", NULL, 0},
    {"integer_adm_num", NULL, 0},
    {"integer_adm_den", NULL, 0},
    {"integer_adm_num_scale0", NULL, 0},
    {"integer_adm_den_scale0", NULL, 0},
    {"integer_adm_num_scale1", NULL, 0},
    {"integer_adm_den_scale1", NULL, 0},
    {"integer_adm_num_scale2", NULL, 0},
    {"integer_adm_den_scale2", NULL, 0},
    {"integer_adm_num_scale3", NULL, 0},
    {"integer_adm_den_scale3", NULL, 0},
};

static int adm_count(const feature_opts *o)
{
    return ADM_MAIN_OUTPUTS + (o->v[ADM_OPT_DEBUG] != 0.0 ? ADM_DEBUG_OUTPUTS : 0);
}

static int adm_check(const feature_opts *o, char *err, size_t errsz)
{
    const double nvd = o->v[ADM_OPT_VIEW_DIST];
    const int rdh = (int)o->v[ADM_OPT_DISPLAY_HEIGHT];
    const int mode = (int)o->v[ADM_OPT_CSF_MODE];
    /* libvmaf refuses these too (its level-0 pipeline would overflow) */
    if (nvd * rdh < 3.0 * 1080)
        return fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED,
                         "adm_norm_view_dist * adm_ref_display_height = %g is below 3 * 1080",
                         nvd * rdh);
    /* libvmaf's blended weights exist for a few conditions; for others its
     * weight is an error code taken as a float and its scores are NaN */
    if ((mode == ADM_CSF_BLEND || mode == ADM_CSF_BLEND_MAE) && !adm_csf_blend_supported(nvd, rdh))
        return fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED,
                         "adm_csf_mode %d has no weights for adm_norm_view_dist %g and "
                         "adm_ref_display_height %d (it has 480, 720, 1080, 2160 at 3 and 5, "
                         "2160 at 1.5)",
                         mode, nvd, rdh);
    return FOVEA_OK;
}

void adm_params_set_opts(adm_params *p, const feature_opts *o)
{
    p->enhn_gain_limit = o->v[ADM_OPT_GAIN_LIMIT];
    p->norm_view_dist = o->v[ADM_OPT_VIEW_DIST];
    p->ref_display_height = (int)o->v[ADM_OPT_DISPLAY_HEIGHT];
    p->csf_mode = (int)o->v[ADM_OPT_CSF_MODE];
    p->csf_scale = o->v[ADM_OPT_CSF_SCALE];
    p->csf_diag_scale = o->v[ADM_OPT_CSF_DIAG_SCALE];
    p->noise_weight = o->v[ADM_OPT_NOISE_WEIGHT];
    p->dlm_weight = o->v[ADM_OPT_DLM_WEIGHT];
    p->min_val = o->v[ADM_OPT_MIN_VAL];
    p->skip_aim = o->v[ADM_OPT_SKIP_AIM] != 0.0;
    p->skip_scale0 = o->v[ADM_OPT_SKIP_SCALE0] != 0.0;
}

static void adm_derive_out(const feature_opts *o, const feature_frame *f, const feature_raw *r,
                           const feature_raw *const *next, double *state, double *out)
{
    (void)next;
    (void)state;
    adm_params p;
    adm_default_params(&p, f->width, f->height, f->bpc);
    adm_params_set_opts(&p, o);
    adm_result ar;
    adm_derive_params(&p, (const adm_raw *)(const void *)r->b, &ar);
    out[0] = ar.adm2;
    out[1] = ar.aim;
    out[2] = ar.adm3;
    for (int s = 0; s < ADM_SCALES; s++)
        out[3 + s] = ar.scale[s];
    if (o->v[ADM_OPT_DEBUG] == 0.0)
        return;
    double *d = out + ADM_MAIN_OUTPUTS;
    d[0] = ar.adm2;
    d[1] = ar.num_sum;
    d[2] = ar.den_sum;
    for (int s = 0; s < ADM_SCALES; s++) {
        d[3 + 2 * s] = (double)ar.num[s];
        d[4 + 2 * s] = (double)ar.den[s];
    }
}

const feature_def feature_adm = {
    "adm",          "ADM",       0,
    ADM_MIN_DIM,    4, /* four int32 planes of a quarter frame */
    ADM_OPTIONS,    adm_options, ADM_MAIN_OUTPUTS + ADM_DEBUG_OUTPUTS,
    adm_outputs,    adm_count,   adm_check,
    adm_derive_out, NULL,        .aggregate = NULL,
};

void adm_params_from_opts(adm_params *p, const feature_setup *s)
{
    adm_default_params(p, s->width, s->height, s->bpc);
    adm_params_set_opts(p, &s->opts);
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
