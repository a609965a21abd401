/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* A tracking context's backend: the table picked for tc->backend, made for
 * the caller's context (tc->ctx), or for the tracking context's own default
 * CUDA context when the caller attached none, and closed through its table. */
#include <stdio.h>

#include "core/core.h"
#include "klt/klt_internal.h"

static const backend_info *const klt_backends[] = {&klt_backend_ref.info,
                                                   BACKEND_CUDA_ENTRY(klt_backend_cuda)};

/* Close the backend; the kept pyramid of sequential mode goes with a state
 * that held it (the C reference keeps it in klt_state: priv NULL). */
static void close_backend(KLT_TrackingContext tc, klt_state *st)
{
    if (!st->backend)
        return;
    if (st->backend_priv) {
        st->have_last = 0;
        tc->pyramid_last = tc->pyramid_last_gradx = tc->pyramid_last_grady = NULL;
    }
    st->backend->info.close(&st->backend_priv);
    st->backend = NULL;
    st->backend_ctx = NULL;
}

/* The context a table runs on: tc->ctx, or for a CUDA table when tc->ctx is
 * not a CUDA context (KLT 1.3.4's API has none; a caller may attach a CPU
 * context for its log and threads) the tracking context's default one:
 * device 0, one thread, its own stream, opened once and kept until
 * KLTFreeTrackingContext. */
static int backend_context(KLT_TrackingContext tc, const backend_info *b, fovea_context **ctx)
{
    klt_state *st = klt_priv(tc);
    *ctx = tc->ctx;
    if (b->kind != FOVEA_BACKEND_CUDA || fovea_context_backend(tc->ctx) == FOVEA_BACKEND_CUDA)
        return FOVEA_OK;
    if (!st->default_ctx) {
        fovea_settings s;
        fovea_default_settings(&s);
        s.backend = FOVEA_BACKEND_CUDA;
        s.threads = 1;
        s.cuda_device = 0;
        int rc = fovea_open(&st->default_ctx, &s);
        if (rc < 0)
            return klt_fail(tc, rc, "CUDA backend: cannot open a CUDA context: %s",
                            fovea_strerror(rc));
    }
    *ctx = st->default_ctx;
    return FOVEA_OK;
}

int klt_backend_bind(KLT_TrackingContext tc)
{
    klt_state *st = klt_priv(tc);
    const backend_info *b = NULL;
    char msg[256];
    int rc = backend_pick(tc->ctx, klt_backends, sizeof klt_backends / sizeof klt_backends[0],
                          tc->backend, &b, msg, sizeof msg);
    if (rc < 0)
        return klt_fail(tc, rc, "%s", msg);
    fovea_context *ctx;
    FOVEA_TRY(backend_context(tc, b, &ctx));
    if (st->backend && &st->backend->info == b && st->backend_ctx == ctx)
        return FOVEA_OK;
    close_backend(tc, st);
    rc = b->init(&st->backend_priv, ctx, tc);
    if (rc < 0)
        return klt_fail(tc, rc, "%s backend: %s", b->name, fovea_last_error(ctx));
    st->backend = (const klt_backend *)b; /* b is its info, the first member */
    st->backend_ctx = ctx;
    return FOVEA_OK;
}

void klt_backend_release(KLT_TrackingContext tc)
{
    klt_state *st = klt_priv(tc);
    close_backend(tc, st);
    fovea_close(&st->default_ctx);
}

int klt_cuda_sort_check(KLT_TrackingContext tc, const int *val, int n, int max_blocks, int *out_val,
                        unsigned *out_id)
{
    if (!tc || !tc->priv)
        return FOVEA_ERR_INVALID_ARG;
    klt_state *st = klt_priv(tc);
    st->status = FOVEA_OK;
    FOVEA_TRY(klt_backend_bind(tc));
    if (!st->backend->sort_check)
        return klt_fail(tc, FOVEA_ERR_UNSUPPORTED, "the %s backend has no sort check",
                        st->backend->info.name);
    return st->backend->sort_check(st->backend_priv, tc, val, n, max_blocks, out_val, out_id);
}
