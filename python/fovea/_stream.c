/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea._fovea.StreamSender and StreamReceiver: the delta streamer's encoder
 * with its TCP server, and its TCP client with the decoder (include/fovea/
 * stream.h), under fovea.stream. Built when the library has the streamer
 * (FOVEA_HAVE_STREAM); without it the module says HAVE_STREAM = 0. */
#include "_fovea.h"

#ifdef FOVEA_HAVE_STREAM
#include <fovea/stream.h>
#include <stdint.h>
#include <time.h>

static uint64_t now_us(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* ------------------------------------------------------------------ sender */

typedef struct {
    PyObject_HEAD fovea_stream_encoder *enc;
    fovea_stream_server *srv;
    PyObject *ctx;
    int busy, ended;
} fx_sender;

static fovea_context *sender_ctx(fx_sender *s)
{
    return ((fx_context *)s->ctx)->ctx;
}

/* (ctx, listen, pixfmt, width, height, fps_num, fps_den, threshold,
 *  keyframe_interval, tile, zstd_level, max_clients, max_queue) */
static int sender_init(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ctx",       "listen",     "pixfmt",
                             "width",     "height",     "fps_num",
                             "fps_den",   "threshold",  "keyframe_interval",
                             "tile",      "zstd_level", "max_clients",
                             "max_queue", NULL};
    fx_sender *s = (fx_sender *)self;
    PyObject *ctx;
    const char *listen, *pixfmt;
    int w, h, fps_num, fps_den, threshold, kint, tile, zlevel, max_clients;
    Py_ssize_t max_queue;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Ossiiiiiiiiin", kwlist, &ctx, &listen, &pixfmt, &w,
                                     &h, &fps_num, &fps_den, &threshold, &kint, &tile, &zlevel,
                                     &max_clients, &max_queue))
        return -1;
    fovea_context *c = fx_context_get(ctx);
    if (!c)
        return -1;
    if (s->enc) {
        PyErr_SetString(PyExc_RuntimeError, "fovea: Sender initialized twice");
        return -1;
    }
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = w;
    info.height = h;
    info.fmt = fovea_pixfmt_from_name(pixfmt);
    info.fps_num = fps_num;
    info.fps_den = fps_den;
    if (info.fmt == FOVEA_PIX_NONE) {
        PyErr_Format(PyExc_ValueError, "fovea: unknown pixel format '%s'", pixfmt);
        return -1;
    }
    fovea_stream_encoder_settings es;
    fovea_stream_encoder_default_settings(&es);
    es.threshold = threshold;
    es.keyframe_interval = kint;
    es.tile = tile;
    es.zstd_level = zlevel;
    fovea_stream_server_settings ss;
    fovea_stream_server_default_settings(&ss);
    ss.max_clients = max_clients;
    if (max_queue > 0)
        ss.max_queue = (size_t)max_queue;
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_stream_encoder_open(&s->enc, c, &es, &info);
    if (st == FOVEA_OK) {
        const uint8_t *hello;
        size_t n;
        fovea_stream_encoder_hello(s->enc, &hello, &n);
        st = fovea_stream_server_open(&s->srv, c, listen, hello, n, &ss);
    }
    Py_END_ALLOW_THREADS if (st != FOVEA_OK)
    {
        if (st == FOVEA_ERR_INVALID_ARG) {
            PyErr_SetString(PyExc_ValueError, fovea_last_error(c));
            return -1;
        }
        fx_raise(st, c);
        return -1;
    }
    s->ctx = Py_NewRef(ctx);
    return 0;
}

static void sender_free(fx_sender *s)
{
    fovea_stream_server_close(&s->srv);
    fovea_stream_encoder_close(&s->enc);
}

static void sender_dealloc(PyObject *self)
{
    fx_sender *s = (fx_sender *)self;
    sender_free(s);
    Py_XDECREF(s->ctx);
    PyTypeObject *t = Py_TYPE(self);
    ((freefunc)PyType_GetSlot(t, Py_tp_free))(self);
    Py_DECREF(t);
}

