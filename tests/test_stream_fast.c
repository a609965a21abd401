/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The tile coder's fast paths (src/stream/tiles_fast.c) against the plain
 * reference (tiles.c): blocks of every cpp (1-4), 8 and 16 bits, the tile
 * sizes and odd sizes, random and structured content (static, noise, ramps,
 * residuals that wrap, smooth new content, ties), inside larger images with
 * a stride; the coded bytes must be identical, with and without a reference,
 * and both decoders must give back the source, the same check value and leave
 * the samples around the block untouched. Random coded bytes in every mode
 * must decode to the same samples with both. The cost table of the encoder
 * (capped from byte 15 on: a shuffle sums it) and one that is not. */
#include <stdlib.h>
#include <string.h>

#include "stream/stream_internal.h"
#include "testutil.h"

enum { PAD = 5 }; /* samples of image around the block on each side */

typedef enum {
    C_RANDOM,
    C_STATIC,   /* source = reference: TEMPORAL and TEMPORAL_MED tie */
    C_NOISE,    /* reference + sparse +-1 */
    C_RAMP,     /* reference + a ramp: TEMPORAL_MED */
    C_SMOOTH,   /* new smooth content: SPATIAL */
    C_WRAP,     /* near 0 and the top of the container: residuals wrap */
    C_CONSTANT, /* one value everywhere, reference another */
    C_COUNT
} content;

typedef struct img {
    uint8_t *p; /* the whole image */
    ptrdiff_t stride;
    size_t bytes;
    stream_view v; /* the block inside it */
} img;

static void img_make(img *m, int w, int h, int cpp, int bps)
{
    const size_t row = (size_t)(w + 2 * PAD) * (size_t)cpp * (size_t)bps + 3; /* odd stride */
    m->stride = (ptrdiff_t)row;
    m->bytes = row * (size_t)(h + 2 * PAD);
    m->p = malloc(m->bytes);
    REQUIRE(m->p);
    m->v.p = m->p + (ptrdiff_t)PAD * m->stride + (ptrdiff_t)PAD * cpp * bps;
    m->v.stride = m->stride;
    m->v.w = w;
    m->v.h = h;
    m->v.cpp = cpp;
    m->v.bps = bps;
}

static void img_fill_random(img *m, test_rng *r)
{
    for (size_t i = 0; i < m->bytes; i++)
        m->p[i] = (uint8_t)test_rng_below(r, 256);
}

static uint32_t get_s(const stream_view *v, int x, int y)
{
    const uint8_t *q = v->p + (ptrdiff_t)y * v->stride + (ptrdiff_t)x * v->bps;
    return v->bps == 1 ? q[0] : (uint32_t)(q[0] | q[1] << 8);
}

static void set_s(const stream_view *v, int x, int y, uint32_t s)
{
    uint8_t *q = v->p + (ptrdiff_t)y * v->stride + (ptrdiff_t)x * v->bps;
    q[0] = (uint8_t)s;
    if (v->bps == 2)
        q[1] = (uint8_t)(s >> 8);
}

/* the source block from the reference's (x counts samples: len = w cpp) */
static void make_content(const stream_view *src, const stream_view *ref, content k, test_rng *r)
{
    const uint32_t mask = src->bps == 1 ? 0xffu : 0xffffu;
    const int len = src->w * src->cpp;
    const uint32_t base = test_rng_below(r, mask + 1), k2 = test_rng_below(r, mask + 1);
    for (int y = 0; y < src->h; y++)
        for (int x = 0; x < len; x++) {
            const uint32_t rf = get_s(ref, x, y);
            uint32_t s;
            switch (k) {
            case C_RANDOM: s = test_rng_u32(r) & mask; break;
            case C_STATIC: s = rf; break;
            case C_NOISE: s = rf + (test_rng_below(r, 6) == 0) - (test_rng_below(r, 6) == 0); break;
            case C_RAMP: s = rf + 7u * (uint32_t)y + 3u * (uint32_t)(x / src->cpp) + base; break;
            case C_SMOOTH:
                s = base + 2u * (uint32_t)x + 5u * (uint32_t)y + (test_rng_below(r, 4) == 0);
                break;
            case C_WRAP:
                s = test_rng_below(r, 2) ? test_rng_below(r, 3) : mask - test_rng_below(r, 3);
                break;
            default: s = k2; break;
            }
            set_s(src, x, y, s & mask);
        }
    if (k == C_WRAP || k == C_CONSTANT) /* the reference too */
        for (int y = 0; y < ref->h; y++)
            for (int x = 0; x < len; x++)
                set_s(ref, x, y,
                      k == C_CONSTANT ? base
                                      : (test_rng_below(r, 2) ? test_rng_below(r, 3)
                                                              : mask - test_rng_below(r, 3)));
}

