/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* One pair of `fovea vmaf` (and `fovea vif`) scored on a context through the
 * queued API, and the models by their command-line names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmaf_pair.h"

/* The name a model is shown by: the version, or the file as given (the
 * whole parameter string when it has more than version= or path=). */
const char *vmaf_model_label(const char *spec_)
{
    if (strchr(spec_, ':') && strchr(spec_, '='))
        return spec_;
    if (strncmp(spec_, "version=", 8) == 0)
        return spec_ + 8;
    if (strncmp(spec_, "path=", 5) == 0)
        return spec_ + 5;
    return spec_;
}

/* A built-in model's version name? */
static int is_builtin(const char *name)
{
    for (int i = 0; fovea_builtin_vmaf_model(i); i++)
        if (strcmp(fovea_builtin_vmaf_model(i), name) == 0)
            return 1;
    return 0;
}

/* Load "FILE", a built-in name, or libvmaf's model parameters. @return a
 * fovea status, the message in err */
int vmaf_load_model(const char *spec_, fovea_vmaf_model **m, char *err, size_t errsz)
{
    int st;
    /* libvmaf's parameters (or a built-in name that is not a file here) */
    const int params = strchr(spec_, '=') && (strchr(spec_, ':') || strncmp(spec_, "path=", 5));
    FILE *probe = params ? NULL : fopen(spec_, "rb");
    if (probe)
        fclose(probe);
    if (params || (!probe && is_builtin(spec_))) {
        st = fovea_vmaf_model_open(m, NULL, spec_);
        if (st < 0) /* the library's message lists the built-in models */
            snprintf(err, errsz, "--model %s: %s", spec_,
                     fovea_last_error(NULL)[0] ? fovea_last_error(NULL) : fovea_strerror(st));
        return st;
    }
    const char *path = vmaf_model_label(spec_);
    st = fovea_vmaf_model_open_file(m, NULL, path);
    if (st < 0) {
        const char *msg = fovea_last_error(NULL);
        if (msg[0] && strstr(msg, path)) /* it names the file already */
            snprintf(err, errsz, "%s", msg);
        else
            cli_format_report(err, errsz, path, 0, msg, st);
    }
    return st;
}


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

/* Pairs left the scorer: the progress line follows (on the scoring thread). */
static void on_progress(void *opaque, int64_t pairs)
{
    pair_job *j = opaque;
    j->read = pairs;
    if (j->prog)
        cli_progress_update(j->prog, pairs);
}

/* The readers' run through the library's pipeline (fovea_vmaf_score_readers:
 * a reader thread per input, about three batches pending on the scorer),
 * its failures and warnings put as the command words them. @return 0 or -1 */
