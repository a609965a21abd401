/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractors of psnr, psnr_hvs, float_ssim and float_ms_ssim against
 * their C extractors through the public VMAF API: every metric of every frame
 * and every pooled value the same double, bit for bit (memcmp), and psnr's
 * apsnr aggregates, on generated streams (smooth content with noise, blur,
 * contrast changes, full-range noise, flat and saturated frames; random
 * chroma) of odd sizes at 8, 10, 12 and 16 bits, 4:2:0, 4:2:2, 4:4:4 and
 * gray, with non-default options, in batches of many pairs; host and device
 * frames. Prints the device time of each launcher at 1920x1080. Exits 77
 * (skipped) without a CUDA device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/quality.h"
#include "testutil.h"

#ifdef FOVEA_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "gpu/gpu_require.h"

#include "quality/psnr_cuda.h"
#include "quality/psnr_hvs.h"
#include "quality/psnr_hvs_cuda.h"
#include "quality/ssim_cuda.h"
#include "quality/ssim_feature.h"
#include "quality/ssim_iqa.h"

#define VAL(buf, i, m) ((buf)[(size_t)(i)*FOVEA_VMAF_MAX_METRICS + (m)])


typedef test_pair_frames frames;

static void put(fovea_frame *f, int bpc, int x, int y, int v)
{
    const int maxv = (1 << bpc) - 1;
    v = v < 0 ? 0 : v > maxv ? maxv : v;
    test_sample_set(f, 0, bpc, x, y, v);
}

static int get(const fovea_frame *f, int bpc, int x, int y)
{
    return test_sample_get(f, 0, bpc, x, y);
}

/* A seeded stream: random chroma; luma frame t of kind t % 7: 0..2 smooth
 * texture with noise, the distorted picture noisy / blurred / contrast
 * changed; 3 full-range noise both; 4 flat reference, noisy distorted; 5
 * both flat and equal; 6 saturated distorted (0 or max). */
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
        const int kind = t % 7;
        const double ph = test_rng_double(&r) * 6.0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int v;
                if (kind == 3 || kind == 6)
                    v = (int)test_rng_below(&r, (uint32_t)maxv + 1);
                else if (kind == 4 || kind == 5)
                    v = maxv / 3;
                else
                    v = (int)((0.5 + 0.3 * sin(x * 0.07 + ph) * cos(y * 0.05 - ph) +
                               0.1 * sin(x * 0.5 + y * 0.3)) *
                              maxv) +
                        (int)test_rng_below(&r, (uint32_t)(maxv / 16 + 1)) - maxv / 32;
                put(fr, bpc, x, y, v);
            }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int v = get(fr, bpc, x, y);
                int d;
                switch (kind) {
                case 0:
                case 4:
                    d = v + (int)test_rng_below(&r, (uint32_t)(maxv / 8 + 1)) - maxv / 16;
                    break;
                case 1: {
                    int s = 0;
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            const int yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
                            const int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
                            s += get(fr, bpc, xx, yy);
                        }
                    d = s / 9;
                    break;
                }
                case 2: d = v + (v - maxv / 2) / 2; break;
                case 3: d = (int)test_rng_below(&r, (uint32_t)maxv + 1); break;
                case 5: d = v; break;
                default: d = test_rng_below(&r, 2) ? maxv : 0; break;
                }
                put(fd, bpc, x, y, d);
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
    fovea_vmaf_aggregates agg;
} run;

/* Every pair of f scored with features on ctx (all pairs submitted, then a
 * flush: full batches). */
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
    if (st != FOVEA_AGAIN)
        fprintf(stderr, "receive: %s\n", fovea_last_error(ctx));
    CHECK_EQ_INT(st, FOVEA_AGAIN);
    memset(&out->pooled, 0, sizeof(out->pooled));
    memset(&out->agg, 0, sizeof(out->agg));
    CHECK_EQ_INT(fovea_vmaf_pooled(v, &out->pooled), FOVEA_OK);
    CHECK_EQ_INT(fovea_vmaf_aggregate(v, &out->agg), FOVEA_OK);
    fovea_vmaf_close(&v);
}

typedef struct ctxs {
    fovea_context *cpu, *gpu;
} ctxs;

static int compared_values;

/* f scored on the CPU and on CUDA (host frames, then device frames): every
 * value identical. */
static void compare(const ctxs *c, const char *name, const char *features, const frames *f)
{
    run want, got;
    score(c->cpu, features, f, &want);
    CHECK_EQ_INT(want.received, f->n);
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
        if (want.agg.count != got.agg.count ||
            memcmp(want.agg.value, got.agg.value, sizeof(double) * (size_t)want.agg.count) != 0) {
            bad++;
            fprintf(stderr, "  %s: aggregates differ\n", name);
        }
        CHECK_EQ_INT(bad, 0);
        printf("  %-40s %-6s %3d frames x %2d metrics: %s\n", name, k ? "device" : "host", f->n,
               want.count, bad ? "MISMATCH" : "identical");
        free(got.val);
    }
    test_pair_frames_free(c->gpu, &dev);
    free(want.val);
}

