/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* gst-fovea: what the elements share: the backend property, the fovea context
 * (its log routed to GStreamer's debug log), GstVideoFormat <-> fovea_pixfmt,
 * mapped GstVideoFrames seen as fovea frames, and library failures posted as
 * GStreamer errors carrying fovea_last_error(). */
#ifndef FOVEA_GST_COMMON_H
#define FOVEA_GST_COMMON_H

#include <gst/gst.h>
#include <gst/video/video.h>

#include "fovea/fovea.h"

G_BEGIN_DECLS

/* GType of fovea_backend as a GEnum ("auto", "cpu", "cuda"). */
#define FOVEA_GST_TYPE_BACKEND (fovea_gst_backend_get_type())
GType fovea_gst_backend_get_type(void);

/* The backend / threads pair every element has. */
#define FOVEA_GST_DEFAULT_BACKEND FOVEA_BACKEND_AUTO
#define FOVEA_GST_DEFAULT_THREADS 0
void fovea_gst_install_backend_properties(GObjectClass *klass, guint prop_backend,
                                          guint prop_threads);

/* What every element keeps for its fovea context: the backend and threads
 * properties (under the object lock) and, from READY to NULL, the context
 * with its CUDA memory. An element embeds one, installs the properties with
 * fovea_gst_install_backend_properties, and hands its set/get_property,
 * change_state and finalize to the fovea_gst_base_* helpers. */
typedef struct fovea_gst_base {
    fovea_backend backend;
    gint threads;
    /* TRUE: the context is a CPU one without CUDA memory whatever backend
     * says (the element gives backend to a system that picks its own, as
     * foveatrack's KLT) */
    gboolean cpu_context;
    fovea_context *ctx;
    struct fovea_gst_cuda *cuda;
} fovea_gst_base;

void fovea_gst_base_init(fovea_gst_base *b, gboolean cpu_context);
/* set_property/get_property of the pair, the object lock held.
 * @return FALSE when id is neither prop_backend nor prop_threads */
gboolean fovea_gst_base_set_property(fovea_gst_base *b, guint id, guint prop_backend,
                                     guint prop_threads, const GValue *v);
gboolean fovea_gst_base_get_property(const fovea_gst_base *b, guint id, guint prop_backend,
                                     guint prop_threads, GValue *v);
/* An element's change_state: the context opened at NULL -> READY (an error
 * posted on el and GST_STATE_CHANGE_FAILURE when it cannot be), the parent
 * class' change_state, the context closed at READY -> NULL. */
GstStateChangeReturn fovea_gst_base_change_state(fovea_gst_base *b, GstElement *el,
                                                 GstDebugCategory *cat, GstElementClass *parent,
                                                 GstStateChange t);
/* The context and CUDA memory closed (finalize); safe when closed. */
void fovea_gst_base_close(fovea_gst_base *b);

/* A context for backend b with threads CPU threads (0 = one per CPU), library
 * log messages going to cat. On failure an error naming the backend is posted
 * on el and NULL returned. */
fovea_context *fovea_gst_open_context(GstElement *el, GstDebugCategory *cat, fovea_backend b,
                                      int threads);

/* GstVideoFormat <-> fovea_pixfmt; FOVEA_PIX_NONE / GST_VIDEO_FORMAT_UNKNOWN
 * for formats the other side lacks. */
fovea_pixfmt fovea_gst_pixfmt(GstVideoFormat f);
GstVideoFormat fovea_gst_video_format(fovea_pixfmt f);

/* A mapped video frame as a fovea frame wrapping its planes (no copy).
 * mem: FOVEA_MEM_HOST for a plain map, FOVEA_MEM_DEVICE for one mapped with
 * GST_MAP_CUDA (device is then the CUDA device of the pointers). */
void fovea_gst_wrap_frame(const GstVideoFrame *vf, fovea_memtype mem, int device, fovea_frame *out);

/* "video/x-raw" caps for these formats in system memory, followed (in builds
 * with GStreamer's CUDA library) by the same in memory:CUDAMemory when
 * with_cuda: what pad templates and caps queries offer. */
GstCaps *fovea_gst_raw_caps(const GstVideoFormat *formats, guint n, gboolean with_cuda);

/* Post a GStreamer error on el: "<what>: <fovea_last_error(ctx)>" (or the
 * status' description when the library left no message), the status in the
 * debug text. st is a negative fovea status. */
#define FOVEA_GST_ERROR(el, domain, code, ctx, st, ...)                                            \
    do {                                                                                           \
        gchar *what_ = g_strdup_printf(__VA_ARGS__);                                               \
        const char *detail_ = fovea_last_error(ctx);                                               \
        GST_ELEMENT_ERROR(el, domain, code,                                                        \
                          ("%s: %s", what_, *detail_ ? detail_ : fovea_strerror(st)),              \
                          ("fovea status %d (%s)", (int)(st), fovea_strerror(st)));                \
        g_free(what_);                                                                             \
    } while (0)

/* Read a small text file (at most limit bytes). On failure NULL with *err set
 * to the reason (g_free it). */
gchar *fovea_gst_read_file(const gchar *path, gsize limit, gsize *len, gchar **err);

G_END_DECLS

#endif
