/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Parsing the manifest of `fovea vmaf --manifest` (vmaf_manifest.h): CSV with
 * a header, or JSON lines; every malformed line reported as NAME:LINE. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "vmaf_manifest.h"

#define MAX_COLUMNS 16

enum { COL_REF, COL_DIS, COL_ID, COL_MODEL, COL_FRAMES, COL_FEATURES, NCOLS };
static const char *const col_names[NCOLS] = {"ref", "dis", "id", "model", "frames", "features"};
#define KNOWN_COLUMNS "ref, dis, id, model, frames, features"

/* A line's problem: counted, and written out while fewer than
 * MANIFEST_MAX_REPORTED were. @return -1 out of memory, else 0 */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int
report(manifest *m, const char *name, int line, const char *fmt, ...)
{
    m->nerrors++;
    if (m->nerrors > MANIFEST_MAX_REPORTED)
        return 0;
    char msg[MANIFEST_MAX_FIELD + 512];
    int k = snprintf(msg, sizeof(msg), "%s:%d: ", name, line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + k, sizeof(msg) - (size_t)k, fmt, ap);
    va_end(ap);
    const size_t add = strlen(msg) + 1;
    char *p = realloc(m->errors, m->errors_len + add + 1);
    if (!p)
        return -1;
    m->errors = p;
    memcpy(p + m->errors_len, msg, add - 1);
    p[m->errors_len + add - 1] = '\n';
    m->errors_len += add;
    p[m->errors_len] = '\0';
    return 0;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* A line neither blank nor a comment. */
static int has_content(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (is_blank(s[i]) || s[i] == '\r'))
        i++;
    return i < n && s[i] != '#';
}

