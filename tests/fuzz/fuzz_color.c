/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fuzz target: per-camera color corrections as JSON (src/stitch/color_json.c,
 * `fovea stitch --color fixed:FILE`). Corrections that parse (for 1, 2 or 3
 * cameras) must lie in (0, FOVEA_COLOR_JSON_MAX], write back to JSON that
 * parses to the very same floats, and give correction tables (RGB and the four
 * YUV conventions) with every entry finite and every curve within [0, 255]. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/stitch.h"
#include "stitch/stitch_cuda.h"
#include "stitch/stitch_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static stitch_tables tables; /* large: not on the stack */

static void check_tables(const fovea_color_correction *cc, int n, int flags)
{
    fv_stitch_build_tables(cc, n, flags, &tables);
    for (int c = 0; c < n; c++) {
        for (int k = 0; k < 3; k++)
            for (int q = 0; q < FOVEA_LUT_SIZE; q++)
                if (!(tables.lut[c][k][q] >= 0.0f && tables.lut[c][k][q] <= 255.0f))
                    abort();
        if (flags & STITCH_YUV)
            for (int y = 0; y < STITCH_CHROMA_CODES; y++)
                for (int k = 0; k < 4; k++)
                    if (!isfinite(tables.chroma[c][y][k]))
                        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    for (int n = 1; n <= 3; n++) {
        fovea_color_correction cc[3], back[3];
        if (fovea_color_corrections_from_json(NULL, text, size, n, cc) != FOVEA_OK) {
            if (!fovea_last_error(NULL)[0])
                abort(); /* a failure always says why */
            continue;
        }
        for (int c = 0; c < n; c++)
            for (int k = 0; k < 4; k++) {
                float v = k < 3 ? cc[c].gain[k] : cc[c].gamma;
                if (!(v > 0.0f && v <= (float)FOVEA_COLOR_JSON_MAX))
                    abort();
            }
        char *s = fovea_color_corrections_to_json(cc, n);
        if (!s)
            abort();
        if (fovea_color_corrections_from_json(NULL, s, strlen(s), n, back) != FOVEA_OK ||
            memcmp(cc, back, sizeof(cc[0]) * (size_t)n) != 0)
            abort();
        free(s);
        check_tables(cc, n, 0);
        check_tables(cc, n, STITCH_YUV);
        check_tables(cc, n, STITCH_YUV | STITCH_YUV_FULL);
        check_tables(cc, n, STITCH_YUV | STITCH_YUV_BT709);
        check_tables(cc, n, STITCH_YUV | STITCH_YUV_FULL | STITCH_YUV_BT709);
    }
    return 0;
}
