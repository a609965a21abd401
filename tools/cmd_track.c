/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea track INPUT...`: KLT feature tracking over a y4m/raw video (luma) or a
 * list of PGM/PNG frames; features per frame as KLT's feature table (text) or
 * JSON, and an optional overlay video/images with each feature's recent trail. */
#include <stdlib.h>
#include <string.h>

#include "cmd_track.h"

enum {
    OPT_FEATURES = 1,
    OPT_REPLACE,
    OPT_WINDOW,
    OPT_MINDIST,
    OPT_LEVELS,
    OPT_SUBSAMPLING,
    OPT_SEQUENTIAL,
    OPT_AFFINE,
    OPT_OUTPUT,
    OPT_FORMAT,
    OPT_OVERLAY,
    OPT_TRAIL
};

static const cli_option options[] = {
    CLI_INPUT_OPTIONS,
    CLI_MEDIA_OUTPUT_OPTIONS,
    CLI_OPTION_START("skip the first N input frames (video frames, or images of the list)"),
    CLI_OPTION_FRAMES("track at most N frames; 0 = all"),
    {"features", 'n', "N", "number of feature slots", "150", OPT_FEATURES},
    {"replace", 'r', NULL, "replace lost features after every tracked frame", "off", OPT_REPLACE},
    {"window", 'w', "W", "tracking window W x W (odd, >= 3)", "7", OPT_WINDOW},
    {"mindist", 0, "D", "minimum distance between features in pixels", "10", OPT_MINDIST},
    {"pyramid-levels", 0, "L", "pyramid levels including the full image (1..8)",
     "2 (KLT's choice for a search range of 15)", OPT_LEVELS},
    {"subsampling", 0, "S", "pyramid subsampling: 2, 4, 8, 16 or 32", "4", OPT_SUBSAMPLING},
    {"sequential", 0, NULL, "keep the last pyramid between frames (same results, less work)", "off",
     OPT_SEQUENTIAL},
    {"affine", 0, "MODE",
     "affine consistency check: off, 0 (translation), 1 (similarity) "
     "or 2 (affine)",
     "off", OPT_AFFINE},
    {"backend", 0, "B", "auto, cpu or cuda (auto: cuda when a device is present)", "auto",
     CLI_OPT_BACKEND},
    CLI_OPTION_THREADS,
    {"output", 'o', "FILE",
     "feature table as text (KLT's layout, features x frames); '-' "
     "= stdout",
     "- unless --json is given", OPT_OUTPUT},
    {"format", 0, "FMT", "printf format of x and y in the text table ('%...f' or '%...d')", "%7.2f",
     OPT_FORMAT},
    CLI_OPTION_JSON("features per frame as JSON; '-' = stdout"),
    {"overlay", 0, "OUT",
     "draw the tracks on the frames (in their colors): a .y4m video or an image pattern "
     "such as frame%03d.png",
     "none", OPT_OVERLAY},
    {"trail", 0, "N", "frames of history drawn per feature in the overlay (1..64)", "10",
     OPT_TRAIL},
    CLI_OPTION_QUIET,
    {0},
};

const cli_spec track_spec = {
    "track",
    "[options] INPUT...",
    "Track features through a sequence with fovea's KLT (the numbers of Birchfield's\n"
    "KLT 1.3.4). INPUT is one y4m (or raw .yuv) video, whose luma is used, an image\n"
    "sequence named with a frame-number pattern as the other commands take it\n"
    "(img%04d.pgm: file 0, or 1 when there is no 0, up to the first missing number),\n"
    "or a list of PGM/PPM/PNG frames in order (a quoted glob such as 'img*.pgm' is\n"
    "expanded and sorted). Features are selected on the first frame and tracked\n"
    "frame to frame; with --replace, lost slots are refilled after each frame.\n"
    "Feature values: > 0 newly selected (its eigenvalue), 0 tracked, < 0 lost (-1\n"
    "not found, -2 small determinant, -3 max iterations, -4 out of bounds, -5 large\n"
    "residue). The overlay is drawn over the frames' colors (gray inputs: luma):\n"
    "green tracked, yellow newly selected, red lost in this frame.",
    options,
    "Examples:\n"
    "  fovea track --replace -o features.txt img%04d.pgm\n"
    "  fovea track --replace -o features.txt 'img*.pgm'\n"
    "  fovea track -n 300 --replace --json tracks.json --overlay tracks.y4m in.y4m\n"
    "  fovea track --start 100 --frames 50 -o features.txt in.y4m\n"
    "\n"
    "At the end one summary line (frames, features, outputs, time) goes to stdout,\n"
    "or to stderr when stdout carries the table, the JSON or the overlay.\n"
    "\n"
    "Exit status: 0 success, 1 runtime error (an input without frames, or none\n"
    "left after --start, is one), 2 usage error.",
};

static int has_glob_chars(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

static int collect_inputs(track_args *a, char **rest, int nrest);

static int parse_args(track_args *a, int argc, char **argv)
{
    const char *cmd = track_spec.name;
    cli_parser p;
    const char *v;
    int id;

    memset(a, 0, sizeof(*a));
    cli_common_opts_init(&a->opt);
    cli_input_opts_init(&a->in);
    a->nfeatures = 150;
    a->window = 7;
    a->mindist = 10;
    a->affine = -1;
    a->format = "%7.2f";
    a->trail = 10;

    cli_parser_init(&p, &track_spec, argc, argv);
    while ((id = cli_next(&p, &v)) > 0) {
        const int shared = cli_common_option(&a->opt, &a->in, cmd, id, v);
        if (shared != 0) {
            if (shared < 0)
                return CLI_EXIT_USAGE;
            continue;
        }
        int bad = 0;
        switch (id) {
        case OPT_FEATURES:
            bad = cli_parse_int32(cmd, "--features", v, 1, 1000000, &a->nfeatures);
            break;
        case OPT_REPLACE: a->replace = 1; break;
        case OPT_WINDOW:
            bad = cli_parse_int32(cmd, "--window", v, 3, 99, &a->window);
            if (!bad && a->window % 2 == 0)
                return cli_usage_error(cmd, "--window: must be odd, got %d", a->window);
            break;
        case OPT_MINDIST: bad = cli_parse_int32(cmd, "--mindist", v, 0, 10000, &a->mindist); break;
        case OPT_LEVELS: bad = cli_parse_int32(cmd, "--pyramid-levels", v, 1, 8, &a->levels); break;
        case OPT_SUBSAMPLING:
            bad = cli_parse_int32(cmd, "--subsampling", v, 2, 32, &a->subsampling);
            if (!bad && (a->subsampling & (a->subsampling - 1)))
                return cli_usage_error(cmd, "--subsampling: must be 2, 4, 8, 16 or 32, got %d",
                                       a->subsampling);
            break;
        case OPT_SEQUENTIAL: a->sequential = 1; break;
        case OPT_AFFINE: {
            static const char *const modes[] = {"off", "0", "1", "2", NULL};
            int m;
            bad = cli_parse_choice(cmd, "--affine", v, modes, &m);
            a->affine = m - 1;
            break;
        }
        case OPT_OUTPUT: a->output = v; break;
        case OPT_FORMAT: {
            size_t n = strlen(v);
            if (n < 2 || v[0] != '%' || (v[n - 1] != 'f' && v[n - 1] != 'd') ||
                strchr(v + 1, '%') || n > 20)
                return cli_usage_error(cmd, "--format: expected e.g. %%7.2f or %%4d, got '%s'", v);
            a->format = v;
            break;
        }
        case OPT_OVERLAY: a->overlay = v; break;
        case OPT_TRAIL: bad = cli_parse_int32(cmd, "--trail", v, 1, MAX_TRAIL, &a->trail); break;
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end;
    if (p.nrest < 1)
        return cli_usage_error(cmd, "track: expected at least one INPUT");
    if (!a->output && !a->opt.json)
        a->output = "-";
    const int output_out = a->output && strcmp(a->output, "-") == 0;
    const int json_out = a->opt.json && strcmp(a->opt.json, "-") == 0;
    if (output_out && json_out)
        return cli_usage_error(cmd, "--output - and --json -: only one can use stdout");
    if (a->overlay && strcmp(a->overlay, "-") == 0 && (output_out || json_out))
        return cli_usage_error(cmd, "--overlay -: stdout already carries the features");
    return collect_inputs(a, p.rest, p.nrest);
}

/* The inputs: a single quoted glob expanded, a video alone, none an output. */
static int collect_inputs(track_args *a, char **rest, int nrest)
{
    const char *cmd = track_spec.name;
    /* a single quoted glob is expanded here */
    if (nrest == 1 && has_glob_chars(rest[0])) {
        if (glob(rest[0], 0, NULL, &a->g) != 0 || a->g.gl_pathc == 0) {
            cli_error(NULL, "%s: no file matches", rest[0]);
            return CLI_EXIT_RUNTIME;
        }
        a->have_glob = 1;
        a->inputs = a->g.gl_pathv;
        a->ninputs = (int)a->g.gl_pathc;
    } else {
        a->inputs = rest;
        a->ninputs = nrest;
    }
    for (int i = 0; i < a->ninputs; i++) {
        fovea_container c = cli_container_for(a->inputs[i], a->in.container);
        int video = c == FOVEA_CONTAINER_Y4M || c == FOVEA_CONTAINER_YUV ||
                    c == FOVEA_CONTAINER_MEDIA ||
                    (!a->have_glob && cli_is_pattern(a->inputs[i], c));
        if (video && a->ninputs > 1)
            return cli_usage_error(cmd, "%s: a video input must be the only INPUT", a->inputs[i]);
    }
    /* before anything is opened for writing: the inputs must survive, and
     * each output have a file of its own */
    cli_files fs;
    cli_files_init(&fs, cmd);
    for (int i = 0; i < a->ninputs; i++)
        cli_files_add(&fs, "INPUT", a->inputs[i], 0, 0);
    cli_files_add(&fs, "-o", a->output, CLI_FILE_OUT, 0);
    cli_files_add(&fs, "--json", a->opt.json, CLI_FILE_OUT, 0);
    cli_files_add(&fs, "--overlay", a->overlay,
                  CLI_FILE_OUT |
                      (cli_is_sequence(a->overlay, FOVEA_CONTAINER_AUTO) ? CLI_FILE_SEQUENCE : 0),
                  -1);
    const int rc = cli_files_check(&fs);
    cli_files_free(&fs);
    return rc;
}

/* ------------------------------------------------------------------ main */

/* The pyramid options that cannot work on a w x h input: name them, with the
 * library's reason (fovea_klt_check_params). @return CLI_EXIT_USAGE */
static int pyramid_conflict(const track_args *a, KLT_TrackingContext tc, int w, int h)
{
    const char *why = fovea_last_error(tc->ctx);
    const char *p = why[0] == '(' ? strstr(why, ") ") : NULL;
    if (p)
        why = p + 2; /* drop the "(function) " prefix */
    const char *input = cli_display_path(a->inputs[0], 0);
    if (w < a->window || h < a->window)
        return cli_usage_error(track_spec.name, "%s: --window %d does not fit the %dx%d input: %s",
                               input, a->window, w, h, why);
    return cli_usage_error(track_spec.name,
                           "%s: --pyramid-levels %d%s and --subsampling %d%s conflict with "
                           "--window %d%s for the %dx%d input: %s",
                           input, tc->nPyramidLevels, a->levels ? "" : " (default)",
                           tc->subsampling, a->subsampling ? "" : " (default)", a->window,
                           a->window != 7 ? "" : " (default)", w, h, why);
}

/* The context and the tracker with the options, checked against the input's size. */
static int tracker_setup(track_run *t)
{
    const track_args *a = &t->a;
    const int w = t->src.width, h = t->src.height;
    fovea_settings s;
    cli_context_settings(&s, &a->opt);
    s.backend = FOVEA_BACKEND_CPU; /* --backend is the tracker's */
    if (cli_open_context_with(&t->ctx, &s, CLI_CONTEXT_MSG_PLAIN) != CLI_EXIT_OK)
        return CLI_EXIT_RUNTIME;
    KLT_TrackingContext tc = t->tc = KLTCreateTrackingContext();
    t->fl = KLTCreateFeatureList(a->nfeatures);
    t->prev = malloc((size_t)w * h);
    t->cur = malloc((size_t)w * h);
    t->trails = calloc((size_t)a->nfeatures, sizeof(trail));
    t->hist.nfeat = a->nfeatures;
    if (!tc || !t->fl || !t->prev || !t->cur || !t->trails) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    tc->ctx = t->ctx;
    tc->backend = a->opt.backend;
    tc->window_width = tc->window_height = a->window;
    tc->mindist = a->mindist;
    tc->sequentialMode = a->sequential;
    tc->affineConsistencyCheck = a->affine;
    if (a->window != 7)
        KLTChangeTCPyramid(tc, 15);
    if (a->levels)
        tc->nPyramidLevels = a->levels;
    if (a->subsampling)
        tc->subsampling = a->subsampling;
    KLTUpdateTCBorder(tc);
    /* a conflict of the options with the input's size is a usage error, found
     * before any frame is read */
    if (fovea_klt_check_params(tc, w, h) < 0)
        return pyramid_conflict(a, tc, w, h);
    return CLI_EXIT_OK;
}

/* The input, the tracker, a video's pipeline (not started) and the overlay. */
static int setup(track_run *t)
{
    const track_args *a = &t->a;
    int rc = track_source_open(&t->src, a);
    if (rc == CLI_EXIT_OK && t->src.sequence) {
        /* no output over a file of the sequence, before any is opened */
        const char *names[3] = {a->output, a->opt.json, a->overlay};
        const int pat[3] = {
            0, 0,
            a->overlay &&
                cli_is_pattern(a->overlay, cli_container_for(a->overlay, FOVEA_CONTAINER_AUTO))};
        const int64_t n = fovea_reader_info(t->src.r)->frame_count;
        rc = cli_refuse_sequence_outputs(a->inputs[0], n, names, pat, 3, n);
    }
    if (rc == CLI_EXIT_OK)
        rc = tracker_setup(t);
    if (rc != CLI_EXIT_OK)
        return rc;
    t->pipelined = t->src.video;
    if (t->pipelined) {
        t->rings[0] = &t->src.ring;
        if (cli_pipe_init(&t->pipe, PIPE_SLOTS) < 0) {
            cli_error(NULL, "out of memory");
            return CLI_EXIT_RUNTIME;
        }
    }
    return t->a.overlay ? track_open_overlay(t) : CLI_EXIT_OK;
}

/* Frame i's luma (cur) tracked, recorded and drawn; cur becomes prev. */
static int track_frame(track_run *t, int i)
{
    const track_args *a = &t->a;
    const int w = t->src.width, h = t->src.height;
    int rc;
    if (i == 0) {
        KLTSelectGoodFeatures(t->tc, t->cur, w, h, t->fl);
    } else {
        KLTTrackFeatures(t->tc, t->prev, t->cur, w, h, t->fl);
        if (a->replace && fovea_klt_last_status(t->tc) == FOVEA_OK)
            KLTReplaceLostFeatures(t->tc, t->cur, w, h, t->fl);
    }
    if (fovea_klt_last_status(t->tc) < 0) {
        if ((rc = track_writes_before(t)) != CLI_EXIT_OK)
            return rc;
        cli_error(NULL, "frame %d: %s", i, fovea_last_error(t->tc->ctx));
        return CLI_EXIT_RUNTIME;
    }
    if (!track_history_add(&t->hist, t->fl)) {
        if ((rc = track_writes_before(t)) != CLI_EXIT_OK)
            return rc;
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    if (t->ow && (rc = track_write_overlay(t, i)) != CLI_EXIT_OK)
        return rc;
    unsigned char *tmp = t->prev;
    t->prev = t->cur;
    t->cur = tmp;
    return CLI_EXIT_OK;
}

/* Every frame read, tracked and drawn; the pipeline is stopped on return. */
static int run_loop(track_run *t)
{
    const track_args *a = &t->a;
    int rc = CLI_EXIT_OK;
    cli_progress_start(&t->prog, t->src.total, a->opt.quiet);
    /* a video's reader thread, and the overlay's writer thread when there is one */
    if (t->pipelined && cli_pipe_start(&t->pipe, t->ow, t->rings, 1) != 0)
        rc = CLI_EXIT_RUNTIME;
    for (t->frames = 0; rc == CLI_EXIT_OK && (a->opt.frames < 0 || t->frames < a->opt.frames);
         t->frames++) {
        rc = track_source_next(&t->src, t->cur);
        if (rc == -1 && t->frames == 0) {
            cli_progress_finish(&t->prog);
            if (a->opt.start > 0)
                cli_error(cli_display_path(a->inputs[0], 0), "no frames left after --start %lld",
                          a->opt.start);
            else
                cli_error(cli_display_path(a->inputs[0], 0), "no frames in the input");
            rc = CLI_EXIT_RUNTIME;
            break;
        }
        if (rc == -1) {
            rc = CLI_EXIT_OK;
            break;
        }
        if (rc == SOURCE_FAILED && (rc = track_writes_before(t)) == CLI_EXIT_OK)
            rc = cli_report(a->inputs[0], 0, t->src.why, t->src.status);
        if (rc != CLI_EXIT_OK || (rc = track_frame(t, t->frames)) != CLI_EXIT_OK)
            break;
        cli_progress_update(&t->prog, t->frames + 1);
    }
    if (rc == CLI_EXIT_OK)
        rc = track_writes_before(t); /* the queued overlay frames */
    cli_pipe_finish(&t->pipe);
    cli_progress_finish(&t->prog);
    return rc;
}

int cmd_track(int argc, char **argv)
{
    track_run *t = calloc(1, sizeof(*t));
    if (!t) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    int rc = parse_args(&t->a, argc, argv);
    if (rc < 0) {
        free(t);
        return CLI_EXIT_OK; /* --help */
    }
    const double t0 = cli_now();
    if (rc == CLI_EXIT_OK)
        rc = setup(t);
    if (rc == CLI_EXIT_OK)
        rc = run_loop(t); /* the pipeline stopped on return */
    if (rc == CLI_EXIT_OK)
        rc = track_finish_outputs(t, t0);

    fovea_writer_close(&t->ow); /* a failed run leaves an existing overlay as it was */
    track_source_close(&t->src);
    cli_pipe_free(&t->pipe, t->ctx);
    fovea_frame_free(t->ctx, &t->rgb);
    fovea_frame_free(t->ctx, &t->color);
    fovea_frame_free(t->ctx, &t->conv);
    KLTFreeFeatureList(t->fl);
    KLTFreeTrackingContext(t->tc);
    fovea_close(&t->ctx);
    free(t->prev);
    free(t->cur);
    free(t->trails);
    free(t->hist.rec);
    if (t->a.have_glob)
        globfree(&t->a.g);
    free(t);
    return rc;
}
