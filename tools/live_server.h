/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The HTTP + WebSocket side of `fovea live` on libwebsockets: serves the
 * embedded page and sends every viewer the delta stream's messages, each
 * viewer with its own queue (a slow one is dropped back to a keyframe, the
 * others go on). docs/live.md. */
#ifndef FOVEA_LIVE_SERVER_H
#define FOVEA_LIVE_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "live_control.h"

typedef struct live_server live_server;

/** What the server calls back into the command. */
typedef struct live_server_hooks {
    void *user;
    /** A viewer with the control token sent a control message (already parsed
     *  into c; set = LIVE_SET_* bits). @return 0, or -1 with why in err (n
     *  bytes): the viewer gets it as an error message */
    int (*control)(void *user, const live_controls *c, int set, char *err, size_t n);
    /** The frame timer fired (see live_server_schedule). */
    void (*tick)(void *user);
} live_server_hooks;

typedef struct live_server_settings {
    const char *addr;       /**< "HOST:PORT" (port 0: any free one) */
    const char *token;      /**< full access (NULL: none needed on loopback) */
    const char *view_token; /**< watch-only access, or NULL */
    int max_clients;        /**< viewers at once */
    size_t max_queue;       /**< bytes queued for one viewer before it is dropped back */
    int max_delay_ms;       /**< a message waiting longer drops the viewer back; 0 = no limit */
} live_server_settings;

typedef struct live_server_stats {
    int clients;
    int64_t accepted, refused, disconnected, resyncs, resync_requests, bad_messages;
    int64_t bytes_sent;
} live_server_stats;

/** @return 0, -1 with a message printed (address, bind), -2 usage (address) */
int live_server_open(live_server **srv, const live_server_settings *s, const live_server_hooks *h);
void live_server_close(live_server **srv);

/** The port listened on. */
int live_server_port(const live_server *srv);

/** Run the event loop once (until something happens). */
void live_server_service(live_server *srv);

/** Call hooks->tick in us microseconds. */
void live_server_schedule(live_server *srv, int64_t us);

/** Wake the event loop (from a signal handler's flag check). */
void live_server_wake(live_server *srv);

/** A new stream starts: the HELLO every viewer gets first (copied; sent now
 *  to every viewer, who then waits for a keyframe). */
int live_server_set_hello(live_server *srv, const uint8_t *hello, size_t n);

/** Queue a stream message (KEYFRAME, DELTA, END) for every viewer. */
int live_server_send(live_server *srv, const uint8_t *msg, size_t n, int keyframe);

/** Send every viewer a text message (JSON; copied). */
void live_server_send_text(live_server *srv, const char *json);

/** Send every viewer the controls' state (JSON text).
 *  @param cam a camera source's controls (copied), NULL when not a camera */
void live_server_send_state(live_server *srv, const live_controls *c, const live_camera_state *cam);

/** @return 1 when the next frame should be a keyframe: a viewer joined, or
 *  one dropped back or asked for one (RESYNC) and the last keyframe is 1 s old */
int live_server_keyframe_wanted(live_server *srv);

/** @return the bytes still queued for all viewers */
size_t live_server_queued(const live_server *srv);

void live_server_get_stats(const live_server *srv, live_server_stats *st);

#endif
