/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Stitch map file format (docs/map-format.md): header parsing and validation,
 * payload streaming with CRC-32, save/load/encode/decode, camera checks. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "core/core.h"
#include "fovea/io.h"
#include "io/io_buf.h"
#include "stitch/map_file.h"

#define FIXED_HEADER 36  /* magic, version, header size, pano w/h, cameras, feather, flags */
#define CAMERA_RECORD 40 /* cam w/h, step, grid w/h, px_scale, clip cx/cy/rx/ry */
#define HEADER_TAIL 16   /* payload size (u64), payload CRC, header CRC */
#define MAX_HEADER (FIXED_HEADER + FOVEA_STITCH_MAX_CAMERAS * CAMERA_RECORD + HEADER_TAIL)
#define IO_CHUNK ((size_t)1 << 20)

typedef struct map_header {
    uint32_t version, header_size;
    uint32_t pano_w, pano_h, num_cameras, flags;
    float feather;
    struct {
        uint32_t w, h, step, grid_w, grid_h;
        float px_scale;
        float clip_cx, clip_cy, clip_rx, clip_ry;
    } cam[FOVEA_STITCH_MAX_CAMERAS];
    uint64_t payload_size;
    uint32_t payload_crc;
} map_header;

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static int
set_err(char *err, size_t errsz, int status, const char *name, const char *fmt, ...)
{
    if (!err || errsz == 0)
        return status;
    size_t n = 0;
    err[0] = '\0';
    if (name) {
        int k = snprintf(err, errsz, "%s: ", name);
        if (k < 0 || (size_t)k >= errsz)
            return status;
        n = (size_t)k;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errsz - n, fmt, ap);
    va_end(ap);
    return status;
}

/* ---- little-endian fields ---- */

static uint32_t rd_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd_u64(const uint8_t *p)
{
    return (uint64_t)rd_u32(p) | (uint64_t)rd_u32(p + 4) << 32;
}

static float rd_f32(const uint8_t *p)
{
    uint32_t u = rd_u32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void wr_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void wr_u64(uint8_t *p, uint64_t v)
{
    wr_u32(p, (uint32_t)v);
    wr_u32(p + 4, (uint32_t)(v >> 32));
}

static void wr_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    wr_u32(p, u);
}

