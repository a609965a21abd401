/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* KLT feature files: the text layout of KLT 1.3.4 (header, "(x,y)=val" cells),
 * its binary layout ("KLTFL1" / "KLTFH1" / "KLTFT1", native float x, float y,
 * int val), reading both back, and the PPM overlay of a feature list. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fovea/io.h"
#include "io/io_buf.h"
#include "klt/klt_internal.h"

#define BIN_HEADER_LEN 6

static const char warning_line[] =
    "!!! Warning:  This is a KLT data file.  Do not modify below this line !!!\n";
static const char bin_fl[] = "KLTFL1";
static const char bin_fh[] = "KLTFH1";
static const char bin_ft[] = "KLTFT1";

typedef enum { KIND_LIST, KIND_HISTORY, KIND_TABLE } file_kind;

/* ---------------------------------------------------------------- writing */

/* Printed width of a cell format such as "(%5.1f,%5.1f)=%5d ": literal
 * characters plus the field widths (a conversion without a width counts 0). */
static int format_width(const char *s)
{
    int width = 0;
    while (*s) {
        if (*s == '%') {
            s++;
            if (*s == 'c') {
                width++;
                s++;
                continue;
            }
            if (isdigit((unsigned char)*s))
                width += atoi(s);
            while (*s && !strchr("diouxefgn", *s))
                s++;
            if (*s)
                s++;
        } else {
            width++;
            s++;
        }
    }
    return width;
}

static void hyphens(FILE *fp, int n)
{
    for (int i = 0; i < n; i++)
        fputc('-', fp);
}

typedef struct text_fmt {
    char cell[128];
    char type; /* 'f' or 'd' */
} text_fmt;

static int make_format(const char *fmt, text_fmt *tf)
{
    size_t n = strlen(fmt);
    if (n < 2 || fmt[0] != '%' || n > 40)
        return FOVEA_ERR_INVALID_ARG;
    tf->type = fmt[n - 1];
    if (tf->type != 'f' && tf->type != 'd')
        return FOVEA_ERR_INVALID_ARG;
    /* only one numeric conversion allowed in fmt */
    if (strchr(fmt + 1, '%'))
        return FOVEA_ERR_INVALID_ARG;
    snprintf(tf->cell, sizeof tf->cell, "(%s,%s)=%%%dd ", fmt, fmt, 5);
    return FOVEA_OK;
}

