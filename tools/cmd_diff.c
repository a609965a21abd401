/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea diff IN`: what changes between consecutive frames: heat maps, noise
 * maps and tile masks as video or image sequences, per-frame numbers as JSON
 * and a PNG chart. Reading, differencing and each output's writing overlap. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "chart.h"
#include "cmd_diff.h"

enum {
    OPT_HEATMAP = 1,
    OPT_NOISE,
    OPT_NOISE_MODE,
    OPT_MASK,
    OPT_THRESHOLD,
    OPT_AUTO_K,
    OPT_TILE,
    OPT_DENOISE,
    OPT_NORMALIZE,
    OPT_MEASURE,
    OPT_PLOT
};

static const cli_option options[] = {
    {"heatmap", 0, "OUT",
     "write the heat maps: y4m (i420; '-' = stdout), or RGB PNG/PPM "
     "images with a pattern such as heat%04d.png",
     "none", OPT_HEATMAP},
    {"noise", 0, "OUT", "write the noise maps (changed pixels red): y4m or images as --heatmap",
     "none", OPT_NOISE},
    {"noise-mode", 0, "MODE",
     "black (red on black) or overlay (red painted over the current "
     "frame, in the input's format; needs rgb24, rgba or i420 input)",
     "black", OPT_NOISE_MODE},
    {"mask", 0, "OUT",
     "write the tile masks, one gray pixel per tile (255 changed, 0 not): y4m "
     "(mono) or gray PNG/PGM images",
     "none", OPT_MASK},
    {"threshold", 't', "T|auto",
     "a pixel changed when a channel differs by more than T "
     "(sample units); auto = ceil(K x noise sigma) of each pair",
     "10", OPT_THRESHOLD},
    {"auto-k", 0, "K", "K of --threshold auto, 0 < K <= 1000", "3", OPT_AUTO_K},
    {"tile", 0, "N", "tile side of the change mask: 8, 16, 32 or 64", "16", OPT_TILE},
    {"denoise", 0, "F",
     "filter both frames before differencing: none, median3, gauss5 or "
     "temporal:S (exponential average, history weight S/256, 0..255; temporal = temporal:192)",
     "none", OPT_DENOISE},
    {"normalize", 0, "MAX",
     "difference shown as the top of the heat map (red); larger ones "
     "saturate, so small changes show; 0 = the measure's full range (765 for "
     "8-bit rgb sum), quarter = a quarter of it, rounded up (192)",
     "quarter", OPT_NORMALIZE},
    {"measure", 0, "M",
     "heat-map difference of a pixel: sum (of the channel differences) or "
     "max (the largest)",
     "sum", OPT_MEASURE},
    CLI_OPTION_BACKEND,
    CLI_OPTION_THREADS,
    CLI_OPTION_FRAMES("make at most N maps (reads N + 1 frames); 0 = all"),
    CLI_OPTION_QUIET,
    CLI_OPTION_JSON("write per-map numbers (changed pixels and tiles, mean and max "
                    "difference, noise sigma, threshold), totals and settings; '-' = stdout"),
    {"plot", 0, "FILE.png",
     "draw the changed fractions and the noise sigma per map as a "
     "1200x500 PNG chart",
     "none", OPT_PLOT},
    CLI_INPUT_OPTIONS,
    CLI_MEDIA_OUTPUT_OPTIONS,
    {0},
};

const cli_spec diff_spec = {
    "diff",
    "IN [--heatmap OUT] [--noise OUT] [--mask OUT] [options]",
    "Difference every frame of IN with the next one. IN is a y4m file ('-' =\n"
    "stdin), raw yuv (with --size and --pixfmt), or images named with a frame\n"
    "number pattern (in%03d.png, in%03d.ppm: from number 0 or 1 to the first\n"
    "missing one; every image the first one's size and format). Output map i is\n"
    "the map between input frames i and i + 1: N frames give N - 1 maps.\n"
    "\n"
    "Outputs (docs/diff.md has the arithmetic): the heat map, the difference\n"
    "colored blue (none) -> green -> red (the top); the noise map, the pixels\n"
    "with a channel difference above the threshold painted red; the mask, one\n"
    "pixel per tile. y4m outputs are i420 (420jpeg, BT.601 limited range; the\n"
    "mask y4m is mono), image outputs RGB (the mask gray). A name without a known\n"
    "extension (a FIFO, /dev/null) gets y4m. Each map is written as soon as it is\n"
    "made, so the command works in a pipe.",
    options,
    "Examples:\n"
    "  fovea diff in.y4m --heatmap heat.y4m --json diff.json --plot diff.png\n"
    "  ffmpeg -i in.mp4 -f yuv4mpegpipe - | fovea diff - --heatmap - | ffplay -\n"
    "  fovea diff cam%04d.png --noise noise%04d.png --threshold auto --denoise median3\n"
    "  fovea diff in.y4m --mask mask%04d.png --tile 32 --denoise temporal:200\n"
    "\n"
    "Exit status: 0 success; 1 runtime error (unreadable or truncated input, an\n"
    "input of fewer than 2 frames, images of different sizes); 2 usage error.",
};

/* ------------------------------------------------------------------ arguments */

static const char *const out_option[N_OUT] = {"--heatmap", "--noise", "--mask"};

static int check_plot_name(const char *cmd, const char *v)
{
    const size_t n = strlen(v);
    if (!chart_available())
        return cli_usage_error(cmd, "--plot needs a build with cairo (libcairo2-dev)");
    if (n < 4 || strcasecmp(v + n - 4, ".png") != 0)
        return cli_usage_error(cmd, "%s: --plot writes PNG: use a .png name", v);
    return CLI_EXIT_OK;
}

static int parse_denoise(const char *cmd, const char *v, fovea_diff_settings *s)
{
    static const char *const names[] = {"none", "median3", "gauss5", NULL};
    static const fovea_diff_denoise_mode modes[] = {
        FOVEA_DIFF_DENOISE_NONE, FOVEA_DIFF_DENOISE_MEDIAN3, FOVEA_DIFF_DENOISE_GAUSS5};
    if (strcmp(v, "temporal") == 0) {
        s->denoise = FOVEA_DIFF_DENOISE_TEMPORAL;
        s->temporal_strength = 192;
        return 0;
    }
    if (strncmp(v, "temporal:", 9) == 0) {
        s->denoise = FOVEA_DIFF_DENOISE_TEMPORAL;
        return cli_parse_int32(cmd, "--denoise temporal:S", v + 9, 0, 255, &s->temporal_strength);
    }
    for (int i = 0; names[i]; i++)
        if (strcmp(v, names[i]) == 0) {
            s->denoise = modes[i];
            return 0;
        }
    cli_usage_error(cmd, "--denoise: expected none, median3, gauss5 or temporal:S, got '%s'", v);
    return -1;
}

static int parse_args(diff_args *a, int argc, char **argv)
{
    const char *cmd = diff_spec.name;
    static const char *const measures[] = {"sum", "max", NULL};
    static const char *const modes[] = {"black", "overlay", NULL};
    cli_parser p;
    const char *v;
    int id, k;

    memset(a, 0, sizeof(*a));
    cli_common_opts_init(&a->opt);
    a->opt.frames_max = INT64_MAX - 1; /* N + 1 frames are read */
    cli_input_opts_init(&a->in);
    fovea_diff_default_settings(&a->set);
    a->set.temporal_strength = 192;

    cli_parser_init(&p, &diff_spec, argc, argv);
    while ((id = cli_next(&p, &v)) > 0) {
        const int shared = cli_common_option(&a->opt, &a->in, cmd, id, v);
        if (shared != 0) {
            if (shared < 0)
                return CLI_EXIT_USAGE;
            continue;
        }
        int bad = 0;
        switch (id) {
        case OPT_HEATMAP: a->out[OUT_HEAT] = v; break;
        case OPT_NOISE: a->out[OUT_NOISE] = v; break;
        case OPT_MASK: a->out[OUT_MASK] = v; break;
        case OPT_NOISE_MODE:
            bad = cli_parse_choice(cmd, "--noise-mode", v, modes, &k);
            a->set.noise_mode = k ? FOVEA_DIFF_NOISE_OVERLAY : FOVEA_DIFF_NOISE_BLACK;
            break;
        case OPT_THRESHOLD:
            if (strcmp(v, "auto") == 0)
                a->set.threshold = FOVEA_DIFF_THRESHOLD_AUTO;
            else
                bad = cli_parse_int32(cmd, "--threshold", v, 0, 65535, &a->set.threshold);
            break;
        case OPT_AUTO_K:
            bad = cli_parse_double(cmd, "--auto-k", v, 1e-9, 1000.0, &a->set.auto_k);
            break;
        case OPT_TILE:
            bad = cli_parse_int32(cmd, "--tile", v, FOVEA_DIFF_TILE_MIN, FOVEA_DIFF_TILE_MAX,
                                  &a->set.tile);
            if (!bad && a->set.tile != 8 && a->set.tile != 16 && a->set.tile != 32 &&
                a->set.tile != 64)
                return cli_usage_error(cmd, "--tile: expected 8, 16, 32 or 64, got %s", v);
            break;
        case OPT_DENOISE: bad = parse_denoise(cmd, v, &a->set); break;
        case OPT_NORMALIZE:
            if (strcmp(v, "quarter") == 0)
                a->set.normalize_max = FOVEA_DIFF_NORMALIZE_QUARTER;
            else
                bad = cli_parse_int32(cmd, "--normalize", v, 0, 3 * 65535, &a->set.normalize_max);
            break;
        case OPT_MEASURE:
            bad = cli_parse_choice(cmd, "--measure", v, measures, &k);
            a->set.measure = k ? FOVEA_DIFF_MAX : FOVEA_DIFF_SUM;
            break;
        case OPT_PLOT:
            if (check_plot_name(cmd, v) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            a->plot = v;
            break;
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end;
    if (p.nrest != 1)
        return cli_usage_error(cmd, "diff: expected one input, got %d arguments", p.nrest);
    a->input = p.rest[0];
    if (cli_check_pattern_arg(cmd, "IN", a->input, 0) != CLI_EXIT_OK)
        return CLI_EXIT_USAGE;

    /* outputs: one at most on stdout, no two the same file, none an input */
    const char *names[N_OUT + 2] = {a->out[0], a->out[1], a->out[2], a->opt.json, a->plot};
    const char *opts[N_OUT + 2] = {out_option[0], out_option[1], out_option[2], "--json", "--plot"};
    int on_stdout = 0;
    for (int i = 0; i < N_OUT + 2; i++) {
        if (!names[i])
            continue;
        if (cli_check_pattern_arg(cmd, opts[i], names[i], 1) != CLI_EXIT_OK)
            return CLI_EXIT_USAGE;
        if (strcmp(names[i], "-") == 0) {
            if (i == N_OUT + 1)
                return cli_usage_error(cmd, "--plot cannot go to stdout");
            if (on_stdout++)
                return cli_usage_error(cmd, "only one output can go to stdout ('-')");
            continue;
        }
        /* a character device (/dev/null) may take several outputs */
        struct stat st;
        const int chr = stat(names[i], &st) == 0 && S_ISCHR(st.st_mode);
        for (int j = 0; j < i && !chr; j++)
            if (names[j] &&
                (strcmp(names[i], names[j]) == 0 || fovea_same_file(names[i], names[j])))
                return cli_usage_error(cmd, "%s and %s name the same file: %s", opts[j], opts[i],
                                       names[i]);
        if (cli_refuse_same_file(names[i], a->input))
            return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ the differencer */

/* The context, before the input: NVDEC decodes on it (a CUDA one). */
static int open_context(diff_run *s)
{
    fovea_settings cs;
    cli_context_settings(&cs, &s->a.opt);
    cs.log = cli_log_to_stderr;
    if (cli_open_context_with(&s->ctx, &cs, CLI_CONTEXT_MSG_NAMED) != CLI_EXIT_OK)
        return CLI_EXIT_RUNTIME;
    s->a.in.ctx = s->ctx;
    return CLI_EXIT_OK;
}

static int open_differencer(diff_run *s)
{
    int st = fovea_diff_open(&s->d, s->ctx, &s->a.set);
    if (st < 0) {
        cli_error(NULL, "%s", fovea_last_error(s->ctx));
        return CLI_EXIT_RUNTIME;
    }
    s->mem = s->in_mem = FOVEA_MEM_HOST;
    if (fovea_diff_backend(s->d) == FOVEA_BACKEND_CUDA) {
        s->mem = s->in_mem = FOVEA_MEM_PINNED;
        /* NVDEC's device frames are differenced where they are: no copy */
        if (fovea_reader_hwdec(s->r) == FOVEA_HWDEC_CUDA)
            s->in_mem = FOVEA_MEM_DEVICE;
        else
            s->on_device = 1;
        for (int k = 0; k < 2 && s->on_device; k++)
            s->on_device = fovea_frame_alloc(s->ctx, &s->dev[k], s->info.width, s->info.height,
                                             s->info.fmt, FOVEA_MEM_DEVICE) == FOVEA_OK;
    }
    fovea_convert_options_init(&s->co);
    s->want_sigma = s->a.opt.json || s->a.plot;
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ main */

int cmd_diff(int argc, char **argv)
{
    diff_run *s = calloc(1, sizeof(*s));
    if (!s) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    int rc = parse_args(&s->a, argc, argv);
    if (rc < 0) {
        free(s);
        return CLI_EXIT_OK; /* --help */
    }
    if (rc == CLI_EXIT_OK)
        rc = open_context(s);
    if (rc == CLI_EXIT_OK)
        rc = diff_open_input(s);
    if (rc == CLI_EXIT_OK)
        rc = open_differencer(s);
    for (int k = 0; k < N_OUT && rc == CLI_EXIT_OK; k++)
        if (s->a.out[k])
            rc = diff_open_output(s, k);
    double t0 = cli_now();
    if (rc == CLI_EXIT_OK)
        rc = diff_start_reader(s);
    if (rc == CLI_EXIT_OK) {
        int64_t total = -1;
        if (s->info.frame_count > 0)
            total = s->info.frame_count - 1;
        if (s->a.opt.frames >= 0 && (total < 0 || s->a.opt.frames < total))
            total = s->a.opt.frames;
        cli_progress_start(&s->prog, total, s->a.opt.quiet);
        rc = diff_run_maps(s);
    }
    rc = diff_finish_outputs(s, rc); /* every queued map written */
    cli_progress_finish(&s->prog);
    const double secs = cli_now() - t0;
    if (rc == CLI_EXIT_OK)
        rc = diff_write_reports(s, secs);

    fovea_read_ring_close(&s->ring);
    for (int k = 0; k < N_OUT; k++) {
        diff_output *o = &s->out[k];
        /* finished above when the run succeeded; a failed run leaves an existing
         * output as it was */
        fovea_writer_close(&o->w);
        cli_pipe_free(&o->pipe, s->ctx);
        fovea_frame_free(s->ctx, &o->buf[0]);
        fovea_frame_free(s->ctx, &o->buf[1]);
    }
    fovea_diff_close(&s->d);
    fovea_frame_free(s->ctx, &s->dev[0]);
    fovea_frame_free(s->ctx, &s->dev[1]);
    free(s->stats);
    fovea_close(&s->ctx);
    fovea_reader_close(&s->r);
    free(s);
    return rc;
}
