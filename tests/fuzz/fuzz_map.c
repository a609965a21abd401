/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fuzz target: the stitch map file decoder (src/stitch/map_file.c). A map that
 * decodes must re-encode to the very same bytes. Each input is decoded as it
 * is and then once more with its two CRCs made right (docs/map-format.md), so
 * that the fuzzer also reaches the checks behind the checksums (ranges, sizes,
 * values) instead of stopping at "checksum mismatch". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "fovea/fovea.h"
#include "stitch/map_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void decode_and_check(const uint8_t *data, size_t size)
{
    fovea_stitch_map m;
    char err[256];
    if (fv_map_decode(data, size, &m, err, sizeof(err)) == FOVEA_OK) {
        uint8_t *buf = NULL;
        size_t len = 0;
        if (fv_map_encode(&m, &buf, &len, err, sizeof(err)) != FOVEA_OK)
            abort();
        if (len != size || memcmp(buf, data, size) != 0)
            abort();
        free(buf);
    }
    fv_stitch_map_free(&m);
}

static uint32_t rd_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* fuzz inputs are small: one crc32 call (its length is a uInt) */
static uint32_t crc_of(const uint8_t *p, size_t n)
{
    return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode_and_check(data, size);
    /* header: header_size at offset 12; its last 16 bytes are payload_size
     * (u64), payload_crc and header_crc */
    if (size < 52)
        return 0;
    const uint32_t hs = rd_u32(data + 12);
    if (hs < 52 || hs > size)
        return 0;
    uint8_t *copy = malloc(size);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    wr_u32(copy + hs - 8, crc_of(copy + hs, size - hs));
    wr_u32(copy + hs - 4, crc_of(copy, hs - 4));
    if (memcmp(copy, data, size) != 0)
        decode_and_check(copy, size);
    free(copy);
    return 0;
}
