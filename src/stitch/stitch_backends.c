/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The stitch backends, in the order backend_pick looks at them. */
#include "stitch/stitch_internal.h"

const backend_info *const stitch_backends[] = {&stitch_backend_ref.info,
                                               BACKEND_CUDA_ENTRY(stitch_backend_cuda)};
const size_t stitch_backend_count = sizeof stitch_backends / sizeof stitch_backends[0];
