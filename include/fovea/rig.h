/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Camera rigs (docs/rig.md): the panorama projection and every camera's
 * intrinsics, distortion and orientation, read from rig JSON or described in
 * code, validated, queried; and the exact geometry that links panorama pixels,
 * world directions and camera image points. */
#ifndef FOVEA_RIG_H
#define FOVEA_RIG_H

#include <stddef.h>

#include "fovea/fovea.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FOVEA_RIG_MAX_CAMERAS 16
#define FOVEA_RIG_MAX_SIZE 16384 /**< largest panorama or camera side */
#define FOVEA_RIG_NAME_LEN 64    /**< camera name buffer, NUL included */
#define FOVEA_RIG_DEFAULT_FEATHER 64.0
#define FOVEA_RIG_DEFAULT_MAX_THETA 100.0
#define FOVEA_RIG_FILE_LIMIT (1 << 20) /**< largest rig file read, bytes */

typedef enum fovea_projection {
    FOVEA_PROJ_EQUIRECTANGULAR = 0,
    FOVEA_PROJ_CYLINDRICAL = 1
} fovea_projection;

typedef enum fovea_camera_model {
    FOVEA_CAM_PINHOLE = 0, /**< Brown-Conrady, dist = k1 k2 p1 p2 k3 */
    FOVEA_CAM_FISHEYE = 1, /**< equidistant Kannala-Brandt, dist = k1 k2 k3 k4 */
    /** PanoTools/Hugin lens (docs/rig.md, docs/stitch.md "Hugin projects"): the
     *  projection of `lens` at focal fx, fy, then the radial polynomial, the
     *  principal point shift and the shear; dist = a b c g t */
    FOVEA_CAM_PANOTOOLS = 2
} fovea_camera_model;

/** The projection of a FOVEA_CAM_PANOTOOLS camera, as Hugin's lens types. With
 *  theta the angle from the optical axis, the ideal image radius is f tan(theta)
 *  (rectilinear), f theta (fisheye: Hugin's circular and full-frame fisheye),
 *  f sin(theta) (orthographic), 2 f tan(theta / 2) (stereographic), 2 f sin(theta / 2)
 *  (equisolid); equirectangular and cylindrical map longitude and latitude (or its
 *  tangent) at f pixels per radian. */
typedef enum fovea_lens {
    FOVEA_LENS_RECTILINEAR = 0,
    FOVEA_LENS_CYLINDRICAL = 1, /**< Hugin's "panoramic" */
    FOVEA_LENS_FISHEYE = 2,     /**< equidistant */
    FOVEA_LENS_EQUIRECTANGULAR = 3,
    FOVEA_LENS_ORTHOGRAPHIC = 4,
    FOVEA_LENS_STEREOGRAPHIC = 5,
    FOVEA_LENS_EQUISOLID = 6
} fovea_lens;

/** Hugin's photometric model of one camera (rig JSON's "photometric", docs/rig.md;
 *  docs/stitch.md "Hugin projects"): the stitcher turns a sample into linear light
 *  through the inverse camera response, divides it by the vignetting factor at the
 *  sampled image point, scales it by the exposure and white balance, and maps it
 *  through the panorama's response, as Hugin's renderer nona does. */
typedef struct fovea_rig_photometric {
    int enabled;            /**< 0: none (every other field is ignored) */
    double exposure;        /**< Eev: the camera's exposure value, EV (|value| <= 64) */
    double wb_red, wb_blue; /**< Er, Eb: white balance factors of R and B, > 0 */
    /** Va, Vb, Vc, Vd: vignetting factor Va + Vb r^2 + Vc r^4 + Vd r^6, r the distance
     *  from the vignetting center over half the image diagonal ({1, 0, 0, 0}: none) */
    double vignetting[4];
    double vignetting_center[2]; /**< Vx, Vy: the center's shift from the image center */
    int linear_response;         /**< 1: linear camera response (Rt1); 0: EMoR (Rt0) */
    double emor[5];              /**< Ra .. Re: EMoR response coefficients */
} fovea_rig_photometric;

