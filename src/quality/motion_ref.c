/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* C reference of libvmaf's integer motion feature: the blurred frame-difference
 * SAD, and the motion2/motion3 scores with libvmaf's first/last frame rules.
 * docs/quality.md ("Integer motion") is the specification this code follows. */
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "quality/motion.h"
#include "quality/simd.h"

const uint16_t motion_filter[MOTION_TAPS] = {3571, 16004, 26386, 16004, 3571};

void motion_default_params(motion_params *p, int width, int height, int bpc)
{
    memset(p, 0, sizeof(*p));
    p->width = width;
    p->height = height;
    p->bpc = bpc;
    p->fps_weight = 1.0;
    p->max_val = 10000.0;
    p->blend_factor = 1.0;
    p->blend_offset = 40.0;
}

/* Reflection about the edge sample (-1 -> 1, n -> n - 2), never repeating it;
 * valid for i in [-2, n + 1] when n >= 3. */
static inline int mirror(int i, int n)
{
    if (i < 0)
        return -i;
    if (i >= n)
        return 2 * n - i - 2;
    return i;
}

uint64_t motion_sad(const uint8_t *prev, ptrdiff_t prev_stride, const uint8_t *cur,
                    ptrdiff_t cur_stride, int w, int h, int bpc, int32_t *row)
{
    return motion_sad_rows(prev, prev_stride, cur, cur_stride, w, h, bpc, 0, h, row);
}

/* Integer sums only: motion needs no care about floating point, and GCC/clang
 * vectorize these loops for the clone picked at run time (as VIF's). */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__)
#define MOTION_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define MOTION_CLONES
#endif

/* The vertical pass of output row y: row[x] = (sum_k tap[k] * d[r_k][x] +
 * 2^(bpc-1)) >> bpc with d = prev - cur and r_k the mirrored source rows. At 8
 * bits |sum| <= 2^16 * 255 fits 32 bits; above, 64-bit sums. */
MOTION_CLONES static void vertical(const uint8_t *const p[MOTION_TAPS],
                                   const uint8_t *const c[MOTION_TAPS], int w, int bpc,
                                   int32_t *row)
{
    const int32_t t0 = motion_filter[0], t1 = motion_filter[1], t2 = motion_filter[2];
    if (bpc == 8) {
        for (int x = 0; x < w; x++) {
            const int32_t acc = t0 * (p[0][x] - c[0][x]) + t1 * (p[1][x] - c[1][x]) +
                                t2 * (p[2][x] - c[2][x]) + t1 * (p[3][x] - c[3][x]) +
                                t0 * (p[4][x] - c[4][x]);
            /* arithmetic shift: negative sums round toward -infinity */
            row[x] = (acc + 128) >> 8;
        }
        return;
    }
    const uint16_t *q[MOTION_TAPS], *d[MOTION_TAPS];
    for (int k = 0; k < MOTION_TAPS; k++) {
        q[k] = (const uint16_t *)(const void *)p[k];
        d[k] = (const uint16_t *)(const void *)c[k];
    }
    const int64_t vround = (int64_t)1 << (bpc - 1);
    for (int x = 0; x < w; x++) {
        const int64_t acc = (int64_t)t0 * (q[0][x] - d[0][x]) + (int64_t)t1 * (q[1][x] - d[1][x]) +
                            (int64_t)t2 * (q[2][x] - d[2][x]) + (int64_t)t1 * (q[3][x] - d[3][x]) +
                            (int64_t)t0 * (q[4][x] - d[4][x]);
        row[x] = (int32_t)((acc + vround) >> bpc);
    }
}

/* |(sum_k tap[k] * row[x - 2 + k] + 2^15) >> 16| of one output sample x. */
static inline uint64_t horizontal_at(const int32_t *row, int x, int w)
{
    int64_t acc = 0;
    for (int k = 0; k < MOTION_TAPS; k++)
        acc += (int64_t)motion_filter[k] * row[mirror(x - MOTION_TAPS / 2 + k, w)];
    const int64_t v = (acc + (1 << 15)) >> 16;
    return (uint64_t)(v < 0 ? -v : v);
}

