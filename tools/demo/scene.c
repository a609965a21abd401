/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The procedural scene as a function of direction: hash-based value noise with
 * octaves faded out below a few pixels of the scene pitch, and every edge drawn
 * as a smoothstep a couple of pixels wide, measured through the local footprint
 * (meters per pixel on the ground or on an object). */
#include <math.h>
#include <string.h>

#include "scene.h"

#define SCENE_PI 3.14159265358979323846
#define DEG2RAD (SCENE_PI / 180.0)

/* Football pitch (meters): long axis along x, centered straight ahead. */
#define FIELD_HALF_LEN 52.5
#define FIELD_HALF_WID 34.0
#define FIELD_CENTER_Z 70.0
#define LINE_WIDTH 0.25
#define HAZE_DISTANCE 1400.0

enum {
    SEED_CLOUD,
    SEED_RIDGE_FAR,
    SEED_RIDGE_NEAR,
    SEED_ROCK,
    SEED_LAND,
    SEED_GRASS,
    SEED_SNOW,
    SEED_LEAF
};

/* ------------------------------------------------------------------ helpers */

static inline double clamp01(double x)
{
    return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

static inline double smooth01(double t)
{
    t = clamp01(t);
    return t * t * (3.0 - 2.0 * t);
}

/* Step from 0 to 1 as x crosses 0, spread over width w (a smoothstep). Used as
 * the integral of a parabolic filter kernel of support w: the difference of two
 * such steps is a box seen through that filter, so thin bands fade instead of
 * aliasing. */
static inline double fstep(double x, double w)
{
    return smooth01(x / w + 0.5);
}

/* Band [lo, hi] through the filter of width w. */
static inline double fband(double x, double lo, double hi, double w)
{
    return fstep(x - lo, w) - fstep(x - hi, w);
}

static inline void mix3(float c[3], const float o[3], double a)
{
    for (int k = 0; k < 3; k++)
        c[k] = (float)(c[k] + (o[k] - c[k]) * a);
}

static inline void set3(float c[3], double r, double g, double b)
{
    c[0] = (float)r;
    c[1] = (float)g;
    c[2] = (float)b;
}

/* Integer hash: xorshift-multiply rounds. */
static inline uint32_t hmix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x9e485565U;
    h ^= h >> 15;
    h *= 0xd35a2d97U;
    h ^= h >> 16;
    return h;
}

/* Hash to [-1, 1). */
static inline double hval(uint32_t h)
{
    return (double)(hmix(h) >> 8) * (2.0 / 16777216.0) - 1.0;
}

/* Quintic fade: C2 continuous interpolation between lattice values. */
static inline double fade(double t)
{
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
}

static inline double fade_deriv(double t)
{
    return 30.0 * t * t * (t * (t - 2.0) + 1.0);
}

/* Weight of a noise octave whose cells are cell_px pixels: 1 at feature_px and
 * above, 0 at feature_px / 2 and below. */
static inline double octave_weight(const scene_model *s, double cell_px)
{
    double f = s->p.feature_px;
    return smooth01((cell_px - 0.5 * f) / (0.5 * f));
}

/* 1D value noise, periodic with period cells; value and derivative per unit u. */
static double vnoise1(uint32_t seed, double u, int period, double *deriv)
{
    double fl = floor(u);
    double f = u - fl;
    long i = (long)fl % period;
    if (i < 0)
        i += period;
    long j = (i + 1) % period;
    double a = hval(seed ^ hmix((uint32_t)i * 0x9e3779b1U));
    double b = hval(seed ^ hmix((uint32_t)j * 0x9e3779b1U));
    *deriv = (b - a) * fade_deriv(f);
    return a + (b - a) * fade(f);
}

static double vnoise2(uint32_t seed, double x, double y)
{
    double fx = floor(x), fy = floor(y);
    double tx = fade(x - fx), ty = fade(y - fy);
    uint32_t ix = (uint32_t)(int64_t)fx, iy = (uint32_t)(int64_t)fy;
    uint32_t hy0 = hmix(iy * 0x85ebca6bU + seed), hy1 = hmix((iy + 1) * 0x85ebca6bU + seed);
    double v00 = hval(hy0 + ix * 0xc2b2ae35U), v10 = hval(hy0 + (ix + 1) * 0xc2b2ae35U);
    double v01 = hval(hy1 + ix * 0xc2b2ae35U), v11 = hval(hy1 + (ix + 1) * 0xc2b2ae35U);
    double a = v00 + (v10 - v00) * tx;
    double b = v01 + (v11 - v01) * tx;
    return a + (b - a) * ty;
}

