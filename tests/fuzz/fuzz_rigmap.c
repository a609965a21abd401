/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fuzz target: from rig JSON to a stitch: parse, validate, build the map
 * (src/stitch/map_build.c: projections, lens models, grid steps), its coverage
 * figures, then the checks of fuzz_stitch_checks.h (weights of every pixel,
 * map file round trip, a C-backend stitch). fuzz_rig covers the parser alone;
 * this one looks for what extreme but valid numbers (focal lengths, distortion
 * coefficients, angles, tiny images) do to the geometry. Rigs whose panorama
 * or cameras exceed 160 x 120 pixels are skipped (time, not validity). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "stitch/coverage.h"
#include "stitch/map_build.h"
#include "stitch/rig.h"

#include "fuzz_stitch_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_W 160
#define FUZZ_MAX_H 120

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fovea_rig rig;
    char err[512];
    if (fv_rig_parse((const char *)data, size, &rig, err, sizeof(err)) != FOVEA_OK ||
        fovea_rig_validate(&rig, NULL) != FOVEA_OK)
        return 0;
    if (rig.width > FUZZ_MAX_W || rig.height > FUZZ_MAX_H)
        return 0;
    for (int c = 0; c < rig.num_cameras; c++)
        if (rig.cameras[c].width > FUZZ_MAX_W || rig.cameras[c].height > FUZZ_MAX_H)
            return 0;
    fovea_context *ctx = fuzz_cpu_context();
    fovea_stitch_map m;
    memset(&m, 0, sizeof(m));
    fv_map_build_options opt;
    fv_map_build_default_options(&opt);
    const int rc = fv_map_build(ctx, &rig, &m, &opt);
    if (rc == FOVEA_ERR_NOMEM)
        return 0;
    if (rc != FOVEA_OK) {
        fprintf(stderr, "fuzz: map build: status %d: %s\n", rc, fovea_last_error(ctx));
        abort(); /* a validated rig always gives a map */
    }
    fovea_stitch_coverage cov;
    if (fovea_stitch_map_coverage(&m, &cov) != FOVEA_OK)
        abort();
    static uint8_t has[FUZZ_MAX_W * FUZZ_MAX_H];
    fuzz_check_weights(&m, has);
    fuzz_check_file_round_trip(&m);
    fuzz_stitch(ctx, &m, FOVEA_PIX_RGBA, has, data, size);
    if (fuzz_map_even(&m))
        fuzz_stitch(ctx, &m, FOVEA_PIX_NV12, has, data, size);
    fv_stitch_map_free(&m);
    return 0;
}
