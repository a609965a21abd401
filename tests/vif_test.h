/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The VIF of a fovea_vmaf context opened with the feature list "vif", in the
 * shape the VIF tests compare: the four scales and, with debug, libvmaf's
 * debug outputs (integer_vif_num_scale0.., integer_vif, ...). Header-only,
 * for the tests of tests/, tests/gpu and tests/gst. */
#ifndef FOVEA_TESTS_VIF_TEST_H
#define FOVEA_TESTS_VIF_TEST_H

#include <stdio.h>
#include <string.h>

#include "fovea/quality.h"

#define VIF_TEST_SCALES 4

typedef struct vif_test_scores {
    int64_t frame;
    double scale[VIF_TEST_SCALES];    /* integer_vif_scale0..3 */
    double num[VIF_TEST_SCALES];      /* integer_vif_num_scale0..3 (debug) */
    double den[VIF_TEST_SCALES];      /* integer_vif_den_scale0..3 (debug) */
    double num_total, den_total, vif; /* integer_vif_num, _den, integer_vif (debug) */
} vif_test_scores;

typedef struct vif_test_pool {
    double min, max, mean, harmonic_mean;
} vif_test_pool;

typedef struct vif_test_pooled {
    int64_t frames;
    vif_test_pool scale[VIF_TEST_SCALES];
} vif_test_pooled;

/* The options of the feature. */
typedef struct vif_test_settings {
    double vif_enhn_gain_limit; /* 100.0 */
    int debug;                  /* 0 */
} vif_test_settings;

static inline void vif_test_default_settings(vif_test_settings *s)
{
    s->vif_enhn_gain_limit = 100.0;
    s->debug = 0;
}

/* A context computing "vif" with settings s (NULL: the defaults). */
static inline int vif_test_open(fovea_vmaf **v, fovea_context *ctx, const vif_test_settings *vs)
{
    vif_test_settings d;
    vif_test_default_settings(&d);
    if (!vs)
        vs = &d;
    char list[128];
    snprintf(list, sizeof list, "vif:vif_enhn_gain_limit=%.17g:debug=%s", vs->vif_enhn_gain_limit,
             vs->debug ? "true" : "false");
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    s.features = list;
    return fovea_vmaf_open(v, ctx, &s);
}

/* The metrics in the order the feature outputs them: the scales, then
 * integer_vif, _num, _den and the num/den of each scale. */
static inline void vif_test_convert(const fovea_vmaf_scores *s, vif_test_scores *out)
{
    memset(out, 0, sizeof(*out));
    out->frame = s->frame;
    for (int k = 0; k < VIF_TEST_SCALES; k++)
        out->scale[k] = s->value[k];
    if (s->count > VIF_TEST_SCALES) {
        out->vif = s->value[4];
        out->num_total = s->value[5];
        out->den_total = s->value[6];
        for (int k = 0; k < VIF_TEST_SCALES; k++) {
            out->num[k] = s->value[7 + 2 * k];
            out->den[k] = s->value[8 + 2 * k];
        }
    }
}

static inline int vif_test_process(fovea_vmaf *v, const fovea_frame *ref, const fovea_frame *dis,
                                   vif_test_scores *out)
{
    fovea_vmaf_scores sc;
    memset(&sc, 0, sizeof(sc));
    const int st = fovea_vmaf_process(v, ref, dis, &sc);
    if (out)
        vif_test_convert(&sc, out); /* zeros on failure */
    return st;
}

static inline int vif_test_receive(fovea_vmaf *v, vif_test_scores *out)
{
    fovea_vmaf_scores sc;
    memset(&sc, 0, sizeof(sc));
    const int st = fovea_vmaf_receive(v, &sc);
    if (st == FOVEA_OK && out)
        vif_test_convert(&sc, out);
    return st;
}

static inline int vif_test_pooled_scores(const fovea_vmaf *v, vif_test_pooled *out)
{
    fovea_vmaf_pooled_scores pl;
    const int st = fovea_vmaf_pooled(v, &pl);
    memset(out, 0, sizeof(*out));
    if (st == FOVEA_OK) {
        out->frames = pl.frames;
        for (int k = 0; k < VIF_TEST_SCALES; k++) {
            out->scale[k].min = pl.metric[k].min;
            out->scale[k].max = pl.metric[k].max;
            out->scale[k].mean = pl.metric[k].mean;
            out->scale[k].harmonic_mean = pl.metric[k].harmonic_mean;
        }
    }
    return st;
}

#endif