/* 2D value noise periodic in x with period cells (for functions of azimuth). */
static double vnoise2_periodic(uint32_t seed, double x, double y, long period)
{
    double fx = floor(x);
    long ix = (long)fx % period;
    if (ix < 0)
        ix += period;
    long ix1 = ix + 1 == period ? 0 : ix + 1;
    double tx = fade(x - fx), fy = floor(y), ty = fade(y - fy);
    uint32_t iy = (uint32_t)(int64_t)fy;
    uint32_t hy0 = hmix(iy * 0x85ebca6bU + seed), hy1 = hmix((iy + 1) * 0x85ebca6bU + seed);
    double v00 = hval(hy0 + (uint32_t)ix * 0xc2b2ae35U),
           v10 = hval(hy0 + (uint32_t)ix1 * 0xc2b2ae35U);
    double v01 = hval(hy1 + (uint32_t)ix * 0xc2b2ae35U),
           v11 = hval(hy1 + (uint32_t)ix1 * 0xc2b2ae35U);
    double a = v00 + (v10 - v00) * tx;
    double b = v01 + (v11 - v01) * tx;
    return a + (b - a) * ty;
}

/* Fractal noise over (azimuth, elevation) in radians, seamless around the circle:
 * first octave cells of 2 pi / cells radians, fp radians per pixel. */
static double fbm_az(const scene_model *s, uint32_t seed, double az, double el, int cells,
                     double fp, int octaves, double gain)
{
    double cell = 2.0 * SCENE_PI / cells;
    double u = (az + SCENE_PI) / cell, v = el / cell, cpx = cell / fp;
    long period = cells;
    double sum = 0.0, amp = 1.0;
    for (int k = 0; k < octaves; k++) {
        double w = octave_weight(s, cpx);
        if (w <= 0.0)
            break;
        sum += amp * w * vnoise2_periodic(seed + (uint32_t)k * 0x3c6ef372U, u, v, period);
        u *= 2.0;
        v = 2.0 * v + 0.31;
        period *= 2;
        amp *= gain;
        cpx *= 0.5;
    }
    return sum;
}

/* 2D fractal noise in world units: first octave cells of size cell, footprint fp
 * (world units per pixel) fades octaves out; octaves rotate to hide the lattice. */
static double fbm2(const scene_model *s, uint32_t seed, double x, double y, double cell, double fp,
                   int octaves, double gain)
{
    double u = x / cell, v = y / cell, cpx = cell / fp;
    double sum = 0.0, amp = 1.0;
    for (int k = 0; k < octaves; k++) {
        double w = octave_weight(s, cpx);
        if (w <= 0.0)
            break;
        sum += amp * w * vnoise2(seed + (uint32_t)k * 0x3c6ef372U, u, v);
        double nu = 1.6 * u - 1.2 * v, nv = 1.2 * u + 1.6 * v; /* x2, rotated */
        u = nu + 17.31;
        v = nv - 5.77;
        amp *= gain;
        cpx *= 0.5;
    }
    return sum;
}

/* ------------------------------------------------------------------ sky */

static void sky_color(const scene_model *s, const double d[3], double el, float rgb[3])
{
    const scene_params *p = &s->p;
    double t = el <= 0.0 ? 0.0 : 1.0 - exp(-el * 2.6);
    for (int k = 0; k < 3; k++)
        rgb[k] = (float)(p->sky_horizon[k] + (p->sky_zenith[k] - p->sky_horizon[k]) * t);

    /* sun: wide glow, tight glow, filtered disk */
    double c = d[0] * s->sun[0] + d[1] * s->sun[1] + d[2] * s->sun[2];
    double glow = 0.30 * exp((c - 1.0) * 8.0) + 0.35 * exp((c - 1.0) * 300.0);
    if (c > 0.999) {
        double ang = acos(c > 1.0 ? 1.0 : c);
        glow += fstep(0.0090 - ang, p->edge_px * p->pitch);
    }
    static const float sun_col[3] = {255.0f, 236.0f, 200.0f};
    mix3(rgb, sun_col, clamp01(glow));

    /* clouds: 2D noise on a cloud layer seen in perspective. Octaves too fine for
     * the footprint fade out (toward the horizon), and what they leave is the
     * mean cloudiness: a bright haze band low in the sky. */
    if (el > 0.0) {
        const double layer = 2000.0, cell = 1500.0; /* meters */
        const double mean_cover = 0.22;
        double up = -d[1];
        double sum = 0.0, wsum = 0.0;
        if (up > 1e-4) {
            double dist = layer / up;
            double fp = dist * p->pitch / up; /* along the view: the larger footprint */
            double u = dist * d[0] / cell + 3.7, v = dist * d[2] / cell - 11.3;
            double cpx = cell / fp, amp = 1.0;
            for (int k = 0; k < 5; k++) {
                double w = octave_weight(s, cpx);
                if (w <= 0.0)
                    break;
                sum +=
                    amp * w * vnoise2(s->noise_seed[SEED_CLOUD] + (uint32_t)k * 0x6a09e667U, u, v);
                wsum += amp * w;
                double nu = 1.6 * u - 1.2 * v, nv = 1.2 * u + 1.6 * v;
                u = nu + 0.37;
                v = nv - 1.13;
                amp *= 0.5;
                cpx *= 0.5;
            }
        }
        double detail = wsum / 1.9375; /* share of the full octave sum present */
        double cover = detail * smooth01((sum - 0.05) / 0.55) + (1.0 - detail) * mean_cover;
        if (cover > 0.0) {
            float cloud[3];
            double lit = detail * smooth01((sum - 0.1) / 0.6) + (1.0 - detail) * 0.5;
            set3(cloud, 205 + 47 * lit, 210 + 43 * lit, 222 + 32 * lit);
            mix3(rgb, cloud, 0.92 * cover);
        }
    }
}

