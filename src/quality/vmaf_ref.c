/* The VMAF C backend: the raw values of every extractor instance of a frame
 * pair from the C references (VIF: vif_ref.c, ADM: adm_ref.c, motion's SAD:
 * motion_ref.c). The derived scores, the lookahead and the model live in
 * vmaf.c.
 *
 * Threads: pairs are queued in slots, one per thread of the context (fewer
 * when the frames are large); a full batch is scored one pair per thread,
 * each pair on one thread. A batch of one pair (a caller that waits for each
 * score) is split over the threads by rows instead. Every sum is an integer,
 * so both ways give the same bits for any thread count. */
#include <stdlib.h>
#include <string.h>

#include "quality/motion.h"
#include "quality/vmaf_internal.h"

/* The slots' state stays below this (ADM keeps 4 int32 planes of a quarter
 * of the frame: about 15 MB a slot at 1920x1080 with VIF and the luma). */
#define VMAF_REF_SLOT_BUDGET ((size_t)1 << 30)

/* One queued pair and the extractor state that scores it. */
typedef struct slot {
    void *vif[VMAF_MAX_EXTRACTORS];      /* vif_backend_ref states (VIF instances) */
    adm_state *adm[VMAF_MAX_EXTRACTORS]; /* ADM instances */
    uint8_t *ref, *dis;                  /* the pair's luma, rows of width * bytes */
    int32_t *row;                        /* motion_sad scratch (width) */
    int new_stream;
    int status;
    vmaf_raw raw;
} slot;

typedef struct vmaf_ref {
    vmaf_params p;
    int bytes;        /* per sample */
    size_t row_bytes; /* width * bytes */
    int motion;       /* some motion instance computes a SAD */
    int nslots;
    slot *s;
    int n_in;         /* pairs in slots [0, n_in) waiting to be scored */
    int n_out, next;  /* scored pairs not collected, from slot next */
    uint8_t *prev;    /* the reference before slot 0's (last of the previous batch) */
    /* a one-pair batch split by rows: per-thread motion rows and partial SADs */
    int nthreads;
    int32_t *rows;
    uint64_t *sad;
    fovea_context *ctx; /* of the batch being scored */
} vmaf_ref;

static void free_slot(vmaf_ref *st, slot *s)
{
    for (int e = 0; e < st->p.n_ex; e++) {
        vif_backend_ref.info.close(&s->vif[e]);
        adm_close(&s->adm[e]);
    }
    free(s->ref);
    free(s->dis);
    free(s->row);
}

static void ref_close(void **priv)
{
    vmaf_ref *st = priv ? *priv : NULL;
    if (!st)
        return;
    for (int i = 0; st->s && i < st->nslots; i++)
        free_slot(st, &st->s[i]);
    free(st->s);
    free(st->prev);
    free(st->rows);
    free(st->sad);
    free(st);
    *priv = NULL;
}

static int init_slot(vmaf_ref *st, fovea_context *ctx, slot *s)
{
    const vmaf_params *p = &st->p;
    const size_t plane = st->row_bytes * (size_t)p->height; /* <= 2^29: no overflow */
    s->ref = malloc(plane);
    s->dis = malloc(plane);
    s->row = malloc((size_t)p->width * sizeof(*s->row));
    if (!s->ref || !s->dis || !s->row)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: cannot allocate buffers for %dx%d",
                            p->width, p->height);
    for (int e = 0; e < p->n_ex; e++) {
        const vmaf_ex_params *xp = &p->ex[e];
        if (xp->type == VMAF_EX_VIF) {
            vif_params vp = {p->width, p->height, p->bpc, xp->enhn_gain_limit};
            FOVEA_TRY(vif_backend_ref.info.init(&s->vif[e], ctx, &vp));
        } else if (xp->type == VMAF_EX_ADM) {
            adm_params ap;
            adm_default_params(&ap, p->width, p->height, p->bpc);
            ap.enhn_gain_limit = xp->enhn_gain_limit;
            ap.norm_view_dist = xp->norm_view_dist;
            ap.ref_display_height = xp->ref_display_height;
            int rc = adm_open(&s->adm[e], &ap);
            if (rc < 0)
                return fv_ctx_error(ctx, rc, "vmaf: ADM cannot score %dx%d at %d bits",
                                    p->width, p->height, p->bpc);
            /* the first slot also scores one-pair batches split by rows */
            if (s == st->s && adm_reserve_threads(s->adm[e], st->nthreads) < 0)
                return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
        }
    }
    return FOVEA_OK;
}

