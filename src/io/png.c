/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* PNG through libpng: decoding from memory (used by the reader and the fuzz
 * target), the one-image-per-file reader and writer, and fovea_png_write_file. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "core/core.h"
#include "io_internal.h"
#include "io/io_buf.h"
#include "fovea/io.h"

/* Frames are large and written often: favor speed over size. Level 2 with the
 * Sub filter is several times faster than libpng's defaults (level 6, adaptive
 * filtering) for a modest size increase on natural images. */
static const int png_compression_level = 2;
static const int png_write_filter = PNG_FILTER_SUB;

/* Ancillary chunks (ICC profiles, compressed text) are never needed here; cap
 * what libpng may allocate for one, and how many it keeps, so hostile files
 * cannot exhaust memory. */
static const png_alloc_size_t png_chunk_malloc_limit = (png_alloc_size_t)8 << 20;
static const png_uint_32 png_chunk_cache_limit = 256;
/* Ancillary chunks the decoder never needs (5 bytes each: name and NUL); it
 * reads tRNS (alpha) and sBIT (10/12-bit gray) only. */
static const png_byte png_ignored_chunks[] = "bKGD\0cHRM\0eXIf\0gAMA\0hIST\0iCCP\0iTXt\0oFFs\0"
                                             "pCAL\0pHYs\0sCAL\0sPLT\0sRGB\0tEXt\0tIME\0zTXt";

/* Deflate expands at most 1032:1 (a 258-byte match coded in 2 bits); a file
 * whose size cannot hold the declared pixels at that ratio is rejected before
 * the frame is allocated. Rounded up, with slack for tiny files. */
#define PNG_MAX_INFLATE_RATIO 1040u
#define PNG_INFLATE_SLACK 1024u


/* Where libpng's error callback leaves its message, and the status to return. */
typedef struct png_errctx {
    char *err;
    size_t errsz;
    int status;
} png_errctx;

static void png_error_cb(png_structp png, png_const_charp msg)
{
    png_errctx *e = png_get_error_ptr(png);
    /* A message set just before png_error (truncation, write failure) is kept. */
    if (e && e->err && e->errsz && e->err[0] == '\0')
        fv_errbuf(e->err, e->errsz, 0, "%s", msg ? msg : "libpng error");
    png_longjmp(png, 1);
}

static void png_warning_cb(png_structp png, png_const_charp msg)
{
    /* Warnings (bad ancillary chunks and the like) do not stop decoding, and
     * the library never prints. */
    (void)png;
    (void)msg;
}

static int png_fmt_writable(fovea_pixfmt fmt)
{
    return fmt == FOVEA_PIX_GRAY8 || fmt == FOVEA_PIX_GRAY10 || fmt == FOVEA_PIX_GRAY12 ||
           fmt == FOVEA_PIX_GRAY16 || fmt == FOVEA_PIX_RGB24 || fmt == FOVEA_PIX_RGBA ||
           fmt == FOVEA_PIX_RGB48 || fmt == FOVEA_PIX_RGBA64;
}

/* ---------------------------------------------------------------- decoding */

typedef struct png_dec {
    png_errctx e;
    const uint8_t *data;
    size_t size, pos;
    png_bytep *rows;
    fovea_frame img;
} png_dec;

static void png_read_cb(png_structp png, png_bytep out, size_t n)
{
    png_dec *d = png_get_io_ptr(png);
    if (n > d->size - d->pos) {
        fv_errbuf(d->e.err, d->e.errsz, 0, "truncated: file ends after %zu bytes", d->size);
        png_error(png, "truncated");
    }
    memcpy(out, d->data + d->pos, n);
    d->pos += n;
}