/* ------------------------------------------------------------------ mountains */

typedef struct ridge_def {
    int seed;
    int cells; /* first octave cells around the full circle */
    double base, amp;
} ridge_def;

static const ridge_def ridges[2] = {
    {SEED_RIDGE_FAR, 14, 0.060, 0.050},
    {SEED_RIDGE_NEAR, 22, 0.012, 0.036},
};

/* Ridge elevation (radians) at azimuth az and its slope d el / d az. */
static double ridge_at(const scene_model *s, int which, double az, double *slope)
{
    const ridge_def *r = &ridges[which];
    double u = (az + SCENE_PI) / (2.0 * SCENE_PI) * r->cells;
    int period = r->cells;
    double du_daz = r->cells / (2.0 * SCENE_PI);
    double cell_px = 2.0 * SCENE_PI / r->cells / s->p.pitch;
    double sum = 0.0, dsum = 0.0, amp = r->amp;
    for (int k = 0; k < 9; k++) {
        double w = octave_weight(s, cell_px);
        if (w <= 0.0 || amp < 0.25 * s->p.pitch) /* gone, or under a quarter pixel */
            break;
        double dn;
        double n = vnoise1(s->noise_seed[r->seed] + (uint32_t)k * 0x7f4a7c15U, u, period, &dn);
        sum += amp * w * n;
        dsum += amp * w * dn * du_daz;
        u *= 2.0;
        period *= 2;
        du_daz *= 2.0;
        cell_px *= 0.5;
        amp *= k == 0 ? 0.55 : 0.45;
    }
    *slope = dsum;
    return r->base + sum;
}

static void mountain_color(const scene_model *s, int which, double az, double el, float rgb[3])
{
    const scene_params *p = &s->p;
    double rock = fbm_az(s, s->noise_seed[SEED_ROCK] + (uint32_t)which, az, el * 1.6, 180,
                         1.6 * p->pitch, 4, 0.5);
    if (which == 0) {
        set3(rgb, 104 + 18 * rock, 112 + 18 * rock, 128 + 16 * rock);
        double dummy;
        double snow_line =
            0.085 + 0.012 * vnoise1(s->noise_seed[SEED_SNOW],
                                    (az + SCENE_PI) * (56.0 / (2.0 * SCENE_PI)), 56, &dummy);
        double snow = fstep(el - snow_line + 0.006 * rock, 3.0 * p->edge_px * p->pitch);
        static const float snow_col[3] = {236.0f, 240.0f, 246.0f};
        mix3(rgb, snow_col, 0.9 * snow);
        mix3(rgb, p->sky_horizon, 0.45);
    } else {
        set3(rgb, 58 + 16 * rock, 84 + 18 * rock, 60 + 10 * rock);
        mix3(rgb, p->sky_horizon, 0.22);
    }
}

/* ------------------------------------------------------------------ ground */

/* Footprint (meters per pixel) on the ground along unit ground direction (nx, nz):
 * t * pitch across the view, t * pitch / dy along it (foreshortening). */
typedef struct ground_fp {
    double lat_x, lat_z, rad_x, rad_z; /* unit vectors across / along the view */
    double f_lat, f_rad;
} ground_fp;

static inline double fp_along(const ground_fp *g, double nx, double nz)
{
    double a = g->f_lat * (nx * g->lat_x + nz * g->lat_z);
    double b = g->f_rad * (nx * g->rad_x + nz * g->rad_z);
    return sqrt(a * a + b * b);
}

/* Filter widths of the pitch markings: along x and z (straight lines), and the
 * largest over all directions (to skip far-away circles cheaply). */
typedef struct line_fp {
    const ground_fp *g;
    double e; /* edge width, pixels */
    double fx, fz, fmax;
} line_fp;

/* A line of the pitch along x at z = z0, from x0 to x1 (ends included). */
static double line_x(const line_fp *l, double x, double z, double z0, double x0, double x1)
{
    const double hw = 0.5 * LINE_WIDTH;
    if (fabs(z - z0) > hw + l->fz || x < x0 - hw - l->fx || x > x1 + hw + l->fx)
        return 0.0;
    return fband(z, z0 - hw, z0 + hw, l->fz) * fband(x, x0 - hw, x1 + hw, l->fx);
}

/* A line along z at x = x0, from z0 to z1. */
static double line_z(const line_fp *l, double x, double z, double x0, double z0, double z1)
{
    const double hw = 0.5 * LINE_WIDTH;
    if (fabs(x - x0) > hw + l->fx || z < z0 - hw - l->fz || z > z1 + hw + l->fz)
        return 0.0;
    return fband(x, x0 - hw, x0 + hw, l->fx) * fband(z, z0 - hw, z1 + hw, l->fz);
}

