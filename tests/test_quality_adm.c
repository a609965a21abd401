/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Integer ADM (src/quality/adm_ref.c) against libvmaf 3.2.0: every golden
 * case and frame compared to the last bit (integer_adm2, integer_aim,
 * integer_adm3, integer_adm_scale0..3), plus parameter checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "quality/adm.h"
#include "testutil.h"
#include "vmaf_golden.h"

static const char *const feature_names[] = {
    "integer_adm2",       "integer_aim",        "integer_adm3",       "integer_adm_scale0",
    "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3",
};
#define NFEATURES (sizeof(feature_names) / sizeof(feature_names[0]))

static double feature_value(const adm_result *r, size_t f)
{
    switch (f) {
    case 0: return r->adm2;
    case 1: return r->aim;
    case 2: return r->adm3;
    default: return r->scale[f - 3];
    }
}

/* features.vmaf_v0.6.1.per_frame.<name>[i] of the path to match (golden_frame). */
static double expected_value(const cJSON *root, const char *name, int i)
{
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(root, "features");
    return golden_frame(cJSON_GetObjectItemCaseSensitive(set, "vmaf_v0.6.1"), name, i);
}

/* The case's vmaf_v0.6.1 section is golden for ADM (akiyo_18x22 is not:
 * libvmaf reads outside its 18x22 frame). */
static int adm_is_golden(const cJSON *root)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, "status");
    st = cJSON_GetObjectItemCaseSensitive(st, "vmaf_v0.6.1");
    return cJSON_IsString(st) && strstr(st->valuestring, "UNSTABLE") == NULL;
}

typedef struct case_result {
    int frames, values, exact;
    double max_diff;
} case_result;

/* The luma plane of f with every sample shifted left by `up` bits, as 16-bit
 * little-endian containers (malloc'd; *stride in bytes). */
static uint8_t *widen(const fovea_frame *f, int bpc, int up, ptrdiff_t *stride)
{
    *stride = 2 * (ptrdiff_t)f->width;
    uint8_t *out = malloc((size_t)*stride * (size_t)f->height);
    REQUIRE(out);
    for (int i = 0; i < f->height; i++) {
        const uint8_t *row = f->data[0] + i * f->stride[0];
        for (int j = 0; j < f->width; j++) {
            unsigned v = bpc == 8 ? row[j] : (unsigned)(row[2 * j] | (row[2 * j + 1] << 8));
            v <<= up;
            out[i * *stride + 2 * j] = (uint8_t)v;
            out[i * *stride + 2 * j + 1] = (uint8_t)(v >> 8);
        }
    }
    return out;
}

/* Score the frames of one case (all when max_frames is 0) at bit depth
 * to_bpc (0: the file's; above it, the samples shifted up, which must give
 * the same bits: level 0 scales by 2^-bpc). Returns 0 when the case is not
 * golden for ADM. */
static int run_case(const char *dir, const char *cs, int to_bpc, int max_frames, case_result *res)
{
    memset(res, 0, sizeof(*res));
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s/expected.json", dir, cs);
    cJSON *root = golden_read_json(path);
    REQUIRE(root);
    if (!adm_is_golden(root)) {
        cJSON_Delete(root);
        return 0;
    }

    fovea_reader *rr = NULL, *rd = NULL;
    snprintf(path, sizeof(path), "%s/%s/ref.y4m", dir, cs);
    REQUIRE(fovea_reader_open(&rr, NULL, path, NULL) == FOVEA_OK);
    snprintf(path, sizeof(path), "%s/%s/dis.y4m", dir, cs);
    REQUIRE(fovea_reader_open(&rd, NULL, path, NULL) == FOVEA_OK);

    fovea_frame fr, fd;
    memset(&fr, 0, sizeof(fr));
    memset(&fd, 0, sizeof(fd));
    adm_state *st = NULL;
    for (int i = 0; max_frames == 0 || i < max_frames; i++) {
        int a = fovea_reader_read(rr, &fr), b = fovea_reader_read(rd, &fd);
        if (a == FOVEA_EOF || b == FOVEA_EOF)
            break;
        REQUIRE(a == FOVEA_OK && b == FOVEA_OK);
        const int bpc = fovea_pixfmt_get_desc(fr.fmt)->bit_depth;
        if (!st) {
            adm_params p;
            adm_default_params(&p, fr.width, fr.height, to_bpc ? to_bpc : bpc);
            REQUIRE(adm_open(&st, &p) == FOVEA_OK);
        }
        adm_result r;
        if (to_bpc && to_bpc != bpc) {
            ptrdiff_t rs, ds;
            uint8_t *wr = widen(&fr, bpc, to_bpc - bpc, &rs);
            uint8_t *wd = widen(&fd, bpc, to_bpc - bpc, &ds);
            adm_compute(st, wr, rs, wd, ds, &r);
            free(wr);
            free(wd);
        } else {
            adm_compute(st, fr.data[0], fr.stride[0], fd.data[0], fd.stride[0], &r);
        }
        res->frames++;
        for (size_t f = 0; f < NFEATURES; f++) {
            double want = expected_value(root, feature_names[f], i);
            double got = feature_value(&r, f);
            CHECK(!isnan(want));
            res->values++;
            if (got == want) {
                res->exact++;
                continue;
            }
            double d = fabs(got - want);
            if (!(d <= res->max_diff))
                res->max_diff = d;
            if (res->values - res->exact <= 4)
                fprintf(stderr, "  %s frame %d %s: got %.17g, expected %.17g\n", cs, i,
                        feature_names[f], got, want);
        }
    }
    adm_close(&st);
    fovea_frame_free(NULL, &fr);
    fovea_frame_free(NULL, &fd);
    fovea_reader_close(&rr);
    fovea_reader_close(&rd);
    cJSON_Delete(root);
    return 1;
}

