/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* PNM: binary P5 (gray) and P6 (RGB) images, 8 or 16 bits per sample, one image
 * per file. Decoding from memory (used by the reader and the fuzz target) and writing. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "io/pnm.h"
#include "io_internal.h"
#include "io/io_buf.h"

/* Largest file the reader slurps: a 16384x16384 16-bit P6 raster plus room for
 * a header with long comments. */
#define PNM_MAX_HEADER ((size_t)1 << 20)
#define PNM_MAX_FILE ((size_t)FOVEA_MAX_DIM * FOVEA_MAX_DIM * 6 + PNM_MAX_HEADER)


static int is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Cursor over the header bytes. */
typedef struct pnm_parser {
    const uint8_t *data;
    size_t size, pos;
    char *err;
    size_t errsz;
} pnm_parser;

/* Skip whitespace and '#' comments (to the end of the line). */
static void skip_space_and_comments(pnm_parser *p)
{
    while (p->pos < p->size) {
        uint8_t c = p->data[p->pos];
        if (is_space(c)) {
            p->pos++;
        } else if (c == '#') {
            while (p->pos < p->size && p->data[p->pos] != '\n' && p->data[p->pos] != '\r')
                p->pos++;
        } else {
            break;
        }
    }
}

/* Parse one decimal header field into *out, checking 1 <= value <= max.
 * Values too large for the check saturate, so an absurd field cannot overflow.
 * too_big_status is returned for values above max (UNSUPPORTED for dimensions
 * we choose not to handle, CORRUPT for values the format forbids);
 * PNM_HEADER_SHORT when the data ends before the field is known. */
static int parse_field(pnm_parser *p, const char *name, unsigned max, int too_big_status,
                       unsigned *out)
{
    size_t before = p->pos;
    skip_space_and_comments(p);
    if (p->pos == before && p->pos < p->size) {
        fv_errbuf(p->err, p->errsz, 0, "expected whitespace before the %s, got '%c'", name,
                  p->data[p->pos] >= 0x20 && p->data[p->pos] < 0x7f ? p->data[p->pos] : '?');
        return FOVEA_ERR_CORRUPT;
    }
    if (p->pos >= p->size) {
        fv_errbuf(p->err, p->errsz, 0, "missing %s (header ends early)", name);
        return PNM_HEADER_SHORT;
    }
    uint8_t c = p->data[p->pos];
    if (c < '0' || c > '9') {
        fv_errbuf(p->err, p->errsz, 0, "%s: expected a number, got '%c'", name,
                  c >= 0x20 && c < 0x7f ? c : '?');
        return FOVEA_ERR_CORRUPT;
    }
    const uint64_t cap = 0xffffffffu;
    uint64_t v = 0;
    while (p->pos < p->size && p->data[p->pos] >= '0' && p->data[p->pos] <= '9') {
        v = v * 10 + (uint64_t)(p->data[p->pos] - '0');
        if (v > cap)
            v = cap;
        p->pos++;
    }
    if (p->pos < p->size && !is_space(p->data[p->pos]) && p->data[p->pos] != '#') {
        c = p->data[p->pos];
        fv_errbuf(p->err, p->errsz, 0, "%s: unexpected '%c' after the number", name,
                  c >= 0x20 && c < 0x7f ? c : '?');
        return FOVEA_ERR_CORRUPT;
    }
    if (v == 0) {
        fv_errbuf(p->err, p->errsz, 0, "%s is 0", name);
        /* "0" at the end of the data: more digits may follow ("05") */
        return p->pos >= p->size ? PNM_HEADER_SHORT : FOVEA_ERR_CORRUPT;
    }
    if (v > max) {
        if (v == cap)
            fv_errbuf(p->err, p->errsz, 0, "%s is too large (maximum %u)", name, max);
        else
            fv_errbuf(p->err, p->errsz, 0, "%s %llu exceeds the maximum %u", name,
                      (unsigned long long)v, max);
        return too_big_status;
    }
    *out = (unsigned)v;
    return FOVEA_OK;
}

