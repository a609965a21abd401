/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea map import|info`: make a stitch map from full-resolution lookup tables,
 * and describe a map file (docs/map-format.md). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fovea/stitch.h"

static void print_map_help(FILE *fp)
{
    fputs("Usage: fovea map <subcommand> [options] ...\n"
          "\n"
          "Stitch map files (docs/map-format.md): the per-pixel remap of every camera\n"
          "into the panorama, as built from a rig (`fovea rig check --save-map`) or\n"
          "imported from lookup tables made by another tool.\n"
          "\n"
          "Subcommands:\n"
          "  import     make a map from six full-resolution float tables\n"
          "  info       show the geometry of a map file\n"
          "\n"
          "Run 'fovea map <subcommand> --help' for its options.\n",
          fp);
}

static int cmd_map_import(int argc, char **argv);
static int cmd_map_info(int argc, char **argv);

int cmd_map(int argc, char **argv)
{
    if (argc < 2) {
        print_map_help(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        print_map_help(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(sub, "import") == 0)
        return cmd_map_import(argc - 1, argv + 1);
    if (strcmp(sub, "info") == 0)
        return cmd_map_info(argc - 1, argv + 1);
    return cli_usage_error("map", "map: unknown subcommand '%s' (expected import or info)", sub);
}

/* ------------------------------------------------------------------ import */

enum { OPT_TABLES = 1, OPT_PANO, OPT_CAMERA, OPT_OUTPUT };

static const cli_option import_options[] = {
    {"tables", 0, "DIR",
     "folder holding lut_left_x.bin, lut_left_y.bin, lut_right_x.bin, "
     "lut_right_y.bin, weight_left.bin and weight_right.bin (required)",
     NULL, OPT_TABLES},
    {"pano", 0, "WxH", "panorama size the tables describe (required)", NULL, OPT_PANO},
    {"camera", 0, "WxH", "size of both camera images (required)", NULL, OPT_CAMERA},
    {"output", 'o', "FILE", "map file to write (required)", NULL, OPT_OUTPUT},
    {"quiet", 'q', NULL, "print nothing on success", "print a one-line summary", CLI_OPT_QUIET},
    {0},
};

static const cli_spec import_spec = {
    "map import",
    "--tables DIR --pano WxH --camera WxH -o FILE",
    "Import a two-camera map from six raw little-endian float32 tables, row-major,\n"
    "one value per panorama pixel (each exactly W*H*4 bytes): the camera pixel\n"
    "coordinates u (x) and v (y) of the left (camera 0) and right (camera 1)\n"
    "cameras, and their blend weights. Coordinates put the center of the top-left\n"
    "camera pixel at (0,0); a non-finite, negative or out-of-image coordinate means\n"
    "the camera does not see that pixel. Weights must be finite and >= 0; the\n"
    "stitcher normalizes them where both cameras see a pixel.",
    import_options,
    "Example:\n"
    "  fovea map import --tables luts/ --pano 5700x1900 --camera 3840x2160 \\\n"
    "      -o pano.map\n"
    "  fovea stitch --map pano.map left.y4m right.y4m -o pano.y4m\n"
    "\n"
    "Exit status: 0 success, 1 runtime error (tables that cover no pixel of the\n"
    "panorama are one: no map is written), 2 usage error.",
};

static int cmd_map_import(int argc, char **argv)
{
    const char *cmd = import_spec.name;
    const char *tables = NULL, *out = NULL;
    int pw = 0, ph = 0, cw = 0, ch = 0;
    cli_common_opts opt;
    cli_parser p;
    const char *v;
    int id;
    cli_common_opts_init(&opt);
    cli_parser_init(&p, &import_spec, argc, argv);
    while ((id = cli_next(&p, &v)) > 0) {
        const int shared = cli_common_option(&opt, NULL, cmd, id, v);
        if (shared != 0) {
            if (shared < 0)
                return CLI_EXIT_USAGE;
            continue;
        }
        int bad = 0;
        switch (id) {
        case OPT_TABLES: tables = v; break;
        case OPT_PANO: bad = cli_parse_size(cmd, "--pano", v, &pw, &ph); break;
        case OPT_CAMERA: bad = cli_parse_size(cmd, "--camera", v, &cw, &ch); break;
        case OPT_OUTPUT: out = v; break;
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end < 0 ? CLI_EXIT_OK : end; /* the help is printed: exit 0 */
    if (p.nrest != 0)
        return cli_usage_error(cmd, "map import: unexpected argument '%s'", p.rest[0]);
    if (!tables)
        return cli_usage_error(cmd, "map import: --tables DIR is required");
    if (!pw)
        return cli_usage_error(cmd, "map import: --pano WxH is required");
    if (!cw)
        return cli_usage_error(cmd, "map import: --camera WxH is required");
    if (!out)
        return cli_usage_error(cmd, "map import: -o FILE is required");
    if (strcmp(out, "-") == 0)
        return cli_usage_error(cmd, "-o: map files cannot go to stdout; give a file name");
    /* the tables the import reads (the names of --tables' help) must survive */
    static const char *const table_files[] = {"lut_left_x.bin",  "lut_left_y.bin",
                                              "lut_right_x.bin", "lut_right_y.bin",
                                              "weight_left.bin", "weight_right.bin"};
    for (size_t t = 0; t < sizeof(table_files) / sizeof(table_files[0]); t++) {
        char table[4096];
        snprintf(table, sizeof(table), "%s/%s", tables, table_files[t]);
        if (cli_refuse_same_file(out, table))
            return CLI_EXIT_USAGE;
    }

    fovea_stitch_map *map = NULL;
    int st = fovea_stitch_map_open_tables(&map, NULL, tables, pw, ph, cw, ch);
    if (st < 0) {
        if (!fovea_last_error(NULL)[0])
            return cli_report(tables, 0, fovea_last_error(NULL), st);
        cli_error(NULL, "%s", fovea_last_error(NULL)); /* the message names the table file */
        return CLI_EXIT_RUNTIME;
    }
    if (fovea_stitch_map_covers_any(map) == 0) {
        cli_error(tables,
                  "the tables cover no pixel of the panorama (every lookup falls outside "
                  "the %dx%d cameras, or every weight is 0): no map written",
                  cw, ch);
        fovea_stitch_map_close(&map);
        return CLI_EXIT_RUNTIME;
    }
    st = fovea_stitch_map_save(map, NULL, out);
    int rc = CLI_EXIT_OK;
    if (st < 0)
        rc = cli_report(out, 1, fovea_last_error(NULL), st);
    else if (!opt.quiet)
        printf("%s: 2 cameras %dx%d, panorama %dx%d, imported from %s\n", out, cw, ch, pw, ph,
               tables);
    fovea_stitch_map_close(&map);
    return rc;
}

/* ------------------------------------------------------------------ info */

static const cli_option info_options[] = {
    CLI_OPTION_JSON("write the geometry as JSON to FILE; '-' = stdout (instead of the text)"),
    {0},
};

static const cli_spec info_spec = {
    "map info",
    "[options] MAP",
    "Show a map file's geometry: panorama size, blend feather (maps with computed\n"
    "weights; imported maps carry their weights and have none), and per camera the\n"
    "image size, the grid step of the stored lookup (1 = every panorama pixel), the\n"
    "fraction of the panorama it sees, and whether blend weights are explicit\n"
    "(imported tables) or computed from the seams.",
    info_options,
    NULL,
};

/* Panorama pixels camera c sees, from the stored lookup. */
static int64_t camera_seen(const fovea_stitch_map *m, int c)
{
    int pw = 0, ph = 0;
    fovea_stitch_map_geometry(m, &pw, &ph, NULL);
    int64_t n = 0;
    for (int j = 0; j < ph; j++)
        for (int i = 0; i < pw; i++) {
            float u, v;
            n += fovea_stitch_map_lookup(m, c, i, j, &u, &v) != 0;
        }
    return n;
}

static int cmd_map_info(int argc, char **argv)
{
    const char *cmd = info_spec.name;
    cli_common_opts opt;
    cli_parser p;
    const char *v;
    int id;
    cli_common_opts_init(&opt);
    cli_parser_init(&p, &info_spec, argc, argv);
    while ((id = cli_next(&p, &v)) > 0)
        if (cli_common_option(&opt, NULL, cmd, id, v) <= 0)
            return CLI_EXIT_USAGE;
    const char *json = opt.json;
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end < 0 ? CLI_EXIT_OK : end; /* the help is printed: exit 0 */
    if (p.nrest != 1)
        return cli_usage_error(cmd, "map info: expected one MAP file, got %d arguments", p.nrest);
    const char *path = p.rest[0];
    if (cli_refuse_same_file(json, path))
        return CLI_EXIT_USAGE;

    fovea_stitch_map *m = NULL;
    int st = fovea_stitch_map_open_file(&m, NULL, path);
    if (st < 0)
        return cli_report(path, 0, fovea_last_error(NULL), st);

    int pano_w = 0, pano_h = 0, ncam = 0;
    fovea_stitch_map_geometry(m, &pano_w, &pano_h, &ncam);
    const double total = (double)pano_w * (double)pano_h;
    double seen_pct[FOVEA_STITCH_MAX_CAMERAS];
    fovea_stitch_map_camera_info cam[FOVEA_STITCH_MAX_CAMERAS];
    int explicit_weights = 0;
    for (int c = 0; c < ncam; c++) {
        fovea_stitch_map_get_camera_info(m, c, &cam[c]);
        seen_pct[c] = 100.0 * (double)camera_seen(m, c) / total;
        explicit_weights |= cam[c].explicit_weights;
    }
    const float feather = fovea_stitch_map_feather(m);

    int rc = CLI_EXIT_OK;
    if (json) {
        cJSON *root = cJSON_CreateObject();
        if (!root) {
            fovea_stitch_map_close(&m);
            cli_error(NULL, "out of memory");
            return CLI_EXIT_RUNTIME;
        }
        cJSON_AddStringToObject(root, "map", path);
        cJSON_AddNumberToObject(root, "width", pano_w);
        cJSON_AddNumberToObject(root, "height", pano_h);
        /* the feather shapes computed weights only: imported maps carry theirs */
        if (explicit_weights)
            cJSON_AddNullToObject(root, "feather");
        else
            cJSON_AddNumberToObject(root, "feather", feather);
        cJSON_AddBoolToObject(root, "explicit_weights", explicit_weights);
        cJSON *cams = cJSON_AddArrayToObject(root, "cameras");
        for (int c = 0; c < ncam; c++) {
            const fovea_stitch_map_camera_info *cm = &cam[c];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "index", c);
            cJSON_AddNumberToObject(o, "width", cm->width);
            cJSON_AddNumberToObject(o, "height", cm->height);
            cJSON_AddNumberToObject(o, "grid_step", cm->grid_step);
            cJSON_AddNumberToObject(o, "grid_width", cm->grid_width);
            cJSON_AddNumberToObject(o, "grid_height", cm->grid_height);
            cJSON_AddNumberToObject(o, "px_scale", cm->px_scale);
            cJSON_AddBoolToObject(o, "fisheye_clip", cm->fisheye_clip);
            cJSON_AddBoolToObject(o, "explicit_weights", cm->explicit_weights);
            cJSON_AddNumberToObject(o, "coverage_pct", seen_pct[c]);
            cJSON_AddItemToArray(cams, o);
        }
        rc = cli_write_json(json, root);
        cJSON_Delete(root);
    } else {
        printf("%s\n", path);
        printf("panorama: %dx%d\n", pano_w, pano_h);
        if (!explicit_weights)
            printf("feather: %g px\n", (double)feather);
        printf("explicit weights: %s\n", explicit_weights ? "yes" : "no (computed from seams)");
        printf("cameras: %d\n", ncam);
        for (int c = 0; c < ncam; c++) {
            const fovea_stitch_map_camera_info *cm = &cam[c];
            char size[32];
            snprintf(size, sizeof(size), "%dx%d", cm->width, cm->height);
            printf("  %2d  %-11s  step %2d (grid %dx%d)  sees %6.2f%%%s%s\n", c, size,
                   cm->grid_step, cm->grid_width, cm->grid_height, seen_pct[c],
                   cm->fisheye_clip ? "  fisheye clip" : "",
                   cm->explicit_weights ? "  explicit weights" : "");
        }
    }
    fovea_stitch_map_close(&m);
    return rc;
}
