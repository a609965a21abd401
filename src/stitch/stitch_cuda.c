/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CUDA stitch backend (host side): device copies of the map, per-tile camera
 * masks, correction tables, staging for host frames, and the overlap statistics
 * that travel back on a low-priority stream without stalling the stitch stream. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda_util.h"
#include "core/device.h"
#include "core/stage.h"
#include "stitch/multiband.h"
#include "stitch/stitch_cuda.h"
#include "stitch/stitch_internal.h"

_Static_assert(STITCH_STAT_FIELDS == FOVEA_ST_FIELDS, "stats layout shared with stitch.cu");
_Static_assert(STITCH_MAXC == FOVEA_STITCH_MAX_CAMERAS, "camera limit shared with stitch.cu");
_Static_assert(STITCH_LUT_SIZE == FOVEA_LUT_SIZE, "table size shared with stitch.cu");

#define STITCH_TEX_CACHE 8 /* texture objects kept per camera plane */

typedef struct tex_entry {
    cudaTextureObject_t obj;
    const void *ptr;
    size_t pitch;
    int w, h, channels;
    uint64_t used; /* cuda_state.tex_clock when last used */
} tex_entry;

typedef struct cuda_state {
    fovea_context *ctx; /* the stitcher's: its device and stream */
    const stitch_params *params;
    const fovea_stitch_map *map;
    int n; /* cameras */
    float *d_uv[FOVEA_STITCH_MAX_CAMERAS];
    /* the correction tables, one device block (uploaded by one copy from a
     * pinned h_tables block, tables_bytes each): n x 3 x FOVEA_LUT_SIZE floats at
     * d_lut, then at d_lut8 the same rounded (fv_round_u8), STITCH_LUT8_STRIDE
     * bytes per camera, then at d_chroma the YUV chroma tables (stitch_tables.chroma) */
    void *d_tables;
    float *d_lut;
    uint8_t *d_lut8;
    float *d_chroma;
    unsigned char *h_tables[2]; /* pinned staging, the same layout, used in turn */
    size_t tables_bytes, lut8_offset, chroma_offset;
    cudaEvent_t tables_copied[2]; /* the upload from h_tables[k] has read it */
    int tables_pending[2], tables_next;
    int *d_log; /* overlap-statistics log table */
    /* Hugin's photometric tables (stitch_params.photo), uploaded once, or NULL */
    uint16_t *d_photo_out;
    stitch_photo_cam *d_photo_cam[FOVEA_STITCH_MAX_CAMERAS];
    uint32_t *d_masks;
    float *d_tw;             /* overlap tiles' weights (stitch_kernel_args.tile_weights) */
    uint32_t *d_wofs;        /* per tile: offset of its planes in d_tw */
    uint32_t *d_stats_tiles; /* tiles the statistics pass makes (stitch_kernel_args) */
    stitch_item *d_items[2]; /* the texture path's block lists (stitch_kernel_head.items), */
    int item_count[2];       /* [0] for RGB inputs, [1] for YUV */
    int stats_tile_count;
    int tiles_x, tiles_y;
    unsigned long long *d_stats;
    unsigned long long *h_stats; /* pinned */
    cudaStream_t side;           /* low-priority stream for statistics read-back */
    cudaEvent_t stats_done_main; /* kernel with stats finished (main stream) */
    cudaEvent_t stats_ready;     /* copy to host finished (side stream) */
    int stats_pending;
    /* host inputs' device copies, pageable ones through pinned copies filled
     * on the context's threads (core/stage.h) */
    fv_stage in[FOVEA_STITCH_MAX_CAMERAS];
    /* texture objects of the input planes: the last STITCH_TEX_CACHE planes
     * each camera plane has seen (a decoder's pool of frames cycles through
     * several buffers), least recently used replaced */
    tex_entry tex[FOVEA_STITCH_MAX_CAMERAS][3][STITCH_TEX_CACHE];
    uint64_t tex_clock;
    int tex_align, tex_pitch_align;
    /* the output when the kernels cannot store into it: out.dev, and a
     * pageable output's pinned copy out.pin, emptied on the context's threads */
    fv_stage out;
} cuda_state;

/* ---- per-tile camera masks, from the reference weights ---- */
typedef struct mask_job {
    const fovea_stitch_map *m;
    uint32_t *masks;
    int tiles_x;
} mask_job;

