/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA extractor of the feature "motion" (host side): one SAD launch a
 * batch (motion.cu) against the previous references the driver hands over. */
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "quality/motion.h"
#include "quality/motion_cuda.h"

typedef struct motion_cuda {
    int width, height, bpc;
    int force_zero;
    int five; /* motion_five_frame_window: against the reference of 2 pairs back */
} motion_cuda;

static void cuda_close(void **priv)
{
    if (!priv || !*priv)
        return;
    free(*priv);
    *priv = NULL;
}

static int cuda_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    motion_cuda *st = calloc(1, sizeof(*st));
    *priv = st;
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->width = s->width;
    st->height = s->height;
    st->bpc = s->bpc;
    st->force_zero = s->opts.v[MOTION_OPT_FORCE_ZERO] != 0.0;
    st->five = s->opts.v[MOTION_OPT_FIVE_FRAME] != 0.0;
    return FOVEA_OK;
}

static int cuda_launch(void *priv, fovea_context *ctx, const feature_batch *b,
                       unsigned long long *sums, void *stream)
{
    const motion_cuda *st = priv;
    if (st->force_zero)
        return FOVEA_OK; /* nothing computed */
    motion_cuda_args a;
    memset(&a, 0, sizeof(a));
    a.nframes = b->n;
    a.w = st->width;
    a.h = st->height;
    a.bpc = st->bpc;
    int any = 0;
    for (int z = 0; z < b->n; z++) {
        a.cur[z] = b->ref[z];
        a.cstride[z] = b->ref_stride[z];
        /* NULL: the first frame (frames) of a stream, SAD 0 */
        a.prev[z] = st->five ? b->prev2[z] : b->prev[z];
        a.pstride[z] = st->five ? b->prev2_stride[z] : b->prev_stride[z];
        any |= a.prev[z] != NULL;
    }
    a.sad = sums;
    if (any)
        FOVEA_CUDA_TRY(ctx, fv_motion_cuda_launch_sad(&a, stream));
    return FOVEA_OK;
}

static void cuda_raw(void *priv, const unsigned long long *sums, int first, feature_raw *raw)
{
    const motion_cuda *st = priv;
    const uint64_t sad = st->force_zero || first ? 0 : (uint64_t)sums[0];
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, &sad, sizeof(sad));
}

const feature_extractor feature_motion_cuda = {
    &feature_motion,       FOVEA_BACKEND_CUDA, cuda_init, cuda_close, NULL, 1,
    MOTION_CUDA_MAX_BATCH, cuda_launch,        cuda_raw,
};
