/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea demo: render a procedural outdoor scene as a ground-truth panorama and
 * as the views of a two-camera rig with different color responses, stitch them
 * back with automatic color balance, write PNGs, print PSNR and color mismatch. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "demo.h"

enum {
    OPT_OUT = 1,
    OPT_SCALE,
    OPT_SAME,
    OPT_NO_COLOR,
    OPT_SEED,
    OPT_YUV,
    OPT_COLORSPACE,
    OPT_RANGE
};

static const cli_option demo_cli_options[] = {
    {"out", 'o', "DIR",
     "directory for camera0.png, camera1.png, panorama.png, ground_truth.png, "
     "coverage.png, heatmap.png (created if missing)",
     "demo-out", OPT_OUT},
    {"scale", 0, "DIV",
     "divide every size of the rig (cameras 3840x2160, panorama 5700x1900) "
     "by DIV, for a quicker run",
     "1", OPT_SCALE},
    {"backend", 0, "NAME", "auto, cpu or cuda", "auto", CLI_OPT_BACKEND},
    {"threads", 0, "N", "CPU threads (0 = all)", "0", CLI_OPT_THREADS},
    {"same-colors", 0, NULL, "give every camera the same (identity) color response", NULL,
     OPT_SAME},
    {"no-balance", 0, NULL, "stitch without automatic color balance", NULL, OPT_NO_COLOR},
    {"yuv", 0, NULL,
     "the video path: cameras converted to I420 and stitched in I420 (PSNR "
     "against the ground truth converted the same way, mismatch on Y, U and V)",
     NULL, OPT_YUV},
    {"colorspace", 0, "CS",
     "with --yuv: the YUV matrix of the conversions and of the stitch's "
     "color balance, bt601 or bt709",
     "bt601", OPT_COLORSPACE},
    {"range", 0, "RANGE", "with --yuv: limited or full range YUV", "limited", OPT_RANGE},
    {"seed", 0, "N", "scene seed", "2026", OPT_SEED},
    CLI_OPTION_JSON("write the numbers as JSON ('-' = stdout)"),
    {"quiet", 'q', NULL, "do not show progress on stderr",
     "the step being done on one updating line when stderr is a terminal", CLI_OPT_QUIET},
    {NULL, 0, NULL, NULL, NULL, 0},
};

static const cli_spec demo_spec = {
    "demo", "[options]",
    "Render the project's procedural outdoor scene (sky, mountains, a football\n"
    "pitch with floodlights) as a ground-truth 5700x1900 panorama (150 x 50 degrees,\n"
    "equirectangular) and as the views of a two-camera broadcast rig over the pitch:\n"
    "two 3840x2160 cameras turned 35 degrees left and right, the left one a pinhole\n"
    "with barrel distortion, the right one a fisheye, each with its own color\n"
    "response. Stitch the views back into the panorama with automatic color\n"
    "balance, write the PNGs, and print the PSNR of the stitched panorama against\n"
    "the ground truth over the covered pixels, and the color mismatch in the\n"
    "overlap before and after balancing. Then render a 1280x720 view of the pitch\n"
    "twice, panned by 0.25 degrees, and write the frame-differencing heat map of\n"
    "the pair (heatmap.png, as `fovea diff --heatmap --normalize 192` makes it).\n"
    "The rig is written as rig.json beside the images, for `fovea rig check` and\n"
    "`fovea stitch` (its cameras are camera0.png's and camera1.png's size).",
    demo_cli_options, "Example:\n  fovea demo --scale 2 -o /tmp/demo"};

typedef struct demo_args {
    cli_common_opts opt;
    demo_options o;
    const char *out;
} demo_args;