static int host_is_le(void)
{
    uint32_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* zlib's crc32 takes a uInt length: feed large buffers in pieces. */
static uLong crc_update(uLong crc, const uint8_t *p, size_t n)
{
    while (n) {
        size_t k = n < IO_CHUNK ? n : IO_CHUNK;
        crc = crc32(crc, p, (uInt)k);
        p += k;
        n -= k;
    }
    return crc;
}

static uint32_t header_size_for(uint32_t num_cameras)
{
    return FIXED_HEADER + num_cameras * CAMERA_RECORD + HEADER_TAIL;
}

/* Bytes of payload the header implies (fits u64 for every valid header). */
static uint64_t payload_bytes(const map_header *h)
{
    uint64_t total = 0;
    for (uint32_t c = 0; c < h->num_cameras; c++)
        total += (uint64_t)h->cam[c].grid_w * h->cam[c].grid_h * 2 * sizeof(float);
    if (h->flags & FOVEA_MAP_FLAG_WEIGHTS)
        total += (uint64_t)h->num_cameras * h->pano_w * h->pano_h * sizeof(float);
    return total;
}

static int valid_step(uint32_t s)
{
    return s == 1 || s == 2 || s == 4 || s == 8 || s == 16 || s == 32;
}

/* Range checks shared by load (status CORRUPT) and save (status INVALID_ARG). */
static int check_header_fields(const map_header *h, int status, const char *name, char *err,
                               size_t errsz)
{
    if (h->num_cameras < 1 || h->num_cameras > FOVEA_STITCH_MAX_CAMERAS)
        return set_err(err, errsz, status, name, "num_cameras %u out of range (1..%d)",
                       h->num_cameras, FOVEA_STITCH_MAX_CAMERAS);
    if (h->pano_w < 1 || h->pano_w > FOVEA_MAP_MAX_DIM || h->pano_h < 1 ||
        h->pano_h > FOVEA_MAP_MAX_DIM)
        return set_err(err, errsz, status, name, "panorama size %ux%u out of range (1..%d)",
                       h->pano_w, h->pano_h, FOVEA_MAP_MAX_DIM);
    if (!isfinite(h->feather) || h->feather < 0.0f)
        return set_err(err, errsz, status, name, "feather %g is not a finite value >= 0",
                       (double)h->feather);
    if (h->flags & ~FOVEA_MAP_FLAG_WEIGHTS)
        return set_err(err, errsz, status, name, "unknown flags 0x%x", h->flags);
    for (uint32_t c = 0; c < h->num_cameras; c++) {
        uint32_t w = h->cam[c].w, ht = h->cam[c].h, step = h->cam[c].step;
        if (w < 1 || w > FOVEA_MAP_MAX_DIM || ht < 1 || ht > FOVEA_MAP_MAX_DIM)
            return set_err(err, errsz, status, name, "camera %u: size %ux%u out of range (1..%d)",
                           c, w, ht, FOVEA_MAP_MAX_DIM);
        if (!valid_step(step))
            return set_err(err, errsz, status, name,
                           "camera %u: grid step %u is not 1, 2, 4, 8, 16 or 32", c, step);
        uint32_t gw = (h->pano_w - 1) / step + 2, gh = (h->pano_h - 1) / step + 2;
        if (h->cam[c].grid_w != gw || h->cam[c].grid_h != gh)
            return set_err(err, errsz, status, name,
                           "camera %u: grid %ux%u does not match panorama %ux%u at step %u "
                           "(expected grid_w %u, grid_h %u)",
                           c, h->cam[c].grid_w, h->cam[c].grid_h, h->pano_w, h->pano_h, step, gw,
                           gh);
        float s = h->cam[c].px_scale;
        if (!isfinite(s) || !(s > 0.0f))
            return set_err(err, errsz, status, name,
                           "camera %u: px_scale %g is not a finite value > 0", c, (double)s);
        /* clip_rx = 0: no visibility ellipse; otherwise both radii are positive. */
        float cx = h->cam[c].clip_cx, cy = h->cam[c].clip_cy;
        float rx = h->cam[c].clip_rx, ry = h->cam[c].clip_ry;
        if (!isfinite(cx) || !isfinite(cy) || !isfinite(rx) || !isfinite(ry) || rx < 0.0f ||
            ry < 0.0f || (rx > 0.0f && !(ry > 0.0f)))
            return set_err(err, errsz, status, name,
                           "camera %u: clip ellipse (%g,%g) radii %g,%g is invalid", c, (double)cx,
                           (double)cy, (double)rx, (double)ry);
    }
    return FOVEA_OK;
}

/* Parse and validate a header from the first `avail` bytes of a file. */
static int parse_header(const uint8_t *buf, size_t avail, map_header *h, const char *name,
                        char *err, size_t errsz)
{
    memset(h, 0, sizeof(*h));
    if (avail < 8 || memcmp(buf, FOVEA_MAP_MAGIC, 8) != 0)
        return set_err(err, errsz, FOVEA_ERR_CORRUPT, name, "not a fovea map file (bad magic)");
    if (avail < FIXED_HEADER)
        return set_err(err, errsz, FOVEA_ERR_CORRUPT, name,
                       "truncated: header has %zu of at least %d bytes", avail, FIXED_HEADER);
    h->version = rd_u32(buf + 8);
    if (h->version != FOVEA_MAP_VERSION)
        return set_err(err, errsz, FOVEA_ERR_CORRUPT, name,
                       "unsupported map version %u (this build reads %d)", h->version,
                       FOVEA_MAP_VERSION);
    h->header_size = rd_u32(buf + 12);
    h->pano_w = rd_u32(buf + 16);
    h->pano_h = rd_u32(buf + 20);
    h->num_cameras = rd_u32(buf + 24);
    h->feather = rd_f32(buf + 28);
    h->flags = rd_u32(buf + 32);
    /* The camera count sizes the header, so it is checked before the header CRC. */
    if (h->num_cameras < 1 || h->num_cameras > FOVEA_STITCH_MAX_CAMERAS)
        return set_err(err, errsz, FOVEA_ERR_CORRUPT, name, "num_cameras %u out of range (1..%d)",
                       h->num_cameras, FOVEA_STITCH_MAX_CAMERAS);
    uint32_t hs = header_size_for(h->num_cameras);
    if (h->header_size != hs)
        return set_err(err, errsz, FOVEA_ERR_CORRUPT, name,
                       "header size %u does not match %u cameras (expected %u)", h->header_size,
                       h->num_cameras, hs);
    if (avail < hs)
        return set_err(err, errsz, FOVEA_ERR_CORRUPT, name, "truncated: header has %zu of %u bytes",
                       avail, hs);
    uint32_t stored_crc = rd_u32(buf + hs - 4);
    uint32_t crc = (uint32_t)crc_update(crc32(0L, Z_NULL, 0), buf, hs - 4);
    if (crc != stored_crc)
        return set_err(err, errsz, FOVEA_ERR_CORRUPT, name,
                       "header checksum mismatch: file is corrupt");
    const uint8_t *p = buf + FIXED_HEADER;
    for (uint32_t c = 0; c < h->num_cameras; c++, p += CAMERA_RECORD) {
        h->cam[c].w = rd_u32(p);
        h->cam[c].h = rd_u32(p + 4);
        h->cam[c].step = rd_u32(p + 8);
        h->cam[c].grid_w = rd_u32(p + 12);
        h->cam[c].grid_h = rd_u32(p + 16);
        h->cam[c].px_scale = rd_f32(p + 20);
        h->cam[c].clip_cx = rd_f32(p + 24);
        h->cam[c].clip_cy = rd_f32(p + 28);
        h->cam[c].clip_rx = rd_f32(p + 32);
        h->cam[c].clip_ry = rd_f32(p + 36);
    }
    h->payload_size = rd_u64(p);
    h->payload_crc = rd_u32(p + 8);
    int rc = check_header_fields(h, FOVEA_ERR_CORRUPT, name, err, errsz);
    if (rc != FOVEA_OK)
        return rc;
    uint64_t expect = payload_bytes(h);
    if (h->payload_size != expect)
        return set_err(err, errsz, FOVEA_ERR_CORRUPT, name,
                       "payload size %llu does not match the header (expected %llu)",
                       (unsigned long long)h->payload_size, (unsigned long long)expect);
    return FOVEA_OK;
}

/* Compare the declared payload with the bytes actually present. */
static int check_extent(uint64_t present, uint64_t declared, const char *name, char *err,
                        size_t errsz)
{
    if (present < declared)
        return set_err(err, errsz, FOVEA_ERR_CORRUPT, name,
                       "truncated: payload has %llu of %llu bytes", (unsigned long long)present,
                       (unsigned long long)declared);
    if (present > declared)
        return set_err(err, errsz, FOVEA_ERR_CORRUPT, name, "%llu bytes of trailing data",
                       (unsigned long long)(present - declared));
    if (declared > (uint64_t)SIZE_MAX)
        return set_err(err, errsz, FOVEA_ERR_NOMEM, name,
                       "payload of %llu bytes does not fit in memory",
                       (unsigned long long)declared);
    return FOVEA_OK;
}

/* Grid nodes may be NaN (undefined) but never infinite; weights are finite, >= 0. */
static int check_values(const fovea_stitch_map *m, int status, const char *name, char *err,
                        size_t errsz)
{
    size_t npix = (size_t)m->pano_width * (size_t)m->pano_height;
    for (int c = 0; c < m->num_cameras; c++) {
        const fv_camera_map *cam = &m->cam[c];
        size_t n = (size_t)cam->grid_w * (size_t)cam->grid_h * 2;
        for (size_t k = 0; k < n; k++) {
            if (isinf(cam->uv[k])) {
                size_t node = k / 2;
                return set_err(err, errsz, status, name,
                               "camera %d: grid node (%zu,%zu) has an infinite %c coordinate", c,
                               node % (size_t)cam->grid_w, node / (size_t)cam->grid_w,
                               (k & 1) ? 'v' : 'u');
            }
        }
        if (!cam->weight)
            continue;
        for (size_t k = 0; k < npix; k++) {
            float w = cam->weight[k];
            if (!isfinite(w) || w < 0.0f)
                return set_err(err, errsz, status, name,
                               "camera %d: weight %g at pixel (%zu,%zu) is negative or not "
                               "finite",
                               c, (double)w, k % (size_t)m->pano_width, k / (size_t)m->pano_width);
        }
    }
    return FOVEA_OK;
}

/* ---- payload reading: from memory or a FILE, with a running CRC ---- */

typedef struct payload_src {
    int from_file;
    const uint8_t *mem;
    size_t mem_left;
    FILE *fp;
    uLong crc;
} payload_src;

static int src_read_floats(payload_src *s, float *dst, size_t count)
{
    uint8_t *d = (uint8_t *)dst;
    size_t n = count * sizeof(float); /* count is bounded by the checked payload size */
    while (n) {
        size_t k = n < IO_CHUNK ? n : IO_CHUNK;
        if (s->from_file) {
            if (fread(d, 1, k, s->fp) != k)
                return -1;
        } else {
            if (k > s->mem_left)
                return -1;
            memcpy(d, s->mem, k);
            s->mem += k;
            s->mem_left -= k;
        }
        s->crc = crc_update(s->crc, d, k);
        d += k;
        n -= k;
    }
    if (!host_is_le()) {
        for (size_t i = 0; i < count; i++) {
            uint8_t b[4];
            memcpy(b, &dst[i], 4);
            dst[i] = rd_f32(b);
        }
    }
    return 0;
}

static int short_read(payload_src *s, const char *name, char *err, size_t errsz)
{
    if (s->from_file && ferror(s->fp))
        return set_err(err, errsz, FOVEA_ERR_IO, name, "read error: %s", strerror(errno));
    return set_err(err, errsz, FOVEA_ERR_CORRUPT, name, "truncated: payload ended early");
}

/* Allocate m from a validated header and fill it from the payload. */
static int read_payload(const map_header *h, payload_src *s, fovea_stitch_map *m, const char *name,
                        char *err, size_t errsz)
{
    int rc;
    memset(m, 0, sizeof(*m));
    m->pano_width = (int)h->pano_w;
    m->pano_height = (int)h->pano_h;
    m->num_cameras = (int)h->num_cameras;
    m->feather = h->feather;
    s->crc = crc32(0L, Z_NULL, 0);
    for (int c = 0; c < m->num_cameras; c++) {
        fv_camera_map *cam = &m->cam[c];
        rc = fv_camera_map_alloc(cam, m->pano_width, m->pano_height, (int)h->cam[c].step);
        if (rc != FOVEA_OK) {
            set_err(err, errsz, rc, name, "cannot allocate the grid of camera %d", c);
            goto fail;
        }
        cam->cam_width = (int)h->cam[c].w;
        cam->cam_height = (int)h->cam[c].h;
        cam->px_scale = h->cam[c].px_scale;
        cam->clip_cx = h->cam[c].clip_cx;
        cam->clip_cy = h->cam[c].clip_cy;
        cam->clip_rx = h->cam[c].clip_rx;
        cam->clip_ry = h->cam[c].clip_ry;
        if ((uint32_t)cam->grid_w != h->cam[c].grid_w ||
            (uint32_t)cam->grid_h != h->cam[c].grid_h) {
            rc = set_err(err, errsz, FOVEA_ERR_INTERNAL, name,
                         "camera %d: allocated grid disagrees with the file", c);
            goto fail;
        }
        if (src_read_floats(s, cam->uv, (size_t)cam->grid_w * (size_t)cam->grid_h * 2) != 0) {
            rc = short_read(s, name, err, errsz);
            goto fail;
        }
    }
    if (h->flags & FOVEA_MAP_FLAG_WEIGHTS) {
        size_t npix = (size_t)h->pano_w * (size_t)h->pano_h;
        for (int c = 0; c < m->num_cameras; c++) {
            m->cam[c].weight = malloc(npix * sizeof(float));
            if (!m->cam[c].weight) {
                rc = set_err(err, errsz, FOVEA_ERR_NOMEM, name,
                             "cannot allocate the weights of camera %d", c);
                goto fail;
            }
            if (src_read_floats(s, m->cam[c].weight, npix) != 0) {
                rc = short_read(s, name, err, errsz);
                goto fail;
            }
        }
    }
    if ((uint32_t)s->crc != h->payload_crc) {
        rc = set_err(err, errsz, FOVEA_ERR_CORRUPT, name, "checksum mismatch: file is corrupt");
        goto fail;
    }
    rc = check_values(m, FOVEA_ERR_CORRUPT, name, err, errsz);
    if (rc != FOVEA_OK)
        goto fail;
    return FOVEA_OK;
fail:
    fv_stitch_map_free(m);
    memset(m, 0, sizeof(*m));
    return rc;
}

int fv_map_decode(const uint8_t *data, size_t size, fovea_stitch_map *m, char *err, size_t errsz)
{
    const char *name = "map data";
    if (!m || (!data && size))
        return set_err(err, errsz, FOVEA_ERR_INVALID_ARG, name, "NULL argument");
    memset(m, 0, sizeof(*m));
    map_header h;
    int rc = parse_header(data, data ? size : 0, &h, name, err, errsz);
    if (rc != FOVEA_OK)
        return rc;
    rc = check_extent(size - h.header_size, h.payload_size, name, err, errsz);
    if (rc != FOVEA_OK)
        return rc;
    payload_src s = {0};
    s.mem = data + h.header_size;
    s.mem_left = size - h.header_size;
    return read_payload(&h, &s, m, name, err, errsz);
}

int fv_map_load(const char *path, fovea_stitch_map *m, char *err, size_t errsz)
{
    if (!path || !m)
        return set_err(err, errsz, FOVEA_ERR_INVALID_ARG, "map", "NULL argument");
    memset(m, 0, sizeof(*m));
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return set_err(err, errsz, FOVEA_ERR_IO, path, "cannot open: %s", strerror(errno));
    int rc;
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = set_err(err, errsz, FOVEA_ERR_IO, path, "not a regular file");
        goto done;
    }
    uint8_t buf[MAX_HEADER];
    size_t got = fread(buf, 1, FIXED_HEADER, fp);
    if (got == FIXED_HEADER) {
        /* Read the rest of the header when the camera count is plausible; otherwise
         * parse_header reports the problem from the fixed part alone. */
        uint32_t n = rd_u32(buf + 24);
        if (n >= 1 && n <= FOVEA_STITCH_MAX_CAMERAS) {
            size_t hs = header_size_for(n);
            got += fread(buf + got, 1, hs - got, fp);
        }
    }
    if (ferror(fp)) {
        rc = set_err(err, errsz, FOVEA_ERR_IO, path, "read error: %s", strerror(errno));
        goto done;
    }
    map_header h;
    rc = parse_header(buf, got, &h, path, err, errsz);
    if (rc != FOVEA_OK)
        goto done;
    uint64_t file_size = (uint64_t)st.st_size;
    uint64_t present = file_size > h.header_size ? file_size - h.header_size : 0;
    rc = check_extent(present, h.payload_size, path, err, errsz);
    if (rc != FOVEA_OK)
        goto done;
    payload_src s = {0};
    s.from_file = 1;
    s.fp = fp;
    rc = read_payload(&h, &s, m, path, err, errsz);
    if (rc == FOVEA_OK && fgetc(fp) != EOF) {
        /* The file grew after it was measured. */
        fv_stitch_map_free(m);
        memset(m, 0, sizeof(*m));
        rc = set_err(err, errsz, FOVEA_ERR_CORRUPT, path, "trailing data after the payload");
    }
done:
    fclose(fp);
    return rc;
}