int pnm_parse_header(const uint8_t *data, size_t size, pnm_header *h, char *err, size_t errsz)
{
    if (err && errsz)
        err[0] = '\0';
    if (size == 0) {
        fv_errbuf(err, errsz, 0, "empty file");
        return PNM_HEADER_SHORT;
    }
    if (data[0] != 'P' || size < 2) {
        fv_errbuf(err, errsz, 0, "not a PNM file (bad magic)");
        return data[0] != 'P' ? FOVEA_ERR_CORRUPT : PNM_HEADER_SHORT;
    }
    const uint8_t kind = data[1];
    if ((kind >= '1' && kind <= '7' && kind != '5' && kind != '6') || kind == 'F' || kind == 'f') {
        fv_errbuf(err, errsz, 0, "unsupported PNM type P%c (only P5/P6)", kind);
        return FOVEA_ERR_UNSUPPORTED;
    }
    if (kind != '5' && kind != '6') {
        fv_errbuf(err, errsz, 0, "not a PNM file (bad magic)");
        return FOVEA_ERR_CORRUPT;
    }

    pnm_parser p = {data, size, 2, err, errsz};
    unsigned width, height, maxval;
    int st = parse_field(&p, "width", FOVEA_MAX_DIM, FOVEA_ERR_UNSUPPORTED, &width);
    if (st == FOVEA_OK)
        st = parse_field(&p, "height", FOVEA_MAX_DIM, FOVEA_ERR_UNSUPPORTED, &height);
    if (st == FOVEA_OK)
        st = parse_field(&p, "maxval", 65535, FOVEA_ERR_CORRUPT, &maxval);
    if (st != FOVEA_OK)
        return st;
    /* Exactly one whitespace byte separates maxval from the raster (which may
     * itself start with bytes that look like whitespace or '#'). */
    if (p.pos >= size) {
        fv_errbuf(err, errsz, 0, "truncated: header ends without the whitespace after maxval");
        return PNM_HEADER_SHORT;
    }
    if (!is_space(data[p.pos])) {
        fv_errbuf(err, errsz, 0, "expected one whitespace byte after maxval (no comment there)");
        return FOVEA_ERR_CORRUPT;
    }
    p.pos++;
    h->kind = (char)kind;
    h->width = width;
    h->height = height;
    h->maxval = maxval;
    h->length = p.pos;
    return FOVEA_OK;
}

/* v (0..maxval, larger values clamped) rescaled to 0..out_max with rounding. */
static inline uint32_t rescale(uint32_t v, uint32_t maxval, uint32_t out_max)
{
    if (v > maxval)
        v = maxval;
    return (v * out_max + maxval / 2) / maxval;
}

/* Sample conversion rules (file -> frame):
 *   maxval 255            -> gray8 / rgb24, bytes as they are
 *   maxval 1..254         -> gray8 / rgb24, rescaled to 0..255 with rounding
 *   P5 maxval 1023 / 4095 -> gray10 / gray12, values as they are
 *   P5 maxval 65535       -> gray16, values as they are
 *   P5 other maxval > 255 -> gray16, rescaled to 0..65535 with rounding (a gray16
 *                            frame is full range, so raw values would be too dark)
 *   P6 maxval 65535       -> rgb48, values as they are
 *   P6 other maxval > 255 -> rgb48, rescaled to 0..65535 with rounding (as P5 above:
 *                            rgb48 is full range; there is no 10/12-bit RGB)
 * Samples above maxval are clamped to maxval, so frames never hold values outside
 * their format's range. 16-bit file samples are big-endian; frames little-endian. */
