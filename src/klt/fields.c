/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The tracking-context fields by name (as KLTPrintTrackingContext and the
 * golden cases' params.json spell them): fovea_klt_set_field,
 * fovea_klt_get_field, fovea_klt_field_name. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "klt/klt_internal.h"

typedef struct klt_field {
    const char *name;
    size_t off;
    int is_float; /* float field, else int (KLT_BOOL is an int) */
} klt_field;

/* KLT 1.3.4's user fields, in the order of KLT_TrackingContextRec */
#define KLT_FI(n)                                                                                  \
    {                                                                                              \
#n, offsetof(KLT_TrackingContextRec, n), 0                                                 \
    }
#define KLT_FF(n)                                                                                  \
    {                                                                                              \
#n, offsetof(KLT_TrackingContextRec, n), 1                                                 \
    }
static const klt_field klt_fields[] = {
    KLT_FI(mindist),
    KLT_FI(window_width),
    KLT_FI(window_height),
    KLT_FI(sequentialMode),
    KLT_FI(smoothBeforeSelecting),
    KLT_FI(writeInternalImages),
    KLT_FI(lighting_insensitive),
    KLT_FI(min_eigenvalue),
    KLT_FF(min_determinant),
    KLT_FF(min_displacement),
    KLT_FI(max_iterations),
    KLT_FF(max_residue),
    KLT_FF(grad_sigma),
    KLT_FF(smooth_sigma_fact),
    KLT_FF(pyramid_sigma_fact),
    KLT_FF(step_factor),
    KLT_FI(nSkippedPixels),
    KLT_FI(borderx),
    KLT_FI(bordery),
    KLT_FI(nPyramidLevels),
    KLT_FI(subsampling),
    KLT_FI(affine_window_width),
    KLT_FI(affine_window_height),
    KLT_FI(affineConsistencyCheck),
    KLT_FI(affine_max_iterations),
    KLT_FF(affine_max_residue),
    KLT_FF(affine_min_displacement),
    KLT_FF(affine_max_displacement_differ),
};
#undef KLT_FI
#undef KLT_FF
#define KLT_NFIELDS ((int)(sizeof(klt_fields) / sizeof(klt_fields[0])))

static const klt_field *find_field(const char *name)
{
    for (int i = 0; i < KLT_NFIELDS; i++)
        if (strcmp(klt_fields[i].name, name) == 0)
            return &klt_fields[i];
    return NULL;
}

/* The field called name, or NULL after recording the failure on tc. */
static const klt_field *field_or_fail(KLT_TrackingContext tc, const char *name, const char *who)
{
    const klt_field *f = name ? find_field(name) : NULL;
    if (!f)
        klt_fail(tc, FOVEA_ERR_INVALID_ARG, "(%s) unknown tracking-context field '%.64s'", who,
                 name ? name : "(null)");
    return f;
}

int fovea_klt_set_field(KLT_TrackingContext tc, const char *name, double value)
{
    if (!tc || !tc->priv)
        return FOVEA_ERR_INVALID_ARG;
    const klt_field *f = field_or_fail(tc, name, "fovea_klt_set_field");
    if (!f)
        return FOVEA_ERR_INVALID_ARG;
    char *p = (char *)tc + f->off;
    if (f->is_float) {
        if (!isfinite(value) || fabs(value) > FLT_MAX)
            return klt_fail(tc, FOVEA_ERR_INVALID_ARG,
                            "(fovea_klt_set_field) %s = %g is not a finite float", f->name, value);
        float x = (float)value;
        memcpy(p, &x, sizeof x);
    } else {
        if (!isfinite(value) || value != floor(value) || value < INT_MIN || value > INT_MAX)
            return klt_fail(tc, FOVEA_ERR_INVALID_ARG,
                            "(fovea_klt_set_field) %s = %g is not an int", f->name, value);
        int x = (int)value;
        memcpy(p, &x, sizeof x);
    }
    return FOVEA_OK;
}

int fovea_klt_get_field(const KLT_TrackingContext tc, const char *name, double *value)
{
    if (!tc || !tc->priv || !value)
        return FOVEA_ERR_INVALID_ARG;
    const klt_field *f = field_or_fail(tc, name, "fovea_klt_get_field");
    if (!f)
        return FOVEA_ERR_INVALID_ARG;
    const char *p = (const char *)tc + f->off;
    if (f->is_float) {
        float x;
        memcpy(&x, p, sizeof x);
        *value = x;
    } else {
        int x;
        memcpy(&x, p, sizeof x);
        *value = x;
    }
    return FOVEA_OK;
}

const char *fovea_klt_field_name(int index)
{
    return index >= 0 && index < KLT_NFIELDS ? klt_fields[index].name : NULL;
}
