/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Stitch map: the grid lookup stays within 0.02 px of the exact projection at every
 * pixel a camera sees (checked here independently of the builder's own check),
 * blend weights sum to 1 and are continuous, coverage statistics are plausible. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/convert.h"
#include "fovea/fovea.h"
#include "stitch/coverage.h"
#include "stitch/geometry.h"
#include "stitch/map_build.h"
#include "stitch/stitch_internal.h"
#include "testutil.h"

static fovea_context *ctx;

static void set_cam(fovea_rig_camera *c, const char *name, fovea_camera_model model, int w, int h,
                    double fx, double fy, const double *dist, double yaw, double pitch, double roll)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof(c->name), "%s", name);
    c->model = model;
    c->width = w;
    c->height = h;
    c->fx = fx;
    c->fy = fy;
    c->cx = (w - 1) / 2.0;
    c->cy = (h - 1) / 2.0;
    memcpy(c->dist, dist, sizeof(double) * (model == FOVEA_CAM_PINHOLE ? 5 : 4));
    c->yaw = yaw;
    c->pitch = pitch;
    c->roll = roll;
}

/* The spec's example rig, scaled by 1/scale (panorama and cameras). */
static fovea_rig spec_rig(int scale)
{
    fovea_rig r;
    fv_rig_init(&r);
    r.width = 5700 / scale;
    r.height = 1900 / scale;
    r.hfov = 150.0;
    r.vfov = 50.0;
    r.num_cameras = 2;
    const double dp[5] = {-0.05, 0.01, 0, 0, 0}, df[4] = {0.02, -0.01, 0, 0};
    set_cam(&r.cameras[0], "left", FOVEA_CAM_PINHOLE, 3840 / scale, 2160 / scale, 2132.0 / scale,
            2132.0 / scale, dp, -35.0, 0.0, 0.0);
    set_cam(&r.cameras[1], "right", FOVEA_CAM_FISHEYE, 3840 / scale, 2160 / scale, 1200.0 / scale,
            1200.0 / scale, df, 35.0, 0.0, 0.0);
    return r;
}

/* Three fisheyes around a full sphere strip, tilted and rolled, max_theta cutting
 * their image corners. */
static fovea_rig fisheye_rig(void)
{
    fovea_rig r;
    fv_rig_init(&r);
    r.width = 1200;
    r.height = 400;
    r.hfov = 360.0;
    r.vfov = 120.0;
    r.yaw = 5.0;
    r.pitch = -4.0;
    r.max_theta = 95.0;
    r.feather = 48.0;
    r.num_cameras = 3;
    const double d0[4] = {0.03, -0.01, 0.002, 0.0}, d1[4] = {-0.02, 0.004, 0, 0},
                 d2[4] = {0.0, 0.0, 0.0, 0.0};
    set_cam(&r.cameras[0], "f0", FOVEA_CAM_FISHEYE, 960, 540, 290.0, 292.0, d0, 0.0, 10.0, 0.0);
    set_cam(&r.cameras[1], "f1", FOVEA_CAM_FISHEYE, 960, 540, 300.0, 300.0, d1, 120.0, -10.0, 5.0);
    set_cam(&r.cameras[2], "f2", FOVEA_CAM_FISHEYE, 800, 600, 280.0, 280.0, d2, 240.0, 0.0, -8.0);
    r.cameras[2].cx = 410.0;
    r.cameras[2].cy = 290.0;
    return r;
}

/* Three pinholes on a cylindrical panorama. */
static fovea_rig cylinder_rig(void)
{
    fovea_rig r;
    fv_rig_init(&r);
    r.projection = FOVEA_PROJ_CYLINDRICAL;
    r.width = 1400;
    r.height = 420;
    r.hfov = 200.0;
    r.vfov = 0.0;
    r.feather = 32.0;
    r.num_cameras = 3;
    const double d[5] = {-0.08, 0.02, 0.001, -0.001, 0.0}, e[5] = {0.03, 0, 0.001, 0, 0};
    set_cam(&r.cameras[0], "a", FOVEA_CAM_PINHOLE, 960, 540, 450.0, 450.0, d, -70.0, 0.0, 0.0);
    set_cam(&r.cameras[1], "b", FOVEA_CAM_PINHOLE, 960, 540, 460.0, 470.0, e, 0.0, 3.0, -2.0);
    set_cam(&r.cameras[2], "c", FOVEA_CAM_PINHOLE, 960, 540, 450.0, 450.0, d, 70.0, -3.0, 2.0);
    return r;
}

/* Independent accuracy check of every panorama pixel of every camera, on
 * every row_step-th row. */
static void check_accuracy_rows(const fovea_rig *rig, const fovea_stitch_map *m, const char *name,
                                int row_step)
{
    for (int c = 0; c < rig->num_cameras; c++) {
        const fovea_rig_camera *cam = &rig->cameras[c];
        double worst = 0.0;
        long long checked = 0, bad = 0, exact_only = 0, lookup_only = 0;
        for (int j = 0; j < rig->height; j += row_step) {
            for (int i = 0; i < rig->width; i++) {
                double eu = NAN, ev = NAN;
                int def = fv_rig_project(rig, c, i, j, &eu, &ev);
                int eseen = def && fv_inside_image(eu, ev, cam->width, cam->height);
                float lu, lv;
                int lseen = fv_map_lookup(m, c, i, j, &lu, &lv);
                if (!eseen && !lseen)
                    continue;
                exact_only += eseen && !lseen;
                lookup_only += lseen && !eseen;
                checked++;
                if (!isfinite(lu) || !isfinite(lv)) {
                    bad++;
                    continue;
                }
                if (!def) {
                    /* seen by the lookup but the projection is undefined: only a
                     * fisheye just past max_theta, within tolerance of its limit */
                    double d[3], u2, v2;
                    fv_pano_dir(rig, i, j, d);
                    const fovea_rig_camera *cc = &rig->cameras[c];
                    double r3[3][3], p[3];
                    fv_rotation(cc->yaw, cc->pitch, cc->roll, r3);
                    fv_mat_t_vec(r3, d, p);
                    if (cc->model != FOVEA_CAM_FISHEYE ||
                        !fv_camera_project(cc, (rig->max_theta + 1.0) * FOVEA_DEG2RAD, p, &u2,
                                           &v2)) {
                        bad++;
                        continue;
                    }
                    eu = u2;
                    ev = v2;
                }
                double err = fmax(fabs(lu - eu), fabs(lv - ev));
                if (err > worst)
                    worst = err;
                if (err > 0.02)
                    bad++;
            }
        }
        printf("%s cam %d: step %d, %lld pixels, max |lookup - exact| %.5f px, "
               "exact-only %lld, lookup-only %lld\n",
               name, c, m->cam[c].step, checked, worst, exact_only, lookup_only);
        CHECK(checked > 0);
        CHECK_EQ_INT(bad, 0);
        CHECK(worst <= 0.02);
        CHECK(worst <= 0.01 + 1e-9); /* the builder's own tolerance */
    }
}

