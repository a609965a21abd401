/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Line charts of per-frame values as PNG with cairo: nice ticks, grid, axis
 * labels, title, legend and marked points. Without cairo only the arithmetic
 * (lowest values here, ticks in chart_axis.c) is built and drawing reports
 * that it is missing. */
#include "chart.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifdef FOVEA_HAVE_CAIRO
#include <cairo.h>
#endif

#define PI 3.14159265358979323846

void chart_init(chart *c)
{
    memset(c, 0, sizeof(*c));
    c->width = 1200;
    c->height = 500;
    c->y_min = NAN;
    c->y_max = NAN;
}

int chart_add_series(chart *c, const char *name, uint32_t rgb, const double *y, size_t n)
{
    if (c->nseries >= CHART_MAX_SERIES)
        return -1;
    chart_series *s = &c->series[c->nseries++];
    s->name = name;
    s->rgb = rgb;
    s->y = y;
    s->n = n;
    return 0;
}

int chart_lowest(const double *y, size_t n, size_t *idx, int k)
{
    int got = 0;
    if (k <= 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const double v = y[i];
        if (!isfinite(v) || (got == k && !(v < y[idx[k - 1]])))
            continue;
        /* insert after every value <= v: ties keep the earlier index first */
        int pos = got < k ? got : k - 1;
        while (pos > 0 && y[idx[pos - 1]] > v) {
            idx[pos] = idx[pos - 1];
            pos--;
        }
        idx[pos] = i;
        if (got < k)
            got++;
    }
    return got;
}

/* ------------------------------------------------------------------ errors */

static void set_err(char *err, size_t errsz, const char *fmt, ...)
{
    if (!err || errsz == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsz, fmt, ap);
    va_end(ap);
}

#ifndef FOVEA_HAVE_CAIRO

int chart_available(void)
{
    return 0;
}

int chart_layout_compute(const chart *c, chart_layout *l, char *err, size_t errsz)
{
    (void)c;
    memset(l, 0, sizeof(*l));
    set_err(err, errsz, "charts need a build with cairo (libcairo2-dev)");
    return -1;
}

int chart_write_png(const chart *c, FILE *fp, char *err, size_t errsz)
{
    (void)c;
    (void)fp;
    set_err(err, errsz, "charts need a build with cairo (libcairo2-dev)");
    return -1;
}

#else /* FOVEA_HAVE_CAIRO */

int chart_available(void)
{
    return 1;
}

/* The chart's checks that need no drawing. */
static int check_chart(const chart *c, char *err, size_t errsz)
{
    if (c->width < 320 || c->height < 200 || c->width > 16384 || c->height > 16384) {
        set_err(err, errsz, "a chart of %dx%d: it must be 320x200 to 16384x16384", c->width,
                c->height);
        return -1;
    }
    if (c->nseries < 0 || c->nseries > CHART_MAX_SERIES || c->nmarks < 0 ||
        c->nmarks > CHART_MAX_MARKS ||
        (c->nmarks > 0 && (c->mark_series < 0 || c->mark_series >= c->nseries))) {
        set_err(err, errsz, "invalid chart: %d series, %d marks of series %d", c->nseries,
                c->nmarks, c->mark_series);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ text */

#define FONT "DejaVu Sans"
#define PAD 18.0 /* image border */
#define TITLE_PX 20.0
#define SUBTITLE_PX 13.0
#define LABEL_PX 14.0 /* axis labels, legend */
#define TICK_PX 13.0
#define MARK_PX 12.0
#define TEXT_MAX 2048 /* bytes of a string drawn */

static void rgb(cairo_t *cr, uint32_t c)
{
    cairo_set_source_rgb(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0,
                         (c & 255) / 255.0);
}

static void font(cairo_t *cr, double px, int bold)
{
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, px);
}

/* Length of the valid UTF-8 sequence at s (strict: no overlong forms, no
 * surrogates, at most U+10FFFF), or 0. cairo refuses a whole string, and then
 * stops drawing altogether, for one bad byte: file names may have any bytes. */
static size_t utf8_len(const unsigned char *s)
{
    const unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

/* s as drawable UTF-8: invalid bytes and control characters become '?'; at
 * most TEXT_MAX - 1 bytes, cut at a character boundary. */
static void sanitize(const char *s, char *out)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t o = 0;
    while (*p) {
        size_t n = utf8_len(p);
        if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
            n = 1;
            if (o + 1 >= TEXT_MAX)
                break;
            out[o++] = '?';
        } else {
            if (o + n >= TEXT_MAX)
                break;
            memcpy(out + o, p, n);
            o += n;
        }
        p += n;
    }
    out[o] = 0;
}

