/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The media reader: demuxes and decodes through FFmpeg's libraries (files,
 * streams on a FILE such as stdin, devices) into fovea's host frames. Frames
 * keep their depth and layout; a layout fovea lacks is converted once per
 * frame with libswscale (info.converted_from says so). Decoding goes through a
 * decoder backend (media_backends), so a hardware decoder is one more entry. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "core/core.h"
#include "io_internal.h"
#include "media.h"
#include "media_read.h"

/* A device that gives no frame for this long is an error, never a hang. */
#define MEDIA_DEVICE_TIMEOUT_S 10.0
#define MEDIA_AVIO_BUFFER 65536

typedef struct media_reader media_reader;

/* The CPU decoder backend: how the codec is opened and where its frames go
 * (host memory). The hardware one (NVDEC, media_read.h: m->hw) attaches a
 * device to the decoder and hands device frames out. */
typedef struct media_backend {
    const char *name;
    int (*open)(media_reader *m, AVCodecContext *dec);
    /* m->frame (a decoded frame of the stream's size and format) into f */
    void (*deliver)(media_reader *m, fovea_frame *f);
} media_backend;

struct media_reader {
    AVFormatContext *fmt;
    AVIOContext *avio; /* over the reader's FILE (stdin, a probed stream); NULL for paths */
    AVCodecContext *dec;
    AVPacket *pkt;
    AVFrame *frame;
    struct SwsContext *sws; /* the decoder's format -> info.fmt when fovea lacks it */
    const media_backend *backend;
    const media_hw_backend *hw; /* set when decoding on the GPU (the CPU backend unused) */
    void *hw_priv;
    fovea_context *ctx; /* the reader's (the hardware backend runs on it) */
    int stream;
    int threads;     /* the CPU decoder's threads (0 = FFmpeg's choice) */
    int demux_done;  /* the demuxer is at its end: the decoder is being drained */
    int primed;      /* m->frame holds the first frame, decoded at open */
    int device;      /* a device: reads are bounded by MEDIA_DEVICE_TIMEOUT_S */
    double deadline; /* CLOCK_MONOTONIC seconds when a device read gives up */
    enum AVPixelFormat src_fmt;
    enum AVPixelFormat sw_fmt; /* NVDEC: the stream's own format behind AV_PIX_FMT_CUDA */
    int64_t decoded;           /* frames delivered so far */
};

static double media_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int media_interrupt(void *opaque)
{
    const media_reader *m = opaque;
    return m->device && m->deadline > 0 && media_now() > m->deadline;
}

static int media_fail(struct fovea_reader *r, int status, int averr, const char *what)
{
    char why[512];
    media_reason(averr, why, sizeof(why));
    if (averr == AVERROR_EXIT)
        snprintf(why, sizeof(why), "no data for %.0f s (the device stopped?)",
                 MEDIA_DEVICE_TIMEOUT_S);
    return fv_reader_fail(r, status, "%s: %s", what, why);
}

/* ---------------------------------------------------------------- FILE I/O */

static int file_read(void *opaque, uint8_t *buf, int size)
{
    FILE *fp = opaque;
    size_t n = fread(buf, 1, (size_t)size, fp);
    if (n == 0)
        return ferror(fp) ? AVERROR(EIO) : AVERROR_EOF;
    return (int)n;
}

static int64_t file_seek(void *opaque, int64_t offset, int whence)
{
    FILE *fp = opaque;
    if (whence == AVSEEK_SIZE) {
        const off_t here = ftello(fp);
        if (here < 0 || fseeko(fp, 0, SEEK_END) != 0)
            return AVERROR(ENOSYS);
        const off_t end = ftello(fp);
        return fseeko(fp, here, SEEK_SET) == 0 ? (int64_t)end : AVERROR(EIO);
    }
    whence &= ~AVSEEK_FORCE;
    if (fseeko(fp, (off_t)offset, whence) != 0)
        return AVERROR(errno ? errno : EIO);
    return (int64_t)ftello(fp);
}

