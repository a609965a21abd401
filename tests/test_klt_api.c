/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* KLT API without golden data: defaults, pyramid/border helpers, feature
 * list / history / table files (text and binary round trips, malformed input),
 * the PPM overlay, and per-context state (two contexts with different sigmas
 * interleaved give the results each gives alone), and the tracking-context
 * fields by name (fovea_klt_set_field / get_field / field_name). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/advanced.h"
#include "fovea/io.h"
#include "fovea/klt.h"
#include "testutil.h"

static void test_defaults(void)
{
    KLT_TrackingContext tc = KLTCreateTrackingContext();
    REQUIRE(tc != NULL);
    CHECK_EQ_INT(tc->mindist, 10);
    CHECK_EQ_INT(tc->window_width, 7);
    CHECK_EQ_INT(tc->window_height, 7);
    CHECK_EQ_INT(tc->sequentialMode, 0);
    CHECK_EQ_INT(tc->smoothBeforeSelecting, 1);
    CHECK_EQ_INT(tc->min_eigenvalue, 1);
    CHECK(tc->min_determinant == 0.01f);
    CHECK(tc->min_displacement == 0.1f);
    CHECK_EQ_INT(tc->max_iterations, 10);
    CHECK(tc->max_residue == 10.0f);
    CHECK(tc->grad_sigma == 1.0f);
    CHECK(tc->smooth_sigma_fact == 0.1f);
    CHECK(tc->pyramid_sigma_fact == 0.9f);
    CHECK(tc->step_factor == 1.0f);
    CHECK_EQ_INT(tc->nSkippedPixels, 0);
    CHECK_EQ_INT(tc->nPyramidLevels, 2);
    CHECK_EQ_INT(tc->subsampling, 4);
    CHECK_EQ_INT(tc->borderx, 24);
    CHECK_EQ_INT(tc->bordery, 24);
    CHECK_EQ_INT(tc->affine_window_width, 15);
    CHECK_EQ_INT(tc->affineConsistencyCheck, -1);
    CHECK_EQ_INT(tc->affine_max_iterations, 10);
    CHECK(tc->affine_max_residue == 10.0f);
    CHECK(tc->affine_min_displacement == 0.02f);
    CHECK(tc->affine_max_displacement_differ == 1.5f);
    CHECK(tc->pyramid_last == NULL);
    CHECK_EQ_INT(tc->backend, FOVEA_BACKEND_AUTO);

    /* KLTChangeTCPyramid rules (window 7 -> half width 3.5) */
    KLTChangeTCPyramid(tc, 3);
    CHECK_EQ_INT(tc->nPyramidLevels, 1);
    KLTChangeTCPyramid(tc, 10);
    CHECK_EQ_INT(tc->nPyramidLevels, 2);
    CHECK_EQ_INT(tc->subsampling, 2);
    KLTChangeTCPyramid(tc, 30);
    CHECK_EQ_INT(tc->nPyramidLevels, 2);
    CHECK_EQ_INT(tc->subsampling, 8);
    KLTChangeTCPyramid(tc, 100);
    CHECK_EQ_INT(tc->nPyramidLevels, 3);
    CHECK_EQ_INT(tc->subsampling, 8);
    /* odd window correction */
    tc->window_width = 8;
    KLTChangeTCPyramid(tc, 15);
    CHECK_EQ_INT(tc->window_width, 9);

    /* the explicit print goes where the caller says */
    char *path = test_tmp_path(".txt");
    FILE *fp = fopen(path, "w");
    REQUIRE(fp != NULL);
    fovea_klt_print_context(tc, fp);
    fclose(fp);
    fp = fopen(path, "r");
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    CHECK(strstr(buf, "mindist = 10") != NULL);
    CHECK(strstr(buf, "window_width = 9") != NULL);
    free(path);

    KLTSetVerbosity(1); /* no effect, no output */
    KLTFreeTrackingContext(tc);
    KLTFreeTrackingContext(NULL);
}

