/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Differencing (C reference): heat map, noise map and change mask on frames
 * with known answers (a single changed pixel, a moving square, gradients, a
 * chroma sample), in every input format, odd sizes, and argument checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/diff.h"
#include "testutil.h"

static fovea_context *ctx;

/* The color the issue defines for d in [0, 1], computed here independently. */
static void heat_color(double d, uint8_t rgb[3])
{
    const double pi = 3.14159265358979323846;
    const double s[3] = {sin(pi * d - pi / 2), sin(pi * d), sin(pi * d + pi / 2)};
    for (int c = 0; c < 3; c++) {
        double v = s[c] < 0 ? 0 : s[c] > 1 ? 1 : s[c];
        rgb[c] = (uint8_t)floor(255.0 * v + 0.5);
    }
}

/* Color of difference v on a scale topping at top: table index rounded. */
static void heat_of(long long v, long long top, uint8_t rgb[3])
{
    if (v > top)
        v = top;
    const long long i = (v * 1023 + top / 2) / top;
    heat_color((double)i / 1023.0, rgb);
}

static int get_s(const fovea_frame *f, int p, int i, int y)
{
    const uint8_t *row = f->data[p] + (ptrdiff_t)y * f->stride[p];
    if (fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample == 2)
        return row[2 * i] | row[2 * i + 1] << 8;
    return row[i];
}

static void set_s(fovea_frame *f, int p, int i, int y, int v)
{
    uint8_t *row = f->data[p] + (ptrdiff_t)y * f->stride[p];
    if (fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample == 2) {
        row[2 * i] = (uint8_t)(v & 0xff);
        row[2 * i + 1] = (uint8_t)(v >> 8);
    } else {
        row[i] = (uint8_t)v;
    }
}

/* Move sample (p, i, y) by delta away from the nearer end of its range. */
static int bump(fovea_frame *f, int p, int i, int y, int delta)
{
    const int maxv = (1 << fovea_pixfmt_get_desc(f->fmt)->bit_depth) - 1;
    const int v = get_s(f, p, i, y);
    set_s(f, p, i, y, v > maxv / 2 ? v - delta : v + delta);
    return delta;
}

