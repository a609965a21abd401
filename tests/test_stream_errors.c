/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The delta stream decoder refuses what it must: every bit flipped, every
 * truncation, frames out of order or missing, messages out of place, fields
 * out of range behind a valid checksum, and limits; after an error it shows
 * nothing until a keyframe, and a keyframe brings it back. */
#include <string.h>

#include "fovea/stream.h"
#include "stream/stream_internal.h"
#include "testutil.h"

typedef struct msgbuf {
    uint8_t *p;
    size_t n;
} msgbuf;

static msgbuf copy_msg(const uint8_t *p, size_t n)
{
    msgbuf m = {malloc(n), n};
    REQUIRE(m.p);
    memcpy(m.p, p, n);
    return m;
}

/* hello, frames 0..4 (0 a keyframe, 3 a requested keyframe), end */
enum { N_MSG = 7 };
static msgbuf msgs[N_MSG];

static void make_stream(fovea_context *ctx)
{
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = 53;
    info.height = 37;
    info.fmt = FOVEA_PIX_I420;
    fovea_stream_encoder *enc = NULL;
    REQUIRE(fovea_stream_encoder_open(&enc, ctx, NULL, &info) == FOVEA_OK);
    const uint8_t *p;
    size_t n;
    fovea_stream_encoder_hello(enc, &p, &n);
    msgs[0] = copy_msg(p, n);
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    REQUIRE(fovea_frame_alloc(NULL, &f, info.width, info.height, info.fmt, FOVEA_MEM_HOST) == 0);
    test_rng r;
    test_rng_seed(&r, 99);
    test_fill_random(&f, &r);
    for (int k = 0; k < 5; k++) {
        /* change a few rows each frame */
        for (int y = 5 * k; y < 5 * k + 4; y++)
            for (int x = 0; x < 20; x++)
                f.data[0][y * f.stride[0] + x] = (uint8_t)test_rng_below(&r, 256);
        if (k == 3)
            fovea_stream_encoder_request_keyframe(enc);
        REQUIRE(fovea_stream_encoder_encode(enc, &f, 100 + (uint64_t)k, &p, &n, NULL) == 0);
        msgs[1 + k] = copy_msg(p, n);
    }
    fovea_stream_encoder_end(enc, &p, &n);
    msgs[6] = copy_msg(p, n);
    CHECK_EQ_INT(msgs[4].p[5], FOVEA_STREAM_MSG_KEYFRAME);
    CHECK_EQ_INT(msgs[2].p[5], FOVEA_STREAM_MSG_DELTA);
    fovea_frame_free(NULL, &f);
    fovea_stream_encoder_close(&enc);
}

static int feed(fovea_stream_decoder *d, const msgbuf *m, fovea_stream_event *ev)
{
    return fovea_stream_decoder_feed(d, m->p, m->n, ev);
}

static fovea_stream_decoder *fresh(fovea_context *ctx, int upto)
{
    fovea_stream_decoder *d = NULL;
    REQUIRE(fovea_stream_decoder_open(&d, ctx, NULL) == FOVEA_OK);
    fovea_stream_event ev;
    for (int i = 0; i < upto; i++)
        REQUIRE(feed(d, &msgs[i], &ev) == FOVEA_OK);
    return d;
}

/* an error gives no frame, and the decoder needs a keyframe afterwards */
static void expect_error(fovea_context *ctx, fovea_stream_decoder *d, const uint8_t *p, size_t n,
                         int status, const char *text)
{
    fovea_stream_event ev;
    const int st = fovea_stream_decoder_feed(d, p, n, &ev);
    if (st != status || (text && !strstr(fovea_last_error(ctx), text))) {
        fprintf(stderr, "expected %d '%s', got %d '%s'\n", status, text ? text : "", st,
                fovea_last_error(ctx));
        test_failures++;
    }
    CHECK(ev.frame == NULL && ev.type == FOVEA_STREAM_MSG_NONE);
    CHECK(!fovea_stream_decoder_synced(d));
}

static void test_bit_flips(fovea_context *ctx)
{
    /* every bit of a delta, of a keyframe and of the hello */
    const int which[3] = {2, 4, 0};
    for (int w = 0; w < 3; w++) {
        const msgbuf *m = &msgs[which[w]];
        uint8_t *bad = malloc(m->n);
        REQUIRE(bad);
        /* a refused message changes nothing but the need for a keyframe, so
         * one decoder serves every flip (a fresh one for the hello) */
        fovea_stream_decoder *d = fresh(ctx, which[w]);
        for (size_t bit = 0; bit < 8 * m->n; bit++) {
            memcpy(bad, m->p, m->n);
            bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            fovea_stream_event ev;
            const int st = fovea_stream_decoder_feed(d, bad, m->n, &ev);
            CHECK(st == FOVEA_ERR_CORRUPT || st == FOVEA_ERR_UNSUPPORTED);
            CHECK(ev.frame == NULL);
        }
        fovea_stream_decoder_close(&d);
        free(bad);
    }
}

