/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The public VMAF API (fovea/quality.h) against libvmaf 3.2.0: every golden
 * case through submit/receive/flush, every frame and every metric, the names
 * and their order, the pooling; then the queue's rules (lookahead, EOF, new
 * streams, reset), the feature modes, thread counts, models from files and
 * with options (libvmaf's suffixed names), and the errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fovea/quality.h"
#include "quality/adm.h"
#include "quality/model.h"
#include "quality/motion.h"
#include "testutil.h"
#include "vif_test.h"
#include "vmaf_golden.h"

/* The context opened last: its message is shown when a receive fails. */
static fovea_context *last_ctx;

static fovea_context *open_ctx(int threads)
{
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    cs.threads = threads;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &cs) == FOVEA_OK);
    last_ctx = ctx;
    return ctx;
}

/* ---------------------------------------------------------------- golden */

typedef struct frames {
    int n;
    fovea_frame *ref, *dis;
} frames;

static void read_frames(const char *dir, const char *cs, frames *f)
{
    char path[4096];
    fovea_reader *rr = NULL, *rd = NULL;
    snprintf(path, sizeof(path), "%s/%s/ref.y4m", dir, cs);
    REQUIRE(fovea_reader_open(&rr, NULL, path, NULL) == FOVEA_OK);
    snprintf(path, sizeof(path), "%s/%s/dis.y4m", dir, cs);
    REQUIRE(fovea_reader_open(&rd, NULL, path, NULL) == FOVEA_OK);
    memset(f, 0, sizeof(*f));
    for (;;) {
        f->ref = realloc(f->ref, (size_t)(f->n + 1) * sizeof(fovea_frame));
        f->dis = realloc(f->dis, (size_t)(f->n + 1) * sizeof(fovea_frame));
        REQUIRE(f->ref && f->dis);
        memset(&f->ref[f->n], 0, sizeof(fovea_frame));
        memset(&f->dis[f->n], 0, sizeof(fovea_frame));
        int a = fovea_reader_read(rr, &f->ref[f->n]), b = fovea_reader_read(rd, &f->dis[f->n]);
        if (a == FOVEA_EOF || b == FOVEA_EOF) {
            fovea_frame_free(NULL, &f->ref[f->n]);
            fovea_frame_free(NULL, &f->dis[f->n]);
            break;
        }
        REQUIRE(a == FOVEA_OK && b == FOVEA_OK);
        f->n++;
    }
    fovea_reader_close(&rr);
    fovea_reader_close(&rd);
}

static void free_frames(frames *f)
{
    for (int i = 0; i < f->n; i++) {
        fovea_frame_free(NULL, &f->ref[i]);
        fovea_frame_free(NULL, &f->dis[i]);
    }
    free(f->ref);
    free(f->dis);
    memset(f, 0, sizeof(*f));
}

/* Every frame of f through v, receiving as soon as scores are ready (EOF
 * otherwise); got[i * FOVEA_VMAF_MAX_METRICS + m]. Returns the frames received. */
static int score_all(fovea_vmaf *v, const frames *f, double *got)
{
    int n = 0;
    fovea_vmaf_scores sc;
    for (int i = 0; i < f->n; i++) {
        REQUIRE(fovea_vmaf_submit(v, &f->ref[i], &f->dis[i]) == FOVEA_OK);
        int st;
        while ((st = fovea_vmaf_receive(v, &sc)) == FOVEA_OK) {
            CHECK_EQ_INT(sc.frame, n);
            CHECK_EQ_INT(sc.count, fovea_vmaf_metric_count(v));
            memcpy(got + (size_t)n * FOVEA_VMAF_MAX_METRICS, sc.value, sizeof(sc.value));
            n++;
        }
        if (st != FOVEA_AGAIN)
            fprintf(stderr, "  receive: %s\n", fovea_last_error(last_ctx));
        CHECK_EQ_INT(st, FOVEA_AGAIN);
    }
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
    while (fovea_vmaf_receive(v, &sc) == FOVEA_OK) {
        CHECK_EQ_INT(sc.frame, n);
        memcpy(got + (size_t)n * FOVEA_VMAF_MAX_METRICS, sc.value, sizeof(sc.value));
        n++;
    }
    CHECK_EQ_INT(fovea_vmaf_pending(v), 0);
    return n;
}

/* As score_all, but keeping up to depth pairs pending (full batches of the
 * C backend: one pair per thread) before receiving. */
static int score_deep(fovea_vmaf *v, const frames *f, double *got, int depth)
{
    int n = 0;
    fovea_vmaf_scores sc;
    fovea_vmaf_pooled_scores ps; /* frame numbers go on from the frames received */
    REQUIRE(fovea_vmaf_pooled(v, &ps) == FOVEA_OK);
    const int64_t base = ps.frames;
    for (int i = 0; i < f->n; i++) {
        REQUIRE(fovea_vmaf_submit(v, &f->ref[i], &f->dis[i]) == FOVEA_OK);
        while (fovea_vmaf_pending(v) > depth) {
            REQUIRE(fovea_vmaf_receive(v, &sc) == FOVEA_OK);
            CHECK_EQ_INT(sc.frame, base + n);
            memcpy(got + (size_t)n * FOVEA_VMAF_MAX_METRICS, sc.value, sizeof(sc.value));
            n++;
        }
    }
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
    while (fovea_vmaf_receive(v, &sc) == FOVEA_OK) {
        CHECK_EQ_INT(sc.frame, base + n);
        memcpy(got + (size_t)n * FOVEA_VMAF_MAX_METRICS, sc.value, sizeof(sc.value));
        n++;
    }
    CHECK_EQ_INT(fovea_vmaf_pending(v), 0);
    return n;
}

/* libvmaf's pooling of values x[0..n) (libvmaf.c, vmaf_feature_score_pooled). */
static void pool_of(const double *x, int n, double out[4])
{
    double sum = 0, isum = 0, mn = 0, mx = 0;
    for (int i = 0; i < n; i++) {
        sum += x[i];
        isum += 1.0 / (x[i] + 1.0);
        if (i == 0 || x[i] < mn)
            mn = x[i];
        if (i == 0 || x[i] > mx)
            mx = x[i];
    }
    out[0] = mn;
    out[1] = mx;
    out[2] = sum / n;
    out[3] = n / isum - 1.0;
}

static const char *const pool_names[4] = {"min", "max", "mean", "harmonic_mean"};

