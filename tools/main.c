/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea: the command-line tool. Dispatches `fovea <command> ...` to the
 * cmd_<command>() function of tools/cmd_<command>.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The commands, in the order `fovea --help` lists them. Adding a command is one
 * line here plus tools/cmd_<name>.c defining int cmd_<name>(int argc, char **argv). */
#define FOVEA_COMMANDS(X)                                                                          \
    X(info, "show version, build, CPU and CUDA devices, supported formats")                        \
    X(convert, "convert between y4m, raw yuv, PNM, PNG and pixel formats")                         \
    X(rig, "check a camera rig: validation, coverage, overlaps, map build")                        \
    X(map, "import stitch maps from lookup tables, show a map's geometry")                         \
    X(stitch, "stitch synchronized camera videos or stills into a panorama")                       \
    X(demo, "render, stitch and measure the built-in panorama demo")                               \
    X(vif, "score video quality with libvmaf's integer VIF (bit-exact)")                           \
    X(vmaf, "score video quality with libvmaf's VMAF (bit-exact); batch mode")                     \
    X(diff, "what changes between frames: heat maps, noise maps, tile masks")                      \
    X(track, "track features with a KLT 1.3.4-compatible tracker")                                 \
    X(send, "serve a video over TCP as a delta stream (only what changed)")                        \
    X(receive, "receive a delta stream and write its frames (y4m)")                                \
    X(live, "watch a delta stream live in web browsers: views, controls")

#define DECLARE_COMMAND(name, summary) int cmd_##name(int argc, char **argv);
FOVEA_COMMANDS(DECLARE_COMMAND)
#undef DECLARE_COMMAND

static const cli_command commands[] = {
#define COMMAND_ENTRY(name, summary) {#name, summary, cmd_##name},
    FOVEA_COMMANDS(COMMAND_ENTRY)
#undef COMMAND_ENTRY
};

#define N_COMMANDS ((int)(sizeof(commands) / sizeof(commands[0])))

static const cli_command *find_command(const char *name)
{
    for (int i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static void print_usage(FILE *fp)
{
    fputs("Usage: fovea <command> [options] [arguments]\n"
          "       fovea help <command>\n"
          "       fovea --version\n"
          "\n"
          "GPU video processing: panorama stitching, video quality (VMAF, VIF), KLT\n"
          "tracking, frame differencing and delta streaming, format conversion.\n"
          "\n"
          "Commands:\n",
          fp);
    for (int i = 0; i < N_COMMANDS; i++)
        fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(fp, "  %-10s %s\n", "help", "show the help of a command");
    fputs("\n"
          "Options:\n"
          "  -h, --help     show this help and exit\n"
          "  -V, --version  show the version and whether the CUDA backend is compiled in\n"
          "\n"
          "Run 'fovea <command> --help' for the options of a command.\n"
          "Exit status: 0 success, 1 runtime error, 2 usage error (an output that is\n"
          "the same file as an input, also through a link, is refused as one).\n"
          "Outputs: a regular file is replaced only once the new one is complete (a\n"
          "temporary beside it, renamed into place); a symlink is written through;\n"
          "devices and FIFOs are written in place; '-' is stdout.\n",
          fp);
}

static void print_version(void)
{
    printf("fovea %s\n", fovea_version());
    printf("CUDA backend: %s\n", fovea_cuda_compiled() ? "compiled in" : "not compiled in");
}

/* `fovea help [command]`: runs the command with --help. */
static int run_help(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (argc > 2)
        return cli_usage_error(NULL, "help: expected one command name, got %d arguments", argc - 1);
    if (strcmp(argv[1], "help") == 0) {
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    const cli_command *c = find_command(argv[1]);
    if (!c)
        return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
    char name[64], help[] = "--help";
    snprintf(name, sizeof(name), "%s", c->name);
    char *sub_argv[] = {name, help, NULL};
    return c->run(2, sub_argv);
}

/* Everything a command printed on stdout must have reached it: a full disk or
 * a closed stdout is a failure of the run even when the command itself
 * succeeded (its messages go to stderr, so the first error stands). */
static int finish_stdout(int rc)
{
    errno = 0;
    const int flush_failed = fflush(stdout) != 0;
    const int err = errno;
    if (!flush_failed && !ferror(stdout))
        return rc;
    if (rc == CLI_EXIT_OK) {
        if (flush_failed && err)
            cli_error("stdout", "%s", strerror(err));
        else
            cli_error("stdout", "write error");
        rc = CLI_EXIT_RUNTIME;
    }
    return rc;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *first = argv[1];
    if (strcmp(first, "-h") == 0 || strcmp(first, "--help") == 0) {
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(first, "-V") == 0 || strcmp(first, "--version") == 0) {
        print_version();
        return CLI_EXIT_OK;
    }
    if (strcmp(first, "help") == 0)
        return run_help(argc - 1, argv + 1);
    if (first[0] == '-')
        return cli_usage_error(NULL, "unknown option '%s'", first);
    const cli_command *c = find_command(first);
    if (!c)
        return cli_usage_error(NULL, "unknown command '%s'", first);
    return c->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    cli_temps_install(); /* before any thread: an interrupted run leaves no temporary */
    return finish_stdout(run(argc, argv));
}
