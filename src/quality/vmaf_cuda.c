/* CUDA backend of VMAF (host side): the raw values of every extractor instance
 * of a batch of frame pairs from the kernels of vif.cu, adm.cu and motion.cu,
 * all reading the same device copy of each pair.
 *
 * Pairs are queued into batches (up to VMAF_CUDA_MAX_BATCH); a full batch (or
 * the oldest one, when its results are asked for) is launched on the context
 * stream: per VIF instance four launches (one per scale), per ADM instance
 * nine, one motion launch, then the read-back of the batch's sums. Host frames
 * are copied on a second stream into per-batch device staging (pageable ones
 * through pinned staging first), so the copies of the next batch overlap the
 * kernels of this one; device frames are read in place. VMAF_SLOTS batches can
 * be in flight, each with its own staging, sums and events; the kernels'
 * scratch is shared (they run in stream order).
 *
 * Motion compares a pair's reference with the previous pair's: within a batch
 * that is the previous pair's plane, for the first pair of a batch the copy of
 * the last reference of the batch before, which each batch leaves in d_prev
 * (a device-to-device copy queued after its kernels). */
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "quality/adm_cuda.h"
#include "quality/motion_cuda.h"
#include "quality/vif_cuda.h"
#include "quality/vmaf_internal.h"

#define VMAF_SLOTS 4
/* Pixels per batch the batch size aims for (enough blocks for every SM at the
 * small scales), as VIF's; at most every launcher's limit. */
#define VMAF_BATCH_PIXELS 8000000.0
#define VMAF_CUDA_MAX_BATCH 32
#if VMAF_CUDA_MAX_BATCH > VIF_CUDA_MAX_BATCH || VMAF_CUDA_MAX_BATCH > ADM_CUDA_MAX_BATCH ||      \
    VMAF_CUDA_MAX_BATCH > MOTION_CUDA_MAX_BATCH
#error "a VMAF batch must fit every launcher"
#endif

typedef struct vslot {
    int n;        /* pairs in the batch */
    int launched;
    int copies;   /* H2D copies queued on the copy stream for it */
    const uint8_t *src[2][VMAF_CUDA_MAX_BATCH]; /* luma planes the kernels read */
    ptrdiff_t stride[2][VMAF_CUDA_MAX_BATCH];
    int new_stream[VMAF_CUDA_MAX_BATCH];
    uint8_t *d_in[2];                      /* device staging of host frames (lazy) */
    uint8_t *h_in[2];                      /* pinned staging of pageable frames (lazy) */
    unsigned long long *d_sums, *h_sums;   /* slot_sums counters (vmaf_cuda) */
    cudaEvent_t copied, done;
} vslot;

typedef struct vmaf_cuda {
    fovea_context *ctx; /* outlives the backend state */
    vmaf_params p;
    int batch;          /* pairs per launch */
    size_t row_bytes;   /* width * bytes per sample */
    int motion;         /* some motion instance computes a SAD */
    cudaStream_t copy;  /* H2D copies of host frames */

    /* the sums of a batch: per instance a region of batch x (16 VIF, 36 ADM,
     * 1 motion) counters, at sums_off[e] (motion's at motion_off) */
    size_t sums_off[VMAF_MAX_EXTRACTORS], motion_off, slot_sums;
    adm_params adm_p[VMAF_MAX_EXTRACTORS];
    adm_level adm_l[VMAF_MAX_EXTRACTORS][ADM_SCALES];

    /* kernels' scratch, shared by the instances and batches (stream order) */
    uint16_t *d_log2;                      /* VIF_LOG2_TABLE_SIZE entries */
    uint16_t *d_img[2][FOVEA_VIF_SCALES];  /* VIF [ref/dis][scale 1..3], batch frames */
    size_t img_pitch[FOVEA_VIF_SCALES], img_bytes[FOVEA_VIF_SCALES];
    void *d_adm;                           /* fv_adm_cuda_work_bytes */
    uint8_t *d_prev;                       /* the last reference of the last batch */
    size_t prev_pitch;
    size_t in_pitch, in_bytes;             /* staging of one plane */
    unsigned long long *d_sums, *h_sums;   /* every slot's */
    vslot slot[VMAF_SLOTS];
    int head;  /* oldest slot in use */
    int used;  /* slots in use (the newest may be filling) */
    int taken; /* results of slot[head] already collected */
} vmaf_cuda;

