/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractor of ciede against its C extractor: the raw values (the
 * double sum) byte for byte, called directly on batches of generated pairs
 * (odd sizes, 8/10/12/16 bits, 4:2:0/4:2:2/4:4:4, noise, smooth content,
 * flat frames of a color the certification cannot decide), with poisoned
 * outputs, and with a list of 16 entries that forces the host recomputation
 * of the pairs that overflow it; then the ciede scores through the public
 * VMAF API from host and device frames. Prints how many pixels the host
 * computed. Exits 77 (skipped) without a CUDA device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/quality.h"
#include "testutil.h"

#ifdef FOVEA_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "gpu/gpu_require.h"

#include "quality/ciede.h"
#include "quality/ciede_cuda.h"
/* the threshold of statement V, variable here (the kernel's is the header's) */
static double g_thr;
#define CIEDE_POWF7_THRESHOLD g_thr
#include "quality/ciede_interval.h"


extern const feature_extractor feature_ciede_cpu, feature_ciede_cuda;

/* A 6-sample pixel (ref Y U V, dis Y U V at 8 bits) whose dE depends on
 * which side of a midpoint glibc's powf(x, 7) falls: certain without the
 * threshold, ambiguous with it, so ambiguous on the device too whatever its
 * libm (its certified candidates give these same different floats). The
 * tuple shifted up is as ambiguous at every depth: the normalization scales
 * by powers of two. */
static int g_amb[6];

