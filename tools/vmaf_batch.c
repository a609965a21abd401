/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea vmaf --manifest FILE`: many pairs spread over every GPU (or CPU
 * workers), one JSON line per pair as it finishes, shardable over machines
 * (docs/quality.md, "Batch scoring"). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vmaf_manifest.h"
#include "vmaf_pair.h"

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
    char *base;    /* folder of the manifest, for relative paths; NULL = cwd */
    int64_t *task; /* task t scores pair task[t] of the manifest */
    int64_t ntasks;
    int *pair_model; /* per task: index into models */
    batch_model *models;
    int nmodels;
    sched_worker worker[SCHED_MAX_WORKERS];
    int nworkers;
    size_t ring_bytes;

    pthread_mutex_t mu; /* the output, the counters and the progress */
    fovea_outfile *of;
    FILE *out;
    int out_failed;
    int out_errno; /* errno of the failed write */
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
    cJSON_AddStringToObject(o, "model", vmaf_model_label(b->models[b->pair_model[t]].spec));
    return o;
}

/* Write a pair's line (NULL: out of memory, reported as such) and count it. */
static void line_emit(batch *b, int64_t t, cJSON *o, const char *error)
{
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    const manifest_pair *p = &b->mf.pair[b->task[t]];
    pthread_mutex_lock(&b->mu);
    if (text) {
        if (!b->out_failed &&
            (fputs(text, b->out) == EOF || fputc('\n', b->out) == EOF || fflush(b->out) != 0)) {
            b->out_failed = 1;
            b->out_errno = errno;
        }
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
        cli_error(NULL, "%s:%d: pair %lld (%s): %s", cli_display_path(b->a->manifest, 0), p->line,
                  (long long)b->task[t], p->id ? p->id : p->dis, error ? error : "out of memory");
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
    s.log = cli_log_to_stderr;
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
    char *features = NULL;
    if (!j || !ref || !dis) {
        error = "out of memory";
    } else if (!bm->m) {
        error = bm->err;
    } else {
        j->ref = ref;
        j->dis = dis;
        j->io = &b->a->in;
        j->start = b->a->opt.start;
        j->frames = p->frames > 0 ? p->frames : p->frames == 0 ? -1 : b->a->opt.frames;
        j->subsample = b->a->subsample;
        j->model = bm->m;
        j->feature_only = b->a->feature_only;
        j->features = b->a->features[0] ? b->a->features : NULL;
        if (p->features) {
            /* the row's features after the command's --feature ones */
            const size_t k = j->features ? strlen(j->features) : 0;
            const size_t size = k + strlen(p->features) + 2;
            if ((features = malloc(size)) != NULL)
                snprintf(features, size, "%s%s%s", k ? j->features : "", k ? "," : "", p->features);
            j->features = features;
        }
        j->ctx = state;
        j->ring_bytes = b->ring_bytes;
        j->warn = warn_collect;
        if (p->features && !features) {
            error = "out of memory";
        } else {
            vmaf_pair_score(j);
            if (j->rc != CLI_EXIT_OK)
                error = j->err;
        }
    }
    if (o && !error) {
        cJSON_AddNumberToObject(o, "frames", (double)j->n);
        const int si = vmaf_pair_score_index(j);
        if (si >= 0)
            score_json_add_pool(o, "vmaf", &j->pool[si]);
        cJSON *pm = cJSON_AddObjectToObject(o, "pooled_metrics");
        for (int m = 0; pm && m < j->nmetrics; m++)
            score_json_add_pool(pm, j->names[m], &j->pool[m]);
        cJSON_AddNumberToObject(o, "fps", j->secs > 0 ? (double)j->read / j->secs : 0.0);
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
    free(features);
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
                path = resolve(b, vmaf_model_label(sp));
                if (!path)
                    return -1;
            }
            if (vmaf_load_model(path ? path : sp, &bm->m, bm->err, sizeof(bm->err)) < 0)
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

/* --json-lines may be none of the files read: the manifest, the models, the
 * videos of every pair (also of other shards). @return CLI_EXIT_OK or the exit
 * code (printed) */
static int refuse_inputs(const batch *b)
{
    const vmaf_args *a = b->a;
    cli_files fs;
    cli_files_init(&fs, "vmaf");
    cli_files_add(&fs, "--manifest", a->manifest, 0, 0);
    cli_files_add(&fs, "--model", vmaf_model_file(a->model), 0, 0);
    for (int64_t k = 0; k < b->mf.n; k++) {
        const manifest_pair *p = &b->mf.pair[k];
        const char *paths[3] = {p->ref, p->dis, vmaf_model_file(p->model)};
        for (int i = 0; i < 3; i++) {
            if (!paths[i] || strcmp(paths[i], "-") == 0)
                continue;
            char *path = resolve(b, paths[i]);
            const int seq = i < 2 && cli_is_sequence(path, a->in.container);
            if (!path || cli_files_add(&fs, "manifest", path, seq ? CLI_FILE_SEQUENCE : 0, -1) < 0)
                fs.nomem = 1;
            free(path);
        }
    }
    cli_files_add(&fs, "--json-lines", a->json_lines, CLI_FILE_OUT, 0);
    const int rc = cli_files_check(&fs);
    cli_files_free(&fs);
    return rc;
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
    rq.backend = a->opt.backend;
    if (fovea_cuda_compiled())
        fovea_device_count(&rq.visible_devices);
    rq.devices = a->ndevices > 0 ? a->devices : NULL;
    rq.ndevices = a->ndevices;
    rq.jobs = a->jobs;
    rq.threads = a->opt.threads;
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

    if ((rc = refuse_inputs(b)) != CLI_EXIT_OK)
        return rc;
    if (cli_outfile_open(&b->of, a->json_lines) < 0) {
        cli_report(a->json_lines, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
        return CLI_EXIT_RUNTIME;
    }
    b->out = fovea_outfile_file(b->of);
    return CLI_EXIT_OK;
}

int vmaf_run_batch(const vmaf_args *a)
{
    batch *b = calloc(1, sizeof(*b));
    if (!b) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    b->a = a;
    int rc = batch_prepare(b);
    if (rc != CLI_EXIT_OK) {
        cli_outfile_close(&b->of);
        batch_free(b);
        free(b);
        return rc;
    }
    pthread_mutex_init(&b->mu, NULL);
    cli_progress_start(&b->prog, b->ntasks, a->opt.quiet);
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
        cli_outfile_close(&b->of);
        cli_error(cli_display_path(a->json_lines, 1), "write error: %s",
                  b->out_errno ? strerror(b->out_errno) : "unknown reason");
        rc = CLI_EXIT_RUNTIME;
    } else if (cli_outfile_commit(&b->of) < 0) {
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
    cli_summary(a->opt.quiet, strcmp(a->json_lines, "-") == 0,
                "vmaf: %lld pair%s%s: %lld scored, %lld failed  (%s, %.2f s)", (long long)b->ntasks,
                b->ntasks == 1 ? "" : "s", shard, (long long)(b->done - b->failed),
                (long long)b->failed, workers, secs);
    batch_free(b);
    free(b);
    return rc;
}
