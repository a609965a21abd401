/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fuzz target: the import of six float lookup tables (src/stitch/map_import.c,
 * docs/map-format.md) and what the map then does with whatever values they
 * hold (NaN, infinities, denormals, huge weights, coordinates on the image's
 * borders).
 *
 * Input: 4 bytes of sizes (panorama 1..8 x 1..8, camera 1..8 x 1..8), then the
 * six tables' bytes one after the other (lut_left_x, lut_left_y, lut_right_x,
 * lut_right_y, weight_left, weight_right; pano_w * pano_h little-endian float32
 * each). Fewer bytes than that make the last tables short (the importer must
 * reject them). A map that imports must:
 *   - give every pixel weights that are finite, within [0, 1] and sum to 1
 *     (or none at all), exactly as many of them > 0 as it reports;
 *   - save and load to the same bytes (map file round trip);
 *   - stitch RGBA (and NV12 -> I420 when the sizes are even) on the C backend
 *     with automatic color balance without a sanitizer report, opaque exactly
 *     where some camera has weight and black elsewhere. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fovea/fovea.h"
#include "stitch/map_import.h"

#include "fuzz_stitch_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const table_names[6] = {"lut_left_x.bin",  "lut_left_y.bin",
                                           "lut_right_x.bin", "lut_right_y.bin",
                                           "weight_left.bin", "weight_right.bin"};

static char dir[64];

static void cleanup(void)
{
    char path[128];
    for (int t = 0; t < 6; t++) {
        snprintf(path, sizeof(path), "%s/%s", dir, table_names[t]);
        unlink(path);
    }
    rmdir(dir);
}

static void setup(void)
{
    if (dir[0])
        return;
    snprintf(dir, sizeof(dir), "/tmp/fovea-fuzz-tables.XXXXXX");
    if (!mkdtemp(dir))
        abort();
    atexit(cleanup);
}

static void write_file(const char *name, const uint8_t *p, size_t n)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || (n && fwrite(p, 1, n, fp) != n) || fclose(fp) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    setup();
    const int pw = 1 + data[0] % 8, ph = 1 + data[1] % 8;
    const int cw = 1 + data[2] % 8, ch = 1 + data[3] % 8;
    const size_t table = (size_t)pw * (size_t)ph * 4;
    const uint8_t *p = data + 4;
    size_t left = size - 4;
    for (int t = 0; t < 6; t++) {
        size_t n = left < table ? left : table;
        write_file(table_names[t], p, n);
        p += n;
        left -= n;
    }
    fovea_stitch_map m;
    char err[512];
    int rc = fv_map_import_tables(dir, pw, ph, cw, ch, 8.0f, &m, err, sizeof(err));
    if (size - 4 < 6 * table) {
        if (rc == FOVEA_OK)
            abort(); /* a short table must be rejected */
        return 0;
    }
    if (rc != FOVEA_OK) {
        if (rc != FOVEA_ERR_CORRUPT || !strstr(err, "weight"))
            abort(); /* full tables fail only on a weight */
        return 0;
    }
    uint8_t has[64];
    fuzz_check_weights(&m, has);
    fuzz_check_file_round_trip(&m);
    fuzz_stitch(fuzz_cpu_context(), &m, FOVEA_PIX_RGBA, has, data, size);
    if (fuzz_map_even(&m))
        fuzz_stitch(fuzz_cpu_context(), &m, FOVEA_PIX_NV12, has, data, size);
    fv_stitch_map_free(&m);
    return 0;
}
