/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Shared benchmark helper (see bench_common.h). Benchmarks are programs, so this
 * file prints and exits on errors, and caches reference bandwidths in statics. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench_common.h"
#include "fovea/io.h"

/* ---------------------------------------------------------------- options */

static void usage(FILE *fp, const char *prog, const char *extra_usage)
{
    fprintf(fp,
            "usage: %s [options]\n"
            "  --json FILE     also write the results as JSON (\"-\" = stdout; the table\n"
            "                  then goes to stderr)\n"
            "  --runs N        timed iterations per case (default 50)\n"
            "  --warmup N      untimed iterations before timing (default 5)\n"
            "  --quick         a few iterations only (smoke test)\n"
            "  --device N      CUDA device index (default 0)\n"
            "  --filter TEXT   run only the cases whose name contains TEXT (several\n"
            "                  texts separated by commas: any of them)\n"
            "  --help          this text\n",
            prog);
    if (extra_usage)
        fprintf(fp, "%s", extra_usage);
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static void parse(int argc, char **argv, bench_opts *o, const char *extra_usage, int allow_extra)
{
    memset(o, 0, sizeof(*o));
    const char *slash = argc > 0 ? strrchr(argv[0], '/') : NULL;
    o->prog = argc > 0 ? (slash ? slash + 1 : argv[0]) : "bench";
    o->runs = 50;
    o->warmup = 5;
    int runs_given = 0, warmup_given = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int takes_value = strcmp(a, "--json") == 0 || strcmp(a, "--runs") == 0 ||
                          strcmp(a, "--warmup") == 0 || strcmp(a, "--device") == 0 ||
                          strcmp(a, "--filter") == 0;
        if (takes_value && !val) {
            fprintf(stderr, "%s: %s needs a value\n", o->prog, a);
            usage(stderr, o->prog, extra_usage);
            exit(2);
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, o->prog, extra_usage);
            exit(0);
        } else if (strcmp(a, "--json") == 0) {
            o->json_path = val;
            i++;
        } else if (strcmp(a, "--runs") == 0) {
            if (parse_int(val, 1, 1000000, &o->runs) < 0)
                goto bad_value;
            runs_given = 1;
            i++;
        } else if (strcmp(a, "--warmup") == 0) {
            if (parse_int(val, 0, 1000000, &o->warmup) < 0)
                goto bad_value;
            warmup_given = 1;
            i++;
        } else if (strcmp(a, "--device") == 0) {
            if (parse_int(val, 0, 1023, &o->device) < 0)
                goto bad_value;
            i++;
        } else if (strcmp(a, "--filter") == 0) {
            o->filter = val;
            i++;
        } else if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
        } else if (allow_extra && o->n_extra < BENCH_MAX_EXTRA) {
            o->extra[o->n_extra++] = argv[i];
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", o->prog, a);
            usage(stderr, o->prog, extra_usage);
            exit(2);
        }
        continue;
    bad_value:
        fprintf(stderr, "%s: bad value '%s' for %s\n", o->prog, val, a);
        exit(2);
    }
    /* --quick shortens whatever was not given explicitly */
    if (o->quick) {
        if (!runs_given)
            o->runs = 3;
        if (!warmup_given)
            o->warmup = 1;
    }
}

void bench_parse_args(int argc, char **argv, bench_opts *opts)
{
    parse(argc, argv, opts, NULL, 0);
}

void bench_parse_args_ex(int argc, char **argv, bench_opts *opts, const char *extra_usage)
{
    parse(argc, argv, opts, extra_usage, 1);
}

FILE *bench_text_stream(const bench_opts *opts)
{
    return opts && opts->json_path && strcmp(opts->json_path, "-") == 0 ? stderr : stdout;
}