static char *dup_text(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* The fields of a CSV line: unquoted (surrounding blanks trimmed) or in double
 * quotes ("" is a quote). Written NUL-separated into buf (room for n + 1).
 * @return the number of fields, or -1 with the reason in why */
static int csv_split(const char *s, size_t n, char *buf, const char **field, char *why,
                     size_t whysz)
{
    size_t i = 0, o = 0;
    int nf = 0;
    for (;;) {
        if (nf == MAX_COLUMNS) {
            snprintf(why, whysz, "more than %d fields", MAX_COLUMNS);
            return -1;
        }
        while (i < n && is_blank(s[i]))
            i++;
        const size_t start = o;
        field[nf] = buf + o;
        if (i < n && s[i] == '"') {
            i++;
            for (;;) {
                if (i >= n) {
                    snprintf(why, whysz, "field %d: no closing quote", nf + 1);
                    return -1;
                }
                if (s[i] == '"') {
                    if (i + 1 < n && s[i + 1] == '"') {
                        buf[o++] = '"';
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                buf[o++] = s[i++];
            }
            while (i < n && is_blank(s[i]))
                i++;
            if (i < n && s[i] != ',') {
                snprintf(why, whysz, "field %d: text after the closing quote", nf + 1);
                return -1;
            }
        } else {
            while (i < n && s[i] != ',')
                buf[o++] = s[i++];
            while (o > start && is_blank(buf[o - 1]))
                o--;
        }
        if (o - start > MANIFEST_MAX_FIELD) {
            snprintf(why, whysz, "field %d is longer than %d bytes", nf + 1, MANIFEST_MAX_FIELD);
            return -1;
        }
        buf[o++] = '\0';
        nf++;
        if (i >= n)
            return nf;
        i++; /* the comma */
    }
}

/* The checks every pair gets, whatever the syntax. @return a reason or NULL */
static const char *check_pair(const manifest_pair *p)
{
    if (!p->ref || !*p->ref)
        return "no ref (the reference video)";
    if (!p->dis || !*p->dis)
        return "no dis (the distorted video)";
    if (strcmp(p->ref, "-") == 0 || strcmp(p->dis, "-") == 0)
        return "'-' (stdin) cannot be an input of a manifest's pair";
    return NULL;
}

static int add_pair(manifest *m, manifest_pair *p)
{
    if (m->n == m->cap) {
        const int64_t ncap = m->cap ? 2 * m->cap : 64;
        manifest_pair *q = realloc(m->pair, (size_t)ncap * sizeof(*q));
        if (!q)
            return -1;
        m->pair = q;
        m->cap = ncap;
    }
    m->pair[m->n++] = *p;
    return 0;
}

static void free_pair(manifest_pair *p)
{
    free(p->ref);
    free(p->dis);
    free(p->id);
    free(p->model);
    free(p->features);
    memset(p, 0, sizeof(*p));
}

/* Append the --feature values of text (NAME[=OPTION=VALUE:...], separated by
 * blanks, ';' or ',') to *list as settings.features entries
 * ("NAME:OPTION=VALUE:..."), growing it. @return 0, 1 with a reason in why
 * (malformed), or -1 (out of memory) */
static int add_features(char **list, const char *text, char *why, size_t whysz)
{
    for (const char *s = text; *s;) {
        const size_t sep = strspn(s, " \t;,");
        s += sep;
        const size_t n = strcspn(s, " \t;,");
        if (n == 0)
            break;
        size_t name = strcspn(s, "=");
        if (name > n)
            name = n; /* no '=' in this one: a plain NAME */
        if (name == 0 || (name < n && name + 1 == n)) {
            snprintf(why, whysz, "features: expected NAME[=OPTION=VALUE:...], got '%.*s'",
                     (int)(n > 200 ? 200 : n), s);
            return 1;
        }
        const size_t old = *list ? strlen(*list) : 0;
        char *grown = realloc(*list, old + n + 2);
        if (!grown)
            return -1;
        *list = grown;
        char *o = grown + old;
        if (old)
            *o++ = ',';
        memcpy(o, s, n);
        if (name < n)
            o[name] = ':'; /* NAME=OPT=VAL -> NAME:OPT=VAL */
        o[n] = '\0';
        s += n;
    }
    if (!*list) {
        snprintf(why, whysz, "features: no feature named");
        return 1;
    }
    return 0;
}

/* A frame count: a non-negative integer (0 = all). @return 0 or -1 */
static int parse_frames(const char *s, int64_t *out)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    int64_t v = 0;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s) || v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return 0;
}

/* ------------------------------------------------------------------ CSV */

typedef struct csv_state {
    int col[MAX_COLUMNS]; /* the column of each field; -1 before the header */
    int ncol;
    int have_header;
    char *buf; /* field scratch, the longest line + 1 */
    const char *field[MAX_COLUMNS];
} csv_state;

/* A column name, in any case. */
static int same_name(const char *s, const char *col)
{
    for (; *s && *col; s++, col++)
        if (tolower((unsigned char)*s) != *col)
            return 0;
    return *s == *col;
}

/* @return 0, or -1 out of memory */
static int csv_header(manifest *m, csv_state *cs, const char *name, int line, int nf)
{
    int seen[NCOLS] = {0};
    cs->ncol = nf;
    cs->have_header = 1;
    for (int f = 0; f < nf; f++) {
        int c = -1;
        for (int k = 0; k < NCOLS; k++)
            if (same_name(cs->field[f], col_names[k]))
                c = k;
        if (c < 0) {
            cs->have_header = -1;
            return report(m, name, line,
                          "header: unknown column '%s' (a header names the columns: %s; "
                          "ref and dis are needed)",
                          cs->field[f], KNOWN_COLUMNS);
        }
        if (seen[c]++) {
            cs->have_header = -1;
            return report(m, name, line, "header: column '%s' twice", col_names[c]);
        }
        cs->col[f] = c;
    }
    if (!seen[COL_REF] || !seen[COL_DIS]) {
        cs->have_header = -1;
        return report(m, name, line, "header: needs the columns ref and dis (got '%s'%s)",
                      cs->field[0], nf > 1 ? ", ..." : "");
    }
    return 0;
}

static int csv_row(manifest *m, csv_state *cs, const char *name, int line, int nf)
{
    if (nf != cs->ncol)
        return report(m, name, line, "%d field%s, the header has %d", nf, nf == 1 ? "" : "s",
                      cs->ncol);
    manifest_pair p;
    memset(&p, 0, sizeof(p));
    p.frames = -1;
    p.line = line;
    for (int f = 0; f < nf; f++) {
        const char *v = cs->field[f];
        char **dst = NULL;
        switch (cs->col[f]) {
        case COL_REF: dst = &p.ref; break;
        case COL_DIS: dst = &p.dis; break;
        case COL_ID: dst = *v ? &p.id : NULL; break;
        case COL_MODEL: dst = *v ? &p.model : NULL; break;
        case COL_FEATURES:
            if (*v) {
                char why[320];
                const int st = add_features(&p.features, v, why, sizeof(why));
                if (st != 0) {
                    free_pair(&p);
                    return st < 0 ? -1 : report(m, name, line, "%s", why);
                }
            }
            break;
        case COL_FRAMES:
            if (*v && parse_frames(v, &p.frames) < 0) {
                free_pair(&p);
                return report(m, name, line, "frames: expected a non-negative integer, got '%s'",
                              v);
            }
            break;
        }
        if (dst && !(*dst = dup_text(v, strlen(v)))) {
            free_pair(&p);
            return -1;
        }
    }
    const char *why = check_pair(&p);
    if (why) {
        free_pair(&p);
        return report(m, name, line, "%s", why);
    }
    if (add_pair(m, &p) < 0) {
        free_pair(&p);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ JSON lines */

/* The column of the first \u0000 escape of the JSON text s[0..n) (cJSON turns it
 * into a NUL byte that would cut the string short), or 0. */
static int nul_escape_column(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] != '\\')
            continue;
        if (s[i + 1] == 'u' && i + 5 < n && memcmp(s + i + 2, "0000", 4) == 0)
            return (int)i + 1;
        i++; /* the escaped character: \\u0000 is a backslash, then "u0000" */
    }
    return 0;
}

