/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Exact rig geometry in double precision, following ../shared/specs/rig.md
 * literally; the stitch map builder and its tests measure against these. */
#include <math.h>

#include "stitch/geometry.h"

/* Angles are reduced modulo 360 in degrees first: fmod is exact, so 370 turns
 * like 10 and 1e300 like its true remainder, where 1e300 * pi / 180 would be
 * an arbitrary angle after rounding. Angles within (-360, 360) are unchanged. */
void fv_rotation(double yaw_deg, double pitch_deg, double roll_deg, double r[3][3])
{
    double a = fmod(yaw_deg, 360.0) * FOVEA_DEG2RAD, b = fmod(pitch_deg, 360.0) * FOVEA_DEG2RAD,
           c = fmod(roll_deg, 360.0) * FOVEA_DEG2RAD;
    double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cc = cos(c), sc = sin(c);
    const double ry[3][3] = {{ca, 0, sa}, {0, 1, 0}, {-sa, 0, ca}};
    const double rx[3][3] = {{1, 0, 0}, {0, cb, -sb}, {0, sb, cb}};
    const double rz[3][3] = {{cc, -sc, 0}, {sc, cc, 0}, {0, 0, 1}};
    double t[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[i][j] = ry[i][0] * rx[0][j] + ry[i][1] * rx[1][j] + ry[i][2] * rx[2][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[i][j] = t[i][0] * rz[0][j] + t[i][1] * rz[1][j] + t[i][2] * rz[2][j];
}

void fv_mat_vec(const double m[3][3], const double a[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = m[i][0] * a[0] + m[i][1] * a[1] + m[i][2] * a[2];
}

void fv_mat_t_vec(const double m[3][3], const double a[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = m[0][i] * a[0] + m[1][i] * a[1] + m[2][i] * a[2];
}

/* ------------------------------------------------------------------ panorama */

void fv_pano_dir0(const fovea_rig *rig, double x, double y, double d0[3])
{
    double w = rig->width, h = rig->height;
    double hfov = rig->hfov * FOVEA_DEG2RAD;
    double lon = (x + 0.5 - w / 2.0) * hfov / w;
    if (rig->projection == FOVEA_PROJ_CYLINDRICAL) {
        double hh = (y + 0.5 - h / 2.0) * (hfov / w);
        double n = sqrt(1.0 + hh * hh);
        d0[0] = sin(lon) / n;
        d0[1] = hh / n;
        d0[2] = cos(lon) / n;
    } else {
        double lat = (y + 0.5 - h / 2.0) * (rig->vfov * FOVEA_DEG2RAD) / h;
        d0[0] = cos(lat) * sin(lon);
        d0[1] = sin(lat);
        d0[2] = cos(lat) * cos(lon);
    }
}

void fv_pano_dir(const fovea_rig *rig, double x, double y, double d[3])
{
    double d0[3], r[3][3];
    fv_pano_dir0(rig, x, y, d0);
    fv_rotation(rig->yaw, rig->pitch, 0.0, r);
    fv_mat_vec(r, d0, d);
}

int fovea_rig_panorama_to_dir(const fovea_rig *rig, double x, double y, double d[3])
{
    if (!rig || !d)
        return FOVEA_ERR_INVALID_ARG;
    fv_pano_dir(rig, x, y, d);
    return FOVEA_OK;
}

int fv_dir_to_pano(const fovea_rig *rig, const double d[3], double *x, double *y)
{
    double r[3][3], d0[3];
    fv_rotation(rig->yaw, rig->pitch, 0.0, r);
    fv_mat_t_vec(r, d, d0);
    double w = rig->width, h = rig->height;
    double hfov = rig->hfov * FOVEA_DEG2RAD;
    double rho = hypot(d0[0], d0[2]);
    if (rho == 0.0 && (rig->projection == FOVEA_PROJ_CYLINDRICAL || d0[1] == 0.0))
        return 0;
    double lon = atan2(d0[0], d0[2]);
    *x = lon * w / hfov + w / 2.0 - 0.5;
    if (rig->projection == FOVEA_PROJ_CYLINDRICAL) {
        *y = (d0[1] / rho) * w / hfov + h / 2.0 - 0.5;
    } else {
        double lat = atan2(d0[1], rho);
        *y = lat * h / (rig->vfov * FOVEA_DEG2RAD) + h / 2.0 - 0.5;
    }
    return 1;
}

/* ------------------------------------------------------------------ fisheye polynomial */

double fv_fisheye_td(const double k[4], double theta)
{
    double t2 = theta * theta;
    return theta * (1.0 + t2 * (k[0] + t2 * (k[1] + t2 * (k[2] + t2 * k[3]))));
}

double fv_fisheye_td_deriv(const double k[4], double theta)
{
    double t2 = theta * theta;
    return 1.0 + t2 * (3.0 * k[0] + t2 * (5.0 * k[1] + t2 * (7.0 * k[2] + t2 * 9.0 * k[3])));
}

double fv_fisheye_fold_theta(const double k[4])
{
    /* td' is a quartic in theta^2: scan finely, then bisect the first sign change */
    const int n = 4096;
    double prev = 0.0;
    for (int s = 1; s <= n; s++) {
        double t = FOVEA_PI * s / n;
        if (fv_fisheye_td_deriv(k, t) <= 0.0) {
            double lo = prev, hi = t;
            for (int it = 0; it < 60; it++) {
                double mid = 0.5 * (lo + hi);
                if (fv_fisheye_td_deriv(k, mid) <= 0.0)
                    hi = mid;
                else
                    lo = mid;
            }
            return hi;
        }
        prev = t;
    }
    return FOVEA_PI;
}

/* ------------------------------------------------------------------ camera */

static void pinhole_distort(const double *k, double x, double y, double *xd, double *yd)
{
    double k1 = k[0], k2 = k[1], p1 = k[2], p2 = k[3], k3 = k[4];
    double r2 = x * x + y * y;
    double radial = 1.0 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2;
    *xd = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x);
    *yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y;
}

int fv_camera_project(const fovea_rig_camera *cam, double theta_limit, const double p[3], double *u,
                      double *v)
{
    if (cam->model == FOVEA_CAM_PANOTOOLS)
        return fv_pt_project(cam, theta_limit, p, u, v);
    if (cam->model == FOVEA_CAM_PINHOLE) {
        if (!(p[2] > 0.0))
            return 0;
        double xd, yd;
        pinhole_distort(cam->dist, p[0] / p[2], p[1] / p[2], &xd, &yd);
        *u = cam->fx * xd + cam->cx;
        *v = cam->fy * yd + cam->cy;
        return 1;
    }
    double r = sqrt(p[0] * p[0] + p[1] * p[1]);
    double theta = atan2(r, p[2]);
    if (!(theta < theta_limit))
        return 0;
    if (r == 0.0) {
        *u = cam->cx;
        *v = cam->cy;
        return 1;
    }
    double td = fv_fisheye_td(cam->dist, theta);
    *u = cam->fx * td * p[0] / r + cam->cx;
    *v = cam->fy * td * p[1] / r + cam->cy;
    return 1;
}

/* Newton on distort(x, y) = (xd, yd), starting from the distorted point. */
static int pinhole_undistort(const double *k, double xd, double yd, double *xo, double *yo)
{
    double k1 = k[0], k2 = k[1], p1 = k[2], p2 = k[3], k3 = k[4];
    double x = xd, y = yd;
    double fx_, fy_;
    pinhole_distort(k, x, y, &fx_, &fy_);
    double res = fabs(fx_ - xd) + fabs(fy_ - yd);
    for (int it = 0; it < 100 && res > 0.0; it++) {
        double r2 = x * x + y * y;
        double radial = 1.0 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2;
        double dr = k1 + 2.0 * k2 * r2 + 3.0 * k3 * r2 * r2; /* d radial / d r2 */
        double a = radial + 2.0 * x * x * dr + 2.0 * p1 * y + 6.0 * p2 * x;
        double b = 2.0 * x * y * dr + 2.0 * p1 * x + 2.0 * p2 * y;
        double d = radial + 2.0 * y * y * dr + 6.0 * p1 * y + 2.0 * p2 * x;
        double det = a * d - b * b;
        if (det == 0.0 || !isfinite(det))
            break;
        double ex = fx_ - xd, ey = fy_ - yd;
        double dx = (d * ex - b * ey) / det, dy = (a * ey - b * ex) / det;
        /* damped: accept the full step only when it lowers the residual */
        double lam = 1.0, nres = res, nx = x, ny = y;
        for (int h = 0; h < 30; h++) {
            nx = x - lam * dx;
            ny = y - lam * dy;
            pinhole_distort(k, nx, ny, &fx_, &fy_);
            nres = fabs(fx_ - xd) + fabs(fy_ - yd);
            if (nres < res)
                break;
            lam *= 0.5;
        }
        if (!(nres < res))
            break; /* no progress: converged to rounding, or stuck */
        x = nx;
        y = ny;
        res = nres;
        if (res <= 1e-16 * (1.0 + fabs(xd) + fabs(yd)))
            break;
    }
    *xo = x;
    *yo = y;
    return res <= 1e-12 * (1.0 + fabs(xd) + fabs(yd));
}

/* Smallest theta with td(theta) = rd on the increasing branch; 0 when none. */
static int fisheye_theta(const double *k, double rd, double *theta)
{
    if (rd == 0.0) {
        *theta = 0.0;
        return 1;
    }
    /* bracket: walk up while td is increasing */
    double lo = 0.0, hi = 0.0;
    const double step = 0.05;
    for (;;) {
        double t = hi + step;
        if (t > FOVEA_PI)
            t = FOVEA_PI;
        if (fv_fisheye_td_deriv(k, t) <= 0.0)
            return 0;
        if (fv_fisheye_td(k, t) >= rd) {
            lo = hi;
            hi = t;
            break;
        }
        if (t >= FOVEA_PI)
            return 0;
        hi = t;
    }
    /* safeguarded Newton inside [lo, hi] */
    double t = 0.5 * (lo + hi);
    for (int it = 0; it < 100; it++) {
        double f = fv_fisheye_td(k, t) - rd;
        if (f == 0.0)
            break;
        if (f > 0.0)
            hi = t;
        else
            lo = t;
        double nt = t - f / fv_fisheye_td_deriv(k, t);
        if (!(nt > lo && nt < hi))
            nt = 0.5 * (lo + hi);
        if (fabs(nt - t) <= 1e-16 * (1.0 + t)) {
            t = nt;
            break;
        }
        t = nt;
    }
    *theta = t;
    return 1;
}

int fv_camera_unproject(const fovea_rig_camera *cam, double u, double v, double p[3])
{
    if (cam->model == FOVEA_CAM_PANOTOOLS)
        return fv_pt_unproject(cam, fv_pt_corr_radius(cam), u, v, p);
    double xd = (u - cam->cx) / cam->fx, yd = (v - cam->cy) / cam->fy;
    if (cam->model == FOVEA_CAM_PINHOLE) {
        double x, y;
        if (!pinhole_undistort(cam->dist, xd, yd, &x, &y))
            return 0;
        double n = sqrt(x * x + y * y + 1.0);
        p[0] = x / n;
        p[1] = y / n;
        p[2] = 1.0 / n;
        return 1;
    }
    double rd = sqrt(xd * xd + yd * yd), theta;
    if (!fisheye_theta(cam->dist, rd, &theta))
        return 0;
    if (rd == 0.0) {
        p[0] = 0.0;
        p[1] = 0.0;
        p[2] = 1.0;
        return 1;
    }
    double s = sin(theta);
    p[0] = s * xd / rd;
    p[1] = s * yd / rd;
    p[2] = cos(theta);
    return 1;
}

/* ------------------------------------------------------------------ rig level */

double fv_camera_limit(const fovea_rig *rig, const fovea_rig_camera *cam)
{
    if (cam->model == FOVEA_CAM_PANOTOOLS)
        return fv_pt_corr_radius(cam);
    return rig->max_theta * FOVEA_DEG2RAD;
}

int fovea_rig_dir_to_camera(const fovea_rig *rig, int cam, const double d[3], double *u, double *v)
{
    if (cam < 0 || cam >= rig->num_cameras)
        return 0;
    const fovea_rig_camera *c = &rig->cameras[cam];
    double r[3][3], p[3];
    fv_rotation(c->yaw, c->pitch, c->roll, r);
    fv_mat_t_vec(r, d, p);
    return fv_camera_project(c, fv_camera_limit(rig, c), p, u, v);
}

int fovea_rig_camera_to_dir(const fovea_rig *rig, int cam, double u, double v, double d[3])
{
    if (cam < 0 || cam >= rig->num_cameras)
        return 0;
    const fovea_rig_camera *c = &rig->cameras[cam];
    double r[3][3], p[3];
    if (!fv_camera_unproject(c, u, v, p))
        return 0;
    fv_rotation(c->yaw, c->pitch, c->roll, r);
    fv_mat_vec(r, p, d);
    return 1;
}

int fv_rig_project(const fovea_rig *rig, int cam, int i, int j, double *u, double *v)
{
    double d[3];
    fv_pano_dir(rig, i, j, d);
    return fovea_rig_dir_to_camera(rig, cam, d, u, v);
}
