/* KLT 1.3.4 compatibility header: programs written for Birchfield's klt.h
 * compile unchanged against fovea. */
#ifndef FOVEA_KLT_COMPAT_H
#define FOVEA_KLT_COMPAT_H

#include "fovea/klt.h"

/* KLT 1.3.4 spells the float image type with a leading underscore. */
typedef KLT_FloatImageRec _KLT_FloatImageRec;
typedef KLT_FloatImage _KLT_FloatImage;

#endif