static size_t align256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

static int cuda_batch(const fovea_context *ctx, int width, int height)
{
    (void)ctx;
    const double px = (double)(width > 1 ? width : 1) * (double)(height > 1 ? height : 1);
    const double b = (VMAF_BATCH_PIXELS + px - 1.0) / px;
    return b >= VMAF_CUDA_MAX_BATCH ? VMAF_CUDA_MAX_BATCH : b < 1.0 ? 1 : (int)b;
}

static void cuda_close(void **priv)
{
    vmaf_cuda *st = priv ? *priv : NULL;
    if (!st)
        return;
    fovea_context *ctx = st->ctx;
    /* nothing queued may still use the buffers; errors here have no one to go to */
    cudaSetDevice(fovea_context_device(ctx));
    cudaStreamSynchronize(fv_ctx_stream(ctx));
    if (st->copy) {
        cudaStreamSynchronize(st->copy);
        cudaStreamDestroy(st->copy);
    }
    for (int k = 0; k < VMAF_SLOTS; k++) {
        vslot *sl = &st->slot[k];
        for (int i = 0; i < 2; i++) {
            fv_device_free(ctx, sl->d_in[i]);
            fv_pinned_free(ctx, sl->h_in[i]);
        }
        if (sl->copied)
            cudaEventDestroy(sl->copied);
        if (sl->done)
            cudaEventDestroy(sl->done);
    }
    for (int i = 0; i < 2; i++)
        for (int s = 1; s < FOVEA_VIF_SCALES; s++)
            fv_device_free(ctx, st->d_img[i][s]);
    fv_device_free(ctx, st->d_log2);
    fv_device_free(ctx, st->d_adm);
    fv_device_free(ctx, st->d_prev);
    fv_device_free(ctx, st->d_sums);
    fv_pinned_free(ctx, st->h_sums);
    free(st);
    *priv = NULL;
}

static int upload_log2(vmaf_cuda *st, fovea_context *ctx)
{
    uint16_t *table = malloc(VIF_LOG2_TABLE_SIZE * sizeof(uint16_t));
    if (!table)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    fv_vif_log2_table(table);
    int status = FOVEA_CUDA(ctx, cudaMemcpyAsync(st->d_log2, table,
                                                 VIF_LOG2_TABLE_SIZE * sizeof(uint16_t),
                                                 cudaMemcpyHostToDevice, fv_ctx_stream(ctx)));
    /* the copy reads table: wait before freeing it */
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
    free(table);
    return status;
}

