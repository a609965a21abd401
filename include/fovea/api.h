/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea: the export marker of the public API. Every function of include/ is
 * declared FOVEA_API; the shared library exports those and nothing else. */
#ifndef FOVEA_API_H
#define FOVEA_API_H

#if defined(__GNUC__)
#define FOVEA_API __attribute__((visibility("default")))
#else
#define FOVEA_API
#endif

#endif
