/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Core on the CPU: frame allocation limits, plane geometry, host copy/fill/equal,
 * frame pool, status strings, backend names, contexts and the thread pool. */
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fovea/convert.h"
#include "fovea/fovea.h"
#include "fovea/io.h"
#include "testutil.h"

static void check_layout(const fovea_frame *f, int w, int h, fovea_pixfmt fmt)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    CHECK_EQ_INT(f->width, w);
    CHECK_EQ_INT(f->height, h);
    CHECK_EQ_INT(f->fmt, fmt);
    CHECK_EQ_INT(f->mem, FOVEA_MEM_HOST);
    CHECK(f->buf != NULL);
    CHECK(f->buf_size >= fovea_frame_packed_size(fmt, w, h));
    for (int p = 0; p < 4; p++) {
        if (p >= d->planes) {
            CHECK(f->data[p] == NULL);
            continue;
        }
        CHECK(f->data[p] != NULL);
        CHECK(f->stride[p] % 64 == 0);
        CHECK((size_t)f->stride[p] >= fovea_plane_row_bytes(fmt, w, p));
        /* the last row of the plane ends inside the buffer */
        size_t end = (size_t)(f->data[p] - (uint8_t *)f->buf) +
                     (size_t)f->stride[p] * (size_t)(fovea_plane_height(fmt, h, p) - 1) +
                     fovea_plane_row_bytes(fmt, w, p);
        CHECK(end <= f->buf_size);
    }
}

static void test_alloc_limits(void)
{
    static const int sizes[][2] = {{1, 1}, {33, 17}, {16384, 1}, {1, 16384}, {2, 2}};
    for (int fmt = FOVEA_PIX_GRAY8; fmt < FOVEA_PIX_COUNT; fmt++) {
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            fovea_frame f;
            int w = sizes[i][0], h = sizes[i][1];
            int st = fovea_frame_alloc(NULL, &f, w, h, (fovea_pixfmt)fmt, FOVEA_MEM_HOST);
            CHECK_EQ_INT(st, FOVEA_OK);
            if (st == FOVEA_OK) {
                check_layout(&f, w, h, (fovea_pixfmt)fmt);
                /* write every row so ASan sees the whole layout */
                CHECK_EQ_INT(fovea_frame_fill(NULL, &f, 0x7f), FOVEA_OK);
            }
            fovea_frame_free(NULL, &f);
            CHECK(f.buf == NULL && f.data[0] == NULL);
        }
    }

    static const int bad[][2] = {{0, 1},     {1, 0},     {-1, 8},      {8, -1},
                                 {16385, 1}, {1, 16385}, {INT_MIN, 1}, {1, INT_MAX}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        fovea_frame f;
        memset(&f, 0x55, sizeof(f));
        CHECK_EQ_INT(
            fovea_frame_alloc(NULL, &f, bad[i][0], bad[i][1], FOVEA_PIX_I420, FOVEA_MEM_HOST),
            FOVEA_ERR_INVALID_ARG);
        CHECK(f.buf == NULL && f.data[0] == NULL); /* zeroed on failure */
        fovea_frame_free(NULL, &f);                /* and safe to free */
    }
    fovea_frame f;
    CHECK_EQ_INT(fovea_frame_alloc(NULL, &f, 8, 8, FOVEA_PIX_NONE, FOVEA_MEM_HOST),
                 FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_alloc(NULL, &f, 8, 8, FOVEA_PIX_COUNT, FOVEA_MEM_HOST),
                 FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_alloc(NULL, &f, 8, 8, (fovea_pixfmt)-3, FOVEA_MEM_HOST),
                 FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_alloc(NULL, &f, 8, 8, FOVEA_PIX_GRAY8, (fovea_memtype)7),
                 FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_alloc(NULL, NULL, 8, 8, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST),
                 FOVEA_ERR_INVALID_ARG);

    /* the largest frame accepted anywhere, in the smallest format */
    CHECK_EQ_INT(fovea_frame_alloc(NULL, &f, 16384, 16384, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST),
                 FOVEA_OK);
    fovea_frame_free(NULL, &f);
}

