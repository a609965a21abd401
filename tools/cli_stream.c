/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Helpers shared by `fovea send` and `fovea receive` (cli_stream.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_stream.h"

int cli_stream_log_add(cli_stream_log *log, const cli_stream_rec *rec, size_t raw)
{
    if (log->n == log->cap) {
        const size_t cap = log->cap ? 2 * log->cap : 1024;
        cli_stream_rec *p = realloc(log->r, cap * sizeof(*p));
        if (!p)
            return -1;
        log->r = p;
        log->cap = cap;
    }
    log->r[log->n++] = *rec;
    log->bytes += rec->bytes;
    log->raw_bytes += (int64_t)raw;
    log->keyframes += rec->keyframe != 0;
    log->ms += rec->ms;
    return 0;
}

void cli_stream_log_free(cli_stream_log *log)
{
    free(log->r);
    memset(log, 0, sizeof(*log));
}

static void add_ms(cJSON *o, const char *name, double ms)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.3f", ms);
    cJSON_AddItemToObject(o, name, cJSON_CreateRaw(buf));
}

cJSON *cli_stream_frames_json(const cli_stream_log *log, int receiver)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < log->n; i++) {
        const cli_stream_rec *r = &log->r[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddItemToArray(arr, o);
        cJSON_AddNumberToObject(o, "frame", (double)r->frame);
        cJSON_AddBoolToObject(o, "keyframe", r->keyframe);
        cJSON_AddNumberToObject(o, "bytes", (double)r->bytes);
        cJSON_AddNumberToObject(o, "tiles_sent", (double)r->tiles_sent);
        cJSON_AddNumberToObject(o, "tiles_changed", (double)r->tiles_changed);
        add_ms(o, receiver ? "decode_ms" : "encode_ms", r->ms);
        if (receiver) {
            add_ms(o, "latency_ms", r->latency_ms);
            cJSON_AddNumberToObject(o, "skipped", (double)r->skipped);
            if (r->checked_error >= 0)
                cJSON_AddNumberToObject(o, "checked_error", r->checked_error);
        } else {
            cJSON_AddNumberToObject(o, "receivers", r->clients);
        }
    }
    return arr;
}

void cli_stream_totals_json(cJSON *t, const cli_stream_log *log, double seconds,
                            const char *ms_name)
{
    cJSON_AddNumberToObject(t, "frames", (double)log->n);
    cJSON_AddNumberToObject(t, "keyframes", (double)log->keyframes);
    cJSON_AddNumberToObject(t, "bytes", (double)log->bytes);
    cJSON_AddNumberToObject(t, "raw_bytes", (double)log->raw_bytes);
    cJSON_AddNumberToObject(t, "ratio",
                            log->raw_bytes > 0 ? (double)log->bytes / (double)log->raw_bytes : 0);
    cJSON_AddNumberToObject(t, "seconds", seconds);
    cJSON_AddNumberToObject(t, "fps", seconds > 0 ? (double)log->n / seconds : 0);
    cJSON_AddNumberToObject(t, "mbit_per_s", seconds > 0 ? (double)log->bytes * 8e-6 / seconds : 0);
    add_ms(t, ms_name, log->n ? log->ms / (double)log->n : 0.0);
}

void cli_stream_progress_start(cli_stream_progress *p, int quiet)
{
    memset(p, 0, sizeof(*p));
    const char *env = getenv("FOVEA_PROGRESS");
    if (quiet)
        p->enabled = 0;
    else if (env && strcmp(env, "1") == 0)
        p->enabled = 1;
    else if (env && strcmp(env, "0") == 0)
        p->enabled = 0;
    else
        p->enabled = isatty(STDERR_FILENO);
    p->t0 = p->last = cli_now();
}

void cli_stream_progress_update(cli_stream_progress *p, const cli_stream_log *log,
                                const char *extra, int final)
{
    if (!p->enabled)
        return;
    const double now = cli_now();
    if (!final && now - p->last < 0.25)
        return;
    p->last = now;
    const double el = now - p->t0;
    char line[200];
    int len =
        snprintf(line, sizeof line, "frame %zu  %.1f fps  %.2f Mbit/s  %.2f%% of raw%s%s", log->n,
                 el > 0 ? (double)log->n / el : 0.0, el > 0 ? (double)log->bytes * 8e-6 / el : 0.0,
                 log->raw_bytes > 0 ? 100.0 * (double)log->bytes / (double)log->raw_bytes : 0.0,
                 extra && *extra ? "  " : "", extra ? extra : "");
    if (len < 0 || len >= (int)sizeof line)
        len = (int)strlen(line);
    fprintf(stderr, "\r%s%*s", line, p->width > len ? p->width - len : 0, "");
    fflush(stderr);
    p->width = len;
}

void cli_stream_progress_finish(cli_stream_progress *p, const cli_stream_log *log,
                                const char *extra)
{
    if (!p->enabled || (log->n == 0 && p->width == 0))
        return;
    cli_stream_progress_update(p, log, extra, 1);
    fputc('\n', stderr);
    fflush(stderr);
    p->enabled = 0;
}

uint64_t cli_wallclock_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double cli_quantile(double *v, size_t n, double q)
{
    if (n == 0)
        return 0.0;
    qsort(v, n, sizeof(double), cmp_double);
    size_t k = (size_t)(q * (double)n + 0.999999);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return v[k - 1];
}

int cli_parse_denoise(const char *cmd, const char *s, fovea_diff_denoise_mode *out)
{
    static const char *const names[] = {"none", "median3", "gauss5", "temporal", NULL};
    int i;
    if (cli_parse_choice(cmd, "--denoise", s, names, &i) < 0)
        return -1;
    *out = (fovea_diff_denoise_mode)i;
    return 0;
}

int cli_parse_bytes(const char *cmd, const char *opt, const char *s, long long min, long long max,
                    long long *out)
{
    char num[32];
    const size_t n = s ? strlen(s) : 0;
    long long mult = 1;
    if (n > 0 && n < sizeof num) {
        memcpy(num, s, n + 1);
        const char last = num[n - 1];
        if (last == 'K' || last == 'k' || last == 'M' || last == 'm' || last == 'G' ||
            last == 'g') {
            mult = last == 'K' || last == 'k'   ? 1024LL
                   : last == 'M' || last == 'm' ? 1LL << 20
                                                : 1LL << 30;
            num[n - 1] = 0;
        }
        long long v;
        if (num[0] && cli_parse_int(cmd, opt, num, 0, max / mult, &v) == 0) {
            if (v * mult >= min) {
                *out = v * mult;
                return 0;
            }
        } else {
            return -1;
        }
    }
    cli_usage_error(cmd, "%s: expected a byte count from %lld to %lld (suffix K, M or G), got '%s'",
                    opt, min, max, s ? s : "");
    return -1;
}
