/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Stitch map storage, the per-pixel grid lookup and the analytic blend weights.
 * This float arithmetic is the reference the CUDA kernel reproduces operation by
 * operation (IEEE round-to-nearest, no FMA contraction: __fmul_rn/__fadd_rn/
 * __fdiv_rn/__fsqrt_rn on the device). The library compiles as ISO C11, where GCC
 * does not contract a*b+c into an FMA; clang is told so explicitly below. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "stitch/map.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

static int valid_step(int step)
{
    return step == 1 || step == 2 || step == 4 || step == 8 || step == 16 || step == 32;
}

int fv_camera_map_alloc(fv_camera_map *cam, int pano_w, int pano_h, int step)
{
    if (!cam || pano_w < 1 || pano_h < 1 || pano_w > 16384 || pano_h > 16384 || !valid_step(step))
        return FOVEA_ERR_INVALID_ARG;
    int gw = (pano_w - 1) / step + 2, gh = (pano_h - 1) / step + 2;
    size_t n, bytes;
    if (!fv_mul_size((size_t)gw, (size_t)gh, &n) || !fv_mul_size(n, 2 * sizeof(float), &bytes))
        return FOVEA_ERR_NOMEM;
    float *uv = malloc(bytes);
    if (!uv)
        return FOVEA_ERR_NOMEM;
    for (size_t k = 0; k < 2 * n; k++)
        uv[k] = NAN;
    free(cam->uv);
    cam->uv = uv;
    cam->step = step;
    cam->grid_w = gw;
    cam->grid_h = gh;
    return FOVEA_OK;
}

void fv_stitch_map_free(fovea_stitch_map *m)
{
    if (!m)
        return;
    for (int c = 0; c < FOVEA_STITCH_MAX_CAMERAS; c++) {
        free(m->cam[c].uv);
        free(m->cam[c].weight);
    }
    memset(m, 0, sizeof(*m));
}

/* The lookup. With s = step (a power of two), gx = i / s, rx = i % s and
 *   fx = (float)rx / (float)s,  ax = 1.0f - fx     (both exact)
 * and the same for y (gy, fy, ay), each coordinate c in {u, v} of the four nodes
 * c00 = node(gx, gy), c10 = node(gx+1, gy), c01 = node(gx, gy+1), c11 = node(gx+1, gy+1)
 * is interpolated with exactly these roundings, in this order:
 *   left  = (ay * c00) + (fy * c01)
 *   right = (ay * c10) + (fy * c11)
 *   c     = (ax * left) + (fx * right)
 * (each * and + rounded to float; no fused multiply-add). A NaN node makes the
 * result NaN, even with a zero factor, so such pixels fail the inside test below.
 * Seen: u >= 0 && u <= (float)(W-1) && v >= 0 && v <= (float)(H-1), and for a
 * fisheye q < 1 with ex = (u - clip_cx) * (1 / clip_rx), ey = (v - clip_cy) * (1 / clip_ry),
 * q = (ex * ex) + (ey * ey). *q_out gets q (0 without an ellipse). */
/* Grid cell g = c / s and fraction f = (float)(c - g s) / (float)s of a pixel
 * coordinate c >= 0. For the steps maps use (powers of two up to 32) the same
 * values come from a shift and r times the exact 1 / s (scaling by a power of
 * two rounds nothing): no division per lookup. */
static inline void grid_split(int c, int s, int *g, float *f)
{
    static const float inv_pow2[6] = {1.0f, 0.5f, 0.25f, 0.125f, 0.0625f, 0.03125f};
    if (c >= 0 && s >= 1 && s <= 32 && (s & (s - 1)) == 0) {
        int k = (s >= 2) + (s >= 4) + (s >= 8) + (s >= 16) + (s >= 32);
        *g = c >> k;
        *f = (float)(c & (s - 1)) * inv_pow2[k];
    } else {
        *g = c / s;
        *f = (float)(c - *g * s) / (float)s;
    }
}

