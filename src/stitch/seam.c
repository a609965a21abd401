/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Seam placement by dynamic programming on a reduced map (see seam.h and
 * docs/stitch.md, "Seam placement"). Integer costs: the same inputs place the
 * same seam on every machine. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "stitch/seam.h"

#define SEAM_INF INT64_MAX

/* Whether camera c sees every pixel of cell (cx, cy). */
static int cell_whole(const fv_seam *s, const uint8_t *seen, int cx, int cy)
{
    for (int y = cy * SEAM_CELL; y < (cy + 1) * SEAM_CELL && y < s->h; y++)
        for (int x = cx * SEAM_CELL; x < (cx + 1) * SEAM_CELL && x < s->w; x++)
            if (!seen[(size_t)y * (size_t)s->w + (size_t)x])
                return 0;
    return 1;
}

/* The map's label of a cell: that of its center pixel (clamped). */
static int cell_label(const fv_seam *s, const uint8_t *label0, int cx, int cy)
{
    int x = cx * SEAM_CELL + SEAM_CELL / 2, y = cy * SEAM_CELL + SEAM_CELL / 2;
    x = x < s->w ? x : s->w - 1;
    y = y < s->h ? y : s->h - 1;
    return label0[(size_t)y * (size_t)s->w + (size_t)x];
}

void fv_seam_free(fv_seam *s)
{
    for (int p = 0; p < s->npairs; p++)
        free(s->pair[p].row);
    free(s->cost);
    free(s->acc);
    free(s->from);
    free(s->diff);
    memset(s, 0, sizeof(*s));
}

int fv_seam_init(fv_seam *s, int n, int w, int h, const uint8_t *label0, const uint8_t *const *seen)
{
    memset(s, 0, sizeof(*s));
    s->w = w;
    s->h = h;
    s->n = n;
    s->rw = (w + SEAM_CELL - 1) / SEAM_CELL;
    s->rh = (h + SEAM_CELL - 1) / SEAM_CELL;
    const size_t cells = (size_t)s->rw * (size_t)s->rh;
    s->cost = malloc(cells * sizeof(int64_t));
    s->acc = malloc(cells * sizeof(int64_t));
    s->from = malloc(cells);
    int16_t *lab = malloc(cells * sizeof(int16_t));
    if (!s->cost || !s->acc || !s->from || !lab) {
        free(lab);
        fv_seam_free(s);
        return FOVEA_ERR_NOMEM;
    }
    for (int cy = 0; cy < s->rh; cy++)
        for (int cx = 0; cx < s->rw; cx++)
            lab[(size_t)cy * (size_t)s->rw + (size_t)cx] = (int16_t)cell_label(s, label0, cx, cy);
    for (int a = 0; a < n; a++) {
        for (int b = a + 1; b < n; b++) {
            fv_seam_pair *pr = &s->pair[s->npairs];
            memset(pr, 0, sizeof(*pr));
            pr->row = malloc((size_t)s->rh * sizeof(fv_seam_span));
            if (!pr->row) {
                free(lab);
                fv_seam_free(s);
                return FOVEA_ERR_NOMEM;
            }
            int rows = 0;
            size_t span_cells = 0;
            for (int cy = 0; cy < s->rh; cy++) {
                fv_seam_span *sp = &pr->row[cy];
                sp->lo = sp->hi = sp->t = sp->x = -1;
                const int16_t *l = lab + (size_t)cy * (size_t)s->rw;
#define CAND(x)                                                                                    \
    ((l[x] == a || l[x] == b) && cell_whole(s, seen[a], (x), cy) && cell_whole(s, seen[b], (x), cy))
                /* the first crossing of the map's seam between a and b on this row */
                int t = -1;
                for (int x = 1; x < s->rw && t < 0; x++)
                    if ((l[x - 1] == a || l[x - 1] == b) && (l[x] == a || l[x] == b) &&
                        l[x - 1] != l[x] && CAND(x - 1) && CAND(x))
                        t = x;
                if (t < 0)
                    continue;
                const int left = l[t - 1], right = l[t];
                if (rows == 0) {
                    pr->left = (uint8_t)left;
                    pr->right = (uint8_t)right;
                } else if (left != pr->left) {
                    continue; /* the pair's order flips on this row: leave it */
                }
                int lo = t - 1, hi = t;
                while (lo > 0 && CAND(lo - 1))
                    lo--;
                while (hi + 1 < s->rw && CAND(hi + 1))
                    hi++;
#undef CAND
                sp->lo = (int16_t)lo;
                sp->hi = (int16_t)hi;
                sp->t = (int16_t)t;
                rows++;
                span_cells += (size_t)(hi - lo + 1);
            }
            if (rows > 0)
                s->npairs++;
            else
                free(pr->row);
            s->ncells += rows > 0 ? span_cells : 0;
        }
    }
    free(lab);
    /* the differences' layout: pairs in order, rows, cells lo .. hi */
    size_t off = 0;
    for (int p = 0; p < s->npairs; p++)
        for (int cy = 0; cy < s->rh; cy++) {
            fv_seam_span *sp = &s->pair[p].row[cy];
            if (sp->lo < 0)
                continue;
            sp->off = (int32_t)off;
            off += (size_t)(sp->hi - sp->lo + 1);
        }
    s->diff = malloc((s->ncells ? s->ncells : 1) * sizeof(int32_t));
    if (!s->diff) {
        fv_seam_free(s);
        return FOVEA_ERR_NOMEM;
    }
    return FOVEA_OK;
}

