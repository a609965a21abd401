/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Rig JSON: the spec example parses to the expected values, round-trips through
 * the writer, and every malformed case is refused with the field path named. */
#include <stdlib.h>
#include <string.h>

#include "stitch/rig.h"
#include "testutil.h"

static const char *spec_json =
    "{\n"
    "  \"panorama\": { \"projection\": \"equirectangular\", \"width\": 5700, \"height\": 1900,\n"
    "                \"hfov\": 150.0, \"vfov\": 50.0, \"yaw\": 0.0, \"pitch\": 0.0 },\n"
    "  \"blend\":    { \"feather\": 64 },\n"
    "  \"cameras\": [\n"
    "    { \"name\": \"left\",  \"width\": 3840, \"height\": 2160, \"model\": \"pinhole\",\n"
    "      \"fx\": 2132.0, \"fy\": 2132.0, \"cx\": 1919.5, \"cy\": 1079.5,\n"
    "      \"dist\": [-0.05, 0.01, 0.0, 0.0, 0.0],\n"
    "      \"yaw\": -35.0, \"pitch\": 0.0, \"roll\": 0.0 },\n"
    "    { \"name\": \"right\", \"width\": 3840, \"height\": 2160, \"model\": \"fisheye\",\n"
    "      \"fx\": 1200.0, \"fy\": 1200.0, \"cx\": 1919.5, \"cy\": 1079.5,\n"
    "      \"dist\": [0.02, -0.01, 0.0, 0.0],\n"
    "      \"yaw\": 35.0, \"pitch\": 0.0, \"roll\": 0.0 }\n"
    "  ]\n"
    "}\n";

/* spec_json with the first occurrence of `from` replaced by `to` (caller frees). */
static char *subst(const char *base, const char *from, const char *to)
{
    const char *at = strstr(base, from);
    REQUIRE(at != NULL);
    size_t pre = (size_t)(at - base), fl = strlen(from), tl = strlen(to);
    char *s = malloc(strlen(base) - fl + tl + 1);
    REQUIRE(s != NULL);
    memcpy(s, base, pre);
    memcpy(s + pre, to, tl);
    strcpy(s + pre + tl, at + fl);
    return s;
}

/* Expect rejection with a message containing `needle`. */
static void expect_bad_text(const char *json, const char *needle, int line)
{
    fovea_rig rig;
    char err[512] = "";
    int rc = fv_rig_parse(json, strlen(json), &rig, err, sizeof(err));
    if (rc >= 0 || !strstr(err, needle)) {
        fprintf(stderr, "line %d: expected error containing '%s', got rc=%d '%s'\n", line, needle,
                rc, err);
        test_failures++;
    }
}

static void expect_bad_sub(const char *from, const char *to, const char *needle, int line)
{
    char *j = subst(spec_json, from, to);
    expect_bad_text(j, needle, line);
    free(j);
}

#define BAD(from, to, needle) expect_bad_sub(from, to, needle, __LINE__)
#define BAD_TEXT(json, needle) expect_bad_text(json, needle, __LINE__)

