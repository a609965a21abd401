/* `fovea stitch`: stitch synchronized camera streams (y4m, raw yuv) or stills
 * (PNG, PNM) into a panorama with a map built from a rig or loaded from a file. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fovea/convert.h"
#include "fovea/stitch.h"

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
    OPT_OUT_FORMAT
};

static const cli_option options[] = {
    {"rig", 0, "FILE", "rig JSON (docs/rig.md); the map is built at start", "none", OPT_RIG},
    {"map", 0, "FILE", "map file (from `fovea rig check --save-map` or `fovea map import`)",
     "none", OPT_MAP},
    {"output", 'o', "FILE", "panorama: .y4m (i420), .png (rgba; use a pattern such as "
     "pano%04d.png for several frames), .ppm (rgb24), .yuv (raw i420); '-' = y4m on stdout "
     "(required)", NULL, OPT_OUTPUT},
    {"out-format", 0, "FMT", "output container: y4m, yuv (raw), pnm or png, e.g. for -o /dev/null "
     "or a FIFO", "from the file extension; '-' is y4m", OPT_OUT_FORMAT},
    {"backend", 0, "NAME", "auto, cpu or cuda", "auto (cuda when a device is present)",
     CLI_OPT_BACKEND},
    CLI_OPTION_THREADS,
    CLI_OPTION_FRAMES("stop after N panorama frames; 0 = all"),
    {"color", 0, "MODE", "color correction: auto (gains per R, G, B channel and a gamma per "
     "camera, measured in the overlaps; YUV video: chroma corrected through those RGB "
     "curves), off, or "
     "fixed:FILE with JSON {\"cameras\":[{\"gain\":[r,g,b],\"gamma\":g}, ...]} (a --json "
     "summary of an earlier run works too)", "auto", OPT_COLOR},
    {"color-interval", 0, "K", "with --color auto, measure the overlaps every K frames", "30",
     OPT_COLOR_INTERVAL},
    {"color-smoothing", 0, "S", "with --color auto, move the corrections by S (0 < S <= 1) of "
     "the way to each new measurement", "0.1", OPT_COLOR_SMOOTHING},
    {"deterministic", 0, NULL, "measure synchronously (frame n measured, applied from n+1), so "
     "runs and backends give the same output", "off: measured in the background",
     OPT_DETERMINISTIC},
    {"print-color", 0, NULL, "print the final per-camera gains and gamma (stdout, or stderr when "
     "the video goes to stdout)", "off", OPT_PRINT_COLOR},
    {"missing", 0, "POLICY", "what to do when a camera has no frame (ended early, truncated or "
     "corrupt): error, or repeat:N to reuse its last good frame up to N times in a row",
     "error", OPT_MISSING},
    CLI_OPTION_JSON("write a JSON summary (frames, fps, backend, per-camera corrections) to "
                    "FILE; '-' = stdout"),
    CLI_OPTION_QUIET,
    {"colorspace", 0, "CS", "YUV video: the inputs' matrix, bt601 or bt709 (HD and UHD video "
     "usually); the color balance measures and corrects in it, and YUV<->RGB conversions "
     "(e.g. -o pano.png) use it", "bt601", OPT_COLORSPACE},
    {"range", 0, "RANGE", "YUV video: auto, limited or full; auto takes the inputs' y4m "
     "XCOLORRANGE tag (as ffmpeg writes it), else limited. The y4m output carries the tag",
     "auto", OPT_RANGE},
    CLI_INPUT_OPTIONS,
    {0},
};

static const cli_spec spec = {
    "stitch",
    "(--rig RIG.json | --map FILE) [options] CAM0 CAM1 ... -o OUT",
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

enum { COLOR_ARG_AUTO, COLOR_ARG_OFF, COLOR_ARG_FIXED };

typedef struct stitch_args {
    cli_common_opts opt;
    const char *rig, *map, *out;
    fovea_container out_container; /* --out-format, else from the name */
    int color;        /* COLOR_ARG_* */
    const char *color_file;
    int interval;
    double smoothing;
    int deterministic;
    int print_color;
    int max_repeat;   /* --missing repeat:N; 0 = error */
    fovea_colorspace colorspace; /* --colorspace */
    int range;        /* --range: FOVEA_COLOR_RANGE_* (UNKNOWN = auto) */
    cli_input_opts in;
    char **inputs;
    int n;
} stitch_args;

