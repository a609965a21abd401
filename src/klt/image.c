/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Float images of the KLT system: reusable per-context buffers and the
 * feature patches (KLT_FloatImage) kept by the affine consistency check. */
#include <stdlib.h>

#include "core/core.h"
#include "klt/klt_internal.h"

int klt_image_alloc(klt_image *im, int ncols, int nrows)
{
    size_t n;
    if (ncols < 0 || nrows < 0 || !fv_mul_size((size_t)ncols, (size_t)nrows, &n))
        return FOVEA_ERR_NOMEM;
    if (n > im->cap || !im->data) {
        size_t bytes;
        if (!fv_mul_size(n ? n : 1, sizeof(float), &bytes))
            return FOVEA_ERR_NOMEM;
        float *d = malloc(bytes);
        if (!d)
            return FOVEA_ERR_NOMEM;
        free(im->data);
        im->data = d;
        im->cap = n ? n : 1;
    }
    im->ncols = ncols;
    im->nrows = nrows;
    return FOVEA_OK;
}

void klt_image_free(klt_image *im)
{
    free(im->data);
    im->data = NULL;
    im->cap = 0;
    im->ncols = im->nrows = 0;
}

void klt_to_float(const KLT_PixelType *img, int ncols, int nrows, klt_image *out)
{
    size_t n = (size_t)ncols * (size_t)nrows;
    out->ncols = ncols;
    out->nrows = nrows;
    for (size_t i = 0; i < n; i++)
        out->data[i] = (float)img[i];
}

KLT_FloatImage klt_create_float_image(int ncols, int nrows)
{
    KLT_FloatImage im = malloc(sizeof(*im));
    if (!im)
        return NULL;
    im->data = malloc((size_t)ncols * (size_t)nrows * sizeof(float));
    if (!im->data) {
        free(im);
        return NULL;
    }
    im->ncols = ncols;
    im->nrows = nrows;
    return im;
}

void klt_free_float_image(KLT_FloatImage im)
{
    if (!im)
        return;
    free(im->data);
    free(im);
}
