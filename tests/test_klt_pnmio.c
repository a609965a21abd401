/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* KLT's pnmio helpers (include/fovea/compat/pnmio.h): PGM/PPM round trips through files and
 * streams (several images in one stream), preallocated and allocated images,
 * agreement with fovea's PNM reader, and NULL (never an exit) for missing,
 * malformed, truncated, oversized and unsupported images. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fovea/compat/pnmio.h"
#include "fovea/advanced.h"
#include "testutil.h"

static unsigned char *random_image(int w, int h, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    unsigned char *img = malloc((size_t)w * (size_t)h);
    REQUIRE(img != NULL);
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        img[i] = (unsigned char)test_rng_below(&rng, 256);
    return img;
}

/* The file at path through fovea's own PNM reader (which must accept it). */
static void decode_file(const char *path, fovea_frame *f)
{
    size_t size = 0;
    uint8_t *bytes = test_read_file(path, &size);
    REQUIRE(fovea_pnm_decode(NULL, bytes, size, f) == FOVEA_OK);
    free(bytes);
}

static void file_roundtrip(void)
{
    const int w = 37, h = 23;
    unsigned char *img = random_image(w, h, 1);
    char *path = test_tmp_path(".pgm");
    pgmWriteFile(path, img, w, h);

    int nc = -1, nr = -1;
    unsigned char *back = pgmReadFile(path, NULL, &nc, &nr);
    REQUIRE(back != NULL);
    CHECK_EQ_INT(nc, w);
    CHECK_EQ_INT(nr, h);
    CHECK(memcmp(back, img, (size_t)w * h) == 0);

    /* into a caller's buffer: that buffer is returned */
    unsigned char *mine = calloc((size_t)w * h, 1);
    REQUIRE(mine != NULL);
    CHECK(pgmReadFile(path, mine, &nc, &nr) == mine);
    CHECK(memcmp(mine, img, (size_t)w * h) == 0);

    /* fovea's own reader sees the same image */
    fovea_frame f;
    decode_file(path, &f);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_GRAY8);
    for (int y = 0; y < h; y++)
        CHECK(memcmp(f.data[0] + (ptrdiff_t)y * f.stride[0], img + (size_t)y * w, (size_t)w) == 0);
    fovea_frame_free(NULL, &f);
    free(mine);
    free(back);
    unlink(path);
    free(path);
    free(img);
}

static void stream_of_images(void)
{
    /* three images back to back in one stream, as a pipe delivers them; the
     * second header carries comments */
    char *path = test_tmp_path(".pgm");
    FILE *fp = fopen(path, "wb");
    REQUIRE(fp != NULL);
    unsigned char *a = random_image(5, 4, 2), *b = random_image(16, 1, 3),
                  *c = random_image(1, 9, 4);
    pgmWrite(fp, a, 5, 4);
    fputs("P5 # made by hand\n# another comment\n16 1\n255\n", fp);
    fwrite(b, 1, 16, fp);
    pgmWrite(fp, c, 1, 9);
    fclose(fp);

    fp = fopen(path, "rb");
    REQUIRE(fp != NULL);
    int w = 0, h = 0;
    unsigned char *r = pgmRead(fp, NULL, &w, &h);
    CHECK(r && w == 5 && h == 4 && memcmp(r, a, 20) == 0);
    free(r);
    r = pgmRead(fp, NULL, &w, &h);
    CHECK(r && w == 16 && h == 1 && memcmp(r, b, 16) == 0);
    free(r);
    r = pgmRead(fp, NULL, &w, &h);
    CHECK(r && w == 1 && h == 9 && memcmp(r, c, 9) == 0);
    free(r);
    /* the end of the stream */
    CHECK(pgmRead(fp, NULL, &w, &h) == NULL);
    CHECK_EQ_INT(w, 0);
    CHECK_EQ_INT(h, 0);
    fclose(fp);
    unlink(path);
    free(path);
    free(a);
    free(b);
    free(c);
}

