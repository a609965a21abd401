/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Feature lists, histories and tables: creation, counting, and copying a
 * list to / from one frame of a table (KLT's storeFeatures). */
#include <stdlib.h>

#include "core/core.h"
#include "klt/klt_internal.h"

static void feature_init(KLT_Feature f)
{
    f->x = -1.0f;
    f->y = -1.0f;
    f->val = KLT_NOT_FOUND;
    f->aff_img = f->aff_img_gradx = f->aff_img_grady = NULL;
    f->aff_x = f->aff_y = -1.0f;
    f->aff_Axx = 1.0f;
    f->aff_Ayx = 0.0f;
    f->aff_Axy = 0.0f;
    f->aff_Ayy = 1.0f;
}

void klt_feature_clear_affine(KLT_Feature f)
{
    klt_free_float_image(f->aff_img);
    klt_free_float_image(f->aff_img_gradx);
    klt_free_float_image(f->aff_img_grady);
    f->aff_img = f->aff_img_gradx = f->aff_img_grady = NULL;
}

void klt_feature_set(KLT_Feature f, float x, float y, int val)
{
    f->x = x;
    f->y = y;
    f->val = val;
    klt_feature_clear_affine(f);
    f->aff_x = -1.0f;
    f->aff_y = -1.0f;
    f->aff_Axx = 1.0f;
    f->aff_Ayx = 0.0f;
    f->aff_Axy = 0.0f;
    f->aff_Ayy = 1.0f;
}

/* One block: the record, the pointer array, then the features. */
static void *alloc_block(size_t head, int n, KLT_Feature **ptrs)
{
    size_t bytes, a, b;
    if (n < 0 || !fv_mul_size((size_t)n, sizeof(KLT_Feature), &a) ||
        !fv_mul_size((size_t)n, sizeof(KLT_FeatureRec), &b) || !fv_add_size(head, a, &bytes) ||
        !fv_add_size(bytes, b, &bytes))
        return NULL;
    char *blk = malloc(bytes);
    if (!blk)
        return NULL;
    KLT_Feature *p = (KLT_Feature *)(blk + head);
    KLT_Feature first = (KLT_Feature)(blk + head + a);
    for (int i = 0; i < n; i++) {
        p[i] = first + i;
        feature_init(p[i]);
    }
    *ptrs = p;
    return blk;
}

KLT_FeatureList KLTCreateFeatureList(int nFeatures)
{
    KLT_Feature *p;
    KLT_FeatureList fl = alloc_block(sizeof(KLT_FeatureListRec), nFeatures, &p);
    if (!fl)
        return NULL;
    fl->nFeatures = nFeatures;
    fl->feature = p;
    return fl;
}

KLT_FeatureHistory KLTCreateFeatureHistory(int nFrames)
{
    KLT_Feature *p;
    KLT_FeatureHistory fh = alloc_block(sizeof(KLT_FeatureHistoryRec), nFrames, &p);
    if (!fh)
        return NULL;
    fh->nFrames = nFrames;
    fh->feature = p;
    return fh;
}

KLT_FeatureTable KLTCreateFeatureTable(int nFrames, int nFeatures)
{
    /* one block: record, row pointers, cell pointers, cells */
    size_t n, rows, cells, recs, bytes;
    if (nFrames < 0 || nFeatures < 0 || !fv_mul_size((size_t)nFrames, (size_t)nFeatures, &n) ||
        !fv_mul_size((size_t)nFeatures, sizeof(KLT_Feature *), &rows) ||
        !fv_mul_size(n, sizeof(KLT_Feature), &cells) ||
        !fv_mul_size(n, sizeof(KLT_FeatureRec), &recs) ||
        !fv_add_size(sizeof(KLT_FeatureTableRec), rows, &bytes) ||
        !fv_add_size(bytes, cells, &bytes) || !fv_add_size(bytes, recs, &bytes))
        return NULL;
    char *blk = malloc(bytes);
    if (!blk)
        return NULL;
    KLT_FeatureTable ft = (KLT_FeatureTable)blk;
    KLT_Feature **feat = (KLT_Feature **)(blk + sizeof(KLT_FeatureTableRec));
    KLT_Feature *ptrs = (KLT_Feature *)(blk + sizeof(KLT_FeatureTableRec) + rows);
    KLT_Feature first = (KLT_Feature)(blk + sizeof(KLT_FeatureTableRec) + rows + cells);
    for (int j = 0; j < nFeatures; j++) {
        feat[j] = ptrs + (size_t)j * nFrames;
        for (int i = 0; i < nFrames; i++) {
            feat[j][i] = first + (size_t)j * nFrames + i;
            feature_init(feat[j][i]);
        }
    }
    ft->nFrames = nFrames;
    ft->nFeatures = nFeatures;
    ft->feature = feat;
    return ft;
}

void KLTFreeFeatureList(KLT_FeatureList fl)
{
    if (!fl)
        return;
    for (int i = 0; i < fl->nFeatures; i++)
        klt_feature_clear_affine(fl->feature[i]);
    free(fl);
}

void KLTFreeFeatureHistory(KLT_FeatureHistory fh)
{
    free(fh);
}

void KLTFreeFeatureTable(KLT_FeatureTable ft)
{
    free(ft);
}

int KLTCountRemainingFeatures(KLT_FeatureList fl)
{
    int count = 0;
    if (!fl)
        return 0;
    for (int i = 0; i < fl->nFeatures; i++)
        if (fl->feature[i]->val >= 0)
            count++;
    return count;
}

static void copy_xyv(KLT_Feature dst, const KLT_FeatureRec *src)
{
    dst->x = src->x;
    dst->y = src->y;
    dst->val = src->val;
}

void KLTStoreFeatureList(KLT_FeatureList fl, KLT_FeatureTable ft, int frame)
{
    if (!fl || !ft || frame < 0 || frame >= ft->nFrames || fl->nFeatures != ft->nFeatures)
        return;
    for (int j = 0; j < fl->nFeatures; j++)
        copy_xyv(ft->feature[j][frame], fl->feature[j]);
}

void KLTExtractFeatureList(KLT_FeatureList fl, KLT_FeatureTable ft, int frame)
{
    if (!fl || !ft || frame < 0 || frame >= ft->nFrames || fl->nFeatures != ft->nFeatures)
        return;
    for (int j = 0; j < fl->nFeatures; j++)
        copy_xyv(fl->feature[j], ft->feature[j][frame]);
}

void KLTStoreFeatureHistory(KLT_FeatureHistory fh, KLT_FeatureTable ft, int feat)
{
    if (!fh || !ft || feat < 0 || feat >= ft->nFeatures || fh->nFrames != ft->nFrames)
        return;
    for (int i = 0; i < fh->nFrames; i++)
        copy_xyv(ft->feature[feat][i], fh->feature[i]);
}

void KLTExtractFeatureHistory(KLT_FeatureHistory fh, KLT_FeatureTable ft, int feat)
{
    if (!fh || !ft || feat < 0 || feat >= ft->nFeatures || fh->nFrames != ft->nFrames)
        return;
    for (int i = 0; i < fh->nFrames; i++)
        copy_xyv(fh->feature[i], ft->feature[feat][i]);
}
