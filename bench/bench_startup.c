/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Start-up cost of scoring one pair (issue 48): where a short `fovea vmaf`
 * spends its time, against libvmaf's tool on the same pair.
 *
 *   bench_startup --ref R.y4m --dis D.y4m [--libvmaf DIR] [--runs N]
 *
 * Each row is the median of N fresh processes (a cold start cannot be timed
 * twice in one process):
 *   - stage rows: this program re-run with --stages, which times each step of
 *     the library's path in a fresh process (context, readers, model and
 *     scorer, first score, teardown) on the CUDA and on the CPU backend;
 *   - whole-process rows: `fovea vmaf` (--cli, default ../fovea) and, with
 *     --libvmaf, libvmaf's vmaf-cuda and vmaf-cpu from that folder, each
 *     writing its JSON to a temporary file. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"
#include "fovea/fovea.h"
#include "fovea/io.h"
#include "fovea/quality.h"

extern char **environ;

#define STAGES 6
static const char *const stage_names[STAGES] = {
    "context open",           "readers open + first frames",
    "model + scorer open",    "first score (submit, flush, receive)",
    "scorer + readers close", "context close"};

/* --stages BACKEND REF DIS: one cold run, each step's microseconds on stdout */
static int run_stages(const char *backend, const char *ref, const char *dis)
{
    double t[STAGES + 1];
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = strcmp(backend, "cuda") == 0 ? FOVEA_BACKEND_CUDA : FOVEA_BACKEND_CPU;
    fovea_context *ctx = NULL;
    t[0] = bench_now_us();
    BENCH_FOVEA(NULL, fovea_open(&ctx, &s));
    t[1] = bench_now_us();
    fovea_reader *rr = NULL, *rd = NULL;
    fovea_frame fr, fd;
    memset(&fr, 0, sizeof(fr));
    memset(&fd, 0, sizeof(fd));
    BENCH_FOVEA(ctx, fovea_reader_open(&rr, ctx, ref, NULL));
    BENCH_FOVEA(ctx, fovea_reader_open(&rd, ctx, dis, NULL));
    BENCH_FOVEA(ctx, fovea_reader_read(rr, &fr));
    BENCH_FOVEA(ctx, fovea_reader_read(rd, &fd));
    t[2] = bench_now_us();
    fovea_vmaf_model *m = NULL;
    BENCH_FOVEA(ctx, fovea_vmaf_model_open(&m, ctx, "vmaf_v0.6.1"));
    fovea_vmaf_settings vs;
    fovea_vmaf_default_settings(&vs);
    vs.model = m;
    fovea_vmaf *v = NULL;
    BENCH_FOVEA(ctx, fovea_vmaf_open(&v, ctx, &vs));
    t[3] = bench_now_us();
    fovea_vmaf_scores sc;
    BENCH_FOVEA(ctx, fovea_vmaf_process(v, &fr, &fd, &sc));
    t[4] = bench_now_us();
    fovea_vmaf_close(&v);
    fovea_vmaf_model_close(&m);
    fovea_frame_free(ctx, &fr);
    fovea_frame_free(ctx, &fd);
    fovea_reader_close(&rr);
    fovea_reader_close(&rd);
    t[5] = bench_now_us();
    fovea_close(&ctx);
    t[6] = bench_now_us();
    for (int i = 0; i < STAGES; i++)
        printf("%.1f%c", t[i + 1] - t[i], i + 1 < STAGES ? ' ' : '\n');
    return 0;
}

/* Run argv with stdout to out_path (or /dev/null), wait; microseconds, or -1. */
static double spawn_timed(char *const argv[], const char *out_path)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path ? out_path : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    const double t0 = bench_now_us();
    const int e = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e != 0) {
        fprintf(stderr, "bench_startup: cannot run %s: %s\n", argv[0], strerror(e));
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    const double dt = bench_now_us() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_startup: %s failed (status %d)\n", argv[0], status);
        return -1;
    }
    return dt;
}

static void row(bench_table *o, const char *name, const char *backend, double *us, int n)
{
    bench_stats st;
    bench_stats_compute(us, n, &st);
    bench_table_add(o, name, backend, &st, 0, 1, "median of fresh processes");
}

static int whole(bench_table *o, const char *name, const char *backend, char *const argv[],
                 int runs)
{
    double us[64];
    for (int i = 0; i < runs; i++)
        if ((us[i] = spawn_timed(argv, NULL)) < 0)
            return -1;
    row(o, name, backend, us, runs);
    return 0;
}

