/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Integer motion (C reference): every golden case of libvmaf compared to the
 * last bit (motion, motion2, motion3 of every frame), the same streams at 12
 * and 16 bits, 1- and 2-frame streams, options, odd sizes and argument checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "quality/motion.h"
#include "testutil.h"
#include "vmaf_golden.h"

static const char *const names[3] = {"VMAF_integer_feature_motion_sad_score", "integer_motion2",
                                     "integer_motion3"};

/* The reference luma of a case: n frames of w x h, one sample per 1 or 2 bytes. */
typedef struct clip {
    int w, h, bpc, n;
    uint16_t *y; /* n * w * h samples */
} clip;

static int load_clip(const char *path, clip *c)
{
    fovea_reader *r = NULL;
    if (fovea_reader_open(&r, NULL, path, NULL) != FOVEA_OK) {
        fprintf(stderr, "%s\n", fovea_last_error(NULL));
        return 0;
    }
    const fovea_video_info *info = fovea_reader_info(r);
    memset(c, 0, sizeof(*c));
    c->w = info->width;
    c->h = info->height;
    c->bpc = fovea_pixfmt_get_desc(info->fmt)->bit_depth;
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    size_t plane = (size_t)c->w * (size_t)c->h;
    while (fovea_reader_read(r, &f) == FOVEA_OK) {
        c->y = realloc(c->y, (size_t)(c->n + 1) * plane * sizeof(uint16_t));
        REQUIRE(c->y);
        uint16_t *dst = c->y + (size_t)c->n * plane;
        for (int y = 0; y < c->h; y++) {
            const uint8_t *row = f.data[0] + y * f.stride[0];
            for (int x = 0; x < c->w; x++)
                dst[(size_t)y * c->w + x] =
                    c->bpc == 8 ? row[x] : ((const uint16_t *)(const void *)row)[x];
        }
        c->n++;
    }
    fovea_frame_free(NULL, &f);
    fovea_reader_close(&r);
    return c->n > 0;
}

/* Frame i of c as a plane of the given depth: samples << shift, 8-bit planes
 * one byte a sample. */
static void make_plane(const clip *c, int i, int bpc, int shift, uint8_t *buf)
{
    const uint16_t *src = c->y + (size_t)i * c->w * c->h;
    for (size_t k = 0; k < (size_t)c->w * c->h; k++) {
        if (bpc == 8)
            buf[k] = (uint8_t)src[k];
        else
            ((uint16_t *)(void *)buf)[k] = (uint16_t)(src[k] << shift);
    }
}

/* Runs the first n frames of c through a motion state; out[0..n-1]. Checks the
 * one-frame-late emission and the flush. */
static void run(const clip *c, int n, const motion_params *p, int shift, motion_scores *out)
{
    motion_state *m = NULL;
    REQUIRE(motion_open(&m, p) == FOVEA_OK);
    const int bytes = p->bpc == 8 ? 1 : 2;
    uint8_t *buf = malloc((size_t)c->w * c->h * bytes);
    REQUIRE(buf);
    int got = 0;
    for (int i = 0; i < n; i++) {
        make_plane(c, i, p->bpc, shift, buf);
        motion_scores sc;
        int st = motion_push(m, buf, (ptrdiff_t)c->w * bytes, &sc);
        CHECK_EQ_INT(st, i > 0);
        if (st == 1) {
            CHECK_EQ_INT(sc.frame, got);
            out[got++] = sc;
        }
    }
    motion_scores sc;
    CHECK_EQ_INT(motion_flush(m, &sc), n > 0);
    if (n > 0) {
        CHECK_EQ_INT(sc.frame, got);
        out[got++] = sc;
    }
    CHECK_EQ_INT(motion_flush(m, &sc), 0);
    CHECK_EQ_INT(got, n);
    free(buf);
    motion_close(&m);
    CHECK(m == NULL);
}

static double score_of(const motion_scores *s, int k)
{
    return k == 0 ? s->motion : k == 1 ? s->motion2 : s->motion3;
}

/* Exact comparison of one value; prints the first mismatches. Returns |diff|. */
static double compare(const char *what, int frame, int k, double got, double want, int *bad)
{
    if (got == want)
        return 0.0;
    if (++*bad <= 3)
        fprintf(stderr, "  %s frame %d %s: got %.17g, expected %.17g\n", what, frame, names[k], got,
                want);
    return fabs(got - want);
}

typedef struct golden {
    char name[128];
    int informational; /* the case's status says its VMAF set is not golden */
    clip c;
    double *want[3]; /* per frame, libvmaf's values */
} golden;

