/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// Explicitly rounded float steps for the KLT kernels (pyramid.cu, select.cu,
// track.cu): every step the C reference computes is written with these, in its
// order, so nothing is contracted into a multiply-add whatever the compile flags.
#ifndef FOVEA_KLT_RN_CUH
#define FOVEA_KLT_RN_CUH

#include <cuda_runtime.h>

namespace
{

__device__ __forceinline__ float fadd(float a, float b)
{
    return __fadd_rn(a, b);
}
__device__ __forceinline__ float fsub(float a, float b)
{
    return __fsub_rn(a, b);
}
__device__ __forceinline__ float fmul(float a, float b)
{
    return __fmul_rn(a, b);
}
__device__ __forceinline__ float fdiv(float a, float b)
{
    return __fdiv_rn(a, b);
}

} // namespace

#endif
