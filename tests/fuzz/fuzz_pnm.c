/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* libFuzzer target for the PNM decoder: any input must give a whole frame or an
 * error, never a crash, leak or out-of-bounds access. */
#include <stdint.h>
#include <string.h>

#include "fovea/advanced.h"
#include "fovea/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fovea_frame f;
    if (fovea_pnm_decode(NULL, data, size, &f) == FOVEA_OK) {
        /* Touch every row so a frame smaller than it claims is caught by ASan. */
        volatile uint8_t sum = 0;
        size_t row = fovea_plane_row_bytes(f.fmt, f.width, 0);
        for (int y = 0; y < f.height; y++) {
            const uint8_t *p = f.data[0] + (ptrdiff_t)y * f.stride[0];
            sum = (uint8_t)(sum + p[0] + p[row - 1]);
        }
        (void)sum;
    }
    fovea_frame_free(NULL, &f);
    return 0;
}