static void find_ambiguous(void)
{
    test_rng r;
    test_rng_seed(&r, 47);
    for (long i = 0; i < 20000000; i++) {
        float s[6];
        for (int k = 0; k < 3; k++)
            s[k] = (float)test_rng_below(&r, 256);
        for (int k = 3; k < 6; k++) {
            const int v = (int)s[k - 3] + (int)test_rng_below(&r, 9) - 4;
            s[k] = (float)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
        float d;
        g_thr = 0.0;
        if (!ciede_cert_pixel(s[0], s[1], s[2], s[3], s[4], s[5], 8, &d))
            continue;
        g_thr = CIEDE_POWF7_T;
        if (!ciede_cert_pixel(s[0], s[1], s[2], s[3], s[4], s[5], 8, &d)) {
            for (int k = 0; k < 6; k++)
                g_amb[k] = (int)s[k];
            printf("ambiguous pixel: (%d %d %d) (%d %d %d) after %ld tries\n", g_amb[0], g_amb[1],
                   g_amb[2], g_amb[3], g_amb[4], g_amb[5], i + 1);
            return;
        }
    }
    REQUIRE(!"no ambiguous pixel found");
}

typedef struct planes {
    int w[3], h[3];
    size_t stride[3]; /* bytes */
    uint8_t *host[6], *dev[6];
} planes;

static void put(uint8_t *p, size_t stride, int bpc, int x, int y, int v)
{
    if (bpc == 8)
        p[(size_t)y * stride + (size_t)x] = (uint8_t)v;
    else
        ((uint16_t *)(void *)(p + (size_t)y * stride))[x] = (uint16_t)v;
}

/* pair content: 0 noise, 1 smooth with small differences, 2 flat ambiguous
 * color, 3 flat ambiguous color with noise in some pixels */
static void make_pair(planes *pl, int w, int h, int bpc, int chroma, int kind, test_rng *r)
{
    const int sx = chroma == 444 ? 0 : 1, sy = chroma == 420 ? 1 : 0;
    const int bytes = bpc > 8 ? 2 : 1, maxv = (1 << bpc) - 1, sh = bpc - 8;
    for (int p = 0; p < 3; p++) {
        pl->w[p] = p ? w >> sx : w;
        pl->h[p] = p ? h >> sy : h;
        pl->stride[p] = (size_t)(pl->w[p] * bytes + 7 * bytes); /* padded rows */
    }
    for (int k = 0; k < 6; k++) {
        const int p = k % 3;
        const size_t size = pl->stride[p] * (size_t)(pl->h[p] ? pl->h[p] : 1);
        pl->host[k] = malloc(size);
        REQUIRE(pl->host[k]);
        memset(pl->host[k], 0x5a, size);
        for (int y = 0; y < pl->h[p]; y++)
            for (int x = 0; x < pl->w[p]; x++) {
                int v;
                if (kind == 0)
                    v = (int)test_rng_below(r, (uint32_t)maxv + 1);
                else if (kind == 1)
                    v = (int)((0.5 + 0.3 * sin(x * 0.05 + p) * cos(y * 0.04 + k)) * maxv) +
                        (k >= 3 ? (int)test_rng_below(r, 9) - 4 : 0);
                else
                    v = g_amb[k] << sh;
                if (kind == 3 && test_rng_below(r, 50) == 0)
                    v = (int)test_rng_below(r, (uint32_t)maxv + 1);
                put(pl->host[k], pl->stride[p], bpc, x, y, v < 0 ? 0 : v > maxv ? maxv : v);
            }
        CUDA_REQUIRE(cudaMalloc((void **)&pl->dev[k], size));
        CUDA_REQUIRE(cudaMemcpy(pl->dev[k], pl->host[k], size, cudaMemcpyHostToDevice));
    }
}

static void free_pair(planes *pl)
{
    for (int k = 0; k < 6; k++) {
        free(pl->host[k]);
        CUDA_REQUIRE(cudaFree(pl->dev[k]));
    }
}

static long g_compared, g_ambiguous, g_fallbacks;

/* n pairs of one shape through both extractors: raw bytes identical */
static void direct(fovea_context *cpu, fovea_context *gpu, int w, int h, int bpc, int chroma, int n,
                   unsigned cap, int kind0, uint64_t seed)
{
    test_rng r;
    test_rng_seed(&r, seed);
    feature_setup s;
    memset(&s, 0, sizeof(s));
    s.width = w;
    s.height = h;
    s.bpc = bpc;
    s.chroma = chroma;
    s.chroma_width = chroma == 444 ? w : w >> 1;
    s.chroma_height = chroma == 420 ? h >> 1 : h;
    s.batch = n;
    void *cp = NULL, *gp = NULL;
    REQUIRE(feature_ciede_cpu.init(&cp, cpu, &s) == FOVEA_OK);
    REQUIRE(feature_ciede_cuda.init(&gp, gpu, &s) == FOVEA_OK);
    if (cap)
        ciede_cuda_stats(gp, cap, NULL, NULL);
    planes *pl = calloc((size_t)n, sizeof(planes));
    REQUIRE(pl);
    feature_batch b;
    memset(&b, 0, sizeof(b));
    b.n = n;
    for (int z = 0; z < n; z++) {
        make_pair(&pl[z], w, h, bpc, chroma, (kind0 + z) % 4, &r);
        b.ref[z] = pl[z].dev[0];
        b.dis[z] = pl[z].dev[3];
        b.ref_stride[z] = (ptrdiff_t)pl[z].stride[0];
        b.dis_stride[z] = (ptrdiff_t)pl[z].stride[0];
        for (int c = 0; c < 2; c++) {
            b.ref_c[c][z] = pl[z].dev[1 + c];
            b.dis_c[c][z] = pl[z].dev[4 + c];
            b.ref_c_stride[c][z] = (ptrdiff_t)pl[z].stride[1 + c];
            b.dis_c_stride[c][z] = (ptrdiff_t)pl[z].stride[1 + c];
        }
    }
    const size_t nsums = (size_t)n * feature_ciede_cuda.frame_sums;
    unsigned long long *d_sums, *h_sums = malloc(nsums * sizeof(*h_sums));
    REQUIRE(h_sums);
    CUDA_REQUIRE(cudaMalloc((void **)&d_sums, nsums * sizeof(*d_sums)));
    CUDA_REQUIRE(cudaMemset(d_sums, 0, nsums * sizeof(*d_sums)));
    cudaStream_t st;
    CUDA_REQUIRE(cudaStreamCreate(&st));
    cudaEvent_t e0, e1;
    CUDA_REQUIRE(cudaEventCreate(&e0));
    CUDA_REQUIRE(cudaEventCreate(&e1));
    CUDA_REQUIRE(cudaEventRecord(e0, st));
    CHECK_EQ_INT(feature_ciede_cuda.launch(gp, gpu, &b, d_sums, st), FOVEA_OK);
    CUDA_REQUIRE(cudaEventRecord(e1, st));
    CUDA_REQUIRE(cudaStreamSynchronize(st));
    float ms = 0.0f;
    CUDA_REQUIRE(cudaEventElapsedTime(&ms, e0, e1));
    CUDA_REQUIRE(cudaEventDestroy(e0));
    CUDA_REQUIRE(cudaEventDestroy(e1));
    CUDA_REQUIRE(cudaMemcpy(h_sums, d_sums, nsums * sizeof(*d_sums), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int z = 0; z < n; z++) {
        feature_pair p;
        memset(&p, 0, sizeof(p));
        p.ref = pl[z].host[0];
        p.dis = pl[z].host[3];
        p.ref_stride = p.dis_stride = (ptrdiff_t)pl[z].stride[0];
        for (int c = 0; c < 2; c++) {
            p.ref_c[c] = pl[z].host[1 + c];
            p.dis_c[c] = pl[z].host[4 + c];
            p.ref_c_stride[c] = p.dis_c_stride[c] = (ptrdiff_t)pl[z].stride[1 + c];
        }
        feature_raw want, got;
        memset(&want, 0xa5, sizeof(want)); /* poisoned */
        memset(&got, 0x5a, sizeof(got));
        CHECK_EQ_INT(feature_ciede_cpu.extract(cp, NULL, &p, &want), FOVEA_OK);
        feature_ciede_cuda.raw(gp, h_sums + (size_t)z * feature_ciede_cuda.frame_sums, z == 0,
                               &got);
        g_compared++;
        if (memcmp(&want, &got, sizeof(want)) != 0 && bad++ < 4) {
            double a, c;
            memcpy(&a, want.b, 8);
            memcpy(&c, got.b, 8);
            fprintf(stderr, "  %dx%d %d-bit %d pair %d: C %.17g, CUDA %.17g\n", w, h, bpc, chroma,
                    z, a, c);
        }
    }
    unsigned long long amb, fb;
    ciede_cuda_stats(gp, 0, &amb, &fb);
    g_ambiguous += (long)amb;
    g_fallbacks += (long)fb;
    printf("  %5dx%-5d %2d-bit %d, %2d pairs%s: %llu ambiguous pixels, %llu pairs recomputed, "
           "%.3f ms a pair (device, host function included): %s\n",
           w, h, bpc, chroma, n, cap ? " (list of 16)" : "", amb, fb, ms / n,
           bad ? "MISMATCH" : "identical");
    CHECK_EQ_INT(bad, 0);
    CUDA_REQUIRE(cudaStreamDestroy(st));
    CUDA_REQUIRE(cudaFree(d_sums));
    free(h_sums);
    for (int z = 0; z < n; z++)
        free_pair(&pl[z]);
    free(pl);
    feature_ciede_cpu.close(&cp);
    feature_ciede_cuda.close(&gp);
}

static void test_direct(fovea_context *cpu, fovea_context *gpu)
{
    static const struct {
        int w, h;
    } sizes[] = {{177, 181}, {203, 191}, {33, 29}, {9, 13}, {1, 1}, {2, 3}, {64, 7}, {1921, 1081}};
    static const int bpcs[] = {8, 10, 12, 16};
    static const int chromas[] = {420, 422, 444};
    int k = 0;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (size_t b = 0; b < 4; b++)
            for (size_t c = 0; c < 3; c++, k++) {
                const int big = sizes[i].w > 1000;
                if (big && (b % 2 || c != 0))
                    continue;
                direct(cpu, gpu, sizes[i].w, sizes[i].h, bpcs[b], chromas[c], big ? 3 : 5, 0, k % 4,
                       (uint64_t)k + 1);
            }
    /* the slow path: flat ambiguous frames overflow a list of 16 */
    const long fb0 = g_fallbacks;
    for (size_t b = 0; b < 4; b++)
        direct(cpu, gpu, 67, 45, bpcs[b], chromas[b % 3], 6, 16, 2, 100 + b);
    CHECK(g_fallbacks > fb0);
}

/* the ciede score through the public API: CPU, CUDA from host frames, CUDA
 * from device frames */
static void score(fovea_context *ctx, const fovea_frame *ref, const fovea_frame *dis, int n,
                  double *out)
{
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    s.features = "ciede";
    s.flags = FOVEA_VMAF_NO_PREDICTION;
    fovea_vmaf *v = NULL;
    REQUIRE(fovea_vmaf_open(&v, ctx, &s) == FOVEA_OK);
    for (int i = 0; i < n; i++)
        REQUIRE(fovea_vmaf_submit(v, &ref[i], &dis[i]) == FOVEA_OK);
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
    fovea_vmaf_scores sc;
    int got = 0;
    while (got < n && fovea_vmaf_receive(v, &sc) == FOVEA_OK)
        out[got++] = sc.value[0];
    CHECK_EQ_INT(got, n);
    fovea_vmaf_close(&v);
}

static void test_api(fovea_context *cpu, fovea_context *gpu)
{
    static const int chromas[] = {420, 422, 444};
    for (int c = 0; c < 3; c++) {
        const int w = 99 + 2 * c, h = 67, bpc = c == 1 ? 10 : 8, n = 9;
        fovea_frame ref[9], dis[9], dref[9], ddis[9];
        test_rng r;
        test_rng_seed(&r, 700 + (uint64_t)c);
        const fovea_pixfmt fmt = fovea_pixfmt_yuv(chromas[c], bpc);
        for (int i = 0; i < n; i++) {
            REQUIRE(fovea_frame_alloc(NULL, &ref[i], w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
            REQUIRE(fovea_frame_alloc(NULL, &dis[i], w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
            test_fill_random(&ref[i], &r);
            test_fill_random(&dis[i], &r);
            REQUIRE(fovea_frame_alloc(gpu, &dref[i], w, h, fmt, FOVEA_MEM_DEVICE) == FOVEA_OK);
            REQUIRE(fovea_frame_alloc(gpu, &ddis[i], w, h, fmt, FOVEA_MEM_DEVICE) == FOVEA_OK);
            CHECK_EQ_INT(fovea_frame_copy(gpu, &dref[i], &ref[i]), FOVEA_OK);
            CHECK_EQ_INT(fovea_frame_copy(gpu, &ddis[i], &dis[i]), FOVEA_OK);
        }
        CHECK_EQ_INT(fovea_sync(gpu), FOVEA_OK);
        double want[9], got[9], gotd[9];
        score(cpu, ref, dis, n, want);
        score(gpu, ref, dis, n, got);
        score(gpu, dref, ddis, n, gotd);
        CHECK(memcmp(want, got, sizeof(want)) == 0);
        CHECK(memcmp(want, gotd, sizeof(want)) == 0);
        printf("  public API %d: host and device frames %s\n", chromas[c],
               memcmp(want, got, sizeof(want)) || memcmp(want, gotd, sizeof(want)) ? "MISMATCH"
                                                                                   : "identical");
        for (int i = 0; i < n; i++) {
            fovea_frame_free(NULL, &ref[i]);
            fovea_frame_free(NULL, &dis[i]);
            fovea_frame_free(gpu, &dref[i]);
            fovea_frame_free(gpu, &ddis[i]);
        }
    }
}

int main(void)
{
    if (!test_have_gpu()) {
        printf("no CUDA device: skipped\n");
        return TEST_SKIP;
    }
    fovea_context *cpu = test_open_ctx(FOVEA_BACKEND_CPU, 0, NULL),
                  *gpu = test_open_ctx(FOVEA_BACKEND_CUDA, 0, NULL);
    find_ambiguous();
    test_direct(cpu, gpu);
    test_api(cpu, gpu);
    printf("%ld pairs compared; %ld ambiguous pixels computed by the host; %ld pairs recomputed "
           "after a list overflow\n",
           g_compared, g_ambiguous, g_fallbacks);
    CHECK(g_ambiguous > 0);
    fovea_close(&gpu);
    fovea_close(&cpu);
    return test_finish("test_gpu_ciede");
}

#else

int main(void)
{
    printf("built without CUDA: skipped\n");
    return TEST_SKIP;
}

#endif
