/* Host launchers of the differencing kernels (diff.cu), callable from C. Every
 * frame pointer is device memory; each launcher returns the cudaError_t of its
 * launch as an int (0 = success). The arithmetic is docs/diff.md's. */
#ifndef FOVEA_DIFF_CUDA_H
#define FOVEA_DIFF_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sample layouts of the input formats. */
enum {
    DIFF_CUDA_PACKED = 0, /* RGB24, RGBA, RGB48, RGBA64: comps samples a pixel in plane 0 */
    DIFF_CUDA_GRAY = 1,   /* one plane, one sample a pixel */
    DIFF_CUDA_PLANAR = 2, /* I420/I422/I444: Y, U, V planes, chroma shifts sw, sh */
    DIFF_CUDA_NV12 = 3    /* Y plane, interleaved U,V plane, 4:2:0 */
};

/* What the map kernels write. */
enum {
    DIFF_CUDA_HEAT = 0,   /* heat map */
    DIFF_CUDA_BLACK = 1,  /* noise map, red on black */
    DIFF_CUDA_OVERLAY = 2 /* noise map, only the changed pixels written (red) */
};

/* Map output formats. */
enum { DIFF_CUDA_OUT_RGB24 = 0, DIFF_CUDA_OUT_RGBA = 1, DIFF_CUDA_OUT_I420 = 2 };

/* Which pixel reader a launch uses. */
enum {
    DIFF_CUDA_READ_ANY = 0,   /* any layout, sample by sample */
    DIFF_CUDA_READ_RGB24 = 1, /* 8-bit RGB24, rows of both frames on 4 bytes: 32-bit words */
    DIFF_CUDA_READ_RGBA = 2   /* 8-bit RGBA, rows of both frames on 16 bytes: 128-bit words */
};

/* The heat map's value-to-color table has DIFF_CUDA_VLUT_MAX + 1 entries:
 * the color of min(v, top) for v up to this (8-bit differences always; wider
 * ones when top is at most this). */
#define DIFF_CUDA_VLUT_MAX 4096

/* Changed tiles a block of the mask kernel owns at most (128 px / 8). */
#define DIFF_CUDA_MASK_SPAN 128

/* The mask's result block: DIFF_CUDA_RES_WORDS 64-bit counters, then the list. */
enum {
    DIFF_CUDA_RES_TILES = 0,  /* changed tiles */
    DIFF_CUDA_RES_PIXELS = 1, /* changed pixels */
    DIFF_CUDA_RES_SUM = 2,    /* sum of the SUM measure */
    DIFF_CUDA_RES_MAX = 3,    /* largest SUM measure */
    DIFF_CUDA_RES_WORDS = 4
};

/* A pair of frames (or one) as the kernels read it. */
typedef struct diff_cuda_pair {
    int layout;                /* DIFF_CUDA_PACKED .. NV12 */
    int wide;                  /* 16-bit little-endian samples */
    int comps;                 /* PACKED: samples a pixel (3 or 4) */
    int sw, sh;                /* PLANAR, NV12: chroma shifts */
    int w, h;                  /* pixels */
    const uint8_t *a[3], *b[3]; /* planes of prev (or ref) and cur */
    ptrdiff_t as[3], bs[3];    /* their strides in bytes */
} diff_cuda_pair;

/* Heat map or noise map of a pair. */
typedef struct diff_cuda_map_args {
    diff_cuda_pair in;
    int reader;                /* DIFF_CUDA_READ_*: RGB24/RGBA only for RGB24/RGBA out */
    int kind;                  /* DIFF_CUDA_HEAT .. OVERLAY */
    int out_fmt;               /* DIFF_CUDA_OUT_* (OVERLAY: cur's format) */
    int out_words;             /* RGB24/RGBA out: rows on 4 (RGB24) or 16 (RGBA) bytes */
    uint8_t *out[3];
    ptrdiff_t os[3];
    int measure_max;           /* heat: 1 = the largest channel difference, 0 = their sum */
    int top;                   /* heat: > 0 */
    const uint32_t *heat;      /* DIFF_HEAT_ENTRIES colors, R | G << 8 | B << 16 */
    const uint32_t *vlut;      /* color of min(v, top) for v <= DIFF_CUDA_VLUT_MAX */
    int threshold;             /* noise maps */
    /* 8-bit RGB24/RGBA pair whose planes and strides (and, but for OVERLAY,
     * the output's) are on 16 bytes: the warp kernel */
    int vec16;
    int grid_cap;              /* blocks the warp kernel keeps busy (0: one a unit) */
} diff_cuda_map_args;

/* Change mask: per tile flags (kept on the device), totals and the ascending
 * list of changed tiles, compacted in one pass with a decoupled look-back
 * over the blocks (each block owns up to DIFF_CUDA_MASK_SPAN px of one tile
 * row; blocks take their place in the order of a ticket). */
typedef struct diff_cuda_mask_args {
    diff_cuda_pair in;
    int reader;                /* DIFF_CUDA_READ_* */
    int threshold;
    int tile, tiles_x, tiles_y;
    int blocks;                /* ceil(w / DIFF_CUDA_MASK_SPAN) x tiles_y */
    unsigned int *ticket;      /* 0 before the launch; the kernel leaves it 0 */
    unsigned long long *look;  /* blocks words (stale ones from older epochs) */
    unsigned int epoch;        /* this launch's, never 0, never that of an earlier one */
    unsigned long long *res;   /* this launch's result block (counters zeroed) */
    unsigned long long *next;  /* the next launch's counters: zeroed by this one */
    uint8_t *flags;            /* tiles_x x tiles_y */
} diff_cuda_mask_args;

/* Histogram of plane 0's first-sample difference cur - prev + maxval
 * (2 maxval + 1 counters, zeroed before). */
typedef struct diff_cuda_hist_args {
    diff_cuda_pair in;
    int maxval;
    unsigned int *hist;
} diff_cuda_hist_args;

/* One plane of a filter: median3, gauss5 (FOVEA_DIFF_DENOISE_* values 1, 2)
 * or one temporal step (3) of state towards src. */
typedef struct diff_cuda_filter_args {
    int mode;
    int wide;
    int w, h, comps;           /* pixels of the plane, samples a pixel */
    const uint8_t *src, *state;
    ptrdiff_t ss, ts;
    uint8_t *dst;
    ptrdiff_t ds;
    int strength;
} diff_cuda_filter_args;

int fv_diff_cuda_map(const diff_cuda_map_args *a, void *stream);
/* Heat map of the 3x3 medians of an 8-bit RGB24 / RGBA pair (comps 3 or 4),
 * out RGB24 or RGBA: one pass, the medians made in shared memory. */
int fv_diff_cuda_heat_median(const diff_cuda_map_args *a, void *stream);
int fv_diff_cuda_mask(const diff_cuda_mask_args *a, void *stream);
int fv_diff_cuda_hist(const diff_cuda_hist_args *a, void *stream);
int fv_diff_cuda_filter(const diff_cuda_filter_args *a, void *stream);
/* vlut[v] = heat[(min(v, top) * 1023 + top / 2) / top], v = 0..DIFF_CUDA_VLUT_MAX */
int fv_diff_cuda_vlut(uint32_t *vlut, const uint32_t *heat, int top, void *stream);

#ifdef __cplusplus
}
#endif

#endif
