/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The delta stream decoder: checks every byte a peer sent (checksum, fields,
 * limits, the frame a delta applies to, the sizes zstd gives back) and only
 * then changes the frame it shows, so it never shows a damaged one. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "stream/stream_internal.h"

typedef struct dec_group {
    int64_t first, count; /* ordinals in the carried list */
    const uint8_t *data;  /* compressed */
    size_t size;
    size_t raw_off, raw_len; /* decompressed, in raw[] */
    int check;               /* largest checked error of its tiles, -1 none */
    char err[160];           /* why it was refused ("" = fine) */
} dec_group;

enum { DEC_NEW = 0, DEC_STREAM, DEC_ENDED };

struct fovea_stream_decoder {
    fovea_context *ctx;
    fovea_stream_limits lim;
    int state;
    stream_hello hello;
    stream_geom g;
    fovea_frame shown;
    int synced;       /* shown is a frame deltas apply to */
    int64_t shown_no; /* its number, -1 none */
    int64_t last_no;  /* the last frame shown, even when no longer synced */

    uint8_t *map, *check_map; /* decompressed bitmaps */
    int32_t *list;            /* carried tiles */
    dec_group *groups;
    int64_t groups_cap;
    uint8_t *raw;
    size_t raw_cap;
    int threads;
    ZSTD_DCtx **dctx;
    uint16_t *scratch; /* per thread: STREAM_SCRATCH_VALUES(max_block) */

    /* the message being decoded, for the workers */
    int keyframe;
    const uint8_t *check; /* check map of a keyframe that can be checked */
};

int fovea_stream_decoder_open(fovea_stream_decoder **out, fovea_context *ctx,
                              const fovea_stream_limits *lim)
{
    if (!out)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "stream: NULL decoder pointer");
    *out = NULL;
    fovea_stream_decoder *d = calloc(1, sizeof(*d));
    if (!d)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
    d->ctx = ctx;
    if (lim)
        d->lim = *lim;
    else
        fovea_stream_limits_init(&d->lim);
    d->shown_no = d->last_no = -1;
    d->threads = ctx ? fovea_context_threads(ctx) : 1;
    if (d->threads < 1)
        d->threads = 1;
    d->dctx = calloc((size_t)d->threads, sizeof(ZSTD_DCtx *));
    for (int i = 0; d->dctx && i < d->threads; i++)
        if (!(d->dctx[i] = ZSTD_createDCtx()))
            break;
    if (!d->dctx || !d->dctx[d->threads - 1]) {
        fovea_stream_decoder_close(&d);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "stream: cannot create zstd contexts");
    }
    *out = d;
    return FOVEA_OK;
}

void fovea_stream_decoder_close(fovea_stream_decoder **pd)
{
    if (!pd || !*pd)
        return;
    fovea_stream_decoder *d = *pd;
    for (int i = 0; d->dctx && i < d->threads; i++)
        ZSTD_freeDCtx(d->dctx[i]);
    free(d->dctx);
    fovea_frame_free(d->ctx, &d->shown);
    free(d->map);
    free(d->check_map);
    free(d->list);
    free(d->groups);
    free(d->raw);
    free(d->scratch);
    free(d);
    *pd = NULL;
}

int fovea_stream_decoder_synced(const fovea_stream_decoder *d)
{
    return d ? d->synced : 0;
}

int64_t fovea_stream_decoder_shown(const fovea_stream_decoder *d)
{
    return d && d->synced ? d->shown_no : -1;
}

int64_t stream_decoder_last_shown(const fovea_stream_decoder *d)
{
    return d ? d->last_no : -1;
}

static void fill_stream_fields(const fovea_stream_decoder *d, fovea_stream_event *ev)
{
    if (d->state == DEC_NEW)
        return;
    ev->info = &d->hello.info;
    ev->threshold = d->hello.threshold;
    ev->keyframe_interval = d->hello.keyframe_interval;
    ev->tile = d->hello.tile;
}