/* Output rules: gray 1/2/4/8 -> gray8; gray 16 -> gray16, or gray10/gray12 when
 * an sBIT chunk says 10 or 12 significant bits (as the writer does); gray+alpha
 * -> rgba (8-bit) or rgba64 (16-bit), the gray copied to R, G and B; palette ->
 * rgb24, or rgba with tRNS; RGB -> rgb24 / rgb48, or rgba / rgba64 with tRNS;
 * RGBA -> rgba / rgba64. 16-bit samples are kept exactly (byte-swapped to the
 * frames' little-endian order). tRNS on gray images is ignored: there is no
 * gray+alpha frame format. Sets libpng's transforms for them (all but the
 * byte swap of 16-bit color), *out_fmt and *out_sig_bits (16 unless sBIT says
 * 10 or 12 on gray 16). */
static int png_output_format(png_dec *d, png_structp png, png_infop info, int color_type,
                             int bit_depth, fovea_pixfmt *out_fmt, int *out_sig_bits)
{
    const int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    int sig_bits = 16;
    fovea_pixfmt fmt;
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY:
        if (bit_depth < 8)
            png_set_expand_gray_1_2_4_to_8(png);
        if (bit_depth == 16) {
            png_color_8p sbit;
            if (png_get_sBIT(png, info, &sbit) && (sbit->gray == 10 || sbit->gray == 12))
                sig_bits = sbit->gray;
            png_set_swap(png);
            fmt = sig_bits == 10   ? FOVEA_PIX_GRAY10
                  : sig_bits == 12 ? FOVEA_PIX_GRAY12
                                   : FOVEA_PIX_GRAY16;
        } else {
            fmt = FOVEA_PIX_GRAY8;
        }
        break;
    case PNG_COLOR_TYPE_GRAY_ALPHA:
        png_set_gray_to_rgb(png);
        fmt = bit_depth == 16 ? FOVEA_PIX_RGBA64 : FOVEA_PIX_RGBA;
        break;
    case PNG_COLOR_TYPE_PALETTE:
        png_set_palette_to_rgb(png);
        if (has_trns)
            png_set_tRNS_to_alpha(png);
        fmt = has_trns ? FOVEA_PIX_RGBA : FOVEA_PIX_RGB24;
        break;
    case PNG_COLOR_TYPE_RGB:
        if (has_trns)
            png_set_tRNS_to_alpha(png);
        if (bit_depth == 16)
            fmt = has_trns ? FOVEA_PIX_RGBA64 : FOVEA_PIX_RGB48;
        else
            fmt = has_trns ? FOVEA_PIX_RGBA : FOVEA_PIX_RGB24;
        break;
    case PNG_COLOR_TYPE_RGB_ALPHA: fmt = bit_depth == 16 ? FOVEA_PIX_RGBA64 : FOVEA_PIX_RGBA; break;
    default:
        fv_errbuf(d->e.err, d->e.errsz, 0, "unknown PNG color type %d", color_type);
        return FOVEA_ERR_CORRUPT;
    }
    *out_fmt = fmt;
    *out_sig_bits = sig_bits;
    return FOVEA_OK;
}

/* libpng's rows must be the frame's, and the file must be large enough to
 * inflate to the declared image. */
static int png_check_size(png_dec *d, png_structp png, png_infop info, fovea_pixfmt fmt,
                          png_uint_32 width, png_uint_32 height, int color_type, int bit_depth)
{
    const size_t row_bytes = fovea_plane_row_bytes(fmt, (int)width, 0);
    if (png_get_rowbytes(png, info) != row_bytes) {
        fv_errbuf(d->e.err, d->e.errsz, 0, "libpng produced %zu-byte rows, expected %zu",
                  (size_t)png_get_rowbytes(png, info), row_bytes);
        return FOVEA_ERR_INTERNAL;
    }

    /* The smallest inflated size the declared image can have (pixels only, no
     * filter bytes) must fit in what this file could inflate to. */
    const int channels = color_type == PNG_COLOR_TYPE_GRAY_ALPHA  ? 2
                         : color_type == PNG_COLOR_TYPE_RGB       ? 3
                         : color_type == PNG_COLOR_TYPE_RGB_ALPHA ? 4
                                                                  : 1;
    const uint64_t min_raw = (uint64_t)width * height * (uint64_t)(channels * bit_depth) / 8;
    if (min_raw / PNG_MAX_INFLATE_RATIO > (uint64_t)d->size + PNG_INFLATE_SLACK) {
        fv_errbuf(d->e.err, d->e.errsz, 0,
                  "truncated: %zu bytes cannot hold the pixels of a %ux%u image", d->size,
                  (unsigned)width, (unsigned)height);
        return FOVEA_ERR_CORRUPT;
    }
    return FOVEA_OK;
}

