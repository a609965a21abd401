/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The generic reader: picks the container (the name, the option or the first
 * byte), owns the FILE, checks and numbers the frames. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/core.h"
#include "io_internal.h"

static const struct fv_reader_ops *reader_ops_for(fovea_container c)
{
    switch (c) {
    case FOVEA_CONTAINER_Y4M: return &fv_y4m_reader_ops;
    case FOVEA_CONTAINER_YUV: return &fv_yuv_reader_ops;
    case FOVEA_CONTAINER_PNM: return &fv_pnm_reader_ops;
    case FOVEA_CONTAINER_PNG: return &fv_png_reader_ops;
    case FOVEA_CONTAINER_MEDIA: return &fv_media_reader_ops;
    default: return NULL;
    }
}

static int finish_open(fovea_reader **out, struct fovea_reader *r, const fovea_reader_settings *opt,
                       char *errbuf, size_t errbuf_size)
{
    int st = r->ops->open(r, opt);
    if (st < 0) {
        if (errbuf && errbuf_size)
            snprintf(errbuf, errbuf_size, "%s", r->err[0] ? r->err : fovea_strerror(st));
        fovea_reader_close(&r);
        return st;
    }
    if (r->info.width <= 0 || r->info.height <= 0 || !fovea_pixfmt_get_desc(r->info.fmt)) {
        if (errbuf && errbuf_size)
            snprintf(errbuf, errbuf_size, "%s: reader produced no valid geometry", r->path);
        fovea_reader_close(&r);
        return FOVEA_ERR_INTERNAL;
    }
    *out = r;
    return FOVEA_OK;
}

/* The container of a stream by its first byte, which is pushed back (one byte
 * of pushback is what stdio guarantees on every stream, pipes and FIFOs
 * included): 'Y' starts only "YUV4MPEG2 ", 0x89 only PNG's signature, 'P'
 * PNM's "P5"/"P6"; the reader then checks the whole magic. Raw yuv has no
 * signature. */
static fovea_container sniff_container(FILE *fp, int *empty)
{
    const int ch = getc(fp);
    *empty = ch == EOF && !ferror(fp);
    if (ch == EOF || ungetc(ch, fp) == EOF)
        return FOVEA_CONTAINER_AUTO;
    switch (ch) {
    case 'Y': return FOVEA_CONTAINER_Y4M;
    case 0x89: return FOVEA_CONTAINER_PNG;
    case 'P': return FOVEA_CONTAINER_PNM;
    default: return FOVEA_CONTAINER_AUTO;
    }
}

#ifdef FOVEA_HAVE_FFMPEG
#define MEDIA_BUILT 1
#else
#define MEDIA_BUILT 0
#endif

/* A path FFmpeg opens itself (no FILE): a media container named by the
 * extension or a device prefix, a character device (a camera), or any path
 * with an input format given. */
