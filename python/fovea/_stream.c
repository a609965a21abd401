/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea._fovea stream types (the delta streamer): filled in below when the
 * library has the streamer (FOVEA_HAVE_STREAM). */
#include "_fovea.h"

int fx_init_stream(PyObject *m)
{
    return PyModule_AddIntConstant(m, "HAVE_STREAM", 0);
}