static int json_row(manifest *m, const char *name, int line, const char *s, size_t n)
{
    const int nul = nul_escape_column(s, n);
    if (nul > 0)
        return report(m, name, line,
                      "a \\u0000 (NUL) in a string at column %d: paths and "
                      "names cannot hold one",
                      nul);
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithLengthOpts(s, n, &end, 0);
    if (!o) {
        const char *at = cJSON_GetErrorPtr();
        if (at && at >= s && at <= s + n)
            return report(m, name, line, "invalid JSON at column %d", (int)(at - s) + 1);
        return report(m, name, line, "invalid JSON");
    }
    int rc = 0;
    for (const char *e = end; e && e < s + n; e++)
        if (!isspace((unsigned char)*e)) {
            cJSON_Delete(o);
            return report(m, name, line, "text after the JSON object at column %d",
                          (int)(e - s) + 1);
        }
    manifest_pair p;
    memset(&p, 0, sizeof(p));
    p.frames = -1;
    p.line = line;
    if (!cJSON_IsObject(o)) {
        rc = report(m, name, line, "expected a JSON object {\"ref\": ..., \"dis\": ...}");
        goto done;
    }
    int seen[NCOLS] = {0};
    const cJSON *it;
    cJSON_ArrayForEach(it, o)
    {
        int c = -1;
        for (int k = 0; k < NCOLS; k++)
            if (it->string && strcmp(it->string, col_names[k]) == 0)
                c = k;
        if (c < 0) {
            rc = report(m, name, line, "unknown key '%s' (known: %s)", it->string ? it->string : "",
                        KNOWN_COLUMNS);
            goto done;
        }
        if (seen[c]++) {
            rc = report(m, name, line, "key '%s' twice", col_names[c]);
            goto done;
        }
        char **dst = NULL;
        if (c == COL_FRAMES) {
            const double v = it->valuedouble;
            if (!cJSON_IsNumber(it) || !(v >= 0) || v != floor(v) || v > 9e15) {
                rc = report(m, name, line, "frames: expected a non-negative integer");
                goto done;
            }
            p.frames = (int64_t)v;
            continue;
        }
        if (c == COL_ID && cJSON_IsNumber(it)) {
            char num[64];
            const double v = it->valuedouble;
            if (v == floor(v) && fabs(v) < 9e15)
                snprintf(num, sizeof(num), "%lld", (long long)v);
            else
                snprintf(num, sizeof(num), "%.17g", v);
            if (!(p.id = dup_text(num, strlen(num)))) {
                rc = -1;
                goto done;
            }
            p.id_is_number = 1;
            continue;
        }
        if (c == COL_FEATURES && (cJSON_IsString(it) || cJSON_IsArray(it))) {
            char why[320];
            int st = 0;
            if (cJSON_IsString(it)) {
                st = add_features(&p.features, it->valuestring, why, sizeof(why));
            } else {
                const cJSON *e;
                cJSON_ArrayForEach(e, it)
                {
                    if (!cJSON_IsString(e)) {
                        snprintf(why, sizeof(why), "features: expected strings in the array");
                        st = 1;
                    } else {
                        st = add_features(&p.features, e->valuestring, why, sizeof(why));
                    }
                    if (st != 0)
                        break;
                }
                if (st == 0 && !p.features) {
                    snprintf(why, sizeof(why), "features: an empty array");
                    st = 1;
                }
            }
            if (st != 0) {
                rc = st < 0 ? -1 : report(m, name, line, "%s", why);
                goto done;
            }
            continue;
        }
        if (!cJSON_IsString(it)) {
            rc = report(m, name, line, "%s: expected a string%s", col_names[c],
                        c == COL_ID         ? " or a number"
                        : c == COL_FEATURES ? " or an array of strings"
                                            : "");
            goto done;
        }
        const size_t len = strlen(it->valuestring);
        if (len > MANIFEST_MAX_FIELD) {
            rc = report(m, name, line, "%s is longer than %d bytes", col_names[c],
                        MANIFEST_MAX_FIELD);
            goto done;
        }
        dst = c == COL_REF ? &p.ref : c == COL_DIS ? &p.dis : c == COL_ID ? &p.id : &p.model;
        if (!(*dst = dup_text(it->valuestring, len))) {
            rc = -1;
            goto done;
        }
    }
    const char *why = check_pair(&p);
    if (why) {
        rc = report(m, name, line, "%s", why);
        goto done;
    }
    if (add_pair(m, &p) < 0)
        rc = -1;
    else
        memset(&p, 0, sizeof(p)); /* the manifest owns the strings now */
done:
    free_pair(&p);
    cJSON_Delete(o);
    return rc;
}

