/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The arithmetic of one PSNR-HVS block (feature_psnr_hvs.c): Daala's integer
 * 8x8 lifting DCT, the float masking of a block and the 64 weighted errors of
 * a block pair, as the CUDA kernel (psnr_hvs.cu) runs them. The C extractor
 * (psnr_hvs_rows.c) runs the very same operations on 8 blocks side by side
 * with these rounding helpers; test_quality_psnr checks it against
 * hvs_block_terms bit for bit. Static inline; host and device functions under
 * nvcc. */
#ifndef FOVEA_QUALITY_PSNR_HVS_BLOCK_H
#define FOVEA_QUALITY_PSNR_HVS_BLOCK_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define HVS_FN static inline __host__ __device__
#else
#define HVS_FN static inline
#endif

/* a / 2^b rounded toward zero (the sign bit added before the shift) */
HVS_FN int32_t hvs_half_shift(int32_t a, int b)
{
    return (int32_t)(((uint32_t)a >> (32 - b)) + (uint32_t)a) >> b;
}

/* one rotation step: a += or -= (b * k + round) >> s */
HVS_FN int32_t hvs_mul_shift(int32_t b, int32_t k, int s)
{
    return (b * k + (1 << (s - 1))) >> s;
}

/* Daala's 8-point lifting DCT of in[0], in[st], ..., in[7 st] into out[0..7]. */
HVS_FN void hvs_dct8(int32_t *out, const int32_t *in, int st)
{
    int32_t t0 = in[0], t4 = in[st], t2 = in[2 * st], t6 = in[3 * st];
    int32_t t7 = in[4 * st], t3 = in[5 * st], t5 = in[6 * st], t1 = in[7 * st];
    t1 = t0 - t1;
    const int32_t t1h = hvs_half_shift(t1, 1);
    t0 -= t1h;
    t4 += t5;
    const int32_t t4h = hvs_half_shift(t4, 1);
    t5 -= t4h;
    t3 = t2 - t3;
    t2 -= hvs_half_shift(t3, 1);
    t6 += t7;
    const int32_t t6h = hvs_half_shift(t6, 1);
    t7 = t6h - t7;
    t0 += t6h;
    t6 = t0 - t6;
    t2 = t4h - t2;
    t4 = t2 - t4;
    t0 -= hvs_mul_shift(t4, 13573, 15);
    t4 += hvs_mul_shift(t0, 11585, 14);
    t0 -= hvs_mul_shift(t4, 13573, 15);
    t6 -= hvs_mul_shift(t2, 21895, 15);
    t2 += hvs_mul_shift(t6, 15137, 14);
    t6 -= hvs_mul_shift(t2, 21895, 15);
    t3 += hvs_mul_shift(t5, 19195, 15);
    t5 += hvs_mul_shift(t3, 11585, 14);
    t3 -= hvs_mul_shift(t5, 7489, 13);
    t7 = hvs_half_shift(t5, 1) - t7;
    t5 -= t7;
    t3 = t1h - t3;
    t1 -= t3;
    t7 += hvs_mul_shift(t1, 3227, 15);
    t1 -= hvs_mul_shift(t7, 6393, 15);
    t7 += hvs_mul_shift(t1, 3227, 15);
    t5 += hvs_mul_shift(t3, 2485, 13);
    t3 -= hvs_mul_shift(t5, 18205, 15);
    t5 += hvs_mul_shift(t3, 2485, 13);
    out[0] = t0;
    out[1] = t1;
    out[2] = t2;
    out[3] = t3;
    out[4] = t4;
    out[5] = t5;
    out[6] = t6;
    out[7] = t7;
}

/* The 8x8 DCT of b (rows of 8), in place: columns, then rows. */
HVS_FN void hvs_dct8x8(int32_t *b)
{
    int32_t z[64];
    for (int i = 0; i < 8; i++)
        hvs_dct8(z + 8 * i, b + i, 8);
    for (int i = 0; i < 8; i++)
        hvs_dct8(b + 8 * i, z + i, 8);
}

/* The block px's DCT into dct and its masking value: the float means and
 * variances (whole block and quarters, row order), the masked DCT energy
 * (DC skipped), sqrt in double. mask: 64 floats, row-major. */
HVS_FN float hvs_block_mask(const int32_t *px, int32_t *dct, const float *mask)
{
    float means[4] = {0, 0, 0, 0}, vars[4] = {0, 0, 0, 0};
    float gmean = 0, gvar = 0, m = 0;
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 8; j++) {
            const int sub = ((i & 12) >> 2) + ((j & 12) >> 1);
            gmean += (float)px[i * 8 + j];
            means[sub] += (float)px[i * 8 + j];
        }
    }
    gmean /= 64.f;
    for (int i = 0; i < 4; i++)
        means[i] /= 16.f;
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 8; j++) {
            const int sub = ((i & 12) >> 2) + ((j & 12) >> 1);
            gvar += ((float)px[i * 8 + j] - gmean) * ((float)px[i * 8 + j] - gmean);
            vars[sub] += ((float)px[i * 8 + j] - means[sub]) * ((float)px[i * 8 + j] - means[sub]);
        }
    }
    gvar *= 1 / 63.f * 64;
    for (int i = 0; i < 4; i++)
        vars[i] *= 1 / 15.f * 16;
    if (gvar > 0)
        gvar = (vars[0] + vars[1] + vars[2] + vars[3]) / gvar;
    for (int i = 0; i < 64; i++)
        dct[i] = px[i];
    hvs_dct8x8(dct);
    for (int i = 0; i < 8; i++)
        for (int j = (i == 0); j < 8; j++) {
            const int32_t sq = (int32_t)((uint32_t)dct[i * 8 + j] * (uint32_t)dct[i * 8 + j]);
            m += (float)sq * mask[i * 8 + j];
        }
    /* sqrt of the double (C's promotion; C++ would pick the float overload) */
    return (float)(sqrt((double)(m * gvar)) / 32.f);
}

/* The 64 weighted squared errors of a block pair (ps reference, pd
 * distorted samples, row-major) in the order C adds them, into t. csf and
 * mask: the plane's 64 floats, row-major. */
HVS_FN void hvs_block_terms(const int32_t *ps, const int32_t *pd, const float *csf,
                            const float *mask, float *t)
{
    int32_t ds[64], dd[64];
    float sm = hvs_block_mask(ps, ds, mask);
    const float dm = hvs_block_mask(pd, dd, mask);
    if (dm > sm)
        sm = dm;
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 8; j++) {
            const int32_t d = ds[i * 8 + j] - dd[i * 8 + j];
            float err = (float)(d < 0 ? -d : d);
            if (i != 0 || j != 0)
                err = err < sm / mask[i * 8 + j] ? 0 : err - sm / mask[i * 8 + j];
            t[i * 8 + j] = (err * csf[i * 8 + j]) * (err * csf[i * 8 + j]);
        }
    }
}

#undef HVS_FN

#endif