static void check_accuracy(const fovea_rig *rig, const fovea_stitch_map *m, const char *name)
{
    check_accuracy_rows(rig, m, name, 1);
}

/* Edge distance of a seen point in panorama pixels (as map.c defines it). */
static double edge_px(const fv_camera_map *cm, float u, float v)
{
    double e = fmin(fmin(u, cm->cam_width - 1 - u), fmin(v, cm->cam_height - 1 - v));
    if (cm->clip_rx > 0.0f) {
        double ex = (u - cm->clip_cx) / cm->clip_rx, ey = (v - cm->clip_cy) / cm->clip_ry;
        e = fmin(e, (1.0 - sqrt(ex * ex + ey * ey)) * fmin(cm->clip_rx, cm->clip_ry));
    }
    return e * cm->px_scale;
}

/* Largest edge distance among the cameras that see both pixels. */
static double shared_edge(const fovea_stitch_map *m, int i0, int j0, int i1, int j1)
{
    double best = 0.0;
    for (int c = 0; c < m->num_cameras; c++) {
        float u0, v0, u1, v1;
        if (fv_map_lookup(m, c, i0, j0, &u0, &v0) && fv_map_lookup(m, c, i1, j1, &u1, &v1))
            best = fmax(best, fmin(edge_px(&m->cam[c], u0, v0), edge_px(&m->cam[c], u1, v1)));
    }
    return best;
}

/* Weights: sum 1 where covered, 0 for cameras not seeing, continuous. Continuity is
 * checked between neighbors that some camera sees at least feather/2 inside its
 * border: where every seeing camera is near its border (the tips of overlaps,
 * where two image borders cross) weights cannot be continuous, as each camera's
 * weight must vanish on its own border. */
static double check_weights(const fovea_stitch_map *m, const char *name)
{
    int W = m->pano_width, H = m->pano_height, n = m->num_cameras;
    float *prev = malloc(sizeof(float) * FOVEA_STITCH_MAX_CAMERAS * (size_t)W);
    float *cur = malloc(sizeof(float) * FOVEA_STITCH_MAX_CAMERAS * (size_t)W);
    int *prev_cov = calloc((size_t)W, sizeof(int)), *cur_cov = calloc((size_t)W, sizeof(int));
    REQUIRE(prev && cur && prev_cov && cur_cov);
    double max_jump = 0.0, worst_sum = 0.0;
    long long covered = 0, bad = 0, skipped = 0;
    for (int j = 0; j < H; j++) {
        for (int i = 0; i < W; i++) {
            float *w = cur + (size_t)i * FOVEA_STITCH_MAX_CAMERAS;
            float u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
            int cnt = fv_map_weights(m, i, j, w, u, v);
            int nseen = 0, npos = 0;
            double sum = 0.0;
            for (int c = 0; c < n; c++) {
                float lu, lv;
                int seen = fv_map_lookup(m, c, i, j, &lu, &lv);
                nseen += seen;
                if (!seen && w[c] != 0.0f)
                    bad++;
                if (w[c] < 0.0f || w[c] > 1.0f)
                    bad++;
                if (seen && (lu != u[c] || lv != v[c]))
                    bad++;
                npos += w[c] > 0.0f;
                sum += w[c];
            }
            if (npos != cnt || (cnt == 0) != (nseen == 0))
                bad++;
            cur_cov[i] = cnt > 0;
            if (cnt > 0) {
                covered++;
                if (fabs(sum - 1.0) > worst_sum)
                    worst_sum = fabs(sum - 1.0);
            }
            /* continuity with the left and upper neighbors */
            int left = i > 0 && cur_cov[i] && cur_cov[i - 1] &&
                       shared_edge(m, i, j, i - 1, j) >= 0.5 * m->feather;
            int up = j > 0 && cur_cov[i] && prev_cov[i] &&
                     shared_edge(m, i, j, i, j - 1) >= 0.5 * m->feather;
            skipped += (i > 0 && cur_cov[i] && cur_cov[i - 1] && !left) +
                       (j > 0 && cur_cov[i] && prev_cov[i] && !up);
            for (int c = 0; c < n; c++) {
                if (left) {
                    double d = fabs(w[c] - cur[(size_t)(i - 1) * FOVEA_STITCH_MAX_CAMERAS + c]);
                    if (d > max_jump)
                        max_jump = d;
                }
                if (up) {
                    double d = fabs(w[c] - prev[(size_t)i * FOVEA_STITCH_MAX_CAMERAS + c]);
                    if (d > max_jump)
                        max_jump = d;
                }
            }
        }
        float *t = prev;
        prev = cur;
        cur = t;
        int *tc = prev_cov;
        prev_cov = cur_cov;
        cur_cov = tc;
    }
    printf("%s weights: %lld covered pixels, max |sum - 1| %.2g, max neighbor step %.4f "
           "(feather %g: 1/feather = %.4f), %lld neighbor pairs near borders skipped\n",
           name, covered, worst_sum, max_jump, m->feather, 1.0 / m->feather, skipped);
    CHECK_EQ_INT(bad, 0);
    CHECK(covered > 0);
    CHECK(worst_sum <= 1e-6);
    free(prev);
    free(cur);
    free(prev_cov);
    free(cur_cov);
    return max_jump;
}

