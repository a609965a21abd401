/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The tile modes one block at a time (src/stream/tiles.c): a temporal
 * residual that is smooth in space is coded TEMPORAL_MED, noise on a static
 * block TEMPORAL, a smooth new block SPATIAL; each decodes to exactly the
 * source, with residuals that wrap around the container (8 and 16 bits, one
 * and two components a pixel); TEMPORAL_MED is refused in a keyframe. */
#include <string.h>

#include "stream/stream_internal.h"
#include "testutil.h"

enum { W = 16, H = 16, MAXC = 2 };

typedef enum { SCENE_RAMP, SCENE_NOISE, SCENE_SMOOTH_NEW } scene;

/* src and ref samples of a block (w x h x cpp values, bits wide) */
static void make_block(uint16_t *src, uint16_t *ref, int cpp, int bits, scene sc, test_rng *r)
{
    const uint32_t mask = (1u << bits) - 1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W * cpp; x++) {
            const size_t i = (size_t)y * W * cpp + (size_t)x;
            /* the reference near the top of the range: residuals wrap */
            ref[i] = (uint16_t)((mask - 40 + test_rng_below(r, 30)) & mask);
            if (sc == SCENE_RAMP) /* a brightness ramp down a textured reference */
                src[i] = (uint16_t)((ref[i] + 9 * (uint32_t)y + 30) & mask);
            else if (sc == SCENE_NOISE) /* the same scene, +-1 noise on some samples */
                src[i] = (uint16_t)((ref[i] + (test_rng_below(r, 8) == 0) -
                                     (test_rng_below(r, 8) == 0)) &
                                    mask);
            else /* something new and smooth */
                src[i] = (uint16_t)((1000u + 3u * (uint32_t)x + 2u * (uint32_t)y) & mask);
        }
}

static void put(uint8_t *buf, const uint16_t *a, int cpp, int bps)
{
    for (size_t i = 0; i < (size_t)W * H * cpp; i++) {
        if (bps == 1) {
            buf[i] = (uint8_t)a[i];
        } else {
            buf[2 * i] = (uint8_t)a[i];
            buf[2 * i + 1] = (uint8_t)(a[i] >> 8);
        }
    }
}

static void one(int cpp, int bps, scene sc, int want_mode, test_rng *r)
{
    const int bits = 8 * bps;
    uint16_t s[W * H * MAXC], rf[W * H * MAXC];
    uint8_t sb[W * H * MAXC * 2], rb[W * H * MAXC * 2];
    uint8_t coded[1 + W * H * MAXC * 2];
    uint16_t scratch[STREAM_SCRATCH_VALUES(W * H * MAXC * 2)];
    make_block(s, rf, cpp, bits, sc, r);
    put(sb, s, cpp, bps);
    put(rb, rf, cpp, bps);
    const ptrdiff_t stride = (ptrdiff_t)W * cpp * bps;
    stream_view sv = {sb, stride, W, H, cpp, bps}, rv = {rb, stride, W, H, cpp, bps};
    uint16_t cost[256];
    stream_cost_table(cost);
    const size_t n = stream_code_block(&sv, &rv, coded, scratch, cost);
    CHECK(n == 1 + (size_t)W * H * cpp * bps);
    if (coded[0] != want_mode)
        fprintf(stderr, "cpp %d, %d bits, scene %d: mode %d, expected %d\n", cpp, bits, (int)sc,
                coded[0], want_mode);
    CHECK_EQ_INT(coded[0], want_mode);
    CHECK(stream_mode_ok(coded[0], 0));
    int check = -1;
    stream_decode_block(coded, &rv, scratch, &check); /* rv now shows the decoded block */
    CHECK(memcmp(rb, sb, (size_t)W * H * cpp * bps) == 0);
    CHECK(check >= 0);
}

int main(void)
{
    test_rng r;
    test_rng_seed(&r, 38);
    for (int bps = 1; bps <= 2; bps++)
        for (int cpp = 1; cpp <= 2; cpp++) {
            one(cpp, bps, SCENE_RAMP, STREAM_MODE_TEMPORAL_MED, &r);
            one(cpp, bps, SCENE_NOISE, STREAM_MODE_TEMPORAL, &r);
            one(cpp, bps, SCENE_SMOOTH_NEW, STREAM_MODE_SPATIAL, &r);
        }
    CHECK(stream_mode_ok(STREAM_MODE_TEMPORAL_MED, 0));
    CHECK(!stream_mode_ok(STREAM_MODE_TEMPORAL_MED, 1));
    CHECK(!stream_mode_ok(STREAM_MODE_TEMPORAL_MED + 1, 0));
    return test_finish("test_stream_modes");
}