static void fill_list(KLT_FeatureList fl, test_rng *rng)
{
    for (int i = 0; i < fl->nFeatures; i++) {
        KLT_Feature f = fl->feature[i];
        if (i % 5 == 3) {
            f->x = f->y = -1.0f;
            f->val = -(int)test_rng_below(rng, 5) - 1;
        } else {
            f->x = (float)(test_rng_double(rng) * 999.0);
            f->y = (float)(test_rng_double(rng) * 999.0);
            f->val = (int)test_rng_below(rng, 100000);
        }
    }
}

static int lists_equal(KLT_FeatureList a, KLT_FeatureList b)
{
    if (!a || !b || a->nFeatures != b->nFeatures)
        return 0;
    for (int i = 0; i < a->nFeatures; i++)
        if (a->feature[i]->x != b->feature[i]->x || a->feature[i]->y != b->feature[i]->y ||
            a->feature[i]->val != b->feature[i]->val)
            return 0;
    return 1;
}

static void test_files(void)
{
    test_rng rng;
    test_rng_seed(&rng, 7);
    KLT_FeatureList fl = KLTCreateFeatureList(23);
    REQUIRE(fl != NULL);
    fill_list(fl, &rng);

    /* binary: exact */
    char *bin = test_tmp_path(".fl");
    CHECK_EQ_INT(fovea_klt_write_feature_list(fl, bin, NULL), FOVEA_OK);
    KLT_FeatureList rb = KLTReadFeatureList(NULL, bin);
    CHECK(lists_equal(fl, rb));
    KLT_FeatureList into = KLTCreateFeatureList(23);
    CHECK(KLTReadFeatureList(into, bin) == into);
    CHECK(lists_equal(fl, into));
    KLT_FeatureList wrong = KLTCreateFeatureList(5);
    CHECK(KLTReadFeatureList(wrong, bin) == NULL); /* count differs */

    /* text with enough digits: exact too */
    char *txt = test_tmp_path(".txt");
    CHECK_EQ_INT(fovea_klt_write_feature_list(fl, txt, "%16.8f"), FOVEA_OK);
    KLT_FeatureList rt = KLTReadFeatureList(NULL, txt);
    CHECK(lists_equal(fl, rt));
    FILE *fp = fopen(txt, "r");
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    CHECK(strncmp(buf, "Feel free to place comments here.\n", 34) == 0);
    CHECK(strstr(buf, "KLT Feature List\n") != NULL);
    CHECK(strstr(buf, "nFeatures = 23\n") != NULL);
    CHECK(strstr(buf, "      0 | (") != NULL);

    /* KLT's usual formats: rounded as printed */
    KLTWriteFeatureList(fl, txt, "%5.1f");
    KLT_FeatureList r1 = KLTReadFeatureList(NULL, txt);
    REQUIRE(r1 != NULL);
    for (int i = 0; i < fl->nFeatures; i++) {
        char s[64];
        snprintf(s, sizeof s, "%5.1f", (double)fl->feature[i]->x);
        CHECK(r1->feature[i]->x == strtof(s, NULL));
        CHECK_EQ_INT(r1->feature[i]->val, fl->feature[i]->val);
    }
    KLTWriteFeatureList(fl, txt, "%3d");
    KLT_FeatureList r2 = KLTReadFeatureList(NULL, txt);
    REQUIRE(r2 != NULL);
    for (int i = 0; i < fl->nFeatures; i++) {
        float x = fl->feature[i]->x;
        float want = x >= 0 ? (float)(int)(x + 0.5f) : (float)(int)x;
        CHECK(r2->feature[i]->x == want);
    }
    CHECK_EQ_INT(fovea_klt_write_feature_list(fl, txt, "5.1f"), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_klt_write_feature_list(fl, txt, "%5.1s"), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_klt_write_feature_list(fl, NULL, NULL), FOVEA_ERR_INVALID_ARG);

    /* table and history */
    KLT_FeatureTable ft = KLTCreateFeatureTable(3, 23);
    REQUIRE(ft != NULL);
    for (int fr = 0; fr < 3; fr++) {
        fill_list(fl, &rng);
        KLTStoreFeatureList(fl, ft, fr);
    }
    char *tbin = test_tmp_path(".ft");
    char *ttxt = test_tmp_path(".txt");
    CHECK_EQ_INT(fovea_klt_write_feature_table(ft, tbin, NULL), FOVEA_OK);
    CHECK_EQ_INT(fovea_klt_write_feature_table(ft, ttxt, "%16.8f"), FOVEA_OK);
    KLT_FeatureTable t1 = KLTReadFeatureTable(NULL, tbin);
    KLT_FeatureTable t2 = KLTReadFeatureTable(NULL, ttxt);
    REQUIRE(t1 && t2);
    KLT_FeatureList a = KLTCreateFeatureList(23), b = KLTCreateFeatureList(23);
    for (int fr = 0; fr < 3; fr++) {
        KLTExtractFeatureList(fl, ft, fr);
        KLTExtractFeatureList(a, t1, fr);
        KLTExtractFeatureList(b, t2, fr);
        CHECK(lists_equal(fl, a));
        CHECK(lists_equal(fl, b));
    }
    KLT_FeatureHistory fh = KLTCreateFeatureHistory(3);
    KLTExtractFeatureHistory(fh, ft, 4);
    CHECK_EQ_INT(fovea_klt_write_feature_history(fh, tbin, NULL), FOVEA_OK);
    KLT_FeatureHistory h1 = KLTReadFeatureHistory(NULL, tbin);
    CHECK_EQ_INT(fovea_klt_write_feature_history(fh, ttxt, "%16.8f"), FOVEA_OK);
    KLT_FeatureHistory h2 = KLTReadFeatureHistory(NULL, ttxt);
    REQUIRE(h1 && h2);
    for (int fr = 0; fr < 3; fr++) {
        CHECK(h1->feature[fr]->x == ft->feature[4][fr]->x);
        CHECK(h2->feature[fr]->y == ft->feature[4][fr]->y);
        CHECK_EQ_INT(h2->feature[fr]->val, ft->feature[4][fr]->val);
    }
    /* a list file is not a table */
    CHECK(KLTReadFeatureTable(NULL, bin) == NULL);

    /* malformed files */
    static const char junk1[] = "KLTFL1";
    static const char junk2[] = "KLTFL1\x05\x00\x00\x00\x01\x02";
    static const char junk3[] = "hello\n";
    char *j1 = test_write_tmp(".fl", junk1, sizeof junk1 - 1);
    char *j2 = test_write_tmp(".fl", junk2, sizeof junk2 - 1);
    char *j3 = test_write_tmp(".fl", junk3, sizeof junk3 - 1);
    CHECK(KLTReadFeatureList(NULL, j1) == NULL);
    CHECK(KLTReadFeatureList(NULL, j2) == NULL);
    CHECK(KLTReadFeatureList(NULL, j3) == NULL);
    CHECK(KLTReadFeatureList(NULL, "/nonexistent/dir/x.fl") == NULL);
    /* counts larger than the file could hold are refused before allocating */
    static const char junk5[] = "KLTFT1\x00\x00\x00\x00\x00\x00\x00\x0e";
    static const char junk6[] = "KLTFL1\xff\xff\xff\x0f";
    char *j5 = test_write_tmp(".ft", junk5, sizeof junk5 - 1);
    char *j6 = test_write_tmp(".fl", junk6, sizeof junk6 - 1);
    CHECK(KLTReadFeatureTable(NULL, j5) == NULL);
    CHECK(KLTReadFeatureList(NULL, j6) == NULL);
    free(j5);
    free(j6);
    /* a text file cut in the middle of the data */
    CHECK_EQ_INT(fovea_klt_write_feature_list(fl, txt, "%8.2f"), FOVEA_OK);
    fp = fopen(txt, "rb");
    char big[8192];
    n = fread(big, 1, sizeof big, fp);
    fclose(fp);
    char *j4 = test_write_tmp(".txt", big, n - 40);
    CHECK(KLTReadFeatureList(NULL, j4) == NULL);

    free(bin);
    free(txt);
    free(tbin);
    free(ttxt);
    free(j1);
    free(j2);
    free(j3);
    free(j4);
    KLTFreeFeatureList(fl);
    KLTFreeFeatureList(rb);
    KLTFreeFeatureList(into);
    KLTFreeFeatureList(wrong);
    KLTFreeFeatureList(rt);
    KLTFreeFeatureList(r1);
    KLTFreeFeatureList(r2);
    KLTFreeFeatureList(a);
    KLTFreeFeatureList(b);
    KLTFreeFeatureTable(ft);
    KLTFreeFeatureTable(t1);
    KLTFreeFeatureTable(t2);
    KLTFreeFeatureHistory(fh);
    KLTFreeFeatureHistory(h1);
    KLTFreeFeatureHistory(h2);
}

