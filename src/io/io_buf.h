/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal variants of public I/O functions that report into a caller's
 * buffer (err may be NULL or errsz 0) instead of a context: for the library's
 * own writers (map files, KLT files, PNG stills) and the still-image readers.
 * The public functions (fovea/io.h) wrap them and record the message as the
 * context's last error. */
#ifndef FOVEA_IO_BUF_H
#define FOVEA_IO_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "fovea/advanced.h"
#include "fovea/io.h"

int fv_outfile_open_buf(fovea_outfile **of, const char *path, char *err, size_t errsz);
int fv_outfile_commit_buf(fovea_outfile **of, char *err, size_t errsz);
int fv_png_write_file_buf(const char *path, const fovea_frame *f, char *err, size_t errsz);
int fv_pnm_decode_buf(const uint8_t *data, size_t size, fovea_frame *f, char *err, size_t errsz);
int fv_png_decode_buf(const uint8_t *data, size_t size, fovea_frame *f, char *err, size_t errsz);

#endif
