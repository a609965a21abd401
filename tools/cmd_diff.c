/* `fovea diff IN`: what changes between consecutive frames: heat maps, noise
 * maps and tile masks as video or image sequences, per-frame numbers as JSON
 * and a PNG chart. Reading, differencing and each output's writing overlap. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "chart.h"
#include "cli.h"
#include "fovea/convert.h"
#include "fovea/diff.h"

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
    {"heatmap", 0, "OUT", "write the heat maps: y4m (i420; '-' = stdout), or RGB PNG/PPM "
     "images with a pattern such as heat%04d.png", "none", OPT_HEATMAP},
    {"noise", 0, "OUT", "write the noise maps (changed pixels red): y4m or images as --heatmap",
     "none", OPT_NOISE},
    {"noise-mode", 0, "MODE", "black (red on black) or overlay (red painted over the current "
     "frame, in the input's format; needs rgb24, rgba or i420 input)", "black", OPT_NOISE_MODE},
    {"mask", 0, "OUT", "write the tile masks, one gray pixel per tile (255 changed, 0 not): y4m "
     "(mono) or gray PNG/PGM images", "none", OPT_MASK},
    {"threshold", 't', "T|auto", "a pixel changed when a channel differs by more than T "
     "(sample units); auto = ceil(K x noise sigma) of each pair", "10", OPT_THRESHOLD},
    {"auto-k", 0, "K", "K of --threshold auto, 0 < K <= 1000", "3", OPT_AUTO_K},
    {"tile", 0, "N", "tile side of the change mask: 8, 16, 32 or 64", "16", OPT_TILE},
    {"denoise", 0, "F", "filter both frames before differencing: none, median3, gauss5 or "
     "temporal:S (exponential average, history weight S/256, 0..255; temporal = temporal:192)",
     "none", OPT_DENOISE},
    {"normalize", 0, "MAX", "difference shown as the top of the heat map (red); larger ones "
     "saturate, so small changes show; 0 = the measure's full range", "0", OPT_NORMALIZE},
    {"measure", 0, "M", "heat-map difference of a pixel: sum (of the channel differences) or "
     "max (the largest)", "sum", OPT_MEASURE},
    CLI_OPTION_BACKEND,
    CLI_OPTION_THREADS,
    CLI_OPTION_FRAMES("make at most N maps (reads N + 1 frames); 0 = all"),
    CLI_OPTION_QUIET,
    CLI_OPTION_JSON("write per-map numbers (changed pixels and tiles, mean and max "
                    "difference, noise sigma, threshold), totals and settings; '-' = stdout"),
    {"plot", 0, "FILE.png", "draw the changed fractions and the noise sigma per map as a "
     "1200x500 PNG chart", "none", OPT_PLOT},
    CLI_INPUT_OPTIONS,
    {0},
};

static const cli_spec spec = {
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

enum { OUT_HEAT, OUT_NOISE, OUT_MASK, N_OUT };
static const char *const out_option[N_OUT] = {"--heatmap", "--noise", "--mask"};

typedef struct diff_args {
    cli_common_opts opt; /* frames: maps */
    cli_input_opts in;
    const char *input;
    const char *out[N_OUT];
    fovea_diff_settings set;
    const char *plot;
} diff_args;

/* 1 when path is a frame-number pattern the image readers and writers take
 * (one %d, %Nd or %0Nd; "%%" a literal %), 0 otherwise. */
static int is_pattern(const char *path, fovea_container c)
{
    if (c != FOVEA_CONTAINER_PNG && c != FOVEA_CONTAINER_PNM)
        return 0;
    int found = 0;
    for (const char *p = path; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        p++;
        if (*p == '0')
            p++;
        for (int k = 0; k < 2 && *p >= '0' && *p <= '9'; k++)
            p++;
        if (*p != 'd' || found)
            return 0;
        found = 1;
    }
    return found;
}

