/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea vmaf REF DIS`: libvmaf's VMAF (a model's features and score) per
 * frame and pooled, JSON in libvmaf's layout, CSV and a PNG chart; and
 * `fovea vmaf --manifest FILE`: many pairs spread over every GPU (or CPU
 * workers), one JSON line per pair as it finishes, shardable over machines. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vmaf_pair.h"

enum {
    OPT_MODEL = 1,
    OPT_CSV,
    OPT_PLOT,
    OPT_FEATURE_ONLY,
    OPT_MANIFEST,
    OPT_SHARD,
    OPT_DEVICES,
    OPT_JOBS,
    OPT_JSON_LINES,
    OPT_FEATURE,
    OPT_NO_PREDICTION
};

#define DEFAULT_MODEL "version=vmaf_v0.6.1"

static const cli_option options[] = {
    CLI_INPUT_OPTIONS_NO_FPS,
    CLI_MATCH_FRAMES_OPTION,
    {"model", 'm', "FILE|PARAMS",
     "libvmaf JSON model file, or libvmaf's model parameters (below); repeatable: each "
     "model's score is named by its name=",
     DEFAULT_MODEL, OPT_MODEL},
    {"feature", 0, "NAME[=OPT=VAL:...]",
     "also compute feature NAME with libvmaf's options (repeatable), e.g. vif=vif_enhn_gain_limit=1",
     "none", OPT_FEATURE},
    VMAF_PAIR_OPTIONS,
    CLI_OPTION_FRAMES("read at most N frame pairs (after --start); 0 = all"),
    CLI_OPTION_BACKEND,
    {"threads", 0, "N",
     "CPU threads (per worker with --manifest); 0 = one per CPU (shared "
     "among the workers)",
     "0", CLI_OPT_THREADS},
    CLI_OPTION_JSON("write per-frame and pooled metrics in libvmaf's JSON layout; '-' = "
                    "stdout"),
    {"csv", 0, "FILE", "write per-frame metrics as CSV; '-' = stdout", "none", OPT_CSV},
    {"plot", 0, "FILE.png",
     "draw VMAF per frame as a 1200x500 PNG chart, the 5 lowest frames marked (with "
     "--feature-only: the model's features)",
     "none", OPT_PLOT},
    {"feature-only", 0, NULL,
     "compute the model's features, not the score (libvmaf's "
     "--no_prediction); with --feature and no --model: only those features",
     "off", OPT_FEATURE_ONLY},
    {"no_prediction", 'n', NULL, "the same as --feature-only (libvmaf's spelling)", "off",
     OPT_NO_PREDICTION},
    {"quiet", 'q', NULL,
     "do not show progress, nor the summary line when --json, --csv or "
     "--json-lines carries the scores",
     "progress on stderr when it is a terminal, a summary "
     "line at the end",
     CLI_OPT_QUIET},
    {"manifest", 0, "FILE",
     "score the pairs listed in FILE (CSV with a header ref,dis[,id]"
     "[,model][,frames][,features], or JSON lines; '-' = stdin) instead of REF DIS",
     "none", OPT_MANIFEST},
    {"shard", 0, "I/N",
     "with --manifest: score pairs I, I+N, I+2N, ... (0-based, 0 <= I < N), "
     "e.g. I=$SLURM_ARRAY_TASK_ID",
     "0/1 (all)", OPT_SHARD},
    {"devices", 0, "LIST", "with --manifest: the CUDA devices to use, e.g. 0,1",
     "every visible device; the CPU when there is none", OPT_DEVICES},
    {"jobs", 'j', "N", "with --manifest: pairs in flight per GPU, or CPU workers",
     "2 per GPU; one CPU worker per 4 CPUs", OPT_JOBS},
    {"json-lines", 0, "FILE",
     "with --manifest: where the JSON line of each pair goes; '-' = "
     "stdout",
     "-", OPT_JSON_LINES},
    {0},
};

static cli_spec spec = {
    "vmaf",
    "[options] REF DIS\n"
    "       fovea vmaf [options] -r REF -d DIS\n"
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
    "  fovea vmaf -r ref.y4m -d dis.y4m --start 100 --frames 300 --subsample 5\n"
    "  fovea vmaf --model my_model.json --csv - -s 1920x1080 --pixfmt i420 ref.yuv dis.yuv\n"
    "  fovea vmaf -m version=vmaf_v0.6.1 -m version=vmaf_v0.6.1neg:name=vmaf_neg ref.y4m dis.y4m\n"
    "  fovea vmaf --feature psnr --feature float_ssim=enable_db=true ref.y4m dis.y4m\n"
    "  fovea vmaf --feature-only --feature vif=debug=true ref.y4m dis.y4m\n"
    "  fovea vmaf --manifest pairs.csv --json-lines results.jsonl\n"
    "  fovea vmaf --manifest pairs.csv --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\n"
    "\n"
    "Exit status: 0 success, 1 runtime error (an input without frames is one: there\n"
    "is no score; with --manifest: any pair that failed, after the others were\n"
    "scored, or a malformed manifest), 2 usage error.",
};

/* --feature NAME[=OPT=VAL:OPT=VAL] (libvmaf's syntax) appended to the
 * settings.features list "NAME:OPT=VAL:OPT=VAL,...". @return 0 or
 * CLI_EXIT_USAGE (printed) */
static int add_feature(vmaf_args *a, const char *v)
{
    const char *cmd = spec.name;
    const size_t name_len = strcspn(v, "=");
    if (name_len == 0 || strchr(v, ','))
        return cli_usage_error(cmd, "--feature: expected NAME[=OPTION=VALUE:...], got '%s'", v);
    size_t k = strlen(a->features);
    const int n =
        snprintf(a->features + k, sizeof a->features - k, "%s%.*s%s%s", k ? "," : "", (int)name_len,
                 v, v[name_len] ? ":" : "", v[name_len] ? v + name_len + 1 : "");
    if (n < 0 || (size_t)n >= sizeof a->features - k)
        return cli_usage_error(cmd, "--feature: the features are too long");
    return 0;
}

/* One of the command's own options. @return 0, or CLI_EXIT_USAGE (printed) */
static int parse_option(vmaf_args *a, int id, const char *v)
{
    const char *cmd = spec.name;
    switch (id) {
    case OPT_MODEL:
        if (!*v || strcmp(v, "version=") == 0 || strcmp(v, "path=") == 0)
            return cli_usage_error(cmd, "--model: expected FILE, path=FILE or version=NAME");
        if (!a->model_given) {
            a->model = v;
            a->model_given = 1;
        } else if (a->n_more_models < (int)(sizeof a->more_models / sizeof a->more_models[0])) {
            a->more_models[a->n_more_models++] = v;
        } else {
            return cli_usage_error(cmd, "--model: at most %d models",
                                   1 + (int)(sizeof a->more_models / sizeof a->more_models[0]));
        }
        return 0;
    case OPT_FEATURE: return add_feature(a, v);
    case OPT_NO_PREDICTION: a->feature_only = 1; return 0;
    case OPT_CSV: a->csv = v; return 0;
    case OPT_PLOT:
        if (score_check_plot_name(cmd, v) != CLI_EXIT_OK)
            return CLI_EXIT_USAGE;
        a->plot = v;
        return 0;
    case OPT_FEATURE_ONLY: a->feature_only = 1; return 0;
    case OPT_MANIFEST: a->manifest = v; return 0;
    case OPT_SHARD:
        if (sched_parse_shard(v, &a->shard_index, &a->shard_count) < 0)
            return cli_usage_error(cmd,
                                   "--shard: expected I/N with 0 <= I < N (e.g. 0/4), "
                                   "got '%s'",
                                   v);
        a->shard_given = 1;
        return 0;
    case OPT_DEVICES:
        a->ndevices = sched_parse_devices(v, a->devices, SCHED_MAX_DEVICES);
        if (a->ndevices < 0)
            return cli_usage_error(cmd,
                                   "--devices: expected distinct CUDA device indices "
                                   "separated by commas (e.g. 0,1), got '%s'",
                                   v);
        return 0;
    case OPT_JOBS:
        return cli_parse_int32(cmd, "--jobs", v, 1, SCHED_MAX_WORKERS, &a->jobs) < 0
                   ? CLI_EXIT_USAGE
                   : 0;
    case OPT_JSON_LINES: a->json_lines = v; return 0;
    default: return CLI_EXIT_USAGE; /* not in the table */
    }
}

/* With --manifest: no REF DIS, none of the single pair's outputs. */
static int check_manifest_args(vmaf_args *a, int nrest)
{
    const char *cmd = spec.name;
    if (nrest != 0 || a->ref_flag || a->dis_flag)
        return cli_usage_error(cmd,
                               "--manifest names the pairs: no REF DIS arguments "
                               "(got %d%s)",
                               nrest, a->ref_flag || a->dis_flag ? " and -r/-d" : "");
    const char *single = a->opt.json ? "--json" : a->csv ? "--csv" : a->plot ? "--plot" : NULL;
    if (single)
        return cli_usage_error(cmd,
                               "%s is for one pair; with --manifest each pair's "
                               "results go to --json-lines",
                               single);
    if (a->ndevices > 0 && a->opt.backend == FOVEA_BACKEND_CPU)
        return cli_usage_error(cmd, "--devices picks CUDA devices: not with --backend cpu");
    if (!a->json_lines)
        a->json_lines = "-";
    if (cli_refuse_same_file(a->json_lines, a->manifest))
        return CLI_EXIT_USAGE;
    return CLI_EXIT_OK;
}

/* The examples and the built-in models (the library's list) after the options. */
static void set_notes(void)
{
    static char notes[4096];
    static const char *examples = NULL;
    if (!examples)
        examples = spec.notes;
    size_t k =
        (size_t)snprintf(notes, sizeof notes,
                         "Model parameters (libvmaf's --model syntax, ':' between them):\n"
                         "  version=NAME     a built-in model (a bare NAME works too)\n"
                         "  path=FILE        a libvmaf JSON model file\n"
                         "  name=NAME        the name its score is reported under "
                         "(default vmaf)\n"
                         "  enable_transform apply its score_transform; disable_clip: do "
                         "not clip\n"
                         "  FEATURE.OPTION=VALUE  a feature option of the model, e.g.\n"
                         "                   version=vmaf_v1.0.16_3d0h:cambi.enc_width=1280\n"
                         "Built-in models:");
    for (int i = 0; fovea_builtin_vmaf_model(i) && k < sizeof notes; i++)
        k += (size_t)snprintf(notes + k, sizeof notes - k, "%s%s", i % 3 ? " " : "\n  ",
                              fovea_builtin_vmaf_model(i));
    if (k < sizeof notes)
        snprintf(notes + k, sizeof notes - k, "\n\n%s", examples);
    spec.notes = notes;
}

static int parse_args(vmaf_args *a, int argc, char **argv)
{
    const char *cmd = spec.name;
    cli_parser p;
    const char *v;
    int id;

    memset(a, 0, sizeof(*a));
    set_notes();
    cli_common_opts_init(&a->opt);
    cli_input_opts_init(&a->in);
    a->model = DEFAULT_MODEL;
    a->shard_count = 1;

    cli_parser_init(&p, &spec, argc, argv);
    while ((id = cli_next(&p, &v)) > 0) {
        int shared = cli_common_option(&a->opt, &a->in, cmd, id, v);
        if (shared == 0)
            shared = vmaf_pair_option(cmd, id, v, &a->subsample, &a->ref_flag, &a->dis_flag);
        if (shared < 0 || (shared == 0 && parse_option(a, id, v) != 0))
            return CLI_EXIT_USAGE;
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end;
    /* --feature without --model with --feature-only: the features alone */
    if (a->features[0] && a->feature_only && !a->model_given && !a->manifest)
        a->model = NULL;
    if (a->n_more_models && a->manifest)
        return cli_usage_error(cmd, "--manifest takes one --model (a row may name its own)");

    if (a->manifest)
        return check_manifest_args(a, p.nrest);
    const char *batch_only = a->shard_given  ? "--shard"
                             : a->ndevices   ? "--devices"
                             : a->jobs       ? "--jobs"
                             : a->json_lines ? "--json-lines"
                                             : NULL;
    if (batch_only)
        return cli_usage_error(cmd, "%s goes with --manifest", batch_only);
    return vmaf_pair_args(cmd, " (or --manifest FILE)", p.rest, p.nrest, a->ref_flag, a->dis_flag,
                          &a->in, a->model, a->opt.json, a->csv, a->plot, &a->ref_path,
                          &a->dis_path);
}

/* ------------------------------------------------------------------ single pair: outputs */

/* The models as shown: their labels, ", " between; "none". */
static const char *models_label(const vmaf_args *a, char *buf, size_t n)
{
    if (!a->model)
        return "none";
    size_t k = (size_t)snprintf(buf, n, "%s", vmaf_model_label(a->model));
    for (int i = 0; i < a->n_more_models && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, ", %s", vmaf_model_label(a->more_models[i]));
    return buf;
}

static int write_json(const vmaf_args *a, const pair_job *j, double fps)
{
    char label[2048];
    const fovea_vmaf_field f[] = {
        {"version", FOVEA_VMAF_FIELD_STRING, fovea_version(), 0},
        {"model", FOVEA_VMAF_FIELD_STRING, models_label(a, label, sizeof label), 0},
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
        /* what was read, when not every frame from the first */
        {"start", FOVEA_VMAF_FIELD_NUMBER, NULL, (double)a->opt.start},
        {"subsample", FOVEA_VMAF_FIELD_NUMBER, NULL, a->subsample},
    };
    const int nf = (int)(sizeof f / sizeof f[0]) - (a->opt.start > 0 || a->subsample > 1 ? 0 : 2);
    const fovea_vmaf_output o = {fps, f, nf};
    return score_write_vmaf(&a->outs->of[SCORE_OUT_JSON], a->opt.json, j->vm,
                            FOVEA_VMAF_OUTPUT_JSON, &o);
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
    char label[2048];
    const int64_t n = j->n;
    const int si = vmaf_pair_score_index(j);
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
            if (strncmp(j->names[col[s]], plot_features[k].name, strlen(plot_features[k].name)) ==
                0)
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
    snprintf(title, sizeof(title), "%s: %s against %s", si >= 0 ? "VMAF" : "VMAF features", dn, rn);
    snprintf(subtitle, sizeof(subtitle), "%dx%d %d-bit, %lld frame%s; model %s; fovea %s",
             j->info.width, j->info.height, j->bit_depth, (long long)n, n == 1 ? "" : "s",
             models_label(a, label, sizeof label), fovea_version());
    c.title = title;
    c.subtitle = subtitle;
    char xlabel[64];
    snprintf(xlabel, sizeof(xlabel), "scored frame (frame number / %d)", a->subsample);
    c.xlabel = a->subsample > 1 ? xlabel : "frame";
    c.ylabel = si >= 0 ? "VMAF" : "feature value";
    c.mark_series = 0;
    c.nmarks = chart_lowest(y, (size_t)n, c.marks, LOWEST);
    snprintf(marks, sizeof(marks), "%d lowest frames%s%s", c.nmarks, si >= 0 ? "" : " of ",
             si >= 0 ? "" : j->names[col[0]]);
    c.mark_label = c.nmarks > 0 ? marks : NULL;
    const int rc = score_write_chart(&a->outs->of[SCORE_OUT_PLOT], a->plot, &c);
    free(y);
    return rc;
}

/* The outputs asked for, then the summary (vmaf_pair_run's results). */
static int write_results(const void *args, const pair_job *j)
{
    const vmaf_args *a = args;
    const char *json = a->opt.json;
    const double fps = j->secs > 0 ? (double)j->read / j->secs : 0.0;
    int rc = CLI_EXIT_OK;
    if (json)
        rc = write_json(a, j, fps);
    if (rc == CLI_EXIT_OK && a->csv)
        rc = score_write_vmaf(&a->outs->of[SCORE_OUT_CSV], a->csv, j->vm, FOVEA_VMAF_OUTPUT_CSV,
                              NULL);
    if (rc == CLI_EXIT_OK && a->plot)
        rc = write_plot(a, j);
    if (rc != CLI_EXIT_OK)
        return rc;

    char what[2048];
    const int si = vmaf_pair_score_index(j);
    if (si >= 0) {
        snprintf(what, sizeof(what), "VMAF mean %.6f min %.6f harmonic mean %.6f", j->pool[si].mean,
                 j->pool[si].min, j->pool[si].harmonic_mean);
    } else {
        size_t k = (size_t)snprintf(what, sizeof(what), "mean");
        for (int m = 0; m < j->nmetrics && k < sizeof(what); m++)
            k += (size_t)snprintf(what + k, sizeof(what) - k, " %s %.6f", j->names[m],
                                  j->pool[m].mean);
    }
    /* the summary goes to stderr when stdout carries JSON or CSV; --quiet
     * drops it only when those carry the scores (else it is the result) */
    char of[64] = "";
    if (a->subsample > 1)
        snprintf(of, sizeof(of), " (1 in %d of %lld read)", a->subsample, (long long)j->read);
    cli_summary(a->opt.quiet && (json || a->csv),
                (json && strcmp(json, "-") == 0) || (a->csv && strcmp(a->csv, "-") == 0),
                "vmaf: %lld %s%s %dx%d %d-bit  %s  (%s, %d thread%s, %.2f s, %.1f fps)",
                (long long)j->n, cli_frames_word(j->n), of, j->info.width, j->info.height,
                j->bit_depth, what, j->backend, j->threads, j->threads == 1 ? "" : "s", j->secs,
                fps);
    return CLI_EXIT_OK;
}

/* An unknown feature or option, or two models of one name, are bad
 * arguments (exit 2): open the settings once on a CPU context before any
 * input is read. */
static int check_settings(const vmaf_args *a, const pair_job *j)
{
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    cs.threads = 1;
    fovea_context *ctx = NULL;
    if (fovea_open(&ctx, &cs) < 0)
        return CLI_EXIT_OK; /* the run says why */
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    s.model = j->model;
    s.models = j->more_models;
    s.n_models = j->n_more_models;
    s.features = j->features;
    s.flags = a->feature_only ? FOVEA_VMAF_NO_PREDICTION : 0;
    fovea_vmaf *v = NULL;
    const int st = fovea_vmaf_open(&v, ctx, &s);
    int rc = CLI_EXIT_OK;
    if (st == FOVEA_ERR_INVALID_ARG)
        rc = cli_usage_error(spec.name, "%s", fovea_last_error(ctx));
    fovea_vmaf_close(&v);
    fovea_close(&ctx);
    return rc;
}

static int run_single(const vmaf_args *a)
{
    char err[2048];
    fovea_vmaf_model *model = NULL, *more[8] = {NULL};
    int st = a->model ? vmaf_load_model(a->model, &model, err, sizeof(err)) : FOVEA_OK;
    for (int k = 0; k < a->n_more_models && st >= 0; k++)
        st = vmaf_load_model(a->more_models[k], &more[k], err, sizeof(err));
    if (st < 0) {
        fovea_vmaf_model_close(&model);
        for (int k = 0; k < a->n_more_models; k++)
            fovea_vmaf_model_close(&more[k]);
        /* an unknown built-in name, parameter, feature or option is a bad
         * option value: a usage error */
        if (st == FOVEA_ERR_INVALID_ARG)
            return cli_usage_error(spec.name, "%s", err);
        cli_error(NULL, "%s", err);
        return CLI_EXIT_RUNTIME;
    }
    pair_job *j = calloc(1, sizeof(*j));
    int rc = CLI_EXIT_RUNTIME;
    if (!j) {
        cli_error(NULL, "out of memory");
    } else {
        j->ref = a->ref_path;
        j->dis = a->dis_path;
        j->model = model;
        j->more_models = (const fovea_vmaf_model *const *)more;
        j->n_more_models = a->n_more_models;
        j->features = a->features[0] ? a->features : NULL;
        j->feature_only = a->feature_only;
        j->subsample = a->subsample;
        rc = check_settings(a, j);
        if (rc == CLI_EXIT_OK) {
            rc = score_outputs_open(a->outs, a->opt.json, a->csv, a->plot);
            if (rc == CLI_EXIT_OK)
                rc = vmaf_pair_run(spec.name, &a->opt, &a->in, j, write_results, a);
            score_outputs_close(a->outs);
        }
        free(j);
    }
    fovea_vmaf_model_close(&model);
    for (int k = 0; k < a->n_more_models; k++)
        fovea_vmaf_model_close(&more[k]);
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
    score_outputs outs;
    a.outs = &outs;
    return a.manifest ? vmaf_run_batch(&a) : run_single(&a);
}