/* The pixels into a new host frame d->img, through d->rows; then the rest of
 * the file up to IEND. */
static int png_read_pixels(png_dec *d, png_structp png, fovea_pixfmt fmt, png_uint_32 width,
                           png_uint_32 height)
{
    int st = fovea_frame_alloc(NULL, &d->img, (int)width, (int)height, fmt, FOVEA_MEM_HOST);
    if (st < 0) {
        fv_errbuf(d->e.err, d->e.errsz, 0, "cannot allocate a %ux%u %s frame", (unsigned)width,
                  (unsigned)height, fovea_pixfmt_name(fmt));
        return st;
    }
    d->rows = malloc(sizeof(*d->rows) * height);
    if (!d->rows) {
        fv_errbuf(d->e.err, d->e.errsz, 0, "out of memory");
        return FOVEA_ERR_NOMEM;
    }
    for (png_uint_32 y = 0; y < height; y++)
        d->rows[y] = d->img.data[0] + (ptrdiff_t)y * d->img.stride[0];
    png_read_image(png, d->rows);
    /* Reads up to IEND: checks the CRCs after the image data and catches files
     * cut just after it. */
    png_read_end(png, NULL);
    return FOVEA_OK;
}

/* Samples with sig_bits < 16 significant bits (gray10 / gray12 from sBIT)
 * moved down to their frame's range. */
static void png_unshift(png_dec *d, png_uint_32 width, png_uint_32 height, int sig_bits)
{
    if (sig_bits < 16) {
        const int shift = 16 - sig_bits;
        for (png_uint_32 y = 0; y < height; y++) {
            uint8_t *p = d->rows[y];
            for (png_uint_32 x = 0; x < width; x++) {
                unsigned v = ((unsigned)p[2 * x] | (unsigned)p[2 * x + 1] << 8) >> shift;
                p[2 * x] = (uint8_t)(v & 0xff);
                p[2 * x + 1] = (uint8_t)(v >> 8);
            }
        }
    }
}

static int png_decode_body(png_dec *d, png_structp png, png_infop info)
{
    /* Everything that changes after setjmp lives in *d, which belongs to the
     * caller, so nothing is left indeterminate by the longjmp. */
    if (setjmp(png_jmpbuf(png)))
        return d->e.status;

    png_set_read_fn(png, d, png_read_cb);
    png_set_user_limits(png, FOVEA_MAX_DIM, FOVEA_MAX_DIM);
    png_set_chunk_malloc_max(png, png_chunk_malloc_limit);
    png_set_chunk_cache_max(png, png_chunk_cache_limit);
    /* Only the pixels matter (and tRNS, sBIT): every other ancillary chunk
     * is skipped unread. libpng 1.6.39 allocates some of them (sPLT, text,
     * iCCP, ...) by their declared length before checking it against the
     * chunk limit, so a 400-byte file could ask for 2 GB (found by fuzz_png). */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, png_ignored_chunks,
                                (int)(sizeof(png_ignored_chunks) / 5));
    png_read_info(png, info);

    png_uint_32 width, height;
    int bit_depth, color_type, interlace;
    png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    if (width == 0 || height == 0 || width > FOVEA_MAX_DIM || height > FOVEA_MAX_DIM) {
        fv_errbuf(d->e.err, d->e.errsz, 0, "image %ux%u is outside 1..%d per side", (unsigned)width,
                  (unsigned)height, FOVEA_MAX_DIM);
        return FOVEA_ERR_UNSUPPORTED;
    }
    fovea_pixfmt fmt = (fovea_pixfmt)0;
    int sig_bits = 0;
    int st = png_output_format(d, png, info, color_type, bit_depth, &fmt, &sig_bits);
    if (st < 0)
        return st;
    if (bit_depth == 16 && color_type != PNG_COLOR_TYPE_GRAY)
        png_set_swap(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);

    st = png_check_size(d, png, info, fmt, width, height, color_type, bit_depth);
    if (st < 0)
        return st;
    st = png_read_pixels(d, png, fmt, width, height);
    if (st < 0)
        return st;
    png_unshift(d, width, height, sig_bits);
    return FOVEA_OK;
}

