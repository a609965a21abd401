/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fast paths of the tile coder for 8-bit samples: the bytes of tiles.c's
 * reference (stream_code_block_ref, stream_decode_block_ref; the test
 * test_stream_fast compares them on every shape), made of loops over a whole
 * block that the compiler vectorises, with no branch on the mode per sample. */
#include <string.h>

#include "stream/stream_internal.h"

/* x86-64: the block loops are also compiled for x86-64-v4 (AVX-512) and AVX2
 * and picked at run time (GCC function multiversioning, as diff_fast.c).
 * FOVEA_STREAM_NO_CLONES builds the baseline only. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) &&       \
    !defined(FOVEA_STREAM_NO_CLONES)
#define FAST_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define FAST_CLONES
#endif

/* zigzag of a difference modulo 256 (tiles.c's zigzag with 8 bits) */
static inline uint8_t zz8(int d)
{
    const int8_t s = (int8_t)(uint8_t)d;
    return (uint8_t)((uint8_t)(s * 2) ^ (uint8_t)(s >> 7));
}

static inline uint8_t unzz8(uint8_t z)
{
    return (uint8_t)((z >> 1) ^ (0u - (z & 1u)));
}

/* The median edge predictor from left, above and above-left: with
 * mn <= mx the two of left and above, d >= mx gives mn, d <= mn gives mx,
 * else l + u - d, which is l + u - d clamped to [mn, mx]. */
static inline int med3(int l, int u, int d)
{
    const int mn = l < u ? l : u, mx = l < u ? u : l;
    int p = l + u - d;
    p = p < mn ? mn : p;
    return p > mx ? mx : p;
}

static inline int res8(const uint8_t *s, const uint8_t *r, size_t j)
{
    return (int8_t)(uint8_t)(s[j] - r[j]);
}

void stream_copy_rows(uint8_t *dst, ptrdiff_t dstride, const uint8_t *src, ptrdiff_t sstride,
                      size_t row, int h)
{
    /* a tile's rows are 8 to 512 bytes: a copy of a known size is a few
     * moves, a call to memcpy costs more than the copy */
#define COPY_ROWS(N)                                                                               \
    for (int y = 0; y < h; y++)                                                                    \
        memcpy(dst + (ptrdiff_t)y * dstride, src + (ptrdiff_t)y * sstride, N);                     \
    return
    switch (row) {
    case 4: COPY_ROWS(4);
    case 8: COPY_ROWS(8);
    case 16: COPY_ROWS(16);
    case 32: COPY_ROWS(32);
    case 64: COPY_ROWS(64);
    default: COPY_ROWS(row);
    }
#undef COPY_ROWS
}

/* The sum of cost[] over n bytes, one lookup a byte. */
static uint32_t cost_sum_plain(const uint8_t *v, size_t n, const uint16_t *cost)
{
    uint32_t a = 0, b = 0;
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        a += cost[v[i]];
        b += cost[v[i + 1]];
    }
    if (i < n)
        a += cost[v[i]];
    return a + b;
}

#if defined(__GNUC__) && !defined(__clang__)
#define COST_SHUFFLE 1
typedef uint8_t v16u8 __attribute__((vector_size(16)));
typedef uint16_t v8u16 __attribute__((vector_size(16)));

/* The same sum, 16 bytes at a time, where cost[] is capped from byte 15 on
 * (every value >= 15 costs cost[15] <= 255: a capped, non-decreasing table,
 * as stream_cost_table makes; stream_code_block_fast8 checks): the cost of a
 * byte is a 16-entry table indexed by min(byte, 15), one byte shuffle
 * (pshufb, tbl) for 16 bytes. */
