/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* y4m reader/writer: round trips for every YUV/gray format, header parameter
 * carry-through, pipes, frame counts, and malformed input rejected with the
 * right status and a message that names the problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_internal.h"
#include "testutil.h"

#define NFRAMES 3

static const fovea_pixfmt yuv_formats[] = {
    FOVEA_PIX_GRAY8, FOVEA_PIX_GRAY10,  FOVEA_PIX_GRAY12,  FOVEA_PIX_GRAY16,
    FOVEA_PIX_I420,  FOVEA_PIX_I420P10, FOVEA_PIX_I420P12, FOVEA_PIX_I420P16,
    FOVEA_PIX_I422,  FOVEA_PIX_I422P10, FOVEA_PIX_I422P12, FOVEA_PIX_I422P16,
    FOVEA_PIX_I444,  FOVEA_PIX_I444P10, FOVEA_PIX_I444P12, FOVEA_PIX_I444P16,
};

static void make_frames(fovea_frame *frames, int n, int w, int h, fovea_pixfmt fmt, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    for (int i = 0; i < n; i++) {
        memset(&frames[i], 0, sizeof(frames[i]));
        REQUIRE(fovea_frame_alloc(NULL, &frames[i], w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
        test_fill_random(&frames[i], &rng);
    }
}

static void free_frames(fovea_frame *frames, int n)
{
    for (int i = 0; i < n; i++)
        fovea_frame_free(NULL, &frames[i]);
}

static void write_file(const char *path, const fovea_video_info *info, const fovea_frame *frames,
                       int n)
{
    fovea_writer *w = NULL;
    int st = fovea_writer_open(&w, NULL, path, FOVEA_CONTAINER_Y4M, info);
    if (st != FOVEA_OK)
        fprintf(stderr, "writer_open: %s\n", fovea_last_error(NULL));
    REQUIRE(st == FOVEA_OK);
    for (int i = 0; i < n; i++)
        CHECK_EQ_INT(fovea_writer_write(w, &frames[i]), FOVEA_OK);
    CHECK_EQ_INT(fovea_writer_finish(w), FOVEA_OK);
    fovea_writer_close(&w);
    CHECK(w == NULL);
}

/* Read every frame of r and compare with frames[0..n); expects EOF after. */
static void read_and_compare(fovea_reader *r, const fovea_frame *frames, int n)
{
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    for (int i = 0; i < n; i++) {
        int st = fovea_reader_read(r, &f);
        if (st != FOVEA_OK)
            fprintf(stderr, "frame %d: %s\n", i, fovea_last_error(NULL));
        CHECK_EQ_INT(st, FOVEA_OK);
        if (st != FOVEA_OK)
            break;
        CHECK_EQ_INT(f.index, i);
        CHECK(fovea_frame_equal(&f, &frames[i]));
    }
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_EOF);
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_EOF);
    fovea_frame_free(NULL, &f);
}

static char *slurp_text(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    REQUIRE(fp != NULL);
    size_t cap = 1 << 20;
    char *buf = malloc(cap + 1);
    REQUIRE(buf != NULL);
    *len = fread(buf, 1, cap, fp);
    buf[*len] = '\0';
    fclose(fp);
    return buf;
}

static void test_roundtrip_all_formats(void)
{
    const int sizes[][2] = {{33, 17}, {1, 1}, {2, 3}};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        for (size_t k = 0; k < sizeof(yuv_formats) / sizeof(yuv_formats[0]); k++) {
            const int w = sizes[s][0], h = sizes[s][1];
            fovea_pixfmt fmt = yuv_formats[k];
            fovea_frame frames[NFRAMES];
            make_frames(frames, NFRAMES, w, h, fmt, 1000 + k * 10 + s);

            fovea_video_info info;
            fovea_video_info_init(&info);
            info.width = w;
            info.height = h;
            info.fmt = fmt;
            char *path = test_tmp_path(".y4m");
            write_file(path, &info, frames, NFRAMES);

            fovea_reader *r = NULL;
            int st = fovea_reader_open(&r, NULL, path, NULL);
            if (st != FOVEA_OK)
                fprintf(stderr, "%s %dx%d: %s\n", fovea_pixfmt_name(fmt), w, h,
                        fovea_last_error(NULL));
            REQUIRE(st == FOVEA_OK);
            const fovea_video_info *ri = fovea_reader_info(r);
            CHECK_EQ_INT(ri->width, w);
            CHECK_EQ_INT(ri->height, h);
            CHECK_EQ_INT(ri->fmt, fmt);
            CHECK_EQ_INT(ri->frame_count, NFRAMES);
            CHECK_EQ_INT(ri->fps_num, 25);
            CHECK_EQ_INT(ri->fps_den, 1);
            CHECK_EQ_INT(ri->interlace, 'p');
            read_and_compare(r, frames, NFRAMES);
            fovea_reader_close(&r);
            CHECK(r == NULL);
            free_frames(frames, NFRAMES);
            free(path);
        }
    }
}

