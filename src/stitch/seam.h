/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Seam placement for multi-band blending: for each pair of cameras whose
 * map seam runs across rows of the panorama, a path through their overlap
 * that avoids where they differ (dynamic programming on a reduced map), kept
 * until a new one is clearly cheaper (hysteresis). Host code for every
 * backend: its inputs are the cameras' warped images on the host. */
#ifndef FOVEA_SEAM_H
#define FOVEA_SEAM_H

#include <stddef.h>
#include <stdint.h>

/* Reduction of the seam's map: cells of SEAM_CELL x SEAM_CELL panorama pixels. */
#define SEAM_CELL 4
/* A new seam replaces the old one when its cost is below (100 -
 * SEAM_MARGIN_PCT)% of the old seam's cost on the same frame. */
#define SEAM_MARGIN_PCT 10
/* Cost of a cell: 4 x the sum over its pixels of |luma A - luma B| plus
 * SEAM_BIAS per cell of distance to the map's seam (flat overlaps keep it). */
#define SEAM_BIAS 8
/* No label: a pixel no camera sees. */
#define SEAM_NONE 255

/* The seam of one pair on one cell row: cells lo .. hi of the row are both
 * cameras' (whole cells, map label a or b); the map's seam crosses at t
 * (cell t - 1 is `left`'s, t is `right`'s); the placed seam at x gives cells
 * lo .. x - 1 to left and x .. hi to right. lo = -1: none on this row. */
typedef struct fv_seam_span {
    int16_t lo, hi, t, x;
    int32_t off; /* index of cell lo's difference (fv_seam_diffs) */
} fv_seam_span;

typedef struct fv_seam_pair {
    uint8_t left, right; /* camera left of the seam and right of it (row of t) */
    int placed;          /* a seam has been placed (x valid) */
    fv_seam_span *row;   /* rh entries */
} fv_seam_pair;

typedef struct fv_seam {
    int w, h, rw, rh, n;
    int npairs;
    fv_seam_pair pair[16 * 15 / 2];
    size_t ncells; /* span cells of every pair and row: the differences' count */
    int32_t *diff; /* scratch: ncells differences */
    int64_t *cost; /* scratch: rw entries per row, rh rows */
    int64_t *acc;
    int8_t *from;
} fv_seam;

/* Find the pairs and their spans from the map's labels (label0: w x h bytes,
 * the camera of largest weight or SEAM_NONE) and which pixels each camera
 * sees (seen[c]: w x h bytes, 0 or 1). */
int fv_seam_init(fv_seam *s, int n, int w, int h, const uint8_t *label0,
                 const uint8_t *const *seen);
void fv_seam_free(fv_seam *s);

/* The reduced difference map: for each span cell (pairs in order, then cell
 * rows, then cells lo .. hi) the sum over its pixels (clipped to the
 * panorama) of |luma of left - luma of right|. fv_seam_cells lists those
 * cells for a backend that computes the sums itself: 2 words per cell,
 * left | right << 8 and cx | cy << 16. */
void fv_seam_cells(const fv_seam *s, uint32_t *cells);
void fv_seam_diffs(const fv_seam *s, const uint8_t *const *luma, int32_t *diffs);

/* Place the seams again from the reduced difference map (ncells sums), with
 * hysteresis. Returns 1 when a seam moved, else 0. */
int fv_seam_update_diffs(fv_seam *s, const int32_t *diffs);

/* fv_seam_diffs of the cameras' luma (luma[c]: w x h bytes, rows w apart),
 * then fv_seam_update_diffs. */
int fv_seam_update(fv_seam *s, const uint8_t *const *luma);

/* The labels the seams give: label0 where no seam's span reaches. */
void fv_seam_labels(const fv_seam *s, const uint8_t *label0, uint8_t *label);

#endif
