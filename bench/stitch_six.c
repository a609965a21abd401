/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* bench_stitch rows (h): six 3840x2160 cameras in a ring (yaw every 60
 * degrees, pinhole, 100 x 68 degrees each: 40 degrees of overlap between
 * neighbors) into a 7680x3840 equirectangular panorama (360 x 180 degrees;
 * the ring covers latitudes up to about +-34 degrees, the rest is uncovered),
 * fixed color correction. Device time per panorama with feathering and with
 * multiband blending (5 levels; with the DP seam every 30 frames), the
 * bytes-moved floor at the measured copy bandwidth, and `fovea stitch` end to
 * end from six y4m files. Random content, as the two-camera rows. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fovea/rig.h"
#include "fovea/stitch.h"
#include "stitch_six.h"

#define SIX 6
#define SIX_CW 3840
#define SIX_CH 2160
#define SIX_W 7680
#define SIX_H 3840

static void six_rig_json(char *buf, size_t size)
{
    size_t o =
        (size_t)snprintf(buf, size,
                         "{\"panorama\": {\"projection\": \"equirectangular\", \"width\": %d,"
                         " \"height\": %d, \"hfov\": 360.0, \"vfov\": 180.0},"
                         " \"blend\": {\"feather\": 64}, \"cameras\": [",
                         SIX_W, SIX_H);
    for (int c = 0; c < SIX && o < size; c++)
        o += (size_t)snprintf(buf + o, size - o,
                              "%s{\"name\": \"c%d\", \"width\": %d, \"height\": %d,"
                              " \"model\": \"pinhole\", \"fx\": 1600.0, \"fy\": 1600.0,"
                              " \"cx\": 1919.5, \"cy\": 1079.5, \"yaw\": %.1f, \"pitch\": 0.0,"
                              " \"roll\": 0.0}",
                              c ? ", " : "", c, SIX_CW, SIX_CH, 60.0 * c);
    if (o < size)
        snprintf(buf + o, size - o, "]}");
}

static const fovea_color_correction six_cc[SIX] = {
    {{1.05f, 1.0f, 0.95f}, 1.08f}, {{0.97f, 1.0f, 1.04f}, 0.94f}, {{1.0f, 0.98f, 1.0f}, 1.02f},
    {{1.03f, 1.0f, 0.99f}, 0.97f}, {{0.99f, 1.02f, 1.0f}, 1.0f},  {{1.0f, 1.0f, 1.03f}, 1.05f},
};

typedef struct six_case {
    fovea_stitcher *st;
    const fovea_frame *in[SIX];
    fovea_frame *out;
} six_case;

static int run_six(void *arg)
{
    six_case *c = arg;
    return fovea_stitcher_process(c->st, c->in, SIX, c->out) < 0;
}

/* One stitcher's row: frames resident on the device; calls 1 = each frame
 * waited for, else back to back (mean of `calls` frames per sample). */
static void six_row(bench_table *t, const bench_opts *o, fovea_context *gpu,
                    const fovea_stitch_map *map, const fovea_stitcher_settings *ss,
                    const fovea_frame *in, fovea_frame *out, int calls, double bytes,
                    const char *name, const char *note)
{
    fovea_stitcher *st = NULL;
    BENCH_FOVEA(gpu, fovea_stitcher_open(&st, gpu, map, ss));
    BENCH_FOVEA(gpu, fovea_stitcher_set_color(st, six_cc, SIX));
    six_case c = {st, {&in[0], &in[1], &in[2], &in[3], &in[4], &in[5]}, out};
    bench_stats s;
    const int runs = calls > 1 ? (o->quick ? 2 : 10) : o->runs;
    if (bench_time_gpu_pipelined(run_six, &c, fovea_context_stream(gpu), o->warmup + 1, runs, calls,
                                 &s) == 0)
        bench_table_add(t, name, "cuda", &s, bytes, 1, note);
    fovea_stitcher_close(&st);
}

/* `fovea stitch` on six y4m files of `frames` I420 frames -> /dev/null (a link
 * named .y4m), with blend (NULL: feather): the CLI's own frames/s, median of
 * runs. */
