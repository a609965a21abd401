/* `fovea vif REF DIS`: libvmaf's integer VIF per frame and pooled, with JSON in
 * libvmaf's layout, CSV and a PNG chart of the scales over time. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chart.h"
#include "cli.h"
#include "fovea/quality.h"

enum {
    OPT_FRAMES = 1,
    OPT_BACKEND,
    OPT_THREADS,
    OPT_JSON,
    OPT_CSV,
    OPT_PLOT,
    OPT_GAIN,
    OPT_DEBUG,
    OPT_QUIET
};

static const cli_option options[] = {
    CLI_INPUT_OPTIONS_NO_FPS,
    {"frames", 0, "N", "score at most N frame pairs; 0 = all", "0", OPT_FRAMES},
    {"backend", 0, "B", "auto, cpu or cuda",
     "auto", OPT_BACKEND},
    {"threads", 0, "N", "CPU threads; 0 = one per CPU", "0", OPT_THREADS},
    {"json", 0, "FILE", "write per-frame and pooled scores in libvmaf's JSON layout; '-' = stdout",
     "none", OPT_JSON},
    {"csv", 0, "FILE", "write per-frame scores as CSV; '-' = stdout", "none", OPT_CSV},
    {"plot", 0, "FILE.png",
     "draw the scales per frame as a 1200x500 PNG chart, the 5 lowest frames of scale 0 "
     "marked", "none", OPT_PLOT},
    {"gain-limit", 0, "X", "libvmaf's vif_enhn_gain_limit, 1.0 (no gain) to 100.0", "100.0",
     OPT_GAIN},
    {"debug", 0, NULL, "also output the numerator/denominator per scale (libvmaf debug=true)",
     "off", OPT_DEBUG},
    {"quiet", 'q', NULL, "do not show progress, nor the summary line when --json or --csv "
     "carries the scores", "progress on stderr when it is a terminal, a summary line with the "
     "mean scores at the end", OPT_QUIET},
    {0},
};

static const cli_spec spec = {
    "vif",
    "[options] REF DIS",
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
    "\n"
    "Exit status: 0 success, 1 runtime error (an input without frames is one: there\n"
    "is no score), 2 usage error.",
};

typedef struct vif_args {
    cli_input_opts in;
    long long frames; /* -1 = all (--frames 0) */
    fovea_backend backend;
    int threads;
    const char *json, *csv, *plot;
    double gain;
    int debug, quiet;
    const char *ref_path, *dis_path;
} vif_args;

/* --plot is refused before any work: the name must end in .png (the chart is
 * a PNG whatever the name says) and the build must be able to draw. */
static int check_plot_name(const char *cmd, const char *v)
{
    const size_t n = strlen(v);
    if (!chart_available())
        return cli_usage_error(cmd, "--plot needs a build with cairo (libcairo2-dev)");
    if (n < 4 || strcasecmp(v + n - 4, ".png") != 0)
        return cli_usage_error(cmd, "%s: --plot writes PNG: use a .png name", v);
    return CLI_EXIT_OK;
}