static void test_header_written(void)
{
    fovea_frame fr[1];
    make_frames(fr, 1, 33, 17, FOVEA_PIX_I420, 7);
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = 33;
    info.height = 17;
    info.fmt = FOVEA_PIX_I420;
    char *path = test_tmp_path(".y4m");
    write_file(path, &info, fr, 1);
    size_t len;
    char *text = slurp_text(path, &len);
    const char *expect = "YUV4MPEG2 W33 H17 F25:1 Ip A0:0 C420jpeg\nFRAME\n";
    CHECK(strncmp(text, expect, strlen(expect)) == 0);
    CHECK_EQ_INT(len, strlen(expect) + fovea_frame_packed_size(FOVEA_PIX_I420, 33, 17));
    free(text);
    free(path);

    /* a tag that does not describe the format is replaced by the canonical one */
    snprintf(info.chroma_tag, sizeof(info.chroma_tag), "444");
    info.fmt = FOVEA_PIX_I420;
    path = test_tmp_path(".y4m");
    write_file(path, &info, fr, 1);
    text = slurp_text(path, &len);
    CHECK(strstr(text, " C420jpeg\n") != NULL);
    free(text);
    free(path);
    free_frames(fr, 1);

    /* gray10 -> mono10 */
    make_frames(fr, 1, 5, 4, FOVEA_PIX_GRAY10, 8);
    fovea_video_info_init(&info);
    info.width = 5;
    info.height = 4;
    info.fmt = FOVEA_PIX_GRAY10;
    path = test_tmp_path(".y4m");
    write_file(path, &info, fr, 1);
    text = slurp_text(path, &len);
    CHECK(strstr(text, " Cmono10\n") != NULL);
    free(text);
    free(path);
    free_frames(fr, 1);
}

static void test_carry_through(void)
{
    fovea_frame frames[2];
    make_frames(frames, 2, 33, 17, FOVEA_PIX_I420, 42);
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = 33;
    info.height = 17;
    info.fmt = FOVEA_PIX_I420;
    info.fps_num = 30000;
    info.fps_den = 1001;
    info.sar_num = 1;
    info.sar_den = 1;
    info.interlace = 't';
    snprintf(info.chroma_tag, sizeof(info.chroma_tag), "420mpeg2");
    char *path = test_tmp_path(".y4m");
    write_file(path, &info, frames, 2);

    size_t len;
    char *text = slurp_text(path, &len);
    const char *expect = "YUV4MPEG2 W33 H17 F30000:1001 It A1:1 C420mpeg2\n";
    CHECK(strncmp(text, expect, strlen(expect)) == 0);
    free(text);

    /* read back and write again from the reader's info: parameters survive */
    fovea_reader *r = NULL;
    REQUIRE(fovea_reader_open(&r, NULL, path, NULL) == FOVEA_OK);
    fovea_video_info ri = *fovea_reader_info(r);
    CHECK_EQ_INT(ri.fps_num, 30000);
    CHECK_EQ_INT(ri.fps_den, 1001);
    CHECK_EQ_INT(ri.sar_num, 1);
    CHECK_EQ_INT(ri.sar_den, 1);
    CHECK_EQ_INT(ri.interlace, 't');
    CHECK(strcmp(ri.chroma_tag, "420mpeg2") == 0);
    CHECK_EQ_INT(ri.fmt, FOVEA_PIX_I420);
    read_and_compare(r, frames, 2);
    fovea_reader_close(&r);

    char *path2 = test_tmp_path(".y4m");
    write_file(path2, &ri, frames, 2);
    text = slurp_text(path2, &len);
    CHECK(strncmp(text, expect, strlen(expect)) == 0);
    free(text);
    free(path2);
    free(path);
    free_frames(frames, 2);
}