static int ref_init(void **priv, fovea_context *ctx, const void *params)
{
    const vmaf_params *p = params;
    *priv = NULL;
    vmaf_ref *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->p = *p;
    st->bytes = p->bpc == 8 ? 1 : 2;
    st->row_bytes = (size_t)p->width * (size_t)st->bytes;
    for (int e = 0; e < p->n_ex; e++)
        if (p->ex[e].type == VMAF_EX_MOTION && !p->ex[e].force_zero)
            st->motion = 1;
    st->nthreads = fv_threadpool_size(ctx ? ctx->pool : NULL);
    if (st->nthreads < 1)
        st->nthreads = 1;
    /* slots: one per thread, within the memory budget (estimated per instance:
     * ADM 4 planes of a quarter frame in int32, VIF 2 quarter-frame images
     * in int16, the pair's luma) */
    const size_t pixels = (size_t)p->width * (size_t)p->height;
    size_t per_slot = 2 * pixels * (size_t)st->bytes;
    for (int e = 0; e < p->n_ex; e++)
        per_slot += p->ex[e].type == VMAF_EX_ADM ? 4 * pixels : p->ex[e].type == VMAF_EX_VIF
                                                                     ? pixels
                                                                     : 0;
    const size_t fit = VMAF_REF_SLOT_BUDGET / (per_slot ? per_slot : 1);
    st->nslots = fit < 1 ? 1 : fit < (size_t)st->nthreads ? (int)fit : st->nthreads;
    st->s = calloc((size_t)st->nslots, sizeof(*st->s));
    st->rows = malloc((size_t)st->nthreads * (size_t)p->width * sizeof(*st->rows));
    st->sad = malloc((size_t)st->nthreads * sizeof(*st->sad));
    st->prev = malloc(st->row_bytes * (size_t)p->height);
    int rc = st->s && st->rows && st->sad && st->prev
                 ? FOVEA_OK
                 : fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    for (int i = 0; rc == FOVEA_OK && i < st->nslots; i++)
        rc = init_slot(st, ctx, &st->s[i]);
    if (rc < 0) {
        ref_close((void **)&st);
        return rc;
    }
    *priv = st;
    return FOVEA_OK;
}

static int ref_batch(const fovea_context *ctx, int width, int height)
{
    (void)width;
    (void)height;
    /* as many as ref_init makes slots, before the memory budget */
    const int n = fv_threadpool_size(ctx ? ctx->pool : NULL);
    return n < 1 ? 1 : n;
}

/* ---------------------------------------------------------------- scoring */

typedef struct sad_job {
    vmaf_ref *st;
    const uint8_t *prev, *cur;
} sad_job;

static void sad_rows(void *arg, int begin, int end, int thread)
{
    sad_job *j = arg;
    vmaf_ref *st = j->st;
    const int w = st->p.width;
    st->sad[thread] += motion_sad_rows(j->prev, (ptrdiff_t)st->row_bytes, j->cur,
                                       (ptrdiff_t)st->row_bytes, w, st->p.height, st->p.bpc,
                                       begin, end, st->rows + (size_t)thread * (size_t)w);
}

/* Score the pair of slot s against the reference prev. ctx splits the work
 * by rows (a one-pair batch); NULL scores it on the calling thread. */
