/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* KLT parameter checks: pyramids whose levels get smaller than the window, and
 * borders that overflow an int, are refused with a status and a message naming
 * the parameters (no undefined behavior: this test runs under UBSan); borders
 * and skips the caller sets to extreme values select without overflowing. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/klt.h"
#include "testutil.h"

/* Smooth texture with corners to select. */
static unsigned char *make_frame(int w, int h, uint64_t seed)
{
    unsigned char *img = malloc((size_t)w * h);
    REQUIRE(img != NULL);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double s = 128 + 50 * sin(x * 0.21 + (double)seed) * cos(y * 0.17) +
                       40 * sin(x * 0.053 + y * 0.091) + 20 * cos(x * 0.37 - y * 0.29);
            img[(size_t)y * w + x] = (unsigned char)(s < 0 ? 0 : s > 255 ? 255 : s);
        }
    return img;
}

static void expect_error(KLT_TrackingContext tc, const char *needle, int line)
{
    int st = fovea_klt_last_status(tc);
    const char *msg = fovea_last_error(tc->ctx);
    if (st != FOVEA_ERR_INVALID_ARG || !strstr(msg, needle)) {
        fprintf(stderr, "line %d: expected FOVEA_ERR_INVALID_ARG with '%s', got %d '%s'\n", line,
                needle, st, msg);
        test_failures++;
    }
}
#define EXPECT_ERROR(tc, needle) expect_error(tc, needle, __LINE__)

static int untouched(KLT_FeatureList fl)
{
    for (int k = 0; k < fl->nFeatures; k++)
        if (fl->feature[k]->val != KLT_NOT_FOUND || fl->feature[k]->x != -1.0f)
            return 0;
    return 1;
}

/* `fovea track --pyramid-levels L --subsampling S` on a 640x480 video. */
static KLT_TrackingContext context_for(int levels, int ss)
{
    KLT_TrackingContext tc = KLTCreateTrackingContext();
    REQUIRE(tc != NULL);
    tc->nPyramidLevels = levels;
    tc->subsampling = ss;
    KLTUpdateTCBorder(tc);
    return tc;
}

static void test_user_report(void)
{
    const int w = 640, h = 480;
    unsigned char *a = make_frame(w, h, 1), *b = make_frame(w, h, 2);
    KLT_FeatureList fl = KLTCreateFeatureList(150);
    REQUIRE(fl != NULL);

    /* 8 x 32: the border is (2 + 3) * 32^7, beyond an int */
    KLT_TrackingContext tc = context_for(8, 32);
    EXPECT_ERROR(tc, "(KLTUpdateTCBorder) nPyramidLevels 8 with subsampling 32 and a 7x7 "
                     "window: the border");
    EXPECT_ERROR(tc, "overflows an int");
    CHECK_EQ_INT(tc->borderx, INT_MAX);
    CHECK_EQ_INT(tc->bordery, INT_MAX);
    KLTSelectGoodFeatures(tc, a, w, h, fl);
    EXPECT_ERROR(tc, "(KLTSelectGoodFeatures) nPyramidLevels 8 with subsampling 32: level 2 of "
                     "the 640x480 image is 0x0, smaller than the 7x7 window (at most 2 levels "
                     "fit)");
    CHECK(untouched(fl));
    KLTTrackFeatures(tc, a, b, w, h, fl);
    EXPECT_ERROR(tc, "(KLTTrackFeatures) nPyramidLevels 8 with subsampling 32: level 2");
    KLTReplaceLostFeatures(tc, a, w, h, fl);
    EXPECT_ERROR(tc, "(KLTReplaceLostFeatures) nPyramidLevels 8 with subsampling 32: level 2");
    CHECK(untouched(fl));
    KLTFreeTrackingContext(tc);

    /* 8 x 16: the border fits (6 * 16^7) but selection's span overflowed */
    tc = context_for(8, 16);
    CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_OK);
    KLTSelectGoodFeatures(tc, a, w, h, fl);
    EXPECT_ERROR(tc, "(KLTSelectGoodFeatures) nPyramidLevels 8 with subsampling 16: level 2 of "
                     "the 640x480 image is 2x1, smaller than the 7x7 window (at most 2 levels "
                     "fit)");
    CHECK(untouched(fl));
    KLTFreeTrackingContext(tc);

    /* 6 and 7 x 32 selected nothing, silently (7: after an overflow) */
    for (int levels = 6; levels <= 7; levels++) {
        tc = context_for(levels, 32);
        KLTSelectGoodFeatures(tc, a, w, h, fl);
        char want[160];
        snprintf(want, sizeof want,
                 "(KLTSelectGoodFeatures) nPyramidLevels %d with subsampling 32: level 2 of the "
                 "640x480 image is 0x0, smaller than the 7x7 window (at most 2 levels fit)",
                 levels);
        EXPECT_ERROR(tc, want);
        CHECK(untouched(fl));
        KLTFreeTrackingContext(tc);
    }

    /* the largest pyramid that fits still tracks */
    tc = context_for(2, 32);
    CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_OK);
    KLTSelectGoodFeatures(tc, a, w, h, fl);
    CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_OK);
    CHECK(KLTCountRemainingFeatures(fl) > 0);
    KLTTrackFeatures(tc, a, b, w, h, fl);
    CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_OK);
    KLTFreeTrackingContext(tc);

    KLTFreeFeatureList(fl);
    free(a);
    free(b);
}

