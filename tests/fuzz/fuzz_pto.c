/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fuzz target: the Hugin project parser (src/stitch/pto.c). A project that parses
 * must validate, project every camera's center and write rig JSON that reads back
 * to the very same values. */
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
    if (fv_pto_parse((const char *)data, size, &rig, NULL, err, sizeof(err)) != FOVEA_OK)
        return 0;
    if (fovea_rig_validate(&rig, NULL) != FOVEA_OK)
        abort();
    for (int c = 0; c < rig.num_cameras; c++) {
        double d[3], u, v;
        if (fovea_rig_camera_to_dir(&rig, c, rig.cameras[c].cx, rig.cameras[c].cy, d))
            (void)fovea_rig_dir_to_camera(&rig, c, d, &u, &v);
    }
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