static int parse_missing(const char *v, int *n)
{
    const char *cmd = spec.name;
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
    const char *cmd = spec.name;
    cli_parser p;
    const char *v;
    int id;

    memset(a, 0, sizeof(*a));
    cli_common_opts_init(&a->opt);
    cli_input_opts_init(&a->in);
    a->out_container = FOVEA_CONTAINER_AUTO;
    a->color = COLOR_ARG_AUTO;
    a->interval = 30;
    a->smoothing = 0.1;

    cli_parser_init(&p, &spec, argc, argv);
    while ((id = cli_next(&p, &v)) > 0) {
        const int shared = cli_common_option(&a->opt, &a->in, cmd, id, v);
        if (shared != 0) {
            if (shared < 0)
                return CLI_EXIT_USAGE;
            continue;
        }
        int bad = 0;
        switch (id) {
        case OPT_RIG:
            a->rig = v;
            break;
        case OPT_MAP:
            a->map = v;
            break;
        case OPT_OUTPUT:
            a->out = v;
            break;
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
                bad = cli_usage_error(cmd, "--color: expected auto, off or fixed:FILE, got '%s'",
                                      v);
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
        case OPT_DETERMINISTIC:
            a->deterministic = 1;
            break;
        case OPT_PRINT_COLOR:
            a->print_color = 1;
            break;
        case OPT_MISSING:
            bad = parse_missing(v, &a->max_repeat);
            break;
        case OPT_COLORSPACE:
            bad = cli_parse_colorspace(cmd, "--colorspace", v, &a->colorspace);
            break;
        case OPT_RANGE:
            bad = cli_parse_range(cmd, "--range", v, 1, &a->range);
            break;
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
    const char *cmd = spec.name;
    if (!a->rig == !a->map)
        return cli_usage_error(cmd, "stitch: give one of --rig FILE or --map FILE");
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
        return cli_usage_error(cmd, "%s: unknown file type (name it .y4m, .png, .ppm or .yuv, "
                               "or use --out-format)", a->out);
    a->out_container = oc;
    if (a->opt.json && strcmp(a->opt.json, "-") == 0 && strcmp(a->out, "-") == 0)
        return cli_usage_error(cmd, "--json -: stdout already carries the video");
    if (a->color != COLOR_ARG_AUTO && a->deterministic)
        a->deterministic = 0; /* nothing is measured */
    /* before anything is opened for writing: every file read must survive */
    const char *outs[2] = {a->out, a->opt.json};
    for (int o = 0; o < 2; o++) {
        for (int c = 0; c < a->n; c++)
            if (cli_refuse_same_file(outs[o], a->inputs[c]))
                return CLI_EXIT_USAGE;
        if (cli_refuse_same_file(outs[o], a->rig) || cli_refuse_same_file(outs[o], a->map) ||
            cli_refuse_same_file(outs[o], a->color_file))
            return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ fixed colors */

static char *read_small_file(const char *path, size_t limit, size_t *len, char *err, size_t errsz)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errsz, "%s", strerror(errno));
        return NULL;
    }
    char *buf = malloc(limit + 1);
    if (!buf) {
        fclose(fp);
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    size_t n = fread(buf, 1, limit + 1, fp);
    int bad = ferror(fp);
    fclose(fp);
    if (bad || n > limit) {
        snprintf(err, errsz, bad ? "read error" : "larger than %zu bytes", limit);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int load_color_file(const char *path, int n, fovea_color_correction *cc)
{
    char err[512] = "";
    size_t len = 0;
    char *text = read_small_file(path, 1 << 20, &len, err, sizeof(err));
    int rc = text ? fovea_color_corrections_from_json(NULL, text, len, n, cc) : -1;
    if (rc < 0 && text)
        snprintf(err, sizeof(err), "%s", fovea_last_error(NULL));
    free(text);
    if (rc < 0) {
        cli_error(path, "%s", err);
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ inputs */

/* Video runs read every camera on a thread of its own (cli_ring) and write
 * the panorama on another, so that reading, stitching and writing overlap (in
 * a row, with two 3840x2160 cameras on the GPU machine: reading 4-6 ms,
 * stitching with its copies 1.2-1.5 ms, writing 9-10 ms per frame; 49-51
 * frames/s). The main thread takes each camera's reads in order, one per
 * step, as the sequential loop did (same errors, same repeats), and releases
 * each at once: a good frame's buffer is first swapped with the camera's
 * current one (no copy), whose buffer the stitcher has finished with
 * (fovea_stitcher_process waits for its frames). */
#define PIPE_SLOTS 3

typedef struct cam_input {
    const char *path;
    fovea_reader *r;
    fovea_video_info info;
    int convert;              /* the reader's format is not the stitch format */
    fovea_convert_options copt;
    fovea_frame raw;          /* read target (stills; video reads into ring) */
    fovea_frame cur;          /* what the stitcher gets: the last good frame */
    int have;                 /* cur holds a good frame */
    int ended;                /* the reader reached its end */
    int repeats;              /* consecutive repeated frames */
    int64_t frames_read, frames_repeated;
    char reason[1024];        /* why this step's frame is missing */
    cli_ring ring;            /* video: the reader thread and its frames */
} cam_input;

typedef struct stitch_run {
    stitch_args a;
    fovea_context *ctx;
    fovea_stitch_map *map;
    fovea_stitcher *st;
    fovea_writer *w;
    cam_input cam[FOVEA_STITCH_MAX_CAMERAS];
    const fovea_frame *in[FOVEA_STITCH_MAX_CAMERAS];
    fovea_frame out;          /* stitcher output */
    fovea_frame wout;         /* converted for the writer when its format differs */
    fovea_pixfmt stitch_fmt, out_fmt, write_fmt;
    fovea_container out_container;
    int full_range;           /* YUV video: full range (--range, or the inputs' tag) */
    const char *range_from;   /* "option", "XCOLORRANGE" or "default" */
    fovea_convert_options out_copt; /* the panorama's conversion for the writer */
    int still;                /* every input is a still image */
    int pano_w, pano_h;
    int64_t total;            /* frames expected, -1 unknown */
    int64_t done;
    /* pipeline (video; see PIPE_SLOTS): the cameras' readers and the writer thread */
    int pipelined;
    cli_pipe pipe;
    cli_ring *rings[FOVEA_STITCH_MAX_CAMERAS]; /* &cam[c].ring */
} stitch_run;

/* Frames the stitcher touches are pinned on CUDA contexts (faster uploads). */
static int alloc_frame(stitch_run *s, fovea_frame *f, int w, int h, fovea_pixfmt fmt,
                       int pinned_if_cuda)
{
    if (pinned_if_cuda && fovea_context_backend(s->ctx) == FOVEA_BACKEND_CUDA &&
        fovea_frame_alloc(s->ctx, f, w, h, fmt, FOVEA_MEM_PINNED) == FOVEA_OK)
        return FOVEA_OK;
    return fovea_frame_alloc(s->ctx, f, w, h, fmt, FOVEA_MEM_HOST);
}

static int stitchable(fovea_pixfmt f)
{
    return f == FOVEA_PIX_I420 || f == FOVEA_PIX_NV12 || f == FOVEA_PIX_RGB24 ||
           f == FOVEA_PIX_RGBA;
}

/* Stitch format: the inputs' common one when the stitcher takes it; otherwise
 * rgba/rgb24 for stills and i420 for video. */
static fovea_pixfmt choose_stitch_format(const stitch_run *s)
{
    const int n = s->a.n;
    int same = 1, any_alpha = 0;
    for (int c = 0; c < n; c++) {
        same &= s->cam[c].info.fmt == s->cam[0].info.fmt;
        any_alpha |= s->cam[c].info.fmt == FOVEA_PIX_RGBA ||
                     s->cam[c].info.fmt == FOVEA_PIX_RGBA64;
    }
    if (same && stitchable(s->cam[0].info.fmt))
        return s->cam[0].info.fmt;
    if (s->still)
        return any_alpha ? FOVEA_PIX_RGBA : FOVEA_PIX_RGB24;
    return FOVEA_PIX_I420;
}

/* The YUV range: --range, else the inputs' XCOLORRANGE tags, else limited. */
static int choose_range(stitch_run *s)
{
    const stitch_args *a = &s->a;
    int tagged = -1;
    for (int c = 0; c < a->n && !s->still; c++) {
        const int r = s->cam[c].info.color_range;
        if (r == FOVEA_COLOR_RANGE_UNKNOWN || a->range != FOVEA_COLOR_RANGE_UNKNOWN)
            continue;
        if (tagged >= 0 && r != s->cam[tagged].info.color_range) {
            cli_error(cli_display_path(s->cam[c].path, 0),
                      "its y4m header says XCOLORRANGE=%s but camera %d's says %s: give --range",
                      r == FOVEA_COLOR_RANGE_FULL ? "FULL" : "LIMITED", tagged,
                      r == FOVEA_COLOR_RANGE_FULL ? "LIMITED" : "FULL");
            return CLI_EXIT_RUNTIME;
        }
        tagged = tagged < 0 ? c : tagged;
    }
    if (a->range != FOVEA_COLOR_RANGE_UNKNOWN) {
        s->full_range = a->range == FOVEA_COLOR_RANGE_FULL;
        s->range_from = "option";
    } else if (tagged >= 0) {
        s->full_range = s->cam[tagged].info.color_range == FOVEA_COLOR_RANGE_FULL;
        s->range_from = "XCOLORRANGE";
    } else {
        s->full_range = 0;
        s->range_from = "default";
    }
    return CLI_EXIT_OK;
}

static int open_inputs(stitch_run *s)
{
    stitch_args *a = &s->a;
    int nmap = 0;
    fovea_stitch_map_geometry(s->map, &s->pano_w, &s->pano_h, &nmap);
    if (nmap != a->n) {
        cli_error(a->rig ? a->rig : a->map, "the map has %d camera%s, got %d input%s", nmap,
                  nmap == 1 ? "" : "s", a->n, a->n == 1 ? "" : "s");
        return CLI_EXIT_RUNTIME;
    }
    s->total = -1;
    int all_known = 1;
    for (int c = 0; c < a->n; c++) {
        cam_input *ci = &s->cam[c];
        ci->path = a->inputs[c];
        int rc = cli_open_reader(spec.name, ci->path, &a->in, &ci->r);
        if (rc != CLI_EXIT_OK)
            return rc;
        ci->info = *fovea_reader_info(ci->r);
        int mw, mh;
        fovea_stitch_map_camera_size(s->map, c, &mw, &mh);
        if (ci->info.width != mw || ci->info.height != mh) {
            cli_error(cli_display_path(ci->path, 0),
                      "camera %d is %dx%d, the map expects %dx%d", c, ci->info.width,
                      ci->info.height, mw, mh);
            return CLI_EXIT_RUNTIME;
        }
        if (ci->info.frame_count < 0)
            all_known = 0;
        else if (s->total < 0 || ci->info.frame_count < s->total)
            s->total = ci->info.frame_count;
        if (ci->info.frame_count == 0) {
            cli_error(cli_display_path(ci->path, 0), "no frames in the input: nothing to stitch");
            return CLI_EXIT_RUNTIME;
        }
    }
    /* stills or video by the readers (an input without a known extension is
     * known by its first bytes only now) */
    int stills = 0;
    for (int c = 0; c < a->n; c++) {
        const fovea_container ic = fovea_reader_container(s->cam[c].r);
        stills += ic == FOVEA_CONTAINER_PNG || ic == FOVEA_CONTAINER_PNM;
    }
    if (stills && stills != a->n)
        return cli_usage_error(spec.name, "stitch: inputs must be all videos (y4m, yuv) or all "
                               "stills (png, pnm)");
    s->still = stills > 0;
    s->pipelined = !s->still;
    if (!all_known)
        s->total = -1;
    if (a->opt.frames >= 0 && (s->total < 0 || a->opt.frames < s->total))
        s->total = a->opt.frames;

    /* frame rates: inputs are paired frame by frame */
    const fovea_video_info *i0 = &s->cam[0].info;
    for (int c = 1; c < a->n && !s->still; c++) {
        const fovea_video_info *ic = &s->cam[c].info;
        if (i0->fps_num > 0 && ic->fps_num > 0 &&
            (int64_t)i0->fps_num * ic->fps_den != (int64_t)ic->fps_num * i0->fps_den)
            cli_error(cli_display_path(s->cam[c].path, 0),
                      "warning: frame rate %d/%d differs from camera 0's %d/%d; frames are "
                      "paired one to one",
                      ic->fps_num, ic->fps_den, i0->fps_num, i0->fps_den);
    }

    s->stitch_fmt = choose_stitch_format(s);
    const int rc = choose_range(s);
    if (rc != CLI_EXIT_OK)
        return rc;
    fovea_convert_options_init(&s->out_copt);
    s->out_copt.colorspace = a->colorspace;
    s->out_copt.range = s->full_range ? FOVEA_RANGE_FULL : FOVEA_RANGE_LIMITED;
    for (int c = 0; c < a->n; c++) {
        cam_input *ci = &s->cam[c];
        ci->convert = ci->info.fmt != s->stitch_fmt;
        ci->copt = s->out_copt;
        const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(ci->info.fmt);
        /* a gray still holds full-range values */
        if (s->still && d && d->is_yuv && d->planes == 1)
            ci->copt.range = FOVEA_RANGE_FULL;
        if (ci->convert && !s->still)
            cli_error(cli_display_path(ci->path, 0), "warning: %s input converted to %s for "
                      "stitching", fovea_pixfmt_name(ci->info.fmt),
                      fovea_pixfmt_name(s->stitch_fmt));
        int st;
        if (!s->pipelined) {
            st = alloc_frame(s, &ci->raw, ci->info.width, ci->info.height, ci->info.fmt,
                             !ci->convert);
        } else {
            /* pinned on CUDA contexts unless converted first, as alloc_frame */
            const int pin = !ci->convert && fovea_context_backend(s->ctx) == FOVEA_BACKEND_CUDA;
            st = cli_ring_init(&ci->ring, s->ctx, ci->r, PIPE_SLOTS, a->opt.frames,
                               pin ? FOVEA_MEM_PINNED : FOVEA_MEM_HOST, 0);
            if (st < 0 && pin) {
                cli_ring_stop(&ci->ring);
                st = cli_ring_init(&ci->ring, s->ctx, ci->r, PIPE_SLOTS, a->opt.frames,
                                   FOVEA_MEM_HOST, 0);
            }
        }
        if (st == FOVEA_OK)
            st = alloc_frame(s, &ci->cur, ci->info.width, ci->info.height, s->stitch_fmt, 1);
        if (st < 0) {
            cli_error(cli_display_path(ci->path, 0), "cannot allocate %dx%d frames: %s",
                      ci->info.width, ci->info.height, fovea_strerror(st));
            return CLI_EXIT_RUNTIME;
        }
        s->in[c] = &ci->cur;
    }
    return CLI_EXIT_OK;
}

/* The reader's message without the "<path>: frame N: " that the caller adds back. */
static void set_reason(cam_input *ci, const char *msg)
{
    const char *shown = cli_display_path(ci->path, 0);
    size_t n = strlen(shown);
    if (strncmp(msg, shown, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
        msg += n + 2;
    if (strncmp(msg, "frame ", 6) == 0) {
        const char *p = msg + 6;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p > msg + 6 && p[0] == ':' && p[1] == ' ')
            msg = p + 2;
    }
    snprintf(ci->reason, sizeof(ci->reason), "%s", *msg ? msg : "read error");
}

/* Camera ci's next read: its status, the frame (*f) and the reader's message. */
static int take_read(stitch_run *s, cam_input *ci, fovea_frame **f, const char **msg)
{
    if (!s->pipelined) {
        int st = fovea_reader_read(ci->r, &ci->raw);
        *f = &ci->raw;
        *msg = fovea_last_error(NULL);
        return st;
    }
    return cli_ring_take(&ci->ring, f, msg);
}

/* The read taken last may be overwritten now. */
static void give_back_read(stitch_run *s, cam_input *ci)
{
    if (s->pipelined)
        cli_ring_release(&ci->ring);
}

/* Read one frame of camera ci. @return 1 fresh frame, 0 missing (reason set),
 * -1 fatal (reported). */
static int read_camera(stitch_run *s, cam_input *ci)
{
    if (ci->ended) {
        snprintf(ci->reason, sizeof(ci->reason), "end of input after %lld frame%s",
                 (long long)ci->frames_read, ci->frames_read == 1 ? "" : "s");
        return 0;
    }
    fovea_frame *raw;
    const char *msg;
    int st = take_read(s, ci, &raw, &msg);
    if (st == FOVEA_EOF) {
        give_back_read(s, ci);
        ci->ended = 1;
        snprintf(ci->reason, sizeof(ci->reason), "end of input after %lld frame%s",
                 (long long)ci->frames_read, ci->frames_read == 1 ? "" : "s");
        return 0;
    }
    if (st < 0) {
        set_reason(ci, msg);
        give_back_read(s, ci);
        return 0;
    }
    if (ci->convert) {
        st = fovea_frame_convert(s->ctx, &ci->cur, raw, &ci->copt);
        if (st < 0) {
            const char *detail = fovea_last_error(s->ctx);
            cli_error(cli_display_path(ci->path, 0), "frame %lld: cannot convert %s to %s: %s",
                      (long long)raw->index, fovea_pixfmt_name(raw->fmt),
                      fovea_pixfmt_name(ci->cur.fmt), *detail ? detail : fovea_strerror(st));
            give_back_read(s, ci);
            return -1;
        }
        ci->cur.index = raw->index;
    } else {
        /* the fresh frame becomes the current one; the reader gets the old buffer */
        fovea_frame t = ci->cur;
        ci->cur = *raw;
        *raw = t;
    }
    give_back_read(s, ci);
    ci->have = 1;
    ci->repeats = 0;
    ci->frames_read++;
    return 1;
}

/* One step: a frame from every camera, or a repeat of its last frame.
 * @return 1 ready to stitch, 0 normal end, or an exit status > 1 coded as -(status). */
static int gather(stitch_run *s, int64_t step, int *exit_status)
{
    const stitch_args *a = &s->a;
    int got[FOVEA_STITCH_MAX_CAMERAS];
    int fresh = 0, failed = -1;
    for (int c = 0; c < a->n; c++) {
        got[c] = read_camera(s, &s->cam[c]);
        if (got[c] < 0) {
            *exit_status = CLI_EXIT_RUNTIME;
            return -1;
        }
        fresh += got[c];
        if (!got[c] && !s->cam[c].ended && failed < 0)
            failed = c;
    }
    if (fresh == 0) {
        /* nothing left anywhere: the end, unless a camera failed to read */
        if (failed < 0)
            return 0;
        cam_input *ci = &s->cam[failed];
        if (a->max_repeat == 0) {
            cli_error(cli_display_path(ci->path, 0), "frame %lld: %s", (long long)step,
                      ci->reason);
            *exit_status = CLI_EXIT_RUNTIME;
            return -1;
        }
        cli_error(cli_display_path(ci->path, 0),
                  "warning: frame %lld missing (%s) and no other camera has one: ending",
                  (long long)step, ci->reason);
        return 0;
    }
    for (int c = 0; c < a->n; c++) {
        cam_input *ci = &s->cam[c];
        if (got[c])
            continue;
        const char *shown = cli_display_path(ci->path, 0);
        if (a->max_repeat == 0) {
            cli_error(shown, "frame %lld: %s%s", (long long)step, ci->reason,
                      ci->ended ? " while other cameras go on (see --missing)" : "");
            *exit_status = CLI_EXIT_RUNTIME;
            return -1;
        }
        if (!ci->have) {
            cli_error(shown, "frame %lld: %s (no earlier frame to repeat)", (long long)step,
                      ci->reason);
            *exit_status = CLI_EXIT_RUNTIME;
            return -1;
        }
        if (ci->repeats >= a->max_repeat) {
            cli_error(shown, "frame %lld: %s, and frame %lld was already repeated %d time%s "
                      "(--missing repeat:%d)", (long long)step, ci->reason,
                      (long long)ci->cur.index, ci->repeats, ci->repeats == 1 ? "" : "s",
                      a->max_repeat);
            *exit_status = CLI_EXIT_RUNTIME;
            return -1;
        }
        ci->repeats++;
        ci->frames_repeated++;
        cli_error(shown, "frame %lld missing, repeating frame %lld (%d/%d): %s", (long long)step,
                  (long long)ci->cur.index, ci->repeats, a->max_repeat, ci->reason);
    }
    return 1;
}

/* ------------------------------------------------------------------ output */

static fovea_pixfmt writer_format(fovea_container c)
{
    switch (c) {
    case FOVEA_CONTAINER_PNG: return FOVEA_PIX_RGBA;
    case FOVEA_CONTAINER_PNM: return FOVEA_PIX_RGB24;
    default: return FOVEA_PIX_I420;
    }
}

static int open_output(stitch_run *s)
{
    const stitch_args *a = &s->a;
    s->out_container = a->out_container;
    s->out_fmt = (s->stitch_fmt == FOVEA_PIX_I420 || s->stitch_fmt == FOVEA_PIX_NV12)
                     ? FOVEA_PIX_I420
                     : FOVEA_PIX_RGBA;
    s->write_fmt = writer_format(s->out_container);
    int single = s->out_container == FOVEA_CONTAINER_PNG || s->out_container == FOVEA_CONTAINER_PNM;
    if (single && s->total > 1 && !strchr(a->out, '%')) {
        cli_error(a->out, "%lld frames to write but %s holds one image: use a pattern such as "
                  "pano%%04d.%s, or --frames 1", (long long)s->total,
                  fovea_container_name(s->out_container),
                  s->out_container == FOVEA_CONTAINER_PNG ? "png" : "ppm");
        return CLI_EXIT_RUNTIME;
    }
    int st = alloc_frame(s, &s->out, s->pano_w, s->pano_h, s->out_fmt, 1);
    if (st == FOVEA_OK && s->write_fmt != s->out_fmt)
        st = alloc_frame(s, &s->wout, s->pano_w, s->pano_h, s->write_fmt, 0);
    if (st == FOVEA_OK && s->pipelined)
        st = cli_pipe_init(&s->pipe, PIPE_SLOTS);
    for (int k = 0; k < PIPE_SLOTS && s->pipelined && st == FOVEA_OK; k++) {
        /* the writer's slots: f[0] the panorama, f[1] converted for the writer */
        cli_pipe_slot *ws = &s->pipe.slot[k];
        st = alloc_frame(s, &ws->f[0], s->pano_w, s->pano_h, s->out_fmt, 1);
        if (st == FOVEA_OK && s->write_fmt != s->out_fmt)
            st = alloc_frame(s, &ws->f[1], s->pano_w, s->pano_h, s->write_fmt, 0);
    }
    if (st < 0) {
        cli_error(NULL, "cannot allocate a %dx%d panorama: %s", s->pano_w, s->pano_h,
                  fovea_strerror(st));
        return CLI_EXIT_RUNTIME;
    }

    fovea_video_info info;
    fovea_video_info_init(&info);
    const fovea_video_info *i0 = &s->cam[0].info;
    info.width = s->pano_w;
    info.height = s->pano_h;
    info.fmt = s->write_fmt;
    if (!s->still) {
        info.fps_num = i0->fps_num;
        info.fps_den = i0->fps_den;
        info.sar_num = i0->sar_num;
        info.sar_den = i0->sar_den;
        info.interlace = i0->interlace;
        const fovea_pixfmt_desc *wd = fovea_pixfmt_get_desc(s->write_fmt);
        if (wd && wd->is_yuv)
            info.color_range = s->full_range ? FOVEA_COLOR_RANGE_FULL : FOVEA_COLOR_RANGE_LIMITED;
    }
    st = fovea_writer_open(&s->w, NULL, a->out, s->out_container, &info);
    if (st < 0)
        return cli_report(a->out, 1, fovea_last_error(NULL), st);
    return CLI_EXIT_OK;
}

/* ---- writing: in line (stills), or through the pipeline's writer thread */

static int write_failure(stitch_run *s, int st)
{
    return cli_report(s->a.out, 1, cli_pipe_error(&s->pipe), st);
}

static int write_frame(stitch_run *s, int64_t step)
{
    const stitch_args *a = &s->a;
    const fovea_frame *f = &s->out;
    s->out.index = step;
    if (s->write_fmt != s->out_fmt) {
        int st = fovea_frame_convert(s->ctx, &s->wout, &s->out, &s->out_copt);
        if (st < 0) {
            const char *detail = fovea_last_error(s->ctx);
            cli_error(cli_display_path(a->out, 1), "frame %lld: cannot convert %s to %s: %s",
                      (long long)step, fovea_pixfmt_name(s->out_fmt),
                      fovea_pixfmt_name(s->write_fmt), *detail ? detail : fovea_strerror(st));
            return CLI_EXIT_RUNTIME;
        }
        s->wout.index = step;
        f = &s->wout;
    }
    if (s->pipelined) {
        /* to the writer thread: the panorama's buffers trade places with a
         * written slot's (no copy) */
        fovea_frame *bufs[2] = {&s->out, &s->wout};
        const int st = cli_pipe_put(&s->pipe, bufs, f == &s->wout);
        return st < 0 ? write_failure(s, st) : CLI_EXIT_OK;
    }
    int st = fovea_writer_write(s->w, f);
    if (st < 0)
        return write_failure(s, st);
    return CLI_EXIT_OK;
}

/* Start the reader threads and the writer thread. @return 0, or -1 reported */
static int pipeline_start(stitch_run *s)
{
    for (int c = 0; c < s->a.n; c++)
        s->rings[c] = &s->cam[c].ring;
    return cli_pipe_start(&s->pipe, s->w, s->rings, s->a.n);
}

/* The writer writes what was queued, the readers stop; all threads joined.
 * @return rc, or the writer's failure when rc was OK */
static int pipeline_finish(stitch_run *s, int rc)
{
    if (!s->pipe.ready)
        return rc;
    const int st = cli_pipe_finish(&s->pipe);
    s->done = s->pipe.written;
    if (rc == CLI_EXIT_OK && st < 0)
        rc = write_failure(s, st);
    return rc;
}

/* ------------------------------------------------------------------ reports */

static const char *color_mode_name(int m)
{
    return m == COLOR_ARG_OFF ? "off" : m == COLOR_ARG_FIXED ? "fixed" : "auto";
}

static void print_colors(const stitch_run *s, const fovea_color_correction *cc)
{
    FILE *fp = strcmp(s->a.out, "-") == 0 ? stderr : stdout;
    for (int c = 0; c < s->a.n; c++)
        fprintf(fp, "camera %d (%s): gain %.4f %.4f %.4f  gamma %.4f\n", c,
                cli_display_path(s->cam[c].path, 0), (double)cc[c].gain[0],
                (double)cc[c].gain[1], (double)cc[c].gain[2], (double)cc[c].gamma);
}

static int write_summary(const stitch_run *s, const fovea_color_correction *cc,
                         double setup_seconds, double seconds)
{
    const stitch_args *a = &s->a;
    cJSON *root = cJSON_CreateObject();
    if (!root) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    cJSON_AddStringToObject(root, a->rig ? "rig" : "map", a->rig ? a->rig : a->map);
    cJSON_AddStringToObject(root, "output", a->out);
    cJSON_AddStringToObject(root, "output_pixfmt", fovea_pixfmt_name(s->write_fmt));
    cJSON_AddNumberToObject(root, "width", s->pano_w);
    cJSON_AddNumberToObject(root, "height", s->pano_h);
    cJSON_AddNumberToObject(root, "frames", (double)s->done);
    cJSON_AddNumberToObject(root, "setup_seconds", setup_seconds); /* map, inputs, stitcher */
    cJSON_AddNumberToObject(root, "seconds", seconds);             /* the frames */
    cJSON_AddNumberToObject(root, "fps", seconds > 0 ? (double)s->done / seconds : 0.0);
    cJSON_AddStringToObject(root, "backend", fovea_backend_name(fovea_context_backend(s->ctx)));
    cJSON_AddNumberToObject(root, "threads", fovea_context_threads(s->ctx));
    cJSON_AddStringToObject(root, "stitch_pixfmt", fovea_pixfmt_name(s->stitch_fmt));
    if (!s->still) {
        cJSON *yuv = cJSON_AddObjectToObject(root, "yuv");
        cJSON_AddStringToObject(yuv, "colorspace", cli_colorspace_name(a->colorspace));
        cJSON_AddStringToObject(yuv, "range", s->full_range ? "full" : "limited");
        cJSON_AddStringToObject(yuv, "range_from", s->range_from);
    }
    cJSON *col = cJSON_AddObjectToObject(root, "color");
    cJSON_AddStringToObject(col, "mode", color_mode_name(a->color));
    if (a->color == COLOR_ARG_FIXED)
        cJSON_AddStringToObject(col, "file", a->color_file);
    cJSON_AddNumberToObject(col, "interval", a->interval);
    cJSON_AddNumberToObject(col, "smoothing", a->smoothing);
    cJSON_AddBoolToObject(col, "deterministic", a->deterministic);
    cJSON *cams = cJSON_AddArrayToObject(root, "cameras");
    for (int c = 0; c < a->n; c++) {
        const cam_input *ci = &s->cam[c];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", c);
        cJSON_AddStringToObject(o, "input", ci->path);
        cJSON_AddNumberToObject(o, "width", ci->info.width);
        cJSON_AddNumberToObject(o, "height", ci->info.height);
        cJSON_AddStringToObject(o, "pixfmt", fovea_pixfmt_name(ci->info.fmt));
        cJSON_AddBoolToObject(o, "converted", ci->convert);
        cJSON_AddNumberToObject(o, "frames_read", (double)ci->frames_read);
        cJSON_AddNumberToObject(o, "frames_repeated", (double)ci->frames_repeated);
        cJSON *g = cJSON_AddArrayToObject(o, "gain");
        for (int k = 0; k < 3; k++)
            cJSON_AddItemToArray(g, cJSON_CreateNumber((double)cc[c].gain[k]));
        cJSON_AddNumberToObject(o, "gamma", (double)cc[c].gamma);
        cJSON_AddItemToArray(cams, o);
    }
    int rc = cli_write_json(a->opt.json, root);
    cJSON_Delete(root);
    return rc;
}

/* ------------------------------------------------------------------ main */

static int setup(stitch_run *s)
{
    stitch_args *a = &s->a;
    if (cli_open_context(&s->ctx, &a->opt, CLI_CONTEXT_MSG_OPTION) != CLI_EXIT_OK)
        return CLI_EXIT_RUNTIME;
    int st;
    if (a->rig)
        st = fovea_stitch_map_open_rig_file(&s->map, s->ctx, a->rig);
    else
        st = fovea_stitch_map_open_file(&s->map, s->ctx, a->map);
    if (st < 0)
        return cli_report(a->rig ? a->rig : a->map, 0, fovea_last_error(s->ctx), st);

    fovea_color_correction cc[FOVEA_STITCH_MAX_CAMERAS];
    if (a->color == COLOR_ARG_FIXED) {
        int nmap = 0;
        fovea_stitch_map_geometry(s->map, NULL, NULL, &nmap);
        int rc = load_color_file(a->color_file, nmap, cc);
        if (rc != CLI_EXIT_OK)
            return rc;
    }

    st = fovea_stitch_map_covers_any(s->map);
    if (st <= 0) {
        cli_error(a->rig ? a->rig : a->map, st == 0 ? "no camera sees any pixel of the panorama "
                  "(zero coverage): nothing to stitch" : "invalid map");
        return CLI_EXIT_RUNTIME;
    }

    /* open_inputs tells stills (no threads) from video (reader and writer threads) */
    int rc = open_inputs(s);
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
    return open_output(s);
}

static int run_loop(stitch_run *s)
{
    const stitch_args *a = &s->a;
    cli_progress prog;
    int rc = CLI_EXIT_OK;
    /* a still (or a one-frame run) is balanced on itself before it is stitched */
    int analyse_first = a->color == COLOR_ARG_AUTO && a->n > 1 &&
                        (s->still || s->total == 1);
    cli_progress_start(&prog, s->total, a->opt.quiet);
    if (s->pipelined && pipeline_start(s) != 0) {
        cli_progress_finish(&prog);
        return pipeline_finish(s, CLI_EXIT_RUNTIME);
    }
    for (int64_t step = 0; a->opt.frames < 0 || step < a->opt.frames; step++) {
        int status = CLI_EXIT_OK;
        int g = gather(s, step, &status);
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
        if (analyse_first && step == 0) {
            st = fovea_stitcher_analyse(s->st, s->in, a->n, 1, NULL);
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
        if ((rc = write_frame(s, step)) != CLI_EXIT_OK)
            break;
        s->done++; /* written, or queued for the writer thread */
        cli_progress_update(&prog, s->done);
    }
    rc = pipeline_finish(s, rc); /* the queued frames written */
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
                print_colors(s, cc);
            if (s->a.opt.json)
                rc = write_summary(s, cc, t1 - t0, now - t1);
        }
        if (rc == CLI_EXIT_OK) {
            char timing[96];
            cli_format_timing(timing, sizeof(timing), s->done, now - t1);
            const int json_out = s->a.opt.json && strcmp(s->a.opt.json, "-") == 0;
            cli_summary(s->a.opt.quiet, strcmp(s->a.out, "-") == 0 || json_out,
                        "stitch: %lld %s from %d camera%s -> %s %dx%d %s %s",
                        (long long)s->done, cli_frames_word(s->done), s->a.n,
                        s->a.n == 1 ? "" : "s", cli_display_path(s->a.out, 1), s->pano_w,
                        s->pano_h, fovea_pixfmt_name(s->write_fmt), timing);
        }
    }

    fovea_writer_close(&s->w); /* a failed run leaves an existing output as it was */
    fovea_stitcher_close(&s->st);
    for (int c = 0; c < s->a.n; c++) {
        fovea_reader_close(&s->cam[c].r);
        fovea_frame_free(s->ctx, &s->cam[c].raw);
        fovea_frame_free(s->ctx, &s->cam[c].cur);
        cli_ring_stop(&s->cam[c].ring); /* (stopped already after a run) */
    }
    fovea_frame_free(s->ctx, &s->out);
    fovea_frame_free(s->ctx, &s->wout);
    cli_pipe_free(&s->pipe, s->ctx);
    fovea_stitch_map_close(&s->map);
    fovea_close(&s->ctx);
    free(s);
    return rc;
}