static void test_check_params(void)
{
    KLT_TrackingContext tc = KLTCreateTrackingContext();
    REQUIRE(tc != NULL);
    /* defaults: 2 levels of 4 */
    CHECK_EQ_INT(fovea_klt_check_params(tc, 320, 240), FOVEA_OK);
    CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_OK);
    CHECK_EQ_INT(fovea_klt_check_params(tc, 28, 28), FOVEA_OK); /* level 1: 7x7 */
    CHECK_EQ_INT(fovea_klt_check_params(tc, 27, 28), FOVEA_ERR_INVALID_ARG);
    EXPECT_ERROR(tc, "(fovea_klt_check_params) nPyramidLevels 2 with subsampling 4: level 1 of "
                     "the 27x28 image is 6x7, smaller than the 7x7 window (at most 1 level fits)");
    CHECK_EQ_INT(fovea_klt_check_params(tc, 5, 5), FOVEA_ERR_INVALID_ARG);
    EXPECT_ERROR(tc, "the 5x5 image is smaller than the 7x7 window");
    CHECK_EQ_INT(fovea_klt_check_params(tc, 0, 240), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_klt_check_params(tc, 320, 16385), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_klt_check_params(NULL, 320, 240), FOVEA_ERR_INVALID_ARG);

    /* the exact bound: 3 levels of 4 and a 9x5 window need 144 x 80 */
    tc->nPyramidLevels = 3;
    tc->window_width = 9;
    tc->window_height = 5;
    CHECK_EQ_INT(fovea_klt_check_params(tc, 144, 80), FOVEA_OK);
    CHECK_EQ_INT(fovea_klt_check_params(tc, 143, 80), FOVEA_ERR_INVALID_ARG);
    EXPECT_ERROR(tc, "level 2 of the 143x80 image is 8x5, smaller than the 9x5 window "
                     "(at most 2 levels fit)");
    CHECK_EQ_INT(fovea_klt_check_params(tc, 144, 79), FOVEA_ERR_INVALID_ARG);
    /* KLT corrects an even window upwards: 8x4 counts as 9x5 */
    tc->window_width = 8;
    tc->window_height = 4;
    CHECK_EQ_INT(fovea_klt_check_params(tc, 144, 80), FOVEA_OK);
    CHECK_EQ_INT(fovea_klt_check_params(tc, 143, 80), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(tc->window_width, 8); /* checked, not changed */
    tc->window_width = tc->window_height = 7;

    /* the subsampling and level ranges */
    tc->subsampling = 3;
    CHECK_EQ_INT(fovea_klt_check_params(tc, 320, 240), FOVEA_ERR_INVALID_ARG);
    EXPECT_ERROR(tc, "subsampling must be 2, 4, 8, 16 or 32 (is 3)");
    tc->subsampling = 0;
    KLTUpdateTCBorder(tc); /* used to divide by zero */
    EXPECT_ERROR(tc, "subsampling must be 2, 4, 8, 16 or 32 (is 0)");
    tc->subsampling = 2;
    tc->nPyramidLevels = 33;
    KLTUpdateTCBorder(tc);
    EXPECT_ERROR(tc, "nPyramidLevels must be 1..32 (is 33)");
    tc->nPyramidLevels = 32; /* 2^31: the last level that could overflow */
    KLTUpdateTCBorder(tc);
    EXPECT_ERROR(tc, "overflows an int");
    /* a valid setup clears the status again, with KLT's border */
    KLTChangeTCPyramid(tc, 15);
    KLTUpdateTCBorder(tc);
    CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_OK);
    CHECK_EQ_INT(tc->borderx, 24);
    CHECK_EQ_INT(tc->bordery, 24);
    KLTFreeTrackingContext(tc);
}

