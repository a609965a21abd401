/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Helpers every KLT file uses: the per-context messages and errors (KLT prints
 * and exits; fovea logs to the context's callback and records a status),
 * buffers, KLT's window corrections and smoothing sigma. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/core.h"
#include "klt/klt_internal.h"

void klt_log(KLT_TrackingContext tc, fovea_log_level level, const char *fmt, ...)
{
    if (!tc || !tc->ctx)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fv_log(tc->ctx, level, "klt: %s", msg);
}

int klt_fail(KLT_TrackingContext tc, int status, const char *fmt, ...)
{
    klt_state *st = tc ? klt_priv(tc) : NULL;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (st)
        st->status = status;
    /* the library's convention: the message is also the last error of the
     * tracking context's fovea_context (the thread's own slot when NULL) */
    fv_ctx_error(tc ? tc->ctx : NULL, status, "%s", msg);
    klt_log(tc, FOVEA_LOG_ERROR, "%s", msg);
    return status;
}

int klt_ensure(void **buf, size_t *cap, size_t bytes)
{
    if (bytes <= *cap && *buf)
        return FOVEA_OK;
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        return FOVEA_ERR_NOMEM;
    free(*buf);
    *buf = p;
    *cap = bytes;
    return FOVEA_OK;
}

void klt_fix_window(KLT_TrackingContext tc, const char *who)
{
    if (tc->window_width % 2 != 1) {
        tc->window_width = tc->window_width + 1;
        klt_log(tc, FOVEA_LOG_WARNING, "(%s) window width must be odd; changing to %d", who,
                tc->window_width);
    }
    if (tc->window_height % 2 != 1) {
        tc->window_height = tc->window_height + 1;
        klt_log(tc, FOVEA_LOG_WARNING, "(%s) window height must be odd; changing to %d", who,
                tc->window_height);
    }
    if (tc->window_width < 3) {
        tc->window_width = 3;
        klt_log(tc, FOVEA_LOG_WARNING, "(%s) window width must be at least 3; changing to 3", who);
    }
    if (tc->window_height < 3) {
        tc->window_height = 3;
        klt_log(tc, FOVEA_LOG_WARNING, "(%s) window height must be at least 3; changing to 3", who);
    }
}

float _KLTComputeSmoothSigma(KLT_TrackingContext tc)
{
    int wmax = tc->window_width > tc->window_height ? tc->window_width : tc->window_height;
    return tc->smooth_sigma_fact * wmax;
}
