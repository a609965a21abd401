/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The extension's shared pieces: the Error type, the Context type, frames made
 * from Python buffers, and the one-thread-at-a-time guard of every object. */
#ifndef FOVEA_PY_FOVEA_H
#define FOVEA_PY_FOVEA_H

#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <fovea/fovea.h>

/* fovea.Error: the library's status (.status) and message (str(e)). */
extern PyObject *fx_error;

/* The Context type and its instances. */
typedef struct {
    PyObject_HEAD fovea_context *ctx;
} fx_context;
extern PyObject *fx_context_type;

/* ctx as a fovea_context (a Context instance), or NULL with TypeError. */
fovea_context *fx_context_get(PyObject *ctx);

/* Raise fovea.Error for status st with ctx's last error (or the status's
 * name); returns NULL for `return fx_raise(...)`. */
PyObject *fx_raise(int st, const fovea_context *ctx);

/* A frame over the planes of a Python frame spec: the tuple
 * (pixfmt name, width, height, (planes...)) the Python layer makes, each
 * plane a buffer (host memory) or a device plane, the tuple
 * (ptr, rows, row_bytes, stride, device, stream, readonly, owner) of GPU
 * memory (fovea/_device.py: DeviceArray._plane). One frame's planes are all
 * host or all device memory. */
typedef struct {
    fovea_frame f;
    Py_buffer view[4];
    int nviews;
    fovea_context *ctx; /* device frames: the context ordered with stream[] */
    void *stream[4];    /* the planes' own CUDA streams (none: NULL) */
    int nstreams;
} fx_frame;

/* Fill out from spec (writable: the planes are written) for work on ctx:
 * device planes need a CUDA context of their device, and ctx's stream waits
 * for their streams. 0, or -1 with ValueError/TypeError (fovea.Error for a
 * failed wait). fx_frame_release gives the buffers back and makes the
 * planes' streams wait for the work queued on ctx meanwhile. */
int fx_frame_get(PyObject *spec, fx_frame *out, int writable, fovea_context *ctx);
void fx_frame_release(fx_frame *fr);

/* Objects are used by one thread at a time: a second thread entering while
 * the first has released the GIL gets RuntimeError instead of a data race. */
int fx_enter(int *busy, const char *what);
#define FX_LEAVE(busy) (*(busy) = 0)

/* Add a type made from spec to module m as name; returns the type or NULL. */
PyObject *fx_add_type(PyObject *m, PyType_Spec *spec, const char *name);

/* Submodules' type registration (each adds its types to the module). */
int fx_init_io(PyObject *m);
int fx_init_quality(PyObject *m);
int fx_init_diff(PyObject *m);
int fx_init_klt(PyObject *m);
int fx_init_stitch(PyObject *m);
int fx_init_stream(PyObject *m);
int fx_init_device(PyObject *m);

#endif