static void mask_rows(void *arg, int begin, int end, int thread)
{
    const mask_job *job = arg;
    const fovea_stitch_map *m = job->m;
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    (void)thread;
    for (int ty = begin; ty < end; ty++) {
        for (int tx = 0; tx < job->tiles_x; tx++) {
            /* alone: cameras c for which every pixel so far is either seen by c
             * with weight exactly 1 and no other camera weighted, or not seen
             * by c and weighted by none (black) */
            uint32_t seen = 0, weighted = 0, everywhere = 0xffffu, alone = 0xffffu;
            for (int j = ty * STITCH_TILE_H; j < (ty + 1) * STITCH_TILE_H && j < m->pano_height;
                 j++) {
                for (int i = tx * STITCH_TILE_W; i < (tx + 1) * STITCH_TILE_W && i < m->pano_width;
                     i++) {
                    fv_map_weights(m, i, j, w, u, v);
                    uint32_t here = 0, wbits = 0;
                    for (int c = 0; c < m->num_cameras; c++) {
                        float uu, vv;
                        if (fv_map_lookup(m, c, i, j, &uu, &vv))
                            here |= 1u << c;
                        if (w[c] > 0.0f)
                            wbits |= 1u << c;
                    }
                    for (int c = 0; c < m->num_cameras; c++)
                        if (here >> c & 1u ? wbits != 1u << c || w[c] != 1.0f : wbits != 0)
                            alone &= ~(1u << c);
                    seen |= here;
                    weighted |= wbits;
                    everywhere &= here;
                }
            }
            uint32_t mask = seen | (weighted << 16);
            if (!m->cam[0].weight && weighted != 0 && (weighted & (weighted - 1)) == 0 &&
                (alone & weighted)) {
                /* one camera weighted, exactly 1 wherever it sees (the only
                 * camera seeing the tile, or the others seeing its pixels with
                 * weight 0 away from a seam): the kernels' single-camera path,
                 * which needs only its bit and whether it sees every pixel of a
                 * tile inside the panorama (interior) */
                /* a tile the panorama's right or bottom edge cuts counts too
                 * (the kernels clip their stores there), provided the
                 * panorama's sizes are even, so that every 2x2 chroma block
                 * inside it is whole, as the interior paths assume */
                int inside = (m->pano_width % 2 == 0 && m->pano_height % 2 == 0) ||
                             ((tx + 1) * STITCH_TILE_W <= m->pano_width &&
                              (ty + 1) * STITCH_TILE_H <= m->pano_height);
                mask = weighted | (inside && (everywhere & weighted) ? STITCH_TILE_INTERIOR : 0u);
            }
            job->masks[(size_t)ty * job->tiles_x + tx] = mask;
        }
    }
}

static int upload(fovea_context *ctx, void **dst, const void *src, size_t bytes)
{
    int st = fv_device_malloc(ctx, bytes, dst);
    if (st < 0)
        return st;
    return FOVEA_CUDA(
        ctx, cudaMemcpyAsync(*dst, src, bytes, cudaMemcpyHostToDevice, fv_ctx_stream(ctx)));
}

/* ---- the overlap tiles' weight table ---- */
/* A tile the kernels stitch without weights: one camera sees it, with analytic
 * weights (stitch.cu's `single`). */
static int single_tile(uint32_t mask, int explicit_weights)
{
    uint32_t seen = mask & 0xffffu;
    return !explicit_weights && seen != 0 && (seen & (seen - 1)) == 0;
}

typedef struct table_job {
    const fovea_stitch_map *m;
    const uint32_t *masks, *wofs;
    float *tab;
    int tiles_x, explicit_weights;
} table_job;

/* Every other tile with weighted cameras: one STITCH_TILE_W x STITCH_TILE_H plane
 * per camera of its weight mask (camera order) of fv_map_weights' values, 0
 * past the panorama's edges. */
static void table_rows(void *arg, int begin, int end, int thread)
{
    const table_job *job = arg;
    const fovea_stitch_map *m = job->m;
    float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS], v[FOVEA_STITCH_MAX_CAMERAS];
    (void)thread;
    for (int ty = begin; ty < end; ty++) {
        for (int tx = 0; tx < job->tiles_x; tx++) {
            size_t t = (size_t)ty * job->tiles_x + tx;
            uint32_t wmask = job->masks[t] >> 16;
            if (single_tile(job->masks[t], job->explicit_weights) || wmask == 0)
                continue;
            float *dst = job->tab + job->wofs[t];
            for (int r = 0; r < STITCH_TILE_H; r++) {
                for (int col = 0; col < STITCH_TILE_W; col++) {
                    int i = tx * STITCH_TILE_W + col, j = ty * STITCH_TILE_H + r;
                    int inside = i < m->pano_width && j < m->pano_height;
                    if (inside)
                        fv_map_weights(m, i, j, w, u, v);
                    int slot = 0;
                    for (int c = 0; c < m->num_cameras; c++) {
                        if (!(wmask >> c & 1u))
                            continue;
                        dst[((size_t)slot * STITCH_TILE_H + r) * STITCH_TILE_W + col] =
                            inside ? w[c] : 0.0f;
                        slot++;
                    }
                }
            }
        }
    }
}

