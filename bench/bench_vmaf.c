/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* bench_vmaf: VMAF v0.6.1 (every feature and the score) per frame pair at
 * 576x324 and 1920x1080 8-bit on generated frames. API rows: the C backend at
 * the CPU context's threads through the queue (submit + receive, motion's
 * lookahead included); CUDA rows (device, pinned, pageable frames, queued)
 * when a CUDA context gets the CUDA backend. Whole-process rows when
 * `--libvmaf PATH` and/or `--fovea PATH` are given: libvmaf's `vmaf` tool and
 * `fovea vmaf` on the same y4m pair in the page cache, run alternately, the
 * median wall time of N runs each, and their ratio. Then the rows of the
 * feature list "vif" alone, named "vif <case>, ..." (the cases and rows of
 * the former bench_vif; with a CUDA context its end-to-end rows run `fovea
 * vif`: --fovea PATH, else the fovea next to this program's directory, as
 * bench_vif did).
 *
 * Extra options:
 *   --threads N      CPU threads (C backend rows, and both tools on the CPU; default: all)
 *   --libvmaf PATH   libvmaf's vmaf executable (never part of fovea; see
 *                    ../shared/tools/libvmaf/README.md); a path containing
 *                    "cuda" runs its CUDA command line
 *   --fovea PATH     the fovea executable (fovea vmaf REF DIS --json F; fovea vif);
 *                    the vif rows default to ../fovea from this program's directory
 *   --no-e2e         no `fovea vif` end-to-end rows
 *   --backend B      fovea's --backend in the whole-process rows (default: cuda
 *                    with a CUDA libvmaf, else cpu)
 *   --e2e-frames N   frames of the y4m pair (default 600 at 576x324, 120 at 1080p)
 *   --e2e-runs N     runs of each tool (default 5, --quick 1)
 *   --tmp DIR        directory of the y4m pair (default $TMPDIR or /tmp) */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"
#include "fovea/io.h"
#include "fovea/quality.h"

static const struct {
    const char *name;
    int w, h;
    int e2e_frames, e2e_quick;
    int bpc;           /* 8, or 10: the 8-bit pair shifted up with low-bit texture */
    const char *model; /* NULL: vmaf_v0.6.1 (and the whole-process rows) */
} cases[] = {
    {"576x324 8-bit", 576, 324, 600, 120, 8, NULL},
    {"1920x1080 8-bit", 1920, 1080, 120, 24, 8, NULL},
    /* every v1 feature (CAMBI, speed_chroma, ADM csf 2, motion): API rows only */
    {"1920x1080 10-bit v1.0.16_3d0h", 1920, 1080, 0, 0, 10, "version=vmaf_v1.0.16_3d0h"},
};

/* Distinct generated pairs a sequence cycles through. */
#define DISTINCT 8

/* ---------------------------------------------------------------- frames */

/* A smooth pattern moving by frame t with texture and noise as the
 * reference; the distorted is the reference, 2x2-averaged, plus noise. */