int fv_png_decode_buf(const uint8_t *data, size_t size, fovea_frame *f, char *err, size_t errsz)
{
    char local_err[256];
    if (!f || (!data && size))
        return FOVEA_ERR_INVALID_ARG;
    memset(f, 0, sizeof(*f));
    if (!err || errsz == 0) {
        err = local_err;
        errsz = sizeof(local_err);
    }
    err[0] = '\0';
    if (size == 0) {
        fv_errbuf(err, errsz, 0, "empty file");
        return FOVEA_ERR_CORRUPT;
    }
    if (size < 8 || png_sig_cmp(data, 0, 8) != 0) {
        fv_errbuf(err, errsz, 0, "not a PNG file (bad signature)");
        return FOVEA_ERR_CORRUPT;
    }
    /* Name an oversized image plainly (libpng's user limit is the backstop). */
    if (size >= 24 && memcmp(data + 12, "IHDR", 4) == 0) {
        uint32_t w = (uint32_t)data[16] << 24 | (uint32_t)data[17] << 16 | (uint32_t)data[18] << 8 |
                     data[19];
        uint32_t h = (uint32_t)data[20] << 24 | (uint32_t)data[21] << 16 | (uint32_t)data[22] << 8 |
                     data[23];
        if (w > FOVEA_MAX_DIM || h > FOVEA_MAX_DIM) {
            fv_errbuf(err, errsz, 0, "image %ux%u exceeds the maximum %d per side", (unsigned)w,
                      (unsigned)h, FOVEA_MAX_DIM);
            return FOVEA_ERR_UNSUPPORTED;
        }
    }

    png_dec d;
    memset(&d, 0, sizeof(d));
    d.e.err = err;
    d.e.errsz = errsz;
    d.e.status = FOVEA_ERR_CORRUPT;
    d.data = data;
    d.size = size;
    png_structp png =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, &d.e, png_error_cb, png_warning_cb);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(png ? &png : NULL, NULL, NULL);
        fv_errbuf(err, errsz, 0, "out of memory");
        return FOVEA_ERR_NOMEM;
    }
    int st = png_decode_body(&d, png, info);
    png_destroy_read_struct(&png, &info, NULL);
    free(d.rows);
    if (st < 0) {
        if (err[0] == '\0')
            fv_errbuf(err, errsz, 0, "%s", fovea_strerror(st));
        fovea_frame_free(NULL, &d.img);
        return st;
    }
    *f = d.img;
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- encoding */

typedef struct png_enc {
    png_errctx e;
    FILE *fp;
} png_enc;

static void png_write_cb(png_structp png, png_bytep buf, size_t n)
{
    png_enc *c = png_get_io_ptr(png);
    if (fwrite(buf, 1, n, c->fp) != n) {
        fv_errbuf(c->e.err, c->e.errsz, 0, "write error: %s", strerror(errno));
        c->e.status = FOVEA_ERR_IO;
        png_error(png, "write error");
    }
}

static void png_flush_cb(png_structp png)
{
    (void)png; /* the caller flushes and closes the FILE */
}

