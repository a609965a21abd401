/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CUDA backend of KLT, the candidate sort (host side): the layout of the
 * sort's scratch (sort_cuda.h, sort.cu) in one device block, its launch, and
 * the test hook that sorts given values (klt_cuda_sort_check). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "klt/klt_cuda_internal.h"
#include "klt/sort_cuda.h"

/* Lay out q over one device block for n candidates. */
int kc_qs_layout(KLT_TrackingContext tc, kc_state *kc, size_t n, klt_cuda_qs *q)
{
    const size_t ml = klt_cuda_qs_max_large(n), mt = klt_cuda_qs_max_tiles(n);
    const size_t half = n / 2 + 1;
    /* ints: qa, qb 2n each; lpos, rpos n each; 2 lists 2 ml each; small,
     * defer 2 half each; 5 x ml; 6 x mt; counters */
    size_t ints = 6 * n + 9 * ml + 4 * half + 6 * mt + KLT_QS_NCTR, bytes;
    if (n > (size_t)INT32_MAX / 2 || !fv_mul_size(ints, sizeof(int), &bytes))
        return klt_fail(tc, FOVEA_ERR_NOMEM, "selection: size overflow");
    FOVEA_TRY(kc_dev_ensure(kc, (void **)&kc->d_qs, &kc->qs_cap, bytes));
    if (!kc->qs_blocks) {
        int blocks = 1, coop = 0;
        FOVEA_CUDA_TRY(kc->ctx, klt_cuda_qs_grid(&blocks, &coop));
        kc->qs_blocks = blocks > 0 ? blocks : 1;
        kc->qs_coop = coop;
    }
    memset(q, 0, sizeof *q);
    int *w = kc->d_qs;
    q->qa = w;
    w += 2 * n;
    q->qb = w;
    w += 2 * n;
    q->lpos = w;
    w += n;
    q->rpos = w;
    w += n;
    for (int i = 0; i < 2; i++) {
        q->list[i] = w;
        w += 2 * ml;
    }
    q->small = w;
    w += 2 * half;
    q->defer = w;
    w += 2 * half;
    int **segs[5] = {&q->seg_t, &q->seg_nr, &q->seg_tile0, &q->seg_j, &q->seg_done};
    for (int i = 0; i < 5; i++) {
        *segs[i] = w;
        w += ml;
    }
    int **tiles[6] = {&q->tile_seg, &q->tile_first, &q->tile_l,
                      &q->tile_r,   &q->tile_loff,  &q->tile_roff};
    for (int i = 0; i < 6; i++) {
        *tiles[i] = w;
        w += mt;
    }
    q->ctr = w;
    q->n = (int)n;
    return FOVEA_OK;
}

/* One launch of the sort (klt_cuda_qs_run) on a grid of at most max_blocks
 * (0: as many as fit), no more than the first level has tiles. */
int kc_qs_launch(KLT_TrackingContext tc, kc_state *kc, const klt_cuda_qs *q, int from_defer,
                 const int *gate, int max_blocks, cudaStream_t stream)
{
    long long tiles = ((long long)q->n + KLT_CUDA_QS_TILE - 1) / KLT_CUDA_QS_TILE;
    int blocks = kc->qs_blocks;
    if (max_blocks > 0 && blocks > max_blocks)
        blocks = max_blocks;
    if (blocks > tiles)
        blocks = (int)tiles;
    if (blocks < 1)
        blocks = 1;
    FOVEA_CUDA_TRY(kc->ctx, klt_cuda_qs_run(q, from_defer, gate, blocks, kc->qs_coop, stream));
    return FOVEA_OK;
}

/* Sort check input: n values and ids. */
static int kc_points_ensure(KLT_TrackingContext tc, kc_state *kc, size_t n)
{
    size_t kbytes;
    if (!fv_mul_size(n, sizeof(int), &kbytes))
        return klt_fail(tc, FOVEA_ERR_NOMEM, "selection: size overflow");
    if (!kc->d_keys || n > kc->pts_cap) {
        size_t c1 = 0, c2 = 0;
        fv_device_free(kc->ctx, kc->d_keys);
        fv_device_free(kc->ctx, kc->d_pix);
        kc->d_keys = NULL;
        kc->d_pix = NULL;
        kc->pts_cap = 0;
        FOVEA_TRY(kc_dev_ensure(kc, (void **)&kc->d_keys, &c1, kbytes));
        FOVEA_TRY(kc_dev_ensure(kc, (void **)&kc->d_pix, &c2, kbytes));
        kc->pts_cap = n;
    }
    return FOVEA_OK;
}

int kc_sort_check(KLT_TrackingContext tc, kc_state *kc, const int *val, int n, int max_blocks,
                  int *out_val, unsigned *out_id)
{
    if (n <= 0)
        return FOVEA_OK;
    FOVEA_TRY(kc_call_begin(tc, kc));
    FOVEA_TRY(kc_spec_join(tc, kc));
    kc->spec_ready = 0;
    FOVEA_TRY(kc_points_ensure(tc, kc, (size_t)n));
    klt_cuda_qs q;
    FOVEA_TRY(kc_qs_layout(tc, kc, (size_t)n, &q));
    unsigned *ids = malloc((size_t)n * sizeof(unsigned));
    int *pairs = malloc((size_t)n * 2 * sizeof(int));
    if (!ids || !pairs) {
        free(ids);
        free(pairs);
        return klt_fail(tc, FOVEA_ERR_NOMEM, "sort check: out of memory");
    }
    for (int i = 0; i < n; i++)
        ids[i] = (unsigned)i;
    q.kcap = INT32_MAX;
    cudaStream_t stream = kc_stream(kc);
    int rc = FOVEA_CUDA(kc->ctx, cudaMemcpyAsync(kc->d_keys, val, (size_t)n * sizeof(int),
                                                 cudaMemcpyHostToDevice, stream));
    if (rc >= 0)
        rc = FOVEA_CUDA(kc->ctx, cudaMemcpyAsync(kc->d_pix, ids, (size_t)n * sizeof(unsigned),
                                                 cudaMemcpyHostToDevice, stream));
    if (rc >= 0)
        rc = FOVEA_CUDA(kc->ctx, cudaMemsetAsync(q.ctr, 0, KLT_QS_NCTR * sizeof(int), stream));
    /* every value counts as above the threshold: the whole array is sorted */
    if (rc >= 0)
        rc = FOVEA_CUDA(kc->ctx, klt_cuda_qs_pack(kc->d_keys, kc->d_pix, q.qa, n, INT32_MIN,
                                                  q.ctr + KLT_QS_NABOVE, stream));
    if (rc >= 0)
        rc = kc_qs_launch(tc, kc, &q, 0, NULL, max_blocks, stream);
    if (rc >= 0)
        rc = FOVEA_CUDA(kc->ctx, cudaMemcpyAsync(pairs, q.qa, (size_t)n * 2 * sizeof(int),
                                                 cudaMemcpyDeviceToHost, stream));
    if (rc >= 0)
        rc = kc_call_end(tc, kc);
    if (rc >= 0)
        for (int i = 0; i < n; i++) {
            out_val[i] = pairs[2 * i];
            out_id[i] = (unsigned)pairs[2 * i + 1];
        }
    free(ids);
    free(pairs);
    return rc < 0 ? rc : FOVEA_OK;
}
