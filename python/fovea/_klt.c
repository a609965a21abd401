/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea._fovea.Klt: a KLT tracking context and its feature list (KLT 1.3.4's
 * numbers), fed 8-bit gray buffers; the previous image is kept for tracking. */
#include "_fovea.h"

#include <fovea/klt.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    PyObject_HEAD KLT_TrackingContext tc;
    KLT_FeatureList fl;
    unsigned char *prev; /* the last image seen (select/track/replace) */
    int prev_w, prev_h;
    /* GPU images: the last one and the next one, each copied into a
     * contiguous device buffer (KLT reads ncols x nrows bytes without
     * padding); prev_dev says which memory prev points to */
    fovea_frame dev[2];
    int prev_dev;
    PyObject *ctx;
    int busy;
} fx_klt;

static int klt_init(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ctx", "n_features", "fields", "search_range", NULL};
    fx_klt *k = (fx_klt *)self;
    PyObject *ctx, *fields;
    int n, search_range = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiO!|i", kwlist, &ctx, &n, &PyDict_Type, &fields,
                                     &search_range))
        return -1;
    fovea_context *c = fx_context_get(ctx);
    if (!c)
        return -1;
    if (n < 1 || n > 1000000) {
        PyErr_SetString(PyExc_ValueError, "fovea: n_features must be 1..1000000");
        return -1;
    }
    if (k->tc) {
        PyErr_SetString(PyExc_RuntimeError, "fovea: Tracker initialized twice");
        return -1;
    }
    k->tc = KLTCreateTrackingContext();
    k->fl = KLTCreateFeatureList(n);
    if (!k->tc || !k->fl) {
        PyErr_NoMemory();
        return -1;
    }
    k->tc->ctx = c;
    k->tc->backend = fovea_context_backend(c);
    if (search_range > 0)
        KLTChangeTCPyramid(k->tc, search_range);
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(fields, &pos, &key, &value)) {
        const char *name = PyUnicode_AsUTF8AndSize(key, NULL);
        const double x = name ? PyFloat_AsDouble(value) : 0;
        if (!name || PyErr_Occurred())
            return -1;
        if (fovea_klt_set_field(k->tc, name, x) != FOVEA_OK) {
            PyErr_Format(PyExc_ValueError, "fovea: KLT field %s: %s", name, fovea_last_error(c));
            return -1;
        }
    }
    if (!PyDict_GetItemString(fields, "borderx") && !PyDict_GetItemString(fields, "bordery")) {
        KLTUpdateTCBorder(k->tc);
        if (fovea_klt_last_status(k->tc) != FOVEA_OK) {
            fx_raise(fovea_klt_last_status(k->tc), c);
            return -1;
        }
    }
    k->ctx = Py_NewRef(ctx);
    return 0;
}

static void klt_dealloc(PyObject *self)
{
    fx_klt *k = (fx_klt *)self;
    KLTFreeFeatureList(k->fl);
    if (k->ctx) {
        fovea_frame_free(((fx_context *)k->ctx)->ctx, &k->dev[0]);
        fovea_frame_free(((fx_context *)k->ctx)->ctx, &k->dev[1]);
    }
    KLTFreeTrackingContext(k->tc);
    if (!k->prev_dev)
        free(k->prev);
    Py_XDECREF(k->ctx);
    PyTypeObject *t = Py_TYPE(self);
    ((freefunc)PyType_GetSlot(t, Py_tp_free))(self);
    Py_DECREF(t);
}

/* The features as bytes of N x 3 doubles (x, y, val). */
static PyObject *features_bytes(const KLT_FeatureList fl)
{
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)fl->nFeatures * 3 * sizeof(double));
    if (!b)
        return NULL;
    double *out = (double *)PyBytes_AsString(b);
    for (int i = 0; i < fl->nFeatures; i++) {
        out[3 * i] = fl->feature[i]->x;
        out[3 * i + 1] = fl->feature[i]->y;
        out[3 * i + 2] = fl->feature[i]->val;
    }
    return b;
}

enum { KLT_SELECT, KLT_TRACK, KLT_REPLACE };