/* tmp holds one converted row for the 16-bit formats (rgb48 and rgba64 are written
 * as 16-bit RGB / RGBA, every sample as it is). gray10/12 are written as
 * 16-bit PNG with the value shifted up and its top bits repeated below (1023 ->
 * 65535), so viewers show the full range; an sBIT chunk records the original
 * depth and the decoder uses it to give back the exact gray10/12 values. */
static int png_encode_body(png_enc *c, png_structp png, png_infop info, const fovea_frame *f,
                           uint8_t *tmp)
{
    if (setjmp(png_jmpbuf(png)))
        return c->e.status;

    const fovea_pixfmt fmt = f->fmt;
    const int gray = fmt == FOVEA_PIX_GRAY8 || fmt == FOVEA_PIX_GRAY10 || fmt == FOVEA_PIX_GRAY12 ||
                     fmt == FOVEA_PIX_GRAY16;
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    const int depth = d->bytes_per_sample == 2 ? 16 : 8;
    const int color_type = gray                 ? PNG_COLOR_TYPE_GRAY
                           : d->components == 4 ? PNG_COLOR_TYPE_RGB_ALPHA
                                                : PNG_COLOR_TYPE_RGB;
    const int samples = f->width * d->components;
    const int bits = fmt == FOVEA_PIX_GRAY10 ? 10 : fmt == FOVEA_PIX_GRAY12 ? 12 : 16;

    png_set_write_fn(png, c, png_write_cb, png_flush_cb);
    png_set_compression_level(png, png_compression_level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, png_write_filter);
    png_set_IHDR(png, info, (png_uint_32)f->width, (png_uint_32)f->height, depth, color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (bits < 16) {
        png_color_8 sbit;
        memset(&sbit, 0, sizeof(sbit));
        sbit.gray = (png_byte)bits;
        png_set_sBIT(png, info, &sbit);
    }
    png_write_info(png, info);

    const unsigned maxv = (1u << bits) - 1;
    for (int y = 0; y < f->height; y++) {
        const uint8_t *src = f->data[0] + (ptrdiff_t)y * f->stride[0];
        if (depth == 8) {
            png_write_row(png, src);
            continue;
        }
        for (int x = 0; x < samples; x++) {
            unsigned v = (unsigned)src[2 * x] | (unsigned)src[2 * x + 1] << 8;
            if (v > maxv)
                v = maxv;
            v = (v << (16 - bits)) | (v >> (2 * bits - 16));
            tmp[2 * x] = (uint8_t)(v >> 8);
            tmp[2 * x + 1] = (uint8_t)(v & 0xff);
        }
        png_write_row(png, tmp);
    }
    png_write_end(png, NULL);
    return FOVEA_OK;
}

/* Encode a host frame of a writable format to fp. */
static int png_write_stream(FILE *fp, const fovea_frame *f, char *err, size_t errsz)
{
    if (!png_fmt_writable(f->fmt)) {
        fv_errbuf(err, errsz, 0, "PNG cannot hold %s: convert to rgb24 or gray first",
                  fovea_pixfmt_name(f->fmt));
        return FOVEA_ERR_UNSUPPORTED;
    }
    png_enc c;
    memset(&c, 0, sizeof(c));
    c.e.err = err;
    c.e.errsz = errsz;
    c.e.status = FOVEA_ERR_INTERNAL;
    c.fp = fp;
    if (err && errsz)
        err[0] = '\0';
    uint8_t *tmp = malloc((size_t)f->width * 8); /* one rgba64 row at most */
    png_structp png =
        tmp ? png_create_write_struct(PNG_LIBPNG_VER_STRING, &c.e, png_error_cb, png_warning_cb)
            : NULL;
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(png ? &png : NULL, NULL);
        free(tmp);
        fv_errbuf(err, errsz, 0, "out of memory");
        return FOVEA_ERR_NOMEM;
    }
    int st = png_encode_body(&c, png, info, f, tmp);
    png_destroy_write_struct(&png, &info);
    free(tmp);
    if (st < 0 && err && errsz && err[0] == '\0')
        fv_errbuf(err, errsz, 0, "%s", fovea_strerror(st));
    return st;
}

