/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The live page's camera controls (tools/live_camera.c) against the fake
 * V4L2 device of tests/live/fake_v4l2.c (LD_PRELOAD, set by ctest with
 * FOVEA_FAKE_V4L2=its path): what is read, clamping to the step, the
 * refusals (missing, read-only, inactive, EBUSY), the old-driver query, a
 * camera unplugged mid-run; and the state message built from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live_camera.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static const char *fake, *log_path;

/* the last S_CTRL the fake device got, "name value", or "" */
static void last_set(char *out, size_t n)
{
    char line[128] = "";
    out[0] = 0;
    FILE *fp = fopen(log_path, "r");
    if (!fp)
        return;
    while (fgets(line, sizeof line, fp))
        snprintf(out, n, "%s", line);
    fclose(fp);
    out[strcspn(out, "\n")] = 0;
}

static void expect_set(live_camera *cam, int id, int value, int applied, const char *logged)
{
    char err[256] = "", got[128];
    int a = -1;
    const int rc = live_camera_set(cam, id, value, &a, err, sizeof err);
    CHECK(rc == 0, "set %s %d: %s", live_camera_names[id], value, err);
    CHECK(a == applied, "set %s %d: applied %d, %d expected", live_camera_names[id], value, a,
          applied);
    last_set(got, sizeof got);
    CHECK(strcmp(got, logged) == 0, "set %s %d: the device got \"%s\", \"%s\" expected",
          live_camera_names[id], value, got, logged);
}

static void expect_refused(live_camera *cam, int id, int value, const char *why)
{
    char err[256] = "";
    const int rc = live_camera_set(cam, id, value, NULL, err, sizeof err);
    CHECK(rc < 0, "set %s %d: taken, refusal expected", live_camera_names[id], value);
    CHECK(strstr(err, why) && strstr(err, fake), "set %s %d: \"%s\" does not say \"%s\"",
          live_camera_names[id], value, err, why);
}

static void opening(void)
{
    live_camera *cam = NULL;
    char err[256] = "";
    CHECK(live_camera_open(&cam, "/nonexistent/video9", err, sizeof err) < 0 && !cam,
          "a missing device opened");
    CHECK(strstr(err, "/nonexistent/video9: No such file"), "missing device: \"%s\"", err);
    CHECK(live_camera_open(&cam, "/dev/null", err, sizeof err) < 0 && !cam,
          "/dev/null opened as a camera");
    CHECK(strstr(err, "not a V4L2 device"), "/dev/null: \"%s\"", err);
    live_camera_close(&cam); /* NULL is fine */
}

static void reading(live_camera *cam, const char *what)
{
    live_camera_state st;
    CHECK(live_camera_read(cam, &st) == 0, "%s: read: %s", what, st.error);
    const live_camera_control *b = &st.ctl[LIVE_CAM_BRIGHTNESS], *c = &st.ctl[LIVE_CAM_CONTRAST];
    CHECK(b->available && b->min == 0 && b->max == 255 && b->step == 1 && b->def == 128 &&
              b->flags == 0,
          "%s: brightness %d %d..%d/%d def %d flags %u", what, b->available, b->min, b->max,
          b->step, b->def, b->flags);
    CHECK(c->available && c->max == 100 && c->step == 5, "%s: contrast step %d", what, c->step);
    CHECK(st.ctl[LIVE_CAM_SATURATION].flags == LIVE_CAM_READ_ONLY, "%s: saturation flags %u", what,
          st.ctl[LIVE_CAM_SATURATION].flags);
    CHECK(!st.ctl[LIVE_CAM_AUTOGAIN].available, "%s: autogain available", what);
    CHECK(st.ctl[LIVE_CAM_GAIN].available && st.ctl[LIVE_CAM_GAIN].flags == 0, "%s: gain", what);
    CHECK(st.ctl[LIVE_CAM_WHITE_BALANCE_AUTO].available &&
              st.ctl[LIVE_CAM_WHITE_BALANCE_AUTO].value == 1,
          "%s: white balance auto", what);
}

