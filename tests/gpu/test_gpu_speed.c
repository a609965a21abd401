/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractor of speed_chroma against its C extractor through the
 * public VMAF API: every metric of every frame and every pooled value the
 * same double, bit for bit (memcmp, results poisoned with NaN before), on
 * generated streams with textured chroma (smooth patterns with noise; the
 * distorted planes noisy, blurred, contrast changed; flat planes on one or
 * both sides, which makes the covariance singular) of odd sizes at 8, 10, 12
 * and 16 bits, 4:2:0, 4:2:2 and 4:4:4, with every option class (prescale
 * methods, kernel scales, variance weighting modes, nn floor, sigma, max
 * value), host and device frames, more batches than the driver has slots; and
 * the C extractor's refusals, status and message, on CUDA. Exits 77
 * (skipped) without a CUDA device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/quality.h"
#include "testutil.h"

#ifdef FOVEA_HAVE_CUDA

#define VAL(buf, i, m) ((buf)[(size_t)(i)*FOVEA_VMAF_MAX_METRICS + (m)])

typedef test_pair_frames frames;

static void put(fovea_frame *f, int p, int bpc, int x, int y, int v)
{
    const int maxv = (1 << bpc) - 1;
    v = v < 0 ? 0 : v > maxv ? maxv : v;
    test_sample_set(f, p, bpc, x, y, v);
}

static int get(const fovea_frame *f, int p, int bpc, int x, int y)
{
    return test_sample_get(f, p, bpc, x, y);
}

/* A seeded stream. Chroma plane p of frame t: a smooth pattern with noise in
 * the reference; the distorted plane of kind (t + p) % 6: 0 noisy, 1 blurred,
 * 2 contrast changed, 3 full-range noise, 4 flat (the reference textured), 5
 * both flat. Luma random. Never all zero. */
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
        test_fill_random(fr, &r);
        test_fill_random(fd, &r);
        for (int p = 1; p < 3 && chroma != 400; p++) {
            const int pw = fovea_plane_width(fmt, w, p), ph = fovea_plane_height(fmt, h, p);
            const int kind = (t + p) % 6;
            const double phase = test_rng_double(&r) * 6.0, fx = 0.03 + 0.2 * test_rng_double(&r);
            for (int y = 0; y < ph; y++)
                for (int x = 0; x < pw; x++) {
                    int v = (int)((0.5 + 0.3 * sin(x * fx + phase) * cos(y * 0.05 - phase) +
                                   0.1 * sin(x * 0.5 + y * 0.3)) *
                                  maxv) +
                            (int)test_rng_below(&r, (uint32_t)(maxv / 16 + 1)) - maxv / 32;
                    if (kind == 5)
                        v = maxv / 3;
                    put(fr, p, bpc, x, y, v);
                }
            for (int y = 0; y < ph; y++)
                for (int x = 0; x < pw; x++) {
                    const int v = get(fr, p, bpc, x, y);
                    int d;
                    switch (kind) {
                    case 0:
                        d = v + (int)test_rng_below(&r, (uint32_t)(maxv / 8 + 1)) - maxv / 16;
                        break;
                    case 1: {
                        int s = 0;
                        for (int dy = -1; dy <= 1; dy++)
                            for (int dx = -1; dx <= 1; dx++) {
                                const int yy = y + dy < 0 ? 0 : y + dy >= ph ? ph - 1 : y + dy;
                                const int xx = x + dx < 0 ? 0 : x + dx >= pw ? pw - 1 : x + dx;
                                s += get(fr, p, bpc, xx, yy);
                            }
                        d = s / 9;
                        break;
                    }
                    case 2: d = v + (v - maxv / 2) / 2; break;
                    case 3: d = 1 + (int)test_rng_below(&r, (uint32_t)maxv); break;
                    default: d = maxv / 3 + 1; break; /* flat */
                    }
                    put(fd, p, bpc, x, y, d);
                }
        }
    }
}