static void test_truncation(fovea_context *ctx)
{
    for (int i = 0; i < N_MSG; i++)
        for (size_t n = 0; n < msgs[i].n; n += (n < 64 ? 1 : 13)) {
            fovea_stream_decoder *d = fresh(ctx, i);
            expect_error(ctx, d, msgs[i].p, n, FOVEA_ERR_CORRUPT, NULL);
            fovea_stream_decoder_close(&d);
        }
    /* one byte too many */
    fovea_stream_decoder *d = fresh(ctx, 2);
    uint8_t *longer = malloc(msgs[2].n + 1);
    memcpy(longer, msgs[2].p, msgs[2].n);
    longer[msgs[2].n] = 0;
    expect_error(ctx, d, longer, msgs[2].n + 1, FOVEA_ERR_CORRUPT, "declares");
    free(longer);
    fovea_stream_decoder_close(&d);
}

static void test_order(fovea_context *ctx)
{
    fovea_stream_event ev;
    /* a missing delta: the next one applies to a frame not shown */
    fovea_stream_decoder *d = fresh(ctx, 2);
    CHECK_EQ_INT(fovea_stream_decoder_shown(d), 0);
    expect_error(ctx, d, msgs[3].p, msgs[3].n, FOVEA_ERR_CORRUPT, "frames missing");
    /* not synced: deltas are refused until the keyframe of frame 3 */
    expect_error(ctx, d, msgs[2].p, msgs[2].n, FOVEA_ERR_CORRUPT, "waiting for a keyframe");
    CHECK_EQ_INT(feed(d, &msgs[4], &ev), FOVEA_OK);
    CHECK_EQ_INT(ev.type, FOVEA_STREAM_MSG_KEYFRAME);
    CHECK_EQ_INT(ev.fi.skipped, 2);        /* frames 1 and 2 */
    CHECK_EQ_INT(ev.fi.checked_error, -1); /* its base (2) was not shown */
    CHECK_EQ_INT(feed(d, &msgs[5], &ev), FOVEA_OK);
    CHECK_EQ_INT(fovea_stream_decoder_shown(d), 4);
    /* a duplicate, an older keyframe: out of order */
    expect_error(ctx, d, msgs[5].p, msgs[5].n, FOVEA_ERR_CORRUPT, "out of order");
    expect_error(ctx, d, msgs[1].p, msgs[1].n, FOVEA_ERR_CORRUPT, "out of order");
    CHECK_EQ_INT(feed(d, &msgs[6], &ev), FOVEA_OK);
    CHECK_EQ_INT(ev.type, FOVEA_STREAM_MSG_END);
    CHECK_EQ_INT(ev.end_frames, 5);
    expect_error(ctx, d, msgs[4].p, msgs[4].n, FOVEA_ERR_CORRUPT, "after the end");
    fovea_stream_decoder_close(&d);

    /* the in-order stream checks its keyframe of frame 3 against frame 2 */
    d = fresh(ctx, 4);
    CHECK_EQ_INT(feed(d, &msgs[4], &ev), FOVEA_OK);
    CHECK_EQ_INT(ev.fi.checked_error, 0);
    CHECK_EQ_INT(ev.fi.skipped, 0);
    fovea_stream_decoder_close(&d);

    /* out of place: a frame before the header, a second header, a request */
    d = fresh(ctx, 0);
    expect_error(ctx, d, msgs[1].p, msgs[1].n, FOVEA_ERR_CORRUPT, "before the stream header");
    expect_error(ctx, d, msgs[6].p, msgs[6].n, FOVEA_ERR_CORRUPT, "before the stream header");
    fovea_stream_decoder_close(&d);
    d = fresh(ctx, 1);
    expect_error(ctx, d, msgs[0].p, msgs[0].n, FOVEA_ERR_CORRUPT, "second stream header");
    uint8_t rq[FOVEA_STREAM_HEADER_SIZE + 8];
    CHECK_EQ_INT(fovea_stream_resync_message(-1, rq), sizeof(rq));
    expect_error(ctx, d, rq, sizeof(rq), FOVEA_ERR_CORRUPT, "for a sender");
    /* a delta first: no keyframe yet */
    expect_error(ctx, d, msgs[2].p, msgs[2].n, FOVEA_ERR_CORRUPT, "waiting for a keyframe");
    fovea_stream_decoder_close(&d);
}

/* A copy of message i with its payload changed by edit, then sealed again
 * (a valid checksum: only the decoder's field checks stand in the way). */
