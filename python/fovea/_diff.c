/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea._fovea.Diff: a fovea_diff (heat map, noise map, change mask, denoise,
 * noise sigma) over Python buffers, the GIL released for the work. */
#include "_fovea.h"

#include <fovea/diff.h>
#include <string.h>

typedef struct {
    PyObject_HEAD fovea_diff *d;
    PyObject *ctx;
    int busy;
} fx_diff;

static int pick(const char *what, const char *name, const char *const *names, int n, int *out)
{
    for (int i = 0; i < n; i++) {
        if (!strcmp(name, names[i])) {
            *out = i;
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "fovea: unknown %s '%s'", what, name);
    return -1;
}

static int diff_init(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ctx",        "measure", "normalize_max", "threshold",         "tile",
                             "noise_mode", "denoise", "auto_k",        "temporal_strength", NULL};
    static const char *const measures[] = {"sum", "max"};
    static const char *const modes[] = {"black", "overlay"};
    static const char *const denoisers[] = {"none", "median3", "gauss5", "temporal"};
    fx_diff *d = (fx_diff *)self;
    PyObject *ctx;
    const char *measure = "sum", *mode = "black", *denoise = "none";
    fovea_diff_settings s;
    fovea_diff_default_settings(&s);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|siiissdi", kwlist, &ctx, &measure,
                                     &s.normalize_max, &s.threshold, &s.tile, &mode, &denoise,
                                     &s.auto_k, &s.temporal_strength))
        return -1;
    fovea_context *c = fx_context_get(ctx);
    int a, b, e;
    if (!c || pick("measure", measure, measures, 2, &a) < 0 ||
        pick("noise mode", mode, modes, 2, &b) < 0 ||
        pick("denoise mode", denoise, denoisers, 4, &e) < 0)
        return -1;
    s.measure = (fovea_diff_measure)a;
    s.noise_mode = (fovea_diff_noise_mode)b;
    s.denoise = (fovea_diff_denoise_mode)e;
    if (d->d) {
        PyErr_SetString(PyExc_RuntimeError, "fovea: Diff initialized twice");
        return -1;
    }
    int st;
    Py_BEGIN_ALLOW_THREADS st = fovea_diff_open(&d->d, c, &s);
    Py_END_ALLOW_THREADS if (st != FOVEA_OK)
    {
        fx_raise(st, c);
        return -1;
    }
    d->ctx = Py_NewRef(ctx);
    return 0;
}

static void diff_dealloc(PyObject *self)
{
    fx_diff *d = (fx_diff *)self;
    fovea_diff_close(&d->d);
    Py_XDECREF(d->ctx);
    PyTypeObject *t = Py_TYPE(self);
    ((freefunc)PyType_GetSlot(t, Py_tp_free))(self);
    Py_DECREF(t);
}

enum { OP_HEATMAP, OP_NOISE, OP_DENOISE };

/* op(a, b, out) or op(in, out): out is written. */
static PyObject *diff_map(fx_diff *d, PyObject *args, int op)
{
    PyObject *sa, *sb = NULL, *so;
    if (op == OP_DENOISE ? !PyArg_ParseTuple(args, "OO", &sa, &so)
                         : !PyArg_ParseTuple(args, "OOO", &sa, &sb, &so))
        return NULL;
    fovea_context *c = ((fx_context *)d->ctx)->ctx;
    fx_frame fa, fb, fo;
    memset(&fb, 0, sizeof fb);
    if (fx_frame_get(sa, &fa, 0, c) < 0)
        return NULL;
    if (sb && fx_frame_get(sb, &fb, 0, c) < 0) {
        fx_frame_release(&fa);
        return NULL;
    }
    if (fx_frame_get(so, &fo, 1, c) < 0 || fx_enter(&d->busy, "Diff") < 0) {
        fx_frame_release(&fa);
        fx_frame_release(&fb);
        if (fo.nviews)
            fx_frame_release(&fo);
        return NULL;
    }
    int st;
    Py_BEGIN_ALLOW_THREADS switch (op)
    {
    case OP_HEATMAP: st = fovea_diff_heatmap(d->d, &fa.f, &fb.f, &fo.f); break;
    case OP_NOISE: st = fovea_diff_noise(d->d, &fa.f, &fb.f, &fo.f); break;
    default: st = fovea_diff_denoise(d->d, &fa.f, &fo.f); break;
    }
    Py_END_ALLOW_THREADS FX_LEAVE(&d->busy);
    fx_frame_release(&fa);
    fx_frame_release(&fb);
    fx_frame_release(&fo);
    if (st != FOVEA_OK)
        return fx_raise(st, ((fx_context *)d->ctx)->ctx);
    Py_RETURN_NONE;
}

