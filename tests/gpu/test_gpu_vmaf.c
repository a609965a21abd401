/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The public VMAF API on a CUDA context against the CPU context: every metric
 * of every frame (and every pooled value) the same double, bit for bit, on
 * every golden case of ../shared/testdata/vif.tar.xz and on generated streams
 * of odd sizes at 8, 10, 12 and 16 bits; pageable, pinned and device frames,
 * each alone and mixed pair by pair; receiving as scores become ready or all
 * at the end (many batches in flight); new streams after a flush, a reset with
 * pairs pending, size changes; the VIF-only and features-only modes; a model
 * with extractor options (motion_force_zero among them). Exits 77 (skipped)
 * without a CUDA device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fovea/fovea.h"
#include "fovea/quality.h"
#include "quality/model.h"
#include "testutil.h"
#include "vmaf_golden.h"

#ifdef FOVEA_HAVE_CUDA

#define VAL(buf, i, m) ((buf)[(size_t)(i)*FOVEA_VMAF_MAX_METRICS + (m)])

/* ---------------------------------------------------------------- streams */

typedef test_pair_frames frames;

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

static void put(fovea_frame *f, int bpc, int x, int y, int v)
{
    const int maxv = (1 << bpc) - 1;
    v = v < 0 ? 0 : v > maxv ? maxv : v;
    test_sample_set(f, 0, bpc, x, y, v);
}

/* A seeded stream: a moving smooth pattern with noise as the reference; the
 * distorted is the reference plus noise, a contrast change or a scene cut
 * (every seventh frame), so motion, enhancement and flat areas all occur. */
