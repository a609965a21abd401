/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea convert IN OUT`: copy frames between containers (y4m, raw yuv, PNM, PNG),
 * converting the pixel format on the CPU when the output needs another one; the
 * input is read and the output written on threads of their own (cli_pipe). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fovea/convert.h"

enum { OPT_OUT_FORMAT = 1, OPT_PIXFMT_OUT, OPT_COLORSPACE, OPT_RANGE };

static const cli_option options[] = {
    CLI_INPUT_OPTIONS,
    CLI_MEDIA_OUTPUT_OPTIONS,
    {"out-format", 0, "FMT", "output container: y4m, yuv (raw), pnm, png or media",
     "from the file extension; '-' is y4m", OPT_OUT_FORMAT},
    {"pixfmt-out", 0, "FMT", "pixel format to write",
     "the input's when the output container holds it, else rgb24 for PNG/PNM from color "
     "YUV (rgb48 above 8 bits) and i420 for y4m from RGB or nv12 (i444p16 from rgb48/rgba64)",
     OPT_PIXFMT_OUT},
    {"colorspace", 0, "CS", "YUV<->RGB matrix: bt601 or bt709",
     "the input's matrix tag (media files), else bt601", OPT_COLORSPACE},
    {"range", 0, "RANGE",
     "YUV range for YUV<->RGB: auto, limited or full; auto takes a y4m "
     "input's XCOLORRANGE tag (as ffmpeg writes it), else limited. A y4m output made from RGB "
     "carries the tag",
     "auto", OPT_RANGE},
    CLI_OPTION_START("skip the first N input frames"),
    CLI_OPTION_FRAMES("convert at most N frames; 0 = all"),
    {"threads", 0, "N",
     "CPU threads for decoding media (FFmpeg's decoder threads) and for pixel format "
     "conversion; 0 = one per CPU (FFmpeg's own count for the decoder)",
     "0", CLI_OPT_THREADS},
    CLI_OPTION_JSON("write a JSON summary (frames, input, output, seconds) to FILE; "
                    "'-' = stdout"),
    CLI_OPTION_QUIET,
    {0},
};

static const cli_spec spec = {
    "convert",
    "[options] IN OUT",
    "Convert video between containers and pixel formats. Containers come from the\n"
    "file extensions (.y4m, .yuv/.raw, .pgm/.ppm/.pnm, .png) or --in-format and\n"
    "--out-format; '-' reads stdin or writes stdout (y4m unless told otherwise).\n"
    "PNM and PNG hold one image: to write several frames use a pattern such as\n"
    "out%04d.png (frames are numbered from 0). Media (FFmpeg builds): any file\n"
    "FFmpeg reads (.mp4 .mkv .webm .mov .ts .avi ...), compressed streams on stdin,\n"
    "devices (v4l2:/dev/video0, lavfi:testsrc2); .mp4 .mov .mkv .webm outputs are\n"
    "encoded (docs/media.md). /dev/null as OUT (without --out-format) discards\n"
    "the frames: raw yuv in the input's format (no conversion), written into the\n"
    "device.",
    options,
    "Examples:\n"
    "  fovea convert -s 1920x1080 --pixfmt i420 --fps 25 in.yuv out.y4m\n"
    "  fovea convert --start 10 --frames 1 in.y4m frame.png\n"
    "  fovea convert in.y4m frames%04d.png\n"
    "  cat in.y4m | fovea convert --pixfmt-out i420p10 - - > out.y4m\n"
    "  fovea convert in.mov out.mkv\n"
    "  fovea convert --codec libx265 --crf 22 in.y4m out.mp4\n"
    "\n"
    "At the end one summary line (frames, size, formats, output, time) goes to\n"
    "stdout, or to stderr when stdout carries the video or the JSON.\n"
    "\n"
    "Exit status: 0 success, 1 runtime error (an input without frames, or none\n"
    "left after --start, is one: nothing is written), 2 usage error.",
};

typedef struct convert_args {
    cli_common_opts opt; /* backend: cpu (no --backend) */
    cli_input_opts in;
    fovea_container out_container;
    fovea_pixfmt out_fmt; /* NONE = choose */
    fovea_convert_options copt;
    int range_given; /* --range limited|full (else auto) */
    int cs_given;    /* --colorspace (else the input's matrix tag, else bt601) */
    const char *in_path, *out_path;
    fovea_container in_container; /* the reader's (by name or content) */
} convert_args;

static int parse_args(convert_args *a, int argc, char **argv)
{
    const char *cmd = spec.name;
    cli_parser p;
    const char *v;
    int id, range;

    memset(a, 0, sizeof(*a));
    cli_common_opts_init(&a->opt);
    a->opt.backend = FOVEA_BACKEND_CPU;
    cli_input_opts_init(&a->in);
    a->out_container = FOVEA_CONTAINER_AUTO;
    a->out_fmt = FOVEA_PIX_NONE;
    fovea_convert_options_init(&a->copt);

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
        case OPT_OUT_FORMAT:
            bad = cli_parse_container(cmd, "--out-format", v, &a->out_container);
            break;
        case OPT_PIXFMT_OUT: bad = cli_parse_pixfmt(cmd, "--pixfmt-out", v, &a->out_fmt); break;
        case OPT_COLORSPACE:
            bad = cli_parse_colorspace(cmd, "--colorspace", v, &a->copt.colorspace);
            a->cs_given = 1;
            break;
        case OPT_RANGE:
            bad = cli_parse_range(cmd, "--range", v, 1, &range);
            a->copt.range =
                range == FOVEA_COLOR_RANGE_FULL ? FOVEA_RANGE_FULL : FOVEA_RANGE_LIMITED;
            a->range_given = range != FOVEA_COLOR_RANGE_UNKNOWN;
            break;
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end;
    if (p.nrest != 2)
        return cli_usage_error(cmd, "convert: expected IN and OUT, got %d argument%s", p.nrest,
                               p.nrest == 1 ? "" : "s");
    a->in_path = p.rest[0];
    a->out_path = p.rest[1];
    a->in.threads = a->opt.threads; /* the media decoder's too */

    fovea_container oc = cli_container_for(a->out_path, a->out_container);
    if (oc == FOVEA_CONTAINER_AUTO && strcmp(a->out_path, "/dev/null") == 0)
        oc = a->out_container = FOVEA_CONTAINER_YUV; /* nothing is kept: the cheapest */
    if (oc == FOVEA_CONTAINER_AUTO)
        return cli_usage_error(cmd,
                               "%s: unknown file type (name it .y4m, .yuv, .pgm/.ppm/.pnm or "
                               ".png, or use --out-format)",
                               a->out_path);
    a->out_container = oc;
    if (a->out_fmt != FOVEA_PIX_NONE && !cli_container_holds(oc, a->out_fmt)) {
        char list[256] = "";
        size_t len = 0;
        for (int f = FOVEA_PIX_NONE + 1; f < FOVEA_PIX_COUNT; f++) {
            if (!cli_container_holds(oc, (fovea_pixfmt)f))
                continue;
            int k = snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
                             fovea_pixfmt_name((fovea_pixfmt)f));
            if (k > 0 && (size_t)k < sizeof(list) - len)
                len += (size_t)k;
        }
        return cli_usage_error(cmd, "--pixfmt-out: %s cannot hold %s (it holds %s)",
                               fovea_container_name(oc), fovea_pixfmt_name(a->out_fmt), list);
    }
    if (a->opt.json && strcmp(a->opt.json, "-") == 0 && strcmp(a->out_path, "-") == 0)
        return cli_usage_error(cmd, "--json -: stdout already carries the video");
    /* before anything is opened for writing: the input must survive (every
     * file of a sequence), and no output may take another's file */
    cli_files fs;
    cli_files_init(&fs, cmd);
    cli_files_add(&fs, "IN", a->in_path,
                  cli_is_sequence(a->in_path, a->in.container) ? CLI_FILE_SEQUENCE : 0, -1);
    cli_files_add(&fs, "OUT", a->out_path,
                  CLI_FILE_OUT | (cli_is_sequence(a->out_path, oc) ? CLI_FILE_SEQUENCE : 0), -1);
    cli_files_add(&fs, "--json", a->opt.json, CLI_FILE_OUT, 0);
    const int rc = cli_files_check(&fs);
    cli_files_free(&fs);
    return rc;
}

static cJSON *stream_json(const char *path, fovea_container c, const fovea_video_info *info,
                          fovea_pixfmt fmt)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", path);
    cJSON_AddStringToObject(o, "container", fovea_container_name(c));
    cJSON_AddNumberToObject(o, "width", info->width);
    cJSON_AddNumberToObject(o, "height", info->height);
    cJSON_AddStringToObject(o, "pixfmt", fovea_pixfmt_name(fmt));
    if (info->fps_num > 0 && info->fps_den > 0) {
        char fps[48];
        snprintf(fps, sizeof(fps), "%d/%d", info->fps_num, info->fps_den);
        cJSON_AddStringToObject(o, "fps", fps);
    } else {
        cJSON_AddNullToObject(o, "fps");
    }
    if (c == FOVEA_CONTAINER_MEDIA) {
        /* what the file says of its colors (H.273 code points, 0 = not said) */
        static const char *const ranges[] = {"unknown", "limited", "full"};
        const int r = info->color_range >= 0 && info->color_range <= 2 ? info->color_range : 0;
        cJSON_AddStringToObject(o, "color_range", ranges[r]);
        cJSON_AddNumberToObject(o, "color_primaries", info->color_primaries);
        cJSON_AddNumberToObject(o, "color_transfer", info->color_transfer);
        cJSON_AddNumberToObject(o, "color_matrix", info->color_matrix);
        if (info->converted_from[0])
            cJSON_AddStringToObject(o, "converted_from", info->converted_from);
    }
    return o;
}

static int write_summary(const convert_args *a, const fovea_video_info *in_info,
                         const fovea_video_info *out_info, long long frames, double seconds)
{
    cJSON *root = cJSON_CreateObject();
    if (!root) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    cJSON *in = stream_json(a->in_path, a->in_container, in_info, in_info->fmt);
    if (in_info->frame_count >= 0)
        cJSON_AddNumberToObject(in, "frame_count", (double)in_info->frame_count);
    else
        cJSON_AddNullToObject(in, "frame_count");
    cJSON_AddItemToObject(root, "input", in);
    cJSON_AddItemToObject(root, "output",
                          stream_json(a->out_path, a->out_container, out_info, out_info->fmt));
    cJSON_AddNumberToObject(root, "start", (double)a->opt.start);
    cJSON_AddNumberToObject(root, "frames", (double)frames);
    cJSON_AddBoolToObject(root, "pixfmt_converted", in_info->fmt != out_info->fmt);
    cJSON_AddStringToObject(root, "range", a->copt.range == FOVEA_RANGE_FULL ? "full" : "limited");
    cJSON_AddStringToObject(root, "colorspace", cli_colorspace_name(a->copt.colorspace));
    cJSON_AddNumberToObject(root, "seconds", seconds);
    cJSON_AddNumberToObject(root, "fps", seconds > 0 ? (double)frames / seconds : 0.0);
    int rc = cli_write_json(a->opt.json, root);
    cJSON_Delete(root);
    return rc;
}
/* ------------------------------------------------------------------ run */

/* The output is written on a thread of its own (cli_pipe) and, when frames
 * are converted, the input read on another, so that reading, converting and
 * writing overlap. Frames kept as they are are read in line: a reader thread
 * would only hand them on (one more wake-up a frame: 200 640x480 frames into
 * /dev/null took 36-64 ms that way, 24-34 ms before the pipeline, 29 ms read
 * in line). The first frame is always read in line, before the output is
 * created. A frame's failure is reported once the frames before it are written,
 * as the sequential loop did: a failed write among them comes first. */
#define PIPE_SLOTS 3

typedef struct convert_run {
    convert_args a;
    fovea_reader *r;
    fovea_writer *w;
    fovea_context *ctx;    /* conversion; NULL when the format is kept */
    fovea_context *hw_ctx; /* --hwdec cuda: the CUDA context NVDEC decodes on */
    fovea_video_info in_info, out_info;
    int convert;                /* the output's format is not the input's */
    fovea_frame first;          /* the first frame, read in line */
    fovea_frame out;            /* converted for the writer (convert) */
    fovea_frame unused;         /* zeroed: the pipe's second buffer */
    fovea_read_ring *ring;      /* the reads after the first (convert) */
    fovea_read_ring **rings[1]; /* &ring */
    cli_pipe pipe;
    cli_progress prog;
    long long done; /* frames queued for the writer; written, once it stopped */
} convert_run;

/* Open the input and skip --start frames. */
static int open_input(convert_run *c)
{
    convert_args *a = &c->a;
    /* NVDEC only when asked: the writers take host frames, so its frames
     * are downloaded (auto decodes on the CPU) */
    if (a->in.hwdec == FOVEA_HWDEC_CUDA && fovea_cuda_compiled()) {
        cli_common_opts o = a->opt;
        o.backend = FOVEA_BACKEND_CUDA;
        const int rc = cli_open_context(&c->hw_ctx, &o, CLI_CONTEXT_MSG_PLAIN);
        if (rc != CLI_EXIT_OK)
            return rc;
        a->in.ctx = c->hw_ctx;
    }
    int rc = cli_open_reader(spec.name, a->in_path, &a->in, &c->r);
    if (rc != CLI_EXIT_OK)
        return rc;
    c->in_info = *fovea_reader_info(c->r);
    a->in_container = fovea_reader_container(c->r);
    if (a->opt.start > 0) {
        const int st = fovea_reader_skip(c->r, a->opt.start);
        if (st == FOVEA_EOF) {
            cli_error(cli_display_path(a->in_path, 0), "--start %lld: the input has fewer frames",
                      a->opt.start);
            return CLI_EXIT_RUNTIME;
        }
        if (st < 0)
            return cli_report(a->in_path, 0, cli_last_error(c->hw_ctx), st);
    }
    return CLI_EXIT_OK;
}

/* The output's format and tags (out_info); the range of --range auto. */
static void choose_output(convert_run *c)
{
    convert_args *a = &c->a;
    const fovea_video_info *in = &c->in_info;
    fovea_video_info *out = &c->out_info;
    /* --range auto: the input's y4m tag */
    if (!a->range_given && in->color_range == FOVEA_COLOR_RANGE_FULL)
        a->copt.range = FOVEA_RANGE_FULL;
    /* the input's matrix (media files carry it; H.273 1 = BT.709, 5/6 = BT.601)
     * unless --colorspace says otherwise */
    if (!a->cs_given && in->color_matrix == 1)
        a->copt.colorspace = FOVEA_CS_BT709;
    *out = *in;
    int said = 0;
    cli_output_rate(&a->in, a->in_path, a->out_container, a->opt.quiet, &said, out);
    out->fmt = a->out_fmt != FOVEA_PIX_NONE ? a->out_fmt
                                            : cli_default_output_pixfmt(a->out_container, in->fmt);
    c->convert = out->fmt != in->fmt;
    const fovea_pixfmt_desc *di = fovea_pixfmt_get_desc(in->fmt);
    const fovea_pixfmt_desc *dout = fovea_pixfmt_get_desc(out->fmt);
    /* Fewer bits only when asked for (or no container holds more): say so once. */
    if (di && dout && dout->bit_depth < di->bit_depth)
        cli_error(cli_display_path(a->out_path, 1), "%d-bit samples reduced to %d bits (%s -> %s)",
                  di->bit_depth, dout->bit_depth, di->name, dout->name);
    /* YUV made from RGB is in the range used; YUV from YUV keeps the input's tag */
    if (di && dout && !di->is_yuv && dout->is_yuv)
        out->color_range =
            a->copt.range == FOVEA_RANGE_FULL ? FOVEA_COLOR_RANGE_FULL : FOVEA_COLOR_RANGE_LIMITED;
    if (c->convert)
        out->chroma_tag[0] = '\0'; /* the input's tag describes the input's chroma */
    out->frame_count = -1;
}

static int alloc_failure(const convert_run *c, fovea_pixfmt fmt, int st)
{
    cli_error(NULL, "cannot allocate a %dx%d %s frame: %s", c->in_info.width, c->in_info.height,
              fovea_pixfmt_name(fmt), fovea_strerror(st));
    return CLI_EXIT_RUNTIME;
}

/* The context of a conversion and the pipeline's frames: the ring's reads,
 * the converted frame and the writer's slots (frames of the output's format,
 * the input's when nothing is converted). */
static int alloc_frames(convert_run *c)
{
    const int w = c->in_info.width, h = c->in_info.height;
    const fovea_pixfmt wfmt = c->out_info.fmt;
    int st;
    if (c->convert) {
        const int rc = cli_open_context(&c->ctx, &c->a.opt, CLI_CONTEXT_MSG_PLAIN);
        if (rc != CLI_EXIT_OK)
            return rc;
        st = fovea_frame_alloc(c->ctx, &c->out, w, h, wfmt, FOVEA_MEM_HOST);
        if (st < 0)
            return alloc_failure(c, wfmt, st);
    }
    if (c->convert) {
        /* the ring reads what follows the first frame */
        const int64_t limit = c->a.opt.frames < 0 ? -1 : c->a.opt.frames - 1;
        st = cli_ring_open(&c->ring, c->hw_ctx ? c->hw_ctx : c->ctx, c->r, PIPE_SLOTS, limit,
                           FOVEA_MEM_HOST, 0);
        if (st < 0)
            return alloc_failure(c, c->in_info.fmt, st);
        c->rings[0] = &c->ring;
    }
    st = cli_pipe_init(&c->pipe, PIPE_SLOTS);
    for (int k = 0; k < PIPE_SLOTS && st == FOVEA_OK; k++)
        st = fovea_frame_alloc(c->ctx, &c->pipe.slot[k].f[0], w, h, wfmt, FOVEA_MEM_HOST);
    if (st < 0)
        return alloc_failure(c, wfmt, st);
    return CLI_EXIT_OK;
}

/* The first frame, read before the output is created: an input without
 * frames is an error and leaves no empty output behind. */
static int read_first(convert_run *c)
{
    const convert_args *a = &c->a;
    const int st = fovea_reader_read(c->r, &c->first);
    if (st == FOVEA_EOF) {
        if (a->opt.start > 0)
            cli_error(cli_display_path(a->in_path, 0), "no frames left after --start %lld",
                      a->opt.start);
        else
            cli_error(cli_display_path(a->in_path, 0), "no frames in the input");
        return CLI_EXIT_RUNTIME;
    }
    if (st < 0)
        return cli_report(a->in_path, 0, cli_last_error(c->hw_ctx), st);
    return CLI_EXIT_OK;
}

static int open_output(convert_run *c)
{
    const convert_args *a = &c->a;
    int st = fovea_writer_open(&c->w, NULL, a->out_path, a->out_container, &c->out_info);
    if (st < 0)
        return cli_report(a->out_path, 1, fovea_last_error(NULL), st);
    cli_media_writer(c->w, &a->in);
    /* a pattern's files are checked one by one as they are opened */
    if ((st = fovea_writer_protect(c->w, a->in_path)) < 0)
        return cli_report(a->out_path, 1, fovea_last_error(NULL), st);
    return CLI_EXIT_OK;
}

static int write_failure(const convert_run *c, int st)
{
    const int rc = cli_report(c->a.out_path, 1, cli_pipe_error(&c->pipe), st);
    /* a pattern's file is the input: as for a single output */
    return st == FOVEA_ERR_INVALID_ARG ? CLI_EXIT_USAGE : rc;
}

/* Stop the pipeline (the queued frames written, every thread joined) and end
 * the progress line. @return CLI_EXIT_OK, or the exit status of a failed
 * write, reported */
static int pipe_stop(convert_run *c)
{
    const int st = cli_pipe_finish(&c->pipe);
    c->done = c->pipe.written;
    c->prog.done = c->done; /* the last line counts the frames written */
    cli_progress_finish(&c->prog);
    return st < 0 ? write_failure(c, st) : CLI_EXIT_OK;
}

/* Frame in, converted when needed, to the writer thread: its buffer trades
 * places with a written frame's (no copy). @return CLI_EXIT_OK, or an exit
 * status once the pipeline is stopped and the failure reported */
static int put_frame(convert_run *c, fovea_frame *in)
{
    const convert_args *a = &c->a;
    fovea_frame *bufs[2] = {in, &c->unused};
    if (c->convert) {
        int st = fovea_frame_convert(c->ctx, &c->out, in, &a->copt);
        if (st < 0) {
            const long long index = (long long)in->index; /* in: a ring's, freed by the stop */
            const int rc = pipe_stop(c);
            if (rc != CLI_EXIT_OK)
                return rc;
            const char *detail = fovea_last_error(c->ctx);
            cli_error(cli_display_path(a->in_path, 0), "frame %lld: cannot convert %s to %s: %s",
                      index, fovea_pixfmt_name(c->in_info.fmt), fovea_pixfmt_name(c->out_info.fmt),
                      detail && *detail ? detail : fovea_strerror(st));
            return CLI_EXIT_RUNTIME;
        }
        c->out.index = in->index;
        bufs[0] = &c->out;
    }
    if (cli_pipe_put(&c->pipe, bufs, 0) < 0)
        return pipe_stop(c); /* the write that failed */
    c->done++;
    cli_progress_update(&c->prog, c->done);
    return CLI_EXIT_OK;
}

/* Every frame through the pipeline; it is stopped on return. */
static int run_frames(convert_run *c)
{
    const convert_args *a = &c->a;
    int64_t total = -1;
    if (c->in_info.frame_count >= 0) {
        const int64_t n = c->in_info.frame_count;
        total = n > a->opt.start ? n - a->opt.start : 0;
        if (a->opt.frames >= 0 && a->opt.frames < total)
            total = a->opt.frames;
    }
    cli_progress_start(&c->prog, total, a->opt.quiet);
    if (cli_pipe_start(&c->pipe, c->w, c->rings, c->convert) != 0) {
        pipe_stop(c);
        return CLI_EXIT_RUNTIME;
    }
    int rc = put_frame(c, &c->first);
    if (rc != CLI_EXIT_OK)
        return rc;
    while (a->opt.frames < 0 || c->done < a->opt.frames) {
        fovea_frame *f = &c->first;
        const char *msg;
        int st;
        if (c->convert) {
            st = fovea_read_ring_take(c->ring, &f, &msg);
        } else {
            st = fovea_reader_read(c->r, f);
            msg = cli_last_error(c->hw_ctx);
        }
        if (st == FOVEA_EOF)
            break;
        if (st < 0) {
            char why[1024];
            snprintf(why, sizeof(why), "%s", msg); /* the ring's, freed by the stop */
            rc = pipe_stop(c);
            return rc != CLI_EXIT_OK ? rc : cli_report(a->in_path, 0, why, st);
        }
        if ((rc = put_frame(c, f)) != CLI_EXIT_OK)
            return rc;
        if (c->convert)
            fovea_read_ring_release(c->ring);
    }
    return pipe_stop(c);
}

/* The output committed, then the JSON and the summary line. */
static int finish_output(convert_run *c, double t0)
{
    const convert_args *a = &c->a;
    const int st = fovea_writer_finish(c->w);
    if (st < 0)
        return cli_report(a->out_path, 1, fovea_last_error(NULL), st);
    fovea_writer_close(&c->w);
    const double secs = cli_now() - t0;
    int rc = CLI_EXIT_OK;
    if (a->opt.json)
        rc = write_summary(a, &c->in_info, &c->out_info, c->done, secs);
    if (rc == CLI_EXIT_OK) {
        char timing[96];
        cli_format_timing(timing, sizeof(timing), c->done, secs);
        const int json_out = a->opt.json && strcmp(a->opt.json, "-") == 0;
        cli_summary(a->opt.quiet, strcmp(a->out_path, "-") == 0 || json_out,
                    "convert: %lld %s %dx%d %s -> %s %s %s", c->done, cli_frames_word(c->done),
                    c->in_info.width, c->in_info.height, fovea_pixfmt_name(c->in_info.fmt),
                    cli_display_path(a->out_path, 1), fovea_pixfmt_name(c->out_info.fmt), timing);
    }
    return rc;
}

int cmd_convert(int argc, char **argv)
{
    convert_run *c = calloc(1, sizeof(*c));
    if (!c) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    int rc = parse_args(&c->a, argc, argv);
    if (rc < 0) {
        free(c);
        return CLI_EXIT_OK; /* --help */
    }
    const double t0 = cli_now();
    if (rc == CLI_EXIT_OK)
        rc = open_input(c);
    if (rc == CLI_EXIT_OK) {
        choose_output(c);
        rc = alloc_frames(c);
    }
    if (rc == CLI_EXIT_OK)
        rc = read_first(c);
    if (rc == CLI_EXIT_OK)
        rc = open_output(c);
    if (rc == CLI_EXIT_OK)
        rc = run_frames(c); /* the pipeline stopped on return */
    if (rc == CLI_EXIT_OK)
        rc = finish_output(c, t0);

    fovea_writer_close(&c->w);       /* a failed run leaves an existing output as it was */
    fovea_read_ring_close(&c->ring); /* (closed already after a run) */
    cli_pipe_free(&c->pipe, c->ctx);
    fovea_reader_close(&c->r);
    fovea_frame_free(c->ctx, &c->first);
    fovea_frame_free(c->ctx, &c->out);
    fovea_close(&c->ctx);
    fovea_close(&c->hw_ctx); /* after the reader: NVDEC ran on it */
    free(c);
    return rc;
}
