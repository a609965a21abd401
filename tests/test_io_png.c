/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* PNG: round trips through the writer/reader API and fovea_png_decode, decoding
 * of palette, low-bit-depth, gray+alpha, 16-bit RGB and interlaced images made
 * with libpng here, and rejection of malformed files. */
#include <setjmp.h>
#include <string.h>

#include <png.h>

#include "fovea/advanced.h"
#include "fovea/io.h"
#include "testutil.h"

/* ------------------------------------------------------------ helpers */

/* CRC-32 as PNG chunks use it (ISO 3309), bit by bit: speed does not matter here. */
static uint32_t crc32_png(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Offset of the first chunk of the given type, or 0. */
static size_t find_chunk(const uint8_t *png, size_t size, const char *type)
{
    size_t pos = 8;
    while (pos + 12 <= size) {
        uint32_t len = get_be32(png + pos);
        if (memcmp(png + pos + 4, type, 4) == 0)
            return pos;
        pos += 12 + (size_t)len;
    }
    return 0;
}

typedef struct membuf {
    uint8_t *data;
    size_t size, cap;
} membuf;

static void mem_write(png_structp png, png_bytep p, size_t n)
{
    membuf *m = png_get_io_ptr(png);
    if (m->size + n > m->cap) {
        m->cap = (m->size + n) * 2;
        m->data = realloc(m->data, m->cap);
        REQUIRE(m->data != NULL);
    }
    memcpy(m->data + m->size, p, n);
    m->size += n;
}

static void mem_flush(png_structp png)
{
    (void)png;
}

/* A description of a test image to encode with libpng directly. */
typedef struct png_spec {
    int width, height, bit_depth, color_type, interlace;
    const png_color *palette;
    int palette_size;
    const png_byte *trns;
    int trns_size;
    png_bytep *rows; /* packed rows in PNG layout */
} png_spec;

static uint8_t *encode_png(const png_spec *s, size_t *size)
{
    membuf m = {NULL, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    REQUIRE(png != NULL);
    png_infop info = png_create_info_struct(png);
    REQUIRE(info != NULL);
    if (setjmp(png_jmpbuf(png))) {
        fprintf(stderr, "libpng failed to encode a test image\n");
        exit(1);
    }
    png_set_write_fn(png, &m, mem_write, mem_flush);
    png_set_IHDR(png, info, (png_uint_32)s->width, (png_uint_32)s->height, s->bit_depth,
                 s->color_type, s->interlace, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (s->palette)
        png_set_PLTE(png, info, s->palette, s->palette_size);
    if (s->trns)
        png_set_tRNS(png, info, s->trns, s->trns_size, NULL);
    png_write_info(png, info);
    png_write_image(png, s->rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    *size = m.size;
    return m.data;
}

/* Rows of w*bpp bytes filled with random data. */
static png_bytep *random_rows(int w, int h, int bytes_per_pixel, test_rng *rng)
{
    png_bytep *rows = calloc((size_t)h, sizeof(*rows));
    REQUIRE(rows != NULL);
    for (int y = 0; y < h; y++) {
        rows[y] = malloc((size_t)w * (size_t)bytes_per_pixel);
        REQUIRE(rows[y] != NULL);
        for (int x = 0; x < w * bytes_per_pixel; x++)
            rows[y][x] = (png_byte)test_rng_u32(rng);
    }
    return rows;
}

static void free_rows(png_bytep *rows, int h)
{
    for (int y = 0; y < h; y++)
        free(rows[y]);
    free(rows);
}

static const uint8_t *px(const fovea_frame *f, int x, int y, int bpp)
{
    return f->data[0] + (ptrdiff_t)y * f->stride[0] + (ptrdiff_t)x * bpp;
}

/* Samples of a 16-bit frame that differ from big-endian PNG rows (n samples a row). */
static int count_bad16(const fovea_frame *f, png_bytep *rows, int n, int h)
{
    int bad = 0;
    for (int y = 0; y < h && f->data[0]; y++) {
        const uint8_t *p = f->data[0] + (ptrdiff_t)y * f->stride[0];
        for (int i = 0; i < n; i++)
            bad += (p[2 * i] | p[2 * i + 1] << 8) != (rows[y][2 * i] << 8 | rows[y][2 * i + 1]);
    }
    return bad;
}

/* A 16-bit RGB PNG with a tRNS color key. */
static uint8_t *encode_png_trns16(const png_spec *s, png_color_16 *key, size_t *size)
{
    membuf m = {NULL, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    REQUIRE(png != NULL);
    png_infop info = png_create_info_struct(png);
    REQUIRE(info != NULL);
    if (setjmp(png_jmpbuf(png))) {
        fprintf(stderr, "libpng failed to encode a test image\n");
        exit(1);
    }
    png_set_write_fn(png, &m, mem_write, mem_flush);
    png_set_IHDR(png, info, (png_uint_32)s->width, (png_uint_32)s->height, 16, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_tRNS(png, info, NULL, 0, key);
    png_write_info(png, info);
    png_write_image(png, s->rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    *size = m.size;
    return m.data;
}

/* ------------------------------------------------------------ round trips */

static void roundtrip(fovea_pixfmt fmt, int w, int h, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    fovea_frame src;
    REQUIRE(fovea_frame_alloc(NULL, &src, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    test_fill_random(&src, &rng);

    char *path = test_tmp_path(".png");
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = w;
    info.height = h;
    info.fmt = fmt;
    fovea_writer *wr = NULL;
    CHECK_EQ_INT(fovea_writer_open(&wr, NULL, path, FOVEA_CONTAINER_AUTO, &info), FOVEA_OK);
    REQUIRE(wr != NULL);
    CHECK_EQ_INT(fovea_writer_write(wr, &src), FOVEA_OK);
    CHECK_EQ_INT(fovea_writer_write(wr, &src), FOVEA_ERR_UNSUPPORTED);
    CHECK_EQ_INT(fovea_writer_finish(wr), FOVEA_OK);
    fovea_writer_close(&wr);

    fovea_reader *rd = NULL;
    CHECK_EQ_INT(fovea_reader_open(&rd, NULL, path, NULL), FOVEA_OK);
    REQUIRE(rd != NULL);
    const fovea_video_info *ri = fovea_reader_info(rd);
    CHECK_EQ_INT(ri->width, w);
    CHECK_EQ_INT(ri->height, h);
    CHECK_EQ_INT(ri->fmt, fmt);
    CHECK_EQ_INT(ri->frame_count, 1);
    fovea_frame got;
    memset(&got, 0, sizeof(got));
    CHECK_EQ_INT(fovea_reader_read(rd, &got), FOVEA_OK);
    CHECK(fovea_frame_equal(&got, &src));
    CHECK_EQ_INT(fovea_reader_read(rd, &got), FOVEA_EOF);
    fovea_reader_close(&rd);
    fovea_frame_free(NULL, &got);

    size_t size;
    uint8_t *data = test_read_file(path, &size);
    CHECK_EQ_INT(fovea_png_decode(NULL, data, size, &got), FOVEA_OK);
    CHECK(fovea_frame_equal(&got, &src));
    fovea_frame_free(NULL, &got);
    free(data);

    /* The convenience writer produces the same decodable image. */
    CHECK_EQ_INT(fovea_png_write_file(NULL, path, &src), FOVEA_OK);
    data = test_read_file(path, &size);
    CHECK_EQ_INT(fovea_png_decode(NULL, data, size, &got), FOVEA_OK);
    CHECK(fovea_frame_equal(&got, &src));
    fovea_frame_free(NULL, &got);
    free(data);

    fovea_frame_free(NULL, &src);
    free(path);
}

/* gray10 is stored as 16-bit with the top bits replicated (so 1023 shows as
 * white) and an sBIT chunk of 10. A reader that ignores sBIT sees full range. */
static void test_gray10_encoding(void)
{
    fovea_frame f;
    REQUIRE(fovea_frame_alloc(NULL, &f, 2, 1, FOVEA_PIX_GRAY10, FOVEA_MEM_HOST) == 0);
    f.data[0][0] = 0xff; /* 1023 */
    f.data[0][1] = 0x03;
    f.data[0][2] = 0x01; /* 513 */
    f.data[0][3] = 0x02;
    char *path = test_tmp_path(".png");
    CHECK_EQ_INT(fovea_png_write_file(NULL, path, &f), FOVEA_OK);
    size_t size;
    uint8_t *data = test_read_file(path, &size);
    CHECK(find_chunk(data, size, "sBIT") != 0);

    png_image img;
    memset(&img, 0, sizeof(img));
    img.version = PNG_IMAGE_VERSION;
    CHECK(png_image_begin_read_from_memory(&img, data, size));
    img.format = PNG_FORMAT_LINEAR_Y;
    uint16_t out[2] = {0, 0};
    CHECK(png_image_finish_read(&img, NULL, out, 0, NULL));
    /* The simplified API converts to linear light; only the extremes are exact. */
    CHECK_EQ_INT(out[0], 65535);
    png_image_free(&img);
    free(data);
    fovea_frame_free(NULL, &f);
    free(path);
}

/* ------------------------------------------------------------ decoding */

static void test_palette(void)
{
    static const png_color pal[4] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {10, 20, 30}};
    static const png_byte trns[4] = {255, 128, 0, 255};
    /* 2-bit indices: 5 pixels per row -> 2 bytes. */
    png_byte row0[2] = {0x1b, 0x40}; /* 0 1 2 3 | 1 */
    png_byte row1[2] = {0xe4, 0xc0}; /* 3 2 1 0 | 3 */
    png_bytep rows[2] = {row0, row1};
    static const int idx[2][5] = {{0, 1, 2, 3, 1}, {3, 2, 1, 0, 3}};
    for (int with_trns = 0; with_trns < 2; with_trns++) {
        png_spec s = {
            5, 2,   2, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE, pal, 4, with_trns ? trns : NULL,
            4, rows};
        size_t size;
        uint8_t *data = encode_png(&s, &size);
        fovea_frame f;
        CHECK_EQ_INT(fovea_png_decode(NULL, data, size, &f), FOVEA_OK);
        CHECK_EQ_INT(f.fmt, with_trns ? FOVEA_PIX_RGBA : FOVEA_PIX_RGB24);
        const int bpp = with_trns ? 4 : 3;
        for (int y = 0; y < 2 && f.data[0]; y++)
            for (int x = 0; x < 5; x++) {
                const uint8_t *p = px(&f, x, y, bpp);
                const png_color *c = &pal[idx[y][x]];
                CHECK(p[0] == c->red && p[1] == c->green && p[2] == c->blue);
                if (with_trns)
                    CHECK_EQ_INT(p[3], trns[idx[y][x]]);
            }
        fovea_frame_free(NULL, &f);
        free(data);
    }
}

static void test_interlaced(void)
{
    test_rng rng;
    test_rng_seed(&rng, 99);
    /* RGB 8-bit, odd size so every Adam7 pass has a ragged edge. */
    const int w = 19, h = 13;
    png_bytep *rows = random_rows(w, h, 3, &rng);
    png_spec s = {w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_ADAM7, NULL, 0, NULL, 0, rows};
    size_t size;
    uint8_t *data = encode_png(&s, &size);
    fovea_frame f;
    CHECK_EQ_INT(fovea_png_decode(NULL, data, size, &f), FOVEA_OK);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_RGB24);
    for (int y = 0; y < h && f.data[0]; y++)
        CHECK(memcmp(px(&f, 0, y, 3), rows[y], (size_t)w * 3) == 0);
    fovea_frame_free(NULL, &f);
    free(data);
    free_rows(rows, h);

    /* Gray 16-bit interlaced: big-endian in the file, little-endian in the frame. */
    rows = random_rows(w, h, 2, &rng);
    png_spec s16 = {w, h, 16, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_ADAM7, NULL, 0, NULL, 0, rows};
    data = encode_png(&s16, &size);
    CHECK_EQ_INT(fovea_png_decode(NULL, data, size, &f), FOVEA_OK);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_GRAY16);
    for (int y = 0; y < h && f.data[0]; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = px(&f, x, y, 2);
            CHECK(p[0] == rows[y][2 * x + 1] && p[1] == rows[y][2 * x]);
        }
    fovea_frame_free(NULL, &f);
    free(data);
    free_rows(rows, h);
}

static void test_other_types(void)
{
    test_rng rng;
    test_rng_seed(&rng, 5);
    fovea_frame f;
    size_t size;
    uint8_t *data;

    /* 1-bit gray -> gray8 0/255. */
    png_byte b0[1] = {0xa0}, b1[1] = {0x40};
    png_bytep rows1[2] = {b0, b1};
    png_spec s1 = {3, 2, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, NULL, 0, NULL, 0, rows1};
    data = encode_png(&s1, &size);
    CHECK_EQ_INT(fovea_png_decode(NULL, data, size, &f), FOVEA_OK);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_GRAY8);
    if (f.data[0]) {
        CHECK(f.data[0][0] == 255 && f.data[0][1] == 0 && f.data[0][2] == 255);
        CHECK(f.data[0][f.stride[0]] == 0 && f.data[0][f.stride[0] + 1] == 255);
    }
    fovea_frame_free(NULL, &f);
    free(data);

    /* gray+alpha 8-bit -> rgba with the gray value in R, G and B. */
    const int w = 7, h = 5;
    png_bytep *rows = random_rows(w, h, 2, &rng);
    png_spec sga = {w, h, 8, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_INTERLACE_NONE, NULL, 0, NULL, 0, rows};
    data = encode_png(&sga, &size);
    CHECK_EQ_INT(fovea_png_decode(NULL, data, size, &f), FOVEA_OK);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_RGBA);
    for (int y = 0; y < h && f.data[0]; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = px(&f, x, y, 4);
            const uint8_t g = rows[y][2 * x], a = rows[y][2 * x + 1];
            CHECK(p[0] == g && p[1] == g && p[2] == g && p[3] == a);
        }
    fovea_frame_free(NULL, &f);
    free(data);
    free_rows(rows, h);

    /* RGB 16-bit -> rgb48, every sample exact (big-endian file, little-endian frame). */
    rows = random_rows(w, h, 6, &rng);
    png_spec s16 = {w, h, 16, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, NULL, 0, NULL, 0, rows};
    data = encode_png(&s16, &size);
    CHECK_EQ_INT(fovea_png_decode(NULL, data, size, &f), FOVEA_OK);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_RGB48);
    CHECK_EQ_INT(count_bad16(&f, rows, w * 3, h), 0);
    fovea_frame_free(NULL, &f);
    free(data);

    /* ... and with tRNS -> rgba64, alpha 0 where the color matches, else 65535. */
    png_color_16 key;
    memset(&key, 0, sizeof(key));
    key.red = (png_uint_16)(rows[1][6] << 8 | rows[1][7]);
    key.green = (png_uint_16)(rows[1][8] << 8 | rows[1][9]);
    key.blue = (png_uint_16)(rows[1][10] << 8 | rows[1][11]);
    data = encode_png_trns16(&s16, &key, &size);
    CHECK_EQ_INT(fovea_png_decode(NULL, data, size, &f), FOVEA_OK);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_RGBA64);
    if (f.data[0]) {
        const uint8_t *p = px(&f, 1, 1, 8);
        CHECK_EQ_INT(p[0] | p[1] << 8, key.red);
        CHECK_EQ_INT(p[6] | p[7] << 8, 0);
        CHECK_EQ_INT(px(&f, 2, 1, 8)[6] | px(&f, 2, 1, 8)[7] << 8, 65535);
    }
    fovea_frame_free(NULL, &f);
    free(data);
    free_rows(rows, h);

    /* RGBA 16-bit (interlaced) -> rgba64, exact. */
    rows = random_rows(w, h, 8, &rng);
    png_spec s16a = {w,    h, 16,  PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_ADAM7, NULL, 0,
                     NULL, 0, rows};
    data = encode_png(&s16a, &size);
    CHECK_EQ_INT(fovea_png_decode(NULL, data, size, &f), FOVEA_OK);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_RGBA64);
    CHECK_EQ_INT(count_bad16(&f, rows, w * 4, h), 0);
    fovea_frame_free(NULL, &f);
    free(data);
    free_rows(rows, h);

    /* gray+alpha 16-bit -> rgba64 with the gray in R, G and B, exact. */
    rows = random_rows(w, h, 4, &rng);
    png_spec sga16 = {w,    h, 16,  PNG_COLOR_TYPE_GRAY_ALPHA, PNG_INTERLACE_NONE, NULL, 0,
                      NULL, 0, rows};
    data = encode_png(&sga16, &size);
    CHECK_EQ_INT(fovea_png_decode(NULL, data, size, &f), FOVEA_OK);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_RGBA64);
    int bad = 0;
    for (int y = 0; y < h && f.data[0]; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = px(&f, x, y, 8);
            const unsigned g = (unsigned)rows[y][4 * x] << 8 | rows[y][4 * x + 1];
            const unsigned a = (unsigned)rows[y][4 * x + 2] << 8 | rows[y][4 * x + 3];
            for (int c = 0; c < 3; c++)
                bad += (unsigned)(p[2 * c] | p[2 * c + 1] << 8) != g;
            bad += (unsigned)(p[6] | p[7] << 8) != a;
        }
    CHECK_EQ_INT(bad, 0);
    fovea_frame_free(NULL, &f);
    free(data);
    free_rows(rows, h);
}

