/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Hugin projects (.pto) as rigs: the p line becomes the panorama, each i line a
 * PanoTools camera (lens_pt.c), with the conventions of Hugin's own parser and of
 * libpano13's remapping (docs/stitch.md "Hugin projects"). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fovea/fovea.h"
#include "stitch/geometry.h"
#include "stitch/rig.h"

/* Image variables: Hugin's names and defaults (Hugin's ImgInfo). */
enum {
    V_V,
    V_A,
    V_B,
    V_C,
    V_D,
    V_E,
    V_G,
    V_T,
    V_R,
    V_P,
    V_Y,
    V_J,
    V_TRX,
    V_TRY,
    V_TRZ,
    V_TPY,
    V_TPP,
    V_VA,
    V_VB,
    V_VC,
    V_VD,
    V_VX,
    V_VY,
    V_EEV,
    V_ER,
    V_EB,
    V_RA,
    V_RB,
    V_RC,
    V_RD,
    V_RE,
    NVARS
};
static const char *const var_names[NVARS] = {"v",   "a",  "b",  "c",  "d",   "e",   "g",   "t",
                                             "r",   "p",  "y",  "j",  "TrX", "TrY", "TrZ", "Tpy",
                                             "Tpp", "Va", "Vb", "Vc", "Vd",  "Vx",  "Vy",  "Eev",
                                             "Er",  "Eb", "Ra", "Rb", "Rc",  "Rd",  "Re"};
static const double var_defaults[NVARS] = {51.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                           0,    1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0};

typedef struct {
    int line;
    int width, height, lens; /* -1 = missing */
    double val[NVARS];
    int link[NVARS];       /* image number the value comes from (=N), or -1 */
    int crop[4], has_crop; /* S or C: left, right, top, bottom */
    int vm, has_vm;        /* vignetting mode */
    int rt;                /* response type: 0 EMoR, 1 linear */
    int has_vf;            /* a flat-field file (not applied) */
    char name[FOVEA_RIG_NAME_LEN];
} pto_image;

typedef struct {
    const char *text;
    size_t len, pos;
    int line;
    char *err;
    size_t errsz;
    fovea_context *ctx;
} pto_parser;

typedef struct {
    int seen, line;
    int proj, width, height;
    double hfov;
    double exposure; /* E: output exposure value */
    int hdr;         /* R1: HDR output */
    int crop[4], has_crop;
} pto_pano;

static int perror_at(pto_parser *ps, int st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int perror_at(pto_parser *ps, int st, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return fv_errbuf(ps->err, ps->errsz, st, "line %d: %s", ps->line, msg);
}

/* ------------------------------------------------------------------ tokens */

/* One token of a line: key letters, then a number, "=N", a quoted string or
 * a bare word up to the next blank. */
typedef struct {
    const char *key;
    size_t keylen;
    const char *val;
    size_t vallen;
    int quoted;
} pto_token;

/* The longest of names that starts tok (NULL when none). */
static const char *match_key(const char *tok, size_t n, const char *const *names, int count)
{
    const char *best = NULL;
    size_t bl = 0;
    for (int i = 0; i < count; i++) {
        size_t l = strlen(names[i]);
        if (l <= n && l > bl && memcmp(tok, names[i], l) == 0) {
            best = names[i];
            bl = l;
        }
    }
    return best;
}

/* Next token of line [p, end): *p advances. @return 1, 0 at the end, <0 on error */
static int next_token(pto_parser *ps, const char **p, const char *end, const char *const *keys,
                      int nkeys, pto_token *t)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
        s++;
    if (s >= end) {
        *p = s;
        return 0;
    }
    const char *w = s;
    int in_q = 0;
    while (s < end && (in_q || (*s != ' ' && *s != '\t' && *s != '\r'))) {
        if (*s == '"')
            in_q = !in_q;
        s++;
    }
    size_t n = (size_t)(s - w);
    *p = s;
    if (in_q)
        return perror_at(ps, FOVEA_ERR_CORRUPT, "unterminated string in '%.*s'",
                         (int)(n > 40 ? 40 : n), w);
    const char *k = match_key(w, n, keys, nkeys);
    if (!k)
        return perror_at(ps, FOVEA_ERR_UNSUPPORTED, "unknown field '%.*s'", (int)(n > 40 ? 40 : n),
                         w);
    t->key = k;
    t->keylen = strlen(k);
    t->val = w + t->keylen;
    t->vallen = n - t->keylen;
    t->quoted = t->vallen >= 2 && t->val[0] == '"' && t->val[t->vallen - 1] == '"';
    if (t->quoted) {
        t->val++;
        t->vallen -= 2;
    } else if (memchr(t->val, '"', t->vallen)) {
        return perror_at(ps, FOVEA_ERR_CORRUPT, "%s: misplaced quote", k);
    }
    return 1;
}