int fv_png_write_file_buf(const char *path, const fovea_frame *f, char *err, size_t errsz)
{
    if (err && errsz)
        err[0] = '\0';
    if (!path || !f || !f->data[0] || f->mem == FOVEA_MEM_DEVICE || f->width <= 0 ||
        f->height <= 0 || f->width > FOVEA_MAX_DIM || f->height > FOVEA_MAX_DIM) {
        fv_errbuf(err, errsz, 0, "%s: invalid frame", path ? path : "(null)");
        return FOVEA_ERR_INVALID_ARG;
    }
    char bad[256];
    if (fv_frame_check_buf(f, "frame", bad, sizeof(bad)) < 0) {
        fv_errbuf(err, errsz, 0, "%s: %s", path, bad);
        return FOVEA_ERR_INVALID_ARG;
    }
    if (!png_fmt_writable(f->fmt)) {
        fv_errbuf(err, errsz, 0, "%s: PNG cannot hold %s: convert to rgb24 or gray first", path,
                  fovea_pixfmt_name(f->fmt));
        return FOVEA_ERR_UNSUPPORTED;
    }
    fovea_outfile *of;
    int st = fv_outfile_open_buf(&of, path, err, errsz);
    if (st < 0)
        return st;
    char msg[FOVEA_IO_ERRLEN];
    st = png_write_stream(fovea_outfile_file(of), f, msg, sizeof(msg));
    if (st < 0) {
        /* the destination keeps its old content; only the temporary goes */
        fv_errbuf(err, errsz, 0, "%s: %s", path, msg);
        fovea_outfile_close(&of);
        return st;
    }
    return fv_outfile_commit_buf(&of, err, errsz);
}

int fovea_png_write_file(fovea_context *ctx, const char *path, const fovea_frame *f)
{
    char err[FOVEA_ERRLEN] = "";
    int st = fv_png_write_file_buf(path, f, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}

/* ---------------------------------------------------------------- reader */

/* Largest file the reader slurps: an uncompressed 16384x16384 RGBA16 image
 * (stored deflate blocks, filter bytes) with room for ancillary chunks. */
static size_t png_max_file(void)
{
    const uint64_t limit =
        (uint64_t)FOVEA_MAX_DIM * (FOVEA_MAX_DIM * 8 + 1) * 1001 / 1000 + ((uint64_t)64 << 20);
    return limit > SIZE_MAX ? SIZE_MAX : (size_t)limit;
}

static int png_open(struct fovea_reader *r, const fovea_reader_settings *opt)
{
    (void)opt;
    return fv_still_reader_open(r, png_max_file(), fv_png_decode_buf);
}

/* ---------------------------------------------------------------- writer */

static int png_wopen(struct fovea_writer *w)
{
    if (!png_fmt_writable(w->info.fmt))
        return fv_writer_fail(w, FOVEA_ERR_UNSUPPORTED,
                              "PNG cannot hold %s: convert to rgb24 or gray first",
                              fovea_pixfmt_name(w->info.fmt));
    return FOVEA_OK;
}

static int png_wwrite(struct fovea_writer *w, FILE *fp, const fovea_frame *f)
{
    char msg[FOVEA_IO_ERRLEN];
    int st = png_write_stream(fp, f, msg, sizeof(msg));
    if (st < 0)
        return fv_writer_fail(w, st, "frame %lld: %s", (long long)w->frames_written, msg);
    return FOVEA_OK;
}

const struct fv_reader_ops fv_png_reader_ops = {"png", png_open, fv_still_reader_read,
                                                fv_still_reader_close};
const struct fv_writer_ops fv_png_writer_ops = {"png", 1, png_wopen, png_wwrite, NULL, NULL};

int fovea_png_decode(fovea_context *ctx, const uint8_t *data, size_t size, fovea_frame *f)
{
    char err[FOVEA_ERRLEN] = "";
    int st = fv_png_decode_buf(data, size, f, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}