/* Copies of a stream's frames in device memory of ctx. */
static void device_copy(fovea_context *ctx, const frames *src, frames *dst)
{
    dst->n = src->n;
    dst->ref = calloc((size_t)src->n, sizeof(fovea_frame));
    dst->dis = calloc((size_t)src->n, sizeof(fovea_frame));
    REQUIRE(dst->ref && dst->dis);
    for (int i = 0; i < src->n; i++) {
        const fovea_frame *a = &src->ref[i], *b = &src->dis[i];
        REQUIRE(fovea_frame_alloc(ctx, &dst->ref[i], a->width, a->height, a->fmt,
                                  FOVEA_MEM_DEVICE) == FOVEA_OK);
        REQUIRE(fovea_frame_alloc(ctx, &dst->dis[i], b->width, b->height, b->fmt,
                                  FOVEA_MEM_DEVICE) == FOVEA_OK);
        CHECK_EQ_INT(fovea_frame_copy(ctx, &dst->ref[i], a), FOVEA_OK);
        CHECK_EQ_INT(fovea_frame_copy(ctx, &dst->dis[i], b), FOVEA_OK);
    }
    CHECK_EQ_INT(fovea_sync(ctx), FOVEA_OK);
}

typedef struct run {
    int count, received;
    double *val; /* n x FOVEA_VMAF_MAX_METRICS */
    fovea_vmaf_pooled_scores pooled;
} run;

/* Every pair of f scored with features on ctx (all submitted, then a flush),
 * on the backend want. */
static void score(fovea_context *ctx, fovea_backend want, const char *features, const frames *f,
                  run *out)
{
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    s.features = features;
    s.flags = FOVEA_VMAF_NO_PREDICTION;
    fovea_vmaf *v = NULL;
    int st = fovea_vmaf_open(&v, ctx, &s);
    if (st != FOVEA_OK)
        fprintf(stderr, "fovea_vmaf_open(%s): %s\n", features, fovea_last_error(ctx));
    REQUIRE(st == FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_backend(v), want);
    out->count = fovea_vmaf_metric_count(v);
    out->received = 0;
    out->val = malloc((size_t)f->n * FOVEA_VMAF_MAX_METRICS * sizeof(double));
    REQUIRE(out->val);
    memset(out->val, 0xff, (size_t)f->n * FOVEA_VMAF_MAX_METRICS * sizeof(double));
    for (int i = 0; i < f->n; i++) {
        st = fovea_vmaf_submit(v, &f->ref[i], &f->dis[i]);
        if (st != FOVEA_OK)
            fprintf(stderr, "submit %d: %s\n", i, fovea_last_error(ctx));
        REQUIRE(st == FOVEA_OK);
    }
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
    fovea_vmaf_scores sc;
    memset(&sc, 0xff, sizeof(sc));
    while ((st = fovea_vmaf_receive(v, &sc)) == FOVEA_OK && out->received < f->n) {
        memcpy(&VAL(out->val, out->received, 0), sc.value, sizeof(sc.value));
        out->received++;
        memset(&sc, 0xff, sizeof(sc));
    }
    if (st != FOVEA_AGAIN)
        fprintf(stderr, "receive: %s\n", fovea_last_error(ctx));
    CHECK_EQ_INT(st, FOVEA_AGAIN);
    memset(&out->pooled, 0xff, sizeof(out->pooled));
    CHECK_EQ_INT(fovea_vmaf_pooled(v, &out->pooled), FOVEA_OK);
    fovea_vmaf_close(&v);
}

typedef struct ctxs {
    fovea_context *cpu, *gpu;
} ctxs;

static int compared_values, nonzero_values;

/* f scored on the CPU and on CUDA (host frames, then device frames): every
 * value identical. */
