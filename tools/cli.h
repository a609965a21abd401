/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Helpers shared by the `fovea` commands: option parsing and help text, value
 * parsing with range checks, error reporting, progress, and opening inputs. */
#ifndef FOVEA_TOOLS_CLI_H
#define FOVEA_TOOLS_CLI_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "fovea/advanced.h"
#include "fovea/convert.h"
#include "fovea/fovea.h"
#include "fovea/io.h"

#if defined(__GNUC__)
#define CLI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLI_PRINTF(a, b)
#endif

/* Exit statuses of every command. */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_RUNTIME = 1, /* the work failed: I/O, corrupt input, out of memory, ... */
    CLI_EXIT_USAGE = 2    /* unknown command/option, missing argument, bad value */
};

/* A command: main.c keeps the table, each cmd_<name>.c provides run. run gets
 * argv[0] = the command name and returns an exit status. */
typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} cli_command;

/* ------------------------------------------------------------------ options */

/* One option of a command. The table ends with an entry whose id is 0.
 * --help/-h is added by the parser and must not be listed. */
typedef struct cli_option {
    const char *long_name; /* without "--" */
    char short_name;       /* 0 when none */
    const char *arg;       /* argument name shown in help ("N", "WxH"); NULL for a flag */
    const char *help;      /* one line */
    const char *def;       /* default shown as "(default: ...)"; NULL to show none */
    int id;                /* > 0, returned by cli_next() */
} cli_option;

/* What `fovea <cmd> --help` prints. */
typedef struct cli_spec {
    const char *name;        /* command name */
    const char *usage;       /* after "fovea <name> ", e.g. "[options] IN OUT" */
    const char *description; /* paragraph(s) under the usage line */
    const cli_option *options;
    const char *notes; /* printed after the options (examples), or NULL */
} cli_spec;

enum {
    CLI_DONE = 0,  /* no more options; positional arguments are in rest/nrest */
    CLI_HELP = -1, /* --help was given and the help was printed: exit 0 */
    CLI_ERROR = -2 /* a usage error was printed: exit 2 */
};

/* Walks argv once. Options and positional arguments may be mixed; "--" ends the
 * options; a lone "-" is positional. Option values are "--name VALUE",
 * "--name=VALUE", "-x VALUE" or "-xVALUE". */
typedef struct cli_parser {
    const cli_spec *spec;
    int argc;
    char **argv;
    int pos;       /* next argv index to look at */
    int only_args; /* after "--" */
    char **rest;   /* positional arguments, in order (stored over argv) */
    int nrest;
} cli_parser;

void cli_parser_init(cli_parser *p, const cli_spec *spec, int argc, char **argv);

/* @return the id of the next option (> 0) with its value in *value (NULL for
 *         flags), or CLI_DONE, CLI_HELP, CLI_ERROR. */
int cli_next(cli_parser *p, const char **value);

/* How a command's option loop ended, as its parse_args returns it: id is
 * cli_next's last return (CLI_DONE, CLI_HELP or CLI_ERROR).
 * @return -1 after --help (the help is printed: the command exits 0),
 *         CLI_EXIT_USAGE after a usage error (printed), CLI_EXIT_OK when the
 *         positional arguments come next */
int cli_options_end(int id);

/* Print the help of a command (usage, description, every option with its default). */
void cli_print_help(FILE *fp, const cli_spec *spec);

/* Print text (the cursor being at column col), breaking at spaces before column
 * 80; continuation lines start at column indent. Ends with a newline. */
void cli_print_wrapped(FILE *fp, const char *text, int col, int indent);

/* ------------------------------------------------------------------ errors */

/* "fovea: <file>: <what>" (file NULL: "fovea: <what>") on stderr. */
void cli_error(const char *file, const char *fmt, ...) CLI_PRINTF(2, 3);

/* "fovea: <what>" then "Try 'fovea <cmd> --help'." (cmd NULL: 'fovea --help').
 * @return CLI_EXIT_USAGE */
