/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* gst-fovea: the GStreamer plugin "fovea" and its elements (foveastitch,
 * foveavmaf, foveadiff, foveatrack), built on libfovea's public API. */
#include "elements.h"
#include "fovea/fovea.h"

#ifndef FOVEA_GST_VERSION
#define FOVEA_GST_VERSION "0.0.0"
#endif

static gboolean plugin_init(GstPlugin *plugin)
{
    return gst_element_register(plugin, "foveastitch", GST_RANK_NONE,
                                gst_fovea_stitch_get_type()) &&
           gst_element_register(plugin, "foveavmaf", GST_RANK_NONE, gst_fovea_vmaf_get_type()) &&
           gst_element_register(plugin, "foveadiff", GST_RANK_NONE, gst_fovea_diff_get_type()) &&
           gst_element_register(plugin, "foveatrack", GST_RANK_NONE, gst_fovea_track_get_type());
}

/* GST_PLUGIN_DEFINE names PACKAGE and leaves the descriptor's padding to zero. The
 * license is BSD-2-Clause-Patent (LICENSE); GStreamer's list of license strings has
 * no SPDX identifiers, and "BSD" is its name for the BSD family. */
#define PACKAGE "fovea"
/* the origin gst-inspect shows is a URL (GStreamer's "Origin URL") */
#define FOVEA_GST_ORIGIN "https://github.com/fovea/fovea"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, fovea,
                  "fovea: panorama stitching, video quality, frame differencing and KLT "
                  "tracking on the CPU or a CUDA GPU",
                  plugin_init, FOVEA_GST_VERSION, "BSD", "fovea", FOVEA_GST_ORIGIN)
#pragma GCC diagnostic pop
