/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* GPU memory for the Python layer (fovea/_device.py): DeviceBuffer (a fovea
 * device frame owned by a Python object), copies between frame specs, and
 * DLPack capsules in (a foreign tensor held until its last user is gone) and
 * out (fovea's memory lent to a consumer). */
#include "_fovea.h"

#include <dlpack/dlpack.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------ DeviceBuffer */

typedef struct {
    PyObject_HEAD fovea_frame f;
    PyObject *ctx;
} fx_devbuf;

/* DeviceBuffer(ctx, pixfmt, width, height): a device frame as
 * fovea_frame_alloc makes it (256-byte row pitch). */
static int devbuf_init(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ctx", "pixfmt", "width", "height", NULL};
    fx_devbuf *b = (fx_devbuf *)self;
    PyObject *ctx;
    const char *name;
    int w, h;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Osii", kwlist, &ctx, &name, &w, &h))
        return -1;
    fovea_context *c = fx_context_get(ctx);
    if (!c)
        return -1;
    if (fovea_context_backend(c) != FOVEA_BACKEND_CUDA) {
        PyErr_SetString(PyExc_ValueError,
                        "fovea: GPU memory needs a CUDA context (fovea.Context(backend='cuda'))");
        return -1;
    }
    const fovea_pixfmt fmt = fovea_pixfmt_from_name(name);
    if (fmt == FOVEA_PIX_NONE) {
        PyErr_Format(PyExc_ValueError, "fovea: unknown pixel format '%s'", name);
        return -1;
    }
    if (b->f.buf) {
        PyErr_SetString(PyExc_RuntimeError, "fovea: DeviceBuffer initialized twice");
        return -1;
    }
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_frame_alloc(c, &b->f, w, h, fmt, FOVEA_MEM_DEVICE);
    Py_END_ALLOW_THREADS if (st != FOVEA_OK)
    {
        fx_raise(st, c);
        return -1;
    }
    b->ctx = Py_NewRef(ctx);
    return 0;
}

static void devbuf_dealloc(PyObject *self)
{
    fx_devbuf *b = (fx_devbuf *)self;
    if (b->ctx)
        fovea_frame_free(((fx_context *)b->ctx)->ctx, &b->f);
    Py_XDECREF(b->ctx);
    PyTypeObject *t = Py_TYPE(self);
    ((freefunc)PyType_GetSlot(t, Py_tp_free))(self);
    Py_DECREF(t);
}

/* planes -> ((ptr, stride), ...) */
static PyObject *devbuf_get_planes(PyObject *self, void *unused)
{
    (void)unused;
    fx_devbuf *b = (fx_devbuf *)self;
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(b->f.fmt);
    const int n = b->f.buf && d ? d->planes : 0;
    PyObject *t = PyTuple_New(n);
    for (int p = 0; t && p < n; p++) {
        PyObject *e = Py_BuildValue("(Kn)", (unsigned long long)(uintptr_t)b->f.data[p],
                                    (Py_ssize_t)b->f.stride[p]);
        if (!e) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SetItem(t, p, e);
    }
    return t;
}

static PyObject *devbuf_get_device(PyObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromLong(((fx_devbuf *)self)->f.device);
}

static PyObject *devbuf_get_nbytes(PyObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromSize_t(((fx_devbuf *)self)->f.buf_size);
}

static PyObject *devbuf_get_ctx(PyObject *self, void *unused)
{
    (void)unused;
    fx_devbuf *b = (fx_devbuf *)self;
    return Py_NewRef(b->ctx ? b->ctx : Py_None);
}

static PyGetSetDef devbuf_getset[] = {
    {"planes", devbuf_get_planes, NULL, "((pointer, row stride in bytes), ...) per plane", NULL},
    {"device", devbuf_get_device, NULL, "the CUDA device", NULL},
    {"nbytes", devbuf_get_nbytes, NULL, "bytes allocated", NULL},
    {"ctx", devbuf_get_ctx, NULL, "the Context the memory belongs to", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot devbuf_slots[] = {
    {Py_tp_doc, "DeviceBuffer(ctx, pixfmt, width, height)\n--\n\n"
                "GPU memory of one frame (fovea_frame_alloc), freed with the object; "
                "fovea.DeviceArray views it."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, devbuf_init},
    {Py_tp_dealloc, devbuf_dealloc},
    {Py_tp_getset, devbuf_getset},
    {0, NULL}};

static PyType_Spec devbuf_spec = {"fovea._fovea.DeviceBuffer", sizeof(fx_devbuf), 0,
                                  Py_TPFLAGS_DEFAULT, devbuf_slots};

/* ------------------------------------------------------------------ copies */

/* copy(ctx, dst_spec, src_spec): fovea_frame_copy on ctx's stream; waits for
 * it when host memory takes part (the host buffers are free at return). */
static PyObject *mod_copy(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *ctx, *ds, *ss;
    if (!PyArg_ParseTuple(args, "OOO", &ctx, &ds, &ss))
        return NULL;
    fovea_context *c = fx_context_get(ctx);
    if (!c)
        return NULL;
    fx_frame dst, src;
    if (fx_frame_get(ds, &dst, 1, c) < 0)
        return NULL;
    if (fx_frame_get(ss, &src, 0, c) < 0) {
        fx_frame_release(&dst);
        return NULL;
    }
    const int host = dst.f.mem != FOVEA_MEM_DEVICE || src.f.mem != FOVEA_MEM_DEVICE;
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_frame_copy(c, &dst.f, &src.f);
    if (st == FOVEA_OK && host)
        st = fovea_sync(c);
    Py_END_ALLOW_THREADS fx_frame_release(&src);
    fx_frame_release(&dst);
    if (st != FOVEA_OK)
        return fx_raise(st, c);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ DLPack in */

/* A consumed "dltensor" capsule's tensor, given back (its deleter) with the
 * object: a DeviceArray over a foreign tensor keeps it as its owner. */
typedef struct {
    PyObject_HEAD DLManagedTensor *t;
} fx_dltensor;

static void dltensor_dealloc(PyObject *self)
{
    fx_dltensor *d = (fx_dltensor *)self;
    if (d->t && d->t->deleter)
        d->t->deleter(d->t);
    PyTypeObject *t = Py_TYPE(self);
    ((freefunc)PyType_GetSlot(t, Py_tp_free))(self);
    Py_DECREF(t);
}

static PyType_Slot dltensor_slots[] = {
    {Py_tp_doc, "A foreign DLPack tensor held by fovea (given back with this object)."},
    {Py_tp_dealloc, dltensor_dealloc},
    {0, NULL}};

static PyType_Spec dltensor_spec = {"fovea._fovea.DLTensor", sizeof(fx_dltensor), 0,
                                    Py_TPFLAGS_DEFAULT, dltensor_slots};
static PyObject *dltensor_type;

/* dlpack_take(capsule) -> (holder, ptr, shape, strides in bytes or None,
 * (type code, bits, lanes), (device type, device id)): the capsule is
 * consumed (renamed "used_dltensor"); the holder gives the tensor back. */
static PyObject *mod_dlpack_take(PyObject *m, PyObject *cap)
{
    (void)m;
    DLManagedTensor *t = PyCapsule_GetPointer(cap, "dltensor");
    if (!t) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError,
                        "fovea: __dlpack__() gave no unused \"dltensor\" capsule (DLPack < 1.0 "
                        "capsules are what fovea reads)");
        return NULL;
    }
    const DLTensor *x = &t->dl_tensor;
    if (x->ndim < 1 || x->ndim > 8 || !x->shape) {
        PyErr_Format(PyExc_ValueError, "fovea: a DLPack tensor of %d dimensions", x->ndim);
        return NULL;
    }
    if (PyCapsule_SetName(cap, "used_dltensor") < 0)
        return NULL;
    fx_dltensor *h = PyObject_New(fx_dltensor, (PyTypeObject *)dltensor_type);
    if (!h) {
        t->deleter(t); /* the capsule is ours now: give the tensor back */
        return NULL;
    }
    h->t = t;
    const int bytes = (x->dtype.bits * x->dtype.lanes + 7) / 8;
    PyObject *shape = PyTuple_New(x->ndim);
    PyObject *strides = x->strides ? PyTuple_New(x->ndim) : Py_NewRef(Py_None);
    for (int i = 0; shape && strides && i < x->ndim; i++) {
        PyTuple_SetItem(shape, i, PyLong_FromLongLong((long long)x->shape[i]));
        if (x->strides)
            PyTuple_SetItem(strides, i, PyLong_FromLongLong((long long)x->strides[i] * bytes));
    }
    PyObject *ret = NULL;
    if (shape && strides && !PyErr_Occurred())
        ret = Py_BuildValue("(OKOO(iii)(ii))", (PyObject *)h,
                            (unsigned long long)((uintptr_t)x->data + x->byte_offset), shape,
                            strides, (int)x->dtype.code, (int)x->dtype.bits, (int)x->dtype.lanes,
                            (int)x->device.device_type, (int)x->device.device_id);
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_DECREF((PyObject *)h);
    return ret;
}

/* ------------------------------------------------------------------ DLPack out */

typedef struct {
    DLManagedTensor t;
    int64_t shape[8], strides[8];
    PyObject *owner;
} fx_dl_export;

static void dl_export_deleter(DLManagedTensor *t)
{
    fx_dl_export *e = t->manager_ctx;
    /* the consumer may give the tensor back from any thread */
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF(e->owner);
    PyMem_Free(e);
    PyGILState_Release(g);
}

static void dl_capsule_destructor(PyObject *cap)
{
    /* a capsule no consumer took: the tensor is still ours */
    if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *t = PyCapsule_GetPointer(cap, "dltensor");
        if (t && t->deleter)
            t->deleter(t);
    }
}

/* dlpack_give(owner, ptr, shape, strides in elements, (code, bits), (device
 * type, device id)) -> a "dltensor" capsule over ptr that keeps owner alive
 * until the consumer calls its deleter. */
static PyObject *mod_dlpack_give(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *owner, *shape, *strides;
    unsigned long long ptr;
    int code, bits, dev_type, dev_id;
    if (!PyArg_ParseTuple(args, "OKO!O!(ii)(ii)", &owner, &ptr, &PyTuple_Type, &shape,
                          &PyTuple_Type, &strides, &code, &bits, &dev_type, &dev_id))
        return NULL;
    const Py_ssize_t n = PyTuple_Size(shape);
    if (n < 1 || n > 8 || PyTuple_Size(strides) != n) {
        PyErr_SetString(PyExc_ValueError, "fovea: 1..8 dimensions, one stride each");
        return NULL;
    }
    fx_dl_export *e = PyMem_Calloc(1, sizeof *e);
    if (!e)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        e->shape[i] = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
        e->strides[i] = PyLong_AsLongLong(PyTuple_GetItem(strides, i));
    }
    if (PyErr_Occurred()) {
        PyMem_Free(e);
        return NULL;
    }
    DLTensor *x = &e->t.dl_tensor;
    x->data = (void *)(uintptr_t)ptr;
    x->device.device_type = (DLDeviceType)dev_type;
    x->device.device_id = dev_id;
    x->ndim = (int)n;
    x->dtype.code = (uint8_t)code;
    x->dtype.bits = (uint8_t)bits;
    x->dtype.lanes = 1;
    x->shape = e->shape;
    x->strides = e->strides;
    x->byte_offset = 0;
    e->t.manager_ctx = e;
    e->t.deleter = dl_export_deleter;
    e->owner = Py_NewRef(owner);
    PyObject *cap = PyCapsule_New(&e->t, "dltensor", dl_capsule_destructor);
    if (!cap) {
        Py_DECREF(owner);
        PyMem_Free(e);
    }
    return cap;
}

static PyMethodDef device_methods[] = {
    {"copy", mod_copy, METH_VARARGS,
     "copy(ctx, dst_spec, src_spec): copy a frame on ctx's stream (host, GPU or both)."},
    {"dlpack_take", mod_dlpack_take, METH_O, "Consume a DLPack capsule (see _device.py)."},
    {"dlpack_give", mod_dlpack_give, METH_VARARGS, "A DLPack capsule over GPU memory."},
    {NULL, NULL, 0, NULL}};

int fx_init_device(PyObject *m)
{
    if (!fx_add_type(m, &devbuf_spec, "DeviceBuffer"))
        return -1;
    dltensor_type = fx_add_type(m, &dltensor_spec, "DLTensor");
    if (!dltensor_type)
        return -1;
    return PyModule_AddFunctions(m, device_methods);
}
