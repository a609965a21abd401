/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Exact (double precision) rig geometry of the rig spec: rotations, panorama
 * pixel <-> world direction, world direction <-> camera image point. */
#ifndef FOVEA_STITCH_GEOMETRY_H
#define FOVEA_STITCH_GEOMETRY_H

#include "stitch/rig.h"

#define FOVEA_PI 3.14159265358979323846
#define FOVEA_DEG2RAD (FOVEA_PI / 180.0)

/* R = Ry(yaw) * Rx(pitch) * Rz(roll), angles in degrees; R maps camera to world. */
void fv_rotation(double yaw_deg, double pitch_deg, double roll_deg, double r[3][3]);

/* out = m * a, out = m^T * a (out may not alias a). */
void fv_mat_vec(const double m[3][3], const double a[3], double out[3]);
void fv_mat_t_vec(const double m[3][3], const double a[3], double out[3]);

/* Panorama pixel (x, y) -> unit direction before the panorama rotation (d0). x, y
 * are pixel indices (center of pixel (i,j) at x = i, y = j in this call; the
 * formulas add the 0.5) and may be fractional or past the panorama's edges. */
void fv_pano_dir0(const fovea_rig *rig, double x, double y, double d0[3]);
/* Same, rotated by the panorama's yaw/pitch: world direction. */
void fv_pano_dir(const fovea_rig *rig, double x, double y, double d[3]);
/* Inverse: world direction (any length) -> panorama pixel coordinates (pixel (i,j)
 * at x = i, y = j). @return 1 when defined (0 for the cylinder's poles). */
int fv_dir_to_pano(const fovea_rig *rig, const double d[3], double *x, double *y);

/* Fisheye angle polynomial td(theta) = theta (1 + k1 t^2 + k2 t^4 + k3 t^6 + k4 t^8)
 * and its derivative. */
double fv_fisheye_td(const double k[4], double theta);
double fv_fisheye_td_deriv(const double k[4], double theta);
/* First angle in (0, pi] (radians) where td stops increasing; pi when it increases
 * over the whole range. */
double fv_fisheye_fold_theta(const double k[4]);

/* Direction p in the camera frame -> image point (u, v). theta_limit (radians) is
 * the fisheye visibility limit (theta < theta_limit); pinhole needs pz > 0; for a
 * panotools camera it is the correction radius (fv_camera_limit).
 * @return 1 when defined (u, v set even outside the image), 0 otherwise. */
int fv_camera_project(const fovea_rig_camera *cam, double theta_limit, const double p[3], double *u,
                      double *v);
/* Image point -> unit direction in the camera frame (pinhole: Newton undistortion;
 * fisheye: Newton on td). @return 1 on success, 0 when no inverse exists. */
int fv_camera_unproject(const fovea_rig_camera *cam, double u, double v, double p[3]);

/* PanoTools lenses (lens_pt.c). corr_radius: fv_pt_corr_radius(cam), the normalized
 * radius where the radial polynomial stops growing (INFINITY without one); points
 * at or past it have no image point, as in libpano13. */
int fv_pt_radial_on(const fovea_rig_camera *cam);
double fv_pt_corr_radius(const fovea_rig_camera *cam);
int fv_pt_project(const fovea_rig_camera *cam, double corr_radius, const double p[3], double *u,
                  double *v);
int fv_pt_unproject(const fovea_rig_camera *cam, double corr_radius, double u, double v,
                    double p[3]);

/* The limit fv_camera_project takes for camera cam of rig: max_theta in radians
 * (fisheye), the correction radius (panotools), unused by a pinhole. */
double fv_camera_limit(const fovea_rig *rig, const fovea_rig_camera *cam);

/* Rig level: fovea_rig_dir_to_camera and fovea_rig_camera_to_dir (fovea/rig.h). */

/* Exact projection of panorama pixel (i, j) into camera cam.
 * @return 1 when the projection is defined (pz > 0 / theta < max_theta), with u, v
 * set even when outside the image; 0 otherwise. */
int fv_rig_project(const fovea_rig *rig, int cam, int i, int j, double *u, double *v);

/* 1 when (u, v) lies inside a w x h image: 0 <= u <= w-1 and 0 <= v <= h-1. */
static inline int fv_inside_image(double u, double v, int w, int h)
{
    return u >= 0.0 && u <= (double)(w - 1) && v >= 0.0 && v <= (double)(h - 1);
}

#endif
