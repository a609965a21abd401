/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Helpers shared by the `fovea` commands: a small long-option parser that also
 * prints each command's help, checked value parsing, errors, progress, inputs. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ errors */

static void verror(const char *file, const char *fmt, va_list ap)
{
    fputs("fovea: ", stderr);
    if (file)
        fprintf(stderr, "%s: ", file);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(file, fmt, ap);
    va_end(ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(NULL, fmt, ap);
    va_end(ap);
    if (cmd)
        fprintf(stderr, "Try 'fovea %s --help'.\n", cmd);
    else
        fputs("Try 'fovea --help'.\n", stderr);
    return CLI_EXIT_USAGE;
}

const char *cli_display_path(const char *path, int is_output)
{
    if (path && strcmp(path, "-") == 0)
        return is_output ? "stdout" : "stdin";
    return path ? path : "(null)";
}

static int has_prefix(const char *msg, const char *name)
{
    size_t n = strlen(name);
    return n > 0 && strncmp(msg, name, n) == 0 && msg[n] == ':';
}

void cli_format_report(char *buf, size_t n, const char *file, int is_output, const char *msg,
                       int status)
{
    const char *shown = cli_display_path(file, is_output);
    if (!msg || !*msg)
        msg = fovea_strerror(status);
    if (file && !has_prefix(msg, shown) && !has_prefix(msg, file))
        snprintf(buf, n, "%s: %s", shown, msg);
    else
        snprintf(buf, n, "%s", msg);
}

int cli_report(const char *file, int is_output, const char *msg, int status)
{
    char text[2048];
    cli_format_report(text, sizeof(text), file, is_output, msg, status);
    cli_error(NULL, "%s", text);
    return CLI_EXIT_RUNTIME;
}

/* ------------------------------------------------------------------ options */

void cli_parser_init(cli_parser *p, const cli_spec *spec, int argc, char **argv)
{
    memset(p, 0, sizeof(*p));
    p->spec = spec;
    p->argc = argc;
    p->argv = argv;
    p->pos = 1;
    p->rest = argv + 1;
}

static const cli_option *find_long(const cli_option *opts, const char *name, size_t len)
{
    for (const cli_option *o = opts; o && o->id; o++)
        if (strlen(o->long_name) == len && strncmp(o->long_name, name, len) == 0)
            return o;
    return NULL;
}

static const cli_option *find_short(const cli_option *opts, char c)
{
    for (const cli_option *o = opts; o && o->id; o++)
        if (o->short_name && o->short_name == c)
            return o;
    return NULL;
}

int cli_next(cli_parser *p, const char **value)
{
    const char *cmd = p->spec->name;
    *value = NULL;
    while (p->pos < p->argc) {
        char *a = p->argv[p->pos++];
        if (p->only_args || a[0] != '-' || a[1] == '\0') {
            /* Positional slots trail the read position, so storing over argv is safe. */
            p->rest[p->nrest++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            p->only_args = 1;
            continue;
        }
        const cli_option *o;
        if (a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            if (len == 4 && strncmp(name, "help", 4) == 0 && !eq) {
                cli_print_help(stdout, p->spec);
                return CLI_HELP;
            }
            o = find_long(p->spec->options, name, len);
            if (!o) {
                cli_usage_error(cmd, "%s: unknown option '--%.*s'", cmd, (int)len, name);
                return CLI_ERROR;
            }
            if (!o->arg) {
                if (eq) {
                    cli_usage_error(cmd, "%s: option '--%s' takes no value", cmd, o->long_name);
                    return CLI_ERROR;
                }
                return o->id;
            }
            if (eq) {
                *value = eq + 1;
                return o->id;
            }
        } else {
            if (a[1] == 'h' && a[2] == '\0' && !find_short(p->spec->options, 'h')) {
                cli_print_help(stdout, p->spec);
                return CLI_HELP;
            }
            o = find_short(p->spec->options, a[1]);
            if (!o || (!o->arg && a[2] != '\0')) {
                cli_usage_error(cmd, "%s: unknown option '%s'", cmd, a);
                return CLI_ERROR;
            }
            if (!o->arg)
                return o->id;
            if (a[2] != '\0') {
                *value = a + 2;
                return o->id;
            }
        }
        if (p->pos >= p->argc) {
            cli_usage_error(cmd, "%s: option '%s' needs a value (%s)", cmd, a, o->arg);
            return CLI_ERROR;
        }
        *value = p->argv[p->pos++];
        return o->id;
    }
    return CLI_DONE;
}

int cli_options_end(int id)
{
    if (id == CLI_HELP)
        return -1;
    if (id == CLI_ERROR)
        return CLI_EXIT_USAGE;
    return CLI_EXIT_OK;
}

void cli_print_wrapped(FILE *fp, const char *text, int col, int indent)
{
    const char *s = text;
    int first = 1;
    for (;;) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        size_t w = strcspn(s, " ");
        if (!first && col + 1 + (int)w > 79) {
            fprintf(fp, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', fp);
            col++;
        }
        fwrite(s, 1, w, fp);
        col += (int)w;
        s += w;
        first = 0;
    }
    fputc('\n', fp);
}

static int option_label(char *buf, size_t n, const cli_option *o)
{
    char sh[8] = "    ";
    if (o->short_name)
        snprintf(sh, sizeof(sh), "-%c, ", o->short_name);
    return snprintf(buf, n, "  %s--%s%s%s", sh, o->long_name, o->arg ? " " : "",
                    o->arg ? o->arg : "");
}

void cli_print_help(FILE *fp, const cli_spec *spec)
{
    enum { MAX_COL = 30 };
    char label[128], text[1024];
    fprintf(fp, "Usage: fovea %s %s\n", spec->name, spec->usage ? spec->usage : "[options]");
    if (spec->description)
        fprintf(fp, "\n%s\n", spec->description);
    fputs("\nOptions:\n", fp);
    int col = 0;
    for (const cli_option *o = spec->options; o && o->id; o++) {
        int len = option_label(label, sizeof(label), o);
        if (len > col && len <= MAX_COL)
            col = len;
    }
    if (col < 20)
        col = 20;
    col += 2;
    static const cli_option help_opt = {"help", 'h', NULL, "show this help and exit", NULL, 1};
    int n = 0;
    while (spec->options && spec->options[n].id)
        n++;
    for (int i = 0; i <= n; i++) {
        const cli_option *cur = i < n ? &spec->options[i] : &help_opt;
        int len = option_label(label, sizeof(label), cur);
        fputs(label, fp);
        if (len + 2 > col) {
            fprintf(fp, "\n%*s", col, "");
        } else {
            fprintf(fp, "%*s", col - len, "");
        }
        if (cur->def)
            snprintf(text, sizeof(text), "%s (default: %s)", cur->help, cur->def);
        else
            snprintf(text, sizeof(text), "%s", cur->help);
        cli_print_wrapped(fp, text, col, col);
    }
    if (spec->notes)
        fprintf(fp, "\n%s\n", spec->notes);
    if (!spec->notes || !strstr(spec->notes, "Exit status:"))
        fputs("\nExit status: 0 success, 1 runtime error, 2 usage error.\n", fp);
}

/* ------------------------------------------------------------------ values */

static void describe_int_range(char *buf, size_t n, long long min, long long max)
{
    if (min == 0 && max == LLONG_MAX)
        snprintf(buf, n, "a non-negative integer");
    else if (min == 1 && max == LLONG_MAX)
        snprintf(buf, n, "a positive integer");
    else if (max == LLONG_MAX)
        snprintf(buf, n, "an integer >= %lld", min);
    else
        snprintf(buf, n, "an integer from %lld to %lld", min, max);
}

static int parse_ll(const char *s, long long *out)
{
    if (!s || !*s || isspace((unsigned char)s[0]))
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

int cli_parse_int(const char *cmd, const char *opt, const char *s, long long min, long long max,
                  long long *out)
{
    long long v;
    if (parse_ll(s, &v) < 0 || v < min || v > max) {
        char what[96];
        describe_int_range(what, sizeof(what), min, max);
        cli_usage_error(cmd, "%s: expected %s, got '%s'", opt, what, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_int32(const char *cmd, const char *opt, const char *s, int min, int max, int *out)
{
    long long v;
    if (cli_parse_int(cmd, opt, s, min, max == INT_MAX ? LLONG_MAX : max, &v) < 0)
        return -1;
    if (v > INT_MAX) {
        cli_usage_error(cmd, "%s: value too large, got '%s'", opt, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int cli_parse_double(const char *cmd, const char *opt, const char *s, double min, double max,
                     double *out)
{
    char *end = NULL;
    double v = 0;
    int ok = s && *s && !isspace((unsigned char)s[0]);
    if (ok) {
        errno = 0;
        v = strtod(s, &end);
        ok = !errno && *end == '\0' && isfinite(v) && v >= min && v <= max;
    }
    if (!ok) {
        cli_usage_error(cmd, "%s: expected a number from %g to %g, got '%s'", opt, min, max,
                        s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_backend(const char *cmd, const char *s, fovea_backend *out)
{
    if (!s || fovea_backend_parse(s, out) < 0) {
        cli_usage_error(cmd, "--backend: expected auto, cpu or cuda, got '%s'", s ? s : "");
        return -1;
    }
    return 0;
}

/* Parse digits up to the first character of stop (or the end). */
static int parse_dim(const char *s, const char **end, long long max, long long *out)
{
    long long v = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (*p - '0');
        if (v > max)
            return -1;
        p++;
    }
    if (p == s || v < 1)
        return -1;
    *end = p;
    *out = v;
    return 0;
}

int cli_parse_size(const char *cmd, const char *opt, const char *s, int *w, int *h)
{
    long long vw, vh;
    const char *p;
    if (!s || parse_dim(s, &p, FOVEA_MAX_DIM, &vw) < 0 || (*p != 'x' && *p != 'X') ||
        parse_dim(p + 1, &p, FOVEA_MAX_DIM, &vh) < 0 || *p != '\0') {
        cli_usage_error(cmd, "%s: expected WxH (e.g. 1920x1080, sides 1 to %d), got '%s'", opt,
                        FOVEA_MAX_DIM, s ? s : "");
        return -1;
    }
    *w = (int)vw;
    *h = (int)vh;
    return 0;
}

int cli_parse_rate(const char *cmd, const char *opt, const char *s, int *num, int *den)
{
    const long long max = 1000000;
    long long n, d = 1;
    const char *p;
    int ok = s && parse_dim(s, &p, max, &n) == 0;
    if (ok && *p == '/')
        ok = parse_dim(p + 1, &p, max, &d) == 0;
    if (!ok || *p != '\0') {
        cli_usage_error(cmd, "%s: expected a rate N or N/D (e.g. 25 or 30000/1001), got '%s'", opt,
                        s ? s : "");
        return -1;
    }
    *num = (int)n;
    *den = (int)d;
    return 0;
}

int cli_parse_choice(const char *cmd, const char *opt, const char *s, const char *const *choices,
                     int *out)
{
    char list[256] = "";
    size_t len = 0;
    for (int i = 0; choices[i]; i++) {
        if (s && strcmp(s, choices[i]) == 0) {
            *out = i;
            return 0;
        }
        int k = snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", choices[i]);
        if (k > 0 && (size_t)k < sizeof(list) - len)
            len += (size_t)k;
    }
    cli_usage_error(cmd, "%s: expected one of %s, got '%s'", opt, list, s ? s : "");
    return -1;
}

int cli_parse_colorspace(const char *cmd, const char *opt, const char *s, fovea_colorspace *out)
{
    static const char *const names[] = {"bt601", "bt709", NULL};
    int choice = 0;
    if (cli_parse_choice(cmd, opt, s, names, &choice) < 0)
        return -1;
    *out = choice ? FOVEA_CS_BT709 : FOVEA_CS_BT601;
    return 0;
}

const char *cli_colorspace_name(fovea_colorspace cs)
{
    return cs == FOVEA_CS_BT709 ? "bt709" : "bt601";
}

int cli_parse_range(const char *cmd, const char *opt, const char *s, int allow_auto, int *out)
{
    /* the indices are FOVEA_COLOR_RANGE_UNKNOWN, _LIMITED, _FULL */
    static const char *const names[] = {"auto", "limited", "full", NULL};
    int choice = 0;
    if (cli_parse_choice(cmd, opt, s, allow_auto ? names : names + 1, &choice) < 0)
        return -1;
    *out = allow_auto ? choice : choice + 1;
    return 0;
}

int cli_parse_container(const char *cmd, const char *opt, const char *s, fovea_container *out)
{
    static const char *const names[] = {"y4m", "yuv", "pnm", "png", "media", NULL};
    static const fovea_container values[] = {FOVEA_CONTAINER_Y4M, FOVEA_CONTAINER_YUV,
                                             FOVEA_CONTAINER_PNM, FOVEA_CONTAINER_PNG,
                                             FOVEA_CONTAINER_MEDIA};
    int i;
    if (cli_parse_choice(cmd, opt, s, names, &i) < 0)
        return -1;
    *out = values[i];
    return 0;
}

int cli_parse_pixfmt(const char *cmd, const char *opt, const char *s, fovea_pixfmt *out)
{
    fovea_pixfmt f = fovea_pixfmt_from_name(s);
    if (f == FOVEA_PIX_NONE) {
        char list[512] = "";
        size_t len = 0;
        for (int i = FOVEA_PIX_NONE + 1; i < FOVEA_PIX_COUNT; i++) {
            int k = snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
                             fovea_pixfmt_name((fovea_pixfmt)i));
            if (k > 0 && (size_t)k < sizeof(list) - len)
                len += (size_t)k;
        }
        cli_usage_error(cmd, "%s: unknown pixel format '%s' (known: %s)", opt, s ? s : "", list);
        return -1;
    }
    *out = f;
    return 0;
}

/* ------------------------------------------------------------------ inputs */

void cli_input_opts_init(cli_input_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->container = FOVEA_CONTAINER_AUTO;
    o->fmt = FOVEA_PIX_NONE;
    o->stream = -1;
    o->crf = -1;
}

int cli_input_option(cli_input_opts *o, const char *cmd, int id, const char *value)
{
    switch (id) {
    case CLI_OPT_IN_FORMAT:
        return cli_parse_container(cmd, "--in-format", value, &o->container) < 0 ? -1 : 1;
    case CLI_OPT_SIZE:
        return cli_parse_size(cmd, "--size", value, &o->width, &o->height) < 0 ? -1 : 1;
    case CLI_OPT_WIDTH:
        return cli_parse_int32(cmd, "--width", value, 1, FOVEA_MAX_DIM, &o->width) < 0 ? -1 : 1;
    case CLI_OPT_HEIGHT:
        return cli_parse_int32(cmd, "--height", value, 1, FOVEA_MAX_DIM, &o->height) < 0 ? -1 : 1;
    case CLI_OPT_PIXFMT: return cli_parse_pixfmt(cmd, "--pixfmt", value, &o->fmt) < 0 ? -1 : 1;
    case CLI_OPT_FPS:
        return cli_parse_rate(cmd, "--fps", value, &o->fps_num, &o->fps_den) < 0 ? -1 : 1;
    default: return cli_media_option(o, cmd, id, value);
    }
}

fovea_container cli_container_for(const char *path, fovea_container forced)
{
    return forced != FOVEA_CONTAINER_AUTO ? forced : fovea_container_from_path(path);
}

int cli_open_reader_msg(const char *path, const cli_input_opts *o, fovea_reader **r, char *err,
                        size_t errsz)
{
    *r = NULL;
    fovea_container c = cli_container_for(path, o->container);
    int given = o->width || o->height || o->fmt != FOVEA_PIX_NONE || o->fps_num;
    if (c == FOVEA_CONTAINER_AUTO && given) {
        snprintf(err, errsz,
                 "%s: unknown file type (name it .yuv or use --in-format yuv for raw input)", path);
        return CLI_EXIT_USAGE;
    }
    /* otherwise an unknown extension is left to the reader, which looks at the
     * first bytes (a y4m FIFO, for example) */
    if (c == FOVEA_CONTAINER_YUV) {
        if (!o->width || !o->height || o->fmt == FOVEA_PIX_NONE) {
            snprintf(err, errsz,
                     "%s: raw input needs --width and --height (or -s WxH) and --pixfmt",
                     cli_display_path(path, 0));
            return CLI_EXIT_USAGE;
        }
    } else if (given &&
               !(cli_is_pattern(path, c) && !o->width && !o->height && o->fmt == FOVEA_PIX_NONE)) {
        /* (an image sequence takes --fps: its images carry no rate) */
        snprintf(err, errsz,
                 "%s: --size/--width/--height/--pixfmt/--fps only apply to raw (yuv) input "
                 "(--fps also to an image sequence); this input is %s",
                 cli_display_path(path, 0), fovea_container_name(c));
        return CLI_EXIT_USAGE;
    }
    fovea_reader_settings ro;
    fovea_reader_default_settings(&ro);
    /* stdin's content tells y4m from media unless --in-format says */
    ro.container = strcmp(path, "-") == 0 ? o->container : c;
    ro.width = o->width;
    ro.height = o->height;
    ro.fmt = o->fmt;
    ro.fps_num = o->fps_num;
    ro.fps_den = o->fps_den;
    ro.input_options = o->n_input_options ? o->input_options : NULL;
    ro.stream = o->stream;
    ro.hwdec = o->hwdec;
    ro.threads = o->threads;
    /* decoding on the GPU needs the command's context; the others keep
     * their messages context-less */
    fovea_context *rctx = cli_reader_context(o);
    if (o->hwdec == FOVEA_HWDEC_CUDA && !o->ctx && fovea_cuda_compiled() &&
        (c == FOVEA_CONTAINER_MEDIA || c == FOVEA_CONTAINER_AUTO)) {
        snprintf(err, errsz, "%s: --hwdec cuda: this command decodes on the CPU",
                 cli_display_path(path, 0));
        return CLI_EXIT_USAGE;
    }
    int st = fovea_reader_open(r, rctx, path, &ro);
    if (st < 0) {
        *r = NULL;
        /* neither the name nor the content tells the type: the user must.
         * Content of a known type that is refused (a PNM too wide, or of
         * type P4/P7) is not helped by naming its type: reported as is. */
        const char *msg = cli_last_error(rctx);
        if (c == FOVEA_CONTAINER_AUTO && st == FOVEA_ERR_UNSUPPORTED &&
            (strstr(msg, "unknown file type") || strstr(msg, "does not tell its type"))) {
            snprintf(err, errsz, "%s (use --in-format)", msg);
            return CLI_EXIT_USAGE;
        }
        cli_format_report(err, errsz, path, 0, msg, st);
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

fovea_context *cli_reader_context(const cli_input_opts *o)
{
    return o->hwdec != FOVEA_HWDEC_NONE ? o->ctx : NULL;
}

const char *cli_last_error(const fovea_context *ctx)
{
    const char *m = ctx ? fovea_last_error(ctx) : NULL;
    return m && m[0] ? m : fovea_last_error(NULL);
}

int cli_open_reader(const char *cmd, const char *path, const cli_input_opts *o, fovea_reader **r)
{
    char err[2048];
    const int rc = cli_open_reader_msg(path, o, r, err, sizeof(err));
    if (rc == CLI_EXIT_USAGE)
        return cli_usage_error(cmd, "%s", err);
    if (rc != CLI_EXIT_OK)
        cli_error(NULL, "%s", err);
    else {
        cli_media_notice(path, *r, err, sizeof(err));
        if (err[0])
            cli_error(NULL, "%s", err);
    }
    return rc;
}

/* ------------------------------------------------------------------ progress */

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_start(cli_progress *p, int64_t total, int quiet)
{
    memset(p, 0, sizeof(*p));
    const char *env = getenv("FOVEA_PROGRESS");
    if (quiet)
        p->enabled = 0;
    else if (env && strcmp(env, "1") == 0)
        p->enabled = 1;
    else if (env && strcmp(env, "0") == 0)
        p->enabled = 0;
    else
        p->enabled = isatty(STDERR_FILENO);
    p->total = total >= 0 ? total : -1;
    p->t0 = cli_now();
    p->last = p->t0;
}

static void format_duration(char *buf, size_t n, double s)
{
    long long t = (long long)(s + 0.5);
    if (t < 60)
        snprintf(buf, n, "%llds", t);
    else if (t < 3600)
        snprintf(buf, n, "%lldm%02llds", t / 60, t % 60);
    else
        snprintf(buf, n, "%lldh%02lldm", t / 3600, (t / 60) % 60);
}

static void progress_draw(cli_progress *p, double now, int final)
{
    char line[160], dur[32];
    double elapsed = now - p->t0;
    double fps = elapsed > 0 ? (double)p->done / elapsed : 0.0;
    int len;
    const char *unit = p->unit ? p->unit : "frame", *rate = p->rate_unit ? p->rate_unit : "fps";
    if (p->total >= 0)
        len = snprintf(line, sizeof(line), "%s %lld/%lld  %.1f %s", unit, (long long)p->done,
                       (long long)p->total, fps, rate);
    else
        len = snprintf(line, sizeof(line), "%s %lld  %.1f %s", unit, (long long)p->done, fps, rate);
    if (len < 0 || (size_t)len >= sizeof(line))
        len = (int)strlen(line);
    if (final) {
        format_duration(dur, sizeof(dur), elapsed);
        len += snprintf(line + len, sizeof(line) - (size_t)len, "  done in %s", dur);
    } else if (p->total >= 0 && fps > 0 && p->done <= p->total) {
        format_duration(dur, sizeof(dur), (double)(p->total - p->done) / fps);
        len += snprintf(line + len, sizeof(line) - (size_t)len, "  ETA %s", dur);
    }
    if (len >= (int)sizeof(line))
        len = (int)sizeof(line) - 1;
    fprintf(stderr, "\r%s%*s", line, p->width > len ? p->width - len : 0, "");
    fflush(stderr);
    p->width = len;
}

void cli_progress_update(cli_progress *p, int64_t done)
{
    p->done = done;
    if (!p->enabled)
        return;
    double now = cli_now();
    if (now - p->last < 0.25)
        return;
    p->last = now;
    progress_draw(p, now, 0);
}

void cli_progress_finish(cli_progress *p)
{
    if (!p->enabled || (p->done == 0 && p->width == 0))
        return;
    progress_draw(p, cli_now(), 1);
    fputc('\n', stderr);
    fflush(stderr);
    p->enabled = 0;
}

/* ------------------------------------------------------------------ formats */

int cli_container_holds(fovea_container c, fovea_pixfmt fmt)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    if (!d)
        return 0;
    switch (c) {
    case FOVEA_CONTAINER_Y4M: /* mono and planar 4:2:0 / 4:2:2 / 4:4:4 at any depth */
        return d->is_yuv && fmt != FOVEA_PIX_NV12;
    case FOVEA_CONTAINER_YUV: /* raw: whatever the planes hold */ return 1;
    case FOVEA_CONTAINER_PNM: /* P5 with maxval 255..65535, P6 8/16-bit (rgba would lose alpha) */
        return (d->is_yuv && d->planes == 1) || fmt == FOVEA_PIX_RGB24 || fmt == FOVEA_PIX_RGB48;
    case FOVEA_CONTAINER_PNG: /* gray 8/16-bit (10/12 with sBIT), RGB, RGBA, 8/16-bit */
        return (d->is_yuv && d->planes == 1) || d->is_rgb;
    case FOVEA_CONTAINER_MEDIA: /* the encoder takes it or libswscale converts it */ return 1;
    default: return 0;
    }
}

fovea_pixfmt cli_default_output_pixfmt(fovea_container c, fovea_pixfmt fmt)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    if (!d || cli_container_holds(c, fmt))
        return fmt;
    /* Keep the depth: 16-bit RGB becomes 16-bit 4:4:4 YUV in y4m, and YUV deeper
     * than 8 bits becomes 16-bit RGB in PNM/PNG. */
    if (c == FOVEA_CONTAINER_Y4M) /* from nv12 or RGB */
        return d->bit_depth > 8 ? FOVEA_PIX_I444P16 : FOVEA_PIX_I420;
    /* PNM/PNG from color YUV or nv12, or rgba / rgba64 for PNM */
    return d->bit_depth > 8 ? FOVEA_PIX_RGB48 : FOVEA_PIX_RGB24;
}

/* ------------------------------------------------------------------ summary */

void cli_summary(int quiet, int stdout_busy, const char *fmt, ...)
{
    if (quiet)
        return;
    FILE *fp = stdout_busy ? stderr : stdout;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(fp, fmt, ap);
    va_end(ap);
    fputc('\n', fp);
}

const char *cli_frames_word(int64_t n)
{
    return n == 1 ? "frame" : "frames";
}

void cli_format_timing(char *buf, size_t n, int64_t frames, double seconds)
{
    snprintf(buf, n, "in %.2f s (%.1f fps)", seconds, seconds > 0 ? (double)frames / seconds : 0.0);
}

/* ------------------------------------------------------------------ misc */

int cli_write_json(const char *path, const cJSON *json)
{
    char *text = cJSON_Print(json);
    if (!text) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    fovea_outfile *of;
    if (cli_outfile_open(&of, path) < 0) {
        free(text);
        return cli_report(path, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
    }
    FILE *fp = fovea_outfile_file(of);
    int bad = fputs(text, fp) == EOF || fputc('\n', fp) == EOF;
    int e = errno;
    free(text);
    if (bad) {
        cli_outfile_close(&of);
        cli_error(cli_display_path(path, 1), "%s", strerror(e));
        return CLI_EXIT_RUNTIME;
    }
    if (cli_outfile_commit(&of) < 0)
        return cli_report(path, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
    return CLI_EXIT_OK;
}

int cli_refuse_same_file(const char *out, const char *in)
{
    if (!out || !in || !fovea_same_file(out, in))
        return 0;
    cli_error(out, "output is the same file as input %s", in);
    return 1;
}
