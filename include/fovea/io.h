/* fovea I/O: readers and writers for y4m, raw .yuv, PNM (P5/P6) and PNG.
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
    FOVEA_CONTAINER_YUV,      /**< headerless planar frames; needs width/height/pixfmt */
    FOVEA_CONTAINER_PNM,      /**< P5 (gray) / P6 (RGB), 8 or 16 bit; one image per file */
    FOVEA_CONTAINER_PNG       /**< one image per file */
} fovea_container;

/** Stream properties. Readers fill these; writers take them. */
typedef struct fovea_video_info {
    int width, height;
    fovea_pixfmt fmt;
    int fps_num, fps_den;     /**< 0/0 when unknown */
    int sar_num, sar_den;     /**< pixel aspect; 0/0 when unknown */
    char interlace;           /**< y4m 'p','t','b','m', or '?' unknown */
    char chroma_tag[16];      /**< y4m C tag as read (e.g. "420jpeg"), "" if none */
    int64_t frame_count;      /**< frames in the stream when known (files), else -1 */
    int color_range;          /**< y4m XCOLORRANGE: FOVEA_COLOR_RANGE_* (read, and written
                                   when known) */
} fovea_video_info;

#define FOVEA_COLOR_RANGE_UNKNOWN 0 /**< no tag (the usual assumption: limited) */
#define FOVEA_COLOR_RANGE_LIMITED 1 /**< XCOLORRANGE=LIMITED */
#define FOVEA_COLOR_RANGE_FULL 2    /**< XCOLORRANGE=FULL */

/** Fill info with "unknown" values (fps 0/0, interlace '?', count -1). */
FOVEA_API void fovea_video_info_init(fovea_video_info *info);

/** Options for opening a reader. */
typedef struct fovea_reader_options {
    fovea_container container; /**< AUTO by default */
    int width, height;         /**< raw yuv only */
    fovea_pixfmt fmt;          /**< raw yuv only */
    int fps_num, fps_den;      /**< raw yuv only (optional) */
} fovea_reader_options;

typedef struct fovea_reader fovea_reader;

FOVEA_API void fovea_reader_options_init(fovea_reader_options *o);

/** Open path for reading ("-" = standard input). With opt->container AUTO the
 *  container comes from the extension, else from the first bytes (y4m, PNG,
 *  PNM; read through the stream's buffer, so pipes and FIFOs work too).
 *  A PNG or PNM path with a frame-number pattern (one %d, %4d or %04d, as the
 *  writers take; "%%" is a literal %) is an image sequence read as a video:
 *  file 0 (or 1 when there is no file 0), then each next number until one is
 *  missing; frame_count is the number of consecutive files at open. Every
 *  image must have the first one's size and format (else FOVEA_ERR_MISMATCH
 *  naming the file).
 *  On failure *r is NULL and a message naming the file and the problem is
 *  ctx's last error (fovea_last_error(ctx)).
 *  @param ctx receives error messages of this call and, later, of the reader's
 *         calls (may be NULL: see fovea_last_error); must outlive the reader
 *  @return FOVEA_OK or a negative status */
FOVEA_API int fovea_reader_open(fovea_context *ctx, fovea_reader **r, const char *path,
                                const fovea_reader_options *opt);

/** Stream properties of an open reader. */
FOVEA_API const fovea_video_info *fovea_reader_info(const fovea_reader *r);

/** The container an open reader reads: the one asked for, else the one of the
 *  file name's extension, else the one the first bytes show (y4m, PNG or PNM;
 *  a path without a known extension, a FIFO for example, is read so). */
FOVEA_API fovea_container fovea_reader_container(const fovea_reader *r);

/** Read the next frame into f. f must be a host frame of the stream's size and
 *  format, or a zeroed frame (then it is allocated). f->index is set.
 *  @return FOVEA_OK, FOVEA_EOF at a clean end, or a negative status with the
 *          message (file, frame number, what) in fovea_last_error(ctx). A truncated
 *          frame is an error, never returned as if whole. */