/* Seen test and fisheye measure of a looked-up (u, v) (see lookup_core). */
static inline int seen_at(const fv_camera_map *cam, float u, float v, float *q_out)
{
    int seen = u >= 0.0f && u <= (float)(cam->cam_width - 1) && v >= 0.0f &&
               v <= (float)(cam->cam_height - 1);
    float q = 0.0f;
    if (cam->clip_rx > 0.0f) {
        float ex = (u - cam->clip_cx) * (1.0f / cam->clip_rx);
        float ey = (v - cam->clip_cy) * (1.0f / cam->clip_ry);
        q = ex * ex + ey * ey;
        seen = seen && q < 1.0f;
    }
    *q_out = q;
    return seen;
}

static int lookup_core(const fv_camera_map *cam, int i, int j, float *u_out, float *v_out,
                       float *q_out)
{
    int s = cam->step;
    int gx, gy;
    float fx, fy;
    grid_split(i, s, &gx, &fx);
    grid_split(j, s, &gy, &fy);
    float ax = 1.0f - fx, ay = 1.0f - fy;
    const float *n00 = cam->uv + ((size_t)gy * (size_t)cam->grid_w + (size_t)gx) * 2;
    const float *n10 = n00 + 2;
    const float *n01 = n00 + (size_t)cam->grid_w * 2;
    const float *n11 = n01 + 2;
    /* columns first: a thread of the CUDA kernel shares them across the pixels
     * of one cell row */
    float left_u = ay * n00[0] + fy * n01[0];
    float right_u = ay * n10[0] + fy * n11[0];
    float u = ax * left_u + fx * right_u;
    float left_v = ay * n00[1] + fy * n01[1];
    float right_v = ay * n10[1] + fy * n11[1];
    float v = ax * left_v + fx * right_v;
    *u_out = u;
    *v_out = v;
    return seen_at(cam, u, v, q_out);
}

int fv_camera_map_lookup(const fv_camera_map *cam, int i, int j, float *u, float *v)
{
    float q;
    return lookup_core(cam, i, j, u, v, &q);
}

int fv_map_lookup(const fovea_stitch_map *m, int c, int i, int j, float *u, float *v)
{
    if (c < 0 || c >= m->num_cameras || i < 0 || j < 0 || i >= m->pano_width ||
        j >= m->pano_height || !m->cam[c].uv) {
        *u = NAN;
        *v = NAN;
        return 0;
    }
    return fv_camera_map_lookup(&m->cam[c], i, j, u, v);
}

/* Edge distance of a seen point in panorama pixels (float, in this order):
 *   e = fminf(fminf(u, (float)(W-1) - u), fminf(v, (float)(H-1) - v))
 *   fisheye: e = fminf(e, (1.0f - sqrtf(q)) * fminf(clip_rx, clip_ry))
 *   e = e * px_scale
 * e >= 0 for every seen point and 0 on the border of the seen region. */
static float edge_distance(const fv_camera_map *cam, float u, float v, float q)
{
    float e = fminf(fminf(u, (float)(cam->cam_width - 1) - u),
                    fminf(v, (float)(cam->cam_height - 1) - v));
    if (cam->clip_rx > 0.0f)
        e = fminf(e, (1.0f - sqrtf(q)) * fminf(cam->clip_rx, cam->clip_ry));
    return e * cam->px_scale;
}

/* Blend weights. For every camera c: seen_c and (u_c, v_c) from the lookup, e_c
 * from edge_distance() when seen, else e_c = 0 and w_c = 0.
 * m_c = max of e_k over the other seeing cameras (0 when none); computed as the
 * largest e (first index on ties) and the second largest.
 * Feather f = map->feather > 0 (analytic cameras):
 *   t_c    = clamp(0.5f + (e_c - m_c) * (1.0f / (2.0f * f)), 0, 1)
 *   ramp_c = fminf(1.0f, e_c * (1.0f / fmaxf(1.0f, 0.5f * f)))
 *   raw_c  = t_c * ramp_c
 * Across a seam e_c - m_c changes by about 2 panorama pixels per pixel, so t_c runs
 * from 0 to 1 over about f pixels centerd where e_c = m_c (the middle of the
 * overlap). ramp_c brings raw_c to exactly 0 at the camera's own border, which keeps
 * the weights continuous where an overlap is narrower than the feather.
 * Feather 0 (hard seam): raw_c = 1 for the seeing camera with the largest e (first
 * index on ties), 0 for the others.
 * Cameras with an explicit weight table (imports): raw_c = table value when seen
 * (negative or NaN -> 0).
 * sum = raw_0 + raw_1 + ... (index order); w_c = raw_c * (1.0f / sum).
 * (Reciprocals, not divisions: the CUDA kernel computes them once per thread.)
 * A pixel that only one analytic camera sees gets w = 1 for it directly.
 * sum == 0 while some analytic camera sees the pixel (all on their borders, a set of
 * measure zero): w = 1 for the seeing analytic camera with the largest e (first
 * index on ties). sum == 0 with only table cameras seeing: uncovered. */
