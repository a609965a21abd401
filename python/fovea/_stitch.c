/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea._fovea.Stitcher: a remap map (from a rig file, rig JSON or a map
 * file) and a fovea_stitcher over it, fed camera frames as Python buffers. */
#include "_fovea.h"

#include <fovea/stitch.h>
#include <string.h>

typedef struct {
    PyObject_HEAD fovea_stitch_map *map;
    fovea_stitcher *st;
    PyObject *ctx;
    int busy;
} fx_stitch;

static int stitch_init(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"ctx",
                             "rig",
                             "rig_json",
                             "map",
                             "color",
                             "deterministic",
                             "auto_interval",
                             "auto_smoothing",
                             "yuv_full_range",
                             NULL};
    static const char *const modes[] = {"off", "fixed", "auto"};
    fx_stitch *s = (fx_stitch *)self;
    PyObject *ctx;
    const char *rig = NULL, *map = NULL, *color = "auto";
    const char *json = NULL;
    Py_ssize_t json_len = 0;
    fovea_stitcher_settings set;
    fovea_stitcher_default_settings(&set);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|zz#zsiifi", kwlist, &ctx, &rig, &json, &json_len,
                                     &map, &color, &set.deterministic, &set.auto_interval,
                                     &set.auto_smoothing, &set.yuv_full_range))
        return -1;
    fovea_context *c = fx_context_get(ctx);
    if (!c)
        return -1;
    if (!!rig + !!json + !!map != 1) {
        PyErr_SetString(PyExc_ValueError, "fovea: give one of rig=, rig_json= or map=");
        return -1;
    }
    int mode = -1;
    for (int i = 0; i < 3; i++)
        if (!strcmp(color, modes[i]))
            mode = i;
    if (mode < 0) {
        PyErr_Format(PyExc_ValueError, "fovea: unknown color mode '%s' (off, fixed, auto)", color);
        return -1;
    }
    set.color = (fovea_color_mode)mode;
    if (s->st) {
        PyErr_SetString(PyExc_RuntimeError, "fovea: Stitcher initialized twice");
        return -1;
    }
    int st;
    Py_BEGIN_ALLOW_THREADS if (map) st = fovea_stitch_map_open_file(&s->map, c, map);
    else if (rig) st = fovea_stitch_map_open_rig_file(&s->map, c, rig);
    else
    {
        fovea_rig *r = NULL;
        fovea_stitch_map_settings ms;
        fovea_stitch_map_default_settings(&ms);
        st = fovea_rig_open_json(&r, c, json, (size_t)json_len);
        if (st == FOVEA_OK)
            st = fovea_stitch_map_open_rig(&s->map, c, r, &ms, NULL);
        fovea_rig_close(&r);
    }
    if (st == FOVEA_OK)
        st = fovea_stitcher_open(&s->st, c, s->map, &set);
    Py_END_ALLOW_THREADS if (st != FOVEA_OK)
    {
        fx_raise(st, c);
        return -1;
    }
    s->ctx = Py_NewRef(ctx);
    return 0;
}

static void stitch_dealloc(PyObject *self)
{
    fx_stitch *s = (fx_stitch *)self;
    fovea_stitcher_close(&s->st);
    fovea_stitch_map_close(&s->map);
    Py_XDECREF(s->ctx);
    PyTypeObject *t = Py_TYPE(self);
    ((freefunc)PyType_GetSlot(t, Py_tp_free))(self);
    Py_DECREF(t);
}

/* geometry() -> (pano_w, pano_h, ((cam_w, cam_h), ...)) */
static PyObject *stitch_geometry(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_stitch *s = (fx_stitch *)self;
    int pw, ph, n;
    fovea_stitch_map_geometry(s->map, &pw, &ph, &n);
    PyObject *cams = PyTuple_New(n);
    for (int i = 0; cams && i < n; i++) {
        int w, h;
        fovea_stitch_map_camera_size(s->map, i, &w, &h);
        PyObject *e = Py_BuildValue("(ii)", w, h);
        if (!e) {
            Py_CLEAR(cams);
            break;
        }
        PyTuple_SetItem(cams, i, e);
    }
    return cams ? Py_BuildValue("(iiN)", pw, ph, cams) : NULL;
}