static void synth_pair(fovea_frame *ref, fovea_frame *dis, int t, uint64_t *seed)
{
    const int w = ref->width, h = ref->height;
    uint64_t x = *seed;
    for (int y = 0; y < h; y++) {
        uint8_t *r = ref->data[0] + (ptrdiff_t)y * ref->stride[0];
        for (int i = 0; i < w; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            const double v = 128 + 70 * sin((i + 4.0 * t) * 0.013) * cos((y - 3.0 * t) * 0.017) +
                             20 * sin(i * 0.31) * sin(y * 0.23) + (double)((x >> 59) & 15) - 8;
            r[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
    for (int y = 0; y < h; y++) {
        const uint8_t *r0 = ref->data[0] + (ptrdiff_t)y * ref->stride[0];
        const uint8_t *r1 = ref->data[0] + (ptrdiff_t)(y + 1 < h ? y + 1 : y) * ref->stride[0];
        uint8_t *d = dis->data[0] + (ptrdiff_t)y * dis->stride[0];
        for (int i = 0; i < w; i++) {
            const int j = i + 1 < w ? i + 1 : i;
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            const int s = (r0[i] + r0[j] + r1[i] + r1[j] + 2) / 4 + (int)((x >> 60) & 7) - 3;
            d[i] = (uint8_t)(s < 0 ? 0 : s > 255 ? 255 : s);
        }
    }
    for (int p = 1; p < 3; p++) {
        const size_t row = fovea_plane_row_bytes(ref->fmt, w, p);
        for (int y = 0; y < fovea_plane_height(ref->fmt, h, p); y++) {
            memset(ref->data[p] + (ptrdiff_t)y * ref->stride[p], 0x70 + (y & 15), row);
            memset(dis->data[p] + (ptrdiff_t)y * dis->stride[p], 0x70 + (y & 15), row);
        }
    }
    *seed = x;
}

/* The 8-bit frame in as a 10-bit one: samples times 4 plus two low bits of
 * noise (so 10-bit arithmetic is exercised, not just shifted 8-bit values). */
static void widen10(fovea_frame *out, const fovea_frame *in, uint64_t *seed)
{
    uint64_t x = *seed;
    for (int p = 0; p < 3; p++) {
        const int pw = fovea_plane_width(in->fmt, in->width, p);
        for (int y = 0; y < fovea_plane_height(in->fmt, in->height, p); y++) {
            const uint8_t *s = in->data[p] + (ptrdiff_t)y * in->stride[p];
            uint16_t *d = (uint16_t *)(void *)(out->data[p] + (ptrdiff_t)y * out->stride[p]);
            for (int i = 0; i < pw; i++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                d[i] = (uint16_t)(s[i] * 4 + (int)(x >> 62));
            }
        }
    }
    *seed = x;
}

/* ---------------------------------------------------------------- API rows */

typedef struct vmaf_case {
    fovea_vmaf *v;
    const fovea_frame *ref, *dis; /* DISTINCT pairs, cycled */
    int next;
    int frames; /* pairs per iteration */
    int depth;  /* pairs kept pending: 3 batches, or 0 (each pair waited for) */
} vmaf_case;

/* Submit c->frames pairs of the stream, keeping c->depth pending (receiving
 * the oldest beyond that), then end the stream and receive the rest: the
 * queue, lookahead and pooling as a caller sees them. */
static int run_stream(void *arg)
{
    vmaf_case *c = arg;
    fovea_vmaf_scores s;
    for (int i = 0; i < c->frames; i++) {
        const int k = c->next++ % DISTINCT;
        if (fovea_vmaf_submit(c->v, &c->ref[k], &c->dis[k]) < 0)
            return 1;
        int st = FOVEA_OK;
        /* depth 0: every score as soon as it is ready (motion's lookahead
         * keeps the newest pair) */
        while ((c->depth == 0 || fovea_vmaf_pending(c->v) > c->depth) &&
               (st = fovea_vmaf_receive(c->v, &s)) == FOVEA_OK)
            ;
        if (st < 0 || (st == FOVEA_EOF && c->depth > 0))
            return 1;
    }
    if (fovea_vmaf_flush(c->v) < 0)
        return 1;
    while (fovea_vmaf_receive(c->v, &s) == FOVEA_OK)
        ;
    return fovea_vmaf_pending(c->v) != 0;
}

static void per_frame(bench_stats *s, int frames)
{
    s->median_us /= frames;
    s->min_us /= frames;
    s->max_us /= frames;
    s->mean_us /= frames;
}

static void api_row(bench_table *t, fovea_context *ctx, const char *case_name, const char *what,
                    const char *model, const fovea_frame *ref, const fovea_frame *dis, int frames,
                    int runs, int queued, double bytes, const char *note)
{
    fovea_vmaf *v = NULL;
    fovea_vmaf_model *m = NULL;
    if (model && strncmp(model, "features=", 9) == 0) {
        /* one feature list alone, no model (the device time of each) */
        fovea_vmaf_settings vs;
        fovea_vmaf_default_settings(&vs);
        vs.features = model + 9;
        vs.flags = FOVEA_VMAF_NO_PREDICTION;
        BENCH_FOVEA(ctx, fovea_vmaf_open(&v, ctx, &vs));
    } else if (model) {
        fovea_vmaf_settings vs;
        fovea_vmaf_default_settings(&vs);
        BENCH_FOVEA(ctx, fovea_vmaf_model_open(&m, ctx, model));
        vs.model = m;
        BENCH_FOVEA(ctx, fovea_vmaf_open(&v, ctx, &vs));
    } else {
        BENCH_FOVEA(ctx, fovea_vmaf_open(&v, ctx, NULL));
    }
    const int batch = fovea_vmaf_batch_size(v, ref->width, ref->height);
    vmaf_case c = {v, ref, dis, 0, frames, queued ? 3 * batch : 0};
    bench_stats s;
    bench_time_cpu(run_stream, &c, 1, runs, &s);
    per_frame(&s, frames);
    char name[96];
    snprintf(name, sizeof(name), "%s, %s", case_name, what);
    const fovea_backend b = fovea_vmaf_backend(v);
    bench_table_add(t, name, b == FOVEA_BACKEND_CUDA ? "cuda" : "cpu", &s, bytes, 1, note);
    fovea_vmaf_close(&v);
    fovea_vmaf_model_close(&m);
}

/* ---------------------------------------------------------------- VIF alone */

/* The rows of the feature list "vif" (libvmaf's integer VIF alone), as the
 * former bench_vif printed them, each name prefixed "vif ": per frame pair
 * at 1920x1080 and 576x324 8-bit and 3840x2160 10-bit. CUDA with
 * device-resident frames, one pair per fovea_vmaf_process (CUDA events);
 * queued batches (submit/receive) of device, pinned and pageable frames
 * (wall clock per pair: the pinned and pageable rows show how much of the
 * H2D copy hides behind the kernels); CUDA from pinned and pageable frames
 * one pair at a time; end to end, `fovea vif` on y4m files in the page cache
 * (its own frames/s, from its JSON; with --fovea); and the C backend on
 * every CPU core. */

typedef struct vif_case {
    fovea_vmaf *vif;
    const fovea_frame *ref, *dis;
    int pairs; /* queued rows: pairs per iteration */
} vif_case;

static int vif_run_one(void *arg)
{
    vif_case *c = arg;
    fovea_vmaf_scores s;
    return fovea_vmaf_process(c->vif, c->ref, c->dis, &s) < 0;
}

/* Submit c->pairs pairs (the same frames again: the scorer does not care), then
 * receive them all. */
static int vif_run_queued(void *arg)
{
    vif_case *c = arg;
    fovea_vmaf_scores s;
    for (int i = 0; i < c->pairs; i++)
        if (fovea_vmaf_submit(c->vif, c->ref, c->dis) < 0)
            return 1;
    for (int i = 0; i < c->pairs; i++)
        if (fovea_vmaf_receive(c->vif, &s) != FOVEA_OK)
            return 1;
    return 0;
}

static void per_pair(bench_stats *s, int pairs)
{
    s->median_us /= pairs;
    s->min_us /= pairs;
    s->max_us /= pairs;
    s->mean_us /= pairs;
}

static const struct {
    const char *name;
    int w, h, bpc;
    int e2e_frames, e2e_quick; /* y4m frames of the end-to-end rows */
} vif_cases[] = {
    {"1920x1080 8-bit", 1920, 1080, 8, 400, 100},
    {"576x324 8-bit", 576, 324, 8, 4000, 800},
    {"3840x2160 10-bit", 3840, 2160, 10, 40, 12},
};

/* Real-looking luma: a smooth moving pattern, texture and noise; the distorted
 * frame is a 3x3 blur of it plus noise. Chroma is a smooth ramp. */
static void vif_synth_pair(fovea_frame *ref, fovea_frame *dis, int bpc, int t, uint64_t *seed)
{
    const int w = ref->width, h = ref->height, maxv = (1 << bpc) - 1;
    const double ph = 0.37 * t;
    uint64_t x = *seed;
    for (int y = 0; y < h; y++) {
        const double cy = cos(y * 0.013 + ph), ty = sin(y * 0.21);
        for (int i = 0; i < w; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            const double v = 0.5 + 0.25 * sin(i * 0.011 - ph) * cy + 0.08 * sin(i * 0.17) * ty +
                             0.03 * ((double)(x >> 40) / (double)(1u << 24) - 0.5);
            int s = (int)(v * maxv);
            s = s < 0 ? 0 : s > maxv ? maxv : s;
            if (bpc == 8)
                ref->data[0][(ptrdiff_t)y * ref->stride[0] + i] = (uint8_t)s;
            else
                ((uint16_t *)(void *)(ref->data[0] + (ptrdiff_t)y * ref->stride[0]))[i] =
                    (uint16_t)s;
        }
    }
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++) {
            int s = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const int yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
                    const int xx = i + dx < 0 ? 0 : i + dx >= w ? w - 1 : i + dx;
                    const uint8_t *row = ref->data[0] + (ptrdiff_t)yy * ref->stride[0];
                    s += bpc == 8 ? row[xx] : ((const uint16_t *)(const void *)row)[xx];
                }
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            s = s / 9 + (int)((x >> 59) & 7) * (maxv / 255 + 1) - 3 * (maxv / 255 + 1);
            s = s < 0 ? 0 : s > maxv ? maxv : s;
            if (bpc == 8)
                dis->data[0][(ptrdiff_t)y * dis->stride[0] + i] = (uint8_t)s;
            else
                ((uint16_t *)(void *)(dis->data[0] + (ptrdiff_t)y * dis->stride[0]))[i] =
                    (uint16_t)s;
        }
    for (int p = 1; p < 3; p++) {
        const size_t row = fovea_plane_row_bytes(ref->fmt, w, p);
        for (int y = 0; y < fovea_plane_height(ref->fmt, h, p); y++) {
            memset(ref->data[p] + (ptrdiff_t)y * ref->stride[p], 0x60 + (y & 31), row);
            memset(dis->data[p] + (ptrdiff_t)y * dis->stride[p], 0x60 + (y & 31), row);
        }
    }
    *seed = x;
}

/* Write ref.y4m and dis.y4m of `frames` frames (16 distinct pairs, cycled).
 * @return 0, or -1 with a message */
static int vif_write_clips(const char *dir, int w, int h, int bpc, int frames)
{
    const fovea_pixfmt fmt = fovea_pixfmt_yuv(420, bpc);
    enum { VIF_DISTINCT = 16 };
    fovea_frame ref[VIF_DISTINCT], dis[VIF_DISTINCT];
    memset(ref, 0, sizeof(ref));
    memset(dis, 0, sizeof(dis));
    uint64_t seed = 12345;
    for (int i = 0; i < VIF_DISTINCT; i++) {
        BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &ref[i], w, h, fmt, FOVEA_MEM_HOST));
        BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &dis[i], w, h, fmt, FOVEA_MEM_HOST));
        vif_synth_pair(&ref[i], &dis[i], bpc, i, &seed);
    }
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.y4m", dir, k ? "dis" : "ref");
        rc = bench_write_y4m(path, k ? dis : ref, VIF_DISTINCT, 0, frames, 25, "bench_vmaf");
    }
    for (int i = 0; i < VIF_DISTINCT; i++) {
        fovea_frame_free(NULL, &ref[i]);
        fovea_frame_free(NULL, &dis[i]);
    }
    return rc;
}

