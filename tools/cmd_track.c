/* `fovea track INPUT...`: KLT feature tracking over a y4m/raw video (luma) or a
 * list of PGM/PNG frames; features per frame as KLT's feature table (text) or
 * JSON, and an optional overlay video/images with each feature's recent trail. */
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fovea/convert.h"
#include "fovea/klt.h"

enum {
    OPT_FEATURES = 1,
    OPT_REPLACE,
    OPT_WINDOW,
    OPT_MINDIST,
    OPT_LEVELS,
    OPT_SUBSAMPLING,
    OPT_SEQUENTIAL,
    OPT_AFFINE,
    OPT_OUTPUT,
    OPT_FORMAT,
    OPT_OVERLAY,
    OPT_TRAIL
};

#define MAX_TRAIL 64

static const cli_option options[] = {
    CLI_INPUT_OPTIONS,
    CLI_OPTION_START("skip the first N input frames (video frames, or images of the list)"),
    CLI_OPTION_FRAMES("track at most N frames; 0 = all"),
    {"features", 'n', "N", "number of feature slots", "150", OPT_FEATURES},
    {"replace", 'r', NULL, "replace lost features after every tracked frame", "off",
     OPT_REPLACE},
    {"window", 'w', "W", "tracking window W x W (odd, >= 3)", "7", OPT_WINDOW},
    {"mindist", 0, "D", "minimum distance between features in pixels", "10", OPT_MINDIST},
    {"pyramid-levels", 0, "L", "pyramid levels including the full image (1..8)",
     "2 (KLT's choice for a search range of 15)", OPT_LEVELS},
    {"subsampling", 0, "S", "pyramid subsampling: 2, 4, 8, 16 or 32", "4", OPT_SUBSAMPLING},
    {"sequential", 0, NULL, "keep the last pyramid between frames (same results, less work)",
     "off", OPT_SEQUENTIAL},
    {"affine", 0, "MODE", "affine consistency check: off, 0 (translation), 1 (similarity) "
     "or 2 (affine)", "off", OPT_AFFINE},
    {"backend", 0, "B", "auto, cpu or cuda (auto: cuda when a device is present)", "auto",
     CLI_OPT_BACKEND},
    CLI_OPTION_THREADS,
    {"output", 'o', "FILE", "feature table as text (KLT's layout, features x frames); '-' "
     "= stdout", "- unless --json is given", OPT_OUTPUT},
    {"format", 0, "FMT", "printf format of x and y in the text table ('%...f' or '%...d')",
     "%7.2f", OPT_FORMAT},
    CLI_OPTION_JSON("features per frame as JSON; '-' = stdout"),
    {"overlay", 0, "OUT", "draw the tracks on the frames: a .y4m video or an image pattern "
     "such as frame%03d.png", "none", OPT_OVERLAY},
    {"trail", 0, "N", "frames of history drawn per feature in the overlay (1..64)", "10",
     OPT_TRAIL},
    CLI_OPTION_QUIET,
    {0},
};

static const cli_spec spec = {
    "track",
    "[options] INPUT...",
    "Track features through a sequence with fovea's KLT (the numbers of Birchfield's\n"
    "KLT 1.3.4). INPUT is one y4m (or raw .yuv) video, whose luma is used, or a list\n"
    "of PGM/PPM/PNG frames in order (a quoted glob such as 'img*.pgm' is expanded and\n"
    "sorted). Features are selected on the first frame and tracked frame to frame;\n"
    "with --replace, lost slots are refilled after each frame. Feature values: > 0\n"
    "newly selected (its eigenvalue), 0 tracked, < 0 lost (-1 not found, -2 small\n"
    "determinant, -3 max iterations, -4 out of bounds, -5 large residue).\n"
    "Overlay colors: green tracked, yellow newly selected, red lost in this frame.",
    options,
    "Examples:\n"
    "  fovea track --replace -o features.txt 'img*.pgm'\n"
    "  fovea track -n 300 --replace --json tracks.json --overlay tracks.y4m in.y4m\n"
    "  fovea track --start 100 --frames 50 -o features.txt in.y4m\n"
    "\n"
    "At the end one summary line (frames, features, outputs, time) goes to stdout,\n"
    "or to stderr when stdout carries the table, the JSON or the overlay.\n"
    "\n"
    "Exit status: 0 success, 1 runtime error (an input without frames, or none\n"
    "left after --start, is one), 2 usage error.",
};

typedef struct track_args {
    cli_common_opts opt; /* backend: the tracker's (the context is CPU-only) */
    cli_input_opts in;
    int nfeatures, replace, window, mindist, levels, subsampling, sequential, affine;
    const char *output, *format, *overlay;
    int trail;
    char **inputs;
    int ninputs;
    glob_t g;
    int have_glob;
} track_args;