static void controls(live_camera *cam)
{
    live_camera_state st;
    reading(cam, "first read");
    live_camera_read(cam, &st);
    CHECK(st.ctl[LIVE_CAM_BRIGHTNESS].value == 128, "brightness %d",
          st.ctl[LIVE_CAM_BRIGHTNESS].value);
    /* auto exposure on (aperture priority): exposure is inactive */
    CHECK(st.ctl[LIVE_CAM_EXPOSURE_AUTO].available && st.ctl[LIVE_CAM_EXPOSURE_AUTO].value == 1 &&
              st.ctl[LIVE_CAM_EXPOSURE_AUTO].max == 1,
          "exposure_auto value %d", st.ctl[LIVE_CAM_EXPOSURE_AUTO].value);
    CHECK(st.ctl[LIVE_CAM_EXPOSURE].flags == LIVE_CAM_INACTIVE, "exposure flags %u",
          st.ctl[LIVE_CAM_EXPOSURE].flags);

    expect_set(cam, LIVE_CAM_BRIGHTNESS, 140, 140, "S_CTRL brightness 140");
    live_camera_read(cam, &st);
    CHECK(st.ctl[LIVE_CAM_BRIGHTNESS].value == 140, "brightness read back %d",
          st.ctl[LIVE_CAM_BRIGHTNESS].value);
    expect_set(cam, LIVE_CAM_BRIGHTNESS, 300, 255, "S_CTRL brightness 255");
    expect_set(cam, LIVE_CAM_BRIGHTNESS, -7, 0, "S_CTRL brightness 0");
    expect_set(cam, LIVE_CAM_CONTRAST, 52, 50, "S_CTRL contrast 50");
    expect_set(cam, LIVE_CAM_CONTRAST, 53, 55, "S_CTRL contrast 55");
    expect_set(cam, LIVE_CAM_CONTRAST, 99, 100, "S_CTRL contrast 100");
    expect_set(cam, LIVE_CAM_WHITE_BALANCE_AUTO, 7, 1, "S_CTRL white_balance_auto 1");

    expect_refused(cam, LIVE_CAM_SATURATION, 10, "saturation is read-only");
    expect_refused(cam, LIVE_CAM_AUTOGAIN, 1, "has no autogain control");
    expect_refused(cam, LIVE_CAM_EXPOSURE, 100, "exposure is inactive");
    expect_refused(cam, LIVE_CAM_GAIN, 20, "gain: the device is busy");

    /* manual exposure: exposure becomes active and takes values */
    expect_set(cam, LIVE_CAM_EXPOSURE_AUTO, 0, 0, "S_CTRL exposure_auto 1");
    live_camera_read(cam, &st);
    CHECK(st.ctl[LIVE_CAM_EXPOSURE].flags == 0 && st.ctl[LIVE_CAM_EXPOSURE_AUTO].value == 0,
          "manual exposure: exposure flags %u, auto %d", st.ctl[LIVE_CAM_EXPOSURE].flags,
          st.ctl[LIVE_CAM_EXPOSURE_AUTO].value);
    expect_set(cam, LIVE_CAM_EXPOSURE, 5000, 2047, "S_CTRL exposure 2047");
    /* and back to the device's auto mode (aperture priority: menu item 3) */
    expect_set(cam, LIVE_CAM_EXPOSURE_AUTO, 1, 1, "S_CTRL exposure_auto 3");

    /* the state message: camera true, the list, the flags */
    live_controls c = {3, 0, 300, 0, 0, 0, {0}};
    live_camera_read(cam, &st);
    char *s = live_state_json(&c, &st, "control", 2);
    CHECK(s && strstr(s, "\"camera\":true") &&
              strstr(s, "{\"name\":\"autogain\",\"kind\":\"bool\",\"available\":false,"
                        "\"settable\":false}") &&
              strstr(s, "\"name\":\"saturation\",\"kind\":\"int\",\"available\":true,"
                        "\"settable\":false") &&
              strstr(s, "\"flags\":[\"read_only\"]") && strstr(s, "\"flags\":[\"inactive\"]") &&
              !strstr(s, "camera_error"),
          "state: %s", s ? s : "(null)");
    free(s);
}

/* a driver without VIDIOC_QUERY_EXT_CTRL: the same controls through
 * VIDIOC_QUERYCTRL */
static void old_driver(void)
{
    live_camera *cam = NULL;
    char err[256] = "";
    setenv("FOVEA_FAKE_V4L2_NO_EXT", "1", 1);
    CHECK(live_camera_open(&cam, fake, err, sizeof err) == 0, "open: %s", err);
    if (cam) {
        reading(cam, "old driver");
        expect_set(cam, LIVE_CAM_BRIGHTNESS, 77, 77, "S_CTRL brightness 77");
    }
    live_camera_close(&cam);
    unsetenv("FOVEA_FAKE_V4L2_NO_EXT");
}

/* unplugged after a few calls: read and set say so, nothing crashes, the
 * state message greys everything out with the reason */
static void unplugged(void)
{
    live_camera *cam = NULL;
    char err[256] = "";
    live_camera_state st;
    setenv("FOVEA_FAKE_V4L2_GONE_AFTER", "6", 1);
    CHECK(live_camera_open(&cam, fake, err, sizeof err) == 0, "open: %s", err);
    if (!cam)
        return;
    CHECK(live_camera_read(cam, &st) < 0 && strstr(st.error, "the camera is gone"),
          "unplugged: read gave \"%s\"", st.error);
    for (int i = 0; i < LIVE_CAM_COUNT; i++)
        CHECK(!st.ctl[i].available, "unplugged: %s available", live_camera_names[i]);
    expect_refused(cam, LIVE_CAM_BRIGHTNESS, 10, "the camera is gone");
    CHECK(live_camera_read(cam, &st) < 0, "unplugged: a second read worked");
    live_controls c = {0};
    char *s = live_state_json(&c, &st, "view", 1);
    CHECK(s && strstr(s, "\"camera_error\":\"") && !strstr(s, "\"available\":true"), "state: %s",
          s ? s : "(null)");
    free(s);
    live_camera_close(&cam);
    unsetenv("FOVEA_FAKE_V4L2_GONE_AFTER");
}