void fv_seam_cells(const fv_seam *s, uint32_t *cells)
{
    for (int p = 0; p < s->npairs; p++) {
        const fv_seam_pair *pr = &s->pair[p];
        for (int cy = 0; cy < s->rh; cy++) {
            const fv_seam_span *sp = &pr->row[cy];
            for (int x = sp->lo; sp->lo >= 0 && x <= sp->hi; x++) {
                uint32_t *e = cells + 2 * ((size_t)sp->off + (size_t)(x - sp->lo));
                e[0] = (uint32_t)pr->left | (uint32_t)pr->right << 8;
                e[1] = (uint32_t)x | (uint32_t)cy << 16;
            }
        }
    }
}

/* Sum over the cell's pixels of |la - lb|. */
static int32_t cell_diff(const fv_seam *s, const uint8_t *la, const uint8_t *lb, int cx, int cy)
{
    int32_t d = 0;
    for (int y = cy * SEAM_CELL; y < (cy + 1) * SEAM_CELL && y < s->h; y++) {
        const size_t row = (size_t)y * (size_t)s->w;
        for (int x = cx * SEAM_CELL; x < (cx + 1) * SEAM_CELL && x < s->w; x++) {
            const int e = la[row + (size_t)x] - lb[row + (size_t)x];
            d += e < 0 ? -e : e;
        }
    }
    return d;
}

void fv_seam_diffs(const fv_seam *s, const uint8_t *const *luma, int32_t *diffs)
{
    for (int p = 0; p < s->npairs; p++) {
        const fv_seam_pair *pr = &s->pair[p];
        for (int cy = 0; cy < s->rh; cy++) {
            const fv_seam_span *sp = &pr->row[cy];
            for (int x = sp->lo; sp->lo >= 0 && x <= sp->hi; x++)
                diffs[(size_t)sp->off + (size_t)(x - sp->lo)] =
                    cell_diff(s, luma[pr->left], luma[pr->right], x, cy);
        }
    }
}

/* Cost of a span cell: 4 x its difference + SEAM_BIAS x its distance to the
 * map's seam. */
static int64_t cell_cost(const fv_seam_span *sp, const int32_t *diffs, int cx)
{
    const int dist = cx > sp->t ? cx - sp->t : sp->t - cx;
    return 4 * (int64_t)diffs[(size_t)sp->off + (size_t)(cx - sp->lo)] + (int64_t)SEAM_BIAS * dist;
}

/* Whether rows cy - 1 and cy of a pair chain: both have spans that a path
 * stepping at most one cell can join. */
static int chained(const fv_seam_pair *pr, int cy)
{
    if (cy == 0)
        return 0;
    const fv_seam_span *p = &pr->row[cy - 1], *q = &pr->row[cy];
    return p->lo >= 0 && q->lo >= 0 && q->lo <= p->hi + 1 && q->hi >= p->lo - 1;
}