/* Run `cli vif -q --backend B --json OUT ref.y4m dis.y4m` and return the
 * frames/s it reports (timed from its first read to its last score), or -1. */
static double vif_run_cli(const char *cli, const char *dir, const char *backend)
{
    char ref[4096], dis[4096], json[4096];
    snprintf(ref, sizeof(ref), "%s/ref.y4m", dir);
    snprintf(dis, sizeof(dis), "%s/dis.y4m", dir);
    snprintf(json, sizeof(json), "%s/out.json", dir);
    char *argv[] = {(char *)cli, "vif", "-q", "--backend", (char *)backend,
                    "--json",    json,  ref,  dis,         NULL};
    remove(json); /* a JSON left from an earlier run must not count */
    const double fps = bench_run_cli_fps(argv, json, "bench_vmaf");
    if (!(fps > 0)) /* a failed run was named above; this says what came out */
        fprintf(stderr, "bench_vmaf: %s vif --backend %s: %s\n", cli, backend,
                access(json, R_OK) != 0 ? "no JSON written" : "no positive \"fps\" in its JSON");
    return fps;
}

static void vif_e2e_rows(bench_table *table, const char *cli, const char *tmp, int ci, int quick,
                         int runs)
{
    const int w = vif_cases[ci].w, h = vif_cases[ci].h, bpc = vif_cases[ci].bpc;
    const int frames = quick ? vif_cases[ci].e2e_quick : vif_cases[ci].e2e_frames;
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/bench_vmaf_vif_%d_XXXXXX", tmp, (int)getpid());
    if (!mkdtemp(dir)) {
        fprintf(stderr,
                "bench_vmaf: cannot make a directory in %s: vif %s, y4m files e2e "
                "skipped\n",
                tmp, vif_cases[ci].name);
        return;
    }
    char ref[4200], dis[4200], json[4200];
    snprintf(ref, sizeof(ref), "%s/ref.y4m", dir);
    snprintf(dis, sizeof(dis), "%s/dis.y4m", dir);
    snprintf(json, sizeof(json), "%s/out.json", dir);
    if (vif_write_clips(dir, w, h, bpc, frames) != 0) {
        fprintf(stderr,
                "bench_vmaf: cannot write the y4m files in %s: vif %s, y4m files e2e "
                "skipped\n",
                dir, vif_cases[ci].name);
    } else {
        bench_warm_file(ref);
        bench_warm_file(dis);
        double fps[16];
        int n = 0;
        if (runs > 16)
            runs = 16;
        for (int r = 0; r < runs; r++) {
            const double f = vif_run_cli(cli, dir, "cuda");
            if (f > 0)
                fps[n++] = f;
        }
        if (n > 0) {
            double us[16];
            for (int r = 0; r < n; r++)
                us[r] = 1e6 / fps[r];
            bench_stats s;
            bench_stats_compute(us, n, &s);
            char name[96], note[160];
            snprintf(name, sizeof(name), "vif %s, y4m files e2e", vif_cases[ci].name);
            snprintf(note, sizeof(note), "fovea vif CLI, %d frames, %.0f fps (median of %d)",
                     frames, 1e6 / s.median_us, n);
            const double bytes =
                2.0 * (double)fovea_frame_packed_size(fovea_pixfmt_yuv(420, bpc), w, h);
            bench_table_add(table, name, "cuda-e2e", &s, bytes, 1, note);
        } else {
            fprintf(stderr,
                    "bench_vmaf: vif %s, y4m files e2e: no run of %s vif gave a frame "
                    "rate (see above): row skipped\n",
                    vif_cases[ci].name, cli);
        }
    }
    remove(ref);
    remove(dis);
    remove(json);
    rmdir(dir);
}

