/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CLI's chart helper (tools/chart.c): nice ticks, lowest values, and charts
 * rendered to PNG with their text, marks and gaps where they belong. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "chart.h"
#include "testutil.h"

/* ------------------------------------------------------------------ ticks */

/* step is 1, 2 or 5 times a power of ten */
static int is_nice(double step)
{
    if (!(step > 0) || !isfinite(step))
        return 0;
    const double m = step / pow(10.0, floor(log10(step) + 1e-12));
    return fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9;
}

/* Every tick a multiple of a nice step, in order, inside the axis, and each
 * label the short decimal the step calls for. */
static void check_ticks(const chart_ticks *t, double lo, double hi, int max_ticks, int extend)
{
    CHECK(is_nice(t->step));
    CHECK(t->n >= 1 && t->n <= max_ticks);
    CHECK(t->lo <= lo + 1e-12 && t->hi >= hi - 1e-12);
    if (!extend)
        CHECK(t->lo == lo && t->hi == hi);
    for (int i = 0; i < t->n; i++) {
        const double k = t->v[i] / t->step;
        CHECK(fabs(k - round(k)) < 1e-9);
        CHECK(t->v[i] >= t->lo - 1e-12 && t->v[i] <= t->hi + 1e-12);
        if (i > 0)
            CHECK(fabs(t->v[i] - t->v[i - 1] - t->step) < 1e-9 * t->step);
        char buf[64];
        chart_format_tick(t->v[i], t->decimals, buf, sizeof(buf));
        /* the step's digits, never "0.300000000" */
        CHECK(strlen(buf) <= (size_t)t->decimals + 8);
        CHECK(fabs(strtod(buf, NULL) - t->v[i]) < 1e-12 * fmax(1, fabs(t->v[i])));
    }
    if (extend) /* the axis ends on ticks: the data fill it */
        CHECK(t->v[0] == t->lo && t->v[t->n - 1] == t->hi);
}

static void test_ticks(void)
{
    chart_ticks t;
    char buf[64];

    CHECK_EQ_INT(chart_nice_ticks(0, 1, 8, 0, 1, &t), 0);
    check_ticks(&t, 0, 1, 8, 1);
    CHECK(fabs(t.step - 0.2) < 1e-15);
    CHECK_EQ_INT(t.n, 6);
    CHECK_EQ_INT(t.decimals, 1);
    chart_format_tick(t.v[3], t.decimals, buf, sizeof(buf));
    CHECK(strcmp(buf, "0.6") == 0);
    CHECK(t.v[3] == 0.6); /* the decimal, not 3 * 0.2 = 0.6000000000000001 */

    CHECK_EQ_INT(chart_nice_ticks(0, 1, 11, 0, 0, &t), 0);
    check_ticks(&t, 0, 1, 11, 0);
    CHECK(fabs(t.step - 0.1) < 1e-15);
    CHECK_EQ_INT(t.n, 11);
    chart_format_tick(t.v[3], t.decimals, buf, sizeof(buf));
    CHECK(strcmp(buf, "0.3") == 0);

    CHECK_EQ_INT(chart_nice_ticks(0.93, 0.97, 8, 0, 1, &t), 0);
    check_ticks(&t, 0.93, 0.97, 8, 1);
    CHECK(fabs(t.step - 0.01) < 1e-15);
    CHECK(fabs(t.lo - 0.93) < 1e-12 && fabs(t.hi - 0.97) < 1e-12);
    CHECK_EQ_INT(t.n, 5);
    chart_format_tick(t.v[1], t.decimals, buf, sizeof(buf));
    CHECK(strcmp(buf, "0.94") == 0);

    CHECK_EQ_INT(chart_nice_ticks(0.9312, 0.9688, 10, 0, 1, &t), 0);
    check_ticks(&t, 0.9312, 0.9688, 10, 1);
    CHECK(fabs(t.step - 0.005) < 1e-15);
    CHECK_EQ_INT(t.decimals, 3);

    CHECK_EQ_INT(chart_nice_ticks(0, 1234, 8, 0, 1, &t), 0);
    check_ticks(&t, 0, 1234, 8, 1);
    CHECK(t.step == 200 && t.hi == 1400 && t.decimals == 0);
    chart_format_tick(t.v[6], t.decimals, buf, sizeof(buf));
    CHECK(strcmp(buf, "1200") == 0);

    /* frame numbers: whole steps however many ticks fit */
    CHECK_EQ_INT(chart_nice_ticks(0, 3, 30, 1, 0, &t), 0);
    check_ticks(&t, 0, 3, 30, 0);
    CHECK(t.step == 1 && t.n == 4 && t.decimals == 0);
    CHECK_EQ_INT(chart_nice_ticks(0, 99999, 12, 1, 0, &t), 0);
    check_ticks(&t, 0, 99999, 12, 0);
    CHECK(t.step == 10000);

    /* a constant: a range around it, never a zero step */
    const double consts[] = {0.5, 0, -3, 1e-7, 12345};
    for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++) {
        CHECK_EQ_INT(chart_nice_ticks(consts[i], consts[i], 8, 0, 1, &t), 0);
        CHECK(t.lo < consts[i] && t.hi > consts[i]);
        check_ticks(&t, consts[i], consts[i], 8, 1);
    }
    CHECK_EQ_INT(chart_nice_ticks(NAN, 1, 8, 0, 1, &t), -1);
    CHECK_EQ_INT(chart_nice_ticks(0, INFINITY, 8, 0, 1, &t), -1);
    CHECK_EQ_INT(chart_nice_ticks(1, 0, 8, 0, 1, &t), -1);
    CHECK_EQ_INT(chart_nice_ticks(-1e308, 1e308, 8, 0, 1, &t), -1);

    chart_format_tick(-0.0001, 2, buf, sizeof(buf));
    CHECK(strcmp(buf, "0.00") == 0);
    chart_format_tick(-0.25, 2, buf, sizeof(buf));
    CHECK(strcmp(buf, "-0.25") == 0);
}