static int mode_seen[2][4];
static long blocks;

/* the block's rows equal (and, with full, the whole images) */
static int same_block(const stream_view *a, const stream_view *b)
{
    const size_t row = (size_t)a->w * (size_t)a->cpp * (size_t)a->bps;
    for (int y = 0; y < a->h; y++)
        if (memcmp(a->p + (ptrdiff_t)y * a->stride, b->p + (ptrdiff_t)y * b->stride, row))
            return 0;
    return 1;
}

static void one(int w, int h, int cpp, int bps, content k, test_rng *r, const uint16_t *cost)
{
    blocks++;
    const size_t n = (size_t)w * (size_t)h * (size_t)cpp * (size_t)bps; /* = max_block here */
    img src, ref, d1, d2;
    img_make(&src, w, h, cpp, bps);
    img_make(&ref, w, h, cpp, bps);
    img_make(&d1, w, h, cpp, bps);
    img_make(&d2, w, h, cpp, bps);
    img_fill_random(&src, r);
    img_fill_random(&ref, r);
    make_content(&src.v, &ref.v, k, r);
    /* exactly the sizes the encoder and decoder give: ASan sees overruns */
    uint16_t *scratch = malloc(STREAM_SCRATCH_VALUES(n) * sizeof(uint16_t));
    uint8_t *c_ref = malloc(1 + n), *c_fast = malloc(1 + n);
    REQUIRE(scratch && c_ref && c_fast);
    for (int key = 0; key <= 1; key++) {
        const stream_view *rv = key ? NULL : &ref.v;
        memset(c_ref, 0xa5, 1 + n);
        memset(c_fast, 0x5a, 1 + n);
        const size_t a = stream_code_block_ref(&src.v, rv, c_ref, scratch, cost);
        const size_t b = stream_code_block(&src.v, rv, c_fast, scratch, cost);
        CHECK(a == 1 + n && b == 1 + n);
        if (memcmp(c_ref, c_fast, 1 + n) != 0) {
            fprintf(stderr, "%dx%d cpp %d bps %d content %d key %d: modes %d / %d, bytes differ\n",
                    w, h, cpp, bps, (int)k, key, c_ref[0], c_fast[0]);
            CHECK(0);
        }
        mode_seen[bps - 1][c_fast[0] & 3]++;
        /* decode onto the reference (a keyframe's block onto anything) */
        for (int checked = 0; checked <= 1; checked++) {
            memcpy(d1.p, ref.p, ref.bytes);
            memcpy(d2.p, ref.p, ref.bytes);
            int e1 = -7, e2 = -7;
            stream_decode_block_ref(c_fast, &d1.v, scratch, checked ? &e1 : NULL);
            stream_decode_block(c_fast, &d2.v, scratch, checked ? &e2 : NULL);
            CHECK(same_block(&d1.v, &src.v));
            CHECK(memcmp(d1.p, d2.p, d1.bytes) == 0); /* block and surroundings */
            CHECK(e1 == e2);
            CHECK(checked ? e1 >= 0 : e1 == -7);
        }
    }
    /* random coded bytes in every mode: both decoders agree */
    for (int mode = 0; mode < 4; mode++) {
        c_ref[0] = (uint8_t)mode;
        for (size_t i = 1; i < 1 + n; i++)
            c_ref[i] = (uint8_t)test_rng_below(r, 256);
        memcpy(d1.p, ref.p, ref.bytes);
        memcpy(d2.p, ref.p, ref.bytes);
        int e1 = -7, e2 = -7;
        stream_decode_block_ref(c_ref, &d1.v, scratch, &e1);
        stream_decode_block(c_ref, &d2.v, scratch, &e2);
        CHECK(memcmp(d1.p, d2.p, d1.bytes) == 0);
        CHECK(e1 == e2);
    }
    free(scratch);
    free(c_ref);
    free(c_fast);
    free(src.p);
    free(ref.p);
    free(d1.p);
    free(d2.p);
}