int bench_case_enabled(const bench_opts *opts, const char *case_name)
{
    if (!opts || !opts->filter)
        return 1;
    const char *f = opts->filter;
    for (;;) {
        const char *comma = strchr(f, ',');
        size_t len = comma ? (size_t)(comma - f) : strlen(f);
        for (const char *c = case_name; len > 0 && strlen(c) >= len; c++)
            if (strncmp(c, f, len) == 0)
                return 1;
        if (!comma)
            return 0;
        f = comma + 1;
    }
}

/* ---------------------------------------------------------------- errors */

static const char *base_name(const char *file)
{
    const char *s = strrchr(file, '/');
    return s ? s + 1 : file;
}

int bench_check_fovea_(fovea_context *ctx, int status, const char *expr, const char *file, int line)
{
    if (status >= 0)
        return status;
    const char *detail = ctx ? fovea_last_error(ctx) : "";
    fprintf(stderr, "bench: %s:%d: %s: %s%s%s%s\n", base_name(file), line, expr,
            fovea_strerror(status), *detail ? " (" : "", detail, *detail ? ")" : "");
    exit(1);
}

#ifdef FOVEA_HAVE_CUDA
void bench_check_cuda_(cudaError_t err, const char *expr, const char *file, int line)
{
    if (err == cudaSuccess)
        return;
    fprintf(stderr, "bench: %s:%d: %s: %s (%s)\n", base_name(file), line, expr,
            cudaGetErrorString(err), cudaGetErrorName(err));
    exit(1);
}
#endif

/* ---------------------------------------------------------------- timing */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_stats_compute(double *s, int n, bench_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (n <= 0)
        return;
    qsort(s, (size_t)n, sizeof(*s), cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += s[i];
    out->runs = n;
    out->min_us = s[0];
    out->max_us = s[n - 1];
    out->mean_us = sum / n;
    out->median_us = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static double *alloc_samples(int runs)
{
    double *s = malloc((size_t)(runs > 0 ? runs : 1) * sizeof(*s));
    if (!s) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    return s;
}

static void run_or_die(bench_fn fn, void *arg)
{
    int r = fn(arg);
    if (r != 0) {
        fprintf(stderr, "bench: benchmarked operation failed (%d: %s)\n", r,
                r < 0 ? fovea_strerror(r) : "non-zero return");
        exit(1);
    }
}

void bench_time_cpu(bench_fn fn, void *arg, int warmup, int runs, bench_stats *out)
{
    double *s = alloc_samples(runs);
    for (int i = 0; i < warmup; i++)
        run_or_die(fn, arg);
    for (int i = 0; i < runs; i++) {
        double t0 = bench_now_us();
        run_or_die(fn, arg);
        s[i] = bench_now_us() - t0;
    }
    bench_stats_compute(s, runs, out);
    free(s);
}

#ifdef FOVEA_HAVE_CUDA
int bench_time_gpu(bench_fn fn, void *arg, void *stream, int warmup, int runs, bench_stats *out)
{
    /* one synchronized pair per run: we want the distribution, not a pipelined mean */
    return bench_time_gpu_pipelined(fn, arg, stream, warmup, runs, 1, out);
}

int bench_time_gpu_pipelined(bench_fn fn, void *arg, void *stream, int warmup, int runs, int calls,
                             bench_stats *out)
{
    cudaStream_t st = (cudaStream_t)stream;
    cudaEvent_t start, stop;
    BENCH_CUDA(cudaEventCreate(&start));
    BENCH_CUDA(cudaEventCreate(&stop));
    for (int i = 0; i < warmup; i++)
        run_or_die(fn, arg);
    BENCH_CUDA(cudaStreamSynchronize(st));
    double *s = alloc_samples(runs);
    for (int i = 0; i < runs; i++) {
        BENCH_CUDA(cudaEventRecord(start, st));
        for (int k = 0; k < calls; k++)
            run_or_die(fn, arg);
        BENCH_CUDA(cudaEventRecord(stop, st));
        BENCH_CUDA(cudaEventSynchronize(stop));
        float ms = 0;
        BENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
        s[i] = (double)ms * 1e3 / calls;
    }
    BENCH_CUDA(cudaGetLastError());
    BENCH_CUDA(cudaEventDestroy(start));
    BENCH_CUDA(cudaEventDestroy(stop));
    bench_stats_compute(s, runs, out);
    free(s);
    return 0;
}
#else
int bench_time_gpu(bench_fn fn, void *arg, void *stream, int warmup, int runs, bench_stats *out)
{
    return bench_time_gpu_pipelined(fn, arg, stream, warmup, runs, 1, out);
}

int bench_time_gpu_pipelined(bench_fn fn, void *arg, void *stream, int warmup, int runs, int calls,
                             bench_stats *out)
{
    (void)fn;
    (void)arg;
    (void)stream;
    (void)warmup;
    (void)runs;
    (void)calls;
    memset(out, 0, sizeof(*out));
    return -1;
}
#endif

/* ---------------------------------------------------------------- reference bandwidths */

#define DEFAULT_BW_BYTES ((size_t)256 << 20)
#define BW_WARMUP 3
#define BW_RUNS 20

#ifdef FOVEA_HAVE_CUDA
typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
    cudaStream_t stream;
} d2d_job;

static int d2d_copy(void *opaque)
{
    d2d_job *j = opaque;
    BENCH_CUDA(cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyDeviceToDevice, j->stream));
    return 0;
}
#endif

