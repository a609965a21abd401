/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea delta streaming: an encoder (frames in, messages out) that sends only
 * the tiles that changed beyond a threshold T against what the receiver shows,
 * a decoder (messages in, frames out), and a small TCP layer on top (a server
 * for many receivers, a client). Wire format: docs/stream-format.md; design
 * and the error bound: docs/stream.md. Built when libzstd and libxxhash are
 * found (FOVEA_STREAM in CMake). */
#ifndef FOVEA_STREAM_H
#define FOVEA_STREAM_H

#include "fovea/diff.h"
#include "fovea/fovea.h"
#include "fovea/io.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Wire format version written and read. */
#define FOVEA_STREAM_VERSION 2
/** Bytes of every message's header (the payload follows). */
#define FOVEA_STREAM_HEADER_SIZE 20

/** Message types (docs/stream-format.md). */
typedef enum fovea_stream_msg_type {
    FOVEA_STREAM_MSG_NONE = 0,
    FOVEA_STREAM_MSG_HELLO = 1,    /**< stream header: format, size, rate, tile, T, K */
    FOVEA_STREAM_MSG_KEYFRAME = 2, /**< a whole frame */
    FOVEA_STREAM_MSG_DELTA = 3,    /**< the changed tiles of a frame */
    FOVEA_STREAM_MSG_END = 4,      /**< end of stream */
    FOVEA_STREAM_MSG_RESYNC = 5,   /**< receiver -> sender: send a keyframe */
    FOVEA_STREAM_MSG_REFUSED = 6   /**< sender -> receiver: turned away, then closed */
} fovea_stream_msg_type;

/** Why a sender turned a receiver away (REFUSED). */
typedef enum fovea_stream_refusal {
    FOVEA_STREAM_REFUSED_FULL = 1,   /**< max_clients receivers are connected */
    FOVEA_STREAM_REFUSED_CLOSING = 2 /**< the sender is finishing: it takes no one new */
} fovea_stream_refusal;

/* ------------------------------------------------------------------ encoder */

/** Encoder settings. */
typedef struct fovea_stream_encoder_settings {
    /** Every sample a receiver shows is within threshold of the source (the
     *  denoised source with denoise set): 0 = lossless; 0..65535 in sample
     *  units. Default 0. */
    int threshold;
    /** A keyframe every K frames (frame numbers 0, K, 2K...); 0 = only the
     *  first one and those requested. Default 300. */
    int keyframe_interval;
    /** Luma tile side: 8, 16, 32 or 64 (chroma tiles follow the subsampling).
     *  Default 16. */
    int tile;
    /** Filter applied to each input frame before it is compared and sent
     *  (fovea_diff_denoise); the bound then holds against the filtered frame.
     *  Default NONE. */
    fovea_diff_denoise_mode denoise;
    /** zstd compression level, 1..19. Default 1. */
    int zstd_level;
} fovea_stream_encoder_settings;

/** What one encoded or decoded frame cost. */
typedef struct fovea_stream_frame_info {
    int64_t frame;         /**< frame number (0, 1, 2...) */
    uint64_t timestamp_us; /**< as given to the encoder */
    int keyframe;          /**< 1 for a keyframe */
    int64_t tiles_sent;    /**< tiles carried (all of them in a keyframe) */
    int64_t tiles_changed; /**< tiles that differed beyond T (keyframes too) */
    int64_t tiles_total;   /**< tiles_x * tiles_y */
    size_t bytes;          /**< the whole message, header included */
    size_t raw_bytes;      /**< the frame's packed size */
    /** decoder: frames skipped before this keyframe (a resynchronization), else 0 */
    int64_t skipped;
    /** decoder, keyframes: the largest |keyframe - shown| over the tiles a delta
     *  would not have carried (must be <= T), or -1 when it could not check */
    int checked_error;
    double seconds; /**< time spent in the encode or decode call */
} fovea_stream_frame_info;

typedef struct fovea_stream_encoder fovea_stream_encoder;

/** Fill s with defaults (lossless, keyframe every 300, tile 16, no denoising,
 *  zstd level 1). */
FOVEA_API void fovea_stream_encoder_default_settings(fovea_stream_encoder_settings *s);

/** Create an encoder for frames described by info (size, format; rate,
 *  aspect, interlacing, color range and chroma tag are carried to receivers).
 *  Tiles are compressed in parallel on ctx's threads; the change mask comes
 *  from the diff system on ctx's backend.
 *  @param e receives the encoder (NULL on failure)
 *  @param ctx fovea context; must outlive e
 *  @param s settings, or NULL for defaults
 *  @param info stream properties (width, height, fmt required)
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_UNSUPPORTED (format),
 *          FOVEA_ERR_NOMEM; detail in fovea_last_error(ctx). */