/* Compare every frame and the pooling of v's metrics with the golden set
 * (names from the set's feature_names_printed, which must be v's in order). */
static void compare_set(const char *cs, fovea_vmaf *v, const cJSON *set, const double *got, int n,
                        int *exact, int *total)
{
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(set, "feature_names_printed");
    const int count = fovea_vmaf_metric_count(v);
    CHECK_EQ_INT(cJSON_GetArraySize(names), count);
    int shown = 0;
    double *col = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    REQUIRE(col);
    fovea_vmaf_pooled_scores pooled;
    REQUIRE(fovea_vmaf_pooled(v, &pooled) == FOVEA_OK);
    CHECK_EQ_INT(pooled.frames, n);
    CHECK_EQ_INT(pooled.count, count);
    for (int m = 0; m < count; m++) {
        const cJSON *nm = cJSON_GetArrayItem(names, m);
        REQUIRE(cJSON_IsString(nm));
        if (strcmp(nm->valuestring, fovea_vmaf_metric_name(v, m))) {
            fprintf(stderr, "  %s metric %d: %s, libvmaf prints %s\n", cs, m,
                    fovea_vmaf_metric_name(v, m), nm->valuestring);
            CHECK(0);
        }
        CHECK_EQ_INT(fovea_vmaf_metric_index(v, nm->valuestring), m);
        CHECK_EQ_INT(cJSON_GetArraySize(golden_section(set, "per_frame", nm->valuestring)), n);
        for (int i = 0; i < n; i++) {
            const double g = got[(size_t)i * FOVEA_VMAF_MAX_METRICS + m];
            const double w = golden_frame(set, nm->valuestring, i);
            col[i] = w;
            (*total)++;
            if (g == w) {
                (*exact)++;
            } else if (shown++ < 6) {
                fprintf(stderr, "  %s %s frame %d: got %.17g, libvmaf %.17g\n", cs, nm->valuestring,
                        i, g, w);
            }
        }
        /* the pooling of libvmaf's own per-frame values, and libvmaf's pooled */
        double want[4];
        pool_of(col, n, want);
        const double have[4] = {pooled.metric[m].min, pooled.metric[m].max, pooled.metric[m].mean,
                                pooled.metric[m].harmonic_mean};
        const cJSON *lp = golden_section(set, "pooled", nm->valuestring);
        for (int k = 0; k < 4; k++) {
            const cJSON *lv = cJSON_GetObjectItemCaseSensitive(lp, pool_names[k]);
            (*total) += 2;
            if (have[k] == want[k])
                (*exact)++;
            else
                fprintf(stderr, "  %s %s pooled %s: got %.17g, from libvmaf's frames %.17g\n", cs,
                        nm->valuestring, pool_names[k], have[k], want[k]);
            if (cJSON_IsNumber(lv) && have[k] == lv->valuedouble)
                (*exact)++;
            else
                fprintf(stderr, "  %s %s pooled %s: got %.17g, libvmaf %.17g\n", cs,
                        nm->valuestring, pool_names[k], have[k],
                        cJSON_IsNumber(lv) ? lv->valuedouble : NAN);
        }
    }
    free(col);
}

static int test_golden(void)
{
    const char *dir = test_golden_dir("vif");
    if (!dir) {
        printf("golden data not found (../shared/testdata/vif.tar.xz absent at configure "
               "time): skipping the libvmaf comparison\n");
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/index.json", dir);
    cJSON *idx = golden_read_json(path);
    REQUIRE(idx);
    fovea_context *ctx = open_ctx(3);
    int golden = 0, small = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(idx, "cases"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "case");
        if (!cJSON_IsString(name))
            continue;
        const char *cs = name->valuestring;
        snprintf(path, sizeof(path), "%s/%s/expected.json", dir, cs);
        cJSON *root = golden_read_json(path);
        REQUIRE(root);
        const cJSON *features = cJSON_GetObjectItemCaseSensitive(root, "features");
        const cJSON *status = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(root, "status"), "vmaf_v0.6.1");
        const int is_golden = cJSON_IsString(status) && !strstr(status->valuestring, "UNSTABLE");
        frames f;
        read_frames(dir, cs, &f);
        double *got = calloc((size_t)f.n * FOVEA_VMAF_MAX_METRICS, sizeof(double));
        REQUIRE(got);
        int exact = 0, total = 0;

        fovea_vmaf_settings s;
        fovea_vmaf_default_settings(&s);
        fovea_vmaf *v = NULL;
        if (is_golden) {
            REQUIRE(fovea_vmaf_open(&v, ctx, &s) == FOVEA_OK);
            CHECK(fovea_vmaf_backend(v) == FOVEA_BACKEND_CPU);
            /* full batches of 3 pairs here, one pair at a time for VIF below */
            const int n = score_deep(v, &f, got, 9);
            CHECK_EQ_INT(n, f.n);
            compare_set(cs, v, cJSON_GetObjectItemCaseSensitive(features, "vmaf_v0.6.1"), got, n,
                        &exact, &total);
            fovea_vmaf_close(&v);
            CHECK(v == NULL);
            golden++;
        } else {
            /* below ADM's 33x33: the model cannot run, VIF alone can */
            REQUIRE(fovea_vmaf_open(&v, ctx, &s) == FOVEA_OK);
            CHECK_EQ_INT(fovea_vmaf_submit(v, &f.ref[0], &f.dis[0]), FOVEA_ERR_INVALID_ARG);
            CHECK(strstr(fovea_last_error(ctx), "ADM needs 33") != NULL);
            CHECK_EQ_INT(fovea_vmaf_pending(v), 0);
            CHECK_EQ_INT(fovea_vmaf_receive(v, NULL), FOVEA_AGAIN);
            fovea_vmaf_close(&v);
            small++;
        }
        /* VIF only (libvmaf's --feature vif --no_prediction) on every case */
        s.features = "vif";
        REQUIRE(fovea_vmaf_open(&v, ctx, &s) == FOVEA_OK);
        CHECK_EQ_INT(fovea_vmaf_metric_count(v), 4);
        const int n = score_all(v, &f, got);
        CHECK_EQ_INT(n, f.n);
        compare_set(cs, v, cJSON_GetObjectItemCaseSensitive(features, "vif"), got, n, &exact,
                    &total);
        fovea_vmaf_close(&v);

        printf("  %-36s %3d frames: %s, %d/%d values exact\n", cs, f.n,
               is_golden ? "vmaf_v0.6.1 and vif" : "vif only (below ADM's minimum)", exact, total);
        CHECK(total > 0);
        CHECK_EQ_INT(exact, total);
        free(got);
        free_frames(&f);
        cJSON_Delete(root);
    }
    CHECK(golden >= 11);
    CHECK(small >= 1);
    fovea_close(&ctx);
    cJSON_Delete(idx);
    return 1;
}