double bench_copy_bandwidth(size_t bytes)
{
    static int measured;
    static double gbps;
    if (measured)
        return gbps;
    measured = 1;
#ifdef FOVEA_HAVE_CUDA
    int n = 0;
    fovea_device_count(&n);
    if (n == 0)
        return gbps = 0;
    if (bytes == 0)
        bytes = DEFAULT_BW_BYTES;
    d2d_job j = {0};
    /* halve until both buffers fit next to whatever the benchmark already holds */
    for (;;) {
        cudaError_t e1 = cudaMalloc((void **)&j.src, bytes);
        cudaError_t e2 = e1 == cudaSuccess ? cudaMalloc(&j.dst, bytes) : e1;
        if (e1 == cudaSuccess && e2 == cudaSuccess)
            break;
        cudaGetLastError();
        if (e1 == cudaSuccess)
            cudaFree((void *)j.src);
        if ((e1 != cudaErrorMemoryAllocation && e2 != cudaErrorMemoryAllocation) ||
            bytes < ((size_t)1 << 20)) {
            fprintf(stderr, "bench: cannot allocate copy-bandwidth buffers: %s\n",
                    cudaGetErrorString(e1 != cudaSuccess ? e1 : e2));
            exit(1);
        }
        bytes /= 2;
    }
    j.bytes = bytes;
    BENCH_CUDA(cudaStreamCreateWithFlags(&j.stream, cudaStreamNonBlocking));
    BENCH_CUDA(cudaMemsetAsync((void *)j.src, 0x5a, bytes, j.stream));
    BENCH_CUDA(cudaMemsetAsync(j.dst, 0, bytes, j.stream));
    bench_stats s;
    bench_time_gpu(d2d_copy, &j, j.stream, BW_WARMUP, BW_RUNS, &s);
    BENCH_CUDA(cudaStreamDestroy(j.stream));
    BENCH_CUDA(cudaFree((void *)j.src));
    BENCH_CUDA(cudaFree(j.dst));
    gbps = s.median_us > 0 ? 2.0 * (double)bytes / (s.median_us * 1e3) : 0;
#else
    (void)bytes;
    gbps = 0;
#endif
    return gbps;
}

typedef struct {
    pthread_barrier_t *barrier;
    uint8_t *dst;
    const uint8_t *src;
    size_t bytes;
    int iterations;
    double *samples; /* filled by thread 0 only */
} host_copy_job;

