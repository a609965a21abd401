/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* foveavmaf's state, shared by its two units: vmaf.c (the element:
 * properties, states, caps, events, the aggregation) and vmaf_score.c (the
 * pairs handed to the scorer, the posted scores and the JSON). */
#ifndef FOVEA_GST_VMAF_H
#define FOVEA_GST_VMAF_H

#include <gst/base/gstaggregator.h>
#include <gst/video/video.h>

#include "common.h"
#include "cuda.h"
#include "fovea/quality.h"

GST_DEBUG_CATEGORY_EXTERN(fovea_vmaf_debug);
#define GST_CAT_DEFAULT fovea_vmaf_debug

#define MAX_METRICS FOVEA_VMAF_MAX_METRICS

typedef enum { FEATURES_VIF = 0, FEATURES_VMAF = 1 } features_mode;

/* A pair handed to the VMAF scorer whose scores are not received yet: its
 * times, and its frames while the scorer reads them on the device. */
typedef struct {
    GstClockTime pts, rt;
    gboolean held;
    GstVideoFrame r, d;
} pending_pair;

/* One frame's scores as posted and written. */
typedef struct {
    guint64 frame;
    GstClockTime pts;
    double v[MAX_METRICS];
} score_row;

typedef struct {
    GstAggregator parent;
    GstAggregatorPad *ref, *dis;

    /* properties (object lock) */
    gchar *location;
    features_mode features;
    gchar *model_name;
    gchar *extra; /* extra-features: a feature list added to the model's, or NULL */
    gdouble gain_limit;
    /* backend, threads (object lock); the context and CUDA memory from READY on */
    fovea_gst_base base;
    /* READY and above */
    fovea_context *cpu_ctx; /* VMAF's when the element's context has no VMAF backend */
    /* PAUSED and above (the aggregating thread's) */
    features_mode mode;
    fovea_vmaf *vmaf; /* the scorer: the feature list "vif", or a model */
    fovea_vmaf_model *model;
    fovea_context *score_ctx; /* the scorer's: ctx or cpu_ctx */
    GQueue pending;           /* pending_pair */
    GstVideoInfo ref_info, dis_info;
    gboolean have_ref_info, have_dis_info;
    int nmetrics;
    char names[MAX_METRICS][160]; /* libvmaf names with option suffixes */
    GArray *rows;                 /* score_row, every frame scored */
    guint64 passed_unscored;      /* distorted frames without a reference */
    guint64 ref_dropped;          /* reference frames without a distorted one */
    gboolean warned_ref_end;
    gboolean finished;      /* the JSON was written (or not wanted) */
    GstSegment out_segment; /* the distorted pad's segment, forwarded */
    gint64 t_first, t_last; /* monotonic time of the first and last score */
} GstFoveaVmaf;

#define VMAF(obj) ((GstFoveaVmaf *)(obj))

/* The running time of buf on pad. */
GstClockTime vmaf_running_time(GstAggregatorPad *pad, GstBuffer *buf);

/* Queue one pair and post the scores that are ready. @return FALSE after
 * posting an error */
gboolean vmaf_score_pair(GstFoveaVmaf *self, GstBuffer *rbuf, GstBuffer *dbuf, GstClockTime rt);

/* The end of the distorted stream: the JSON, once. @return FALSE after
 * posting an error */
gboolean vmaf_finish(GstFoveaVmaf *self);

#endif
