/* Rows (h) of bench_stitch: a floor for a design that takes the bilinear
 * filter off the texture unit. Each 128x16 panorama tile (the floor's tiles,
 * stitch_floor.h: one owner camera, no tables, weights or overlaps) is made in
 * one of two ways, chosen per tile by the host:
 *
 *  - STAGED_TEX: one bilinear texture fetch per output sample, as the floor;
 *  - STAGED_SMEM: the tile's box of camera texels (computed by the host from
 *    the map) is brought into shared memory by the bulk tensor copy engine
 *    (TMA: one thread issues a few box copies completing on an mbarrier, no
 *    registers held while the bytes travel) and the threads filter from there
 *    in integers (position rounded to 1/256 texel, 8-bit fractions, as the C
 *    backend's sampling), RGBA with two channels per 32-bit multiply.
 *
 * Both kinds of tile run in one kernel, so a mix keeps the texture pipeline
 * and the SM's integer units busy at once; the rows sweep the share of
 * STAGED_SMEM tiles. Outputs are checked on the host against the texture path
 * (within 2 codes: the texture unit's positions and rounding differ from the
 * integer filter's by a little). */
#ifndef FOVEA_BENCH_STITCH_STAGED_H
#define FOVEA_BENCH_STITCH_STAGED_H

#include <stdint.h>

#include "stitch_floor.h"

#ifdef __cplusplus
#define STAGED_ALIGN64 alignas(64)
extern "C" {
#else
#define STAGED_ALIGN64 _Alignas(64)
#endif

enum { STAGED_NONE = 0, STAGED_TEX = 1, STAGED_SMEM = 2 };
enum { STAGED_ROWS = 8 }; /* rows per box copy */
/* bench_staged_init's answer on a device older than sm_90 (no tensor copies) */
enum { STAGED_NEEDS_SM90 = -90 };

typedef struct staged_tile {
    int16_t x0, y0;   /* RGBA / luma box origin (texels; may be negative: zero fill) */
    int16_t cx0, cy0; /* NV12 chroma box origin (UV texels) */
    uint8_t mode;     /* STAGED_* */
    uint8_t chunks;   /* box copies of STAGED_ROWS rows (RGBA / luma) */
    uint8_t cchunks;  /* chroma box copies */
    uint8_t cam;      /* the tile's camera, 0 or 1 */
} staged_tile;

typedef struct staged_args {
    floor_args base;           /* grid, owner (unused), textures, outputs, sizes */
    const staged_tile *tiles;  /* device, per tile */
    int box_w;                 /* RGBA / luma box width in texels (16-byte multiple) */
    int cbox_w;                /* chroma box width in UV texels (16-byte multiple) */
    int max_chunks, max_cchunks;
    /* camera planes for the tensor maps: [c][0] RGBA or Y, [c][1] NV12 UV */
    const uint8_t *plane[2][2];
    int plane_w[2][2], plane_h[2][2], plane_stride[2][2];
    int nv12;
    STAGED_ALIGN64 unsigned char tmap[2][2][128]; /* filled by bench_staged_init */
    void *d_tmap;              /* device copy of tmap (bench_staged_init; cudaFree it) */
} staged_args;

/* Encodes the tensor maps (RGBA or NV12 per a->nv12), copies them to device
 * memory (a->d_tmap, allocated when NULL) and sets the kernels'
 * shared-memory limits. Returns a cudaError_t / CUresult-like code, 0 = ok. */
int bench_staged_init(staged_args *a);
/* One frame; returns the launch's cudaError_t. */
int bench_staged_run(const staged_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
