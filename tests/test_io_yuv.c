/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Raw .yuv reader/writer: round trips for planar, semi-planar, gray and packed
 * RGB formats, the geometry options, frame counts and truncated last frames. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_internal.h"
#include "testutil.h"

#define NFRAMES 3
#define W 33
#define H 17

static void make_frames(fovea_frame *frames, int n, fovea_pixfmt fmt, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    for (int i = 0; i < n; i++) {
        memset(&frames[i], 0, sizeof(frames[i]));
        REQUIRE(fovea_frame_alloc(NULL, &frames[i], W, H, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
        test_fill_random(&frames[i], &rng);
    }
}

static void free_frames(fovea_frame *frames, int n)
{
    for (int i = 0; i < n; i++)
        fovea_frame_free(NULL, &frames[i]);
}

static char *write_yuv(fovea_pixfmt fmt, const fovea_frame *frames, int n)
{
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = W;
    info.height = H;
    info.fmt = fmt;
    char *path = test_tmp_path(".yuv");
    fovea_writer *w = NULL;
    int st = fovea_writer_open(&w, NULL, path, FOVEA_CONTAINER_AUTO, &info);
    if (st != FOVEA_OK)
        fprintf(stderr, "%s\n", fovea_last_error(NULL));
    REQUIRE(st == FOVEA_OK);
    for (int i = 0; i < n; i++)
        CHECK_EQ_INT(fovea_writer_write(w, &frames[i]), FOVEA_OK);
    CHECK_EQ_INT(fovea_writer_finish(w), FOVEA_OK);
    fovea_writer_close(&w);
    return path;
}

static long long file_size(const char *path)
{
    FILE *fp = fopen(path, "rb");
    REQUIRE(fp != NULL);
    fseek(fp, 0, SEEK_END);
    long long n = ftell(fp);
    fclose(fp);
    return n;
}

static void raw_options(fovea_reader_settings *opt, fovea_pixfmt fmt)
{
    fovea_reader_default_settings(opt);
    opt->width = W;
    opt->height = H;
    opt->fmt = fmt;
}

static void test_roundtrip(void)
{
    const fovea_pixfmt fmts[] = {FOVEA_PIX_I420,   FOVEA_PIX_I420P10, FOVEA_PIX_NV12,
                                 FOVEA_PIX_GRAY8,  FOVEA_PIX_RGB24,   FOVEA_PIX_RGBA,
                                 FOVEA_PIX_I444P16};
    for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
        fovea_pixfmt fmt = fmts[k];
        fovea_frame frames[NFRAMES];
        make_frames(frames, NFRAMES, fmt, 300 + k);
        char *path = write_yuv(fmt, frames, NFRAMES);
        CHECK_EQ_INT(file_size(path), NFRAMES * (long long)fovea_frame_packed_size(fmt, W, H));

        fovea_reader_settings opt;
        raw_options(&opt, fmt);
        opt.fps_num = 50;
        opt.fps_den = 1;
        fovea_reader *r = NULL;
        int st = fovea_reader_open(&r, NULL, path, &opt);
        if (st != FOVEA_OK)
            fprintf(stderr, "%s: %s\n", fovea_pixfmt_name(fmt), fovea_last_error(NULL));
        REQUIRE(st == FOVEA_OK);
        const fovea_video_info *ri = fovea_reader_info(r);
        CHECK_EQ_INT(ri->width, W);
        CHECK_EQ_INT(ri->height, H);
        CHECK_EQ_INT(ri->fmt, fmt);
        CHECK_EQ_INT(ri->fps_num, 50);
        CHECK_EQ_INT(ri->fps_den, 1);
        CHECK_EQ_INT(ri->frame_count, NFRAMES);

        fovea_frame f;
        memset(&f, 0, sizeof(f));
        for (int i = 0; i < NFRAMES; i++) {
            CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_OK);
            CHECK_EQ_INT(f.index, i);
            CHECK(fovea_frame_equal(&f, &frames[i]));
        }
        CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_EOF);
        fovea_frame_free(NULL, &f);
        fovea_reader_close(&r);

        /* the same through a stream: size unknown */
        FILE *fp = fopen(path, "rb");
        REQUIRE(fp != NULL);
        opt.container = FOVEA_CONTAINER_YUV;
        REQUIRE(fv_reader_open_stream(NULL, &r, fp, "stream", &opt) == FOVEA_OK);
        CHECK_EQ_INT(fovea_reader_info(r)->frame_count, -1);
        CHECK_EQ_INT(fovea_reader_skip(r, 2), FOVEA_OK);
        memset(&f, 0, sizeof(f));
        CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_OK);
        CHECK_EQ_INT(f.index, 2);
        CHECK(fovea_frame_equal(&f, &frames[2]));
        CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_EOF);
        fovea_frame_free(NULL, &f);
        fovea_reader_close(&r);
        fclose(fp);

        free(path);
        free_frames(frames, NFRAMES);
    }
}