static int cuda_init(void **priv, fovea_context *ctx, const void *params)
{
    const vmaf_params *p = params;
    *priv = NULL;
    int status = fv_device_activate(ctx);
    if (status < 0)
        return status;
    vmaf_cuda *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->ctx = ctx;
    st->p = *p;
    st->batch = cuda_batch(ctx, p->width, p->height);
    /* sizes are bounded by FOVEA_MAX_DIM (checked by vmaf.c) and the batch by
     * VMAF_CUDA_MAX_BATCH: no overflow */
    const size_t w = (size_t)p->width, h = (size_t)p->height, b = (size_t)st->batch;
    st->row_bytes = w * (p->bpc > 8 ? 2 : 1);
    st->in_pitch = align256(st->row_bytes);
    st->in_bytes = st->in_pitch * h;

    int n_vif = 0, n_adm = 0;
    size_t off = 0;
    for (int e = 0; e < p->n_ex; e++) {
        const vmaf_ex_params *x = &p->ex[e];
        st->sums_off[e] = off;
        if (x->type == VMAF_EX_VIF) {
            n_vif++;
            off += b * VIF_CUDA_FRAME_SUMS;
        } else if (x->type == VMAF_EX_ADM) {
            n_adm++;
            off += b * ADM_CUDA_FRAME_SUMS;
            adm_params *ap = &st->adm_p[e];
            adm_default_params(ap, p->width, p->height, p->bpc);
            ap->enhn_gain_limit = x->enhn_gain_limit;
            ap->norm_view_dist = x->norm_view_dist;
            ap->ref_display_height = x->ref_display_height;
            for (int s = 0; s < ADM_SCALES; s++)
                adm_level_setup(ap, s, &st->adm_l[e][s]);
        } else if (!x->force_zero) {
            st->motion = 1;
        }
    }
    st->motion_off = off;
    if (st->motion)
        off += b;
    st->slot_sums = off ? off : 1;

    if (n_vif)
        status = FOVEA_CUDA(ctx, fv_vif_cuda_prepare());
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaStreamCreateWithFlags(&st->copy, cudaStreamNonBlocking));
    for (int s = 1; n_vif && s < FOVEA_VIF_SCALES && status == FOVEA_OK; s++) {
        st->img_pitch[s] = align256((w >> s) * sizeof(uint16_t));
        st->img_bytes[s] = st->img_pitch[s] * (h >> s);
        for (int i = 0; i < 2 && status == FOVEA_OK; i++)
            status = fv_device_malloc(ctx, st->img_bytes[s] * b, (void **)&st->d_img[i][s]);
    }
    if (n_vif && status == FOVEA_OK)
        status = fv_device_malloc(ctx, VIF_LOG2_TABLE_SIZE * sizeof(uint16_t),
                                  (void **)&st->d_log2);
    if (n_vif && status == FOVEA_OK)
        status = upload_log2(st, ctx);
    if (n_adm && status == FOVEA_OK)
        status = fv_device_malloc(ctx, fv_adm_cuda_work_bytes(p->width, p->height, st->batch),
                                  &st->d_adm);
    if (st->motion && status == FOVEA_OK) {
        st->prev_pitch = st->in_pitch;
        status = fv_device_malloc(ctx, st->prev_pitch * h, (void **)&st->d_prev);
    }
    const size_t sums_bytes = VMAF_SLOTS * st->slot_sums * sizeof(unsigned long long);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, sums_bytes, (void **)&st->d_sums);
    if (status == FOVEA_OK)
        status = fv_pinned_malloc(ctx, sums_bytes, (void **)&st->h_sums);
    for (int k = 0; k < VMAF_SLOTS && status == FOVEA_OK; k++) {
        vslot *sl = &st->slot[k];
        sl->d_sums = st->d_sums + (size_t)k * st->slot_sums;
        sl->h_sums = st->h_sums + (size_t)k * st->slot_sums;
        status = FOVEA_CUDA(ctx, cudaEventCreateWithFlags(&sl->copied, cudaEventDisableTiming));
        if (status == FOVEA_OK)
            status = FOVEA_CUDA(ctx, cudaEventCreateWithFlags(&sl->done, cudaEventDisableTiming));
    }
    if (status < 0) {
        cuda_close((void **)&st);
        return status;
    }
    *priv = st;
    return FOVEA_OK;
}

/* Make plane `which` (0 ref, 1 dis) of pair z of slot sl readable by the
 * kernels: device planes as they are, host planes copied on the copy stream
 * into the slot's device staging (pageable ones through its pinned staging). */