/* process((spec, ...), out_spec) */
static PyObject *stitch_process(PyObject *self, PyObject *args)
{
    fx_stitch *s = (fx_stitch *)self;
    fovea_context *c = ((fx_context *)s->ctx)->ctx;
    PyObject *inputs, *out;
    if (!PyArg_ParseTuple(args, "O!O", &PyTuple_Type, &inputs, &out))
        return NULL;
    const Py_ssize_t n = PyTuple_Size(inputs);
    if (n < 1 || n > FOVEA_STITCH_MAX_CAMERAS) {
        PyErr_Format(PyExc_ValueError, "fovea: 1..%d camera frames", FOVEA_STITCH_MAX_CAMERAS);
        return NULL;
    }
    fx_frame in[FOVEA_STITCH_MAX_CAMERAS], fo;
    const fovea_frame *ptr[FOVEA_STITCH_MAX_CAMERAS];
    Py_ssize_t got = 0;
    PyObject *ret = NULL;
    for (; got < n; got++) {
        if (fx_frame_get(PyTuple_GetItem(inputs, got), &in[got], 0, c) < 0)
            goto done;
        ptr[got] = &in[got].f;
    }
    if (fx_frame_get(out, &fo, 1, c) < 0)
        goto done;
    if (fx_enter(&s->busy, "Stitcher") == 0) {
        int st;
        Py_BEGIN_ALLOW_THREADS st = fovea_stitcher_process(s->st, ptr, (int)n, &fo.f);
        Py_END_ALLOW_THREADS FX_LEAVE(&s->busy);
        if (st != FOVEA_OK)
            fx_raise(st, ((fx_context *)s->ctx)->ctx);
        else
            ret = Py_NewRef(Py_None);
    }
    fx_frame_release(&fo);
done:
    for (Py_ssize_t i = 0; i < got; i++)
        fx_frame_release(&in[i]);
    return ret;
}

static PyObject *stitch_get_color(PyObject *self, PyObject *unused)
{
    (void)unused;
    fx_stitch *s = (fx_stitch *)self;
    int pw, ph, n;
    fovea_stitch_map_geometry(s->map, &pw, &ph, &n);
    fovea_color_correction cc[FOVEA_STITCH_MAX_CAMERAS];
    int st = fovea_stitcher_get_color(s->st, cc, n);
    if (st != FOVEA_OK)
        return fx_raise(st, ((fx_context *)s->ctx)->ctx);
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) {
        PyObject *e = Py_BuildValue("(dddd)", (double)cc[i].gain[0], (double)cc[i].gain[1],
                                    (double)cc[i].gain[2], (double)cc[i].gamma);
        if (!e) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SetItem(t, i, e);
    }
    return t;
}

/* set_color(((r, g, b, gamma), ...)) */
static PyObject *stitch_set_color(PyObject *self, PyObject *arg)
{
    fx_stitch *s = (fx_stitch *)self;
    PyObject *t = PySequence_Tuple(arg);
    if (!t)
        return NULL;
    const Py_ssize_t n = PyTuple_Size(t);
    fovea_color_correction cc[FOVEA_STITCH_MAX_CAMERAS];
    if (n > FOVEA_STITCH_MAX_CAMERAS) {
        Py_DECREF(t);
        PyErr_SetString(PyExc_ValueError, "fovea: too many corrections");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyArg_ParseTuple(PyTuple_GetItem(t, i), "ffff", &cc[i].gain[0], &cc[i].gain[1],
                              &cc[i].gain[2], &cc[i].gamma)) {
            Py_DECREF(t);
            return NULL;
        }
    }
    Py_DECREF(t);
    int st = fovea_stitcher_set_color(s->st, cc, (int)n);
    if (st != FOVEA_OK)
        return fx_raise(st, ((fx_context *)s->ctx)->ctx);
    Py_RETURN_NONE;
}

static PyMethodDef stitch_methods[] = {
    {"geometry", stitch_geometry, METH_NOARGS, "(pano_w, pano_h, camera sizes)"},
    {"process", stitch_process, METH_VARARGS, "process(inputs, out)"},
    {"get_color", stitch_get_color, METH_NOARGS, "the corrections in use"},
    {"set_color", stitch_set_color, METH_O, "set fixed corrections"},
    {NULL, NULL, 0, NULL}};

static PyType_Slot stitch_slots[] = {
    {Py_tp_doc, "The low-level stitcher under fovea.Stitcher (one thread at a time)."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, stitch_init},
    {Py_tp_dealloc, stitch_dealloc},
    {Py_tp_methods, stitch_methods},
    {0, NULL}};

static PyType_Spec stitch_spec = {"fovea._fovea.Stitch", sizeof(fx_stitch), 0, Py_TPFLAGS_DEFAULT,
                                  stitch_slots};

int fx_init_stitch(PyObject *m)
{
    return fx_add_type(m, &stitch_spec, "Stitch") ? 0 : -1;
}
