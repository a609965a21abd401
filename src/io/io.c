/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* What the readers, writers and formats share: messages, whole-file and
 * one-image readers, the plane I/O of the planar formats (y4m, raw yuv), the
 * containers' names, and frame-number patterns. reader.c, sequence.c and
 * writer.c hold the generic reader and writer. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/core.h"
#include "io_internal.h"
#include "io/io_buf.h"

void fovea_video_info_init(fovea_video_info *info)
{
    memset(info, 0, sizeof(*info));
    info->interlace = '?';
    info->frame_count = -1;
    info->start_time_us = INT64_MIN;
}

void fovea_reader_default_settings(fovea_reader_settings *o)
{
    memset(o, 0, sizeof(*o));
    o->container = FOVEA_CONTAINER_AUTO;
    o->stream = -1;
}

void fovea_encoder_default_settings(fovea_encoder_settings *s)
{
    memset(s, 0, sizeof(*s));
    s->crf = -1;
}

static const char *display_path(const char *path)
{
    return strcmp(path, "-") == 0 ? "stdin" : path;
}

int fv_reader_fail(struct fovea_reader *r, int status, const char *fmt, ...)
{
    char msg[FOVEA_IO_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(r->err, sizeof(r->err), "%s: %s", display_path(r->path), msg);
    return status;
}

int fv_writer_fail(struct fovea_writer *w, int status, const char *fmt, ...)
{
    char msg[FOVEA_IO_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(w->err, sizeof(w->err), "%s: %s", strcmp(w->path, "-") == 0 ? "stdout" : w->path, msg);
    return status;
}

size_t fv_io_read_full(FILE *fp, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        size_t k = fread((uint8_t *)buf + got, 1, n - got, fp);
        if (k == 0)
            break;
        got += k;
    }
    return got;
}

int fv_reader_slurp(struct fovea_reader *r, size_t limit, uint8_t **data, size_t *size)
{
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    *data = NULL;
    *size = 0;
    if (!buf)
        return fv_reader_fail(r, FOVEA_ERR_NOMEM, "out of memory");
    for (;;) {
        if (len == cap) {
            if (cap >= limit) {
                free(buf);
                return fv_reader_fail(r, FOVEA_ERR_CORRUPT, "file larger than %zu bytes", limit);
            }
            size_t ncap = cap * 2 > limit ? limit : cap * 2;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                return fv_reader_fail(r, FOVEA_ERR_NOMEM, "out of memory");
            }
            buf = nb;
            cap = ncap;
        }
        size_t k = fread(buf + len, 1, cap - len, r->fp);
        if (k == 0)
            break;
        len += k;
    }
    if (ferror(r->fp)) {
        free(buf);
        return fv_reader_fail(r, FOVEA_ERR_IO, "read error: %s", strerror(errno));
    }
    *data = buf;
    *size = len;
    return FOVEA_OK;
}

typedef struct still_reader {
    fovea_frame img;
    int done;
} still_reader;

int fv_still_reader_open(struct fovea_reader *r, size_t limit, fv_decode_fn decode)
{
    uint8_t *data;
    size_t size;
    int st = fv_reader_slurp(r, limit, &data, &size);
    if (st < 0)
        return st;
    still_reader *sr = calloc(1, sizeof(*sr));
    if (!sr) {
        free(data);
        return fv_reader_fail(r, FOVEA_ERR_NOMEM, "out of memory");
    }
    char msg[FOVEA_IO_ERRLEN];
    st = decode(data, size, &sr->img, msg, sizeof(msg));
    free(data);
    if (st < 0) {
        free(sr);
        return fv_reader_fail(r, st, "%s", msg);
    }
    r->priv = sr;
    r->info.width = sr->img.width;
    r->info.height = sr->img.height;
    r->info.fmt = sr->img.fmt;
    r->info.frame_count = 1;
    return FOVEA_OK;
}