static int weights_from(const fovea_stitch_map *m, int i, int j, int n, const int *seen,
                        const float *us, const float *vs, const float *qs, int nseen, int last,
                        float w[FOVEA_STITCH_MAX_CAMERAS]);

int fv_map_weights(const fovea_stitch_map *m, int i, int j, float w[FOVEA_STITCH_MAX_CAMERAS],
                   float u[FOVEA_STITCH_MAX_CAMERAS], float v[FOVEA_STITCH_MAX_CAMERAS])
{
    int n = m->num_cameras;
    if (n > FOVEA_STITCH_MAX_CAMERAS)
        n = FOVEA_STITCH_MAX_CAMERAS;
    int seen[FOVEA_STITCH_MAX_CAMERAS];
    int inside = i >= 0 && j >= 0 && i < m->pano_width && j < m->pano_height;
    for (int c = 0; c < FOVEA_STITCH_MAX_CAMERAS; c++) {
        w[c] = 0.0f;
        if (u)
            u[c] = NAN;
        if (v)
            v[c] = NAN;
    }
    float qs[FOVEA_STITCH_MAX_CAMERAS], us[FOVEA_STITCH_MAX_CAMERAS], vs[FOVEA_STITCH_MAX_CAMERAS];
    int nseen = 0, last = -1;
    for (int c = 0; c < n; c++) {
        const fv_camera_map *cam = &m->cam[c];
        us[c] = NAN;
        vs[c] = NAN;
        qs[c] = 0.0f;
        seen[c] = inside && cam->uv && lookup_core(cam, i, j, &us[c], &vs[c], &qs[c]);
        if (u)
            u[c] = us[c];
        if (v)
            v[c] = vs[c];
        if (seen[c]) {
            nseen++;
            last = c;
        }
    }
    return weights_from(m, i, j, n, seen, us, vs, qs, nseen, last, w);
}

/* The weights of pixel (i, j) from every camera's lookup (seen, u, v, q); w is
 * zero on entry. nseen cameras see the pixel, the last of them is `last`. */