static int parse_args(demo_args *a, int argc, char **argv)
{
    cli_parser p;
    cli_parser_init(&p, &demo_spec, argc, argv);
    cli_common_opts_init(&a->opt);
    demo_default_options(&a->o);
    demo_options *o = &a->o;
    a->out = "demo-out";
    int id, yuv_options = 0;
    const char *v;
    while ((id = cli_next(&p, &v)) > 0) {
        const int shared = cli_common_option(&a->opt, NULL, "demo", id, v);
        if (shared != 0) {
            if (shared < 0)
                return CLI_EXIT_USAGE;
            continue;
        }
        long long x;
        switch (id) {
        case OPT_OUT: a->out = v; break;
        case OPT_SCALE:
            if (cli_parse_int32("demo", "--scale", v, 1, 16, &o->scale_div) < 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_SAME: o->identical_colors = 1; break;
        case OPT_NO_COLOR: o->color_auto = 0; break;
        case OPT_YUV: o->yuv = 1; break;
        case OPT_COLORSPACE:
            if (cli_parse_colorspace("demo", "--colorspace", v, &o->colorspace) < 0)
                return CLI_EXIT_USAGE;
            yuv_options = 1;
            break;
        case OPT_RANGE: {
            int range;
            if (cli_parse_range("demo", "--range", v, 0, &range) < 0)
                return CLI_EXIT_USAGE;
            o->full_range = range == FOVEA_COLOR_RANGE_FULL;
            yuv_options = 1;
            break;
        }
        case OPT_SEED:
            if (cli_parse_int("demo", "--seed", v, 0, (long long)1 << 62, &x) < 0)
                return CLI_EXIT_USAGE;
            o->seed = (uint64_t)x;
            break;
        }
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end;
    if (p.nrest > 0)
        return cli_usage_error("demo", "unexpected argument '%s'", p.rest[0]);
    if (yuv_options && !o->yuv)
        return cli_usage_error("demo",
                               "--colorspace and --range apply to the video path: add --yuv");
    return CLI_EXIT_OK;
}

/* The step being done, on one line redrawn on stderr (cli_progress's rule:
 * a terminal, or FOVEA_PROGRESS=1; not with --quiet). */
typedef struct demo_progress {
    cli_progress p; /* its enabled rule and start time */
    int width;      /* the last line's length */
} demo_progress;

static void show_step(void *opaque, int step, int steps, const char *what)
{
    demo_progress *dp = opaque;
    if (!dp->p.enabled)
        return;
    char line[160];
    const double t = cli_now() - dp->p.t0;
    int len;
    if (what)
        len =
            snprintf(line, sizeof line, "fovea demo: step %d/%d %s (%.0f s)", step, steps, what, t);
    else
        len = snprintf(line, sizeof line, "fovea demo: %d steps done in %.1f s", steps, t);
    if (len < 0 || len >= (int)sizeof line)
        len = (int)strlen(line);
    fprintf(stderr, "\r%s%*s%s", line, dp->width > len ? dp->width - len : 0, "", what ? "" : "\n");
    fflush(stderr);
    dp->width = what ? len : 0;
}

/* The output directory, made when missing. */
static int make_out_dir(const char *out)
{
    if (mkdir(out, 0777) != 0) {
        int e = errno;
        struct stat st;
        if (stat(out, &st) != 0) {
            cli_error(out, "cannot create the output directory: %s", strerror(e));
            return CLI_EXIT_RUNTIME;
        }
        if (!S_ISDIR(st.st_mode)) {
            cli_error(out, "cannot create the output directory: %s", strerror(ENOTDIR));
            return CLI_EXIT_RUNTIME;
        }
    }
    return CLI_EXIT_OK;
}

static void print_result(const demo_options *o, const demo_result *r, const char *out)
{
    char yuv_note[64] = "";
    if (o->yuv)
        snprintf(yuv_note, sizeof(yuv_note), ", I420 (%s, %s range)",
                 o->colorspace == FOVEA_CS_BT709 ? "BT.709" : "BT.601",
                 o->full_range ? "full" : "limited");
    printf("fovea demo: %d cameras -> %dx%d panorama on %s (map grid steps %d/%d px)%s\n",
           r->num_cameras, r->pano_width, r->pano_height, r->backend, r->grid_step[0],
           r->grid_step[1], yuv_note);
    printf("  render %.2f s, map %.2f s, balance + stitch %.3f s\n", r->seconds_render,
           r->seconds_map, r->seconds_stitch);
    printf("  covered: %.1f%% of the panorama\n", r->pct_covered);
    printf("  PSNR vs ground truth over covered pixels: %.2f dB\n", r->psnr_covered);
    const double less =
        r->mismatch_before > 0 ? 100.0 * (1.0 - r->mismatch_after / r->mismatch_before) : 0.0;
    printf("  overlap %s mismatch (mean |A-B|, codes): %.2f before, %.2f after balancing "
           "(%.0f%% %s)\n",
           o->yuv ? "Y/U/V" : "color", r->mismatch_before, r->mismatch_after,
           less < 0 ? -less : less, less < 0 ? "more" : "less");
    for (int c = 0; c < r->num_cameras; c++)
        printf("  camera %d correction: gain %.3f %.3f %.3f, gamma %.3f\n", c, r->cc[c].gain[0],
               r->cc[c].gain[1], r->cc[c].gain[2], r->cc[c].gamma);
    printf("  heat map (fovea diff, %s) of a %dx%d view panned by %.2f degrees: %.1f%% of "
           "pixels changed (threshold 10), difference %d shown red\n",
           r->heat_backend, r->heat_width, r->heat_height, r->heat_pan_deg, r->heat_changed_pct,
           r->heat_normalize);
    printf("  wrote %s/{camera0,camera1,panorama,ground_truth,coverage,heatmap}.png and "
           "%s/rig.json\n",
           out, out);
}

static int write_json(const char *path, const demo_options *o, const demo_result *r)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "psnr_covered_db", r->psnr_covered);
    cJSON_AddNumberToObject(j, "pct_covered", r->pct_covered);
    cJSON_AddNumberToObject(j, "mismatch_before", r->mismatch_before);
    cJSON_AddNumberToObject(j, "mismatch_after", r->mismatch_after);
    cJSON_AddStringToObject(j, "backend", r->backend);
    cJSON_AddNumberToObject(j, "pano_width", r->pano_width);
    cJSON_AddNumberToObject(j, "pano_height", r->pano_height);
    cJSON_AddStringToObject(j, "format", o->yuv ? "i420" : "rgba");
    cJSON_AddStringToObject(j, "mismatch_of", o->yuv ? "yuv" : "rgb");
    cJSON *hj = cJSON_AddObjectToObject(j, "heatmap");
    cJSON_AddNumberToObject(hj, "width", r->heat_width);
    cJSON_AddNumberToObject(hj, "height", r->heat_height);
    cJSON_AddNumberToObject(hj, "pan_deg", r->heat_pan_deg);
    cJSON_AddNumberToObject(hj, "normalize", r->heat_normalize);
    cJSON_AddNumberToObject(hj, "changed_pct", r->heat_changed_pct);
    cJSON_AddStringToObject(hj, "backend", r->heat_backend);
    if (o->yuv) {
        cJSON_AddStringToObject(j, "colorspace", cli_colorspace_name(o->colorspace));
        cJSON_AddStringToObject(j, "range", o->full_range ? "full" : "limited");
    }
    cJSON *cams = cJSON_AddArrayToObject(j, "cameras");
    for (int c = 0; c < r->num_cameras; c++) {
        cJSON *cj = cJSON_CreateObject();
        cJSON_AddItemToObject(cj, "gain", cJSON_CreateFloatArray(r->cc[c].gain, 3));
        cJSON_AddNumberToObject(cj, "gamma", r->cc[c].gamma);
        cJSON_AddItemToArray(cams, cj);
    }
    const int rc = cli_write_json(path, j);
    cJSON_Delete(j);
    return rc;
}

