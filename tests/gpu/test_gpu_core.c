/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Core on a CUDA device: contexts, device info, host/pinned/device round trips for
 * every pixel format, device fill, device frame pools, user streams, error paths.
 * Exits 77 (skipped) without a CUDA device. */
#include <stdlib.h>
#include <string.h>

#include "core/device.h" /* fv_pinned_malloc: the pinned block cache */
#include "fovea/fovea.h"
#include "testutil.h"

#ifdef FOVEA_HAVE_CUDA
#include <cuda_runtime_api.h>

#define POISON 0xA5

/* Under compute-sanitizer every failing CUDA API call counts as an error, so the
 * checks that provoke one on purpose are left out when this is set. */
static int provoked_errors_allowed(void)
{
    const char *e = getenv("FOVEA_TEST_SANITIZER");
    return !(e && *e && strcmp(e, "0") != 0);
}

static fovea_context *open_cuda(void *stream)
{
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CUDA;
    s.cuda_stream = stream;
    fovea_context *ctx = NULL;
    int st = fovea_open(&ctx, &s);
    if (st != FOVEA_OK)
        fprintf(stderr, "fovea_open(cuda): %s\n", fovea_strerror(st));
    REQUIRE(st == FOVEA_OK && ctx != NULL);
    return ctx;
}

/* Every sample row of every plane of a host frame equals value. */
static int all_bytes(const fovea_frame *f, uint8_t value)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    for (int p = 0; p < d->planes; p++) {
        size_t row = fovea_plane_row_bytes(f->fmt, f->width, p);
        for (int y = 0; y < fovea_plane_height(f->fmt, f->height, p); y++)
            for (size_t x = 0; x < row; x++)
                if (f->data[p][(ptrdiff_t)y * f->stride[p] + (ptrdiff_t)x] != value)
                    return 0;
    }
    return 1;
}

