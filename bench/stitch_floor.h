/* The floor of the texture-gather design, measured beside fovea's stitch in
 * bench_stitch (rows (f)): every 128x16 panorama tile takes one camera (the
 * one with the largest weight at the tile's centre) and each output sample is
 * one bilinear texture fetch at the position interpolated from that camera's
 * grid, converted to a byte and stored. No correction tables, no weights, no
 * second camera in the overlaps, no edge tests: what is left of fovea's kernel
 * when everything but the gather and the stores is taken away. With no_stores
 * the kernels fetch and convert the same but store nothing: the gather alone
 * (rows "(f) ... gather only"). */
#ifndef FOVEA_BENCH_STITCH_FLOOR_H
#define FOVEA_BENCH_STITCH_FLOOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FLOOR_TILE_W 128
#define FLOOR_TILE_H 16
#define FLOOR_NO_CAMERA 255

typedef struct floor_args {
    const float *uv[2];         /* device grid nodes (u, v interleaved) of cameras 0 and 1 */
    int grid_w;                 /* nodes per grid row (both cameras) */
    int step_shift;             /* grid step 1 << step_shift; must be 2 (step 4) */
    unsigned long long tex[2][2]; /* per camera: plane 0 (RGBA or Y), plane 1 (NV12 UV) */
    const uint8_t *owner;       /* device, per tile: camera 0 or 1, FLOOR_NO_CAMERA */
    int tiles_x, tiles_y;
    uint8_t *out0, *out1, *out2; /* RGBA, or I420 Y, U, V (device) */
    int stride0, stride1, stride2;
    int pano_w, pano_h;         /* even */
    int no_stores;              /* 1: the gather alone, nothing stored */
} floor_args;

/* The same bytes in the ideal access pattern: every input span read and every
 * output span written as a coalesced stream of 16-byte words, in one
 * grid-stride loop whose iteration i loads word i of each input span and then
 * stores word i of each output span (the stores depending on the loads, as a
 * stitch's on its fetches). With the input spans set to the camera bytes the
 * floor's fetches touch, this is what moving the floor's bytes takes with no
 * gather at all (rows "(f) ideal"). Spans are 16-byte aligned; their byte
 * counts are rounded down to whole words; unused spans have 0 bytes. */
#define FLOOR_STREAM_IN 4
#define FLOOR_STREAM_OUT 3
typedef struct floor_stream_args {
    const uint8_t *in[FLOOR_STREAM_IN];
    size_t in_bytes[FLOOR_STREAM_IN];
    uint8_t *out[FLOOR_STREAM_OUT];
    size_t out_bytes[FLOOR_STREAM_OUT];
} floor_stream_args;
/* Returns the launch's cudaError_t (cudaErrorInvalidValue for a misaligned
 * span or nothing to move). */
int bench_floor_stream(const floor_stream_args *a, void *stream);

/* A filtering texture object (normalised reads, clamp) over a device plane of
 * w x h texels of `channels` bytes (1, 2 or 4). Returns the cudaError_t. */
int bench_floor_texture(const uint8_t *plane, int w, int h, int stride, int channels,
                        unsigned long long *tex);
void bench_floor_texture_free(unsigned long long tex);
/* One RGBA -> RGBA / NV12 -> I420 frame; returns the launch's cudaError_t. */
int bench_floor_rgba(const floor_args *a, void *stream);
int bench_floor_nv12(const floor_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
