/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The delta stream encoder on a CUDA device: a CUDA encoder's messages are
 * byte-identical to a CPU encoder's, and its reconstruction equal, for
 * I420 8-bit at an odd size, I420P10 (with samples past 10 bits), I444,
 * GRAY8, GRAY16, RGBA (alpha changing alone), RGBA64, NV12 and RGB24; tiles
 * 8, 16, 64; T 0 and 3; keyframes by interval and by request; source frames
 * in host, pinned and device memory; the median3 filter on the device; the
 * frame info of every frame. Messages are checked after the pointers and the
 * frame info are poisoned. Device frames are refused by a CPU encoder. Exits
 * 77 (skipped) without a CUDA device. */
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/stream.h"
#include "testutil.h"

#ifdef FOVEA_HAVE_CUDA

static fovea_context *cctx, *gctx;
static long long frames_compared;

static const char *mem_name(fovea_memtype m)
{
    return m == FOVEA_MEM_DEVICE ? "device" : m == FOVEA_MEM_PINNED ? "pinned" : "host";
}

/* ---------------------------------------------------------------- scene */

static size_t row_samples(const fovea_frame *f, int p)
{
    return fovea_plane_row_bytes(f->fmt, f->width, p) /
           (size_t)fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample;
}

static int get_s(const fovea_frame *f, int p, size_t i, int y)
{
    const uint8_t *r = f->data[p] + (ptrdiff_t)y * f->stride[p];
    return fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample == 2 ? r[2 * i] | r[2 * i + 1] << 8
                                                                : r[i];
}

static void set_s(fovea_frame *f, int p, size_t i, int y, int v)
{
    uint8_t *r = f->data[p] + (ptrdiff_t)y * f->stride[p];
    if (fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample == 2) {
        r[2 * i] = (uint8_t)v;
        r[2 * i + 1] = (uint8_t)(v >> 8);
    } else {
        r[i] = (uint8_t)v;
    }
}

/* Frame k of a scene: a smooth gradient with a textured square moving over
 * it, a band whose samples creep by 0..2 a frame (resent every T + 1 frames or
 * so), a few random samples anywhere, and for packed RGBA an alpha that
 * changes alone in one corner; 16-bit containers of formats below 16 bits get
 * a few samples past the bit depth. */
static void scene(fovea_frame *f, int k, test_rng *r)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    const int maxval = (1 << d->bit_depth) - 1;
    for (int p = 0; p < d->planes; p++) {
        const int ph = fovea_plane_height(f->fmt, f->height, p);
        const size_t n = row_samples(f, p);
        if (k == 0)
            for (int y = 0; y < ph; y++)
                for (size_t i = 0; i < n; i++)
                    set_s(f, p, i, y,
                          (int)(((size_t)y * 3 + i * 2 + (size_t)p * 40 + 17) * (size_t)maxval /
                                (3 * (size_t)ph + 2 * n + 160)));
        /* the square: 1/4 of the plane's width, moving right and down */
        const size_t bx = (size_t)k * 5 % n;
        const int by = (k * 3) % ph;
        for (int y = by; y < by + ph / 4 + 1 && y < ph; y++)
            for (size_t i = bx; i < bx + n / 4 + 1 && i < n; i++)
                set_s(f, p, i, y,
                      (int)(((i - bx) * 37 + (size_t)(y - by) * 11 + (size_t)k * 5) %
                            (size_t)(maxval + 1)));
        /* the creeping band: row ph / 2 */
        for (size_t i = 0; i < n; i++) {
            const int v = get_s(f, p, i, ph / 2) + (int)test_rng_below(r, 3);
            set_s(f, p, i, ph / 2, v > maxval ? 0 : v);
        }
        for (int j = 0; j < 3; j++)
            set_s(f, p, test_rng_below(r, (uint32_t)n), (int)test_rng_below(r, (uint32_t)ph),
                  (int)test_rng_below(r, (uint32_t)maxval + 1));
        if (d->bytes_per_sample == 2 && d->bit_depth < 16 && k % 4 == 1)
            set_s(f, p, test_rng_below(r, (uint32_t)n), (int)test_rng_below(r, (uint32_t)ph),
                  (int)test_rng_below(r, 65536));
    }
    if (d->is_rgb && d->components == 4)
        set_s(f, 0, 3, f->height - 1, (get_s(f, 0, 3, f->height - 1) + 1 + k) & maxval);
}