static void *host_copy_thread(void *opaque)
{
    host_copy_job *j = opaque;
    for (int r = 0; r < j->iterations; r++) {
        pthread_barrier_wait(j->barrier);
        double t0 = bench_now_us();
        memcpy(j->dst, j->src, j->bytes);
        pthread_barrier_wait(j->barrier);
        if (j->samples)
            j->samples[r] = bench_now_us() - t0;
    }
    return NULL;
}

static double measure_host_copy(size_t bytes, int threads)
{
    uint8_t *src = malloc(bytes), *dst = malloc(bytes);
    host_copy_job *jobs = calloc((size_t)threads, sizeof(*jobs));
    pthread_t *tids = calloc((size_t)threads, sizeof(*tids));
    double *samples = alloc_samples(BW_WARMUP + BW_RUNS);
    if (!src || !dst || !jobs || !tids) {
        fprintf(stderr, "bench: out of memory measuring host copy bandwidth\n");
        exit(1);
    }
    /* touch every page first so the copy does not time page faults */
    memset(src, 0x5a, bytes);
    memset(dst, 0, bytes);
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, (unsigned)threads);
    size_t chunk = (bytes / (size_t)threads + 63) / 64 * 64, off = 0;
    for (int i = 0; i < threads; i++) {
        size_t n = off < bytes ? (bytes - off < chunk ? bytes - off : chunk) : 0;
        jobs[i] = (host_copy_job){&barrier, dst + off,           src + off,
                                  n,        BW_WARMUP + BW_RUNS, i == 0 ? samples : NULL};
        off += n;
    }
    int started = 1;
    for (int i = 1; i < threads; i++) {
        if (pthread_create(&tids[i], NULL, host_copy_thread, &jobs[i]) != 0) {
            fprintf(stderr, "bench: cannot start host copy thread\n");
            exit(1);
        }
        started++;
    }
    host_copy_thread(&jobs[0]);
    for (int i = 1; i < started; i++)
        pthread_join(tids[i], NULL);
    pthread_barrier_destroy(&barrier);

    bench_stats s;
    bench_stats_compute(samples + BW_WARMUP, BW_RUNS, &s);
    free(samples);
    free(tids);
    free(jobs);
    free(src);
    free(dst);
    return s.median_us > 0 ? 2.0 * (double)bytes / (s.median_us * 1e3) : 0;
}

double bench_host_copy_bandwidth(size_t bytes, int threads)
{
    static double cached[2];
    static int measured[2];
    int all = fovea_cpu_count();
    if (threads <= 0 || threads > all)
        threads = all;
    int slot = threads == 1 ? 0 : 1;
    if (slot == 1 && threads != all)
        return measure_host_copy(bytes ? bytes : DEFAULT_BW_BYTES, threads);
    if (!measured[slot]) {
        cached[slot] = measure_host_copy(bytes ? bytes : DEFAULT_BW_BYTES, threads);
        measured[slot] = 1;
    }
    return cached[slot];
}

/* ---------------------------------------------------------------- data */

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64: good enough for test patterns and needs no state setup */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void bench_fill_random(void *buf, size_t n, uint64_t seed)
{
    uint8_t *p = buf;
    uint64_t s = seed;
    size_t i = 0;
    while (i < n) {
        uint64_t v = rng_next(&s);
        for (int k = 0; k < 8 && i < n; k++, i++) {
            uint8_t b = (uint8_t)(v >> (8 * k));
            p[i] = b ? b : 0x01;
        }
    }
}