static int has_glob_chars(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

static int collect_inputs(track_args *a, char **rest, int nrest);

static int parse_args(track_args *a, int argc, char **argv)
{
    const char *cmd = spec.name;
    cli_parser p;
    const char *v;
    int id;

    memset(a, 0, sizeof(*a));
    cli_common_opts_init(&a->opt);
    cli_input_opts_init(&a->in);
    a->nfeatures = 150;
    a->window = 7;
    a->mindist = 10;
    a->affine = -1;
    a->format = "%7.2f";
    a->trail = 10;

    cli_parser_init(&p, &spec, argc, argv);
    while ((id = cli_next(&p, &v)) > 0) {
        const int shared = cli_common_option(&a->opt, &a->in, cmd, id, v);
        if (shared != 0) {
            if (shared < 0)
                return CLI_EXIT_USAGE;
            continue;
        }
        int bad = 0;
        switch (id) {
        case OPT_FEATURES:
            bad = cli_parse_int32(cmd, "--features", v, 1, 1000000, &a->nfeatures);
            break;
        case OPT_REPLACE:
            a->replace = 1;
            break;
        case OPT_WINDOW:
            bad = cli_parse_int32(cmd, "--window", v, 3, 99, &a->window);
            if (!bad && a->window % 2 == 0)
                return cli_usage_error(cmd, "--window: must be odd, got %d", a->window);
            break;
        case OPT_MINDIST:
            bad = cli_parse_int32(cmd, "--mindist", v, 0, 10000, &a->mindist);
            break;
        case OPT_LEVELS:
            bad = cli_parse_int32(cmd, "--pyramid-levels", v, 1, 8, &a->levels);
            break;
        case OPT_SUBSAMPLING:
            bad = cli_parse_int32(cmd, "--subsampling", v, 2, 32, &a->subsampling);
            if (!bad && (a->subsampling & (a->subsampling - 1)))
                return cli_usage_error(cmd, "--subsampling: must be 2, 4, 8, 16 or 32, got %d",
                                       a->subsampling);
            break;
        case OPT_SEQUENTIAL:
            a->sequential = 1;
            break;
        case OPT_AFFINE: {
            static const char *const modes[] = {"off", "0", "1", "2", NULL};
            int m;
            bad = cli_parse_choice(cmd, "--affine", v, modes, &m);
            a->affine = m - 1;
            break;
        }
        case OPT_OUTPUT:
            a->output = v;
            break;
        case OPT_FORMAT: {
            size_t n = strlen(v);
            if (n < 2 || v[0] != '%' || (v[n - 1] != 'f' && v[n - 1] != 'd') ||
                strchr(v + 1, '%') || n > 20)
                return cli_usage_error(cmd, "--format: expected e.g. %%7.2f or %%4d, got '%s'",
                                       v);
            a->format = v;
            break;
        }
        case OPT_OVERLAY:
            a->overlay = v;
            break;
        case OPT_TRAIL:
            bad = cli_parse_int32(cmd, "--trail", v, 1, MAX_TRAIL, &a->trail);
            break;
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end;
    if (p.nrest < 1)
        return cli_usage_error(cmd, "track: expected at least one INPUT");
    if (!a->output && !a->opt.json)
        a->output = "-";
    const int output_out = a->output && strcmp(a->output, "-") == 0;
    const int json_out = a->opt.json && strcmp(a->opt.json, "-") == 0;
    if (output_out && json_out)
        return cli_usage_error(cmd, "--output - and --json -: only one can use stdout");
    if (a->overlay && strcmp(a->overlay, "-") == 0 && (output_out || json_out))
        return cli_usage_error(cmd, "--overlay -: stdout already carries the features");
    return collect_inputs(a, p.rest, p.nrest);
}

/* The inputs: a single quoted glob expanded, a video alone, none an output. */
static int collect_inputs(track_args *a, char **rest, int nrest)
{
    const char *cmd = spec.name;
    /* a single quoted glob is expanded here */
    if (nrest == 1 && has_glob_chars(rest[0])) {
        if (glob(rest[0], 0, NULL, &a->g) != 0 || a->g.gl_pathc == 0) {
            cli_error(NULL, "%s: no file matches", rest[0]);
            return CLI_EXIT_RUNTIME;
        }
        a->have_glob = 1;
        a->inputs = a->g.gl_pathv;
        a->ninputs = (int)a->g.gl_pathc;
    } else {
        a->inputs = rest;
        a->ninputs = nrest;
    }
    for (int i = 0; i < a->ninputs; i++) {
        fovea_container c = cli_container_for(a->inputs[i], a->in.container);
        int video = c == FOVEA_CONTAINER_Y4M || c == FOVEA_CONTAINER_YUV;
        if (video && a->ninputs > 1)
            return cli_usage_error(cmd, "%s: a video input must be the only INPUT",
                                   a->inputs[i]);
        /* before anything is opened for writing: the inputs must survive */
        if (cli_refuse_same_file(a->output, a->inputs[i]) ||
            cli_refuse_same_file(a->opt.json, a->inputs[i]) ||
            cli_refuse_same_file(a->overlay, a->inputs[i]))
            return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ frames */

/* 8-bit luma of a host frame into a packed w x h buffer. */
static void frame_luma(const fovea_frame *f, unsigned char *out)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    for (int y = 0; y < f->height; y++) {
        const uint8_t *row = f->data[0] + (ptrdiff_t)y * f->stride[0];
        unsigned char *o = out + (size_t)y * f->width;
        if (d->is_rgb) {
            /* 16-bit RGB: the high byte of each little-endian sample, as v >> 8 below */
            const int bps = d->bytes_per_sample;
            for (int x = 0; x < f->width; x++) {
                const uint8_t *p = row + (size_t)x * d->components * bps + (bps - 1);
                o[x] = (unsigned char)((77 * p[0] + 150 * p[bps] + 29 * p[2 * bps] + 128) >> 8);
            }
        } else if (d->bytes_per_sample == 2) {
            for (int x = 0; x < f->width; x++) {
                int v = row[2 * x] | row[2 * x + 1] << 8;
                o[x] = (unsigned char)(v >> (d->bit_depth - 8));
            }
        } else {
            memcpy(o, row, (size_t)f->width);
        }
    }
}

/* A video is read on a thread of its own (cli_ring) and its overlay written
 * on another (cli_pipe), so that reading, tracking and writing overlap; a
 * list of images is read and its overlay written in line, as stitch does
 * with stills. */
#define PIPE_SLOTS 3

/* source_next's return when a video read failed: not yet reported (the
 * overlay frames before it are written first, see writes_before). */
#define SOURCE_FAILED (-2)

typedef struct source {
    const track_args *a;
    fovea_reader *r;     /* the open reader (the video, or the current image) */
    int next;            /* next image index */
    int video;
    fovea_frame frame;   /* an image's */
    cli_ring ring;       /* a video's reads */
    int status;          /* SOURCE_FAILED: the read's status and message */
    char why[1024];
    int width, height;
    int64_t total;
} source;

/* A video after --start: the reads from here on, on a thread once started. */
static int source_open_video(source *s)
{
    const track_args *a = s->a;
    const fovea_video_info *info = fovea_reader_info(s->r);
    if (a->opt.start > 0) {
        int st = fovea_reader_skip(s->r, a->opt.start);
        if (st == FOVEA_EOF) {
            cli_error(cli_display_path(a->inputs[0], 0),
                      "--start %lld: the input has fewer frames", a->opt.start);
            return CLI_EXIT_RUNTIME;
        }
        if (st < 0)
            return cli_report(a->inputs[0], 0, fovea_last_error(NULL), st);
    }
    s->total = info->frame_count < 0           ? -1
               : info->frame_count > a->opt.start ? info->frame_count - a->opt.start
                                               : 0;
    int st = cli_ring_init(&s->ring, NULL, s->r, PIPE_SLOTS, a->opt.frames, FOVEA_MEM_HOST, 1);
    if (st < 0) {
        cli_error(cli_display_path(a->inputs[0], 0), "cannot allocate %dx%d frames: %s",
                  info->width, info->height, fovea_strerror(st));
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

/* Open the first input to track (after --start) and learn the frame size. */
static int source_open(source *s, const track_args *a)
{
    memset(s, 0, sizeof(*s));
    s->a = a;
    int first = 0;
    if (a->ninputs > 1 && a->opt.start > 0) {
        if (a->opt.start >= a->ninputs) {
            cli_error(NULL, "--start %lld: the list has %d image%s: no frames left", a->opt.start,
                      a->ninputs, a->ninputs == 1 ? "" : "s");
            return CLI_EXIT_RUNTIME;
        }
        first = (int)a->opt.start;
    }
    int rc = cli_open_reader(spec.name, a->inputs[first], &a->in, &s->r);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* the reader's container: an input without extension is known by its content */
    fovea_container c = fovea_reader_container(s->r);
    s->video = c == FOVEA_CONTAINER_Y4M || c == FOVEA_CONTAINER_YUV;
    if (s->video && a->ninputs > 1)
        return cli_usage_error(spec.name, "%s: a video input must be the only INPUT",
                               a->inputs[first]);
    const fovea_video_info *info = fovea_reader_info(s->r);
    s->width = info->width;
    s->height = info->height;
    s->next = first + 1;
    if (s->video) {
        if ((rc = source_open_video(s)) != CLI_EXIT_OK)
            return rc;
    } else {
        s->total = a->ninputs - first;
    }
    if (a->opt.frames >= 0 && (s->total < 0 || a->opt.frames < s->total))
        s->total = a->opt.frames;
    return CLI_EXIT_OK;
}

/* Read the next frame's luma. @return CLI_EXIT_OK, -1 at the end,
 * SOURCE_FAILED, or an exit status (reported). */
static int source_next(source *s, unsigned char *luma)
{
    if (!s->r) {
        if (s->video || s->next >= s->a->ninputs)
            return -1;
        int rc = cli_open_reader(spec.name, s->a->inputs[s->next], &s->a->in, &s->r);
        if (rc != CLI_EXIT_OK)
            return rc;
        s->next++;
        fovea_frame_free(NULL, &s->frame);
    }
    const char *path = s->video ? s->a->inputs[0] : s->a->inputs[s->next - 1];
    const fovea_frame *f = &s->frame;
    const char *msg;
    int st;
    if (s->video) {
        fovea_frame *rf;
        st = cli_ring_take(&s->ring, &rf, &msg);
        f = rf;
    } else {
        st = fovea_reader_read(s->r, &s->frame);
        msg = fovea_last_error(NULL);
    }
    if (st == FOVEA_EOF) {
        if (s->video)
            return -1; /* (the ring's reader stays open) */
        fovea_reader_close(&s->r);
        cli_error(path, "no image in the file");
        return CLI_EXIT_RUNTIME;
    }
    if (st < 0 && s->video) {
        s->status = st;
        snprintf(s->why, sizeof(s->why), "%s", msg);
        return SOURCE_FAILED;
    }
    if (st < 0)
        return cli_report(path, 0, msg, st);
    if (f->width != s->width || f->height != s->height) {
        cli_error(path, "frame is %dx%d, the first frame %dx%d", f->width, f->height, s->width,
                  s->height);
        return CLI_EXIT_RUNTIME;
    }
    frame_luma(f, luma);
    if (s->video)
        cli_ring_release(&s->ring);
    else
        fovea_reader_close(&s->r);
    return CLI_EXIT_OK;
}

static void source_close(source *s)
{
    cli_ring_stop(&s->ring); /* (stopped already after a run) before its reader goes */
    fovea_reader_close(&s->r);
    fovea_frame_free(NULL, &s->frame);
}

/* ------------------------------------------------------------------ overlay */

typedef struct trail {
    float x[MAX_TRAIL], y[MAX_TRAIL];
    int n;           /* points held (newest last) */
    int lost_now;    /* lost in the current frame: draw its last point in red */
} trail;

static void put_px(fovea_frame *f, int x, int y, const uint8_t c[3])
{
    if (x < 0 || y < 0 || x >= f->width || y >= f->height)
        return;
    uint8_t *p = f->data[0] + (ptrdiff_t)y * f->stride[0] + 3 * (size_t)x;
    p[0] = c[0];
    p[1] = c[1];
    p[2] = c[2];
}

static void draw_line(fovea_frame *f, float x0, float y0, float x1, float y1, const uint8_t c[3])
{
    float dx = x1 - x0, dy = y1 - y0;
    float adx = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;
    int n = (int)(adx > ady ? adx : ady) + 1;
    if (n > 4096)
        n = 4096;
    for (int i = 0; i <= n; i++) {
        float t = (float)i / (float)n;
        put_px(f, (int)(x0 + t * dx + 0.5f), (int)(y0 + t * dy + 0.5f), c);
    }
}

static void draw_box(fovea_frame *f, float x, float y, const uint8_t c[3])
{
    int cx = (int)(x + 0.5f), cy = (int)(y + 0.5f);
    for (int j = -1; j <= 1; j++)
        for (int i = -1; i <= 1; i++)
            put_px(f, cx + i, cy + j, c);
}

/* Update the trails from the list, then draw them over the luma. */
static void overlay_draw(fovea_frame *rgb, const unsigned char *luma, trail *tr,
                         KLT_FeatureList fl, int trail_len)
{
    static const uint8_t green[3] = {0, 255, 0}, yellow[3] = {255, 230, 0},
                         red[3] = {255, 0, 0}, dim[3] = {0, 150, 0};
    for (int y = 0; y < rgb->height; y++) {
        uint8_t *p = rgb->data[0] + (ptrdiff_t)y * rgb->stride[0];
        const unsigned char *l = luma + (size_t)y * rgb->width;
        for (int x = 0; x < rgb->width; x++)
            p[3 * x] = p[3 * x + 1] = p[3 * x + 2] = l[x];
    }
    for (int k = 0; k < fl->nFeatures; k++) {
        KLT_Feature f = fl->feature[k];
        trail *t = &tr[k];
        t->lost_now = 0;
        if (f->val < 0) {
            t->lost_now = t->n > 0;
            if (t->lost_now)
                draw_box(rgb, t->x[t->n - 1], t->y[t->n - 1], red);
            t->n = 0;
            continue;
        }
        if (f->val > 0)
            t->n = 0;   /* a new feature in this slot */
        if (t->n == trail_len) {
            memmove(t->x, t->x + 1, (size_t)(trail_len - 1) * sizeof(float));
            memmove(t->y, t->y + 1, (size_t)(trail_len - 1) * sizeof(float));
            t->n--;
        }
        t->x[t->n] = f->x;
        t->y[t->n] = f->y;
        t->n++;
        for (int i = 1; i < t->n; i++)
            draw_line(rgb, t->x[i - 1], t->y[i - 1], t->x[i], t->y[i], dim);
        draw_box(rgb, f->x, f->y, f->val > 0 ? yellow : green);
    }
}

/* ------------------------------------------------------------------ output */

typedef struct history {
    KLT_FeatureRec *rec;   /* frames x nfeatures (x, y, val only) */
    int frames, cap, nfeat;
} history;

static int history_add(history *h, KLT_FeatureList fl)
{
    if (h->frames == h->cap) {
        int cap = h->cap ? 2 * h->cap : 64;
        KLT_FeatureRec *r = realloc(h->rec, (size_t)cap * h->nfeat * sizeof(KLT_FeatureRec));
        if (!r)
            return 0;
        h->rec = r;
        h->cap = cap;
    }
    KLT_FeatureRec *dst = h->rec + (size_t)h->frames * h->nfeat;
    for (int k = 0; k < h->nfeat; k++) {
        memset(&dst[k], 0, sizeof(dst[k]));
        dst[k].x = fl->feature[k]->x;
        dst[k].y = fl->feature[k]->y;
        dst[k].val = fl->feature[k]->val;
    }
    h->frames++;
    return 1;
}

static int write_table(const track_args *a, const history *h)
{
    KLT_FeatureTable ft = KLTCreateFeatureTable(h->frames, h->nfeat);
    if (!ft) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    for (int i = 0; i < h->frames; i++)
        for (int k = 0; k < h->nfeat; k++) {
            const KLT_FeatureRec *r = &h->rec[(size_t)i * h->nfeat + k];
            ft->feature[k][i]->x = r->x;
            ft->feature[k][i]->y = r->y;
            ft->feature[k][i]->val = r->val;
        }
    fovea_outfile *of;
    int rc = CLI_EXIT_OK;
    if (fovea_outfile_open(&of, NULL, a->output) < 0) {
        rc = cli_report(a->output, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
    } else {
        int st = fovea_klt_write_feature_table_stream(ft, fovea_outfile_file(of), a->format);
        if (st < 0) {
            /* the reason of a failed write is in errno now, before anything else runs */
            int e = errno;
            fovea_outfile_close(&of);
            cli_error(cli_display_path(a->output, 1), "%s",
                      st == FOVEA_ERR_IO && e ? strerror(e) : fovea_strerror(st));
            rc = CLI_EXIT_RUNTIME;
        } else if (fovea_outfile_commit(&of, NULL) < 0) {
            rc = cli_report(a->output, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
        }
    }
    KLTFreeFeatureTable(ft);
    return rc;
}

static int write_json(const track_args *a, const history *h, int w, int hgt, double seconds)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "width", w);
    cJSON_AddNumberToObject(root, "height", hgt);
    cJSON_AddNumberToObject(root, "nFeatures", h->nfeat);
    cJSON_AddNumberToObject(root, "nFrames", h->frames);
    cJSON_AddBoolToObject(root, "replace", a->replace);
    cJSON_AddNumberToObject(root, "seconds", seconds);
    cJSON *cols = cJSON_AddArrayToObject(root, "columns");
    cJSON_AddItemToArray(cols, cJSON_CreateString("x"));
    cJSON_AddItemToArray(cols, cJSON_CreateString("y"));
    cJSON_AddItemToArray(cols, cJSON_CreateString("val"));
    cJSON *frames = cJSON_AddArrayToObject(root, "frames");
    for (int i = 0; i < h->frames; i++) {
        cJSON *fr = cJSON_CreateObject();
        cJSON_AddNumberToObject(fr, "frame", i);
        cJSON *feats = cJSON_AddArrayToObject(fr, "features");
        for (int k = 0; k < h->nfeat; k++) {
            const KLT_FeatureRec *r = &h->rec[(size_t)i * h->nfeat + k];
            cJSON *t = cJSON_CreateArray();
            cJSON_AddItemToArray(t, cJSON_CreateNumber(r->x));
            cJSON_AddItemToArray(t, cJSON_CreateNumber(r->y));
            cJSON_AddItemToArray(t, cJSON_CreateNumber(r->val));
            cJSON_AddItemToArray(feats, t);
        }
        cJSON_AddItemToArray(frames, fr);
    }
    int rc = cli_write_json(a->opt.json, root);
    cJSON_Delete(root);
    return rc;
}

/* ------------------------------------------------------------------ main */

/* The pyramid options that cannot work on a w x h input: name them, with the
 * library's reason (fovea_klt_check_params). @return CLI_EXIT_USAGE */
static int pyramid_conflict(const track_args *a, KLT_TrackingContext tc, int w, int h)
{
    const char *why = fovea_last_error(tc->ctx);
    const char *p = why[0] == '(' ? strstr(why, ") ") : NULL;
    if (p)
        why = p + 2;   /* drop the "(function) " prefix */
    const char *input = cli_display_path(a->inputs[0], 0);
    if (w < a->window || h < a->window)
        return cli_usage_error(spec.name, "%s: --window %d does not fit the %dx%d input: %s",
                               input, a->window, w, h, why);
    return cli_usage_error(spec.name,
                           "%s: --pyramid-levels %d%s and --subsampling %d%s conflict with "
                           "--window %d%s for the %dx%d input: %s",
                           input, tc->nPyramidLevels, a->levels ? "" : " (default)",
                           tc->subsampling, a->subsampling ? "" : " (default)", a->window,
                           a->window != 7 ? "" : " (default)", w, h, why);
}

typedef struct track_run {
    track_args a;
    source src;
    fovea_context *ctx;
    KLT_TrackingContext tc;
    KLT_FeatureList fl;
    unsigned char *prev, *cur;  /* the lumas of the last frame and of this one */
    trail *trails;
    history hist;
    fovea_writer *ow;           /* the overlay */
    fovea_frame rgb, conv;      /* the overlay drawn; converted for the writer */
    int pipelined;              /* a video: its reads and the overlay on threads */
    cli_pipe pipe;
    cli_ring *rings[1];         /* &src.ring */
    cli_progress prog;
    int frames;                 /* frames tracked */
} track_run;

/* The context and the tracker with the options, checked against the input's size. */
static int tracker_setup(track_run *t)
{
    const track_args *a = &t->a;
    const int w = t->src.width, h = t->src.height;
    fovea_settings s;
    cli_context_settings(&s, &a->opt);
    s.backend = FOVEA_BACKEND_CPU; /* --backend is the tracker's */
    if (cli_open_context_with(&t->ctx, &s, CLI_CONTEXT_MSG_PLAIN) != CLI_EXIT_OK)
        return CLI_EXIT_RUNTIME;
    KLT_TrackingContext tc = t->tc = KLTCreateTrackingContext();
    t->fl = KLTCreateFeatureList(a->nfeatures);
    t->prev = malloc((size_t)w * h);
    t->cur = malloc((size_t)w * h);
    t->trails = calloc((size_t)a->nfeatures, sizeof(trail));
    t->hist.nfeat = a->nfeatures;
    if (!tc || !t->fl || !t->prev || !t->cur || !t->trails) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    tc->ctx = t->ctx;
    tc->backend = a->opt.backend;
    tc->window_width = tc->window_height = a->window;
    tc->mindist = a->mindist;
    tc->sequentialMode = a->sequential;
    tc->affineConsistencyCheck = a->affine;
    if (a->window != 7)
        KLTChangeTCPyramid(tc, 15);
    if (a->levels)
        tc->nPyramidLevels = a->levels;
    if (a->subsampling)
        tc->subsampling = a->subsampling;
    KLTUpdateTCBorder(tc);
    /* a conflict of the options with the input's size is a usage error, found
     * before any frame is read */
    if (fovea_klt_check_params(tc, w, h) < 0)
        return pyramid_conflict(a, tc, w, h);
    return CLI_EXIT_OK;
}

/* The overlay's writer and frames: rgb drawn, conv converted for the writer
 * when it takes another format; as many for each slot of a pipeline. */
static int open_overlay(track_run *t)
{
    const track_args *a = &t->a;
    const int w = t->src.width, h = t->src.height;
    fovea_container oc = cli_container_for(a->overlay, FOVEA_CONTAINER_AUTO);
    if (oc == FOVEA_CONTAINER_AUTO)
        return cli_usage_error(spec.name, "--overlay %s: name it .y4m, .png or .ppm",
                               a->overlay);
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = w;
    info.height = h;
    info.fmt = cli_default_output_pixfmt(oc, FOVEA_PIX_RGB24);
    if (t->src.video && t->src.r) {
        info.fps_num = fovea_reader_info(t->src.r)->fps_num;
        info.fps_den = fovea_reader_info(t->src.r)->fps_den;
    }
    int st = fovea_writer_open(&t->ow, NULL, a->overlay, oc, &info);
    if (st < 0)
        return cli_report(a->overlay, 1, fovea_last_error(NULL), st);
    const int nslots = t->pipelined ? PIPE_SLOTS : 0;
    for (int k = -1; k < nslots && st == FOVEA_OK; k++) {
        fovea_frame *f = k < 0 ? &t->rgb : &t->pipe.slot[k].f[0];
        fovea_frame *g = k < 0 ? &t->conv : &t->pipe.slot[k].f[1];
        st = fovea_frame_alloc(t->ctx, f, w, h, FOVEA_PIX_RGB24, FOVEA_MEM_HOST);
        if (st == FOVEA_OK && info.fmt != FOVEA_PIX_RGB24)
            st = fovea_frame_alloc(t->ctx, g, w, h, info.fmt, FOVEA_MEM_HOST);
    }
    if (st < 0) {
        cli_error(NULL, "cannot allocate overlay frames: %s", fovea_strerror(st));
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

/* The input, the tracker, a video's pipeline (not started) and the overlay. */
static int setup(track_run *t)
{
    int rc = source_open(&t->src, &t->a);
    if (rc == CLI_EXIT_OK)
        rc = tracker_setup(t);
    if (rc != CLI_EXIT_OK)
        return rc;
    t->pipelined = t->src.video;
    if (t->pipelined) {
        t->rings[0] = &t->src.ring;
        if (cli_pipe_init(&t->pipe, PIPE_SLOTS) < 0) {
            cli_error(NULL, "out of memory");
            return CLI_EXIT_RUNTIME;
        }
    }
    return t->a.overlay ? open_overlay(t) : CLI_EXIT_OK;
}

static int overlay_failure(const track_run *t, int st)
{
    return cli_report(t->a.overlay, 1, cli_pipe_error(&t->pipe), st);
}

/* Before a failure of a frame is reported: the overlay frames before it are
 * written, as in the sequential loop, where a failed write among them came
 * first. Stops the pipeline. @return CLI_EXIT_OK, or the exit status of the
 * failed write (reported) */
static int writes_before(track_run *t)
{
    const int st = cli_pipe_finish(&t->pipe);
    if (t->ow && t->pipelined)
        t->prog.done = t->pipe.written;
    return st < 0 ? overlay_failure(t, st) : CLI_EXIT_OK;
}

/* Frame i's overlay drawn over its luma (cur), to the writer: through the
 * pipeline, whose written buffers trade places with rgb and conv, or in line. */
static int write_overlay(track_run *t, int i)
{
    overlay_draw(&t->rgb, t->cur, t->trails, t->fl, t->a.trail);
    const fovea_frame *out = &t->rgb;
    int st, rc;
    if (t->conv.data[0]) {
        fovea_convert_options co;
        fovea_convert_options_init(&co);
        if ((st = fovea_frame_convert(t->ctx, &t->conv, &t->rgb, &co)) < 0) {
            if ((rc = writes_before(t)) != CLI_EXIT_OK)
                return rc;
            cli_error(NULL, "overlay frame %d: %s", i, fovea_strerror(st));
            return CLI_EXIT_RUNTIME;
        }
        out = &t->conv;
    }
    if (t->pipelined) {
        fovea_frame *bufs[2] = {&t->rgb, &t->conv};
        if ((st = cli_pipe_put(&t->pipe, bufs, out == &t->conv)) < 0)
            return writes_before(t); /* the write that failed */
        return CLI_EXIT_OK;
    }
    if ((st = fovea_writer_write(t->ow, out)) < 0)
        return overlay_failure(t, st);
    return CLI_EXIT_OK;
}

/* Frame i's luma (cur) tracked, recorded and drawn; cur becomes prev. */
static int track_frame(track_run *t, int i)
{
    const track_args *a = &t->a;
    const int w = t->src.width, h = t->src.height;
    int rc;
    if (i == 0) {
        KLTSelectGoodFeatures(t->tc, t->cur, w, h, t->fl);
    } else {
        KLTTrackFeatures(t->tc, t->prev, t->cur, w, h, t->fl);
        if (a->replace && fovea_klt_last_status(t->tc) == FOVEA_OK)
            KLTReplaceLostFeatures(t->tc, t->cur, w, h, t->fl);
    }
    if (fovea_klt_last_status(t->tc) < 0) {
        if ((rc = writes_before(t)) != CLI_EXIT_OK)
            return rc;
        cli_error(NULL, "frame %d: %s", i, fovea_last_error(t->tc->ctx));
        return CLI_EXIT_RUNTIME;
    }
    if (!history_add(&t->hist, t->fl)) {
        if ((rc = writes_before(t)) != CLI_EXIT_OK)
            return rc;
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    if (t->ow && (rc = write_overlay(t, i)) != CLI_EXIT_OK)
        return rc;
    unsigned char *tmp = t->prev;
    t->prev = t->cur;
    t->cur = tmp;
    return CLI_EXIT_OK;
}

/* Every frame read, tracked and drawn; the pipeline is stopped on return. */
static int run_loop(track_run *t)
{
    const track_args *a = &t->a;
    int rc = CLI_EXIT_OK;
    cli_progress_start(&t->prog, t->src.total, a->opt.quiet);
    /* a video's reader thread, and the overlay's writer thread when there is one */
    if (t->pipelined && cli_pipe_start(&t->pipe, t->ow, t->rings, 1) != 0)
        rc = CLI_EXIT_RUNTIME;
    for (t->frames = 0; rc == CLI_EXIT_OK && (a->opt.frames < 0 || t->frames < a->opt.frames);
         t->frames++) {
        rc = source_next(&t->src, t->cur);
        if (rc == -1 && t->frames == 0) {
            cli_progress_finish(&t->prog);
            if (a->opt.start > 0)
                cli_error(cli_display_path(a->inputs[0], 0), "no frames left after --start %lld",
                          a->opt.start);
            else
                cli_error(cli_display_path(a->inputs[0], 0), "no frames in the input");
            rc = CLI_EXIT_RUNTIME;
            break;
        }
        if (rc == -1) {
            rc = CLI_EXIT_OK;
            break;
        }
        if (rc == SOURCE_FAILED && (rc = writes_before(t)) == CLI_EXIT_OK)
            rc = cli_report(a->inputs[0], 0, t->src.why, t->src.status);
        if (rc != CLI_EXIT_OK || (rc = track_frame(t, t->frames)) != CLI_EXIT_OK)
            break;
        cli_progress_update(&t->prog, t->frames + 1);
    }
    if (rc == CLI_EXIT_OK)
        rc = writes_before(t); /* the queued overlay frames */
    cli_pipe_finish(&t->pipe);
    cli_progress_finish(&t->prog);
    return rc;
}

static void print_summary(const track_run *t, double secs)
{
    const track_args *a = &t->a;
    const KLT_FeatureList fl = t->fl;
    int tracked = 0;
    for (int k = 0; k < fl->nFeatures; k++)
        tracked += fl->feature[k]->val >= 0;
    char outs[1024] = "", timing[96];
    size_t len = 0;
    const char *names[3] = {a->output, a->opt.json, a->overlay};
    for (int k = 0; k < 3; k++) {
        if (!names[k])
            continue;
        int m = snprintf(outs + len, sizeof(outs) - len, "%s%s", len ? ", " : "",
                         cli_display_path(names[k], 1));
        if (m > 0 && (size_t)m < sizeof(outs) - len)
            len += (size_t)m;
    }
    cli_format_timing(timing, sizeof(timing), t->frames, secs);
    const int busy = (a->output && strcmp(a->output, "-") == 0) ||
                     (a->opt.json && strcmp(a->opt.json, "-") == 0) ||
                     (a->overlay && strcmp(a->overlay, "-") == 0);
    cli_summary(a->opt.quiet, busy, "track: %d %s %dx%d, %d/%d features in the last frame -> %s %s",
                t->frames, cli_frames_word(t->frames), t->src.width, t->src.height, tracked,
                fl->nFeatures, outs, timing);
}

/* The overlay committed, the table and the JSON written, the summary line. */
static int finish_outputs(track_run *t, double t0)
{
    const track_args *a = &t->a;
    int st, rc = CLI_EXIT_OK;
    if (t->ow && (st = fovea_writer_finish(t->ow)) < 0)
        return overlay_failure(t, st);
    fovea_writer_close(&t->ow);
    if (a->output && (rc = write_table(a, &t->hist)) != CLI_EXIT_OK)
        return rc;
    const double secs = cli_now() - t0;
    if (a->opt.json)
        rc = write_json(a, &t->hist, t->src.width, t->src.height, secs);
    if (rc == CLI_EXIT_OK)
        print_summary(t, secs);
    return rc;
}

int cmd_track(int argc, char **argv)
{
    track_run *t = calloc(1, sizeof(*t));
    if (!t) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    int rc = parse_args(&t->a, argc, argv);
    if (rc < 0) {
        free(t);
        return CLI_EXIT_OK; /* --help */
    }
    const double t0 = cli_now();
    if (rc == CLI_EXIT_OK)
        rc = setup(t);
    if (rc == CLI_EXIT_OK)
        rc = run_loop(t); /* the pipeline stopped on return */
    if (rc == CLI_EXIT_OK)
        rc = finish_outputs(t, t0);

    fovea_writer_close(&t->ow); /* a failed run leaves an existing overlay as it was */
    source_close(&t->src);
    cli_pipe_free(&t->pipe, t->ctx);
    fovea_frame_free(t->ctx, &t->rgb);
    fovea_frame_free(t->ctx, &t->conv);
    KLTFreeFeatureList(t->fl);
    KLTFreeTrackingContext(t->tc);
    fovea_close(&t->ctx);
    free(t->prev);
    free(t->cur);
    free(t->trails);
    free(t->hist.rec);
    if (t->a.have_glob)
        globfree(&t->a.g);
    free(t);
    return rc;
}