/* ---------------------------------------------------------------- HELLO, END */

static int on_hello(fovea_stream_decoder *d, const uint8_t *p, size_t n)
{
    char err[256];
    if (d->state != DEC_NEW)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: a second stream header");
    stream_hello h;
    int st = stream_hello_parse(p, n, &d->lim, &h, err, sizeof err);
    if (st >= 0)
        st = stream_geom_init(&d->g, h.info.width, h.info.height, h.info.fmt, h.tile, err,
                              sizeof err);
    if (st < 0)
        return fv_ctx_error(d->ctx, st == FOVEA_ERR_INVALID_ARG ? FOVEA_ERR_CORRUPT : st,
                            "stream: %s", err);
    const stream_geom *g = &d->g;
    d->map = malloc(g->map_bytes);
    d->check_map = malloc(g->map_bytes);
    d->list = malloc((size_t)g->tiles * sizeof(int32_t));
    d->scratch =
        malloc((size_t)d->threads * STREAM_SCRATCH_VALUES(d->g.max_block) * sizeof(uint16_t));
    if (!d->map || !d->check_map || !d->list || !d->scratch)
        return fv_ctx_error(d->ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
    FOVEA_TRY(fovea_frame_alloc(d->ctx, &d->shown, h.info.width, h.info.height, h.info.fmt,
                                FOVEA_MEM_HOST));
    d->hello = h;
    d->state = DEC_STREAM;
    return FOVEA_OK;
}

static int on_end(fovea_stream_decoder *d, const uint8_t *p, size_t n, fovea_stream_event *ev)
{
    if (d->state != DEC_STREAM)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                            "stream: end of stream before the stream header");
    if (n != STREAM_END_SIZE)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: end message of %zu bytes", n);
    const uint64_t frames = get_u64(p);
    if (frames > INT64_MAX || (d->last_no >= 0 && frames <= (uint64_t)d->last_no))
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                            "stream: end of stream after %llu frames, but frame %lld was shown",
                            (unsigned long long)frames, (long long)d->last_no);
    ev->end_frames = (int64_t)frames;
    d->state = DEC_ENDED;
    return FOVEA_OK;
}

/* The sender turned the receiver away: its first and last message. */
static int on_refused(fovea_stream_decoder *d, const uint8_t *p, size_t n, fovea_stream_event *ev)
{
    if (d->state != DEC_NEW)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: a refusal after the stream header");
    if (n != STREAM_REFUSED_SIZE)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: refusal message of %zu bytes", n);
    const uint32_t reason = get_u32(p), max_clients = get_u32(p + 4);
    ev->refused_reason = reason > INT32_MAX ? INT32_MAX : (int)reason;
    ev->refused_max_clients = max_clients > INT32_MAX ? INT32_MAX : (int)max_clients;
    d->state = DEC_ENDED;
    return FOVEA_OK;
}

/* ---------------------------------------------------------------- frames */

/* Decompress exactly want bytes (a tile map) or fail. */
static int unpack_map(fovea_stream_decoder *d, const uint8_t *src, size_t n, uint8_t *dst,
                      const char *what)
{
    const size_t want = d->g.map_bytes;
    const size_t got = ZSTD_decompressDCtx(d->dctx[0], dst, want, src, n);
    if (ZSTD_isError(got))
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: %s: zstd: %s", what,
                            ZSTD_getErrorName(got));
    if (got != want)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: %s of %zu bytes, expected %zu",
                            what, got, want);
    /* bits past the last tile are zero */
    const int tail = (int)(d->g.tiles & 7);
    if (tail && (dst[want - 1] >> tail))
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: %s marks tiles past the last",
                            what);
    return FOVEA_OK;
}

