/* Host launchers of the stitch kernels (stitch.cu), callable from C. Each returns
 * the cudaError_t of its launch as an int (0 = success). */
#ifndef FOVEA_STITCH_CUDA_H
#define FOVEA_STITCH_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STITCH_TILE_W 128  /* panorama pixels per tile row (32 threads x 4 pixels) */
#define STITCH_TILE_H 16   /* rows per tile (one thread block of either kernel) */
#define STITCH_MAXC 16
#define STITCH_TILE_INTERIOR 0x80000000u
#define STITCH_ITEM_PART_SHIFT 29   /* stitch_kernel_head.items */
#define STITCH_ITEM_TILE 0x1fffffffu
#define STITCH_STAT_FIELDS 12 /* = FOVEA_ST_FIELDS */
#define STITCH_LUT_SIZE 1021   /* = FOVEA_LUT_SIZE */
/* bytes between two cameras' 8-bit tables (3 x STITCH_LUT_SIZE, 16-byte aligned) */
#define STITCH_LUT8_STRIDE ((3 * STITCH_LUT_SIZE + 15) & ~15)

/* YUV chroma correction tables: per camera STITCH_CHROMA_CODES entries of 4
 * floats (a_u, s_u, a_v, s_v), indexed by the block's mean raw luma code; a
 * chroma sample of quarter code q is corrected to a + s * q (see stitch.c). */
#define STITCH_CHROMA_CODES 256

#ifdef __CUDACC__
#define STITCH_HD __host__ __device__ __forceinline__
#else
#define STITCH_HD static inline
#endif

/* The luma of R, G, B quarter codes in the overlap statistics (see
 * fovea_overlap_stats in color.h). */
STITCH_HD int stitch_stats_luma(int r, int g, int b)
{
    return (77 * r + 150 * g + 29 * b + 128) >> 8;
}

/* The YUV conventions of a stitch (fovea_stitch_settings yuv_full_range and
 * yuv_colorspace), as flags: the tables' `yuv` argument
 * (fovea_stitch_build_tables) and stitch_kernel_head.yuv_flags. */
#define STITCH_YUV 1        /* YUV input (else RGB) */
#define STITCH_YUV_FULL 2   /* full range: Y 0..255 (else limited: Y 16..235, UV 16..240) */
#define STITCH_YUV_BT709 4  /* BT.709 matrix (else BT.601) */

/* Y of uncovered panorama pixels under flags: black of the range */
STITCH_HD int stitch_black_y(int flags)
{
    return flags & STITCH_YUV_FULL ? 0 : 16;
}

/* The R, G, B quarter codes (0..1020) of a YUV sample for the overlap
 * statistics: luma qy and chroma qu, qv in quarter codes, in the matrix and
 * range of flags (STITCH_YUV_*), in integers (the usual 8-bit fixed-point
 * coefficients, x 256) so that both backends get the same numbers; rgbq[3] is
 * the luma of those, as for RGB inputs. */
STITCH_HD void stitch_yuv_rgbq(int qy, int qu, int qv, int flags, int rgbq[4])
{
    const int du = qu - 512, dv = qv - 512;
    const int full = flags & STITCH_YUV_FULL, bt709 = flags & STITCH_YUV_BT709;
    /* luma scale, V in R, U and V in G, U in B */
    const int ky = full ? 256 : 298;
    const int rv = bt709 ? (full ? 403 : 459) : (full ? 359 : 409);
    const int gu = bt709 ? (full ? 48 : 55) : (full ? 88 : 100);
    const int gv = bt709 ? (full ? 120 : 136) : (full ? 183 : 208);
    const int bu = bt709 ? (full ? 475 : 541) : (full ? 454 : 516);
    const int y = ky * (full ? qy : qy - 64) + 128;
    const int t[3] = {y + rv * dv, y - gu * du - gv * dv, y + bu * du};
    for (int k = 0; k < 3; k++) {
        const int x = t[k] < 0 ? 0 : t[k] >> 8; /* no shift of a negative number */
        rgbq[k] = x > 1020 ? 1020 : x;
    }
    rgbq[3] = stitch_stats_luma(rgbq[0], rgbq[1], rgbq[2]);
}

/* The chroma tables' index of a block from the sum of its n (1..4) raw luma
 * samples in quarter codes: their mean in codes, rounded. */
STITCH_HD int stitch_chroma_index(int qsum, int n)
{
    return n == 4 ? (qsum + 8) >> 4 : (n == 2 ? (qsum + 4) >> 3 : (n == 1 ? (qsum + 2) >> 2 : (qsum + 6) / 12));
}

/* A chroma sample of quarter code q corrected through a chroma table entry's
 * (a, s): a + s q, float operations in that order in every backend. */
STITCH_HD float stitch_chroma_corrected(float a, float s, int q)
{
    return a + s * (float)q;
}

/* One block of the stitch (stitch_kernel_args.items), read as one 8-byte load */
typedef struct stitch_item {
    uint32_t tile_part;
    uint32_t mask;
} stitch_item;

typedef struct stitch_kernel_cam {
    const float *uv;          /* grid nodes (u,v) interleaved, device */
    const float *lut;         /* 3 x STITCH_LUT_SIZE floats, device */
    const uint8_t *lut8;      /* the same rounded to 8 bits (single-camera tiles) */
    const uint8_t *plane0;    /* RGBA/RGB24 pixels, or Y */
    const uint8_t *plane1;    /* NV12 UV or I420 U */
    const uint8_t *plane2;    /* I420 V */
    int stride0, stride1, stride2;
    int width, height;        /* camera size */
    int grid_w;
    int step_shift;           /* step = 1 << step_shift */
    float px_scale;
    float clip_cx, clip_cy, clip_rx, clip_ry; /* fisheye ellipse; clip_rx = 0: none */
    float clip_irx, clip_iry; /* 1.0f / clip_rx, 1.0f / clip_ry (0 without an ellipse) */
    const float *chroma;      /* YUV: STITCH_CHROMA_CODES x 4 floats, device */
    unsigned long long tex0, tex1, tex2; /* cudaTextureObject_t of the planes (use_tex) */
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
    const uint32_t *tile_masks;   /* per 128x16 tile: low 16 bits cameras seen, high 16 bits
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
    uint8_t *out0, *out1, *out2;  /* RGBA, or I420 Y/U/V */
    int out_stride0, out_stride1, out_stride2;
    int in_format;                /* 0 RGBA, 1 RGB24, 2 NV12, 3 I420 */
    int black_y;                  /* Y of uncovered pixels: 16, or 0 in full range */
    int yuv_flags;                /* YUV inputs: STITCH_YUV_* of the settings */
    unsigned long long *stats;    /* NULL, or pairs x STITCH_STAT_FIELDS counters (zeroed before) */
    const uint32_t *stats_tiles;  /* the statistics pass's tiles (index ty * tiles_x + tx): */
    int stats_tile_count;         /* those whose weights reach two cameras or more */
    const int *log_table;         /* FOVEA_LOG_TABLE_SIZE entries (see stitch/color.h) */
    int use_tex;                  /* 1: sample through texture objects (bilinear in the
                                     texture unit), 0: integer sampling in the kernel */
    int min_step_shift;           /* the smallest step_shift of the n cameras */
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

int fovea_stitch_launch(const stitch_kernel_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
