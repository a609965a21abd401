/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* YUV4MPEG2 (y4m) reader and writer: one text header line, then frames of
 * "FRAME[ params]\n" followed by tightly packed planes.
 * Sample values are not checked against the bit depth (a 10-bit file may hold
 * values above 1023): checking would cost a pass over every frame, and the
 * samples are carried through unchanged. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

/* Longest header or FRAME line accepted, newline included. */
#define Y4M_MAX_LINE 4096

static const char y4m_magic[] = "YUV4MPEG2";

/* Chroma tags. The first entry for a format is the tag the writer uses when
 * the stream carries none (or one that does not match its format). */
static const struct {
    const char *tag;
    fovea_pixfmt fmt;
} chroma_tags[] = {
    {"mono", FOVEA_PIX_GRAY8},     {"mono10", FOVEA_PIX_GRAY10},  {"mono12", FOVEA_PIX_GRAY12},
    {"mono16", FOVEA_PIX_GRAY16},  {"420jpeg", FOVEA_PIX_I420},   {"420", FOVEA_PIX_I420},
    {"420paldv", FOVEA_PIX_I420},  {"420mpeg2", FOVEA_PIX_I420},  {"420p10", FOVEA_PIX_I420P10},
    {"420p12", FOVEA_PIX_I420P12}, {"420p16", FOVEA_PIX_I420P16}, {"422", FOVEA_PIX_I422},
    {"422p10", FOVEA_PIX_I422P10}, {"422p12", FOVEA_PIX_I422P12}, {"422p16", FOVEA_PIX_I422P16},
    {"444", FOVEA_PIX_I444},       {"444p10", FOVEA_PIX_I444P10}, {"444p12", FOVEA_PIX_I444P12},
    {"444p16", FOVEA_PIX_I444P16},
};
#define N_CHROMA_TAGS (sizeof(chroma_tags) / sizeof(chroma_tags[0]))

static fovea_pixfmt fmt_from_tag(const char *tag)
{
    for (size_t i = 0; i < N_CHROMA_TAGS; i++)
        if (strcmp(tag, chroma_tags[i].tag) == 0)
            return chroma_tags[i].fmt;
    return FOVEA_PIX_NONE;
}

/* A y4m X tag fovea can carry: starts with X, no control byte (0x00-0x20,
 * 0x7f: a space would split it, a newline end the header). */
static int carriable_tag(const char *tok, size_t len)
{
    if (len == 0 || tok[0] != 'X')
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)tok[i];
        if (c <= 0x20 || c == 0x7f)
            return 0;
    }
    return 1;
}

/* Append an X tag to info->extra_tags when it fits whole. */
static void keep_extra_tag(fovea_video_info *info, const char *tok)
{
    const size_t len = strlen(tok), used = strlen(info->extra_tags);
    const size_t need = len + (used ? 1 : 0);
    if (!carriable_tag(tok, len) || used + need >= sizeof(info->extra_tags))
        return;
    if (used)
        info->extra_tags[used] = ' ';
    memcpy(info->extra_tags + used + (used ? 1 : 0), tok, len + 1);
}

static const char *canonical_tag(fovea_pixfmt fmt)
{
    for (size_t i = 0; i < N_CHROMA_TAGS; i++)
        if (chroma_tags[i].fmt == fmt)
            return chroma_tags[i].tag;
    return NULL;
}

/* Printable excerpt of untrusted bytes for messages: at most 32 input bytes,
 * anything outside printable ASCII as \xNN. */
static void excerpt(const char *s, size_t n, char *out, size_t outsz)
{
    size_t o = 0;
    if (n > 32)
        n = 32;
    for (size_t i = 0; i < n && o + 5 < outsz; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, outsz - o, "\\x%02x", c);
    }
    out[o] = '\0';
}

/* ---------------------------------------------------------------- reader */

typedef struct y4m_reader {
    size_t frame_bytes;
} y4m_reader;

/* Read one line (without its newline) into buf of Y4M_MAX_LINE bytes, byte by
 * byte so it works on pipes and leaves the stream at the first payload byte.
 * *len receives the length, *consumed the bytes taken from the stream.
 * Returns 0 on a complete line, 1 at EOF before the newline, 2 when the line
 * exceeds the limit, -1 on a read error. */
static int read_line(FILE *fp, char *buf, size_t start, size_t *len, size_t *consumed)
{
    size_t n = start;
    for (;;) {
        int c = getc(fp);
        if (c == EOF) {
            *len = n;
            *consumed = n;
            return ferror(fp) ? -1 : 1;
        }
        if (c == '\n') {
            buf[n] = '\0';
            *len = n;
            *consumed = n + 1;
            return 0;
        }
        if (n + 1 >= Y4M_MAX_LINE) {
            *len = n;
            *consumed = n;
            return 2;
        }
        buf[n++] = (char)c;
    }
}

