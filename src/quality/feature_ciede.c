/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The feature "ciede": libvmaf's CIEDE2000 (its `ciede` extractor, ciede.c):
 * every pixel's YUV (BT.709, limited range) to linear RGB, to XYZ, to L*a*b*,
 * the CIEDE2000 difference of reference and distorted pixel (kL 0.65, kC 1,
 * kH 4) summed over the frame in raster order (a double, the raw value), and
 * the score 45 - 20 log10(mean).
 *
 * Bit-exactness: the float and double types of every intermediate are
 * libvmaf's (the Lab values and most CIEDE2000 terms are floats computed in
 * double and rounded; r_sub_t's powers are powf), with the same libm calls
 * in the same order; the sum is one double in raster order (no split over
 * threads). x * x of a float stands for libvmaf's pow(x, 2) (exact in double).
 *
 * Chroma: libvmaf upsamples 4:2:0 and 4:2:2 chroma by reading its own planes
 * (floor(w/2) wide, rows padded with zeros to a multiple of 32 samples, U then
 * V in one allocation): 4:2:0 pixel (i, j) reads chroma (i/2, j/2); 4:2:2
 * reads (i/2, j) - libvmaf halves the rows, not the columns, reading on
 * through the padding into later rows. Those reads are reproduced here
 * through the same layout. Odd 4:2:0 heights make libvmaf read the V plane's
 * row past its end (past its allocation: its value varies from run to run);
 * fovea reads zeros there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "quality/ciede.h"
#include "quality/ciede_pixel.h"
#include "quality/feature.h"

static const feature_output ciede_outputs[] = {{"ciede2000", NULL, 0}};

_Static_assert(sizeof(double) <= FEATURE_RAW_BYTES, "a sum fits a feature_raw");

static void ciede_derive(const feature_opts *o, const feature_frame *f, const feature_raw *raw,
                         const feature_raw *const *next, double *state, double *out)
{
    (void)o;
    (void)next;
    (void)state;
    double sum;
    memcpy(&sum, raw->b, sizeof(sum));
    out[0] = 45. - 20. * log10(sum / (double)((unsigned)f->width * (unsigned)f->height));
}

const feature_def feature_ciede = {
    .name = "ciede",
    .label = "ciede",
    .flags = FEATURE_CHROMA,
    .min_dim = 1,
    .cpu_bytes_per_pixel = 0,
    .n_options = 0,
    .options = NULL,
    .n_outputs = 1,
    .outputs = ciede_outputs,
    .derive = ciede_derive,
};

/* ---------------------------------------------------------------- C extractor */

typedef struct ciede_cpu {
    ciede_geom g;
    float *row; /* 4 rows of width: reference U, V, distorted U, V */
} ciede_cpu;

static void cpu_close(void **priv)
{
    ciede_cpu *st = priv ? *priv : NULL;
    if (!st)
        return;
    free(st->row);
    free(st);
    *priv = NULL;
}

static int cpu_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    if (s->chroma == 400)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "ciede: the input has no chroma planes (gray); CIEDE2000 needs "
                            "YUV (libvmaf refuses gray input too)");
    ciede_cpu *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    ciede_geom_of(&st->g, s);
    st->row = malloc(4 * (size_t)s->width * sizeof(*st->row));
    if (!st->row) {
        cpu_close((void **)&st);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    }
    *priv = st;
    return FOVEA_OK;
}

void ciede_geom_of(ciede_geom *g, const feature_setup *s)
{
    g->width = s->width;
    g->height = s->height;
    g->bpc = s->bpc;
    g->chroma = s->chroma;
    g->cw = s->chroma_width;
    g->ch = s->chroma_height;
    g->cstride = (g->cw + 31) & ~31;
}

static float sample(const uint8_t *base, ptrdiff_t stride, int bpc, int r, int c)
{
    const uint8_t *row = base + (ptrdiff_t)r * stride;
    return bpc == 8 ? (float)row[c] : (float)((const uint16_t *)(const void *)row)[c];
}

/* Row i of the upsampled U and V of one picture into u and v. */
static void chroma_row(const ciede_geom *g, const uint8_t *const *planes, const ptrdiff_t *strides,
                       int i, float *u, float *v)
{
    const int w = g->width;
    if (g->chroma == 444) {
        for (int j = 0; j < w; j++) {
            u[j] = sample(planes[0], strides[0], g->bpc, i, j);
            v[j] = sample(planes[1], strides[1], g->bpc, i, j);
        }
        return;
    }
    const int r = i / 2, half = g->chroma == 420;
    for (int j = 0; j < w; j++) {
        const int c = half ? j / 2 : j;
        if (r < g->ch && c < g->cw) {
            u[j] = sample(planes[0], strides[0], g->bpc, r, c);
            v[j] = sample(planes[1], strides[1], g->bpc, r, c);
            continue;
        }
        /* libvmaf's linear read through its padded planes */
        float uv[2];
        for (int k = 0; k < 2; k++) {
            int q, rr, cc;
            uv[k] = ciede_chroma_pos(g->cw, g->ch, g->cstride, k, r, c, &q, &rr, &cc)
                        ? sample(planes[q], strides[q], g->bpc, rr, cc)
                        : 0.0f;
        }
        u[j] = uv[0];
        v[j] = uv[1];
    }
}

double ciede_frame_sum(const ciede_geom *g, const feature_pair *p, float *rows)
{
    const int w = g->width;
    float *ru = rows, *rv = ru + w, *du = rv + w, *dv = du + w;
    double sum = 0.;
    for (int i = 0; i < g->height; i++) {
        chroma_row(g, p->ref_c, p->ref_c_stride, i, ru, rv);
        chroma_row(g, p->dis_c, p->dis_c_stride, i, du, dv);
        for (int j = 0; j < w; j++) {
            const float ry = sample(p->ref, p->ref_stride, g->bpc, i, j);
            const float dy = sample(p->dis, p->dis_stride, g->bpc, i, j);
            sum += ciede_pixel(ry, ru[j], rv[j], dy, du[j], dv[j], g->bpc);
        }
    }
    return sum;
}

static int cpu_extract(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw)
{
    (void)ctx;
    ciede_cpu *st = priv;
    const double sum = ciede_frame_sum(&st->g, p, st->row);
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, &sum, sizeof(sum));
    return FOVEA_OK;
}

const feature_extractor feature_ciede_cpu = {
    &feature_ciede, FOVEA_BACKEND_CPU, cpu_init, cpu_close, cpu_extract, 0, 0, NULL, NULL,
};