static fovea_frame make(int w, int h, fovea_pixfmt fmt)
{
    fovea_frame f;
    REQUIRE(fovea_frame_alloc(ctx, &f, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
    return f;
}

static fovea_diff *open_diff(const fovea_diff_settings *s)
{
    fovea_diff *d = NULL;
    REQUIRE(fovea_diff_open(&d, ctx, s) == FOVEA_OK);
    return d;
}

/* Default settings on the full scale (normalize_max 0), which the expected
 * colors below are computed with. */
static fovea_diff *open_full_scale(void)
{
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    s.normalize_max = 0;
    return open_diff(&s);
}

static void check_rgb(const fovea_frame *out, int x, int y, const uint8_t rgb[3], int line)
{
    const int px = out->fmt == FOVEA_PIX_RGBA ? 4 : 3;
    const uint8_t *o = out->data[0] + (ptrdiff_t)y * out->stride[0] + px * x;
    if (o[0] != rgb[0] || o[1] != rgb[1] || o[2] != rgb[2] || (px == 4 && o[3] != 255)) {
        fprintf(stderr, "line %d: pixel (%d,%d) is %d,%d,%d, expected %d,%d,%d\n", line, x, y, o[0],
                o[1], o[2], rgb[0], rgb[1], rgb[2]);
        test_failures++;
    }
}

static void test_single_pixel(void)
{
    test_rng r;
    test_rng_seed(&r, 37);
    const int w = 13, h = 11, px = 9, py = 10;
    fovea_frame a = make(w, h, FOVEA_PIX_RGB24), b = make(w, h, FOVEA_PIX_RGB24);
    test_fill_random(&a, &r);
    REQUIRE(fovea_frame_copy(ctx, &b, &a) == FOVEA_OK);
    const int d0 = bump(&b, 0, 3 * px, py, 50), d1 = bump(&b, 0, 3 * px + 1, py, 20);

    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    s.tile = 8;
    s.normalize_max = 0;
    fovea_diff *d = open_diff(&s);
    CHECK_EQ_INT(fovea_diff_backend(d), FOVEA_BACKEND_CPU);
    fovea_pixfmt outs[2] = {FOVEA_PIX_RGB24, FOVEA_PIX_RGBA};
    for (int k = 0; k < 2; k++) {
        fovea_frame o = make(w, h, outs[k]);
        CHECK_EQ_INT(fovea_diff_heatmap(d, &a, &b, &o), FOVEA_OK);
        uint8_t zero[3], hot[3];
        heat_of(0, 765, zero);
        heat_of(d0 + d1, 765, hot);
        CHECK(zero[0] == 0 && zero[1] == 0 && zero[2] == 255);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                check_rgb(&o, x, y, x == px && y == py ? hot : zero, __LINE__);
        /* noise map: red only there */
        CHECK_EQ_INT(fovea_diff_noise(d, &a, &b, &o), FOVEA_OK);
        const uint8_t red[3] = {255, 0, 0}, black[3] = {0, 0, 0};
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                check_rgb(&o, x, y, x == px && y == py ? red : black, __LINE__);
        fovea_frame_free(ctx, &o);
    }
    fovea_diff_mask_result m;
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &m), FOVEA_OK);
    CHECK_EQ_INT(m.tiles_x, 2);
    CHECK_EQ_INT(m.tiles_y, 2);
    CHECK_EQ_INT(m.changed_tiles, 1);
    CHECK_EQ_INT(m.list[0], 3);
    CHECK(!m.changed[0] && !m.changed[1] && !m.changed[2] && m.changed[3]);
    CHECK_EQ_INT(m.changed_pixels, 1);
    CHECK_EQ_INT(m.diff_sum, 70);
    CHECK_EQ_INT(m.diff_max, 70);
    fovea_diff_close(&d);
    CHECK(d == NULL);

    /* strictly greater: a threshold of 50 leaves the pixel unchanged, 49 does not */
    s.threshold = 50;
    d = open_diff(&s);
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &m), FOVEA_OK);
    CHECK_EQ_INT(m.changed_pixels, 0);
    CHECK_EQ_INT(m.changed_tiles, 0);
    CHECK_EQ_INT(m.diff_sum, 70);
    fovea_diff_close(&d);
    s.threshold = 49;
    d = open_diff(&s);
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &m), FOVEA_OK);
    CHECK_EQ_INT(m.changed_pixels, 1);
    fovea_diff_close(&d);

    /* MAX measure: the heat of the largest channel difference, on 0..255 */
    s.measure = FOVEA_DIFF_MAX;
    d = open_diff(&s);
    fovea_frame o = make(w, h, FOVEA_PIX_RGB24);
    CHECK_EQ_INT(fovea_diff_heatmap(d, &a, &b, &o), FOVEA_OK);
    uint8_t hot[3];
    heat_of(50, 255, hot);
    check_rgb(&o, px, py, hot, __LINE__);
    fovea_diff_close(&d);
    fovea_frame_free(ctx, &o);
    fovea_frame_free(ctx, &a);
    fovea_frame_free(ctx, &b);
}

static void draw_square(fovea_frame *f, int x0, int y0, int side, int bg, int fg)
{
    for (int y = 0; y < f->height; y++)
        for (int x = 0; x < f->width; x++)
            set_s(f, 0, x, y, x >= x0 && x < x0 + side && y >= y0 && y < y0 + side ? fg : bg);
}

