/* Generic reader/writer: picks the container, owns the FILE, checks frames,
 * and shares the plane I/O used by the planar formats (y4m, raw yuv). */
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
}

void fovea_reader_default_settings(fovea_reader_settings *o)
{
    memset(o, 0, sizeof(*o));
    o->container = FOVEA_CONTAINER_AUTO;
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
    snprintf(w->err, sizeof(w->err), "%s: %s",
             strcmp(w->path, "-") == 0 ? "stdout" : w->path, msg);
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
                return fv_reader_fail(r, FOVEA_ERR_CORRUPT,
                                         "file larger than %zu bytes", limit);
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
    return FOVEA_CONTAINER_AUTO;
}

const char *fovea_container_name(fovea_container c)
{
    switch (c) {
    case FOVEA_CONTAINER_Y4M: return "y4m";
    case FOVEA_CONTAINER_YUV: return "yuv";
    case FOVEA_CONTAINER_PNM: return "pnm";
    case FOVEA_CONTAINER_PNG: return "png";
    default: return "auto";
    }
}

static const struct fv_reader_ops *reader_ops_for(fovea_container c)
{
    switch (c) {
    case FOVEA_CONTAINER_Y4M: return &fv_y4m_reader_ops;
    case FOVEA_CONTAINER_YUV: return &fv_yuv_reader_ops;
    case FOVEA_CONTAINER_PNM: return &fv_pnm_reader_ops;
    case FOVEA_CONTAINER_PNG: return &fv_png_reader_ops;
    default: return NULL;
    }
}

static const struct fv_writer_ops *writer_ops_for(fovea_container c)
{
    switch (c) {
    case FOVEA_CONTAINER_Y4M: return &fv_y4m_writer_ops;
    case FOVEA_CONTAINER_YUV: return &fv_yuv_writer_ops;
    case FOVEA_CONTAINER_PNM: return &fv_pnm_writer_ops;
    case FOVEA_CONTAINER_PNG: return &fv_png_writer_ops;
    default: return NULL;
    }
}

static void set_err(char *buf, size_t n, const char *path, const char *msg)
{
    if (buf && n)
        snprintf(buf, n, "%s: %s", path, msg);
}

static int finish_open(fovea_reader **out, struct fovea_reader *r,
                       const fovea_reader_settings *opt, char *errbuf, size_t errbuf_size)
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

static int has_frame_pattern(const char *path);

/* ---------------------------------------------------------------- image sequences */

/* A PNG or PNM path with a frame-number pattern (in%03d.png) read as a video:
 * file number `first` (0, else 1), then every next number until one is missing.
 * Each file is opened by an inner one-image reader when the previous one is
 * used up; every image must have the first one's size and format. */
typedef struct seq_reader {
    fovea_reader_settings opt; /* the container, forced for every file */
    int64_t next;             /* number of the file the inner reader has open */
    struct fovea_reader *cur; /* the open file's reader (NULL after the last) */
} seq_reader;

static int reader_open_path(fovea_reader **out, const char *path,
                            const fovea_reader_settings *opt, int allow_pattern, char *errbuf,
                            size_t errbuf_size);
