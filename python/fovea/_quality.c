/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea._fovea.Vmaf: a fovea_vmaf scoring pairs pushed as buffers or read
 * from files (the GIL released for the work), its kept frames, pooled values
 * and libvmaf's JSON. */
#include "_fovea.h"

#include <fovea/io.h>
#include <fovea/quality.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODELS 8

typedef struct {
    PyObject_HEAD fovea_vmaf *v;
    fovea_vmaf_model *model[MAX_MODELS];
    int n_models;
    PyObject *ctx;
    int busy;
    int depth_w, depth_h; /* the size depth was computed for */
    int64_t depth;        /* pairs kept pending by submit: about three batches */
} fx_vmaf;

static int vmaf_init(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ctx", "models", "features", "flags", "subsample", NULL};
    fx_vmaf *v = (fx_vmaf *)self;
    PyObject *ctx, *models;
    const char *features = NULL;
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO!|zii", kwlist, &ctx, &PyTuple_Type, &models,
                                     &features, &s.flags, &s.subsample))
        return -1;
    fovea_context *c = fx_context_get(ctx);
    if (!c)
        return -1;
    const Py_ssize_t n = PyTuple_Size(models);
    if (n > MAX_MODELS) {
        PyErr_Format(PyExc_ValueError, "fovea: at most %d models", MAX_MODELS);
        return -1;
    }
    if (n == 0 && (!features || !*features)) {
        PyErr_SetString(PyExc_ValueError, "fovea: give a model or features");
        return -1;
    }
    if (v->v || v->n_models) {
        PyErr_SetString(PyExc_RuntimeError, "fovea: Vmaf initialized twice");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *spec = PyUnicode_AsUTF8AndSize(PyTuple_GetItem(models, i), NULL);
        if (!spec)
            return -1;
        int st;
        Py_BEGIN_ALLOW_THREADS st = fovea_vmaf_model_open(&v->model[i], c, spec);
        Py_END_ALLOW_THREADS if (st != FOVEA_OK)
        {
            fx_raise(st, c);
            return -1;
        }
        v->n_models = (int)i + 1;
    }
    if (n == 0)
        s.flags |= FOVEA_VMAF_NO_PREDICTION;
    s.model = n > 0 ? v->model[0] : NULL;
    s.models = (const fovea_vmaf_model *const *)(n > 1 ? &v->model[1] : NULL);
    s.n_models = n > 1 ? (int)n - 1 : 0;
    s.features = features && *features ? features : NULL;
    s.keep_frames = 1;
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_vmaf_open(&v->v, c, &s);
    Py_END_ALLOW_THREADS if (st != FOVEA_OK)
    {
        fx_raise(st, c);
        return -1;
    }
    v->ctx = Py_NewRef(ctx);
    return 0;
}

static void vmaf_dealloc(PyObject *self)
{
    fx_vmaf *v = (fx_vmaf *)self;
    fovea_vmaf_close(&v->v);
    for (int i = 0; i < v->n_models; i++)
        fovea_vmaf_model_close(&v->model[i]);
    Py_XDECREF(v->ctx);
    PyTypeObject *t = Py_TYPE(self);
    ((freefunc)PyType_GetSlot(t, Py_tp_free))(self);
    Py_DECREF(t);
}

static fovea_context *vmaf_ctx(const fx_vmaf *v)
{
    return ((fx_context *)v->ctx)->ctx;
}

static int vmaf_ready(fx_vmaf *v)
{
    if (!v->v) {
        PyErr_SetString(PyExc_ValueError, "fovea: the Vmaf object is not open");
        return -1;
    }
    return fx_enter(&v->busy, "VmafScorer");
}

/* Receive ready frames (kept for the result) while more than keep pairs are
 * pending. */
static int drain(fovea_vmaf *v, int64_t keep)
{
    int st = FOVEA_OK;
    while (fovea_vmaf_pending(v) > keep && (st = fovea_vmaf_receive(v, NULL)) == FOVEA_OK)
        ;
    return st == FOVEA_AGAIN ? FOVEA_OK : st;
}

/* The pairs submit keeps pending for w x h frames: about three of the
 * backend's batches (fovea_vmaf_batch_size), as the CLI keeps, so that every
 * thread or the GPU has work while the caller makes the next frames. */
static int64_t submit_depth(fx_vmaf *v, int w, int h)
{
    if (w != v->depth_w || h != v->depth_h) {
        v->depth = 3 * (int64_t)fovea_vmaf_batch_size(v->v, w, h);
        v->depth_w = w;
        v->depth_h = h;
    }
    return v->depth;
}

