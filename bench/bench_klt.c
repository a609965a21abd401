/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* bench_klt: fovea's KLT (KLT 1.3.4 API) through the public calls.
 * Rows: (1) KLT example3 = golden case a (320x240, 150 features, select +
 * 9 x (track + replace)), (2) golden case L (1280x960, same sequence), both
 * with one thread and with every CPU core, when the golden data is there
 * (env FOVEA_TESTDATA_EXTRACTED or --testdata DIR: the folder holding klt/);
 * (3) 1920x1080, 2000 features, sequential mode, replacement every frame, on
 * a panning camera rendered from the procedural scene (300 frames; --quick 20).
 * Anchor (issue 5): KLT 1.3.4, gcc -O2, one core: 98 ms case a, 1471 ms case L.
 * Rows loop over backends (bench_backends): the C reference, and the CUDA
 * backend when a device is present. Every row is timed with the host clock
 * around the public calls (KLTSelectGoodFeatures, KLTTrackFeatures,
 * KLTReplaceLostFeatures): the KLT API gives no access to the CUDA backend's
 * stream (each tracking context has a private one), so CUDA events cannot
 * bracket a call from outside; no device sync is added either, as every call
 * waits for its own stream before it returns its features. Golden rows of the
 * CUDA backend come twice: a new tracking context per run (first-use
 * allocations included), and ", context reused": one context for every run,
 * as an application that tracks clip after clip keeps one (its device buffers
 * are then in place). CUDA rows marked "device frames" pass frames that are
 * already in device memory (copied there once before the runs, as from a GPU
 * decoder): the device-resident figures; the others pass host frames (end to
 * end), in pageable memory or, for the 1080p rows marked "pinned frames", in
 * pinned memory (as a decoder writing into page-locked buffers gives them).
 * The CUDA rows with a context reused and the 1080p CUDA rows are followed by
 * one row per public call ("<row> / KLTTrackFeatures": the median call).
 * The GPU time of each stage inside a call, measured with events inside the
 * library, lives on branch wip/stitch-floors (commit aeec5b9: bench_klt with
 * FOVEA_KLT_STAGES=1) and no longer in main. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "fovea/frame.h"
#include "fovea/io.h"
#include "fovea/klt.h"
#include "fovea/compat/pnmio.h"
#include "scene.h"

/* ---------------------------------------------------------------- backends */

typedef struct bench_backend {
    const char *name;      /* table backend column */
    fovea_backend backend; /* KLT_TrackingContextRec.backend */
    int cpu_threads;       /* 1: also a single-thread row (C backend) */
} bench_backend;

static const bench_backend bench_backends[] = {
    {"cpu", FOVEA_BACKEND_CPU, 1},
    {"cuda", FOVEA_BACKEND_CUDA, 0},
};
#define N_BACKENDS ((int)(sizeof(bench_backends) / sizeof(bench_backends[0])))

/* --backend NAME: only that backend's rows (NULL: all) */
static const char *only_backend;
static const char *only_case; /* --case a|L|seq */

static int case_wanted(const char *name)
{
    return !only_case || strcmp(only_case, name) == 0;
}

/* A backend row is run when asked for and when it can be: CUDA needs a device. */
static int backend_available(const bench_backend *be)
{
    if (only_backend && strcmp(only_backend, be->name) != 0)
        return 0;
    if (be->backend != FOVEA_BACKEND_CUDA)
        return 1;
    int n = 0;
    fovea_device_count(&n);
    return fovea_cuda_compiled() && n > 0;
}

/* ---------------------------------------------------------------- helpers */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "bench_klt: out of memory\n");
        exit(1);
    }
    return p;
}

