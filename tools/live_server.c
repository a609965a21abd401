/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea live`'s server on libwebsockets: the embedded page over HTTP and the
 * delta stream over a WebSocket (subprotocol "fovea-live"), one queue per
 * viewer of shared, reference-counted messages. */
#ifdef FOVEA_HAVE_LIVE
#include "live_server.h"

#include <libwebsockets.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fovea/stream.h"
#include "live_assets.h"

#define LIVE_CHUNK 65536 /* bytes per WebSocket fragment and HTTP write */
#define LIVE_QUEUE 256   /* messages queued per viewer at most */
#define LIVE_SNDBUF (512 << 10)
/* a viewer that fell behind or asked for one (RESYNC) gets a keyframe at
 * most this often: a keyframe goes to every viewer (one encoder) and costs
 * each of them several deltas' decoding, so one per drop-back made slow
 * pages drop back again (a keyframe storm) */
#define LIVE_KEY_GAP_US 1000000

typedef struct live_msg {
    int refs, text;
    int frame; /* KEYFRAME, DELTA or END: what a viewer dropped back loses */
    size_t n;
    lws_usec_t born;      /* when it was made: how long a viewer let it wait */
    unsigned char data[]; /* LWS_PRE bytes of room, then the message */
} live_msg;

typedef enum { ROLE_NONE = 0, ROLE_VIEW, ROLE_CONTROL } live_role;

typedef struct live_client {
    struct lws *wsi;
    live_role role;
    int joined;   /* counted among the viewers */
    int refused;  /* gets REFUSED, then closed */
    int wait_key; /* skips deltas until a keyframe */
    live_msg *q[LIVE_QUEUE];
    int head, count;
    size_t sent;   /* bytes of q[head] already written */
    size_t queued; /* bytes of messages not begun */
    unsigned char *rx;
    size_t rx_n;
    int rx_bad; /* the message being received is dropped (too long) */
    struct live_client *next;
} live_client;

typedef struct http_session {
    const live_asset *asset;
    size_t sent;
} http_session;

struct live_server {
    live_server_settings s;
    live_server_hooks h;
    struct lws_context *ctx;
    struct lws_vhost *vh;
    lws_sorted_usec_list_t tick;
    int port;
    live_msg *hello;
    live_client *clients;
    int keyframe_wanted; /* KEY_* */
    lws_usec_t last_key; /* when the last keyframe was sent */
    live_server_stats st;
    unsigned logged; /* LOG_* bits: each kind of trouble is logged once */
    live_controls state;
    live_camera_state camera;
    int have_state, have_camera;
    unsigned char scratch[LWS_PRE + LIVE_CHUNK];
};

/* why a keyframe is wanted: a viewer joined or the stream is new: now; a
 * viewer fell behind or asked (RESYNC: a page that fell behind asks too):
 * soon (LIVE_KEY_GAP_US) */
enum { KEY_NONE = 0, KEY_SOON = 1, KEY_NOW = 2 };

enum {
    LOG_FULL = 1,
    LOG_BAD_BINARY = 2,
    LOG_BAD_TEXT = 4,
    LOG_TOO_LONG = 8,
    LOG_SLOW = 16,
    LOG_TOKEN = 32,
    LOG_VIEW_ONLY = 64
};

static void log_once(live_server *srv, unsigned kind, const char *fmt, ...)
{
    if (srv->logged & kind)
        return;
    srv->logged |= kind;
    va_list ap;
    va_start(ap, fmt);
    fputs("fovea live: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (logged once)\n", stderr);
    va_end(ap);
}

static live_msg *msg_new(const void *data, size_t n, int text)
{
    live_msg *m = malloc(sizeof(*m) + LWS_PRE + n);
    if (!m)
        return NULL;
    m->refs = 1;
    m->text = text;
    m->frame = 0;
    m->born = lws_now_usecs();
    m->n = n;
    memcpy(m->data + LWS_PRE, data, n);
    return m;
}

static void msg_unref(live_msg *m)
{
    if (m && --m->refs == 0)
        free(m);
}

/* Constant-time comparison: a wrong token takes as long whatever it shares
 * with the right one. */
static int token_equal(const char *a, const char *b)
{
    const size_t na = strlen(a), nb = strlen(b);
    unsigned char d = na != nb;
    for (size_t i = 0; i < na; i++)
        d |= (unsigned char)(a[i] ^ b[i % (nb ? nb : 1)]);
    return d == 0;
}

static live_role role_of(live_server *srv, struct lws *wsi)
{
    char tok[256];
    const char *t = lws_get_urlarg_by_name(wsi, "token=", tok, (int)sizeof tok);
    if (!srv->s.token && !srv->s.view_token)
        return ROLE_CONTROL;
    if (t && srv->s.token && token_equal(t, srv->s.token))
        return ROLE_CONTROL;
    if (t && srv->s.view_token && token_equal(t, srv->s.view_token))
        return ROLE_VIEW;
    if (!srv->s.token) /* only a view token: loopback viewers without one control */
        return ROLE_CONTROL;
    return ROLE_NONE;
}

/* ------------------------------------------------------------------ queues */

static int client_push(live_client *c, live_msg *m)
{
    if (c->count == LIVE_QUEUE)
        return -1;
    c->q[(c->head + c->count) % LIVE_QUEUE] = m;
    c->count++;
    m->refs++;
    c->queued += m->n;
    lws_callback_on_writable(c->wsi);
    return 0;
}

/* Drop the frames the viewer has not begun to receive (HELLO and text stay);
 * it waits for a keyframe. */
static void client_drop_back(live_server *srv, live_client *c, int count)
{
    live_msg *keep[LIVE_QUEUE];
    int n = 0;
    for (int i = 0; i < c->count; i++) {
        live_msg *m = c->q[(c->head + i) % LIVE_QUEUE];
        if ((i == 0 && c->sent > 0) || !m->frame) {
            keep[n++] = m;
            continue;
        }
        c->queued -= m->n;
        msg_unref(m);
    }
    for (int i = 0; i < n; i++)
        c->q[(c->head + i) % LIVE_QUEUE] = keep[i];
    c->count = n;
    c->wait_key = 1;
    if (srv->keyframe_wanted < KEY_SOON)
        srv->keyframe_wanted = KEY_SOON;
    srv->st.resyncs += count;
}

static void client_send_text(live_client *c, const char *s)
{
    live_msg *m = msg_new(s, strlen(s), 1);
    if (!m)
        return;
    client_push(c, m);
    msg_unref(m);
}

static void client_state(live_server *srv, live_client *c)
{
    if (!srv->have_state)
        return;
    char *s = live_state_json(&srv->state, srv->have_camera ? &srv->camera : NULL,
                              c->role == ROLE_CONTROL ? "control" : "view", srv->st.clients);
    if (s)
        client_send_text(c, s);
    free(s);
}

/* Write the next fragment of the head message. @return -1 to close */
static int client_write(live_server *srv, live_client *c)
{
    if (c->count == 0)
        return c->refused ? -1 : 0;
    live_msg *m = c->q[c->head];
    if (c->sent == 0)
        c->queued -= m->n;
    const size_t left = m->n - c->sent, n = left < LIVE_CHUNK ? left : LIVE_CHUNK;
    const int first = c->sent == 0, last = n == left;
    const int flags = lws_write_ws_flags(m->text ? LWS_WRITE_TEXT : LWS_WRITE_BINARY, first, last);
    /* lws writes the frame header into the LWS_PRE bytes before what it
     * sends: the message is shared by every viewer, so each fragment goes
     * through a scratch copy */
    memcpy(srv->scratch + LWS_PRE, m->data + LWS_PRE + c->sent, n);
    if (lws_write(c->wsi, srv->scratch + LWS_PRE, n, (enum lws_write_protocol)flags) < (int)n)
        return -1;
    srv->st.bytes_sent += (int64_t)n;
    c->sent += n;
    if (last) {
        msg_unref(m);
        c->head = (c->head + 1) % LIVE_QUEUE;
        c->count--;
        c->sent = 0;
    }
    if (c->count > 0 || c->refused)
        lws_callback_on_writable(c->wsi);
    return 0;
}

/* ------------------------------------------------------------------ receiving */

static void client_message(live_server *srv, live_client *c, int binary)
{
    if (binary) {
        fovea_stream_msg_type type;
        size_t payload;
        if (c->rx_n == FOVEA_STREAM_HEADER_SIZE + 8 &&
            fovea_stream_parse_header(NULL, c->rx, NULL, &type, &payload) == FOVEA_OK &&
            type == FOVEA_STREAM_MSG_RESYNC && payload == 8) {
            srv->st.resync_requests++;
            client_drop_back(srv, c, 0);
            return;
        }
        srv->st.bad_messages++;
        log_once(srv, LOG_BAD_BINARY, "a viewer sent a binary message that is not RESYNC: ignored");
        return;
    }
    live_controls next = srv->state;
    int set = 0;
    char err[256];
    if (live_control_parse((const char *)c->rx, c->rx_n, &next, &set, err, sizeof err) < 0) {
        srv->st.bad_messages++;
        log_once(srv, LOG_BAD_TEXT, "%s: ignored", err);
        char reply[256];
        snprintf(reply, sizeof reply, "{\"type\":\"error\",\"message\":\"%s\"}",
                 "bad control message");
        client_send_text(c, reply);
        return;
    }
    if (c->role != ROLE_CONTROL) {
        log_once(srv, LOG_VIEW_ONLY, "a watch-only viewer sent a control message: ignored");
        client_send_text(
            c, "{\"type\":\"error\",\"message\":\"watch-only: controls need the token\"}");
        return;
    }
    if (srv->h.control && srv->h.control(srv->h.user, &next, set, err, sizeof err) < 0) {
        char *reply = live_error_json(err);
        if (reply)
            client_send_text(c, reply);
        free(reply);
    }
}

static int client_receive(live_server *srv, live_client *c, const void *in, size_t len)
{
    struct lws *wsi = c->wsi;
    if (lws_is_first_fragment(wsi)) {
        c->rx_n = 0;
        c->rx_bad = 0;
    }
    if (!c->rx_bad && c->rx_n + len > LIVE_CONTROL_MAX) {
        c->rx_bad = 1;
        srv->st.bad_messages++;
        log_once(srv, LOG_TOO_LONG, "a viewer sent a message over %d bytes: closed",
                 LIVE_CONTROL_MAX);
        lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, NULL, 0);
        return -1;
    }
    memcpy(c->rx + c->rx_n, in, len);
    c->rx_n += len;
    if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0)
        client_message(srv, c, lws_frame_is_binary(wsi));
    return 0;
}

/* ------------------------------------------------------------------ callbacks */

static void client_join(live_server *srv, live_client *c)
{
    if (srv->st.clients >= srv->s.max_clients) {
        srv->st.refused++;
        log_once(srv, LOG_FULL, "a viewer was turned away: --max-clients %d", srv->s.max_clients);
        char m[128];
        snprintf(m, sizeof m, "{\"type\":\"refused\",\"reason\":\"full\",\"max_clients\":%d}",
                 srv->s.max_clients);
        c->refused = 1;
        client_send_text(c, m);
        return;
    }
    c->joined = 1;
    srv->st.clients++;
    srv->st.accepted++;
    c->next = srv->clients;
    srv->clients = c;
    if (srv->hello)
        client_push(c, srv->hello);
    c->wait_key = 1;
    srv->keyframe_wanted = KEY_NOW;
    for (live_client *o = srv->clients; o; o = o->next)
        client_state(srv, o);
}

static void client_leave(live_server *srv, live_client *c)
{
    if (c->joined) {
        for (live_client **p = &srv->clients; *p; p = &(*p)->next)
            if (*p == c) {
                *p = c->next;
                break;
            }
        srv->st.clients--;
        srv->st.disconnected++;
        fprintf(stderr, "fovea live: a viewer left (%d watching)\n", srv->st.clients);
    }
    for (int i = 0; i < c->count; i++)
        msg_unref(c->q[(c->head + i) % LIVE_QUEUE]);
    c->count = 0;
    free(c->rx);
    c->rx = NULL;
    c->joined = 0;
}

static int cb_stream(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                     size_t len)
{
    live_server *srv = lws_context_user(lws_get_context(wsi));
    live_client *c = user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        if (role_of(srv, wsi) == ROLE_NONE) {
            log_once(srv, LOG_TOKEN, "a viewer without the token was refused");
            return -1;
        }
        return 0;
    case LWS_CALLBACK_ESTABLISHED:
        memset(c, 0, sizeof(*c));
        c->wsi = wsi;
        c->role = role_of(srv, wsi);
        /* a small kernel send buffer: a viewer that cannot keep up shows as
         * its queue here (--max-queue, --max-delay) rather than as seconds
         * of frames in the socket */
        {
            const int sndbuf = LIVE_SNDBUF;
            setsockopt(lws_get_socket_fd(wsi), SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
        }
        /* TCP_NODELAY: libwebsockets sets it on each accepted socket */
        c->rx = malloc(LIVE_CONTROL_MAX);
        if (!c->rx || c->role == ROLE_NONE)
            return -1;
        client_join(srv, c);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE: return client_write(srv, c);
    case LWS_CALLBACK_RECEIVE: return client_receive(srv, c, in, len);
    case LWS_CALLBACK_CLOSED: client_leave(srv, c); return 0;
    default: return 0;
    }
}

static const live_asset *find_asset(const char *path)
{
    for (const live_asset *a = live_assets; a->path; a++)
        if (strcmp(a->path, path) == 0)
            return a;
    return NULL;
}

static int http_status(struct lws *wsi, unsigned code, const char *why)
{
    if (lws_return_http_status(wsi, code, why))
        return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int cb_http(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                   size_t len)
{
    live_server *srv = lws_context_user(lws_get_context(wsi));
    http_session *hs = user;
    (void)len;
    switch (reason) {
    case LWS_CALLBACK_HTTP: {
        const live_asset *a = find_asset(in ? (const char *)in : "/");
        if (!a)
            return http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL);
        /* the page itself needs the token; its scripts are not secret */
        if (strcmp(a->path, "/") == 0 && role_of(srv, wsi) == ROLE_NONE) {
            log_once(srv, LOG_TOKEN, "a viewer without the token was refused");
            return http_status(wsi, HTTP_STATUS_FORBIDDEN, "token required");
        }
        unsigned char buf[LWS_PRE + 1024], *start = buf + LWS_PRE, *p = start,
                                           *end = buf + sizeof buf - 1;
        static const char nostore[] = "no-store";
        if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, a->mime, (lws_filepos_t)a->size, &p,
                                        end) ||
            lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL,
                                         (const unsigned char *)nostore, (int)strlen(nostore), &p,
                                         end) ||
            lws_finalize_write_http_header(wsi, start, &p, end))
            return 1;
        hs->asset = a;
        hs->sent = 0;
        lws_callback_on_writable(wsi);
        return 0;
    }
    case LWS_CALLBACK_HTTP_WRITEABLE: {
        if (!hs || !hs->asset)
            return 0;
        unsigned char buf[LWS_PRE + LIVE_CHUNK];
        const size_t left = hs->asset->size - hs->sent, n = left < LIVE_CHUNK ? left : LIVE_CHUNK;
        memcpy(buf + LWS_PRE, hs->asset->data + hs->sent, n);
        if (lws_write(wsi, buf + LWS_PRE, n, n == left ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) <
            (int)n)
            return 1;
        hs->sent += n;
        if (n == left) {
            hs->asset = NULL;
            return lws_http_transaction_completed(wsi) ? -1 : 0;
        }
        lws_callback_on_writable(wsi);
        return 0;
    }
    default: return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static const struct lws_protocols protocols[] = {
    {"http", cb_http, sizeof(http_session), 0, 0, NULL, 0},
    {"fovea-live", cb_stream, sizeof(live_client), LIVE_CONTROL_MAX, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* ------------------------------------------------------------------ API */

static void on_tick(lws_sorted_usec_list_t *sul)
{
    live_server *srv = lws_container_of(sul, live_server, tick);
    if (srv->h.tick)
        srv->h.tick(srv->h.user);
}

static void lws_log(int level, const char *line)
{
    if (level & LLL_ERR)
        fprintf(stderr, "fovea live: libwebsockets: %s", line);
}

int live_server_open(live_server **out, const live_server_settings *s, const live_server_hooks *h)
{
    *out = NULL;
    char host[256];
    const char *colon = strrchr(s->addr, ':');
    if (!colon || colon == s->addr || (size_t)(colon - s->addr) >= sizeof host) {
        fprintf(stderr, "fovea live: --http %s: expected ADDR:PORT\n", s->addr);
        return -2;
    }
    const char *h0 = s->addr;
    size_t hl = (size_t)(colon - s->addr);
    if (h0[0] == '[' && hl >= 2 && h0[hl - 1] == ']') {
        h0++;
        hl -= 2;
    }
    memcpy(host, h0, hl);
    host[hl] = 0;
    char *endp;
    const long port = strtol(colon + 1, &endp, 10);
    if (*endp || colon[1] == 0 || port < 0 || port > 65535) {
        fprintf(stderr, "fovea live: --http %s: bad port\n", s->addr);
        return -2;
    }
    live_server *srv = calloc(1, sizeof(*srv));
    if (!srv)
        return -1;
    srv->s = *s;
    srv->h = *h;
    lws_set_log_level(LLL_ERR, lws_log);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = (int)port;
    info.iface = host;
    info.protocols = protocols;
    info.user = srv;
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
    info.gid = -1;
    info.uid = -1;
    srv->ctx = lws_create_context(&info);
    if (srv->ctx)
        srv->vh = lws_create_vhost(srv->ctx, &info);
    if (!srv->ctx || !srv->vh) {
        fprintf(stderr, "fovea live: cannot listen on %s\n", s->addr);
        live_server_close(&srv);
        return -1;
    }
    srv->port = lws_get_vhost_listen_port(srv->vh);
    *out = srv;
    return 0;
}

void live_server_close(live_server **p)
{
    live_server *srv = *p;
    if (!srv)
        return;
    lws_sul_cancel(&srv->tick);
    if (srv->ctx)
        lws_context_destroy(srv->ctx);
    msg_unref(srv->hello);
    free(srv);
    *p = NULL;
}

int live_server_port(const live_server *srv)
{
    return srv->port;
}

void live_server_service(live_server *srv)
{
    lws_service(srv->ctx, 0);
}

void live_server_schedule(live_server *srv, int64_t us)
{
    lws_sul_schedule(srv->ctx, 0, &srv->tick, on_tick, (lws_usec_t)us);
}

void live_server_wake(live_server *srv)
{
    lws_cancel_service(srv->ctx);
}

int live_server_set_hello(live_server *srv, const uint8_t *hello, size_t n)
{
    live_msg *m = msg_new(hello, n, 0);
    if (!m)
        return -1;
    msg_unref(srv->hello);
    srv->hello = m;
    for (live_client *c = srv->clients; c; c = c->next) {
        client_drop_back(srv, c, 0);
        client_push(c, m);
    }
    srv->keyframe_wanted = KEY_NOW;
    return 0;
}

/* The oldest frame the viewer has not begun to receive waited longer than
 * --max-delay: it cannot keep up, and would only fall further behind. */
static int late(const live_server *srv, const live_client *c, lws_usec_t now)
{
    if (srv->s.max_delay_ms <= 0)
        return 0;
    for (int i = c->sent > 0 ? 1 : 0; i < c->count; i++) {
        const live_msg *m = c->q[(c->head + i) % LIVE_QUEUE];
        if (m->frame)
            return now - m->born > (lws_usec_t)srv->s.max_delay_ms * 1000;
    }
    return 0;
}

int live_server_send(live_server *srv, const uint8_t *msg, size_t n, int keyframe)
{
    live_msg *m = msg_new(msg, n, 0);
    if (!m)
        return -1;
    m->frame = 1;
    if (keyframe) {
        srv->keyframe_wanted = KEY_NONE;
        srv->last_key = m->born;
    }
    for (live_client *c = srv->clients; c; c = c->next) {
        if (c->wait_key && !keyframe)
            continue;
        if (c->queued + n > srv->s.max_queue || c->count == LIVE_QUEUE || late(srv, c, m->born)) {
            log_once(srv, LOG_SLOW,
                     "a viewer fell behind (--max-queue): dropped back to a keyframe");
            client_drop_back(srv, c, 1);
            continue;
        }
        c->wait_key = 0;
        client_push(c, m);
    }
    msg_unref(m);
    return 0;
}

void live_server_send_text(live_server *srv, const char *json)
{
    for (live_client *c = srv->clients; c; c = c->next)
        client_send_text(c, json);
}

void live_server_send_state(live_server *srv, const live_controls *c, const live_camera_state *cam)
{
    srv->state = *c;
    srv->state.camera_set = 0;
    srv->have_state = 1;
    srv->have_camera = cam != NULL;
    if (cam)
        srv->camera = *cam;
    for (live_client *o = srv->clients; o; o = o->next)
        client_state(srv, o);
}

int live_server_keyframe_wanted(live_server *srv)
{
    return srv->keyframe_wanted == KEY_NOW ||
           (srv->keyframe_wanted == KEY_SOON && lws_now_usecs() - srv->last_key >= LIVE_KEY_GAP_US);
}

size_t live_server_queued(const live_server *srv)
{
    size_t n = 0;
    for (const live_client *c = srv->clients; c; c = c->next)
        n += c->queued + (c->count > 0 ? c->q[c->head]->n - c->sent : 0);
    return n;
}

void live_server_get_stats(const live_server *srv, live_server_stats *st)
{
    *st = srv->st;
}
#endif