static void six_cli_rows(bench_table *t, const bench_e2e *ee, const char *rig_json, int frames,
                         int runs)
{
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/bench_stitch6_%d_XXXXXX", ee->tmp, (int)getpid());
    if (!mkdtemp(dir)) {
        fprintf(stderr, "bench_stitch: cannot make a directory in %s\n", ee->tmp);
        return;
    }
    char rig[4200], cam[SIX][4200], sink[4200], json[4200];
    snprintf(rig, sizeof(rig), "%s/rig.json", dir);
    snprintf(sink, sizeof(sink), "%s/null.y4m", dir);
    snprintf(json, sizeof(json), "%s/out.json", dir);
    FILE *fp = fopen(rig, "wb");
    int ok = fp && fputs(rig_json, fp) >= 0;
    if (fp && fclose(fp) != 0)
        ok = 0;
    enum { DISTINCT = 4 };
    fovea_frame f[DISTINCT];
    memset(f, 0, sizeof(f));
    for (int i = 0; i < DISTINCT && ok; i++) {
        ok = fovea_frame_alloc(NULL, &f[i], SIX_CW, SIX_CH, FOVEA_PIX_I420, FOVEA_MEM_HOST) == 0;
        if (ok)
            bench_fill_frame(&f[i], 300 + (uint64_t)i);
    }
    for (int c = 0; c < SIX; c++) {
        snprintf(cam[c], sizeof(cam[c]), "%s/cam%d.y4m", dir, c);
        if (ok)
            ok =
                bench_write_y4m(cam[c], f, DISTINCT, c % DISTINCT, frames, 30, "bench_stitch") == 0;
        if (ok)
            bench_warm_file(cam[c]);
    }
    for (int i = 0; i < DISTINCT; i++)
        fovea_frame_free(NULL, &f[i]);
    ok = ok && symlink("/dev/null", sink) == 0;
    if (runs > 16)
        runs = 16;
    for (int mb = 0; mb < 2 && ok; mb++) {
        double us[16];
        int n = 0;
        for (int r = 0; r < runs; r++) {
            char *argv[] = {(char *)ee->cli,
                            "stitch",
                            "-q",
                            "--backend",
                            "cuda",
                            "--color",
                            "auto",
                            "--rig",
                            rig,
                            "--json",
                            json,
                            "--blend",
                            mb ? "multiband" : "feather",
                            cam[0],
                            cam[1],
                            cam[2],
                            cam[3],
                            cam[4],
                            cam[5],
                            "-o",
                            sink,
                            NULL};
            const double fps = bench_run_cli_fps(argv, json, "bench_stitch");
            if (fps > 0)
                us[n++] = 1e6 / fps;
        }
        if (n == 0)
            continue;
        bench_stats s;
        bench_stats_compute(us, n, &s);
        char note[160];
        snprintf(note, sizeof(note),
                 "fovea stitch CLI, auto color, %d frames, %.1f fps (median of %d)", frames,
                 1e6 / s.median_us, n);
        const double bytes = SIX * (double)SIX_CW * SIX_CH * 1.5 + (double)SIX_W * SIX_H * 1.5;
        bench_table_add(t,
                        mb ? "(h) 6x4K y4m -> /dev/null, multiband, e2e"
                           : "(h) 6x4K y4m -> /dev/null, feather, e2e",
                        "cuda-e2e", &s, bytes, 1, note);
    }
    for (int c = 0; c < SIX; c++)
        remove(cam[c]);
    remove(rig);
    remove(sink);
    remove(json);
    rmdir(dir);
}

