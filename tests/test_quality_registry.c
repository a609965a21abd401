/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The registry of quality features (src/quality/feature.h): look-ups by name
 * and by a model's feature name, options (ranges, text values) and libvmaf's
 * name suffixes; and a toy feature ("mean luma") written against the same
 * tables, its C extractor and its derive run as the C driver runs them, to
 * show the shape a new feature fills (docs/quality.md, "Design"). */
#include <stdlib.h>
#include <string.h>

#include "quality/feature.h"
#include "testutil.h"

/* ---------------------------------------------------------------- the toy */

static const feature_option toy_options[1] = {
    {"toy_scale", "ts", FEATURE_OPT_DOUBLE, 1.0, 0.5, 4.0, 1, NULL},
};
static const feature_output toy_outputs[1] = {{"toy_mean_luma", NULL, 0}};

typedef struct toy_raw {
    uint64_t sum;
    uint64_t count;
} toy_raw;

static void toy_derive(const feature_opts *o, const feature_frame *f, const feature_raw *raw,
                       const feature_raw *const *next, double *state, double *out)
{
    (void)f;
    (void)next;
    (void)state;
    toy_raw r;
    memcpy(&r, raw->b, sizeof(r));
    out[0] = (double)r.sum / (double)r.count * o->v[0];
}

static const feature_def toy_def = {
    "toy", "toy",       0,    1,    0,          1,    toy_options,
    1,     toy_outputs, NULL, NULL, toy_derive, NULL, .aggregate = NULL,
};

typedef struct toy_state {
    int width, height, bpc;
} toy_state;

static int toy_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    (void)ctx;
    toy_state *st = calloc(1, sizeof(*st));
    *priv = st;
    if (!st)
        return FOVEA_ERR_NOMEM;
    st->width = s->width;
    st->height = s->height;
    st->bpc = s->bpc;
    return FOVEA_OK;
}

static void toy_close(void **priv)
{
    free(*priv);
    *priv = NULL;
}

static int toy_extract(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw)
{
    (void)ctx;
    const toy_state *st = priv;
    toy_raw r = {0, (uint64_t)st->width * (uint64_t)st->height};
    for (int y = 0; y < st->height; y++)
        for (int x = 0; x < st->width; x++)
            r.sum += p->dis[(ptrdiff_t)y * p->dis_stride + x];
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, &r, sizeof(r));
    return FOVEA_OK;
}

static const feature_extractor toy_cpu = {
    &toy_def, FOVEA_BACKEND_CPU, toy_init, toy_close, toy_extract, 0, 0, NULL, NULL,
};

static void test_toy(void)
{
    _Static_assert(sizeof(toy_raw) <= FEATURE_RAW_BYTES, "toy_raw fits");
    uint8_t ref[4 * 3], dis[4 * 3];
    for (int i = 0; i < 12; i++) {
        ref[i] = (uint8_t)(7 * i);
        dis[i] = (uint8_t)(10 + i); /* mean 15.5 */
    }
    feature_setup s;
    memset(&s, 0, sizeof(s));
    s.width = 4;
    s.height = 3;
    s.bpc = 8;
    feature_default_opts(&toy_def, &s.opts);
    char err[256];
    CHECK_EQ_INT(feature_set_opt(&toy_def, &s.opts, "toy_scale", "2", err, sizeof err), FOVEA_OK);
    void *priv = NULL;
    REQUIRE(toy_cpu.init(&priv, NULL, &s) == FOVEA_OK);
    feature_pair pair;
    memset(&pair, 0, sizeof(pair));
    pair.ref = ref;
    pair.dis = dis;
    pair.ref_stride = pair.dis_stride = 4;
    feature_raw raw;
    CHECK_EQ_INT(toy_cpu.extract(priv, NULL, &pair, &raw), FOVEA_OK);
    const feature_frame f = {4, 3, 8, 0, 400};
    double state[FEATURE_STATE] = {0}, out[FEATURE_MAX_OUTPUTS] = {0};
    toy_def.derive(&s.opts, &f, &raw, NULL, state, out);
    CHECK(out[0] == 31.0);
    char suffix[64];
    feature_suffix(&toy_def, &s.opts, suffix, sizeof suffix);
    CHECK(!strcmp(suffix, "_ts_2"));
    toy_cpu.close(&priv);
    CHECK(priv == NULL);
    /* the toy is not in this build's list: only feature_list.h registers */
    CHECK(feature_find("toy") == NULL);
}