static char *read_all(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = NULL;
    long n = -1;
    if (fseek(fp, 0, SEEK_END) == 0)
        n = ftell(fp);
    if (n >= 0 && fseek(fp, 0, SEEK_SET) == 0) {
        buf = xmalloc((size_t)n + 1);
        if (fread(buf, 1, (size_t)n, fp) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = '\0';
            if (size)
                *size = (size_t)n;
        }
    }
    fclose(fp);
    return buf;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n samples in microseconds, returned in milliseconds (sorts them). */
static double median_ms(double *us, int n)
{
    if (n <= 0)
        return 0.0;
    qsort(us, (size_t)n, sizeof(double), cmp_double);
    double m = n % 2 ? us[n / 2] : 0.5 * (us[n / 2 - 1] + us[n / 2]);
    return m / 1000.0;
}

/* Fail loudly when a KLT call recorded an error. */
static void klt_check(KLT_TrackingContext tc, const char *what)
{
    if (fovea_klt_last_status(tc) != FOVEA_OK) {
        fprintf(stderr, "bench_klt: %s: %s\n", what, fovea_last_error(tc->ctx));
        exit(1);
    }
}

/* Runs to do so that one row takes about budget_us, given one run's time:
 * between min_runs and max_runs. */
static int runs_for_budget(double one_run_us, double budget_us, int min_runs, int max_runs)
{
    int n = one_run_us > 0 ? (int)(budget_us / one_run_us) : max_runs;
    if (n > max_runs)
        n = max_runs;
    if (n < min_runs)
        n = min_runs;
    return n;
}

/* Per-call samples of one row (select / track / replace, host clock, us)
 * and run totals. */
typedef struct call_samples {
    double *sel, *trk, *rep, *total;
    int nsel, ntrk, nrep, ntotal;
} call_samples;

static void samples_alloc(call_samples *s, int runs, int calls_per_run)
{
    memset(s, 0, sizeof *s);
    size_t n = (size_t)runs * (size_t)(calls_per_run > 0 ? calls_per_run : 1);
    s->sel = xmalloc(n * sizeof(double));
    s->trk = xmalloc(n * sizeof(double));
    s->rep = xmalloc(n * sizeof(double));
    s->total = xmalloc((size_t)runs * sizeof(double));
}

static void samples_free(call_samples *s)
{
    free(s->sel);
    free(s->trk);
    free(s->rep);
    free(s->total);
    memset(s, 0, sizeof *s);
}

/* One row per public call of row `row` (CUDA): the median call of each kind
 * (host clock around it), one image per call. Sorts the samples. */
static void call_rows(bench_table *table, FILE *text, const char *row, call_samples *s,
                      double img_bytes)
{
    static const char *const call[3] = {"KLTSelectGoodFeatures", "KLTTrackFeatures",
                                        "KLTReplaceLostFeatures"};
    double *v[3] = {s->sel, s->trk, s->rep};
    const int n[3] = {s->nsel, s->ntrk, s->nrep};
    for (int k = 0; k < 3; k++) {
        if (n[k] == 0)
            continue;
        bench_stats st;
        bench_stats_compute(v[k], n[k], &st);
        char name[160], note[160];
        snprintf(name, sizeof name, "%s / %s", row, call[k]);
        snprintf(note, sizeof note,
                 "per call, host clock around it (no stream access: the call waits for its "
                 "own); %d calls; bytes ~ one image",
                 n[k]);
        bench_table_add(table, name, "cuda", &st, img_bytes, 1, note);
        fprintf(text, "%s [cuda]: median %.3f ms per call (%d calls)\n", name,
                st.median_us / 1000.0, n[k]);
    }
}

/* ---------------------------------------------------------------- device frames */

static fovea_context *cuda_ctx; /* for the device copies; opened on first use */

/* Rows of COPY_ROW bytes: a multiple of every row alignment of
 * fovea_frame_alloc (256 bytes on the device, 64 in host memory), so a GRAY8
 * frame COPY_ROW wide has no padding between its rows. */
#define COPY_ROW 4096

/* Copies of frames in device memory (as from a GPU decoder) or in pinned host
 * memory (as a decoder writing into page-locked buffers gives them), made with
 * the public frame API. KLT takes an image as ncols x nrows bytes back to
 * back, while fovea_frame_alloc pads each row of a frame ncols wide, so each
 * copy is a GRAY8 frame of COPY_ROW-byte rows, large enough for the image,
 * which lies at its start (data[0]); the copy from the host goes through
 * views of both as ncols x nrows frames with ncols-byte rows. */
typedef struct frame_copies {
    fovea_frame *frames;  /* the allocations (n) */
    unsigned char **data; /* the images, what the KLT calls get (n) */
    int n;
} frame_copies;

/* A frame over caller memory: w x h GRAY8 pixels with w-byte rows. */
static fovea_frame image_view(unsigned char *pixels, int w, int h, fovea_memtype mem, int device)
{
    fovea_frame f;
    memset(&f, 0, sizeof f);
    f.width = w;
    f.height = h;
    f.fmt = FOVEA_PIX_GRAY8;
    f.mem = mem;
    f.data[0] = pixels;
    f.stride[0] = w;
    f.device = device;
    return f;
}

/* Copy n host images of w x h into mem (FOVEA_MEM_DEVICE or _PINNED); the
 * copies are complete on return. @return 1, or 0 without a CUDA context (no
 * device) */
static int frames_copy(frame_copies *fc, unsigned char *const *host, int n, int w, int h,
                       fovea_memtype mem)
{
    memset(fc, 0, sizeof *fc);
    if (!cuda_ctx) {
        fovea_settings cs;
        fovea_default_settings(&cs);
        cs.backend = FOVEA_BACKEND_CUDA;
        if (fovea_open(&cuda_ctx, &cs) != FOVEA_OK)
            return 0;
    }
    const size_t bytes = (size_t)w * (size_t)h;
    const int rows = (int)((bytes + COPY_ROW - 1) / COPY_ROW);
    fc->frames = calloc((size_t)n, sizeof(*fc->frames));
    fc->data = calloc((size_t)n, sizeof(*fc->data));
    if (!fc->frames || !fc->data) {
        fprintf(stderr, "bench_klt: out of memory\n");
        exit(1);
    }
    fc->n = n;
    for (int i = 0; i < n; i++) {
        fovea_frame *f = &fc->frames[i];
        BENCH_FOVEA(cuda_ctx, fovea_frame_alloc(cuda_ctx, f, COPY_ROW, rows, FOVEA_PIX_GRAY8, mem));
        if (f->stride[0] != COPY_ROW) {
            fprintf(stderr, "bench_klt: a %d-byte row is padded to %td\n", COPY_ROW, f->stride[0]);
            exit(1);
        }
        fc->data[i] = f->data[0];
        fovea_frame src = image_view(host[i], w, h, FOVEA_MEM_HOST, -1);
        fovea_frame dst = image_view(f->data[0], w, h, mem, f->device);
        BENCH_FOVEA(cuda_ctx, fovea_frame_copy(cuda_ctx, &dst, &src));
    }
    BENCH_FOVEA(cuda_ctx, fovea_sync(cuda_ctx));
    return 1;
}

static void frames_free(frame_copies *fc)
{
    for (int i = 0; fc->frames && i < fc->n; i++)
        fovea_frame_free(cuda_ctx, &fc->frames[i]);
    free(fc->frames);
    free(fc->data);
    memset(fc, 0, sizeof *fc);
}

/* ---------------------------------------------------------------- golden cases */

typedef struct golden_case {
    char name[256];
    cJSON *params;
    int nfeat, nframes, replace;
    int ncols, nrows;
    unsigned char **frames;
} golden_case;

static void case_free(golden_case *c)
{
    cJSON_Delete(c->params);
    for (int i = 0; c->frames && i < c->nframes; i++)
        free(c->frames[i]);
    free(c->frames);
    memset(c, 0, sizeof *c);
}

static unsigned char *load_pgm(const char *path, int *w, int *h)
{
    /* KLT's own reader (include/fovea/compat/pnmio.h), as the programs this mirrors use */
    unsigned char *img = pgmReadFile(path, NULL, w, h);
    if (!img)
        fprintf(stderr, "bench_klt: %s: not an 8-bit PGM\n", path);
    return img;
}

/* Find the case folder <klt_root>/<prefix>* and load params.json and frames.
 * @return 1, or 0 with a reason in why */
static int case_load(golden_case *c, const char *klt_root, const char *prefix, char *why,
                     size_t why_size)
{
    memset(c, 0, sizeof *c);
    DIR *d = opendir(klt_root);
    if (!d) {
        snprintf(why, why_size, "cannot open %s", klt_root);
        return 0;
    }
    struct dirent *de;
    size_t plen = strlen(prefix);
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, prefix, plen) == 0) {
            snprintf(c->name, sizeof c->name, "%s", de->d_name);
            break;
        }
    }
    closedir(d);
    if (!c->name[0]) {
        snprintf(why, why_size, "no case %s* in %s", prefix, klt_root);
        return 0;
    }
    char path[8192];
    snprintf(path, sizeof path, "%s/%s/params.json", klt_root, c->name);
    char *js = read_all(path, NULL);
    c->params = js ? cJSON_Parse(js) : NULL;
    free(js);
    if (!c->params) {
        snprintf(why, why_size, "cannot read %.400s", path);
        return 0;
    }
    const cJSON *nf = cJSON_GetObjectItem(c->params, "nFeatures");
    const cJSON *frames = cJSON_GetObjectItem(c->params, "frames");
    if (!cJSON_IsNumber(nf) || !cJSON_IsArray(frames) || cJSON_GetArraySize(frames) < 1) {
        snprintf(why, why_size, "%s: unexpected params.json", c->name);
        return 0;
    }
    c->nfeat = nf->valueint;
    c->replace = cJSON_IsTrue(cJSON_GetObjectItem(c->params, "replace_lost_features"));
    int n = cJSON_GetArraySize(frames);
    c->frames = calloc((size_t)n, sizeof(*c->frames));
    if (!c->frames) {
        snprintf(why, why_size, "out of memory");
        return 0;
    }
    c->nframes = n;
    for (int i = 0; i < n; i++) {
        const cJSON *fn = cJSON_GetArrayItem(frames, i);
        int w = 0, h = 0;
        snprintf(path, sizeof path, "%s/%s/%s", klt_root, c->name,
                 cJSON_IsString(fn) ? fn->valuestring : "?");
        c->frames[i] = load_pgm(path, &w, &h);
        if (!c->frames[i] || (i > 0 && (w != c->ncols || h != c->nrows))) {
            snprintf(why, why_size, "%.100s: bad frame %.300s", c->name, path);
            return 0;
        }
        c->ncols = w;
        c->nrows = h;
    }
    return 1;
}