/* The container an output is written as: by its extension, y4m otherwise. */
static fovea_container out_container(const char *path)
{
    const fovea_container c = fovea_container_from_path(path);
    return c == FOVEA_CONTAINER_AUTO ? FOVEA_CONTAINER_Y4M : c;
}

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
    const char *cmd = spec.name;
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

    /* outputs: one at most on stdout, no two the same file, none an input */
    const char *names[N_OUT + 2] = {a->out[0], a->out[1], a->out[2], a->opt.json, a->plot};
    const char *opts[N_OUT + 2] = {out_option[0], out_option[1], out_option[2], "--json",
                                   "--plot"};
    int on_stdout = 0;
    for (int i = 0; i < N_OUT + 2; i++) {
        if (!names[i])
            continue;
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
            if (names[j] && (strcmp(names[i], names[j]) == 0 || fovea_same_file(names[i], names[j])))
                return cli_usage_error(cmd, "%s and %s name the same file: %s", opts[j], opts[i],
                                       names[i]);
        if (cli_refuse_same_file(names[i], a->input))
            return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ inputs as outputs */

typedef struct file_id {
    dev_t dev;
    ino_t ino;
} file_id;

static int cmp_id(const void *pa, const void *pb)
{
    const file_id *a = pa, *b = pb;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    return a->ino < b->ino ? -1 : a->ino > b->ino ? 1 : 0;
}

/* Refuse (exit 2) an output that would write over a file of an image-sequence
 * input: every name an output can take (a single name, or a pattern's names
 * for maps 0..nmaps-1) against every file of the input. The library refuses
 * a single input per pattern output (fovea_writer_protect); a sequence is
 * checked here, before anything is opened for writing. */
static int refuse_sequence_outputs(const diff_args *a, int64_t nfiles, int64_t nmaps)
{
    file_id *ids = malloc((size_t)(nfiles + 1) * sizeof(*ids));
    if (!ids) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    size_t n = 0;
    char name[4096];
    struct stat st;
    /* the files numbered 0..nfiles: the sequence starts at 0 or 1 */
    for (int64_t i = 0; i <= nfiles; i++)
        if (snprintf(name, sizeof(name), a->input, (int)i) < (int)sizeof(name) &&
            stat(name, &st) == 0) {
            ids[n].dev = st.st_dev;
            ids[n].ino = st.st_ino;
            n++;
        }
    qsort(ids, n, sizeof(*ids), cmp_id);
    const char *names[N_OUT + 2] = {a->out[0], a->out[1], a->out[2], a->opt.json, a->plot};
    int rc = CLI_EXIT_OK;
    for (int k = 0; k < N_OUT + 2 && rc == CLI_EXIT_OK; k++) {
        if (!names[k] || strcmp(names[k], "-") == 0)
            continue;
        const int pat = k < N_OUT && is_pattern(names[k], out_container(names[k]));
        for (int64_t i = 0; i < (pat ? nmaps : 1) && rc == CLI_EXIT_OK; i++) {
            const char *nm = names[k];
            if (pat) {
                snprintf(name, sizeof(name), names[k], (int)i);
                nm = name;
            }
            if (stat(nm, &st) != 0)
                continue;
            file_id key = {st.st_dev, st.st_ino};
            if (bsearch(&key, ids, n, sizeof(*ids), cmp_id)) {
                cli_error(nm, "output is the same file as a file of input %s", a->input);
                rc = CLI_EXIT_USAGE;
            }
        }
    }
    free(ids);
    return rc;
}

/* ------------------------------------------------------------------ run state */

#define PIPE_SLOTS 4
#define READ_SLOTS 6

/* One requested output: its writer on a thread of its own (a cli_pipe without
 * readers) and the frames the maps are made in. */
typedef struct diff_output {
    const char *path;
    fovea_container container;
    int width, height;
    fovea_pixfmt map_fmt;   /* what fovea_diff_compute writes (the mask: gray8) */
    fovea_pixfmt write_fmt; /* what the writer takes */
    fovea_writer *w;
    cli_pipe pipe;
    fovea_frame buf[2];     /* [0] the map, [1] converted for the writer */
} diff_output;

/* The numbers of one map. */
typedef struct diff_stat {
    int64_t changed_pixels, changed_tiles, diff_sum;
    int diff_max, threshold;
    double sigma;
} diff_stat;

typedef struct diff_run {
    diff_args a;
    fovea_reader *r;
    fovea_video_info info;
    int64_t tiles;          /* per map */
    int tiles_x, tiles_y;
    fovea_context *ctx;
    fovea_diff *d;
    fovea_memtype mem;      /* of the frames the differencer reads and writes */
    fovea_convert_options co;
    diff_output out[N_OUT];
    cli_ring ring;
    int ring_started;
    /* CUDA backend: each frame goes to the device once (frame k into dev[k % 2])
       and the maps are made from there, instead of both frames of every pair
       crossing the bus */
    fovea_frame dev[2];
    int on_device;
    diff_stat *stats;
    int64_t n, cap;         /* maps made */
    int want_sigma;
    cli_progress prog;
} diff_run;

/* Open the input and refuse what cannot be differenced before any output is
 * opened. @return CLI_EXIT_OK or the exit code, the error printed */
static int open_input(diff_run *s)
{
    const diff_args *a = &s->a;
    int rc = cli_open_reader(spec.name, a->input, &a->in, &s->r);
    if (rc != CLI_EXIT_OK)
        return rc;
    s->info = *fovea_reader_info(s->r);
    const fovea_video_info *in = &s->info;
    const char *shown = cli_display_path(a->input, 0);
    if (in->frame_count == 0) {
        cli_error(shown, "no frames in the input: nothing to difference");
        return CLI_EXIT_RUNTIME;
    }
    if (in->frame_count == 1) {
        cli_error(shown, "one frame: diff needs at least 2 frames");
        return CLI_EXIT_RUNTIME;
    }
    if (a->out[OUT_NOISE] && a->set.noise_mode == FOVEA_DIFF_NOISE_OVERLAY &&
        in->fmt != FOVEA_PIX_RGB24 && in->fmt != FOVEA_PIX_RGBA && in->fmt != FOVEA_PIX_I420) {
        cli_error(shown, "%s: --noise-mode overlay paints over the input frames, which must be "
                  "rgb24, rgba or i420", fovea_pixfmt_name(in->fmt));
        return CLI_EXIT_RUNTIME;
    }
    s->tiles_x = (in->width + a->set.tile - 1) / a->set.tile;
    s->tiles_y = (in->height + a->set.tile - 1) / a->set.tile;
    s->tiles = (int64_t)s->tiles_x * s->tiles_y;
    const fovea_container ic = fovea_reader_container(s->r);
    if (strcmp(a->input, "-") != 0 && is_pattern(a->input, ic)) {
        int64_t maps = in->frame_count - 1;
        if (a->opt.frames >= 0 && a->opt.frames < maps)
            maps = a->opt.frames;
        return refuse_sequence_outputs(a, in->frame_count, maps);
    }
    return CLI_EXIT_OK;
}

static int open_differencer(diff_run *s)
{
    fovea_settings cs;
    cli_context_settings(&cs, &s->a.opt);
    cs.log = cli_log_to_stderr;
    if (cli_open_context_with(&s->ctx, &cs, CLI_CONTEXT_MSG_NAMED) != CLI_EXIT_OK)
        return CLI_EXIT_RUNTIME;
    int st = fovea_diff_open(&s->d, s->ctx, &s->a.set);
    if (st < 0) {
        cli_error(NULL, "%s", fovea_last_error(s->ctx));
        return CLI_EXIT_RUNTIME;
    }
    s->mem = FOVEA_MEM_HOST;
    if (fovea_diff_backend(s->d) == FOVEA_BACKEND_CUDA) {
        s->mem = FOVEA_MEM_PINNED;
        s->on_device = 1;
        for (int k = 0; k < 2 && s->on_device; k++)
            s->on_device = fovea_frame_alloc(s->ctx, &s->dev[k], s->info.width, s->info.height,
                                             s->info.fmt, FOVEA_MEM_DEVICE) == FOVEA_OK;
    }
    fovea_convert_options_init(&s->co);
    s->want_sigma = s->a.opt.json || s->a.plot;
    return CLI_EXIT_OK;
}

/* A host frame for the maps: pinned on CUDA contexts (the copies back need no
 * staging), pageable where pinning fails. */
static int alloc_frame(diff_run *s, fovea_frame *f, int w, int h, fovea_pixfmt fmt)
{
    if (s->mem == FOVEA_MEM_PINNED &&
        fovea_frame_alloc(s->ctx, f, w, h, fmt, FOVEA_MEM_PINNED) == FOVEA_OK)
        return FOVEA_OK;
    return fovea_frame_alloc(s->ctx, f, w, h, fmt, FOVEA_MEM_HOST);
}

/* Formats, frames, pipe and writer of output k. @return CLI_EXIT_OK or the exit code */
static int open_output(diff_run *s, int k)
{
    const diff_args *a = &s->a;
    diff_output *o = &s->out[k];
    o->path = a->out[k];
    o->container = out_container(o->path);
    const int image = o->container == FOVEA_CONTAINER_PNG || o->container == FOVEA_CONTAINER_PNM;
    o->width = s->info.width;
    o->height = s->info.height;
    if (k == OUT_MASK) {
        o->width = s->tiles_x;
        o->height = s->tiles_y;
        o->map_fmt = o->write_fmt = FOVEA_PIX_GRAY8;
    } else if (k == OUT_NOISE && a->set.noise_mode == FOVEA_DIFF_NOISE_OVERLAY) {
        o->map_fmt = s->info.fmt;
        o->write_fmt = cli_default_output_pixfmt(o->container, o->map_fmt);
    } else {
        o->map_fmt = o->write_fmt = image ? FOVEA_PIX_RGB24 : FOVEA_PIX_I420;
    }
    if (image && !is_pattern(o->path, o->container) && s->info.frame_count != 2 &&
        a->opt.frames != 1)
        return cli_usage_error(spec.name, "%s: %s holds one image and the input may make more "
                               "maps: use a pattern such as out%%04d.%s, or --frames 1",
                               o->path, fovea_container_name(o->container),
                               o->container == FOVEA_CONTAINER_PNG ? "png" : "ppm");
    int st = alloc_frame(s, &o->buf[0], o->width, o->height, o->map_fmt);
    if (st == FOVEA_OK && o->write_fmt != o->map_fmt)
        st = alloc_frame(s, &o->buf[1], o->width, o->height, o->write_fmt);
    if (st == FOVEA_OK)
        st = cli_pipe_init(&o->pipe, PIPE_SLOTS);
    for (int i = 0; i < PIPE_SLOTS && st == FOVEA_OK; i++) {
        st = alloc_frame(s, &o->pipe.slot[i].f[0], o->width, o->height, o->map_fmt);
        if (st == FOVEA_OK && o->write_fmt != o->map_fmt)
            st = alloc_frame(s, &o->pipe.slot[i].f[1], o->width, o->height, o->write_fmt);
    }
    if (st < 0) {
        cli_error(NULL, "cannot allocate %dx%d %s frames: %s", o->width, o->height,
                  fovea_pixfmt_name(o->map_fmt), fovea_strerror(st));
        return CLI_EXIT_RUNTIME;
    }
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = o->width;
    info.height = o->height;
    info.fmt = o->write_fmt;
    info.fps_num = s->info.fps_num;
    info.fps_den = s->info.fps_den;
    info.interlace = s->info.interlace;
    if (k != OUT_MASK) {
        info.sar_num = s->info.sar_num;
        info.sar_den = s->info.sar_den;
    }
    const fovea_pixfmt_desc *wd = fovea_pixfmt_get_desc(o->write_fmt);
    if (wd->is_yuv && wd->planes > 1)
        /* the maps' i420 is limited range; an overlay keeps the input's tag */
        info.color_range = k == OUT_NOISE && o->map_fmt == s->info.fmt && s->info.color_range
                               ? s->info.color_range
                               : FOVEA_COLOR_RANGE_LIMITED;
    st = fovea_writer_open(&o->w, NULL, o->path, o->container, &info);
    if (st == FOVEA_OK && strcmp(a->input, "-") != 0)
        st = fovea_writer_protect(o->w, a->input);
    if (st < 0)
        return cli_report(o->path, 1, fovea_last_error(NULL), st);
    if (cli_pipe_start(&o->pipe, o->w, NULL, 0) != 0)
        return CLI_EXIT_RUNTIME;
    return CLI_EXIT_OK;
}

static int start_reader(diff_run *s)
{
    const int64_t limit = s->a.opt.frames >= 0 ? s->a.opt.frames + 1 : -1;
    int st = cli_ring_init(&s->ring, s->ctx, s->r, READ_SLOTS, limit, s->mem, 1);
    if (st < 0 && s->mem == FOVEA_MEM_PINNED) {
        cli_ring_stop(&s->ring);
        st = cli_ring_init(&s->ring, s->ctx, s->r, READ_SLOTS, limit, FOVEA_MEM_HOST, 1);
    }
    if (st < 0) {
        cli_error(NULL, "cannot allocate %d input frames: %s", READ_SLOTS, fovea_strerror(st));
        return CLI_EXIT_RUNTIME;
    }
    if (cli_ring_run(&s->ring) != 0) {
        cli_error(NULL, "cannot start a reader thread");
        return CLI_EXIT_RUNTIME;
    }
    s->ring_started = 1;
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ the maps */

static int write_failure(diff_output *o, int st)
{
    return cli_report(o->path, 1, cli_pipe_error(&o->pipe), st);
}

/* The mask result as an image, one pixel per tile. */
static void mask_image(const fovea_diff_mask_result *m, fovea_frame *f)
{
    for (int y = 0; y < m->tiles_y; y++) {
        uint8_t *row = f->data[0] + (ptrdiff_t)y * f->stride[0];
        const uint8_t *c = m->changed + (size_t)y * (size_t)m->tiles_x;
        for (int x = 0; x < m->tiles_x; x++)
            row[x] = c[x] ? 255 : 0;
    }
}

/* Map `i` of prev -> cur: every wanted output from one fovea_diff_compute,
 * then to the writers. @return CLI_EXIT_OK or the exit code, the error printed */
static int make_map(diff_run *s, int64_t i, const fovea_frame *prev, const fovea_frame *cur)
{
    if (s->n == s->cap) {
        const int64_t ncap = s->cap ? 2 * s->cap : 256;
        diff_stat *p = realloc(s->stats, (size_t)ncap * sizeof(*p));
        if (!p) {
            cli_error(NULL, "out of memory");
            return CLI_EXIT_RUNTIME;
        }
        s->stats = p;
        s->cap = ncap;
    }
    fovea_diff_mask_result m;
    double sigma = NAN;
    fovea_diff_outputs outs;
    memset(&outs, 0, sizeof(outs));
    outs.mask = &m;
    if (s->want_sigma)
        outs.sigma = &sigma;
    if (s->out[OUT_HEAT].path)
        outs.heatmap = &s->out[OUT_HEAT].buf[0];
    if (s->out[OUT_NOISE].path)
        outs.noise = &s->out[OUT_NOISE].buf[0];
    int st = fovea_diff_compute(s->d, prev, cur, &outs);
    if (st < 0) {
        cli_error(cli_display_path(s->a.input, 0), "frames %lld and %lld: %s", (long long)i,
                  (long long)i + 1, fovea_last_error(s->ctx));
        return CLI_EXIT_RUNTIME;
    }
    diff_stat *ds = &s->stats[s->n++];
    ds->changed_pixels = m.changed_pixels;
    ds->changed_tiles = m.changed_tiles;
    ds->diff_sum = m.diff_sum;
    ds->diff_max = m.diff_max;
    ds->threshold = m.threshold;
    ds->sigma = sigma;
    if (s->out[OUT_MASK].path)
        mask_image(&m, &s->out[OUT_MASK].buf[0]);
    for (int k = 0; k < N_OUT; k++) {
        diff_output *o = &s->out[k];
        if (!o->path)
            continue;
        int which = 0;
        o->buf[0].index = i;
        if (o->write_fmt != o->map_fmt) {
            st = fovea_frame_convert(s->ctx, &o->buf[1], &o->buf[0], &s->co);
            if (st < 0) {
                cli_error(cli_display_path(o->path, 1), "map %lld: cannot convert %s to %s: %s",
                          (long long)i, fovea_pixfmt_name(o->map_fmt),
                          fovea_pixfmt_name(o->write_fmt), fovea_last_error(s->ctx));
                return CLI_EXIT_RUNTIME;
            }
            o->buf[1].index = i;
            which = 1;
        }
        fovea_frame *bufs[2] = {&o->buf[0], &o->buf[1]};
        st = cli_pipe_put(&o->pipe, bufs, which);
        if (st < 0)
            return write_failure(o, st);
    }
    return CLI_EXIT_OK;
}

/* On the device path, queue frame k's copy into dev[k % 2] (on the context's
 * stream: the map calls that read it come after it, and the copy of frame
 * k + 2 into the same buffer after them). @return CLI_EXIT_OK or the exit code */
static int to_device(diff_run *s, int64_t k, fovea_frame **f)
{
    if (!s->on_device)
        return CLI_EXIT_OK;
    fovea_frame *d = &s->dev[k & 1];
    const int st = fovea_frame_copy(s->ctx, d, *f);
    if (st < 0) {
        cli_error(cli_display_path(s->a.input, 0), "frame %lld: cannot copy it to the device: %s",
                  (long long)k, fovea_last_error(s->ctx));
        return CLI_EXIT_RUNTIME;
    }
    *f = d;
    return CLI_EXIT_OK;
}

/* Read the frames in order and make a map of each consecutive pair; the
 * previous frame's slot is handed back once the next map is made (the map
 * calls wait for their host outputs, so a copy to the device from that slot
 * is done by then too). */
static int run_maps(diff_run *s)
{
    const char *in = s->a.input;
    fovea_frame *prev = NULL, *cur = NULL;
    const char *msg = "";
    int st = cli_ring_take(&s->ring, &prev, &msg);
    if (st == FOVEA_EOF) {
        cli_error(cli_display_path(in, 0), "no frames in the input: nothing to difference");
        return CLI_EXIT_RUNTIME;
    }
    if (st < 0)
        return cli_report(in, 0, msg, st);
    if (to_device(s, 0, &prev) != CLI_EXIT_OK)
        return CLI_EXIT_RUNTIME;
    for (int64_t i = 0;; i++) {
        st = cli_ring_take(&s->ring, &cur, &msg);
        if (st == FOVEA_EOF) {
            if (i == 0) {
                cli_progress_finish(&s->prog);
                cli_error(cli_display_path(in, 0), "one frame: diff needs at least 2 frames");
                return CLI_EXIT_RUNTIME;
            }
            return CLI_EXIT_OK;
        }
        if (st < 0) {
            cli_progress_finish(&s->prog);
            return cli_report(in, 0, msg, st);
        }
        int rc = to_device(s, i + 1, &cur);
        if (rc == CLI_EXIT_OK)
            rc = make_map(s, i, prev, cur);
        if (rc != CLI_EXIT_OK) {
            cli_progress_finish(&s->prog);
            return rc;
        }
        cli_ring_release(&s->ring); /* prev */
        prev = cur;
        cli_progress_update(&s->prog, s->n);
    }
}

/* Every writer writes what was queued; @return rc, or the first write failure */
static int finish_outputs(diff_run *s, int rc)
{
    for (int k = 0; k < N_OUT; k++) {
        diff_output *o = &s->out[k];
        if (!o->pipe.ready)
            continue;
        const int st = cli_pipe_finish(&o->pipe);
        if (rc == CLI_EXIT_OK && st < 0)
            rc = write_failure(o, st);
    }
    for (int k = 0; k < N_OUT && rc == CLI_EXIT_OK; k++) {
        diff_output *o = &s->out[k];
        if (!o->w)
            continue;
        const int st = fovea_writer_finish(o->w);
        if (st < 0)
            rc = cli_report(o->path, 1, fovea_last_error(NULL), st);
    }
    return rc;
}

/* ------------------------------------------------------------------ reports */

static cJSON *json_number(double x)
{
    if (!isfinite(x))
        return cJSON_CreateNull();
    char buf[64];
    snprintf(buf, sizeof(buf), "%.17g", x);
    return cJSON_CreateRaw(buf);
}

static const char *denoise_name(fovea_diff_denoise_mode m)
{
    switch (m) {
    case FOVEA_DIFF_DENOISE_MEDIAN3: return "median3";
    case FOVEA_DIFF_DENOISE_GAUSS5: return "gauss5";
    case FOVEA_DIFF_DENOISE_TEMPORAL: return "temporal";
    default: return "none";
    }
}

/* Totals over the maps. */
typedef struct diff_totals {
    int64_t changed_pixels, changed_tiles, diff_sum;
    int diff_max, tmin, tmax;
    double sigma_sum;
    int64_t sigmas;
} diff_totals;

static void totals_of(const diff_run *s, diff_totals *t)
{
    memset(t, 0, sizeof(*t));
    for (int64_t i = 0; i < s->n; i++) {
        const diff_stat *d = &s->stats[i];
        t->changed_pixels += d->changed_pixels;
        t->changed_tiles += d->changed_tiles;
        t->diff_sum += d->diff_sum;
        t->diff_max = d->diff_max > t->diff_max ? d->diff_max : t->diff_max;
        t->tmin = i == 0 || d->threshold < t->tmin ? d->threshold : t->tmin;
        t->tmax = i == 0 || d->threshold > t->tmax ? d->threshold : t->tmax;
        if (isfinite(d->sigma)) {
            t->sigma_sum += d->sigma;
            t->sigmas++;
        }
    }
}

static int write_json(const diff_run *s, double secs)
{
    const diff_args *a = &s->a;
    const double pixels = (double)s->info.width * s->info.height, tiles = (double)s->tiles;
    cJSON *root = cJSON_CreateObject();
    if (!root) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    cJSON_AddStringToObject(root, "version", fovea_version());
    cJSON_AddStringToObject(root, "input", a->input);
    cJSON_AddNumberToObject(root, "width", s->info.width);
    cJSON_AddNumberToObject(root, "height", s->info.height);
    cJSON_AddStringToObject(root, "pixfmt", fovea_pixfmt_name(s->info.fmt));
    cJSON_AddNumberToObject(root, "tiles_x", s->tiles_x);
    cJSON_AddNumberToObject(root, "tiles_y", s->tiles_y);
    cJSON_AddStringToObject(root, "backend", fovea_backend_name(fovea_diff_backend(s->d)));
    cJSON_AddNumberToObject(root, "threads", fovea_context_threads(s->ctx));
    cJSON_AddNumberToObject(root, "seconds", secs);
    cJSON_AddNumberToObject(root, "fps", secs > 0 ? (double)s->n / secs : 0.0);
    cJSON *set = cJSON_AddObjectToObject(root, "settings");
    cJSON_AddStringToObject(set, "measure", a->set.measure == FOVEA_DIFF_MAX ? "max" : "sum");
    if (a->set.threshold == FOVEA_DIFF_THRESHOLD_AUTO)
        cJSON_AddStringToObject(set, "threshold", "auto");
    else
        cJSON_AddNumberToObject(set, "threshold", a->set.threshold);
    cJSON_AddItemToObject(set, "auto_k", json_number(a->set.auto_k));
    cJSON_AddNumberToObject(set, "tile", a->set.tile);
    cJSON_AddStringToObject(set, "denoise", denoise_name(a->set.denoise));
    if (a->set.denoise == FOVEA_DIFF_DENOISE_TEMPORAL)
        cJSON_AddNumberToObject(set, "temporal_strength", a->set.temporal_strength);
    cJSON_AddNumberToObject(set, "normalize", a->set.normalize_max);
    cJSON_AddStringToObject(set, "noise_mode",
                            a->set.noise_mode == FOVEA_DIFF_NOISE_OVERLAY ? "overlay" : "black");
    cJSON *outs = cJSON_AddObjectToObject(root, "outputs");
    static const char *const keys[N_OUT] = {"heatmap", "noise", "mask"};
    for (int k = 0; k < N_OUT; k++)
        if (a->out[k])
            cJSON_AddStringToObject(outs, keys[k], a->out[k]);
    cJSON *frames = cJSON_AddArrayToObject(root, "maps");
    for (int64_t i = 0; frames && i < s->n; i++) {
        const diff_stat *d = &s->stats[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(frames, o);
        cJSON_AddNumberToObject(o, "map", (double)i);
        cJSON_AddNumberToObject(o, "prev_frame", (double)i);
        cJSON_AddNumberToObject(o, "frame", (double)(i + 1));
        cJSON_AddNumberToObject(o, "changed_pixels", (double)d->changed_pixels);
        cJSON_AddItemToObject(o, "changed_pixel_fraction",
                              json_number((double)d->changed_pixels / pixels));
        cJSON_AddNumberToObject(o, "changed_tiles", (double)d->changed_tiles);
        cJSON_AddItemToObject(o, "changed_tile_fraction",
                              json_number((double)d->changed_tiles / tiles));
        cJSON_AddItemToObject(o, "mean_diff", json_number((double)d->diff_sum / pixels));
        cJSON_AddNumberToObject(o, "max_diff", d->diff_max);
        cJSON_AddItemToObject(o, "noise_sigma", json_number(d->sigma));
        cJSON_AddNumberToObject(o, "threshold", d->threshold);
    }
    diff_totals t;
    totals_of(s, &t);
    cJSON *tot = cJSON_AddObjectToObject(root, "totals");
    const double n = (double)s->n;
    cJSON_AddNumberToObject(tot, "maps", n);
    cJSON_AddNumberToObject(tot, "frames", s->n + 1.0);
    cJSON_AddNumberToObject(tot, "changed_pixels", (double)t.changed_pixels);
    cJSON_AddItemToObject(tot, "changed_pixel_fraction",
                          json_number((double)t.changed_pixels / (n * pixels)));
    cJSON_AddNumberToObject(tot, "changed_tiles", (double)t.changed_tiles);
    cJSON_AddItemToObject(tot, "changed_tile_fraction",
                          json_number((double)t.changed_tiles / (n * tiles)));
    cJSON_AddItemToObject(tot, "mean_diff", json_number((double)t.diff_sum / (n * pixels)));
    cJSON_AddNumberToObject(tot, "max_diff", t.diff_max);
    cJSON_AddItemToObject(tot, "mean_noise_sigma",
                          json_number(t.sigmas ? t.sigma_sum / (double)t.sigmas : NAN));
    cJSON_AddNumberToObject(tot, "threshold_min", t.tmin);
    cJSON_AddNumberToObject(tot, "threshold_max", t.tmax);
    const int rc = cli_write_json(a->opt.json, root);
    cJSON_Delete(root);
    return rc;
}

/* Changed pixels and tiles in percent and the noise sigma in sample units,
 * per map, on one axis (both usually span 0 to tens). */
static int write_plot(const diff_run *s)
{
    const diff_args *a = &s->a;
    const int64_t n = s->n;
    double *y = malloc((size_t)(n > 0 ? n : 1) * 3 * sizeof(double));
    if (!y) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    const double pixels = (double)s->info.width * s->info.height, tiles = (double)s->tiles;
    for (int64_t i = 0; i < n; i++) {
        y[i] = 100.0 * (double)s->stats[i].changed_pixels / pixels;
        y[n + i] = 100.0 * (double)s->stats[i].changed_tiles / tiles;
        y[2 * n + i] = s->stats[i].sigma;
    }
    diff_totals t;
    totals_of(s, &t);
    char names[3][96];
    snprintf(names[0], sizeof(names[0]), "changed pixels, %% (mean %.3f)",
             100.0 * (double)t.changed_pixels / ((double)n * pixels));
    snprintf(names[1], sizeof(names[1]), "changed %dx%d tiles, %% (mean %.3f)", a->set.tile,
             a->set.tile, 100.0 * (double)t.changed_tiles / ((double)n * tiles));
    snprintf(names[2], sizeof(names[2]), "noise sigma, sample units (mean %.3f)",
             t.sigmas ? t.sigma_sum / (double)t.sigmas : 0.0);
    chart c;
    chart_init(&c);
    chart_add_series(&c, names[0], 0xd62728, y, (size_t)n);
    chart_add_series(&c, names[1], 0xff7f0e, y + n, (size_t)n);
    chart_add_series(&c, names[2], 0x1f77b4, y + 2 * n, (size_t)n);
    c.y_min = 0;
    char title[1024], subtitle[256], thr[32], dn[32];
    const char *in = cli_display_path(a->input, 0);
    const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
    snprintf(title, sizeof(title), "Frame differences: %s", strlen(in) > 80 ? base : in);
    if (a->set.threshold == FOVEA_DIFF_THRESHOLD_AUTO)
        snprintf(thr, sizeof(thr), "auto (%g sigma)", a->set.auto_k);
    else
        snprintf(thr, sizeof(thr), "%d", a->set.threshold);
    if (a->set.denoise == FOVEA_DIFF_DENOISE_TEMPORAL)
        snprintf(dn, sizeof(dn), "temporal:%d", a->set.temporal_strength);
    else
        snprintf(dn, sizeof(dn), "%s", denoise_name(a->set.denoise));
    snprintf(subtitle, sizeof(subtitle),
             "%dx%d %s, %lld map%s; threshold %s, denoise %s; fovea %s", s->info.width,
             s->info.height, fovea_pixfmt_name(s->info.fmt), (long long)n, n == 1 ? "" : "s", thr,
             dn, fovea_version());
    c.title = title;
    c.subtitle = subtitle;
    c.xlabel = "map i (input frames i and i + 1)";
    c.ylabel = "changed, % / noise sigma";

    char err[512] = "";
    fovea_outfile *of = NULL;
    if (fovea_outfile_open(&of, NULL, a->plot) < 0) {
        free(y);
        cli_error(NULL, "%s", fovea_last_error(NULL));
        return CLI_EXIT_RUNTIME;
    }
    const int bad = chart_write_png(&c, fovea_outfile_file(of), err, sizeof(err));
    free(y);
    if (bad) {
        fovea_outfile_close(&of);
        cli_error(a->plot, "%s", err);
        return CLI_EXIT_RUNTIME;
    }
    if (fovea_outfile_commit(&of, NULL) < 0) {
        cli_error(NULL, "%s", fovea_last_error(NULL));
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

static int write_reports(diff_run *s, double secs)
{
    const diff_args *a = &s->a;
    int rc = CLI_EXIT_OK;
    if (a->opt.json)
        rc = write_json(s, secs);
    if (rc == CLI_EXIT_OK && a->plot)
        rc = write_plot(s);
    if (rc != CLI_EXIT_OK)
        return rc;
    diff_totals t;
    totals_of(s, &t);
    const double pixels = (double)s->info.width * s->info.height;
    int busy = a->opt.json && strcmp(a->opt.json, "-") == 0;
    for (int k = 0; k < N_OUT; k++)
        busy |= a->out[k] && strcmp(a->out[k], "-") == 0;
    char thr[48];
    if (t.tmin == t.tmax)
        snprintf(thr, sizeof(thr), "%d", t.tmin);
    else
        snprintf(thr, sizeof(thr), "%d..%d", t.tmin, t.tmax);
    const int threads = fovea_context_threads(s->ctx);
    cli_summary(a->opt.quiet, busy,
                "diff: %lld map%s of %dx%d %s: %.3f%% of pixels and %.3f%% of %dx%d tiles "
                "changed (threshold %s), mean difference %.3f, max %d  (%s, %d thread%s, "
                "%.2f s, %.1f fps)",
                (long long)s->n, s->n == 1 ? "" : "s", s->info.width, s->info.height,
                fovea_pixfmt_name(s->info.fmt),
                100.0 * (double)t.changed_pixels / ((double)s->n * pixels),
                100.0 * (double)t.changed_tiles / ((double)s->n * (double)s->tiles), a->set.tile,
                a->set.tile, thr, (double)t.diff_sum / ((double)s->n * pixels), t.diff_max,
                fovea_backend_name(fovea_diff_backend(s->d)), threads, threads == 1 ? "" : "s",
                secs, secs > 0 ? (double)s->n / secs : 0.0);
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
        rc = open_input(s);
    if (rc == CLI_EXIT_OK)
        rc = open_differencer(s);
    for (int k = 0; k < N_OUT && rc == CLI_EXIT_OK; k++)
        if (s->a.out[k])
            rc = open_output(s, k);
    double t0 = cli_now();
    if (rc == CLI_EXIT_OK)
        rc = start_reader(s);
    if (rc == CLI_EXIT_OK) {
        int64_t total = -1;
        if (s->info.frame_count > 0)
            total = s->info.frame_count - 1;
        if (s->a.opt.frames >= 0 && (total < 0 || s->a.opt.frames < total))
            total = s->a.opt.frames;
        cli_progress_start(&s->prog, total, s->a.opt.quiet);
        rc = run_maps(s);
    }
    rc = finish_outputs(s, rc); /* every queued map written */
    cli_progress_finish(&s->prog);
    const double secs = cli_now() - t0;
    if (rc == CLI_EXIT_OK)
        rc = write_reports(s, secs);

    cli_ring_stop(&s->ring);
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