int cmd_demo(int argc, char **argv)
{
    demo_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc != CLI_EXIT_OK)
        return rc < 0 ? CLI_EXIT_OK : rc; /* -1: the help is printed */
    if ((rc = make_out_dir(a.out)) != CLI_EXIT_OK)
        return rc;
    a.o.out_dir = a.out;
    fovea_context *ctx = NULL;
    if (cli_open_context(&ctx, &a.opt, CLI_CONTEXT_MSG_OPEN) != CLI_EXIT_OK)
        return CLI_EXIT_RUNTIME;
    demo_result r;
    char err[1024] = "";
    demo_progress dp;
    memset(&dp, 0, sizeof dp);
    cli_progress_start(&dp.p, -1, a.opt.quiet);
    a.o.progress = show_step;
    a.o.progress_opaque = &dp;
    if (!a.opt.quiet && !dp.p.enabled)
        fprintf(stderr, "fovea demo: rendering and stitching (scale 1/%d)...\n", a.o.scale_div);
    if (demo_run(ctx, &a.o, &r, err, sizeof(err)) < 0) {
        if (dp.width)
            fputc('\n', stderr);
        cli_error(NULL, "%s", err);
        fovea_close(&ctx);
        return CLI_EXIT_RUNTIME;
    }
    print_result(&a.o, &r, a.out);
    if (a.opt.json)
        rc = write_json(a.opt.json, &a.o, &r);
    fovea_close(&ctx);
    return rc;
}