static void vif_rows(bench_table *table, const bench_opts *opts, fovea_context *cpu,
                     fovea_context *gpu, const char *cli, const char *tmp)
{
    if (gpu && cli && access(cli, X_OK) != 0) {
        fprintf(bench_text_stream(opts),
                "no fovea executable at %s (--fovea PATH): vif end-to-end rows skipped\n", cli);
        cli = NULL;
    }
    const int e2e = cli != NULL;
    fovea_vmaf_settings vs;
    fovea_vmaf_default_settings(&vs);
    vs.features = "vif";
    for (size_t i = 0; i < sizeof(vif_cases) / sizeof(vif_cases[0]); i++) {
        if (!bench_case_enabled(opts, vif_cases[i].name))
            continue;
        const int w = vif_cases[i].w, h = vif_cases[i].h;
        const fovea_pixfmt fmt = fovea_pixfmt_yuv(420, vif_cases[i].bpc);
        const double bytes =
            2.0 * w * h * (vif_cases[i].bpc > 8 ? 2 : 1); /* two luma planes read */
        fovea_frame ref, dis;
        BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &ref, w, h, fmt, FOVEA_MEM_HOST));
        BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &dis, w, h, fmt, FOVEA_MEM_HOST));
        bench_fill_frame(&ref, 100 + i);
        bench_fill_frame(&dis, 200 + i);
        char name[96], note[160];

        if (gpu) {
            fovea_vmaf *v = NULL;
            BENCH_FOVEA(gpu, fovea_vmaf_open(&v, gpu, &vs));
            fovea_frame dref, ddis, pref, pdis;
            BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &dref, w, h, fmt, FOVEA_MEM_DEVICE));
            BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &ddis, w, h, fmt, FOVEA_MEM_DEVICE));
            BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &pref, w, h, fmt, FOVEA_MEM_PINNED));
            BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &pdis, w, h, fmt, FOVEA_MEM_PINNED));
            BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &dref, &ref));
            BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &ddis, &dis));
            BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &pref, &ref));
            BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &pdis, &dis));
            BENCH_FOVEA(gpu, fovea_sync(gpu));
            bench_stats s;
            vif_case c = {v, &dref, &ddis, 1};
            bench_time_gpu(vif_run_one, &c, fovea_context_stream(gpu), opts->warmup, opts->runs,
                           &s);
            snprintf(name, sizeof(name), "vif %s, device frames", vif_cases[i].name);
            bench_table_add(table, name, "cuda", &s, bytes, 1, "4 launches + sums read-back");

            /* queued: 4 batches per iteration, per pair */
            const int batch = fovea_vmaf_batch_size(v, w, h);
            c.pairs = 4 * batch;
            const int qruns = opts->quick ? 3 : 10;
            static const struct {
                const char *what, *note;
                int mem;
            } q[] = {
                {"device", "submit/receive, device frames", 0},
                {"pinned", "submit/receive, H2D on a 2nd stream overlapped", 1},
                {"pageable", "submit/receive, memcpy to pinned + H2D overlapped", 2},
            };
            for (int k = 0; k < 3; k++) {
                c.ref = q[k].mem == 0 ? &dref : q[k].mem == 1 ? &pref : &ref;
                c.dis = q[k].mem == 0 ? &ddis : q[k].mem == 1 ? &pdis : &dis;
                bench_time_cpu(vif_run_queued, &c, 1, qruns, &s);
                per_pair(&s, c.pairs);
                snprintf(name, sizeof(name), "vif %s, queued %s frames", vif_cases[i].name,
                         q[k].what);
                snprintf(note, sizeof(note), "%s, batch %d, %d pairs/iter", q[k].note, batch,
                         c.pairs);
                bench_table_add(table, name, q[k].mem ? "cuda-e2e" : "cuda", &s, bytes, 1, note);
            }

            c.pairs = 1;
            c.ref = &pref;
            c.dis = &pdis;
            bench_time_cpu(vif_run_one, &c, opts->warmup, opts->runs, &s);
            snprintf(name, sizeof(name), "vif %s, pinned host frames", vif_cases[i].name);
            bench_table_add(table, name, "cuda-e2e", &s, bytes, 1, "H2D copy + VIF, one pair");
            c.ref = &ref;
            c.dis = &dis;
            bench_time_cpu(vif_run_one, &c, opts->warmup, opts->runs, &s);
            snprintf(name, sizeof(name), "vif %s, pageable host frames", vif_cases[i].name);
            bench_table_add(table, name, "cuda-e2e", &s, bytes, 1, "memcpy to pinned + H2D + VIF");
            fovea_frame_free(gpu, &dref);
            fovea_frame_free(gpu, &ddis);
            fovea_frame_free(gpu, &pref);
            fovea_frame_free(gpu, &pdis);
            fovea_vmaf_close(&v);
            if (e2e)
                vif_e2e_rows(table, cli, tmp, (int)i, opts->quick, opts->quick ? 1 : 3);
        }

        {
            fovea_vmaf *v = NULL;
            BENCH_FOVEA(cpu, fovea_vmaf_open(&v, cpu, &vs));
            vif_case c = {v, &ref, &dis, 1};
            bench_stats s;
            const int runs = opts->quick ? 2 : (w * h > 4000000 ? 5 : 20);
            bench_time_cpu(vif_run_one, &c, 1, runs, &s);
            snprintf(note, sizeof(note), "%d threads", fovea_context_threads(cpu));
            snprintf(name, sizeof(name), "vif %s, C backend", vif_cases[i].name);
            bench_table_add(table, name, "cpu", &s, bytes, 1, note);
            fovea_vmaf_close(&v);
        }
        fovea_frame_free(NULL, &ref);
        fovea_frame_free(NULL, &dis);
    }
}