/* Parse a decimal integer token. Returns 0 and sets *v (saturated at
 * +-1e12) or -1 when s is not [-]digits. */
static int parse_int(const char *s, long long *v)
{
    int neg = 0;
    long long x = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    if (*s < '0' || *s > '9')
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        if (x < 1000000000000LL)
            x = x * 10 + (*s - '0');
    }
    *v = neg ? -x : x;
    return 0;
}

/* Parse "num:den" with 0 <= num, den <= INT_MAX. Returns 0 or -1. */
static int parse_ratio(const char *s, int *num, int *den)
{
    const char *colon = strchr(s, ':');
    char a[24], b[24];
    long long x, y;
    if (!colon || (size_t)(colon - s) >= sizeof(a) || strlen(colon + 1) >= sizeof(b))
        return -1;
    memcpy(a, s, (size_t)(colon - s));
    a[colon - s] = '\0';
    strcpy(b, colon + 1);
    if (a[0] == '-' || b[0] == '-' || parse_int(a, &x) < 0 || parse_int(b, &y) < 0 ||
        x > 2147483647LL || y > 2147483647LL)
        return -1;
    *num = (int)x;
    *den = (int)y;
    return 0;
}

static int parse_dim(struct fovea_reader *r, char field, const char *name, const char *val,
                     int *out)
{
    long long v;
    char ex[160];
    excerpt(val, strlen(val), ex, sizeof(ex));
    if (parse_int(val, &v) < 0)
        return fv_reader_fail(r, FOVEA_ERR_CORRUPT, "invalid %s %c%s: not a number", name, field,
                              ex);
    if (v <= 0)
        return fv_reader_fail(r, FOVEA_ERR_CORRUPT, "invalid %s %c%s: must be positive", name,
                              field, ex);
    if (v > FOVEA_MAX_DIM)
        return fv_reader_fail(r, FOVEA_ERR_UNSUPPORTED, "%s %c%s too large (at most %d supported)",
                              name, field, ex, FOVEA_MAX_DIM);
    *out = (int)v;
    return FOVEA_OK;
}

/* Parse the header parameters (the line after the magic) into r->info. */
static int parse_params(struct fovea_reader *r, char *line)
{
    fovea_video_info *info = &r->info;
    int seen_w = 0, seen_h = 0, seen_f = 0, seen_a = 0, seen_i = 0, seen_c = 0;
    char ex[160];
    int st;

    info->fmt = FOVEA_PIX_I420; /* no C tag: 4:2:0 8-bit (420jpeg) */
    char *save = NULL;
    for (char *tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        const char *val = tok + 1;
        int *seen;
        switch (tok[0]) {
        case 'W': seen = &seen_w; break;
        case 'H': seen = &seen_h; break;
        case 'F': seen = &seen_f; break;
        case 'A': seen = &seen_a; break;
        case 'I': seen = &seen_i; break;
        case 'C': seen = &seen_c; break;
        case 'X': /* comments and extensions: ffmpeg's color range tag */
            if (strcmp(tok, "XCOLORRANGE=FULL") == 0)
                info->color_range = FOVEA_COLOR_RANGE_FULL;
            else if (strcmp(tok, "XCOLORRANGE=LIMITED") == 0)
                info->color_range = FOVEA_COLOR_RANGE_LIMITED;
            else if (strncmp(tok, "XCOLORRANGE=", 12) != 0)
                keep_extra_tag(info, tok); /* written back as read */
            continue;
        default: continue; /* parameters we do not know */
        }
        if (*seen)
            return fv_reader_fail(r, FOVEA_ERR_CORRUPT, "duplicated %c parameter in header",
                                  tok[0]);
        *seen = 1;
        excerpt(val, strlen(val), ex, sizeof(ex));
        switch (tok[0]) {
        case 'W':
            if ((st = parse_dim(r, 'W', "width", val, &info->width)) < 0)
                return st;
            break;
        case 'H':
            if ((st = parse_dim(r, 'H', "height", val, &info->height)) < 0)
                return st;
            break;
        case 'F':
            if (parse_ratio(val, &info->fps_num, &info->fps_den) < 0 ||
                (info->fps_num == 0) != (info->fps_den == 0))
                return fv_reader_fail(r, FOVEA_ERR_CORRUPT,
                                      "invalid frame rate F%s (expected num:den)", ex);
            break;
        case 'A':
            if (parse_ratio(val, &info->sar_num, &info->sar_den) < 0)
                return fv_reader_fail(r, FOVEA_ERR_CORRUPT,
                                      "invalid pixel aspect A%s (expected num:den)", ex);
            if (info->sar_num == 0 || info->sar_den == 0)
                info->sar_num = info->sar_den = 0; /* unknown */
            break;
        case 'I':
            if (strlen(val) != 1 || !strchr("ptbm?", val[0]))
                return fv_reader_fail(r, FOVEA_ERR_CORRUPT,
                                      "invalid interlace I%s (expected p, t, b, m or ?)", ex);
            info->interlace = val[0];
            break;
        case 'C':
            info->fmt = fmt_from_tag(val);
            if (info->fmt == FOVEA_PIX_NONE) {
                if (strncmp(val, "444alpha", 8) == 0)
                    return fv_reader_fail(r, FOVEA_ERR_UNSUPPORTED,
                                          "unsupported chroma tag C%s (alpha planes are not "
                                          "supported)",
                                          ex);
                return fv_reader_fail(r, FOVEA_ERR_UNSUPPORTED, "unsupported chroma tag C%s", ex);
            }
            /* every table tag fits chroma_tag */
            snprintf(info->chroma_tag, sizeof(info->chroma_tag), "%s", val);
            break;
        }
    }
    if (!seen_w)
        return fv_reader_fail(r, FOVEA_ERR_CORRUPT, "missing W (width) in header");
    if (!seen_h)
        return fv_reader_fail(r, FOVEA_ERR_CORRUPT, "missing H (height) in header");
    return FOVEA_OK;
}

