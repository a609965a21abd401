/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* NVDEC for the media reader: FFmpeg's CUDA hwaccel on the fovea context's
 * own CUDA context (one context: FFmpeg's hardware device is made on it, not
 * created) and on a stream of the reader's own, so that two readers of one
 * context (ref and dis, cameras) and the context's consumers do not queue
 * behind each other; NVDEC's NV12/P010/P016/YUV444 surfaces are turned into
 * fovea's planar device frames by media_nv.cu on that stream and handed to
 * the context's stream by an event. Which streams it takes is asked of the
 * driver (nvdec.h). */
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
#include <libavutil/pixdesc.h>

#include "core/cuda_util.h"
#include "media_nv_cuda.h"
#include "media_read.h"
#include "nvdec.h"

typedef struct cuda_dec {
    fovea_context *ctx;
    AVBufferRef *device;  /* FFmpeg's CUDA device on ctx's context and this stream */
    cudaStream_t stream;  /* the reader's: NVDEC's mapping, the conversion, a download */
    cudaEvent_t released; /* the context stream's work when a read began */
    cudaEvent_t ready;    /* a device destination's conversion */
    int have_stream, have_released, have_ready;
    fovea_frame stage; /* a device frame for host destinations (a download) */
    int semi_planar;   /* the surfaces' layout (from the frames' sw_format) */
    int bytes;
    int shift;
} cuda_dec;

static int nvdec_codec(enum AVCodecID id)
{
    switch (id) {
    case AV_CODEC_ID_H264: return NVDEC_H264;
    case AV_CODEC_ID_HEVC: return NVDEC_HEVC;
    case AV_CODEC_ID_VP9: return NVDEC_VP9;
    case AV_CODEC_ID_AV1: return NVDEC_AV1;
    case AV_CODEC_ID_VP8: return NVDEC_VP8;
    case AV_CODEC_ID_MPEG2VIDEO: return NVDEC_MPEG2;
    case AV_CODEC_ID_MPEG1VIDEO: return NVDEC_MPEG1;
    case AV_CODEC_ID_MPEG4: return NVDEC_MPEG4;
    case AV_CODEC_ID_VC1: return NVDEC_VC1;
    default: return -1;
    }
}

/* The stream's chroma format (400, 420, 422, 444) and depth from the format
 * the stream information found (the CPU decoder's), else from the profile. */
static int stream_layout(const AVCodecParameters *par, int *chroma, int *depth)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get((enum AVPixelFormat)par->format);
    if (d && !(d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_HWACCEL))) {
        *depth = d->comp[0].depth;
        if (d->nb_components < 3)
            *chroma = 400;
        else if (d->log2_chroma_w == 1 && d->log2_chroma_h == 1)
            *chroma = 420;
        else if (d->log2_chroma_w == 1 && d->log2_chroma_h == 0)
            *chroma = 422;
        else if (d->log2_chroma_w == 0 && d->log2_chroma_h == 0)
            *chroma = 444;
        else
            return -1;
        return 0;
    }
    return -1;
}

static int cuda_check(fovea_context *ctx, const AVCodecParameters *par, char *why, size_t n)
{
    const char *name = avcodec_get_name(par->codec_id);
    const int codec = nvdec_codec(par->codec_id);
    if (codec < 0)
        return fv_errbuf(why, n, FOVEA_ERR_UNSUPPORTED, "NVDEC does not decode %s", name);
    int chroma = 0, depth = 0;
    if (stream_layout(par, &chroma, &depth) < 0)
        return fv_errbuf(why, n, FOVEA_ERR_UNSUPPORTED,
                         "the %s stream's pixel format is not known before decoding", name);
    /* NVDEC gives gray streams as 4:2:0 and FFmpeg 5.1 maps no 4:2:2 surface */
    if (chroma != 420 && chroma != 444)
        return fv_errbuf(why, n, FOVEA_ERR_UNSUPPORTED,
                         "fovea takes only 4:2:0 and 4:4:4 from NVDEC (this %s stream is %d)", name,
                         chroma);
    fovea_hwdec_cap cap;
    const int st = nvdec_query(ctx, codec, chroma, depth, &cap, why, n);
    if (st < 0)
        return st;
    if (st == 0)
        return fv_errbuf(why, n, FOVEA_ERR_UNSUPPORTED,
                         "NVDEC cannot decode %s %d-bit %d on this GPU", name, depth, chroma);
    if (par->width > cap.max_width || par->height > cap.max_height || par->width < cap.min_width ||
        par->height < cap.min_height)
        return fv_errbuf(why, n, FOVEA_ERR_UNSUPPORTED,
                         "NVDEC decodes %s %d-bit from %dx%d to %dx%d on this GPU (the stream "
                         "is %dx%d)",
                         name, depth, cap.min_width, cap.min_height, cap.max_width, cap.max_height,
                         par->width, par->height);
    return FOVEA_OK;
}