/* Circle of radius r around (cx, cz), the part with xmin <= x <= xmax. */
static double line_circle(const line_fp *l, double x, double z, double cx, double cz, double r,
                          double xmin, double xmax)
{
    const double hw = 0.5 * LINE_WIDTH;
    double dx = x - cx, dz = z - cz;
    double rr = sqrt(dx * dx + dz * dz);
    if (fabs(rr - r) > hw + l->fmax || rr < 1e-9)
        return 0.0;
    double f = l->e * fp_along(l->g, dx / rr, dz / rr);
    return fband(rr, r - hw, r + hw, f) * fband(x, xmin, xmax, l->fx);
}

/* Coverage of the white markings at pitch coordinates (x, z) (center at 0, 0). */
static double pitch_lines(const line_fp *l, double x, double z)
{
    const double L = FIELD_HALF_LEN, W = FIELD_HALF_WID;
    const double hw = 0.5 * LINE_WIDTH;
    if (fabs(x) > L + hw + l->fmax || fabs(z) > W + hw + l->fmax)
        return 0.0;
    double c = 0.0, v;
#define UNION(expr)                                                                                \
    do {                                                                                           \
        v = (expr);                                                                                \
        if (v > c)                                                                                 \
            c = v;                                                                                 \
    } while (0)
    UNION(line_x(l, x, z, -W, -L, L));
    UNION(line_x(l, x, z, W, -L, L));
    UNION(line_z(l, x, z, 0.0, -W, W));
    UNION(line_circle(l, x, z, 0.0, 0.0, 9.15, -1e9, 1e9));
    for (int side = -1; side <= 1; side += 2) {
        double gl = side * L;
        /* everything below lies within 21 m of this goal line */
        if (fabs(x - gl) > 21.0 + hw + l->fmax)
            continue;
        UNION(line_z(l, x, z, gl, -W, W));
        double pa = side * (L - 16.5), ga = side * (L - 5.5);
        UNION(line_z(l, x, z, pa, -20.16, 20.16));
        UNION(line_z(l, x, z, ga, -9.16, 9.16));
        double lo = side < 0 ? gl : pa, hi = side < 0 ? pa : gl;
        UNION(line_x(l, x, z, -20.16, lo, hi));
        UNION(line_x(l, x, z, 20.16, lo, hi));
        lo = side < 0 ? gl : ga;
        hi = side < 0 ? ga : gl;
        UNION(line_x(l, x, z, -9.16, lo, hi));
        UNION(line_x(l, x, z, 9.16, lo, hi));
        /* penalty arc: the part outside the area */
        double spot = side * (L - 11.0);
        if (side < 0)
            UNION(line_circle(l, x, z, spot, 0.0, 9.15, pa, 1e9));
        else
            UNION(line_circle(l, x, z, spot, 0.0, 9.15, -1e9, pa));
    }
#undef UNION
    return c;
}

