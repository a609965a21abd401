/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Stitch map files: save/load round trips, rejection of corrupt files, import of
 * full-resolution float tables, and the camera check used by the stitcher. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "stitch/map.h"
#include "stitch/map_file.h"
#include "stitch/map_import.h"
#include "testutil.h"

#define ERRSZ 512

/* ---- little-endian helpers for editing encoded files ---- */

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

static void put_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(p, u);
}

static uint32_t header_size_of(const uint8_t *buf)
{
    return 52 + 40 * get_u32(buf + 24);
}

/* Recompute both CRCs so that only the check under test can fire. */
static void fix_crcs(uint8_t *buf, size_t size)
{
    uint32_t hs = header_size_of(buf);
    REQUIRE(hs <= size);
    put_u32(buf + hs - 8, (uint32_t)crc32(0L, buf + hs, (uInt)(size - hs)));
    put_u32(buf + hs - 4, (uint32_t)crc32(0L, buf, hs - 4));
}

/* ---- building maps by hand ---- */

static float rand_coord(test_rng *r, int k)
{
    uint32_t x = test_rng_below(r, 16);
    if (x == 0) {
        /* NaN with a payload so the round trip must keep the exact bits. */
        uint32_t bits = 0x7fc00000u | (uint32_t)(k & 0x3fffff);
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    return (float)(test_rng_double(r) * 5000.0 - 1000.0);
}

static void make_map(fovea_stitch_map *m, int pano_w, int pano_h, int ncam, const int *steps,
                     int with_weights, test_rng *r)
{
    memset(m, 0, sizeof(*m));
    m->pano_width = pano_w;
    m->pano_height = pano_h;
    m->num_cameras = ncam;
    m->feather = 12.5f;
    for (int c = 0; c < ncam; c++) {
        fv_camera_map *cam = &m->cam[c];
        REQUIRE(fv_camera_map_alloc(cam, pano_w, pano_h, steps[c]) == FOVEA_OK);
        cam->cam_width = 100 + 37 * c;
        cam->cam_height = 80 + 11 * c;
        cam->px_scale = 0.5f + (float)c;
        if (c % 2 == 1) { /* a fisheye-like visibility ellipse */
            cam->clip_cx = 50.25f;
            cam->clip_cy = 40.5f;
            cam->clip_rx = 60.0f + (float)c;
            cam->clip_ry = 45.0f;
        }
        size_t n = (size_t)cam->grid_w * (size_t)cam->grid_h * 2;
        for (size_t k = 0; k < n; k++)
            cam->uv[k] = rand_coord(r, (int)k);
        if (with_weights) {
            size_t np = (size_t)pano_w * (size_t)pano_h;
            cam->weight = malloc(np * sizeof(float));
            REQUIRE(cam->weight != NULL);
            for (size_t k = 0; k < np; k++)
                cam->weight[k] = test_rng_below(r, 5) == 0 ? 0.0f : (float)test_rng_double(r);
        }
    }
}

static int maps_identical(const fovea_stitch_map *a, const fovea_stitch_map *b)
{
    if (a->pano_width != b->pano_width || a->pano_height != b->pano_height ||
        a->num_cameras != b->num_cameras || memcmp(&a->feather, &b->feather, 4) != 0)
        return 0;
    size_t np = (size_t)a->pano_width * (size_t)a->pano_height;
    for (int c = 0; c < a->num_cameras; c++) {
        const fv_camera_map *x = &a->cam[c], *y = &b->cam[c];
        if (x->cam_width != y->cam_width || x->cam_height != y->cam_height || x->step != y->step ||
            x->grid_w != y->grid_w || x->grid_h != y->grid_h ||
            memcmp(&x->px_scale, &y->px_scale, 4) != 0 || x->clip_cx != y->clip_cx ||
            x->clip_cy != y->clip_cy || x->clip_rx != y->clip_rx || x->clip_ry != y->clip_ry)
            return 0;
        if (memcmp(x->uv, y->uv, (size_t)x->grid_w * (size_t)x->grid_h * 2 * sizeof(float)))
            return 0;
        if ((x->weight == NULL) != (y->weight == NULL))
            return 0;
        if (x->weight && memcmp(x->weight, y->weight, np * sizeof(float)) != 0)
            return 0;
    }
    return 1;
}

/* ---- round trips ---- */

static void test_roundtrip(int pano_w, int pano_h, int ncam, const int *steps, int weights,
                           uint64_t seed)
{
    test_rng r;
    test_rng_seed(&r, seed);
    fovea_stitch_map m, back;
    make_map(&m, pano_w, pano_h, ncam, steps, weights, &r);
    char err[ERRSZ] = "";
    char *path = test_tmp_path(".fmap");
    int rc = fv_map_save(&m, path, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_OK);
    if (rc != FOVEA_OK)
        fprintf(stderr, "save: %s\n", err);
    rc = fv_map_load(path, &back, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_OK);
    if (rc != FOVEA_OK)
        fprintf(stderr, "load: %s\n", err);
    else
        CHECK(maps_identical(&m, &back));

    /* The in-memory encoder produces the same bytes as the file writer. */
    uint8_t *enc = NULL;
    size_t enc_size = 0, file_size = 0;
    CHECK_EQ_INT(fv_map_encode(&m, &enc, &enc_size, err, sizeof(err)), FOVEA_OK);
    uint8_t *file = test_read_file(path, &file_size);
    CHECK_EQ_INT(enc_size, file_size);
    CHECK(enc_size == file_size && memcmp(enc, file, enc_size) == 0);
    CHECK_EQ_INT(get_u32(enc + 32), weights ? 1 : 0);

    fovea_stitch_map dec;
    CHECK_EQ_INT(fv_map_decode(enc, enc_size, &dec, err, sizeof(err)), FOVEA_OK);
    CHECK(maps_identical(&m, &dec));

    fv_stitch_map_free(&dec);
    free(file);
    free(enc);
    fv_stitch_map_free(&back);
    fv_stitch_map_free(&m);
    free(path);
}

/* ---- corruptions ---- */

/* Decode buf (and load it from a file) and expect CORRUPT with `want` in the message. */
static void expect_corrupt_line(const uint8_t *buf, size_t size, const char *want, int line)
{
    char err[ERRSZ] = "";
    fovea_stitch_map m;
    int rc = fv_map_decode(buf, size, &m, err, sizeof(err));
    if (rc != FOVEA_ERR_CORRUPT || !strstr(err, want)) {
        fprintf(stderr, "line %d: decode: rc %d, message \"%s\" (wanted \"%s\")\n", line, rc, err,
                want);
        test_failures++;
    }
    CHECK_EQ_INT(m.num_cameras, 0);
    CHECK(m.cam[0].uv == NULL);

    char *path = test_write_tmp(".fmap", buf, size);
    err[0] = '\0';
    rc = fv_map_load(path, &m, err, sizeof(err));
    if (rc != FOVEA_ERR_CORRUPT || !strstr(err, want) || !strstr(err, path)) {
        fprintf(stderr, "line %d: load: rc %d, message \"%s\" (wanted \"%s\" and the path)\n", line,
                rc, err, want);
        test_failures++;
    }
    CHECK_EQ_INT(m.num_cameras, 0);
    free(path);
}
#define expect_corrupt(buf, size, want) expect_corrupt_line(buf, size, want, __LINE__)

static void test_corruptions(void)
{
    test_rng r;
    test_rng_seed(&r, 77);
    fovea_stitch_map m;
    const int steps[2] = {4, 2};
    make_map(&m, 24, 10, 2, steps, 1, &r);
    /* Make every grid value finite and every weight positive: only injected faults fire. */
    for (int c = 0; c < 2; c++) {
        size_t n = (size_t)m.cam[c].grid_w * (size_t)m.cam[c].grid_h * 2;
        for (size_t k = 0; k < n; k++)
            m.cam[c].uv[k] = (float)k * 0.25f;
    }
    uint8_t *good = NULL;
    size_t size = 0;
    char err[ERRSZ];
    REQUIRE(fv_map_encode(&m, &good, &size, err, sizeof(err)) == FOVEA_OK);
    const uint32_t hs = header_size_of(good);
    CHECK_EQ_INT(hs, 52 + 80);
    uint8_t *b = malloc(size + 16);
    REQUIRE(b != NULL);
    const size_t cam0 = 36, cam1 = 36 + 40;

#define FRESH() memcpy(b, good, size)
    FRESH();
    b[0] = 'X';
    expect_corrupt(b, size, "not a fovea map file");
    expect_corrupt(b, 5, "not a fovea map file");
    expect_corrupt(b, 0, "not a fovea map file");

    FRESH();
    expect_corrupt(b, 20, "truncated");
    expect_corrupt(b, hs - 1, "truncated: header");

    FRESH();
    put_u32(b + 8, 2);
    expect_corrupt(b, size, "unsupported map version 2 (this build reads 1)");

    FRESH();
    b[hs - 4] ^= 1;
    expect_corrupt(b, size, "header checksum mismatch");
    FRESH();
    b[17] ^= 0x40; /* pano width changed, CRC left alone */
    expect_corrupt(b, size, "header checksum mismatch");

    FRESH();
    put_u32(b + 12, hs + 4);
    fix_crcs(b, size);
    expect_corrupt(b, size, "header size");

    FRESH();
    put_u32(b + cam1 + 12, get_u32(b + cam1 + 12) + 1);
    fix_crcs(b, size);
    expect_corrupt(b, size, "camera 1: grid");

    FRESH();
    put_u32(b + cam0 + 8, 3);
    fix_crcs(b, size);
    expect_corrupt(b, size, "camera 0: grid step 3");

    FRESH();
    put_u32(b + 16, 0);
    fix_crcs(b, size);
    expect_corrupt(b, size, "panorama size 0x10");
    FRESH();
    put_u32(b + 16, 20000);
    fix_crcs(b, size);
    expect_corrupt(b, size, "panorama size 20000x10");

    FRESH();
    put_u32(b + 24, 0);
    expect_corrupt(b, size, "num_cameras 0");
    FRESH();
    put_u32(b + 24, 17);
    expect_corrupt(b, size, "num_cameras 17");

    FRESH();
    put_u32(b + cam0, 0);
    fix_crcs(b, size);
    expect_corrupt(b, size, "camera 0: size 0x80");
    FRESH();
    put_f32(b + cam1 + 20, 0.0f);
    fix_crcs(b, size);
    expect_corrupt(b, size, "px_scale");
    FRESH();
    put_f32(b + cam1 + 36, 0.0f); /* clip_ry 0 with clip_rx > 0 */
    fix_crcs(b, size);
    expect_corrupt(b, size, "camera 1: clip ellipse");
    FRESH();
    put_f32(b + cam0 + 24, INFINITY);
    fix_crcs(b, size);
    expect_corrupt(b, size, "camera 0: clip ellipse");
    FRESH();
    put_f32(b + 28, NAN);
    fix_crcs(b, size);
    expect_corrupt(b, size, "feather");
    FRESH();
    put_u32(b + 32, 3);
    fix_crcs(b, size);
    expect_corrupt(b, size, "unknown flags");
    FRESH();
    put_u32(b + 32, 0); /* weights flag cleared: declared payload no longer matches */
    fix_crcs(b, size);
    expect_corrupt(b, size, "payload size");
    FRESH();
    put_u32(b + hs - 16, get_u32(b + hs - 16) + 4);
    fix_crcs(b, size);
    expect_corrupt(b, size, "payload size");

    /* Truncated and padded payloads, with the exact numbers in the message. */
    char want[128];
    FRESH();
    snprintf(want, sizeof(want), "truncated: payload has %zu of %zu bytes", size - hs - 10,
             size - hs);
    expect_corrupt(b, size - 10, want);
    FRESH();
    memset(b + size, 0xAB, 5);
    expect_corrupt(b, size + 5, "5 bytes of trailing data");

    FRESH();
    b[hs + 37] ^= 0x10;
    expect_corrupt(b, size, "checksum mismatch: file is corrupt");
    FRESH();
    b[size - 1] ^= 0x01;
    expect_corrupt(b, size, "checksum mismatch: file is corrupt");

    /* Values: infinity in a grid (NaN is fine), negative or NaN weights. */
    FRESH();
    put_f32(b + hs + 4 * 7, INFINITY);
    fix_crcs(b, size);
    expect_corrupt(b, size, "infinite");
    FRESH();
    put_f32(b + hs + 4 * 7, -INFINITY);
    fix_crcs(b, size);
    expect_corrupt(b, size, "camera 0: grid node (3,0) has an infinite v coordinate");
    FRESH();
    put_f32(b + hs + 4 * 7, NAN);
    fix_crcs(b, size);
    {
        fovea_stitch_map ok;
        CHECK_EQ_INT(fv_map_decode(b, size, &ok, err, sizeof(err)), FOVEA_OK);
        CHECK(isnan(ok.cam[0].uv[7]));
        fv_stitch_map_free(&ok);
    }
    size_t weights_at = size - 2 * 24 * 10 * 4; /* two cameras of 24x10 weights */
    FRESH();
    put_f32(b + weights_at + 4 * 30, -1.0f);
    fix_crcs(b, size);
    expect_corrupt(b, size, "camera 0: weight -1 at pixel (6,1)");
    FRESH();
    put_f32(b + size - 4, NAN);
    fix_crcs(b, size);
    expect_corrupt(b, size, "camera 1: weight");

    /* The untouched file still decodes. */
    FRESH();
    fovea_stitch_map ok;
    CHECK_EQ_INT(fv_map_decode(b, size, &ok, err, sizeof(err)), FOVEA_OK);
    fv_stitch_map_free(&ok);
#undef FRESH

    free(b);
    free(good);
    fv_stitch_map_free(&m);
}

static void test_io_errors(void)
{
    char err[ERRSZ] = "";
    fovea_stitch_map m;
    const char *missing = "/nonexistent-fovea-dir/none.fmap";
    CHECK_EQ_INT(fv_map_load(missing, &m, err, sizeof(err)), FOVEA_ERR_IO);
    CHECK(strstr(err, missing) != NULL);
    CHECK_EQ_INT(fv_map_load(".", &m, err, sizeof(err)), FOVEA_ERR_IO);

    test_rng r;
    test_rng_seed(&r, 5);
    const int steps[1] = {8};
    make_map(&m, 40, 20, 1, steps, 0, &r);
    CHECK_EQ_INT(fv_map_save(&m, missing, err, sizeof(err)), FOVEA_ERR_IO);
    CHECK(strstr(err, missing) != NULL);

    /* Maps that could not be loaded back are refused. */
    char *path = test_tmp_path(".fmap");
    m.cam[0].uv[3] = INFINITY;
    CHECK_EQ_INT(fv_map_save(&m, path, err, sizeof(err)), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(err, "infinite") != NULL);
    CHECK(access(path, F_OK) != 0);
    m.cam[0].uv[3] = 1.0f;
    m.cam[0].step = 3;
    CHECK_EQ_INT(fv_map_save(&m, path, err, sizeof(err)), FOVEA_ERR_INVALID_ARG);
    m.cam[0].step = 8;
    m.cam[0].px_scale = -1.0f;
    CHECK_EQ_INT(fv_map_save(&m, path, err, sizeof(err)), FOVEA_ERR_INVALID_ARG);
    m.cam[0].px_scale = 1.0f;
    CHECK_EQ_INT(fv_map_save(&m, path, err, sizeof(err)), FOVEA_OK);
    fv_stitch_map_free(&m);

    const int steps2[2] = {8, 8};
    make_map(&m, 40, 20, 2, steps2, 1, &r);
    free(m.cam[1].weight);
    m.cam[1].weight = NULL;
    CHECK_EQ_INT(fv_map_save(&m, path, err, sizeof(err)), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(err, "weights") != NULL);
    m.cam[0].weight[5] = -0.5f;
    m.cam[1].weight = calloc(40 * 20, sizeof(float));
    REQUIRE(m.cam[1].weight != NULL);
    CHECK_EQ_INT(fv_map_save(&m, path, err, sizeof(err)), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(err, "weight") != NULL);
    fv_stitch_map_free(&m);
    free(path);
}

/* ---- import ---- */

#define IW 64
#define IH 32
#define CW 40
#define CH 30

static const char *const table_files[6] = {
    "lut_left_x.bin",  "lut_left_y.bin",  "lut_right_x.bin",
    "lut_right_y.bin", "weight_left.bin", "weight_right.bin",
};

static void write_table(const char *dir, const char *name, const float *v, size_t n)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    REQUIRE(fp != NULL);
    for (size_t k = 0; k < n; k++) {
        uint8_t b[4];
        put_f32(b, v[k]);
        REQUIRE(fwrite(b, 1, 4, fp) == 4);
    }
    fclose(fp);
}

