/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The delta stream's wire format (docs/stream-format.md): message header and
 * checksum, pixel format codes, the HELLO payload, RESYNC messages. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "stream/stream_internal.h"

static const uint8_t magic[4] = {0x46, 0x56, 0x53, 0x54}; /* "FVST" */

uint64_t stream_checksum(const uint8_t *msg, size_t n)
{
    const uint64_t seed = XXH3_64bits(msg, 12);
    return XXH3_64bits_withSeed(msg + FOVEA_STREAM_HEADER_SIZE, n, seed);
}

void stream_seal(uint8_t *msg, fovea_stream_msg_type type, size_t n)
{
    memcpy(msg, magic, 4);
    msg[4] = FOVEA_STREAM_VERSION;
    msg[5] = (uint8_t)type;
    put_u16(msg + 6, 0);
    put_u32(msg + 8, (uint32_t)n);
    put_u64(msg + 12, stream_checksum(msg, n));
}

int stream_checksum_ok(const uint8_t *msg, size_t n)
{
    return get_u64(msg + 12) == stream_checksum(msg, n);
}

int fovea_stream_parse_header(fovea_context *ctx, const uint8_t *hdr,
                              const fovea_stream_limits *lim, fovea_stream_msg_type *type,
                              size_t *payload)
{
    if (!hdr)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "stream: NULL header");
    fovea_stream_limits def;
    if (!lim) {
        fovea_stream_limits_init(&def);
        lim = &def;
    }
    if (memcmp(hdr, magic, 4) != 0)
        return fv_ctx_error(ctx, FOVEA_ERR_CORRUPT,
                            "stream: not a fovea stream message (bad magic %02x %02x %02x %02x)",
                            hdr[0], hdr[1], hdr[2], hdr[3]);
    if (hdr[4] != FOVEA_STREAM_VERSION)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "stream: format version %u; this fovea reads version %d", hdr[4],
                            FOVEA_STREAM_VERSION);
    if (hdr[5] < FOVEA_STREAM_MSG_HELLO || hdr[5] > FOVEA_STREAM_MSG_REFUSED)
        return fv_ctx_error(ctx, FOVEA_ERR_CORRUPT, "stream: unknown message type %u", hdr[5]);
    if (get_u16(hdr + 6) != 0)
        return fv_ctx_error(ctx, FOVEA_ERR_CORRUPT, "stream: reserved flags 0x%04x set",
                            get_u16(hdr + 6));
    const uint32_t n = get_u32(hdr + 8);
    if (n > lim->max_message_bytes)
        return fv_ctx_error(ctx, FOVEA_ERR_CORRUPT,
                            "stream: message of %lu bytes is over the limit of %zu",
                            (unsigned long)n, lim->max_message_bytes);
    if (type)
        *type = (fovea_stream_msg_type)hdr[5];
    if (payload)
        *payload = n;
    return FOVEA_OK;
}

size_t fovea_stream_resync_message(int64_t shown, uint8_t *buf)
{
    if (!buf)
        return 0;
    put_u64(buf + FOVEA_STREAM_HEADER_SIZE, shown < 0 ? STREAM_NO_BASE : (uint64_t)shown);
    stream_seal(buf, FOVEA_STREAM_MSG_RESYNC, STREAM_RESYNC_SIZE);
    return FOVEA_STREAM_HEADER_SIZE + STREAM_RESYNC_SIZE;
}

size_t stream_refused_message(uint32_t reason, uint32_t max_clients, uint8_t *buf)
{
    put_u32(buf + FOVEA_STREAM_HEADER_SIZE, reason);
    put_u32(buf + FOVEA_STREAM_HEADER_SIZE + 4, max_clients);
    stream_seal(buf, FOVEA_STREAM_MSG_REFUSED, STREAM_REFUSED_SIZE);
    return FOVEA_STREAM_HEADER_SIZE + STREAM_REFUSED_SIZE;
}

void fovea_stream_limits_init(fovea_stream_limits *l)
{
    if (!l)
        return;
    l->max_frame_bytes = (size_t)256 << 20;
    l->max_message_bytes = (size_t)272 << 20;
}

/* ---------------------------------------------------------------- formats */

/* wire code i + 1 is codes[i]: fixed by the format, whatever the enum does */
static const fovea_pixfmt codes[] = {
    FOVEA_PIX_GRAY8,   FOVEA_PIX_GRAY10,  FOVEA_PIX_GRAY12,  FOVEA_PIX_GRAY16,  FOVEA_PIX_I420,
    FOVEA_PIX_I420P10, FOVEA_PIX_I420P12, FOVEA_PIX_I420P16, FOVEA_PIX_I422,    FOVEA_PIX_I422P10,
    FOVEA_PIX_I422P12, FOVEA_PIX_I422P16, FOVEA_PIX_I444,    FOVEA_PIX_I444P10, FOVEA_PIX_I444P12,
    FOVEA_PIX_I444P16, FOVEA_PIX_NV12,    FOVEA_PIX_RGB24,   FOVEA_PIX_RGBA,    FOVEA_PIX_RGB48,
    FOVEA_PIX_RGBA64,
};
#define N_CODES (sizeof(codes) / sizeof(codes[0]))

uint16_t stream_fmt_code(fovea_pixfmt fmt)
{
    for (size_t i = 0; i < N_CODES; i++)
        if (codes[i] == fmt)
            return (uint16_t)(i + 1);
    return 0;
}