/* Open bytes written to a temp file; returns status and fills err. */
static int open_bytes(const void *data, size_t size, fovea_reader **r, char *err, size_t errsz)
{
    char *path = test_write_tmp(".y4m", data, size);
    err[0] = '\0';
    int st = fovea_reader_open(r, NULL, path, NULL);
    if (st < 0)
        snprintf(err, errsz, "%s", fovea_last_error(NULL));
    free(path);
    return st;
}

static void test_frame_params_tolerated(void)
{
    /* 4x2 mono: 8 bytes per frame; FRAME parameters, comments, unknown letters */
    const char hdr[] = "YUV4MPEG2 W4 H2 F25:1 Cmono XYSCSS=whatever Z123 X\n";
    const char f0[] = "FRAME Ixyz Xcomment\n";
    const char f1[] = "FRAME\n";
    const uint8_t px0[8] = {1, 2, 3, 4, 5, 6, 7, 8}, px1[8] = {9, 10, 11, 12, 13, 14, 15, 16};
    uint8_t buf[256];
    size_t n = 0;
    memcpy(buf + n, hdr, strlen(hdr));
    n += strlen(hdr);
    memcpy(buf + n, f0, strlen(f0));
    n += strlen(f0);
    memcpy(buf + n, px0, 8);
    n += 8;
    memcpy(buf + n, f1, strlen(f1));
    n += strlen(f1);
    memcpy(buf + n, px1, 8);
    n += 8;

    fovea_reader *r = NULL;
    char err[512];
    int st = open_bytes(buf, n, &r, err, sizeof(err));
    if (st != FOVEA_OK)
        fprintf(stderr, "%s\n", err);
    REQUIRE(st == FOVEA_OK);
    const fovea_video_info *ri = fovea_reader_info(r);
    CHECK_EQ_INT(ri->fmt, FOVEA_PIX_GRAY8);
    CHECK(strcmp(ri->chroma_tag, "mono") == 0);
    CHECK_EQ_INT(ri->interlace, '?');
    CHECK_EQ_INT(ri->frame_count, -1); /* FRAME params: size does not divide */
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_OK);
    CHECK(memcmp(f.data[0], px0, 4) == 0 && memcmp(f.data[0] + f.stride[0], px0 + 4, 4) == 0);
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_OK);
    CHECK(memcmp(f.data[0], px1, 4) == 0 && memcmp(f.data[0] + f.stride[0], px1 + 4, 4) == 0);
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_EOF);
    fovea_frame_free(NULL, &f);
    fovea_reader_close(&r);

    /* missing C: 420jpeg (i420), tag left empty; A0:0 means unknown */
    const char hdr2[] = "YUV4MPEG2 W2 H2 A0:0\nFRAME\n012345";
    st = open_bytes(hdr2, strlen(hdr2), &r, err, sizeof(err));
    REQUIRE(st == FOVEA_OK);
    ri = fovea_reader_info(r);
    CHECK_EQ_INT(ri->fmt, FOVEA_PIX_I420);
    CHECK(ri->chroma_tag[0] == '\0');
    CHECK_EQ_INT(ri->sar_num, 0);
    CHECK_EQ_INT(ri->fps_num, 0);
    CHECK_EQ_INT(ri->frame_count, 1);
    memset(&f, 0, sizeof(f));
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_OK);
    CHECK(f.data[0][0] == '0' && f.data[1][0] == '4' && f.data[2][0] == '5');
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_EOF);
    fovea_frame_free(NULL, &f);
    fovea_reader_close(&r);
}