/* ---------------------------------------------------------------- runs */

typedef struct run_case {
    fovea_pixfmt fmt;
    int w, h, tile, threshold, keyframe, frames;
    fovea_memtype mem; /* the CUDA encoder's source frames */
    fovea_diff_denoise_mode denoise;
    int request_at;  /* a keyframe requested before this frame (0: none) */
    int recon_every; /* compare the reconstructions every this many frames */
} run_case;

static void describe(const run_case *c, char *buf, size_t n)
{
    snprintf(buf, n, "%s %dx%d tile %d T=%d K=%d %s denoise %d", fovea_pixfmt_name(c->fmt), c->w,
             c->h, c->tile, c->threshold, c->keyframe, mem_name(c->mem), (int)c->denoise);
}

static fovea_stream_encoder *open_enc(fovea_context *ctx, const run_case *c)
{
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = c->w;
    info.height = c->h;
    info.fmt = c->fmt;
    info.fps_num = 25;
    info.fps_den = 1;
    fovea_stream_encoder_settings ss;
    fovea_stream_encoder_default_settings(&ss);
    ss.tile = c->tile;
    ss.threshold = c->threshold;
    ss.keyframe_interval = c->keyframe;
    ss.denoise = c->denoise;
    fovea_stream_encoder *e = NULL;
    const int st = fovea_stream_encoder_open(&e, ctx, &ss, &info);
    if (st != FOVEA_OK)
        fprintf(stderr, "encoder_open: %s\n", fovea_last_error(ctx));
    REQUIRE(st == FOVEA_OK);
    return e;
}

