/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* libFuzzer target for the PNG decoder: any input must give a whole frame or an
 * error, never a crash, leak or out-of-bounds access. Each input is decoded as
 * given, then once more with every chunk CRC made valid, so mutations reach the
 * code behind the CRC checks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "fovea/advanced.h"
#include "fovea/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* PNG's chunk CRC is zlib's crc32 over the chunk type and data */
static uint32_t crc32_png(const uint8_t *p, size_t n)
{
    return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

/* Rewrite the CRC of every complete chunk; returns 1 when one changed. */
static int fix_crcs(uint8_t *p, size_t size)
{
    int changed = 0;
    size_t pos = 8;
    while (pos + 12 <= size) {
        uint32_t len = (uint32_t)p[pos] << 24 | (uint32_t)p[pos + 1] << 16 |
                       (uint32_t)p[pos + 2] << 8 | p[pos + 3];
        if (len > size - pos - 12)
            break;
        uint8_t *crc = p + pos + 8 + len;
        uint32_t c = crc32_png(p + pos + 4, 4 + (size_t)len);
        uint8_t want[4] = {(uint8_t)(c >> 24), (uint8_t)(c >> 16), (uint8_t)(c >> 8), (uint8_t)c};
        if (memcmp(crc, want, 4) != 0) {
            memcpy(crc, want, 4);
            changed = 1;
        }
        pos += 12 + (size_t)len;
    }
    return changed;
}

static void decode_once(const uint8_t *data, size_t size)
{
    fovea_frame f;
    if (fovea_png_decode(NULL, data, size, &f) == FOVEA_OK) {
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
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode_once(data, size);
    if (size > 8) {
        uint8_t *copy = malloc(size);
        if (copy) {
            memcpy(copy, data, size);
            if (fix_crcs(copy, size))
                decode_once(copy, size);
            free(copy);
        }
    }
    return 0;
}