static int stages(bench_table *o, const char *self, const char *backend, const char *ref,
                  const char *dis, int runs, const char *tmp)
{
    double us[STAGES][64], total[64];
    char out[4096];
    snprintf(out, sizeof(out), "%s/bench_startup.%d.txt", tmp, (int)getpid());
    char *argv[] = {(char *)self, "--stages", (char *)backend, (char *)ref, (char *)dis, NULL};
    for (int i = 0; i < runs; i++) {
        if ((total[i] = spawn_timed(argv, out)) < 0)
            return -1;
        FILE *f = fopen(out, "r");
        int got = 0;
        for (int k = 0; f && k < STAGES; k++)
            got += fscanf(f, "%lf", &us[k][i]) == 1;
        if (f)
            fclose(f);
        if (got != STAGES) {
            fprintf(stderr, "bench_startup: --stages %s printed no times\n", backend);
            return -1;
        }
    }
    remove(out);
    for (int k = 0; k < STAGES; k++) {
        char name[128];
        snprintf(name, sizeof(name), "  %s: %s", backend, stage_names[k]);
        row(o, name, backend, us[k], runs);
    }
    char name[128];
    snprintf(name, sizeof(name), "  %s: whole process of the stages above", backend);
    row(o, name, backend, total, runs);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--stages") == 0)
        return run_stages(argv[2], argv[3], argv[4]);
    bench_opts opts;
    bench_parse_args_ex(
        argc, argv, &opts,
        "  --ref FILE --dis FILE   the pair (one frame is enough)\n"
        "  --libvmaf DIR           folder with libvmaf's vmaf-cuda / vmaf-cpu\n" BENCH_E2E_USAGE);
    const char *ref = NULL, *dis = NULL, *lv = NULL;
    bench_e2e e2e;
    int n = 0;
    char *rest[BENCH_MAX_EXTRA];
    for (int i = 0; i < opts.n_extra; i++) {
        const char *a = opts.extra[i];
        const char *next = i + 1 < opts.n_extra ? opts.extra[i + 1] : NULL;
        if (strcmp(a, "--ref") == 0 && next)
            ref = opts.extra[++i];
        else if (strcmp(a, "--dis") == 0 && next)
            dis = opts.extra[++i];
        else if (strcmp(a, "--libvmaf") == 0 && next)
            lv = opts.extra[++i];
        else
            rest[n++] = opts.extra[i];
    }
    memcpy(opts.extra, rest, sizeof(char *) * (size_t)n);
    opts.n_extra = n;
    if (bench_e2e_parse(&opts, &e2e, "bench_startup") != 0)
        return 2;
    if ((ref != NULL) != (dis != NULL)) {
        fprintf(stderr, "bench_startup: --ref and --dis go together\n");
        return 2;
    }
    char gen[2][4096] = {"", ""};
    if (!ref) {
        /* no pair given: one 1080p 8-bit frame of noise and its noisier copy */
        for (int k = 0; k < 2; k++) {
            snprintf(gen[k], sizeof(gen[k]), "%s/bench_startup.%d.%s.y4m", e2e.tmp, (int)getpid(),
                     k ? "dis" : "ref");
            fovea_frame f;
            BENCH_FOVEA(NULL,
                        fovea_frame_alloc(NULL, &f, 1920, 1080, FOVEA_PIX_I420, FOVEA_MEM_HOST));
            bench_fill_frame(&f, 7 + (uint64_t)k);
            if (bench_write_y4m(gen[k], &f, 1, 0, 1, 24, "bench_startup") != 0)
                return 1;
            fovea_frame_free(NULL, &f);
        }
        ref = gen[0];
        dis = gen[1];
    }
    int runs = opts.quick ? 3 : opts.runs > 63 ? 63 : opts.runs;
    if (runs == 50)
        runs = 9; /* the common default suits kernels, not process starts */
    int ndev = 0;
    fovea_device_count(&ndev);
    bench_table o;
    bench_table_init(&o, "startup", "starts", &opts);
    fprintf(bench_text_stream(&opts),
            "start-up of one pair (%s vs %s), %d fresh processes per row\n", ref, dis, runs);
    char self[4096];
    const ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (k <= 0) {
        fprintf(stderr, "bench_startup: cannot find its own executable\n");
        return 1;
    }
    self[k] = '\0';
    int rc = 0;
    if (ndev > 0)
        rc |= stages(&o, self, "cuda", ref, dis, runs, e2e.tmp);
    rc |= stages(&o, self, "cpu", ref, dis, runs, e2e.tmp);
    char json[4096];
    snprintf(json, sizeof(json), "%s/bench_startup.%d.json", e2e.tmp, (int)getpid());
    if (e2e.enabled && e2e.cli) {
        const char *backends[] = {"cuda", "cpu"};
        for (int b = ndev > 0 ? 0 : 1; b < 2; b++) {
            char *av[] = {(char *)e2e.cli,     "vmaf", (char *)ref, (char *)dis, "--backend",
                          (char *)backends[b], "-q",   "--json",    json,        NULL};
            char name[128];
            snprintf(name, sizeof(name), "fovea vmaf --backend %s (whole process)", backends[b]);
            rc |= whole(&o, name, backends[b], av, runs);
        }
    }
    if (lv) {
        const char *tools[] = {"vmaf-cuda", "vmaf-cpu"},
                   *backends[] = {"libvmaf-cuda", "libvmaf-cpu"};
        for (int b = ndev > 0 ? 0 : 1; b < 2; b++) {
            char exe[4096], name[128];
            snprintf(exe, sizeof(exe), "%s/%s", lv, tools[b]);
            char threads[32];
            snprintf(threads, sizeof(threads), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
            char *av[] = {
                exe,         "-r",    (char *)ref, "-d", (char *)dis, "-m", "version=vmaf_v0.6.1",
                "--threads", threads, "--json",    "-o", json,        "-q", NULL};
            snprintf(name, sizeof(name), "libvmaf %s --threads %s (whole process)", tools[b],
                     threads);
            rc |= whole(&o, name, backends[b], av, runs);
        }
    }
    remove(json);
    if (gen[0][0]) {
        remove(gen[0]);
        remove(gen[1]);
    }
    const int frc = bench_table_finish(&o, 0);
    return rc ? 1 : frc;
}
