/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Image sequences: a PNG or PNM path with a frame-number pattern read as a
 * video, one inner one-image reader (reader.c) a file. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/core.h"
#include "io_internal.h"

/* A PNG or PNM path with a frame-number pattern (in%03d.png) read as a video:
 * file number `first` (0, else 1), then every next number until one is missing.
 * Each file is opened by an inner one-image reader when the previous one is
 * used up; every image must have the first one's size and format. */
typedef struct seq_reader {
    fovea_reader_settings opt; /* the container, forced for every file */
    int64_t next;              /* number of the file the inner reader has open */
    struct fovea_reader *cur;  /* the open file's reader (NULL after the last) */
} seq_reader;

static int seq_name(const char *pattern, int64_t n, char *buf, size_t len)
{
    if (n < 0 || n > INT32_MAX)
        return -1;
    const int k = snprintf(buf, len, pattern, (int)n);
    return k < 0 || (size_t)k >= len ? -1 : 0;
}

static int seq_exists(const char *pattern, int64_t n)
{
    char name[4096];
    struct stat st;
    return seq_name(pattern, n, name, sizeof(name)) == 0 && stat(name, &st) == 0;
}

/* Open file number n of r's pattern into sq->cur. @return FOVEA_OK, or a
 * status with the message in r->err */
static int seq_open_file(struct fovea_reader *r, seq_reader *sq, int64_t n)
{
    char name[4096], err[FOVEA_IO_ERRLEN] = "";
    if (seq_name(r->path, n, name, sizeof(name)) < 0)
        return fv_reader_fail(r, FOVEA_ERR_INVALID_ARG, "file number %lld: name too long",
                              (long long)n);
    /* the file's own name is not a pattern, whatever '%' a literal "%%" left in it */
    int st = fv_reader_open_path(&sq->cur, NULL, name, &sq->opt, 0, err, sizeof(err));
    if (st < 0) {
        snprintf(r->err, sizeof(r->err), "%s", err);
        return st;
    }
    sq->next = n;
    return FOVEA_OK;
}

static int seq_read(struct fovea_reader *r, fovea_frame *f)
{
    seq_reader *sq = r->priv;
    for (;;) {
        if (!sq->cur)
            return FOVEA_EOF;
        int st = fv_reader_read(sq->cur, f);
        if (st != FOVEA_EOF) {
            if (st < 0)
                snprintf(r->err, sizeof(r->err), "%s", sq->cur->err);
            return st;
        }
        fovea_reader_close(&sq->cur);
        if (!seq_exists(r->path, sq->next + 1))
            return FOVEA_EOF;
        if ((st = seq_open_file(r, sq, sq->next + 1)) < 0)
            return st;
        const fovea_video_info *in = &sq->cur->info;
        if (in->width != r->info.width || in->height != r->info.height || in->fmt != r->info.fmt) {
            snprintf(r->err, sizeof(r->err),
                     "%s: frame %lld is %dx%d %s but the sequence %s is %dx%d %s", sq->cur->path,
                     (long long)r->next_index, in->width, in->height, fovea_pixfmt_name(in->fmt),
                     r->path, r->info.width, r->info.height, fovea_pixfmt_name(r->info.fmt));
            fovea_reader_close(&sq->cur);
            return FOVEA_ERR_MISMATCH;
        }
    }
}

static void seq_close(struct fovea_reader *r)
{
    seq_reader *sq = r->priv;
    if (sq) {
        fovea_reader_close(&sq->cur);
        free(sq);
    }
    r->priv = NULL;
}

static const struct fv_reader_ops seq_reader_ops = {"sequence", NULL, seq_read, seq_close};

int fv_seq_reader_open(fovea_reader **out, const char *path, fovea_container c, char *errbuf,
                       size_t errbuf_size)
{
    char name0[4096], name1[4096];
    if (seq_name(path, 0, name0, sizeof(name0)) < 0 ||
        seq_name(path, 1, name1, sizeof(name1)) < 0) {
        fv_io_set_err(errbuf, errbuf_size, path, "file name pattern too long");
        return FOVEA_ERR_INVALID_ARG;
    }
    const int64_t first = seq_exists(path, 0) ? 0 : seq_exists(path, 1) ? 1 : -1;
    if (first < 0) {
        char msg[FOVEA_IO_ERRLEN + 8192];
        snprintf(msg, sizeof(msg), "no image of the sequence: neither %s nor %s exists", name0,
                 name1);
        fv_io_set_err(errbuf, errbuf_size, path, msg);
        return FOVEA_ERR_IO;
    }
    struct fovea_reader *r = calloc(1, sizeof(*r));
    seq_reader *sq = calloc(1, sizeof(*sq));
    if (!r || !sq || !(r->path = strdup(path))) {
        free(r);
        free(sq);
        fv_io_set_err(errbuf, errbuf_size, path, "out of memory");
        return FOVEA_ERR_NOMEM;
    }
    r->ops = &seq_reader_ops;
    r->container = c;
    r->file_size = -1;
    r->priv = sq;
    fovea_video_info_init(&r->info);
    fovea_reader_default_settings(&sq->opt);
    sq->opt.container = c;
    int st = seq_open_file(r, sq, first);
    if (st < 0) {
        if (errbuf && errbuf_size)
            snprintf(errbuf, errbuf_size, "%s", r->err);
        fovea_reader_close(&r);
        return st;
    }
    r->info.width = sq->cur->info.width;
    r->info.height = sq->cur->info.height;
    r->info.fmt = sq->cur->info.fmt;
    int64_t n = 1;
    while (first + n <= INT32_MAX && seq_exists(path, first + n))
        n++;
    r->info.frame_count = n;
    *out = r;
    return FOVEA_OK;
}
