/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* What the media reader and writer (media_read.c, media_write.c) share: FFmpeg's
 * one-time set-up, its log turned into error detail, pixel format and color
 * mappings between FFmpeg and fovea. Only built with FFmpeg (FOVEA_FFMPEG). */
#ifndef FOVEA_IO_MEDIA_H
#define FOVEA_IO_MEDIA_H

#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>

#include "fovea/io.h"

/* Register the devices and route FFmpeg's log into a per-thread buffer (the
 * library prints nothing); once per process. */
void media_init(void);

/* FFmpeg's reason for status averr: av_strerror's text, followed by the last
 * error FFmpeg logged on this thread since media_log_clear() when there is one
 * (it often says more: "moov atom not found"). */
void media_reason(int averr, char *buf, size_t n);
void media_log_clear(void);

/* fovea's format of the same memory layout as FFmpeg's f, or FOVEA_PIX_NONE. */
fovea_pixfmt media_fovea_fmt(enum AVPixelFormat f);
/* fovea's nearest format for f (same family, depth rounded up, chroma kept
 * where fovea has it), for a libswscale conversion; FOVEA_PIX_NONE if none. */
fovea_pixfmt media_nearest_fmt(enum AVPixelFormat f);
/* FFmpeg's format of fovea's fmt. */
enum AVPixelFormat media_av_fmt(fovea_pixfmt fmt);

/* H.273 code as fovea_video_info holds it: FFmpeg's "unspecified" (2) and the
 * reserved values become 0. */
int media_color_code(int av_value);

/* Copy the planes of an AVFrame whose format media_fovea_fmt maps to f->fmt
 * (same size) into the host frame f. */
void media_copy_to_frame(const AVFrame *src, fovea_frame *f);

#endif