/* A finite number making up the whole value. */
static int tok_number(pto_parser *ps, const pto_token *t, double *out)
{
    char buf[64];
    if (t->quoted || t->vallen == 0 || t->vallen >= sizeof(buf))
        return perror_at(ps, FOVEA_ERR_CORRUPT, "%s: expected a number", t->key);
    memcpy(buf, t->val, t->vallen);
    buf[t->vallen] = 0;
    char *e;
    errno = 0;
    double v = strtod(buf, &e);
    if (*e || e == buf || !isfinite(v))
        return perror_at(ps, FOVEA_ERR_CORRUPT, "%s: '%s' is not a finite number", t->key, buf);
    *out = v + 0.0; /* -0 is 0: the rig's JSON round trip keeps the same bits */
    return FOVEA_OK;
}

static int tok_int(pto_parser *ps, const pto_token *t, int lo, int hi, int *out)
{
    double v = 0.0;
    int r = tok_number(ps, t, &v);
    if (r < 0)
        return r;
    if (v != floor(v) || v < lo || v > hi)
        return perror_at(ps, FOVEA_ERR_INVALID_ARG, "%s: must be an integer in [%d, %d]", t->key,
                         lo, hi);
    *out = (int)v;
    return FOVEA_OK;
}

/* "left,right,top,bottom" */
static int tok_crop(pto_parser *ps, const pto_token *t, int c[4])
{
    char buf[96];
    if (t->vallen == 0 || t->vallen >= sizeof(buf))
        return perror_at(ps, FOVEA_ERR_CORRUPT, "%s: expected left,right,top,bottom", t->key);
    memcpy(buf, t->val, t->vallen);
    buf[t->vallen] = 0;
    char *s = buf;
    for (int i = 0; i < 4; i++) {
        char *e;
        errno = 0;
        long v = strtol(s, &e, 10);
        if (e == s || errno || v < -FOVEA_RIG_MAX_SIZE * 4L || v > FOVEA_RIG_MAX_SIZE * 4L ||
            (i < 3 ? *e != ',' : *e != 0))
            return perror_at(ps, FOVEA_ERR_CORRUPT,
                             "%s: expected four integers left,right,top,bottom", t->key);
        c[i] = (int)v;
        s = e + 1;
    }
    return FOVEA_OK;
}

/* ------------------------------------------------------------------ p line */

static const char *const p_keys[] = {"f", "w", "h", "v", "S", "E", "R",
                                     "T", "n", "P", "k", "b", "d", "u"};
#define N_P_KEYS ((int)(sizeof(p_keys) / sizeof(p_keys[0])))

