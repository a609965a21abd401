/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The generic writer: picks the container, writes through fovea_outfile
 * (one output, or one file a frame for a pattern path), refuses an output that
 * is an input. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "io_internal.h"
#include "io/io_buf.h"

static const struct fv_writer_ops *writer_ops_for(fovea_container c)
{
    switch (c) {
    case FOVEA_CONTAINER_Y4M: return &fv_y4m_writer_ops;
    case FOVEA_CONTAINER_YUV: return &fv_yuv_writer_ops;
    case FOVEA_CONTAINER_PNM: return &fv_pnm_writer_ops;
    case FOVEA_CONTAINER_PNG: return &fv_png_writer_ops;
    case FOVEA_CONTAINER_MEDIA: return &fv_media_writer_ops;
    default: return NULL;
    }
}

static int writer_open_buf(fovea_writer **out, const char *path, fovea_container container,
                           const fovea_video_info *info, char *errbuf, size_t errbuf_size)
{
    if (!out || !path || !info) {
        fv_io_set_err(errbuf, errbuf_size, path ? path : "(null)", "invalid argument");
        return FOVEA_ERR_INVALID_ARG;
    }
    *out = NULL;
    fovea_container c = container;
    if (c == FOVEA_CONTAINER_AUTO)
        c = fovea_container_from_path(path);
    const struct fv_writer_ops *ops = writer_ops_for(c);
    if (!ops) {
        fv_io_set_err(errbuf, errbuf_size, path,
                      "unknown file type (use .y4m, .yuv, .pgm/.ppm/.pnm, .png, or .mp4, "
                      ".mkv, .webm, .mov)");
        return FOVEA_ERR_UNSUPPORTED;
    }
    if (info->width <= 0 || info->height <= 0 || info->width > FOVEA_MAX_DIM ||
        info->height > FOVEA_MAX_DIM || !fovea_pixfmt_get_desc(info->fmt)) {
        fv_io_set_err(errbuf, errbuf_size, path, "invalid frame size or pixel format");
        return FOVEA_ERR_INVALID_ARG;
    }
    struct fovea_writer *w = calloc(1, sizeof(*w));
    if (!w || !(w->path = strdup(path))) {
        free(w);
        fv_io_set_err(errbuf, errbuf_size, path, "out of memory");
        return FOVEA_ERR_NOMEM;
    }
    w->ops = ops;
    w->info = *info;
    w->enc_crf = -1;
    /* only one-image-per-file containers treat the path as a pattern */
    int pattern = ops->single_image ? fv_io_frame_pattern(path) : 0;
    if (pattern < 0) {
        fv_io_set_err(errbuf, errbuf_size, path,
                      "bad frame-number pattern (use one %d, %4d or %04d; %% for a literal %)");
        free(w->path);
        free(w);
        return FOVEA_ERR_INVALID_ARG;
    }
    int per_frame_files = ops->single_image && pattern == 1;
    if (!per_frame_files) {
        int st = fv_outfile_open_buf(&w->of, path, errbuf, errbuf_size);
        if (st < 0) {
            free(w->path);
            free(w);
            return st;
        }
        w->fp = fovea_outfile_file(w->of);
    }
    int st = ops->open(w);
    if (st < 0) {
        if (errbuf && errbuf_size)
            snprintf(errbuf, errbuf_size, "%s", w->err[0] ? w->err : fovea_strerror(st));
        fovea_outfile_close(&w->of);
        free(w->path);
        free(w);
        return st;
    }
    *out = w;
    return FOVEA_OK;
}

/* A copy of of's temporary's path for the hook's "gone" call (made before
 * the commit or close that frees it), or NULL when nobody watches. */
static char *watched_temp(const fovea_writer *w, const fovea_outfile *of)
{
    const char *tmp = fovea_outfile_temp_path(of);
    return w->temp_hook && tmp ? strdup(tmp) : NULL;
}

/* The hook's "gone" call for a copy from watched_temp, which it frees. */
static void temp_gone(const fovea_writer *w, char *tmp)
{
    if (tmp && w->temp_hook)
        w->temp_hook(w->temp_opaque, tmp, 0);
    free(tmp);
}