/* ---------------------------------------------------------------- the list */

static void test_lookups(void)
{
    const feature_def *vif = feature_find("vif"), *adm = feature_find("adm"),
                      *motion = feature_find("motion");
    REQUIRE(vif && adm && motion);
    CHECK(feature_find("float_psnr") == NULL && feature_find(NULL) == NULL);
    CHECK(feature_extractor_for(vif, FOVEA_BACKEND_CPU) != NULL);
    CHECK(feature_extractor_for(adm, FOVEA_BACKEND_CPU) != NULL);
    CHECK(feature_extractor_for(motion, FOVEA_BACKEND_CPU) != NULL);
#ifdef FOVEA_HAVE_CUDA
    CHECK(feature_extractor_for(vif, FOVEA_BACKEND_CUDA) != NULL);
#endif
    int out = -1;
    CHECK(feature_find_model_name("VMAF_integer_feature_adm2_score", &out) == adm && out == 0);
    CHECK(feature_find_model_name("VMAF_integer_feature_motion2_score", &out) == motion &&
          out == 1);
    CHECK(feature_find_model_name("VMAF_integer_feature_vif_scale3_score", &out) == vif &&
          out == 3);
    /* libvmaf's v1 models use adm3 and motion3 */
    CHECK(feature_find_model_name("VMAF_integer_feature_adm3_score", &out) == adm && out == 2);
    CHECK(feature_find_model_name("VMAF_integer_feature_motion3_score", &out) == motion &&
          out == 2);
    CHECK(feature_find_model_name("VMAF_integer_feature_aim_score", &out) == NULL);
    CHECK(feature_find_model_name("integer_adm2", &out) == NULL);
}