FOVEA_API int fovea_stream_encoder_open(fovea_stream_encoder **e, fovea_context *ctx,
                                        const fovea_stream_encoder_settings *s,
                                        const fovea_video_info *info);

/** Destroy an encoder and set *e to NULL. Safe on NULL. */
FOVEA_API void fovea_stream_encoder_close(fovea_stream_encoder **e);

/** The HELLO message every receiver gets first. The bytes belong to the
 *  encoder and stay valid until it is closed. @return FOVEA_OK */
FOVEA_API int fovea_stream_encoder_hello(fovea_stream_encoder *e, const uint8_t **msg,
                                         size_t *size);

/** Encode the next frame: a KEYFRAME (the first frame, every K, or after
 *  fovea_stream_encoder_request_keyframe) or a DELTA against the encoder's
 *  reconstruction, which is then updated exactly as a receiver updates its
 *  frame.
 *  @param f a frame of the stream's size and format: host or pinned memory;
 *         device memory too on a CUDA context (the CUDA encoder keeps the
 *         reconstruction on the device and reads f where it is)
 *  @param timestamp_us carried to the receiver as is
 *  @param msg, size receive the message; it belongs to the encoder and stays
 *         valid until the next encode or end call
 *  @param fi receives what the frame cost (may be NULL)
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_MISMATCH (size,
 *          format), FOVEA_ERR_NOMEM, FOVEA_ERR_INTERNAL (zstd),
 *          FOVEA_ERR_UNSUPPORTED (a device frame on a CPU context),
 *          FOVEA_ERR_CUDA */
FOVEA_API int fovea_stream_encoder_encode(fovea_stream_encoder *e, const fovea_frame *f,
                                          uint64_t timestamp_us, const uint8_t **msg, size_t *size,
                                          fovea_stream_frame_info *fi);

/** Make the next encoded frame a keyframe (a receiver joined or asked). */
FOVEA_API void fovea_stream_encoder_request_keyframe(fovea_stream_encoder *e);

/** The END message (frames encoded so far). Same lifetime as an encoded
 *  message. @return FOVEA_OK */
FOVEA_API int fovea_stream_encoder_end(fovea_stream_encoder *e, const uint8_t **msg, size_t *size);

/** What a receiver shows after the last encoded frame (NULL before the first):
 *  the encoder's reconstruction, a host frame. Valid until the next encode
 *  call. On a CUDA context it is copied from the device on each call (slow:
 *  for tests and tools, not for every frame); NULL if that copy fails. */
FOVEA_API const fovea_frame *fovea_stream_encoder_reconstruction(const fovea_stream_encoder *e);

/* ------------------------------------------------------------------ decoder */

/** Bounds on everything a peer controls (docs/stream-format.md, Limits). */
typedef struct fovea_stream_limits {
    size_t max_frame_bytes;   /**< packed frame size; default 256 MiB */
    size_t max_message_bytes; /**< payload of one message; default 272 MiB */
} fovea_stream_limits;

/** Fill l with the defaults. */
FOVEA_API void fovea_stream_limits_init(fovea_stream_limits *l);

/** What one decoded message gave. */
typedef struct fovea_stream_event {
    fovea_stream_msg_type type; /**< the message's type */
    /** HELLO and after: the stream's properties (frame_count -1) */
    const fovea_video_info *info;
    int threshold;         /**< HELLO and after: the sender's T */
    int keyframe_interval; /**< HELLO and after: the sender's K */
    int tile;              /**< HELLO and after: luma tile side */
    /** KEYFRAME, DELTA: the frame to show, owned by the decoder, valid until
     *  the next feed; NULL otherwise */
    const fovea_frame *frame;
    fovea_stream_frame_info fi; /**< KEYFRAME, DELTA */
    int64_t end_frames;         /**< END: the frames the sender encoded */
    /** REFUSED: why (a fovea_stream_refusal; other values may come from newer
     *  senders) and the sender's max_clients */
    int refused_reason, refused_max_clients;
} fovea_stream_event;

typedef struct fovea_stream_decoder fovea_stream_decoder;

/** Create a decoder. @param lim limits, or NULL for the defaults
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_NOMEM */
FOVEA_API int fovea_stream_decoder_open(fovea_stream_decoder **d, fovea_context *ctx,
                                        const fovea_stream_limits *lim);

