/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea receive ADDR:PORT -o OUT`: connect to a `fovea send`, decode its
 * delta stream and write the frames (y4m on stdout with '-'). Every message
 * is checked before a frame is written; a broken stream ends the run with an
 * error, never with a wrong frame. */
#ifdef FOVEA_HAVE_STREAM
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_stream.h"
#include "fovea/stream.h"

enum { OPT_OUT = 1, OPT_STATS, OPT_TIMEOUT, OPT_RESYNC, OPT_RCVBUF };

static const cli_option options[] = {
    {"output", 'o', "OUT", "where the frames go, required: y4m (or .yuv raw) file, '-' = stdout",
     NULL, OPT_OUT},
    {"stats", 0, "FILE.json",
     "write per-frame bytes, tiles, decode time and latency, and totals "
     "(with the largest error checked at keyframes); '-' = stdout when OUT is not",
     "none", OPT_STATS},
    {"timeout", 0, "S", "give up when the sender sends nothing for S seconds (0 = never)", "30",
     OPT_TIMEOUT},
    {"resync", 0, NULL,
     "on a damaged frame inside an intact message ask the sender for a "
     "keyframe and go on (damaged framing always ends the run)",
     "off", OPT_RESYNC},
    {"rcvbuf", 0, "BYTES",
     "kernel receive buffer, set before connecting (0 = the system's, "
     "which grows by itself): bounds what the network holds while this receiver does not read",
     "0", OPT_RCVBUF},
    CLI_OPTION_THREADS,
    {"quiet", 'q', NULL, "no progress and no summary", "progress on a terminal, a summary line",
     CLI_OPT_QUIET},
    {0},
};

static const cli_spec spec = {
    "receive",
    "ADDR:PORT -o OUT [options]",
    "Connect to a sender (fovea send) and write the frames it streams: y4m by\n"
    "default, '-' for stdout, so that '| ffplay -' shows the stream live (formats\n"
    "y4m cannot hold are converted: nv12 and rgb to i420, 16-bit rgb to i444p16;\n"
    "a .yuv output keeps every format as sent). Every message is\n"
    "checked (checksum, fields, the frame a delta applies to) before a frame is\n"
    "written. Exits 0 at the end of the stream, 1 with a message when the stream\n"
    "breaks off or is damaged (a regular output file is then not created).",
    options,
    "Examples:\n"
    "  fovea receive 192.168.1.20:9000 -o - | ffplay -\n"
    "  fovea receive 127.0.0.1:9000 -o copy.y4m --stats recv.json\n"
    "\n"
    "Exit status: 0 end of stream, 1 runtime error (connection, damaged stream,\n"
    "a stream without frames: nothing is written, output), 2 usage error, 3 the\n"
    "sender turned this receiver away (it serves --max-clients receivers, or it is\n"
    "finishing): nothing is written; try again later.",
};

typedef struct recv_args {
    cli_common_opts opt; /* backend: cpu (no --backend) */
    const char *addr, *out, *stats;
    int timeout, resync;
    long long rcvbuf;
} recv_args;

static int parse_args(recv_args *a, int argc, char **argv)
{
    const char *cmd = spec.name;
    cli_parser p;
    const char *v;
    int id;
    memset(a, 0, sizeof(*a));
    cli_common_opts_init(&a->opt);
    a->opt.backend = FOVEA_BACKEND_CPU;
    a->timeout = 30;
    cli_parser_init(&p, &spec, argc, argv);
    while ((id = cli_next(&p, &v)) > 0) {
        const int shared = cli_common_option(&a->opt, NULL, cmd, id, v);
        if (shared != 0) {
            if (shared < 0)
                return CLI_EXIT_USAGE;
            continue;
        }
        int bad = 0;
        switch (id) {
        case OPT_OUT: a->out = v; break;
        case OPT_STATS: a->stats = v; break;
        case OPT_TIMEOUT: bad = cli_parse_int32(cmd, "--timeout", v, 0, 86400, &a->timeout); break;
        case OPT_RESYNC: a->resync = 1; break;
        case OPT_RCVBUF: bad = cli_parse_bytes(cmd, "--rcvbuf", v, 0, 1LL << 30, &a->rcvbuf); break;
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end;
    if (p.nrest != 1)
        return cli_usage_error(cmd, "receive: expected the sender's ADDR:PORT, got %d arguments",
                               p.nrest);
    a->addr = p.rest[0];
    if (!a->out)
        return cli_usage_error(cmd, "receive: -o OUT is required ('-' for stdout)");
    if (a->stats && strcmp(a->stats, "-") == 0 && strcmp(a->out, "-") == 0)
        return cli_usage_error(cmd, "-o - and --stats -: only one can go to stdout");
    cli_files fs;
    cli_files_init(&fs, cmd);
    cli_files_add(&fs, "-o", a->out, CLI_FILE_OUT, -1);
    cli_files_add(&fs, "--stats", a->stats, CLI_FILE_OUT, 0);
    const int rc = cli_files_check(&fs);
    cli_files_free(&fs);
    return rc;
}

typedef struct recv_run {
    recv_args a;
    fovea_context *ctx;
    fovea_stream_client *c;
    fovea_writer *w;
    fovea_video_info info;
    fovea_frame conv; /* the frame converted for the output, when needed */
    fovea_pixfmt out_fmt;
    fovea_container cont; /* the output's container */
    int have_hello;
    cli_stream_log log;
    cli_stream_progress prog;
    int64_t end_frames, skipped;
    int max_checked; /* largest error checked at keyframes, -1 none */
    int threshold;
} recv_run;

/* Exit status of a receiver the sender turned away: not a crash, nor a
 * damaged stream; trying again later may succeed. */
enum { RECV_EXIT_REFUSED = 3 };

/* The sender said why it closed at once (REFUSED). */
static int refused(recv_run *r, const fovea_stream_event *ev)
{
    cli_stream_progress_finish(&r->prog, &r->log, NULL);
    if (ev->refused_reason == FOVEA_STREAM_REFUSED_FULL)
        cli_error(NULL, "sender at %s is full (--max-clients %d): try again later", r->a.addr,
                  ev->refused_max_clients);
    else if (ev->refused_reason == FOVEA_STREAM_REFUSED_CLOSING)
        cli_error(NULL, "sender at %s is finishing its stream and takes no new receivers",
                  r->a.addr);
    else
        cli_error(NULL, "sender at %s turned this receiver away (reason %d)", r->a.addr,
                  ev->refused_reason);
    return RECV_EXIT_REFUSED;
}

static int fail(recv_run *r, int st)
{
    cli_stream_progress_finish(&r->prog, &r->log, NULL);
    const char *msg = fovea_last_error(r->ctx);
    cli_error(r->a.addr, "%s", msg && *msg ? msg : fovea_strerror(st));
    return CLI_EXIT_RUNTIME;
}

/* The stream header arrived: the output's format. The output is opened at
 * the first frame, so a stream without frames writes nothing (not even a y4m
 * header to stdout). */
static int on_hello(recv_run *r, const fovea_stream_event *ev)
{
    r->info = *ev->info;
    r->threshold = ev->threshold;
    r->have_hello = 1;
    const fovea_container c = cli_container_for(r->a.out, FOVEA_CONTAINER_AUTO);
    r->cont = c == FOVEA_CONTAINER_AUTO ? FOVEA_CONTAINER_Y4M : c;
    r->out_fmt = cli_default_output_pixfmt(r->cont, r->info.fmt);
    if (r->out_fmt != r->info.fmt) {
        if (fovea_frame_alloc(NULL, &r->conv, r->info.width, r->info.height, r->out_fmt,
                              FOVEA_MEM_HOST) < 0) {
            cli_error(NULL, "out of memory");
            return CLI_EXIT_RUNTIME;
        }
        if (!r->a.opt.quiet)
            fprintf(stderr, "fovea: the stream is %s: writing %s\n", fovea_pixfmt_name(r->info.fmt),
                    fovea_pixfmt_name(r->out_fmt));
    }
    return CLI_EXIT_OK;
}

static int on_frame(recv_run *r, const fovea_stream_event *ev)
{
    const fovea_frame *f = ev->frame;
    if (!r->w) {
        fovea_video_info oi = r->info;
        oi.fmt = r->out_fmt;
        if (fovea_writer_open(&r->w, NULL, r->a.out, r->cont, &oi) < 0)
            return cli_report(r->a.out, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
        fovea_writer_set_temp_hook(r->w, cli_temp_hook, NULL); /* removed if interrupted */
    }
    if (r->out_fmt != r->info.fmt) {
        if (fovea_frame_convert(r->ctx, &r->conv, f, NULL) < 0)
            return fail(r, FOVEA_ERR_INTERNAL);
        f = &r->conv;
    }
    if (fovea_writer_write(r->w, f) < 0)
        return cli_report(r->a.out, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
    const double latency = ((double)cli_wallclock_us() - (double)ev->fi.timestamp_us) / 1000.0;
    cli_stream_rec rec = {ev->fi.frame,
                          ev->fi.keyframe,
                          (int64_t)ev->fi.bytes,
                          ev->fi.tiles_sent,
                          ev->fi.tiles_changed,
                          ev->fi.skipped,
                          1000.0 * ev->fi.seconds,
                          latency,
                          ev->fi.checked_error,
                          0};
    if (cli_stream_log_add(&r->log, &rec, ev->fi.raw_bytes) < 0) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    r->skipped += ev->fi.skipped;
    if (ev->fi.checked_error > r->max_checked)
        r->max_checked = ev->fi.checked_error;
    cli_stream_progress_update(&r->prog, &r->log, NULL, 0);
    return CLI_EXIT_OK;
}

static int receive_all(recv_run *r)
{
    for (;;) {
        fovea_stream_event ev;
        const int st = fovea_stream_client_next(r->c, &ev);
        if (st < 0)
            return fail(r, st);
        if (st == FOVEA_EOF)
            return CLI_EXIT_OK;
        int rc = CLI_EXIT_OK;
        if (ev.type == FOVEA_STREAM_MSG_REFUSED)
            return refused(r, &ev);
        if (ev.type == FOVEA_STREAM_MSG_HELLO)
            rc = on_hello(r, &ev);
        else if (ev.type == FOVEA_STREAM_MSG_END)
            r->end_frames = ev.end_frames;
        else if (ev.frame)
            rc = on_frame(r, &ev);
        if (rc != CLI_EXIT_OK)
            return rc;
        if (ev.type == FOVEA_STREAM_MSG_END)
            return CLI_EXIT_OK;
    }
}

static int write_stats(recv_run *r, double secs)
{
    cJSON *root = cJSON_CreateObject();
    if (!root) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    char ver[64];
    snprintf(ver, sizeof ver, "fovea %s", fovea_version());
    cJSON_AddStringToObject(root, "version", ver);
    cJSON_AddStringToObject(root, "command", "receive");
    cJSON_AddStringToObject(root, "sender", r->a.addr);
    cJSON_AddStringToObject(root, "output", r->a.out);
    cJSON_AddNumberToObject(root, "width", r->info.width);
    cJSON_AddNumberToObject(root, "height", r->info.height);
    cJSON_AddStringToObject(root, "pixfmt", fovea_pixfmt_name(r->info.fmt));
    cJSON_AddNumberToObject(root, "threshold", r->threshold);
    cJSON_AddItemToObject(root, "frames", cli_stream_frames_json(&r->log, 1));
    cJSON *t = cJSON_AddObjectToObject(root, "totals");
    if (t) {
        cli_stream_totals_json(t, &r->log, secs, "decode_ms_mean");
        cJSON_AddNumberToObject(t, "frames_skipped", (double)r->skipped);
        cJSON_AddNumberToObject(t, "sender_frames", (double)r->end_frames);
        cJSON_AddNumberToObject(t, "bytes_received", (double)fovea_stream_client_bytes(r->c));
        if (r->max_checked >= 0)
            cJSON_AddNumberToObject(t, "max_checked_error", r->max_checked);
        else
            cJSON_AddNullToObject(t, "max_checked_error");
        double *lat = malloc((r->log.n ? r->log.n : 1) * sizeof(double));
        if (lat) {
            for (size_t i = 0; i < r->log.n; i++)
                lat[i] = r->log.r[i].latency_ms;
            char buf[32];
            snprintf(buf, sizeof buf, "%.3f", cli_quantile(lat, r->log.n, 0.5));
            cJSON_AddItemToObject(t, "latency_ms_median", cJSON_CreateRaw(buf));
            snprintf(buf, sizeof buf, "%.3f", cli_quantile(lat, r->log.n, 0.99));
            cJSON_AddItemToObject(t, "latency_ms_p99", cJSON_CreateRaw(buf));
            free(lat);
        }
    }
    const int rc = cli_write_json(r->a.stats, root);
    cJSON_Delete(root);
    return rc;
}

int cmd_receive(int argc, char **argv)
{
    recv_run r;
    memset(&r, 0, sizeof(r));
    r.max_checked = -1;
    int rc = parse_args(&r.a, argc, argv);
    if (rc < 0)
        return CLI_EXIT_OK; /* --help */
    if (rc != CLI_EXIT_OK)
        return rc;
    if (cli_open_context(&r.ctx, &r.a.opt, CLI_CONTEXT_MSG_PLAIN) != CLI_EXIT_OK)
        return CLI_EXIT_RUNTIME;
    fovea_stream_client_settings ss;
    fovea_stream_client_default_settings(&ss);
    ss.timeout_ms = 1000 * r.a.timeout;
    ss.resync = r.a.resync;
    ss.rcvbuf = (int)r.a.rcvbuf;
    int st = fovea_stream_client_open(&r.c, r.ctx, r.a.addr, &ss);
    if (st < 0) {
        cli_error(NULL, "%s", fovea_last_error(r.ctx));
        rc = st == FOVEA_ERR_INVALID_ARG ? CLI_EXIT_USAGE : CLI_EXIT_RUNTIME;
    }
    const double t0 = cli_now();
    if (rc == CLI_EXIT_OK) {
        cli_stream_progress_start(&r.prog, r.a.opt.quiet);
        rc = receive_all(&r);
    }
    const double secs = cli_now() - t0;
    cli_stream_progress_finish(&r.prog, &r.log, NULL);
    if (rc == CLI_EXIT_OK && !r.have_hello) {
        cli_error(r.a.addr, "the stream ended before its header");
        rc = CLI_EXIT_RUNTIME;
    } else if (rc == CLI_EXIT_OK && !r.w) {
        cli_error(r.a.addr,
                  "the stream ended without a frame (the sender sent %lld): %s not "
                  "written",
                  (long long)r.end_frames, cli_display_path(r.a.out, 1));
        rc = CLI_EXIT_RUNTIME;
    }
    if (rc == CLI_EXIT_OK && fovea_writer_finish(r.w) < 0)
        rc = cli_report(r.a.out, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
    if (rc == CLI_EXIT_OK) {
        fovea_writer_close(&r.w);
        if (r.a.stats)
            rc = write_stats(&r, secs);
    }
    if (rc == CLI_EXIT_OK) {
        char timing[64];
        cli_format_timing(timing, sizeof timing, (int64_t)r.log.n, secs);
        const int stats_out = r.a.stats && !strcmp(r.a.stats, "-");
        cli_summary(r.a.opt.quiet, strcmp(r.a.out, "-") == 0 || stats_out,
                    "receive: %zu %s %dx%d %s from %s, %lld bytes (%.2f%% of raw, %lld skipped) "
                    "%s",
                    r.log.n, cli_frames_word((int64_t)r.log.n), r.info.width, r.info.height,
                    fovea_pixfmt_name(r.info.fmt), r.a.addr, (long long)r.log.bytes,
                    r.log.raw_bytes ? 100.0 * (double)r.log.bytes / (double)r.log.raw_bytes : 0.0,
                    (long long)r.skipped, timing);
    }
    fovea_writer_close(&r.w); /* a failed run leaves an existing output as it was */
    fovea_frame_free(NULL, &r.conv);
    fovea_stream_client_close(&r.c);
    cli_stream_log_free(&r.log);
    fovea_close(&r.ctx);
    return rc;
}
#endif
