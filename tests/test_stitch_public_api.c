/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The rig and map API of the public headers alone (what the CLI and the demo
 * use): rigs from JSON and from code with their queries and geometry, map builds
 * with their statistics, map info, coverage and the overlap mismatch, and the
 * argument checks of each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/io.h"
#include "fovea/rig.h"
#include "fovea/stitch.h"
#include "testutil.h"

static const char *rig_json =
    "{\"panorama\": {\"projection\": \"equirectangular\", \"width\": 320, \"height\": 120,\n"
    "  \"hfov\": 100, \"vfov\": 40},\n \"blend\": {\"feather\": 16},\n \"cameras\": [\n"
    "  {\"name\": \"left\", \"width\": 160, \"height\": 120, \"model\": \"pinhole\", \"fx\": 120,\n"
    "   \"fy\": 120, \"cx\": 79.5, \"cy\": 59.5, \"yaw\": -20, \"pitch\": 0, \"roll\": 0},\n"
    "  {\"name\": \"right\", \"width\": 160, \"height\": 120, \"model\": \"fisheye\", \"fx\": 120,\n"
    "   \"fy\": 120, \"cx\": 79.5, \"cy\": 59.5, \"yaw\": 20, \"pitch\": 0, \"roll\": 0}]}\n";

static void test_rig(void)
{
    fovea_rig *rig = NULL;
    REQUIRE(fovea_rig_open_json(&rig, NULL, rig_json, strlen(rig_json)) == FOVEA_OK);
    fovea_rig_panorama p;
    CHECK_EQ_INT(fovea_rig_get_panorama(rig, &p), FOVEA_OK);
    CHECK(p.width == 320 && p.height == 120 && p.hfov == 100.0 && p.feather == 16.0);
    CHECK(p.max_theta == FOVEA_RIG_DEFAULT_MAX_THETA);
    CHECK_EQ_INT(fovea_rig_num_cameras(rig), 2);
    fovea_rig_camera cams[2];
    CHECK_EQ_INT(fovea_rig_get_camera(rig, 1, &cams[1]), FOVEA_OK);
    CHECK_EQ_INT(fovea_rig_get_camera(rig, 0, &cams[0]), FOVEA_OK);
    CHECK(strcmp(cams[1].name, "right") == 0 && cams[1].model == FOVEA_CAM_FISHEYE);
    CHECK_EQ_INT(fovea_rig_get_camera(rig, 2, &cams[0]), FOVEA_ERR_INVALID_ARG);
    CHECK(strcmp(fovea_camera_model_name(cams[1].model), "fisheye") == 0);
    CHECK(strcmp(fovea_projection_name(p.projection), "equirectangular") == 0);

    /* geometry: the panorama's center looks straight ahead; a camera's point
     * goes to a direction and back */
    double d[3], u, v;
    CHECK_EQ_INT(fovea_rig_panorama_to_dir(rig, 159.5, 59.5, d), FOVEA_OK);
    CHECK(fabs(d[0]) < 1e-12 && fabs(d[1]) < 1e-12 && fabs(d[2] - 1.0) < 1e-12);
    CHECK(fovea_rig_camera_to_dir(rig, 1, 40.0, 30.0, d) == 1);
    CHECK(fovea_rig_dir_to_camera(rig, 1, d, &u, &v) == 1);
    CHECK(fabs(u - 40.0) < 1e-6 && fabs(v - 30.0) < 1e-6);
    CHECK(fovea_rig_camera_to_dir(rig, 2, 40.0, 30.0, d) == 0);

    /* the same rig described in code; a bad field is named as in JSON */
    fovea_rig *made = NULL;
    CHECK_EQ_INT(fovea_rig_open_cameras(&made, NULL, &p, cams, 2), FOVEA_OK);
    char *a = fovea_rig_to_json(rig), *b = fovea_rig_to_json(made);
    REQUIRE(a && b);
    CHECK(strcmp(a, b) == 0);
    free(a);
    free(b);
    fovea_rig_close(&made);
    CHECK(made == NULL);
    cams[1].fx = -1.0;
    CHECK_EQ_INT(fovea_rig_open_cameras(&made, NULL, &p, cams, 2), FOVEA_ERR_INVALID_ARG);
    CHECK(made == NULL && strstr(fovea_last_error(NULL), "cameras[1].fx") != NULL);
    CHECK_EQ_INT(fovea_rig_open_cameras(&made, NULL, &p, cams, 0), FOVEA_ERR_INVALID_ARG);
    fovea_rig_close(&rig);
    fovea_rig_close(&rig); /* safe on NULL */

    CHECK(fovea_rig_open_file(&rig, NULL, "/nonexistent/rig.json") == FOVEA_ERR_IO);
    CHECK(rig == NULL && strstr(fovea_last_error(NULL), "/nonexistent/rig.json") != NULL);
    CHECK(fovea_rig_open_json(&rig, NULL, "{", 1) == FOVEA_ERR_CORRUPT);
    CHECK(rig == NULL);
}