/* A context set up as params.json says (setup_ops are all field assignments
 * or pyramid/border updates; the final field values are what counts, and
 * tracking_context lists all of them). */
static KLT_TrackingContext case_context(const golden_case *c, fovea_context *ctx,
                                        fovea_backend backend)
{
    KLT_TrackingContext tc = KLTCreateTrackingContext();
    if (!tc) {
        fprintf(stderr, "bench_klt: out of memory\n");
        exit(1);
    }
    const cJSON *tcj = cJSON_GetObjectItem(c->params, "tracking_context");
    const char *field;
    for (int i = 0; (field = fovea_klt_field_name(i)) != NULL; i++) {
        const cJSON *v = cJSON_GetObjectItem(tcj, field);
        if (cJSON_IsNumber(v) && fovea_klt_set_field(tc, field, v->valuedouble) != FOVEA_OK) {
            fprintf(stderr, "bench_klt: %s: %s\n", c->name, fovea_last_error(tc->ctx));
            exit(1);
        }
    }
    tc->ctx = ctx;
    tc->backend = backend;
    return tc;
}

/* One run of KLT example3's call sequence; per-call times appended to s.
 * reuse: the tracking context to run on (kept), else a new one per run. */
static void golden_run(const golden_case *c, unsigned char *const *frames, fovea_context *ctx,
                       fovea_backend backend, call_samples *s, KLT_TrackingContext reuse)
{
    KLT_TrackingContext tc = reuse ? reuse : case_context(c, ctx, backend);
    KLT_FeatureList fl = KLTCreateFeatureList(c->nfeat);
    if (!fl) {
        fprintf(stderr, "bench_klt: out of memory\n");
        exit(1);
    }
    double t_start = bench_now_us();
    double t0 = t_start;
    KLTSelectGoodFeatures(tc, frames[0], c->ncols, c->nrows, fl);
    double t1 = bench_now_us();
    klt_check(tc, "select");
    if (s)
        s->sel[s->nsel++] = t1 - t0;
    for (int i = 1; i < c->nframes; i++) {
        t0 = bench_now_us();
        KLTTrackFeatures(tc, frames[i - 1], frames[i], c->ncols, c->nrows, fl);
        t1 = bench_now_us();
        klt_check(tc, "track");
        if (s)
            s->trk[s->ntrk++] = t1 - t0;
        if (c->replace) {
            t0 = bench_now_us();
            KLTReplaceLostFeatures(tc, frames[i], c->ncols, c->nrows, fl);
            t1 = bench_now_us();
            klt_check(tc, "replace");
            if (s)
                s->rep[s->nrep++] = t1 - t0;
        }
    }
    /* the total includes the timer calls (negligible) but no context creation */
    if (s)
        s->total[s->ntotal++] = bench_now_us() - t_start;
    KLTFreeFeatureList(fl);
    if (!reuse)
        KLTFreeTrackingContext(tc);
}

