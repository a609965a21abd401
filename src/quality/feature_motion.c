/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The feature "motion": libvmaf's integer motion (its `motion` feature
 * extractor). Options, outputs, the scores derived from the SADs (for every
 * backend, with the one-frame lookahead of motion2), and the C extractor over
 * motion_ref.c. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "quality/motion.h"

_Static_assert(sizeof(uint64_t) <= FEATURE_RAW_BYTES, "a SAD fits a feature_raw");

static const feature_option motion_options[MOTION_OPTIONS] = {
    [MOTION_OPT_BLEND_FACTOR] = {"motion_blend_factor", "mbf", FEATURE_OPT_DOUBLE, 1.0, 0.0, 1.0,
                                 1},
    [MOTION_OPT_BLEND_OFFSET] = {"motion_blend_offset", "mbo", FEATURE_OPT_DOUBLE, 40.0, 0.0,
                                 1000.0, 1},
    [MOTION_OPT_FORCE_ZERO] = {"motion_force_zero", "force_0", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 1},
    [MOTION_OPT_FPS_WEIGHT] = {"motion_fps_weight", "mfw", FEATURE_OPT_DOUBLE, 1.0, 0.0, 5.0, 1},
    [MOTION_OPT_MAX_VAL] = {"motion_max_val", "mmxv", FEATURE_OPT_DOUBLE, 10000.0, 0.0, 10000.0, 1},
    [MOTION_OPT_MOVING_AVERAGE] = {"motion_moving_average", "mma", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0,
                                   1},
};

static const feature_output motion_outputs[] = {
    {"VMAF_integer_feature_motion_sad_score", NULL, 0},
    /* libvmaf's extractor writes these at its flush */
    {"integer_motion2", "VMAF_integer_feature_motion2_score", 1},
    {"integer_motion3", NULL, 1},
};

static uint64_t sad_of(const feature_raw *r)
{
    uint64_t sad;
    memcpy(&sad, r->b, sizeof(sad));
    return sad;
}

static void motion_derive_out(const feature_opts *o, const feature_frame *f, const feature_raw *raw,
                              const feature_raw *const *next_raw, double *state, double *out)
{
    motion_params mp;
    motion_default_params(&mp, f->width, f->height, 8);
    mp.force_zero = o->v[MOTION_OPT_FORCE_ZERO] != 0.0;
    mp.fps_weight = o->v[MOTION_OPT_FPS_WEIGHT];
    mp.max_val = o->v[MOTION_OPT_MAX_VAL];
    mp.blend_factor = o->v[MOTION_OPT_BLEND_FACTOR];
    mp.blend_offset = o->v[MOTION_OPT_BLEND_OFFSET];
    mp.moving_average = o->v[MOTION_OPT_MOVING_AVERAGE] != 0.0;
    /* frame 0 of a stream has no previous frame: motion 0 */
    const double score = f->index == 0 ? 0.0 : motion_sad_score(sad_of(raw), &mp);
    const feature_raw *next = next_raw[0];
    const double nscore = next ? motion_sad_score(sad_of(next), &mp) : 0.0;
    motion_scores ms;
    motion_derive(&mp, f->index, score, next != NULL, nscore, &state[0], &ms);
    out[0] = ms.motion;
    out[1] = ms.motion2;
    out[2] = ms.motion3;
}

const feature_def feature_motion = {
    "motion",
    "motion",
    FEATURE_PREV | FEATURE_LOOKAHEAD,
    MOTION_MIN_DIM,
    0,
    MOTION_OPTIONS,
    motion_options,
    (int)(sizeof motion_outputs / sizeof motion_outputs[0]),
    motion_outputs,
    NULL,
    NULL,
    motion_derive_out,
    NULL,
    .aggregate = NULL,
};

/* ---------------------------------------------------------------- C extractor */

typedef struct motion_cpu {
    int width, height, bpc;
    int force_zero;
    int threads;              /* of a pair split by rows (at least 1) */
    int32_t *rows;            /* threads x width of motion_sad scratch */
    uint64_t *sad;            /* per-thread partial SADs */
    const feature_pair *pair; /* of the split being run */
} motion_cpu;

static void cpu_close(void **priv)
{
    motion_cpu *st = priv ? *priv : NULL;
    if (!st)
        return;
    free(st->rows);
    free(st->sad);
    free(st);
    *priv = NULL;
}

static int cpu_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    motion_cpu *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->width = s->width;
    st->height = s->height;
    st->bpc = s->bpc;
    st->force_zero = s->opts.v[MOTION_OPT_FORCE_ZERO] != 0.0;
    st->threads = s->threads > 1 ? s->threads : 1;
    st->rows = malloc((size_t)st->threads * (size_t)s->width * sizeof(*st->rows));
    st->sad = malloc((size_t)st->threads * sizeof(*st->sad));
    if (!st->rows || !st->sad) {
        cpu_close((void **)&st);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    }
    *priv = st;
    return FOVEA_OK;
}

static void sad_rows(void *arg, int begin, int end, int thread)
{
    motion_cpu *st = arg;
    const feature_pair *p = st->pair;
    st->sad[thread] +=
        motion_sad_rows(p->prev, p->prev_stride, p->ref, p->ref_stride, st->width, st->height,
                        st->bpc, begin, end, st->rows + (size_t)thread * (size_t)st->width);
}

static int cpu_extract(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw)
{
    motion_cpu *st = priv;
    uint64_t sad = 0;
    /* the first pair of a stream has no motion; force_zero computes nothing */
    if (p->prev && !st->force_zero) {
        if (ctx && st->threads > 1) {
            st->pair = p;
            memset(st->sad, 0, (size_t)st->threads * sizeof(*st->sad));
            fv_parallel_for(ctx, st->height, 8, sad_rows, st);
            for (int t = 0; t < st->threads; t++)
                sad += st->sad[t];
        } else {
            sad = motion_sad(p->prev, p->prev_stride, p->ref, p->ref_stride, st->width, st->height,
                             st->bpc, st->rows);
        }
    }
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, &sad, sizeof(sad));
    return FOVEA_OK;
}

const feature_extractor feature_motion_cpu = {
    &feature_motion, FOVEA_BACKEND_CPU, cpu_init, cpu_close, cpu_extract, 0, 0, NULL, NULL,
};
