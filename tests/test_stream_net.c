/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The delta stream over TCP on loopback, in one process (receivers on
 * threads): several receivers get every frame exactly, one that disconnects
 * or is turned away does not disturb the others, one that stops reading is
 * dropped back and resynchronized with a keyframe, a keyframe request is
 * answered, and malformed peers on either side end in clean errors. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <netdb.h>

#include "fovea/stream.h"
#include "stream/net.h"
#include "testutil.h"

#define W 160
#define H 120

/* frame k of the test stream: a new random picture every frame, except that
 * frames with k % 4 == 3 repeat the one before (a delta of nothing) */
static void make_frame(fovea_frame *f, int k)
{
    test_rng r;
    test_rng_seed(&r, (uint64_t)(k % 4 == 3 ? k - 1 : k) * 7919 + 1);
    test_fill_random(f, &r);
}

static atomic_int resume_slow;   /* the slow receiver may read again */
static atomic_int slow_resynced; /* it got a keyframe after frames it missed */
static atomic_int requested_at;  /* frame after which a receiver asked for a keyframe */

typedef struct rx {
    char addr[128];
    int stop_after; /* disconnect after this many frames (-1: never) */
    int slow;       /* stop reading after the first frame until resume_slow */
    int request_at; /* ask for a keyframe after this frame (-1: never) */
    /* results */
    int status; /* of the last client call */
    char err[512];
    int frames, mismatches, ended, hello, key_after_request;
    int refused_reason, refused_max; /* REFUSED: why, the sender's max_clients */
    int64_t first, last, end_frames, skipped;
} rx;

static void *receiver(void *arg)
{
    rx *r = arg;
    fovea_context *ctx = NULL;
    fovea_settings s;
    fovea_default_settings(&s);
    s.threads = 1;
    if (fovea_open(&ctx, &s) != FOVEA_OK)
        return NULL;
    fovea_stream_client_settings cs;
    fovea_stream_client_default_settings(&cs);
    cs.timeout_ms = 20000;
    fovea_stream_client *c = NULL;
    fovea_frame want;
    memset(&want, 0, sizeof(want));
    r->first = r->last = -1;
    r->status = fovea_stream_client_open(&c, ctx, r->addr, &cs);
    if (r->status == FOVEA_OK)
        r->status = fovea_frame_alloc(NULL, &want, W, H, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST);
    while (r->status == FOVEA_OK) {
        fovea_stream_event ev;
        r->status = fovea_stream_client_next(c, &ev);
        if (r->status != FOVEA_OK)
            break;
        if (ev.type == FOVEA_STREAM_MSG_HELLO) {
            r->hello = ev.info && ev.info->width == W && ev.info->height == H;
            continue;
        }
        if (ev.type == FOVEA_STREAM_MSG_REFUSED) {
            r->refused_reason = ev.refused_reason;
            r->refused_max = ev.refused_max_clients;
            r->status = fovea_stream_client_next(c, &ev); /* FOVEA_EOF */
            break;
        }
        if (ev.type == FOVEA_STREAM_MSG_END) {
            r->ended = 1;
            r->end_frames = ev.end_frames;
            r->status = fovea_stream_client_next(c, &ev); /* FOVEA_EOF */
            break;
        }
        const int64_t k = ev.fi.frame;
        if (r->first < 0)
            r->first = k;
        r->last = k;
        r->skipped += ev.fi.skipped;
        make_frame(&want, (int)k);
        r->mismatches += !fovea_frame_equal(ev.frame, &want);
        r->frames++;
        if (r->slow && ev.fi.keyframe && ev.fi.skipped > 0)
            atomic_store(&slow_resynced, 1);
        if (r->request_at >= 0 && atomic_load(&requested_at) >= 0 && ev.fi.keyframe &&
            k > atomic_load(&requested_at))
            r->key_after_request = 1;
        if (r->slow && r->frames == 1)
            while (!atomic_load(&resume_slow)) {
                const struct timespec ms = {0, 1000000};
                nanosleep(&ms, NULL);
            }
        if (r->request_at >= 0 && k == r->request_at) {
            atomic_store(&requested_at, (int)k);
            r->status = fovea_stream_client_request_keyframe(c);
        }
        if (r->stop_after >= 0 && r->frames >= r->stop_after)
            break;
    }
    if (r->status < 0)
        snprintf(r->err, sizeof r->err, "%s", fovea_last_error(ctx));
    fovea_frame_free(NULL, &want);
    fovea_stream_client_close(&c);
    fovea_close(&ctx);
    return NULL;
}

