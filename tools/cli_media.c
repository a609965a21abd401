/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CLI's media options (--input-option, --stream, --match-frames, --codec,
 * --crf, --encoder-option), the one-time conversion notice and the check of
 * two inputs' frame rates and start times. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int add_kv(const char *cmd, const char *opt, const char *value, const char **list, int *n)
{
    const char *eq = value ? strchr(value, '=') : NULL;
    if (!eq || eq == value) {
        cli_usage_error(cmd, "%s: expected KEY=VALUE, got '%s'", opt, value ? value : "");
        return -1;
    }
    if (*n >= CLI_MEDIA_MAX_OPTIONS) {
        cli_usage_error(cmd, "%s: at most %d", opt, CLI_MEDIA_MAX_OPTIONS);
        return -1;
    }
    list[(*n)++] = value;
    list[*n] = NULL;
    return 1;
}

int cli_media_option(cli_input_opts *o, const char *cmd, int id, const char *value)
{
    switch (id) {
    case CLI_OPT_INPUT_OPTION:
        return add_kv(cmd, "--input-option", value, o->input_options, &o->n_input_options);
    case CLI_OPT_STREAM:
        return cli_parse_int32(cmd, "--stream", value, 0, 65535, &o->stream) < 0 ? -1 : 1;
    case CLI_OPT_MATCH_FRAMES: o->match_frames = 1; return 1;
    case CLI_OPT_HWDEC: {
        static const char *const names[] = {"auto", "none", "cuda", NULL};
        int i = 0;
        if (cli_parse_choice(cmd, "--hwdec", value, names, &i) < 0)
            return -1;
        o->hwdec = (fovea_hwdec)i; /* the order of fovea_hwdec */
        return 1;
    }
    case CLI_OPT_CODEC: o->codec = value; return 1;
    case CLI_OPT_CRF: return cli_parse_int32(cmd, "--crf", value, 0, 63, &o->crf) < 0 ? -1 : 1;
    case CLI_OPT_ENCODER_OPTION:
        return add_kv(cmd, "--encoder-option", value, o->encoder_options, &o->n_encoder_options);
    default: return 0;
    }
}

void cli_media_writer(fovea_writer *w, const cli_input_opts *o)
{
    if (!w || !o)
        return;
    fovea_encoder_settings es;
    fovea_encoder_default_settings(&es);
    es.codec = o->codec;
    es.crf = o->crf;
    es.options = o->n_encoder_options ? o->encoder_options : NULL;
    (void)fovea_writer_set_encoder(w, &es); /* fails only after a frame: none yet */
}

void cli_media_notice(const char *path, const fovea_reader *r, char *buf, size_t n)
{
    buf[0] = '\0';
    const fovea_video_info *i = r ? fovea_reader_info(r) : NULL;
    const char *hw = r ? fovea_reader_hwdec_reason(r) : NULL;
    if (i && i->converted_from[0])
        snprintf(buf, n, "%s: fovea has no %s layout: frames are converted to %s%s",
                 cli_display_path(path, 0), i->converted_from, fovea_pixfmt_name(i->fmt),
                 hw ? "\nfovea: " : "");
    if (hw) {
        const size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%s: %s", cli_display_path(path, 0), hw);
    }
}

int cli_media_pair_check(const cli_input_opts *o, const char *a, const fovea_video_info *ia,
                         const char *b, const fovea_video_info *ib, char *err, size_t n)
{
    if (o && o->match_frames)
        return CLI_EXIT_OK;
    const char *an = cli_display_path(a, 0), *bn = cli_display_path(b, 0);
    /* rates compare when both are known: a/b == c/d */
    if (ia->fps_num > 0 && ia->fps_den > 0 && ib->fps_num > 0 && ib->fps_den > 0 &&
        (long long)ia->fps_num * ib->fps_den != (long long)ib->fps_num * ia->fps_den) {
        snprintf(err, n,
                 "%s runs at %d/%d fps but %s at %d/%d: their frames are not the same instants "
                 "(--match-frames pairs them frame by frame anyway)",
                 an, ia->fps_num, ia->fps_den, bn, ib->fps_num, ib->fps_den);
        return CLI_EXIT_RUNTIME;
    }
    if (ia->start_time_us != INT64_MIN && ib->start_time_us != INT64_MIN &&
        ia->start_time_us != ib->start_time_us) {
        snprintf(err, n,
                 "%s starts at %.6f s but %s at %.6f s: their frames are not the same instants "
                 "(--match-frames pairs them frame by frame anyway)",
                 an, (double)ia->start_time_us / 1e6, bn, (double)ib->start_time_us / 1e6);
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}
