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
#include "vmaf_golden.h"

static fovea_context *open_ctx(int threads)
{
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    cs.threads = threads;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &cs) == FOVEA_OK);
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
    REQUIRE(fovea_reader_open(NULL, &rr, path, NULL) == FOVEA_OK);
    snprintf(path, sizeof(path), "%s/%s/dis.y4m", dir, cs);
    REQUIRE(fovea_reader_open(NULL, &rd, path, NULL) == FOVEA_OK);
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
        CHECK_EQ_INT(st, FOVEA_EOF);
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
static void compare_set(const char *cs, fovea_vmaf *v, const cJSON *set, const double *got,
                        int n, int *exact, int *total)
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
                fprintf(stderr, "  %s %s frame %d: got %.17g, libvmaf %.17g\n", cs,
                        nm->valuestring, i, g, w);
            }
        }
        /* the pooling of libvmaf's own per-frame values, and libvmaf's pooled */
        double want[4];
        pool_of(col, n, want);
        const double have[4] = {pooled.metric[m].min, pooled.metric[m].max,
                                pooled.metric[m].mean, pooled.metric[m].harmonic_mean};
        const cJSON *lp = golden_section(set, "pooled", nm->valuestring);
        for (int k = 0; k < 4; k++) {
            const cJSON *lv = cJSON_GetObjectItemCaseSensitive(lp, pool_names[k]);
            (*total) += 2;
            if (have[k] == want[k])
                (*exact)++;
            else
                fprintf(stderr, "  %s %s pooled %s: got %.17g, from libvmaf's frames %.17g\n",
                        cs, nm->valuestring, pool_names[k], have[k], want[k]);
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
        const int is_golden =
            cJSON_IsString(status) && !strstr(status->valuestring, "UNSTABLE");
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
            const int n = score_all(v, &f, got);
            CHECK_EQ_INT(n, f.n);
            compare_set(cs, v, cJSON_GetObjectItemCaseSensitive(features, "vmaf_v0.6.1"), got,
                        n, &exact, &total);
            fovea_vmaf_close(&v);
            CHECK(v == NULL);
            golden++;
        } else {
            /* below ADM's 33x33: the model cannot run, VIF alone can */
            REQUIRE(fovea_vmaf_open(&v, ctx, &s) == FOVEA_OK);
            CHECK_EQ_INT(fovea_vmaf_submit(v, &f.ref[0], &f.dis[0]), FOVEA_ERR_INVALID_ARG);
            CHECK(strstr(fovea_last_error(ctx), "ADM needs 33") != NULL);
            CHECK_EQ_INT(fovea_vmaf_pending(v), 0);
            CHECK_EQ_INT(fovea_vmaf_receive(v, NULL), FOVEA_EOF);
            fovea_vmaf_close(&v);
            small++;
        }
        /* VIF only (libvmaf's --feature vif --no_prediction) on every case */
        s.features = FOVEA_VMAF_FEATURES_VIF;
        REQUIRE(fovea_vmaf_open(&v, ctx, &s) == FOVEA_OK);
        CHECK_EQ_INT(fovea_vmaf_metric_count(v), 4);
        const int n = score_all(v, &f, got);
        CHECK_EQ_INT(n, f.n);
        compare_set(cs, v, cJSON_GetObjectItemCaseSensitive(features, "vif"), got, n, &exact,
                    &total);
        fovea_vmaf_close(&v);

        printf("  %-36s %3d frames: %s, %d/%d values exact\n", cs, f.n,
               is_golden ? "vmaf_v0.6.1 and vif" : "vif only (below ADM's minimum)", exact,
               total);
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

int main(void)
{
    int golden = test_golden();
    int rc = test_finish("test_quality_vmaf_api");
    if (rc == 0 && !golden)
        return TEST_SKIP;
    return rc;
}