typedef struct server_run {
    fovea_context *ctx;
    fovea_stream_encoder *enc;
    fovea_stream_server *srv;
    fovea_frame f;
} server_run;

static void server_open(server_run *s, const fovea_stream_server_settings *ss)
{
    memset(s, 0, sizeof(*s));
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.threads = 2;
    REQUIRE(fovea_open(&s->ctx, &cs) == FOVEA_OK);
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = W;
    info.height = H;
    info.fmt = FOVEA_PIX_GRAY8;
    fovea_stream_encoder_settings es;
    fovea_stream_encoder_default_settings(&es);
    es.keyframe_interval = 0;
    es.zstd_level = 1;
    REQUIRE(fovea_stream_encoder_open(&s->enc, s->ctx, &es, &info) == FOVEA_OK);
    const uint8_t *hello;
    size_t n;
    fovea_stream_encoder_hello(s->enc, &hello, &n);
    REQUIRE(fovea_stream_server_open(&s->srv, s->ctx, "127.0.0.1:0", hello, n, ss) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &s->f, W, H, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == FOVEA_OK);
}

static void start_rx(pthread_t *th, rx *r, const server_run *s)
{
    snprintf(r->addr, sizeof r->addr, "%s", fovea_stream_server_address(s->srv));
    REQUIRE(pthread_create(th, NULL, receiver, r) == 0);
}

/* Poll until n receivers are connected (at most 10 s). */
static void wait_clients(server_run *s, int n)
{
    fovea_stream_server_stats st;
    for (int i = 0; i < 1000; i++) {
        fovea_stream_server_get_stats(s->srv, &st);
        if (st.clients >= n)
            return;
        fovea_stream_server_poll(s->srv, 10);
    }
    fprintf(stderr, "only %d of %d receivers connected\n", st.clients, n);
    test_failures++;
}

/* Send frames from k on until done() (checked after min frames), at most max. */
static int serve(server_run *s, int k, int min, int max, int (*done)(server_run *))
{
    for (; k < max; k++) {
        CHECK_EQ_INT(fovea_stream_server_poll(s->srv, 0), FOVEA_OK);
        if (fovea_stream_server_keyframe_wanted(s->srv))
            fovea_stream_encoder_request_keyframe(s->enc);
        make_frame(&s->f, k);
        const uint8_t *m;
        size_t n;
        REQUIRE(fovea_stream_encoder_encode(s->enc, &s->f, (uint64_t)k, &m, &n, NULL) == FOVEA_OK);
        CHECK_EQ_INT(fovea_stream_server_send(s->srv, m, n), FOVEA_OK);
        if (k + 1 >= min && (!done || done(s)))
            return k + 1;
        if (done) /* give the receivers time to move */
            fovea_stream_server_poll(s->srv, 1);
    }
    fprintf(stderr, "the condition was not met within %d frames\n", max);
    test_failures++;
    return k;
}

static void server_end(server_run *s, int expect_ok)
{
    const uint8_t *m;
    size_t n;
    fovea_stream_encoder_end(s->enc, &m, &n);
    CHECK_EQ_INT(fovea_stream_server_send(s->srv, m, n), FOVEA_OK);
    const int st = fovea_stream_server_finish(s->srv, 10000);
    if (expect_ok && st != FOVEA_OK) {
        fprintf(stderr, "finish: %s\n", fovea_last_error(s->ctx));
        test_failures++;
    }
}

static void server_close(server_run *s)
{
    fovea_frame_free(NULL, &s->f);
    fovea_stream_server_close(&s->srv);
    CHECK(s->srv == NULL);
    fovea_stream_encoder_close(&s->enc);
    fovea_close(&s->ctx);
}