/* ------------------------------------------------------------ malformed */

static void expect_fail(const char *what, const uint8_t *data, size_t size, int status,
                        const char *keyword)
{
    fovea_frame f;
    int st = fovea_png_decode(NULL, data, size, &f);
    if (st != status || (keyword && !strstr(fovea_last_error(NULL), keyword))) {
        fprintf(stderr, "case '%s': status %d (want %d), message '%s' (want '%s')\n", what, st,
                status, fovea_last_error(NULL), keyword ? keyword : "");
        test_failures++;
    }
    CHECK(f.buf == NULL && f.data[0] == NULL);
    CHECK(fovea_last_error(NULL)[0] != '\0');
    fovea_frame_free(NULL, &f);
}

/* Rewrite the CRC of the chunk at pos after its data was patched. */
static void fix_crc(uint8_t *png, size_t pos)
{
    uint32_t len = get_be32(png + pos);
    put_be32(png + pos + 8 + len, crc32_png(png + pos + 4, 4 + (size_t)len));
}

static void test_malformed(void)
{
    test_rng rng;
    test_rng_seed(&rng, 1234);
    const int w = 64, h = 48;
    png_bytep *rows = random_rows(w, h, 3, &rng);
    png_spec s = {w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, NULL, 0, NULL, 0, rows};
    size_t size;
    uint8_t *good = encode_png(&s, &size);
    free_rows(rows, h);
    uint8_t *buf = malloc(size);
    REQUIRE(buf != NULL);
    fovea_frame f;
    REQUIRE(fovea_png_decode(NULL, good, size, &f) == FOVEA_OK);
    fovea_frame_free(NULL, &f);

    expect_fail("zero-size input", good, 0, FOVEA_ERR_CORRUPT, "empty");
    expect_fail("7 bytes", good, 7, FOVEA_ERR_CORRUPT, "signature");

    memcpy(buf, good, size);
    buf[1] = 'X';
    expect_fail("bad signature", buf, size, FOVEA_ERR_CORRUPT, "signature");

    expect_fail("cut in half", good, size / 2, FOVEA_ERR_CORRUPT, "truncated");
    expect_fail("cut in IHDR", good, 20, FOVEA_ERR_CORRUPT, "truncated");
    size_t iend = find_chunk(good, size, "IEND");
    REQUIRE(iend != 0);
    expect_fail("no IEND", good, iend, FOVEA_ERR_CORRUPT, "truncated");

    size_t idat = find_chunk(good, size, "IDAT");
    REQUIRE(idat != 0);
    memcpy(buf, good, size);
    buf[idat + 8 + 10] ^= 0x55;
    expect_fail("IDAT CRC", buf, size, FOVEA_ERR_CORRUPT, "CRC");

    /* Valid CRC but corrupted zlib stream. */
    fix_crc(buf, idat);
    expect_fail("IDAT data", buf, size, FOVEA_ERR_CORRUPT, NULL);

    memcpy(buf, good, size);
    put_be32(buf + 16, 20000);
    put_be32(buf + 20, 1);
    fix_crc(buf, 8);
    expect_fail("20000x1", buf, size, FOVEA_ERR_UNSUPPORTED, "20000x1");

    memcpy(buf, good, size);
    put_be32(buf + 16, 0);
    fix_crc(buf, 8);
    expect_fail("width 0", buf, size, FOVEA_ERR_CORRUPT, NULL);

    /* 16384x16384 declared in a small file: rejected before the frame is allocated. */
    memcpy(buf, good, size);
    put_be32(buf + 16, 16384);
    put_be32(buf + 20, 16384);
    fix_crc(buf, 8);
    expect_fail("huge declared size", buf, size, FOVEA_ERR_CORRUPT, "truncated");

    /* Bad color type / bit depth combination in IHDR. */
    memcpy(buf, good, size);
    buf[24] = 3; /* RGB with 3-bit samples */
    fix_crc(buf, 8);
    expect_fail("bit depth 3", buf, size, FOVEA_ERR_CORRUPT, NULL);

    /* Through the reader: the message names the file. */
    char *path = test_write_tmp(".png", good, size / 2);
    fovea_reader *rd = NULL;
    CHECK_EQ_INT(fovea_reader_open(&rd, NULL, path, NULL), FOVEA_ERR_CORRUPT);
    CHECK(rd == NULL);
    CHECK(strstr(fovea_last_error(NULL), path) != NULL &&
          strstr(fovea_last_error(NULL), "truncated") != NULL);
    free(path);

    CHECK_EQ_INT(fovea_png_decode(NULL, good, 3, &f), FOVEA_ERR_CORRUPT);
    free(buf);
    free(good);
}

