/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Integer VIF: every golden case of libvmaf compared to the last bit (per-frame
 * scales, debug numerators/denominators, pooled values), threaded == serial,
 * odd sizes and bit depths, determinism, and argument checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fovea/quality.h"
#include "vif_test.h"
#include "testutil.h"
#include "vmaf_golden.h"

/* Every frame of every case runs in about 16 s in a Debug ASan build, so no
 * case is cut short; FOVEA_VIF_TEST_FRAMES=N limits the frames per case. */

static fovea_context *open_ctx(int threads)
{
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    s.threads = threads;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
    return ctx;
}

/* Per-frame value [i] of features.<set>.per_frame.<name>, or NAN. */
static double expected_value(const cJSON *root, const char *set, const char *name, int i)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, "features");
    f = cJSON_GetObjectItemCaseSensitive(f, set);
    f = cJSON_GetObjectItemCaseSensitive(f, "per_frame");
    f = cJSON_GetObjectItemCaseSensitive(f, name);
    const cJSON *v = cJSON_GetArrayItem(f, i);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static double expected_pooled(const cJSON *root, const char *name, const char *what)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, "features");
    f = cJSON_GetObjectItemCaseSensitive(f, "vif");
    f = cJSON_GetObjectItemCaseSensitive(f, "pooled");
    f = cJSON_GetObjectItemCaseSensitive(f, name);
    f = cJSON_GetObjectItemCaseSensitive(f, what);
    return cJSON_IsNumber(f) ? f->valuedouble : NAN;
}

typedef struct case_result {
    int frames, values, exact;
    double max_diff;
} case_result;

static void compare(case_result *r, const char *cs, int frame, const char *name, double got,
                    double want)
{
    if (isnan(want))
        return;
    r->values++;
    if (got == want) {
        r->exact++;
        return;
    }
    double d = fabs(got - want);
    if (d > r->max_diff)
        r->max_diff = d;
    if (r->values - r->exact <= 3)
        fprintf(stderr, "  %s frame %d %s: got %.17g, expected %.17g\n", cs, frame, name, got,
                want);
}

/* One golden case: every frame (or the first max_frames) with a 2-thread
 * context, and the first frames also serially (must be identical). */
