/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea send IN --listen ADDR:PORT`: serve a video to every receiver that
 * connects as a delta stream (docs/stream.md): only the tiles that changed
 * beyond --threshold against what the receivers show. */
#ifdef FOVEA_HAVE_STREAM
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "cli_stream.h"
#include "fovea/stream.h"

enum {
    OPT_LISTEN = 1,
    OPT_CLIENTS,
    OPT_WAIT_TIMEOUT,
    OPT_THRESHOLD,
    OPT_KEYFRAME,
    OPT_DENOISE,
    OPT_TILE,
    OPT_LEVEL,
    OPT_REALTIME,
    OPT_MAX_QUEUE,
    OPT_SNDBUF,
    OPT_MAX_CLIENTS,
    OPT_LINGER,
    OPT_STATS
};

static const cli_option options[] = {
    CLI_INPUT_OPTIONS,
    {"listen", 'l', "ADDR:PORT", "address to serve on, required (port 0: any free port)", NULL,
     OPT_LISTEN},
    {"clients", 'c', "N",
     "wait until N receivers are connected before sending (0: start at "
     "once)",
     "1 for a file, 0 for stdin or a pipe", OPT_CLIENTS},
    {"wait-timeout", 0, "S",
     "give up (exit 1) when the --clients receivers have not connected "
     "within S seconds (0 = wait as long as it takes)",
     "0", OPT_WAIT_TIMEOUT},
    {"threshold", 't', "T", "every sample a receiver shows is within T of the input (0 = lossless)",
     "0", OPT_THRESHOLD},
    {"keyframe", 'k', "K",
     "a keyframe every K frames (0 = only the first and those receivers need)", "300",
     OPT_KEYFRAME},
    {"denoise", 0, "F",
     "filter each frame before it is compared and sent: none, median3, gauss5, "
     "temporal (the bound then holds against the filtered frame)",
     "none", OPT_DENOISE},
    {"tile", 0, "N", "tile side in luma pixels: 8, 16, 32 or 64 (chroma follows the subsampling)",
     "16", OPT_TILE},
    {"level", 0, "L", "zstd level, 1 to 19", "1", OPT_LEVEL},
    {"backend", 0, "B", "auto, cpu or cuda (the encoder)", "auto", CLI_OPT_BACKEND},
    CLI_OPTION_THREADS,
    {"realtime", 0, NULL, "send at the input's frame rate instead of as fast as it is read", "off",
     OPT_REALTIME},
    {"max-queue", 0, "BYTES",
     "bytes queued for one receiver before it is dropped back to a "
     "keyframe (suffix K, M, G)",
     "64M", OPT_MAX_QUEUE},
    {"sndbuf", 0, "BYTES", "kernel send buffer per receiver (0 = the system's)", "0", OPT_SNDBUF},
    {"max-clients", 0, "N", "receivers at once; more are turned away", "16", OPT_MAX_CLIENTS},
    {"linger", 0, "S", "seconds to wait at the end for the receivers to take the stream", "10",
     OPT_LINGER},
    {"stats", 0, "FILE.json",
     "write per-frame bytes, tiles and encode times, and totals; '-' = "
     "stdout",
     "none", OPT_STATS},
    {"quiet", 'q', NULL, "no progress and no summary ('listening on' is always printed)",
     "progress on a terminal, a summary line at the end", CLI_OPT_QUIET},
    {0},
};

static const cli_spec spec = {
    "send",
    "IN --listen ADDR:PORT [options]",
    "Serve video IN (y4m, '-' for stdin, or raw with the input options) to every\n"
    "receiver that connects (fovea receive) as a delta stream: a keyframe, then\n"
    "only the tiles that changed by more than T since what the receivers show,\n"
    "zstd-compressed; every sample shown stays within T of the input (T = 0:\n"
    "lossless). Receivers that join, fall behind or ask get a keyframe; one that\n"
    "disconnects does not stop the others. Prints 'listening on ADDR:PORT' on\n"
    "stderr once the socket is open; a file waits for one receiver (--clients),\n"
    "a pipe starts at once. Ends with the input (end-of-stream message, then a\n"
    "clean close).",
    options,
    "Examples:\n"
    "  fovea send camera.y4m --listen 0.0.0.0:9000 --threshold 2\n"
    "  ffmpeg -i in.mp4 -f yuv4mpegpipe - | fovea send - -l 127.0.0.1:0 -c 1\n"
    "\n"
    "Exit status: 0 success, 1 runtime error (input, an input without frames\n"
    "among them; socket; --wait-timeout passed), 2 usage error.",
};

typedef struct send_args {
    cli_common_opts opt;
    cli_input_opts in;
    const char *path, *listen, *stats;
    int clients, clients_given, max_clients, realtime, linger, wait_timeout;
    long long max_queue, sndbuf;
    fovea_stream_encoder_settings ss;
} send_args;

/* stdin, a FIFO or a device: a live source, which starts at once; a file
 * (or an image sequence) waits for a receiver, else it would be sent to
 * nobody before anyone could connect. */
static int live_source(const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0)
        return 1;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

static int parse_args(send_args *a, int argc, char **argv)
{
    const char *cmd = spec.name;
    cli_parser p;
    const char *v;
    int id;
    memset(a, 0, sizeof(*a));
    cli_common_opts_init(&a->opt);
    cli_input_opts_init(&a->in);
    fovea_stream_encoder_default_settings(&a->ss);
    a->max_clients = 16;
    a->max_queue = 64LL << 20;
    a->linger = 10;
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
        case OPT_LISTEN: a->listen = v; break;
        case OPT_CLIENTS:
            bad = cli_parse_int32(cmd, "--clients", v, 0, 1024, &a->clients);
            a->clients_given = 1;
            break;
        case OPT_WAIT_TIMEOUT:
            bad = cli_parse_int32(cmd, "--wait-timeout", v, 0, 1 << 24, &a->wait_timeout);
            break;
        case OPT_THRESHOLD:
            bad = cli_parse_int32(cmd, "--threshold", v, 0, 65535, &a->ss.threshold);
            break;
        case OPT_KEYFRAME:
            bad = cli_parse_int32(cmd, "--keyframe", v, 0, 1 << 30, &a->ss.keyframe_interval);
            break;
        case OPT_DENOISE: bad = cli_parse_denoise(cmd, v, &a->ss.denoise); break;
        case OPT_TILE: {
            static const char *const tiles[] = {"8", "16", "32", "64", NULL};
            int i;
            bad = cli_parse_choice(cmd, "--tile", v, tiles, &i);
            if (!bad)
                a->ss.tile = 8 << i;
            break;
        }
        case OPT_LEVEL: bad = cli_parse_int32(cmd, "--level", v, 1, 19, &a->ss.zstd_level); break;
        case OPT_REALTIME: a->realtime = 1; break;
        case OPT_MAX_QUEUE:
            bad = cli_parse_bytes(cmd, "--max-queue", v, 1, 1LL << 40, &a->max_queue);
            break;
        case OPT_SNDBUF: bad = cli_parse_bytes(cmd, "--sndbuf", v, 0, 1LL << 30, &a->sndbuf); break;
        case OPT_MAX_CLIENTS:
            bad = cli_parse_int32(cmd, "--max-clients", v, 1, 1024, &a->max_clients);
            break;
        case OPT_LINGER: bad = cli_parse_int32(cmd, "--linger", v, 0, 3600, &a->linger); break;
        case OPT_STATS: a->stats = v; break;
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end;
    if (p.nrest != 1)
        return cli_usage_error(cmd, "send: expected one input, got %d arguments", p.nrest);
    a->path = p.rest[0];
    if (!a->clients_given)
        a->clients = live_source(a->path) ? 0 : 1;
    if (!a->listen)
        return cli_usage_error(cmd, "send: --listen ADDR:PORT is required");
    if (a->clients > a->max_clients)
        return cli_usage_error(cmd, "--clients %d is more than --max-clients %d", a->clients,
                               a->max_clients);
    if (cli_refuse_same_file(a->stats, a->path))
        return CLI_EXIT_USAGE;
    return CLI_EXIT_OK;
}

/* A run's state. */
typedef struct send_run {
    send_args a;
    fovea_reader *r;
    fovea_video_info info;
    fovea_context *ctx;
    fovea_stream_encoder *enc;
    fovea_stream_server *srv;
    fovea_read_ring *ring;
    cli_stream_log log;
    cli_stream_progress prog;
    size_t raw;
} send_run;

/* An input without frames is an error (README): nothing to serve. */
static int no_frames(const send_run *s)
{
    cli_error(cli_display_path(s->a.path, 0), "no frames in the input: nothing to send");
    return CLI_EXIT_RUNTIME;
}

static int open_all(send_run *s)
{
    send_args *a = &s->a;
    /* the context first: NVDEC decodes on it (a CUDA one) */
    fovea_settings cs;
    cli_context_settings(&cs, &a->opt);
    cs.log = cli_log_to_stderr;
    cs.log_level = FOVEA_LOG_WARNING;
    if (cli_open_context_with(&s->ctx, &cs, CLI_CONTEXT_MSG_NAMED) != CLI_EXIT_OK)
        return CLI_EXIT_RUNTIME;
    a->in.ctx = s->ctx;
    int rc = cli_open_reader(spec.name, a->path, &a->in, &s->r);
    if (rc != CLI_EXIT_OK)
        return rc;
    s->info = *fovea_reader_info(s->r);
    if (s->info.frame_count == 0) /* a pipe's emptiness shows in send_frames */
        return no_frames(s);
    s->raw = fovea_frame_packed_size(s->info.fmt, s->info.width, s->info.height);
    int st = fovea_stream_encoder_open(&s->enc, s->ctx, &a->ss, &s->info);
    if (st < 0) {
        cli_error(cli_display_path(a->path, 0), "%s", fovea_last_error(s->ctx));
        return CLI_EXIT_RUNTIME;
    }
    const uint8_t *hello;
    size_t n;
    fovea_stream_encoder_hello(s->enc, &hello, &n);
    fovea_stream_server_settings ss;
    fovea_stream_server_default_settings(&ss);
    ss.max_clients = a->max_clients;
    ss.max_queue = (size_t)a->max_queue;
    ss.sndbuf = (int)a->sndbuf;
    st = fovea_stream_server_open(&s->srv, s->ctx, a->listen, hello, n, &ss);
    if (st < 0) {
        cli_error(NULL, "%s", fovea_last_error(s->ctx));
        return st == FOVEA_ERR_INVALID_ARG ? CLI_EXIT_USAGE : CLI_EXIT_RUNTIME;
    }
    /* always, also with --quiet: scripts read the port from it */
    fprintf(stderr, "listening on %s\n", fovea_stream_server_address(s->srv));
    fflush(stderr);
    /* pinned on a CUDA context: the encoder uploads them without its staging
     * copy (each encode call returns after its upload, so a slot is free
     * again when it is released); NVDEC's device frames it reads in place
     * (each encode call has read its frame when it returns) */
    const int cuda = fovea_context_backend(s->ctx) == FOVEA_BACKEND_CUDA;
    const fovea_memtype mem = !cuda                                          ? FOVEA_MEM_HOST
                              : fovea_reader_hwdec(s->r) == FOVEA_HWDEC_CUDA ? FOVEA_MEM_DEVICE
                                                                             : FOVEA_MEM_PINNED;
    if (cli_ring_open(&s->ring, s->ctx, s->r, 4, -1, mem, 0) < 0 ||
        fovea_read_ring_start(s->ring) != FOVEA_OK) {
        cli_error(NULL, "cannot start the input reader");
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

static int wait_clients(send_run *s)
{
    fovea_stream_server_stats st;
    const double deadline = cli_now() + s->a.wait_timeout;
    for (;;) {
        fovea_stream_server_get_stats(s->srv, &st);
        if (st.clients >= s->a.clients)
            return CLI_EXIT_OK;
        if (s->a.wait_timeout > 0 && cli_now() >= deadline) {
            cli_error(NULL,
                      "%d of %d receiver%s connected within --wait-timeout %d s: nothing "
                      "sent",
                      st.clients, s->a.clients, s->a.clients == 1 ? "" : "s", s->a.wait_timeout);
            return CLI_EXIT_RUNTIME;
        }
        if (fovea_stream_server_poll(s->srv, 200) < 0) {
            cli_error(NULL, "%s", fovea_last_error(s->ctx));
            return CLI_EXIT_RUNTIME;
        }
    }
}

/* --realtime: serve the receivers until frame k's time comes. */
static void pace(send_run *s, int64_t k, double t0)
{
    const fovea_video_info *in = &s->info;
    if (!s->a.realtime || in->fps_num <= 0 || in->fps_den <= 0)
        return;
    const double due = t0 + (double)k * in->fps_den / in->fps_num;
    for (;;) {
        const double left = due - cli_now();
        if (left <= 0)
            return;
        fovea_stream_server_poll(s->srv, (int)(left * 1000.0) + 1);
    }
}

static int send_frames(send_run *s)
{
    const double t0 = cli_now();
    if (s->a.realtime && (s->info.fps_num <= 0 || s->info.fps_den <= 0))
        fprintf(stderr, "fovea: warning: %s has no frame rate: --realtime ignored\n",
                cli_display_path(s->a.path, 0));
    char extra[64];
    for (int64_t k = 0;; k++) {
        fovea_frame *f;
        const char *msg;
        const int st = fovea_read_ring_take(s->ring, &f, &msg);
        if (st == FOVEA_EOF && k == 0) /* the receivers see the stream break off */
            return no_frames(s);
        if (st == FOVEA_EOF)
            return CLI_EXIT_OK;
        if (st < 0) {
            cli_stream_progress_finish(&s->prog, &s->log, NULL);
            return cli_report(s->a.path, 0, msg, st);
        }
        pace(s, k, t0);
        if (fovea_stream_server_poll(s->srv, 0) < 0) {
            cli_error(NULL, "%s", fovea_last_error(s->ctx));
            return CLI_EXIT_RUNTIME;
        }
        if (fovea_stream_server_keyframe_wanted(s->srv))
            fovea_stream_encoder_request_keyframe(s->enc);
        const uint8_t *m;
        size_t n;
        fovea_stream_frame_info fi;
        int rc = fovea_stream_encoder_encode(s->enc, f, cli_wallclock_us(), &m, &n, &fi);
        fovea_read_ring_release(s->ring);
        if (rc >= 0)
            rc = fovea_stream_server_send(s->srv, m, n);
        if (rc < 0) {
            cli_stream_progress_finish(&s->prog, &s->log, NULL);
            cli_error(NULL, "frame %lld: %s", (long long)k, fovea_last_error(s->ctx));
            return CLI_EXIT_RUNTIME;
        }
        fovea_stream_server_stats ss;
        fovea_stream_server_get_stats(s->srv, &ss);
        cli_stream_rec rec = {fi.frame,
                              fi.keyframe,
                              (int64_t)fi.bytes,
                              fi.tiles_sent,
                              fi.tiles_changed,
                              0,
                              1000.0 * fi.seconds,
                              0,
                              -1,
                              ss.clients};
        if (cli_stream_log_add(&s->log, &rec, fi.raw_bytes) < 0) {
            cli_error(NULL, "out of memory");
            return CLI_EXIT_RUNTIME;
        }
        snprintf(extra, sizeof extra, "%d receiver%s", ss.clients, ss.clients == 1 ? "" : "s");
        cli_stream_progress_update(&s->prog, &s->log, extra, 0);
    }
}

static int write_stats(send_run *s, double secs)
{
    const send_args *a = &s->a;
    fovea_stream_server_stats ss;
    fovea_stream_server_get_stats(s->srv, &ss);
    cJSON *root = cJSON_CreateObject();
    if (!root) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    char ver[64];
    snprintf(ver, sizeof ver, "fovea %s", fovea_version());
    cJSON_AddStringToObject(root, "version", ver);
    cJSON_AddStringToObject(root, "command", "send");
    cJSON_AddStringToObject(root, "input", a->path);
    cJSON_AddStringToObject(root, "listen", fovea_stream_server_address(s->srv));
    cJSON_AddNumberToObject(root, "width", s->info.width);
    cJSON_AddNumberToObject(root, "height", s->info.height);
    cJSON_AddStringToObject(root, "pixfmt", fovea_pixfmt_name(s->info.fmt));
    cJSON_AddNumberToObject(root, "threshold", a->ss.threshold);
    cJSON_AddNumberToObject(root, "keyframe_interval", a->ss.keyframe_interval);
    cJSON_AddNumberToObject(root, "tile", a->ss.tile);
    cJSON_AddNumberToObject(root, "zstd_level", a->ss.zstd_level);
    static const char *const dn[] = {"none", "median3", "gauss5", "temporal"};
    cJSON_AddStringToObject(root, "denoise", dn[a->ss.denoise]);
    cJSON_AddStringToObject(root, "backend", fovea_backend_name(fovea_context_backend(s->ctx)));
    cJSON_AddNumberToObject(root, "threads", fovea_context_threads(s->ctx));
    cJSON_AddItemToObject(root, "frames", cli_stream_frames_json(&s->log, 0));
    cJSON *t = cJSON_AddObjectToObject(root, "totals");
    if (t) {
        cli_stream_totals_json(t, &s->log, secs, "encode_ms_mean");
        cJSON_AddNumberToObject(t, "receivers_accepted", (double)ss.accepted);
        cJSON_AddNumberToObject(t, "receivers_refused", (double)ss.refused);
        cJSON_AddNumberToObject(t, "disconnects", (double)ss.disconnected);
        cJSON_AddNumberToObject(t, "resyncs", (double)ss.resyncs);
        cJSON_AddNumberToObject(t, "resync_requests", (double)ss.resync_requests);
        cJSON_AddNumberToObject(t, "bytes_sent", (double)ss.bytes_sent);
    }
    const int rc = cli_write_json(a->stats, root);
    cJSON_Delete(root);
    return rc;
}

int cmd_send(int argc, char **argv)
{
    send_run s;
    memset(&s, 0, sizeof(s));
    int rc = parse_args(&s.a, argc, argv);
    if (rc < 0)
        return CLI_EXIT_OK; /* --help */
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = open_all(&s);
    if (rc == CLI_EXIT_OK && s.a.clients > 0)
        rc = wait_clients(&s);
    const double t0 = cli_now();
    if (rc == CLI_EXIT_OK) {
        cli_stream_progress_start(&s.prog, s.a.opt.quiet);
        rc = send_frames(&s);
    }
    if (rc == CLI_EXIT_OK) {
        const uint8_t *m;
        size_t n;
        fovea_stream_encoder_end(s.enc, &m, &n);
        if (fovea_stream_server_send(s.srv, m, n) < 0 ||
            fovea_stream_server_finish(s.srv, 1000 * s.a.linger) < 0) {
            cli_stream_progress_finish(&s.prog, &s.log, NULL);
            cli_error(NULL, "%s", fovea_last_error(s.ctx));
            rc = CLI_EXIT_RUNTIME;
        }
    }
    const double secs = cli_now() - t0;
    cli_stream_progress_finish(&s.prog, &s.log, NULL);
    if (rc == CLI_EXIT_OK && s.a.stats)
        rc = write_stats(&s, secs);
    if (rc == CLI_EXIT_OK) {
        fovea_stream_server_stats ss;
        fovea_stream_server_get_stats(s.srv, &ss);
        char timing[64];
        cli_format_timing(timing, sizeof timing, (int64_t)s.log.n, secs);
        cli_summary(s.a.opt.quiet, s.a.stats && strcmp(s.a.stats, "-") == 0,
                    "send: %zu %s %dx%d %s, %lld bytes (%.2f%% of raw, %lld keyframes) to %lld "
                    "receiver%s %s",
                    s.log.n, cli_frames_word((int64_t)s.log.n), s.info.width, s.info.height,
                    fovea_pixfmt_name(s.info.fmt), (long long)s.log.bytes,
                    s.log.raw_bytes ? 100.0 * (double)s.log.bytes / (double)s.log.raw_bytes : 0.0,
                    (long long)s.log.keyframes, (long long)ss.accepted, ss.accepted == 1 ? "" : "s",
                    timing);
    }
    fovea_read_ring_close(&s.ring);
    fovea_stream_server_close(&s.srv);
    fovea_stream_encoder_close(&s.enc);
    cli_stream_log_free(&s.log);
    fovea_close(&s.ctx);
    fovea_reader_close(&s.r);
    return rc;
}
#endif