static void ground_color(const scene_model *s, const double d[3], float rgb[3])
{
    const scene_params *p = &s->p;
    double h = p->camera_height;
    double t = h / d[1];
    double x = t * d[0], z = t * d[2];
    double sxz = sqrt(d[0] * d[0] + d[2] * d[2]);
    ground_fp g;
    if (sxz > 1e-12) {
        g.rad_x = d[0] / sxz;
        g.rad_z = d[2] / sxz;
    } else {
        g.rad_x = 0.0;
        g.rad_z = 1.0;
    }
    g.lat_x = g.rad_z;
    g.lat_z = -g.rad_x;
    g.f_lat = t * p->pitch;
    g.f_rad = t * p->pitch / d[1];
    double fmax = g.f_rad;
    double e = p->edge_px;

    /* pitch and the track around it (masks first: what they cover is not computed) */
    double in_outer = 0.0, in_inner = 0.0, fx_ = 0.0, fz_ = 0.0, fz = z - FIELD_CENTER_Z;
    if (p->field) {
        /* distance outside the rectangle around the pitch (negative inside) */
        double ox = fabs(x) - (FIELD_HALF_LEN + 4.0), oz = fabs(fz) - (FIELD_HALF_WID + 4.0);
        const double track_out = 8.0;
        fx_ = e * fp_along(&g, 1.0, 0.0);
        fz_ = e * fp_along(&g, 0.0, 1.0);
        in_outer = fstep(track_out - ox, fx_) * fstep(track_out - oz, fz_);
        if (in_outer > 0.0)
            in_inner = fstep(-ox, fx_) * fstep(-oz, fz_);
    }

    set3(rgb, 0, 0, 0); /* fully covered layers below are skipped */
    if (in_outer < 1.0) {
        /* open land: grass, dry grass and earth */
        double n = fbm2(s, s->noise_seed[SEED_LAND], x, z, 40.0, fmax, 5, 0.5);
        static const float earth[3] = {128, 100, 70}, green[3] = {74, 116, 48},
                           dry[3] = {150, 146, 86};
        double a = smooth01((n + 0.6) / 0.5);  /* earth -> green */
        double b = smooth01((n - 0.25) / 0.5); /* green -> dry */
        memcpy(rgb, earth, sizeof(earth));
        mix3(rgb, green, a);
        mix3(rgb, dry, b);
    }
    if (in_outer > 0.0 && in_inner < 1.0) {
        double tn = fbm2(s, s->noise_seed[SEED_GRASS] + 7u, x, z, 3.0, fmax, 2, 0.5);
        float track[3];
        set3(track, 166 * (1.0 + 0.06 * tn), 88 * (1.0 + 0.06 * tn), 66 * (1.0 + 0.06 * tn));
        mix3(rgb, track, in_outer);
    }
    if (in_inner > 0.0) {
        /* grass with mowing stripes across the long axis */
        const double stripe = 2.0 * FIELD_HALF_LEN / 18.0;
        double u = (x + FIELD_HALF_LEN + 4.0) / stripe;
        double ru = floor(u + 0.5);
        int parity_right = ((long)ru) & 1;
        double sd = (u - ru) * stripe; /* signed meters from the nearest boundary */
        double sw = fstep(sd, fx_);
        double light = parity_right ? sw : 1.0 - sw;
        double keep = 1.0 - smooth01((fx_ - 0.5 * stripe) / (0.5 * stripe));
        light = 0.5 + (light - 0.5) * keep;
        double gn = fbm2(s, s->noise_seed[SEED_GRASS], x, z, 2.5, fmax, 3, 0.55);
        double br = 1.0 + 0.10 * (light - 0.5) + 0.05 * gn;
        float grass[3];
        set3(grass, 62 * br, 128 * br, 52 * br);
        line_fp lf = {&g, e, fx_, fz_, e * g.f_rad};
        double lines = pitch_lines(&lf, x, fz);
        static const float white[3] = {236, 238, 234};
        mix3(grass, white, 0.95 * lines);
        mix3(rgb, grass, in_inner);
    }

    /* aerial perspective */
    double haze = 1.0 - exp(-t / HAZE_DISTANCE);
    mix3(rgb, p->sky_horizon, haze);
}

/* ------------------------------------------------------------------ objects */

static void composite(float rgb[3], const float c[3], double a)
{
    if (a > 0.0)
        mix3(rgb, c, a);
}