static int weights_from(const fovea_stitch_map *m, int i, int j, int n, const int *seen,
                        const float *us, const float *vs, const float *qs, int nseen, int last,
                        float w[FOVEA_STITCH_MAX_CAMERAS])
{
    float e[FOVEA_STITCH_MAX_CAMERAS];
    float best = 0.0f, second = 0.0f;
    int best_idx = -1; /* among seeing analytic cameras */
    /* One analytic camera sees the pixel: whatever its raw weight, normalizing
     * (raw / raw) or the border fallback gives it exactly 1. The CUDA kernel
     * takes the same shortcut for tiles that only one camera sees. */
    if (nseen == 1 && !m->cam[last].weight) {
        w[last] = 1.0f;
        return 1;
    }
    if (nseen == 0)
        return 0;
    for (int c = 0; c < n; c++) {
        const fv_camera_map *cam = &m->cam[c];
        float uc = us[c], vc = vs[c], q = qs[c];
        e[c] = seen[c] ? edge_distance(cam, uc, vc, q) : 0.0f;
        if (seen[c] && !cam->weight) {
            if (best_idx < 0 || e[c] > best) {
                second = best_idx < 0 ? 0.0f : best;
                best = e[c];
                best_idx = c;
            } else if (e[c] > second) {
                second = e[c];
            }
        }
    }

    /* m_c needs every seeing camera, table ones included */
    float top1 = 0.0f, top2 = 0.0f;
    int top_idx = -1;
    for (int c = 0; c < n; c++) {
        if (!seen[c])
            continue;
        if (top_idx < 0 || e[c] > top1) {
            top2 = top_idx < 0 ? 0.0f : top1;
            top1 = e[c];
            top_idx = c;
        } else if (e[c] > top2) {
            top2 = e[c];
        }
    }

    float f = m->feather;
    float raw[FOVEA_STITCH_MAX_CAMERAS];
    float sum = 0.0f;
    for (int c = 0; c < n; c++) {
        raw[c] = 0.0f;
        if (!seen[c])
            continue;
        const fv_camera_map *cam = &m->cam[c];
        if (cam->weight) {
            float t = cam->weight[(size_t)j * (size_t)m->pano_width + (size_t)i];
            raw[c] = t > 0.0f ? t : 0.0f; /* NaN compares false */
        } else if (f > 0.0f) {
            float mc = c == top_idx ? top2 : top1;
            float t = 0.5f + (e[c] - mc) * (1.0f / (2.0f * f));
            t = fminf(fmaxf(t, 0.0f), 1.0f);
            float ramp = fminf(1.0f, e[c] * (1.0f / fmaxf(1.0f, 0.5f * f)));
            raw[c] = t * ramp;
        } else {
            raw[c] = c == best_idx ? 1.0f : 0.0f;
        }
        sum += raw[c];
    }
    /* Table weights are any finite values >= 0, so their sum may overflow
     * (two weights of 3e38), or its reciprocal may (two of 1e-45) or lose
     * precision as a denormal (sums over 2^126): outside [2^-125, 2^125]
     * every weight is first scaled by the power of two that brings the
     * largest into [0.5, 1). That is exact, so a table blends the same at any
     * scale. Analytic weights lie in [0, 1] and do not take this path. */
    if (sum > 0.0f && !(sum >= 0x1p-125f && sum <= 0x1p125f)) {
        float top = 0.0f;
        for (int c = 0; c < n; c++)
            top = fmaxf(top, raw[c]);
        int e2 = 0;
        (void)frexpf(top, &e2);
        sum = 0.0f;
        for (int c = 0; c < n; c++) {
            raw[c] = ldexpf(raw[c], -e2);
            sum += raw[c];
        }
    }
    if (sum > 0.0f) {
        int count = 0;
        float inv = 1.0f / sum;
        for (int c = 0; c < n; c++) {
            w[c] = raw[c] * inv;
            count += w[c] > 0.0f;
        }
        return count;
    }
    if (best_idx >= 0) {
        w[best_idx] = 1.0f;
        return 1;
    }
    return 0;
}

/* ---- one row at a time ---- */

/* Whether no interpolation between a and b (weights in [0, 1]) can reach
 * [lo, hi]: both finite and both well below lo or above hi (by a pixel and a
 * relative margin far above float rounding). A NaN makes every interpolation
 * NaN, which no camera sees. */
static int cannot_reach(float a, float b, float lo, float hi)
{
    if (a != a || b != b)
        return 1; /* NaN */
    /* plain comparisons: fminf/fmaxf are library calls here, once per cell */
    float mx = a > b ? a : b, mn = a > b ? b : a;
    float big = mx > -mn ? mx : -mn; /* max(|mx|, |mn|) */
    float margin = 1.0f + 0x1p-10f * big;
    return mx < lo - margin || mn > hi + margin;
}

/* Whether every interpolation between a and b (weights in [0, 1]) lies in
 * [lo, hi]: both finite and both inside by the same margin as cannot_reach's
 * (far above the roundings of the interpolation). */
static int surely_within(float a, float b, float lo, float hi)
{
    if (a != a || b != b)
        return 0;
    float mx = a > b ? a : b, mn = a > b ? b : a;
    float big = mx > -mn ? mx : -mn;
    float margin = 1.0f + 0x1p-10f * big;
    return mn >= lo + margin && mx <= hi - margin;
}