/* The horizontal pass of a row and its SAD. libvmaf sums a row in 32 bits;
 * with w <= 16384 and |value| < 2^16 that sum cannot wrap, so 64 bits give
 * the same result. The sums of the products reach 2^16 * 2^16: 64 bits. */
MOTION_CLONES static uint64_t horizontal(const int32_t *row, int w)
{
    const int64_t t0 = motion_filter[0], t1 = motion_filter[1], t2 = motion_filter[2];
    /* the columns whose taps stay inside the row, and the mirrored edges */
    const int lo = w < 2 ? w : 2, hi = w - 2 > lo ? w - 2 : lo;
    uint64_t sad = 0;
    for (int x = 0; x < lo; x++)
        sad += horizontal_at(row, x, w);
    for (int x = lo; x < hi; x++) {
        const int64_t acc =
            t0 * row[x - 2] + t1 * row[x - 1] + t2 * row[x] + t1 * row[x + 1] + t0 * row[x + 2];
        const int64_t v = (acc + (1 << 15)) >> 16;
        sad += (uint64_t)(v < 0 ? -v : v);
    }
    for (int x = hi; x < w; x++)
        sad += horizontal_at(row, x, w);
    return sad;
}

uint64_t motion_sad_rows(const uint8_t *prev, ptrdiff_t prev_stride, const uint8_t *cur,
                         ptrdiff_t cur_stride, int w, int h, int bpc, int y0, int y1, int32_t *row)
{
    /* The taps sum to 2^16 and the vertical pass shifts by bpc, so a row holds
     * the blurred difference in 1/256 of an 8-bit step at every depth (hence the
     * score's division by 256); the horizontal pass keeps that unit. */
#if FV_HAVE_AVX2
    if (fv_simd_avx2())
        return motion_sad_rows_avx2(prev, prev_stride, cur, cur_stride, w, h, bpc, y0, y1, row);
#endif
    uint64_t sad = 0;
    for (int y = y0; y < y1; y++) {
        const uint8_t *p[MOTION_TAPS], *c[MOTION_TAPS];
        for (int k = 0; k < MOTION_TAPS; k++) {
            const int r = mirror(y - MOTION_TAPS / 2 + k, h);
            p[k] = prev + r * prev_stride;
            c[k] = cur + r * cur_stride;
        }
        vertical(p, c, w, bpc, row);
        sad += horizontal(row, w);
    }
    return sad;
}

double motion_sad_score(uint64_t sad, const motion_params *p)
{
    /* libvmaf divides by the pixel count computed in unsigned int */
    const unsigned pixels = (unsigned)p->width * (unsigned)p->height;
    const double score = (double)sad / 256. / pixels * p->fps_weight;
    return score < p->max_val ? score : p->max_val;
}

/* libvmaf's motion_blend: factor 1 returns the score unchanged (score * 1 +
 * 0 * x). */
static double blend(double score, const motion_params *p)
{
    const double low = p->blend_offset < score ? p->blend_offset : score;
    return score * p->blend_factor + (1 - p->blend_factor) * low;
}

double motion_blend_clip(double score, const motion_params *p)
{
    const double b = blend(score, p);
    return b < p->max_val ? b : p->max_val;
}

struct motion_state {
    motion_params p;
    int bytes;             /* per sample */
    uint8_t *prev;         /* the previous frame's luma, rows of w * bytes */
    int32_t *row;          /* w: scratch of motion_sad */
    int64_t frames;        /* pushed since the stream began */
    double pending;        /* SAD score of the last pushed frame, not yet emitted */
    double prev_processed; /* previous frame's clipped blend (moving average) */
};

