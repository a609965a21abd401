/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The VMAF v0.6.1 model (src/quality/model.c) against libvmaf 3.2.0: the
 * loader (built-in and file, malformed models refused) and the prediction
 * from libvmaf's own feature values of every golden frame, compared to the
 * last bit. The score from the frames is test_quality_vmaf_api's. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "quality/model.h"
#include "testutil.h"
#include "vmaf_golden.h"

/* libvmaf's output name of a model feature (integer_adm2, ...). */
static const char *lib_name(const vmaf_model_feature *f)
{
    return f->def->outputs[f->output].name;
}

static void test_loader(void)
{
    char err[512];
    vmaf_model *m = NULL, *f = NULL;
    REQUIRE(vmaf_model_load_version(&m, "vmaf_v0.6.1", err, sizeof(err)) == FOVEA_OK);
    CHECK_EQ_INT(m->n_features, 6);
    CHECK_EQ_INT(m->n_sv, 211);
    CHECK(m->gamma == 0.04);
    CHECK(m->rho == -1.33133);
    CHECK(m->norm_type == VMAF_NORM_LINEAR_RESCALE);
    CHECK(m->clip_enabled && m->clip_min == 0.0 && m->clip_max == 100.0);
    CHECK(m->transform.present && !m->transform.enabled);
    CHECK(!strcmp(lib_name(&m->feature[0]), "integer_adm2") &&
          !strcmp(lib_name(&m->feature[1]), "integer_motion2"));
    CHECK(!strcmp(lib_name(&m->feature[5]), "integer_vif_scale3"));
    CHECK(m->slope == 0.012020766332648465 && m->feature[5].intercept == -1.083428597549764);
    /* the 4th support vector has no component 5: 4:-1.110223e-16 6:2.220446e-16 */
    CHECK(m->sv[3][3].index == 4 && m->sv[3][4].index == 6 && m->sv[3][5].index == -1);
    CHECK_EQ_INT(vmaf_model_load_version(&f, "vmaf_v0.6.2", err, sizeof(err)),
                 FOVEA_ERR_INVALID_ARG);
    CHECK(f == NULL && strstr(err, "vmaf_v0.6.2"));

    const char *src = getenv("FOVEA_SOURCE_DIR");
    if (src) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/models/vmaf_v0.6.1.json", src);
        REQUIRE(vmaf_model_load(&f, path, err, sizeof(err)) == FOVEA_OK);
        const double x[6] = {0.93, 3.5, 0.4, 0.8, 0.9, 0.95};
        CHECK(vmaf_model_predict(f, x, 0) == vmaf_model_predict(m, x, 0));
        /* the transform (p0 + p1 y + p2 y^2, never below y) only when asked */
        const double plain = vmaf_model_predict(m, x, VMAF_PREDICT_DISABLE_CLIP);
        const double tr =
            vmaf_model_predict(m, x, VMAF_PREDICT_ENABLE_TRANSFORM | VMAF_PREDICT_DISABLE_CLIP);
        double want = 0.;
        want += 1.70674692;
        want += 1.72643844 * plain;
        want += -0.00705305 * plain * plain;
        CHECK(tr == (want < plain ? plain : want));
        vmaf_model_free(&f);
        CHECK(f == NULL);
    }
    CHECK_EQ_INT(vmaf_model_load(&f, "/nonexistent/model.json", err, sizeof(err)), FOVEA_ERR_IO);

    /* malformed models: a clear message, nothing returned */
    static const struct {
        const char *json, *msg;
    } bad[] = {
        {"", "empty"},
        {"{\"model_dict\": {", "invalid JSON"},
        {"[]", "not a JSON object"},
        {"{}", "model_dict"},
        {"{\"model_dict\": {\"model_type\": \"LIBLINEAR\"}}", "LIBSVMNUSVR"},
        {"{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"feature_names\": "
         "[\"VMAF_feature_vif_scale0_score\"]}}",
         "\"VMAF_feature_vif_scale0_score\" (feature_names[0]) is not computed"},
        {"{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"model_type\": \"LIBSVMNUSVR\"}}",
         "twice"},
        {"{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"feature_names\": "
         "[\"VMAF_integer_feature_adm2_score\"], \"norm_type\": \"linear_rescale\", "
         "\"slopes\": [1], \"intercepts\": [0, 0]}}",
         "slopes"},
        {"{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"feature_names\": "
         "[\"VMAF_integer_feature_adm2_score\"], \"norm_type\": \"none\", "
         "\"model\": \"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.04\\nnr_class 2\\n"
         "total_sv 2\\nrho 1\\nSV\\n1 1:0.5\\n\"}}",
         "1 support vectors"},
        {"{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"feature_names\": "
         "[\"VMAF_integer_feature_adm2_score\"], \"norm_type\": \"none\", "
         "\"model\": \"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.04\\nnr_class 2\\n"
         "total_sv 1\\nrho 1\\nSV\\n1 2:0.5\\n\"}}",
         "beyond"},
        {"{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"feature_names\": "
         "[\"VMAF_integer_feature_adm2_score\"], \"norm_type\": \"none\", "
         "\"model\": \"svm_type nu_svr\\nkernel_type poly\\n\"}}",
         "rbf"},
        {"{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"feature_names\": "
         "[\"VMAF_integer_feature_adm2_score\"], \"norm_type\": \"none\", "
         "\"feature_opts_dicts\": [{\"adm_enhn_gain_limit\": 0.5}]}}",
         "adm_enhn_gain_limit"},
        {"{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"feature_names\": "
         "[\"VMAF_integer_feature_adm2_score\"], \"norm_type\": \"none\", "
         "\"model\": \"svm_type nu_svr\\nkernel_type rbf\\ngamma nan\\n\"}}",
         "gamma"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        int st = vmaf_model_parse(&f, bad[i].json, strlen(bad[i].json), err, sizeof(err));
        CHECK(st < 0);
        CHECK(f == NULL);
        if (!strstr(err, bad[i].msg)) {
            fprintf(stderr, "  bad model %zu: message \"%s\" lacks \"%s\"\n", i, err, bad[i].msg);
            CHECK(0);
        }
    }
    /* truncations of the real model never load */
    for (size_t n = 0; n < vmaf_model_builtin_v0_6_1_size; n += 97) {
        CHECK(vmaf_model_parse(&f, (const char *)vmaf_model_builtin_v0_6_1, n, err, sizeof(err)) <
              0);
        CHECK(f == NULL);
    }
    vmaf_model_free(&m);
}

