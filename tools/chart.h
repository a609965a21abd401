/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Line charts of per-frame values as PNG, drawn with cairo: the one chart helper
 * of every command that plots (vif --plot; vmaf and diff next). CLI side only. */
#ifndef FOVEA_TOOLS_CHART_H
#define FOVEA_TOOLS_CHART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CHART_MAX_SERIES 8
#define CHART_MAX_MARKS 16
#define CHART_MAX_TICKS 32

/* One line: y[i] is the value at x = x_first + i; NaN or infinite = a gap
 * (a value with gaps on both sides is drawn as a dot). The chart borrows name
 * and y: they must live until the chart is written. */
typedef struct chart_series {
    const char *name; /* legend text (UTF-8; invalid bytes are shown as '?') */
    uint32_t rgb;     /* color 0xRRGGBB */
    const double *y;
    size_t n;
} chart_series;

/* A chart: fill it after chart_init(). Strings and arrays are borrowed. */
typedef struct chart {
    int width, height;    /* pixels; chart_init: 1200 x 500 */
    const char *title;    /* top line, bold; NULL = none */
    const char *subtitle; /* under the title, gray; NULL = none */
    const char *xlabel, *ylabel;
    double x_first;      /* x of every series' y[0]; chart_init: 0 */
    double y_min, y_max; /* fixed y range ends; NaN = from the data (chart_init: both NaN) */
    chart_series series[CHART_MAX_SERIES];
    int nseries;
    /* marked points of series[mark_series]: a ring and the point's x as a label,
     * e.g. the lowest frames from chart_lowest() */
    int mark_series;
    size_t marks[CHART_MAX_MARKS];
    int nmarks;
    const char *mark_label; /* legend text of the marks; NULL = none */
} chart;

/* The ticks of one axis: values at multiples of step (1, 2 or 5 x 10^k). */
typedef struct chart_ticks {
    double lo, hi; /* the axis range */
    double step;
    int decimals; /* digits after the point that show the step exactly */
    int n;
    double v[CHART_MAX_TICKS];
} chart_ticks;

/* Where the chart's parts land, in pixels (for the tests and for callers that
 * annotate). */
typedef struct chart_layout {
    double left, top, right, bottom; /* the plot area */
    chart_ticks x, y;
} chart_layout;

/* Defaults: 1200x500, no text, automatic y range, no series. */
void chart_init(chart *c);

/* Add a series. @return 0, or -1 when CHART_MAX_SERIES are already there */
int chart_add_series(chart *c, const char *name, uint32_t rgb, const double *y, size_t n);

/* Indices of the k lowest finite values of y, lowest first (ties: the earlier
 * index first). @return how many were found (<= k; fewer when y has fewer
 * finite values) */
int chart_lowest(const double *y, size_t n, size_t *idx, int k);

/* Ticks at "nice" values (1, 2 or 5 x 10^k, at least min_step apart when
 * min_step > 0) for the range [lo, hi], at most max_ticks of them. With extend
 * the axis range grows to the ticks around the data; without, it stays [lo, hi]
 * and the ticks are those inside. An empty range (lo == hi) is widened around
 * its value first. @return 0, or -1 for non-finite ends or hi < lo */
int chart_nice_ticks(double lo, double hi, int max_ticks, double min_step, int extend,
                     chart_ticks *t);

/* A tick value with the axis' decimals ("0.3", "0.95", "1200"; never "-0"). */
void chart_format_tick(double v, int decimals, char *buf, size_t n);

/* 1 when this build can draw (cairo was found), 0 otherwise: then
 * chart_layout_compute and chart_write_png fail. */
int chart_available(void);

/* The plot area and the axes' ticks the chart will be drawn with.
 * @return 0, or -1 with a message in err */
int chart_layout_compute(const chart *c, chart_layout *l, char *err, size_t errsz);

/* A data point's pixel position in a layout. */
void chart_to_pixel(const chart_layout *l, double x, double y, double *px, double *py);

/* Draw the chart and write it to fp as an RGB PNG of c->width x c->height (the
 * caller opens fp, and closes it and checks it for write errors).
 * @return 0, or -1 with a message in err */
int chart_write_png(const chart *c, FILE *fp, char *err, size_t errsz);

#endif
