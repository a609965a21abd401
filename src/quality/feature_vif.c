/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The feature "vif": libvmaf's integer VIF (four scales; its `vif` feature
 * extractor). Options, outputs, the doubles derived from the raw sums (for
 * every backend), and the C extractor over vif_ref.c. */
#include <string.h>

#include "quality/vif_internal.h"

_Static_assert(sizeof(vif_raw) <= FEATURE_RAW_BYTES, "vif_raw fits a feature_raw");

static const feature_option vif_options[VIF_OPTIONS] = {
    /* libvmaf's debug option adds outputs; it is no feature parameter */
    [VIF_OPT_DEBUG] = {"debug", "debug", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 0, NULL},
    [VIF_OPT_GAIN_LIMIT] = {"vif_enhn_gain_limit", "egl", FEATURE_OPT_DOUBLE, 100.0, 1.0, 100.0, 1,
                            NULL},
};

/* The scales, then libvmaf's debug outputs. */
#define VIF_DEBUG_OUTPUTS 11
static const feature_output vif_outputs[VIF_SCALES + VIF_DEBUG_OUTPUTS] = {
    {"integer_vif_scale0", "VMAF_integer_feature_vif_scale0_score", 0},
    {"integer_vif_scale1", "VMAF_integer_feature_vif_scale1_score", 0},
    {"integer_vif_scale2", "VMAF_integer_feature_vif_scale2_score", 0},
    {"integer_vif_scale3", "VMAF_integer_feature_vif_scale3_score", 0},
    {"integer_vif", NULL, 0},
    {"integer_vif_num", NULL, 0},
    {"integer_vif_den", NULL, 0},
    {"integer_vif_num_scale0", NULL, 0},
    {"integer_vif_den_scale0", NULL, 0},
    {"integer_vif_num_scale1", NULL, 0},
    {"integer_vif_den_scale1", NULL, 0},
    {"integer_vif_num_scale2", NULL, 0},
    {"integer_vif_den_scale2", NULL, 0},
    {"integer_vif_num_scale3", NULL, 0},
    {"integer_vif_den_scale3", NULL, 0},
};

static int vif_count(const feature_opts *o)
{
    return VIF_SCALES + (o->v[VIF_OPT_DEBUG] != 0.0 ? VIF_DEBUG_OUTPUTS : 0);
}

static void vif_derive(const feature_opts *o, const feature_frame *f, const feature_raw *r,
                       const feature_raw *const *next, double *state, double *out)
{
    (void)f;
    (void)next;
    (void)state;
    const vif_raw *raw = (const vif_raw *)(const void *)r->b;
    for (int s = 0; s < VIF_SCALES; s++) {
        /* libvmaf divides the floats in float and reports the result as double */
        const float ratio = raw->num[s] / raw->den[s];
        out[s] = (double)ratio;
    }
    if (o->v[VIF_OPT_DEBUG] == 0.0)
        return;
    double num[VIF_SCALES], den[VIF_SCALES];
    for (int s = 0; s < VIF_SCALES; s++) {
        num[s] = (double)raw->num[s];
        den[s] = (double)raw->den[s];
        out[VIF_SCALES + 3 + 2 * s] = num[s];
        out[VIF_SCALES + 4 + 2 * s] = den[s];
    }
    const double num_total = num[0] + num[1] + num[2] + num[3];
    const double den_total = den[0] + den[1] + den[2] + den[3];
    out[VIF_SCALES] = den_total == 0.0 ? 1.0 : num_total / den_total;
    out[VIF_SCALES + 1] = num_total;
    out[VIF_SCALES + 2] = den_total;
}

const feature_def feature_vif = {
    "vif",       "VIF",       0,
    VIF_MIN_DIM, 1, /* two quarter-frame images in int16 */
    VIF_OPTIONS, vif_options, VIF_SCALES + VIF_DEBUG_OUTPUTS,
    vif_outputs, vif_count,   NULL,
    vif_derive,  NULL,        .aggregate = NULL,
};

/* ---------------------------------------------------------------- C extractor */

static int cpu_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    const vif_params p = {s->width, s->height, s->bpc, s->opts.v[VIF_OPT_GAIN_LIMIT]};
    return vif_ref_open(priv, ctx, &p);
}

static int cpu_extract(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw)
{
    const vif_plane ref = {p->ref, p->ref_stride, FOVEA_MEM_HOST};
    const vif_plane dis = {p->dis, p->dis_stride, FOVEA_MEM_HOST};
    memset(raw, 0, sizeof(*raw));
    return vif_ref_process(priv, ctx, &ref, &dis, (vif_raw *)(void *)raw->b);
}

const feature_extractor feature_vif_cpu = {
    &feature_vif, FOVEA_BACKEND_CPU, cpu_init, vif_ref_close, cpu_extract, 0, 0, NULL, NULL,
};
