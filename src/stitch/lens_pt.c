/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* PanoTools/Hugin lenses (FOVEA_CAM_PANOTOOLS): the lens projection, the radial
 * polynomial normalized by half the smaller image side, the principal point shift
 * and the shear, in the order libpano13 applies them when nona remaps a panorama. */
#include <math.h>

#include "stitch/geometry.h"

/* Below this, 1 + cos(theta) counts as 0 for the equisolid lens (libpano13's EPSLN). */
#define PT_EQUISOLID_EPS 1e-10

int fv_pt_radial_on(const fovea_rig_camera *cam)
{
    return cam->dist[0] != 0.0 || cam->dist[1] != 0.0 || cam->dist[2] != 0.0;
}

/* r_src = r (d + c r + b r^2 + a r^3): its derivative in r. */
static double radial_deriv(const double *k, double r)
{
    double a = k[0], b = k[1], c = k[2], d = 1.0 - a - b - c;
    return d + r * (2.0 * c + r * (3.0 * b + r * 4.0 * a));
}

static double radial_value(const double *k, double r)
{
    double a = k[0], b = k[1], c = k[2], d = 1.0 - a - b - c;
    return r * (d + r * (c + r * (b + r * a)));
}

/* Smallest root in (0, 1000) of the cubic radial_deriv, or 1000: PanoTools' correction
 * radius. Past it, the polynomial folds and libpano13 throws the point away. The
 * roots are bracketed between the roots of the derivative's own derivative (a
 * quadratic), each bracket bisected to the last bit. */
double fv_pt_corr_radius(const fovea_rig_camera *cam)
{
    const double none = 1000.0;
    if (!fv_pt_radial_on(cam))
        return INFINITY;
    const double *k = cam->dist;
    double a = k[0], b = k[1], c = k[2];
    /* breakpoints: 0, the positive roots of 12 a r^2 + 6 b r + 2 c, 1000 */
    double pts[4];
    int n = 0;
    pts[n++] = 0.0;
    double qa = 12.0 * a, qb = 6.0 * b, qc = 2.0 * c;
    if (qa != 0.0) {
        double disc = qb * qb - 4.0 * qa * qc;
        if (disc >= 0.0) {
            double s = sqrt(disc);
            double r1 = (-qb - s) / (2.0 * qa), r2 = (-qb + s) / (2.0 * qa);
            if (r1 > r2) {
                double t = r1;
                r1 = r2;
                r2 = t;
            }
            if (r1 > 0.0 && r1 < none)
                pts[n++] = r1;
            if (r2 > 0.0 && r2 < none && r2 != r1)
                pts[n++] = r2;
        }
    } else if (qb != 0.0) {
        double r1 = -qc / qb;
        if (r1 > 0.0 && r1 < none)
            pts[n++] = r1;
    }
    pts[n++] = none;
    for (int i = 0; i + 1 < n; i++) {
        double lo = pts[i], hi = pts[i + 1];
        double flo = radial_deriv(k, lo), fhi = radial_deriv(k, hi);
        if (flo == 0.0 && lo > 0.0)
            return lo;
        if ((flo > 0.0) == (fhi > 0.0) && fhi != 0.0)
            continue;
        for (int it = 0; it < 200; it++) {
            double mid = 0.5 * (lo + hi);
            if (mid <= lo || mid >= hi)
                break;
            double fm = radial_deriv(k, mid);
            if ((fm > 0.0) == (flo > 0.0) && fm != 0.0) {
                lo = mid;
                flo = fm;
            } else {
                hi = mid;
            }
        }
        return hi;
    }
    return none;
}

/* Ideal image point at unit focal length of direction p (camera frame, any length). */
static int lens_project(fovea_lens lens, const double p[3], double *x, double *y)
{
    double n = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    if (!(n > 0.0))
        return 0;
    double vx = p[0] / n, vy = p[1] / n, vz = p[2] / n;
    double r = hypot(vx, vy), rho = hypot(vx, vz);
    switch (lens) {
    case FOVEA_LENS_RECTILINEAR:
        if (!(vz > 0.0))
            return 0;
        *x = vx / vz;
        *y = vy / vz;
        return 1;
    case FOVEA_LENS_FISHEYE: {
        if (r == 0.0) {
            if (vz < 0.0)
                return 0;
            *x = *y = 0.0;
            return 1;
        }
        double theta = atan2(r, vz);
        *x = theta * vx / r;
        *y = theta * vy / r;
        return 1;
    }
    case FOVEA_LENS_EQUIRECTANGULAR:
        *x = atan2(vx, vz);
        *y = atan2(vy, rho);
        return 1;
    case FOVEA_LENS_CYLINDRICAL:
        if (rho == 0.0)
            return 0;
        *x = atan2(vx, vz);
        *y = vy / rho;
        return 1;
    case FOVEA_LENS_ORTHOGRAPHIC:
        if (vz < 0.0)
            return 0;
        *x = vx;
        *y = vy;
        return 1;
    case FOVEA_LENS_STEREOGRAPHIC: {
        if (!(1.0 + vz > 0.0))
            return 0;
        double s = 2.0 / (1.0 + vz);
        *x = s * vx;
        *y = s * vy;
        return 1;
    }
    case FOVEA_LENS_EQUISOLID: {
        if (!(fabs(1.0 + vz) > PT_EQUISOLID_EPS))
            return 0;
        double s = sqrt(2.0 / (1.0 + vz));
        *x = s * vx;
        *y = s * vy;
        return 1;
    }
    }
    return 0;
}