static int load_golden(const char *dir, const char *cs, golden *g)
{
    char path[4096];
    memset(g, 0, sizeof(*g));
    snprintf(g->name, sizeof(g->name), "%s", cs);
    snprintf(path, sizeof(path), "%s/%s/expected.json", dir, cs);
    char *text = test_read_text(path);
    if (!text) {
        fprintf(stderr, "%s: cannot read\n", path);
        return 0;
    }
    cJSON *root = cJSON_Parse(text);
    free(text);
    REQUIRE(root);
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "features"), "vmaf_v0.6.1");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "status"), "vmaf_v0.6.1");
    /* "golden ..." or a note on ADM paths that leaves motion identical on all of
     * them; "UNSTABLE ..." (akiyo_18x22): the section is informational only */
    g->informational = !cJSON_IsString(status) || strncmp(status->valuestring, "UNSTABLE", 8) == 0;

    snprintf(path, sizeof(path), "%s/%s/ref.y4m", dir, cs);
    int ok = load_clip(path, &g->c);
    for (int k = 0; ok && k < 3; k++) {
        const cJSON *a = golden_section(set, "per_frame", names[k]);
        if (cJSON_GetArraySize(a) != g->c.n) {
            fprintf(stderr, "%s: %s has %d values for %d frames\n", cs, names[k],
                    cJSON_GetArraySize(a), g->c.n);
            ok = 0;
            break;
        }
        g->want[k] = malloc((size_t)g->c.n * sizeof(double));
        REQUIRE(g->want[k]);
        for (int i = 0; i < g->c.n; i++) {
            const cJSON *v = cJSON_GetArrayItem(a, i);
            REQUIRE(cJSON_IsNumber(v));
            g->want[k][i] = v->valuedouble;
        }
    }
    cJSON_Delete(root);
    return ok;
}

static void free_golden(golden *g)
{
    free(g->c.y);
    for (int k = 0; k < 3; k++)
        free(g->want[k]);
}

/* All frames of g at depth bpc (samples << shift) against want[][] (n frames). */
static int check_stream(const golden *g, const char *what, const motion_params *p, int shift, int n,
                        double *const want[3], double *max_diff)
{
    motion_scores *out = calloc((size_t)n, sizeof(*out));
    REQUIRE(out);
    run(&g->c, n, p, shift, out);
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            double d = compare(what, i, k, score_of(&out[i], k), want[k][i], &bad);
            if (d > *max_diff)
                *max_diff = d;
        }
    free(out);
    return bad;
}

static void golden_case(const char *dir, const char *cs)
{
    golden g;
    if (!load_golden(dir, cs, &g)) {
        test_failures++;
        free_golden(&g);
        return;
    }
    motion_params p;
    motion_default_params(&p, g.c.w, g.c.h, g.c.bpc);
    double max_diff = 0.0;
    int bad = check_stream(&g, cs, &p, 0, g.c.n, g.want, &max_diff);
    printf("  %-34s %4dx%-4d %2d bit %3d frames: %s", cs, g.c.w, g.c.h, g.c.bpc, g.c.n,
           bad ? "DIFFERS" : "exact");
    if (bad)
        printf(" (%d values, max |diff| %.3g)", bad, max_diff);
    printf("%s\n", g.informational ? " [informational: status not golden]" : "");
    if (bad && !g.informational)
        test_failures++;

    /* The same samples at a higher depth: shifting by bpc in the vertical pass
     * makes x << s at bpc + s give the same bits. */
    if (!g.informational && g.c.n > 1) {
        for (int bpc = g.c.bpc + 2; bpc <= 16; bpc += 2) {
            if (bpc == 14)
                continue;
            char what[192];
            snprintf(what, sizeof(what), "%s at %d bit", cs, bpc);
            motion_params q = p;
            q.bpc = bpc;
            double md = 0.0;
            int b = check_stream(&g, what, &q, bpc - g.c.bpc, g.c.n, g.want, &md);
            if (b) {
                printf("  %s: %d values differ (max |diff| %.3g)\n", what, b, md);
                test_failures++;
            }
        }
    }
    free_golden(&g);
}

static int test_golden(void)
{
    const char *dir = test_golden_dir("vif");
    if (!dir) {
        printf("no golden data (../shared/testdata/vif.tar.xz absent at configure "
               "time): skipping the libvmaf comparison\n");
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/index.json", dir);
    cJSON *index = golden_read_json(path);
    REQUIRE(index);
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(index, "cases");
    const cJSON *it;
    int count = 0;
    cJSON_ArrayForEach(it, cases)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "case");
        REQUIRE(cJSON_IsString(name));
        golden_case(dir, name->valuestring);
        count++;
    }
    CHECK(count >= 12);
    cJSON_Delete(index);
    return 1;
}