/* Draw object o over rgb for unit direction d. */
static void object_draw(const scene_model *s, const scene_object *o, const double d[3], double sxz,
                        float rgb[3])
{
    const scene_params *p = &s->p;
    double c = o->nx * d[0] + o->nz * d[2];
    if (c <= 1e-9)
        return;
    double t = o->dist / c;
    double a = o->nz * (t * d[0] - o->gx) - o->nx * (t * d[2] - o->gz);
    double hgt = p->camera_height - t * d[1];
    if (hgt < -2.0 * t * p->pitch * p->edge_px)
        return;
    double slant = sxz / c;
    if (slant > 4.0)
        slant = 4.0;
    double fp = t * p->pitch;
    double fa = p->edge_px * fp * slant; /* filter width along the plane */
    double fh = p->edge_px * fp;         /* and vertically */
    double haze = 1.0 - exp(-t / HAZE_DISTANCE);
    float col[3];

    switch (o->kind) {
    case SCENE_TREE: {
        double crown_ry = 0.36 * o->height, crown_rx = o->half_width;
        double hc = o->height - crown_ry;
        double tw = 0.04 * o->height + 0.15;
        double trunk = fband(a, -tw, tw, fa) * fband(hgt, 0.0, hc, fh);
        set3(col, 86, 68, 50);
        mix3(col, p->sky_horizon, haze);
        composite(rgb, col, trunk);
        double qa = a / crown_rx, qh = (hgt - hc) / crown_ry;
        double q = sqrt(qa * qa + qh * qh);
        double rmin = crown_rx < crown_ry ? crown_rx : crown_ry;
        if ((q - 1.0) * rmin > 1.3 + fa + fh) /* beyond the leaf bumps and the filter */
            break;
        double leaf = fbm2(s, s->noise_seed[SEED_LEAF] + o->seed, a, hgt, 1.6, fp * slant, 3, 0.5);
        double sd = (q - 1.0) * rmin - 0.7 * leaf;
        double cov = fstep(-sd, fa > fh ? fa : fh);
        if (cov <= 0.0)
            break;
        /* sphere-like shading toward the sun, in the plane's axes */
        double nv2 = 1.0 - q * q;
        double nv = nv2 > 0.0 ? sqrt(nv2) : 0.0; /* toward the viewer */
        double sl = o->nz * s->sun[0] - o->nx * s->sun[2], su = -s->sun[1];
        double sv = -(o->nx * s->sun[0] + o->nz * s->sun[2]);
        double lam = qa * sl + qh * su + nv * sv;
        lam = lam > 0.0 ? lam : 0.0;
        double br = (0.62 + 0.45 * lam) * (1.0 + 0.12 * leaf);
        set3(col, o->color[0] * br, o->color[1] * br, o->color[2] * br);
        mix3(col, p->sky_horizon, haze);
        composite(rgb, col, cov);
        break;
    }
    case SCENE_POLE: {
        double H = o->height;
        double pole = fband(a, -0.45, 0.45, fa) * fband(hgt, 0.0, H - 1.0, fh);
        set3(col, 150, 150, 156);
        mix3(col, p->sky_horizon, haze);
        composite(rgb, col, pole);
        double frame = fband(a, -3.6, 3.6, fa) * fband(hgt, H - 1.6, H + 1.6, fh);
        set3(col, 58, 60, 66);
        mix3(col, p->sky_horizon, haze);
        composite(rgb, col, frame);
        double lamps = fband(a, -3.2, 3.2, fa) * fband(hgt, H - 1.2, H + 1.2, fh);
        set3(col, 252, 250, 236);
        composite(rgb, col, lamps);
        break;
    }
    case SCENE_STAND: {
        double H = o->height, hw = o->half_width;
        double body = fband(a, -hw, hw, fa) * fband(hgt, 0.0, H, fh);
        if (body <= 0.0)
            break;
        memcpy(col, o->color, sizeof(col));
        /* windows: a filtered grid that fades to its mean when too fine */
        const double per_a = 3.4, per_h = 3.3;
        double ua = a - per_a * floor(a / per_a + 0.5);
        double uh = (hgt - 2.4) - per_h * floor((hgt - 2.4) / per_h + 0.5);
        double win = fband(ua, -0.9, 0.9, fa) * fband(uh, -0.8, 0.8, fh);
        double fade_a = 1.0 - smooth01((fa - 0.4 * per_a) / (0.4 * per_a));
        double fade_h = 1.0 - smooth01((fh - 0.4 * per_h) / (0.4 * per_h));
        double mean = (1.8 / per_a) * (1.6 / per_h);
        win = mean + (win - mean) * fade_a * fade_h;
        win *= fband(a, -hw + 1.5, hw - 1.5, fa) * fband(hgt, 1.2, H - 2.2, fh);
        static const float glass[3] = {62, 74, 92};
        mix3(col, glass, win);
        double roof = fband(hgt, H - 1.1, H + 1.0, fh);
        static const float roof_col[3] = {92, 92, 98};
        mix3(col, roof_col, roof);
        mix3(col, p->sky_horizon, haze);
        composite(rgb, col, body);
        break;
    }
    case SCENE_GOAL: {
        const double gw = 3.66, gh = 2.44, r = 0.09;
        double posts = (fband(a, -gw - r, -gw + r, fa) + fband(a, gw - r, gw + r, fa)) *
                       fband(hgt, 0.0, gh + r, fh);
        double bar = fband(a, -gw - r, gw + r, fa) * fband(hgt, gh - r, gh + r, fh);
        double cov = posts > bar ? posts : bar;
        set3(col, 242, 242, 240);
        mix3(col, p->sky_horizon, haze);
        composite(rgb, col, cov);
        break;
    }
    }
}

/* ------------------------------------------------------------------ scene */

void scene_color(const scene_model *s, double dx, double dy, double dz, float rgb[3])
{
    const scene_params *p = &s->p;
    double n = sqrt(dx * dx + dy * dy + dz * dz);
    if (!(n > 0.0) || !isfinite(n)) {
        set3(rgb, 0, 0, 0);
        return;
    }
    double d[3] = {dx / n, dy / n, dz / n};
    double sxz = sqrt(d[0] * d[0] + d[2] * d[2]);
    double el = atan2(-d[1], sxz);
    double pe = p->edge_px * p->pitch; /* edge width in radians */

    /* Layers front to back, each hiding what lies behind in proportion to its
     * coverage: ground (el < 0, filtered edge at the horizon), near ridge, far
     * ridge, sky. T is what still shows through. */
    double acc[3] = {0.0, 0.0, 0.0}, T = 1.0;
    double az = 0.0;
    int have_az = 0;
    double ground = fstep(-el, pe);
    if (ground > 0.0) {
        float g[3];
        if (d[1] > 1e-9)
            ground_color(s, d, g);
        else
            memcpy(g, p->sky_horizon, sizeof(g));
        for (int k = 0; k < 3; k++)
            acc[k] += ground * g[k];
        T -= ground;
    }
    if (T > 0.0 && el - pe < s->ridge_max) {
        az = atan2(d[0], d[2]);
        have_az = 1;
        for (int w = 1; w >= 0 && T > 0.0; w--) {
            double slope;
            double r = ridge_at(s, w, az, &slope);
            double cs = sxz > 1e-9 ? slope / sxz : slope;
            double dist = (r - el) / sqrt(1.0 + cs * cs); /* radians to the silhouette */
            double cov = fstep(dist, pe);
            if (cov > 0.0) {
                float m[3];
                mountain_color(s, w, az, el, m);
                for (int k = 0; k < 3; k++)
                    acc[k] += T * cov * m[k];
                T *= 1.0 - cov;
            }
        }
    }
    if (T > 0.0) {
        float sky[3];
        sky_color(s, d, el, sky);
        for (int k = 0; k < 3; k++)
            acc[k] += T * sky[k];
    }
    for (int k = 0; k < 3; k++)
        rgb[k] = (float)acc[k];

    /* objects stand in front of all of that; drawn far to near */
    if (el >= s->obj_el_min && el <= s->obj_el_max) {
        if (!have_az)
            az = atan2(d[0], d[2]);
        int bin = (int)((az + SCENE_PI) * (SCENE_AZ_BINS / (2.0 * SCENE_PI)));
        bin = bin < 0 ? 0 : (bin >= SCENE_AZ_BINS ? SCENE_AZ_BINS - 1 : bin);
        uint64_t mask = s->az_mask[bin];
        while (mask) {
            int i = __builtin_ctzll(mask);
            mask &= mask - 1;
            const scene_object *o = &s->obj[i];
            if (el < o->el_min || el > o->el_max || az < o->az_min || az > o->az_max)
                continue;
            object_draw(s, o, d, sxz, rgb);
        }
    }
    for (int k = 0; k < 3; k++)
        rgb[k] = rgb[k] < 0.0f ? 0.0f : (rgb[k] > 255.0f ? 255.0f : rgb[k]);
}

