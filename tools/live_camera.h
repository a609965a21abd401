/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* A camera's own controls (brightness, contrast, saturation, gain, exposure,
 * the auto modes) read from and set on its V4L2 device node, for `fovea
 * live`'s page (docs/live.md, "Camera controls"). The device is opened a
 * second time beside the capture (FFmpeg's), which V4L2 allows for controls.
 * Nothing here prints: errors come back as messages naming the device. */
#ifndef FOVEA_LIVE_CAMERA_H
#define FOVEA_LIVE_CAMERA_H

#include <stddef.h>

#include "live_control.h"

typedef struct live_camera live_camera;

/** Open the device node PATH (e.g. /dev/video0) for its controls.
 *  @param err receives why it cannot (n bytes): absent, not a V4L2 device,
 *         a build without V4L2
 *  @return 0, or -1 */
int live_camera_open(live_camera **out, const char *path, char *err, size_t n);

/** Close it (NULLs *cam; NULL is fine). */
void live_camera_close(live_camera **cam);

/** Query every control: available or not, range, step, default, value and
 *  flags. A device that vanished (unplugged: ENODEV) is closed and stays so;
 *  st->error then says why and the controls are unavailable.
 *  @return 0, or -1 with st->error set */
int live_camera_read(live_camera *cam, live_camera_state *st);

/** Set control id (LIVE_CAM_*) to value, clamped to the device's range and
 *  rounded to its step (on/off controls: 0 or 1; auto exposure on is the
 *  device's own auto mode). Refused, with the reason in err: a control the
 *  device lacks, disabled, inactive, read-only or held by the capture
 *  (EBUSY), a value the device refuses, a device that vanished.
 *  @param applied receives the value sent to the device (may be NULL)
 *  @return 0, or -1 */
int live_camera_set(live_camera *cam, int id, int value, int *applied, char *err, size_t n);

#endif