/* ---------------------------------------------------------------- whole process */

typedef struct e2e_opts {
    const char *libvmaf, *fovea, *backend, *tmp;
    int threads, frames, runs;
} e2e_opts;

/* Run argv with stdout to /dev/null; the wall time in us, or -1. */
static double run_wall(char *const argv[])
{
    const double t0 = bench_now_us();
    pid_t pid = fork();
    if (pid < 0)
        return -1.0;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            close(fd);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return -1.0;
    const double t = bench_now_us() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_vmaf: %s failed (status %d)\n", argv[0], status);
        return -1.0;
    }
    return t;
}

/* pooled_metrics.vmaf.mean of a JSON file in libvmaf's layout, or NAN. */
static double pooled_vmaf_mean(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NAN;
    static char buf[1 << 16];
    /* the pooled section is at the end */
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size > (long)sizeof(buf) - 1 ? size - (long)sizeof(buf) + 1 : 0, SEEK_SET);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strstr(buf, "\"pooled_metrics\"");
    p = p ? strstr(p, "\"vmaf\"") : NULL;
    p = p ? strstr(p, "\"mean\"") : NULL;
    p = p ? strchr(p, ':') : NULL;
    return p ? strtod(p + 1, NULL) : NAN;
}

static void e2e_rows(bench_table *t, const e2e_opts *eo, int ci, int quick, FILE *text)
{
    const int w = cases[ci].w, h = cases[ci].h;
    const int frames = eo->frames > 0 ? eo->frames
                       : quick        ? cases[ci].e2e_quick
                                      : cases[ci].e2e_frames;
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/bench_vmaf_%d_XXXXXX", eo->tmp, (int)getpid());
    if (!mkdtemp(dir)) {
        fprintf(stderr, "bench_vmaf: cannot make a directory in %s\n", eo->tmp);
        return;
    }
    char ref[4200], dis[4200], ljson[4200], fjson[4200];
    snprintf(ref, sizeof(ref), "%s/ref.y4m", dir);
    snprintf(dis, sizeof(dis), "%s/dis.y4m", dir);
    snprintf(ljson, sizeof(ljson), "%s/libvmaf.json", dir);
    snprintf(fjson, sizeof(fjson), "%s/fovea.json", dir);

    fovea_frame fr[DISTINCT], fd[DISTINCT];
    memset(fr, 0, sizeof(fr));
    memset(fd, 0, sizeof(fd));
    uint64_t seed = 777;
    for (int i = 0; i < DISTINCT; i++) {
        BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &fr[i], w, h, FOVEA_PIX_I420, FOVEA_MEM_HOST));
        BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &fd[i], w, h, FOVEA_PIX_I420, FOVEA_MEM_HOST));
        synth_pair(&fr[i], &fd[i], i, &seed);
    }
    int rc = bench_write_y4m(ref, fr, DISTINCT, 0, frames, 25, "bench_vmaf");
    if (rc == 0)
        rc = bench_write_y4m(dis, fd, DISTINCT, 0, frames, 25, "bench_vmaf");
    for (int i = 0; i < DISTINCT; i++) {
        fovea_frame_free(NULL, &fr[i]);
        fovea_frame_free(NULL, &fd[i]);
    }
    if (rc == 0) {
        bench_warm_file(ref);
        bench_warm_file(dis);
        const int lcuda = eo->libvmaf && strstr(eo->libvmaf, "cuda") != NULL;
        const char *backend = eo->backend ? eo->backend : lcuda ? "cuda" : "cpu";
        char threads[32];
        snprintf(threads, sizeof(threads), "%d", eo->threads);
        char *largv[20], *fargv[20];
        int n = 0;
        largv[n++] = (char *)eo->libvmaf;
        largv[n++] = "-r";
        largv[n++] = ref;
        largv[n++] = "-d";
        largv[n++] = dis;
        largv[n++] = "-m";
        largv[n++] = "version=vmaf_v0.6.1";
        if (!lcuda) {
            largv[n++] = "--threads";
            largv[n++] = threads;
        }
        largv[n++] = "--json";
        largv[n++] = "-o";
        largv[n++] = ljson;
        largv[n++] = "-q";
        largv[n] = NULL;
        n = 0;
        fargv[n++] = (char *)eo->fovea;
        fargv[n++] = "vmaf";
        fargv[n++] = ref;
        fargv[n++] = dis;
        fargv[n++] = "--backend";
        fargv[n++] = (char *)backend;
        if (!strcmp(backend, "cpu")) {
            fargv[n++] = "--threads";
            fargv[n++] = threads;
        }
        fargv[n++] = "--json";
        fargv[n++] = fjson;
        fargv[n] = NULL;

        double lus[64], fus[64];
        int ln = 0, fn = 0;
        const int runs = eo->runs < 64 ? eo->runs : 64;
        for (int r = 0; r < runs; r++) { /* alternate: the same machine state for both */
            if (eo->libvmaf) {
                const double us = run_wall(largv);
                if (us > 0)
                    lus[ln++] = us / frames;
            }
            if (eo->fovea) {
                const double us = run_wall(fargv);
                if (us > 0)
                    fus[fn++] = us / frames;
            }
        }
        const double bytes = 2.0 * (double)fovea_frame_packed_size(FOVEA_PIX_I420, w, h);
        bench_stats ls = {0}, fs = {0};
        char name[96], note[160];
        if (ln > 0) {
            bench_stats_compute(lus, ln, &ls);
            snprintf(name, sizeof(name), "%s, libvmaf vmaf process", cases[ci].name);
            snprintf(note, sizeof(note), "%s%s%s, %d frames, VMAF mean %.6f", "libvmaf ",
                     lcuda ? "CUDA" : "CPU --threads ", lcuda ? "" : threads, frames,
                     pooled_vmaf_mean(ljson));
            bench_table_add(t, name, lcuda ? "cuda-e2e" : "cpu-e2e", &ls, bytes, 1, note);
        }
        if (fn > 0) {
            bench_stats_compute(fus, fn, &fs);
            snprintf(name, sizeof(name), "%s, fovea vmaf process", cases[ci].name);
            snprintf(note, sizeof(note), "--backend %s%s%s, %d frames, VMAF mean %.6f", backend,
                     strcmp(backend, "cpu") ? "" : " --threads ",
                     strcmp(backend, "cpu") ? "" : threads, frames, pooled_vmaf_mean(fjson));
            char be[16];
            snprintf(be, sizeof(be), "%s-e2e", backend);
            bench_table_add(t, name, be, &fs, bytes, 1, note);
        }
        if (ln > 0 && fn > 0)
            fprintf(text,
                    "%s: fovea vmaf / libvmaf vmaf = %.2fx the frames/s (%.0f vs %.0f fps, "
                    "medians of %d and %d runs)\n",
                    cases[ci].name, ls.median_us / fs.median_us, 1e6 / fs.median_us,
                    1e6 / ls.median_us, fn, ln);
    }
    remove(ref);
    remove(dis);
    remove(ljson);
    remove(fjson);
    rmdir(dir);
}

