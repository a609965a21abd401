/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The one backend picker: a system's list of tables and a request (auto, cpu,
 * cuda) give the table a context runs. */
#include "core/backend.h"
#include "core/core.h"

static const backend_info *find_kind(const backend_info *const *list, size_t n, fovea_backend kind)
{
    for (size_t i = 0; i < n; i++)
        if (list[i]->kind == kind)
            return list[i];
    return NULL;
}

int backend_pick(const fovea_context *ctx, const backend_info *const *list, size_t n,
                 fovea_backend requested, const backend_info **chosen, char *err, size_t errsz)
{
    *chosen = NULL;
    if (requested != FOVEA_BACKEND_AUTO && requested != FOVEA_BACKEND_CPU &&
        requested != FOVEA_BACKEND_CUDA)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "unknown backend %d", (int)requested);
    const backend_info *cpu = find_kind(list, n, FOVEA_BACKEND_CPU);
    if (requested == FOVEA_BACKEND_CPU) {
        *chosen = cpu;
        return cpu ? FOVEA_OK : fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED, "backend cpu: none");
    }
    const backend_info *cuda = find_kind(list, n, FOVEA_BACKEND_CUDA);
    int device = fovea_context_backend(ctx) == FOVEA_BACKEND_CUDA;
    if (!device) {
        int ndev = 0;
        fovea_device_count(&ndev);
        device = ndev > 0;
    }
    if (cuda && device) {
        *chosen = cuda;
        return FOVEA_OK;
    }
    if (requested == FOVEA_BACKEND_AUTO && cpu) {
        *chosen = cpu;
        return FOVEA_OK;
    }
    return fv_errbuf(err, errsz, FOVEA_ERR_NO_DEVICE, "backend cuda: %s",
                     fovea_cuda_compiled() ? "no CUDA device" : "fovea was built without CUDA");
}
