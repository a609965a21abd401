/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* KLT 1.3.4's pnmio helpers (include/fovea/compat/pnmio.h). The header is read from the
 * stream a byte at a time and parsed by fovea's PNM parser (io/pnm.h; so a
 * stream can hold several images), then the raster by its size, straight into
 * the result. */
#include <stdlib.h>
#include <string.h>

#include "fovea/frame.h"
#include "fovea/io.h"
#include "io/io_buf.h"
#include "io/pnm.h"
#include "fovea/compat/pnmio.h"

/* Longest header accepted (magic, three numbers, comments, whitespace). */
#define PNMIO_MAX_HEADER 4095

/* Read the header of one image from fp, a byte at a time (the raster and any
 * later image stay in the stream), parsed by the PNM reader's parser.
 * @return 1 with *h filled, or 0 when it is not a PNM header, the stream
 * ends inside it, or it is longer than PNMIO_MAX_HEADER. */
static int read_header(FILE *fp, pnm_header *h)
{
    uint8_t buf[PNMIO_MAX_HEADER];
    size_t n = 0;
    int c;
    while (n < sizeof buf && (c = getc(fp)) != EOF) {
        buf[n++] = (uint8_t)c;
        int st = pnm_parse_header(buf, n, h, NULL, 0);
        if (st != PNM_HEADER_SHORT)
            return st == FOVEA_OK;
    }
    return 0;
}

unsigned char *pgmRead(FILE *fp, unsigned char *img, int *ncols, int *nrows)
{
    if (ncols)
        *ncols = 0;
    if (nrows)
        *nrows = 0;
    if (!fp || !ncols || !nrows)
        return NULL;
    pnm_header h;
    /* KLT reads 8-bit gray images only */
    if (!read_header(fp, &h) || h.kind != '5' || h.maxval > 255)
        return NULL;
    /* the raster straight into the result: KLT's samples are the bytes as stored */
    const size_t raster = (size_t)h.width * (size_t)h.height;
    unsigned char *out = img ? img : malloc(raster);
    if (!out)
        return NULL;
    if (fread(out, 1, raster, fp) != raster) {
        if (out != img)
            free(out);
        return NULL;
    }
    *ncols = (int)h.width;
    *nrows = (int)h.height;
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
    if (fv_outfile_open_buf(&of, fname, NULL, 0) < 0)
        return;
    FILE *fp = fovea_outfile_file(of);
    pgmWrite(fp, img, ncols, nrows);
    if (ferror(fp))
        fovea_outfile_close(&of); /* never a half-written file over a good one */
    else
        fv_outfile_commit_buf(&of, NULL, 0);
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
    if (fv_outfile_open_buf(&of, fname, NULL, 0) < 0)
        return;
    FILE *fp = fovea_outfile_file(of);
    ppmWrite(fp, redimg, greenimg, blueimg, ncols, nrows);
    if (ferror(fp))
        fovea_outfile_close(&of);
    else
        fv_outfile_commit_buf(&of, NULL, 0);
}
