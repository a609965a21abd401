/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fuzz target: the rig JSON parser (src/stitch/rig.c). A rig that parses must
 * validate, and write back to JSON that parses to the very same values. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "stitch/rig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fovea_rig rig, back;
    char err[512];
    if (fv_rig_parse((const char *)data, size, &rig, err, sizeof(err)) != FOVEA_OK)
        return 0;
    if (fovea_rig_validate(&rig, NULL) != FOVEA_OK)
        abort();
    char *s = fovea_rig_to_json(&rig);
    if (!s)
        abort();
    if (fv_rig_parse(s, strlen(s), &back, err, sizeof(err)) != FOVEA_OK)
        abort();
    if (memcmp(&rig, &back, sizeof(rig)) != 0)
        abort();
    free(s);
    return 0;
}