static void test_spec_example(void)
{
    fovea_rig rig;
    char err[256] = "";
    int rc = fv_rig_parse(spec_json, strlen(spec_json), &rig, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_OK);
    if (rc < 0) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK_EQ_INT(rig.projection, FOVEA_PROJ_EQUIRECTANGULAR);
    CHECK_EQ_INT(rig.width, 5700);
    CHECK_EQ_INT(rig.height, 1900);
    CHECK(rig.hfov == 150.0 && rig.vfov == 50.0 && rig.yaw == 0.0 && rig.pitch == 0.0);
    CHECK(rig.feather == 64.0);
    CHECK(rig.max_theta == 100.0);
    CHECK_EQ_INT(rig.num_cameras, 2);
    const fovea_rig_camera *l = &rig.cameras[0], *r = &rig.cameras[1];
    CHECK(strcmp(l->name, "left") == 0 && strcmp(r->name, "right") == 0);
    CHECK_EQ_INT(l->model, FOVEA_CAM_PINHOLE);
    CHECK_EQ_INT(r->model, FOVEA_CAM_FISHEYE);
    CHECK(l->width == 3840 && l->height == 2160);
    CHECK(l->fx == 2132.0 && l->fy == 2132.0 && l->cx == 1919.5 && l->cy == 1079.5);
    CHECK(l->dist[0] == -0.05 && l->dist[1] == 0.01 && l->dist[4] == 0.0);
    CHECK(r->fx == 1200.0 && r->dist[0] == 0.02 && r->dist[1] == -0.01 && r->dist[4] == 0.0);
    CHECK(l->yaw == -35.0 && r->yaw == 35.0);

    /* writer round trip */
    char *s = fovea_rig_to_json(&rig);
    REQUIRE(s != NULL);
    fovea_rig back;
    rc = fv_rig_parse(s, strlen(s), &back, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_OK);
    CHECK(memcmp(&rig, &back, sizeof(rig)) == 0);
    free(s);

    /* odd values survive the round trip bit for bit */
    rig.cameras[1].fx = 1200.0 / 3.0;
    rig.cameras[0].dist[3] = 1e-7 / 3.0;
    rig.pitch = -0.1;
    rig.max_theta = 95.5;
    rig.feather = 0.0;
    s = fovea_rig_to_json(&rig);
    REQUIRE(s != NULL);
    rc = fv_rig_parse(s, strlen(s), &back, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_OK);
    CHECK(memcmp(&rig, &back, sizeof(rig)) == 0);
    free(s);

    /* file load + write */
    char *path = test_tmp_path(".json");
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    CHECK_EQ_INT(fv_rig_write_json(&rig, f), FOVEA_OK);
    fclose(f);
    rc = fv_rig_load(path, &back, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_OK);
    CHECK(memcmp(&rig, &back, sizeof(rig)) == 0);
    free(path);
}

static void test_defaults(void)
{
    /* blend, max_theta, panorama yaw/pitch, names, dist and angles are optional */
    const char *j =
        "{\"panorama\": {\"projection\": \"cylindrical\", \"width\": 100, \"height\": 50,"
        " \"hfov\": 90},"
        " \"cameras\": [{\"width\": 64, \"height\": 48, \"model\": \"pinhole\","
        " \"fx\": 50, \"fy\": 50, \"cx\": 31.5, \"cy\": 23.5, \"dist\": [0.1]}]}";
    fovea_rig rig;
    char err[256] = "";
    int rc = fv_rig_parse(j, strlen(j), &rig, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_OK);
    if (rc < 0)
        fprintf(stderr, "%s\n", err);
    CHECK_EQ_INT(rig.projection, FOVEA_PROJ_CYLINDRICAL);
    CHECK(rig.feather == 64.0 && rig.max_theta == 100.0);
    CHECK(rig.yaw == 0.0 && rig.pitch == 0.0);
    CHECK(strcmp(rig.cameras[0].name, "cam0") == 0);
    CHECK(rig.cameras[0].dist[0] == 0.1 && rig.cameras[0].dist[1] == 0.0 &&
          rig.cameras[0].dist[4] == 0.0);
    CHECK(rig.cameras[0].yaw == 0.0 && rig.cameras[0].roll == 0.0);
    /* hfov 360 and max_theta 180 are allowed; the spec example with max_theta */
    char *s = subst(spec_json, "\"hfov\": 150.0", "\"hfov\": 360");
    char *t = subst(s, "\"blend\"", "\"max_theta\": 120, \"blend\"");
    rc = fv_rig_parse(t, strlen(t), &rig, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_OK);
    CHECK(rig.hfov == 360.0 && rig.max_theta == 120.0);
    free(s);
    free(t);
    /* whitespace after the document is fine, a NUL-free buffer without terminator too */
    size_t n = strlen(spec_json);
    char *buf = malloc(n + 3);
    REQUIRE(buf != NULL);
    memcpy(buf, spec_json, n);
    memcpy(buf + n, " \n\t", 3);
    rc = fv_rig_parse(buf, n + 3, &rig, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_OK);
    free(buf);
}

