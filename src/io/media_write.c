/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The media writer: encodes through libavcodec and muxes through libavformat
 * (.mp4, .mov, .mkv, .webm) into the writer's FILE (fovea_outfile: a temporary
 * renamed on success). The encoder opens at the first frame, after
 * fovea_writer_set_encoder. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "core/core.h"
#include "io_internal.h"
#include "media.h"

#define MEDIA_AVIO_BUFFER 65536

typedef struct media_writer {
    const char *muxer;         /* "mp4", "mov", "matroska", "webm" */
    const char *default_codec; /* the container's */
    AVFormatContext *oc;
    AVIOContext *avio;
    AVCodecContext *enc;
    AVStream *st;
    AVPacket *pkt;
    AVFrame *frame; /* the converted frame (sws) or a wrapper of the caller's */
    struct SwsContext *sws;
    int started;
} media_writer;

static int wfail(struct fovea_writer *w, int status, int averr, const char *what)
{
    char why[512];
    media_reason(averr, why, sizeof(why));
    return fv_writer_fail(w, status, "%s: %s", what, why);
}

static int ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), k = strlen(suffix);
    if (k > n)
        return 0;
    for (size_t i = 0; i < k; i++) {
        char c = s[n - k + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != suffix[i])
            return 0;
    }
    return 1;
}

static int media_wopen(struct fovea_writer *w)
{
    media_init();
    const char *muxer = NULL, *codec = NULL;
    if (ends_with(w->path, ".mp4") || ends_with(w->path, ".m4v"))
        muxer = "mp4", codec = "libx264";
    else if (ends_with(w->path, ".mov"))
        muxer = "mov", codec = "libx264";
    else if (ends_with(w->path, ".mkv"))
        muxer = "matroska", codec = "ffv1";
    else if (ends_with(w->path, ".webm"))
        muxer = "webm", codec = "libvpx-vp9";
    if (!muxer)
        return fv_writer_fail(
            w, FOVEA_ERR_UNSUPPORTED,
            "fovea writes media as .mp4, .mov, .mkv or .webm: name the output so");
    media_writer *m = calloc(1, sizeof(*m));
    if (!m)
        return fv_writer_fail(w, FOVEA_ERR_NOMEM, "out of memory");
    m->muxer = muxer;
    m->default_codec = codec;
    w->priv = m;
    return FOVEA_OK;
}

static int file_write(void *opaque, uint8_t *buf, int size)
{
    FILE *fp = opaque;
    return fwrite(buf, 1, (size_t)size, fp) == (size_t)size ? size : AVERROR(errno ? errno : EIO);
}

static int64_t file_seek(void *opaque, int64_t offset, int whence)
{
    FILE *fp = opaque;
    whence &= ~AVSEEK_FORCE;
    if (whence == AVSEEK_SIZE)
        return AVERROR(ENOSYS);
    if (fseeko(fp, (off_t)offset, whence) != 0)
        return AVERROR(errno ? errno : EIO);
    return (int64_t)ftello(fp);
}

static int file_seekable(FILE *fp)
{
    struct stat st;
    return fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && ftello(fp) >= 0;
}

static int takes_crf(const AVCodecContext *enc)
{
    return enc->priv_data && av_opt_find(enc->priv_data, "crf", NULL, 0, 0) != NULL;
}

/* The encoder's input format: the frames' own when it takes them, else the
 * nearest it takes (converted with libswscale). */
static int codec_takes(const AVCodec *codec, enum AVPixelFormat f)
{
    for (const enum AVPixelFormat *p = codec->pix_fmts; p && *p != AV_PIX_FMT_NONE; p++)
        if (*p == f)
            return 1;
    return 0;
}

/* The encoder's input format. H.264/HEVC in mp4/mov is made 4:2:0 (what
 * players decode), at the frames' depth (8 or 10 bits) when the encoder takes
 * it; otherwise the frames' own format when the encoder takes it, else the
 * nearest it takes (converted with libswscale). --encoder-option
 * pixel_format=NAME overrides (applied when the encoder opens). */
