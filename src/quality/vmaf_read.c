/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea_vmaf_score_readers: two readers scored as the CLI scores them, each
 * read on a thread of its own (fovea_read_ring) while the calling thread
 * submits the pairs and keeps about three of the backend's batches pending. */
#include <string.h>

#include "fovea/advanced.h"
#include "io/io_internal.h"
#include "quality/vmaf_context.h"

void fovea_vmaf_readers_default_settings(fovea_vmaf_readers_settings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->frames = -1;
    s->ring_bytes = (size_t)256 << 20;
}

/* The run's state: the two rings and the counts. */
typedef struct pair_feed {
    fovea_vmaf *v;
    fovea_read_ring *ring[2]; /* ref, dis */
    int64_t limit;            /* pairs at most, -1 = all */
    int64_t taken;            /* pairs handed to the scorer */
    int64_t done;             /* pairs that left the scorer (their frames released) */
    const fovea_vmaf_readers_settings *s;
    fovea_vmaf_readers_result *out;
} pair_feed;

/* Frames a reader has left (its known count less those read), or -1. */
static int64_t frames_left(const fovea_reader *r)
{
    if (r->info.frame_count < 0)
        return -1;
    const int64_t n = r->info.frame_count - r->next_index;
    return n > 0 ? n : 0;
}

/* Size the rings (about three batches pending on a CUDA scorer, what the C
 * driver takes on the C one, *depth, and a read-ahead of the rest, within
 * ring_bytes and no more than the run can fill: allocating pinned memory is
 * most of a short run's start-up) and start the reader threads. */
static int feed_start(pair_feed *p, fovea_reader *const r[2], int64_t *depth)
{
    fovea_context *ctx = p->v->ctx;
    const fovea_video_info *ri = &r[0]->info, *di = &r[1]->info;
    const int batch = fovea_vmaf_batch_size(p->v, ri->width, ri->height);
    const size_t pair_bytes = fovea_frame_packed_size(ri->fmt, ri->width, ri->height) +
                              fovea_frame_packed_size(di->fmt, di->width, di->height);
    int64_t want = 3 * (int64_t)batch;
    int64_t nslots = 4 * (int64_t)batch + 2;
    if (fovea_vmaf_backend(p->v) == FOVEA_BACKEND_CPU) {
        /* the C driver scores a pair a thread with as many queued behind
         * (vmaf_ref.c), reading the ring's frames in place: more pending
         * pairs would only hold more frames, each one's first use page
         * faults on fresh memory (a large share of a short run of a cheap
         * feature) */
        want = 2 * (int64_t)batch + p->v->lookahead;
        nslots = want + 2;
    }
    const int64_t fit = pair_bytes ? (int64_t)(p->s->ring_bytes / pair_bytes) : nslots;
    if (nslots > fit)
        nslots = fit;
    int64_t most = p->limit;
    const int64_t lr = frames_left(r[0]), ld = frames_left(r[1]);
    if (lr >= 0 && ld >= 0) {
        const int64_t files = lr < ld ? lr : ld;
        if (most < 0 || files < most)
            most = files;
    }
    if (most >= 0 && nslots > most + 2)
        nslots = most + 2;
    if (nslots < 4)
        nslots = 4;
    *depth = want;
    if (*depth > nslots - 2)
        *depth = nslots - 2;
    const fovea_memtype mem =
        fovea_context_backend(ctx) == FOVEA_BACKEND_CUDA ? FOVEA_MEM_PINNED : FOVEA_MEM_HOST;
    const int device_ok = fovea_vmaf_backend(p->v) == FOVEA_BACKEND_CUDA;
    for (int k = 0; k < 2; k++) {
        /* NVDEC's device frames are read in place by a CUDA scorer */
        const fovea_memtype m =
            device_ok && fovea_reader_hwdec(r[k]) == FOVEA_HWDEC_CUDA ? FOVEA_MEM_DEVICE : mem;
        fovea_read_ring_settings rs;
        fovea_read_ring_default_settings(&rs);
        rs.slots = (int)nslots;
        rs.limit = p->limit;
        rs.mem = m;
        FOVEA_TRY(fovea_read_ring_open(&p->ring[k], ctx, r[k], &rs));
        FOVEA_TRY(fovea_read_ring_start(p->ring[k]));
    }
    return FOVEA_OK;
}

/* The next pair. @return 1 with *fr and *fd, 0 at the end, or a read's
 * status (the reader's message recorded on the scorer's context) */