/* Inverse of lens_project: unit direction of ideal point (x, y). */
static int lens_unproject(fovea_lens lens, double x, double y, double p[3])
{
    double r = hypot(x, y), theta, s;
    switch (lens) {
    case FOVEA_LENS_RECTILINEAR: {
        double n = sqrt(x * x + y * y + 1.0);
        p[0] = x / n;
        p[1] = y / n;
        p[2] = 1.0 / n;
        return 1;
    }
    case FOVEA_LENS_EQUIRECTANGULAR:
        if (!(fabs(y) <= FOVEA_PI / 2.0))
            return 0;
        p[0] = cos(y) * sin(x);
        p[1] = sin(y);
        p[2] = cos(y) * cos(x);
        return 1;
    case FOVEA_LENS_CYLINDRICAL: {
        double n = sqrt(1.0 + y * y);
        p[0] = sin(x) / n;
        p[1] = y / n;
        p[2] = cos(x) / n;
        return 1;
    }
    case FOVEA_LENS_FISHEYE: theta = r; break;
    case FOVEA_LENS_ORTHOGRAPHIC:
        if (!(r <= 1.0))
            return 0;
        theta = asin(r);
        break;
    case FOVEA_LENS_STEREOGRAPHIC: theta = 2.0 * atan(r / 2.0); break;
    case FOVEA_LENS_EQUISOLID:
        if (!(r < 2.0))
            return 0;
        theta = 2.0 * asin(r / 2.0);
        break;
    default: return 0;
    }
    if (!(theta < FOVEA_PI))
        return 0;
    if (r == 0.0) {
        p[0] = p[1] = 0.0;
        p[2] = 1.0;
        return 1;
    }
    s = sin(theta) / r;
    p[0] = s * x;
    p[1] = s * y;
    p[2] = cos(theta);
    return 1;
}

int fv_pt_project(const fovea_rig_camera *cam, double corr_radius, const double p[3], double *u,
                  double *v)
{
    double x, y;
    if (!lens_project(cam->lens, p, &x, &y))
        return 0;
    double w = cam->width, h = cam->height;
    double X = cam->fx * x, Y = cam->fy * y;
    if (fv_pt_radial_on(cam)) {
        double norm = (w < h ? w : h) / 2.0;
        double rn = sqrt(X * X + Y * Y) / norm;
        if (!(rn < corr_radius))
            return 0;
        const double *k = cam->dist;
        double s = ((k[0] * rn + k[1]) * rn + k[2]) * rn + (1.0 - k[0] - k[1] - k[2]);
        X *= s;
        Y *= s;
    }
    /* the shift (d, e) is the principal point's offset from the image center; the
     * shear then acts on shifted coordinates */
    double ox = w / 2.0 - 0.5, oy = h / 2.0 - 0.5;
    double u0 = X + (cam->cx - ox), v0 = Y + (cam->cy - oy);
    *u = u0 + (cam->dist[3] / h) * v0 + ox;
    *v = v0 + (cam->dist[4] / w) * u0 + oy;
    return 1;
}

int fv_pt_unproject(const fovea_rig_camera *cam, double corr_radius, double u, double v,
                    double p[3])
{
    double w = cam->width, h = cam->height;
    double ox = w / 2.0 - 0.5, oy = h / 2.0 - 0.5;
    double gs = cam->dist[3] / h, ts = cam->dist[4] / w;
    double det = 1.0 - gs * ts;
    if (det == 0.0)
        return 0;
    double us = u - ox, vs = v - oy;
    double X = (us - gs * vs) / det - (cam->cx - ox);
    double Y = (vs - ts * us) / det - (cam->cy - oy);
    if (fv_pt_radial_on(cam)) {
        double norm = (w < h ? w : h) / 2.0;
        double rs = sqrt(X * X + Y * Y) / norm;
        if (rs > 0.0) {
            /* r_src(r) increases on [0, corr_radius): bisect r_src(r) = rs */
            double hi = corr_radius < 1000.0 ? corr_radius : 1000.0, lo = 0.0;
            if (!(radial_value(cam->dist, hi) > rs))
                return 0;
            for (int it = 0; it < 200; it++) {
                double mid = 0.5 * (lo + hi);
                if (mid <= lo || mid >= hi)
                    break;
                if (radial_value(cam->dist, mid) < rs)
                    lo = mid;
                else
                    hi = mid;
            }
            double rn = 0.5 * (lo + hi);
            X *= rn / rs;
            Y *= rn / rs;
        }
    }
    return lens_unproject(cam->lens, X / cam->fx, Y / cam->fy, p);
}