/* Smooth random texture, shifted by (dx, dy) per frame. */
static unsigned char *make_frame(int w, int h, float dx, float dy, uint64_t seed)
{
    unsigned char *img = malloc((size_t)w * h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double u = x - dx, v = y - dy;
            double s = 128 + 50 * sin(u * 0.21 + (double)seed) * cos(v * 0.17) +
                       40 * sin(u * 0.053 + v * 0.091) + 20 * cos(u * 0.37 - v * 0.29);
            img[(size_t)y * w + x] = (unsigned char)(s < 0 ? 0 : s > 255 ? 255 : s);
        }
    return img;
}

typedef struct seq_run {
    KLT_TrackingContext tc;
    KLT_FeatureList fl;
    float out[6][60][3];
} seq_run;

static void seq_init(seq_run *r, float grad_sigma, float smooth_fact, int affine)
{
    r->tc = KLTCreateTrackingContext();
    r->tc->grad_sigma = grad_sigma;
    r->tc->smooth_sigma_fact = smooth_fact;
    r->tc->affineConsistencyCheck = affine;
    KLTUpdateTCBorder(r->tc);
    r->fl = KLTCreateFeatureList(60);
}

static void seq_record(seq_run *r, int k)
{
    for (int i = 0; i < 60; i++) {
        r->out[k][i][0] = r->fl->feature[i]->x;
        r->out[k][i][1] = r->fl->feature[i]->y;
        r->out[k][i][2] = (float)r->fl->feature[i]->val;
    }
}

