/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* foveastitch's element and pad, shared by its units: stitch.c (properties,
 * states, aggregating, the class) and stitch_caps.c (caps and allocation). */
#ifndef FOVEA_GST_STITCH_H
#define FOVEA_GST_STITCH_H

#include <gst/gst.h>
#include <gst/video/video.h>

#include "common.h"
#include "fovea/stitch.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN(fovea_stitch_debug);
#define GST_CAT_DEFAULT fovea_stitch_debug

/* What a camera without a frame for an output time gets. */
typedef enum {
    MISSING_WAIT = 0,  /* no output for that time; the end of the stream when it ended */
    MISSING_BLACK = 1, /* a black frame */
    MISSING_REPEAT = 2 /* its last frame, up to max-repeat times in a row, then an error */
} missing_policy;

typedef enum { USE_CURRENT, USE_LAST, USE_BLACK } frame_use;

typedef struct {
    GstVideoAggregatorPad parent;
    /* the aggregating thread's */
    GstBuffer *last; /* the last buffer stitched (a ref: its pool cannot reuse it) */
    GstVideoInfo last_info;
    guint repeats;          /* consecutive output frames without a fresh frame */
    frame_use use;          /* this output frame's choice */
    gboolean missing;       /* missing in the previous output frame (messages on change) */
    gboolean mapped_device; /* the prepared frame holds device pointers */
    gboolean in_cuda;       /* its caps are memory:CUDAMemory */
} GstFoveaStitchPad;

typedef struct {
    GstVideoAggregatorPadClass parent_class;
} GstFoveaStitchPadClass;

GType gst_fovea_stitch_pad_get_type(void);

typedef struct {
    GstVideoAggregator parent;

    /* properties (object lock) */
    gchar *rig, *map_path, *color;
    gchar *pto; /* a Hugin project instead of a rig */
    gint color_interval;
    gdouble color_smoothing;
    gboolean deterministic;
    gboolean photometric; /* apply a .pto's photometric part (default TRUE) */
    missing_policy missing;
    guint max_repeat;
    fovea_gst_base base; /* backend, threads; the context from READY on */

    /* PAUSED and above */
    fovea_stitch_map *map;
    int ncam, pano_w, pano_h;
    int cam_w[FOVEA_STITCH_MAX_CAMERAS], cam_h[FOVEA_STITCH_MAX_CAMERAS];
    fovea_color_mode color_mode;
    fovea_color_correction fixed_cc[FOVEA_STITCH_MAX_CAMERAS];
    /* the aggregating thread's */
    fovea_stitcher *st;
    fovea_pixfmt st_fmt; /* the stitcher was made for these inputs */
    fovea_colorspace st_cs;
    int st_full;
    fovea_frame black[FOVEA_STITCH_MAX_CAMERAS];
    fovea_color_correction posted_cc[FOVEA_STITCH_MAX_CAMERAS];
    gboolean posted_any;
    guint64 frames;    /* output frames stitched since start or a flush */
    gboolean out_cuda; /* output caps are memory:CUDAMemory */
} GstFoveaStitch;

typedef struct {
    GstVideoAggregatorClass parent_class;
} GstFoveaStitchClass;

#define STITCH(obj) ((GstFoveaStitch *)(obj))
#define STITCH_PAD(obj) ((GstFoveaStitchPad *)(obj))

/* Camera index of a pad named sink_N; -1 for another name. */
int stitch_pad_camera(GstPad *pad);

/* stitch_caps.c: the pad templates, and the caps and allocation vfuncs of
 * klass (the parent class' are chained to). */
void stitch_caps_class_init(GstFoveaStitchClass *klass);

G_END_DECLS

#endif