/* FFmpeg offers the hwaccel format first when the hwaccel can take the
 * stream; a software format is refused (the decode fails with FFmpeg's
 * reason instead of silently leaving the GPU). */
static enum AVPixelFormat cuda_get_format(AVCodecContext *dec, const enum AVPixelFormat *fmts)
{
    (void)dec;
    for (const enum AVPixelFormat *p = fmts; *p != AV_PIX_FMT_NONE; p++)
        if (*p == AV_PIX_FMT_CUDA)
            return *p;
    return AV_PIX_FMT_NONE;
}

static void cuda_close(void **priv)
{
    cuda_dec *d = *priv;
    if (!d)
        return;
    fovea_frame_free(d->ctx, &d->stage);
    av_buffer_unref(&d->device);
    /* (work still queued completes first: the runtime releases them after it) */
    if (d->have_ready)
        cudaEventDestroy(d->ready);
    if (d->have_released)
        cudaEventDestroy(d->released);
    if (d->have_stream)
        cudaStreamDestroy(d->stream);
    free(d);
    *priv = NULL;
}

static int cuda_init(void **priv, fovea_context *ctx, const void *params)
{
    AVCodecContext *dec = (AVCodecContext *)params;
    char why[FOVEA_ERRLEN];
    cuda_dec *d = calloc(1, sizeof(*d));
    if (!d)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    d->ctx = ctx;
    *priv = d;
    void *cu = NULL;
    int st = nvdec_cu_context(ctx, &cu, why, sizeof(why));
    if (st < 0) {
        cuda_close(priv);
        return fv_ctx_error(ctx, st, "%s", why);
    }
    st = FOVEA_CUDA(ctx, cudaSetDevice(ctx->device));
    if (st == FOVEA_OK)
        st = FOVEA_CUDA(ctx, cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking));
    d->have_stream = st == FOVEA_OK;
    if (st == FOVEA_OK)
        st = FOVEA_CUDA(ctx, cudaEventCreateWithFlags(&d->released, cudaEventDisableTiming));
    d->have_released = d->have_stream && st == FOVEA_OK;
    if (st == FOVEA_OK)
        st = FOVEA_CUDA(ctx, cudaEventCreateWithFlags(&d->ready, cudaEventDisableTiming));
    d->have_ready = d->have_released && st == FOVEA_OK;
    if (st < 0) {
        cuda_close(priv);
        return st;
    }
    d->device = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
    if (!d->device) {
        cuda_close(priv);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    }
    AVHWDeviceContext *hd = (AVHWDeviceContext *)d->device->data;
    AVCUDADeviceContext *hc = hd->hwctx;
    /* fovea's context and the reader's stream: FFmpeg neither creates nor
     * destroys them */
    hc->cuda_ctx = (CUcontext)cu;
    hc->stream = (CUstream)d->stream;
    const int ret = av_hwdevice_ctx_init(d->device);
    if (ret < 0) {
        av_strerror(ret, why, sizeof(why));
        cuda_close(priv);
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "FFmpeg's CUDA device cannot start on this context: %s", why);
    }
    dec->hw_device_ctx = av_buffer_ref(d->device);
    if (!dec->hw_device_ctx) {
        cuda_close(priv);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    }
    dec->get_format = cuda_get_format;
    /* NVDEC decodes asynchronously: FFmpeg's threads would only add copies */
    dec->thread_count = 1;
    return FOVEA_OK;
}

