/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* bench_frame_copy: moving a 3840x2160 RGBA frame through the public frame API:
 * host<->device with pageable and pinned host memory, device-to-device, host-to-host. */
#include <stdio.h>
#include <string.h>

#include "bench_common.h"
#include "fovea/fovea.h"

#define FRAME_W 3840
#define FRAME_H 2160
#define FRAME_FMT FOVEA_PIX_RGBA

typedef struct {
    fovea_context *ctx;
    fovea_frame *dst, *mid;
    const fovea_frame *src;
    int sync; /* wait for the stream inside the timed region (end-to-end rows) */
} copy_job;

/* src -> dst */
static int run_copy(void *arg)
{
    copy_job *j = arg;
    BENCH_FOVEA(j->ctx, fovea_frame_copy(j->ctx, j->dst, j->src));
    if (j->sync)
        BENCH_FOVEA(j->ctx, fovea_sync(j->ctx));
    return 0;
}

/* src -> mid -> dst */
static int run_round_trip(void *arg)
{
    copy_job *j = arg;
    BENCH_FOVEA(j->ctx, fovea_frame_copy(j->ctx, j->mid, j->src));
    BENCH_FOVEA(j->ctx, fovea_frame_copy(j->ctx, j->dst, j->mid));
    if (j->sync)
        BENCH_FOVEA(j->ctx, fovea_sync(j->ctx));
    return 0;
}

/* Fill dst (and a device mid) with a pattern, copy src -> (mid ->) dst, and compare
 * with the host frame expected; a device dst is read back through the host frame check. */
static int verify(fovea_context *ctx, const char *what, fovea_frame *dst, fovea_frame *mid,
                  const fovea_frame *src, const fovea_frame *expected, fovea_frame *check)
{
    if (mid && mid->mem == FOVEA_MEM_DEVICE)
        BENCH_FOVEA(ctx, fovea_frame_fill(ctx, mid, 0xA5));
    BENCH_FOVEA(ctx, fovea_frame_fill(ctx, dst, 0x5A));
    copy_job j = {ctx, dst, mid, src, 1};
    if (mid)
        run_round_trip(&j);
    else
        run_copy(&j);
    const fovea_frame *host_result = dst;
    if (dst->mem == FOVEA_MEM_DEVICE) {
        /* read a device result back through a host frame */
        BENCH_FOVEA(ctx, fovea_frame_fill(ctx, check, 0x5A));
        BENCH_FOVEA(ctx, fovea_frame_copy(ctx, check, dst));
        BENCH_FOVEA(ctx, fovea_sync(ctx));
        host_result = check;
    }
    if (!fovea_frame_equal(host_result, expected)) {
        fprintf(stderr, "bench_frame_copy: %s: copied frame differs from the source\n", what);
        return -1;
    }
    return 0;
}

typedef struct {
    const char *name;
    const char *note;
    fovea_frame *dst, *mid;
    const fovea_frame *src;
    double bytes; /* read + written per iteration */
    int wall;     /* host clock around copy + fovea_sync instead of CUDA events */
} gpu_case;