static double text_width(cairo_t *cr, const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    return e.x_advance;
}

/* s (sanitized) shortened in the middle with an ellipsis until it is at most
 * maxw wide: the ends of file names tell them apart. */
static void fit_text(cairo_t *cr, const char *s, double maxw, char *out)
{
    sanitize(s, out);
    if (text_width(cr, out) <= maxw)
        return;
    /* character starts: a cut never splits a character */
    static const char ell[] = "\xe2\x80\xa6"; /* U+2026 */
    char src[TEXT_MAX], tmp[TEXT_MAX];
    memcpy(src, out, TEXT_MAX);
    size_t starts[TEXT_MAX];
    size_t nch = 0, len = strlen(src);
    for (size_t i = 0; i < len; i += utf8_len((const unsigned char *)src + i))
        starts[nch++] = i;
    starts[nch] = len;
    size_t lo = 0, hi = nch - 1; /* largest count of kept characters that fits, by bisection */
    strcpy(out, ell);
    while (lo < hi) {
        const size_t keep = (lo + hi + 1) / 2;
        const size_t head = (keep + 1) / 2, tail = keep - head;
        const size_t hb = starts[head], tb = starts[nch - tail];
        memcpy(tmp, src, hb);
        memcpy(tmp + hb, ell, 3);
        memcpy(tmp + hb + 3, src + tb, len - tb);
        tmp[hb + 3 + len - tb] = 0;
        if (text_width(cr, tmp) <= maxw) {
            lo = keep;
            strcpy(out, tmp);
        } else
            hi = keep - 1;
    }
}

/* Draw s with its left edge at x, or centerd on x (align 0.5), or ending at x
 * (align 1), baseline at y. */
static void show(cairo_t *cr, const char *s, double x, double y, double align)
{
    cairo_move_to(cr, x - align * text_width(cr, s), y);
    cairo_show_text(cr, s);
}

/* The baseline that centers digits vertically on y. */
static double digits_baseline(cairo_t *cr, double y)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, "0123456789", &e);
    return y - (e.y_bearing + e.height / 2);
}

/* ------------------------------------------------------------------ layout */

/* Everything placed before drawing: the public layout and the text rows. */
typedef struct full_layout {
    chart_layout pub;
    double title_y, subtitle_y; /* baselines; 0 = none */
    double legend_y;            /* center of the first legend row */
    int legend_rows;
    double xtick_y, xlabel_y, ylabel_x;
} full_layout;

#define LEGEND_SWATCH 26.0
#define LEGEND_GAP 8.0  /* swatch to text */
#define LEGEND_SEP 22.0 /* between items */
#define LEGEND_ROW 22.0

/* Width of legend item i (i == nseries: the marks' entry). */
static double legend_item_width(cairo_t *cr, const chart *c, int i)
{
    char buf[TEXT_MAX];
    sanitize(i < c->nseries ? c->series[i].name : c->mark_label, buf);
    return LEGEND_SWATCH + LEGEND_GAP + text_width(cr, buf);
}

static int legend_items(const chart *c)
{
    return c->nseries + (c->nmarks > 0 && c->mark_label ? 1 : 0);
}

/* Rows the legend takes when it starts at x0 and may reach x1. */
static int legend_rows(cairo_t *cr, const chart *c, double x0, double x1)
{
    const int items = legend_items(c);
    int rows = items > 0;
    double x = x0;
    font(cr, LABEL_PX, 0);
    for (int i = 0; i < items; i++) {
        const double w = legend_item_width(cr, c, i);
        if (x > x0 && x + w > x1) {
            rows++;
            x = x0;
        }
        x += w + LEGEND_SEP;
    }
    return rows;
}

