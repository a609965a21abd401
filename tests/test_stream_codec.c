/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Delta stream encoder + decoder without sockets: lossless (T = 0) round trips
 * of every format at odd sizes, the bound |shown - source| <= T on every
 * sample for T > 0, no drift on a slow ramp, keyframes (interval, request,
 * the receiver's check), the decoder's frame always equal to the encoder's
 * reconstruction, and the same bytes for any thread count. */
#include <string.h>

#include "fovea/stream.h"
#include "testutil.h"

/* sample c of pixel x, row y of plane p (16-bit containers read whole) */
static int get_sample(const fovea_frame *f, int p, size_t i, int y)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    const uint8_t *row = f->data[p] + (ptrdiff_t)y * f->stride[p];
    return d->bytes_per_sample == 1 ? row[i] : row[2 * i] | (row[2 * i + 1] << 8);
}

static void set_sample(fovea_frame *f, int p, size_t i, int y, int v)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    uint8_t *row = f->data[p] + (ptrdiff_t)y * f->stride[p];
    if (d->bytes_per_sample == 1) {
        row[i] = (uint8_t)v;
    } else {
        row[2 * i] = (uint8_t)v;
        row[2 * i + 1] = (uint8_t)(v >> 8);
    }
}

static size_t samples_per_row(const fovea_frame *f, int p)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    return fovea_plane_row_bytes(f->fmt, f->width, p) / (size_t)d->bytes_per_sample;
}

/* largest |a - b| over every sample of every plane */
static int max_error(const fovea_frame *a, const fovea_frame *b)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(a->fmt);
    int worst = 0;
    for (int p = 0; p < d->planes; p++)
        for (int y = 0; y < fovea_plane_height(a->fmt, a->height, p); y++)
            for (size_t i = 0; i < samples_per_row(a, p); i++) {
                const int e = abs(get_sample(a, p, i, y) - get_sample(b, p, i, y));
                if (e > worst)
                    worst = e;
            }
    return worst;
}

/* The next frame of a scene: a block of new random samples moves across the
 * frame, a band drifts by small steps, the rest stays; alpha (plane 0's 4th
 * component) changes on its own in one corner. */
static void next_frame(fovea_frame *f, int k, test_rng *r)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    const int maxval = (1 << d->bit_depth) - 1;
    for (int p = 0; p < d->planes; p++) {
        const int ph = fovea_plane_height(f->fmt, f->height, p);
        const size_t n = samples_per_row(f, p);
        const int bx = (int)((size_t)(k * 7) % n), by = (k * 3) % ph;
        for (int y = by; y < by + ph / 3 + 1 && y < ph; y++)
            for (size_t i = (size_t)bx; i < (size_t)bx + n / 4 + 1 && i < n; i++)
                set_sample(f, p, i, y, (int)test_rng_below(r, (uint32_t)maxval + 1));
        for (size_t i = 0; i < n; i++) { /* row ph-1 drifts */
            const int v = get_sample(f, p, i, ph - 1) + (int)test_rng_below(r, 5) - 2;
            set_sample(f, p, i, ph - 1, v < 0 ? 0 : v > maxval ? maxval : v);
        }
        if (p == 0 && d->is_rgb && d->components == 4)
            set_sample(f, 0, 3, 0, (get_sample(f, 0, 3, 0) + 1 + k) & maxval);
    }
}

typedef struct run_opts {
    int threads, tile, threshold, keyframe, frames;
} run_opts;

/* Encode o->frames frames of the scene and decode every message; check the
 * decoded frame against the source (equal for T = 0, within T otherwise) and
 * the encoder's reconstruction (always equal). Returns the bytes sent; the
 * messages are appended to log when given. */
