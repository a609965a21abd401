/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Camera controls over the kernel's V4L2 API (linux/videodev2.h): queried
 * with VIDIOC_QUERY_EXT_CTRL (VIDIOC_QUERYCTRL on drivers without it), read
 * with VIDIOC_G_CTRL, set with VIDIOC_S_CTRL. tests/live/fake_v4l2.c plays
 * a device for the tests. */
#ifdef FOVEA_HAVE_V4L2
#include "live_camera.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* the V4L2 control of each LIVE_CAM_* */
static const uint32_t cids[LIVE_CAM_COUNT] = {V4L2_CID_BRIGHTNESS,    V4L2_CID_CONTRAST,
                                              V4L2_CID_SATURATION,    V4L2_CID_GAIN,
                                              V4L2_CID_AUTOGAIN,      V4L2_CID_EXPOSURE_ABSOLUTE,
                                              V4L2_CID_EXPOSURE_AUTO, V4L2_CID_AUTO_WHITE_BALANCE};

struct live_camera {
    int fd;          /* -1 once the device vanished */
    int ext;         /* VIDIOC_QUERY_EXT_CTRL works */
    int exposure_on; /* the V4L2_CID_EXPOSURE_AUTO menu item "auto" sets */
    char path[256];
    char gone[192]; /* why the device is closed */
};

static int xioctl(int fd, unsigned long req, void *arg)
{
    int r;
    do
        r = ioctl(fd, req, arg);
    while (r < 0 && errno == EINTR);
    return r;
}

/* ENODEV (unplugged), ENXIO: the device is gone for good; close it. */
static int vanished(live_camera *cam, int e)
{
    if (e != ENODEV && e != ENXIO)
        return 0;
    if (cam->fd >= 0)
        close(cam->fd);
    cam->fd = -1;
    snprintf(cam->gone, sizeof cam->gone, "%.150s: the camera is gone (unplugged?)", cam->path);
    return 1;
}

int live_camera_open(live_camera **out, const char *path, char *err, size_t n)
{
    *out = NULL;
    const int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    if (xioctl(fd, VIDIOC_QUERYCAP, &cap) < 0) {
        const int e = errno;
        snprintf(err, n, "%s: %s", path,
                 e == ENOTTY || e == EINVAL ? "not a V4L2 device" : strerror(e));
        close(fd);
        return -1;
    }
    live_camera *cam = calloc(1, sizeof(*cam));
    if (!cam) {
        close(fd);
        snprintf(err, n, "%s: out of memory", path);
        return -1;
    }
    cam->fd = fd;
    cam->ext = 1;
    cam->exposure_on = -1;
    snprintf(cam->path, sizeof cam->path, "%s", path);
    *out = cam;
    return 0;
}

void live_camera_close(live_camera **p)
{
    live_camera *cam = *p;
    if (!cam)
        return;
    if (cam->fd >= 0)
        close(cam->fd);
    free(cam);
    *p = NULL;
}

static unsigned flags_of(uint32_t f)
{
    return (f & V4L2_CTRL_FLAG_DISABLED ? LIVE_CAM_DISABLED : 0u) |
           (f & V4L2_CTRL_FLAG_INACTIVE ? LIVE_CAM_INACTIVE : 0u) |
           (f & V4L2_CTRL_FLAG_READ_ONLY ? LIVE_CAM_READ_ONLY : 0u) |
           (f & V4L2_CTRL_FLAG_GRABBED ? LIVE_CAM_GRABBED : 0u);
}

static int clamp_int(int64_t v)
{
    return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : (int)v;
}

/* The menu item auto exposure sets: the device's own auto mode, where
 * UVC cameras have aperture priority and others full auto; -1: none. */
static int exposure_auto_item(live_camera *cam, int64_t min, int64_t max)
{
    static const int prefer[] = {V4L2_EXPOSURE_APERTURE_PRIORITY, V4L2_EXPOSURE_AUTO,
                                 V4L2_EXPOSURE_SHUTTER_PRIORITY};
    for (size_t i = 0; i < sizeof prefer / sizeof prefer[0]; i++) {
        struct v4l2_querymenu m;
        memset(&m, 0, sizeof m);
        m.id = V4L2_CID_EXPOSURE_AUTO;
        m.index = (uint32_t)prefer[i];
        if (prefer[i] < min || prefer[i] > max)
            continue;
        if (xioctl(cam->fd, VIDIOC_QUERYMENU, &m) == 0)
            return prefer[i];
        if (vanished(cam, errno))
            return -1;
    }
    return -1;
}

typedef struct raw_control {
    int64_t min, max, step, def;
    uint32_t type, flags;
} raw_control;

/* @return 1 the device has it, 0 not, -1 the device vanished */
static int query_raw(live_camera *cam, uint32_t cid, raw_control *r)
{
    if (cam->ext) {
        struct v4l2_query_ext_ctrl q;
        memset(&q, 0, sizeof q);
        q.id = cid;
        if (xioctl(cam->fd, VIDIOC_QUERY_EXT_CTRL, &q) == 0) {
            *r = (raw_control){q.minimum,       q.maximum, (int64_t)q.step,
                               q.default_value, q.type,    q.flags};
            return 1;
        }
        if (errno != ENOTTY)
            return vanished(cam, errno) ? -1 : 0;
        cam->ext = 0; /* a driver older than Linux 3.16: VIDIOC_QUERYCTRL */
    }
    struct v4l2_queryctrl q;
    memset(&q, 0, sizeof q);
    q.id = cid;
    if (xioctl(cam->fd, VIDIOC_QUERYCTRL, &q) < 0)
        return vanished(cam, errno) ? -1 : 0;
    *r = (raw_control){q.minimum, q.maximum, q.step, q.default_value, q.type, q.flags};
    return 1;
}

