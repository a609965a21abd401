/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Shared benchmark helper: command line, CPU and CUDA-event timing, copy-bandwidth
 * reference points, and the one results table every bench_* program prints. */
#ifndef FOVEA_BENCH_COMMON_H
#define FOVEA_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fovea/fovea.h"

#ifdef FOVEA_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* ---------------------------------------------------------------- options */

#define BENCH_MAX_EXTRA 32

typedef struct bench_opts {
    const char *prog;      /* argv[0] without directories */
    const char *json_path; /* --json FILE; "-" = stdout (the table then goes to stderr) */
    int runs;              /* --runs N, timed iterations per case (default 50) */
    int warmup;            /* --warmup N, untimed iterations first (default 5) */
    int quick;             /* --quick: few runs; benches may also shrink their inputs */
    int device;            /* --device N, CUDA device index (default 0) */
    const char *filter;    /* --filter SUBSTR[,SUBSTR...]: only cases whose name contains one */
    int n_extra;           /* arguments bench_parse_args_ex did not know, in order */
    char *extra[BENCH_MAX_EXTRA];
} bench_opts;

/* Parse the common options. Prints usage and exits 0 on --help, exits 2 on a bad
 * or unknown argument. */
void bench_parse_args(int argc, char **argv, bench_opts *opts);

/* Like bench_parse_args, but arguments it does not know are kept in opts->extra
 * for the benchmark to parse; extra_usage (may be NULL) is appended to --help. */
void bench_parse_args_ex(int argc, char **argv, bench_opts *opts, const char *extra_usage);

/* End-to-end rows run the fovea executable on files: the options for them,
 * parsed from opts->extra by bench_e2e_parse (BENCH_E2E_USAGE for --help). */
typedef struct bench_e2e {
    const char *cli; /* --cli PATH, else <build>/fovea two directories up from
                         this program (<build>/bench/bench_x); NULL when unknown */
    const char *tmp; /* --tmp DIR, else $TMPDIR, else /tmp */
    int enabled;     /* 0 after --no-e2e */
    char cli_buf[4096];
} bench_e2e;
#define BENCH_E2E_USAGE                                                                            \
    "  --cli PATH   fovea executable for the end-to-end rows\n"                                    \
    "               (default: ../fovea from this program's directory)\n"                           \
    "  --no-e2e     skip the end-to-end rows\n"                                                    \
    "  --tmp DIR    directory for their files (default $TMPDIR or /tmp)\n"
/* Returns 0, or 2 after a message naming `who` for an argument it does not know. */
int bench_e2e_parse(const bench_opts *opts, bench_e2e *e, const char *who);

/* Write path as y4m: `count` frames cycling through frames[0..distinct) from
 * frames[first], at fps frames/s (all frames of one size and format).
 * @return 0, or -1 after a message naming `who` */
int bench_write_y4m(const char *path, const fovea_frame *frames, int distinct, int first, int count,
                    int fps, const char *who);

/* Read a file once so that it is in the page cache. */
void bench_warm_file(const char *path);

/* Run argv (argv[0] the executable, stdout and stderr as they are), wait for
 * it, then read the number after "fps": in the JSON file it wrote at
 * json_path. Returns that, or -1.0 with a message naming `who`. */
double bench_run_cli_fps(char *const argv[], const char *json_path, const char *who);

/* Where human-readable text goes: stdout, or stderr when --json - took stdout. */
FILE *bench_text_stream(const bench_opts *opts);

/* 1 when case_name passes --filter (always 1 without a filter). */
int bench_case_enabled(const bench_opts *opts, const char *case_name);

/* ---------------------------------------------------------------- errors */

/* Print "bench: file:line: expr: <status> (<last error of ctx>)" and exit 1 when
 * status < 0; returns status otherwise. ctx may be NULL. */
int bench_check_fovea_(fovea_context *ctx, int status, const char *expr, const char *file,
                       int line);
#define BENCH_FOVEA(ctx, call) bench_check_fovea_((ctx), (call), #call, __FILE__, __LINE__)

#ifdef FOVEA_HAVE_CUDA
/* Print "bench: file:line: expr: error" and exit 1 unless err is cudaSuccess. */
void bench_check_cuda_(cudaError_t err, const char *expr, const char *file, int line);
#define BENCH_CUDA(call) bench_check_cuda_((call), #call, __FILE__, __LINE__)
#endif

/* ---------------------------------------------------------------- timing */

/* Times are in microseconds. The sample array is sorted; median of an even count is
 * the mean of the two middle samples. */
