/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* C reference of libvmaf's integer ADM (DLM and AIM): a 4-level db2 DWT, the
 * decoupling of the distorted bands into restored and additive parts, CSF
 * weighting, contrast masking and cube sums, in libvmaf's fixed-point
 * arithmetic: the passes over a level's rows (the row passes are adm_dwt.c,
 * adm_decouple.c and adm_sums.c; a level's constants and the floats from
 * its sums are adm_level.c's). docs/quality.md ("Integer ADM") explains
 * every step; each shift, rounding and cast below is libvmaf's,
 * including its wrap-arounds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fovea/frame.h"
#include "quality/adm.h"
#include "quality/adm_rows.h"

/* The float and double steps must round as libvmaf's do (CMake builds with
 * -ffp-contract=off; clang is told here too). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* A level is computed row by row in one pass per thread (level_rows): the
 * DWT of a band row, its decoupling, the maskers' rows and the sums of the
 * row above, so that only the approximation band (the next level's input)
 * goes through memory; everything else lives in a few rows per thread. */
typedef struct adm_thread {
    int32_t *lo[2], *hi[2];   /* vertical DWT pass of ref, dis (input width) */
    int32_t *band[2][NBANDS]; /* one DWT output row of ref, dis */
    int32_t *x[2][3][2];      /* [restored, additive][band][row & 1] */
    int32_t *f[2][3];         /* [masker: restored, additive][row % 3]: the summed
                                 |csf| / 30 of the masker's bands, one column of
                                 padding each side */
    int32_t *c[2][2];         /* [masker][row & 1]: the summed |csf| / 15 */
    int64_t acc[16];          /* den, DLM and AIM numerators (h, v, d each); the
                                 rest keeps threads off each other's cache lines */
} adm_thread;

struct adm_state {
    adm_params p;
    int bw, bh;               /* band size of the first level (every level fits in it) */
    ptrdiff_t stride;         /* elements, of every band plane */
    int32_t *band_a[2][2];    /* [ref, dis][ping, pong]: the approximation band of a
                                 level is read by the next one, which writes the other */
    int *ind_y[4], *ind_x[4]; /* DWT source rows/columns of each output row/column */
    int32_t *div_lookup;      /* 65537 entries: 2^30 / (i - 32768) */
    void *mem;
    /* per thread of the context computing */
    int simd; /* the AVX2 row passes (adm_avx2.c) */
    int nthr;
    adm_thread *thr;
    void *thr_mem;
};

/* Neighbor index with the DWT's border rule: -1 reads 1, n reads n - 1. */
static inline int nb(int i, int n)
{
    return i < 0 ? 1 : (i >= n ? n - 1 : i);
}

/* ---------------------------------------------------------------- API */

int adm_open(adm_state **out, const adm_params *p)
{
    *out = NULL;
    if (p->width < ADM_MIN_DIM || p->height < ADM_MIN_DIM || p->width > FOVEA_MAX_DIM ||
        p->height > FOVEA_MAX_DIM)
        return FOVEA_ERR_INVALID_ARG;
    if (p->bpc != 8 && p->bpc != 10 && p->bpc != 12 && p->bpc != 16)
        return FOVEA_ERR_INVALID_ARG;
    if (!(p->enhn_gain_limit >= 1.0 && p->enhn_gain_limit <= 100.0) ||
        !(p->norm_view_dist >= 0.75 && p->norm_view_dist <= 24.0) || p->ref_display_height < 1 ||
        p->ref_display_height > 4320)
        return FOVEA_ERR_INVALID_ARG;
    /* libvmaf refuses angular frequencies below 1080p at 3H (its 16-bit level-0
     * pipeline would overflow) */
    if (p->norm_view_dist * p->ref_display_height < 3.0 * 1080)
        return FOVEA_ERR_INVALID_ARG;
    if (p->csf_mode < 0 || p->csf_mode >= ADM_CSF_MODES || !(p->csf_scale >= 0.0) ||
        !(p->csf_scale <= 50.0) || !(p->csf_diag_scale >= 0.0) || !(p->csf_diag_scale <= 50.0) ||
        !(p->noise_weight >= 0.0 && p->noise_weight <= 1500.0) ||
        !(p->dlm_weight >= 0.0 && p->dlm_weight <= 1.0) ||
        !(p->min_val >= 0.0 && p->min_val <= 1.0))
        return FOVEA_ERR_INVALID_ARG;
    /* the blend modes have weights for a few viewing conditions only */
    if ((p->csf_mode == ADM_CSF_BLEND || p->csf_mode == ADM_CSF_BLEND_MAE) &&
        !adm_csf_blend_supported(p->norm_view_dist, p->ref_display_height))
        return FOVEA_ERR_INVALID_ARG;

    adm_state *st = calloc(1, sizeof(*st));
    if (!st)
        return FOVEA_ERR_NOMEM;
    st->p = *p;
    st->bw = (p->width + 1) / 2;
    st->bh = (p->height + 1) / 2;
    st->stride = st->bw;
    const size_t plane = (size_t)st->bw * (size_t)st->bh; /* < 2^26: no overflow */
    const size_t n32 = 4 * plane + 65537;
    const size_t nint = 4 * (size_t)(st->bw + st->bh);
    st->mem = calloc(n32 * sizeof(int32_t) + nint * sizeof(int), 1);
    if (!st->mem) {
        free(st);
        return FOVEA_ERR_NOMEM;
    }
    int32_t *m = st->mem;
    for (int s = 0; s < 2; s++)
        for (int pp = 0; pp < 2; pp++, m += plane)
            st->band_a[s][pp] = m;
    st->div_lookup = m;
    m += 65537;
    int *ip = (int *)m;
    for (int k = 0; k < 4; k++) {
        st->ind_y[k] = ip;
        ip += st->bh;
        st->ind_x[k] = ip;
        ip += st->bw;
    }
    /* reciprocals in Q30, truncated; entry 32768 + i for i = -32768..32768 */
    for (int i = 1; i <= 32768; i++) {
        st->div_lookup[32768 + i] = (int32_t)(1073741824 / i);
        st->div_lookup[32768 - i] = -(int32_t)(1073741824 / i);
    }
    st->simd = adm_simd_default();
    if (adm_reserve_threads(st, 1) < 0) {
        adm_close(&st);
        return FOVEA_ERR_NOMEM;
    }
    *out = st;
    return FOVEA_OK;
}