/** Destroy a decoder and set *d to NULL. Safe on NULL. */
FOVEA_API void fovea_stream_decoder_close(fovea_stream_decoder **d);

/** Decode one whole message (header and payload). Everything is checked
 *  (checksum, every field, limits, the frame the delta applies to) before
 *  the shown frame changes: on any error no frame is given and the decoder
 *  waits for a keyframe (fovea_stream_decoder_synced() is 0).
 *  @param ev receives what the message gave
 *  @return FOVEA_OK, FOVEA_ERR_CORRUPT (damaged, truncated, out of order or
 *          out of place), FOVEA_ERR_UNSUPPORTED (another format version or an
 *          unknown pixel format), FOVEA_ERR_NOMEM; detail in
 *          fovea_last_error(ctx). */
FOVEA_API int fovea_stream_decoder_feed(fovea_stream_decoder *d, const uint8_t *msg, size_t size,
                                        fovea_stream_event *ev);

/** @return 1 when the decoder shows a frame deltas can apply to, else 0 (no
 *  keyframe yet, or an error since the last one). */
FOVEA_API int fovea_stream_decoder_synced(const fovea_stream_decoder *d);

/** The frame number shown, or -1 when none. */
FOVEA_API int64_t fovea_stream_decoder_shown(const fovea_stream_decoder *d);

/** Check a message header (magic, version, type, flags, length against
 *  lim->max_message_bytes; not the checksum, which needs the payload).
 *  @param hdr FOVEA_STREAM_HEADER_SIZE bytes
 *  @param type receives the message type (may be NULL)
 *  @param payload receives the payload length (may be NULL)
 *  @return FOVEA_OK, FOVEA_ERR_CORRUPT, FOVEA_ERR_UNSUPPORTED (version) */
FOVEA_API int fovea_stream_parse_header(fovea_context *ctx, const uint8_t *hdr,
                                        const fovea_stream_limits *lim, fovea_stream_msg_type *type,
                                        size_t *payload);

/** Write a RESYNC message (FOVEA_STREAM_HEADER_SIZE + 8 bytes) asking for a
 *  keyframe. @param shown the frame number shown, -1 for none
 *  @param buf room for FOVEA_STREAM_HEADER_SIZE + 8 bytes @return its size */
FOVEA_API size_t fovea_stream_resync_message(int64_t shown, uint8_t *buf);

/* ------------------------------------------------------------------ TCP */

/** A sender's server: accepts receivers on a listening socket and queues each
 *  message for every receiver, all non-blocking (poll); one receiver that
 *  reads slowly or disconnects never blocks the others. */
typedef struct fovea_stream_server fovea_stream_server;

typedef struct fovea_stream_server_settings {
    int max_clients; /**< receivers at once (more get REFUSED and are closed); default 16 */
    /** Bytes queued for one receiver at most: past it, what it has not begun
     *  to receive is dropped and it gets the next keyframe. Default 64 MiB. */
    size_t max_queue;
    /** Kernel send buffer per receiver (SO_SNDBUF), 0 = the system's. Default 0. */
    int sndbuf;
} fovea_stream_server_settings;

/** Counters of a server. */
typedef struct fovea_stream_server_stats {
    int clients;             /**< connected now */
    int64_t accepted;        /**< receivers accepted */
    int64_t refused;         /**< turned away (max_clients) */
    int64_t disconnected;    /**< gone: closed, failed or misbehaved */
    int64_t resyncs;         /**< receivers dropped back to a keyframe (queue limit) */
    int64_t resync_requests; /**< RESYNC messages received */
    int64_t bytes_sent;      /**< to all receivers */
} fovea_stream_server_stats;

/** Fill s with defaults (16 receivers, 64 MiB queues, the system's send buffer). */
FOVEA_API void fovea_stream_server_default_settings(fovea_stream_server_settings *s);

/** Listen on addr, "HOST:PORT" (IPv4 or name; "[v6]:PORT"; port 0 = any free
 *  one). @param hello the HELLO message each receiver gets first (copied)
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (address), FOVEA_ERR_IO (bind,
 *          listen), FOVEA_ERR_NOMEM */
FOVEA_API int fovea_stream_server_open(fovea_stream_server **srv, fovea_context *ctx,
                                       const char *addr, const uint8_t *hello, size_t hello_size,
                                       const fovea_stream_server_settings *s);

/** The address listened on, "HOST:PORT" with the real port. */
FOVEA_API const char *fovea_stream_server_address(const fovea_stream_server *srv);