static void expect_geometry_error(const char *what, int w, int h, fovea_pixfmt fmt,
                                  const char *word)
{
    const uint8_t bytes[16] = {1};
    char *path = test_write_tmp(".yuv", bytes, sizeof(bytes));
    fovea_reader_settings opt;
    fovea_reader_default_settings(&opt);
    opt.width = w;
    opt.height = h;
    opt.fmt = fmt;
    fovea_reader *r = NULL;
    int st = fovea_reader_open(&r, NULL, path, &opt);
    if (st != FOVEA_ERR_INVALID_ARG || !strstr(fovea_last_error(NULL), word)) {
        fprintf(stderr, "%s: status %d, message '%s'\n", what, st, fovea_last_error(NULL));
        test_failures++;
    }
    CHECK(r == NULL);
    free(path);
}

static void test_geometry_errors(void)
{
    const char *msg = "raw yuv needs --width, --height and --pixfmt";
    expect_geometry_error("no options", 0, 0, FOVEA_PIX_NONE, msg);
    expect_geometry_error("no width", 0, 8, FOVEA_PIX_I420, msg);
    expect_geometry_error("no height", 8, 0, FOVEA_PIX_I420, msg);
    expect_geometry_error("no pixfmt", 8, 8, FOVEA_PIX_NONE, msg);
    expect_geometry_error("negative", -8, 8, FOVEA_PIX_I420, msg);
    expect_geometry_error("bad pixfmt", 8, 8, (fovea_pixfmt)999, msg);
    expect_geometry_error("too large", 20000, 8, FOVEA_PIX_I420, "20000x8");

    /* NULL options: same message */
    const uint8_t bytes[4] = {1, 2, 3, 4};
    char *path = test_write_tmp(".yuv", bytes, sizeof(bytes));
    fovea_reader *r = NULL;
    CHECK_EQ_INT(fovea_reader_open(&r, NULL, path, NULL), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(NULL), msg) != NULL);
    free(path);
}

static void test_truncated(void)
{
    const fovea_pixfmt fmt = FOVEA_PIX_I420P10;
    const size_t fb = fovea_frame_packed_size(fmt, W, H); /* 2 * 867 = 1734 */
    CHECK_EQ_INT(fb, 1734);
    fovea_frame frames[2];
    make_frames(frames, 2, fmt, 77);
    char *path = write_yuv(fmt, frames, 2);
    FILE *fp = fopen(path, "ab");
    REQUIRE(fp != NULL);
    uint8_t extra[100];
    memset(extra, 0x3c, sizeof(extra));
    REQUIRE(fwrite(extra, 1, sizeof(extra), fp) == sizeof(extra));
    fclose(fp);

    fovea_reader_settings opt;
    raw_options(&opt, fmt);
    fovea_reader *r = NULL;
    REQUIRE(fovea_reader_open(&r, NULL, path, &opt) == FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_info(r)->frame_count, 2);
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    for (int i = 0; i < 2; i++) {
        CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_OK);
        CHECK(fovea_frame_equal(&f, &frames[i]));
    }
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_ERR_CORRUPT);
    const char *msg = fovea_last_error(NULL);
    CHECK(strstr(msg, "frame 2") != NULL);
    CHECK(strstr(msg, "got 100 of 1734 bytes") != NULL);
    if (!strstr(msg, "got 100 of 1734 bytes"))
        fprintf(stderr, "message: %s\n", msg);
    fovea_frame_free(NULL, &f);
    fovea_reader_close(&r);

    /* a file shorter than one frame: count 0, first read reports truncation */
    char *small = test_write_tmp(".yuv", extra, sizeof(extra));
    REQUIRE(fovea_reader_open(&r, NULL, small, &opt) == FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_info(r)->frame_count, 0);
    memset(&f, 0, sizeof(f));
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_ERR_CORRUPT);
    CHECK(strstr(fovea_last_error(NULL), "frame 0: truncated: got 100 of 1734 bytes") != NULL);
    fovea_frame_free(NULL, &f);
    fovea_reader_close(&r);

    /* an empty file: no frames */
    char *empty = test_write_tmp(".yuv", "", 0);
    REQUIRE(fovea_reader_open(&r, NULL, empty, &opt) == FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_info(r)->frame_count, 0);
    memset(&f, 0, sizeof(f));
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_EOF);
    fovea_frame_free(NULL, &f);
    fovea_reader_close(&r);

    free(empty);
    free(small);
    free(path);
    free_frames(frames, 2);
}

int main(void)
{
    test_roundtrip();
    test_geometry_errors();
    test_truncated();
    return test_finish("test_io_yuv");
}
