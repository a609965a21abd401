/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea advanced API: the helpers fovea's own tools use (the CLI, the
 * GStreamer plugin, the fuzz targets) that are not part of the library's
 * product surface. They are exported (FOVEA_API) and follow the same grammar
 * (docs/api.md), but may change in any release: include this header only when
 * you accept that. The umbrella header fovea/fovea.h does not include it. */
#ifndef FOVEA_ADVANCED_H
#define FOVEA_ADVANCED_H

#include <stdint.h>
#include <stdio.h>

#include "fovea/io.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 *  @param of receives the handle (NULL on failure)
 *  @param ctx receives "<path>: <reason>" as its last error on failure (may be NULL)
 *  @return FOVEA_OK, FOVEA_ERR_IO or FOVEA_ERR_NOMEM */
FOVEA_API int fovea_outfile_open(fovea_outfile **of, fovea_context *ctx, const char *path);

/** @return the stream to write to (binary; stdout for "-"). Do not fclose it. */
FOVEA_API FILE *fovea_outfile_file(const fovea_outfile *of);

/** Finish: flush, check that every write succeeded, close, and rename the
 *  temporary into place. On failure the temporary is removed and the
 *  destination keeps its old content; ctx's last error is "<path>: <system reason>"
 *  (e.g. "No space left on device"). Frees the handle and sets *of to NULL
 *  either way (so no fovea_outfile_close is needed after it).
 *  @return FOVEA_OK or FOVEA_ERR_IO */
FOVEA_API int fovea_outfile_commit(fovea_outfile **of, fovea_context *ctx);

/** Close without committing: give up, remove the temporary (only a file fovea
 *  created); the destination is left as it was. Sets *of to NULL. Safe on NULL
 *  (so it is the call of every error path, also after a commit). */
FOVEA_API void fovea_outfile_close(fovea_outfile **of);

/** @return the path of of's temporary file (".NAME.XXXXXXXX" beside the
 *  target), or NULL when of writes in place (stdout, a device, a FIFO). Valid
 *  until fovea_outfile_commit or fovea_outfile_close. For a tool that removes
 *  fovea's temporaries when it is interrupted (the library installs no signal
 *  handler). */
FOVEA_API const char *fovea_outfile_temp_path(const fovea_outfile *of);

/** @return 1 when a and b name the same existing file (same device and inode:
 *  also through hard links and symlinks), else 0 ("-" is never a file here).
 *  For refusing an output that is one of the inputs before opening it. */
FOVEA_API int fovea_same_file(const char *a, const char *b);

/** Refuse to let writer w write over input: with a pattern path, a frame whose file name is
 *  the same file as input (fovea_same_file) fails with FOVEA_ERR_INVALID_ARG
 *  before that file is opened; a single output is checked at once (callers
 *  should also check it with fovea_same_file before opening the writer).
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG or FOVEA_ERR_NOMEM (message in
 *          fovea_last_error(ctx)) */
FOVEA_API int fovea_writer_protect(fovea_writer *w, const char *input);

/** A writer's temporary file: live = 1 when path has just been created (a
 *  hidden file beside the output, see fovea_outfile), 0 once it is gone
 *  (renamed into place, or removed). */
typedef void (*fovea_temp_hook)(void *opaque, const char *path, int live);

/** Tell hook about w's temporaries, so that a tool can remove them when it is
 *  interrupted (the library installs no signal handler): hook(opaque, tmp, 1)
 *  at once for the temporary of a single output (none when it is written in
 *  place: stdout, a device, a FIFO), and for the temporary of each file of a
 *  pattern path as it is created; hook(opaque, tmp, 0) when it is gone. The
 *  hook runs on the thread that calls the writer; NULL stops the calls.
 *  @return FOVEA_OK or FOVEA_ERR_INVALID_ARG (w NULL) */
FOVEA_API int fovea_writer_set_temp_hook(fovea_writer *w, fovea_temp_hook hook, void *opaque);

/* ---------------------------------------------------------------- read-ahead */

/** A reader on a thread of its own filling a ring of frames ahead of its
 *  consumer: read k goes to slot k % slots once the consumer released read
 *  k - slots; the consumer takes the reads in order and releases them in
 *  order, each when it no longer needs that slot's frame (it may hold several,
 *  as a queued scorer does, and may swap a taken frame's buffers for others of
 *  the same size, format and memory before releasing it). The reader must not
 *  be used by anyone else while the ring runs. */
