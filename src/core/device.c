/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CUDA runtime access for the core (devices, streams, memory, copies). Without
 * CUDA compiled in, every entry point reports FOVEA_ERR_NO_DEVICE. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"

#ifdef FOVEA_HAVE_CUDA

int fv_cuda_status(fovea_context *ctx, int cuda_err, const char *expr, const char *file, int line)
{
    if (cuda_err == (int)cudaSuccess)
        return FOVEA_OK;
    /* clear the runtime's last error so a later launch check does not report
     * this one again (sticky errors stay; the next call reports them itself) */
    cudaGetLastError();
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    return fv_ctx_error(ctx, FOVEA_ERR_CUDA, "%s:%d: %s: %s (%s)", base, line, expr,
                        cudaGetErrorString((cudaError_t)cuda_err),
                        cudaGetErrorName((cudaError_t)cuda_err));
}

int fovea_cuda_versions(int *runtime, int *driver)
{
    int r = 0, d = 0;
    if (cudaRuntimeGetVersion(&r) != cudaSuccess)
        r = 0;
    if (cudaDriverGetVersion(&d) != cudaSuccess)
        d = 0;
    cudaGetLastError();
    if (runtime)
        *runtime = r;
    if (driver)
        *driver = d;
    return FOVEA_OK;
}

int fovea_device_count(int *count)
{
    if (!count)
        return FOVEA_ERR_INVALID_ARG;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no driver" error */
        n = 0;
    }
    *count = n;
    return FOVEA_OK;
}

int fovea_device_get_info(int index, fovea_device_info *info)
{
    int n = 0;
    if (!info || index < 0)
        return FOVEA_ERR_INVALID_ARG;
    fovea_device_count(&n);
    if (index >= n)
        return FOVEA_ERR_NO_DEVICE;
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, index) != cudaSuccess)
        return FOVEA_ERR_CUDA;
    memset(info, 0, sizeof(*info));
    snprintf(info->name, sizeof(info->name), "%s", p.name);
    info->sm_count = p.multiProcessorCount;
    info->total_memory = p.totalGlobalMem;
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, index) == cudaSuccess)
        info->clock_khz = v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, index) == cudaSuccess)
        info->memory_bus_width = v;
    info->l2_cache_bytes = (size_t)p.l2CacheSize;
    return FOVEA_OK;
}

