/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea I/O: readers and writers for y4m, raw .yuv, PNM (P5/P6), PNG and, in
 * builds with FFmpeg's libraries, media (mp4, mkv, webm, mov, ..., devices).
 * One generic handle; the container is chosen from the file name or forced. */
#ifndef FOVEA_IO_H
#define FOVEA_IO_H

#include <stdio.h>

#include "fovea/fovea.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fovea_container {
    FOVEA_CONTAINER_AUTO = 0, /**< from the extension; "-" means y4m */
    FOVEA_CONTAINER_Y4M,
    FOVEA_CONTAINER_YUV,  /**< headerless planar frames; needs width/height/pixfmt */
    FOVEA_CONTAINER_PNM,  /**< P5 (gray) / P6 (RGB), 8 or 16 bit; one image per file */
    FOVEA_CONTAINER_PNG,  /**< one image per file */
    FOVEA_CONTAINER_MEDIA /**< what FFmpeg's libraries demux and decode (mp4, mkv, webm,
                               mov, ts, avi, ...; devices), encode and mux (.mp4, .mkv,
                               .webm, .mov); builds without FFmpeg refuse it with
                               FOVEA_ERR_UNSUPPORTED (see fovea_media_version) */
} fovea_container;

/** Size of fovea_video_info's extra_tags, the terminating NUL included. */
#define FOVEA_Y4M_EXTRA_TAGS 256

/** Stream properties. Readers fill these; writers take them. */
typedef struct fovea_video_info {
    int width, height;
    fovea_pixfmt fmt;
    int fps_num, fps_den; /**< 0/0 when unknown */
    int sar_num, sar_den; /**< pixel aspect; 0/0 when unknown */
    char interlace;       /**< y4m 'p','t','b','m', or '?' unknown */
    char chroma_tag[16];  /**< y4m C tag as read (e.g. "420jpeg"), "" if none */
    int64_t frame_count;  /**< frames in the stream when known (files), else -1 */
    int color_range;      /**< y4m XCOLORRANGE: FOVEA_COLOR_RANGE_* (read, and written
                                   when known) */
    char extra_tags[FOVEA_Y4M_EXTRA_TAGS]; /**< y4m X tags (extensions, such as ffmpeg's
                                   XYSCSS=420JPEG) other than XCOLORRANGE, as read, in
                                   order, separated by one space; "" if none. A tag that
                                   does not fit whole, or holds a control byte, is
                                   dropped (never cut). The y4m
                                   writer writes them back after the C tag (an XYSCSS
                                   naming another chroma format than the frames' is
                                   left out); each must start with X and hold no
                                   control byte, else fovea_writer_open fails. */
    /* Color description, as ITU-T H.273 code points (those of FFmpeg's
     * AVColorPrimaries, AVColorTransferCharacteristic and AVColorSpace), with 0
     * for "not known" (H.273's "unspecified", 2, is read as 0 too). Media
     * readers fill them from the stream; media writers tag the output with the
     * known ones; the other containers leave them 0. */
    int color_primaries;     /**< e.g. 1 BT.709, 5 BT.601 625, 6 BT.601 525, 9 BT.2020 */
    int color_transfer;      /**< e.g. 1 BT.709, 13 sRGB, 16 PQ, 18 HLG */
    int color_matrix;        /**< e.g. 1 BT.709, 5/6 BT.601, 9 BT.2020 NCL (0 for RGB) */
    int64_t start_time_us;   /**< time of the stream's first frame in microseconds, as the
                                container says; INT64_MIN when not known (all but media) */
    char converted_from[32]; /**< the decoder's pixel format (FFmpeg's name) when a media
                                  reader converts every frame into info.fmt because fovea
                                  has no layout for it (libswscale); "" when the frames
                                  are as decoded */
} fovea_video_info;

#define FOVEA_COLOR_RANGE_UNKNOWN 0 /**< no tag (the usual assumption: limited) */
#define FOVEA_COLOR_RANGE_LIMITED 1 /**< XCOLORRANGE=LIMITED */
#define FOVEA_COLOR_RANGE_FULL 2    /**< XCOLORRANGE=FULL */