static void make_stream(frames *f, int w, int h, int bpc, int chroma, int n, uint64_t seed)
{
    test_rng r;
    test_rng_seed(&r, seed);
    memset(f, 0, sizeof(*f));
    f->n = n;
    f->ref = calloc((size_t)n, sizeof(fovea_frame));
    f->dis = calloc((size_t)n, sizeof(fovea_frame));
    REQUIRE(f->ref && f->dis);
    const fovea_pixfmt fmt = fovea_pixfmt_yuv(chroma, bpc);
    REQUIRE(fmt != FOVEA_PIX_NONE);
    const int maxv = (1 << bpc) - 1;
    for (int t = 0; t < n; t++) {
        fovea_frame *fr = &f->ref[t], *fd = &f->dis[t];
        REQUIRE(fovea_frame_alloc(NULL, fr, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
        REQUIRE(fovea_frame_alloc(NULL, fd, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
        test_fill_random(fr, &r); /* chroma: random, never read */
        test_fill_random(fd, &r);
        const int cut = t % 7 == 6;
        const double ph = cut ? test_rng_double(&r) * 6.0 : 0.3 * t;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const double sm = 0.5 + 0.3 * sin(x * 0.07 + ph) * cos(y * 0.05 - ph) +
                                  0.1 * sin(x * 0.5 + y * 0.3);
                const int a = (int)(sm * maxv) +
                              (int)test_rng_below(&r, (uint32_t)(maxv / 16 + 1)) - maxv / 32;
                int b;
                if (t % 3 == 1)
                    b = a + (a - maxv / 2) / 2;
                else
                    b = a + (int)test_rng_below(&r, (uint32_t)(maxv / 8 + 1)) - maxv / 16;
                put(fr, bpc, x, y, a);
                put(fd, bpc, x, y, b);
            }
    }
}

/* Copies of a stream's frames in memory m (pinned or device) on ctx. */
static void copy_frames(fovea_context *ctx, const frames *src, fovea_memtype m, frames *dst)
{
    dst->n = src->n;
    dst->ref = calloc((size_t)src->n, sizeof(fovea_frame));
    dst->dis = calloc((size_t)src->n, sizeof(fovea_frame));
    REQUIRE(dst->ref && dst->dis);
    for (int i = 0; i < src->n; i++) {
        const fovea_frame *a = &src->ref[i], *b = &src->dis[i];
        REQUIRE(fovea_frame_alloc(ctx, &dst->ref[i], a->width, a->height, a->fmt, m) == FOVEA_OK);
        REQUIRE(fovea_frame_alloc(ctx, &dst->dis[i], b->width, b->height, b->fmt, m) == FOVEA_OK);
        CHECK_EQ_INT(fovea_frame_copy(ctx, &dst->ref[i], a), FOVEA_OK);
        CHECK_EQ_INT(fovea_frame_copy(ctx, &dst->dis[i], b), FOVEA_OK);
    }
    CHECK_EQ_INT(fovea_sync(ctx), FOVEA_OK);
}

/* ---------------------------------------------------------------- scoring */

/* How a stream is fed: pair i comes from src[i % nsrc]; a flush after pair
 * flush_at (a new stream starts; -1: none); receive as soon as scores are
 * ready (eager) or only after the last submit. */
typedef struct feed {
    const frames *src[3];
    int nsrc;
    int flush_at;
    int eager;
} feed;

/* Scores of every pair (got[i][m]) and the pooled values of a fresh VMAF
 * context on ctx; returns the number of pairs received. */
static int score(fovea_context *ctx, const fovea_vmaf_settings *s, const feed *fd, int n,
                 double *got, fovea_vmaf_pooled_scores *pooled, int *count)
{
    fovea_vmaf *v = NULL;
    int st = fovea_vmaf_open(&v, ctx, s);
    if (st != FOVEA_OK)
        fprintf(stderr, "fovea_vmaf_open: %s\n", fovea_last_error(ctx));
    REQUIRE(st == FOVEA_OK);
    *count = fovea_vmaf_metric_count(v);
    int received = 0;
    fovea_vmaf_scores sc;
    for (int i = 0; i < n; i++) {
        const frames *f = fd->src[i % fd->nsrc];
        st = fovea_vmaf_submit(v, &f->ref[i], &f->dis[i]);
        if (st != FOVEA_OK)
            fprintf(stderr, "submit %d: %s\n", i, fovea_last_error(ctx));
        REQUIRE(st == FOVEA_OK);
        if (i == fd->flush_at)
            REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
        while (fd->eager && (st = fovea_vmaf_receive(v, &sc)) == FOVEA_OK) {
            CHECK_EQ_INT(sc.frame, received);
            memcpy(&VAL(got, received, 0), sc.value, sizeof(sc.value));
            received++;
        }
        if (fd->eager && st != FOVEA_AGAIN)
            fprintf(stderr, "receive: %s\n", fovea_last_error(ctx));
        CHECK(!fd->eager || st == FOVEA_AGAIN);
    }
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
    while ((st = fovea_vmaf_receive(v, &sc)) == FOVEA_OK) {
        CHECK_EQ_INT(sc.frame, received);
        memcpy(&VAL(got, received, 0), sc.value, sizeof(sc.value));
        received++;
    }
    if (st != FOVEA_AGAIN)
        fprintf(stderr, "receive: %s\n", fovea_last_error(ctx));
    CHECK_EQ_INT(st, FOVEA_AGAIN);
    CHECK_EQ_INT(fovea_vmaf_pending(v), 0);
    CHECK_EQ_INT(fovea_vmaf_pooled(v, pooled), FOVEA_OK);
    fovea_vmaf_close(&v);
    return received;
}

/* Bitwise equality of two runs; prints the first differences. */
static int same_runs(const char *what, const double *a, const double *b, int n, int count,
                     const fovea_vmaf_pooled_scores *pa, const fovea_vmaf_pooled_scores *pb)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int m = 0; m < count; m++)
            if (memcmp(&VAL(a, i, m), &VAL(b, i, m), sizeof(double)) != 0 && bad++ < 4)
                fprintf(stderr, "  %s: frame %d metric %d: CPU %.17g, CUDA %.17g\n", what, i, m,
                        VAL(a, i, m), VAL(b, i, m));
    if (pa->frames != pb->frames || pa->count != pb->count ||
        memcmp(pa->metric, pb->metric, sizeof(pa->metric[0]) * (size_t)pa->count) != 0) {
        if (bad++ < 4)
            fprintf(stderr, "  %s: pooled values differ\n", what);
    }
    return bad == 0;
}

typedef struct ctxs {
    fovea_context *cpu, *gpu;
} ctxs;

/* f scored on the CPU (pageable frames) and on CUDA with pageable, pinned,
 * device and mixed frames, eager or late receiving; every value identical. */
static void compare(const ctxs *c, const char *name, const frames *f, const fovea_vmaf_settings *s,
                    int flush_at)
{
    const int n = f->n;
    double *want = malloc((size_t)n * FOVEA_VMAF_MAX_METRICS * sizeof(double));
    double *got = malloc((size_t)n * FOVEA_VMAF_MAX_METRICS * sizeof(double));
    REQUIRE(want && got);
    frames pin, dev;
    copy_frames(c->gpu, f, FOVEA_MEM_PINNED, &pin);
    copy_frames(c->gpu, f, FOVEA_MEM_DEVICE, &dev);
    fovea_vmaf_pooled_scores pw, pg;
    int count = 0, cg = 0;
    feed cpu = {{f, NULL, NULL}, 1, flush_at, 1};
    REQUIRE(score(c->cpu, s, &cpu, n, want, &pw, &count) == n);
    static const char *const kinds[] = {"pageable", "pinned", "device", "mixed"};
    for (int k = 0; k < 4; k++) {
        feed g = {{f, NULL, NULL}, 1, flush_at, k % 2 == 0};
        if (k == 1)
            g.src[0] = &pin;
        else if (k == 2)
            g.src[0] = &dev;
        else if (k == 3) {
            g.src[0] = f;
            g.src[1] = &pin;
            g.src[2] = &dev;
            g.nsrc = 3;
        }
        memset(got, 0xff, (size_t)n * FOVEA_VMAF_MAX_METRICS * sizeof(double)); /* poison */
        memset(&pg, 0xff, sizeof(pg));
        const int m = score(c->gpu, s, &g, n, got, &pg, &cg);
        CHECK_EQ_INT(m, n);
        CHECK_EQ_INT(cg, count);
        char what[160];
        snprintf(what, sizeof what, "%s (%s frames)", name, kinds[k]);
        const int ok = m == n && cg == count && same_runs(what, want, got, n, count, &pw, &pg);
        CHECK(ok);
        if (k == 0 || !ok)
            printf("  %-44s %3d frames x %2d metrics: %s\n", what, n, count,
                   ok ? "identical" : "MISMATCH");
    }
    test_pair_frames_free(c->gpu, &pin);
    test_pair_frames_free(c->gpu, &dev);
    free(want);
    free(got);
}

/* ---------------------------------------------------------------- tests */

static void test_golden(const ctxs *c)
{
    const char *dir = test_golden_dir("vif");
    if (!dir) {
        printf("golden data not found (../shared/testdata/vif.tar.xz absent at configure "
               "time): generated streams only\n");
        return;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/index.json", dir);
    cJSON *idx = golden_read_json(path);
    REQUIRE(idx);
    int cases = 0;
    const cJSON *cs;
    cJSON_ArrayForEach(cs, cJSON_GetObjectItemCaseSensitive(idx, "cases"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(cs, "case");
        if (!cJSON_IsString(name))
            continue;
        frames f;
        read_frames(dir, name->valuestring, &f);
        REQUIRE(f.n > 0);
        /* FOVEA_VMAF_TEST_FRAMES=N keeps the first N frames of each case */
        const char *lim = getenv("FOVEA_VMAF_TEST_FRAMES");
        if (lim && atoi(lim) > 1 && atoi(lim) < f.n) {
            for (int i = atoi(lim); i < f.n; i++) {
                fovea_frame_free(NULL, &f.ref[i]);
                fovea_frame_free(NULL, &f.dis[i]);
            }
            f.n = atoi(lim);
        }
        fovea_vmaf_settings s;
        fovea_vmaf_default_settings(&s);
        if (f.ref[0].width < 33 || f.ref[0].height < 33)
            s.features = "vif"; /* below ADM's smallest size */
        compare(c, name->valuestring, &f, &s, -1);
        test_pair_frames_free(NULL, &f);
        cases++;
    }
    CHECK(cases >= 12);
    cJSON_Delete(idx);
}

static void test_generated(const ctxs *c)
{
    static const int sizes[][2] = {{33, 33}, {37, 41}, {481, 321}, {1921, 1081}};
    static const int bpcs[] = {8, 10, 12, 16};
    static const int chromas[] = {420, 444, 400, 422};
    int k = 0;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (size_t b = 0; b < sizeof(bpcs) / sizeof(bpcs[0]); b++, k++) {
            const int w = sizes[i][0], h = sizes[i][1];
            const int n = w > 1000 ? 6 : 40; /* small frames: several batches */
            frames f;
            make_stream(&f, w, h, bpcs[b], chromas[k % 4], n,
                        (uint64_t)w * 31u + (uint64_t)h * 7u + (uint64_t)bpcs[b]);
            fovea_vmaf_settings s;
            fovea_vmaf_default_settings(&s);
            char name[96];
            snprintf(name, sizeof name, "%dx%d %d-bit %d", w, h, bpcs[b], chromas[k % 4]);
            /* a new stream in the middle (motion restarts) */
            compare(c, name, &f, &s, n / 2 + (int)(k % 3));
            test_pair_frames_free(NULL, &f);
        }
}

static void test_modes(const ctxs *c)
{
    frames f;
    fovea_vmaf_settings s;
    /* VIF only: sizes below ADM's 33 */
    make_stream(&f, 17, 19, 8, 420, 9, 5);
    fovea_vmaf_default_settings(&s);
    s.features = "vif";
    compare(c, "17x19 8-bit VIF only", &f, &s, -1);
    test_pair_frames_free(NULL, &f);
    make_stream(&f, 481, 321, 10, 420, 12, 6);
    compare(c, "481x321 10-bit VIF only", &f, &s, 5);
    /* the model's features without the score, and with the flags */
    s.features = NULL;
    s.flags = FOVEA_VMAF_NO_PREDICTION;
    compare(c, "481x321 10-bit features only", &f, &s, -1);
    s.flags = FOVEA_VMAF_DISABLE_CLIP | FOVEA_VMAF_ENABLE_TRANSFORM;
    compare(c, "481x321 10-bit unclipped, transformed", &f, &s, -1);
    test_pair_frames_free(NULL, &f);
}

/* The built-in model with feature_opts_dicts (adm2, motion2, vif_scale0..3),
 * written to a temporary file. */
static char *model_with_opts(const char *adm_opts, const char *motion_opts, const char *vif_opts)
{
    cJSON *root = cJSON_ParseWithLength((const char *)vmaf_model_builtin_v0_6_1,
                                        vmaf_model_builtin_v0_6_1_size);
    REQUIRE(root);
    cJSON *md = cJSON_GetObjectItemCaseSensitive(root, "model_dict");
    REQUIRE(md);
    char text[1024];
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

static void test_options(const ctxs *c)
{
    static const struct {
        const char *adm, *motion, *vif;
    } sets[] = {
        {"\"adm_enhn_gain_limit\": 1.0", "\"motion_force_zero\": true",
         "\"vif_enhn_gain_limit\": 1.0"},
        {"\"adm_enhn_gain_limit\": 1.5, \"adm_ref_display_height\": 2160",
         "\"motion_fps_weight\": 2.0, \"motion_moving_average\": true", ""},
        {"\"adm_norm_view_dist\": 4.5", "", "\"vif_enhn_gain_limit\": 1.2"},
    };
    frames f;
    make_stream(&f, 97, 65, 8, 420, 14, 11);
    for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
        char *path = model_with_opts(sets[i].adm, sets[i].motion, sets[i].vif);
        fovea_vmaf_model *m = NULL;
        REQUIRE(fovea_vmaf_model_open_file(&m, c->cpu, path) == FOVEA_OK);
        fovea_vmaf_settings s;
        fovea_vmaf_default_settings(&s);
        s.model = m;
        char name[64];
        snprintf(name, sizeof name, "97x65 8-bit, model options %zu", i);
        compare(c, name, &f, &s, 6);
        fovea_vmaf_model_close(&m);
        free(path);
    }
    test_pair_frames_free(NULL, &f);
}

/* A reset with pairs pending (batches in flight), then another size on the
 * same context, a second CUDA context alongside, and the batch sizes. */
static void test_queue(const ctxs *c)
{
    frames a, b;
    make_stream(&a, 161, 97, 8, 420, 50, 21);
    make_stream(&b, 203, 45, 12, 444, 30, 22);
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    fovea_vmaf *vc = NULL, *vg = NULL;
    REQUIRE(fovea_vmaf_open(&vc, c->cpu, &s) == FOVEA_OK);
    REQUIRE(fovea_vmaf_open(&vg, c->gpu, &s) == FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_backend(vg), FOVEA_BACKEND_CUDA);
    CHECK(fovea_vmaf_batch_size(vg, 576, 324) > 8);
    CHECK_EQ_INT(fovea_vmaf_batch_size(vg, 3840, 2160), 1);
    /* 45 pairs pending, then reset: nothing is reported */
    for (int i = 0; i < 45; i++)
        REQUIRE(fovea_vmaf_submit(vg, &a.ref[i], &a.dis[i]) == FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_pending(vg), 45);
    fovea_vmaf_reset(vg);
    CHECK_EQ_INT(fovea_vmaf_pending(vg), 0);
    fovea_vmaf_scores sc;
    CHECK_EQ_INT(fovea_vmaf_receive(vg, &sc), FOVEA_AGAIN);
    /* then both streams, one after the other (flush between: another size) */
    const int count = fovea_vmaf_metric_count(vc);
    int bad = 0, total = 0;
    for (int pass = 0; pass < 2; pass++) {
        const frames *f = pass ? &b : &a;
        double *want = malloc((size_t)f->n * FOVEA_VMAF_MAX_METRICS * sizeof(double));
        double *got = malloc((size_t)f->n * FOVEA_VMAF_MAX_METRICS * sizeof(double));
        REQUIRE(want && got);
        for (int i = 0; i < f->n; i++) {
            REQUIRE(fovea_vmaf_submit(vc, &f->ref[i], &f->dis[i]) == FOVEA_OK);
            REQUIRE(fovea_vmaf_submit(vg, &f->ref[i], &f->dis[i]) == FOVEA_OK);
        }
        REQUIRE(fovea_vmaf_flush(vc) == FOVEA_OK);
        REQUIRE(fovea_vmaf_flush(vg) == FOVEA_OK);
        for (int i = 0; i < f->n; i++) {
            REQUIRE(fovea_vmaf_receive(vc, &sc) == FOVEA_OK);
            memcpy(&VAL(want, i, 0), sc.value, sizeof(sc.value));
            int st = fovea_vmaf_receive(vg, &sc);
            if (st != FOVEA_OK)
                fprintf(stderr, "receive: %s\n", fovea_last_error(c->gpu));
            REQUIRE(st == FOVEA_OK);
            memcpy(&VAL(got, i, 0), sc.value, sizeof(sc.value));
        }
        for (int i = 0; i < f->n; i++)
            for (int m = 0; m < count; m++, total++)
                if (memcmp(&VAL(want, i, m), &VAL(got, i, m), sizeof(double)) != 0 && bad++ < 4)
                    fprintf(stderr, "  queue pass %d frame %d metric %d: %.17g vs %.17g\n", pass, i,
                            m, VAL(want, i, m), VAL(got, i, m));
        free(want);
        free(got);
    }
    fovea_vmaf_pooled_scores pc, pg;
    CHECK_EQ_INT(fovea_vmaf_pooled(vc, &pc), FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_pooled(vg, &pg), FOVEA_OK);
    CHECK(pc.frames == a.n + b.n && pg.frames == pc.frames);
    CHECK(memcmp(pc.metric, pg.metric, sizeof(pc.metric[0]) * (size_t)pc.count) == 0);
    CHECK_EQ_INT(bad, 0);
    printf("  queue: reset with 45 pending, two sizes on one context: %d/%d values identical\n",
           total - bad, total);
    /* close with pairs in flight */
    for (int i = 0; i < 20; i++)
        REQUIRE(fovea_vmaf_submit(vg, &a.ref[i], &a.dis[i]) == FOVEA_OK);
    fovea_vmaf_close(&vg);
    fovea_vmaf_close(&vc);
    test_pair_frames_free(NULL, &a);
    test_pair_frames_free(NULL, &b);
}

int main(void)
{
    if (!test_have_gpu()) {
        printf("no CUDA device: skipped\n");
        return TEST_SKIP;
    }
    ctxs c;
    c.cpu = test_open_ctx(FOVEA_BACKEND_CPU, 0, NULL);
    c.gpu = test_open_ctx(FOVEA_BACKEND_CUDA, 0, NULL);
    test_golden(&c);
    test_generated(&c);
    test_modes(&c);
    test_options(&c);
    test_queue(&c);
    fovea_close(&c.cpu);
    fovea_close(&c.gpu);
    return test_finish("test_gpu_vmaf");
}

#else

int main(void)
{
    printf("built without CUDA: skipped\n");
    return TEST_SKIP;
}

#endif
