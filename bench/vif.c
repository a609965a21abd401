/* bench_vif: integer VIF per frame pair at 1920x1080 and 576x324 8-bit and
 * 3840x2160 10-bit. Rows: CUDA with device-resident frames (CUDA events), CUDA
 * from pinned and from pageable host frames (wall clock, scores back on the
 * host), and the C backend on every CPU core. */
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "fovea/quality.h"

typedef struct vif_case {
    fovea_vif *vif;
    const fovea_frame *ref, *dis;
} vif_case;

static int run_vif(void *arg)
{
    vif_case *c = arg;
    fovea_vif_scores s;
    return fovea_vif_process(c->vif, c->ref, c->dis, &s) < 0;
}

static const struct {
    const char *name;
    int w, h, bpc;
} cases[] = {
    {"1920x1080 8-bit", 1920, 1080, 8},
    {"576x324 8-bit", 576, 324, 8},
    {"3840x2160 10-bit", 3840, 2160, 10},
};

int main(int argc, char **argv)
{
    bench_opts opts;
    bench_parse_args(argc, argv, &opts);
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
        char name[96];

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
            vif_case c = {v, &dref, &ddis};
            bench_time_gpu(run_vif, &c, fovea_context_stream(gpu), opts.warmup, opts.runs, &s);
            snprintf(name, sizeof(name), "%s, device frames", cases[i].name);
            bench_table_add(&table, name, "cuda", &s, bytes, 1, "4 launches + sums read-back");
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
        }

        {
            fovea_vif *v = NULL;
            BENCH_FOVEA(cpu, fovea_vif_open(&v, cpu, NULL));
            vif_case c = {v, &ref, &dis};
            bench_stats s;
            const int runs = opts.quick ? 2 : (w * h > 4000000 ? 5 : 20);
            bench_time_cpu(run_vif, &c, 1, runs, &s);
            char note[64];
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