/* A golden case with motion, for the tests derived from its values. */
static int load_moving(golden *g)
{
    const char *dir = test_golden_dir("vif");
    return dir && load_golden(dir, "seeking10_384x288_x264crf35", g);
}

/* libvmaf's rules for short streams: one frame scores 0 everywhere; with two,
 * frame 1 keeps its own SAD score as motion2 and frame 0's motion3 is frame
 * 1's. */
static void test_short_streams(const golden *g)
{
    motion_params p;
    motion_default_params(&p, g->c.w, g->c.h, g->c.bpc);
    double zero[2] = {0.0, 0.0}, max_diff = 0.0;
    double *one[3] = {zero, zero, zero};
    CHECK(check_stream(g, "1 frame", &p, 0, 1, one, &max_diff) == 0);

    const double s1 = g->want[0][1];
    double sad[2] = {0.0, s1}, m2[2] = {0.0, s1}, m3[2] = {s1, s1};
    double *two[3] = {sad, m2, m3};
    CHECK(check_stream(g, "2 frames", &p, 0, 2, two, &max_diff) == 0);
    CHECK(s1 > 0.0);
}

/* Options: force_zero, max_val, blend factor/offset and the moving average,
 * checked against libvmaf's formulas applied to the golden SAD scores. */
static void test_options(const golden *g)
{
    const int n = g->c.n;
    double *w[3];
    for (int k = 0; k < 3; k++) {
        w[k] = calloc((size_t)n, sizeof(double));
        REQUIRE(w[k]);
    }
    double max_diff = 0.0;
    motion_params p;

    motion_default_params(&p, g->c.w, g->c.h, g->c.bpc);
    p.force_zero = 1;
    CHECK(check_stream(g, "force_zero", &p, 0, n, w, &max_diff) == 0);

    /* clip between the smallest and largest motion: both the SAD score and
     * motion3 are clipped; motion2 is the min of the clipped SAD scores */
    motion_default_params(&p, g->c.w, g->c.h, g->c.bpc);
    p.max_val = 5.0;
    for (int i = 0; i < n; i++)
        w[0][i] = g->want[0][i] < p.max_val ? g->want[0][i] : p.max_val;
    for (int i = 1; i < n; i++)
        w[1][i] = i + 1 < n && w[0][i + 1] < w[0][i] ? w[0][i + 1] : w[0][i];
    for (int i = 1; i < n; i++)
        w[2][i] = w[1][i];
    w[2][0] = w[0][1];
    CHECK(check_stream(g, "max_val 5", &p, 0, n, w, &max_diff) == 0);

    /* blend with an offset inside the range of the scores, moving average */
    motion_default_params(&p, g->c.w, g->c.h, g->c.bpc);
    p.blend_factor = 0.25;
    p.blend_offset = 4.9;
    p.moving_average = 1;
    double prev = 0.0;
    for (int i = 0; i < n; i++) {
        w[0][i] = g->want[0][i];
        w[1][i] = g->want[1][i];
    }
    for (int i = 0; i < n; i++) {
        const double m = i == 0 ? w[0][1] : w[1][i];
        const double low = p.blend_offset < m ? p.blend_offset : m;
        const double processed = m * p.blend_factor + (1 - p.blend_factor) * low;
        w[2][i] = i == 0 ? processed : (processed + prev) / 2.0;
        prev = processed;
    }
    CHECK(check_stream(g, "blend+moving average", &p, 0, n, w, &max_diff) == 0);
    for (int k = 0; k < 3; k++)
        free(w[k]);
}

/* A difference of c everywhere blurs to c (the taps sum to 1 and a constant
 * is its own mirror), so the SAD score is c * 2^(8 - bpc) exactly, at any size
 * including odd ones and the 3x3 minimum. */
