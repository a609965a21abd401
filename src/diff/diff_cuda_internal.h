/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal interface of the differencing system's CUDA backend (host side,
 * C): the state per differencer and the helpers its units share (diff_cuda.c:
 * the backend, its buffers, the maps, the mask and the filters;
 * diff_banded_cuda.c: the maps of pinned frames band by band). The kernels'
 * launchers: diff_map_cuda.h, diff_mask_cuda.h, diff_filter_cuda.h. */
#ifndef FOVEA_DIFF_CUDA_INTERNAL_H
#define FOVEA_DIFF_CUDA_INTERNAL_H

#include <stdint.h>

#include "core/cuda_util.h"
#include "core/stage.h"
#include "diff/diff_cuda.h"
#include "diff/diff_internal.h"
#include "diff/diff_map_cuda.h"

/* Maps of pinned frames go in bands of rows of about BAND_BYTES of input
 * each, at most BANDS_MAX: the upload of band k + 1 overlaps the kernels of
 * band k and the download of band k - 1. */
#define BANDS_MAX 8
#define BAND_BYTES ((size_t)1 << 20)

enum { OUT_HEAT = 0, OUT_NOISE = 1, OUT_DENOISE = 2, OUT_SLOTS = 3 };

typedef struct diff_cuda {
    fovea_context *ctx;
    fovea_diff_settings set;
    uint32_t *d_heat; /* DIFF_HEAT_ENTRIES colors, R | G << 8 | B << 16 */
    uint32_t *d_vlut; /* DIFF_CUDA_VLUT_MAX + 1 colors */
    int vlut_top;     /* the top d_vlut is made for; 0 = none */
    int grid_cap;     /* blocks of the warp map kernel: 4 an SM */
    /* host inputs: device copies, and pinned copies of pageable ones */
    fv_stage in[2];
    /* the pair begin made */
    fovea_frame d_filt[2], d_state[2];
    int tcur;                  /* the temporal state now: d_state[tcur] */
    const fovea_frame *raw[2]; /* device views of the inputs (raw[0] NULL: not read) */
    const fovea_frame *cmp[2]; /* the compared pair */
    int fused;                 /* the heat map makes the medians in its own pass */
    /* host outputs: device staging (out[k].dev), pinned staging of pageable
     * ones (out[k].pin) */
    fv_stage out[OUT_SLOTS];
    fovea_frame *copy_back[OUT_SLOTS]; /* pageable outputs to fill from out[k].pin after a sync */
    /* change mask */
    unsigned long long *d_res[2]; /* counters + list, one per launch in turn */
    unsigned long long *h_res;    /* pinned: counters + list */
    uint8_t *d_flags, *h_flags;
    unsigned long long *d_look;
    unsigned int *d_ticket;
    int tiles_cap, look_cap, res_k, mask_k, mask_pending, mask_tiles;
    unsigned int epoch;
    int mask_reset; /* zero the ticket and counters before the next launch */
    fovea_diff_mask_result *mask_out;
    int mask_threshold;
    /* histogram */
    unsigned int *d_hist, *h_hist;
    size_t hist_cap;
    /* banded maps of pinned frames: bands of this call (0: not banded), the
     * upload and download streams and the events that order the bands */
    int bands;
    cudaStream_t s_up, s_down;
    cudaEvent_t ev_start, ev_down, ev_up[BANDS_MAX], ev_done[BANDS_MAX];
} diff_cuda;

/* The kernels' view of a pair of device frames (diff_cuda.c). */
void dc_pair_of(const fovea_frame *a, const fovea_frame *b, diff_cuda_pair *p);

/* The word reader for a pair: 8-bit RGB24 / RGBA rows aligned in both frames,
 * else DIFF_CUDA_READ_ANY (diff_cuda.c). */
int dc_reader_of(const fovea_frame *a, const fovea_frame *b);

/* The output fields of a map launch for target frame t (diff_cuda.c). */
void dc_set_out(diff_cuda_map_args *a, const fovea_frame *t);

/* Where a kernel writes output out: out itself on the device, else device
 * staging slot k (diff_cuda.c). */
int dc_out_target(diff_cuda *st, int k, fovea_frame *out, fovea_frame **target);

/* Wait for the stream when a host result is queued (or wait is set), then
 * fill the pageable outputs and the mask (diff_cuda.c). */
int dc_finish_host(diff_cuda *st, int wait);

/* The heat and noise maps of call c from pinned inputs in st->bands bands,
 * with the launch fields of base (diff_banded_cuda.c). */
int dc_run_banded(diff_cuda *st, const diff_call *c, const diff_cuda_map_args *base);

#endif
