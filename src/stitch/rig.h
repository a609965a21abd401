/* Camera rig description (docs: ../shared/specs/rig.md): the panorama projection
 * and every camera's intrinsics, distortion and orientation, parsed from rig JSON. */
#ifndef FOVEA_STITCH_RIG_H
#define FOVEA_STITCH_RIG_H

#include <stddef.h>
#include <stdio.h>

#define FOVEA_RIG_MAX_CAMERAS 16
#define FOVEA_RIG_MAX_SIZE 16384
#define FOVEA_RIG_NAME_LEN 64
#define FOVEA_RIG_DEFAULT_FEATHER 64.0
#define FOVEA_RIG_DEFAULT_MAX_THETA 100.0
#define FOVEA_RIG_FILE_LIMIT (1 << 20)

typedef enum fovea_projection {
    FOVEA_PROJ_EQUIRECTANGULAR = 0,
    FOVEA_PROJ_CYLINDRICAL = 1
} fovea_projection;

typedef enum fovea_camera_model {
    FOVEA_CAM_PINHOLE = 0,   /* Brown-Conrady, dist = k1 k2 p1 p2 k3 */
    FOVEA_CAM_FISHEYE = 1    /* equidistant Kannala-Brandt, dist = k1 k2 k3 k4 */
} fovea_camera_model;

typedef struct fovea_rig_camera {
    char name[FOVEA_RIG_NAME_LEN];
    int width, height;
    fovea_camera_model model;
    double fx, fy, cx, cy;
    double dist[5];           /* unused trailing entries are 0 */
    double yaw, pitch, roll;  /* degrees */
} fovea_rig_camera;

typedef struct fovea_rig {
    fovea_projection projection;
    int width, height;        /* panorama size */
    double hfov, vfov;        /* degrees; vfov unused by cylindrical */
    double yaw, pitch;        /* degrees, rotate the whole panorama */
    double feather;           /* blend.feather, panorama pixels (default 64) */
    double max_theta;         /* fisheye visibility limit, degrees (default 100) */
    int num_cameras;
    fovea_rig_camera cameras[FOVEA_RIG_MAX_CAMERAS];
} fovea_rig;

/* Defaults for optional fields, zero cameras. */
void fovea_rig_init(fovea_rig *rig);

/* Parse rig JSON (len bytes, need not be NUL-terminated). On failure err gets a
 * message naming the field in JSON path style ("cameras[1].fx: ...").
 * @return FOVEA_OK, FOVEA_ERR_CORRUPT (bad JSON or values), FOVEA_ERR_INVALID_ARG, FOVEA_ERR_NOMEM */
int fovea_rig_parse(const char *json_text, size_t len, fovea_rig *rig, char *err, size_t errsz);

/* Read and parse a rig file (at most FOVEA_RIG_FILE_LIMIT bytes).
 * @return as fovea_rig_parse, or FOVEA_ERR_IO */
int fovea_rig_load(const char *path, fovea_rig *rig, char *err, size_t errsz);

/* Check the ranges of a rig (what fovea_rig_parse checks after reading the fields),
 * for rigs filled in by code. Messages use the JSON field paths.
 * @return FOVEA_OK or FOVEA_ERR_INVALID_ARG */
int fovea_rig_validate(const fovea_rig *rig, char *err, size_t errsz);

/* Rig as pretty-printed JSON that fovea_rig_parse reads back to the same values.
 * @return a malloc'd string (free()), or NULL when out of memory */
char *fovea_rig_to_json(const fovea_rig *rig);

/* Write fovea_rig_to_json() to f. @return FOVEA_OK, FOVEA_ERR_NOMEM or FOVEA_ERR_IO */
int fovea_rig_write_json(const fovea_rig *rig, FILE *f);

const char *fovea_projection_name(fovea_projection p);
const char *fovea_camera_model_name(fovea_camera_model m);

#endif