static int run(const run_case *c)
{
    char what[160];
    describe(c, what, sizeof what);
    const int failures = test_failures;
    fovea_stream_encoder *ce = open_enc(cctx, c), *ge = open_enc(gctx, c);
    const uint8_t *cm, *gm;
    size_t cn, gn;
    CHECK_EQ_INT(fovea_stream_encoder_hello(ce, &cm, &cn), FOVEA_OK);
    CHECK_EQ_INT(fovea_stream_encoder_hello(ge, &gm, &gn), FOVEA_OK);
    CHECK(cn == gn && memcmp(cm, gm, cn) == 0);
    CHECK(fovea_stream_encoder_reconstruction(ge) == NULL);

    fovea_frame src, in;
    memset(&src, 0, sizeof(src));
    memset(&in, 0, sizeof(in));
    REQUIRE(fovea_frame_alloc(NULL, &src, c->w, c->h, c->fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    if (c->mem != FOVEA_MEM_HOST)
        REQUIRE(fovea_frame_alloc(gctx, &in, c->w, c->h, c->fmt, c->mem) == FOVEA_OK);
    test_rng r;
    test_rng_seed(&r, 0x5eed0000u + (uint64_t)c->fmt * 131 + (uint64_t)c->tile);
    for (int k = 0; k < c->frames && test_failures == failures; k++) {
        scene(&src, k, &r);
        const fovea_frame *g = &src;
        if (c->mem != FOVEA_MEM_HOST) {
            REQUIRE(fovea_frame_copy(gctx, &in, &src) == FOVEA_OK);
            REQUIRE(fovea_sync(gctx) == FOVEA_OK);
            g = &in;
        }
        if (c->request_at && k == c->request_at) {
            fovea_stream_encoder_request_keyframe(ce);
            fovea_stream_encoder_request_keyframe(ge);
        }
        fovea_stream_frame_info cf, gf;
        memset(&cf, 0xA5, sizeof(cf));
        memset(&gf, 0x5A, sizeof(gf));
        cm = gm = (const uint8_t *)"poison";
        cn = gn = 7;
        const uint64_t ts = 40000u * (uint64_t)k + 3;
        int st = fovea_stream_encoder_encode(ce, &src, ts, &cm, &cn, &cf);
        if (st != FOVEA_OK) {
            fprintf(stderr, "%s frame %d: cpu encode: %s\n", what, k, fovea_last_error(cctx));
            test_failures++;
            break;
        }
        st = fovea_stream_encoder_encode(ge, g, ts, &gm, &gn, &gf);
        if (st != FOVEA_OK) {
            fprintf(stderr, "%s frame %d: cuda encode: %s\n", what, k, fovea_last_error(gctx));
            test_failures++;
            break;
        }
        if (cn != gn || memcmp(cm, gm, cn) != 0) {
            size_t at = 0;
            while (at < cn && at < gn && cm[at] == gm[at])
                at++;
            fprintf(stderr, "%s frame %d: messages of %zu and %zu bytes differ at byte %zu\n", what,
                    k, cn, gn, at);
            test_failures++;
        }
        CHECK_EQ_INT(gf.frame, k);
        CHECK_EQ_INT(gf.timestamp_us, ts);
        CHECK_EQ_INT(gf.keyframe, cf.keyframe);
        CHECK_EQ_INT(gf.tiles_sent, cf.tiles_sent);
        CHECK_EQ_INT(gf.tiles_changed, cf.tiles_changed);
        CHECK_EQ_INT(gf.tiles_total, cf.tiles_total);
        CHECK_EQ_INT(gf.bytes, gn);
        CHECK_EQ_INT(gf.raw_bytes, cf.raw_bytes);
        CHECK_EQ_INT(gf.checked_error, cf.checked_error);
        CHECK(gf.seconds >= 0.0 && gf.seconds < 60.0);
        const int want_key = k == 0 || (c->keyframe > 0 && k % c->keyframe == 0) ||
                             (c->request_at && k == c->request_at);
        CHECK_EQ_INT(gf.keyframe, want_key);
        if (c->recon_every > 0 && (k % c->recon_every == 0 || k == c->frames - 1)) {
            const fovea_frame *rc = fovea_stream_encoder_reconstruction(ce);
            const fovea_frame *rg = fovea_stream_encoder_reconstruction(ge);
            REQUIRE(rc && rg);
            CHECK(rg->mem != FOVEA_MEM_DEVICE);
            if (!fovea_frame_equal(rc, rg)) {
                fprintf(stderr, "%s frame %d: reconstructions differ\n", what, k);
                test_failures++;
            }
        }
        frames_compared++;
    }
    fovea_frame_free(NULL, &src);
    fovea_frame_free(gctx, &in);
    fovea_stream_encoder_close(&ce);
    fovea_stream_encoder_close(&ge);
    if (test_failures != failures)
        fprintf(stderr, "FAILED: %s\n", what);
    return test_failures == failures;
}

static void test_formats(void)
{
    static const struct {
        fovea_pixfmt fmt;
        int w, h;
    } fmts[] = {
        {FOVEA_PIX_I420, 67, 45},    {FOVEA_PIX_I420P10, 64, 48}, {FOVEA_PIX_I444, 70, 33},
        {FOVEA_PIX_GRAY8, 81, 40},   {FOVEA_PIX_GRAY16, 40, 27},  {FOVEA_PIX_RGBA, 66, 35},
        {FOVEA_PIX_RGBA64, 33, 30},  {FOVEA_PIX_NV12, 72, 50},    {FOVEA_PIX_RGB24, 65, 37},
        {FOVEA_PIX_I422P12, 49, 31},
    };
    static const int tiles[] = {8, 16, 64};
    static const int thresholds[] = {0, 3};
    static const fovea_memtype mems[] = {FOVEA_MEM_HOST, FOVEA_MEM_PINNED, FOVEA_MEM_DEVICE};
    int runs = 0, passed = 0;
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
        for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
            for (size_t h = 0; h < sizeof thresholds / sizeof thresholds[0]; h++) {
                run_case c;
                memset(&c, 0, sizeof(c));
                c.fmt = fmts[f].fmt;
                c.w = fmts[f].w;
                c.h = fmts[f].h;
                c.tile = tiles[t];
                c.threshold = thresholds[h];
                c.keyframe = 8;
                c.frames = 20;
                c.mem = mems[(f + t + h) % 3];
                c.request_at = 11;
                c.recon_every = 3;
                passed += run(&c);
                runs++;
            }
    printf("formats: %d of %d runs identical\n", passed, runs);
}

/* Every memory kind on one format; a 1080p stream of the bench's shape; the
 * median3 filter (the diff system's, on the device for the CUDA encoder). */
static void test_mems_and_sizes(void)
{
    static const fovea_memtype mems[] = {FOVEA_MEM_HOST, FOVEA_MEM_PINNED, FOVEA_MEM_DEVICE};
    for (int m = 0; m < 3; m++) {
        run_case c;
        memset(&c, 0, sizeof(c));
        c.fmt = FOVEA_PIX_I420;
        c.w = 130;
        c.h = 77;
        c.tile = 16;
        c.threshold = 2;
        c.frames = 12;
        c.mem = mems[m];
        c.recon_every = 1;
        run(&c);
        c.denoise = FOVEA_DIFF_DENOISE_MEDIAN3;
        run(&c);
        c.fmt = FOVEA_PIX_RGBA;
        c.denoise = FOVEA_DIFF_DENOISE_GAUSS5;
        run(&c);
    }
    run_case c;
    memset(&c, 0, sizeof(c));
    c.fmt = FOVEA_PIX_I420;
    c.w = 1920;
    c.h = 1080;
    c.tile = 16;
    c.threshold = 0;
    c.keyframe = 0;
    c.frames = 6;
    c.mem = FOVEA_MEM_DEVICE;
    c.recon_every = 5;
    run(&c);
    c.tile = 8; /* 32400 tiles: the scan's threads own 32 each */
    c.w = 1921;
    c.h = 1081;
    c.mem = FOVEA_MEM_HOST;
    c.threshold = 3;
    run(&c);
}

static void test_refused(void)
{
    run_case c;
    memset(&c, 0, sizeof(c));
    c.fmt = FOVEA_PIX_I420;
    c.w = 32;
    c.h = 32;
    c.tile = 16;
    fovea_stream_encoder *ce = open_enc(cctx, &c);
    fovea_frame d;
    memset(&d, 0, sizeof(d));
    REQUIRE(fovea_frame_alloc(gctx, &d, 32, 32, FOVEA_PIX_I420, FOVEA_MEM_DEVICE) == FOVEA_OK);
    REQUIRE(fovea_frame_fill(gctx, &d, 7) == FOVEA_OK);
    REQUIRE(fovea_sync(gctx) == FOVEA_OK);
    const uint8_t *m;
    size_t n;
    CHECK_EQ_INT(fovea_stream_encoder_encode(ce, &d, 0, &m, &n, NULL), FOVEA_ERR_UNSUPPORTED);
    CHECK(strstr(fovea_last_error(cctx), "device") != NULL);
    fovea_stream_encoder_close(&ce);
    /* the CUDA encoder takes it */
    fovea_stream_encoder *ge = open_enc(gctx, &c);
    CHECK_EQ_INT(fovea_stream_encoder_encode(ge, &d, 0, &m, &n, NULL), FOVEA_OK);
    const fovea_frame *rg = fovea_stream_encoder_reconstruction(ge);
    CHECK(rg && rg->data[0] && rg->data[0][0] == 7 && rg->data[2][rg->stride[2] * 15 + 15] == 7);
    fovea_stream_encoder_close(&ge);
    fovea_frame_free(gctx, &d);
}

int main(void)
{
    if (!test_have_gpu()) {
        printf("no CUDA device: skipped\n");
        return TEST_SKIP;
    }
    cctx = test_open_ctx(FOVEA_BACKEND_CPU, 2, NULL);
    gctx = test_open_ctx(FOVEA_BACKEND_CUDA, 2, NULL);
    test_refused();
    test_formats();
    test_mems_and_sizes();
    printf("%lld frames compared\n", frames_compared);
    fovea_close(&cctx);
    fovea_close(&gctx);
    return test_finish("test_gpu_stream");
}

#else

int main(void)
{
    printf("built without CUDA: skipped\n");
    return TEST_SKIP;
}

#endif