/* Build and upload the weight table of the tiles that are not single-camera
 * tiles (stitch_kernel_args.tile_weights / tile_wofs). Its size is the number
 * of weighted cameras summed over those tiles times 8 KiB. */
static int weight_table(cuda_state *cs, const uint32_t *masks)
{
    fovea_context *ctx = cs->ctx;
    const fovea_stitch_map *m = cs->map;
    const int explicit_weights = m->cam[0].weight != NULL;
    const size_t nt = (size_t)cs->tiles_x * (size_t)cs->tiles_y;
    const size_t plane = (size_t)STITCH_TILE_W * STITCH_TILE_H;
    uint32_t *wofs = malloc(nt * sizeof(uint32_t));
    if (!wofs)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    size_t total = 0;
    for (size_t t = 0; t < nt; t++) {
        wofs[t] = (uint32_t)total;
        if (!single_tile(masks[t], explicit_weights))
            total += (size_t)__builtin_popcount(masks[t] >> 16) * plane;
        if (total > UINT32_MAX - plane * FOVEA_STITCH_MAX_CAMERAS) {
            free(wofs);
            return fv_ctx_error(ctx, FOVEA_ERR_NOMEM,
                                "the overlap weight table would exceed 16 GiB");
        }
    }
    float *tab = malloc((total ? total : 1) * sizeof(float));
    if (!tab) {
        free(wofs);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM,
                            "out of memory for the overlap weight table (%zu MiB)",
                            total * sizeof(float) >> 20);
    }
    table_job job = {m, masks, wofs, tab, cs->tiles_x, explicit_weights};
    fv_parallel_for(ctx, cs->tiles_y, 1, table_rows, &job);
    int status = upload(ctx, (void **)&cs->d_wofs, wofs, nt * sizeof(uint32_t));
    if (status == FOVEA_OK)
        status = upload(ctx, (void **)&cs->d_tw, tab, (total ? total : 1) * sizeof(float));
    /* the uploads read the host arrays: wait before freeing them */
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
    free(tab);
    free(wofs);
    return status;
}

static void cuda_free_state(cuda_state *cs)
{
    fovea_context *ctx = cs->ctx;
    cudaSetDevice(fovea_context_device(ctx));
    cudaStreamSynchronize(fv_ctx_stream(ctx));
    if (cs->side) {
        cudaStreamSynchronize(cs->side);
        cudaStreamDestroy(cs->side);
    }
    if (cs->stats_done_main)
        cudaEventDestroy(cs->stats_done_main);
    if (cs->stats_ready)
        cudaEventDestroy(cs->stats_ready);
    for (int k = 0; k < 2; k++)
        if (cs->tables_copied[k])
            cudaEventDestroy(cs->tables_copied[k]);
    for (int c = 0; c < FOVEA_STITCH_MAX_CAMERAS; c++) {
        for (int p = 0; p < 3; p++)
            for (int k = 0; k < STITCH_TEX_CACHE; k++)
                if (cs->tex[c][p][k].obj)
                    cudaDestroyTextureObject(cs->tex[c][p][k].obj);
        fv_device_free(ctx, cs->d_uv[c]);
        fv_stage_close(ctx, &cs->in[c]);
    }
    fv_stage_close(ctx, &cs->out);
    fv_device_free(ctx, cs->d_stats_tiles);
    fv_device_free(ctx, cs->d_items[0]);
    fv_device_free(ctx, cs->d_items[1]);
    fv_device_free(ctx, cs->d_tables);
    for (int k = 0; k < 2; k++)
        fv_pinned_free(ctx, cs->h_tables[k]);
    fv_device_free(ctx, cs->d_log);
    fv_device_free(ctx, cs->d_photo_out);
    for (int c = 0; c < FOVEA_STITCH_MAX_CAMERAS; c++)
        fv_device_free(ctx, cs->d_photo_cam[c]);
    fv_device_free(ctx, cs->d_masks);
    fv_device_free(ctx, cs->d_tw);
    fv_device_free(ctx, cs->d_wofs);
    fv_device_free(ctx, cs->d_stats);
    fv_pinned_free(ctx, cs->h_stats);
    free(cs);
}

/* The statistics pass's tiles: those whose weights reach two cameras or more
 * (a pixel adds to a pair's sums only where both its cameras weigh it), as a
 * list, so that the pass launches no blocks for the others. Before the
 * list, the pass ran over every tile and all but those left at once: on the
 * benchmark rig 5,355 blocks at 2 per SM for 195 with work, 34 us. */
