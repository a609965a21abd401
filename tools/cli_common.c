/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The options most commands share (--backend, --threads, --frames, --start,
 * --quiet, --json) and the opening of a command's context from them. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_common_opts_init(cli_common_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->backend = FOVEA_BACKEND_AUTO;
    o->frames = -1;
    o->frames_max = INT64_MAX;
}

int cli_common_option(cli_common_opts *o, cli_input_opts *in, const char *cmd, int id,
                      const char *value)
{
    switch (id) {
    case CLI_OPT_BACKEND: return cli_parse_backend(cmd, value, &o->backend) < 0 ? -1 : 1;
    case CLI_OPT_THREADS:
        return cli_parse_int32(cmd, "--threads", value, 0, 1024, &o->threads) < 0 ? -1 : 1;
    case CLI_OPT_FRAMES:
        if (cli_parse_int(cmd, "--frames", value, 0, o->frames_max, &o->frames) < 0)
            return -1;
        if (o->frames == 0)
            o->frames = -1;
        return 1;
    case CLI_OPT_START:
        return cli_parse_int(cmd, "--start", value, 0, INT64_MAX, &o->start) < 0 ? -1 : 1;
    case CLI_OPT_QUIET: o->quiet = 1; return 1;
    case CLI_OPT_JSON: o->json = value; return 1;
    default: return in ? cli_input_option(in, cmd, id, value) : 0;
    }
}

void cli_context_settings(fovea_settings *s, const cli_common_opts *o)
{
    fovea_default_settings(s);
    s->backend = o->backend;
    s->threads = o->threads;
}

int cli_open_context_with(fovea_context **ctx, const fovea_settings *s, cli_context_msg msg)
{
    const int st = fovea_open(ctx, s);
    if (st >= 0)
        return CLI_EXIT_OK;
    const char *backend = fovea_backend_name(s->backend), *why = fovea_strerror(st);
    switch (msg) {
    case CLI_CONTEXT_MSG_PLAIN: cli_error(NULL, "cannot create a context: %s", why); break;
    case CLI_CONTEXT_MSG_NAMED:
        cli_error(NULL, "cannot create a %s context: %s", backend, why);
        break;
    case CLI_CONTEXT_MSG_OPTION:
        cli_error(NULL, "--backend %s: cannot create a context: %s", backend, why);
        break;
    case CLI_CONTEXT_MSG_OPEN: cli_error(NULL, "cannot open a %s context: %s", backend, why); break;
    }
    return CLI_EXIT_RUNTIME;
}

int cli_open_context(fovea_context **ctx, const cli_common_opts *o, cli_context_msg msg)
{
    fovea_settings s;
    cli_context_settings(&s, o);
    return cli_open_context_with(ctx, &s, msg);
}

void cli_log_to_stderr(void *opaque, fovea_log_level level, const char *msg)
{
    (void)opaque;
    fprintf(stderr, "fovea: %s%s\n", level == FOVEA_LOG_WARNING ? "warning: " : "", msg);
}