/* rgb48 / rgba64 are written as 16-bit RGB / RGBA (IHDR bit depth 16, color type 2 / 6),
 * samples big-endian as they are. */
static void test_png16_header(void)
{
    static const fovea_pixfmt fmts[2] = {FOVEA_PIX_RGB48, FOVEA_PIX_RGBA64};
    for (int i = 0; i < 2; i++) {
        fovea_frame f;
        REQUIRE(fovea_frame_alloc(NULL, &f, 2, 1, fmts[i], FOVEA_MEM_HOST) == FOVEA_OK);
        for (int k = 0; k < 4 * (3 + i); k++)
            f.data[0][k] = (uint8_t)(0x11 * (k + 1));
        char *path = test_tmp_path(".png");
        CHECK_EQ_INT(fovea_png_write_file(NULL, path, &f), FOVEA_OK);
        size_t size;
        uint8_t *data = test_read_file(path, &size);
        REQUIRE(size > 26);
        CHECK_EQ_INT(data[24], 16);
        CHECK_EQ_INT(data[25], i ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB);
        fovea_frame g;
        CHECK_EQ_INT(fovea_png_decode(NULL, data, size, &g), FOVEA_OK);
        CHECK_EQ_INT(g.fmt, fmts[i]);
        CHECK(g.data[0] && fovea_frame_equal(&f, &g));
        CHECK(g.data[0] && g.data[0][0] == 0x11 && g.data[0][1] == 0x22);
        fovea_frame_free(NULL, &g);
        fovea_frame_free(NULL, &f);
        free(data);
        free(path);
    }
}