static int stats_tiles(fovea_context *ctx, cuda_state *cs, const uint32_t *masks, size_t nt)
{
    uint32_t *list = malloc(nt * sizeof(uint32_t));
    if (!list)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    int count = 0;
    for (size_t t = 0; t < nt; t++) {
        uint32_t w = masks[t] >> 16 & 0xffffu;
        if (w & (w - 1))
            list[count++] = (uint32_t)t;
    }
    cs->stats_tile_count = count;
    int status = FOVEA_OK;
    if (count > 0) {
        status = upload(ctx, (void **)&cs->d_stats_tiles, list, (size_t)count * sizeof(uint32_t));
        /* the upload reads list */
        if (status == FOVEA_OK)
            status = FOVEA_CUDA(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
    }
    free(list);
    return status;
}

/* The texture path's block list (stitch_kernel_args.items): every tile in
 * raster order, one block each, except the tiles whose weights reach two
 * cameras or more and the single-camera tiles their camera does not see whole:
 * two blocks, side by side, each making one of every thread's two rows (RGB:
 * 4 x 1 pixels instead of 4 x 2; YUV: one chroma row, 4 x 2 luma pixels
 * instead of 4 x 4). Only for grid maps whose steps are all >= 4 (the paths
 * that take it); else no list. Bench rig, H100, frames back to back: RGBA
 * 55.4 -> 54.1 us, NV12 37.3-37.7 -> 34.6-34.7 (docs/notes/stitch.md). */
static int block_items(fovea_context *ctx, cuda_state *cs, const fovea_stitch_map *m,
                       const uint32_t *masks, size_t nt)
{
    const int explicit_weights = m->cam[0].weight != NULL;
    for (int c = 0; c < m->num_cameras; c++)
        if (m->cam[c].step < 4)
            return FOVEA_OK;
    stitch_item *list = malloc(4 * nt * sizeof(*list));
    if (!list)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    int status = FOVEA_OK;
    for (int yuv = 0; yuv < 2 && status == FOVEA_OK; yuv++) {
        size_t count = 0;
        for (size_t t = 0; t < nt; t++) {
            uint32_t w = masks[t] >> 16 & 0xffffu;
            /* blends cameras: 4 blocks (YUV) or 2 (RGB); a single-camera edge tile 2 */
            int parts =
                (w & (w - 1)) ? (yuv ? 4 : 2)
                : (single_tile(masks[t], explicit_weights) && !(masks[t] & STITCH_TILE_INTERIOR))
                    ? 2
                    : 0;
            if (!parts)
                list[count++] = (stitch_item){(uint32_t)t, masks[t]};
            for (uint32_t p = 1; p <= (uint32_t)parts; p++)
                list[count++] = (stitch_item){(uint32_t)t | p << STITCH_ITEM_PART_SHIFT, masks[t]};
        }
        status = upload(ctx, (void **)&cs->d_items[yuv], list, count * sizeof(*list));
        cs->item_count[yuv] = (int)count;
        /* the upload reads list */
        if (status == FOVEA_OK)
            status = FOVEA_CUDA(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
    }
    free(list);
    return status;
}

static int cuda_init(void **priv, fovea_context *ctx, const void *params)
{
    const stitch_params *p = params;
    const fovea_stitch_map *m = p->map;
    cuda_state *cs = calloc(1, sizeof(*cs));
    if (!cs)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
    cs->ctx = ctx;
    cs->params = p;
    cs->map = m;
    cs->n = m->num_cameras;
    int status = fv_device_activate(ctx);
    for (int c = 0; c < m->num_cameras && status == FOVEA_OK; c++) {
        const fv_camera_map *cm = &m->cam[c];
        status = upload(ctx, (void **)&cs->d_uv[c], cm->uv,
                        (size_t)cm->grid_w * (size_t)cm->grid_h * 2 * sizeof(float));
    }
    cs->tiles_x = (m->pano_width + STITCH_TILE_W - 1) / STITCH_TILE_W;
    cs->tiles_y = (m->pano_height + STITCH_TILE_H - 1) / STITCH_TILE_H;
    if (status == FOVEA_OK) {
        size_t nt = (size_t)cs->tiles_x * (size_t)cs->tiles_y;
        uint32_t *masks = malloc(nt * sizeof(uint32_t));
        if (!masks) {
            status = fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "out of memory");
        } else {
            mask_job job = {m, masks, cs->tiles_x};
            fv_parallel_for(ctx, cs->tiles_y, 1, mask_rows, &job);
            status = upload(ctx, (void **)&cs->d_masks, masks, nt * sizeof(uint32_t));
            if (status == FOVEA_OK)
                status = weight_table(cs, masks);
            if (status == FOVEA_OK)
                status = stats_tiles(ctx, cs, masks, nt);
            if (status == FOVEA_OK)
                status = block_items(ctx, cs, m, masks, nt);
            if (status == FOVEA_OK) /* the upload reads masks: wait before freeing */
                status = FOVEA_CUDA(ctx, cudaStreamSynchronize(fv_ctx_stream(ctx)));
            free(masks);
        }
    }
    cs->lut8_offset =
        ((size_t)m->num_cameras * 3 * FOVEA_LUT_SIZE * sizeof(float) + 255) & ~(size_t)255;
    cs->chroma_offset =
        (cs->lut8_offset + (size_t)m->num_cameras * STITCH_LUT8_STRIDE + 255) & ~(size_t)255;
    cs->tables_bytes =
        cs->chroma_offset + (size_t)m->num_cameras * sizeof(((const stitch_tables *)0)->chroma[0]);
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, cs->tables_bytes, &cs->d_tables);
    if (status == FOVEA_OK) {
        cs->d_lut = cs->d_tables;
        cs->d_lut8 = (uint8_t *)cs->d_tables + cs->lut8_offset;
        cs->d_chroma = (float *)((uint8_t *)cs->d_tables + cs->chroma_offset);
    }
    for (int k = 0; k < 2 && status == FOVEA_OK; k++) {
        status = fv_pinned_malloc(ctx, cs->tables_bytes, (void **)&cs->h_tables[k]);
        if (status == FOVEA_OK)
            memset(cs->h_tables[k], 0, cs->tables_bytes);
    }
    if (status == FOVEA_OK)
        status = upload(ctx, (void **)&cs->d_log, p->log_table,
                        FOVEA_LOG_TABLE_SIZE * sizeof(p->log_table[0]));
    if (status == FOVEA_OK && p->photo) {
        status = upload(ctx, (void **)&cs->d_photo_out, p->photo->out,
                        STITCH_PHOTO_OUT_SIZE * sizeof(uint16_t));
        for (int c = 0; c < m->num_cameras && status == FOVEA_OK; c++)
            if (p->photo->cam[c])
                status = upload(ctx, (void **)&cs->d_photo_cam[c], p->photo->cam[c],
                                sizeof(stitch_photo_cam));
    }
    if (status == FOVEA_OK)
        status = fv_device_malloc(ctx, sizeof(fv_overlap_stats), (void **)&cs->d_stats);
    if (status == FOVEA_OK)
        status = fv_pinned_malloc(ctx, sizeof(fv_overlap_stats), (void **)&cs->h_stats);
    if (status == FOVEA_OK) {
        int lo = 0, hi = 0;
        status = FOVEA_CUDA(ctx, cudaDeviceGetStreamPriorityRange(&lo, &hi));
        /* numerically larger = lower priority */
        if (status == FOVEA_OK)
            status =
                FOVEA_CUDA(ctx, cudaStreamCreateWithPriority(&cs->side, cudaStreamNonBlocking, lo));
    }
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaDeviceGetAttribute(&cs->tex_align, cudaDevAttrTextureAlignment,
                                                        fovea_context_device(ctx)));
    if (status == FOVEA_OK)
        status = FOVEA_CUDA(ctx, cudaDeviceGetAttribute(&cs->tex_pitch_align,
                                                        cudaDevAttrTexturePitchAlignment,
                                                        fovea_context_device(ctx)));
    if (status == FOVEA_OK)
        status =
            FOVEA_CUDA(ctx, cudaEventCreateWithFlags(&cs->stats_done_main, cudaEventDisableTiming));
    if (status == FOVEA_OK)
        status =
            FOVEA_CUDA(ctx, cudaEventCreateWithFlags(&cs->stats_ready, cudaEventDisableTiming));
    for (int k = 0; k < 2 && status == FOVEA_OK; k++)
        status = FOVEA_CUDA(
            ctx, cudaEventCreateWithFlags(&cs->tables_copied[k], cudaEventDisableTiming));
    if (status < 0)
        cuda_free_state(cs);
    else
        *priv = cs;
    return status;
}

