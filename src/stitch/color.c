/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Color balance solver: least squares over all overlaps with a pull toward
 * identity, gains per RGB channel, then gammas from luma ratios. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "stitch/color.h"

/* Solve the n x n system A x = b in place (Gaussian elimination with partial
 * pivoting). Returns 0 on success, -1 when singular or non-finite. */
static int solve_linear(double a[FOVEA_STITCH_MAX_CAMERAS][FOVEA_STITCH_MAX_CAMERAS],
                        double b[FOVEA_STITCH_MAX_CAMERAS], int n)
{
    for (int col = 0; col < n; col++) {
        int piv = col;
        for (int r = col + 1; r < n; r++)
            if (fabs(a[r][col]) > fabs(a[piv][col]))
                piv = r;
        if (!(fabs(a[piv][col]) > 1e-300))
            return -1;
        if (piv != col) {
            for (int k = 0; k < n; k++) {
                double t = a[col][k];
                a[col][k] = a[piv][k];
                a[piv][k] = t;
            }
            double t = b[col];
            b[col] = b[piv];
            b[piv] = t;
        }
        for (int r = col + 1; r < n; r++) {
            double f = a[r][col] / a[col][col];
            for (int k = col; k < n; k++)
                a[r][k] -= f * a[col][k];
            b[r] -= f * b[col];
        }
    }
    for (int r = n - 1; r >= 0; r--) {
        double s = b[r];
        for (int k = r + 1; k < n; k++)
            s -= a[r][k] * b[k];
        b[r] = s / a[r][r];
        if (!isfinite(b[r]))
            return -1;
    }
    return 0;
}

/* One least-squares problem over camera values x:
 *   min  sum_pairs W_p (x_a - x_b - d_p)^2 + lambda sum_c x_c^2
 * (x = 0 is identity). lambda = reg * mean pair weight keeps the solution from
 * drifting and fixes the free offset. Cameras in no pair keep 0. */
static int solve_differences(int n, int npairs, const int pa[], const int pb[], const double w[],
                             const double d[], double reg, double x[])
{
    double a[FOVEA_STITCH_MAX_CAMERAS][FOVEA_STITCH_MAX_CAMERAS];
    double b[FOVEA_STITCH_MAX_CAMERAS];
    memset(a, 0, sizeof(a));
    memset(b, 0, sizeof(b));
    double wsum = 0.0;
    for (int p = 0; p < npairs; p++) {
        a[pa[p]][pa[p]] += w[p];
        a[pb[p]][pb[p]] += w[p];
        a[pa[p]][pb[p]] -= w[p];
        a[pb[p]][pa[p]] -= w[p];
        b[pa[p]] += w[p] * d[p];
        b[pb[p]] -= w[p] * d[p];
        wsum += w[p];
    }
    if (!(wsum > 0.0))
        return -1;
    double lambda = reg * wsum / (double)npairs + 1e-9 * wsum;
    for (int c = 0; c < n; c++)
        a[c][c] += lambda;
    if (solve_linear(a, b, n) < 0)
        return -1;
    for (int c = 0; c < n; c++)
        x[c] = b[c];
    return 0;
}

static float clampf(double v, float lo, float hi)
{
    return (float)(v < lo ? lo : (v > hi ? hi : v));
}

void fv_color_log_table(int32_t table[FOVEA_LOG_TABLE_SIZE])
{
    for (int q = 0; q < FOVEA_LOG_TABLE_SIZE; q++) {
        double x = (q < 4 ? 4.0 : (double)q) / 1020.0;
        table[q] = (int32_t)llround(-FOVEA_LOG_SCALE * log(x));
    }
}

/* The model: a camera's correction maps x in [0,1] to (g x)^gamma, so in logs
 * ln y = gamma (ln g + ln x): the gamma scales the spread of log values and the
 * gain shifts them. For each overlap the solver makes the corrected log-luma
 * spreads of the two cameras equal (gammas), then the corrected mean logs of
 * each channel equal (gains), both as least squares over all overlaps with a
 * pull toward identity. */