static void test_malformed(void)
{
    /* syntax */
    BAD_TEXT("", "invalid JSON");
    BAD_TEXT("{\n  \"panorama\": {\n    \"width\": 12,,\n", "invalid JSON near line 3");
    BAD("\"hfov\": 150.0", "\"hfov\": NaN", "invalid JSON");
    BAD("\"hfov\": 150.0", "\"hfov\": Infinity", "invalid JSON");
    BAD_TEXT("{\"panorama\": {}} trailing", "invalid JSON");
    BAD_TEXT("[1, 2]", "(root): must be an object");

    /* required fields and types */
    BAD_TEXT("{\"blend\": {\"feather\": 1}, \"cameras\": []}", "panorama: missing required field");
    BAD("\"panorama\": {", "\"panorama\": 3, \"max_theta\": {", "panorama: must be an object");
    BAD("\"projection\": \"equirectangular\",", "", "panorama.projection: missing");
    BAD("\"equirectangular\"", "\"mercator\"",
        "panorama.projection: unknown projection 'mercator' (equirectangular, cylindrical)");
    BAD("\"equirectangular\"", "7", "panorama.projection: must be a string");
    BAD("\"width\": 5700,", "", "panorama.width: missing required field");
    BAD("\"width\": 5700", "\"width\": \"5700\"", "panorama.width: must be a number");
    BAD("\"width\": 5700", "\"width\": 0", "panorama.width");
    BAD("\"width\": 5700", "\"width\": -4", "panorama.width");
    BAD("\"width\": 5700", "\"width\": 16385", "panorama.width");
    BAD("\"width\": 5700", "\"width\": 100.5", "panorama.width");
    BAD("\"height\": 1900", "\"height\": 20000", "panorama.height");
    BAD("\"hfov\": 150.0", "\"hfov\": 0", "panorama.hfov");
    BAD("\"hfov\": 150.0", "\"hfov\": 360.5", "panorama.hfov");
    BAD("\"hfov\": 150.0", "\"hfov\": -10", "panorama.hfov");
    BAD("\"hfov\": 150.0", "\"hfov\": 1e999", "panorama.hfov: must be a finite number");
    BAD("\"vfov\": 50.0", "\"vfov\": 180.5", "panorama.vfov");
    BAD("\"vfov\": 50.0", "\"vfov\": 0", "panorama.vfov");
    BAD("\"vfov\": 50.0,", "", "panorama.vfov: missing required field");
    BAD("\"yaw\": 0.0, \"pitch\": 0.0 }", "\"yaw\": null, \"pitch\": 0.0 }", "panorama.yaw");
    BAD("\"feather\": 64", "\"feather\": -1", "blend.feather");
    BAD("\"feather\": 64", "\"feather\": true", "blend.feather: must be a number");
    BAD("\"blend\":    { \"feather\": 64 }", "\"blend\": 64", "blend: must be an object");
    BAD("\"blend\"", "\"max_theta\": 0, \"blend\"", "max_theta");
    BAD("\"blend\"", "\"max_theta\": 181, \"blend\"", "max_theta");
    BAD("\"blend\"", "\"max_theta\": \"x\", \"blend\"", "max_theta: must be a number");

    /* cameras */
    BAD_TEXT("{\"panorama\": {\"projection\": \"cylindrical\", \"width\": 100, \"height\": 50,"
             " \"hfov\": 90}}",
             "cameras: missing required field");
    BAD_TEXT("{\"panorama\": {\"projection\": \"cylindrical\", \"width\": 100, \"height\": 50,"
             " \"hfov\": 90}, \"cameras\": []}",
             "cameras: must have 1 to 16 entries");
    BAD_TEXT("{\"panorama\": {\"projection\": \"cylindrical\", \"width\": 100, \"height\": 50,"
             " \"hfov\": 90}, \"cameras\": {}}",
             "cameras: must be an array");
    BAD("\"name\": \"left\"", "\"name\": 5", "cameras[0].name: must be a string");
    BAD("\"model\": \"pinhole\"", "\"model\": \"fishy\"",
        "cameras[0].model: unknown model 'fishy' (pinhole, fisheye, panotools)");
    BAD("\"model\": \"fisheye\",", "", "cameras[1].model: missing required field");
    BAD("\"fx\": 1200.0,", "", "cameras[1].fx: missing required field");
    BAD("\"fx\": 1200.0", "\"fx\": \"abc\"", "cameras[1].fx: must be a number");
    BAD("\"fx\": 2132.0", "\"fx\": 0", "cameras[0].fx: must be a finite number > 0");
    BAD("\"fx\": 2132.0", "\"fx\": -5", "cameras[0].fx: must be a finite number > 0");
    BAD("\"fx\": 2132.0", "\"fx\": 1e400", "cameras[0].fx: must be a finite number");
    BAD("\"fy\": 1200.0", "\"fy\": 0", "cameras[1].fy");
    BAD("\"cx\": 1919.5", "\"cx\": [1]", "cameras[0].cx: must be a number");
    BAD("\"cy\": 1079.5,\n      \"dist\": [0.02", "\"dist\": [0.02", "cameras[1].cy: missing");
    BAD("\"width\": 3840", "\"width\": 0", "cameras[0].width");
    BAD("\"width\": 3840, \"height\": 2160, \"model\": \"fisheye\"",
        "\"width\": 16385, \"height\": 2160, \"model\": \"fisheye\"", "cameras[1].width");
    BAD("\"height\": 2160", "\"height\": -1", "cameras[0].height");
    BAD("\"height\": 2160", "\"height\": 2160.25", "cameras[0].height");
    BAD("[-0.05, 0.01, 0.0, 0.0, 0.0]", "[-0.05, 0.01, 0.0, 0.0, 0.0, 0.1]",
        "cameras[0].dist: 6 coefficients");
    BAD("[0.02, -0.01, 0.0, 0.0]", "[0.02, -0.01, 0.0, 0.0, 0.0]", "cameras[1].dist: 5 coeff");
    BAD("[-0.05, 0.01, 0.0, 0.0, 0.0]", "[-0.05, 0.01, \"x\"]", "cameras[0].dist[2]: must be a");
    BAD("[-0.05, 0.01, 0.0, 0.0, 0.0]", "-0.05", "cameras[0].dist: must be an array");
    BAD("[-0.05, 0.01, 0.0, 0.0, 0.0]", "[-0.05, 1e999]", "cameras[0].dist[1]: must be a finite");
    BAD("\"yaw\": 35.0", "\"yaw\": \"east\"", "cameras[1].yaw: must be a number");
    BAD("\"roll\": 0.0 }\n  ]", "\"roll\": false }\n  ]", "cameras[1].roll");
    BAD("{ \"name\": \"left\"", "7, { \"name\": \"left\"", "cameras[0]: must be an object");
    /* a fisheye polynomial that folds back before max_theta */
    BAD("[0.02, -0.01, 0.0, 0.0]", "[0.0, -0.2, 0.0, 0.0]", "cameras[1].dist: fisheye");

    /* too many cameras */
    {
        const char *cam = "{\"width\": 64, \"height\": 48, \"model\": \"pinhole\", \"fx\": 50,"
                          " \"fy\": 50, \"cx\": 31.5, \"cy\": 23.5}";
        char *j = malloc(4096);
        REQUIRE(j != NULL);
        for (int n = 16; n <= 17; n++) {
            strcpy(j, "{\"panorama\": {\"projection\": \"cylindrical\", \"width\": 100,"
                      " \"height\": 50, \"hfov\": 90}, \"cameras\": [");
            for (int k = 0; k < n; k++) {
                if (k)
                    strcat(j, ",");
                strcat(j, cam);
            }
            strcat(j, "]}");
            fovea_rig rig;
            char err[256] = "";
            int rc = fv_rig_parse(j, strlen(j), &rig, err, sizeof(err));
            if (n == 16) {
                CHECK_EQ_INT(rc, FOVEA_OK);
                CHECK_EQ_INT(rig.num_cameras, 16);
            } else {
                CHECK(rc < 0 && strstr(err, "cameras: must have 1 to 16 entries"));
            }
        }
        free(j);
    }
}