/** Fill info with "unknown" values (fps 0/0, interlace '?', count -1, start
 *  time INT64_MIN, colors 0). */
FOVEA_API void fovea_video_info_init(fovea_video_info *info);

/** Where a media reader decodes. */
typedef enum fovea_hwdec {
    FOVEA_HWDEC_AUTO = 0, /**< NVDEC into device frames when the reader's context is a CUDA
                               context and NVDEC takes the stream's codec, profile, depth and
                               size (fovea_hwdec_caps); else the CPU, and
                               fovea_reader_hwdec_reason says why when the context is CUDA */
    FOVEA_HWDEC_NONE,     /**< FFmpeg's CPU decoders */
    FOVEA_HWDEC_CUDA      /**< NVDEC through FFmpeg's CUDA decoding, on the reader's CUDA
                               context: FOVEA_ERR_NO_DEVICE on a CPU context (or a build
                               without CUDA), FOVEA_ERR_UNSUPPORTED for a stream NVDEC
                               cannot decode */
} fovea_hwdec;

/** One kind of stream a GPU's decoder (NVDEC) takes. */
typedef struct fovea_hwdec_cap {
    const char *codec;         /**< FFmpeg's codec name: "h264", "hevc", "vp9", "av1", "vp8",
                                    "mpeg2video", "mpeg1video", "mpeg4", "vc1", "mjpeg" */
    int chroma;                /**< 420, 422, 444 or 400 (gray) */
    int bit_depth;             /**< 8, 10 or 12 */
    int max_width, max_height; /**< largest picture */
    int min_width, min_height; /**< smallest picture */
    int decoders;              /**< NVDEC engines of the GPU (0 when the driver does not say) */
} fovea_hwdec_cap;

/** What the GPU of a CUDA context decodes, asked of the NVIDIA driver
 *  (libnvcuvid's decoder caps): one entry per codec, chroma format and bit
 *  depth it takes, codecs in the order of fovea_hwdec_cap.codec's list.
 *  Decoding also needs a build with FFmpeg (fovea_media_version).
 *  @param ctx a CUDA context
 *  @param caps receives the first max entries (may be NULL when max is 0)
 *  @param max size of caps
 *  @return the number of entries (more than max: call again with a larger
 *          array), FOVEA_ERR_NO_DEVICE on a CPU context or without CUDA,
 *          FOVEA_ERR_UNSUPPORTED when the driver has no video decoder library
 *          (message in fovea_last_error(ctx)) */
FOVEA_API int fovea_hwdec_caps(fovea_context *ctx, fovea_hwdec_cap *caps, int max);

/** Settings of a reader. */
typedef struct fovea_reader_settings {
    fovea_container container; /**< AUTO by default */
    int width, height;         /**< raw yuv only */
    fovea_pixfmt fmt;          /**< raw yuv only */
    int fps_num, fps_den;      /**< raw yuv only (optional) */
    /* media only (FOVEA_CONTAINER_MEDIA): */
    const char *input_format;         /**< FFmpeg's demuxer or device name ("v4l2", "lavfi",
                                   "mpegts", ...); NULL = probe the content (a path
                                   "NAME:REST" whose NAME is a device, as "v4l2:/dev/video0"
                                   or "lavfi:testsrc2", names it; a character device is
                                   v4l2) */
    const char *const *input_options; /**< NULL-terminated "KEY=VALUE" list passed to the
                                           demuxer/device (video_size, framerate,
                                           input_format, ...); NULL = none. A key the
                                           demuxer does not take is an error. */
    int stream;        /**< the stream (its index in the file, as ffprobe lists) to read; it
                     must be video; -1 (default) = FFmpeg's best video stream */
    fovea_hwdec hwdec; /**< where media is decoded (AUTO by default) */
    int threads;       /**< media decoded on the CPU: FFmpeg's decoder threads (frame and
                         slice threads); 0 (default) = FFmpeg's choice, as the ffmpeg
                         tool's (one per CPU, plus one for frame threads) */
} fovea_reader_settings;

typedef struct fovea_reader fovea_reader;