static void golden_case(const char *dir, const char *cs, int max_frames)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s/expected.json", dir, cs);
    char *text = test_read_text(path);
    if (!text) {
        fprintf(stderr, "%s: cannot read\n", path);
        test_failures++;
        return;
    }
    cJSON *root = cJSON_Parse(text);
    free(text);
    REQUIRE(root);

    fovea_reader *rr = NULL, *rd = NULL;
    snprintf(path, sizeof(path), "%s/%s/ref.y4m", dir, cs);
    int st = fovea_reader_open(&rr, NULL, path, NULL);
    if (st == FOVEA_OK) {
        snprintf(path, sizeof(path), "%s/%s/dis.y4m", dir, cs);
        st = fovea_reader_open(&rd, NULL, path, NULL);
    }
    if (st != FOVEA_OK) {
        fprintf(stderr, "%s\n", fovea_last_error(NULL));
        test_failures++;
        fovea_reader_close(&rr);
        cJSON_Delete(root);
        return;
    }

    fovea_context *ctx2 = open_ctx(2), *ctx1 = open_ctx(1);
    vif_test_settings set;
    vif_test_default_settings(&set);
    set.debug = 1;
    fovea_vmaf *v2 = NULL, *v1 = NULL;
    REQUIRE(vif_test_open(&v2, ctx2, &set) == FOVEA_OK);
    REQUIRE(vif_test_open(&v1, ctx1, &set) == FOVEA_OK);

    fovea_frame fr, fd;
    memset(&fr, 0, sizeof(fr));
    memset(&fd, 0, sizeof(fd));
    case_result res;
    memset(&res, 0, sizeof(res));
    int all = 1;
    static const char *const dbg[] = {"integer_vif_num_scale0", "integer_vif_den_scale0",
                                      "integer_vif_num_scale1", "integer_vif_den_scale1",
                                      "integer_vif_num_scale2", "integer_vif_den_scale2",
                                      "integer_vif_num_scale3", "integer_vif_den_scale3"};
    for (int i = 0;; i++) {
        int a = fovea_reader_read(rr, &fr), b = fovea_reader_read(rd, &fd);
        if (a == FOVEA_EOF || b == FOVEA_EOF)
            break;
        REQUIRE(a == FOVEA_OK && b == FOVEA_OK);
        if (max_frames > 0 && i >= max_frames) {
            all = 0;
            break;
        }
        vif_test_scores sc;
        st = vif_test_process(v2, &fr, &fd, &sc);
        if (st != FOVEA_OK) {
            fprintf(stderr, "%s frame %d: %s\n", cs, i, fovea_last_error(ctx2));
            test_failures++;
            break;
        }
        res.frames++;
        char name[64];
        for (int s = 0; s < VIF_TEST_SCALES; s++) {
            snprintf(name, sizeof(name), "integer_vif_scale%d", s);
            compare(&res, cs, i, name, sc.scale[s], expected_value(root, "vif", name, i));
            compare(&res, cs, i, name, sc.scale[s], expected_value(root, "vif_debug", name, i));
            compare(&res, cs, i, dbg[2 * s], sc.num[s],
                    expected_value(root, "vif_debug", dbg[2 * s], i));
            compare(&res, cs, i, dbg[2 * s + 1], sc.den[s],
                    expected_value(root, "vif_debug", dbg[2 * s + 1], i));
        }
        compare(&res, cs, i, "integer_vif", sc.vif,
                expected_value(root, "vif_debug", "integer_vif", i));
        compare(&res, cs, i, "integer_vif_num", sc.num_total,
                expected_value(root, "vif_debug", "integer_vif_num", i));
        compare(&res, cs, i, "integer_vif_den", sc.den_total,
                expected_value(root, "vif_debug", "integer_vif_den", i));
        if (i < 2) {
            vif_test_scores s1;
            CHECK(vif_test_process(v1, &fr, &fd, &s1) == FOVEA_OK);
            CHECK(memcmp(&s1, &sc, sizeof(sc)) == 0);
        }
    }
    if (all && res.frames > 0) {
        vif_test_pooled pl;
        CHECK(vif_test_pooled_scores(v2, &pl) == FOVEA_OK);
        CHECK_EQ_INT(pl.frames, res.frames);
        for (int s = 0; s < VIF_TEST_SCALES; s++) {
            char name[64];
            snprintf(name, sizeof(name), "integer_vif_scale%d", s);
            compare(&res, cs, -1, "pooled min", pl.scale[s].min,
                    expected_pooled(root, name, "min"));
            compare(&res, cs, -1, "pooled max", pl.scale[s].max,
                    expected_pooled(root, name, "max"));
            compare(&res, cs, -1, "pooled mean", pl.scale[s].mean,
                    expected_pooled(root, name, "mean"));
            compare(&res, cs, -1, "pooled harmonic_mean", pl.scale[s].harmonic_mean,
                    expected_pooled(root, name, "harmonic_mean"));
        }
    }
    const fovea_video_info *info = fovea_reader_info(rr);
    printf("  %-34s %4dx%-4d %-8s %3d%s frames %5d/%-5d exact%s", cs, info->width, info->height,
           fovea_pixfmt_name(info->fmt), res.frames, all ? " " : "+", res.exact, res.values,
           res.exact == res.values ? "\n" : "");
    if (res.exact != res.values) {
        printf("  max |diff| %.3g\n", res.max_diff);
        test_failures++;
    }
    if (res.values == 0)
        test_failures++;

    fovea_frame_free(NULL, &fr);
    fovea_frame_free(NULL, &fd);
    fovea_vmaf_close(&v1);
    fovea_vmaf_close(&v2);
    fovea_close(&ctx1);
    fovea_close(&ctx2);
    fovea_reader_close(&rr);
    fovea_reader_close(&rd);
    cJSON_Delete(root);
}

static int test_golden(void)
{
    const char *dir = test_golden_dir("vif");
    if (!dir) {
        printf("golden VIF data not found (../shared/testdata/vif.tar.xz absent at configure "
               "time): skipping the libvmaf comparison\n");
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/index.json", dir);
    cJSON *idx = golden_read_json(path);
    REQUIRE(idx);
    int max_frames = 0;
    const char *env = getenv("FOVEA_VIF_TEST_FRAMES");
    if (env && *env)
        max_frames = atoi(env);
    printf("libvmaf integer VIF golden cases (%s):\n",
           max_frames > 0 ? "first frames only, '+' = more in the file" : "all frames");
    int n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(idx, "cases"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "case");
        if (!cJSON_IsString(name))
            continue;
        golden_case(dir, name->valuestring, max_frames);
        n++;
    }
    CHECK(n >= 12);
    cJSON_Delete(idx);
    return 1;
}

/* ---------------------------------------------------------------- generated */