/** Accept receivers, read their requests, send what is queued; waits up to
 *  timeout_ms (0 = do what can be done now, -1 = until something happens).
 *  @return FOVEA_OK, or FOVEA_ERR_IO when the listening socket fails */
FOVEA_API int fovea_stream_server_poll(fovea_stream_server *srv, int timeout_ms);

/** @return 1 when a receiver waits for a keyframe (joined, asked, or was
 *  dropped back and has drained its queue): encode the next frame as one. */
FOVEA_API int fovea_stream_server_keyframe_wanted(const fovea_stream_server *srv);

/** Queue a message (KEYFRAME, DELTA or END; copied once, shared by all
 *  receivers) and send what can be sent now. Receivers waiting for a keyframe
 *  skip deltas. @return FOVEA_OK, FOVEA_ERR_INVALID_ARG, FOVEA_ERR_NOMEM */
FOVEA_API int fovea_stream_server_send(fovea_stream_server *srv, const uint8_t *msg, size_t size);

/** Send everything queued and close every connection cleanly (write side
 *  shut, then wait for the receivers to close), waiting at most timeout_ms;
 *  receivers still not done then are cut. The server accepts no one after.
 *  @return FOVEA_OK, or FOVEA_ERR_IO when some receiver was cut */
FOVEA_API int fovea_stream_server_finish(fovea_stream_server *srv, int timeout_ms);

/** The counters of a server now. */
FOVEA_API void fovea_stream_server_get_stats(const fovea_stream_server *srv,
                                             fovea_stream_server_stats *st);

/** Close every socket and free the server; sets *srv to NULL. Safe on NULL. */
FOVEA_API void fovea_stream_server_close(fovea_stream_server **srv);

/** A receiver's connection: reads messages and decodes them. */
typedef struct fovea_stream_client fovea_stream_client;

typedef struct fovea_stream_client_settings {
    /** No byte for this long is an error (FOVEA_ERR_IO "timed out"); 0 = wait
     *  forever. Default 30000. */
    int timeout_ms;
    /** On a frame refused inside an intact message (a gap, a bad field) ask
     *  the sender for a keyframe (RESYNC), skip deltas until it comes and go
     *  on; 0: fail instead. Damaged framing (checksum, header) always fails.
     *  Default 1. */
    int resync;
    fovea_stream_limits limits; /**< defaults of fovea_stream_limits_init */
    /** Kernel receive buffer (SO_RCVBUF, set before connecting, so the kernel
     *  does not grow it), 0 = the system's (autotuned). Bounds what the
     *  network holds for a receiver that stops reading. Default 0. */
    int rcvbuf;
} fovea_stream_client_settings;

/** Fill s with defaults (30 s timeout, resync on, default limits, the system's
 *  receive buffer). */
FOVEA_API void fovea_stream_client_default_settings(fovea_stream_client_settings *s);

/** Connect to addr ("HOST:PORT"). @return FOVEA_OK, FOVEA_ERR_INVALID_ARG,
 *  FOVEA_ERR_IO (refused, unreachable, timed out), FOVEA_ERR_NOMEM */
FOVEA_API int fovea_stream_client_open(fovea_stream_client **c, fovea_context *ctx,
                                       const char *addr, const fovea_stream_client_settings *s);

/** Wait for and decode the next message: HELLO, a frame (KEYFRAME, DELTA) or
 *  END; or REFUSED, before any HELLO, when the sender turned this receiver
 *  away (full, or finishing). After END or REFUSED the sender closes; later
 *  calls return FOVEA_EOF.
 *  @return FOVEA_OK, FOVEA_EOF, FOVEA_ERR_CORRUPT (damaged stream),
 *          FOVEA_ERR_IO (closed without END, timed out, socket error),
 *          FOVEA_ERR_UNSUPPORTED, FOVEA_ERR_NOMEM; detail in
 *          fovea_last_error(ctx) */
FOVEA_API int fovea_stream_client_next(fovea_stream_client *c, fovea_stream_event *ev);

/** Ask the sender for a keyframe now (sends RESYNC). @return FOVEA_OK, FOVEA_ERR_IO */
FOVEA_API int fovea_stream_client_request_keyframe(fovea_stream_client *c);

/** Bytes received so far (headers included). */
FOVEA_API int64_t fovea_stream_client_bytes(const fovea_stream_client *c);

/** Close the connection and free the client; sets *c to NULL. Safe on NULL. */
FOVEA_API void fovea_stream_client_close(fovea_stream_client **c);

#ifdef __cplusplus
}
#endif

#endif