static int parse_args(vif_args *a, int argc, char **argv)
{
    const char *cmd = spec.name;
    cli_parser p;
    const char *v;
    int id;

    memset(a, 0, sizeof(*a));
    cli_input_opts_init(&a->in);
    a->frames = -1;
    a->backend = FOVEA_BACKEND_AUTO;
    a->gain = FOVEA_VIF_ENHN_GAIN_LIMIT_MAX;

    cli_parser_init(&p, &spec, argc, argv);
    while ((id = cli_next(&p, &v)) > 0) {
        int bad = 0;
        switch (id) {
        case OPT_FRAMES:
            bad = cli_parse_int(cmd, "--frames", v, 0, INT64_MAX, &a->frames);
            if (!bad && a->frames == 0)
                a->frames = -1;
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
            if (check_plot_name(cmd, v) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            a->plot = v;
            break;
        case OPT_GAIN:
            bad = cli_parse_double(cmd, "--gain-limit", v, 1.0, FOVEA_VIF_ENHN_GAIN_LIMIT_MAX,
                                   &a->gain);
            break;
        case OPT_DEBUG:
            a->debug = 1;
            break;
        case OPT_QUIET:
            a->quiet = 1;
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
    if (p.nrest != 2)
        return cli_usage_error(cmd, "vif: expected REF and DIS, got %d argument%s", p.nrest,
                               p.nrest == 1 ? "" : "s");
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

/* ------------------------------------------------------------------ outputs */

#define N_DEBUG 11 /* integer_vif, _num, _den, then num/den of each scale */

static void feature_name(int f, char *buf, size_t n)
{
    if (f < FOVEA_VIF_SCALES)
        snprintf(buf, n, "integer_vif_scale%d", f);
    else if (f == 4)
        snprintf(buf, n, "integer_vif");
    else if (f == 5)
        snprintf(buf, n, "integer_vif_num");
    else if (f == 6)
        snprintf(buf, n, "integer_vif_den");
    else
        snprintf(buf, n, "integer_vif_%s_scale%d", (f - 7) % 2 ? "den" : "num", (f - 7) / 2);
}

static double feature_value(const fovea_vif_scores *s, int f)
{
    if (f < FOVEA_VIF_SCALES)
        return s->scale[f];
    if (f == 4)
        return s->vif;
    if (f == 5)
        return s->num_total;
    if (f == 6)
        return s->den_total;
    return (f - 7) % 2 ? s->den[(f - 7) / 2] : s->num[(f - 7) / 2];
}

/* A number as %.17g (round-trips exactly); JSON has no NaN/inf: null. */
static cJSON *json_number(double x)
{
    if (!isfinite(x))
        return cJSON_CreateNull();
    char buf[64];
    snprintf(buf, sizeof(buf), "%.17g", x);
    return cJSON_CreateRaw(buf);
}

/* A debug output pooled over frames 0..n-1 (n > 0) as fovea_vif_pooled pools
 * the scales: libvmaf's operations, in frame order. */
static fovea_vif_pool pool_feature(const fovea_vif_scores *sc, int64_t n, int f)
{
    double mn = 0, mx = 0, sum = 0, isum = 0;
    for (int64_t i = 0; i < n; i++) {
        const double x = feature_value(&sc[i], f);
        sum += x;
        isum += 1.0 / (x + 1.0);
        if (i == 0 || x < mn)
            mn = x;
        if (i == 0 || x > mx)
            mx = x;
    }
    const fovea_vif_pool q = {mn, mx, sum / (double)n, (double)n / isum - 1.0};
    return q;
}

static int write_json(const vif_args *a, const fovea_video_info *info, const fovea_vif_scores *sc,
                      int64_t n, const fovea_vif_pooled_scores *pl, double fps, int threads,
                      const char *backend)
{
    const int nfeat = FOVEA_VIF_SCALES + (a->debug ? N_DEBUG : 0);
    cJSON *root = cJSON_CreateObject();
    if (!root)
        goto nomem;
    char ver[64];
    snprintf(ver, sizeof(ver), "fovea %s", fovea_version());
    cJSON_AddStringToObject(root, "version", ver);
    cJSON_AddNumberToObject(root, "fps", fps);
    cJSON *frames = cJSON_AddArrayToObject(root, "frames");
    char name[64];
    for (int64_t i = 0; frames && i < n; i++) {
        cJSON *fr = cJSON_CreateObject();
        cJSON_AddItemToArray(frames, fr);
        cJSON_AddNumberToObject(fr, "frameNum", (double)i);
        cJSON *m = cJSON_AddObjectToObject(fr, "metrics");
        for (int f = 0; m && f < nfeat; f++) {
            feature_name(f, name, sizeof(name));
            cJSON_AddItemToObject(m, name, json_number(feature_value(&sc[i], f)));
        }
    }
    /* libvmaf's pooling (vmaf_feature_score_pooled): the scales' from the
     * scorer, the debug outputs' (which it does not pool) here */
    cJSON *pooled = cJSON_AddObjectToObject(root, "pooled_metrics");
    for (int f = 0; pooled && n > 0 && f < nfeat; f++) {
        const fovea_vif_pool q = f < FOVEA_VIF_SCALES ? pl->scale[f] : pool_feature(sc, n, f);
        feature_name(f, name, sizeof(name));
        cJSON *o = cJSON_AddObjectToObject(pooled, name);
        cJSON_AddItemToObject(o, "min", json_number(q.min));
        cJSON_AddItemToObject(o, "max", json_number(q.max));
        cJSON_AddItemToObject(o, "mean", json_number(q.mean));
        cJSON_AddItemToObject(o, "harmonic_mean", json_number(q.harmonic_mean));
    }
    cJSON_AddObjectToObject(root, "aggregate_metrics");
    cJSON *fv = cJSON_AddObjectToObject(root, "fovea");
    if (fv) {
        cJSON_AddStringToObject(fv, "version", fovea_version());
        cJSON_AddStringToObject(fv, "feature", "vif (libvmaf integer VIF)");
        cJSON_AddStringToObject(fv, "backend", backend);
        cJSON_AddNumberToObject(fv, "threads", threads);
        cJSON_AddItemToObject(fv, "vif_enhn_gain_limit", json_number(a->gain));
        cJSON_AddBoolToObject(fv, "debug", a->debug);
        cJSON_AddStringToObject(fv, "reference", a->ref_path);
        cJSON_AddStringToObject(fv, "distorted", a->dis_path);
        cJSON_AddNumberToObject(fv, "width", info->width);
        cJSON_AddNumberToObject(fv, "height", info->height);
        cJSON_AddStringToObject(fv, "pixfmt", fovea_pixfmt_name(info->fmt));
        cJSON_AddNumberToObject(fv, "frames", (double)n);
    }
    int rc = cli_write_json(a->json, root);
    cJSON_Delete(root);
    return rc;
nomem:
    cli_error(NULL, "out of memory");
    return CLI_EXIT_RUNTIME;
}

static int write_csv(const vif_args *a, const fovea_vif_scores *sc, int64_t n)
{
    const int nfeat = FOVEA_VIF_SCALES + (a->debug ? N_DEBUG : 0);
    fovea_outfile *of;
    if (fovea_outfile_open(NULL, &of, a->csv) < 0)
        return cli_report(a->csv, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
    FILE *fp = fovea_outfile_file(of);
    char name[64];
    fputs("Frame", fp);
    for (int f = 0; f < nfeat; f++) {
        feature_name(f, name, sizeof(name));
        fprintf(fp, ",%s", name);
    }
    fputc('\n', fp);
    for (int64_t i = 0; i < n; i++) {
        fprintf(fp, "%lld", (long long)i);
        for (int f = 0; f < nfeat; f++)
            fprintf(fp, ",%.17g", feature_value(&sc[i], f));
        fputc('\n', fp);
    }
    /* commit flushes and checks every write: its message carries the reason */
    if (fovea_outfile_commit(NULL, &of) < 0)
        return cli_report(a->csv, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ plot */

/* The four scales against the frame number on a fixed 0..1 axis (further up
 * when the gain limit lets scores pass 1), so that runs compare at a glance;
 * scale 0, the finest and the one distortions move most, drawn on top with its
 * lowest frames marked. */
static int write_plot(const vif_args *a, const fovea_video_info *info, int bit_depth,
                      const fovea_vif_scores *sc, int64_t n, const fovea_vif_pooled_scores *pl)
{
    static const uint32_t colors[FOVEA_VIF_SCALES] = {0xd62728, 0xff7f0e, 0x2ca02c, 0x1f77b4};
    enum { LOWEST = 5 };
    chart c;
    chart_init(&c);
    double *y = NULL;
    if (n > 0 && (uint64_t)n <= SIZE_MAX / FOVEA_VIF_SCALES / sizeof(double))
        y = malloc((size_t)n * FOVEA_VIF_SCALES * sizeof(double));
    if (n > 0 && !y) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    char names[FOVEA_VIF_SCALES][48];
    double ymax = 1.0;
    for (int s = 0; s < FOVEA_VIF_SCALES; s++) {
        double *ys = y ? y + (size_t)s * (size_t)n : NULL;
        for (int64_t i = 0; i < n; i++) {
            ys[i] = sc[i].scale[s];
            if (isfinite(ys[i]) && ys[i] > ymax)
                ymax = ys[i];
        }
        if (n > 0)
            snprintf(names[s], sizeof(names[s]), "scale %d (mean %.4f)", s, pl->scale[s].mean);
        else
            snprintf(names[s], sizeof(names[s]), "scale %d", s);
        chart_add_series(&c, names[s], colors[s], ys, (size_t)n);
    }
    c.y_min = 0;
    c.y_max = ymax > 1.0 ? NAN : 1.0;

    char title[1024], subtitle[256], marks[64];
    /* the names as given; their last parts when that is too long and tells
     * them apart */
    const char *dn = cli_display_path(a->dis_path, 0), *rn = cli_display_path(a->ref_path, 0);
    const char *db = strrchr(dn, '/') ? strrchr(dn, '/') + 1 : dn;
    const char *rb = strrchr(rn, '/') ? strrchr(rn, '/') + 1 : rn;
    if (strlen(dn) + strlen(rn) > 80 && *db && *rb && strcmp(db, rb) != 0) {
        dn = db;
        rn = rb;
    }
    snprintf(title, sizeof(title), "VIF: %s against %s", dn, rn);
    snprintf(subtitle, sizeof(subtitle),
             "%dx%d %d-bit, %lld frame%s; libvmaf integer VIF, gain limit %g; fovea %s",
             info->width, info->height, bit_depth, (long long)n, n == 1 ? "" : "s", a->gain,
             fovea_version());
    c.title = title;
    c.subtitle = subtitle;
    c.xlabel = "frame";
    c.ylabel = "VIF";
    c.mark_series = 0;
    c.nmarks = chart_lowest(y, (size_t)n, c.marks, LOWEST);
    snprintf(marks, sizeof(marks), "%d lowest frames of scale 0", c.nmarks);
    c.mark_label = c.nmarks > 0 ? marks : NULL;

    char err[512] = "";
    fovea_outfile *of = NULL;
    if (fovea_outfile_open(NULL, &of, a->plot) < 0) {
        free(y);
        cli_error(NULL, "%s", fovea_last_error(NULL));
        return CLI_EXIT_RUNTIME;
    }
    int bad = chart_write_png(&c, fovea_outfile_file(of), err, sizeof(err));
    free(y);
    if (bad) {
        fovea_outfile_abort(&of); /* removes only fovea's temporary, never the path */
        cli_error(a->plot, "%s", err);
        return CLI_EXIT_RUNTIME;
    }
    if (fovea_outfile_commit(NULL, &of) < 0) {
        cli_error(NULL, "%s", fovea_last_error(NULL));
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ input pipeline */

/* Each input is read on a thread of its own (cli_ring) into frames pinned on
 * a CUDA context, so that the scorer copies them to the device without
 * staging, while the main thread submits the pairs and receives the scores:
 * the device never waits on the file readers unless the files cannot be read
 * as fast. Pair n's frames are released once the scores of pair n are
 * received (the scorer reads them until then). */
typedef struct vif_pipe {
    cli_ring ring[2]; /* ref, dis */
} vif_pipe;

static void pipe_stop(vif_pipe *p)
{
    for (int k = 0; k < 2; k++)
        cli_ring_stop(&p->ring[k]);
}

/* Allocate the rings and start the readers. @return 0, or -1 after printing the error */
static int pipe_start(vif_pipe *p, fovea_context *ctx, fovea_reader *rr, fovea_reader *rd,
                      int nslots, int64_t limit)
{
    const fovea_memtype mem =
        fovea_context_backend(ctx) == FOVEA_BACKEND_CUDA ? FOVEA_MEM_PINNED : FOVEA_MEM_HOST;
    fovea_reader *r[2] = {rr, rd};
    for (int k = 0; k < 2; k++) {
        int st = cli_ring_init(&p->ring[k], ctx, r[k], nslots, limit, mem, 1);
        if (st < 0) {
            cli_error(NULL, "cannot allocate %d input frames: %s", 2 * nslots, fovea_strerror(st));
            pipe_stop(p);
            return -1;
        }
    }
    for (int k = 0; k < 2; k++)
        if (cli_ring_run(&p->ring[k]) != 0) {
            cli_error(NULL, "cannot start a reader thread");
            pipe_stop(p);
            return -1;
        }
    return 0;
}

/* The next pair: the statuses of both reads and their messages (the distorted
 * one is EOF when the reference ended, as a sequential reader would not have
 * read it). */
static void pipe_get(vif_pipe *p, fovea_frame **fr, fovea_frame **fd, int *sr, int *sd,
                     const char **mr, const char **md)
{
    *sr = cli_ring_take(&p->ring[0], fr, mr);
    *sd = FOVEA_EOF;
    *md = "";
    if (*sr == FOVEA_OK)
        *sd = cli_ring_take(&p->ring[1], fd, md);
}

/* The scores of the oldest pair were received: its frames may be refilled. */
static void pipe_release(vif_pipe *p)
{
    for (int k = 0; k < 2; k++)
        cli_ring_release(&p->ring[k]);
}

/* ------------------------------------------------------------------ run */

static void log_to_stderr(void *opaque, fovea_log_level level, const char *msg)
{
    (void)opaque;
    fprintf(stderr, "fovea: %s%s\n", level == FOVEA_LOG_WARNING ? "warning: " : "", msg);
}

/* A run's state, shared by its steps. */
typedef struct vif_run {
    vif_args a;
    fovea_reader *rr, *rd;        /* reference, distorted */
    fovea_video_info ri, di;
    int bit_depth;
    fovea_context *ctx;
    fovea_vif *vif;
    fovea_vif_scores *scores;     /* n received, room for cap */
    int64_t n, cap;
    vif_pipe vp;
    cli_progress prog;
} vif_run;

/* Open both inputs and refuse pairs VIF cannot score (sizes, formats, bit
 * depths, frames known to be none). @return CLI_EXIT_OK or the exit code, the
 * error printed */
static int open_inputs(vif_run *r)
{
    const vif_args *a = &r->a;
    int rc = cli_open_reader(spec.name, a->ref_path, &a->in, &r->rr);
    if (rc == CLI_EXIT_OK)
        rc = cli_open_reader(spec.name, a->dis_path, &a->in, &r->rd);
    if (rc != CLI_EXIT_OK)
        return rc;
    const fovea_video_info ri = *fovea_reader_info(r->rr), di = *fovea_reader_info(r->rd);
    r->ri = ri;
    r->di = di;
    const fovea_pixfmt_desc *rdsc = fovea_pixfmt_get_desc(ri.fmt);
    const fovea_pixfmt_desc *ddsc = fovea_pixfmt_get_desc(di.fmt);
    r->bit_depth = rdsc->bit_depth;
    if (ri.width != di.width || ri.height != di.height) {
        cli_error(NULL, "%s is %dx%d but %s is %dx%d: VIF needs equal sizes",
                  cli_display_path(a->ref_path, 0), ri.width, ri.height,
                  cli_display_path(a->dis_path, 0), di.width, di.height);
        return CLI_EXIT_RUNTIME;
    }
    for (int k = 0; k < 2; k++) {
        const fovea_pixfmt_desc *d = k ? ddsc : rdsc;
        if (!d->is_yuv || d->components != 1) {
            cli_error(cli_display_path(k ? a->dis_path : a->ref_path, 0),
                      "%s: VIF reads luma (need YUV or gray)", d->name);
            return CLI_EXIT_RUNTIME;
        }
    }
    if (rdsc->bit_depth != ddsc->bit_depth) {
        cli_error(cli_display_path(a->ref_path, 0), "%d-bit but %s is %d-bit: VIF needs equal "
                  "bit depths", rdsc->bit_depth, cli_display_path(a->dis_path, 0),
                  ddsc->bit_depth);
        return CLI_EXIT_RUNTIME;
    }
    if (ri.width < 16 || ri.height < 16) {
        cli_error(cli_display_path(a->ref_path, 0), "%dx%d: VIF needs at least 16x16", ri.width,
                  ri.height);
        return CLI_EXIT_RUNTIME;
    }
    /* an input known to be empty (y4m, raw yuv from a file) is an error before
     * any work; a stream's emptiness shows at its first read (score_pairs) */
    for (int k = 0; k < 2; k++) {
        const fovea_video_info *in = k ? &di : &ri;
        if (in->frame_count == 0) {
            cli_error(cli_display_path(k ? a->dis_path : a->ref_path, 0),
                      "no frames in the input: nothing to score");
            return CLI_EXIT_RUNTIME;
        }
    }
    if (ri.frame_count >= 0 && di.frame_count >= 0 && ri.frame_count != di.frame_count)
        fprintf(stderr,
                "fovea: warning: %s has %lld frames and %s has %lld: scoring the first %lld\n",
                cli_display_path(a->ref_path, 0), (long long)ri.frame_count,
                cli_display_path(a->dis_path, 0), (long long)di.frame_count,
                (long long)(ri.frame_count < di.frame_count ? ri.frame_count : di.frame_count));
    return CLI_EXIT_OK;
}

/* The context and the scorer. @return CLI_EXIT_OK or CLI_EXIT_RUNTIME, the error printed */
static int open_scorer(vif_run *r)
{
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = r->a.backend;
    s.threads = r->a.threads;
    s.log = log_to_stderr;
    int st = fovea_open(&r->ctx, &s);
    if (st < 0) {
        cli_error(NULL, "cannot create a %s context: %s", fovea_backend_name(r->a.backend),
                  fovea_strerror(st));
        return CLI_EXIT_RUNTIME;
    }
    fovea_vif_settings vs;
    fovea_vif_default_settings(&vs);
    vs.vif_enhn_gain_limit = r->a.gain;
    vs.debug = r->a.debug;
    st = fovea_vif_open(&r->vif, r->ctx, &vs);
    if (st < 0) {
        cli_error(NULL, "%s", fovea_last_error(r->ctx));
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

/* Start the readers: about three batches pending on the scorer (*depth); the
 * readers may run ahead by the rest of the ring (at most ~256 MiB of frames).
 * @return 0, or -1 after printing the error */
static int start_readers(vif_run *r, int64_t *depth)
{
    const int batch = fovea_vif_batch_size(r->vif, r->ri.width, r->ri.height);
    const size_t pair_bytes = fovea_frame_packed_size(r->ri.fmt, r->ri.width, r->ri.height) +
                              fovea_frame_packed_size(r->di.fmt, r->di.width, r->di.height);
    int64_t nslots = 3 * (int64_t)batch + batch + 2;
    const int64_t fit = pair_bytes ? (int64_t)(((size_t)256 << 20) / pair_bytes) : nslots;
    if (nslots > fit)
        nslots = fit;
    if (nslots < 4)
        nslots = 4;
    *depth = 3 * (int64_t)batch;
    if (*depth > nslots - 2)
        *depth = nslots - 2;
    return pipe_start(&r->vp, r->ctx, r->rr, r->rd, (int)nslots, r->a.frames);
}

/* Receive scores while more than keep pairs are pending. @return CLI_EXIT_OK
 * or CLI_EXIT_RUNTIME, the error printed */
static int receive_scores(vif_run *r, int64_t keep)
{
    while (fovea_vif_pending(r->vif) > keep) {
        const int st = fovea_vif_receive(r->vif, &r->scores[r->n]);
        if (st < 0) {
            cli_progress_finish(&r->prog);
            cli_error(NULL, "frame %lld: %s", (long long)r->n, fovea_last_error(r->ctx));
            return CLI_EXIT_RUNTIME;
        }
        pipe_release(&r->vp);
        r->n++;
        cli_progress_update(&r->prog, r->n);
    }
    return CLI_EXIT_OK;
}

/* Room for pair `sub`'s scores. @return CLI_EXIT_OK or CLI_EXIT_RUNTIME, the error printed */
static int grow_scores(vif_run *r, int64_t sub)
{
    if (sub < r->cap)
        return CLI_EXIT_OK;
    const int64_t ncap = r->cap ? 2 * r->cap : 256;
    fovea_vif_scores *p = realloc(r->scores, (size_t)ncap * sizeof(*r->scores));
    if (!p) {
        cli_progress_finish(&r->prog);
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    r->scores = p;
    r->cap = ncap;
    return CLI_EXIT_OK;
}

/* Submit the pairs as the readers deliver them and receive their scores, down
 * to depth pending while reading, everything at the end. @return CLI_EXIT_OK
 * or the exit code, the error printed */
static int score_pairs(vif_run *r, int64_t depth)
{
    const vif_args *a = &r->a;
    int64_t sub = 0; /* pairs submitted; r->n counts the pairs received */
    for (;;) {
        int sr = FOVEA_EOF, sd = FOVEA_EOF, got = 0;
        fovea_frame *fr = NULL, *fd = NULL;
        const char *mr = "", *md = "";
        if (a->frames < 0 || sub < a->frames) {
            pipe_get(&r->vp, &fr, &fd, &sr, &sd, &mr, &md);
            got = 1;
        }
        if (sr < 0 || sd < 0) {
            cli_progress_finish(&r->prog);
            return sr < 0 ? cli_report(a->ref_path, 0, mr, sr) : cli_report(a->dis_path, 0, md, sd);
        }
        const int more = sr == FOVEA_OK && sd == FOVEA_OK;
        if (more) {
            if (grow_scores(r, sub) != CLI_EXIT_OK)
                return CLI_EXIT_RUNTIME;
            const int st = fovea_vif_submit(r->vif, fr, fd);
            if (st < 0) {
                cli_progress_finish(&r->prog);
                cli_error(NULL, "frame %lld: %s", (long long)sub, fovea_last_error(r->ctx));
                return CLI_EXIT_RUNTIME;
            }
            sub++;
        } else if (got && sub == 0) {
            /* no pair at all: an empty input (both: the reference named) */
            cli_progress_finish(&r->prog);
            cli_error(cli_display_path(sr == FOVEA_EOF ? a->ref_path : a->dis_path, 0),
                      "no frames in the input: nothing to score");
            return CLI_EXIT_RUNTIME;
        } else if (got && sr != sd && (r->ri.frame_count < 0 || r->di.frame_count < 0)) {
            cli_progress_finish(&r->prog);
            fprintf(stderr, "fovea: warning: %s ended first: scored the first %lld frames\n",
                    cli_display_path(sr == FOVEA_EOF ? a->ref_path : a->dis_path, 0),
                    (long long)sub);
        }
        if (receive_scores(r, more ? depth : 0) != CLI_EXIT_OK)
            return CLI_EXIT_RUNTIME;
        if (!more)
            return CLI_EXIT_OK;
    }
}

/* The outputs asked for, then the summary. @return CLI_EXIT_OK or the exit code */
static int write_results(vif_run *r, double secs)
{
    const vif_args *a = &r->a;
    const int64_t n = r->n;
    const double fps = secs > 0 ? (double)n / secs : 0.0;
    fovea_vif_pooled_scores pl;
    fovea_vif_pooled(r->vif, &pl);
    const char *backend = fovea_backend_name(fovea_vif_backend(r->vif));
    const int threads = fovea_context_threads(r->ctx);
    int rc = CLI_EXIT_OK;
    if (a->json)
        rc = write_json(a, &r->ri, r->scores, n, &pl, fps, threads, backend);
    if (rc == CLI_EXIT_OK && a->csv)
        rc = write_csv(a, r->scores, n);
    if (rc == CLI_EXIT_OK && a->plot)
        rc = write_plot(a, &r->ri, r->bit_depth, r->scores, n, &pl);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* the summary goes to stderr when stdout carries JSON or CSV; --quiet
     * drops it only when those carry the scores (else it is the result) */
    cli_summary(a->quiet && (a->json || a->csv),
                (a->json && strcmp(a->json, "-") == 0) || (a->csv && strcmp(a->csv, "-") == 0),
                "vif: %lld %s %dx%d %d-bit  mean scale0 %.6f scale1 %.6f scale2 %.6f scale3 "
                "%.6f  (%s, %d thread%s, %.2f s, %.1f fps)",
                (long long)n, cli_frames_word(n), r->ri.width, r->ri.height, r->bit_depth,
                pl.scale[0].mean, pl.scale[1].mean, pl.scale[2].mean, pl.scale[3].mean, backend,
                threads, threads == 1 ? "" : "s", secs, fps);
    return CLI_EXIT_OK;
}

int cmd_vif(int argc, char **argv)
{
    vif_run r;
    memset(&r, 0, sizeof(r));
    int rc = parse_args(&r.a, argc, argv);
    if (rc < 0)
        return CLI_EXIT_OK; /* --help */
    if (rc != CLI_EXIT_OK)
        return rc;

    int64_t depth = 0;
    rc = open_inputs(&r);
    if (rc == CLI_EXIT_OK)
        rc = open_scorer(&r);
    if (rc == CLI_EXIT_OK && start_readers(&r, &depth) < 0)
        rc = CLI_EXIT_RUNTIME;
    if (rc == CLI_EXIT_OK) {
        int64_t total = -1;
        if (r.ri.frame_count >= 0 && r.di.frame_count >= 0)
            total = r.ri.frame_count < r.di.frame_count ? r.ri.frame_count : r.di.frame_count;
        if (r.a.frames >= 0 && (total < 0 || r.a.frames < total))
            total = r.a.frames;
        const double t0 = cli_now();
        cli_progress_start(&r.prog, total, r.a.quiet);
        rc = score_pairs(&r, depth);
        cli_progress_finish(&r.prog);
        if (rc == CLI_EXIT_OK)
            rc = write_results(&r, cli_now() - t0);
    }

    /* the scorer may still read the ring's frames: close it first */
    fovea_vif_close(&r.vif);
    pipe_stop(&r.vp);
    free(r.scores);
    fovea_close(&r.ctx);
    fovea_reader_close(&r.rr);
    fovea_reader_close(&r.rd);
    return rc;
}
