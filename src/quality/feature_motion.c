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
    [MOTION_OPT_BLEND_FACTOR] = {"motion_blend_factor", "mbf", FEATURE_OPT_DOUBLE, 1.0, 0.0, 1.0, 1,
                                 NULL},
    [MOTION_OPT_BLEND_OFFSET] = {"motion_blend_offset", "mbo", FEATURE_OPT_DOUBLE, 40.0, 0.0,
                                 1000.0, 1, NULL},
    [MOTION_OPT_FIVE_FRAME] = {"motion_five_frame_window", "mffw", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0,
                               1, NULL},
    [MOTION_OPT_FORCE_ZERO] = {"motion_force_zero", "force_0", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 1,
                               NULL},
    [MOTION_OPT_FPS_WEIGHT] = {"motion_fps_weight", "mfw", FEATURE_OPT_DOUBLE, 1.0, 0.0, 5.0, 1,
                               NULL},
    [MOTION_OPT_MAX_VAL] = {"motion_max_val", "mmxv", FEATURE_OPT_DOUBLE, 10000.0, 0.0, 10000.0, 1,
                            NULL},
    [MOTION_OPT_MOVING_AVERAGE] = {"motion_moving_average", "mma", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0,
                                   1, NULL},
    /* libvmaf's debug option adds an output; it is no feature parameter */
    [MOTION_OPT_DEBUG] = {"debug", "debug", FEATURE_OPT_BOOL, 0.0, 0.0, 1.0, 0, NULL},
};

static const feature_output motion_outputs[] = {
    {"VMAF_integer_feature_motion_sad_score", NULL, 0},
    /* libvmaf's extractor writes these at its flush */
    {"integer_motion2", "VMAF_integer_feature_motion2_score", 1},
    {"integer_motion3", "VMAF_integer_feature_motion3_score", 1},
    /* debug: the SAD score again, under another name */
    {"integer_motion", NULL, 0},
};

static int motion_count(const feature_opts *o)
{
    return o->v[MOTION_OPT_DEBUG] != 0.0 ? 4 : 3;
}

/* The five-frame window compares frame i with frame i - 2 (history 2), and
 * frames 0 and 1 take motion3 from frame 2 (lookahead 2). */
static void motion_window(const feature_opts *o, int *history, int *lookahead)
{
    const int five = o->v[MOTION_OPT_FIVE_FRAME] != 0.0;
    *history = five ? 2 : 1;
    *lookahead = five ? 2 : 1;
}

static uint64_t sad_of(const feature_raw *r)
{
    uint64_t sad;
    memcpy(&sad, r->b, sizeof(sad));
    return sad;
}

/* libvmaf's flush with the five-frame window: the SAD scores S(i) exist from
 * frame 2 on (0 before); motion2 of frame 2 is S(3), of frame i > 2
 * min(S(i - 1), S(i + 1)), of the last frame S(i); frames 0 and 1 take
 * motion2 0 and, as motion3, frame 2's processed S(2) (0 for a stream of at
 * most 2 frames), which seeds the moving average. state[0] carries the
 * previous processed value, state[1] S(i - 1). */
static void derive_five(const motion_params *mp, int64_t i, double score,
                        const feature_raw *const *next_raw, double *state, motion_scores *ms)
{
    const feature_raw *n1 = next_raw[0], *n2 = next_raw[1];
    ms->frame = i;
    ms->motion = score;
    if (i < 2) {
        const feature_raw *at2 = i == 0 ? n2 : n1;
        const double stamp = at2 ? motion_blend_clip(motion_sad_score(sad_of(at2), mp), mp) : 0.0;
        ms->motion2 = 0.0;
        ms->motion3 = stamp;
        state[0] = stamp;
    } else {
        if (!n1) {
            ms->motion2 = score;
        } else {
            const double hi = motion_sad_score(sad_of(n1), mp);
            const double lo = state[1];
            ms->motion2 = i >= 3 ? (lo < hi ? lo : hi) : hi;
        }
        const double processed = motion_blend_clip(ms->motion2, mp);
        ms->motion3 = mp->moving_average ? (processed + state[0]) / 2.0 : processed;
        state[0] = processed;
    }
    state[1] = score;
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
    const int five = o->v[MOTION_OPT_FIVE_FRAME] != 0.0;
    /* the first frames of a stream (1, or 2 with the five-frame window) have
     * no reference to compare with: motion 0 */
    const double score = f->index < (five ? 2 : 1) ? 0.0 : motion_sad_score(sad_of(raw), &mp);
    motion_scores ms;
    if (five) {
        derive_five(&mp, f->index, score, next_raw, state, &ms);
    } else {
        const feature_raw *next = next_raw[0];
        const double nscore = next ? motion_sad_score(sad_of(next), &mp) : 0.0;
        motion_derive(&mp, f->index, score, next != NULL, nscore, &state[0], &ms);
    }
    out[0] = ms.motion;
    out[1] = ms.motion2;
    out[2] = ms.motion3;
    out[3] = ms.motion; /* debug: integer_motion */
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
    motion_count,
    NULL,
    motion_derive_out,
    motion_window,
    .aggregate = NULL,
};

/* ---------------------------------------------------------------- C extractor */

typedef struct motion_cpu {
    int width, height, bpc;
    int force_zero;
    int five;                 /* motion_five_frame_window: against the reference of 2 pairs back */
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
    st->five = s->opts.v[MOTION_OPT_FIVE_FRAME] != 0.0;
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
    const uint8_t *prev = st->five ? p->prev2 : p->prev;
    const ptrdiff_t prev_stride = st->five ? p->prev2_stride : p->prev_stride;
    st->sad[thread] +=
        motion_sad_rows(prev, prev_stride, p->ref, p->ref_stride, st->width, st->height, st->bpc,
                        begin, end, st->rows + (size_t)thread * (size_t)st->width);
}

static int cpu_extract(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw)
{
    motion_cpu *st = priv;
    uint64_t sad = 0;
    const uint8_t *prev = st->five ? p->prev2 : p->prev;
    const ptrdiff_t prev_stride = st->five ? p->prev2_stride : p->prev_stride;
    /* the first pair (pairs) of a stream has no motion; force_zero computes
     * nothing */
    if (prev && !st->force_zero) {
        if (ctx && st->threads > 1) {
            st->pair = p;
            memset(st->sad, 0, (size_t)st->threads * sizeof(*st->sad));
            fv_parallel_for(ctx, st->height, 8, sad_rows, st);
            for (int t = 0; t < st->threads; t++)
                sad += st->sad[t];
        } else {
            sad = motion_sad(prev, prev_stride, p->ref, p->ref_stride, st->width, st->height,
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
