/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Raw planar video (.yuv): headerless frames of tightly packed planes. The
 * geometry comes from the caller (width, height, pixel format). */
#include "io_internal.h"

static int yuv_open(struct fovea_reader *r, const fovea_reader_settings *opt)
{
    if (!opt || opt->width <= 0 || opt->height <= 0 || !fovea_pixfmt_get_desc(opt->fmt))
        return fv_reader_fail(r, FOVEA_ERR_INVALID_ARG,
                              "raw yuv needs --width, --height and --pixfmt");
    if (opt->width > FOVEA_MAX_DIM || opt->height > FOVEA_MAX_DIM)
        return fv_reader_fail(r, FOVEA_ERR_INVALID_ARG,
                              "frame size %dx%d out of range (at most %d per side)", opt->width,
                              opt->height, FOVEA_MAX_DIM);
    size_t frame_bytes = fovea_frame_packed_size(opt->fmt, opt->width, opt->height);
    if (frame_bytes == 0)
        return fv_reader_fail(r, FOVEA_ERR_INTERNAL, "frame size overflow");

    fovea_video_info *info = &r->info;
    info->width = opt->width;
    info->height = opt->height;
    info->fmt = opt->fmt;
    if (opt->fps_num > 0 && opt->fps_den > 0) {
        info->fps_num = opt->fps_num;
        info->fps_den = opt->fps_den;
    }
    /* A trailing partial frame is not counted; reading it reports truncation. */
    info->frame_count =
        r->file_size >= 0 ? (int64_t)((unsigned long long)r->file_size / frame_bytes) : -1;
    return FOVEA_OK;
}

static int yuv_read(struct fovea_reader *r, fovea_frame *f)
{
    return fv_io_read_planes(r, f);
}

const struct fv_reader_ops fv_yuv_reader_ops = {"yuv", yuv_open, yuv_read, NULL};

static int yuv_writer_open(struct fovea_writer *w)
{
    (void)w; /* writer.c has validated size and format; raw files have no header */
    return FOVEA_OK;
}

static int yuv_write(struct fovea_writer *w, FILE *fp, const fovea_frame *f)
{
    return fv_io_write_planes(w, fp, f);
}

const struct fv_writer_ops fv_yuv_writer_ops = {"yuv", 0, yuv_writer_open, yuv_write, NULL, NULL};