static int grow_groups(fovea_stream_decoder *d, int64_t n)
{
    if (n <= d->groups_cap)
        return FOVEA_OK;
    dec_group *p = realloc(d->groups, (size_t)n * sizeof(*p));
    if (!p)
        return fv_ctx_error(d->ctx, FOVEA_ERR_NOMEM, "stream: out of memory");
    d->groups = p;
    d->groups_cap = n;
    return FOVEA_OK;
}

/* Read the group table after the map: every count, size and the payload's end. */
static int parse_groups(fovea_stream_decoder *d, const uint8_t *p, size_t left, int64_t n,
                        int64_t ng, size_t *raw_total)
{
    FOVEA_TRY(grow_groups(d, ng));
    int64_t first = 0;
    size_t raw = 0;
    for (int64_t k = 0; k < ng; k++) {
        if (left < 8)
            return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: group %lld header truncated",
                                (long long)k);
        const uint32_t count = get_u32(p), size = get_u32(p + 4);
        p += 8;
        left -= 8;
        if (count == 0 || (int64_t)count > n - first)
            return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                                "stream: group %lld of %lu tiles (%lld of %lld left)", (long long)k,
                                (unsigned long)count, (long long)(n - first), (long long)n);
        if (size == 0 || size > left)
            return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                                "stream: group %lld of %lu bytes (%zu left in the message)",
                                (long long)k, (unsigned long)size, left);
        dec_group *gr = &d->groups[k];
        gr->first = first;
        gr->count = count;
        gr->data = p;
        gr->size = size;
        gr->raw_off = raw;
        gr->raw_len = 0;
        for (int64_t i = first; i < first + count; i++)
            gr->raw_len += stream_tile_bytes(&d->g, d->list[i]);
        raw += gr->raw_len;
        first += count;
        p += size;
        left -= size;
    }
    if (first != n)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                            "stream: the groups hold %lld tiles, the frame %lld", (long long)first,
                            (long long)n);
    if (left != 0)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: %zu bytes after the last group",
                            left);
    *raw_total = raw;
    return FOVEA_OK;
}

typedef struct dec_job {
    fovea_stream_decoder *d;
} dec_job;

/* Phase 1: decompress each group to exactly its size and check its modes. */
static void unpack_groups(void *arg, int begin, int end, int thread)
{
    fovea_stream_decoder *d = ((dec_job *)arg)->d;
    const stream_geom *g = &d->g;
    for (int k = begin; k < end; k++) {
        dec_group *gr = &d->groups[k];
        gr->err[0] = 0;
        uint8_t *dst = d->raw + gr->raw_off;
        const size_t got =
            ZSTD_decompressDCtx(d->dctx[thread], dst, gr->raw_len, gr->data, gr->size);
        if (ZSTD_isError(got)) {
            snprintf(gr->err, sizeof gr->err, "group %d: zstd: %s", k, ZSTD_getErrorName(got));
            continue;
        }
        if (got != gr->raw_len) {
            snprintf(gr->err, sizeof gr->err, "group %d holds %zu bytes, its tiles %zu", k, got,
                     gr->raw_len);
            continue;
        }
        const uint8_t *q = dst;
        for (int64_t i = gr->first; i < gr->first + gr->count && !gr->err[0]; i++)
            for (int p = 0; p < g->planes; p++) {
                int x0, y0, w, h;
                stream_block(g, p, d->list[i], &x0, &y0, &w, &h);
                if (!stream_mode_ok(q[0], d->keyframe)) {
                    snprintf(gr->err, sizeof gr->err, "tile %ld plane %d: mode %u in a %s",
                             (long)d->list[i], p, q[0], d->keyframe ? "keyframe" : "delta");
                    break;
                }
                q += 1 + (size_t)w * (size_t)h * (size_t)g->pl[p].cpp * (size_t)g->pl[p].bps;
            }
    }
}