static void test_moving_square(void)
{
    fovea_frame a = make(64, 48, FOVEA_PIX_GRAY8), b = make(64, 48, FOVEA_PIX_GRAY8);
    draw_square(&a, 10, 10, 8, 20, 200);
    draw_square(&b, 14, 10, 8, 20, 200);
    fovea_diff *d = open_full_scale();
    fovea_diff_mask_result m;
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &m), FOVEA_OK);
    CHECK_EQ_INT(m.tile, 16);
    CHECK_EQ_INT(m.tiles_x, 4);
    CHECK_EQ_INT(m.tiles_y, 3);
    CHECK_EQ_INT(m.changed_pixels, 64);
    CHECK_EQ_INT(m.diff_sum, 64 * 180);
    CHECK_EQ_INT(m.diff_max, 180);
    CHECK_EQ_INT(m.changed_tiles, 4);
    const int want[4] = {0, 1, 4, 5};
    for (int i = 0; i < 4 && i < m.changed_tiles; i++)
        CHECK_EQ_INT(m.list[i], want[i]);
    /* the mask against the same frame: nothing changed */
    CHECK_EQ_INT(fovea_diff_mask(d, &b, &b, &m), FOVEA_OK);
    CHECK_EQ_INT(m.changed_pixels, 0);
    CHECK_EQ_INT(m.changed_tiles, 0);

    /* heat map in I420: unchanged pixels are blue, BT.601 limited range */
    fovea_frame o = make(64, 48, FOVEA_PIX_I420);
    CHECK_EQ_INT(fovea_diff_heatmap(d, &a, &b, &o), FOVEA_OK);
    CHECK_EQ_INT(get_s(&o, 0, 0, 0), 41);
    CHECK_EQ_INT(get_s(&o, 1, 0, 0), 240);
    CHECK_EQ_INT(get_s(&o, 2, 0, 0), 110);
    /* gray: the difference 180 of 255 at (10, 10) */
    uint8_t hot[3];
    heat_of(180, 255, hot);
    const int yv = ((66 * hot[0] + 129 * hot[1] + 25 * hot[2] + 128) >> 8) + 16;
    CHECK_EQ_INT(get_s(&o, 0, 10, 10), yv);
    /* the chroma sample over x 10..11, y 10..11 is all hot */
    CHECK_EQ_INT(get_s(&o, 2, 5, 5), ((112 * hot[0] - 94 * hot[1] - 18 * hot[2] + 128) >> 8) + 128);
    /* noise map in I420: red is (82, 90, 240), black (16, 128, 128) */
    CHECK_EQ_INT(fovea_diff_noise(d, &a, &b, &o), FOVEA_OK);
    CHECK_EQ_INT(get_s(&o, 0, 10, 10), 82);
    CHECK_EQ_INT(get_s(&o, 1, 5, 5), 90);
    CHECK_EQ_INT(get_s(&o, 2, 5, 5), 240);
    CHECK_EQ_INT(get_s(&o, 0, 0, 0), 16);
    CHECK_EQ_INT(get_s(&o, 1, 0, 0), 128);
    CHECK_EQ_INT(get_s(&o, 0, 15, 10), 16); /* inside both squares */
    fovea_frame_free(ctx, &o);
    fovea_diff_close(&d);
    fovea_frame_free(ctx, &a);
    fovea_frame_free(ctx, &b);
}

/* I420 chroma of a map: the color of the rounded mean of the covered pixels */
static void test_i420_chroma_mean(void)
{
    fovea_frame a = make(15, 11, FOVEA_PIX_GRAY8), b = make(15, 11, FOVEA_PIX_GRAY8);
    fovea_frame o = make(15, 11, FOVEA_PIX_I420);
    fovea_frame_fill(ctx, &a, 20);
    fovea_frame_fill(ctx, &b, 20);
    set_s(&b, 0, 7, 9, 220);   /* one hot pixel of the 2x2 block x 6..7, y 8..9 */
    set_s(&b, 0, 14, 10, 120); /* the only pixel of the corner chroma sample */
    fovea_diff *d = open_full_scale();
    CHECK_EQ_INT(fovea_diff_heatmap(d, &a, &b, &o), FOVEA_OK);
    uint8_t blue[3], h2[3], h3[3];
    heat_of(0, 255, blue);
    heat_of(200, 255, h2);
    heat_of(100, 255, h3);
    int m[3];
    for (int c = 0; c < 3; c++)
        m[c] = (3 * blue[c] + h2[c] + 2) / 4;
    CHECK_EQ_INT(get_s(&o, 1, 3, 4), ((-38 * m[0] - 74 * m[1] + 112 * m[2] + 128) >> 8) + 128);
    CHECK_EQ_INT(get_s(&o, 2, 3, 4), ((112 * m[0] - 94 * m[1] - 18 * m[2] + 128) >> 8) + 128);
    CHECK_EQ_INT(get_s(&o, 1, 7, 5), ((-38 * h3[0] - 74 * h3[1] + 112 * h3[2] + 128) >> 8) + 128);
    CHECK_EQ_INT(get_s(&o, 0, 14, 10), ((66 * h3[0] + 129 * h3[1] + 25 * h3[2] + 128) >> 8) + 16);
    fovea_diff_close(&d);
    fovea_frame_free(ctx, &o);
    fovea_frame_free(ctx, &a);
    fovea_frame_free(ctx, &b);
}