static void test_validate_and_load(void)
{
    fovea_rig rig;
    char err[256] = "";
    REQUIRE(fv_rig_parse(spec_json, strlen(spec_json), &rig, err, sizeof(err)) == FOVEA_OK);
    CHECK_EQ_INT(fovea_rig_validate(&rig, NULL), FOVEA_OK);
    rig.cameras[1].fy = -1.0;
    CHECK(fovea_rig_validate(&rig, NULL) < 0 && strstr(fovea_last_error(NULL), "cameras[1].fy"));
    rig.cameras[1].fy = 1200.0;
    rig.num_cameras = 0;
    CHECK(fovea_rig_validate(&rig, NULL) < 0 && strstr(fovea_last_error(NULL), "cameras"));
    rig.num_cameras = 2;
    rig.cameras[0].dist[2] = 0.0 / 0.0 * 0.0; /* NaN */
    CHECK(fovea_rig_validate(&rig, NULL) < 0 &&
          strstr(fovea_last_error(NULL), "cameras[0].dist[2]"));

    CHECK_EQ_INT(fv_rig_load("/nonexistent/rig.json", &rig, err, sizeof(err)), FOVEA_ERR_IO);
    CHECK(strstr(err, "/nonexistent/rig.json") != NULL);
    /* a directory: the system's reason, not a bare "read error" (issue 45) */
    CHECK_EQ_INT(fv_rig_load(".", &rig, err, sizeof(err)), FOVEA_ERR_IO);
    CHECK(strstr(err, ".: read error: Is a directory") != NULL);
    /* larger than the 1 MiB limit (valid JSON padded with spaces) */
    size_t big = FOVEA_RIG_FILE_LIMIT + 10;
    char *buf = malloc(big);
    REQUIRE(buf != NULL);
    memset(buf, ' ', big);
    memcpy(buf, spec_json, strlen(spec_json));
    char *path = test_write_tmp(".json", buf, big);
    CHECK(fv_rig_load(path, &rig, err, sizeof(err)) < 0);
    CHECK(strstr(err, "larger than") != NULL);
    free(path);
    /* a malformed file names the file and the field */
    char *bad = subst(spec_json, "\"fx\": 1200.0", "\"fx\": 0");
    path = test_write_tmp(".json", bad, strlen(bad));
    CHECK(fv_rig_load(path, &rig, err, sizeof(err)) < 0);
    CHECK(strstr(err, path) != NULL && strstr(err, "cameras[1].fx") != NULL);
    free(path);
    free(bad);
    free(buf);
}

