/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* NVDEC as the driver tells it (nvdec.h): libnvcuvid's cuvidGetDecoderCaps
 * and libcuda's cuCtxGetCurrent, dlopen'd once per process (the handles never
 * change after that and hold no per-context state). The decoder-caps struct
 * is declared here from NVIDIA's documented layout (NVDECODE API,
 * CUVIDDECODECAPS), so the build needs no Video Codec SDK header. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/cuda_util.h"
#include "nvdec.h"

/* CUVIDDECODECAPS: inputs codec/chroma/depth, outputs after reserved1 */
typedef struct nvdec_decode_caps {
    int codec;             /* cudaVideoCodec */
    int chroma;            /* cudaVideoChromaFormat: 0 mono, 1 4:2:0, 2 4:2:2, 3 4:4:4 */
    unsigned bit_depth_m8; /* bit depth - 8 */
    unsigned reserved1[3];
    unsigned char supported;
    unsigned char decoders; /* NVDEC engines (0 from older drivers) */
    unsigned short output_format_mask;
    unsigned max_width, max_height, max_mb_count;
    unsigned short min_width, min_height;
    unsigned reserved3[11];
} nvdec_decode_caps;

typedef int (*get_caps_fn)(nvdec_decode_caps *);
typedef int (*ctx_get_current_fn)(void **);

static pthread_once_t nvdec_once = PTHREAD_ONCE_INIT;
static get_caps_fn nvdec_get_caps;
static ctx_get_current_fn nvdec_ctx_get_current;
static char nvdec_load_error[256];

static void nvdec_load(void)
{
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (cuda)
        nvdec_ctx_get_current = (ctx_get_current_fn)dlsym(cuda, "cuCtxGetCurrent");
    void *cuvid = dlopen("libnvcuvid.so.1", RTLD_NOW | RTLD_LOCAL);
    if (cuvid)
        nvdec_get_caps = (get_caps_fn)dlsym(cuvid, "cuvidGetDecoderCaps");
    if (!nvdec_ctx_get_current)
        snprintf(nvdec_load_error, sizeof(nvdec_load_error),
                 "the NVIDIA driver's libcuda.so.1 cannot be loaded");
    else if (!nvdec_get_caps)
        snprintf(nvdec_load_error, sizeof(nvdec_load_error),
                 "the NVIDIA driver's video decoder library (libnvcuvid.so.1) cannot be loaded: "
                 "%s",
                 cuvid ? "it has no cuvidGetDecoderCaps" : "not installed");
    /* the libraries stay loaded for the process, as FFmpeg's loader keeps them */
}

static int nvdec_current(fovea_context *ctx, char *why, size_t n)
{
    pthread_once(&nvdec_once, nvdec_load);
    if (!ctx || fovea_context_backend(ctx) != FOVEA_BACKEND_CUDA)
        return fv_errbuf(why, n, FOVEA_ERR_NO_DEVICE,
                         "NVDEC needs a CUDA context (this one is cpu: --backend cuda)");
    if (nvdec_load_error[0])
        return fv_errbuf(why, n, FOVEA_ERR_UNSUPPORTED, "%s", nvdec_load_error);
    /* the runtime makes the device's primary context current on this thread */
    if (cudaSetDevice(ctx->device) != cudaSuccess || cudaFree(NULL) != cudaSuccess)
        return fv_errbuf(why, n, FOVEA_ERR_CUDA, "CUDA device %d cannot be made current",
                         ctx->device);
    return FOVEA_OK;
}

int nvdec_cu_context(fovea_context *ctx, void **cu_context, char *why, size_t n)
{
    *cu_context = NULL;
    FOVEA_TRY(nvdec_current(ctx, why, n));
    if (nvdec_ctx_get_current(cu_context) != 0 || !*cu_context)
        return fv_errbuf(why, n, FOVEA_ERR_CUDA, "cuCtxGetCurrent gives no CUDA context");
    return FOVEA_OK;
}

int nvdec_query(fovea_context *ctx, int codec, int chroma, int bit_depth, fovea_hwdec_cap *cap,
                char *why, size_t n)
{
    FOVEA_TRY(nvdec_current(ctx, why, n));
    nvdec_decode_caps c;
    memset(&c, 0, sizeof(c));
    c.codec = codec;
    c.chroma = chroma == 400 ? 0 : chroma == 420 ? 1 : chroma == 422 ? 2 : 3;
    c.bit_depth_m8 = (unsigned)(bit_depth - 8);
    const int r = nvdec_get_caps(&c);
    if (r != 0)
        return fv_errbuf(why, n, FOVEA_ERR_UNSUPPORTED, "cuvidGetDecoderCaps fails (CUresult %d)",
                         r);
    memset(cap, 0, sizeof(*cap));
    cap->chroma = chroma;
    cap->bit_depth = bit_depth;
    cap->max_width = (int)c.max_width;
    cap->max_height = (int)c.max_height;
    cap->min_width = c.min_width;
    cap->min_height = c.min_height;
    cap->decoders = c.decoders;
    return c.supported ? 1 : 0;
}

/* The streams fovea_hwdec_caps asks about, in its order (FFmpeg's names) */
static const struct {
    int codec;
    const char *name;
} nvdec_codecs[] = {{NVDEC_H264, "h264"},        {NVDEC_HEVC, "hevc"},
                    {NVDEC_VP9, "vp9"},          {NVDEC_AV1, "av1"},
                    {NVDEC_VP8, "vp8"},          {NVDEC_MPEG2, "mpeg2video"},
                    {NVDEC_MPEG1, "mpeg1video"}, {NVDEC_MPEG4, "mpeg4"},
                    {NVDEC_VC1, "vc1"},          {NVDEC_JPEG, "mjpeg"}};

int fovea_hwdec_caps(fovea_context *ctx, fovea_hwdec_cap *caps, int max)
{
    static const int chromas[] = {420, 422, 444, 400};
    static const int depths[] = {8, 10, 12};
    char why[FOVEA_ERRLEN];
    int count = 0;
    if (max < 0 || (max > 0 && !caps))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "fovea_hwdec_caps: bad arguments");
    for (size_t k = 0; k < sizeof(nvdec_codecs) / sizeof(nvdec_codecs[0]); k++)
        for (size_t c = 0; c < sizeof(chromas) / sizeof(chromas[0]); c++)
            for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
                fovea_hwdec_cap cap;
                const int st = nvdec_query(ctx, nvdec_codecs[k].codec, chromas[c], depths[d], &cap,
                                           why, sizeof(why));
                if (st == FOVEA_ERR_UNSUPPORTED && strstr(why, "cuvidGetDecoderCaps fails"))
                    continue; /* a codec this driver does not know */
                if (st < 0)
                    return fv_ctx_error(ctx, st, "%s", why);
                if (st == 0)
                    continue;
                cap.codec = nvdec_codecs[k].name;
                if (count < max)
                    caps[count] = cap;
                count++;
            }
    return count;
}