void bench_fill_frame(fovea_frame *f, uint64_t seed)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    if (!d || f->mem == FOVEA_MEM_DEVICE)
        return;
    uint64_t s = seed;
    for (int p = 0; p < d->planes; p++) {
        size_t row = fovea_plane_row_bytes(f->fmt, f->width, p);
        int rows = fovea_plane_height(f->fmt, f->height, p);
        for (int y = 0; y < rows; y++) {
            uint8_t *line = f->data[p] + (ptrdiff_t)y * f->stride[p];
            if (d->bytes_per_sample == 1) {
                bench_fill_random(line, row, rng_next(&s));
                continue;
            }
            uint32_t range = (1u << d->bit_depth) - 1; /* values 1..2^depth-1 */
            for (size_t x = 0; x + 1 < row; x += 2) {
                uint32_t v = 1 + (uint32_t)(rng_next(&s) % range);
                line[x] = (uint8_t)(v & 0xff);
                line[x + 1] = (uint8_t)(v >> 8);
            }
        }
    }
}

/* ---------------------------------------------------------------- results table */

void bench_table_init(bench_table *t, const char *title, const char *items_unit,
                      const bench_opts *opts)
{
    memset(t, 0, sizeof(*t));
    snprintf(t->title, sizeof(t->title), "%s", title ? title : "bench");
    snprintf(t->items_unit, sizeof(t->items_unit), "%s", items_unit ? items_unit : "items");
    t->opts = opts;
}

void bench_table_add(bench_table *t, const char *case_name, const char *backend,
                     const bench_stats *stats, double bytes_moved_per_iter, double items_per_iter,
                     const char *note)
{
    if (t->count == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        bench_row *rows = realloc(t->rows, (size_t)cap * sizeof(*rows));
        if (!rows) {
            fprintf(stderr, "bench: out of memory\n");
            exit(1);
        }
        t->rows = rows;
        t->cap = cap;
    }
    bench_row *r = &t->rows[t->count++];
    memset(r, 0, sizeof(*r));
    snprintf(r->case_name, sizeof(r->case_name), "%s", case_name);
    snprintf(r->backend, sizeof(r->backend), "%s", backend);
    r->stats = *stats;
    r->bytes_per_iter = bytes_moved_per_iter;
    r->items_per_iter = items_per_iter;
    snprintf(r->note, sizeof(r->note), "%s", note ? note : "");
}

static int row_is_cpu(const bench_row *r)
{
    return strncmp(r->backend, "cpu", 3) == 0;
}

static int table_has_cpu_rows(const bench_table *t)
{
    for (int i = 0; i < t->count; i++)
        if (row_is_cpu(&t->rows[i]))
            return 1;
    return 0;
}

/* Derived numbers of one row; zero where they do not apply. */
typedef struct {
    double items_per_s, mb, gbps, pct;
} row_rates;

static row_rates rates_of(const bench_row *r, double copy_bw, double host_bw)
{
    row_rates x = {0};
    double sec = r->stats.median_us * 1e-6;
    x.mb = r->bytes_per_iter / 1e6;
    if (sec > 0) {
        x.items_per_s = r->items_per_iter / sec;
        x.gbps = r->bytes_per_iter / sec / 1e9;
    }
    double roof = row_is_cpu(r) ? host_bw : copy_bw;
    if (roof > 0 && x.gbps > 0)
        x.pct = 100.0 * x.gbps / roof;
    return x;
}

static int device_info(const bench_table *t, fovea_device_info *info)
{
    int dev = t->opts ? t->opts->device : 0;
    return fovea_device_get_info(dev, info) == FOVEA_OK;
}

