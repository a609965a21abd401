/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea info`: version, build, CPUs, CUDA devices and supported formats, as text
 * or JSON. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart.h"
#include "cli.h"

enum { OPT_JSON = 1 };

static const cli_option options[] = {
    {"json", 0, NULL, "print JSON instead of text", "text", OPT_JSON},
    {0},
};

static const cli_spec spec = {
    "info",
    "[options]",
    "Show the fovea version, how it was built (CUDA backend compiled in or not), the\n"
    "number of CPUs, the CUDA devices seen and the supported containers and pixel\n"
    "formats.",
    options,
    NULL,
};

static const fovea_container containers[] = {FOVEA_CONTAINER_Y4M, FOVEA_CONTAINER_YUV,
                                             FOVEA_CONTAINER_PNM, FOVEA_CONTAINER_PNG,
                                             FOVEA_CONTAINER_MEDIA};
#define N_CONTAINERS ((int)(sizeof(containers) / sizeof(containers[0])))

static const char *container_note(fovea_container c)
{
    switch (c) {
    case FOVEA_CONTAINER_Y4M: return "YUV4MPEG2 stream; '-' is stdin/stdout";
    case FOVEA_CONTAINER_YUV: return "headerless frames; input needs --width --height --pixfmt";
    case FOVEA_CONTAINER_PNM: return "P5/P6, one image per file or a %d pattern";
    case FOVEA_CONTAINER_PNG: return "one image per file or a %d pattern";
    case FOVEA_CONTAINER_MEDIA:
        return fovea_media_version() ? "FFmpeg: reads mp4 mkv webm mov ts avi ... and devices; "
                                       "writes .mp4 .mov .mkv .webm"
                                     : "not built (needs FFmpeg's libraries)";
    default: return "";
    }
}

static int cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static double gib(size_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

static double round_2(double v)
{
    return (double)(long long)(v * 100.0 + 0.5) / 100.0;
}

static int device_count(void)
{
    int n = 0;
    if (fovea_device_count(&n) != FOVEA_OK || n < 0)
        n = 0;
    return n;
}

/* Names of the pixel formats container c holds (every format for AUTO). */
static void format_list(char *buf, size_t n, fovea_container c)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int f = FOVEA_PIX_NONE + 1; f < FOVEA_PIX_COUNT; f++) {
        if (c != FOVEA_CONTAINER_AUTO && !cli_container_holds(c, (fovea_pixfmt)f))
            continue;
        int k = snprintf(buf + len, n - len, "%s%s", len ? " " : "",
                         fovea_pixfmt_name((fovea_pixfmt)f));
        if (k > 0 && (size_t)k < n - len)
            len += (size_t)k;
    }
}

/* Built with the delta streamer (the library's FOVEA_HAVE_STREAM) and the
 * GStreamer plugin (a definition tools/CMakeLists.txt sets from the build). */
static int stream_built(void)
{
#ifdef FOVEA_HAVE_STREAM
    return 1;
#else
    return 0;
#endif
}

/* `fovea live` (libwebsockets) and its page's WebAssembly decoder (emscripten) */
static const char *live_built(void)
{
#if defined(FOVEA_HAVE_LIVE) && defined(FOVEA_HAVE_LIVE_WASM)
    return "built (with the WebAssembly decoder)";
#elif defined(FOVEA_HAVE_LIVE)
    return "built without the WebAssembly decoder (needs emscripten): the page cannot decode";
#else
    return "not built (needs libwebsockets and the delta streamer)";
#endif
}

static int gst_built(void)
{
#ifdef FOVEA_HAVE_GST
    return 1;
#else
    return 0;
#endif
}

#define MAX_HWDEC_CAPS 64

/* What NVDEC of device dev decodes (fovea_hwdec_caps on a context of its
 * own): the count, or a negative status with why set. */
static int hwdec_caps(int dev, fovea_hwdec_cap *caps, char *why, size_t n)
{
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CUDA;
    s.cuda_device = dev;
    s.threads = 1;
    fovea_context *ctx = NULL;
    int st = fovea_open(&ctx, &s);
    if (st == FOVEA_OK) {
        st = fovea_hwdec_caps(ctx, caps, MAX_HWDEC_CAPS);
        if (st < 0)
            snprintf(why, n, "%s", fovea_last_error(ctx));
    } else
        snprintf(why, n, "%s", fovea_last_error(NULL));
    fovea_close(&ctx);
    return st > MAX_HWDEC_CAPS ? MAX_HWDEC_CAPS : st;
}

static void print_hwdec(int dev)
{
    fovea_hwdec_cap caps[MAX_HWDEC_CAPS];
    char why[1024] = "";
    const int n = hwdec_caps(dev, caps, why, sizeof(why));
    if (n < 0) {
        printf("     decodes (NVDEC): cannot ask: %s\n", why);
        return;
    }
    printf("     decodes (NVDEC%s): %s\n", fovea_media_version() ? "" : "; media not built",
           n ? "" : "nothing");
    for (int i = 0; i < n; i++)
        printf("       %-10s %d %2d-bit  %dx%d .. %dx%d\n", caps[i].codec, caps[i].chroma,
               caps[i].bit_depth, caps[i].min_width, caps[i].min_height, caps[i].max_width,
               caps[i].max_height);
}

static cJSON *hwdec_json(int dev)
{
    fovea_hwdec_cap caps[MAX_HWDEC_CAPS];
    char why[1024] = "";
    const int n = hwdec_caps(dev, caps, why, sizeof(why));
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "codec", caps[i].codec);
        cJSON_AddNumberToObject(c, "chroma", caps[i].chroma);
        cJSON_AddNumberToObject(c, "bit_depth", caps[i].bit_depth);
        cJSON_AddNumberToObject(c, "max_width", caps[i].max_width);
        cJSON_AddNumberToObject(c, "max_height", caps[i].max_height);
        cJSON_AddNumberToObject(c, "min_width", caps[i].min_width);
        cJSON_AddNumberToObject(c, "min_height", caps[i].min_height);
        cJSON_AddItemToArray(arr, c);
    }
    return arr;
}

static int print_text(void)
{
    printf("fovea %s\n", fovea_version());
    printf("build:    CUDA backend %s\n",
           fovea_cuda_compiled() ? "compiled in" : "not compiled in");
    if (fovea_cuda_compiled()) {
        int rt = 0, drv = 0;
        fovea_cuda_versions(&rt, &drv);
        printf("          CUDA runtime %d.%d, driver %s", rt / 1000, rt % 1000 / 10,
               drv ? "" : "not installed\n");
        if (drv)
            printf("%d.%d\n", drv / 1000, drv % 1000 / 10);
    }
    printf("          charts (--plot) %s\n",
           chart_available() ? "with cairo" : "not available (built without cairo)");
    printf("          delta streaming (send, receive) %s\n",
           stream_built() ? "built" : "not built (needs libzstd and libxxhash)");
    printf("          live web view (live) %s\n", live_built());
    printf("          GStreamer plugin %s\n", gst_built()
                                                  ? "built (gst-inspect-1.0 fovea)"
                                                  : "not built (needs GStreamer's -dev packages)");
    printf("          media (FFmpeg) %s%s\n", fovea_media_version() ? "" : "not built",
           fovea_media_version() ? fovea_media_version() : "");
    printf("CPUs:     %d\n", cpu_count());
    int n = device_count();
    if (n == 0)
        printf("devices:  no CUDA device\n");
    else
        printf("devices:  %d CUDA device%s\n", n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++) {
        fovea_device_info di;
        if (fovea_device_get_info(i, &di) != FOVEA_OK) {
            printf("  %d: (cannot query)\n", i);
            continue;
        }
        printf("  %d: %s, %d SMs, %.1f GiB, compute capability %d.%d\n", i, di.name, di.sm_count,
               gib(di.total_memory), di.cc_major, di.cc_minor);
        print_hwdec(i);
    }
    char list[512];
    printf("containers (read and write):\n");
    for (int i = 0; i < N_CONTAINERS; i++) {
        printf("  %-4s  %s\n", fovea_container_name(containers[i]), container_note(containers[i]));
        format_list(list, sizeof(list), containers[i]);
        fputs("        pixel formats: ", stdout);
        cli_print_wrapped(stdout, list, 23, 23);
    }
    format_list(list, sizeof(list), FOVEA_CONTAINER_AUTO);
    fputs("pixel formats: ", stdout);
    cli_print_wrapped(stdout, list, 15, 2);
    return ferror(stdout) ? CLI_EXIT_RUNTIME : CLI_EXIT_OK;
}

static cJSON *build_json(void)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "version", fovea_version());

    cJSON *build = cJSON_AddObjectToObject(root, "build");
    cJSON_AddBoolToObject(build, "cuda", fovea_cuda_compiled());
    cJSON_AddBoolToObject(build, "charts", chart_available());
    cJSON_AddBoolToObject(build, "stream", stream_built());
    cJSON_AddBoolToObject(build, "gstreamer_plugin", gst_built());
    cJSON_AddBoolToObject(build, "live", strncmp(live_built(), "built", 5) == 0);
    cJSON_AddBoolToObject(build, "live_wasm", strstr(live_built(), "with the") != NULL);
    cJSON_AddBoolToObject(build, "ffmpeg", fovea_media_version() != NULL);
    if (fovea_media_version())
        cJSON_AddStringToObject(build, "ffmpeg_versions", fovea_media_version());
    else
        cJSON_AddNullToObject(build, "ffmpeg_versions");
    int rt = 0, drv = 0;
    if (fovea_cuda_versions(&rt, &drv) == FOVEA_OK) {
        cJSON_AddNumberToObject(build, "cuda_runtime_version", rt);
        if (drv)
            cJSON_AddNumberToObject(build, "cuda_driver_version", drv);
        else
            cJSON_AddNullToObject(build, "cuda_driver_version");
    } else {
        cJSON_AddNullToObject(build, "cuda_runtime_version");
        cJSON_AddNullToObject(build, "cuda_driver_version");
    }

    cJSON_AddNumberToObject(root, "cpus", cpu_count());

    cJSON *devs = cJSON_AddArrayToObject(root, "devices");
    int n = device_count();
    for (int i = 0; i < n; i++) {
        fovea_device_info di;
        if (fovea_device_get_info(i, &di) != FOVEA_OK)
            continue;
        char cc[16];
        snprintf(cc, sizeof(cc), "%d.%d", di.cc_major, di.cc_minor);
        cJSON *d = cJSON_CreateObject();
        cJSON_AddNumberToObject(d, "index", i);
        cJSON_AddStringToObject(d, "name", di.name);
        cJSON_AddNumberToObject(d, "sm_count", di.sm_count);
        cJSON_AddNumberToObject(d, "memory_gib", round_2(gib(di.total_memory)));
        cJSON_AddStringToObject(d, "compute_capability", cc);
        cJSON_AddItemToObject(d, "decoders", hwdec_json(i));
        cJSON_AddItemToArray(devs, d);
    }

    cJSON *conts = cJSON_AddArrayToObject(root, "containers");
    for (int i = 0; i < N_CONTAINERS; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "name", fovea_container_name(containers[i]));
        const int in = containers[i] != FOVEA_CONTAINER_MEDIA || fovea_media_version();
        cJSON_AddBoolToObject(c, "read", in);
        cJSON_AddBoolToObject(c, "write", in);
        cJSON *fmts = cJSON_AddArrayToObject(c, "pixel_formats");
        for (int f = FOVEA_PIX_NONE + 1; f < FOVEA_PIX_COUNT; f++)
            if (cli_container_holds(containers[i], (fovea_pixfmt)f))
                cJSON_AddItemToArray(fmts, cJSON_CreateString(fovea_pixfmt_name((fovea_pixfmt)f)));
        cJSON_AddItemToArray(conts, c);
    }
    cJSON *pix = cJSON_AddArrayToObject(root, "pixel_formats");
    for (int f = FOVEA_PIX_NONE + 1; f < FOVEA_PIX_COUNT; f++)
        cJSON_AddItemToArray(pix, cJSON_CreateString(fovea_pixfmt_name((fovea_pixfmt)f)));
    return root;
}

int cmd_info(int argc, char **argv)
{
    cli_parser p;
    const char *val;
    int id, json = 0;
    cli_parser_init(&p, &spec, argc, argv);
    while ((id = cli_next(&p, &val)) > 0) {
        if (id == OPT_JSON)
            json = 1;
    }
    if (id == CLI_HELP)
        return CLI_EXIT_OK;
    if (id == CLI_ERROR)
        return CLI_EXIT_USAGE;
    if (p.nrest > 0)
        return cli_usage_error(spec.name, "info: unexpected argument '%s'", p.rest[0]);
    if (!json)
        return print_text();
    cJSON *root = build_json();
    if (!root) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    int rc = cli_write_json("-", root);
    cJSON_Delete(root);
    return rc;
}
