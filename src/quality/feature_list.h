/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The list of quality features: one line each. FEATURE(name) is a feature
 * with a C extractor (feature_<name>_cpu, in feature_<name>.c) and a CUDA one
 * (feature_<name>_cuda, in feature_<name>_cuda.c, compiled in CUDA builds);
 * FEATURE_CPU(name) one with a C extractor only. The order is the order of
 * the list; nothing else depends on it. Included by feature_list.c only. */
FEATURE(vif)
FEATURE(adm)
FEATURE(motion)
FEATURE(cambi)
FEATURE(speed_chroma)
FEATURE(float_ssim)
FEATURE(float_ms_ssim)
FEATURE(psnr)
FEATURE(ciede)
FEATURE(psnr_hvs)
