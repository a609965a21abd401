/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Exact rig geometry: known directions, hand-computed projections, rotation
 * conventions and round trips (camera pixel <-> direction, panorama <-> direction). */
#include <math.h>
#include <string.h>

#include "stitch/geometry.h"
#include "testutil.h"

#define NEAR(a, b, tol) CHECK(fabs((double)(a) - (double)(b)) <= (tol))

static fovea_rig base_rig(void)
{
    fovea_rig r;
    fv_rig_init(&r);
    r.projection = FOVEA_PROJ_EQUIRECTANGULAR;
    r.width = 1001;
    r.height = 501;
    r.hfov = 150.0;
    r.vfov = 50.0;
    r.num_cameras = 1;
    fovea_rig_camera *c = &r.cameras[0];
    snprintf(c->name, sizeof(c->name), "c0");
    c->width = 1280;
    c->height = 720;
    c->model = FOVEA_CAM_PINHOLE;
    c->fx = 1000.0;
    c->fy = 1100.0;
    c->cx = 640.0;
    c->cy = 360.0;
    return r;
}

static void test_pano_directions(void)
{
    fovea_rig r = base_rig();
    double d[3];
    /* center pixel of an odd-size panorama looks straight ahead */
    fv_pano_dir(&r, 500, 250, d);
    NEAR(d[0], 0.0, 1e-15);
    NEAR(d[1], 0.0, 1e-15);
    NEAR(d[2], 1.0, 1e-15);

    /* equirectangular: pixel (0, 0) */
    double lon = (0.5 - 500.5) * (150.0 * FOVEA_DEG2RAD) / 1001.0;
    double lat = (0.5 - 250.5) * (50.0 * FOVEA_DEG2RAD) / 501.0;
    fv_pano_dir(&r, 0, 0, d);
    NEAR(d[0], cos(lat) * sin(lon), 1e-15);
    NEAR(d[1], sin(lat), 1e-15);
    NEAR(d[2], cos(lat) * cos(lon), 1e-15);
    CHECK(d[0] < 0 && d[1] < 0); /* top-left is left (-x) and up (-y) */

    /* cylindrical: h = (j + 0.5 - H/2) * hfov / W, vfov ignored */
    r.projection = FOVEA_PROJ_CYLINDRICAL;
    r.hfov = 90.0;
    r.vfov = 0.0;
    double h = (0.5 - 250.5) * (90.0 * FOVEA_DEG2RAD / 1001.0);
    fv_pano_dir(&r, 500, 0, d);
    double n = sqrt(1.0 + h * h);
    NEAR(d[0], 0.0, 1e-15);
    NEAR(d[1], h / n, 1e-15);
    NEAR(d[2], 1.0 / n, 1e-15);
    lon = (900.5 - 500.5) * (90.0 * FOVEA_DEG2RAD) / 1001.0;
    h = (400.5 - 250.5) * (90.0 * FOVEA_DEG2RAD / 1001.0);
    n = sqrt(1.0 + h * h);
    fv_pano_dir(&r, 900, 400, d);
    NEAR(d[0], sin(lon) / n, 1e-15);
    NEAR(d[1], h / n, 1e-15);
    NEAR(d[2], cos(lon) / n, 1e-15);

    /* panorama yaw turns right, pitch turns up */
    r = base_rig();
    r.yaw = 30.0;
    fv_pano_dir(&r, 500, 250, d);
    NEAR(d[0], 0.5, 1e-15);
    NEAR(d[1], 0.0, 1e-15);
    NEAR(d[2], sqrt(3.0) / 2.0, 1e-15);
    r.yaw = 0.0;
    r.pitch = 20.0;
    fv_pano_dir(&r, 500, 250, d);
    NEAR(d[0], 0.0, 1e-15);
    NEAR(d[1], -sin(20.0 * FOVEA_DEG2RAD), 1e-15);
    NEAR(d[2], cos(20.0 * FOVEA_DEG2RAD), 1e-15);
    /* combined: d = Ry(yaw) Rx(pitch) d0 */
    r.yaw = -40.0;
    r.pitch = 10.0;
    double d0[3], ry[3][3], rx[3][3], t[3], expect[3];
    fv_pano_dir0(&r, 123, 321, d0);
    fv_rotation(0.0, 10.0, 0.0, rx);
    fv_rotation(-40.0, 0.0, 0.0, ry);
    fv_mat_vec(rx, d0, t);
    fv_mat_vec(ry, t, expect);
    fv_pano_dir(&r, 123, 321, d);
    for (int k = 0; k < 3; k++)
        NEAR(d[k], expect[k], 1e-15);
}

