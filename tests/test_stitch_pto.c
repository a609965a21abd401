/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Hugin project import (src/stitch/pto.c): values and conventions of a valid
 * project, back-references, the p line's crop, and a clear refusal (line, field,
 * status) of malformed, truncated, oversized and unsupported input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/rig.h"
#include "testutil.h"

#define P_LINE "p f2 w4000 h2000 v360 E0 R0 n\"TIFF_m c:LZW r:CROP\"\n"

static const char *good =
    "# hugin project file\n"
    "#hugin_ptoversion 2\n" P_LINE "m i0\n"
    "\n"
    "# image lines\n"
    "#-hugin  cropFactor=1\n"
    "i w3000 h2000 f0 v70 Ra0 Rb0 Rc0 Rd0 Re0 Eev0 Er1 Eb1 r1.5 p-2 y30 TrX0 TrY0 TrZ0 Tpy0 "
    "Tpp0 j0 a0.01 b-0.02 c0.005 d3 e-2 g0.5 t-0.25 Va1 Vb0 Vc0 Vd0 Vx0 Vy0 Vm5 "
    "n\"/home/u/photos/left.jpg\"\n"
    "i w3000 h2000 f0 v=0 Ra=0 Rb=0 Rc=0 Rd=0 Re=0 Eev0 Er1 Eb1 r0 p0 y-30 TrX0 TrY0 TrZ0 "
    "Tpy0 Tpp0 j0 a=0 b=0 c=0 d=0 e=0 g=0 t=0 Va=0 Vb=0 Vc=0 Vd=0 Vx=0 Vy=0 Vm5 n\"right.jpg\"\n"
    "\n"
    "# specify variables that should be optimized\n"
    "v y1\nv\n"
    "c n0 N1 x100 y200 X300 Y400 t0\n"
    "k i0 t0 p\"10 10 20 10 20 20\"\n";

static void test_good(void)
{
    fovea_rig *rig = NULL;
    REQUIRE(fovea_rig_open_pto_text(&rig, NULL, good, strlen(good)) == FOVEA_OK);
    fovea_rig_panorama p;
    fovea_rig_get_panorama(rig, &p);
    CHECK_EQ_INT(p.projection, FOVEA_PROJ_EQUIRECTANGULAR);
    CHECK_EQ_INT(p.width, 4000);
    CHECK_EQ_INT(p.height, 2000);
    CHECK(p.hfov == 360.0 && p.vfov == 180.0 && p.yaw == 0.0 && p.pitch == 0.0);
    CHECK_EQ_INT(fovea_rig_num_cameras(rig), 2);
    fovea_rig_camera c0, c1;
    fovea_rig_get_camera(rig, 0, &c0);
    fovea_rig_get_camera(rig, 1, &c1);
    CHECK_EQ_INT(c0.model, FOVEA_CAM_PANOTOOLS);
    CHECK_EQ_INT(c0.lens, FOVEA_LENS_RECTILINEAR);
    CHECK(strcmp(c0.name, "left.jpg") == 0 && strcmp(c1.name, "right.jpg") == 0);
    double f = 3000.0 / (2.0 * tan(35.0 * 3.14159265358979323846 / 180.0));
    CHECK(fabs(c0.fx - f) < 1e-9 && c0.fy == c0.fx);
    CHECK(c0.cx == 1499.5 + 3.0 && c0.cy == 999.5 - 2.0);
    CHECK(c0.dist[0] == 0.01 && c0.dist[1] == -0.02 && c0.dist[2] == 0.005);
    CHECK(c0.dist[3] == 0.5 && c0.dist[4] == -0.25);
    CHECK(c0.yaw == 30.0 && c0.pitch == -2.0 && c0.roll == 1.5);
    /* back-references take image 0's values */
    CHECK(c1.fx == c0.fx && c1.cx == c0.cx && c1.cy == c0.cy);
    CHECK(memcmp(c1.dist, c0.dist, sizeof(c0.dist)) == 0);
    CHECK(c1.yaw == -30.0 && c1.pitch == 0.0);

    /* through rig JSON and back: the same cameras */
    char *json = fovea_rig_to_json(rig);
    REQUIRE(json);
    CHECK(strstr(json, "\"panotools\"") && strstr(json, "\"rectilinear\""));
    fovea_rig *back = NULL;
    CHECK(fovea_rig_open_json(&back, NULL, json, strlen(json)) == FOVEA_OK);
    if (back) {
        fovea_rig_camera b0;
        fovea_rig_get_camera(back, 0, &b0);
        CHECK(memcmp(&b0, &c0, sizeof(b0)) == 0);
    }
    /* the image center sees straight ahead of its camera */
    double d[3], u, v;
    CHECK(fovea_rig_camera_to_dir(rig, 0, c0.cx, c0.cy, d) == 1);
    CHECK(fovea_rig_dir_to_camera(rig, 0, d, &u, &v) == 1);
    CHECK(fabs(u - c0.cx) < 1e-9 && fabs(v - c0.cy) < 1e-9);
    /* camera_to_dir inverts dir_to_camera off center too (distortion, shear) */
    CHECK(fovea_rig_camera_to_dir(rig, 0, 200.25, 1800.5, d) == 1);
    CHECK(fovea_rig_dir_to_camera(rig, 0, d, &u, &v) == 1);
    CHECK(fabs(u - 200.25) < 1e-6 && fabs(v - 1800.5) < 1e-6);
    fovea_rig_close(&back);
    free(json);
    fovea_rig_close(&rig);
}