/* ---------------------------------------------------------------- generated */

/* A seeded sequence: a moving smooth pattern with noise as the reference, the
 * reference plus noise as the distorted (luma only is read). */
static void make_seq(frames *f, int w, int h, int bpc, int n, uint64_t seed)
{
    test_rng r;
    test_rng_seed(&r, seed);
    memset(f, 0, sizeof(*f));
    f->n = n;
    f->ref = calloc((size_t)n, sizeof(fovea_frame));
    f->dis = calloc((size_t)n, sizeof(fovea_frame));
    REQUIRE(f->ref && f->dis);
    const fovea_pixfmt fmt = fovea_pixfmt_yuv(420, bpc);
    const int maxv = (1 << bpc) - 1, up = bpc - 8;
    for (int t = 0; t < n; t++) {
        REQUIRE(fovea_frame_alloc(NULL, &f->ref[t], w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
        REQUIRE(fovea_frame_alloc(NULL, &f->dis[t], w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
        test_fill_random(&f->ref[t], &r); /* chroma: random, never read */
        test_fill_random(&f->dis[t], &r);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                const double base = 128 + 60 * sin((x + 3.0 * t) / 7.0) * cos((y - 2.0 * t) / 5.0);
                int a = (int)(base * (1 << up)) + (int)test_rng_below(&r, 17u << up) - (8 << up);
                int b = a + (int)test_rng_below(&r, 25u << up) - (12 << up);
                a = a < 0 ? 0 : a > maxv ? maxv : a;
                b = b < 0 ? 0 : b > maxv ? maxv : b;
                if (bpc == 8) {
                    f->ref[t].data[0][y * f->ref[t].stride[0] + x] = (uint8_t)a;
                    f->dis[t].data[0][y * f->dis[t].stride[0] + x] = (uint8_t)b;
                } else {
                    ((uint16_t *)(void *)(f->ref[t].data[0] + y * f->ref[t].stride[0]))[x] =
                        (uint16_t)a;
                    ((uint16_t *)(void *)(f->dis[t].data[0] + y * f->dis[t].stride[0]))[x] =
                        (uint16_t)b;
                }
            }
        }
    }
}

/* Frames [from, from + n) of f as a sequence of its own (no copy). */
static frames sub_seq(const frames *f, int from, int n)
{
    frames s = {n, f->ref + from, f->dis + from};
    return s;
}

/* Scores of every frame of f on a fresh context of ctx with settings s. */
static int score_fresh(fovea_context *ctx, const fovea_vmaf_settings *s, const frames *f,
                       double *got)
{
    fovea_vmaf *v = NULL;
    REQUIRE(fovea_vmaf_open(&v, ctx, s) == FOVEA_OK);
    int n = score_all(v, f, got);
    fovea_vmaf_close(&v);
    return n;
}

static int same_values(const double *a, const double *b, int frames_n, int count)
{
    for (int i = 0; i < frames_n; i++)
        for (int m = 0; m < count; m++)
            if (a[(size_t)i * FOVEA_VMAF_MAX_METRICS + m] !=
                b[(size_t)i * FOVEA_VMAF_MAX_METRICS + m]) {
                fprintf(stderr, "  frame %d metric %d: %.17g vs %.17g\n", i, m,
                        a[(size_t)i * FOVEA_VMAF_MAX_METRICS + m],
                        b[(size_t)i * FOVEA_VMAF_MAX_METRICS + m]);
                return 0;
            }
    return 1;
}

#define VAL(buf, i, m) ((buf)[(size_t)(i)*FOVEA_VMAF_MAX_METRICS + (m)])

/* The queue: EOF until the successor or the flush, new streams after a
 * flush (motion restarts, numbering and pooling go on), reset. */
static void test_queue(void)
{
    fovea_context *ctx = open_ctx(2);
    frames f;
    make_seq(&f, 64, 48, 8, 6, 11);
    fovea_vmaf *v = NULL;
    REQUIRE(fovea_vmaf_open(&v, ctx, NULL) == FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_metric_count(v), 15);
    CHECK(!strcmp(fovea_vmaf_metric_name(v, 14), "vmaf"));
    CHECK(fovea_vmaf_metric_name(v, 15) == NULL && fovea_vmaf_metric_name(v, -1) == NULL);
    CHECK_EQ_INT(fovea_vmaf_metric_index(v, "integer_motion2"), 12);
    CHECK_EQ_INT(fovea_vmaf_metric_index(v, "integer_motion"), -1);
    CHECK_EQ_INT(fovea_vmaf_batch_size(v, 1920, 1080), 2); /* one pair per thread */
    fovea_vmaf_pooled_scores pooled;
    REQUIRE(fovea_vmaf_pooled(v, &pooled) == FOVEA_OK);
    CHECK(pooled.frames == 0 && pooled.metric[0].mean == 0.0);

    /* frame 0 waits for frame 1, the last frame for the flush */
    fovea_vmaf_scores sc;
    CHECK_EQ_INT(fovea_vmaf_receive(v, &sc), FOVEA_AGAIN);
    REQUIRE(fovea_vmaf_submit(v, &f.ref[0], &f.dis[0]) == FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_pending(v), 1);
    CHECK_EQ_INT(fovea_vmaf_receive(v, &sc), FOVEA_AGAIN);
    REQUIRE(fovea_vmaf_submit(v, &f.ref[1], &f.dis[1]) == FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_pending(v), 2);
    REQUIRE(fovea_vmaf_receive(v, &sc) == FOVEA_OK);
    CHECK_EQ_INT(sc.frame, 0);
    CHECK(sc.value[7] == 0.0 && sc.value[12] == 0.0); /* frame 0: no motion */
    CHECK(sc.value[13] > 0.0);                        /* motion3: frame 1's motion */
    CHECK_EQ_INT(fovea_vmaf_receive(v, &sc), FOVEA_AGAIN);
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK); /* nothing more to end */
    REQUIRE(fovea_vmaf_receive(v, &sc) == FOVEA_OK);
    CHECK_EQ_INT(sc.frame, 1);
    CHECK(sc.value[12] == sc.value[7] && sc.value[7] > 0.0); /* last: its own motion */
    CHECK_EQ_INT(fovea_vmaf_receive(v, &sc), FOVEA_AGAIN);
    CHECK_EQ_INT(fovea_vmaf_pending(v), 0);

    /* two streams on one context == each on a fresh one; numbering and
     * pooling go on over both */
    fovea_vmaf_reset(v);
    double *got = calloc(6 * FOVEA_VMAF_MAX_METRICS, sizeof(double));
    double *want = calloc(6 * FOVEA_VMAF_MAX_METRICS, sizeof(double));
    REQUIRE(got && want);
    frames a = sub_seq(&f, 0, 4), b = sub_seq(&f, 4, 2);
    CHECK_EQ_INT(score_all(v, &a, got), 4);
    int n = 0;
    REQUIRE(fovea_vmaf_submit(v, &b.ref[0], &b.dis[0]) == FOVEA_OK);
    REQUIRE(fovea_vmaf_submit(v, &b.ref[1], &b.dis[1]) == FOVEA_OK);
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
    while (fovea_vmaf_receive(v, &sc) == FOVEA_OK) {
        CHECK_EQ_INT(sc.frame, 4 + n);
        memcpy(&VAL(got, 4 + n, 0), sc.value, sizeof(sc.value));
        n++;
    }
    CHECK_EQ_INT(n, 2);
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    CHECK_EQ_INT(score_fresh(ctx, &s, &a, want), 4);
    CHECK_EQ_INT(score_fresh(ctx, &s, &b, &VAL(want, 4, 0)), 2);
    CHECK(same_values(got, want, 6, 15));
    CHECK(VAL(got, 4, 7) == 0.0 && VAL(got, 4, 12) == 0.0); /* motion restarted */
    /* a whole-sequence stream differs there: the flush really cut the stream */
    double *whole = calloc(6 * FOVEA_VMAF_MAX_METRICS, sizeof(double));
    REQUIRE(whole);
    CHECK_EQ_INT(score_fresh(ctx, &s, &f, whole), 6);
    CHECK(VAL(whole, 4, 7) > 0.0);
    REQUIRE(fovea_vmaf_pooled(v, &pooled) == FOVEA_OK);
    CHECK_EQ_INT(pooled.frames, 6);
    for (int m = 0; m < 15; m++) {
        double col[6], p4[4];
        for (int i = 0; i < 6; i++)
            col[i] = VAL(got, i, m);
        pool_of(col, 6, p4);
        CHECK(pooled.metric[m].min == p4[0] && pooled.metric[m].max == p4[1] &&
              pooled.metric[m].mean == p4[2] && pooled.metric[m].harmonic_mean == p4[3]);
    }

    /* reset with pairs pending: they are dropped, numbering restarts */
    REQUIRE(fovea_vmaf_submit(v, &f.ref[0], &f.dis[0]) == FOVEA_OK);
    REQUIRE(fovea_vmaf_submit(v, &f.ref[1], &f.dis[1]) == FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_pending(v), 2);
    fovea_vmaf_reset(v);
    CHECK_EQ_INT(fovea_vmaf_pending(v), 0);
    CHECK_EQ_INT(fovea_vmaf_receive(v, &sc), FOVEA_AGAIN);
    REQUIRE(fovea_vmaf_pooled(v, &pooled) == FOVEA_OK);
    CHECK_EQ_INT(pooled.frames, 0);
    CHECK_EQ_INT(score_all(v, &f, got), 6);
    CHECK(same_values(got, whole, 6, 15));
    REQUIRE(fovea_vmaf_pooled(v, &pooled) == FOVEA_OK);
    CHECK_EQ_INT(pooled.frames, 6);

    /* a size change needs a flush first */
    frames g;
    make_seq(&g, 72, 40, 8, 2, 12);
    REQUIRE(fovea_vmaf_submit(v, &f.ref[0], &f.dis[0]) == FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_submit(v, &g.ref[0], &g.dis[0]), FOVEA_ERR_MISMATCH);
    CHECK(strstr(fovea_last_error(ctx), "flush") != NULL);
    CHECK_EQ_INT(fovea_vmaf_pending(v), 1);
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
    REQUIRE(fovea_vmaf_submit(v, &g.ref[0], &g.dis[0]) == FOVEA_OK);
    REQUIRE(fovea_vmaf_submit(v, &g.ref[1], &g.dis[1]) == FOVEA_OK);
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
    n = 0;
    while (fovea_vmaf_receive(v, &sc) == FOVEA_OK)
        memcpy(&VAL(got, n++, 0), sc.value, sizeof(sc.value));
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(score_fresh(ctx, &s, &g, want), 2);
    CHECK(same_values(&VAL(got, 1, 0), want, 2, 15));

    fovea_vmaf_close(&v);
    CHECK(v == NULL);
    fovea_vmaf_close(&v); /* safe on NULL */
    free(got);
    free(want);
    free(whole);
    free_frames(&f);
    free_frames(&g);
    fovea_close(&ctx);
}

/* fovea_vmaf_process (the C driver scores the pair at once, reading the
 * frames in place, padded strides here): each pair == a stream of one on a
 * fresh context; numbering and pooling go on; pairs submitted after it start
 * a new stream; a size change; refused while pairs are pending. */
static void test_process(void)
{
    for (int bpc = 8; bpc <= 10; bpc += 2) {
        fovea_context *ctx = open_ctx(3);
        frames f, g;
        make_seq(&f, 67, 45, bpc, 5, 21);
        make_seq(&g, 40, 37, bpc, 1, 22);
        REQUIRE(f.ref[0].stride[0] > 67 * (bpc > 8 ? 2 : 1));
        fovea_vmaf_settings s;
        fovea_vmaf_default_settings(&s);
        fovea_vmaf *v = NULL;
        REQUIRE(fovea_vmaf_open(&v, ctx, &s) == FOVEA_OK);
        double *got = calloc(6 * FOVEA_VMAF_MAX_METRICS, sizeof(double));
        double *want = calloc(6 * FOVEA_VMAF_MAX_METRICS, sizeof(double));
        REQUIRE(got && want);
        fovea_vmaf_scores sc;
        for (int i = 0; i < 3; i++) {
            REQUIRE(fovea_vmaf_process(v, &f.ref[i], &f.dis[i], &sc) == FOVEA_OK);
            CHECK_EQ_INT(sc.frame, i);
            CHECK_EQ_INT(fovea_vmaf_pending(v), 0);
            memcpy(&VAL(got, i, 0), sc.value, sizeof(sc.value));
            frames one = sub_seq(&f, i, 1);
            CHECK_EQ_INT(score_fresh(ctx, &s, &one, &VAL(want, i, 0)), 1);
        }
        /* then a stream of two: motion restarts at its first pair */
        REQUIRE(fovea_vmaf_submit(v, &f.ref[3], &f.dis[3]) == FOVEA_OK);
        CHECK_EQ_INT(fovea_vmaf_process(v, &f.ref[4], &f.dis[4], &sc), FOVEA_ERR_INVALID_ARG);
        REQUIRE(fovea_vmaf_submit(v, &f.ref[4], &f.dis[4]) == FOVEA_OK);
        REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
        for (int i = 3; i < 5; i++) {
            REQUIRE(fovea_vmaf_receive(v, &sc) == FOVEA_OK);
            CHECK_EQ_INT(sc.frame, i);
            memcpy(&VAL(got, i, 0), sc.value, sizeof(sc.value));
        }
        frames two = sub_seq(&f, 3, 2);
        CHECK_EQ_INT(score_fresh(ctx, &s, &two, &VAL(want, 3, 0)), 2);
        /* another size */
        REQUIRE(fovea_vmaf_process(v, &g.ref[0], &g.dis[0], &sc) == FOVEA_OK);
        CHECK_EQ_INT(sc.frame, 5);
        memcpy(&VAL(got, 5, 0), sc.value, sizeof(sc.value));
        CHECK_EQ_INT(score_fresh(ctx, &s, &g, &VAL(want, 5, 0)), 1);
        CHECK(same_values(got, want, 6, 15));
        fovea_vmaf_pooled_scores pooled;
        REQUIRE(fovea_vmaf_pooled(v, &pooled) == FOVEA_OK);
        CHECK_EQ_INT(pooled.frames, 6);
        for (int m = 0; m < 15; m++) {
            double col[6], p4[4];
            for (int i = 0; i < 6; i++)
                col[i] = VAL(got, i, m);
            pool_of(col, 6, p4);
            CHECK(pooled.metric[m].min == p4[0] && pooled.metric[m].max == p4[1] &&
                  pooled.metric[m].mean == p4[2] && pooled.metric[m].harmonic_mean == p4[3]);
        }
        fovea_vmaf_close(&v);
        free(got);
        free(want);
        free_frames(&f);
        free_frames(&g);
        fovea_close(&ctx);
    }
}

/* The feature modes, the thread count, the prediction flags, the model from
 * a file. */
static void test_modes(void)
{
    fovea_context *c1 = open_ctx(1), *c3 = open_ctx(3);
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    const int nf = 5;
    double *a = calloc((size_t)nf * FOVEA_VMAF_MAX_METRICS, sizeof(double));
    double *b = calloc((size_t)nf * FOVEA_VMAF_MAX_METRICS, sizeof(double));
    REQUIRE(a && b);
    static const struct {
        int w, h, bpc;
    } sizes[] = {{197, 131, 8}, {96, 77, 10}, {65, 33, 12}, {33, 50, 16}};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        frames f;
        make_seq(&f, sizes[k].w, sizes[k].h, sizes[k].bpc, nf, 100 + k);
        /* 1 and 3 threads: the same bits, pairs received one by one (split
         * by rows) or in full batches (one pair per thread; 7 pairs make
         * batches of 3, 3 and 1) */
        CHECK_EQ_INT(score_fresh(c1, &s, &f, a), nf);
        CHECK_EQ_INT(score_fresh(c3, &s, &f, b), nf);
        CHECK(same_values(a, b, nf, 15));
        fovea_vmaf *v = NULL;
        REQUIRE(fovea_vmaf_open(&v, c3, &s) == FOVEA_OK);
        CHECK_EQ_INT(fovea_vmaf_batch_size(v, sizes[k].w, sizes[k].h), 3);
        memset(b, 0, (size_t)nf * FOVEA_VMAF_MAX_METRICS * sizeof(double));
        CHECK_EQ_INT(score_deep(v, &f, b, 9), nf);
        CHECK(same_values(a, b, nf, 15));
        frames f7;
        make_seq(&f7, sizes[k].w, sizes[k].h, sizes[k].bpc, 7, 200 + k);
        double *c = calloc(7 * FOVEA_VMAF_MAX_METRICS, sizeof(double));
        double *d = calloc(7 * FOVEA_VMAF_MAX_METRICS, sizeof(double));
        REQUIRE(c && d);
        CHECK_EQ_INT(score_deep(v, &f7, c, 9), 7);
        CHECK_EQ_INT(score_fresh(c1, &s, &f7, d), 7);
        CHECK(same_values(c, d, 7, 15));
        CHECK_EQ_INT(score_deep(v, &f7, c, 4), 7); /* batches across the receives */
        CHECK(same_values(c, d, 7, 15));
        fovea_vmaf_close(&v);
        free(c);
        free(d);
        free_frames(&f7);
        for (int i = 0; i < nf; i++)
            CHECK(VAL(a, i, 14) > 0.0 && VAL(a, i, 14) <= 100.0);

        /* the model's features alone: the same values without the score */
        fovea_vmaf_settings so = s;
        so.flags = FOVEA_VMAF_NO_PREDICTION;
        REQUIRE(fovea_vmaf_open(&v, c3, &so) == FOVEA_OK);
        CHECK_EQ_INT(fovea_vmaf_metric_count(v), 14);
        CHECK_EQ_INT(fovea_vmaf_metric_index(v, "vmaf"), -1);
        CHECK_EQ_INT(score_all(v, &f, b), nf);
        fovea_vmaf_close(&v);
        CHECK(same_values(a, b, nf, 14));

        /* VIF only: libvmaf's vif extractor, ready without lookahead */
        so.features = "vif";
        so.model = NULL;
        REQUIRE(fovea_vmaf_open(&v, c3, &so) == FOVEA_OK);
        CHECK_EQ_INT(fovea_vmaf_metric_count(v), 4);
        CHECK(!strcmp(fovea_vmaf_metric_name(v, 0), "integer_vif_scale0"));
        REQUIRE(fovea_vmaf_submit(v, &f.ref[0], &f.dis[0]) == FOVEA_OK);
        fovea_vmaf_scores sc;
        REQUIRE(fovea_vmaf_receive(v, &sc) == FOVEA_OK);
        CHECK(sc.value[0] == VAL(a, 0, 8) && sc.value[3] == VAL(a, 0, 11));
        fovea_vmaf_close(&v);

        /* the flags reach the prediction */
        fovea_vmaf_model *bm = NULL;
        REQUIRE(fovea_vmaf_model_open(&bm, c3, "vmaf_v0.6.1") == FOVEA_OK);
        so = s;
        so.model = bm;
        so.flags = FOVEA_VMAF_ENABLE_TRANSFORM | FOVEA_VMAF_DISABLE_CLIP;
        CHECK_EQ_INT(score_fresh(c3, &so, &f, b), nf);
        vmaf_model *m = NULL;
        char err[256];
        REQUIRE(vmaf_model_load_version(&m, "vmaf_v0.6.1", err, sizeof err) == FOVEA_OK);
        for (int i = 0; i < nf; i++) {
            /* adm2, motion2, vif_scale0..3 */
            const double x[6] = {VAL(a, i, 0), VAL(a, i, 12), VAL(a, i, 8),
                                 VAL(a, i, 9), VAL(a, i, 10), VAL(a, i, 11)};
            CHECK(VAL(a, i, 14) == vmaf_model_predict(m, x, 0));
            CHECK(VAL(b, i, 14) ==
                  vmaf_model_predict(m, x,
                                     VMAF_PREDICT_ENABLE_TRANSFORM | VMAF_PREDICT_DISABLE_CLIP));
            CHECK(VAL(b, i, 14) != VAL(a, i, 14));
        }
        vmaf_model_free(&m);
        fovea_vmaf_model_close(&bm);
        CHECK(bm == NULL);
        free_frames(&f);
    }

    /* the model file (the golden vmaf_v0.6.1.json, else the repo's) == built-in */
    char path[4096];
    const char *dir = test_golden_dir("vif");
    if (dir)
        snprintf(path, sizeof path, "%s/vmaf_v0.6.1.json", dir);
    else
        snprintf(path, sizeof path, "%s/models/vmaf_v0.6.1.json", test_source_dir());
    fovea_vmaf_model *fm = NULL;
    REQUIRE(fovea_vmaf_model_open_file(&fm, c3, path) == FOVEA_OK);
    frames f;
    make_seq(&f, 80, 60, 8, nf, 7);
    CHECK_EQ_INT(score_fresh(c3, &s, &f, a), nf);
    fovea_vmaf_settings sf = s;
    sf.model = fm;
    fovea_vmaf *v = NULL;
    REQUIRE(fovea_vmaf_open(&v, c3, &sf) == FOVEA_OK);
    fovea_vmaf *v2 = NULL; /* one model serves several contexts */
    REQUIRE(fovea_vmaf_open(&v2, c1, &sf) == FOVEA_OK);
    CHECK_EQ_INT(score_all(v, &f, b), nf);
    CHECK(same_values(a, b, nf, 15));
    CHECK_EQ_INT(score_all(v2, &f, b), nf);
    CHECK(same_values(a, b, nf, 15));
    fovea_vmaf_close(&v);
    fovea_vmaf_close(&v2);
    fovea_vmaf_model_close(&fm);
    free_frames(&f);
    free(a);
    free(b);
    fovea_close(&c1);
    fovea_close(&c3);
}

