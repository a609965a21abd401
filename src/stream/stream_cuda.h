/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launchers of the delta stream encoder's kernels (stream.cu), callable
 * from C. Every pointer is device memory; each launcher returns the
 * cudaError_t of its launch as an int (0 = success). The arithmetic is
 * docs/stream-format.md's (tiles, modes) and tiles.c's (the mode choice). */
#ifndef FOVEA_STREAM_CUDA_H
#define FOVEA_STREAM_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Threads of the one block of the scan kernel. */
#define STREAM_CUDA_SCAN_THREADS 1024

/* One plane of the source and of the reconstruction R. */
typedef struct stream_cuda_plane {
    int pw, ph;         /* plane size in pixels */
    int sx, sy;         /* subsampling shifts */
    int cpp, bps;       /* components a pixel, bytes a sample */
    const uint8_t *src; /* the source's plane */
    ptrdiff_t ss;
    uint8_t *rec; /* R's plane */
    ptrdiff_t rs;
} stream_cuda_plane;

/* The stream's tiles (stream_geom's) and the planes of a source and R. */
typedef struct stream_cuda_geom {
    int tile, tiles_x, tiles_y, planes;
    stream_cuda_plane pl[3];
} stream_cuda_geom;

/* flags[t] = 1 when some sample of some plane block of tile t differs from
 * R's by more than threshold, else 0 (one block a tile). */
int fv_stream_cuda_flags(const stream_cuda_geom *g, int threshold, uint8_t *flags, void *stream);

/* One block of STREAM_CUDA_SCAN_THREADS: the carried tiles (every tile when
 * key, else those flagged; flags NULL = none flagged) in ascending order in
 * list[0..n), off[i] the prefix sum of the coded bytes of list[0..i), and,
 * map non-NULL, the tile map of the flags (bit t % 8 of byte t / 8, bits past
 * the last tile 0). */
int fv_stream_cuda_scan(const stream_cuda_geom *g, const uint8_t *flags, int key, uint8_t *map,
                        int32_t *list, unsigned long long *off, void *stream);

/* Code tiles list[0..n) of the source at out + off[i] exactly as
 * stream_code_block does (key: against nothing, else against R), then copy
 * them into R (a block a tile and plane). */
typedef struct stream_cuda_code_args {
    stream_cuda_geom g;
    int key;
    int n;
    const int32_t *list;
    const unsigned long long *off;
    uint8_t *out;
    uint16_t cost[256]; /* stream_cost_table's */
} stream_cuda_code_args;

int fv_stream_cuda_code(const stream_cuda_code_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
