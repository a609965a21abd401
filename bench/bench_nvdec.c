/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* NVDEC's decode rate alone on one CUDA context: each media file read by one
 * reader, then by two readers at once (the same file twice, as `fovea vmaf`
 * reads ref and dis), every reader on a thread of its own (fovea_read_ring)
 * into device frames that nothing reads. Two streams at once near twice one
 * stream's frames/s means the decoders do not wait for each other (each
 * reader has a CUDA stream of its own).
 *   bench_nvdec [common options] [--hwdec cuda|none] [--frames N] FILE...
 * --hwdec none reads the same files with FFmpeg's CPU decoders into host
 * frames (the comparison row). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "fovea/advanced.h"
#include "fovea/io.h"

#define MAX_READERS 2

typedef struct nvdec_case {
    fovea_context *ctx;
    const char *path;
    int readers;
    fovea_hwdec hwdec;
    int64_t frames; /* per reader, -1 = all */
    int64_t read;   /* frames read by all readers in the last run */
    size_t frame_bytes;
    double us; /* the last run's time from the readers' start to their last frame */
} nvdec_case;

/* One run: open the readers (FFmpeg's decoder and NVDEC's made, the first
 * frame decoded: not timed), then read them to the end (or --frames) at once
 * (timed, into c->us). */
static int run_case(void *arg)
{
    nvdec_case *c = arg;
    fovea_reader *r[MAX_READERS] = {NULL};
    fovea_read_ring *q[MAX_READERS] = {NULL};
    fovea_reader_settings rs;
    fovea_reader_default_settings(&rs);
    rs.hwdec = c->hwdec;
    const fovea_memtype mem = c->hwdec == FOVEA_HWDEC_CUDA ? FOVEA_MEM_DEVICE : FOVEA_MEM_HOST;
    c->read = 0;
    for (int k = 0; k < c->readers; k++) {
        BENCH_FOVEA(c->ctx, fovea_reader_open(&r[k], c->ctx, c->path, &rs));
        if (c->hwdec == FOVEA_HWDEC_CUDA && fovea_reader_hwdec(r[k]) != FOVEA_HWDEC_CUDA) {
            fprintf(stderr, "bench_nvdec: %s: not decoded by NVDEC: %s\n", c->path,
                    fovea_reader_hwdec_reason(r[k]) ? fovea_reader_hwdec_reason(r[k]) : "?");
            return 1;
        }
        fovea_read_ring_settings s;
        fovea_read_ring_default_settings(&s);
        s.slots = 4;
        s.limit = c->frames;
        s.mem = mem;
        BENCH_FOVEA(c->ctx, fovea_read_ring_open(&q[k], c->ctx, r[k], &s));
        const fovea_video_info *in = fovea_reader_info(r[k]);
        c->frame_bytes = fovea_frame_packed_size(in->fmt, in->width, in->height);
    }
    const double t0 = bench_now_us();
    for (int k = 0; k < c->readers; k++)
        BENCH_FOVEA(c->ctx, fovea_read_ring_start(q[k]));
    int live = c->readers, bad = 0;
    int done[MAX_READERS] = {0};
    while (live > 0 && !bad) {
        for (int k = 0; k < c->readers; k++) {
            if (done[k])
                continue;
            fovea_frame *f;
            const char *msg;
            const int st = fovea_read_ring_take(q[k], &f, &msg);
            if (st == FOVEA_OK) {
                c->read++;
                fovea_read_ring_release(q[k]);
                continue;
            }
            if (st < 0) {
                fprintf(stderr, "bench_nvdec: %s: %s\n", c->path, msg);
                bad = 1;
            }
            done[k] = 1;
            live--;
        }
    }
    if (c->ctx)
        BENCH_FOVEA(c->ctx, fovea_sync(c->ctx));
    c->us = bench_now_us() - t0;
    for (int k = 0; k < c->readers; k++) {
        fovea_read_ring_close(&q[k]);
        fovea_reader_close(&r[k]);
    }
    return bad;
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_parse_args_ex(argc, argv, &o,
                        "  --hwdec cuda|none  decoder (default cuda)\n"
                        "  --frames N         frames per reader (default all)\n"
                        "  FILE...            media files (H.264, HEVC, ...)\n");
    fovea_hwdec hwdec = FOVEA_HWDEC_CUDA;
    int64_t frames = -1;
    const char *files[BENCH_MAX_EXTRA];
    int nfiles = 0;
    for (int i = 0; i < o.n_extra; i++) {
        if (strcmp(o.extra[i], "--hwdec") == 0 && i + 1 < o.n_extra) {
            const char *v = o.extra[++i];
            if (strcmp(v, "cuda") != 0 && strcmp(v, "none") != 0) {
                fprintf(stderr, "bench_nvdec: --hwdec cuda or none, got '%s'\n", v);
                return 2;
            }
            hwdec = strcmp(v, "cuda") == 0 ? FOVEA_HWDEC_CUDA : FOVEA_HWDEC_NONE;
        } else if (strcmp(o.extra[i], "--frames") == 0 && i + 1 < o.n_extra) {
            frames = strtoll(o.extra[++i], NULL, 10);
        } else if (o.extra[i][0] == '-') {
            fprintf(stderr, "bench_nvdec: unknown argument '%s'\n", o.extra[i]);
            return 2;
        } else {
            files[nfiles++] = o.extra[i];
        }
    }
    if (nfiles == 0) {
        fprintf(stderr, "bench_nvdec: no media file (--help)\n");
        return 2;
    }
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = hwdec == FOVEA_HWDEC_CUDA ? FOVEA_BACKEND_CUDA : FOVEA_BACKEND_CPU;
    s.cuda_device = o.device;
    fovea_context *ctx = NULL;
    BENCH_FOVEA(NULL, fovea_open(&ctx, &s));
    /* a run reads whole files: at most 5 of them, after one untimed */
    const int runs = o.quick ? 1 : (o.runs < 5 ? o.runs : 5);
    o.runs = runs;
    o.warmup = o.quick ? 0 : 1;
    bench_table t;
    bench_table_init(&t, "nvdec", "frames", &o);
    for (int f = 0; f < nfiles; f++) {
        for (int n = 1; n <= MAX_READERS; n++) {
            char name[96];
            const char *base = strrchr(files[f], '/');
            snprintf(name, sizeof(name), "%s x%d", base ? base + 1 : files[f], n);
            if (!bench_case_enabled(&o, name))
                continue;
            bench_warm_file(files[f]);
            nvdec_case c = {ctx, files[f], n, hwdec, frames, 0, 0, 0.0};
            double us[16];
            int got = 0;
            for (int k = -o.warmup; k < runs && got < 16; k++)
                if (run_case(&c) != 0)
                    return 1;
                else if (k >= 0)
                    us[got++] = c.us;
            bench_stats st;
            bench_stats_compute(us, got, &st);
            char note[160];
            snprintf(note, sizeof(note), "%s, %d reader%s at once on one context, %s frames",
                     hwdec == FOVEA_HWDEC_CUDA ? "NVDEC" : "CPU decoders", n, n == 1 ? "" : "s",
                     hwdec == FOVEA_HWDEC_CUDA ? "device" : "host");
            bench_table_add(&t, name, hwdec == FOVEA_HWDEC_CUDA ? "cuda" : "cpu", &st,
                            (double)c.frame_bytes * (double)c.read, (double)c.read, note);
        }
    }
    const int rc = bench_table_finish(&t, bench_copy_bandwidth(0));
    fovea_close(&ctx);
    return rc;
}
