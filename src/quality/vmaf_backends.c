/* The VMAF backends, in the order backend_pick looks at them. The CUDA table
 * (vmaf_backend_cuda, a vmaf_cuda.c to come) joins the list as
 * BACKEND_CUDA_ENTRY(vmaf_backend_cuda) when it exists: until then CUDA
 * contexts get FOVEA_ERR_NO_DEVICE from fovea_vmaf_open, as the entry would
 * name an undefined symbol. */
#include "quality/vmaf_internal.h"

const backend_info *const vmaf_backends[] = {
    &vmaf_backend_ref.info,
};
const size_t vmaf_backend_count = sizeof vmaf_backends / sizeof vmaf_backends[0];