static int writer_write(fovea_writer *w, const fovea_frame *f)
{
    if (!w)
        return FOVEA_ERR_INVALID_ARG;
    char bad[256];
    int st = fv_frame_check_buf(f, "frame", bad, sizeof(bad));
    if (st < 0)
        return fv_writer_fail(w, st, "%s", bad);
    if (f->mem == FOVEA_MEM_DEVICE)
        return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "frame is in device memory");
    if (f->width != w->info.width || f->height != w->info.height || f->fmt != w->info.fmt)
        return fv_writer_fail(w, FOVEA_ERR_MISMATCH, "frame %lld is %dx%d %s, stream is %dx%d %s",
                              (long long)w->frames_written, f->width, f->height,
                              fovea_pixfmt_name(f->fmt), w->info.width, w->info.height,
                              fovea_pixfmt_name(w->info.fmt));
    if (w->failed)
        return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "an earlier write failed");
    if (w->finished)
        return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "the output is already finished");
    if (w->fp) {
        if (w->ops->single_image && w->frames_written > 0)
            return fv_writer_fail(w, FOVEA_ERR_UNSUPPORTED,
                                  "%s holds one image; use a pattern like out%%04d.%s for "
                                  "several frames",
                                  w->ops->name, w->ops->name);
        st = w->ops->write(w, w->fp, f);
    } else {
        char name[4096];
        int n = snprintf(name, sizeof(name), w->path, (int)w->frames_written);
        if (n < 0 || (size_t)n >= sizeof(name))
            return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "bad file name pattern");
        for (int i = 0; i < w->nprotect; i++)
            if (fovea_same_file(name, w->protect[i])) {
                snprintf(w->err, sizeof(w->err), "%s: output is the same file as input %s", name,
                         w->protect[i]);
                return FOVEA_ERR_INVALID_ARG;
            }
        fovea_outfile *of;
        char msg[FOVEA_IO_ERRLEN];
        st = fv_outfile_open_buf(&of, name, msg, sizeof(msg));
        if (st < 0) {
            snprintf(w->err, sizeof(w->err), "%s", msg);
            return st; /* nothing written: the stream may go on */
        }
        char *tmp = watched_temp(w, of);
        if (tmp)
            w->temp_hook(w->temp_opaque, tmp, 1);
        st = w->ops->write(w, fovea_outfile_file(of), f);
        if (st == FOVEA_OK) {
            st = fv_outfile_commit_buf(&of, msg, sizeof(msg));
            if (st < 0)
                snprintf(w->err, sizeof(w->err), "%s", msg);
        } else {
            fovea_outfile_close(&of);
        }
        temp_gone(w, tmp);
    }
    if (st == FOVEA_OK)
        w->frames_written++;
    else if (w->fp)
        w->failed = 1; /* the stream holds part of a frame */
    return st;
}

int fovea_writer_open(fovea_writer **out, fovea_context *ctx, const char *path,
                      fovea_container container, const fovea_video_info *info)
{
    char err[FOVEA_ERRLEN] = "";
    int st = writer_open_buf(out, path, container, info, err, sizeof(err));
    if (st < 0)
        return fv_ctx_error(ctx, st, "%s", err);
    (*out)->ctx = ctx;
    return st;
}

int fovea_writer_write(fovea_writer *w, const fovea_frame *f)
{
    int st = writer_write(w, f);
    return st < 0 && w ? fv_ctx_error(w->ctx, st, "%s", w->err) : st;
}