/* Unknown keys (with the nearest known one), duplicates and NUL characters,
 * at every level of the rig; each used to parse as valid, the misspelt or
 * repeated value silently ignored. */
static void test_keys(void)
{
    /* misspelt, at each level */
    BAD("\"blend\"", "\"blnd\"", "(root): unknown key \"blnd\" (did you mean \"blend\"?)");
    BAD("\"cameras\"", "\"kameras\"",
        "(root): unknown key \"kameras\" (did you mean \"cameras\"?)");
    BAD("\"blend\"", "\"max_teta\": 90, \"blend\"",
        "(root): unknown key \"max_teta\" (did you mean \"max_theta\"?)");
    BAD("\"hfov\"", "\"hvof\"", "panorama: unknown key \"hvof\" (did you mean \"hfov\"?)");
    BAD("\"projection\"", "\"projektion\"",
        "panorama: unknown key \"projektion\" (did you mean \"projection\"?)");
    BAD("\"feather\"", "\"fether\"", "blend: unknown key \"fether\" (did you mean \"feather\"?)");
    BAD("\"dist\": [0.02", "\"distortion\": [0.02",
        "cameras[1]: unknown key \"distortion\" (did you mean \"dist\"?)");
    BAD("\"roll\": 0.0 }\n  ]", "\"rol\": 0.0 }\n  ]",
        "cameras[1]: unknown key \"rol\" (did you mean \"roll\"?)");
    /* a case-insensitive match is preferred to closer spellings */
    BAD("\"yaw\": 35.0", "\"Yaw\": 35.0",
        "cameras[1]: unknown key \"Yaw\" (did you mean \"yaw\"?)");
    BAD("\"panorama\"", "\"Panorama\"",
        "(root): unknown key \"Panorama\" (did you mean \"panorama\"?)");
    BAD("\"fx\": 2132.0", "\"FX\": 2132.0",
        "cameras[0]: unknown key \"FX\" (did you mean \"fx\"?)");
    /* nothing near: the known keys are listed */
    BAD("\"feather\"", "\"width\"", "blend: unknown key \"width\" (known keys: feather)");
    BAD("\"name\": \"left\"", "\"focal\": 1, \"name\": \"left\"",
        "cameras[0]: unknown key \"focal\" (known keys: name, model, lens, width, height, fx, fy, cx, "
        "cy, dist, yaw, pitch, roll, photometric)");
    /* no comment keys: JSON has no comments, and an ignored key is a typo */
    BAD("\"blend\"", "\"comment\": \"test rig\", \"blend\"", "(root): unknown key \"comment\"");
    BAD("\"blend\"", "\"_note\": 1, \"blend\"", "(root): unknown key \"_note\"");
    /* odd bytes are shown escaped */
    BAD("\"feather\"", "\"fe\\\"a\\u00e9\\tther\"",
        "blend: unknown key \"fe\\\"a\\xc3\\xa9\\x09ther\"");

    /* duplicates: cJSON keeps both members, the parser used the first */
    BAD("\"feather\": 64", "\"feather\": 64, \"feather\": 8", "blend: duplicate key \"feather\"");
    BAD("\"yaw\": 35.0", "\"yaw\": 35.0, \"yaw\": 40", "cameras[1]: duplicate key \"yaw\"");
    BAD("\"hfov\": 150.0", "\"hfov\": 150.0, \"hfov\": 150.0", "panorama: duplicate key \"hfov\"");
    BAD("\"blend\"", "\"cameras\": [], \"blend\"", "(root): duplicate key \"cameras\"");

    /* NUL in a key or a string: cJSON cuts the string there ("ya" for "ya\u0000w") */
    BAD("\"yaw\": -35.0", "\"ya\\u0000w\": -35.0",
        "the key at line 9, column 7 contains a NUL character (\\u0000)");
    BAD("\"name\": \"left\"", "\"name\": \"le\\u0000ft\"",
        "the string at line 6, column 15 contains a NUL character (\\u0000)");
    BAD("\"name\": \"left\"", "\"na\\u0000\": 1, \"name\": \"left\"",
        "the key at line 6, column 7 contains a NUL character");
    {
        /* a raw NUL byte inside a string */
        char *j = subst(spec_json, "\"left\"", "\"le@ft\"");
        size_t n = strlen(j);
        *strchr(j, '@') = '\0';
        fovea_rig rig;
        char err[512] = "";
        CHECK(fv_rig_parse(j, n, &rig, err, sizeof(err)) < 0);
        CHECK(strstr(err, "the string at line 6, column 15 contains a NUL character") != NULL);
        free(j);
    }
    /* an escaped backslash before u0000 is no NUL; neither is \u0000 outside a string */
    {
        char *j = subst(spec_json, "\"left\"", "\"le\\\\u0000ft\"");
        fovea_rig rig;
        char err[512] = "";
        CHECK_EQ_INT(fv_rig_parse(j, strlen(j), &rig, err, sizeof(err)), FOVEA_OK);
        CHECK(strcmp(rig.cameras[0].name, "le\\u0000ft") == 0);
        free(j);
    }
    /* a raw NUL byte outside strings is refused with its offset: text after one
     * used to be ignored, one between tokens read as a space (issue 45) */
    {
        const size_t n = strlen(spec_json);
        char *j = malloc(n + 16);
        REQUIRE(j != NULL);
        memcpy(j, spec_json, n);
        memcpy(j + n, "\n\0{\"x\": 1}", 10);
        fovea_rig rig;
        char err[512] = "", want[64];
        CHECK(fv_rig_parse(j, n + 10, &rig, err, sizeof(err)) < 0);
        snprintf(want, sizeof(want), "a NUL byte at byte offset %zu ", n + 1);
        CHECK(strstr(err, want) != NULL);
        /* the same in a file: the message names it */
        char *path = test_write_tmp(".json", j, n + 10);
        CHECK(fv_rig_load(path, &rig, err, sizeof(err)) == FOVEA_ERR_CORRUPT);
        CHECK(strstr(err, path) != NULL && strstr(err, want) != NULL);
        if (!strstr(err, want))
            fprintf(stderr, "rig with text after a NUL: %s\n", err);
        remove(path);
        free(path);
        free(j);
        /* between tokens */
        char *k = subst(spec_json, "\"yaw\": -35.0", "\"yaw\":@-35.0");
        const size_t at = (size_t)(strchr(k, '@') - k);
        const size_t kn = strlen(k);
        k[at] = '\0';
        CHECK(fv_rig_parse(k, kn, &rig, err, sizeof(err)) < 0);
        snprintf(want, sizeof(want), "a NUL byte at byte offset %zu (line 9, column 13)", at);
        CHECK(strstr(err, want) != NULL);
        if (!strstr(err, want))
            fprintf(stderr, "rig with a NUL between tokens: %s\n", err);
        free(k);
    }
    /* the text after the document may end in NUL bytes (a C string's terminator) */
    {
        fovea_rig rig;
        char err[512] = "";
        CHECK_EQ_INT(fv_rig_parse(spec_json, strlen(spec_json) + 1, &rig, err, sizeof(err)),
                     FOVEA_OK);
    }
}