static int stage_plane(vmaf_cuda *st, fovea_context *ctx, vslot *sl, int which, int z,
                       const vif_plane *pl)
{
    if (pl->mem == FOVEA_MEM_DEVICE) {
        sl->src[which][z] = pl->data;
        sl->stride[which][z] = pl->stride;
        return FOVEA_OK;
    }
    const size_t batch_bytes = st->in_bytes * (size_t)st->batch;
    if (!sl->d_in[which])
        FOVEA_TRY(fv_device_malloc(ctx, batch_bytes, (void **)&sl->d_in[which]));
    const size_t h = (size_t)st->p.height;
    const uint8_t *src = pl->data;
    size_t spitch = (size_t)pl->stride;
    if (pl->mem != FOVEA_MEM_PINNED) {
        if (!sl->h_in[which])
            FOVEA_TRY(fv_pinned_malloc(ctx, batch_bytes, (void **)&sl->h_in[which]));
        /* the slot's last batch was collected: its copies are done */
        uint8_t *dst = sl->h_in[which] + (size_t)z * st->in_bytes;
        for (size_t y = 0; y < h; y++)
            memcpy(dst + y * st->in_pitch, pl->data + (ptrdiff_t)y * pl->stride, st->row_bytes);
        src = dst;
        spitch = st->in_pitch;
    }
    uint8_t *dst = sl->d_in[which] + (size_t)z * st->in_bytes;
    FOVEA_CUDA_TRY(ctx, cudaMemcpy2DAsync(dst, st->in_pitch, src, spitch, st->row_bytes, h,
                                          cudaMemcpyHostToDevice, st->copy));
    sl->copies++;
    sl->src[which][z] = dst;
    sl->stride[which][z] = (ptrdiff_t)st->in_pitch;
    return FOVEA_OK;
}

/* The four scale launches of VIF instance e (as vif_cuda.c's launch_slot). */
static int queue_vif(vmaf_cuda *st, fovea_context *ctx, const vslot *sl, int e,
                     cudaStream_t stream)
{
    vif_cuda_scale_args a;
    memset(&a, 0, sizeof(a));
    a.nframes = sl->n;
    for (int z = 0; z < sl->n; z++) {
        a.ref[z] = sl->src[0][z];
        a.dis[z] = sl->src[1][z];
        a.rstride[z] = sl->stride[0][z];
        a.dstride[z] = sl->stride[1][z];
    }
    a.u8 = st->p.bpc == 8;
    a.w = st->p.width;
    a.h = st->p.height;
    a.shift = st->p.bpc;
    a.log2_table = st->d_log2;
    a.enhn_gain_limit = st->p.ex[e].enhn_gain_limit;
    a.sums = sl->d_sums + st->sums_off[e];
    for (int s = 0; s < FOVEA_VIF_SCALES; s++) {
        a.scale = s;
        if (s + 1 < FOVEA_VIF_SCALES) {
            a.out_ref = st->d_img[0][s + 1];
            a.out_dis = st->d_img[1][s + 1];
            a.out_stride = (ptrdiff_t)st->img_pitch[s + 1];
            a.out_frame_bytes = st->img_bytes[s + 1];
        } else {
            a.out_ref = a.out_dis = NULL;
            a.out_stride = 0;
            a.out_frame_bytes = 0;
        }
        FOVEA_CUDA_TRY(ctx, fv_vif_cuda_launch_scale(&a, stream));
        if (s + 1 < FOVEA_VIF_SCALES) {
            for (int z = 0; z < sl->n; z++) {
                a.ref[z] = (const uint8_t *)st->d_img[0][s + 1] + (size_t)z * st->img_bytes[s + 1];
                a.dis[z] = (const uint8_t *)st->d_img[1][s + 1] + (size_t)z * st->img_bytes[s + 1];
                a.rstride[z] = a.dstride[z] = (ptrdiff_t)st->img_pitch[s + 1];
            }
            a.w /= 2;
            a.h /= 2;
            a.u8 = 0;
            a.shift = 16;
        }
    }
    return FOVEA_OK;
}

