/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The live page's control messages (docs/live.md, "Messages"): JSON text
 * messages parsed with cJSON into what `fovea live` changes, and the state
 * message it sends every viewer. Parsing takes any bytes (fuzzed:
 * tests/fuzz/fuzz_live_control.c). */
#ifndef FOVEA_LIVE_CONTROL_H
#define FOVEA_LIVE_CONTROL_H

#include <stddef.h>

/** The controls a viewer with the control token can change. */
typedef struct live_controls {
    int threshold;         /**< 0..65535 */
    int denoise;           /**< fovea_diff_denoise_mode: 0 none .. 3 temporal */
    int keyframe_interval; /**< 0..1<<30 */
    int heat_norm;         /**< 0 by the largest tile, 1 fixed */
    int paused;            /**< 0 or 1 */
} live_controls;

/** Which fields a control message set (bits of 1 << LIVE_SET_*). */
enum {
    LIVE_SET_THRESHOLD = 1 << 0,
    LIVE_SET_DENOISE = 1 << 1,
    LIVE_SET_KEYFRAME = 1 << 2,
    LIVE_SET_HEAT_NORM = 1 << 3,
    LIVE_SET_PAUSED = 1 << 4
};

/** Longest control message taken (bytes); longer ones are refused unread. */
#define LIVE_CONTROL_MAX 4096

/** Parse a control message, {"type":"control", "threshold": 2, ...}: every
 *  field optional, unknown fields refused, values range-checked. Fields set
 *  are written to c (others keep their value).
 *  @param set receives the LIVE_SET_* bits of the fields given
 *  @param err receives why a message was refused (n bytes)
 *  @return 0, or -1 when the message is refused (c unchanged) */
int live_control_parse(const char *msg, size_t len, live_controls *c, int *set, char *err,
                       size_t n);

/** The state message every viewer gets on joining and after each change:
 *  {"type":"state", the controls, "role", "clients", "camera": false}.
 *  @return a malloc'ed string, NULL when out of memory */
char *live_state_json(const live_controls *c, const char *role, int clients);

#endif