void bench_table_fprint(const bench_table *t, double copy_bw, FILE *fp)
{
    const bench_opts *o = t->opts;
    int cpu_rows = table_has_cpu_rows(t);
    double host_bw = cpu_rows ? bench_host_copy_bandwidth(0, 0) : 0;
    double host_bw1 = cpu_rows ? bench_host_copy_bandwidth(0, 1) : 0;
    fovea_device_info info;

    fprintf(fp, "# bench %s (fovea %s)", t->title, fovea_version());
    if (o)
        fprintf(fp, ": median of %d runs after %d warmup%s", o->runs, o->warmup,
                o->quick ? " (--quick)" : "");
    fprintf(fp, "\n");
    if (device_info(t, &info))
        fprintf(fp, "# device %d: %s, %d SMs, cc %d.%d, %.1f GiB, SM clock up to %d MHz\n",
                o ? o->device : 0, info.name, info.sm_count, info.cc_major, info.cc_minor,
                (double)info.total_memory / (1024.0 * 1024.0 * 1024.0), info.clock_khz / 1000);
    else
        fprintf(fp, "# device: none (no CUDA device%s)\n",
                fovea_cuda_compiled() ? "" : "; built without CUDA");
    fprintf(fp, "# CPUs: %d\n", fovea_cpu_count());
    fprintf(fp, "# copy bandwidth, bytes read + written, GB = 1e9 B:");
    if (copy_bw > 0)
        fprintf(fp, " device-to-device %.1f GB/s;", copy_bw);
    else
        fprintf(fp, " device-to-device n/a;");
    if (cpu_rows)
        fprintf(fp, " host memcpy %.1f GB/s (%d threads), %.1f GB/s (1 thread)\n", host_bw,
                fovea_cpu_count(), host_bw1);
    else
        fprintf(fp, " host memcpy not measured (no cpu rows)\n");
    fprintf(fp, "# %% of copy BW: cpu rows vs host memcpy with all threads, other rows vs "
                "device-to-device copy\n");

    int wcase = 4, wback = 7, wnote = 0;
    for (int i = 0; i < t->count; i++) {
        int a = (int)strlen(t->rows[i].case_name), b = (int)strlen(t->rows[i].backend);
        int c = (int)strlen(t->rows[i].note);
        wcase = a > wcase ? a : wcase;
        wback = b > wback ? b : wback;
        wnote = c > wnote ? c : wnote;
    }
    char items_hdr[40];
    snprintf(items_hdr, sizeof(items_hdr), "%s/s", t->items_unit);
    fprintf(fp, "%-*s | %-*s | %10s | %10s | %10s | %12s | %9s | %8s | %8s%s\n", wcase, "case",
            wback, "backend", "median us", "min us", "max us", items_hdr, "MB moved", "GB/s",
            "% copyBW", wnote ? " | note" : "");
    int line_len = wcase + wback + 10 * 3 + 12 + 9 + 8 + 8 + 3 * 8 + (wnote ? 3 + wnote : 0);
    for (int i = 0; i < line_len; i++)
        fputc('-', fp);
    fputc('\n', fp);
    for (int i = 0; i < t->count; i++) {
        const bench_row *r = &t->rows[i];
        row_rates x = rates_of(r, copy_bw, host_bw);
        char items[32], pct[32], gbps[32];
        if (r->items_per_iter > 0)
            snprintf(items, sizeof(items), "%.1f", x.items_per_s);
        else
            snprintf(items, sizeof(items), "-");
        if (r->bytes_per_iter > 0)
            snprintf(gbps, sizeof(gbps), "%.2f", x.gbps);
        else
            snprintf(gbps, sizeof(gbps), "-");
        if (x.pct > 0)
            snprintf(pct, sizeof(pct), "%.1f", x.pct);
        else
            snprintf(pct, sizeof(pct), "-");
        fprintf(fp, "%-*s | %-*s | %10.1f | %10.1f | %10.1f | %12s | %9.1f | %8s | %8s%s%s\n",
                wcase, r->case_name, wback, r->backend, r->stats.median_us, r->stats.min_us,
                r->stats.max_us, items, x.mb, gbps, pct, wnote ? " | " : "", r->note);
    }
    fflush(fp);
}

void bench_table_print(const bench_table *t, double copy_bw)
{
    bench_table_fprint(t, copy_bw, bench_text_stream(t->opts));
}

static cJSON *json_or_die(cJSON *item)
{
    if (!item) {
        fprintf(stderr, "bench: out of memory building JSON\n");
        exit(1);
    }
    return item;
}