static int queue_adm(vmaf_cuda *st, fovea_context *ctx, const vslot *sl, int e,
                     cudaStream_t stream)
{
    adm_cuda_args a;
    memset(&a, 0, sizeof(a));
    a.nframes = sl->n;
    a.width = st->p.width;
    a.height = st->p.height;
    a.bpc = st->p.bpc;
    for (int z = 0; z < sl->n; z++) {
        a.ref[z] = sl->src[0][z];
        a.dis[z] = sl->src[1][z];
        a.rstride[z] = sl->stride[0][z];
        a.dstride[z] = sl->stride[1][z];
    }
    memcpy(a.level, st->adm_l[e], sizeof(a.level));
    a.cos_1deg_sq = adm_cos_1deg_sq();
    a.enhn_gain_limit = st->adm_p[e].enhn_gain_limit;
    a.work = st->d_adm;
    a.sums = sl->d_sums + st->sums_off[e];
    FOVEA_CUDA_TRY(ctx, fv_adm_cuda_launch(&a, stream));
    return FOVEA_OK;
}

/* The motion SADs of the batch, and its last reference kept in d_prev for the
 * next batch. */
static int queue_motion(vmaf_cuda *st, fovea_context *ctx, const vslot *sl, cudaStream_t stream)
{
    motion_cuda_args a;
    memset(&a, 0, sizeof(a));
    a.nframes = sl->n;
    a.w = st->p.width;
    a.h = st->p.height;
    a.bpc = st->p.bpc;
    int any = 0;
    for (int z = 0; z < sl->n; z++) {
        a.cur[z] = sl->src[0][z];
        a.cstride[z] = sl->stride[0][z];
        if (sl->new_stream[z]) {
            a.prev[z] = NULL; /* the first frame of a stream: SAD 0 */
        } else if (z > 0) {
            a.prev[z] = sl->src[0][z - 1];
            a.pstride[z] = sl->stride[0][z - 1];
        } else {
            a.prev[z] = st->d_prev;
            a.pstride[z] = (ptrdiff_t)st->prev_pitch;
        }
        any |= a.prev[z] != NULL;
    }
    a.sad = sl->d_sums + st->motion_off;
    if (any)
        FOVEA_CUDA_TRY(ctx, fv_motion_cuda_launch_sad(&a, stream));
    const int last = sl->n - 1;
    FOVEA_CUDA_TRY(ctx, cudaMemcpy2DAsync(st->d_prev, st->prev_pitch, sl->src[0][last],
                                          (size_t)sl->stride[0][last], st->row_bytes,
                                          (size_t)st->p.height, cudaMemcpyDeviceToDevice,
                                          stream));
    return FOVEA_OK;
}

/* Queue the kernels of a slot's batch, the read-back of its sums and its done
 * event on the context stream. */
static int launch_slot(vmaf_cuda *st, fovea_context *ctx, vslot *sl)
{
    cudaStream_t stream = fv_ctx_stream(ctx);
    if (sl->copies) {
        FOVEA_CUDA_TRY(ctx, cudaEventRecord(sl->copied, st->copy));
        FOVEA_CUDA_TRY(ctx, cudaStreamWaitEvent(stream, sl->copied, 0));
    }
    const size_t sums_bytes = st->slot_sums * sizeof(unsigned long long);
    /* VIF and motion add into their counters (ADM writes its own) */
    FOVEA_CUDA_TRY(ctx, cudaMemsetAsync(sl->d_sums, 0, sums_bytes, stream));
    for (int e = 0; e < st->p.n_ex; e++) {
        if (st->p.ex[e].type == VMAF_EX_VIF)
            FOVEA_TRY(queue_vif(st, ctx, sl, e, stream));
        else if (st->p.ex[e].type == VMAF_EX_ADM)
            FOVEA_TRY(queue_adm(st, ctx, sl, e, stream));
    }
    if (st->motion)
        FOVEA_TRY(queue_motion(st, ctx, sl, stream));
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(sl->h_sums, sl->d_sums, sums_bytes,
                                        cudaMemcpyDeviceToHost, stream));
    FOVEA_CUDA_TRY(ctx, cudaEventRecord(sl->done, stream));
    sl->launched = 1;
    return FOVEA_OK;
}

