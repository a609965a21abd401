/* CPU emulation check of src/stream/stream.cu against the C backend (encoder_cpu.c):
 * the maps, lists, offsets, coded bytes and reconstruction of the kernels run on
 * the CPU (scripts/stream-cuda-emu.sh) equal the C backend's, 11 formats x tiles
 * 8/16/64 x T 0/3 over 10 frames of a moving scene (EMU_BIG=1: 1080p-sized
 * frames; EMU_ONE=1: two cases). A development check, not a ctest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stream/stream_internal.h"
#include "stream/stream_cuda.h"

static int fails;
static long long modes[4];
static uint64_t rs = 88172645463325252ull;
static uint32_t rnd(uint32_t n) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (uint32_t)(rs % n); }

static size_t row_samples(const fovea_frame *f, int p)
{ return fovea_plane_row_bytes(f->fmt, f->width, p) / (size_t)fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample; }
static int get_s(const fovea_frame *f, int p, size_t i, int y)
{ const uint8_t *r = f->data[p] + (ptrdiff_t)y * f->stride[p];
  return fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample == 2 ? r[2*i] | r[2*i+1] << 8 : r[i]; }
static void set_s(fovea_frame *f, int p, size_t i, int y, int v)
{ uint8_t *r = f->data[p] + (ptrdiff_t)y * f->stride[p];
  if (fovea_pixfmt_get_desc(f->fmt)->bytes_per_sample == 2) { r[2*i] = (uint8_t)v; r[2*i+1] = (uint8_t)(v >> 8); } else r[i] = (uint8_t)v; }

static void scene(fovea_frame *f, int k)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    const int maxval = (1 << d->bit_depth) - 1;
    for (int p = 0; p < d->planes; p++) {
        const int ph = fovea_plane_height(f->fmt, f->height, p);
        const size_t n = row_samples(f, p);
        if (k == 0)
            for (int y = 0; y < ph; y++) for (size_t i = 0; i < n; i++)
                set_s(f, p, i, y, (int)(((size_t)y * 3 + i * 2 + (size_t)p * 40 + 17) * (size_t)maxval / (3 * (size_t)ph + 2 * n + 160)));
        const size_t bx = (size_t)k * 5 % n; const int by = (k * 3) % ph;
        for (int y = by; y < by + ph / 4 + 1 && y < ph; y++)
            for (size_t i = bx; i < bx + n / 4 + 1 && i < n; i++)
                set_s(f, p, i, y, (int)(((i - bx) * 37 + (size_t)(y - by) * 11 + (size_t)k * 5) % (size_t)(maxval + 1)));
        for (size_t i = 0; i < n; i++) { const int v = get_s(f, p, i, ph / 2) + (int)rnd(3); set_s(f, p, i, ph / 2, v > maxval ? 0 : v); }
        for (int j = 0; j < 3; j++) set_s(f, p, rnd((uint32_t)n), (int)rnd((uint32_t)ph), (int)rnd((uint32_t)maxval + 1));
        if (d->bytes_per_sample == 2 && d->bit_depth < 16 && k % 4 == 1)
            set_s(f, p, rnd((uint32_t)n), (int)rnd((uint32_t)ph), (int)rnd(65536));
        /* noise in a corner (random samples: RAW / TEMPORAL choices) */
        if (k % 3 == 2) for (int y = 0; y < ph / 3; y++) for (size_t i = 0; i < n / 3; i++) set_s(f, p, i, y, (int)rnd((uint32_t)maxval + 1));
    }
    if (d->is_rgb && d->components == 4) set_s(f, 0, 3, f->height - 1, (get_s(f, 0, 3, f->height - 1) + 1 + k) & maxval);
}

