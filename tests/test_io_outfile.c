/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea_outfile: atomic replace of regular files, writing through symlinks and
 * into FIFOs/devices, modes, leftovers, error paths, and fovea_same_file; the
 * writers built on it (fovea_writer abort/finish, PNG, map files). */
#define _XOPEN_SOURCE 700 /* mknod */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "fovea/advanced.h"
#include "fovea/io.h"
#include "testutil.h"

static char dir[256];

static char *in_dir(const char *name)
{
    static char buf[64][512]; /* callers keep a few at once */
    static int k;
    char *p = buf[k++ % 64];
    snprintf(p, 512, "%s/%s", dir, name);
    return p;
}

static void put(const char *path, const char *text, mode_t mode)
{
    FILE *fp = fopen(path, "wb");
    REQUIRE(fp != NULL);
    REQUIRE(fputs(text, fp) >= 0);
    REQUIRE(fclose(fp) == 0);
    REQUIRE(chmod(path, mode) == 0);
}

static int has_text(const char *path, const char *text)
{
    char *got = test_read_text(path);
    int ok = got && strcmp(got, text) == 0;
    if (!ok)
        fprintf(stderr, "  %s holds '%s', expected '%s'\n", path, got ? got : "(unreadable)", text);
    free(got);
    return ok;
}

