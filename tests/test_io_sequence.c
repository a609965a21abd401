/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Image sequences: a PNG or PNM path with a frame-number pattern (img%03d.png)
 * read as a video: numbering from 0 or 1, the count, the frames in order, the
 * end at the first missing number, a size or format change and a corrupt file
 * as errors naming the file, and a literal "%%" that is no pattern. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fovea/advanced.h"
#include "fovea/io.h"
#include "testutil.h"

static char dir[] = "/tmp/fovea_seq_XXXXXX";

static void write_png(const char *name, int n, int w, int h, fovea_pixfmt fmt, test_rng *rng,
                      fovea_frame *keep)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/", dir);
    snprintf(path + strlen(path), sizeof(path) - strlen(path), name, n);
    fovea_frame f;
    REQUIRE(fovea_frame_alloc(NULL, &f, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    test_fill_random(&f, rng);
    const int st = fovea_container_from_path(path) == FOVEA_CONTAINER_PNG
                       ? fovea_png_write_file(NULL, path, &f)
                       : -1;
    if (st != FOVEA_OK) { /* PNM through the writer */
        fovea_writer *w2 = NULL;
        fovea_video_info info;
        fovea_video_info_init(&info);
        info.width = w;
        info.height = h;
        info.fmt = fmt;
        REQUIRE(fovea_writer_open(&w2, NULL, path, FOVEA_CONTAINER_AUTO, &info) == FOVEA_OK);
        REQUIRE(fovea_writer_write(w2, &f) == FOVEA_OK);
        REQUIRE(fovea_writer_finish(w2) == FOVEA_OK);
        fovea_writer_close(&w2);
    }
    if (keep)
        *keep = f;
    else
        fovea_frame_free(NULL, &f);
}

static int same_pixels(const fovea_frame *a, const fovea_frame *b)
{
    if (a->width != b->width || a->height != b->height || a->fmt != b->fmt)
        return 0;
    const size_t row = fovea_plane_row_bytes(a->fmt, a->width, 0);
    for (int y = 0; y < a->height; y++)
        if (memcmp(a->data[0] + (ptrdiff_t)y * a->stride[0],
                   b->data[0] + (ptrdiff_t)y * b->stride[0], row) != 0)
            return 0;
    return 1;
}

static char *pat(const char *name)
{
    char *p = malloc(4096);
    REQUIRE(p);
    snprintf(p, 4096, "%s/%s", dir, name);
    return p;
}

int main(void)
{
    REQUIRE(mkdtemp(dir) != NULL);
    test_rng rng;
    test_rng_seed(&rng, 37);

    /* a%03d.png: 0..3, frames read back in order, then EOF */
    fovea_frame want[4];
    for (int i = 0; i < 4; i++)
        write_png("a%03d.png", i, 7, 5, FOVEA_PIX_RGB24, &rng, &want[i]);
    char *p = pat("a%03d.png");
    fovea_reader *r = NULL;
    CHECK_EQ_INT(fovea_reader_open(&r, NULL, p, NULL), FOVEA_OK);
    REQUIRE(r);
    const fovea_video_info *info = fovea_reader_info(r);
    CHECK_EQ_INT(info->width, 7);
    CHECK_EQ_INT(info->height, 5);
    CHECK_EQ_INT(info->fmt, FOVEA_PIX_RGB24);
    CHECK_EQ_INT(info->frame_count, 4);
    CHECK_EQ_INT(fovea_reader_container(r), FOVEA_CONTAINER_PNG);
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_OK);
        CHECK_EQ_INT(f.index, i);
        CHECK(same_pixels(&f, &want[i]));
    }
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_EOF);
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_EOF);
    fovea_reader_close(&r);
    free(p);

    /* b%d.pgm numbered from 1, with a gap after 2: 1 and 2 are the video */
    write_png("b%d.pgm", 1, 4, 3, FOVEA_PIX_GRAY8, &rng, NULL);
    write_png("b%d.pgm", 2, 4, 3, FOVEA_PIX_GRAY8, &rng, NULL);
    write_png("b%d.pgm", 4, 4, 3, FOVEA_PIX_GRAY8, &rng, NULL);
    p = pat("b%d.pgm");
    CHECK_EQ_INT(fovea_reader_open(&r, NULL, p, NULL), FOVEA_OK);
    REQUIRE(r);
    CHECK_EQ_INT(fovea_reader_info(r)->frame_count, 2);
    CHECK_EQ_INT(fovea_reader_info(r)->fmt, FOVEA_PIX_GRAY8);
    fovea_frame g;
    memset(&g, 0, sizeof(g));
    CHECK_EQ_INT(fovea_reader_read(r, &g), FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_read(r, &g), FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_read(r, &g), FOVEA_EOF);
    fovea_reader_close(&r);
    fovea_frame_free(NULL, &g);
    free(p);

    /* c%02d.png: the third image is larger: an error naming that file */
    write_png("c%02d.png", 0, 6, 6, FOVEA_PIX_RGB24, &rng, NULL);
    write_png("c%02d.png", 1, 6, 6, FOVEA_PIX_RGB24, &rng, NULL);
    write_png("c%02d.png", 2, 8, 6, FOVEA_PIX_RGB24, &rng, NULL);
    p = pat("c%02d.png");
    CHECK_EQ_INT(fovea_reader_open(&r, NULL, p, NULL), FOVEA_OK);
    REQUIRE(r);
    fovea_frame h;
    memset(&h, 0, sizeof(h));
    CHECK_EQ_INT(fovea_reader_read(r, &h), FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_read(r, &h), FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_read(r, &h), FOVEA_ERR_MISMATCH);
    CHECK(strstr(fovea_last_error(NULL), "c02.png: frame 2 is 8x6 rgb24") != NULL);
    CHECK(strstr(fovea_last_error(NULL), "is 6x6 rgb24") != NULL);
    fovea_reader_close(&r);
    fovea_frame_free(NULL, &h);
    free(p);

    /* d%d.png: the second file is not a PNG: its name in the message */
    write_png("d%d.png", 0, 3, 3, FOVEA_PIX_RGBA, &rng, NULL);
    char *bad = pat("d1.png");
    FILE *fp = fopen(bad, "wb");
    REQUIRE(fp);
    fputs("not a png", fp);
    fclose(fp);
    p = pat("d%d.png");
    CHECK_EQ_INT(fovea_reader_open(&r, NULL, p, NULL), FOVEA_OK);
    REQUIRE(r);
    CHECK_EQ_INT(fovea_reader_info(r)->frame_count, 2);
    memset(&h, 0, sizeof(h));
    CHECK_EQ_INT(fovea_reader_read(r, &h), FOVEA_OK);
    CHECK(fovea_reader_read(r, &h) < 0);
    CHECK(strstr(fovea_last_error(NULL), "d1.png") != NULL);
    fovea_reader_close(&r);
    fovea_frame_free(NULL, &h);
    free(p);
    free(bad);

    /* no file 0 nor 1: an error at open naming both */
    p = pat("none%03d.png");
    CHECK(fovea_reader_open(&r, NULL, p, NULL) == FOVEA_ERR_IO);
    CHECK(r == NULL);
    CHECK(strstr(fovea_last_error(NULL), "none000.png nor") != NULL);
    free(p);

    /* a bad pattern or "%%" is a plain name, opened as such */
    p = pat("e%%d.png");
    CHECK(fovea_reader_open(&r, NULL, p, NULL) == FOVEA_ERR_IO); /* "e%%d.png" does not exist */
    CHECK(strstr(fovea_last_error(NULL), "No such file") != NULL);
    free(p);
    /* a file named with a literal "%d" left by "%%" after expansion is not
     * read as a pattern again */
    write_png("f%%d%d.png", 0, 2, 2, FOVEA_PIX_GRAY8, &rng, NULL);
    write_png("f%%d%d.png", 1, 2, 2, FOVEA_PIX_GRAY8, &rng, NULL);
    p = pat("f%%d%d.png");
    CHECK_EQ_INT(fovea_reader_open(&r, NULL, p, NULL), FOVEA_OK);
    CHECK(r && fovea_reader_info(r)->frame_count == 2);
    fovea_reader_close(&r);
    free(p);

    fovea_frame_free(NULL, &f);
    for (int i = 0; i < 4; i++)
        fovea_frame_free(NULL, &want[i]);
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return test_finish("test_io_sequence");
}