static void test_cuda_memory_without_device(void)
{
    if (test_have_gpu()) {
        printf("a CUDA device is present: NO_DEVICE checks for pinned/device memory skipped\n");
        return;
    }
    fovea_context *ctx = NULL;
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
    fovea_frame f;
    CHECK_EQ_INT(fovea_frame_alloc(NULL, &f, 16, 16, FOVEA_PIX_I420, FOVEA_MEM_PINNED),
                 FOVEA_ERR_NO_DEVICE);
    CHECK_EQ_INT(fovea_frame_alloc(NULL, &f, 16, 16, FOVEA_PIX_I420, FOVEA_MEM_DEVICE),
                 FOVEA_ERR_NO_DEVICE);
    CHECK_EQ_INT(fovea_frame_alloc(ctx, &f, 16, 16, FOVEA_PIX_I420, FOVEA_MEM_PINNED),
                 FOVEA_ERR_NO_DEVICE);
    CHECK_EQ_INT(fovea_frame_alloc(ctx, &f, 16, 16, FOVEA_PIX_I420, FOVEA_MEM_DEVICE),
                 FOVEA_ERR_NO_DEVICE);
    CHECK(f.buf == NULL);
    CHECK(fovea_last_error(ctx)[0] != '\0');
    fovea_frame_pool *pool = NULL;
    CHECK_EQ_INT(fovea_frame_pool_open(&pool, ctx, 2, 16, 16, FOVEA_PIX_GRAY8, FOVEA_MEM_DEVICE),
                 FOVEA_ERR_NO_DEVICE);
    CHECK(pool == NULL);

    /* a CUDA context cannot be had, AUTO falls back to the CPU */
    fovea_context *cuda = NULL;
    s.backend = FOVEA_BACKEND_CUDA;
    CHECK_EQ_INT(fovea_open(&cuda, &s), FOVEA_ERR_NO_DEVICE);
    CHECK(cuda == NULL);
    s.backend = FOVEA_BACKEND_AUTO;
    CHECK_EQ_INT(fovea_open(&cuda, &s), FOVEA_OK);
    CHECK_EQ_INT(fovea_context_backend(cuda), FOVEA_BACKEND_CPU);
    fovea_close(&cuda);
    fovea_close(&ctx);
}

static void test_geometry(void)
{
    CHECK_EQ_INT(fovea_plane_width(FOVEA_PIX_I420, 33, 0), 33);
    CHECK_EQ_INT(fovea_plane_height(FOVEA_PIX_I420, 17, 0), 17);
    CHECK_EQ_INT(fovea_plane_width(FOVEA_PIX_I420, 33, 1), 17);
    CHECK_EQ_INT(fovea_plane_height(FOVEA_PIX_I420, 17, 1), 9);
    CHECK_EQ_INT(fovea_plane_width(FOVEA_PIX_I420, 33, 2), 17);
    CHECK_EQ_INT(fovea_plane_height(FOVEA_PIX_I420, 17, 2), 9);
    CHECK_EQ_INT(fovea_plane_width(FOVEA_PIX_I420, 33, 3), 0); /* no such plane */
    CHECK_EQ_INT(fovea_plane_width(FOVEA_PIX_I422, 33, 1), 17);
    CHECK_EQ_INT(fovea_plane_height(FOVEA_PIX_I422, 17, 1), 17);
    CHECK_EQ_INT(fovea_plane_width(FOVEA_PIX_I444, 33, 1), 33);
    CHECK_EQ_INT(fovea_plane_row_bytes(FOVEA_PIX_NV12, 33, 0), 33);
    CHECK_EQ_INT(fovea_plane_row_bytes(FOVEA_PIX_NV12, 33, 1), 34);
    CHECK_EQ_INT(fovea_plane_height(FOVEA_PIX_NV12, 17, 1), 9);
    CHECK_EQ_INT(fovea_plane_width(FOVEA_PIX_NV12, 33, 2), 0);
    CHECK_EQ_INT(fovea_plane_row_bytes(FOVEA_PIX_I420P10, 33, 1), 34);
    CHECK_EQ_INT(fovea_plane_row_bytes(FOVEA_PIX_I444P16, 33, 2), 66);
    CHECK_EQ_INT(fovea_plane_row_bytes(FOVEA_PIX_GRAY12, 33, 0), 66);
    CHECK_EQ_INT(fovea_plane_row_bytes(FOVEA_PIX_RGB24, 33, 0), 99);
    CHECK_EQ_INT(fovea_plane_row_bytes(FOVEA_PIX_RGBA, 33, 0), 132);
    CHECK_EQ_INT(fovea_plane_row_bytes(FOVEA_PIX_RGBA, 33, 1), 0);
    CHECK_EQ_INT(fovea_plane_row_bytes(FOVEA_PIX_RGB48, 33, 0), 198);
    CHECK_EQ_INT(fovea_plane_row_bytes(FOVEA_PIX_RGBA64, 33, 0), 264);
    CHECK_EQ_INT(fovea_plane_row_bytes(FOVEA_PIX_RGB48, 33, 1), 0);
    CHECK_EQ_INT(fovea_plane_height(FOVEA_PIX_I420, 1, 1), 1);
    CHECK_EQ_INT(fovea_plane_width(FOVEA_PIX_I420, 1, 1), 1);

    CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_I420, 33, 17), 33 * 17 + 2 * 17 * 9);
    CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_NV12, 33, 17), 33 * 17 + 34 * 9);
    CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_I422P10, 33, 17), 2 * (33 * 17 + 2 * 17 * 17));
    CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_I444P12, 5, 3), 2 * 3 * 15);
    CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_GRAY16, 4, 4), 32);
    CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_RGB24, 3840, 2160), 3840 * 2160 * 3);
    CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_RGBA, 16384, 16384), (1ll << 30));
    CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_RGB48, 3840, 2160), 3840 * 2160 * 6);
    if (sizeof(size_t) == 8)
        CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_RGBA64, 16384, 16384), (1ll << 31));
    CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_RGBA, 0, 16), 0);
    CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_RGBA, 16, -1), 0);
    CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_NONE, 16, 16), 0);
    CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_COUNT, 16, 16), 0);
    if (sizeof(size_t) == 8) /* three planes of ~2^63 bytes each overflow the sum */
        CHECK_EQ_INT(fovea_frame_packed_size(FOVEA_PIX_I444P16, INT_MAX, INT_MAX), 0);

    for (int fmt = FOVEA_PIX_GRAY8; fmt < FOVEA_PIX_COUNT; fmt++) {
        const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc((fovea_pixfmt)fmt);
        REQUIRE(d != NULL);
        CHECK(d->planes >= 1 && d->planes <= 3);
        CHECK_EQ_INT(fovea_pixfmt_from_name(d->name), fmt);
    }
    /* 16-bit RGB: packed, little-endian 16-bit samples, ffmpeg's names accepted */
    static const struct {
        const char *name;
        fovea_pixfmt fmt;
        int comps;
    } rgb16[] = {
        {"rgb48", FOVEA_PIX_RGB48, 3},     {"rgb48le", FOVEA_PIX_RGB48, 3},
        {"RGB48LE", FOVEA_PIX_RGB48, 3},   {"rgba64", FOVEA_PIX_RGBA64, 4},
        {"rgba64le", FOVEA_PIX_RGBA64, 4},
    };
    for (size_t i = 0; i < sizeof(rgb16) / sizeof(rgb16[0]); i++) {
        CHECK_EQ_INT(fovea_pixfmt_from_name(rgb16[i].name), rgb16[i].fmt);
        const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(rgb16[i].fmt);
        REQUIRE(d != NULL);
        CHECK(d->planes == 1 && d->bit_depth == 16 && d->bytes_per_sample == 2 &&
              d->components == rgb16[i].comps && d->is_rgb && !d->is_yuv);
    }
    CHECK(strcmp(fovea_pixfmt_name(FOVEA_PIX_RGB48), "rgb48") == 0);
    CHECK(strcmp(fovea_pixfmt_name(FOVEA_PIX_RGBA64), "rgba64") == 0);
    CHECK_EQ_INT(fovea_pixfmt_from_name("rgb48be"), FOVEA_PIX_NONE);
    CHECK(fovea_pixfmt_get_desc(FOVEA_PIX_NONE) == NULL);
    CHECK(fovea_pixfmt_get_desc(FOVEA_PIX_COUNT) == NULL);
}