/* ---- writing ---- */

/* Build and validate the header of m (everything but the payload CRC). */
static int header_from_map(const fovea_stitch_map *m, map_header *h, const char *name, char *err,
                           size_t errsz)
{
    memset(h, 0, sizeof(*h));
    if (!m)
        return set_err(err, errsz, FOVEA_ERR_INVALID_ARG, name, "NULL map");
    if (m->num_cameras < 1 || m->num_cameras > FOVEA_STITCH_MAX_CAMERAS)
        return set_err(err, errsz, FOVEA_ERR_INVALID_ARG, name,
                       "num_cameras %d out of range (1..%d)", m->num_cameras,
                       FOVEA_STITCH_MAX_CAMERAS);
    int has_weights = m->cam[0].weight != NULL;
    for (int c = 0; c < m->num_cameras; c++) {
        if (!m->cam[c].uv)
            return set_err(err, errsz, FOVEA_ERR_INVALID_ARG, name, "camera %d has no grid", c);
        if ((m->cam[c].weight != NULL) != has_weights)
            return set_err(err, errsz, FOVEA_ERR_INVALID_ARG, name,
                           "camera %d %s explicit weights but camera 0 %s", c,
                           has_weights ? "lacks" : "has", has_weights ? "has them" : "does not");
    }
    h->version = FOVEA_MAP_VERSION;
    h->num_cameras = (uint32_t)m->num_cameras;
    h->header_size = header_size_for(h->num_cameras);
    /* Negative ints become huge u32 values and fail the range checks. */
    h->pano_w = (uint32_t)m->pano_width;
    h->pano_h = (uint32_t)m->pano_height;
    h->feather = m->feather;
    h->flags = has_weights ? FOVEA_MAP_FLAG_WEIGHTS : 0;
    for (int c = 0; c < m->num_cameras; c++) {
        const fv_camera_map *cam = &m->cam[c];
        h->cam[c].w = (uint32_t)cam->cam_width;
        h->cam[c].h = (uint32_t)cam->cam_height;
        h->cam[c].step = (uint32_t)cam->step;
        h->cam[c].grid_w = (uint32_t)cam->grid_w;
        h->cam[c].grid_h = (uint32_t)cam->grid_h;
        h->cam[c].px_scale = cam->px_scale;
        h->cam[c].clip_cx = cam->clip_cx;
        h->cam[c].clip_cy = cam->clip_cy;
        h->cam[c].clip_rx = cam->clip_rx;
        h->cam[c].clip_ry = cam->clip_ry;
    }
    int rc = check_header_fields(h, FOVEA_ERR_INVALID_ARG, name, err, errsz);
    if (rc != FOVEA_OK)
        return rc;
    rc = check_values(m, FOVEA_ERR_INVALID_ARG, name, err, errsz);
    if (rc != FOVEA_OK)
        return rc;
    h->payload_size = payload_bytes(h);
    return FOVEA_OK;
}

