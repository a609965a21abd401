/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea._fovea: the module, fovea.Error, fovea.Context and frames over Python
 * buffers (the buffer protocol of the stable ABI, no numpy C API). */
#include "_fovea.h"

#include <string.h>

PyObject *fx_error;
PyObject *fx_context_type;

PyObject *fx_raise(int st, const fovea_context *ctx)
{
    const char *msg = fovea_last_error(ctx);
    if (!msg || !*msg)
        msg = fovea_strerror(st);
    PyObject *exc = PyObject_CallFunction(fx_error, "s", msg);
    if (!exc)
        return NULL;
    PyObject *code = PyLong_FromLong(st);
    if (code) {
        PyObject_SetAttrString(exc, "status", code);
        Py_DECREF(code);
    }
    PyObject *name = PyUnicode_FromString(fovea_strerror(st));
    if (name) {
        PyObject_SetAttrString(exc, "status_name", name);
        Py_DECREF(name);
    }
    PyErr_SetObject(fx_error, exc);
    Py_DECREF(exc);
    return NULL;
}

int fx_enter(int *busy, const char *what)
{
    if (*busy) {
        PyErr_Format(PyExc_RuntimeError,
                     "fovea: this %s is in use by another thread (one thread at a time; "
                     "make one per thread)",
                     what);
        return -1;
    }
    *busy = 1;
    return 0;
}

PyObject *fx_add_type(PyObject *m, PyType_Spec *spec, const char *name)
{
    PyObject *t = PyType_FromSpec(spec);
    if (!t)
        return NULL;
    Py_INCREF(t);
    if (PyModule_AddObject(m, name, t) < 0) {
        Py_DECREF(t);
        Py_DECREF(t);
        return NULL;
    }
    return t;
}

/* ------------------------------------------------------------------ frames */

void fx_frame_release(fx_frame *fr)
{
    for (int i = 0; i < fr->nviews; i++)
        PyBuffer_Release(&fr->view[i]);
    fr->nviews = 0;
    /* the owner of a foreign array may reuse its memory in its stream's order:
     * that order now includes the work fovea queued on the planes */
    for (int i = 0; i < fr->nstreams; i++)
        fovea_context_signal_stream(fr->ctx, fr->stream[i]);
    fr->nstreams = 0;
}

/* Plane p of fr->f over a device plane tuple
 * (ptr, rows, row_bytes, stride, device, stream, readonly, owner). */
static int plane_from_device(fx_frame *fr, int p, PyObject *t, int writable)
{
    const fovea_frame *f = &fr->f;
    unsigned long long ptr, stream;
    Py_ssize_t rows, row_bytes, stride;
    int device, readonly;
    PyObject *owner;
    if (!PyArg_ParseTuple(t, "KnnniKpO", &ptr, &rows, &row_bytes, &stride, &device, &stream,
                          &readonly, &owner))
        return -1;
    const Py_ssize_t want_rows = fovea_plane_height(f->fmt, f->height, p);
    const Py_ssize_t want_bytes = (Py_ssize_t)fovea_plane_row_bytes(f->fmt, f->width, p);
    if (!ptr || rows != want_rows || row_bytes != want_bytes || stride < row_bytes) {
        PyErr_Format(PyExc_ValueError,
                     "fovea: device plane %d of a %s %dx%d frame must have %zd rows of %zd bytes "
                     "(stride >= the row), not %zd rows of %zd bytes with stride %zd",
                     p, fovea_pixfmt_name(f->fmt), f->width, f->height, want_rows, want_bytes, rows,
                     row_bytes, stride);
        return -1;
    }
    if (writable && readonly) {
        PyErr_Format(PyExc_ValueError, "fovea: device plane %d is read-only and would be written",
                     p);
        return -1;
    }
    if (p > 0 && device != fr->f.device) {
        PyErr_SetString(PyExc_ValueError, "fovea: the planes of a frame are on different devices");
        return -1;
    }
    fr->f.data[p] = (uint8_t *)(uintptr_t)ptr;
    fr->f.stride[p] = stride;
    fr->f.device = device;
    if (stream) {
        void *s = (void *)(uintptr_t)stream;
        int seen = 0;
        for (int i = 0; i < fr->nstreams; i++)
            seen |= fr->stream[i] == s;
        if (!seen)
            fr->stream[fr->nstreams++] = s;
    }
    return 0;
}

