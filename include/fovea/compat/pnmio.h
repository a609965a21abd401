/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* KLT 1.3.4 compatibility: the PGM/PPM helpers of its pnmio.h, so programs
 * written for Birchfield's library (its examples read frames with pgmReadFile
 * and draw features with KLTWriteFeatureListToPPM / ppmWriteFileRGB) compile
 * unchanged against fovea (#include "pnmio.h" with `pkg-config fovea-klt`, or
 * <fovea/compat/pnmio.h> with `pkg-config fovea`).
 *
 * Differences from the original, which prints and exits on any error:
 *  - the readers return NULL on a missing, malformed, truncated or oversized
 *    image (never exit, never print; a caller's img may then hold part of a
 *    truncated raster); only binary 8-bit PGM (P5, maxval <= 255) is read,
 *    samples as stored;
 *  - the writers return nothing, as the originals: a write that fails is
 *    silently incomplete. Use fovea_writer (fovea/io.h) when errors matter. */
#ifndef FOVEA_PNMIO_COMPAT_H
#define FOVEA_PNMIO_COMPAT_H

#include <stdio.h>

#include "fovea/fovea.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Read a binary PGM file. img = NULL: the image is malloc()ed (free() it);
 *  otherwise it is written to img, which must hold ncols x nrows bytes.
 *  @return the image, or NULL on error (*ncols and *nrows are then 0) */
FOVEA_API unsigned char *pgmReadFile(const char *fname, unsigned char *img, int *ncols, int *nrows);

/** Write img (ncols x nrows bytes, row-major) as a binary PGM file. */
FOVEA_API void pgmWriteFile(const char *fname, unsigned char *img, int ncols, int nrows);

/** Write three planes as one binary PPM file. */
FOVEA_API void ppmWriteFileRGB(const char *fname, unsigned char *redimg, unsigned char *greenimg,
                               unsigned char *blueimg, int ncols, int nrows);

/** pgmReadFile on an open stream: reads exactly one image, so consecutive
 *  images of one stream (a pipe) are read by consecutive calls. */
FOVEA_API unsigned char *pgmRead(FILE *fp, unsigned char *img, int *ncols, int *nrows);

/** pgmWriteFile on an open stream. */
FOVEA_API void pgmWrite(FILE *fp, unsigned char *img, int ncols, int nrows);

/** ppmWriteFileRGB on an open stream. */
FOVEA_API void ppmWrite(FILE *fp, unsigned char *redimg, unsigned char *greenimg,
                        unsigned char *blueimg, int ncols, int nrows);

#ifdef __cplusplus
}
#endif

#endif