/* The row-at-a-time weights (what the C stitcher uses) against the per-pixel
 * ones: the same weights and counts bit for bit on every pixel, the same
 * (u, v) for every camera with a weight. Also rows and columns just outside.
 * Single-camera runs (fv_map_row_single), started from every pixel with
 * lengths up to 300: each pixel of a run has count 1, weight exactly 1 for the
 * run's camera and its (u, v) bit for bit. */
static void check_row_weights(const fovea_stitch_map *m, const char *name, int expect_runs)
{
    int W = m->pano_width, H = m->pano_height, n = m->num_cameras;
    fv_map_row row;
    fv_map_row_init(&row);
    long long bad = 0, seen = 0, skipped_cells = 0, cells = 0;
    long long runs = 0, run_bad = 0, run_px = 0;
    int *cnt = malloc(sizeof(int) * (size_t)W);
    float *wc = malloc(sizeof(float) * (size_t)W * (size_t)n);
    float *uc = malloc(sizeof(float) * (size_t)W * (size_t)n);
    float *vc = malloc(sizeof(float) * (size_t)W * (size_t)n);
    REQUIRE(cnt && wc && uc && vc);
    for (int j = -1; j <= H; j++) {
        REQUIRE(fv_map_row_set(&row, m, j) == FOVEA_OK);
        for (int c = 0; c < n; c++)
            if (row.cell[c])
                for (int g = 0; g + 1 < m->cam[c].grid_w; g++) {
                    cells++;
                    skipped_cells += !row.cell[c][g];
                }
        for (int i = -1; i <= W; i++) {
            float w0[FOVEA_STITCH_MAX_CAMERAS], u0[FOVEA_STITCH_MAX_CAMERAS],
                v0[FOVEA_STITCH_MAX_CAMERAS];
            float w1[FOVEA_STITCH_MAX_CAMERAS], u1[FOVEA_STITCH_MAX_CAMERAS],
                v1[FOVEA_STITCH_MAX_CAMERAS];
            int k0 = fv_map_weights(m, i, j, w0, u0, v0);
            int k1 = fv_map_row_weights(&row, i, w1, u1, v1);
            int ok = k0 == k1 && memcmp(w0, w1, (size_t)n * sizeof(float)) == 0;
            for (int c = 0; c < n && ok; c++)
                if (w0[c] > 0.0f)
                    ok = memcmp(&u0[c], &u1[c], sizeof(float)) == 0 &&
                         memcmp(&v0[c], &v1[c], sizeof(float)) == 0;
            bad += !ok;
            seen += k0 > 0;
            if (i >= 0 && i < W) {
                cnt[i] = k0;
                for (int c = 0; c < n; c++) {
                    wc[(size_t)i * n + c] = w0[c];
                    uc[(size_t)i * n + c] = u0[c];
                    vc[(size_t)i * n + c] = v0[c];
                }
            }
        }
        int covered_to = 0; /* pixels before this one lie in runs already counted */
        for (int i = -1; i <= W; i++) {
            int max = 1 + (int)(((unsigned)(j + 1) * 7u + (unsigned)(i + 1) * 13u) % 300u);
            int c = -1, e = -1;
            float ru[300], rv[300];
            if (!fv_map_row_single(&row, i, max, &c, &e, ru, rv))
                continue;
            runs++;
            if (i < 0 || j < 0 || j >= H || e <= i || e > i + max || e > W || c < 0 || c >= n) {
                run_bad++;
                continue;
            }
            if (e > covered_to) {
                run_px += e - (i > covered_to ? i : covered_to);
                covered_to = e;
            }
            for (int k = i; k < e; k++) {
                size_t at = (size_t)k * n + (size_t)c;
                int ok = cnt[k] == 1 && wc[at] == 1.0f &&
                         memcmp(&uc[at], &ru[k - i], sizeof(float)) == 0 &&
                         memcmp(&vc[at], &rv[k - i], sizeof(float)) == 0;
                run_bad += !ok;
            }
        }
    }
    fv_map_row_free(&row);
    free(cnt);
    free(wc);
    free(uc);
    free(vc);
    printf("%s: row weights vs per-pixel: %lld of %lld pixels differ (%lld covered), %.1f%% of "
           "camera cells skipped; %lld single-camera runs, %.1f%% of covered pixels in them, "
           "%lld run pixels differ\n",
           name, bad, (long long)(W + 2) * (H + 2), seen,
           cells ? 100.0 * (double)skipped_cells / (double)cells : 0.0, runs,
           seen ? 100.0 * (double)run_px / (double)seen : 0.0, run_bad);
    CHECK_EQ_INT(bad, 0);
    CHECK(seen > 0);
    CHECK_EQ_INT(run_bad, 0);
    if (expect_runs)
        CHECK(run_px > seen / 4); /* most of these rigs' panoramas: one camera */
    else
        CHECK_EQ_INT(runs, 0);
}

/* The C stitcher with single-camera runs against the same stitcher with every
 * pixel through the per-pixel weights (ref_runs_off): identical outputs on
 * random camera frames for every input family (RGBA, RGB24 -> RGBA; NV12,
 * I420 -> I420), fixed corrections away from identity, outputs poisoned
 * differently first; then deterministic automatic balance for three frames
 * (statistics from the overlaps only, so the runs must not change them): the
 * same corrections and outputs. */