static void test_info_and_open(void)
{
    int n = 0;
    CHECK_EQ_INT(fovea_device_count(&n), FOVEA_OK);
    CHECK(n >= 1);
    CHECK_EQ_INT(fovea_cuda_compiled(), 1);
    CHECK_EQ_INT(fovea_device_count(NULL), FOVEA_ERR_INVALID_ARG);

    fovea_device_info info;
    memset(&info, 0, sizeof(info));
    CHECK_EQ_INT(fovea_device_get_info(0, &info), FOVEA_OK);
    CHECK(info.name[0] != '\0');
    CHECK(memchr(info.name, '\0', sizeof(info.name)) != NULL);
    CHECK(info.sm_count > 0 && info.sm_count < 10000);
    CHECK(info.total_memory >= ((size_t)1 << 30));
    CHECK(info.cc_major >= 5 && info.cc_major < 100);
    CHECK(info.cc_minor >= 0 && info.cc_minor < 10);
    CHECK(info.clock_khz >= 0);
    CHECK(info.memory_bus_width >= 0);
    CHECK(info.l2_cache_bytes > 0);
    printf("device 0: %s, %d SMs, cc %d.%d, %zu MiB\n", info.name, info.sm_count, info.cc_major,
           info.cc_minor, info.total_memory >> 20);
    CHECK_EQ_INT(fovea_device_get_info(n, &info), FOVEA_ERR_NO_DEVICE);
    CHECK_EQ_INT(fovea_device_get_info(-1, &info), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_device_get_info(0, NULL), FOVEA_ERR_INVALID_ARG);

    fovea_context *ctx = open_cuda(NULL);
    CHECK_EQ_INT(fovea_context_backend(ctx), FOVEA_BACKEND_CUDA);
    CHECK_EQ_INT(fovea_context_device(ctx), 0);
    CHECK(fovea_context_stream(ctx) != NULL);
    CHECK_EQ_INT(fovea_sync(ctx), FOVEA_OK);
    CHECK_EQ_INT(fovea_last_error(ctx)[0], '\0');

    /* two CUDA contexts and a CPU one at once: separate streams, separate errors */
    fovea_context *other = open_cuda(NULL);
    CHECK(fovea_context_stream(other) != fovea_context_stream(ctx));
    fovea_context *cpu = NULL;
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    REQUIRE(fovea_open(&cpu, &s) == FOVEA_OK);
    CHECK_EQ_INT(fovea_context_backend(cpu), FOVEA_BACKEND_CPU);
    CHECK(fovea_context_stream(cpu) == NULL);
    fovea_frame f;
    CHECK_EQ_INT(fovea_frame_alloc(cpu, &f, 8, 8, FOVEA_PIX_GRAY8, FOVEA_MEM_DEVICE),
                 FOVEA_ERR_NO_DEVICE);
    CHECK_EQ_INT(fovea_context_wait_stream(cpu, fovea_context_stream(ctx)), FOVEA_ERR_NO_DEVICE);

    /* stream order across contexts (what the Python package does with a foreign
     * array's stream): other fills a big frame, ctx waits for it, then copies it */
    fovea_frame big, dev, host;
    REQUIRE(fovea_frame_alloc(other, &big, 4096, 4096, FOVEA_PIX_GRAY8, FOVEA_MEM_DEVICE) ==
            FOVEA_OK);
    REQUIRE(fovea_frame_alloc(ctx, &dev, 4096, 4096, FOVEA_PIX_GRAY8, FOVEA_MEM_DEVICE) ==
            FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &host, 4096, 4096, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) ==
            FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_fill(ctx, &big, 0x11), FOVEA_OK);
    CHECK_EQ_INT(fovea_sync(ctx), FOVEA_OK);
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(fovea_frame_fill(other, &big, (uint8_t)(0x20 + i)), FOVEA_OK);
    CHECK_EQ_INT(fovea_context_wait_stream(ctx, fovea_context_stream(other)), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_copy(ctx, &dev, &big), FOVEA_OK);
    CHECK_EQ_INT(fovea_context_signal_stream(ctx, fovea_context_stream(other)), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_copy(other, &host, &dev), FOVEA_OK);
    CHECK_EQ_INT(fovea_sync(other), FOVEA_OK);
    CHECK_EQ_INT(host.data[0][0], 0x27);
    CHECK_EQ_INT(host.data[0][4095 * host.stride[0] + 4095], 0x27);
    CHECK_EQ_INT(fovea_context_wait_stream(ctx, fovea_context_stream(ctx)), FOVEA_OK);
    CHECK_EQ_INT(fovea_context_wait_stream(ctx, NULL), FOVEA_OK);
    fovea_frame_free(other, &big);
    fovea_frame_free(ctx, &dev);
    fovea_frame_free(NULL, &host);
    fovea_close(&cpu);
    fovea_close(&other);
    CHECK(other == NULL);

    /* AUTO picks CUDA when a device is present */
    fovea_context *autoctx = NULL;
    REQUIRE(fovea_open(&autoctx, NULL) == FOVEA_OK);
    CHECK_EQ_INT(fovea_context_backend(autoctx), FOVEA_BACKEND_CUDA);
    fovea_close(&autoctx);
    fovea_close(&ctx);
}

static void test_bad_device(void)
{
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CUDA;
    s.cuda_device = 999;
    fovea_context *ctx = NULL;
    CHECK_EQ_INT(fovea_open(&ctx, &s), FOVEA_ERR_NO_DEVICE);
    CHECK(ctx == NULL);
    int n = 0;
    fovea_device_count(&n);
    s.cuda_device = n; /* one past the last */
    CHECK_EQ_INT(fovea_open(&ctx, &s), FOVEA_ERR_NO_DEVICE);
    CHECK(ctx == NULL);
    /* AUTO falls back to the CPU instead */
    s.backend = FOVEA_BACKEND_AUTO;
    s.cuda_device = 999;
    CHECK_EQ_INT(fovea_open(&ctx, &s), FOVEA_OK);
    CHECK_EQ_INT(fovea_context_backend(ctx), FOVEA_BACKEND_CPU);
    fovea_close(&ctx);
}

