/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The VMAF backends, in the order backend_pick looks at them. */
#include "quality/vmaf_internal.h"

const backend_info *const vmaf_backends[] = {&vmaf_backend_ref.info,
                                             BACKEND_CUDA_ENTRY(vmaf_backend_cuda)};
const size_t vmaf_backend_count = sizeof vmaf_backends / sizeof vmaf_backends[0];
