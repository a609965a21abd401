/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea._fovea.Reader and Writer: fovea_reader / fovea_writer (every input and
 * output the CLI takes) reading into and writing from Python buffers. */
#include "_fovea.h"

#include <fovea/io.h>
#include <stdlib.h>
#include <string.h>

static int container_parse(const char *name, fovea_container *out)
{
    static const struct {
        const char *name;
        fovea_container c;
    } names[] = {{"auto", FOVEA_CONTAINER_AUTO}, {"y4m", FOVEA_CONTAINER_Y4M},
                 {"yuv", FOVEA_CONTAINER_YUV},   {"pnm", FOVEA_CONTAINER_PNM},
                 {"png", FOVEA_CONTAINER_PNG},   {"media", FOVEA_CONTAINER_MEDIA}};
    if (!name) {
        *out = FOVEA_CONTAINER_AUTO;
        return 0;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!strcmp(name, names[i].name)) {
            *out = names[i].c;
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError,
                 "fovea: unknown container '%s' (auto, y4m, yuv, pnm, png or media)", name);
    return -1;
}

/* A NULL-terminated copy of a sequence of str ("KEY=VALUE"), or NULL for None. */
static int string_list(PyObject *seq, char ***out)
{
    *out = NULL;
    if (!seq || seq == Py_None)
        return 0;
    PyObject *fast = PySequence_Tuple(seq);
    if (!fast)
        return -1;
    const Py_ssize_t n = PyTuple_Size(fast);
    char **list = calloc((size_t)n + 1, sizeof *list);
    if (!list) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *s = PyUnicode_AsUTF8AndSize(PyTuple_GetItem(fast, i), NULL);
        if (!s || !(list[i] = strdup(s))) {
            for (Py_ssize_t j = 0; j < i; j++)
                free(list[j]);
            free(list);
            Py_DECREF(fast);
            if (!PyErr_Occurred())
                PyErr_NoMemory();
            return -1;
        }
    }
    Py_DECREF(fast);
    *out = list;
    return 0;
}

static void string_list_free(char **list)
{
    if (!list)
        return;
    for (char **p = list; *p; p++)
        free(*p);
    free(list);
}

static PyObject *info_dict(const fovea_video_info *i, fovea_container c)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(i->fmt);
    return Py_BuildValue(
        "{s:i,s:i,s:s,s:i,s:i,s:i,s:i,s:i,s:L,s:s,s:i,s:i,s:i,s:i,s:s}", "width", i->width,
        "height", i->height, "pixfmt", fovea_pixfmt_name(i->fmt), "bit_depth", d ? d->bit_depth : 0,
        "fps_num", i->fps_num, "fps_den", i->fps_den, "sar_num", i->sar_num, "sar_den", i->sar_den,
        "frame_count", (long long)i->frame_count, "container", fovea_container_name(c),
        "color_range", i->color_range, "color_primaries", i->color_primaries, "color_transfer",
        i->color_transfer, "color_matrix", i->color_matrix, "chroma_tag", i->chroma_tag);
}

/* ------------------------------------------------------------------ Reader */

typedef struct {
    PyObject_HEAD fovea_reader *r;
    PyObject *ctx;
    int busy;
} fx_reader;

static int reader_init(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ctx",    "path",         "container",     "width",
                             "height", "pixfmt",       "fps_num",       "fps_den",
                             "stream", "input_format", "input_options", NULL};
    fx_reader *r = (fx_reader *)self;
    PyObject *ctx, *opts = NULL;
    const char *path, *container = NULL, *pixfmt = NULL, *input_format = NULL;
    fovea_reader_settings s;
    fovea_reader_default_settings(&s);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Os|ziiziiizO", kwlist, &ctx, &path, &container,
                                     &s.width, &s.height, &pixfmt, &s.fps_num, &s.fps_den,
                                     &s.stream, &input_format, &opts))
        return -1;
    fovea_context *c = fx_context_get(ctx);
    if (!c || container_parse(container, &s.container) < 0)
        return -1;
    if (pixfmt && (s.fmt = fovea_pixfmt_from_name(pixfmt)) == FOVEA_PIX_NONE) {
        PyErr_Format(PyExc_ValueError, "fovea: unknown pixel format '%s'", pixfmt);
        return -1;
    }
    char **list;
    if (string_list(opts, &list) < 0)
        return -1;
    s.input_format = input_format;
    s.input_options = (const char *const *)list;
    fovea_reader_close(&r->r);
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_reader_open(&r->r, c, path, &s);
    Py_END_ALLOW_THREADS string_list_free(list);
    if (st != FOVEA_OK) {
        fx_raise(st, c);
        return -1;
    }
    {
        PyObject *old_ = r->ctx;
        r->ctx = Py_NewRef(ctx);
        Py_XDECREF(old_);
    }
    return 0;
}

