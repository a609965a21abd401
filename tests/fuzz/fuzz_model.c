/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fuzz target: the VMAF model loader (src/quality/model.c). A model that
 * loads must be internally consistent and predict without touching memory it
 * does not own; everything else must be refused with a message. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "quality/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vmaf_model *m = NULL;
    char err[512];
    err[0] = '\0';
    if (vmaf_model_parse(&m, (const char *)data, size, err, sizeof(err)) != FOVEA_OK) {
        if (m || !err[0])
            abort();
        return 0;
    }
    if (m->n_features < 1 || m->n_features > VMAF_MODEL_MAX_FEATURES || m->n_sv < 1 ||
        m->n_sv > VMAF_MODEL_MAX_SV)
        abort();
    for (int s = 0; s < m->n_sv; s++) {
        int last = 0;
        for (const vmaf_svm_node *n = m->sv[s]; n->index != -1; n++) {
            if (n->index <= last || n->index > m->n_features || !isfinite(n->value))
                abort();
            last = n->index;
        }
    }
    double x[VMAF_MODEL_MAX_FEATURES];
    for (int i = 0; i < VMAF_MODEL_MAX_FEATURES; i++)
        x[i] = 0.5 + 0.01 * i;
    const double y = vmaf_model_predict(m, x, 0);
    (void)vmaf_model_predict(m, x, VMAF_PREDICT_ENABLE_TRANSFORM | VMAF_PREDICT_DISABLE_CLIP);
    if (m->clip_enabled && !(y >= m->clip_min && y <= m->clip_max) && !isnan(y))
        abort();
    vmaf_model_free(&m);
    if (m)
        abort();
    return 0;
}