static int open_file_io(struct fovea_reader *r, media_reader *m)
{
    uint8_t *buf = av_malloc(MEDIA_AVIO_BUFFER);
    if (!buf)
        return fv_reader_fail(r, FOVEA_ERR_NOMEM, "out of memory");
    /* a pipe cannot seek: FFmpeg reads it forwards only */
    const int seekable = ftello(r->fp) >= 0;
    m->avio = avio_alloc_context(buf, MEDIA_AVIO_BUFFER, 0, r->fp, file_read, NULL,
                                 seekable ? file_seek : NULL);
    if (!m->avio) {
        av_free(buf);
        return fv_reader_fail(r, FOVEA_ERR_NOMEM, "out of memory");
    }
    m->fmt->pb = m->avio;
    m->fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- backends */

static int cpu_open(media_reader *m, AVCodecContext *dec)
{
    /* 0: FFmpeg's own count (one per CPU, plus one with frame threads), as
     * the ffmpeg tool's -threads auto */
    dec->thread_count = m->threads;
    dec->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
    return 0;
}

static void cpu_deliver(media_reader *m, fovea_frame *f)
{
    if (m->sws) {
        int stride[4] = {0};
        for (int p = 0; p < 4; p++)
            stride[p] = (int)f->stride[p];
        sws_scale(m->sws, (const uint8_t *const *)m->frame->data, m->frame->linesize, 0,
                  m->frame->height, f->data, stride);
        return;
    }
    media_copy_to_frame(m->frame, f);
}

static const media_backend media_backend_cpu = {"cpu", cpu_open, cpu_deliver};

/* ---------------------------------------------------------------- open */

/* "KEY=VALUE" list into a dictionary. */
static int options_dict(struct fovea_reader *r, const char *const *opts, AVDictionary **dict)
{
    for (size_t i = 0; opts && opts[i]; i++) {
        const char *eq = strchr(opts[i], '=');
        if (!eq || eq == opts[i])
            return fv_reader_fail(r, FOVEA_ERR_INVALID_ARG, "input option '%s': expected KEY=VALUE",
                                  opts[i]);
        char key[128];
        const size_t klen = (size_t)(eq - opts[i]);
        if (klen >= sizeof(key))
            return fv_reader_fail(r, FOVEA_ERR_INVALID_ARG, "input option '%s': key too long",
                                  opts[i]);
        memcpy(key, opts[i], klen);
        key[klen] = '\0';
        if (av_dict_set(dict, key, eq + 1, 0) < 0)
            return fv_reader_fail(r, FOVEA_ERR_NOMEM, "out of memory");
    }
    return FOVEA_OK;
}

/* The input format and the URL FFmpeg opens: a "NAME:" prefix naming an
 * input device ("v4l2:/dev/video0", "lavfi:testsrc2") is split off; a
 * character device is a camera (v4l2). */
static int pick_input(struct fovea_reader *r, const fovea_reader_settings *opt,
                      const AVInputFormat **ifmt, const char **url, int *device)
{
    *url = r->path;
    *ifmt = NULL;
    *device = 0;
    const char *name = opt->input_format;
    char prefix[32] = "";
    const char *colon = strchr(r->path, ':');
    if (!name && colon && colon - r->path > 1 && (size_t)(colon - r->path) < sizeof(prefix)) {
        memcpy(prefix, r->path, (size_t)(colon - r->path));
        prefix[colon - r->path] = '\0';
        if (strcmp(prefix, "v4l2") == 0 || strcmp(prefix, "video4linux2") == 0 ||
            strcmp(prefix, "lavfi") == 0) {
            name = prefix;
            *url = colon + 1;
        }
    }
    if (!name && r->fp == NULL) {
        struct stat st;
        if (stat(r->path, &st) == 0 && S_ISCHR(st.st_mode))
            name = "v4l2";
    }
    if (!name)
        return FOVEA_OK;
    *ifmt = av_find_input_format(strcmp(name, "v4l2") == 0 ? "video4linux2" : name);
    if (!*ifmt)
        return fv_reader_fail(r, FOVEA_ERR_UNSUPPORTED,
                              "FFmpeg has no input format or device named '%s'", name);
    const AVClass *cls = (*ifmt)->priv_class;
    *device = cls && (cls->category == AV_CLASS_CATEGORY_DEVICE_VIDEO_INPUT ||
                      cls->category == AV_CLASS_CATEGORY_DEVICE_INPUT);
    return FOVEA_OK;
}

static int open_demuxer(struct fovea_reader *r, media_reader *m, const fovea_reader_settings *opt)
{
    const AVInputFormat *ifmt;
    const char *url;
    FOVEA_TRY(pick_input(r, opt, &ifmt, &url, &m->device));
    if (!(m->fmt = avformat_alloc_context()))
        return fv_reader_fail(r, FOVEA_ERR_NOMEM, "out of memory");
    m->fmt->interrupt_callback.callback = media_interrupt;
    m->fmt->interrupt_callback.opaque = m;
    if (r->fp)
        FOVEA_TRY(open_file_io(r, m));
    AVDictionary *dict = NULL;
    int st = options_dict(r, opt->input_options, &dict);
    if (st < 0) {
        av_dict_free(&dict);
        return st;
    }
    m->deadline = media_now() + MEDIA_DEVICE_TIMEOUT_S;
    int ret = avformat_open_input(&m->fmt, r->fp ? NULL : url, ifmt, &dict);
    if (ret < 0) {
        av_dict_free(&dict);
        /* avformat_open_input frees the context (the custom I/O stays ours) */
        if (r->fp && ret == AVERROR_INVALIDDATA) /* content sniffed: nothing knows it */
            return media_fail(r, FOVEA_ERR_UNSUPPORTED, ret,
                              "unknown file type: neither its name (.y4m, .yuv, .pgm/.ppm/.pnm, "
                              ".png, a media extension) nor its first bytes tell it");
        return media_fail(r, ret == AVERROR(ENOENT) ? FOVEA_ERR_IO : FOVEA_ERR_CORRUPT, ret,
                          "cannot open");
    }
    const AVDictionaryEntry *left = av_dict_get(dict, "", NULL, AV_DICT_IGNORE_SUFFIX);
    if (left) {
        st = fv_reader_fail(r, FOVEA_ERR_INVALID_ARG,
                            "input option '%s' is not an option of the %s demuxer", left->key,
                            m->fmt->iformat->name);
        av_dict_free(&dict);
        return st;
    }
    av_dict_free(&dict);
    m->deadline = media_now() + MEDIA_DEVICE_TIMEOUT_S;
    ret = avformat_find_stream_info(m->fmt, NULL);
    if (ret < 0)
        return media_fail(r, FOVEA_ERR_CORRUPT, ret, "cannot read the stream information");
    return FOVEA_OK;
}

static int pick_stream(struct fovea_reader *r, media_reader *m, int want)
{
    if (want >= 0) {
        if ((unsigned)want >= m->fmt->nb_streams)
            return fv_reader_fail(r, FOVEA_ERR_INVALID_ARG,
                                  "no stream %d (the file has %u streams)", want,
                                  m->fmt->nb_streams);
        const enum AVMediaType type = m->fmt->streams[want]->codecpar->codec_type;
        if (type != AVMEDIA_TYPE_VIDEO) {
            const char *tn = av_get_media_type_string(type);
            return fv_reader_fail(r, FOVEA_ERR_INVALID_ARG, "stream %d is not video (it is %s)",
                                  want, tn ? tn : "unknown");
        }
        m->stream = want;
    } else {
        const int ret = av_find_best_stream(m->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
        if (ret == AVERROR_STREAM_NOT_FOUND || ret == AVERROR_DECODER_NOT_FOUND) {
            for (unsigned i = 0; i < m->fmt->nb_streams; i++)
                if (m->fmt->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO)
                    return fv_reader_fail(
                        r, FOVEA_ERR_UNSUPPORTED,
                        "unsupported codec: this FFmpeg has no decoder for %s (stream %u)",
                        avcodec_get_name(m->fmt->streams[i]->codecpar->codec_id), i);
            return fv_reader_fail(
                r, FOVEA_ERR_CORRUPT, "no video stream (the %s file holds %u other stream%s)",
                m->fmt->iformat->name, m->fmt->nb_streams, m->fmt->nb_streams == 1 ? "" : "s");
        }
        if (ret < 0)
            return media_fail(r, FOVEA_ERR_CORRUPT, ret, "cannot pick a video stream");
        m->stream = ret;
    }
    for (unsigned i = 0; i < m->fmt->nb_streams; i++)
        if ((int)i != m->stream)
            m->fmt->streams[i]->discard = AVDISCARD_ALL;
    return FOVEA_OK;
}

/* The GPU decoder where hwdec asks for it and it takes the stream: CUDA
 * refuses what it cannot do; AUTO tries only on a CUDA context and otherwise
 * decodes on the CPU, saying why in r->hwdec_reason. */
static int open_hw(struct fovea_reader *r, media_reader *m, fovea_hwdec hwdec)
{
    const media_hw_backend *hw = MEDIA_HW_BACKEND;
    const int cuda_ctx = m->ctx && fovea_context_backend(m->ctx) == FOVEA_BACKEND_CUDA;
    const enum AVCodecID id = m->fmt->streams[m->stream]->codecpar->codec_id;
    /* uncompressed video (cameras' raw formats, lavfi's frames): nothing to
     * decode, nothing to say under auto */
    const int raw = id == AV_CODEC_ID_RAWVIDEO || id == AV_CODEC_ID_WRAPPED_AVFRAME;
    if (hwdec == FOVEA_HWDEC_NONE || (hwdec == FOVEA_HWDEC_AUTO && (!cuda_ctx || raw)))
        return FOVEA_OK;
    char why[FOVEA_ERRLEN] = "";
    int st;
    if (!hw)
        st = fv_errbuf(why, sizeof(why), FOVEA_ERR_NO_DEVICE,
                       "NVDEC needs a build with CUDA (this fovea has none)");
    else if (!m->ctx)
        st = fv_errbuf(why, sizeof(why), FOVEA_ERR_NO_DEVICE,
                       "NVDEC needs a CUDA context (the reader was opened without one)");
    else if (!cuda_ctx)
        st = fv_errbuf(why, sizeof(why), FOVEA_ERR_NO_DEVICE,
                       "NVDEC needs a CUDA context (this one is cpu: --backend cuda)");
    else
        st = hw->check(m->ctx, m->fmt->streams[m->stream]->codecpar, why, sizeof(why));
    if (st >= 0) {
        st = hw->info.init(&m->hw_priv, m->ctx, m->dec);
        if (st < 0)
            snprintf(why, sizeof(why), "%s", fovea_last_error(m->ctx));
    }
    if (st >= 0) {
        m->hw = hw;
        r->hwdec = FOVEA_HWDEC_CUDA;
        return FOVEA_OK;
    }
    if (hwdec == FOVEA_HWDEC_CUDA)
        return fv_reader_fail(r, st, "--hwdec cuda: %s", why);
    snprintf(r->hwdec_reason, sizeof(r->hwdec_reason), "%s: decoding on the CPU", why);
    return FOVEA_OK;
}

static int open_decoder(struct fovea_reader *r, media_reader *m, fovea_hwdec hwdec)
{
    const AVStream *s = m->fmt->streams[m->stream];
    const AVCodec *codec = avcodec_find_decoder(s->codecpar->codec_id);
    if (!codec)
        return fv_reader_fail(r, FOVEA_ERR_UNSUPPORTED,
                              "unsupported codec: this FFmpeg has no decoder for %s",
                              avcodec_get_name(s->codecpar->codec_id));
    if (!(m->dec = avcodec_alloc_context3(codec)) || !(m->pkt = av_packet_alloc()) ||
        !(m->frame = av_frame_alloc()))
        return fv_reader_fail(r, FOVEA_ERR_NOMEM, "out of memory");
    int ret = avcodec_parameters_to_context(m->dec, s->codecpar);
    if (ret < 0)
        return media_fail(r, FOVEA_ERR_CORRUPT, ret, "bad codec parameters");
    m->dec->pkt_timebase = s->time_base;
    m->dec->max_pixels = (int64_t)FOVEA_MAX_DIM * FOVEA_MAX_DIM;
    FOVEA_TRY(open_hw(r, m, hwdec));
    m->backend = &media_backend_cpu;
    if (!m->hw && m->backend->open(m, m->dec) < 0)
        return fv_reader_fail(r, FOVEA_ERR_UNSUPPORTED, "the %s decoder backend cannot open",
                              m->backend->name);
    ret = avcodec_open2(m->dec, codec, NULL);
    if (ret < 0)
        return media_fail(r, FOVEA_ERR_UNSUPPORTED, ret, "cannot open the decoder");
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- decoding */

/* The next decoded frame into m->frame: 0, AVERROR_EOF, or an error with
 * *demux telling whether the demuxer (1) or the decoder (0) failed. */
static int decode_next(media_reader *m, int *demux)
{
    for (;;) {
        int ret = avcodec_receive_frame(m->dec, m->frame);
        if (ret != AVERROR(EAGAIN)) {
            *demux = 0;
            return ret;
        }
        if (m->demux_done) /* cannot happen after a NULL packet; be safe */
            return AVERROR_EOF;
        m->deadline = media_now() + MEDIA_DEVICE_TIMEOUT_S;
        ret = av_read_frame(m->fmt, m->pkt);
        if (ret == AVERROR_EOF) {
            m->demux_done = 1;
            ret = avcodec_send_packet(m->dec, NULL);
        } else if (ret < 0) {
            *demux = 1;
            return ret;
        } else if (m->pkt->stream_index != m->stream) {
            av_packet_unref(m->pkt);
            continue;
        } else {
            ret = avcodec_send_packet(m->dec, m->pkt);
            av_packet_unref(m->pkt);
        }
        if (ret < 0 && ret != AVERROR_EOF) {
            *demux = 0;
            return ret;
        }
    }
}

static int decode_fail(struct fovea_reader *r, media_reader *m, int ret, int demux)
{
    char what[160];
    if (m->decoded == 0)
        snprintf(what, sizeof(what), "frame 0: %s error before the first frame",
                 demux ? "read" : "decode");
    else
        snprintf(what, sizeof(what),
                 "frame %lld: %s error (stopped after the last good frame, %lld)",
                 (long long)m->decoded, demux ? "read" : "decode", (long long)m->decoded - 1);
    return media_fail(r, FOVEA_ERR_CORRUPT, ret, what);
}

static void fill_color(fovea_video_info *info, const AVFrame *fr, const AVCodecParameters *par)
{
    const enum AVColorRange range =
        fr->color_range != AVCOL_RANGE_UNSPECIFIED ? fr->color_range : par->color_range;
    const enum AVPixelFormat pf = fr->format;
    if (range == AVCOL_RANGE_JPEG || pf == AV_PIX_FMT_YUVJ420P || pf == AV_PIX_FMT_YUVJ422P ||
        pf == AV_PIX_FMT_YUVJ444P)
        info->color_range = FOVEA_COLOR_RANGE_FULL;
    else if (range == AVCOL_RANGE_MPEG)
        info->color_range = FOVEA_COLOR_RANGE_LIMITED;
    info->color_primaries =
        media_color_code(fr->color_primaries != AVCOL_PRI_UNSPECIFIED ? (int)fr->color_primaries
                                                                      : (int)par->color_primaries);
    info->color_transfer = media_color_code(
        fr->color_trc != AVCOL_TRC_UNSPECIFIED ? (int)fr->color_trc : (int)par->color_trc);
    info->color_matrix = media_color_code(
        fr->colorspace != AVCOL_SPC_UNSPECIFIED ? (int)fr->colorspace : (int)par->color_space);
}

/* The stream's rate as a fraction of ints (0/0 when unknown). */
static void fill_rate(fovea_video_info *info, const AVStream *s)
{
    AVRational q = s->avg_frame_rate;
    if (q.num <= 0 || q.den <= 0)
        q = s->r_frame_rate;
    if (q.num > 0 && q.den > 0) {
        info->fps_num = q.num;
        info->fps_den = q.den;
    }
}

static int fill_info(struct fovea_reader *r, media_reader *m)
{
    const AVStream *s = m->fmt->streams[m->stream];
    const AVFrame *fr = m->frame;
    fovea_video_info *info = &r->info;
    if (fr->width <= 0 || fr->height <= 0 || fr->width > FOVEA_MAX_DIM ||
        fr->height > FOVEA_MAX_DIM)
        return fv_reader_fail(r, FOVEA_ERR_UNSUPPORTED, "frame size %dx%d is out of range",
                              fr->width, fr->height);
    m->src_fmt = fr->format;
    info->width = fr->width;
    info->height = fr->height;
    if (m->hw) {
        m->sw_fmt = m->dec->sw_pix_fmt;
        info->fmt = m->hw->format(m->hw_priv, m->dec, fr);
        if (info->fmt == FOVEA_PIX_NONE) {
            const char *name = av_get_pix_fmt_name(m->dec->sw_pix_fmt);
            return fv_reader_fail(r, FOVEA_ERR_UNSUPPORTED,
                                  "--hwdec: NVDEC's frames of this %s stream have no fovea "
                                  "layout (--hwdec none decodes it on the CPU)",
                                  name ? name : "?");
        }
    } else
        info->fmt = media_fovea_fmt(m->src_fmt);
    if (info->fmt == FOVEA_PIX_NONE) {
        const char *name = av_get_pix_fmt_name(m->src_fmt);
        info->fmt = media_nearest_fmt(m->src_fmt);
        if (info->fmt == FOVEA_PIX_NONE)
            return fv_reader_fail(r, FOVEA_ERR_UNSUPPORTED, "pixel format %s is not supported",
                                  name ? name : "?");
        snprintf(info->converted_from, sizeof(info->converted_from), "%s", name ? name : "?");
        m->sws = sws_getContext(
            fr->width, fr->height, m->src_fmt, fr->width, fr->height, media_av_fmt(info->fmt),
            SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT | SWS_FULL_CHR_H_INT, NULL, NULL, NULL);
        if (!m->sws)
            return fv_reader_fail(r, FOVEA_ERR_UNSUPPORTED, "cannot convert %s to %s",
                                  info->converted_from, fovea_pixfmt_name(info->fmt));
    }
    fill_rate(info, s);
    if (s->sample_aspect_ratio.num > 0 && s->sample_aspect_ratio.den > 0) {
        info->sar_num = s->sample_aspect_ratio.num;
        info->sar_den = s->sample_aspect_ratio.den;
    } else if (fr->sample_aspect_ratio.num > 0 && fr->sample_aspect_ratio.den > 0) {
        info->sar_num = fr->sample_aspect_ratio.num;
        info->sar_den = fr->sample_aspect_ratio.den;
    }
    switch (s->codecpar->field_order) {
    case AV_FIELD_PROGRESSIVE: info->interlace = 'p'; break;
    case AV_FIELD_TT: info->interlace = 't'; break;
    case AV_FIELD_BB: info->interlace = 'b'; break;
    default: break;
    }
    info->frame_count = s->nb_frames > 0 && !m->device ? s->nb_frames : -1;
    if (s->start_time != AV_NOPTS_VALUE)
        info->start_time_us = av_rescale_q(s->start_time, s->time_base, AV_TIME_BASE_Q);
    fill_color(info, fr, s->codecpar);
    return FOVEA_OK;
}

static void media_close(struct fovea_reader *r)
{
    media_reader *m = r->priv;
    if (!m)
        return;
    sws_freeContext(m->sws);
    av_frame_free(&m->frame);
    av_packet_free(&m->pkt);
    avcodec_free_context(&m->dec);
    if (m->hw)
        m->hw->info.close(&m->hw_priv); /* after the decoder: it holds the device */
    avformat_close_input(&m->fmt);
    if (m->avio) {
        av_freep(&m->avio->buffer);
        avio_context_free(&m->avio);
    }
    free(m);
    r->priv = NULL;
}

static int media_open(struct fovea_reader *r, const fovea_reader_settings *opt)
{
    media_init();
    media_log_clear();
    media_reader *m = calloc(1, sizeof(*m));
    if (!m)
        return fv_reader_fail(r, FOVEA_ERR_NOMEM, "out of memory");
    r->priv = m;
    m->ctx = r->ctx;
    m->threads = opt && opt->threads > 0 ? opt->threads : 0;
    int st = open_demuxer(r, m, opt);
    if (st >= 0)
        st = pick_stream(r, m, opt ? opt->stream : -1);
    if (st >= 0)
        st = open_decoder(r, m, opt ? opt->hwdec : FOVEA_HWDEC_AUTO);
    if (st >= 0) {
        /* the first frame tells the size, format and colors exactly */
        int demux = 0;
        const int ret = decode_next(m, &demux);
        if (ret == AVERROR_EOF)
            st = fv_reader_fail(r, FOVEA_ERR_CORRUPT, "the video stream holds no frame");
        else if (ret < 0)
            st = decode_fail(r, m, ret, demux);
        else
            st = fill_info(r, m);
        m->primed = st >= 0;
    }
    if (st < 0)
        media_close(r);
    return st;
}

static int media_read(struct fovea_reader *r, fovea_frame *f)
{
    media_reader *m = r->priv;
    media_log_clear();
    if (m->primed) {
        m->primed = 0;
    } else {
        av_frame_unref(m->frame);
        int demux = 0;
        const int ret = decode_next(m, &demux);
        /* (no check against the container's frame count: an edit list makes
         * the decoder drop frames the count includes; a cut file shows as a
         * read or decode error) */
        if (ret == AVERROR_EOF)
            return FOVEA_EOF;
        if (ret < 0)
            return decode_fail(r, m, ret, demux);
    }
    const AVFrame *fr = m->frame;
    if (fr->width != r->info.width || fr->height != r->info.height || fr->format != m->src_fmt ||
        (m->hw && m->dec->sw_pix_fmt != m->sw_fmt)) {
        const char *name = av_get_pix_fmt_name(m->hw ? m->dec->sw_pix_fmt : fr->format);
        return fv_reader_fail(r, FOVEA_ERR_UNSUPPORTED,
                              "frame %lld: the stream changes to %dx%d %s (it began %dx%d): not "
                              "supported",
                              (long long)m->decoded, fr->width, fr->height, name ? name : "?",
                              r->info.width, r->info.height);
    }
    if (m->hw) {
        const int st = m->hw->deliver(m->hw_priv, fr, f);
        if (st < 0)
            return fv_reader_fail(r, st, "frame %lld: NVDEC: %s", (long long)m->decoded,
                                  fovea_last_error(m->ctx));
    } else {
        if (f->mem == FOVEA_MEM_DEVICE)
            return fv_reader_fail(r, FOVEA_ERR_INVALID_ARG, "a CPU decoder fills host frames");
        m->backend->deliver(m, f);
    }
    m->decoded++;
    return FOVEA_OK;
}

const struct fv_reader_ops fv_media_reader_ops = {"media", media_open, media_read, media_close};