static int score_slot(vmaf_ref *st, fovea_context *ctx, slot *s, const uint8_t *prev)
{
    memset(&s->raw, 0, sizeof(s->raw));
    uint64_t sad = 0;
    if (st->motion && !s->new_stream) {
        if (ctx) {
            sad_job j = {st, prev, s->ref};
            memset(st->sad, 0, (size_t)st->nthreads * sizeof(*st->sad));
            fv_parallel_for(ctx, st->p.height, 8, sad_rows, &j);
            for (int t = 0; t < st->nthreads; t++)
                sad += st->sad[t];
        } else {
            sad = motion_sad(prev, (ptrdiff_t)st->row_bytes, s->ref, (ptrdiff_t)st->row_bytes,
                             st->p.width, st->p.height, st->p.bpc, s->row);
        }
    }
    const vif_plane ref = {s->ref, (ptrdiff_t)st->row_bytes, FOVEA_MEM_HOST};
    const vif_plane dis = {s->dis, (ptrdiff_t)st->row_bytes, FOVEA_MEM_HOST};
    for (int e = 0; e < st->p.n_ex; e++) {
        const vmaf_ex_params *xp = &st->p.ex[e];
        if (xp->type == VMAF_EX_VIF) {
            FOVEA_TRY(vif_backend_ref.process(s->vif[e], ctx, &ref, &dis, &s->raw.ex[e].vif));
        } else if (xp->type == VMAF_EX_ADM) {
            adm_compute_raw(s->adm[e], ctx, s->ref, (ptrdiff_t)st->row_bytes, s->dis,
                            (ptrdiff_t)st->row_bytes, &s->raw.ex[e].adm);
        } else {
            s->raw.ex[e].sad = xp->force_zero ? 0 : sad;
        }
    }
    return FOVEA_OK;
}

static void score_slots(void *arg, int begin, int end, int thread)
{
    (void)thread;
    vmaf_ref *st = arg;
    for (int i = begin; i < end; i++)
        st->s[i].status = score_slot(st, NULL, &st->s[i], i == 0 ? st->prev : st->s[i - 1].ref);
}

/* Score the queued pairs: one per thread, or one split by rows. */
static int run_batch(vmaf_ref *st, fovea_context *ctx)
{
    const int n = st->n_in;
    if (n == 1) {
        st->s[0].status = score_slot(st, ctx, &st->s[0], st->prev);
    } else {
        fv_parallel_for(ctx, n, 1, score_slots, st);
    }
    int rc = FOVEA_OK;
    for (int i = 0; i < n && rc == FOVEA_OK; i++)
        rc = st->s[i].status; /* the C references do not fail; kept for the shape */
    /* the last reference is the next batch's previous one: swap the buffers */
    uint8_t *t = st->prev;
    st->prev = st->s[n - 1].ref;
    st->s[n - 1].ref = t;
    st->n_in = 0;
    st->n_out = n;
    st->next = 0;
    return rc;
}

static int ref_submit(void *priv, fovea_context *ctx, const vif_plane *ref, const vif_plane *dis,
                      int new_stream)
{
    vmaf_ref *st = priv;
    if (st->n_out > 0)
        return VMAF_QUEUE_FULL; /* the scored batch is collected first */
    slot *s = &st->s[st->n_in];
    for (int y = 0; y < st->p.height; y++) {
        memcpy(s->ref + (size_t)y * st->row_bytes, ref->data + y * ref->stride, st->row_bytes);
        memcpy(s->dis + (size_t)y * st->row_bytes, dis->data + y * dis->stride, st->row_bytes);
    }
    s->new_stream = new_stream;
    st->n_in++;
    if (st->n_in == st->nslots)
        return run_batch(st, ctx);
    return FOVEA_OK;
}

static int ref_collect(void *priv, fovea_context *ctx, vmaf_raw *out)
{
    vmaf_ref *st = priv;
    if (st->n_out == 0) {
        if (st->n_in == 0)
            return fv_ctx_error(ctx, FOVEA_ERR_INTERNAL, "vmaf: nothing queued");
        FOVEA_TRY(run_batch(st, ctx));
    }
    *out = st->s[st->next].raw;
    st->next++;
    st->n_out--;
    return FOVEA_OK;
}

const vmaf_backend vmaf_backend_ref = {
    {"cpu", FOVEA_BACKEND_CPU, BACKEND_ASYNC, ref_init, ref_close},
    NULL,
    ref_submit,
    ref_collect,
    ref_batch,
};