/* Phase 2 (everything checked): write the tiles into the shown frame. */
static void apply_groups(void *arg, int begin, int end, int thread)
{
    fovea_stream_decoder *d = ((dec_job *)arg)->d;
    const stream_geom *g = &d->g;
    uint16_t *scratch = d->scratch + (size_t)thread * STREAM_SCRATCH_VALUES(g->max_block);
    for (int k = begin; k < end; k++) {
        dec_group *gr = &d->groups[k];
        const uint8_t *q = d->raw + gr->raw_off;
        gr->check = -1;
        for (int64_t i = gr->first; i < gr->first + gr->count; i++) {
            const int32_t t = d->list[i];
            const int checked = d->check && !((d->check[t >> 3] >> (t & 7)) & 1);
            for (int p = 0; p < g->planes; p++) {
                stream_view v;
                stream_view_of(g, &d->shown, p, t, &v);
                int e = -1;
                stream_decode_block(q, &v, scratch, checked ? &e : NULL);
                if (e > gr->check)
                    gr->check = e;
                q += 1 + (size_t)v.w * (size_t)v.h * (size_t)v.cpp * (size_t)v.bps;
            }
        }
    }
}

/* The fixed fields of a frame message (STREAM_FRAME_HEADER_SIZE bytes). */
typedef struct dec_frame_hdr {
    uint64_t fno, ts, base; /* frame number, timestamp, frame a delta applies to */
    uint32_t nt, ng, m;     /* tiles carried, groups, map bytes */
} dec_frame_hdr;

/* The frame header of message p (n bytes), checked against the stream's state
 * and geometry. */
static int parse_frame_header(fovea_stream_decoder *d, int key, const uint8_t *p, size_t n,
                              dec_frame_hdr *out)
{
    const stream_geom *g = &d->g;
    if (d->state != DEC_STREAM)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: a frame %s",
                            d->state == DEC_NEW ? "before the stream header" : "after the end");
    if (n < STREAM_FRAME_HEADER_SIZE)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: frame message of %zu bytes", n);
    const uint64_t fno = get_u64(p), ts = get_u64(p + 8), base = get_u64(p + 16);
    const uint32_t nt = get_u32(p + 24), ng = get_u32(p + 28), m = get_u32(p + 32);
    if (fno > INT64_MAX)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: frame number %llu",
                            (unsigned long long)fno);
    if (d->last_no >= 0 && (int64_t)fno <= d->last_no)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                            "stream: frame %llu after frame %lld (out of order)",
                            (unsigned long long)fno, (long long)d->last_no);
    if (key) {
        if ((int64_t)nt != g->tiles)
            return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                                "stream: keyframe %llu carries %lu of %lld tiles",
                                (unsigned long long)fno, (unsigned long)nt, (long long)g->tiles);
        if ((base == STREAM_NO_BASE) != (m == 0) || (base != STREAM_NO_BASE && base >= fno))
            return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                                "stream: keyframe %llu: base %llu with a check map of %lu bytes",
                                (unsigned long long)fno, (unsigned long long)base,
                                (unsigned long)m);
    } else {
        if (!d->synced)
            return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                                "stream: delta frame %llu but no frame to apply it to (waiting "
                                "for a keyframe)",
                                (unsigned long long)fno);
        if (base != (uint64_t)d->shown_no)
            return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                                "stream: delta frame %llu applies to frame %llu but frame %lld is "
                                "shown (frames missing)",
                                (unsigned long long)fno, (unsigned long long)base,
                                (long long)d->shown_no);
        if ((int64_t)nt > g->tiles || (nt == 0) != (m == 0))
            return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                                "stream: delta frame %llu: %lu tiles with a map of %lu bytes",
                                (unsigned long long)fno, (unsigned long)nt, (unsigned long)m);
    }
    if ((nt == 0) != (ng == 0) || ng > nt)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                            "stream: frame %llu: %lu groups for %lu tiles", (unsigned long long)fno,
                            (unsigned long)ng, (unsigned long)nt);
    if (m > n - STREAM_FRAME_HEADER_SIZE)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                            "stream: frame %llu: map of %lu bytes "
                            "past the end",
                            (unsigned long long)fno, (unsigned long)m);
    *out = (dec_frame_hdr){fno, ts, base, nt, ng, m};
    return FOVEA_OK;
}