/* Whether camera cam sees every pixel of a cell whose row positions run from
 * (u0, v0) to (u1, v1): the segment inside the image with margin, and for a
 * fisheye both ends well inside the clip ellipse (the ellipse's inside is
 * convex, so the whole segment is). */
static int cell_whole(const fv_camera_map *cam, float u0, float v0, float u1, float v1)
{
    if (!surely_within(u0, u1, 0.0f, (float)(cam->cam_width - 1)) ||
        !surely_within(v0, v1, 0.0f, (float)(cam->cam_height - 1)))
        return 0;
    if (cam->clip_rx > 0.0f) {
        for (int k = 0; k < 2; k++) {
            double ex = ((k ? u1 : u0) - (double)cam->clip_cx) / (double)cam->clip_rx;
            double ey = ((k ? v1 : v0) - (double)cam->clip_cy) / (double)cam->clip_ry;
            if (!(ex * ex + ey * ey <= 0.99))
                return 0;
        }
    }
    return 1;
}

void fv_map_row_init(fv_map_row *r)
{
    memset(r, 0, sizeof *r);
}

void fv_map_row_free(fv_map_row *r)
{
    free(r->buf);
    memset(r, 0, sizeof *r);
}

int fv_map_row_set(fv_map_row *r, const fovea_stitch_map *m, int j)
{
    int n = m->num_cameras;
    if (n > FOVEA_STITCH_MAX_CAMERAS)
        n = FOVEA_STITCH_MAX_CAMERAS;
    /* floats: 2 per node column; bytes: 1 per cell */
    size_t need = 0;
    for (int c = 0; c < n; c++)
        if (m->cam[c].uv)
            need += (size_t)m->cam[c].grid_w * (2 * sizeof(float) + 1);
    if (need > r->cap) {
        void *b = realloc(r->buf, need);
        if (!b)
            return FOVEA_ERR_NOMEM;
        r->buf = b;
        r->cap = need;
    }
    r->m = m;
    r->j = j;
    /* every camera's floats first, then the cell bytes (keeps the floats aligned) */
    float *fp = r->buf;
    size_t nfloats = 0;
    for (int c = 0; c < n; c++)
        if (m->cam[c].uv)
            nfloats += (size_t)m->cam[c].grid_w * 2;
    unsigned char *p = (unsigned char *)(fp + nfloats);
    int inside_row = j >= 0 && j < m->pano_height;
    for (int c = 0; c < FOVEA_STITCH_MAX_CAMERAS; c++) {
        r->col[c] = NULL;
        r->cell[c] = NULL;
        if (c >= n || !m->cam[c].uv || !inside_row)
            continue;
        const fv_camera_map *cam = &m->cam[c];
        int gy;
        float fy;
        grid_split(j, cam->step, &gy, &fy);
        float ay = 1.0f - fy;
        float *col = fp;
        fp += (size_t)cam->grid_w * 2;
        unsigned char *cell = p;
        p += (size_t)cam->grid_w;
        const float *n0 = cam->uv + (size_t)gy * (size_t)cam->grid_w * 2;
        const float *n1 = n0 + (size_t)cam->grid_w * 2;
        /* lookup_core's column values: ay * n(g, gy) + fy * n(g, gy + 1) */
        for (int g = 0; g < cam->grid_w; g++) {
            col[2 * g] = ay * n0[2 * g] + fy * n1[2 * g];
            col[2 * g + 1] = ay * n0[2 * g + 1] + fy * n1[2 * g + 1];
        }
        float umax = (float)(cam->cam_width - 1), vmax = (float)(cam->cam_height - 1);
        for (int g = 0; g + 1 < cam->grid_w; g++) {
            const float *p0 = col + 2 * g;
            if (cannot_reach(p0[0], p0[2], 0.0f, umax) || cannot_reach(p0[1], p0[3], 0.0f, vmax))
                cell[g] = 0;
            else
                cell[g] = cell_whole(cam, p0[0], p0[1], p0[2], p0[3]) ? 2 : 1;
        }
        cell[cam->grid_w - 1] = 0;
        r->col[c] = col;
        r->cell[c] = cell;
    }
    return FOVEA_OK;
}