/* A device frame on ctx: a CUDA context of the planes' device; ctx's stream
 * waits for the planes' streams. */
static int device_frame_ready(fx_frame *fr, fovea_context *ctx)
{
    if (!ctx || fovea_context_backend(ctx) != FOVEA_BACKEND_CUDA) {
        PyErr_SetString(PyExc_ValueError,
                        "fovea: a GPU array needs a CUDA context (fovea.Context(backend='cuda')); "
                        "this context runs on the CPU: pass host arrays or a CUDA ctx");
        return -1;
    }
    const int dev = fovea_context_device(ctx);
    if (fr->f.device < 0)
        fr->f.device = dev; /* __cuda_array_interface__ does not say: the context's */
    if (fr->f.device != dev) {
        PyErr_Format(PyExc_ValueError,
                     "fovea: the GPU array is on device %d, the context uses device %d",
                     fr->f.device, dev);
        return -1;
    }
    for (int i = 0; i < fr->nstreams; i++) {
        const int st = fovea_context_wait_stream(ctx, fr->stream[i]);
        if (st != FOVEA_OK) {
            fx_raise(st, ctx);
            return -1;
        }
    }
    fr->ctx = ctx;
    return 0;
}

/* Plane p of fr->f over the buffer obj: rows x row_bytes, rows may be strided. */
static int plane_from_buffer(fx_frame *fr, int p, PyObject *obj, int writable)
{
    const fovea_frame *f = &fr->f;
    Py_buffer *v = &fr->view[p];
    if (PyObject_GetBuffer(obj, v, PyBUF_STRIDES | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    fr->nviews = p + 1;
    const Py_ssize_t rows = fovea_plane_height(f->fmt, f->height, p);
    const Py_ssize_t row_bytes = (Py_ssize_t)fovea_plane_row_bytes(f->fmt, f->width, p);
    if (v->ndim < 2 || v->ndim > 3 || v->shape[0] != rows) {
        PyErr_Format(PyExc_ValueError,
                     "fovea: plane %d of a %s %dx%d frame must have %zd rows (2-D or 3-D)", p,
                     fovea_pixfmt_name(f->fmt), f->width, f->height, rows);
        return -1;
    }
    Py_ssize_t inner = v->itemsize;
    for (int d = v->ndim - 1; d >= 1; d--) {
        if (v->strides && v->strides[d] != inner) {
            PyErr_Format(PyExc_ValueError,
                         "fovea: plane %d: the samples of a row must be contiguous", p);
            return -1;
        }
        inner *= v->shape[d];
    }
    if (inner != row_bytes) {
        PyErr_Format(PyExc_ValueError,
                     "fovea: plane %d of a %s %dx%d frame needs %zd bytes a row, "
                     "the array has %zd",
                     p, fovea_pixfmt_name(f->fmt), f->width, f->height, row_bytes, inner);
        return -1;
    }
    const Py_ssize_t stride = v->strides ? v->strides[0] : row_bytes;
    if (stride < row_bytes) {
        PyErr_Format(PyExc_ValueError, "fovea: plane %d: rows must not overlap or go backwards", p);
        return -1;
    }
    fr->f.data[p] = (uint8_t *)v->buf;
    fr->f.stride[p] = stride;
    return 0;
}

int fx_frame_get(PyObject *spec, fx_frame *out, int writable, fovea_context *ctx)
{
    memset(out, 0, sizeof *out);
    const char *fmt_name;
    int w, h;
    PyObject *planes;
    if (!PyTuple_Check(spec) || !PyArg_ParseTuple(spec, "siiO", &fmt_name, &w, &h, &planes)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError,
                            "fovea: a frame spec is (pixfmt, width, height, planes)");
        return -1;
    }
    const fovea_pixfmt fmt = fovea_pixfmt_from_name(fmt_name);
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    if (fmt == FOVEA_PIX_NONE || !d) {
        PyErr_Format(PyExc_ValueError, "fovea: unknown pixel format '%s'", fmt_name);
        return -1;
    }
    if (w < 1 || h < 1 || w > FOVEA_MAX_DIM || h > FOVEA_MAX_DIM) {
        PyErr_Format(PyExc_ValueError, "fovea: frame size %dx%d is outside 1..%d", w, h,
                     FOVEA_MAX_DIM);
        return -1;
    }
    if (!PyTuple_Check(planes) || PyTuple_Size(planes) != d->planes) {
        PyErr_Format(PyExc_ValueError, "fovea: a %s frame has %d planes", fmt_name, d->planes);
        return -1;
    }
    out->f.width = w;
    out->f.height = h;
    out->f.fmt = fmt;
    out->f.mem = FOVEA_MEM_HOST;
    out->f.device = -1;
    const int device = PyTuple_Check(PyTuple_GetItem(planes, 0));
    for (int p = 0; p < d->planes; p++) {
        PyObject *plane = PyTuple_GetItem(planes, p);
        if (PyTuple_Check(plane) != device) {
            PyErr_SetString(PyExc_ValueError,
                            "fovea: the planes of a frame are all host or all GPU arrays");
            goto fail;
        }
        if (device ? plane_from_device(out, p, plane, writable)
                   : plane_from_buffer(out, p, plane, writable))
            goto fail;
    }
    if (device) {
        out->f.mem = FOVEA_MEM_DEVICE;
        if (device_frame_ready(out, ctx) < 0)
            goto fail;
    }
    return 0;
fail:
    out->nstreams = 0; /* nothing was queued: no stream to signal */
    fx_frame_release(out);
    return -1;
}

/* ------------------------------------------------------------------ Context */

fovea_context *fx_context_get(PyObject *ctx)
{
    if (!ctx || !PyObject_TypeCheck(ctx, (PyTypeObject *)fx_context_type)) {
        PyErr_SetString(PyExc_TypeError, "fovea: ctx must be a fovea.Context");
        return NULL;
    }
    fovea_context *c = ((fx_context *)ctx)->ctx;
    if (!c)
        PyErr_SetString(PyExc_ValueError, "fovea: the Context is closed");
    return c;
}

static int context_init(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"backend", "threads", "device", NULL};
    const char *backend = "auto";
    int threads = 0, device = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|sii", kwlist, &backend, &threads, &device))
        return -1;
    fovea_settings s;
    fovea_default_settings(&s);
    if (fovea_backend_parse(backend, &s.backend) != FOVEA_OK) {
        PyErr_Format(PyExc_ValueError, "fovea: unknown backend '%s' (auto, cpu or cuda)", backend);
        return -1;
    }
    if (threads < 0 || threads > FOVEA_MAX_THREADS || device < 0) {
        PyErr_Format(PyExc_ValueError, "fovea: threads must be 0..%d and device >= 0",
                     FOVEA_MAX_THREADS);
        return -1;
    }
    s.threads = threads;
    s.cuda_device = device;
    fx_context *c = (fx_context *)self;
    fovea_close(&c->ctx);
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_open(&c->ctx, &s);
    Py_END_ALLOW_THREADS if (st != FOVEA_OK)
    {
        fx_raise(st, NULL);
        return -1;
    }
    return 0;
}

