/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The feature "psnr": libvmaf's integer PSNR (its `psnr` extractor,
 * integer_psnr.c): per plane the sum of squared errors (an exact integer,
 * the raw value), the PSNR clamped to a per-plane maximum and optionally the
 * MSE; with enable_apsnr the PSNR of the whole run's summed errors
 * (libvmaf's aggregate metrics apsnr_y, apsnr_cb, apsnr_cr).
 *
 * Integer arithmetic as libvmaf's plain C: 8-bit samples sum the squares of
 * a row in 32 bits (wrapping as libvmaf's row sum does above 66051 columns)
 * before adding the row to the 64-bit plane sum; deeper samples add each
 * square (at most 65535^2, fits 32 bits) to the 64-bit sum directly. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "quality/feature.h"
#include "quality/psnr.h"

/* libvmaf flags none of them as a feature parameter: no name suffixes */
static const feature_option psnr_options[PSNR_OPTIONS] = {
    [PSNR_OPT_ENABLE_APSNR] = {"enable_apsnr", "enable_apsnr", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 0,
                               NULL},
    [PSNR_OPT_ENABLE_CHROMA] = {"enable_chroma", "enable_chroma", FEATURE_OPT_BOOL, 1.0, 0.0, 1.0,
                                0, NULL},
    [PSNR_OPT_ENABLE_MSE] = {"enable_mse", "enable_mse", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 0, NULL},
    [PSNR_OPT_MIN_SSE] = {"min_sse", "min_sse", FEATURE_OPT_DOUBLE, 0.0, 0.0, DBL_MAX, 0, NULL},
    [PSNR_OPT_REDUCED_HBD_PEAK] = {"reduced_hbd_peak", "reduced_hbd_peak", FEATURE_OPT_BOOL, 0.0,
                                   0.0, 1.0, 0, NULL},
};

/* libvmaf's collector order: each plane's psnr, then its mse */
static const feature_output psnr_outputs[] = {
    {"psnr_y", NULL, 0}, {"mse_y", NULL, 0},   {"psnr_cb", NULL, 0},
    {"mse_cb", NULL, 0}, {"psnr_cr", NULL, 0}, {"mse_cr", NULL, 0},
};

static const char *const psnr_aggregates[] = {"apsnr_y", "apsnr_cb", "apsnr_cr"};

/* The run's sums for apsnr, and the depth of its frames. */
typedef struct psnr_acc {
    uint64_t sse[3];
    uint64_t n_pixels[3];
    uint64_t bpc;
} psnr_acc;

_Static_assert(sizeof(psnr_raw) <= FEATURE_RAW_BYTES, "psnr raw values fit a feature_raw");
_Static_assert(sizeof(psnr_acc) <= FEATURE_RAW_BYTES, "psnr sums fit a feature_raw");

static int psnr_has_output(const feature_opts *o, int k)
{
    const int plane = k / 2, mse = k % 2;
    return (plane == 0 || o->v[PSNR_OPT_ENABLE_CHROMA] != 0.0) &&
           (!mse || o->v[PSNR_OPT_ENABLE_MSE] != 0.0);
}

/* libvmaf's peak: 2^bpc - 1, or 255 << (bpc - 8) with reduced_hbd_peak. */
static uint32_t psnr_peak(const feature_opts *o, int bpc)
{
    return o->v[PSNR_OPT_REDUCED_HBD_PEAK] != 0.0 ? 255u << (bpc - 8) : (1u << bpc) - 1u;
}

/* The width and height of plane p of a frame (libvmaf's floor(w/2) chroma). */
static void plane_size(int width, int height, int chroma, int p, unsigned *w, unsigned *h)
{
    *w = (unsigned)width;
    *h = (unsigned)height;
    if (p > 0 && chroma != 444)
        *w /= 2;
    if (p > 0 && chroma == 420)
        *h /= 2;
}

static void psnr_derive(const feature_opts *o, const feature_frame *f, const feature_raw *raw,
                        const feature_raw *const *next, double *state, double *out)
{
    (void)next;
    (void)state;
    psnr_raw r;
    memcpy(&r, raw->b, sizeof(r));
    const uint32_t peak = psnr_peak(o, f->bpc);
    const double peak2 = (double)(peak * peak);
    const double min_sse = o->v[PSNR_OPT_MIN_SSE];
    const int n = o->v[PSNR_OPT_ENABLE_CHROMA] != 0.0 && f->chroma != 400 ? 3 : 1;
    for (int p = 0; p < n; p++) {
        unsigned w, h;
        plane_size(f->width, f->height, f->chroma, p, &w, &h);
        /* the clamp: libvmaf's 6 * bpc + 12 dB, or what min_sse allows */
        double psnr_max = (double)(6 * f->bpc + 12);
        if (min_sse != 0.0)
            psnr_max = ceil(10. * log10(peak2 / (min_sse / (double)(w * h))));
        const double mse = (double)r.sse[p] / (double)(w * h);
        const double psnr = 10. * log10(peak2 / (mse > 1e-16 ? mse : 1e-16));
        out[2 * p] = psnr < psnr_max ? psnr : psnr_max;
        out[2 * p + 1] = mse;
    }
}

static void psnr_accumulate(const feature_opts *o, const feature_frame *f, const feature_raw *raw,
                            feature_raw *acc)
{
    if (o->v[PSNR_OPT_ENABLE_APSNR] == 0.0)
        return;
    psnr_raw r;
    psnr_acc a;
    memcpy(&r, raw->b, sizeof(r));
    memcpy(&a, acc->b, sizeof(a));
    const int n = o->v[PSNR_OPT_ENABLE_CHROMA] != 0.0 && f->chroma != 400 ? 3 : 1;
    for (int p = 0; p < n; p++) {
        unsigned w, h;
        plane_size(f->width, f->height, f->chroma, p, &w, &h);
        a.sse[p] += r.sse[p];
        a.n_pixels[p] += (uint64_t)(h * w);
    }
    a.bpc = (uint64_t)f->bpc;
    memcpy(acc->b, &a, sizeof(a));
}

/* libvmaf's flush: every plane, also those never summed (log10 of zeros:
 * not finite, JSON null) */
static int psnr_aggregate(const feature_opts *o, const feature_raw *acc, double *out)
{
    if (o->v[PSNR_OPT_ENABLE_APSNR] == 0.0)
        return 0;
    psnr_acc a;
    memcpy(&a, acc->b, sizeof(a));
    if (a.bpc == 0)
        return 0; /* no frame yet */
    const uint32_t peak = psnr_peak(o, (int)a.bpc);
    for (int p = 0; p < 3; p++) {
        const double apsnr = 10 * (log10((double)(peak * peak)) + log10((double)a.n_pixels[p]) -
                                   log10((double)a.sse[p]));
        const double max_apsnr =
            ceil(10 * log10((double)((uint64_t)(peak * peak) * a.n_pixels[p] * 2)));
        out[p] = apsnr < max_apsnr ? apsnr : max_apsnr;
    }
    return 3;
}

const feature_def feature_psnr = {
    .name = "psnr",
    .label = "psnr",
    .flags = FEATURE_CHROMA,
    .min_dim = 1,
    .cpu_bytes_per_pixel = 0,
    .n_options = PSNR_OPTIONS,
    .options = psnr_options,
    .n_outputs = (int)(sizeof psnr_outputs / sizeof psnr_outputs[0]),
    .outputs = psnr_outputs,
    .derive = psnr_derive,
    .has_output = psnr_has_output,
    .n_aggregates = 3,
    .aggregates = psnr_aggregates,
    .accumulate = psnr_accumulate,
    .aggregate = psnr_aggregate,
};

/* ---------------------------------------------------------------- C extractor */

typedef struct psnr_cpu {
    int bpc, planes;
    unsigned w[3], h[3];
} psnr_cpu;

static void cpu_close(void **priv)
{
    if (priv) {
        free(*priv);
        *priv = NULL;
    }
}

static int cpu_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    const int chroma = s->opts.v[PSNR_OPT_ENABLE_CHROMA] != 0.0;
    if (chroma && s->chroma == 400)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "psnr: the input has no chroma planes (gray); set "
                            "psnr:enable_chroma=false");
    psnr_cpu *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->bpc = s->bpc;
    st->planes = chroma ? 3 : 1;
    st->w[0] = (unsigned)s->width;
    st->h[0] = (unsigned)s->height;
    for (int p = 1; p < 3; p++) {
        st->w[p] = (unsigned)s->chroma_width;
        st->h[p] = (unsigned)s->chroma_height;
    }
    *priv = st;
    return FOVEA_OK;
}