int motion_open(motion_state **s, const motion_params *p)
{
    if (!s)
        return FOVEA_ERR_INVALID_ARG;
    *s = NULL;
    if (!p || p->width < MOTION_MIN_DIM || p->height < MOTION_MIN_DIM || p->width > FOVEA_MAX_DIM ||
        p->height > FOVEA_MAX_DIM)
        return FOVEA_ERR_INVALID_ARG;
    if (p->bpc != 8 && p->bpc != 10 && p->bpc != 12 && p->bpc != 16)
        return FOVEA_ERR_INVALID_ARG;
    /* libvmaf's option ranges (the negated tests also refuse NaN) */
    if (!(p->fps_weight >= 0.0 && p->fps_weight <= 5.0) ||
        !(p->max_val >= 0.0 && p->max_val <= 10000.0) ||
        !(p->blend_factor >= 0.0 && p->blend_factor <= 1.0) ||
        !(p->blend_offset >= 0.0 && p->blend_offset <= 1000.0))
        return FOVEA_ERR_INVALID_ARG;

    motion_state *m = calloc(1, sizeof(*m));
    if (!m)
        return FOVEA_ERR_NOMEM;
    m->p = *p;
    m->bytes = p->bpc == 8 ? 1 : 2;
    /* w, h <= 16384: no overflow */
    m->prev = malloc((size_t)p->width * (size_t)p->height * (size_t)m->bytes);
    m->row = malloc((size_t)p->width * sizeof(*m->row));
    if (!m->prev || !m->row) {
        motion_close(&m);
        return FOVEA_ERR_NOMEM;
    }
    *s = m;
    return FOVEA_OK;
}

void motion_close(motion_state **s)
{
    if (!s || !*s)
        return;
    free((*s)->prev);
    free((*s)->row);
    free(*s);
    *s = NULL;
}

void motion_derive(const motion_params *p, int64_t i, double score, int has_next, double next,
                   double *carry, motion_scores *out)
{
    out->frame = i;
    out->motion = score;
    if (i == 0) {
        /* frame 0 has no motion2; its motion3 is frame 1's processed SAD score
         * (0 for a one-frame stream), which also seeds the moving average */
        const double stamp = has_next ? motion_blend_clip(next, p) : 0.0;
        out->motion2 = 0.0;
        out->motion3 = stamp;
        *carry = stamp;
        return;
    }
    /* the last frame keeps its own score */
    out->motion2 = !has_next ? score : (score < next ? score : next);
    const double processed = motion_blend_clip(out->motion2, p);
    out->motion3 = p->moving_average ? (processed + *carry) / 2.0 : processed;
    *carry = processed;
}

/* Scores of the pending frame (index frames - 1). next is the SAD score of the
 * frame after it; has_next is 0 at the end of the stream. */
static void emit(motion_state *m, int has_next, double next, motion_scores *out)
{
    motion_derive(&m->p, m->frames - 1, m->pending, has_next, next, &m->prev_processed, out);
}

int motion_push(motion_state *s, const uint8_t *luma, ptrdiff_t stride, motion_scores *out)
{
    if (!s || !luma || !out)
        return FOVEA_ERR_INVALID_ARG;
    const motion_params *p = &s->p;
    const size_t row_bytes = (size_t)p->width * (size_t)s->bytes;

    double score = 0.0;
    if (s->frames > 0 && !p->force_zero) {
        const uint64_t sad = motion_sad(s->prev, (ptrdiff_t)row_bytes, luma, stride, p->width,
                                        p->height, p->bpc, s->row);
        score = motion_sad_score(sad, p);
    }
    int emitted = 0;
    if (s->frames > 0) {
        emit(s, 1, score, out);
        emitted = 1;
    }
    if (!p->force_zero)
        for (int y = 0; y < p->height; y++)
            memcpy(s->prev + (size_t)y * row_bytes, luma + y * stride, row_bytes);
    s->pending = score;
    s->frames++;
    return emitted;
}

int motion_flush(motion_state *s, motion_scores *out)
{
    if (!s || !out)
        return FOVEA_ERR_INVALID_ARG;
    if (s->frames == 0)
        return 0;
    emit(s, 0, 0.0, out);
    s->frames = 0;
    s->pending = 0.0;
    s->prev_processed = 0.0;
    return 1;
}
