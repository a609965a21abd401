/* PLACEHOLDER: being written by a helper this session; replaced before commit. */
#include "io_internal.h"
static int ph_open_r(struct fovea_reader *r, const fovea_reader_options *o) { (void)o; return fovea_reader_fail(r, FOVEA_ERR_UNSUPPORTED, "y4m reader missing"); }
static int ph_read(struct fovea_reader *r, fovea_frame *f) { (void)f; return fovea_reader_fail(r, FOVEA_ERR_UNSUPPORTED, "y4m reader missing"); }
static int ph_open_w(struct fovea_writer *w) { return fovea_writer_fail(w, FOVEA_ERR_UNSUPPORTED, "y4m writer missing"); }
static int ph_write(struct fovea_writer *w, FILE *fp, const fovea_frame *f) { (void)fp; (void)f; return fovea_writer_fail(w, FOVEA_ERR_UNSUPPORTED, "y4m writer missing"); }
const struct fovea_reader_ops fovea_y4m_reader_ops = {"y4m", ph_open_r, ph_read, NULL};
const struct fovea_writer_ops fovea_y4m_writer_ops = {"y4m", 0, ph_open_w, ph_write, NULL};