static void bench_golden(bench_table *table, const bench_opts *opts, FILE *text,
                         const char *klt_root, const char *prefix, const char *label,
                         double anchor_ms, fovea_context *ctx_all, fovea_context *ctx_one)
{
    if (!bench_case_enabled(opts, label))
        return;
    if (!klt_root) {
        fprintf(text,
                "note: %s skipped: golden data not found (set FOVEA_TESTDATA_EXTRACTED "
                "or --testdata DIR, the folder holding klt/)\n",
                label);
        return;
    }
    golden_case c;
    char why[512];
    if (!case_load(&c, klt_root, prefix, why, sizeof why)) {
        fprintf(text, "note: %s skipped: %s\n", label, why);
        case_free(&c);
        return;
    }
    const double img_bytes = (double)c.ncols * c.nrows;
    const int calls = 1 + (c.nframes - 1) * (c.replace ? 2 : 1);

    for (int b = 0; b < N_BACKENDS; b++) {
        const bench_backend *be = &bench_backends[b];
        if (!backend_available(be))
            continue;
        /* pass 2 (CUDA): one tracking context for all runs, as an application
         * tracking several clips keeps one; its buffers are then in place;
         * pass 3 (CUDA): the same with the frames in device memory */
        for (int pass = 0; pass < 4; pass++) {
            fovea_context *ctx = pass == 0 ? ctx_one : ctx_all;
            if (pass == 0 && !be->cpu_threads)
                continue;
            if (pass >= 2 && be->backend != FOVEA_BACKEND_CUDA)
                continue;
            frame_copies dev = {0};
            if (pass == 3 &&
                !frames_copy(&dev, c.frames, c.nframes, c.ncols, c.nrows, FOVEA_MEM_DEVICE))
                continue;
            unsigned char *const *dframes = dev.data;
            unsigned char *const *frames = dframes ? dframes : c.frames;
            KLT_TrackingContext reuse = pass >= 2 ? case_context(&c, ctx, be->backend) : NULL;
            int threads = ctx ? fovea_context_threads(ctx) : 1;
            if (pass == 1 && threads == 1 && be->cpu_threads)
                continue; /* one CPU: the 1-thread row says it all */

            /* warm up, then choose runs so that a row takes ~3 s at most
             * (at least 3 runs, at most --runs) */
            double w0 = bench_now_us();
            int warm = opts->warmup > 0 ? opts->warmup : 0;
            if (reuse && warm == 0)
                warm = 1; /* the reused context's buffers come from a first run */
            for (int r = 0; r < warm; r++)
                golden_run(&c, frames, ctx, be->backend, NULL, reuse);
            double one = warm ? (bench_now_us() - w0) / warm : 0.0;
            int runs = runs_for_budget(one, opts->quick ? 1.5e6 : 3e6,
                                       opts->runs < 3 ? opts->runs : 3, opts->runs);
            if (runs < 1)
                runs = 1;

            call_samples s;
            samples_alloc(&s, runs, calls);
            for (int r = 0; r < runs; r++)
                golden_run(&c, frames, ctx, be->backend, &s, reuse);
            bench_stats st;
            bench_stats_compute(s.total, s.ntotal, &st);

            char name[96], note[160];
            if (be->backend == FOVEA_BACKEND_CUDA)
                snprintf(name, sizeof name, "%s %dx%d %df%s%s", label, c.ncols, c.nrows, c.nfeat,
                         reuse ? ", context reused" : "", dframes ? ", device frames" : "");
            else
                snprintf(name, sizeof name, "%s %dx%d %df, %d thread%s", label, c.ncols, c.nrows,
                         c.nfeat, threads, threads == 1 ? "" : "s");
            double sel = median_ms(s.sel, s.nsel), trk = median_ms(s.trk, s.ntrk),
                   rep = median_ms(s.rep, s.nrep);
            snprintf(note, sizeof note,
                     "per call ms: select %.2f track %.2f replace %.2f; %d calls; KLT 1.3.4 "
                     "1 core %.0f ms (%.1fx); bytes ~frames x image",
                     sel, trk, rep, calls, anchor_ms, anchor_ms / (st.median_us / 1000.0));
            bench_table_add(table, name, be->name, &st, img_bytes * c.nframes, c.nframes, note);
            fprintf(text, "%s [%s]: median %.2f ms (%d runs); %s\n", name, be->name,
                    st.median_us / 1000.0, runs, note);
            if (reuse)
                call_rows(table, text, name, &s, img_bytes);
            samples_free(&s);
            if (reuse)
                KLTFreeTrackingContext(reuse);
            frames_free(&dev);
        }
    }
    case_free(&c);
}