int bench_stitch_six(bench_table *table, const bench_opts *opts, const bench_e2e *ee,
                     double copy_bw, FILE *text)
{
    static char rig_json[4096];
    six_rig_json(rig_json, sizeof(rig_json));
    fovea_rig *rig = NULL;
    if (fovea_rig_open_json(&rig, NULL, rig_json, strlen(rig_json)) < 0) {
        fprintf(stderr, "bench_stitch: six-camera rig: %s\n", fovea_last_error(NULL));
        return 1;
    }
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    fovea_context *cpu = NULL, *gpu = NULL;
    BENCH_FOVEA(NULL, fovea_open(&cpu, &cs));
    fovea_stitch_map *map = NULL;
    fovea_stitch_map_settings mo;
    fovea_stitch_map_default_settings(&mo);
    double t0 = bench_now_us();
    BENCH_FOVEA(cpu, fovea_stitch_map_open_rig(&map, cpu, rig, &mo, NULL));
    fprintf(text, "six-camera map (%dx%d, 6 x %dx%d) built in %.2f s\n", SIX_W, SIX_H, SIX_CW,
            SIX_CH, (bench_now_us() - t0) / 1e6);
    fovea_rig_close(&rig);
    fovea_close(&cpu);

    fovea_settings gs;
    fovea_default_settings(&gs);
    gs.backend = FOVEA_BACKEND_CUDA;
    gs.cuda_device = opts->device;
    BENCH_FOVEA(NULL, fovea_open(&gpu, &gs));
    fovea_frame host, d_rgba[SIX], d_nv12[SIX], o_rgba, o_i420;
    for (int c = 0; c < SIX; c++) {
        BENCH_FOVEA(NULL,
                    fovea_frame_alloc(NULL, &host, SIX_CW, SIX_CH, FOVEA_PIX_RGBA, FOVEA_MEM_HOST));
        bench_fill_frame(&host, 40 + (uint64_t)c);
        BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &d_rgba[c], SIX_CW, SIX_CH, FOVEA_PIX_RGBA,
                                           FOVEA_MEM_DEVICE));
        BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &d_rgba[c], &host));
        BENCH_FOVEA(gpu, fovea_sync(gpu));
        fovea_frame_free(NULL, &host);
        BENCH_FOVEA(NULL,
                    fovea_frame_alloc(NULL, &host, SIX_CW, SIX_CH, FOVEA_PIX_NV12, FOVEA_MEM_HOST));
        bench_fill_frame(&host, 50 + (uint64_t)c);
        BENCH_FOVEA(gpu, fovea_frame_alloc(gpu, &d_nv12[c], SIX_CW, SIX_CH, FOVEA_PIX_NV12,
                                           FOVEA_MEM_DEVICE));
        BENCH_FOVEA(gpu, fovea_frame_copy(gpu, &d_nv12[c], &host));
        BENCH_FOVEA(gpu, fovea_sync(gpu));
        fovea_frame_free(NULL, &host);
    }
    BENCH_FOVEA(gpu,
                fovea_frame_alloc(gpu, &o_rgba, SIX_W, SIX_H, FOVEA_PIX_RGBA, FOVEA_MEM_DEVICE));
    BENCH_FOVEA(gpu,
                fovea_frame_alloc(gpu, &o_i420, SIX_W, SIX_H, FOVEA_PIX_I420, FOVEA_MEM_DEVICE));
    const double yuv_bytes = SIX * (double)SIX_CW * SIX_CH * 1.5 + (double)SIX_W * SIX_H * 1.5;
    const double rgba_bytes = SIX * (double)SIX_CW * SIX_CH * 4 + (double)SIX_W * SIX_H * 4;
    if (copy_bw > 0)
        fprintf(text,
                "six-camera floor (inputs read + panorama written at %.0f GB/s copy "
                "bandwidth): NV12->I420 %.1f MB, %.1f us; RGBA %.1f MB, %.1f us\n",
                copy_bw, yuv_bytes / 1e6, yuv_bytes / (copy_bw * 1e3), rgba_bytes / 1e6,
                rgba_bytes / (copy_bw * 1e3));

    fovea_stitcher_settings ss;
    fovea_stitcher_default_settings(&ss);
    ss.color = FOVEA_COLOR_FIXED;
    six_row(table, opts, gpu, map, &ss, d_nv12, &o_i420, 1, yuv_bytes,
            "(h) 6x4K feather NV12->I420, device", "each frame waited for");
    six_row(table, opts, gpu, map, &ss, d_rgba, &o_rgba, 1, rgba_bytes,
            "(h) 6x4K feather RGBA->RGBA, device", "each frame waited for");
    six_row(table, opts, gpu, map, &ss, d_nv12, &o_i420, 30, yuv_bytes,
            "(h) 6x4K feather NV12, back to back", "mean of 30 frames per sample");
    ss.blend = FOVEA_BLEND_MULTIBAND;
    ss.blend_levels = 5;
    six_row(table, opts, gpu, map, &ss, d_nv12, &o_i420, 1, yuv_bytes,
            "(h) 6x4K multiband:5 NV12->I420, device", "each frame waited for");
    six_row(table, opts, gpu, map, &ss, d_rgba, &o_rgba, 1, rgba_bytes,
            "(h) 6x4K multiband:5 RGBA->RGBA, device", "each frame waited for");
    six_row(table, opts, gpu, map, &ss, d_nv12, &o_i420, 30, yuv_bytes,
            "(h) 6x4K multiband:5 NV12, back to back", "mean of 30 frames per sample");
    ss.seam = FOVEA_SEAM_DP;
    ss.seam_interval = 30;
    six_row(table, opts, gpu, map, &ss, d_nv12, &o_i420, 30, yuv_bytes,
            "(h) 6x4K multiband:5 + DP seam NV12", "back to back, 30 frames: one seam frame");
    for (int c = 0; c < SIX; c++) {
        fovea_frame_free(gpu, &d_rgba[c]);
        fovea_frame_free(gpu, &d_nv12[c]);
    }
    fovea_frame_free(gpu, &o_rgba);
    fovea_frame_free(gpu, &o_i420);
    fovea_close(&gpu);
    fovea_stitch_map_close(&map);
    if (ee->enabled) {
        if (!ee->cli || access(ee->cli, X_OK) != 0)
            fprintf(text, "no fovea executable at %s (--cli PATH): six-camera e2e rows skipped\n",
                    ee->cli ? ee->cli : "?");
        else
            six_cli_rows(table, ee, rig_json, opts->quick ? 4 : 24, opts->quick ? 1 : 3);
    }
    return 0;
}
