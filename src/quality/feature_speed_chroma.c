/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The feature "speed_chroma": libvmaf's SpEED on the U and V planes (its
 * `speed_chroma` extractor, float arithmetic in speed_ref.c and
 * speed_linalg.c; the CUDA extractor in feature_speed_chroma_cuda.c). The
 * raw values are the final doubles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "quality/feature.h"
#include "quality/speed.h"

enum {
    SC_OPT_KERNELSCALE,
    SC_OPT_MAX_VAL,
    SC_OPT_NN_FLOOR,
    SC_OPT_PRESCALE,
    SC_OPT_PRESCALE_METHOD,
    SC_OPT_SIGMA_NN,
    SC_OPT_WEIGHT_VAR_MODE,
    SC_OPTIONS
};

/* a luma side below 20 has no 80-sample chroma side even at 4:4:4 and
 * speed_prescale 4; the exact need is checked at init */
#define SC_MIN_DIM 20
/* libvmaf's SpEED needs one 5x5 block at 1/16 of the prescaled plane */
#define SC_MIN_SCALED (SPEED_BLOCK << SPEED_SCALES)

static const char *const sc_methods[] = {"nearest", "bilinear", "bicubic", "lanczos4", NULL};

static const feature_option sc_options[SC_OPTIONS] = {
    [SC_OPT_KERNELSCALE] = {"speed_kernelscale", "ks", FEATURE_OPT_DOUBLE, 1.0, 0.1, 4.0, 1, NULL},
    [SC_OPT_MAX_VAL] = {"speed_max_val", "mxv", FEATURE_OPT_DOUBLE, 1000.0, 0.0, 1000.0, 1, NULL},
    [SC_OPT_NN_FLOOR] = {"speed_nn_floor", "nnf", FEATURE_OPT_DOUBLE, 0.0, 0.0, 1.0, 1, NULL},
    [SC_OPT_PRESCALE] = {"speed_prescale", "ps", FEATURE_OPT_DOUBLE, 1.0, 0.1, 4.0, 1, NULL},
    [SC_OPT_PRESCALE_METHOD] = {"speed_prescale_method", "psm", FEATURE_OPT_ENUM, 0.0, 0.0, 3.0, 1,
                                sc_methods},
    [SC_OPT_SIGMA_NN] = {"speed_sigma_nn", "snn", FEATURE_OPT_DOUBLE, 0.29, 0.1, 2.0, 1, NULL},
    [SC_OPT_WEIGHT_VAR_MODE] = {"speed_weight_var_mode", "wvm", FEATURE_OPT_INT, 0.0, 0.0, 6.0, 1,
                                NULL},
};

static const feature_output sc_outputs[] = {
    {"speed_chroma_u", "Speed_chroma_feature_speed_chroma_u_score", 0},
    {"speed_chroma_v", "Speed_chroma_feature_speed_chroma_v_score", 0},
    {"speed_chroma_uv", "Speed_chroma_feature_speed_chroma_uv_score", 0},
};

_Static_assert(3 * sizeof(double) <= FEATURE_RAW_BYTES, "three doubles fit a feature_raw");

static int sc_check(const feature_opts *o, char *err, size_t errsz)
{
    /* libvmaf's init fails on these without saying so, and its extraction
     * then reads unallocated buffers */
    if (!speed_kernelscale_valid(o->v[SC_OPT_KERNELSCALE]))
        return fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED,
                         "speed_chroma: speed_kernelscale %g is not one of libvmaf's kernel scales "
                         "(1, 0.5, 1.5, 2, 2/3, 2.4, 360/97, 4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, 3, "
                         "1/2.25, 1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.74074, 1.111111)",
                         o->v[SC_OPT_KERNELSCALE]);
    return FOVEA_OK;
}

static void sc_derive(const feature_opts *o, const feature_frame *f, const feature_raw *r,
                      const feature_raw *const *next, double *state, double *out)
{
    (void)o;
    (void)f;
    (void)next;
    (void)state;
    memcpy(out, r->b, 3 * sizeof(double));
}

const feature_def feature_speed_chroma = {
    "speed_chroma",
    "speed_chroma",
    FEATURE_CHROMA,
    SC_MIN_DIM,
    12, /* three float images of a chroma plane (4:4:4 at most one per pixel) */
    SC_OPTIONS,
    sc_options,
    (int)(sizeof sc_outputs / sizeof sc_outputs[0]),
    sc_outputs,
    NULL,
    sc_check,
    sc_derive,
    NULL,
    .aggregate = NULL,
};

/* ---------------------------------------------------------------- shared by C and CUDA */