static void test_constant_difference(void)
{
    static const int sizes[][2] = {{3, 3}, {3, 7}, {5, 3}, {17, 9}, {33, 65}, {101, 77}};
    static const int depths[] = {8, 10, 12, 16};
    test_rng rng;
    test_rng_seed(&rng, 36);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
            const int w = sizes[s][0], h = sizes[s][1], bpc = depths[d];
            const int maxv = (1 << bpc) - 1, bytes = bpc == 8 ? 1 : 2;
            const int c = 1 + (int)test_rng_below(&rng, (uint32_t)maxv / 2);
            uint8_t *a = malloc((size_t)w * h * bytes), *b = malloc((size_t)w * h * bytes);
            int32_t *row = malloc((size_t)w * sizeof(int32_t));
            REQUIRE(a && b && row);
            for (int k = 0; k < w * h; k++) {
                const int v = (int)test_rng_below(&rng, (uint32_t)(maxv - c + 1));
                if (bpc == 8) {
                    a[k] = (uint8_t)(v + c);
                    b[k] = (uint8_t)v;
                } else {
                    ((uint16_t *)(void *)a)[k] = (uint16_t)(v + c);
                    ((uint16_t *)(void *)b)[k] = (uint16_t)v;
                }
            }
            motion_params p;
            motion_default_params(&p, w, h, bpc);
            const uint64_t sad =
                motion_sad(a, (ptrdiff_t)w * bytes, b, (ptrdiff_t)w * bytes, w, h, bpc, row);
            const double want = ldexp((double)c, 8 - bpc);
            const double got = motion_sad_score(sad, &p);
            if (got != want) {
                fprintf(stderr, "  constant %d at %dx%d %d bit: got %.17g, expected %.17g\n", c, w,
                        h, bpc, got, want);
                test_failures++;
            }
            /* negative difference: the same magnitude */
            CHECK(motion_sad(b, (ptrdiff_t)w * bytes, a, (ptrdiff_t)w * bytes, w, h, bpc, row) ==
                  sad);
            CHECK(motion_sad(a, (ptrdiff_t)w * bytes, a, (ptrdiff_t)w * bytes, w, h, bpc, row) ==
                  0);
            free(a);
            free(b);
            free(row);
        }
}

/* A single differing sample next to the border: the mirror (-1 -> 1, the edge
 * sample itself never repeated) makes row 1 reach row 0 twice and row 1 twice
 * (taps 16004 + 16004, and 26386 + 3571 through -1). 5x5 8-bit planes,
 * difference 1 at row 1, column 0. The vertical sums per row are
 * {32008, 29957, 16004, 3571, 0}, the horizontal taps from column 0 to columns
 * 0..4 are {26386, 16004, 3571, 0, 0} (column 0 is an edge: reached once);
 * with both roundings the SAD is 223 (worked out separately by hand-written
 * arithmetic, not by this code). */
static void test_impulse_at_border(void)
{
    uint8_t a[25], b[25];
    int32_t row[5];
    memset(a, 7, sizeof(a));
    memset(b, 7, sizeof(b));
    a[1 * 5 + 0] = 8;
    const int64_t vt[5] = {32008, 29957, 16004, 3571, 0};
    const int64_t ht[5] = {26386, 16004, 3571, 0, 0};
    int64_t want = 0;
    for (int y = 0; y < 5; y++) {
        const int64_t v = (vt[y] + 128) >> 8; /* 1/256 units, rounded half up */
        for (int x = 0; x < 5; x++)
            want += (v * ht[x] + 32768) >> 16;
    }
    CHECK_EQ_INT(want, 223);
    CHECK_EQ_INT(motion_sad(a, 5, b, 5, 5, 5, 8, row), 223);
    /* the opposite sign rounds toward -infinity first: same SAD here */
    CHECK_EQ_INT(motion_sad(b, 5, a, 5, 5, 5, 8, row), 223);
}

static void test_args(void)
{
    motion_params p;
    motion_state *m = (motion_state *)&p; /* must be set to NULL on failure */
    motion_default_params(&p, 2, 16, 8);
    CHECK(motion_open(&m, &p) == FOVEA_ERR_INVALID_ARG);
    CHECK(m == NULL);
    motion_default_params(&p, 16, 16, 9);
    CHECK(motion_open(&m, &p) == FOVEA_ERR_INVALID_ARG);
    motion_default_params(&p, 16, 16, 8);
    p.blend_factor = 1.5;
    CHECK(motion_open(&m, &p) == FOVEA_ERR_INVALID_ARG);
    motion_default_params(&p, 16, 16, 8);
    p.max_val = NAN;
    CHECK(motion_open(&m, &p) == FOVEA_ERR_INVALID_ARG);
    motion_default_params(&p, 16, 16, 8);
    CHECK(motion_open(NULL, &p) == FOVEA_ERR_INVALID_ARG);
    REQUIRE(motion_open(&m, &p) == FOVEA_OK);
    motion_scores sc;
    CHECK(motion_flush(m, &sc) == 0);
    CHECK(motion_push(m, NULL, 16, &sc) == FOVEA_ERR_INVALID_ARG);
    motion_close(&m);
    motion_close(&m);
}

int main(void)
{
    test_constant_difference();
    test_impulse_at_border();
    test_args();
    int have = test_golden();
    if (have) {
        golden g;
        if (load_moving(&g) && g.c.n > 2) {
            test_short_streams(&g);
            test_options(&g);
        } else {
            test_failures++;
        }
        free_golden(&g);
    }
    int rc = test_finish("test_quality_motion");
    if (!have && rc == 0) {
        printf("golden data absent: the libvmaf comparison was skipped\n");
        return TEST_SKIP;
    }
    return rc;
}