static void seq_step(seq_run *r, unsigned char **fr, int k, int w, int h)
{
    if (k == 0)
        KLTSelectGoodFeatures(r->tc, fr[0], w, h, r->fl);
    else {
        KLTTrackFeatures(r->tc, fr[k - 1], fr[k], w, h, r->fl);
        KLTReplaceLostFeatures(r->tc, fr[k], w, h, r->fl);
    }
    CHECK_EQ_INT(fovea_klt_last_status(r->tc), FOVEA_OK);
    seq_record(r, k);
}

static void seq_free(seq_run *r)
{
    KLTFreeFeatureList(r->fl);
    KLTFreeTrackingContext(r->tc);
}

static void test_contexts_independent(void)
{
    const int w = 160, h = 120;
    unsigned char *fr[6];
    for (int k = 0; k < 6; k++)
        fr[k] = make_frame(w, h, 0.7f * k, -0.45f * k, 3);

    /* A: defaults; B: other gradient and smoothing sigmas, affine check */
    seq_run a1, b1, a2, b2;
    seq_init(&a1, 1.0f, 0.1f, -1);
    seq_init(&b1, 1.6f, 0.2f, 2);
    for (int k = 0; k < 6; k++)
        seq_step(&a1, fr, k, w, h);
    for (int k = 0; k < 6; k++)
        seq_step(&b1, fr, k, w, h);
    seq_init(&a2, 1.0f, 0.1f, -1);
    seq_init(&b2, 1.6f, 0.2f, 2);
    for (int k = 0; k < 6; k++) {
        seq_step(&a2, fr, k, w, h);
        seq_step(&b2, fr, k, w, h);
    }
    CHECK(memcmp(a1.out, a2.out, sizeof a1.out) == 0);
    CHECK(memcmp(b1.out, b2.out, sizeof b1.out) == 0);
    /* the two really differ, and features were tracked */
    CHECK(memcmp(a1.out, b1.out, sizeof a1.out) != 0);
    CHECK(KLTCountRemainingFeatures(a1.fl) > 30);

    /* threads give the same numbers */
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    s.threads = 3;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
    seq_run a3;
    seq_init(&a3, 1.0f, 0.1f, -1);
    a3.tc->ctx = ctx;
    for (int k = 0; k < 6; k++)
        seq_step(&a3, fr, k, w, h);
    CHECK(memcmp(a1.out, a3.out, sizeof a1.out) == 0);

    /* sequential mode gives the non-sequential results */
    seq_run a4;
    seq_init(&a4, 1.0f, 0.1f, -1);
    a4.tc->sequentialMode = TRUE;
    for (int k = 0; k < 6; k++)
        seq_step(&a4, fr, k, w, h);
    CHECK(memcmp(a1.out, a4.out, sizeof a1.out) == 0);
    CHECK(a4.tc->pyramid_last != NULL);
    KLTStopSequentialMode(a4.tc);
    CHECK(a4.tc->pyramid_last == NULL);

    /* PPM overlay */
    char *ppm = test_tmp_path(".ppm");
    CHECK_EQ_INT(fovea_klt_write_feature_list_ppm(a1.fl, fr[5], w, h, ppm), FOVEA_OK);
    FILE *fp = fopen(ppm, "rb");
    REQUIRE(fp != NULL);
    static unsigned char buf[200000];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    fovea_frame f;
    memset(&f, 0, sizeof f);
    REQUIRE(fovea_pnm_decode(NULL, buf, n, &f) == FOVEA_OK);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_RGB24);
    for (int i = 0; i < 60; i++) {
        KLT_Feature ft = a1.fl->feature[i];
        if (ft->val < 0)
            continue;
        const uint8_t *p = f.data[0] + (int)(ft->y + 0.5f) * f.stride[0] + 3 * (int)(ft->x + 0.5f);
        CHECK(p[0] == 255 && p[1] == 0 && p[2] == 0);
        break;
    }
    fovea_frame_free(NULL, &f);
    free(ppm);

    /* bad arguments are reported, not fatal */
    KLTTrackFeatures(a1.tc, NULL, fr[1], w, h, a1.fl);
    CHECK(fovea_klt_last_status(a1.tc) < 0);
    KLTSelectGoodFeatures(a1.tc, fr[0], 0, h, a1.fl);
    CHECK(fovea_klt_last_status(a1.tc) == FOVEA_ERR_INVALID_ARG);
    a1.tc->subsampling = 3;
    KLTTrackFeatures(a1.tc, fr[0], fr[1], w, h, a1.fl);
    CHECK(fovea_klt_last_status(a1.tc) == FOVEA_ERR_INVALID_ARG);

    seq_free(&a1);
    seq_free(&b1);
    seq_free(&a2);
    seq_free(&b2);
    seq_free(&a3);
    seq_free(&a4);
    fovea_close(&ctx);
    for (int k = 0; k < 6; k++)
        free(fr[k]);
}