void adm_close(adm_state **st)
{
    if (!st || !*st)
        return;
    free((*st)->mem);
    free((*st)->thr);
    free((*st)->thr_mem);
    free(*st);
    *st = NULL;
}

int adm_set_simd(adm_state *st, int on)
{
    st->simd = on && adm_simd_cpu();
    return st->simd;
}

void adm_compute(adm_state *st, const uint8_t *ref, ptrdiff_t ref_stride, const uint8_t *dis,
                 ptrdiff_t dis_stride, adm_result *out)
{
    adm_raw raw;
    adm_compute_raw(st, NULL, ref, ref_stride, dis, dis_stride, &raw);
    adm_derive_params(&st->p, &raw, out);
}

/* One level's pass over band rows, run on the context's threads. */
typedef struct adm_job {
    adm_state *st;
    adm_level L;
    int sw;                 /* the level's input width */
    const uint8_t *src8[2]; /* level 0: the frames (ref, dis) */
    ptrdiff_t stride8[2];
    const int32_t *src32[2]; /* above: the previous approximation bands */
    int32_t *out_a[2];       /* the approximation bands written (NULL at the last level) */
    adm_dwt_round vr, hr;
} adm_job;

/* The DWT of band row p of ref (s = 0) or dis (s = 1) into t->band[s]; the
 * approximation row goes to the plane when `keep`. */
static void dwt_row(const adm_job *j, adm_thread *t, int s, int p, int keep)
{
    const adm_state *st = j->st;
    const uint8_t *r8[4] = {NULL, NULL, NULL, NULL};
    const int32_t *r32[4] = {NULL, NULL, NULL, NULL};
    for (int k = 0; k < 4; k++) {
        const ptrdiff_t row = st->ind_y[k][p];
        if (j->L.scale == 0)
            r8[k] = j->src8[s] + row * j->stride8[s];
        else
            r32[k] = j->src32[s] + row * st->stride;
    }
    int32_t *a = keep && j->out_a[s] ? j->out_a[s] + p * st->stride : t->band[s][BAND_A];
#if defined(__x86_64__) || defined(__i386__)
    if (st->simd) {
        adm_dwt_row_avx2(j->L.scale, st->p.bpc, r8, r32, j->sw, st->ind_x, &j->vr, &j->hr, t->lo[s],
                         t->hi[s], a, t->band[s][BAND_V], t->band[s][BAND_H], t->band[s][BAND_D]);
        return;
    }
#endif
    adm_dwt_vertical(j->L.scale, st->p.bpc, r8, r32, j->sw, &j->vr, t->lo[s], t->hi[s]);
    adm_dwt_horizontal(j->L.scale, st->ind_x, t->lo[s], t->hi[s], j->sw, &j->hr, a,
                       t->band[s][BAND_V], t->band[s][BAND_H], t->band[s][BAND_D]);
}

