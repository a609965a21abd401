/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea rig check RIG.json`: validate a rig file, build its stitch map and report
 * what the panorama sees (coverage, overlaps, grid steps); optionally write the
 * coverage picture, a JSON report and the built map. `fovea rig import` turns a
 * Hugin project into rig JSON. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fovea/io.h"
#include "fovea/rig.h"
#include "fovea/stitch.h"

/* ------------------------------------------------------------------ rig (dispatch) */

static void print_rig_help(FILE *fp)
{
    fputs("Usage: fovea rig <subcommand> [options] ...\n"
          "\n"
          "Camera rig files (docs/rig.md).\n"
          "\n"
          "Subcommands:\n"
          "  check      validate a rig, build its map, report coverage and overlaps\n"
          "  import     convert a Hugin project (.pto) into rig JSON\n"
          "\n"
          "Run 'fovea rig <subcommand> --help' for its options.\n",
          fp);
}

static int cmd_rig_check(int argc, char **argv);
static int cmd_rig_import(int argc, char **argv);

int cmd_rig(int argc, char **argv)
{
    if (argc < 2) {
        print_rig_help(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        print_rig_help(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(sub, "check") == 0)
        return cmd_rig_check(argc - 1, argv + 1);
    if (strcmp(sub, "import") == 0)
        return cmd_rig_import(argc - 1, argv + 1);
    return cli_usage_error("rig", "rig: unknown subcommand '%s' (expected check or import)", sub);
}

/* ------------------------------------------------------------------ rig check */

enum { OPT_PNG = 1, OPT_SAVE_MAP, OPT_MAX_STEP, OPT_TOLERANCE, OPT_IMPORT_OUT };

static const cli_option check_options[] = {
    {"png", 0, "FILE",
     "write the coverage picture: each camera in its own color (brighter "
     "where cameras overlap), seams white, uncovered pixels black",
     "none", OPT_PNG},
    {"json", 0, "FILE",
     "write every number of the report as JSON to FILE; '-' = stdout "
     "(the text report then goes to stderr)",
     "none", CLI_OPT_JSON},
    {"save-map", 0, "FILE",
     "save the built map, for `fovea stitch --map FILE` (skips the "
     "build)",
     "none", OPT_SAVE_MAP},
    {"max-step", 0, "N", "coarsest grid step tried when building the map: 1, 2, 4, 8, 16 or 32",
     "16", OPT_MAX_STEP},
    {"tolerance", 0, "PX",
     "largest allowed interpolation error of the map grid, camera "
     "pixels",
     "0.01", OPT_TOLERANCE},
    {"threads", 0, "N", "CPU threads for the build; 0 = one per CPU", "0", CLI_OPT_THREADS},
    {"quiet", 'q', NULL, "print nothing but errors and warnings", "print the report",
     CLI_OPT_QUIET},
    {0},
};

static const cli_spec check_spec = {
    "rig check",
    "[options] RIG.json",
    "Validate a rig file (docs/rig.md): every field is checked and the first bad\n"
    "one is named (exit status 1). Then build the stitch map and report the\n"
    "panorama, the cameras, how much of the panorama 0, 1 and 2+ cameras see, the\n"
    "overlap of every camera pair (median width in panorama pixels over the rows\n"
    "where both cameras see something) and, per camera, the grid step chosen for\n"
    "the map and its largest interpolation error.",
    check_options,
    "Examples:\n"
    "  fovea rig check rig.json\n"
    "  fovea rig check --png coverage.png --save-map pano.map rig.json\n"
    "  fovea rig check --json - rig.json | python3 -m json.tool",
};

typedef struct check_args {
    cli_common_opts opt; /* backend: cpu (no --backend) */
    const char *rig_path;
    const char *png, *save_map;
    int max_step;
    double tolerance;
} check_args;

static int parse_check_args(check_args *a, int argc, char **argv)
{
    const char *cmd = check_spec.name;
    cli_parser p;
    const char *v;
    int id;
    memset(a, 0, sizeof(*a));
    cli_common_opts_init(&a->opt);
    a->opt.backend = FOVEA_BACKEND_CPU;
    a->max_step = 16;
    a->tolerance = 0.01;
    cli_parser_init(&p, &check_spec, argc, argv);
    while ((id = cli_next(&p, &v)) > 0) {
        const int shared = cli_common_option(&a->opt, NULL, cmd, id, v);
        if (shared != 0) {
            if (shared < 0)
                return CLI_EXIT_USAGE;
            continue;
        }
        int bad = 0;
        switch (id) {
        case OPT_PNG: a->png = v; break;
        case OPT_SAVE_MAP: a->save_map = v; break;
        case OPT_MAX_STEP:
            bad = cli_parse_int32(cmd, "--max-step", v, 1, 32, &a->max_step);
            if (!bad && (a->max_step & (a->max_step - 1)) != 0)
                bad =
                    cli_usage_error(cmd, "--max-step: expected 1, 2, 4, 8, 16 or 32, got '%s'", v);
            break;
        case OPT_TOLERANCE:
            bad = cli_parse_double(cmd, "--tolerance", v, 1e-6, 100.0, &a->tolerance);
            break;
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end;
    if (p.nrest != 1)
        return cli_usage_error(cmd, "rig check: expected one RIG.json, got %d arguments", p.nrest);
    a->rig_path = p.rest[0];
    if (a->png && strcmp(a->png, "-") == 0)
        return cli_usage_error(cmd, "--png: give a file name");
    /* before anything is opened for writing: the rig file must survive, and
     * each output have a file of its own */
    cli_files fs;
    cli_files_init(&fs, cmd);
    cli_files_add(&fs, "RIG.json", a->rig_path, 0, 0);
    cli_files_add(&fs, "--json", a->opt.json, CLI_FILE_OUT, 0);
    cli_files_add(&fs, "--png", a->png, CLI_FILE_OUT, 0);
    cli_files_add(&fs, "--save-map", a->save_map, CLI_FILE_OUT, 0);
    const int rc = cli_files_check(&fs);
    cli_files_free(&fs);
    return rc;
}

/* What the report shows of a rig, read through its queries once. */
typedef struct rig_info {
    fovea_rig_panorama pano;
    int num_cameras;
    fovea_rig_camera cameras[FOVEA_RIG_MAX_CAMERAS];
} rig_info;

static void get_rig_info(const fovea_rig *rig, rig_info *ri)
{
    memset(ri, 0, sizeof(*ri));
    fovea_rig_get_panorama(rig, &ri->pano);
    ri->num_cameras = fovea_rig_num_cameras(rig);
    for (int c = 0; c < ri->num_cameras; c++)
        fovea_rig_get_camera(rig, c, &ri->cameras[c]);
}

static cJSON *json_numbers(const double *v, int n)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < n; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(v[i]));
    return arr;
}

static cJSON *check_json(const check_args *a, const rig_info *rig,
                         const fovea_stitch_map_stats *stats, const fovea_stitch_coverage *cov,
                         double build_seconds)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON_AddStringToObject(root, "rig", a->rig_path);
    cJSON_AddBoolToObject(root, "valid", 1);

    cJSON *pano = cJSON_AddObjectToObject(root, "panorama");
    cJSON_AddStringToObject(pano, "projection", fovea_projection_name(rig->pano.projection));
    cJSON_AddNumberToObject(pano, "width", rig->pano.width);
    cJSON_AddNumberToObject(pano, "height", rig->pano.height);
    cJSON_AddNumberToObject(pano, "hfov", rig->pano.hfov);
    cJSON_AddNumberToObject(pano, "vfov", rig->pano.vfov);
    cJSON_AddNumberToObject(pano, "yaw", rig->pano.yaw);
    cJSON_AddNumberToObject(pano, "pitch", rig->pano.pitch);
    cJSON_AddNumberToObject(pano, "feather", rig->pano.feather);
    cJSON_AddNumberToObject(pano, "max_theta", rig->pano.max_theta);

    cJSON *cams = cJSON_AddArrayToObject(root, "cameras");
    for (int c = 0; c < rig->num_cameras; c++) {
        const fovea_rig_camera *rc = &rig->cameras[c];
        const fovea_stitch_map_camera_stats *cs = &stats->cam[c];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", c);
        cJSON_AddStringToObject(o, "name", rc->name);
        cJSON_AddStringToObject(o, "model", fovea_camera_model_name(rc->model));
        cJSON_AddNumberToObject(o, "width", rc->width);
        cJSON_AddNumberToObject(o, "height", rc->height);
        cJSON_AddNumberToObject(o, "fx", rc->fx);
        cJSON_AddNumberToObject(o, "fy", rc->fy);
        cJSON_AddNumberToObject(o, "cx", rc->cx);
        cJSON_AddNumberToObject(o, "cy", rc->cy);
        cJSON_AddItemToObject(o, "dist", json_numbers(rc->dist, 5));
        cJSON_AddNumberToObject(o, "yaw", rc->yaw);
        cJSON_AddNumberToObject(o, "pitch", rc->pitch);
        cJSON_AddNumberToObject(o, "roll", rc->roll);
        cJSON_AddNumberToObject(o, "coverage_pct", cov->pct_camera[c]);
        cJSON_AddNumberToObject(o, "grid_step", cs->step);
        cJSON_AddNumberToObject(o, "max_error", cs->max_err);
        cJSON_AddNumberToObject(o, "seen_exact", (double)cs->seen_exact);
        cJSON_AddNumberToObject(o, "seen_lookup", (double)cs->seen_lookup);
        cJSON_AddNumberToObject(o, "bad_pixels", (double)cs->bad);
        cJSON_AddBoolToObject(o, "fallback", cs->fallback);
        cJSON_AddItemToArray(cams, o);
    }

    cJSON *cv = cJSON_AddObjectToObject(root, "coverage");
    cJSON_AddNumberToObject(cv, "pixels", (double)cov->total);
    cJSON_AddNumberToObject(cv, "none_pct", cov->pct_none);
    cJSON_AddNumberToObject(cv, "one_pct", cov->pct_one);
    cJSON_AddNumberToObject(cv, "multi_pct", cov->pct_multi);

    cJSON *ov = cJSON_AddArrayToObject(root, "overlaps");
    for (int x = 0; x < rig->num_cameras; x++) {
        for (int y = x + 1; y < rig->num_cameras; y++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "a", x);
            cJSON_AddNumberToObject(o, "b", y);
            cJSON_AddNumberToObject(o, "pct", cov->overlap_pct[x][y]);
            cJSON_AddNumberToObject(o, "rows", cov->overlap_rows[x][y]);
            cJSON_AddNumberToObject(o, "width", cov->overlap_width[x][y]);
            cJSON_AddItemToArray(ov, o);
        }
    }

    cJSON *b = cJSON_AddObjectToObject(root, "build");
    cJSON_AddNumberToObject(b, "max_step", a->max_step);
    cJSON_AddNumberToObject(b, "tolerance", a->tolerance);
    cJSON_AddNumberToObject(b, "seconds", build_seconds);
    return root;
}

/* An angle for the camera table: two decimals in 7 columns up to +-9999.99;
 * beyond that the remainder modulo 360 that the rotation uses, marked with
 * '~' (print_warnings names the angle as given). */
static void format_angle(char *buf, size_t n, double deg)
{
    if (fabs(deg) < 1e4)
        snprintf(buf, n, "%7.2f", deg);
    else
        snprintf(buf, n, "~%6.1f", fmod(deg, 360.0));
}

static void print_report(FILE *fp, const check_args *a, const rig_info *rig,
                         const fovea_stitch_map_stats *stats, const fovea_stitch_coverage *cov)
{
    fprintf(fp, "%s: valid\n", a->rig_path);
    fprintf(fp, "panorama: %dx%d %s, hfov %g", rig->pano.width, rig->pano.height,
            fovea_projection_name(rig->pano.projection), rig->pano.hfov);
    if (rig->pano.projection == FOVEA_PROJ_EQUIRECTANGULAR)
        fprintf(fp, ", vfov %g", rig->pano.vfov);
    if (rig->pano.yaw != 0.0 || rig->pano.pitch != 0.0)
        fprintf(fp, ", yaw %g, pitch %g", rig->pano.yaw, rig->pano.pitch);
    fprintf(fp, ", feather %g\n", rig->pano.feather);

    int name_w = 4;
    for (int c = 0; c < rig->num_cameras; c++) {
        int len = (int)strlen(rig->cameras[c].name);
        if (len > name_w)
            name_w = len;
    }
    fprintf(fp, "cameras: %d\n", rig->num_cameras);
    fprintf(fp, "  %2s  %-*s  %-7s  %-11s  %7s %7s %7s  %7s  %4s  %s\n", "#", name_w, "name",
            "model", "size", "yaw", "pitch", "roll", "sees", "step", "max error");
    for (int c = 0; c < rig->num_cameras; c++) {
        const fovea_rig_camera *rc = &rig->cameras[c];
        char size[32], yaw[32], pitch[32], roll[32];
        snprintf(size, sizeof(size), "%dx%d", rc->width, rc->height);
        format_angle(yaw, sizeof(yaw), rc->yaw);
        format_angle(pitch, sizeof(pitch), rc->pitch);
        format_angle(roll, sizeof(roll), rc->roll);
        fprintf(fp, "  %2d  %-*s  %-7s  %-11s  %s %s %s  %6.1f%%  %4d  %.4f px%s\n", c, name_w,
                rc->name, fovea_camera_model_name(rc->model), size, yaw, pitch, roll,
                cov->pct_camera[c], stats->cam[c].step, stats->cam[c].max_err,
                stats->cam[c].fallback ? " (over tolerance)" : "");
    }
    fprintf(fp, "coverage:\n");
    fprintf(fp, "  no camera      %6.2f%%\n", cov->pct_none);
    fprintf(fp, "  one camera     %6.2f%%\n", cov->pct_one);
    fprintf(fp, "  two or more    %6.2f%%\n", cov->pct_multi);
    int any = 0;
    for (int x = 0; x < rig->num_cameras; x++)
        for (int y = x + 1; y < rig->num_cameras; y++)
            any |= cov->overlap_rows[x][y] > 0;
    fprintf(fp, "overlaps:%s\n", any ? "" : " none");
    for (int x = 0; x < rig->num_cameras; x++) {
        for (int y = x + 1; y < rig->num_cameras; y++) {
            if (cov->overlap_rows[x][y] <= 0)
                continue;
            fprintf(fp, "  %s + %s: width %g px (median of %d rows), %.2f%% of the panorama\n",
                    rig->cameras[x].name, rig->cameras[y].name, cov->overlap_width[x][y],
                    cov->overlap_rows[x][y], cov->overlap_pct[x][y]);
        }
    }
}

/* A warning for an angle beyond a full turn: the rotation takes it modulo 360
 * (fv_rotation). */
static void warn_turn(const check_args *a, const char *field, double deg, const char *what)
{
    if (fabs(deg) >= 360.0)
        cli_error(a->rig_path, "warning: %s is %g degrees: it turns %s like %.2f (modulo 360)",
                  field, deg, what, fmod(deg, 360.0));
}

/* Problems worth a warning that do not make the rig invalid. */
static void print_warnings(const check_args *a, const rig_info *rig,
                           const fovea_stitch_map_stats *stats, const fovea_stitch_coverage *cov)
{
    warn_turn(a, "panorama.yaw", rig->pano.yaw, "the panorama");
    warn_turn(a, "panorama.pitch", rig->pano.pitch, "the panorama");
    for (int c = 0; c < rig->num_cameras; c++) {
        const fovea_rig_camera *rc = &rig->cameras[c];
        const double angles[3] = {rc->yaw, rc->pitch, rc->roll};
        static const char *const angle_names[3] = {"yaw", "pitch", "roll"};
        for (int k = 0; k < 3; k++) {
            char field[96];
            snprintf(field, sizeof(field), "cameras[%d].%s (%s)", c, angle_names[k], rc->name);
            warn_turn(a, field, angles[k], "the camera");
        }
        if (cov->pct_camera[c] <= 0.0)
            cli_error(a->rig_path, "warning: cameras[%d] (%s) sees no panorama pixel", c, rc->name);
        if (stats->cam[c].fallback)
            cli_error(a->rig_path,
                      "warning: cameras[%d] (%s): even a full-resolution grid misses the "
                      "tolerance (max error %.4f px, %lld pixels)",
                      c, rc->name, stats->cam[c].max_err, (long long)stats->cam[c].bad);
    }
    if (rig->num_cameras > 1) {
        for (int c = 0; c < rig->num_cameras; c++) {
            int overlaps = 0;
            for (int o = 0; o < rig->num_cameras; o++)
                overlaps |= o != c && cov->overlap_rows[c][o] > 0;
            if (!overlaps && cov->pct_camera[c] > 0.0)
                cli_error(a->rig_path,
                          "warning: cameras[%d] (%s) overlaps no other camera: no blending "
                          "or color balance across its edges",
                          c, rig->cameras[c].name);
        }
    }
}

static int write_coverage_png(const char *path, const fovea_stitch_map *map)
{
    int pw = 0, ph = 0;
    fovea_stitch_map_geometry(map, &pw, &ph, NULL);
    fovea_frame img;
    memset(&img, 0, sizeof(img));
    int st = fovea_frame_alloc(NULL, &img, pw, ph, FOVEA_PIX_RGB24, FOVEA_MEM_HOST);
    if (st < 0) {
        cli_error(path, "cannot allocate a %dx%d picture: %s", pw, ph, fovea_strerror(st));
        return CLI_EXIT_RUNTIME;
    }
    int rc = CLI_EXIT_OK;
    st = fovea_stitch_map_coverage_image(map, &img);
    if (st < 0) {
        cli_error(path, "cannot draw the coverage picture: %s", fovea_strerror(st));
        rc = CLI_EXIT_RUNTIME;
    } else {
        st = fovea_png_write_file(NULL, path, &img);
        if (st < 0)
            rc = cli_report(path, 1, fovea_last_error(NULL), st);
    }
    fovea_frame_free(NULL, &img);
    return rc;
}

/* With --json, a rig that fails validation still gets a (small) report. */
static void write_invalid_json(const check_args *a, const char *msg)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return;
    cJSON_AddStringToObject(root, "rig", a->rig_path);
    cJSON_AddBoolToObject(root, "valid", 0);
    cJSON_AddStringToObject(root, "error", msg);
    cli_write_json(a->opt.json, root);
    cJSON_Delete(root);
}

static int cmd_rig_check(int argc, char **argv)
{
    check_args a;
    int rc = parse_check_args(&a, argc, argv);
    if (rc < 0)
        return CLI_EXIT_OK;
    if (rc != CLI_EXIT_OK)
        return rc;

    fovea_rig *rig = NULL;
    rig_info *info = calloc(1, sizeof(*info));
    fovea_stitch_map *map = NULL;
    fovea_context *ctx = NULL;
    if (!info) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }

    int st = fovea_rig_open_file(&rig, NULL, a.rig_path);
    if (st < 0) {
        if (a.opt.json)
            write_invalid_json(&a, fovea_last_error(NULL));
        rc = cli_report(a.rig_path, 0, fovea_last_error(NULL), st);
        goto end;
    }
    get_rig_info(rig, info);

    rc = cli_open_context(&ctx, &a.opt, CLI_CONTEXT_MSG_PLAIN);
    if (rc != CLI_EXIT_OK)
        goto end;

    fovea_stitch_map_stats stats;
    memset(&stats, 0, sizeof(stats));
    fovea_stitch_map_settings bs;
    fovea_stitch_map_default_settings(&bs);
    bs.max_step = a.max_step;
    bs.tolerance = a.tolerance;
    double t0 = cli_now();
    st = fovea_stitch_map_open_rig(&map, ctx, rig, &bs, &stats);
    double build_seconds = cli_now() - t0;
    if (st < 0) {
        const char *detail = fovea_last_error(ctx);
        cli_error(a.rig_path, "cannot build the map: %s", *detail ? detail : fovea_strerror(st));
        rc = CLI_EXIT_RUNTIME;
        goto end;
    }

    fovea_stitch_coverage cov;
    st = fovea_stitch_map_coverage(map, &cov);
    if (st < 0) {
        cli_error(a.rig_path, "cannot measure the coverage: %s", fovea_strerror(st));
        rc = CLI_EXIT_RUNTIME;
        goto end;
    }

    int json_stdout = a.opt.json && strcmp(a.opt.json, "-") == 0;
    if (!a.opt.quiet)
        print_report(json_stdout ? stderr : stdout, &a, info, &stats, &cov);
    print_warnings(&a, info, &stats, &cov);

    if (a.png && (rc = write_coverage_png(a.png, map)) != CLI_EXIT_OK)
        goto end;
    if (a.save_map) {
        st = fovea_stitch_map_save(map, NULL, a.save_map);
        if (st < 0) {
            rc = cli_report(a.save_map, 1, fovea_last_error(NULL), st);
            goto end;
        }
    }
    if (a.opt.json) {
        cJSON *root = check_json(&a, info, &stats, &cov, build_seconds);
        if (!root) {
            cli_error(NULL, "out of memory");
            rc = CLI_EXIT_RUNTIME;
            goto end;
        }
        rc = cli_write_json(a.opt.json, root);
        cJSON_Delete(root);
    }

end:
    fovea_stitch_map_close(&map);
    fovea_close(&ctx);
    fovea_rig_close(&rig);
    free(info);
    return rc;
}

/* ------------------------------------------------------------------ rig import */

static const cli_option import_options[] = {
    {"output", 'o', "FILE", "rig JSON to write; '-' = stdout", "none (required)", OPT_IMPORT_OUT},
    {"quiet", 'q', NULL, "print nothing but errors (warnings included)", "print warnings",
     CLI_OPT_QUIET},
    {0},
};

static const cli_spec import_spec = {
    "rig import",
    "PROJECT.pto -o RIG.json",
    "Convert a Hugin project into rig JSON (docs/stitch.md, \"Hugin projects\"): the\n"
    "p line becomes the panorama, each i line a camera (model \"panotools\"), with\n"
    "Hugin's lens, distortion, shift, shear and orientation. What fovea does not\n"
    "apply (crops, masks, exposure, vignetting) is named in warnings; what it cannot\n"
    "reproduce is an error naming the line and field (exit status 1).",
    import_options,
    "Examples:\n"
    "  fovea rig import project.pto -o rig.json\n"
    "  fovea rig check rig.json\n"
    "  fovea stitch --pto project.pto left.png right.png -o pano.png",
};

static int cmd_rig_import(int argc, char **argv)
{
    const char *cmd = import_spec.name;
    cli_parser p;
    const char *v, *out = NULL;
    int id, quiet = 0;
    cli_parser_init(&p, &import_spec, argc, argv);
    while ((id = cli_next(&p, &v)) > 0) {
        if (id == OPT_IMPORT_OUT)
            out = v;
        else if (id == CLI_OPT_QUIET)
            quiet = 1;
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end;
    if (p.nrest != 1)
        return cli_usage_error(cmd, "rig import: expected one PROJECT.pto, got %d arguments",
                               p.nrest);
    if (!out)
        return cli_usage_error(cmd, "rig import: -o FILE is required");
    const char *pto = p.rest[0];
    cli_files fs;
    cli_files_init(&fs, cmd);
    cli_files_add(&fs, "PROJECT.pto", pto, 0, 0);
    cli_files_add(&fs, "-o", out, CLI_FILE_OUT, 0);
    int rc = cli_files_check(&fs);
    cli_files_free(&fs);
    if (rc != CLI_EXIT_OK)
        return rc;

    fovea_settings set;
    fovea_context *ctx = NULL;
    cli_common_opts co;
    cli_common_opts_init(&co);
    co.backend = FOVEA_BACKEND_CPU;
    cli_context_settings(&set, &co);
    if (!quiet)
        set.log = cli_log_to_stderr;
    rc = cli_open_context_with(&ctx, &set, CLI_CONTEXT_MSG_PLAIN);
    if (rc != CLI_EXIT_OK)
        return rc;
    fovea_rig *rig = NULL;
    int st = fovea_rig_open_pto(&rig, ctx, pto);
    if (st < 0) {
        rc = cli_report(pto, 0, fovea_last_error(ctx), st);
        fovea_close(&ctx);
        return rc;
    }
    char *json = fovea_rig_to_json(rig);
    fovea_rig_close(&rig);
    fovea_close(&ctx);
    if (!json) {
        cli_error(cmd, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    if (strcmp(out, "-") == 0) {
        rc = fputs(json, stdout) < 0 || fputc('\n', stdout) < 0 || fflush(stdout) != 0
                 ? cli_report(out, 1, "write error", FOVEA_ERR_IO)
                 : CLI_EXIT_OK;
        free(json);
        return rc;
    }
    fovea_outfile *of = NULL;
    if (cli_outfile_open(&of, out) < 0) {
        free(json);
        return cli_report(out, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
    }
    FILE *f = fovea_outfile_file(of);
    int bad = fputs(json, f) < 0 || fputc('\n', f) < 0;
    free(json);
    if (bad) {
        cli_outfile_close(&of);
        return cli_report(out, 1, "write error", FOVEA_ERR_IO);
    }
    st = cli_outfile_commit(&of);
    if (st < 0)
        return cli_report(out, 1, fovea_last_error(NULL), st);
    return CLI_EXIT_OK;
}
