/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The files a command reads and writes, checked once before any output is
 * opened: no output may be an input (nor a file of an input's image
 * sequence), nor the file of another output. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* Frame numbers tried past the last file found when a sequence's length is
 * not known (a sequence starts at 0 or 1). */
#define SEQUENCE_GAP 2

void cli_files_init(cli_files *fs, const char *cmd)
{
    memset(fs, 0, sizeof(*fs));
    fs->cmd = cmd;
}

void cli_files_free(cli_files *fs)
{
    for (int i = 0; i < fs->n; i++)
        free(fs->f[i].path);
    free(fs->f);
    memset(fs, 0, sizeof(*fs));
}

int cli_files_add(cli_files *fs, const char *what, const char *path, int flags, int64_t count)
{
    if (!path || strcmp(path, "-") == 0)
        return 0; /* nothing given, or stdin/stdout: no file to compare */
    if (fs->n == fs->cap) {
        const int cap = fs->cap ? fs->cap * 2 : 16;
        cli_file *f = realloc(fs->f, (size_t)cap * sizeof(*f));
        if (!f)
            return fs->nomem = -1;
        fs->f = f;
        fs->cap = cap;
    }
    cli_file *f = &fs->f[fs->n];
    if (!(f->path = strdup(path)))
        return fs->nomem = -1;
    f->what = what;
    f->flags = flags;
    f->count = count;
    fs->n++;
    return 0;
}

int cli_is_sequence(const char *path, fovea_container forced)
{
    if (!path || strcmp(path, "-") == 0)
        return 0;
    return cli_is_pattern(path, cli_container_for(path, forced));
}

/* Name k of file f: its path, or its pattern's name for frame k. @return 0,
 * or -1 when there is no name k (past the end of a sequence) */
static int file_name(const cli_file *f, int64_t k, char *buf, size_t n)
{
    if (!(f->flags & CLI_FILE_SEQUENCE)) {
        if (k > 0)
            return -1;
        snprintf(buf, n, "%s", f->path);
        return 0;
    }
    /* an input's files are numbered 0..count (it starts at 0 or 1) */
    const int64_t last = (f->flags & CLI_FILE_OUT) ? f->count - 1 : f->count;
    if ((f->count >= 0 && k > last) || k > INT32_MAX)
        return -1;
    const int len = snprintf(buf, n, f->path, (int)k);
    return len >= 0 && (size_t)len < n ? 0 : -1;
}

/* Visit the existing files of f (a sequence of unknown length ends after
 * SEQUENCE_GAP missing names). visit returns nonzero to stop, which is
 * returned. */
static int each_file(const cli_file *f, int (*visit)(void *, const char *, const struct stat *),
                     void *opaque)
{
    char name[4096];
    int missing = 0;
    for (int64_t k = 0; file_name(f, k, name, sizeof(name)) == 0; k++) {
        struct stat st;
        if (stat(name, &st) != 0) {
            if (f->count < 0 && ++missing >= SEQUENCE_GAP && k + 1 >= SEQUENCE_GAP)
                break;
            continue;
        }
        missing = 0;
        const int r = visit(opaque, name, &st);
        if (r)
            return r;
    }
    return 0;
}

/* An input's file: its identity and the input it belongs to. */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    const cli_file *in;
} file_id;

typedef struct id_list {
    file_id *id;
    size_t n, cap;
    const cli_file *in; /* the input being listed */
} id_list;

static int cmp_id(const void *pa, const void *pb)
{
    const file_id *a = pa, *b = pb;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    return a->ino < b->ino ? -1 : a->ino > b->ino ? 1 : 0;
}

static int list_input(void *opaque, const char *name, const struct stat *st)
{
    (void)name;
    id_list *l = opaque;
    if (l->n == l->cap) {
        const size_t cap = l->cap ? l->cap * 2 : 64;
        file_id *id = realloc(l->id, cap * sizeof(*id));
        if (!id)
            return -1;
        l->id = id;
        l->cap = cap;
    }
    l->id[l->n++] = (file_id){st->st_dev, st->st_ino, l->in};
    return 0;
}

static int visit_output(void *opaque, const char *name, const struct stat *st)
{
    const id_list *l = opaque;
    const file_id key = {st->st_dev, st->st_ino, NULL};
    const file_id *hit = bsearch(&key, l->id, l->n, sizeof(*l->id), cmp_id);
    if (!hit)
        return 0;
    if (hit->in->flags & CLI_FILE_SEQUENCE)
        cli_error(name, "output is the same file as a file of input %s", hit->in->path);
    else
        cli_error(name, "output is the same file as input %s", hit->in->path);
    return 1;
}

/* Outputs i and j (j < i) name one file: the same path, or the same existing
 * file. A character device (/dev/null) may take several outputs. */
static int same_output(const cli_file *a, const cli_file *b)
{
    if (strcmp(a->path, b->path) == 0) {
        struct stat st;
        return !(stat(a->path, &st) == 0 && S_ISCHR(st.st_mode));
    }
    if ((a->flags | b->flags) & CLI_FILE_SEQUENCE)
        return 0; /* two patterns are told apart by their text */
    struct stat sa;
    if (stat(a->path, &sa) != 0 || S_ISCHR(sa.st_mode))
        return 0;
    return fovea_same_file(a->path, b->path);
}

int cli_files_check(const cli_files *fs)
{
    if (fs->nomem) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    for (int i = 0; i < fs->n; i++) {
        const cli_file *o = &fs->f[i];
        if (cli_check_pattern_arg(fs->cmd, o->what, o->path, o->flags & CLI_FILE_OUT) !=
            CLI_EXIT_OK)
            return CLI_EXIT_USAGE;
    }
    for (int i = 0; i < fs->n; i++) {
        const cli_file *o = &fs->f[i];
        for (int j = 0; j < i && (o->flags & CLI_FILE_OUT); j++)
            if ((fs->f[j].flags & CLI_FILE_OUT) && same_output(o, &fs->f[j]))
                return cli_usage_error(fs->cmd, "%s and %s name the same file: %s", fs->f[j].what,
                                       o->what, o->path);
    }
    /* every file of every input, then every name of every output against them */
    id_list l = {NULL, 0, 0, NULL};
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < fs->n && rc == CLI_EXIT_OK; i++) {
        if (fs->f[i].flags & CLI_FILE_OUT)
            continue;
        l.in = &fs->f[i];
        if (each_file(&fs->f[i], list_input, &l) < 0) {
            cli_error(NULL, "out of memory");
            rc = CLI_EXIT_RUNTIME;
        }
    }
    if (l.n > 1)
        qsort(l.id, l.n, sizeof(*l.id), cmp_id);
    for (int i = 0; i < fs->n && rc == CLI_EXIT_OK && l.n > 0; i++)
        if ((fs->f[i].flags & CLI_FILE_OUT) && each_file(&fs->f[i], visit_output, &l))
            rc = CLI_EXIT_USAGE;
    free(l.id);
    return rc;
}
