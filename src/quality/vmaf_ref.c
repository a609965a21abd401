/* The VMAF C backend: the raw values of every extractor instance of a frame
 * pair from the C references (VIF: vif_ref.c, ADM: adm_ref.c, motion's SAD:
 * motion_ref.c), each split over the context's threads by rows. The derived
 * scores, the lookahead and the model live in vmaf.c. */
#include <stdlib.h>
#include <string.h>

#include "quality/motion.h"
#include "quality/vmaf_internal.h"

typedef struct ref_ex {
    vmaf_ex_params p;
    void *vif;      /* vif_backend_ref state (VIF) */
    adm_state *adm; /* ADM */
} ref_ex;

typedef struct vmaf_ref {
    vmaf_params p;
    ref_ex ex[VMAF_MAX_EXTRACTORS];
    int motion;      /* some motion instance computes a SAD */
    int bytes;       /* per sample */
    uint8_t *prev;   /* the previous reference's luma, rows of width * bytes */
    int nthreads;
    int32_t *rows;   /* nthreads rows of width: motion_sad scratch */
    uint64_t *sad;   /* nthreads partial SADs */
} vmaf_ref;

static void ref_close(void **priv)
{
    vmaf_ref *st = priv ? *priv : NULL;
    if (!st)
        return;
    for (int e = 0; e < st->p.n_ex; e++) {
        vif_backend_ref.info.close(&st->ex[e].vif);
        adm_close(&st->ex[e].adm);
    }
    free(st->prev);
    free(st->rows);
    free(st->sad);
    free(st);
    *priv = NULL;
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
    st->nthreads = fv_threadpool_size(ctx ? ctx->pool : NULL);
    if (st->nthreads < 1)
        st->nthreads = 1;
    for (int e = 0; e < p->n_ex; e++) {
        const vmaf_ex_params *xp = &p->ex[e];
        st->ex[e].p = *xp;
        int rc = FOVEA_OK;
        if (xp->type == VMAF_EX_VIF) {
            vif_params vp = {p->width, p->height, p->bpc, xp->enhn_gain_limit};
            rc = vif_backend_ref.info.init(&st->ex[e].vif, ctx, &vp);
        } else if (xp->type == VMAF_EX_ADM) {
            adm_params ap;
            adm_default_params(&ap, p->width, p->height, p->bpc);
            ap.enhn_gain_limit = xp->enhn_gain_limit;
            ap.norm_view_dist = xp->norm_view_dist;
            ap.ref_display_height = xp->ref_display_height;
            rc = adm_open(&st->ex[e].adm, &ap);
            if (rc < 0)
                rc = fv_ctx_error(ctx, rc, "vmaf: ADM cannot score %dx%d at %d bits", p->width,
                                  p->height, p->bpc);
        } else if (!xp->force_zero) {
            st->motion = 1;
        }
        if (rc < 0) {
            st->p.n_ex = e + 1;
            ref_close((void **)&st);
            return rc;
        }
    }
    if (st->motion) {
        /* w, h <= FOVEA_MAX_DIM: no overflow */
        st->prev = malloc((size_t)p->width * (size_t)p->height * (size_t)st->bytes);
        st->rows = malloc((size_t)st->nthreads * (size_t)p->width * sizeof(*st->rows));
        st->sad = malloc((size_t)st->nthreads * sizeof(*st->sad));
        if (!st->prev || !st->rows || !st->sad) {
            ref_close((void **)&st);
            return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: cannot allocate buffers for %dx%d",
                                p->width, p->height);
        }
    }
    *priv = st;
    return FOVEA_OK;
}

typedef struct sad_job {
    vmaf_ref *st;
    const vif_plane *cur;
} sad_job;

static void sad_rows(void *arg, int begin, int end, int thread)
{
    sad_job *j = arg;
    vmaf_ref *st = j->st;
    const int w = st->p.width;
    st->sad[thread] += motion_sad_rows(st->prev, (ptrdiff_t)w * st->bytes, j->cur->data,
                                       j->cur->stride, w, st->p.height, st->p.bpc, begin, end,
                                       st->rows + (size_t)thread * (size_t)w);
}

/* The SAD of cur against the kept previous reference (integer sums: the
 * split over threads does not change the bits). */
static uint64_t motion_sad_mt(vmaf_ref *st, fovea_context *ctx, const vif_plane *cur)
{
    sad_job j = {st, cur};
    memset(st->sad, 0, (size_t)st->nthreads * sizeof(*st->sad));
    fv_parallel_for(ctx, st->p.height, 8, sad_rows, &j);
    uint64_t sad = 0;
    for (int t = 0; t < st->nthreads; t++)
        sad += st->sad[t];
    return sad;
}

static int ref_process(void *priv, fovea_context *ctx, const vif_plane *ref, const vif_plane *dis,
                       int new_stream, vmaf_raw *out)
{
    vmaf_ref *st = priv;
    memset(out, 0, sizeof(*out));
    uint64_t sad = 0;
    if (st->motion && !new_stream)
        sad = motion_sad_mt(st, ctx, ref);
    for (int e = 0; e < st->p.n_ex; e++) {
        ref_ex *x = &st->ex[e];
        if (x->p.type == VMAF_EX_VIF) {
            int rc = vif_backend_ref.process(x->vif, ctx, ref, dis, &out->ex[e].vif);
            if (rc < 0)
                return rc;
        } else if (x->p.type == VMAF_EX_ADM) {
            int rc = adm_compute_raw(x->adm, ctx, ref->data, ref->stride, dis->data,
                                     dis->stride, &out->ex[e].adm);
            if (rc < 0)
                return fv_ctx_error(ctx, rc, "vmaf: ADM: out of memory");
        } else {
            out->ex[e].sad = x->p.force_zero ? 0 : sad;
        }
    }
    if (st->motion) {
        const size_t row = (size_t)st->p.width * (size_t)st->bytes;
        for (int y = 0; y < st->p.height; y++)
            memcpy(st->prev + (size_t)y * row, ref->data + y * ref->stride, row);
    }
    return FOVEA_OK;
}

const vmaf_backend vmaf_backend_ref = {
    {"cpu", FOVEA_BACKEND_CPU, 0, ref_init, ref_close},
    ref_process,
    NULL,
    NULL,
    NULL,
};