static void test_map(void)
{
    fovea_rig *rig = NULL;
    REQUIRE(fovea_rig_open_json(&rig, NULL, rig_json, strlen(rig_json)) == FOVEA_OK);
    fovea_stitch_map_settings bs;
    fovea_stitch_map_default_settings(&bs);
    CHECK(bs.max_step == 16 && bs.tolerance == 0.01);
    bs.max_step = 4;
    fovea_stitch_map_stats stats;
    fovea_stitch_map *map = NULL;
    REQUIRE(fovea_stitch_map_open_rig(&map, NULL, rig, &bs, &stats) == FOVEA_OK);
    CHECK_EQ_INT(stats.num_cameras, 2);
    fovea_stitch_map_camera_info info;
    for (int c = 0; c < 2; c++) {
        CHECK_EQ_INT(fovea_stitch_map_get_camera_info(map, c, &info), FOVEA_OK);
        CHECK(info.width == 160 && info.height == 120 && info.explicit_weights == 0);
        CHECK(info.grid_step == stats.cam[c].step && info.grid_step <= 4);
        CHECK_EQ_INT(info.grid_width, (320 - 1) / info.grid_step + 2);
        CHECK_EQ_INT(info.fisheye_clip, c == 1);
    }
    CHECK_EQ_INT(fovea_stitch_map_get_camera_info(map, 2, &info), FOVEA_ERR_INVALID_ARG);
    CHECK(fovea_stitch_map_feather(map) == 16.0f);

    /* coverage agrees with the lookups and the weights */
    fovea_stitch_coverage cov;
    CHECK_EQ_INT(fovea_stitch_map_coverage(map, &cov), FOVEA_OK);
    long seen0 = 0, multi = 0;
    float w[FOVEA_STITCH_MAX_CAMERAS], uu[FOVEA_STITCH_MAX_CAMERAS], vv[FOVEA_STITCH_MAX_CAMERAS];
    for (int j = 0; j < 120; j++)
        for (int i = 0; i < 320; i++) {
            float u, v;
            seen0 += fovea_stitch_map_lookup(map, 0, i, j, &u, &v);
            multi += fovea_stitch_map_weights(map, i, j, w, uu, vv) >= 2;
        }
    CHECK(fabs(cov.pct_camera[0] - 100.0 * seen0 / (320.0 * 120.0)) < 1e-9);
    CHECK(multi > 0 && cov.pct_multi > 0.0);
    float u, v;
    CHECK(fovea_stitch_map_lookup(map, 0, -1, 0, &u, &v) == 0 && isnan(u));
    CHECK(fovea_stitch_map_lookup(NULL, 0, 0, 0, &u, &v) == 0);

    fovea_frame img, small;
    memset(&img, 0, sizeof(img));
    memset(&small, 0, sizeof(small));
    REQUIRE(fovea_frame_alloc(NULL, &img, 320, 120, FOVEA_PIX_RGB24, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &small, 160, 120, FOVEA_PIX_RGB24, FOVEA_MEM_HOST) == FOVEA_OK);
    CHECK_EQ_INT(fovea_stitch_map_coverage_image(map, &img), FOVEA_OK);
    CHECK_EQ_INT(fovea_stitch_map_coverage_image(map, &small), FOVEA_ERR_MISMATCH);

    /* overlap mismatch: identical cameras under identity corrections match up
     * to their interpolation; a gain on one camera shows */
    fovea_frame cams[2];
    memset(cams, 0, sizeof(cams));
    uint32_t seed = 12345;
    for (int c = 0; c < 2; c++) {
        REQUIRE(fovea_frame_alloc(NULL, &cams[c], 160, 120, FOVEA_PIX_RGBA, FOVEA_MEM_HOST) ==
                FOVEA_OK);
        for (int j = 0; j < 120; j++)
            for (int i = 0; i < 160 * 4; i++) {
                seed = seed * 1664525u + 1013904223u;
                cams[c].data[0][(size_t)j * (size_t)cams[c].stride[0] + (size_t)i] =
                    (uint8_t)(100 + (seed >> 28));
            }
    }
    const fovea_frame *in[2] = {&cams[0], &cams[1]};
    fovea_color_correction cc[2] = {{{1, 1, 1}, 1}, {{1, 1, 1}, 1}};
    double m0 = -1.0, m1 = -1.0;
    CHECK_EQ_INT(fovea_stitch_overlap_mismatch(map, in, 2, cc, NULL, &m0), FOVEA_OK);
    cc[1].gain[0] = cc[1].gain[1] = cc[1].gain[2] = 1.5f;
    CHECK_EQ_INT(fovea_stitch_overlap_mismatch(map, in, 2, cc, NULL, &m1), FOVEA_OK);
    CHECK(m0 >= 0.0 && m1 > m0 + 30.0);
    CHECK_EQ_INT(fovea_stitch_overlap_mismatch(map, in, 1, cc, NULL, &m1), FOVEA_ERR_MISMATCH);
    in[1] = &img;
    CHECK_EQ_INT(fovea_stitch_overlap_mismatch(map, in, 2, cc, NULL, &m1), FOVEA_ERR_MISMATCH);
    CHECK_EQ_INT(fovea_stitch_overlap_mismatch(NULL, in, 2, cc, NULL, &m1), FOVEA_ERR_INVALID_ARG);

    for (int c = 0; c < 2; c++)
        fovea_frame_free(NULL, &cams[c]);
    fovea_frame_free(NULL, &img);
    fovea_frame_free(NULL, &small);
    fovea_stitch_map_close(&map);
    CHECK_EQ_INT(fovea_stitch_map_open_rig(&map, NULL, NULL, NULL, NULL), FOVEA_ERR_INVALID_ARG);
    CHECK(map == NULL);
    fovea_rig_close(&rig);
}

int main(void)
{
    test_rig();
    test_map();
    return test_finish("test_stitch_public_api");
}