/* The built-in model with feature_opts_dicts added (written to a file). */
static char *model_with_opts(const char *adm_opts, const char *motion_opts, const char *vif_opts)
{
    cJSON *root = cJSON_ParseWithLength((const char *)vmaf_model_builtin_v0_6_1,
                                        vmaf_model_builtin_v0_6_1_size);
    REQUIRE(root);
    cJSON *md = cJSON_GetObjectItemCaseSensitive(root, "model_dict");
    REQUIRE(md);
    char text[1024];
    /* adm2, motion2, vif_scale0..3 */
    snprintf(text, sizeof text, "[{%s}, {%s}, {%s}, {%s}, {%s}, {%s}]", adm_opts, motion_opts,
             vif_opts, vif_opts, vif_opts, vif_opts);
    cJSON *opts = cJSON_Parse(text);
    REQUIRE(opts);
    cJSON_AddItemToObject(md, "feature_opts_dicts", opts);
    char *json = cJSON_PrintUnformatted(root);
    REQUIRE(json);
    char *path = test_write_tmp(".json", json, strlen(json));
    free(json);
    cJSON_Delete(root);
    return path;
}

/* One extractor option set: libvmaf's names, and values equal to the C
 * references run by hand with those options. */
static void check_opts_model(fovea_context *ctx, const char *adm_opts, const char *motion_opts,
                             const char *vif_opts, const char *const names[15],
                             const adm_params *aopt, double egl_vif, const motion_params *mopt)
{
    char *path = model_with_opts(adm_opts, motion_opts, vif_opts);
    fovea_vmaf_model *fm = NULL;
    REQUIRE(fovea_vmaf_model_open_file(&fm, ctx, path) == FOVEA_OK);
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    s.model = fm;
    fovea_vmaf *v = NULL;
    REQUIRE(fovea_vmaf_open(&v, ctx, &s) == FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_metric_count(v), 15);
    for (int m = 0; m < 15 && m < fovea_vmaf_metric_count(v); m++) {
        if (strcmp(fovea_vmaf_metric_name(v, m), names[m])) {
            fprintf(stderr, "  metric %d: %s, libvmaf names it %s\n", m,
                    fovea_vmaf_metric_name(v, m), names[m]);
            CHECK(0);
        }
    }
    const int nf = 4, w = 90, h = 70;
    frames f;
    make_seq(&f, w, h, 8, nf, 21);
    double *got = calloc((size_t)nf * FOVEA_VMAF_MAX_METRICS, sizeof(double));
    REQUIRE(got);
    CHECK_EQ_INT(score_all(v, &f, got), nf);

    /* by hand: adm_compute, the feature list "vif", motion_push, the model */
    adm_params ap;
    adm_default_params(&ap, w, h, 8);
    ap.enhn_gain_limit = aopt->enhn_gain_limit;
    ap.norm_view_dist = aopt->norm_view_dist;
    ap.ref_display_height = aopt->ref_display_height;
    adm_state *adm = NULL;
    REQUIRE(adm_open(&adm, &ap) == FOVEA_OK);
    vif_test_settings vs;
    vif_test_default_settings(&vs);
    vs.vif_enhn_gain_limit = egl_vif;
    fovea_vmaf *vif = NULL;
    REQUIRE(vif_test_open(&vif, ctx, &vs) == FOVEA_OK);
    motion_params mp = *mopt;
    mp.width = w;
    mp.height = h;
    mp.bpc = 8;
    motion_state *mo = NULL;
    REQUIRE(motion_open(&mo, &mp) == FOVEA_OK);
    vmaf_model *model = NULL;
    char err[256];
    REQUIRE(vmaf_model_load(&model, path, err, sizeof err) == FOVEA_OK);
    double want[4][15];
    for (int i = 0; i <= nf; i++) {
        motion_scores ms;
        int r = i < nf ? motion_push(mo, f.ref[i].data[0], f.ref[i].stride[0], &ms)
                       : motion_flush(mo, &ms);
        REQUIRE(r >= 0);
        if (r == 1) {
            want[ms.frame][7] = ms.motion;
            want[ms.frame][12] = ms.motion2;
            want[ms.frame][13] = ms.motion3;
        }
        if (i == nf)
            break;
        adm_result ar;
        adm_compute(adm, f.ref[i].data[0], f.ref[i].stride[0], f.dis[i].data[0], f.dis[i].stride[0],
                    &ar);
        vif_test_scores sc;
        REQUIRE(vif_test_process(vif, &f.ref[i], &f.dis[i], &sc) == FOVEA_OK);
        want[i][0] = ar.adm2;
        want[i][1] = ar.aim;
        want[i][2] = ar.adm3;
        for (int k = 0; k < 4; k++) {
            want[i][3 + k] = ar.scale[k];
            want[i][8 + k] = sc.scale[k];
        }
    }
    for (int i = 0; i < nf; i++) {
        const double x[6] = {want[i][0], want[i][12], want[i][8],
                             want[i][9], want[i][10], want[i][11]};
        want[i][14] = vmaf_model_predict(model, x, 0);
        for (int m = 0; m < 15; m++) {
            if (VAL(got, i, m) != want[i][m]) {
                fprintf(stderr, "  %s frame %d: %.17g, by hand %.17g\n", names[m], i,
                        VAL(got, i, m), want[i][m]);
                CHECK(0);
            }
        }
    }
    vmaf_model_free(&model);
    motion_close(&mo);
    fovea_vmaf_close(&vif);
    adm_close(&adm);
    fovea_vmaf_close(&v);
    fovea_vmaf_model_close(&fm);
    free(got);
    free_frames(&f);
    free(path);
}

