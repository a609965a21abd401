/* bench_vif: integer VIF per frame pair at 1920x1080 and 576x324 8-bit and
 * 3840x2160 10-bit. Rows: CUDA with device-resident frames, one pair per
 * fovea_vif_process (CUDA events); queued batches (fovea_vif_submit/receive)
 * of device, pinned and pageable frames (wall clock per pair: the pinned and
 * pageable rows show how much of the H2D copy hides behind the kernels);
 * CUDA from pinned and pageable frames one pair at a time; end to end, the
 * `fovea vif` CLI on y4m files in the page cache (its own frames/s, from its
 * JSON); and the C backend on every CPU core.
 *
 * Extra options: --cli PATH (the fovea executable; default: ../fovea next to
 * this program's directory), --no-e2e, --tmp DIR (for the y4m files). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_common.h"
#include "fovea/io.h"
#include "fovea/quality.h"

typedef struct vif_case {
    fovea_vif *vif;
    const fovea_frame *ref, *dis;
    int pairs; /* queued rows: pairs per iteration */
} vif_case;

static int run_vif(void *arg)
{
    vif_case *c = arg;
    fovea_vif_scores s;
    return fovea_vif_process(c->vif, c->ref, c->dis, &s) < 0;
}

/* Submit c->pairs pairs (the same frames again: the scorer does not care), then
 * receive them all. */
static int run_queued(void *arg)
{
    vif_case *c = arg;
    fovea_vif_scores s;
    for (int i = 0; i < c->pairs; i++)
        if (fovea_vif_submit(c->vif, c->ref, c->dis) < 0)
            return 1;
    for (int i = 0; i < c->pairs; i++)
        if (fovea_vif_receive(c->vif, &s) != FOVEA_OK)
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
} cases[] = {
    {"1920x1080 8-bit", 1920, 1080, 8, 400, 100},
    {"576x324 8-bit", 576, 324, 8, 4000, 800},
    {"3840x2160 10-bit", 3840, 2160, 10, 40, 12},
};

/* ---------------------------------------------------------------- end to end */

/* Real-looking luma: a smooth moving pattern, texture and noise; the distorted
 * frame is a 3x3 blur of it plus noise. Chroma is a smooth ramp. */
static void synth_pair(fovea_frame *ref, fovea_frame *dis, int bpc, int t, uint64_t *seed)
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
static int write_clips(const char *dir, int w, int h, int bpc, int frames)
{
    const fovea_pixfmt fmt = fovea_pixfmt_yuv(420, bpc);
    enum { DISTINCT = 16 };
    fovea_frame ref[DISTINCT], dis[DISTINCT];
    memset(ref, 0, sizeof(ref));
    memset(dis, 0, sizeof(dis));
    uint64_t seed = 12345;
    for (int i = 0; i < DISTINCT; i++) {
        BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &ref[i], w, h, fmt, FOVEA_MEM_HOST));
        BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &dis[i], w, h, fmt, FOVEA_MEM_HOST));
        synth_pair(&ref[i], &dis[i], bpc, i, &seed);
    }
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.y4m", dir, k ? "dis" : "ref");
        rc = bench_write_y4m(path, k ? dis : ref, DISTINCT, 0, frames, 25, "bench_vif");
    }
    for (int i = 0; i < DISTINCT; i++) {
        fovea_frame_free(NULL, &ref[i]);
        fovea_frame_free(NULL, &dis[i]);
    }
    return rc;
}

/* Run `cli vif -q --backend B --json OUT ref.y4m dis.y4m` and return the
 * frames/s it reports (timed from its first read to its last score), or -1. */
static double run_cli(const char *cli, const char *dir, const char *backend)
{
    char ref[4096], dis[4096], json[4096];
    snprintf(ref, sizeof(ref), "%s/ref.y4m", dir);
    snprintf(dis, sizeof(dis), "%s/dis.y4m", dir);
    snprintf(json, sizeof(json), "%s/out.json", dir);
    char *argv[] = {(char *)cli, "vif", "-q", "--backend", (char *)backend, "--json", json,
                    ref, dis, NULL};
    return bench_run_cli_fps(argv, json, "bench_vif");
}