/* The tables to the device in stream order (behind the frames queued so
 * far): gathered in a pinned staging block and sent by one asynchronous copy
 * (three copies from pageable memory cost more host time than the launch).
 * Two staging blocks in turn, so a new upload waits only for the one before
 * the last, not for the frame queued just before it. */
static int cuda_set_tables(void *priv, const stitch_tables *t)
{
    cuda_state *cs = priv;
    fovea_context *ctx = cs->ctx;
    const int k = cs->tables_next;
    if (cs->tables_pending[k]) /* that block's upload must have read it */
        FOVEA_CUDA_TRY(ctx, cudaEventSynchronize(cs->tables_copied[k]));
    cs->tables_pending[k] = 0;
    unsigned char *h = cs->h_tables[k];
    for (int c = 0; c < cs->n; c++) {
        memcpy(h + (size_t)c * 3 * FOVEA_LUT_SIZE * sizeof(float), t->lut[c], sizeof(t->lut[c]));
        memcpy(h + cs->lut8_offset + (size_t)c * STITCH_LUT8_STRIDE, t->lut8[c],
               sizeof(t->lut8[c]));
        memcpy(h + cs->chroma_offset + (size_t)c * sizeof(t->chroma[c]), t->chroma[c],
               sizeof(t->chroma[c]));
    }
    FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(cs->d_tables, h, cs->tables_bytes, cudaMemcpyHostToDevice,
                                        fv_ctx_stream(ctx)));
    FOVEA_CUDA_TRY(ctx, cudaEventRecord(cs->tables_copied[k], fv_ctx_stream(ctx)));
    cs->tables_pending[k] = 1;
    cs->tables_next = 1 - k;
    return FOVEA_OK;
}