static int parse_p(pto_parser *ps, const char *p, const char *end, pto_pano *pn)
{
    if (pn->seen)
        return perror_at(ps, FOVEA_ERR_CORRUPT, "a second p line (a project has one)");
    pn->seen = 1;
    pn->line = ps->line;
    pn->proj = 0; /* Hugin's default: rectilinear */
    pn->width = -1;
    pn->height = -1;
    pn->hfov = -1;
    pto_token t;
    int r;
    while ((r = next_token(ps, &p, end, p_keys, N_P_KEYS, &t)) > 0) {
        char k = t.key[0];
        if (k == 'f')
            r = tok_int(ps, &t, 0, 100, &pn->proj);
        else if (k == 'w')
            r = tok_int(ps, &t, 1, FOVEA_RIG_MAX_SIZE, &pn->width);
        else if (k == 'h')
            r = tok_int(ps, &t, 1, FOVEA_RIG_MAX_SIZE, &pn->height);
        else if (k == 'v')
            r = tok_number(ps, &t, &pn->hfov);
        else if (k == 'E')
            r = tok_number(ps, &t, &pn->exposure);
        else if (k == 'R')
            r = tok_int(ps, &t, 0, 1, &pn->hdr);
        else if (k == 'S') {
            r = tok_crop(ps, &t, pn->crop);
            pn->has_crop = 1;
        }
        /* T (pixel type), n (file format), P
         * (projection parameters: none for equirectangular and cylindrical), k/b/d
         * (color reference image), u (feather): output settings of nona */
        if (r < 0)
            return r;
    }
    return r;
}

/* ------------------------------------------------------------------ i line */

static const char *const i_extra_keys[] = {"w", "h", "f", "n", "S", "C", "Vm", "Vf", "Rt"};
#define N_I_EXTRA ((int)(sizeof(i_extra_keys) / sizeof(i_extra_keys[0])))

static int parse_i(pto_parser *ps, const char *p, const char *end, pto_image *im)
{
    const char *keys[NVARS + N_I_EXTRA];
    for (int i = 0; i < NVARS; i++)
        keys[i] = var_names[i];
    for (int i = 0; i < N_I_EXTRA; i++)
        keys[NVARS + i] = i_extra_keys[i];
    memset(im, 0, sizeof(*im));
    im->line = ps->line;
    im->width = im->height = im->lens = -1;
    im->vm = 5; /* Hugin's default: radial, by division */
    for (int v = 0; v < NVARS; v++) {
        im->val[v] = var_defaults[v];
        im->link[v] = -1;
    }
    pto_token t;
    int r;
    while ((r = next_token(ps, &p, end, keys, NVARS + N_I_EXTRA, &t)) > 0) {
        int v = -1;
        for (int i = 0; i < NVARS; i++)
            if (t.key == var_names[i])
                v = i;
        if (v >= 0) {
            if (!t.quoted && t.vallen > 0 && t.val[0] == '=') {
                pto_token n = t;
                n.val++;
                n.vallen--;
                r = tok_int(ps, &n, 0, FOVEA_RIG_MAX_CAMERAS - 1, &im->link[v]);
            } else {
                r = tok_number(ps, &t, &im->val[v]);
            }
        } else if (!strcmp(t.key, "w")) {
            r = tok_int(ps, &t, 1, FOVEA_RIG_MAX_SIZE, &im->width);
        } else if (!strcmp(t.key, "h")) {
            r = tok_int(ps, &t, 1, FOVEA_RIG_MAX_SIZE, &im->height);
        } else if (!strcmp(t.key, "f")) {
            r = tok_int(ps, &t, 0, 100, &im->lens);
        } else if (!strcmp(t.key, "n")) {
            /* the file name, without its folders, names the camera */
            const char *b = t.val;
            size_t bl = t.vallen;
            for (size_t i = 0; i < t.vallen; i++)
                if (t.val[i] == '/' || t.val[i] == '\\') {
                    b = t.val + i + 1;
                    bl = t.vallen - i - 1;
                }
            if (bl >= sizeof(im->name))
                bl = sizeof(im->name) - 1;
            for (size_t i = 0; i < bl; i++)
                im->name[i] = (b[i] >= 0x20 && b[i] < 0x7f) ? b[i] : '_';
            im->name[bl] = 0;
        } else if (!strcmp(t.key, "S") || !strcmp(t.key, "C")) {
            r = tok_crop(ps, &t, im->crop);
            im->has_crop = 1;
        } else if (!strcmp(t.key, "Vm")) {
            r = tok_int(ps, &t, 0, 7, &im->vm);
            im->has_vm = 1;
        } else if (!strcmp(t.key, "Rt")) {
            r = tok_int(ps, &t, 0, 4, &im->rt);
            if (r >= 0 && im->rt > 1)
                r = perror_at(ps, FOVEA_ERR_UNSUPPORTED,
                              "Rt: response type %d is not supported (0 EMoR, 1 linear)", im->rt);
        } else if (!strcmp(t.key, "Vf")) {
            im->has_vf = t.vallen > 0;
        }
        if (r < 0)
            return r;
    }
    if (r < 0)
        return r;
    if (im->width < 0)
        return perror_at(ps, FOVEA_ERR_CORRUPT, "w: missing image width");
    if (im->height < 0)
        return perror_at(ps, FOVEA_ERR_CORRUPT, "h: missing image height");
    if (im->lens < 0)
        return perror_at(ps, FOVEA_ERR_CORRUPT, "f: missing lens type");
    return FOVEA_OK;
}