/* host random -> device -> pinned -> device -> host, every intermediate poisoned. */
static void round_trip(fovea_context *ctx, fovea_pixfmt fmt, int w, int h, test_rng *rng)
{
    fovea_frame src, dev1, pin, dev2, dst;
    REQUIRE(fovea_frame_alloc(ctx, &src, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(ctx, &dev1, w, h, fmt, FOVEA_MEM_DEVICE) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(ctx, &pin, w, h, fmt, FOVEA_MEM_PINNED) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(ctx, &dev2, w, h, fmt, FOVEA_MEM_DEVICE) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(ctx, &dst, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);

    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    CHECK_EQ_INT(dev1.mem, FOVEA_MEM_DEVICE);
    CHECK_EQ_INT(dev1.device, 0);
    CHECK_EQ_INT(pin.mem, FOVEA_MEM_PINNED);
    for (int p = 0; p < d->planes; p++) {
        CHECK(dev1.stride[p] % 256 == 0);
        CHECK((size_t)dev1.stride[p] >= fovea_plane_row_bytes(fmt, w, p));
    }

    test_fill_random(&src, rng);
    src.index = 77;
    CHECK_EQ_INT(fovea_frame_fill(ctx, &dev1, POISON), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_fill(ctx, &dev2, POISON), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_fill(ctx, &pin, 0x5A), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_fill(ctx, &dst, 0x5A), FOVEA_OK);

    CHECK_EQ_INT(fovea_frame_copy(ctx, &dev1, &src), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_copy(ctx, &pin, &dev1), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_copy(ctx, &dev2, &pin), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_copy(ctx, &dst, &dev2), FOVEA_OK);
    CHECK_EQ_INT(fovea_sync(ctx), FOVEA_OK);

    int ok_pin = fovea_frame_equal(&src, &pin), ok_dst = fovea_frame_equal(&src, &dst);
    CHECK(ok_pin);
    CHECK(ok_dst);
    CHECK_EQ_INT(dst.index, 77);
    CHECK(!fovea_frame_equal(&src, &dev1)); /* device frames are not compared on the host */
    if (!ok_pin || !ok_dst)
        fprintf(stderr, "  round trip failed: %s %dx%d: %s\n", fovea_pixfmt_name(fmt), w, h,
                fovea_last_error(ctx));

    /* device -> device, then back */
    CHECK_EQ_INT(fovea_frame_fill(ctx, &dev2, POISON), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_fill(ctx, &dst, 0x5A), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_copy(ctx, &dev2, &dev1), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_copy(ctx, &dst, &dev2), FOVEA_OK);
    CHECK_EQ_INT(fovea_sync(ctx), FOVEA_OK);
    CHECK(fovea_frame_equal(&src, &dst));

    fovea_frame_free(ctx, &src);
    fovea_frame_free(ctx, &dev1);
    fovea_frame_free(ctx, &pin);
    fovea_frame_free(ctx, &dev2);
    fovea_frame_free(ctx, &dst);
    CHECK(dev1.buf == NULL && pin.buf == NULL);
}

static void test_round_trips(void)
{
    fovea_context *ctx = open_cuda(NULL);
    test_rng rng;
    test_rng_seed(&rng, 2024);
    static const int sizes[][2] = {{37, 23}, {1, 1}, {2, 3}, {513, 7}};
    for (int fmt = FOVEA_PIX_GRAY8; fmt <= FOVEA_PIX_RGBA; fmt++)
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
            round_trip(ctx, (fovea_pixfmt)fmt, sizes[i][0], sizes[i][1], &rng);
    static const fovea_pixfmt big[] = {FOVEA_PIX_GRAY8, FOVEA_PIX_I420P10, FOVEA_PIX_NV12,
                                       FOVEA_PIX_I444P16, FOVEA_PIX_RGBA};
    for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++)
        round_trip(ctx, big[i], 1920, 1080, &rng);
    round_trip(ctx, FOVEA_PIX_I420, 16384, 1, &rng);
    round_trip(ctx, FOVEA_PIX_I420, 1, 16384, &rng);
    CHECK_EQ_INT(fovea_last_error(ctx)[0], '\0');
    fovea_close(&ctx);
}

static void test_device_fill(void)
{
    fovea_context *ctx = open_cuda(NULL);
    static const fovea_pixfmt fmts[] = {FOVEA_PIX_I420, FOVEA_PIX_NV12, FOVEA_PIX_I422P12,
                                        FOVEA_PIX_RGB24};
    static const uint8_t values[] = {0x00, 0x3C, 0xFF};
    for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
        fovea_frame dev, host;
        REQUIRE(fovea_frame_alloc(ctx, &dev, 45, 31, fmts[i], FOVEA_MEM_DEVICE) == FOVEA_OK);
        REQUIRE(fovea_frame_alloc(ctx, &host, 45, 31, fmts[i], FOVEA_MEM_HOST) == FOVEA_OK);
        for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
            CHECK_EQ_INT(fovea_frame_fill(ctx, &dev, POISON), FOVEA_OK);
            CHECK_EQ_INT(fovea_frame_fill(ctx, &dev, values[v]), FOVEA_OK);
            CHECK_EQ_INT(fovea_frame_fill(ctx, &host, 0x5A), FOVEA_OK);
            CHECK_EQ_INT(fovea_frame_copy(ctx, &host, &dev), FOVEA_OK);
            CHECK_EQ_INT(fovea_sync(ctx), FOVEA_OK);
            CHECK(all_bytes(&host, values[v]));
        }
        fovea_frame_free(ctx, &dev);
        fovea_frame_free(ctx, &host);
    }
    fovea_close(&ctx);
}