static void check_whole(const rx *r, int frames, const char *who)
{
    if (r->status != FOVEA_EOF || !r->ended || !r->hello || r->mismatches || r->first != 0 ||
        r->frames != frames || r->end_frames != frames) {
        fprintf(stderr,
                "%s: status %d (%s) ended %d hello %d mismatches %d first %lld frames %d "
                "end %lld, expected %d frames\n",
                who, r->status, r->err, r->ended, r->hello, r->mismatches, (long long)r->first,
                r->frames, (long long)r->end_frames, frames);
        test_failures++;
    }
}

/* A receiver that skipped frames: every frame it showed right, none after
 * the last, the ones it missed counted by its keyframes. */
static void check_resynced(const rx *r, int frames, const char *who)
{
    if (r->status != FOVEA_EOF || !r->ended || r->mismatches || r->first != 0 ||
        r->last != frames - 1 || r->frames + r->skipped != frames) {
        fprintf(stderr,
                "%s: status %d (%s) ended %d mismatches %d first %lld last %lld frames %d "
                "skipped %lld, expected %d frames\n",
                who, r->status, r->err, r->ended, r->mismatches, (long long)r->first,
                (long long)r->last, r->frames, (long long)r->skipped, frames);
        test_failures++;
    }
}

/* Two receivers get every frame; a third disconnects after 5 frames. */
static void test_receivers(void)
{
    fovea_stream_server_settings ss;
    fovea_stream_server_default_settings(&ss);
    server_run s;
    server_open(&s, &ss);
    CHECK(strncmp(fovea_stream_server_address(s.srv), "127.0.0.1:", 10) == 0);
    rx r[3];
    memset(r, 0, sizeof(r));
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        r[i].stop_after = i == 2 ? 5 : -1;
        r[i].request_at = -1;
        start_rx(&th[i], &r[i], &s);
    }
    wait_clients(&s, 3);
    const int frames = serve(&s, 0, 40, 40, NULL);
    server_end(&s, 1);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    check_whole(&r[0], frames, "receiver 0");
    check_whole(&r[1], frames, "receiver 1");
    CHECK_EQ_INT(r[2].frames, 5);
    CHECK_EQ_INT(r[2].mismatches, 0);
    fovea_stream_server_stats st;
    fovea_stream_server_get_stats(s.srv, &st);
    CHECK_EQ_INT(st.accepted, 3);
    CHECK_EQ_INT(st.disconnected, 1);
    CHECK_EQ_INT(st.clients, 0);
    CHECK(st.bytes_sent > 0);
    server_close(&s);
}

static int slow_done(server_run *s)
{
    fovea_stream_server_stats st;
    fovea_stream_server_get_stats(s->srv, &st);
    if (st.resyncs > 0)
        atomic_store(&resume_slow, 1);
    return atomic_load(&slow_resynced);
}

/* A receiver that stops reading is dropped back past max_queue and comes back
 * with a keyframe; the other one misses nothing. */
