/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Differencing (C reference): every map is identical for 1, 2, 3 and 8 worker
 * threads, on random frames of odd sizes in several formats. */
#include <stdlib.h>
#include <string.h>

#include "fovea/diff.h"
#include "testutil.h"

typedef struct run_out {
    fovea_frame heat, noise, over;
    fovea_diff_mask_result m;
    uint8_t *flags;
    int32_t *list;
} run_out;

static void run(int threads, const fovea_frame *a, const fovea_frame *b, fovea_pixfmt outfmt,
                run_out *r)
{
    fovea_context *ctx = NULL;
    fovea_settings set;
    fovea_default_settings(&set);
    set.backend = FOVEA_BACKEND_CPU;
    set.threads = threads;
    REQUIRE(fovea_open(&ctx, &set) == FOVEA_OK);
    CHECK_EQ_INT(fovea_context_threads(ctx), threads);
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    s.threshold = 200; /* a random pair changes about a third of the samples */
    s.tile = 8;
    fovea_diff *d = NULL;
    REQUIRE(fovea_diff_open(&d, ctx, &s) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(ctx, &r->heat, a->width, a->height, outfmt, FOVEA_MEM_HOST) == 0);
    REQUIRE(fovea_frame_alloc(ctx, &r->noise, a->width, a->height, outfmt, FOVEA_MEM_HOST) == 0);
    CHECK_EQ_INT(fovea_diff_heatmap(d, a, b, &r->heat), FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_noise(d, a, b, &r->noise), FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_mask(d, a, b, &r->m), FOVEA_OK);
    const size_t tiles = (size_t)r->m.tiles_x * (size_t)r->m.tiles_y;
    r->flags = malloc(tiles);
    r->list = malloc(tiles * sizeof(int32_t) + 1);
    REQUIRE(r->flags && r->list);
    memcpy(r->flags, r->m.changed, tiles);
    memcpy(r->list, r->m.list, (size_t)r->m.changed_tiles * sizeof(int32_t));
    fovea_diff_close(&d);
    memset(&r->over, 0, sizeof(r->over));
    if (a->fmt == outfmt) {
        s.noise_mode = FOVEA_DIFF_NOISE_OVERLAY;
        REQUIRE(fovea_diff_open(&d, ctx, &s) == FOVEA_OK);
        REQUIRE(fovea_frame_alloc(ctx, &r->over, a->width, a->height, outfmt, FOVEA_MEM_HOST) == 0);
        CHECK_EQ_INT(fovea_diff_noise(d, a, b, &r->over), FOVEA_OK);
        fovea_diff_close(&d);
    }
    fovea_close(&ctx);
}

static void release(run_out *r)
{
    fovea_frame_free(NULL, &r->heat);
    fovea_frame_free(NULL, &r->noise);
    fovea_frame_free(NULL, &r->over);
    free(r->flags);
    free(r->list);
}

int main(void)
{
    test_rng rng;
    test_rng_seed(&rng, 2024);
    const struct {
        fovea_pixfmt in, out;
        int w, h;
    } cases[] = {
        {FOVEA_PIX_RGB24, FOVEA_PIX_RGB24, 333, 257}, {FOVEA_PIX_I420, FOVEA_PIX_I420, 191, 135},
        {FOVEA_PIX_NV12, FOVEA_PIX_RGBA, 130, 77},    {FOVEA_PIX_I422P10, FOVEA_PIX_I420, 97, 61},
        {FOVEA_PIX_RGBA, FOVEA_PIX_RGBA, 65, 129},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        fovea_frame a, b;
        REQUIRE(fovea_frame_alloc(NULL, &a, cases[c].w, cases[c].h, cases[c].in, FOVEA_MEM_HOST) ==
                0);
        REQUIRE(fovea_frame_alloc(NULL, &b, cases[c].w, cases[c].h, cases[c].in, FOVEA_MEM_HOST) ==
                0);
        test_fill_random(&a, &rng);
        test_fill_random(&b, &rng);
        run_out one;
        run(1, &a, &b, cases[c].out, &one);
        /* the random pair must exercise both answers of the threshold */
        CHECK(one.m.changed_pixels > 0);
        CHECK(one.m.changed_pixels < (int64_t)cases[c].w * cases[c].h);
        const int counts[3] = {2, 3, 8};
        for (int k = 0; k < 3; k++) {
            run_out many;
            run(counts[k], &a, &b, cases[c].out, &many);
            CHECK(fovea_frame_equal(&one.heat, &many.heat));
            CHECK(fovea_frame_equal(&one.noise, &many.noise));
            if (one.over.data[0])
                CHECK(fovea_frame_equal(&one.over, &many.over));
            CHECK_EQ_INT(one.m.changed_pixels, many.m.changed_pixels);
            CHECK_EQ_INT(one.m.changed_tiles, many.m.changed_tiles);
            CHECK_EQ_INT(one.m.diff_sum, many.m.diff_sum);
            CHECK_EQ_INT(one.m.diff_max, many.m.diff_max);
            const size_t tiles = (size_t)one.m.tiles_x * (size_t)one.m.tiles_y;
            CHECK(memcmp(one.flags, many.flags, tiles) == 0);
            CHECK(memcmp(one.list, many.list, (size_t)one.m.changed_tiles * sizeof(int32_t)) == 0);
            release(&many);
        }
        release(&one);
        fovea_frame_free(NULL, &a);
        fovea_frame_free(NULL, &b);
    }
    return test_finish("test_diff_threads");
}