/** The panorama of a rig (the "panorama" and "blend" objects of rig JSON). */
typedef struct fovea_rig_panorama {
    fovea_projection projection;
    int width, height; /**< panorama size, 1..FOVEA_RIG_MAX_SIZE */
    double hfov, vfov; /**< degrees; vfov unused by cylindrical */
    double yaw, pitch; /**< degrees, rotate the whole panorama */
    double feather;    /**< blend.feather, panorama pixels (default 64) */
    double max_theta;  /**< fisheye visibility limit, degrees (default 100) */
    /** panorama.photometric (used when a camera's photometric part is enabled): the
     *  output exposure value (Hugin's p line E) and the output response, EMoR
     *  coefficients or linear (nona takes the first image's response) */
    double photo_exposure;
    double photo_emor[5];
    int photo_linear_response; /**< 1: linear output response (nona: image 0's Rt1) */
} fovea_rig_panorama;

/** One camera of a rig (an entry of rig JSON's "cameras"). */
typedef struct fovea_rig_camera {
    char name[FOVEA_RIG_NAME_LEN];
    int width, height;
    fovea_camera_model model;
    double fx, fy, cx, cy;
    double dist[5];                    /**< unused trailing entries are 0 */
    double yaw, pitch, roll;           /**< degrees */
    fovea_lens lens;                   /**< FOVEA_CAM_PANOTOOLS only (0 otherwise) */
    fovea_rig_photometric photometric; /**< optional; zeroed = none */
} fovea_rig_camera;

/** A validated rig. Read-only once opened: safe to share between threads. It
 *  keeps no context: ctx only receives the message of a failure. */
typedef struct fovea_rig fovea_rig;

/** Fill p with the defaults of the optional fields (equirectangular, feather 64,
 *  max_theta 100, no rotation) and zero sizes and fields of view. */
FOVEA_API void fovea_rig_panorama_init(fovea_rig_panorama *p);

/** Open a rig file: read and validate it (at most FOVEA_RIG_FILE_LIMIT bytes).
 *  @param rig receives the rig (NULL on failure)
 *  @param ctx receives "<path>: <field>: <problem>" as its last error on failure
 *         (may be NULL: see fovea_last_error)
 *  @return FOVEA_OK, FOVEA_ERR_IO, FOVEA_ERR_CORRUPT (bad JSON or values),
 *          FOVEA_ERR_INVALID_ARG or FOVEA_ERR_NOMEM */
FOVEA_API int fovea_rig_open_file(fovea_rig **rig, fovea_context *ctx, const char *path);

/** Open a rig from JSON held in memory: parse and validate it (len bytes, need not be
 *  NUL-terminated). Messages name the field in JSON path style ("cameras[1].fx: ...").
 *  @return as fovea_rig_open_file, without FOVEA_ERR_IO */
FOVEA_API int fovea_rig_open_json(fovea_rig **rig, fovea_context *ctx, const char *json,
                                  size_t len);

/** Open a rig described in code: pano and n cameras are copied and checked as
 *  rig JSON is (messages use the JSON field paths).
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (a field out of range) or FOVEA_ERR_NOMEM */
FOVEA_API int fovea_rig_open_cameras(fovea_rig **rig, fovea_context *ctx,
                                     const fovea_rig_panorama *pano, const fovea_rig_camera *cams,
                                     int n);

/** Open a Hugin project (.pto, docs/stitch.md "Hugin projects"): its p line becomes
 *  the panorama, its i lines the cameras (FOVEA_CAM_PANOTOOLS), in file order.
 *  Hugin's photometric parameters become the cameras' `photometric` part (and the
 *  panorama's output exposure and response). Fields fovea does not apply but may
 *  safely ignore are logged as warnings on ctx (image crops, masks, flat-field
 *  vignetting, HDR output); anything else it cannot reproduce is an error naming
 *  the line and the field.
 *  @param rig receives the rig (NULL on failure)
 *  @param ctx receives "<path>: line N: <field>: <problem>" on failure
 *  @return FOVEA_OK, FOVEA_ERR_IO, FOVEA_ERR_CORRUPT (syntax), FOVEA_ERR_UNSUPPORTED
 *          (a projection, lens or parameter fovea cannot reproduce),
 *          FOVEA_ERR_INVALID_ARG (a value out of range) or FOVEA_ERR_NOMEM */
