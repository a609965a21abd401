/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Status strings, version, backend names. */
#include <string.h>
#include "fovea/fovea.h"

#ifndef FOVEA_VERSION_STRING
#define FOVEA_VERSION_STRING "0.1.0"
#endif

const char *fovea_strerror(int status)
{
    switch (status) {
    case FOVEA_OK: return "success";
    case FOVEA_EOF: return "end of stream";
    case FOVEA_AGAIN: return "try again (receive or submit first)";
    case FOVEA_ERR_INVALID_ARG: return "invalid argument";
    case FOVEA_ERR_UNSUPPORTED: return "unsupported format or feature";
    case FOVEA_ERR_IO: return "input/output error";
    case FOVEA_ERR_CORRUPT: return "corrupt or truncated input";
    case FOVEA_ERR_NOMEM: return "out of memory";
    case FOVEA_ERR_NO_DEVICE: return "no CUDA device available";
    case FOVEA_ERR_CUDA: return "CUDA error";
    case FOVEA_ERR_MISMATCH: return "inputs do not match";
    case FOVEA_ERR_INTERNAL: return "internal error";
    default: return "unknown status";
    }
}

const char *fovea_version(void)
{
    return FOVEA_VERSION_STRING;
}

int fovea_cuda_compiled(void)
{
#ifdef FOVEA_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

const char *fovea_backend_name(fovea_backend b)
{
    switch (b) {
    case FOVEA_BACKEND_AUTO: return "auto";
    case FOVEA_BACKEND_CPU: return "cpu";
    case FOVEA_BACKEND_CUDA: return "cuda";
    default: return "?";
    }
}

int fovea_backend_parse(const char *name, fovea_backend *out)
{
    if (!name || !out)
        return FOVEA_ERR_INVALID_ARG;
    if (strcmp(name, "auto") == 0)
        *out = FOVEA_BACKEND_AUTO;
    else if (strcmp(name, "cpu") == 0)
        *out = FOVEA_BACKEND_CPU;
    else if (strcmp(name, "cuda") == 0 || strcmp(name, "gpu") == 0)
        *out = FOVEA_BACKEND_CUDA;
    else
        return FOVEA_ERR_INVALID_ARG;
    return FOVEA_OK;
}