/** Fill s with defaults (container AUTO, no raw-yuv geometry, no media
 *  input format or options, stream -1). */
FOVEA_API void fovea_reader_default_settings(fovea_reader_settings *s);

/** Open path for reading ("-" = standard input). With s->container AUTO the
 *  container comes from the extension, else from the first bytes (y4m, PNG,
 *  PNM; read through the stream's buffer, so pipes and FIFOs work too; any
 *  other content is given to FFmpeg's probe in media builds). Media
 *  extensions (.mp4 .mkv .webm .mov .ts .avi .m4v .mpg ...), device paths
 *  ("v4l2:/dev/video0", "lavfi:testsrc2=size=320x240", a character device) and
 *  s->input_format open the media container (docs/media.md).
 *  A PNG or PNM path with a frame-number pattern (one %d, %4d or %04d, as the
 *  writers take; "%%" is a literal %) is an image sequence read as a video:
 *  file 0 (or 1 when there is no file 0), then each next number until one is
 *  missing; frame_count is the number of consecutive files at open. Every
 *  image must have the first one's size and format (else FOVEA_ERR_MISMATCH
 *  naming the file).
 *  On failure *r is NULL and a message naming the file and the problem is
 *  ctx's last error (fovea_last_error(ctx)).
 *  @param r receives the reader (NULL on failure)
 *  @param ctx receives error messages of this call and, later, of the reader's
 *         calls (may be NULL: see fovea_last_error); must outlive the reader
 *  @param s settings, or NULL for defaults
 *  @return FOVEA_OK or a negative status */
FOVEA_API int fovea_reader_open(fovea_reader **r, fovea_context *ctx, const char *path,
                                const fovea_reader_settings *s);

/** Stream properties of an open reader. */
FOVEA_API const fovea_video_info *fovea_reader_info(const fovea_reader *r);

/** The container an open reader reads: the one asked for, else the one of the
 *  file name's extension, else the one the first bytes show (y4m, PNG or PNM;
 *  a path without a known extension, a FIFO for example, is read so). */
FOVEA_API fovea_container fovea_reader_container(const fovea_reader *r);

/** Where an open reader decodes: FOVEA_HWDEC_CUDA when it decodes with NVDEC
 *  (then fovea_reader_read fills device frames of the reader's context with no
 *  trip through the host: pass one; a host frame costs a download), else
 *  FOVEA_HWDEC_NONE. */
FOVEA_API fovea_hwdec fovea_reader_hwdec(const fovea_reader *r);

/** Why a media reader with hwdec AUTO on a CUDA context decodes on the CPU
 *  (e.g. "NVDEC cannot decode h264 10-bit 4:2:0 on this GPU"), to be told
 *  once; NULL when it decodes on the GPU, on a CPU context, or with
 *  FOVEA_HWDEC_NONE. Valid while the reader is open. */
FOVEA_API const char *fovea_reader_hwdec_reason(const fovea_reader *r);

/** Read the next frame into f. f must be a host frame of the stream's size and
 *  format, or a zeroed frame (then a host frame is allocated), or, when
 *  fovea_reader_hwdec(r) is FOVEA_HWDEC_CUDA, a device frame of the reader's
 *  context (filled on a stream of the reader's own after the work queued on
 *  the context's stream before this call, which may still read f's old
 *  content; handed to the context's stream by an event: work queued after
 *  this call on that stream sees the frame; fovea_sync before reading it
 *  otherwise). f->index is set.
 *  @return FOVEA_OK, FOVEA_EOF at a clean end, or a negative status with the
 *          message (file, frame number, what) in fovea_last_error(ctx). A truncated
 *          frame is an error, never returned as if whole. */
FOVEA_API int fovea_reader_read(fovea_reader *r, fovea_frame *f);

/** Skip n frames. @return FOVEA_OK, FOVEA_EOF, or a negative status. */
FOVEA_API int fovea_reader_skip(fovea_reader *r, int64_t n);

/** Close and set *r to NULL. Safe on NULL. */
FOVEA_API void fovea_reader_close(fovea_reader **r);

typedef struct fovea_writer fovea_writer;

