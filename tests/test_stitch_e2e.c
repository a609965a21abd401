/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* End to end on the demo scene (C backend, the rig at 1/4 size): the
 * stitched panorama matches the ground truth over covered pixels (>= 38 dB) when
 * the cameras share one color response, and automatic balancing removes at
 * least 80% of the overlap color mismatch when they do not; the balanced
 * panorama is then >= 5 dB closer to the ground truth than the unbalanced one
 * (the corrections reach the output). */
#include <math.h>
#include <string.h>

#include "demo.h"
#include "testutil.h"

int main(void)
{
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);

    demo_options o;
    demo_default_options(&o);
    o.scale_div = 4;
    demo_result r;
    char err[512] = "";

    o.identical_colors = 1;
    int st = demo_run(ctx, &o, &r, err, sizeof(err));
    if (st != FOVEA_OK)
        fprintf(stderr, "demo: %s\n", err);
    REQUIRE(st == FOVEA_OK);
    printf("identical colors: PSNR %.2f dB over %.1f%% covered, mismatch %.2f -> %.2f\n",
           r.psnr_covered, r.pct_covered, r.mismatch_before, r.mismatch_after);
    CHECK(r.psnr_covered >= 38.0);
    CHECK(r.pct_covered > 90.0);
    /* nothing to correct: the balance must stay close to identity */
    for (int c = 0; c < r.num_cameras; c++) {
        printf("  camera %d: gain %.4f %.4f %.4f gamma %.4f\n", c, r.cc[c].gain[0], r.cc[c].gain[1],
               r.cc[c].gain[2], r.cc[c].gamma);
        for (int k = 0; k < 3; k++)
            CHECK(r.cc[c].gain[k] > 0.99f && r.cc[c].gain[k] < 1.01f);
        CHECK(r.cc[c].gamma > 0.99f && r.cc[c].gamma < 1.01f);
    }
    /* (0.44 -> 0.58 codes: the corrections of a few tenths of a percent and
     * their 8-bit tables; a balance gone wrong adds whole codes) */
    CHECK(r.mismatch_after <= r.mismatch_before + 0.25);

    o.identical_colors = 0;
    st = demo_run(ctx, &o, &r, err, sizeof(err));
    REQUIRE(st == FOVEA_OK);
    double reduction = 1.0 - r.mismatch_after / r.mismatch_before;
    printf("different colors: mismatch %.2f -> %.2f (%.0f%% less), PSNR %.2f dB\n",
           r.mismatch_before, r.mismatch_after, 100.0 * reduction, r.psnr_covered);
    for (int c = 0; c < r.num_cameras; c++)
        printf("  camera %d: gain %.3f %.3f %.3f gamma %.3f\n", c, r.cc[c].gain[0], r.cc[c].gain[1],
               r.cc[c].gain[2], r.cc[c].gamma);
    CHECK(r.mismatch_before > 3.0); /* the responses really differ */
    CHECK(reduction >= 0.80);
    const double psnr_auto = r.psnr_covered;

    /* the same without balancing: the mismatch measure above rates the
     * corrections the stitcher reports; that they reach its output shows in
     * the panorama against the ground truth */
    o.color_auto = 0;
    st = demo_run(ctx, &o, &r, err, sizeof(err));
    REQUIRE(st == FOVEA_OK);
    printf("different colors, balance off: PSNR %.2f dB\n", r.psnr_covered);
    for (int c = 0; c < r.num_cameras; c++) /* off: identity */
        CHECK(r.cc[c].gain[0] == 1.0f && r.cc[c].gain[1] == 1.0f && r.cc[c].gain[2] == 1.0f &&
              r.cc[c].gamma == 1.0f);
    CHECK(psnr_auto >= 36.0);
    CHECK(psnr_auto >= r.psnr_covered + 5.0);

    /* the video path: I420 cameras stitched in I420 (the ground truth through
     * the same conversions). Same colors: as close as RGBA. Different colors:
     * the balance solves per-channel gains from the overlaps' Y, U and V and
     * corrects chroma through the cameras' RGB curves (docs/stitch.md sections
     * 3 and 4), so the casts go as well: the mismatch over Y, U and V falls as
     * much as RGBA's and the panorama comes near RGBA's PSNR. */
    o.yuv = 1;
    o.color_auto = 1;
    o.identical_colors = 1;
    st = demo_run(ctx, &o, &r, err, sizeof(err));
    REQUIRE(st == FOVEA_OK);
    printf("I420, identical colors: PSNR %.2f dB, Y/U/V mismatch %.2f -> %.2f\n", r.psnr_covered,
           r.mismatch_before, r.mismatch_after);
    CHECK(r.psnr_covered >= 38.0);
    CHECK(r.pct_covered > 90.0);
    CHECK(r.mismatch_after <= r.mismatch_before + 0.25);
    o.identical_colors = 0;
    st = demo_run(ctx, &o, &r, err, sizeof(err));
    REQUIRE(st == FOVEA_OK);
    const double yuv_auto = r.psnr_covered;
    reduction = 1.0 - r.mismatch_after / r.mismatch_before;
    printf("I420, different colors: Y/U/V mismatch %.2f -> %.2f (%.0f%% less), PSNR %.2f dB\n",
           r.mismatch_before, r.mismatch_after, 100.0 * reduction, r.psnr_covered);
    for (int c = 0; c < r.num_cameras; c++)
        printf("  camera %d: gain %.3f %.3f %.3f gamma %.3f\n", c, r.cc[c].gain[0], r.cc[c].gain[1],
               r.cc[c].gain[2], r.cc[c].gamma);
    CHECK(r.mismatch_before > 3.0);
    CHECK(reduction >= 0.8);
    CHECK(yuv_auto >= 36.0);
    /* the casts are corrected per channel: the demo's responses (red up and
     * blue down in one camera, the opposite in the other) give each camera
     * gains that differ between red and blue */
    for (int c = 0; c < r.num_cameras; c++)
        CHECK(fabsf(r.cc[c].gain[0] - r.cc[c].gain[2]) > 0.05f);
    o.color_auto = 0;
    st = demo_run(ctx, &o, &r, err, sizeof(err));
    REQUIRE(st == FOVEA_OK);
    printf("I420, different colors, balance off: PSNR %.2f dB\n", r.psnr_covered);
    CHECK(yuv_auto >= r.psnr_covered + 5.0);

    /* the other YUV conventions: BT.709 (HD and UHD video) and full range,
     * the cameras converted and the stitcher told so; the statistics, the
     * gains' luma weights, the chroma correction and (full range) the luma
     * curve follow the convention */
    o.color_auto = 1;
    for (int k = 1; k < 4; k++) {
        o.colorspace = k & 1 ? FOVEA_CS_BT709 : FOVEA_CS_BT601;
        o.full_range = k >> 1;
        st = demo_run(ctx, &o, &r, err, sizeof(err));
        REQUIRE(st == FOVEA_OK);
        reduction = 1.0 - r.mismatch_after / r.mismatch_before;
        printf("I420 %s %s range, different colors: Y/U/V mismatch %.2f -> %.2f (%.0f%% less), "
               "PSNR %.2f dB\n",
               k & 1 ? "BT.709" : "BT.601", k >> 1 ? "full" : "limited", r.mismatch_before,
               r.mismatch_after, 100.0 * reduction, r.psnr_covered);
        CHECK(r.mismatch_before > 3.0);
        CHECK(reduction >= 0.8);
        CHECK(r.psnr_covered >= 36.0);
        for (int c = 0; c < r.num_cameras; c++)
            CHECK(fabsf(r.cc[c].gain[0] - r.cc[c].gain[2]) > 0.05f);
    }

    fovea_close(&ctx);
    return test_finish("test_stitch_e2e");
}