static int media_by_path(const char *path, fovea_container c, const fovea_reader_settings *opt)
{
    if (strcmp(path, "-") == 0)
        return 0;
    if (c == FOVEA_CONTAINER_AUTO && fovea_container_from_path(path) == FOVEA_CONTAINER_MEDIA)
        return 1;
    if (c == FOVEA_CONTAINER_MEDIA || (opt->input_format && c == FOVEA_CONTAINER_AUTO))
        return 1;
    struct stat st;
    return MEDIA_BUILT && c == FOVEA_CONTAINER_AUTO && stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

int fv_reader_open_path(fovea_reader **out, fovea_context *ctx, const char *path,
                        const fovea_reader_settings *opt, int allow_pattern, char *errbuf,
                        size_t errbuf_size)
{
    fovea_reader_settings defaults;
    if (!out || !path) {
        fv_io_set_err(errbuf, errbuf_size, path ? path : "(null)", "invalid argument");
        return FOVEA_ERR_INVALID_ARG;
    }
    *out = NULL;
    if (!opt) {
        fovea_reader_default_settings(&defaults);
        opt = &defaults;
    }
    fovea_container c = opt->container;
    const int media_path = media_by_path(path, c, opt);
    if (media_path)
        c = FOVEA_CONTAINER_MEDIA;
    else if (c == FOVEA_CONTAINER_AUTO && !(MEDIA_BUILT && strcmp(path, "-") == 0))
        c = fovea_container_from_path(path); /* (stdin with FFmpeg: sniffed below) */
    const struct fv_reader_ops *ops = reader_ops_for(c);
    /* one-image containers read a path with a frame-number pattern as a video */
    if (allow_pattern && (c == FOVEA_CONTAINER_PNG || c == FOVEA_CONTAINER_PNM) &&
        fv_io_frame_pattern(path) == 1)
        return fv_seq_reader_open(out, path, c, errbuf, errbuf_size);
    struct fovea_reader *r = calloc(1, sizeof(*r));
    if (!r || !(r->path = strdup(path))) {
        free(r);
        fv_io_set_err(errbuf, errbuf_size, path, "out of memory");
        return FOVEA_ERR_NOMEM;
    }
    r->ops = ops;
    r->container = c;
    r->file_size = -1;
    r->ctx = ctx;
    r->hwdec = FOVEA_HWDEC_NONE;
    fovea_video_info_init(&r->info);
    if (media_path) {
        r->fp = NULL; /* FFmpeg opens the path or device */
    } else if (strcmp(path, "-") == 0) {
        r->fp = stdin;
    } else {
        r->fp = fopen(path, "rb");
        if (!r->fp) {
            fv_io_set_err(errbuf, errbuf_size, path, strerror(errno));
            free(r->path);
            free(r);
            return FOVEA_ERR_IO;
        }
        r->own_fp = 1;
        struct stat st;
        if (fstat(fileno(r->fp), &st) == 0 && S_ISREG(st.st_mode))
            r->file_size = (long long)st.st_size;
        if (fstat(fileno(r->fp), &st) == 0 && S_ISDIR(st.st_mode)) {
            fv_io_set_err(errbuf, errbuf_size, path, "is a directory");
            fclose(r->fp);
            free(r->path);
            free(r);
            return FOVEA_ERR_IO;
        }
    }
    if (!r->ops) {
        /* no known extension: the content tells (stdin is y4m by its name) */
        int empty = 0;
        r->container = sniff_container(r->fp, &empty);
        if (MEDIA_BUILT && !empty &&
            (r->container == FOVEA_CONTAINER_AUTO ||
             (strcmp(path, "-") == 0 && r->container != FOVEA_CONTAINER_Y4M)))
            r->container = FOVEA_CONTAINER_MEDIA; /* FFmpeg's probe decides */
        else if (strcmp(path, "-") == 0)
            r->container = FOVEA_CONTAINER_Y4M;
        r->ops = reader_ops_for(r->container);
        if (!r->ops) {
            fv_io_set_err(errbuf, errbuf_size, path,
                          empty
                              ? "empty file, and its name does not tell its type (.y4m, .yuv, "
                                ".pgm/.ppm/.pnm or .png)"
                              : "unknown file type: neither its name (.y4m, .yuv, .pgm/.ppm/.pnm, "
                                ".png) nor its first bytes (y4m, PNG, PNM) tell it");
            if (r->own_fp)
                fclose(r->fp);
            free(r->path);
            free(r);
            return FOVEA_ERR_UNSUPPORTED;
        }
    }
    return finish_open(out, r, opt, errbuf, errbuf_size);
}

static int reader_open_buf(fovea_reader **out, fovea_context *ctx, const char *path,
                           const fovea_reader_settings *opt, char *errbuf, size_t errbuf_size)
{
    return fv_reader_open_path(out, ctx, path, opt, 1, errbuf, errbuf_size);
}

static int reader_open_stream_buf(fovea_reader **out, fovea_context *ctx, FILE *fp,
                                  const char *name, const fovea_reader_settings *opt, char *errbuf,
                                  size_t errbuf_size)
{
    fovea_reader_settings defaults;
    if (!out || !fp || !name)
        return FOVEA_ERR_INVALID_ARG;
    *out = NULL;
    if (!opt) {
        fovea_reader_default_settings(&defaults);
        opt = &defaults;
    }
    fovea_container c = opt->container;
    if (c == FOVEA_CONTAINER_AUTO)
        c = fovea_container_from_path(name);
    const struct fv_reader_ops *ops = reader_ops_for(c);
    if (!ops) {
        fv_io_set_err(errbuf, errbuf_size, name, "unknown file type");
        return FOVEA_ERR_UNSUPPORTED;
    }
    struct fovea_reader *r = calloc(1, sizeof(*r));
    if (!r || !(r->path = strdup(name))) {
        free(r);
        return FOVEA_ERR_NOMEM;
    }
    r->ops = ops;
    r->container = c;
    r->fp = fp;
    r->file_size = -1;
    r->ctx = ctx;
    r->hwdec = FOVEA_HWDEC_NONE;
    fovea_video_info_init(&r->info);
    return finish_open(out, r, opt, errbuf, errbuf_size);
}

const fovea_video_info *fovea_reader_info(const fovea_reader *r)
{
    return r ? &r->info : NULL;
}

fovea_container fovea_reader_container(const fovea_reader *r)
{
    return r ? r->container : FOVEA_CONTAINER_AUTO;
}

fovea_hwdec fovea_reader_hwdec(const fovea_reader *r)
{
    return r ? r->hwdec : FOVEA_HWDEC_NONE;
}

const char *fovea_reader_hwdec_reason(const fovea_reader *r)
{
    return r && r->hwdec_reason[0] ? r->hwdec_reason : NULL;
}

int fv_reader_read(fovea_reader *r, fovea_frame *f)
{
    if (!r || !f)
        return FOVEA_ERR_INVALID_ARG;
    if (!f->buf && !f->data[0]) {
        int st =
            fovea_frame_alloc(NULL, f, r->info.width, r->info.height, r->info.fmt, FOVEA_MEM_HOST);
        if (st < 0)
            return fv_reader_fail(r, st, "cannot allocate a %dx%d frame", r->info.width,
                                  r->info.height);
    } else if (f->width != r->info.width || f->height != r->info.height || f->fmt != r->info.fmt ||
               (f->mem == FOVEA_MEM_DEVICE && r->hwdec != FOVEA_HWDEC_CUDA)) {
        return fv_reader_fail(r, FOVEA_ERR_INVALID_ARG,
                              "destination frame does not match the stream (%dx%d %s)",
                              r->info.width, r->info.height, fovea_pixfmt_name(r->info.fmt));
    } else {
        char msg[256];
        const int st = fv_frame_check_buf(f, "destination frame", msg, sizeof(msg));
        if (st < 0)
            return fv_reader_fail(r, st, "%s", msg);
    }
    int st = r->ops->read(r, f);
    if (st == FOVEA_OK) {
        f->index = r->next_index;
        r->next_index++;
    }
    return st;
}

int fovea_reader_skip(fovea_reader *r, int64_t n)
{
    fovea_frame tmp;
    memset(&tmp, 0, sizeof(tmp));
    int st = FOVEA_OK;
    for (int64_t i = 0; i < n && st == FOVEA_OK; i++)
        st = fv_reader_read(r, &tmp);
    fovea_frame_free(NULL, &tmp);
    return st < 0 ? fv_ctx_error(r ? r->ctx : NULL, st, "%s", r ? r->err : "") : st;
}

int fovea_reader_open(fovea_reader **out, fovea_context *ctx, const char *path,
                      const fovea_reader_settings *opt)
{
    char err[FOVEA_ERRLEN] = "";
    int st = reader_open_buf(out, ctx, path, opt, err, sizeof(err));
    if (st < 0)
        return fv_ctx_error(ctx, st, "%s", err);
    (*out)->ctx = ctx;
    return st;
}

int fv_reader_open_stream(fovea_context *ctx, fovea_reader **out, FILE *fp, const char *name,
                          const fovea_reader_settings *opt)
{
    char err[FOVEA_ERRLEN] = "";
    int st = reader_open_stream_buf(out, ctx, fp, name, opt, err, sizeof(err));
    if (st < 0)
        return fv_ctx_error(ctx, st, "%s", err);
    (*out)->ctx = ctx;
    return st;
}

int fovea_reader_read(fovea_reader *r, fovea_frame *f)
{
    int st = fv_reader_read(r, f);
    return st < 0 && r ? fv_ctx_error(r->ctx, st, "%s", r->err) : st;
}

void fovea_reader_close(fovea_reader **pr)
{
    if (!pr || !*pr)
        return;
    struct fovea_reader *r = *pr;
    if (r->ops && r->ops->close)
        r->ops->close(r);
    if (r->fp && r->own_fp)
        fclose(r->fp);
    free(r->path);
    free(r);
    *pr = NULL;
}