/* ---------------------------------------------------------------- 1080p scene sequence */

typedef struct render_job {
    const scene_model *scene;
    unsigned char *out;
    int width, height;
    double fx, cx, cy;
    double rot[9]; /* camera -> world, row major */
} render_job;

static void render_rows(const render_job *j, int begin, int end)
{
    for (int y = begin; y < end; y++) {
        unsigned char *row = j->out + (size_t)y * (size_t)j->width;
        double cy = (y - j->cy) / j->fx;
        for (int x = 0; x < j->width; x++) {
            double cx = (x - j->cx) / j->fx;
            const double *R = j->rot;
            double dx = R[0] * cx + R[1] * cy + R[2];
            double dy = R[3] * cx + R[4] * cy + R[5];
            double dz = R[6] * cx + R[7] * cy + R[8];
            float rgb[3];
            scene_color(j->scene, dx, dy, dz, rgb);
            double l = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2];
            row[x] = (unsigned char)(l < 0 ? 0 : l > 255 ? 255 : (int)(l + 0.5));
        }
    }
}

/* Rows in blocks of RENDER_BLOCK: thread t of n renders blocks t, t + n, ... */
#define RENDER_BLOCK 8

typedef struct render_worker {
    const render_job *job;
    int t, n;
    pthread_t tid;
} render_worker;

