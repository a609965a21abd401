/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* PNM (P5/P6): round trips through the writer/reader API and fovea_pnm_decode,
 * header parsing, sample scaling, and rejection of malformed files. */
#include <string.h>
#include <unistd.h>

#include "fovea/advanced.h"
#include "testutil.h"

static uint16_t sample16(const fovea_frame *f, int x, int y)
{
    const uint8_t *p = f->data[0] + (ptrdiff_t)y * f->stride[0] + 2 * x;
    return (uint16_t)(p[0] | p[1] << 8);
}

/* Write a random frame with the writer API, read it back with the reader API and
 * with fovea_pnm_decode; the result must equal the original (RGBA: its RGB). */
static void roundtrip(fovea_pixfmt fmt, int w, int h, const char *suffix, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    fovea_frame src;
    REQUIRE(fovea_frame_alloc(NULL, &src, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    test_fill_random(&src, &rng);

    char *path = test_tmp_path(suffix);
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = w;
    info.height = h;
    info.fmt = fmt;
    fovea_writer *wr = NULL;
    CHECK_EQ_INT(fovea_writer_open(&wr, NULL, path, FOVEA_CONTAINER_AUTO, &info), FOVEA_OK);
    REQUIRE(wr != NULL);
    CHECK_EQ_INT(fovea_writer_write(wr, &src), FOVEA_OK);
    /* One image per file without a pattern. */
    CHECK_EQ_INT(fovea_writer_write(wr, &src), FOVEA_ERR_UNSUPPORTED);
    CHECK_EQ_INT(fovea_writer_finish(wr), FOVEA_OK);
    fovea_writer_close(&wr);

    fovea_frame want;
    if (fmt == FOVEA_PIX_RGBA || fmt == FOVEA_PIX_RGBA64) {
        const int bps = fmt == FOVEA_PIX_RGBA ? 1 : 2;
        REQUIRE(fovea_frame_alloc(NULL, &want, w, h, bps == 1 ? FOVEA_PIX_RGB24 : FOVEA_PIX_RGB48,
                                  FOVEA_MEM_HOST) == 0);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                memcpy(want.data[0] + y * want.stride[0] + 3 * bps * x,
                       src.data[0] + y * src.stride[0] + 4 * bps * x, (size_t)(3 * bps));
    } else {
        want = src;
    }

    fovea_reader *rd = NULL;
    CHECK_EQ_INT(fovea_reader_open(&rd, NULL, path, NULL), FOVEA_OK);
    REQUIRE(rd != NULL);
    const fovea_video_info *ri = fovea_reader_info(rd);
    CHECK_EQ_INT(ri->width, w);
    CHECK_EQ_INT(ri->height, h);
    CHECK_EQ_INT(ri->fmt, want.fmt);
    CHECK_EQ_INT(ri->frame_count, 1);
    fovea_frame got;
    memset(&got, 0, sizeof(got));
    CHECK_EQ_INT(fovea_reader_read(rd, &got), FOVEA_OK);
    CHECK(fovea_frame_equal(&got, &want));
    CHECK_EQ_INT(got.index, 0);
    CHECK_EQ_INT(fovea_reader_read(rd, &got), FOVEA_EOF);
    fovea_reader_close(&rd);
    fovea_frame_free(NULL, &got);

    size_t size;
    uint8_t *data = test_read_file(path, &size);
    CHECK_EQ_INT(fovea_pnm_decode(NULL, data, size, &got), FOVEA_OK);
    CHECK(fovea_frame_equal(&got, &want));
    fovea_frame_free(NULL, &got);
    free(data);

    if (want.buf != src.buf)
        fovea_frame_free(NULL, &want);
    fovea_frame_free(NULL, &src);
    free(path);
}

/* Decode a file given as bytes; returns the status, frame in *f (caller frees). */
static int decode_bytes(const void *bytes, size_t n, fovea_frame *f, char *err, size_t errsz)
{
    int st = fovea_pnm_decode(NULL, bytes, n, f);
    if (st < 0)
        snprintf(err, errsz, "%s", fovea_last_error(NULL));
    return st;
}

static void test_header_and_scaling(void)
{
    char err[256];
    fovea_frame f;

    /* Comments between every token; the single byte after maxval is a newline and
     * the raster itself starts with bytes that look like whitespace and '#'. */
    static const char commented[] = "P5\n# made by hand\n3 # width\n#height next\n2\n255\n"
                                    " #\x01\x02\x03\x04";
    CHECK_EQ_INT(decode_bytes(commented, sizeof(commented) - 1, &f, err, sizeof(err)), 0);
    CHECK_EQ_INT(f.width, 3);
    CHECK_EQ_INT(f.height, 2);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_GRAY8);
    if (f.data[0]) {
        CHECK_EQ_INT(f.data[0][0], ' ');
        CHECK_EQ_INT(f.data[0][1], '#');
        CHECK_EQ_INT(f.data[0][2], 1);
        CHECK_EQ_INT(f.data[0][f.stride[0] + 2], 4);
    }
    fovea_frame_free(NULL, &f);

    /* Trailing whitespace after the raster is accepted. */
    static const char trailing_ws[] = "P5 2 1 255\n\x10\x20\n\n  ";
    CHECK_EQ_INT(decode_bytes(trailing_ws, sizeof(trailing_ws) - 1, &f, err, sizeof(err)), 0);
    fovea_frame_free(NULL, &f);

    /* 8-bit maxval < 255: rescaled to 0..255 with rounding (7*255/15 = 119). */
    static const uint8_t small_max[] = "P5 4 1 15\n\x00\x0f\x07\x08";
    CHECK_EQ_INT(decode_bytes(small_max, sizeof(small_max) - 1, &f, err, sizeof(err)), 0);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_GRAY8);
    if (f.data[0]) {
        CHECK_EQ_INT(f.data[0][0], 0);
        CHECK_EQ_INT(f.data[0][1], 255);
        CHECK_EQ_INT(f.data[0][2], 119);
        CHECK_EQ_INT(f.data[0][3], 136);
    }
    fovea_frame_free(NULL, &f);

    /* P6 16-bit is rgb48, every sample as it is. */
    static const uint8_t p6_16[] = "P6 1 1 65535\n\x00\x80\xff\xff\x7f\x7e";
    CHECK_EQ_INT(decode_bytes(p6_16, sizeof(p6_16) - 1, &f, err, sizeof(err)), 0);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_RGB48);
    if (f.data[0]) {
        CHECK_EQ_INT(sample16(&f, 0, 0), 0x0080);
        CHECK_EQ_INT(sample16(&f, 1, 0), 0xffff);
        CHECK_EQ_INT(sample16(&f, 2, 0), 0x7f7e);
    }
    fovea_frame_free(NULL, &f);

    /* P6 with another maxval above 255 is rgb48 rescaled to 0..65535 with rounding
     * (as P5 to gray16); samples above maxval clamped. */
    static const uint8_t p6_1000[] = "P6 1 1 1000\n\x03\xe8\x01\xf4\xff\xff";
    CHECK_EQ_INT(decode_bytes(p6_1000, sizeof(p6_1000) - 1, &f, err, sizeof(err)), 0);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_RGB48);
    if (f.data[0]) {
        CHECK_EQ_INT(sample16(&f, 0, 0), 65535);
        CHECK_EQ_INT(sample16(&f, 1, 0), (500 * 65535 + 500) / 1000);
        CHECK_EQ_INT(sample16(&f, 2, 0), 65535);
    }
    fovea_frame_free(NULL, &f);

    /* P5 maxval 4095 -> gray12 as is; 1000 -> gray16 rescaled; samples above
     * maxval are clamped. */
    static const uint8_t p5_12[] = "P5 2 1 4095\n\x0f\xff\x01\x23";
    CHECK_EQ_INT(decode_bytes(p5_12, sizeof(p5_12) - 1, &f, err, sizeof(err)), 0);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_GRAY12);
    if (f.data[0]) {
        CHECK_EQ_INT(sample16(&f, 0, 0), 4095);
        CHECK_EQ_INT(sample16(&f, 1, 0), 0x123);
    }
    fovea_frame_free(NULL, &f);
    static const uint8_t p5_1000[] = "P5 3 1 1000\n\x03\xe8\x01\xf4\xff\xff";
    CHECK_EQ_INT(decode_bytes(p5_1000, sizeof(p5_1000) - 1, &f, err, sizeof(err)), 0);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_GRAY16);
    if (f.data[0]) {
        CHECK_EQ_INT(sample16(&f, 0, 0), 65535);
        CHECK_EQ_INT(sample16(&f, 1, 0), (500 * 65535 + 500) / 1000);
        CHECK_EQ_INT(sample16(&f, 2, 0), 65535);
    }
    fovea_frame_free(NULL, &f);
}