static void one(fovea_context *ctx, fovea_pixfmt fmt, int w, int h, int tile, int T, int frames)
{
    stream_geom g; char err[200];
    if (stream_geom_init(&g, w, h, fmt, tile, err, sizeof err) < 0) { printf("geom %s\n", err); exit(1); }
    stream_enc_params prm = {&g, T};
    void *priv = NULL;
    if (stream_enc_cpu.info.init(&priv, ctx, &prm) < 0) { printf("init\n"); exit(1); }
    fovea_frame src, rec; memset(&src, 0, sizeof src); memset(&rec, 0, sizeof rec);
    fovea_frame_alloc(NULL, &src, w, h, fmt, FOVEA_MEM_HOST);
    fovea_frame_alloc(NULL, &rec, w, h, fmt, FOVEA_MEM_HOST);
    memset(rec.data[0], 0x33, 16); /* garbage before the first keyframe */
    uint8_t *mapC = calloc(g.map_bytes + 1, 1), *mapG = calloc(g.map_bytes + 1, 1), *flags = calloc((size_t)g.tiles, 1);
    int32_t *sent = malloc((size_t)g.tiles * 4), *list = malloc((size_t)g.tiles * 4);
    unsigned long long *off = malloc((size_t)g.tiles * 8);
    size_t all = 0; for (int64_t t = 0; t < g.tiles; t++) all += stream_tile_bytes(&g, t);
    uint8_t *outC = malloc(all), *outG = malloc(all);
    int nf = fails;
    for (int k = 0; k < frames && fails == nf; k++) {
        scene(&src, k);
        const int have = k > 0, key = k == 0 || k % 7 == 0;
        int64_t changed;
        stream_enc_cpu.changes(priv, &src, have, key, mapC, &changed);
        stream_cuda_geom kg; memset(&kg, 0, sizeof kg);
        kg.tile = tile; kg.tiles_x = g.tiles_x; kg.tiles_y = g.tiles_y; kg.planes = g.planes;
        for (int p = 0; p < g.planes; p++) {
            kg.pl[p].pw = g.pl[p].pw; kg.pl[p].ph = g.pl[p].ph; kg.pl[p].sx = g.pl[p].sx; kg.pl[p].sy = g.pl[p].sy;
            kg.pl[p].cpp = g.pl[p].cpp; kg.pl[p].bps = g.pl[p].bps;
            kg.pl[p].src = src.data[p]; kg.pl[p].ss = src.stride[p]; kg.pl[p].rec = rec.data[p]; kg.pl[p].rs = rec.stride[p];
        }
        if (have) fv_stream_cuda_flags(&kg, T, flags, NULL);
        memset(mapG, 0xEE, g.map_bytes);
        fv_stream_cuda_scan(&kg, have ? flags : NULL, key, have ? mapG : NULL, list, off, NULL);
        if (have && memcmp(mapC, mapG, g.map_bytes)) { printf("  map differs frame %d\n", k); fails++; }
        int64_t n = 0; size_t bytes = 0;
        for (int64_t t = 0; t < g.tiles; t++)
            if (key || (mapC[t >> 3] >> (t & 7) & 1)) {
                if (list[n] != t || off[n] != bytes) { printf("  list/off differ at %lld\n", (long long)n); fails++; break; }
                sent[n++] = (int32_t)t; bytes += stream_tile_bytes(&g, t);
            }
        if (n == 0) continue;
        stream_enc_cpu.code_tiles(priv, &src, key, sent, n, outC, 0);
        stream_cuda_code_args a; memset(&a, 0, sizeof a);
        a.g = kg; a.key = key; a.n = (int)n; a.list = list; a.off = off; a.out = outG;
        stream_cost_table(a.cost);
        memset(outG, 0xCD, all);
        fv_stream_cuda_code(&a, NULL);
        if (memcmp(outC, outG, bytes)) { size_t i = 0; while (outC[i] == outG[i]) i++; printf("  coded bytes differ frame %d at %zu of %zu\n", k, i, bytes); fails++; }
        for (int64_t i = 0; i < n; i++) { size_t at = off[i]; for (int p = 0; p < g.planes; p++) { int x0, y0, bw, bh; stream_block(&g, p, sent[i], &x0, &y0, &bw, &bh); modes[outG[at] & 3]++; at += 1 + (size_t)bw * bh * g.pl[p].cpp * g.pl[p].bps; } }
        const fovea_frame *rc; stream_enc_cpu.reconstruction(priv, &rc);
        if (!fovea_frame_equal(rc, &rec)) { printf("  recon differs frame %d\n", k); fails++; }
    }
    printf("%s %dx%d tile %d T %d: %s\n", fovea_pixfmt_name(fmt), w, h, tile, T, fails == nf ? "ok" : "FAIL");
    stream_enc_cpu.info.close(&priv);
    fovea_frame_free(NULL, &src); fovea_frame_free(NULL, &rec);
    free(mapC); free(mapG); free(flags); free(sent); free(list); free(off); free(outC); free(outG);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    fovea_settings s; fovea_default_settings(&s); s.backend = FOVEA_BACKEND_CPU; s.threads = 1;
    fovea_context *ctx = NULL; fovea_open(&ctx, &s);
    static const struct { fovea_pixfmt f; int w, h; } F[] = {
        {FOVEA_PIX_I420, 67, 45}, {FOVEA_PIX_I420P10, 64, 48}, {FOVEA_PIX_I444, 70, 33}, {FOVEA_PIX_GRAY8, 81, 40},
        {FOVEA_PIX_GRAY16, 40, 27}, {FOVEA_PIX_RGBA, 66, 35}, {FOVEA_PIX_RGBA64, 33, 30}, {FOVEA_PIX_NV12, 72, 50},
        {FOVEA_PIX_RGB24, 65, 37}, {FOVEA_PIX_I422P12, 49, 31}, {FOVEA_PIX_RGB48, 21, 19}};
    static const int tiles[] = {8, 16, 64};
    if (getenv("EMU_BIG")) { one(ctx, FOVEA_PIX_GRAY8, 1921, 1081, 8, 3, 3); one(ctx, FOVEA_PIX_I420, 1920, 1080, 16, 0, 3); printf("%d failures\n", fails); return fails != 0; }
    if (getenv("EMU_ONE")) { one(ctx, FOVEA_PIX_I420, 67, 45, 16, 3, 10); one(ctx, FOVEA_PIX_I420P10, 64, 48, 8, 0, 10); printf("modes raw %lld temporal %lld spatial %lld tmed %lld\n", modes[0], modes[1], modes[2], modes[3]); printf("%d failures\n", fails); return fails != 0; }
    for (size_t i = 0; i < sizeof F / sizeof F[0]; i++)
        for (int t = 0; t < 3; t++)
            for (int T = 0; T <= 3; T += 3)
                one(ctx, F[i].f, F[i].w, F[i].h, tiles[t], T, 10);
    fovea_close(&ctx);
    printf("modes raw %lld temporal %lld spatial %lld tmed %lld\n", modes[0], modes[1], modes[2], modes[3]);
    printf("%d failures\n", fails);
    return fails != 0;
}