static void write_header(FILE *fp, const text_fmt *tf, file_kind kind, int nFrames, int nFeatures)
{
    int width = format_width(tf->cell);
    if (fp != stderr) {
        fprintf(fp, "Feel free to place comments here.\n\n\n");
        for (int i = 0; i < 73; i++)
            fputc('!', fp);
        fprintf(fp, "\n%s\n", warning_line);
    }
    fprintf(fp, "------------------------------\n");
    fprintf(fp, "%s\n",
            kind == KIND_LIST      ? "KLT Feature List"
            : kind == KIND_HISTORY ? "KLT Feature History"
                                   : "KLT Feature Table");
    fprintf(fp, "------------------------------\n\n");
    if (kind == KIND_LIST)
        fprintf(fp, "nFeatures = %d\n\n", nFeatures);
    else if (kind == KIND_HISTORY)
        fprintf(fp, "nFrames = %d\n\n", nFrames);
    else
        fprintf(fp, "nFrames = %d, nFeatures = %d\n\n", nFrames, nFeatures);

    if (kind == KIND_LIST) {
        fprintf(fp, "feature | (x,y)=val\n--------+-");
        hyphens(fp, width);
        fprintf(fp, "\n");
    } else if (kind == KIND_HISTORY) {
        fprintf(fp, "frame | (x,y)=val\n------+-");
        hyphens(fp, width);
        fprintf(fp, "\n");
    } else {
        fprintf(fp, "feature |          frame\n        |");
        for (int i = 0; i < nFrames; i++)
            fprintf(fp, "%*d", width, i);
        fprintf(fp, "\n--------+-");
        for (int i = 0; i < nFrames; i++)
            hyphens(fp, width);
        fprintf(fp, "\n");
    }
}

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
static void write_cell(FILE *fp, const text_fmt *tf, const KLT_FeatureRec *f)
{
    if (tf->type == 'f') {
        fprintf(fp, tf->cell, (double)f->x, (double)f->y, f->val);
    } else {
        /* rounded to the nearest integer unless negative */
        float x = f->x, y = f->y;
        if (x >= 0.0)
            x += 0.5f;
        if (y >= 0.0)
            y += 0.5f;
        fprintf(fp, tf->cell, (int)x, (int)y, f->val);
    }
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static int write_bin_feature(FILE *fp, const KLT_FeatureRec *f)
{
    return fwrite(&f->x, sizeof(KLT_locType), 1, fp) == 1 &&
           fwrite(&f->y, sizeof(KLT_locType), 1, fp) == 1 &&
           fwrite(&f->val, sizeof(int), 1, fp) == 1;
}

/* rows x cols cells: cell(r, c) */
typedef const KLT_FeatureRec *(*cell_fn)(const void *obj, int r, int c);

static const KLT_FeatureRec *list_cell(const void *o, int r, int c)
{
    return ((const KLT_FeatureListRec *)o)->feature[r];
}
static const KLT_FeatureRec *hist_cell(const void *o, int r, int c)
{
    return ((const KLT_FeatureHistoryRec *)o)->feature[r];
}
static const KLT_FeatureRec *table_cell(const void *o, int r, int c)
{
    return ((const KLT_FeatureTableRec *)o)->feature[r][c];
}

static void write_text(FILE *fp, const void *obj, file_kind kind, int nFrames, int nFeatures,
                       const text_fmt *tf)
{
    int rows = kind == KIND_HISTORY ? nFrames : nFeatures;
    int cols = kind == KIND_TABLE ? nFrames : 1;
    cell_fn cell = kind == KIND_LIST ? list_cell : kind == KIND_HISTORY ? hist_cell : table_cell;
    write_header(fp, tf, kind, nFrames, nFeatures);
    for (int r = 0; r < rows; r++) {
        fprintf(fp, kind == KIND_HISTORY ? "%5d | " : "%7d | ", r);
        for (int c = 0; c < cols; c++)
            write_cell(fp, tf, cell(obj, r, c));
        fprintf(fp, "\n");
    }
}

static int write_file(const void *obj, file_kind kind, int nFrames, int nFeatures,
                      const char *fname, const char *fmt)
{
    int rows = kind == KIND_HISTORY ? nFrames : nFeatures;
    int cols = kind == KIND_TABLE ? nFrames : 1;
    cell_fn cell = kind == KIND_LIST ? list_cell : kind == KIND_HISTORY ? hist_cell : table_cell;
    fovea_outfile *of = NULL;
    FILE *fp;
    int ok = 1;

    if (fmt) {
        text_fmt tf;
        if (make_format(fmt, &tf) < 0)
            return FOVEA_ERR_INVALID_ARG;
        if (fname && fv_outfile_open_buf(&of, fname, NULL, 0) < 0)
            return FOVEA_ERR_IO;
        fp = of ? fovea_outfile_file(of) : stderr;
        write_text(fp, obj, kind, nFrames, nFeatures, &tf);
        if (ferror(fp))
            ok = 0;
    } else {
        if (!fname)
            return FOVEA_ERR_INVALID_ARG; /* KLT: no binary data to stderr */
        if (fv_outfile_open_buf(&of, fname, NULL, 0) < 0)
            return FOVEA_ERR_IO;
        fp = fovea_outfile_file(of);
        const char *hdr = kind == KIND_LIST ? bin_fl : kind == KIND_HISTORY ? bin_fh : bin_ft;
        ok = fwrite(hdr, 1, BIN_HEADER_LEN, fp) == BIN_HEADER_LEN;
        if (kind != KIND_LIST)
            ok = ok && fwrite(&nFrames, sizeof(int), 1, fp) == 1;
        if (kind != KIND_HISTORY)
            ok = ok && fwrite(&nFeatures, sizeof(int), 1, fp) == 1;
        for (int r = 0; ok && r < rows; r++)
            for (int c = 0; ok && c < cols; c++)
                ok = write_bin_feature(fp, cell(obj, r, c));
    }
    if (!of)
        return ok ? FOVEA_OK : FOVEA_ERR_IO;
    if (!ok) {
        fovea_outfile_close(&of); /* an existing file keeps its old content */
        return FOVEA_ERR_IO;
    }
    return fv_outfile_commit_buf(&of, NULL, 0);
}

int fovea_klt_write_feature_table_stream(KLT_FeatureTable ft, FILE *fp, const char *fmt)
{
    text_fmt tf;
    if (!ft || !fp || !fmt || make_format(fmt, &tf) < 0)
        return FOVEA_ERR_INVALID_ARG;
    write_text(fp, ft, KIND_TABLE, ft->nFrames, ft->nFeatures, &tf);
    return ferror(fp) ? FOVEA_ERR_IO : FOVEA_OK;
}

int fovea_klt_write_feature_list(KLT_FeatureList fl, const char *fname, const char *fmt)
{
    if (!fl)
        return FOVEA_ERR_INVALID_ARG;
    return write_file(fl, KIND_LIST, 0, fl->nFeatures, fname, fmt);
}

int fovea_klt_write_feature_history(KLT_FeatureHistory fh, const char *fname, const char *fmt)
{
    if (!fh)
        return FOVEA_ERR_INVALID_ARG;
    return write_file(fh, KIND_HISTORY, fh->nFrames, 0, fname, fmt);
}

int fovea_klt_write_feature_table(KLT_FeatureTable ft, const char *fname, const char *fmt)
{
    if (!ft)
        return FOVEA_ERR_INVALID_ARG;
    return write_file(ft, KIND_TABLE, ft->nFrames, ft->nFeatures, fname, fmt);
}

void KLTWriteFeatureList(KLT_FeatureList fl, const char *fname, const char *fmt)
{
    (void)fovea_klt_write_feature_list(fl, fname, fmt);
}

void KLTWriteFeatureHistory(KLT_FeatureHistory fh, const char *fname, const char *fmt)
{
    (void)fovea_klt_write_feature_history(fh, fname, fmt);
}

void KLTWriteFeatureTable(KLT_FeatureTable ft, const char *fname, const char *fmt)
{
    (void)fovea_klt_write_feature_table(ft, fname, fmt);
}

int fovea_klt_write_feature_list_ppm(KLT_FeatureList fl, const KLT_PixelType *img, int ncols,
                                     int nrows, const char *filename)
{
    size_t n, bytes;
    if (!fl || !img || !filename || ncols < 1 || nrows < 1 ||
        !fv_mul_size((size_t)ncols, (size_t)nrows, &n) || !fv_mul_size(n, 3, &bytes))
        return FOVEA_ERR_INVALID_ARG;
    unsigned char *rgb = malloc(bytes);
    if (!rgb)
        return FOVEA_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = img[i];
    /* each remaining feature as a red 3x3 square at its rounded position */
    for (int k = 0; k < fl->nFeatures; k++) {
        const KLT_FeatureRec *f = fl->feature[k];
        if (f->val < 0)
            continue;
        int x = (int)(f->x + 0.5), y = (int)(f->y + 0.5);
        for (int yy = y - 1; yy <= y + 1; yy++)
            for (int xx = x - 1; xx <= x + 1; xx++)
                if (xx >= 0 && yy >= 0 && xx < ncols && yy < nrows) {
                    unsigned char *p = rgb + 3 * ((size_t)yy * ncols + xx);
                    p[0] = 255;
                    p[1] = 0;
                    p[2] = 0;
                }
    }
    fovea_outfile *of;
    int st = fv_outfile_open_buf(&of, filename, NULL, 0);
    if (st == FOVEA_OK) {
        FILE *fp = fovea_outfile_file(of);
        if (fprintf(fp, "P6\n%d %d\n255\n", ncols, nrows) > 0 &&
            fwrite(rgb, 1, bytes, fp) == bytes) {
            st = fv_outfile_commit_buf(&of, NULL, 0);
        } else {
            fovea_outfile_close(&of);
            st = FOVEA_ERR_IO;
        }
    }
    free(rgb);
    return st;
}

void KLTWriteFeatureListToPPM(KLT_FeatureList fl, KLT_PixelType *greyimg, int ncols, int nrows,
                              const char *filename)
{
    (void)fovea_klt_write_feature_list_ppm(fl, greyimg, ncols, nrows, filename);
}

/* ---------------------------------------------------------------- reading */

typedef struct reader {
    const char *s, *end;
} reader;

static int load_file(const char *fname, char **data, size_t *size)
{
    FILE *fp = fopen(fname, "rb");
    if (!fp)
        return FOVEA_ERR_IO;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (n < cap)
            break;
        char *nb = cap < ((size_t)1 << 30) ? realloc(buf, 2 * cap + 1) : NULL;
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int err = ferror(fp);
    fclose(fp);
    if (!buf)
        return FOVEA_ERR_NOMEM;
    if (err) {
        free(buf);
        return FOVEA_ERR_IO;
    }
    buf[n] = '\0';
    *data = buf;
    *size = n;
    return FOVEA_OK;
}

/* advance past the next occurrence of c; 0 at the end of the data */
static int skip_past(reader *r, char c)
{
    while (r->s < r->end && *r->s != c)
        r->s++;
    if (r->s >= r->end)
        return 0;
    r->s++;
    return 1;
}

static int read_word(reader *r, char *w, size_t wsz)
{
    while (r->s < r->end && isspace((unsigned char)*r->s))
        r->s++;
    size_t n = 0;
    while (r->s < r->end && !isspace((unsigned char)*r->s) && n + 1 < wsz)
        w[n++] = *r->s++;
    w[n] = '\0';
    return n > 0;
}

static int read_int(reader *r, int *v)
{
    char *e;
    long x = strtol(r->s, &e, 10);
    if (e == r->s || x < -2147483647L - 1 || x > 2147483647L)
        return 0;
    r->s = e;
    *v = (int)x;
    return 1;
}

static int read_float(reader *r, float *v)
{
    char *e;
    float x = strtof(r->s, &e);
    if (e == r->s)
        return 0;
    r->s = e;
    *v = x;
    return 1;
}

static int expect_char(reader *r, char c)
{
    while (r->s < r->end && isspace((unsigned char)*r->s))
        r->s++;
    if (r->s < r->end && *r->s == c) {
        r->s++;
        return 1;
    }
    return 0;
}

/* "(x,y)=val" */
static int read_text_cell(reader *r, KLT_Feature f)
{
    float x, y;
    int v;
    if (!skip_past(r, '(') || !read_float(r, &x) || !expect_char(r, ',') || !read_float(r, &y) ||
        !expect_char(r, ')') || !expect_char(r, '=') || !read_int(r, &v))
        return 0;
    f->x = x;
    f->y = y;
    f->val = v;
    return 1;
}

typedef struct file_info {
    file_kind kind;
    int binary;
    int nFrames, nFeatures;
} file_info;

static int parse_header(reader *r, file_info *fi)
{
    size_t avail = (size_t)(r->end - r->s);
    const char *hdrs[3] = {bin_fl, bin_fh, bin_ft};
    if (avail >= BIN_HEADER_LEN)
        for (int k = 0; k < 3; k++)
            if (memcmp(r->s, hdrs[k], BIN_HEADER_LEN) == 0) {
                fi->kind = (file_kind)k;
                fi->binary = 1;
                r->s += BIN_HEADER_LEN;
                int need = k == KIND_TABLE ? 2 : 1;
                if ((size_t)(r->end - r->s) < need * sizeof(int))
                    return 0;
                int a = 0, b = 0;
                memcpy(&a, r->s, sizeof(int));
                r->s += sizeof(int);
                if (k == KIND_TABLE) {
                    memcpy(&b, r->s, sizeof(int));
                    r->s += sizeof(int);
                }
                fi->nFrames = k == KIND_LIST ? 0 : a;
                fi->nFeatures = k == KIND_LIST ? a : k == KIND_TABLE ? b : 0;
                return fi->nFrames >= 0 && fi->nFeatures >= 0;
            }
    fi->binary = 0;
    const char *w = strstr(r->s, warning_line);
    if (!w)
        return 0;
    r->s = w + strlen(warning_line);
    /* dashes line, then the kind */
    if (!skip_past(r, '-') || !skip_past(r, '\n'))
        return 0;
    const char *names[3] = {"KLT Feature List\n", "KLT Feature History\n", "KLT Feature Table\n"};
    int found = -1;
    for (int k = 0; k < 3; k++)
        if (strncmp(r->s, names[k], strlen(names[k])) == 0)
            found = k;
    if (found < 0)
        return 0;
    fi->kind = (file_kind)found;
    if (!skip_past(r, '-') || !skip_past(r, '\n'))
        return 0;
    char word[64];
    int a = 0, b = 0;
    if (!read_word(r, word, sizeof word) ||
        strcmp(word, found == KIND_LIST ? "nFeatures" : "nFrames") != 0 ||
        !read_word(r, word, sizeof word) || strcmp(word, "=") != 0 || !read_int(r, &a))
        return 0;
    if (found == KIND_TABLE) {
        if (!expect_char(r, ',') || !read_word(r, word, sizeof word) ||
            strcmp(word, "nFeatures") != 0 || !read_word(r, word, sizeof word) ||
            strcmp(word, "=") != 0 || !read_int(r, &b))
            return 0;
    }
    fi->nFrames = found == KIND_LIST ? 0 : a;
    fi->nFeatures = found == KIND_LIST ? a : b;
    /* skip to the line after the dashes above the data */
    if (!skip_past(r, '-') || !skip_past(r, '\n'))
        return 0;
    return fi->nFrames >= 0 && fi->nFeatures >= 0;
}

static int read_cells(reader *r, const file_info *fi, KLT_Feature (*cell)(void *, int, int),
                      void *obj)
{
    int rows = fi->kind == KIND_HISTORY ? fi->nFrames : fi->nFeatures;
    int cols = fi->kind == KIND_TABLE ? fi->nFrames : 1;
    for (int i = 0; i < rows; i++) {
        if (!fi->binary) {
            int idx;
            if (!read_int(r, &idx) || idx != i || !expect_char(r, '|'))
                return 0;
        }
        for (int c = 0; c < cols; c++) {
            KLT_Feature f = cell(obj, i, c);
            if (fi->binary) {
                if ((size_t)(r->end - r->s) < 2 * sizeof(float) + sizeof(int))
                    return 0;
                memcpy(&f->x, r->s, sizeof(float));
                memcpy(&f->y, r->s + sizeof(float), sizeof(float));
                memcpy(&f->val, r->s + 2 * sizeof(float), sizeof(int));
                r->s += 2 * sizeof(float) + sizeof(int);
            } else if (!read_text_cell(r, f)) {
                return 0;
            }
        }
    }
    return 1;
}

static KLT_Feature list_cell_w(void *o, int r, int c)
{
    return ((KLT_FeatureList)o)->feature[r];
}
static KLT_Feature hist_cell_w(void *o, int r, int c)
{
    return ((KLT_FeatureHistory)o)->feature[r];
}
static KLT_Feature table_cell_w(void *o, int r, int c)
{
    return ((KLT_FeatureTable)o)->feature[r][c];
}

static int open_and_parse(const char *fname, file_kind want, char **data, reader *r, file_info *fi)
{
    size_t size;
    if (!fname || load_file(fname, data, &size) < 0)
        return 0;
    r->s = *data;
    r->end = *data + size;
    if (!parse_header(r, fi) || fi->kind != want) {
        free(*data);
        return 0;
    }
    /* the counts must fit in what is left (12 bytes a binary cell, at least
     * "(x,y)=v" a text cell) before anything is allocated for them */
    size_t cells = (size_t)(fi->kind == KIND_LIST ? 1 : fi->nFrames) *
                   (size_t)(fi->kind == KIND_HISTORY ? 1 : fi->nFeatures);
    size_t cell_min = fi->binary ? 2 * sizeof(float) + sizeof(int) : 7;
    /* (an empty dimension makes the product 0: bound each count too) */
    if (cells > (size_t)(r->end - r->s) / cell_min || fi->nFrames > (1 << 20) ||
        fi->nFeatures > (1 << 20)) {
        free(*data);
        return 0;
    }
    return 1;
}

KLT_FeatureList KLTReadFeatureList(KLT_FeatureList fl_in, const char *fname)
{
    char *data;
    reader r;
    file_info fi;
    if (!open_and_parse(fname, KIND_LIST, &data, &r, &fi))
        return NULL;
    KLT_FeatureList fl = fl_in;
    if (fl && fl->nFeatures != fi.nFeatures)
        fl = NULL;
    else if (!fl)
        fl = KLTCreateFeatureList(fi.nFeatures);
    if (fl && !read_cells(&r, &fi, list_cell_w, fl)) {
        if (fl != fl_in)
            KLTFreeFeatureList(fl);
        fl = NULL;
    }
    free(data);
    return fl;
}

KLT_FeatureHistory KLTReadFeatureHistory(KLT_FeatureHistory fh_in, const char *fname)
{
    char *data;
    reader r;
    file_info fi;
    if (!open_and_parse(fname, KIND_HISTORY, &data, &r, &fi))
        return NULL;
    KLT_FeatureHistory fh = fh_in;
    if (fh && fh->nFrames != fi.nFrames)
        fh = NULL;
    else if (!fh)
        fh = KLTCreateFeatureHistory(fi.nFrames);
    if (fh && !read_cells(&r, &fi, hist_cell_w, fh)) {
        if (fh != fh_in)
            KLTFreeFeatureHistory(fh);
        fh = NULL;
    }
    free(data);
    return fh;
}

KLT_FeatureTable KLTReadFeatureTable(KLT_FeatureTable ft_in, const char *fname)
{
    char *data;
    reader r;
    file_info fi;
    if (!open_and_parse(fname, KIND_TABLE, &data, &r, &fi))
        return NULL;
    KLT_FeatureTable ft = ft_in;
    if (ft && (ft->nFrames != fi.nFrames || ft->nFeatures != fi.nFeatures))
        ft = NULL;
    else if (!ft)
        ft = KLTCreateFeatureTable(fi.nFrames, fi.nFeatures);
    if (ft && !read_cells(&r, &fi, table_cell_w, ft)) {
        if (ft != ft_in)
            KLTFreeFeatureTable(ft);
        ft = NULL;
    }
    free(data);
    return ft;
}