static void reader_dealloc(PyObject *self)
{
    fx_reader *r = (fx_reader *)self;
    fovea_reader_close(&r->r);
    Py_XDECREF(r->ctx);
    PyTypeObject *t = Py_TYPE(self);
    ((freefunc)PyType_GetSlot(t, Py_tp_free))(self);
    Py_DECREF(t);
}

static fovea_reader *reader_get(fx_reader *r)
{
    if (!r->r)
        PyErr_SetString(PyExc_ValueError, "fovea: the Reader is closed");
    return r->r;
}

static PyObject *reader_info(PyObject *self, PyObject *unused)
{
    (void)unused;
    fovea_reader *r = reader_get((fx_reader *)self);
    return r ? info_dict(fovea_reader_info(r), fovea_reader_container(r)) : NULL;
}

/* read_into(spec) -> frame index, or None at the end. */
static PyObject *reader_read_into(PyObject *self, PyObject *spec)
{
    fx_reader *r = (fx_reader *)self;
    if (!reader_get(r))
        return NULL;
    fx_frame fr;
    if (fx_frame_get(spec, &fr, 1, ((fx_context *)r->ctx)->ctx) < 0)
        return NULL;
    if (fx_enter(&r->busy, "Reader") < 0) {
        fx_frame_release(&fr);
        return NULL;
    }
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_reader_read(r->r, &fr.f);
    Py_END_ALLOW_THREADS FX_LEAVE(&r->busy);
    fx_frame_release(&fr);
    if (st == FOVEA_EOF)
        Py_RETURN_NONE;
    if (st != FOVEA_OK)
        return fx_raise(st, ((fx_context *)r->ctx)->ctx);
    return PyLong_FromLongLong(fr.f.index);
}

static PyObject *reader_skip(PyObject *self, PyObject *arg)
{
    fx_reader *r = (fx_reader *)self;
    const long long n = PyLong_AsLongLong(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (!reader_get(r) || fx_enter(&r->busy, "Reader") < 0)
        return NULL;
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_reader_skip(r->r, n);
    Py_END_ALLOW_THREADS FX_LEAVE(&r->busy);
    if (st < 0)
        return fx_raise(st, ((fx_context *)r->ctx)->ctx);
    return PyBool_FromLong(st == FOVEA_OK);
}

static PyObject *reader_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_reader *r = (fx_reader *)self;
    if (fx_enter(&r->busy, "Reader") < 0)
        return NULL;
    fovea_reader_close(&r->r);
    FX_LEAVE(&r->busy);
    Py_RETURN_NONE;
}

static PyMethodDef reader_methods[] = {
    {"info", reader_info, METH_NOARGS, "The stream's properties as a dict."},
    {"read_into", reader_read_into, METH_O,
     "Read the next frame into a frame spec's buffers: its index, or None at the end."},
    {"skip", reader_skip, METH_O, "Skip n frames: False at the end."},
    {"close", reader_close, METH_NOARGS, "Close the file."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot reader_slots[] = {
    {Py_tp_doc, "The low-level reader under fovea.read (one thread at a time)."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, reader_init},
    {Py_tp_dealloc, reader_dealloc},
    {Py_tp_methods, reader_methods},
    {0, NULL}};

static PyType_Spec reader_spec = {"fovea._fovea.Reader", sizeof(fx_reader), 0, Py_TPFLAGS_DEFAULT,
                                  reader_slots};

/* ------------------------------------------------------------------ Writer */

typedef struct {
    PyObject_HEAD fovea_writer *w;
    PyObject *ctx;
    int busy;
} fx_writer;

static int writer_init(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ctx",     "path",    "width", "height", "pixfmt",  "container",
                             "fps_num", "fps_den", "codec", "crf",    "options", NULL};
    fx_writer *w = (fx_writer *)self;
    PyObject *ctx, *opts = NULL;
    const char *path, *pixfmt, *container = NULL, *codec = NULL;
    fovea_video_info info;
    fovea_video_info_init(&info);
    fovea_encoder_settings es;
    fovea_encoder_default_settings(&es);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Osiis|ziiziO", kwlist, &ctx, &path, &info.width,
                                     &info.height, &pixfmt, &container, &info.fps_num,
                                     &info.fps_den, &codec, &es.crf, &opts))
        return -1;
    fovea_context *c = fx_context_get(ctx);
    fovea_container cont;
    if (!c || container_parse(container, &cont) < 0)
        return -1;
    if ((info.fmt = fovea_pixfmt_from_name(pixfmt)) == FOVEA_PIX_NONE) {
        PyErr_Format(PyExc_ValueError, "fovea: unknown pixel format '%s'", pixfmt);
        return -1;
    }
    char **list;
    if (string_list(opts, &list) < 0)
        return -1;
    es.codec = codec;
    es.options = (const char *const *)list;
    fovea_writer_close(&w->w);
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_writer_open(&w->w, c, path, cont, &info);
    if (st == FOVEA_OK && (codec || es.crf >= 0 || list))
        st = fovea_writer_set_encoder(w->w, &es);
    Py_END_ALLOW_THREADS string_list_free(list);
    if (st != FOVEA_OK) {
        fovea_writer_close(&w->w);
        fx_raise(st, c);
        return -1;
    }
    {
        PyObject *old_ = w->ctx;
        w->ctx = Py_NewRef(ctx);
        Py_XDECREF(old_);
    }
    return 0;
}