static void test_lowest(void)
{
    const double y[] = {0.9, NAN, 0.5, 0.7, 0.5, INFINITY, 0.1, 0.8};
    size_t idx[8];
    CHECK_EQ_INT(chart_lowest(y, 8, idx, 3), 3);
    CHECK(idx[0] == 6 && idx[1] == 2 && idx[2] == 4); /* ties: earlier first */
    CHECK_EQ_INT(chart_lowest(y, 8, idx, 8), 6);      /* finite values only */
    CHECK(idx[5] == 0);
    CHECK_EQ_INT(chart_lowest(y, 0, idx, 3), 0);
    CHECK_EQ_INT(chart_lowest(y, 8, idx, 0), 0);
}

/* ------------------------------------------------------------------ rendering */

typedef struct image {
    cairo_surface_t *sf;
    const uint8_t *data;
    int w, h, stride;
} image;

/* Render c to a PNG file with chart_write_png, check its header, read it back. */
static int render(const chart *c, image *im)
{
    char *path = test_tmp_path(".png");
    FILE *fp = fopen(path, "wb");
    REQUIRE(fp);
    char err[256] = "";
    const int rc = chart_write_png(c, fp, err, sizeof(err));
    REQUIRE(fclose(fp) == 0);
    if (rc != 0) {
        fprintf(stderr, "chart_write_png: %s\n", err);
        free(path);
        return -1;
    }
    size_t size;
    uint8_t *bytes = test_read_file(path, &size);
    static const uint8_t magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    CHECK(size > 33 && memcmp(bytes, magic, 8) == 0 && memcmp(bytes + 12, "IHDR", 4) == 0);
    if (size > 33) {
        const uint32_t w = (uint32_t)bytes[16] << 24 | bytes[17] << 16 | bytes[18] << 8 | bytes[19];
        const uint32_t h = (uint32_t)bytes[20] << 24 | bytes[21] << 16 | bytes[22] << 8 | bytes[23];
        CHECK_EQ_INT(w, c->width);
        CHECK_EQ_INT(h, c->height);
    }
    free(bytes);
    im->sf = cairo_image_surface_create_from_png(path);
    free(path);
    REQUIRE(cairo_surface_status(im->sf) == CAIRO_STATUS_SUCCESS);
    im->w = cairo_image_surface_get_width(im->sf);
    im->h = cairo_image_surface_get_height(im->sf);
    im->stride = cairo_image_surface_get_stride(im->sf);
    im->data = cairo_image_surface_get_data(im->sf);
    CHECK_EQ_INT(im->w, c->width);
    CHECK_EQ_INT(im->h, c->height);
    return 0;
}