int speed_chroma_setup(fovea_context *ctx, const feature_setup *s, speed_params *params,
                       double *max_val)
{
    if (s->chroma == 400)
        return fv_ctx_error(
            ctx, FOVEA_ERR_UNSUPPORTED,
            "speed_chroma: gray input has no chroma planes (libvmaf refuses 4:0:0)");
    const feature_opts *o = &s->opts;
    const speed_params p = {
        o->v[SC_OPT_KERNELSCALE],
        o->v[SC_OPT_PRESCALE],
        o->v[SC_OPT_SIGMA_NN],
        o->v[SC_OPT_NN_FLOOR],
        (speed_method)(int)o->v[SC_OPT_PRESCALE_METHOD],
        (int)o->v[SC_OPT_WEIGHT_VAR_MODE],
    };
    speed_dims d;
    if (speed_dims_init(&d, s->chroma_width, s->chroma_height, &p) != 0)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "speed_chroma: the %dx%d chroma planes are too small: prescaled to "
                            "%dx%d, below the %dx%d SpEED needs (libvmaf fails on them)",
                            s->chroma_width, s->chroma_height, d.scaled_width, d.scaled_height,
                            SC_MIN_SCALED, SC_MIN_SCALED);
    /* libvmaf skips a prescale within 1e-3 of 1 but still sizes the planes
     * by it, reading samples it never wrote */
    if (fabs(p.prescale - 1.0) < 1.0e-3 &&
        (d.scaled_width != d.width || d.scaled_height != d.height))
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "speed_chroma: speed_prescale %g changes the %dx%d chroma planes' size "
                            "but is within 1e-3 of 1 (libvmaf reads unset samples)",
                            p.prescale, d.width, d.height);
    *params = p;
    *max_val = o->v[SC_OPT_MAX_VAL];
    return FOVEA_OK;
}

void speed_chroma_raw(float su, int err_u, float sv, int err_v, double max_val, feature_raw *raw)
{
    /* one plane singular (flat): the pair's score is the other plane's */
    float suv;
    if (err_u && !err_v)
        suv = sv;
    else if (err_v && !err_u)
        suv = su;
    else
        suv = (float)((double)(su + sv) / 2.0);
    const float s3[3] = {su, sv, suv};
    double out[3];
    for (int k = 0; k < 3; k++)
        out[k] = (double)s3[k] < max_val ? (double)s3[k] : max_val;
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, out, sizeof(out));
}

/* ---------------------------------------------------------------- C extractor */

/* With a pair split over the pool (setup.threads > 1) the four plane
 * passes (U and V, ref and dis) run at once, one state each: job j is plane
 * j >> 1, side j & 1, its statistics in st[j].ent[0] and var[0]. Alone, one
 * state runs them in turn. The same arithmetic either way. */
#define SC_JOBS 4

typedef struct sc_cpu {
    speed_state st[SC_JOBS];
    int states;
    int bpc;
    double max_val;
    const feature_pair *pair; /* the pair being split */
    int err[SC_JOBS];
} sc_cpu;

static void cpu_close(void **priv)
{
    sc_cpu *c = priv ? *priv : NULL;
    if (!c)
        return;
    for (int j = 0; j < c->states; j++)
        speed_state_free(&c->st[j]);
    free(c);
    *priv = NULL;
}

static int cpu_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    speed_params p;
    double max_val = 0;
    memset(&p, 0, sizeof(p));
    FOVEA_TRY(speed_chroma_setup(ctx, s, &p, &max_val));
    sc_cpu *c = calloc(1, sizeof(*c));
    if (!c)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "speed_chroma: out of memory");
    const int states = s->threads > 1 ? SC_JOBS : 1;
    for (; c->states < states; c->states++)
        if (speed_state_init(&c->st[c->states], s->chroma_width, s->chroma_height, &p) != 0) {
            cpu_close((void **)&c);
            return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "speed_chroma: out of memory");
        }
    c->bpc = s->bpc;
    c->max_val = max_val;
    *priv = c;
    return FOVEA_OK;
}

static void side_jobs(void *arg, int begin, int end, int thread)
{
    (void)thread;
    sc_cpu *c = arg;
    const feature_pair *p = c->pair;
    for (int j = begin; j < end; j++) {
        const int plane = j >> 1;
        const uint8_t *src = j & 1 ? p->dis_c[plane] : p->ref_c[plane];
        const ptrdiff_t stride = j & 1 ? p->dis_c_stride[plane] : p->ref_c_stride[plane];
        c->err[j] = speed_side(&c->st[j], src, stride, c->bpc, 0);
    }
}

static int cpu_extract(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw)
{
    sc_cpu *c = priv;
    float su, sv;
    int err_u, err_v;
    if (ctx && c->states == SC_JOBS) {
        c->pair = p;
        fv_parallel_for(ctx, SC_JOBS, 1, side_jobs, c);
        const speed_state *s = c->st;
        const int blocks = s[0].dims.blocks;
        err_u = speed_score(&s[0].params, blocks, s[0].ent[0], s[0].var[0], c->err[0], s[1].ent[0],
                            s[1].var[0], c->err[1], &su);
        err_v = speed_score(&s[2].params, blocks, s[2].ent[0], s[2].var[0], c->err[2], s[3].ent[0],
                            s[3].var[0], c->err[3], &sv);
    } else {
        err_u = speed_plane_score(&c->st[0], p->ref_c[0], p->ref_c_stride[0], p->dis_c[0],
                                  p->dis_c_stride[0], c->bpc, &su);
        err_v = speed_plane_score(&c->st[0], p->ref_c[1], p->ref_c_stride[1], p->dis_c[1],
                                  p->dis_c_stride[1], c->bpc, &sv);
    }
    speed_chroma_raw(su, err_u, sv, err_v, c->max_val, raw);
    return FOVEA_OK;
}

const feature_extractor feature_speed_chroma_cpu = {
    &feature_speed_chroma, FOVEA_BACKEND_CPU, cpu_init, cpu_close, cpu_extract, 0, 0, NULL, NULL,
};