static int expect_seen(float u, float v)
{
    return isfinite(u) && isfinite(v) && u >= 0.0f && v >= 0.0f && u <= CW - 1 && v <= CH - 1;
}

static void test_import(void)
{
    static float t[6][IW * IH];
    for (int j = 0; j < IH; j++) {
        for (int i = 0; i < IW; i++) {
            int k = j * IW + i;
            t[0][k] = (float)i * 0.7f - 3.0f; /* negative left, past 39 right */
            t[1][k] = (float)j * 0.9f + 0.125f;
            t[2][k] = (float)(i - 20) * 0.75f; /* negative for i < 20 */
            t[3][k] = (float)j - 1.0f;         /* -1 at j = 0, 30 (> 29) at j = 31 */
            t[4][k] = 1.0f + (float)(i % 3) * 0.5f;
            t[5][k] = (i + j) % 7 == 0 ? 0.0f : 0.5f + (float)(j % 2);
        }
    }
    /* Special values: exact borders (seen), just past them, NaN, infinity. */
    t[0][5 * IW + 10] = 39.0f;
    t[1][5 * IW + 10] = 29.0f;
    t[0][5 * IW + 11] = 39.0001f;
    t[0][6 * IW + 12] = NAN;
    t[1][6 * IW + 13] = INFINITY;
    t[2][7 * IW + 30] = 0.0f;
    t[3][7 * IW + 30] = 0.0f;
    t[2][7 * IW + 31] = -0.0001f;
    /* Last pixel seen by the left camera. */
    t[0][IH * IW - 1] = 38.5f;
    t[1][IH * IW - 1] = 28.25f;

    char *dir = test_tmp_path(".d");
    REQUIRE(mkdir(dir, 0700) == 0);
    for (int f = 0; f < 6; f++)
        write_table(dir, table_files[f], t[f], IW * IH);

    char err[ERRSZ] = "";
    fovea_stitch_map m;
    int rc = fv_map_import_tables(dir, IW, IH, CW, CH, 8.0f, &m, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_OK);
    if (rc != FOVEA_OK) {
        fprintf(stderr, "import: %s\n", err);
    } else {
        CHECK_EQ_INT(m.num_cameras, 2);
        CHECK_EQ_INT(m.pano_width, IW);
        CHECK_EQ_INT(m.pano_height, IH);
        int mismatches = 0, seen_count[2] = {0, 0};
        for (int c = 0; c < 2; c++) {
            CHECK_EQ_INT(m.cam[c].step, 1);
            CHECK_EQ_INT(m.cam[c].grid_w, IW + 1);
            CHECK_EQ_INT(m.cam[c].grid_h, IH + 1);
            CHECK_EQ_INT(m.cam[c].cam_width, CW);
            CHECK_EQ_INT(m.cam[c].cam_height, CH);
            CHECK(m.cam[c].px_scale == 1.0f);
            REQUIRE(m.cam[c].weight != NULL);
            for (int j = 0; j < IH; j++) {
                for (int i = 0; i < IW; i++) {
                    int k = j * IW + i;
                    float tu = t[2 * c][k], tv = t[2 * c + 1][k], u = -7.0f, v = -7.0f;
                    int want = expect_seen(tu, tv);
                    int got = fv_map_lookup(&m, c, i, j, &u, &v);
                    seen_count[c] += want;
                    if (got != want || (want && (u != tu || v != tv))) {
                        if (mismatches++ < 10)
                            fprintf(stderr,
                                    "camera %d pixel (%d,%d): table (%g,%g) seen %d, "
                                    "lookup (%g,%g) seen %d\n",
                                    c, i, j, (double)tu, (double)tv, want, (double)u, (double)v,
                                    got);
                    }
                    float tw = t[4 + c][k];
                    if (m.cam[c].weight[k] != (want ? tw : 0.0f) && mismatches++ < 10)
                        fprintf(stderr, "camera %d pixel (%d,%d): weight %g, table %g\n", c, i, j,
                                (double)m.cam[c].weight[k], (double)tw);
                }
            }
        }
        CHECK_EQ_INT(mismatches, 0);
        CHECK(seen_count[0] > 100 && seen_count[1] > 100);
        CHECK(seen_count[0] < IW * IH && seen_count[1] < IW * IH);

        /* Blend weights: a camera that does not see a pixel never gets weight. */
        int bad = 0;
        for (int j = 0; j < IH; j++) {
            for (int i = 0; i < IW; i++) {
                float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS],
                    v[FOVEA_STITCH_MAX_CAMERAS];
                int n = fv_map_weights(&m, i, j, w, u, v);
                int count = 0;
                for (int c = 0; c < 2; c++) {
                    int k = j * IW + i;
                    if (!expect_seen(t[2 * c][k], t[2 * c + 1][k]) && w[c] != 0.0f)
                        bad++;
                    count += w[c] > 0.0f;
                }
                if (n != count)
                    bad++;
            }
        }
        CHECK_EQ_INT(bad, 0);

        /* An imported map (step 1, explicit weights) survives save/load. */
        char *path = test_tmp_path(".fmap");
        CHECK_EQ_INT(fv_map_save(&m, path, err, sizeof(err)), FOVEA_OK);
        fovea_stitch_map back;
        CHECK_EQ_INT(fv_map_load(path, &back, err, sizeof(err)), FOVEA_OK);
        CHECK(maps_identical(&m, &back));
        fv_stitch_map_free(&back);
        free(path);

        /* Weights are relative: the same tables scaled by 2^126 (sums past
         * FLT_MAX) or by 2^-140 (denormal weights, sums whose reciprocal would
         * overflow) blend exactly as the unscaled ones. (Before the fix, sums
         * past FLT_MAX gave every camera 0, denormal ones infinite weights.) */
        const int scales[2] = {126, -140};
        for (int s = 0; s < 2; s++) {
            static float ws[2][IW * IH];
            for (int k = 0; k < IW * IH; k++)
                for (int c = 0; c < 2; c++)
                    ws[c][k] = ldexpf(t[4 + c][k], scales[s]);
            write_table(dir, table_files[4], ws[0], IW * IH);
            write_table(dir, table_files[5], ws[1], IW * IH);
            fovea_stitch_map sm;
            rc = fv_map_import_tables(dir, IW, IH, CW, CH, 8.0f, &sm, err, sizeof(err));
            CHECK_EQ_INT(rc, FOVEA_OK);
            if (rc != FOVEA_OK) {
                fprintf(stderr, "scaled import: %s\n", err);
                continue;
            }
            int differ = 0, blended = 0;
            for (int j = 0; j < IH; j++) {
                for (int i = 0; i < IW; i++) {
                    float w1[FOVEA_STITCH_MAX_CAMERAS], u1[FOVEA_STITCH_MAX_CAMERAS],
                        v1[FOVEA_STITCH_MAX_CAMERAS], w2[FOVEA_STITCH_MAX_CAMERAS],
                        u2[FOVEA_STITCH_MAX_CAMERAS], v2[FOVEA_STITCH_MAX_CAMERAS];
                    int n1 = fv_map_weights(&m, i, j, w1, u1, v1);
                    int n2 = fv_map_weights(&sm, i, j, w2, u2, v2);
                    blended += n1 == 2;
                    if (n1 != n2 || w1[0] != w2[0] || w1[1] != w2[1]) {
                        if (differ++ < 5)
                            fprintf(stderr,
                                    "scale 2^%d pixel (%d,%d): %d (%.9g, %.9g) vs %d "
                                    "(%.9g, %.9g)\n",
                                    scales[s], i, j, n1, (double)w1[0], (double)w1[1], n2,
                                    (double)w2[0], (double)w2[1]);
                    }
                }
            }
            CHECK_EQ_INT(differ, 0);
            CHECK(blended > 100);
            fv_stitch_map_free(&sm);
        }
        write_table(dir, table_files[4], t[4], IW * IH);
        write_table(dir, table_files[5], t[5], IW * IH);
    }
    fv_stitch_map_free(&m);

    char path[1024];
    /* A table one float short: the error names the file and both sizes. */
    write_table(dir, "lut_right_y.bin", t[3], IW * IH - 1);
    rc = fv_map_import_tables(dir, IW, IH, CW, CH, 8.0f, &m, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_ERR_MISMATCH);
    CHECK(strstr(err, "lut_right_y.bin") != NULL);
    CHECK(strstr(err, "8192") != NULL && strstr(err, "8188") != NULL);
    CHECK_EQ_INT(m.num_cameras, 0);
    write_table(dir, "lut_right_y.bin", t[3], IW * IH);

    /* The sizes given must match the tables. */
    rc = fv_map_import_tables(dir, IW, IH + 1, CW, CH, 8.0f, &m, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_ERR_MISMATCH);
    CHECK(strstr(err, "lut_left_x.bin") != NULL);
    CHECK_EQ_INT(fv_map_import_tables(dir, 0, IH, CW, CH, 8.0f, &m, err, sizeof(err)),
                 FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fv_map_import_tables(dir, IW, IH, CW, CH, -1.0f, &m, err, sizeof(err)),
                 FOVEA_ERR_INVALID_ARG);

    /* A negative weight. */
    t[5][3 * IW + 4] = -2.0f;
    write_table(dir, "weight_right.bin", t[5], IW * IH);
    rc = fv_map_import_tables(dir, IW, IH, CW, CH, 8.0f, &m, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_ERR_CORRUPT);
    CHECK(strstr(err, "weight_right.bin") != NULL && strstr(err, "(4,3)") != NULL);
    CHECK_EQ_INT(m.num_cameras, 0);

    /* A missing table. */
    snprintf(path, sizeof(path), "%s/weight_left.bin", dir);
    REQUIRE(unlink(path) == 0);
    rc = fv_map_import_tables(dir, IW, IH, CW, CH, 8.0f, &m, err, sizeof(err));
    CHECK_EQ_INT(rc, FOVEA_ERR_IO);
    CHECK(strstr(err, "weight_left.bin") != NULL);

    for (int f = 0; f < 6; f++) {
        snprintf(path, sizeof(path), "%s/%s", dir, table_files[f]);
        unlink(path);
    }
    rmdir(dir);
    free(dir);
}