static int score_readers(pair_job *j, fovea_vmaf *v, score_input *in)
{
    fovea_vmaf_readers_settings rs;
    fovea_vmaf_readers_default_settings(&rs);
    rs.frames = j->frames;
    rs.ring_bytes = j->ring_bytes;
    rs.progress = on_progress;
    rs.opaque = j;
    fovea_vmaf_readers_result res;
    const int st = fovea_vmaf_score_readers(v, in->rr, in->rd, &rs, &res);
    j->read = res.done;
    if (st < 0 && res.failed >= 0) {
        cli_format_report(in->err, sizeof(in->err), res.failed ? in->dis_path : in->ref_path, 0,
                          cli_last_error(j->ctx), st);
        job_fail(j, CLI_EXIT_RUNTIME, in->err, -1);
        return -1;
    }
    if (st < 0) {
        job_fail(j, CLI_EXIT_RUNTIME, fovea_last_error(j->ctx), res.frame);
        return -1;
    }
    const char *ended = cli_display_path(res.ended == 1 ? in->dis_path : in->ref_path, 0);
    if (res.pairs == 0) {
        /* no pair at all: an empty input (both: the reference named) */
        char msg[1024];
        if (in->start > 0)
            snprintf(msg, sizeof(msg), "%s: no frames left after --start %lld", ended,
                     (long long)in->start);
        else
            snprintf(msg, sizeof(msg), "%s: no frames in the input: nothing to score", ended);
        job_fail(j, CLI_EXIT_RUNTIME, msg, -1);
        return -1;
    }
    if (res.ended == 1 && (in->ri.frame_count < 0 || in->di.frame_count < 0) && !in->warned) {
        snprintf(in->warn, sizeof(in->warn), "%s ended first: scored the first %lld frames", ended,
                 (long long)res.pairs);
        if (j->prog)
            cli_progress_finish(j->prog);
        j->warn(j, in->warn);
        in->warned = 1;
    }
    return 0;
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

void vmaf_pair_score(pair_job *j)
{
    score_input in;
    memset(&in, 0, sizeof(in));
    fovea_vmaf *v = NULL;
    j->rc = CLI_EXIT_OK;
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    s.model = j->model;
    s.models = j->more_models;
    s.n_models = j->n_more_models;
    s.features = j->features;
    s.flags = j->flags | (j->feature_only ? FOVEA_VMAF_NO_PREDICTION : 0);
    s.keep_frames = j->keep_frames;
    s.subsample = j->subsample;
    if (fovea_vmaf_open(&v, j->ctx, &s) < 0) {
        job_fail(j, CLI_EXIT_RUNTIME, fovea_last_error(j->ctx), -1);
        goto done;
    }
    j->backend = fovea_backend_name(fovea_vmaf_backend(v));
    if (fovea_vmaf_backend_reason(v)) {
        char note[256];
        snprintf(note, sizeof note,
                 "%s has no CUDA extractor yet: this pair is scored on the CPU backend",
                 fovea_vmaf_backend_reason(v));
        j->warn(j, note);
    }
    j->threads = fovea_context_threads(j->ctx);
    j->nmetrics = fovea_vmaf_metric_count(v);
    for (int m = 0; m < j->nmetrics; m++) {
        const char *name = fovea_vmaf_metric_name(v, m);
        snprintf(j->names[m], NAME_LEN, "%s", name ? name : "?");
        j->name_ptr[m] = j->names[m];
    }

    /* the readers decode on the scorer's context (NVDEC on a CUDA one) */
    cli_input_opts io = *j->io;
    io.ctx = j->ctx;
    const int rc = score_input_open(&in, j->ref, j->dis, &io, j->start, j->frames,
                                    j->metric ? j->metric : "VMAF", min_size(j));
    if (rc != CLI_EXIT_OK) {
        job_fail(j, rc, in.err, -1);
        goto done;
    }
    if (in.warn[0]) {
        j->warn(j, in.warn);
        in.warned = 1; /* the frame counts were known: the end says nothing new */
    }
    j->info = in.ri;
    j->bit_depth = in.bit_depth;

    const double t0 = cli_now();
    if (j->prog)
        cli_progress_start(j->prog, score_input_total(&in), j->quiet);
    const int bad = score_readers(j, v, &in);
    if (j->prog)
        cli_progress_finish(j->prog);
    j->secs = cli_now() - t0;
    if (!bad) {
        fovea_vmaf_pooled_scores pl;
        fovea_vmaf_pooled(v, &pl);
        j->n = pl.frames;
        for (int m = 0; m < j->nmetrics && m < pl.count; m++) {
            const score_pool q = {pl.metric[m].min, pl.metric[m].max, pl.metric[m].mean,
                                  pl.metric[m].harmonic_mean};
            j->pool[m] = q;
        }
    }
    if (!bad && j->keep_frames) {
        j->vm = v; /* nothing pending */
        v = NULL;
    }
done:
    fovea_vmaf_close(&v);
    score_input_close(&in);
}

int vmaf_pair_score_index(const pair_job *j)
{
    if (j->feature_only || !j->model || j->nmetrics == 0)
        return -1;
    /* the first model's score, named by its name ("vmaf" unless name=) */
    const char *name = fovea_vmaf_model_name(j->model);
    for (int m = 0; m < j->nmetrics; m++)
        if (strcmp(j->names[m], name ? name : "vmaf") == 0)
            return m;
    return j->nmetrics - 1;
}


/* ------------------------------------------------------------------ single pair */

const char *vmaf_model_file(const char *spec_)
{
    if (!spec_ || strncmp(spec_, "version=", 8) == 0)
        return NULL;
    return vmaf_model_label(spec_);
}

int vmaf_pair_option(const char *cmd, int id, const char *v, int *subsample, const char **ref,
                     const char **dis)
{
    switch (id) {
    case VMAF_OPT_REFERENCE: *ref = v; return 1;
    case VMAF_OPT_DISTORTED: *dis = v; return 1;
    case VMAF_OPT_SUBSAMPLE:
        return cli_parse_int32(cmd, "--subsample", v, 1, INT32_MAX, subsample) < 0 ? -1 : 1;
    default: return 0;
    }
}

int vmaf_pair_args(const char *cmd, const char *alt, char **rest, int nrest, const char *ref_flag,
                   const char *dis_flag, const cli_input_opts *in, const char *model,
                   const char *json, const char *csv, const char *plot, const char **ref,
                   const char **dis)
{
    if (ref_flag || dis_flag) {
        if (!ref_flag || !dis_flag)
            return cli_usage_error(cmd, "%s without %s: give both (or REF and DIS as arguments)",
                                   ref_flag ? "--reference" : "--distorted",
                                   ref_flag ? "--distorted" : "--reference");
        if (nrest != 0)
            return cli_usage_error(cmd,
                                   "--reference and --distorted name the inputs: no REF DIS "
                                   "arguments (got %d)",
                                   nrest);
        *ref = ref_flag;
        *dis = dis_flag;
    } else {
        if (nrest != 2)
            return cli_usage_error(cmd, "%s: expected REF and DIS%s, got %d argument%s", cmd, alt,
                                   nrest, nrest == 1 ? "" : "s");
        *ref = rest[0];
        *dis = rest[1];
    }
    if (strcmp(*ref, "-") == 0 && strcmp(*dis, "-") == 0)
        return cli_usage_error(cmd, "REF and DIS cannot both be stdin");
    if (json && csv && strcmp(json, "-") == 0 && strcmp(csv, "-") == 0)
        return cli_usage_error(cmd, "--json - and --csv -: only one can go to stdout");
    /* before anything is opened for writing: the inputs must survive, and
     * each output have a file of its own */
    cli_files fs;
    cli_files_init(&fs, cmd);
    const char *inputs[2] = {*ref, *dis};
    const char *what[2] = {"REF", "DIS"};
    for (int i = 0; i < 2; i++)
        cli_files_add(&fs, what[i], inputs[i],
                      cli_is_sequence(inputs[i], in->container) ? CLI_FILE_SEQUENCE : 0, -1);
    cli_files_add(&fs, "--model", vmaf_model_file(model), 0, 0);
    cli_files_add(&fs, "--json", json, CLI_FILE_OUT, 0);
    cli_files_add(&fs, "--csv", csv, CLI_FILE_OUT, 0);
    cli_files_add(&fs, "--plot", plot, CLI_FILE_OUT, 0);
    const int rc = cli_files_check(&fs);
    cli_files_free(&fs);
    return rc;
}

/* A single pair's warning: "fovea: warning: MSG" on stderr. */
static void warn_stderr(pair_job *j, const char *msg)
{
    (void)j;
    fprintf(stderr, "fovea: warning: %s\n", msg);
}

int vmaf_pair_run(const char *cmd, const cli_common_opts *o, const cli_input_opts *in, pair_job *j,
                  int (*results)(const void *args, const pair_job *j), const void *args)
{
    fovea_settings s;
    cli_context_settings(&s, o);
    s.log = cli_log_to_stderr;
    fovea_context *ctx = NULL;
    if (cli_open_context_with(&ctx, &s, CLI_CONTEXT_MSG_NAMED) != CLI_EXIT_OK)
        return CLI_EXIT_RUNTIME;
    /* zeroed: a pair that fails before its progress starts ends none */
    cli_progress prog;
    memset(&prog, 0, sizeof(prog));
    j->io = in;
    j->start = o->start;
    j->frames = o->frames;
    j->ctx = ctx;
    j->ring_bytes = (size_t)256 << 20;
    j->keep_frames = 1;
    j->prog = &prog;
    j->quiet = o->quiet;
    j->warn = warn_stderr;
    vmaf_pair_score(j);
    int rc = j->rc;
    if (rc == CLI_EXIT_USAGE)
        cli_usage_error(cmd, "%s", j->err);
    else if (rc != CLI_EXIT_OK)
        cli_error(NULL, "%s", j->err);
    else
        rc = results(args, j);
    fovea_vmaf_close(&j->vm);
    fovea_close(&ctx);
    return rc;
}
