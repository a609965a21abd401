/* PNG helpers shared inside fovea (plots, coverage maps), not part of the public API. */
#ifndef FOVEA_PNG_INTERNAL_H
#define FOVEA_PNG_INTERNAL_H

#include <stddef.h>

#include "fovea/frame.h"

/** Write a host frame as a PNG file (gray8, gray10/12/16, rgb24 or rgba; the same
 *  encoding as the PNG writer). On failure the partial file is removed.
 *  @param err receives a message on failure (may be NULL)
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_UNSUPPORTED (YUV formats),
 *          FOVEA_ERR_IO, FOVEA_ERR_NOMEM or FOVEA_ERR_INTERNAL */
int fovea_png_write_file(const char *path, const fovea_frame *f, char *err, size_t errsz);

#endif