static int feed_next(pair_feed *p, fovea_frame **fr, fovea_frame **fd)
{
    if (p->limit >= 0 && p->taken >= p->limit)
        return 0;
    const char *mr = "", *md = "";
    const int sr = fovea_read_ring_take(p->ring[0], fr, &mr);
    int sd = FOVEA_EOF;
    /* the distorted input is not read past the reference's end, as a
     * sequential reader would not read it */
    if (sr == FOVEA_OK)
        sd = fovea_read_ring_take(p->ring[1], fd, &md);
    if (sr < 0 || sd < 0) {
        p->out->failed = sr < 0 ? 0 : 1;
        p->out->frame = p->taken;
        return fv_ctx_error(p->v->ctx, sr < 0 ? sr : sd, "%s", sr < 0 ? mr : md);
    }
    if (sr == FOVEA_OK && sd == FOVEA_OK) {
        p->taken++;
        return 1;
    }
    p->out->ended = sr == FOVEA_EOF ? 0 : 1;
    return 0;
}

/* Receive the ready scores while more than keep pairs are pending; every pair
 * that left the scorer's queue frees its frames (with subsample, those
 * between two scored frames leave it unreported). */
static int feed_receive(pair_feed *p, int64_t keep)
{
    int64_t pending = fovea_vmaf_pending(p->v);
    while (pending > keep) {
        const int st = fovea_vmaf_receive(p->v, NULL);
        if (st < 0 && st != FOVEA_AGAIN) {
            p->out->frame = p->done;
            return st;
        }
        const int64_t now = fovea_vmaf_pending(p->v);
        for (; pending > now; pending--) {
            fovea_read_ring_release(p->ring[0]);
            fovea_read_ring_release(p->ring[1]);
            p->done++;
        }
        if (st == FOVEA_AGAIN)
            break; /* the newest waits for its successor or for the flush */
        if (p->s->progress)
            p->s->progress(p->s->opaque, p->done);
    }
    return FOVEA_OK;
}

/* Submit the pairs as the readers deliver them, receive down to depth
 * pending, flush and receive the rest at the end. */
static int feed_run(pair_feed *p, int64_t depth)
{
    for (;;) {
        fovea_frame *fr = NULL, *fd = NULL;
        const int got = feed_next(p, &fr, &fd);
        if (got < 0)
            return got;
        if (got) {
            const int st = fovea_vmaf_submit(p->v, fr, fd);
            if (st < 0) {
                p->out->frame = p->taken - 1;
                return st;
            }
        } else
            fovea_vmaf_flush(p->v);
        FOVEA_TRY(feed_receive(p, got ? depth : 0));
        if (!got)
            return FOVEA_OK;
    }
}

int fovea_vmaf_score_readers(fovea_vmaf *v, fovea_reader *ref, fovea_reader *dis,
                             const fovea_vmaf_readers_settings *s, fovea_vmaf_readers_result *out)
{
    fovea_vmaf_readers_settings defaults;
    fovea_vmaf_readers_result res_local;
    if (!s) {
        fovea_vmaf_readers_default_settings(&defaults);
        s = &defaults;
    }
    if (!out)
        out = &res_local;
    memset(out, 0, sizeof(*out));
    out->failed = out->ended = -1;
    if (!v || !ref || !dis)
        return FOVEA_ERR_INVALID_ARG;
    if (v->q_count > 0)
        return fv_ctx_error(v->ctx, FOVEA_ERR_INVALID_ARG,
                            "vmaf: %d submitted pairs pending: receive them before scoring "
                            "readers",
                            v->q_count);
    if (s->ring_bytes == 0)
        return fv_ctx_error(v->ctx, FOVEA_ERR_INVALID_ARG, "vmaf: ring_bytes is 0");
    pair_feed p;
    memset(&p, 0, sizeof(p));
    p.v = v;
    p.limit = s->frames < 0 ? -1 : s->frames;
    p.s = s;
    p.out = out;
    fovea_reader *const r[2] = {ref, dis};
    int64_t depth = 0;
    int st = feed_start(&p, r, &depth);
    /* a ring frame is released only once its pair left the scorer: the C
     * driver reads the pairs in place instead of copying them */
    v->held_frames = 1;
    if (st == FOVEA_OK)
        st = feed_run(&p, depth);
    if (st < 0)
        /* the scorer may still read the rings' frames */
        fovea_vmaf_reset(v);
    v->held_frames = 0;
    out->pairs = p.taken;
    out->done = p.done;
    for (int k = 0; k < 2; k++)
        fovea_read_ring_close(&p.ring[k]);
    return st;
}
