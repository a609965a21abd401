/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The VMAF model's prediction: nu-SVR with the RBF kernel, the score
 * transforms and clipping, and the bootstrap models' pooled scores. Split
 * from model.c (docs/quality.md, "VMAF model"). */
#include "quality/model.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fovea/fovea.h"

/* ------------------------------------------------------------ prediction */

/* libsvm's RBF kernel exp(-gamma * |x - y|^2) on sparse vectors: the squared
 * distance is summed in ascending index order, a component present in one
 * vector only adding its square. */
static double rbf(const vmaf_svm_node *x, const vmaf_svm_node *y, double gamma)
{
    double sum = 0;
    while (x->index != -1 && y->index != -1) {
        if (x->index == y->index) {
            const double d = x->value - y->value;
            sum += d * d;
            x++;
            y++;
        } else if (x->index > y->index) {
            sum += y->value * y->value;
            y++;
        } else {
            sum += x->value * x->value;
            x++;
        }
    }
    for (; x->index != -1; x++)
        sum += x->value * x->value;
    for (; y->index != -1; y++)
        sum += y->value * y->value;
    return exp(-gamma * sum);
}

/* libvmaf's piecewise-linear mapping: every segment is visited in order and
 * the last one that covers x (or extends past the first/last knot) wins. */
static double knots_map(const vmaf_model *m, double x)
{
    const int nseg = m->transform.n_knots - 1;
    const double *kx = m->transform.knot_x, *ky = m->transform.knot_y;
    double y = 0.0;
    for (int i = 0; i < nseg; i++) {
        const int c0 = kx[i] <= x, c1 = x <= kx[i + 1];
        double v;
        if (ky[i] == ky[i + 1]) {
            v = ky[i];
        } else {
            double a, b;
            if (kx[i] == 0) {
                b = ky[i];
                a = (ky[i + 1] - b) / kx[i + 1];
            } else {
                a = (ky[i + 1] - ky[i]) / (kx[i + 1] - kx[i]);
                b = ky[i] - kx[i] * a;
            }
            v = a * x + b;
        }
        if ((c0 && c1) || (i == 0 && x < kx[i]) || (i == nseg - 1 && x > kx[i + 1]))
            y = v;
    }
    return y;
}

double vmaf_model_finish(const vmaf_model *m, double y, int flags)
{
    flags |= m->flags;
    if (flags & VMAF_PREDICT_RAW)
        return y;
    if (m->transform.present && (m->transform.enabled || (flags & VMAF_PREDICT_ENABLE_TRANSFORM))) {
        const double in = y;
        double out = in;
        if (m->transform.p_enabled[0] || m->transform.p_enabled[1] || m->transform.p_enabled[2]) {
            out = 0.;
            if (m->transform.p_enabled[0])
                out += m->transform.p[0];
            if (m->transform.p_enabled[1])
                out += m->transform.p[1] * in;
            if (m->transform.p_enabled[2])
                out += m->transform.p[2] * in * in;
        }
        if (m->transform.n_knots)
            out = knots_map(m, out);
        if (m->transform.out_lte_in)
            out = out > in ? in : out;
        if (m->transform.out_gte_in)
            out = out < in ? in : out;
        y = out;
    }

    if (m->clip_enabled && !(flags & VMAF_PREDICT_DISABLE_CLIP)) {
        y = y < m->clip_min ? m->clip_min : y;
        y = y > m->clip_max ? m->clip_max : y;
    }
    return y;
}

/* libvmaf's chroma_from_luma (predict.c, post_process_feature_from_another
 * with "adm3" guiding "speed_chroma" and 0 to correct): when the
 * speed_chroma feature, normalized and back, is exactly 0, it becomes
 * c - c * adm3 (adm3 also normalized and back), normalized. A feature
 * name holding either substring twice makes libvmaf fail; fovea refuses
 * such a model at open. */
static void chroma_from_luma(const vmaf_model *m, vmaf_svm_node *x)
{
    double guiding = 0.0;
    int guided = -1;
    for (int i = 0; i < m->n_features; i++) {
        const char *name = vmaf_feature_name(&m->feature[i]);
        double v = x[i].value;
        if (m->norm_type == VMAF_NORM_LINEAR_RESCALE)
            v = (v - m->feature[i].intercept) / m->feature[i].slope;
        if (strstr(name, "adm3"))
            guiding = v;
        if (strstr(name, "speed_chroma")) {
            if (v != 0.0)
                return;
            guided = i;
        }
    }
    if (guided < 0)
        return;
    double c = -m->cfl * guiding + m->cfl;
    if (m->norm_type == VMAF_NORM_LINEAR_RESCALE)
        c = m->feature[guided].slope * c + m->feature[guided].intercept;
    x[guided].value = c;
}

double vmaf_model_predict(const vmaf_model *m, const double *features, int flags)
{
    vmaf_svm_node x[VMAF_MODEL_MAX_FEATURES + 1];
    for (int i = 0; i < m->n_features; i++) {
        double v = features[i];
        if (m->norm_type == VMAF_NORM_LINEAR_RESCALE)
            v = m->feature[i].slope * v + m->feature[i].intercept;
        x[i].index = i + 1;
        x[i].value = v;
    }
    x[m->n_features].index = -1;
    x[m->n_features].value = 0.0;
    if (m->cfl_enabled)
        chroma_from_luma(m, x);

    double sum = 0;
    for (int s = 0; s < m->n_sv; s++)
        sum += m->sv_coef[s] * rbf(x, m->sv[s], m->gamma);
    sum -= m->rho;

    double y = sum;
    if (m->norm_type == VMAF_NORM_LINEAR_RESCALE)
        y = (y - m->intercept) / m->slope;
    return vmaf_model_finish(m, y, flags);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x > y ? 1 : x < y ? -1 : 0;
}

/* libvmaf's percentile: linear between the two nearest order statistics. */
static double percentile(const double *s, int n, double perc)
{
    const double p = perc * (double)(unsigned)(n - 1) / 100.;
    const int lo = (int)floor(p), hi = (int)ceil(p);
    return lo == hi ? s[lo] : s[lo] * (hi - p) + s[hi] * (p - lo);
}

void vmaf_model_bootstrap(const vmaf_model *m, double *raw, int flags, double out[4])
{
    const int n = m->n_sub;
    double sum = 0.;
    for (int i = 0; i < n; i++)
        sum += raw[i];
    const double mean = sum / (unsigned)n;
    const double delta = 0.01;
    double plus = mean + delta, minus = mean - delta;
    double ssd = 0.;
    for (int i = 0; i < n; i++)
        ssd += pow(raw[i] - mean, 2);
    double stddev = sqrt(ssd / (unsigned)n);
    qsort(raw, (size_t)n, sizeof(*raw), cmp_double);
    double lo = percentile(raw, n, 2.5), hi = percentile(raw, n, 97.5);
    /* the statistics are scaled by the first sub-model's transform and clip */
    const vmaf_model *f = m->sub[0];
    const double bag = vmaf_model_finish(f, mean, flags);
    lo = vmaf_model_finish(f, lo, flags);
    hi = vmaf_model_finish(f, hi, flags);
    plus = vmaf_model_finish(f, plus, flags);
    minus = vmaf_model_finish(f, minus, flags);
    const double slope = (plus - minus) / (2.0 * delta);
    stddev *= slope;
    out[0] = bag;
    out[1] = stddev;
    out[2] = lo;
    out[3] = hi;
}