/* A texture object over one 8-bit plane (1, 2 or 4 channels) with bilinear
 * filtering, unnormalized coordinates and normalized float reads; the last
 * STITCH_TEX_CACHE planes of each camera plane are kept, so frames from a pool
 * of up to that many buffers per camera create no objects and wait for
 * nothing. *obj = 0 when the plane is not aligned for textures. */
static int plane_texture(cuda_state *cs, int cam, int plane, const void *ptr, size_t pitch, int w,
                         int h, int channels, unsigned long long *obj)
{
    *obj = 0;
    if ((uintptr_t)ptr % (uintptr_t)cs->tex_align || pitch % (size_t)cs->tex_pitch_align)
        return FOVEA_OK;
    int slot = 0;
    for (int k = 0; k < STITCH_TEX_CACHE; k++) {
        tex_entry *e = &cs->tex[cam][plane][k];
        if (e->obj && e->ptr == ptr && e->pitch == pitch && e->w == w && e->h == h &&
            e->channels == channels) {
            e->used = ++cs->tex_clock;
            *obj = e->obj;
            return FOVEA_OK;
        }
        /* an empty entry, else the least recently used one */
        const tex_entry *best = &cs->tex[cam][plane][slot];
        if (best->obj && (!e->obj || e->used < best->used))
            slot = k;
    }
    if (cs->tex[cam][plane][slot].obj) {
        /* kernels queued with the old object must finish before it goes */
        FOVEA_CUDA_TRY(cs->ctx, cudaStreamSynchronize(fv_ctx_stream(cs->ctx)));
        cudaDestroyTextureObject(cs->tex[cam][plane][slot].obj);
        cs->tex[cam][plane][slot].obj = 0;
    }
    struct cudaResourceDesc rd;
    memset(&rd, 0, sizeof(rd));
    rd.resType = cudaResourceTypePitch2D;
    rd.res.pitch2D.devPtr = (void *)ptr;
    rd.res.pitch2D.desc =
        cudaCreateChannelDesc(8, channels >= 2 ? 8 : 0, channels >= 3 ? 8 : 0,
                              channels >= 4 ? 8 : 0, cudaChannelFormatKindUnsigned);
    rd.res.pitch2D.width = (size_t)w;
    rd.res.pitch2D.height = (size_t)h;
    rd.res.pitch2D.pitchInBytes = pitch;
    struct cudaTextureDesc td;
    memset(&td, 0, sizeof(td));
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeNormalizedFloat;
    td.normalizedCoords = 0;
    cudaTextureObject_t t = 0;
    FOVEA_CUDA_TRY(cs->ctx, cudaCreateTextureObject(&t, &rd, &td, NULL));
    cs->tex[cam][plane][slot] = (tex_entry){t, ptr, pitch, w, h, channels, ++cs->tex_clock};
    *obj = t;
    return FOVEA_OK;
}

/* Textures for every plane of camera c's device view; 0 in use_tex when one is
 * not possible (RGB24 has no 3-channel texture format; misaligned planes). */