static void e2e_rows(bench_table *table, const char *cli, const char *tmp, int ci, int quick,
                     int runs)
{
    const int w = cases[ci].w, h = cases[ci].h, bpc = cases[ci].bpc;
    const int frames = quick ? cases[ci].e2e_quick : cases[ci].e2e_frames;
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/bench_vif_%d_XXXXXX", tmp, (int)getpid());
    if (!mkdtemp(dir)) {
        fprintf(stderr, "bench_vif: cannot make a directory in %s\n", tmp);
        return;
    }
    char ref[4200], dis[4200], json[4200];
    snprintf(ref, sizeof(ref), "%s/ref.y4m", dir);
    snprintf(dis, sizeof(dis), "%s/dis.y4m", dir);
    snprintf(json, sizeof(json), "%s/out.json", dir);
    if (write_clips(dir, w, h, bpc, frames) == 0) {
        bench_warm_file(ref);
        bench_warm_file(dis);
        double fps[16];
        int n = 0;
        if (runs > 16)
            runs = 16;
        for (int r = 0; r < runs; r++) {
            const double f = run_cli(cli, dir, "cuda");
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
            snprintf(name, sizeof(name), "%s, y4m files e2e", cases[ci].name);
            snprintf(note, sizeof(note), "fovea vif CLI, %d frames, %.0f fps (median of %d)",
                     frames, 1e6 / s.median_us, n);
            const double bytes = 2.0 * (double)fovea_frame_packed_size(
                                           fovea_pixfmt_yuv(420, bpc), w, h);
            bench_table_add(table, name, "cuda-e2e", &s, bytes, 1, note);
        }
    }
    remove(ref);
    remove(dis);
    remove(json);
    rmdir(dir);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    bench_opts opts;
    bench_parse_args_ex(argc, argv, &opts, BENCH_E2E_USAGE);
    static bench_e2e ee;
    if (bench_e2e_parse(&opts, &ee, "bench_vif") != 0)
        return 2;
    const char *cli = ee.cli, *tmp = ee.tmp;
    int e2e = ee.enabled;
    FILE *text = bench_text_stream(&opts);
    bench_table table;
    bench_table_init(&table, "vif", "frames", &opts);

    fovea_context *cpu = NULL;
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    BENCH_FOVEA(NULL, fovea_open(&cpu, &cs));

    int ndev = 0;
    fovea_device_count(&ndev);
    double copy_bw = 0.0;
    fovea_context *gpu = NULL;
#ifdef FOVEA_HAVE_CUDA
    if (ndev > 0) {
        copy_bw = bench_copy_bandwidth(0);
        fovea_settings gs;
        fovea_default_settings(&gs);
        gs.backend = FOVEA_BACKEND_CUDA;
        gs.cuda_device = opts.device;
        BENCH_FOVEA(NULL, fovea_open(&gpu, &gs));
    }
#endif
    if (!gpu)
        fprintf(text, "no CUDA device: GPU rows skipped\n");
    if (gpu && e2e && (!cli || access(cli, X_OK) != 0)) {
        fprintf(text, "no fovea executable at %s (--cli PATH): end-to-end rows skipped\n",
                cli ? cli : "?");
        e2e = 0;
    }

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (!bench_case_enabled(&opts, cases[i].name))
            continue;
        const int w = cases[i].w, h = cases[i].h;
        const fovea_pixfmt fmt = fovea_pixfmt_yuv(420, cases[i].bpc);
        const double bytes = 2.0 * w * h * (cases[i].bpc > 8 ? 2 : 1); /* two luma planes read */
        fovea_frame ref, dis;
        BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &ref, w, h, fmt, FOVEA_MEM_HOST));
        BENCH_FOVEA(NULL, fovea_frame_alloc(NULL, &dis, w, h, fmt, FOVEA_MEM_HOST));
        bench_fill_frame(&ref, 100 + i);
        bench_fill_frame(&dis, 200 + i);
        char name[96], note[160];

        if (gpu) {
            fovea_vif *v = NULL;
            BENCH_FOVEA(gpu, fovea_vif_open(&v, gpu, NULL));
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
            bench_time_gpu(run_vif, &c, fovea_context_stream(gpu), opts.warmup, opts.runs, &s);
            snprintf(name, sizeof(name), "%s, device frames", cases[i].name);
            bench_table_add(&table, name, "cuda", &s, bytes, 1, "4 launches + sums read-back");

            /* queued: 4 batches per iteration, per pair */
            const int batch = fovea_vif_batch_size(v, w, h);
            c.pairs = 4 * batch;
            const int qruns = opts.quick ? 3 : 10;
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
                bench_time_cpu(run_queued, &c, 1, qruns, &s);
                per_pair(&s, c.pairs);
                snprintf(name, sizeof(name), "%s, queued %s frames", cases[i].name, q[k].what);
                snprintf(note, sizeof(note), "%s, batch %d, %d pairs/iter", q[k].note, batch,
                         c.pairs);
                bench_table_add(&table, name, q[k].mem ? "cuda-e2e" : "cuda", &s, bytes, 1,
                                note);
            }

            c.pairs = 1;
            c.ref = &pref;
            c.dis = &pdis;
            bench_time_cpu(run_vif, &c, opts.warmup, opts.runs, &s);
            snprintf(name, sizeof(name), "%s, pinned host frames", cases[i].name);
            bench_table_add(&table, name, "cuda-e2e", &s, bytes, 1, "H2D copy + VIF, one pair");
            c.ref = &ref;
            c.dis = &dis;
            bench_time_cpu(run_vif, &c, opts.warmup, opts.runs, &s);
            snprintf(name, sizeof(name), "%s, pageable host frames", cases[i].name);
            bench_table_add(&table, name, "cuda-e2e", &s, bytes, 1, "memcpy to pinned + H2D + VIF");
            fovea_frame_free(gpu, &dref);
            fovea_frame_free(gpu, &ddis);
            fovea_frame_free(gpu, &pref);
            fovea_frame_free(gpu, &pdis);
            fovea_vif_close(&v);
            if (e2e)
                e2e_rows(&table, cli, tmp, (int)i, opts.quick, opts.quick ? 1 : 3);
        }

        {
            fovea_vif *v = NULL;
            BENCH_FOVEA(cpu, fovea_vif_open(&v, cpu, NULL));
            vif_case c = {v, &ref, &dis, 1};
            bench_stats s;
            const int runs = opts.quick ? 2 : (w * h > 4000000 ? 5 : 20);
            bench_time_cpu(run_vif, &c, 1, runs, &s);
            snprintf(note, sizeof(note), "%d threads", fovea_context_threads(cpu));
            snprintf(name, sizeof(name), "%s, C backend", cases[i].name);
            bench_table_add(&table, name, "cpu", &s, bytes, 1, note);
            fovea_vif_close(&v);
        }
        fovea_frame_free(NULL, &ref);
        fovea_frame_free(NULL, &dis);
    }
    (void)ndev;
    if (gpu)
        fovea_close(&gpu);
    fovea_close(&cpu);
    return bench_table_finish(&table, copy_bw);
}