static enum AVPixelFormat encoder_fmt(const media_writer *m, const AVCodec *codec,
                                      enum AVPixelFormat src, int bit_depth)
{
    if (!codec->pix_fmts)
        return src;
    const int mp4 = strcmp(m->muxer, "mp4") == 0 || strcmp(m->muxer, "mov") == 0;
    if (mp4 && (codec->id == AV_CODEC_ID_H264 || codec->id == AV_CODEC_ID_HEVC)) {
        const enum AVPixelFormat want = bit_depth > 8 ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P;
        if (codec_takes(codec, want))
            return want;
    }
    if (codec_takes(codec, src))
        return src;
    return avcodec_find_best_pix_fmt_of_list(codec->pix_fmts, src, 0, NULL);
}

static void set_color(AVCodecContext *enc, const fovea_video_info *info)
{
    if (info->color_range == FOVEA_COLOR_RANGE_FULL)
        enc->color_range = AVCOL_RANGE_JPEG;
    else if (info->color_range == FOVEA_COLOR_RANGE_LIMITED)
        enc->color_range = AVCOL_RANGE_MPEG;
    if (info->color_primaries > 0)
        enc->color_primaries = (enum AVColorPrimaries)info->color_primaries;
    if (info->color_transfer > 0)
        enc->color_trc = (enum AVColorTransferCharacteristic)info->color_transfer;
    if (info->color_matrix > 0)
        enc->colorspace = (enum AVColorSpace)info->color_matrix;
}

static int encoder_options(struct fovea_writer *w, AVDictionary **dict)
{
    for (size_t i = 0; w->enc_options && w->enc_options[i]; i++) {
        const char *o = w->enc_options[i], *eq = strchr(o, '=');
        if (!eq || eq == o)
            return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG,
                                  "encoder option '%s': expected KEY=VALUE", o);
        char key[128];
        const size_t klen = (size_t)(eq - o);
        if (klen >= sizeof(key))
            return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "encoder option '%s': key too long", o);
        memcpy(key, o, klen);
        key[klen] = '\0';
        if (av_dict_set(dict, key, eq + 1, 0) < 0)
            return fv_writer_fail(w, FOVEA_ERR_NOMEM, "out of memory");
    }
    return FOVEA_OK;
}

static int open_encoder(struct fovea_writer *w, media_writer *m, const AVCodec *codec)
{
    const fovea_video_info *info = &w->info;
    AVCodecContext *enc = m->enc;
    const enum AVPixelFormat src = media_av_fmt(info->fmt);
    enc->width = info->width;
    enc->height = info->height;
    enc->pix_fmt = encoder_fmt(m, codec, src, fovea_pixfmt_get_desc(info->fmt)->bit_depth);
    const int has_rate = info->fps_num > 0 && info->fps_den > 0;
    enc->framerate = has_rate ? (AVRational){info->fps_num, info->fps_den} : (AVRational){25, 1};
    enc->time_base = av_inv_q(enc->framerate);
    if (info->sar_num > 0 && info->sar_den > 0)
        enc->sample_aspect_ratio = (AVRational){info->sar_num, info->sar_den};
    enc->thread_count = 0;
    set_color(enc, info);
    if (m->oc->oformat->flags & AVFMT_GLOBALHEADER)
        enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    const int crf_ok = takes_crf(enc);
    if (w->enc_crf >= 0 && !crf_ok)
        return fv_writer_fail(w, FOVEA_ERR_UNSUPPORTED, "encoder %s takes no crf", codec->name);
    if (crf_ok) {
        const int vpx = strstr(codec->name, "vpx") != NULL;
        const int crf = w->enc_crf >= 0 ? w->enc_crf : vpx ? 31 : 18;
        av_opt_set_int(enc->priv_data, "crf", crf, 0);
        enc->bit_rate = 0; /* constant quality, no bitrate target */
        if (vpx) {
            av_opt_set(enc->priv_data, "deadline", "good", 0);
            av_opt_set_int(enc->priv_data, "cpu-used", 4, 0);
            av_opt_set_int(enc->priv_data, "row-mt", 1, 0);
        }
    }
    AVDictionary *dict = NULL;
    /* libx265 prints to stderr on its own (not through FFmpeg's log) */
    if (strcmp(codec->name, "libx265") == 0)
        av_dict_set(&dict, "x265-params", "log-level=none", 0);
    int st = encoder_options(w, &dict);
    if (st < 0) {
        av_dict_free(&dict);
        return st;
    }
    int ret = avcodec_open2(enc, codec, &dict);
    const AVDictionaryEntry *left = av_dict_get(dict, "", NULL, AV_DICT_IGNORE_SUFFIX);
    if (ret >= 0 && left)
        st = fv_writer_fail(w, FOVEA_ERR_UNSUPPORTED,
                            "encoder option '%s' is not an option of the %s encoder", left->key,
                            codec->name);
    av_dict_free(&dict);
    if (ret < 0)
        return wfail(w, FOVEA_ERR_UNSUPPORTED, ret, "cannot open the encoder");
    if (st < 0)
        return st;
    if (enc->pix_fmt != src) {
        m->sws = sws_getContext(enc->width, enc->height, src, enc->width, enc->height, enc->pix_fmt,
                                SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT | SWS_FULL_CHR_H_INT,
                                NULL, NULL, NULL);
        m->frame->format = enc->pix_fmt;
        m->frame->width = enc->width;
        m->frame->height = enc->height;
        if (!m->sws || av_frame_get_buffer(m->frame, 0) < 0)
            return fv_writer_fail(w, FOVEA_ERR_UNSUPPORTED, "cannot convert %s to %s for %s",
                                  fovea_pixfmt_name(info->fmt), av_get_pix_fmt_name(enc->pix_fmt),
                                  codec->name);
    }
    return FOVEA_OK;
}