/* The carried tiles into d->list (*count of them) from the map at mp: every
 * tile of a keyframe (and its check map into d->check when it applies to the
 * shown frame), the marked tiles of a delta. */
static int list_tiles(fovea_stream_decoder *d, int key, const dec_frame_hdr *h, const uint8_t *mp,
                      int64_t *out_count)
{
    const stream_geom *g = &d->g;
    const uint64_t fno = h->fno, base = h->base;
    const uint32_t nt = h->nt, m = h->m;
    d->check = NULL;
    int64_t count = 0;
    if (key) {
        for (int64_t t = 0; t < g->tiles; t++)
            d->list[t] = (int32_t)t;
        count = g->tiles;
        if (m > 0) {
            FOVEA_TRY(unpack_map(d, mp, m, d->check_map, "keyframe check map"));
            if (d->synced && base == (uint64_t)d->shown_no)
                d->check = d->check_map;
        }
    } else if (nt > 0) {
        FOVEA_TRY(unpack_map(d, mp, m, d->map, "tile map"));
        for (int64_t t = 0; t < g->tiles; t++)
            if ((d->map[t >> 3] >> (t & 7)) & 1)
                d->list[count++] = (int32_t)t;
        if (count != (int64_t)nt)
            return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                                "stream: delta frame %llu: the map marks %lld tiles, the header "
                                "%lu",
                                (unsigned long long)fno, (long long)count, (unsigned long)nt);
    }
    *out_count = count;
    return FOVEA_OK;
}

/* The groups of the frame (gp, left bytes) for its count listed tiles:
 * parsed, unpacked (all checked) and applied to the shown frame. */
static int decode_groups(fovea_stream_decoder *d, int key, const dec_frame_hdr *h,
                         const uint8_t *gp, size_t left, int64_t count)
{
    const uint32_t ng = h->ng;
    size_t raw = 0;
    FOVEA_TRY(parse_groups(d, gp, left, count, ng, &raw));
    if (raw > d->raw_cap) {
        free(d->raw);
        d->raw = malloc(raw);
        d->raw_cap = d->raw ? raw : 0;
        if (!d->raw)
            return fv_ctx_error(d->ctx, FOVEA_ERR_NOMEM, "stream: cannot allocate %zu bytes", raw);
    }
    d->keyframe = key;
    dec_job job = {d};
    fv_parallel_for(d->ctx, (int)ng, 1, unpack_groups, &job);
    for (uint32_t k = 0; k < ng; k++)
        if (d->groups[k].err[0])
            return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: frame %llu: %s",
                                (unsigned long long)h->fno, d->groups[k].err);
    fv_parallel_for(d->ctx, (int)ng, 1, apply_groups, &job);
    return FOVEA_OK;
}

/* The frame decoded: the event's frame and info. */
static void frame_event(fovea_stream_decoder *d, int key, const dec_frame_hdr *h, size_t n,
                        int64_t count, double t0, fovea_stream_event *ev)
{
    const stream_geom *g = &d->g;
    const uint64_t fno = h->fno;
    int check = -1;
    for (uint32_t k = 0; d->check && k < h->ng; k++)
        if (d->groups[k].check > check)
            check = d->groups[k].check;
    if (d->check && check < 0)
        check = 0; /* every tile was listed: nothing a delta would have kept */
    const int64_t skipped = key && d->last_no >= 0 ? (int64_t)fno - d->last_no - 1 : 0;
    d->synced = 1;
    d->shown_no = d->last_no = (int64_t)fno;
    ev->frame = &d->shown;
    fovea_stream_frame_info *fi = &ev->fi;
    fi->frame = (int64_t)fno;
    fi->timestamp_us = h->ts;
    fi->keyframe = key;
    fi->tiles_sent = count;
    fi->tiles_changed = count;
    if (key && h->m > 0) {
        fi->tiles_changed = 0;
        for (int64_t t = 0; t < g->tiles; t++)
            fi->tiles_changed += (d->check_map[t >> 3] >> (t & 7)) & 1;
    }
    fi->tiles_total = g->tiles;
    fi->bytes = FOVEA_STREAM_HEADER_SIZE + n;
    fi->raw_bytes = g->packed;
    fi->skipped = skipped;
    fi->checked_error = check;
    fi->seconds = stream_now() - t0;
}

