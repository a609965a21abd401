/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Output files that never destroy what the user did not ask to replace: regular
 * files (and new paths) are replaced atomically through a unique temporary in
 * the target's directory; devices, FIFOs and sockets are written in place. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "fovea/advanced.h"
#include "fovea/io.h"
#include "io/io_buf.h"

struct fovea_outfile {
    FILE *fp;
    char *path;   /* as given, for messages */
    char *target; /* the file that gets the content (symlinks followed) */
    char *tmp;    /* the temporary renamed onto target; NULL when written in place */
    int is_stdout;
};

/* Most symlinks followed before giving up (the kernel's own limit). */
#define MAX_LINK_HOPS 40

static const char *shown(const char *path)
{
    return strcmp(path, "-") == 0 ? "stdout" : path;
}

/* The contents of symlink path (malloc'd), or NULL with errno set. */
static char *read_link(const char *path)
{
    size_t cap = 256;
    for (;;) {
        char *buf = malloc(cap);
        if (!buf)
            return NULL;
        ssize_t n = readlink(path, buf, cap);
        if (n < 0) {
            int e = errno;
            free(buf);
            errno = e;
            return NULL;
        }
        if ((size_t)n < cap) {
            buf[n] = '\0';
            return buf;
        }
        free(buf);
        if (cap > (1u << 20)) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        cap *= 2;
    }
}

/* The path that finally receives the data: path with its symlinks followed,
 * also a dangling one (its target is then created). NULL with errno set. */
static char *resolve_links(const char *path)
{
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur; /* not a link, or missing: later calls report why */
        if (hops == MAX_LINK_HOPS) {
            free(cur);
            errno = ELOOP;
            return NULL;
        }
        char *link = read_link(cur);
        if (!link) {
            int e = errno;
            free(cur);
            errno = e;
            return NULL;
        }
        const char *slash = strrchr(cur, '/');
        char *next;
        if (link[0] == '/' || !slash) {
            next = link;
        } else {
            size_t dlen = (size_t)(slash - cur) + 1;
            next = malloc(dlen + strlen(link) + 1);
            if (next) {
                memcpy(next, cur, dlen);
                strcpy(next + dlen, link);
            }
            free(link);
        }
        free(cur);
        cur = next;
    }
    errno = ENOMEM;
    return NULL;
}

/* Create a new file next to target, named ".<name>.<random>", with mode 0666
 * (the umask and the directory's default ACL apply, as for any new file).
 * @return the descriptor and *tmp, or -1 with errno set. */
static int create_temp(const char *target, const void *salt, char **tmp)
{
    const char *slash = strrchr(target, '/');
    size_t dlen = slash ? (size_t)(slash - target) + 1 : 0;
    const char *base = slash ? slash + 1 : target;
    size_t blen = strlen(base);
    if (blen > 200)
        blen = 200; /* room for the prefix and suffix within NAME_MAX */
    size_t cap = dlen + 1 + blen + 1 + 16 + 1;
    char *name = malloc(cap);
    if (!name)
        return -1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_nsec ^
                 ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)salt;
    for (int attempt = 0; attempt < 100; attempt++) {
        /* splitmix64: a new name per attempt */
        x += 0x9E3779B97F4A7C15ull;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
        char suffix[9];
        for (int i = 0; i < 8; i++) {
            suffix[i] = digits[z % 36];
            z /= 36;
        }
        suffix[8] = '\0';
        snprintf(name, cap, "%.*s.%.*s.%s", (int)dlen, target, (int)blen, base, suffix);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *tmp = name;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    free(name);
    errno = e;
    return -1;
}

/* The directory part of path for messages ("." when none). */
static void dir_of(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, size, ".");
    else if (slash == path)
        snprintf(buf, size, "/");
    else
        snprintf(buf, size, "%.*s", (int)(slash - path), path);
}

static void outfile_free(fovea_outfile *of)
{
    free(of->path);
    free(of->target);
    free(of->tmp);
    free(of);
}

