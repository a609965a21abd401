/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* FFmpeg's set-up and log capture, and the pixel format and color mappings
 * shared by the media reader and writer. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "media.h"

/* The last error FFmpeg logged on this thread: FFmpeg reports many failures
 * (a missing moov atom, a broken NAL unit) only in its log. */
static _Thread_local char media_last_log[256];

static void media_log(void *avcl, int level, const char *fmt, va_list ap)
{
    (void)avcl;
    if (level > AV_LOG_ERROR)
        return;
    char line[256];
    vsnprintf(line, sizeof(line), fmt, ap);
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == '.'))
        line[--n] = '\0';
    if (n)
        snprintf(media_last_log, sizeof(media_last_log), "%s", line);
}

static pthread_once_t media_once = PTHREAD_ONCE_INIT;

static void media_init_once(void)
{
    avdevice_register_all();
    av_log_set_callback(media_log);
}

void media_init(void)
{
    pthread_once(&media_once, media_init_once);
}

void media_log_clear(void)
{
    media_last_log[0] = '\0';
}

void media_reason(int averr, char *buf, size_t n)
{
    char text[AV_ERROR_MAX_STRING_SIZE + 64];
    if (av_strerror(averr, text, sizeof(text)) < 0)
        snprintf(text, sizeof(text), "FFmpeg error %d", averr);
    if (media_last_log[0] && !strstr(text, media_last_log))
        snprintf(buf, n, "%s (%s)", text, media_last_log);
    else
        snprintf(buf, n, "%s", text);
}

static const struct {
    enum AVPixelFormat av;
    fovea_pixfmt fv;
} media_fmts[] = {
    {AV_PIX_FMT_GRAY8, FOVEA_PIX_GRAY8},         {AV_PIX_FMT_GRAY10LE, FOVEA_PIX_GRAY10},
    {AV_PIX_FMT_GRAY12LE, FOVEA_PIX_GRAY12},     {AV_PIX_FMT_GRAY16LE, FOVEA_PIX_GRAY16},
    {AV_PIX_FMT_YUV420P, FOVEA_PIX_I420},        {AV_PIX_FMT_YUVJ420P, FOVEA_PIX_I420},
    {AV_PIX_FMT_YUV420P10LE, FOVEA_PIX_I420P10}, {AV_PIX_FMT_YUV420P12LE, FOVEA_PIX_I420P12},
    {AV_PIX_FMT_YUV420P16LE, FOVEA_PIX_I420P16}, {AV_PIX_FMT_YUV422P, FOVEA_PIX_I422},
    {AV_PIX_FMT_YUVJ422P, FOVEA_PIX_I422},       {AV_PIX_FMT_YUV422P10LE, FOVEA_PIX_I422P10},
    {AV_PIX_FMT_YUV422P12LE, FOVEA_PIX_I422P12}, {AV_PIX_FMT_YUV422P16LE, FOVEA_PIX_I422P16},
    {AV_PIX_FMT_YUV444P, FOVEA_PIX_I444},        {AV_PIX_FMT_YUVJ444P, FOVEA_PIX_I444},
    {AV_PIX_FMT_YUV444P10LE, FOVEA_PIX_I444P10}, {AV_PIX_FMT_YUV444P12LE, FOVEA_PIX_I444P12},
    {AV_PIX_FMT_YUV444P16LE, FOVEA_PIX_I444P16}, {AV_PIX_FMT_NV12, FOVEA_PIX_NV12},
    {AV_PIX_FMT_RGB24, FOVEA_PIX_RGB24},         {AV_PIX_FMT_RGBA, FOVEA_PIX_RGBA},
    {AV_PIX_FMT_RGB48LE, FOVEA_PIX_RGB48},       {AV_PIX_FMT_RGBA64LE, FOVEA_PIX_RGBA64},
};
#define N_MEDIA_FMTS (sizeof(media_fmts) / sizeof(media_fmts[0]))

