/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Host launcher of the ciede kernels (ciede.cu), callable from C: per pair of
 * a batch, every pixel's certified dE00 (ciede_interval.h) into a device
 * buffer, the pixels it cannot certify appended to a list in mapped pinned
 * memory, a host function (stream-ordered) that computes those with the C
 * arithmetic, a kernel that patches them in, and the double sum in raster
 * order. Returns the cudaError_t of its calls as an int (0 = success). */
#ifndef FOVEA_QUALITY_CIEDE_CUDA_H
#define FOVEA_QUALITY_CIEDE_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most pairs one launch takes. */
#define CIEDE_CUDA_MAX_BATCH 32

/* The counters of one pair (feature_extractor.frame_sums), written:
 * the bits of the double sum; 1 when the list overflowed (the sum is then
 * not valid: the host recomputes the pair); the pair's ambiguous pixels; the
 * six planes' device addresses and strides (for that recomputation). */
enum {
    CIEDE_SUM_BITS = 0,
    CIEDE_SUM_OVERFLOW,
    CIEDE_SUM_AMBIGUOUS,
    CIEDE_SUM_PLANES, /* 6: ref Y U V, dis Y U V */
    CIEDE_SUM_STRIDES = CIEDE_SUM_PLANES + 6,
    CIEDE_SUMS = CIEDE_SUM_STRIDES + 6
};

/* One ambiguous pixel: pair z's pixel pos (raster), its six samples (ref Y U
 * V, dis Y U V as libvmaf reads them). */
typedef struct ciede_amb {
    uint32_t pos;
    uint16_t z;
    uint16_t s[6];
} ciede_amb;

typedef struct ciede_cuda_args {
    int nframes; /* 1..CIEDE_CUDA_MAX_BATCH */
    int width, height, bpc, chroma;
    int cw, ch, cstride; /* chroma planes, libvmaf's padded row */
    /* plane p (0 Y, 1 U, 2 V) of pair z on the device, strides in bytes */
    const uint8_t *ref[3][CIEDE_CUDA_MAX_BATCH], *dis[3][CIEDE_CUDA_MAX_BATCH];
    ptrdiff_t rstride[3][CIEDE_CUDA_MAX_BATCH], dstride[3][CIEDE_CUDA_MAX_BATCH];
    float *de;         /* device: fv_ciede_cuda_de_bytes(batch, width, height) */
    unsigned *count;   /* device: the batch's ambiguous pixels */
    unsigned *h_count; /* pinned: count copied before the host function */
    ciede_amb *list;   /* mapped pinned (device address): cap entries */
    const float *vals; /* mapped pinned (device address): the host's values */
    unsigned cap;
    /* called in stream order once list and h_count are filled; writes the
     * values of the first min(*h_count, cap) entries to vals (host side) */
    void (*host_fn)(void *);
    void *host_data;
    unsigned long long *sums; /* CIEDE_SUMS counters per pair, zeroed before */
} ciede_cuda_args;

/* Bytes of ciede_cuda_args.de for batches of up to batch pairs: the dE
 * values and the ordered sums' scratch (0 for a bad size). */
size_t fv_ciede_cuda_de_bytes(int batch, int width, int height);

int fv_ciede_cuda_launch(const ciede_cuda_args *a, void *stream);

#ifdef __cplusplus
}
#endif

#endif