static int open_muxer(struct fovea_writer *w, media_writer *m)
{
    uint8_t *buf = av_malloc(MEDIA_AVIO_BUFFER);
    const int seekable = file_seekable(w->fp);
    if (!buf || !(m->avio = avio_alloc_context(buf, MEDIA_AVIO_BUFFER, 1, w->fp, NULL, file_write,
                                               seekable ? file_seek : NULL))) {
        av_free(buf);
        return fv_writer_fail(w, FOVEA_ERR_NOMEM, "out of memory");
    }
    m->oc->pb = m->avio;
    m->oc->flags |= AVFMT_FLAG_CUSTOM_IO;
    AVDictionary *mux = NULL;
    /* a pipe or device cannot be rewound to write the index: fragment */
    if (!seekable && (strcmp(m->muxer, "mp4") == 0 || strcmp(m->muxer, "mov") == 0))
        av_dict_set(&mux, "movflags", "frag_keyframe+empty_moov", 0);
    const int ret = avformat_write_header(m->oc, &mux);
    av_dict_free(&mux);
    return ret < 0 ? wfail(w, FOVEA_ERR_IO, ret, "cannot write the header") : FOVEA_OK;
}

static int media_start(struct fovea_writer *w, media_writer *m)
{
    m->started = 1;
    const char *name = w->enc_codec ? w->enc_codec : m->default_codec;
    const AVCodec *codec = avcodec_find_encoder_by_name(name);
    if (!codec)
        return fv_writer_fail(w, FOVEA_ERR_UNSUPPORTED, "this FFmpeg has no encoder named %s",
                              name);
    if (codec->type != AVMEDIA_TYPE_VIDEO)
        return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "%s is not a video encoder", name);
    int ret = avformat_alloc_output_context2(&m->oc, NULL, m->muxer, NULL);
    if (ret < 0)
        return wfail(w, FOVEA_ERR_UNSUPPORTED, ret, "cannot make the muxer");
    if (avformat_query_codec(m->oc->oformat, codec->id, FF_COMPLIANCE_NORMAL) == 0)
        return fv_writer_fail(w, FOVEA_ERR_UNSUPPORTED, "the %s container cannot hold %s", m->muxer,
                              codec->name);
    if (!(m->enc = avcodec_alloc_context3(codec)) || !(m->pkt = av_packet_alloc()) ||
        !(m->frame = av_frame_alloc()) || !(m->st = avformat_new_stream(m->oc, NULL)))
        return fv_writer_fail(w, FOVEA_ERR_NOMEM, "out of memory");
    FOVEA_TRY(open_encoder(w, m, codec));
    ret = avcodec_parameters_from_context(m->st->codecpar, m->enc);
    if (ret < 0)
        return wfail(w, FOVEA_ERR_INTERNAL, ret, "cannot describe the stream");
    m->st->time_base = m->enc->time_base;
    m->st->avg_frame_rate = m->enc->framerate;
    return open_muxer(w, m);
}