static void test_streams(void)
{
    fovea_frame frames[NFRAMES];
    make_frames(frames, NFRAMES, 33, 17, FOVEA_PIX_I422P10, 99);
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = 33;
    info.height = 17;
    info.fmt = FOVEA_PIX_I422P10;
    char *path = test_tmp_path(".y4m");
    write_file(path, &info, frames, NFRAMES);

    fovea_reader_settings opt;
    fovea_reader_default_settings(&opt);
    opt.container = FOVEA_CONTAINER_Y4M;

    /* a real pipe: no seeking, size unknown */
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "cat '%s'", path);
    FILE *pp = popen(cmd, "r");
    REQUIRE(pp != NULL);
    fovea_reader *r = NULL;
    int st = fv_reader_open_stream(NULL, &r, pp, "pipe", &opt);
    if (st != FOVEA_OK)
        fprintf(stderr, "%s\n", fovea_last_error(NULL));
    REQUIRE(st == FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_info(r)->frame_count, -1);
    CHECK_EQ_INT(fovea_reader_info(r)->fmt, FOVEA_PIX_I422P10);
    read_and_compare(r, frames, NFRAMES);
    fovea_reader_close(&r);
    CHECK_EQ_INT(pclose(pp), 0);

    /* an in-memory stream */
    size_t len;
    char *bytes = slurp_text(path, &len);
    FILE *mp = fmemopen(bytes, len, "rb");
    REQUIRE(mp != NULL);
    st = fv_reader_open_stream(NULL, &r, mp, "mem.y4m", NULL);
    REQUIRE(st == FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_info(r)->frame_count, -1);
    read_and_compare(r, frames, NFRAMES);
    fovea_reader_close(&r);
    fclose(mp);
    free(bytes);

    free(path);
    free_frames(frames, NFRAMES);
}

/* Header errors: fovea_reader_open fails with status and both words in the message. */
static void expect_open_error(const char *what, const void *data, size_t size, int status,
                              const char *word1, const char *word2)
{
    fovea_reader *r = NULL;
    char err[512];
    int st = open_bytes(data, size, &r, err, sizeof(err));
    CHECK(r == NULL);
    if (st != status || !strstr(err, word1) || (word2 && !strstr(err, word2))) {
        fprintf(stderr, "%s: status %d (want %d), message '%s' (want '%s'%s%s)\n", what, st, status,
                err, word1, word2 ? ", " : "", word2 ? word2 : "");
        test_failures++;
    }
    fovea_reader_close(&r);
}

static void expect_open_error_str(const char *what, const char *text, int status, const char *word1,
                                  const char *word2)
{
    expect_open_error(what, text, strlen(text), status, word1, word2);
}

static void test_malformed_headers(void)
{
    const int C = FOVEA_ERR_CORRUPT, U = FOVEA_ERR_UNSUPPORTED;
    expect_open_error("empty", "", 0, C, "empty", NULL);
    expect_open_error_str("bad magic", "YUV4MPEG3 W4 H2\nFRAME\n", C, "magic", "YUV4MPEG3");
    expect_open_error_str("not y4m at all", "P5\n4 2\n255\n", C, "magic", NULL);
    expect_open_error_str("short magic", "YUV4", C, "magic", NULL);
    expect_open_error_str("magic glued", "YUV4MPEG2W4 H2\n", C, "magic", NULL);
    expect_open_error_str("missing W", "YUV4MPEG2 H2 C420jpeg\n", C, "missing W", NULL);
    expect_open_error_str("missing H", "YUV4MPEG2 W2\n", C, "missing H", NULL);
    expect_open_error_str("no params", "YUV4MPEG2\n", C, "missing W", NULL);
    expect_open_error_str("duplicated H", "YUV4MPEG2 W4 H2 H2\n", C, "duplicated H", NULL);
    expect_open_error_str("duplicated W", "YUV4MPEG2 W4 W4 H2\n", C, "duplicated W", NULL);
    expect_open_error_str("duplicated C", "YUV4MPEG2 W4 H2 C420 C420\n", C, "duplicated C", NULL);
    expect_open_error_str("duplicated F", "YUV4MPEG2 W4 H2 F1:1 F1:1\n", C, "duplicated F", NULL);
    expect_open_error_str("W0", "YUV4MPEG2 W0 H2\n", C, "width", "W0");
    expect_open_error_str("W negative", "YUV4MPEG2 W-5 H2\n", C, "width", "W-5");
    expect_open_error_str("H too large", "YUV4MPEG2 W4 H99999\n", U, "H99999", "too large");
    expect_open_error_str("W huge", "YUV4MPEG2 W99999999999999999999999 H2\n", U, "width",
                          "too large");
    expect_open_error_str("W16385", "YUV4MPEG2 W16385 H2\n", U, "W16385", "too large");
    expect_open_error_str("W abc", "YUV4MPEG2 Wabc H2\n", C, "width", "Wabc");
    expect_open_error_str("W empty", "YUV4MPEG2 W H2\n", C, "width", "not a number");
    expect_open_error_str("H 12x", "YUV4MPEG2 W4 H12x\n", C, "height", "H12x");
    expect_open_error_str("chroma tag", "YUV4MPEG2 W4 H2 C411\n", U, "unsupported chroma tag",
                          "C411");
    expect_open_error_str("chroma alpha", "YUV4MPEG2 W4 H2 C444alpha\n", U,
                          "unsupported chroma tag", "444alpha");
    expect_open_error_str("bad F", "YUV4MPEG2 W4 H2 F30:0\n", C, "frame rate", "F30:0");
    expect_open_error_str("bad F2", "YUV4MPEG2 W4 H2 F30\n", C, "frame rate", NULL);
    expect_open_error_str("bad A", "YUV4MPEG2 W4 H2 A1:x\n", C, "aspect", NULL);
    expect_open_error_str("bad I", "YUV4MPEG2 W4 H2 Ix\n", C, "interlace", "Ix");
    expect_open_error_str("truncated header", "YUV4MPEG2 W4 H2", C, "truncated header", NULL);
    expect_open_error("NUL in header", "YUV4MPEG2 W4 H2 X\0\n", 19, C, "NUL", NULL);

    /* a header with no newline within the limit */
    size_t big = 10000;
    char *longhdr = malloc(big);
    REQUIRE(longhdr != NULL);
    memcpy(longhdr, "YUV4MPEG2 W4 H2 X", 17);
    memset(longhdr + 17, 'a', big - 17);
    expect_open_error("header too long", longhdr, big, C, "header line too long", NULL);
    /* the same, with a newline just past the limit */
    longhdr[5000] = '\n';
    expect_open_error("header too long 2", longhdr, 5001, C, "header line too long", NULL);
    free(longhdr);
}

