/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractor of cambi against its C extractor through the public VMAF
 * API: every value of every frame and every pooled value the same double, bit
 * for bit (memcmp; result buffers poisoned first), on generated banded
 * streams (quantized smooth ramps moving from frame to frame, flat, noisy and
 * striped blocks; never all zero) of odd sizes at 8, 10, 12 and 16 bits, with
 * libvmaf's options varied (encode scaling and bit depth, the high-res
 * speed-up, full_ref with a source size, window, top-k, TVI, contrast levels,
 * PQ, visibility threshold); host and device frames; a stream longer than
 * the read-back ring; the count of top-k means the device gave (the rest
 * pooled on the host). The C refusals on CUDA too. Prints the time per frame
 * of a 1920x1080 10-bit stream with the v1 models' options on both backends.
 * FOVEA_TEST_SANITIZER set: the 4K case and the timing left out. Exits 77
 * (skipped) without a CUDA device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fovea/fovea.h"
#include "fovea/quality.h"
#include "testutil.h"

#ifdef FOVEA_HAVE_CUDA

#define VAL(buf, i, m) ((buf)[(size_t)(i)*FOVEA_VMAF_MAX_METRICS + (m)])

/* the CUDA extractor's count of top-k means (debug log at close): on the
 * device, and pooled on the host from the read-back map */
static long long pools_total, pools_host;
/* under compute-sanitizer (gpu-check.sh): no picture above 2.5 M pixels, no
 * timing */
static int sanitizer;

static void on_log(void *opaque, fovea_log_level level, const char *msg)
{
    (void)opaque;
    (void)level;
    long long host, all;
    if (sscanf(msg, "cambi: %lld of %lld top-k means pooled on the host", &host, &all) == 2) {
        pools_host += host;
        pools_total += all;
    }
}

typedef test_pair_frames frames;

static void put(fovea_frame *f, int bpc, int x, int y, int v)
{
    const int maxv = (1 << bpc) - 1;
    v = v < 1 ? 1 : v > maxv ? maxv : v;
    test_sample_set(f, 0, bpc, x, y, v);
}

/* One banded luma plane: a ramp of span 10-bit levels from lo (moving with
 * t), quantized (finer bits as sparse dither above 10 bits), a flat block, a
 * noisy block and stripes; coarse (dis) quantizes the ramp twice as coarsely. */
static void banded(fovea_frame *f, int bpc, test_rng *r, int t, int coarse)
{
    const int w = f->width, h = f->height, maxv = (1 << bpc) - 1;
    const double lo = 80 + test_rng_below(r, 300), span = 12 + test_rng_below(r, 60);
    const double ph = 0.3 * t + test_rng_double(r);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const double g = 0.7 * x / w + 0.3 * y / h + 0.04 * sin(x * 0.013 + ph);
            int v10 = (int)(lo + span * g);
            if (coarse)
                v10 &= ~1;
            if (x > w / 2 && x < w / 2 + w / 8 && y > h / 4 && y < h / 2)
                v10 = (int)lo;
            int v = bpc >= 10
                        ? (v10 << (bpc - 10)) + (test_rng_below(r, 16) == 0
                                                     ? (int)test_rng_below(r, 1u << (bpc - 10))
                                                     : 0)
                        : v10 >> 2;
            if (y > h * 3 / 4 && x < w / 5)
                v = (int)test_rng_below(r, (uint32_t)maxv + 1);
            if (y < h / 8 && x > w * 4 / 5)
                v = (x / 3) % 2 ? maxv / 2 : maxv / 3;
            put(f, bpc, x, y, v);
        }
}