static int sender_get(fx_sender *s)
{
    if (!s->srv) {
        PyErr_SetString(PyExc_ValueError, "fovea: the Sender is closed");
        return 0;
    }
    return 1;
}

static PyObject *sender_address(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_sender *s = (fx_sender *)self;
    if (!sender_get(s))
        return NULL;
    return PyUnicode_FromString(fovea_stream_server_address(s->srv));
}

/* send(spec) -> (frame, keyframe, tiles_sent, tiles_changed, tiles_total, bytes) */
static PyObject *sender_send(PyObject *self, PyObject *spec)
{
    fx_sender *s = (fx_sender *)self;
    if (!sender_get(s))
        return NULL;
    if (s->ended) {
        PyErr_SetString(PyExc_ValueError, "fovea: the Sender has ended its stream");
        return NULL;
    }
    fx_frame fr;
    if (fx_frame_get(spec, &fr, 0, sender_ctx(s)) < 0)
        return NULL;
    if (fx_enter(&s->busy, "Sender") < 0) {
        fx_frame_release(&fr);
        return NULL;
    }
    fovea_stream_frame_info fi = {0};
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_stream_server_poll(s->srv, 0);
    if (st >= 0) {
        if (fovea_stream_server_keyframe_wanted(s->srv))
            fovea_stream_encoder_request_keyframe(s->enc);
        const uint8_t *m;
        size_t n;
        st = fovea_stream_encoder_encode(s->enc, &fr.f, now_us(), &m, &n, &fi);
        if (st >= 0)
            st = fovea_stream_server_send(s->srv, m, n);
    }
    Py_END_ALLOW_THREADS FX_LEAVE(&s->busy);
    fx_frame_release(&fr);
    if (st < 0)
        return fx_raise(st, sender_ctx(s));
    return Py_BuildValue("(LiLLLn)", (long long)fi.frame, fi.keyframe, (long long)fi.tiles_sent,
                         (long long)fi.tiles_changed, (long long)fi.tiles_total,
                         (Py_ssize_t)fi.bytes);
}

/* wait(clients, timeout_ms) -> True when that many receivers are connected
 * (serving them meanwhile), False when timeout_ms (< 0: no limit) passed. */
static PyObject *sender_wait(PyObject *self, PyObject *args)
{
    fx_sender *s = (fx_sender *)self;
    int clients, timeout_ms;
    if (!PyArg_ParseTuple(args, "ii", &clients, &timeout_ms) || !sender_get(s))
        return NULL;
    if (fx_enter(&s->busy, "Sender") < 0)
        return NULL;
    int st = FOVEA_OK, ok = 0;
    const uint64_t t0 = now_us();
    for (;;) {
        fovea_stream_server_stats ss;
        fovea_stream_server_get_stats(s->srv, &ss);
        if (ss.clients >= clients) {
            ok = 1;
            break;
        }
        const int64_t left =
            timeout_ms < 0 ? 100 : (int64_t)timeout_ms - (int64_t)(now_us() - t0) / 1000;
        if (left <= 0)
            break;
        Py_BEGIN_ALLOW_THREADS st = fovea_stream_server_poll(s->srv, left < 100 ? (int)left : 100);
        Py_END_ALLOW_THREADS if (st < 0) break;
        if (PyErr_CheckSignals() < 0) {
            FX_LEAVE(&s->busy);
            return NULL;
        }
    }
    FX_LEAVE(&s->busy);
    if (st < 0)
        return fx_raise(st, sender_ctx(s));
    return PyBool_FromLong(ok);
}

/* poll(timeout_ms): serve the receivers (accept, read, send what is queued). */
static PyObject *sender_poll(PyObject *self, PyObject *arg)
{
    fx_sender *s = (fx_sender *)self;
    const long t = PyLong_AsLong(arg);
    if ((t == -1 && PyErr_Occurred()) || !sender_get(s) || fx_enter(&s->busy, "Sender") < 0)
        return NULL;
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_stream_server_poll(s->srv, t < 0 ? 0 : (int)t);
    Py_END_ALLOW_THREADS FX_LEAVE(&s->busy);
    if (st < 0)
        return fx_raise(st, sender_ctx(s));
    Py_RETURN_NONE;
}

