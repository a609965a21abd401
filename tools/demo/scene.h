/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Procedural outdoor scene for demos and tests: a seeded, band-limited color
 * function of viewing direction (sky, clouds, mountains, a football pitch, trees,
 * floodlights, a stand), and renderers that turn it into a ground-truth panorama
 * or into the image of one rig camera (lens model and color response included). */
#ifndef FOVEA_TOOLS_SCENE_H
#define FOVEA_TOOLS_SCENE_H

#include <stdint.h>

#include "fovea/fovea.h"
#include "fovea/rig.h"

/* Scene parameters. The scene is one continuous function of direction; pitch
 * only decides how fine its detail goes: no noise octave, line or edge is finer
 * than a few pixels of this pitch, so any rendering at this pitch or finer
 * resamples well (bilinear remapping between two grids costs little). Render at
 * a coarser pitch than the scene's and it aliases: make a scene per pitch. */
typedef struct scene_params {
    uint64_t seed;        /* layout of trees/objects, mountains, clouds, textures */
    double pitch;         /* radians per pixel the scene is made for (e.g. panorama
                               hfov / width: scene_rig_pitch); > 0 */
    double edge_px;       /* width of every edge (a smoothstep: 10-90% over 0.6 of
                               it), pixels; default 2.5 */
    double feature_px;    /* noise octaves fade out between feature_px / 2 and
                               feature_px cells, pixels; default 6.0 */
    double sun_azimuth;   /* degrees, 0 = straight ahead (+z), positive to the right; -40 */
    double sun_elevation; /* degrees above the horizon; default 35 */
    float sky_zenith[3];  /* sky color overhead, 0..255; default (62, 112, 192) */
    float sky_horizon[3]; /* sky and haze color at the horizon; default (198, 213, 230) */
    double camera_height; /* meters of the viewpoint above the ground; default 15 */
    int field;            /* 1: football pitch with lines, goals and floodlights (default) */
    int supersample;      /* renders average n x n samples per pixel (a box over the
                               pixel's footprint), 1..4; default 2 */
} scene_params;

/* Fill p with defaults for the given seed and pitch. */
void scene_default_params(scene_params *p, uint64_t seed, double pitch);

/* Radians per panorama pixel of a rig: hfov / width (both projections use it
 * horizontally; equirectangular vertically uses vfov / height, normally equal).
 * A scene made for it is as sharp as the panorama.
 * @return the pitch, or 0 for an invalid rig */
double scene_rig_pitch(const fovea_rig *rig);

/* The coarsest pixel of a rig in radians: the larger of the panorama's pitch
 * (hfov / width, and vfov / height for equirectangular) and the largest angle
 * between neighboring pixels of any camera where it sees the panorama (sampled
 * on a grid of panorama points). Detail finer than a camera's pixels is blurred
 * by that camera, so a stitched panorama cannot match a ground truth that has it;
 * a scene made for this pitch has none.
 * @return the pitch, or 0 for an invalid rig */
double scene_rig_coarsest_pitch(const fovea_rig *rig);

#define SCENE_MAX_OBJECTS 64 /* one bit each in az_mask */
#define SCENE_AZ_BINS 256

typedef enum scene_object_kind {
    SCENE_TREE = 0,
    SCENE_POLE = 1,  /* floodlight tower */
    SCENE_STAND = 2, /* a building with windows */
    SCENE_GOAL = 3
} scene_object_kind;

/* A flat object standing on the ground in a vertical plane n . (x, z) = dist
 * (n horizontal, unit, pointing away from the viewer). Lateral coordinate along
 * (n.z, -n.x) relative to the anchor; height above the ground. */
typedef struct scene_object {
    scene_object_kind kind;
    double nx, nz, dist; /* plane */
    double gx, gz;       /* anchor on the ground (meters) */
    double half_width, height;
    double az_min, az_max; /* bounds of the object's directions: azimuth, radians */
    double el_min, el_max; /* elevation, radians */
    float color[3];
    uint32_t seed;
} scene_object;

/* An initialized scene: parameters plus everything derived from them. Plain
 * data, read-only after scene_init (safe to share between threads). */
typedef struct scene_model {
    scene_params p;
    double sun[3];          /* unit direction toward the sun (world axes) */
    uint32_t noise_seed[8]; /* per-layer noise seeds */
    double ridge_max;       /* highest elevation any mountain reaches, radians */
    int num_objects;
    scene_object obj[SCENE_MAX_OBJECTS]; /* sorted far to near (anchor distance) */
    double obj_el_min, obj_el_max;       /* elevations any object covers */
    uint64_t az_mask[SCENE_AZ_BINS];     /* objects (bits) overlapping each
                                                      azimuth bin of [-pi, pi) */
} scene_model;

/* Derive a scene from parameters.
 * @return FOVEA_OK, or FOVEA_ERR_INVALID_ARG (NULL, pitch not finite > 0,
 *         supersample outside 1..4, camera_height <= 0, edge/feature width <= 0) */
int scene_init(scene_model *s, const scene_params *p);

/* Scene color seen along world direction (dx, dy, dz) (any length > 0; x right,
 * y down, z forward): display-referred RGB in 0..255 (the ground is at +y, the sky
 * at -y). Deterministic: a pure function of the scene and the direction. */
void scene_color(const scene_model *s, double dx, double dy, double dz, float rgb[3]);

/* Camera color response applied to rendered camera images, per channel k:
 * out = 255 * clamp(gain[k] * in / 255, 0, 1) ^ gamma + offset[k], clamped to
 * 0..255 and rounded to 8 bits. */
typedef struct color_response {
    float gain[3];   /* R, G, B */
    float gamma;     /* > 0 */
    float offset[3]; /* codes added after the curve */
} color_response;

#define COLOR_RESPONSE_IDENTITY                                                                    \
    {                                                                                              \
        {1.0f, 1.0f, 1.0f}, 1.0f,                                                                  \
        {                                                                                          \
            0.0f, 0.0f, 0.0f                                                                       \
        }                                                                                          \
    }

/* Apply a response to one 0..255 value of channel k (unrounded result). */
float color_response_apply(const color_response *r, int k, float in);

/* Render the ground-truth panorama of a rig: every pixel is the average of
 * n x n scene samples spread over its footprint (n = supersample), alpha 255.
 * @param ctx how many threads render (may be NULL: one)
 * @param out host frame, RGBA or RGB24, of the panorama's size
 * @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_MISMATCH (size/format/memory),
 *         FOVEA_ERR_NOMEM */
int scene_render_panorama(fovea_context *ctx, const scene_model *s, const fovea_rig *rig,
                          fovea_frame *out);

/* Render what camera cam of a rig sees: each camera pixel's n x n samples go
 * through the inverse lens model and the camera rotation to world directions;
 * their average goes through resp (NULL = identity). Pixels whose directions the
 * lens model cannot invert are black. Alpha 255.
 * @param out host frame, RGBA or RGB24, the camera's width x height
 * @return as scene_render_panorama */
int scene_render_camera(fovea_context *ctx, const scene_model *s, const fovea_rig *rig, int cam,
                        const color_response *resp, fovea_frame *out);

#endif