/* Frames in a regular file when every FRAME line is bare ("FRAME\n", the
 * common case), else -1. The size must divide exactly and the first frame line
 * must be bare: parameters on it would make the division meaningless. Only
 * regular files (file_size >= 0) are peeked at, so pipes are never seeked. */
static int count_frames(struct fovea_reader *r, size_t header_len, size_t frame_bytes,
                        int64_t *count)
{
    *count = -1;
    if (r->file_size < 0 || (unsigned long long)r->file_size < header_len)
        return FOVEA_OK;
    unsigned long long payload = (unsigned long long)r->file_size - header_len;
    unsigned long long per_frame = 6 + (unsigned long long)frame_bytes;
    if (payload % per_frame != 0)
        return FOVEA_OK;
    if (payload == 0) {
        *count = 0;
        return FOVEA_OK;
    }
    char first[6];
    long pos = ftell(r->fp);
    if (pos < 0)
        return FOVEA_OK; /* not seekable after all: count unknown */
    size_t got = fv_io_read_full(r->fp, first, sizeof(first));
    clearerr(r->fp);
    if (fseek(r->fp, pos, SEEK_SET) != 0)
        return fv_reader_fail(r, FOVEA_ERR_IO, "cannot seek back after the header: %s",
                              strerror(errno));
    if (got == sizeof(first) && memcmp(first, "FRAME\n", sizeof(first)) == 0)
        *count = (int64_t)(payload / per_frame);
    return FOVEA_OK;
}

static int y4m_open(struct fovea_reader *r, const fovea_reader_settings *opt)
{
    char line[Y4M_MAX_LINE];
    char ex[160];
    size_t n = 0;
    (void)opt;

    /* The magic first, so a large non-y4m file is rejected for what it is
     * rather than for a long first line. */
    const size_t mlen = sizeof(y4m_magic) - 1;
    while (n <= mlen) {
        int c = getc(r->fp);
        if (c == EOF)
            break;
        line[n++] = (char)c;
    }
    if (ferror(r->fp))
        return fv_reader_fail(r, FOVEA_ERR_IO, "read error: %s", strerror(errno));
    if (n == 0)
        return fv_reader_fail(r, FOVEA_ERR_CORRUPT, "empty file (no y4m header)");
    if (n <= mlen || memcmp(line, y4m_magic, mlen) != 0 ||
        (line[mlen] != ' ' && line[mlen] != '\n')) {
        excerpt(line, n, ex, sizeof(ex));
        return fv_reader_fail(r, FOVEA_ERR_CORRUPT,
                              "not a y4m file: bad magic '%s' (expected 'YUV4MPEG2 ')", ex);
    }
    size_t len, header_len;
    if (line[mlen] == '\n') {
        len = mlen;
        header_len = mlen + 1;
        line[mlen] = '\0';
    } else {
        int rc = read_line(r->fp, line, n, &len, &header_len);
        if (rc < 0)
            return fv_reader_fail(r, FOVEA_ERR_IO, "read error: %s", strerror(errno));
        if (rc == 1)
            return fv_reader_fail(r, FOVEA_ERR_CORRUPT,
                                  "truncated header: end of file before the end of line");
        if (rc == 2)
            return fv_reader_fail(r, FOVEA_ERR_CORRUPT, "header line too long (more than %d bytes)",
                                  Y4M_MAX_LINE);
    }
    if (memchr(line, '\0', len))
        return fv_reader_fail(r, FOVEA_ERR_CORRUPT, "header contains a NUL byte");

    int st = parse_params(r, line + mlen);
    if (st < 0)
        return st;

    y4m_reader *p = calloc(1, sizeof(*p));
    if (!p)
        return fv_reader_fail(r, FOVEA_ERR_NOMEM, "out of memory");
    p->frame_bytes = fovea_frame_packed_size(r->info.fmt, r->info.width, r->info.height);
    r->priv = p;
    if (p->frame_bytes == 0)
        return fv_reader_fail(r, FOVEA_ERR_INTERNAL, "frame size overflow");

    return count_frames(r, header_len, p->frame_bytes, &r->info.frame_count);
}