fovea_pixfmt media_fovea_fmt(enum AVPixelFormat f)
{
    for (size_t i = 0; i < N_MEDIA_FMTS; i++)
        if (media_fmts[i].av == f)
            return media_fmts[i].fv;
    return FOVEA_PIX_NONE;
}

enum AVPixelFormat media_av_fmt(fovea_pixfmt fmt)
{
    for (size_t i = 0; i < N_MEDIA_FMTS; i++)
        if (media_fmts[i].fv == fmt)
            return media_fmts[i].av;
    return AV_PIX_FMT_NONE;
}

static int depth_class(int bits)
{
    return bits <= 8 ? 8 : bits <= 10 ? 10 : bits <= 12 ? 12 : 16;
}

fovea_pixfmt media_nearest_fmt(enum AVPixelFormat f)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    if (!d || (d->flags & (AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BITSTREAM)) ||
        d->nb_components == 0)
        return FOVEA_PIX_NONE;
    int bits = 0;
    for (int i = 0; i < d->nb_components; i++)
        if (d->comp[i].depth > bits)
            bits = d->comp[i].depth;
    const int depth = depth_class(bits);
    const int alpha = (d->flags & AV_PIX_FMT_FLAG_ALPHA) != 0;
    if ((d->flags & AV_PIX_FMT_FLAG_RGB) || (d->flags & AV_PIX_FMT_FLAG_PAL) ||
        (d->nb_components >= 3 && (d->flags & AV_PIX_FMT_FLAG_FLOAT))) {
        if (depth == 8)
            return alpha ? FOVEA_PIX_RGBA : FOVEA_PIX_RGB24;
        return alpha ? FOVEA_PIX_RGBA64 : FOVEA_PIX_RGB48;
    }
    if (d->nb_components <= 2) /* gray, gray + alpha */
        return fovea_pixfmt_yuv(400, depth);
    int chroma = 420;
    if (d->log2_chroma_w == 0 && d->log2_chroma_h == 0)
        chroma = 444;
    else if (d->log2_chroma_w == 1 && d->log2_chroma_h == 0)
        chroma = 422;
    return fovea_pixfmt_yuv(chroma, depth);
}

int media_color_code(int av_value)
{
    return av_value == 2 || av_value < 0 || av_value > 255 ? 0 : av_value;
}

void media_copy_to_frame(const AVFrame *src, fovea_frame *f)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    for (int p = 0; p < d->planes; p++) {
        const size_t row = fovea_plane_row_bytes(f->fmt, f->width, p);
        const int rows = fovea_plane_height(f->fmt, f->height, p);
        const uint8_t *s = src->data[p];
        uint8_t *o = f->data[p];
        if (src->linesize[p] == f->stride[p] && (size_t)f->stride[p] == row) {
            memcpy(o, s, row * (size_t)rows);
            continue;
        }
        for (int y = 0; y < rows; y++)
            memcpy(o + (ptrdiff_t)y * f->stride[p], s + (ptrdiff_t)y * src->linesize[p], row);
    }
}

/* written once, then only read */
static char media_version_text[256];
static pthread_once_t media_version_once = PTHREAD_ONCE_INIT;

static void media_version_init(void)
{
    const unsigned v[5] = {avformat_version(), avcodec_version(), avutil_version(),
                           swscale_version(), avdevice_version()};
    const char *names[5] = {"libavformat", "libavcodec", "libavutil", "libswscale", "libavdevice"};
    size_t len = 0;
    for (int i = 0; i < 5; i++) {
        int k =
            snprintf(media_version_text + len, sizeof(media_version_text) - len, "%s%s %u.%u.%u",
                     i ? ", " : "", names[i], v[i] >> 16, (v[i] >> 8) & 255, v[i] & 255);
        if (k > 0 && (size_t)k < sizeof(media_version_text) - len)
            len += (size_t)k;
    }
}

const char *fovea_media_version(void)
{
    pthread_once(&media_version_once, media_version_init);
    return media_version_text;
}
