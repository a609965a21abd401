/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea_hwdec_caps in builds without CUDA: there is no GPU decoder to ask. */
#include "core/core.h"
#include "fovea/io.h"

int fovea_hwdec_caps(fovea_context *ctx, fovea_hwdec_cap *caps, int max)
{
    (void)caps;
    (void)max;
    return fv_ctx_error(ctx, FOVEA_ERR_NO_DEVICE,
                        "GPU decoding (NVDEC): fovea was built without CUDA");
}