/* The AVX2 row passes where the build has them (st->simd is 0 elsewhere). */
#if defined(__x86_64__) || defined(__i386__)
#define num_row_simd adm_num_row_avx2
#define mask_row_simd adm_mask_row_avx2
#define den_row_simd adm_den_row_avx2
#else
#define num_row_simd adm_num_row
#define mask_row_simd adm_mask_row
#define den_row_simd adm_den_row
#endif

/* The decoupling of a row: AVX2 or C. */
static void decouple_row(const adm_state *st, int scale, int l, int r, const int32_t *const o[3],
                         const int32_t *const t[3], int32_t *const rst[3], int32_t *const add[3])
{
#if defined(__x86_64__) || defined(__i386__)
    if (st->simd) {
        adm_decouple_row_avx2(scale, st->div_lookup, st->p.enhn_gain_limit, l, r, o, t, rst, add);
        return;
    }
#endif
    adm_decouple_row(scale, st->div_lookup, st->p.enhn_gain_limit, l, r, o, t, rst, add);
}

/* The numerator sums of scored row i (DLM: the restored part masked by the
 * additive one; AIM: the reverse). The rows i - 1, i, i + 1 (mirrored) are
 * the last three computed. */
static void num_at(const adm_job *j, adm_thread *t, int i)
{
    const int h = j->L.h;
    const int rm = nb(i - 1, h) % 3, r0 = i % 3, rp = nb(i + 1, h) % 3;
    for (int x = 0; x < 2; x++) {
        const int m = 1 - x; /* the masker */
        const int32_t *xr[3] = {t->x[x][0][i & 1], t->x[x][1][i & 1], t->x[x][2][i & 1]};
        (j->st->simd ? num_row_simd : adm_num_row)(&j->L, xr, t->f[m][rm], t->f[m][r0], t->f[m][rp],
                                                   t->c[m][i & 1], t->acc + 3 + 3 * x);
    }
}

/* Band rows [i0, i1) of a level: their approximation rows, and the den and
 * numerator sums of the scored rows among them. The rows next to the range
 * that the masking needs are computed again here rather than shared. */
static void level_rows(void *arg, int i0, int i1, int thread)
{
    const adm_job *j = arg;
    adm_state *st = j->st;
    const adm_level *L = &j->L;
    adm_thread *t = &st->thr[thread];
    const int w = L->w, h = L->h;
    /* scored rows [n0, n1); masked rows [m0, m1]; computed rows [p0, p1) */
    const int n0 = L->st > i0 ? L->st : i0, n1 = L->sb < i1 ? L->sb : i1;
    int p0 = i0, p1 = i1, m0 = 0, m1 = -1;
    if (n0 < n1) {
        m0 = n0 > 0 ? n0 - 1 : 0;
        m1 = n1 < h ? n1 : h - 1;
        if (m1 < 1)
            m1 = 1; /* row 0 reads row 1 above it */
        p0 = p0 < m0 ? p0 : m0;
        p1 = p1 > m1 + 1 ? p1 : m1 + 1;
    }
    /* masked columns [cl, cr): the scored ones and their neighbors */
    const int cl = L->sl > 0 ? L->sl - 1 : 0, cr = L->sr < w ? L->sr + 1 : w;
    for (int p = p0; p < p1; p++) {
        const int keep = p >= i0 && p < i1;
        dwt_row(j, t, 0, p, keep);
        dwt_row(j, t, 1, p, keep);
        if (p >= m0 && p <= m1) {
            int32_t *rst[3], *add[3];
            for (int b = 0; b < 3; b++) {
                rst[b] = t->x[0][b][p & 1];
                add[b] = t->x[1][b][p & 1];
            }
            decouple_row(st, L->scale, cl, cr, (const int32_t *const *)t->band[0],
                         (const int32_t *const *)t->band[1], rst, add);
            if (p >= n0 && p < n1)
                (st->simd ? den_row_simd : adm_den_row)(L, (const int32_t *const *)t->band[0],
                                                        t->acc);
            for (int m = 0; m < 2; m++) {
                int32_t *f = t->f[m][p % 3], *c = t->c[m][p & 1];
                (st->simd ? mask_row_simd : adm_mask_row)(
                    L->scale, L->q, cl, cr, (const int32_t *const *)(m ? add : rst), f, c);
                /* the border rule of the neighborhood: -1 reads 1, w reads w - 1 */
                if (L->sl == 0)
                    f[-1] = f[1];
                if (L->sr == w)
                    f[w] = f[w - 1];
            }
        }
        if (p - 1 >= n0 && p - 1 < n1)
            num_at(j, t, p - 1);
    }
    if (n0 < n1 && n1 == p1)
        num_at(j, t, n1 - 1); /* the band's last row: its row below is itself */
}