static int camera_textures(cuda_state *cs, int c, const fovea_frame *v, stitch_kernel_cam *k,
                           int *use_tex)
{
    int cw = (v->width + 1) >> 1, ch = (v->height + 1) >> 1, status = FOVEA_OK;
    switch (v->fmt) {
    case FOVEA_PIX_RGBA:
        status = plane_texture(cs, c, 0, v->data[0], (size_t)v->stride[0], v->width, v->height, 4,
                               &k->tex0);
        *use_tex &= k->tex0 != 0;
        break;
    case FOVEA_PIX_NV12:
        status = plane_texture(cs, c, 0, v->data[0], (size_t)v->stride[0], v->width, v->height, 1,
                               &k->tex0);
        if (status == FOVEA_OK)
            status = plane_texture(cs, c, 1, v->data[1], (size_t)v->stride[1], cw, ch, 2, &k->tex1);
        *use_tex &= k->tex0 && k->tex1;
        break;
    case FOVEA_PIX_I420:
        status = plane_texture(cs, c, 0, v->data[0], (size_t)v->stride[0], v->width, v->height, 1,
                               &k->tex0);
        if (status == FOVEA_OK)
            status = plane_texture(cs, c, 1, v->data[1], (size_t)v->stride[1], cw, ch, 1, &k->tex1);
        if (status == FOVEA_OK)
            status = plane_texture(cs, c, 2, v->data[2], (size_t)v->stride[2], cw, ch, 1, &k->tex2);
        *use_tex &= k->tex0 && k->tex1 && k->tex2;
        break;
    default: *use_tex = 0; break;
    }
    return status;
}

/* Whether the kernels can store into a device output directly: RGBA rows are
 * written 16 bytes at a time, luma rows 4 bytes at a time (chroma stores check
 * their own alignment). A caller's frame that is not aligned so is staged. */
static int output_aligned(const fovea_frame *out)
{
    const uintptr_t a = out->fmt == FOVEA_PIX_RGBA ? 16 : 4;
    return (uintptr_t)out->data[0] % a == 0 && (uintptr_t)out->stride[0] % a == 0;
}