/* A smooth random image plus noise, so the statistic takes every branch. */
static void make_pair(fovea_frame *ref, fovea_frame *dis, int w, int h, fovea_pixfmt fmt,
                      uint64_t seed)
{
    test_rng r;
    test_rng_seed(&r, seed);
    REQUIRE(fovea_frame_alloc(NULL, ref, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, dis, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    test_fill_random(ref, &r);
    test_fill_random(dis, &r);
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    const int maxv = (1 << d->bit_depth) - 1;
    const double fx = 0.05 + 0.3 * test_rng_double(&r), fy = 0.05 + 0.3 * test_rng_double(&r);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            double base = 0.5 + 0.35 * sin(x * fx) * cos(y * fy) + 0.1 * test_rng_double(&r);
            int a = (int)(base * maxv);
            int b = a + (int)((test_rng_double(&r) - 0.5) * 0.2 * maxv * (x % 7 == 0 ? 3 : 1));
            if (y % 11 == 0)
                b = a; /* rows without distortion */
            if (x > w / 2 && y > h / 2)
                a = b = maxv / 3; /* a flat block: sigma below the noise floor */
            a = a < 0 ? 0 : a > maxv ? maxv : a;
            b = b < 0 ? 0 : b > maxv ? maxv : b;
            if (d->bytes_per_sample == 1) {
                ref->data[0][(ptrdiff_t)y * ref->stride[0] + x] = (uint8_t)a;
                dis->data[0][(ptrdiff_t)y * dis->stride[0] + x] = (uint8_t)b;
            } else {
                ((uint16_t *)(void *)(ref->data[0] + (ptrdiff_t)y * ref->stride[0]))[x] =
                    (uint16_t)a;
                ((uint16_t *)(void *)(dis->data[0] + (ptrdiff_t)y * dis->stride[0]))[x] =
                    (uint16_t)b;
            }
        }
    }
}

static void test_threads_and_sizes(void)
{
    static const struct {
        int w, h;
        fovea_pixfmt fmt;
    } cases[] = {
        {16, 16, FOVEA_PIX_GRAY8},  {17, 23, FOVEA_PIX_I420},    {33, 19, FOVEA_PIX_I444},
        {101, 77, FOVEA_PIX_I420},  {64, 45, FOVEA_PIX_I420P10}, {45, 64, FOVEA_PIX_GRAY12},
        {99, 51, FOVEA_PIX_GRAY16}, {257, 131, FOVEA_PIX_I422},  {127, 95, FOVEA_PIX_I422P10},
        {320, 181, FOVEA_PIX_NV12},
    };
    fovea_context *c1 = open_ctx(1), *c3 = open_ctx(3), *c4 = open_ctx(4);
    vif_test_settings set;
    vif_test_default_settings(&set);
    set.debug = 1;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fovea_frame ref, dis;
        memset(&ref, 0, sizeof(ref));
        memset(&dis, 0, sizeof(dis));
        make_pair(&ref, &dis, cases[i].w, cases[i].h, cases[i].fmt, 100 + i);
        fovea_vmaf *v1 = NULL, *v3 = NULL, *v4 = NULL;
        REQUIRE(vif_test_open(&v1, c1, &set) == FOVEA_OK);
        REQUIRE(vif_test_open(&v3, c3, &set) == FOVEA_OK);
        REQUIRE(vif_test_open(&v4, c4, &set) == FOVEA_OK);
        vif_test_scores a, b, c, again;
        CHECK(vif_test_process(v1, &ref, &dis, &a) == FOVEA_OK);
        CHECK(vif_test_process(v3, &ref, &dis, &b) == FOVEA_OK);
        CHECK(vif_test_process(v4, &ref, &dis, &c) == FOVEA_OK);
        CHECK(vif_test_process(v1, &ref, &dis, &again) == FOVEA_OK);
        CHECK(memcmp(a.scale, b.scale, sizeof(a.scale)) == 0);
        CHECK(memcmp(a.num, b.num, sizeof(a.num)) == 0 && memcmp(a.den, b.den, sizeof(a.den)) == 0);
        CHECK(memcmp(a.scale, c.scale, sizeof(a.scale)) == 0);
        CHECK(memcmp(a.num, c.num, sizeof(a.num)) == 0);
        CHECK(memcmp(a.scale, again.scale, sizeof(a.scale)) == 0);
        CHECK_EQ_INT(again.frame, 1);
        for (int s = 0; s < VIF_TEST_SCALES; s++) {
            CHECK(isfinite(a.scale[s]) && a.scale[s] > 0.0 && a.scale[s] < 1.5);
            /* every scale is a float32 ratio */
            CHECK((double)(float)a.scale[s] == a.scale[s]);
        }
        /* identical inputs score 1, or a hair below where the truncations of
         * the gain and of the log arguments bite */
        vif_test_scores same;
        CHECK(vif_test_process(v4, &ref, &ref, &same) == FOVEA_OK);
        for (int s = 0; s < VIF_TEST_SCALES; s++)
            CHECK(same.scale[s] > 0.999 && same.scale[s] <= 1.0);
        printf("  %4dx%-4d %-8s %.9f %.9f %.9f %.9f  (1/3/4 threads identical)\n", cases[i].w,
               cases[i].h, fovea_pixfmt_name(cases[i].fmt), a.scale[0], a.scale[1], a.scale[2],
               a.scale[3]);
        fovea_vmaf_close(&v1);
        fovea_vmaf_close(&v3);
        fovea_vmaf_close(&v4);
        fovea_frame_free(NULL, &ref);
        fovea_frame_free(NULL, &dis);
    }
    fovea_close(&c1);
    fovea_close(&c3);
    fovea_close(&c4);
}