static void context_dealloc(PyObject *self)
{
    fx_context *c = (fx_context *)self;
    fovea_close(&c->ctx);
    PyTypeObject *t = Py_TYPE(self);
    freefunc f = (freefunc)PyType_GetSlot(t, Py_tp_free);
    f(self);
    Py_DECREF(t);
}

static PyObject *context_get_backend(PyObject *self, void *unused)
{
    (void)unused;
    fovea_context *c = fx_context_get(self);
    return c ? PyUnicode_FromString(fovea_backend_name(fovea_context_backend(c))) : NULL;
}

static PyObject *context_get_threads(PyObject *self, void *unused)
{
    (void)unused;
    fovea_context *c = fx_context_get(self);
    return c ? PyLong_FromLong(fovea_context_threads(c)) : NULL;
}

static PyObject *context_get_device(PyObject *self, void *unused)
{
    (void)unused;
    fovea_context *c = fx_context_get(self);
    return c ? PyLong_FromLong(fovea_context_device(c)) : NULL;
}

static PyObject *context_get_stream(PyObject *self, void *unused)
{
    (void)unused;
    fovea_context *c = fx_context_get(self);
    return c ? PyLong_FromVoidPtr(fovea_context_stream(c)) : NULL;
}

static PyObject *context_sync(PyObject *self, PyObject *unused)
{
    (void)unused;
    fovea_context *c = fx_context_get(self);
    if (!c)
        return NULL;
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_sync(c);
    Py_END_ALLOW_THREADS if (st != FOVEA_OK) return fx_raise(st, c);
    Py_RETURN_NONE;
}

