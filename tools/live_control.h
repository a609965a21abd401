/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The live page's control messages (docs/live.md, "Messages"): JSON text
 * messages parsed with cJSON into what `fovea live` changes, and the state
 * message it sends every viewer. Parsing takes any bytes (fuzzed:
 * tests/fuzz/fuzz_live_control.c). */
#ifndef FOVEA_LIVE_CONTROL_H
#define FOVEA_LIVE_CONTROL_H

#include <stddef.h>

/** A camera source's own controls (V4L2: tools/live_camera.c), in the order
 *  the page shows them; the names in messages are live_camera_names[]. */
enum {
    LIVE_CAM_BRIGHTNESS,
    LIVE_CAM_CONTRAST,
    LIVE_CAM_SATURATION,
    LIVE_CAM_GAIN,
    LIVE_CAM_AUTOGAIN,
    LIVE_CAM_EXPOSURE,
    LIVE_CAM_EXPOSURE_AUTO,
    LIVE_CAM_WHITE_BALANCE_AUTO,
    LIVE_CAM_COUNT
};

/** "brightness", "contrast", ..., indexed by LIVE_CAM_*. */
extern const char *const live_camera_names[LIVE_CAM_COUNT];

/** @return 1 for an on/off control (true/false in messages), 0 for an integer */
int live_camera_is_bool(int id);

/** Why a camera control cannot be set now (live_camera_control.flags): the
 *  device says so (V4L2_CTRL_FLAG_*). */
enum {
    LIVE_CAM_DISABLED = 1,  /**< permanently off on this device */
    LIVE_CAM_INACTIVE = 2,  /**< no effect now (exposure while auto exposure is on) */
    LIVE_CAM_READ_ONLY = 4, /**< the device's to change */
    LIVE_CAM_GRABBED = 8    /**< held by the capture (cannot change while streaming) */
};

/** One camera control as the device reports it. */
typedef struct live_camera_control {
    int available; /**< the device has it */
    int min, max, step, def, value;
    unsigned flags; /**< LIVE_CAM_DISABLED ... */
} live_camera_control;

/** What the page shows of a camera's controls. */
typedef struct live_camera_state {
    char error[192]; /**< why the controls are unavailable ("" when they are) */
    live_camera_control ctl[LIVE_CAM_COUNT];
} live_camera_state;

/** The controls a viewer with the control token can change. */
typedef struct live_controls {
    int threshold;         /**< 0..65535 */
    int denoise;           /**< fovea_diff_denoise_mode: 0 none .. 3 temporal */
    int keyframe_interval; /**< 0..1<<30 */
    int heat_norm;         /**< 0 by the largest tile, 1 fixed */
    int paused;            /**< 0 or 1 */
    /** the camera controls one message sets (bits 1 << LIVE_CAM_*; cleared
     *  by each parse) and their values (0 or 1 for on/off controls; the
     *  device's range and step apply when set) */
    unsigned camera_set;
    int camera[LIVE_CAM_COUNT];
} live_controls;

/** Which fields a control message set (bits of 1 << LIVE_SET_*). */
enum {
    LIVE_SET_THRESHOLD = 1 << 0,
    LIVE_SET_DENOISE = 1 << 1,
    LIVE_SET_KEYFRAME = 1 << 2,
    LIVE_SET_HEAT_NORM = 1 << 3,
    LIVE_SET_PAUSED = 1 << 4,
    LIVE_SET_CAMERA = 1 << 5
};

/** Longest control message taken (bytes); longer ones are refused unread. */
#define LIVE_CONTROL_MAX 4096

/** Parse a control message, {"type":"control", "threshold": 2, ...}: every
 *  field optional, unknown fields refused, values range-checked. Fields set
 *  are written to c (others keep their value); camera controls come as an
 *  object, "camera": {"brightness": 140, "exposure_auto": false}.
 *  @param set receives the LIVE_SET_* bits of the fields given
 *  @param err receives why a message was refused (n bytes)
 *  @return 0, or -1 when the message is refused (c unchanged) */
int live_control_parse(const char *msg, size_t len, live_controls *c, int *set, char *err,
                       size_t n);

/** The state message every viewer gets on joining and after each change:
 *  {"type":"state", the controls, "role", "clients", "camera": false}, or
 *  with a camera "camera": true, "camera_controls": [...] and, when they are
 *  unavailable, "camera_error".
 *  @param cam the camera's controls, NULL when the source is not a camera
 *  @return a malloc'ed string, NULL when out of memory */
char *live_state_json(const live_controls *c, const live_camera_state *cam, const char *role,
                      int clients);

/** {"type":"error","message":msg} with msg escaped. @return malloc'ed, or NULL */
char *live_error_json(const char *msg);

#endif
