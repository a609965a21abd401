/* `fovea vmaf REF DIS`: libvmaf's VMAF (a model's features and score) per
 * frame and pooled, JSON in libvmaf's layout, CSV and a PNG chart; and
 * `fovea vmaf --manifest FILE`: many pairs spread over every GPU (or CPU
 * workers), one JSON line per pair as it finishes, shardable over machines. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/quality.h"
#include "score.h"
#include "vmaf_manifest.h"
#include "vmaf_sched.h"

enum {
    OPT_FRAMES = 1,
    OPT_MODEL,
    OPT_BACKEND,
    OPT_THREADS,
    OPT_JSON,
    OPT_CSV,
    OPT_PLOT,
    OPT_FEATURE_ONLY,
    OPT_QUIET,
    OPT_MANIFEST,
    OPT_SHARD,
    OPT_DEVICES,
    OPT_JOBS,
    OPT_JSON_LINES
};

#define DEFAULT_MODEL "version=vmaf_v0.6.1"

static const cli_option options[] = {
    CLI_INPUT_OPTIONS_NO_FPS,
    {"model", 'm', "FILE|version=NAME",
     "libvmaf JSON model file (also path=FILE), or a built-in model: version=vmaf_v0.6.1",
     DEFAULT_MODEL, OPT_MODEL},
    {"frames", 0, "N", "score at most N frame pairs; 0 = all", "0", OPT_FRAMES},
    {"backend", 0, "B", "auto, cpu or cuda", "auto", OPT_BACKEND},
    {"threads", 0, "N", "CPU threads (per worker with --manifest); 0 = one per CPU (shared "
     "among the workers)", "0", OPT_THREADS},
    {"json", 0, "FILE", "write per-frame and pooled metrics in libvmaf's JSON layout; '-' = "
     "stdout", "none", OPT_JSON},
    {"csv", 0, "FILE", "write per-frame metrics as CSV; '-' = stdout", "none", OPT_CSV},
    {"plot", 0, "FILE.png",
     "draw VMAF per frame as a 1200x500 PNG chart, the 5 lowest frames marked (with "
     "--feature-only: the model's features)", "none", OPT_PLOT},
    {"feature-only", 0, NULL, "compute the model's features, not the score (libvmaf's "
     "--no_prediction)", "off", OPT_FEATURE_ONLY},
    {"quiet", 'q', NULL, "do not show progress, nor the summary line when --json, --csv or "
     "--json-lines carries the scores", "progress on stderr when it is a terminal, a summary "
     "line at the end", OPT_QUIET},
    {"manifest", 0, "FILE", "score the pairs listed in FILE (CSV with a header ref,dis[,id]"
     "[,model][,frames], or JSON lines; '-' = stdin) instead of REF DIS", "none", OPT_MANIFEST},
    {"shard", 0, "I/N", "with --manifest: score pairs I, I+N, I+2N, ... (0-based, 0 <= I < N), "
     "e.g. I=$SLURM_ARRAY_TASK_ID", "0/1 (all)", OPT_SHARD},
    {"devices", 0, "LIST", "with --manifest: the CUDA devices to use, e.g. 0,1",
     "every visible device; the CPU when there is none", OPT_DEVICES},
    {"jobs", 'j', "N", "with --manifest: pairs in flight per GPU, or CPU workers",
     "2 per GPU; one CPU worker per 4 CPUs", OPT_JOBS},
    {"json-lines", 0, "FILE", "with --manifest: where the JSON line of each pair goes; '-' = "
     "stdout", "-", OPT_JSON_LINES},
    {0},
};

static const cli_spec spec = {
    "vmaf",
    "[options] REF DIS\n"
    "       fovea vmaf [options] --manifest FILE [--shard I/N]",
    "Score DIS against REF with libvmaf's VMAF: the model's features (integer ADM,\n"
    "motion and VIF) and its score, bit-exact with libvmaf 3.2.0. Only luma is\n"
    "read; 8 to 16 bit, any chroma layout, at least 33x33 (16x16 for a model of\n"
    "VIF alone). Both inputs must have the same size and bit depth; when their\n"
    "frame counts differ the common prefix is scored (with a warning). Raw input\n"
    "options apply to every input.\n"
    "\n"
    "With --manifest, every pair of the manifest (or of its shard) is scored,\n"
    "spread over the GPUs (or CPU workers), and one JSON line per pair is written\n"
    "as it finishes, in completion order, with the pair's manifest index. Relative\n"
    "paths in a manifest are relative to the manifest's folder.",
    options,
    "Examples:\n"
    "  fovea vmaf ref.y4m dis.y4m\n"
    "  fovea vmaf --json out.json --plot vmaf.png ref.y4m dis.y4m\n"
    "  fovea vmaf --model my_model.json --csv - -s 1920x1080 --pixfmt i420 ref.yuv dis.yuv\n"
    "  fovea vmaf --manifest pairs.csv --json-lines results.jsonl\n"
    "  fovea vmaf --manifest pairs.csv --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\n"
    "\n"
    "Exit status: 0 success, 1 runtime error (an input without frames is one: there\n"
    "is no score; with --manifest: any pair that failed, after the others were\n"
    "scored, or a malformed manifest), 2 usage error.",
};

typedef struct vmaf_args {
    cli_input_opts in;
    long long frames; /* -1 = all (--frames 0) */
    const char *model;
    fovea_backend backend;
    int threads;
    const char *json, *csv, *plot;
    int feature_only, quiet;
    const char *manifest, *json_lines;
    int64_t shard_index, shard_count;
    int shard_given;
    int devices[SCHED_MAX_DEVICES], ndevices;
    int jobs;
    const char *ref_path, *dis_path;
} vmaf_args;

