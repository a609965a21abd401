/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea track` end to end: on golden case a (KLT's example images) the JSON
 * output must hold exactly the numbers of expected.txt after each replacement;
 * sequential mode and threads give the same; text table, overlays and usage
 * errors. Skips without the golden data or the CLI. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "fovea/io.h"
#include "testutil.h"

static int run(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Compare the JSON frames with the select / replace records of expected.txt. */
static int check_json(const char *json_path, const char *expected_path)
{
    char *js = test_read_text(json_path);
    char *ex = test_read_text(expected_path);
    if (!js || !ex) {
        free(js);
        free(ex);
        return 0;
    }
    cJSON *root = cJSON_Parse(js);
    cJSON *frames = cJSON_GetObjectItem(root, "frames");
    int ok = cJSON_IsArray(frames) && cJSON_GetArraySize(frames) == 10, compared = 0;
    char *save = NULL;
    for (char *line = strtok_r(ex, "\n", &save); ok && line; line = strtok_r(NULL, "\n", &save)) {
        int frame, idx, val;
        char stage[16];
        float x, y;
        if (line[0] == '#' ||
            sscanf(line, "%d %15s %d %f %f %d", &frame, stage, &idx, &x, &y, &val) != 6)
            continue;
        if (strcmp(stage, "track") == 0)
            continue;
        cJSON *f = cJSON_GetArrayItem(
            cJSON_GetObjectItem(cJSON_GetArrayItem(frames, frame), "features"), idx);
        if (!f || (float)cJSON_GetArrayItem(f, 0)->valuedouble != x ||
            (float)cJSON_GetArrayItem(f, 1)->valuedouble != y ||
            cJSON_GetArrayItem(f, 2)->valueint != val) {
            fprintf(stderr, "%s: frame %d slot %d differs from expected\n", json_path, frame, idx);
            ok = 0;
        }
        compared++;
    }
    cJSON_Delete(root);
    free(js);
    free(ex);
    return ok && compared == 1500;
}

int main(void)
{
    const char *root = test_golden_dir("klt");
    const char *cli = getenv("FOVEA_CLI");
    if (!root || !cli || !*cli) {
        printf("test_klt_cli: golden data or CLI not available, skipping\n");
        return TEST_SKIP;
    }
    char dir[4200], frames[8192] = "", cmd[16384], expected[4300];
    snprintf(dir, sizeof dir, "%s/a_default_replace", root);
    snprintf(expected, sizeof expected, "%s/expected.txt", dir);
    for (int i = 0; i < 10; i++) {
        size_t n = strlen(frames);
        snprintf(frames + n, sizeof frames - n, " '%s/img%d.pgm'", dir, i);
    }
    char *json = test_tmp_path(".json");
    char *json2 = test_tmp_path(".json");
    char *txt = test_tmp_path(".txt");
    char *y4m = test_tmp_path(".y4m");

    /* the frames as a list; --backend cpu: KLT's exact slots (the CUDA backend
     * may order features of equal value differently, see docs/klt.md) */
    snprintf(cmd, sizeof cmd,
             "'%s' track -q --backend cpu --replace --json '%s' -o '%s' --overlay '%s'%s", cli,
             json, txt, y4m, frames);
    CHECK_EQ_INT(run(cmd), 0);
    CHECK(check_json(json, expected));
    char *t = test_read_text(txt);
    CHECK(t && strstr(t, "KLT Feature Table\n") && strstr(t, "nFrames = 10, nFeatures = 150"));
    CHECK(t && strstr(t, "      0 | (  86.00,  71.00)=30785 (  81.30,  70.94)=    0"));
    free(t);
    char *v = test_read_text(y4m);
    CHECK(v && strncmp(v, "YUV4MPEG2 W320 H240", 19) == 0);
    free(v);

    /* a quoted glob, sequential mode, threads: the same numbers */
    snprintf(cmd, sizeof cmd,
             "'%s' track -q --backend cpu --replace --sequential --threads 3 --json '%s' "
             "'%s/img?.pgm'",
             cli, json2, dir);
    CHECK_EQ_INT(run(cmd), 0);
    CHECK(check_json(json2, expected));

    /* the same frames as a gray y4m video (its luma is tracked) */
    char *vid = test_tmp_path(".y4m");
    fovea_writer *w = NULL;
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = 320;
    info.height = 240;
    info.fmt = FOVEA_PIX_GRAY8;
    info.fps_num = 25;
    info.fps_den = 1;
    REQUIRE(fovea_writer_open(&w, NULL, vid, FOVEA_CONTAINER_Y4M, &info) == FOVEA_OK);
    for (int i = 0; i < 10; i++) {
        char path[4300];
        snprintf(path, sizeof path, "%s/img%d.pgm", dir, i);
        fovea_reader *r = NULL;
        REQUIRE(fovea_reader_open(&r, NULL, path, NULL) == FOVEA_OK);
        fovea_frame f;
        memset(&f, 0, sizeof f);
        REQUIRE(fovea_reader_read(r, &f) == FOVEA_OK);
        CHECK_EQ_INT(fovea_writer_write(w, &f), FOVEA_OK);
        fovea_frame_free(NULL, &f);
        fovea_reader_close(&r);
    }
    CHECK_EQ_INT(fovea_writer_finish(w), FOVEA_OK);
    fovea_writer_close(&w);
    snprintf(cmd, sizeof cmd, "'%s' track -q --backend cpu --replace --json '%s' '%s'", cli, json2,
             vid);
    CHECK_EQ_INT(run(cmd), 0);
    CHECK(check_json(json2, expected));
    /* the default backend (CUDA where a device is present) runs the same job */
    snprintf(cmd, sizeof cmd, "'%s' track -q --replace --json '%s' '%s'", cli, json2, vid);
    CHECK_EQ_INT(run(cmd), 0);
    t = test_read_text(json2);
    CHECK(t && strstr(t, "\"frames\""));
    free(t);
    free(vid);

    /* usage errors */
    snprintf(cmd, sizeof cmd, "'%s' track -q --window 4%s > /dev/null 2>&1", cli, frames);
    CHECK_EQ_INT(run(cmd), 2);
    snprintf(cmd, sizeof cmd, "'%s' track -q --affine 5%s > /dev/null 2>&1", cli, frames);
    CHECK_EQ_INT(run(cmd), 2);
    snprintf(cmd, sizeof cmd, "'%s' track -q > /dev/null 2>&1", cli);
    CHECK_EQ_INT(run(cmd), 2);
    snprintf(cmd, sizeof cmd, "'%s' track -q '%s/nothing*.pgm' > /dev/null 2>&1", cli, dir);
    CHECK_EQ_INT(run(cmd), 1);

    free(json);
    free(json2);
    free(txt);
    free(y4m);
    return test_finish("test_klt_cli");
}