int fv_outfile_open_buf(fovea_outfile **out, const char *path, char *err, size_t errsz)
{
    if (err && errsz)
        err[0] = '\0';
    if (!out || !path || !*path) {
        if (out)
            *out = NULL;
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "%s: invalid output path",
                         path ? path : "(null)");
    }
    *out = NULL;
    fovea_outfile *of = calloc(1, sizeof(*of));
    if (!of || !(of->path = strdup(path))) {
        free(of);
        return fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "%s: out of memory", path);
    }
    if (strcmp(path, "-") == 0) {
        of->fp = stdout;
        of->is_stdout = 1;
        *out = of;
        return FOVEA_OK;
    }
    int st = FOVEA_ERR_IO;
    of->target = resolve_links(path);
    if (!of->target) {
        st = errno == ENOMEM ? FOVEA_ERR_NOMEM : FOVEA_ERR_IO;
        fv_errbuf(err, errsz, st, "%s: %s", path, strerror(errno));
        goto fail;
    }
    struct stat sb;
    int exists = stat(of->target, &sb) == 0;
    if (!exists && errno != ENOENT) {
        fv_errbuf(err, errsz, st, "%s: %s", path, strerror(errno));
        goto fail;
    }
    int fd;
    if (exists && S_ISDIR(sb.st_mode)) {
        fv_errbuf(err, errsz, st, "%s: %s", path, strerror(EISDIR));
        goto fail;
    } else if (exists && !S_ISREG(sb.st_mode)) {
        /* a device, FIFO or socket: the user asked to write into it, not to
         * replace it (a FIFO waits here for its reader) */
        fd = open(of->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
            fv_errbuf(err, errsz, st, "%s: %s", path, strerror(errno));
            goto fail;
        }
    } else {
        /* replacing a file the user cannot write would bypass its protection */
        if (exists && access(of->target, W_OK) != 0) {
            fv_errbuf(err, errsz, st, "%s: %s", path, strerror(errno));
            goto fail;
        }
        fd = create_temp(of->target, of, &of->tmp);
        if (fd < 0) {
            char dir[4096];
            dir_of(of->target, dir, sizeof(dir));
            if (errno == ENOENT || errno == ENOTDIR)
                fv_errbuf(err, errsz, st, "%s: %s", path, strerror(errno));
            else
                fv_errbuf(err, errsz, st, "%s: cannot create a temporary file in %s: %s", path, dir,
                          strerror(errno));
            goto fail;
        }
        if (exists) {
            /* the replacement keeps the file's owner (when allowed) and mode;
             * chown first, as it may clear set-id bits */
            if (fchown(fd, sb.st_uid, sb.st_gid) != 0 && fchown(fd, (uid_t)-1, sb.st_gid) != 0) {
                /* not allowed: the new file is the writer's, as with any new file */
            }
            if (fchmod(fd, sb.st_mode & 07777) != 0) {
                int e = errno;
                close(fd);
                unlink(of->tmp);
                fv_errbuf(err, errsz, st, "%s: cannot set the mode of %s: %s", path, of->tmp,
                          strerror(e));
                goto fail;
            }
        }
    }
    of->fp = fdopen(fd, "wb");
    if (!of->fp) {
        int e = errno;
        close(fd);
        if (of->tmp)
            unlink(of->tmp);
        fv_errbuf(err, errsz, st, "%s: %s", path, strerror(e));
        goto fail;
    }
    *out = of;
    return FOVEA_OK;
fail:
    outfile_free(of);
    return st;
}

FILE *fovea_outfile_file(const fovea_outfile *of)
{
    return of ? of->fp : NULL;
}

const char *fovea_outfile_temp_path(const fovea_outfile *of)
{
    return of ? of->tmp : NULL;
}

int fv_outfile_commit_buf(fovea_outfile **pof, char *err, size_t errsz)
{
    if (err && errsz)
        err[0] = '\0';
    if (!pof || !*pof)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "no output file");
    fovea_outfile *of = *pof;
    *pof = NULL;
    int e = 0;
    errno = 0;
    if (fflush(of->fp) != 0)
        e = errno ? errno : EIO;
    else if (ferror(of->fp))
        e = EIO; /* a write failed earlier and nothing says why */
    if (!of->is_stdout) {
        errno = 0;
        if (fclose(of->fp) != 0 && !e)
            e = errno ? errno : EIO;
    }
    of->fp = NULL;
    int st = FOVEA_OK;
    if (e) {
        st = fv_errbuf(err, errsz, FOVEA_ERR_IO, "%s: %s", shown(of->path), strerror(e));
    } else if (of->tmp && rename(of->tmp, of->target) != 0) {
        st = fv_errbuf(err, errsz, FOVEA_ERR_IO, "%s: cannot move %s into place: %s", of->path,
                       of->tmp, strerror(errno));
    } else if (of->tmp) {
        free(of->tmp);
        of->tmp = NULL; /* it is the target now */
    }
    if (of->tmp)
        unlink(of->tmp);
    outfile_free(of);
    return st;
}

void fovea_outfile_close(fovea_outfile **pof)
{
    if (!pof || !*pof)
        return;
    fovea_outfile *of = *pof;
    *pof = NULL;
    if (of->fp) {
        if (of->is_stdout)
            fflush(of->fp);
        else
            fclose(of->fp);
    }
    if (of->tmp)
        unlink(of->tmp); /* ours; the destination was never touched */
    outfile_free(of);
}

int fovea_same_file(const char *a, const char *b)
{
    if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return 0;
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int fovea_outfile_open(fovea_outfile **of, fovea_context *ctx, const char *path)
{
    char err[FOVEA_ERRLEN] = "";
    int st = fv_outfile_open_buf(of, path, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}

int fovea_outfile_commit(fovea_outfile **of, fovea_context *ctx)
{
    char err[FOVEA_ERRLEN] = "";
    int st = fv_outfile_commit_buf(of, err, sizeof(err));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", err) : st;
}
