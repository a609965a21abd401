/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea live SRC --http ADDR:PORT`: serve a web page that shows the delta
 * stream of SRC live in the browser (docs/live.md): the page and its
 * WebAssembly decoder are embedded; the stream goes to each browser over a
 * WebSocket in the wire format of `fovea send`; controls from the page change
 * the stream for every viewer. */
#ifdef FOVEA_HAVE_LIVE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_stream.h"
#include "fovea/stream.h"
#include "live_camera.h"
#include "live_server.h"

enum {
    OPT_HTTP = 1,
    OPT_THRESHOLD,
    OPT_KEYFRAME,
    OPT_DENOISE,
    OPT_TILE,
    OPT_LEVEL,
    OPT_TOKEN,
    OPT_TOKEN_FILE,
    OPT_VIEW_TOKEN,
    OPT_MAX_CLIENTS,
    OPT_MAX_QUEUE,
    OPT_LOOP,
    OPT_FRAMES,
    OPT_CLIENTS,
    OPT_MAX_DELAY,
    OPT_CAMERA
};

static const cli_option options[] = {
    CLI_INPUT_OPTIONS,
    {"http", 0, "ADDR:PORT",
     "address to serve the page on (an IP address or interface name; port 0: any free port); "
     "any address but loopback needs --token",
     "127.0.0.1:8080", OPT_HTTP},
    {"threshold", 't', "T", "every sample shown is within T of the input (0 = lossless)", "0",
     OPT_THRESHOLD},
    {"keyframe", 'k', "K", "a keyframe every K frames (0 = only those viewers need)", "300",
     OPT_KEYFRAME},
    {"denoise", 0, "F", "filter each frame before it is compared: none, median3, gauss5, temporal",
     "none", OPT_DENOISE},
    {"tile", 0, "N", "tile side in luma pixels: 8, 16, 32 or 64", "16", OPT_TILE},
    {"level", 0, "L", "zstd level, 1 to 19", "1", OPT_LEVEL},
    {"token", 0, "TOKEN", "viewers need ?token=TOKEN (full access: watch and control)", "none",
     OPT_TOKEN},
    {"token-file", 0, "FILE", "read --token from the first line of FILE", "none", OPT_TOKEN_FILE},
    {"view-token", 0, "TOKEN", "?token=TOKEN gives watch-only access (no controls)", "none",
     OPT_VIEW_TOKEN},
    {"max-clients", 0, "N", "viewers at once; more are turned away", "16", OPT_MAX_CLIENTS},
    {"max-queue", 0, "BYTES",
     "bytes queued for one viewer before it is dropped back to a keyframe (suffix K, M, G)", "16M",
     OPT_MAX_QUEUE},
    {"max-delay", 0, "MS",
     "a viewer whose oldest queued message waited longer is dropped back to a keyframe (0: "
     "no limit)",
     "500", OPT_MAX_DELAY},
    {"loop", 0, NULL, "start the input over at its end (a file)", "off", OPT_LOOP},
    {"frames", 0, "N", "stop after N frames (0 = at the input's end, or never with --loop)", "0",
     OPT_FRAMES},
    {"clients", 0, "N",
     "wait until N viewers are watching before the first frame (then the stream is the one "
     "fovea send would send them)",
     "0", OPT_CLIENTS},
    {"camera-controls", 0, "DEV",
     "the V4L2 device whose controls (brightness, contrast, ...) the page shows and sets; "
     "'none': no camera controls",
     "SRC when it is a camera (v4l2:DEV or a character device)", OPT_CAMERA},
    {"backend", 0, "B", "auto, cpu or cuda (the encoder)", "auto", CLI_OPT_BACKEND},
    CLI_OPTION_THREADS,
    {"quiet", 'q', NULL, "no summary ('serving' is always printed)", "a summary at the end",
     CLI_OPT_QUIET},
    {0},
};

static const cli_spec spec = {
    "live",
    "SRC [--http ADDR:PORT] [options]",
    "Serve a web page showing video SRC (y4m, '-' for stdin, media, or raw with\n"
    "the input options) live as a delta stream: only the tiles that changed by\n"
    "more than T, decoded in the browser by fovea's own decoder (WebAssembly),\n"
    "with views of the heat map, the noise map and the change mask, and controls\n"
    "(threshold, denoise, keyframe interval, pause) that change the stream for\n"
    "every viewer; for a camera, its own controls (V4L2). Prints\n"
    "'serving http://ADDR:PORT/' on stderr once listening.\n"
    "Sends at the input's frame rate; ends with the input (or never with --loop,\n"
    "until interrupted).",
    options,
    "Examples:\n"
    "  fovea live clip.y4m --loop\n"
    "  fovea live clip.y4m --http 0.0.0.0:8080 --token-file secret --threshold 2\n"
    "  fovea live v4l2:/dev/video0 --threshold 3\n"
    "\n"
    "Exit status: 0 success (input's end, --frames, interrupted), 1 runtime error,\n"
    "2 usage error (a non-loopback --http without --token).",
};

typedef struct live_args {
    cli_common_opts opt;
    cli_input_opts in;
    const char *path, *http, *token_file, *camera;
    char *token, *view_token;
    int max_clients, loop, clients, max_delay;
    long long max_queue, frames;
    fovea_stream_encoder_settings ss;
} live_args;

static int is_loopback(const char *addr)
{
    return strncmp(addr, "127.", 4) == 0 || strncmp(addr, "localhost:", 10) == 0 ||
           strncmp(addr, "[::1]:", 6) == 0 || strncmp(addr, "lo:", 3) == 0;
}

static int read_token_file(live_args *a)
{
    FILE *fp = fopen(a->token_file, "r");
    char line[512];
    if (!fp) {
        cli_error(a->token_file, "cannot open the token file");
        return CLI_EXIT_USAGE;
    }
    const int ok = fgets(line, sizeof line, fp) != NULL;
    fclose(fp);
    line[strcspn(line, "\r\n")] = 0;
    if (!ok || !line[0]) {
        cli_error(a->token_file, "no token on the first line");
        return CLI_EXIT_USAGE;
    }
    free(a->token);
    a->token = strdup(line);
    return a->token ? CLI_EXIT_OK : CLI_EXIT_RUNTIME;
}

static int parse_args(live_args *a, int argc, char **argv)
{
    const char *cmd = spec.name;
    cli_parser p;
    const char *v;
    int id;
    memset(a, 0, sizeof(*a));
    cli_common_opts_init(&a->opt);
    cli_input_opts_init(&a->in);
    fovea_stream_encoder_default_settings(&a->ss);
    a->max_clients = 16;
    a->max_queue = 16LL << 20;
    a->max_delay = 500;
    a->http = "127.0.0.1:8080";
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
        case OPT_HTTP: a->http = v; break;
        case OPT_THRESHOLD:
            bad = cli_parse_int32(cmd, "--threshold", v, 0, 65535, &a->ss.threshold);
            break;
        case OPT_KEYFRAME:
            bad = cli_parse_int32(cmd, "--keyframe", v, 0, 1 << 30, &a->ss.keyframe_interval);
            break;
        case OPT_DENOISE: bad = cli_parse_denoise(cmd, v, &a->ss.denoise); break;
        case OPT_TILE: {
            static const char *const tiles[] = {"8", "16", "32", "64", NULL};
            int i;
            bad = cli_parse_choice(cmd, "--tile", v, tiles, &i);
            if (!bad)
                a->ss.tile = 8 << i;
            break;
        }
        case OPT_LEVEL: bad = cli_parse_int32(cmd, "--level", v, 1, 19, &a->ss.zstd_level); break;
        case OPT_TOKEN:
            free(a->token);
            a->token = strdup(v);
            break;
        case OPT_TOKEN_FILE: a->token_file = v; break;
        case OPT_VIEW_TOKEN:
            free(a->view_token);
            a->view_token = strdup(v);
            break;
        case OPT_MAX_CLIENTS:
            bad = cli_parse_int32(cmd, "--max-clients", v, 1, 1024, &a->max_clients);
            break;
        case OPT_MAX_QUEUE:
            bad = cli_parse_bytes(cmd, "--max-queue", v, 1 << 16, 1LL << 40, &a->max_queue);
            break;
        case OPT_LOOP: a->loop = 1; break;
        case OPT_MAX_DELAY:
            bad = cli_parse_int32(cmd, "--max-delay", v, 0, 3600000, &a->max_delay);
            break;
        case OPT_CLIENTS: bad = cli_parse_int32(cmd, "--clients", v, 0, 1024, &a->clients); break;
        case OPT_FRAMES: bad = cli_parse_int(cmd, "--frames", v, 0, 1LL << 40, &a->frames); break;
        case OPT_CAMERA: a->camera = v; break;
        }
        if (bad)
            return CLI_EXIT_USAGE;
    }
    const int end = cli_options_end(id);
    if (end != CLI_EXIT_OK)
        return end;
    if (p.nrest != 1)
        return cli_usage_error(cmd, "live: expected one input, got %d arguments", p.nrest);
    a->path = p.rest[0];
    if (a->token_file) {
        const int rc = read_token_file(a);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    if ((a->token && !a->token[0]) || (a->view_token && !a->view_token[0]))
        return cli_usage_error(cmd, "live: an empty token");
    if (!is_loopback(a->http) && !a->token)
        return cli_usage_error(cmd,
                               "live: --http %s is not a loopback address: it needs --token or "
                               "--token-file (viewers then open http://ADDR:PORT/?token=TOKEN)",
                               a->http);
    return CLI_EXIT_OK;
}

typedef struct live_run {
    live_args a;
    fovea_reader *r;
    fovea_video_info info;
    fovea_context *ctx;
    fovea_stream_encoder *enc;
    live_server *srv;
    fovea_frame frame, prev;
    fovea_diff *diff; /* the source's noise level, for the page's chart */
    live_controls ctl, pending;
    int pending_set, have_frame, done, rc;
    int64_t sent, read;
    double due, period;
    /* a camera source's controls: camera_on when SRC is a camera (or
     * --camera-controls), cam NULL when they cannot be opened */
    int camera_on;
    live_camera *cam;
    live_camera_state cam_state;
    double cam_read_at;
} live_run;

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int open_encoder(live_run *s)
{
    fovea_stream_encoder_close(&s->enc);
    if (fovea_stream_encoder_open(&s->enc, s->ctx, &s->a.ss, &s->info) < 0) {
        cli_error(cli_display_path(s->a.path, 0), "%s", fovea_last_error(s->ctx));
        return -1;
    }
    const uint8_t *hello;
    size_t n;
    fovea_stream_encoder_hello(s->enc, &hello, &n);
    return s->srv ? live_server_set_hello(s->srv, hello, n) : 0;
}

/* The next source frame; at the end, the input again with --loop. */
static int read_frame(live_run *s)
{
    int st = fovea_reader_read(s->r, &s->frame);
    if (st == FOVEA_EOF && s->a.loop && s->read > 0) {
        fovea_reader_close(&s->r);
        if (cli_open_reader(spec.name, s->a.path, &s->a.in, &s->r) != CLI_EXIT_OK)
            return -1;
        st = fovea_reader_read(s->r, &s->frame);
    }
    if (st == FOVEA_EOF)
        return 0;
    if (st < 0) {
        cli_error(cli_display_path(s->a.path, 0), "%s",
                  fovea_last_error(cli_reader_context(&s->a.in)));
        return -1;
    }
    s->read++;
    s->have_frame = 1;
    return 1;
}

static void send_state(live_run *s)
{
    live_server_send_state(s->srv, &s->ctl, s->camera_on ? &s->cam_state : NULL);
}

/* The device node of a camera source: v4l2:DEV, video4linux2:DEV or a
 * character device (docs/media.md); --camera-controls names another. */
static const char *camera_device(const live_args *a)
{
    struct stat st;
    if (a->camera)
        return strcmp(a->camera, "none") == 0 ? NULL : a->camera;
    if (strncmp(a->path, "v4l2:", 5) == 0)
        return a->path + 5;
    if (strncmp(a->path, "video4linux2:", 13) == 0)
        return a->path + 13;
    if (stat(a->path, &st) == 0 && S_ISCHR(st.st_mode))
        return a->path;
    return NULL;
}

/* A camera whose controls cannot be opened: its source still streams, the
 * page shows why they are greyed out; --camera-controls named is an error. */
static int open_camera(live_run *s)
{
    const char *dev = camera_device(&s->a);
    char err[256];
    if (!dev)
        return CLI_EXIT_OK;
    s->camera_on = 1;
    if (live_camera_open(&s->cam, dev, err, sizeof err) < 0) {
        if (s->a.camera) {
            cli_error(NULL, "live: --camera-controls %s", err);
            return CLI_EXIT_RUNTIME;
        }
        fprintf(stderr, "fovea live: no camera controls: %s\n", err);
        snprintf(s->cam_state.error, sizeof s->cam_state.error, "%s", err);
        return CLI_EXIT_OK;
    }
    if (live_camera_read(s->cam, &s->cam_state) < 0)
        fprintf(stderr, "fovea live: %s\n", s->cam_state.error);
    s->cam_read_at = cli_now();
    return CLI_EXIT_OK;
}

/* The device's controls again, once a second: values an auto mode or another
 * program changed, and a camera unplugged, reach every viewer. */
#define LIVE_CAMERA_READ_S 1.0

static void camera_refresh(live_run *s, int force)
{
    if (!s->cam || (!force && cli_now() - s->cam_read_at < LIVE_CAMERA_READ_S))
        return;
    s->cam_read_at = cli_now();
    const live_camera_state old = s->cam_state;
    if (live_camera_read(s->cam, &s->cam_state) < 0 && !old.error[0])
        fprintf(stderr, "fovea live: %s\n", s->cam_state.error);
    if (force || memcmp(&old, &s->cam_state, sizeof old) != 0)
        send_state(s);
}

/* Camera controls are set on the device at once (the next frames captured
 * have them), then every viewer gets the device's state. */
static int camera_controls(live_run *s, const live_controls *c, char *err, size_t n)
{
    if (!s->camera_on) {
        snprintf(err, n, "camera controls: the source is not a camera");
        return -1;
    }
    if (!s->cam) {
        snprintf(err, n, "camera controls: %s", s->cam_state.error);
        return -1;
    }
    int rc = 0;
    char why[256];
    for (int i = 0; i < LIVE_CAM_COUNT; i++) {
        if (!(c->camera_set & (1u << i)))
            continue;
        if (live_camera_set(s->cam, i, c->camera[i], NULL, why, sizeof why) < 0 && rc == 0) {
            snprintf(err, n, "%s", why); /* the first refusal; the others are still tried */
            rc = -1;
        }
    }
    camera_refresh(s, 1);
    return rc;
}

/* Controls from a viewer take effect at the next frame: a new threshold,
 * denoise or keyframe interval is a new encoder (a new HELLO, then a
 * keyframe, to every viewer). */
static void apply_controls(live_run *s)
{
    if (!s->pending_set)
        return;
    const int set = s->pending_set;
    s->pending_set = 0;
    s->ctl = s->pending;
    if (set & (LIVE_SET_THRESHOLD | LIVE_SET_DENOISE | LIVE_SET_KEYFRAME)) {
        s->a.ss.threshold = s->ctl.threshold;
        s->a.ss.denoise = (fovea_diff_denoise_mode)s->ctl.denoise;
        s->a.ss.keyframe_interval = s->ctl.keyframe_interval;
        if (open_encoder(s) < 0) {
            s->rc = CLI_EXIT_RUNTIME;
            s->done = 1;
        }
    }
    send_state(s);
}

/* Every LIVE_SIGMA_EVERY frames, the source's noise sigma (the difference of
 * this frame and the one before: fovea_diff_noise_sigma) to every viewer. */
#define LIVE_SIGMA_EVERY 5

static void noise_sigma(live_run *s)
{
    const int64_t k = s->read;
    if (!s->diff)
        return;
    if (k % LIVE_SIGMA_EVERY == LIVE_SIGMA_EVERY - 1) {
        if (!s->prev.buf && fovea_frame_alloc(s->ctx, &s->prev, s->info.width, s->info.height,
                                              s->info.fmt, s->frame.mem) < 0)
            return;
        fovea_frame_copy(s->ctx, &s->prev, &s->frame);
    } else if (k % LIVE_SIGMA_EVERY == 0 && s->prev.buf) {
        double sigma;
        if (fovea_diff_noise_sigma(s->diff, &s->prev, &s->frame, &sigma) == FOVEA_OK) {
            char msg[96];
            snprintf(msg, sizeof msg, "{\"type\":\"stats\",\"noise_sigma\":%.3f}", sigma);
            live_server_send_text(s->srv, msg);
        }
    }
}

static void encode_send(live_run *s)
{
    const uint8_t *m;
    size_t n;
    fovea_stream_frame_info fi;
    if (live_server_keyframe_wanted(s->srv))
        fovea_stream_encoder_request_keyframe(s->enc);
    if (fovea_stream_encoder_encode(s->enc, &s->frame, cli_wallclock_us(), &m, &n, &fi) < 0 ||
        live_server_send(s->srv, m, n, fi.keyframe) < 0) {
        cli_error(NULL, "frame %lld: %s", (long long)s->sent, fovea_last_error(s->ctx));
        s->rc = CLI_EXIT_RUNTIME;
        s->done = 1;
        return;
    }
    s->sent++;
}

static void finish_stream(live_run *s)
{
    const uint8_t *m;
    size_t n;
    fovea_stream_encoder_end(s->enc, &m, &n);
    live_server_send(s->srv, m, n, 1);
    s->done = 1;
}

/* One frame time: read, encode, send; paused, only a keyframe for viewers
 * that need one (the frame held). */
static void on_tick(void *user)
{
    live_run *s = user;
    if (s->done)
        return;
    if (s->sent == 0 && s->read == 0 && s->a.clients > 0) {
        live_server_stats st;
        live_server_get_stats(s->srv, &st);
        if (st.clients < s->a.clients) {
            live_server_schedule(s->srv, 20000);
            return;
        }
        s->due = cli_now();
    }
    apply_controls(s);
    if (s->done)
        return;
    camera_refresh(s, 0);
    if (s->ctl.paused) {
        if (s->have_frame && live_server_keyframe_wanted(s->srv))
            encode_send(s);
    } else {
        const int got = read_frame(s);
        if (got < 0) {
            s->rc = CLI_EXIT_RUNTIME;
            s->done = 1;
            return;
        }
        if (got == 0 || (s->a.frames > 0 && s->sent >= s->a.frames)) {
            if (s->read == 0)
                cli_error(cli_display_path(s->a.path, 0), "no frames in the input");
            s->rc = s->read == 0 ? CLI_EXIT_RUNTIME : CLI_EXIT_OK;
            finish_stream(s);
            return;
        }
        noise_sigma(s);
        encode_send(s);
    }
    /* the next frame's time, without drift; after a stall (more than a frame
     * late) the clock starts again from now rather than sending a burst */
    const double now = cli_now();
    s->due += s->period;
    if (s->due < now - s->period)
        s->due = now;
    live_server_schedule(s->srv, s->due > now ? (int64_t)((s->due - now) * 1e6) : 0);
}

static int on_control(void *user, const live_controls *c, int set, char *err, size_t n)
{
    live_run *s = user;
    const int cam = set & LIVE_SET_CAMERA;
    set &= ~LIVE_SET_CAMERA;
    if (set) {
        s->pending = *c;
        s->pending.camera_set = 0;
        s->pending_set |= set;
    }
    return cam ? camera_controls(s, c, err, n) : 0;
}

static int open_all(live_run *s)
{
    live_args *a = &s->a;
    /* the context first: NVDEC decodes on it (a CUDA one) */
    fovea_settings cs;
    cli_context_settings(&cs, &a->opt);
    cs.log = cli_log_to_stderr;
    cs.log_level = FOVEA_LOG_WARNING;
    if (cli_open_context_with(&s->ctx, &cs, CLI_CONTEXT_MSG_NAMED) != CLI_EXIT_OK)
        return CLI_EXIT_RUNTIME;
    a->in.ctx = s->ctx;
    int rc = cli_open_reader(spec.name, a->path, &a->in, &s->r);
    if (rc != CLI_EXIT_OK)
        return rc;
    s->info = *fovea_reader_info(s->r);
    /* NVDEC's frames stay on the device: the encoder and the noise level
     * read them there */
    if (fovea_reader_hwdec(s->r) == FOVEA_HWDEC_CUDA &&
        fovea_frame_alloc(s->ctx, &s->frame, s->info.width, s->info.height, s->info.fmt,
                          FOVEA_MEM_DEVICE) < 0) {
        cli_error(cli_display_path(a->path, 0), "cannot allocate a %dx%d device frame: %s",
                  s->info.width, s->info.height, fovea_last_error(s->ctx));
        return CLI_EXIT_RUNTIME;
    }
    if (open_encoder(s) < 0)
        return CLI_EXIT_RUNTIME;
    if (fovea_diff_open(&s->diff, s->ctx, NULL) < 0) /* no chart of it, nothing else lost */
        s->diff = NULL;
    rc = open_camera(s);
    if (rc != CLI_EXIT_OK)
        return rc;
    s->period = s->info.fps_num > 0 && s->info.fps_den > 0
                    ? (double)s->info.fps_den / (double)s->info.fps_num
                    : 1.0 / 25.0;
    s->ctl.threshold = a->ss.threshold;
    s->ctl.denoise = (int)a->ss.denoise;
    s->ctl.keyframe_interval = a->ss.keyframe_interval;
    live_server_settings ls = {
        a->http, a->token, a->view_token, a->max_clients, (size_t)a->max_queue, a->max_delay};
    live_server_hooks h = {s, on_control, on_tick};
    rc = live_server_open(&s->srv, &ls, &h);
    if (rc < 0)
        return rc == -2 ? CLI_EXIT_USAGE : CLI_EXIT_RUNTIME;
    const uint8_t *hello;
    size_t n;
    fovea_stream_encoder_hello(s->enc, &hello, &n);
    live_server_set_hello(s->srv, hello, n);
    send_state(s);
    char host[256];
    const char *colon = strrchr(a->http, ':');
    snprintf(host, sizeof host, "%.*s", (int)(colon - a->http), a->http);
    /* always, also with --quiet: scripts read the port from it */
    fprintf(stderr, "serving http://%s:%d/%s\n", host, live_server_port(s->srv),
            a->token ? "?token=..." : "");
    fflush(stderr);
    return CLI_EXIT_OK;
}

int cmd_live(int argc, char **argv)
{
    live_run s;
    memset(&s, 0, sizeof(s));
    int rc = parse_args(&s.a, argc, argv);
    if (rc < 0) {
        free(s.a.token);
        free(s.a.view_token);
        return CLI_EXIT_OK; /* --help */
    }
    if (rc == CLI_EXIT_OK)
        rc = open_all(&s);
    if (rc == CLI_EXIT_OK) {
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        signal(SIGPIPE, SIG_IGN);
        s.due = cli_now();
        live_server_schedule(s.srv, 0);
        while (!s.done && !interrupted)
            live_server_service(s.srv);
        /* let the viewers take what is queued (END included), 5 s at most */
        const double until = cli_now() + 5.0;
        while (!interrupted && s.rc == CLI_EXIT_OK && live_server_queued(s.srv) > 0 &&
               cli_now() < until) {
            live_server_schedule(s.srv, 50000);
            live_server_service(s.srv);
        }
        rc = s.rc;
        live_server_stats st;
        live_server_get_stats(s.srv, &st);
        cli_summary(s.a.opt.quiet, 0,
                    "live: %lld frames sent; %lld viewers (%lld turned away, %lld dropped back "
                    "to a keyframe, %lld bad messages)",
                    (long long)s.sent, (long long)st.accepted, (long long)st.refused,
                    (long long)st.resyncs, (long long)st.bad_messages);
    }
    live_server_close(&s.srv);
    fovea_stream_encoder_close(&s.enc);
    fovea_frame_free(s.ctx, &s.frame);
    fovea_frame_free(s.ctx, &s.prev);
    fovea_diff_close(&s.diff);
    live_camera_close(&s.cam);
    fovea_close(&s.ctx);
    fovea_reader_close(&s.r);
    free(s.a.token);
    free(s.a.view_token);
    return rc;
}
#endif