int cli_usage_error(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Report a library message that may already start with "<file>: " (the readers
 * and writers write it so); adds the prefix when missing and falls back to
 * fovea_strerror(status) when msg is empty. file "-" is shown as stdin/stdout
 * according to is_output. @return CLI_EXIT_RUNTIME */
int cli_report(const char *file, int is_output, const char *msg, int status);
/* The text cli_report prints after "fovea: ", into buf. */
void cli_format_report(char *buf, size_t n, const char *file, int is_output, const char *msg,
                       int status);

/* ------------------------------------------------------------------ values */

/* Parse a decimal integer in [min, max]. On failure print a usage error such as
 * "--frames: expected a non-negative integer, got 'x'" and return -1. */
int cli_parse_int(const char *cmd, const char *opt, const char *s, long long min, long long max,
                  long long *out);
/* Same for int-sized results. */
int cli_parse_int32(const char *cmd, const char *opt, const char *s, int min, int max, int *out);
/* Parse a finite number in [min, max]. */
int cli_parse_double(const char *cmd, const char *opt, const char *s, double min, double max,
                     double *out);
/* Parse a --backend value: auto, cpu or cuda. */
int cli_parse_backend(const char *cmd, const char *s, fovea_backend *out);
/* Parse "WxH" (1..FOVEA_MAX_DIM each). */
int cli_parse_size(const char *cmd, const char *opt, const char *s, int *w, int *h);
/* Parse "N" or "N/D" (both positive). */
int cli_parse_rate(const char *cmd, const char *opt, const char *s, int *num, int *den);
/* Pick s from a NULL-terminated list; *out = its index. */
int cli_parse_choice(const char *cmd, const char *opt, const char *s, const char *const *choices,
                     int *out);
/* YUV matrix: bt601 | bt709 */
int cli_parse_colorspace(const char *cmd, const char *opt, const char *s, fovea_colorspace *out);
const char *cli_colorspace_name(fovea_colorspace cs);
/* YUV range: limited | full, and auto when allow_auto; *out = FOVEA_COLOR_RANGE_*
 * (UNKNOWN for auto) */
int cli_parse_range(const char *cmd, const char *opt, const char *s, int allow_auto, int *out);
/* y4m | yuv | pnm | png */
int cli_parse_container(const char *cmd, const char *opt, const char *s, fovea_container *out);
/* any name fovea_pixfmt_from_name() knows */
int cli_parse_pixfmt(const char *cmd, const char *opt, const char *s, fovea_pixfmt *out);

/* ------------------------------------------------------------------ inputs */

/* Options every command that reads video accepts; put CLI_INPUT_OPTIONS in the
 * command's option table and pass unknown ids to cli_input_option(). */
enum {
    CLI_OPT_IN_FORMAT = 0x1000,
    CLI_OPT_SIZE,
    CLI_OPT_WIDTH,
    CLI_OPT_HEIGHT,
    CLI_OPT_PIXFMT,
    CLI_OPT_FPS,
    /* media (tools/cli_media.c) */
    CLI_OPT_INPUT_OPTION = 0x1100,
    CLI_OPT_STREAM,
    CLI_OPT_MATCH_FRAMES,
    CLI_OPT_CODEC,
    CLI_OPT_CRF,
    CLI_OPT_ENCODER_OPTION,
    CLI_OPT_HWDEC
};

/* CLI_INPUT_OPTIONS_NO_FPS is for commands that write no video (the rate would
 * go nowhere). */
#define CLI_INPUT_OPTIONS_NO_FPS                                                                   \
    {"in-format",                                                                                  \
     0,                                                                                            \
     "FMT",                                                                                        \
     "input container: y4m, yuv (raw), pnm, png or media (FFmpeg)",                                \
     "from the file extension, else from the first bytes (y4m, png, pnm, else FFmpeg's probe)",    \
     CLI_OPT_IN_FORMAT},                                                                           \
        {"size", 's',         "WxH", "frame size of raw input (same as --width and --height)",     \
         "none", CLI_OPT_SIZE},                                                                    \
        {"width", 0, "N", "frame width of raw input", "none", CLI_OPT_WIDTH},                      \
        {"height", 0, "N", "frame height of raw input", "none", CLI_OPT_HEIGHT},                   \
        {"pixfmt", 0,                                                                              \
         "FMT",    "pixel format of raw input (e.g. i420, i420p10, gray8, rgb24)",                 \
         "none",   CLI_OPT_PIXFMT},                                                                \
        CLI_MEDIA_INPUT_OPTIONS

#define CLI_INPUT_OPTIONS                                                                          \
    CLI_INPUT_OPTIONS_NO_FPS,                                                                      \
    {                                                                                              \
        "fps", 0, "N[/D]", "frame rate of raw input or an image sequence, carried to y4m output",  \
            "unknown: y4m output says 25", CLI_OPT_FPS                                             \
    }

/* Media input options (in every CLI_INPUT_OPTIONS), the two-input option of
 * the commands reading a pair or cameras, and the encoder options of the
 * commands writing video (docs/media.md). */
#define CLI_MEDIA_INPUT_OPTIONS                                                                    \
    {"input-option",                                                                               \
     0,                                                                                            \
     "KEY=VALUE",                                                                                  \
     "option of FFmpeg's demuxer or device for media inputs (video_size, framerate, "              \
     "input_format, ...); repeatable",                                                             \
     "none",                                                                                       \
     CLI_OPT_INPUT_OPTION},                                                                        \
        {"stream",                                                                                 \
         0,                                                                                        \
         "N",                                                                                      \
         "media input: the video stream to read (its index, as ffprobe lists)",                    \
         "the best video stream",                                                                  \
         CLI_OPT_STREAM},                                                                          \
    {                                                                                              \
        "hwdec", 0, "MODE",                                                                        \
            "media input decoding: auto, cuda (NVDEC into GPU memory) or none (the CPU)",          \
            "auto: NVDEC on a CUDA context where it takes the stream", CLI_OPT_HWDEC               \
    }
#define CLI_MATCH_FRAMES_OPTION                                                                    \
    {                                                                                              \
        "match-frames", 0, NULL,                                                                   \
            "pair the inputs frame by frame even when their frame rates or start times differ",    \
            "refused, naming both", CLI_OPT_MATCH_FRAMES                                           \
    }
#define CLI_MEDIA_OUTPUT_OPTIONS                                                                   \
    {"codec",                                                                                      \
     0,                                                                                            \
     "NAME",                                                                                       \
     "encoder of a .mp4/.mov/.mkv/.webm output (libavcodec's name)",                               \
     "libx264 for .mp4/.mov, ffv1 (lossless) for .mkv, libvpx-vp9 for .webm",                      \
     CLI_OPT_CODEC},                                                                               \
        {"crf",                                                                                    \
         0,                                                                                        \
         "N",                                                                                      \
         "constant rate factor of a media output's encoder",                                       \
         "18 (x264/x265), 31 (vp9)",                                                               \
         CLI_OPT_CRF},                                                                             \
    {                                                                                              \
        "encoder-option", 0, "KEY=VALUE", "option of a media output's encoder; repeatable",        \
            "none", CLI_OPT_ENCODER_OPTION                                                         \
    }

#define CLI_MEDIA_MAX_OPTIONS 32

typedef struct cli_input_opts {
    fovea_container container; /* AUTO unless --in-format */
    int width, height;         /* 0 = not given */
    fovea_pixfmt fmt;          /* NONE = not given */
    int fps_num, fps_den;      /* 0/0 = not given */
    /* media: --input-option (NULL-terminated), --stream (-1), --match-frames */
    const char *input_options[CLI_MEDIA_MAX_OPTIONS + 1];
    int n_input_options;
    int stream;
    fovea_hwdec hwdec; /* --hwdec (AUTO) */
    int threads;       /* the CPU decoders' threads (0 = FFmpeg's choice) */
    /* the command's context the readers decode on with NVDEC (a CUDA one;
     * NULL: the CPU decodes, and --hwdec cuda is refused); their messages
     * then go to it (cli_last_error) */
    fovea_context *ctx;
    int match_frames;
    /* media outputs (they ride with the inputs: every command that writes
     * video reads video): --codec, --crf (-1), --encoder-option */
    const char *codec;
    int crf;
    const char *encoder_options[CLI_MEDIA_MAX_OPTIONS + 1];
    int n_encoder_options;
} cli_input_opts;

/* The context a reader opened with o reports on (o->ctx unless --hwdec none,
 * as cli_open_reader opens it): fovea_last_error of it after its calls. */
fovea_context *cli_reader_context(const cli_input_opts *o);
/* The media options' ids of cli_input_option (tools/cli_media.c). */
int cli_media_option(cli_input_opts *o, const char *cmd, int id, const char *value);
/* Give a media writer the encoder options (nothing for other containers). */
void cli_media_writer(fovea_writer *w, const cli_input_opts *o);
/* The note a media input needs once on stderr (a conversion libswscale makes
 * on every frame; NVDEC asked for (auto, on a CUDA context) but the CPU
 * decoding, and why) into buf, one or two lines; "" when none. */
void cli_media_notice(const char *path, const fovea_reader *r, char *buf, size_t n);
/* Two inputs of one command with different frame rates or start times: an
 * error naming both into err (unless --match-frames). @return CLI_EXIT_OK or
 * CLI_EXIT_RUNTIME */
int cli_media_pair_check(const cli_input_opts *o, const char *a, const fovea_video_info *ia,
                         const char *b, const fovea_video_info *ib, char *err, size_t n);

void cli_input_opts_init(cli_input_opts *o);

/* Handle one of the CLI_INPUT_OPTIONS ids.
 * @return 1 when handled, 0 when id is not an input option, -1 after a usage error. */
int cli_input_option(cli_input_opts *o, const char *cmd, int id, const char *value);

/* The container a path will be read/written as (forced, or from the extension).
 * @return FOVEA_CONTAINER_AUTO when it cannot be told. */
fovea_container cli_container_for(const char *path, fovea_container forced);

/* Open path for reading with the input options: checks that raw input has its
 * geometry and that geometry is only given for raw input, and prints errors.
 * The reader is opened without a context: the messages of its calls are
 * read with fovea_last_error(NULL) on the thread that made the call.
 * @return CLI_EXIT_OK (and *r), CLI_EXIT_USAGE or CLI_EXIT_RUNTIME. */
int cli_open_reader(const char *cmd, const char *path, const cli_input_opts *o, fovea_reader **r);
/* The same, printing nothing: the message cli_open_reader would print after
 * "fovea: " goes to err (without the "Try ... --help" line of a usage error).
 * Callable from any thread. @return as cli_open_reader */
int cli_open_reader_msg(const char *path, const cli_input_opts *o, fovea_reader **r, char *err,
                        size_t errsz);

/* ------------------------------------------------------------------ common options */

/* The options most commands share (cli_common.c): --backend, --threads,
 * --frames, --start, --quiet and --json FILE, parsed once into one struct.
 * To adopt the group in a command:
 *   1. list the options in the command's table where its help shows them: the
 *      CLI_OPTION_* entries below give the usual words; a command that words
 *      one otherwise writes its own entry with the group's id (CLI_OPT_*), and
 *      its --help stays as it was;
 *   2. cli_common_opts_init() before the option loop (then set a command's own
 *      defaults: frames_max, or backend = FOVEA_BACKEND_CPU for a command
 *      without --backend whose context is CPU-only);
 *   3. call cli_common_option() first in the loop: > 0 the option was the
 *      group's (or an input option, when in is not NULL), < 0 a usage error was
 *      printed (exit CLI_EXIT_USAGE), 0 it is the command's own;
 *   4. open the context with cli_open_context(). */
enum {
    CLI_OPT_BACKEND = 0x2000,
    CLI_OPT_THREADS,
    CLI_OPT_FRAMES,
    CLI_OPT_START,
    CLI_OPT_QUIET,
    CLI_OPT_JSON
};

typedef struct cli_common_opts {
    fovea_backend backend; /* --backend auto|cpu|cuda; default auto */
    int threads;           /* --threads 0..1024; 0 = one per CPU */
    long long frames;      /* --frames N; -1 = all (also for --frames 0) */
    long long frames_max;  /* the largest --frames taken; default INT64_MAX */
    long long start;       /* --start N: frames to skip; default 0 */
    int quiet;             /* --quiet/-q */
    const char *json;      /* --json FILE; NULL when not given */
} cli_common_opts;

/* The usual entries (help text and default) of the group's options. */
#define CLI_OPTION_BACKEND                                                                         \
    {                                                                                              \
        "backend", 0, "B", "auto, cpu or cuda", "auto", CLI_OPT_BACKEND                            \
    }
#define CLI_OPTION_THREADS                                                                         \
    {                                                                                              \
        "threads", 0, "N", "CPU threads; 0 = one per CPU", "0", CLI_OPT_THREADS                    \
    }
#define CLI_OPTION_QUIET                                                                           \
    {                                                                                              \
        "quiet", 'q', NULL, "do not show progress nor the summary line",                           \
            "progress on stderr when it is a terminal, a summary line at the end", CLI_OPT_QUIET   \
    }
/* the command's own help line, default "0" (all) / "0" (none skipped) / "none" */
#define CLI_OPTION_FRAMES(help)                                                                    \
    {                                                                                              \
        "frames", 0, "N", help, "0", CLI_OPT_FRAMES                                                \
    }
#define CLI_OPTION_START(help)                                                                     \
    {                                                                                              \
        "start", 0, "N", help, "0", CLI_OPT_START                                                  \
    }
#define CLI_OPTION_JSON(help)                                                                      \
    {                                                                                              \
        "json", 0, "FILE", help, "none", CLI_OPT_JSON                                              \
    }

void cli_common_opts_init(cli_common_opts *o);

/* Parse option id of the group into o, or (in not NULL) one of the
 * CLI_INPUT_OPTIONS into in. @return 1 when handled, 0 when id is the
 * command's own, -1 after a usage error. */
int cli_common_option(cli_common_opts *o, cli_input_opts *in, const char *cmd, int id,
                      const char *value);

/* How a command words a context that cannot be opened (each keeps its words). */
typedef enum cli_context_msg {
    CLI_CONTEXT_MSG_PLAIN,  /* "cannot create a context: WHY" */
    CLI_CONTEXT_MSG_NAMED,  /* "cannot create a BACKEND context: WHY" */
    CLI_CONTEXT_MSG_OPTION, /* "--backend BACKEND: cannot create a context: WHY" */
    CLI_CONTEXT_MSG_OPEN    /* "cannot open a BACKEND context: WHY" */
} cli_context_msg;

/* fovea_default_settings() with the group's --backend and --threads, for a
 * command that sets more (a log callback) before cli_open_context_with(). */
void cli_context_settings(fovea_settings *s, const cli_common_opts *o);
/* fovea_open() with s; prints msg's message when it fails.
 * @return CLI_EXIT_OK or CLI_EXIT_RUNTIME */
int cli_open_context_with(fovea_context **ctx, const fovea_settings *s, cli_context_msg msg);
/* The two above in one: a context on the group's --backend and --threads. */
int cli_open_context(fovea_context **ctx, const cli_common_opts *o, cli_context_msg msg);

/* A context's log callback: "fovea: [warning: ]MSG" on stderr. */
void cli_log_to_stderr(void *opaque, fovea_log_level level, const char *msg);

/* ------------------------------------------------------------------ progress */

/* "frame 120/300  45.2 fps  ETA 4s" on stderr, redrawn with '\r' at most 4 times
 * a second. Shown when stderr is a terminal, or when FOVEA_PROGRESS=1 (tests);
 * FOVEA_PROGRESS=0 or quiet hides it. */
typedef struct cli_progress {
    int enabled;
    int64_t total; /* -1 when unknown */
    int64_t done;
    double t0;   /* start, seconds */
    double last; /* last redraw */
    int width;   /* length of the last line, to blank leftovers */
    /* what is counted and its rate, set after cli_progress_start; NULL:
     * "frame" and "fps" */
    const char *unit, *rate_unit;
} cli_progress;

void cli_progress_start(cli_progress *p, int64_t total, int quiet);
void cli_progress_update(cli_progress *p, int64_t done);
/* Draw the final state and end the line (nothing when disabled or nothing drawn). */
void cli_progress_finish(cli_progress *p);

/* ------------------------------------------------------------------ formats */

/* 1 when the container can store frames of fmt as they are (no conversion). */
int cli_container_holds(fovea_container c, fovea_pixfmt fmt);

/* The format to write when the input is in fmt and the user chose none: fmt when
 * the container holds it, else rgb24 for PNG/PNM (from 8-bit color YUV, nv12, or
 * rgba for PNM), rgb48 for PNG/PNM from deeper YUV (or rgba64 for PNM), i420 for
 * y4m from 8-bit RGB or nv12 and i444p16 from 16-bit RGB: never fewer bits than
 * the input has. Gray stays gray everywhere. */
fovea_pixfmt cli_default_output_pixfmt(fovea_container c, fovea_pixfmt fmt);

/* ------------------------------------------------------------------ read-ahead */

/* The commands read ahead through the library's ring (fovea_read_ring,
 * fovea/advanced.h): one reader thread per input. */

/* The message of the last failed call on ctx on this thread, else the
 * context-less one (readers opened on a context report there). */
const char *cli_last_error(const fovea_context *ctx);

/* A ring of nslots frames of r in mem on ctx, not started; read_past_error as
 * fovea_read_ring_settings. @return FOVEA_OK or the library's status (*q NULL) */
int cli_ring_open(fovea_read_ring **q, fovea_context *ctx, fovea_reader *r, int nslots,
                  int64_t limit, fovea_memtype mem, int read_past_error);

/* ------------------------------------------------------------------ pipeline */

/* The pipeline of a command that reads and writes video (cli_pipe.c): its
 * inputs' reader threads (fovea_read_ring) and a writer thread that writes the frames
 * the command queues, in order, so that reading, processing and writing
 * overlap. A queued frame's buffers trade places with those of a written slot
 * (no copy). A failed write is the writer thread's last: the command learns
 * of it at its next cli_pipe_put or at cli_pipe_finish. */
typedef struct cli_pipe_slot {
    fovea_frame f[2]; /* the buffers handed over by cli_pipe_put */
    int which;        /* the one to write */
    int filled;
} cli_pipe_slot;

typedef struct cli_pipe {
    fovea_writer *w;
    fovea_read_ring **const *rings; /* the readers, started by cli_pipe_start */
    int nrings;
    cli_pipe_slot *slot;
    int nslots;
    int64_t queued, written; /* frames handed to the writer thread, written */
    int closing;             /* no more frames will be queued */
    int failed, status;      /* a write failed, with this status */
    char msg[1024];          /* and this message (taken on the writer thread) */
    int ready, started;      /* mu and cv initialized; the writer thread runs */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th;
} cli_pipe;

/* A pipe of nslots queued frames at most, their buffers zeroed (the command
 * may allocate them: slot[k].f[0] and f[1]), no thread yet.
 * @return FOVEA_OK or FOVEA_ERR_NOMEM */
int cli_pipe_init(cli_pipe *p, int nslots);
/* Start the readers (rings initialized, not yet run), then a writer thread for
 * w (none when w is NULL: a command that reads video and writes none, whose
 * frames are not put). Prints "cannot start a reader thread" or "cannot start the writer thread"
 * when a thread cannot start. @return 0, or -1 after printing the error */
int cli_pipe_start(cli_pipe *p, fovea_writer *w, fovea_read_ring **const *rings, int nrings);
/* Queue frame bufs[which] for writing: bufs[0] and bufs[1] (either may be a
 * zeroed frame) trade places with a written slot's, waiting for one.
 * @return FOVEA_OK, or the status of a write that failed (nothing queued) */
int cli_pipe_put(cli_pipe *p, fovea_frame *bufs[2], int which);
/* Write what was queued, then close the readers' rings (their handles set to
 * NULL); every thread joined. Safe on a zeroed pipe. @return FOVEA_OK, or the status of the write that failed */
int cli_pipe_finish(cli_pipe *p);
/* The message of the failed write when the writer thread's write failed, else
 * the calling thread's fovea_last_error(NULL) (the writers are opened without
 * a context). */
const char *cli_pipe_error(const cli_pipe *p);
/* Free the slots' frames (ctx: as allocated) and the pipe; after cli_pipe_finish.
 * Safe on a zeroed pipe. */
void cli_pipe_free(cli_pipe *p, fovea_context *ctx);

/* ------------------------------------------------------------------ summary */

/* The one line a command that processes frames prints at the end, e.g.
 * "convert: 120 frames 1920x1080 i420 -> out.y4m in 1.52 s (78.9 fps)": on
 * stdout, or on stderr when stdout carries the command's data (stdout_busy);
 * nothing when quiet. */
void cli_summary(int quiet, int stdout_busy, const char *fmt, ...) CLI_PRINTF(3, 4);

/* "N frame(s)" and " in S s (F fps)" for summaries. */
const char *cli_frames_word(int64_t n);
void cli_format_timing(char *buf, size_t n, int64_t frames, double seconds);

/* ------------------------------------------------------------------ misc */

/* Monotonic clock in seconds. */
double cli_now(void);

/* Write a cJSON tree to path ("-" = stdout), printing errors.
 * @return CLI_EXIT_OK or CLI_EXIT_RUNTIME. */
int cli_write_json(const char *path, const cJSON *json);

/* 1 after printing "fovea: OUT: output is the same file as input IN" when out
 * and in name the same file (hard links and symlinks included), else 0. Every
 * command checks its outputs against its inputs before opening any output and
 * exits with CLI_EXIT_USAGE when this returns 1. */
int cli_refuse_same_file(const char *out, const char *in);

/* ------------------------------------------------------------------ files */

/* The files a command reads and writes (cli_files.c), listed once and checked
 * before any output is opened: an output may be neither an input (nor a file
 * of an input's image sequence; hard links and symlinks included) nor the file
 * of another output (a character device such as /dev/null may take several).
 *   cli_files fs;
 *   cli_files_init(&fs, cmd);
 *   cli_files_add(&fs, "IN", in, cli_is_sequence(in, forced) ? CLI_FILE_SEQUENCE : 0, -1);
 *   cli_files_add(&fs, "--json", json, CLI_FILE_OUT, 0);
 *   rc = cli_files_check(&fs);
 *   cli_files_free(&fs);
 * Every file a command reads counts: models, rigs, manifests and the videos a
 * manifest lists as well as the main input. */
enum {
    CLI_FILE_OUT = 1,     /* written (else read) */
    CLI_FILE_SEQUENCE = 2 /* path is a frame-number pattern (cli_is_sequence) */
};

typedef struct cli_file {
    const char *what; /* how the user named it: "--json", "OUT", "--model" */
    char *path;       /* a copy */
    int flags;        /* CLI_FILE_* */
    int64_t count;    /* a sequence's frames (an input's files are numbered
                       * 0..count, an output's 0..count-1); -1 = unknown: the
                       * files that exist */
} cli_file;

typedef struct cli_files {
    const char *cmd; /* for the "Try 'fovea CMD --help'" line */
    cli_file *f;
    int n, cap;
    int nomem; /* an add ran out of memory: the check says so */
} cli_files;

void cli_files_init(cli_files *fs, const char *cmd);
/* List a file; a NULL path or "-" (stdin/stdout) is not a file: ignored.
 * what must outlive fs. @return 0, or -1 out of memory (the check reports it) */
int cli_files_add(cli_files *fs, const char *what, const char *path, int flags, int64_t count);
/* 1 when path is read and written as an image sequence: a PNG or PNM name
 * (or forced container) with one frame-number field (%d, %4d, %04d). */
int cli_is_sequence(const char *path, fovea_container forced);
/* @return CLI_EXIT_OK; or CLI_EXIT_USAGE after "fovea: OUT: output is the same
 * file as input IN" (or "... as a file of input PATTERN"), or after "fovea:
 * --json and --csv name the same file: X" and the help hint; or
 * CLI_EXIT_RUNTIME out of memory (printed) */
int cli_files_check(const cli_files *fs);
void cli_files_free(cli_files *fs);

/* ------------------------------------------------------------------ temporaries */

/* Interrupted commands leave no temporary behind (cli_temps.c): main()
 * installs handlers of SIGINT, SIGTERM and SIGHUP (unless ignored at start)
 * that unlink every temporary listed here, then die of the signal. Outputs'
 * temporaries are listed by the writers' hook (cli_temp_hook, set by
 * cli_pipe_start) and by cli_outfile_open. SIGKILL leaves them. */
void cli_temps_install(void);
void cli_temp_add(const char *path);    /* NULL: nothing */
void cli_temp_remove(const char *path); /* NULL or not listed: nothing */
/* A fovea_temp_hook for fovea_writer_set_temp_hook (opaque unused). */
void cli_temp_hook(void *opaque, const char *path, int live);
/* fovea_outfile_open (no context: the message is fovea_last_error(NULL)),
 * fovea_outfile_commit and fovea_outfile_close with the temporary listed. */
int cli_outfile_open(fovea_outfile **of, const char *path);
int cli_outfile_commit(fovea_outfile **of);
void cli_outfile_close(fovea_outfile **of);

/* Display name of a path in messages: "-" -> "stdin"/"stdout". */
const char *cli_display_path(const char *path, int is_output);

/* ---- cli_sequence.c: image sequences */

/* 1 when path is a frame-number pattern the image readers and writers take
 * (c PNG or PNM; one %d, %Nd or %0Nd; "%%" a literal %), 0 otherwise. */
int cli_is_pattern(const char *path, fovea_container c);

/* 1 when path has a '%' conversion the image readers and writers do not take
 * (anything but %d, %Nd, %0Nd and "%%"), 2 for a second frame-number
 * conversion; its text ("%s", "%d") into conv. 0 when there is none. */
int cli_pattern_problem(const char *path, char *conv, size_t n);

/* Refuse a PNG or PNM name (by its extension) with such a conversion: an
 * output always, an input unless a file has that very name. what names the
 * argument ("OUT", "--heatmap"). @return CLI_EXIT_OK, or CLI_EXIT_USAGE
 * (printed, naming the conversion) */
int cli_check_pattern_arg(const char *cmd, const char *what, const char *path, int is_output);

/* Refuse (print, @return CLI_EXIT_USAGE) an output that would write over a
 * file of the image-sequence input (files 0..nfiles): each names[k] (NULL or
 * "-" skipped), or with patterns[k] (patterns may be NULL) its names for
 * 0..nout-1. @return CLI_EXIT_OK, or CLI_EXIT_RUNTIME when out of memory. */
int cli_refuse_sequence_outputs(const char *input, int64_t nfiles, const char *const *names,
                                const int *patterns, int nnames, int64_t nout);

/* The frame rate of an output (info) whose input has none (images, raw yuv
 * without --fps): --fps where given (in), else for a y4m output (oc) 25/1,
 * said on stderr unless quiet or *said (then set: once per run). */
void cli_output_rate(const cli_input_opts *in, const char *input, fovea_container oc, int quiet,
                     int *said, fovea_video_info *info);

#endif
