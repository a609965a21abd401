/* Error and log reporting: a context's last error, a caller's error buffer,
 * and the context's log callback. */
#include <stdio.h>

#include "core/core.h"

int fovea_ctx_error(fovea_context *ctx, int status, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->err, sizeof(ctx->err), fmt, ap);
        va_end(ap);
        fovea_log(ctx, FOVEA_LOG_DEBUG, "%s", ctx->err);
    }
    return status;
}

int fovea_errbuf(char *err, size_t errsz, int status, const char *fmt, ...)
{
    if (err && errsz) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errsz, fmt, ap);
        va_end(ap);
    }
    return status;
}

void fovea_log(fovea_context *ctx, fovea_log_level level, const char *fmt, ...)
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