/* ---------------------------------------------------------------- main */

#define EXTRA_USAGE                                                                                \
    "  --threads N      CPU threads (default: all)\n"                                              \
    "  --libvmaf PATH   libvmaf's vmaf tool: whole-process rows beside fovea's\n"                  \
    "  --fovea PATH     the fovea executable: whole-process rows of `fovea vmaf`\n"                \
    "                   (the vif rows of `fovea vif` default to ../fovea from here)\n"             \
    "  --no-e2e         no `fovea vif` end-to-end rows\n"                                          \
    "  --backend B      fovea's backend there (default cuda with a CUDA libvmaf, else cpu)\n"      \
    "  --e2e-frames N   frames of the y4m pair (default 600 / 120 at 1080p)\n"                     \
    "  --e2e-runs N     runs of each tool (default 5, --quick 1)\n"                                \
    "  --tmp DIR        directory of the y4m pair (default $TMPDIR or /tmp)\n"

int main(int argc, char **argv)
{
    bench_opts opts;
    bench_parse_args_ex(argc, argv, &opts, EXTRA_USAGE);
    e2e_opts eo = {NULL, NULL, NULL, getenv("TMPDIR"), 0, 0, 0};
    int vif_e2e = 1;
    for (int i = 0; i < opts.n_extra; i++) {
        const char *a = opts.extra[i];
        const char *val = i + 1 < opts.n_extra ? opts.extra[i + 1] : NULL;
        if (!strcmp(a, "--no-e2e")) {
            vif_e2e = 0;
            continue;
        }
        if (!val) {
            fprintf(stderr, "bench_vmaf: unknown argument '%s'\n", a);
            return 2;
        }
        if (!strcmp(a, "--threads"))
            eo.threads = atoi(val);
        else if (!strcmp(a, "--libvmaf"))
            eo.libvmaf = val;
        else if (!strcmp(a, "--fovea"))
            eo.fovea = val;
        else if (!strcmp(a, "--backend"))
            eo.backend = val;
        else if (!strcmp(a, "--e2e-frames"))
            eo.frames = atoi(val);
        else if (!strcmp(a, "--e2e-runs"))
            eo.runs = atoi(val);
        else if (!strcmp(a, "--tmp"))
            eo.tmp = val;
        else {
            fprintf(stderr, "bench_vmaf: unknown argument '%s'\n", a);
            return 2;
        }
        i++;
    }
    if (!eo.tmp || !*eo.tmp)
        eo.tmp = "/tmp";
    if (eo.runs <= 0)
        eo.runs = opts.quick ? 1 : 5;
    /* the vif end-to-end rows run by default, as bench_vif's did (scripts/bench.sh
     * passes no path): --fovea, else <build>/fovea from <build>/bench/bench_vmaf */
    bench_opts no_extra = opts;
    no_extra.n_extra = 0;
    static bench_e2e ee;
    bench_e2e_parse(&no_extra, &ee, "bench_vmaf");
    const char *vif_cli = !vif_e2e ? NULL : eo.fovea ? eo.fovea : ee.cli;
    FILE *text = bench_text_stream(&opts);
    static const char *const tools[2] = {"--libvmaf", "--fovea"};
    const char *paths[2] = {eo.libvmaf, eo.fovea};
    for (int k = 0; k < 2; k++) {
        if (paths[k] && access(paths[k], X_OK) != 0) {
            fprintf(stderr, "bench_vmaf: %s %s: not an executable\n", tools[k], paths[k]);
            return 2;
        }
    }

    bench_table table;
    bench_table_init(&table, "vmaf", "frames", &opts);
    fovea_context *cpu = NULL;
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    cs.threads = eo.threads;
    BENCH_FOVEA(NULL, fovea_open(&cpu, &cs));
    eo.threads = fovea_context_threads(cpu);

    double copy_bw = 0.0;
    fovea_context *gpu = NULL;
#ifdef FOVEA_HAVE_CUDA
    int ndev = 0;
    fovea_device_count(&ndev);
    if (ndev > 0) {
        copy_bw = bench_copy_bandwidth(0);
        fovea_settings gs;
        fovea_default_settings(&gs);
        gs.backend = FOVEA_BACKEND_CUDA;
        gs.cuda_device = opts.device;
        BENCH_FOVEA(NULL, fovea_open(&gpu, &gs));
        /* CUDA rows only where the CUDA backend of VMAF exists */
        fovea_vmaf *probe = NULL;
        if (fovea_vmaf_open(&probe, gpu, NULL) < 0 ||
            fovea_vmaf_backend(probe) != FOVEA_BACKEND_CUDA) {
            fprintf(text, "no CUDA backend of VMAF in this build: CUDA rows skipped\n");
            fovea_close(&gpu);
        }
        fovea_vmaf_close(&probe);
    }
#endif
    if (!gpu)
        fprintf(text, "no CUDA context: GPU rows skipped\n");

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (!bench_case_enabled(&opts, cases[i].name))
            continue;
        const int w = cases[i].w, h = cases[i].h;
        const char *model = cases[i].model;
        const fovea_pixfmt fmt = cases[i].bpc == 10 ? FOVEA_PIX_I420P10 : FOVEA_PIX_I420;
        /* the planes read: two luma planes (v0.6.1); v1 reads chroma too */
        const double bytes = (model ? 3.0 : 2.0) * w * h * (cases[i].bpc > 8 ? 2 : 1);
        fovea_frame ref[DISTINCT], dis[DISTINCT];
        memset(ref, 0, sizeof(ref));
        memset(dis, 0, sizeof(dis));
        uint64_t seed = 1000 + i;
        for (int k = 0; k < DISTINCT; k++) {
            BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &ref[k], w, h, fmt, FOVEA_MEM_HOST));
            BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &dis[k], w, h, fmt, FOVEA_MEM_HOST));
            if (fmt == FOVEA_PIX_I420) {
                synth_pair(&ref[k], &dis[k], k, &seed);
                continue;
            }
            fovea_frame r8, d8;
            BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &r8, w, h, FOVEA_PIX_I420, FOVEA_MEM_HOST));
            BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &d8, w, h, FOVEA_PIX_I420, FOVEA_MEM_HOST));
            synth_pair(&r8, &d8, k, &seed);
            widen10(&ref[k], &r8, &seed);
            widen10(&dis[k], &d8, &seed);
            fovea_frame_free(NULL, &r8);
            fovea_frame_free(NULL, &d8);
        }
        const int small = w * h < 1000000;
        char note[160];

        if (gpu) {
            fovea_frame dref[DISTINCT], ddis[DISTINCT], pref[DISTINCT], pdis[DISTINCT];
            for (int k = 0; k < DISTINCT; k++) {
                BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &dref[k], w, h, fmt, FOVEA_MEM_DEVICE));
                BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &ddis[k], w, h, fmt, FOVEA_MEM_DEVICE));
                BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &pref[k], w, h, fmt, FOVEA_MEM_PINNED));
                BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &pdis[k], w, h, fmt, FOVEA_MEM_PINNED));
                BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &dref[k], &ref[k]));
                BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &ddis[k], &dis[k]));
                BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &pref[k], &ref[k]));
                BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &pdis[k], &dis[k]));
            }
            BENCH_FOVEA(gpu, fovea_sync(gpu));
            const int frames = opts.quick ? 64 : (small ? 1024 : 256);
            const int runs = opts.quick ? 2 : 5;
            snprintf(note, sizeof(note), "3 batches pending, %d frames a stream", frames);
            api_row(&table, gpu, cases[i].name, "device frames", model, dref, ddis, frames, runs, 1,
                    bytes, note);
            api_row(&table, gpu, cases[i].name, "pinned host frames", model, pref, pdis, frames,
                    runs, 1, bytes, note);
            api_row(&table, gpu, cases[i].name, "pageable host frames", model, ref, dis, frames,
                    runs, 1, bytes, note);
            /* v1's features one at a time, with the model's options */
            static const char *const v1_features[] = {
                "features=cambi:cambi_high_res_speedup=1080:cambi_max_val=17:cambi_vis_lum_threshold=0.06",
                "features=speed_chroma:speed_max_val=45:speed_nn_floor=0.1:speed_sigma_nn=0.19:"
                "speed_weight_var_mode=5",
                "features=adm:adm_csf_mode=2:adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_min_val="
                "0.5:adm_noise_weight=0.02",
                "features=motion:motion_max_val=18", "features=vif"};
            for (size_t f = 0; model && f < sizeof(v1_features) / sizeof(v1_features[0]); f++) {
                char what[96];
                snprintf(what, sizeof(what), "device frames, %.*s alone",
                         (int)strcspn(v1_features[f] + 9, ":"), v1_features[f] + 9);
                api_row(&table, gpu, cases[i].name, what, v1_features[f], dref, ddis, frames, runs,
                        1, bytes, note);
            }
            for (int k = 0; k < DISTINCT; k++) {
                fovea_frame_free(gpu, &dref[k]);
                fovea_frame_free(gpu, &ddis[k]);
                fovea_frame_free(gpu, &pref[k]);
                fovea_frame_free(gpu, &pdis[k]);
            }
        }

        {
            const int frames = opts.quick ? 8 : (small ? 64 : 16);
            const int runs = opts.quick ? 1 : 3;
            const int th = fovea_context_threads(cpu);
            snprintf(note, sizeof(note), "%d threads, a pair per thread, %d frames a stream", th,
                     frames);
            api_row(&table, cpu, cases[i].name, "C backend", model, ref, dis, frames, runs, 1,
                    bytes, note);
            if (th > 1) {
                snprintf(note, sizeof(note), "%d threads, each pair waited for (rows split)", th);
                api_row(&table, cpu, cases[i].name, "C backend, one at a time", model, ref, dis,
                        frames, runs, 0, bytes, note);
            }
        }
        for (int k = 0; k < DISTINCT; k++) {
            fovea_frame_free(NULL, &ref[k]);
            fovea_frame_free(NULL, &dis[k]);
        }
        if ((eo.libvmaf || eo.fovea) && !model)
            e2e_rows(&table, &eo, (int)i, opts.quick, text);
    }
    vif_rows(&table, &opts, cpu, gpu, vif_cli, eo.tmp);
    if (gpu)
        fovea_close(&gpu);
    fovea_close(&cpu);
    return bench_table_finish(&table, copy_bw);
}