/* Per-thread rows, in int32 elements: lo/hi (4 x width), band rows (8),
 * decoupled rows (12), f rings (6, padded by 2), c rows (4). */
static size_t thread_elems(const adm_state *st)
{
    const size_t wi = ((size_t)st->p.width + 15) & ~(size_t)15;
    const size_t wb = ((size_t)st->bw + 2 + 15) & ~(size_t)15;
    return 4 * wi + (8 + 12 + 6 + 4) * wb;
}

int adm_reserve_threads(adm_state *st, int n)
{
    if (n < 1)
        n = 1;
    if (n <= st->nthr)
        return FOVEA_OK;
    const size_t wi = ((size_t)st->p.width + 15) & ~(size_t)15;
    const size_t wb = ((size_t)st->bw + 2 + 15) & ~(size_t)15;
    const size_t per = thread_elems(st); /* < 2^20 */
    adm_thread *thr = calloc((size_t)n, sizeof(*thr));
    int32_t *mem = malloc((size_t)n * per * sizeof(int32_t) + 64);
    if (!thr || !mem) {
        free(thr);
        free(mem);
        return FOVEA_ERR_NOMEM;
    }
    int32_t *m = (int32_t *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    for (int i = 0; i < n; i++) {
        adm_thread *t = &thr[i];
        for (int s = 0; s < 2; s++) {
            t->lo[s] = m;
            t->hi[s] = m + wi;
            m += 2 * wi;
        }
        for (int s = 0; s < 2; s++)
            for (int b = 0; b < NBANDS; b++, m += wb)
                t->band[s][b] = m;
        for (int x = 0; x < 2; x++)
            for (int b = 0; b < 3; b++)
                for (int r = 0; r < 2; r++, m += wb)
                    t->x[x][b][r] = m;
        for (int x = 0; x < 2; x++)
            for (int r = 0; r < 3; r++, m += wb)
                t->f[x][r] = m + 1;
        for (int x = 0; x < 2; x++)
            for (int r = 0; r < 2; r++, m += wb)
                t->c[x][r] = m;
    }
    free(st->thr);
    free(st->thr_mem);
    st->thr = thr;
    st->thr_mem = mem;
    st->nthr = n;
    return FOVEA_OK;
}

void adm_compute_raw(adm_state *st, fovea_context *ctx, const uint8_t *ref, ptrdiff_t ref_stride,
                     const uint8_t *dis, ptrdiff_t dis_stride, adm_raw *out)
{
    /* without scratch for every thread of ctx: on the calling thread */
    if (fv_threadpool_size(ctx ? ctx->pool : NULL) > st->nthr)
        ctx = NULL;
    int w = st->p.width, h = st->p.height;
    adm_job j;
    memset(&j, 0, sizeof(j));
    j.st = st;
    j.src8[0] = ref;
    j.src8[1] = dis;
    j.stride8[0] = ref_stride;
    j.stride8[1] = dis_stride;
    for (int scale = 0; scale < ADM_SCALES; scale++) {
        adm_dwt_indices(st->ind_y, h);
        adm_dwt_indices(st->ind_x, w);
        adm_level_setup(&st->p, scale, &j.L);
        adm_dwt_rounding(st->p.bpc, scale, &j.vr, &j.hr);
        j.sw = w;
        /* level s reads the approximation written by level s - 1 (buffer
         * (s - 1) & 1) and writes the other; the last level's is not needed */
        for (int s = 0; s < 2; s++) {
            j.src32[s] = scale > 0 ? st->band_a[s][(scale - 1) & 1] : NULL;
            j.out_a[s] = scale < ADM_SCALES - 1 ? st->band_a[s][scale & 1] : NULL;
        }
        for (int t = 0; t < st->nthr; t++)
            memset(st->thr[t].acc, 0, sizeof(st->thr[t].acc));
        /* chunks of at least 16 rows: each recomputes about 2 rows of its
         * neighbors */
        fv_parallel_for(ctx, j.L.h, 16, level_rows, &j);
        int64_t sums[9] = {0};
        for (int t = 0; t < st->nthr; t++)
            for (int k = 0; k < 9; k++) /* integer sums: the same for any split */
                sums[k] = (int64_t)((uint64_t)sums[k] + (uint64_t)st->thr[t].acc[k]);
        w = j.L.w;
        h = j.L.h;
        out->den[scale] = adm_den_float(&st->p, scale, sums);
        /* DLM: the restored part, masked by the additive part; AIM: the
         * additive part, masked by the restored part, no noise floor */
        out->num[scale] = adm_num_float(&st->p, scale, sums + 3, st->p.noise_weight);
        out->aim_num[scale] = adm_num_float(&st->p, scale, sums + 6, 0.0);
    }
}
