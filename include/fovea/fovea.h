/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea: GPU video processing library. Umbrella header: version, status codes,
 * and the context that carries backend choice, CUDA device/stream, threads and logging. */
#ifndef FOVEA_FOVEA_H
#define FOVEA_FOVEA_H

#include <stddef.h>
#include <stdint.h>

#include "fovea/api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FOVEA_VERSION_MAJOR 0
#define FOVEA_VERSION_MINOR 1
#define FOVEA_VERSION_PATCH 0

/** Status codes. FOVEA_OK is 0, errors are negative; the positive codes are
 *  not errors: FOVEA_EOF is a normal end of stream, FOVEA_AGAIN the "try again"
 *  answer of the submit/receive idiom (a submit that must receive first, a
 *  receive that has nothing ready until more is submitted or flushed). */
typedef enum fovea_status {
    FOVEA_OK = 0,
    FOVEA_EOF = 1,              /**< end of stream (not an error) */
    FOVEA_AGAIN = 2,            /**< not now: receive (or submit) first, then call again */
    FOVEA_ERR_INVALID_ARG = -1, /**< a parameter is out of range or NULL */
    FOVEA_ERR_UNSUPPORTED = -2, /**< format or feature not supported */
    FOVEA_ERR_IO = -3,          /**< read/write/open failed */
    FOVEA_ERR_CORRUPT = -4,     /**< malformed or truncated input */
    FOVEA_ERR_NOMEM = -5,       /**< allocation failed or size overflow */
    FOVEA_ERR_NO_DEVICE = -6,   /**< no CUDA device, or CUDA not compiled in */
    FOVEA_ERR_CUDA = -7,        /**< a CUDA call or kernel launch failed */
    FOVEA_ERR_MISMATCH = -8,    /**< inputs do not agree (sizes, formats, counts) */
    FOVEA_ERR_INTERNAL = -9     /**< a bug in fovea */
} fovea_status;

/** @return a static, human-readable description of a status code. */
FOVEA_API const char *fovea_strerror(int status);

/** @return the library version as "MAJOR.MINOR.PATCH". */
FOVEA_API const char *fovea_version(void);

/** @return 1 when the library was built with the CUDA backend, else 0. */
FOVEA_API int fovea_cuda_compiled(void);

/** CUDA runtime and driver versions (e.g. 13000 for 13.0); 0 when CUDA is not
 *  compiled in (runtime) or no driver is installed (driver).
 *  @return FOVEA_OK, or FOVEA_ERR_NO_DEVICE when CUDA is not compiled in */
FOVEA_API int fovea_cuda_versions(int *runtime, int *driver);

/** @return the number of online CPUs (at least 1): the worker threads a context
 *  made with threads = 0 gets. */
FOVEA_API int fovea_cpu_count(void);

/** Backend choice for every system. AUTO = CUDA when a device is present. */
typedef enum fovea_backend {
    FOVEA_BACKEND_AUTO = 0,
    FOVEA_BACKEND_CPU = 1,
    FOVEA_BACKEND_CUDA = 2
} fovea_backend;

/** @return "auto", "cpu" or "cuda". */
FOVEA_API const char *fovea_backend_name(fovea_backend b);
/** Parse "auto", "cpu" or "cuda". @return 0 on success, FOVEA_ERR_INVALID_ARG otherwise. */
FOVEA_API int fovea_backend_parse(const char *name, fovea_backend *out);

typedef enum fovea_log_level {
    FOVEA_LOG_ERROR = 0,
    FOVEA_LOG_WARNING = 1,
    FOVEA_LOG_INFO = 2,
    FOVEA_LOG_DEBUG = 3
} fovea_log_level;

/** Log callback; msg has no trailing newline. Called from the thread that logs. */
typedef void (*fovea_log_fn)(void *opaque, fovea_log_level level, const char *msg);

/** Most CPU worker threads a context takes (fovea_settings.threads). */
#define FOVEA_MAX_THREADS 1024

typedef struct fovea_settings {
    fovea_backend backend; /**< default AUTO */
    int cuda_device;       /**< CUDA device index, default 0 */
    void *cuda_stream;     /**< user cudaStream_t; NULL = context creates and owns one */
    int threads;           /**< CPU worker threads; 0 = number of online CPUs (default);
                                  at most FOVEA_MAX_THREADS */
    fovea_log_fn log;      /**< NULL = no logging (the library never prints) */
    void *log_opaque;
    fovea_log_level log_level; /**< messages above this level are dropped; default WARNING */
} fovea_settings;

typedef struct fovea_context fovea_context;

/** Fill s with defaults. */
FOVEA_API void fovea_default_settings(fovea_settings *s);