static size_t run_stream(fovea_pixfmt fmt, int w, int h, const run_opts *o, uint8_t **log,
                         size_t *log_len, int *max_checked)
{
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    cs.threads = o->threads;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &cs) == FOVEA_OK);
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = w;
    info.height = h;
    info.fmt = fmt;
    info.fps_num = 30;
    info.fps_den = 1;
    fovea_stream_encoder_settings ss;
    fovea_stream_encoder_default_settings(&ss);
    ss.tile = o->tile;
    ss.threshold = o->threshold;
    ss.keyframe_interval = o->keyframe;
    fovea_stream_encoder *enc = NULL;
    fovea_stream_decoder *dec = NULL;
    REQUIRE(fovea_stream_encoder_open(&enc, ctx, &ss, &info) == FOVEA_OK);
    REQUIRE(fovea_stream_decoder_open(&dec, ctx, NULL) == FOVEA_OK);
    const uint8_t *msg;
    size_t size, total = 0;
    fovea_stream_event ev;
    REQUIRE(fovea_stream_encoder_hello(enc, &msg, &size) == FOVEA_OK);
    CHECK_EQ_INT(fovea_stream_decoder_feed(dec, msg, size, &ev), FOVEA_OK);
    CHECK_EQ_INT(ev.type, FOVEA_STREAM_MSG_HELLO);
    CHECK(ev.info && ev.info->width == w && ev.info->height == h && ev.info->fmt == fmt);
    CHECK(ev.info && ev.info->fps_num == 30 && ev.threshold == o->threshold && ev.tile == o->tile);

    fovea_frame src;
    memset(&src, 0, sizeof(src));
    REQUIRE(fovea_frame_alloc(NULL, &src, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    test_rng r;
    test_rng_seed(&r, 1234);
    test_fill_random(&src, &r);
    for (int k = 0; k < o->frames; k++) {
        if (k > 0)
            next_frame(&src, k, &r);
        fovea_stream_frame_info fi;
        if (fovea_stream_encoder_encode(enc, &src, 1000u * (uint64_t)k, &msg, &size, &fi) !=
            FOVEA_OK) {
            fprintf(stderr, "encode: %s\n", fovea_last_error(ctx));
            test_failures++;
            break;
        }
        total += size;
        if (log) {
            *log = realloc(*log, *log_len + size);
            REQUIRE(*log);
            memcpy(*log + *log_len, msg, size);
            *log_len += size;
        }
        CHECK_EQ_INT(fi.frame, k);
        CHECK_EQ_INT(fi.bytes, size);
        const int want_key = k == 0 || (o->keyframe > 0 && k % o->keyframe == 0);
        CHECK_EQ_INT(fi.keyframe, want_key);
        if (fovea_stream_decoder_feed(dec, msg, size, &ev) != FOVEA_OK) {
            fprintf(stderr, "%s %dx%d frame %d: decode: %s\n", fovea_pixfmt_name(fmt), w, h, k,
                    fovea_last_error(ctx));
            test_failures++;
            break;
        }
        CHECK_EQ_INT(ev.type, want_key ? FOVEA_STREAM_MSG_KEYFRAME : FOVEA_STREAM_MSG_DELTA);
        REQUIRE(ev.frame);
        CHECK_EQ_INT(ev.fi.frame, k);
        CHECK_EQ_INT(ev.fi.timestamp_us, 1000 * k);
        CHECK_EQ_INT(ev.fi.tiles_sent, fi.tiles_sent);
        CHECK(fovea_frame_equal(ev.frame, fovea_stream_encoder_reconstruction(enc)));
        const int err = max_error(ev.frame, &src);
        if (err > o->threshold) {
            fprintf(stderr, "%s %dx%d T=%d frame %d: error %d\n", fovea_pixfmt_name(fmt), w, h,
                    o->threshold, k, err);
            test_failures++;
        }
        if (ev.fi.keyframe && k > 0) {
            CHECK(ev.fi.checked_error >= 0 && ev.fi.checked_error <= o->threshold);
            if (max_checked && ev.fi.checked_error > *max_checked)
                *max_checked = ev.fi.checked_error;
        }
    }
    REQUIRE(fovea_stream_encoder_end(enc, &msg, &size) == FOVEA_OK);
    CHECK_EQ_INT(fovea_stream_decoder_feed(dec, msg, size, &ev), FOVEA_OK);
    CHECK_EQ_INT(ev.type, FOVEA_STREAM_MSG_END);
    CHECK_EQ_INT(ev.end_frames, o->frames);
    fovea_frame_free(NULL, &src);
    fovea_stream_encoder_close(&enc);
    fovea_stream_decoder_close(&dec);
    CHECK(enc == NULL && dec == NULL);
    fovea_close(&ctx);
    return total;
}

static void test_lossless_formats(void)
{
    static const struct {
        fovea_pixfmt fmt;
        int w, h;
    } cases[] = {
        {FOVEA_PIX_I420, 37, 23},   {FOVEA_PIX_I420P10, 33, 19}, {FOVEA_PIX_I444, 41, 17},
        {FOVEA_PIX_GRAY8, 29, 31},  {FOVEA_PIX_GRAY16, 19, 21},  {FOVEA_PIX_I422P12, 35, 18},
        {FOVEA_PIX_I444P16, 17, 9}, {FOVEA_PIX_NV12, 39, 25},    {FOVEA_PIX_RGB24, 23, 27},
        {FOVEA_PIX_RGBA, 25, 19},   {FOVEA_PIX_RGB48, 21, 13},   {FOVEA_PIX_RGBA64, 18, 11},
        {FOVEA_PIX_I420, 1, 1},     {FOVEA_PIX_I420P10, 64, 48},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (int tile = 8; tile <= 16; tile *= 2) {
            run_opts o = {2, tile, 0, 4, 9};
            run_stream(cases[i].fmt, cases[i].w, cases[i].h, &o, NULL, NULL, NULL);
        }
    run_opts big = {2, 64, 0, 0, 3};
    run_stream(FOVEA_PIX_I420, 131, 67, &big, NULL, NULL, NULL);
}

static void test_threshold_bound(void)
{
    /* every sample of every frame within T (checked in run_stream), and the
     * bound is what saves bytes: T > 0 sends less than T = 0 */
    const fovea_pixfmt fmts[] = {FOVEA_PIX_I420, FOVEA_PIX_I420P10, FOVEA_PIX_RGBA,
                                 FOVEA_PIX_GRAY8};
    for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
        run_opts lossless = {2, 16, 0, 5, 12};
        run_opts lossy = {2, 16, 6, 5, 12};
        int checked = -1;
        const size_t b0 = run_stream(fmts[i], 67, 45, &lossless, NULL, NULL, NULL);
        const size_t b6 = run_stream(fmts[i], 67, 45, &lossy, NULL, NULL, &checked);
        CHECK(b6 < b0);
        CHECK(checked >= 0 && checked <= 6);
    }
}

/* Every sample rises by 1 per frame (wrapping at maxval): compared with the
 * previous input nothing would ever change beyond T and the receiver would
 * drift; against the reconstruction the error stays within T for 200 frames. */
static void test_slow_ramp(void)
{
    const fovea_pixfmt fmts[] = {FOVEA_PIX_I420, FOVEA_PIX_I420P10};
    for (size_t fi_ = 0; fi_ < 2; fi_++) {
        const fovea_pixfmt fmt = fmts[fi_];
        const int T = 3, w = 45, h = 29;
        fovea_context *ctx = NULL;
        fovea_settings cs;
        fovea_default_settings(&cs);
        cs.threads = 2;
        REQUIRE(fovea_open(&ctx, &cs) == FOVEA_OK);
        fovea_video_info info;
        fovea_video_info_init(&info);
        info.width = w;
        info.height = h;
        info.fmt = fmt;
        fovea_stream_encoder_settings ss;
        fovea_stream_encoder_default_settings(&ss);
        ss.threshold = T;
        ss.keyframe_interval = 0;
        fovea_stream_encoder *enc = NULL;
        fovea_stream_decoder *dec = NULL;
        REQUIRE(fovea_stream_encoder_open(&enc, ctx, &ss, &info) == FOVEA_OK);
        REQUIRE(fovea_stream_decoder_open(&dec, ctx, NULL) == FOVEA_OK);
        const uint8_t *msg;
        size_t size;
        fovea_stream_event ev;
        fovea_stream_encoder_hello(enc, &msg, &size);
        REQUIRE(fovea_stream_decoder_feed(dec, msg, size, &ev) == FOVEA_OK);
        fovea_frame src;
        memset(&src, 0, sizeof(src));
        REQUIRE(fovea_frame_alloc(NULL, &src, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
        test_rng r;
        test_rng_seed(&r, 77);
        /* start low enough that 200 steps do not wrap */
        const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
        const int top = (1 << d->bit_depth) - 1 - 200;
        for (int p = 0; p < d->planes; p++)
            for (int y = 0; y < fovea_plane_height(fmt, h, p); y++)
                for (size_t i = 0; i < samples_per_row(&src, p); i++)
                    set_sample(&src, p, i, y, (int)test_rng_below(&r, (uint32_t)top));
        int worst = 0, deltas_with_tiles = 0;
        for (int k = 0; k < 200; k++) {
            if (k > 0)
                for (int p = 0; p < d->planes; p++)
                    for (int y = 0; y < fovea_plane_height(fmt, h, p); y++)
                        for (size_t i = 0; i < samples_per_row(&src, p); i++)
                            set_sample(&src, p, i, y, get_sample(&src, p, i, y) + 1);
            fovea_stream_frame_info fi;
            REQUIRE(fovea_stream_encoder_encode(enc, &src, (uint64_t)k, &msg, &size, &fi) ==
                    FOVEA_OK);
            CHECK_EQ_INT(fi.keyframe, k == 0);
            deltas_with_tiles += !fi.keyframe && fi.tiles_sent > 0;
            REQUIRE(fovea_stream_decoder_feed(dec, msg, size, &ev) == FOVEA_OK);
            const int e = max_error(ev.frame, &src);
            if (e > worst)
                worst = e;
        }
        CHECK(worst <= T);
        CHECK(worst == T); /* the error does reach T: tiles are held until they must go */
        /* every tile is resent once every T + 1 frames: 199 / 4 rounds */
        CHECK_EQ_INT(deltas_with_tiles, 199 / (T + 1));
        fovea_frame_free(NULL, &src);
        fovea_stream_encoder_close(&enc);
        fovea_stream_decoder_close(&dec);
        fovea_close(&ctx);
    }
}

/* Keyframes on request; the same stream bytes for 1 and 3 threads. */
static void test_keyframes_and_threads(void)
{
    uint8_t *log1 = NULL, *log3 = NULL;
    size_t n1 = 0, n3 = 0;
    run_opts o1 = {1, 16, 2, 7, 15}, o3 = {3, 16, 2, 7, 15};
    run_stream(FOVEA_PIX_I420, 300, 200, &o1, &log1, &n1, NULL);
    run_stream(FOVEA_PIX_I420, 300, 200, &o3, &log3, &n3, NULL);
    CHECK(n1 == n3 && n1 > 0 && memcmp(log1, log3, n1) == 0);
    free(log1);
    free(log3);

    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, NULL) == FOVEA_OK);
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = 40;
    info.height = 30;
    info.fmt = FOVEA_PIX_GRAY8;
    fovea_stream_encoder *enc = NULL;
    REQUIRE(fovea_stream_encoder_open(&enc, ctx, NULL, &info) == FOVEA_OK);
    CHECK(fovea_stream_encoder_reconstruction(enc) == NULL);
    fovea_frame src;
    memset(&src, 0, sizeof(src));
    REQUIRE(fovea_frame_alloc(NULL, &src, 40, 30, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == FOVEA_OK);
    test_rng r;
    test_rng_seed(&r, 5);
    test_fill_random(&src, &r);
    const uint8_t *msg;
    size_t size;
    fovea_stream_frame_info fi;
    for (int k = 0; k < 5; k++) {
        if (k == 3)
            fovea_stream_encoder_request_keyframe(enc);
        REQUIRE(fovea_stream_encoder_encode(enc, &src, 0, &msg, &size, &fi) == FOVEA_OK);
        CHECK_EQ_INT(fi.keyframe, k == 0 || k == 3);
        /* an unchanged frame: a delta of no tiles, the bare headers */
        if (k > 0 && k != 3) {
            CHECK_EQ_INT(fi.tiles_sent, 0);
            CHECK_EQ_INT(size, FOVEA_STREAM_HEADER_SIZE + 36);
        }
    }
    /* the wrong frame is refused */
    fovea_frame other;
    memset(&other, 0, sizeof(other));
    REQUIRE(fovea_frame_alloc(NULL, &other, 41, 30, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == FOVEA_OK);
    CHECK_EQ_INT(fovea_stream_encoder_encode(enc, &other, 0, &msg, &size, &fi), FOVEA_ERR_MISMATCH);
    fovea_frame_free(NULL, &other);
    fovea_frame_free(NULL, &src);
    fovea_stream_encoder_close(&enc);

    /* bad settings */
    fovea_stream_encoder_settings ss;
    fovea_stream_encoder_default_settings(&ss);
    ss.tile = 12;
    CHECK_EQ_INT(fovea_stream_encoder_open(&enc, ctx, &ss, &info), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "tile 12") != NULL);
    fovea_stream_encoder_default_settings(&ss);
    ss.threshold = -1;
    CHECK_EQ_INT(fovea_stream_encoder_open(&enc, ctx, &ss, &info), FOVEA_ERR_INVALID_ARG);
    CHECK(enc == NULL);
    fovea_close(&ctx);
}

/* With denoising the filtered frame is what is sent: at T = 0 the receiver
 * shows exactly fovea_diff_denoise's output. */
static void test_denoise(void)
{
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, NULL) == FOVEA_OK);
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = 45;
    info.height = 31;
    info.fmt = FOVEA_PIX_I420;
    fovea_stream_encoder_settings ss;
    fovea_stream_encoder_default_settings(&ss);
    ss.denoise = FOVEA_DIFF_DENOISE_MEDIAN3;
    fovea_stream_encoder *enc = NULL;
    fovea_stream_decoder *dec = NULL;
    REQUIRE(fovea_stream_encoder_open(&enc, ctx, &ss, &info) == FOVEA_OK);
    REQUIRE(fovea_stream_decoder_open(&dec, ctx, NULL) == FOVEA_OK);
    fovea_diff_settings ds;
    fovea_diff_default_settings(&ds);
    ds.denoise = FOVEA_DIFF_DENOISE_MEDIAN3;
    fovea_diff *filter = NULL;
    REQUIRE(fovea_diff_open(&filter, ctx, &ds) == FOVEA_OK);
    fovea_frame src, want;
    memset(&src, 0, sizeof(src));
    memset(&want, 0, sizeof(want));
    REQUIRE(fovea_frame_alloc(NULL, &src, 45, 31, FOVEA_PIX_I420, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &want, 45, 31, FOVEA_PIX_I420, FOVEA_MEM_HOST) == FOVEA_OK);
    test_rng r;
    test_rng_seed(&r, 4242);
    test_fill_random(&src, &r);
    const uint8_t *msg;
    size_t size;
    fovea_stream_event ev;
    fovea_stream_encoder_hello(enc, &msg, &size);
    REQUIRE(fovea_stream_decoder_feed(dec, msg, size, &ev) == FOVEA_OK);
    for (int k = 0; k < 6; k++) {
        if (k > 0)
            next_frame(&src, k, &r);
        REQUIRE(fovea_stream_encoder_encode(enc, &src, 0, &msg, &size, NULL) == FOVEA_OK);
        REQUIRE(fovea_stream_decoder_feed(dec, msg, size, &ev) == FOVEA_OK);
        REQUIRE(fovea_diff_denoise(filter, &src, &want) == FOVEA_OK);
        CHECK(fovea_frame_equal(ev.frame, &want));
        CHECK(!fovea_frame_equal(ev.frame, &src)); /* the filter did something */
    }
    fovea_frame_free(NULL, &src);
    fovea_frame_free(NULL, &want);
    fovea_diff_close(&filter);
    fovea_stream_encoder_close(&enc);
    fovea_stream_decoder_close(&dec);
    fovea_close(&ctx);
}

int main(void)
{
    test_denoise();
    test_lossless_formats();
    test_threshold_bound();
    test_slow_ramp();
    test_keyframes_and_threads();
    return test_finish("test_stream_codec");
}