static msgbuf resealed(int i, void (*edit)(uint8_t *payload, size_t *n))
{
    msgbuf m = copy_msg(msgs[i].p, msgs[i].n);
    m.p = realloc(m.p, m.n + 64);
    size_t n = m.n - FOVEA_STREAM_HEADER_SIZE;
    edit(m.p + FOVEA_STREAM_HEADER_SIZE, &n);
    stream_seal(m.p, (fovea_stream_msg_type)m.p[5], n);
    m.n = FOVEA_STREAM_HEADER_SIZE + n;
    return m;
}

static void e_big(uint8_t *p, size_t *n)
{
    (void)n;
    put_u32(p, 16384);
    put_u32(p + 4, 16384);
    p[8] = 21;
}
static void e_fmt(uint8_t *p, size_t *n)
{
    (void)n;
    put_u16(p + 8, 99);
}
static void e_tile(uint8_t *p, size_t *n)
{
    (void)n;
    put_u16(p + 10, 12);
}
static void e_tag(uint8_t *p, size_t *n)
{
    (void)n;
    memset(p + 40, 'x', 16);
}
static void e_reserved(uint8_t *p, size_t *n)
{
    (void)n;
    p[60] = 1;
}
static void e_hello_len(uint8_t *p, size_t *n)
{
    (void)p;
    *n -= 1;
}
static void e_tiles(uint8_t *p, size_t *n)
{
    (void)n;
    put_u32(p + 24, get_u32(p + 24) + 1);
}
static void e_groups0(uint8_t *p, size_t *n)
{
    (void)n;
    put_u32(p + 28, 0);
}
static void e_base(uint8_t *p, size_t *n)
{
    (void)n;
    put_u64(p + 16, 7);
}
static void e_maplen(uint8_t *p, size_t *n)
{
    (void)n;
    put_u32(p + 32, 1u << 30);
}
static void e_gsize(uint8_t *p, size_t *n)
{
    (void)n;
    const size_t m = get_u32(p + 32);
    put_u32(p + 36 + m + 4, get_u32(p + 36 + m + 4) + 5);
}
static void e_gcount(uint8_t *p, size_t *n)
{
    (void)n;
    const size_t m = get_u32(p + 32);
    put_u32(p + 36 + m, 0);
}
static void e_zstd(uint8_t *p, size_t *n)
{
    (void)n;
    const size_t m = get_u32(p + 32);
    p[36 + m + 8] ^= 0x55; /* the group's zstd frame magic */
}
static void e_trailing(uint8_t *p, size_t *n)
{
    p[*n] = 0;
    *n += 1;
}
static void e_end_len(uint8_t *p, size_t *n)
{
    p[*n] = 0;
    *n += 1;
}