static void test_rotations(void)
{
    double r[3][3];
    fv_rotation(0, 0, 0, r);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            NEAR(r[i][j], i == j, 0);
    /* order: R = Ry * Rx * Rz, compare with the spec's matrices for 3 angles */
    double a = 0.3, b = -0.7, c = 1.1;
    fv_rotation(a / FOVEA_DEG2RAD, b / FOVEA_DEG2RAD, c / FOVEA_DEG2RAD, r);
    double ry[3][3] = {{cos(a), 0, sin(a)}, {0, 1, 0}, {-sin(a), 0, cos(a)}};
    double rx[3][3] = {{1, 0, 0}, {0, cos(b), -sin(b)}, {0, sin(b), cos(b)}};
    double rz[3][3] = {{cos(c), -sin(c), 0}, {sin(c), cos(c), 0}, {0, 0, 1}};
    double t[3][3], e[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            t[i][j] = 0;
            for (int k = 0; k < 3; k++)
                t[i][j] += ry[i][k] * rx[k][j];
        }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            e[i][j] = 0;
            for (int k = 0; k < 3; k++)
                e[i][j] += t[i][k] * rz[k][j];
            NEAR(r[i][j], e[i][j], 1e-15);
        }
}

/* Angles outside (-360, 360) turn like their remainder modulo 360 (exact in
 * degrees), also where the remainder of a huge angle is all that is defined. */
static void test_rotation_wraps(void)
{
    double r[3][3], e[3][3];
    fv_rotation(370.0, -725.0, 1080.5, r);
    fv_rotation(10.0, -5.0, 0.5, e);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            NEAR(r[i][j], e[i][j], 1e-13);
    const double huge[3] = {1e300, -1e200, 123456789.25};
    fv_rotation(huge[0], huge[1], huge[2], r);
    fv_rotation(fmod(huge[0], 360.0), fmod(huge[1], 360.0), fmod(huge[2], 360.0), e);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            CHECK(isfinite(r[i][j]));
            NEAR(r[i][j], e[i][j], 0);
        }
    /* still a rotation: orthonormal rows */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            NEAR(r[i][0] * r[j][0] + r[i][1] * r[j][1] + r[i][2] * r[j][2], i == j, 1e-15);
}

static void test_camera_orientation(void)
{
    fovea_rig r = base_rig();
    fovea_rig_camera *c = &r.cameras[0];
    double u, v;
    /* yaw +90: world +x at the principal point */
    c->yaw = 90.0;
    const double px[3] = {1, 0, 0};
    CHECK(fovea_rig_dir_to_camera(&r, 0, px, &u, &v));
    NEAR(u, 640.0, 1e-9);
    NEAR(v, 360.0, 1e-9);
    const double pz[3] = {0, 0, 1};
    const double back[3] = {-0.1, 0, 1}; /* a little more than 90 degrees off */
    CHECK(!fovea_rig_dir_to_camera(&r, 0, back, &u, &v));
    /* pitch +30 looks up (-y) */
    c->yaw = 0.0;
    c->pitch = 30.0;
    const double up[3] = {0, -sin(30.0 * FOVEA_DEG2RAD), cos(30.0 * FOVEA_DEG2RAD)};
    CHECK(fovea_rig_dir_to_camera(&r, 0, up, &u, &v));
    NEAR(u, 640.0, 1e-9);
    NEAR(v, 360.0, 1e-9);
    /* straight ahead now appears below the image center */
    CHECK(fovea_rig_dir_to_camera(&r, 0, pz, &u, &v));
    NEAR(v, 360.0 + 1100.0 * tan(30.0 * FOVEA_DEG2RAD), 1e-9);
    /* roll +90: p = Rz(90)^T d, so a world point to the right (+x) appears above
     * the center (-y in the image) */
    c->pitch = 0.0;
    c->roll = 90.0;
    const double right[3] = {0.1, 0, 1};
    CHECK(fovea_rig_dir_to_camera(&r, 0, right, &u, &v));
    NEAR(u, 640.0, 1e-9);
    NEAR(v, 360.0 - 1100.0 * 0.1, 1e-9);
    /* roll +30: x axis of the camera tilts towards +y of the world */
    c->roll = 30.0;
    const double down[3] = {0, 0.2, 1};
    CHECK(fovea_rig_dir_to_camera(&r, 0, down, &u, &v));
    NEAR(u, 640.0 + 1000.0 * 0.2 * sin(30.0 * FOVEA_DEG2RAD), 1e-9);
    NEAR(v, 360.0 + 1100.0 * 0.2 * cos(30.0 * FOVEA_DEG2RAD), 1e-9);
}