static void data_range(const chart *c, double *lo, double *hi, int *any)
{
    *any = 0;
    *lo = 0;
    *hi = 0;
    for (int s = 0; s < c->nseries; s++)
        for (size_t i = 0; i < c->series[s].n; i++) {
            const double v = c->series[s].y[i];
            if (!isfinite(v))
                continue;
            if (!*any || v < *lo)
                *lo = v;
            if (!*any || v > *hi)
                *hi = v;
            *any = 1;
        }
}

static int y_ticks(const chart *c, double plot_h, chart_ticks *t)
{
    const int fixlo = isfinite(c->y_min), fixhi = isfinite(c->y_max);
    double lo, hi;
    int any;
    data_range(c, &lo, &hi, &any);
    if (!any) {
        lo = 0;
        hi = 1;
    }
    if (fixlo)
        lo = c->y_min;
    if (fixhi)
        hi = c->y_max;
    if (hi < lo) {
        if (fixlo && fixhi) {
            const double m = lo;
            lo = hi;
            hi = m;
        } else if (fixlo)
            hi = lo;
        else
            lo = hi;
    }
    if (hi == lo && (fixlo || fixhi)) {
        /* widen away from the fixed end */
        const double d = lo != 0 ? pow(10.0, floor(log10(fabs(lo)))) : 1.0;
        if (fixlo)
            hi = lo + d;
        else
            lo = hi - d;
    }
    const int max_ticks = (int)(plot_h / 40.0) + 1;
    if (chart_nice_ticks(lo, hi, max_ticks, 0, !(fixlo && fixhi), t) < 0)
        return -1;
    /* a fixed end stays where it is: ticks beyond it go */
    int n = 0;
    if (fixlo)
        t->lo = lo;
    if (fixhi)
        t->hi = hi;
    for (int i = 0; i < t->n; i++)
        if (t->v[i] >= t->lo - 1e-9 * t->step && t->v[i] <= t->hi + 1e-9 * t->step)
            t->v[n++] = t->v[i];
    t->n = n;
    return 0;
}