fovea_pixfmt stream_fmt_from_code(uint16_t code)
{
    return code >= 1 && code <= N_CODES ? codes[code - 1] : FOVEA_PIX_NONE;
}

/* ---------------------------------------------------------------- HELLO */

void stream_hello_pack(const stream_hello *h, uint8_t *b)
{
    const fovea_video_info *in = &h->info;
    memset(b, 0, STREAM_HELLO_SIZE);
    put_u32(b + 0, (uint32_t)in->width);
    put_u32(b + 4, (uint32_t)in->height);
    put_u16(b + 8, stream_fmt_code(in->fmt));
    put_u16(b + 10, (uint16_t)h->tile);
    const int fps_ok = in->fps_num > 0 && in->fps_den > 0;
    put_u32(b + 12, fps_ok ? (uint32_t)in->fps_num : 0);
    put_u32(b + 16, fps_ok ? (uint32_t)in->fps_den : 0);
    const int sar_ok = in->sar_num > 0 && in->sar_den > 0;
    put_u32(b + 20, sar_ok ? (uint32_t)in->sar_num : 0);
    put_u32(b + 24, sar_ok ? (uint32_t)in->sar_den : 0);
    const char il = in->interlace;
    b[28] = (uint8_t)(il == 'p' || il == 't' || il == 'b' || il == 'm' ? il : '?');
    b[29] = (uint8_t)(in->color_range >= 0 && in->color_range <= 2 ? in->color_range : 0);
    put_u16(b + 30, (uint16_t)h->threshold);
    put_u32(b + 32, (uint32_t)h->keyframe_interval);
    put_u32(b + 36, (uint32_t)h->denoise);
    /* at most 15 characters and a NUL */
    for (size_t i = 0; i + 1 < 16 && in->chroma_tag[i]; i++)
        b[40 + i] = (uint8_t)in->chroma_tag[i];
}

int stream_hello_parse(const uint8_t *b, size_t n, const fovea_stream_limits *lim, stream_hello *h,
                       char *err, size_t errsz)
{
    if (n != STREAM_HELLO_SIZE)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "stream header of %zu bytes, expected %d",
                         n, STREAM_HELLO_SIZE);
    memset(h, 0, sizeof(*h));
    fovea_video_info *in = &h->info;
    fovea_video_info_init(in);
    const uint32_t w = get_u32(b), hh = get_u32(b + 4);
    if (w < 1 || hh < 1 || w > FOVEA_MAX_DIM || hh > FOVEA_MAX_DIM)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "stream header: frame size %lux%lu",
                         (unsigned long)w, (unsigned long)hh);
    in->width = (int)w;
    in->height = (int)hh;
    in->fmt = stream_fmt_from_code(get_u16(b + 8));
    if (in->fmt == FOVEA_PIX_NONE)
        return fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED,
                         "stream header: unknown pixel format code %u", get_u16(b + 8));
    h->tile = get_u16(b + 10);
    const uint32_t fn = get_u32(b + 12), fd = get_u32(b + 16);
    const uint32_t an = get_u32(b + 20), ad = get_u32(b + 24);
    if ((fn == 0) != (fd == 0) || fn > INT32_MAX || fd > INT32_MAX)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "stream header: frame rate %lu/%lu",
                         (unsigned long)fn, (unsigned long)fd);
    if ((an == 0) != (ad == 0) || an > INT32_MAX || ad > INT32_MAX)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "stream header: aspect %lu:%lu",
                         (unsigned long)an, (unsigned long)ad);
    in->fps_num = (int)fn;
    in->fps_den = (int)fd;
    in->sar_num = (int)an;
    in->sar_den = (int)ad;
    const char il = (char)b[28];
    if (il != 'p' && il != 't' && il != 'b' && il != 'm' && il != '?')
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "stream header: interlacing byte 0x%02x",
                         b[28]);
    in->interlace = il;
    if (b[29] > 2)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "stream header: color range %u", b[29]);
    in->color_range = b[29];
    h->threshold = get_u16(b + 30);
    const uint32_t k = get_u32(b + 32), dn = get_u32(b + 36);
    if (k > INT32_MAX || dn > 3)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT,
                         "stream header: keyframe interval %lu or denoise mode %lu",
                         (unsigned long)k, (unsigned long)dn);
    h->keyframe_interval = (int)k;
    h->denoise = (int)dn;
    if (!memchr(b + 40, 0, 16))
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "stream header: chroma tag not terminated");
    for (int i = 40; i < 56 && b[i]; i++)
        if (b[i] < 0x21 || b[i] > 0x7e)
            return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "stream header: chroma tag byte 0x%02x",
                             b[i]);
    memcpy(in->chroma_tag, b + 40, 16);
    in->chroma_tag[15] = 0;
    for (int i = 56; i < 64; i++)
        if (b[i])
            return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "stream header: reserved bytes set");
    in->frame_count = -1;
    const size_t packed = fovea_frame_packed_size(in->fmt, in->width, in->height);
    if (packed == 0 || packed > lim->max_frame_bytes)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT,
                         "stream header: %dx%d %s frames of %zu bytes are over the limit of %zu",
                         in->width, in->height, fovea_pixfmt_name(in->fmt), packed,
                         lim->max_frame_bytes);
    return FOVEA_OK;
}

double stream_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