int main(int argc, char **argv)
{
    bench_opts opts;
    bench_parse_args(argc, argv, &opts);

    const double frame_bytes = (double)fovea_frame_packed_size(FRAME_FMT, FRAME_W, FRAME_H);
    fovea_context *cpu = NULL;
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    BENCH_FOVEA(NULL, fovea_open(&cpu, &s));

    fovea_frame host_a, host_b;
    BENCH_FOVEA(cpu, fovea_frame_alloc(cpu, &host_a, FRAME_W, FRAME_H, FRAME_FMT, FOVEA_MEM_HOST));
    BENCH_FOVEA(cpu, fovea_frame_alloc(cpu, &host_b, FRAME_W, FRAME_H, FRAME_FMT, FOVEA_MEM_HOST));
    bench_fill_frame(&host_a, 0x46525643ull);

    bench_table table;
    bench_table_init(&table, "frame_copy", "frames", &opts);
    int rc = 0;

    /* ---- CPU: host -> host */
    if (verify(cpu, "h2h", &host_b, NULL, &host_a, &host_a, NULL) < 0)
        rc = 1;
    if (rc == 0 && bench_case_enabled(&opts, "rgba_4k h2h")) {
        copy_job j = {cpu, &host_b, NULL, &host_a, 0};
        bench_stats st;
        bench_time_cpu(run_copy, &j, opts.warmup, opts.runs, &st);
        bench_table_add(&table, "rgba_4k h2h", "cpu", &st, 2 * frame_bytes, 1,
                        "fovea_frame_copy, one thread");
    }

    /* ---- CUDA */
    fovea_context *ctx = NULL;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CUDA;
    s.cuda_device = opts.device;
    int st_open = fovea_open(&ctx, &s);
    double copy_bw = 0;
    if (st_open == FOVEA_ERR_NO_DEVICE) {
        fprintf(bench_text_stream(&opts), "no CUDA device: GPU rows skipped\n");
    } else if (rc == 0) {
        BENCH_FOVEA(NULL, st_open);
        void *stream = fovea_context_stream(ctx);
        fovea_frame pin_a, pin_b, dev_a, dev_b;
        BENCH_FOVEA(ctx,
                    fovea_frame_alloc(ctx, &pin_a, FRAME_W, FRAME_H, FRAME_FMT, FOVEA_MEM_PINNED));
        BENCH_FOVEA(ctx,
                    fovea_frame_alloc(ctx, &pin_b, FRAME_W, FRAME_H, FRAME_FMT, FOVEA_MEM_PINNED));
        BENCH_FOVEA(ctx,
                    fovea_frame_alloc(ctx, &dev_a, FRAME_W, FRAME_H, FRAME_FMT, FOVEA_MEM_DEVICE));
        BENCH_FOVEA(ctx,
                    fovea_frame_alloc(ctx, &dev_b, FRAME_W, FRAME_H, FRAME_FMT, FOVEA_MEM_DEVICE));
        BENCH_FOVEA(ctx, fovea_frame_copy(ctx, &pin_a, &host_a));

        /* every path is checked once before anything is timed */
        if (verify(ctx, "pageable h2d+d2h", &host_b, &dev_a, &host_a, &host_a, NULL) < 0 ||
            verify(ctx, "pinned h2d+d2h", &pin_b, &dev_b, &pin_a, &host_a, NULL) < 0 ||
            verify(ctx, "d2d", &dev_b, NULL, &dev_a, &host_a, &host_b) < 0)
            rc = 1;

        const char *pcie = "events; PCIe link rate = GB/s / 2";
        const char *wall = "end-to-end: host clock incl. fovea_sync";
        gpu_case cases[] = {
            {"rgba_4k h2d pageable", pcie, &dev_a, NULL, &host_a, 2 * frame_bytes, 0},
            {"rgba_4k d2h pageable", pcie, &host_b, NULL, &dev_a, 2 * frame_bytes, 0},
            {"rgba_4k h2d+d2h pageable", pcie, &host_b, &dev_a, &host_a, 4 * frame_bytes, 0},
            {"rgba_4k h2d+d2h pageable wall", wall, &host_b, &dev_a, &host_a, 4 * frame_bytes, 1},
            {"rgba_4k h2d pinned", pcie, &dev_a, NULL, &pin_a, 2 * frame_bytes, 0},
            {"rgba_4k d2h pinned", pcie, &pin_b, NULL, &dev_a, 2 * frame_bytes, 0},
            {"rgba_4k h2d+d2h pinned", pcie, &pin_b, &dev_a, &pin_a, 4 * frame_bytes, 0},
            {"rgba_4k h2d+d2h pinned wall", wall, &pin_b, &dev_a, &pin_a, 4 * frame_bytes, 1},
            {"rgba_4k d2d", "events; device-resident", &dev_b, NULL, &dev_a, 2 * frame_bytes, 0},
        };
        for (size_t i = 0; rc == 0 && i < sizeof(cases) / sizeof(cases[0]); i++) {
            const gpu_case *c = &cases[i];
            if (!bench_case_enabled(&opts, c->name))
                continue;
            copy_job j = {ctx, c->dst, c->mid, c->src, c->wall};
            bench_fn fn = c->mid ? run_round_trip : run_copy;
            bench_stats st;
            if (c->wall)
                bench_time_cpu(fn, &j, opts.warmup, opts.runs, &st);
            else
                bench_time_gpu(fn, &j, stream, opts.warmup, opts.runs, &st);
            bench_table_add(&table, c->name, "cuda", &st, c->bytes, 1, c->note);
        }
        BENCH_FOVEA(ctx, fovea_sync(ctx));
        fovea_frame_free(ctx, &pin_a);
        fovea_frame_free(ctx, &pin_b);
        fovea_frame_free(ctx, &dev_a);
        fovea_frame_free(ctx, &dev_b);
        if (rc == 0)
            copy_bw = bench_copy_bandwidth(0);
    }

    if (rc == 0)
        rc = bench_table_finish(&table, copy_bw);
    else
        bench_table_free(&table);
    fovea_close(&ctx);
    fovea_frame_free(cpu, &host_a);
    fovea_frame_free(cpu, &host_b);
    fovea_close(&cpu);
    return rc;
}