/* ---- the fuzz corpus: each file fails (or passes) for the reason its name says ---- */

static void test_corpus(void)
{
    static const struct {
        const char *file, *want; /* want NULL: decodes */
    } cases[] = {
        {"valid_1cam_step4.fmap", NULL},
        {"valid_2cam_weights.fmap", NULL},
        {"bad_magic.fmap", "not a fovea map file"},
        {"version2.fmap", "unsupported map version 2"},
        {"cameras17.fmap", "num_cameras 17"},
        {"grid_w_wrong.fmap", "camera 0: grid 4x2 does not match"},
        {"huge_declared.fmap", "truncated: payload has 48 of 1075847176 bytes"},
        {"truncated_payload.fmap", "truncated: payload has 42 of 48 bytes"},
        {"trailing_bytes.fmap", "8 bytes of trailing data"},
        {"payload_flipped.fmap", "checksum mismatch"},
        {"infinite_value.fmap", "infinite"},
        {"negative_weight.fmap", "camera 1: weight -1"},
    };
    char path[2048], err[ERRSZ];
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/map/%s", test_source_dir(),
                 cases[k].file);
        fovea_stitch_map m;
        err[0] = '\0';
        int rc = fv_map_load(path, &m, err, sizeof(err));
        int ok = cases[k].want ? rc == FOVEA_ERR_CORRUPT && strstr(err, cases[k].want) != NULL
                               : rc == FOVEA_OK;
        if (!ok) {
            fprintf(stderr, "%s: rc %d \"%s\", wanted %s\n", cases[k].file, rc, err,
                    cases[k].want ? cases[k].want : "success");
            test_failures++;
        }
        fv_stitch_map_free(&m);
    }
}