static int reader_read(fovea_reader *r, fovea_frame *f);

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
    int st = reader_open_path(&sq->cur, name, &sq->opt, 0, err, sizeof(err));
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
        int st = reader_read(sq->cur, f);
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
        if (in->width != r->info.width || in->height != r->info.height ||
            in->fmt != r->info.fmt) {
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

static int seq_open(fovea_reader **out, const char *path, fovea_container c, char *errbuf,
                    size_t errbuf_size)
{
    char name0[4096], name1[4096];
    if (seq_name(path, 0, name0, sizeof(name0)) < 0 || seq_name(path, 1, name1, sizeof(name1)) < 0) {
        set_err(errbuf, errbuf_size, path, "file name pattern too long");
        return FOVEA_ERR_INVALID_ARG;
    }
    const int64_t first = seq_exists(path, 0) ? 0 : seq_exists(path, 1) ? 1 : -1;
    if (first < 0) {
        char msg[FOVEA_IO_ERRLEN + 8192];
        snprintf(msg, sizeof(msg), "no image of the sequence: neither %s nor %s exists", name0,
                 name1);
        set_err(errbuf, errbuf_size, path, msg);
        return FOVEA_ERR_IO;
    }
    struct fovea_reader *r = calloc(1, sizeof(*r));
    seq_reader *sq = calloc(1, sizeof(*sq));
    if (!r || !sq || !(r->path = strdup(path))) {
        free(r);
        free(sq);
        set_err(errbuf, errbuf_size, path, "out of memory");
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

static int reader_open_path(fovea_reader **out, const char *path,
                            const fovea_reader_settings *opt, int allow_pattern, char *errbuf,
                            size_t errbuf_size)
{
    fovea_reader_settings defaults;
    if (!out || !path) {
        set_err(errbuf, errbuf_size, path ? path : "(null)", "invalid argument");
        return FOVEA_ERR_INVALID_ARG;
    }
    *out = NULL;
    if (!opt) {
        fovea_reader_default_settings(&defaults);
        opt = &defaults;
    }
    fovea_container c = opt->container;
    if (c == FOVEA_CONTAINER_AUTO)
        c = fovea_container_from_path(path);
    const struct fv_reader_ops *ops = reader_ops_for(c);
    /* one-image containers read a path with a frame-number pattern as a video */
    if (allow_pattern && (c == FOVEA_CONTAINER_PNG || c == FOVEA_CONTAINER_PNM) &&
        has_frame_pattern(path) == 1)
        return seq_open(out, path, c, errbuf, errbuf_size);
    struct fovea_reader *r = calloc(1, sizeof(*r));
    if (!r || !(r->path = strdup(path))) {
        free(r);
        set_err(errbuf, errbuf_size, path, "out of memory");
        return FOVEA_ERR_NOMEM;
    }
    r->ops = ops;
    r->container = c;
    r->file_size = -1;
    fovea_video_info_init(&r->info);
    if (strcmp(path, "-") == 0) {
        r->fp = stdin;
    } else {
        r->fp = fopen(path, "rb");
        if (!r->fp) {
            set_err(errbuf, errbuf_size, path, strerror(errno));
            free(r->path);
            free(r);
            return FOVEA_ERR_IO;
        }
        r->own_fp = 1;
        struct stat st;
        if (fstat(fileno(r->fp), &st) == 0 && S_ISREG(st.st_mode))
            r->file_size = (long long)st.st_size;
        if (fstat(fileno(r->fp), &st) == 0 && S_ISDIR(st.st_mode)) {
            set_err(errbuf, errbuf_size, path, "is a directory");
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
        r->ops = reader_ops_for(r->container);
        if (!r->ops) {
            set_err(errbuf, errbuf_size, path,
                    empty ? "empty file, and its name does not tell its type (.y4m, .yuv, "
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

static int reader_open_buf(fovea_reader **out, const char *path,
                           const fovea_reader_settings *opt, char *errbuf, size_t errbuf_size)
{
    return reader_open_path(out, path, opt, 1, errbuf, errbuf_size);
}

static int reader_open_stream_buf(fovea_reader **out, FILE *fp, const char *name,
                                  const fovea_reader_settings *opt, char *errbuf,
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
        set_err(errbuf, errbuf_size, name, "unknown file type");
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

static int reader_read(fovea_reader *r, fovea_frame *f)
{
    if (!r || !f)
        return FOVEA_ERR_INVALID_ARG;
    if (!f->buf && !f->data[0]) {
        int st = fovea_frame_alloc(NULL, f, r->info.width, r->info.height, r->info.fmt,
                                   FOVEA_MEM_HOST);
        if (st < 0)
            return fv_reader_fail(r, st, "cannot allocate a %dx%d frame",
                                     r->info.width, r->info.height);
    } else if (f->width != r->info.width || f->height != r->info.height ||
               f->fmt != r->info.fmt || f->mem == FOVEA_MEM_DEVICE) {
        return fv_reader_fail(r, FOVEA_ERR_INVALID_ARG,
                                 "destination frame does not match the stream (%dx%d %s)",
                                 r->info.width, r->info.height, fovea_pixfmt_name(r->info.fmt));
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
        st = reader_read(r, &tmp);
    fovea_frame_free(NULL, &tmp);
    return st < 0 ? fv_ctx_error(r ? r->ctx : NULL, st, "%s", r ? r->err : "") : st;
}

int fovea_reader_open(fovea_reader **out, fovea_context *ctx, const char *path,
                      const fovea_reader_settings *opt)
{
    char err[FOVEA_ERRLEN] = "";
    int st = reader_open_buf(out, path, opt, err, sizeof(err));
    if (st < 0)
        return fv_ctx_error(ctx, st, "%s", err);
    (*out)->ctx = ctx;
    return st;
}

int fv_reader_open_stream(fovea_context *ctx, fovea_reader **out, FILE *fp, const char *name,
                             const fovea_reader_settings *opt)
{
    char err[FOVEA_ERRLEN] = "";
    int st = reader_open_stream_buf(out, fp, name, opt, err, sizeof(err));
    if (st < 0)
        return fv_ctx_error(ctx, st, "%s", err);
    (*out)->ctx = ctx;
    return st;
}

int fovea_reader_read(fovea_reader *r, fovea_frame *f)
{
    int st = reader_read(r, f);
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

/* 1 when path holds exactly one frame-number directive (%d, %4d, %04d; "%%" is a
 * literal percent), 0 when it holds none, -1 when it holds anything else: the
 * path becomes a printf format, so nothing but one integer directive may pass. */
static int has_frame_pattern(const char *path)
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

static int writer_open_buf(fovea_writer **out, const char *path, fovea_container container,
                           const fovea_video_info *info, char *errbuf, size_t errbuf_size)
{
    if (!out || !path || !info) {
        set_err(errbuf, errbuf_size, path ? path : "(null)", "invalid argument");
        return FOVEA_ERR_INVALID_ARG;
    }
    *out = NULL;
    fovea_container c = container;
    if (c == FOVEA_CONTAINER_AUTO)
        c = fovea_container_from_path(path);
    const struct fv_writer_ops *ops = writer_ops_for(c);
    if (!ops) {
        set_err(errbuf, errbuf_size, path,
                "unknown file type (use .y4m, .yuv, .pgm/.ppm/.pnm or .png)");
        return FOVEA_ERR_UNSUPPORTED;
    }
    if (info->width <= 0 || info->height <= 0 || info->width > FOVEA_MAX_DIM ||
        info->height > FOVEA_MAX_DIM || !fovea_pixfmt_get_desc(info->fmt)) {
        set_err(errbuf, errbuf_size, path, "invalid frame size or pixel format");
        return FOVEA_ERR_INVALID_ARG;
    }
    struct fovea_writer *w = calloc(1, sizeof(*w));
    if (!w || !(w->path = strdup(path))) {
        free(w);
        set_err(errbuf, errbuf_size, path, "out of memory");
        return FOVEA_ERR_NOMEM;
    }
    w->ops = ops;
    w->info = *info;
    /* only one-image-per-file containers treat the path as a pattern */
    int pattern = ops->single_image ? has_frame_pattern(path) : 0;
    if (pattern < 0) {
        set_err(errbuf, errbuf_size, path,
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

static int writer_write(fovea_writer *w, const fovea_frame *f)
{
    if (!w || !f || !f->data[0])
        return FOVEA_ERR_INVALID_ARG;
    if (f->mem == FOVEA_MEM_DEVICE)
        return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "frame is in device memory");
    if (f->width != w->info.width || f->height != w->info.height || f->fmt != w->info.fmt)
        return fv_writer_fail(w, FOVEA_ERR_MISMATCH,
                                 "frame %lld is %dx%d %s, stream is %dx%d %s",
                                 (long long)w->frames_written, f->width, f->height,
                                 fovea_pixfmt_name(f->fmt), w->info.width, w->info.height,
                                 fovea_pixfmt_name(w->info.fmt));
    if (w->failed)
        return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "an earlier write failed");
    if (w->finished)
        return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "the output is already finished");
    int st;
    if (w->fp) {
        if (w->ops->single_image && w->frames_written > 0)
            return fv_writer_fail(w, FOVEA_ERR_UNSUPPORTED,
                                     "%s holds one image; use a pattern like out%%04d.%s for "
                                     "several frames", w->ops->name, w->ops->name);
        st = w->ops->write(w, w->fp, f);
    } else {
        char name[4096];
        int n = snprintf(name, sizeof(name), w->path, (int)w->frames_written);
        if (n < 0 || (size_t)n >= sizeof(name))
            return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "bad file name pattern");
        for (int i = 0; i < w->nprotect; i++)
            if (fovea_same_file(name, w->protect[i])) {
                snprintf(w->err, sizeof(w->err), "%s: output is the same file as input %s",
                         name, w->protect[i]);
                return FOVEA_ERR_INVALID_ARG;
            }
        fovea_outfile *of;
        char msg[FOVEA_IO_ERRLEN];
        st = fv_outfile_open_buf(&of, name, msg, sizeof(msg));
        if (st < 0) {
            snprintf(w->err, sizeof(w->err), "%s", msg);
            return st; /* nothing written: the stream may go on */
        }
        st = w->ops->write(w, fovea_outfile_file(of), f);
        if (st == FOVEA_OK) {
            st = fv_outfile_commit_buf(&of, msg, sizeof(msg));
            if (st < 0)
                snprintf(w->err, sizeof(w->err), "%s", msg);
        } else {
            fovea_outfile_close(&of);
        }
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
    w->fp = NULL;
    int st = fv_outfile_commit_buf(&w->of, msg, sizeof(msg));
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

static void writer_free(struct fovea_writer *w)
{
    if (w->ops->close)
        w->ops->close(w);
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
    fovea_outfile_close(&w->of);
    writer_free(w);
    *pw = NULL;
}