/* Frame errors: open succeeds; frames [0, good) read; frame `good` fails. */
static void expect_read_error(const char *what, const void *data, size_t size, int good, int status,
                              const char *word1, const char *word2)
{
    fovea_reader *r = NULL;
    char err[512];
    int st = open_bytes(data, size, &r, err, sizeof(err));
    if (st != FOVEA_OK) {
        fprintf(stderr, "%s: open failed: %s\n", what, err);
        test_failures++;
        return;
    }
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    for (int i = 0; i < good; i++) {
        st = fovea_reader_read(r, &f);
        if (st != FOVEA_OK) {
            fprintf(stderr, "%s: frame %d: %s\n", what, i, fovea_last_error(NULL));
            test_failures++;
        }
    }
    st = fovea_reader_read(r, &f);
    const char *msg = fovea_last_error(NULL);
    if (st != status || !strstr(msg, word1) || (word2 && !strstr(msg, word2))) {
        fprintf(stderr, "%s: status %d (want %d), message '%s' (want '%s'%s%s)\n", what, st, status,
                msg, word1, word2 ? ", " : "", word2 ? word2 : "");
        test_failures++;
    }
    fovea_frame_free(NULL, &f);
    fovea_reader_close(&r);
}

static void test_malformed_frames(void)
{
    const int C = FOVEA_ERR_CORRUPT;
    /* i420 33x17: 561 + 2 * 17 * 9 = 867 bytes per frame */
    const size_t fb = fovea_frame_packed_size(FOVEA_PIX_I420, 33, 17);
    CHECK_EQ_INT(fb, 867);
    const char hdr[] = "YUV4MPEG2 W33 H17 F25:1 C420jpeg\n";
    size_t cap = strlen(hdr) + 3 * (6 + fb) + 64;
    uint8_t *buf = malloc(cap);
    REQUIRE(buf != NULL);
    test_rng rng;
    test_rng_seed(&rng, 5);
    size_t n = strlen(hdr);
    memcpy(buf, hdr, n);
    memcpy(buf + n, "FRAME\n", 6);
    n += 6;
    for (size_t i = 0; i < fb; i++)
        buf[n + i] = (uint8_t)test_rng_u32(&rng);
    n += fb;
    const size_t one = n; /* header + one whole frame */

    /* truncated second frame: 600 of 867 payload bytes */
    memcpy(buf + one, "FRAME\n", 6);
    memset(buf + one + 6, 0x55, 600);
    expect_read_error("truncated frame", buf, one + 6 + 600, 1, C, "frame 1",
                      "got 600 of 867 bytes");
    /* FRAME header and no payload */
    expect_read_error("empty frame", buf, one + 6, 1, C, "frame 1", "got 0 of 867 bytes");
    /* FRAME with parameters, no end of line */
    memcpy(buf + one, "FRAME Ixx", 9);
    expect_read_error("frame params eof", buf, one + 9, 1, C, "frame 1", "FRAME header");
    /* FRAME parameter line over the limit */
    {
        size_t m = one + 6000;
        uint8_t *b2 = malloc(m);
        REQUIRE(b2 != NULL);
        memcpy(b2, buf, one);
        memcpy(b2 + one, "FRAME X", 7);
        memset(b2 + one + 7, 'x', m - one - 7);
        expect_read_error("frame params too long", b2, m, 1, C, "frame 1", "too long");
        free(b2);
    }
    /* garbage instead of FRAME */
    memcpy(buf + one, "GARBAGE!", 8);
    expect_read_error("garbage", buf, one + 8, 1, C, "frame 1: expected FRAME header", "GARBAGE");
    /* partial header at end of file */
    memcpy(buf + one, "FRA", 3);
    expect_read_error("partial FRA", buf, one + 3, 1, C, "frame 1: expected FRAME header", "FRA");
    /* FRAME followed by something else */
    memcpy(buf + one, "FRAMES\n", 7);
    expect_read_error("FRAMES", buf, one + 7, 1, C, "frame 1: expected FRAME header", NULL);
    /* trailing garbage (one byte) after the last frame */
    buf[one] = '\n';
    expect_read_error("trailing newline", buf, one + 1, 1, C, "frame 1: expected FRAME header",
                      "\\x0a");
    /* garbage where the first frame should start */
    memcpy(buf + strlen(hdr), "frame\n", 6);
    expect_read_error("lowercase frame", buf, one, 0, C, "frame 0: expected FRAME header", NULL);
    free(buf);

    /* a stream with no frames at all is valid and empty */
    fovea_reader *r = NULL;
    char err[512];
    REQUIRE(open_bytes(hdr, strlen(hdr), &r, err, sizeof(err)) == FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_info(r)->frame_count, 0);
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_EOF);
    fovea_frame_free(NULL, &f);
    fovea_reader_close(&r);
}