static void test_options(void)
{
    fovea_context *ctx = open_ctx(2);
    motion_params mp;
    motion_default_params(&mp, 0, 0, 8);
    adm_params ap;
    adm_default_params(&ap, 0, 0, 8);
    ap.enhn_gain_limit = 1.0;
    /* vmaf_v0.6.1neg's options: the gain limits at 1 */
    static const char *const neg[15] = {"integer_adm2_egl_1",
                                        "integer_aim_egl_1",
                                        "integer_adm3_egl_1",
                                        "integer_adm_scale0_egl_1",
                                        "integer_adm_scale1_egl_1",
                                        "integer_adm_scale2_egl_1",
                                        "integer_adm_scale3_egl_1",
                                        "VMAF_integer_feature_motion_sad_score",
                                        "integer_vif_scale0_egl_1",
                                        "integer_vif_scale1_egl_1",
                                        "integer_vif_scale2_egl_1",
                                        "integer_vif_scale3_egl_1",
                                        "integer_motion2",
                                        "integer_motion3",
                                        "vmaf"};
    check_opts_model(ctx, "\"adm_enhn_gain_limit\": 1.0", "", "\"vif_enhn_gain_limit\": 1.0", neg,
                     &ap, 1.0, &mp);
    /* options at their defaults add nothing; several are sorted by option
     * name; doubles print as %g, ints as %d, a true bool as its alias */
    static const char *const mixed[15] = {
        "integer_adm2_egl_1.5_rdh_2160",
        "integer_aim_egl_1.5_rdh_2160",
        "integer_adm3_egl_1.5_rdh_2160",
        "integer_adm_scale0_egl_1.5_rdh_2160",
        "integer_adm_scale1_egl_1.5_rdh_2160",
        "integer_adm_scale2_egl_1.5_rdh_2160",
        "integer_adm_scale3_egl_1.5_rdh_2160",
        "VMAF_integer_feature_motion_sad_score_mbf_0.5_mbo_0.25_mfw_2_mma",
        "integer_vif_scale0",
        "integer_vif_scale1",
        "integer_vif_scale2",
        "integer_vif_scale3",
        "integer_motion2_mbf_0.5_mbo_0.25_mfw_2_mma",
        "integer_motion3_mbf_0.5_mbo_0.25_mfw_2_mma",
        "vmaf"};
    ap.enhn_gain_limit = 1.5;
    ap.ref_display_height = 2160;
    mp.blend_factor = 0.5;
    mp.blend_offset = 0.25;
    mp.fps_weight = 2.0;
    mp.moving_average = 1;
    check_opts_model(ctx,
                     "\"adm_ref_display_height\": 2160, \"adm_norm_view_dist\": 3.0, "
                     "\"adm_enhn_gain_limit\": 1.5",
                     "\"motion_moving_average\": true, \"motion_fps_weight\": 2, "
                     "\"motion_blend_offset\": 0.25, \"motion_blend_factor\": 0.5, "
                     "\"motion_max_val\": 10000",
                     "\"vif_enhn_gain_limit\": 100", mixed, &ap, 100.0, &mp);
    fovea_close(&ctx);
}

