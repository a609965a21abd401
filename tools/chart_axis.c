/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The charts' axis arithmetic, which needs no cairo: "nice" ticks, their
 * labels, and a data point's pixel position in a layout. */
#include "chart.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ ticks */

/* m * 10^e computed so that decimal steps come out as the nearest double
 * (3 * 0.1 would be 0.30000000000000004; 3 / 10 is 0.3). */
static double scaled(double m, int e)
{
    return e < 0 ? m / pow(10.0, -e) : m * pow(10.0, e);
}

int chart_nice_ticks(double lo, double hi, int max_ticks, double min_step, int extend,
                     chart_ticks *t)
{
    static const int mant[3] = {1, 2, 5};
    memset(t, 0, sizeof(*t));
    if (!isfinite(lo) || !isfinite(hi) || hi < lo)
        return -1;
    if (max_ticks < 2)
        max_ticks = 2;
    if (max_ticks > CHART_MAX_TICKS)
        max_ticks = CHART_MAX_TICKS;
    if (hi == lo) {
        /* one value: a range of one unit of its leading digit around it */
        const double a = fabs(lo);
        const double d = a > 0 ? pow(10.0, floor(log10(a))) : 1.0;
        lo -= d;
        hi += d;
    }
    const double range = hi - lo;
    if (!isfinite(range) || range <= 0)
        return -1;
    int e = (int)floor(log10(range / max_ticks)) - 1;
    for (int tries = 0; tries < 3 * 8; tries++, e += (tries % 3 == 0)) {
        const int m = mant[tries % 3];
        const double step = scaled(m, e);
        if (!isfinite(step) || step <= 0)
            return -1;
        if (min_step > 0 && step < min_step * (1 - 1e-12))
            continue;
        /* a relative slack so that 0.93 / 0.01 = 92.99999999999999 counts as 93 */
        const double eps = 1e-9;
        double kmin, kmax;
        if (extend) {
            kmin = floor(lo / step + eps);
            kmax = ceil(hi / step - eps);
        } else {
            kmin = ceil(lo / step - eps);
            kmax = floor(hi / step + eps);
        }
        if (kmax - kmin + 1 > max_ticks)
            continue;
        t->step = step;
        t->decimals = e < 0 ? (-e > 15 ? 15 : -e) : 0;
        t->lo = extend ? fmin(lo, scaled(kmin * m, e)) : lo;
        t->hi = extend ? fmax(hi, scaled(kmax * m, e)) : hi;
        for (double k = kmin; k <= kmax; k++) {
            double v = scaled(k * m, e);
            if (v == 0)
                v = 0; /* no -0 */
            t->v[t->n++] = v;
        }
        return 0;
    }
    return -1;
}

void chart_format_tick(double v, int decimals, char *buf, size_t n)
{
    if (n == 0)
        return;
    snprintf(buf, n, "%.*f", decimals, v);
    /* "-0.00" after rounding reads as a sign error: show "0.00" */
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
        memmove(buf, buf + 1, strlen(buf));
}

void chart_to_pixel(const chart_layout *l, double x, double y, double *px, double *py)
{
    const double xr = l->x.hi - l->x.lo, yr = l->y.hi - l->y.lo;
    *px = l->left + (xr > 0 ? (x - l->x.lo) / xr : 0.5) * (l->right - l->left);
    *py = l->bottom - (yr > 0 ? (y - l->y.lo) / yr : 0.5) * (l->bottom - l->top);
}