static void compare(const ctxs *c, const char *name, const char *features, const frames *f)
{
    run want, got;
    score(c->cpu, FOVEA_BACKEND_CPU, features, f, &want);
    CHECK_EQ_INT(want.received, f->n);
    frames dev;
    device_copy(c->gpu, f, &dev);
    for (int k = 0; k < 2; k++) {
        score(c->gpu, FOVEA_BACKEND_CUDA, features, k ? &dev : f, &got);
        int bad = 0;
        CHECK_EQ_INT(got.received, f->n);
        CHECK_EQ_INT(got.count, want.count);
        for (int i = 0; i < f->n && i < got.received; i++)
            for (int m = 0; m < want.count; m++, compared_values++) {
                nonzero_values += VAL(want.val, i, m) != 0.0;
                if (memcmp(&VAL(want.val, i, m), &VAL(got.val, i, m), sizeof(double)) != 0 &&
                    bad++ < 4)
                    fprintf(stderr, "  %s: frame %d metric %d: C %.17g, CUDA %.17g\n", name, i, m,
                            VAL(want.val, i, m), VAL(got.val, i, m));
            }
        if (want.pooled.count != got.pooled.count ||
            memcmp(want.pooled.metric, got.pooled.metric,
                   sizeof(want.pooled.metric[0]) * (size_t)want.pooled.count) != 0) {
            bad++;
            fprintf(stderr, "  %s: pooled values differ\n", name);
        }
        CHECK_EQ_INT(bad, 0);
        printf("  %-44s %-6s %3d frames x %2d metrics: %s\n", name, k ? "device" : "host", f->n,
               want.count, bad ? "MISMATCH" : "identical");
        free(got.val);
    }
    test_pair_frames_free(c->gpu, &dev);
    free(want.val);
}

/* the v1 models' options, and every option class of the golden sets */
#define V1                                                                                         \
    "speed_chroma:speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45"
#define V1_BILINEAR(ps) V1 ":speed_prescale=" ps ":speed_prescale_method=bilinear"
static const char *const option_sets[] = {
    "speed_chroma," V1,
    "speed_chroma:speed_kernelscale=0.5:speed_weight_var_mode=1,"
    "speed_chroma:speed_kernelscale=2:speed_weight_var_mode=2:speed_sigma_nn=1.5,"
    "speed_chroma:speed_weight_var_mode=3:speed_kernelscale=1.5",
    "speed_chroma:speed_prescale=1.5:speed_prescale_method=bicubic:speed_weight_var_mode=4,"
    "speed_chroma:speed_prescale=0.8:speed_prescale_method=lanczos4:speed_nn_floor=1,"
    "speed_chroma:speed_prescale=0.9:speed_weight_var_mode=6",
    "speed_chroma:speed_prescale=1.3:speed_prescale_method=bilinear:speed_kernelscale=2.4,"
    "speed_chroma:speed_prescale=2:speed_prescale_method=nearest:speed_kernelscale=3:"
    "speed_max_val=2.5," V1_BILINEAR("0.7"),
};

static void test_generated(const ctxs *c)
{
    static const struct {
        int w, h, bpc, chroma;
    } cases[] = {
        {331, 257, 8, 420},  {211, 173, 10, 422}, {181, 163, 12, 444}, {347, 233, 16, 420},
        {189, 175, 8, 444},  {405, 297, 10, 420}, {223, 187, 16, 422}, {171, 169, 12, 444},
        {199, 181, 16, 444}, {241, 171, 8, 422},  {353, 339, 12, 422}, {177, 191, 10, 444},
    };
    const int nsets = (int)(sizeof option_sets / sizeof option_sets[0]);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        frames f;
        const int w = cases[i].w, h = cases[i].h;
        make_stream(&f, w, h, cases[i].bpc, cases[i].chroma, 13, (uint64_t)w * 31u + (uint64_t)h);
        const char *features = option_sets[i % (size_t)nsets];
        char name[96];
        snprintf(name, sizeof name, "%dx%d %d-bit %d, options %d", w, h, cases[i].bpc,
                 cases[i].chroma, (int)(i % (size_t)nsets));
        compare(c, name, features, &f);
        test_pair_frames_free(NULL, &f);
    }
    /* many batches of small frames (32 pairs a batch) */
    frames f;
    make_stream(&f, 179, 167, 10, 444, 75, 77);
    compare(c, "179x167 10-bit 444, 75 frames", "speed_chroma," V1, &f);
    test_pair_frames_free(NULL, &f);
    /* 1080p: four pairs a batch, more batches than the driver's slots and
     * the extractor's ring entries */
    make_stream(&f, 1921, 1081, 10, 420, 37, 78);
    compare(c, "1921x1081 10-bit 420, 37 frames", V1 "," V1_BILINEAR("0.5"), &f);
    test_pair_frames_free(NULL, &f);
}