/* Follow =N references to the image holding the value (a chain, never a loop). */
static int resolve_links(pto_parser *ps, pto_image *im, int n)
{
    for (int k = 0; k < n; k++)
        for (int v = 0; v < NVARS; v++) {
            int src = k, hops = 0;
            while (im[src].link[v] >= 0) {
                int to = im[src].link[v];
                ps->line = im[k].line;
                if (to >= n)
                    return perror_at(ps, FOVEA_ERR_CORRUPT,
                                     "%s: refers to image %d, the project has %d", var_names[v], to,
                                     n);
                if (++hops > n)
                    return perror_at(ps, FOVEA_ERR_CORRUPT, "%s: references form a loop",
                                     var_names[v]);
                src = to;
            }
            im[k].val[v] = im[src].val[v];
        }
    return FOVEA_OK;
}

/* ------------------------------------------------------------------ to the rig */

static int lens_of(int f, fovea_lens *out)
{
    switch (f) {
    case 0: *out = FOVEA_LENS_RECTILINEAR; return 1;
    case 1: *out = FOVEA_LENS_CYLINDRICAL; return 1;
    case 2: /* circular fisheye */
    case 3: *out = FOVEA_LENS_FISHEYE; return 1;
    case 4: *out = FOVEA_LENS_EQUIRECTANGULAR; return 1;
    case 8: *out = FOVEA_LENS_ORTHOGRAPHIC; return 1;
    case 10: *out = FOVEA_LENS_STEREOGRAPHIC; return 1;
    case 21: *out = FOVEA_LENS_EQUISOLID; return 1;
    }
    return 0;
}

/* Focal length in pixels of a lens of horizontal field of view v (degrees) over
 * width w: the per-projection formulas of libpano13's SetMakeParams. */
static double focal_of(fovea_lens lens, double v, int w)
{
    double a = v * FOVEA_DEG2RAD;
    switch (lens) {
    case FOVEA_LENS_RECTILINEAR: return w / (2.0 * tan(a / 2.0));
    case FOVEA_LENS_ORTHOGRAPHIC: {
        int t = (int)ceil((a - FOVEA_PI) / (2.0 * FOVEA_PI));
        return w / (2.0 * (2 * t + ((t & 1) ? -1.0 : 1.0) * sin(a / 2.0)));
    }
    case FOVEA_LENS_STEREOGRAPHIC: return w / (4.0 * tan(a / 4.0));
    case FOVEA_LENS_EQUISOLID: return w / (4.0 * sin(a / 4.0));
    default: return w / a;
    }
}

