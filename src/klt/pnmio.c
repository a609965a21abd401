/* KLT 1.3.4's pnmio helpers (include/pnmio.h). The header is read from the
 * stream token by token with the limits of fovea's PNM reader (so a stream can
 * hold several images), then the raster by its size, straight into the result. */
#include <stdlib.h>
#include <string.h>

#include "fovea/frame.h"
#include "fovea/io.h"
#include "pnmio.h"

/* Longest header accepted (magic, three numbers, comments, whitespace). */
#define PNMIO_MAX_HEADER 4096

static int is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Read the header of one image from fp: the magic, width, height and maxval,
 * with whitespace and comments between them, and the single whitespace byte
 * that ends it. @return its length, or 0 when it is not a PNM header or is
 * longer than PNMIO_MAX_HEADER. */
static size_t read_header(FILE *fp, int *magic, long *val)
{
    size_t n = 0;
    int c;
#define HEADER_BYTE(ch)                          \
    do {                                 \
        (void)(ch);                      \
        if (++n >= PNMIO_MAX_HEADER)     \
            return 0;                    \
    } while (0)
    if ((c = getc(fp)) != 'P')
        return 0;
    HEADER_BYTE(c);
    c = getc(fp);
    if (c != '5' && c != '6')
        return 0;
    HEADER_BYTE(c);
    *magic = c - '0';
    for (int field = 0; field < 3; field++) {
        /* whitespace and comments before the number; at least one separator */
        c = getc(fp);
        if (!is_space(c) && c != '#')
            return 0;
        while (is_space(c) || c == '#') {
            if (c == '#') {
                while (c != '\n' && c != '\r' && c != EOF) {
                    HEADER_BYTE(c);
                    c = getc(fp);
                }
                if (c == EOF)
                    return 0;
            }
            HEADER_BYTE(c);
            c = getc(fp);
        }
        if (c < '0' || c > '9')
            return 0;
        long v = 0;
        while (c >= '0' && c <= '9') {
            v = v * 10 + (c - '0');
            if (v > 65535) /* above any width, height or maxval fovea accepts */
                return 0;
            HEADER_BYTE(c);
            c = getc(fp);
        }
        val[field] = v;
        if (field < 2)
            ungetc(c, fp);
    }
    /* one whitespace byte ends the header; the raster follows */
    if (!is_space(c))
        return 0;
    HEADER_BYTE(c);
#undef HEADER_BYTE
    return n;
}

unsigned char *pgmRead(FILE *fp, unsigned char *img, int *ncols, int *nrows)
{
    if (ncols)
        *ncols = 0;
    if (nrows)
        *nrows = 0;
    if (!fp || !ncols || !nrows)
        return NULL;
    int magic = 0;
    long val[3] = {0, 0, 0};
    size_t hlen = read_header(fp, &magic, val);
    /* KLT reads 8-bit gray images only */
    if (hlen == 0 || magic != 5 || val[0] < 1 || val[1] < 1 || val[0] > FOVEA_MAX_DIM ||
        val[1] > FOVEA_MAX_DIM || val[2] < 1 || val[2] > 255)
        return NULL;
    /* the raster straight into the result: KLT's samples are the bytes as stored */
    const size_t raster = (size_t)val[0] * (size_t)val[1];
    unsigned char *out = img ? img : malloc(raster);
    if (!out)
        return NULL;
    if (fread(out, 1, raster, fp) != raster) {
        if (out != img)
            free(out);
        return NULL;
    }
    *ncols = (int)val[0];
    *nrows = (int)val[1];
    return out;
}

unsigned char *pgmReadFile(const char *fname, unsigned char *img, int *ncols, int *nrows)
{
    if (ncols)
        *ncols = 0;
    if (nrows)
        *nrows = 0;
    if (!fname)
        return NULL;
    FILE *fp = fopen(fname, "rb");
    if (!fp)
        return NULL;
    unsigned char *out = pgmRead(fp, img, ncols, nrows);
    fclose(fp);
    return out;
}

void pgmWrite(FILE *fp, unsigned char *img, int ncols, int nrows)
{
    if (!fp || !img || ncols < 1 || nrows < 1)
        return;
    if (fprintf(fp, "P5\n%d %d\n255\n", ncols, nrows) < 0)
        return;
    fwrite(img, 1, (size_t)ncols * (size_t)nrows, fp);
}

void pgmWriteFile(const char *fname, unsigned char *img, int ncols, int nrows)
{
    if (!fname || !img || ncols < 1 || nrows < 1)
        return;
    fovea_outfile *of;
    if (fovea_outfile_open(&of, fname, NULL, 0) < 0)
        return;
    FILE *fp = fovea_outfile_file(of);
    pgmWrite(fp, img, ncols, nrows);
    if (ferror(fp))
        fovea_outfile_abort(&of); /* never a half-written file over a good one */
    else
        fovea_outfile_commit(&of, NULL, 0);
}

void ppmWrite(FILE *fp, unsigned char *redimg, unsigned char *greenimg, unsigned char *blueimg,
              int ncols, int nrows)
{
    if (!fp || !redimg || !greenimg || !blueimg || ncols < 1 || nrows < 1)
        return;
    unsigned char *row = malloc((size_t)ncols * 3);
    if (!row)
        return;
    if (fprintf(fp, "P6\n%d %d\n255\n", ncols, nrows) >= 0) {
        for (int y = 0; y < nrows; y++) {
            const size_t o = (size_t)y * (size_t)ncols;
            for (int x = 0; x < ncols; x++) {
                row[3 * x] = redimg[o + x];
                row[3 * x + 1] = greenimg[o + x];
                row[3 * x + 2] = blueimg[o + x];
            }
            if (fwrite(row, 1, (size_t)ncols * 3, fp) != (size_t)ncols * 3)
                break;
        }
    }
    free(row);
}

void ppmWriteFileRGB(const char *fname, unsigned char *redimg, unsigned char *greenimg,
                     unsigned char *blueimg, int ncols, int nrows)
{
    if (!fname)
        return;
    fovea_outfile *of;
    if (fovea_outfile_open(&of, fname, NULL, 0) < 0)
        return;
    FILE *fp = fovea_outfile_file(of);
    ppmWrite(fp, redimg, greenimg, blueimg, ncols, nrows);
    if (ferror(fp))
        fovea_outfile_abort(&of);
    else
        fovea_outfile_commit(&of, NULL, 0);
}