/* Send frame (NULL to drain) and mux what the encoder gives back. */
static int encode(struct fovea_writer *w, media_writer *m, const AVFrame *frame)
{
    int ret = avcodec_send_frame(m->enc, frame);
    if (ret < 0)
        return wfail(w, FOVEA_ERR_IO, ret, "encoding failed");
    for (;;) {
        ret = avcodec_receive_packet(m->enc, m->pkt);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
            return FOVEA_OK;
        if (ret < 0)
            return wfail(w, FOVEA_ERR_IO, ret, "encoding failed");
        av_packet_rescale_ts(m->pkt, m->enc->time_base, m->st->time_base);
        m->pkt->stream_index = m->st->index;
        ret = av_interleaved_write_frame(m->oc, m->pkt);
        if (ret < 0)
            return wfail(w, FOVEA_ERR_IO, ret, "writing failed");
    }
}

static int media_write(struct fovea_writer *w, FILE *fp, const fovea_frame *f)
{
    (void)fp;
    media_writer *m = w->priv;
    media_log_clear();
    if (!m->started)
        FOVEA_TRY(media_start(w, m));
    else if (!m->enc || !m->avio)
        return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "the encoder failed to open");
    AVFrame *fr = m->frame;
    if (m->sws) {
        int ret = av_frame_make_writable(fr);
        if (ret < 0)
            return wfail(w, FOVEA_ERR_NOMEM, ret, "cannot convert the frame");
        int stride[4] = {0};
        for (int p = 0; p < 4; p++)
            stride[p] = (int)f->stride[p];
        sws_scale(m->sws, (const uint8_t *const *)f->data, stride, 0, f->height, fr->data,
                  fr->linesize);
    } else {
        /* wrap the caller's planes; the encoder copies what it keeps */
        av_frame_unref(fr);
        fr->format = m->enc->pix_fmt;
        fr->width = f->width;
        fr->height = f->height;
        for (int p = 0; p < 4; p++) {
            fr->data[p] = f->data[p];
            fr->linesize[p] = (int)f->stride[p];
        }
    }
    fr->pts = w->frames_written;
    int st = encode(w, m, fr);
    if (!m->sws)
        for (int p = 0; p < 4; p++)
            fr->data[p] = NULL;
    return st;
}

static int media_finish(struct fovea_writer *w)
{
    media_writer *m = w->priv;
    media_log_clear();
    if (!m->started)
        return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "no frame to write");
    if (!m->enc || !m->avio)
        return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "the encoder failed to open");
    FOVEA_TRY(encode(w, m, NULL));
    int ret = av_write_trailer(m->oc);
    if (ret < 0)
        return wfail(w, FOVEA_ERR_IO, ret, "cannot write the trailer");
    avio_flush(m->avio);
    if (m->avio->error < 0)
        return wfail(w, FOVEA_ERR_IO, m->avio->error, "writing failed");
    return FOVEA_OK;
}

static int media_wclose(struct fovea_writer *w)
{
    media_writer *m = w->priv;
    if (!m)
        return FOVEA_OK;
    sws_freeContext(m->sws);
    av_frame_free(&m->frame);
    av_packet_free(&m->pkt);
    avcodec_free_context(&m->enc);
    avformat_free_context(m->oc);
    if (m->avio) {
        av_freep(&m->avio->buffer);
        avio_context_free(&m->avio);
    }
    free(m);
    w->priv = NULL;
    return FOVEA_OK;
}

const struct fv_writer_ops fv_media_writer_ops = {
    "media", 0, media_wopen, media_write, media_wclose, media_finish};