/* The photometric part: values, what stays disabled, and rig JSON's round trip. */
static void test_photometric(void)
{
    static const char *text =
        "p f2 w400 h200 v360 E0.25 R0\n"
        "i w300 h200 f0 v70 Ra1.2 Rb-0.4 Rc0.3 Rd0.2 Re-0.1 Eev0.6 Er1.15 Eb0.85 y30 Va1 "
        "Vb-0.35 Vc0.12 Vd-0.06 Vx6 Vy-4 Vm5 n\"a.jpg\"\n"
        "i w300 h200 f0 v=0 Rt1 Eev-0.5 Er0.9 Eb1.1 y-30 Vb-0.2 Vm4 n\"b.jpg\"\n"
        "i w300 h200 f0 v=0 Ra=0 Rb=0 Rc=0 Rd=0 Re=0 Eev0.25 y90 Vb-0.2 Vx3 Vm0 n\"c.jpg\"\n";
    fovea_rig *rig = NULL;
    REQUIRE(fovea_rig_open_pto_text(&rig, NULL, text, strlen(text)) == FOVEA_OK);
    fovea_rig_panorama p;
    fovea_rig_camera c[3];
    fovea_rig_get_panorama(rig, &p);
    for (int k = 0; k < 3; k++)
        fovea_rig_get_camera(rig, k, &c[k]);
    CHECK(p.photo_exposure == 0.25 && p.photo_emor[0] == 1.2 && p.photo_emor[4] == -0.1);
    CHECK(!p.photo_linear_response);
    const fovea_rig_photometric *a = &c[0].photometric, *b = &c[1].photometric;
    CHECK(a->enabled && a->exposure == 0.6 && a->wb_red == 1.15 && a->wb_blue == 0.85);
    CHECK(a->vignetting[0] == 1.0 && a->vignetting[1] == -0.35 && a->vignetting[3] == -0.06);
    CHECK(a->vignetting_center[0] == 6.0 && a->vignetting_center[1] == -4.0);
    CHECK(!a->linear_response && a->emor[1] == -0.4);
    /* Vm4: no radial correction; Rt1: linear */
    CHECK(b->enabled && b->linear_response && b->exposure == -0.5);
    CHECK(b->vignetting[0] == 1.0 && b->vignetting[1] == 0.0);
    /* the output's exposure and response, no vignetting (Vm0): the identity */
    CHECK(!c[2].photometric.enabled);
    char *json = fovea_rig_to_json(rig);
    REQUIRE(json);
    fovea_rig *back = NULL;
    CHECK(fovea_rig_open_json(&back, NULL, json, strlen(json)) == FOVEA_OK);
    if (back) {
        fovea_rig_panorama bp;
        fovea_rig_get_panorama(back, &bp);
        CHECK(bp.photo_exposure == p.photo_exposure &&
              memcmp(bp.photo_emor, p.photo_emor, sizeof(p.photo_emor)) == 0);
        for (int k = 0; k < 3; k++) {
            fovea_rig_camera bc;
            fovea_rig_get_camera(back, k, &bc);
            CHECK(memcmp(&bc, &c[k], sizeof(bc)) == 0);
        }
    }
    fovea_rig_close(&back);
    free(json);
    fovea_rig_close(&rig);
}