/* Entries of the test directory (a leftover temporary shows as one more). */
static int count_entries(void)
{
    DIR *d = opendir(dir);
    REQUIRE(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

/* Write text through the helper and commit. */
static int write_text(const char *path, const char *text, char *err, size_t errsz)
{
    fovea_outfile *of = NULL;
    int st = fovea_outfile_open(&of, NULL, path);
    if (st >= 0) {
        CHECK(fovea_outfile_file(of) != NULL);
        fputs(text, fovea_outfile_file(of));
        st = fovea_outfile_commit(&of, NULL);
    }
    if (st < 0)
        snprintf(err, errsz, "%s", fovea_last_error(NULL));
    return st;
}

static void test_new_file(void)
{
    char err[512];
    const char *p = in_dir("new.txt");
    mode_t old = umask(022);
    CHECK_EQ_INT(write_text(p, "hello\n", err, sizeof(err)), FOVEA_OK);
    struct stat st;
    REQUIRE(stat(p, &st) == 0);
    CHECK(S_ISREG(st.st_mode));
    CHECK_EQ_INT(st.st_mode & 07777, 0644);
    CHECK(has_text(p, "hello\n"));
    umask(077);
    const char *q = in_dir("private.txt");
    CHECK_EQ_INT(write_text(q, "x", err, sizeof(err)), FOVEA_OK);
    REQUIRE(stat(q, &st) == 0);
    CHECK_EQ_INT(st.st_mode & 07777, 0600);
    umask(old);
    CHECK_EQ_INT(count_entries(), 2); /* no temporary left behind */
    unlink(p);
    unlink(q);
}

static void test_replace_keeps_mode(void)
{
    char err[512];
    const char *p = in_dir("keep.txt");
    put(p, "old content\n", 0640);
    struct stat before, after;
    REQUIRE(stat(p, &before) == 0);
    mode_t old = umask(077);
    CHECK_EQ_INT(write_text(p, "new\n", err, sizeof(err)), FOVEA_OK);
    umask(old);
    REQUIRE(stat(p, &after) == 0);
    CHECK_EQ_INT(after.st_mode & 07777, 0640);
    CHECK(has_text(p, "new\n"));
    CHECK_EQ_INT(count_entries(), 1);
    unlink(p);
}

static void test_neighbors_untouched(void)
{
    char err[512];
    const char *p = in_dir("pano.map");
    const char *t = in_dir("pano.map.tmp");
    put(t, "someone's file\n", 0644);
    put(p, "old map\n", 0644);
    CHECK_EQ_INT(write_text(p, "new map\n", err, sizeof(err)), FOVEA_OK);
    CHECK(has_text(t, "someone's file\n"));
    CHECK(has_text(p, "new map\n"));
    CHECK_EQ_INT(count_entries(), 2);
    unlink(p);
    unlink(t);
}

static void test_symlink(void)
{
    char err[512];
    REQUIRE(mkdir(in_dir("sub"), 0755) == 0);
    const char *target = in_dir("sub/real.txt");
    const char *link = in_dir("link.txt");
    put(target, "before\n", 0600);
    REQUIRE(symlink("sub/real.txt", link) == 0); /* relative to the link's directory */
    CHECK_EQ_INT(write_text(link, "through\n", err, sizeof(err)), FOVEA_OK);
    struct stat st;
    REQUIRE(lstat(link, &st) == 0);
    CHECK(S_ISLNK(st.st_mode));
    CHECK(has_text(target, "through\n"));
    REQUIRE(stat(target, &st) == 0);
    CHECK_EQ_INT(st.st_mode & 07777, 0600);

    /* a chain of links, the last one dangling: its target is created */
    const char *link2 = in_dir("link2.txt");
    REQUIRE(symlink("sub/dangling.txt", in_dir("sub/../dangle")) == 0);
    REQUIRE(symlink("dangle", link2) == 0);
    CHECK_EQ_INT(write_text(link2, "made\n", err, sizeof(err)), FOVEA_OK);
    CHECK(has_text(in_dir("sub/dangling.txt"), "made\n"));
    REQUIRE(lstat(link2, &st) == 0);
    CHECK(S_ISLNK(st.st_mode));
    CHECK(has_text(link2, "made\n"));

    /* a loop is an error, not a hang */
    REQUIRE(symlink("loop2", in_dir("loop1")) == 0);
    REQUIRE(symlink("loop1", in_dir("loop2")) == 0);
    CHECK_EQ_INT(write_text(in_dir("loop1"), "x", err, sizeof(err)), FOVEA_ERR_IO);
    CHECK(strstr(err, "loop1") != NULL);
    unlink(in_dir("loop1"));
    unlink(in_dir("loop2"));
    unlink(link);
    unlink(link2);
    unlink(in_dir("dangle"));
    unlink(in_dir("sub/dangling.txt"));
    unlink(target);
    rmdir(in_dir("sub"));
    CHECK_EQ_INT(count_entries(), 0);
}

typedef struct fifo_reader {
    const char *path;
    char got[256];
} fifo_reader;

static void *read_fifo(void *arg)
{
    fifo_reader *r = arg;
    int fd = open(r->path, O_RDONLY);
    if (fd < 0)
        return NULL;
    size_t n = 0;
    ssize_t k;
    while (n < sizeof(r->got) - 1 && (k = read(fd, r->got + n, sizeof(r->got) - 1 - n)) > 0)
        n += (size_t)k;
    r->got[n] = '\0';
    close(fd);
    return NULL;
}

static void test_fifo(void)
{
    char err[512];
    const char *p = in_dir("pipe");
    REQUIRE(mkfifo(p, 0600) == 0);
    fifo_reader r;
    memset(&r, 0, sizeof(r));
    r.path = p;
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, read_fifo, &r) == 0);
    CHECK_EQ_INT(write_text(p, "through the pipe\n", err, sizeof(err)), FOVEA_OK);
    pthread_join(th, NULL);
    CHECK(strcmp(r.got, "through the pipe\n") == 0);
    struct stat st;
    REQUIRE(lstat(p, &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
    CHECK_EQ_INT(count_entries(), 1);
    unlink(p);
}

static void test_errors_keep_destination(void)
{
    char err[512];
    const char *p = in_dir("precious.txt");
    put(p, "precious\n", 0644);

    /* abort after writing: the destination is untouched, the temporary gone */
    fovea_outfile *of = NULL;
    REQUIRE(fovea_outfile_open(&of, NULL, p) == FOVEA_OK);
    fputs("half a fi", fovea_outfile_file(of));
    fflush(fovea_outfile_file(of));
    CHECK_EQ_INT(count_entries(), 2);
    fovea_outfile_close(&of);
    CHECK(of == NULL);
    CHECK(has_text(p, "precious\n"));
    CHECK_EQ_INT(count_entries(), 1);
    fovea_outfile_close(&of); /* safe on NULL */

    /* a directory is refused by name */
    err[0] = '\0';
    CHECK_EQ_INT(write_text(dir, "x", err, sizeof(err)), FOVEA_ERR_IO);
    CHECK(strstr(err, dir) != NULL && strstr(err, "Is a directory") != NULL);

    /* a missing directory names the path and the reason */
    CHECK_EQ_INT(write_text(in_dir("nodir/x.txt"), "x", err, sizeof(err)), FOVEA_ERR_IO);
    CHECK(strstr(err, "nodir/x.txt") != NULL && strstr(err, "No such file") != NULL);

    /* a file the user may not write is not replaced behind its back */
    if (geteuid() != 0) {
        const char *ro = in_dir("readonly.txt");
        put(ro, "locked\n", 0444);
        CHECK_EQ_INT(write_text(ro, "x", err, sizeof(err)), FOVEA_ERR_IO);
        CHECK(strstr(err, "Permission denied") != NULL);
        CHECK(has_text(ro, "locked\n"));
        unlink(ro);
    }

    /* a full device: the error says so, the node stays a device */
    struct stat st;
    if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
        err[0] = '\0';
        CHECK_EQ_INT(write_text("/dev/full", "no room\n", err, sizeof(err)), FOVEA_ERR_IO);
        CHECK(strstr(err, "/dev/full") != NULL);
        CHECK(strstr(err, "No space left on device") != NULL);
        REQUIRE(stat("/dev/full", &st) == 0);
        CHECK(S_ISCHR(st.st_mode));
    }
    unlink(p);
    CHECK_EQ_INT(count_entries(), 0);
}

static void test_same_file(void)
{
    const char *a = in_dir("a.y4m");
    const char *b = in_dir("b.y4m");
    put(a, "a", 0644);
    put(b, "a", 0644);
    REQUIRE(link(a, in_dir("hard.y4m")) == 0);
    REQUIRE(symlink("a.y4m", in_dir("soft.y4m")) == 0);
    CHECK_EQ_INT(fovea_same_file(a, a), 1);
    CHECK_EQ_INT(fovea_same_file(a, in_dir("hard.y4m")), 1);
    CHECK_EQ_INT(fovea_same_file(in_dir("soft.y4m"), a), 1);
    CHECK_EQ_INT(fovea_same_file(in_dir("./a.y4m"), a), 1);
    CHECK_EQ_INT(fovea_same_file(a, b), 0);
    CHECK_EQ_INT(fovea_same_file(a, in_dir("missing")), 0);
    CHECK_EQ_INT(fovea_same_file("-", "-"), 0);
    CHECK_EQ_INT(fovea_same_file(a, NULL), 0);
    unlink(a);
    unlink(b);
    unlink(in_dir("hard.y4m"));
    unlink(in_dir("soft.y4m"));
}

static void make_frame(fovea_frame *f)
{
    test_rng rng;
    test_rng_seed(&rng, 7);
    memset(f, 0, sizeof(*f));
    REQUIRE(fovea_frame_alloc(NULL, f, 16, 8, FOVEA_PIX_I420, FOVEA_MEM_HOST) == FOVEA_OK);
    test_fill_random(f, &rng);
}

/* A video writer abandoned midway leaves an existing file as it was; one that
 * finishes replaces it; a full device reports why. */
static void test_writer(void)
{
    fovea_frame f;
    make_frame(&f);
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = f.width;
    info.height = f.height;
    info.fmt = f.fmt;
    const char *p = in_dir("video.y4m");
    put(p, "old video\n", 0644);

    fovea_writer *w = NULL;
    REQUIRE(fovea_writer_open(&w, NULL, p, FOVEA_CONTAINER_AUTO, &info) == FOVEA_OK);
    CHECK_EQ_INT(fovea_writer_write(w, &f), FOVEA_OK);
    fovea_writer_close(&w);
    CHECK(w == NULL);
    CHECK(has_text(p, "old video\n"));
    CHECK_EQ_INT(count_entries(), 1);

    REQUIRE(fovea_writer_open(&w, NULL, p, FOVEA_CONTAINER_AUTO, &info) == FOVEA_OK);
    CHECK_EQ_INT(fovea_writer_write(w, &f), FOVEA_OK);
    CHECK(has_text(p, "old video\n")); /* not replaced before it is complete */
    CHECK_EQ_INT(fovea_writer_finish(w), FOVEA_OK);
    CHECK_EQ_INT(fovea_writer_finish(w), FOVEA_OK);
    fovea_writer_close(&w);
    size_t size;
    uint8_t *data = test_read_file(p, &size);
    CHECK(size > 16 * 8 * 3 / 2 && memcmp(data, "YUV4MPEG2", 9) == 0);
    free(data);
    CHECK_EQ_INT(count_entries(), 1);

    struct stat st;
    if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
        REQUIRE(fovea_writer_open(&w, NULL, "/dev/full", FOVEA_CONTAINER_Y4M, &info) == FOVEA_OK);
        int rc = fovea_writer_write(w, &f);
        if (rc == FOVEA_OK)
            rc = fovea_writer_finish(w);
        CHECK_EQ_INT(rc, FOVEA_ERR_IO);
        CHECK(strstr(fovea_last_error(NULL), "No space left on device") != NULL);
        fovea_writer_close(&w);
    }

    /* a pattern writer refuses a frame file that is a protected input */
    const char *in = in_dir("in0001.y4m");
    put(in, "input\n", 0644);
    REQUIRE(symlink("in0001.y4m", in_dir("in0001.png")) == 0);
    fovea_frame g8;
    memset(&g8, 0, sizeof(g8));
    REQUIRE(fovea_frame_alloc(NULL, &g8, 16, 8, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == FOVEA_OK);
    memset(g8.data[0], 50, (size_t)g8.stride[0] * 8);
    info.fmt = FOVEA_PIX_GRAY8;
    REQUIRE(fovea_writer_open(&w, NULL, in_dir("in%04d.png"), FOVEA_CONTAINER_AUTO, &info) ==
            FOVEA_OK);
    CHECK_EQ_INT(fovea_writer_protect(w, in), FOVEA_OK);
    CHECK_EQ_INT(fovea_writer_write(w, &g8), FOVEA_OK); /* in0000.png */
    CHECK_EQ_INT(fovea_writer_write(w, &g8), FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(NULL), "output is the same file as input") != NULL);
    fovea_writer_close(&w);
    CHECK(has_text(in, "input\n"));
    struct stat lst;
    REQUIRE(lstat(in_dir("in0001.png"), &lst) == 0);
    CHECK(S_ISLNK(lst.st_mode));
    unlink(in_dir("in0000.png"));
    unlink(in_dir("in0001.png"));
    unlink(in);
    fovea_frame_free(NULL, &g8);
    /* a single output that is the input is refused at once */
    REQUIRE(fovea_writer_open(&w, NULL, p, FOVEA_CONTAINER_AUTO, &info) == FOVEA_OK);
    CHECK_EQ_INT(fovea_writer_protect(w, p), FOVEA_ERR_INVALID_ARG);
    fovea_writer_close(&w);
    info.fmt = f.fmt;

    /* PNG: an error keeps the destination; a device node is never removed */
    fovea_frame g;
    memset(&g, 0, sizeof(g));
    REQUIRE(fovea_frame_alloc(NULL, &g, 16, 8, FOVEA_PIX_GRAY8, FOVEA_MEM_HOST) == FOVEA_OK);
    memset(g.data[0], 100, (size_t)g.stride[0] * 8);
    const char *png = in_dir("still.png");
    put(png, "old png\n", 0644);
    CHECK_EQ_INT(fovea_png_write_file(NULL, png, &f), FOVEA_ERR_UNSUPPORTED);
    CHECK(has_text(png, "old png\n"));
    CHECK_EQ_INT(fovea_png_write_file(NULL, png, &g), FOVEA_OK);
    data = test_read_file(png, &size);
    CHECK(size > 8 && memcmp(data + 1, "PNG", 3) == 0);
    free(data);
    if (mknod(in_dir("full"), S_IFCHR | 0666, makedev(1, 7)) == 0) {
        CHECK_EQ_INT(fovea_png_write_file(NULL, in_dir("full"), &g), FOVEA_ERR_IO);
        CHECK(strstr(fovea_last_error(NULL), "No space left on device") != NULL);
        REQUIRE(lstat(in_dir("full"), &st) == 0);
        CHECK(S_ISCHR(st.st_mode));
        unlink(in_dir("full"));
    } else {
        fprintf(stderr, "test_io_outfile: mknod not permitted, device-node case skipped\n");
    }
    unlink(png);
    unlink(p);
    fovea_frame_free(NULL, &f);
    fovea_frame_free(NULL, &g);
    CHECK_EQ_INT(count_entries(), 0);
}

int main(void)
{
    snprintf(dir, sizeof(dir), "/tmp/fovea-outfile-XXXXXX");
    REQUIRE(mkdtemp(dir) != NULL);
    test_new_file();
    test_replace_keeps_mode();
    test_neighbors_untouched();
    test_symlink();
    test_fifo();
    test_errors_keep_destination();
    test_same_file();
    test_writer();
    rmdir(dir);
    return test_finish("test_io_outfile");
}