static void make_stream(frames *f, int w, int h, int bpc, int n, uint64_t seed)
{
    test_rng r;
    test_rng_seed(&r, seed);
    memset(f, 0, sizeof(*f));
    f->n = n;
    f->ref = calloc((size_t)n, sizeof(fovea_frame));
    f->dis = calloc((size_t)n, sizeof(fovea_frame));
    REQUIRE(f->ref && f->dis);
    const fovea_pixfmt fmt = fovea_pixfmt_yuv(420, bpc);
    REQUIRE(fmt != FOVEA_PIX_NONE);
    for (int t = 0; t < n; t++) {
        REQUIRE(fovea_frame_alloc(NULL, &f->ref[t], w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
        REQUIRE(fovea_frame_alloc(NULL, &f->dis[t], w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
        test_fill_random(&f->ref[t], &r); /* chroma */
        test_fill_random(&f->dis[t], &r);
        banded(&f->ref[t], bpc, &r, t, 0);
        banded(&f->dis[t], bpc, &r, t, 1);
    }
}

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
    double seconds;
} run;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void score(fovea_context *ctx, const char *features, const frames *f, run *out)
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
    out->count = fovea_vmaf_metric_count(v);
    out->received = 0;
    out->val = malloc((size_t)f->n * FOVEA_VMAF_MAX_METRICS * sizeof(double));
    REQUIRE(out->val);
    memset(out->val, 0xff, (size_t)f->n * FOVEA_VMAF_MAX_METRICS * sizeof(double));
    const double t0 = now();
    for (int i = 0; i < f->n; i++) {
        st = fovea_vmaf_submit(v, &f->ref[i], &f->dis[i]);
        if (st != FOVEA_OK)
            fprintf(stderr, "submit %d: %s\n", i, fovea_last_error(ctx));
        REQUIRE(st == FOVEA_OK);
    }
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
    fovea_vmaf_scores sc;
    while ((st = fovea_vmaf_receive(v, &sc)) == FOVEA_OK && out->received < f->n) {
        memcpy(&VAL(out->val, out->received, 0), sc.value, sizeof(sc.value));
        out->received++;
    }
    out->seconds = now() - t0;
    if (st != FOVEA_AGAIN)
        fprintf(stderr, "receive: %s\n", fovea_last_error(ctx));
    CHECK_EQ_INT(st, FOVEA_AGAIN);
    memset(&out->pooled, 0xff, sizeof(out->pooled));
    CHECK_EQ_INT(fovea_vmaf_pooled(v, &out->pooled), FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_backend(v), fovea_context_backend(ctx));
    fovea_vmaf_close(&v);
}

typedef struct ctxs {
    fovea_context *cpu, *gpu;
} ctxs;

static int compared_values;

static void compare(const ctxs *c, const char *name, const char *features, const frames *f)
{
    run want, got;
    score(c->cpu, features, f, &want);
    CHECK_EQ_INT(want.received, f->n);
    int nonzero = 0;
    for (int i = 0; i < want.received; i++)
        nonzero += VAL(want.val, i, 0) > 0.0;
    CHECK(nonzero > 0); /* banded content: CAMBI sees bands */
    frames dev;
    device_copy(c->gpu, f, &dev);
    for (int k = 0; k < 2; k++) {
        score(c->gpu, features, k ? &dev : f, &got);
        int bad = 0;
        CHECK_EQ_INT(got.received, f->n);
        CHECK_EQ_INT(got.count, want.count);
        for (int i = 0; i < f->n && i < got.received; i++)
            for (int m = 0; m < want.count; m++, compared_values++)
                if (memcmp(&VAL(want.val, i, m), &VAL(got.val, i, m), sizeof(double)) != 0 &&
                    bad++ < 4)
                    fprintf(stderr, "  %s: frame %d metric %d: C %.17g, CUDA %.17g\n", name, i, m,
                            VAL(want.val, i, m), VAL(got.val, i, m));
        if (want.pooled.count != got.pooled.count ||
            memcmp(want.pooled.metric, got.pooled.metric,
                   sizeof(want.pooled.metric[0]) * (size_t)want.pooled.count) != 0) {
            bad++;
            fprintf(stderr, "  %s: pooled values differ\n", name);
        }
        CHECK_EQ_INT(bad, 0);
        printf("  %-58s %-6s %3d frames x %d metrics (%d > 0): %s  C %.1f ms/frame, CUDA %.1f\n",
               name, k ? "device" : "host", f->n, want.count, nonzero,
               bad ? "MISMATCH" : "identical", 1e3 * want.seconds / f->n, 1e3 * got.seconds / f->n);
        free(got.val);
    }
    test_pair_frames_free(c->gpu, &dev);
    free(want.val);
}

static void test_generated(const ctxs *c)
{
    static const struct {
        int w, h, bpc, n;
        const char *features;
    } cases[] = {
        {251, 237, 8, 9, "cambi"},
        {333, 219, 10, 9, "cambi"},
        {217, 301, 12, 7, "cambi"},
        {401, 229, 16, 7, "cambi"},
        /* longer than the read-back ring (4 batches of 32 at this size) */
        {219, 217, 10, 161, "cambi:cambi_vis_lum_threshold=0.06"},
        {333, 251, 10, 7, "cambi:enc_width=241:enc_height=221:enc_bitdepth=8"},
        {301, 223, 12, 7,
         "cambi:full_ref=true:src_width=451:src_height=335:enc_width=257:enc_height=219"},
        {287, 233, 16, 7,
         "cambi:window_size=33:topk=0.3:tvi_threshold=0.01:max_log_contrast=3:eotf=pq"},
        {263, 241, 8, 7,
         "cambi:cambi_topk=0.9:cambi_eotf=pq:max_log_contrast=5:window_size=63:"
         "cambi_vis_lum_threshold=0.06"},
        {271, 219, 10, 7, "cambi:max_log_contrast=0:window_size=127:topk=0.0001"},
        {641, 363, 12, 5, "cambi:full_ref=true,cambi:cambi_max_val=2"},
        {1921, 1081, 8, 5, "cambi:cambi_high_res_speedup=1080:full_ref=true"},
        {1920, 1080, 16, 5, "cambi:cambi_high_res_speedup=1080:enc_bitdepth=8"},
        /* 4K, every value summed, larger contrast weights: sums near 2^53 units
           of their finest bit, where the host pooling may take over */
        {3841, 2161, 10, 2, "cambi:topk=1:max_log_contrast=3"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (sanitizer && (double)cases[i].w * cases[i].h > 2.5e6)
            continue;
        frames f;
        make_stream(&f, cases[i].w, cases[i].h, cases[i].bpc, cases[i].n, 101 + i);
        char name[160];
        snprintf(name, sizeof name, "%dx%d %d-bit %s", cases[i].w, cases[i].h, cases[i].bpc,
                 cases[i].features);
        compare(c, name, cases[i].features, &f);
        test_pair_frames_free(NULL, &f);
    }
}

/* The v1 models' CAMBI at 1920x1080 10 bits: identical, with the time per
 * frame of both backends (whole API calls, host frames then device frames). */
static void test_v1_timing(const ctxs *c)
{
    frames f;
    make_stream(&f, 1920, 1080, 10, 24, 7);
    compare(c, "1920x1080 10-bit v1 options (timing)",
            "cambi:cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17", &f);
    compare(c, "1920x1080 10-bit defaults (timing)", "cambi", &f);
    test_pair_frames_free(NULL, &f);
}

/* The refusals of the C extractor, on CUDA too (same status). */
static void test_refusals(const ctxs *c)
{
    static const struct {
        int w, h;
        const char *features;
    } bad[] = {
        {200, 200, "cambi"},
        {320, 240, "cambi:enc_width=200:enc_height=180"},
        {320, 240, "cambi:full_ref=true:src_width=400:src_height=200"},
        {4001, 21, "cambi"}, /* scales narrower than the window */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        frames f;
        make_stream(&f, bad[i].w, bad[i].h, 8, 1, 9);
        int st[2];
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
            printf("  refusal %s %dx%d on %s: %d %s\n", bad[i].features, bad[i].w, bad[i].h,
                   k ? "CUDA" : "C", st[k], fovea_last_error(ctx));
        }
        CHECK(st[0] < 0);
        CHECK_EQ_INT(st[1], st[0]);
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
    c.cpu = test_open_ctx(FOVEA_BACKEND_CPU, 0,
                          (FOVEA_BACKEND_CPU) == FOVEA_BACKEND_CUDA ? on_log : NULL);
    c.gpu = test_open_ctx(FOVEA_BACKEND_CUDA, 0,
                          (FOVEA_BACKEND_CUDA) == FOVEA_BACKEND_CUDA ? on_log : NULL);
    sanitizer = getenv("FOVEA_TEST_SANITIZER") != NULL;
    test_generated(&c);
    test_refusals(&c);
    if (!sanitizer)
        test_v1_timing(&c);
    printf("%d values compared; CUDA top-k means: %lld, %lld of them pooled on the host\n",
           compared_values, pools_total, pools_host);
    CHECK(compared_values > 300);
    CHECK(pools_total > pools_host); /* the device path ran */
    if (!sanitizer)
        CHECK(pools_host > 0); /* and the host pooling (scale 0 of the 4K case) */
    fovea_close(&c.cpu);
    fovea_close(&c.gpu);
    return test_finish("test_gpu_cambi");
}

#else

int main(void)
{
    printf("built without CUDA: skipped\n");
    return TEST_SKIP;
}

#endif