static void test_errors(void)
{
    fovea_context *ctx = open_ctx(2);
    fovea_vmaf *v = NULL;
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);

    /* settings */
    CHECK_EQ_INT(fovea_vmaf_open(NULL, ctx, &s), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_vmaf_open(&v, NULL, &s), FOVEA_ERR_INVALID_ARG);
    s.features = "nonexistent";
    CHECK_EQ_INT(fovea_vmaf_open(&v, ctx, &s), FOVEA_ERR_INVALID_ARG);
    CHECK(v == NULL);
    s.features = NULL;
    s.flags = 256; /* no such flag */
    CHECK_EQ_INT(fovea_vmaf_open(&v, ctx, &s), FOVEA_ERR_INVALID_ARG);
    s.flags = 0;

    /* models */
    fovea_vmaf_model *m = NULL;
    CHECK_EQ_INT(fovea_vmaf_model_open(&m, ctx, "vmaf_v0.6.2"), FOVEA_ERR_INVALID_ARG);
    CHECK(m == NULL && strstr(fovea_last_error(ctx), "vmaf_v0.6.2"));
    CHECK_EQ_INT(fovea_vmaf_model_open_file(&m, ctx, "/nonexistent/dir/model.json"), FOVEA_ERR_IO);
    CHECK(m == NULL && strstr(fovea_last_error(ctx), "/nonexistent/dir/model.json"));
    /* a directory: the system's reason, not a bare "read error" (issue 45) */
    CHECK_EQ_INT(fovea_vmaf_model_open_file(&m, ctx, "."), FOVEA_ERR_IO);
    CHECK(m == NULL && strstr(fovea_last_error(ctx), ".: read error: Is a directory") != NULL);
    static const char garbage[] = "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", ";
    char *bad = test_write_tmp(".json", garbage, sizeof garbage - 1);
    CHECK_EQ_INT(fovea_vmaf_model_open_file(&m, ctx, bad), FOVEA_ERR_CORRUPT);
    CHECK(m == NULL && strstr(fovea_last_error(ctx), bad));
    free(bad);
    CHECK_EQ_INT(fovea_vmaf_model_open_file(NULL, ctx, "x"), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_vmaf_model_open_file(&m, ctx, NULL), FOVEA_ERR_INVALID_ARG);
    fovea_vmaf_model_close(&m);
    fovea_vmaf_model_close(NULL);
    /* a viewing condition libvmaf refuses too */
    char *low = model_with_opts("\"adm_norm_view_dist\": 1.0", "", "");
    REQUIRE(fovea_vmaf_model_open_file(&m, ctx, low) == FOVEA_OK);
    s.model = m;
    CHECK_EQ_INT(fovea_vmaf_open(&v, ctx, &s), FOVEA_ERR_UNSUPPORTED);
    CHECK(v == NULL && strstr(fovea_last_error(ctx), "adm_norm_view_dist"));
    s.model = NULL;
    fovea_vmaf_model_close(&m);
    free(low);

    /* frames */
    REQUIRE(fovea_vmaf_open(&v, ctx, &s) == FOVEA_OK);
    frames a, b, c, d;
    make_seq(&a, 64, 48, 8, 2, 31);
    make_seq(&b, 64, 50, 8, 1, 32);
    make_seq(&c, 64, 48, 10, 1, 33);
    make_seq(&d, 32, 40, 8, 1, 34);
    CHECK_EQ_INT(fovea_vmaf_submit(v, &a.ref[0], &b.dis[0]), FOVEA_ERR_MISMATCH);
    CHECK(strstr(fovea_last_error(ctx), "64x48") && strstr(fovea_last_error(ctx), "64x50"));
    CHECK_EQ_INT(fovea_vmaf_submit(v, &a.ref[0], &c.dis[0]), FOVEA_ERR_MISMATCH);
    CHECK(strstr(fovea_last_error(ctx), "10-bit") != NULL);
    CHECK_EQ_INT(fovea_vmaf_submit(v, &d.ref[0], &d.dis[0]), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "32x40") && strstr(fovea_last_error(ctx), "ADM needs 33"));
    fovea_frame dev = a.ref[0];
    dev.mem = FOVEA_MEM_DEVICE; /* never read: refused first */
    CHECK_EQ_INT(fovea_vmaf_submit(v, &dev, &a.dis[0]), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "device memory") != NULL);
    CHECK_EQ_INT(fovea_vmaf_submit(v, NULL, &a.dis[0]), FOVEA_ERR_INVALID_ARG);
    fovea_frame rgb;
    REQUIRE(fovea_frame_alloc(NULL, &rgb, 64, 48, FOVEA_PIX_RGB24, FOVEA_MEM_HOST) == FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_submit(v, &rgb, &a.dis[0]), FOVEA_ERR_UNSUPPORTED);
    fovea_frame_free(NULL, &rgb);
    CHECK_EQ_INT(fovea_vmaf_pending(v), 0);
    /* refused pairs left no trace: the stream starts at the next good one */
    double *got = calloc(2 * FOVEA_VMAF_MAX_METRICS, sizeof(double));
    double *want = calloc(2 * FOVEA_VMAF_MAX_METRICS, sizeof(double));
    REQUIRE(got && want);
    CHECK_EQ_INT(score_all(v, &a, got), 2);
    CHECK_EQ_INT(score_fresh(ctx, &s, &a, want), 2);
    CHECK(same_values(got, want, 2, 15));
    fovea_vmaf_close(&v);

    /* VIF only goes down to 16x16 */
    s.features = "vif";
    REQUIRE(fovea_vmaf_open(&v, ctx, &s) == FOVEA_OK);
    REQUIRE(fovea_vmaf_submit(v, &d.ref[0], &d.dis[0]) == FOVEA_OK);
    frames e;
    make_seq(&e, 15, 20, 8, 1, 35);
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_submit(v, &e.ref[0], &e.dis[0]), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "VIF needs 16") != NULL);
    fovea_vmaf_close(&v);

    /* NULL contexts */
    CHECK_EQ_INT(fovea_vmaf_submit(NULL, &a.ref[0], &a.dis[0]), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_vmaf_receive(NULL, NULL), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_vmaf_flush(NULL), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_vmaf_pending(NULL), 0);
    CHECK_EQ_INT(fovea_vmaf_metric_count(NULL), 0);
    CHECK(fovea_vmaf_metric_name(NULL, 0) == NULL);
    CHECK_EQ_INT(fovea_vmaf_metric_index(NULL, "vmaf"), -1);
    CHECK_EQ_INT(fovea_vmaf_batch_size(NULL, 64, 48), 1);
    fovea_vmaf_pooled_scores ps;
    CHECK_EQ_INT(fovea_vmaf_pooled(NULL, &ps), FOVEA_ERR_INVALID_ARG);
    fovea_vmaf_reset(NULL);
    free(got);
    free(want);
    free_frames(&a);
    free_frames(&b);
    free_frames(&c);
    free_frames(&d);
    free_frames(&e);
    fovea_close(&ctx);
}

int main(void)
{
    test_queue();
    test_process();
    test_modes();
    test_options();
    test_errors();
    int golden = test_golden();
    int rc = test_finish("test_quality_vmaf_api");
    if (rc == 0 && !golden)
        return TEST_SKIP;
    return rc;
}