static void test_slow_receiver(void)
{
    fovea_stream_server_settings ss;
    fovea_stream_server_default_settings(&ss);
    ss.max_queue = 200 << 10;
    ss.sndbuf = 16 << 10;
    server_run s;
    server_open(&s, &ss);
    rx r[2];
    memset(r, 0, sizeof(r));
    pthread_t th[2];
    r[0].stop_after = r[1].stop_after = -1;
    r[0].request_at = r[1].request_at = -1;
    r[1].slow = 1;
    for (int i = 0; i < 2; i++)
        start_rx(&th[i], &r[i], &s);
    wait_clients(&s, 2);
    const int frames = serve(&s, 0, 10, 3000, slow_done);
    server_end(&s, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    check_whole(&r[0], frames, "fast receiver");
    fovea_stream_server_stats st;
    fovea_stream_server_get_stats(s.srv, &st);
    CHECK(st.resyncs >= 1);
    check_resynced(&r[1], frames, "slow receiver");
    CHECK(r[1].skipped > 0);
    server_close(&s);
}

static int request_done(server_run *s)
{
    fovea_stream_server_stats st;
    fovea_stream_server_get_stats(s->srv, &st);
    return st.resync_requests > 0 && fovea_stream_server_keyframe_wanted(s->srv) == 0;
}

/* A RESYNC is answered with a keyframe; max_clients turns the next one away,
 * telling it why (REFUSED: full, and the limit) before closing. */
static void test_request_and_refusal(void)
{
    fovea_stream_server_settings ss;
    fovea_stream_server_default_settings(&ss);
    ss.max_clients = 1;
    server_run s;
    server_open(&s, &ss);
    atomic_store(&requested_at, -1);
    rx r[2];
    memset(r, 0, sizeof(r));
    pthread_t th[2];
    r[0].stop_after = r[1].stop_after = -1;
    r[0].request_at = 3;
    r[1].request_at = -1;
    start_rx(&th[0], &r[0], &s);
    wait_clients(&s, 1);
    start_rx(&th[1], &r[1], &s);
    for (int i = 0; i < 1000; i++) { /* the server turns it away when it polls */
        fovea_stream_server_stats st;
        fovea_stream_server_get_stats(s.srv, &st);
        if (st.refused)
            break;
        fovea_stream_server_poll(s.srv, 10);
    }
    pthread_join(th[1], NULL);
    CHECK_EQ_INT(r[1].status, FOVEA_EOF);
    CHECK_EQ_INT(r[1].refused_reason, FOVEA_STREAM_REFUSED_FULL);
    CHECK_EQ_INT(r[1].refused_max, 1);
    CHECK(!r[1].hello && r[1].frames == 0);
    int frames = serve(&s, 0, 6, 3000, request_done);
    frames = serve(&s, frames, frames + 3, frames + 3, NULL);
    server_end(&s, 1);
    pthread_join(th[0], NULL);
    check_resynced(&r[0], frames, "requesting receiver");
    CHECK(r[0].key_after_request);
    fovea_stream_server_stats st;
    fovea_stream_server_get_stats(s.srv, &st);
    CHECK_EQ_INT(st.refused, 1);
    CHECK_EQ_INT(st.resync_requests, 1);
    server_close(&s);
}

/* A raw TCP peer: a listening socket on a free loopback port. */
static int raw_listener(char *addr, size_t n)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 4) == 0);
    socklen_t sl = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &sl);
    snprintf(addr, n, "127.0.0.1:%d", ntohs(a.sin_port));
    return fd;
}

/* A receiver against senders that misbehave: garbage, half a message then
 * silence (the timeout), a close before the end. */
static void test_bad_senders(void)
{
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, NULL) == FOVEA_OK);
    fovea_stream_client_settings cs;
    fovea_stream_client_default_settings(&cs);
    cs.timeout_ms = 300;
    static const struct {
        const char *bytes;
        size_t n;
        int status;
        const char *text;
    } cases[] = {
        {"GET / HTTP/1.0\r\n\r\nhello", 23, FOVEA_ERR_CORRUPT, "bad magic"},
        {"FVST\x02\x01\x00\x00\x40\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
         "abc",
         23, FOVEA_ERR_IO, "timed out"},
        {"FVST\x02\x01\x00\x00\x40\x00\x00\x00", 12, FOVEA_ERR_IO, "closed"},
        {"FVST\x02\x01\x00\x00\x00\x00\x00\x00\x01\x02\x03\x04\x05\x06\x07\x08", 20,
         FOVEA_ERR_CORRUPT, "checksum"},
        {"FVST\x02\x02\x00\x00\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00", 20,
         FOVEA_ERR_CORRUPT, "over the limit"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char addr[64];
        const int lfd = raw_listener(addr, sizeof addr);
        fovea_stream_client *c = NULL;
        REQUIRE(fovea_stream_client_open(&c, ctx, addr, &cs) == FOVEA_OK);
        const int fd = accept(lfd, NULL, NULL);
        REQUIRE(fd >= 0);
        REQUIRE(write(fd, cases[i].bytes, cases[i].n) == (ssize_t)cases[i].n);
        if (i == 2)
            close(fd);
        fovea_stream_event ev;
        const int st = fovea_stream_client_next(c, &ev);
        if (st != cases[i].status || !strstr(fovea_last_error(ctx), cases[i].text)) {
            fprintf(stderr, "bad sender %zu: %d '%s'\n", i, st, fovea_last_error(ctx));
            test_failures++;
        }
        fovea_stream_client_close(&c);
        if (i != 2)
            close(fd);
        close(lfd);
    }
    /* addresses */
    fovea_stream_client *c = NULL;
    CHECK_EQ_INT(fovea_stream_client_open(&c, ctx, "localhost", &cs), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_stream_client_open(&c, ctx, "127.0.0.1:70000", &cs), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_stream_client_open(&c, ctx, "::1:80", &cs), FOVEA_ERR_INVALID_ARG);
    char addr[64];
    const int lfd = raw_listener(addr, sizeof addr);
    close(lfd); /* nobody listens there now */
    CHECK_EQ_INT(fovea_stream_client_open(&c, ctx, addr, &cs), FOVEA_ERR_IO);
    CHECK(strstr(fovea_last_error(ctx), "cannot connect") != NULL);
    CHECK(c == NULL);
    fovea_close(&ctx);
}