/* ------------------------------------------------------------------ setup */

void scene_default_params(scene_params *p, uint64_t seed, double pitch)
{
    memset(p, 0, sizeof(*p));
    p->seed = seed;
    p->pitch = pitch;
    p->edge_px = 2.5;
    p->feature_px = 6.0;
    p->sun_azimuth = -40.0;
    p->sun_elevation = 35.0;
    set3(p->sky_zenith, 62, 112, 192);
    set3(p->sky_horizon, 198, 213, 230);
    p->camera_height = 15.0;
    p->field = 1;
    p->supersample = 2;
}

/* splitmix64 step: the layout generator's random numbers. */
static uint64_t next_u64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double next_unit(uint64_t *state)
{
    return (double)(next_u64(state) >> 11) * (1.0 / 9007199254740992.0);
}

static double uniform(uint64_t *state, double lo, double hi)
{
    return lo + (hi - lo) * next_unit(state);
}

/* Angular bounds of an object from points along its outline, widened by the
 * edge filter and a margin for shapes that bulge (tree crowns). */
static void object_bounds(const scene_model *s, scene_object *o)
{
    double h = s->p.camera_height;
    double lx = o->nz, lz = -o->nx;
    double az_min = 1e9, az_max = -1e9, el_min = 1e9, el_max = -1e9;
    double hw = o->half_width + 2.0, top = o->height + 2.0;
    for (int i = 0; i <= 16; i++) {
        double a = -hw + 2.0 * hw * i / 16.0;
        double x = o->gx + a * lx, z = o->gz + a * lz;
        double r = sqrt(x * x + z * z);
        double az = atan2(x, z);
        for (int k = 0; k < 2; k++) {
            double el = atan2((k ? top : -0.5) - h, r);
            if (az < az_min)
                az_min = az;
            if (az > az_max)
                az_max = az;
            if (el < el_min)
                el_min = el;
            if (el > el_max)
                el_max = el;
        }
    }
    /* filtered edges reach half an edge width (times the slant, at most 4) out */
    double m = 6.0 * s->p.edge_px * s->p.pitch;
    o->az_min = az_min - m;
    o->az_max = az_max + m;
    o->el_min = el_min - m;
    o->el_max = el_max + m;
}

static double anchor_dist(const scene_object *o)
{
    return sqrt(o->gx * o->gx + o->gz * o->gz);
}

static void add_billboard(scene_model *s, scene_object_kind kind, double x, double z,
                          double half_width, double height, uint32_t seed)
{
    if (s->num_objects >= SCENE_MAX_OBJECTS)
        return;
    scene_object *o = &s->obj[s->num_objects++];
    memset(o, 0, sizeof(*o));
    double r = sqrt(x * x + z * z);
    o->kind = kind;
    o->nx = x / r;
    o->nz = z / r;
    o->dist = r;
    o->gx = x;
    o->gz = z;
    o->half_width = half_width;
    o->height = height;
    o->seed = seed;
}