static int image_to_camera(pto_parser *ps, const pto_image *im, int k, fovea_rig_camera *c)
{
    ps->line = im->line;
    memset(c, 0, sizeof(*c));
    if (!lens_of(im->lens, &c->lens))
        return perror_at(ps, FOVEA_ERR_UNSUPPORTED,
                         "f: lens type %d is not supported (0 rectilinear, 1 panoramic, 2 "
                         "circular fisheye, 3 full-frame fisheye, 4 equirectangular, 8 "
                         "orthographic, 10 stereographic, 21 equisolid)",
                         im->lens);
    const double *v = im->val;
    if (v[V_TRX] != 0.0 || v[V_TRY] != 0.0 || v[V_TRZ] != 0.0)
        return perror_at(ps, FOVEA_ERR_UNSUPPORTED,
                         "%s: camera translation (TrX/TrY/TrZ, for mosaics) is not supported",
                         v[V_TRX] != 0.0   ? "TrX"
                         : v[V_TRY] != 0.0 ? "TrY"
                                           : "TrZ");
    double lim = c->lens == FOVEA_LENS_RECTILINEAR ? 180.0 : 360.0;
    if (!(v[V_V] > 0.0 && v[V_V] < lim))
        return perror_at(ps, FOVEA_ERR_INVALID_ARG, "v: field of view must be in (0, %g) degrees",
                         lim);
    if (c->lens == FOVEA_LENS_STEREOGRAPHIC || c->lens == FOVEA_LENS_EQUISOLID) {
        if (!(v[V_V] < 360.0))
            return perror_at(ps, FOVEA_ERR_INVALID_ARG, "v: must be below 360 degrees");
    }
    if (im->name[0])
        snprintf(c->name, sizeof(c->name), "%s", im->name);
    else
        snprintf(c->name, sizeof(c->name), "image%d", k);
    c->model = FOVEA_CAM_PANOTOOLS;
    c->width = im->width;
    c->height = im->height;
    c->fx = c->fy = focal_of(c->lens, v[V_V], im->width);
    c->cx = im->width / 2.0 - 0.5 + v[V_D];
    c->cy = im->height / 2.0 - 0.5 + v[V_E];
    c->dist[0] = v[V_A];
    c->dist[1] = v[V_B];
    c->dist[2] = v[V_C];
    c->dist[3] = v[V_G];
    c->dist[4] = v[V_T];
    c->yaw = v[V_Y];
    c->pitch = v[V_P];
    c->roll = v[V_R];
    return FOVEA_OK;
}

/* Hugin's photometric part as nona applies it (docs/stitch.md "Hugin projects"):
 * output exposure E and response (image 0's EMoR) on the panorama, the rest per
 * camera. A camera whose transform is the identity (its exposure is E, white
 * balance 1, no vignetting, the output's response) is left disabled: the
 * stitcher then skips it. */