static void *render_worker_main(void *arg)
{
    const render_worker *w = arg;
    const int h = w->job->height;
    for (int y = w->t * RENDER_BLOCK; y < h; y += w->n * RENDER_BLOCK)
        render_rows(w->job, y, y + RENDER_BLOCK < h ? y + RENDER_BLOCK : h);
    return NULL;
}

/* Render job j on `threads` threads (the calling thread one of them). Every
 * pixel depends on its own coordinates alone, so the frame is the same for
 * any number of threads. */
static void render_parallel(const render_job *j, int threads)
{
    const int blocks = (j->height + RENDER_BLOCK - 1) / RENDER_BLOCK;
    if (threads > blocks)
        threads = blocks;
    if (threads < 1)
        threads = 1;
    render_worker *w = xmalloc((size_t)threads * sizeof(*w));
    int started = 1; /* worker 0 is this thread */
    for (int t = 0; t < threads; t++) {
        w[t].job = j;
        w[t].t = t;
        w[t].n = threads;
    }
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&w[t].tid, NULL, render_worker_main, &w[t]) != 0)
            break;
        started++;
    }
    /* the workers that could not start: this thread renders their rows */
    for (int t = 0; t < threads; t++)
        if (t == 0 || t >= started)
            render_worker_main(&w[t]);
    for (int t = 1; t < started; t++)
        pthread_join(w[t].tid, NULL);
    free(w);
}

/* Camera -> world rotation for yaw (about y, positive to the right) then pitch
 * (about x, positive looks down: y points down). */
static void yaw_pitch(double yaw, double pitch, double R[9])
{
    double cyw = cos(yaw), syw = sin(yaw), cp = cos(pitch), sp = sin(pitch);
    /* Ry(yaw) * Rx(pitch); the optical axis (0, 0, 1) goes to (.., sin pitch, ..) */
    double Ry[9] = {cyw, 0, syw, 0, 1, 0, -syw, 0, cyw};
    double Rx[9] = {1, 0, 0, 0, cp, sp, 0, -sp, cp};
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++)
            R[r * 3 + k] = Ry[r * 3 + 0] * Rx[0 * 3 + k] + Ry[r * 3 + 1] * Rx[1 * 3 + k] +
                           Ry[r * 3 + 2] * Rx[2 * 3 + k];
}

/* Render n gray frames of a camera panning right by 0.2 degree per frame with
 * a little pitch jitter (deterministic), on `threads` threads. */
static unsigned char **render_sequence(int threads, int w, int h, int n, double fx)
{
    scene_params sp;
    scene_default_params(&sp, 7, 1.0 / fx);
    scene_model *scene = xmalloc(sizeof *scene);
    BENCH_FOVEA(NULL, scene_init(scene, &sp));
    unsigned char **frames = xmalloc((size_t)n * sizeof(*frames));
    render_job j;
    j.scene = scene;
    j.width = w;
    j.height = h;
    j.fx = fx;
    j.cx = 0.5 * (w - 1);
    j.cy = 0.5 * (h - 1);
    const double deg = 3.14159265358979323846 / 180.0;
    for (int i = 0; i < n; i++) {
        frames[i] = xmalloc((size_t)w * (size_t)h);
        j.out = frames[i];
        double yaw = (-30.0 + 0.2 * i) * deg;
        /* looking 4 degrees down (horizon above the center) + jitter */
        double pitch = (4.0 + 0.15 * sin(0.9 * i) + 0.05 * sin(2.3 * i + 1.0)) * deg;
        yaw_pitch(yaw, pitch, j.rot);
        render_parallel(&j, threads);
    }
    free(scene);
    return frames;
}

