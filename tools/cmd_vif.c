/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea vif REF DIS`: libvmaf's integer VIF per frame and pooled, with JSON in
 * libvmaf's layout, CSV and a PNG chart of the scales over time: the feature
 * list "vif" through the pipeline of `fovea vmaf` (vmaf_pair.c); what is its
 * own here is its options, its JSON members, its chart and its summary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vmaf_pair.h"

/* The scales of libvmaf's integer VIF: its first outputs. */
#define VIF_SCALES 4

enum { OPT_CSV = 1, OPT_PLOT, OPT_GAIN, OPT_DEBUG };

static const cli_option options[] = {
    CLI_INPUT_OPTIONS_NO_FPS,
    CLI_MATCH_FRAMES_OPTION,
    VMAF_PAIR_OPTIONS,
    CLI_OPTION_FRAMES("read at most N frame pairs (after --start); 0 = all"),
    CLI_OPTION_BACKEND,
    CLI_OPTION_THREADS,
    CLI_OPTION_JSON("write per-frame and pooled scores in libvmaf's JSON layout; '-' = stdout"),
    {"csv", 0, "FILE", "write per-frame scores as CSV; '-' = stdout", "none", OPT_CSV},
    {"plot", 0, "FILE.png",
     "draw the scales per frame as a 1200x500 PNG chart, the 5 lowest frames of scale 0 "
     "marked",
     "none", OPT_PLOT},
    {"gain-limit", 0, "X", "libvmaf's vif_enhn_gain_limit, 1.0 (no gain) to 100.0", "100.0",
     OPT_GAIN},
    {"debug", 0, NULL, "also output the numerator/denominator per scale (libvmaf debug=true)",
     "off", OPT_DEBUG},
    {"quiet", 'q', NULL,
     "do not show progress, nor the summary line when --json or --csv "
     "carries the scores",
     "progress on stderr when it is a terminal, a summary line with the "
     "mean scores at the end",
     CLI_OPT_QUIET},
    {0},
};

static const cli_spec spec = {
    "vif",
    "[options] REF DIS\n"
    "       fovea vif [options] -r REF -d DIS",
    "Score DIS against REF with libvmaf's integer VIF (feature 'vif':\n"
    "integer_vif_scale0..3), bit-exact with libvmaf. Only luma is read; 8 to 16 bit,\n"
    "any chroma layout. Both inputs must have the same size and bit depth; when\n"
    "their frame counts differ the common prefix is scored (with a warning). Raw\n"
    "input options apply to both files.",
    options,
    "Examples:\n"
    "  fovea vif ref.y4m dis.y4m\n"
    "  fovea vif --json out.json --plot vif.png ref.y4m dis.y4m\n"
    "  fovea vif -s 1920x1080 --pixfmt i420 --frames 100 --csv - ref.yuv dis.yuv\n"
    "  fovea vif -r ref.y4m -d dis.y4m --start 10 --subsample 2\n"
    "\n"
    "Exit status: 0 success, 1 runtime error (an input without frames is one: there\n"
    "is no score), 2 usage error.",
};

typedef struct vif_args {
    cli_common_opts opt; /* --backend, --threads, --frames, --start, --quiet, --json */
    cli_input_opts in;
    int subsample;                   /* --subsample N; 0 = every frame */
    const char *ref_flag, *dis_flag; /* -r/--reference, -d/--distorted */
    const char *csv, *plot;
    double gain;
    int debug;
    const char *ref_path, *dis_path;
    score_outputs *outs; /* opened before the scoring */
} vif_args;

/* One of the command's own options. @return 0, or CLI_EXIT_USAGE (printed) */
static int parse_option(vif_args *a, int id, const char *v)
{
    const char *cmd = spec.name;
    switch (id) {
    case OPT_CSV: a->csv = v; return 0;
    case OPT_PLOT:
        if (score_check_plot_name(cmd, v) != CLI_EXIT_OK)
            return CLI_EXIT_USAGE;
        a->plot = v;
        return 0;
    case OPT_GAIN:
        return cli_parse_double(cmd, "--gain-limit", v, 1.0, 100.0, &a->gain) < 0 ? CLI_EXIT_USAGE
                                                                                  : 0;
    case OPT_DEBUG: a->debug = 1; return 0;
    default: return CLI_EXIT_USAGE; /* not in the table */
    }
}

static int parse_args(vif_args *a, int argc, char **argv)
{
    const char *cmd = spec.name;
    cli_parser p;
    const char *v;
    int id;

    memset(a, 0, sizeof(*a));
    cli_common_opts_init(&a->opt);
    cli_input_opts_init(&a->in);
    a->gain = 100.0;

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
    return vmaf_pair_args(cmd, "", p.rest, p.nrest, a->ref_flag, a->dis_flag, &a->in, NULL,
                          a->opt.json, a->csv, a->plot, &a->ref_path, &a->dis_path);
}

/* ------------------------------------------------------------------ outputs */

/* libvmaf's JSON layout through the library's writer, with the run's
 * description. @return CLI_EXIT_OK or CLI_EXIT_RUNTIME (printed) */
static int write_json(const vif_args *a, const fovea_video_info *info, const fovea_vmaf *v,
                      double fps, int threads, const char *backend)
{
    const fovea_vmaf_field f[] = {
        {"version", FOVEA_VMAF_FIELD_STRING, fovea_version(), 0},
        {"feature", FOVEA_VMAF_FIELD_STRING, "vif (libvmaf integer VIF)", 0},
        {"backend", FOVEA_VMAF_FIELD_STRING, backend, 0},
        {"threads", FOVEA_VMAF_FIELD_NUMBER, NULL, threads},
        {"vif_enhn_gain_limit", FOVEA_VMAF_FIELD_EXACT, NULL, a->gain},
        {"debug", FOVEA_VMAF_FIELD_BOOL, NULL, a->debug},
        {"reference", FOVEA_VMAF_FIELD_STRING, a->ref_path, 0},
        {"distorted", FOVEA_VMAF_FIELD_STRING, a->dis_path, 0},
        {"width", FOVEA_VMAF_FIELD_NUMBER, NULL, info->width},
        {"height", FOVEA_VMAF_FIELD_NUMBER, NULL, info->height},
        {"pixfmt", FOVEA_VMAF_FIELD_STRING, fovea_pixfmt_name(info->fmt), 0},
        {"frames", FOVEA_VMAF_FIELD_NUMBER, NULL, (double)fovea_vmaf_kept_frames(v)},
        /* what was read, when not every frame from the first */
        {"start", FOVEA_VMAF_FIELD_NUMBER, NULL, (double)a->opt.start},
        {"subsample", FOVEA_VMAF_FIELD_NUMBER, NULL, a->subsample},
    };
    const int nf = (int)(sizeof f / sizeof f[0]) - (a->opt.start > 0 || a->subsample > 1 ? 0 : 2);
    const fovea_vmaf_output o = {fps, f, nf};
    return score_write_vmaf(&a->outs->of[SCORE_OUT_JSON], a->opt.json, v, FOVEA_VMAF_OUTPUT_JSON,
                            &o);
}

/* ------------------------------------------------------------------ plot */

/* The four scales against the frame number on a fixed 0..1 axis (further up
 * when the gain limit lets scores pass 1), so that runs compare at a glance;
 * scale 0, the finest and the one distortions move most, drawn on top with its
 * lowest frames marked. */
static int write_plot(const vif_args *a, const fovea_video_info *info, int bit_depth,
                      const fovea_vmaf *v, const fovea_vmaf_pooled_scores *pl)
{
    static const uint32_t colors[VIF_SCALES] = {0xd62728, 0xff7f0e, 0x2ca02c, 0x1f77b4};
    const int64_t n = fovea_vmaf_kept_frames(v);
    enum { LOWEST = 5 };
    chart c;
    chart_init(&c);
    double *y = NULL;
    if (n > 0 && (uint64_t)n <= SIZE_MAX / VIF_SCALES / sizeof(double))
        y = malloc((size_t)n * VIF_SCALES * sizeof(double));
    if (n > 0 && !y) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    char names[VIF_SCALES][48];
    double ymax = 1.0;
    for (int s = 0; s < VIF_SCALES; s++) {
        double *ys = y ? y + (size_t)s * (size_t)n : NULL;
        for (int64_t i = 0; i < n; i++) {
            ys[i] = fovea_vmaf_kept_values(v, i)[s];
            if (isfinite(ys[i]) && ys[i] > ymax)
                ymax = ys[i];
        }
        if (n > 0)
            snprintf(names[s], sizeof(names[s]), "scale %d (mean %.4f)", s, pl->metric[s].mean);
        else
            snprintf(names[s], sizeof(names[s]), "scale %d", s);
        chart_add_series(&c, names[s], colors[s], ys, (size_t)n);
    }
    c.y_min = 0;
    c.y_max = ymax > 1.0 ? NAN : 1.0;

    char title[1024], subtitle[256], marks[64];
    const char *rn, *dn;
    score_plot_names(a->ref_path, a->dis_path, &rn, &dn);
    snprintf(title, sizeof(title), "VIF: %s against %s", dn, rn);
    snprintf(subtitle, sizeof(subtitle),
             "%dx%d %d-bit, %lld frame%s; libvmaf integer VIF, gain limit %g; fovea %s",
             info->width, info->height, bit_depth, (long long)n, n == 1 ? "" : "s", a->gain,
             fovea_version());
    c.title = title;
    c.subtitle = subtitle;
    char xlabel[64];
    snprintf(xlabel, sizeof(xlabel), "scored frame (frame number / %d)", a->subsample);
    c.xlabel = a->subsample > 1 ? xlabel : "frame";
    c.ylabel = "VIF";
    c.mark_series = 0;
    c.nmarks = chart_lowest(y, (size_t)n, c.marks, LOWEST);
    snprintf(marks, sizeof(marks), "%d lowest frames of scale 0", c.nmarks);
    c.mark_label = c.nmarks > 0 ? marks : NULL;

    const int rc = score_write_chart(&a->outs->of[SCORE_OUT_PLOT], a->plot, &c);
    free(y);
    return rc;
}

/* The outputs asked for, then the summary. @return CLI_EXIT_OK or the exit code */
static int write_results(const void *args, const pair_job *j)
{
    const vif_args *a = args;
    const char *json = a->opt.json;
    const int64_t n = j->n;
    const double secs = j->secs;
    const double fps = secs > 0 ? (double)j->read / secs : 0.0;
    fovea_vmaf_pooled_scores pl;
    fovea_vmaf_pooled(j->vm, &pl);
    const char *backend = j->backend;
    const int threads = j->threads;
    int rc = CLI_EXIT_OK;
    if (json)
        rc = write_json(a, &j->info, j->vm, fps, threads, backend);
    if (rc == CLI_EXIT_OK && a->csv)
        rc = score_write_vmaf(&a->outs->of[SCORE_OUT_CSV], a->csv, j->vm, FOVEA_VMAF_OUTPUT_CSV,
                              NULL);
    if (rc == CLI_EXIT_OK && a->plot)
        rc = write_plot(a, &j->info, j->bit_depth, j->vm, &pl);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* the summary goes to stderr when stdout carries JSON or CSV; --quiet
     * drops it only when those carry the scores (else it is the result) */
    char of[64] = "";
    if (a->subsample > 1)
        snprintf(of, sizeof(of), " (1 in %d of %lld read)", a->subsample, (long long)j->read);
    cli_summary(a->opt.quiet && (json || a->csv),
                (json && strcmp(json, "-") == 0) || (a->csv && strcmp(a->csv, "-") == 0),
                "vif: %lld %s%s %dx%d %d-bit  mean scale0 %.6f scale1 %.6f scale2 %.6f scale3 "
                "%.6f  (%s, %d thread%s, %.2f s, %.1f fps)",
                (long long)n, cli_frames_word(n), of, j->info.width, j->info.height, j->bit_depth,
                pl.metric[0].mean, pl.metric[1].mean, pl.metric[2].mean, pl.metric[3].mean, backend,
                threads, threads == 1 ? "" : "s", secs, fps);
    return CLI_EXIT_OK;
}

int cmd_vif(int argc, char **argv)
{
    vif_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc < 0)
        return CLI_EXIT_OK; /* --help */
    if (rc != CLI_EXIT_OK)
        return rc;

    /* the feature list "vif" through the pipeline of `fovea vmaf`; the names
     * stay plain whatever the gain limit, as this command always printed them */
    char features[128];
    snprintf(features, sizeof features, "vif:vif_enhn_gain_limit=%.17g:debug=%s", a.gain,
             a.debug ? "true" : "false");
    pair_job *j = calloc(1, sizeof(*j));
    if (!j) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    j->ref = a.ref_path;
    j->dis = a.dis_path;
    j->features = features;
    j->flags = FOVEA_VMAF_NO_SUFFIX;
    j->metric = "VIF";
    j->subsample = a.subsample;
    score_outputs outs;
    a.outs = &outs;
    rc = score_outputs_open(&outs, a.opt.json, a.csv, a.plot);
    if (rc == CLI_EXIT_OK)
        rc = vmaf_pair_run(spec.name, &a.opt, &a.in, j, write_results, &a);
    score_outputs_close(&outs);
    free(j);
    return rc;
}