static int on_frame(fovea_stream_decoder *d, int key, const uint8_t *p, size_t n,
                    fovea_stream_event *ev)
{
    const double t0 = stream_now();
    dec_frame_hdr h = {0};
    FOVEA_TRY(parse_frame_header(d, key, p, n, &h));
    const uint8_t *mp = p + STREAM_FRAME_HEADER_SIZE;
    int64_t count = 0;
    FOVEA_TRY(list_tiles(d, key, &h, mp, &count));
    FOVEA_TRY(decode_groups(d, key, &h, mp + h.m, n - STREAM_FRAME_HEADER_SIZE - h.m, count));
    frame_event(d, key, &h, n, count, t0, ev);
    return FOVEA_OK;
}

static int feed(fovea_stream_decoder *d, const uint8_t *msg, size_t size, fovea_stream_event *ev)
{
    if (size < FOVEA_STREAM_HEADER_SIZE)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                            "stream: message of %zu bytes is shorter "
                            "than a header",
                            size);
    fovea_stream_msg_type type;
    size_t n;
    FOVEA_TRY(fovea_stream_parse_header(d->ctx, msg, &d->lim, &type, &n));
    if (n != size - FOVEA_STREAM_HEADER_SIZE)
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                            "stream: message declares %zu payload bytes but has %zu", n,
                            size - FOVEA_STREAM_HEADER_SIZE);
    if (!stream_checksum_ok(msg, n))
        return fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT,
                            "stream: checksum mismatch (damaged message)");
    const uint8_t *p = msg + FOVEA_STREAM_HEADER_SIZE;
    int st;
    switch (type) {
    case FOVEA_STREAM_MSG_HELLO: st = on_hello(d, p, n); break;
    case FOVEA_STREAM_MSG_KEYFRAME:
    case FOVEA_STREAM_MSG_DELTA:
        st = on_frame(d, type == FOVEA_STREAM_MSG_KEYFRAME, p, n, ev);
        break;
    case FOVEA_STREAM_MSG_END: st = on_end(d, p, n, ev); break;
    case FOVEA_STREAM_MSG_REFUSED: st = on_refused(d, p, n, ev); break;
    default:
        st = fv_ctx_error(d->ctx, FOVEA_ERR_CORRUPT, "stream: a resync request is for a sender");
        break;
    }
    if (st < 0)
        return st;
    ev->type = type;
    fill_stream_fields(d, ev);
    return FOVEA_OK;
}

int fovea_stream_decoder_feed(fovea_stream_decoder *d, const uint8_t *msg, size_t size,
                              fovea_stream_event *ev)
{
    if (!d)
        return FOVEA_ERR_INVALID_ARG;
    if (!ev || (!msg && size))
        return fv_ctx_error(d->ctx, FOVEA_ERR_INVALID_ARG, "stream: NULL message or event");
    memset(ev, 0, sizeof(*ev));
    ev->fi.checked_error = -1;
    const int st = feed(d, msg, size, ev);
    if (st < 0) {
        /* whatever went wrong, the next frame shown is a keyframe's */
        d->synced = 0;
        memset(ev, 0, sizeof(*ev));
        ev->fi.checked_error = -1;
    }
    return st;
}
