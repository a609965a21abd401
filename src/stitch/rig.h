/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Camera rig description (docs: ../shared/specs/rig.md): the panorama projection
 * and every camera's intrinsics, distortion and orientation, parsed from rig JSON. */
#ifndef FOVEA_STITCH_RIG_H
#define FOVEA_STITCH_RIG_H

#include <stddef.h>
#include <stdio.h>

#include "fovea/rig.h"

/* The handle of fovea/rig.h: plain data, so that the library and its tests fill
 * rigs in place. */
struct fovea_rig {
    fovea_projection projection;
    int width, height;                    /* panorama size */
    double hfov, vfov;                    /* degrees; vfov unused by cylindrical */
    double yaw, pitch;                    /* degrees, rotate the whole panorama */
    double feather;                       /* blend.feather, panorama pixels (default 64) */
    double max_theta;                     /* fisheye visibility limit, degrees (default 100) */
    double photo_exposure, photo_emor[5]; /* panorama.photometric (fovea_rig_panorama) */
    int photo_linear_response;
    int num_cameras;
    fovea_rig_camera cameras[FOVEA_RIG_MAX_CAMERAS];
};

/* Defaults for optional fields, zero cameras. */
void fv_rig_init(fovea_rig *rig);

/* Parse rig JSON (len bytes, need not be NUL-terminated). On failure err gets a
 * message naming the field in JSON path style ("cameras[1].fx: ...").
 * @return FOVEA_OK, FOVEA_ERR_CORRUPT (bad JSON or values), FOVEA_ERR_INVALID_ARG, FOVEA_ERR_NOMEM */
int fv_rig_parse(const char *json_text, size_t len, fovea_rig *rig, char *err, size_t errsz);

/* Read and parse a rig file (at most FOVEA_RIG_FILE_LIMIT bytes).
 * @return as fv_rig_parse, or FOVEA_ERR_IO */
int fv_rig_load(const char *path, fovea_rig *rig, char *err, size_t errsz);

/* Parse a Hugin project (pto.c; len bytes, need not be NUL-terminated). Warnings go
 * to ctx's log (ctx may be NULL). On failure err gets "line N: field: problem".
 * @return as fovea_rig_open_pto_text */
int fv_pto_parse(const char *text, size_t len, fovea_rig *rig, fovea_context *ctx, char *err,
                 size_t errsz);

/* fovea_rig_validate (fovea/rig.h) reporting into a caller's buffer. */
int fv_rig_validate_buf(const fovea_rig *rig, char *err, size_t errsz);

/* rig_photo.c: the optional "photometric" objects of rig JSON (cJSON items). */
struct cJSON;
void fv_rig_photo_default(fovea_rig_photometric *p);
int fv_rig_photo_parse_camera(const struct cJSON *cam, int k, fovea_rig_photometric *p, char *err,
                              size_t errsz);
int fv_rig_photo_parse_panorama(const struct cJSON *pano, fovea_rig *rig, char *err, size_t errsz);
int fv_rig_photo_validate(const fovea_rig *rig, char *err, size_t errsz);
int fv_rig_photo_any(const fovea_rig *rig); /* 1 when a camera's part is enabled */
int fv_rig_photo_write_panorama(struct cJSON *pano, const fovea_rig *rig); /* 1 = ok */
int fv_rig_photo_write_camera(struct cJSON *cam, const fovea_rig_photometric *p);
/* A JSON number item that reads back to v exactly (rig.c). */
struct cJSON *fv_rig_json_num(double v);

/* Write fovea_rig_to_json() to f. @return FOVEA_OK, FOVEA_ERR_NOMEM or FOVEA_ERR_IO */
int fv_rig_write_json(const fovea_rig *rig, FILE *f);

#endif