static PyObject *diff_heatmap(PyObject *self, PyObject *args)
{
    return diff_map((fx_diff *)self, args, OP_HEATMAP);
}

static PyObject *diff_noise(PyObject *self, PyObject *args)
{
    return diff_map((fx_diff *)self, args, OP_NOISE);
}

static PyObject *diff_denoise(PyObject *self, PyObject *args)
{
    return diff_map((fx_diff *)self, args, OP_DENOISE);
}

/* Two input frames: mask (out: mask result) or sigma. */
static int diff_pair(fx_diff *d, PyObject *args, fovea_diff_mask_result *mask, double *sigma)
{
    PyObject *sa, *sb;
    if (!PyArg_ParseTuple(args, "OO", &sa, &sb))
        return -1;
    fovea_context *c = ((fx_context *)d->ctx)->ctx;
    fx_frame fa, fb;
    if (fx_frame_get(sa, &fa, 0, c) < 0)
        return -1;
    if (fx_frame_get(sb, &fb, 0, c) < 0) {
        fx_frame_release(&fa);
        return -1;
    }
    if (fx_enter(&d->busy, "Diff") < 0) {
        fx_frame_release(&fa);
        fx_frame_release(&fb);
        return -1;
    }
    int st;
    Py_BEGIN_ALLOW_THREADS st = mask ? fovea_diff_mask(d->d, &fa.f, &fb.f, mask)
                                     : fovea_diff_noise_sigma(d->d, &fa.f, &fb.f, sigma);
    Py_END_ALLOW_THREADS FX_LEAVE(&d->busy);
    fx_frame_release(&fa);
    fx_frame_release(&fb);
    if (st != FOVEA_OK) {
        fx_raise(st, ((fx_context *)d->ctx)->ctx);
        return -1;
    }
    return 0;
}

/* mask(ref, cur) -> dict: tile, tiles_x, tiles_y, changed (bytes), list
 * (bytes of int32), changed_tiles, changed_pixels, diff_sum, diff_max, threshold */
static PyObject *diff_mask(PyObject *self, PyObject *args)
{
    fx_diff *d = (fx_diff *)self;
    fovea_diff_mask_result r;
    if (diff_pair(d, args, &r, NULL) < 0)
        return NULL;
    const Py_ssize_t tiles = (Py_ssize_t)r.tiles_x * r.tiles_y;
    return Py_BuildValue(
        "{s:i,s:i,s:i,s:y#,s:y#,s:L,s:L,s:L,s:i,s:i}", "tile", r.tile, "tiles_x", r.tiles_x,
        "tiles_y", r.tiles_y, "changed", (const char *)r.changed, tiles, "list",
        (const char *)r.list, (Py_ssize_t)(r.changed_tiles * (int64_t)sizeof(int32_t)),
        "changed_tiles", (long long)r.changed_tiles, "changed_pixels", (long long)r.changed_pixels,
        "diff_sum", (long long)r.diff_sum, "diff_max", r.diff_max, "threshold", r.threshold);
}

static PyObject *diff_sigma(PyObject *self, PyObject *args)
{
    double sigma = 0;
    if (diff_pair((fx_diff *)self, args, NULL, &sigma) < 0)
        return NULL;
    return PyFloat_FromDouble(sigma);
}

static PyObject *diff_reset(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_diff *d = (fx_diff *)self;
    if (fx_enter(&d->busy, "Diff") < 0)
        return NULL;
    fovea_diff_reset(d->d);
    FX_LEAVE(&d->busy);
    Py_RETURN_NONE;
}

static PyMethodDef diff_methods[] = {
    {"heatmap", diff_heatmap, METH_VARARGS, "heatmap(prev, cur, out)"},
    {"noise", diff_noise, METH_VARARGS, "noise(prev, cur, out)"},
    {"denoise", diff_denoise, METH_VARARGS, "denoise(in, out)"},
    {"mask", diff_mask, METH_VARARGS, "mask(ref, cur) -> dict"},
    {"noise_sigma", diff_sigma, METH_VARARGS, "noise_sigma(prev, cur) -> float"},
    {"reset", diff_reset, METH_NOARGS, "Forget the temporal filter's state."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot diff_slots[] = {
    {Py_tp_doc, "The low-level differencer under fovea.diff (one thread at a time)."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, diff_init},
    {Py_tp_dealloc, diff_dealloc},
    {Py_tp_methods, diff_methods},
    {0, NULL}};

static PyType_Spec diff_spec = {"fovea._fovea.Diff", sizeof(fx_diff), 0, Py_TPFLAGS_DEFAULT,
                                diff_slots};

int fx_init_diff(PyObject *m)
{
    return fx_add_type(m, &diff_spec, "Diff") ? 0 : -1;
}
