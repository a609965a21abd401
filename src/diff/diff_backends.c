/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The differencing backends, in the order backend_pick looks at them. */
#include "diff/diff_internal.h"

const backend_info *const diff_backends[] = {&diff_backend_ref.info,
                                             BACKEND_CUDA_ENTRY(diff_backend_cuda)};
const size_t diff_backend_count = sizeof diff_backends / sizeof diff_backends[0];
