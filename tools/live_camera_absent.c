/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Camera controls in a build without V4L2 (no linux/videodev2.h): a camera
 * source's controls are unavailable, and the page says why. */
#ifndef FOVEA_HAVE_V4L2
#include "live_camera.h"

#include <stdio.h>

int live_camera_open(live_camera **out, const char *path, char *err, size_t n)
{
    *out = NULL;
    snprintf(err, n,
             "%s: this fovea was built without V4L2 (linux/videodev2.h): no camera "
             "controls",
             path);
    return -1;
}

void live_camera_close(live_camera **cam)
{
    *cam = NULL;
}

int live_camera_read(live_camera *cam, live_camera_state *st)
{
    (void)cam;
    snprintf(st->error, sizeof st->error, "built without V4L2");
    return -1;
}

int live_camera_set(live_camera *cam, int id, int value, int *applied, char *err, size_t n)
{
    (void)cam;
    (void)id;
    (void)value;
    (void)applied;
    snprintf(err, n, "built without V4L2");
    return -1;
}
#endif