static PyObject *vmaf_submit(PyObject *self, PyObject *args)
{
    fx_vmaf *v = (fx_vmaf *)self;
    PyObject *rs, *ds;
    if (!PyArg_ParseTuple(args, "OO", &rs, &ds))
        return NULL;
    fx_frame ref, dis;
    if (fx_frame_get(rs, &ref, 0, vmaf_ctx(v)) < 0)
        return NULL;
    if (fx_frame_get(ds, &dis, 0, vmaf_ctx(v)) < 0) {
        fx_frame_release(&ref);
        return NULL;
    }
    if (vmaf_ready(v) < 0) {
        fx_frame_release(&ref);
        fx_frame_release(&dis);
        return NULL;
    }
    const int64_t keep = submit_depth(v, ref.f.width, ref.f.height);
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_vmaf_submit(v->v, &ref.f, &dis.f);
    if (st == FOVEA_OK)
        st = drain(v->v, keep);
    Py_END_ALLOW_THREADS FX_LEAVE(&v->busy);
    fx_frame_release(&ref);
    fx_frame_release(&dis);
    if (st != FOVEA_OK)
        return fx_raise(st, vmaf_ctx(v));
    Py_RETURN_NONE;
}

static PyObject *vmaf_flush(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_vmaf *v = (fx_vmaf *)self;
    if (vmaf_ready(v) < 0)
        return NULL;
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_vmaf_flush(v->v);
    if (st == FOVEA_OK)
        st = drain(v->v, 0);
    Py_END_ALLOW_THREADS FX_LEAVE(&v->busy);
    if (st != FOVEA_OK)
        return fx_raise(st, vmaf_ctx(v));
    Py_RETURN_NONE;
}

static PyObject *vmaf_reset(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_vmaf *v = (fx_vmaf *)self;
    if (vmaf_ready(v) < 0)
        return NULL;
    fovea_vmaf_reset(v->v);
    FX_LEAVE(&v->busy);
    Py_RETURN_NONE;
}

/* Open a reader on path with the settings of the Python keywords. */
static int open_reader(fovea_reader **r, fovea_context *c, const char *path, PyObject *kw)
{
    fovea_reader_settings s;
    fovea_reader_default_settings(&s);
    if (kw && kw != Py_None) {
        PyObject *o;
        if ((o = PyDict_GetItemString(kw, "width")))
            s.width = (int)PyLong_AsLong(o);
        if ((o = PyDict_GetItemString(kw, "height")))
            s.height = (int)PyLong_AsLong(o);
        if ((o = PyDict_GetItemString(kw, "pixfmt"))) {
            const char *name = PyUnicode_AsUTF8AndSize(o, NULL);
            if (!name)
                return -1;
            s.fmt = fovea_pixfmt_from_name(name);
        }
        if (PyErr_Occurred())
            return -1;
        if (s.width || s.height || s.fmt)
            s.container = FOVEA_CONTAINER_YUV;
    }
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_reader_open(r, c, path, &s);
    Py_END_ALLOW_THREADS if (st != FOVEA_OK)
    {
        fx_raise(st, c);
        return -1;
    }
    return 0;
}