/* Every lens type Hugin numbers, and the p line's horizontal crop as a yaw. */
static void test_lenses_and_crop(void)
{
    static const struct {
        int f;
        fovea_lens lens;
    } lenses[] = {{0, FOVEA_LENS_RECTILINEAR},     {1, FOVEA_LENS_CYLINDRICAL},
                  {2, FOVEA_LENS_FISHEYE},         {3, FOVEA_LENS_FISHEYE},
                  {4, FOVEA_LENS_EQUIRECTANGULAR}, {8, FOVEA_LENS_ORTHOGRAPHIC},
                  {10, FOVEA_LENS_STEREOGRAPHIC},  {21, FOVEA_LENS_EQUISOLID}};
    for (size_t k = 0; k < sizeof(lenses) / sizeof(lenses[0]); k++) {
        char text[256];
        snprintf(text, sizeof(text), "p f2 w800 h400 v360 S100,500,50,350\ni w400 h300 f%d v90\n",
                 lenses[k].f);
        fovea_rig *rig = NULL;
        CHECK(fovea_rig_open_pto_text(&rig, NULL, text, strlen(text)) == FOVEA_OK);
        if (!rig)
            continue;
        fovea_rig_camera c;
        fovea_rig_get_camera(rig, 0, &c);
        CHECK_EQ_INT(c.lens, lenses[k].lens);
        fovea_rig_panorama p;
        fovea_rig_get_panorama(rig, &p);
        CHECK(p.width == 400 && p.height == 300 && p.hfov == 180.0 && p.vfov == 135.0);
        CHECK(p.yaw == -45.0); /* crop center 300 of 800: 100 px left, 0.45 deg each */
        fovea_rig_close(&rig);
    }
}

/* text must fail with status st and a message holding each of the words. */
static void bad(const char *text, size_t len, int st, const char *w1, const char *w2)
{
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, NULL) == FOVEA_OK);
    fovea_rig *rig = (fovea_rig *)1;
    int r = fovea_rig_open_pto_text(&rig, ctx, text, len);
    const char *msg = fovea_last_error(ctx);
    if (r != st || rig != NULL || (w1 && !strstr(msg, w1)) || (w2 && !strstr(msg, w2))) {
        fprintf(stderr, "bad project: status %d (want %d), message '%s' (want '%s', '%s')\n", r, st,
                msg, w1 ? w1 : "", w2 ? w2 : "");
        test_failures++;
    }
    if (rig != (fovea_rig *)1)
        fovea_rig_close(&rig);
    fovea_close(&ctx);
}

#define BAD(text, st, w1, w2) bad(text, strlen(text), st, w1, w2)