static void test_device_pool(void)
{
    fovea_context *ctx = open_cuda(NULL);
    fovea_frame_pool *pool = NULL;
    REQUIRE(fovea_frame_pool_open(&pool, ctx, 3, 64, 48, FOVEA_PIX_I420, FOVEA_MEM_DEVICE) ==
            FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_pool_available(pool), 3);
    fovea_frame *f[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(fovea_frame_pool_get(pool, &f[i]), FOVEA_OK);
        REQUIRE(f[i] != NULL);
        CHECK_EQ_INT(f[i]->mem, FOVEA_MEM_DEVICE);
    }
    CHECK_EQ_INT(fovea_frame_pool_get(pool, &f[3]), FOVEA_ERR_NOMEM);
    CHECK(f[3] == NULL);

    /* pool frames are ordinary device frames */
    test_rng rng;
    test_rng_seed(&rng, 5);
    fovea_frame src, back;
    REQUIRE(fovea_frame_alloc(ctx, &src, 64, 48, FOVEA_PIX_I420, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(ctx, &back, 64, 48, FOVEA_PIX_I420, FOVEA_MEM_HOST) == FOVEA_OK);
    test_fill_random(&src, &rng);
    CHECK_EQ_INT(fovea_frame_fill(ctx, f[1], POISON), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_copy(ctx, f[1], &src), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_copy(ctx, f[2], f[1]), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_copy(ctx, &back, f[2]), FOVEA_OK);
    CHECK_EQ_INT(fovea_sync(ctx), FOVEA_OK);
    CHECK(fovea_frame_equal(&src, &back));

    fovea_frame foreign;
    REQUIRE(fovea_frame_alloc(ctx, &foreign, 64, 48, FOVEA_PIX_I420, FOVEA_MEM_DEVICE) == FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_pool_put(pool, &foreign), FOVEA_ERR_INVALID_ARG);
    fovea_frame_free(ctx, &foreign);
    CHECK_EQ_INT(fovea_frame_pool_put(pool, f[0]), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_pool_put(pool, f[0]), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_pool_get(pool, &f[3]), FOVEA_OK);
    CHECK(f[3] == f[0]);
    for (int i = 1; i < 4; i++)
        CHECK_EQ_INT(fovea_frame_pool_put(pool, f[i]), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_pool_available(pool), 3);
    fovea_frame_pool_close(&pool);
    CHECK(pool == NULL);

    /* pinned pools work too */
    REQUIRE(fovea_frame_pool_open(&pool, ctx, 2, 64, 48, FOVEA_PIX_I420, FOVEA_MEM_PINNED) ==
            FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_pool_get(pool, &f[0]), FOVEA_OK);
    REQUIRE(f[0] != NULL);
    CHECK_EQ_INT(f[0]->mem, FOVEA_MEM_PINNED);
    CHECK_EQ_INT(fovea_frame_pool_put(pool, f[0]), FOVEA_OK);
    fovea_frame_pool_close(&pool);

    fovea_frame_free(ctx, &src);
    fovea_frame_free(ctx, &back);
    fovea_close(&ctx);
}

/* Freed pinned blocks are kept for reuse (src/core/device.c): a kept block
 * comes back for a request it holds with at most half of it unused, not for
 * one it cannot hold or would waste more than half of, and a reused block
 * works as a copy source and target. Sizes no other test here uses. */
static void test_pinned_cache(void)
{
    fovea_context *ctx = open_cuda(NULL);
    const size_t big = 5000000;
    unsigned char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL;
    REQUIRE(fv_pinned_malloc(ctx, big, (void **)&a) == FOVEA_OK && a);
    fv_pinned_free(ctx, a);
    REQUIRE(fv_pinned_malloc(ctx, 4800000, (void **)&b) == FOVEA_OK && b);
    CHECK(b == a);
    REQUIRE(fv_pinned_malloc(ctx, big, (void **)&c) == FOVEA_OK && c);
    CHECK(c != b);
    fv_pinned_free(ctx, c);
    REQUIRE(fv_pinned_malloc(ctx, 2000000, (void **)&d) == FOVEA_OK && d);
    CHECK(d != c); /* c would be more than half unused */
    REQUIRE(fv_pinned_malloc(ctx, 6000000, (void **)&e) == FOVEA_OK && e);
    CHECK(e != c); /* c is too small */

    /* the reused block b: random bytes to the device and back */
    test_rng rng;
    test_rng_seed(&rng, 13);
    unsigned char *want = malloc(4800000);
    void *dev = NULL;
    REQUIRE(want && fv_device_malloc(ctx, 4800000, &dev) == FOVEA_OK);
    for (size_t i = 0; i < 4800000; i++)
        b[i] = want[i] = (unsigned char)test_rng_below(&rng, 256);
    CHECK(cudaMemcpy(dev, b, 4800000, cudaMemcpyHostToDevice) == cudaSuccess);
    memset(b, POISON, 4800000);
    CHECK(cudaMemcpy(b, dev, 4800000, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(memcmp(b, want, 4800000) == 0);
    fv_device_free(ctx, dev);
    free(want);
    fv_pinned_free(ctx, b);
    fv_pinned_free(ctx, d);
    fv_pinned_free(ctx, e);

    /* more blocks than are kept: every one usable, freed without trouble */
    enum { MANY = 40 };
    unsigned char *many[MANY];
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < MANY; i++) {
            REQUIRE(fv_pinned_malloc(ctx, 4096 * (size_t)(i + 1), (void **)&many[i]) == FOVEA_OK);
            memset(many[i], i, 4096 * (size_t)(i + 1));
        }
        for (int i = 0; i < MANY; i++) {
            CHECK(many[i][4096 * (size_t)(i + 1) - 1] == (unsigned char)i);
            fv_pinned_free(ctx, many[i]);
        }
    }
    fv_pinned_free(ctx, NULL);
    fovea_close(&ctx);
}

static void test_user_stream(void)
{
    cudaStream_t stream = NULL;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    fovea_context *ctx = open_cuda((void *)stream);
    CHECK(fovea_context_stream(ctx) == (void *)stream);

    test_rng rng;
    test_rng_seed(&rng, 9);
    fovea_frame src, dev, back;
    REQUIRE(fovea_frame_alloc(ctx, &src, 97, 61, FOVEA_PIX_NV12, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(ctx, &dev, 97, 61, FOVEA_PIX_NV12, FOVEA_MEM_DEVICE) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(ctx, &back, 97, 61, FOVEA_PIX_NV12, FOVEA_MEM_HOST) == FOVEA_OK);
    test_fill_random(&src, &rng);
    CHECK_EQ_INT(fovea_frame_fill(ctx, &dev, POISON), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_copy(ctx, &dev, &src), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_copy(ctx, &back, &dev), FOVEA_OK);
    /* the work went to the caller's stream: waiting on it is enough */
    CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
    CHECK(fovea_frame_equal(&src, &back));
    fovea_frame_free(ctx, &dev);
    fovea_close(&ctx);

    /* the context must not have destroyed the caller's stream */
    void *buf = NULL;
    REQUIRE(cudaMalloc(&buf, 4096) == cudaSuccess);
    CHECK(cudaMemsetAsync(buf, 0x11, 4096, stream) == cudaSuccess);
    CHECK(cudaMemcpyAsync(back.data[0], buf, 64, cudaMemcpyDeviceToHost, stream) == cudaSuccess);
    CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
    CHECK(cudaStreamQuery(stream) == cudaSuccess);
    CHECK_EQ_INT(back.data[0][0], 0x11);
    CHECK_EQ_INT(back.data[0][63], 0x11);
    CHECK(cudaFree(buf) == cudaSuccess);
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    fovea_frame_free(NULL, &src);
    fovea_frame_free(NULL, &back);
}

/* "name.c:123" somewhere in msg */
static int has_file_line(const char *msg)
{
    for (const char *p = strstr(msg, ".c"); p; p = strstr(p + 1, ".c")) {
        const char *q = p + 2;
        if (*q == 'u') /* .cu */
            q++;
        if (q[0] == ':' && q[1] >= '0' && q[1] <= '9')
            return 1;
    }
    return 0;
}

static void test_errors(void)
{
    fovea_context *ctx = open_cuda(NULL);
    fovea_frame host, dev, small;
    REQUIRE(fovea_frame_alloc(ctx, &host, 37, 23, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    REQUIRE(fovea_frame_alloc(ctx, &dev, 37, 23, FOVEA_PIX_GRAY8, FOVEA_MEM_DEVICE) == 0);
    REQUIRE(fovea_frame_alloc(ctx, &small, 36, 23, FOVEA_PIX_GRAY8, FOVEA_MEM_DEVICE) == 0);
    CHECK_EQ_INT(fovea_frame_copy(ctx, &small, &dev), FOVEA_ERR_MISMATCH);
    CHECK(fovea_last_error(ctx)[0] != '\0');
    CHECK_EQ_INT(fovea_frame_copy(ctx, &small, &host), FOVEA_ERR_MISMATCH);

    if (provoked_errors_allowed()) {
        /* A destination pitch smaller than a row is refused at the API boundary... */
        fovea_frame bad = dev;
        bad.buf = NULL; /* a view, never freed */
        bad.stride[0] = 1;
        CHECK_EQ_INT(fovea_frame_copy(ctx, &bad, &host), FOVEA_ERR_INVALID_ARG);
        CHECK(strstr(fovea_last_error(ctx), "stride") != NULL);
        /* ...and one above the device's largest pitch (2^31 - 1 bytes) makes
         * cudaMemcpy2DAsync refuse the copy before touching memory: a safe way to get
         * a CUDA error through the public API. */
        bad.stride[0] = (ptrdiff_t)1 << 32;
        CHECK_EQ_INT(fovea_frame_copy(ctx, &bad, &host), FOVEA_ERR_CUDA);
        const char *msg = fovea_last_error(ctx);
        printf("provoked CUDA error: %s\n", msg);
        CHECK(has_file_line(msg));
        CHECK(strstr(msg, "cudaMemcpy2DAsync") != NULL);
        /* the runtime keeps the error as "last error" too; drop it so nothing later
         * (in this process) picks it up as its own */
        cudaGetLastError();
    } else {
        printf("FOVEA_TEST_SANITIZER set: provoked CUDA error check skipped\n");
    }

    /* the context still works afterwards */
    test_rng rng;
    test_rng_seed(&rng, 11);
    fovea_frame back;
    REQUIRE(fovea_frame_alloc(ctx, &back, 37, 23, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    test_fill_random(&host, &rng);
    CHECK_EQ_INT(fovea_frame_copy(ctx, &dev, &host), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_copy(ctx, &back, &dev), FOVEA_OK);
    CHECK_EQ_INT(fovea_sync(ctx), FOVEA_OK);
    CHECK(fovea_frame_equal(&host, &back));

    fovea_frame_free(ctx, &host);
    fovea_frame_free(ctx, &back);
    fovea_frame_free(ctx, &dev);
    fovea_frame_free(ctx, &small);
    fovea_close(&ctx);
}
#endif /* FOVEA_HAVE_CUDA */

int main(void)
{
    if (!test_have_gpu()) {
        printf("test_gpu_core: no CUDA device: skipped\n");
        return TEST_SKIP;
    }
#ifdef FOVEA_HAVE_CUDA
    test_info_and_open();
    test_bad_device();
    test_round_trips();
    test_device_fill();
    test_device_pool();
    test_pinned_cache();
    test_user_stream();
    test_errors();
    return test_finish("test_gpu_core");
#else
    return TEST_SKIP;
#endif
}
