/* Fuzz target: the stitch map file decoder (src/stitch/map_file.c). A map that
 * decodes must re-encode to the very same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "stitch/map_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fovea_stitch_map m;
    char err[256];
    if (fovea_map_decode(data, size, &m, err, sizeof(err)) == FOVEA_OK) {
        uint8_t *buf = NULL;
        size_t len = 0;
        if (fovea_map_encode(&m, &buf, &len, err, sizeof(err)) != FOVEA_OK)
            abort();
        if (len != size || memcmp(buf, data, size) != 0)
            abort();
        free(buf);
    }
    fovea_stitch_map_free(&m);
    return 0;
}
