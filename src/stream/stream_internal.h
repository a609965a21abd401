/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal pieces of the delta streamer shared by the encoder, the decoder and
 * the TCP layer: little-endian fields, message framing (format.c), the tile
 * geometry and the per-block modes (tiles.c). docs/stream-format.md is the
 * specification. */
#ifndef FOVEA_STREAM_INTERNAL_H
#define FOVEA_STREAM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"
#include "core/core.h"
#include "fovea/stream.h"

#define STREAM_HELLO_SIZE 64
#define STREAM_FRAME_HEADER_SIZE 36
#define STREAM_END_SIZE 8
#define STREAM_RESYNC_SIZE 8
#define STREAM_REFUSED_SIZE 8
/* the largest message a sender accepts from a receiver (a RESYNC) */
#define STREAM_MAX_REQUEST 64
#define STREAM_NO_BASE UINT64_MAX

/* tile modes */
enum {
    STREAM_MODE_RAW = 0,
    STREAM_MODE_TEMPORAL = 1,
    STREAM_MODE_SPATIAL = 2,
    STREAM_MODE_TEMPORAL_MED = 3 /* version 2 */
};

/* ---------------------------------------------------------------- fields */

static inline void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t get_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t get_u32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
static inline uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* ---------------------------------------------------------------- format.c */

/* Fill the header of the message at msg (its payload of n bytes follows the
 * header): magic, version, type, length and checksum. */
void stream_seal(uint8_t *msg, fovea_stream_msg_type type, size_t n);

/* A REFUSED message (FOVEA_STREAM_HEADER_SIZE + STREAM_REFUSED_SIZE bytes
 * into buf): why (fovea_stream_refusal) and the sender's max_clients.
 * @return its size */
size_t stream_refused_message(uint32_t reason, uint32_t max_clients, uint8_t *buf);

/* The checksum of the message at msg (header bytes 0..11 and n payload bytes). */
uint64_t stream_checksum(const uint8_t *msg, size_t n);

/* 1 when the checksum of the header + payload at msg (payload n) is right. */
int stream_checksum_ok(const uint8_t *msg, size_t n);

/* Pixel format <-> wire code (0 = none). */
uint16_t stream_fmt_code(fovea_pixfmt fmt);
fovea_pixfmt stream_fmt_from_code(uint16_t code);

/* The stream header a HELLO carries. */
typedef struct stream_hello {
    fovea_video_info info;
    int tile, threshold, keyframe_interval, denoise;
} stream_hello;

/* Write the 64 payload bytes of a HELLO. */
void stream_hello_pack(const stream_hello *h, uint8_t *payload);
/* Parse and check a HELLO payload (err gets the reason). */
int stream_hello_parse(const uint8_t *payload, size_t n, const fovea_stream_limits *lim,
                       stream_hello *h, char *err, size_t errsz);

/* ---------------------------------------------------------------- tiles.c */

typedef struct stream_plane {
    int sx, sy; /* subsampling shifts */
    int pw, ph; /* plane size in pixels */
    int cpp;    /* components per pixel */
    int bps;    /* bytes per sample, 1 or 2 */
} stream_plane;

typedef struct stream_geom {
    int width, height;
    fovea_pixfmt fmt;
    int tile, tiles_x, tiles_y;
    int64_t tiles; /* tiles_x * tiles_y */
    int planes;
    stream_plane pl[3];
    int alpha;        /* packed RGBA: component 3 of plane 0 is alpha */
    size_t max_block; /* bytes of the largest plane block of a tile */
    size_t packed;    /* the frame's packed size */
    size_t map_bytes; /* ceil(tiles / 8) */
} stream_geom;

/* The geometry of a stream (err gets why it is refused). */
int stream_geom_init(stream_geom *g, int width, int height, fovea_pixfmt fmt, int tile, char *err,
                     size_t errsz);

/* Plane p's block of tile t: its origin and size in pixels. */
void stream_block(const stream_geom *g, int p, int64_t t, int *x0, int *y0, int *w, int *h);

/* Coded bytes of tile t: for every plane a mode byte and its block's bytes. */
size_t stream_tile_bytes(const stream_geom *g, int64_t t);

/* A block of samples in a frame: origin pointer, stride and shape. */
typedef struct stream_view {
    uint8_t *p;
    ptrdiff_t stride;
    int w, h, cpp, bps;
} stream_view;

void stream_view_of(const stream_geom *g, const fovea_frame *f, int p, int64_t t, stream_view *v);

/* The encoder's cost estimate of a coded byte, in 1/STREAM_COST_UNIT bits (at
 * most STREAM_COST_CAP bits). Integers, so a block's sum does not depend on
 * the order it is added in: a vectorised path or a GPU makes the same mode
 * choice as the plain loop. */
#define STREAM_COST_CAP 9.0f
#define STREAM_COST_UNIT 16
void stream_cost_table(uint16_t d[256]);