static void test_writer_rejects_yuv(void)
{
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = 16;
    info.height = 16;
    info.fmt = FOVEA_PIX_I420;
    char *path = test_tmp_path(".png");
    fovea_writer *wr = NULL;
    CHECK_EQ_INT(fovea_writer_open(&wr, NULL, path, FOVEA_CONTAINER_AUTO, &info),
                 FOVEA_ERR_UNSUPPORTED);
    CHECK(wr == NULL);
    CHECK(strstr(fovea_last_error(NULL), "convert to rgb24 or gray first") != NULL);

    fovea_frame f;
    REQUIRE(fovea_frame_alloc(NULL, &f, 16, 16, FOVEA_PIX_I420, FOVEA_MEM_HOST) == 0);
    CHECK_EQ_INT(fovea_png_write_file(NULL, path, &f), FOVEA_ERR_UNSUPPORTED);
    fovea_frame_free(NULL, &f);
    CHECK_EQ_INT(fovea_png_write_file(NULL, "/nonexistent-dir/x.png", &f), FOVEA_ERR_INVALID_ARG);
    REQUIRE(fovea_frame_alloc(NULL, &f, 4, 4, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == 0);
    fovea_frame_fill(NULL, &f, 7);
    CHECK_EQ_INT(fovea_png_write_file(NULL, "/nonexistent-dir/x.png", &f), FOVEA_ERR_IO);
    CHECK(strstr(fovea_last_error(NULL), "/nonexistent-dir/x.png") != NULL);
    fovea_frame_free(NULL, &f);
    free(path);
}

int main(void)
{
    roundtrip(FOVEA_PIX_GRAY8, 37, 23, 1);
    roundtrip(FOVEA_PIX_GRAY16, 19, 31, 2);
    roundtrip(FOVEA_PIX_GRAY10, 41, 7, 3);
    roundtrip(FOVEA_PIX_GRAY12, 3, 5, 4);
    roundtrip(FOVEA_PIX_RGB24, 33, 17, 5);
    roundtrip(FOVEA_PIX_RGBA, 13, 9, 6);
    roundtrip(FOVEA_PIX_RGB24, 1, 1, 7);
    roundtrip(FOVEA_PIX_RGB48, 29, 11, 8);
    roundtrip(FOVEA_PIX_RGBA64, 17, 13, 9);
    roundtrip(FOVEA_PIX_RGB48, 1, 1, 10);
    test_png16_header();
    test_gray10_encoding();
    test_palette();
    test_interlaced();
    test_other_types();
    test_malformed();
    test_writer_rejects_yuv();
    return test_finish("test_io_png");
}