FOVEA_API int fovea_reader_read(fovea_reader *r, fovea_frame *f);

/** Skip n frames. @return FOVEA_OK, FOVEA_EOF, or a negative status. */
FOVEA_API int fovea_reader_skip(fovea_reader *r, int64_t n);

/** @deprecated read fovea_last_error(ctx) of the context given at open.
 *  @return the last error message of the reader ("" if none): the same text. */
FOVEA_API FOVEA_DEPRECATED const char *fovea_reader_error(const fovea_reader *r);

/** Close and set *r to NULL. Safe on NULL. */
FOVEA_API void fovea_reader_close(fovea_reader **r);

typedef struct fovea_writer fovea_writer;

/** Open path for writing ("-" = standard output, y4m unless container says yuv).
 *  info gives size/format and, for y4m, rate/aspect/interlace to carry through.
 *  PNM/PNG writers accept one frame, or many when path contains a printf
 *  pattern for the frame number (e.g. "out%04d.png").
 *  @param ctx receives error messages of this call and, later, of the writer's
 *         calls (may be NULL: see fovea_last_error); must outlive the writer
 *  @return FOVEA_OK or a negative status (message in fovea_last_error(ctx)). */
FOVEA_API int fovea_writer_open(fovea_context *ctx, fovea_writer **w, const char *path,
                                fovea_container container, const fovea_video_info *info);

/** Write one host frame (same size/format as the writer's info).
 *  @return FOVEA_OK or a negative status (message in fovea_last_error(ctx)). */
FOVEA_API int fovea_writer_write(fovea_writer *w, const fovea_frame *f);

/** @deprecated read fovea_last_error(ctx) of the context given at open.
 *  @return the last error message of the writer ("" if none): the same text. */
FOVEA_API FOVEA_DEPRECATED const char *fovea_writer_error(const fovea_writer *w);

/** Refuse to write over input: with a pattern path, a frame whose file name is
 *  the same file as input (fovea_same_file) fails with FOVEA_ERR_INVALID_ARG
 *  before that file is opened; a single output is checked at once (callers
 *  should also check it with fovea_same_file before opening the writer).
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG or FOVEA_ERR_NOMEM (message in
 *          fovea_last_error(ctx)) */
FOVEA_API int fovea_writer_protect(fovea_writer *w, const char *input);

/** Complete the output: flush and, where a file is being replaced (see
 *  fovea_outfile_open), move the new file into place. The message (file and
 *  the system's reason) is in fovea_last_error(ctx). Call fovea_writer_close
 *  after it either way. @return FOVEA_OK or a negative status */
FOVEA_API int fovea_writer_finish(fovea_writer *w);

/** Complete the output as fovea_writer_finish unless it was done already or a
 *  write failed (then the output is discarded as by fovea_writer_abort), and
 *  free the writer. Sets *w to NULL. Safe on NULL.
 *  @return FOVEA_OK or the status of the failed completion or write */
FOVEA_API int fovea_writer_close(fovea_writer **w);

/** Discard the output and free the writer: a file being replaced keeps its old
 *  content (the new one was written to a temporary, which is removed); a
 *  device, FIFO or stdout keeps what was written. Per-frame files (pattern
 *  paths) already completed stay. Use it on every error path of a run.
 *  Sets *w to NULL. Safe on NULL. */
FOVEA_API void fovea_writer_abort(fovea_writer **w);

/** Container chosen for a path by extension (.y4m, .yuv, .pgm/.ppm/.pnm, .png);
 *  "-" is Y4M. @return FOVEA_CONTAINER_AUTO when unknown. */
FOVEA_API fovea_container fovea_container_from_path(const char *path);
FOVEA_API const char *fovea_container_name(fovea_container c);

/* ---------------------------------------------------------------- output files */