static void check_ref_runs(const fovea_stitch_map *m, const char *name)
{
    static const fovea_pixfmt fmts[4] = {FOVEA_PIX_RGBA, FOVEA_PIX_RGB24, FOVEA_PIX_NV12,
                                         FOVEA_PIX_I420};
    int n = m->num_cameras, W = m->pano_width, H = m->pano_height;
    test_rng rng;
    test_rng_seed(&rng, 0x5eed0000u + (uint64_t)n * 977u + (uint64_t)W);
    long long differ = 0;
    for (int fi = 0; fi < 4; fi++) {
        int yuv = fmts[fi] == FOVEA_PIX_NV12 || fmts[fi] == FOVEA_PIX_I420;
        fovea_frame cams[FOVEA_STITCH_MAX_CAMERAS];
        const fovea_frame *in[FOVEA_STITCH_MAX_CAMERAS];
        for (int c = 0; c < n; c++) {
            REQUIRE(fovea_frame_alloc(ctx, &cams[c], m->cam[c].cam_width, m->cam[c].cam_height,
                                      fmts[fi], FOVEA_MEM_HOST) == FOVEA_OK);
            in[c] = &cams[c];
        }
        fovea_frame out[2];
        fovea_stitcher *st[2];
        fovea_stitcher_settings ss;
        fovea_stitcher_default_settings(&ss);
        fovea_color_correction cc[FOVEA_STITCH_MAX_CAMERAS];
        for (int c = 0; c < n; c++) {
            cc[c].gain[0] = 0.8f + 0.15f * (float)c;
            cc[c].gain[1] = 1.1f - 0.05f * (float)c;
            cc[c].gain[2] = 0.9f + 0.1f * (float)c;
            cc[c].gamma = 0.85f + 0.1f * (float)c;
        }
        for (int mode = 0; mode < 2; mode++) {
            ss.color = mode == 0 ? FOVEA_COLOR_FIXED : FOVEA_COLOR_AUTO;
            ss.deterministic = 1;
            ss.auto_interval = 1;
            ss.min_overlap_samples = 10;
            for (int k = 0; k < 2; k++) {
                REQUIRE(fovea_stitcher_open(&st[k], ctx, m, &ss) == FOVEA_OK);
                st[k]->params.ref_runs_off = k;
                if (mode == 0)
                    REQUIRE(fovea_stitcher_set_color(st[k], cc, n) == FOVEA_OK);
                REQUIRE(fovea_frame_alloc(ctx, &out[k], W, H, yuv ? FOVEA_PIX_I420 : FOVEA_PIX_RGBA,
                                          FOVEA_MEM_HOST) == FOVEA_OK);
            }
            for (int frame = 0; frame < (mode == 0 ? 1 : 3); frame++) {
                for (int c = 0; c < n; c++)
                    test_fill_random(&cams[c], &rng);
                for (int k = 0; k < 2; k++) {
                    for (int p = 0; p < (yuv ? 3 : 1); p++)
                        memset(out[k].data[p], k ? 0xa5 : 0x5a,
                               (size_t)out[k].stride[p] * (size_t)(p ? (H + 1) / 2 : H));
                    REQUIRE(fovea_stitcher_process(st[k], in, n, &out[k]) == FOVEA_OK);
                }
                for (int p = 0; p < (yuv ? 3 : 1); p++) {
                    int pw = yuv ? (p ? (W + 1) / 2 : W) : 4 * W, ph = p ? (H + 1) / 2 : H;
                    for (int y = 0; y < ph; y++)
                        differ +=
                            memcmp(out[0].data[p] + (size_t)y * out[0].stride[p],
                                   out[1].data[p] + (size_t)y * out[1].stride[p], (size_t)pw) != 0;
                }
                fovea_color_correction g[2][FOVEA_STITCH_MAX_CAMERAS];
                for (int k = 0; k < 2; k++)
                    REQUIRE(fovea_stitcher_get_color(st[k], g[k], n) == FOVEA_OK);
                differ += memcmp(g[0], g[1], sizeof(g[0][0]) * (size_t)n) != 0;
            }
            for (int k = 0; k < 2; k++) {
                fovea_frame_free(ctx, &out[k]);
                fovea_stitcher_close(&st[k]);
            }
        }
        for (int c = 0; c < n; c++)
            fovea_frame_free(ctx, &cams[c]);
    }
    printf("%s: C stitcher with and without single-camera runs: %lld rows or corrections "
           "differ\n",
           name, differ);
    CHECK_EQ_INT(differ, 0);
}

static void build(const fovea_rig *rig, fovea_stitch_map *m, fovea_stitch_map_stats *st)
{
    fv_map_build_options o;
    fv_map_build_default_options(&o);
    o.stats = st;
    int rc = fv_map_build(ctx, rig, m, &o);
    if (rc != FOVEA_OK)
        fprintf(stderr, "map build: %s\n", fovea_last_error(ctx));
    REQUIRE(rc == FOVEA_OK);
    CHECK_EQ_INT(st->num_cameras, rig->num_cameras);
    for (int c = 0; c < rig->num_cameras; c++) {
        CHECK_EQ_INT(st->cam[c].step, m->cam[c].step);
        CHECK_EQ_INT(st->cam[c].bad, 0);
        CHECK_EQ_INT(st->cam[c].fallback, 0);
        CHECK(st->cam[c].max_err <= o.tolerance);
        CHECK(st->cam[c].seen_exact > 0);
        CHECK(m->cam[c].step >= 2); /* these rigs are smooth enough for a coarse grid */
    }
}