static void header_bytes(const map_header *h, uint8_t *buf)
{
    memcpy(buf, FOVEA_MAP_MAGIC, 8);
    wr_u32(buf + 8, h->version);
    wr_u32(buf + 12, h->header_size);
    wr_u32(buf + 16, h->pano_w);
    wr_u32(buf + 20, h->pano_h);
    wr_u32(buf + 24, h->num_cameras);
    wr_f32(buf + 28, h->feather);
    wr_u32(buf + 32, h->flags);
    uint8_t *p = buf + FIXED_HEADER;
    for (uint32_t c = 0; c < h->num_cameras; c++, p += CAMERA_RECORD) {
        wr_u32(p, h->cam[c].w);
        wr_u32(p + 4, h->cam[c].h);
        wr_u32(p + 8, h->cam[c].step);
        wr_u32(p + 12, h->cam[c].grid_w);
        wr_u32(p + 16, h->cam[c].grid_h);
        wr_f32(p + 20, h->cam[c].px_scale);
        wr_f32(p + 24, h->cam[c].clip_cx);
        wr_f32(p + 28, h->cam[c].clip_cy);
        wr_f32(p + 32, h->cam[c].clip_rx);
        wr_f32(p + 36, h->cam[c].clip_ry);
    }
    wr_u64(p, h->payload_size);
    wr_u32(p + 8, h->payload_crc);
    wr_u32(p + 12, (uint32_t)crc_update(crc32(0L, Z_NULL, 0), buf, h->header_size - 4));
}