/** Open path for writing ("-" = standard output, y4m unless container says yuv).
 *  info gives size/format and, for y4m, rate/aspect/interlace to carry through.
 *  PNM/PNG writers accept one frame, or many when path contains a printf
 *  pattern for the frame number (e.g. "out%04d.png"). Nothing the user did not
 *  ask to replace is destroyed: a file being replaced keeps its old content
 *  until fovea_writer_finish completes the new one (see fovea/advanced.h,
 *  fovea_outfile).
 *  @param w receives the writer (NULL on failure)
 *  @param ctx receives error messages of this call and, later, of the writer's
 *         calls (may be NULL: see fovea_last_error); must outlive the writer
 *  @return FOVEA_OK or a negative status (message in fovea_last_error(ctx)). */
FOVEA_API int fovea_writer_open(fovea_writer **w, fovea_context *ctx, const char *path,
                                fovea_container container, const fovea_video_info *info);

/** How a media writer encodes (FOVEA_CONTAINER_MEDIA outputs; docs/media.md). */
typedef struct fovea_encoder_settings {
    const char *codec; /**< libavcodec encoder name; NULL = the container's default:
                            libx264 for .mp4/.mov, ffv1 (lossless) for .mkv,
                            libvpx-vp9 for .webm */
    int crf;           /**< constant rate factor for encoders that take one (x264, x265, vp9);
                  -1 (default) = 18 for x264/x265, 31 for vp9 */
    const char *const *options; /**< NULL-terminated "KEY=VALUE" list given to the
                                     encoder (preset=slow, g=250, ...); NULL = none;
                                     a key the encoder does not take is an error */
} fovea_encoder_settings;

/** Fill s with defaults (the container's codec, crf -1, no options). */
FOVEA_API void fovea_encoder_default_settings(fovea_encoder_settings *s);

/** Set how a media writer encodes; call before the first fovea_writer_write
 *  (the encoder opens at the first frame). The strings are copied. Writers of
 *  other containers ignore it.
 *  @return FOVEA_OK, or FOVEA_ERR_INVALID_ARG after the first frame */
FOVEA_API int fovea_writer_set_encoder(fovea_writer *w, const fovea_encoder_settings *s);

/** Write one host frame (same size/format as the writer's info).
 *  @return FOVEA_OK or a negative status (message in fovea_last_error(ctx)). */
FOVEA_API int fovea_writer_write(fovea_writer *w, const fovea_frame *f);

/** Complete the output: flush and, where a file is being replaced, move the
 *  new file into place. The message (file and the system's reason) is in
 *  fovea_last_error(ctx). Call fovea_writer_close after it either way.
 *  @return FOVEA_OK, or a negative status (also when a write failed before) */
FOVEA_API int fovea_writer_finish(fovea_writer *w);

/** Free the writer and set *w to NULL. Safe on NULL. An output that
 *  fovea_writer_finish did not complete is discarded: a file being replaced
 *  keeps its old content (the new one was written to a temporary, which is
 *  removed); a device, FIFO or stdout keeps what was written; per-frame files
 *  (pattern paths) already completed stay. So the end of a run is
 *  finish-then-close, and every error path just closes. */
FOVEA_API void fovea_writer_close(fovea_writer **w);

/** Container chosen for a path by extension (.y4m, .yuv, .pgm/.ppm/.pnm, .png;
 *  the media extensions and device prefixes "v4l2:" / "lavfi:" give MEDIA in
 *  every build); "-" is Y4M. @return FOVEA_CONTAINER_AUTO when unknown. */
FOVEA_API fovea_container fovea_container_from_path(const char *path);
/** @return the name of a container ("y4m", "yuv", "pnm", "png", "media"; "auto"). */
FOVEA_API const char *fovea_container_name(fovea_container c);

/** The versions of FFmpeg's libraries a media build runs with, e.g.
 *  "libavformat 59.27.100, libavcodec 59.37.100, libavutil 57.28.100,
 *  libswscale 6.7.100, libavdevice 59.7.100".
 *  @return a static string, or NULL when fovea was built without FFmpeg */
FOVEA_API const char *fovea_media_version(void);

#ifdef __cplusplus
}
#endif

#endif