static int y4m_read(struct fovea_reader *r, fovea_frame *f)
{
    static const char tag[] = "FRAME";
    const long long idx = (long long)r->next_index;
    char buf[Y4M_MAX_LINE];
    char ex[160];
    size_t n = 0;

    int c = getc(r->fp);
    if (c == EOF) {
        if (ferror(r->fp))
            return fv_reader_fail(r, FOVEA_ERR_IO, "frame %lld: read error: %s", idx,
                                  strerror(errno));
        return FOVEA_EOF; /* clean end: nothing after the last frame */
    }
    buf[n++] = (char)c;
    /* "FRAME" then ' ' (parameters follow) or '\n' */
    while (n < sizeof(tag)) {
        if (n < sizeof(tag) - 1 && buf[n - 1] != tag[n - 1])
            break;
        if ((c = getc(r->fp)) == EOF)
            break;
        buf[n++] = (char)c;
    }
    if (ferror(r->fp))
        return fv_reader_fail(r, FOVEA_ERR_IO, "frame %lld: read error: %s", idx, strerror(errno));
    if (n < sizeof(tag) || memcmp(buf, tag, sizeof(tag) - 1) != 0 ||
        (buf[n - 1] != ' ' && buf[n - 1] != '\n')) {
        /* a few more bytes make the message recognisable; the stream is dead anyway */
        while (n < 12 && !feof(r->fp) && (c = getc(r->fp)) != EOF)
            buf[n++] = (char)c;
        excerpt(buf, n, ex, sizeof(ex));
        return fv_reader_fail(r, FOVEA_ERR_CORRUPT,
                              "frame %lld: expected FRAME header, found '%s'%s", idx, ex,
                              feof(r->fp) ? " then end of file" : "");
    }
    if (buf[n - 1] == ' ') {
        /* frame parameters: tolerated and ignored */
        size_t len, consumed;
        int rc = read_line(r->fp, buf, n, &len, &consumed);
        if (rc < 0)
            return fv_reader_fail(r, FOVEA_ERR_IO, "frame %lld: read error: %s", idx,
                                  strerror(errno));
        if (rc == 1)
            return fv_reader_fail(r, FOVEA_ERR_CORRUPT,
                                  "frame %lld: truncated FRAME header (no end of line)", idx);
        if (rc == 2)
            return fv_reader_fail(r, FOVEA_ERR_CORRUPT,
                                  "frame %lld: FRAME header line too long (more than %d bytes)",
                                  idx, Y4M_MAX_LINE);
    }
    int st = fv_io_read_planes(r, f);
    if (st == FOVEA_EOF) /* a FRAME header with no payload is not a clean end */
        st = fv_reader_fail(r, FOVEA_ERR_CORRUPT, "frame %lld: truncated: got 0 of %zu bytes", idx,
                            ((y4m_reader *)r->priv)->frame_bytes);
    return st;
}

static void y4m_close(struct fovea_reader *r)
{
    free(r->priv);
    r->priv = NULL;
}

const struct fv_reader_ops fv_y4m_reader_ops = {"y4m", y4m_open, y4m_read, y4m_close};

/* ---------------------------------------------------------------- writer */

/* Check info->extra_tags and write the tags to keep (each with a leading
 * space) into out: every tag but an XYSCSS (ffmpeg's chroma tag, the C tag
 * in capitals) that names another format than fmt, as after a conversion. */