static void test_copy_fill_equal(void)
{
    test_rng rng;
    test_rng_seed(&rng, 42);
    for (int fmt = FOVEA_PIX_GRAY8; fmt < FOVEA_PIX_COUNT; fmt++) {
        fovea_frame a, b;
        REQUIRE(fovea_frame_alloc(NULL, &a, 37, 23, (fovea_pixfmt)fmt, FOVEA_MEM_HOST) == 0);
        REQUIRE(fovea_frame_alloc(NULL, &b, 37, 23, (fovea_pixfmt)fmt, FOVEA_MEM_HOST) == 0);
        test_fill_random(&a, &rng);
        a.index = 1234;
        CHECK_EQ_INT(fovea_frame_fill(NULL, &b, 0xA5), FOVEA_OK);
        CHECK(!fovea_frame_equal(&a, &b));
        CHECK_EQ_INT(fovea_frame_copy(NULL, &b, &a), FOVEA_OK);
        CHECK(fovea_frame_equal(&a, &b));
        CHECK_EQ_INT(b.index, 1234);

        /* one sample changed in the last plane's last row is noticed */
        const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc((fovea_pixfmt)fmt);
        int p = d->planes - 1;
        int last = fovea_plane_height((fovea_pixfmt)fmt, 23, p) - 1;
        size_t row = fovea_plane_row_bytes((fovea_pixfmt)fmt, 37, p);
        b.data[p][(ptrdiff_t)last * b.stride[p] + (ptrdiff_t)row - 1] ^= 1;
        CHECK(!fovea_frame_equal(&a, &b));

        /* fill writes every sample of every plane */
        CHECK_EQ_INT(fovea_frame_fill(NULL, &b, 0x3C), FOVEA_OK);
        int all = 1;
        for (int q = 0; q < d->planes; q++) {
            size_t rb = fovea_plane_row_bytes((fovea_pixfmt)fmt, 37, q);
            for (int y = 0; y < fovea_plane_height((fovea_pixfmt)fmt, 23, q); y++)
                for (size_t x = 0; x < rb; x++)
                    all &= b.data[q][(ptrdiff_t)y * b.stride[q] + (ptrdiff_t)x] == 0x3C;
        }
        CHECK(all);
        fovea_frame_free(NULL, &a);
        fovea_frame_free(NULL, &b);
    }

    /* a frame wrapping caller memory with a tight stride */
    fovea_frame a, wrap;
    REQUIRE(fovea_frame_alloc(NULL, &a, 9, 5, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    test_fill_random(&a, &rng);
    uint8_t pixels[9 * 5];
    memset(pixels, 0, sizeof(pixels));
    memset(&wrap, 0, sizeof(wrap));
    wrap.width = 9;
    wrap.height = 5;
    wrap.fmt = FOVEA_PIX_GRAY8;
    wrap.mem = FOVEA_MEM_HOST;
    wrap.data[0] = pixels;
    wrap.stride[0] = 9;
    CHECK_EQ_INT(fovea_frame_copy(NULL, &wrap, &a), FOVEA_OK);
    CHECK(fovea_frame_equal(&a, &wrap));
    CHECK_EQ_INT(pixels[9 * 4 + 8], a.data[0][4 * a.stride[0] + 8]);
    fovea_frame_free(NULL, &wrap); /* only zeroes it */
    CHECK(wrap.data[0] == NULL);

    /* mismatched frames */
    fovea_frame c, g;
    REQUIRE(fovea_frame_alloc(NULL, &c, 9, 6, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    REQUIRE(fovea_frame_alloc(NULL, &g, 9, 5, FOVEA_PIX_I420, FOVEA_MEM_HOST) == 0);
    CHECK_EQ_INT(fovea_frame_copy(NULL, &c, &a), FOVEA_ERR_MISMATCH);
    CHECK_EQ_INT(fovea_frame_copy(NULL, &g, &a), FOVEA_ERR_MISMATCH);
    CHECK(!fovea_frame_equal(&a, &c));
    CHECK(!fovea_frame_equal(&a, &g));
    fovea_frame empty;
    memset(&empty, 0, sizeof(empty));
    CHECK_EQ_INT(fovea_frame_copy(NULL, &empty, &a), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_copy(NULL, NULL, &a), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_fill(NULL, &empty, 1), FOVEA_ERR_INVALID_ARG);
    CHECK(!fovea_frame_equal(&empty, &empty));
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &c);
    fovea_frame_free(NULL, &g);
}

/* fv_frame_copy_host: the staging copy of the CUDA backends, rows split over
 * the context's threads; every format, sizes small (one chunk) and large
 * (many chunks across planes), a mismatch refused */
static void test_copy_host_threads(void)
{
    test_rng rng;
    test_rng_seed(&rng, 7);
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    s.threads = 4;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
    static const int sizes[][2] = {{37, 23}, {1921, 1081}};
    for (int k = 0; k < 2; k++)
        for (int fmt = FOVEA_PIX_GRAY8; fmt < FOVEA_PIX_COUNT; fmt++) {
            const int w = sizes[k][0], h = sizes[k][1];
            fovea_frame a, b;
            REQUIRE(fovea_frame_alloc(NULL, &a, w, h, (fovea_pixfmt)fmt, FOVEA_MEM_HOST) == 0);
            REQUIRE(fovea_frame_alloc(NULL, &b, w, h, (fovea_pixfmt)fmt, FOVEA_MEM_HOST) == 0);
            test_fill_random(&a, &rng);
            a.index = 77;
            CHECK_EQ_INT(fovea_frame_fill(NULL, &b, 0x5A), FOVEA_OK);
            CHECK_EQ_INT(fv_frame_copy_host(ctx, &b, &a), FOVEA_OK);
            CHECK(fovea_frame_equal(&a, &b));
            CHECK_EQ_INT(b.index, 77);
            fovea_frame_free(NULL, &a);
            fovea_frame_free(NULL, &b);
        }
    fovea_frame a, b;
    REQUIRE(fovea_frame_alloc(NULL, &a, 16, 16, FOVEA_PIX_I420, FOVEA_MEM_HOST) == 0);
    REQUIRE(fovea_frame_alloc(NULL, &b, 16, 18, FOVEA_PIX_I420, FOVEA_MEM_HOST) == 0);
    CHECK_EQ_INT(fv_frame_copy_host(ctx, &b, &a), FOVEA_ERR_MISMATCH);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    fovea_close(&ctx);
}

static void test_pool(void)
{
    fovea_context *ctx = NULL;
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);

    fovea_frame_pool *pool = NULL;
    CHECK_EQ_INT(fovea_frame_pool_open(&pool, ctx, 0, 16, 16, FOVEA_PIX_I420, FOVEA_MEM_HOST),
                 FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_pool_open(&pool, ctx, 2, 0, 16, FOVEA_PIX_I420, FOVEA_MEM_HOST),
                 FOVEA_ERR_INVALID_ARG);
    CHECK(pool == NULL);
    REQUIRE(fovea_frame_pool_open(&pool, ctx, 3, 33, 17, FOVEA_PIX_I420, FOVEA_MEM_HOST) ==
            FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_pool_available(pool), 3);

    fovea_frame *f[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(fovea_frame_pool_get(pool, &f[i]), FOVEA_OK);
        REQUIRE(f[i] != NULL);
        CHECK_EQ_INT(f[i]->width, 33);
        CHECK_EQ_INT(f[i]->height, 17);
        CHECK_EQ_INT(f[i]->fmt, FOVEA_PIX_I420);
        CHECK_EQ_INT(fovea_frame_fill(ctx, f[i], (uint8_t)(i + 1)), FOVEA_OK);
    }
    CHECK(f[0] != f[1] && f[1] != f[2] && f[0] != f[2]);
    CHECK_EQ_INT(fovea_frame_pool_available(pool), 0);
    CHECK_EQ_INT(fovea_frame_pool_get(pool, &f[3]), FOVEA_ERR_NOMEM);
    CHECK(f[3] == NULL);
    CHECK(fovea_last_error(ctx)[0] != '\0');

    CHECK_EQ_INT(fovea_frame_pool_put(pool, f[1]), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_pool_available(pool), 1);
    CHECK_EQ_INT(fovea_frame_pool_put(pool, f[1]), FOVEA_ERR_INVALID_ARG); /* twice */
    CHECK_EQ_INT(fovea_frame_pool_get(pool, &f[3]), FOVEA_OK);
    CHECK(f[3] == f[1]);

    fovea_frame foreign;
    REQUIRE(fovea_frame_alloc(ctx, &foreign, 33, 17, FOVEA_PIX_I420, FOVEA_MEM_HOST) == 0);
    CHECK_EQ_INT(fovea_frame_pool_put(pool, &foreign), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_pool_put(pool, NULL), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_pool_put(NULL, f[0]), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_pool_get(NULL, &f[3]), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_pool_available(pool), 0);
    fovea_frame_free(ctx, &foreign);

    /* a second pool's frame is foreign too */
    fovea_frame_pool *other = NULL;
    fovea_frame *of = NULL;
    REQUIRE(fovea_frame_pool_open(&other, ctx, 1, 33, 17, FOVEA_PIX_I420, FOVEA_MEM_HOST) ==
            FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_pool_get(other, &of), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_pool_put(pool, of), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_pool_put(other, of), FOVEA_OK);
    fovea_frame_pool_close(&other);
    CHECK(other == NULL);

    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(fovea_frame_pool_put(pool, f[i]), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_pool_available(pool), 3);
    fovea_frame_pool_close(&pool);
    CHECK(pool == NULL);
    fovea_frame_pool_close(&pool); /* NULL is fine */
    fovea_close(&ctx);
}

static void test_status_and_names(void)
{
    static const int codes[] = {
        FOVEA_OK,       FOVEA_EOF,          FOVEA_ERR_INVALID_ARG, FOVEA_ERR_UNSUPPORTED,
        FOVEA_ERR_IO,   FOVEA_ERR_CORRUPT,  FOVEA_ERR_NOMEM,       FOVEA_ERR_NO_DEVICE,
        FOVEA_ERR_CUDA, FOVEA_ERR_MISMATCH, FOVEA_ERR_INTERNAL};
    const size_t n = sizeof(codes) / sizeof(codes[0]);
    const char *unknown = fovea_strerror(-1000);
    CHECK(unknown != NULL && unknown[0] != '\0');
    for (size_t i = 0; i < n; i++) {
        const char *a = fovea_strerror(codes[i]);
        CHECK(a != NULL && a[0] != '\0');
        if (!a)
            continue;
        CHECK(strcmp(a, unknown) != 0);
        for (size_t j = i + 1; j < n; j++) {
            const char *b = fovea_strerror(codes[j]);
            if (b && strcmp(a, b) == 0) {
                fprintf(stderr, "status %d and %d share the text '%s'\n", codes[i], codes[j], a);
                test_failures++;
            }
        }
    }

    fovea_backend b = FOVEA_BACKEND_CPU;
    CHECK_EQ_INT(fovea_backend_parse("auto", &b), FOVEA_OK);
    CHECK_EQ_INT(b, FOVEA_BACKEND_AUTO);
    CHECK_EQ_INT(fovea_backend_parse("cpu", &b), FOVEA_OK);
    CHECK_EQ_INT(b, FOVEA_BACKEND_CPU);
    CHECK_EQ_INT(fovea_backend_parse("cuda", &b), FOVEA_OK);
    CHECK_EQ_INT(b, FOVEA_BACKEND_CUDA);
    b = FOVEA_BACKEND_CPU;
    CHECK_EQ_INT(fovea_backend_parse("gpu", &b), FOVEA_OK);
    CHECK_EQ_INT(b, FOVEA_BACKEND_CUDA);
    b = FOVEA_BACKEND_CPU;
    CHECK_EQ_INT(fovea_backend_parse("", &b), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_backend_parse("cudax", &b), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_backend_parse(NULL, &b), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_backend_parse("cpu", NULL), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(b, FOVEA_BACKEND_CPU); /* untouched on failure */
    for (int k = FOVEA_BACKEND_AUTO; k <= FOVEA_BACKEND_CUDA; k++) {
        fovea_backend back;
        CHECK_EQ_INT(fovea_backend_parse(fovea_backend_name((fovea_backend)k), &back), FOVEA_OK);
        CHECK_EQ_INT(back, k);
    }
    CHECK(fovea_version() != NULL && fovea_version()[0] != '\0');
}

/* ---------------------------------------------------------------- thread pool */

typedef struct {
    fovea_context *ctx;
    atomic_int *hits; /* times each index was visited */
    atomic_llong sum;
    atomic_int bad_thread;
    int threads;
    atomic_int nested_ok; /* 1 until a nested call misbehaves */
    atomic_int nested_runs;
} pf_job;

static void inner_range(void *arg, int begin, int end, int thread)
{
    int *count = arg;
    (void)thread;
    for (int i = begin; i < end; i++)
        count[i]++;
}

static void sum_range(void *arg, int begin, int end, int thread)
{
    pf_job *j = arg;
    if (thread < 0 || thread >= j->threads)
        atomic_store(&j->bad_thread, 1);
    for (int i = begin; i < end; i++) {
        atomic_fetch_add(&j->hits[i], 1);
        atomic_fetch_add(&j->sum, (long long)i + 1);
    }
}

static void nested_range(void *arg, int begin, int end, int thread)
{
    pf_job *j = arg;
    sum_range(arg, begin, end, thread);
    /* a nested call from inside a job must complete (serially) and cover its range */
    int count[13];
    memset(count, 0, sizeof(count));
    fv_parallel_for(j->ctx, 13, 1, inner_range, count);
    for (int i = 0; i < 13; i++)
        if (count[i] != 1)
            atomic_store(&j->nested_ok, 0);
    atomic_fetch_add(&j->nested_runs, 1);
}

static void test_parallel_for(void)
{
    static const int thread_counts[] = {1, 2, 7};
    atomic_int *hits = calloc(1000, sizeof(*hits));
    REQUIRE(hits != NULL);
    for (size_t t = 0; t < sizeof(thread_counts) / sizeof(thread_counts[0]); t++) {
        fovea_context *ctx = NULL;
        fovea_settings s;
        fovea_default_settings(&s);
        s.backend = FOVEA_BACKEND_CPU;
        s.threads = thread_counts[t];
        REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
        CHECK_EQ_INT(fovea_context_threads(ctx), thread_counts[t]);
        int failures_before = test_failures;
        for (int n = 1; n <= 1000 && test_failures == failures_before; n++) {
            pf_job j;
            memset(&j, 0, sizeof(j));
            j.ctx = ctx;
            j.hits = hits;
            j.threads = thread_counts[t];
            atomic_store(&j.nested_ok, 1);
            for (int i = 0; i < n; i++)
                atomic_store(&hits[i], 0);
            int grain = 1 + n % 5;
            int nested = n % 97 == 0;
            fv_parallel_for(ctx, n, grain, nested ? nested_range : sum_range, &j);
            CHECK_EQ_INT(atomic_load(&j.sum), (long long)n * (n + 1) / 2);
            CHECK(!atomic_load(&j.bad_thread));
            int once = 1;
            for (int i = 0; i < n; i++)
                once &= atomic_load(&hits[i]) == 1;
            CHECK(once);
            if (nested) {
                CHECK(atomic_load(&j.nested_ok));
                CHECK(atomic_load(&j.nested_runs) >= 1);
            }
            if (test_failures != failures_before)
                fprintf(stderr, "  (threads %d, n %d, grain %d)\n", thread_counts[t], n, grain);
        }
        /* n <= 0 runs nothing */
        pf_job z;
        memset(&z, 0, sizeof(z));
        z.hits = hits;
        z.threads = thread_counts[t];
        fv_parallel_for(ctx, 0, 1, sum_range, &z);
        fv_parallel_for(ctx, -5, 1, sum_range, &z);
        CHECK_EQ_INT(atomic_load(&z.sum), 0);
        fovea_close(&ctx);
    }
    /* without a context the work runs serially on the caller */
    pf_job j;
    memset(&j, 0, sizeof(j));
    j.hits = hits;
    j.threads = 1;
    for (int i = 0; i < 100; i++)
        atomic_store(&hits[i], 0);
    fv_parallel_for(NULL, 100, 8, sum_range, &j);
    CHECK_EQ_INT(atomic_load(&j.sum), 5050);
    free(hits);
}

static void test_contexts(void)
{
    fovea_context *a = NULL, *b = NULL;
    fovea_settings s;
    fovea_default_settings(&s);
    CHECK_EQ_INT(s.backend, FOVEA_BACKEND_AUTO);
    CHECK_EQ_INT(s.threads, 0);
    CHECK(s.cuda_stream == NULL && s.log == NULL);

    s.backend = FOVEA_BACKEND_CPU;
    s.threads = 1;
    REQUIRE(fovea_open(&a, &s) == FOVEA_OK);
    s.threads = 3;
    REQUIRE(fovea_open(&b, &s) == FOVEA_OK);
    CHECK(a != b);
    CHECK_EQ_INT(fovea_context_threads(a), 1);
    CHECK_EQ_INT(fovea_context_threads(b), 3);
    CHECK_EQ_INT(fovea_context_backend(a), FOVEA_BACKEND_CPU);
    CHECK_EQ_INT(fovea_context_device(a), -1);
    CHECK(fovea_context_stream(a) == NULL);
    CHECK_EQ_INT(fovea_sync(a), FOVEA_OK);
    CHECK_EQ_INT(fovea_last_error(a)[0], '\0');

    /* both pools work while the other context is alive; errors stay per context */
    atomic_int hits[64];
    for (int k = 0; k < 2; k++) {
        pf_job j;
        memset(&j, 0, sizeof(j));
        j.hits = hits;
        j.threads = k ? 3 : 1;
        for (int i = 0; i < 64; i++)
            atomic_store(&hits[i], 0);
        fv_parallel_for(k ? b : a, 64, 1, sum_range, &j);
        CHECK_EQ_INT(atomic_load(&j.sum), 64 * 65 / 2);
    }
    fovea_frame_pool *pool = NULL;
    CHECK_EQ_INT(fovea_frame_pool_open(&pool, b, 0, 4, 4, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST),
                 FOVEA_ERR_INVALID_ARG);
    CHECK(fovea_last_error(b)[0] != '\0');
    CHECK_EQ_INT(fovea_last_error(a)[0], '\0');
    /* ordering CUDA streams needs a CUDA context */
    CHECK_EQ_INT(fovea_context_wait_stream(a, NULL), FOVEA_ERR_NO_DEVICE);
    CHECK_EQ_INT(fovea_context_signal_stream(a, NULL), FOVEA_ERR_NO_DEVICE);
    CHECK(strstr(fovea_last_error(a), "CUDA context") != NULL);
    CHECK_EQ_INT(fovea_context_wait_stream(NULL, NULL), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_context_signal_stream(NULL, NULL), FOVEA_ERR_INVALID_ARG);
    fovea_close(&a);
    CHECK(a == NULL);
    fovea_close(&b);
    fovea_close(&b); /* NULL is fine */
    fovea_close(NULL);

    /* threads = 0 means every CPU */
    s.threads = 0;
    REQUIRE(fovea_open(&a, &s) == FOVEA_OK);
    CHECK_EQ_INT(fovea_context_threads(a), fovea_cpu_count());
    fovea_close(&a);

    /* NULL settings = defaults (AUTO): works on any machine */
    REQUIRE(fovea_open(&a, NULL) == FOVEA_OK);
    CHECK(fovea_context_backend(a) == FOVEA_BACKEND_CPU ||
          fovea_context_backend(a) == FOVEA_BACKEND_CUDA);
    if (!test_have_gpu())
        CHECK_EQ_INT(fovea_context_backend(a), FOVEA_BACKEND_CPU);
    fovea_close(&a);

    CHECK_EQ_INT(fovea_open(NULL, &s), FOVEA_ERR_INVALID_ARG);
    s.threads = -1;
    CHECK_EQ_INT(fovea_open(&a, &s), FOVEA_ERR_INVALID_ARG);
    CHECK(a == NULL);
    s.threads = 100000;
    CHECK_EQ_INT(fovea_open(&a, &s), FOVEA_ERR_INVALID_ARG);
    /* the reason, not the previous call's message (issue 45) */
    CHECK(strstr(fovea_last_error(NULL), "threads 100000 out of range") != NULL);
    CHECK(strstr(fovea_last_error(NULL), "at most 1024") != NULL);
    s.threads = FOVEA_MAX_THREADS + 1;
    CHECK_EQ_INT(fovea_open(&a, &s), FOVEA_ERR_INVALID_ARG);
    s.threads = 1;
    s.backend = (fovea_backend)9;
    CHECK_EQ_INT(fovea_open(&a, &s), FOVEA_ERR_INVALID_ARG);
    s.backend = FOVEA_BACKEND_CPU;
    s.cuda_device = -1;
    CHECK_EQ_INT(fovea_open(&a, &s), FOVEA_ERR_INVALID_ARG);
    CHECK(a == NULL);
    CHECK_EQ_INT(fovea_sync(NULL), FOVEA_ERR_INVALID_ARG);
}

/* A frame whose stride is smaller than its row is refused by every function
 * that reads or writes it (issue 45: fovea_frame_copy wrote past the caller's
 * buffer), with a message naming the plane and the sizes. */
static void test_stride_checks(void)
{
    fovea_frame src = {0}, ok = {0};
    REQUIRE(fovea_frame_alloc(NULL, &src, 16, 8, FOVEA_PIX_I420, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &ok, 16, 8, FOVEA_PIX_I420, FOVEA_MEM_HOST) == FOVEA_OK);
    fovea_frame_fill(NULL, &src, 7);
    /* the caller's buffer: 8 bytes a luma row where a row has 16 */
    uint8_t *y = malloc(8 * 8), *u = malloc(8 * 4), *v = malloc(8 * 4);
    REQUIRE(y && u && v);
    fovea_frame bad = {0};
    bad.width = 16;
    bad.height = 8;
    bad.fmt = FOVEA_PIX_I420;
    bad.mem = FOVEA_MEM_HOST;
    bad.data[0] = y;
    bad.data[1] = u;
    bad.data[2] = v;
    bad.stride[0] = 8;
    bad.stride[1] = bad.stride[2] = 8;
    CHECK_EQ_INT(fovea_frame_copy(NULL, &bad, &src), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(NULL),
                 "destination frame: plane 0's stride 8 is smaller than its row (16 bytes)") !=
          NULL);
    CHECK_EQ_INT(fovea_frame_copy(NULL, &ok, &bad), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(NULL), "source frame: plane 0's stride 8") != NULL);
    CHECK_EQ_INT(fovea_frame_fill(NULL, &bad, 1), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(NULL), "frame: plane 0's stride 8") != NULL);
    CHECK_EQ_INT(fovea_frame_equal(&bad, &src), 0);
    CHECK_EQ_INT(fovea_frame_convert(NULL, &bad, &src, NULL), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(NULL), "convert: destination frame: plane 0's stride 8") != NULL);
    /* a chroma plane too: 4 bytes a row where a row has 8 */
    bad.stride[0] = 16;
    fovea_frame_free(NULL, &ok);
    free(y);
    y = malloc(16 * 8);
    REQUIRE(y != NULL);
    bad.data[0] = y;
    bad.stride[2] = 4;
    CHECK_EQ_INT(fovea_frame_copy(NULL, &bad, &src), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(NULL), "plane 2's stride 4 is smaller than its row (8 bytes)") !=
          NULL);
    /* the writer and the reader check theirs too */
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = 16;
    info.height = 8;
    info.fmt = FOVEA_PIX_I420;
    char *path = test_tmp_path(".y4m");
    fovea_writer *w = NULL;
    REQUIRE(fovea_writer_open(&w, NULL, path, FOVEA_CONTAINER_Y4M, &info) == FOVEA_OK);
    CHECK_EQ_INT(fovea_writer_write(w, &bad), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(NULL), "plane 2's stride 4") != NULL);
    CHECK_EQ_INT(fovea_writer_write(w, &src), FOVEA_OK);
    CHECK_EQ_INT(fovea_writer_finish(w), FOVEA_OK);
    fovea_writer_close(&w);
    fovea_reader *r = NULL;
    REQUIRE(fovea_reader_open(&r, NULL, path, NULL) == FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_read(r, &bad), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(NULL), "destination frame: plane 2's stride 4") != NULL);
    fovea_reader_close(&r);
    remove(path);
    free(path);
    free(y);
    free(u);
    free(v);
    fovea_frame_free(NULL, &src);
}

int main(void)
{
    test_alloc_limits();
    test_cuda_memory_without_device();
    test_geometry();
    test_copy_fill_equal();
    test_copy_host_threads();
    test_pool();
    test_status_and_names();
    test_parallel_for();
    test_contexts();
    test_stride_checks();
    return test_finish("test_core_frame");
}