/* Every field by name: the list, a set / get round trip that changes that
 * field of the struct and no other, the conversions, and the refusals. */
static void test_fields(void)
{
    KLT_TrackingContext tc = KLTCreateTrackingContext();
    REQUIRE(tc != NULL);
    const struct {
        const char *name;
        int *i;   /* the int (KLT_BOOL) field, */
        float *f; /* or the float field */
    } fields[] = {
        {"mindist", &tc->mindist, NULL},
        {"window_width", &tc->window_width, NULL},
        {"window_height", &tc->window_height, NULL},
        {"sequentialMode", &tc->sequentialMode, NULL},
        {"smoothBeforeSelecting", &tc->smoothBeforeSelecting, NULL},
        {"writeInternalImages", &tc->writeInternalImages, NULL},
        {"lighting_insensitive", &tc->lighting_insensitive, NULL},
        {"min_eigenvalue", &tc->min_eigenvalue, NULL},
        {"min_determinant", NULL, &tc->min_determinant},
        {"min_displacement", NULL, &tc->min_displacement},
        {"max_iterations", &tc->max_iterations, NULL},
        {"max_residue", NULL, &tc->max_residue},
        {"grad_sigma", NULL, &tc->grad_sigma},
        {"smooth_sigma_fact", NULL, &tc->smooth_sigma_fact},
        {"pyramid_sigma_fact", NULL, &tc->pyramid_sigma_fact},
        {"step_factor", NULL, &tc->step_factor},
        {"nSkippedPixels", &tc->nSkippedPixels, NULL},
        {"borderx", &tc->borderx, NULL},
        {"bordery", &tc->bordery, NULL},
        {"nPyramidLevels", &tc->nPyramidLevels, NULL},
        {"subsampling", &tc->subsampling, NULL},
        {"affine_window_width", &tc->affine_window_width, NULL},
        {"affine_window_height", &tc->affine_window_height, NULL},
        {"affineConsistencyCheck", &tc->affineConsistencyCheck, NULL},
        {"affine_max_iterations", &tc->affine_max_iterations, NULL},
        {"affine_max_residue", NULL, &tc->affine_max_residue},
        {"affine_min_displacement", NULL, &tc->affine_min_displacement},
        {"affine_max_displacement_differ", NULL, &tc->affine_max_displacement_differ},
    };
    const int n = (int)(sizeof(fields) / sizeof(fields[0]));

    /* the list: these names in this order, then NULL */
    for (int k = 0; k < n; k++) {
        const char *name = fovea_klt_field_name(k);
        CHECK(name != NULL && strcmp(name, fields[k].name) == 0);
    }
    CHECK(fovea_klt_field_name(n) == NULL);
    CHECK(fovea_klt_field_name(-1) == NULL);

    /* get reads the defaults */
    double v = -1.0;
    CHECK_EQ_INT(fovea_klt_get_field(tc, "window_width", &v), FOVEA_OK);
    CHECK(v == 7.0);
    CHECK_EQ_INT(fovea_klt_get_field(tc, "smooth_sigma_fact", &v), FOVEA_OK);
    CHECK(v == (double)0.1f);
    CHECK_EQ_INT(fovea_klt_get_field(tc, "affineConsistencyCheck", &v), FOVEA_OK);
    CHECK(v == -1.0);

    /* round trips: field k gets a value of its own; the struct holds it, get
     * gives it back, and every other field keeps its value */
    for (int k = 0; k < n; k++) {
        double before[64];
        for (int m = 0; m < n; m++)
            CHECK_EQ_INT(fovea_klt_get_field(tc, fields[m].name, &before[m]), FOVEA_OK);
        /* ints: negative and positive, floats: not exact in binary */
        double set = fields[k].i ? (k % 2 ? -(1000.0 + k) : 100000.0 + k) : 0.1 + k;
        CHECK_EQ_INT(fovea_klt_set_field(tc, fields[k].name, set), FOVEA_OK);
        double want = fields[k].i ? set : (double)(float)set;
        if (fields[k].i)
            CHECK(*fields[k].i == (int)set);
        else
            CHECK(*fields[k].f == (float)set);
        double got = 0.0;
        CHECK_EQ_INT(fovea_klt_get_field(tc, fields[k].name, &got), FOVEA_OK);
        CHECK(got == want);
        for (int m = 0; m < n; m++) {
            double now = 0.0;
            CHECK_EQ_INT(fovea_klt_get_field(tc, fields[m].name, &now), FOVEA_OK);
            if (m != k && now != before[m])
                fprintf(stderr, "setting %s changed %s\n", fields[k].name, fields[m].name);
            CHECK(m == k || now == before[m]);
        }
    }
    /* the range ends: INT_MIN / INT_MAX, FLT_MAX */
    CHECK_EQ_INT(fovea_klt_set_field(tc, "mindist", -2147483648.0), FOVEA_OK);
    CHECK(tc->mindist == -2147483647 - 1);
    CHECK_EQ_INT(fovea_klt_set_field(tc, "mindist", 2147483647.0), FOVEA_OK);
    CHECK(tc->mindist == 2147483647);
    CHECK_EQ_INT(fovea_klt_set_field(tc, "max_residue", 3.4028234663852886e38), FOVEA_OK);
    CHECK(tc->max_residue == 3.4028234663852886e38f);
    CHECK_EQ_INT(fovea_klt_set_field(tc, "max_residue", -0.25), FOVEA_OK);
    CHECK(tc->max_residue == -0.25f);

    /* a success leaves the last status as it was; a failure sets it */
    CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_OK);
    static const char *const unknown[] = {"",        "nope", "Mindist", "mindist ", "pyramid_last",
                                          "backend", "ctx",  "priv"};
    for (size_t u = 0; u < sizeof(unknown) / sizeof(unknown[0]); u++) {
        CHECK_EQ_INT(fovea_klt_set_field(tc, unknown[u], 1.0), FOVEA_ERR_INVALID_ARG);
        CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_ERR_INVALID_ARG);
        CHECK(strstr(fovea_last_error(tc->ctx), "unknown tracking-context field") != NULL);
        v = 42.0;
        CHECK_EQ_INT(fovea_klt_get_field(tc, unknown[u], &v), FOVEA_ERR_INVALID_ARG);
        CHECK(v == 42.0);
    }
    CHECK(strstr(fovea_last_error(tc->ctx), "'priv'") != NULL);
    CHECK_EQ_INT(fovea_klt_set_field(tc, "mindist", 5.0), FOVEA_OK);
    CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_ERR_INVALID_ARG); /* left as it was */

    /* values the field cannot hold: refused, the field unchanged */
    static const double bad_int[] = {2.5, -0.5, 2147483648.0, -2147483649.0, NAN, INFINITY};
    for (size_t b = 0; b < sizeof(bad_int) / sizeof(bad_int[0]); b++) {
        CHECK_EQ_INT(fovea_klt_set_field(tc, "mindist", bad_int[b]), FOVEA_ERR_INVALID_ARG);
        CHECK(tc->mindist == 5);
    }
    static const double bad_float[] = {NAN, INFINITY, -INFINITY, 1e39, -1e39};
    for (size_t b = 0; b < sizeof(bad_float) / sizeof(bad_float[0]); b++) {
        CHECK_EQ_INT(fovea_klt_set_field(tc, "max_residue", bad_float[b]), FOVEA_ERR_INVALID_ARG);
        CHECK(tc->max_residue == -0.25f);
    }
    CHECK(strstr(fovea_last_error(tc->ctx), "max_residue") != NULL);

    /* NULL arguments */
    CHECK_EQ_INT(fovea_klt_set_field(NULL, "mindist", 1.0), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_klt_get_field(NULL, "mindist", &v), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_klt_set_field(tc, NULL, 1.0), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_klt_get_field(tc, NULL, &v), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_klt_get_field(tc, "mindist", NULL), FOVEA_ERR_INVALID_ARG);
    CHECK(tc->mindist == 5);
    KLTFreeTrackingContext(tc);
}

int main(void)
{
    test_defaults();
    test_files();
    test_contexts_independent();
    test_fields();
    return test_finish("test_klt_api");
}