static void test_spec_rig(void)
{
    fovea_rig rig = spec_rig(4);
    fovea_stitch_map m;
    fovea_stitch_map_stats st;
    build(&rig, &m, &st);
    CHECK_EQ_INT(m.pano_width, 1425);
    CHECK_EQ_INT(m.pano_height, 475);
    CHECK(m.feather == 64.0f);
    /* px_scale = (W / hfov_rad) / fx */
    double ppr = 1425.0 / (150.0 * FOVEA_DEG2RAD);
    CHECK(fabs(m.cam[0].px_scale - ppr / 533.0) < 1e-6);
    CHECK(fabs(m.cam[1].px_scale - ppr / 300.0) < 1e-6);
    CHECK(m.cam[0].clip_rx == 0.0f && m.cam[1].clip_rx > 0.0f);
    check_accuracy(&rig, &m, "spec/4");
    {
        /* the rig at full size (grid steps 4 and 8 there), every 7th row */
        fovea_rig big = spec_rig(1);
        fovea_stitch_map mb;
        fovea_stitch_map_stats sb;
        build(&big, &mb, &sb);
        check_accuracy_rows(&big, &mb, "spec/1 (every 7th row)", 7);
        fv_stitch_map_free(&mb);
    }
    double jump = check_weights(&m, "spec/4");
    check_row_weights(&m, "spec/4", 1);
    check_ref_runs(&m, "spec/4");
    /* across the seam e_c - m_c changes by about 2.5 px per pixel here: slope
     * 2.5 / (2 feather) */
    CHECK(jump <= 1.5 / 64.0 + 0.005);

    fovea_stitch_coverage cv;
    CHECK_EQ_INT(fovea_stitch_map_coverage(&m, &cv), FOVEA_OK);
    printf("spec/4 coverage: none %.2f%%, one %.2f%%, 2+ %.2f%%, left %.2f%%, right %.2f%%, "
           "overlap width %.1f px over %d rows\n",
           cv.pct_none, cv.pct_one, cv.pct_multi, cv.pct_camera[0], cv.pct_camera[1],
           cv.overlap_width[0][1], cv.overlap_rows[0][1]);
    /* the pinhole (yaw -35, +-42 deg) and the fisheye (yaw 35, +-93 deg) overlap from
     * about lon -58 to +7 deg: 65 of 150 degrees; only the far left corners, outside
     * the pinhole's vertical field and past the fisheye's max_theta, are black */
    CHECK(cv.pct_none > 0.0 && cv.pct_none < 2.0);
    CHECK(cv.pct_multi > 38.0 && cv.pct_multi < 52.0);
    CHECK(fabs(cv.pct_none + cv.pct_one + cv.pct_multi - 100.0) < 1e-9);
    CHECK(cv.overlap_rows[0][1] == 475);
    CHECK(cv.overlap_width[0][1] > 580.0 && cv.overlap_width[0][1] < 720.0);
    CHECK(cv.overlap_width[1][0] == cv.overlap_width[0][1]);
    CHECK(fabs(cv.overlap_pct[0][1] - cv.pct_multi) < 1e-9);
    /* both cameras take part around the center row of the overlap */
    float w[FOVEA_STITCH_MAX_CAMERAS];
    int both = 0;
    for (int i = 0; i < 1425; i++)
        both += fv_map_weights(&m, i, 237, w, NULL, NULL) == 2;
    printf("spec/4: %d pixels of the center row blend both cameras\n", both);
    /* a band of one to two feathers: e_c - m_c changes by 1 (the pinhole's edge
     * distance is its vertical one on this row, nearly constant) to 2.5 panorama
     * pixels per pixel, and t_c spans 2 feathers of it */
    CHECK(both > 32 && both <= 160);

    /* the picture: black where uncovered, white seam pixels exist */
    uint8_t *rgb = malloc((size_t)1425 * 475 * 3);
    REQUIRE(rgb != NULL);
    CHECK_EQ_INT(fv_map_coverage_image(&m, rgb, 1425 * 3), FOVEA_OK);
    long long white = 0, black = 0;
    for (size_t k = 0; k < (size_t)1425 * 475; k++) {
        const uint8_t *p = rgb + 3 * k;
        white += p[0] == 255 && p[1] == 255 && p[2] == 255;
        black += p[0] == 0 && p[1] == 0 && p[2] == 0;
    }
    CHECK(white > 400 && white < 3000);
    CHECK(fabs(100.0 * black / (1425.0 * 475.0) - cv.pct_none) < 1e-9);
    free(rgb);

    /* hard seam: weights 0 or 1 */
    m.feather = 0.0f;
    long long frac = 0;
    for (int j = 0; j < 475; j += 3)
        for (int i = 0; i < 1425; i += 3) {
            int cnt = fv_map_weights(&m, i, j, w, NULL, NULL);
            CHECK(cnt <= 1);
            for (int c = 0; c < 2; c++)
                frac += w[c] != 0.0f && w[c] != 1.0f;
        }
    CHECK_EQ_INT(frac, 0);

    /* explicit weight tables replace the analytic weights */
    m.feather = 64.0f;
    for (int c = 0; c < 2; c++) {
        m.cam[c].weight = malloc(sizeof(float) * 1425 * 475);
        REQUIRE(m.cam[c].weight != NULL);
        for (size_t k = 0; k < (size_t)1425 * 475; k++)
            m.cam[c].weight[k] = c == 0 ? 3.0f : 1.0f;
    }
    m.cam[1].weight[(size_t)237 * 1425 + 100] = 0.0f;
    m.cam[0].weight[(size_t)237 * 1425 + 100] = 0.0f;
    CHECK_EQ_INT(fv_map_weights(&m, 600, 237, w, NULL, NULL), 2);
    CHECK(fabs(w[0] - 0.75f) < 1e-6 && fabs(w[1] - 0.25f) < 1e-6);
    CHECK_EQ_INT(fv_map_weights(&m, 1400, 237, w, NULL, NULL), 1); /* right only */
    CHECK(w[0] == 0.0f && w[1] == 1.0f);
    CHECK_EQ_INT(fv_map_weights(&m, 100, 237, w, NULL, NULL), 0); /* zero sum: uncovered */
    check_row_weights(&m, "spec/4 weight tables", 0);             /* no runs with weight tables */
    check_ref_runs(&m, "spec/4 weight tables");
    fv_stitch_map_free(&m);
    CHECK(m.cam[0].uv == NULL && m.num_cameras == 0);
}

