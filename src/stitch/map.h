/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal stitch map: what the stitcher needs per panorama pixel and camera,
 * stored compactly. Built from a rig (map_build.c), saved/loaded (map_file.c),
 * or imported from full-resolution float tables (map_import.c). */
#ifndef FOVEA_STITCH_MAP_H
#define FOVEA_STITCH_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "fovea/rig.h"

#define FOVEA_STITCH_MAX_CAMERAS 16

/* Coordinates of camera pixel centers: top-left pixel center at (0,0). A panorama
 * pixel (i,j) is seen by camera c when its (u,v) is finite and
 * 0 <= u <= cam_width-1, 0 <= v <= cam_height-1 (and, for a fisheye, inside the
 * clip ellipse below).
 *
 * GRID maps: node (gx, gy) holds the exact (u,v) of panorama pixel
 * (i = gx*step, j = gy*step) (nodes may lie past the panorama's last pixel; they
 * hold the projection extended there). Pixel (i,j) uses the bilinear
 * interpolation of its four surrounding nodes, computed in float exactly as
 * fv_map_lookup() does. A node is NaN where the projection is undefined
 * (behind a pinhole camera; for a fisheye, past the extended range beyond
 * max_theta, see clip_*); a pixel touching a NaN node is not seen. step = 1 stores every pixel (the exact path).
 * Blend weights are analytic (see fv_map_weights) unless `weight` is set. */
typedef struct fv_camera_map {
    int cam_width, cam_height;
    int step;           /* grid spacing in panorama pixels: 1, 2, 4, 8, 16 or 32 */
    int grid_w, grid_h; /* nodes: (pano_w - 1) / step + 2 by (pano_h - 1) / step + 2 */
    float *uv;          /* grid_w * grid_h * 2 floats (u, v interleaved) */
    float px_scale;     /* panorama pixels per camera pixel near the image center,
                              used to turn edge distances into panorama pixels */
    /* Fisheye visibility (theta < max_theta) as a region of the image: the ellipse
     * ((u-clip_cx)/clip_rx)^2 + ((v-clip_cy)/clip_ry)^2 < 1, with clip_rx = fx * td(max_theta),
     * clip_ry = fy * td(max_theta) (td increases up to max_theta; the rig validation
     * checks it). clip_rx = 0: no ellipse (pinhole, imported maps). Grid nodes hold
     * the projection a little beyond max_theta so cells along that limit interpolate
     * normally and the ellipse, not NaN nodes, decides what is seen there. */
    float clip_cx, clip_cy, clip_rx, clip_ry;
    float *weight; /* NULL (analytic) or pano_w * pano_h explicit weights (import) */
} fv_camera_map;

typedef struct fovea_stitch_map {
    int pano_width, pano_height;
    int num_cameras;
    float feather; /* transition width across a seam, panorama pixels */
    fv_camera_map cam[FOVEA_STITCH_MAX_CAMERAS];
    /* Hugin's photometric parameters of a map built from a rig (photo.h; map
     * files and imported tables carry none: all disabled) */
    fovea_rig_photometric photo[FOVEA_STITCH_MAX_CAMERAS];
    double photo_exposure, photo_emor[5];
    int photo_linear_response;
} fovea_stitch_map;

/* Allocate cam->uv for a grid of the given step (NaN-filled). */
int fv_camera_map_alloc(fv_camera_map *cam, int pano_w, int pano_h, int step);
/* Free everything the map owns and zero it. */
void fv_stitch_map_free(fovea_stitch_map *m);

/* (u,v) of one camera map at panorama pixel (i,j) (see fv_map_lookup). */
int fv_camera_map_lookup(const fv_camera_map *cam, int i, int j, float *u, float *v);

/* (u,v) of camera c at panorama pixel (i,j) by the stored representation.
 * Returns 1 when seen (inside the image), 0 otherwise (u,v still set when finite). */
int fv_map_lookup(const fovea_stitch_map *m, int c, int i, int j, float *u, float *v);

/* Blend weights of every camera at pixel (i,j); w[c] = 0 for cameras that do not
 * see it. Returns the number of cameras with w > 0 (0 = uncovered: black). */
int fv_map_weights(const fovea_stitch_map *m, int i, int j, float w[FOVEA_STITCH_MAX_CAMERAS],
                   float u[FOVEA_STITCH_MAX_CAMERAS], float v[FOVEA_STITCH_MAX_CAMERAS]);

/* Weights along one panorama row: each camera's grid nodes are interpolated
 * to the row once (the column values of the per-pixel lookup), so a pixel only
 * interpolates across its cell, and cells whose nodes lie well outside a
 * camera's image skip that camera. fv_map_row_weights(r, i, ...) returns
 * exactly what fv_map_weights(m, i, r->j, ...) returns, w included; u and v
 * (required here) may differ for cameras that do not see the pixel (NaN). It
 * writes the map's cameras' entries only (c < num_cameras). */
typedef struct fv_map_row {
    const fovea_stitch_map *m;
    int j;
    const float *col[FOVEA_STITCH_MAX_CAMERAS]; /* (u, v) per node column, or NULL */
    const unsigned char
        *cell[FOVEA_STITCH_MAX_CAMERAS]; /* per cell: 0 not seen, 1 in part, 2 whole */
    void *buf;
    size_t cap;
} fv_map_row;

void fv_map_row_init(fv_map_row *r);
/* Prepare row j of map m (reusing r's buffer); FOVEA_ERR_NOMEM when it cannot grow. */
int fv_map_row_set(fv_map_row *r, const fovea_stitch_map *m, int j);
int fv_map_row_weights(const fv_map_row *r, int i, float w[FOVEA_STITCH_MAX_CAMERAS],
                       float u[FOVEA_STITCH_MAX_CAMERAS], float v[FOVEA_STITCH_MAX_CAMERAS]);
void fv_map_row_free(fv_map_row *r);

/* Runs of pixels that one camera alone sees whole. When pixel i of the
 * prepared row starts one, returns 1 with *cam the camera and *end the first
 * pixel after the run (i < *end <= i + max, whole grid cells of every camera
 * but where max or the panorama cuts it), and u[k], v[k] of pixel i + k (max
 * entries each): exactly what fv_map_row_weights gives there (w = 1 for
 * *cam, 0 for every other camera, count 1). Returns 0 when the weights of pixel
 * i need the general path: a cell that a camera sees only in part (image or
 * fisheye border, within a pixel of margin), two cameras, a weight table, or
 * no camera at all. The cells' codes come from fv_map_row_set: 0 not seen,
 * 1 seen in part, 2 seen whole. */
int fv_map_row_single(const fv_map_row *r, int i, int max, int *cam, int *end, float *u, float *v);

#endif
