/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Per-camera color corrections as JSON (fovea_color_corrections_from_json /
 * _to_json): round trips, what is ignored, and every malformed input named by
 * its field. The fuzz corpus (tests/fuzz/corpus/color) is checked here too:
 * each file fails for the reason its name gives, or parses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/stitch.h"
#include "testutil.h"

static void test_round_trip(void)
{
    fovea_color_correction cc[3] = {{{0.5f, 1.0f, 2.0f}, 0.7f},
                                    {{1.0f / 3.0f, 1.1f, 0.9999999f}, 1.4f},
                                    {{1e-30f, 1e6f, 1.0f}, 1e-40f}}; /* tiny, max, denormal */
    char *s = fovea_color_corrections_to_json(cc, 3);
    REQUIRE(s != NULL);
    fovea_color_correction back[3];
    memset(back, 0, sizeof(back));
    CHECK_EQ_INT(fovea_color_corrections_from_json(NULL, s, strlen(s), 3, back), FOVEA_OK);
    CHECK(memcmp(cc, back, sizeof(cc)) == 0);
    /* the text need not be NUL-terminated: only len bytes are read */
    size_t len = strlen(s);
    char *copy = malloc(len);
    REQUIRE(copy != NULL);
    memcpy(copy, s, len);
    CHECK_EQ_INT(fovea_color_corrections_from_json(NULL, copy, len, 3, back), FOVEA_OK);
    CHECK(memcmp(cc, back, sizeof(cc)) == 0);
    /* one byte short is not JSON any more */
    CHECK_EQ_INT(fovea_color_corrections_from_json(NULL, copy, len - 3, 3, back),
                 FOVEA_ERR_CORRUPT);
    free(copy);
    /* another camera count */
    CHECK_EQ_INT(fovea_color_corrections_from_json(NULL, s, strlen(s), 2, back),
                 FOVEA_ERR_MISMATCH);
    CHECK(strstr(fovea_last_error(NULL), "has 3 entries, the map has 2 cameras") != NULL);
    free(s);
    CHECK(fovea_color_corrections_to_json(cc, 0) == NULL);
    CHECK(fovea_color_corrections_to_json(NULL, 1) == NULL);

    /* other keys (a `fovea stitch --json` summary) are ignored */
    const char *summary = "{\"frames\": 3, \"backend\": \"cpu\", \"cameras\": [{\"index\": 0, "
                          "\"gain\": [1.25, 1, 0.75], \"gamma\": 1.125, \"extra\": null}]}";
    fovea_color_correction one;
    CHECK_EQ_INT(fovea_color_corrections_from_json(NULL, summary, strlen(summary), 1, &one),
                 FOVEA_OK);
    CHECK(one.gain[0] == 1.25f && one.gain[1] == 1.0f && one.gain[2] == 0.75f &&
          one.gamma == 1.125f);
}

static void test_malformed(void)
{
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"", "invalid JSON"},
        {"{\"cameras\": [", "invalid JSON"},
        {"[1, 2]", "(root): must be an object"},
        {"{}", "cameras: missing required field"},
        {"{\"cameras\": {}}", "cameras: must be an array"},
        {"{\"cameras\": [1]}", "cameras[0]: must be an object"},
        {"{\"cameras\": [{\"gamma\": 1}]}", "cameras[0].gain: missing required field"},
        {"{\"cameras\": [{\"gain\": [1, 1], \"gamma\": 1}]}",
         "cameras[0].gain: must be an array of 3"},
        {"{\"cameras\": [{\"gain\": 1, \"gamma\": 1}]}", "cameras[0].gain: must be an array of 3"},
        {"{\"cameras\": [{\"gain\": [1, \"1\", 1], \"gamma\": 1}]}",
         "cameras[0].gain[1]: must be a number > 0"},
        {"{\"cameras\": [{\"gain\": [1, 1, 0], \"gamma\": 1}]}",
         "cameras[0].gain[2]: must be a number > 0"},
        {"{\"cameras\": [{\"gain\": [-1, 1, 1], \"gamma\": 1}]}", "cameras[0].gain[0]:"},
        {"{\"cameras\": [{\"gain\": [1, 1, 1e999], \"gamma\": 1}]}", "cameras[0].gain[2]:"},
        {"{\"cameras\": [{\"gain\": [1, 1, 1e-50], \"gamma\": 1}]}", "cameras[0].gain[2]:"},
        {"{\"cameras\": [{\"gain\": [1, 1, 1]}]}", "cameras[0].gamma: missing required field"},
        {"{\"cameras\": [{\"gain\": [1, 1, 1], \"gamma\": 2e6}]}",
         "cameras[0].gamma: must be a number > 0 and <= 1e+06"},
        {"{\"cameras\": [{\"gain\": [1, 1, 1], \"gamma\": null}]}", "cameras[0].gamma:"},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        fovea_color_correction cc = {{7.0f, 7.0f, 7.0f}, 7.0f};
        int rc =
            fovea_color_corrections_from_json(NULL, cases[k].json, strlen(cases[k].json), 1, &cc);
        if (rc != FOVEA_ERR_CORRUPT || !strstr(fovea_last_error(NULL), cases[k].want) ||
            cc.gamma != 7.0f || cc.gain[0] != 7.0f) {
            fprintf(stderr, "case %zu %s: rc %d \"%s\", wanted \"%s\", output untouched\n", k,
                    cases[k].json, rc, fovea_last_error(NULL), cases[k].want);
            test_failures++;
        }
    }
    fovea_color_correction cc;
    CHECK_EQ_INT(fovea_color_corrections_from_json(NULL, NULL, 0, 1, &cc), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_color_corrections_from_json(NULL, "{}", 2, 0, &cc), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(
        fovea_color_corrections_from_json(NULL, "{}", 2, FOVEA_STITCH_MAX_CAMERAS + 1, &cc),
        FOVEA_ERR_INVALID_ARG);
}

/* Fuzz corpus: a file named bad_<why>.json fails with <why> (underscores as
 * spaces) in the message; any other file parses. Camera count: 2. */
static void test_corpus(void)
{
    static const struct {
        const char *file, *want;
    } cases[] = {
        {"two_cameras.json", NULL},
        {"summary.json", NULL},
        {"extremes.json", NULL},
        {"bad_zero_gain.json", "cameras[1].gain[0]: must be a number > 0"},
        {"bad_string.json", "cameras[0].gamma: must be a number"},
        {"bad_count.json", "has 3 entries, the map has 2 cameras"},
        {"bad_truncated.json", "invalid JSON"},
    };
    char path[2048];
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/color/%s", test_source_dir(),
                 cases[k].file);
        FILE *fp = fopen(path, "rb");
        if (!fp) {
            fprintf(stderr, "cannot open %s\n", path);
            test_failures++;
            continue;
        }
        char buf[4096];
        size_t n = fread(buf, 1, sizeof(buf), fp);
        fclose(fp);
        fovea_color_correction cc[2];
        int rc = fovea_color_corrections_from_json(NULL, buf, n, 2, cc);
        int ok = cases[k].want ? rc < 0 && strstr(fovea_last_error(NULL), cases[k].want) != NULL
                               : rc == FOVEA_OK;
        if (!ok) {
            fprintf(stderr, "%s: rc %d \"%s\", wanted %s\n", cases[k].file, rc,
                    fovea_last_error(NULL), cases[k].want ? cases[k].want : "success");
            test_failures++;
        }
    }
}

int main(void)
{
    test_round_trip();
    test_malformed();
    test_corpus();
    return test_finish("test_stitch_color_json");
}