/* The fuzz corpus (tests/fuzz/corpus/model): the valid_* models load, every
 * other one is refused with a message. */
static void test_corpus(void)
{
    const char *src = getenv("FOVEA_SOURCE_DIR");
    if (!src)
        return;
    char dir[4096], path[8192], err[512];
    snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/model", src);
    DIR *d = opendir(dir);
    REQUIRE(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        vmaf_model *m = NULL;
        err[0] = '\0';
        const int st = vmaf_model_load(&m, path, err, sizeof(err));
        const int valid = strncmp(e->d_name, "valid_", 6) == 0;
        if ((st == FOVEA_OK) != valid || (st != FOVEA_OK && !err[0])) {
            fprintf(stderr, "  corpus %s: status %d (%s)\n", e->d_name, st, err);
            CHECK(0);
        }
        vmaf_model_free(&m);
        n++;
    }
    closedir(d);
    CHECK(n >= 10);
}

static const cJSON *vmaf_set(const cJSON *root)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "features"),
                                            "vmaf_v0.6.1");
}

typedef struct case_result {
    int frames, exact;
    double max_diff;
} case_result;

/* Returns 0 when the case's vmaf_v0.6.1 section is not golden. */
static int run_case(const char *dir, const char *cs, const vmaf_model *m, case_result *res)
{
    memset(res, 0, sizeof(*res));
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s/expected.json", dir, cs);
    cJSON *root = golden_read_json(path);
    REQUIRE(root);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "status"), "vmaf_v0.6.1");
    if (!cJSON_IsString(st) || strstr(st->valuestring, "UNSTABLE")) {
        cJSON_Delete(root);
        return 0;
    }
    const cJSON *set = vmaf_set(root);
    const int n = cJSON_GetArraySize(golden_section(set, "per_frame", "vmaf"));
    int shown = 0;
    for (int i = 0; i < n; i++) {
        double x[VMAF_MODEL_MAX_FEATURES];
        for (int k = 0; k < m->n_features; k++)
            x[k] = golden_frame(set, lib_name(&m->feature[k]), i);
        const double got = vmaf_model_predict(m, x, 0), want = golden_frame(set, "vmaf", i);
        res->frames++;
        if (got == want) {
            res->exact++;
            continue;
        }
        const double d = fabs(got - want);
        if (!(d <= res->max_diff))
            res->max_diff = d;
        if (shown++ < 4)
            fprintf(stderr, "  %s frame %d: got %.17g, expected %.17g\n", cs, i, got, want);
    }
    cJSON_Delete(root);
    return 1;
}

static int test_golden(void)
{
    const char *dir = test_golden_dir("vif");
    if (!dir) {
        printf("golden data not found (../shared/testdata/vif.tar.xz absent at configure "
               "time): skipping the libvmaf VMAF comparison\n");
        return 0;
    }
    char err[512];
    vmaf_model *m = NULL;
    REQUIRE(vmaf_model_load_version(&m, "vmaf_v0.6.1", err, sizeof(err)) == FOVEA_OK);
    char path[4096];
    snprintf(path, sizeof(path), "%s/index.json", dir);
    cJSON *idx = golden_read_json(path);
    REQUIRE(idx);
    int n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(idx, "cases"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "case");
        if (!cJSON_IsString(name))
            continue;
        case_result res;
        if (!run_case(dir, name->valuestring, m, &res)) {
            printf("  %-36s not golden for VMAF: skipped\n", name->valuestring);
            continue;
        }
        n++;
        printf("  %-36s %3d frames: vmaf from libvmaf's features %3d exact", name->valuestring,
               res.frames, res.exact);
        if (res.max_diff > 0)
            printf(", max difference %.3g", res.max_diff);
        printf("\n");
        CHECK(res.frames > 0);
        CHECK_EQ_INT(res.exact, res.frames);
    }
    CHECK(n >= 11);
    cJSON_Delete(idx);
    vmaf_model_free(&m);
    return 1;
}

int main(void)
{
    test_loader();
    test_corpus();
    int golden = test_golden();
    int rc = test_finish("test_quality_vmaf");
    if (rc == 0 && !golden)
        return TEST_SKIP;
    return rc;
}