static int cuda_process(void *priv, const fovea_frame *const *in, fovea_frame *out, int want_stats)
{
    cuda_state *cs = priv;
    fovea_context *ctx = cs->ctx;
    const fovea_stitch_map *m = cs->map;
    int status = fv_device_activate(ctx);
    if (status < 0)
        return status;
    stitch_kernel_args a;
    memset(&a, 0, sizeof(a));
    /* the photometric correction runs on the exact path only (stitch_sample.cuh) */
    int use_tex = !cs->params->settings->cuda_exact_sampling &&
                  !(cs->params->photo && !stitch_input_is_yuv(fv_stitch_input_kind(in[0]->fmt)));
    for (int c = 0; c < cs->n; c++) {
        const fovea_frame *v = NULL;
        status = fv_stage_upload(ctx, &cs->in[c], in[c], &v);
        if (status < 0)
            return status;
        stitch_kernel_cam *k = &a.cam[c];
        const fv_camera_map *cm = &m->cam[c];
        k->uv = cs->d_uv[c];
        k->lut = cs->d_lut + (size_t)c * 3 * FOVEA_LUT_SIZE;
        k->lut8 = cs->d_lut8 + (size_t)c * STITCH_LUT8_STRIDE;
        k->plane0 = v->data[0];
        k->plane1 = v->data[1];
        k->plane2 = v->data[2];
        k->stride0 = (int)v->stride[0];
        k->stride1 = (int)v->stride[1];
        k->stride2 = (int)v->stride[2];
        k->width = cm->cam_width;
        k->height = cm->cam_height;
        k->grid_w = cm->grid_w;
        int shift = 0;
        while ((1 << shift) < cm->step)
            shift++;
        k->step_shift = shift;
        k->px_scale = cm->px_scale;
        k->clip_cx = cm->clip_cx;
        k->clip_cy = cm->clip_cy;
        k->clip_rx = cm->clip_rx;
        k->clip_ry = cm->clip_ry;
        /* the kernel multiplies by these: the same floats map.c divides out */
        k->clip_irx = cm->clip_rx > 0.0f ? 1.0f / cm->clip_rx : 0.0f;
        k->clip_iry = cm->clip_rx > 0.0f ? 1.0f / cm->clip_ry : 0.0f;
        k->chroma = cs->d_chroma + (size_t)c * STITCH_CHROMA_CODES * 4;
        k->photo = (const float *)cs->d_photo_cam[c];
        if (use_tex) {
            status = camera_textures(cs, c, v, k, &use_tex);
            if (status < 0)
                return status;
        }
    }
    a.h.use_tex = use_tex;
    a.h.min_step_shift = a.cam[0].step_shift;
    for (int c = 1; c < cs->n; c++)
        if (a.cam[c].step_shift < a.h.min_step_shift)
            a.h.min_step_shift = a.cam[c].step_shift;
    fovea_frame *dst = out;
    if (out->mem != FOVEA_MEM_DEVICE || !output_aligned(out)) {
        /* outputs are all the panorama's size (stitch.c checks) */
        status = fv_frame_ensure(ctx, &cs->out.dev, out, FOVEA_MEM_DEVICE);
        if (status < 0)
            return status;
        dst = &cs->out.dev;
    }
    a.h.n = cs->n;
    a.h.pano_w = m->pano_width;
    a.h.pano_h = m->pano_height;
    a.h.feather = m->feather;
    a.h.explicit_weights = m->cam[0].weight != NULL;
    a.h.tile_masks = cs->d_masks;
    a.h.tile_weights = cs->d_tw;
    a.h.tile_wofs = cs->d_wofs;
    a.h.tiles_x = cs->tiles_x;
    a.h.out0 = dst->data[0];
    a.h.out1 = dst->data[1];
    a.h.out2 = dst->data[2];
    a.h.out_stride0 = (int)dst->stride[0];
    a.h.out_stride1 = (int)dst->stride[1];
    a.h.out_stride2 = (int)dst->stride[2];
    a.h.in_format = fv_stitch_input_kind(in[0]->fmt);
    a.h.yuv_flags = fv_stitch_yuv_flags(cs->params->settings);
    a.h.black_y = stitch_black_y(a.h.yuv_flags);
    const int yuv = stitch_input_is_yuv(a.h.in_format);
    if (use_tex && cs->d_items[yuv]) { /* made only when every step is >= 4 */
        a.h.items = cs->d_items[yuv];
        a.h.item_count = cs->item_count[yuv];
    }
    /* every photometric stitch reads the output table, with or without stats */
    a.h.photo_out = cs->d_photo_out;
    int stats = want_stats && !cs->stats_pending;
    if (stats) {
        FOVEA_CUDA_TRY(
            ctx, cudaMemsetAsync(cs->d_stats, 0, sizeof(fv_overlap_stats), fv_ctx_stream(ctx)));
        a.h.stats = cs->d_stats;
        a.h.log_table = cs->d_log;
        a.h.stats_tiles = cs->d_stats_tiles;
        a.h.stats_tile_count = cs->stats_tile_count;
    }
    FOVEA_CUDA_TRY(ctx, fv_stitch_launch(&a, fv_ctx_stream(ctx)));
    if (stats) {
        /* the read-back waits for this kernel on the side stream; the stitch
         * stream goes straight on to the next frame */
        FOVEA_CUDA_TRY(ctx, cudaEventRecord(cs->stats_done_main, fv_ctx_stream(ctx)));
        FOVEA_CUDA_TRY(ctx, cudaStreamWaitEvent(cs->side, cs->stats_done_main, 0));
        FOVEA_CUDA_TRY(ctx, cudaMemcpyAsync(cs->h_stats, cs->d_stats, sizeof(fv_overlap_stats),
                                            cudaMemcpyDeviceToHost, cs->side));
        FOVEA_CUDA_TRY(ctx, cudaEventRecord(cs->stats_ready, cs->side));
        cs->stats_pending = 1;
    }
    if (dst != out && out->mem == FOVEA_MEM_HOST) {
        /* a pageable output: through out.pin, complete on return */
        FOVEA_TRY(fv_frame_ensure(ctx, &cs->out.pin, out, FOVEA_MEM_PINNED));
        FOVEA_TRY(fovea_frame_copy(ctx, &cs->out.pin, dst));
        FOVEA_TRY(fovea_sync(ctx));
        return fv_frame_copy_host(ctx, out, &cs->out.pin);
    }
    /* a pinned output is waited for by fovea_stitcher_process, not by the
     * async variant */
    if (dst != out)
        return fovea_frame_copy(ctx, out, dst);
    return FOVEA_OK;
}

static int cuda_poll_stats(void *priv, fv_overlap_stats *stats, int wait)
{
    cuda_state *cs = priv;
    fovea_context *ctx = cs->ctx;
    if (!cs->stats_pending)
        return 0;
    if (wait) {
        FOVEA_CUDA_TRY(ctx, cudaEventSynchronize(cs->stats_ready));
    } else {
        cudaError_t e = cudaEventQuery(cs->stats_ready);
        if (e == cudaErrorNotReady)
            return 0;
        FOVEA_CUDA_TRY(ctx, e);
    }
    memcpy(stats, cs->h_stats, sizeof(*stats));
    cs->stats_pending = 0;
    return 1;
}

static void cuda_close(void **priv)
{
    if (*priv)
        cuda_free_state(*priv);
    *priv = NULL;
}

const stitch_backend stitch_backend_cuda = {
    {"cuda", FOVEA_BACKEND_CUDA, BACKEND_READS_DEVICE | BACKEND_ASYNC, cuda_init, cuda_close},
    cuda_process,
    cuda_poll_stats,
    cuda_set_tables,
    &multiband_cuda_ops,
};
