/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Helpers of the gst-fovea element tests (tests/gst/test_gst_*.c): GStreamer
 * set up with the plugin from the build tree, pipelines run to their end with
 * their element messages, errors and appsink samples collected, seeded test
 * frames, and fovea frames seen in mapped GstVideoFrames. */
#ifndef FOVEA_TEST_GST_HELPERS_H
#define FOVEA_TEST_GST_HELPERS_H

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "fovea/fovea.h"

/* A failed check: print it and exit 1. */
#define GT_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: FAIL: %s: ", __FILE__, __LINE__, #cond);                       \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* gst_init; GLib criticals and warnings abort (a g_return_if_fail in an
 * element is a bug); the plugin "fovea" must load. */
void gt_init(int *argc, char ***argv);

/* What a pipeline run gave. */
typedef struct {
    GPtrArray *messages; /* GstStructure copies of element messages, in order */
    GPtrArray *samples;  /* GstSample from the appsink named "out", in order */
    gchar *error;        /* the first error: "<text> | <debug>", or NULL */
    gboolean eos;
} gt_result;

/* gst_parse_launch or fail. */
GstElement *gt_launch(const char *desc);

/* Set the pipeline PLAYING; run push(pipe, data) (may be NULL) to feed its
 * appsrcs; wait up to timeout_s for EOS or an error; collect the messages and
 * the appsink "out"'s samples; set it to NULL. */
void gt_run(GstElement *pipe, void (*push)(GstElement *pipe, void *data), void *data, int timeout_s,
            gt_result *res);
void gt_result_clear(gt_result *res);

/* The element messages named name, in order. */
GPtrArray *gt_messages(const gt_result *res, const char *name);

/* Push buf (taken) into the appsrc named src; gt_eos ends it. */
void gt_push(GstElement *pipe, const char *src, GstBuffer *buf);
void gt_eos(GstElement *pipe, const char *src);

/* A buffer of info's layout filled with seeded content: a smooth pattern
 * moving by (frame * dx, frame * dy) plus seeded noise of +-noise; never
 * constant. pts = frame * dur. */
GstBuffer *gt_frame(const GstVideoInfo *info, int frame, int dx, int dy, int noise, uint32_t seed,
                    GstClockTime dur);

/* Wrap a mapped video frame (host) as a fovea frame. */
void gt_wrap(const GstVideoFrame *vf, fovea_frame *out);

/* Whether the planes of a mapped frame equal those of a host fovea frame
 * (rows only). Prints the first difference. */
gboolean gt_frame_equal(const GstVideoFrame *vf, const fovea_frame *f, const char *what);

/* Write text to path (or fail). */
void gt_write_file(const char *path, const char *text);

/* A fresh temporary directory (removed by gt_cleanup_dir). */
gchar *gt_tmpdir(void);
void gt_cleanup_dir(gchar *dir);

#endif