/* ------------------------------------------------------------------ the file */

int manifest_parse(manifest *m, const char *name, const char *text, size_t len)
{
    memset(m, 0, sizeof(*m));
    csv_state cs;
    memset(&cs, 0, sizeof(cs));
    int decided = 0, rc = 0;
    size_t longest = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        const size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        if (n > longest)
            longest = n;
        i += n + 1;
    }
    cs.buf = malloc(longest + 1);
    if (!cs.buf)
        return -1;
    int line = 0;
    for (size_t i = 0; i < len && rc == 0;) {
        const char *s = text + i;
        const char *nl = memchr(s, '\n', len - i);
        size_t n = nl ? (size_t)(nl - s) : len - i;
        i += n + 1;
        line++;
        if (n > 0 && s[n - 1] == '\r')
            n--;
        if (memchr(s, '\0', n)) {
            rc = report(m, name, line, "a NUL byte in the line");
            continue;
        }
        if (!has_content(s, n))
            continue;
        if (!decided) {
            size_t k = 0;
            while (k < n && is_blank(s[k]))
                k++;
            m->json = s[k] == '{';
            decided = 1;
        }
        if (m->json) {
            rc = json_row(m, name, line, s, n);
            continue;
        }
        char why[256];
        const int nf = csv_split(s, n, cs.buf, cs.field, why, sizeof(why));
        if (nf < 0) {
            rc = report(m, name, line, "%s%s", cs.have_header ? "" : "header: ", why);
            if (!cs.have_header)
                cs.have_header = -1;
        } else if (!cs.have_header) {
            rc = csv_header(m, &cs, name, line, nf);
        } else if (cs.have_header > 0) {
            rc = csv_row(m, &cs, name, line, nf);
        }
        /* a bad header leaves the columns unknown: the rows cannot be read */
        if (cs.have_header < 0)
            break;
    }
    free(cs.buf);
    if (rc == 0 && m->nerrors > MANIFEST_MAX_REPORTED) {
        char more[64];
        snprintf(more, sizeof(more), "... and %d more", m->nerrors - MANIFEST_MAX_REPORTED);
        const size_t add = strlen(more) + 1;
        char *p = realloc(m->errors, m->errors_len + add + 1);
        if (!p)
            return -1;
        m->errors = p;
        memcpy(p + m->errors_len, more, add - 1);
        p[m->errors_len + add - 1] = '\n';
        m->errors_len += add;
        p[m->errors_len] = '\0';
    }
    return rc;
}

void manifest_free(manifest *m)
{
    for (int64_t k = 0; k < m->n; k++)
        free_pair(&m->pair[k]);
    free(m->pair);
    free(m->errors);
    memset(m, 0, sizeof(m[0]));
}