static void test_gradient(void)
{
    const int w = 1024, h = 3;
    fovea_frame a = make(w, h, FOVEA_PIX_GRAY10), b = make(w, h, FOVEA_PIX_GRAY10);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            set_s(&a, 0, x, y, 0);
            set_s(&b, 0, x, y, x);
        }
    fovea_frame o = make(w, h, FOVEA_PIX_RGB24);
    /* the full scale, the default (a quarter of 1023, rounded up) and 100 */
    static const int norms[3] = {0, FOVEA_DIFF_NORMALIZE_QUARTER, 100};
    for (int k = 0; k < 3; k++) {
        const int norm = norms[k];
        fovea_diff_settings s;
        fovea_diff_default_settings(&s);
        CHECK_EQ_INT(s.normalize_max, FOVEA_DIFF_NORMALIZE_QUARTER);
        s.normalize_max = norm;
        fovea_diff *d = open_diff(&s);
        CHECK_EQ_INT(fovea_diff_heatmap(d, &a, &b, &o), FOVEA_OK);
        for (int x = 0; x < w; x++) {
            uint8_t c[3];
            heat_of(x, norm > 0 ? norm : norm == 0 ? 1023 : 256, c);
            check_rgb(&o, x, h - 1, c, __LINE__);
        }
        fovea_diff_close(&d);
    }
    /* the gradient ends red */
    const uint8_t red[3] = {255, 0, 0};
    check_rgb(&o, w - 1, 0, red, __LINE__);
    check_rgb(&o, 100, 0, red, __LINE__);
    fovea_frame_free(ctx, &o);
    fovea_frame_free(ctx, &a);
    fovea_frame_free(ctx, &b);
}

/* Every format: one sample of plane 0 changed by 11 changes exactly one pixel;
 * a chroma sample changes every pixel it covers (clipped at the borders). */