/* A gap in an intact stream: the client asks for a keyframe (a RESYNC the
 * raw sender reads), skips the deltas still coming and shows the keyframe; with
 * resync off the gap is an error. */
static void test_client_resync(void)
{
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, NULL) == FOVEA_OK);
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = W;
    info.height = H;
    info.fmt = FOVEA_PIX_GRAY8;
    fovea_stream_encoder *enc = NULL;
    REQUIRE(fovea_stream_encoder_open(&enc, ctx, NULL, &info) == FOVEA_OK);
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    REQUIRE(fovea_frame_alloc(NULL, &f, W, H, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == FOVEA_OK);
    /* hello, frames 0..3 (3 a keyframe) as sent */
    uint8_t *m[5];
    size_t mn[5];
    for (int k = -1; k < 4; k++) {
        const uint8_t *p;
        size_t n;
        if (k < 0) {
            fovea_stream_encoder_hello(enc, &p, &n);
        } else {
            make_frame(&f, k);
            if (k == 3)
                fovea_stream_encoder_request_keyframe(enc);
            REQUIRE(fovea_stream_encoder_encode(enc, &f, 0, &p, &n, NULL) == FOVEA_OK);
        }
        m[k + 1] = malloc(n);
        REQUIRE(m[k + 1]);
        memcpy(m[k + 1], p, n);
        mn[k + 1] = n;
    }
    for (int resync = 1; resync >= 0; resync--) {
        char addr[64];
        const int lfd = raw_listener(addr, sizeof addr);
        fovea_stream_client_settings cs;
        fovea_stream_client_default_settings(&cs);
        CHECK_EQ_INT(cs.resync, 1);
        cs.resync = resync;
        cs.timeout_ms = 5000;
        fovea_stream_client *c = NULL;
        REQUIRE(fovea_stream_client_open(&c, ctx, addr, &cs) == FOVEA_OK);
        const int fd = accept(lfd, NULL, NULL);
        REQUIRE(fd >= 0);
        /* hello, frame 0, frame 2 (1 lost), frame 3 (the keyframe) */
        const int order[4] = {0, 1, 3, 4};
        for (int i = 0; i < 4; i++)
            REQUIRE(write(fd, m[order[i]], mn[order[i]]) == (ssize_t)mn[order[i]]);
        fovea_stream_event ev;
        CHECK_EQ_INT(fovea_stream_client_next(c, &ev), FOVEA_OK); /* hello */
        CHECK_EQ_INT(fovea_stream_client_next(c, &ev), FOVEA_OK); /* frame 0 */
        CHECK_EQ_INT(ev.fi.frame, 0);
        const int st = fovea_stream_client_next(c, &ev);
        if (resync) {
            CHECK_EQ_INT(st, FOVEA_OK);
            CHECK(ev.fi.frame == 3 && ev.fi.keyframe && ev.fi.skipped == 2);
            make_frame(&f, 3);
            CHECK(ev.frame && fovea_frame_equal(ev.frame, &f));
            /* what the client sent: one RESYNC showing frame 0 */
            uint8_t rq[FOVEA_STREAM_HEADER_SIZE + 8], want[FOVEA_STREAM_HEADER_SIZE + 8];
            CHECK_EQ_INT(read(fd, rq, sizeof rq), sizeof rq);
            fovea_stream_resync_message(0, want);
            CHECK(memcmp(rq, want, sizeof rq) == 0);
        } else {
            CHECK_EQ_INT(st, FOVEA_ERR_CORRUPT);
            CHECK(strstr(fovea_last_error(ctx), "frames missing") != NULL);
        }
        fovea_stream_client_close(&c);
        close(fd);
        close(lfd);
    }
    for (int i = 0; i < 5; i++)
        free(m[i]);
    fovea_frame_free(NULL, &f);
    fovea_stream_encoder_close(&enc);
    fovea_close(&ctx);
}