/* camera fields of the control message: taken whole or refused whole */
static void parsing(void)
{
    static const struct {
        const char *msg;
        int ok;
        unsigned mask;
        int brightness, exposure_auto;
    } cases[] = {
        {"{\"type\":\"control\",\"camera\":{\"brightness\":140,\"exposure_auto\":false}}", 1,
         1u << LIVE_CAM_BRIGHTNESS | 1u << LIVE_CAM_EXPOSURE_AUTO, 140, 0},
        {"{\"type\":\"control\",\"camera\":{\"brightness\":-2147483648}}", 1,
         1u << LIVE_CAM_BRIGHTNESS, -2147483647 - 1, 0},
        {"{\"type\":\"control\",\"camera\":{}}", 1, 0, 0, 0},
        {"{\"type\":\"control\",\"camera\":{\"hue\":3}}", 0, 0, 0, 0},
        {"{\"type\":\"control\",\"camera\":{\"autogain\":1}}", 0, 0, 0, 0},
        {"{\"type\":\"control\",\"camera\":{\"gain\":true}}", 0, 0, 0, 0},
        {"{\"type\":\"control\",\"camera\":{\"gain\":1.5}}", 0, 0, 0, 0},
        {"{\"type\":\"control\",\"camera\":{\"gain\":2147483648}}", 0, 0, 0, 0},
        {"{\"type\":\"control\",\"camera\":{\"gain\":1,\"gain\":2}}", 0, 0, 0, 0},
        {"{\"type\":\"control\",\"camera\":[1]}", 0, 0, 0, 0},
        {"{\"type\":\"control\",\"threshold\":4,\"camera\":{\"contrast\":7,\"x\":1}}", 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        live_controls c = {5, 0, 300, 0, 0, 1u << LIVE_CAM_GAIN, {0}};
        const live_controls before = c;
        int set = 0;
        char err[160] = "";
        const int rc =
            live_control_parse(cases[i].msg, strlen(cases[i].msg), &c, &set, err, sizeof err);
        if (!cases[i].ok) {
            CHECK(rc < 0 && set == 0 && memcmp(&c, &before, sizeof c) == 0 && err[0],
                  "%s: taken (or changed something)", cases[i].msg);
            continue;
        }
        CHECK(rc == 0, "%s: refused: %s", cases[i].msg, err);
        CHECK(c.camera_set == cases[i].mask && !(set & LIVE_SET_CAMERA) == !cases[i].mask,
              "%s: mask %x set %x", cases[i].msg, c.camera_set, (unsigned)set);
        if (cases[i].mask & (1u << LIVE_CAM_BRIGHTNESS))
            CHECK(c.camera[LIVE_CAM_BRIGHTNESS] == cases[i].brightness, "%s: brightness %d",
                  cases[i].msg, c.camera[LIVE_CAM_BRIGHTNESS]);
        if (cases[i].mask & (1u << LIVE_CAM_EXPOSURE_AUTO))
            CHECK(c.camera[LIVE_CAM_EXPOSURE_AUTO] == cases[i].exposure_auto, "%s: exposure_auto",
                  cases[i].msg);
    }
    /* not a camera: "camera": false and no list */
    live_controls c = {0};
    char *s = live_state_json(&c, NULL, "view", 1);
    CHECK(s && strstr(s, "\"camera\":false") && !strstr(s, "camera_controls"), "%s", s);
    free(s);
    s = live_error_json("a \"quoted\" reason");
    CHECK(s && strcmp(s, "{\"type\":\"error\",\"message\":\"a \\\"quoted\\\" reason\"}") == 0, "%s",
          s);
    free(s);
}

int main(void)
{
    parsing();
    fake = getenv("FOVEA_FAKE_V4L2");
    log_path = getenv("FOVEA_FAKE_V4L2_LOG");
    if (!fake || !log_path) {
        if (failures)
            return 1;
        printf("SKIP: run with the fake device: LD_PRELOAD=libfake_v4l2.so FOVEA_FAKE_V4L2=PATH "
               "FOVEA_FAKE_V4L2_LOG=FILE (ctest does)\n");
        return 77;
    }
    remove(log_path);
    opening();
    live_camera *cam = NULL;
    char err[256] = "";
    if (live_camera_open(&cam, fake, err, sizeof err) < 0) {
        fprintf(stderr, "FAIL: the fake device %s: %s (is LD_PRELOAD set?)\n", fake, err);
        return 1;
    }
    controls(cam);
    live_camera_close(&cam);
    old_driver();
    unplugged();
    if (failures)
        fprintf(stderr, "FAIL: %d checks\n", failures);
    else
        printf("ok\n");
    return failures ? 1 : 0;
}