static void pixel(const image *im, int x, int y, int *r, int *g, int *b)
{
    const uint32_t p = *(const uint32_t *)(im->data + (size_t)y * im->stride + 4 * (size_t)x);
    *r = (p >> 16) & 255;
    *g = (p >> 8) & 255;
    *b = p & 255;
}

/* Pixels of a box (clipped to the image) that are text-dark. */
static int count_dark(const image *im, double x0, double y0, double x1, double y1)
{
    int n = 0;
    for (int y = (int)fmax(0, y0); y < (int)fmin(im->h, y1); y++)
        for (int x = (int)fmax(0, x0); x < (int)fmin(im->w, x1); x++) {
            int r, g, b;
            pixel(im, x, y, &r, &g, &b);
            n += 299 * r + 587 * g + 114 * b < 80 * 1000;
        }
    return n;
}

/* Pixels of a box close to color rgb. */
static int count_color(const image *im, double x0, double y0, double x1, double y1, uint32_t rgb)
{
    int n = 0;
    for (int y = (int)fmax(0, y0); y < (int)fmin(im->h, y1); y++)
        for (int x = (int)fmax(0, x0); x < (int)fmin(im->w, x1); x++) {
            int r, g, b;
            pixel(im, x, y, &r, &g, &b);
            n += abs(r - (int)(rgb >> 16 & 255)) < 40 && abs(g - (int)(rgb >> 8 & 255)) < 40 &&
                 abs(b - (int)(rgb & 255)) < 40;
        }
    return n;
}

#define NF 300

static void test_render(void)
{
    static double y[4][NF];
    static const uint32_t colors[4] = {0xd62728, 0xff7f0e, 0x2ca02c, 0x1f77b4};
    static const char *names[4] = {"scale 0", "scale 1", "scale 2", "scale 3"};
    test_rng rng;
    test_rng_seed(&rng, 20240601);
    chart c;
    chart_init(&c);
    CHECK(c.width == 1200 && c.height == 500);
    for (int s = 0; s < 4; s++) {
        for (int i = 0; i < NF; i++)
            y[s][i] = 0.62 + 0.08 * s + 0.04 * sin(i / 17.0) + 0.02 * test_rng_double(&rng);
        CHECK_EQ_INT(chart_add_series(&c, names[s], colors[s], y[s], NF), 0);
    }
    /* the dips whose frames get marked */
    const size_t dips[5] = {37, 150, 152, 220, 290};
    for (int k = 0; k < 5; k++)
        y[0][dips[k]] = 0.25 + 0.01 * k;
    c.title = "VIF: dis.y4m against ref.y4m";
    c.subtitle = "48x32 8-bit, 300 frames";
    c.xlabel = "frame";
    c.ylabel = "VIF";
    c.y_min = 0;
    c.y_max = 1;
    c.mark_series = 0;
    c.nmarks = chart_lowest(y[0], NF, c.marks, 5);
    c.mark_label = "lowest 5 of scale 0";
    CHECK_EQ_INT(c.nmarks, 5);
    CHECK(c.marks[0] == 37 && c.marks[4] == 290);

    chart_layout l;
    char err[256];
    REQUIRE(chart_layout_compute(&c, &l, err, sizeof(err)) == 0);
    CHECK(l.left > 40 && l.right < c.width - 10 && l.top > 50 && l.bottom < c.height - 30);
    CHECK(l.y.lo == 0 && l.y.hi == 1 && is_nice(l.y.step) && l.y.n >= 5);
    CHECK(l.x.lo == 0 && l.x.hi == NF - 1 && l.x.step >= 1 && l.x.n >= 5);

    image im;
    REQUIRE(render(&c, &im) == 0);
    /* text: the title (top left), the x label (under the plot's middle), the y
     * tick labels (left of the plot) and the x tick labels (under the plot) */
    CHECK(count_dark(&im, 0, 0, c.width / 2.0, 30) > 100);
    CHECK(count_dark(&im, (l.left + l.right) / 2 - 60, l.bottom + 26, (l.left + l.right) / 2 + 60,
                     c.height) > 30);
    CHECK(count_dark(&im, l.left - 45, l.top - 8, l.left - 6, l.bottom + 8) > 100);
    CHECK(count_dark(&im, l.left + 20, l.bottom + 7, l.right, l.bottom + 25) > 100);
    /* no text inside the plot outside the marks' labels: left upper quarter */
    CHECK_EQ_INT(count_dark(&im, l.left + 2, l.top + 2, l.left + 100, l.top + 60), 0);
    /* the series' colors inside the plot */
    for (int s = 0; s < 4; s++)
        CHECK(count_color(&im, l.left, l.top, l.right, l.bottom, colors[s]) > 200);

    /* the marks: a dark ring on each marked frame and its number nearby;
     * the same chart without marks has nothing dark there */
    chart plain = c;
    plain.nmarks = 0;
    image pim;
    REQUIRE(render(&plain, &pim) == 0);
    for (int k = 0; k < 5; k++) {
        double px, py;
        chart_to_pixel(&l, (double)dips[k], y[0][dips[k]], &px, &py);
        CHECK(count_dark(&im, px - 8, py - 8, px + 9, py + 9) > 20);
        CHECK_EQ_INT(count_dark(&pim, px - 8, py - 8, px + 9, py + 9), 0);
        const int near = count_dark(&im, px - 30, py - 45, px + 31, py + 46) -
                         count_dark(&im, px - 8, py - 8, px + 9, py + 9);
        CHECK(near > 30); /* the label */
        CHECK_EQ_INT(count_dark(&pim, px - 30, py - 45, px + 31, py + 46), 0);
    }
    cairo_surface_destroy(im.sf);
    cairo_surface_destroy(pim.sf);
}