/* Payload destination: CRC only, a memory buffer, or a FILE. */
typedef struct payload_sink {
    uint8_t *mem;
    FILE *fp;
    uLong crc;
    int failed;
    int errnum; /* errno of the failed write */
} payload_sink;

static void sink_bytes(payload_sink *s, const uint8_t *p, size_t n)
{
    if (s->failed)
        return;
    s->crc = crc_update(s->crc, p, n);
    if (s->mem) {
        memcpy(s->mem, p, n);
        s->mem += n;
    } else if (s->fp && fwrite(p, 1, n, s->fp) != n) {
        s->failed = 1;
        s->errnum = errno;
    }
}

static void sink_floats(payload_sink *s, const float *src, size_t count)
{
    if (host_is_le()) {
        sink_bytes(s, (const uint8_t *)src, count * sizeof(float));
        return;
    }
    uint8_t tmp[4096];
    while (count) {
        size_t k = count < sizeof(tmp) / 4 ? count : sizeof(tmp) / 4;
        for (size_t i = 0; i < k; i++)
            wr_f32(tmp + 4 * i, src[i]);
        sink_bytes(s, tmp, k * 4);
        src += k;
        count -= k;
    }
}

static void emit_payload(const fovea_stitch_map *m, payload_sink *s)
{
    s->crc = crc32(0L, Z_NULL, 0);
    for (int c = 0; c < m->num_cameras; c++)
        sink_floats(s, m->cam[c].uv, (size_t)m->cam[c].grid_w * (size_t)m->cam[c].grid_h * 2);
    if (m->cam[0].weight) {
        size_t npix = (size_t)m->pano_width * (size_t)m->pano_height;
        for (int c = 0; c < m->num_cameras; c++)
            sink_floats(s, m->cam[c].weight, npix);
    }
}