/* Borders and skips set by hand: selection clamps them (same grid) instead of
 * overflowing; tracking compares in long long. */
static void test_extreme_fields(void)
{
    const int w = 160, h = 120;
    unsigned char *a = make_frame(w, h, 3), *b = make_frame(w, h, 3);
    KLT_TrackingContext tc = KLTCreateTrackingContext();
    KLT_FeatureList fl = KLTCreateFeatureList(50), ref = KLTCreateFeatureList(50);
    REQUIRE(tc && fl && ref);

    tc->borderx = INT_MAX;
    KLTSelectGoodFeatures(tc, a, w, h, fl);
    CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_OK);
    CHECK_EQ_INT(KLTCountRemainingFeatures(fl), 0);
    tc->borderx = 24;
    tc->bordery = INT_MAX;
    KLTSelectGoodFeatures(tc, a, w, h, fl);
    CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_OK);
    CHECK_EQ_INT(KLTCountRemainingFeatures(fl), 0);
    tc->bordery = 24;

    /* any skip beyond the image leaves the one candidate at the border */
    tc->nSkippedPixels = 100000;
    KLTSelectGoodFeatures(tc, a, w, h, ref);
    CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_OK);
    tc->nSkippedPixels = INT_MAX;
    KLTSelectGoodFeatures(tc, a, w, h, fl);
    CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_OK);
    CHECK(KLTCountRemainingFeatures(fl) <= 1);
    CHECK_EQ_INT(KLTCountRemainingFeatures(fl), KLTCountRemainingFeatures(ref));
    for (int k = 0; k < fl->nFeatures; k++) {
        CHECK(fl->feature[k]->x == ref->feature[k]->x);
        CHECK(fl->feature[k]->y == ref->feature[k]->y);
        CHECK_EQ_INT(fl->feature[k]->val, ref->feature[k]->val);
    }
    tc->nSkippedPixels = -1;
    KLTSelectGoodFeatures(tc, a, w, h, fl);
    EXPECT_ERROR(tc, "nSkippedPixels must be >= 0");
    tc->nSkippedPixels = 0;

    /* a very negative border lets every tracked position through */
    KLTSelectGoodFeatures(tc, a, w, h, fl);
    int n = KLTCountRemainingFeatures(fl);
    CHECK(n > 0);
    tc->borderx = tc->bordery = INT_MIN;
    KLTTrackFeatures(tc, a, b, w, h, fl);
    CHECK_EQ_INT(fovea_klt_last_status(tc), FOVEA_OK);
    CHECK_EQ_INT(KLTCountRemainingFeatures(fl), n); /* same image: nothing moves */

    KLTFreeFeatureList(fl);
    KLTFreeFeatureList(ref);
    KLTFreeTrackingContext(tc);
    free(a);
    free(b);
}

int main(void)
{
    test_user_report();
    test_check_params();
    test_extreme_fields();
    return test_finish("test_klt_params");
}