/* NaN values are gaps; a value alone between gaps is a dot. */
static void test_gaps(void)
{
    static double y[100];
    for (int i = 0; i < 100; i++)
        y[i] = (i >= 40 && i < 60) || i == 79 || i == 81 ? NAN : 0.5;
    chart c;
    chart_init(&c);
    chart_add_series(&c, "gappy", 0x1f77b4, y, 100);
    c.y_min = 0;
    c.y_max = 1;
    chart_layout l;
    char err[256];
    REQUIRE(chart_layout_compute(&c, &l, err, sizeof(err)) == 0);
    image im;
    REQUIRE(render(&c, &im) == 0);
    double px, py, qx, qy;
    chart_to_pixel(&l, 20, 0.5, &px, &py);
    CHECK(count_color(&im, px - 1, py - 3, px + 2, py + 4, 0x1f77b4) > 0);
    chart_to_pixel(&l, 50, 0.5, &px, &py);
    chart_to_pixel(&l, 45, 0.5, &qx, &qy);
    CHECK_EQ_INT(count_color(&im, qx, py - 4, px + 1, py + 5, 0x1f77b4), 0);
    chart_to_pixel(&l, 80, 0.5, &px, &py);
    CHECK(count_color(&im, px - 1, py - 1, px + 2, py + 2, 0x1f77b4) > 0);
    chart_to_pixel(&l, 79, 0.5, &qx, &qy);
    CHECK_EQ_INT(count_color(&im, qx - 1, py - 4, qx + 1, py + 5, 0x1f77b4), 0);
    cairo_surface_destroy(im.sf);

    /* only gaps: an empty plot with its axes, no error */
    for (int i = 0; i < 100; i++)
        y[i] = NAN;
    REQUIRE(chart_layout_compute(&c, &l, err, sizeof(err)) == 0);
    REQUIRE(render(&c, &im) == 0);
    CHECK_EQ_INT(count_color(&im, l.left, l.top, l.right, l.bottom, 0x1f77b4), 0);
    cairo_surface_destroy(im.sf);
}

