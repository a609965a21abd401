/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The media container in a build without FFmpeg's libraries: refused with a
 * message saying how to get it. */
#include "io_internal.h"

#define MEDIA_ABSENT                                                                               \
    "media files and devices need FFmpeg's libraries: this fovea was built without them "          \
    "(install libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libavdevice-dev, "       \
    "then rebuild with -DFOVEA_FFMPEG=ON)"

static int absent_open(struct fovea_reader *r, const fovea_reader_settings *opt)
{
    (void)opt;
    return fv_reader_fail(r, FOVEA_ERR_UNSUPPORTED, MEDIA_ABSENT);
}

static int absent_read(struct fovea_reader *r, fovea_frame *f)
{
    (void)f;
    return fv_reader_fail(r, FOVEA_ERR_UNSUPPORTED, MEDIA_ABSENT);
}

static int absent_wopen(struct fovea_writer *w)
{
    return fv_writer_fail(w, FOVEA_ERR_UNSUPPORTED, MEDIA_ABSENT);
}

static int absent_write(struct fovea_writer *w, FILE *fp, const fovea_frame *f)
{
    (void)fp;
    (void)f;
    return fv_writer_fail(w, FOVEA_ERR_UNSUPPORTED, MEDIA_ABSENT);
}

const struct fv_reader_ops fv_media_reader_ops = {"media", absent_open, absent_read, NULL};
const struct fv_writer_ops fv_media_writer_ops = {"media",      0,    absent_wopen,
                                                  absent_write, NULL, NULL};
const char *fovea_media_version(void)
{
    return NULL;
}
