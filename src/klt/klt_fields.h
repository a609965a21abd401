/* The tracking-context fields by name (as params.json of the golden cases and
 * KLTPrintTrackingContext spell them), for tests and benchmarks that set or
 * check a context from a description. */
#ifndef FOVEA_KLT_FIELDS_H
#define FOVEA_KLT_FIELDS_H

#include <stddef.h>
#include <string.h>

#include "fovea/klt.h"

typedef struct klt_field {
    const char *name;
    size_t off;
    int is_float;
} klt_field;

#define KLT_FI(n) {#n, offsetof(KLT_TrackingContextRec, n), 0}
#define KLT_FF(n) {#n, offsetof(KLT_TrackingContextRec, n), 1}
static const klt_field klt_fields[] = {
    KLT_FI(mindist), KLT_FI(window_width), KLT_FI(window_height), KLT_FI(sequentialMode),
    KLT_FI(smoothBeforeSelecting), KLT_FI(writeInternalImages), KLT_FI(lighting_insensitive),
    KLT_FI(min_eigenvalue), KLT_FF(min_determinant), KLT_FF(min_displacement),
    KLT_FI(max_iterations), KLT_FF(max_residue), KLT_FF(grad_sigma), KLT_FF(smooth_sigma_fact),
    KLT_FF(pyramid_sigma_fact), KLT_FF(step_factor), KLT_FI(nSkippedPixels), KLT_FI(borderx),
    KLT_FI(bordery), KLT_FI(nPyramidLevels), KLT_FI(subsampling), KLT_FI(affine_window_width),
    KLT_FI(affine_window_height), KLT_FI(affineConsistencyCheck), KLT_FI(affine_max_iterations),
    KLT_FF(affine_max_residue), KLT_FF(affine_min_displacement),
    KLT_FF(affine_max_displacement_differ),
};
#undef KLT_FI
#undef KLT_FF
#define KLT_NFIELDS (sizeof(klt_fields) / sizeof(klt_fields[0]))

static inline const klt_field *klt_find_field(const char *name)
{
    for (size_t i = 0; i < KLT_NFIELDS; i++)
        if (strcmp(klt_fields[i].name, name) == 0)
            return &klt_fields[i];
    return NULL;
}

static inline void klt_set_field(KLT_TrackingContext tc, const klt_field *f, double v)
{
    char *p = (char *)tc + f->off;
    if (f->is_float) {
        float x = (float)v;
        memcpy(p, &x, sizeof x);
    } else {
        int x = (int)v;
        memcpy(p, &x, sizeof x);
    }
}

static inline double klt_get_field(KLT_TrackingContext tc, const klt_field *f)
{
    const char *p = (const char *)tc + f->off;
    if (f->is_float) {
        float x;
        memcpy(&x, p, sizeof x);
        return x;
    }
    int x;
    memcpy(&x, p, sizeof x);
    return x;
}

#endif