/* Degenerate data: a constant, a single frame, no series, many frames. */
static void test_degenerate(void)
{
    static double y[1000];
    chart c;
    chart_layout l;
    char err[256];
    image im;

    for (int i = 0; i < 1000; i++)
        y[i] = 0.75;
    chart_init(&c);
    chart_add_series(&c, "constant", 0xd62728, y, 1000);
    REQUIRE(chart_layout_compute(&c, &l, err, sizeof(err)) == 0);
    CHECK(l.y.lo < 0.75 && l.y.hi > 0.75 && l.y.step > 0);
    REQUIRE(render(&c, &im) == 0);
    double px, py;
    chart_to_pixel(&l, 500, 0.75, &px, &py);
    CHECK(count_color(&im, px - 1, py - 2, px + 2, py + 3, 0xd62728) > 0);
    cairo_surface_destroy(im.sf);

    /* one frame: a dot in the middle of the x axis, its number as the tick */
    chart_init(&c);
    chart_add_series(&c, "one", 0xd62728, y, 1);
    c.nmarks = chart_lowest(y, 1, c.marks, 5);
    CHECK_EQ_INT(c.nmarks, 1);
    c.x_first = 7;
    REQUIRE(chart_layout_compute(&c, &l, err, sizeof(err)) == 0);
    CHECK(l.x.lo < 7 && l.x.hi > 7 && l.x.n == 1 && l.x.v[0] == 7);
    REQUIRE(render(&c, &im) == 0);
    chart_to_pixel(&l, 7, 0.75, &px, &py);
    CHECK(fabs(px - (l.left + l.right) / 2) < 1);
    CHECK(count_color(&im, px - 1, py - 1, px + 2, py + 2, 0xd62728) > 0);
    cairo_surface_destroy(im.sf);

    /* nothing at all */
    chart_init(&c);
    REQUIRE(render(&c, &im) == 0);
    cairo_surface_destroy(im.sf);

    /* more values than pixels (drawn by column), with a gap and a spike */
    const size_t big = 200000;
    double *yb = malloc(big * sizeof(double));
    REQUIRE(yb);
    for (size_t i = 0; i < big; i++)
        yb[i] = i >= 100000 && i < 120000 ? NAN : 0.5 + 0.1 * sin((double)i / 5000.0);
    yb[50000] = 0.05;
    chart_init(&c);
    chart_add_series(&c, "many", 0x2ca02c, yb, big);
    REQUIRE(chart_layout_compute(&c, &l, err, sizeof(err)) == 0);
    REQUIRE(render(&c, &im) == 0);
    chart_to_pixel(&l, 50000, 0.05, &px, &py);
    CHECK(count_color(&im, px - 2, py - 2, px + 3, py + 3, 0x2ca02c) > 0); /* the spike */
    chart_to_pixel(&l, 110000, 0.5, &px, &py);
    CHECK_EQ_INT(count_color(&im, px - 2, l.top, px + 3, l.bottom, 0x2ca02c), 0);
    cairo_surface_destroy(im.sf);
    free(yb);
}

/* Text cairo would refuse (invalid UTF-8, control characters, very long) is
 * drawn anyway; sizes out of range and write errors are reported. */
static void test_text_and_errors(void)
{
    static double y[10] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
    char longname[5000];
    memset(longname, 'a', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = 0;
    longname[0] = 'Z';
    chart c;
    chart_init(&c);
    chart_add_series(&c, "bad \xff\xfe name\n", 0x1f77b4, y, 10);
    c.title = "VIF: caf\xc3\xa9 \xe9t\xe9 \xed\xa0\x80 \xc0\xaf end";
    c.subtitle = longname;
    c.xlabel = "frame";
    c.ylabel = "VIF";
    image im;
    REQUIRE(render(&c, &im) == 0);
    CHECK(count_dark(&im, 0, 0, c.width / 4.0, 30) > 100);
    cairo_surface_destroy(im.sf);

    char err[256] = "";
    c.width = 100;
    FILE *fp = tmpfile();
    REQUIRE(fp);
    CHECK_EQ_INT(chart_write_png(&c, fp, err, sizeof(err)), -1);
    CHECK(strstr(err, "100x500") != NULL);
    CHECK_EQ_INT(ftell(fp), 0); /* nothing written */
    fclose(fp);

    c.width = 1200;
    fp = fopen("/dev/full", "wb");
    if (fp) {
        err[0] = 0;
        CHECK_EQ_INT(chart_write_png(&c, fp, err, sizeof(err)), -1);
        CHECK(strstr(err, "write error") != NULL);
        fclose(fp);
    }
}

int main(void)
{
    CHECK_EQ_INT(chart_available(), 1);
    test_ticks();
    test_lowest();
    test_render();
    test_gaps();
    test_degenerate();
    test_text_and_errors();
    return test_finish("test_tools_chart");
}