int scene_init(scene_model *s, const scene_params *p)
{
    if (!s || !p || !(p->pitch > 0.0) || !isfinite(p->pitch) || p->pitch > 0.5 ||
        p->supersample < 1 || p->supersample > 4 || !(p->camera_height > 0.0) ||
        !(p->edge_px > 0.0) || !(p->feature_px > 0.0) || !isfinite(p->sun_azimuth) ||
        !isfinite(p->sun_elevation))
        return FOVEA_ERR_INVALID_ARG;
    memset(s, 0, sizeof(*s));
    s->p = *p;
    double sa = p->sun_azimuth * DEG2RAD, se = p->sun_elevation * DEG2RAD;
    s->sun[0] = cos(se) * sin(sa);
    s->sun[1] = -sin(se);
    s->sun[2] = cos(se) * cos(sa);

    uint64_t st = p->seed ^ 0x5ce9e5a1d0f00dull;
    for (int i = 0; i < 8; i++)
        s->noise_seed[i] = (uint32_t)(next_u64(&st) >> 32);

    /* highest ridge: base + the octave amplitudes (noise is within [-1, 1]) */
    s->ridge_max = -1.0;
    for (int w = 0; w < 2; w++) {
        double amp = ridges[w].amp, sum = 0.0;
        for (int k = 0; k < 9; k++) {
            sum += amp;
            amp *= k == 0 ? 0.55 : 0.45;
        }
        double top = ridges[w].base + sum;
        if (top > s->ridge_max)
            s->ridge_max = top;
    }

    const double zc = FIELD_CENTER_Z;
    double stand_x = uniform(&st, -35.0, 35.0), stand_z = zc + FIELD_HALF_WID + 32.0;
    double stand_hw = 26.0;
    if (p->field) {
        for (int sx = -1; sx <= 1; sx += 2)
            for (int sz = -1; sz <= 1; sz += 2)
                add_billboard(s, SCENE_POLE, sx * (FIELD_HALF_LEN + 14.0),
                              zc + sz * (FIELD_HALF_WID + 14.0), 4.0, 34.0, 0);
        for (int sx = -1; sx <= 1; sx += 2) {
            scene_object *o = &s->obj[s->num_objects++];
            memset(o, 0, sizeof(*o));
            o->kind = SCENE_GOAL;
            o->nx = sx;
            o->nz = 0.0;
            o->dist = FIELD_HALF_LEN;
            o->gx = sx * FIELD_HALF_LEN;
            o->gz = zc;
            o->half_width = 3.8;
            o->height = 2.6;
        }
        /* the stand faces the viewer squarely: plane z = stand_z */
        scene_object *o = &s->obj[s->num_objects++];
        memset(o, 0, sizeof(*o));
        o->kind = SCENE_STAND;
        o->nx = 0.0;
        o->nz = 1.0;
        o->dist = stand_z;
        o->gx = stand_x;
        o->gz = stand_z;
        o->half_width = stand_hw;
        o->height = uniform(&st, 11.0, 15.0);
        set3(o->color, uniform(&st, 185, 215), uniform(&st, 178, 200), uniform(&st, 160, 180));
    }

    /* trees: a belt behind the pitch and groups on both sides */
    int trees = 0;
    for (int attempt = 0; attempt < 400 && trees < 34 && s->num_objects < SCENE_MAX_OBJECTS;
         attempt++) {
        double x, z;
        if (trees < 22) {
            x = uniform(&st, -280.0, 280.0);
            z = uniform(&st, zc + 52.0, zc + 170.0);
        } else {
            x = (next_unit(&st) < 0.5 ? -1.0 : 1.0) * uniform(&st, 80.0, 170.0);
            z = uniform(&st, 25.0, 130.0);
        }
        if (p->field && fabs(x - stand_x) < stand_hw + 8.0 && z < stand_z + 12.0 &&
            z > stand_z - 12.0)
            continue;
        if (p->field && fabs(x) < FIELD_HALF_LEN + 24.0 && fabs(z - zc) < FIELD_HALF_WID + 22.0)
            continue;
        double height = uniform(&st, 9.0, 19.0);
        add_billboard(s, SCENE_TREE, x, z, height * uniform(&st, 0.26, 0.36), height,
                      (uint32_t)(next_u64(&st) >> 40));
        scene_object *o = &s->obj[s->num_objects - 1];
        set3(o->color, uniform(&st, 34, 60), uniform(&st, 72, 104), uniform(&st, 28, 44));
        trees++;
    }

    for (int i = 0; i < s->num_objects; i++)
        object_bounds(s, &s->obj[i]);
    /* far to near, so nearer objects paint over farther ones (insertion sort: stable) */
    for (int i = 1; i < s->num_objects; i++) {
        scene_object o = s->obj[i];
        int j = i - 1;
        while (j >= 0 && anchor_dist(&s->obj[j]) < anchor_dist(&o)) {
            s->obj[j + 1] = s->obj[j];
            j--;
        }
        s->obj[j + 1] = o;
    }
    s->obj_el_min = 1e9;
    s->obj_el_max = -1e9;
    for (int i = 0; i < s->num_objects; i++) {
        const scene_object *o = &s->obj[i];
        if (o->el_min < s->obj_el_min)
            s->obj_el_min = o->el_min;
        if (o->el_max > s->obj_el_max)
            s->obj_el_max = o->el_max;
        double scale = SCENE_AZ_BINS / (2.0 * SCENE_PI);
        int b0 = (int)floor((o->az_min + SCENE_PI) * scale);
        int b1 = (int)floor((o->az_max + SCENE_PI) * scale);
        for (int b = b0 < 0 ? 0 : b0; b <= b1 && b < SCENE_AZ_BINS; b++)
            s->az_mask[b] |= (uint64_t)1 << i;
    }
    return FOVEA_OK;
}