static int photometric_of(pto_parser *ps, const pto_pano *pn, const pto_image *im, int n,
                          fovea_rig *rig)
{
    ps->line = pn->line;
    if (!(fabs(pn->exposure) <= 64.0))
        return perror_at(ps, FOVEA_ERR_INVALID_ARG, "E: exposure must be in [-64, 64]");
    for (int k = 0; k < n; k++) {
        const double *v = im[k].val;
        ps->line = im[k].line;
        if (!(fabs(v[V_EEV]) <= 64.0))
            return perror_at(ps, FOVEA_ERR_INVALID_ARG, "Eev: exposure must be in [-64, 64]");
        if (!(v[V_ER] > 0.0 && v[V_ER] <= 1000.0) || !(v[V_EB] > 0.0 && v[V_EB] <= 1000.0))
            return perror_at(ps, FOVEA_ERR_INVALID_ARG,
                             "%s: white balance factor must be in (0, 1000]",
                             v[V_ER] > 0.0 && v[V_ER] <= 1000.0 ? "Eb" : "Er");
        for (int i = V_VA; i <= V_VY; i++)
            if (!(fabs(v[i]) <= 1e6))
                return perror_at(ps, FOVEA_ERR_INVALID_ARG, "%s: must be in [-1e6, 1e6]",
                                 var_names[i]);
        for (int i = V_RA; i <= V_RE; i++)
            if (!(fabs(v[i]) <= 1000.0))
                return perror_at(ps, FOVEA_ERR_INVALID_ARG, "%s: must be in [-1000, 1000]",
                                 var_names[i]);
    }
    rig->photo_exposure = pn->exposure;
    for (int i = 0; i < 5; i++)
        rig->photo_emor[i] = im[0].val[V_RA + i];
    rig->photo_linear_response = im[0].rt == 1;
    for (int k = 0; k < n; k++) {
        const double *v = im[k].val;
        fovea_rig_photometric *p = &rig->cameras[k].photometric;
        memset(p, 0, sizeof(*p));
        p->exposure = v[V_EEV];
        p->wb_red = v[V_ER];
        p->wb_blue = v[V_EB];
        p->vignetting[0] = 1.0;
        if (im[k].vm & 1) { /* radial; flat fields (Vm 2) are not applied */
            p->vignetting[0] = v[V_VA];
            p->vignetting[1] = v[V_VB];
            p->vignetting[2] = v[V_VC];
            p->vignetting[3] = v[V_VD];
        }
        p->vignetting_center[0] = v[V_VX];
        p->vignetting_center[1] = v[V_VY];
        p->linear_response = im[k].rt == 1;
        int same_response = p->linear_response == rig->photo_linear_response;
        for (int i = 0; i < 5; i++) {
            p->emor[i] = v[V_RA + i];
            same_response &= p->linear_response || (float)p->emor[i] == (float)rig->photo_emor[i];
        }
        p->enabled = !(p->exposure == pn->exposure && p->wb_red == 1.0 && p->wb_blue == 1.0 &&
                       p->vignetting[0] == 1.0 && p->vignetting[1] == 0.0 &&
                       p->vignetting[2] == 0.0 && p->vignetting[3] == 0.0 && same_response);
        if (!p->enabled)
            fv_rig_photo_default(p); /* what rig JSON reads back */
    }
    int any = 0;
    for (int k = 0; k < n; k++)
        any |= rig->cameras[k].photometric.enabled;
    if (!any) {
        /* nothing to apply: the panorama's part too is what rig JSON reads
         * back without a photometric object (its writer leaves it out) */
        rig->photo_exposure = 0.0;
        memset(rig->photo_emor, 0, sizeof(rig->photo_emor));
        rig->photo_linear_response = 0;
    }
    return FOVEA_OK;
}

/* Safe to ignore, but it changes what nona would draw: say so. */
static void warn_ignored(pto_parser *ps, const pto_pano *pn, const pto_image *im, int n)
{
    if (pn->hdr)
        fv_log(ps->ctx, FOVEA_LOG_WARNING,
               "line %d: R1: HDR output not supported: fovea renders the LDR output (R0)",
               pn->line);
    for (int k = 0; k < n; k++) {
        const pto_image *m = &im[k];
        if (m->has_crop && !(m->crop[0] <= 0 && m->crop[2] <= 0 && m->crop[1] >= m->width &&
                             m->crop[3] >= m->height))
            fv_log(ps->ctx, FOVEA_LOG_WARNING,
                   "line %d: S: crop %d,%d,%d,%d ignored: fovea uses the whole image", m->line,
                   m->crop[0], m->crop[1], m->crop[2], m->crop[3]);
        if ((m->vm & 2) || m->has_vf)
            fv_log(ps->ctx, FOVEA_LOG_WARNING,
                   "line %d: Vm/Vf: flat-field vignetting correction not applied", m->line);
    }
}