int bench_table_write_json(const bench_table *t, double copy_bw, const char *path)
{
    const bench_opts *o = t->opts;
    int cpu_rows = table_has_cpu_rows(t);
    double host_bw = cpu_rows ? bench_host_copy_bandwidth(0, 0) : 0;
    cJSON *root = json_or_die(cJSON_CreateObject());
    cJSON_AddStringToObject(root, "bench", t->title);
    cJSON_AddStringToObject(root, "fovea_version", fovea_version());
    cJSON_AddStringToObject(root, "items_unit", t->items_unit);
    if (o) {
        cJSON_AddNumberToObject(root, "runs", o->runs);
        cJSON_AddNumberToObject(root, "warmup", o->warmup);
        cJSON_AddBoolToObject(root, "quick", o->quick);
    }
    fovea_device_info info;
    if (device_info(t, &info)) {
        cJSON *dev = json_or_die(cJSON_AddObjectToObject(root, "device"));
        cJSON_AddNumberToObject(dev, "index", o ? o->device : 0);
        cJSON_AddStringToObject(dev, "name", info.name);
        cJSON_AddNumberToObject(dev, "sm_count", info.sm_count);
        char cc[16];
        snprintf(cc, sizeof(cc), "%d.%d", info.cc_major, info.cc_minor);
        cJSON_AddStringToObject(dev, "compute_capability", cc);
        cJSON_AddNumberToObject(dev, "total_memory", (double)info.total_memory);
        cJSON_AddNumberToObject(dev, "sm_clock_max_mhz", info.clock_khz / 1000.0);
    } else {
        cJSON_AddNullToObject(root, "device");
    }
    cJSON_AddNumberToObject(root, "cpu_count", fovea_cpu_count());
    cJSON_AddNumberToObject(root, "device_copy_gbps", copy_bw);
    if (cpu_rows) {
        cJSON_AddNumberToObject(root, "host_copy_gbps", host_bw);
        cJSON_AddNumberToObject(root, "host_copy_gbps_1thread", bench_host_copy_bandwidth(0, 1));
    } else {
        cJSON_AddNullToObject(root, "host_copy_gbps");
    }
    cJSON *rows = json_or_die(cJSON_AddArrayToObject(root, "rows"));
    for (int i = 0; i < t->count; i++) {
        const bench_row *r = &t->rows[i];
        row_rates x = rates_of(r, copy_bw, host_bw);
        cJSON *j = json_or_die(cJSON_CreateObject());
        cJSON_AddStringToObject(j, "case", r->case_name);
        cJSON_AddStringToObject(j, "backend", r->backend);
        cJSON_AddNumberToObject(j, "runs", r->stats.runs);
        cJSON_AddNumberToObject(j, "median_us", r->stats.median_us);
        cJSON_AddNumberToObject(j, "min_us", r->stats.min_us);
        cJSON_AddNumberToObject(j, "max_us", r->stats.max_us);
        cJSON_AddNumberToObject(j, "mean_us", r->stats.mean_us);
        cJSON_AddNumberToObject(j, "items_per_iter", r->items_per_iter);
        cJSON_AddNumberToObject(j, "items_per_s", x.items_per_s);
        cJSON_AddNumberToObject(j, "bytes_per_iter", r->bytes_per_iter);
        cJSON_AddNumberToObject(j, "gbps", x.gbps);
        cJSON_AddNumberToObject(j, "pct_of_copy_bw", x.pct);
        cJSON_AddStringToObject(j, "note", r->note);
        cJSON_AddItemToArray(rows, j);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        fprintf(stderr, "bench: out of memory printing JSON\n");
        return -1;
    }
    int to_stdout = strcmp(path, "-") == 0;
    FILE *fp = to_stdout ? stdout : fopen(path, "w");
    int ok = fp != NULL;
    if (ok) {
        ok = fputs(text, fp) >= 0 && fputc('\n', fp) != EOF;
        ok = (to_stdout ? fflush(fp) == 0 : fclose(fp) == 0) && ok;
    }
    if (!ok)
        fprintf(stderr, "bench: cannot write %s: %s\n", path, strerror(errno));
    cJSON_free(text);
    return ok ? 0 : -1;
}

