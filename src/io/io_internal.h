/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal contract between the generic reader/writer (reader.c,
 * sequence.c, writer.c, io.c) and the one-file-per-format implementations
 * (y4m.c, yuv.c, pnm.c, png.c). */
#ifndef FOVEA_IO_INTERNAL_H
#define FOVEA_IO_INTERNAL_H

#include <stdio.h>
#include "fovea/advanced.h"
#include "fovea/io.h"

#define FOVEA_IO_ERRLEN 512

struct fv_reader_ops;
struct fv_writer_ops;

struct fovea_reader {
    const struct fv_reader_ops *ops;
    fovea_container container; /* what ops reads (from the name, option or content) */
    FILE *fp;                  /* opened by reader.c (stdin for "-") */
    int own_fp;                /* 0 for stdin */
    char *path;                /* as given; "-" shown as "stdin" in messages */
    fovea_video_info info;     /* filled by ops->open */
    int64_t next_index;  /* number of the next frame to read (0-based); reader.c sets f->index */
    long long file_size; /* size of a regular file, -1 for pipes */
    char err[FOVEA_IO_ERRLEN]; /* also recorded as ctx's last error by reader.c */
    fovea_context *ctx;        /* given at open (may be NULL); set before ops->open */
    fovea_hwdec hwdec;         /* CUDA when ops->read fills device frames (NVDEC), else NONE */
    char hwdec_reason[256];    /* why AUTO decodes on the CPU of a CUDA context; "" if not */
    void *priv;                /* format state */
};

struct fv_reader_ops {
    const char *name;
    /* Parse headers, fill r->info. Options carry raw-yuv geometry. */
    int (*open)(struct fovea_reader *r, const fovea_reader_settings *opt);
    /* Read frame number r->next_index into f (host frame already allocated with
     * r->info's size/format by reader.c; a device frame of r->ctx when
     * r->hwdec is CUDA). FOVEA_EOF only at a clean frame boundary. */
    int (*read)(struct fovea_reader *r, fovea_frame *f);
    void (*close)(struct fovea_reader *r); /* free priv (not fp) */
};

struct fovea_writer {
    const struct fv_writer_ops *ops;
    FILE *fp;          /* NULL for per-frame files (pattern paths); writer.c opens otherwise */
    fovea_outfile *of; /* the output behind fp */
    char *path;
    fovea_video_info info;
    int64_t frames_written;
    int failed;     /* a write failed: close discards the output */
    char **protect; /* inputs no output file may be (fovea_writer_protect) */
    int nprotect;
    int finished;              /* fovea_writer_finish ran */
    char err[FOVEA_IO_ERRLEN]; /* also recorded as ctx's last error by writer.c */
    fovea_context *ctx;        /* given at open (may be NULL) */
    fovea_temp_hook temp_hook; /* fovea_writer_set_temp_hook; NULL when none */
    void *temp_opaque;
    char *enc_codec;    /* fovea_writer_set_encoder (media): NULL = default */
    int enc_crf;        /* -1 = default */
    char **enc_options; /* NULL-terminated copy, or NULL */
    void *priv;
};

struct fv_writer_ops {
    const char *name;
    int single_image;                    /* PNM/PNG: one image per file unless path has a pattern */
    int (*open)(struct fovea_writer *w); /* validate info, write stream header */
    int (*write)(struct fovea_writer *w, FILE *fp, const fovea_frame *f);
    int (*close)(struct fovea_writer *w); /* free priv */
    /* complete the stream before fp is committed (flush an encoder, write a
     * trailer); NULL when there is nothing to complete */
    int (*finish)(struct fovea_writer *w);
};

extern const struct fv_reader_ops fv_y4m_reader_ops;
extern const struct fv_reader_ops fv_yuv_reader_ops;
extern const struct fv_reader_ops fv_pnm_reader_ops;
extern const struct fv_reader_ops fv_png_reader_ops;
extern const struct fv_writer_ops fv_y4m_writer_ops;
extern const struct fv_writer_ops fv_yuv_writer_ops;
extern const struct fv_writer_ops fv_pnm_writer_ops;
extern const struct fv_writer_ops fv_png_writer_ops;
/* media_read.c / media_write.c with FFmpeg, media_absent.c without */
extern const struct fv_reader_ops fv_media_reader_ops;
extern const struct fv_writer_ops fv_media_writer_ops;

/* Open a reader on an already open stream (not closed by the reader); name is
 * used in messages; errors as fovea_reader_open. For fuzz targets (fmemopen)
 * and tests. */
int fv_reader_open_stream(fovea_context *ctx, fovea_reader **r, FILE *fp, const char *name,
                          const fovea_reader_settings *opt);

/* The generic reader's open of a path (reader.c): allow_pattern lets a
 * one-image container's path with a frame-number pattern open as an image
 * sequence; errors as "<path>: <message>" in errbuf. */
int fv_reader_open_path(fovea_reader **out, fovea_context *ctx, const char *path,
                        const fovea_reader_settings *opt, int allow_pattern, char *errbuf,
                        size_t errbuf_size);
/* The generic reader's read (reader.c): checks f (or allocates a host frame
 * for it), reads, numbers; the message in r->err. */
int fv_reader_read(fovea_reader *r, fovea_frame *f);
/* An image sequence reader (sequence.c) on path, a frame-number pattern of
 * one-image container c's files. */
int fv_seq_reader_open(fovea_reader **out, const char *path, fovea_container c, char *errbuf,
                       size_t errbuf_size);

/* "<path>: <msg>" into buf (buf may be NULL or n 0). */
void fv_io_set_err(char *buf, size_t n, const char *path, const char *msg);
/* 1 when path holds exactly one frame-number directive (%d, %4d, %04d), 0
 * when none, -1 when anything else a printf format would read. */
int fv_io_frame_pattern(const char *path);

/* Record "<path>: <message>" in r->err and return status. */
int fv_reader_fail(struct fovea_reader *r, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int fv_writer_fail(struct fovea_writer *w, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Read exactly n bytes; returns bytes actually read (< n at EOF or error). */
size_t fv_io_read_full(FILE *fp, void *buf, size_t n);

/* Read a whole file/stream into memory (limit bytes at most; larger = error).
 * Returns FOVEA_OK and a malloc'd buffer, or an error recorded via r. */
int fv_reader_slurp(struct fovea_reader *r, size_t limit, uint8_t **data, size_t *size);

/* Readers of one-image files (PNM, PNG): open slurps the file (at most limit
 * bytes) and decodes it with decode; read returns the image once, then EOF. */
typedef int (*fv_decode_fn)(const uint8_t *data, size_t size, fovea_frame *f, char *err,
                            size_t errsz);
int fv_still_reader_open(struct fovea_reader *r, size_t limit, fv_decode_fn decode);
int fv_still_reader_read(struct fovea_reader *r, fovea_frame *f);
void fv_still_reader_close(struct fovea_reader *r);

/* Read/write the planes of a host frame as tightly packed planar data
 * (the layout of y4m and raw yuv payloads; 16-bit samples little-endian). */
int fv_io_read_planes(struct fovea_reader *r, fovea_frame *f);
int fv_io_write_planes(struct fovea_writer *w, FILE *fp, const fovea_frame *f);

#endif