typedef struct fovea_read_ring fovea_read_ring;

/** How a ring reads. */
typedef struct fovea_read_ring_settings {
    int slots;           /**< frames read ahead (4) */
    int64_t limit;       /**< reads at most, then FOVEA_EOF; -1 = all (-1) */
    fovea_memtype mem;   /**< where the frames are (FOVEA_MEM_HOST); FOVEA_MEM_DEVICE
                              for a reader decoding into device frames (NVDEC) */
    int read_past_error; /**< 0: the thread ends after a failed read (0); 1: it reads
                              on and ends only at the end of the stream */
} fovea_read_ring_settings;

/** Fill s with the defaults above. */
FOVEA_API void fovea_read_ring_default_settings(fovea_read_ring_settings *s);

/** Make a ring of frames of r's size and format on ctx (no thread yet:
 *  fovea_read_ring_start). The first slot's frame is allocated here; the
 *  reader thread allocates each other slot's frame when it first fills it,
 *  so a short input pins no more than it reads (a failed allocation there is
 *  that read's status and message).
 *  @param ring receives the ring (NULL on failure)
 *  @param ctx the frames' context (may be NULL for host frames); the ring's
 *         messages go to its last error
 *  @param r the reader, which must outlive the ring
 *  @param s settings (NULL = defaults)
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_NOMEM or the first
 *          frame allocation's status */
FOVEA_API int fovea_read_ring_open(fovea_read_ring **ring, fovea_context *ctx, fovea_reader *r,
                                   const fovea_read_ring_settings *s);

/** Start the reading thread (once).
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (started already) or FOVEA_ERR_NOMEM
 *          (no thread) */
FOVEA_API int fovea_read_ring_start(fovea_read_ring *ring);

/** The next read, waited for (the ring must be started). Nothing follows a
 *  FOVEA_EOF, nor a failed read without read_past_error: take no more then.
 *  @param f receives the read's frame (valid until its release)
 *  @param msg receives the reader's message when the read failed ("" otherwise)
 *  @return the read's status: FOVEA_OK, FOVEA_EOF (also after the limit) or
 *          the negative status of fovea_reader_read */
FOVEA_API int fovea_read_ring_take(fovea_read_ring *ring, fovea_frame **f, const char **msg);

/** The oldest taken read's slot may be filled again. */
FOVEA_API void fovea_read_ring_release(fovea_read_ring *ring);

/** Stop the thread (after the read it is in), join it, free the frames and
 *  the ring; sets *ring to NULL. Safe on NULL and on a ring never started. */
FOVEA_API void fovea_read_ring_close(fovea_read_ring **ring);

/* ---------------------------------------------------------------- stills and decoders */

/** Write one host frame as a PNG file (gray8, gray10/12/16, rgb24 or rgba; the
 *  encoding of the PNG writer) through fovea_outfile: a file being replaced keeps
 *  its old content on failure.
 *  @param ctx receives "<path>: <reason>" as its last error on failure (may be NULL)
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_UNSUPPORTED (YUV formats:
 *          convert first), FOVEA_ERR_IO, FOVEA_ERR_NOMEM or FOVEA_ERR_INTERNAL */
FOVEA_API int fovea_png_write_file(fovea_context *ctx, const char *path, const fovea_frame *f);

/* In-memory decoders used by the readers of fovea/io.h and by the fuzz targets.
 * They allocate f (host) on success; on failure the message is ctx's last
 * error (ctx may be NULL). */

/** Decode a whole PNM file held in memory.
 *  @return FOVEA_OK or a negative status (FOVEA_ERR_CORRUPT for malformed data) */
FOVEA_API int fovea_pnm_decode(fovea_context *ctx, const uint8_t *data, size_t size,
                               fovea_frame *f);
/** Decode a whole PNG file held in memory (gray -> gray8/16, or gray10/12 when
 *  sBIT says so; gray+alpha -> rgba; RGB -> rgb24, RGBA -> rgba; palette
 *  expanded, to rgba with tRNS; 16-bit color reduced to 8).
 *  @return FOVEA_OK or a negative status (FOVEA_ERR_CORRUPT for malformed data) */
FOVEA_API int fovea_png_decode(fovea_context *ctx, const uint8_t *data, size_t size,
                               fovea_frame *f);

#ifdef __cplusplus
}
#endif

#endif