static int cuda_submit(void *priv, fovea_context *ctx, const vif_plane *ref, const vif_plane *dis,
                       int new_stream)
{
    vmaf_cuda *st = priv;
    FOVEA_TRY(fv_device_activate(ctx));
    vslot *sl = NULL;
    int opened = 0;
    if (st->used > 0) {
        vslot *last = &st->slot[(st->head + st->used - 1) % VMAF_SLOTS];
        if (!last->launched)
            sl = last;
    }
    if (!sl) {
        if (st->used == VMAF_SLOTS)
            return VMAF_QUEUE_FULL;
        sl = &st->slot[(st->head + st->used) % VMAF_SLOTS];
        st->used++;
        sl->n = 0;
        sl->launched = 0;
        sl->copies = 0;
        opened = 1;
    }
    const int z = sl->n;
    int status = stage_plane(st, ctx, sl, 0, z, ref);
    if (status == FOVEA_OK)
        status = stage_plane(st, ctx, sl, 1, z, dis);
    if (status < 0) {
        if (opened)
            st->used--; /* no empty batch is left behind */
        return status;
    }
    sl->new_stream[z] = new_stream;
    sl->n++;
    if (sl->n == st->batch)
        return launch_slot(st, ctx, sl);
    return FOVEA_OK;
}

static int cuda_collect(void *priv, fovea_context *ctx, vmaf_raw *out)
{
    vmaf_cuda *st = priv;
    if (st->used == 0)
        return fv_ctx_error(ctx, FOVEA_ERR_INTERNAL, "vmaf: collect with nothing queued");
    FOVEA_TRY(fv_device_activate(ctx));
    vslot *sl = &st->slot[st->head];
    if (!sl->launched)
        FOVEA_TRY(launch_slot(st, ctx, sl));
    if (st->taken == 0)
        FOVEA_CUDA_TRY(ctx, cudaEventSynchronize(sl->done));
    const int z = st->taken;
    memset(out, 0, sizeof(*out));
    for (int e = 0; e < st->p.n_ex; e++) {
        const vmaf_ex_params *x = &st->p.ex[e];
        const unsigned long long *u = sl->h_sums + st->sums_off[e];
        if (x->type == VMAF_EX_VIF) {
            vif_cuda_raw(u + (size_t)z * VIF_CUDA_FRAME_SUMS, &out->ex[e].vif);
        } else if (x->type == VMAF_EX_ADM) {
            const adm_params *ap = &st->adm_p[e];
            const unsigned long long *a = u + (size_t)z * ADM_CUDA_FRAME_SUMS;
            for (int s = 0; s < ADM_SCALES; s++, a += ADM_CUDA_NSUMS) {
                int64_t den[3], num[3], aim[3];
                for (int b = 0; b < 3; b++) {
                    den[b] = (int64_t)a[b];
                    num[b] = (int64_t)a[3 + b];
                    aim[b] = (int64_t)a[6 + b];
                }
                out->ex[e].adm.den[s] = adm_den_float(ap, s, den);
                out->ex[e].adm.num[s] = adm_num_float(ap, s, num, ADM_NOISE_WEIGHT);
                out->ex[e].adm.aim_num[s] = adm_num_float(ap, s, aim, 0.0);
            }
        } else {
            out->ex[e].sad = x->force_zero || sl->new_stream[z] ? 0 : sl->h_sums[st->motion_off + z];
        }
    }
    if (++st->taken == sl->n) {
        st->head = (st->head + 1) % VMAF_SLOTS;
        st->used--;
        st->taken = 0;
    }
    return FOVEA_OK;
}

const vmaf_backend vmaf_backend_cuda = {
    {"cuda", FOVEA_BACKEND_CUDA, BACKEND_READS_DEVICE | BACKEND_ASYNC, cuda_init, cuda_close},
    NULL,
    cuda_submit,
    cuda_collect,
    cuda_batch,
};