/* finish(timeout_ms) -> True when every receiver took the whole stream. */
static PyObject *sender_finish(PyObject *self, PyObject *arg)
{
    fx_sender *s = (fx_sender *)self;
    const long t = PyLong_AsLong(arg);
    if ((t == -1 && PyErr_Occurred()) || !sender_get(s) || fx_enter(&s->busy, "Sender") < 0)
        return NULL;
    int st = FOVEA_OK;
    Py_BEGIN_ALLOW_THREADS if (!s->ended)
    {
        const uint8_t *m;
        size_t n;
        fovea_stream_encoder_end(s->enc, &m, &n);
        st = fovea_stream_server_send(s->srv, m, n);
        s->ended = 1;
    }
    if (st >= 0)
        st = fovea_stream_server_finish(s->srv, t < 0 ? 0 : (int)t);
    Py_END_ALLOW_THREADS FX_LEAVE(&s->busy);
    if (st == FOVEA_ERR_IO)
        Py_RETURN_FALSE;
    if (st < 0)
        return fx_raise(st, sender_ctx(s));
    Py_RETURN_TRUE;
}

static PyObject *sender_stats(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_sender *s = (fx_sender *)self;
    if (!sender_get(s))
        return NULL;
    fovea_stream_server_stats ss;
    fovea_stream_server_get_stats(s->srv, &ss);
    return Py_BuildValue("{s:i,s:L,s:L,s:L,s:L,s:L,s:L}", "clients", ss.clients, "accepted",
                         (long long)ss.accepted, "refused", (long long)ss.refused, "disconnected",
                         (long long)ss.disconnected, "resyncs", (long long)ss.resyncs,
                         "resync_requests", (long long)ss.resync_requests, "bytes_sent",
                         (long long)ss.bytes_sent);
}

static PyObject *sender_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_sender *s = (fx_sender *)self;
    if (fx_enter(&s->busy, "Sender") < 0)
        return NULL;
    sender_free(s);
    FX_LEAVE(&s->busy);
    Py_RETURN_NONE;
}