static void test_writer_rejects(void)
{
    const fovea_pixfmt bad[] = {FOVEA_PIX_NV12, FOVEA_PIX_RGB24, FOVEA_PIX_RGBA};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        fovea_video_info info;
        fovea_video_info_init(&info);
        info.width = 16;
        info.height = 8;
        info.fmt = bad[i];
        char *path = test_tmp_path(".y4m");
        fovea_writer *w = NULL;
        int st = fovea_writer_open(&w, NULL, path, FOVEA_CONTAINER_Y4M, &info);
        CHECK_EQ_INT(st, FOVEA_ERR_UNSUPPORTED);
        CHECK(w == NULL);
        CHECK(strstr(fovea_last_error(NULL), "convert") != NULL);
        CHECK(strstr(fovea_last_error(NULL), fovea_pixfmt_name(bad[i])) != NULL);
        free(path);
    }
}

/* ffmpeg's XCOLORRANGE tag: read (FULL, LIMITED; other values and none:
 * unknown), written when known, carried from a reader to a writer. */
static void test_color_range_tag(void)
{
    static const struct {
        const char *hdr;
        int range;
    } cases[] = {
        {"YUV4MPEG2 W4 H2 F25:1 C420jpeg XCOLORRANGE=FULL\n", FOVEA_COLOR_RANGE_FULL},
        {"YUV4MPEG2 W4 H2 XCOLORRANGE=LIMITED C420jpeg\n", FOVEA_COLOR_RANGE_LIMITED},
        {"YUV4MPEG2 W4 H2 C420jpeg XCOLORRANGE=SOMETIMES\n", FOVEA_COLOR_RANGE_UNKNOWN},
        {"YUV4MPEG2 W4 H2 C420jpeg XYSCSS=420JPEG\n", FOVEA_COLOR_RANGE_UNKNOWN},
    };
    fovea_frame fr[1];
    make_frames(fr, 1, 4, 2, FOVEA_PIX_I420, 7);
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        char *path = test_tmp_path(".y4m");
        FILE *fp = fopen(path, "wb");
        REQUIRE(fp != NULL);
        fputs(cases[k].hdr, fp);
        fputs("FRAME\n", fp);
        static const uint8_t payload[12] = {16, 40, 80, 120, 160, 200, 235, 17, 128, 90, 128, 170};
        fwrite(payload, 1, sizeof(payload), fp); /* one 4x2 i420 frame */
        fclose(fp);
        fovea_reader *r = NULL;
        REQUIRE(fovea_reader_open(&r, NULL, path, NULL) == FOVEA_OK);
        fovea_video_info ri = *fovea_reader_info(r);
        CHECK_EQ_INT(ri.color_range, cases[k].range);
        fovea_reader_close(&r);
        /* written back: the tag when the range is known, nothing else */
        char *path2 = test_tmp_path(".y4m");
        write_file(path2, &ri, fr, 1);
        size_t len;
        char *text = slurp_text(path2, &len);
        const char *eol = strchr(text, '\n');
        REQUIRE(eol != NULL);
        const char *tag = strstr(text, " XCOLORRANGE=");
        if (cases[k].range == FOVEA_COLOR_RANGE_FULL)
            CHECK(tag && tag < eol && strncmp(tag, " XCOLORRANGE=FULL\n", 18) == 0);
        else if (cases[k].range == FOVEA_COLOR_RANGE_LIMITED)
            CHECK(tag && tag < eol && strncmp(tag, " XCOLORRANGE=LIMITED\n", 21) == 0);
        else
            CHECK(!tag || tag > eol);
        free(text);
        remove(path);
        remove(path2);
        free(path);
        free(path2);
    }
    free_frames(fr, 1);
}