int fv_device_bind(fovea_context *ctx, int dev, void *user_stream)
{
    FOVEA_CUDA_TRY(ctx, cudaSetDevice(dev));
    if (user_stream) {
        ctx->stream = user_stream;
        ctx->own_stream = 0;
    } else {
        cudaStream_t s;
        FOVEA_CUDA_TRY(ctx, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        ctx->stream = s;
        ctx->own_stream = 1;
    }
    return FOVEA_OK;
}

void fv_device_unbind(fovea_context *ctx)
{
    if (ctx->backend == FOVEA_BACKEND_CUDA && ctx->own_stream && ctx->stream) {
        cudaSetDevice(ctx->device);
        cudaStreamSynchronize((cudaStream_t)ctx->stream);
        cudaStreamDestroy((cudaStream_t)ctx->stream);
    }
    ctx->stream = NULL;
    ctx->own_stream = 0;
}

int fv_device_activate(fovea_context *ctx)
{
    if (!ctx || ctx->backend != FOVEA_BACKEND_CUDA)
        return fv_ctx_error(ctx, FOVEA_ERR_NO_DEVICE, "context has no CUDA device");
    return FOVEA_CUDA(ctx, cudaSetDevice(ctx->device));
}

int fv_device_sync(fovea_context *ctx)
{
    if (ctx->backend != FOVEA_BACKEND_CUDA)
        return FOVEA_OK;
    FOVEA_CUDA_TRY(ctx, cudaSetDevice(ctx->device));
    return FOVEA_CUDA(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
}

int fv_device_order(fovea_context *ctx, void *waiter, void *waited)
{
    if (ctx->backend != FOVEA_BACKEND_CUDA)
        return fv_ctx_error(ctx, FOVEA_ERR_NO_DEVICE,
                            "ordering CUDA streams needs a CUDA context (this one is on the CPU)");
    if (waiter == waited)
        return FOVEA_OK;
    FOVEA_CUDA_TRY(ctx, cudaSetDevice(ctx->device));
    cudaEvent_t ev;
    FOVEA_CUDA_TRY(ctx, cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    int st = FOVEA_CUDA(ctx, cudaEventRecord(ev, (cudaStream_t)waited));
    if (st == FOVEA_OK)
        st = FOVEA_CUDA(ctx, cudaStreamWaitEvent((cudaStream_t)waiter, ev, 0));
    /* the recorded event lives until it completes; the wait keeps holding */
    cudaEventDestroy(ev);
    return st;
}

int fv_device_malloc(fovea_context *ctx, size_t size, void **ptr)
{
    *ptr = NULL;
    int st = fv_device_activate(ctx);
    if (st < 0)
        return st;
    cudaError_t e = cudaMalloc(ptr, size);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cudaMalloc(%zu bytes): out of device memory",
                            size);
    }
    return FOVEA_CUDA(ctx, e);
}

void fv_device_free(fovea_context *ctx, void *ptr)
{
    if (ptr) {
        if (ctx)
            cudaSetDevice(ctx->device);
        cudaFree(ptr);
    }
}

/* Pinned host memory is slow to get from the driver: on the H100 machine a
 * cudaMallocHost that has to map a new chunk (any block of 2 MB or more, or
 * the first small one after frees) takes about 1 ms, and cudaFreeHost about
 * 0.7 ms for a handful of blocks. Every context that stages host frames
 * (KLT, stitcher, VIF) allocates such buffers on first use, so freed blocks
 * are kept for reuse, process-wide: at most PIN_CACHE_BLOCKS blocks and
 * PIN_CACHE_BYTES bytes; a request takes the smallest kept block that holds
 * it and wastes at most half of it. Live blocks are listed with their sizes
 * (fv_pinned_free is given the pointer only). */
#define PIN_CACHE_BLOCKS 16
#define PIN_CACHE_BYTES ((size_t)64 << 20)

typedef struct pin_block {
    void *p;
    size_t size;
} pin_block;

static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static pin_block *pin_live; /* blocks handed out */
static size_t pin_nlive, pin_live_cap;
static pin_block pin_kept[PIN_CACHE_BLOCKS];
static size_t pin_nkept, pin_kept_bytes;

/* Under pin_lock: record a block handed out (0, or -1 without memory for the
 * list). */
static int pin_note_live(void *p, size_t size)
{
    if (pin_nlive == pin_live_cap) {
        size_t cap = pin_live_cap ? 2 * pin_live_cap : 32;
        pin_block *l = realloc(pin_live, cap * sizeof *l);
        if (!l)
            return -1;
        pin_live = l;
        pin_live_cap = cap;
    }
    pin_live[pin_nlive++] = (pin_block){p, size};
    return 0;
}

int fv_pinned_malloc(fovea_context *ctx, size_t size, void **ptr)
{
    *ptr = NULL;
    int n = 0;
    fovea_device_count(&n);
    if (n == 0)
        return fv_ctx_error(ctx, FOVEA_ERR_NO_DEVICE, "pinned memory needs a CUDA device");
    if (size == 0)
        size = 1;
    pthread_mutex_lock(&pin_lock);
    size_t best = pin_nkept;
    for (size_t i = 0; i < pin_nkept; i++)
        if (pin_kept[i].size >= size && pin_kept[i].size / 2 <= size &&
            (best == pin_nkept || pin_kept[i].size < pin_kept[best].size))
            best = i;
    if (best < pin_nkept && pin_note_live(pin_kept[best].p, pin_kept[best].size) == 0) {
        *ptr = pin_kept[best].p;
        pin_kept_bytes -= pin_kept[best].size;
        pin_kept[best] = pin_kept[--pin_nkept];
        pthread_mutex_unlock(&pin_lock);
        return FOVEA_OK;
    }
    pthread_mutex_unlock(&pin_lock);
    cudaError_t e = cudaMallocHost(ptr, size);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        *ptr = NULL;
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cudaMallocHost(%zu bytes) failed", size);
    }
    if (e != cudaSuccess) {
        *ptr = NULL;
        return FOVEA_CUDA(ctx, e);
    }
    pthread_mutex_lock(&pin_lock);
    int rc = pin_note_live(*ptr, size);
    pthread_mutex_unlock(&pin_lock);
    if (rc < 0) {
        cudaFreeHost(*ptr);
        *ptr = NULL;
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory for the pinned block list");
    }
    return FOVEA_OK;
}

void fv_pinned_free(fovea_context *ctx, void *ptr)
{
    (void)ctx;
    if (!ptr)
        return;
    pthread_mutex_lock(&pin_lock);
    size_t i = 0;
    while (i < pin_nlive && pin_live[i].p != ptr)
        i++;
    if (i < pin_nlive) {
        const pin_block b = pin_live[i];
        pin_live[i] = pin_live[--pin_nlive];
        if (pin_nkept < PIN_CACHE_BLOCKS && b.size <= PIN_CACHE_BYTES - pin_kept_bytes) {
            pin_kept[pin_nkept++] = b;
            pin_kept_bytes += b.size;
            pthread_mutex_unlock(&pin_lock);
            return;
        }
    }
    pthread_mutex_unlock(&pin_lock);
    cudaFreeHost(ptr);
}

