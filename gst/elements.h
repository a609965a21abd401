/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* gst-fovea: the element types the plugin registers (plugin.c). */
#ifndef FOVEA_GST_ELEMENTS_H
#define FOVEA_GST_ELEMENTS_H

#include <gst/gst.h>

G_BEGIN_DECLS

GType gst_fovea_stitch_get_type(void);
GType gst_fovea_vmaf_get_type(void);
GType gst_fovea_diff_get_type(void);
GType gst_fovea_track_get_type(void);

G_END_DECLS

#endif