static int compute(cairo_t *cr, const chart *c, full_layout *fl, char *err, size_t errsz)
{
    memset(fl, 0, sizeof(*fl));
    chart_layout *l = &fl->pub;
    const double W = c->width, H = c->height;
    double y = PAD;
    cairo_font_extents_t fe;

    if (c->title) {
        font(cr, TITLE_PX, 1);
        cairo_font_extents(cr, &fe);
        fl->title_y = y + fe.ascent;
        y += fe.ascent + fe.descent;
    }
    if (c->subtitle) {
        font(cr, SUBTITLE_PX, 0);
        cairo_font_extents(cr, &fe);
        y += 2;
        fl->subtitle_y = y + fe.ascent;
        y += fe.ascent + fe.descent;
    }

    /* the left margin: y label (rotated), y tick labels; known once the y
     * ticks are, which depend on the plot height: settle it in two rounds */
    font(cr, LABEL_PX, 0);
    cairo_font_extents(cr, &fe);
    const double label_h = fe.ascent + fe.descent;
    font(cr, TICK_PX, 0);
    cairo_font_extents(cr, &fe);
    const double tick_h = fe.ascent + fe.descent;

    l->right = W - PAD - 12; /* room for the last x tick label's right half */
    fl->xlabel_y = c->xlabel ? H - PAD - label_h * 0.25 : H - PAD;
    fl->xtick_y = (c->xlabel ? H - PAD - label_h - 8 : H - PAD) - tick_h * 0.25;
    l->bottom = fl->xtick_y - tick_h * 0.75 - 8;
    fl->ylabel_x = PAD + (c->ylabel ? label_h * 0.75 : 0);
    l->left = fl->ylabel_x + (c->ylabel ? label_h * 0.25 + 10 : 0) + 40;
    for (int round = 0; round < 2; round++) {
        fl->legend_rows = legend_rows(cr, c, l->left, l->right);
        fl->legend_y = y + (c->title || c->subtitle ? 12 : 0) + LEGEND_ROW / 2;
        l->top = fl->legend_y - LEGEND_ROW / 2 + fl->legend_rows * LEGEND_ROW + 10;
        if (l->bottom - l->top < 40 || l->right - l->left < 80) {
            set_err(err, errsz, "a chart of %dx%d is too small for its text", c->width, c->height);
            return -1;
        }
        if (y_ticks(c, l->bottom - l->top, &l->y) < 0) {
            set_err(err, errsz, "no y axis for the values' range");
            return -1;
        }
        double tw = 0;
        char buf[64];
        font(cr, TICK_PX, 0);
        for (int i = 0; i < l->y.n; i++) {
            chart_format_tick(l->y.v[i], l->y.decimals, buf, sizeof(buf));
            tw = fmax(tw, text_width(cr, buf));
        }
        l->left = fl->ylabel_x + (c->ylabel ? label_h * 0.25 + 10 : 0) + tw + 10;
    }

    /* x: the frames' numbers, ticks on whole numbers, as many as their labels
     * allow */
    size_t n = 0;
    for (int s = 0; s < c->nseries; s++)
        if (c->series[s].n > n)
            n = c->series[s].n;
    double xlo = c->x_first, xhi = c->x_first + (n > 0 ? (double)(n - 1) : 0);
    if (xhi <= xlo) {
        xlo -= 0.5;
        xhi += 0.5;
    }
    char buf[64];
    font(cr, TICK_PX, 0);
    chart_format_tick(fabs(xhi) > fabs(xlo) ? xhi : xlo, 0, buf, sizeof(buf));
    const double lw = text_width(cr, buf) + 36;
    int max_ticks = (int)((l->right - l->left) / lw) + 1;
    if (chart_nice_ticks(xlo, xhi, max_ticks, 1, 0, &l->x) < 0) {
        set_err(err, errsz, "no x axis for %zu values", n);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ drawing */

#define C_TEXT 0x222222u
#define C_SUBTEXT 0x555555u
#define C_GRID 0xe3e3e3u
#define C_AXIS 0x606060u

static void draw_axes(cairo_t *cr, const chart *c, const full_layout *fl)
{
    const chart_layout *l = &fl->pub;
    char buf[64];
    cairo_set_line_width(cr, 1);
    /* grid lines on the ticks, on pixel centers so that they stay crisp */
    rgb(cr, C_GRID);
    for (int i = 0; i < l->y.n; i++) {
        double px, py;
        chart_to_pixel(l, l->x.lo, l->y.v[i], &px, &py);
        py = floor(py) + 0.5;
        cairo_move_to(cr, l->left, py);
        cairo_line_to(cr, l->right, py);
    }
    for (int i = 0; i < l->x.n; i++) {
        double px, py;
        chart_to_pixel(l, l->x.v[i], l->y.lo, &px, &py);
        px = floor(px) + 0.5;
        cairo_move_to(cr, px, l->top);
        cairo_line_to(cr, px, l->bottom);
    }
    cairo_stroke(cr);

    /* axes and tick marks */
    rgb(cr, C_AXIS);
    const double ax = floor(l->left) + 0.5, ay = floor(l->bottom) + 0.5;
    cairo_move_to(cr, ax, l->top);
    cairo_line_to(cr, ax, ay);
    cairo_line_to(cr, l->right, ay);
    for (int i = 0; i < l->y.n; i++) {
        double px, py;
        chart_to_pixel(l, l->x.lo, l->y.v[i], &px, &py);
        py = floor(py) + 0.5;
        cairo_move_to(cr, ax - 5, py);
        cairo_line_to(cr, ax, py);
    }
    for (int i = 0; i < l->x.n; i++) {
        double px, py;
        chart_to_pixel(l, l->x.v[i], l->y.lo, &px, &py);
        px = floor(px) + 0.5;
        cairo_move_to(cr, px, ay);
        cairo_line_to(cr, px, ay + 5);
    }
    cairo_stroke(cr);

    /* tick labels */
    rgb(cr, C_TEXT);
    font(cr, TICK_PX, 0);
    for (int i = 0; i < l->y.n; i++) {
        double px, py;
        chart_to_pixel(l, l->x.lo, l->y.v[i], &px, &py);
        chart_format_tick(l->y.v[i], l->y.decimals, buf, sizeof(buf));
        show(cr, buf, ax - 9, digits_baseline(cr, py), 1.0);
    }
    for (int i = 0; i < l->x.n; i++) {
        double px, py;
        chart_to_pixel(l, l->x.v[i], l->y.lo, &px, &py);
        chart_format_tick(l->x.v[i], l->x.decimals, buf, sizeof(buf));
        /* inside the image at both ends */
        const double w = text_width(cr, buf);
        px = fmin(fmax(px, w / 2 + 2), c->width - w / 2 - 2);
        show(cr, buf, px, fl->xtick_y, 0.5);
    }

    /* axis labels */
    char text[TEXT_MAX];
    font(cr, LABEL_PX, 0);
    if (c->xlabel) {
        fit_text(cr, c->xlabel, l->right - l->left, text);
        show(cr, text, (l->left + l->right) / 2, fl->xlabel_y, 0.5);
    }
    if (c->ylabel) {
        fit_text(cr, c->ylabel, l->bottom - l->top, text);
        cairo_save(cr);
        cairo_translate(cr, fl->ylabel_x, (l->top + l->bottom) / 2);
        cairo_rotate(cr, -PI / 2);
        show(cr, text, 0, 0, 0.5);
        cairo_restore(cr);
    }
}

/* One series: a 2 px line through its finite values, broken at gaps. Beyond
 * about two values per pixel column, each column is drawn by its first, lowest,
 * highest and last value (the line looks the same; the path stays short). */
static void draw_series(cairo_t *cr, const chart_layout *l, const chart *c, int s)
{
    const chart_series *se = &c->series[s];
    const double cols = l->right - l->left;
    const int bucketed = (double)se->n > 2 * cols;
    int in_run = 0;
    rgb(cr, se->rgb);
    cairo_set_line_width(cr, 2);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND); /* a lone value: a dot */
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_new_path(cr);
    size_t i = 0;
    while (i < se->n) {
        double px, py;
        if (!bucketed) {
            const double v = se->y[i];
            if (!isfinite(v)) {
                in_run = 0;
            } else {
                chart_to_pixel(l, c->x_first + (double)i, v, &px, &py);
                if (!in_run)
                    cairo_move_to(cr, px, py);
                cairo_line_to(cr, px, py);
                in_run = 1;
            }
            i++;
            continue;
        }
        /* the values whose x falls in this pixel column */
        chart_to_pixel(l, c->x_first + (double)i, 0, &px, &py);
        const double col = floor(px);
        size_t j = i, imin = i, imax = i;
        int gap = 0;
        for (; j < se->n; j++) {
            double qx, qy;
            chart_to_pixel(l, c->x_first + (double)j, 0, &qx, &qy);
            if (floor(qx) != col)
                break;
            const double v = se->y[j];
            if (!isfinite(v)) {
                gap = 1;
                continue;
            }
            if (!isfinite(se->y[imin]) || v < se->y[imin])
                imin = j;
            if (!isfinite(se->y[imax]) || v > se->y[imax])
                imax = j;
        }
        if (gap || !isfinite(se->y[imin])) {
            /* a gap breaks the line: draw what lies before it in the column */
            in_run = 0;
            i = j;
            continue;
        }
        size_t pts[4] = {i, imin < imax ? imin : imax, imin < imax ? imax : imin, j - 1};
        for (int k = 0; k < 4; k++) {
            chart_to_pixel(l, c->x_first + (double)pts[k], se->y[pts[k]], &px, &py);
            if (!in_run)
                cairo_move_to(cr, px, py);
            cairo_line_to(cr, px, py);
            in_run = 1;
        }
        i = j;
    }
    cairo_stroke(cr);
}

typedef struct box {
    double x0, y0, x1, y1;
} box;

static int overlaps(const box *a, const box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

static int cmp_size(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* "12", "12, 13", "12\u201314": the x of a group of marks, runs shortened. */
static void group_label(const chart *c, size_t *idx, int n, char *buf, size_t bufsz)
{
    qsort(idx, (size_t)n, sizeof(*idx), cmp_size);
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && idx[j + 1] == idx[j] + 1)
            j++;
        char a[32], b[32];
        chart_format_tick(c->x_first + (double)idx[i], 0, a, sizeof(a));
        chart_format_tick(c->x_first + (double)idx[j], 0, b, sizeof(b));
        const char *sep = j == i ? "" : j == i + 1 ? ", " : "\xe2\x80\x93"; /* en dash */
        int w = snprintf(buf + o, bufsz - o, "%s%s%s%s", i ? ", " : "", a, sep, j == i ? "" : b);
        if (w < 0 || (size_t)w >= bufsz - o)
            break;
        o += (size_t)w;
        i = j + 1;
    }
}

/* Rings on the marked values and their x next to them. Marks closer than a
 * ring share one label ("1201\u20131203"); a label moves away from those placed
 * before it (the lowest value's first). */
static void draw_marks(cairo_t *cr, const chart_layout *l, const chart *c)
{
    const chart_series *se = &c->series[c->mark_series];
    double mx[CHART_MAX_MARKS], my[CHART_MAX_MARKS];
    int use[CHART_MAX_MARKS];
    for (int m = 0; m < c->nmarks; m++) {
        const size_t i = c->marks[m];
        use[m] = i < se->n && isfinite(se->y[i]);
        if (!use[m])
            continue;
        chart_to_pixel(l, c->x_first + (double)i, se->y[i], &mx[m], &my[m]);
        use[m] = my[m] >= l->top - 1 && my[m] <= l->bottom + 1; /* not beyond a fixed range */
    }
    for (int m = c->nmarks - 1; m >= 0; m--) {
        if (!use[m])
            continue;
        cairo_new_path(cr);
        cairo_arc(cr, mx[m], my[m], 6, 0, 2 * PI);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_fill_preserve(cr);
        rgb(cr, C_TEXT);
        cairo_set_line_width(cr, 2);
        cairo_stroke(cr);
        cairo_new_path(cr);
        cairo_arc(cr, mx[m], my[m], 2.5, 0, 2 * PI);
        rgb(cr, se->rgb);
        cairo_fill(cr);
    }

    box placed[CHART_MAX_MARKS];
    int np = 0;
    font(cr, MARK_PX, 1);
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    const double th = fe.ascent + fe.descent;
    for (int m = 0; m < c->nmarks; m++) {
        if (!use[m])
            continue;
        size_t group[CHART_MAX_MARKS];
        int ng = 0;
        group[ng++] = c->marks[m];
        for (int q = m + 1; q < c->nmarks; q++)
            if (use[q] && fabs(mx[q] - mx[m]) < 10 && fabs(my[q] - my[m]) < 10) {
                group[ng++] = c->marks[q];
                use[q] = 0;
            }
        const double px = mx[m], py = my[m];
        char buf[CHART_MAX_MARKS * 48];
        group_label(c, group, ng, buf, sizeof(buf));
        const double w = text_width(cr, buf) + 6, h = th + 2;
        const double cx = fmin(fmax(px, l->left + w / 2), l->right - w / 2);
        box b = {0, 0, 0, 0};
        int ok = 0;
        for (int k = 0; k < 12 && !ok; k++) {
            /* below (a low value's line comes from above), above, further
             * below, further above, ... */
            const double off = 9 + (k / 2) * h;
            b.x0 = cx - w / 2;
            b.x1 = cx + w / 2;
            b.y0 = k % 2 == 0 ? py + off : py - off - h;
            b.y1 = b.y0 + h;
            ok = b.y0 >= l->top && b.y1 <= l->bottom;
            for (int q = 0; ok && q < np; q++)
                ok = !overlaps(&b, &placed[q]);
        }
        if (!ok) { /* crowded: above, inside the plot */
            b.y0 = fmax(l->top, py - 9 - h);
            b.y1 = b.y0 + h;
        }
        placed[np++] = b;
        cairo_rectangle(cr, b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0);
        cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
        cairo_fill(cr);
        rgb(cr, C_TEXT);
        show(cr, buf, cx, b.y0 + 1 + fe.ascent, 0.5);
    }
}

static void draw_legend(cairo_t *cr, const chart *c, const full_layout *fl)
{
    const chart_layout *l = &fl->pub;
    const int items = legend_items(c);
    char buf[TEXT_MAX];
    double x = l->left, y = fl->legend_y;
    font(cr, LABEL_PX, 0);
    const double base = digits_baseline(cr, 0);
    for (int i = 0; i < items; i++) {
        const double w = legend_item_width(cr, c, i);
        if (x > l->left && x + w > l->right) {
            x = l->left;
            y += LEGEND_ROW;
        }
        if (i < c->nseries) {
            rgb(cr, c->series[i].rgb);
            cairo_set_line_width(cr, 3);
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
            cairo_move_to(cr, x + 2, y);
            cairo_line_to(cr, x + LEGEND_SWATCH - 2, y);
            cairo_stroke(cr);
        } else {
            cairo_new_path(cr);
            cairo_arc(cr, x + LEGEND_SWATCH / 2, y, 6, 0, 2 * PI);
            cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_fill_preserve(cr);
            rgb(cr, C_TEXT);
            cairo_set_line_width(cr, 2);
            cairo_stroke(cr);
        }
        sanitize(i < c->nseries ? c->series[i].name : c->mark_label, buf);
        rgb(cr, C_TEXT);
        show(cr, buf, x + LEGEND_SWATCH + LEGEND_GAP, y + base, 0);
        x += w + LEGEND_SEP;
    }
}

static int draw(cairo_t *cr, const chart *c, char *err, size_t errsz)
{
    full_layout fl;
    if (compute(cr, c, &fl, err, errsz) < 0)
        return -1;
    const chart_layout *l = &fl.pub;
    char text[TEXT_MAX];

    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (c->title) {
        font(cr, TITLE_PX, 1);
        rgb(cr, C_TEXT);
        fit_text(cr, c->title, c->width - 2 * PAD, text);
        show(cr, text, PAD, fl.title_y, 0);
    }
    if (c->subtitle) {
        font(cr, SUBTITLE_PX, 0);
        rgb(cr, C_SUBTEXT);
        fit_text(cr, c->subtitle, c->width - 2 * PAD, text);
        show(cr, text, PAD, fl.subtitle_y, 0);
    }
    draw_axes(cr, c, &fl);
    draw_legend(cr, c, &fl);

    /* the data, clipped to the plot area plus the line's half width; the
     * first series, the main one, on top */
    cairo_save(cr);
    cairo_rectangle(cr, l->left - 3, l->top - 3, l->right - l->left + 6, l->bottom - l->top + 6);
    cairo_clip(cr);
    for (int s = c->nseries - 1; s >= 0; s--)
        draw_series(cr, l, c, s);
    cairo_restore(cr);
    /* the marks above everything, whole even on the plot's edge */
    if (c->nmarks > 0)
        draw_marks(cr, l, c);

    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        set_err(err, errsz, "cannot draw the chart: %s", cairo_status_to_string(cairo_status(cr)));
        return -1;
    }
    return 0;
}