/* A 4x2 i420 y4m file of header hdr and one frame; returns its path. */
static char *write_tagged(const char *hdr)
{
    static const uint8_t payload[12] = {16, 40, 80, 120, 160, 200, 235, 17, 128, 90, 128, 170};
    size_t hl = strlen(hdr);
    uint8_t buf[1024];
    REQUIRE(hl + 6 + sizeof(payload) <= sizeof(buf));
    memcpy(buf, hdr, hl);
    memcpy(buf + hl, "FRAME\n", 6);
    memcpy(buf + hl + 6, payload, sizeof(payload));
    return test_write_tmp(".y4m", buf, hl + 6 + sizeof(payload));
}

/* Read path's info and first frame, write them back; returns the copy's bytes. */
static uint8_t *copy_y4m(const char *path, fovea_video_info *ri, size_t *len)
{
    fovea_reader *r = NULL;
    REQUIRE(fovea_reader_open(&r, NULL, path, NULL) == FOVEA_OK);
    *ri = *fovea_reader_info(r);
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    REQUIRE(fovea_reader_read(r, &f) == FOVEA_OK);
    fovea_reader_close(&r);
    char *out = test_tmp_path(".y4m");
    write_file(out, ri, &f, 1);
    fovea_frame_free(NULL, &f);
    uint8_t *data = test_read_file(out, len);
    remove(out);
    free(out);
    return data;
}

/* The header's X tags (ffmpeg always writes XYSCSS=...) are read into
 * extra_tags in order and written back, so ffmpeg's y4m copies byte for byte
 * (issue 45, item 6); tags that do not fit or hold control bytes are dropped
 * whole; an XYSCSS of another format is left out; the writer refuses bad tags. */