static int ptr_attributes(const void *p, struct cudaPointerAttributes *a)
{
    int n = 0;
    if (!p || fovea_device_count(&n) < 0 || n == 0)
        return 0;
    if (cudaPointerGetAttributes(a, p) != cudaSuccess) {
        cudaGetLastError(); /* not a pointer the runtime knows: plain host memory */
        return 0;
    }
    return 1;
}

int fv_ptr_device_only(const void *p)
{
    struct cudaPointerAttributes a;
    return ptr_attributes(p, &a) && a.type == cudaMemoryTypeDevice;
}

fovea_memtype fv_ptr_memtype(const void *p)
{
    struct cudaPointerAttributes a;
    if (!ptr_attributes(p, &a))
        return FOVEA_MEM_HOST;
    switch (a.type) {
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged: return FOVEA_MEM_DEVICE;
    case cudaMemoryTypeHost: return FOVEA_MEM_PINNED;
    default: return FOVEA_MEM_HOST;
    }
}

int fv_memcpy2d(fovea_context *ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
                size_t width_bytes, size_t rows)
{
    if (!ctx || ctx->backend != FOVEA_BACKEND_CUDA)
        return fv_ctx_error(ctx, FOVEA_ERR_NO_DEVICE, "copy needs a CUDA context");
    return FOVEA_CUDA(ctx, cudaMemcpy2DAsync(dst, dpitch, src, spitch, width_bytes, rows,
                                             cudaMemcpyDefault, fv_ctx_stream(ctx)));
}

int fv_memset2d_device(fovea_context *ctx, void *dst, size_t pitch, int value, size_t width_bytes,
                       size_t rows)
{
    if (!ctx || ctx->backend != FOVEA_BACKEND_CUDA)
        return fv_ctx_error(ctx, FOVEA_ERR_NO_DEVICE, "memset needs a CUDA context");
    return FOVEA_CUDA(ctx,
                      cudaMemset2DAsync(dst, pitch, value, width_bytes, rows, fv_ctx_stream(ctx)));
}

#else /* CPU-only build */

int fovea_cuda_versions(int *runtime, int *driver)
{
    if (runtime)
        *runtime = 0;
    if (driver)
        *driver = 0;
    return FOVEA_ERR_NO_DEVICE;
}

int fovea_device_count(int *count)
{
    if (!count)
        return FOVEA_ERR_INVALID_ARG;
    *count = 0;
    return FOVEA_OK;
}

int fovea_device_get_info(int index, fovea_device_info *info)
{
    (void)index;
    (void)info;
    return FOVEA_ERR_NO_DEVICE;
}

static int no_cuda(fovea_context *ctx)
{
    return fv_ctx_error(ctx, FOVEA_ERR_NO_DEVICE, "fovea was built without CUDA");
}

int fv_device_bind(fovea_context *ctx, int dev, void *user_stream)
{
    (void)dev;
    (void)user_stream;
    return no_cuda(ctx);
}
void fv_device_unbind(fovea_context *ctx)
{
    (void)ctx;
}
fovea_memtype fv_ptr_memtype(const void *p)
{
    (void)p;
    return FOVEA_MEM_HOST;
}
int fv_ptr_device_only(const void *p)
{
    (void)p;
    return 0;
}
int fv_device_sync(fovea_context *ctx)
{
    (void)ctx;
    return FOVEA_OK;
}
int fv_device_order(fovea_context *ctx, void *waiter, void *waited)
{
    (void)waiter;
    (void)waited;
    return fv_ctx_error(
        ctx, FOVEA_ERR_NO_DEVICE,
        "ordering CUDA streams needs a CUDA context (fovea was built without CUDA)");
}
int fv_device_activate(fovea_context *ctx)
{
    return no_cuda(ctx);
}
int fv_device_malloc(fovea_context *ctx, size_t size, void **ptr)
{
    (void)size;
    *ptr = NULL;
    return no_cuda(ctx);
}
void fv_device_free(fovea_context *ctx, void *ptr)
{
    (void)ctx;
    (void)ptr;
}
int fv_pinned_malloc(fovea_context *ctx, size_t size, void **ptr)
{
    (void)size;
    *ptr = NULL;
    return no_cuda(ctx);
}
void fv_pinned_free(fovea_context *ctx, void *ptr)
{
    (void)ctx;
    (void)ptr;
}
int fv_memcpy2d(fovea_context *ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
                size_t width_bytes, size_t rows)
{
    (void)dst;
    (void)dpitch;
    (void)src;
    (void)spitch;
    (void)width_bytes;
    (void)rows;
    return no_cuda(ctx);
}
int fv_memset2d_device(fovea_context *ctx, void *dst, size_t pitch, int value, size_t width_bytes,
                       size_t rows)
{
    (void)dst;
    (void)pitch;
    (void)value;
    (void)width_bytes;
    (void)rows;
    return no_cuda(ctx);
}

#endif