static fovea_pixfmt cuda_format(void *priv, const AVCodecContext *dec, const AVFrame *fr)
{
    cuda_dec *d = priv;
    if (fr->format != AV_PIX_FMT_CUDA || !fr->hw_frames_ctx)
        return FOVEA_PIX_NONE;
    const AVHWFramesContext *hf = (const AVHWFramesContext *)fr->hw_frames_ctx->data;
    const AVPixFmtDescriptor *sw = av_pix_fmt_desc_get(dec->sw_pix_fmt);
    if (!sw)
        return FOVEA_PIX_NONE;
    const int depth = sw->comp[0].depth;
    switch (hf->sw_format) {
    case AV_PIX_FMT_NV12: d->semi_planar = 1, d->bytes = 1; break;
    case AV_PIX_FMT_P010:
    case AV_PIX_FMT_P016: d->semi_planar = 1, d->bytes = 2; break;
    case AV_PIX_FMT_YUV444P: d->semi_planar = 0, d->bytes = 1; break;
    case AV_PIX_FMT_YUV444P16: d->semi_planar = 0, d->bytes = 2; break;
    default: return FOVEA_PIX_NONE;
    }
    if ((d->bytes == 1) != (depth == 8) || depth > 16)
        return FOVEA_PIX_NONE;
    d->shift = d->bytes == 2 ? 16 - depth : 0; /* NVDEC's samples are MSB-aligned */
    return fovea_pixfmt_yuv(d->semi_planar ? 420 : 444, depth);
}

/* A host destination: the stage's planes downloaded on the reader's stream,
 * waited for here (the context's stream is not waited for). */
static int download(cuda_dec *d, fovea_frame *f)
{
    const fovea_pixfmt_desc *desc = fovea_pixfmt_get_desc(f->fmt);
    for (int p = 0; p < desc->planes; p++)
        FOVEA_CUDA_TRY(d->ctx, cudaMemcpy2DAsync(f->data[p], (size_t)f->stride[p], d->stage.data[p],
                                                 (size_t)d->stage.stride[p],
                                                 fovea_plane_row_bytes(f->fmt, f->width, p),
                                                 (size_t)fovea_plane_height(f->fmt, f->height, p),
                                                 cudaMemcpyDeviceToHost, d->stream));
    FOVEA_CUDA_TRY(d->ctx, cudaStreamSynchronize(d->stream));
    return FOVEA_OK;
}

static int cuda_deliver(void *priv, const AVFrame *fr, fovea_frame *f)
{
    cuda_dec *d = priv;
    fovea_context *ctx = d->ctx;
    /* the reader may run on a thread of its own (the CLI's read-ahead) */
    FOVEA_CUDA_TRY(ctx, cudaSetDevice(ctx->device));
    fovea_frame *dst = f;
    if (f->mem != FOVEA_MEM_DEVICE) {
        if (!d->stage.buf)
            FOVEA_TRY(
                fovea_frame_alloc(ctx, &d->stage, f->width, f->height, f->fmt, FOVEA_MEM_DEVICE));
        dst = &d->stage;
    } else {
        /* a device destination handed back to the reader may still be read
         * by work its consumer queued on the context's stream before: the
         * conversion waits for what that stream holds now */
        FOVEA_CUDA_TRY(ctx, cudaEventRecord(d->released, fv_ctx_stream(ctx)));
        FOVEA_CUDA_TRY(ctx, cudaStreamWaitEvent(d->stream, d->released, 0));
    }
    /* on the stream NVDEC mapped the surface on: the conversion follows it */
    const media_nv_surface s = {{fr->data[0], fr->data[1], fr->data[2]},
                                {fr->linesize[0], fr->linesize[1], fr->linesize[2]},
                                d->semi_planar,
                                d->bytes,
                                d->shift};
    FOVEA_CUDA_TRY(
        ctx, media_nv_to_planar(&s, dst->data, dst->stride, fr->width, fr->height, d->stream));
    if (dst != f)
        return download(d, f);
    /* the hand-off: work queued on the context's stream from now on starts
     * after the conversion (no host wait) */
    FOVEA_CUDA_TRY(ctx, cudaEventRecord(d->ready, d->stream));
    FOVEA_CUDA_TRY(ctx, cudaStreamWaitEvent(fv_ctx_stream(ctx), d->ready, 0));
    return FOVEA_OK;
}

const media_hw_backend media_backend_cuda = {
    {"cuda", FOVEA_BACKEND_CUDA, BACKEND_READS_DEVICE | BACKEND_ASYNC, cuda_init, cuda_close},
    cuda_check,
    cuda_format,
    cuda_deliver};