int chart_layout_compute(const chart *c, chart_layout *l, char *err, size_t errsz)
{
    memset(l, 0, sizeof(*l));
    if (check_chart(c, err, errsz) < 0)
        return -1;
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(sf);
    full_layout fl;
    int rc = -1;
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        set_err(err, errsz, "cannot start cairo: %s", cairo_status_to_string(cairo_status(cr)));
    else if (compute(cr, c, &fl, err, errsz) == 0) {
        *l = fl.pub;
        rc = 0;
    }
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
    return rc;
}

typedef struct png_sink {
    FILE *fp;
    int err; /* errno of the failed write */
} png_sink;

static cairo_status_t write_fp(void *closure, const unsigned char *data, unsigned int len)
{
    png_sink *sink = closure;
    if (fwrite(data, 1, len, sink->fp) == len)
        return CAIRO_STATUS_SUCCESS;
    sink->err = errno;
    return CAIRO_STATUS_WRITE_ERROR;
}

int chart_write_png(const chart *c, FILE *fp, char *err, size_t errsz)
{
    if (check_chart(c, err, errsz) < 0)
        return -1;
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, c->width, c->height);
    cairo_t *cr = cairo_create(sf);
    int rc = -1;
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        set_err(err, errsz, "cannot start cairo: %s", cairo_status_to_string(cairo_status(cr)));
    } else if (draw(cr, c, err, errsz) == 0) {
        cairo_surface_flush(sf);
        png_sink sink = {fp, 0};
        const cairo_status_t st = cairo_surface_write_to_png_stream(sf, write_fp, &sink);
        if (st == CAIRO_STATUS_SUCCESS)
            rc = 0;
        else if (st == CAIRO_STATUS_WRITE_ERROR)
            set_err(err, errsz, "write error: %s", sink.err ? strerror(sink.err) : "unknown");
        else
            set_err(err, errsz, "%s", cairo_status_to_string(st));
    }
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
    return rc;
}

#endif /* FOVEA_HAVE_CAIRO */
