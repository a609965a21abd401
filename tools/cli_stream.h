/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* What `fovea send` and `fovea receive` share (cli_stream.c): the per-frame
 * log behind --stats, the progress line (frames, fps, Mbit/s, ratio to raw),
 * the wall clock carried as timestamps and option values of the streamer. */
#ifndef FOVEA_TOOLS_CLI_STREAM_H
#define FOVEA_TOOLS_CLI_STREAM_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "fovea/stream.h"

/* One frame as sent or received. */
typedef struct cli_stream_rec {
    int64_t frame;
    int keyframe;
    int64_t bytes; /* the message, header included */
    int64_t tiles_sent, tiles_changed;
    int64_t skipped;   /* receiver: frames missed before it */
    double ms;         /* encode or decode time */
    double latency_ms; /* receiver: wall clock now - the sender's timestamp */
    int checked_error; /* receiver: -1 when not checked */
    int clients;       /* sender: receivers connected */
} cli_stream_rec;

typedef struct cli_stream_log {
    cli_stream_rec *r;
    size_t n, cap;
    int64_t bytes, raw_bytes, keyframes;
    double ms;
} cli_stream_log;

/* Append a record (raw = the frame's packed size). @return 0, or -1 when out of memory */
int cli_stream_log_add(cli_stream_log *log, const cli_stream_rec *rec, size_t raw);
void cli_stream_log_free(cli_stream_log *log);

/* The "frames" array of --stats (receiver: latency, skipped, checked error). */
cJSON *cli_stream_frames_json(const cli_stream_log *log, int receiver);
/* Totals every --stats has: frames, keyframes, bytes, raw bytes, ratio,
 * seconds, fps, Mbit/s, mean ms (named ms_name), added to obj. */
void cli_stream_totals_json(cJSON *obj, const cli_stream_log *log, double seconds,
                            const char *ms_name);

/* "frame 120  45.2 fps  3.10 Mbit/s  4.21% of raw" (+ extra) on stderr, redrawn
 * at most 4 times a second when stderr is a terminal (or FOVEA_PROGRESS=1). */
typedef struct cli_stream_progress {
    int enabled;
    double t0, last;
    int width;
} cli_stream_progress;

void cli_stream_progress_start(cli_stream_progress *p, int quiet);
void cli_stream_progress_update(cli_stream_progress *p, const cli_stream_log *log,
                                const char *extra, int final);
void cli_stream_progress_finish(cli_stream_progress *p, const cli_stream_log *log,
                                const char *extra);

/* Microseconds since the Unix epoch (the timestamps frames carry). */
uint64_t cli_wallclock_us(void);

/* The q-quantile (0..1, nearest rank) of n values (sorted in place); 0 when n == 0. */
double cli_quantile(double *v, size_t n, double q);

/* --denoise: none, median3, gauss5, temporal. @return 0 or -1 after a usage error */
int cli_parse_denoise(const char *cmd, const char *s, fovea_diff_denoise_mode *out);
/* A byte count with an optional K, M or G suffix (powers of 1024) in [min, max]. */
int cli_parse_bytes(const char *cmd, const char *opt, const char *s, long long min, long long max,
                    long long *out);

#endif
