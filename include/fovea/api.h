/* fovea: the export marker of the public API. Every function of include/ is
 * declared FOVEA_API; the shared library exports those and nothing else. */
#ifndef FOVEA_API_H
#define FOVEA_API_H

#if defined(__GNUC__)
#define FOVEA_API __attribute__((visibility("default")))
#else
#define FOVEA_API
#endif

/* Marks a function kept only for compatibility. fovea is 0.x and removes
 * instead of deprecating (docs/api.md; scripts/check-api.py rejects it): this
 * stays only while include/fovea/klt.h still uses it, and goes with that use. */
#if defined(__GNUC__)
#define FOVEA_DEPRECATED __attribute__((deprecated))
#else
#define FOVEA_DEPRECATED
#endif

#endif