static int pano_to_rig(pto_parser *ps, const pto_pano *pn, fovea_rig *rig)
{
    ps->line = pn->line;
    if (pn->proj != 1 && pn->proj != 2)
        return perror_at(ps, FOVEA_ERR_UNSUPPORTED,
                         "f: panorama projection %d is not supported (1 cylindrical, 2 "
                         "equirectangular)",
                         pn->proj);
    if (pn->width < 0)
        return perror_at(ps, FOVEA_ERR_CORRUPT, "w: missing panorama width");
    if (pn->height < 0)
        return perror_at(ps, FOVEA_ERR_CORRUPT, "h: missing panorama height");
    if (!(pn->hfov > 0.0 && pn->hfov <= 360.0))
        return perror_at(ps, FOVEA_ERR_INVALID_ARG, "v: must be in (0, 360] degrees");
    rig->projection = pn->proj == 1 ? FOVEA_PROJ_CYLINDRICAL : FOVEA_PROJ_EQUIRECTANGULAR;
    double deg_px = pn->hfov / pn->width; /* both projections: uniform in longitude */
    int l = 0, rgt = pn->width, top = 0, bot = pn->height;
    if (pn->has_crop) {
        l = pn->crop[0];
        rgt = pn->crop[1];
        top = pn->crop[2];
        bot = pn->crop[3];
        if (!(l < rgt && top < bot))
            return perror_at(ps, FOVEA_ERR_INVALID_ARG, "S: crop is empty");
        if (rgt - l > FOVEA_RIG_MAX_SIZE || bot - top > FOVEA_RIG_MAX_SIZE)
            return perror_at(ps, FOVEA_ERR_INVALID_ARG, "S: crop larger than %d pixels",
                             FOVEA_RIG_MAX_SIZE);
        /* a horizontal offset is a yaw of the panorama; a vertical one is not a
         * rotation of either projection */
        if (top + bot != pn->height)
            return perror_at(ps, FOVEA_ERR_UNSUPPORTED,
                             "S: crop %d,%d,%d,%d is not centered vertically (top + bottom must "
                             "equal h = %d)",
                             l, rgt, top, bot, pn->height);
    }
    rig->width = rgt - l;
    rig->height = bot - top;
    rig->hfov = deg_px * rig->width;
    rig->vfov = deg_px * rig->height;
    rig->yaw = ((l + rgt) / 2.0 - pn->width / 2.0) * deg_px;
    if (rig->projection == FOVEA_PROJ_EQUIRECTANGULAR && !(rig->vfov <= 180.0))
        return perror_at(ps, FOVEA_ERR_INVALID_ARG,
                         "h: %d pixels span %g degrees of latitude, more than 180", rig->height,
                         rig->vfov);
    if (!(rig->hfov <= 360.0))
        return perror_at(ps, FOVEA_ERR_INVALID_ARG, "S: crop wider than 360 degrees");
    return FOVEA_OK;
}

/* ------------------------------------------------------------------ lines */

int fv_pto_parse(const char *text, size_t len, fovea_rig *rig, fovea_context *ctx, char *err,
                 size_t errsz)
{
    pto_parser ps = {text, len, 0, 0, err, errsz, ctx};
    if (!text || !rig)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "pto: NULL argument");
    if (len > FOVEA_RIG_FILE_LIMIT)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "larger than %d bytes",
                         FOVEA_RIG_FILE_LIMIT);
    fv_rig_init(rig);
    pto_pano pn;
    memset(&pn, 0, sizeof(pn));
    pto_image *im = calloc(FOVEA_RIG_MAX_CAMERAS, sizeof(*im));
    if (!im)
        return fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "out of memory");
    int n = 0, r = FOVEA_OK, masks = 0;
    size_t pos = 0;
    while (pos < len && r >= 0) {
        const char *p = text + pos;
        const char *nl = memchr(p, '\n', len - pos);
        const char *end = nl ? nl : text + len;
        pos = (size_t)(end - text) + 1;
        ps.line++;
        if (memchr(p, 0, (size_t)(end - p))) {
            r = perror_at(&ps, FOVEA_ERR_CORRUPT, "NUL byte in a text file");
            break;
        }
        const char *q = p;
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q == end || *q == '#')
            continue; /* blank, comment or #hugin_ option */
        if (q + 1 < end && q[1] != ' ' && q[1] != '\t' && q[1] != '\r') {
            r = perror_at(&ps, FOVEA_ERR_UNSUPPORTED, "unknown line type '%.*s'",
                          (int)((end - q) > 20 ? 20 : (end - q)), q);
            break;
        }
        switch (*q) {
        case 'p': r = parse_p(&ps, q + 1, end, &pn); break;
        case 'i':
            if (n >= FOVEA_RIG_MAX_CAMERAS) {
                r = perror_at(&ps, FOVEA_ERR_UNSUPPORTED, "more than %d images",
                              FOVEA_RIG_MAX_CAMERAS);
                break;
            }
            r = parse_i(&ps, q + 1, end, &im[n]);
            n++;
            break;
        case 'k': masks++; break;
        case 'm': /* optimizer and interpolator options */
        case 'v': /* variables to optimize */
        case 'c': /* control points */
        case 'C': /* PTOptimizer's line of per-image crop: not written by Hugin */ break;
        case 'o':
            r = perror_at(&ps, FOVEA_ERR_UNSUPPORTED,
                          "o lines (PTOptimizer output) are not supported: open the project in "
                          "Hugin and save it");
            break;
        default: r = perror_at(&ps, FOVEA_ERR_UNSUPPORTED, "unknown line type '%c'", *q); break;
        }
    }
    if (r >= 0 && !pn.seen)
        r = fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "no p line (not a Hugin project?)");
    if (r >= 0 && n == 0)
        r = fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "no i line (a project needs an image)");
    if (r >= 0)
        r = resolve_links(&ps, im, n);
    if (r >= 0)
        r = pano_to_rig(&ps, &pn, rig);
    for (int k = 0; r >= 0 && k < n; k++)
        r = image_to_camera(&ps, &im[k], k, &rig->cameras[k]);
    if (r >= 0)
        r = photometric_of(&ps, &pn, im, n, rig);
    if (r >= 0) {
        rig->num_cameras = n;
        rig->feather = FOVEA_RIG_DEFAULT_FEATHER;
        char msg[256];
        int st = fv_rig_validate_buf(rig, msg, sizeof(msg));
        if (st < 0)
            r = fv_errbuf(err, errsz, st, "%s", msg);
    }
    if (r >= 0) {
        warn_ignored(&ps, &pn, im, n);
        if (masks)
            fv_log(ctx, FOVEA_LOG_WARNING, "%d k line(s): masks not applied", masks);
    }
    free(im);
    return r < 0 ? r : FOVEA_OK;
}