/* A fixed random input must keep its scores from run to run and build to
 * build: the values are recorded here as exact floats. */
static void test_determinism(void)
{
    fovea_frame ref, dis;
    memset(&ref, 0, sizeof(ref));
    memset(&dis, 0, sizeof(dis));
    test_rng r;
    test_rng_seed(&r, 4242);
    REQUIRE(fovea_frame_alloc(NULL, &ref, 97, 61, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &dis, 97, 61, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == FOVEA_OK);
    test_fill_random(&ref, &r);
    for (int y = 0; y < 61; y++)
        for (int x = 0; x < 97; x++) {
            const int v =
                ref.data[0][(ptrdiff_t)y * ref.stride[0] + x] + (int)test_rng_below(&r, 41) - 20;
            dis.data[0][(ptrdiff_t)y * dis.stride[0] + x] = (uint8_t)(v < 0     ? 0
                                                                      : v > 255 ? 255
                                                                                : v);
        }
    fovea_context *ctx = open_ctx(2);
    fovea_vmaf *v = NULL;
    REQUIRE(vif_test_open(&v, ctx, NULL) == FOVEA_OK);
    vif_test_scores a, b;
    CHECK(vif_test_process(v, &ref, &dis, &a) == FOVEA_OK);
    CHECK(vif_test_process(v, &ref, &dis, &b) == FOVEA_OK);
    CHECK(memcmp(a.scale, b.scale, sizeof(a.scale)) == 0);
    printf("  random 97x61 gray8: %.17g %.17g %.17g %.17g\n", a.scale[0], a.scale[1], a.scale[2],
           a.scale[3]);
    static const double want[VIF_TEST_SCALES] = {0.47224870324134827, 0.82522475719451904,
                                                 0.91391909122467041, 0.96256834268569946};
    for (int s = 0; s < VIF_TEST_SCALES; s++)
        CHECK(a.scale[s] == want[s]);
    /* gain limit 1.0 cannot raise any scale */
    vif_test_settings set;
    vif_test_default_settings(&set);
    set.vif_enhn_gain_limit = 1.0;
    fovea_vmaf *vl = NULL;
    REQUIRE(vif_test_open(&vl, ctx, &set) == FOVEA_OK);
    vif_test_scores l;
    CHECK(vif_test_process(vl, &ref, &dis, &l) == FOVEA_OK);
    for (int s = 0; s < VIF_TEST_SCALES; s++)
        CHECK(l.scale[s] <= a.scale[s]);
    /* pooling of two identical frames */
    vif_test_pooled pl;
    CHECK(vif_test_pooled_scores(v, &pl) == FOVEA_OK);
    CHECK_EQ_INT(pl.frames, 2);
    CHECK(pl.scale[0].min == a.scale[0] && pl.scale[0].max == a.scale[0]);
    CHECK(pl.scale[0].mean == (a.scale[0] + a.scale[0]) / 2.0);
    fovea_vmaf_reset(v);
    CHECK(vif_test_pooled_scores(v, &pl) == FOVEA_OK);
    CHECK_EQ_INT(pl.frames, 0);
    fovea_vmaf_close(&vl);
    fovea_vmaf_close(&v);
    fovea_close(&ctx);
    fovea_frame_free(NULL, &ref);
    fovea_frame_free(NULL, &dis);
}

/* ---------------------------------------------------------------- model */

/* An independent, deliberately plain model of libvmaf's integer VIF: whole
 * images, 64-bit sums, the blur computed at every pixel before decimation,
 * and the log table built with log2f as libvmaf does. It checks the library's
 * 32-bit split arithmetic at 12 and 16 bits, where no golden data exists. */
static const uint32_t model_filter[4][17] = {
    {489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640, 935,
     489},
    {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244},
    {3571, 16004, 26386, 16004, 3571},
    {10904, 43728, 10904}};
static const int model_taps[4] = {17, 9, 5, 3};

static int model_mirror(int i, int n)
{
    return i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i;
}

static int64_t model_log2(const uint16_t *t, uint64_t v)
{
    int k = 0;
    while ((v >> k) >= 65536)
        k++;
    return t[v >> k] + 2048 * k;
}

static void model_vif(const fovea_frame *ref, const fovea_frame *dis, int bpc, double limit,
                      float num[4], float den[4])
{
    int w = ref->width, h = ref->height;
    const size_t n = (size_t)w * h;
    uint32_t *img[2], *mu[2], *tmp[5];
    for (int p = 0; p < 2; p++) {
        img[p] = malloc(n * sizeof(uint32_t));
        mu[p] = malloc(n * sizeof(uint32_t));
    }
    for (int m = 0; m < 5; m++)
        tmp[m] = malloc(n * sizeof(uint32_t));
    uint16_t *table = calloc(65536, sizeof(uint16_t));
    REQUIRE(table && img[0] && img[1] && mu[0] && mu[1] && tmp[0] && tmp[4]);
    for (int i = 32767; i < 65536; i++)
        table[i] = (uint16_t)round(log2f((float)i) * 2048);
    for (int p = 0; p < 2; p++) {
        const fovea_frame *f = p ? dis : ref;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                img[p][(size_t)y * w + x] =
                    bpc == 8 ? f->data[0][(ptrdiff_t)y * f->stride[0] + x]
                             : ((const uint16_t *)(const void *)(f->data[0] +
                                                                 (ptrdiff_t)y * f->stride[0]))[x];
    }
    for (int s = 0; s < 4; s++) {
        const int taps = model_taps[s], half = taps / 2;
        const uint32_t *c = model_filter[s];
        if (s > 0) {
            /* blur the previous scale with this scale's filter, keep even samples */
            const int shift = s == 1 ? bpc : 16;
            for (int p = 0; p < 2; p++) {
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        uint64_t a = 0;
                        for (int k = 0; k < taps; k++)
                            a += c[k] *
                                 (uint64_t)img[p][(size_t)model_mirror(y - half + k, h) * w + x];
                        tmp[0][(size_t)y * w + x] = (uint16_t)((a + (1u << (shift - 1))) >> shift);
                    }
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        uint64_t a = 0;
                        for (int k = 0; k < taps; k++)
                            a += c[k] *
                                 (uint64_t)tmp[0][(size_t)y * w + model_mirror(x - half + k, w)];
                        mu[p][(size_t)y * w + x] = (uint16_t)((a + 32768) >> 16);
                    }
            }
            for (int p = 0; p < 2; p++)
                for (int y = 0; y < h / 2; y++)
                    for (int x = 0; x < w / 2; x++)
                        img[p][(size_t)y * (w / 2) + x] = mu[p][(size_t)(2 * y) * w + 2 * x];
            w /= 2;
            h /= 2;
        }
        const int shift = s == 0 ? bpc : 16, sqs = 2 * (shift - 8);
        const uint64_t sqr = sqs ? (uint64_t)1 << (sqs - 1) : 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint64_t a1 = 0, a2 = 0, axx = 0, ayy = 0, axy = 0;
                for (int k = 0; k < taps; k++) {
                    const size_t o = (size_t)model_mirror(y - half + k, h) * w + x;
                    const uint64_t r = img[0][o], d = img[1][o];
                    a1 += c[k] * r;
                    a2 += c[k] * d;
                    axx += c[k] * r * r;
                    ayy += c[k] * d * d;
                    axy += c[k] * r * d;
                }
                const size_t o = (size_t)y * w + x;
                tmp[0][o] = (uint16_t)((a1 + (1u << (shift - 1))) >> shift);
                tmp[1][o] = (uint16_t)((a2 + (1u << (shift - 1))) >> shift);
                tmp[2][o] = (uint32_t)((axx + sqr) >> sqs);
                tmp[3][o] = (uint32_t)((ayy + sqr) >> sqs);
                tmp[4][o] = (uint32_t)((axy + sqr) >> sqs);
            }
        int64_t nl = 0, dl = 0, nn = 0, dn = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint64_t a[5] = {0, 0, 0, 0, 0};
                for (int k = 0; k < taps; k++) {
                    const size_t o = (size_t)y * w + model_mirror(x - half + k, w);
                    for (int m = 0; m < 5; m++)
                        a[m] += c[k] * (uint64_t)tmp[m][o];
                }
                const uint32_t m1 = (uint32_t)a[0], m2 = (uint32_t)a[1];
                const uint32_t xx = (uint32_t)((a[2] + 32768) >> 16);
                const uint32_t yy = (uint32_t)((a[3] + 32768) >> 16);
                const uint32_t xy = (uint32_t)((a[4] + 32768) >> 16);
                const uint32_t m11 = (uint32_t)(((uint64_t)m1 * m1 + 0x80000000u) >> 32);
                const uint32_t m22 = (uint32_t)(((uint64_t)m2 * m2 + 0x80000000u) >> 32);
                const uint32_t m12 = (uint32_t)(((uint64_t)m1 * m2 + 0x80000000u) >> 32);
                const int64_t s1 = (int32_t)(xx - m11), s12 = (int32_t)(xy - m12);
                int64_t s2 = (int32_t)(yy - m22);
                if (s2 < 0)
                    s2 = 0;
                if (s1 >= 131072) {
                    dl += model_log2(table, (uint64_t)(131072 + s1)) - 2048 * 17;
                    if (s12 > 0 && s2 > 0) {
                        double g = (double)s12 / ((double)s1 + 65536 * 1.0e-10);
                        double sv = (double)s2 - g * (double)s12;
                        int64_t svi = sv > 0 ? (int64_t)sv : 0;
                        if (g > limit)
                            g = limit;
                        const uint64_t n1 = (uint64_t)svi + 131072;
                        const uint64_t n2 = (uint64_t)(int64_t)(g * g * (double)s1) + n1;
                        nl += model_log2(table, n2) - model_log2(table, n1);
                    }
                } else {
                    nn += s2;
                    dn++;
                }
            }
        num[s] = (float)((double)nl / 2048.0 + ((double)dn - ((double)nn / 16384.0) / 65025.0));
        den[s] = (float)((double)dl / 2048.0 + (double)dn);
    }
    for (int p = 0; p < 2; p++) {
        free(img[p]);
        free(mu[p]);
    }
    for (int m = 0; m < 5; m++)
        free(tmp[m]);
    free(table);
}

