/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* A user's program built against an installed fovea, as README says:
 *   cc consumer.c $(pkg-config --cflags --libs fovea)
 * It touches every public header so that a function missing from the shared
 * library's exports fails to link here. */
#include <stdio.h>
#include <string.h>

#include <fovea/fovea.h>
#include <fovea/convert.h>
#include <fovea/frame.h>
#include <fovea/io.h>
#include <fovea/quality.h>
#include <fovea/stitch.h>
#include <fovea/klt.h>

int main(void)
{
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    fovea_context *ctx = NULL;
    if (fovea_open(&ctx, &s) != FOVEA_OK) {
        fprintf(stderr, "consumer: fovea_open failed\n");
        return 1;
    }
    fovea_frame a, b;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    int st = fovea_frame_alloc(ctx, &a, 64, 48, FOVEA_PIX_RGB24, FOVEA_MEM_HOST);
    if (st == FOVEA_OK)
        st = fovea_frame_alloc(ctx, &b, 64, 48, FOVEA_PIX_I420, FOVEA_MEM_HOST);
    if (st == FOVEA_OK)
        st = fovea_frame_fill(ctx, &a, 77);
    if (st == FOVEA_OK)
        st = fovea_frame_convert(ctx, &b, &a, NULL);
    fovea_vmaf_settings vs;
    fovea_vmaf_default_settings(&vs);
    fovea_stitcher_settings ss;
    fovea_stitcher_default_settings(&ss);
    KLT_TrackingContext tc = KLTCreateTrackingContext();
    KLTFreeTrackingContext(tc);
    printf("fovea %s %s %s y=%d\n", fovea_version(), fovea_pixfmt_name(b.fmt), fovea_strerror(st),
           st == FOVEA_OK ? b.data[0][0] : -1);
    fovea_frame_free(ctx, &a);
    fovea_frame_free(ctx, &b);
    fovea_close(&ctx);
    return st == FOVEA_OK ? 0 : 1;
}