static int test_golden(void)
{
    const char *dir = test_golden_dir("vif");
    if (!dir) {
        printf("golden data not found (../shared/testdata/vif.tar.xz absent at configure "
               "time): skipping the libvmaf ADM comparison\n");
        return 0;
    }
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
        if (!run_case(dir, name->valuestring, 0, 0, &res)) {
            printf("  %-36s not golden for ADM: skipped\n", name->valuestring);
            continue;
        }
        n++;
        printf("  %-36s %3d frames, %4d/%4d values exact%s", name->valuestring, res.frames,
               res.exact, res.values, res.exact == res.values ? "\n" : "");
        if (res.exact != res.values)
            printf(", max difference %.3g\n", res.max_diff);
        CHECK(res.frames > 0);
        CHECK_EQ_INT(res.exact, res.values);
    }
    CHECK(n >= 11);
    cJSON_Delete(idx);

    /* 12 and 16 bits (no golden files): golden 8- and 10-bit frames, odd sizes
     * among them, widened; 16 bits also exercises libvmaf's int32 level-0 sums
     * that wrap in between and come back in range. */
    static const struct {
        const char *cs;
        int frames;
    } wide[] = {{"src01_160x90", 4},
                {"bsds_100007_481x321_444", 1},
                {"seeking30_crop577x323_x264crf35", 2},
                {"sparks_480x270_10b", 2}};
    static const int depths[] = {10, 12, 16};
    for (size_t k = 0; k < sizeof(wide) / sizeof(wide[0]); k++) {
        for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
            if (depths[d] == 10 && strstr(wide[k].cs, "10b"))
                continue;
            case_result res;
            REQUIRE(run_case(dir, wide[k].cs, depths[d], wide[k].frames, &res));
            printf("  %-30s as %2d-bit %3d frames, %4d/%4d values exact\n", wide[k].cs, depths[d],
                   res.frames, res.exact, res.values);
            CHECK(res.frames > 0);
            CHECK_EQ_INT(res.exact, res.values);
        }
    }
    return 1;
}

static void test_params(void)
{
    adm_params p;
    adm_state *st = NULL;
    adm_default_params(&p, 32, 64, 8);
    CHECK_EQ_INT(adm_open(&st, &p), FOVEA_ERR_INVALID_ARG);
    CHECK(st == NULL);
    adm_default_params(&p, 64, 32, 8);
    CHECK_EQ_INT(adm_open(&st, &p), FOVEA_ERR_INVALID_ARG);
    adm_default_params(&p, 33, 33, 9);
    CHECK_EQ_INT(adm_open(&st, &p), FOVEA_ERR_INVALID_ARG);
    adm_default_params(&p, 33, 33, 8);
    p.norm_view_dist = 2.0; /* below 1080p at 3H */
    CHECK_EQ_INT(adm_open(&st, &p), FOVEA_ERR_INVALID_ARG);
    adm_default_params(&p, 33, 33, 8);
    p.enhn_gain_limit = 0.5;
    CHECK_EQ_INT(adm_open(&st, &p), FOVEA_ERR_INVALID_ARG);
    adm_default_params(&p, 33, 33, 8);
    CHECK_EQ_INT(adm_open(&st, &p), FOVEA_OK);
    REQUIRE(st);
    adm_close(&st);
    CHECK(st == NULL);
    adm_close(&st);
}

int main(void)
{
    test_params();
    int golden = test_golden();
    int rc = test_finish("test_quality_adm");
    if (rc == 0 && !golden)
        return TEST_SKIP;
    return rc;
}
