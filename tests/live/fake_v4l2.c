/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* A fake V4L2 camera for the camera-control tests (no camera, no vivid or
 * v4l2loopback here): an LD_PRELOAD library that answers open/ioctl/close
 * for one path, $FOVEA_FAKE_V4L2, with a fixed set of controls, and passes
 * everything else on. Built for tests only (tests/CMakeLists.txt).
 *
 * The device: brightness 0..255 (128), contrast 0..100 step 5 (50),
 * saturation read-only (60), gain 0..100 whose every set answers EBUSY,
 * exposure 3..2047 (250; inactive unless auto exposure is manual), auto
 * exposure a menu of manual (1) and aperture priority (3, the default), auto
 * white balance on; no autogain. Values persist while the process lives.
 * Environment, read at each call:
 *   FOVEA_FAKE_V4L2_LOG=FILE       each VIDIOC_S_CTRL appended: "S_CTRL name value"
 *   FOVEA_FAKE_V4L2_GONE_AFTER=N   after N ioctls since the open, ENODEV (unplugged)
 *   FOVEA_FAKE_V4L2_NO_EXT=1       VIDIOC_QUERY_EXT_CTRL answers ENOTTY (an old driver)
 * One thread at a time (the tests' callers are single-threaded). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

typedef struct fake_control {
    const char *name;
    unsigned id, type, flags;
    int min, max, step, def, value;
} fake_control;

static fake_control controls[] = {
    {"brightness", V4L2_CID_BRIGHTNESS, V4L2_CTRL_TYPE_INTEGER, 0, 0, 255, 1, 128, 128},
    {"contrast", V4L2_CID_CONTRAST, V4L2_CTRL_TYPE_INTEGER, 0, 0, 100, 5, 50, 50},
    {"saturation", V4L2_CID_SATURATION, V4L2_CTRL_TYPE_INTEGER, V4L2_CTRL_FLAG_READ_ONLY, 0, 200, 1,
     60, 60},
    {"gain", V4L2_CID_GAIN, V4L2_CTRL_TYPE_INTEGER, 0, 0, 100, 1, 10, 10},
    {"exposure", V4L2_CID_EXPOSURE_ABSOLUTE, V4L2_CTRL_TYPE_INTEGER, 0, 3, 2047, 1, 250, 250},
    {"exposure_auto", V4L2_CID_EXPOSURE_AUTO, V4L2_CTRL_TYPE_MENU, 0, 0, 3, 1, 3, 3},
    {"white_balance_auto", V4L2_CID_AUTO_WHITE_BALANCE, V4L2_CTRL_TYPE_BOOLEAN, 0, 0, 1, 1, 1, 1},
};
#define NCONTROLS (sizeof controls / sizeof controls[0])

static int fake_fds[16];
static int nfake;
static long calls; /* ioctls since the last open */

static int (*next_open)(const char *, int, ...);
static int (*next_close)(int);
static int (*next_ioctl)(int, unsigned long, ...);

static void resolve(void)
{
    if (!next_open) {
        next_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
        next_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
        next_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
    }
}

static int is_fake(int fd)
{
    for (int i = 0; i < nfake; i++)
        if (fake_fds[i] == fd)
            return 1;
    return 0;
}

static fake_control *find(unsigned id)
{
    for (size_t i = 0; i < NCONTROLS; i++)
        if (controls[i].id == id)
            return &controls[i];
    return NULL;
}

static void log_set(const char *name, int value)
{
    const char *path = getenv("FOVEA_FAKE_V4L2_LOG");
    if (!path || !*path)
        return;
    const int fd = next_open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    char line[96];
    const int n = snprintf(line, sizeof line, "S_CTRL %s %d\n", name, value);
    if (write(fd, line, (size_t)n) != n)
        perror("fake_v4l2: log");
    next_close(fd);
}

static unsigned flags_now(const fake_control *c)
{
    unsigned f = c->flags;
    const fake_control *ae = find(V4L2_CID_EXPOSURE_AUTO);
    if (c->id == V4L2_CID_EXPOSURE_ABSOLUTE && ae->value != V4L2_EXPOSURE_MANUAL)
        f |= V4L2_CTRL_FLAG_INACTIVE;
    return f;
}

static int fail(int e)
{
    errno = e;
    return -1;
}

static int set_control(struct v4l2_control *a)
{
    fake_control *c = find(a->id);
    if (!c)
        return fail(EINVAL);
    if (c->flags & V4L2_CTRL_FLAG_READ_ONLY)
        return fail(EACCES);
    log_set(c->name, a->value);
    if (c->id == V4L2_CID_GAIN)
        return fail(EBUSY);
    int v = a->value;
    if (c->type == V4L2_CTRL_TYPE_MENU) {
        if (v != V4L2_EXPOSURE_MANUAL && v != V4L2_EXPOSURE_APERTURE_PRIORITY)
            return fail(EINVAL);
    } else {
        /* the kernel's rule: into the range, then to the step */
        v = v < c->min ? c->min : v > c->max ? c->max : v;
        v = c->min + (v - c->min + c->step / 2) / c->step * c->step;
    }
    c->value = v;
    a->value = v;
    return 0;
}

static int fake_ioctl(unsigned long req, void *arg)
{
    const char *gone = getenv("FOVEA_FAKE_V4L2_GONE_AFTER");
    if (gone && *gone && ++calls > atol(gone))
        return fail(ENODEV);
    if (req == VIDIOC_QUERYCAP) {
        struct v4l2_capability *cap = arg;
        memset(cap, 0, sizeof(*cap));
        snprintf((char *)cap->driver, sizeof cap->driver, "fovea-fake");
        snprintf((char *)cap->card, sizeof cap->card, "fovea fake camera");
        cap->capabilities = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_DEVICE_CAPS;
        cap->device_caps = V4L2_CAP_VIDEO_CAPTURE;
        return 0;
    }
    if (req == VIDIOC_QUERY_EXT_CTRL) {
        const char *old = getenv("FOVEA_FAKE_V4L2_NO_EXT");
        if (old && *old == '1')
            return fail(ENOTTY);
        struct v4l2_query_ext_ctrl *q = arg;
        const fake_control *c = find(q->id);
        if (!c)
            return fail(EINVAL);
        memset(q, 0, sizeof(*q));
        q->id = c->id, q->type = c->type, q->flags = flags_now(c);
        q->minimum = c->min, q->maximum = c->max, q->step = (unsigned)c->step;
        q->default_value = c->def;
        snprintf(q->name, sizeof q->name, "%s", c->name);
        return 0;
    }
    if (req == VIDIOC_QUERYCTRL) {
        struct v4l2_queryctrl *q = arg;
        const fake_control *c = find(q->id);
        if (!c)
            return fail(EINVAL);
        memset(q, 0, sizeof(*q));
        q->id = c->id, q->type = c->type, q->flags = flags_now(c);
        q->minimum = c->min, q->maximum = c->max, q->step = c->step;
        q->default_value = c->def;
        snprintf((char *)q->name, sizeof q->name, "%s", c->name);
        return 0;
    }
    if (req == VIDIOC_QUERYMENU) {
        struct v4l2_querymenu *m = arg;
        if (m->id != V4L2_CID_EXPOSURE_AUTO ||
            (m->index != V4L2_EXPOSURE_MANUAL && m->index != V4L2_EXPOSURE_APERTURE_PRIORITY))
            return fail(EINVAL);
        snprintf((char *)m->name, sizeof m->name, "%s",
                 m->index == V4L2_EXPOSURE_MANUAL ? "Manual Mode" : "Aperture Priority Mode");
        return 0;
    }
    if (req == VIDIOC_G_CTRL) {
        struct v4l2_control *a = arg;
        const fake_control *c = find(a->id);
        if (!c)
            return fail(EINVAL);
        a->value = c->value;
        return 0;
    }
    if (req == VIDIOC_S_CTRL)
        return set_control(arg);
    return fail(ENOTTY);
}

static int open_fake(const char *path, int flags, mode_t mode)
{
    resolve();
    const char *fake = getenv("FOVEA_FAKE_V4L2");
    if (!fake || !*fake || strcmp(path, fake) != 0)
        return next_open(path, flags, mode);
    if (nfake == (int)(sizeof fake_fds / sizeof fake_fds[0]))
        return fail(EMFILE);
    const int fd = next_open("/dev/null", O_RDWR | (flags & O_CLOEXEC));
    if (fd >= 0) {
        fake_fds[nfake++] = fd;
        calls = 0;
    }
    return fd;
}

int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return open_fake(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return open_fake(path, flags, mode);
}

int close(int fd)
{
    resolve();
    for (int i = 0; i < nfake; i++)
        if (fake_fds[i] == fd) {
            fake_fds[i] = fake_fds[--nfake];
            break;
        }
    return next_close(fd);
}

int ioctl(int fd, unsigned long req, ...)
{
    va_list ap;
    va_start(ap, req);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    resolve();
    if (is_fake(fd))
        return fake_ioctl(req, arg);
    return next_ioctl(fd, req, arg);
}