static void test_extra_tags(void)
{
    static const char *const same[] = {
        "YUV4MPEG2 W4 H2 F25:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\n",
        "YUV4MPEG2 W4 H2 F30000:1001 Ip A0:0 C420mpeg2 XYSCSS=420MPEG2 XCOLORRANGE=LIMITED\n",
        "YUV4MPEG2 W4 H2 F25:1 Ip A1:1 C420jpeg XA=1 XB XYSCSS=420JPEG XCOLORRANGE=FULL\n",
    };
    for (size_t k = 0; k < sizeof(same) / sizeof(same[0]); k++) {
        char *path = write_tagged(same[k]);
        size_t n_in, n_out;
        uint8_t *in = test_read_file(path, &n_in);
        fovea_video_info ri;
        uint8_t *out = copy_y4m(path, &ri, &n_out);
        if (n_in != n_out || memcmp(in, out, n_in) != 0)
            fprintf(stderr, "extra tags: wrote '%.*s' for '%s'\n",
                    (int)(strchr((char *)out, '\n') - (char *)out), (char *)out, same[k]);
        CHECK(n_in == n_out && memcmp(in, out, n_in) == 0);
        free(in);
        free(out);
        remove(path);
        free(path);
    }

    /* read: in order, XCOLORRANGE not among them (an unknown value is dropped),
     * a tag with a control byte dropped, one that does not fit dropped whole */
    char hdr[1024];
    int o = snprintf(hdr, sizeof(hdr),
                     "YUV4MPEG2 W4 H2 XFIRST=1 XCOLORRANGE=SOMETIMES X\x01Y C420jpeg");
    for (int i = 0; i < 30; i++) /* 30 x " XTAG=nn", 8 bytes each: 240 + "XFIRST=1" */
        o += snprintf(hdr + o, sizeof(hdr) - (size_t)o, " XTAG=%02d", i);
    snprintf(hdr + o, sizeof(hdr) - (size_t)o, " XLAST=lasting XZ\n");
    char want[FOVEA_Y4M_EXTRA_TAGS];
    o = snprintf(want, sizeof(want), "XFIRST=1");
    for (int i = 0; i < 30; i++)
        o += snprintf(want + o, sizeof(want) - (size_t)o, " XTAG=%02d", i);
    snprintf(want + o, sizeof(want) - (size_t)o, " XZ"); /* XLAST: 248 + 14 bytes, too many */
    char *path = write_tagged(hdr);
    fovea_reader *r = NULL;
    REQUIRE(fovea_reader_open(&r, NULL, path, NULL) == FOVEA_OK);
    const char *tags = fovea_reader_info(r)->extra_tags;
    if (strcmp(tags, want) != 0)
        fprintf(stderr, "extra tags read: '%s'\n", tags);
    CHECK(strcmp(tags, want) == 0);
    fovea_reader_close(&r);
    remove(path);
    free(path);

    /* write: an XYSCSS of another format than the frames' is left out */
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = 4;
    info.height = 2;
    info.fmt = FOVEA_PIX_I444;
    snprintf(info.extra_tags, sizeof(info.extra_tags), "XYSCSS=420JPEG  XKEEP=1 XYSCSS=444");
    fovea_frame fr[1];
    make_frames(fr, 1, 4, 2, FOVEA_PIX_I444, 5);
    char *p2 = test_tmp_path(".y4m");
    write_file(p2, &info, fr, 1);
    size_t len;
    char *text = slurp_text(p2, &len);
    CHECK(strncmp(text, "YUV4MPEG2 W4 H2 F25:1 Ip A0:0 C444 XKEEP=1 XYSCSS=444\n", 54) == 0);
    free(text);
    remove(p2);

    /* write: what is not an X tag fovea writes is refused */
    static const char *const bad[] = {"YSCSS=420JPEG", "XCOLORRANGE=FULL", "XA XB\tC", "XA\nFRAME"};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        snprintf(info.extra_tags, sizeof(info.extra_tags), "%s", bad[k]);
        fovea_writer *w = NULL;
        CHECK_EQ_INT(fovea_writer_open(&w, NULL, p2, FOVEA_CONTAINER_Y4M, &info),
                     FOVEA_ERR_INVALID_ARG);
        CHECK(w == NULL);
        CHECK(strstr(fovea_last_error(NULL), "extra_tags") != NULL);
    }
    memset(info.extra_tags, 'X', sizeof(info.extra_tags));
    fovea_writer *w = NULL;
    CHECK_EQ_INT(fovea_writer_open(&w, NULL, p2, FOVEA_CONTAINER_Y4M, &info),
                 FOVEA_ERR_INVALID_ARG);
    CHECK(w == NULL);
    FILE *probe = fopen(p2, "rb");
    CHECK(probe == NULL); /* a refused open leaves nothing behind */
    if (probe)
        fclose(probe);
    free(p2);
    free_frames(fr, 1);
}

int main(void)
{
    test_roundtrip_all_formats();
    test_header_written();
    test_carry_through();
    test_color_range_tag();
    test_extra_tags();
    test_frame_params_tolerated();
    test_streams();
    test_malformed_headers();
    test_malformed_frames();
    test_writer_rejects();
    return test_finish("test_io_y4m");
}