/* wait_stream(handle) / signal_stream(handle): order the context's stream
 * after another stream, or another stream after the context's. */
static PyObject *context_order(PyObject *self, PyObject *arg, int wait)
{
    fovea_context *c = fx_context_get(self);
    if (!c)
        return NULL;
    void *s = PyLong_AsVoidPtr(arg);
    if (PyErr_Occurred())
        return NULL;
    const int st = wait ? fovea_context_wait_stream(c, s) : fovea_context_signal_stream(c, s);
    if (st != FOVEA_OK)
        return fx_raise(st, c);
    Py_RETURN_NONE;
}

static PyObject *context_wait_stream(PyObject *self, PyObject *arg)
{
    return context_order(self, arg, 1);
}

static PyObject *context_signal_stream(PyObject *self, PyObject *arg)
{
    return context_order(self, arg, 0);
}

static PyGetSetDef context_getset[] = {
    {"backend", context_get_backend, NULL, "the backend in use: 'cpu' or 'cuda'", NULL},
    {"threads", context_get_threads, NULL, "CPU worker threads", NULL},
    {"device", context_get_device, NULL, "CUDA device index (-1 on a CPU context)", NULL},
    {"cuda_stream", context_get_stream, NULL,
     "the context's cudaStream_t as an integer (0 on a CPU context): GPU work runs on it", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef context_methods[] = {
    {"sync", context_sync, METH_NOARGS, "Wait until the work queued on the context is done."},
    {"wait_stream", context_wait_stream, METH_O,
     "wait_stream(cuda_stream)\n--\n\nWork queued on the context from now on waits for the work "
     "queued on cuda_stream (an integer cudaStream_t of the context's device; 1 and 2: CUDA's "
     "legacy and per-thread default streams) so far. A CUDA event: the host does not wait."},
    {"signal_stream", context_signal_stream, METH_O,
     "signal_stream(cuda_stream)\n--\n\nWork queued on cuda_stream from now on waits for the "
     "work queued on the context so far (hand results to another library's stream)."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot context_slots[] = {
    {Py_tp_doc, "Context(backend='auto', threads=0, device=0)\n--\n\n"
                "A fovea context: the backend ('auto': CUDA when a device is present, else the "
                "CPU; 'cpu'; 'cuda'), the CPU threads (0 = every CPU) and the CUDA device.\n"
                "A Context may be shared between threads (the library serializes its thread "
                "pool and keeps the last error per thread)."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, context_init},
    {Py_tp_dealloc, context_dealloc},
    {Py_tp_getset, context_getset},
    {Py_tp_methods, context_methods},
    {0, NULL}};

static PyType_Spec context_spec = {"fovea.Context", sizeof(fx_context), 0, Py_TPFLAGS_DEFAULT,
                                   context_slots};

/* ------------------------------------------------------------------ module functions */

static PyObject *mod_version(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    return PyUnicode_FromString(fovea_version());
}

static PyObject *mod_cuda_compiled(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    return PyBool_FromLong(fovea_cuda_compiled());
}

static PyObject *mod_device_count(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    int n = 0;
    if (fovea_device_count(&n) != FOVEA_OK)
        n = 0;
    return PyLong_FromLong(n);
}

/* pixfmt_desc(name) -> (planes, bit_depth, bytes_per_sample, log2_cw, log2_ch,
 * components, is_yuv, is_rgb), or None for an unknown name. */
static PyObject *mod_pixfmt_desc(PyObject *m, PyObject *arg)
{
    (void)m;
    const char *name = PyUnicode_AsUTF8AndSize(arg, NULL);
    if (!name)
        return NULL;
    const fovea_pixfmt fmt = fovea_pixfmt_from_name(name);
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    if (fmt == FOVEA_PIX_NONE || !d)
        Py_RETURN_NONE;
    return Py_BuildValue("(siiiiiiii)", d->name, d->planes, d->bit_depth, d->bytes_per_sample,
                         d->log2_chroma_w, d->log2_chroma_h, d->components, d->is_yuv, d->is_rgb);
}

/* plane_shape(pixfmt, width, height, p) -> (rows, samples a row) */
static PyObject *mod_plane_shape(PyObject *m, PyObject *args)
{
    (void)m;
    const char *name;
    int w, h, p;
    if (!PyArg_ParseTuple(args, "siii", &name, &w, &h, &p))
        return NULL;
    const fovea_pixfmt fmt = fovea_pixfmt_from_name(name);
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    if (fmt == FOVEA_PIX_NONE || !d || p < 0 || p >= d->planes) {
        PyErr_Format(PyExc_ValueError, "fovea: no plane %d in pixel format '%s'", p, name);
        return NULL;
    }
    return Py_BuildValue("(ii)", fovea_plane_height(fmt, h, p), fovea_plane_width(fmt, w, p));
}

static PyObject *mod_pixfmt_yuv(PyObject *m, PyObject *args)
{
    (void)m;
    int chroma, depth;
    if (!PyArg_ParseTuple(args, "ii", &chroma, &depth))
        return NULL;
    const fovea_pixfmt fmt = fovea_pixfmt_yuv(chroma, depth);
    if (fmt == FOVEA_PIX_NONE)
        Py_RETURN_NONE;
    return PyUnicode_FromString(fovea_pixfmt_name(fmt));
}

static PyMethodDef module_methods[] = {
    {"version", mod_version, METH_NOARGS, "The library's version string."},
    {"cuda_compiled", mod_cuda_compiled, METH_NOARGS, "Whether the CUDA backend is built in."},
    {"device_count", mod_device_count, METH_NOARGS, "CUDA devices present (0 without CUDA)."},
    {"pixfmt_desc", mod_pixfmt_desc, METH_O, "Describe a pixel format by name."},
    {"plane_shape", mod_plane_shape, METH_VARARGS, "(rows, samples a row) of a plane."},
    {"pixfmt_yuv", mod_pixfmt_yuv, METH_VARARGS, "The YUV format of a chroma and bit depth."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                                        "fovea._fovea",
                                        "fovea's C extension (use the fovea package).",
                                        -1,
                                        module_methods,
                                        NULL,
                                        NULL,
                                        NULL,
                                        NULL};

PyMODINIT_FUNC PyInit__fovea(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    fx_error = PyErr_NewExceptionWithDoc(
        "fovea.Error",
        "A failure reported by the fovea library: str(e) is the library's message, "
        "e.status its status code (negative) and e.status_name the status's name.",
        NULL, NULL);
    if (!fx_error || PyModule_AddObject(m, "Error", fx_error) < 0)
        goto fail;
    Py_INCREF(fx_error);
    fx_context_type = fx_add_type(m, &context_spec, "Context");
    if (!fx_context_type)
        goto fail;
    if (fx_init_io(m) < 0 || fx_init_quality(m) < 0 || fx_init_diff(m) < 0 || fx_init_klt(m) < 0 ||
        fx_init_stitch(m) < 0 || fx_init_stream(m) < 0 || fx_init_device(m) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
