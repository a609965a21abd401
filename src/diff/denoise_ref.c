/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The C reference of the denoising filters (docs/diff.md, "Denoising"): every
 * plane as stored, each component on its own, borders replicated; the temporal
 * filter's step of a state towards a frame. */
#include <string.h>

#include "diff/diff_internal.h"

/* One plane seen as a grid of samples: w pixels of comps components per row. */
typedef struct plane_view {
    const uint8_t *src, *state; /* state: the temporal filter's, else NULL */
    uint8_t *dst;
    ptrdiff_t sstride, dstride, tstride;
    int w, h, comps, wide;
} plane_view;

static inline int get(const plane_view *p, int x, int y, int c)
{
    /* replicate borders: coordinates clamp to the plane */
    x = x < 0 ? 0 : x >= p->w ? p->w - 1 : x;
    y = y < 0 ? 0 : y >= p->h ? p->h - 1 : y;
    const uint8_t *r = p->src + (ptrdiff_t)y * p->sstride;
    const int i = x * p->comps + c;
    return p->wide ? (int)r[2 * i] | (int)r[2 * i + 1] << 8 : (int)r[i];
}

/* Sample (x, y, c) of the temporal state (inside the plane). */
static inline int get_state(const plane_view *p, int x, int y, int c)
{
    const uint8_t *r = p->state + (ptrdiff_t)y * p->tstride;
    const int i = x * p->comps + c;
    return p->wide ? (int)r[2 * i] | (int)r[2 * i + 1] << 8 : (int)r[i];
}

static inline void put(const plane_view *p, int x, int y, int c, int v)
{
    uint8_t *r = p->dst + (ptrdiff_t)y * p->dstride;
    const int i = x * p->comps + c;
    if (p->wide) {
        r[2 * i] = (uint8_t)(v & 255);
        r[2 * i + 1] = (uint8_t)(v >> 8);
    } else {
        r[i] = (uint8_t)v;
    }
}

static int median9(int v[9])
{
    for (int i = 1; i < 9; i++) /* insertion sort; the 5th smallest is the median */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            const int t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[4];
}

static const int gauss_taps[5] = {1, 4, 6, 4, 1};

/* Horizontal pass of row y at x: (sum taps * s + 8) >> 4, a value in sample range. */
static inline int gauss_h(const plane_view *p, int x, int y, int c)
{
    int s = 0;
    for (int k = -2; k <= 2; k++)
        s += gauss_taps[k + 2] * get(p, x + k, y, c);
    return (s + 8) >> 4;
}

typedef struct filter_arg {
    fovea_diff_denoise_mode mode;
    int strength;
    plane_view pv;
} filter_arg;

static void filter_rows(void *arg, int begin, int end, int thread)
{
    (void)thread;
    const filter_arg *fa = arg;
    const plane_view *p = &fa->pv;
    for (int y = begin; y < end; y++)
        for (int x = 0; x < p->w; x++)
            for (int c = 0; c < p->comps; c++) {
                int v;
                if (fa->mode == FOVEA_DIFF_DENOISE_TEMPORAL) {
                    v = diff_temporal_step(get_state(p, x, y, c), get(p, x, y, c), fa->strength);
                } else if (fa->mode == FOVEA_DIFF_DENOISE_MEDIAN3) {
                    int n[9], k = 0;
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++)
                            n[k++] = get(p, x + dx, y + dy, c);
                    v = median9(n);
                } else {
                    /* vertical pass over the rounded horizontal results */
                    int s = 0;
                    for (int k = -2; k <= 2; k++)
                        s += gauss_taps[k + 2] * gauss_h(p, x, y + k, c);
                    v = (s + 8) >> 4;
                }
                put(p, x, y, c, v);
            }
}

int diff_ref_filter(fovea_context *ctx, fovea_diff_denoise_mode mode, const fovea_frame *in,
                    const fovea_frame *state, int strength, fovea_frame *out)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(in->fmt);
    for (int pl = 0; pl < d->planes; pl++) {
        filter_arg fa;
        fa.mode = mode;
        fa.strength = strength;
        plane_view *p = &fa.pv;
        p->src = in->data[pl];
        p->dst = out->data[pl];
        p->sstride = in->stride[pl];
        p->dstride = out->stride[pl];
        p->state = mode == FOVEA_DIFF_DENOISE_TEMPORAL ? state->data[pl] : NULL;
        p->tstride = p->state ? state->stride[pl] : 0;
        p->wide = d->bytes_per_sample == 2;
        p->comps = pl == 0 ? d->components : d->planes == 2 ? 2 : 1; /* NV12: U,V pairs */
        p->w = (int)(fovea_plane_row_bytes(in->fmt, in->width, pl) /
                     (size_t)(d->bytes_per_sample * p->comps));
        p->h = fovea_plane_height(in->fmt, in->height, pl);
        fv_parallel_for(ctx, p->h, 4, filter_rows, &fa);
    }
    return FOVEA_OK;
}
