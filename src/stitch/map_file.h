/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Stitch map files: save/load a fovea_stitch_map in the versioned, checksummed
 * binary format described in docs/map-format.md, and check a map against inputs. */
#ifndef FOVEA_STITCH_MAP_FILE_H
#define FOVEA_STITCH_MAP_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "stitch/map.h"

#define FOVEA_MAP_MAGIC "FOVEAMAP"
#define FOVEA_MAP_VERSION 1
#define FOVEA_MAP_FLAG_WEIGHTS 1u /* explicit per-pixel weights follow the grids */
#define FOVEA_MAP_MAX_DIM 16384   /* panorama and camera sides: 1..16384 */

/* Write m to path through fovea_outfile (a regular file is replaced through a
 * unique temporary renamed into place, so a failed save never leaves a
 * half-written map; a device or FIFO is written in place). The map is validated first: a map that
 * fv_map_load() would reject is refused with FOVEA_ERR_INVALID_ARG.
 * @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_IO or FOVEA_ERR_NOMEM; err
 *         (may be NULL) receives a message naming the file. */
int fv_map_save(const fovea_stitch_map *m, const char *path, char *err, size_t errsz);

/* Read a map file into *m (zeroed first; on failure *m is left empty).
 * The declared payload size is checked against the real file size before
 * anything is allocated.
 * @return FOVEA_OK, FOVEA_ERR_IO, FOVEA_ERR_CORRUPT, FOVEA_ERR_NOMEM or
 *         FOVEA_ERR_INVALID_ARG; err receives a message naming the file. */
int fv_map_load(const char *path, fovea_stitch_map *m, char *err, size_t errsz);

/* Serialize m into a malloc'd buffer (*data, *size; caller frees).
 * @return as fv_map_save (no FOVEA_ERR_IO). */
int fv_map_encode(const fovea_stitch_map *m, uint8_t **data, size_t *size, char *err, size_t errsz);

/* Parse a whole map file held in memory into *m (zeroed first; left empty on
 * failure). Every size is checked against `size` before allocating.
 * @return FOVEA_OK, FOVEA_ERR_CORRUPT, FOVEA_ERR_NOMEM or FOVEA_ERR_INVALID_ARG. */
int fv_map_decode(const uint8_t *data, size_t size, fovea_stitch_map *m, char *err, size_t errsz);

/* Check that a map fits the inputs: n cameras of widths[c] x heights[c].
 * @return FOVEA_OK, or FOVEA_ERR_MISMATCH with e.g. "map expects 2 cameras, got 3"
 *         or "camera 1: map expects 3840x2160, input is 1920x1080". */
int fv_map_check_cameras(const fovea_stitch_map *m, int n, const int *widths, const int *heights,
                         char *err, size_t errsz);

#endif