int fv_still_reader_read(struct fovea_reader *r, fovea_frame *f)
{
    still_reader *sr = r->priv;
    if (sr->done)
        return FOVEA_EOF;
    int st = fovea_frame_copy(NULL, f, &sr->img);
    if (st < 0)
        return fv_reader_fail(r, st, "cannot copy the decoded image");
    sr->done = 1;
    /* one image per file: the decoded copy is no longer needed */
    fovea_frame_free(NULL, &sr->img);
    return FOVEA_OK;
}

void fv_still_reader_close(struct fovea_reader *r)
{
    still_reader *sr = r->priv;
    if (sr) {
        fovea_frame_free(NULL, &sr->img);
        free(sr);
    }
    r->priv = NULL;
}

/* Plane p of f as `*rows` pieces of `*len` bytes, stride apart: its rows, or
 * one piece when the rows have no padding between them (then large reads and
 * writes bypass the stdio buffer: a copy less, far fewer system calls). */
static void plane_pieces(const fovea_frame *f, int p, size_t *len, int *rows)
{
    *len = fovea_plane_row_bytes(f->fmt, f->width, p);
    *rows = fovea_plane_height(f->fmt, f->height, p);
    if (f->stride[p] == (ptrdiff_t)*len) {
        *len *= (size_t)*rows;
        *rows = 1;
    }
}

int fv_io_read_planes(struct fovea_reader *r, fovea_frame *f)
{
    const size_t total = fovea_frame_packed_size(f->fmt, f->width, f->height);
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    size_t done = 0;
    for (int p = 0; p < d->planes; p++) {
        size_t row;
        int rows;
        plane_pieces(f, p, &row, &rows);
        for (int y = 0; y < rows; y++) {
            size_t got = fv_io_read_full(r->fp, f->data[p] + (ptrdiff_t)y * f->stride[p], row);
            done += got;
            if (got < row) {
                if (done == 0 && !ferror(r->fp))
                    return FOVEA_EOF;
                if (ferror(r->fp))
                    return fv_reader_fail(r, FOVEA_ERR_IO, "frame %lld: read error: %s",
                                          (long long)r->next_index, strerror(errno));
                return fv_reader_fail(r, FOVEA_ERR_CORRUPT,
                                      "frame %lld: truncated: got %zu of %zu bytes",
                                      (long long)r->next_index, done, total);
            }
        }
    }
    return FOVEA_OK;
}

/* Write all of iov[0..n) to fd (partial writes and interrupted calls resumed).
 * @return 0, or -1 with errno set */
static int writev_all(int fd, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t k = writev(fd, iov, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (k == 0) {
            errno = EIO;
            return -1;
        }
        while (n > 0 && (size_t)k >= iov->iov_len) {
            k -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + k;
            iov->iov_len -= (size_t)k;
        }
    }
    return 0;
}

/* The rows of every plane straight from the frame to the file descriptor,
 * hundreds of rows per writev (a plane without row padding as one piece):
 * no copy through the stdio buffer and a few system calls per frame instead
 * of one or two per row (a 5700x1900 I420 frame written row by row took
 * 9-10 ms on the GPU machine). Whatever stdio holds is flushed first. */
static int write_planes_fd(int fd, FILE *fp, const fovea_frame *f, const fovea_pixfmt_desc *d)
{
    if (fflush(fp) != 0)
        return -1;
    enum { CHUNK = 512 };
    struct iovec iov[CHUNK];
    int n = 0;
    for (int p = 0; p < d->planes; p++) {
        size_t row;
        int rows;
        plane_pieces(f, p, &row, &rows);
        for (int y = 0; y < rows; y++) {
            iov[n].iov_base = f->data[p] + (ptrdiff_t)y * f->stride[p];
            iov[n].iov_len = row;
            if (++n == CHUNK) {
                if (writev_all(fd, iov, n) != 0)
                    return -1;
                n = 0;
            }
        }
    }
    return n > 0 ? writev_all(fd, iov, n) : 0;
}