static void test_every_format(void)
{
    test_rng r;
    test_rng_seed(&r, 4242);
    const int w = 15, h = 9;
    fovea_diff *d = open_diff(NULL);
    for (int f = FOVEA_PIX_NONE + 1; f < FOVEA_PIX_COUNT; f++) {
        const fovea_pixfmt_desc *desc = fovea_pixfmt_get_desc((fovea_pixfmt)f);
        fovea_frame a = make(w, h, (fovea_pixfmt)f), b = make(w, h, (fovea_pixfmt)f);
        test_fill_random(&a, &r);
        REQUIRE(fovea_frame_copy(ctx, &b, &a) == FOVEA_OK);
        const int comp = desc->is_rgb ? desc->components : 1;
        bump(&b, 0, 6 * comp + (desc->is_rgb ? 2 : 0), 7, 11);
        fovea_diff_mask_result m;
        CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &m), FOVEA_OK);
        if (m.changed_pixels != 1 || m.diff_sum != 11 || m.changed_tiles != 1)
            fprintf(stderr, "format %s:\n", desc->name);
        CHECK_EQ_INT(m.changed_pixels, 1);
        CHECK_EQ_INT(m.diff_sum, 11);
        CHECK_EQ_INT(m.changed_tiles, 1);
        if (desc->is_rgb && desc->components == 4) {
            /* alpha is not compared */
            REQUIRE(fovea_frame_copy(ctx, &b, &a) == FOVEA_OK);
            bump(&b, 0, 4 * 3 + 3, 2, 100);
            CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &m), FOVEA_OK);
            CHECK_EQ_INT(m.changed_pixels, 0);
        }
        if (desc->planes > 1) {
            /* the last chroma sample (the U of NV12's pair) of the last chroma row */
            REQUIRE(fovea_frame_copy(ctx, &b, &a) == FOVEA_OK);
            const int cw = (w + (1 << desc->log2_chroma_w) - 1) >> desc->log2_chroma_w;
            const int ch = (h + (1 << desc->log2_chroma_h) - 1) >> desc->log2_chroma_h;
            bump(&b, 1, desc->planes == 2 ? 2 * (cw - 1) : cw - 1, ch - 1, 30);
            /* covered pixels: x from (cw-1) << sw to w-1, y likewise */
            const int nx = w - ((cw - 1) << desc->log2_chroma_w);
            const int ny = h - ((ch - 1) << desc->log2_chroma_h);
            CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &m), FOVEA_OK);
            if (m.changed_pixels != nx * ny)
                fprintf(stderr, "format %s chroma:\n", desc->name);
            CHECK_EQ_INT(m.changed_pixels, nx * ny);
            CHECK_EQ_INT(m.diff_sum, 30 * nx * ny);
        }
        fovea_frame o = make(w, h, FOVEA_PIX_RGB24);
        CHECK_EQ_INT(fovea_diff_heatmap(d, &a, &b, &o), FOVEA_OK);
        fovea_frame_free(ctx, &o);
        fovea_frame_free(ctx, &a);
        fovea_frame_free(ctx, &b);
    }
    fovea_diff_close(&d);
}

static void test_overlay(void)
{
    test_rng r;
    test_rng_seed(&r, 7);
    const int w = 17, h = 7;
    fovea_pixfmt fmts[3] = {FOVEA_PIX_RGB24, FOVEA_PIX_RGBA, FOVEA_PIX_I420};
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    s.noise_mode = FOVEA_DIFF_NOISE_OVERLAY;
    fovea_diff *d = open_diff(&s);
    for (int k = 0; k < 3; k++) {
        fovea_frame a = make(w, h, fmts[k]), b = make(w, h, fmts[k]), keep = make(w, h, fmts[k]);
        fovea_frame o = make(w, h, fmts[k]);
        test_fill_random(&a, &r);
        REQUIRE(fovea_frame_copy(ctx, &b, &a) == FOVEA_OK);
        bump(&b, 0, fmts[k] == FOVEA_PIX_I420 ? 16 : 3 * (fmts[k] == FOVEA_PIX_RGBA ? 4 : 3) + 1, 6,
             40);
        REQUIRE(fovea_frame_copy(ctx, &keep, &b) == FOVEA_OK);
        /* into another frame: cur, with the changed pixel red */
        fovea_frame_fill(ctx, &o, 0x55);
        CHECK_EQ_INT(fovea_diff_noise(d, &a, &b, &o), FOVEA_OK);
        /* in place: the same */
        CHECK_EQ_INT(fovea_diff_noise(d, &a, &b, &b), FOVEA_OK);
        CHECK(fovea_frame_equal(&o, &b));
        const int cx = fmts[k] == FOVEA_PIX_I420 ? 16 : 3, cy = 6;
        if (fmts[k] == FOVEA_PIX_I420) {
            CHECK_EQ_INT(get_s(&o, 0, cx, cy), 82);
            CHECK_EQ_INT(get_s(&o, 1, cx / 2, cy / 2), 90);
            CHECK_EQ_INT(get_s(&o, 2, cx / 2, cy / 2), 240);
            set_s(&keep, 0, cx, cy, 82);
            set_s(&keep, 1, cx / 2, cy / 2, 90);
            set_s(&keep, 2, cx / 2, cy / 2, 240);
        } else {
            const int px = fmts[k] == FOVEA_PIX_RGBA ? 4 : 3;
            uint8_t *p = keep.data[0] + cy * keep.stride[0] + px * cx;
            p[0] = 255;
            p[1] = p[2] = 0;
            CHECK_EQ_INT(get_s(&o, 0, px * cx, cy), 255);
            CHECK_EQ_INT(get_s(&o, 0, px * cx + 1, cy), 0);
            CHECK_EQ_INT(get_s(&o, 0, px * cx + 2, cy), 0);
            /* alpha stays the current frame's */
            if (px == 4)
                CHECK_EQ_INT(get_s(&o, 0, 4 * cx + 3, cy), get_s(&a, 0, 4 * cx + 3, cy));
        }
        /* everything else is the current frame */
        CHECK(fovea_frame_equal(&o, &keep));
        fovea_frame_free(ctx, &o);
        fovea_frame_free(ctx, &keep);
        fovea_frame_free(ctx, &a);
        fovea_frame_free(ctx, &b);
    }
    fovea_diff_close(&d);
}

