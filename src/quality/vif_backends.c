/* The VIF backends, in the order backend_pick looks at them. */
#include "quality/vif_internal.h"

const backend_info *const vif_backends[] = {
    &vif_backend_ref.info,
    BACKEND_CUDA_ENTRY(vif_backend_cuda)
};
const size_t vif_backend_count = sizeof vif_backends / sizeof vif_backends[0];