/** Open a context. With backend CUDA and no usable device this fails with
 *  FOVEA_ERR_NO_DEVICE; with AUTO it falls back to CPU. Settings out of range
 *  (threads below 0 or above FOVEA_MAX_THREADS, an unknown backend, a negative
 *  device) fail with FOVEA_ERR_INVALID_ARG, the reason in fovea_last_error(NULL).
 *  @param ctx receives the context (NULL on failure)
 *  @param s settings, or NULL for defaults
 *  @return FOVEA_OK or a negative status */
FOVEA_API int fovea_open(fovea_context **ctx, const fovea_settings *s);

/** Close a context and set *ctx to NULL. Safe on NULL. */
FOVEA_API void fovea_close(fovea_context **ctx);

/** @return the backend in use after AUTO was resolved (CPU or CUDA). */
FOVEA_API fovea_backend fovea_context_backend(const fovea_context *ctx);

/** @return number of CPU worker threads of the context. */
FOVEA_API int fovea_context_threads(const fovea_context *ctx);

/** @return the cudaStream_t of the context (NULL on CPU contexts). */
FOVEA_API void *fovea_context_stream(const fovea_context *ctx);

/** @return the CUDA device index of the context (-1 on CPU contexts). */
FOVEA_API int fovea_context_device(const fovea_context *ctx);

/** Wait until all work queued on the context stream has finished.
 *  @return FOVEA_OK, or FOVEA_ERR_CUDA with detail in fovea_last_error(). */
FOVEA_API int fovea_sync(fovea_context *ctx);

/** Order the context stream after another CUDA stream of its device: work
 *  queued on the context after this call starts only once the work queued on
 *  stream so far has finished (a CUDA event; the host does not wait). For
 *  frames another library (CuPy, PyTorch, a decoder) writes on its own stream.
 *  @param stream a cudaStream_t; NULL is the default stream, and the special
 *         handles cudaStreamLegacy and cudaStreamPerThread are accepted
 *  @return FOVEA_OK, FOVEA_ERR_INVALID_ARG (NULL ctx), FOVEA_ERR_NO_DEVICE (a
 *          CPU context), FOVEA_ERR_CUDA; detail in fovea_last_error(ctx) */
FOVEA_API int fovea_context_wait_stream(fovea_context *ctx, void *stream);

/** The reverse of fovea_context_wait_stream: work queued on stream after this
 *  call starts only once the work queued on the context so far has finished
 *  (hand a result, or the release of an input, to another library's stream).
 *  @return as fovea_context_wait_stream */
FOVEA_API int fovea_context_signal_stream(fovea_context *ctx, void *stream);

/** Error convention. Every function returns a status (FOVEA_OK, negative on
 *  error); its detail (file names, line numbers, file:line for CUDA errors) is
 *  recorded as the last error of the fovea_context the function was given and
 *  read with fovea_last_error(ctx). Functions that need no context for their
 *  work (file I/O, decoders, rigs, map files) still take one only for this
 *  (after the object or the out pointer, docs/api.md); it may be NULL.
 *
 *  The last error is kept per thread and per context: fovea_last_error(ctx)
 *  returns the detail of the last failed call on ctx made by the calling
 *  thread, so one context may be used from several threads (e.g. one reading
 *  inputs on worker threads) without their messages mixing. Calls made with
 *  ctx == NULL record into a per-thread slot of their own, read with
 *  fovea_last_error(NULL). A successful call does not clear the message. (A
 *  thread keeps the messages of its 8 most recently failing contexts; older
 *  ones read as "".)
 *
 *  @return the last error message recorded on ctx (or, for NULL, on no
 *  context) by this thread ("" if none). The text stays valid until this
 *  thread's next failing call on ctx, or until the thread exits. */
FOVEA_API const char *fovea_last_error(const fovea_context *ctx);

/** Description of one CUDA device. */
typedef struct fovea_device_info {
    char name[256];
    int sm_count;
    size_t total_memory;    /**< bytes */
    int cc_major, cc_minor; /**< compute capability */
    int clock_khz;
    int memory_bus_width; /**< bits */
    size_t l2_cache_bytes;
} fovea_device_info;

/** Number of CUDA devices visible (0 when CUDA is not compiled in or no driver).
 *  @return FOVEA_OK; *count is 0 when none. */
FOVEA_API int fovea_device_count(int *count);

/** Fill info for device index. @return FOVEA_OK, FOVEA_ERR_NO_DEVICE, FOVEA_ERR_INVALID_ARG. */
FOVEA_API int fovea_device_get_info(int index, fovea_device_info *info);

#ifdef __cplusplus
}
#endif

#include "fovea/frame.h"

#endif