static void test_errors(void)
{
    fovea_diff *d = NULL;
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    s.tile = 12;
    CHECK_EQ_INT(fovea_diff_open(&d, ctx, &s), FOVEA_ERR_INVALID_ARG);
    CHECK(d == NULL);
    CHECK(strstr(fovea_last_error(ctx), "tile") != NULL);
    fovea_diff_default_settings(&s);
    s.threshold = -2; /* -1 is FOVEA_DIFF_THRESHOLD_AUTO */
    CHECK_EQ_INT(fovea_diff_open(&d, ctx, &s), FOVEA_ERR_INVALID_ARG);
    fovea_diff_default_settings(&s);
    s.normalize_max = -2; /* -1 is FOVEA_DIFF_NORMALIZE_QUARTER */
    CHECK_EQ_INT(fovea_diff_open(&d, ctx, &s), FOVEA_ERR_INVALID_ARG);
    fovea_diff_default_settings(&s);
    s.measure = (fovea_diff_measure)5;
    CHECK_EQ_INT(fovea_diff_open(&d, ctx, &s), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_diff_open(NULL, ctx, NULL), FOVEA_ERR_INVALID_ARG);
    d = open_diff(NULL);
    fovea_frame a = make(16, 8, FOVEA_PIX_RGB24), b = make(16, 9, FOVEA_PIX_RGB24);
    fovea_frame c = make(16, 8, FOVEA_PIX_RGBA), o = make(16, 8, FOVEA_PIX_I444);
    fovea_frame_fill(ctx, &a, 1);
    fovea_frame_fill(ctx, &b, 1);
    fovea_frame_fill(ctx, &c, 1);
    fovea_diff_mask_result m;
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &m), FOVEA_ERR_MISMATCH);
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &c, &m), FOVEA_ERR_MISMATCH);
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &a, NULL), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_diff_mask(d, NULL, &a, &m), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_diff_heatmap(d, &a, &a, &o), FOVEA_ERR_UNSUPPORTED);
    CHECK_EQ_INT(fovea_diff_heatmap(d, &a, &a, &c), FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_heatmap(NULL, &a, &a, &c), FOVEA_ERR_INVALID_ARG);
    /* device frames wait for the CUDA backend */
    fovea_frame dev = a;
    dev.mem = FOVEA_MEM_DEVICE;
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &dev, &m), FOVEA_ERR_UNSUPPORTED);
    CHECK(strstr(fovea_last_error(ctx), "device") != NULL);
    fovea_diff_close(&d);
    /* overlay needs the current frame's format */
    fovea_diff_default_settings(&s);
    s.noise_mode = FOVEA_DIFF_NOISE_OVERLAY;
    d = open_diff(&s);
    CHECK_EQ_INT(fovea_diff_noise(d, &a, &a, &c), FOVEA_ERR_MISMATCH);
    fovea_diff_close(&d);
    fovea_diff_close(&d);
    fovea_diff_close(NULL);
    fovea_frame_free(ctx, &a);
    fovea_frame_free(ctx, &b);
    fovea_frame_free(ctx, &c);
    fovea_frame_free(ctx, &o);
}