int fv_map_encode(const fovea_stitch_map *m, uint8_t **data, size_t *size, char *err, size_t errsz)
{
    const char *name = "map";
    if (!data || !size)
        return set_err(err, errsz, FOVEA_ERR_INVALID_ARG, name, "NULL argument");
    *data = NULL;
    *size = 0;
    map_header h;
    int rc = header_from_map(m, &h, name, err, errsz);
    if (rc != FOVEA_OK)
        return rc;
    size_t total;
    if (h.payload_size > (uint64_t)SIZE_MAX ||
        !fv_add_size(h.header_size, (size_t)h.payload_size, &total))
        return set_err(err, errsz, FOVEA_ERR_NOMEM, name, "map too large for memory");
    uint8_t *buf = malloc(total);
    if (!buf)
        return set_err(err, errsz, FOVEA_ERR_NOMEM, name, "cannot allocate %zu bytes", total);
    payload_sink s = {0};
    s.mem = buf + h.header_size;
    emit_payload(m, &s);
    h.payload_crc = (uint32_t)s.crc;
    header_bytes(&h, buf);
    *data = buf;
    *size = total;
    return FOVEA_OK;
}

int fv_map_save(const fovea_stitch_map *m, const char *path, char *err, size_t errsz)
{
    if (!path)
        return set_err(err, errsz, FOVEA_ERR_INVALID_ARG, "map", "NULL path");
    map_header h;
    int rc = header_from_map(m, &h, path, err, errsz);
    if (rc != FOVEA_OK)
        return rc;
    /* First pass: the payload CRC, which the header carries. */
    payload_sink s = {0};
    emit_payload(m, &s);
    h.payload_crc = (uint32_t)s.crc;
    uint8_t hdr[MAX_HEADER];
    header_bytes(&h, hdr);

    fovea_outfile *of;
    rc = fv_outfile_open_buf(&of, path, err, errsz);
    if (rc != FOVEA_OK)
        return rc;
    FILE *fp = fovea_outfile_file(of);
    memset(&s, 0, sizeof(s));
    s.fp = fp;
    if (fwrite(hdr, 1, h.header_size, fp) != h.header_size) {
        s.failed = 1;
        s.errnum = errno;
    }
    emit_payload(m, &s);
    if (s.failed) {
        rc = set_err(err, errsz, FOVEA_ERR_IO, path, "write failed: %s", strerror(s.errnum));
        fovea_outfile_close(&of); /* the old map, if any, stays whole */
        return rc;
    }
    return fv_outfile_commit_buf(&of, err, errsz);
}

int fv_map_check_cameras(const fovea_stitch_map *m, int n, const int *widths, const int *heights,
                         char *err, size_t errsz)
{
    if (!m || n < 0 || (n > 0 && (!widths || !heights)))
        return set_err(err, errsz, FOVEA_ERR_INVALID_ARG, NULL, "invalid arguments");
    if (n != m->num_cameras)
        return set_err(err, errsz, FOVEA_ERR_MISMATCH, NULL, "map expects %d camera%s, got %d",
                       m->num_cameras, m->num_cameras == 1 ? "" : "s", n);
    for (int c = 0; c < n; c++) {
        const fv_camera_map *cam = &m->cam[c];
        if (widths[c] != cam->cam_width || heights[c] != cam->cam_height)
            return set_err(err, errsz, FOVEA_ERR_MISMATCH, NULL,
                           "camera %d: map expects %dx%d, input is %dx%d", c, cam->cam_width,
                           cam->cam_height, widths[c], heights[c]);
    }
    return FOVEA_OK;
}