int bench_table_finish(bench_table *t, double copy_bw)
{
    int rc = 0;
    bench_table_print(t, copy_bw);
    if (t->opts && t->opts->json_path && bench_table_write_json(t, copy_bw, t->opts->json_path) < 0)
        rc = 1;
    bench_table_free(t);
    return rc;
}

void bench_table_free(bench_table *t)
{
    free(t->rows);
    t->rows = NULL;
    t->count = t->cap = 0;
}

int bench_e2e_parse(const bench_opts *opts, bench_e2e *e, const char *who)
{
    e->cli = NULL;
    e->tmp = getenv("TMPDIR");
    e->enabled = 1;
    for (int i = 0; i < opts->n_extra; i++) {
        if (strcmp(opts->extra[i], "--cli") == 0 && i + 1 < opts->n_extra) {
            e->cli = opts->extra[++i];
        } else if (strcmp(opts->extra[i], "--tmp") == 0 && i + 1 < opts->n_extra) {
            e->tmp = opts->extra[++i];
        } else if (strcmp(opts->extra[i], "--no-e2e") == 0) {
            e->enabled = 0;
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", who, opts->extra[i]);
            return 2;
        }
    }
    if (!e->tmp || !*e->tmp)
        e->tmp = "/tmp";
    if (!e->cli) {
        /* <build>/bench/bench_x -> <build>/fovea */
        ssize_t n = readlink("/proc/self/exe", e->cli_buf, sizeof(e->cli_buf) - 16);
        if (n > 0) {
            e->cli_buf[n] = '\0';
            int ok = 1;
            for (int up = 0; up < 2 && ok; up++) {
                char *slash = strrchr(e->cli_buf, '/');
                if (slash)
                    *slash = '\0';
                else
                    ok = 0;
            }
            if (ok) {
                strcat(e->cli_buf, "/fovea");
                e->cli = e->cli_buf;
            }
        }
    }
    return 0;
}

int bench_write_y4m(const char *path, const fovea_frame *frames, int distinct, int first, int count,
                    int fps, const char *who)
{
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = frames[0].width;
    info.height = frames[0].height;
    info.fmt = frames[0].fmt;
    info.fps_num = fps;
    info.fps_den = 1;
    info.interlace = 'p';
    fovea_writer *wr = NULL;
    if (fovea_writer_open(&wr, NULL, path, FOVEA_CONTAINER_Y4M, &info) < 0) {
        fprintf(stderr, "%s: %s\n", who, fovea_last_error(NULL));
        return -1;
    }
    int rc = 0;
    for (int k = 0; k < count && rc == 0; k++)
        if (fovea_writer_write(wr, &frames[(first + k) % distinct]) < 0) {
            fprintf(stderr, "%s: %s\n", who, fovea_last_error(NULL));
            rc = -1;
        }
    if (rc == 0 && fovea_writer_finish(wr) < 0)
        rc = -1;
    fovea_writer_close(&wr);
    return rc;
}

void bench_warm_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return;
    static char buf[1 << 20];
    while (fread(buf, 1, sizeof(buf), fp) == sizeof(buf))
        ;
    fclose(fp);
}

double bench_run_cli_fps(char *const argv[], const char *json_path, const char *who)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1.0;
    if (pid == 0) {
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s: %s %s failed (status %d)\n", who, argv[0], argv[1] ? argv[1] : "",
                status);
        return -1.0;
    }
    FILE *fp = fopen(json_path, "rb");
    if (!fp)
        return -1.0;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof(text) - 1, fp);
    fclose(fp);
    text[n] = '\0';
    const char *k = strstr(text, "\"fps\":");
    return k ? strtod(k + 6, NULL) : -1.0;
}
