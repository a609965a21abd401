/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The feature "cambi": libvmaf's banding metric (its `cambi` extractor; the
 * CUDA extractor is feature_cambi_cuda.c). Options, outputs (the score, and
 * with full_ref the source's score and their difference), the clamp to
 * cambi_max_val, and the C extractor over cambi_ref.c. The extractors store
 * their doubles in the raw values. */
#include <string.h>

#include "core/core.h"
#include "quality/cambi.h"

enum {
    CAMBI_OPT_CAMBI_EOTF,
    CAMBI_OPT_HIGH_RES_SPEEDUP,
    CAMBI_OPT_MAX_VAL,
    CAMBI_OPT_CAMBI_TOPK,
    CAMBI_OPT_VIS_LUM_THRESHOLD,
    CAMBI_OPT_ENC_BITDEPTH,
    CAMBI_OPT_ENC_HEIGHT,
    CAMBI_OPT_ENC_WIDTH,
    CAMBI_OPT_EOTF,
    CAMBI_OPT_FULL_REF,
    CAMBI_OPT_HEATMAPS_PATH,
    CAMBI_OPT_MAX_LOG_CONTRAST,
    CAMBI_OPT_SRC_HEIGHT,
    CAMBI_OPT_SRC_WIDTH,
    CAMBI_OPT_TOPK,
    CAMBI_OPT_TVI_THRESHOLD,
    CAMBI_OPT_WINDOW_SIZE,
    CAMBI_OPTIONS
};

/* libvmaf's defaults of topk and cambi_topk (the non-default one wins) */
#define CAMBI_TOPK 0.6

_Static_assert(sizeof(cambi_raw) <= FEATURE_RAW_BYTES, "cambi_raw fits a feature_raw");

static const char *const eotf_names[] = {"bt1886", "pq", NULL};
static const char *const heatmaps_why[] = {"fovea writes no CAMBI heatmaps", NULL};

/* In libvmaf's alphabetical order of names: its suffixes follow it. Options
 * without a libvmaf alias use their name. */
static const feature_option cambi_options[CAMBI_OPTIONS] = {
    [CAMBI_OPT_CAMBI_EOTF] = {"cambi_eotf", "ceot", FEATURE_OPT_ENUM, 0.0, 0.0, 1.0, 1, eotf_names},
    [CAMBI_OPT_HIGH_RES_SPEEDUP] = {"cambi_high_res_speedup", "hrs", FEATURE_OPT_INT, 0.0, 0.0,
                                    2160.0, 1, NULL},
    [CAMBI_OPT_MAX_VAL] = {"cambi_max_val", "cmxv", FEATURE_OPT_DOUBLE, 1000.0, 0.0, 1000.0, 1,
                           NULL},
    [CAMBI_OPT_CAMBI_TOPK] = {"cambi_topk", "ctpk", FEATURE_OPT_DOUBLE, CAMBI_TOPK, 0.0001, 1.0, 1,
                              NULL},
    [CAMBI_OPT_VIS_LUM_THRESHOLD] = {"cambi_vis_lum_threshold", "vlt", FEATURE_OPT_DOUBLE, 0.0, 0.0,
                                     300.0, 1, NULL},
    [CAMBI_OPT_ENC_BITDEPTH] = {"enc_bitdepth", "encbd", FEATURE_OPT_INT, 0.0, 6.0, 16.0, 1, NULL},
    [CAMBI_OPT_ENC_HEIGHT] = {"enc_height", "ench", FEATURE_OPT_INT, 0.0, 150.0, 7680.0, 1, NULL},
    [CAMBI_OPT_ENC_WIDTH] = {"enc_width", "encw", FEATURE_OPT_INT, 0.0, 180.0, 7680.0, 1, NULL},
    [CAMBI_OPT_EOTF] = {"eotf", "eotf", FEATURE_OPT_ENUM, 0.0, 0.0, 1.0, 1, eotf_names},
    /* no feature parameter in libvmaf: it adds outputs */
    [CAMBI_OPT_FULL_REF] = {"full_ref", "full_ref", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 0, NULL},
    [CAMBI_OPT_HEATMAPS_PATH] = {"heatmaps_path", "heatmaps_path", FEATURE_OPT_REFUSED, 0.0, 0.0,
                                 0.0, 0, heatmaps_why},
    [CAMBI_OPT_MAX_LOG_CONTRAST] = {"max_log_contrast", "mlc", FEATURE_OPT_INT, 2.0, 0.0, 5.0, 1,
                                    NULL},
    [CAMBI_OPT_SRC_HEIGHT] = {"src_height", "srch", FEATURE_OPT_INT, 0.0, 200.0, 4320.0, 1, NULL},
    [CAMBI_OPT_SRC_WIDTH] = {"src_width", "srcw", FEATURE_OPT_INT, 0.0, 320.0, 7680.0, 1, NULL},
    [CAMBI_OPT_TOPK] = {"topk", "topk", FEATURE_OPT_DOUBLE, CAMBI_TOPK, 0.0001, 1.0, 1, NULL},
    [CAMBI_OPT_TVI_THRESHOLD] = {"tvi_threshold", "tvit", FEATURE_OPT_DOUBLE, 0.019, 0.0001, 1.0, 1,
                                 NULL},
    [CAMBI_OPT_WINDOW_SIZE] = {"window_size", "ws", FEATURE_OPT_INT, 65.0, 15.0, 127.0, 1, NULL},
};

/* libvmaf names only the score by its options; the full-reference outputs
 * keep their plain names. */
static const feature_output cambi_outputs[] = {
    {"cambi", "Cambi_feature_cambi_score", 0},
    {"cambi_source", NULL, FEATURE_BARE},
    {"cambi_full_reference", NULL, FEATURE_BARE},
};

static int cambi_count(const feature_opts *o)
{
    return o->v[CAMBI_OPT_FULL_REF] != 0.0 ? 3 : 1;
}

static double at_most(double x, double max)
{
    return x < max ? x : max;
}

static void cambi_derive(const feature_opts *o, const feature_frame *f, const feature_raw *r,
                         const feature_raw *const *next, double *state, double *out)
{
    (void)f;
    (void)next;
    (void)state;
    cambi_raw raw;
    memcpy(&raw, r->b, sizeof(raw));
    const double max = o->v[CAMBI_OPT_MAX_VAL];
    out[0] = at_most(raw.dis, max);
    if (o->v[CAMBI_OPT_FULL_REF] == 0.0)
        return;
    const double diff = raw.dis - raw.src;
    out[1] = at_most(raw.src, max);
    out[2] = at_most(0 > diff ? 0 : diff, max);
}

const feature_def feature_cambi = {
    "cambi",
    "CAMBI",
    0,
    1,
    12, /* 10-bit picture, mask, float values, histograms */
    CAMBI_OPTIONS,
    cambi_options,
    (int)(sizeof cambi_outputs / sizeof cambi_outputs[0]),
    cambi_outputs,
    cambi_count,
    NULL,
    cambi_derive,
    NULL,
    .aggregate = NULL,
};

/* ---------------------------------------------------------------- C extractor */

void cambi_params_from(const feature_setup *s, cambi_params *p)
{
    const double *v = s->opts.v;
    memset(p, 0, sizeof(*p));
    p->width = s->width;
    p->height = s->height;
    p->bpc = s->bpc;
    p->enc_width = (int)v[CAMBI_OPT_ENC_WIDTH];
    p->enc_height = (int)v[CAMBI_OPT_ENC_HEIGHT];
    p->enc_bitdepth = (int)v[CAMBI_OPT_ENC_BITDEPTH];
    p->src_width = (int)v[CAMBI_OPT_SRC_WIDTH];
    p->src_height = (int)v[CAMBI_OPT_SRC_HEIGHT];
    p->window_size = (int)v[CAMBI_OPT_WINDOW_SIZE];
    /* libvmaf: topk when it is not the default, else cambi_topk */
    p->topk = v[CAMBI_OPT_TOPK] != CAMBI_TOPK ? v[CAMBI_OPT_TOPK] : v[CAMBI_OPT_CAMBI_TOPK];
    p->tvi_threshold = v[CAMBI_OPT_TVI_THRESHOLD];
    p->vis_lum_threshold = v[CAMBI_OPT_VIS_LUM_THRESHOLD];
    p->max_log_contrast = (int)v[CAMBI_OPT_MAX_LOG_CONTRAST];
    /* libvmaf: cambi_eotf when it is not the default, else eotf */
    p->pq = (int)(v[CAMBI_OPT_CAMBI_EOTF] != 0.0 ? v[CAMBI_OPT_CAMBI_EOTF] : v[CAMBI_OPT_EOTF]);
    p->high_res_speedup = (int)v[CAMBI_OPT_HIGH_RES_SPEEDUP];
    p->full_ref = v[CAMBI_OPT_FULL_REF] != 0.0;
}

static int cpu_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    cambi_params p;
    cambi_params_from(s, &p);
    p.threads = s->threads;
    return cambi_ref_open(priv, ctx, &p);
}

static int cpu_extract(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw)
{
    /* with ctx, a pair split over its threads (cambi_ref_process) */
    cambi_raw r = {0.0, 0.0};
    memset(raw, 0, sizeof(*raw));
    FOVEA_TRY(
        cambi_ref_process(priv, ctx, p->dis, p->dis_stride, p->ref, p->ref_stride, &r.dis, &r.src));
    memcpy(raw->b, &r, sizeof(r));
    return FOVEA_OK;
}

const feature_extractor feature_cambi_cpu = {
    &feature_cambi, FOVEA_BACKEND_CPU, cpu_init, cambi_ref_close, cpu_extract, 0, 0, NULL, NULL,
};