int fv_color_solve(const fv_overlap_stats *st, int n, const fovea_stitcher_settings *s,
                   fovea_color_correction *out)
{
    for (int c = 0; c < n; c++) {
        out[c].gain[0] = out[c].gain[1] = out[c].gain[2] = 1.0f;
        out[c].gamma = 1.0f;
    }
    if (n < 2)
        return 0;

    int pa[FOVEA_MAX_PAIRS], pb[FOVEA_MAX_PAIRS], npairs = 0;
    double w[FOVEA_MAX_PAIRS];
    double mu_a[FOVEA_MAX_PAIRS][4], mu_b[FOVEA_MAX_PAIRS][4]; /* mean ln(x): R, G, B, Y */
    double sd_a[FOVEA_MAX_PAIRS], sd_b[FOVEA_MAX_PAIRS];       /* std of ln(Y) */
    const uint64_t min_n = (uint64_t)(s->min_overlap_samples > 0 ? s->min_overlap_samples : 1);
    for (int a = 0; a < n; a++) {
        for (int b = a + 1; b < n; b++) {
            const uint64_t *v = st->v[fv_pair_index(a, b, n)];
            if (v[FOVEA_ST_N] < min_n || v[FOVEA_ST_W] == 0)
                continue;
            double wt = (double)v[FOVEA_ST_W] * FOVEA_LOG_SCALE;
            for (int k = 0; k < 4; k++) {
                mu_a[npairs][k] = -(double)v[FOVEA_ST_A + k] / wt;
                mu_b[npairs][k] = -(double)v[FOVEA_ST_B + k] / wt;
            }
            double ea2 = (double)v[FOVEA_ST_A + 4] / wt / FOVEA_LOG_SCALE;
            double eb2 = (double)v[FOVEA_ST_B + 4] / wt / FOVEA_LOG_SCALE;
            sd_a[npairs] = sqrt(fmax(0.0, ea2 - mu_a[npairs][3] * mu_a[npairs][3]));
            sd_b[npairs] = sqrt(fmax(0.0, eb2 - mu_b[npairs][3] * mu_b[npairs][3]));
            pa[npairs] = a;
            pb[npairs] = b;
            w[npairs] = (double)v[FOVEA_ST_N];
            npairs++;
        }
    }
    if (npairs == 0)
        return 0;

    /* gammas: ln gamma_a - ln gamma_b = ln sd_b - ln sd_a, over overlaps whose log
     * spread is large enough to measure */
    double lg[FOVEA_STITCH_MAX_CAMERAS] = {0};
    {
        int qa[FOVEA_MAX_PAIRS], qb[FOVEA_MAX_PAIRS], m = 0;
        double qw[FOVEA_MAX_PAIRS], d[FOVEA_MAX_PAIRS];
        for (int p = 0; p < npairs; p++) {
            if (!(sd_a[p] > 0.02) || !(sd_b[p] > 0.02))
                continue;
            qa[m] = pa[p];
            qb[m] = pb[p];
            qw[m] = w[p];
            d[m] = log(sd_b[p]) - log(sd_a[p]);
            m++;
        }
        if (m > 0 && solve_differences(n, m, qa, qb, qw, d, s->regularization, lg) < 0)
            memset(lg, 0, sizeof(lg));
    }
    double gam[FOVEA_STITCH_MAX_CAMERAS];
    for (int c = 0; c < n; c++)
        gam[c] = exp(lg[c]);

    /* gains per channel: with h = gamma ln g, h_a - h_b = gamma_b mu_b - gamma_a mu_a */
    double gains[3][FOVEA_STITCH_MAX_CAMERAS];
    for (int k = 0; k < 3; k++) {
        double d[FOVEA_MAX_PAIRS], h[FOVEA_STITCH_MAX_CAMERAS] = {0};
        for (int p = 0; p < npairs; p++)
            d[p] = gam[pb[p]] * mu_b[p][k] - gam[pa[p]] * mu_a[p][k];
        if (solve_differences(n, npairs, pa, pb, w, d, s->regularization, h) < 0)
            return 0; /* fall back to identity */
        for (int c = 0; c < n; c++)
            gains[k][c] = exp(h[c] / gam[c]);
    }

    for (int c = 0; c < n; c++) {
        int finite = isfinite(gains[0][c]) && isfinite(gains[1][c]) && isfinite(gains[2][c]) &&
                     isfinite(gam[c]);
        if (!finite)
            continue;
        for (int k = 0; k < 3; k++)
            out[c].gain[k] = clampf(gains[k][c], s->gain_min, s->gain_max);
        out[c].gamma = clampf(gam[c], s->gamma_min, s->gamma_max);
    }
    return npairs;
}