typedef struct seq_case {
    unsigned char **frames;
    int nframes, w, h, nfeat;
} seq_case;

static void seq_run(const seq_case *q, unsigned char *const *frames, fovea_context *ctx,
                    fovea_backend backend, call_samples *s, int *remaining)
{
    KLT_TrackingContext tc = KLTCreateTrackingContext();
    KLT_FeatureList fl = KLTCreateFeatureList(q->nfeat);
    if (!tc || !fl) {
        fprintf(stderr, "bench_klt: out of memory\n");
        exit(1);
    }
    tc->sequentialMode = TRUE;
    tc->ctx = ctx;
    tc->backend = backend;
    double t_start = bench_now_us();
    double t0 = t_start;
    KLTSelectGoodFeatures(tc, frames[0], q->w, q->h, fl);
    double t1 = bench_now_us();
    klt_check(tc, "select");
    s->sel[s->nsel++] = t1 - t0;
    for (int i = 1; i < q->nframes; i++) {
        t0 = bench_now_us();
        KLTTrackFeatures(tc, frames[i - 1], frames[i], q->w, q->h, fl);
        t1 = bench_now_us();
        klt_check(tc, "track");
        s->trk[s->ntrk++] = t1 - t0;
        if (remaining && i == q->nframes - 1)
            *remaining = KLTCountRemainingFeatures(fl);
        t0 = bench_now_us();
        KLTReplaceLostFeatures(tc, frames[i], q->w, q->h, fl);
        t1 = bench_now_us();
        klt_check(tc, "replace");
        s->rep[s->nrep++] = t1 - t0;
    }
    s->total[s->ntotal++] = bench_now_us() - t_start;
    KLTFreeFeatureList(fl);
    KLTFreeTrackingContext(tc);
}