typedef struct bench_stats {
    double median_us, min_us, max_us, mean_us;
    int runs;
} bench_stats;

/* Summarize n samples (sorts them in place). n == 0 gives all zeros. */
void bench_stats_compute(double *samples_us, int n, bench_stats *out);

/* One iteration of a benchmarked operation. Return 0, or non-zero to abort the
 * program (the helper prints the failing case and exits 1). */
typedef int (*bench_fn)(void *arg);

/* Monotonic clock in microseconds. */
double bench_now_us(void);

/* Run fn warmup times untimed, then runs times, each timed with CLOCK_MONOTONIC. */
void bench_time_cpu(bench_fn fn, void *arg, int warmup, int runs, bench_stats *out);

/* Device-side timing: each run is bracketed by a pair of CUDA events recorded on
 * stream (a cudaStream_t; NULL = legacy default stream), fn must queue its work on
 * that stream. @return 0, or -1 without CUDA (out zeroed). CUDA errors exit 1. */
int bench_time_gpu(bench_fn fn, void *arg, void *stream, int warmup, int runs, bench_stats *out);
/* Throughput of fn on a CUDA stream: runs calls back to back (no wait between
 * them, as a stream of frames is processed) between two events, `runs` times
 * after `warmup` calls; each sample is the elapsed time / calls (us per call).
 * bench_time_gpu is this with calls = 1. */
int bench_time_gpu_pipelined(bench_fn fn, void *arg, void *stream, int warmup, int runs, int calls,
                             bench_stats *out);

/* ---------------------------------------------------------------- reference bandwidths */

/* Device-to-device cudaMemcpyAsync bandwidth of the current CUDA device, in GB/s
 * (1e9 bytes), counting bytes read + bytes written. bytes = 0 means 256 MiB. Measured
 * on the first call (median of runs), cached afterwards. 0 when there is no GPU. */
double bench_copy_bandwidth(size_t bytes);

/* Host memcpy bandwidth in GB/s (read + written), with the buffer split over
 * threads threads (0 = every online CPU). bytes = 0 means 256 MiB. Cached per
 * thread count (1 and "all"); measured on first use. */
double bench_host_copy_bandwidth(size_t bytes, int threads);

/* ---------------------------------------------------------------- data */

/* Fill n bytes with deterministic pseudo-random non-zero values. */
void bench_fill_random(void *buf, size_t n, uint64_t seed);

/* Fill every plane row of a host frame (HOST or PINNED) with random non-zero
 * bytes; high bits of >8-bit samples are masked to the format's depth. */
void bench_fill_frame(fovea_frame *f, uint64_t seed);

/* ---------------------------------------------------------------- results table */

typedef struct bench_row {
    char case_name[96];
    char backend[16]; /* "cpu", "cuda", or e.g. "cuda-npp" for a baseline */
    bench_stats stats;
    double bytes_per_iter; /* bytes read + bytes written in one iteration */
    double items_per_iter; /* frames, pixels, features... per iteration */
    char note[160];
} bench_row;

typedef struct bench_table {
    char title[64];
    char items_unit[24]; /* label of the items/s column, e.g. "frames" */
    const bench_opts *opts;
    bench_row *rows;
    int count, cap;
} bench_table;

/* Start a table titled title (e.g. "frame_copy") whose items are items_unit. */
void bench_table_init(bench_table *t, const char *title, const char *items_unit,
                      const bench_opts *opts);

/* Add a row. Rows whose backend starts with "cpu" are rated against the host copy
 * bandwidth, all others against the device copy bandwidth. note may be NULL. */
void bench_table_add(bench_table *t, const char *case_name, const char *backend,
                     const bench_stats *stats, double bytes_moved_per_iter, double items_per_iter,
                     const char *note);

/* Print the header (device, SMs, CPUs, reference bandwidths) and the rows to fp.
 * copy_bw is the device copy bandwidth in GB/s (0 = no GPU). */
void bench_table_fprint(const bench_table *t, double copy_bw, FILE *fp);
/* bench_table_fprint to stdout, or to stderr when the JSON goes to stdout. */
void bench_table_print(const bench_table *t, double copy_bw);

/* Write the table (environment + rows) as JSON to path ("-" = stdout).
 * @return 0, or -1 with a message on stderr. */
int bench_table_write_json(const bench_table *t, double copy_bw, const char *path);

/* Print the table, write JSON when --json was given, free the rows.
 * @return the program's exit status (0, or 1 when writing JSON failed). */
int bench_table_finish(bench_table *t, double copy_bw);

void bench_table_free(bench_table *t);

#endif
