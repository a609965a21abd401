/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* A program written for Birchfield's KLT 1.3.4, built against an installed
 * fovea unchanged, as docs/klt.md says:
 *   cc consumer_klt.c $(pkg-config --cflags --libs fovea-klt)
 * Its includes are KLT's own (quoted, no directory), and it uses KLT's
 * spellings (_KLT_FloatImage, pnmio's readers and writers). */
#include <stdio.h>
#include <stdlib.h>

#include "klt.h"
#include "pnmio.h"

#define NCOLS 160
#define NROWS 120

int main(int argc, char **argv)
{
    const char *pgm = argc > 1 ? argv[1] : "consumer_klt.pgm";
    unsigned char img[NCOLS * NROWS];
    /* a checkerboard: corners to select (inside KLT's default 24-pixel border) */
    for (int y = 0; y < NROWS; y++)
        for (int x = 0; x < NCOLS; x++)
            img[y * NCOLS + x] = (unsigned char)(((x / 8 + y / 8) % 2) ? 200 : 30);
    pgmWriteFile(pgm, img, NCOLS, NROWS);
    int ncols = 0, nrows = 0;
    unsigned char *back = pgmReadFile(pgm, NULL, &ncols, &nrows);
    if (!back || ncols != NCOLS || nrows != NROWS) {
        fprintf(stderr, "consumer_klt: pgmReadFile failed\n");
        free(back);
        return 1;
    }
    KLT_TrackingContext tc = KLTCreateTrackingContext();
    KLT_FeatureList fl = KLTCreateFeatureList(10);
    _KLT_FloatImage unused = NULL; /* KLT's spelling of the float image type */
    (void)unused;
    KLTSelectGoodFeatures(tc, back, ncols, nrows, fl);
    int n = KLTCountRemainingFeatures(fl);
    printf("klt %d features\n", n);
    KLTFreeFeatureList(fl);
    KLTFreeTrackingContext(tc);
    free(back);
    return n > 0 ? 0 : 1;
}