static PyObject *vmaf_score_files(PyObject *self, PyObject *args)
{
    fx_vmaf *v = (fx_vmaf *)self;
    const char *ref_path, *dis_path;
    PyObject *kw = NULL;
    long long max_frames = 0;
    if (!PyArg_ParseTuple(args, "ss|OL", &ref_path, &dis_path, &kw, &max_frames))
        return NULL;
    fovea_context *c = vmaf_ctx(v);
    fovea_reader *rr = NULL, *rd = NULL;
    if (open_reader(&rr, c, ref_path, kw) < 0)
        return NULL;
    if (open_reader(&rd, c, dis_path, kw) < 0) {
        fovea_reader_close(&rr);
        return NULL;
    }
    const fovea_video_info *ir = fovea_reader_info(rr), *id = fovea_reader_info(rd);
    if (ir->width != id->width || ir->height != id->height) {
        PyErr_Format(PyExc_ValueError, "fovea: %s is %dx%d, %s is %dx%d", ref_path, ir->width,
                     ir->height, dis_path, id->width, id->height);
        fovea_reader_close(&rr);
        fovea_reader_close(&rd);
        return NULL;
    }
    PyObject *info =
        Py_BuildValue("{s:i,s:i,s:s,s:i,s:i}", "width", ir->width, "height", ir->height, "pixfmt",
                      fovea_pixfmt_name(ir->fmt), "fps_num", ir->fps_num, "fps_den", ir->fps_den);
    if (!info || vmaf_ready(v) < 0) {
        Py_XDECREF(info);
        fovea_reader_close(&rr);
        fovea_reader_close(&rd);
        return NULL;
    }
    /* the CLI's pipeline: a reader thread per file, batches kept pending */
    fovea_vmaf_readers_settings rs;
    fovea_vmaf_readers_default_settings(&rs);
    rs.frames = max_frames > 0 ? max_frames : -1;
    fovea_vmaf_readers_result res;
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_vmaf_score_readers(v->v, rr, rd, &rs, &res);
    Py_END_ALLOW_THREADS FX_LEAVE(&v->busy);
    const long long n = res.pairs;
    fovea_reader_close(&rr);
    fovea_reader_close(&rd);
    if (st != FOVEA_OK) {
        Py_DECREF(info);
        return fx_raise(st, c);
    }
    PyObject *count = PyLong_FromLongLong(n);
    if (!count || PyDict_SetItemString(info, "frames", count) < 0) {
        Py_XDECREF(count);
        Py_DECREF(info);
        return NULL;
    }
    Py_DECREF(count);
    return info;
}

static PyObject *vmaf_names(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_vmaf *v = (fx_vmaf *)self;
    const int n = fovea_vmaf_metric_count(v->v);
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) {
        PyObject *s = PyUnicode_FromString(fovea_vmaf_metric_name(v->v, i));
        if (!s) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SetItem(t, i, s);
    }
    return t;
}

/* kept() -> bytes of frames x metrics doubles, row-major */
static PyObject *vmaf_kept(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_vmaf *v = (fx_vmaf *)self;
    const int64_t n = fovea_vmaf_kept_frames(v->v);
    const int m = fovea_vmaf_metric_count(v->v);
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * m * (int64_t)sizeof(double)));
    if (!b)
        return NULL;
    double *out = (double *)PyBytes_AsString(b);
    for (int64_t i = 0; i < n; i++)
        memcpy(out + i * m, fovea_vmaf_kept_values(v->v, i), (size_t)m * sizeof(double));
    return b;
}

/* pooled() -> (frames, ((min, max, mean, harmonic_mean) per metric)) */
static PyObject *vmaf_pooled(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_vmaf *v = (fx_vmaf *)self;
    fovea_vmaf_pooled_scores *p = malloc(sizeof *p);
    if (!p)
        return PyErr_NoMemory();
    int st = fovea_vmaf_pooled(v->v, p);
    if (st != FOVEA_OK) {
        free(p);
        return fx_raise(st, vmaf_ctx(v));
    }
    PyObject *t = PyTuple_New(p->count);
    for (int i = 0; t && i < p->count; i++) {
        PyObject *e = Py_BuildValue("(dddd)", p->metric[i].min, p->metric[i].max, p->metric[i].mean,
                                    p->metric[i].harmonic_mean);
        if (!e) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SetItem(t, i, e);
    }
    const long long frames = (long long)p->frames;
    free(p);
    if (!t)
        return NULL;
    return Py_BuildValue("(LN)", frames, t);
}

static PyObject *vmaf_aggregates(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_vmaf *v = (fx_vmaf *)self;
    fovea_vmaf_aggregates a;
    int st = fovea_vmaf_aggregate(v->v, &a);
    if (st != FOVEA_OK)
        return fx_raise(st, vmaf_ctx(v));
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < a.count; i++) {
        PyObject *x = PyFloat_FromDouble(a.value[i]);
        if (!x || PyDict_SetItemString(d, a.name[i], x) < 0) {
            Py_XDECREF(x);
            Py_CLEAR(d);
            break;
        }
        Py_DECREF(x);
    }
    return d;
}

/* to_json(fps, fields) with fields a tuple of (key, value): str, bool, int or
 * float values, in order, in the JSON's "fovea" object. */