static void test_fisheye_rig(void)
{
    fovea_rig rig = fisheye_rig();
    CHECK_EQ_INT(fovea_rig_validate(&rig, NULL), FOVEA_OK);
    fovea_stitch_map m;
    fovea_stitch_map_stats st;
    build(&rig, &m, &st);
    check_accuracy(&rig, &m, "fisheye");
    double jump = check_weights(&m, "fisheye");
    check_row_weights(&m, "fisheye", 1);
    check_ref_runs(&m, "fisheye");
    CHECK(jump <= 1.5 / 48.0 + 0.005);
    fovea_stitch_coverage cv;
    CHECK_EQ_INT(fovea_stitch_map_coverage(&m, &cv), FOVEA_OK);
    printf("fisheye coverage: none %.2f%%, one %.2f%%, 2+ %.2f%%\n", cv.pct_none, cv.pct_one,
           cv.pct_multi);
    CHECK(cv.overlap_rows[0][1] > 0 && cv.overlap_rows[1][2] > 0 && cv.overlap_rows[0][2] > 0);
    fv_stitch_map_free(&m);
}

static void test_cylinder_rig(void)
{
    fovea_rig rig = cylinder_rig();
    fovea_stitch_map m;
    fovea_stitch_map_stats st;
    build(&rig, &m, &st);
    check_accuracy(&rig, &m, "cylinder");
    double jump = check_weights(&m, "cylinder");
    check_row_weights(&m, "cylinder", 1);
    check_ref_runs(&m, "cylinder");
    CHECK(jump <= 2.5 / 32.0); /* pinholes 35 degrees off axis: e changes fast */
    fovea_stitch_coverage cv;
    CHECK_EQ_INT(fovea_stitch_map_coverage(&m, &cv), FOVEA_OK);
    printf("cylinder coverage: none %.2f%%, one %.2f%%, 2+ %.2f%%, widths %.1f %.1f %.1f\n",
           cv.pct_none, cv.pct_one, cv.pct_multi, cv.overlap_width[0][1], cv.overlap_width[1][2],
           cv.overlap_width[0][2]);
    CHECK(cv.overlap_width[0][1] > 0 && cv.overlap_width[1][2] > 0);
    CHECK(cv.overlap_rows[0][2] == 0 && cv.overlap_width[0][2] == 0.0);
    fv_stitch_map_free(&m);
}

static void test_step1_and_errors(void)
{
    /* max_step 1 stores the exact projection at every pixel */
    fovea_rig rig = spec_rig(20);
    fv_map_build_options o;
    fv_map_build_default_options(&o);
    o.max_step = 1;
    fovea_stitch_map m;
    REQUIRE(fv_map_build(NULL, &rig, &m, &o) == FOVEA_OK);
    long long mismatch = 0;
    for (int c = 0; c < 2; c++) {
        CHECK_EQ_INT(m.cam[c].step, 1);
        CHECK_EQ_INT(m.cam[c].grid_w, rig.width + 1);
        CHECK_EQ_INT(m.cam[c].grid_h, rig.height + 1);
        for (int j = 0; j < rig.height; j++)
            for (int i = 0; i < rig.width; i++) {
                double eu, ev;
                float lu, lv;
                int def = fv_rig_project(&rig, c, i, j, &eu, &ev);
                int seen = fv_map_lookup(&m, c, i, j, &lu, &lv);
                if (def && fv_inside_image(eu, ev, rig.cameras[c].width, rig.cameras[c].height))
                    mismatch += !seen || fabs(lu - eu) > 1e-3 || fabs(lv - ev) > 1e-3;
            }
    }
    CHECK_EQ_INT(mismatch, 0);
    check_row_weights(&m, "spec/20 step 1", 1);
    check_ref_runs(&m, "spec/20 step 1");
    /* out-of-range lookups */
    float u, v;
    CHECK_EQ_INT(fv_map_lookup(&m, 2, 0, 0, &u, &v), 0);
    CHECK_EQ_INT(fv_map_lookup(&m, 0, -1, 0, &u, &v), 0);
    CHECK_EQ_INT(fv_map_lookup(&m, 0, rig.width, 0, &u, &v), 0);
    fv_stitch_map_free(&m);

    /* a coarser max_step never gives a worse error than the tolerance */
    o.max_step = 32;
    fovea_stitch_map_stats st;
    o.stats = &st;
    REQUIRE(fv_map_build(ctx, &rig, &m, &o) == FOVEA_OK);
    for (int c = 0; c < 2; c++)
        CHECK(st.cam[c].max_err <= 0.01 && st.cam[c].step <= 32);
    check_accuracy(&rig, &m, "spec/20 max_step 32");
    check_row_weights(&m, "spec/20 max_step 32", 1);
    fv_stitch_map_free(&m);

    /* bad arguments */
    o.max_step = 3;
    CHECK_EQ_INT(fv_map_build(ctx, &rig, &m, &o), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "max_step") != NULL);
    o.max_step = 16;
    o.tolerance = 0.0;
    CHECK_EQ_INT(fv_map_build(ctx, &rig, &m, &o), FOVEA_ERR_INVALID_ARG);
    o.tolerance = 0.01;
    rig.cameras[1].fx = -1.0;
    CHECK_EQ_INT(fv_map_build(ctx, &rig, &m, &o), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "cameras[1].fx") != NULL);
    CHECK(m.cam[0].uv == NULL);
    CHECK_EQ_INT(fv_camera_map_alloc(&m.cam[0], 10, 10, 3), FOVEA_ERR_INVALID_ARG);
}

/* YUV corrections act as the RGB ones do (docs/stitch.md section 3): a camera
 * of flat color patches stitched as RGBA and as I420 with the same fixed
 * correction (per-channel gains and a gamma) gives the same colors, up to the
 * conversions' rounding and the YUV model's approximations; grays to within
 * 3 codes (a correction that left chroma alone would leave them 20 codes apart
 * in red and blue), colors to within 12 (measured 10, on saturated red: the
 * luma curve puts the gamma on luma, (gY Y)^gamma, where RGB puts it on each
 * channel; the chroma model itself adds about 1). */
