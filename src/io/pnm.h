/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The PNM header parser, shared by the PNM reader (pnm.c) and KLT 1.3.4's
 * pnmio helpers (klt/pnmio.c), which read a header from a stream. */
#ifndef FOVEA_IO_PNM_H
#define FOVEA_IO_PNM_H

#include <stddef.h>
#include <stdint.h>

/* A parsed header: "P<kind>", width, height, maxval (each 1.., width and
 * height <= FOVEA_MAX_DIM, maxval <= 65535) with whitespace and '#' comments
 * between them, and the single whitespace byte after maxval; length counts
 * the bytes up to and including that byte (the raster follows). */
typedef struct pnm_header {
    char kind; /* '5' (gray) or '6' (RGB) */
    unsigned width, height, maxval;
    size_t length;
} pnm_header;

/* pnm_parse_header's answer when data ends before the header does and more
 * bytes could complete it (positive: not an error). The message of the
 * truncated header is in err all the same ("empty file", "missing height
 * (header ends early)", ...): a whole file that ends there is corrupt. */
#define PNM_HEADER_SHORT 1

/* Parse the header at the start of data[0..size).
 * @return FOVEA_OK with *h filled, PNM_HEADER_SHORT, or FOVEA_ERR_CORRUPT /
 *         FOVEA_ERR_UNSUPPORTED with the message in err (err may be NULL) */
int pnm_parse_header(const uint8_t *data, size_t size, pnm_header *h, char *err, size_t errsz);

#endif