static void copy_rows_case(size_t row, int h, test_rng *r)
{
    const ptrdiff_t ss = (ptrdiff_t)row + 7, ds = (ptrdiff_t)row + 13;
    uint8_t *s = malloc((size_t)ss * (size_t)h), *d = malloc((size_t)ds * (size_t)h),
            *want = malloc((size_t)ds * (size_t)h);
    REQUIRE(s && d && want);
    for (size_t i = 0; i < (size_t)ss * (size_t)h; i++)
        s[i] = (uint8_t)test_rng_below(r, 256);
    for (size_t i = 0; i < (size_t)ds * (size_t)h; i++)
        d[i] = want[i] = (uint8_t)test_rng_below(r, 256);
    for (int y = 0; y < h; y++)
        memcpy(want + y * ds, s + y * ss, row);
    stream_copy_rows(d, ds, s, ss, row, h);
    CHECK(memcmp(d, want, (size_t)ds * (size_t)h) == 0);
    free(s);
    free(d);
    free(want);
}

int main(void)
{
    test_rng r;
    test_rng_seed(&r, 3838);
    uint16_t cost[256];
    stream_cost_table(cost);
    static const int tiles[] = {8, 16, 32, 64};
    for (int bps = 1; bps <= 2; bps++)
        for (int cpp = 1; cpp <= 4; cpp++)
            for (int k = 0; k < C_COUNT; k++) {
                /* whole tiles, luma and 4:2:0 chroma */
                for (int t = 0; t < 4; t++) {
                    one(tiles[t], tiles[t], cpp, bps, (content)k, &r, cost);
                    one(tiles[t] / 2, tiles[t] / 2, cpp, bps, (content)k, &r, cost);
                }
                /* border blocks: odd and thin */
                static const int odd[][2] = {{1, 1},  {1, 7},   {7, 1},  {3, 5},
                                             {13, 9}, {31, 17}, {5, 64}, {63, 3}};
                for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
                    one(odd[i][0], odd[i][1], cpp, bps, (content)k, &r, cost);
                for (int i = 0; i < 3; i++)
                    one(1 + (int)test_rng_below(&r, 64), 1 + (int)test_rng_below(&r, 64), cpp, bps,
                        (content)k, &r, cost);
            }
    /* another table, not capped from 15 on: the fast path's plain sum */
    uint16_t other[256];
    for (int v = 0; v < 256; v++)
        other[v] = (uint16_t)(1 + (v * 37) % 300);
    CHECK(other[15] != other[255]);
    for (int bps = 1; bps <= 2; bps++)
        for (int cpp = 1; cpp <= 4; cpp++)
            for (int k = 0; k < C_COUNT; k++) {
                one(16, 16, cpp, bps, (content)k, &r, other);
                one(9, 5, cpp, bps, (content)k, &r, other);
            }
    /* every mode was chosen at both widths, so every branch was compared */
    for (int b = 0; b < 2; b++)
        for (int m = 0; m < 4; m++) {
            if (!mode_seen[b][m])
                fprintf(stderr, "%d bits: mode %d never chosen\n", 8 * (b + 1), m);
            CHECK(mode_seen[b][m] > 0);
        }
    static const size_t rows[] = {1, 3, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        copy_rows_case(rows[i], 1 + (int)(i % 5), &r);
    fprintf(stderr, "%ld blocks\n", blocks);
    return test_finish("test_stream_fast");
}
