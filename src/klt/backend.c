/* KLT backends: the table of processing functions each context dispatches to.
 * Only the C reference exists so far; a CUDA backend adds its table here. */
#include "klt/klt_internal.h"

static const klt_backend backend_ref = {"cpu", klt_ref_select, klt_ref_track};

const klt_backend *klt_backend_pick(fovea_backend b)
{
    /* FOVEA_BACKEND_CUDA and AUTO run on the C reference until the CUDA
     * backend exists (documented in docs/klt.md). */
    (void)b;
    return &backend_ref;
}