/* One control's description. @return 1 available, 0 absent, -1 gone */
static int query(live_camera *cam, int id, live_camera_control *k)
{
    raw_control r;
    memset(k, 0, sizeof(*k));
    const int q = query_raw(cam, cids[id], &r);
    if (q <= 0)
        return q;
    int64_t min = r.min, max = r.max, step = r.step, def = r.def;
    /* the kinds the page shows: integers, on/off (auto exposure: a menu) */
    const uint32_t want = id == LIVE_CAM_EXPOSURE_AUTO ? V4L2_CTRL_TYPE_MENU
                          : live_camera_is_bool(id)    ? V4L2_CTRL_TYPE_BOOLEAN
                                                       : V4L2_CTRL_TYPE_INTEGER;
    if (r.type != want || min > max)
        return 0;
    if (id == LIVE_CAM_EXPOSURE_AUTO) {
        if (cam->exposure_on < 0)
            cam->exposure_on = exposure_auto_item(cam, min, max);
        if (cam->fd < 0)
            return -1;
        if (cam->exposure_on < 0 || V4L2_EXPOSURE_MANUAL < min || V4L2_EXPOSURE_MANUAL > max)
            return 0; /* no choice between manual and auto */
        min = 0, max = 1, step = 1, def = def != V4L2_EXPOSURE_MANUAL;
    }
    k->available = 1;
    k->min = clamp_int(min);
    k->max = clamp_int(max);
    k->step = step > 0 ? clamp_int(step) : 1;
    k->def = clamp_int(def);
    k->flags = flags_of(r.flags);
    return 1;
}

static int get_value(live_camera *cam, int id, live_camera_control *k)
{
    struct v4l2_control c = {cids[id], 0};
    if (xioctl(cam->fd, VIDIOC_G_CTRL, &c) < 0) {
        if (vanished(cam, errno))
            return -1;
        k->value = k->def; /* write-only: the default stands for it */
        return 0;
    }
    k->value = id == LIVE_CAM_EXPOSURE_AUTO ? c.value != V4L2_EXPOSURE_MANUAL : c.value;
    return 0;
}

int live_camera_read(live_camera *cam, live_camera_state *st)
{
    memset(st, 0, sizeof(*st));
    for (int i = 0; i < LIVE_CAM_COUNT && cam->fd >= 0; i++) {
        live_camera_control *k = &st->ctl[i];
        if (query(cam, i, k) > 0 && get_value(cam, i, k) < 0)
            break;
    }
    if (cam->fd < 0) {
        memset(st, 0, sizeof(*st));
        snprintf(st->error, sizeof st->error, "%s", cam->gone);
        return -1;
    }
    return 0;
}

/* The device's rule (as the kernel's own controls round): into [min, max],
 * then to the nearest step from min, half up; never past max. */
static int64_t round_to_step(const live_camera_control *k, int64_t v)
{
    if (v < k->min)
        v = k->min;
    if (v > k->max)
        v = k->max;
    const int64_t step = k->step > 0 ? k->step : 1;
    v = k->min + (v - k->min + step / 2) / step * step;
    if (v > k->max)
        v -= step;
    return v;
}

static const char *refusal(unsigned flags)
{
    return flags & LIVE_CAM_DISABLED    ? "disabled on this device"
           : flags & LIVE_CAM_READ_ONLY ? "read-only"
           : flags & LIVE_CAM_GRABBED   ? "held by the capture (it cannot change while streaming)"
           : flags & LIVE_CAM_INACTIVE  ? "inactive now (an automatic mode sets it)"
                                        : "refused";
}

int live_camera_set(live_camera *cam, int id, int value, int *applied, char *err, size_t n)
{
    const char *name = id >= 0 && id < LIVE_CAM_COUNT ? live_camera_names[id] : "?";
    if (cam->fd < 0) {
        snprintf(err, n, "%s", cam->gone);
        return -1;
    }
    live_camera_control k;
    const int q = id >= 0 && id < LIVE_CAM_COUNT ? query(cam, id, &k) : 0;
    if (q < 0) {
        snprintf(err, n, "%s", cam->gone);
        return -1;
    }
    if (q == 0) {
        snprintf(err, n, "%.150s: the camera has no %s control", cam->path, name);
        return -1;
    }
    if (k.flags) {
        snprintf(err, n, "%.150s: %s is %s", cam->path, name, refusal(k.flags));
        return -1;
    }
    int64_t v = live_camera_is_bool(id) ? value != 0 : round_to_step(&k, value);
    if (applied)
        *applied = (int)v;
    if (id == LIVE_CAM_EXPOSURE_AUTO)
        v = v ? cam->exposure_on : V4L2_EXPOSURE_MANUAL;
    struct v4l2_control c = {cids[id], (int32_t)v};
    if (xioctl(cam->fd, VIDIOC_S_CTRL, &c) == 0)
        return 0;
    const int e = errno;
    if (vanished(cam, e))
        snprintf(err, n, "%s", cam->gone);
    else if (e == EBUSY)
        snprintf(err, n,
                 "%.150s: %s: the device is busy (another program holds it, or it cannot change "
                 "while streaming)",
                 cam->path, name);
    else if (e == EINVAL || e == ERANGE)
        snprintf(err, n, "%.150s: %s: the device refused the value %lld", cam->path, name,
                 (long long)v);
    else if (e == EACCES)
        snprintf(err, n, "%.150s: %s is read-only", cam->path, name);
    else
        snprintf(err, n, "%.150s: %s: %s", cam->path, name, strerror(e));
    return -1;
}
#endif