/** An output file being written. Every writer of fovea (video, images, map
 *  files, KLT files, the CLI's JSON/CSV) goes through it, so that nothing the
 *  user did not ask to replace is destroyed:
 *  - a regular file, or a path that does not exist yet, is written to a new
 *    temporary file in the same directory (".NAME.XXXXXXXX") that
 *    fovea_outfile_commit renames over it: the old content stays whole until
 *    the new one is complete; a replaced file keeps its mode (and its owner
 *    when allowed), a new one gets 0666 less the umask;
 *  - a symlink is written through: its final target gets the new content (the
 *    temporary is made in the target's directory) and the link stays a link;
 *  - a character or block device, FIFO or socket is opened and written in
 *    place (a FIFO waits for its reader); "-" is standard output, flushed but
 *    never closed;
 *  - a directory is an error naming it; so is an existing file the user may
 *    not write.
 *  On any failure only the temporary is removed, never the destination. */
typedef struct fovea_outfile fovea_outfile;

/** Open path for writing as described above.
 *  @param ctx receives "<path>: <reason>" as its last error on failure (may be NULL)
 *  @param of receives the handle (NULL on failure)
 *  @return FOVEA_OK, FOVEA_ERR_IO or FOVEA_ERR_NOMEM */
FOVEA_API int fovea_outfile_open(fovea_context *ctx, fovea_outfile **of, const char *path);

/** @return the stream to write to (binary; stdout for "-"). Do not fclose it. */
FOVEA_API FILE *fovea_outfile_file(const fovea_outfile *of);

/** Finish: flush, check that every write succeeded, close, and rename the
 *  temporary into place. On failure the temporary is removed and the
 *  destination keeps its old content; ctx's last error is "<path>: <system reason>"
 *  (e.g. "No space left on device"). Frees the handle and sets *of to NULL.
 *  @return FOVEA_OK or FOVEA_ERR_IO */
FOVEA_API int fovea_outfile_commit(fovea_context *ctx, fovea_outfile **of);

/** Give up: close and remove the temporary (only a file fovea created); the
 *  destination is left as it was. Sets *of to NULL. Safe on NULL. */
FOVEA_API void fovea_outfile_abort(fovea_outfile **of);

/** @return 1 when a and b name the same existing file (same device and inode:
 *  also through hard links and symlinks), else 0 ("-" is never a file here).
 *  For refusing an output that is one of the inputs before opening it. */
FOVEA_API int fovea_same_file(const char *a, const char *b);

/* ---------------------------------------------------------------- stills */

/** Write one host frame as a PNG file (gray8, gray10/12/16, rgb24 or rgba; the
 *  encoding of the PNG writer) through fovea_outfile: a file being replaced keeps
 *  its old content on failure.
 *  @param ctx receives "<path>: <reason>" as its last error on failure (may be NULL)
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_UNSUPPORTED (YUV formats:
 *          convert first), FOVEA_ERR_IO, FOVEA_ERR_NOMEM or FOVEA_ERR_INTERNAL */
FOVEA_API int fovea_png_write_file(fovea_context *ctx, const char *path, const fovea_frame *f);

/* In-memory decoders used by the readers above and by the fuzz targets.
 * They allocate f (host) on success; on failure the message is ctx's last
 * error (ctx may be NULL). */

/** Decode a whole PNM file held in memory. */
FOVEA_API int fovea_pnm_decode(fovea_context *ctx, const uint8_t *data, size_t size,
                               fovea_frame *f);
/** Decode a whole PNG file held in memory (gray -> gray8/16, or gray10/12 when
 *  sBIT says so; gray+alpha -> rgba; RGB -> rgb24, RGBA -> rgba; palette
 *  expanded, to rgba with tRNS; 16-bit color reduced to 8). */
FOVEA_API int fovea_png_decode(fovea_context *ctx, const uint8_t *data, size_t size,
                               fovea_frame *f);

#ifdef __cplusplus
}
#endif

#endif