static void test_pinhole_values(void)
{
    fovea_rig_camera c;
    memset(&c, 0, sizeof(c));
    c.model = FOVEA_CAM_PINHOLE;
    c.width = 1280;
    c.height = 720;
    c.fx = 1000.0;
    c.fy = 1100.0;
    c.cx = 640.0;
    c.cy = 360.0;
    const double k[5] = {-0.05, 0.01, 0.001, -0.002, 0.003};
    memcpy(c.dist, k, sizeof(k));
    /* x = 0.1, y = -0.2: r2 = 0.05, radial = 1 - 0.0025 + 0.000025 + 0.000000375
     * = 0.997525375; xd = 0.0997525375 + 2*0.001*(-0.02) - 0.002*(0.05 + 0.02)
     * = 0.0995725375; yd = -0.199505075 + 0.001*(0.05 + 0.08) + 2*(-0.002)*(-0.02)
     * = -0.199295075 */
    const double p[3] = {0.1 * 3.0, -0.2 * 3.0, 3.0};
    double u, v;
    CHECK(fv_camera_project(&c, 0.0, p, &u, &v));
    NEAR(u, 739.5725375, 1e-9);
    NEAR(v, 140.7754175, 1e-9);
    const double behind[3] = {0.1, 0.1, -1.0};
    CHECK(!fv_camera_project(&c, 0.0, behind, &u, &v));
    const double side[3] = {1.0, 0.0, 0.0};
    CHECK(!fv_camera_project(&c, 0.0, side, &u, &v));
    /* no distortion: plain pinhole */
    memset(c.dist, 0, sizeof(c.dist));
    const double q[3] = {0.25, 0.5, 2.0};
    CHECK(fv_camera_project(&c, 0.0, q, &u, &v));
    NEAR(u, 640.0 + 1000.0 * 0.125, 1e-12);
    NEAR(v, 360.0 + 1100.0 * 0.25, 1e-12);
}

static void test_fisheye_values(void)
{
    fovea_rig_camera c;
    memset(&c, 0, sizeof(c));
    c.model = FOVEA_CAM_FISHEYE;
    c.width = 1920;
    c.height = 1080;
    c.fx = 800.0;
    c.fy = 810.0;
    c.cx = 960.0;
    c.cy = 540.0;
    const double k[4] = {0.02, -0.01, 0.003, -0.001};
    memcpy(c.dist, k, sizeof(k));
    /* theta = 0.5: td = 0.5 (1 + 0.02/4 - 0.01/16 + 0.003/64 - 0.001/256)
     * = 0.502208984375; azimuth with px/r = 0.6, py/r = 0.8 */
    double s = sin(0.5);
    const double p[3] = {0.6 * s, 0.8 * s, cos(0.5)};
    double u, v;
    NEAR(fv_fisheye_td(k, 0.5), 0.502208984375, 1e-15);
    CHECK(fv_camera_project(&c, 100.0 * FOVEA_DEG2RAD, p, &u, &v));
    NEAR(u, 1201.0603125, 1e-9);
    NEAR(v, 865.431421875, 1e-9);
    /* on the axis: principal point */
    const double ax[3] = {0, 0, 2};
    CHECK(fv_camera_project(&c, 100.0 * FOVEA_DEG2RAD, ax, &u, &v));
    NEAR(u, 960.0, 0);
    NEAR(v, 540.0, 0);
    /* visible while theta < max_theta: 95 deg yes, 105 deg no; behind the camera ok */
    double t95 = 95.0 * FOVEA_DEG2RAD, t105 = 105.0 * FOVEA_DEG2RAD;
    const double a95[3] = {sin(t95), 0, cos(t95)}, a105[3] = {sin(t105), 0, cos(t105)};
    CHECK(fv_camera_project(&c, 100.0 * FOVEA_DEG2RAD, a95, &u, &v));
    NEAR(u, 960.0 + 800.0 * fv_fisheye_td(k, t95), 1e-9);
    NEAR(v, 540.0, 1e-9);
    CHECK(!fv_camera_project(&c, 100.0 * FOVEA_DEG2RAD, a105, &u, &v));
    CHECK(fv_camera_project(&c, 110.0 * FOVEA_DEG2RAD, a105, &u, &v));
    /* fold of td: k1 = 0 ... td' = 1 - 5 * 0.01 t^4 = 0 at t = 20^(1/4) */
    const double kf[4] = {0.0, -0.01, 0.0, 0.0};
    NEAR(fv_fisheye_fold_theta(kf), pow(20.0, 0.25), 1e-9);
    const double k0[4] = {0, 0, 0, 0};
    NEAR(fv_fisheye_fold_theta(k0), FOVEA_PI, 0);
}