static PyMethodDef sender_methods[] = {
    {"address", sender_address, METH_NOARGS, "The address listened on, HOST:PORT."},
    {"send", sender_send, METH_O, "Encode and queue a frame spec: its cost as a tuple."},
    {"wait", sender_wait, METH_VARARGS, "wait(clients, timeout_ms): receivers connected."},
    {"poll", sender_poll, METH_O, "poll(timeout_ms): serve the receivers."},
    {"finish", sender_finish, METH_O, "finish(timeout_ms): END, then close cleanly."},
    {"stats", sender_stats, METH_NOARGS, "The server's counters."},
    {"close", sender_close, METH_NOARGS, "Close every socket."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot sender_slots[] = {
    {Py_tp_doc, "The low-level sender under fovea.stream.Sender (one thread at a time)."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, sender_init},
    {Py_tp_dealloc, sender_dealloc},
    {Py_tp_methods, sender_methods},
    {0, NULL}};

static PyType_Spec sender_spec = {"fovea._fovea.StreamSender", sizeof(fx_sender), 0,
                                  Py_TPFLAGS_DEFAULT, sender_slots};

/* ------------------------------------------------------------------ receiver */

typedef struct {
    PyObject_HEAD fovea_stream_client *cl;
    const fovea_frame *cur; /* the last event's frame (the decoder's) */
    char addr[256];
    PyObject *ctx;
    int busy;
} fx_receiver;

/* (ctx, addr, timeout_ms, resync) */
static int receiver_init(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ctx", "addr", "timeout_ms", "resync", NULL};
    fx_receiver *r = (fx_receiver *)self;
    PyObject *ctx;
    const char *addr;
    int timeout_ms, resync;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Osii", kwlist, &ctx, &addr, &timeout_ms, &resync))
        return -1;
    fovea_context *c = fx_context_get(ctx);
    if (!c)
        return -1;
    if (r->cl) {
        PyErr_SetString(PyExc_RuntimeError, "fovea: receiver initialized twice");
        return -1;
    }
    fovea_stream_client_settings cs;
    fovea_stream_client_default_settings(&cs);
    cs.timeout_ms = timeout_ms;
    cs.resync = resync;
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_stream_client_open(&r->cl, c, addr, &cs);
    Py_END_ALLOW_THREADS if (st != FOVEA_OK)
    {
        if (st == FOVEA_ERR_INVALID_ARG) {
            PyErr_SetString(PyExc_ValueError, fovea_last_error(c));
            return -1;
        }
        fx_raise(st, c);
        return -1;
    }
    PyOS_snprintf(r->addr, sizeof r->addr, "%s", addr);
    r->ctx = Py_NewRef(ctx);
    return 0;
}

static void receiver_dealloc(PyObject *self)
{
    fx_receiver *r = (fx_receiver *)self;
    fovea_stream_client_close(&r->cl);
    Py_XDECREF(r->ctx);
    PyTypeObject *t = Py_TYPE(self);
    ((freefunc)PyType_GetSlot(t, Py_tp_free))(self);
    Py_DECREF(t);
}

static fovea_context *receiver_ctx(fx_receiver *r)
{
    return ((fx_context *)r->ctx)->ctx;
}

static PyObject *refused_error(fx_receiver *r, const fovea_stream_event *ev)
{
    PyObject *msg;
    if (ev->refused_reason == FOVEA_STREAM_REFUSED_FULL)
        msg = PyUnicode_FromFormat("fovea: the sender at %s is full (max_clients %d): this "
                                   "receiver was turned away; try again later",
                                   r->addr, ev->refused_max_clients);
    else if (ev->refused_reason == FOVEA_STREAM_REFUSED_CLOSING)
        msg = PyUnicode_FromFormat("fovea: the sender at %s is finishing its stream and "
                                   "takes no new receivers",
                                   r->addr);
    else
        msg = PyUnicode_FromFormat("fovea: the sender at %s turned this receiver away "
                                   "(reason %d)",
                                   r->addr, ev->refused_reason);
    if (!msg)
        return NULL;
    PyObject *exc = PyObject_CallFunctionObjArgs(fx_error, msg, NULL);
    Py_DECREF(msg);
    if (!exc)
        return NULL;
    PyObject *v = PyLong_FromLong(ev->refused_reason);
    if (v) {
        PyObject_SetAttrString(exc, "refused_reason", v);
        Py_DECREF(v);
    }
    v = PyLong_FromLong(ev->refused_max_clients);
    if (v) {
        PyObject_SetAttrString(exc, "max_clients", v);
        Py_DECREF(v);
    }
    PyErr_SetObject(fx_error, exc);
    Py_DECREF(exc);
    return NULL;
}

/* next() -> ("hello", info) | ("frame", number, keyframe, skipped, bytes,
 * tiles_sent, tiles_total) | ("end", frames) | ("eof",); REFUSED raises. */
static PyObject *receiver_next(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_receiver *r = (fx_receiver *)self;
    if (!r->cl) {
        PyErr_SetString(PyExc_ValueError, "fovea: the receiver is closed");
        return NULL;
    }
    if (fx_enter(&r->busy, "receiver") < 0)
        return NULL;
    fovea_stream_event ev;
    int st;
    r->cur = NULL;
    Py_BEGIN_ALLOW_THREADS st = fovea_stream_client_next(r->cl, &ev);
    Py_END_ALLOW_THREADS FX_LEAVE(&r->busy);
    if (st == FOVEA_EOF)
        return Py_BuildValue("(s)", "eof");
    if (st < 0)
        return fx_raise(st, receiver_ctx(r));
    switch (ev.type) {
    case FOVEA_STREAM_MSG_HELLO: {
        const fovea_video_info *i = ev.info;
        return Py_BuildValue("(s{s:i,s:i,s:s,s:i,s:i,s:i,s:i,s:i})", "hello", "width", i->width,
                             "height", i->height, "pixfmt", fovea_pixfmt_name(i->fmt), "fps_num",
                             i->fps_num, "fps_den", i->fps_den, "threshold", ev.threshold,
                             "keyframe_interval", ev.keyframe_interval, "tile", ev.tile);
    }
    case FOVEA_STREAM_MSG_KEYFRAME:
    case FOVEA_STREAM_MSG_DELTA:
        r->cur = ev.frame;
        return Py_BuildValue("(sLiLnLL)", "frame", (long long)ev.fi.frame, ev.fi.keyframe,
                             (long long)ev.fi.skipped, (Py_ssize_t)ev.fi.bytes,
                             (long long)ev.fi.tiles_sent, (long long)ev.fi.tiles_total);
    case FOVEA_STREAM_MSG_END: return Py_BuildValue("(sL)", "end", (long long)ev.end_frames);
    case FOVEA_STREAM_MSG_REFUSED: return refused_error(r, &ev);
    default: return Py_BuildValue("(s)", "other");
    }
}

/* copy_into(spec): the last frame into a frame spec's buffers. */
static PyObject *receiver_copy_into(PyObject *self, PyObject *spec)
{
    fx_receiver *r = (fx_receiver *)self;
    if (!r->cl || !r->cur) {
        PyErr_SetString(PyExc_ValueError, "fovea: no received frame to copy");
        return NULL;
    }
    fx_frame fr;
    if (fx_frame_get(spec, &fr, 1, ((fx_context *)r->ctx)->ctx) < 0)
        return NULL;
    if (fx_enter(&r->busy, "receiver") < 0) {
        fx_frame_release(&fr);
        return NULL;
    }
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_frame_copy(receiver_ctx(r), &fr.f, r->cur);
    Py_END_ALLOW_THREADS FX_LEAVE(&r->busy);
    fx_frame_release(&fr);
    if (st < 0)
        return fx_raise(st, receiver_ctx(r));
    Py_RETURN_NONE;
}

static PyObject *receiver_bytes(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_receiver *r = (fx_receiver *)self;
    return PyLong_FromLongLong(r->cl ? (long long)fovea_stream_client_bytes(r->cl) : 0);
}

static PyObject *receiver_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_receiver *r = (fx_receiver *)self;
    if (fx_enter(&r->busy, "receiver") < 0)
        return NULL;
    r->cur = NULL;
    fovea_stream_client_close(&r->cl);
    FX_LEAVE(&r->busy);
    Py_RETURN_NONE;
}

static PyMethodDef receiver_methods[] = {
    {"next", receiver_next, METH_NOARGS, "Wait for and decode the next message."},
    {"copy_into", receiver_copy_into, METH_O, "Copy the last frame into a frame spec."},
    {"bytes", receiver_bytes, METH_NOARGS, "Bytes received so far."},
    {"close", receiver_close, METH_NOARGS, "Close the connection."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot receiver_slots[] = {
    {Py_tp_doc, "The low-level receiver under fovea.stream.receive (one thread at a time)."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, receiver_init},
    {Py_tp_dealloc, receiver_dealloc},
    {Py_tp_methods, receiver_methods},
    {0, NULL}};

static PyType_Spec receiver_spec = {"fovea._fovea.StreamReceiver", sizeof(fx_receiver), 0,
                                    Py_TPFLAGS_DEFAULT, receiver_slots};

int fx_init_stream(PyObject *m)
{
    if (!fx_add_type(m, &sender_spec, "StreamSender") ||
        !fx_add_type(m, &receiver_spec, "StreamReceiver"))
        return -1;
    return PyModule_AddIntConstant(m, "HAVE_STREAM", 1);
}

#else

int fx_init_stream(PyObject *m)
{
    return PyModule_AddIntConstant(m, "HAVE_STREAM", 0);
}

#endif
