/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fuzz target: the control messages of `fovea live` (tools/live_control.c).
 * A message is refused whole or taken whole: a refusal changes nothing and
 * says why; what is taken is in range (camera controls too). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "live_control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const live_controls before = {7, 1, 300, 0, 0, 0, {0}};
    live_controls c = before;
    int set = -1;
    char err[128] = "";
    const int rc = live_control_parse((const char *)data, size, &c, &set, err, sizeof err);
    if (rc < 0) {
        if (memcmp(&c, &before, sizeof c) != 0 || set != 0 || !err[0])
            abort();
        return 0;
    }
    if (c.threshold < 0 || c.threshold > 65535 || c.denoise < 0 || c.denoise > 3 ||
        c.keyframe_interval < 0 || c.heat_norm < 0 || c.heat_norm > 1 ||
        (c.paused != 0 && c.paused != 1))
        abort();
    /* camera controls: known ones only, flagged in set, on/off ones 0 or 1 */
    if ((c.camera_set >> LIVE_CAM_COUNT) != 0 || !(set & LIVE_SET_CAMERA) != !c.camera_set)
        abort();
    for (int i = 0; i < LIVE_CAM_COUNT; i++)
        if ((c.camera_set & (1u << i)) && live_camera_is_bool(i) && c.camera[i] != 0 &&
            c.camera[i] != 1)
            abort();
    /* the state message with a camera whose controls come from the message */
    live_camera_state cam;
    memset(&cam, 0, sizeof cam);
    for (int i = 0; i < LIVE_CAM_COUNT; i++)
        cam.ctl[i] = (live_camera_control){(c.camera_set >> i) & 1, 0, 255, 1, 0, c.camera[i],
                                           (unsigned)i & 15};
    char *s = live_state_json(&c, &cam, "control", 1);
    char *e = live_error_json(err);
    if (!s || !e)
        abort();
    free(s);
    free(e);
    return 0;
}