static void test_roundtrip_camera(void)
{
    fovea_rig r = base_rig();
    r.num_cameras = 2;
    fovea_rig_camera *p = &r.cameras[0];
    p->width = 3840;
    p->height = 2160;
    p->fx = 2132.0;
    p->fy = 2140.0;
    p->cx = 1919.5;
    p->cy = 1079.5;
    const double kp[5] = {-0.05, 0.01, 0.0007, -0.0004, 0.002};
    memcpy(p->dist, kp, sizeof(kp));
    p->yaw = -35.0;
    p->pitch = 5.0;
    p->roll = -3.0;
    fovea_rig_camera *f = &r.cameras[1];
    *f = *p;
    f->model = FOVEA_CAM_FISHEYE;
    f->fx = f->fy = 1200.0;
    const double kf[5] = {0.02, -0.01, 0.0, 0.0, 0.0};
    memcpy(f->dist, kf, sizeof(kf));
    f->yaw = 35.0;
    f->roll = 10.0;

    test_rng rng;
    test_rng_seed(&rng, 7);
    for (int cam = 0; cam < 2; cam++) {
        const fovea_rig_camera *c = &r.cameras[cam];
        double worst = 0.0;
        int tested = 0;
        for (int n = 0; n < 20000; n++) {
            double u = test_rng_double(&rng) * (c->width - 1);
            double v = test_rng_double(&rng) * (c->height - 1);
            double d[3], u2, v2;
            int ok = fovea_rig_camera_to_dir(&r, cam, u, v, d);
            CHECK(ok);
            if (!ok)
                continue;
            NEAR(d[0] * d[0] + d[1] * d[1] + d[2] * d[2], 1.0, 1e-12);
            if (!fovea_rig_dir_to_camera(&r, cam, d, &u2, &v2)) {
                /* only fisheye corners beyond max_theta may fail */
                CHECK(cam == 1);
                double xd = (u - c->cx) / c->fx, yd = (v - c->cy) / c->fy;
                CHECK(sqrt(xd * xd + yd * yd) >=
                      fv_fisheye_td(c->dist, r.max_theta * FOVEA_DEG2RAD) - 1e-9);
                continue;
            }
            tested++;
            double e = fmax(fabs(u2 - u), fabs(v2 - v));
            if (e > worst)
                worst = e;
        }
        CHECK(tested > 15000);
        CHECK(worst <= 1e-9);
        if (worst > 1e-9)
            fprintf(stderr, "camera %d round trip error %g\n", cam, worst);
    }
}

static void test_roundtrip_pano(void)
{
    test_rng rng;
    test_rng_seed(&rng, 11);
    for (int proj = 0; proj < 2; proj++) {
        fovea_rig r = base_rig();
        r.projection = proj ? FOVEA_PROJ_CYLINDRICAL : FOVEA_PROJ_EQUIRECTANGULAR;
        r.width = 5700;
        r.height = 1900;
        r.hfov = proj ? 200.0 : 360.0;
        r.vfov = 170.0;
        r.yaw = 17.0;
        r.pitch = -12.0;
        double worst = 0.0;
        for (int n = 0; n < 20000; n++) {
            /* stay half a pixel inside so lon stays within (-180, 180] */
            double x = test_rng_double(&rng) * (r.width - 1);
            double y = test_rng_double(&rng) * (r.height - 1);
            double d[3], x2, y2;
            fv_pano_dir(&r, x, y, d);
            CHECK(fv_dir_to_pano(&r, d, &x2, &y2));
            double e = fmax(fabs(x2 - x), fabs(y2 - y));
            if (e > worst)
                worst = e;
        }
        CHECK(worst <= 1e-9);
        if (worst > 1e-9)
            fprintf(stderr, "pano %d round trip error %g\n", proj, worst);
    }
}

static void test_rig_project(void)
{
    /* fv_rig_project = pano pixel direction into the camera */
    fovea_rig r = base_rig();
    r.cameras[0].yaw = 10.0;
    r.cameras[0].dist[0] = -0.1;
    double d[3], u1, v1, u2, v2;
    fv_pano_dir(&r, 600, 200, d);
    CHECK(fovea_rig_dir_to_camera(&r, 0, d, &u1, &v1));
    CHECK(fv_rig_project(&r, 0, 600, 200, &u2, &v2));
    CHECK(u1 == u2 && v1 == v2);
    /* the pano's center column at yaw 10: the camera sees it left of its center */
    CHECK(fv_rig_project(&r, 0, 500, 250, &u2, &v2));
    CHECK(u2 < 640.0);
    NEAR(v2, 360.0, 1e-9);
    /* a pinhole never sees behind it */
    r.hfov = 360.0;
    r.cameras[0].yaw = 0.0;
    CHECK(!fv_rig_project(&r, 0, 0, 250, &u2, &v2));
}

int main(void)
{
    test_pano_directions();
    test_rotations();
    test_rotation_wraps();
    test_camera_orientation();
    test_pinhole_values();
    test_fisheye_values();
    test_roundtrip_camera();
    test_roundtrip_pano();
    test_rig_project();
    return test_finish("test_stitch_geometry");
}