static void test_model(void)
{
    static const struct {
        int w, h;
        fovea_pixfmt fmt;
        double limit;
    } cases[] = {
        {16, 16, FOVEA_PIX_GRAY8, 100.0},  {41, 29, FOVEA_PIX_I420, 100.0},
        {64, 37, FOVEA_PIX_GRAY8, 1.0},    {35, 48, FOVEA_PIX_I420P10, 100.0},
        {53, 21, FOVEA_PIX_GRAY12, 100.0}, {70, 66, FOVEA_PIX_I444P12, 2.5},
        {47, 33, FOVEA_PIX_GRAY16, 100.0}, {96, 17, FOVEA_PIX_I420P16, 100.0},
    };
    fovea_context *ctx = open_ctx(3);
    int agree = 0, total = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fovea_frame ref, dis;
        memset(&ref, 0, sizeof(ref));
        memset(&dis, 0, sizeof(dis));
        make_pair(&ref, &dis, cases[i].w, cases[i].h, cases[i].fmt, 900 + i);
        vif_test_settings set;
        vif_test_default_settings(&set);
        set.debug = 1;
        set.vif_enhn_gain_limit = cases[i].limit;
        fovea_vmaf *v = NULL;
        REQUIRE(vif_test_open(&v, ctx, &set) == FOVEA_OK);
        vif_test_scores sc;
        CHECK(vif_test_process(v, &ref, &dis, &sc) == FOVEA_OK);
        float num[4], den[4];
        const int bpc = fovea_pixfmt_get_desc(cases[i].fmt)->bit_depth;
        model_vif(&ref, &dis, bpc, cases[i].limit, num, den);
        for (int s = 0; s < VIF_TEST_SCALES; s++) {
            total += 2;
            agree += (sc.num[s] == (double)num[s]) + (sc.den[s] == (double)den[s]);
            CHECK(sc.num[s] == (double)num[s]);
            CHECK(sc.den[s] == (double)den[s]);
        }
        fovea_vmaf_close(&v);
        fovea_frame_free(NULL, &ref);
        fovea_frame_free(NULL, &dis);
    }
    printf("  plain 64-bit model (8/10/12/16 bit, odd sizes, gain limits): %d/%d num/den equal\n",
           agree, total);
    fovea_close(&ctx);
}