static void test_bad(void)
{
    const int C = FOVEA_ERR_CORRUPT, U = FOVEA_ERR_UNSUPPORTED, I = FOVEA_ERR_INVALID_ARG;
    BAD("", C, "no p line", NULL);
    BAD(P_LINE, C, "no i line", NULL);
    BAD("i w10 h10 f0 v50\n", C, "no p line", NULL);
    BAD(P_LINE "i w10 h10 f0 v50 Q7\n", U, "line 2", "unknown field 'Q7'");
    BAD(P_LINE "i w10 h10 f0 v50 Foo\n", U, "line 2", "'Foo'");
    BAD(P_LINE "x w10\n", U, "line 2", "unknown line type");
    BAD(P_LINE "iw10 h10\n", U, "line 2", "unknown line type");
    BAD(P_LINE "o w10 h10 f0 v50\n", U, "line 2", "o lines");
    BAD(P_LINE P_LINE "i w10 h10 f0 v50\n", C, "line 2", "second p line");
    BAD(P_LINE "i h10 f0 v50\n", C, "line 2", "w: missing");
    BAD(P_LINE "i w10 f0 v50\n", C, "line 2", "h: missing");
    BAD(P_LINE "i w10 h10 v50\n", C, "line 2", "f: missing");
    BAD(P_LINE "i w10 h10 f0 vabc\n", C, "line 2", "v: 'abc' is not a finite number");
    BAD(P_LINE "i w10 h10 f0 v50 ynan\n", C, "line 2", "y:");
    BAD(P_LINE "i w10 h10 f0 v1e999\n", C, "line 2", "v:");
    BAD(P_LINE "i w0 h10 f0 v50\n", I, "line 2", "w: must be an integer");
    BAD(P_LINE "i w99999 h10 f0 v50\n", I, "line 2", "w:");
    BAD(P_LINE "i w10.5 h10 f0 v50\n", I, "line 2", "w:");
    BAD(P_LINE "i w10 h10 f5 v50\n", U, "line 2", "f: lens type 5 is not supported");
    BAD(P_LINE "i w10 h10 f20 v50\n", U, "line 2", "lens type 20");
    BAD(P_LINE "i w10 h10 f0 v180\n", I, "line 2", "v: field of view");
    BAD(P_LINE "i w10 h10 f0 v50 TrX0.5\n", U, "line 2", "TrX");
    BAD(P_LINE "i w10 h10 f0 v50\ni w10 h10 f0 v50 TrZ1\n", U, "line 3", "TrZ");
    BAD(P_LINE "i w10 h10 f0 v=1\n", C, "line 2", "v: refers to image 1");
    BAD(P_LINE "i w10 h10 f0 v=1\ni w10 h10 f0 v=0\n", C, "line 2", "loop");
    BAD(P_LINE "i w10 h10 f0 v=x\n", C, "line 2", "v:");
    BAD(P_LINE "i w10 h10 f0 v50 n\"unterminated\n", C, "line 2", "unterminated string");
    BAD(P_LINE "i w10 h10 f0 v50 S1,2,3\n", C, "line 2", "S: expected four integers");
    BAD(P_LINE "i w10 h10 f0 v50 a0.5 b0.5 c0.5\n", I, "d = 1 - a - b - c", NULL);
    /* the photometric part */
    BAD(P_LINE "i w10 h10 f0 v50 Er0\n", I, "line 2", "Er: white balance");
    BAD(P_LINE "i w10 h10 f0 v50 Eb-1\n", I, "line 2", "Eb: white balance");
    BAD(P_LINE "i w10 h10 f0 v50 Eev99\n", I, "line 2", "Eev: exposure");
    BAD(P_LINE "i w10 h10 f0 v50 Eevx\n", C, "line 2", "Eev: 'x' is not a finite number");
    BAD(P_LINE "i w10 h10 f0 v50 Vb1e300\n", I, "line 2", "Vb: must be in");
    BAD(P_LINE "i w10 h10 f0 v50 Ra5000\n", I, "line 2", "Ra: must be in");
    BAD(P_LINE "i w10 h10 f0 v50 Rt2\n", U, "line 2", "Rt: response type 2");
    BAD(P_LINE "i w10 h10 f0 v50 Rt9\n", I, "line 2", "Rt: must be an integer");
    BAD(P_LINE "i w10 h10 f0 v50 Vm9\n", I, "line 2", "Vm: must be an integer");
    BAD("p f2 w100 h50 v360 E1e9\ni w10 h10 f0 v50\n", I, "line 1", "E: exposure");
    BAD("p f2 w100 h50 v360 R2\ni w10 h10 f0 v50\n", I, "line 1", "R: must be an integer");
    BAD("p f0 w100 h100 v90\ni w10 h10 f0 v50\n", U, "line 1",
        "f: panorama projection 0 is not supported");
    BAD("p f2 w100 h100 v360\ni w10 h10 f0 v50\n", I, "line 1", "180");
    BAD("p f2 h100 v90\ni w10 h10 f0 v50\n", C, "line 1", "w: missing");
    BAD("p f2 w100 h50 v0\ni w10 h10 f0 v50\n", I, "line 1", "v: must be in");
    BAD("p f2 w100 h50 v360 S0,100,10,50\ni w10 h10 f0 v50\n", U, "line 1",
        "not centered vertically");
    BAD("p f2 w100 h50 v360 Z3\ni w10 h10 f0 v50\n", U, "line 1", "unknown field 'Z3'");
    /* a NUL byte and a truncated file */
    static const char nul[] = "p f2 w100 h50 v360\ni w10 h10 f0\0 v50\n";
    bad(nul, sizeof(nul) - 1, C, "line 2", "NUL");
    static const char cut[] = "p f2 w100 h50 v360\ni w10 h10 f0 v50 n\"ab";
    bad(cut, sizeof(cut) - 1, C, "line 2", "unterminated");
    /* 17 images */
    char many[2048];
    size_t o = (size_t)snprintf(many, sizeof(many), "p f2 w100 h50 v360\n");
    for (int k = 0; k < 17; k++)
        o += (size_t)snprintf(many + o, sizeof(many) - o, "i w10 h10 f0 v50 y%d\n", k * 20);
    bad(many, o, U, "line 18", "more than 16 images");
    /* larger than the limit */
    size_t big = FOVEA_RIG_FILE_LIMIT + 10;
    char *b = malloc(big);
    REQUIRE(b);
    memset(b, '#', big);
    bad(b, big, C, "larger than", NULL);
    /* a long line of fields: parsed in linear time, refused on its first bad one */
    memset(b, ' ', big);
    memcpy(b, "p f2", 4);
    b[FOVEA_RIG_FILE_LIMIT - 3] = 'Z';
    bad(b, FOVEA_RIG_FILE_LIMIT - 2, U, "line 1", "'Z'");
    free(b);
}

static void test_file(void)
{
    fovea_rig *rig = (fovea_rig *)1;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, NULL) == FOVEA_OK);
    CHECK(fovea_rig_open_pto(&rig, ctx, "/nonexistent/project.pto") == FOVEA_ERR_IO);
    CHECK(rig == NULL && strstr(fovea_last_error(ctx), "/nonexistent/project.pto"));
    char path[] = "/tmp/fovea_pto_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    FILE *f = fdopen(fd, "w");
    REQUIRE(f);
    fputs(P_LINE "i w10 h10 f0 v50 Bad1\n", f);
    fclose(f);
    CHECK(fovea_rig_open_pto(&rig, ctx, path) == FOVEA_ERR_UNSUPPORTED);
    CHECK(strstr(fovea_last_error(ctx), path) && strstr(fovea_last_error(ctx), "line 2"));
    remove(path);
    fovea_close(&ctx);
}

int main(void)
{
    test_good();
    test_lenses_and_crop();
    test_photometric();
    test_bad();
    test_file();
    return test_finish("test_stitch_pto");
}