/* One convention of test_yuv_white_balance: the RGBA camera cam converted to
 * I420 in (cs, range), stitched as YUV with the stitcher told (st_cs,
 * st_full) and converted back the same way, against the RGBA stitch rgba_out
 * made with the same correction cc. worst[0] / worst[1]: largest difference
 * over the grays' / colors' pixels (well inside a patch), mean[]: the mean
 * difference over their channels; checked[]: pixels. */
static void yuv_wb_case(const fovea_stitch_map *m, const fovea_frame *cam,
                        const fovea_frame *rgba_out, const fovea_color_correction *cc,
                        fovea_colorspace cs, fovea_range range, fovea_colorspace st_cs, int st_full,
                        int worst[2], long checked[2], double mean[2])
{
    fovea_frame ycam = {0}, yout = {0}, back = {0};
    REQUIRE(fovea_frame_alloc(NULL, &ycam, cam->width, cam->height, FOVEA_PIX_I420,
                              FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &yout, m->pano_width, m->pano_height, FOVEA_PIX_I420,
                              FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &back, m->pano_width, m->pano_height, FOVEA_PIX_RGBA,
                              FOVEA_MEM_HOST) == FOVEA_OK);
    fovea_convert_options co;
    fovea_convert_options_init(&co);
    co.colorspace = cs;
    co.range = range;
    REQUIRE(fovea_frame_convert(ctx, &ycam, cam, &co) == FOVEA_OK);
    fovea_stitcher_settings ss;
    fovea_stitcher_default_settings(&ss);
    ss.color = FOVEA_COLOR_FIXED;
    ss.yuv_colorspace = st_cs;
    ss.yuv_full_range = st_full;
    fovea_stitcher *st = NULL;
    const fovea_frame *in[1] = {&ycam};
    REQUIRE(fovea_stitcher_open(&st, ctx, m, &ss) == FOVEA_OK);
    REQUIRE(fovea_stitcher_set_color(st, cc, 1) == FOVEA_OK);
    REQUIRE(fovea_stitcher_process(st, in, 1, &yout) == FOVEA_OK);
    REQUIRE(fovea_frame_convert(ctx, &back, &yout, &co) == FOVEA_OK);
    worst[0] = worst[1] = 0;
    checked[0] = checked[1] = 0;
    long sum[2] = {0, 0};
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    for (int j = 0; j < m->pano_height; j++)
        for (int i = 0; i < m->pano_width; i++) {
            if (fv_map_weights(m, i, j, w, u, v) != 1)
                continue;
            const int px = (int)u[0], py = (int)v[0];
            /* well inside a patch: every sample of both paths is the patch's */
            if (px % 80 < 6 || px % 80 > 73 || py % 80 < 6 || py % 80 > 73)
                continue;
            const int patch = px / 80 + 4 * (py / 80), gray = patch < 4;
            const uint8_t *a = rgba_out->data[0] + (ptrdiff_t)j * rgba_out->stride[0] + 4 * i;
            const uint8_t *b = back.data[0] + (ptrdiff_t)j * back.stride[0] + 4 * i;
            for (int k = 0; k < 3; k++) {
                const int d = abs((int)a[k] - (int)b[k]);
                worst[!gray] = d > worst[!gray] ? d : worst[!gray];
                sum[!gray] += d;
            }
            checked[!gray]++;
        }
    for (int k = 0; k < 2; k++)
        mean[k] = checked[k] ? (double)sum[k] / (3.0 * (double)checked[k]) : 0.0;
    fovea_stitcher_close(&st);
    fovea_frame_free(NULL, &ycam);
    fovea_frame_free(NULL, &yout);
    fovea_frame_free(NULL, &back);
}

/* YUV white balance against RGB: a camera of flat patches (grays and colors)
 * stitched as RGBA and as I420 with the same per-channel gains and gamma must
 * agree, in each YUV convention (BT.601 / BT.709, limited / full range) when
 * the stitcher is told the convention of its input; told another one, it must
 * not (so the conventions are really used). */