/* libvmaf's 8-bit sum: each row in 32 bits, then added to 64 */
static uint64_t sse_8(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs, unsigned w,
                      unsigned h)
{
    uint64_t sse = 0;
    for (unsigned y = 0; y < h; y++, a += as, b += bs) {
        uint32_t row = 0;
        for (unsigned x = 0; x < w; x++) {
            const int e = (int)a[x] - (int)b[x];
            row += (uint32_t)(e * e);
        }
        sse += row;
    }
    return sse;
}

/* deeper samples: each square (below 2^32) into the 64-bit sum */
static uint64_t sse_16(const uint8_t *a8, ptrdiff_t as, const uint8_t *b8, ptrdiff_t bs, unsigned w,
                       unsigned h)
{
    uint64_t sse = 0;
    for (unsigned y = 0; y < h; y++, a8 += as, b8 += bs) {
        const uint16_t *a = (const uint16_t *)(const void *)a8;
        const uint16_t *b = (const uint16_t *)(const void *)b8;
        uint64_t row = 0;
        for (unsigned x = 0; x < w; x++) {
            const uint32_t e = (uint32_t)abs((int)a[x] - (int)b[x]);
            row += e * e;
        }
        sse += row;
    }
    return sse;
}

static int cpu_extract(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw)
{
    (void)ctx;
    const psnr_cpu *st = priv;
    psnr_raw r = {{0, 0, 0}};
    for (int k = 0; k < st->planes; k++) {
        const uint8_t *a = k ? p->ref_c[k - 1] : p->ref;
        const uint8_t *b = k ? p->dis_c[k - 1] : p->dis;
        const ptrdiff_t as = k ? p->ref_c_stride[k - 1] : p->ref_stride;
        const ptrdiff_t bs = k ? p->dis_c_stride[k - 1] : p->dis_stride;
        r.sse[k] = st->bpc == 8 ? sse_8(a, as, b, bs, st->w[k], st->h[k])
                                : sse_16(a, as, b, bs, st->w[k], st->h[k]);
    }
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, &r, sizeof(r));
    return FOVEA_OK;
}

const feature_extractor feature_psnr_cpu = {
    &feature_psnr, FOVEA_BACKEND_CPU, cpu_init, cpu_close, cpu_extract, 0, 0, NULL, NULL,
};