int fv_io_write_planes(struct fovea_writer *w, FILE *fp, const fovea_frame *f)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    const int fd = fileno(fp);
    if (fd >= 0) {
        if (write_planes_fd(fd, fp, f, d) != 0)
            return fv_writer_fail(w, FOVEA_ERR_IO, "write error: %s", strerror(errno));
        return FOVEA_OK;
    }
    for (int p = 0; p < d->planes; p++) {
        size_t row = fovea_plane_row_bytes(f->fmt, f->width, p);
        int rows = fovea_plane_height(f->fmt, f->height, p);
        for (int y = 0; y < rows; y++) {
            if (fwrite(f->data[p] + (ptrdiff_t)y * f->stride[p], 1, row, fp) != row)
                return fv_writer_fail(w, FOVEA_ERR_IO, "write error: %s", strerror(errno));
        }
    }
    return FOVEA_OK;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (m > n)
        return 0;
    for (size_t i = 0; i < m; i++) {
        char a = s[n - m + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (a != b)
            return 0;
    }
    return 1;
}

fovea_container fovea_container_from_path(const char *path)
{
    if (!path)
        return FOVEA_CONTAINER_AUTO;
    if (strcmp(path, "-") == 0 || ends_with(path, ".y4m"))
        return FOVEA_CONTAINER_Y4M;
    if (ends_with(path, ".yuv") || ends_with(path, ".raw"))
        return FOVEA_CONTAINER_YUV;
    if (ends_with(path, ".pgm") || ends_with(path, ".ppm") || ends_with(path, ".pnm"))
        return FOVEA_CONTAINER_PNM;
    if (ends_with(path, ".png"))
        return FOVEA_CONTAINER_PNG;
    static const char *const media_ext[] = {
        ".mp4", ".mkv", ".webm", ".mov",   ".ts",   ".m2ts", ".mts", ".avi",
        ".m4v", ".mpg", ".mpeg", ".flv",   ".wmv",  ".ogv",  ".3gp", ".mxf",
        ".nut", ".ivf", ".h264", ".264",   ".hevc", ".h265", ".265", ".obu",
        ".dv",  ".vob", ".asf",  ".mjpeg", ".mjpg", ".webp", ".gif"};
    for (size_t i = 0; i < sizeof(media_ext) / sizeof(media_ext[0]); i++)
        if (ends_with(path, media_ext[i]))
            return FOVEA_CONTAINER_MEDIA;
    /* devices: FFmpeg's input device named before a colon */
    static const char *const media_prefix[] = {"v4l2:", "video4linux2:", "lavfi:"};
    for (size_t i = 0; i < sizeof(media_prefix) / sizeof(media_prefix[0]); i++)
        if (strncmp(path, media_prefix[i], strlen(media_prefix[i])) == 0)
            return FOVEA_CONTAINER_MEDIA;
    return FOVEA_CONTAINER_AUTO;
}

const char *fovea_container_name(fovea_container c)
{
    switch (c) {
    case FOVEA_CONTAINER_Y4M: return "y4m";
    case FOVEA_CONTAINER_YUV: return "yuv";
    case FOVEA_CONTAINER_PNM: return "pnm";
    case FOVEA_CONTAINER_PNG: return "png";
    case FOVEA_CONTAINER_MEDIA: return "media";
    default: return "auto";
    }
}

void fv_io_set_err(char *buf, size_t n, const char *path, const char *msg)
{
    if (buf && n)
        snprintf(buf, n, "%s: %s", path, msg);
}

/* 1 when path holds exactly one frame-number directive (%d, %4d, %04d; "%%" is a
 * literal percent), 0 when it holds none, -1 when it holds anything else: the
 * path becomes a printf format, so nothing but one integer directive may pass. */
int fv_io_frame_pattern(const char *path)
{
    int found = 0;
    for (const char *p = path; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        p++;
        if (*p == '0')
            p++;
        int digits = 0;
        while (*p >= '0' && *p <= '9' && digits < 2) {
            p++;
            digits++;
        }
        if (*p != 'd' || found)
            return -1;
        found = 1;
    }
    return found;
}