static void test_generated(const ctxs *c)
{
    static const struct {
        int w, h;
    } sizes[] = {{177, 181}, {203, 191}, {33, 29}, {9, 13}, {1921, 1081}};
    static const int bpcs[] = {8, 10, 12, 16};
    static const int chromas[] = {420, 422, 444};
    int k = 0;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (size_t b = 0; b < sizeof(bpcs) / sizeof(bpcs[0]); b++, k++) {
            const int w = sizes[i].w, h = sizes[i].h, bpc = bpcs[b], ch = chromas[k % 3];
            if (w > 1000 && b % 2)
                continue;                    /* the large size at 8 and 12 bits only */
            const int n = w > 1000 ? 6 : 37; /* small frames: several batches */
            frames f;
            make_stream(&f, w, h, bpc, ch, n, (uint64_t)w * 31u + (uint64_t)h * 7u + (uint64_t)bpc);
            /* psnr_hvs takes at most 12 bits; float_ms_ssim needs 176x176 */
            char features[256];
            snprintf(features, sizeof features, "psnr:enable_mse=true:enable_apsnr=true%s%s",
                     bpc <= 12 ? ",psnr_hvs" : "",
                     w >= 176 && h >= 176
                         ? ",float_ssim:enable_lcs=true,float_ms_ssim:enable_lcs=true"
                         : ",float_ssim:enable_lcs=true");
            char name[96];
            snprintf(name, sizeof name, "%dx%d %d-bit %d", w, h, bpc, ch);
            compare(c, name, features, &f);
            test_pair_frames_free(NULL, &f);
        }
}

static void test_options(const ctxs *c)
{
    frames f;
    /* float_ssim's scales (auto at 515 wide is 2), db outputs, psnr's options */
    make_stream(&f, 515, 301, 10, 444, 9, 3);
    compare(c, "515x301 10-bit scale 3", "float_ssim:scale=3:enable_lcs=true", &f);
    compare(c, "515x301 10-bit scale 1", "float_ssim:scale=1:enable_db=true", &f);
    compare(c, "515x301 10-bit db",
            "float_ssim:enable_db=true:clip_db=true,float_ms_ssim:enable_db=true", &f);
    compare(c, "515x301 10-bit psnr options",
            "psnr:reduced_hbd_peak=true:min_sse=0.5:enable_chroma=false", &f);
    test_pair_frames_free(NULL, &f);
    /* gray input: luma-only features */
    make_stream(&f, 301, 257, 8, 400, 11, 4);
    compare(c, "301x257 8-bit gray", "psnr:enable_chroma=false,float_ssim,float_ms_ssim", &f);
    test_pair_frames_free(NULL, &f);
    /* 1-wide chroma planes (4:2:0 of width 3): psnr_hvs without chroma blocks */
    make_stream(&f, 3, 17, 12, 420, 5, 5);
    compare(c, "3x17 12-bit 420", "psnr,psnr_hvs,float_ssim", &f);
    test_pair_frames_free(NULL, &f);
}

/* The refusals of the C extractors, on CUDA too. */
static void test_refusals(const ctxs *c)
{
    static const struct {
        int w, h, bpc, chroma;
        const char *features;
    } bad[] = {
        {64, 64, 16, 420, "psnr_hvs"},
        {64, 64, 8, 400, "psnr_hvs"},
        {64, 64, 8, 400, "psnr"},
        {175, 300, 8, 420, "float_ms_ssim"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        frames f;
        make_stream(&f, bad[i].w, bad[i].h, bad[i].bpc, bad[i].chroma, 1, 9);
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
        }
        CHECK(st[0] < 0);
        CHECK_EQ_INT(st[1], st[0]);
        test_pair_frames_free(NULL, &f);
    }
}

/* ---------------------------------------------------------------- timing */

