/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launchers of the stitch kernels (stitch.cu) and their arguments, callable from C. Each returns
 * the cudaError_t of its launch as an int (0 = success). */
#ifndef FOVEA_STITCH_CUDA_H
#define FOVEA_STITCH_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "stitch/stitch_math.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STITCH_TILE_W 128 /* panorama pixels per tile row (32 threads x 4 pixels) */
#define STITCH_TILE_H 16  /* rows per tile (one thread block of either kernel) */
#define STITCH_MAXC 16
#define STITCH_TILE_INTERIOR 0x80000000u
#define STITCH_ITEM_PART_SHIFT 29 /* stitch_kernel_head.items */
#define STITCH_ITEM_TILE 0x1fffffffu
#define STITCH_STAT_FIELDS 12 /* = FOVEA_ST_FIELDS */
#define STITCH_LUT_SIZE 1021  /* = FOVEA_LUT_SIZE */
/* bytes between two cameras' 8-bit tables (3 x STITCH_LUT_SIZE, 16-byte aligned) */
#define STITCH_LUT8_STRIDE ((3 * STITCH_LUT_SIZE + 15) & ~15)

/* One block of the stitch (stitch_kernel_args.items), read as one 8-byte load */
typedef struct stitch_item {
    uint32_t tile_part;
    uint32_t mask;
} stitch_item;

typedef struct stitch_kernel_cam {
    const float *uv;       /* grid nodes (u,v) interleaved, device */
    const float *lut;      /* 3 x STITCH_LUT_SIZE floats, device */
    const uint8_t *lut8;   /* the same rounded to 8 bits (single-camera tiles) */
    const uint8_t *plane0; /* RGBA/RGB24 pixels, or Y */
    const uint8_t *plane1; /* NV12 UV or I420 U */
    const uint8_t *plane2; /* I420 V */
    int stride0, stride1, stride2;
    int width, height; /* camera size */
    int grid_w;
    int step_shift; /* step = 1 << step_shift */
    float px_scale;
    float clip_cx, clip_cy, clip_rx, clip_ry; /* fisheye ellipse; clip_rx = 0: none */
    float clip_irx, clip_iry;            /* 1.0f / clip_rx, 1.0f / clip_ry (0 without an ellipse) */
    const float *chroma;                 /* YUV: STITCH_CHROMA_CODES x 4 floats, device */
    unsigned long long tex0, tex1, tex2; /* cudaTextureObject_t of the planes (use_tex) */
    /* Hugin's photometric tables of the camera (stitch/photo.h's stitch_photo_cam:
     * STITCH_PHOTO_VIG floats, then 3 x STITCH_LUT_SIZE), device, or NULL */
    const float *photo;
} stitch_kernel_cam;

/* Everything of a launch but the cameras. The kernels take this followed by
 * as many camera slots as their template allows (2, 4, 8 or 16: the launch
 * copies n of them), so a two-camera launch passes about 480 bytes of
 * parameters instead of 2.4 KB (each frame waited for: about 1 us less). */
typedef struct stitch_kernel_head {
    int n;
    int pano_w, pano_h;
    float feather;
    int explicit_weights;
    const uint32_t *tile_masks; /* per 128x16 tile: low 16 bits cameras seen, high 16 bits
                                     cameras with weight > 0; a tile one camera sees has
                                     only its bit and STITCH_TILE_INTERIOR where that
                                     camera sees every pixel of the tile inside the
                                     panorama (a tile the panorama's edge cuts only
                                     when its sizes are even) */
    int tiles_x;
    /* blend weights of the tiles that are not single-camera tiles (see stitch.cu):
     * tile t's planes start at tile_weights + tile_wofs[t] */
    const float *tile_weights;
    const uint32_t *tile_wofs;
    uint8_t *out0, *out1, *out2; /* RGBA, or I420 Y/U/V */
    int out_stride0, out_stride1, out_stride2;
    stitch_input_kind in_format; /* the inputs' family */
    int black_y;                 /* Y of uncovered pixels: 16, or 0 in full range */
    int yuv_flags;               /* YUV inputs: STITCH_YUV_* of the settings */
    unsigned long long *stats;   /* NULL, or pairs x STITCH_STAT_FIELDS counters (zeroed before) */
    const uint32_t *stats_tiles; /* the statistics pass's tiles (index ty * tiles_x + tx): */
    int stats_tile_count;        /* those whose weights reach two cameras or more */
    const int *log_table;        /* FOVEA_LOG_TABLE_SIZE entries (see stitch/color.h) */
    int use_tex;                 /* 1: sample through texture objects (bilinear in the
                                     texture unit), 0: integer sampling in the kernel */
    int min_step_shift;          /* the smallest step_shift of the n cameras */
    /* the photometric output table (STITCH_PHOTO_OUT_SIZE codes), device, when a
     * camera has photo tables (RGB inputs then take the exact path, which
     * applies them; YUV inputs go without) */
    const unsigned short *photo_out;
    /* Texture path with every step >= 4 (else NULL): the stitch's blocks as a
     * list, block b making items[b]: tile_part = tile index | part <<
     * STITCH_ITEM_PART_SHIFT, mask = the tile's mask. Part 0: the whole tile. A
     * single-camera tile its camera does not see whole is two blocks, parts 1
     * and 2, each making one of its threads' two rows (RGB pixel rows, YUV
     * chroma rows); so is a tile whose weights reach two cameras in the RGB
     * list, and four blocks in the YUV list (parts 1 to 4: a chroma row parity
     * and half of the columns each, one 2x2 luma block per thread): those
     * paths' threads run long chains of dependent loads, and a block holds its
     * place on the SM until its slowest thread is done. Raster order, parts
     * side by side. There is one list for RGB inputs and one for YUV. */
    const stitch_item *items;
    int item_count;
} stitch_kernel_head;

typedef struct stitch_kernel_args {
    stitch_kernel_head h;
    stitch_kernel_cam cam[STITCH_MAXC];
} stitch_kernel_args;

int fv_stitch_launch(const stitch_kernel_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