static void test_yuv_white_balance(void)
{
    fovea_rig r;
    fv_rig_init(&r);
    r.width = 240;
    r.height = 120;
    r.hfov = 60.0;
    r.vfov = 30.0;
    r.num_cameras = 1;
    const double d0[5] = {0, 0, 0, 0, 0};
    set_cam(&r.cameras[0], "front", FOVEA_CAM_PINHOLE, 320, 240, 220.0, 220.0, d0, 0.0, 0.0, 0.0);
    fovea_stitch_map m;
    fovea_stitch_map_stats bs;
    memset(&m, 0, sizeof(m));
    build(&r, &m, &bs);
    /* grays first (4), then colors, none clipped by the gains (a clipped
     * channel is beyond the chroma correction's first order) */
    static const uint8_t pal[12][3] = {
        {40, 40, 40},   {110, 110, 110}, {180, 180, 180}, {225, 225, 225},
        {200, 60, 50},  {60, 170, 70},   {50, 80, 190},   {200, 180, 60},
        {120, 60, 150}, {70, 160, 170},  {220, 140, 110}, {215, 225, 150},
    };
    fovea_frame cam = {0}, out = {0};
    REQUIRE(fovea_frame_alloc(NULL, &cam, 320, 240, FOVEA_PIX_RGBA, FOVEA_MEM_HOST) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(NULL, &out, 240, 120, FOVEA_PIX_RGBA, FOVEA_MEM_HOST) == FOVEA_OK);
    for (int y = 0; y < 240; y++)
        for (int x = 0; x < 320; x++) {
            uint8_t *p = cam.data[0] + (ptrdiff_t)y * cam.stride[0] + 4 * x;
            memcpy(p, pal[x / 80 + 4 * (y / 80)], 3);
            p[3] = 255;
        }
    fovea_stitcher_settings ss;
    fovea_stitcher_default_settings(&ss);
    ss.color = FOVEA_COLOR_FIXED;
    const fovea_color_correction cc = {{1.12f, 1.0f, 0.88f}, 1.1f};
    fovea_stitcher *st = NULL;
    const fovea_frame *in[1] = {&cam};
    REQUIRE(fovea_stitcher_open(&st, ctx, &m, &ss) == FOVEA_OK);
    REQUIRE(fovea_stitcher_set_color(st, &cc, 1) == FOVEA_OK);
    REQUIRE(fovea_stitcher_process(st, in, 1, &out) == FOVEA_OK);
    /* 16-bit RGB cameras are refused with a status, not stitched as bytes */
    for (int k = 0; k < 2; k++) {
        fovea_frame deep = {0};
        REQUIRE(fovea_frame_alloc(NULL, &deep, 320, 240, k ? FOVEA_PIX_RGBA64 : FOVEA_PIX_RGB48,
                                  FOVEA_MEM_HOST) == FOVEA_OK);
        fovea_frame_fill(NULL, &deep, 0x40);
        const fovea_frame *din[1] = {&deep};
        CHECK_EQ_INT(fovea_stitcher_process(st, din, 1, &out), FOVEA_ERR_UNSUPPORTED);
        CHECK(strstr(fovea_last_error(ctx), k ? "rgba64" : "rgb48") != NULL);
        fovea_frame_free(NULL, &deep);
    }
    /* the API's boundary (issue 45): NULL inputs are named as such, a frame
     * whose stride is smaller than its row is refused, set/get_color record
     * their own message instead of leaving the previous call's */
    CHECK_EQ_INT(fovea_stitcher_process(st, NULL, 1, &out), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "inputs is NULL") != NULL);
    fovea_frame narrow = cam;
    narrow.buf = NULL;
    narrow.stride[0] = 4 * 320 - 4;
    const fovea_frame *nin[1] = {&narrow};
    CHECK_EQ_INT(fovea_stitcher_process(st, nin, 1, &out), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "camera 0: plane 0's stride 1276 is smaller than its row "
                                        "(1280 bytes)") != NULL);
    fovea_frame narrow_out = out;
    narrow_out.buf = NULL;
    narrow_out.stride[0] = 16;
    CHECK_EQ_INT(fovea_stitcher_process(st, in, 1, &narrow_out), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "output frame: plane 0's stride 16") != NULL);
    fovea_color_correction got[2];
    CHECK_EQ_INT(fovea_stitcher_set_color(st, NULL, 1), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "stitcher_set_color: NULL corrections") != NULL);
    CHECK_EQ_INT(fovea_stitcher_set_color(st, &cc, 2), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "2 corrections for 1 cameras") != NULL);
    CHECK_EQ_INT(fovea_stitcher_process(st, NULL, 1, &out), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_stitcher_get_color(st, got, 0), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "stitcher_get_color: room for 0") != NULL);
    CHECK_EQ_INT(fovea_stitcher_get_color(st, NULL, 1), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "stitcher_get_color: NULL corrections") != NULL);
    /* what follows compares out with the I420 path: stitch it again */
    REQUIRE(fovea_stitcher_process(st, in, 1, &out) == FOVEA_OK);
    fovea_stitcher_close(&st);
    static const char *const cs_name[2] = {"bt601", "bt709"};
    for (int cs = 0; cs < 2; cs++)
        for (int full = 0; full < 2; full++) {
            int worst[2], bad[2][2];
            long checked[2], bchecked[2];
            double mean[2], bmean[2][2];
            yuv_wb_case(&m, &cam, &out, &cc, (fovea_colorspace)cs, (fovea_range)full,
                        (fovea_colorspace)cs, full, worst, checked, mean);
            /* the same content with the other matrix, then the other range */
            yuv_wb_case(&m, &cam, &out, &cc, (fovea_colorspace)cs, (fovea_range)full,
                        (fovea_colorspace)!cs, full, bad[0], bchecked, bmean[0]);
            yuv_wb_case(&m, &cam, &out, &cc, (fovea_colorspace)cs, (fovea_range)full,
                        (fovea_colorspace)cs, !full, bad[1], bchecked, bmean[1]);
            printf("yuv white balance %s %s: RGBA vs I420 path, grays max %d mean %.2f (%ld px), "
                   "colors max %d mean %.2f (%ld px); told the other matrix: grays %d %.2f, "
                   "colors %d %.2f; the other range: grays %d %.2f, colors %d %.2f\n",
                   cs_name[cs], full ? "full" : "limited", worst[0], mean[0], checked[0], worst[1],
                   mean[1], checked[1], bad[0][0], bmean[0][0], bad[0][1], bmean[0][1], bad[1][0],
                   bmean[1][0], bad[1][1], bmean[1][1]);
            CHECK(checked[0] > 1000 && checked[1] > 1000);
            /* measured: grays at most 2 codes apart (mean 0.2-0.6), colors
             * 8-10 (the gamma goes on luma, not on each of R, G, B) */
            CHECK(worst[0] <= 2);
            CHECK(worst[1] <= 12);
            /* grays under the wrong matrix: mean 1.2-1.4 (the gains' luma
             * weights and the chroma offsets); the wrong range: 1.9-3.2 */
            CHECK(bmean[0][0] > mean[0] + 0.5);
            CHECK(bmean[1][0] > mean[0] + 1.0);
        }
    fovea_frame_free(NULL, &cam);
    fovea_frame_free(NULL, &out);
    fv_stitch_map_free(&m);
}

int main(void)
{
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    s.threads = 2;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
    test_spec_rig();
    test_fisheye_rig();
    test_cylinder_rig();
    test_step1_and_errors();
    test_yuv_white_balance();
    fovea_close(&ctx);
    return test_finish("test_stitch_map");
}