static double ln_ratio(float a, float b)
{
    return a > 0.0f && b > 0.0f ? log((double)a / (double)b) : 0.0;
}

int fv_color_step(fovea_color_correction *cur, const fovea_color_correction *target, int n,
                  double max_step, double dead_band, int *moving)
{
    double far = 0.0;
    for (int c = 0; c < n; c++) {
        for (int k = 0; k < 3; k++)
            far = fmax(far, fabs(ln_ratio(target[c].gain[k], cur[c].gain[k])));
        far = fmax(far, fabs(ln_ratio(target[c].gamma, cur[c].gamma)));
    }
    if (!*moving && !(far > dead_band))
        return 0;
    if (far <= max_step || !(far > 0.0)) { /* arrive */
        int changed = memcmp(cur, target, sizeof(*cur) * (size_t)n) != 0;
        memcpy(cur, target, sizeof(*cur) * (size_t)n);
        *moving = 0;
        return changed;
    }
    *moving = 1;
    const double f = max_step / far;
    for (int c = 0; c < n; c++) {
        for (int k = 0; k < 3; k++)
            cur[c].gain[k] =
                (float)(cur[c].gain[k] * exp(f * ln_ratio(target[c].gain[k], cur[c].gain[k])));
        cur[c].gamma = (float)(cur[c].gamma * exp(f * ln_ratio(target[c].gamma, cur[c].gamma)));
    }
    return 1;
}

/* ln b(q) of the two curves' bases b(q) (fv_color_power_curve), computed once. */
static double curve_ln[2][FOVEA_LUT_SIZE];
static pthread_once_t curve_once = PTHREAD_ONCE_INIT;

static void curve_init(void)
{
    for (int q = 1; q < FOVEA_LUT_SIZE; q++)
        curve_ln[FOVEA_CURVE_FULL][q] = log(q / 1020.0);
    for (int q = 65; q < FOVEA_LUT_SIZE; q++)
        curve_ln[FOVEA_CURVE_LUMA][q] = log((q / 4.0 - 16.0) / 219.0);
}

void fv_color_power_curve(int kind, double gamma, double out[FOVEA_LUT_SIZE])
{
    pthread_once(&curve_once, curve_init);
    const double *ln = curve_ln[kind];
    const int first = kind == FOVEA_CURVE_FULL ? 1 : 65; /* b(q) = 0 below */
    for (int q = 0; q < first; q++)
        out[q] = 0.0;
    for (int q = first; q < FOVEA_LUT_SIZE; q++)
        out[q] = exp(gamma * ln[q]);
}

/* 255 (min(g q / 4, 255) / 255)^gamma = 255 g^gamma b(q)^gamma below the clamp:
 * one exp per code for the three channels (a pow per code and channel took
 * 88 us for two cameras on a 2-core test machine, on every analysis frame). */
void fv_color_build_lut(const fovea_color_correction *cc, float lut[3][FOVEA_LUT_SIZE])
{
    const double gamma = cc->gamma;
    int plain = gamma > 0.0 && isfinite(gamma);
    for (int k = 0; k < 3; k++)
        plain = plain && cc->gain[k] > 0.0f && isfinite(cc->gain[k]);
    if (!plain) { /* degenerate corrections: the definition itself */
        for (int k = 0; k < 3; k++) {
            for (int q = 0; q < FOVEA_LUT_SIZE; q++) {
                double y = (double)cc->gain[k] * (q / 4.0);
                y = y > 255.0 ? 255.0 : y;
                lut[k][q] = (float)(255.0 * pow(y / 255.0, gamma));
            }
        }
        return;
    }
    double p[FOVEA_LUT_SIZE];
    fv_color_power_curve(FOVEA_CURVE_FULL, gamma, p);
    for (int k = 0; k < 3; k++) {
        const double g = cc->gain[k], scale = 255.0 * pow(g, gamma);
        /* g^gamma past the double range (a huge gain and gamma, e.g. 1e6 and
         * 1e5): infinity times p[q] would give NaN or infinity where the value
         * itself, below the clamp, is within [0, 255]; then the definition */
        const int direct = !isfinite(scale);
        for (int q = 0; q < FOVEA_LUT_SIZE; q++) {
            const double y = g * (q / 4.0);
            lut[k][q] = y >= 255.0 ? 255.0f
                        : direct   ? (float)(255.0 * pow(y / 255.0, gamma))
                                   : (float)(scale * p[q]);
        }
    }
}
