/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea stitch`: stitch synchronized camera streams (y4m, raw yuv) or stills
 * (PNG, PNM) into a panorama with a map built from a rig or loaded from a file. */
#include <stdlib.h>
#include <string.h>

#include "cmd_stitch.h"

enum {
    OPT_RIG = 1,
    OPT_MAP,
    OPT_OUTPUT,
    OPT_COLOR,
    OPT_COLOR_INTERVAL,
    OPT_COLOR_SMOOTHING,
    OPT_DETERMINISTIC,
    OPT_PRINT_COLOR,
    OPT_MISSING,
    OPT_COLORSPACE,
    OPT_RANGE,
    OPT_OUT_FORMAT,
    OPT_PTO,
    OPT_BLEND,
    OPT_SEAM,
    OPT_SEAM_INTERVAL,
    OPT_PHOTOMETRIC
};

static const cli_option options[] = {
    {"rig", 0, "FILE", "rig JSON (docs/rig.md); the map is built at start", "none", OPT_RIG},
    {"pto", 0, "FILE",
     "Hugin project (docs/stitch.md, \"Hugin projects\"); the map is built at start", "none",
     OPT_PTO},
    {"map", 0, "FILE", "map file (from `fovea rig check --save-map` or `fovea map import`)", "none",
     OPT_MAP},
    {"output", 'o', "FILE",
     "panorama: .y4m (i420), .png (rgba; use a pattern such as "
     "pano%04d.png for several frames), .ppm (rgb24), .yuv (raw i420); '-' = y4m on stdout "
     "(required)",
     NULL, OPT_OUTPUT},
    {"out-format", 0, "FMT",
     "output container: y4m, yuv (raw), pnm or png, e.g. for -o /dev/null "
     "or a FIFO",
     "from the file extension; '-' is y4m", OPT_OUT_FORMAT},
    {"backend", 0, "NAME", "auto, cpu or cuda", "auto (cuda when a device is present)",
     CLI_OPT_BACKEND},
    CLI_OPTION_THREADS,
    CLI_OPTION_FRAMES("stop after N panorama frames; 0 = all"),
    {"color", 0, "MODE",
     "color correction: auto (gains per R, G, B channel and a gamma per "
     "camera, measured in the overlaps; YUV video: chroma corrected through those RGB "
     "curves), off, or "
     "fixed:FILE with JSON {\"cameras\":[{\"gain\":[r,g,b],\"gamma\":g}, ...]} (a --json "
     "summary of an earlier run works too)",
     "auto", OPT_COLOR},
    {"color-interval", 0, "K", "with --color auto, measure the overlaps every K frames", "30",
     OPT_COLOR_INTERVAL},
    {"color-smoothing", 0, "S",
     "with --color auto, move the corrections by S (0 < S <= 1) of "
     "the way to each new measurement",
     "0.5", OPT_COLOR_SMOOTHING},
    {"deterministic", 0, NULL,
     "measure synchronously (frame n measured, applied from n+1), so "
     "runs and backends give the same output",
     "off: measured in the background", OPT_DETERMINISTIC},
    {"print-color", 0, NULL,
     "print the final per-camera gains and gamma (stdout, or stderr when "
     "the video goes to stdout)",
     "off", OPT_PRINT_COLOR},
    {"missing", 0, "POLICY",
     "what to do when a camera has no frame (ended early, truncated or "
     "corrupt): error, or repeat:N to reuse its last good frame up to N times in a row",
     "error", OPT_MISSING},
    CLI_OPTION_JSON("write a JSON summary (frames, fps, backend, per-camera corrections) to "
                    "FILE; '-' = stdout"),
    CLI_OPTION_QUIET,
    {"colorspace", 0, "CS",
     "YUV video: the inputs' matrix, bt601 or bt709 (HD and UHD video "
     "usually); the color balance measures and corrects in it, and YUV<->RGB conversions "
     "(e.g. -o pano.png) use it",
     "bt601", OPT_COLORSPACE},
    {"range", 0, "RANGE",
     "YUV video: auto, limited or full; auto takes the inputs' y4m "
     "XCOLORRANGE tag (as ffmpeg writes it), else limited. The y4m output carries the tag",
     "auto", OPT_RANGE},
    {"blend", 0, "MODE",
     "feather, or multiband[:LEVELS] (Laplacian pyramids of LEVELS reductions, 1..10: "
     "wide transitions for low frequencies, sharp for detail; cpu and cuda backends, the "
     "same output)",
     "feather", OPT_BLEND},
    {"seam", 0, "MODE",
     "with --blend multiband: none (the map's seam) or dp (a path through the overlap "
     "around what differs between the cameras)",
     "none", OPT_SEAM},
    {"seam-interval", 0, "N", "with --seam dp, place the seam again every N frames", "30",
     OPT_SEAM_INTERVAL},
    {"photometric", 0, "MODE",
     "on or off: apply the rig's photometric part (Hugin's exposure, white balance, "
     "vignetting and camera response, as nona does; RGB inputs only) before the color "
     "correction",
     "on", OPT_PHOTOMETRIC},
    CLI_INPUT_OPTIONS,
    CLI_MEDIA_OUTPUT_OPTIONS,
    CLI_MATCH_FRAMES_OPTION,
    {0},
};

const cli_spec stitch_spec = {
    "stitch",
    "(--rig RIG.json | --pto PROJECT.pto | --map FILE) [options]\n"
    "       CAM0 CAM1 ... -o OUT",
    "Stitch one input per camera, in the rig's camera order, into a panorama.\n"
    "Inputs are videos (y4m, or raw yuv with --size/--pixfmt; '-' = stdin for one of\n"
    "them) or stills (PNG, PNM); all of one kind. Video is stitched in i420 (nv12\n"
    "inputs as they are; other YUV formats are converted, with a warning); stills\n"
    "in RGB (gray converted) giving RGBA, with --color auto balanced on the image\n"
    "itself. Each input's size must be what the map expects for its camera.\n"
    "\n"
    "Inputs are paired frame by frame: every input must deliver a frame at every\n"
    "step, and frame rates should agree (a warning otherwise). The run ends\n"
    "normally at the first step where no input has a frame left (or after\n"
    "--frames). An input that ends before the others, or has a truncated or\n"
    "corrupt frame, is an error, unless --missing repeat:N: then its last good\n"
    "frame is reused, up to N times in a row (a warning each time); a camera that\n"
    "would need more repeats is an error. So with repeat:N inputs may end up to N\n"
    "frames apart.",
    options,
    "Examples:\n"
    "  fovea stitch --rig rig.json left.y4m right.y4m -o pano.y4m\n"
    "  fovea stitch --pto project.pto left.png right.png -o pano.png\n"
    "  fovea rig check --save-map pano.map rig.json\n"
    "  fovea stitch --map pano.map --frames 1 left.y4m right.y4m -o pano.png\n"
    "  fovea stitch --map pano.map left.png right.png -o pano.png --print-color\n"
    "  fovea stitch --map pano.map --color fixed:colors.json a.y4m b.y4m -o - |\n"
    "      ffplay -\n"
    "  fovea stitch --map pano.map cam0.fifo cam1.fifo --out-format y4m -o /dev/null\n"
    "\n"
    "Inputs without a known extension (named pipes, say) are read as y4m, PNG or\n"
    "PNM by their first bytes. At the end one summary line (frames, panorama,\n"
    "output, time) goes to stdout, or to stderr when stdout carries the video or\n"
    "the JSON.\n"
    "\n"
    "Exit status: 0 success; 1 runtime error, among them inputs without frames and\n"
    "a map that covers no pixel of the panorama (no camera sees its field, or all\n"
    "blend weights are 0); 2 usage error.",
};

static int parse_missing(const char *v, int *n)
{
    const char *cmd = stitch_spec.name;
    if (strcmp(v, "error") == 0) {
        *n = 0;
        return 0;
    }
    if (strncmp(v, "repeat:", 7) == 0)
        return cli_parse_int32(cmd, "--missing repeat:N", v + 7, 0, 1000000, n);
    cli_usage_error(cmd, "--missing: expected error or repeat:N, got '%s'", v);
    return -1;
}

static int check_args(stitch_args *a, char **rest, int nrest);

static int parse_args(stitch_args *a, int argc, char **argv)
{
    const char *cmd = stitch_spec.name;
    cli_parser p;
    const char *v;
    int id;

    memset(a, 0, sizeof(*a));
    cli_common_opts_init(&a->opt);
    cli_input_opts_init(&a->in);
    a->out_container = FOVEA_CONTAINER_AUTO;
    a->color = COLOR_ARG_AUTO;
    a->interval = 30;
    a->smoothing = 0.5;
    a->blend = FOVEA_BLEND_FEATHER;
    a->blend_levels = 5;
    a->seam = FOVEA_SEAM_NONE;
    a->seam_interval = 30;

    cli_parser_init(&p, &stitch_spec, argc, argv);
    while ((id = cli_next(&p, &v)) > 0) {
        const int shared = cli_common_option(&a->opt, &a->in, cmd, id, v);
        if (shared != 0) {
            if (shared < 0)
                return CLI_EXIT_USAGE;
            continue;
        }
        int bad = 0;
        switch (id) {
        case OPT_RIG: a->rig = v; break;
        case OPT_PTO: a->pto = v; break;
        case OPT_MAP: a->map = v; break;
        case OPT_OUTPUT: a->out = v; break;
        case OPT_OUT_FORMAT:
            bad = cli_parse_container(cmd, "--out-format", v, &a->out_container);
            break;
        case OPT_COLOR:
            if (strcmp(v, "auto") == 0) {
                a->color = COLOR_ARG_AUTO;
            } else if (strcmp(v, "off") == 0) {
                a->color = COLOR_ARG_OFF;
            } else if (strncmp(v, "fixed:", 6) == 0 && v[6]) {
                a->color = COLOR_ARG_FIXED;
                a->color_file = v + 6;
            } else {
                bad =
                    cli_usage_error(cmd, "--color: expected auto, off or fixed:FILE, got '%s'", v);
            }
            break;
        case OPT_COLOR_INTERVAL:
            bad = cli_parse_int32(cmd, "--color-interval", v, 1, 1000000, &a->interval);
            break;
        case OPT_COLOR_SMOOTHING:
            bad = cli_parse_double(cmd, "--color-smoothing", v, 0.0, 1.0, &a->smoothing);
            if (!bad && !(a->smoothing > 0.0))
                bad = cli_usage_error(cmd, "--color-smoothing: must be > 0, got '%s'", v);
            break;
        case OPT_BLEND:
            if (strcmp(v, "feather") == 0) {
                a->blend = FOVEA_BLEND_FEATHER;
            } else if (strcmp(v, "multiband") == 0) {
                a->blend = FOVEA_BLEND_MULTIBAND;
            } else if (strncmp(v, "multiband:", 10) == 0) {
                a->blend = FOVEA_BLEND_MULTIBAND;
                bad = cli_parse_int32(cmd, "--blend multiband:LEVELS", v + 10, 1, 10,
                                      &a->blend_levels);
            } else {
                bad = cli_usage_error(
                    cmd, "--blend: expected feather, multiband or multiband:LEVELS, got '%s'", v);
            }
            break;
        case OPT_SEAM:
            if (strcmp(v, "none") == 0)
                a->seam = FOVEA_SEAM_NONE;
            else if (strcmp(v, "dp") == 0)
                a->seam = FOVEA_SEAM_DP;
            else
                bad = cli_usage_error(cmd, "--seam: expected none or dp, got '%s'", v);
            break;
        case OPT_SEAM_INTERVAL:
            bad = cli_parse_int32(cmd, "--seam-interval", v, 1, 1000000, &a->seam_interval);
            break;
        case OPT_PHOTOMETRIC:
            if (strcmp(v, "on") == 0 || strcmp(v, "off") == 0)
                a->ignore_photometric = strcmp(v, "off") == 0;
            else
                bad = cli_usage_error(cmd, "--photometric: expected on or off, got '%s'", v);
            break;
        case OPT_DETERMINISTIC: a->deterministic = 1; break;
        case OPT_PRINT_COLOR: a->print_color = 1; break;
        case OPT_MISSING: bad = parse_missing(v, &a->max_repeat); break;
        case OPT_COLORSPACE:
            bad = cli_parse_colorspace(cmd, "--colorspace", v, &a->colorspace);
            break;
        case OPT_RANGE: bad = cli_parse_range(cmd, "--range", v, 1, &a->range); break;
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end;
    return check_args(a, p.rest, p.nrest);
}

/* The positional arguments and what the options say together. */
static int check_args(stitch_args *a, char **rest, int nrest)
{
    const char *cmd = stitch_spec.name;
    if ((a->rig != NULL) + (a->map != NULL) + (a->pto != NULL) != 1)
        return cli_usage_error(cmd, "stitch: give one of --rig FILE, --pto FILE or --map FILE");
    if (!a->out)
        return cli_usage_error(cmd, "stitch: -o OUT is required");
    if (nrest < 1)
        return cli_usage_error(cmd, "stitch: expected one input per camera");
    if (nrest > FOVEA_STITCH_MAX_CAMERAS)
        return cli_usage_error(cmd, "stitch: at most %d inputs, got %d", FOVEA_STITCH_MAX_CAMERAS,
                               nrest);
    a->inputs = rest;
    a->n = nrest;

    int stdin_inputs = 0, stills = 0;
    for (int c = 0; c < a->n; c++) {
        stdin_inputs += strcmp(a->inputs[c], "-") == 0;
        fovea_container ic = cli_container_for(a->inputs[c], a->in.container);
        stills += ic == FOVEA_CONTAINER_PNG || ic == FOVEA_CONTAINER_PNM;
    }
    if (stdin_inputs > 1)
        return cli_usage_error(cmd, "stitch: only one input can be '-' (stdin)");
    if (stills && stills != a->n)
        return cli_usage_error(cmd, "stitch: inputs must be all videos (y4m, yuv) or all stills "
                                    "(png, pnm)");
    fovea_container oc = cli_container_for(a->out, a->out_container);
    if (oc == FOVEA_CONTAINER_AUTO)
        return cli_usage_error(cmd,
                               "%s: unknown file type (name it .y4m, .png, .ppm or .yuv, "
                               "or use --out-format)",
                               a->out);
    a->out_container = oc;
    if (a->opt.json && strcmp(a->opt.json, "-") == 0 && strcmp(a->out, "-") == 0)
        return cli_usage_error(cmd, "--json -: stdout already carries the video");
    if (a->seam != FOVEA_SEAM_NONE && a->blend != FOVEA_BLEND_MULTIBAND)
        return cli_usage_error(cmd, "--seam %s needs --blend multiband", "dp");
    if (a->color != COLOR_ARG_AUTO && a->deterministic)
        a->deterministic = 0; /* nothing is measured */
    /* before anything is opened for writing: every file read must survive,
     * and each output have a file of its own */
    cli_files fs;
    cli_files_init(&fs, cmd);
    for (int c = 0; c < a->n; c++)
        cli_files_add(&fs, "INPUT", a->inputs[c],
                      cli_is_sequence(a->inputs[c], a->in.container) ? CLI_FILE_SEQUENCE : 0, -1);
    cli_files_add(&fs, "--rig", a->rig, 0, 0);
    cli_files_add(&fs, "--map", a->map, 0, 0);
    cli_files_add(&fs, "--pto", a->pto, 0, 0);
    cli_files_add(&fs, "--color", a->color_file, 0, 0);
    cli_files_add(&fs, "-o", a->out,
                  CLI_FILE_OUT | (cli_is_sequence(a->out, oc) ? CLI_FILE_SEQUENCE : 0), -1);
    cli_files_add(&fs, "--json", a->opt.json, CLI_FILE_OUT, 0);
    const int rc = cli_files_check(&fs);
    cli_files_free(&fs);
    return rc;
}

/* ------------------------------------------------------------------ main */

static int setup(stitch_run *s)
{
    stitch_args *a = &s->a;
    if (cli_open_context(&s->ctx, &a->opt, CLI_CONTEXT_MSG_OPTION) != CLI_EXIT_OK)
        return CLI_EXIT_RUNTIME;
    int st;
    const char *geo = a->rig ? a->rig : a->pto ? a->pto : a->map;
    if (a->rig) {
        st = fovea_stitch_map_open_rig_file(&s->map, s->ctx, a->rig);
    } else if (a->pto) {
        fovea_rig *rig = NULL;
        st = fovea_rig_open_pto(&rig, s->ctx, a->pto);
        if (st >= 0)
            st = fovea_stitch_map_open_rig(&s->map, s->ctx, rig, NULL, NULL);
        fovea_rig_close(&rig);
    } else {
        st = fovea_stitch_map_open_file(&s->map, s->ctx, a->map);
    }
    if (st < 0)
        return cli_report(geo, 0, fovea_last_error(s->ctx), st);

    fovea_color_correction cc[FOVEA_STITCH_MAX_CAMERAS];
    if (a->color == COLOR_ARG_FIXED) {
        int nmap = 0;
        fovea_stitch_map_geometry(s->map, NULL, NULL, &nmap);
        int rc = stitch_load_color_file(a->color_file, nmap, cc);
        if (rc != CLI_EXIT_OK)
            return rc;
    }

    st = fovea_stitch_map_covers_any(s->map);
    if (st <= 0) {
        cli_error(geo, st == 0 ? "no camera sees any pixel of the panorama "
                                 "(zero coverage): nothing to stitch"
                               : "invalid map");
        return CLI_EXIT_RUNTIME;
    }

    /* stitch_open_inputs tells stills (no threads) from video (reader and writer threads) */
    int rc = stitch_open_inputs(s);
    if (rc != CLI_EXIT_OK)
        return rc;

    fovea_stitcher_settings ss;
    fovea_stitcher_default_settings(&ss);
    ss.color = a->color == COLOR_ARG_OFF     ? FOVEA_COLOR_OFF
               : a->color == COLOR_ARG_FIXED ? FOVEA_COLOR_FIXED
                                             : FOVEA_COLOR_AUTO;
    ss.auto_interval = a->interval;
    ss.auto_smoothing = (float)a->smoothing;
    ss.deterministic = a->deterministic;
    ss.yuv_colorspace = a->colorspace;
    ss.yuv_full_range = s->full_range;
    ss.blend = (fovea_blend_mode)a->blend;
    ss.blend_levels = a->blend_levels;
    ss.seam = (fovea_seam_mode)a->seam;
    ss.seam_interval = a->seam_interval;
    ss.ignore_photometric = a->ignore_photometric;
    st = fovea_stitcher_open(&s->st, s->ctx, s->map, &ss);
    if (st < 0) {
        const char *detail = fovea_last_error(s->ctx);
        cli_error(NULL, "cannot create the stitcher: %s", *detail ? detail : fovea_strerror(st));
        return CLI_EXIT_RUNTIME;
    }
    if (a->color == COLOR_ARG_FIXED) {
        st = fovea_stitcher_set_color(s->st, cc, a->n);
        if (st < 0) {
            const char *detail = fovea_last_error(s->ctx);
            cli_error(a->color_file, "%s", *detail ? detail : fovea_strerror(st));
            return CLI_EXIT_RUNTIME;
        }
    }
    return stitch_open_output(s);
}

static int run_loop(stitch_run *s)
{
    const stitch_args *a = &s->a;
    cli_progress prog;
    int rc = CLI_EXIT_OK;
    /* a still (or a one-frame run) is balanced on itself before it is stitched */
    int analyze_first = a->color == COLOR_ARG_AUTO && a->n > 1 && (s->still || s->total == 1);
    cli_progress_start(&prog, s->total, a->opt.quiet);
    if (s->pipelined && stitch_pipeline_start(s) != 0) {
        cli_progress_finish(&prog);
        return stitch_pipeline_finish(s, CLI_EXIT_RUNTIME);
    }
    for (int64_t step = 0; a->opt.frames < 0 || step < a->opt.frames; step++) {
        int status = CLI_EXIT_OK;
        int g = stitch_gather(s, step, &status);
        if (g == 0 && step == 0) {
            cli_error(cli_display_path(s->cam[0].path, 0),
                      "no frames in the input: nothing to stitch");
            rc = CLI_EXIT_RUNTIME;
            break;
        }
        if (g == 0)
            break;
        if (g < 0) {
            rc = status;
            break;
        }
        int st;
        if (analyze_first && step == 0) {
            st = fovea_stitcher_analyze(s->st, s->in, a->n, 1, NULL);
            if (st < 0) {
                const char *detail = fovea_last_error(s->ctx);
                cli_error(NULL, "frame %lld: color analysis failed: %s", (long long)step,
                          *detail ? detail : fovea_strerror(st));
                rc = CLI_EXIT_RUNTIME;
                break;
            }
        }
        st = fovea_stitcher_process(s->st, s->in, a->n, &s->out);
        if (st < 0) {
            const char *detail = fovea_last_error(s->ctx);
            cli_error(NULL, "frame %lld: stitching failed: %s", (long long)step,
                      *detail ? detail : fovea_strerror(st));
            rc = CLI_EXIT_RUNTIME;
            break;
        }
        if ((rc = stitch_write_frame(s, step)) != CLI_EXIT_OK)
            break;
        s->done++; /* written, or queued for the writer thread */
        cli_progress_update(&prog, s->done);
    }
    rc = stitch_pipeline_finish(s, rc); /* the queued frames written */
    cli_progress_finish(&prog);
    return rc;
}

int cmd_stitch(int argc, char **argv)
{
    stitch_run *s = calloc(1, sizeof(*s));
    if (!s) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    int rc = parse_args(&s->a, argc, argv);
    if (rc < 0) {
        free(s);
        return CLI_EXIT_OK; /* --help */
    }
    if (rc != CLI_EXIT_OK) {
        free(s);
        return rc;
    }
    double t0 = cli_now();
    rc = setup(s);
    double t1 = cli_now();
    if (rc == CLI_EXIT_OK)
        rc = run_loop(s);
    if (rc == CLI_EXIT_OK) {
        int st = fovea_writer_finish(s->w);
        if (st < 0)
            rc = cli_report(s->a.out, 1, fovea_last_error(NULL), st);
        fovea_writer_close(&s->w);
    }
    if (rc == CLI_EXIT_OK) {
        double now = cli_now();
        fovea_color_correction cc[FOVEA_STITCH_MAX_CAMERAS];
        int st = fovea_stitcher_get_color(s->st, cc, FOVEA_STITCH_MAX_CAMERAS);
        if (st < 0) {
            cli_error(NULL, "cannot read the color corrections: %s", fovea_strerror(st));
            rc = CLI_EXIT_RUNTIME;
        } else {
            if (s->a.print_color)
                stitch_print_colors(s, cc);
            if (s->a.opt.json)
                rc = stitch_write_summary(s, cc, t1 - t0, now - t1);
        }
        if (rc == CLI_EXIT_OK) {
            char timing[96];
            cli_format_timing(timing, sizeof(timing), s->done, now - t1);
            const int json_out = s->a.opt.json && strcmp(s->a.opt.json, "-") == 0;
            cli_summary(s->a.opt.quiet, strcmp(s->a.out, "-") == 0 || json_out,
                        "stitch: %lld %s from %d camera%s -> %s %dx%d %s %s", (long long)s->done,
                        cli_frames_word(s->done), s->a.n, s->a.n == 1 ? "" : "s",
                        cli_display_path(s->a.out, 1), s->pano_w, s->pano_h,
                        fovea_pixfmt_name(s->write_fmt), timing);
        }
    }

    fovea_writer_close(&s->w); /* a failed run leaves an existing output as it was */
    fovea_stitcher_close(&s->st);
    for (int c = 0; c < s->a.n; c++) {
        fovea_reader_close(&s->cam[c].r);
        fovea_frame_free(s->ctx, &s->cam[c].raw);
        fovea_frame_free(s->ctx, &s->cam[c].cur);
        fovea_read_ring_close(&s->cam[c].ring); /* (closed already after a run) */
    }
    fovea_frame_free(s->ctx, &s->out);
    fovea_frame_free(s->ctx, &s->wout);
    cli_pipe_free(&s->pipe, s->ctx);
    fovea_stitch_map_close(&s->map);
    fovea_close(&s->ctx);
    free(s);
    return rc;
}