/* The fuzz corpus: each file loads, or fails naming what its name says. */
static void test_corpus(void)
{
    static const struct {
        const char *file, *want; /* want NULL: loads */
    } cases[] = {
        {"valid_spec.json", NULL},
        {"valid_cylindrical_minimal.json", NULL},
        {"valid_negative_zero.json", NULL},
        {"binary_name.json", NULL},
        {"long_number_roundtrip.json", NULL},
        {"cameras17.json", "cameras: must have 1 to 16 entries (has 17)"},
        {"deep_nesting.json", "invalid JSON near line 1"},
        {"dist_too_long.json", "cameras[1].dist: 5 coefficients"},
        {"fisheye_fold.json", "cameras[1].dist: fisheye image radius stops growing"},
        {"inf_fx.json", "cameras[1].fx: must be a finite number"},
        {"nan_hfov.json", "invalid JSON near line 3"},
        {"pano_too_wide.json", "panorama.width: must be an integer in [1, 16384] (got 16385)"},
        {"truncated.json", "invalid JSON near line 7"},
        {"unknown_model.json", "cameras[1].model: unknown model 'fishye'"},
        {"key_typo_feather.json", "blend: unknown key \"fether\" (did you mean \"feather\"?)"},
        {"key_case_yaw.json", "cameras[1]: unknown key \"Yaw\" (did you mean \"yaw\"?)"},
        {"key_duplicate.json", "panorama: duplicate key \"width\""},
        {"key_nul.json", "the key at line 2, column 106 contains a NUL character"},
    };
    char path[2048], err[512];
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/rig/%s", test_source_dir(),
                 cases[k].file);
        fovea_rig rig;
        err[0] = '\0';
        int rc = fv_rig_load(path, &rig, err, sizeof(err));
        int ok = cases[k].want ? rc < 0 && strstr(err, cases[k].want) != NULL &&
                                     strstr(err, cases[k].file) != NULL
                               : rc == FOVEA_OK;
        if (!ok) {
            fprintf(stderr, "%s: rc %d \"%s\", wanted %s\n", cases[k].file, rc, err,
                    cases[k].want ? cases[k].want : "success");
            test_failures++;
        }
    }
}

int main(void)
{
    test_corpus();
    test_spec_example();
    test_defaults();
    test_malformed();
    test_validate_and_load();
    test_keys();
    return test_finish("test_stitch_rig");
}