static inline uint32_t cost_sum_capped(const uint8_t *v, size_t n, const uint16_t *cost)
{
    v16u8 t;
    for (int k = 0; k < 16; k++)
        t[k] = (uint8_t)cost[k];
    const v16u8 cap = {15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15};
    const v16u8 zero = {0};
    const v16u8 lo_half = {0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23};
    const v16u8 hi_half = {8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
    uint32_t total = 0;
    size_t i = 0;
    while (i + 16 <= n) {
        /* 16-bit lanes: 2 x 255 a step, 128 steps before they could overflow */
        v8u16 acc = {0};
        for (int k = 0; k < 128 && i + 16 <= n; k++, i += 16) {
            v16u8 x;
            memcpy(&x, v + i, 16);
            const v16u8 over = (v16u8)(x > cap);
            x = (x & ~over) | (cap & over);
            const v16u8 c = __builtin_shuffle(t, x);
            acc += (v8u16)__builtin_shuffle(c, zero, lo_half) +
                   (v8u16)__builtin_shuffle(c, zero, hi_half);
        }
        for (int k = 0; k < 8; k++)
            total += acc[k];
    }
    return total + cost_sum_plain(v + i, n - i, cost);
}
#endif

static inline uint32_t cost_sum(const uint8_t *v, size_t n, const uint16_t *cost, int capped)
{
#ifdef COST_SHUFFLE
    if (capped)
        return cost_sum_capped(v, n, cost);
#endif
    (void)capped;
    return cost_sum_plain(v, n, cost);
}

/* The block loops run in steps of STEP values with no remainder: each array
 * in scratch has STEP bytes of room before it (the loops read up to c <= 4
 * values before the block, and write garbage where the first values of a row
 * are redone after) and after its last value (the last step runs past n). */
enum { STEP = 64 };

static inline size_t region_bytes(size_t n)
{
    return (n + STEP - 1) / STEP * STEP + 2 * STEP;
}

/* SPATIAL residuals of a contiguous 8-bit block s (len values a row, n in
 * all, c a pixel). Rows 1.. in one loop over the block; the first c values
 * of each row, whose left neighbors are the row before's, are redone. */
static inline void spatial8(const uint8_t *restrict s, size_t len, size_t n, size_t c,
                            uint8_t *restrict o)
{
    for (size_t b = len; b < n; b += STEP)
        for (size_t k = 0; k < STEP; k++) {
            const size_t j = b + k;
            o[j] = zz8(s[j] - med3(s[j - c], s[j - len], s[j - len - c]));
        }
    for (size_t j = 0; j < c && j < len; j++)
        o[j] = zz8(s[j]);
    for (size_t j = c; j < len; j++)
        o[j] = zz8(s[j] - s[j - c]);
    for (size_t y = len; y < n; y += len)
        for (size_t k = 0; k < c; k++)
            o[y + k] = zz8(s[y + k] - s[y + k - len]);
}

static inline void temporal8(const uint8_t *restrict s, const uint8_t *restrict r, size_t n,
                             uint8_t *restrict o)
{
    for (size_t b = 0; b < n; b += STEP)
        for (size_t k = 0; k < STEP; k++)
            o[b + k] = zz8(s[b + k] - r[b + k]);
}

/* TEMPORAL_MED: spatial8 on the residuals s - r read as signed bytes */
static inline void temporal_med8(const uint8_t *restrict s, const uint8_t *restrict r, size_t len,
                                 size_t n, size_t c, uint8_t *restrict o)
{
    for (size_t b = len; b < n; b += STEP)
        for (size_t k = 0; k < STEP; k++) {
            const size_t j = b + k;
            o[j] = zz8(res8(s, r, j) -
                       med3(res8(s, r, j - c), res8(s, r, j - len), res8(s, r, j - len - c)));
        }
    for (size_t j = 0; j < c && j < len; j++)
        o[j] = zz8(res8(s, r, j));
    for (size_t j = c; j < len; j++)
        o[j] = zz8(res8(s, r, j) - res8(s, r, j - c));
    for (size_t y = len; y < n; y += len)
        for (size_t k = 0; k < c; k++)
            o[y + k] = zz8(res8(s, r, y + k) - res8(s, r, y + k - len));
}

FAST_CLONES
size_t stream_code_block_fast8(const stream_view *src, const stream_view *ref, uint8_t *out,
                               uint16_t *scratch, const uint16_t *cost)
{
    const size_t len = (size_t)src->w * (size_t)src->cpp, n = len * (size_t)src->h;
    const size_t c = (size_t)src->cpp;
    /* five arrays with room around them: the block, the reference, SPATIAL,
     * TEMPORAL, TEMPORAL_MED (5 region_bytes(n) <= STREAM_SCRATCH_VALUES(n)
     * values of 16 bits) */
    const size_t a = region_bytes(n);
    uint8_t *s = (uint8_t *)scratch + STEP, *r = s + a, *sp = r + a, *te = sp + a, *tm = te + a;
    const int capped = cost[15] <= 255 && cost[15] == cost[255];
    stream_copy_rows(s, (ptrdiff_t)len, src->p, src->stride, len, src->h);
    spatial8(s, len, n, c, sp);
    uint32_t best_cost = cost_sum(s, n, cost, capped);
    const uint8_t *best = s;
    int mode = STREAM_MODE_RAW;
    uint32_t f = cost_sum(sp, n, cost, capped);
    if (f < best_cost) {
        best_cost = f;
        best = sp;
        mode = STREAM_MODE_SPATIAL;
    }
    if (ref) {
        stream_copy_rows(r, (ptrdiff_t)len, ref->p, ref->stride, len, ref->h);
        temporal8(s, r, n, te);
        temporal_med8(s, r, len, n, c, tm);
        f = cost_sum(te, n, cost, capped);
        if (f < best_cost) {
            best_cost = f;
            best = te;
            mode = STREAM_MODE_TEMPORAL;
        }
        if (cost_sum(tm, n, cost, capped) < best_cost) {
            best = tm;
            mode = STREAM_MODE_TEMPORAL_MED;
        }
    }
    out[0] = (uint8_t)mode;
    memcpy(out + 1, best, n);
    return 1 + n;
}

/* |a - b| of two rows, the largest */
static inline int max_absdiff(const uint8_t *restrict a, const uint8_t *restrict b, size_t n,
                              int worst)
{
    uint8_t m = (uint8_t)worst;
    for (size_t i = 0; i < n; i++) {
        const uint8_t e = (uint8_t)(a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
        m = e > m ? e : m;
    }
    return m;
}

FAST_CLONES
void stream_decode_block_fast8(const uint8_t *in, const stream_view *dst, uint16_t *scratch,
                               int *check)
{
    const int mode = in[0];
    const size_t len = (size_t)dst->w * (size_t)dst->cpp, c = (size_t)dst->cpp;
    const uint8_t *v = in + 1;
    const int h = dst->h;
    int worst = 0;
    if (mode == STREAM_MODE_RAW) {
        for (int y = 0; y < h && check; y++)
            worst =
                max_absdiff(v + (size_t)y * len, dst->p + (ptrdiff_t)y * dst->stride, len, worst);
        stream_copy_rows(dst->p, dst->stride, v, (ptrdiff_t)len, len, h);
    } else if (mode == STREAM_MODE_TEMPORAL) {
        uint8_t m = 0;
        for (int y = 0; y < h; y++) {
            uint8_t *restrict row = dst->p + (ptrdiff_t)y * dst->stride;
            const uint8_t *restrict z = v + (size_t)y * len;
            for (size_t j = 0; j < len; j++) {
                const uint8_t o = row[j], nv = (uint8_t)(o + unzz8(z[j]));
                const uint8_t e = (uint8_t)(nv > o ? nv - o : o - nv);
                m = e > m ? e : m;
                row[j] = nv;
            }
        }
        worst = m;
    } else if (mode == STREAM_MODE_SPATIAL) {
        /* in place: left, above and above-left are already the new samples */
        for (int y = 0; y < h; y++) {
            uint8_t *row = dst->p + (ptrdiff_t)y * dst->stride;
            const uint8_t *up = y ? row - dst->stride : row, *z = v + (size_t)y * len;
            for (size_t j = 0; j < len; j++) {
                int p;
                if (j < c)
                    p = y == 0 ? 0 : up[j];
                else
                    p = y == 0 ? row[j - c] : med3(row[j - c], up[j], up[j - c]);
                const uint8_t o = row[j], nv = (uint8_t)(p + unzz8(z[j]));
                const int e = nv > o ? nv - o : o - nv;
                worst = e > worst ? e : worst;
                row[j] = nv;
            }
        }
    } else { /* TEMPORAL_MED: the residuals of this row and the one above */
        int8_t *ra = (int8_t *)scratch, *rb = ra + len;
        for (int y = 0; y < h; y++) {
            uint8_t *row = dst->p + (ptrdiff_t)y * dst->stride;
            const uint8_t *z = v + (size_t)y * len;
            int8_t *cur = y & 1 ? rb : ra;
            const int8_t *up = y & 1 ? ra : rb;
            for (size_t j = 0; j < len; j++) {
                int p;
                if (j < c)
                    p = y == 0 ? 0 : up[j];
                else
                    p = y == 0 ? cur[j - c] : med3(cur[j - c], up[j], up[j - c]);
                const int8_t e = (int8_t)(uint8_t)(p + unzz8(z[j]));
                cur[j] = e;
                const uint8_t o = row[j], nv = (uint8_t)(o + (uint8_t)e);
                const int d = nv > o ? nv - o : o - nv;
                worst = d > worst ? d : worst;
                row[j] = nv;
            }
        }
    }
    if (check)
        *check = worst;
}