int fv_map_row_weights(const fv_map_row *r, int i, float w[FOVEA_STITCH_MAX_CAMERAS],
                       float u[FOVEA_STITCH_MAX_CAMERAS], float v[FOVEA_STITCH_MAX_CAMERAS])
{
    const fovea_stitch_map *m = r->m;
    int n = m->num_cameras;
    if (n > FOVEA_STITCH_MAX_CAMERAS)
        n = FOVEA_STITCH_MAX_CAMERAS;
    int seen[FOVEA_STITCH_MAX_CAMERAS];
    int inside = i >= 0 && i < m->pano_width;
    for (int c = 0; c < n; c++) { /* the map's cameras only (see map.h) */
        w[c] = 0.0f;
        u[c] = NAN;
        v[c] = NAN;
    }
    float qs[FOVEA_STITCH_MAX_CAMERAS];
    int nseen = 0, last = -1;
    for (int c = 0; c < n; c++) {
        /* (assigned once per iteration, not cleared first: a cleared array
         * becomes a memset call per pixel) */
        int sc = 0;
        float q = 0.0f;
        if (inside && r->col[c]) {
            const fv_camera_map *cam = &m->cam[c];
            int gx;
            float fx;
            grid_split(i, cam->step, &gx, &fx);
            if (r->cell[c][gx]) {
                float ax = 1.0f - fx;
                const float *col = r->col[c] + 2 * gx;
                float uc = ax * col[0] + fx * col[2];
                float vc = ax * col[1] + fx * col[3];
                u[c] = uc;
                v[c] = vc;
                sc = seen_at(cam, uc, vc, &q);
            }
        }
        seen[c] = sc;
        qs[c] = q;
        if (sc) {
            nseen++;
            last = c;
        }
    }
    return weights_from(m, i, r->j, n, seen, u, v, qs, nseen, last, w);
}

/* The camera that alone sees every pixel of the cells holding pixel i (code 2
 * for it, 0 for every other camera), or -1; *end: the first cell boundary after
 * i of any camera. */
static int single_at(const fv_map_row *r, int n, int i, int *end)
{
    const fovea_stitch_map *m = r->m;
    int found = -1, e = m->pano_width;
    for (int c = 0; c < n; c++) {
        if (!r->col[c])
            continue;
        const fv_camera_map *cam = &m->cam[c];
        int gx;
        float fx;
        grid_split(i, cam->step, &gx, &fx);
        int code = r->cell[c][gx];
        if (code != 0) {
            if (code != 2 || found >= 0 || cam->weight)
                return -1; /* partly seen, a second camera, or a weight table */
            found = c;
        }
        int cell_end = (gx + 1) * cam->step;
        if (cell_end < e)
            e = cell_end;
    }
    *end = e;
    return found;
}

int fv_map_row_single(const fv_map_row *r, int i, int max, int *cam_out, int *end_out, float *u,
                      float *v)
{
    const fovea_stitch_map *m = r->m;
    int n = m->num_cameras;
    if (n > FOVEA_STITCH_MAX_CAMERAS)
        n = FOVEA_STITCH_MAX_CAMERAS;
    if (i < 0 || i >= m->pano_width || max < 1)
        return 0;
    int end;
    int found = single_at(r, n, i, &end);
    if (found < 0)
        return 0;
    /* whole cells of the same camera after it, up to max pixels */
    int limit = max > m->pano_width - i ? m->pano_width : i + max;
    while (end < limit) {
        int next;
        if (single_at(r, n, end, &next) != found)
            break;
        end = next;
    }
    if (end > limit)
        end = limit;
    const fv_camera_map *cam = &m->cam[found];
    for (int k = 0; i + k < end; k++) {
        int gx;
        float fx;
        grid_split(i + k, cam->step, &gx, &fx);
        float ax = 1.0f - fx;
        const float *col = r->col[found] + 2 * gx;
        u[k] = ax * col[0] + fx * col[2];
        v[k] = ax * col[1] + fx * col[3];
    }
    *cam_out = found;
    *end_out = end;
    return 1;
}