/* ---- camera check ---- */

static void test_check_cameras(void)
{
    fovea_stitch_map m;
    memset(&m, 0, sizeof(m));
    m.num_cameras = 2;
    m.cam[0].cam_width = m.cam[1].cam_width = 3840;
    m.cam[0].cam_height = m.cam[1].cam_height = 2160;
    char err[ERRSZ] = "";
    int w3[3] = {3840, 3840, 3840}, h3[3] = {2160, 2160, 2160};
    CHECK_EQ_INT(fv_map_check_cameras(&m, 3, w3, h3, err, sizeof(err)), FOVEA_ERR_MISMATCH);
    CHECK(strcmp(err, "map expects 2 cameras, got 3") == 0);
    int w2[2] = {3840, 1920}, h2[2] = {2160, 1080};
    CHECK_EQ_INT(fv_map_check_cameras(&m, 2, w2, h2, err, sizeof(err)), FOVEA_ERR_MISMATCH);
    CHECK(strcmp(err, "camera 1: map expects 3840x2160, input is 1920x1080") == 0);
    w2[1] = 3840;
    h2[1] = 2160;
    CHECK_EQ_INT(fv_map_check_cameras(&m, 2, w2, h2, err, sizeof(err)), FOVEA_OK);
}

int main(void)
{
    const int s1[1] = {4}, s3[3] = {1, 8, 32};
    test_roundtrip(8, 4, 1, s1, 0, 1);
    test_roundtrip(8, 4, 1, s1, 1, 2);
    test_roundtrip(37, 23, 3, s3, 0, 3);
    test_roundtrip(37, 23, 3, s3, 1, 4);
    test_roundtrip(1, 1, 1, s1, 1, 5);
    test_corruptions();
    test_io_errors();
    test_import();
    test_corpus();
    test_check_cameras();
    return test_finish("test_stitch_mapfile");
}