/* A sender against receivers that misbehave: one sends garbage and is cut,
 * the well-behaved one gets everything. */
static void test_bad_receiver(void)
{
    fovea_stream_server_settings ss;
    fovea_stream_server_default_settings(&ss);
    server_run s;
    server_open(&s, &ss);
    rx r;
    memset(&r, 0, sizeof(r));
    r.stop_after = r.request_at = -1;
    pthread_t th;
    start_rx(&th, &r, &s);
    wait_clients(&s, 1);
    /* a raw peer that sends junk */
    const char *addr = fovea_stream_server_address(s.srv);
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)atoi(strrchr(addr, ':') + 1));
    REQUIRE(connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    wait_clients(&s, 2);
    REQUIRE(write(fd, "FVST\x02\x03\x00\x00\x10\x00\x00\x00junkjunk", 20) == 20);
    int frames = serve(&s, 0, 10, 10, NULL);
    for (int i = 0; i < 100; i++) {
        fovea_stream_server_stats st;
        fovea_stream_server_get_stats(s.srv, &st);
        if (st.disconnected == 1)
            break;
        fovea_stream_server_poll(s.srv, 10);
    }
    frames = serve(&s, frames, frames + 5, frames + 5, NULL);
    server_end(&s, 1);
    pthread_join(th, NULL);
    close(fd);
    check_whole(&r, frames, "receiver beside a bad one");
    fovea_stream_server_stats st;
    fovea_stream_server_get_stats(s.srv, &st);
    CHECK_EQ_INT(st.disconnected, 1);
    server_close(&s);

    /* bad server arguments */
    fovea_stream_server *srv = NULL;
    const uint8_t junk[FOVEA_STREAM_HEADER_SIZE] = {0};
    CHECK_EQ_INT(fovea_stream_server_open(&srv, NULL, "127.0.0.1:0", junk, sizeof junk, NULL),
                 FOVEA_ERR_INVALID_ARG);
    CHECK(srv == NULL);
}

/* A name lookup that fails: a name that does not exist is a bad address
 * (FOVEA_ERR_INVALID_ARG: fovea send/receive exit 2); a resolver that cannot
 * answer now is not (FOVEA_ERR_IO, said to be temporary: exit 1). */
static void test_lookup_errors(void)
{
    char err[256];
    CHECK_EQ_INT(net_lookup_error(err, sizeof err, "nohost:9000", EAI_NONAME),
                 FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(err, "nohost:9000: ") == err);
    CHECK_EQ_INT(net_lookup_error(err, sizeof err, "host:9000", EAI_AGAIN), FOVEA_ERR_IO);
    CHECK(strstr(err, "host:9000: ") == err && strstr(err, "temporary") != NULL);
    CHECK_EQ_INT(net_lookup_error(err, sizeof err, "host:9000", EAI_FAIL), FOVEA_ERR_IO);
    CHECK_EQ_INT(net_lookup_error(err, sizeof err, "host:9000", EAI_MEMORY), FOVEA_ERR_NOMEM);
    /* a real lookup of a name that cannot exist (RFC 6761 .invalid) */
    fovea_stream_client *c = NULL;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, NULL) == FOVEA_OK);
    const int st = fovea_stream_client_open(&c, ctx, "fovea-test.invalid:9000", NULL);
    CHECK(st == FOVEA_ERR_INVALID_ARG || st == FOVEA_ERR_IO); /* IO where no resolver answers */
    CHECK(strstr(fovea_last_error(ctx), "fovea-test.invalid:9000") != NULL);
    fovea_close(&ctx);
}

int main(void)
{
    test_receivers();
    test_slow_receiver();
    test_request_and_refusal();
    test_lookup_errors();
    test_bad_senders();
    test_client_resync();
    test_bad_receiver();
    return test_finish("test_stream_net");
}