static int extra_tags_to_write(struct fovea_writer *w, char *out, size_t outsz)
{
    const char *s = w->info.extra_tags;
    size_t o = 0;
    out[0] = '\0';
    if (!memchr(s, '\0', sizeof(w->info.extra_tags)))
        return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG, "extra_tags is not terminated");
    while (*s) {
        if (*s == ' ') { /* separators: one or more spaces */
            s++;
            continue;
        }
        const char *end = strchr(s, ' ');
        const size_t len = end ? (size_t)(end - s) : strlen(s);
        if (!carriable_tag(s, len) || strncmp(s, "XCOLORRANGE=", 12) == 0) {
            char ex[160];
            excerpt(s, len, ex, sizeof(ex));
            return fv_writer_fail(w, FOVEA_ERR_INVALID_ARG,
                                  "extra_tags: '%s' is not a y4m X tag fovea writes (X, then no "
                                  "space or control byte; XCOLORRANGE is color_range's)",
                                  ex);
        }
        int keep = 1;
        if (len > 7 && strncmp(s, "XYSCSS=", 7) == 0) {
            char tag[16];
            keep = 0;
            if (len - 7 < sizeof(tag)) {
                for (size_t i = 0; i < len - 7; i++)
                    tag[i] = (char)(s[7 + i] >= 'A' && s[7 + i] <= 'Z' ? s[7 + i] - 'A' + 'a'
                                                                       : s[7 + i]);
                tag[len - 7] = '\0';
                keep = fmt_from_tag(tag) == w->info.fmt;
            }
        }
        if (keep && o + 1 + len < outsz) { /* fits: outsz is extra_tags' size + 1 */
            out[o++] = ' ';
            memcpy(out + o, s, len);
            o += len;
            out[o] = '\0';
        }
        s += len;
    }
    return FOVEA_OK;
}

static int y4m_writer_open(struct fovea_writer *w)
{
    const fovea_video_info *info = &w->info;
    const char *tag = canonical_tag(info->fmt);
    if (!tag) {
        const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(info->fmt);
        const char *hint = info->fmt == FOVEA_PIX_NV12     ? "i420"
                           : d && d->bytes_per_sample == 2 ? "i444p16 (keeping its depth)"
                                                           : "i444 or i420";
        return fv_writer_fail(w, FOVEA_ERR_UNSUPPORTED,
                              "y4m cannot hold %s frames; convert to %s first",
                              fovea_pixfmt_name(info->fmt), hint);
    }
    /* carry the input's tag (e.g. 420mpeg2) when it describes the same format */
    if (info->chroma_tag[0] && memchr(info->chroma_tag, '\0', sizeof(info->chroma_tag)) &&
        fmt_from_tag(info->chroma_tag) == info->fmt)
        tag = info->chroma_tag;

    int fn = info->fps_num, fd = info->fps_den;
    if (fn <= 0 || fd <= 0) {
        fn = 25;
        fd = 1;
    }
    int an = info->sar_num, ad = info->sar_den;
    if (an <= 0 || ad <= 0)
        an = ad = 0;
    /* unknown interlacing is written as progressive, as most tools do */
    char il = info->interlace;
    if (il != 't' && il != 'b' && il != 'm')
        il = 'p';
    const char *range = info->color_range == FOVEA_COLOR_RANGE_FULL      ? " XCOLORRANGE=FULL"
                        : info->color_range == FOVEA_COLOR_RANGE_LIMITED ? " XCOLORRANGE=LIMITED"
                                                                         : "";
    char extra[sizeof(info->extra_tags) + 1];
    int st = extra_tags_to_write(w, extra, sizeof(extra));
    if (st < 0)
        return st;
    /* ffmpeg's order: C, its X tags, XCOLORRANGE */
    if (fprintf(w->fp, "%s W%d H%d F%d:%d I%c A%d:%d C%s%s%s\n", y4m_magic, info->width,
                info->height, fn, fd, il, an, ad, tag, extra, range) < 0)
        return fv_writer_fail(w, FOVEA_ERR_IO, "write error: %s", strerror(errno));
    return FOVEA_OK;
}

static int y4m_write(struct fovea_writer *w, FILE *fp, const fovea_frame *f)
{
    if (fputs("FRAME\n", fp) == EOF)
        return fv_writer_fail(w, FOVEA_ERR_IO, "write error: %s", strerror(errno));
    return fv_io_write_planes(w, fp, f);
}

const struct fv_writer_ops fv_y4m_writer_ops = {"y4m", 0, y4m_writer_open, y4m_write, NULL, NULL};