FOVEA_API int fovea_rig_open_pto(fovea_rig **rig, fovea_context *ctx, const char *path);

/** Open a Hugin project held in memory (len bytes, need not be NUL-terminated, at most
 *  FOVEA_RIG_FILE_LIMIT). Messages start with "line N: ".
 *  @return as fovea_rig_open_pto, without FOVEA_ERR_IO */
FOVEA_API int fovea_rig_open_pto_text(fovea_rig **rig, fovea_context *ctx, const char *text,
                                      size_t len);

/** Free a rig and set *rig to NULL. Safe on NULL. */
FOVEA_API void fovea_rig_close(fovea_rig **rig);

/** Check the ranges of every field of a rig.
 *  @return FOVEA_OK or FOVEA_ERR_INVALID_ARG (ctx's last error names the field) */
FOVEA_API int fovea_rig_validate(const fovea_rig *rig, fovea_context *ctx);

/** The panorama of a rig. @return FOVEA_OK or FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_rig_get_panorama(const fovea_rig *rig, fovea_rig_panorama *pano);

/** @return the number of cameras of a rig, or FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_rig_num_cameras(const fovea_rig *rig);

/** Camera cam (0 .. fovea_rig_num_cameras - 1) of a rig.
 *  @return FOVEA_OK or FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_rig_get_camera(const fovea_rig *rig, int cam, fovea_rig_camera *out);

/** The rig as pretty-printed JSON that fovea_rig_open_json reads back to the
 *  same values. @return a NUL-terminated string to free(), or NULL (no memory) */
FOVEA_API char *fovea_rig_to_json(const fovea_rig *rig);

/** @return "equirectangular" or "cylindrical" ("unknown" otherwise) */
FOVEA_API const char *fovea_projection_name(fovea_projection p);
/** @return "pinhole", "fisheye" or "panotools" ("unknown" otherwise) */
FOVEA_API const char *fovea_camera_model_name(fovea_camera_model m);
/** @return "rectilinear", "cylindrical", "fisheye", "equirectangular", "orthographic",
 *  "stereographic" or "equisolid" ("unknown" otherwise) */
FOVEA_API const char *fovea_lens_name(fovea_lens l);

/* ---------------------------------------------------------------- geometry
 * World axes: x right, y down, z forward. Pixel (i, j) has its center at
 * x = i, y = j; coordinates may be fractional. Angles beyond a turn are taken
 * modulo 360 by the rotations. */

/** World direction (unit) of panorama point (x, y), the panorama's yaw and pitch
 *  applied. Points past the panorama's edges extend its projection.
 *  @return FOVEA_OK or FOVEA_ERR_INVALID_ARG */
FOVEA_API int fovea_rig_panorama_to_dir(const fovea_rig *rig, double x, double y, double d[3]);

/** World direction (unit) of image point (u, v) of camera cam: the inverse lens
 *  model (pinhole: Newton undistortion; fisheye: Newton on the angle polynomial)
 *  and the camera's rotation.
 *  @return 1 on success, 0 when the point has no direction or cam is out of range */
FOVEA_API int fovea_rig_camera_to_dir(const fovea_rig *rig, int cam, double u, double v,
                                      double d[3]);

/** Image point (u, v) of camera cam that world direction d (any length > 0)
 *  projects to, with the rig's visibility rule (pinhole: in front of the camera;
 *  fisheye: within max_theta). u, v are set even outside the image.
 *  @return 1 when defined, 0 otherwise (or cam out of range) */
FOVEA_API int fovea_rig_dir_to_camera(const fovea_rig *rig, int cam, const double d[3], double *u,
                                      double *v);

#ifdef __cplusplus
}
#endif

#endif