static void ppm_planes(void)
{
    const int w = 6, h = 3;
    unsigned char *r = random_image(w, h, 5), *g = random_image(w, h, 6),
                  *b = random_image(w, h, 7);
    char *path = test_tmp_path(".ppm");
    ppmWriteFileRGB(path, r, g, b, w, h);
    fovea_frame f;
    decode_file(path, &f);
    CHECK_EQ_INT(f.fmt, FOVEA_PIX_RGB24);
    CHECK_EQ_INT(f.width, w);
    CHECK_EQ_INT(f.height, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = f.data[0] + (ptrdiff_t)y * f.stride[0] + 3 * x;
            const size_t i = (size_t)y * w + x;
            CHECK(p[0] == r[i] && p[1] == g[i] && p[2] == b[i]);
        }
    /* a PPM is not a PGM */
    int nc = 0, nr = 0;
    CHECK(pgmReadFile(path, NULL, &nc, &nr) == NULL);
    fovea_frame_free(NULL, &f);
    unlink(path);
    free(path);
    free(r);
    free(g);
    free(b);
}

/* maxval below 255: KLT keeps the samples as stored */
static void small_maxval(void)
{
    static const char data[] = "P5\n3 1\n15\n\x01\x0f\x07";
    char *path = test_write_tmp(".pgm", data, sizeof(data) - 1);
    int w = 0, h = 0;
    unsigned char *img = pgmReadFile(path, NULL, &w, &h);
    CHECK(img && w == 3 && h == 1 && img[0] == 1 && img[1] == 15 && img[2] == 7);
    free(img);
    unlink(path);
    free(path);
}

static void rejected(void)
{
    static const struct {
        const char *what;
        const char *data;
        size_t size;
    } bad[] = {
        {"empty", "", 0},
        {"not PNM", "hello world", 11},
        {"P2 ascii", "P2\n1 1\n255\n7\n", 13},
        {"truncated raster", "P5\n2 2\n255\n\x01\x02\x03", 14},
        {"no raster", "P5\n2 2\n255\n", 11},
        {"zero width", "P5\n0 2\n255\n", 11},
        {"too wide", "P5\n99999 1\n255\n", 15},
        {"16-bit", "P5\n1 1\n65535\n\x00\x01", 15},
        {"maxval 0", "P5\n1 1\n0\n\x00", 10},
        {"no separator after maxval", "P5\n1 1\n255", 10},
        {"unterminated comment", "P5\n# comment", 12},
        {"letters", "P5\nab 1\n255\n", 12},
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        char *path = test_write_tmp(".pgm", bad[k].data, bad[k].size);
        int w = -1, h = -1;
        unsigned char *img = pgmReadFile(path, NULL, &w, &h);
        if (img != NULL || w != 0 || h != 0)
            fprintf(stderr, "accepted: %s\n", bad[k].what);
        CHECK(img == NULL);
        CHECK_EQ_INT(w, 0);
        CHECK_EQ_INT(h, 0);
        free(img);
        unlink(path);
        free(path);
    }
    int w = -1, h = -1;
    CHECK(pgmReadFile("/nonexistent/dir/x.pgm", NULL, &w, &h) == NULL);
    CHECK(pgmReadFile(NULL, NULL, &w, &h) == NULL);
    CHECK(pgmRead(NULL, NULL, &w, &h) == NULL);
    /* writers ignore what they cannot write */
    pgmWriteFile("/nonexistent/dir/x.pgm", (unsigned char *)"ab", 2, 1);
    pgmWriteFile(NULL, NULL, 0, 0);
    ppmWriteFileRGB("/nonexistent/dir/x.ppm", NULL, NULL, NULL, 1, 1);
}

int main(void)
{
    file_roundtrip();
    stream_of_images();
    ppm_planes();
    small_maxval();
    rejected();
    return test_finish("test_klt_pnmio");
}