static float elapsed(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    CUDA_REQUIRE(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

/* Device time of each launcher on 1920x1080 8-bit 4:2:0 pairs, one and four a
 * launch (the driver's batch at that size). */
static void print_timing(void)
{
    enum { W = 1920, H = 1080, B = 4, REPS = 3 };
    uint8_t *planes[2][3];
    const int pw[3] = {W, W / 2, W / 2}, ph[3] = {H, H / 2, H / 2};
    for (int i = 0; i < 2; i++)
        for (int p = 0; p < 3; p++) {
            CUDA_REQUIRE(cudaMalloc((void **)&planes[i][p], (size_t)pw[p] * (size_t)ph[p]));
            CUDA_REQUIRE(cudaMemset(planes[i][p], 60 + 70 * i + 10 * p, (size_t)pw[p] * ph[p]));
        }
    unsigned long long *sums;
    CUDA_REQUIRE(cudaMalloc((void **)&sums, 64 * 32 * sizeof(unsigned long long)));
    cudaStream_t s;
    CUDA_REQUIRE(cudaStreamCreate(&s));
    cudaEvent_t e0, e1;
    CUDA_REQUIRE(cudaEventCreate(&e0));
    CUDA_REQUIRE(cudaEventCreate(&e1));

    psnr_cuda_args pa;
    memset(&pa, 0, sizeof(pa));
    pa.planes = 3;
    pa.u8 = 1;
    hvs_cuda_args ha;
    memset(&ha, 0, sizeof(ha));
    ha.nframes = B;
    ha.u8 = 1;
    ssim_cuda_args sa, ma;
    memset(&sa, 0, sizeof(sa));
    memset(&ma, 0, sizeof(ma));
    for (int p = 0; p < 3; p++) {
        pa.w[p] = ha.w[p] = pw[p];
        pa.h[p] = ha.h[p] = ph[p];
        psnr_hvs_tables(p, ha.csf[p], ha.mask[p]);
    }
    const int scale = iqa_auto_scale(W, H);
    sa.nframes = ma.nframes = B;
    sa.bpc = ma.bpc = 8;
    sa.lw[0] = ma.lw[0] = W;
    sa.lh[0] = ma.lh[0] = H;
    sa.levels = 2;
    sa.lw[1] = iqa_decimated(W, scale);
    sa.lh[1] = iqa_decimated(H, scale);
    sa.factor = sa.taps = scale;
    for (int i = 0; i < scale * scale; i++)
        sa.kernel[i] = 1.0f / (float)(scale * scale);
    sa.first_map = 1;
    sa.with_ssim = 1;
    sa.frame_sums = SSIM_CUDA_SUMS;
    ma.levels = MS_SCALES;
    for (int k = 1; k < MS_SCALES; k++) {
        ma.lw[k] = iqa_decimated(ma.lw[k - 1], 2);
        ma.lh[k] = iqa_decimated(ma.lh[k - 1], 2);
    }
    ma.factor = 2;
    ma.taps = MS_LPF;
    memcpy(ma.kernel, ms_lpf, sizeof(float) * MS_LPF * MS_LPF);
    ma.frame_sums = 3 * MS_SCALES;
    ssim_cuda_args *ss[2] = {&sa, &ma};
    for (int k = 0; k < 2; k++) {
        iqa_ssim_constants(&ss[k]->c1, &ss[k]->c2, &ss[k]->c3);
        memcpy(ss[k]->gauss, iqa_gauss, sizeof(ss[k]->gauss));
        CUDA_REQUIRE(cudaMalloc(&ss[k]->work, fv_ssim_cuda_work_bytes(ss[k])));
        ss[k]->sums = sums;
    }
    CUDA_REQUIRE(cudaMalloc(&ha.work, fv_hvs_cuda_work_bytes(&ha)));
    ha.sums = sums;
    pa.sse = sums;
    for (int z = 0; z < B; z++) {
        for (int p = 0; p < 3; p++) {
            pa.ref[p][z] = ha.ref[p][z] = planes[0][p];
            pa.dis[p][z] = ha.dis[p][z] = planes[1][p];
            pa.rstride[p][z] = pa.dstride[p][z] = ha.rstride[p][z] = ha.dstride[p][z] = pw[p];
        }
        for (int k = 0; k < 2; k++) {
            ss[k]->ref[z] = planes[0][0];
            ss[k]->dis[z] = planes[1][0];
            ss[k]->rstride[z] = ss[k]->dstride[z] = W;
        }
    }
    printf("device time at %dx%d 8-bit 4:2:0 (ms per launch; pairs a launch 1 / %d):\n", W, H, B);
    for (int n = 1; n <= B; n += B - 1) {
        float t[4] = {0, 0, 0, 0};
        pa.nframes = ha.nframes = sa.nframes = ma.nframes = n;
        for (int rep = 0; rep < REPS; rep++) {
            for (int f = 0; f < 4; f++) {
                CUDA_REQUIRE(cudaEventRecord(e0, s));
                int e = f == 0   ? fv_psnr_cuda_launch(&pa, s)
                        : f == 1 ? fv_ssim_cuda_launch(&sa, s)
                        : f == 2 ? fv_ssim_cuda_launch(&ma, s)
                                 : fv_hvs_cuda_launch(&ha, s);
                REQUIRE(e == 0);
                CUDA_REQUIRE(cudaEventRecord(e1, s));
                CUDA_REQUIRE(cudaEventSynchronize(e1));
                if (rep > 0 || REPS == 1)
                    t[f] += elapsed(e0, e1) / (REPS - 1);
            }
        }
        printf("  %d pair(s): psnr %.3f  float_ssim %.3f  float_ms_ssim %.3f  psnr_hvs %.3f\n", n,
               t[0], t[1], t[2], t[3]);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(s);
    for (int k = 0; k < 2; k++)
        cudaFree(ss[k]->work);
    cudaFree(ha.work);
    cudaFree(sums);
    for (int i = 0; i < 2; i++)
        for (int p = 0; p < 3; p++)
            cudaFree(planes[i][p]);
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
    test_options(&c);
    test_refusals(&c);
    printf("%d values compared\n", compared_values);
    CHECK(compared_values > 10000);
    fovea_close(&c.cpu);
    fovea_close(&c.gpu);
    print_timing();
    return test_finish("test_gpu_quality_features");
}

#else

int main(void)
{
    printf("built without CUDA: skipped\n");
    return TEST_SKIP;
}

#endif