/* fovea_diff_mask_submit / _receive: the mask of fovea_diff_mask, one
 * pending at a time (a second submit is FOVEA_AGAIN: receive first), every
 * other call refused meanwhile, FOVEA_AGAIN from receive without one. */
static void test_submit(void)
{
    test_rng r;
    test_rng_seed(&r, 99);
    fovea_diff *d = open_diff(NULL);
    fovea_frame a = make(37, 21, FOVEA_PIX_I420), b = make(37, 21, FOVEA_PIX_I420);
    fovea_frame o = make(37, 21, FOVEA_PIX_RGB24);
    test_fill_random(&a, &r);
    REQUIRE(fovea_frame_copy(ctx, &b, &a) == FOVEA_OK);
    bump(&b, 0, 20, 11, 50);
    bump(&b, 0, 36, 20, 50);
    fovea_diff_mask_result want, got;
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &want), FOVEA_OK);
    const int64_t tiles = want.changed_tiles;
    int32_t list[2] = {want.list[0], want.list[1]};
    CHECK_EQ_INT(tiles, 2);
    CHECK_EQ_INT(fovea_diff_mask_receive(d, &got), FOVEA_AGAIN);
    CHECK_EQ_INT(fovea_diff_mask_submit(d, &a, &b), FOVEA_OK);
    CHECK_EQ_INT(fovea_diff_mask_submit(d, &a, &b), FOVEA_AGAIN);
    CHECK_EQ_INT(fovea_diff_heatmap(d, &a, &b, &o), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "pending") != NULL);
    CHECK_EQ_INT(fovea_diff_mask(d, &a, &b, &want), FOVEA_ERR_INVALID_ARG);
    double sigma;
    CHECK_EQ_INT(fovea_diff_noise_sigma(d, &a, &b, &sigma), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_diff_denoise(d, &a, &b), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_diff_mask_receive(d, NULL), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_diff_mask_receive(d, &got), FOVEA_OK);
    CHECK_EQ_INT(got.changed_tiles, tiles);
    CHECK_EQ_INT(got.changed_pixels, want.changed_pixels);
    CHECK_EQ_INT(got.diff_sum, 100);
    CHECK(got.changed_tiles == 2 && got.list[0] == list[0] && got.list[1] == list[1]);
    CHECK_EQ_INT(fovea_diff_mask_receive(d, &got), FOVEA_AGAIN);
    CHECK_EQ_INT(fovea_diff_heatmap(d, &a, &b, &o), FOVEA_OK);
    /* a refused submit leaves nothing pending */
    CHECK_EQ_INT(fovea_diff_mask_submit(d, &a, &o), FOVEA_ERR_MISMATCH);
    CHECK_EQ_INT(fovea_diff_mask_receive(d, &got), FOVEA_AGAIN);
    CHECK_EQ_INT(fovea_diff_mask_submit(NULL, &a, &b), FOVEA_ERR_INVALID_ARG);
    /* closing with a mask pending */
    CHECK_EQ_INT(fovea_diff_mask_submit(d, &a, &b), FOVEA_OK);
    fovea_diff_close(&d);
    fovea_frame_free(ctx, &a);
    fovea_frame_free(ctx, &b);
    fovea_frame_free(ctx, &o);
}

int main(void)
{
    fovea_settings set;
    fovea_default_settings(&set);
    set.backend = FOVEA_BACKEND_CPU;
    set.threads = 2;
    REQUIRE(fovea_open(&ctx, &set) == FOVEA_OK);
    test_single_pixel();
    test_moving_square();
    test_gradient();
    test_i420_chroma_mean();
    test_every_format();
    test_overlay();
    test_errors();
    test_submit();
    fovea_close(&ctx);
    return test_finish("test_diff_maps");
}
