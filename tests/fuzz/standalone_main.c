/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Without libFuzzer, a fuzz target becomes a regression test: every file named
 * on the command line (or found in a directory named there) is fed to
 * LLVMFuzzerTestOneInput once. A crash or sanitizer report fails the test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        if (!buf)
            return 1;
        size_t k = fread(buf + len, 1, cap - len, fp);
        if (k == 0)
            break;
        len += k;
    }
    fclose(fp);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, errors = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "missing corpus path %s\n", argv[i]);
            return 1;
        }
        if (S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            while (d && (e = readdir(d)) != NULL) {
                if (e->d_name[0] == '.')
                    continue;
                char path[4096];
                snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
                errors += run_file(path);
                files++;
            }
            if (d)
                closedir(d);
        } else {
            errors += run_file(argv[i]);
            files++;
        }
    }
    if (files == 0) {
        fprintf(stderr, "no corpus files\n");
        return 1;
    }
    printf("%d corpus files ran\n", files);
    return errors ? 1 : 0;
}