static int writer_finish(fovea_writer *w)
{
    if (!w)
        return FOVEA_ERR_INVALID_ARG;
    if (w->failed)
        return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "a write failed: nothing to finish");
    if (w->finished)
        return FOVEA_OK;
    w->finished = 1;
    if (!w->of)
        return FOVEA_OK; /* per-frame files are complete as each is written */
    char msg[FOVEA_IO_ERRLEN];
    if (w->ops->finish) {
        int st = w->ops->finish(w);
        if (st < 0) {
            w->failed = 1;
            return st;
        }
    }
    w->fp = NULL;
    char *tmp = watched_temp(w, w->of);
    int st = fv_outfile_commit_buf(&w->of, msg, sizeof(msg));
    temp_gone(w, tmp);
    if (st < 0) {
        w->failed = 1;
        snprintf(w->err, sizeof(w->err), "%s", msg);
    }
    return st;
}

int fovea_writer_finish(fovea_writer *w)
{
    int st = writer_finish(w);
    return st < 0 && w ? fv_ctx_error(w->ctx, st, "%s", w->err) : st;
}

static int writer_protect(fovea_writer *w, const char *input)
{
    if (!w || !input)
        return FOVEA_ERR_INVALID_ARG;
    if (w->of && fovea_same_file(w->path, input))
        return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "output is the same file as input %s",
                              input);
    char **p = realloc(w->protect, (size_t)(w->nprotect + 1) * sizeof(*p));
    if (!p)
        return fv_writer_fail(w, FOVEA_ERR_NOMEM, "out of memory");
    w->protect = p;
    if (!(p[w->nprotect] = strdup(input)))
        return fv_writer_fail(w, FOVEA_ERR_NOMEM, "out of memory");
    w->nprotect++;
    return FOVEA_OK;
}

int fovea_writer_protect(fovea_writer *w, const char *input)
{
    int st = writer_protect(w, input);
    return st < 0 && w ? fv_ctx_error(w->ctx, st, "%s", w->err) : st;
}

int fovea_writer_set_temp_hook(fovea_writer *w, fovea_temp_hook hook, void *opaque)
{
    if (!w)
        return FOVEA_ERR_INVALID_ARG;
    w->temp_hook = hook;
    w->temp_opaque = opaque;
    const char *tmp = fovea_outfile_temp_path(w->of);
    if (hook && tmp)
        hook(opaque, tmp, 1);
    return FOVEA_OK;
}

static void free_options(char **opts)
{
    for (size_t i = 0; opts && opts[i]; i++)
        free(opts[i]);
    free(opts);
}

int fovea_writer_set_encoder(fovea_writer *w, const fovea_encoder_settings *s)
{
    if (!w || !s)
        return fv_ctx_error(w ? w->ctx : NULL, FOVEA_ERR_INVALID_ARG, "invalid argument");
    if (w->frames_written > 0)
        return fv_ctx_error(
            w->ctx,
            fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "the encoder is set before the first frame"),
            "%s", w->err);
    size_t n = 0;
    while (s->options && s->options[n])
        n++;
    char *codec = s->codec ? strdup(s->codec) : NULL;
    char **opts = n ? calloc(n + 1, sizeof(*opts)) : NULL;
    int bad = (s->codec && !codec) || (n && !opts);
    for (size_t i = 0; i < n && !bad; i++)
        bad = !(opts[i] = strdup(s->options[i]));
    if (bad) {
        free(codec);
        free_options(opts);
        return fv_ctx_error(w->ctx, fv_writer_fail(w, FOVEA_ERR_NOMEM, "out of memory"), "%s",
                            w->err);
    }
    free(w->enc_codec);
    free_options(w->enc_options);
    w->enc_codec = codec;
    w->enc_options = opts;
    w->enc_crf = s->crf;
    return FOVEA_OK;
}

static void writer_free(struct fovea_writer *w)
{
    if (w->ops->close)
        w->ops->close(w);
    free(w->enc_codec);
    free_options(w->enc_options);
    for (int i = 0; i < w->nprotect; i++)
        free(w->protect[i]);
    free(w->protect);
    free(w->path);
    free(w);
}

void fovea_writer_close(fovea_writer **pw)
{
    if (!pw || !*pw)
        return;
    struct fovea_writer *w = *pw;
    char *tmp = watched_temp(w, w->of);
    fovea_outfile_close(&w->of);
    temp_gone(w, tmp);
    writer_free(w);
    *pw = NULL;
}