static int parse_args(vmaf_args *a, int argc, char **argv)
{
    const char *cmd = spec.name;
    cli_parser p;
    const char *v;
    int id;

    memset(a, 0, sizeof(*a));
    cli_input_opts_init(&a->in);
    a->frames = -1;
    a->backend = FOVEA_BACKEND_AUTO;
    a->model = DEFAULT_MODEL;
    a->shard_count = 1;

    cli_parser_init(&p, &spec, argc, argv);
    while ((id = cli_next(&p, &v)) > 0) {
        int bad = 0;
        switch (id) {
        case OPT_FRAMES:
            bad = cli_parse_int(cmd, "--frames", v, 0, INT64_MAX, &a->frames);
            if (!bad && a->frames == 0)
                a->frames = -1;
            break;
        case OPT_MODEL:
            if (!*v || strcmp(v, "version=") == 0 || strcmp(v, "path=") == 0)
                return cli_usage_error(cmd, "--model: expected FILE, path=FILE or version=NAME");
            a->model = v;
            break;
        case OPT_BACKEND:
            if (cli_parse_backend(cmd, v, &a->backend) < 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_THREADS:
            bad = cli_parse_int32(cmd, "--threads", v, 0, 1024, &a->threads);
            break;
        case OPT_JSON:
            a->json = v;
            break;
        case OPT_CSV:
            a->csv = v;
            break;
        case OPT_PLOT:
            if (score_check_plot_name(cmd, v) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            a->plot = v;
            break;
        case OPT_FEATURE_ONLY:
            a->feature_only = 1;
            break;
        case OPT_QUIET:
            a->quiet = 1;
            break;
        case OPT_MANIFEST:
            a->manifest = v;
            break;
        case OPT_SHARD:
            if (sched_parse_shard(v, &a->shard_index, &a->shard_count) < 0)
                return cli_usage_error(cmd, "--shard: expected I/N with 0 <= I < N (e.g. 0/4), "
                                       "got '%s'", v);
            a->shard_given = 1;
            break;
        case OPT_DEVICES:
            a->ndevices = sched_parse_devices(v, a->devices, SCHED_MAX_DEVICES);
            if (a->ndevices < 0)
                return cli_usage_error(cmd, "--devices: expected distinct CUDA device indices "
                                       "separated by commas (e.g. 0,1), got '%s'", v);
            break;
        case OPT_JOBS:
            bad = cli_parse_int32(cmd, "--jobs", v, 1, SCHED_MAX_WORKERS, &a->jobs);
            break;
        case OPT_JSON_LINES:
            a->json_lines = v;
            break;
        default:
            if (cli_input_option(&a->in, cmd, id, v) <= 0)
                bad = -1;
            break;
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end;

    if (a->manifest) {
        if (p.nrest != 0)
            return cli_usage_error(cmd, "--manifest names the pairs: no REF DIS arguments "
                                   "(got %d)", p.nrest);
        const char *single = a->json ? "--json" : a->csv ? "--csv" : a->plot ? "--plot" : NULL;
        if (single)
            return cli_usage_error(cmd, "%s is for one pair; with --manifest each pair's "
                                   "results go to --json-lines", single);
        if (a->ndevices > 0 && a->backend == FOVEA_BACKEND_CPU)
            return cli_usage_error(cmd, "--devices picks CUDA devices: not with --backend cpu");
        if (!a->json_lines)
            a->json_lines = "-";
        if (cli_refuse_same_file(a->json_lines, a->manifest))
            return CLI_EXIT_USAGE;
        return CLI_EXIT_OK;
    }
    const char *batch_only = a->shard_given ? "--shard" : a->ndevices ? "--devices"
                             : a->jobs ? "--jobs" : a->json_lines ? "--json-lines" : NULL;
    if (batch_only)
        return cli_usage_error(cmd, "%s goes with --manifest", batch_only);
    if (p.nrest != 2)
        return cli_usage_error(cmd, "vmaf: expected REF and DIS (or --manifest FILE), got %d "
                               "argument%s", p.nrest, p.nrest == 1 ? "" : "s");
    a->ref_path = p.rest[0];
    a->dis_path = p.rest[1];
    if (strcmp(a->ref_path, "-") == 0 && strcmp(a->dis_path, "-") == 0)
        return cli_usage_error(cmd, "REF and DIS cannot both be stdin");
    if (a->json && a->csv && strcmp(a->json, "-") == 0 && strcmp(a->csv, "-") == 0)
        return cli_usage_error(cmd, "--json - and --csv -: only one can go to stdout");
    /* before anything is opened for writing: the inputs must survive */
    const char *outs[3] = {a->json, a->csv, a->plot};
    for (int i = 0; i < 3; i++)
        if (cli_refuse_same_file(outs[i], a->ref_path) ||
            cli_refuse_same_file(outs[i], a->dis_path))
            return CLI_EXIT_USAGE;
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ models */

/* The name a model is shown by: the version, or the file as given. */
static const char *model_label(const char *spec_)
{
    if (strncmp(spec_, "version=", 8) == 0)
        return spec_ + 8;
    if (strncmp(spec_, "path=", 5) == 0)
        return spec_ + 5;
    return spec_;
}

/* Load "version=NAME", "path=FILE" or "FILE". @return a fovea status, the
 * message in err */
static int load_model(const char *spec_, fovea_vmaf_model **m, char *err, size_t errsz)
{
    int st;
    if (strncmp(spec_, "version=", 8) == 0) {
        st = fovea_vmaf_model_open(m, NULL, spec_ + 8);
        if (st < 0)
            snprintf(err, errsz, "--model %s: %s (built in: vmaf_v0.6.1)", spec_,
                     fovea_last_error(NULL)[0] ? fovea_last_error(NULL) : fovea_strerror(st));
        return st;
    }
    const char *path = model_label(spec_);
    st = fovea_vmaf_model_open_file(m, NULL, path);
    if (st < 0)
        cli_format_report(err, errsz, path, 0, fovea_last_error(NULL), st);
    return st;
}

/* ------------------------------------------------------------------ one pair */

#define NAME_LEN 96

/* One pair scored on a context: what it needs, and what it gives back. The
 * single-pair command and every batch worker run it, so both give the same
 * numbers. */
typedef struct pair_job {
    const char *ref, *dis;
    const cli_input_opts *io;
    int64_t frames;                 /* -1 = all */
    const fovea_vmaf_model *model;
    int feature_only;               /* the model's features, not its score */
    fovea_context *ctx;
    size_t ring_bytes;
    int keep_frames;                /* keep the per-frame values (in vm) */
    cli_progress *prog;             /* NULL: no progress */
    int quiet;
    void (*warn)(struct pair_job *j, const char *msg);

    fovea_video_info info;
    int bit_depth;
    int nmetrics;
    char names[FOVEA_VMAF_MAX_METRICS][NAME_LEN];
    const char *name_ptr[FOVEA_VMAF_MAX_METRICS];
    fovea_vmaf *vm;                 /* with keep_frames: the scorer, its frames kept */
    int64_t n;
    score_pool pool[FOVEA_VMAF_MAX_METRICS];
    double secs;
    const char *backend;
    int threads;
    int rc;                         /* CLI_EXIT_* */
    char err[2048];
    char warnings[1024];            /* batch: the warnings, "; " between */
} pair_job;

/* The pair failed: the message for the caller (prefixed with the frame's
 * number when frame >= 0), the progress line ended. */
static void job_fail(pair_job *j, int rc, const char *detail, int64_t frame)
{
    if (j->prog)
        cli_progress_finish(j->prog);
    j->rc = rc;
    if (frame >= 0)
        snprintf(j->err, sizeof(j->err), "frame %lld: %s", (long long)frame, detail);
    else
        snprintf(j->err, sizeof(j->err), "%s", detail);
}

/* Receive the ready scores while more than keep pairs are pending. @return 0 or -1 */
static int receive_scores(pair_job *j, fovea_vmaf *v, score_input *in, int64_t keep)
{
    fovea_vmaf_scores sc;
    while (fovea_vmaf_pending(v) > keep) {
        const int st = fovea_vmaf_receive(v, &sc);
        if (st == FOVEA_AGAIN)
            break; /* the newest waits for its successor or for the flush */
        if (st < 0) {
            job_fail(j, CLI_EXIT_RUNTIME, fovea_last_error(j->ctx), j->n);
            return -1;
        }
        score_input_release(in);
        j->n++;
        if (j->prog)
            cli_progress_update(j->prog, j->n);
    }
    return 0;
}

/* Submit the pairs as the readers deliver them (frame n's scores are ready
 * once frame n + 1 is submitted: motion looks one frame ahead), receive them
 * down to depth pending, flush and receive the rest at the end. */
static int submit_all(pair_job *j, fovea_vmaf *v, score_input *in, int64_t depth)
{
    int64_t sub = 0;
    for (;;) {
        fovea_frame *fr = NULL, *fd = NULL;
        const int got = score_input_next(in, &fr, &fd);
        if (got < 0) {
            job_fail(j, CLI_EXIT_RUNTIME, in->err, -1);
            return -1;
        }
        if (got) {
            if (fovea_vmaf_submit(v, fr, fd) < 0) {
                job_fail(j, CLI_EXIT_RUNTIME, fovea_last_error(j->ctx), sub);
                return -1;
            }
            sub++;
        } else {
            if (in->warn[0]) {
                if (j->prog)
                    cli_progress_finish(j->prog);
                j->warn(j, in->warn);
            }
            fovea_vmaf_flush(v);
        }
        if (receive_scores(j, v, in, got ? depth : 0) < 0)
            return -1;
        if (!got)
            return 0;
    }
}

/* The smallest frame the context's features take: ADM's four wavelet levels
 * need 33x33, VIF 16x16. */
static int min_size(const pair_job *j)
{
    for (int m = 0; m < j->nmetrics; m++)
        if (strncmp(j->names[m], "integer_adm", 11) == 0)
            return 33;
    return 16;
}

static void score_pair(pair_job *j)
{
    score_input in;
    memset(&in, 0, sizeof(in));
    fovea_vmaf *v = NULL;
    j->rc = CLI_EXIT_OK;
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    s.model = j->model;
    s.flags = j->feature_only ? FOVEA_VMAF_NO_PREDICTION : 0;
    s.keep_frames = j->keep_frames;
    if (fovea_vmaf_open(&v, j->ctx, &s) < 0) {
        job_fail(j, CLI_EXIT_RUNTIME, fovea_last_error(j->ctx), -1);
        goto done;
    }
    j->backend = fovea_backend_name(fovea_vmaf_backend(v));
    j->threads = fovea_context_threads(j->ctx);
    j->nmetrics = fovea_vmaf_metric_count(v);
    for (int m = 0; m < j->nmetrics; m++) {
        const char *name = fovea_vmaf_metric_name(v, m);
        snprintf(j->names[m], NAME_LEN, "%s", name ? name : "?");
        j->name_ptr[m] = j->names[m];
    }

    const int rc = score_input_open(&in, j->ref, j->dis, j->io, j->frames, "VMAF", min_size(j));
    if (rc != CLI_EXIT_OK) {
        job_fail(j, rc, in.err, -1);
        goto done;
    }
    if (in.warn[0])
        j->warn(j, in.warn);
    j->info = in.ri;
    j->bit_depth = in.bit_depth;

    int64_t depth = 0;
    const int batch = fovea_vmaf_batch_size(v, in.ri.width, in.ri.height);
    if (score_input_start(&in, j->ctx, batch, j->ring_bytes, &depth) < 0) {
        job_fail(j, CLI_EXIT_RUNTIME, in.err, -1);
        goto done;
    }
    const double t0 = cli_now();
    if (j->prog)
        cli_progress_start(j->prog, score_input_total(&in), j->quiet);
    const int bad = submit_all(j, v, &in, depth);
    if (j->prog)
        cli_progress_finish(j->prog);
    j->secs = cli_now() - t0;
    if (!bad) {
        fovea_vmaf_pooled_scores pl;
        fovea_vmaf_pooled(v, &pl);
        for (int m = 0; m < j->nmetrics && m < pl.count; m++) {
            const score_pool q = {pl.metric[m].min, pl.metric[m].max, pl.metric[m].mean,
                                  pl.metric[m].harmonic_mean};
            j->pool[m] = q;
        }
    }
    if (!bad && j->keep_frames) {
        j->vm = v; /* nothing pending: it holds none of the ring's frames */
        v = NULL;
    }
done:
    /* the scorer may still read the ring's frames: close it first */
    fovea_vmaf_close(&v);
    score_input_close(&in);
}

/* The metric that is the score: "vmaf" or, for a model named otherwise, the
 * last one; -1 with --feature-only. */
static int score_index(const pair_job *j)
{
    if (j->feature_only || j->nmetrics == 0)
        return -1;
    for (int m = 0; m < j->nmetrics; m++)
        if (strcmp(j->names[m], "vmaf") == 0)
            return m;
    return j->nmetrics - 1;
}

/* ------------------------------------------------------------------ single pair: outputs */

static void warn_stderr(pair_job *j, const char *msg)
{
    (void)j;
    fprintf(stderr, "fovea: warning: %s\n", msg);
}

static int write_json(const vmaf_args *a, const pair_job *j, double fps)
{
    const fovea_vmaf_field f[] = {
        {"version", FOVEA_VMAF_FIELD_STRING, fovea_version(), 0},
        {"model", FOVEA_VMAF_FIELD_STRING, model_label(a->model), 0},
        {"features", FOVEA_VMAF_FIELD_STRING,
         a->feature_only ? "model features only" : "model features and score", 0},
        {"backend", FOVEA_VMAF_FIELD_STRING, j->backend, 0},
        {"threads", FOVEA_VMAF_FIELD_NUMBER, NULL, j->threads},
        {"reference", FOVEA_VMAF_FIELD_STRING, a->ref_path, 0},
        {"distorted", FOVEA_VMAF_FIELD_STRING, a->dis_path, 0},
        {"width", FOVEA_VMAF_FIELD_NUMBER, NULL, j->info.width},
        {"height", FOVEA_VMAF_FIELD_NUMBER, NULL, j->info.height},
        {"pixfmt", FOVEA_VMAF_FIELD_STRING, fovea_pixfmt_name(j->info.fmt), 0},
        {"frames", FOVEA_VMAF_FIELD_NUMBER, NULL, (double)j->n},
    };
    const fovea_vmaf_output o = {fps, f, (int)(sizeof f / sizeof f[0])};
    return score_write_vmaf(a->json, j->vm, FOVEA_VMAF_OUTPUT_JSON, &o);
}

/* The model's features plotted with --feature-only: one axis, so motion (0 to
 * ~20) is drawn divided by 20 beside the features that live in 0..1. */
static const struct {
    const char *name;
    double scale;
    uint32_t rgb;
} plot_features[] = {
    {"integer_adm2", 1.0, 0x9467bd},       {"integer_vif_scale0", 1.0, 0xd62728},
    {"integer_vif_scale1", 1.0, 0xff7f0e}, {"integer_vif_scale2", 1.0, 0x2ca02c},
    {"integer_vif_scale3", 1.0, 0x1f77b4}, {"integer_motion2", 1.0 / 20.0, 0x7f7f7f},
};
#define N_PLOT_FEATURES ((int)(sizeof(plot_features) / sizeof(plot_features[0])))

/* The metric named base, or base with an option suffix (integer_adm2_egl_1). */
static int find_metric(const pair_job *j, const char *base)
{
    const size_t n = strlen(base);
    for (int m = 0; m < j->nmetrics; m++)
        if (strncmp(j->names[m], base, n) == 0 && (j->names[m][n] == '\0' || j->names[m][n] == '_'))
            return m;
    return -1;
}

/* VMAF against the frame number on a fixed 0..100 axis, so that runs compare
 * at a glance, with its mean as a flat line and the lowest frames marked;
 * with --feature-only the model's features instead. */
static int write_plot(const vmaf_args *a, const pair_job *j)
{
    enum { LOWEST = 5 };
    const int64_t n = j->n;
    const int si = score_index(j);
    int col[CHART_MAX_SERIES], ncol = 0;
    double scale[CHART_MAX_SERIES];
    if (si >= 0) {
        col[ncol] = si;
        scale[ncol++] = 1.0;
    } else {
        for (int k = 0; k < N_PLOT_FEATURES; k++) {
            const int m = find_metric(j, plot_features[k].name);
            if (m >= 0) {
                col[ncol] = m;
                scale[ncol++] = plot_features[k].scale;
            }
        }
        /* a model without any of those: its first metrics */
        for (int m = 0; ncol == 0 && m < j->nmetrics && m < N_PLOT_FEATURES; m++) {
            col[m] = m;
            scale[m] = 1.0;
        }
        if (ncol == 0)
            ncol = j->nmetrics < N_PLOT_FEATURES ? j->nmetrics : N_PLOT_FEATURES;
    }
    const int nseries = ncol + (si >= 0 ? 1 : 0); /* the score's mean line */
    double *y = NULL;
    if (n > 0 && (uint64_t)n <= SIZE_MAX / (size_t)(nseries ? nseries : 1) / sizeof(double))
        y = malloc((size_t)n * (size_t)nseries * sizeof(double));
    if (n > 0 && !y) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    chart c;
    chart_init(&c);
    char names[CHART_MAX_SERIES][NAME_LEN + 48];
    double ymax = 0;
    for (int s = 0; s < ncol; s++) {
        double *ys = y ? y + (size_t)s * (size_t)n : NULL;
        for (int64_t i = 0; i < n; i++) {
            ys[i] = fovea_vmaf_kept_values(j->vm, i)[col[s]] * scale[s];
            if (isfinite(ys[i]) && ys[i] > ymax)
                ymax = ys[i];
        }
        const score_pool *p = &j->pool[col[s]];
        if (si >= 0)
            snprintf(names[s], sizeof(names[s]), "VMAF (min %.2f, harmonic mean %.2f)", p->min,
                     p->harmonic_mean);
        else if (scale[s] != 1.0)
            snprintf(names[s], sizeof(names[s]), "%s (mean %.3f), drawn / %g", j->names[col[s]],
                     p->mean, 1.0 / scale[s]);
        else
            snprintf(names[s], sizeof(names[s]), "%s (mean %.4f)", j->names[col[s]], p->mean);
        uint32_t rgb = 0x1f77b4;
        for (int k = 0; si < 0 && k < N_PLOT_FEATURES; k++)
            if (strncmp(j->names[col[s]], plot_features[k].name, strlen(plot_features[k].name)) == 0)
                rgb = plot_features[k].rgb;
        chart_add_series(&c, names[s], rgb, ys, (size_t)n);
    }
    if (si >= 0) {
        double *ym = y ? y + (size_t)ncol * (size_t)n : NULL;
        for (int64_t i = 0; i < n; i++)
            ym[i] = j->pool[si].mean;
        snprintf(names[ncol], sizeof(names[ncol]), "mean %.2f", j->pool[si].mean);
        chart_add_series(&c, names[ncol], 0x999999, ym, (size_t)n);
        c.y_min = 0;
        c.y_max = ymax > 100.0 ? NAN : 100.0;
    } else {
        c.y_min = 0;
        c.y_max = ymax > 1.0 ? NAN : 1.0;
    }

    char title[1024], subtitle[512], marks[96];
    const char *rn, *dn;
    score_plot_names(a->ref_path, a->dis_path, &rn, &dn);
    snprintf(title, sizeof(title), "%s: %s against %s", si >= 0 ? "VMAF" : "VMAF features", dn,
             rn);
    snprintf(subtitle, sizeof(subtitle), "%dx%d %d-bit, %lld frame%s; model %s; fovea %s",
             j->info.width, j->info.height, j->bit_depth, (long long)n, n == 1 ? "" : "s",
             model_label(a->model), fovea_version());
    c.title = title;
    c.subtitle = subtitle;
    c.xlabel = "frame";
    c.ylabel = si >= 0 ? "VMAF" : "feature value";
    c.mark_series = 0;
    c.nmarks = chart_lowest(y, (size_t)n, c.marks, LOWEST);
    snprintf(marks, sizeof(marks), "%d lowest frames%s%s", c.nmarks, si >= 0 ? "" : " of ",
             si >= 0 ? "" : j->names[col[0]]);
    c.mark_label = c.nmarks > 0 ? marks : NULL;
    const int rc = score_write_chart(a->plot, &c);
    free(y);
    return rc;
}

static int write_results(const vmaf_args *a, const pair_job *j)
{
    const double fps = j->secs > 0 ? (double)j->n / j->secs : 0.0;
    int rc = CLI_EXIT_OK;
    if (a->json)
        rc = write_json(a, j, fps);
    if (rc == CLI_EXIT_OK && a->csv)
        rc = score_write_vmaf(a->csv, j->vm, FOVEA_VMAF_OUTPUT_CSV, NULL);
    if (rc == CLI_EXIT_OK && a->plot)
        rc = write_plot(a, j);
    if (rc != CLI_EXIT_OK)
        return rc;

    char what[2048];
    const int si = score_index(j);
    if (si >= 0) {
        snprintf(what, sizeof(what), "VMAF mean %.6f min %.6f harmonic mean %.6f",
                 j->pool[si].mean, j->pool[si].min, j->pool[si].harmonic_mean);
    } else {
        size_t k = (size_t)snprintf(what, sizeof(what), "mean");
        for (int m = 0; m < j->nmetrics && k < sizeof(what); m++)
            k += (size_t)snprintf(what + k, sizeof(what) - k, " %s %.6f", j->names[m],
                                  j->pool[m].mean);
    }
    /* the summary goes to stderr when stdout carries JSON or CSV; --quiet
     * drops it only when those carry the scores (else it is the result) */
    cli_summary(a->quiet && (a->json || a->csv),
                (a->json && strcmp(a->json, "-") == 0) || (a->csv && strcmp(a->csv, "-") == 0),
                "vmaf: %lld %s %dx%d %d-bit  %s  (%s, %d thread%s, %.2f s, %.1f fps)",
                (long long)j->n, cli_frames_word(j->n), j->info.width, j->info.height,
                j->bit_depth, what, j->backend, j->threads, j->threads == 1 ? "" : "s", j->secs,
                fps);
    return CLI_EXIT_OK;
}

static int run_single(const vmaf_args *a)
{
    char err[2048];
    fovea_vmaf_model *model = NULL;
    if (load_model(a->model, &model, err, sizeof(err)) < 0) {
        cli_error(NULL, "%s", err);
        return CLI_EXIT_RUNTIME;
    }
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = a->backend;
    s.threads = a->threads;
    s.log = score_log_stderr;
    fovea_context *ctx = NULL;
    int st = fovea_open(&ctx, &s);
    if (st < 0) {
        cli_error(NULL, "cannot create a %s context: %s", fovea_backend_name(a->backend),
                  fovea_strerror(st));
        fovea_vmaf_model_close(&model);
        return CLI_EXIT_RUNTIME;
    }
    cli_progress prog;
    pair_job *j = calloc(1, sizeof(*j));
    int rc = CLI_EXIT_RUNTIME;
    if (!j) {
        cli_error(NULL, "out of memory");
    } else {
        j->ref = a->ref_path;
        j->dis = a->dis_path;
        j->io = &a->in;
        j->frames = a->frames;
        j->model = model;
        j->feature_only = a->feature_only;
        j->ctx = ctx;
        j->ring_bytes = (size_t)256 << 20;
        j->keep_frames = 1;
        j->prog = &prog;
        j->quiet = a->quiet;
        j->warn = warn_stderr;
        score_pair(j);
        rc = j->rc;
        if (rc == CLI_EXIT_USAGE)
            cli_usage_error(spec.name, "%s", j->err);
        else if (rc != CLI_EXIT_OK)
            cli_error(NULL, "%s", j->err);
        else
            rc = write_results(a, j);
        fovea_vmaf_close(&j->vm);
        free(j);
    }
    fovea_close(&ctx);
    fovea_vmaf_model_close(&model);
    return rc;
}

/* ------------------------------------------------------------------ batch */

/* A distinct model of the manifest's pairs, loaded once and shared by every
 * worker (a model is immutable). */
typedef struct batch_model {
    const char *spec;
    fovea_vmaf_model *m;
    char err[1024];
} batch_model;

typedef struct batch {
    const vmaf_args *a;
    manifest mf;
    char *base;               /* folder of the manifest, for relative paths; NULL = cwd */
    int64_t *task;            /* task t scores pair task[t] of the manifest */
    int64_t ntasks;
    int *pair_model;          /* per task: index into models */
    batch_model *models;
    int nmodels;
    sched_worker worker[SCHED_MAX_WORKERS];
    int nworkers;
    size_t ring_bytes;

    pthread_mutex_t mu;       /* the output, the counters and the progress */
    fovea_outfile *of;
    FILE *out;
    int out_failed;
    int64_t done, failed;
    cli_progress prog;
} batch;

/* The manifest's text. @return CLI_EXIT_OK, or CLI_EXIT_RUNTIME (printed) */
static int read_manifest(const char *path, char **text, size_t *len)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!fp) {
        cli_report(path, 0, "", FOVEA_ERR_IO);
        return CLI_EXIT_RUNTIME;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int rc = CLI_EXIT_OK;
    while (buf) {
        if (n == cap) {
            if (cap >= MANIFEST_MAX_BYTES) {
                cli_error(cli_display_path(path, 0), "larger than %zu MiB: split it",
                          MANIFEST_MAX_BYTES >> 20);
                rc = CLI_EXIT_RUNTIME;
                break;
            }
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = p;
            cap *= 2;
        }
        const size_t k = fread(buf + n, 1, cap - n, fp);
        n += k;
        if (k == 0)
            break;
    }
    if (!buf) {
        cli_error(NULL, "out of memory");
        rc = CLI_EXIT_RUNTIME;
    } else if (rc == CLI_EXIT_OK && ferror(fp)) {
        cli_error(cli_display_path(path, 0), "read error");
        rc = CLI_EXIT_RUNTIME;
    }
    if (fp != stdin)
        fclose(fp);
    if (rc != CLI_EXIT_OK) {
        free(buf);
        return rc;
    }
    *text = buf;
    *len = n;
    return CLI_EXIT_OK;
}

/* A manifest's path, relative ones from the manifest's folder. */
static char *resolve(const batch *b, const char *path)
{
    const size_t n = strlen(path);
    if (!b->base || path[0] == '/') {
        char *p = malloc(n + 1);
        if (p)
            memcpy(p, path, n + 1);
        return p;
    }
    const size_t nb = strlen(b->base);
    char *p = malloc(nb + 1 + n + 1);
    if (p) {
        memcpy(p, b->base, nb);
        p[nb] = '/';
        memcpy(p + nb + 1, path, n + 1);
    }
    return p;
}

static void warn_collect(pair_job *j, const char *msg)
{
    const size_t k = strlen(j->warnings);
    snprintf(j->warnings + k, sizeof(j->warnings) - k, "%s%s", k ? "; " : "", msg);
}

/* The first members of a pair's line: index, id, ref, dis, model. */
static cJSON *line_start(const batch *b, int64_t t)
{
    const manifest_pair *p = &b->mf.pair[b->task[t]];
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "index", (double)b->task[t]);
    if (p->id && p->id_is_number)
        cJSON_AddItemToObject(o, "id", cJSON_CreateRaw(p->id));
    else
        cJSON_AddStringToObject(o, "id", p->id ? p->id : p->dis);
    cJSON_AddStringToObject(o, "ref", p->ref);
    cJSON_AddStringToObject(o, "dis", p->dis);
    cJSON_AddStringToObject(o, "model", model_label(b->models[b->pair_model[t]].spec));
    return o;
}

/* Write a pair's line (NULL: out of memory, reported as such) and count it. */
static void line_emit(batch *b, int64_t t, cJSON *o, const char *error)
{
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    const manifest_pair *p = &b->mf.pair[b->task[t]];
    pthread_mutex_lock(&b->mu);
    if (text) {
        if (fputs(text, b->out) == EOF || fputc('\n', b->out) == EOF || fflush(b->out) != 0)
            b->out_failed = 1;
    } else {
        error = "out of memory";
    }
    if (!text || error) {
        b->failed++;
        /* the message on a line of its own; the progress goes on under it */
        if (b->prog.enabled && b->prog.width > 0) {
            fputc('\n', stderr);
            b->prog.width = 0;
        }
        cli_error(NULL, "%s:%d: pair %lld (%s): %s", cli_display_path(b->a->manifest, 0),
                  p->line, (long long)b->task[t], p->id ? p->id : p->dis,
                  error ? error : "out of memory");
    }
    b->done++;
    cli_progress_update(&b->prog, b->done);
    pthread_mutex_unlock(&b->mu);
    free(text);
}

static int worker_init(void *opaque, int w, void **state, char *err, size_t errsz)
{
    batch *b = opaque;
    const sched_worker *wk = &b->worker[w];
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = wk->backend;
    s.cuda_device = wk->device < 0 ? 0 : wk->device;
    s.threads = wk->threads;
    s.log = score_log_stderr;
    fovea_context *ctx = NULL;
    const int st = fovea_open(&ctx, &s);
    if (st < 0) {
        snprintf(err, errsz, "%s: cannot create a context: %s", wk->label,
                 fovea_last_error(NULL)[0] ? fovea_last_error(NULL) : fovea_strerror(st));
        return -1;
    }
    *state = ctx;
    return 0;
}

static void worker_fini(void *opaque, int w, void *state)
{
    (void)opaque;
    (void)w;
    fovea_context *ctx = state;
    fovea_close(&ctx);
}

static void worker_run(void *opaque, int w, void *state, int64_t t)
{
    batch *b = opaque;
    const manifest_pair *p = &b->mf.pair[b->task[t]];
    const batch_model *bm = &b->models[b->pair_model[t]];
    cJSON *o = line_start(b, t);
    pair_job *j = calloc(1, sizeof(*j));
    char *ref = resolve(b, p->ref), *dis = resolve(b, p->dis);
    const char *error = NULL;
    if (!j || !ref || !dis) {
        error = "out of memory";
    } else if (!bm->m) {
        error = bm->err;
    } else {
        j->ref = ref;
        j->dis = dis;
        j->io = &b->a->in;
        j->frames = p->frames > 0 ? p->frames : p->frames == 0 ? -1 : b->a->frames;
        j->model = bm->m;
        j->feature_only = b->a->feature_only;
        j->ctx = state;
        j->ring_bytes = b->ring_bytes;
        j->warn = warn_collect;
        score_pair(j);
        if (j->rc != CLI_EXIT_OK)
            error = j->err;
    }
    if (o && !error) {
        cJSON_AddNumberToObject(o, "frames", (double)j->n);
        const int si = score_index(j);
        if (si >= 0)
            score_json_add_pool(o, "vmaf", &j->pool[si]);
        cJSON *pm = cJSON_AddObjectToObject(o, "pooled_metrics");
        for (int m = 0; pm && m < j->nmetrics; m++)
            score_json_add_pool(pm, j->names[m], &j->pool[m]);
        cJSON_AddNumberToObject(o, "fps", j->secs > 0 ? (double)j->n / j->secs : 0.0);
    } else if (o) {
        cJSON_AddStringToObject(o, "error", error);
    }
    if (o) {
        cJSON_AddStringToObject(o, "device", b->worker[w].label);
        cJSON_AddNumberToObject(o, "worker", w);
        if (j && j->warnings[0])
            cJSON_AddStringToObject(o, "warning", j->warnings);
    }
    line_emit(b, t, o, error);
    cJSON_Delete(o);
    free(ref);
    free(dis);
    if (j)
        fovea_vmaf_close(&j->vm);
    free(j);
}

static void task_unrun(void *opaque, int64_t t, const char *msg)
{
    batch *b = opaque;
    cJSON *o = line_start(b, t);
    if (o)
        cJSON_AddStringToObject(o, "error", msg);
    line_emit(b, t, o, msg);
    cJSON_Delete(o);
}

/* Load each distinct model the shard's pairs use, once. @return 0 or -1 (out of memory) */
static int load_models(batch *b)
{
    b->models = calloc((size_t)(b->ntasks + 1), sizeof(*b->models));
    b->pair_model = calloc((size_t)(b->ntasks + 1), sizeof(*b->pair_model));
    if (!b->models || !b->pair_model)
        return -1;
    for (int64_t t = 0; t < b->ntasks; t++) {
        const manifest_pair *p = &b->mf.pair[b->task[t]];
        const char *sp = p->model ? p->model : b->a->model;
        int k = 0;
        while (k < b->nmodels && strcmp(b->models[k].spec, sp) != 0)
            k++;
        if (k == b->nmodels) {
            batch_model *bm = &b->models[b->nmodels++];
            bm->spec = sp;
            char *path = NULL;
            /* a model file named in the manifest is found as its videos are */
            if (p->model && strncmp(sp, "version=", 8) != 0) {
                path = resolve(b, model_label(sp));
                if (!path)
                    return -1;
            }
            if (load_model(path ? path : sp, &bm->m, bm->err, sizeof(bm->err)) < 0)
                bm->m = NULL;
            free(path);
        }
        b->pair_model[t] = k;
    }
    return 0;
}

static void batch_free(batch *b)
{
    for (int k = 0; k < b->nmodels; k++)
        fovea_vmaf_model_close(&b->models[k].m);
    free(b->models);
    free(b->pair_model);
    free(b->task);
    free(b->base);
    manifest_free(&b->mf);
}

/* The shard's pairs, the workers, the output. @return CLI_EXIT_OK or the exit code (printed) */
static int batch_prepare(batch *b)
{
    const vmaf_args *a = b->a;
    char *text = NULL;
    size_t len = 0;
    int rc = read_manifest(a->manifest, &text, &len);
    if (rc != CLI_EXIT_OK)
        return rc;
    const char *shown = cli_display_path(a->manifest, 0);
    const int pst = manifest_parse(&b->mf, shown, text, len);
    free(text);
    if (pst < 0) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    if (b->mf.nerrors > 0) {
        fputs(b->mf.errors, stderr); /* NAME:LINE: reason, one a line */
        cli_error(shown, "%d malformed line%s: nothing scored", b->mf.nerrors,
                  b->mf.nerrors == 1 ? "" : "s");
        return CLI_EXIT_RUNTIME;
    }
    if (b->mf.n == 0) {
        cli_error(shown, "no pairs in the manifest");
        return CLI_EXIT_RUNTIME;
    }
    const char *slash = strrchr(a->manifest, '/');
    if (strcmp(a->manifest, "-") != 0 && slash) {
        const size_t n = slash == a->manifest ? 1 : (size_t)(slash - a->manifest);
        b->base = malloc(n + 1);
        if (!b->base) {
            cli_error(NULL, "out of memory");
            return CLI_EXIT_RUNTIME;
        }
        memcpy(b->base, a->manifest, n);
        b->base[n] = '\0';
        if (strcmp(b->base, "/") == 0)
            b->base[0] = '\0'; /* "/" + "x" = "/x" */
    }

    b->task = malloc((size_t)b->mf.n * sizeof(*b->task));
    if (!b->task) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    for (int64_t k = 0; k < b->mf.n; k++)
        if (sched_in_shard(k, a->shard_index, a->shard_count))
            b->task[b->ntasks++] = k;
    if (load_models(b) < 0) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }

    sched_request rq;
    memset(&rq, 0, sizeof(rq));
    rq.backend = a->backend;
    if (fovea_cuda_compiled())
        fovea_device_count(&rq.visible_devices);
    rq.devices = a->ndevices > 0 ? a->devices : NULL;
    rq.ndevices = a->ndevices;
    rq.jobs = a->jobs;
    rq.threads = a->threads;
    rq.cpu_count = fovea_cpu_count();
    char err[512];
    b->nworkers = sched_plan(&rq, b->worker, SCHED_MAX_WORKERS, err, sizeof(err));
    if (b->nworkers < 0) {
        cli_error(NULL, "%s", err);
        return CLI_EXIT_RUNTIME;
    }
    /* a ring of frames per worker: 512 MiB among them, at least 32 MiB each */
    b->ring_bytes = ((size_t)512 << 20) / (size_t)b->nworkers;
    if (b->ring_bytes < ((size_t)32 << 20))
        b->ring_bytes = (size_t)32 << 20;

    if (fovea_outfile_open(NULL, &b->of, a->json_lines) < 0) {
        cli_report(a->json_lines, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
        return CLI_EXIT_RUNTIME;
    }
    b->out = fovea_outfile_file(b->of);
    return CLI_EXIT_OK;
}

static int run_batch(const vmaf_args *a)
{
    batch *b = calloc(1, sizeof(*b));
    if (!b) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    b->a = a;
    int rc = batch_prepare(b);
    if (rc != CLI_EXIT_OK) {
        fovea_outfile_abort(&b->of);
        batch_free(b);
        free(b);
        return rc;
    }
    pthread_mutex_init(&b->mu, NULL);
    cli_progress_start(&b->prog, b->ntasks, a->quiet);
    b->prog.unit = "pair";
    b->prog.rate_unit = "pairs/s";
    const double t0 = cli_now();
    const sched_ops ops = {worker_init, worker_run, worker_fini, task_unrun};
    const int64_t ran = sched_run(&ops, b, b->nworkers, b->ntasks);
    const double secs = cli_now() - t0;
    cli_progress_finish(&b->prog);
    pthread_mutex_destroy(&b->mu);

    if (ran < 0)
        cli_error(NULL, "cannot start the worker threads");
    if (b->out_failed) {
        fovea_outfile_abort(&b->of);
        cli_error(cli_display_path(a->json_lines, 1), "write error");
        rc = CLI_EXIT_RUNTIME;
    } else if (fovea_outfile_commit(NULL, &b->of) < 0) {
        rc = cli_report(a->json_lines, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
    }
    if (rc == CLI_EXIT_OK && (b->failed > 0 || ran < 0))
        rc = CLI_EXIT_RUNTIME;

    char shard[96] = "";
    if (a->shard_count > 1)
        snprintf(shard, sizeof(shard), " (shard %lld/%lld of %lld pairs)",
                 (long long)a->shard_index, (long long)a->shard_count, (long long)b->mf.n);
    char workers[64];
    const sched_worker *w0 = &b->worker[0];
    if (w0->backend == FOVEA_BACKEND_CPU)
        snprintf(workers, sizeof(workers), "%d CPU worker%s x %d thread%s", b->nworkers,
                 b->nworkers == 1 ? "" : "s", w0->threads, w0->threads == 1 ? "" : "s");
    else
        snprintf(workers, sizeof(workers), "%d CUDA worker%s", b->nworkers,
                 b->nworkers == 1 ? "" : "s");
    cli_summary(a->quiet, strcmp(a->json_lines, "-") == 0,
                "vmaf: %lld pair%s%s: %lld scored, %lld failed  (%s, %.2f s)",
                (long long)b->ntasks, b->ntasks == 1 ? "" : "s", shard,
                (long long)(b->done - b->failed), (long long)b->failed, workers, secs);
    batch_free(b);
    free(b);
    return rc;
}

int cmd_vmaf(int argc, char **argv)
{
    vmaf_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc < 0)
        return CLI_EXIT_OK; /* --help */
    if (rc != CLI_EXIT_OK)
        return rc;
    return a.manifest ? run_batch(&a) : run_single(&a);
}