static void test_fields(fovea_context *ctx)
{
    static const struct {
        int msg, upto;
        void (*edit)(uint8_t *, size_t *);
        int status;
        const char *text;
    } cases[] = {
        {0, 0, e_big, FOVEA_ERR_CORRUPT, "over the limit"},
        {0, 0, e_fmt, FOVEA_ERR_UNSUPPORTED, "pixel format code 99"},
        {0, 0, e_tile, FOVEA_ERR_CORRUPT, "tile 12"},
        {0, 0, e_tag, FOVEA_ERR_CORRUPT, "chroma tag"},
        {0, 0, e_reserved, FOVEA_ERR_CORRUPT, "reserved"},
        {0, 0, e_hello_len, FOVEA_ERR_CORRUPT, "stream header of 63 bytes"},
        {2, 2, e_tiles, FOVEA_ERR_CORRUPT, "the map marks"},
        {1, 1, e_tiles, FOVEA_ERR_CORRUPT, "carries"},
        {2, 2, e_groups0, FOVEA_ERR_CORRUPT, "groups for"},
        {2, 2, e_base, FOVEA_ERR_CORRUPT, "applies to frame 7"},
        {4, 4, e_base, FOVEA_ERR_CORRUPT, "base 7"},
        {2, 2, e_maplen, FOVEA_ERR_CORRUPT, "past the end"},
        {2, 2, e_gsize, FOVEA_ERR_CORRUPT, "left in the message"},
        {2, 2, e_gcount, FOVEA_ERR_CORRUPT, "group 0 of 0 tiles"},
        {1, 1, e_zstd, FOVEA_ERR_CORRUPT, "group 0"},
        {2, 2, e_trailing, FOVEA_ERR_CORRUPT, "after the last group"},
        {6, 6, e_end_len, FOVEA_ERR_CORRUPT, "end message of 9 bytes"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        msgbuf m = resealed(cases[i].msg, cases[i].edit);
        fovea_stream_decoder *d = fresh(ctx, cases[i].upto);
        expect_error(ctx, d, m.p, m.n, cases[i].status, cases[i].text);
        fovea_stream_decoder_close(&d);
        free(m.p);
    }
}

static void test_header_and_limits(fovea_context *ctx)
{
    uint8_t h[FOVEA_STREAM_HEADER_SIZE];
    memcpy(h, msgs[1].p, sizeof(h));
    fovea_stream_msg_type type;
    size_t n;
    CHECK_EQ_INT(fovea_stream_parse_header(ctx, h, NULL, &type, &n), FOVEA_OK);
    CHECK(type == FOVEA_STREAM_MSG_KEYFRAME && n + FOVEA_STREAM_HEADER_SIZE == msgs[1].n);
    fovea_stream_limits lim;
    fovea_stream_limits_init(&lim);
    lim.max_message_bytes = n - 1;
    CHECK_EQ_INT(fovea_stream_parse_header(ctx, h, &lim, &type, &n), FOVEA_ERR_CORRUPT);
    CHECK(strstr(fovea_last_error(ctx), "over the limit") != NULL);
    for (int v = FOVEA_STREAM_VERSION - 1; v <= FOVEA_STREAM_VERSION + 1; v += 2) {
        char want[32];
        snprintf(want, sizeof want, "version %d;", v);
        h[4] = (uint8_t)v;
        CHECK_EQ_INT(fovea_stream_parse_header(ctx, h, NULL, &type, &n), FOVEA_ERR_UNSUPPORTED);
        CHECK(strstr(fovea_last_error(ctx), want) != NULL);
    }
    h[4] = FOVEA_STREAM_VERSION;
    h[5] = 9;
    CHECK_EQ_INT(fovea_stream_parse_header(ctx, h, NULL, &type, &n), FOVEA_ERR_CORRUPT);
    h[5] = 2;
    h[0] = 'X';
    CHECK_EQ_INT(fovea_stream_parse_header(ctx, h, NULL, &type, &n), FOVEA_ERR_CORRUPT);
    CHECK(strstr(fovea_last_error(ctx), "bad magic") != NULL);

    /* a decoder whose frame limit is below the stream's frame size */
    fovea_stream_limits_init(&lim);
    lim.max_frame_bytes = 53 * 37;
    fovea_stream_decoder *d = NULL;
    REQUIRE(fovea_stream_decoder_open(&d, ctx, &lim) == FOVEA_OK);
    expect_error(ctx, d, msgs[0].p, msgs[0].n, FOVEA_ERR_CORRUPT, "over the limit");
    fovea_stream_decoder_close(&d);
    fovea_stream_decoder_close(&d); /* safe on NULL */
}

/* REFUSED (a sender turning a receiver away) comes first or not at all, with
 * its 8 bytes; the decoder then takes nothing more. */
static void test_refused(fovea_context *ctx)
{
    uint8_t m[FOVEA_STREAM_HEADER_SIZE + STREAM_REFUSED_SIZE];
    const size_t n = stream_refused_message(FOVEA_STREAM_REFUSED_FULL, 7, m);
    CHECK_EQ_INT((int)n, FOVEA_STREAM_HEADER_SIZE + 8);
    CHECK_EQ_INT(m[5], FOVEA_STREAM_MSG_REFUSED);
    fovea_stream_decoder *d = fresh(ctx, 0);
    fovea_stream_event ev;
    CHECK_EQ_INT(fovea_stream_decoder_feed(d, m, n, &ev), FOVEA_OK);
    CHECK_EQ_INT(ev.type, FOVEA_STREAM_MSG_REFUSED);
    CHECK_EQ_INT(ev.refused_reason, FOVEA_STREAM_REFUSED_FULL);
    CHECK_EQ_INT(ev.refused_max_clients, 7);
    expect_error(ctx, d, msgs[0].p, msgs[0].n, FOVEA_ERR_CORRUPT, NULL);
    fovea_stream_decoder_close(&d);
    d = fresh(ctx, 1); /* after HELLO */
    expect_error(ctx, d, m, n, FOVEA_ERR_CORRUPT, "refusal after the stream header");
    fovea_stream_decoder_close(&d);
    /* a payload of another size */
    uint8_t big[FOVEA_STREAM_HEADER_SIZE + 12];
    memset(big, 0, sizeof big);
    stream_seal(big, FOVEA_STREAM_MSG_REFUSED, 12);
    d = fresh(ctx, 0);
    expect_error(ctx, d, big, sizeof big, FOVEA_ERR_CORRUPT, "refusal message of 12 bytes");
    fovea_stream_decoder_close(&d);
}

int main(void)
{
    fovea_context *ctx = NULL;
    fovea_settings s;
    fovea_default_settings(&s);
    s.threads = 2;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
    make_stream(ctx);
    test_bit_flips(ctx);
    test_truncation(ctx);
    test_order(ctx);
    test_fields(ctx);
    test_header_and_limits(ctx);
    test_refused(ctx);
    for (int i = 0; i < N_MSG; i++)
        free(msgs[i].p);
    fovea_close(&ctx);
    return test_finish("test_stream_errors");
}