/* ------------------------------------------------------------------ public */

int fovea_rig_open_pto_text(fovea_rig **rig, fovea_context *ctx, const char *text, size_t len)
{
    char err[FOVEA_ERRLEN] = "";
    if (!rig || !text)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "pto: NULL argument");
    *rig = calloc(1, sizeof(**rig));
    if (!*rig)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "pto: out of memory");
    int st = fv_pto_parse(text, len, *rig, ctx, err, sizeof(err));
    if (st < 0) {
        fovea_rig_close(rig);
        return fv_ctx_error(ctx, st, "%s", err);
    }
    return st;
}

int fovea_rig_open_pto(fovea_rig **rig, fovea_context *ctx, const char *path)
{
    if (!rig || !path)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "pto: NULL argument");
    *rig = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return fv_ctx_error(ctx, FOVEA_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char *buf = malloc(FOVEA_RIG_FILE_LIMIT + 1);
    if (!buf) {
        fclose(f);
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "%s: out of memory", path);
    }
    errno = 0;
    size_t n = fread(buf, 1, FOVEA_RIG_FILE_LIMIT + 1, f);
    int rd_err = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    int st = FOVEA_OK;
    char err[FOVEA_ERRLEN] = "";
    if (rd_err)
        st = fv_errbuf(err, sizeof(err), FOVEA_ERR_IO, "read error: %s", strerror(rd_err));
    else if (n > FOVEA_RIG_FILE_LIMIT)
        st = fv_errbuf(err, sizeof(err), FOVEA_ERR_CORRUPT, "larger than %d bytes",
                       FOVEA_RIG_FILE_LIMIT);
    if (st >= 0) {
        *rig = calloc(1, sizeof(**rig));
        if (!*rig)
            st = fv_errbuf(err, sizeof(err), FOVEA_ERR_NOMEM, "out of memory");
    }
    if (st >= 0) {
        st = fv_pto_parse(buf, n, *rig, ctx, err, sizeof(err));
        if (st < 0)
            fovea_rig_close(rig);
    }
    free(buf);
    return st < 0 ? fv_ctx_error(ctx, st, "%s: %s", path, err) : st;
}