/* The scratch of stream_code_block and stream_decode_block for blocks of up
 * to max_block bytes, in 16-bit values: the reference's two arrays of
 * samples, or the fast path's five byte arrays with room around each
 * (tiles_fast.c). */
#define STREAM_SCRATCH_VALUES(max_block) (3 * (size_t)(max_block) + 512)

/* Encoder: code block src (ref: the receiver's block, NULL in a keyframe) in
 * the mode whose coded bytes cost the least by cost[] (stream_cost_table's),
 * into out (1 + n bytes: the mode, then the coded bytes). scratch holds
 * STREAM_SCRATCH_VALUES(max_block) values. @return the bytes written */
size_t stream_code_block(const stream_view *src, const stream_view *ref, uint8_t *out,
                         uint16_t *scratch, const uint16_t *cost);

/* Decoder: the mode byte of a coded block is valid for the message type. */
int stream_mode_ok(int mode, int keyframe);

/* Decoder: write the block coded at in (mode byte first) into dst (which
 * holds the shown samples for TEMPORAL); with check non-NULL the largest
 * |new - shown| is stored there. scratch holds STREAM_SCRATCH_VALUES(max_block)
 * values. The mode was checked. */
void stream_decode_block(const uint8_t *in, const stream_view *dst, uint16_t *scratch, int *check);

/* The plain loops (tiles.c) that define the bytes, and the 8-bit fast paths
 * (tiles_fast.c) stream_code_block and stream_decode_block take for bps 1;
 * the same arguments and results. */
size_t stream_code_block_ref(const stream_view *src, const stream_view *ref, uint8_t *out,
                             uint16_t *scratch, const uint16_t *cost);
void stream_decode_block_ref(const uint8_t *in, const stream_view *dst, uint16_t *scratch,
                             int *check);
size_t stream_code_block_fast8(const stream_view *src, const stream_view *ref, uint8_t *out,
                               uint16_t *scratch, const uint16_t *cost);
void stream_decode_block_fast8(const uint8_t *in, const stream_view *dst, uint16_t *scratch,
                               int *check);

/* Copy h rows of row bytes (a block of a tile) between strided images. */
void stream_copy_rows(uint8_t *dst, ptrdiff_t dstride, const uint8_t *src, ptrdiff_t sstride,
                      size_t row, int h);

/* The last frame the decoder showed, also after an error (-1: none): what a
 * receiver's RESYNC reports. */
int64_t stream_decoder_last_shown(const fovea_stream_decoder *d);

/* Time for frame info. */
double stream_now(void);

/* ---------------------------------------------------------------- encoder backends */

/* What an encoder backend is made for: the stream's geometry and threshold. */
typedef struct stream_enc_params {
    const stream_geom *g;
    int threshold;
} stream_enc_params;

/* The per-frame work of the encoder (core/backend.h): it owns the
 * reconstruction R. encoder.c does the rest (the carried list, the groups,
 * zstd, the message), the same for every backend, so the messages are the
 * same bytes whichever backend made the coded tiles. src is the frame to
 * code, checked (host or pinned; device memory too on a backend with
 * BACKEND_READS_DEVICE). */
typedef struct stream_enc_backend {
    backend_info info;
    /* The tiles of src that differ from R beyond T (any sample of any plane,
     * alpha included; docs/stream.md) as the tile map (docs/stream-format.md:
     * bit t % 8 of byte t / 8, bits past the last tile 0) and their count;
     * with have_recon 0 (no R yet) no tile differs. key: the next code call
     * carries every tile (a backend may prepare for it). */
    int (*changes)(void *priv, const fovea_frame *src, int have_recon, int key, uint8_t *map,
                   int64_t *changed);
    /* Code the carried tiles sent[0..n) of src (ascending; all of them when
     * key: against nothing, else against R), each tile's planes in turn at
     * the prefix sum of stream_tile_bytes (bytes in all), and commit them to
     * R. *raw gets the coded bytes (valid until the next call), or NULL: the
     * encoder codes them itself with code_tiles on its threads. */
    int (*code)(void *priv, const fovea_frame *src, int key, const int32_t *sent, int64_t n,
                size_t bytes, const uint8_t **raw);
    /* code's work on the encoder's threads (thread: the worker's index, <
     * fovea_context_threads), for a backend whose code leaves *raw NULL:
     * code tiles sent[0..n) into out and commit them to R. NULL otherwise. */
    void (*code_tiles)(void *priv, const fovea_frame *src, int key, const int32_t *sent, int64_t n,
                       uint8_t *out, int thread);
    /* R as a host frame (a device backend copies it: slow). */
    int (*reconstruction)(void *priv, const fovea_frame **recon);
} stream_enc_backend;

/* encoder_cpu.c and encoder_cuda.c; the list in encoder_cpu.c */
extern const stream_enc_backend stream_enc_cpu;
extern const stream_enc_backend stream_enc_cuda;
extern const backend_info *const stream_enc_backends[];
extern const size_t stream_enc_backend_count;

#endif