static PyObject *vmaf_to_json(PyObject *self, PyObject *args)
{
    fx_vmaf *v = (fx_vmaf *)self;
    double fps;
    PyObject *fields;
    if (!PyArg_ParseTuple(args, "dO!", &fps, &PyTuple_Type, &fields))
        return NULL;
    const Py_ssize_t n = PyTuple_Size(fields);
    fovea_vmaf_field *f = calloc((size_t)n + 1, sizeof *f);
    if (!f)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *val;
        if (!PyArg_ParseTuple(PyTuple_GetItem(fields, i), "sO", &f[i].key, &val))
            goto fail;
        if (PyUnicode_Check(val)) {
            f[i].type = FOVEA_VMAF_FIELD_STRING;
            if (!(f[i].str = PyUnicode_AsUTF8AndSize(val, NULL)))
                goto fail;
        } else if (PyBool_Check(val)) {
            f[i].type = FOVEA_VMAF_FIELD_BOOL;
            f[i].num = val == Py_True;
        } else {
            f[i].type = PyLong_Check(val) ? FOVEA_VMAF_FIELD_NUMBER : FOVEA_VMAF_FIELD_EXACT;
            f[i].num = PyFloat_AsDouble(val);
            if (PyErr_Occurred())
                goto fail;
        }
    }
    char *buf = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&buf, &size);
    if (!mem) {
        free(f);
        return PyErr_NoMemory();
    }
    const fovea_vmaf_output o = {fps, f, (int)n};
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_vmaf_write(v->v, mem, FOVEA_VMAF_OUTPUT_JSON, &o);
    Py_END_ALLOW_THREADS fclose(mem);
    free(f);
    if (st != FOVEA_OK) {
        free(buf);
        return fx_raise(st, vmaf_ctx(v));
    }
    PyObject *s = PyUnicode_FromStringAndSize(buf, (Py_ssize_t)size);
    free(buf);
    return s;
fail:
    free(f);
    return NULL;
}

static PyObject *vmaf_backend(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_vmaf *v = (fx_vmaf *)self;
    return PyUnicode_FromString(fovea_backend_name(fovea_vmaf_backend(v->v)));
}

static PyObject *vmaf_pending(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLongLong(fovea_vmaf_pending(((fx_vmaf *)self)->v));
}

static PyMethodDef vmaf_methods[] = {
    {"submit", vmaf_submit, METH_VARARGS,
     "Queue a pair of frame specs; receive the oldest while about three batches are pending."},
    {"flush", vmaf_flush, METH_NOARGS, "End of the stream: every pair is scored."},
    {"reset", vmaf_reset, METH_NOARGS, "Forget every frame."},
    {"score_files", vmaf_score_files, METH_VARARGS, "Read and score two files."},
    {"names", vmaf_names, METH_NOARGS, "The metric names in libvmaf's order."},
    {"kept", vmaf_kept, METH_NOARGS, "The kept frames' values as bytes of doubles."},
    {"pooled", vmaf_pooled, METH_NOARGS, "(frames, per-metric (min, max, mean, hmean))."},
    {"aggregates", vmaf_aggregates, METH_NOARGS, "libvmaf's aggregate metrics."},
    {"to_json", vmaf_to_json, METH_VARARGS, "libvmaf's JSON of the kept frames."},
    {"backend", vmaf_backend, METH_NOARGS, "The backend computing the features."},
    {"pending", vmaf_pending, METH_NOARGS, "Pairs submitted and not yet scored."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot vmaf_slots[] = {
    {Py_tp_doc, "The low-level scorer under fovea.vmaf and fovea.VmafScorer (one thread at a "
                "time)."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, vmaf_init},
    {Py_tp_dealloc, vmaf_dealloc},
    {Py_tp_methods, vmaf_methods},
    {0, NULL}};

static PyType_Spec vmaf_spec = {"fovea._fovea.Vmaf", sizeof(fx_vmaf), 0, Py_TPFLAGS_DEFAULT,
                                vmaf_slots};

static PyObject *builtin_models(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    PyObject *l = PyList_New(0);
    for (int i = 0; l; i++) {
        const char *name = fovea_builtin_vmaf_model(i);
        if (!name)
            break;
        PyObject *s = PyUnicode_FromString(name);
        if (!s || PyList_Append(l, s) < 0) {
            Py_XDECREF(s);
            Py_CLEAR(l);
            break;
        }
        Py_DECREF(s);
    }
    return l;
}

static PyMethodDef quality_functions[] = {
    {"builtin_vmaf_models", builtin_models, METH_NOARGS, "The built-in VMAF models' names."},
    {NULL, NULL, 0, NULL}};

int fx_init_quality(PyObject *m)
{
    if (!fx_add_type(m, &vmaf_spec, "Vmaf"))
        return -1;
    return PyModule_AddFunctions(m, quality_functions);
}