static void klt_run(fx_klt *k, int op, unsigned char *img, int w, int h)
{
    switch (op) {
    case KLT_SELECT: KLTSelectGoodFeatures(k->tc, img, w, h, k->fl); break;
    case KLT_TRACK: KLTTrackFeatures(k->tc, k->prev, img, w, h, k->fl); break;
    default: KLTReplaceLostFeatures(k->tc, img, w, h, k->fl); break;
    }
}

/* A contiguous device buffer of at least n bytes, from the public frame
 * allocator: RGBA64 rows 2048 wide are 16 KiB, a multiple of the device row
 * pitch (256 bytes), so the rows follow each other without padding. */
static int flat_device(fovea_context *c, fovea_frame *f, size_t n)
{
    const size_t row = 2048 * 8;
    if (f->buf && f->buf_size >= n)
        return FOVEA_OK;
    fovea_frame_free(c, f);
    return fovea_frame_alloc(c, f, 2048, (int)((n + row - 1) / row), FOVEA_PIX_RGBA64,
                             FOVEA_MEM_DEVICE);
}

/* op on a GPU image (a gray8 frame spec of device planes): copied on the
 * device into the buffer prev does not use (any row stride in, none out),
 * then given to KLT, which reads device memory in place on the CUDA backend;
 * that buffer becomes prev. */
static PyObject *klt_op_device(fx_klt *k, PyObject *spec, int op)
{
    fovea_context *c = ((fx_context *)k->ctx)->ctx;
    fx_frame in;
    if (fx_frame_get(spec, &in, 0, c) < 0)
        return NULL;
    const int w = in.f.width, h = in.f.height;
    if (in.f.fmt != FOVEA_PIX_GRAY8 || in.f.mem != FOVEA_MEM_DEVICE) {
        fx_frame_release(&in);
        PyErr_SetString(PyExc_ValueError, "fovea: a KLT image is H x W uint8 (gray)");
        return NULL;
    }
    if (op == KLT_TRACK && (!k->prev || !k->prev_dev || k->prev_w != w || k->prev_h != h)) {
        fx_frame_release(&in);
        PyErr_SetString(PyExc_ValueError,
                        "fovea: track() needs a previous GPU image of the same size (select "
                        "first; host and GPU images do not mix in one Tracker)");
        return NULL;
    }
    if (fx_enter(&k->busy, "Tracker") < 0) {
        fx_frame_release(&in);
        return NULL;
    }
    fovea_frame *next = k->prev_dev && k->prev == k->dev[0].data[0] ? &k->dev[1] : &k->dev[0];
    int st;
    Py_BEGIN_ALLOW_THREADS st = flat_device(c, next, (size_t)w * h);
    if (st == FOVEA_OK) {
        fovea_frame dst = in.f;
        dst.data[0] = next->data[0];
        dst.stride[0] = w;
        dst.buf = NULL;
        st = fovea_frame_copy(c, &dst, &in.f);
    }
    if (st == FOVEA_OK) {
        klt_run(k, op, next->data[0], w, h);
        st = fovea_klt_last_status(k->tc);
    }
    Py_END_ALLOW_THREADS FX_LEAVE(&k->busy);
    fx_frame_release(&in);
    if (st != FOVEA_OK)
        return fx_raise(st, c);
    if (!k->prev_dev)
        free(k->prev);
    k->prev = next->data[0];
    k->prev_dev = 1;
    k->prev_w = w;
    k->prev_h = h;
    return features_bytes(k->fl);
}

