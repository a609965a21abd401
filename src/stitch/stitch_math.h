/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Conventions and integer arithmetic shared by both stitch backends, the C
 * reference (stitch_ref.c) and the CUDA kernels (stitch.cu): a plain header,
 * usable from C and CUDA. */
#ifndef FOVEA_STITCH_MATH_H
#define FOVEA_STITCH_MATH_H

/* A function both backends call: inlined on the host and on the device. */
#ifndef FOVEA_HD
#ifdef __CUDACC__
#define FOVEA_HD __host__ __device__ __forceinline__
#else
#define FOVEA_HD static inline
#endif
#endif

/* The inputs' families (fv_stitch_input_kind), as the kernels receive them
 * (stitch_kernel_head.in_format). */
typedef enum { STITCH_IN_RGBA, STITCH_IN_RGB24, STITCH_IN_NV12, STITCH_IN_I420 } stitch_input_kind;

/* 1 for the YUV families (NV12, I420), 0 for RGB(A) */
FOVEA_HD int stitch_input_is_yuv(stitch_input_kind k)
{
    return k == STITCH_IN_NV12 || k == STITCH_IN_I420;
}

/* YUV chroma correction tables: per camera STITCH_CHROMA_CODES entries of 4
 * floats (a_u, s_u, a_v, s_v), indexed by the block's mean raw luma code; a
 * chroma sample of quarter code q is corrected to a + s * q (see stitch.c). */
#define STITCH_CHROMA_CODES 256

/* The luma of R, G, B quarter codes in the overlap statistics (see
 * fv_overlap_stats in color.h). */
FOVEA_HD int stitch_stats_luma(int r, int g, int b)
{
    return (77 * r + 150 * g + 29 * b + 128) >> 8;
}

/* The YUV conventions of a stitch (fovea_stitcher_settings yuv_full_range and
 * yuv_colorspace), as flags: the tables' `yuv` argument
 * (fv_stitch_build_tables) and stitch_kernel_head.yuv_flags. */
#define STITCH_YUV 1       /* YUV input (else RGB) */
#define STITCH_YUV_FULL 2  /* full range: Y 0..255 (else limited: Y 16..235, UV 16..240) */
#define STITCH_YUV_BT709 4 /* BT.709 matrix (else BT.601) */

/* Y of uncovered panorama pixels under flags: black of the range */
FOVEA_HD int stitch_black_y(int flags)
{
    return flags & STITCH_YUV_FULL ? 0 : 16;
}

/* The R, G, B quarter codes (0..1020) of a YUV sample for the overlap
 * statistics: luma qy and chroma qu, qv in quarter codes, in the matrix and
 * range of flags (STITCH_YUV_*), in integers (the usual 8-bit fixed-point
 * coefficients, x 256) so that both backends get the same numbers; rgbq[3] is
 * the luma of those, as for RGB inputs. */
FOVEA_HD void stitch_yuv_rgbq(int qy, int qu, int qv, int flags, int rgbq[4])
{
    const int du = qu - 512, dv = qv - 512;
    const int full = flags & STITCH_YUV_FULL, bt709 = flags & STITCH_YUV_BT709;
    /* luma scale, V in R, U and V in G, U in B */
    const int ky = full ? 256 : 298;
    const int rv = bt709 ? (full ? 403 : 459) : (full ? 359 : 409);
    const int gu = bt709 ? (full ? 48 : 55) : (full ? 88 : 100);
    const int gv = bt709 ? (full ? 120 : 136) : (full ? 183 : 208);
    const int bu = bt709 ? (full ? 475 : 541) : (full ? 454 : 516);
    const int y = ky * (full ? qy : qy - 64) + 128;
    const int t[3] = {y + rv * dv, y - gu * du - gv * dv, y + bu * du};
    for (int k = 0; k < 3; k++) {
        const int x = t[k] < 0 ? 0 : t[k] >> 8; /* no shift of a negative number */
        rgbq[k] = x > 1020 ? 1020 : x;
    }
    rgbq[3] = stitch_stats_luma(rgbq[0], rgbq[1], rgbq[2]);
}

/* The chroma tables' index of a block from the sum of its n (1..4) raw luma
 * samples in quarter codes: their mean in codes, rounded. */
FOVEA_HD int stitch_chroma_index(int qsum, int n)
{
    return n == 4 ? (qsum + 8) >> 4
                  : (n == 2 ? (qsum + 4) >> 3 : (n == 1 ? (qsum + 2) >> 2 : (qsum + 6) / 12));
}

/* A chroma sample of quarter code q corrected through a chroma table entry's
 * (a, s): a + s q, float operations in that order in every backend. */
FOVEA_HD float stitch_chroma_corrected(float a, float s, int q)
{
    return a + s * (float)q;
}

/* Photometric correction (Hugin's model, stitch/photo.h): a camera's vignetting
 * factor at image point (u, v) from its vig[] (cx, cy, s, Va, Vb, Vc, Vd), and a
 * sample's corrected quarter code: its linear light lin (the camera's table at
 * the raw quarter code) over the factor, clamped to [0, 1], through the output
 * response table out (index: 16384 x rounded half up). Float operations in this
 * order in every backend (no contraction), so both give the same code. */
#define STITCH_PHOTO_VIG 8
#define STITCH_PHOTO_OUT_SCALE 16384
#define STITCH_PHOTO_OUT_SIZE (STITCH_PHOTO_OUT_SCALE + 1)

FOVEA_HD float stitch_photo_vig(const float *vg, float u, float v)
{
    const float dx = (u - vg[0]) * vg[2], dy = (v - vg[1]) * vg[2];
    const float r2 = dx * dx + dy * dy;
    return vg[3] + r2 * (vg[4] + r2 * (vg[5] + r2 * vg[6]));
}

FOVEA_HD int stitch_photo_q(float lin, float vig, const unsigned short *out)
{
    float x = lin / vig;
    x = x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; /* a factor <= 0 (or NaN) gives 0 */
    return out[(int)(x * (float)STITCH_PHOTO_OUT_SCALE + 0.5f)];
}

#endif
