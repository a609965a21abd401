/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* KLT 1.3.4 compatibility header: programs written for Birchfield's klt.h
 * compile unchanged against fovea. It is installed as
 * <prefix>/include/fovea/compat/klt.h; `pkg-config --cflags fovea-klt` puts
 * that directory on the include path, so their #include "klt.h" finds it.
 * New code includes <fovea/klt.h> (the same API) with `pkg-config fovea`. */
#ifndef FOVEA_KLT_COMPAT_H
#define FOVEA_KLT_COMPAT_H

#include "fovea/klt.h"

/* KLT 1.3.4 spells the float image type with a leading underscore. */
typedef KLT_FloatImageRec _KLT_FloatImageRec;
typedef KLT_FloatImage _KLT_FloatImage;

#endif
