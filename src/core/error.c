/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Error and log reporting: the last error (per thread and per context), a
 * caller's error buffer for internal helpers, and the context's log callback. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"

/* The last error is kept per thread and per context: each thread has a few
 * slots keyed by the context's err_id (a number never reused, so a context
 * freed and another allocated at the same address do not share messages),
 * plus one slot for calls made with ctx == NULL. A thread that records errors
 * on more than FOVEA_ERR_SLOTS contexts reuses the slot of the one it recorded
 * on longest ago (fovea_last_error of that context then returns ""). */
#define FOVEA_ERR_SLOTS 8

typedef struct fv_err_slot {
    uint64_t id; /* 0 = free */
    uint64_t stamp;
    char msg[FOVEA_ERRLEN];
} fv_err_slot;

static _Thread_local fv_err_slot tls_slot[FOVEA_ERR_SLOTS];
static _Thread_local char tls_null_msg[FOVEA_ERRLEN];
static _Thread_local uint64_t tls_stamp;
static atomic_uint_fast64_t next_err_id = 1;

void fv_ctx_error_init(fovea_context *ctx)
{
    ctx->err_id = (uint64_t)atomic_fetch_add(&next_err_id, 1);
}

static fv_err_slot *find_slot(uint64_t id)
{
    for (int k = 0; k < FOVEA_ERR_SLOTS; k++)
        if (tls_slot[k].id == id)
            return &tls_slot[k];
    return NULL;
}

/* The message buffer of ctx on this thread, claimed when absent. */
static char *error_buffer(const fovea_context *ctx)
{
    if (!ctx || ctx->err_id == 0)
        return tls_null_msg;
    fv_err_slot *s = find_slot(ctx->err_id);
    if (!s) {
        s = &tls_slot[0];
        for (int k = 0; k < FOVEA_ERR_SLOTS; k++) {
            if (tls_slot[k].id == 0) {
                s = &tls_slot[k];
                break;
            }
            if (tls_slot[k].stamp < s->stamp)
                s = &tls_slot[k];
        }
        s->id = ctx->err_id;
        s->msg[0] = '\0';
    }
    s->stamp = ++tls_stamp;
    return s->msg;
}

int fv_ctx_error(fovea_context *ctx, int status, const char *fmt, ...)
{
    char *msg = error_buffer(ctx);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, FOVEA_ERRLEN, fmt, ap);
    va_end(ap);
    if (ctx)
        fv_log(ctx, FOVEA_LOG_DEBUG, "%s", msg);
    return status;
}

const char *fovea_last_error(const fovea_context *ctx)
{
    if (!ctx || ctx->err_id == 0)
        return tls_null_msg;
    const fv_err_slot *s = find_slot(ctx->err_id);
    return s ? s->msg : "";
}

int fv_errbuf(char *err, size_t errsz, int status, const char *fmt, ...)
{
    if (err && errsz) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errsz, fmt, ap);
        va_end(ap);
    }
    return status;
}

void fv_log(fovea_context *ctx, fovea_log_level level, const char *fmt, ...)
{
    if (!ctx || !ctx->settings.log || level > ctx->settings.log_level)
        return;
    char msg[FOVEA_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ctx->settings.log(ctx->settings.log_opaque, level, msg);
}