int fv_pnm_decode_buf(const uint8_t *data, size_t size, fovea_frame *f, char *err, size_t errsz)
{
    if (!f || (!data && size))
        return FOVEA_ERR_INVALID_ARG;
    memset(f, 0, sizeof(*f));
    if (err && errsz)
        err[0] = '\0';
    pnm_header h;
    int st = pnm_parse_header(data, size, &h, err, errsz);
    if (st == PNM_HEADER_SHORT)
        return FOVEA_ERR_CORRUPT; /* a whole file that ends inside its header */
    if (st < 0)
        return st;
    const char kind = h.kind;
    const unsigned width = h.width, height = h.height, maxval = h.maxval;
    pnm_parser p = {data, size, h.length, err, errsz};

    const int channels = kind == '6' ? 3 : 1;
    const int in_bytes = maxval > 255 ? 2 : 1;
    /* width, height <= 16384 and channels * bytes <= 6: no overflow in size_t. */
    const size_t in_row = (size_t)width * (size_t)channels * (size_t)in_bytes;
    const size_t raster = in_row * height;
    const size_t avail = size - p.pos;
    if (avail < raster) {
        fv_errbuf(err, errsz, 0, "truncated: got %zu of %zu bytes of raster", avail, raster);
        return FOVEA_ERR_CORRUPT;
    }
    size_t trailing = 0;
    for (size_t i = p.pos + raster; i < size; i++)
        trailing += !is_space(data[i]);
    if (trailing) {
        /* Count from the first non-whitespace byte: that is what the user sees as junk. */
        size_t first = p.pos + raster;
        while (is_space(data[first]))
            first++;
        fv_errbuf(err, errsz, 0, "%zu bytes of trailing data after the image", size - first);
        return FOVEA_ERR_CORRUPT;
    }

    fovea_pixfmt fmt;
    if (channels == 3)
        fmt = maxval > 255 ? FOVEA_PIX_RGB48 : FOVEA_PIX_RGB24;
    else if (maxval <= 255)
        fmt = FOVEA_PIX_GRAY8;
    else if (maxval == 1023)
        fmt = FOVEA_PIX_GRAY10;
    else if (maxval == 4095)
        fmt = FOVEA_PIX_GRAY12;
    else
        fmt = FOVEA_PIX_GRAY16;
    st = fovea_frame_alloc(NULL, f, (int)width, (int)height, fmt, FOVEA_MEM_HOST);
    if (st < 0) {
        fv_errbuf(err, errsz, 0, "cannot allocate a %ux%u %s frame", width, height,
                  fovea_pixfmt_name(fmt));
        return st;
    }

    const uint8_t *src = data + p.pos;
    const size_t samples = (size_t)width * (size_t)channels;
    const uint32_t out_max = fmt == FOVEA_PIX_GRAY16 || fmt == FOVEA_PIX_RGB48 ? 65535
                             : maxval > 255                                    ? maxval
                                                                               : 255;
    for (unsigned y = 0; y < height; y++, src += in_row) {
        uint8_t *dst = f->data[0] + (ptrdiff_t)y * f->stride[0];
        if (in_bytes == 1 && maxval == 255) {
            memcpy(dst, src, in_row);
        } else if (in_bytes == 1) {
            for (size_t i = 0; i < samples; i++)
                dst[i] = (uint8_t)rescale(src[i], maxval, 255);
        } else {
            for (size_t i = 0; i < samples; i++) {
                uint32_t v = (uint32_t)src[2 * i] << 8 | src[2 * i + 1];
                v = rescale(v, maxval, out_max);
                dst[2 * i] = (uint8_t)(v & 0xff);
                dst[2 * i + 1] = (uint8_t)(v >> 8);
            }
        }
    }
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- reader */

static int pnm_open(struct fovea_reader *r, const fovea_reader_settings *opt)
{
    (void)opt;
    return fv_still_reader_open(r, PNM_MAX_FILE, fv_pnm_decode_buf);
}

/* ---------------------------------------------------------------- writer */

/* maxval written for each supported format; 0 = not writable as PNM. */
static unsigned pnm_maxval_for(fovea_pixfmt fmt)
{
    switch (fmt) {
    case FOVEA_PIX_GRAY8: return 255;
    case FOVEA_PIX_GRAY10: return 1023;
    case FOVEA_PIX_GRAY12: return 4095;
    case FOVEA_PIX_GRAY16: return 65535;
    case FOVEA_PIX_RGB24: return 255;
    case FOVEA_PIX_RGBA: return 255;
    case FOVEA_PIX_RGB48: return 65535;
    case FOVEA_PIX_RGBA64: return 65535;
    default: return 0;
    }
}

static int pnm_wopen(struct fovea_writer *w)
{
    if (pnm_maxval_for(w->info.fmt) == 0)
        return fv_writer_fail(w, FOVEA_ERR_UNSUPPORTED,
                              "PNM cannot hold %s: convert to rgb24 or gray first",
                              fovea_pixfmt_name(w->info.fmt));
    return FOVEA_OK;
}

/* gray8 -> P5 255, gray10/12/16 -> P5 1023/4095/65535 (big-endian, container
 * values above maxval clamped), rgb24 -> P6, rgba -> P6 with alpha dropped,
 * rgb48 -> P6 65535, rgba64 -> P6 65535 with alpha dropped. */
static int pnm_write(struct fovea_writer *w, FILE *fp, const fovea_frame *f)
{
    const unsigned maxval = pnm_maxval_for(f->fmt);
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    const int rgb = d->is_rgb;
    if (fprintf(fp, "P%c\n%d %d\n%u\n", rgb ? '6' : '5', f->width, f->height, maxval) < 0)
        return fv_writer_fail(w, FOVEA_ERR_IO, "write error: %s", strerror(errno));

    const size_t w_px = (size_t)f->width;
    const size_t out_row = w_px * (rgb ? 3 : 1) * (maxval > 255 ? 2 : 1);
    /* samples per row written, and samples per pixel in the frame (alpha skipped) */
    const size_t out_samples = w_px * (rgb ? 3 : 1);
    const size_t comps = (size_t)d->components;
    uint8_t *tmp = NULL;
    if (f->fmt != FOVEA_PIX_GRAY8 && f->fmt != FOVEA_PIX_RGB24) {
        tmp = malloc(out_row);
        if (!tmp)
            return fv_writer_fail(w, FOVEA_ERR_NOMEM, "out of memory");
    }
    int st = FOVEA_OK;
    for (int y = 0; y < f->height && st == FOVEA_OK; y++) {
        const uint8_t *src = f->data[0] + (ptrdiff_t)y * f->stride[0];
        const uint8_t *row = src;
        if (f->fmt == FOVEA_PIX_RGBA) {
            for (size_t x = 0; x < w_px; x++) {
                tmp[3 * x] = src[4 * x];
                tmp[3 * x + 1] = src[4 * x + 1];
                tmp[3 * x + 2] = src[4 * x + 2];
            }
            row = tmp;
        } else if (maxval > 255) {
            for (size_t i = 0; i < out_samples; i++) {
                /* frame sample of output sample i: rgba64 skips every fourth */
                const size_t k = rgb ? i / 3 * comps + i % 3 : i;
                unsigned v = (unsigned)src[2 * k] | (unsigned)src[2 * k + 1] << 8;
                if (v > maxval)
                    v = maxval;
                tmp[2 * i] = (uint8_t)(v >> 8);
                tmp[2 * i + 1] = (uint8_t)(v & 0xff);
            }
            row = tmp;
        }
        if (fwrite(row, 1, out_row, fp) != out_row)
            st = fv_writer_fail(w, FOVEA_ERR_IO, "write error: %s", strerror(errno));
    }
    free(tmp);
    return st;
}

const struct fv_reader_ops fv_pnm_reader_ops = {"pnm", pnm_open, fv_still_reader_read,
                                                fv_still_reader_close};
const struct fv_writer_ops fv_pnm_writer_ops = {"pnm", 1, pnm_wopen, pnm_write, NULL, NULL};

int fovea_pnm_decode(fovea_context *ctx, const uint8_t *data, size_t size, fovea_frame *f)
{
    char err[FOVEA_ERRLEN] = "";
    int st = fv_pnm_decode_buf(data, size, f, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}