static void test_options(void)
{
    const feature_def *vif = feature_find("vif"), *adm = feature_find("adm"),
                      *motion = feature_find("motion");
    REQUIRE(vif && adm && motion);
    feature_opts o, d;
    char err[256], suffix[160];

    feature_default_opts(vif, &o);
    feature_default_opts(vif, &d);
    CHECK(feature_same_opts(vif, &o, &d));
    CHECK_EQ_INT(feature_set_opt(vif, &o, "vif_enhn_gain_limit", "0.5", err, sizeof err),
                 FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(err, "[1, 100]") != NULL);
    CHECK_EQ_INT(feature_set_opt(vif, &o, "vif_enhn_gain_limit", "nan", err, sizeof err),
                 FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(feature_set_opt(vif, &o, "vif_enhn_gain_limit", "2x", err, sizeof err),
                 FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(feature_set_opt(vif, &o, "nope", "1", err, sizeof err), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(feature_set_opt(vif, &o, "debug", "maybe", err, sizeof err),
                 FOVEA_ERR_INVALID_ARG);
    /* debug is no feature parameter: no suffix */
    CHECK_EQ_INT(feature_set_opt(vif, &o, "debug", "true", err, sizeof err), FOVEA_OK);
    feature_suffix(vif, &o, suffix, sizeof suffix);
    CHECK(!strcmp(suffix, ""));
    CHECK(!feature_same_opts(vif, &o, &d));
    CHECK_EQ_INT(feature_set_opt(vif, &o, "vif_enhn_gain_limit", "1", err, sizeof err), FOVEA_OK);
    feature_suffix(vif, &o, suffix, sizeof suffix);
    CHECK(!strcmp(suffix, "_egl_1"));

    /* libvmaf's order (alphabetical option names), %g and %d */
    feature_default_opts(adm, &o);
    CHECK_EQ_INT(feature_set_opt(adm, &o, "adm_ref_display_height", "2160", err, sizeof err),
                 FOVEA_OK);
    CHECK_EQ_INT(feature_set_opt(adm, &o, "adm_ref_display_height", "2160.5", err, sizeof err),
                 FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(feature_set_opt(adm, &o, "adm_enhn_gain_limit", "1.2", err, sizeof err), FOVEA_OK);
    feature_suffix(adm, &o, suffix, sizeof suffix);
    CHECK(!strcmp(suffix, "_egl_1.2_rdh_2160"));

    /* the v1 models' ADM (libvmaf: integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02);
     * adm_skip_aim and debug are no feature parameters */
    feature_default_opts(adm, &o);
    static const char *const v1[][2] = {
        {"adm_csf_mode", "2"},          {"adm_dlm_weight", "0.7"},
        {"adm_enhn_gain_limit", "1.0"}, {"adm_noise_weight", "0.02"},
        {"adm_norm_view_dist", "3.0"},  {"adm_min_val", "0.5"},
        {"adm_skip_aim", "true"},       {"debug", "true"},
    };
    for (size_t i = 0; i < sizeof v1 / sizeof v1[0]; i++)
        CHECK_EQ_INT(feature_set_opt(adm, &o, v1[i][0], v1[i][1], err, sizeof err), FOVEA_OK);
    feature_suffix(adm, &o, suffix, sizeof suffix);
    CHECK(!strcmp(suffix, "_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02"));
    CHECK_EQ_INT(adm->count(&o), 18);
    CHECK_EQ_INT(adm->check(&o, err, sizeof err), FOVEA_OK);
    CHECK_EQ_INT(feature_set_opt(adm, &o, "adm_csf_scale", "2", err, sizeof err), FOVEA_OK);
    CHECK_EQ_INT(feature_set_opt(adm, &o, "adm_csf_diag_scale", "0.5", err, sizeof err), FOVEA_OK);
    CHECK_EQ_INT(feature_set_opt(adm, &o, "adm_skip_scale0", "true", err, sizeof err), FOVEA_OK);
    feature_suffix(adm, &o, suffix, sizeof suffix);
    CHECK(!strcmp(suffix, "_scfd_0.5_csf_2_scf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_ssz"));
    CHECK_EQ_INT(feature_set_opt(adm, &o, "adm_csf_mode", "4", err, sizeof err),
                 FOVEA_ERR_INVALID_ARG);
    /* the blend modes have weights for a few viewing conditions only */
    CHECK_EQ_INT(feature_set_opt(adm, &o, "adm_norm_view_dist", "4", err, sizeof err), FOVEA_OK);
    CHECK_EQ_INT(adm->check(&o, err, sizeof err), FOVEA_ERR_UNSUPPORTED);
    CHECK(strstr(err, "adm_csf_mode 2") != NULL);
    CHECK_EQ_INT(feature_set_opt(adm, &o, "adm_csf_mode", "0", err, sizeof err), FOVEA_OK);
    CHECK_EQ_INT(adm->check(&o, err, sizeof err), FOVEA_OK);
    CHECK_EQ_INT(feature_set_opt(adm, &o, "adm_norm_view_dist", "2.9", err, sizeof err), FOVEA_OK);
    CHECK_EQ_INT(adm->check(&o, err, sizeof err), FOVEA_ERR_UNSUPPORTED);

    feature_default_opts(motion, &o);
    static const char *const set[][2] = {
        {"motion_moving_average", "true"}, {"motion_max_val", "20"},
        {"motion_fps_weight", "2"},        {"motion_force_zero", "1"},
        {"motion_blend_offset", "20"},     {"motion_blend_factor", "0.5"},
    };
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
        CHECK_EQ_INT(feature_set_opt(motion, &o, set[i][0], set[i][1], err, sizeof err), FOVEA_OK);
    feature_suffix(motion, &o, suffix, sizeof suffix);
    CHECK(!strcmp(suffix, "_mbf_0.5_mbo_20_force_0_mfw_2_mmxv_20_mma"));

    /* the HFR v1 models' motion: history and lookahead 2 */
    feature_default_opts(motion, &o);
    int hist = -1, look = -1;
    feature_window(motion, &o, &hist, &look);
    CHECK(hist == 1 && look == 1);
    CHECK_EQ_INT(motion->count(&o), 3);
    CHECK_EQ_INT(feature_set_opt(motion, &o, "motion_five_frame_window", "true", err, sizeof err),
                 FOVEA_OK);
    CHECK_EQ_INT(feature_set_opt(motion, &o, "motion_max_val", "18", err, sizeof err), FOVEA_OK);
    CHECK_EQ_INT(feature_set_opt(motion, &o, "motion_moving_average", "true", err, sizeof err),
                 FOVEA_OK);
    CHECK_EQ_INT(feature_set_opt(motion, &o, "debug", "true", err, sizeof err), FOVEA_OK);
    feature_suffix(motion, &o, suffix, sizeof suffix);
    CHECK(!strcmp(suffix, "_mffw_mmxv_18_mma"));
    feature_window(motion, &o, &hist, &look);
    CHECK(hist == 2 && look == 2);
    CHECK_EQ_INT(motion->count(&o), 4);
}

/* Enum options (names in, index stored, the name in the suffix) and the
 * window of an instance (history and lookahead from its options). */
static const char *const method_names[] = {"bicubic", "bilinear", "lanczos", NULL};
static const feature_option win_options[2] = {
    {"win_five", "five", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 1, NULL},
    {"win_method", "wm", FEATURE_OPT_ENUM, 0.0, 0.0, 2.0, 1, method_names},
};

static void win_window(const feature_opts *o, int *history, int *lookahead)
{
    if (o->v[0] != 0.0) {
        *history = 2;
        *lookahead = 5; /* clamped to FEATURE_MAX_LOOKAHEAD */
    }
}

static const feature_def win_def = {
    "win",
    "win",
    FEATURE_PREV | FEATURE_LOOKAHEAD,
    1,
    0,
    2,
    win_options,
    1,
    toy_outputs,
    NULL,
    NULL,
    toy_derive,
    win_window,
    .aggregate = NULL,
};

static void test_enum_window(void)
{
    feature_opts o;
    char err[256], suffix[64];
    int history = -1, lookahead = -1;
    feature_default_opts(&win_def, &o);
    feature_window(&win_def, &o, &history, &lookahead);
    CHECK(history == 1 && lookahead == 1);
    feature_window(&toy_def, &o, &history, &lookahead);
    CHECK(history == 0 && lookahead == 0);
    CHECK_EQ_INT(feature_set_opt(&win_def, &o, "win_five", "true", err, sizeof err), FOVEA_OK);
    feature_window(&win_def, &o, &history, &lookahead);
    CHECK(history == 2 && lookahead == FEATURE_MAX_LOOKAHEAD);

    CHECK_EQ_INT(feature_set_opt(&win_def, &o, "win_method", "cubic", err, sizeof err),
                 FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(err, "bicubic, bilinear, lanczos") != NULL && strstr(err, "\"cubic\"") != NULL);
    CHECK_EQ_INT(feature_set_opt(&win_def, &o, "win_method", "bilinear", err, sizeof err),
                 FOVEA_OK);
    CHECK(o.v[1] == 1.0);
    feature_suffix(&win_def, &o, suffix, sizeof suffix);
    CHECK(!strcmp(suffix, "_five_wm_bilinear"));
    CHECK_EQ_INT(feature_set_opt(&win_def, &o, "win_method", "bicubic", err, sizeof err), FOVEA_OK);
    feature_suffix(&win_def, &o, suffix, sizeof suffix);
    CHECK(!strcmp(suffix, "_five"));
}

int main(void)
{
    test_lookups();
    test_enum_window();
    test_options();
    test_toy();
    return test_finish("test_quality_registry");
}
