/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA backend's maps of pinned frames in bands of rows (see BANDS_MAX):
 * the upload of band k + 1 overlaps the kernels of band k and the download
 * of band k - 1, on three streams ordered by events. */
#include <stddef.h>

#include "core/cuda_util.h"
#include "diff/diff_cuda_internal.h"
#include "diff/diff_map_cuda.h"

/* Rows [y0, y1) of f (y0 even) as a frame of their own. */
static fovea_frame band_of(const fovea_frame *f, int y0, int y1)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    fovea_frame v = *f;
    v.height = y1 - y0;
    for (int p = 0; p < d->planes; p++)
        v.data[p] += (ptrdiff_t)(p ? y0 >> d->log2_chroma_h : y0) * f->stride[p];
    return v;
}

/* Queue the copy of every plane of src into dst (one shape) on stream s. */
static int copy_planes(diff_cuda *st, const fovea_frame *dst, const fovea_frame *src,
                       enum cudaMemcpyKind kind, cudaStream_t s)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(src->fmt);
    for (int p = 0; p < d->planes; p++)
        FOVEA_CUDA_TRY(st->ctx,
                       cudaMemcpy2DAsync(
                           dst->data[p], (size_t)dst->stride[p], src->data[p],
                           (size_t)src->stride[p], fovea_plane_row_bytes(src->fmt, src->width, p),
                           (size_t)fovea_plane_height(src->fmt, src->height, p), kind, s));
    return FOVEA_OK;
}

/* The maps of pinned inputs band by band: uploads on s_up, kernels on the
 * context's stream, downloads on s_down, each band's steps ordered by
 * events, the whole after the stream's earlier work and before its later. */
int dc_run_banded(diff_cuda *st, const diff_call *c, const diff_cuda_map_args *base)
{
    fovea_context *ctx = st->ctx;
    cudaStream_t s0 = fv_ctx_stream(ctx);
    const int h = c->cur->height;
    const int rows = ((h + st->bands - 1) / st->bands + 1) & ~1;
    fovea_frame *heat_t = NULL, *noise_t = NULL;
    if (c->heat)
        FOVEA_TRY(dc_out_target(st, OUT_HEAT, c->heat, &heat_t));
    if (c->noise)
        FOVEA_TRY(dc_out_target(st, OUT_NOISE, c->noise, &noise_t));
    FOVEA_CUDA_TRY(ctx, cudaEventRecord(st->ev_start, s0));
    FOVEA_CUDA_TRY(ctx, cudaStreamWaitEvent(st->s_up, st->ev_start, 0));
    FOVEA_CUDA_TRY(ctx, cudaStreamWaitEvent(st->s_down, st->ev_start, 0));
    for (int k = 0, y0 = 0; y0 < h && k < BANDS_MAX; k++, y0 += rows) {
        const int y1 = y0 + rows < h ? y0 + rows : h;
        const fovea_frame in[2] = {band_of(&st->in[0].dev, y0, y1),
                                   band_of(&st->in[1].dev, y0, y1)};
        const fovea_frame src[2] = {band_of(c->prev, y0, y1), band_of(c->cur, y0, y1)};
        for (int i = 0; i < 2; i++)
            FOVEA_TRY(copy_planes(st, &in[i], &src[i], cudaMemcpyHostToDevice, st->s_up));
        FOVEA_CUDA_TRY(ctx, cudaEventRecord(st->ev_up[k], st->s_up));
        FOVEA_CUDA_TRY(ctx, cudaStreamWaitEvent(s0, st->ev_up[k], 0));
        for (int m = 0; m < 2; m++) {
            fovea_frame *t = m ? noise_t : heat_t;
            if (!t)
                continue;
            const fovea_frame out = band_of(t, y0, y1);
            diff_cuda_map_args a = *base;
            dc_pair_of(&in[0], &in[1], &a.in);
            a.reader = dc_reader_of(&in[0], &in[1]);
            a.kind = m ? DIFF_CUDA_BLACK : DIFF_CUDA_HEAT;
            dc_set_out(&a, &out);
            FOVEA_CUDA_TRY(ctx, fv_diff_cuda_map(&a, s0));
        }
        FOVEA_CUDA_TRY(ctx, cudaEventRecord(st->ev_done[k], s0));
        FOVEA_CUDA_TRY(ctx, cudaStreamWaitEvent(st->s_down, st->ev_done[k], 0));
        for (int m = 0; m < 2; m++) {
            fovea_frame *o = m ? c->noise : c->heat;
            fovea_frame *t = m ? noise_t : heat_t;
            if (o && o != t) {
                const fovea_frame ob = band_of(o, y0, y1), tb = band_of(t, y0, y1);
                FOVEA_TRY(copy_planes(st, &ob, &tb, cudaMemcpyDeviceToHost, st->s_down));
            }
        }
    }
    FOVEA_CUDA_TRY(ctx, cudaEventRecord(st->ev_down, st->s_down));
    FOVEA_CUDA_TRY(ctx, cudaStreamWaitEvent(s0, st->ev_down, 0));
    const int wait = (c->heat && c->heat->mem != FOVEA_MEM_DEVICE) ||
                     (c->noise && c->noise->mem != FOVEA_MEM_DEVICE);
    return dc_finish_host(st, wait);
}