static void bench_sequence(bench_table *table, const bench_opts *opts, FILE *text,
                           fovea_context *ctx_all)
{
    const char *label = "1080p scene";
    if (!bench_case_enabled(opts, label))
        return;
    seq_case q;
    q.w = 1920;
    q.h = 1080;
    q.nfeat = 2000;
    q.nframes = opts->quick ? 20 : 300;
    double t0 = bench_now_us();
    q.frames = render_sequence(fovea_context_threads(ctx_all), q.w, q.h, q.nframes, 1400.0);
    fprintf(text, "rendered %d frames %dx%d in %.1f s\n", q.nframes, q.w, q.h,
            (bench_now_us() - t0) / 1e6);
    const double img_bytes = (double)q.w * q.h;

    /* the CUDA backend three times: pageable host frames, frames in pinned
     * host memory, frames in device memory */
    for (int b = 0; b <= N_BACKENDS + 1; b++) {
        const bench_backend *be = &bench_backends[b < N_BACKENDS ? b : N_BACKENDS - 1];
        if (!backend_available(be) || (b >= N_BACKENDS && be->backend != FOVEA_BACKEND_CUDA))
            continue;
        frame_copies pin = {0}, dev = {0};
        if (b == N_BACKENDS && !frames_copy(&pin, q.frames, q.nframes, q.w, q.h, FOVEA_MEM_PINNED))
            continue;
        if (b == N_BACKENDS + 1 &&
            !frames_copy(&dev, q.frames, q.nframes, q.w, q.h, FOVEA_MEM_DEVICE))
            continue;
        unsigned char *const *dframes = dev.data, *const *pframes = pin.data;
        unsigned char *const *frames = dframes ? dframes : pframes ? pframes : q.frames;
        /* each run is the whole sequence; no warm-up (the first frames are in
         * it). --quick: 2 runs; otherwise up to 3 (fewer when --runs says so) */
        int runs = opts->quick ? 2 : (opts->runs < 3 ? opts->runs : 3);
        if (runs < 1)
            runs = 1;
        call_samples s;
        samples_alloc(&s, runs, q.nframes);
        int remaining = 0;
        for (int r = 0; r < runs; r++)
            seq_run(&q, frames, ctx_all, be->backend, &s, &remaining);
        bench_stats st;
        bench_stats_compute(s.total, s.ntotal, &st);
        int threads = fovea_context_threads(ctx_all);
        char name[96], note[160];
        if (be->backend == FOVEA_BACKEND_CUDA)
            snprintf(name, sizeof name, "%s %dx%d %df seq %d frames%s", label, q.w, q.h, q.nfeat,
                     q.nframes,
                     dframes   ? ", device frames"
                     : pframes ? ", pinned frames"
                               : "");
        else
            snprintf(name, sizeof name, "%s %dx%d %df seq %d frames, %d thread%s", label, q.w, q.h,
                     q.nfeat, q.nframes, threads, threads == 1 ? "" : "s");
        double sel = median_ms(s.sel, s.nsel), trk = median_ms(s.trk, s.ntrk),
               rep = median_ms(s.rep, s.nrep);
        double ms_frame = st.median_us / 1000.0 / q.nframes;
        snprintf(note, sizeof note,
                 "%.2f ms/frame; per call ms: select %.1f track %.2f replace %.2f; %d tracked "
                 "at end; bytes ~frames x image",
                 ms_frame, sel, trk, rep, remaining);
        bench_table_add(table, name, be->name, &st, img_bytes * q.nframes, q.nframes, note);
        fprintf(text, "%s [%s]: %.1f frames/s, %.2f ms/frame (%d runs); %s\n", name, be->name,
                1000.0 / ms_frame, ms_frame, runs, note);
        if (be->backend == FOVEA_BACKEND_CUDA)
            call_rows(table, text, name, &s, img_bytes);
        samples_free(&s);
        frames_free(&dev);
        frames_free(&pin);
    }
    for (int i = 0; i < q.nframes; i++)
        free(q.frames[i]);
    free(q.frames);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    bench_opts opts;
    bench_parse_args_ex(argc, argv, &opts,
                        "  --testdata DIR  extracted golden data (the folder holding klt/);\n"
                        "                  default: env FOVEA_TESTDATA_EXTRACTED\n"
                        "  --backend NAME  only the rows of backend cpu or cuda\n"
                        "  --case NAME     only case a (example3), L (1280x960) or seq (1080p)\n");
    const char *testdata = getenv("FOVEA_TESTDATA_EXTRACTED");
    for (int i = 0; i < opts.n_extra; i++) {
        if (strcmp(opts.extra[i], "--testdata") == 0 && i + 1 < opts.n_extra) {
            testdata = opts.extra[++i];
        } else if (strcmp(opts.extra[i], "--backend") == 0 && i + 1 < opts.n_extra) {
            only_backend = opts.extra[++i];
        } else if (strcmp(opts.extra[i], "--case") == 0 && i + 1 < opts.n_extra) {
            only_case = opts.extra[++i];
            if (strcmp(only_case, "a") != 0 && strcmp(only_case, "L") != 0 &&
                strcmp(only_case, "seq") != 0) {
                fprintf(stderr, "bench_klt: --case takes a, L or seq, not '%s'\n", only_case);
                return 2;
            }
        } else {
            fprintf(stderr, "bench_klt: unknown argument '%s' (see --help)\n", opts.extra[i]);
            return 2;
        }
    }
    FILE *text = bench_text_stream(&opts);

    static char klt_root[4096];
    const char *root = NULL;
    if (testdata && *testdata) {
        snprintf(klt_root, sizeof klt_root, "%s/klt", testdata);
        DIR *d = opendir(klt_root);
        if (d) {
            closedir(d);
            root = klt_root;
        } else {
            fprintf(text, "note: %s not found\n", klt_root);
        }
    }

    bench_table table;
    bench_table_init(&table, "klt", "frames", &opts);

    fovea_settings cs;
    fovea_context *ctx_all = NULL, *ctx_one = NULL;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    cs.threads = 0; /* every core */
    BENCH_FOVEA(NULL, fovea_open(&ctx_all, &cs));
    cs.threads = 1;
    BENCH_FOVEA(NULL, fovea_open(&ctx_one, &cs));

    if (case_wanted("a"))
        bench_golden(&table, &opts, text, root, "a_", "example3 (a)", 98.0, ctx_all, ctx_one);
    if (case_wanted("L"))
        bench_golden(&table, &opts, text, root, "L_", "case L", 1471.0, ctx_all, ctx_one);
    if (case_wanted("seq"))
        bench_sequence(&table, &opts, text, ctx_all);

    fovea_close(&ctx_all);
    fovea_close(&ctx_one);
    fovea_close(&cuda_ctx);
    return bench_table_finish(&table, 0.0);
}
