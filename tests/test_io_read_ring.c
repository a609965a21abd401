/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea_read_ring (fovea/advanced.h), the read-ahead of the CLI's commands and
 * of fovea_vmaf_score_readers: frames in order with the reader's indexes while
 * the consumer holds several, the limit, a failed read ending the thread or
 * not (read_past_error), settings refused, close without a start. */
#include <stdlib.h>
#include <string.h>

#include "fovea/advanced.h"
#include "testutil.h"

#define W 16
#define H 8
#define N 10

/* A 4:2:0 y4m of N frames whose luma is i + 1 in frame i, cut bytes short. */
static char *write_y4m(size_t cut)
{
    const size_t frame = 6 + W * H + 2 * (W / 2) * (H / 2);
    const char head[] = "YUV4MPEG2 W16 H8 F25:1 Ip A1:1 C420jpeg\n";
    const size_t size = sizeof(head) - 1 + (size_t)N * frame;
    uint8_t *buf = malloc(size);
    REQUIRE(buf);
    memcpy(buf, head, sizeof(head) - 1);
    uint8_t *o = buf + sizeof(head) - 1;
    for (int i = 0; i < N; i++) {
        memcpy(o, "FRAME\n", 6);
        memset(o + 6, i + 1, W * H);
        memset(o + 6 + W * H, 128, 2 * (W / 2) * (H / 2));
        o += frame;
    }
    char *path = test_write_tmp(".y4m", buf, size - cut);
    free(buf);
    return path;
}

static fovea_read_ring *open_ring(const char *path, fovea_reader **r, int slots, int64_t limit,
                                  int past)
{
    REQUIRE(fovea_reader_open(r, NULL, path, NULL) == FOVEA_OK);
    fovea_read_ring_settings s;
    fovea_read_ring_default_settings(&s);
    CHECK_EQ_INT(s.slots, 4);
    CHECK(s.limit == -1 && s.mem == FOVEA_MEM_HOST && s.read_past_error == 0);
    s.slots = slots;
    s.limit = limit;
    s.read_past_error = past;
    fovea_read_ring *q = NULL;
    REQUIRE(fovea_read_ring_open(&q, NULL, *r, &s) == FOVEA_OK && q);
    REQUIRE(fovea_read_ring_start(q) == FOVEA_OK);
    CHECK(fovea_read_ring_start(q) == FOVEA_ERR_INVALID_ARG); /* once */
    return q;
}

/* Every frame in order, the consumer holding two at a time. */
static void in_order(const char *path)
{
    fovea_reader *r = NULL;
    fovea_read_ring *q = open_ring(path, &r, 3, -1, 0);
    fovea_frame *held[2];
    const char *msg;
    for (int i = 0; i < N; i += 2) {
        for (int k = 0; k < 2; k++) {
            CHECK_EQ_INT(fovea_read_ring_take(q, &held[k], &msg), FOVEA_OK);
            CHECK(msg[0] == '\0');
            CHECK(held[k]->index == i + k);
            CHECK_EQ_INT(held[k]->data[0][0], i + k + 1);
            CHECK_EQ_INT(held[k]->data[0][(H - 1) * held[k]->stride[0] + W - 1], i + k + 1);
        }
        CHECK(held[0] != held[1]);
        fovea_read_ring_release(q);
        fovea_read_ring_release(q);
    }
    fovea_frame *f;
    CHECK_EQ_INT(fovea_read_ring_take(q, &f, &msg), FOVEA_EOF);
    fovea_read_ring_close(&q);
    CHECK(q == NULL);
    fovea_reader_close(&r);
}

/* At most limit reads, then the end. */
static void limited(const char *path)
{
    fovea_reader *r = NULL;
    fovea_read_ring *q = open_ring(path, &r, 2, 4, 0);
    fovea_frame *f;
    const char *msg;
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(fovea_read_ring_take(q, &f, &msg), FOVEA_OK);
        CHECK_EQ_INT(f->data[0][0], i + 1);
        fovea_read_ring_release(q);
    }
    CHECK_EQ_INT(fovea_read_ring_take(q, &f, &msg), FOVEA_EOF);
    fovea_read_ring_close(&q);
    fovea_reader_close(&r);
}

/* A file cut inside frame 7: frames 0..6, then the failed read with the
 * reader's message; with read_past_error the thread reads on to the end. */
static void failed_read(const char *cut, int past)
{
    fovea_reader *r = NULL;
    fovea_read_ring *q = open_ring(cut, &r, 4, -1, past);
    fovea_frame *f;
    const char *msg;
    for (int i = 0; i < 7; i++) {
        CHECK_EQ_INT(fovea_read_ring_take(q, &f, &msg), FOVEA_OK);
        fovea_read_ring_release(q);
    }
    const int st = fovea_read_ring_take(q, &f, &msg);
    CHECK(st < 0);
    CHECK(msg[0] != '\0');
    fovea_read_ring_release(q);
    if (past) {
        /* the reader's next read after the cut: the end, or another error */
        int end = 0;
        for (int k = 0; k < 4 && !end; k++) {
            end = fovea_read_ring_take(q, &f, &msg) == FOVEA_EOF;
            fovea_read_ring_release(q);
        }
        CHECK(end);
    }
    /* (without read_past_error nothing follows the failed read: not taken) */
    fovea_read_ring_close(&q);
    fovea_reader_close(&r);
}

static void refused(const char *path)
{
    fovea_reader *r = NULL;
    REQUIRE(fovea_reader_open(&r, NULL, path, NULL) == FOVEA_OK);
    fovea_read_ring_settings s;
    fovea_read_ring_default_settings(&s);
    s.slots = 0;
    fovea_read_ring *q = (fovea_read_ring *)&s; /* set to NULL on failure */
    CHECK_EQ_INT(fovea_read_ring_open(&q, NULL, r, &s), FOVEA_ERR_INVALID_ARG);
    CHECK(q == NULL);
    CHECK(strstr(fovea_last_error(NULL), "slots") != NULL);
    CHECK_EQ_INT(fovea_read_ring_open(&q, NULL, NULL, NULL), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_read_ring_open(NULL, NULL, r, NULL), FOVEA_ERR_INVALID_ARG);
    /* device frames need a CUDA context */
    s.slots = 2;
    s.mem = FOVEA_MEM_DEVICE;
    CHECK(fovea_read_ring_open(&q, NULL, r, &s) < 0);
    CHECK(q == NULL);
    /* opened, never started, closed: no thread to join */
    REQUIRE(fovea_read_ring_open(&q, NULL, r, NULL) == FOVEA_OK);
    fovea_read_ring_close(&q);
    CHECK(q == NULL);
    fovea_read_ring_close(&q);
    fovea_read_ring_close(NULL);
    fovea_reader_close(&r);
}

int main(void)
{
    char *path = write_y4m(0);
    const size_t frame = 6 + W * H + 2 * (W / 2) * (H / 2);
    char *cut = write_y4m(2 * frame + 10); /* frame 7 loses its last 10 bytes */
    in_order(path);
    limited(path);
    failed_read(cut, 0);
    failed_read(cut, 1);
    refused(path);
    remove(path);
    remove(cut);
    free(path);
    free(cut);
    return test_finish("test_io_read_ring");
}