/* op(image, width, height): image a C-contiguous 8-bit buffer. */
static PyObject *klt_op(fx_klt *k, PyObject *args, int op)
{
    PyObject *obj;
    int w, h;
    if (!PyArg_ParseTuple(args, "Oii", &obj, &w, &h))
        return NULL;
    if (!k->tc) {
        PyErr_SetString(PyExc_ValueError, "fovea: the Tracker is not open");
        return NULL;
    }
    if (PyTuple_Check(obj))
        return klt_op_device(k, obj, op);
    Py_buffer v;
    if (PyObject_GetBuffer(obj, &v, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (w < 1 || h < 1 || w > FOVEA_MAX_DIM || h > FOVEA_MAX_DIM || v.len != (Py_ssize_t)w * h) {
        PyBuffer_Release(&v);
        PyErr_SetString(PyExc_ValueError, "fovea: a KLT image is H x W uint8, contiguous");
        return NULL;
    }
    if (op == KLT_TRACK && (!k->prev || k->prev_dev || k->prev_w != w || k->prev_h != h)) {
        PyBuffer_Release(&v);
        PyErr_SetString(PyExc_ValueError,
                        "fovea: track() needs a previous host image of the same size (select "
                        "first; host and GPU images do not mix in one Tracker)");
        return NULL;
    }
    unsigned char *copy = malloc((size_t)w * h);
    if (!copy) {
        PyBuffer_Release(&v);
        return PyErr_NoMemory();
    }
    if (fx_enter(&k->busy, "Tracker") < 0) {
        PyBuffer_Release(&v);
        free(copy);
        return NULL;
    }
    int st;
    Py_BEGIN_ALLOW_THREADS memcpy(copy, v.buf, (size_t)w * h);
    klt_run(k, op, copy, w, h);
    st = fovea_klt_last_status(k->tc);
    Py_END_ALLOW_THREADS FX_LEAVE(&k->busy);
    PyBuffer_Release(&v);
    if (st != FOVEA_OK) {
        free(copy);
        return fx_raise(st, k->tc->ctx);
    }
    if (!k->prev_dev)
        free(k->prev);
    k->prev = copy;
    k->prev_dev = 0;
    k->prev_w = w;
    k->prev_h = h;
    return features_bytes(k->fl);
}

static PyObject *klt_select(PyObject *self, PyObject *args)
{
    return klt_op((fx_klt *)self, args, KLT_SELECT);
}

static PyObject *klt_track(PyObject *self, PyObject *args)
{
    return klt_op((fx_klt *)self, args, KLT_TRACK);
}

static PyObject *klt_replace(PyObject *self, PyObject *args)
{
    return klt_op((fx_klt *)self, args, KLT_REPLACE);
}

static PyObject *klt_features(PyObject *self, PyObject *unused)
{
    (void)unused;
    return features_bytes(((fx_klt *)self)->fl);
}

static PyObject *klt_fields(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_klt *k = (fx_klt *)self;
    PyObject *d = PyDict_New();
    for (int i = 0; d; i++) {
        const char *name = fovea_klt_field_name(i);
        double x;
        if (!name)
            break;
        if (fovea_klt_get_field(k->tc, name, &x) != FOVEA_OK)
            continue;
        PyObject *o = PyFloat_FromDouble(x);
        if (!o || PyDict_SetItemString(d, name, o) < 0) {
            Py_XDECREF(o);
            Py_CLEAR(d);
        } else {
            Py_DECREF(o);
        }
    }
    return d;
}

static PyMethodDef klt_methods[] = {
    {"select", klt_select, METH_VARARGS, "select(img, w, h) -> bytes of N x 3 doubles"},
    {"track", klt_track, METH_VARARGS, "track(img, w, h) -> bytes of N x 3 doubles"},
    {"replace", klt_replace, METH_VARARGS, "replace(img, w, h) -> bytes of N x 3 doubles"},
    {"features", klt_features, METH_NOARGS, "The feature list as bytes of N x 3 doubles."},
    {"fields", klt_fields, METH_NOARGS, "The tracking context's fields by name."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot klt_slots[] = {
    {Py_tp_doc, "The low-level tracker under fovea.klt.Tracker (one thread at a time)."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, klt_init},
    {Py_tp_dealloc, klt_dealloc},
    {Py_tp_methods, klt_methods},
    {0, NULL}};

static PyType_Spec klt_spec = {"fovea._fovea.Klt", sizeof(fx_klt), 0, Py_TPFLAGS_DEFAULT,
                               klt_slots};

int fx_init_klt(PyObject *m)
{
    return fx_add_type(m, &klt_spec, "Klt") ? 0 : -1;
}