static void test_errors(void)
{
    fovea_context *ctx = open_ctx(1);
    fovea_vmaf *v = NULL;
    vif_test_settings set;
    vif_test_default_settings(&set);
    CHECK(set.vif_enhn_gain_limit == 100.0 && set.debug == 0);
    set.vif_enhn_gain_limit = 0.5;
    CHECK(vif_test_open(&v, ctx, &set) == FOVEA_ERR_INVALID_ARG && v == NULL);
    set.vif_enhn_gain_limit = NAN;
    CHECK(vif_test_open(&v, ctx, &set) == FOVEA_ERR_INVALID_ARG);
    CHECK(vif_test_open(&v, NULL, NULL) == FOVEA_ERR_INVALID_ARG);
    REQUIRE(vif_test_open(&v, ctx, NULL) == FOVEA_OK);
    CHECK(fovea_vmaf_backend(v) == FOVEA_BACKEND_CPU);

    fovea_frame a, b, c, d;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    memset(&c, 0, sizeof(c));
    memset(&d, 0, sizeof(d));
    REQUIRE(fovea_frame_alloc(NULL, &a, 32, 32, FOVEA_PIX_I420, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &b, 32, 30, FOVEA_PIX_I420, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &c, 32, 32, FOVEA_PIX_I420P10, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &d, 15, 32, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == FOVEA_OK);
    fovea_frame_fill(NULL, &a, 100);
    fovea_frame_fill(NULL, &b, 100);
    fovea_frame_fill(NULL, &c, 1);
    fovea_frame_fill(NULL, &d, 100);
    CHECK(vif_test_process(v, &a, &b, NULL) == FOVEA_ERR_MISMATCH);
    CHECK(strstr(fovea_last_error(ctx), "32x30") != NULL);
    CHECK(vif_test_process(v, &a, &c, NULL) == FOVEA_ERR_MISMATCH);
    CHECK(vif_test_process(v, &d, &d, NULL) == FOVEA_ERR_INVALID_ARG);
    CHECK(vif_test_process(v, NULL, &a, NULL) == FOVEA_ERR_INVALID_ARG);
    fovea_frame_free(NULL, &d);
    REQUIRE(fovea_frame_alloc(NULL, &d, 32, 32, FOVEA_PIX_RGB24, FOVEA_MEM_HOST) == FOVEA_OK);
    CHECK(vif_test_process(v, &d, &d, NULL) == FOVEA_ERR_UNSUPPORTED);
    fovea_frame_free(NULL, &d);
    /* 16-bit RGB is no luma either: refused, not read as 16-bit gray */
    REQUIRE(fovea_frame_alloc(NULL, &d, 32, 32, FOVEA_PIX_RGB48, FOVEA_MEM_HOST) == FOVEA_OK);
    fovea_frame_fill(NULL, &d, 100);
    CHECK(vif_test_process(v, &d, &d, NULL) == FOVEA_ERR_UNSUPPORTED);
    CHECK(strstr(fovea_last_error(ctx), "rgb48") != NULL);
    /* a flat frame: no log terms, numerator = denominator */
    vif_test_scores sc;
    CHECK(vif_test_process(v, &a, &a, &sc) == FOVEA_OK);
    CHECK(sc.scale[0] == 1.0 && sc.scale[3] == 1.0);
    /* size change reallocates */
    CHECK(vif_test_process(v, &b, &b, &sc) == FOVEA_OK);
    CHECK(vif_test_process(v, &c, &c, &sc) == FOVEA_OK);
    fovea_vmaf_close(&v);
    fovea_vmaf_close(&v);
    fovea_close(&ctx);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    fovea_frame_free(NULL, &c);
    fovea_frame_free(NULL, &d);
}

/* The queued API on the CPU backend: submit/receive give the scores, frame
 * numbers and pooling of vif_test_process, in submission order, across a size
 * change with pairs pending; AGAIN when nothing is pending; process refuses while
 * pairs are pending; reset drops them. */
static void test_async(void)
{
    enum { N = 12 };
    static const struct {
        int w, h;
        fovea_pixfmt fmt;
    } sizes[2] = {{67, 45, FOVEA_PIX_I420}, {40, 33, FOVEA_PIX_I420P10}};
    fovea_frame ref[N], dis[N];
    memset(ref, 0, sizeof(ref));
    memset(dis, 0, sizeof(dis));
    for (int i = 0; i < N; i++) {
        const int k = i < N / 2 ? 0 : 1; /* size change in the middle */
        make_pair(&ref[i], &dis[i], sizes[k].w, sizes[k].h, sizes[k].fmt, 500 + (uint64_t)i);
    }
    fovea_context *ctx = open_ctx(2);
    vif_test_settings set;
    vif_test_default_settings(&set);
    set.debug = 1;
    fovea_vmaf *vs = NULL, *va = NULL;
    REQUIRE(vif_test_open(&vs, ctx, &set) == FOVEA_OK);
    REQUIRE(vif_test_open(&va, ctx, &set) == FOVEA_OK);
    /* the CPU backend scores one pair per thread of the context (2 here) */
    CHECK_EQ_INT(fovea_vmaf_batch_size(va, 1920, 1080), 2);
    vif_test_scores want[N], got[N];
    memset(got, 0xff, sizeof(got)); /* poison: every field must be written */
    for (int i = 0; i < N; i++)
        CHECK_EQ_INT(vif_test_process(vs, &ref[i], &dis[i], &want[i]), FOVEA_OK);
    CHECK_EQ_INT(vif_test_receive(va, &got[0]), FOVEA_AGAIN);
    CHECK_EQ_INT(vif_test_receive(NULL, &got[0]), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_vmaf_submit(NULL, &ref[0], &dis[0]), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_vmaf_pending(NULL), 0);
    /* a rejected pair is not queued */
    CHECK_EQ_INT(fovea_vmaf_submit(va, &ref[0], &dis[N - 1]), FOVEA_ERR_MISMATCH);
    CHECK_EQ_INT(fovea_vmaf_pending(va), 0);
    for (int i = 0; i < N - 2; i++)
        CHECK_EQ_INT(fovea_vmaf_submit(va, &ref[i], &dis[i]), FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_pending(va), N - 2);
    CHECK_EQ_INT(vif_test_process(va, &ref[0], &dis[0], NULL), FOVEA_ERR_INVALID_ARG);
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(vif_test_receive(va, &got[i]), FOVEA_OK);
    for (int i = N - 2; i < N; i++)
        CHECK_EQ_INT(fovea_vmaf_submit(va, &ref[i], &dis[i]), FOVEA_OK);
    for (int i = 3; i < N; i++)
        CHECK_EQ_INT(vif_test_receive(va, &got[i]), FOVEA_OK);
    CHECK_EQ_INT(vif_test_receive(va, &got[0]), FOVEA_AGAIN);
    CHECK_EQ_INT(fovea_vmaf_pending(va), 0);
    int same = 1;
    for (int i = 0; i < N; i++)
        same &= memcmp(&want[i], &got[i], sizeof(want[i])) == 0;
    CHECK(same);
    vif_test_pooled ps, pa;
    CHECK_EQ_INT(vif_test_pooled_scores(vs, &ps), FOVEA_OK);
    CHECK_EQ_INT(vif_test_pooled_scores(va, &pa), FOVEA_OK);
    CHECK(memcmp(&ps, &pa, sizeof(ps)) == 0);
    /* process works again once nothing is pending; reset drops pending pairs */
    CHECK_EQ_INT(vif_test_process(va, &ref[0], &dis[0], &got[0]), FOVEA_OK);
    CHECK_EQ_INT(got[0].frame, N);
    CHECK_EQ_INT(fovea_vmaf_submit(va, &ref[1], &dis[1]), FOVEA_OK);
    fovea_vmaf_reset(va);
    CHECK_EQ_INT(fovea_vmaf_pending(va), 0);
    CHECK_EQ_INT(vif_test_receive(va, &got[0]), FOVEA_AGAIN);
    CHECK_EQ_INT(fovea_vmaf_submit(va, &ref[2], &dis[2]), FOVEA_OK);
    CHECK_EQ_INT(vif_test_receive(va, &got[0]), FOVEA_OK);
    CHECK_EQ_INT(got[0].frame, 0);
    CHECK(memcmp(got[0].scale, want[2].scale, sizeof(got[0].scale)) == 0);
    /* closing with pairs pending frees them */
    CHECK_EQ_INT(fovea_vmaf_submit(va, &ref[3], &dis[3]), FOVEA_OK);
    printf("  queued API: %d pairs identical to vif_test_process, size change while pending\n",
           same ? N : 0);
    fovea_vmaf_close(&va);
    fovea_vmaf_close(&vs);
    fovea_close(&ctx);
    for (int i = 0; i < N; i++) {
        fovea_frame_free(NULL, &ref[i]);
        fovea_frame_free(NULL, &dis[i]);
    }
}

int main(void)
{
    int golden = test_golden();
    printf("generated inputs:\n");
    test_threads_and_sizes();
    test_determinism();
    test_model();
    test_errors();
    test_async();
    int rc = test_finish("test_quality_vif");
    if (rc == 0 && !golden)
        return TEST_SKIP;
    return rc;
}