/* Place one pair's seam; returns 1 when it moved. */
static int place_pair(fv_seam *s, fv_seam_pair *pr, const int32_t *diffs)
{
    const size_t rw = (size_t)s->rw;
    int64_t old_cost = 0, new_cost = 0;
    for (int cy = 0; cy < s->rh; cy++) {
        const fv_seam_span *sp = &pr->row[cy];
        if (sp->lo < 0)
            continue;
        int64_t *c = s->cost + (size_t)cy * rw, *acc = s->acc + (size_t)cy * rw;
        int8_t *from = s->from + (size_t)cy * rw;
        const int link = chained(pr, cy);
        const fv_seam_span *pp = &pr->row[cy > 0 ? cy - 1 : 0];
        const int64_t *pacc = cy > 0 ? s->acc + (size_t)(cy - 1) * rw : NULL;
        for (int x = sp->lo; x <= sp->hi; x++) {
            c[x] = cell_cost(sp, diffs, x);
            int64_t best = link ? SEAM_INF : 0;
            int8_t bd = 0;
            if (link) {
                /* predecessor: straight down first, then left, then right */
                static const int8_t order[3] = {0, -1, 1};
                for (int k = 0; k < 3; k++) {
                    const int px = x + order[k];
                    if (px < pp->lo || px > pp->hi || pacc[px] == SEAM_INF)
                        continue;
                    if (pacc[px] < best) {
                        best = pacc[px];
                        bd = order[k];
                    }
                }
            }
            acc[x] = best == SEAM_INF ? SEAM_INF : best + c[x];
            from[x] = bd;
        }
        if (pr->placed)
            old_cost += c[sp->x];
    }
    /* backtrack every chain from its last row */
    int16_t *nx = malloc((size_t)s->rh * sizeof(int16_t));
    if (!nx)
        return 0; /* keep the old seam */
    for (int cy = s->rh - 1; cy >= 0; cy--) {
        const fv_seam_span *sp = &pr->row[cy];
        nx[cy] = -1;
        if (sp->lo < 0)
            continue;
        const int64_t *acc = s->acc + (size_t)cy * rw;
        const int last = cy + 1 >= s->rh || !chained(pr, cy + 1);
        if (last) {
            /* the cheapest end, nearest the map's seam, then leftmost */
            int bx = -1;
            for (int x = sp->lo; x <= sp->hi; x++) {
                if (acc[x] == SEAM_INF)
                    continue;
                const int d = x > sp->t ? x - sp->t : sp->t - x;
                const int bdist = bx < 0 ? 0 : (bx > sp->t ? bx - sp->t : sp->t - bx);
                if (bx < 0 || acc[x] < acc[bx] || (acc[x] == acc[bx] && d < bdist))
                    bx = x;
            }
            nx[cy] = (int16_t)bx;
            new_cost += bx >= 0 ? acc[bx] : 0;
        } else {
            const int x1 = nx[cy + 1];
            nx[cy] = x1 < 0 ? -1 : (int16_t)(x1 + s->from[(size_t)(cy + 1) * rw + (size_t)x1]);
        }
    }
    int moved = 0;
    if (!pr->placed || new_cost * 100 < old_cost * (100 - SEAM_MARGIN_PCT)) {
        for (int cy = 0; cy < s->rh; cy++) {
            if (pr->row[cy].lo < 0)
                continue;
            moved |= !pr->placed || pr->row[cy].x != nx[cy];
            pr->row[cy].x = nx[cy];
        }
        pr->placed = 1;
    }
    free(nx);
    return moved;
}

int fv_seam_update_diffs(fv_seam *s, const int32_t *diffs)
{
    int moved = 0;
    for (int p = 0; p < s->npairs; p++)
        moved |= place_pair(s, &s->pair[p], diffs);
    return moved;
}

int fv_seam_update(fv_seam *s, const uint8_t *const *luma)
{
    fv_seam_diffs(s, luma, s->diff);
    return fv_seam_update_diffs(s, s->diff);
}

void fv_seam_labels(const fv_seam *s, const uint8_t *label0, uint8_t *label)
{
    memcpy(label, label0, (size_t)s->w * (size_t)s->h);
    for (int p = 0; p < s->npairs; p++) {
        const fv_seam_pair *pr = &s->pair[p];
        if (!pr->placed)
            continue;
        for (int y = 0; y < s->h; y++) {
            const fv_seam_span *sp = &pr->row[y / SEAM_CELL];
            if (sp->lo < 0 || sp->x < 0)
                continue;
            const size_t row = (size_t)y * (size_t)s->w;
            const int x1 = (sp->hi + 1) * SEAM_CELL < s->w ? (sp->hi + 1) * SEAM_CELL : s->w;
            for (int x = sp->lo * SEAM_CELL; x < x1; x++) {
                const uint8_t l0 = label0[row + (size_t)x];
                if (l0 != pr->left && l0 != pr->right)
                    continue;
                label[row + (size_t)x] = x / SEAM_CELL < sp->x ? pr->left : pr->right;
            }
        }
    }
}