/* The refusals of the C extractor (status and message), on CUDA too. */
static void test_refusals(const ctxs *c)
{
    static const struct {
        int w, h, bpc, chroma;
        const char *features;
    } bad[] = {
        {159, 200, 8, 420, "speed_chroma"}, /* 79-wide chroma planes */
        {200, 200, 8, 400, "speed_chroma"}, /* gray */
        {200, 200, 10, 444, "speed_chroma:speed_prescale=0.35"},
        {1201, 1201, 8, 420, "speed_chroma:speed_prescale=1.0009"}, /* 600 -> 601 */
        {200, 200, 8, 444, "speed_chroma:speed_kernelscale=0.9"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        frames f;
        make_stream(&f, bad[i].w, bad[i].h, bad[i].bpc, bad[i].chroma, 1, 9);
        int st[2];
        char msg[2][512];
        for (int k = 0; k < 2; k++) {
            fovea_context *ctx = k ? c->gpu : c->cpu;
            fovea_vmaf_settings s;
            fovea_vmaf_default_settings(&s);
            s.features = bad[i].features;
            s.flags = FOVEA_VMAF_NO_PREDICTION;
            fovea_vmaf *v = NULL;
            st[k] = fovea_vmaf_open(&v, ctx, &s);
            if (st[k] == FOVEA_OK) {
                st[k] = fovea_vmaf_submit(v, &f.ref[0], &f.dis[0]);
                if (st[k] == FOVEA_OK)
                    st[k] = fovea_vmaf_flush(v);
                fovea_vmaf_scores sc;
                if (st[k] == FOVEA_OK)
                    st[k] = fovea_vmaf_receive(v, &sc);
                fovea_vmaf_close(&v);
            }
            snprintf(msg[k], sizeof msg[k], "%s", fovea_last_error(ctx));
        }
        printf("  refused %dx%d %d %s: %s\n", bad[i].w, bad[i].h, bad[i].chroma, bad[i].features,
               msg[0]);
        CHECK(st[0] < 0);
        CHECK_EQ_INT(st[1], st[0]);
        /* the same reason, naming the feature (a backend may prefix it) */
        const char *why[2] = {strstr(msg[0], "speed_chroma"), strstr(msg[1], "speed_chroma")};
        CHECK(why[0] != NULL && why[1] != NULL);
        if (why[0] && why[1] && strcmp(why[0], why[1]) != 0)
            fprintf(stderr, "  C: %s\n  CUDA: %s\n", msg[0], msg[1]);
        CHECK(why[0] && why[1] && strcmp(why[0], why[1]) == 0);
        test_pair_frames_free(NULL, &f);
    }
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
    test_generated(&c);
    test_refusals(&c);
    printf("%d values compared, %d nonzero\n", compared_values, nonzero_values);
    CHECK(compared_values > 1000);
    /* many SpEED values are 0 by design (flat blocks weigh nothing; the H200
     * run had 1676 of 3918 nonzero): a third rules out a scorer that returns
     * zeros everywhere */
    CHECK(nonzero_values > compared_values / 3);
    fovea_close(&c.cpu);
    fovea_close(&c.gpu);
    return test_finish("test_gpu_speed");
}

#else

int main(void)
{
    printf("built without CUDA: skipped\n");
    return TEST_SKIP;
}

#endif