typedef struct bad_case {
    const char *what;
    const char *bytes;
    size_t len; /* 0 = strlen(bytes) */
    int status;
    const char *keyword;
} bad_case;

static void test_malformed(void)
{
    static const bad_case cases[] = {
        {"empty file", "", 0, FOVEA_ERR_CORRUPT, "empty"},
        {"P4", "P4\n1 1\n\x80", 0, FOVEA_ERR_UNSUPPORTED, "unsupported PNM type P4 (only P5/P6)"},
        {"P7", "P7\nWIDTH 1\n", 0, FOVEA_ERR_UNSUPPORTED, "P7"},
        {"P1", "P1 1 1 1", 0, FOVEA_ERR_UNSUPPORTED, "P1"},
        {"bad magic", "GIF89a", 0, FOVEA_ERR_CORRUPT, "bad magic"},
        {"P9", "P9 1 1 255\n\x00", 0, FOVEA_ERR_CORRUPT, "bad magic"},
        {"missing height", "P5\n3\n", 0, FOVEA_ERR_CORRUPT, "missing height"},
        {"missing maxval", "P5 3 2", 0, FOVEA_ERR_CORRUPT, "missing maxval"},
        {"width 0", "P5 0 2 255\n", 0, FOVEA_ERR_CORRUPT, "width is 0"},
        {"height 0", "P5 2 0 255\n", 0, FOVEA_ERR_CORRUPT, "height is 0"},
        {"width 20000", "P5 20000 1 255\n", 0, FOVEA_ERR_UNSUPPORTED, "width 20000"},
        {"height huge", "P6 1 999999999999999999999 255\n", 0, FOVEA_ERR_UNSUPPORTED, "height"},
        {"maxval 0", "P5 1 1 0\n\x00", 0, FOVEA_ERR_CORRUPT, "maxval is 0"},
        {"maxval 70000", "P5 1 1 70000\n\x00\x00", 0, FOVEA_ERR_CORRUPT, "maxval 70000"},
        {"non-numeric width", "P5 abc 1 255\n", 0, FOVEA_ERR_CORRUPT, "width: expected a number"},
        {"junk in height", "P5 2 1x 255\n", 0, FOVEA_ERR_CORRUPT, "height"},
        {"no space after magic", "P52 1 255\n\x00\x00", 0, FOVEA_ERR_CORRUPT, "width"},
        {"no byte after maxval", "P5 1 1 255", 0, FOVEA_ERR_CORRUPT, "truncated"},
        {"comment after maxval", "P5 1 1 255#x\n\x00", 0, FOVEA_ERR_CORRUPT, "after maxval"},
        {"truncated raster", "P5 4 3 255\nabcde", 0, FOVEA_ERR_CORRUPT, "got 5 of 12 bytes"},
        {"truncated 16-bit", "P6 2 2 65535\n\x01\x02", 0, FOVEA_ERR_CORRUPT, "got 2 of 24"},
        {"trailing garbage", "P5 2 1 255\nabXYZ", 0, FOVEA_ERR_CORRUPT, "3 bytes of trailing data"},
        {"second image", "P5 1 1 255\na\nP5 1 1 255\nb", 0, FOVEA_ERR_CORRUPT, "trailing data"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const bad_case *c = &cases[i];
        size_t n = c->len ? c->len : strlen(c->bytes);
        fovea_frame f;
        int st = fovea_pnm_decode(NULL, (const uint8_t *)c->bytes, n, &f);
        if (st != c->status || !strstr(fovea_last_error(NULL), c->keyword)) {
            fprintf(stderr, "case '%s': status %d (want %d), message '%s' (want '%s')\n", c->what,
                    st, c->status, fovea_last_error(NULL), c->keyword);
            test_failures++;
        }
        CHECK(f.buf == NULL && f.data[0] == NULL);
        fovea_frame_free(NULL, &f);
    }

    /* Through the reader: the message names the file. */
    const char *bad = "P5 4 3 255\nabcde";
    char *path = test_write_tmp(".pgm", bad, strlen(bad));
    fovea_reader *rd = NULL;
    CHECK_EQ_INT(fovea_reader_open(&rd, NULL, path, NULL), FOVEA_ERR_CORRUPT);
    CHECK(rd == NULL);
    CHECK(strstr(fovea_last_error(NULL), path) != NULL);
    CHECK(strstr(fovea_last_error(NULL), "got 5 of 12 bytes") != NULL);
    free(path);

    path = test_write_tmp(".pnm", "", 0);
    CHECK_EQ_INT(fovea_reader_open(&rd, NULL, path, NULL), FOVEA_ERR_CORRUPT);
    CHECK(strstr(fovea_last_error(NULL), "empty") != NULL);
    free(path);

    /* NULL error buffer is allowed. */
    fovea_frame f;
    CHECK_EQ_INT(fovea_pnm_decode(NULL, (const uint8_t *)"P4", 2, &f), FOVEA_ERR_UNSUPPORTED);
}

static void test_writer_formats(void)
{
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = 8;
    info.height = 8;
    info.fmt = FOVEA_PIX_I420;
    char *path = test_tmp_path(".ppm");
    fovea_writer *wr = NULL;
    CHECK_EQ_INT(fovea_writer_open(&wr, NULL, path, FOVEA_CONTAINER_AUTO, &info),
                 FOVEA_ERR_UNSUPPORTED);
    CHECK(wr == NULL);
    CHECK(strstr(fovea_last_error(NULL), "convert to rgb24 or gray first") != NULL);
    free(path);

    /* The header written for gray10 says maxval 1023 and samples are big-endian. */
    fovea_frame f;
    REQUIRE(fovea_frame_alloc(NULL, &f, 2, 1, FOVEA_PIX_GRAY10, FOVEA_MEM_HOST) == 0);
    f.data[0][0] = 0xff; /* 0x3ff */
    f.data[0][1] = 0x03;
    f.data[0][2] = 0x34; /* 0x234 */
    f.data[0][3] = 0x02;
    info.width = 2;
    info.height = 1;
    info.fmt = FOVEA_PIX_GRAY10;
    path = test_tmp_path(".pgm");
    CHECK_EQ_INT(fovea_writer_open(&wr, NULL, path, FOVEA_CONTAINER_PNM, &info), 0);
    CHECK_EQ_INT(fovea_writer_write(wr, &f), FOVEA_OK);
    CHECK_EQ_INT(fovea_writer_finish(wr), FOVEA_OK);
    fovea_writer_close(&wr);
    size_t size;
    uint8_t *data = test_read_file(path, &size);
    static const uint8_t want[] = "P5\n2 1\n1023\n\x03\xff\x02\x34";
    CHECK_EQ_INT(size, sizeof(want) - 1);
    CHECK(size == sizeof(want) - 1 && memcmp(data, want, size) == 0);
    free(data);
    free(path);
    fovea_frame_free(NULL, &f);

    /* rgb48 is written as P6 65535, samples big-endian; rgba64 the same without alpha. */
    for (int k = 0; k < 2; k++) {
        const fovea_pixfmt fmt = k ? FOVEA_PIX_RGBA64 : FOVEA_PIX_RGB48;
        const int comps = k ? 4 : 3;
        REQUIRE(fovea_frame_alloc(NULL, &f, 2, 1, fmt, FOVEA_MEM_HOST) == 0);
        for (int i = 0; i < 2 * comps; i++) {
            f.data[0][2 * i] = (uint8_t)(0x10 + i);     /* low byte */
            f.data[0][2 * i + 1] = (uint8_t)(0xa0 + i); /* high byte */
        }
        path = test_tmp_path(".ppm");
        info.width = 2;
        info.height = 1;
        info.fmt = fmt;
        CHECK_EQ_INT(fovea_writer_open(&wr, NULL, path, FOVEA_CONTAINER_PNM, &info), 0);
        CHECK_EQ_INT(fovea_writer_write(wr, &f), FOVEA_OK);
        CHECK_EQ_INT(fovea_writer_finish(wr), FOVEA_OK);
        fovea_writer_close(&wr);
        data = test_read_file(path, &size);
        uint8_t want16[32];
        size_t n = 0;
        memcpy(want16, "P6\n2 1\n65535\n", 13);
        n = 13;
        for (int px = 0; px < 2; px++)
            for (int c = 0; c < 3; c++) {
                const int i = px * comps + c;
                want16[n++] = (uint8_t)(0xa0 + i);
                want16[n++] = (uint8_t)(0x10 + i);
            }
        CHECK_EQ_INT(size, n);
        CHECK(size == n && memcmp(data, want16, n) == 0);
        free(data);
        free(path);
        fovea_frame_free(NULL, &f);
    }
}

static void test_pattern(void)
{
    char *pattern = test_tmp_path("_out%03d.pgm");
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = 5;
    info.height = 3;
    info.fmt = FOVEA_PIX_GRAY8;
    fovea_writer *wr = NULL;
    CHECK_EQ_INT(fovea_writer_open(&wr, NULL, pattern, FOVEA_CONTAINER_AUTO, &info), FOVEA_OK);
    REQUIRE(wr != NULL);
    fovea_frame fr[3];
    test_rng rng;
    test_rng_seed(&rng, 77);
    for (int i = 0; i < 3; i++) {
        REQUIRE(fovea_frame_alloc(NULL, &fr[i], 5, 3, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
        test_fill_random(&fr[i], &rng);
        CHECK_EQ_INT(fovea_writer_write(wr, &fr[i]), FOVEA_OK);
    }
    CHECK_EQ_INT(fovea_writer_finish(wr), FOVEA_OK);
    fovea_writer_close(&wr);
    for (int i = 0; i < 3; i++) {
        char name[4096];
        snprintf(name, sizeof(name), pattern, i);
        fovea_reader *rd = NULL;
        CHECK_EQ_INT(fovea_reader_open(&rd, NULL, name, NULL), FOVEA_OK);
        if (rd) {
            fovea_frame got;
            memset(&got, 0, sizeof(got));
            CHECK_EQ_INT(fovea_reader_read(rd, &got), FOVEA_OK);
            CHECK(fovea_frame_equal(&got, &fr[i]));
            fovea_frame_free(NULL, &got);
            fovea_reader_close(&rd);
        }
        unlink(name);
        fovea_frame_free(NULL, &fr[i]);
    }
    free(pattern);
}

int main(void)
{
    roundtrip(FOVEA_PIX_GRAY8, 37, 23, ".pgm", 1);
    roundtrip(FOVEA_PIX_GRAY16, 19, 31, ".pgm", 2);
    roundtrip(FOVEA_PIX_GRAY10, 41, 7, ".pnm", 3);
    roundtrip(FOVEA_PIX_GRAY12, 3, 5, ".pgm", 4);
    roundtrip(FOVEA_PIX_RGB24, 33, 17, ".ppm", 5);
    roundtrip(FOVEA_PIX_RGBA, 13, 9, ".ppm", 6);
    roundtrip(FOVEA_PIX_GRAY8, 1, 1, ".pgm", 7);
    roundtrip(FOVEA_PIX_RGB48, 31, 9, ".ppm", 8);
    roundtrip(FOVEA_PIX_RGBA64, 7, 5, ".pnm", 9);
    roundtrip(FOVEA_PIX_RGB48, 1, 1, ".ppm", 10);
    test_header_and_scaling();
    test_malformed();
    test_writer_formats();
    test_pattern();
    return test_finish("test_io_pnm");
}