static void writer_dealloc(PyObject *self)
{
    fx_writer *w = (fx_writer *)self;
    fovea_writer_close(&w->w);
    Py_XDECREF(w->ctx);
    PyTypeObject *t = Py_TYPE(self);
    ((freefunc)PyType_GetSlot(t, Py_tp_free))(self);
    Py_DECREF(t);
}

static PyObject *writer_write(PyObject *self, PyObject *spec)
{
    fx_writer *w = (fx_writer *)self;
    if (!w->w) {
        PyErr_SetString(PyExc_ValueError, "fovea: the Writer is closed");
        return NULL;
    }
    fx_frame fr;
    if (fx_frame_get(spec, &fr, 0, ((fx_context *)w->ctx)->ctx) < 0)
        return NULL;
    if (fx_enter(&w->busy, "Writer") < 0) {
        fx_frame_release(&fr);
        return NULL;
    }
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_writer_write(w->w, &fr.f);
    Py_END_ALLOW_THREADS FX_LEAVE(&w->busy);
    fx_frame_release(&fr);
    if (st != FOVEA_OK)
        return fx_raise(st, ((fx_context *)w->ctx)->ctx);
    Py_RETURN_NONE;
}

static PyObject *writer_finish(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_writer *w = (fx_writer *)self;
    if (!w->w) {
        PyErr_SetString(PyExc_ValueError, "fovea: the Writer is closed");
        return NULL;
    }
    if (fx_enter(&w->busy, "Writer") < 0)
        return NULL;
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_writer_finish(w->w);
    Py_END_ALLOW_THREADS FX_LEAVE(&w->busy);
    if (st != FOVEA_OK)
        return fx_raise(st, ((fx_context *)w->ctx)->ctx);
    fovea_writer_close(&w->w);
    Py_RETURN_NONE;
}

static PyObject *writer_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_writer *w = (fx_writer *)self;
    if (fx_enter(&w->busy, "Writer") < 0)
        return NULL;
    fovea_writer_close(&w->w);
    FX_LEAVE(&w->busy);
    Py_RETURN_NONE;
}

static PyMethodDef writer_methods[] = {
    {"write", writer_write, METH_O, "Write one frame spec."},
    {"finish", writer_finish, METH_NOARGS, "Complete the output and close."},
    {"close", writer_close, METH_NOARGS, "Close without completing (a replaced file is kept)."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot writer_slots[] = {
    {Py_tp_doc, "The low-level writer under fovea.write (one thread at a time)."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, writer_init},
    {Py_tp_dealloc, writer_dealloc},
    {Py_tp_methods, writer_methods},
    {0, NULL}};

static PyType_Spec writer_spec = {"fovea._fovea.Writer", sizeof(fx_writer), 0, Py_TPFLAGS_DEFAULT,
                                  writer_slots};

int fx_init_io(PyObject *m)
{
    return fx_add_type(m, &reader_spec, "Reader") && fx_add_type(m, &writer_spec, "Writer") ? 0
                                                                                            : -1;
}
